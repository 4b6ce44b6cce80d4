//! Cells and nodes over real OpenSSH servers on loopback, and batch against them and the live host.
//!
//! One test binary for the group (docs/tests.md says why): each file
//! of the folder is a module, and the helpers they share are declared once here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod batch_cells;
mod cells;
mod cells_reboot;
#[path = "../common/mod.rs"]
mod common;
mod node_sampler;
mod nodes;
#[allow(unsafe_code)]
#[path = "../peer_tools/mod.rs"]
mod peer_tools;
mod procs;
#[path = "../sshd/mod.rs"]
mod sshd;

//! Recordings: the format, writing, reading, damage, export and summary, and the demo.
//!
//! One test binary for the group (docs/tests.md says why): each file
//! of the folder is a module, and the helpers they share are declared once here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod big;
mod cells_live;
#[path = "../common/mod.rs"]
mod common;
mod demo_asset;
mod errors;
mod export;
mod file_errors;
mod format;
mod kill;
mod nodes;
#[allow(unsafe_code)]
#[path = "../peer_tools/mod.rs"]
mod peer_tools;
mod recover;
mod remote_errors;
mod replay;
mod safety;
#[path = "../sshd/mod.rs"]
mod sshd;

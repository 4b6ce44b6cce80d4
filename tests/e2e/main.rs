//! The real binary in tmux: keys sent, panes read.
//!
//! One test binary for the group (docs/tests.md says why): each file
//! of the folder is a module, and the helpers they share are declared once here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cells;
mod check;
#[path = "../common/mod.rs"]
mod common;
mod cpu;
mod cpu_fio;
mod hangup;
mod nodes;
#[allow(unsafe_code)]
#[path = "../peer_tools/mod.rs"]
mod peer_tools;
mod procs;
mod replay;
mod small;
#[path = "../sshd/mod.rs"]
mod sshd;
mod tmux;

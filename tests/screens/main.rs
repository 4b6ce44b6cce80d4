//! ratatui TestBackend snapshots of every panel.
//!
//! One test binary for the group (docs/tests.md says why): each file
//! of the folder is a module, and the helpers they share are declared once here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cells;
#[path = "../common/mod.rs"]
mod common;
mod dnfs;
mod layers;
mod markers;
mod nodes;
mod old_kernels;
mod panels;
mod procs;
mod prompt;
mod sizes;

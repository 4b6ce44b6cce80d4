//! Parsers of every outside input, and the config and theme files.
//!
//! One test binary for the group (docs/tests.md says why): each file
//! of the folder is a module, and the helpers they share are declared once here.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bad_input;
mod cache;
mod cellcli;
mod config_themes;
mod net;
mod nfs;
mod parsers;

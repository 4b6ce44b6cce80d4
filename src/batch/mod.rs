//! `strata batch PANEL`: the same figures as the screen, printed for
//! scripts and tests, with no terminal UI.

pub mod cells;
pub mod dnfs;
pub mod nodes;
pub mod run;

// The formats and helpers every layer's report uses live with the layers;
// batch/ and export/ keep using them through these paths.
pub use crate::layers::report::Format;
pub(crate) use crate::layers::report::{csv_field, json_str, printable};

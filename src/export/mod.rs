//! `strata export` and `strata summary`: a recording's figures for scripts
//! and reports, computed from its raw samples by the code the live screen
//! and `strata batch` use ([`walk`]), printed by batch's own printers
//! ([`rows`]) or summed up per figure over a window ([`summary`]).
//!
//! ```text
//! Player ─► Input ─► Walker (baselines, Cells) ─► Step ─┬─► batch printers   (export)
//!                                                       └─► min avg p95 max  (summary)
//! ```

pub mod cmd;
pub mod rows;
pub mod summary;
pub mod walk;
pub mod window;

pub use rows::{EXIT_DAMAGED, EXIT_USAGE, ExportOptions, export};
pub use summary::{Summary, summarize};
pub use window::Window;

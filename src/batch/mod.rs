//! `strata batch PANEL`: the same figures as the screen, printed for
//! scripts and tests, with no terminal UI.

pub mod disks;
pub mod run;

/// Output formats of the batch printers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The layout and column names of the reference tool (iostat -x).
    Text,
    /// One JSON object per entity per interval (newline-delimited).
    Json,
    /// A header line, then one line per entity per interval.
    Csv,
}

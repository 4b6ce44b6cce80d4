//! `strata batch PANEL`: the same figures as the screen, printed for
//! scripts and tests, with no terminal UI.

pub mod cache;
pub mod cells;
pub mod disks;
pub mod dnfs;
pub mod nfs;
pub mod nics;
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

/// Text from /proc or /sys as it may go to a terminal or a CSV file: a dm
/// name or a host name can hold any byte but '/', and an escape sequence
/// or a newline in one would repaint the screen or split a row. JSON needs
/// none of this: serde_json escapes control characters itself.
pub(crate) fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_control) {
        s.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}

/// A string as a JSON string literal (serde_json escapes control
/// characters itself).
pub(crate) fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// A CSV field: control characters printed as '?', quoted when it holds
/// a comma or a quote.
pub(crate) fn csv_field(s: &str) -> String {
    let s = printable(s);
    if s.contains([',', '"']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

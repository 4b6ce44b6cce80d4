//! Pure parsers: text in, typed values out. No file system, no clock.
//!
//! Local files, text read from a remote host and test fixtures all go through
//! these functions, so a figure means the same thing whatever its origin.

pub mod bonding;
pub mod cell_stream;
pub mod cellcli;
pub mod diskstats;
pub mod meminfo;
pub mod mountinfo;
pub mod mountstats;
pub mod net_sysfs;
pub mod netdev;
pub mod route;
pub mod sql_rows;
pub mod uptime;
pub mod vmstat;

use std::fmt;

/// A line that could not be read, with enough context to find it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub struct ParseError {
    /// What was being parsed: a path such as `/proc/diskstats`.
    pub source_name: String,
    /// 1-based line number within the text.
    pub line_no: usize,
    /// The offending line, cut to a readable length.
    pub line: String,
    /// What the parser expected to find.
    pub expected: String,
}

impl ParseError {
    pub fn new(source_name: &str, line_no: usize, line: &str, expected: impl Into<String>) -> Self {
        let mut line = line.trim_end().to_string();
        if line.chars().count() > 120 {
            line = line.chars().take(117).collect::<String>() + "...";
        }
        ParseError {
            source_name: source_name.to_string(),
            line_no,
            line,
            expected: expected.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} line {}: expected {}: {:?}",
            self.source_name, self.line_no, self.expected, self.line
        )
    }
}

/// The good records of a text, and the lines that were rejected.
///
/// One malformed line must not hide the devices on the other lines, so the
/// parsers keep going and report what they skipped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed<T> {
    pub items: Vec<T>,
    pub rejected: Vec<ParseError>,
}

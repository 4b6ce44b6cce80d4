//! The errors of reading: a line a parser rejected, and a read that failed.
//! Parsers, the root file system and every source return them.

use std::fmt;
use std::path::PathBuf;

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

/// Why a source could not produce a sample.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read {path}: {err}")]
    Io {
        path: PathBuf,
        #[source]
        err: std::io::Error,
    },
    #[error(transparent)]
    Parse(#[from] ParseError),
}

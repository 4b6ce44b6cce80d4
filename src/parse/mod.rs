//! Pure parsers: text in, typed values out. No file system, no clock.
//!
//! Local files, text read from a remote host and test fixtures all go through
//! these functions, so a figure means the same thing whatever its origin.

pub mod route;
pub mod uptime;

// Every parser returns it; sources and reports carry it up, so it lives in core.
pub use crate::core::error::ParseError;

/// The good records of a text, and the lines that were rejected.
///
/// One malformed line must not hide the devices on the other lines, so the
/// parsers keep going and report what they skipped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed<T> {
    pub items: Vec<T>,
    pub rejected: Vec<ParseError>,
}

impl<T> Parsed<T> {
    /// Reads a text whose lines stand alone, blank lines skipped: `parse`
    /// gives a line's record, `None` for a line that holds none (a
    /// header), or what the line should have been, and the line is then
    /// rejected with its number.
    pub fn from_lines<'a>(
        text: &'a str,
        source_name: &str,
        mut parse: impl FnMut(&'a str) -> Result<Option<T>, String>,
    ) -> Self {
        let mut out = Parsed {
            items: Vec::new(),
            rejected: Vec::new(),
        };
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match parse(line) {
                Ok(Some(item)) => out.items.push(item),
                Ok(None) => {}
                Err(expected) => {
                    out.rejected
                        .push(ParseError::new(source_name, i + 1, line, expected))
                }
            }
        }
        out
    }
}

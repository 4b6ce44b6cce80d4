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

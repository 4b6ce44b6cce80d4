//! What every pure parser shares: the good records of a text with the
//! lines it rejected, and a cheap set of the names seen. Local files, text
//! read from a remote host and test fixtures all go through the same
//! parsers, so a figure means the same thing whatever its origin.

use super::error::ParseError;

/// Names seen in one text, to reject a name seen twice: FNV-1a over
/// borrowed names. Hashing each of /proc/vmstat's ~180 names with SipHash
/// into a set of owned copies every second was a tenth of reading it; a
/// file crafted to collide costs only time, over a few hundred lines.
pub type NameSet<'a> = std::collections::HashSet<&'a str, std::hash::BuildHasherDefault<Fnv>>;

/// FNV-1a, for [`NameSet`].
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
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

impl<T> Parsed<T> {
    /// Reads a text whose lines stand alone, blank lines skipped: `parse`
    /// gives a line's record, `None` for a line that holds none (a
    /// header), or what the line should have been, and the line is then
    /// rejected with its number.
    pub fn from_lines<'a>(
        text: &'a str,
        source_name: &str,
        parse: impl FnMut(&'a str) -> Result<Option<T>, String>,
    ) -> Self {
        let numbered = text.lines().enumerate().map(|(i, line)| (i + 1, line));
        Self::from_numbered_lines(numbered, source_name, parse)
    }

    /// As [`from_lines`](Self::from_lines), over a section of a larger
    /// text whose lines keep their numbers in it.
    pub fn from_numbered_lines<'a>(
        lines: impl IntoIterator<Item = (usize, &'a str)>,
        source_name: &str,
        mut parse: impl FnMut(&'a str) -> Result<Option<T>, String>,
    ) -> Self {
        let mut out = Parsed {
            items: Vec::new(),
            rejected: Vec::new(),
        };
        for (line_no, line) in lines {
            if line.trim().is_empty() {
                continue;
            }
            match parse(line) {
                Ok(Some(item)) => out.items.push(item),
                Ok(None) => {}
                Err(expected) => {
                    out.rejected
                        .push(ParseError::new(source_name, line_no, line, expected))
                }
            }
        }
        out
    }
}

//! Pure parsers: text in, typed values out. No file system, no clock.
//!
//! Local files, text read from a remote host and test fixtures all go through
//! these functions, so a figure means the same thing whatever its origin.

pub mod route;
pub mod uptime;

// Every parser returns it; sources and reports carry it up, so it lives in core.
pub use crate::core::error::ParseError;

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

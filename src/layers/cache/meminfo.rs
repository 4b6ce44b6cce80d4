//! `/proc/meminfo`: `Key:   N kB` lines, read by name.
//!
//! The kernel prints each line with `show_val_kb` (`Dirty:   123 kB`);
//! the HugePages_Total/Free/Rsvd/Surp lines are counts of huge pages and
//! carry no unit. Which keys exist depends on the kernel version and its
//! configuration, so every key is kept and looked up by name: a key this
//! kernel does not print reads as unknown, never as 0.

use super::keyed::{Keyed, KeyedFile};

/// A value as the kernel printed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MemValue {
    /// Kibibytes (`N kB`).
    Kb(u64),
    /// A bare number (HugePages_Total and the other huge page counts).
    Count(u64),
}

/// Every key of one reading of /proc/meminfo.
pub type MemInfo = Keyed<MemValue>;

impl MemInfo {
    /// A value in kB; `None` when the key is absent or is not in kB.
    pub fn kb(&self, key: &str) -> Option<u64> {
        match self.get(key)? {
            MemValue::Kb(v) => Some(v),
            MemValue::Count(_) => None,
        }
    }

    /// A unit-less value such as HugePages_Total; `None` when absent or
    /// in kB.
    pub fn count(&self, key: &str) -> Option<u64> {
        match self.get(key)? {
            MemValue::Count(v) => Some(v),
            MemValue::Kb(_) => None,
        }
    }
}

const EXPECTED: &str = "a line such as \"Dirty:   123 kB\" or \"HugePages_Total:   0\"";

/// /proc/meminfo: about 55 keys on 6.x kernels.
pub const MEMINFO: KeyedFile<MemValue> = KeyedFile {
    names: "key",
    room: 64,
    line: |line| parse_line(line).ok_or_else(|| EXPECTED.to_string()),
};

fn parse_line(line: &str) -> Option<(&str, MemValue)> {
    let (key, rest) = line.split_once(':')?;
    let key = key.trim();
    // Keys are words such as "Active(file)" or "HugePages_Total": no
    // spaces, nothing empty.
    if key.is_empty() || key.contains(char::is_whitespace) {
        return None;
    }
    let mut words = rest.split_whitespace();
    let number: u64 = words.next()?.parse().ok()?;
    let value = match (words.next(), words.next()) {
        (None, _) => MemValue::Count(number),
        (Some("kB"), None) => MemValue::Kb(number),
        _ => return None,
    };
    Some((key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kb_and_bare_counts_by_name() {
        let text = "MemTotal:       24683656 kB\nActive(file):    2025608 kB\nHugePages_Total:       0\nHugepagesize:       2048 kB\n";
        let p = MEMINFO.parse(text, "/proc/meminfo");
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        let m = MemInfo::from_entries(p.items);
        assert_eq!(m.kb("MemTotal"), Some(24_683_656));
        assert_eq!(m.kb("Active(file)"), Some(2_025_608));
        assert_eq!(m.count("HugePages_Total"), Some(0));
        // a count is not a size, and a size is not a count
        assert_eq!(m.kb("HugePages_Total"), None);
        assert_eq!(m.count("Hugepagesize"), None);
        assert_eq!(m.kb("Shmem"), None, "absent is unknown, not 0");
        assert_eq!(m.len(), 4);
    }

    #[test]
    fn bad_lines_are_named_and_the_rest_kept() {
        let text = "MemTotal: 10 kB\nCached: x kB\nDirty: 5 MB\nno colon 5\nMemTotal: 11 kB\nBuffers: 7 kB\n: 3 kB\nA B: 1 kB\n";
        let p = MEMINFO.parse(text, "/proc/meminfo");
        let lines: Vec<usize> = p.rejected.iter().map(|r| r.line_no).collect();
        assert_eq!(lines, [2, 3, 4, 5, 7, 8]);
        assert!(p.rejected[3].expected.contains("MemTotal came again"));
        let m = MemInfo::from_entries(p.items);
        assert_eq!(m.kb("MemTotal"), Some(10));
        assert_eq!(m.kb("Buffers"), Some(7));
    }
}

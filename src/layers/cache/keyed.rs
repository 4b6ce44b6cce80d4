//! What /proc/meminfo and /proc/vmstat have in common: one value a name,
//! read the same way.

use crate::core::parse::{NameSet, Parsed};
use std::collections::BTreeMap;

/// Every name of one reading of a file of named values.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Keyed<V> {
    values: BTreeMap<String, V>,
}

// A derived Default would ask the same of `V`, which MemValue has not.
impl<V> Default for Keyed<V> {
    fn default() -> Self {
        Keyed {
            values: BTreeMap::new(),
        }
    }
}

impl<V: Copy> Keyed<V> {
    /// The first reading of each name wins: the kernel prints each once, so
    /// a second one means two files ran together, and the parser has
    /// already rejected it.
    pub fn from_entries(entries: impl IntoIterator<Item = impl Into<(String, V)>>) -> Self {
        let mut values = BTreeMap::new();
        for (k, v) in entries.into_iter().map(Into::into) {
            values.entry(k).or_insert(v);
        }
        Keyed { values }
    }

    pub fn get(&self, name: &str) -> Option<V> {
        self.values.get(name).copied()
    }

    /// Every name, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (&str, V)> {
        self.values.iter().map(|(k, v)| (k.as_str(), *v))
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A file of one value a name, such as /proc/meminfo: how a line of it
/// reads and what it calls its names.
pub struct KeyedFile<V> {
    /// "key" or "name", for the rejection of a name's second line.
    pub names: &'static str,
    /// How many names to make room for at once.
    pub room: usize,
    /// A line's name and value, or what the line should have been.
    pub line: fn(&str) -> Result<(&str, V), String>,
}

impl<V> KeyedFile<V> {
    /// Parses the whole text into (name, value) pairs. A name seen twice
    /// is rejected on its second line.
    pub fn parse(&self, text: &str, source_name: &str) -> Parsed<(String, V)> {
        self.parse_keeping(text, source_name, |_| true)
    }

    /// As [`parse`](Self::parse), keeping the pairs of the names `keep`
    /// wants: every line is read and checked as before, and the rest are
    /// not copied.
    pub fn parse_keeping(
        &self,
        text: &str,
        source_name: &str,
        keep: impl Fn(&str) -> bool,
    ) -> Parsed<(String, V)> {
        let mut seen = NameSet::with_capacity_and_hasher(self.room, Default::default());
        Parsed::from_lines(text, source_name, |l| {
            let (name, value) = (self.line)(l)?;
            if !seen.insert(name) {
                return Err(format!("each {} once, but {name} came again", self.names));
            }
            Ok(keep(name).then(|| (name.to_string(), value)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_value(line: &str) -> Result<(&str, u64), String> {
        let (name, value) = line.split_once('=').ok_or("name=value")?;
        Ok((name, value.parse().map_err(|_| "a number")?))
    }

    /// Keeping some names rejects the very lines the whole parse rejects
    /// (a kept name's second line too) and keeps the rest of what it kept.
    #[test]
    fn keeping_some_names_rejects_the_same_lines() {
        let text = "a=1\nb=2\nbad line\nb=3\nc=x\nd=4\na=5\n";
        let file = KeyedFile {
            names: "name",
            room: 4,
            line: name_value,
        };
        let all = file.parse(text, "t");
        let some = file.parse_keeping(text, "t", |n| n != "b");
        let lines: Vec<usize> = all.rejected.iter().map(|r| r.line_no).collect();
        assert_eq!(lines, [3, 4, 5, 7]);
        assert!(
            all.rejected[1]
                .expected
                .contains("each name once, but b came again")
        );
        assert_eq!(some.rejected, all.rejected);
        let kept: Vec<_> = all.items.into_iter().filter(|(n, _)| n != "b").collect();
        assert_eq!(some.items, kept);
        assert_eq!(kept, [("a".to_string(), 1), ("d".to_string(), 4)]);
    }
}

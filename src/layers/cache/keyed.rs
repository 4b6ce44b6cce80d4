//! What /proc/meminfo and /proc/vmstat have in common: one value a name.

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

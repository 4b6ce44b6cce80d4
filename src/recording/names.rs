//! The recorder's series by name.
//!
//! The first sample of 100k devices names 1.3 million series at once, each
//! looked up and added. In a map of `String` keys that cost a string of its
//! own per name and two random reads of a table of 80 MB per lookup (its
//! control bytes, then its slot): half a second of that tick on a loaded VM.
//! Here the names are end to end in one string and the table holds one word
//! a slot, so that a lookup reads one cache line and compares a name only
//! when its hash's upper half agrees. And a name's slot is near those of
//! the names that share its parent (all but its last step: a device's
//! counters): the parent's hash picks a stretch of [`STRETCH`] slots, the
//! last step's the slot in it. A device's thirteen counters are then
//! looked up in one page, not thirteen: on this VM a read of a page not
//! read lately took some 250 ns, and such reads were most of naming.

use std::hash::BuildHasher;

/// A name's series, and when a sample last held it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Named {
    pub id: u32,
    pub seen_ms: i64,
}

/// 24 bytes: a `Named` within would be padded to 16.
#[derive(Debug, Clone, Copy)]
struct Entry {
    start: usize,
    len: u32,
    id: u32,
    seen_ms: i64,
}

impl Entry {
    fn named(&self) -> Named {
        Named {
            id: self.id,
            seen_ms: self.seen_ms,
        }
    }

    fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.len as usize
    }
}

#[derive(Debug, Default)]
pub struct SeriesNames {
    /// The names of `entries`, end to end.
    text: String,
    entries: Vec<Entry>,
    /// Open addressing with linear probing, at most half full: 0 is empty,
    /// else the entry's index + 1 in the lower half and the upper half of
    /// its name's hash above.
    slots: Vec<u64>,
    hasher: foldhash::fast::RandomState,
}

/// Slots whose names share a parent begin in a stretch of this many (half
/// a kilobyte); a parent of more names fills the stretches after it.
const STRETCH: usize = 64;

/// An index + 1 must fit a slot's lower half: four billion names would be
/// 100 GB of entries, which no recorder holds (a name is then not held,
/// as one over 4 GB is not).
const MAX_ENTRIES: usize = u32::MAX as usize - 1;

impl SeriesNames {
    /// Names held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Room for `more` names without growing on the way.
    pub fn reserve(&mut self, more: usize) {
        let want = self.entries.len().saturating_add(more);
        self.entries.reserve(more);
        // Names as long as those held (a guess at first): room reserved
        // and not used is not memory the process touches, and growing
        // copied the names of a first sample of 100k devices three times.
        let per_name = self
            .text
            .len()
            .checked_div(self.entries.len())
            .unwrap_or(40);
        self.text.reserve(more.saturating_mul(per_name + 8));
        if want.saturating_mul(2) > self.slots.len() {
            self.rebuild(want);
        }
    }

    /// The named series of `name`: `new` when it is not held yet (at
    /// `seen_ms`), which is then true; one held is seen at `seen_ms` (the
    /// later of the two times).
    pub fn get_or_add(&mut self, name: &str, new: Named) -> (Named, bool) {
        let mask = self.slots.len().wrapping_sub(1);
        let (tag, mut pos) = self.place(name, mask);
        while let Some(&slot) = self.slots.get(pos).filter(|s| **s != 0) {
            if slot >> 32 == tag {
                let at = (slot as u32 - 1) as usize;
                let e = &mut self.entries[at];
                if self.text[e.range()] == *name {
                    e.seen_ms = e.seen_ms.max(new.seen_ms);
                    return (e.named(), false);
                }
            }
            pos = (pos + 1) & mask;
        }
        let Ok(len) = u32::try_from(name.len()) else {
            return (new, true);
        };
        if self.entries.len() >= MAX_ENTRIES {
            return (new, true);
        }
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            self.rebuild(self.entries.len() + 1);
            return self.get_or_add(name, new);
        }
        self.slots[pos] = (tag << 32) | (self.entries.len() as u64 + 1);
        self.entries.push(Entry {
            start: self.text.len(),
            len,
            id: new.id,
            seen_ms: new.seen_ms,
        });
        self.text.push_str(name);
        (new, true)
    }

    /// The name of the `at`th name added (counting those kept by
    /// [`retain`](Self::retain) only).
    pub fn name(&self, at: usize) -> Option<&str> {
        let e = self.entries.get(at)?;
        self.text.get(e.range())
    }

    pub fn values(&self) -> impl Iterator<Item = Named> {
        self.entries.iter().map(Entry::named)
    }

    /// Keeps the names `keep` says to, their text and table made anew at
    /// their size.
    pub fn retain(&mut self, mut keep: impl FnMut(&Named) -> bool) {
        let old = std::mem::take(&mut self.text);
        let mut text = String::with_capacity(old.len());
        self.entries.retain_mut(|e| {
            if !keep(&e.named()) {
                return false;
            }
            let start = text.len();
            text.push_str(&old[e.range()]);
            e.start = start;
            true
        });
        self.text = text;
        self.entries.shrink_to_fit();
        self.rebuild(self.entries.len());
    }

    /// A name's tag (what its slot holds above the index) and its first
    /// slot in a table of `mask + 1`: see the module's comment.
    fn place(&self, name: &str, mask: usize) -> (u64, usize) {
        let cut = name.rfind(['.', '[']).unwrap_or(0);
        let (parent, last) = name.split_at(cut);
        let (hp, hl) = (self.hasher.hash_one(parent), self.hasher.hash_one(last));
        let pos = (hp as usize & !(STRETCH - 1)) | (hl as usize & (STRETCH - 1));
        (hp.wrapping_add(hl.rotate_left(32)) >> 32, pos & mask)
    }

    /// A table for `room` names, at most half full, of the names held.
    fn rebuild(&mut self, room: usize) {
        let size = room.saturating_mul(2).max(16).next_power_of_two();
        let mask = size - 1;
        let mut slots = vec![0u64; size];
        for (i, e) in self.entries.iter().enumerate() {
            let (tag, mut pos) = self.place(&self.text[e.range()], mask);
            while slots[pos] != 0 {
                pos = (pos + 1) & mask;
            }
            slots[pos] = (tag << 32) | (i as u64 + 1);
        }
        self.slots = slots;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(id: u32, seen_ms: i64) -> Named {
        Named { id, seen_ms }
    }

    /// Each name finds the series it was given, through the table's
    /// growing from its least size and through forgetting, and a name
    /// forgotten is new again.
    #[test]
    fn names_find_their_series_through_growth_and_forgetting() {
        let mut names = SeriesNames::default();
        let name = |i: u32| format!("disks.devices[sd{i}].rd_ios");
        for i in 0..5000 {
            assert_eq!(
                names.get_or_add(&name(i), named(i, 10)),
                (named(i, 10), true)
            );
        }
        assert_eq!(names.len(), 5000);
        for i in 0..5000 {
            let (n, new) = names.get_or_add(&name(i), named(99_999, 20 + i64::from(i % 2)));
            assert_eq!((n.id, new), (i, false));
            assert_eq!(names.name(i as usize), Some(name(i).as_str()));
        }
        // Seen again at 20 or 21: those at 21 stay.
        names.retain(|n| n.seen_ms == 21);
        assert_eq!(names.len(), 2500);
        for i in 0..5000 {
            let (n, new) = names.get_or_add(&name(i), named(7000 + i, 30));
            if i % 2 == 1 {
                assert_eq!((n, new), (named(i, 30), false));
            } else {
                assert_eq!((n, new), (named(7000 + i, 30), true));
            }
        }
        assert_eq!(names.len(), 5000);
        assert!(names.values().all(|n| n.seen_ms == 30));
    }

    /// Names whose hashes share a slot (a table of sixteen slots holds
    /// eight, so most probes pass over others) are told apart by their
    /// text, and the empty name is a name.
    #[test]
    fn names_sharing_slots_are_told_apart() {
        let mut names = SeriesNames::default();
        names.reserve(8);
        let all = ["", "a", "b", "ab", "ba", "a.b", "a[b]", "a:i"];
        for (i, n) in all.iter().enumerate() {
            assert!(names.get_or_add(n, named(i as u32, 0)).1, "{n:?}");
        }
        assert_eq!(names.slots.len(), 16);
        for (i, n) in all.iter().enumerate() {
            assert_eq!(
                names.get_or_add(n, named(99, 0)),
                (named(i as u32, 0), false)
            );
        }
    }
}

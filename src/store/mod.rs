//! The ring-buffer core: bounded history of every (source, entity, metric).
//!
//! One writer (the app loop) pushes one tick at a time; the view reads.
//! Each source keeps the wall-clock time of its ticks once, and every
//! entity's rings are aligned on the newest tick: a value `k` places from
//! the end of a ring belongs to the tick `k` places from the end of the
//! source's times. An entity missing from a tick gets a gap (NaN), and one
//! missing for a whole window is dropped, so memory is bounded by the
//! window and never grows with run time.

pub mod ring;

use ring::Ring;
use std::collections::HashMap;

/// History of one source (the host's disks, one cell, one database, ...).
#[derive(Debug, Clone)]
pub struct SourceHistory {
    capacity: usize,
    metrics: usize,
    /// Number of ticks pushed since start; the newest tick's sequence.
    seq: u64,
    times: Ring<i64>,
    entities: HashMap<String, EntityHistory>,
}

#[derive(Debug, Clone)]
struct EntityHistory {
    rings: Vec<Ring<f32>>,
    last_seen: u64,
}

impl SourceHistory {
    /// `capacity` ticks of `metrics` values per entity.
    pub fn new(capacity: usize, metrics: usize) -> Self {
        let capacity = capacity.max(2);
        SourceHistory {
            capacity,
            metrics,
            seq: 0,
            times: Ring::new(capacity),
            entities: HashMap::new(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The sequence number of the newest tick (0 before the first).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Appends one tick. `values` gives each present entity's metrics in the
    /// source's metric order; `None` or NaN is a gap.
    pub fn push<'a>(
        &mut self,
        wall_ms: i64,
        values: impl IntoIterator<Item = (&'a str, &'a [Option<f32>])>,
    ) {
        self.seq += 1;
        let seq = self.seq;
        self.times.push(wall_ms);
        for (name, vals) in values {
            let capacity = self.capacity;
            let metrics = self.metrics;
            // A name is new once; looking it up by &str spares a String per
            // entity and tick (a thousand a second with eight nodes).
            if !self.entities.contains_key(name) {
                self.entities.insert(
                    name.to_string(),
                    EntityHistory {
                        rings: (0..metrics).map(|_| Ring::new(capacity)).collect(),
                        last_seen: seq - 1,
                    },
                );
            }
            let Some(e) = self.entities.get_mut(name) else {
                continue;
            };
            if e.last_seen == seq {
                continue; // the same name twice in one tick: keep the first
            }
            for (i, ring) in e.rings.iter_mut().enumerate() {
                ring.push(vals.get(i).copied().flatten().unwrap_or(f32::NAN));
            }
            e.last_seen = seq;
        }
        let capacity = self.capacity as u64;
        self.entities.retain(|_, e| seq - e.last_seen < capacity);
        for e in self.entities.values_mut() {
            if e.last_seen != seq {
                for ring in &mut e.rings {
                    ring.push(f32::NAN);
                }
            }
        }
    }

    /// Values of one metric of one entity for the ticks up to `until_seq`
    /// (inclusive), oldest first, at most `n` of them. Ticks before the
    /// entity appeared are left out, so the result may be shorter.
    pub fn values(&self, entity: &str, metric: usize, until_seq: u64, n: usize) -> Vec<f32> {
        let Some(ring) = self.entities.get(entity).and_then(|e| e.rings.get(metric)) else {
            return Vec::new();
        };
        self.window(ring.len(), until_seq, n)
            .filter_map(|i| ring.get(i))
            .collect()
    }

    /// Wall-clock times of the ticks up to `until_seq`, oldest first.
    pub fn times(&self, until_seq: u64, n: usize) -> Vec<i64> {
        self.window(self.times.len(), until_seq, n)
            .filter_map(|i| self.times.get(i))
            .collect()
    }

    /// An empty history that stops at this one's newest tick, with its tick
    /// times: what a paused view reads, filled entity by entity with
    /// [`SourceHistory::copy_entity`].
    pub fn frozen(&self) -> SourceHistory {
        SourceHistory {
            capacity: self.capacity,
            metrics: self.metrics,
            seq: self.seq,
            times: self.times.clone(),
            entities: HashMap::new(),
        }
    }

    /// Copies an entity's values up to this history's newest tick out of
    /// `live`, which may have moved on since; a no-op if already here.
    pub fn copy_entity(&mut self, live: &SourceHistory, name: &str) {
        if self.entities.contains_key(name) || !live.entities.contains_key(name) {
            return;
        }
        let rings = (0..self.metrics)
            .map(|m| {
                let mut ring = Ring::new(self.capacity);
                for v in live.values(name, m, self.seq, self.capacity) {
                    ring.push(v);
                }
                ring
            })
            .collect();
        self.entities.insert(
            name.to_string(),
            EntityHistory {
                rings,
                last_seen: self.seq,
            },
        );
    }

    pub fn contains(&self, name: &str) -> bool {
        self.entities.contains_key(name)
    }

    /// Indexes, in a ring of `len` aligned on the newest tick, of the last
    /// `n` ticks up to `until_seq`.
    fn window(&self, len: usize, until_seq: u64, n: usize) -> std::ops::Range<usize> {
        let skip = self.seq.saturating_sub(until_seq) as usize;
        let end = len.saturating_sub(skip);
        end.saturating_sub(n)..end
    }

    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// Bytes held by the value rings (4 per value slot).
    pub fn values_heap_bytes(&self) -> usize {
        self.entities
            .values()
            .flat_map(|e| &e.rings)
            .map(Ring::heap_bytes)
            .sum()
    }

    /// Bytes held by the tick times, one per tick whatever the entity count.
    pub fn times_heap_bytes(&self) -> usize {
        self.times.heap_bytes()
    }

    /// Bytes held by the history's buffers.
    pub fn heap_bytes(&self) -> usize {
        self.values_heap_bytes() + self.times_heap_bytes()
    }

    /// Number of values stored.
    pub fn stored_values(&self) -> usize {
        self.entities
            .values()
            .flat_map(|e| &e.rings)
            .map(Ring::len)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(h: &mut SourceHistory, t: i64, ents: &[(&str, f32)]) {
        let vals: Vec<(&str, [Option<f32>; 1])> =
            ents.iter().map(|(n, v)| (*n, [Some(*v)])).collect();
        h.push(t, vals.iter().map(|(n, v)| (*n, &v[..])));
    }

    #[test]
    fn entities_align_on_the_newest_tick() {
        let mut h = SourceHistory::new(4, 1);
        tick(&mut h, 1, &[("a", 1.0)]);
        tick(&mut h, 2, &[("a", 2.0), ("b", 20.0)]);
        tick(&mut h, 3, &[("b", 30.0)]);
        assert_eq!(h.values("b", 0, 3, 10), vec![20.0, 30.0]);
        let a = h.values("a", 0, 3, 10);
        assert_eq!(&a[..2], &[1.0, 2.0]);
        assert!(a[2].is_nan());
        // as of tick 2, as a paused view would see it
        assert_eq!(h.values("a", 0, 2, 10), vec![1.0, 2.0]);
        assert_eq!(h.times(2, 10), vec![1, 2]);
    }

    #[test]
    fn a_frozen_copy_does_not_erode() {
        let mut live = SourceHistory::new(4, 1);
        for t in 0..4 {
            tick(&mut live, t, &[("a", t as f32)]);
        }
        let mut frozen = live.frozen();
        frozen.copy_entity(&live, "a");
        for t in 4..10 {
            tick(&mut live, t, &[("a", t as f32)]);
        }
        assert_eq!(
            frozen.values("a", 0, frozen.seq(), 10),
            vec![0.0, 1.0, 2.0, 3.0]
        );
        assert_eq!(frozen.times(frozen.seq(), 10), vec![0, 1, 2, 3]);
        // an entity copied later is cut at the frozen tick, not at the live one
        tick(&mut live, 10, &[("a", 10.0), ("b", 5.0)]);
        frozen.copy_entity(&live, "b");
        assert!(!frozen.contains("c"));
        assert_eq!(frozen.values("b", 0, frozen.seq(), 10), Vec::<f32>::new());
    }

    #[test]
    fn memory_is_bounded_by_the_window() {
        let mut h = SourceHistory::new(10, 2);
        for t in 0..1000 {
            let name = format!("dev{}", t / 100);
            tick(&mut h, t, &[(name.as_str(), t as f32)]);
        }
        assert!(h.entity_count() <= 2);
        assert_eq!(h.times(u64::MAX, 100).len(), 10);
        assert!(h.stored_values() <= 2 * 2 * 10);
    }
}

//! The ring-buffer core: bounded history of every (source, entity, metric).
//!
//! One writer (the app loop) pushes one tick at a time; the view reads.
//! Each source keeps the wall-clock time of its ticks once, and every
//! entity's rings are aligned on the newest tick: a value `k` places from
//! the end of a ring belongs to the tick `k` places from the end of the
//! source's times. An entity missing from a tick gets a gap (NaN), and one
//! missing for a whole window is dropped, so memory is bounded by the
//! window and never grows with run time. All the histories of an app
//! share one [`Budget`] of bytes: an entity gets its rings only while the
//! budget allows, so memory is bounded by the budget and never grows with
//! the number of entities either.

pub mod ring;

use ring::Ring;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The most bytes the value rings of every history sharing it may reserve
/// together. Clones share the count.
#[derive(Debug, Clone)]
pub struct Budget(Arc<BudgetCount>);

#[derive(Debug)]
struct BudgetCount {
    limit: usize,
    reserved: AtomicUsize,
    /// Some entity was refused its rings: sticky, so the user is told once.
    ran_out: AtomicBool,
}

impl Budget {
    pub fn new(limit: usize) -> Budget {
        Budget(Arc::new(BudgetCount {
            limit,
            reserved: AtomicUsize::new(0),
            ran_out: AtomicBool::new(false),
        }))
    }

    pub fn unlimited() -> Budget {
        Budget::new(usize::MAX)
    }

    pub fn limit(&self) -> usize {
        self.0.limit
    }

    /// Bytes reserved now by every history sharing this budget.
    pub fn reserved(&self) -> usize {
        self.0.reserved.load(Ordering::Relaxed)
    }

    /// Whether an entity was ever refused its rings.
    pub fn ran_out(&self) -> bool {
        self.0.ran_out.load(Ordering::Relaxed)
    }

    fn try_reserve(&self, bytes: usize) -> bool {
        let limit = self.0.limit;
        let ok = self
            .0
            .reserved
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                r.checked_add(bytes).filter(|n| *n <= limit)
            })
            .is_ok();
        if !ok {
            self.0.ran_out.store(true, Ordering::Relaxed);
        }
        ok
    }

    /// A copy of rings already held is counted whatever the limit: the
    /// count must match what its drop gives back.
    fn force_reserve(&self, bytes: usize) {
        self.0.reserved.fetch_add(bytes, Ordering::Relaxed);
    }

    fn release(&self, bytes: usize) {
        let _ = self
            .0
            .reserved
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                Some(r.saturating_sub(bytes))
            });
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::unlimited()
    }
}

/// How much history each entity of a source keeps, within which budget,
/// and how long the baselines the same layers diff against remember an
/// entity gone.
#[derive(Debug, Clone)]
pub struct Window {
    pub ticks: usize,
    pub budget: Budget,
    /// Centiseconds of a source's clock a baseline keeps the last counters
    /// of an entity gone: the history window, so that names that churn are
    /// held no longer by a baseline than by the charts.
    pub forget_cs: u64,
}

impl Default for Window {
    fn default() -> Window {
        Window::from(0)
    }
}

impl From<usize> for Window {
    fn from(ticks: usize) -> Window {
        Window {
            ticks,
            budget: Budget::unlimited(),
            forget_cs: crate::core::last_seen::FORGET_AFTER_CS,
        }
    }
}

impl From<&Window> for Window {
    fn from(w: &Window) -> Window {
        w.clone()
    }
}

/// History of one source (the host's disks, one cell, one database, ...).
#[derive(Debug)]
pub struct SourceHistory {
    capacity: usize,
    metrics: usize,
    /// Number of ticks pushed since start; the newest tick's sequence.
    seq: u64,
    times: Ring<i64>,
    entities: HashMap<String, EntityHistory>,
    budget: Budget,
}

#[derive(Debug, Clone)]
struct EntityHistory {
    /// Empty while the budget refuses them.
    rings: Vec<Ring<f32>>,
    last_seen: u64,
}

impl SourceHistory {
    /// `window.ticks` ticks of `metrics` values per entity.
    pub fn new(window: impl Into<Window>, metrics: usize) -> Self {
        let window = window.into();
        let capacity = window.ticks.max(2);
        SourceHistory {
            capacity,
            metrics,
            seq: 0,
            times: Ring::new(capacity),
            entities: HashMap::new(),
            budget: window.budget,
        }
    }

    /// Bytes the rings of one entity reserve.
    fn entity_bytes(&self) -> usize {
        self.metrics
            .saturating_mul(self.capacity)
            .saturating_mul(std::mem::size_of::<f32>())
    }

    /// The rings of one new entity, if the budget allows them.
    fn new_rings(&self) -> Vec<Ring<f32>> {
        if self.budget.try_reserve(self.entity_bytes()) {
            (0..self.metrics)
                .map(|_| Ring::new(self.capacity))
                .collect()
        } else {
            Vec::new()
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
            // A name is new once; looking it up by &str spares a String per
            // entity and tick (a thousand a second with eight nodes).
            if !self.entities.contains_key(name) {
                let rings = self.new_rings();
                self.entities.insert(
                    name.to_string(),
                    EntityHistory {
                        rings,
                        last_seen: seq - 1,
                    },
                );
            }
            let Some(e) = self.entities.get(name) else {
                continue;
            };
            if e.last_seen == seq {
                continue; // the same name twice in one tick: keep the first
            }
            // Bytes given back by entities gone since may have made room.
            let rings = if e.rings.is_empty() && self.budget.reserved() < self.budget.limit() {
                self.new_rings()
            } else {
                Vec::new()
            };
            let Some(e) = self.entities.get_mut(name) else {
                continue;
            };
            if !rings.is_empty() {
                e.rings = rings;
            }
            for (i, ring) in e.rings.iter_mut().enumerate() {
                ring.push(vals.get(i).copied().flatten().unwrap_or(f32::NAN));
            }
            e.last_seen = seq;
        }
        let capacity = self.capacity as u64;
        let (budget, bytes) = (&self.budget, self.entity_bytes());
        self.entities.retain(|_, e| {
            let keep = seq - e.last_seen < capacity;
            if !keep && !e.rings.is_empty() {
                budget.release(bytes);
            }
            keep
        });
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
    /// [`SourceHistory::copy_entity`]. The few series on screen it copies
    /// are not charged to the budget.
    pub fn frozen(&self) -> SourceHistory {
        SourceHistory {
            capacity: self.capacity,
            metrics: self.metrics,
            seq: self.seq,
            times: self.times.clone(),
            entities: HashMap::new(),
            budget: Budget::unlimited(),
        }
    }

    /// Whether `name` is kept with its values: false for an entity the
    /// budget has refused its rings (and for one never seen).
    pub fn has_values(&self, name: &str) -> bool {
        self.entities.get(name).is_some_and(|e| !e.rings.is_empty())
    }

    /// Whether `name` is kept without values: the budget refused its rings.
    pub fn refused(&self, name: &str) -> bool {
        self.entities.get(name).is_some_and(|e| e.rings.is_empty())
    }

    /// The budget this history's rings are charged to.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// Copies an entity's values up to this history's newest tick out of
    /// `live`, which may have moved on since; a no-op if already here.
    pub fn copy_entity(&mut self, live: &SourceHistory, name: &str) {
        if self.entities.contains_key(name) || !live.has_values(name) {
            return;
        }
        self.budget.force_reserve(self.entity_bytes());
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
        self.over_rings(Ring::heap_bytes)
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
        self.over_rings(Ring::len)
    }

    /// `measure` summed over every entity's value rings.
    fn over_rings(&self, measure: impl Fn(&Ring<f32>) -> usize) -> usize {
        self.entities
            .values()
            .flat_map(|e| &e.rings)
            .map(measure)
            .sum()
    }
}

impl Clone for SourceHistory {
    fn clone(&self) -> SourceHistory {
        let held = self.entities.values().filter(|e| !e.rings.is_empty());
        self.budget
            .force_reserve(held.count().saturating_mul(self.entity_bytes()));
        SourceHistory {
            capacity: self.capacity,
            metrics: self.metrics,
            seq: self.seq,
            times: self.times.clone(),
            entities: self.entities.clone(),
            budget: self.budget.clone(),
        }
    }
}

impl Drop for SourceHistory {
    fn drop(&mut self) {
        let held = self.entities.values().filter(|e| !e.rings.is_empty());
        self.budget
            .release(held.count().saturating_mul(self.entity_bytes()));
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
    fn entities_past_the_budget_have_no_values_until_it_has_room() {
        // 4 ticks of 1 metric: 16 bytes an entity; room for two
        let budget = Budget::new(40);
        let window = Window {
            budget: budget.clone(),
            ..Window::from(4)
        };
        let mut h = SourceHistory::new(&window, 1);
        tick(&mut h, 1, &[("a", 1.0), ("b", 2.0), ("c", 3.0)]);
        assert_eq!(budget.reserved(), 32);
        assert!(budget.ran_out());
        assert!(h.has_values("a") && h.has_values("b") && !h.has_values("c"));
        assert!(h.refused("c") && !h.refused("a") && !h.refused("never seen"));
        assert_eq!(h.values("c", 0, 1, 10), Vec::<f32>::new());
        // "a" gone for a whole window gives its bytes to "c" (at the tick
        // after "a" is dropped)
        for t in 2..7 {
            tick(&mut h, t, &[("b", 2.0), ("c", 3.0)]);
        }
        assert!(!h.contains("a"));
        assert!(h.has_values("c"));
        assert_eq!(h.values("c", 0, h.seq(), 10), vec![3.0]);
        assert_eq!(budget.reserved(), 32);
        // a second history shares the budget, and copies are counted
        let mut other = SourceHistory::new(&window, 1);
        tick(&mut other, 1, &[("d", 1.0)]);
        assert!(!other.has_values("d"));
        let copy = h.clone();
        assert_eq!(budget.reserved(), 64);
        drop(copy);
        drop(h);
        assert_eq!(budget.reserved(), 0);
        tick(&mut other, 2, &[("d", 1.0)]);
        assert!(other.has_values("d"));
        assert_eq!(budget.limit(), 40);
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

//! The last reading of every entity of a source, with the source clock it
//! was read at: what a baseline diffs a new sample against.
//!
//! An entity that misses a sample (a rejected line, a path that flapped)
//! is diffed against its own last reading over its own interval, rather
//! than counted from zero as if everything since boot happened in one
//! interval. One gone for longer than its horizon ([`FORGET_AFTER_CS`]
//! unless told; the app's is its history window) is forgotten, so names
//! that churn are held only while they live and a window after. A clock
//! that went back (a reboot) forgets everything; the same reading twice
//! (uptime did not advance) changes nothing.

use std::collections::HashMap;

/// How long an entity that vanished keeps its last reading: one back within
/// an hour (the default history window) is diffed against it, later it
/// counts as new. A day kept every name seen in it: at 12 new device names
/// a second, a million readings.
pub const FORGET_AFTER_CS: u64 = 3600 * 100;

#[derive(Debug, Clone)]
pub struct LastSeen<T> {
    uptime_cs: Option<u64>,
    last: HashMap<String, (T, u64)>,
    /// Centiseconds of the source's clock a vanished entity is kept.
    forget_cs: u64,
}

impl<T> Default for LastSeen<T> {
    fn default() -> Self {
        LastSeen::forgetting_after(FORGET_AFTER_CS)
    }
}

impl<T> LastSeen<T> {
    /// One that keeps a vanished entity's reading `forget_cs` centiseconds
    /// of the source's clock.
    pub fn forgetting_after(forget_cs: u64) -> Self {
        LastSeen {
            uptime_cs: None,
            last: HashMap::new(),
            forget_cs,
        }
    }

    /// How many entities' readings are kept.
    pub fn len(&self) -> usize {
        self.last.len()
    }

    pub fn is_empty(&self) -> bool {
        self.last.is_empty()
    }

    /// The interval a sample read at `cur_cs` closes: `None` for the first
    /// sample, a repeat, or a clock that went back, which forgets every
    /// reading.
    pub fn interval(&mut self, cur_cs: u64) -> Option<u64> {
        match self.uptime_cs {
            Some(prev) if cur_cs > prev => Some(cur_cs - prev),
            Some(prev) if cur_cs < prev => {
                self.last.clear();
                None
            }
            _ => None,
        }
    }

    /// An entity's last reading and the centiseconds since it, as of
    /// `cur_cs`.
    pub fn get(&self, name: &str, cur_cs: u64) -> Option<(&T, u64)> {
        self.last
            .get(name)
            .map(|(t, at)| (t, cur_cs.saturating_sub(*at)))
    }

    /// Keeps a sample's readings as the new baseline, unless it repeats the
    /// last sample's clock.
    pub fn record(&mut self, cur_cs: u64, readings: impl IntoIterator<Item = (String, T)>) {
        if self.uptime_cs == Some(cur_cs) {
            return;
        }
        for (name, t) in readings {
            self.last.insert(name, (t, cur_cs));
        }
        let forget_cs = self.forget_cs;
        self.last
            .retain(|_, (_, at)| cur_cs.saturating_sub(*at) <= forget_cs);
        self.uptime_cs = Some(cur_cs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_repeats_reboots_and_forgetting() {
        let mut l = LastSeen::default();
        assert_eq!(l.interval(1000), None, "first sample");
        l.record(1000, [("a".to_string(), 1), ("b".to_string(), 2)]);
        assert_eq!(l.interval(1000), None, "a repeat");
        l.record(1000, [("a".to_string(), 99)]);
        assert_eq!(
            l.get("a", 1100),
            Some((&1, 100)),
            "the repeat moved nothing"
        );
        assert_eq!(l.interval(1100), Some(100));
        l.record(1100, [("a".to_string(), 3)]);
        assert_eq!(l.get("b", 1200), Some((&2, 200)), "b missed one sample");
        l.record(1000 + FORGET_AFTER_CS + 1, [("a".to_string(), 4)]);
        assert_eq!(l.get("b", 0), None, "gone an hour: forgotten");
        assert_eq!(l.interval(50), None, "the clock went back");
        assert_eq!(l.get("a", 50), None);
    }

    #[test]
    fn a_shorter_horizon_forgets_sooner() {
        let mut l = LastSeen::forgetting_after(500);
        l.record(1000, [("a".to_string(), 1), ("b".to_string(), 2)]);
        l.record(1500, [("a".to_string(), 3)]);
        assert_eq!(l.get("b", 1500), Some((&2, 500)), "gone 5 s: kept");
        l.record(1501, [("a".to_string(), 4)]);
        assert_eq!((l.get("b", 1501), l.len()), (None, 1));
    }
}

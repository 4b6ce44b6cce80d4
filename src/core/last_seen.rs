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

/// How often readings past the horizon are looked for, at most: a look at
/// every sample went over every reading kept, and at 100 new names a
/// second that is 360k readings a second by the end of the first hour, a
/// churning hour's summary quadratic in its length. A look an eighth of
/// the horizon apart, at most a minute, keeps at most that much more.
const SWEEP_EVERY_CS: u64 = 60 * 100;

#[derive(Debug, Clone)]
pub struct LastSeen<T> {
    uptime_cs: Option<u64>,
    last: HashMap<String, (T, u64)>,
    /// Centiseconds of the source's clock a vanished entity is kept.
    forget_cs: u64,
    /// When readings were last looked over for forgetting.
    swept_cs: u64,
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
            swept_cs: 0,
        }
    }

    /// The clock between two looks over the readings for forgetting.
    fn sweep_every(&self) -> u64 {
        (self.forget_cs / 8).clamp(1, SWEEP_EVERY_CS)
    }

    /// Whether a reading at `at` is still kept: one a look has not got to
    /// yet is as forgotten.
    fn kept(&self, at: u64) -> bool {
        self.uptime_cs
            .is_none_or(|cur| cur.saturating_sub(at) <= self.forget_cs)
    }

    /// How many entities' readings are held (some past the horizon, until
    /// the next look drops them).
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
            .filter(|(_, at)| self.kept(*at))
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
        self.uptime_cs = Some(cur_cs);
        if cur_cs.abs_diff(self.swept_cs) >= self.sweep_every() {
            self.swept_cs = cur_cs;
            let forget_cs = self.forget_cs;
            self.last
                .retain(|_, (_, at)| cur_cs.saturating_sub(*at) <= forget_cs);
        }
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
        assert_eq!(l.get("b", 1501), None, "gone past 5 s: as forgotten");
        // The next look, an eighth of the horizon on, drops it.
        l.record(1563, [("a".to_string(), 5)]);
        assert_eq!(l.len(), 1);
    }

    /// A reading is forgotten at the first sample past an hour after it,
    /// whether or not the minute's look over the readings came yet; and
    /// a look a minute on drops it, so readings held stay within an hour
    /// and a minute of names.
    #[test]
    fn a_reading_is_forgotten_at_the_hour_between_sweeps() {
        let mut l = LastSeen::default();
        l.record(1000, [("old".to_string(), 1)]);
        for (k, cur) in (1100..=1000 + FORGET_AFTER_CS + SWEEP_EVERY_CS + 100)
            .step_by(100)
            .enumerate()
        {
            assert_eq!(
                l.get("old", cur).is_some(),
                cur - 100 <= 1000 + FORGET_AFTER_CS,
                "at {cur}"
            );
            l.record(cur, [(format!("n{k}"), 2)]);
        }
        assert!(l.last.len() < (FORGET_AFTER_CS + SWEEP_EVERY_CS) as usize / 100 + 2);
        assert!(!l.last.contains_key("old"));
    }
}

//! One layer of the path (disks, NICs, page cache, NFS, ...) as the app
//! keeps it: the newest figures, their history, the source's last error,
//! and what stays on screen while the user has paused.

use crate::core::error::SampleError;
use crate::store::{SourceHistory, Window};

/// A layer whose figures arrive as ticks of type `T`.
#[derive(Debug, Clone)]
pub struct Layer<T> {
    pub history: SourceHistory,
    /// The newest figures.
    pub latest: Option<T>,
    /// The source's last error, cleared by its next good sample.
    pub error: Option<SampleError>,
    /// Lines the newest sample skipped, as the user should see them.
    pub rejected: Vec<String>,
    frozen: Option<Snapshot<T>>,
}

/// The layer as it was when the user paused.
#[derive(Debug, Clone)]
struct Snapshot<T> {
    tick: Option<T>,
    /// Copies of the series on screen, cut at the pause: the live history
    /// goes on evicting its oldest values, these do not.
    history: SourceHistory,
    error: Option<SampleError>,
    rejected: Vec<String>,
}

impl<T: Clone> Layer<T> {
    /// `window` ticks of `metrics` values per entity.
    pub fn new(window: impl Into<Window>, metrics: usize) -> Self {
        Layer {
            history: SourceHistory::new(window, metrics),
            latest: None,
            error: None,
            rejected: Vec::new(),
            frozen: None,
        }
    }

    /// A good sample: its tick, when it gave figures, becomes the newest
    /// (its values went to `history` first, even while paused).
    pub fn show(&mut self, tick: Option<T>, rejected: Vec<String>) {
        self.error = None;
        self.rejected = rejected;
        if tick.is_some() {
            self.latest = tick;
        }
    }

    pub fn failed(&mut self, error: SampleError) {
        self.error = Some(error);
    }

    /// A good reading's tick and rejected lines. A tick that `spans` an
    /// interval goes through `chart` (its figures into the history, even
    /// while paused) and becomes the newest; one that does not (the first
    /// reading, or a clock gone back) has no figures and brings only the
    /// lines.
    pub fn take(
        &mut self,
        spans: bool,
        tick: T,
        rejected: impl IntoIterator<Item = impl ToString>,
        chart: impl FnOnce(&mut Self, &T),
    ) {
        let rejected = rejected.into_iter().map(|r| r.to_string()).collect();
        if !spans {
            self.show(None, rejected);
            return;
        }
        chart(self, &tick);
        self.show(Some(tick), rejected);
    }

    pub fn freeze(&mut self) {
        self.frozen = Some(Snapshot {
            tick: self.latest.clone(),
            history: self.history.frozen(),
            error: self.error.clone(),
            rejected: self.rejected.clone(),
        });
    }

    pub fn thaw(&mut self) {
        self.frozen = None;
    }

    pub fn is_frozen(&self) -> bool {
        self.frozen.is_some()
    }

    /// While paused, copies the series of `names` out of the live history,
    /// so those on screen stop eroding.
    pub fn keep<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        if let Some(f) = &mut self.frozen {
            for n in names {
                f.history.copy_entity(&self.history, n);
            }
        }
    }

    /// The figures on screen: frozen while paused, the newest otherwise.
    pub fn tick(&self) -> Option<&T> {
        match &self.frozen {
            Some(f) => f.tick.as_ref(),
            None => self.latest.as_ref(),
        }
    }

    /// The source's error on screen (which shows its Display).
    pub fn shown_error(&self) -> Option<&SampleError> {
        match &self.frozen {
            Some(f) => f.error.as_ref(),
            None => self.error.as_ref(),
        }
    }

    pub fn shown_rejected(&self) -> &[String] {
        match &self.frozen {
            Some(f) => &f.rejected,
            None => &self.rejected,
        }
    }

    /// The history position on screen.
    pub fn seq(&self) -> u64 {
        self.frozen
            .as_ref()
            .map_or(self.history.seq(), |f| f.history.seq())
    }

    /// The last `n` values on screen of one metric of one entity.
    pub fn series(&self, entity: &str, metric: usize, n: usize) -> Vec<f32> {
        match &self.frozen {
            Some(f) if f.history.contains(entity) => {
                f.history.values(entity, metric, f.history.seq(), n)
            }
            _ => self.history.values(entity, metric, self.seq(), n),
        }
    }

    /// Whether `entity` is kept without history: the history budget
    /// refused it its rings, so its charts would be empty, not zero.
    pub fn refused(&self, entity: &str) -> bool {
        match &self.frozen {
            Some(f) if f.history.contains(entity) => false,
            _ => self.history.refused(entity),
        }
    }

    /// Wall-clock times of the last `n` ticks on screen.
    pub fn series_times(&self, n: usize) -> Vec<i64> {
        match &self.frozen {
            Some(f) => f.history.times(f.history.seq(), n),
            None => self.history.times(self.history.seq(), n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(l: &mut Layer<u32>, t: i64, v: f32) {
        let vals = [Some(v)];
        l.history.push(t, [("a", &vals[..])]);
        l.show(Some(t as u32), Vec::new());
    }

    #[test]
    fn a_paused_layer_shows_the_pause_while_the_store_fills() {
        let mut l = Layer::new(4, 1);
        push(&mut l, 1, 1.0);
        push(&mut l, 2, 2.0);
        l.freeze();
        l.keep(["a"]);
        for t in 3..10 {
            push(&mut l, t, t as f32);
        }
        l.failed("gone".into());
        assert_eq!(l.tick(), Some(&2));
        assert_eq!(l.series("a", 0, 10), vec![1.0, 2.0]);
        assert_eq!(l.series_times(10), vec![1, 2]);
        assert_eq!(l.shown_error(), None);
        l.thaw();
        assert_eq!(l.tick(), Some(&9));
        assert_eq!(l.series("a", 0, 10), vec![6.0, 7.0, 8.0, 9.0]);
        assert_eq!(l.shown_error(), Some(&SampleError::from("gone")));
    }
}

//! A loop's recording: started by `--record`, the config or `R`, fed every
//! input before the app applies it, stopped by `R` or on the way out. A
//! recording that fails to write stops with a notice; monitoring goes on.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::session::{Meta, Recorder};
use crate::app::session::RecStatus;
use crate::app::{App, Input};
use crate::core::clock::now_ms;
use crate::record::RecordError;

/// The header's growth rate is over this window.
const GROWTH_WINDOW: Duration = Duration::from_secs(60);

pub struct Control {
    recorder: Option<Recorder>,
    /// Where `R` records when strata started without a file.
    default_path: Option<PathBuf>,
    growth: VecDeque<(Instant, u64)>,
}

/// What a recording says about the run the app shows.
pub fn meta_of(app: &App, started_ms: i64) -> Meta {
    Meta {
        strata_version: env!("CARGO_PKG_VERSION").to_string(),
        host: app.host.clone(),
        interval_s: app.interval_s,
        config: app.config.clone(),
        cells: app.cells.list.iter().map(|c| c.target.clone()).collect(),
        dbs: app.dnfs.live().iter().map(|d| d.target.clone()).collect(),
        started_ms,
    }
}

/// A file name for `R` without a path: the time it starts, in the current
/// directory.
pub fn default_file(ms: i64) -> PathBuf {
    let stamp = crate::format::local_datetime(ms).replace([' ', ':'], "-");
    PathBuf::from(format!("strata-{stamp}.strec"))
}

/// What a seek starting at a key chunk needs and no sample brings again:
/// each cell's [`crate::app::cells::CellRestate`] and each database's
/// connection state. Applying one changes nothing.
pub fn restated(app: &App) -> Vec<Input> {
    let cells = app.cells.restates().into_iter().map(Input::CellRestate);
    let dbs = app.dnfs.live().iter().enumerate().map(|(db, d)| {
        Input::Db(crate::source::dnfs::DbEvent::Status {
            db,
            status: d.status.clone(),
        })
    });
    cells.chain(dbs).collect()
}

/// Records `input` at `at` and applies it (even when recording fails).
/// A seek starts at a key chunk: the cells' states, which change only now
/// and then, are stated again there, as they are once the input that
/// opened it is applied (it may be one of them).
pub fn record_and_apply(
    rec: &mut Recorder,
    app: &mut App,
    at: i64,
    input: Input,
) -> Result<(), RecordError> {
    let key = rec.record(at, &input);
    app.apply(input);
    if key? {
        for input in restated(app) {
            rec.record(at, &input)?;
            app.apply(input);
        }
    }
    Ok(())
}

impl Control {
    pub fn new(path: Option<PathBuf>) -> Control {
        Control {
            recorder: None,
            default_path: path,
            growth: VecDeque::new(),
        }
    }

    pub fn is_recording(&self) -> bool {
        self.recorder.is_some()
    }

    pub fn start(&mut self, app: &mut App, path: &Path) {
        let started = now_ms();
        match Recorder::create(path, &meta_of(app, started)) {
            Ok(r) => {
                self.growth.clear();
                self.recorder = Some(r);
                self.default_path = Some(path.to_path_buf());
                self.refresh(app);
            }
            Err(e) => app.notice = Some(format!("not recording: {e}")),
        }
    }

    /// `R`: stops a recording, or starts one (a new file each time, so a
    /// second start never overwrites the first).
    pub fn toggle(&mut self, app: &mut App) {
        if self.recorder.is_some() {
            self.stop(app);
            return;
        }
        let path = match self.default_path.take() {
            Some(p) if !p.exists() => p,
            _ => default_file(now_ms()),
        };
        self.start(app, &path);
    }

    pub fn stop(&mut self, app: &mut App) {
        let Some(r) = self.recorder.take() else {
            return;
        };
        let path = r.path().display().to_string();
        match r.close() {
            Ok(()) => app.notice = Some(format!("recording saved to {path}")),
            Err(e) => app.notice = Some(format!("recording {path} closed with an error: {e}")),
        }
        app.recording = None;
    }

    /// Records `input` (when recording), then applies it.
    pub fn feed(&mut self, app: &mut App, input: Input) {
        self.feed_at(app, now_ms(), input);
    }

    /// As [`feed`](Self::feed), with the time the input arrived: a test
    /// drives the loop's very recording with times it knows.
    pub fn feed_at(&mut self, app: &mut App, wall_ms: i64, input: Input) {
        let Some(r) = &mut self.recorder else {
            app.apply(input);
            return;
        };
        if let Err(e) = record_and_apply(r, app, wall_ms, input) {
            let path = r.path().display().to_string();
            self.recorder = None;
            app.recording = None;
            app.notice = Some(format!(
                "recording to {path} stopped: {e}; what was written replays"
            ));
        }
    }

    /// Once a second: the header's size and growth.
    pub fn refresh(&mut self, app: &mut App) {
        let Some(r) = &self.recorder else {
            return;
        };
        let now = Instant::now();
        let bytes = r.bytes();
        self.growth.push_back((now, bytes));
        while self
            .growth
            .front()
            .is_some_and(|(t, _)| now.duration_since(*t) > GROWTH_WINDOW)
        {
            self.growth.pop_front();
        }
        let bytes_per_s = self.growth.front().and_then(|(t, b)| {
            let secs = now.duration_since(*t).as_secs_f64();
            (secs >= 1.0).then(|| bytes.saturating_sub(*b) as f64 / secs)
        });
        app.recording = Some(RecStatus {
            path: r.path().display().to_string(),
            bytes,
            bytes_per_s,
        });
    }

    pub fn finish(mut self, app: &mut App) {
        self.stop(app);
    }
}

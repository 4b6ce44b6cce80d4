//! A loop's recording: started by `--record`, the config or `R`, fed every
//! input before the app applies it, stopped by `R` or on the way out. A
//! recording that fails to write stops with a notice; monitoring goes on.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::session::{Meta, Recorder};
use crate::app::session::RecStatus;
use crate::app::{App, Input};
use crate::core::clock::now_ms;
use crate::recfile::{Existing, RecordError};

/// The header's growth rate is over this window.
const GROWTH_WINDOW: Duration = Duration::from_secs(60);

pub struct Control {
    recorder: Option<Recorder>,
    /// Where `R` records when strata started without a file.
    default_path: Option<PathBuf>,
    growth: VecDeque<(Instant, u64)>,
    /// `--force`: whether a finished recording at the path may be replaced.
    existing: Existing,
    /// The first file of this run's recording, which rotated parts follow.
    first: Option<PathBuf>,
    /// Why a recording stopped on an error and what it saved: the run then
    /// ends with a non-zero status.
    failure: Option<String>,
    /// The newest sample of each stream, stated first in a recording that
    /// starts mid-run (`R`, a rotated part): without it the first sample
    /// of each source would only be a baseline, an interval lost per part.
    last: BTreeMap<String, Input>,
    /// The config's `record_dir`: where `R` puts the files it names.
    dir: Option<PathBuf>,
}

/// What a recording says about the run the app shows.
pub fn meta_of(app: &App, started_ms: i64) -> Meta {
    Meta {
        strata_version: env!("CARGO_PKG_VERSION").to_string(),
        host: app.host.clone(),
        interval_s: app.interval.secs(),
        config: app.config.clone(),
        cells: app
            .cells
            .list
            .iter()
            .map(|c| c.link.target.clone())
            .collect(),
        dbs: app.dnfs.live().iter().map(|d| d.target.clone()).collect(),
        nodes: app.nodes.iter().map(|n| n.link.target.clone()).collect(),
        started_ms,
    }
}

/// `path` with its time pattern filled in at `ms`, local time, as atop
/// names its daily files: %Y %m %d %H %M %S, and %% for a percent sign;
/// anything else is left as written.
pub fn expand_time(path: &Path, ms: i64) -> PathBuf {
    let Some(text) = path.to_str().filter(|t| t.contains('%')) else {
        return path.to_path_buf();
    };
    let (tm, _) = crate::format::local_tm(ms);
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // in i64, so that tm_year + 1900 cannot overflow
            Some('Y') => out.push_str(&format!("{:04}", i64::from(tm.tm_year) + 1900)),
            Some('m') => out.push_str(&format!("{:02}", tm.tm_mon + 1)),
            Some('d') => out.push_str(&format!("{:02}", tm.tm_mday)),
            Some('H') => out.push_str(&format!("{:02}", tm.tm_hour)),
            Some('M') => out.push_str(&format!("{:02}", tm.tm_min)),
            Some('S') => out.push_str(&format!("{:02}", tm.tm_sec)),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    PathBuf::from(out)
}

/// Applies `input`; a sample is then kept as its stream's newest, moved
/// rather than copied since the app reads a sample by reference.
fn keep_and_apply(last: &mut BTreeMap<String, Input>, app: &mut App, input: Input) {
    if app.apply_sample(&input) {
        last.insert(input.stream(), input);
    } else {
        app.apply(input);
    }
}

/// The file a rotation goes on in: FILE.1, FILE.2, ... the first that is free.
fn rotated(base: &Path) -> PathBuf {
    (1..)
        .map(|i| {
            let mut p = base.as_os_str().to_owned();
            p.push(format!(".{i}"));
            PathBuf::from(p)
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| base.to_path_buf())
}

/// A file name for `R` without a path: the time it starts, in the current
/// directory.
pub fn default_file(ms: i64) -> PathBuf {
    let stamp = crate::format::local_datetime(ms).replace([' ', ':'], "-");
    PathBuf::from(format!("strata-{stamp}.strec"))
}

/// What a seek starting at a key chunk needs and no sample brings again:
/// each cell's [`crate::app::cells::CellRestate`], each database's
/// connection state and its instances' hosts (read every few minutes),
/// each node's connection state and the name it reports.
/// Applying one changes nothing.
pub fn restated(app: &App) -> Vec<Input> {
    use crate::layers::dnfs::source::DbEvent;
    let cells = app.cells.restates().into_iter().map(Input::CellRestate);
    let dbs = stated(app.dnfs.live(), |db, d| {
        let status = d.status.clone();
        let instances = d.instances.clone();
        (
            Input::Db(DbEvent::Status { db, status }),
            instances.map(|instances| Input::Db(DbEvent::Instances { db, instances })),
        )
    });
    let nodes = stated(&app.nodes, |node, n| {
        let status = n.link.status.clone();
        let hostname = n.hostname.clone();
        (
            Input::NodeStatus { node, status },
            hostname.map(|hostname| Input::NodeHostname { node, hostname }),
        )
    });
    cells.chain(dbs).chain(nodes).collect()
}

/// Per connection of `list` (its index and itself), its state and then
/// what it last said of itself, when it has.
fn stated<'a, T: 'a>(
    list: impl IntoIterator<Item = &'a T>,
    inputs: impl Fn(usize, &T) -> (Input, Option<Input>),
) -> impl Iterator<Item = Input> {
    list.into_iter().enumerate().flat_map(move |(i, x)| {
        let (state, said) = inputs(i, x);
        std::iter::once(state).chain(said)
    })
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
    record_and(rec, app, at, input, App::apply)
}

/// As [`record_and_apply`], the input applied by `apply`.
fn record_and(
    rec: &mut Recorder,
    app: &mut App,
    at: i64,
    input: Input,
    apply: impl FnOnce(&mut App, Input),
) -> Result<(), RecordError> {
    let key = rec.record(at, &input);
    apply(app, input);
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
            existing: Existing::Refuse,
            first: None,
            failure: None,
            last: BTreeMap::new(),
            dir: None,
        }
    }

    /// The config's `record_dir`: where `R` puts the files it names.
    pub fn in_dir(mut self, dir: Option<PathBuf>) -> Control {
        self.dir = dir;
        self
    }

    /// `--force`: a finished recording at the path is replaced.
    pub fn replacing(mut self, existing: Existing) -> Control {
        self.existing = existing;
        self
    }

    /// The newest sample of each stream: what a recording started now
    /// would state first, and what `/metrics` shows.
    pub fn newest(&self) -> impl Iterator<Item = &Input> {
        self.last.values()
    }

    pub fn is_recording(&self) -> bool {
        self.recorder.is_some()
    }

    /// Why the run's recording failed, if it did.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Starts recording to `path` (its time pattern filled in); says why
    /// not in the notice and returns false when it cannot.
    pub fn start(&mut self, app: &mut App, path: &Path) -> bool {
        let started = now_ms();
        let path = expand_time(path, started);
        let created =
            Recorder::create_in(&path, &meta_of(app, started), self.existing).and_then(|mut r| {
                for input in self.last.values() {
                    r.record(started, input)?;
                }
                Ok(r)
            });
        match created {
            Ok(r) => {
                self.growth.clear();
                self.recorder = Some(r);
                self.first.get_or_insert_with(|| path.clone());
                self.default_path = Some(path);
                self.refresh(app);
                true
            }
            Err(e) => {
                app.notice = Some(format!("not recording: {e}"));
                false
            }
        }
    }

    /// `--rotate-size`: the current file is closed and the recording goes on
    /// in the next free FILE.N beside the run's first file.
    pub fn rotate(&mut self, app: &mut App) {
        let Some(first) = self.first.clone() else {
            return;
        };
        self.stop(app);
        if self.failure.is_none() {
            self.start(app, &rotated(&first));
        }
    }

    /// Ends the recording after an error: the run goes on without it and
    /// ends with a non-zero status saying what was saved.
    fn fail(&mut self, app: &mut App, r: Option<&Recorder>, path: &str, e: &RecordError) {
        let saved = match (e, r) {
            (RecordError::Gone { .. }, _) => "nothing written since reaches a file".to_owned(),
            (_, Some(r)) => format!(
                "{path} keeps what was recorded up to {}, which replays",
                crate::format::local_datetime(r.last_wall_ms())
            ),
            (_, None) => format!("what {path} holds replays"),
        };
        let why = format!("recording to {path} stopped: {e}; {saved}");
        app.notice = Some(why.clone());
        self.failure.get_or_insert(why);
        self.recorder = None;
        app.recording = None;
    }

    /// `R`: stops a recording, or starts one (a new file each time, so a
    /// second start never overwrites the first).
    pub fn toggle(&mut self, app: &mut App) {
        if self.recorder.is_some() {
            self.stop(app);
            return;
        }
        let path = match self.default_path.take() {
            Some(p) if !expand_time(&p, now_ms()).exists() => p,
            _ => match &self.dir {
                Some(dir) => dir.join(default_file(now_ms())),
                None => default_file(now_ms()),
            },
        };
        // Said at once, not only when it stops: where the file `R` named
        // goes (a file given with --record is the user's own choice).
        if self.start(app, &path)
            && let Some(r) = &self.recorder
        {
            let shown = std::path::absolute(r.path()).unwrap_or_else(|_| r.path().to_path_buf());
            app.notice = Some(format!("recording to {}", shown.display()));
        }
    }

    pub fn stop(&mut self, app: &mut App) {
        let Some(r) = self.recorder.take() else {
            return;
        };
        let path = r.path().display().to_string();
        match r.close() {
            Ok(()) => {
                app.notice = Some(format!("recording saved to {path}"));
                app.recording = None;
            }
            Err(e) => self.fail(app, None, &path, &e),
        }
    }

    /// Records `input` (when recording), then applies it.
    pub fn feed(&mut self, app: &mut App, input: Input) {
        self.feed_at(app, now_ms(), input);
    }

    /// As [`feed`](Self::feed), with the time the input arrived: a test
    /// drives the loop's very recording with times it knows.
    pub fn feed_at(&mut self, app: &mut App, wall_ms: i64, input: Input) {
        let last = &mut self.last;
        let Some(r) = &mut self.recorder else {
            keep_and_apply(last, app, input);
            return;
        };
        let applied = record_and(r, app, wall_ms, input, |app, input| {
            keep_and_apply(last, app, input)
        });
        if let Err(e) = applied {
            let path = r.path().display().to_string();
            let r = self.recorder.take();
            self.fail(app, r.as_ref(), &path, &e);
        }
    }

    /// Once a second: the header's size and growth, and whether the file
    /// is still there.
    pub fn refresh(&mut self, app: &mut App) {
        let Some(r) = &mut self.recorder else {
            return;
        };
        match r.check_in_place() {
            Ok(None) => {}
            Ok(Some(was)) => {
                app.notice = Some(format!(
                    "{} was renamed: recording goes on in {}",
                    was.display(),
                    r.path().display()
                ));
            }
            Err(e) => {
                let path = r.path().display().to_string();
                let r = self.recorder.take();
                self.fail(app, r.as_ref(), &path, &e);
                return;
            }
        }
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

    /// Closes the recording on the way out; an error now or earlier in the
    /// run is returned, for a non-zero exit status.
    pub fn finish(mut self, app: &mut App) -> Result<(), String> {
        self.stop(app);
        self.failure.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_pattern_takes_the_local_start_time() {
        let ms = 1_764_000_000_000;
        let stamp = crate::format::local_datetime(ms);
        let digits: String = stamp.chars().filter(char::is_ascii_digit).collect();
        let out = expand_time(Path::new("/var/tmp/b-%Y%m%d-%H%M%S-%%-%q.strec"), ms);
        assert_eq!(
            out,
            PathBuf::from(format!(
                "/var/tmp/b-{}-{}-%-%q.strec",
                &digits[..8],
                &digits[8..]
            ))
        );
        assert_eq!(
            expand_time(Path::new("plain.strec"), ms),
            PathBuf::from("plain.strec")
        );
        assert_eq!(expand_time(Path::new("end%"), ms), PathBuf::from("end%"));
    }

    /// A year of five digits: every field after %Y is still its own, where
    /// slicing "YYYY-MM-DD HH:MM:SS" by fixed byte ranges shifts them all.
    #[test]
    fn a_time_pattern_reads_fields_not_positions() {
        // About the year 11952, past what four digits hold.
        let ms = 315_000_000_000_000;
        let (tm, _) = crate::format::local_tm(ms);
        let want = format!(
            "{}_{:02}_{:02}_{:02}_{:02}_{:02}",
            i64::from(tm.tm_year) + 1900,
            tm.tm_mon + 1,
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec
        );
        assert_eq!(want.find('_'), Some(5), "a five-digit year: {want}");
        assert_eq!(
            expand_time(Path::new("%Y_%m_%d_%H_%M_%S"), ms),
            PathBuf::from(want)
        );
    }

    /// `R` says where it records when it starts (it said so only when it
    /// stopped), and names its file in the config's `record_dir`.
    #[test]
    fn r_says_where_it_records_at_once_in_the_configs_directory() {
        use crate::app::App;
        use crate::config::Config;
        use crate::core::host::HostInfo;
        use crate::theme::Theme;
        let dir = tempfile::tempdir().unwrap();
        let host = HostInfo {
            hostname: "h".into(),
            kernel: "6.1".into(),
        };
        let mut app = App::new(
            Config::default(),
            Theme::default(),
            host,
            crate::core::duration::Interval::ONE_SECOND,
        );
        let mut rec = Control::new(None).in_dir(Some(dir.path().to_path_buf()));
        rec.toggle(&mut app);
        let notice = app.notice.take().unwrap_or_default();
        let want = format!("recording to {}/strata-", dir.path().display());
        assert!(notice.starts_with(&want), "{notice}");
        assert!(rec.is_recording());
        rec.toggle(&mut app);
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(files.len(), 1, "{files:?}");
    }
}

//! A recording of the app's inputs: each input is one tick whose values are the
//! numbers of its sample and whose blob says how to put the sample back together.
//!
//! ```text
//! blob = 0 · uvarint slot                 the same shape as the slot's last tick
//!      | 1 · uvarint slot · shape (JSON)  a new shape for the slot
//!      | 2 · meta (JSON)                  the first tick of a recording
//! ```
//!
//! A slot is one stream of inputs (the disk samples, one cell's events, ...).
//! Shapes are stated again in the first tick of each stream after the start of
//! a key chunk, so a reader seeking to a key chunk needs nothing before it.
//!
//! A SAME blob also carries the CRC32 of the shape it means, which an older
//! strata does not read (it reads the slot and stops):
//!
//! ```text
//! blob = 0 · uvarint slot · u32 crc32(shape JSON)   (older recordings: no CRC)
//! ```
//!
//! So that damage to one chunk costs little more than that chunk:
//! - every chunk states its counters' first values (the writer does not carry
//!   them from the chunk before), so each chunk's values read alone;
//! - the shapes and the meta tick are stated again at the start of each of the
//!   chunks that open in the first ten minutes ([`RESTATE_ALL_MS`]; of those
//!   committed early because they hold too many values, at most one a minute)
//!   and of every key chunk after, so damage at the start of a recording does
//!   not lose the rest;
//! - a SAME tick is joined only with the shape its CRC names: after damage
//!   that took a new shape, the slot's older shape is not used for it; its
//!   ticks are passed over (with a notice) until the shape is stated again.
//!
//! The bound: a damaged byte costs the chunk it is in (a minute at most) and,
//! for a stream whose shape changed in that chunk, that stream's ticks up to
//! its next statement (the next key chunk, at most ten minutes on). An older
//! strata passes over a restated meta tick as over the first, and reads the
//! chunks as it always did.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::app::Input;
use crate::config::Config;
use crate::core::duration::Interval;
use crate::core::host::HostInfo;
use crate::link::target::HostTarget;
use crate::recfile::format::{self, SeriesRef, Tick, Value};
use crate::recfile::shape::{self, Shape};
use crate::recfile::{Existing, RecordError, RecordReader, RecordWriter, TickCursor};
use crate::recording::names::{Named, SeriesNames};

/// What a recording says about the run it holds: enough to build the same app.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    pub strata_version: String,
    pub host: HostInfo,
    pub interval_s: f64,
    pub config: Config,
    pub cells: Vec<HostTarget>,
    /// Recordings made before databases were read have none.
    #[serde(default)]
    pub dbs: Vec<crate::layers::dnfs::source::DbTarget>,
    /// Recordings made before nodes were sampled have none.
    #[serde(default)]
    pub nodes: Vec<crate::link::target::NodeTarget>,
    pub started_ms: i64,
}

impl Meta {
    /// The run's interval: as recorded (seconds, the file's form since the
    /// first recordings), else one second for a header that holds none a
    /// live run could have had.
    pub fn interval(&self) -> Interval {
        Interval::from_secs(self.interval_s).unwrap_or(Interval::ONE_SECOND)
    }
}

const SAME: u8 = 0;
const NEW: u8 = 1;
const META: u8 = 2;

/// See the module's comment: every chunk that opens in the first ten minutes
/// states everything again, as key chunks (every [`format::KEY_SPAN_MS`]) do
/// all along.
pub const RESTATE_ALL_MS: i64 = format::KEY_SPAN_MS;

struct Stream {
    slot: u32,
    last: Option<Shape>,
    /// CRC32 of `last`'s JSON, which a SAME blob carries.
    crc: u32,
    /// Where the last sample's fields were found in `last`.
    trail: shape::Trail,
    /// How many numbers the last sample held.
    numbers: usize,
}

/// How long a series no sample holds is kept: the history window (what a
/// screen remembers of a device), and at least two key chunks' span, within
/// which every live stream is split again (so names still in use are seen).
fn forget_after_ms(meta: &Meta) -> i64 {
    let window = i64::try_from(meta.config.history_secs)
        .unwrap_or(i64::MAX)
        .saturating_mul(1000);
    window.max(2 * format::KEY_SPAN_MS)
}

/// The series a shape's numbers are in.
fn shape_ids(shape: &Shape, out: &mut HashSet<u32>) {
    match shape {
        Shape::Num(id, _) => {
            out.insert(*id);
        }
        Shape::Arr(items) => items.iter().for_each(|s| shape_ids(s, out)),
        Shape::Obj(fields) => fields.iter().for_each(|(_, s)| shape_ids(s, out)),
        Shape::Null | Shape::Bool(_) | Shape::Str(_) => {}
    }
}

/// Writes inputs to a recording.
pub struct Recorder {
    writer: RecordWriter,
    /// Each series by name: its id and when a sample last held it.
    series: SeriesNames,
    /// The id the next new series takes: ids of forgotten series are not
    /// given again.
    next_id: u32,
    /// A series no sample held for this long is forgotten (see
    /// [`forget_unseen`](Self::forget_unseen)).
    forget_after_ms: i64,
    /// When series were last looked over for forgetting.
    swept_ms: i64,
    streams: HashMap<String, Stream>,
    /// The meta tick's blob, stated again (see [`RESTATE_ALL_MS`]).
    meta: Vec<u8>,
    started_ms: i64,
    /// When everything was last stated again.
    restated_ms: i64,
}

impl Recorder {
    /// A new recording at `path`; an existing file is refused.
    pub fn create(path: &Path, meta: &Meta) -> Result<Recorder, RecordError> {
        Self::create_in(path, meta, Existing::Refuse)
    }

    /// As [`create`](Self::create), saying what becomes of an existing
    /// finished recording (one in progress is always refused).
    pub fn create_in(
        path: &Path,
        meta: &Meta,
        existing: Existing,
    ) -> Result<Recorder, RecordError> {
        let mut writer = RecordWriter::create_in(path, meta.started_ms, &[], existing)?;
        // About a fifth more bytes of counters (each one's first value in full
        // each minute), for values whose loss is bounded by the damaged chunk.
        writer.set_carry_counters(false);
        let mut blob = vec![META];
        blob.extend(serde_json::to_vec(meta).map_err(RecordError::encode)?);
        writer.push_with(meta.started_ms, &[], blob.clone())?;
        Ok(Recorder {
            writer,
            series: SeriesNames::default(),
            next_id: 0,
            forget_after_ms: forget_after_ms(meta),
            swept_ms: meta.started_ms,
            streams: HashMap::new(),
            meta: blob,
            started_ms: meta.started_ms,
            restated_ms: meta.started_ms,
        })
    }

    /// Where the file is: where it was created, or where it was renamed to.
    pub fn path(&self) -> &Path {
        self.writer.path()
    }

    /// Whether the file is still where it was created; a rename is followed
    /// and gives the name it had.
    pub fn check_in_place(&mut self) -> Result<Option<PathBuf>, RecordError> {
        self.writer.check_in_place()
    }

    /// Time of the newest input taken.
    pub fn last_wall_ms(&self) -> i64 {
        self.writer.last_wall_ms()
    }

    /// Bytes on disk: the committed segment and the journal's ticks (as
    /// the writer wrote them: a stat of the journal every second cost a
    /// system call for what the writer knows).
    pub fn bytes(&self) -> u64 {
        self.writer.segment_len() + self.writer.journal_len()
    }

    /// Records one input; true when its tick opened a key chunk (where a
    /// seek may start, so state that is not in every sample is stated again).
    pub fn record(&mut self, wall_ms: i64, input: &Input) -> Result<bool, RecordError> {
        let stream = input.stream();
        // As many as the stream's last: 1.3 million numbers grew by doubling.
        let room = self.streams.get(&stream).map_or(0, |s| s.numbers);
        let mut values = Vec::with_capacity(room);
        // None: the stream's last shape, unchanged. Compared along the
        // serialization: the JSON tree is built only for a new shape.
        let same = match self.streams.get_mut(&stream) {
            Some(Stream {
                last: Some(last),
                trail,
                ..
            }) => shape::same_value_along(input, last, trail, &mut values),
            _ => false,
        };
        let mut shape = if same {
            None
        } else {
            values.clear();
            // Along the serialization too: building the JSON tree of the
            // first sample of 100k devices was a third of its time.
            let unnamed = match shape::split_value(input) {
                Some(u) => u,
                None => {
                    shape::Unnamed::of(&serde_json::to_value(input).map_err(RecordError::encode)?)
                }
            };
            Some(self.split(unnamed, &stream, wall_ms, &mut values)?)
        };
        if let Input::Marker { wall_ms, label } = input {
            self.writer.add_marker(*wall_ms, label)?;
        }
        let key = self.writer.opens_key_chunk(wall_ms, values.len());
        // By time, not by chunk index: new series at start-up each commit
        // a short chunk, which would use up the first chunks in seconds.
        // Above about 27k devices every tick is a chunk of its own, on size,
        // and each statement holds every shape: those restate once a minute.
        let early = wall_ms.saturating_sub(self.started_ms) < RESTATE_ALL_MS
            && (!self.writer.opens_on_size(wall_ms, values.len())
                || wall_ms.saturating_sub(self.restated_ms) >= format::CHUNK_SPAN_MS);
        let restate = key || (early && self.writer.opens_chunk(wall_ms, values.len()));
        if restate {
            // It opens the chunk (a chunk closing on size would otherwise
            // take it along); the input joins it.
            self.writer.flush()?;
            self.writer.push_with(wall_ms, &[], self.meta.clone())?;
            self.restated_ms = wall_ms;
            for (name, s) in &mut self.streams {
                let last = s.last.take();
                if *name == stream && shape.is_none() {
                    shape = last;
                }
            }
        }
        let slots = self.streams.len() as u32;
        let st = self.streams.entry(stream).or_insert(Stream {
            slot: slots,
            last: None,
            crc: 0,
            trail: shape::Trail::default(),
            numbers: 0,
        });
        st.numbers = values.len();
        let shape = shape.filter(|s| st.last.as_ref() != Some(s));
        // A shape's JSON takes about 40 bytes a number (that of 100k
        // devices, 51 MB, grew by doubling); room not used is not touched.
        let room = if shape.is_some() {
            40 * values.len()
        } else {
            0
        };
        let mut blob = Vec::with_capacity(12 + room);
        if let Some(shape) = shape {
            blob.push(NEW);
            format::put_uvarint(&mut blob, u64::from(st.slot));
            let head = blob.len();
            // Straight into the blob: the shape of 100k devices is 51 MB.
            serde_json::to_writer(&mut blob, &shape).map_err(RecordError::encode)?;
            st.crc = crc32fast::hash(&blob[head..]);
            st.last = Some(shape);
        } else {
            blob.push(SAME);
            format::put_uvarint(&mut blob, u64::from(st.slot));
            blob.extend_from_slice(&st.crc.to_le_bytes());
        }
        self.writer.push_owned(wall_ms, values, blob)?;
        self.forget_unseen(wall_ms);
        Ok(key)
    }

    /// A sample's shape and numbers, naming its new series (and stating
    /// them in the recording).
    fn split(
        &mut self,
        unnamed: shape::Unnamed,
        stream: &str,
        wall_ms: i64,
        values: &mut Vec<(u32, Value)>,
    ) -> Result<Shape, RecordError> {
        // Room for a first sample's series at once: growing to the two
        // million of 100k devices rehashed every name on the way, a fifth
        // of the first tick's time.
        let numbers = unnamed.numbers();
        // A shape no reader takes (a million devices) is refused before its
        // series are named and stated. By the least its numbers take in it
        // (`{"Num":[0,"U"]}` is 15 bytes): the writer checks the blob itself.
        crate::recfile::writer::check_least(
            "a sample's shape",
            numbers.saturating_mul(15),
            format::MAX_BLOB_LEN,
            true,
        )?;
        self.series.reserve(numbers);
        let next = self.next_id;
        let held = self.series.len();
        let series = &mut self.series;
        let mut kinds = Vec::new();
        let shape = unnamed.name(
            stream,
            &mut |name, kind| {
                let id = next.saturating_add(kinds.len() as u32);
                let (named, new) = series.get_or_add(
                    name,
                    Named {
                        id,
                        seen_ms: wall_ms,
                    },
                );
                if new {
                    kinds.push(kind);
                }
                named.id
            },
            values,
        );
        if kinds.is_empty() {
            return Ok(shape);
        }
        // The new names are the last the map holds, in the order named.
        let mut new = Vec::with_capacity(kinds.len());
        new.extend(
            (held..self.series.len())
                .zip(&kinds)
                .enumerate()
                .filter_map(|(i, (at, kind))| {
                    Some(SeriesRef {
                        id: next.saturating_add(i as u32),
                        name: self.series.name(at)?,
                        kind: *kind,
                    })
                }),
        );
        if new.len() != kinds.len() {
            return Err(RecordError::NameNotHeld(self.series.len() as u64));
        }
        self.writer.add_series_refs(&new)?;
        self.next_id = next.saturating_add(kinds.len() as u32);
        Ok(shape)
    }

    /// Forgets the series no sample held for [`forget_after_ms`], looked
    /// over once a minute: devices and NICs renamed all day (12 new names a
    /// second) made the recorder hold every name it ever saw, about 4 KB
    /// each. A name that comes back is a new series, stated anew. A series
    /// a stream's last shape holds is kept whatever the clock says.
    fn forget_unseen(&mut self, wall_ms: i64) {
        if wall_ms.saturating_sub(self.swept_ms) < format::CHUNK_SPAN_MS {
            return;
        }
        self.swept_ms = wall_ms;
        let cutoff = wall_ms.saturating_sub(self.forget_after_ms);
        if self.series.values().all(|n| n.seen_ms >= cutoff) {
            return;
        }
        let mut live = HashSet::new();
        for st in self.streams.values() {
            if let Some(last) = &st.last {
                shape_ids(last, &mut live);
            }
        }
        let mut gone = Vec::new();
        self.series.retain(|n| {
            let keep = n.seen_ms >= cutoff || live.contains(&n.id);
            if !keep {
                gone.push(n.id);
            }
            keep
        });
        self.writer.forget(&gone);
    }

    /// Series the recorder holds: the bench's figure of its memory.
    pub fn series_held(&self) -> usize {
        self.series.len()
    }

    pub fn close(self) -> Result<(), RecordError> {
        self.writer.close()
    }

    /// Removes the recording, unfinished (see [`RecordWriter::discard`]).
    pub fn discard(mut self) {
        self.writer.discard();
    }

    /// As [`close`](Self::close), the file removed if the close fails.
    pub fn close_or_discard(self) -> Result<(), RecordError> {
        self.writer.close_or_discard()
    }
}

/// A slot's shape as its last NEW blob stated it, read only when a tick of
/// it is put back together: a seek passes over most ticks without that.
enum SlotShape {
    Stated(Vec<u8>),
    Read(Shape),
}

struct Slot {
    shape: SlotShape,
    /// CRC32 of the shape's JSON: a SAME tick naming another is not joined.
    crc: u32,
    /// Its ticks are inputs a seek keeps from before its window.
    kept: bool,
}

impl Slot {
    fn shape(&mut self) -> Result<&Shape, String> {
        if let SlotShape::Stated(bytes) = &self.shape {
            let shape = serde_json::from_slice(bytes)
                .map_err(|e| format!("its shape does not read: {e}"))?;
            self.shape = SlotShape::Read(shape);
        }
        match &self.shape {
            SlotShape::Read(shape) => Ok(shape),
            SlotShape::Stated(_) => Err("its shape does not read".into()),
        }
    }
}

/// The ends of the names of the series that mark the inputs a seek keeps
/// ([`Input::outlasting`]): each kind's key number, named by its path in
/// the input, found by the number it holds. Derived from the types, as the
/// writer names every series, so a renamed field or variant changes them
/// both (and `kept_series_are_those_recordings_hold` says so).
fn kept_series() -> &'static [String] {
    static KEPT: LazyLock<Vec<String>> = LazyLock::new(|| {
        Input::outlasting(KEY)
            .iter()
            .filter_map(key_series)
            .collect()
    });
    /// No other number of the kept inputs holds this.
    const KEY: usize = 4_000_000_007;

    fn key_series(input: &Input) -> Option<String> {
        let tree = serde_json::to_value(input).ok()?;
        let stream = input.stream();
        let mut names: Vec<String> = Vec::new();
        let mut values = Vec::new();
        shape::split(
            &tree,
            &stream,
            &mut |name, _| {
                names.push(name.to_string());
                (names.len() - 1) as u32
            },
            &mut values,
        );
        let key = format::Value::Counter(KEY as u64);
        let (id, _) = values.iter().find(|(_, v)| *v == key)?;
        let name = names.get(*id as usize)?;
        name.strip_prefix(&stream).map(str::to_string)
    }
    &KEPT
}

/// Reads the inputs of a recording back, from any key chunk on.
pub struct Player {
    reader: RecordReader,
    pub meta: Meta,
    cursor: TickCursor,
    slots: HashMap<u32, Slot>,
    /// The series of [`kept_series`]: a tick with one of them is an input a
    /// seek keeps from before its window.
    kept_series: HashSet<u32>,
    peeked: Option<(i64, Input)>,
    /// Why the last tick skipped was: skips for one reason (every tick of a
    /// stream whose shape damage took) are noticed once.
    last_skip: Option<String>,
    /// What went wrong while reading, for the user; reading goes on after a
    /// tick that does not decode and past damage.
    pub notices: Vec<String>,
    /// Time of the first and of the last tick.
    pub start_ms: i64,
    pub end_ms: i64,
}

/// A gap named by its time range, for the user: export, summary and replay
/// print it with the other notices.
pub fn gap_notice(g: &crate::recfile::Gap) -> String {
    let at =
        |ms: Option<i64>, none: &str| ms.map_or(none.to_owned(), crate::format::local_datetime);
    format!(
        "gap: what was recorded after {} and before {} is lost (recording bytes {} to {})",
        at(g.last_before_ms, "the start"),
        at(g.first_after_ms, "the end"),
        g.offset,
        g.end
    )
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("{0}: the recording holds no readable start (its first tick is damaged or missing)")]
    NoMeta(PathBuf),
}

impl Player {
    pub fn open(path: &Path) -> Result<Player, OpenError> {
        Self::with_reader(path, RecordReader::open(path)?)
    }

    /// Reads every input of a recording held in memory, as a fuzz target:
    /// whatever the bytes, this returns.
    pub fn read_bytes(data: &[u8], journal: Option<&[u8]>) -> (usize, Vec<String>) {
        let path = Path::new("fuzz.strec");
        let reader = RecordReader::from_bytes(path, data.to_vec(), journal.map(|j| Ok(j.to_vec())));
        let mut player = match reader
            .map_err(OpenError::from)
            .and_then(|r| Self::with_reader(path, r))
        {
            Ok(p) => p,
            Err(e) => return (0, vec![e.to_string()]),
        };
        let mut n = 0;
        while player.next_input().is_some() {
            n += 1;
        }
        (n, player.notices)
    }

    fn with_reader(path: &Path, reader: RecordReader) -> Result<Player, OpenError> {
        let mut notices: Vec<String> = reader.notices().iter().map(ToString::to_string).collect();
        notices.extend(reader.gaps().iter().map(gap_notice));
        // The first meta tick that reads: the first tick, unless the first
        // chunk is damaged, then a restated one (see [`META_EVERY`]).
        let mut search = reader.cursor_at(i64::MIN, i64::MIN);
        let meta = std::iter::from_fn(|| search.next(&reader))
            .filter_map(Result::ok)
            .find_map(|t| match t.blob.split_first() {
                Some((&META, json)) => serde_json::from_slice::<Meta>(json).ok(),
                _ => None,
            });
        let Some(meta) = meta else {
            return Err(OpenError::NoMeta(path.to_path_buf()));
        };
        let cursor = reader.cursor_at(i64::MIN, i64::MIN);
        let start_ms = meta.started_ms;
        // From the last chunk's times alone: a jump to the end decodes what
        // it needs, and opening decodes nothing more.
        let end_ms = reader.last_wall_ms().unwrap_or(start_ms).max(start_ms);
        let kept_series = reader
            .catalogue()
            .iter()
            .filter(|d| kept_series().iter().any(|k| d.name.ends_with(k.as_str())))
            .map(|d| d.id)
            .collect();
        Ok(Player {
            cursor,
            reader,
            meta,
            slots: HashMap::new(),
            kept_series,
            peeked: None,
            last_skip: None,
            notices,
            start_ms,
            end_ms,
        })
    }

    pub fn markers(&self) -> &[(i64, String)] {
        self.reader.markers()
    }

    /// Chunk start times: where the timeline shows gaps.
    pub fn chunk_times(&self) -> Vec<i64> {
        self.reader.chunks().iter().map(|c| c.t0).collect()
    }

    /// The stretches lost to damage, as (last tick read before, first after):
    /// what was lost lies strictly between. An open end is the recording's.
    pub fn damage(&self) -> Vec<(i64, i64)> {
        self.reader
            .gaps()
            .iter()
            .map(|g| {
                (
                    g.last_before_ms.unwrap_or(self.start_ms),
                    g.first_after_ms.unwrap_or(self.end_ms),
                )
            })
            .collect()
    }

    /// The reader under the player: its gaps, chunks and catalogue.
    pub fn reader(&self) -> &RecordReader {
        &self.reader
    }

    /// The next input is the first at or after `wall_ms`'s key chunk.
    pub fn rewind(&mut self, wall_ms: i64) {
        self.cursor = self.reader.cursor_at(wall_ms, i64::MIN);
        self.slots.clear();
        self.peeked = None;
    }

    /// A seek's start: the next input is the first at or after `from`. The
    /// ticks before it, from its key chunk on, are passed over without being
    /// put back together, but for the inputs whose effect outlasts them
    /// ([`Input::outlasting`]), which `keep` gets in their order.
    pub fn rewind_keeping(&mut self, from: i64, keep: &mut impl FnMut(Input)) {
        self.rewind(from);
        while let Some(tick) = self.next_tick() {
            if tick.wall_ms >= from {
                self.peeked = self.input_of(&tick).map(|i| (tick.wall_ms, i));
                return;
            }
            let kept = match self.note_blob(&tick) {
                Ok(Some(slot)) if self.slots.get(&slot).is_some_and(|s| s.kept) => {
                    self.join(slot, &tick).map(Some)
                }
                other => other.map(|_| None),
            };
            match kept {
                Ok(Some(input)) => keep(input),
                Ok(None) => {}
                Err(e) => self.skipped(&tick, e),
            }
        }
    }

    /// The time of the next input, without taking it.
    pub fn peek_time(&mut self) -> Option<i64> {
        if self.peeked.is_none() {
            self.peeked = self.read();
        }
        self.peeked.as_ref().map(|(t, _)| *t)
    }

    pub fn next_input(&mut self) -> Option<(i64, Input)> {
        self.peeked.take().or_else(|| self.read())
    }

    fn read(&mut self) -> Option<(i64, Input)> {
        loop {
            let tick = self.next_tick()?;
            if let Some(input) = self.input_of(&tick) {
                return Some((tick.wall_ms, input));
            }
        }
    }

    /// The next tick; None at the end. A chunk that does not decode is
    /// noticed and passed over.
    fn next_tick(&mut self) -> Option<Tick> {
        loop {
            match self.cursor.next(&self.reader)? {
                Ok(t) => return Some(t),
                Err(n) => self.notices.push(n.to_string()),
            }
        }
    }

    /// The input a tick holds; None for the meta tick and for a tick that
    /// does not decode, which is noticed and skipped.
    fn input_of(&mut self, tick: &Tick) -> Option<Input> {
        let input = match self.note_blob(tick) {
            Ok(Some(slot)) => self.join(slot, tick).map(Some),
            other => other.map(|_| None),
        };
        input.unwrap_or_else(|e| {
            self.skipped(tick, e);
            None
        })
    }

    /// One notice for a run of ticks skipped for the same reason (after
    /// damage, every tick of a stream until its shape is stated again).
    fn skipped(&mut self, tick: &Tick, e: String) {
        if self.last_skip.as_ref() == Some(&e) {
            return;
        }
        self.notices
            .push(format!("a tick at {} ms is skipped: {e}", tick.wall_ms));
        self.last_skip = Some(e);
    }

    /// A tick's input: its slot's shape joined with its values.
    fn join(&mut self, slot: u32, tick: &Tick) -> Result<Input, String> {
        let shape = self
            .slots
            .get_mut(&slot)
            .ok_or("its shape was never stated (a damaged chunk before it)")?
            .shape()?;
        let values = if tick.values.is_sorted_by_key(|v| v.0) {
            std::borrow::Cow::Borrowed(&tick.values)
        } else {
            let mut v = tick.values.clone();
            v.sort_by_key(|v| v.0);
            std::borrow::Cow::Owned(v)
        };
        let tree = shape::join(shape, &values).map_err(|e| e.to_string())?;
        serde_json::from_value(tree)
            .map_err(|e| format!("it is not an input this strata knows: {e}"))
    }

    /// Takes in what a tick's blob says of its slot's shape; returns the
    /// slot, or None for the meta tick.
    fn note_blob(&mut self, tick: &Tick) -> Result<Option<u32>, String> {
        let (&tag, rest) = tick.blob.split_first().ok_or("no blob")?;
        if tag == META {
            return Ok(None);
        }
        let (slot, used) = format::get_uvarint(rest).ok_or("a blob without its slot")?;
        let slot = u32::try_from(slot).map_err(|_| "slot out of range")?;
        match tag {
            NEW => {
                let kept = tick
                    .values
                    .iter()
                    .any(|(id, _)| self.kept_series.contains(id));
                let json = &rest[used..];
                let crc = crc32fast::hash(json);
                let shape = SlotShape::Stated(json.to_vec());
                self.slots.insert(slot, Slot { shape, crc, kept });
            }
            SAME => {
                let Some(s) = self.slots.get(&slot) else {
                    return Err("its shape was never stated (a damaged chunk before it)".into());
                };
                // Older recordings carry no CRC; the shape is then the slot's.
                if let Some(crc) = rest.get(used..used + 4)
                    && s.crc.to_le_bytes() != crc
                {
                    return Err(
                        "its shape was stated in a damaged chunk (until it is stated again)".into(),
                    );
                }
            }
            _ => return Err(format!("unknown blob tag {tag}")),
        }
        Ok(Some(slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::cells::CellRestate;
    use crate::layers::cells::source::CellEvent;
    use crate::layers::disks::source::DiskSample;
    use crate::link::HostStatus;
    use std::time::Duration;

    /// The names of the series a recording makes of an input.
    fn series_of(input: &Input) -> Vec<String> {
        let tree = serde_json::to_value(input).unwrap();
        let mut names = Vec::new();
        shape::split(
            &tree,
            &input.stream(),
            &mut |name, _| {
                names.push(name.to_string());
                names.len() as u32
            },
            &mut Vec::new(),
        );
        names
    }

    fn is_kept(input: &Input) -> bool {
        series_of(input)
            .iter()
            .any(|n| kept_series().iter().any(|k| n.ends_with(k.as_str())))
    }

    /// Recordings made before hold their kept inputs' series under these
    /// names: a change to the inputs' types that renamed one would make a
    /// seek in those recordings drop what it must keep.
    #[test]
    fn kept_series_are_those_recordings_hold() {
        assert_eq!(
            kept_series(),
            [
                ".Cell.Status.cell",
                ".Cell.Rtt.cell",
                ".Cell.Cellcli.cell",
                ".Cell.Stderr.cell",
                ".CellRestate.cell",
                ".Db.Status.db",
                ".Db.Instances.db",
                ".Clock.now_ms",
                ".NodeStatus.node",
                ".NodeRtt.node",
                ".NodeHostname.node",
            ]
        );
    }

    /// A seek knows the inputs it keeps by their series' names alone: each
    /// kept kind has one, whatever its content, and no other input does.
    #[test]
    fn kept_inputs_are_known_by_their_series() {
        let cell = 3;
        let kept = [
            Input::Cell(CellEvent::Status {
                cell,
                status: HostStatus::Unreachable("x".into()),
            }),
            Input::Cell(CellEvent::Rtt {
                cell,
                rtt: Duration::from_micros(5),
            }),
            Input::Cell(CellEvent::Cellcli {
                cell,
                text: String::new(),
            }),
            Input::Cell(CellEvent::Stderr {
                cell,
                text: "e".into(),
            }),
            Input::CellRestate(CellRestate {
                cell,
                status: HostStatus::Live,
                rtt: None,
                cellcli: Some((7, "t".into())),
                message: None,
            }),
            Input::Clock {
                now_ms: 1,
                usage: Default::default(),
            },
            Input::Db(crate::layers::dnfs::source::DbEvent::Instances {
                db: 1,
                instances: crate::layers::dnfs::dnfs_sample::DnfsInstances {
                    wall_ms: 5,
                    rows: vec![crate::layers::dnfs::dnfs_sample::InstanceRow {
                        inst_id: 2,
                        name: "PROD2".into(),
                        host_name: "db02".into(),
                    }],
                    problems: Vec::new(),
                },
            }),
        ];
        for input in &kept {
            assert!(is_kept(input), "{input:?}: {:?}", series_of(input));
        }
        let sample = crate::layers::disks::source::DiskSample {
            uptime_cs: 1,
            wall_ms: 2,
            devices: vec![Default::default()],
            rejected: Vec::new(),
            catalogue: Default::default(),
        };
        let passed_over = [
            Input::Disks(Ok(sample.clone())),
            Input::Disks(Err("e".into())),
            Input::Cell(CellEvent::Sample { cell, sample }),
            Input::Db(crate::layers::dnfs::source::DbEvent::Sample {
                db: 1,
                sample: Default::default(),
            }),
            Input::Marker {
                wall_ms: 1,
                label: "m".into(),
            },
        ];
        for input in &passed_over {
            assert!(!is_kept(input), "{input:?}: {:?}", series_of(input));
        }
    }

    /// A cell's round trip comes between two of its samples: each kind of
    /// event keeps its own shape, stated once, not again at every tick.
    #[test]
    fn a_cells_alternating_events_state_their_shapes_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.strec");
        let meta = Meta {
            strata_version: "test".into(),
            host: HostInfo {
                hostname: "db01".into(),
                kernel: "6.1".into(),
            },
            interval_s: 1.0,
            config: Config::default(),
            cells: Vec::new(),
            dbs: Vec::new(),
            nodes: Vec::new(),
            started_ms: 0,
        };
        let mut rec = Recorder::create(&path, &meta).unwrap();
        for k in 0..50u64 {
            let sample = DiskSample {
                uptime_cs: 100 * k,
                wall_ms: 1000 * k as i64,
                devices: Vec::new(),
                rejected: Vec::new(),
                catalogue: Default::default(),
            };
            let rtt = Duration::from_micros(500 + k);
            for ev in [
                CellEvent::Sample { cell: 0, sample },
                CellEvent::Rtt { cell: 0, rtt },
            ] {
                rec.record(1000 * k as i64, &Input::Cell(ev)).unwrap();
            }
        }
        rec.close().unwrap();
        let ticks = RecordReader::open(&path).unwrap().read_all().ticks;
        let stated = ticks.iter().filter(|t| t.blob.first() == Some(&NEW));
        // Each new stream's series commit a chunk, and a chunk that opens in
        // the first ten minutes states the meta and every shape again: the
        // meta twice more, and the sample's shape once more (for the chunk
        // the round trip's series opened).
        let metas = ticks.iter().filter(|t| t.blob.first() == Some(&META));
        assert_eq!(
            (ticks.len(), stated.count(), metas.count()),
            (101 + 2, 2 + 1, 3)
        );
    }

    /// Devices renamed all the time: the recorder holds the series of the
    /// names seen within its window only (it held every name ever seen),
    /// and the recording still reads back every sample, a name that comes
    /// back after it was forgotten included.
    #[test]
    fn a_recorder_forgets_names_gone_for_its_window() {
        use crate::layers::disks::diskstats::DiskCounters;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("churn.strec");
        let config = Config {
            history_secs: 60,
            ..Config::default()
        };
        let meta = Meta {
            strata_version: "test".into(),
            host: HostInfo {
                hostname: "db01".into(),
                kernel: "6.1".into(),
            },
            interval_s: 10.0,
            config,
            cells: Vec::new(),
            dbs: Vec::new(),
            nodes: Vec::new(),
            started_ms: 0,
        };
        let mut rec = Recorder::create(&path, &meta).unwrap();
        // Every 10 s two new devices and two gone, four alive; 3 h. The
        // first device's name comes back at the end.
        let ticks = 3 * 360;
        let name = |k: i64| {
            if k == ticks - 1 {
                "d0".to_string()
            } else {
                format!("d{k}")
            }
        };
        let mut most = 0;
        for k in 0..ticks {
            let devices = (0..4)
                .map(|j| DiskCounters {
                    name: name(k / 2 * 2 + j),
                    rd_ios: k as u64,
                    ..DiskCounters::default()
                })
                .collect();
            let sample = DiskSample {
                uptime_cs: 1000 * k as u64,
                wall_ms: 10_000 * k,
                devices,
                rejected: Vec::new(),
                catalogue: Default::default(),
            };
            rec.record(10_000 * k, &Input::Disks(Ok(sample))).unwrap();
            most = most.max(rec.series_held());
        }
        let per_device = series_of(&Input::Disks(Ok(DiskSample {
            uptime_cs: 0,
            wall_ms: 0,
            devices: vec![DiskCounters::default()],
            rejected: Vec::new(),
            catalogue: Default::default(),
        })))
        .len();
        rec.close().unwrap();
        // The window (20 min at least) of names, and the sample's own series.
        let window = 2 * format::KEY_SPAN_MS / 10_000 + 6;
        assert!(
            most <= window as usize * per_device,
            "{most} series held, {per_device} per device"
        );
        let mut player = Player::open(&path).unwrap();
        let mut names = Vec::new();
        while let Some((_, input)) = player.next_input() {
            if let Input::Disks(Ok(s)) = input {
                names.push(s.devices.iter().map(|d| d.name.clone()).collect::<Vec<_>>());
            }
        }
        assert!(player.notices.is_empty(), "{:?}", player.notices);
        assert_eq!(names.len(), ticks as usize);
        let last = names.last().unwrap();
        assert!(last.contains(&"d0".to_string()), "{last:?}");
    }

    /// Split along the serialization, every input of the demo recording
    /// gives the shape, the series' names and the values its JSON tree
    /// gives: what the recorder writes is what it wrote before.
    #[test]
    fn split_value_gives_what_the_tree_gives_of_every_demo_input() {
        let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.strec");
        let mut player = Player::open(&demo).unwrap();
        let named = |u: shape::Unnamed, stream: &str| {
            let mut names: Vec<String> = Vec::new();
            let mut values = Vec::new();
            let shape = u.name(
                stream,
                &mut |name, _| {
                    names.push(name.to_string());
                    names.len() as u32
                },
                &mut values,
            );
            (shape, names, values)
        };
        let mut inputs = 0;
        while let Some((_, input)) = player.next_input() {
            let tree = serde_json::to_value(&input).unwrap();
            let stream = input.stream();
            let along = shape::split_value(&input).unwrap();
            assert_eq!(
                named(along, &stream),
                named(shape::Unnamed::of(&tree), &stream),
                "{input:?}"
            );
            inputs += 1;
        }
        assert!(inputs > 100, "{inputs} inputs");
    }

    /// Compared along the serialization, an input is of its stream's last
    /// shape exactly when its JSON tree is, with the same numbers: every
    /// input of the demo recording against its own shape and against its
    /// stream's shape before it.
    #[test]
    fn same_value_says_what_the_tree_says_of_every_demo_input() {
        let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.strec");
        let mut player = Player::open(&demo).unwrap();
        let mut last: HashMap<String, Shape> = HashMap::new();
        let mut names: HashMap<String, u32> = HashMap::new();
        // One trail a stream, across shapes, as the recorder keeps it.
        let mut trails: HashMap<String, shape::Trail> = HashMap::new();
        let (mut inputs, mut changed) = (0, 0);
        while let Some((_, input)) = player.next_input() {
            let tree = serde_json::to_value(&input).unwrap();
            let stream = input.stream();
            let mut ids = |name: &str, _| {
                let next = names.len() as u32;
                *names.entry(name.to_string()).or_insert(next)
            };
            let own = shape::split(&tree, &stream, &mut ids, &mut Vec::new());
            for shape in [Some(&own), last.get(&stream)].into_iter().flatten() {
                let (mut by_tree, mut along) = (Vec::new(), Vec::new());
                let same = shape::same(&tree, shape, &mut by_tree);
                let trail = trails.entry(stream.clone()).or_default();
                assert_eq!(
                    shape::same_value_along(&input, shape, trail, &mut along),
                    same,
                    "{input:?}"
                );
                changed += usize::from(!same);
                if same {
                    by_tree.sort_by_key(|(id, _)| *id);
                    along.sort_by_key(|(id, _)| *id);
                    assert_eq!(along, by_tree, "{input:?}");
                }
            }
            last.insert(stream, own);
            inputs += 1;
        }
        assert!(
            inputs > 100 && changed > 0,
            "{inputs} inputs, {changed} changed"
        );
    }
}

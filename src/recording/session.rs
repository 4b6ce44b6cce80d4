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

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::app::{HostInfo, Input};
use crate::config::Config;
use crate::layers::cells::source::target::CellTarget;
use crate::record::format::{self, SeriesDef, Tick};
use crate::record::shape::{self, Shape};
use crate::record::{Existing, RecordError, RecordReader, RecordWriter, TickCursor};

/// What a recording says about the run it holds: enough to build the same app.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    pub strata_version: String,
    pub host: HostInfo,
    pub interval_s: f64,
    pub config: Config,
    pub cells: Vec<CellTarget>,
    /// Recordings made before databases were read have none.
    #[serde(default)]
    pub dbs: Vec<crate::layers::dnfs::source::DbTarget>,
    pub started_ms: i64,
}

const SAME: u8 = 0;
const NEW: u8 = 1;
const META: u8 = 2;

struct Stream {
    slot: u32,
    last: Option<Shape>,
}

/// Writes inputs to a recording.
pub struct Recorder {
    writer: RecordWriter,
    path: PathBuf,
    series: HashMap<String, u32>,
    streams: HashMap<String, Stream>,
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
        let mut blob = vec![META];
        blob.extend(serde_json::to_vec(meta).map_err(RecordError::encode)?);
        writer.push_with(meta.started_ms, &[], blob)?;
        Ok(Recorder {
            writer,
            path: path.to_path_buf(),
            series: HashMap::new(),
            streams: HashMap::new(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file is still where it was created.
    pub fn check_in_place(&self) -> Result<(), RecordError> {
        self.writer.check_in_place()
    }

    /// Time of the newest input taken.
    pub fn last_wall_ms(&self) -> i64 {
        self.writer.last_wall_ms()
    }

    /// Bytes on disk: the committed segment and the journal's ticks.
    pub fn bytes(&self) -> u64 {
        let journal =
            std::fs::metadata(crate::record::journal_path(&self.path)).map_or(0, |m| m.len());
        self.writer.segment_len() + journal
    }

    /// Records one input; true when its tick opened a key chunk (where a
    /// seek may start, so state that is not in every sample is stated again).
    pub fn record(&mut self, wall_ms: i64, input: &Input) -> Result<bool, RecordError> {
        let tree = serde_json::to_value(input).map_err(RecordError::encode)?;
        let stream = input.stream();
        let mut values = Vec::new();
        let mut new = Vec::new();
        let next = self.series.len() as u32;
        let series = &mut self.series;
        let shape = shape::split(
            &tree,
            &stream,
            &mut |name, kind| {
                if let Some(id) = series.get(name) {
                    return *id;
                }
                let id = next + new.len() as u32;
                series.insert(name.to_string(), id);
                new.push(SeriesDef {
                    id,
                    name: name.to_string(),
                    kind,
                });
                id
            },
            &mut values,
        );
        if !new.is_empty() {
            self.writer.add_all_series(&new)?;
        }
        if let Input::Marker { wall_ms, label } = input {
            self.writer.add_marker(*wall_ms, label)?;
        }
        let key = self.writer.opens_key_chunk(wall_ms);
        if key {
            for s in self.streams.values_mut() {
                s.last = None;
            }
        }
        let slots = self.streams.len() as u32;
        let st = self.streams.entry(stream).or_insert(Stream {
            slot: slots,
            last: None,
        });
        let mut blob = Vec::with_capacity(8);
        if st.last.as_ref() == Some(&shape) {
            blob.push(SAME);
            format::put_uvarint(&mut blob, u64::from(st.slot));
        } else {
            blob.push(NEW);
            format::put_uvarint(&mut blob, u64::from(st.slot));
            blob.extend(serde_json::to_vec(&shape).map_err(RecordError::encode)?);
            st.last = Some(shape);
        }
        self.writer.push_with(wall_ms, &values, blob)?;
        Ok(key)
    }

    pub fn close(self) -> Result<(), RecordError> {
        self.writer.close()
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

/// Reads the inputs of a recording back, from any key chunk on.
pub struct Player {
    reader: RecordReader,
    pub meta: Meta,
    cursor: TickCursor,
    slots: HashMap<u32, Slot>,
    /// The series of [`Input::KEPT_SERIES`]: a tick with one of them is an
    /// input a seek keeps from before its window.
    kept_series: HashSet<u32>,
    peeked: Option<(i64, Input)>,
    /// What went wrong while reading, for the user; reading goes on after a
    /// tick that does not decode and stops at damage.
    pub notices: Vec<String>,
    /// Time of the first and of the last tick.
    pub start_ms: i64,
    pub end_ms: i64,
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
        let notices: Vec<String> = reader.notices().iter().map(ToString::to_string).collect();
        let mut cursor = reader.cursor_at(i64::MIN, i64::MIN);
        let meta = match cursor.next(&reader) {
            Some(Ok(t)) if t.blob.first() == Some(&META) => {
                serde_json::from_slice::<Meta>(&t.blob[1..]).ok()
            }
            _ => None,
        };
        let Some(meta) = meta else {
            return Err(OpenError::NoMeta(path.to_path_buf()));
        };
        let start_ms = meta.started_ms;
        // From the last chunk's times alone: a jump to the end decodes what
        // it needs, and opening decodes nothing more.
        let end_ms = reader.last_wall_ms().unwrap_or(start_ms).max(start_ms);
        let kept_series = reader
            .catalogue()
            .iter()
            .filter(|d| Input::KEPT_SERIES.iter().any(|k| d.name.ends_with(k)))
            .map(|d| d.id)
            .collect();
        Ok(Player {
            cursor,
            reader,
            meta,
            slots: HashMap::new(),
            kept_series,
            peeked: None,
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

    /// The next input is the first at or after `wall_ms`'s key chunk.
    pub fn rewind(&mut self, wall_ms: i64) {
        self.cursor = self.reader.cursor_at(wall_ms, i64::MIN);
        self.slots.clear();
        self.peeked = None;
    }

    /// A seek's start: the next input is the first at or after `from`. The
    /// ticks before it, from its key chunk on, are passed over without being
    /// put back together, but for the inputs whose effect outlasts them
    /// ([`Input::KEPT_SERIES`]), which `keep` gets in their order.
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

    /// The next tick; None at the end or at damage, which is noticed.
    fn next_tick(&mut self) -> Option<Tick> {
        match self.cursor.next(&self.reader)? {
            Ok(t) => Some(t),
            Err(n) => {
                self.notices.push(n.to_string());
                None
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

    fn skipped(&mut self, tick: &Tick, e: String) {
        self.notices
            .push(format!("a tick at {} ms is skipped: {e}", tick.wall_ms));
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
                let shape = SlotShape::Stated(rest[used..].to_vec());
                self.slots.insert(slot, Slot { shape, kept });
            }
            SAME if !self.slots.contains_key(&slot) => {
                return Err("its shape was never stated (a damaged chunk before it)".into());
            }
            SAME => {}
            _ => return Err(format!("unknown blob tag {tag}")),
        }
        Ok(Some(slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::cells::CellRestate;
    use crate::layers::cells::source::{CellEvent, CellStatus};
    use crate::layers::disks::source::DiskSample;
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
            .any(|n| Input::KEPT_SERIES.iter().any(|k| n.ends_with(k)))
    }

    /// A seek knows the inputs it keeps by their series' names alone: each
    /// kept kind has one, whatever its content, and no other input does.
    #[test]
    fn kept_inputs_are_known_by_their_series() {
        let cell = 3;
        let kept = [
            Input::Cell(CellEvent::Status {
                cell,
                status: CellStatus::Unreachable("x".into()),
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
                status: CellStatus::Live,
                rtt: None,
                cellcli: Some((7, "t".into())),
                message: None,
            }),
            Input::Clock {
                now_ms: 1,
                usage: Default::default(),
            },
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
        assert_eq!((ticks.len(), stated.count()), (101, 2));
    }
}

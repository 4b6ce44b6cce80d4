//! Appends ticks to a recording. Each tick is written to the side journal at once (one
//! write(2), so a kill -9 of strata loses at most the tick being written: the kernel
//! holds the rest); once they span a minute the journal's ticks become one compressed chunk
//! frame in the segment and the journal restarts. `sync_data` runs at most every
//! [`SYNC_EVERY`], on a thread of its own (`Syncer`), which bounds what a power cut
//! (not a process kill) can lose; `close` syncs on the caller's thread.

use std::fs::File;
use std::io::{IoSlice, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::format::{self, FrameKind, SeriesDef, SeriesKind, SeriesRef, Tick, Value};
use super::lock::{self, Existing};
use super::syncer::{self, Syncer};
use super::{RecordError, journal_path};

/// fsync is the expensive part of durability (milliseconds on a loaded disk, the very
/// disk strata may be watching); once every few seconds keeps it out of the tick.
pub const SYNC_EVERY: Duration = Duration::from_secs(5);

/// Values the pending ticks may hold before they are committed as a chunk
/// shorter than a minute: held decoded, at 24 bytes each, a minute of 1000
/// devices at 0.5 s took 44 MB, and a minute of many more would take what
/// it takes. About 12 MB.
pub const MAX_PENDING_VALUES: usize = 1 << 19;

/// A catalogue frame's payload is kept under this: well within
/// [`format::MAX_FRAME_LEN`].
const CATALOGUE_FRAME: usize = format::MAX_FRAME_LEN / 2;

/// Series are stated in frames of about this much and no more than
/// [`CATALOGUE_FRAME`]: each frame's bytes are made in the one buffer, and
/// the 58 MB that state a first sample of 100k devices were that much
/// memory new to the process (14k pages faulted in).
const CATALOGUE_PART: usize = 4 << 20;

/// Bytes a series takes in a catalogue frame, at most.
fn def_len(d: &SeriesRef<'_>) -> usize {
    // id and name length as uvarints (5 bytes each at most), the kind's byte
    11 + d.name.len()
}

/// A frame, record or blob longer than a reader takes is refused before it
/// is written: written, it would read as damage, and a recording that says
/// it was saved would hold nothing after it.
fn check_len(what: &'static str, bytes: usize, max: usize) -> Result<(), RecordError> {
    check_least(what, bytes, max, false)
}

/// As `check_len`; with `at_least`, `bytes` is a lower bound.
pub fn check_least(
    what: &'static str,
    bytes: usize,
    max: usize,
    at_least: bool,
) -> Result<(), RecordError> {
    if bytes > max {
        return Err(RecordError::TooLarge {
            what,
            bytes: bytes as u64,
            max: max as u64,
            at_least,
        });
    }
    Ok(())
}

pub struct RecordWriter {
    path: PathBuf,
    file: File,
    /// The segment's (device, inode), for [`check_in_place`](Self::check_in_place).
    ident: Option<(u64, u64)>,
    journal_path: PathBuf,
    journal: File,
    /// Each series' kind, by id: what a tick's values are checked against
    /// (the names are in the file, and need not be held).
    catalogue: Kinds,
    pending: Vec<Tick>,
    /// Values in `pending`, against [`MAX_PENDING_VALUES`].
    pending_values: usize,
    seg_len: u64,
    /// Bytes in the journal: its header and the ticks since.
    journal_len: u64,
    last_wall_ms: i64,
    /// When a sync was last asked of `syncer`.
    last_sync: Instant,
    sync_every: Duration,
    syncer: Syncer,
    closed: bool,
    /// None until the first chunk: the next chunk is then a key chunk.
    ctx: Option<format::ChunkContext>,
    /// When the last key chunk started, the pending one included; None
    /// before the first chunk.
    last_key_ms: Option<i64>,
    /// Whether the pending ticks are a key chunk: decided by the first of
    /// them, so that what [`opens_key_chunk`](Self::opens_key_chunk) told
    /// the tick that opened it is what the frame says.
    pending_key: bool,
    /// Whether a delta chunk's counters carry on from the chunk before (see
    /// [`set_carry_counters`](Self::set_carry_counters)).
    carry: bool,
}

impl RecordWriter {
    /// Creates the segment at `path` and its journal beside it; an existing
    /// file is refused.
    pub fn create(
        path: &Path,
        start_wall_ms: i64,
        catalogue: &[SeriesDef],
    ) -> Result<Self, RecordError> {
        Self::create_in(path, start_wall_ms, catalogue, Existing::Refuse)
    }

    /// As [`create`](Self::create), saying what becomes of an existing
    /// finished recording; one in progress is always refused. A start that
    /// fails (a symbolic link for a journal, a full disk) leaves no file
    /// behind: an empty segment would refuse the next run as existing.
    pub fn create_in(
        path: &Path,
        start_wall_ms: i64,
        catalogue: &[SeriesDef],
        existing: Existing,
    ) -> Result<Self, RecordError> {
        let file = lock::open_segment(path, existing)?;
        let ident = lock::ident_of(&file);
        let jpath = journal_path(path);
        let mut journal_ident = None;
        let started = lock::open_private(&jpath).and_then(|journal| {
            journal_ident = lock::ident_of(&journal);
            Self::start((path, file, ident), (jpath.clone(), journal), start_wall_ms)
                .and_then(|w| w.begin(start_wall_ms, catalogue))
        });
        started.inspect_err(|_| {
            lock::remove_if_still(path, ident);
            lock::remove_if_still(&jpath, journal_ident);
        })
    }

    fn start(
        (path, file, ident): (&Path, File, Option<(u64, u64)>),
        (jpath, journal): (PathBuf, File),
        start_wall_ms: i64,
    ) -> Result<Self, RecordError> {
        let syncer = Syncer::start((&file, path), (&journal, &jpath))?;
        Ok(RecordWriter {
            path: path.to_path_buf(),
            file,
            ident,
            journal_path: jpath,
            journal,
            catalogue: Kinds::default(),
            pending: Vec::new(),
            pending_values: 0,
            seg_len: 0,
            journal_len: 0,
            last_wall_ms: start_wall_ms,
            last_sync: Instant::now(),
            sync_every: SYNC_EVERY,
            syncer,
            closed: false,
            ctx: None,
            last_key_ms: None,
            pending_key: false,
            carry: true,
        })
    }

    /// The header, the first catalogue and an empty journal, synced.
    fn begin(mut self, start_wall_ms: i64, catalogue: &[SeriesDef]) -> Result<Self, RecordError> {
        self.append(&format::encode_file_header(start_wall_ms))?;
        let catalogue: Vec<SeriesRef> = catalogue.iter().map(SeriesDef::as_ref).collect();
        self.catalogue.check_new(&catalogue)?;
        self.catalogue.add(&catalogue);
        self.append(&format::encode_frame(
            FrameKind::Catalogue,
            start_wall_ms,
            &format::encode_catalogue(&catalogue),
        ))?;
        self.reset_journal()?;
        self.sync()?;
        Ok(self)
    }

    /// Bytes committed to the segment (journal excluded): what a REC indicator shows.
    pub fn segment_len(&self) -> u64 {
        self.seg_len
    }

    /// Bytes in the journal, as written: what `stat` of it would say,
    /// without a system call a second.
    pub fn journal_len(&self) -> u64 {
        self.journal_len
    }

    /// Adds a series mid-recording.
    pub fn add_series(&mut self, s: SeriesDef) -> Result<(), RecordError> {
        self.add_all_series(std::slice::from_ref(&s))
    }

    /// Adds series mid-recording, in one catalogue frame. The pending ticks are
    /// committed first so that the journal never spans a frame of another kind (its
    /// base offset must stay the segment end).
    pub fn add_all_series(&mut self, defs: &[SeriesDef]) -> Result<(), RecordError> {
        let defs: Vec<SeriesRef> = defs.iter().map(SeriesDef::as_ref).collect();
        self.add_series_refs(&defs)
    }

    /// As [`add_all_series`](Self::add_all_series), the names borrowed.
    pub fn add_series_refs(&mut self, defs: &[SeriesRef<'_>]) -> Result<(), RecordError> {
        self.catalogue.check_new(defs)?;
        self.flush()?;
        // In frames a reader takes: the first tick of 100k devices names two
        // million series, more than one frame holds.
        let mut from = 0;
        let mut payload = Vec::new();
        while from < defs.len() {
            let mut bytes = 0;
            let mut to = from;
            while to < defs.len()
                && (to == from || bytes + def_len(&defs[to]) <= CATALOGUE_FRAME)
                && bytes < CATALOGUE_PART
            {
                bytes += def_len(&defs[to]);
                to += 1;
            }
            payload.clear();
            format::put_catalogue(&mut payload, &defs[from..to]);
            check_len("a catalogue frame", payload.len(), format::MAX_FRAME_LEN)?;
            self.append_frame_of(FrameKind::Catalogue, self.last_wall_ms, &payload)?;
            from = to;
        }
        self.reset_journal()?;
        self.catalogue.add(defs);
        Ok(())
    }

    /// Forgets series no tick will hold again (the recorder's, for names
    /// gone for its window): a tick holding one is then refused.
    pub fn forget(&mut self, ids: &[u32]) {
        self.catalogue.forget(ids);
    }

    /// Writes a marker's frame: the open-time scan lists markers without
    /// inflating a chunk.
    pub fn add_marker(&mut self, wall_ms: i64, label: &str) -> Result<(), RecordError> {
        self.append_frame(FrameKind::Marker, wall_ms, label.as_bytes())
    }

    fn append_frame(
        &mut self,
        kind: FrameKind,
        t0: i64,
        payload: &[u8],
    ) -> Result<(), RecordError> {
        self.flush()?;
        self.append(&format::encode_frame(kind, t0, payload))?;
        self.reset_journal()
    }

    /// With `false`, a delta chunk states each counter's first value in full
    /// instead of carrying on from the chunk before (its frame kind stays the
    /// delta chunk's, so seeks still start at the key chunks every
    /// [`format::KEY_SPAN_MS`]). Carrying is smaller (about a fifth of an hour of
    /// counters), but a delta chunk that carries reads only after the chunk
    /// before it: damage to one chunk then also costs the delta chunks up to
    /// the next key chunk. The app's recorder turns carrying off, so a damaged
    /// chunk costs its own values alone.
    pub fn set_carry_counters(&mut self, carry: bool) {
        self.carry = carry;
    }

    /// Whether a tick at `wall_ms` of `values` values would open a chunk
    /// rather than join the one being filled: a minute after the chunk's
    /// first (60 ticks of each source at 1 s), or when the pending ticks
    /// hold too many values. A tick stamped before the chunk's first joins
    /// it: inputs of different sources arrive a little out of order.
    pub fn opens_chunk(&self, wall_ms: i64, values: usize) -> bool {
        self.pending.first().is_none_or(|t| {
            wall_ms.saturating_sub(t.wall_ms) >= format::CHUNK_SPAN_MS || self.too_full_for(values)
        })
    }

    /// Whether a tick at `wall_ms` of `values` values would open a chunk
    /// only because the pending ticks hold too many values.
    pub fn opens_on_size(&self, wall_ms: i64, values: usize) -> bool {
        self.pending.first().is_some_and(|t| {
            wall_ms.saturating_sub(t.wall_ms) < format::CHUNK_SPAN_MS && self.too_full_for(values)
        })
    }

    /// Whether a tick of `values` values would take the pending ones past
    /// [`MAX_PENDING_VALUES`]. A tick without values (a restatement, which
    /// the recorder pushes after a flush) never closes a chunk on size.
    fn too_full_for(&self, values: usize) -> bool {
        self.pending_values > 0 && self.pending_values.saturating_add(values) > MAX_PENDING_VALUES
    }

    /// Whether a tick at `wall_ms` of `values` values would be the first of
    /// a key chunk, which a reader seeking there decodes with nothing
    /// before it.
    pub fn opens_key_chunk(&self, wall_ms: i64, values: usize) -> bool {
        self.opens_chunk(wall_ms, values) && self.key_at(wall_ms)
    }

    /// Whether a chunk whose first tick is at `t0` is a key chunk: ten
    /// minutes after the last one began, or at once when the wall clock
    /// stepped back more than a chunk's minute before it (else the next
    /// would wait for the clock to come back).
    fn key_at(&self, t0: i64) -> bool {
        self.last_key_ms.is_none_or(|k| {
            t0.saturating_add(format::CHUNK_SPAN_MS) < k
                || t0.saturating_sub(k) >= format::KEY_SPAN_MS
        })
    }

    /// Records one tick; a series absent from `values` is recorded as absent.
    pub fn push(&mut self, wall_ms: i64, values: &[(u32, Value)]) -> Result<(), RecordError> {
        self.push_with(wall_ms, values, Vec::new())
    }

    /// As [`push`](Self::push), with the tick's non-numeric part.
    pub fn push_with(
        &mut self,
        wall_ms: i64,
        values: &[(u32, Value)],
        blob: Vec<u8>,
    ) -> Result<(), RecordError> {
        self.push_owned(wall_ms, values.to_vec(), blob)
    }

    /// As [`push_with`](Self::push_with), the values handed over: those of
    /// a first sample of 100k devices are 31 MB.
    pub fn push_owned(
        &mut self,
        wall_ms: i64,
        values: Vec<(u32, Value)>,
        blob: Vec<u8>,
    ) -> Result<(), RecordError> {
        check_len("a sample's shape", blob.len(), format::MAX_BLOB_LEN)?;
        let mut sorted = values;
        sorted.sort_by_key(|(id, _)| *id);
        self.catalogue.check_tick(&sorted)?;
        if self.opens_chunk(wall_ms, sorted.len()) {
            self.flush()?;
        }
        let tick = Tick {
            wall_ms,
            values: sorted,
            blob,
        };
        if self.pending.is_empty() {
            self.pending_key = self.key_at(wall_ms);
            if self.pending_key {
                self.last_key_ms = Some(wall_ms);
            }
        }
        // One write per tick: the whole record reaches the kernel or none of it
        // matters (a torn record fails its CRC and is the one tick lost).
        let head = format::encode_tick_head(&tick);
        let payload = [&head[..], &tick.blob];
        let len = format::RECORD_HEADER_LEN + head.len() + tick.blob.len();
        check_len("a sample's numbers", len, format::MAX_RECORD_LEN)?;
        let header = format::record_header(&payload);
        write_parts(&mut self.journal, &[&header, &head, &tick.blob])
            .map_err(RecordError::io("write", &self.journal_path))?;
        self.journal_len += len as u64;
        self.pending_values += tick.values.len();
        self.pending.push(tick);
        self.last_wall_ms = wall_ms;
        if self.pending.len() >= format::MAX_TICKS_PER_CHUNK {
            self.flush()?;
        }
        if let Some(e) = self.syncer.take_error() {
            return Err(e);
        }
        if self.last_sync.elapsed() >= self.sync_every && self.syncer.request(self.seg_len) {
            self.last_sync = Instant::now();
        }
        Ok(())
    }

    /// Commits the pending ticks as a (possibly short) chunk frame and restarts the
    /// journal. The frame is written before the journal restarts: a crash in between
    /// leaves a journal whose base no longer matches the segment end, which the reader
    /// then ignores, so no tick is read twice or lost.
    pub fn flush(&mut self) -> Result<(), RecordError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let t0 = self.pending[0].wall_ms;
        let key = self.pending_key;
        let ctx = self.ctx.as_ref().filter(|_| !key && self.carry);
        // The first chunk has no context and is a key chunk anyway.
        let kind = if key || self.ctx.is_none() {
            FrameKind::Chunk
        } else {
            FrameKind::DeltaChunk
        };
        let (raw, payload) = format::compress_chunk(&self.pending, ctx);
        check_len("a chunk of samples", raw, format::MAX_INFLATED_LEN)?;
        check_len("a compressed chunk", payload.len(), format::MAX_FRAME_LEN)?;
        self.append_frame_of(kind, t0, &payload)?;
        // What the next delta chunk would carry on from, when it carries:
        // a map of every counter (1.3 million in a first sample of 100k
        // devices) the recorder's chunks, which do not carry, never read.
        self.ctx = Some(if self.carry {
            format::ChunkContext::after(&self.pending)
        } else {
            format::ChunkContext::default()
        });
        self.pending.clear();
        self.pending_values = 0;
        self.reset_journal()
    }

    /// Flushes, writes the end frame, syncs and removes the journal.
    pub fn close(mut self) -> Result<(), RecordError> {
        self.end()
    }

    /// As [`close`](Self::close); a close that fails removes the file as
    /// [`discard`](Self::discard) does.
    pub fn close_or_discard(mut self) -> Result<(), RecordError> {
        self.end().inspect_err(|_| self.discard())
    }

    fn end(&mut self) -> Result<(), RecordError> {
        self.flush()?;
        self.append(&format::encode_frame(
            FrameKind::End,
            self.last_wall_ms,
            &[],
        ))?;
        if let Some(e) = self.syncer.stop() {
            return Err(e);
        }
        self.sync()?;
        self.closed = true;
        // A journal deleted under strata lost nothing: every tick is in
        // the segment now.
        match std::fs::remove_file(&self.journal_path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(RecordError::io("remove", &self.journal_path)(e))
            }
            _ => Ok(()),
        }
    }

    /// Whether the segment is still where it was created. One renamed is
    /// followed (its journal moved beside it when that name is free), as
    /// `tail -F` users expect: the name it had is returned. One deleted
    /// takes every later tick with it; its journal, which nothing can
    /// join to a segment any more, is removed.
    pub fn check_in_place(&mut self) -> Result<Option<PathBuf>, RecordError> {
        let here = match self.ident {
            Some(ident) => lock::still_is(ident, &self.path),
            None => lock::still_at(&self.file, &self.path),
        };
        let gone = match here {
            Ok(()) => return Ok(None),
            Err(e @ RecordError::Gone { .. }) => e,
            Err(e) => return Err(e),
        };
        let Some(now) = lock::named_now(&self.file) else {
            lock::remove_if_still(&self.journal_path, lock::ident_of(&self.journal));
            return Err(gone);
        };
        let jpath = journal_path(&now);
        // A link, not a rename: a file already at the new journal's name
        // is never replaced (the journal then stays where it was).
        if std::fs::hard_link(&self.journal_path, &jpath).is_ok() {
            let _ = std::fs::remove_file(&self.journal_path);
            self.journal_path = jpath;
        }
        Ok(Some(std::mem::replace(&mut self.path, now)))
    }

    /// Removes the segment and its journal, unfinished: a copy that could
    /// not be completed (`strata recover` onto a full disk) is not left as
    /// a file that reads as a recording.
    pub fn discard(&mut self) {
        self.closed = true;
        let _ = self.syncer.stop();
        lock::remove_if_still(&self.path, self.ident);
        lock::remove_if_still(&self.journal_path, lock::ident_of(&self.journal));
    }

    /// Where the segment is (see [`check_in_place`](Self::check_in_place)).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Time of the newest tick taken.
    pub fn last_wall_ms(&self) -> i64 {
        self.last_wall_ms
    }

    fn append(&mut self, bytes: &[u8]) -> Result<(), RecordError> {
        self.append_parts(&[bytes])
    }

    /// Appends the frame of `payload`, which is not copied.
    fn append_frame_of(
        &mut self,
        kind: FrameKind,
        t0: i64,
        payload: &[u8],
    ) -> Result<(), RecordError> {
        self.append_parts(&[&format::frame_header(kind, t0, payload), payload])
    }

    fn append_parts(&mut self, parts: &[&[u8]]) -> Result<(), RecordError> {
        write_parts(&mut self.file, parts).map_err(RecordError::io("write", &self.path))?;
        self.seg_len += parts.iter().map(|p| p.len() as u64).sum::<u64>();
        Ok(())
    }

    fn reset_journal(&mut self) -> Result<(), RecordError> {
        let p = &self.journal_path;
        self.journal
            .set_len(0)
            .map_err(RecordError::io("truncate", p))?;
        self.journal
            .seek(SeekFrom::Start(0))
            .map_err(RecordError::io("seek", p))?;
        let header = format::encode_journal_header(self.seg_len);
        self.journal
            .write_all(&header)
            .map_err(RecordError::io("write", p))?;
        self.journal_len = header.len() as u64;
        Ok(())
    }

    /// Syncs on this thread: at the start and at the close, where the
    /// caller waits for the recording to be on disk.
    fn sync(&mut self) -> Result<(), RecordError> {
        syncer::sync_data(&self.file, &self.path)?;
        syncer::sync_data(&self.journal, &self.journal_path)?;
        self.last_sync = Instant::now();
        Ok(())
    }

    /// Syncs asked of the sync thread as often as ticks come.
    #[cfg(test)]
    fn sync_every_tick(&mut self) {
        self.sync_every = Duration::ZERO;
    }
}

/// Each series' kind by id, ids ascending: a tick's values, ascending too,
/// are checked against it in one pass, and a recorder's new series (ids
/// above all before) join at its end. In a hash map, each value of a tick
/// of 100k devices was a read of a random place in 1.3 million.
#[derive(Debug, Default)]
struct Kinds(Vec<(u32, SeriesKind)>);

impl Kinds {
    /// Whether `defs` may be added: no id held already or given twice.
    fn check_new(&self, defs: &[SeriesRef<'_>]) -> Result<(), RecordError> {
        let held = |id: u32| self.0.binary_search_by_key(&id, |(i, _)| *i).is_ok();
        let after = |id: u32| self.0.last().is_none_or(|(last, _)| id > *last);
        if defs.is_sorted_by(|a, b| a.id < b.id) {
            // A recorder's: no repeat, and all new past the first.
            return match defs.first() {
                Some(d) if !after(d.id) => match defs.iter().find(|d| held(d.id)) {
                    Some(d) => Err(RecordError::DuplicateSeries(d.id)),
                    None => Ok(()),
                },
                _ => Ok(()),
            };
        }
        let mut ids: Vec<u32> = defs.iter().map(|d| d.id).collect();
        ids.sort_unstable();
        let twice = ids.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]);
        match defs.iter().map(|d| d.id).find(|id| held(*id)).or(twice) {
            Some(id) => Err(RecordError::DuplicateSeries(id)),
            None => Ok(()),
        }
    }

    /// Adds `defs`, checked by [`check_new`](Self::check_new).
    fn add(&mut self, defs: &[SeriesRef<'_>]) {
        let in_order = defs.is_sorted_by(|a, b| a.id < b.id)
            && defs
                .first()
                .is_none_or(|d| self.0.last().is_none_or(|(last, _)| d.id > *last));
        self.0.extend(defs.iter().map(|d| (d.id, d.kind)));
        if !in_order {
            self.0.sort_unstable_by_key(|(id, _)| *id);
        }
    }

    fn forget(&mut self, ids: &[u32]) {
        if ids.is_empty() {
            return;
        }
        let mut gone = ids.to_vec();
        gone.sort_unstable();
        self.0.retain(|(id, _)| gone.binary_search(id).is_err());
        self.0.shrink_to_fit();
    }

    /// Checks a tick's values, in ascending ids: each of a series held, of
    /// its kind, and once.
    fn check_tick(&self, values: &[(u32, Value)]) -> Result<(), RecordError> {
        let mut at = 0;
        let is = |at: usize, id: &u32| self.0.get(at).is_some_and(|(held, _)| held == id);
        for (i, (id, v)) in values.iter().enumerate() {
            // Most often the one after the last; else further on.
            if !is(at, id) {
                if is(at + 1, id) {
                    at += 1;
                } else {
                    at += self.0[at.min(self.0.len())..].partition_point(|(held, _)| held < id);
                }
            }
            let kind = match self.0.get(at) {
                Some((held, kind)) if held == id => *kind,
                _ => return Err(RecordError::UnknownSeries(*id)),
            };
            if kind != v.kind() {
                return Err(RecordError::KindMismatch {
                    id: *id,
                    expected: kind,
                });
            }
            if i > 0 && values[i - 1].0 == *id {
                return Err(RecordError::RepeatedInTick(*id));
            }
        }
        Ok(())
    }
}

/// `parts` end to end, in as few system calls as the kernel takes them
/// (one, up to 2 GB): what `write_all` of them joined would write, without
/// joining them.
fn write_parts(w: &mut impl Write, parts: &[&[u8]]) -> std::io::Result<()> {
    let mut slices: Vec<IoSlice> = parts.iter().map(|p| IoSlice::new(p)).collect();
    let mut left = &mut slices[..];
    IoSlice::advance_slices(&mut left, 0);
    while !left.is_empty() {
        match w.write_vectored(left) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut left, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl Drop for RecordWriter {
    /// A writer dropped without `close` (an error path, a panic) still commits what it
    /// holds; it writes no end frame, so the reader notes the file was not closed.
    fn drop(&mut self) {
        if !self.closed {
            let _ = self.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recfile::SeriesKind;

    /// A new recording at `path` of one counter, series 0.
    fn one_counter(path: &Path) -> RecordWriter {
        let def = SeriesDef {
            id: 0,
            name: "n".into(),
            kind: SeriesKind::Counter,
        };
        RecordWriter::create(path, 0, &[def]).unwrap()
    }

    /// The kinds held answer for every id as a map would, whether series
    /// come in ascending ids (a recorder's) or in any order, and through
    /// forgetting; a tick's unknown, mistyped and repeated values are
    /// refused as such.
    #[test]
    fn kinds_check_ticks_as_a_map_would() {
        let r = |id, kind| SeriesRef { id, name: "", kind };
        let (c, g) = (SeriesKind::Counter, SeriesKind::Gauge);
        let mut k = Kinds::default();
        let first = [r(2, c), r(4, g), r(6, c)];
        k.check_new(&first).unwrap();
        k.add(&first);
        let later = [r(9, g), r(1, c), r(5, c)];
        k.check_new(&later).unwrap();
        k.add(&later);
        for dup in [
            vec![r(7, c), r(4, c)],
            vec![r(8, c), r(3, c), r(8, g)],
            vec![r(3, c), r(6, c)],
        ] {
            assert!(
                matches!(k.check_new(&dup), Err(RecordError::DuplicateSeries(_))),
                "{dup:?}"
            );
        }
        let (cv, gv) = (Value::Counter(1), Value::Gauge(1.0));
        k.check_tick(&[(1, cv), (2, cv), (4, gv), (5, cv), (6, cv), (9, gv)])
            .unwrap();
        k.check_tick(&[(6, cv), (9, gv)]).unwrap();
        assert!(matches!(
            k.check_tick(&[(2, cv), (3, cv)]),
            Err(RecordError::UnknownSeries(3))
        ));
        assert!(matches!(
            k.check_tick(&[(4, cv)]),
            Err(RecordError::KindMismatch { id: 4, .. })
        ));
        assert!(matches!(
            k.check_tick(&[(5, cv), (5, cv)]),
            Err(RecordError::RepeatedInTick(5))
        ));
        assert!(matches!(
            k.check_tick(&[(10, cv)]),
            Err(RecordError::UnknownSeries(10))
        ));
        k.forget(&[9, 2]);
        assert!(matches!(
            k.check_tick(&[(2, cv)]),
            Err(RecordError::UnknownSeries(2))
        ));
        k.check_tick(&[(1, cv), (4, gv), (5, cv), (6, cv)]).unwrap();
    }

    /// The journal's length as the writer counts it is the file's, through
    /// ticks, a chunk's commit (which restarts the journal) and more ticks.
    #[test]
    fn the_journal_length_counted_is_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.strata");
        let mut w = one_counter(&path);
        let on_disk = || std::fs::metadata(journal_path(&path)).unwrap().len();
        assert_eq!(w.journal_len(), on_disk());
        for t in 0..3 {
            w.push_with(t * 1000, &[(0, Value::Counter(t as u64))], vec![1, 2])
                .unwrap();
            assert_eq!(w.journal_len(), on_disk());
        }
        w.flush().unwrap();
        assert_eq!(w.journal_len(), on_disk());
        w.push(4000, &[(0, Value::Counter(9))]).unwrap();
        assert_eq!(w.journal_len(), on_disk());
    }

    /// A tick no reader would take is refused, and what was recorded
    /// before it still reads: before, a million devices' shape was written,
    /// the reader passed over it as damage, and the run said "recording
    /// saved" of a file without a sample.
    #[test]
    fn a_tick_larger_than_a_reader_takes_is_refused_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.strata");
        let mut w = one_counter(&path);
        w.push(0, &[(0, Value::Counter(1))]).unwrap();
        let huge = vec![b'x'; format::MAX_BLOB_LEN + 1];
        let e = w.push_with(1000, &[(0, Value::Counter(2))], huge);
        assert!(
            matches!(e, Err(RecordError::TooLarge { bytes, .. }) if bytes == format::MAX_BLOB_LEN as u64 + 1),
            "{e:?}"
        );
        w.close().unwrap();
        let r = crate::recfile::RecordReader::open(&path).unwrap();
        assert!(r.notices().is_empty(), "{:?}", r.notices());
        let ticks = r.read_all().ticks;
        assert_eq!(ticks.len(), 1);
    }

    /// Syncs asked at every tick run on the sync thread while ticks go on
    /// and chunks commit (the journal restarting under a sync); the close
    /// waits for them, and every tick reads back.
    #[test]
    fn ticks_go_on_while_the_thread_syncs_and_all_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.strata");
        let mut w = one_counter(&path);
        w.sync_every_tick();
        let n = 3 * format::MAX_TICKS_PER_CHUNK as i64 + 7;
        for t in 0..n {
            w.push(t * 1000, &[(0, Value::Counter(t as u64))]).unwrap();
        }
        let start = Instant::now();
        while w.syncer.done() == 0 && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(w.syncer.done() > 0, "no sync ran on the thread");
        w.close().unwrap();
        let ticks = crate::recfile::RecordReader::open(&path)
            .unwrap()
            .read_all()
            .ticks;
        let times: Vec<i64> = ticks.iter().map(|t| t.wall_ms).collect();
        assert_eq!(times, (0..n).map(|t| t * 1000).collect::<Vec<_>>());
        assert!(!journal_path(&path).exists());
    }
}

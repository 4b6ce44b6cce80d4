//! Appends ticks to a recording. Each tick is written to the side journal at once (one
//! write(2), so a kill -9 of strata loses at most the tick being written: the kernel
//! holds the rest); once they span a minute the journal's ticks become one compressed chunk
//! frame in the segment and the journal restarts. `sync_data` runs at most every
//! [`SYNC_EVERY`], on a thread of its own ([`Syncer`]), which bounds what a power cut
//! (not a process kill) can lose; `close` syncs on the caller's thread.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::format::{self, FrameKind, SeriesDef, Tick, Value};
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

pub struct RecordWriter {
    path: PathBuf,
    file: File,
    /// The segment's (device, inode), for [`check_in_place`](Self::check_in_place).
    ident: Option<(u64, u64)>,
    journal_path: PathBuf,
    journal: File,
    catalogue: BTreeMap<u32, SeriesDef>,
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
    /// finished recording; one in progress is always refused.
    pub fn create_in(
        path: &Path,
        start_wall_ms: i64,
        catalogue: &[SeriesDef],
        existing: Existing,
    ) -> Result<Self, RecordError> {
        let file = lock::open_segment(path, existing)?;
        let ident = {
            use std::os::unix::fs::MetadataExt;
            file.metadata().ok().map(|m| (m.dev(), m.ino()))
        };
        let jpath = journal_path(path);
        let journal = lock::open_private(&jpath)?;
        let syncer = Syncer::start((&file, path), (&journal, &jpath))?;
        let mut w = RecordWriter {
            path: path.to_path_buf(),
            file,
            ident,
            journal_path: jpath,
            journal,
            catalogue: BTreeMap::new(),
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
        };
        w.append(&format::encode_file_header(start_wall_ms))?;
        for s in catalogue {
            w.check_new(s)?;
            w.catalogue.insert(s.id, s.clone());
        }
        w.append(&format::encode_frame(
            FrameKind::Catalogue,
            start_wall_ms,
            &format::encode_catalogue(catalogue),
        ))?;
        w.reset_journal()?;
        w.sync()?;
        Ok(w)
    }

    pub fn catalogue(&self) -> impl Iterator<Item = &SeriesDef> {
        self.catalogue.values()
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

    fn check_new(&self, s: &SeriesDef) -> Result<(), RecordError> {
        if self.catalogue.contains_key(&s.id) {
            return Err(RecordError::DuplicateSeries(s.id));
        }
        Ok(())
    }

    /// Adds a series mid-recording.
    pub fn add_series(&mut self, s: SeriesDef) -> Result<(), RecordError> {
        self.add_all_series(std::slice::from_ref(&s))
    }

    /// Adds series mid-recording, in one catalogue frame. The pending ticks are
    /// committed first so that the journal never spans a frame of another kind (its
    /// base offset must stay the segment end).
    pub fn add_all_series(&mut self, defs: &[SeriesDef]) -> Result<(), RecordError> {
        for (i, s) in defs.iter().enumerate() {
            self.check_new(s)?;
            if defs[..i].iter().any(|d| d.id == s.id) {
                return Err(RecordError::DuplicateSeries(s.id));
            }
        }
        let payload = format::encode_catalogue(defs);
        self.append_frame(FrameKind::Catalogue, self.last_wall_ms, &payload)?;
        for s in defs {
            self.catalogue.insert(s.id, s.clone());
        }
        Ok(())
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
        let mut sorted = values.to_vec();
        sorted.sort_by_key(|(id, _)| *id);
        for (i, (id, v)) in sorted.iter().enumerate() {
            let def = self
                .catalogue
                .get(id)
                .ok_or(RecordError::UnknownSeries(*id))?;
            if def.kind != v.kind() {
                return Err(RecordError::KindMismatch {
                    id: *id,
                    expected: def.kind,
                });
            }
            if i > 0 && sorted[i - 1].0 == *id {
                return Err(RecordError::RepeatedInTick(*id));
            }
        }
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
        let rec = format::encode_record(&format::encode_tick(&tick));
        self.journal
            .write_all(&rec)
            .map_err(RecordError::io("write", &self.journal_path))?;
        self.journal_len += rec.len() as u64;
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
        let payload = format::compress(&format::encode_chunk(&self.pending, ctx));
        self.append(&format::encode_frame(kind, t0, &payload))?;
        self.ctx = Some(format::ChunkContext::after(&self.pending));
        self.pending.clear();
        self.pending_values = 0;
        self.reset_journal()
    }

    /// Flushes, writes the end frame, syncs and removes the journal.
    pub fn close(mut self) -> Result<(), RecordError> {
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
        std::fs::remove_file(&self.journal_path)
            .map_err(RecordError::io("remove", &self.journal_path))
    }

    /// Whether the segment is still where it was created: a file deleted or
    /// replaced under strata takes every later tick with it.
    pub fn check_in_place(&self) -> Result<(), RecordError> {
        match self.ident {
            Some(ident) => lock::still_is(ident, &self.path),
            None => lock::still_at(&self.file, &self.path),
        }
    }

    /// Time of the newest tick taken.
    pub fn last_wall_ms(&self) -> i64 {
        self.last_wall_ms
    }

    fn append(&mut self, bytes: &[u8]) -> Result<(), RecordError> {
        self.file
            .write_all(bytes)
            .map_err(RecordError::io("write", &self.path))?;
        self.seg_len += bytes.len() as u64;
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
    use crate::record::SeriesKind;

    /// A new recording at `path` of one counter, series 0.
    fn one_counter(path: &Path) -> RecordWriter {
        let def = SeriesDef {
            id: 0,
            name: "n".into(),
            kind: SeriesKind::Counter,
        };
        RecordWriter::create(path, 0, &[def]).unwrap()
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
        let ticks = crate::record::RecordReader::open(&path)
            .unwrap()
            .read_all()
            .ticks;
        let times: Vec<i64> = ticks.iter().map(|t| t.wall_ms).collect();
        assert_eq!(times, (0..n).map(|t| t * 1000).collect::<Vec<_>>());
        assert!(!journal_path(&path).exists());
    }
}

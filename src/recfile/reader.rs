//! Opens a recording, checks every frame's CRC, and reads ticks from it. Damage hides
//! neither what comes before it nor what comes after: the scan passes over a bad
//! frame to the next intact one, with a [`Notice`] and a [`Gap`], and everything
//! else still reads. Ticks still in the journal (the writer was killed before
//! committing its chunk) are appended after the last good frame.
//!
//! The segment is read a frame at a time, by offset: what stays in memory is
//! the index of its chunks (and markers, catalogue, journal ticks), never the
//! file, so a recording of any size opens, seeks and exports in bounded memory.

use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::format::{self, FileHeader, FrameKind, SeriesDef, Tick};
use super::{RecordError, journal_path};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeSource {
    Segment,
    Journal,
}

/// Why reading stopped early or what was odd, with the byte offset in the named file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub source: NoticeSource,
    pub offset: u64,
    pub reason: String,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let which = match self.source {
            NoticeSource::Segment => "recording",
            NoticeSource::Journal => "journal",
        };
        write!(f, "{which} at byte {}: {}", self.offset, self.reason)
    }
}

/// A chunk frame located by the open-time scan: seek reads `t0` without inflating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkRef {
    pub offset: u64,
    pub t0: i64,
    /// A key chunk decodes alone; a delta chunk needs the chunks back to a key one.
    pub key: bool,
    /// Offset and length of its payload in the segment.
    payload: (u64, usize),
}

#[derive(Debug, Clone, Default)]
pub struct Recording {
    pub ticks: Vec<Tick>,
    pub notices: Vec<Notice>,
}

pub struct RecordReader {
    header: FileHeader,
    bytes: Bytes,
    catalogue: Vec<SeriesDef>,
    /// The ids in `catalogue`: a recording whose devices are renamed all
    /// day defines series all day, and scanning the catalogue for each new
    /// one made reading it quadratic in its length.
    defined: HashSet<u32>,
    chunks: Vec<ChunkRef>,
    journal_ticks: Vec<Tick>,
    markers: Vec<(i64, String)>,
    notices: Vec<Notice>,
    gaps: Vec<Gap>,
    closed: bool,
}

/// A stretch of the segment that did not read (damage, a cut, or delta chunks
/// that depended on a chunk in it), with the times around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    /// Segment bytes `offset..end`.
    pub offset: u64,
    pub end: u64,
    /// The newest tick read before the gap and the first after it: what was
    /// lost lies strictly between (None: the gap is at the start or the end).
    pub last_before_ms: Option<i64>,
    pub first_after_ms: Option<i64>,
}

/// Where the segment's bytes come from: the file, read at an offset when
/// needed, or bytes already in memory (a fuzz target's).
enum Bytes {
    Mem(Vec<u8>),
    File { file: File, len: u64 },
}

impl Bytes {
    fn len(&self) -> u64 {
        match self {
            Bytes::Mem(d) => d.len() as u64,
            Bytes::File { len, .. } => *len,
        }
    }

    /// Up to `n` bytes from `offset`: fewer where the segment ends.
    fn read(&self, offset: u64, n: usize) -> std::io::Result<Vec<u8>> {
        let left = self.len().saturating_sub(offset);
        let n = usize::try_from(left).map_or(n, |left| n.min(left));
        match self {
            Bytes::Mem(d) => {
                let start = usize::try_from(offset).unwrap_or(d.len()).min(d.len());
                Ok(d[start..start + n.min(d.len() - start)].to_vec())
            }
            Bytes::File { file, .. } => {
                let mut buf = vec![0; n];
                let mut got = 0;
                // Each turn reads at least a byte or ends the loop.
                while got < n {
                    match file.read_at(&mut buf[got..], offset + got as u64) {
                        Ok(0) => break,
                        Ok(k) => got += k,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                buf.truncate(got);
                Ok(buf)
            }
        }
    }

    /// The frame at `pos` as its header's length says, or less: as many
    /// bytes as `format::decode_frame` needs to accept or refuse it.
    fn frame(&self, pos: u64) -> std::io::Result<Vec<u8>> {
        let head = self.read(pos, format::FRAME_HEADER_LEN)?;
        let len = match head.get(..4).map(|b| [b[0], b[1], b[2], b[3]]) {
            Some(b) => u32::from_le_bytes(b) as usize,
            None => return Ok(head),
        };
        if len > format::MAX_FRAME_LEN || head.len() < format::FRAME_HEADER_LEN {
            return Ok(head);
        }
        self.read(pos, format::FRAME_HEADER_LEN + len)
    }

    /// The first offset from `from` on where an intact frame starts (see
    /// [`format::frame_len_at`]), read a window at a time. Zeroes (a hole,
    /// a file extended and never written) hold no frame header, and are
    /// passed over a block at a time by a comparison, not byte by byte.
    fn next_frame(
        &self,
        from: u64,
        t0s: &std::ops::RangeInclusive<i64>,
        budget: &mut u64,
    ) -> Option<u64> {
        const WINDOW: usize = 1 << 20;
        const BLOCK: usize = 4096;
        static ZEROES: [u8; BLOCK] = [0; BLOCK];
        let mut w = from;
        while w < self.len() {
            let win = self.read(w, WINDOW + format::FRAME_HEADER_LEN).ok()?;
            let mut i = 0;
            while i < WINDOW.min(win.len()) {
                // The kind byte, 9th of a header, is never 0.
                let kind = i + 8;
                if kind % BLOCK == 0 && win.get(kind..kind + BLOCK) == Some(&ZEROES[..]) {
                    i += BLOCK;
                    continue;
                }
                if let Some(total) = format::frame_candidate_len(&win[i..], t0s) {
                    let at = w + i as u64;
                    let far;
                    let frame = match win.get(i..i + total) {
                        Some(f) => f,
                        None => {
                            far = self.read(at, total).ok()?;
                            &far[..]
                        }
                    };
                    if format::frame_len_at(frame, t0s, budget).is_some() {
                        return Some(at);
                    }
                }
                i += 1;
            }
            w += WINDOW as u64;
        }
        None
    }
}

fn notice(source: NoticeSource, offset: u64, reason: impl Into<String>) -> Notice {
    Notice {
        source,
        offset,
        reason: reason.into(),
    }
}

impl RecordReader {
    /// Fails only when nothing can be read: IO error, not a recording, unknown
    /// version, or a damaged file header. Everything else becomes a notice.
    pub fn open(path: &Path) -> Result<Self, RecordError> {
        // /dev/zero or a FIFO would be read without end. The length now: a
        // recording still being written is read as it is.
        let (file, len) = crate::core::userfile::open_regular(path).map_err(|e| {
            if crate::core::userfile::is_not_regular(&e) {
                RecordError::NotAFile(path.to_path_buf())
            } else {
                RecordError::io("open", path)(e)
            }
        })?;
        let journal = read_journal_file(&journal_path(path));
        Self::from_source(path, Bytes::File { file, len }, journal)
    }

    /// A recording already in memory (`path` names it in messages): what
    /// `open` reads, and what the fuzz target feeds.
    pub fn from_bytes(
        path: &Path,
        data: Vec<u8>,
        journal: Option<std::io::Result<Vec<u8>>>,
    ) -> Result<Self, RecordError> {
        Self::from_source(path, Bytes::Mem(data), journal)
    }

    fn from_source(
        path: &Path,
        bytes: Bytes,
        journal: Option<std::io::Result<Vec<u8>>>,
    ) -> Result<Self, RecordError> {
        let head = bytes
            .read(0, format::FILE_HEADER_LEN)
            .map_err(RecordError::io("read", path))?;
        let header = format::decode_file_header(&head).map_err(|source| RecordError::Format {
            path: path.to_path_buf(),
            source,
        })?;
        let mut r = RecordReader {
            header,
            bytes,
            catalogue: Vec::new(),
            defined: HashSet::new(),
            chunks: Vec::new(),
            journal_ticks: Vec::new(),
            markers: Vec::new(),
            notices: Vec::new(),
            gaps: Vec::new(),
            closed: false,
        };
        let valid_end = r.scan_frames();
        if !r.closed {
            r.notices.push(notice(
                NoticeSource::Segment,
                valid_end,
                "no end frame: the writer did not close the file (killed, crashed or still recording)",
            ));
            r.read_journal(valid_end, journal);
        }
        r.time_gaps();
        Ok(r)
    }

    /// Passes over an intact frame (its CRC matched, so its length field is
    /// the writer's) of a kind a later strata writes; returns its length.
    fn skip_unknown(&mut self, pos: u64, frame: &[u8], kind: u8) -> u64 {
        let n = frame
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map_or(self.bytes.len() - pos, |b: [u8; 4]| {
                (format::FRAME_HEADER_LEN + u32::from_le_bytes(b) as usize) as u64
            });
        self.note(
            NoticeSource::Segment,
            pos,
            format!("a frame of kind {kind}, which a later strata writes, is skipped"),
        );
        n
    }

    /// A catalogue frame's series; a second definition of one is noted.
    fn define(&mut self, pos: u64, defs: Vec<SeriesDef>) {
        for d in defs {
            if !self.defined.insert(d.id) {
                self.note(
                    NoticeSource::Segment,
                    pos,
                    format!(
                        "series {} defined twice; the first definition is kept",
                        d.id
                    ),
                );
            } else {
                self.catalogue.push(d);
            }
        }
    }

    /// Walks the frames; returns the offset just past the last good one.
    ///
    /// Damage does not end the walk: from a frame that fails, the walk looks at
    /// each following byte for the start of an intact frame (length within what
    /// remains, CRC32 matching) and carries on there. What lies between is one
    /// [`Gap`], which also takes in the delta chunks that counted on a chunk in
    /// it (their counters carry on from that chunk's, so they cannot be read;
    /// a delta chunk that carries nothing on reads, and the walk keeps it).
    fn scan_frames(&mut self) -> u64 {
        let len = self.bytes.len();
        let mut pos = format::FILE_HEADER_LEN as u64;
        let mut valid_end = pos;
        // The start of the damage being passed over, and why the first frame failed.
        let mut damage: Option<(u64, String)> = None;
        // Whether the last chunk read is whole, so a delta chunk can carry on from it.
        let mut carry = false;
        let start_ms = self.header.start_wall_ms;
        let t0s = start_ms.saturating_sub(format::RESYNC_T0_SPAN_MS)
            ..=start_ms.saturating_add(format::RESYNC_T0_SPAN_MS);
        let mut budget = format::RESYNC_CRC_BUDGET;
        let mut budget_spent = false;
        while pos < len {
            if self.closed {
                self.note(
                    NoticeSource::Segment,
                    pos,
                    "bytes after the end frame are ignored",
                );
                break;
            }
            let frame = match self.bytes.frame(pos) {
                Ok(f) => f,
                Err(e) => {
                    damage.get_or_insert((pos, format!("the file does not read: {e}")));
                    break;
                }
            };
            let step = match format::decode_frame(&frame, pos) {
                Ok((h, payload)) => match h.kind {
                    FrameKind::Catalogue => {
                        format::decode_catalogue(payload, pos + format::FRAME_HEADER_LEN as u64)
                            .map(|defs| (h, defs))
                    }
                    _ => Ok((h, Vec::new())),
                },
                // Intact (its CRC matched) but of a kind a later strata writes.
                Err(format::FormatError::UnknownFrameKind { kind, .. }) => {
                    pos += self.skip_unknown(pos, &frame, kind);
                    continue;
                }
                Err(e) => Err(e),
            };
            let (h, defs) = match step {
                Ok(ok) => ok,
                Err(e) => {
                    damage.get_or_insert((pos, e.to_string()));
                    // The next place an intact frame starts, or the end.
                    pos = self
                        .bytes
                        .next_frame(pos + 1, &t0s, &mut budget)
                        .unwrap_or(len);
                    budget_spent |= budget == 0;
                    continue;
                }
            };
            if let Some((from, why)) = damage.take() {
                self.damaged(from, pos, why);
                carry = false;
            }
            self.define(pos, defs);
            let payload = &frame[format::FRAME_HEADER_LEN..];
            carry = self.take_frame(h, payload, carry);
            pos += h.total_len();
            valid_end = pos;
        }
        if let Some((from, why)) = damage {
            self.damaged(from, len, why);
        }
        if budget_spent {
            self.note(
                NoticeSource::Segment,
                valid_end,
                "the search for intact frames after damage gave up: the file looks like frames \
                 almost everywhere (not a recording's damage)",
            );
        }
        valid_end
    }

    /// Indexes an intact frame (its header `h`); returns whether a delta
    /// chunk after it may carry on from it (`carry`: from the one before).
    fn take_frame(&mut self, h: format::FrameHeader, payload: &[u8], carry: bool) -> bool {
        let (pos, end) = (h.offset, h.offset + h.total_len());
        match h.kind {
            FrameKind::Catalogue => {}
            // After damage, a delta chunk reads only if it does not carry
            // counters on from the chunk before (the recorder's do not).
            FrameKind::DeltaChunk
                if !carry && format::decode_chunk_frame(payload, pos, None).is_err() =>
            {
                self.orphan(pos, end);
            }
            FrameKind::Chunk | FrameKind::DeltaChunk => {
                self.chunks.push(ChunkRef {
                    offset: pos,
                    t0: h.t0,
                    key: h.kind == FrameKind::Chunk,
                    payload: (pos + format::FRAME_HEADER_LEN as u64, payload.len()),
                });
                return true;
            }
            FrameKind::End => self.closed = true,
            FrameKind::Marker => {
                let label = String::from_utf8_lossy(payload).into_owned();
                self.markers.push((h.t0, label));
            }
        }
        carry
    }

    /// Bytes `from..to` of the segment did not read: a gap, with a notice.
    fn damaged(&mut self, from: u64, to: u64, why: String) {
        let reason = if to < self.bytes.len() {
            format!(
                "damaged up to byte {to} ({} bytes passed over), reading resumes there: {why}",
                to - from
            )
        } else {
            format!("reading stops here: {why}")
        };
        self.note(NoticeSource::Segment, from, reason);
        self.gaps.push(Gap {
            offset: from,
            end: to,
            last_before_ms: None,
            first_after_ms: None,
        });
    }

    /// A delta chunk right after a gap (or after such a chunk) joins the gap.
    fn orphan(&mut self, from: u64, to: u64) {
        match self.gaps.last_mut() {
            Some(g) if g.end == from => g.end = to,
            _ => {
                self.note(
                    NoticeSource::Segment,
                    from,
                    "a delta chunk whose chunk before is missing is passed over",
                );
                self.gaps.push(Gap {
                    offset: from,
                    end: to,
                    last_before_ms: None,
                    first_after_ms: None,
                });
            }
        }
    }

    /// Each gap's time range: the last tick before it and the first after it.
    fn time_gaps(&mut self) {
        let first_journal = self.journal_ticks.first().map(|t| t.wall_ms);
        for i in 0..self.gaps.len() {
            let g = self.gaps[i];
            let before = self.chunks.iter().rev().find(|c| c.offset < g.offset);
            let last_before_ms = before.and_then(|c| self.last_time_in(c));
            let first_after_ms = self
                .chunks
                .iter()
                .find(|c| c.offset >= g.end)
                .map(|c| c.t0)
                .or(first_journal);
            self.gaps[i].last_before_ms = last_before_ms;
            self.gaps[i].first_after_ms = first_after_ms;
        }
    }

    fn read_journal(&mut self, valid_end: u64, journal: Option<std::io::Result<Vec<u8>>>) {
        let buf = match journal {
            None => return,
            Some(Ok(b)) => b,
            Some(Err(e)) => {
                self.note(
                    NoticeSource::Journal,
                    0,
                    format!("cannot read the journal: {e}"),
                );
                return;
            }
        };
        let base = match format::decode_journal_header(&buf) {
            Ok(b) => b,
            Err(e) => {
                self.note(NoticeSource::Journal, 0, format!("journal not used: {e}"));
                return;
            }
        };
        if base < valid_end {
            // The writer committed these ticks as a frame and died before restarting
            // the journal: they are already read from the segment.
            return;
        }
        if base > valid_end {
            // The segment's end is damaged or cut; the journal's ticks come after
            // what is lost there, and are whole in themselves.
            let gap_known = self.gaps.last().is_some_and(|g| g.offset == valid_end);
            self.note(
                NoticeSource::Journal,
                0,
                format!(
                    "the journal continues the recording at byte {base}, but the recording \
                     is readable only up to byte {valid_end}: what lies between is lost"
                ),
            );
            if !gap_known {
                self.gaps.push(Gap {
                    offset: valid_end,
                    end: base,
                    last_before_ms: None,
                    first_after_ms: None,
                });
            }
        }
        let mut pos = format::JOURNAL_HEADER_LEN;
        let mut budget = format::RESYNC_CRC_BUDGET;
        while pos < buf.len() {
            let step = format::decode_record(&buf[pos..], pos as u64).and_then(|(p, n)| {
                format::decode_tick(p, (pos + format::RECORD_HEADER_LEN) as u64).map(|t| (t, n))
            });
            match step {
                Ok((t, n)) => {
                    self.journal_ticks.push(t);
                    pos += n;
                }
                Err(e) => {
                    // A torn last record is the usual case (a kill mid-write);
                    // anything after a bad record that is whole still reads.
                    let next = (pos + 1..buf.len())
                        .find(|&p| format::record_len_at(&buf[p..], &mut budget).is_some());
                    let reason = match next {
                        Some(p) => format!(
                            "damaged up to byte {p}, reading resumes there; the ticks there are lost: {e}"
                        ),
                        None => format!(
                            "the journal stops here; a tick cut short by a kill is lost: {e}"
                        ),
                    };
                    self.note(NoticeSource::Journal, pos as u64, reason);
                    match next {
                        Some(p) => pos = p,
                        None => break,
                    }
                }
            }
        }
    }

    fn note(&mut self, source: NoticeSource, offset: u64, reason: impl Into<String>) {
        self.notices.push(notice(source, offset, reason));
    }

    pub fn header(&self) -> FileHeader {
        self.header
    }

    /// Every series defined anywhere in the file, in order of definition.
    pub fn catalogue(&self) -> &[SeriesDef] {
        &self.catalogue
    }

    /// What the open-time scan found; decoding a chunk may add one more (see [`Ticks`]).
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// The stretches that did not read, in file order.
    pub fn gaps(&self) -> &[Gap] {
        &self.gaps
    }

    /// True when the file ends with the end frame a clean close writes.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    pub fn chunks(&self) -> &[ChunkRef] {
        &self.chunks
    }

    /// Every marker's time and label, in the order they were added.
    pub fn markers(&self) -> &[(i64, String)] {
        &self.markers
    }

    /// Ticks recovered from the journal, after the last committed chunk.
    pub fn journal_ticks(&self) -> &[Tick] {
        &self.journal_ticks
    }

    /// The newest tick's time: from the journal's ticks and the last chunk
    /// whose head reads, without decoding any chunk's values. A chunk that
    /// passed its CRC and still fails to decode further on is not noticed
    /// here but where it is read.
    pub fn last_wall_ms(&self) -> Option<i64> {
        let journal = self.journal_ticks.iter().map(|t| t.wall_ms).max();
        let chunks = self.chunks.iter().rev().find_map(|c| self.last_time_in(c));
        journal.max(chunks)
    }

    /// The newest tick's time in a chunk, from the head of its payload.
    fn last_time_in(&self, c: &ChunkRef) -> Option<i64> {
        let payload = self.bytes.read(c.payload.0, c.payload.1).ok()?;
        format::chunk_frame_times(&payload, c.offset)
            .ok()?
            .into_iter()
            .max()
    }

    /// A chunk's ticks, read from the segment and decoded after `ctx`.
    fn chunk_ticks(
        &self,
        c: &ChunkRef,
        ctx: Option<&format::ChunkContext>,
    ) -> Result<(Vec<Tick>, format::ChunkContext), String> {
        let payload = self
            .bytes
            .read(c.payload.0, c.payload.1)
            .map_err(|e| format!("it does not read: {e}"))?;
        if payload.len() < c.payload.1 {
            return Err("the file is shorter than when it was opened".into());
        }
        format::decode_chunk_frame(&payload, c.offset, ctx).map_err(|e| e.to_string())
    }

    /// Ticks from the first one at or after `wall_ms`, found by binary search on the
    /// frames' `t0` (wall times are assumed not to go back across chunks).
    pub fn seek(&self, wall_ms: i64) -> Ticks<'_> {
        Ticks {
            reader: self,
            cursor: self.cursor_at(wall_ms, wall_ms),
        }
    }

    /// A cursor at the key chunk that holds or precedes `key_for`, which yields
    /// the ticks from `from` on: a caller that needs what comes before a tick
    /// in its chunk (the recorder's shapes) passes `from` = i64::MIN.
    pub fn cursor_at(&self, key_for: i64, from: i64) -> TickCursor {
        let mut start = self
            .chunks
            .partition_point(|c| c.t0 <= key_for)
            .saturating_sub(1);
        while start > 0 && !self.chunks[start].key {
            start -= 1;
        }
        TickCursor {
            next_chunk: start,
            ctx: None,
            buf: Vec::new().into_iter(),
            journal_next: 0,
            from,
            done: false,
        }
    }

    pub fn ticks(&self) -> Ticks<'_> {
        self.seek(i64::MIN)
    }

    /// Every readable tick, and every notice (open-time and decode-time).
    pub fn read_all(&self) -> Recording {
        let mut rec = Recording {
            ticks: Vec::new(),
            notices: self.notices.clone(),
        };
        for t in self.ticks() {
            match t {
                Ok(t) => rec.ticks.push(t),
                Err(n) => rec.notices.push(n),
            }
        }
        rec
    }
}

/// Yields ticks, and an `Err(Notice)` for each chunk that passed its CRC and still
/// fails to decode (a writer bug, or a corruption CRC32 missed); reading goes on.
pub struct Ticks<'a> {
    reader: &'a RecordReader,
    cursor: TickCursor,
}

impl Iterator for Ticks<'_> {
    type Item = Result<Tick, Notice>;

    fn next(&mut self) -> Option<Self::Item> {
        self.cursor.next(self.reader)
    }
}

/// A position in a recording's ticks that borrows nothing, so a player can
/// keep it beside the reader.
#[derive(Debug, Clone)]
pub struct TickCursor {
    next_chunk: usize,
    buf: std::vec::IntoIter<Tick>,
    ctx: Option<format::ChunkContext>,
    journal_next: usize,
    from: i64,
    done: bool,
}

impl TickCursor {
    pub fn next(&mut self, r: &RecordReader) -> Option<Result<Tick, Notice>> {
        while !self.done {
            if let Some(t) = self.buf.next() {
                if t.wall_ms >= self.from {
                    return Some(Ok(t));
                }
                continue;
            }
            if let Some(c) = r.chunks.get(self.next_chunk) {
                self.next_chunk += 1;
                let ctx = self.ctx.as_ref().filter(|_| !c.key);
                match r.chunk_ticks(c, ctx) {
                    Ok((ticks, after)) => {
                        self.ctx = Some(after);
                        self.buf = ticks.into_iter();
                    }
                    Err(e) => {
                        // The chunk passed its CRC and still does not decode (a
                        // writer bug, or damage CRC32 missed): it is passed over,
                        // and a delta chunk after it, lacking its counters, fails
                        // the same way until the next key chunk.
                        self.ctx = None;
                        return Some(Err(notice(
                            NoticeSource::Segment,
                            c.offset,
                            format!("a chunk is passed over: {e}"),
                        )));
                    }
                }
                continue;
            }
            match r.journal_ticks.get(self.journal_next) {
                Some(t) => {
                    self.journal_next += 1;
                    if t.wall_ms >= self.from {
                        return Some(Ok(t.clone()));
                    }
                }
                None => self.done = true,
            }
        }
        None
    }
}
/// The most of a journal that is read: the writer's journal holds one
/// chunk's pending ticks (a bounded number of values) and no record is
/// longer than [`format::MAX_RECORD_LEN`], so a longer one is damage (or
/// not a journal) and its tail is left unread, as a cut journal's would be.
pub const MAX_JOURNAL_LEN: u64 = format::MAX_RECORD_LEN as u64;

/// The journal at `jpath`, at most [`MAX_JOURNAL_LEN`] bytes of it; None
/// when there is none.
fn read_journal_file(jpath: &Path) -> Option<std::io::Result<Vec<u8>>> {
    use std::io::Read;
    let file = match crate::core::userfile::open_regular(jpath) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return Some(Err(e)),
        Ok((f, _)) => f,
    };
    let mut buf = Vec::new();
    Some(
        file.take(MAX_JOURNAL_LEN)
            .read_to_end(&mut buf)
            .map(|_| buf),
    )
}

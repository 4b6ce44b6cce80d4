//! Opens a recording, checks every frame's CRC, and reads ticks from it. Damage never
//! hides what comes before it: the scan stops at the first bad frame with a [`Notice`]
//! and everything before still reads. Ticks still in the journal (the writer was
//! killed before committing its chunk) are appended after the last good frame.

use std::fmt;
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
    payload: (usize, usize),
}

#[derive(Debug, Clone, Default)]
pub struct Recording {
    pub ticks: Vec<Tick>,
    pub notices: Vec<Notice>,
}

pub struct RecordReader {
    header: FileHeader,
    data: Vec<u8>,
    catalogue: Vec<SeriesDef>,
    chunks: Vec<ChunkRef>,
    journal_ticks: Vec<Tick>,
    markers: Vec<(i64, String)>,
    notices: Vec<Notice>,
    closed: bool,
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
        // /dev/zero or a FIFO would be read without end.
        let meta = std::fs::metadata(path).map_err(RecordError::io("stat", path))?;
        if !meta.is_file() {
            return Err(RecordError::NotAFile(path.to_path_buf()));
        }
        let data = std::fs::read(path).map_err(RecordError::io("read", path))?;
        let jpath = journal_path(path);
        let journal = match std::fs::read(&jpath) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            other => Some(other),
        };
        Self::from_bytes(path, data, journal)
    }

    /// A recording already in memory (`path` names it in messages): what
    /// `open` reads, and what the fuzz target feeds.
    pub fn from_bytes(
        path: &Path,
        data: Vec<u8>,
        journal: Option<std::io::Result<Vec<u8>>>,
    ) -> Result<Self, RecordError> {
        let header = format::decode_file_header(&data).map_err(|source| RecordError::Format {
            path: path.to_path_buf(),
            source,
        })?;
        let mut r = RecordReader {
            header,
            data,
            catalogue: Vec::new(),
            chunks: Vec::new(),
            journal_ticks: Vec::new(),
            markers: Vec::new(),
            notices: Vec::new(),
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
        Ok(r)
    }

    /// Walks the frames; returns the offset just past the last good one.
    fn scan_frames(&mut self) -> u64 {
        let mut pos = format::FILE_HEADER_LEN;
        while pos < self.data.len() {
            if self.closed {
                self.note(
                    NoticeSource::Segment,
                    pos as u64,
                    "bytes after the end frame are ignored",
                );
                break;
            }
            let start = pos + format::FRAME_HEADER_LEN;
            // A catalogue that does not decode stops the read like a bad frame: the
            // chunks after it may name series it would have defined.
            let step =
                format::decode_frame(&self.data[pos..], pos as u64).and_then(|(h, payload)| {
                    let defs = match h.kind {
                        FrameKind::Catalogue => format::decode_catalogue(payload, start as u64)?,
                        _ => Vec::new(),
                    };
                    Ok((h, payload.len(), defs))
                });
            let (h, len, defs) = match step {
                Ok(ok) => ok,
                Err(e) => {
                    self.note(
                        NoticeSource::Segment,
                        pos as u64,
                        format!("reading stops here: {e}"),
                    );
                    break;
                }
            };
            for d in defs {
                if self.catalogue.iter().any(|c| c.id == d.id) {
                    self.note(
                        NoticeSource::Segment,
                        pos as u64,
                        format!(
                            "series {} defined twice; the first definition is kept",
                            d.id
                        ),
                    );
                } else {
                    self.catalogue.push(d);
                }
            }
            match h.kind {
                FrameKind::Catalogue => {}
                FrameKind::Chunk | FrameKind::DeltaChunk => self.chunks.push(ChunkRef {
                    offset: pos as u64,
                    t0: h.t0,
                    key: h.kind == FrameKind::Chunk,
                    payload: (start, start + len),
                }),
                FrameKind::End => self.closed = true,
                FrameKind::Marker => {
                    let label = &self.data[start..start + len];
                    let label = String::from_utf8_lossy(label).into_owned();
                    self.markers.push((h.t0, label));
                }
            }
            pos += h.total_len() as usize;
        }
        pos.min(self.data.len()) as u64
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
            self.note(
                NoticeSource::Journal,
                0,
                format!(
                    "journal not used: it continues the recording at byte {base}, \
                     but the recording is readable only up to byte {valid_end}"
                ),
            );
            return;
        }
        let mut pos = format::JOURNAL_HEADER_LEN;
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
                    self.note(
                        NoticeSource::Journal,
                        pos as u64,
                        format!("the journal stops here; a tick cut short by a kill is lost: {e}"),
                    );
                    break;
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
        let chunks = self.chunks.iter().rev().find_map(|c| {
            let payload = &self.data[c.payload.0..c.payload.1];
            format::chunk_frame_times(payload, c.offset)
                .ok()?
                .into_iter()
                .max()
        });
        journal.max(chunks)
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

/// Yields ticks, or one `Err(Notice)` where a chunk that passed its CRC still fails to
/// decode (a writer bug, or a corruption CRC32 missed) and then ends.
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
                match format::decode_chunk_frame(&r.data[c.payload.0..c.payload.1], c.offset, ctx) {
                    Ok((ticks, after)) => {
                        self.ctx = Some(after);
                        self.buf = ticks.into_iter();
                    }
                    Err(e) => {
                        self.done = true;
                        return Some(Err(notice(
                            NoticeSource::Segment,
                            c.offset,
                            format!("reading stops here: {e}"),
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

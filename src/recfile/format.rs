//! The byte layout of a recording: pure encode/decode functions, no IO.
//!
//! ```text
//! segment file  = file header (24 B) · frame*
//! file header   = "STRATREC" · u16 version · u16 flags(0) · i64 start_wall_ms · u32 crc32(previous 20 B)
//! frame         = u32 len · u32 crc32(kind · t0 · payload) · u8 kind · i64 t0 · payload[len]
//!   kind 1 catalogue: uvarint n · n × (uvarint id · u8 kind · uvarint name_len · name)   (raw)
//!   kind 2 chunk:     deflate(chunk), t0 = first tick's wall time, so seek reads headers only
//!   kind 3 end:       empty; written by a clean close, so a file cut at a frame boundary is still noticed
//!   kind 4 delta chunk: as 2, but counters may carry on from the previous chunk (flag bit3,
//!                     body only); one that carries none (the app's recorder's) reads alone
//!   kinds 6..=63:     reserved; a reader skips an intact frame of a kind it does not know
//!   kind 5 marker:    t0 = its time, payload = its label (UTF-8)
//! chunk         = uvarint n_ticks(1..=600) · wall times (zigzag first, then zigzag delta-of-delta)
//!                 · blobs (per tick: uvarint len · bytes)
//!                 · uvarint n_series · heads of all series, ids ascending · bodies, same order
//!   head          = uvarint id gap · u8 flags(bit0 gauge, bit1 gaps, bit2 whole) · [presence bitmap] · first
//!   counter u64:  head: uvarint first · zigzag first delta; body: zigzag delta-of-delta
//!                 (wrapping arithmetic, so a counter wrapping past u64::MAX is lossless)
//!   whole gauge:  all values whole within ±2^53: head zigzag first; body zigzag deltas
//!   float gauge:  head 8 B LE; body XOR with the previous bits: 0, or uvarint(xor >> tz) · u8 tz
//! journal file  = "STRATJNL" · u16 version · u16 0 · u64 base · u32 crc · record*
//! record        = u32 len · u32 crc32(payload) · tick
//! tick          = zigzag wall_ms · uvarint n · n × (uvarint id · u8 kind · uvarint | 8 B LE)
//!                 · uvarint blob_len · blob
//! ```
//!
//! Gauges are f64 and their "delta" is the XOR of the bit patterns (as in Gorilla): an
//! arithmetic float delta would round, and a recording must replay bit for bit. NaN and
//! ±inf therefore round-trip exactly; "absent" is a separate state (the presence bitmap).
//!
//! Every decoder here returns a typed error naming the byte offset and what it expected;
//! lengths and counts read from input are bounded before anything is allocated from them.

use std::io::{Read, Write};

use thiserror::Error;

pub const MAGIC: &[u8; 8] = b"STRATREC";
pub const JOURNAL_MAGIC: &[u8; 8] = b"STRATJNL";
/// Bumped on any change of layout; a reader refuses versions it does not know.
pub const VERSION: u16 = 1;
pub const FILE_HEADER_LEN: usize = 24;
pub const JOURNAL_HEADER_LEN: usize = 24;
pub const FRAME_HEADER_LEN: usize = 17;
pub const RECORD_HEADER_LEN: usize = 8;
/// Ticks of several sources interleave (each tick is one source's sample), so a
/// chunk is bounded by its wall-time span ([`CHUNK_SPAN_MS`]: a minute, big enough
/// for deflate to find the patterns) and by this count, which only a burst reaches.
pub const MAX_TICKS_PER_CHUNK: usize = 600;
/// A chunk is committed once its ticks span this much wall time.
pub const CHUNK_SPAN_MS: i64 = 60_000;
/// Bound on one tick's blob (its non-numeric part), against a corrupt length.
/// A frame's: the shape of 100k devices is 51 MB. (Before, 16 MiB, which
/// the shape of about 32k devices passed: an older strata passes over such
/// a tick, as it did over those its own writer wrote.)
pub const MAX_BLOB_LEN: usize = MAX_FRAME_LEN;
/// No honest frame or record comes near this; a bigger length is corruption, and the
/// bound keeps a flipped length bit from asking for gigabytes.
pub const MAX_FRAME_LEN: usize = 64 << 20;
/// Bound on an inflated chunk for the same reason (a deflate bomb in a corrupt file).
pub const MAX_INFLATED_LEN: usize = 256 << 20;
/// Bound on a journal record: one tick, whose blob may take a frame's
/// length and its numbers more (100k devices: two million of them).
pub const MAX_RECORD_LEN: usize = MAX_INFLATED_LEN;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum FormatError {
    #[error("at byte {offset}: the data ends, expected {expected}")]
    Truncated { offset: u64, expected: &'static str },
    #[error("at byte {offset}: not a strata recording (expected magic {expected:?})")]
    BadMagic { offset: u64, expected: &'static str },
    #[error("format version {found} is not supported: this strata reads version {supported}")]
    UnsupportedVersion { found: u16, supported: u16 },
    #[error(
        "at byte {offset}: checksum mismatch in {what} (stored {stored:08x}, computed {computed:08x})"
    )]
    BadCrc {
        offset: u64,
        what: &'static str,
        stored: u32,
        computed: u32,
    },
    #[error("at byte {offset}: {what} length {len} exceeds the limit {max}")]
    TooLong {
        offset: u64,
        what: &'static str,
        len: u64,
        max: u64,
    },
    #[error("at byte {offset}: unknown frame kind {kind}")]
    UnknownFrameKind { offset: u64, kind: u8 },
    #[error("at byte {offset}: malformed data, expected {expected}")]
    Malformed { offset: u64, expected: &'static str },
    #[error(
        "in the chunk of the frame at byte {frame_offset}, inflated byte {pos}: expected {expected}"
    )]
    BadChunk {
        frame_offset: u64,
        pos: u64,
        expected: &'static str,
    },
    #[error("at byte {offset}: the chunk does not inflate: {reason}")]
    Inflate { offset: u64, reason: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesKind {
    /// Monotone u64 (wraps allowed): delta-of-delta coded.
    Counter,
    /// Any f64: XOR coded.
    Gauge,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Counter(u64),
    Gauge(f64),
}

impl Value {
    pub fn kind(&self) -> SeriesKind {
        match self {
            Value::Counter(_) => SeriesKind::Counter,
            Value::Gauge(_) => SeriesKind::Gauge,
        }
    }

    /// Bitwise equality, so NaN == NaN: what a round trip must preserve.
    pub fn same_bits(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Counter(a), Value::Counter(b)) => a == b,
            (Value::Gauge(a), Value::Gauge(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesDef {
    pub id: u32,
    pub name: String,
    pub kind: SeriesKind,
}

/// A series to state, its name borrowed: the recorder holds its names end
/// to end, and a first sample of 100k devices states 1.3 million of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesRef<'a> {
    pub id: u32,
    pub name: &'a str,
    pub kind: SeriesKind,
}

impl SeriesDef {
    pub fn as_ref(&self) -> SeriesRef<'_> {
        SeriesRef {
            id: self.id,
            name: &self.name,
            kind: self.kind,
        }
    }
}

/// One sampling instant. Values are in ascending series id once decoded; a series
/// missing from `values` was absent at that tick. `blob` is the tick's non-numeric
/// part, opaque here (the recorder's shapes: names, text, errors).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tick {
    pub wall_ms: i64,
    pub values: Vec<(u32, Value)>,
    pub blob: Vec<u8>,
}

impl Tick {
    /// Bitwise equality of two ticks (NaN-aware), order of values included.
    pub fn same_bits(&self, other: &Tick) -> bool {
        self.wall_ms == other.wall_ms
            && self.blob == other.blob
            && self.values.len() == other.values.len()
            && self
                .values
                .iter()
                .zip(&other.values)
                .all(|((a, va), (b, vb))| a == b && va.same_bits(vb))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Catalogue = 1,
    /// Self-contained: seek starts decoding at one of these.
    Chunk = 2,
    End = 3,
    /// Counters carry on from the previous chunk (see [`ChunkContext`]).
    DeltaChunk = 4,
    /// A marker: t0 its time, the payload its label (UTF-8, raw).
    Marker = 5,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileHeader {
    pub version: u16,
    pub start_wall_ms: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    pub offset: u64,
    pub kind: FrameKind,
    pub t0: i64,
    pub len: u32,
}

impl FrameHeader {
    pub fn total_len(&self) -> u64 {
        FRAME_HEADER_LEN as u64 + u64::from(self.len)
    }
}

// ---------------------------------------------------------------- primitives

pub fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// A bounds-checked reader over a byte slice; `base` turns positions into file offsets.
/// A uvarint at the start of `buf` and its length in bytes.
pub fn get_uvarint(buf: &[u8]) -> Option<(u64, usize)> {
    let mut c = Cursor::new(buf, 0);
    let v = c.uvarint("uvarint").ok()?;
    Some((v, c.pos))
}

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    fn new(buf: &'a [u8], base: u64) -> Self {
        Cursor { buf, pos: 0, base }
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    fn truncated(&self, expected: &'static str) -> FormatError {
        FormatError::Truncated {
            offset: self.offset(),
            expected,
        }
    }

    fn malformed(&self, expected: &'static str) -> FormatError {
        FormatError::Malformed {
            offset: self.offset(),
            expected,
        }
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn bytes(&mut self, n: usize, expected: &'static str) -> Result<&'a [u8], FormatError> {
        if self.remaining() < n {
            return Err(self.truncated(expected));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N], FormatError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N, expected)?);
        Ok(a)
    }

    fn u8(&mut self, expected: &'static str) -> Result<u8, FormatError> {
        Ok(self.array::<1>(expected)?[0])
    }

    fn uvarint(&mut self, expected: &'static str) -> Result<u64, FormatError> {
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.u8(expected)?;
            // The 10th byte may only carry the top bit of a u64.
            if i == 9 && b > 1 {
                return Err(self.malformed(expected));
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.malformed(expected))
    }

    fn ivarint(&mut self, expected: &'static str) -> Result<i64, FormatError> {
        self.uvarint(expected).map(unzigzag)
    }

    /// A series id and its kind byte, as catalogue entries and journal values start.
    fn id_and_kind(&mut self) -> Result<(u32, SeriesKind), FormatError> {
        let id = u32::try_from(self.uvarint("series id")?)
            .map_err(|_| self.malformed("u32 series id"))?;
        let b = self.u8("series kind")?;
        Ok((id, kind_from(self, b)?))
    }

    /// A length-prefixed blob, bounded by what remains and by [`MAX_BLOB_LEN`].
    fn blob(&mut self) -> Result<Vec<u8>, FormatError> {
        let n = self.count(1, "blob length")?;
        if n > MAX_BLOB_LEN {
            return Err(self.malformed("blob within the length limit"));
        }
        Ok(self.bytes(n, "blob")?.to_vec())
    }

    /// A count that will size an allocation: each item takes at least `min_item`
    /// bytes, so more than the remaining bytes allow is corruption.
    fn count(&mut self, min_item: usize, expected: &'static str) -> Result<usize, FormatError> {
        let n = self.uvarint(expected)?;
        if n > (self.remaining() / min_item.max(1)) as u64 {
            return Err(self.malformed(expected));
        }
        Ok(n as usize)
    }
}

fn check_crc(offset: u64, what: &'static str, stored: u32, data: &[u8]) -> Result<(), FormatError> {
    let computed = crc32fast::hash(data);
    if stored != computed {
        return Err(FormatError::BadCrc {
            offset,
            what,
            stored,
            computed,
        });
    }
    Ok(())
}

// ---------------------------------------------------------------- file header

pub fn encode_file_header(start_wall_ms: i64) -> [u8; FILE_HEADER_LEN] {
    encode_prelude(MAGIC, start_wall_ms.to_le_bytes())
}

/// The file and journal headers share a layout: magic · version · flags · 8 B · crc.
fn encode_prelude(magic: &[u8; 8], rest: [u8; 8]) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[..8].copy_from_slice(magic);
    h[8..10].copy_from_slice(&VERSION.to_le_bytes());
    h[12..20].copy_from_slice(&rest);
    let crc = crc32fast::hash(&h[..20]);
    h[20..24].copy_from_slice(&crc.to_le_bytes());
    h
}

pub fn decode_file_header(buf: &[u8]) -> Result<FileHeader, FormatError> {
    let (version, rest) = decode_prelude(buf, MAGIC, "STRATREC", "file header")?;
    Ok(FileHeader {
        version,
        start_wall_ms: i64::from_le_bytes(rest),
    })
}

pub fn encode_journal_header(base: u64) -> [u8; JOURNAL_HEADER_LEN] {
    encode_prelude(JOURNAL_MAGIC, base.to_le_bytes())
}

/// The segment length the journal's ticks follow: they belong to the recording only
/// if the segment's valid end is exactly there (else a frame already holds them).
pub fn decode_journal_header(buf: &[u8]) -> Result<u64, FormatError> {
    let (_, rest) = decode_prelude(buf, JOURNAL_MAGIC, "STRATJNL", "journal header")?;
    Ok(u64::from_le_bytes(rest))
}

/// Magic, then version before the CRC: a future version may change everything after
/// the version field, and must still be refused by name rather than as "corrupt".
fn decode_prelude(
    buf: &[u8],
    magic: &[u8; 8],
    magic_name: &'static str,
    what: &'static str,
) -> Result<(u16, [u8; 8]), FormatError> {
    let mut c = Cursor::new(buf, 0);
    let m = c.array::<8>(what)?;
    if &m != magic {
        return Err(FormatError::BadMagic {
            offset: 0,
            expected: magic_name,
        });
    }
    let version = u16::from_le_bytes(c.array::<2>(what)?);
    if version != VERSION {
        return Err(FormatError::UnsupportedVersion {
            found: version,
            supported: VERSION,
        });
    }
    let _flags = c.array::<2>(what)?;
    let rest = c.array::<8>(what)?;
    let stored = u32::from_le_bytes(c.array::<4>(what)?);
    check_crc(20, what, stored, &buf[..20])?;
    Ok((version, rest))
}

// ---------------------------------------------------------------- frames

pub fn encode_frame(kind: FrameKind, t0: i64, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(FRAME_HEADER_LEN + payload.len());
    f.extend_from_slice(&frame_header(kind, t0, payload));
    f.extend_from_slice(payload);
    f
}

/// The header of the frame of `payload`, which follows it: a catalogue of
/// 1.3 million series is 58 MB, written as it is rather than copied.
pub fn frame_header(kind: FrameKind, t0: i64, payload: &[u8]) -> [u8; FRAME_HEADER_LEN] {
    let mut h = [0; FRAME_HEADER_LEN];
    h[..4].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    h[8] = kind as u8;
    h[9..].copy_from_slice(&t0.to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&h[8..]);
    crc.update(payload);
    h[4..8].copy_from_slice(&crc.finalize().to_le_bytes());
    h
}

/// Checks the frame starting at `buf[0]` (file offset `offset`) and returns its header
/// and payload. `Truncated` means a torn write: the frame's bytes never all arrived.
pub fn decode_frame(buf: &[u8], offset: u64) -> Result<(FrameHeader, &[u8]), FormatError> {
    let mut c = Cursor::new(buf, offset);
    let len = u32::from_le_bytes(c.array::<4>("frame length")?);
    if len as usize > MAX_FRAME_LEN {
        return Err(FormatError::TooLong {
            offset,
            what: "frame",
            len: u64::from(len),
            max: MAX_FRAME_LEN as u64,
        });
    }
    let stored = u32::from_le_bytes(c.array::<4>("frame checksum")?);
    let kind_byte = c.u8("frame kind")?;
    let t0 = i64::from_le_bytes(c.array::<8>("frame first wall time")?);
    let payload = c.bytes(len as usize, "frame payload")?;
    check_crc(
        offset,
        "frame",
        stored,
        &buf[8..FRAME_HEADER_LEN + len as usize],
    )?;
    let kind = match kind_byte {
        1 => FrameKind::Catalogue,
        2 => FrameKind::Chunk,
        3 => FrameKind::End,
        4 => FrameKind::DeltaChunk,
        5 => FrameKind::Marker,
        k => return Err(FormatError::UnknownFrameKind { offset, kind: k }),
    };
    Ok((
        FrameHeader {
            offset,
            kind,
            t0,
            len,
        },
        payload,
    ))
}

/// Whether an intact frame (of any kind, known or not) starts at `buf[0]`: its
/// kind is one a strata may write, its first wall time is within `t0s` (every
/// frame's is a time of its recording), its length fits what remains and its
/// CRC matches. The reader resynchronises after damage by trying this at each
/// byte: the cheap tests come first, and `crc_budget` (bytes, counted down)
/// bounds the CRCs a hostile file can make it compute, since each candidate
/// may name a length of megabytes.
pub fn frame_len_at(
    buf: &[u8],
    t0s: &std::ops::RangeInclusive<i64>,
    crc_budget: &mut u64,
) -> Option<usize> {
    let total = frame_candidate_len(buf, t0s)?;
    let head = buf.get(..FRAME_HEADER_LEN)?;
    let body = buf.get(8..total)?;
    let Some(left) = crc_budget.checked_sub(body.len() as u64) else {
        // Spent: no more CRCs, however short.
        *crc_budget = 0;
        return None;
    };
    *crc_budget = left;
    let stored = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    (crc32fast::hash(body) == stored).then_some(total)
}

/// The cheap half of [`frame_len_at`], from the frame header alone: the
/// frame's whole length if its kind, time and length are plausible. A
/// reader that holds a window of the file reads the rest only for these.
pub fn frame_candidate_len(buf: &[u8], t0s: &std::ops::RangeInclusive<i64>) -> Option<usize> {
    let head = buf.get(..FRAME_HEADER_LEN)?;
    if !(1..=MAX_FRAME_KIND).contains(&head[8]) {
        return None;
    }
    let mut t0 = [0u8; 8];
    t0.copy_from_slice(&head[9..17]);
    if !t0s.contains(&i64::from_le_bytes(t0)) {
        return None;
    }
    let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
    (len <= MAX_FRAME_LEN).then_some(FRAME_HEADER_LEN + len)
}

/// Frame kinds a later strata may add go up to this: a resync accepts a frame of
/// such a kind as a landing place (it is then skipped with a notice), so damage
/// before a new kind of frame does not also lose what follows it.
pub const MAX_FRAME_KIND: u8 = 63;

/// How far from the file header's start a frame's first wall time may be for
/// a resync to land on it: a recording spans hours or days, and twenty years
/// leave room for a clock set wrong, while random bytes fall in it about once
/// in ten million.
pub const RESYNC_T0_SPAN_MS: i64 = 20 * 366 * 86_400_000;

/// CRC bytes one open may spend looking for intact frames after damage: far
/// more than honest damage needs (a candidate with a plausible kind, time and
/// length is rare), and what a file built to look like frames everywhere gets.
pub const RESYNC_CRC_BUDGET: u64 = 1 << 30;

/// As [`frame_len_at`], for a journal record: its length and CRC.
pub fn record_len_at(buf: &[u8], crc_budget: &mut u64) -> Option<usize> {
    let head = buf.get(..RECORD_HEADER_LEN)?;
    let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
    if len == 0 || len > MAX_FRAME_LEN {
        return None;
    }
    let body = buf.get(RECORD_HEADER_LEN..RECORD_HEADER_LEN + len)?;
    let Some(left) = crc_budget.checked_sub(body.len() as u64) else {
        // Spent: no more CRCs, however short.
        *crc_budget = 0;
        return None;
    };
    *crc_budget = left;
    let stored = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    (crc32fast::hash(body) == stored).then_some(RECORD_HEADER_LEN + len)
}

// ---------------------------------------------------------------- catalogue

fn kind_byte(k: SeriesKind) -> u8 {
    match k {
        SeriesKind::Counter => 0,
        SeriesKind::Gauge => 1,
    }
}

fn kind_from(c: &Cursor, b: u8) -> Result<SeriesKind, FormatError> {
    match b {
        0 => Ok(SeriesKind::Counter),
        1 => Ok(SeriesKind::Gauge),
        _ => Err(c.malformed("series kind 0 (counter) or 1 (gauge)")),
    }
}

pub fn encode_catalogue(series: &[SeriesRef<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    put_catalogue(&mut out, series);
    out
}

/// Appends [`encode_catalogue`]'s bytes to `out`.
pub fn put_catalogue(out: &mut Vec<u8>, series: &[SeriesRef<'_>]) {
    let bytes: usize = series.iter().map(|s| 11 + s.name.len()).sum();
    out.reserve(bytes.saturating_add(10));
    put_uvarint(out, series.len() as u64);
    for s in series {
        put_uvarint(out, u64::from(s.id));
        out.push(kind_byte(s.kind));
        put_uvarint(out, s.name.len() as u64);
        out.extend_from_slice(s.name.as_bytes());
    }
}

pub fn decode_catalogue(payload: &[u8], base: u64) -> Result<Vec<SeriesDef>, FormatError> {
    let mut c = Cursor::new(payload, base);
    let n = c.count(3, "catalogue entry count")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let (id, kind) = c.id_and_kind()?;
        let len = c.count(1, "series name length")?;
        let name = std::str::from_utf8(c.bytes(len, "series name")?)
            .map_err(|_| c.malformed("UTF-8 series name"))?;
        out.push(SeriesDef {
            id,
            name: name.to_owned(),
            kind,
        });
    }
    if c.remaining() != 0 {
        return Err(c.malformed("end of catalogue"));
    }
    Ok(out)
}

// ---------------------------------------------------------------- chunks

/// How a column's values are coded; the flags byte carries it (bit0 gauge, bit2 integral).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Counter,
    /// A gauge whose values are all whole numbers within ±2^53 (queue depths, counts
    /// of things): coded as integer deltas, which compress far better than XORs.
    IntGauge,
    FloatGauge,
}

const TWO_53: f64 = 9_007_199_254_740_992.0;

fn is_integral(v: f64) -> bool {
    // The bits comparison rejects NaN, ±inf and -0.0, which must round-trip as themselves.
    v.abs() <= TWO_53 && ((v as i64) as f64).to_bits() == v.to_bits()
}

/// What a delta chunk's counters carry on from: each counter's last value and last
/// delta in the previous chunk. Storing a counter's first value absolute in every chunk
/// cost ~22% of an hour (a 44-bit total per series per minute); a key chunk every
/// [`KEY_SPAN_MS`] keeps seek to at most ten minutes of chunks decoded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkContext(std::collections::BTreeMap<u32, (u64, i64)>);

pub const KEY_EVERY: usize = 10;

/// How far apart key chunks start: [`KEY_EVERY`] chunks of a whole minute.
/// By time, not by chunk index: chunks committed early (on size, or before
/// a catalogue frame) would otherwise bring key chunks, and every stream's
/// shape restated, every few ticks.
pub const KEY_SPAN_MS: i64 = KEY_EVERY as i64 * CHUNK_SPAN_MS;

impl ChunkContext {
    /// Derived from a chunk's ticks alone, so writer and reader compute the same one.
    pub fn after(ticks: &[Tick]) -> Self {
        let mut m: std::collections::BTreeMap<u32, (u64, i64, bool)> = Default::default();
        for t in ticks {
            for &(id, v) in &t.values {
                if let Value::Counter(c) = v {
                    m.entry(id)
                        .and_modify(|e| *e = (c, c.wrapping_sub(e.0) as i64, true))
                        .or_insert((c, 0, false));
                }
            }
        }
        ChunkContext(
            m.into_iter()
                .map(|(id, (last, d, _))| (id, (last, d)))
                .collect(),
        )
    }
}

/// A chunk's bytes (see `write_chunk`).
pub fn encode_chunk(ticks: &[Tick], ctx: Option<&ChunkContext>) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_chunk(ticks, ctx, &mut out);
    out
}

/// A chunk's frame payload: [`compress`] of [`encode_chunk`], and the
/// chunk's length, without the chunk in memory whole (its blobs go to the
/// compressor as they are: the shape of a first sample of 100k devices is
/// 51 MB).
pub fn compress_chunk(ticks: &[Tick], ctx: Option<&ChunkContext>) -> (usize, Vec<u8>) {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing into a Vec cannot fail.
    let len = write_chunk(ticks, ctx, &mut e).unwrap_or(0);
    (len, e.finish().unwrap_or_default())
}

/// Writes a chunk's bytes to `w`, in parts; gives their count.
///
/// Series-major chunk: all the columns' heads (id, flags, presence, first values: the
/// high-entropy part) come before all their bodies (small deltas), so deflate's
/// adaptive Huffman tables see two homogeneous streams instead of a mix (measured on
/// the hour test before delta chunks: 2.28 MB/h interleaved, 2.19 MB/h split).
#[expect(
    clippy::too_many_lines,
    reason = "the chunk layout written in one pass, in the order decode_chunk_and_context reads it, so the two read side by side"
)]
fn write_chunk(
    ticks: &[Tick],
    ctx: Option<&ChunkContext>,
    w: &mut impl Write,
) -> std::io::Result<usize> {
    let mut out = Vec::new();
    let mut written = 0;
    put_uvarint(&mut out, ticks.len() as u64);
    let mut prev = 0i64;
    let mut prev_delta = 0i64;
    for (i, t) in ticks.iter().enumerate() {
        if i == 0 {
            put_uvarint(&mut out, zigzag(t.wall_ms));
        } else {
            let delta = t.wall_ms.wrapping_sub(prev);
            put_uvarint(&mut out, zigzag(delta.wrapping_sub(prev_delta)));
            prev_delta = delta;
        }
        prev = t.wall_ms;
    }
    for t in ticks {
        put_uvarint(&mut out, t.blob.len() as u64);
        w.write_all(&out)?;
        w.write_all(&t.blob)?;
        written += out.len() + t.blob.len();
        out.clear();
    }
    // Every value by series, then by tick: one sort of what the ticks hold
    // (runs of ascending ids, one a tick), not a map of a vector a series,
    // which for the 1.3 million series of a first sample of 100k devices
    // was a quarter of a second of allocations.
    let mut all: Vec<(u32, u32, Value)> =
        Vec::with_capacity(ticks.iter().map(|t| t.values.len()).sum());
    for (i, t) in ticks.iter().enumerate() {
        all.extend(t.values.iter().map(|&(id, v)| (id, i as u32, v)));
    }
    all.sort_by_key(|&(id, i, _)| (id, i));
    let cols = all.chunk_by(|a, b| a.0 == b.0);
    put_uvarint(&mut out, cols.clone().count() as u64);
    let mut body = Vec::new();
    let mut prev_id = 0u32;
    let mut slots: Vec<Option<Value>> = Vec::with_capacity(ticks.len());
    let mut raw: Vec<u64> = Vec::with_capacity(ticks.len());
    for col in cols {
        let id = col[0].0;
        // Of a series given twice in a tick, the last.
        slots.clear();
        slots.resize(ticks.len(), None);
        for &(_, i, v) in col {
            slots[i as usize] = Some(v);
        }
        put_uvarint(&mut out, u64::from(id - prev_id));
        prev_id = id;
        // The first present value's kind names the column; mixed kinds are refused
        // by the writer, and a stray one here is dropped rather than mis-coded.
        let kind = slots
            .iter()
            .flatten()
            .next()
            .map_or(SeriesKind::Counter, Value::kind);
        let keep = |s: &Option<Value>| s.is_some_and(|v| v.kind() == kind);
        raw.clear();
        raw.extend(slots.iter().flatten().filter_map(|v| match (v, kind) {
            (Value::Counter(c), SeriesKind::Counter) => Some(*c),
            (Value::Gauge(g), SeriesKind::Gauge) => Some(g.to_bits()),
            _ => None,
        }));
        let mode = match kind {
            SeriesKind::Counter => Mode::Counter,
            SeriesKind::Gauge if raw.iter().all(|b| is_integral(f64::from_bits(*b))) => {
                Mode::IntGauge
            }
            SeriesKind::Gauge => Mode::FloatGauge,
        };
        let gaps = raw.len() != ticks.len();
        let carried = match (mode, ctx) {
            (Mode::Counter, Some(ctx)) => ctx.0.get(&id).copied(),
            _ => None,
        };
        let flags = match mode {
            Mode::Counter if carried.is_some() => 8,
            Mode::Counter => 0,
            Mode::FloatGauge => 1,
            Mode::IntGauge => 5,
        } | if gaps { 2 } else { 0 };
        out.push(flags);
        if gaps {
            let mut bitmap = vec![0u8; ticks.len().div_ceil(8)];
            for (i, s) in slots.iter().enumerate() {
                if keep(s) {
                    bitmap[i / 8] |= 1 << (i % 8);
                }
            }
            out.extend_from_slice(&bitmap);
        }
        match mode {
            Mode::Counter if carried.is_some() => {
                let (mut prev, mut prev_delta) = carried.unwrap_or_default();
                for &v in &raw {
                    let delta = v.wrapping_sub(prev) as i64;
                    put_uvarint(&mut body, zigzag(delta.wrapping_sub(prev_delta)));
                    (prev, prev_delta) = (v, delta);
                }
            }
            Mode::Counter => {
                let mut prev_delta = 0i64;
                for (k, &v) in raw.iter().enumerate() {
                    match k {
                        0 => put_uvarint(&mut out, v),
                        _ => {
                            let delta = v.wrapping_sub(raw[k - 1]) as i64;
                            // The first delta is a rate: high entropy, so it goes in the head.
                            let dst = if k == 1 { &mut out } else { &mut body };
                            put_uvarint(dst, zigzag(delta.wrapping_sub(prev_delta)));
                            prev_delta = delta;
                        }
                    }
                }
            }
            Mode::IntGauge => {
                let int = |b: u64| f64::from_bits(b) as i64;
                for (k, &v) in raw.iter().enumerate() {
                    match k {
                        0 => put_uvarint(&mut out, zigzag(int(v))),
                        _ => put_uvarint(&mut body, zigzag(int(v).wrapping_sub(int(raw[k - 1])))),
                    }
                }
            }
            Mode::FloatGauge => {
                for (k, &bits) in raw.iter().enumerate() {
                    if k == 0 {
                        out.extend_from_slice(&bits.to_le_bytes());
                        continue;
                    }
                    let x = bits ^ raw[k - 1];
                    if x == 0 {
                        body.push(0);
                    } else {
                        let tz = x.trailing_zeros();
                        put_uvarint(&mut body, x >> tz);
                        body.push(tz as u8);
                    }
                }
            }
        }
    }
    w.write_all(&out)?;
    w.write_all(&body)?;
    Ok(written + out.len() + body.len())
}

/// A column's head, read before any body: where its values go and how they start.
struct ColHead {
    id: u32,
    mode: Mode,
    carried: Option<(u64, i64)>,
    present: Vec<usize>,
    first: u64,
    first_delta: i64,
}

/// A chunk's tick count and wall times, which open it.
fn wall_times(c: &mut Cursor) -> Result<Vec<i64>, FormatError> {
    let n = c.uvarint("tick count")?;
    if n == 0 || n > MAX_TICKS_PER_CHUNK as u64 {
        return Err(c.malformed("tick count 1..=600"));
    }
    let mut times = Vec::with_capacity(n as usize);
    let (mut prev, mut prev_delta) = (0i64, 0i64);
    for i in 0..n {
        let wall_ms = if i == 0 {
            c.ivarint("first wall time")?
        } else {
            let delta = prev_delta.wrapping_add(c.ivarint("wall time delta-of-delta")?);
            prev_delta = delta;
            prev.wrapping_add(delta)
        };
        prev = wall_ms;
        times.push(wall_ms);
    }
    Ok(times)
}

/// `ctx` is the context after the previous chunk for a delta chunk, None for a key chunk.
pub fn decode_chunk(buf: &[u8], ctx: Option<&ChunkContext>) -> Result<Vec<Tick>, FormatError> {
    decode_chunk_and_context(buf, ctx).map(|d| d.0)
}

/// As [`decode_chunk`], with the context after it (for the next chunk).
#[expect(
    clippy::too_many_lines,
    reason = "the chunk layout read in one pass, in the order encode_chunk writes it, so the two read side by side"
)]
pub fn decode_chunk_and_context(
    buf: &[u8],
    ctx: Option<&ChunkContext>,
) -> Result<(Vec<Tick>, ChunkContext), FormatError> {
    let mut c = Cursor::new(buf, 0);
    let mut ticks: Vec<Tick> = wall_times(&mut c)?
        .into_iter()
        .map(|wall_ms| Tick {
            wall_ms,
            ..Tick::default()
        })
        .collect();
    let n = ticks.len();
    for t in &mut ticks {
        t.blob = c.blob()?;
    }
    let n_series = c.count(3, "series count")?;
    let mut heads = Vec::with_capacity(n_series);
    let mut id = 0u32;
    for s in 0..n_series {
        let gap = c.uvarint("series id gap")?;
        if s > 0 && gap == 0 {
            return Err(c.malformed("ascending series ids"));
        }
        id = u32::try_from(u64::from(id) + gap).map_err(|_| c.malformed("u32 series id"))?;
        let flags = c.u8("series flags")?;
        let mut carried = None;
        let mode = match flags & !2 {
            0 => Mode::Counter,
            8 => {
                carried = ctx.and_then(|x| x.0.get(&id).copied());
                if carried.is_none() {
                    return Err(c.malformed("a counter the previous chunk holds (delta chunk)"));
                }
                Mode::Counter
            }
            1 => Mode::FloatGauge,
            5 => Mode::IntGauge,
            _ => return Err(c.malformed("series flags 0, 1, 5 or 8, with bit 1 for gaps")),
        };
        let present: Vec<usize> = if flags & 2 != 0 {
            let bitmap = c.bytes(n.div_ceil(8), "presence bitmap")?;
            (0..n)
                .filter(|i| bitmap[i / 8] & (1 << (i % 8)) != 0)
                .collect()
        } else {
            (0..n).collect()
        };
        let (mut first, mut first_delta) = (0, 0);
        if !present.is_empty() && carried.is_none() {
            first = match mode {
                Mode::Counter => c.uvarint("first counter value")?,
                Mode::IntGauge => c.uvarint("first gauge value")?,
                Mode::FloatGauge => u64::from_le_bytes(c.array::<8>("first gauge value")?),
            };
            if mode == Mode::Counter && present.len() > 1 {
                first_delta = c.ivarint("first counter delta")?;
            }
        }
        heads.push(ColHead {
            id,
            mode,
            carried,
            present,
            first,
            first_delta,
        });
    }
    for h in &heads {
        if let Some((mut prev, mut delta)) = h.carried {
            for &i in &h.present {
                delta = delta.wrapping_add(c.ivarint("counter delta-of-delta")?);
                prev = prev.wrapping_add(delta as u64);
                ticks[i].values.push((h.id, Value::Counter(prev)));
            }
            continue;
        }
        let Some((&i0, rest)) = h.present.split_first() else {
            continue;
        };
        match h.mode {
            Mode::Counter => {
                let (mut prev, mut delta) = (h.first, h.first_delta);
                ticks[i0].values.push((h.id, Value::Counter(prev)));
                for (k, &i) in rest.iter().enumerate() {
                    if k > 0 {
                        delta = delta.wrapping_add(c.ivarint("counter delta-of-delta")?);
                    }
                    prev = prev.wrapping_add(delta as u64);
                    ticks[i].values.push((h.id, Value::Counter(prev)));
                }
            }
            Mode::IntGauge => {
                let mut prev = unzigzag(h.first);
                let mut push = |i: usize, v: i64, c: &Cursor| {
                    if (v as f64).abs() > TWO_53 {
                        return Err(c.malformed("whole gauge value within ±2^53"));
                    }
                    ticks[i].values.push((h.id, Value::Gauge(v as f64)));
                    Ok(())
                };
                push(i0, prev, &c)?;
                for &i in rest {
                    prev = prev.wrapping_add(c.ivarint("gauge delta")?);
                    push(i, prev, &c)?;
                }
            }
            Mode::FloatGauge => {
                let mut prev = h.first;
                ticks[i0]
                    .values
                    .push((h.id, Value::Gauge(f64::from_bits(prev))));
                for &i in rest {
                    let v = c.uvarint("gauge xor")?;
                    if v != 0 {
                        let tz = u32::from(c.u8("gauge xor shift")?);
                        if tz > 63 || v.leading_zeros() < tz {
                            return Err(c.malformed("gauge xor shift within 64 bits"));
                        }
                        prev ^= v << tz;
                    }
                    ticks[i]
                        .values
                        .push((h.id, Value::Gauge(f64::from_bits(prev))));
                }
            }
        }
    }
    if c.remaining() != 0 {
        return Err(c.malformed("end of chunk"));
    }
    let ctx = context_of(&heads, &ticks);
    Ok((ticks, ctx))
}

/// [`ChunkContext::after`] the ticks just decoded, from their columns: the
/// last two values of each counter column, found by the column's presence
/// (a tick's values are in column order), instead of a map insert per value.
fn context_of(heads: &[ColHead], ticks: &[Tick]) -> ChunkContext {
    let value = |i: usize, id: u32| {
        let vals = &ticks[i].values;
        match vals.binary_search_by_key(&id, |v| v.0).map(|at| vals[at].1) {
            Ok(Value::Counter(c)) => Some(c),
            _ => None,
        }
    };
    ChunkContext(
        heads
            .iter()
            .filter(|h| h.mode == Mode::Counter)
            .filter_map(|h| {
                let (&last, rest) = h.present.split_last()?;
                let last_v = value(last, h.id)?;
                let delta = match rest.last() {
                    Some(&i) => last_v.wrapping_sub(value(i, h.id)?) as i64,
                    None => 0,
                };
                Some((h.id, (last_v, delta)))
            })
            .collect(),
    )
}

/// Deflate (flate2's pure-Rust miniz_oxide backend, already built for russh): within
/// the size budget, and no C build as zstd would need. Level 1, not 9: on the hour test
/// it is both faster and smaller (1.60 vs 1.68 MB), since lazy matching on small random
/// deltas buys nothing and perturbs the Huffman tables.
pub fn compress(raw: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing into a Vec cannot fail.
    let _ = e.write_all(raw);
    e.finish().unwrap_or_default()
}

/// Inflates at most `limit` bytes of a chunk frame's payload.
fn inflate(payload: &[u8], frame_offset: u64, limit: usize) -> Result<Vec<u8>, FormatError> {
    let mut raw = Vec::new();
    let mut d = flate2::read::DeflateDecoder::new(payload).take(limit as u64);
    d.read_to_end(&mut raw).map_err(|e| FormatError::Inflate {
        offset: frame_offset,
        reason: e.to_string(),
    })?;
    Ok(raw)
}

/// A decoding error inside an inflated chunk, named by its frame.
fn in_chunk(frame_offset: u64) -> impl Fn(FormatError) -> FormatError {
    move |e| match e {
        FormatError::Truncated { offset, expected }
        | FormatError::Malformed { offset, expected } => FormatError::BadChunk {
            frame_offset,
            pos: offset,
            expected,
        },
        other => other,
    }
}

/// Inflates a chunk frame's payload and decodes it; `frame_offset` names the
/// frame. Also gives the context after it.
pub fn decode_chunk_frame(
    payload: &[u8],
    frame_offset: u64,
    ctx: Option<&ChunkContext>,
) -> Result<(Vec<Tick>, ChunkContext), FormatError> {
    let raw = inflate(payload, frame_offset, MAX_INFLATED_LEN + 1)?;
    if raw.len() > MAX_INFLATED_LEN {
        return Err(FormatError::TooLong {
            offset: frame_offset,
            what: "inflated chunk",
            len: raw.len() as u64,
            max: MAX_INFLATED_LEN as u64,
        });
    }
    decode_chunk_and_context(&raw, ctx).map_err(in_chunk(frame_offset))
}

/// The wall times of a chunk frame's ticks, from the head of its payload
/// alone: what finding a recording's end needs, without its values.
pub fn chunk_frame_times(payload: &[u8], frame_offset: u64) -> Result<Vec<i64>, FormatError> {
    // The count and every time are varints of at most 10 bytes.
    let raw = inflate(payload, frame_offset, 10 * (MAX_TICKS_PER_CHUNK + 1))?;
    wall_times(&mut Cursor::new(&raw, 0)).map_err(in_chunk(frame_offset))
}

// ---------------------------------------------------------------- journal records

pub fn encode_tick(t: &Tick) -> Vec<u8> {
    let mut p = encode_tick_head(t);
    p.extend_from_slice(&t.blob);
    p
}

/// A tick's encoding but for its blob's bytes, which follow it: the blob
/// of a first sample of 100k devices is 51 MB, written as it is rather
/// than copied.
pub fn encode_tick_head(t: &Tick) -> Vec<u8> {
    let mut p = Vec::with_capacity(16 + t.values.len() * 6);
    put_uvarint(&mut p, zigzag(t.wall_ms));
    put_uvarint(&mut p, t.values.len() as u64);
    for &(id, v) in &t.values {
        put_uvarint(&mut p, u64::from(id));
        p.push(kind_byte(v.kind()));
        match v {
            Value::Counter(c) => put_uvarint(&mut p, c),
            Value::Gauge(g) => p.extend_from_slice(&g.to_bits().to_le_bytes()),
        }
    }
    put_uvarint(&mut p, t.blob.len() as u64);
    p
}

pub fn decode_tick(buf: &[u8], base: u64) -> Result<Tick, FormatError> {
    let mut c = Cursor::new(buf, base);
    let wall_ms = c.ivarint("tick wall time")?;
    let n = c.count(3, "tick value count")?;
    let mut values = Vec::with_capacity(n);
    for _ in 0..n {
        let (id, kind) = c.id_and_kind()?;
        let v = match kind {
            SeriesKind::Counter => Value::Counter(c.uvarint("counter value")?),
            SeriesKind::Gauge => Value::Gauge(f64::from_bits(u64::from_le_bytes(
                c.array::<8>("gauge value")?,
            ))),
        };
        values.push((id, v));
    }
    let blob = c.blob()?;
    if c.remaining() != 0 {
        return Err(c.malformed("end of tick"));
    }
    Ok(Tick {
        wall_ms,
        values,
        blob,
    })
}

/// A journal record: length and CRC, so a torn last record is told from a whole one.
pub fn encode_record(payload: &[u8]) -> Vec<u8> {
    let mut r = Vec::with_capacity(RECORD_HEADER_LEN + payload.len());
    r.extend_from_slice(&record_header(&[payload]));
    r.extend_from_slice(payload);
    r
}

/// The header of the record whose payload is `parts` end to end.
pub fn record_header(parts: &[&[u8]]) -> [u8; RECORD_HEADER_LEN] {
    let mut crc = crc32fast::Hasher::new();
    let mut len = 0usize;
    for p in parts {
        crc.update(p);
        len += p.len();
    }
    let mut h = [0; RECORD_HEADER_LEN];
    h[..4].copy_from_slice(&(len as u32).to_le_bytes());
    h[4..].copy_from_slice(&crc.finalize().to_le_bytes());
    h
}

/// Returns the record's payload and its total length.
pub fn decode_record(buf: &[u8], offset: u64) -> Result<(&[u8], usize), FormatError> {
    let mut c = Cursor::new(buf, offset);
    let len = u32::from_le_bytes(c.array::<4>("record length")?) as usize;
    if len > MAX_RECORD_LEN {
        return Err(FormatError::TooLong {
            offset,
            what: "journal record",
            len: len as u64,
            max: MAX_RECORD_LEN as u64,
        });
    }
    let stored = u32::from_le_bytes(c.array::<4>("record checksum")?);
    let payload = c.bytes(len, "record payload")?;
    check_crc(offset, "journal record", stored, payload)?;
    Ok((payload, RECORD_HEADER_LEN + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk compressed as it is written, its blobs as they are, is the
    /// compressed chunk, and its length the chunk's.
    #[test]
    fn a_chunk_compressed_in_parts_is_the_chunk_compressed() {
        let ticks: Vec<Tick> = (0..50)
            .map(|i| Tick {
                wall_ms: 1000 * i,
                values: vec![
                    (1, Value::Counter(7 * i as u64)),
                    (4, Value::Gauge(i as f64 / 3.0)),
                ],
                blob: format!("{{\"n\":{i}}}")
                    .repeat(1 + i as usize % 40)
                    .into_bytes(),
            })
            .collect();
        let ctx = ChunkContext::after(&ticks[..10]);
        for c in [None, Some(&ctx)] {
            let raw = encode_chunk(&ticks, c);
            assert_eq!(compress_chunk(&ticks, c), (raw.len(), compress(&raw)));
        }
    }

    /// A tick's record written in parts (its head, then its blob as it
    /// is) is the record of the tick, and a frame's header and payload are
    /// the frame.
    #[test]
    fn records_and_frames_in_parts_are_the_whole() {
        let t = Tick {
            wall_ms: -5,
            values: vec![(0, Value::Counter(u64::MAX)), (300, Value::Gauge(f64::NAN))],
            blob: vec![7; 300],
        };
        let head = encode_tick_head(&t);
        let parts = [&head[..], &t.blob];
        let rec = encode_record(&encode_tick(&t));
        assert_eq!(rec, [&record_header(&parts)[..], &head, &t.blob].concat());
        let (payload, len) = decode_record(&rec, 0).unwrap();
        assert_eq!(len, rec.len());
        assert!(decode_tick(payload, 0).unwrap().same_bits(&t));
        let frame = encode_frame(FrameKind::Catalogue, 9, &rec);
        assert_eq!(
            frame,
            [&frame_header(FrameKind::Catalogue, 9, &rec)[..], &rec].concat()
        );
        let (header, body) = decode_frame(&frame, 0).unwrap();
        assert_eq!(
            (header.kind, header.t0, body),
            (FrameKind::Catalogue, 9, &rec[..])
        );
    }

    #[test]
    fn varint_edges_round_trip() {
        for v in [0, 1, 127, 128, u64::MAX - 1, u64::MAX] {
            let mut b = Vec::new();
            put_uvarint(&mut b, v);
            assert_eq!(Cursor::new(&b, 0).uvarint("x"), Ok(v));
        }
        for v in [0, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        // 11 continuation bytes: refused, not looped on.
        assert!(Cursor::new(&[0xff; 11], 0).uvarint("x").is_err());
    }

    #[test]
    fn chunk_round_trips_wrap_gaps_and_nan() {
        let ticks: Vec<Tick> = (0..60)
            .map(|i| Tick {
                wall_ms: 1_000 * i,
                values: if i % 7 == 3 {
                    vec![(9, Value::Gauge(f64::NAN))]
                } else {
                    vec![
                        (
                            2,
                            Value::Counter((u64::MAX - 100).wrapping_add(37 * i as u64)),
                        ),
                        (9, Value::Gauge(i as f64 * 0.25)),
                    ]
                },
                blob: if i % 5 == 0 { vec![i as u8; 3] } else { vec![] },
            })
            .collect();
        let (back, after) = decode_chunk_and_context(&encode_chunk(&ticks, None), None).unwrap();
        assert_eq!(back.len(), ticks.len());
        for (a, b) in ticks.iter().zip(&back) {
            assert!(a.same_bits(b), "{a:?} != {b:?}");
        }
        // The decoder's context is the writer's.
        let ctx = ChunkContext::after(&ticks);
        assert_eq!(after, ctx);
        // The same ticks as a delta chunk after themselves: counter 2 carries on.
        let (back, after) =
            decode_chunk_and_context(&encode_chunk(&ticks, Some(&ctx)), Some(&ctx)).unwrap();
        assert_eq!(back.len(), ticks.len());
        for (a, b) in ticks.iter().zip(&back) {
            assert!(a.same_bits(b), "{a:?} != {b:?}");
        }
        assert_eq!(after, ctx);
        // A counter present once in a chunk carries no delta on; one absent
        // carries nothing.
        let once = [Tick {
            wall_ms: 5,
            values: vec![(2, Value::Counter(9))],
            blob: vec![],
        }];
        let (_, after) =
            decode_chunk_and_context(&encode_chunk(&once, Some(&ctx)), Some(&ctx)).unwrap();
        assert_eq!(after, ChunkContext::after(&once));
        assert_eq!(after.0.get(&2), Some(&(9, 0)));
    }

    /// A resync lands only on a frame whose kind, time, length and CRC hold,
    /// and spends no more CRC bytes than its budget.
    #[test]
    fn a_resync_candidate_is_checked_cheaply_first_and_within_a_budget() {
        let f = encode_frame(FrameKind::Marker, 5_000, &[7; 100]);
        let near = 0..=10_000;
        let mut budget = 1_000;
        assert_eq!(frame_len_at(&f, &near, &mut budget), Some(f.len()));
        assert_eq!(budget, 1_000 - (f.len() - 8) as u64);
        // A time far from the recording's: not even its CRC is computed.
        assert_eq!(frame_len_at(&f, &(20_000..=30_000), &mut budget), None);
        assert_eq!(budget, 1_000 - (f.len() - 8) as u64);
        // A CRC beyond the budget is not computed, and the budget is spent.
        let mut small = 50;
        assert_eq!(frame_len_at(&f, &near, &mut small), None);
        assert_eq!(small, 0);
        // One byte off: the CRC fails.
        let mut bad = f.clone();
        bad[40] ^= 1;
        assert_eq!(frame_len_at(&bad, &near, &mut 1_000), None);
        let r = encode_record(&[1, 2, 3]);
        assert_eq!(record_len_at(&r, &mut 100), Some(r.len()));
        assert_eq!(record_len_at(&r[..r.len() - 1], &mut 100), None);
    }

    #[test]
    fn a_chunks_times_read_alone_and_a_cut_head_says_so() {
        // The most ticks a chunk holds, with times far apart (the longest
        // varints), and values after them that the times must not need.
        let ticks: Vec<Tick> = (0..MAX_TICKS_PER_CHUNK as i64)
            .map(|i| Tick {
                wall_ms: i64::MIN / 2 + i * i * 7_919_000_000,
                values: vec![(1, Value::Counter(i as u64))],
                blob: vec![1; 40],
            })
            .collect();
        let payload = compress(&encode_chunk(&ticks, None));
        let want: Vec<i64> = ticks.iter().map(|t| t.wall_ms).collect();
        assert_eq!(chunk_frame_times(&payload, 99), Ok(want));
        // A delta chunk's times read without its context.
        let ctx = ChunkContext::after(&ticks);
        let delta = compress(&encode_chunk(&ticks[..3], Some(&ctx)));
        assert_eq!(
            chunk_frame_times(&delta, 0).map(|t| t.len()),
            Ok(3),
            "a delta chunk"
        );
        let cut = compress(&encode_chunk(&ticks, None)[..500]);
        assert!(matches!(
            chunk_frame_times(&cut, 7),
            Err(FormatError::BadChunk {
                frame_offset: 7,
                ..
            })
        ));
    }
}

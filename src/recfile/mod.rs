//! Recordings: an append-only segment file of checksummed, compressed frames of raw
//! samples, plus a side journal that makes each tick durable before its chunk is
//! committed. This module knows numbers and series ids only, not sources or screens.
//!
//! Layout and codec: [`mod@format`]; writing: [`writer`]; reading and recovery: [`reader`].
//! The app's inputs become ticks one level up, in [`crate::recording`].

pub mod format;
pub mod lock;
pub mod mark;
pub mod reader;
pub mod shape;
mod syncer;
pub mod writer;

use std::path::{Path, PathBuf};

pub use format::{FormatError, SeriesDef, SeriesKind, Tick, Value};
pub use lock::Existing;
pub use reader::{Gap, Notice, NoticeSource, RecordReader, Recording, TickCursor};
pub use writer::RecordWriter;

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{op} {path}: {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Format { path: PathBuf, source: FormatError },
    #[error("series {0} is not in the catalogue")]
    UnknownSeries(u32),
    #[error("series {0} is already in the catalogue")]
    DuplicateSeries(u32),
    #[error("series {id} is a {expected:?}, the value given is not")]
    KindMismatch { id: u32, expected: SeriesKind },
    #[error("series {0} appears twice in one tick")]
    RepeatedInTick(u32),
    #[error("{what} takes {}{bytes} bytes, over the {max} bytes a recording's reader takes: it is not recorded", if *.at_least { "at least " } else { "" })]
    TooLarge {
        what: &'static str,
        bytes: u64,
        max: u64,
        /// `bytes` is a lower bound, counted before the thing is made.
        at_least: bool,
    },
    #[error(
        "a series' name could not be held beside the {0} held (four billion at most, none over 4 GB)"
    )]
    NameNotHeld(u64),
    #[error("a sample does not serialize: {0}")]
    Encode(String),
    #[error("{} exists: strata never overwrites a recording (--force replaces a finished one)", .0.display())]
    Exists(PathBuf),
    #[error("{} is being recorded by {}: a recording in progress is never replaced", .path.display(), match .pid { Some(p) => format!("strata pid {p}"), None => "another process".to_owned() })]
    InProgress { path: PathBuf, pid: Option<u32> },
    #[error("{} is not a strata recording: --force replaces only a recording, never another file", .0.display())]
    NotARecording(PathBuf),
    #[error("{} is not a regular file: a recording is written only to a file of its own", .0.display())]
    NotRegular(PathBuf),
    #[error("{} is not a regular file: a recording is read from a file, not a device, FIFO or directory", .0.display())]
    NotAFile(PathBuf),
    #[error("{} was {how} while being recorded: what strata writes now reaches no file", .path.display())]
    Gone { path: PathBuf, how: &'static str },
}

impl RecordError {
    pub(crate) fn encode(e: serde_json::Error) -> RecordError {
        RecordError::Encode(e.to_string())
    }

    fn io(op: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> RecordError {
        let path = path.to_path_buf();
        move |source| RecordError::Io { op, path, source }
    }
}

/// The journal sits beside the segment: `rec.strata` → `rec.strata.journal`.
pub fn journal_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".journal");
    PathBuf::from(p)
}

//! The errors of reading: a line a parser rejected, and a read that failed.
//! Parsers, the root file system and every source return them; a layer's
//! input carries its source's as a [`SampleError`], which a recording can
//! store.

use std::fmt;
use std::path::PathBuf;

/// A line that could not be read, with enough context to find it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub struct ParseError {
    /// What was being parsed: a path such as `/proc/diskstats`.
    pub source_name: String,
    /// 1-based line number within the text.
    pub line_no: usize,
    /// The offending line, cut to a readable length.
    pub line: String,
    /// What the parser expected to find.
    pub expected: String,
}

impl ParseError {
    pub fn new(source_name: &str, line_no: usize, line: &str, expected: impl Into<String>) -> Self {
        let mut line = line.trim_end().to_string();
        if line.chars().count() > 120 {
            line = line.chars().take(117).collect::<String>() + "...";
        }
        ParseError {
            source_name: source_name.to_string(),
            line_no,
            line,
            expected: expected.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} line {}: expected {}: {:?}",
            self.source_name, self.line_no, self.expected, self.line
        )
    }
}

/// Why a source could not produce a sample.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read {path}: {err}")]
    Io {
        path: PathBuf,
        #[source]
        err: std::io::Error,
    },
    #[error(transparent)]
    Parse(#[from] ParseError),
}

/// Why a host layer has no sample, as its input carries it: what the live
/// loop hands the app, a recording stores, and the screen shows (by its
/// Display). A [`SourceError`] that serde can write: an `io::Error` cannot
/// be, so its kind is kept by name and its text as it read. Its Display is
/// the SourceError's, word for word.
///
/// Recordings made before errors were typed hold the error as its text, a
/// plain string (`{"Err": "cannot read ..."}`): that form reads as
/// [`SampleError::Text`], and `Text` writes it again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum SampleError {
    /// A file that could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The path as the screen shows it (`Path::display`).
        path: String,
        /// The `io::ErrorKind`'s name, such as `NotFound` or
        /// `PermissionDenied` (its variant's name, which does not change).
        kind: String,
        /// The `io::Error`'s text: `No such file or directory (os error 2)`.
        message: String,
    },
    #[error(transparent)]
    Parse(ParseError),
    /// The layer's sampler ended: a reader panicked, or its task stopped.
    #[error("the {sampler} sampler {how}; restart strata to sample it again")]
    Ended {
        /// The layer's noun: `disk`, `NFS`, `page cache`, `NIC`.
        sampler: String,
        /// `panicked` or `stopped`.
        how: String,
    },
    /// An error known only by its text: one a recording made before errors
    /// were typed holds (written as a plain string, as it was then).
    #[error("{0}")]
    #[serde(untagged)]
    Text(String),
}

/// The kinds an `io::Error` of a read has, by the names [`SampleError::Io`]
/// keeps them under.
const IO_KINDS: [std::io::ErrorKind; 14] = {
    use std::io::ErrorKind as K;
    [
        K::NotFound,
        K::PermissionDenied,
        K::InvalidData,
        K::InvalidInput,
        K::Interrupted,
        K::TimedOut,
        K::WouldBlock,
        K::UnexpectedEof,
        K::Unsupported,
        K::OutOfMemory,
        K::NotADirectory,
        K::IsADirectory,
        K::StaleNetworkFileHandle,
        K::ResourceBusy,
    ]
};

impl SampleError {
    /// The `io::ErrorKind` of a read that failed: `None` for the other
    /// errors, `Some(Other)` for a kind of no name this build knows.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        let SampleError::Io { kind, .. } = self else {
            return None;
        };
        let known = IO_KINDS.into_iter().find(|k| kind_name(*k) == *kind);
        Some(known.unwrap_or(std::io::ErrorKind::Other))
    }
}

/// The name an error of a read keeps its `io::ErrorKind` under, here and
/// in a watched file's error: the variant's name, which does not change
/// between Rust releases as the kind's text may.
pub fn kind_name(kind: std::io::ErrorKind) -> String {
    format!("{kind:?}")
}

impl From<SourceError> for SampleError {
    fn from(e: SourceError) -> Self {
        match e {
            SourceError::Io { path, err } => SampleError::Io {
                path: path.display().to_string(),
                kind: kind_name(err.kind()),
                message: err.to_string(),
            },
            SourceError::Parse(p) => SampleError::Parse(p),
        }
    }
}

/// `From<String>` and `From<&str>` give an error type's `Text` variant:
/// the plain string a recording made before the type was typed holds, and
/// what a caller with only a sentence has.
macro_rules! from_text {
    ($($t:ty),*) => {$(
        impl From<String> for $t {
            fn from(text: String) -> Self {
                Self::Text(text)
            }
        }
        impl From<&str> for $t {
            fn from(text: &str) -> Self {
                Self::Text(text.to_string())
            }
        }
    )*};
}
pub(crate) use from_text;

from_text!(SampleError);

/// The check every typed error with a `Text` fallback passes: each case
/// says the sentence its string said, goes through serde and back, and
/// that sentence as an old recording holds it (a plain string) reads as
/// `Text` and is written back as the same string.
#[cfg(test)]
pub(crate) fn says_and_reads_old<E>(cases: impl IntoIterator<Item = (E, String)>)
where
    E: std::fmt::Display
        + std::fmt::Debug
        + PartialEq
        + serde::Serialize
        + serde::de::DeserializeOwned
        + From<String>,
{
    for (e, text) in cases {
        assert_eq!(e.to_string(), text, "{e:?}");
        let json = serde_json::to_value(&e).unwrap();
        let back: E = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, e, "{json}");
        let old = serde_json::Value::String(text.clone());
        let read: E = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(read, E::from(text), "{old}");
        assert_eq!(serde_json::to_value(&read).unwrap(), old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    fn io(kind: io::ErrorKind, raw: Option<i32>) -> SourceError {
        let err = match raw {
            Some(code) => io::Error::from_raw_os_error(code),
            None => io::Error::new(kind, "not in the host's last frame from its sampler"),
        };
        SourceError::Io {
            path: PathBuf::from("/srv/x/proc/self/mountstats"),
            err,
        }
    }

    /// The screen prints a layer's error by its Display: the typed error
    /// says what the SourceError said, for reads and for parses.
    #[test]
    fn says_what_the_source_error_said() {
        let cases = [
            io(io::ErrorKind::NotFound, Some(libc::ENOENT)),
            io(io::ErrorKind::PermissionDenied, Some(libc::EACCES)),
            io(io::ErrorKind::NotFound, None),
            SourceError::Parse(ParseError::new("/proc/uptime", 1, "garbage", "seconds")),
        ];
        for e in cases {
            let said = e.to_string();
            assert_eq!(SampleError::from(e).to_string(), said);
        }
        let e = SampleError::from(io(io::ErrorKind::PermissionDenied, Some(libc::EACCES)));
        assert_eq!(
            e.to_string(),
            "cannot read /srv/x/proc/self/mountstats: Permission denied (os error 13)"
        );
        assert_eq!(e.io_kind(), Some(io::ErrorKind::PermissionDenied));
        assert_eq!(
            SampleError::from(io(io::ErrorKind::NotFound, None)).io_kind(),
            Some(io::ErrorKind::NotFound)
        );
        assert_eq!(SampleError::from("gone").io_kind(), None);
    }

    /// Each kind kept is found again by its name.
    #[test]
    fn every_kind_named_is_read_back() {
        for kind in IO_KINDS {
            let e = SampleError::Io {
                path: "/p".into(),
                kind: format!("{kind:?}"),
                message: String::new(),
            };
            assert_eq!(e.io_kind(), Some(kind));
        }
    }

    /// The typed forms go through serde and back; a plain string (what a
    /// recording made before holds) reads as `Text` and is written as the
    /// same string, even one that names a variant.
    #[test]
    fn reads_the_old_plain_string_and_round_trips_the_new_forms() {
        let typed = [
            SampleError::from(io(io::ErrorKind::NotFound, Some(libc::ENOENT))),
            SampleError::Parse(ParseError::new("/proc/uptime", 1, "x", "seconds")),
            SampleError::Ended {
                sampler: "disk".into(),
                how: "panicked".into(),
            },
            SampleError::Text("mountstats: permission denied".into()),
        ];
        for e in typed {
            let json = serde_json::to_value(&e).unwrap();
            let back: SampleError = serde_json::from_value(json.clone()).unwrap();
            assert_eq!(back, e, "{json}");
        }
        for old in [
            "cannot read /proc/diskstats: gone",
            "Io",
            "Parse",
            "Ended",
            "",
        ] {
            let json = serde_json::Value::String(old.into());
            let read: SampleError = serde_json::from_value(json.clone()).unwrap();
            assert_eq!(read, SampleError::Text(old.into()));
            assert_eq!(serde_json::to_value(&read).unwrap(), json);
        }
        // The old form of the whole result: serde's `Result<_, String>`.
        let old = serde_json::json!({ "Err": "cannot read /proc/diskstats: gone" });
        let r: Result<u32, SampleError> = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(
            r,
            Err(SampleError::Text(
                "cannot read /proc/diskstats: gone".into()
            ))
        );
        assert_eq!(serde_json::to_value(&r).unwrap(), old);
    }
}

//! Why a watched file, or a pattern, has no residency figures: what the
//! local source and a node's fincore run make, a recording stores, and the
//! screen, `strata batch cache` and `strata export` print by its Display.
//!
//! Recordings made before these errors were typed hold each one as its
//! text, a plain string (`{"Err": "no file matches"}`): that form reads as
//! [`FileError::Text`], and `Text` writes it again. The unit variants are
//! written as their names (`{"Err": "NoMatch"}`), which a plain string of
//! the same name would read as; the texts of before are sentences, never
//! one of these names.

use super::fincore::NO_FINCORE;
use super::residency::Method;
use crate::core::error::kind_name;
use std::fmt;
use std::io;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FileError {
    /// A glob pattern that matched no file (here, or in a node's run).
    NoMatch,
    /// A path named outright that a node's run found no regular file by.
    NoRegularFile,
    /// A glob pattern that does not parse; `message` is the glob crate's.
    BadPattern { message: String },
    /// A directory on a pattern's path that could not be read.
    Unreadable {
        /// The directory as the user names it (without `--root`).
        path: String,
        /// The `io::ErrorKind`'s name, such as `PermissionDenied`.
        kind: String,
        /// The `io::Error`'s text: `Permission denied (os error 13)`.
        message: String,
    },
    /// A FIFO, a directory or a device named outright: never opened.
    NotRegular,
    /// ENOENT: a file named outright that is not there (yet), or one that
    /// vanished since the pattern was expanded.
    NoSuchFile,
    /// EACCES: open(2) refused a reader without read permission.
    PermissionDenied,
    /// EPERM: the residency call answers only the file's owner, a writer
    /// or root (cachestat refuses; mincore would pretend, and is not asked).
    NotOwner { method: Method },
    /// EOPNOTSUPP: the file system has no residency to tell (hugetlbfs).
    NotSupported { method: Method },
    /// Another failed stat, open or residency call (ELOOP, ENAMETOOLONG,
    /// ENOSYS under a forced method, ...), said as the `io::Error` says it.
    Io { kind: String, message: String },
    /// A `**` pattern's walk that stopped after `paths` paths or `ms` ms
    /// (a tree too large to walk each time): the files found before are
    /// watched. A directory loop through symlinks is walked once.
    WalkStopped { paths: u64, ms: u64 },
    /// A node's pattern before its first fincore run arrived.
    NoRunYet,
    /// A node's pattern when its last run found no fincore on its PATH.
    NoFincore,
    /// `files` files of a node's pattern that its run left out: unreadable,
    /// or neither owned nor writable by the login (see fincore.rs).
    NotMeasured { files: u64 },
    /// A file the mincore fallback's incremental scan has not yet made a
    /// whole pass over (see scan.rs): `scanned_bytes` of `size_bytes` so far.
    FirstPass { scanned_bytes: u64, size_bytes: u64 },
    /// An error known only by its text: one a recording made before these
    /// errors were typed holds (written as a plain string, as it was then).
    #[serde(untagged)]
    Text(String),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::NoMatch => f.write_str("no file matches"),
            FileError::NoRegularFile => f.write_str("no regular file by this name"),
            FileError::BadPattern { message } => write!(f, "bad pattern: {message}"),
            FileError::Unreadable { path, message, .. } => {
                write!(f, "cannot read {path}: {message}")
            }
            FileError::NotRegular => f.write_str("not a regular file"),
            FileError::NoSuchFile => f.write_str("no such file"),
            FileError::PermissionDenied => f.write_str("permission denied"),
            FileError::NotOwner { method } => write!(
                f,
                "{}: the kernel tells residency only to the file's owner, a writer or root",
                method.label()
            ),
            FileError::NotSupported { method } => {
                write!(f, "{}: not supported on this file system", method.label())
            }
            FileError::Io { message, .. } | FileError::Text(message) => f.write_str(message),
            FileError::WalkStopped { paths, ms } => write!(
                f,
                "the walk stopped after {paths} paths in {ms} ms; the files found before are watched"
            ),
            FileError::NoRunYet => f.write_str("no fincore run from the node yet"),
            FileError::FirstPass {
                scanned_bytes,
                size_bytes,
            } => write!(
                f,
                "mincore(2): first pass {}% of {}",
                // u128: a percentage of 16 EiB still fits
                u128::from(*scanned_bytes) * 100 / u128::from((*size_bytes).max(1)),
                crate::format::bytes(*size_bytes)
            ),
            FileError::NoFincore => f.write_str(NO_FINCORE),
            FileError::NotMeasured { files } => write!(
                f,
                "{}: not readable, or neither owned nor writable by the login, for whom mincore(2) calls every page cached",
                crate::format::count(
                    usize::try_from(*files).unwrap_or(usize::MAX),
                    "file not measured",
                    "files not measured"
                )
            ),
        }
    }
}

impl std::error::Error for FileError {}

impl FileError {
    /// A failed stat, open or residency call of a watched file, measured
    /// by `method`.
    pub fn of_io(e: &io::Error, method: Method) -> Self {
        match e.raw_os_error() {
            Some(libc::EPERM) => FileError::NotOwner { method },
            Some(libc::EACCES) => FileError::PermissionDenied,
            Some(libc::ENOENT) => FileError::NoSuchFile,
            Some(libc::EOPNOTSUPP) => FileError::NotSupported { method },
            _ => FileError::Io {
                kind: kind_name(e.kind()),
                message: e.to_string(),
            },
        }
    }
}

impl From<glob::PatternError> for FileError {
    fn from(e: glob::PatternError) -> Self {
        FileError::BadPattern {
            message: e.to_string(),
        }
    }
}

crate::core::error::from_text!(FileError);

#[cfg(test)]
mod tests {
    use super::*;

    const NOT_MEASURED: &str = "not readable, or neither owned nor writable by the login, for whom mincore(2) calls every page cached";

    /// Each error with the words the screen, `strata batch cache` and
    /// `strata export` printed for it when it was a string.
    fn said() -> Vec<(FileError, String)> {
        let bad = "Pattern syntax error near position 5: invalid range pattern";
        [
            (FileError::NoMatch, "no file matches".to_string()),
            (FileError::NoRegularFile, "no regular file by this name".into()),
            (
                FileError::BadPattern {
                    message: bad.into(),
                },
                format!("bad pattern: {bad}"),
            ),
            (
                FileError::Unreadable {
                    path: "/u01/locked".into(),
                    kind: "PermissionDenied".into(),
                    message: "Permission denied (os error 13)".into(),
                },
                "cannot read /u01/locked: Permission denied (os error 13)".into(),
            ),
            (FileError::NotRegular, "not a regular file".into()),
            (FileError::NoSuchFile, "no such file".into()),
            (FileError::PermissionDenied, "permission denied".into()),
            (
                FileError::NotOwner {
                    method: Method::Cachestat,
                },
                "cachestat(2): the kernel tells residency only to the file's owner, a writer or root"
                    .into(),
            ),
            (
                FileError::NotSupported {
                    method: Method::Mincore,
                },
                "mincore(2): not supported on this file system".into(),
            ),
            (
                FileError::Io {
                    kind: "FilesystemLoop".into(),
                    message: "Too many levels of symbolic links (os error 40)".into(),
                },
                "Too many levels of symbolic links (os error 40)".into(),
            ),
            (FileError::NoRunYet, "no fincore run from the node yet".into()),
            (
                FileError::NoFincore,
                "fincore is not on the node's PATH: util-linux 2.30 or later has it (util-linux-extra on Debian 12)".into(),
            ),
            (
                FileError::NotMeasured { files: 1 },
                format!("1 file not measured: {NOT_MEASURED}"),
            ),
            (
                FileError::NotMeasured { files: 2 },
                format!("2 files not measured: {NOT_MEASURED}"),
            ),
            (
                FileError::FirstPass {
                    scanned_bytes: 96 << 30,
                    size_bytes: 256 << 30,
                },
                "mincore(2): first pass 37% of 256.0 GiB".into(),
            ),
            (FileError::Text("an old text".into()), "an old text".into()),
        ]
        .into()
    }

    #[test]
    fn says_what_the_string_said() {
        for (e, text) in said() {
            assert_eq!(e.to_string(), text, "{e:?}");
        }
    }

    /// A failed call is said by the method that made it, as before.
    #[test]
    fn io_errors_by_their_errno() {
        let of = |errno| FileError::of_io(&io::Error::from_raw_os_error(errno), Method::Mincore);
        assert_eq!(
            of(libc::EPERM),
            FileError::NotOwner {
                method: Method::Mincore
            }
        );
        assert_eq!(of(libc::EACCES), FileError::PermissionDenied);
        assert_eq!(of(libc::ENOENT), FileError::NoSuchFile);
        assert_eq!(
            of(libc::EOPNOTSUPP),
            FileError::NotSupported {
                method: Method::Mincore
            }
        );
        let e = of(libc::ENOSYS);
        assert_eq!(
            e,
            FileError::Io {
                kind: "Unsupported".into(),
                message: io::Error::from_raw_os_error(libc::ENOSYS).to_string(),
            }
        );
    }

    /// The typed forms go through serde and back; the plain strings the
    /// code before wrote read as `Text` and are written as the same string.
    #[test]
    fn reads_the_old_plain_string_and_round_trips_the_new_forms() {
        crate::core::error::says_and_reads_old(said());
        // A struct variant's name alone is no struct variant: a text.
        let read: FileError = serde_json::from_value("NotMeasured".into()).unwrap();
        assert_eq!(read, FileError::Text("NotMeasured".into()));
        // The old form of a watched file's result: serde's
        // `Result<_, String>`.
        let old = serde_json::json!({ "Err": "no file matches" });
        let r: Result<u32, FileError> = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(r, Err(FileError::Text("no file matches".into())));
        assert_eq!(serde_json::to_value(&r).unwrap(), old);
        let new = serde_json::to_value(Err::<u32, _>(FileError::NoMatch)).unwrap();
        assert_eq!(new, serde_json::json!({ "Err": "NoMatch" }));
    }
}

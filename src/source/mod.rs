//! Sources do IO and nothing else: they read text, hand it to the pure
//! parsers and return samples stamped with the source's own clock.

pub mod boundary;
pub mod cache;
pub mod cells;
pub mod disks;
pub mod dnfs;
pub mod host;
pub mod nfs;
pub mod nics;
pub mod residency;
pub mod rootfs;

use crate::parse::ParseError;
use std::path::PathBuf;

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

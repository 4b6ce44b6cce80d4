//! Sources do IO and nothing else: they read text, hand it to the pure
//! parsers and return samples stamped with the source's own clock.

pub mod host;

// The root file system reads return it, so it lives in core with them.
pub use crate::core::error::SourceError;

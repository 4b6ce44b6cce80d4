//! What every layer shares and nothing of strata's own sits under: the wall
//! clock, the host's identity and strata's own cost, reads under the root
//! directory, the sampling boundaries, the errors of reading, durations and
//! sizes; the one rule for printing outside text and for opening the files
//! the user names.
//! It imports no other module of the crate.
//!
//! The name meets the `core` crate only at the crate root, where a bare
//! `core::` path would be ambiguous; the root holds nothing but `mod` lines.
//! Everywhere else `core::` is still the standard library's and this module
//! is `crate::core`.

pub mod boundary;
pub mod clock;
pub mod duration;
pub mod error;
pub mod host;
pub mod last_seen;
pub mod parse;
pub mod rootfs;
pub mod size;
pub mod text;
pub mod total;
pub mod uptime;
pub mod userfile;
// The one module allowed to call into libc and the kernel: Cargo.toml
// denies unsafe code everywhere else.
#[allow(unsafe_code)]
pub mod sys;

//! Pure derivations: two samples of a source and the interval of the
//! source's own clock in, rates out. No IO, no clock.

pub mod cell_metrics;
pub mod cell_shares;
pub mod cells;
pub mod disk;
pub mod disk_tick;
pub mod dnfs;
pub mod dnfs_path;
pub mod last_seen;

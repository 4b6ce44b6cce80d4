//! The page-cache layer: /proc/meminfo and /proc/vmstat read into dirty,
//! writeback and reclaim figures, the residency of the watched files
//! (mincore here, util-linux fincore on a node), and `strata batch cache`.

pub mod error;
pub mod fincore;
pub mod keyed;
pub mod meminfo;
pub mod metrics;
pub mod model;
pub mod report;
pub mod residency;
pub mod scan;
pub mod source;
pub mod state;
pub mod vmstat;

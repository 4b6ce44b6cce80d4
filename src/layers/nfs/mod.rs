//! The kernel NFS client layer: /proc/self/mountstats and mountinfo, read
//! into per-mount and per-operation rates (nfsiostat's figures), and
//! printed by `strata batch nfs`.

pub mod metrics;
pub mod model;
pub mod mountinfo;
pub mod mountstats;
pub mod report;
pub mod source;
pub mod state;
pub mod tick;

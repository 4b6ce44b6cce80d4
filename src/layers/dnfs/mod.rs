//! Oracle Direct NFS per database: the gv$dnfs_* rows (`sql_rows`,
//! `dnfs_sample`), the connection thread (`source`), the figures (`model`)
//! and the path from a channel to the interface that carries it (`path`).
//! `strata batch dnfs` goes through the app's database state, so its report
//! stays in batch/.

pub mod dnfs_sample;
pub mod error;
pub mod metrics;
pub mod model;
pub mod path;
pub mod source;
pub mod sql_rows;

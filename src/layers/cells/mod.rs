//! The storage cells: one SSH connection per cell running a POSIX sh
//! sampler (`source/`), its frames (`cell_stream`) read into the disks
//! layer's model per cell (`model`), and cellcli's metrics and flash shares.
//! `strata batch cells` goes through the app's cell state, so its report
//! stays in batch/.

pub mod cell_metrics;
pub mod cell_shares;
pub mod cell_stream;
pub mod cellcli;
pub mod metrics;
pub mod model;
pub mod source;

//! The block-device layer: /proc/diskstats and /sys/block read into
//! iostat -x's figures per device, and `strata batch disks`. The cells'
//! disks go through this very model.

pub mod diskstats;
pub mod metrics;
pub mod model;
pub mod report;
pub mod source;
pub mod state;
pub mod tick;

//! The NICs layer: /proc/net/dev, the interfaces' sysfs facts and the
//! bonding driver's files, read into per-interface rates (nicstat's
//! figures) and bond warnings, and printed by `strata batch nics`.
//! Routes stay in parse/: the dNFS path maps them to interfaces too.

pub mod bond;
pub mod bonding;
pub mod metrics;
pub mod model;
pub mod net_sysfs;
pub mod netdev;
pub mod report;
pub mod route;
pub mod source;
pub mod state;
pub mod tick;

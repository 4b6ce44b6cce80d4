//! What one interval of a host layer's source gives, the same for the
//! layers whose figures are per entity (disks, NICs, NFS mounts): when it
//! ends, how long it is, one row per entity and their total, and what only
//! that layer has; and the row of an entity of a counter source (disks,
//! NICs).

use std::sync::Arc;

/// The figures of one interval of a layer's source: a row `R` per entity,
/// their total `T`, and `X`, what only that layer has (the disks' busiest
/// device, the NICs' bonds).
#[derive(Debug, Clone)]
pub struct Tick<R, T, X = ()> {
    /// Wall clock of the later sample, ms since the Unix epoch.
    pub wall_ms: i64,
    /// The interval of the source's clock; `None` on the first sample and
    /// when uptime did not advance or went back (the host rebooted): then
    /// every figure is unknown.
    pub itv_cs: Option<u64>,
    /// In the source's order.
    pub rows: Vec<R>,
    /// The sum over the rows that count in the host's total; `None` unless
    /// every one of them has figures over this very interval (see
    /// `model::total`).
    pub total: Option<T>,
    pub extra: X,
}

/// One entity of a counter source (a device, an interface) over one
/// interval: its figures, and what the source's catalogue says of it
/// (`I`); `X` is what only that layer reads with them (an interface's
/// link).
#[derive(Debug, Clone)]
pub struct Row<I, D, T, X = ()> {
    pub name: String,
    /// `None` when the catalogue has no entry for it.
    pub info: Option<Arc<I>>,
    /// No I/O since it was created; iostat and nicstat hide such entities.
    pub never_used: bool,
    /// The counters' differences; `None` when the interval has no figures
    /// for it (see its layer's tick).
    pub delta: Option<D>,
    pub rates: Option<T>,
    /// Its counters fell since the previous reading: it was re-created or
    /// its statistics reset. After a reboot every count starts again: a
    /// new baseline, not a reset.
    pub reset: bool,
    pub extra: X,
}

#[cfg(test)]
impl<I, D, T, X: Default> Row<I, D, T, X> {
    /// An entity the tests know only by its name: no catalogue entry, no
    /// figures.
    pub(crate) fn named(name: &str) -> Self {
        Row {
            name: name.to_string(),
            info: None,
            never_used: false,
            delta: None,
            rates: None,
            reset: false,
            extra: X::default(),
        }
    }
}

// Not derived: that would ask for rows and totals that have a default.
impl<R, T, X: Default> Default for Tick<R, T, X> {
    fn default() -> Self {
        Tick {
            wall_ms: 0,
            itv_cs: None,
            rows: Vec::new(),
            total: None,
            extra: X::default(),
        }
    }
}

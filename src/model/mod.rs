//! Pure derivations: two samples of a source and the interval of the
//! source's own clock in, rates out. No IO, no clock.

pub mod last_seen;
pub mod total;

//! A recording of the app: which inputs become which ticks of the format in
//! `recfile` ([`session`]), and a loop's recording started, fed and stopped
//! beside the app ([`control`]), and a clean copy of a damaged one ([`recover`]). This is the only place that knows both the
//! app and the format, so `recfile` stays below the app.

pub mod control;
mod names;
pub mod recover;
pub mod session;

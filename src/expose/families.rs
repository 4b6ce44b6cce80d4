//! The families of strata's own: its links, its sources and its cost.

use crate::layers::metric::Family;

pub static LINK_UP: Family = Family::new(
    "strata_link_up",
    "1 while strata is connected to a node, cell or database and its readings arrive, 0 otherwise.",
    "",
    "the link's state (SSH, SQL)",
)
.labels(&["kind", "target"]);

pub static LINK_LAST_ERROR: Family = Family {
    name: "strata_link_last_error_timestamp_seconds",
    help: "When the link last stopped being up, in seconds since the Unix epoch; absent until it first fails.",
    unit: "seconds",
    source: "strata's clock when the link's state left up",
    ..LINK_UP
};

pub static SOURCE_UP: Family = Family::new(
    "strata_source_up",
    "1 while a host layer's newest reading succeeded, 0 while it fails.",
    "",
    "the layer's newest reading",
)
.labels(&["node", "layer"]);

pub static SOURCE_LAST_ERROR: Family = Family {
    name: "strata_source_last_error_timestamp_seconds",
    help: "When a host layer's reading last started failing, in seconds since the Unix epoch; absent until it first fails.",
    unit: "seconds",
    source: "strata's clock when the layer's reading failed",
    ..SOURCE_UP
};

pub static PROCESS_CPU: Family = Family::new(
    "strata_process_cpu_seconds_total",
    "CPU time strata itself has used, user and system.",
    "seconds",
    "/proc/self/stat utime + stime",
)
.counter();

pub static PROCESS_RSS: Family = Family::new(
    "strata_process_resident_memory_bytes",
    "strata's resident memory.",
    "bytes",
    "/proc/self/stat rss × page size",
);

/// Every family of strata's own.
pub static OWN: [&Family; 6] = [
    &LINK_UP,
    &LINK_LAST_ERROR,
    &SOURCE_UP,
    &SOURCE_LAST_ERROR,
    &PROCESS_CPU,
    &PROCESS_RSS,
];

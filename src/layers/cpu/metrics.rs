//! The CPU layer on `/metrics`: /proc/stat's jiffies as node_exporter's
//! `node_cpu_seconds_total` (per CPU and mode), its switches, interrupts
//! and task counts, /proc/loadavg, the pressure files' `total=` stall
//! counters and vmstat's swap counters, each under node_exporter's name.
//! mpstat's `%iowait` of a CPU is the rate of its iowait seconds over the
//! rate of all its modes' seconds.

use super::loadavg::LoadAvg;
use super::source::{CpuSample, PsiRead};
use super::stat::{CpuTimes, ProcStat};
use crate::layers::metric::{Family, Field, MetricType, Sink, Text, count, put_fields};

/// Jiffies a second of /proc/stat: USER_HZ, 100 on every Linux
/// architecture strata runs on (node_exporter assumes the same).
const USER_HZ: f64 = 100.0;

pub static CPU_SECONDS: Family = Family::new(
    "node_cpu_seconds_total",
    "Seconds the CPUs spent in each mode.",
    "seconds",
    "/proc/stat `cpuN` lines / USER_HZ",
)
.counter()
.labels(&["cpu", "mode"])
.node_exporter(true);

pub static GUEST_SECONDS: Family = Family {
    name: "node_cpu_guest_seconds_total",
    help: "Seconds the CPUs spent in guests (VMs) for each mode.",
    source: "/proc/stat `cpuN` guest, guest_nice / USER_HZ",
    ..CPU_SECONDS
};

/// A mode's jiffies of a `cpuN` line.
type Mode = fn(&CpuTimes) -> u64;

/// The modes of a `cpuN` line, as node_exporter labels them.
const MODES: [(&str, Mode); 8] = [
    ("user", |t| t.user),
    ("nice", |t| t.nice),
    ("system", |t| t.system),
    ("idle", |t| t.idle),
    ("iowait", |t| t.iowait),
    ("irq", |t| t.irq),
    ("softirq", |t| t.softirq),
    ("steal", |t| t.steal),
];

const fn stat(name: Text, help: Text, kind: MetricType, source: Text) -> Family {
    Family::new(name, help, "", source)
        .kind(kind)
        .node_exporter(true)
}

pub static STAT_FIELDS: [Field<ProcStat>; 4] = [
    Field {
        family: stat(
            "node_context_switches_total",
            "Total number of context switches.",
            MetricType::Counter,
            "/proc/stat ctxt",
        ),
        get: |s| s.ctxt.and_then(count),
    },
    Field {
        family: stat(
            "node_intr_total",
            "Total number of interrupts serviced.",
            MetricType::Counter,
            "/proc/stat intr",
        ),
        get: |s| s.intr.and_then(count),
    },
    Field {
        family: stat(
            "node_procs_running",
            "Number of processes in runnable state.",
            MetricType::Gauge,
            "/proc/stat procs_running",
        ),
        get: |s| s.procs_running.and_then(count),
    },
    Field {
        family: stat(
            "node_procs_blocked",
            "Number of processes blocked waiting for I/O to complete.",
            MetricType::Gauge,
            "/proc/stat procs_blocked",
        ),
        get: |s| s.procs_blocked.and_then(count),
    },
];

pub static LOAD_FIELDS: [Field<LoadAvg>; 3] = [
    Field {
        family: stat(
            "node_load1",
            "1m load average.",
            MetricType::Gauge,
            "/proc/loadavg 1",
        ),
        get: |l| count(l.avg1).map(|v| v / 100.0),
    },
    Field {
        family: stat(
            "node_load5",
            "5m load average.",
            MetricType::Gauge,
            "/proc/loadavg 2",
        ),
        get: |l| count(l.avg5).map(|v| v / 100.0),
    },
    Field {
        family: stat(
            "node_load15",
            "15m load average.",
            MetricType::Gauge,
            "/proc/loadavg 3",
        ),
        get: |l| count(l.avg15).map(|v| v / 100.0),
    },
];

const fn stall(name: Text, help: Text, node_exporter: bool, source: Text) -> Family {
    Family::new(name, help, "seconds", source)
        .counter()
        .node_exporter(node_exporter)
}

/// Each resource's (some, full) stall counters, in [`super::model::Resource`]
/// order; node_exporter has no family for the cpu's `full` line (5.13+).
pub static PRESSURE: [[Family; 2]; 3] = [
    [
        stall(
            "node_pressure_cpu_waiting_seconds_total",
            "Total time in seconds that processes have waited for CPU time",
            true,
            "/proc/pressure/cpu some total= / 1e6",
        ),
        stall(
            "strata_pressure_cpu_stalled_seconds_total",
            "Total time in seconds no process could make progress for want of CPU time (cgroup-level cpu full, 5.13+)",
            false,
            "/proc/pressure/cpu full total= / 1e6",
        ),
    ],
    [
        stall(
            "node_pressure_io_waiting_seconds_total",
            "Total time in seconds that processes have waited due to IO congestion",
            true,
            "/proc/pressure/io some total= / 1e6",
        ),
        stall(
            "node_pressure_io_stalled_seconds_total",
            "Total time in seconds no process could make progress due to IO congestion",
            true,
            "/proc/pressure/io full total= / 1e6",
        ),
    ],
    [
        stall(
            "node_pressure_memory_waiting_seconds_total",
            "Total time in seconds that processes have waited for memory",
            true,
            "/proc/pressure/memory some total= / 1e6",
        ),
        stall(
            "node_pressure_memory_stalled_seconds_total",
            "Total time in seconds no process could make progress due to memory congestion",
            true,
            "/proc/pressure/memory full total= / 1e6",
        ),
    ],
];

pub static SWAP: [Family; 2] = [
    Family::new(
        "node_vmstat_pswpin",
        "/proc/vmstat information field pswpin.",
        "",
        "/proc/vmstat pswpin",
    )
    .kind(MetricType::Untyped)
    .node_exporter(true),
    Family::new(
        "node_vmstat_pswpout",
        "/proc/vmstat information field pswpout.",
        "",
        "/proc/vmstat pswpout",
    )
    .kind(MetricType::Untyped)
    .node_exporter(true),
];

/// Every family of the layer.
pub fn families() -> impl Iterator<Item = &'static Family> {
    [&CPU_SECONDS, &GUEST_SECONDS]
        .into_iter()
        .chain(STAT_FIELDS.iter().map(|f| &f.family))
        .chain(LOAD_FIELDS.iter().map(|f| &f.family))
        .chain(PRESSURE.iter().flatten())
        .chain(SWAP.iter())
}

fn seconds(jiffies: u64) -> f64 {
    count(jiffies).map_or(0.0, |j| j / USER_HZ)
}

pub fn expose(s: &CpuSample, sink: &mut dyn Sink) {
    for (n, t) in &s.stat.cpus {
        let cpu = n.to_string();
        for (mode, get) in MODES {
            sink.put(&CPU_SECONDS, &[&cpu, mode], seconds(get(t)));
        }
        sink.put(&GUEST_SECONDS, &[&cpu, "user"], seconds(t.guest));
        sink.put(&GUEST_SECONDS, &[&cpu, "nice"], seconds(t.guest_nice));
    }
    put_fields(&STAT_FIELDS, &*s.stat, &[], sink);
    if let Some(l) = &s.loadavg {
        put_fields(&LOAD_FIELDS, l, &[], sink);
    }
    // A kernel without pressure files has no series, not zeros.
    for (read, [some, full]) in s.psi.iter().zip(&PRESSURE) {
        if let PsiRead::Read(p) = read {
            sink.put(some, &[], p.some.total_us as f64 / 1e6);
            if let Some(f) = &p.full {
                sink.put(full, &[], f.total_us as f64 / 1e6);
            }
        }
    }
    if let Some((pin, pout)) = s.swap {
        for (family, v) in SWAP.iter().zip([pin, pout]) {
            if let Some(v) = count(v) {
                sink.put(family, &[], v);
            }
        }
    }
}

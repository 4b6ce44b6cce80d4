//! The process layer on `/metrics`, bounded whatever the number of
//! processes: each role's running totals (a role's processes come and go,
//! so the totals are strata's sums of their increases since it started,
//! as the dNFS totals are), and the [`TOP`] busiest processes of the
//! interval with their own /proc/PID/io counters. node_exporter has no
//! per-process families; process-exporter's are per process group.

use super::pid::IoCounters;
use super::table::ProcSample;
use crate::layers::metric::{Family, Field, Sink, Text, count, put_fields};

/// The busiest processes exposed each interval.
pub const TOP: usize = 10;

const fn role(name: Text, help: Text, unit: Text, source: Text) -> Family {
    Family::new(name, help, unit, source)
        .counter()
        .labels(&["role", "instance_name"])
}

const fn top(name: Text, help: Text, unit: Text, source: Text) -> Family {
    Family::new(name, help, unit, source).counter().labels(&[
        "pid",
        "comm",
        "role",
        "instance_name",
    ])
}

pub static ROLE_FIELDS: [Field<IoCounters>; 4] = [
    Field {
        family: role(
            "strata_procs_role_read_bytes_total",
            "Bytes a role's processes caused to be read from storage, since strata started.",
            "bytes",
            "sum of /proc/PID/io read_bytes increases",
        ),
        get: |c| count(c.read_bytes),
    },
    Field {
        family: role(
            "strata_procs_role_written_bytes_total",
            "Bytes a role's processes caused to be written to storage, since strata started.",
            "bytes",
            "sum of /proc/PID/io write_bytes increases",
        ),
        get: |c| count(c.write_bytes),
    },
    Field {
        family: role(
            "strata_procs_role_rchar_bytes_total",
            "Bytes a role's processes read through system calls, since strata started.",
            "bytes",
            "sum of /proc/PID/io rchar increases",
        ),
        get: |c| count(c.rchar),
    },
    Field {
        family: role(
            "strata_procs_role_wchar_bytes_total",
            "Bytes a role's processes wrote through system calls, since strata started.",
            "bytes",
            "sum of /proc/PID/io wchar increases",
        ),
        get: |c| count(c.wchar),
    },
];

pub static ROLE_DELAY: Family = role(
    "strata_procs_role_blkio_delay_seconds_total",
    "Seconds a role's processes waited for block I/O, since strata started (delay accounting).",
    "seconds",
    "sum of /proc/PID/stat delayacct_blkio_ticks increases / USER_HZ",
);

pub static TOP_FIELDS: [Field<IoCounters>; 2] = [
    Field {
        family: top(
            "strata_procs_top_read_bytes_total",
            "Bytes the interval's busiest processes caused to be read from storage, since each started.",
            "bytes",
            "/proc/PID/io read_bytes",
        ),
        get: |c| count(c.read_bytes),
    },
    Field {
        family: top(
            "strata_procs_top_written_bytes_total",
            "Bytes the interval's busiest processes caused to be written to storage, since each started.",
            "bytes",
            "/proc/PID/io write_bytes",
        ),
        get: |c| count(c.write_bytes),
    },
];

pub static PROCESSES: Family = Family::new(
    "strata_procs_processes",
    "Processes seen, by whether their I/O counters could be read.",
    "",
    "/proc/[0-9]*/io",
)
.labels(&["io"]);

pub fn families() -> impl Iterator<Item = &'static Family> {
    [&PROCESSES]
        .into_iter()
        .chain(ROLE_FIELDS.iter().map(|f| &f.family))
        .chain([&ROLE_DELAY])
        .chain(TOP_FIELDS.iter().map(|f| &f.family))
}

pub fn expose(s: &ProcSample, sink: &mut dyn Sink) {
    sink.put(&PROCESSES, &["readable"], f64::from(s.readable));
    sink.put(
        &PROCESSES,
        &["unreadable"],
        f64::from(s.processes.saturating_sub(s.readable)),
    );
    for t in &s.totals {
        let label = t.role.label();
        let inst = t.instance.as_deref().unwrap_or("");
        put_fields(&ROLE_FIELDS, &t.io, &[&label, inst], sink);
        if let Some(v) = count(t.blkio_ticks) {
            sink.put(
                &ROLE_DELAY,
                &[&label, inst],
                v / super::table::USER_HZ as f64,
            );
        }
    }
    let mut busiest: Vec<_> = s
        .rows
        .iter()
        .filter_map(|r| Some((r, r.io?, r.delta?)))
        .filter(|(_, _, d)| d.read_bytes > 0 || d.write_bytes > 0)
        .collect();
    busiest.sort_by_key(|(r, _, d)| {
        (
            std::cmp::Reverse(d.read_bytes.saturating_add(d.write_bytes)),
            r.pid,
        )
    });
    for (r, io, _) in busiest.into_iter().take(TOP) {
        let pid = r.pid.to_string();
        let label = r.role.label();
        put_fields(
            &TOP_FIELDS,
            &io,
            &[&pid, &r.comm, &label, r.instance.as_deref().unwrap_or("")],
            sink,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::procs::pid::PidStat;
    use crate::layers::procs::table::{ProcTable, Seen};

    #[derive(Default)]
    struct Series(Vec<(&'static str, Vec<String>, f64)>);

    impl Sink for Series {
        fn put(&mut self, family: &'static Family, labels: &[&str], value: f64) {
            assert_eq!(labels.len(), family.labels.len(), "{}", family.name);
            self.0.push((
                family.name,
                labels.iter().map(|l| l.to_string()).collect(),
                value,
            ));
        }
    }

    fn seen(pid: u32, argv0: &str, written: u64) -> Seen {
        Seen {
            pid,
            uid: 0,
            stat: PidStat {
                comm: "dd".into(),
                state: 'D',
                cpu_ticks: 0,
                start: 5,
                blkio_ticks: Some(pid.into()),
            },
            io: Ok(IoCounters {
                write_bytes: written,
                ..IoCounters::default()
            }),
            cmd: Some((argv0.into(), argv0.into())),
        }
    }

    /// However many processes move, a scrape has the top ten of each
    /// top family, a series per role and the two counts.
    #[test]
    fn the_series_do_not_grow_with_the_processes() {
        let mut t = ProcTable::default();
        let names = |pid: u32| format!("ora_p{:03}_PROD1", pid % 1000);
        t.update(1000, 0, (1..=500).map(|p| seen(p, &names(p), 0)));
        let s = t.update(
            1100,
            1000,
            (1..=500).map(|p| seen(p, &names(p), u64::from(p) * 4096)),
        );
        let mut out = Series::default();
        expose(&s, &mut out);
        let count = |name: &str| out.0.iter().filter(|(n, ..)| *n == name).count();
        assert_eq!(count("strata_procs_top_written_bytes_total"), TOP);
        assert_eq!(count("strata_procs_role_written_bytes_total"), 1);
        assert_eq!(count("strata_procs_processes"), 2);
        // The busiest first: PID 500 wrote the most, and its counter is
        // its own /proc/PID/io's.
        let top = out
            .0
            .iter()
            .find(|(n, l, _)| *n == "strata_procs_top_written_bytes_total" && l[0] == "500");
        assert_eq!(top.map(|t| t.2), Some(500.0 * 4096.0));
        let role = out
            .0
            .iter()
            .find(|(n, ..)| *n == "strata_procs_role_written_bytes_total");
        assert_eq!(
            role.map(|r| (r.1.clone(), r.2)),
            Some((
                vec!["PX".into(), "PROD1".into()],
                4096.0 * 500.0 * 501.0 / 2.0
            ))
        );
    }
}

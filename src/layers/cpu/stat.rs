//! `/proc/stat` (fs/proc/stat.c `show_stat`): the jiffies each CPU spent
//! in each mode, and the system's interrupt, context switch and task
//! counts.
//!
//! A CPU line carries as many mode fields as the kernel knows: 4 before
//! 2.5.41 (user, nice, system, idle), then iowait, irq and softirq, steal
//! (2.6.11), guest (2.6.24) and guest_nice (2.6.33). sysstat reads the
//! fields a line has and takes the missing ones as zero; so does strata.
//! An offline CPU has no line at all. Lines strata has no use for (btime,
//! processes, softirq) are skipped, so a kernel that adds lines is read.

use crate::core::error::ParseError;
use std::collections::BTreeMap;

/// The jiffies of one CPU (or of all, for the `cpu` line) in each mode.
/// guest and guest_nice are already counted in user and nice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CpuTimes {
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
    pub guest: u64,
    pub guest_nice: u64,
}

impl CpuTimes {
    /// The modes in the kernel's order of the line.
    pub fn from_fields(f: &[u64]) -> Self {
        let at = |i: usize| f.get(i).copied().unwrap_or(0);
        CpuTimes {
            user: at(0),
            nice: at(1),
            system: at(2),
            idle: at(3),
            iowait: at(4),
            irq: at(5),
            softirq: at(6),
            steal: at(7),
            guest: at(8),
            guest_nice: at(9),
        }
    }

    /// Every jiffy the CPU spent, guest time once (it is in user and
    /// nice), as sysstat sums it. Saturating: a line that sums past 2^64
    /// is damaged, and the model refuses its interval.
    pub fn total(&self) -> u64 {
        [
            self.user,
            self.nice,
            self.system,
            self.idle,
            self.iowait,
            self.irq,
            self.softirq,
            self.steal,
        ]
        .iter()
        .fold(0u64, |a, &v| a.saturating_add(v))
    }
}

/// One reading of /proc/stat.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProcStat {
    /// The `cpu` line: every CPU's jiffies summed by the kernel.
    pub all: Option<CpuTimes>,
    /// `cpuN` lines by N: the CPUs online at the reading.
    pub cpus: BTreeMap<u32, CpuTimes>,
    /// Interrupts serviced since boot (`intr`'s first number).
    pub intr: Option<u64>,
    /// Context switches since boot.
    pub ctxt: Option<u64>,
    /// Tasks runnable at the reading (vmstat's `r`).
    pub procs_running: Option<u64>,
    /// Tasks in uninterruptible sleep, mostly waiting on I/O (vmstat's `b`).
    pub procs_blocked: Option<u64>,
}

const CPU_FIELDS: &str = "a CPU line such as \"cpu0 4705 356 584 3699 23 23 0 0 0 0\": \
     the name, then 4 to 10 counts of jiffies";

/// The counters of /proc/stat; a damaged line is an error that names it,
/// since a CPU row read from part of a line would be a wrong figure.
pub fn parse_stat(text: &str, source_name: &str) -> Result<ProcStat, ParseError> {
    let mut stat = ProcStat::default();
    for (i, line) in text.lines().enumerate() {
        let mut words = line.split_ascii_whitespace();
        let Some(name) = words.next() else { continue };
        let bad = |expected: &str| ParseError::new(source_name, i + 1, line, expected);
        let number = |w: Option<&str>, expected: &str| {
            w.and_then(|w| w.parse::<u64>().ok())
                .ok_or_else(|| bad(expected))
        };
        if let Some(n) = name.strip_prefix("cpu") {
            let mut fields = [0u64; 10];
            let mut count = 0;
            for w in words {
                let v = w.parse::<u64>().map_err(|_| bad(CPU_FIELDS))?;
                *fields.get_mut(count).ok_or_else(|| bad(CPU_FIELDS))? = v;
                count += 1;
            }
            if count < 4 {
                return Err(bad(CPU_FIELDS));
            }
            let times = CpuTimes::from_fields(&fields[..count]);
            if n.is_empty() {
                stat.all = Some(times);
            } else {
                let id = n.parse::<u32>().map_err(|_| bad(CPU_FIELDS))?;
                if stat.cpus.insert(id, times).is_some() {
                    return Err(bad("each CPU once"));
                }
            }
            continue;
        }
        let slot = match name {
            "intr" => &mut stat.intr,
            "ctxt" => &mut stat.ctxt,
            "procs_running" => &mut stat.procs_running,
            "procs_blocked" => &mut stat.procs_blocked,
            _ => continue,
        };
        *slot = Some(number(words.next(), &format!("a count after {name}"))?);
    }
    Ok(stat)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEBIAN_6_1: &str = "cpu  1290201 58763 172574 678679 7115 0 1459 1133 0 0
cpu0 626058 28232 86206 361804 1706 0 183 556 0 0
cpu1 664142 30530 86367 316874 5409 0 1276 577 0 0
intr 7958687 0 0 0 15 0 2215
ctxt 13057637
btime 1764300000
processes 71234
procs_running 3
procs_blocked 1
softirq 3050329 0 936043 2 5313 120548 0 1 1034005 0 954417
";

    #[test]
    fn reads_every_cpu_and_the_system_counters() {
        let s = parse_stat(DEBIAN_6_1, "/proc/stat").unwrap();
        let all = s.all.unwrap();
        assert_eq!((all.user, all.steal, all.guest_nice), (1_290_201, 1133, 0));
        assert_eq!(s.cpus.len(), 2);
        assert_eq!(s.cpus[&1].iowait, 5409);
        assert_eq!(s.intr, Some(7_958_687));
        assert_eq!(s.ctxt, Some(13_057_637));
        assert_eq!((s.procs_running, s.procs_blocked), (Some(3), Some(1)));
    }

    /// 2.6.9's lines (RHEL 4) stop after softirq; 2.4's after idle: the
    /// modes a kernel does not have are zero, as sysstat reads them.
    #[test]
    fn short_lines_of_old_kernels_leave_the_missing_modes_zero() {
        let s = parse_stat("cpu 10 0 5 100 2 1 1\ncpu3 1 2 3 4\n", "s").unwrap();
        assert_eq!(s.all.unwrap().softirq, 1);
        assert_eq!(s.all.unwrap().steal, 0);
        assert_eq!(s.cpus[&3], CpuTimes::from_fields(&[1, 2, 3, 4]));
        assert_eq!(s.ctxt, None);
    }

    #[test]
    fn offline_cpus_have_no_line() {
        let s = parse_stat("cpu 1 1 1 1\ncpu0 1 1 1 1\ncpu2 0 0 0 1\n", "s").unwrap();
        assert_eq!(s.cpus.keys().copied().collect::<Vec<_>>(), [0, 2]);
    }

    #[test]
    fn a_damaged_line_is_named() {
        for (text, line_no) in [
            ("cpu 1 2 3\n", 1),
            ("cpu 1 2 3 4\ncpu0 1 x 3 4\n", 2),
            ("cpu0 1 2 3 4 5 6 7 8 9 10 11\n", 1),
            ("cpuX 1 2 3 4\n", 1),
            ("cpu0 1 2 3 4\ncpu0 1 2 3 4\n", 2),
            ("ctxt\n", 1),
            ("procs_blocked -1\n", 1),
            ("cpu0 1 2 3 99999999999999999999\n", 1),
        ] {
            let e = parse_stat(text, "/proc/stat").unwrap_err();
            assert_eq!(
                (e.source_name.as_str(), e.line_no),
                ("/proc/stat", line_no),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_total_counts_guest_time_once() {
        let t = CpuTimes::from_fields(&[100, 10, 20, 300, 5, 1, 2, 3, 40, 4]);
        assert_eq!(t.total(), 100 + 10 + 20 + 300 + 5 + 1 + 2 + 3);
        assert_eq!(
            CpuTimes::from_fields(&[u64::MAX, 1, 0, 0]).total(),
            u64::MAX
        );
    }
}

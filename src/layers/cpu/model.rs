//! mpstat's and sar's figures from two readings of a host.
//!
//! The share of each CPU mode is mpstat's (sysstat 12.6 mpstat.c and
//! rd_stats.c `get_per_cpu_interval`), so that `strata batch cpu` prints
//! what `mpstat -P ALL` prints over the same counters:
//! - a CPU's interval is the growth of its jiffies in every mode (guest
//!   time once: it is in user and nice), and each mode's share is its
//!   growth over that interval; %usr and %nice leave guest time out;
//! - "all" is the sum of the CPUs that have a line in both readings, over
//!   the sum of their intervals, on a machine of more than one CPU; on one
//!   CPU it is the kernel's `cpu` line;
//! - a CPU with no line in the newer reading is offline, and one with no
//!   line in the older has just come online: mpstat leaves both out, and
//!   "all" does not count them;
//! - a CPU that comes back online restarts idle and iowait from zero, and
//!   iowait can fall while idle grows (iowait accounting moves time to
//!   idle): both are read as mpstat reads them;
//! - a CPU whose counters did not move (a tickless CPU) is 100 % idle.
//!
//! Where mpstat prints a figure no interval explains, strata prints "–":
//! a count that fell otherwise (mpstat shows 0.00 for that mode and 12.6.1
//! wraps the interval, so that every other share is 0.00 too), guest time
//! above user time, and an "all" over no jiffies at all (mpstat divides by
//! one jiffy and prints 0.00 everywhere, idle included). A CPU left out of
//! "all" for such counters makes "all" differ from mpstat's; the parity
//! test lists those cases apart from agreement.
//!
//! The host's figures are sar's and vmstat's: cswch/s, intr/s, pswpin/s
//! and pswpout/s over the interval of /proc/uptime (sar -w, -I SUM, -W),
//! the runnable and blocked tasks of /proc/stat (vmstat's r and b), the
//! load averages and tasks of /proc/loadavg (sar -q), and the pressure
//! stall shares (sar -q ALL in sysstat 12.6): the kernel's averages as the
//! file holds them, and the stalled share of the interval from the
//! `total` µs counters.

use super::pressure::PsiLine;
use super::source::{CpuSample, PsiRead};
use super::stat::{CpuTimes, ProcStat};
use crate::layers::col::{Figures, cols};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuCol {
    Usr,
    Nice,
    Sys,
    Iowait,
    Irq,
    Soft,
    Steal,
    Guest,
    Gnice,
    Idle,
}

/// What a mode's share says about the CPU, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuColKind {
    /// Time the CPU did work.
    Busy,
    /// Time the CPU waited on something else: I/O, or its hypervisor.
    Wait,
    Idle,
}

cols! {
    /// Headers as mpstat -P ALL prints them, the JSON keys as its -o JSON.
    pub const CPU_COLS: [CpuCol, CpuColKind] = [
        (Usr, "%usr", "usr", Busy),
        (Nice, "%nice", "nice", Busy),
        (Sys, "%sys", "sys", Busy),
        (Iowait, "%iowait", "iowait", Wait),
        (Irq, "%irq", "irq", Busy),
        (Soft, "%soft", "soft", Busy),
        (Steal, "%steal", "steal", Wait),
        (Guest, "%guest", "guest", Busy),
        (Gnice, "%gnice", "gnice", Busy),
        (Idle, "%idle", "idle", Idle),
    ];
}

pub type CpuFigures = Figures<CpuCol, { CPU_COLS.len() }>;

/// A CPU over one interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuState {
    /// A line in both readings: its figures are known.
    Online,
    /// No line in the newer reading.
    Offline,
    /// No line in the older reading: its counters would jump from zero.
    CameOnline,
    /// A count fell that neither hotplug nor iowait accounting explains,
    /// or guest time exceeds user time: its figures are unknown.
    Unexplained,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CpuRow {
    pub cpu: u32,
    pub state: CpuState,
    /// Unknown (all `None`) unless the CPU is [`CpuState::Online`].
    pub figures: CpuFigures,
}

/// Every CPU over one interval, and "all".
#[derive(Debug, Clone, PartialEq)]
pub struct CpuTable {
    pub all: CpuFigures,
    /// The CPUs "all" sums (one, the `cpu` line, on one CPU).
    pub counted: usize,
    /// Every CPU either reading has, by number.
    pub cpus: Vec<CpuRow>,
}

const UNKNOWN: CpuFigures = CpuFigures::new([None; CPU_COLS.len()]);

/// Counts this close to 2^64 are wrapping, not a CPU back online
/// (sysstat's own margin).
const NEAR_WRAP: u64 = u64::MAX - 0x7ffff;

/// The older reading as mpstat takes it against the newer: idle and iowait
/// restart from zero when a CPU comes back online, and iowait may fall
/// while idle grows.
fn fixed_older(mut p: CpuTimes, c: &CpuTimes) -> CpuTimes {
    if c.iowait < p.iowait && p.iowait < NEAR_WRAP {
        p.iowait = if c.idle > p.idle || p.idle >= NEAR_WRAP {
            c.iowait
        } else {
            0
        };
    }
    if c.idle < p.idle && p.idle < NEAR_WRAP {
        p.idle = 0;
    }
    p
}

/// The jiffies between two readings of a CPU (the older one fixed), or
/// `None` when they explain no interval.
fn interval(p: &CpuTimes, c: &CpuTimes) -> Option<u64> {
    let grew = |a: u64, b: u64| b >= a;
    let sane = |t: &CpuTimes| t.guest <= t.user && t.guest_nice <= t.nice;
    let monotone = grew(p.user, c.user)
        && grew(p.nice, c.nice)
        && grew(p.system, c.system)
        && grew(p.idle, c.idle)
        && grew(p.iowait, c.iowait)
        && grew(p.irq, c.irq)
        && grew(p.softirq, c.softirq)
        && grew(p.steal, c.steal)
        && grew(p.guest, c.guest)
        && grew(p.guest_nice, c.guest_nice);
    if !monotone || !sane(p) || !sane(c) || c.total() == u64::MAX {
        return None;
    }
    // The kernel may count a guest jiffy before the user jiffy it is part
    // of; sysstat widens the interval by the difference.
    let shift = (p.user - p.guest).saturating_sub(c.user - c.guest)
        + (p.nice - p.guest_nice).saturating_sub(c.nice - c.guest_nice);
    Some(c.total() - p.total() + shift)
}

/// Each mode's share of `itv` jiffies, as mpstat computes and rounds it.
fn shares(p: &CpuTimes, c: &CpuTimes, itv: u64) -> CpuFigures {
    if itv == 0 {
        let mut f = CpuFigures::new([Some(0.0); CPU_COLS.len()]);
        f.set(CpuCol::Idle, Some(100.0));
        return f;
    }
    let pct = |a: u64, b: u64| {
        let d = b.saturating_sub(a);
        Some(d as f64 / itv as f64 * 100.0)
    };
    CpuFigures::new([
        pct(p.user - p.guest, c.user - c.guest),
        pct(p.nice - p.guest_nice, c.nice - c.guest_nice),
        pct(p.system, c.system),
        pct(p.iowait, c.iowait),
        pct(p.irq, c.irq),
        pct(p.softirq, c.softirq),
        pct(p.steal, c.steal),
        pct(p.guest, c.guest),
        pct(p.guest_nice, c.guest_nice),
        pct(p.idle, c.idle),
    ])
}

fn add(a: &CpuTimes, b: &CpuTimes) -> Option<CpuTimes> {
    Some(CpuTimes {
        user: a.user.checked_add(b.user)?,
        nice: a.nice.checked_add(b.nice)?,
        system: a.system.checked_add(b.system)?,
        idle: a.idle.checked_add(b.idle)?,
        iowait: a.iowait.checked_add(b.iowait)?,
        irq: a.irq.checked_add(b.irq)?,
        softirq: a.softirq.checked_add(b.softirq)?,
        steal: a.steal.checked_add(b.steal)?,
        guest: a.guest.checked_add(b.guest)?,
        guest_nice: a.guest_nice.checked_add(b.guest_nice)?,
    })
}

/// mpstat -P ALL over two readings of /proc/stat.
pub fn cpu_table(prev: &ProcStat, cur: &ProcStat) -> CpuTable {
    let ids: std::collections::BTreeSet<u32> =
        prev.cpus.keys().chain(cur.cpus.keys()).copied().collect();
    let mut cpus = Vec::with_capacity(ids.len());
    let mut sum: Option<(CpuTimes, CpuTimes, u64)> = Some(Default::default());
    let mut counted = 0;
    for &cpu in &ids {
        let (state, figures) = match (prev.cpus.get(&cpu), cur.cpus.get(&cpu)) {
            (_, None) => (CpuState::Offline, UNKNOWN),
            (None, Some(_)) => (CpuState::CameOnline, UNKNOWN),
            (Some(p), Some(c)) => {
                let p = fixed_older(*p, c);
                match interval(&p, c) {
                    None => (CpuState::Unexplained, UNKNOWN),
                    Some(itv) => {
                        counted += 1;
                        sum = sum.and_then(|(sp, sc, st)| {
                            Some((add(&sp, &p)?, add(&sc, c)?, st.checked_add(itv)?))
                        });
                        (CpuState::Online, shares(&p, c, itv))
                    }
                }
            }
        };
        cpus.push(CpuRow {
            cpu,
            state,
            figures,
        });
    }
    // One CPU: mpstat takes "all" from the kernel's own line.
    let single = ids.last().is_none_or(|&last| last == 0);
    let all = if single {
        counted = usize::from(prev.all.is_some() && cur.all.is_some());
        match (prev.all, cur.all) {
            (Some(p), Some(c)) => {
                let p = fixed_older(p, &c);
                interval(&p, &c)
                    .filter(|&itv| itv > 0)
                    .map(|itv| shares(&p, &c, itv))
            }
            _ => None,
        }
    } else {
        sum.filter(|&(_, _, itv)| counted > 0 && itv > 0)
            .map(|(p, c, itv)| shares(&p, &c, itv))
    };
    CpuTable {
        all: all.unwrap_or(UNKNOWN),
        counted,
        cpus,
    }
}

/// The host's own figures besides its CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SysCol {
    Runnable,
    Blocked,
    CswchPerS,
    IntrPerS,
    PswpinPerS,
    PswpoutPerS,
    Ldavg1,
    Ldavg5,
    Ldavg15,
    PlistSz,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SysColKind {
    /// Tasks, at the reading.
    Tasks,
    /// Events per second over the interval.
    PerS,
    Load,
}

cols! {
    /// vmstat's r and b, then sar's headers (-w, -I SUM, -W, -q).
    pub const SYS_COLS: [SysCol, SysColKind] = [
        (Runnable, "r", "r", Tasks),
        (Blocked, "b", "b", Tasks),
        (CswchPerS, "cswch/s", "cswch/s", PerS),
        (IntrPerS, "intr/s", "intr/s", PerS),
        (PswpinPerS, "pswpin/s", "pswpin/s", PerS),
        (PswpoutPerS, "pswpout/s", "pswpout/s", PerS),
        (Ldavg1, "ldavg-1", "ldavg-1", Load),
        (Ldavg5, "ldavg-5", "ldavg-5", Load),
        (Ldavg15, "ldavg-15", "ldavg-15", Load),
        (PlistSz, "plist-sz", "plist-sz", Tasks),
    ];
}

pub type SysFigures = Figures<SysCol, { SYS_COLS.len() }>;

/// The three resources of /proc/pressure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Cpu,
    Io,
    Memory,
}

impl Resource {
    pub const ALL: [Resource; 3] = [Resource::Cpu, Resource::Io, Resource::Memory];

    /// The file's name under /proc/pressure.
    pub fn file(self) -> &'static str {
        match self {
            Resource::Cpu => "cpu",
            Resource::Io => "io",
            Resource::Memory => "memory",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PsiCol {
    Some10,
    Some60,
    Some300,
    Some,
    Full10,
    Full60,
    Full300,
    Full,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PsiColKind {
    /// The kernel's running average.
    Average,
    /// The stalled share of strata's interval.
    Share,
}

cols! {
    /// The last item is sar -q ALL's header for cpu, io and memory (sar
    /// has no full line for cpu: it is zero at the system level).
    pub const PSI_COLS: [PsiCol, PsiColKind, [&'static str; 3]] = [
        (Some10, "%some-10", "some-10", Average, ["%scpu-10", "%sio-10", "%smem-10"]),
        (Some60, "%some-60", "some-60", Average, ["%scpu-60", "%sio-60", "%smem-60"]),
        (Some300, "%some-300", "some-300", Average, ["%scpu-300", "%sio-300", "%smem-300"]),
        (Some, "%some", "some", Share, ["%scpu", "%sio", "%smem"]),
        (Full10, "%full-10", "full-10", Average, ["%fcpu-10", "%fio-10", "%fmem-10"]),
        (Full60, "%full-60", "full-60", Average, ["%fcpu-60", "%fio-60", "%fmem-60"]),
        (Full300, "%full-300", "full-300", Average, ["%fcpu-300", "%fio-300", "%fmem-300"]),
        (Full, "%full", "full", Share, ["%fcpu", "%fio", "%fmem"]),
    ];
}

pub type PsiFigures = Figures<PsiCol, { PSI_COLS.len() }>;

/// One resource's pressure over an interval, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub enum Pressure {
    Known(PsiFigures),
    /// Why the kernel gives none: the reason as the screen says it.
    NotAvailable(String),
}

/// Every figure of the CPU layer over one interval of a host.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuTick {
    /// The interval of the host's /proc/uptime, centiseconds.
    pub itv_cs: u64,
    pub table: CpuTable,
    pub sys: SysFigures,
    pub pressure: [Pressure; 3],
}

/// A counter's growth per second over `itv_cs`; a counter that fell (the
/// host rebooted, or the file is damaged) gives no rate.
fn per_s(p: Option<u64>, c: Option<u64>, itv_cs: u64) -> Option<f64> {
    let d = c?.checked_sub(p?)?;
    (itv_cs > 0).then(|| d as f64 * 100.0 / itv_cs as f64)
}

/// A stalled share of the interval from two `total` readings: sar's
/// Δµs / (100 · itv_cs). The counters and /proc/uptime are read moments
/// apart, so a resource stalled the whole interval may show a little over
/// 100 %; within two jiffies it is 100.00, as the disks' %util, and beyond
/// that unknown.
fn stalled(p: &PsiLine, c: &PsiLine, itv_cs: u64) -> Option<f64> {
    let d = c.total_us.checked_sub(p.total_us)?;
    if itv_cs == 0 {
        return None;
    }
    let pct = d as f64 / (100.0 * itv_cs as f64);
    let slack = 2.0 * 100.0 / itv_cs as f64;
    if pct <= 100.0 {
        Some(pct)
    } else {
        (pct <= 100.0 + slack).then_some(100.0)
    }
}

fn pressure(p: &PsiRead, c: &PsiRead, itv_cs: u64, what: Resource) -> Pressure {
    let (p, c) = match (p, c) {
        (PsiRead::Read(p), PsiRead::Read(c)) => (p, c),
        (_, PsiRead::Missing(why)) | (PsiRead::Missing(why), _) => {
            return Pressure::NotAvailable(why.to_string());
        }
    };
    let avg = |v: u32| Some(f64::from(v) / 100.0);
    // The cpu file's full line is all zero at the system level (5.13 on);
    // before 5.13 it has none: unknown either way.
    let full = c.full.filter(|_| what != Resource::Cpu);
    let full_share = match (&p.full, &full) {
        (Some(pf), Some(cf)) => stalled(pf, cf, itv_cs),
        _ => None,
    };
    Pressure::Known(PsiFigures::new([
        avg(c.some.avg10),
        avg(c.some.avg60),
        avg(c.some.avg300),
        stalled(&p.some, &c.some, itv_cs),
        full.and_then(|f| avg(f.avg10)),
        full.and_then(|f| avg(f.avg60)),
        full.and_then(|f| avg(f.avg300)),
        full_share,
    ]))
}

/// Every figure of the CPU layer between two samples of one host; `None`
/// when the host's clock did not move forward (a reboot, or a replay of
/// samples out of order).
pub fn tick(prev: &CpuSample, cur: &CpuSample) -> Option<CpuTick> {
    let itv_cs = cur
        .uptime_cs
        .checked_sub(prev.uptime_cs)
        .filter(|&d| d > 0)?;
    let (ps, cs) = (&prev.stat, &cur.stat);
    let load = cur.loadavg.as_ref();
    let hundredths = |v: Option<u64>| v.map(|v| v as f64 / 100.0);
    let count = |v: Option<u64>| v.map(|v| v as f64);
    let sys = SysFigures::new([
        count(cs.procs_running),
        count(cs.procs_blocked),
        per_s(ps.ctxt, cs.ctxt, itv_cs),
        per_s(ps.intr, cs.intr, itv_cs),
        per_s(prev.swap.map(|s| s.0), cur.swap.map(|s| s.0), itv_cs),
        per_s(prev.swap.map(|s| s.1), cur.swap.map(|s| s.1), itv_cs),
        hundredths(load.map(|l| l.avg1)),
        hundredths(load.map(|l| l.avg5)),
        hundredths(load.map(|l| l.avg15)),
        count(load.map(|l| l.tasks)),
    ]);
    let pressure = Resource::ALL.map(|r| {
        let i = r as usize;
        pressure(&prev.psi[i], &cur.psi[i], itv_cs, r)
    });
    Some(CpuTick {
        itv_cs,
        table: cpu_table(ps, cs),
        sys,
        pressure,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::cpu::stat::parse_stat;

    fn stat(text: &str) -> ProcStat {
        parse_stat(text, "t").unwrap()
    }

    fn row(f: &CpuFigures) -> Vec<String> {
        f.0.iter()
            .map(|v| v.map_or("–".into(), |v| format!("{v:.2}")))
            .collect()
    }

    #[test]
    fn shares_of_two_cpus_and_all_are_mpstats() {
        let p = stat("cpu0 100 0 50 800 10 0 5 0 0 0\ncpu1 200 10 20 700 0 5 5 10 0 0\n");
        let c = stat("cpu0 160 0 70 900 30 0 15 0 0 0\ncpu1 260 10 40 790 0 5 15 20 0 0\n");
        let t = cpu_table(&p, &c);
        // cpu0: 60 user, 20 sys, 100 idle, 20 iowait, 10 softirq = 210
        assert_eq!(
            row(&t.cpus[0].figures)[..4],
            ["28.57", "0.00", "9.52", "9.52"]
        );
        // all: 120 user, 40 sys, 190 idle, 20 iowait, 20 soft, 10 steal = 400
        assert_eq!(
            row(&t.all),
            [
                "30.00", "0.00", "10.00", "5.00", "0.00", "5.00", "2.50", "0.00", "0.00", "47.50"
            ]
        );
        assert_eq!(t.counted, 2);
    }

    #[test]
    fn guest_time_is_left_out_of_usr() {
        let p = stat("cpu0 100 0 0 0 0 0 0 0 40 0\ncpu1 0 0 0 0\n");
        let c = stat("cpu0 200 0 0 100 0 0 0 0 90 0\ncpu1 0 0 0 10\n");
        let f = &cpu_table(&p, &c).cpus[0].figures;
        assert_eq!(
            f.get(CpuCol::Usr).map(|v| format!("{v:.2}")),
            Some("25.00".into())
        );
        assert_eq!(
            f.get(CpuCol::Guest).map(|v| format!("{v:.2}")),
            Some("25.00".into())
        );
    }

    #[test]
    fn offline_and_new_cpus_are_left_out_of_all() {
        let p = stat("cpu0 0 0 0 100\ncpu1 0 0 0 100\n");
        let c = stat("cpu0 50 0 0 150\ncpu2 0 0 0 50\n");
        let t = cpu_table(&p, &c);
        let states: Vec<_> = t.cpus.iter().map(|r| r.state).collect();
        assert_eq!(
            states,
            [CpuState::Online, CpuState::Offline, CpuState::CameOnline]
        );
        assert_eq!(t.counted, 1);
        assert_eq!(row(&t.all)[0], "50.00");
        assert_eq!(row(&t.cpus[1].figures)[0], "–");
    }

    /// idle and iowait restart from zero when a CPU comes back online.
    #[test]
    fn a_cpu_back_online_is_read_from_zero_idle() {
        let p = stat("cpu0 1000 0 100 5000 300\ncpu1 0 0 0 10\n");
        let c = stat("cpu0 1010 0 110 20 10\ncpu1 0 0 0 20\n");
        let f = &cpu_table(&p, &c).cpus[0].figures;
        // 10 user + 10 sys + 20 idle + 10 iowait = 50
        assert_eq!(
            row(f),
            [
                "20.00", "0.00", "20.00", "20.00", "0.00", "0.00", "0.00", "0.00", "0.00", "40.00"
            ]
        );
    }

    /// iowait that falls while idle grows is moved to idle, not lost.
    #[test]
    fn iowait_that_falls_while_idle_grows_counts_zero() {
        let p = stat("cpu0 0 0 0 100 50\ncpu1 0 0 0 1\n");
        let c = stat("cpu0 0 0 0 200 40\ncpu1 0 0 0 2\n");
        let f = &cpu_table(&p, &c).cpus[0].figures;
        assert_eq!(f.get(CpuCol::Iowait), Some(0.0));
        assert_eq!(f.get(CpuCol::Idle), Some(100.0));
    }

    #[test]
    fn a_count_that_falls_otherwise_is_unknown_and_left_out() {
        let p = stat("cpu0 100 0 100 100\ncpu1 0 0 0 0\n");
        let c = stat("cpu0 90 0 150 150\ncpu1 10 0 0 10\n");
        let t = cpu_table(&p, &c);
        assert_eq!(t.cpus[0].state, CpuState::Unexplained);
        assert!(t.cpus[0].figures.0.iter().all(Option::is_none));
        assert_eq!((t.counted, row(&t.all)[0].as_str()), (1, "50.00"));
    }

    #[test]
    fn a_tickless_cpu_is_idle_and_an_all_of_no_jiffies_unknown() {
        let p = stat("cpu0 5 0 0 5\ncpu1 5 0 0 5\n");
        let t = cpu_table(&p, &p);
        assert_eq!(row(&t.cpus[1].figures)[9], "100.00");
        assert!(t.all.0.iter().all(Option::is_none));
    }

    #[test]
    fn one_cpu_takes_all_from_the_kernels_line() {
        let p = stat("cpu 10 0 0 90\ncpu0 10 0 0 90\n");
        let c = stat("cpu 30 0 0 170\ncpu0 30 0 0 170\n");
        let t = cpu_table(&p, &c);
        assert_eq!((row(&t.all)[0].as_str(), t.counted), ("20.00", 1));
    }

    #[test]
    fn stalled_shares_follow_sar_and_hold_at_100() {
        let l = |t| PsiLine {
            total_us: t,
            ..PsiLine::default()
        };
        assert_eq!(stalled(&l(0), &l(250_000), 100), Some(25.0));
        assert_eq!(stalled(&l(0), &l(1_010_000), 100), Some(100.0));
        assert_eq!(stalled(&l(0), &l(1_030_000), 100), None);
        assert_eq!(stalled(&l(5), &l(4), 100), None);
    }
}

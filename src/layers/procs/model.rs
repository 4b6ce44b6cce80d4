//! A host's processes' figures over one interval, per process and per
//! role and instance: pure, from one [`ProcSample`].
//!
//! pidstat -d's figures are its formulas: kB_rd/s is the increase of
//! read_bytes over the interval of /proc/uptime, `Δ / itv_cs × 100 /
//! 1024`, kB_wr/s write_bytes' and kB_ccwr/s cancelled_write_bytes';
//! iodelay is delayacct_blkio_ticks' increase, in clock ticks, as pidstat
//! prints it. %io is that delay as a share of the interval (iotop's IO>).
//! The syscall layer's figures are rchar, wchar, syscr and syscw the same
//! way.

use super::pid::IoCounters;
use super::role::Role;
use super::table::{DelayAcct, ProcRow, ProcSample, USER_HZ, Unread};
use crate::layers::col::{Figures, cols};
use std::collections::BTreeMap;

/// What a process column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcColKind {
    /// kB per second.
    Throughput,
    /// Calls per second.
    PerS,
    /// Clock ticks over the interval (pidstat's iodelay).
    Ticks,
    /// A share of the interval, in percent.
    Share,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProcCol {
    KbRd,
    KbWr,
    KbCcwr,
    Iodelay,
    IoPct,
    KbRchar,
    KbWchar,
    Syscr,
    Syscw,
}

cols! {
    /// pidstat -d's headers first, then iotop's IO> and the syscall
    /// layer's.
    pub const PROC_COLS: [ProcCol, ProcColKind] = [
        (KbRd, "kB_rd/s", "kB_rd/s", Throughput),
        (KbWr, "kB_wr/s", "kB_wr/s", Throughput),
        (KbCcwr, "kB_ccwr/s", "kB_ccwr/s", Throughput),
        (Iodelay, "iodelay", "iodelay", Ticks),
        (IoPct, "%io", "io_pct", Share),
        (KbRchar, "kB_rch/s", "kB_rchar/s", Throughput),
        (KbWchar, "kB_wch/s", "kB_wchar/s", Throughput),
        (Syscr, "syscr/s", "syscr/s", PerS),
        (Syscw, "syscw/s", "syscw/s", PerS),
    ];
}

pub type ProcFigures = Figures<ProcCol, { PROC_COLS.len() }>;

/// The figures of `delta` and `blkio` over `itv_cs`; unknown counters
/// give unknown figures, and %io unknown where the kernel keeps no delay.
pub fn figures(
    delta: Option<&IoCounters>,
    blkio: Option<u64>,
    itv_cs: u64,
    delay: DelayAcct,
) -> ProcFigures {
    let itv = itv_cs.max(1) as f64;
    let per_s = |n: u64| n as f64 / itv * 100.0;
    let kb = |n: u64| per_s(n) / 1024.0;
    let mut f = ProcFigures::default();
    if let Some(d) = delta {
        f.set(ProcCol::KbRd, Some(kb(d.read_bytes)));
        f.set(ProcCol::KbWr, Some(kb(d.write_bytes)));
        f.set(ProcCol::KbCcwr, Some(kb(d.cancelled_write_bytes)));
        f.set(ProcCol::KbRchar, Some(kb(d.rchar)));
        f.set(ProcCol::KbWchar, Some(kb(d.wchar)));
        f.set(ProcCol::Syscr, Some(per_s(d.syscr)));
        f.set(ProcCol::Syscw, Some(per_s(d.syscw)));
    }
    let blkio = blkio.filter(|_| delay != DelayAcct::Off);
    f.set(ProcCol::Iodelay, blkio.map(|b| b as f64));
    // Ticks of USER_HZ over centiseconds of uptime.
    f.set(
        ProcCol::IoPct,
        blkio.map(|b| (b as f64 * 100.0 / USER_HZ as f64) / itv * 100.0),
    );
    f
}

/// One process's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcFig {
    pub row: ProcRow,
    pub figures: ProcFigures,
}

/// A role of an instance over the interval: its processes' sums.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleFig {
    pub role: Role,
    pub instance: Option<String>,
    /// Processes of the role whose counters moved.
    pub active: u32,
    /// Processes of the role whose I/O could not be read: while any, its
    /// I/O figures are unknown (a sum of the others is not its total).
    pub unreadable: u32,
    pub figures: ProcFigures,
}

impl RoleFig {
    /// "DBWR PROD1", "session PROD1", "dd".
    pub fn name(&self) -> String {
        match &self.instance {
            Some(i) => format!("{} {i}", self.role.label()),
            None => self.role.label(),
        }
    }
}

/// Processes of one user that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserUnread {
    pub user: String,
    pub why: Unread,
    pub count: u32,
    /// strata read as root, and was refused all the same.
    pub as_root: bool,
}

impl UserUnread {
    /// What the panel says of them.
    pub fn explain(&self) -> String {
        match self.why {
            Unread::Denied if self.as_root => format!(
                "{} of user {} unreadable even as root (a protected process, or another PID namespace's)",
                crate::format::count(self.count as usize, "process", "processes"),
                self.user
            ),
            Unread::Denied if self.user == "root" => format!(
                "{} of user root unreadable: run as root",
                crate::format::count(self.count as usize, "process", "processes")
            ),
            Unread::Denied => format!(
                "{} of user {} unreadable: run as root or as {}",
                crate::format::count(self.count as usize, "process", "processes"),
                self.user,
                self.user
            ),
            Unread::NoFile => format!(
                "{}: the kernel keeps no per-process I/O counters (CONFIG_TASK_IO_ACCOUNTING)",
                crate::format::count(self.count as usize, "process", "processes")
            ),
        }
    }
}

/// A host's processes over one interval.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcTick {
    pub wall_ms: i64,
    pub itv_cs: u64,
    pub delayacct: DelayAcct,
    pub processes: u32,
    pub readable: u32,
    /// Active processes, busiest first (read and written bytes).
    pub procs: Vec<ProcFig>,
    /// Roles, busiest first.
    pub roles: Vec<RoleFig>,
    /// The host's sum: unknown while any process is unreadable.
    pub all: ProcFigures,
    pub unreadable: Vec<UserUnread>,
    /// User names by UID.
    pub users: BTreeMap<u32, String>,
}

/// The bytes a figure table moved to and from storage, for ordering.
pub fn busy(f: &ProcFigures) -> f64 {
    f.get(ProcCol::KbRd).unwrap_or(0.0) + f.get(ProcCol::KbWr).unwrap_or(0.0)
}

fn sort_busiest<T>(v: &mut [T], key: impl Fn(&T) -> (f64, f64)) {
    v.sort_by(|a, b| {
        let (ab, ad) = key(a);
        let (bb, bd) = key(b);
        bb.total_cmp(&ab).then(bd.total_cmp(&ad))
    });
}

/// Adds `from`'s known figures to `to`; a figure unknown in `from` makes
/// the sum unknown.
fn add_into(to: &mut ProcFigures, from: &ProcFigures) {
    for (t, f) in to.0.iter_mut().zip(from.0.iter()) {
        *t = match (*t, *f) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
}

fn role_of<'a>(
    roles: &'a mut BTreeMap<(Role, Option<String>), RoleFig>,
    role: &Role,
    instance: &Option<String>,
    delay: DelayAcct,
) -> &'a mut RoleFig {
    roles
        .entry((role.clone(), instance.clone()))
        .or_insert_with(|| RoleFig {
            role: role.clone(),
            instance: instance.clone(),
            active: 0,
            unreadable: 0,
            figures: zeros(delay),
        })
}

/// The columns that come from /proc/PID/io (the rest from stat).
const IO_COLS: [ProcCol; 7] = [
    ProcCol::KbRd,
    ProcCol::KbWr,
    ProcCol::KbCcwr,
    ProcCol::KbRchar,
    ProcCol::KbWchar,
    ProcCol::Syscr,
    ProcCol::Syscw,
];

fn zeros(delay: DelayAcct) -> ProcFigures {
    figures(Some(&IoCounters::default()), Some(0), 1, delay)
}

/// The figures of a sample; `None` for a first reading, which spans no
/// interval.
pub fn tick(s: &ProcSample) -> Option<ProcTick> {
    let since = s.since_cs?;
    let itv_cs = s.uptime_cs.checked_sub(since).filter(|i| *i > 0)?;
    let mut procs: Vec<ProcFig> = s
        .rows
        .iter()
        .map(|r| ProcFig {
            figures: figures(r.delta.as_ref(), r.blkio_ticks, itv_cs, s.delayacct),
            row: r.clone(),
        })
        .collect();
    sort_busiest(&mut procs, |p| {
        (
            busy(&p.figures),
            p.figures.get(ProcCol::Iodelay).unwrap_or(0.0),
        )
    });
    let mut roles: BTreeMap<(Role, Option<String>), RoleFig> = BTreeMap::new();
    let mut all = zeros(s.delayacct);
    for p in &procs {
        let r = role_of(&mut roles, &p.row.role, &p.row.instance, s.delayacct);
        r.active += 1;
        add_into(&mut r.figures, &p.figures);
        add_into(&mut all, &p.figures);
    }
    for u in &s.unreadable {
        role_of(&mut roles, &u.role, &u.instance, s.delayacct).unreadable += u.count;
    }
    let mut roles: Vec<RoleFig> = roles.into_values().collect();
    for r in &mut roles {
        if r.unreadable > 0 {
            for c in IO_COLS {
                r.figures.set(c, None);
            }
        }
    }
    sort_busiest(&mut roles, |r| {
        (
            busy(&r.figures),
            r.figures.get(ProcCol::Iodelay).unwrap_or(0.0),
        )
    });
    let mut by_user: BTreeMap<(String, Unread), u32> = BTreeMap::new();
    for u in &s.unreadable {
        *by_user.entry((s.user(u.uid), u.why)).or_default() += u.count;
    }
    if !s.unreadable.is_empty() {
        for c in IO_COLS {
            all.set(c, None);
        }
    }
    let mut unreadable: Vec<UserUnread> = by_user
        .into_iter()
        .map(|((user, why), count)| UserUnread {
            user,
            why,
            count,
            as_root: s.reader == Some(0),
        })
        .collect();
    unreadable.sort_by(|a, b| b.count.cmp(&a.count).then(a.user.cmp(&b.user)));
    Some(ProcTick {
        wall_ms: s.wall_ms,
        itv_cs,
        delayacct: s.delayacct,
        processes: s.processes,
        readable: s.readable,
        procs,
        roles,
        all,
        unreadable,
        users: s.users.clone(),
    })
}

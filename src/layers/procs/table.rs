//! What a host's processes did over one interval, from two readings of
//! their files: pure. The source keeps a [`ProcTable`] of every process it
//! has seen and gives it each reading; what comes out, a [`ProcSample`],
//! holds only the processes whose counters moved (or that started within
//! the interval), each with its increase over the interval. A sample is
//! whole on its own: a recording stores a few dozen rows a second, not
//! every process, and a replay that starts anywhere has every figure.
//!
//! A process is its PID and its start time: a PID the kernel gave again
//! to a new process is a new process, not a counter that went back. A
//! process that started within the interval (its start after the previous
//! reading) did all its I/O within it, and is counted from zero; one that
//! was there before but not seen (the first reading, a file that could
//! not be read) is counted from its first reading.

use super::pid::{IoCounters, PidStat};
use super::role::{Role, classify};
use crate::core::error::ParseError;
use std::collections::{BTreeMap, HashMap};

/// Clock ticks per second of /proc/PID/stat's times (`USER_HZ`, what
/// sysconf(_SC_CLK_TCK) returns): 100 on every architecture strata runs
/// on, so that a start time in ticks compares with /proc/uptime's
/// centiseconds as it is.
pub const USER_HZ: u64 = 100;

/// The most roles whose running totals a source keeps: beyond, a new
/// command's I/O goes to [`OTHER`] (the series a scrape has do not grow
/// with the commands a host ran).
pub const TOTALS_MAX: usize = 100;

/// Where the I/O of commands beyond [`TOTALS_MAX`] is summed.
pub const OTHER: &str = "(other)";

/// Whether the kernel keeps the per-task block I/O delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum DelayAcct {
    On,
    /// `kernel.task_delayacct` is 0 (the default since 5.14), or the kernel
    /// was booted with `nodelayacct`.
    Off,
    #[default]
    Unknown,
}

impl DelayAcct {
    /// What the screen says when the delay is not kept.
    pub const HOW: &'static str =
        "I/O delay not kept: sysctl -w kernel.task_delayacct=1 (or boot with delayacct)";
}

/// One process as a reader saw it this time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub pid: u32,
    /// The owner (the real UID of /proc/PID/status, or the owner of
    /// /proc/PID, which is the same but for a setuid program).
    pub uid: u32,
    pub stat: PidStat,
    /// `/proc/PID/io`, or why it could not be read.
    pub io: Result<IoCounters, Unread>,
    /// The first argument and the command line, when they were read (a
    /// reader reads them once per process: [`ProcTable::knows`]).
    pub cmd: Option<(String, String)>,
}

/// Why a process's I/O counters are not known.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Unread {
    /// The file refused: another user's process, which needs root (or
    /// CAP_SYS_PTRACE) or its own user.
    Denied,
    /// A kernel without per-task I/O accounting (no /proc/PID/io).
    NoFile,
}

/// One process in a sample: its names, its counters, and what they did
/// over the interval.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProcRow {
    pub pid: u32,
    /// Clock ticks after boot: with the PID it names the process.
    pub start: u64,
    pub uid: u32,
    pub comm: String,
    pub cmd: String,
    pub role: Role,
    pub instance: Option<String>,
    /// The counters as read; `None` when they could not be.
    pub io: Option<IoCounters>,
    /// Their increase over the interval; `None` when unknown (unread, first
    /// seen, or a counter that went back).
    pub delta: Option<IoCounters>,
    /// delayacct_blkio_ticks' increase over the interval, `None` when
    /// unknown.
    pub blkio_ticks: Option<u64>,
    /// Started within the interval: counted from zero.
    pub new: bool,
}

/// Processes whose I/O could not be read, by owner, role and instance.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Unreadable {
    pub uid: u32,
    pub why: Unread,
    pub role: Role,
    pub instance: Option<String>,
    pub count: u32,
}

/// A role's I/O since the source began: running totals of its processes'
/// increases (a sum over processes that come and go is no counter of its
/// own), what `/metrics` exposes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RoleTotal {
    pub role: Role,
    pub instance: Option<String>,
    pub io: IoCounters,
    pub blkio_ticks: u64,
}

/// One reading of a host's processes.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProcSample {
    /// /proc/uptime in centiseconds, read just before the processes.
    pub uptime_cs: u64,
    pub wall_ms: i64,
    /// The previous reading's uptime: the interval the rows' increases
    /// span. `None` for the first reading (no increases).
    pub since_cs: Option<u64>,
    pub delayacct: DelayAcct,
    /// The UID strata read as (its effective UID; a node's login's).
    #[serde(default)]
    pub reader: Option<u32>,
    /// Processes seen, and how many of them had readable counters.
    pub processes: u32,
    pub readable: u32,
    /// User names of the UIDs in `unreadable` and `rows`, where known.
    pub users: BTreeMap<u32, String>,
    pub unreadable: Vec<Unreadable>,
    /// The processes whose counters moved within the interval, or that
    /// started within it.
    pub rows: Vec<ProcRow>,
    pub totals: Vec<RoleTotal>,
    pub rejected: Vec<ParseError>,
}

impl ProcSample {
    /// A first reading of nothing (the table's state when a source fails).
    pub fn empty(uptime_cs: u64, wall_ms: i64) -> Self {
        ProcSample {
            uptime_cs,
            wall_ms,
            since_cs: None,
            delayacct: DelayAcct::Unknown,
            reader: None,
            processes: 0,
            readable: 0,
            users: BTreeMap::new(),
            unreadable: Vec::new(),
            rows: Vec::new(),
            totals: Vec::new(),
            rejected: Vec::new(),
        }
    }

    pub fn user(&self, uid: u32) -> String {
        self.users
            .get(&uid)
            .cloned()
            .unwrap_or_else(|| uid.to_string())
    }
}

#[derive(Debug, Clone)]
struct Entry {
    start: u64,
    uid: u32,
    comm: String,
    cmd: String,
    role: Role,
    instance: Option<String>,
    io: Option<IoCounters>,
    blkio: Option<u64>,
    /// The reading that last saw it.
    seen: u64,
}

/// Every process a source has seen, as last read.
#[derive(Debug, Default)]
pub struct ProcTable {
    procs: HashMap<u32, Entry>,
    last_cs: Option<u64>,
    readings: u64,
    totals: BTreeMap<(Role, Option<String>), (IoCounters, u64)>,
}

impl ProcTable {
    /// Whether the table already has the command line of this process
    /// under this command name: a reader reads /proc/PID/cmdline only
    /// when not (a process that exec(2)s keeps its PID and start, and
    /// takes the new program's name).
    pub fn knows(&self, pid: u32, start: u64, comm: &str) -> bool {
        self.procs
            .get(&pid)
            .is_some_and(|e| e.start == start && e.comm == comm)
    }

    /// How many processes the table holds.
    pub fn len(&self) -> usize {
        self.procs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.procs.is_empty()
    }

    /// Forgets every process: the next reading is a first one.
    pub fn reset(&mut self) {
        *self = ProcTable::default();
    }

    /// A reading at `uptime_cs` of every process there is: the sample of
    /// what moved since the last one. A clock that went back (a reboot)
    /// starts afresh.
    pub fn update(
        &mut self,
        uptime_cs: u64,
        wall_ms: i64,
        seen: impl IntoIterator<Item = Seen>,
    ) -> ProcSample {
        if self.last_cs.is_some_and(|l| uptime_cs <= l) {
            self.reset();
        }
        let since = self.last_cs;
        self.readings += 1;
        let now = self.readings;
        let mut sample = ProcSample::empty(uptime_cs, wall_ms);
        sample.since_cs = since;
        let mut unread: BTreeMap<UnreadKey, u32> = BTreeMap::new();
        for s in seen {
            sample.processes += 1;
            let known = self.procs.get(&s.pid).filter(|e| e.start == s.stat.start);
            let renamed = known.is_none_or(|e| e.comm != s.stat.comm);
            let names = renamed.then(|| {
                let (argv0, cmd) = s.cmd.clone().unwrap_or_default();
                let (role, instance) = classify(&argv0, &s.stat.comm);
                (cmd, role, instance)
            });
            let (prev_io, prev_blkio) = known.map_or((None, None), |e| (e.io, e.blkio));
            // Started after the last reading: every count is the interval's.
            // A start in the very centisecond of the last reading, by a
            // process that reading did not see, was after it.
            let new = known.is_none() && since.is_some_and(|l| s.stat.start >= l);
            let io = s.io.as_ref().ok().copied();
            let delta = match (io, prev_io) {
                (Some(now), Some(prev)) => now.since(&prev),
                (Some(now), None) if new => Some(now),
                _ => None,
            };
            let blkio = match (s.stat.blkio_ticks, prev_blkio) {
                (Some(now), Some(prev)) => now.checked_sub(prev),
                (Some(now), None) if new => Some(now),
                _ => None,
            };
            let entry = self.procs.entry(s.pid).or_insert_with(|| Entry {
                start: s.stat.start,
                uid: s.uid,
                comm: String::new(),
                cmd: String::new(),
                role: Role::Command(String::new()),
                instance: None,
                io: None,
                blkio: None,
                seen: now,
            });
            if let Some((cmd, role, instance)) = names {
                // A process exec(2)ed anew keeps its counters.
                *entry = Entry {
                    start: s.stat.start,
                    uid: s.uid,
                    comm: s.stat.comm.clone(),
                    cmd,
                    role,
                    instance,
                    io: prev_io,
                    blkio: prev_blkio,
                    seen: now,
                };
            }
            entry.seen = now;
            entry.uid = s.uid;
            entry.io = io;
            entry.blkio = s.stat.blkio_ticks;
            match &s.io {
                Ok(_) => sample.readable += 1,
                Err(why) => {
                    *unread
                        .entry((s.uid, *why, entry.role.clone(), entry.instance.clone()))
                        .or_default() += 1;
                }
            }
            let moved = delta.is_some_and(|d| !d.is_zero()) || blkio.is_some_and(|b| b > 0);
            if !moved {
                continue;
            }
            let mut key = (entry.role.clone(), entry.instance.clone());
            // Only a plain command's totals go to OTHER past the cap: a
            // role of Oracle or Grid that first moves late keeps its own.
            let command = matches!(key.0, Role::Command(_));
            if command && self.totals.len() >= TOTALS_MAX && !self.totals.contains_key(&key) {
                key = (Role::Command(OTHER.to_string()), None);
            }
            let total = self.totals.entry(key).or_default();
            if let Some(d) = &delta {
                total.0.add(d);
            }
            total.1 = total.1.saturating_add(blkio.unwrap_or(0));
            sample.rows.push(ProcRow {
                pid: s.pid,
                start: entry.start,
                uid: entry.uid,
                comm: entry.comm.clone(),
                cmd: entry.cmd.clone(),
                role: entry.role.clone(),
                instance: entry.instance.clone(),
                io,
                delta,
                blkio_ticks: blkio,
                new,
            });
        }
        self.procs.retain(|_, e| e.seen == now);
        self.last_cs = Some(uptime_cs);
        self.finish(&mut sample, unread);
        sample
    }

    /// The sample's rows in PID order, its unreadable by owner and role,
    /// and the running totals.
    fn finish(&self, sample: &mut ProcSample, unread: BTreeMap<UnreadKey, u32>) {
        sample.rows.sort_by_key(|r| r.pid);
        sample.unreadable = unread
            .into_iter()
            .map(|((uid, why, role, instance), count)| Unreadable {
                uid,
                why,
                role,
                instance,
                count,
            })
            .collect();
        sample.totals = self
            .totals
            .iter()
            .map(|((role, instance), (io, blkio))| RoleTotal {
                role: role.clone(),
                instance: instance.clone(),
                io: *io,
                blkio_ticks: *blkio,
            })
            .collect();
    }
}

/// Unreadable processes' owner, reason, role and instance.
type UnreadKey = (u32, Unread, Role, Option<String>);

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(pid: u32, start: u64, argv0: &str, read_bytes: u64) -> Seen {
        Seen {
            pid,
            uid: 54321,
            stat: PidStat {
                comm: "oracle".into(),
                state: 'S',
                cpu_ticks: 0,
                start,
                blkio_ticks: Some(0),
            },
            io: Ok(IoCounters {
                read_bytes,
                ..Default::default()
            }),
            cmd: Some((argv0.into(), argv0.into())),
        }
    }

    #[test]
    fn only_what_moved_with_its_increase() {
        let mut t = ProcTable::default();
        let first = t.update(
            1000,
            0,
            [
                seen(10, 5, "ora_dbw0_P1", 100),
                seen(11, 5, "ora_lgwr_P1", 7),
            ],
        );
        assert_eq!(first.since_cs, None);
        assert!(first.rows.is_empty());
        assert_eq!(first.processes, 2);
        let second = t.update(
            1100,
            1000,
            [
                seen(10, 5, "ora_dbw0_P1", 4196),
                seen(11, 5, "ora_lgwr_P1", 7),
            ],
        );
        assert_eq!(second.since_cs, Some(1000));
        assert_eq!(second.rows.len(), 1);
        let r = &second.rows[0];
        assert_eq!(
            (r.pid, r.role.clone(), r.instance.as_deref()),
            (10, Role::DbWriter, Some("P1"))
        );
        assert_eq!(r.delta.map(|d| d.read_bytes), Some(4096));
        assert_eq!(second.totals.len(), 1);
        assert_eq!(second.totals[0].io.read_bytes, 4096);
    }

    #[test]
    fn a_reused_pid_is_a_new_process_counted_from_zero() {
        let mut t = ProcTable::default();
        t.update(1000, 0, [seen(10, 5, "ora_dbw0_P1", 9000)]);
        // PID 10 again, started at 1050: within the interval.
        let s = t.update(1100, 1000, [seen(10, 1050, "dd", 300)]);
        let r = &s.rows[0];
        assert!(r.new);
        assert_eq!(r.role, Role::Command("oracle".into()));
        assert_eq!(r.delta.map(|d| d.read_bytes), Some(300));
    }

    #[test]
    fn a_process_that_execs_takes_its_new_name_and_keeps_its_counters() {
        let mut t = ProcTable::default();
        let mut sh = seen(10, 5, "bash", 100);
        sh.stat.comm = "bash".into();
        t.update(1000, 0, [sh]);
        assert!(t.knows(10, 5, "bash"));
        assert!(!t.knows(10, 5, "dd"));
        let mut dd = seen(10, 5, "ora_dbw0_P1", 4196);
        dd.stat.comm = "dd".into();
        let s = t.update(1100, 1000, [dd]);
        assert_eq!(s.rows[0].role, Role::DbWriter);
        assert_eq!(s.rows[0].delta.map(|d| d.read_bytes), Some(4096));
    }

    #[test]
    fn a_process_started_in_the_centisecond_of_the_last_reading_is_new() {
        let mut t = ProcTable::default();
        t.update(1000, 0, []);
        let s = t.update(1100, 1000, [seen(12, 1000, "x", 300)]);
        assert!(s.rows[0].new);
        assert_eq!(s.rows[0].delta.map(|d| d.read_bytes), Some(300));
    }

    #[test]
    fn a_process_there_before_but_first_seen_now_has_no_increase() {
        let mut t = ProcTable::default();
        t.update(1000, 0, []);
        let s = t.update(1100, 1000, [seen(12, 400, "x", 300)]);
        assert!(s.rows.is_empty());
        let s = t.update(1200, 2000, [seen(12, 400, "x", 500)]);
        assert_eq!(s.rows[0].delta.map(|d| d.read_bytes), Some(200));
    }

    #[test]
    fn a_counter_that_falls_is_unknown_not_negative() {
        let mut t = ProcTable::default();
        t.update(1000, 0, [seen(10, 5, "x", 900)]);
        let mut s = seen(10, 5, "x", 100);
        s.stat.blkio_ticks = Some(3);
        let out = t.update(1100, 1000, [s]);
        assert_eq!(out.rows[0].delta, None);
        assert_eq!(out.rows[0].blkio_ticks, Some(3));
    }

    #[test]
    fn unreadable_processes_are_counted_by_owner_and_role() {
        let mut t = ProcTable::default();
        let mut a = seen(10, 5, "ora_dbw0_P1", 0);
        a.io = Err(Unread::Denied);
        let mut b = seen(11, 5, "ora_lgwr_P1", 0);
        b.io = Err(Unread::Denied);
        let s = t.update(1000, 0, [a, b, seen(12, 5, "x", 1)]);
        assert_eq!((s.processes, s.readable), (3, 1));
        assert_eq!(s.unreadable.len(), 2);
        assert!(s.unreadable.iter().all(|u| u.uid == 54321 && u.count == 1));
    }

    #[test]
    fn a_clock_that_goes_back_starts_afresh() {
        let mut t = ProcTable::default();
        t.update(1000, 0, [seen(10, 5, "x", 900)]);
        let s = t.update(500, 1000, [seen(10, 5, "x", 1900)]);
        assert_eq!(s.since_cs, None);
        assert!(s.rows.is_empty());
    }
}

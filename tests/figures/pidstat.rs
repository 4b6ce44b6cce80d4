//! Row-for-row parity of the process layer with sysstat 12.6 `pidstat -d
//! 1 1`.
//!
//! A seeded generator makes pairs of /proc trees (A, B), a few hundred
//! processes each: every process's stat (a comm with blanks and
//! parentheses among them), status (its Uid), io, schedstat and cmdline,
//! and /proc/uptime (B 0.5 to 2.5 s after A), /proc/stat. For each pair,
//! in a private mount namespace (`unshare -m`), A is bind-mounted over
//! /proc; pidstat starts and reads it; B is bound over A half a second
//! later and pidstat reads it at its first interval. strata reads the same
//! two trees through its source (`ProcSource` over a root whose `proc` is
//! A, then B) and prints its `strata batch procs` text (`text_report`),
//! which has pidstat's columns. Rows are compared by PID, token for token:
//! UID, kB_rd/s, kB_wr/s, kB_ccwr/s (two decimals), iodelay (ticks) and
//! the command.
//!
//! The processes' fates between A and B: idle; reading, writing,
//! cancelling writes; only rchar, wchar, syscr and syscw moving (strata
//! lists the process, pidstat -d does not; the test checks that the rows
//! of strata's that pidstat leaves out are exactly these); only the block
//! I/O delay (stat's field 42) moving; started between A and B (counted
//! from zero by both); exited; counters near 2^53 to 2^64. Any of them may
//! have its delay move too. Some intervals make kB figures that end on a
//! tie at the third decimal (both round them to even).
//!
//! pidstat tracks a process by its PID alone; strata by its PID and start
//! time. Where they differ the generator meant it, and the rows are
//! counted apart, never as agreement, each checked for what either side
//! prints:
//!
//! - **A PID reused** by a process started within the interval (a new
//!   start time, lower counters): strata counts the new process from zero
//!   (its every byte is the interval's); pidstat diffs it against the old
//!   process's counters, which wraps to some 10^16 kB/s.
//! - **Counters that go back** for the same process (a storage counter or
//!   the delay): strata prints "–" (unknown) for the counters of the file
//!   that went back, and leaves the process out when nothing else moved;
//!   pidstat prints the unsigned wrap, some 10^16 kB/s or an iodelay of
//!   about 1.8 × 10^19.
//! - **No /proc/PID/io** (a kernel without per-task I/O accounting): both
//!   print the process only when its delay moved, with the same iodelay;
//!   strata prints "–" for the three kB columns, pidstat -1.00.
//!
//! Needs pidstat and `unshare -m` with the right to mount (root or
//! CAP_SYS_ADMIN); without them the test prints "SKIPPED: reason" and
//! passes, unless STRATA_REQUIRE_PARITY=1. docs/procs.md summarises.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::time::Duration;

use strata::core::rootfs::RootFs;
use strata::layers::procs::model::{ProcFig, ProcTick, tick};
use strata::layers::procs::pid::{IoCounters, parse_stat};
use strata::layers::procs::report::{pidstat_shows, text_report};
use strata::layers::procs::source::ProcSource;

use crate::peer_tools;
use peer_tools::{Rng, or_skip, outcome, run_all, sh_quote};

const SEED: u64 = 0x9d57_a7d1_0000_0001;
const PAIRS: usize = 12;
const PROCS: (u64, u64) = (300, 600);
const PARALLEL: usize = 4;
const ATTEMPTS: usize = 2;
const NS_TIMEOUT: Duration = Duration::from_secs(15);
const DEADLINE: Duration = Duration::from_secs(45);

/// What happens to one process between A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fate {
    Idle,
    Reads,
    Writes,
    Cancels,
    /// rchar, wchar, syscr and syscw move; the storage counters and the
    /// delay do not.
    Syscalls,
    /// Only the block I/O delay moves.
    Delay,
    /// In B only, started within the interval.
    Started,
    /// In A only.
    Exits,
    /// The PID is another process's in B (started within the interval,
    /// lower counters): a divergence.
    Reused,
    /// A storage counter or the delay goes back: a divergence.
    Falls,
    /// No io file (in B, or in both): a divergence when pidstat prints it.
    NoIo,
    /// Counters between 2^53 and 2^64, moving.
    Huge,
}

/// Each fate's weight: the divergences are a few in a hundred processes.
const FATES: [(Fate, u64); 12] = [
    (Fate::Idle, 12),
    (Fate::Reads, 14),
    (Fate::Writes, 12),
    (Fate::Cancels, 8),
    (Fate::Syscalls, 10),
    (Fate::Delay, 8),
    (Fate::Started, 8),
    (Fate::Exits, 6),
    (Fate::Reused, 4),
    (Fate::Falls, 5),
    (Fate::NoIo, 5),
    (Fate::Huge, 8),
];

fn pick_fate(rng: &mut Rng) -> Fate {
    let mut at = rng.below(FATES.iter().map(|(_, w)| w).sum());
    for (fate, w) in FATES {
        if at < w {
            return fate;
        }
        at -= w;
    }
    unreachable!()
}

/// The fates of the processes a pair's divergences come from.
const DIVERGING: [Fate; 3] = [Fate::Reused, Fate::Falls, Fate::NoIo];

/// One process in one tree.
#[derive(Debug, Clone)]
struct Proc {
    uid: u32,
    comm: String,
    argv: Vec<String>,
    /// Clock ticks after boot (100 Hz, as /proc/uptime's centiseconds).
    start: u64,
    blkio: u64,
    io: Option<IoCounters>,
    threads: u32,
}

struct Pair {
    id: usize,
    up_a: u64,
    up_b: u64,
    fates: BTreeMap<u32, Fate>,
    a: BTreeMap<u32, Proc>,
    b: BTreeMap<u32, Proc>,
}

/// Commands as the kernel keeps them (at most 15 bytes), with blanks and
/// parentheses, which end only at stat's last ')'.
const COMMS: [&str; 16] = [
    "ora_dbw0_PROD1",
    "ora_lgwr_PROD1",
    "ora_arc2_PROD1",
    "oraclePROD1",
    "asm_rbal_+ASM1",
    "dd",
    "kworker/u4:2",
    "jbd2/vda-8",
    "(sd-pam)",
    "a) b (c)",
    "tmux: server",
    "my prog",
    "x)(y",
    "python3",
    "java",
    "rsync",
];

const UIDS: [u32; 5] = [0, 1000, 54321, 54322, 65534];

fn proc_of(rng: &mut Rng, start: u64) -> Proc {
    let comm = rng.pick(&COMMS).to_string();
    let argv = if comm.starts_with("kworker") || comm.starts_with("jbd2") {
        Vec::new()
    } else {
        vec![comm.clone(), "--opt".into(), "(LOCAL=NO)".into()]
    };
    let mut r = |lo, hi| rng.range(lo, hi);
    let io = IoCounters {
        rchar: r(0, 1 << 40),
        wchar: r(0, 1 << 38),
        syscr: r(0, 1 << 30),
        syscw: r(0, 1 << 28),
        read_bytes: r(1 << 20, 1 << 40),
        write_bytes: r(4096, 1 << 38),
        cancelled_write_bytes: r(4096, 1 << 30),
    };
    Proc {
        uid: rng.pick(&UIDS),
        comm,
        argv,
        start,
        blkio: rng.range(1000, 1 << 32),
        io: Some(io),
        threads: rng.range(1, 64) as u32,
    }
}

/// Bytes an interval's I/O moves a storage counter by: whole pages most
/// often, any count of bytes now and then, or of 128 bytes (over 0.8, 1,
/// 1.6 or 2 s, a figure that ends on a tie at the third decimal).
fn bytes(rng: &mut Rng) -> u64 {
    match rng.below(4) {
        0 => rng.range(1, 4096),
        1 => rng.range(1, 64) * 128,
        _ => rng.range(1, 25_600) * 4096,
    }
}

/// The syscall counters' move, which pidstat -d does not show.
fn syscalls(rng: &mut Rng, io: &mut IoCounters) {
    io.rchar += rng.range(1, 1 << 24);
    io.wchar += rng.range(0, 1 << 20);
    io.syscr += rng.range(1, 5000);
    io.syscw += rng.range(0, 500);
}

fn generate(id: usize, rng: &mut Rng) -> Pair {
    let up_a = rng.range(30_000, 900_000_000);
    let itv = if rng.chance(40) {
        rng.pick(&[80, 100, 160, 200])
    } else {
        rng.range(50, 250)
    };
    let up_b = up_a + itv;
    let n = rng.range(PROCS.0, PROCS.1);
    let mut pids = BTreeSet::new();
    while pids.len() < n as usize {
        let pid = if rng.chance(10) {
            rng.range(1, 300)
        } else {
            rng.range(300, 4_194_304)
        };
        pids.insert(pid as u32);
    }
    let (mut fates, mut a, mut b) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    for pid in pids {
        let fate = pick_fate(rng);
        let start = rng.range(0, up_a - 1);
        let old = proc_of(rng, start);
        let (old, new) = match fate {
            Fate::Started => {
                let start = rng.range(up_a + 1, up_b);
                (None, Some(started(rng, start)))
            }
            Fate::Exits => (Some(old), None),
            Fate::Reused => {
                let start = rng.range(up_a + 1, up_b);
                let new = reused(rng, &old, start);
                (Some(old), Some(new))
            }
            Fate::Huge => {
                let (old, new) = huge(rng, old);
                (Some(old), Some(new))
            }
            _ => {
                let (old, new) = lives_on(rng, fate, old);
                (Some(old), Some(new))
            }
        };
        fates.insert(pid, fate);
        if let Some(old) = old {
            a.insert(pid, old);
        }
        if let Some(new) = new {
            b.insert(pid, new);
        }
    }
    Pair {
        id,
        up_a,
        up_b,
        fates,
        a,
        b,
    }
}

/// A process started at `start`, within the interval: its counters are
/// all the interval's.
fn started(rng: &mut Rng, start: u64) -> Proc {
    let mut new = proc_of(rng, start);
    let mut io = IoCounters::default();
    if rng.chance(80) {
        io.read_bytes = bytes(rng);
        io.write_bytes = bytes(rng) * rng.below(2);
        syscalls(rng, &mut io);
    }
    new.io = Some(io);
    new.blkio = rng.range(0, 40) * rng.below(2);
    new
}

/// Another process with `old`'s PID, started at `start`: the old one did
/// I/O, the new one has done less.
fn reused(rng: &mut Rng, old: &Proc, start: u64) -> Proc {
    let mut new = proc_of(rng, start);
    let o = old.io.unwrap();
    let mut io = IoCounters::default();
    if rng.chance(75) {
        io.read_bytes = rng.range(0, o.read_bytes / 2);
        io.write_bytes = rng.range(0, o.write_bytes / 2);
        io.rchar = io.read_bytes + rng.range(0, 1 << 20);
        io.syscr = rng.range(0, 100);
    }
    new.io = Some(io);
    new.blkio = rng.range(0, old.blkio.min(40));
    new
}

/// `old` with counters between 2^53 and 2^64, and its reading in B.
fn huge(rng: &mut Rng, mut old: Proc) -> (Proc, Proc) {
    let base = |rng: &mut Rng| rng.range(1 << 53, u64::MAX - (1 << 62));
    let mut o = old.io.unwrap();
    o.read_bytes = base(rng);
    o.write_bytes = base(rng);
    o.cancelled_write_bytes = base(rng);
    o.rchar = base(rng);
    old.io = Some(o);
    let step = |rng: &mut Rng| match rng.below(3) {
        0 => bytes(rng),
        1 => rng.range(0, 1 << 50),
        _ => rng.range(0, 1 << 62),
    };
    let mut new = old.clone();
    let mut io = o;
    io.read_bytes += step(rng);
    io.write_bytes += step(rng);
    io.cancelled_write_bytes += step(rng) * rng.below(2);
    io.rchar += step(rng);
    new.io = Some(io);
    if rng.chance(30) {
        new.blkio += rng.range(1, 250);
    }
    (old, new)
}

/// A process in A and in B, the same one, as its fate moves it.
fn lives_on(rng: &mut Rng, fate: Fate, mut old: Proc) -> (Proc, Proc) {
    let mut new = old.clone();
    let mut io = old.io.unwrap();
    // Any fate but these may have its delay move too.
    if !matches!(fate, Fate::Idle | Fate::Syscalls | Fate::Falls) && rng.chance(30) {
        new.blkio += rng.range(1, 250);
    }
    match fate {
        Fate::Reads => {
            io.read_bytes += bytes(rng);
            syscalls(rng, &mut io);
        }
        Fate::Writes => {
            io.write_bytes += bytes(rng);
            if rng.chance(50) {
                io.read_bytes += bytes(rng);
            }
            syscalls(rng, &mut io);
        }
        Fate::Cancels => {
            io.cancelled_write_bytes += bytes(rng);
            if rng.chance(50) {
                io.write_bytes += bytes(rng);
            }
        }
        Fate::Syscalls => syscalls(rng, &mut io),
        Fate::Delay => new.blkio += rng.range(1, 250),
        Fate::Falls if rng.chance(70) => {
            match rng.below(3) {
                0 => io.read_bytes -= rng.range(1, io.read_bytes.min(1 << 20)),
                1 => io.write_bytes -= rng.range(1, io.write_bytes.min(1 << 20)),
                _ => io.cancelled_write_bytes -= rng.range(1, io.cancelled_write_bytes.min(4096)),
            }
            if rng.chance(50) {
                new.blkio += rng.range(1, 250);
            }
        }
        Fate::Falls => {
            new.blkio -= rng.range(1, new.blkio.min(500));
            if rng.chance(50) {
                io.read_bytes += bytes(rng);
            }
        }
        Fate::NoIo => {
            if rng.chance(70) {
                new.blkio += rng.range(1, 250);
            }
            // Gone in B, or in both.
            if rng.chance(50) {
                old.io = None;
            }
        }
        Fate::Idle | Fate::Started | Fate::Exits | Fate::Reused | Fate::Huge => {}
    }
    new.io = (fate != Fate::NoIo).then_some(io);
    (old, new)
}

fn stat_line(pid: u32, p: &Proc) -> String {
    let cpu = p.start % 5000;
    format!(
        "{pid} ({}) S 1 {pid} {pid} 0 -1 4194560 {} 0 {} 0 {} {} 0 0 20 0 {} 0 {} {} {} 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 {} 0 0 {} 0 0 0 0 0 0 0 0 0 0\n",
        p.comm,
        cpu * 7,
        cpu / 9,
        cpu,
        cpu / 3,
        p.threads,
        p.start,
        (p.threads as u64 + 3) << 24,
        cpu + 400,
        pid % 2,
        p.blkio,
    )
}

fn write_tree(dir: &Path, uptime_cs: u64, procs: &BTreeMap<u32, Proc>) -> std::io::Result<()> {
    fs::create_dir_all(dir.join("sys/kernel"))?;
    fs::write(
        dir.join("uptime"),
        format!("{}.{:02} 4242.00\n", uptime_cs / 100, uptime_cs % 100),
    )?;
    let j = uptime_cs * 2;
    fs::write(
        dir.join("stat"),
        format!(
            "cpu  {} 0 {} {} 0 0 0 0 0 0\ncpu0 {} 0 {} {} 0 0 0 0 0 0\nbtime 1764300000\n",
            j / 10,
            j / 20,
            j - j / 10 - j / 20,
            j / 20,
            j / 40,
            j / 2 - j / 20 - j / 40
        ),
    )?;
    fs::write(dir.join("sys/kernel/task_delayacct"), "1\n")?;
    for (pid, p) in procs {
        let d = dir.join(pid.to_string());
        fs::create_dir(&d)?;
        fs::write(d.join("stat"), stat_line(*pid, p))?;
        fs::write(
            d.join("status"),
            format!(
                "Name:\t{}\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t{pid}\nPid:\t{pid}\nPPid:\t1\nUid:\t{u}\t{u}\t{u}\t{u}\nGid:\t{u}\t{u}\t{u}\t{u}\nThreads:\t{}\nvoluntary_ctxt_switches:\t{}\nnonvoluntary_ctxt_switches:\t3\n",
                p.comm,
                p.threads,
                p.start % 977,
                u = p.uid
            ),
        )?;
        if let Some(io) = &p.io {
            fs::write(
                d.join("io"),
                format!(
                    "rchar: {}\nwchar: {}\nsyscr: {}\nsyscw: {}\nread_bytes: {}\nwrite_bytes: {}\ncancelled_write_bytes: {}\n",
                    io.rchar,
                    io.wchar,
                    io.syscr,
                    io.syscw,
                    io.read_bytes,
                    io.write_bytes,
                    io.cancelled_write_bytes
                ),
            )?;
        }
        if pid % 3 != 0 {
            fs::write(
                d.join("schedstat"),
                format!("{} {} {}\n", p.start * 1000, p.start * 10, p.start % 100),
            )?;
        }
        let mut cmdline = Vec::new();
        for arg in &p.argv {
            cmdline.extend_from_slice(arg.as_bytes());
            cmdline.push(0);
        }
        fs::write(d.join("cmdline"), cmdline)?;
    }
    Ok(())
}

/// One row of pidstat -d's report (or of strata's text of it): UID,
/// kB_rd/s, kB_wr/s, kB_ccwr/s, iodelay, the command.
type Row = [String; 6];

/// The first report's rows by PID (the Average block left out). A row is
/// the time, UID, PID, the three kB figures and iodelay, then two blanks
/// and the command, which may hold blanks itself. Lines that are no such
/// row (strata's unreadable processes) are skipped.
fn report_rows(out: &str) -> Result<BTreeMap<u32, Row>, String> {
    let mut rows = BTreeMap::new();
    let mut in_report = false;
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.get(1) == Some(&"UID") && w.get(2) == Some(&"PID") {
            if l.starts_with("Average") {
                break;
            }
            in_report = true;
            continue;
        }
        if !in_report {
            continue;
        }
        if w.is_empty() {
            break;
        }
        let (Some(Ok(_)), Some(Ok(pid))) = (
            w.get(1).map(|u| u.parse::<u32>()),
            w.get(2).map(|p| p.parse::<u32>()),
        ) else {
            continue;
        };
        if w.len() < 8 {
            return Err(format!("row {l:?}"));
        }
        // The command: what follows iodelay and its two blanks.
        let mut rest = l;
        for word in &w[..7] {
            let at = rest.find(word).ok_or_else(|| format!("row {l:?}"))?;
            rest = &rest[at + word.len()..];
        }
        let command = rest
            .strip_prefix("  ")
            .ok_or_else(|| format!("no command in {l:?}"))?;
        let row = [w[1], w[3], w[4], w[5], w[6], command].map(str::to_string);
        if rows.insert(pid, row).is_some() {
            return Err(format!("PID {pid} twice: {out}"));
        }
    }
    if !in_report {
        return Err(format!("no report in {out:?}"));
    }
    Ok(rows)
}

/// strata's reading of A then B, through its source under a root whose
/// `proc` is first A then B.
fn strata_tick(dir: &Path) -> Result<ProcTick, String> {
    let root = dir.join("root");
    let e = |e: std::io::Error| format!("{}: {e}", root.display());
    fs::create_dir(&root).map_err(e)?;
    let link = root.join("proc");
    std::os::unix::fs::symlink(dir.join("a"), &link).map_err(e)?;
    let mut source = ProcSource::new(RootFs::new(&root));
    let first = source.sample(0).map_err(|e| e.to_string())?;
    fs::remove_file(&link).map_err(e)?;
    std::os::unix::fs::symlink(dir.join("b"), &link).map_err(e)?;
    let second = source.sample(1000).map_err(|e| e.to_string())?;
    if !first.rejected.is_empty() || !second.rejected.is_empty() {
        return Err(format!(
            "strata rejected {:?} {:?}",
            first.rejected, second.rejected
        ));
    }
    tick(&second).ok_or_else(|| "no interval between A and B".to_string())
}

/// How many of a process's kB figures are exactly half a hundredth:
/// `Δ × 100 / itv / 1024` × 100 an odd number of halves.
fn ties(p: &Pair, pid: u32) -> usize {
    let (Some(a), Some(b)) = (p.a.get(&pid), p.b.get(&pid)) else {
        return 0;
    };
    let (Some(a), Some(b)) = (a.io, b.io) else {
        return 0;
    };
    let Some(d) = b.since(&a) else {
        return 0;
    };
    let den = u128::from(p.up_b - p.up_a) * 1024;
    [d.read_bytes, d.write_bytes, d.cancelled_write_bytes]
        .into_iter()
        .filter(|&n| {
            let halves = u128::from(n) * 20_000;
            halves % den == 0 && (halves / den) % 2 == 1
        })
        .count()
}

/// A figure pidstat printed from a counter that wrapped: 2^64 less a
/// little over an interval of at most 2.5 s is 7.2 × 10^15 kB/s, or an
/// iodelay of 1.8 × 10^19 ticks. The generator's other counters of
/// these fates move by far less.
fn wrapped(token: &str) -> bool {
    token.parse::<f64>().is_ok_and(|v| v > 5e15)
}

const UNKNOWN: &str = strata::format::UNKNOWN;

#[derive(Default)]
struct Tally {
    processes: usize,
    pidstat_rows: usize,
    rows: usize,
    /// Fields alike: UID, the three kB figures, iodelay and the command.
    fields: usize,
    strata_only: usize,
    /// kB figures alike whose value ends on a tie at the third decimal
    /// (both round it to even).
    ties: usize,
    diverged: BTreeMap<Fate, usize>,
    fates: BTreeMap<Fate, usize>,
}

/// Holds strata's rows to pidstat's: the same rows alike, but where the
/// generator meant them to diverge, each checked for what both print.
fn compare(p: &Pair, t: &ProcTick, theirs: &BTreeMap<u32, Row>) -> Result<Tally, String> {
    let ours = report_rows(&text_report(t))?;
    let listed: BTreeMap<u32, _> = t.procs.iter().map(|f| (f.row.pid, f)).collect();
    let mut tally = Tally {
        processes: p.fates.len(),
        pidstat_rows: theirs.len(),
        ..Tally::default()
    };
    for f in p.fates.values() {
        *tally.fates.entry(*f).or_default() += 1;
    }
    let pids: BTreeSet<u32> = theirs.keys().chain(ours.keys()).copied().collect();
    for pid in pids {
        let fate = p.fates[&pid];
        let (want, got) = (theirs.get(&pid), ours.get(&pid));
        let bad = |why: &str| -> String {
            format!(
                "pair {} PID {pid} ({fate:?}): {why}\n pidstat {want:?}\n strata  {got:?}\n A {:?}\n B {:?}",
                p.id,
                p.a.get(&pid),
                p.b.get(&pid)
            )
        };
        if !DIVERGING.contains(&fate) {
            if want != got {
                return Err(bad("rows differ"));
            }
            tally.rows += 1;
            tally.fields += 6;
            tally.ties += ties(p, pid);
            continue;
        }
        let want = want.ok_or_else(|| bad("strata prints a row pidstat does not"))?;
        diverges(p, pid, want, got, listed.get(&pid).copied()).map_err(bad)?;
        *tally.diverged.entry(fate).or_default() += 1;
    }
    // strata's rows that pidstat -d does not print: exactly the processes
    // whose system calls alone moved.
    for f in &t.procs {
        let pid = f.row.pid;
        let fate = p.fates[&pid];
        if theirs.contains_key(&pid) {
            continue;
        }
        let still = f.row.delta.is_some_and(|d| {
            d.read_bytes == 0 && d.write_bytes == 0 && d.cancelled_write_bytes == 0
        }) && f.row.blkio_ticks == Some(0);
        if fate != Fate::Syscalls || !still || pidstat_shows(f) {
            return Err(format!(
                "pair {} PID {pid} ({fate:?}): strata lists {:?}, pidstat does not",
                p.id, f.row
            ));
        }
        tally.strata_only += 1;
    }
    let syscalls = p.fates.values().filter(|f| **f == Fate::Syscalls).count();
    if tally.strata_only != syscalls {
        return Err(format!(
            "pair {}: strata lists {} processes of system calls only, of {syscalls}",
            p.id, tally.strata_only
        ));
    }
    Ok(tally)
}

/// What both print of a process whose fate is to diverge: `Err` says how
/// either did not.
fn diverges(
    p: &Pair,
    pid: u32,
    want: &Row,
    got: Option<&Row>,
    listed: Option<&ProcFig>,
) -> Result<(), &'static str> {
    let b = &p.b[&pid];
    let kb_wrapped = want[1..4].iter().any(|v| wrapped(v));
    match p.fates[&pid] {
        Fate::Reused => {
            // strata: the new process from zero; pidstat: a wrap.
            if !kb_wrapped && !wrapped(&want[4]) {
                return Err("pidstat did not wrap");
            }
            match listed {
                Some(f)
                    if !f.row.new || f.row.delta != b.io || f.row.blkio_ticks != Some(b.blkio) =>
                {
                    Err("strata did not count the new process from zero")
                }
                None if b.io.is_some_and(|io| !io.is_zero()) || b.blkio > 0 => {
                    Err("strata left out a new process that did I/O")
                }
                _ => Ok(()),
            }
        }
        // A storage counter went back: strata's kB unknown, its iodelay
        // pidstat's; or the process left out, when its delay did not move.
        Fate::Falls if b.io.unwrap().since(&p.a[&pid].io.unwrap()).is_none() => {
            if !kb_wrapped {
                return Err("pidstat did not wrap a kB figure");
            }
            match got {
                Some(g) if g[1..4].iter().any(|v| v != UNKNOWN) || g[4] != want[4] => {
                    Err("strata's kB figures are not unknown, or its iodelay differs")
                }
                _ => Ok(()),
            }
        }
        // The delay went back: strata's iodelay unknown, its kB pidstat's;
        // or the process left out, when its I/O did not move.
        Fate::Falls => {
            if !wrapped(&want[4]) {
                return Err("pidstat did not wrap iodelay");
            }
            match got {
                Some(g) if g[1..4] != want[1..4] || g[4] != UNKNOWN => {
                    Err("strata's iodelay is not unknown, or its kB figures differ")
                }
                _ => Ok(()),
            }
        }
        // Printed for its delay alone, the same by both.
        Fate::NoIo => {
            let got = got.ok_or("strata left out a process without io")?;
            if want[1..4].iter().any(|v| v != "-1.00")
                || got[1..4].iter().any(|v| v != UNKNOWN)
                || (&want[0], &want[4], &want[5]) != (&got[0], &got[4], &got[5])
            {
                return Err("not -1.00 against unknown, with all else alike");
            }
            Ok(())
        }
        _ => Err("not a fate that diverges"),
    }
}

fn write_pair(p: &Pair, dir: &Path) -> Result<(), String> {
    let io = |r: std::io::Result<()>| r.map_err(|e| format!("{}: {e}", dir.display()));
    io(write_tree(&dir.join("a"), p.up_a, &p.a))?;
    io(write_tree(&dir.join("b"), p.up_b, &p.b))
}

fn run_pair(pidstat: &Path, p: &Pair) -> Result<Tally, String> {
    let dir = tempfile::Builder::new()
        .prefix("strata-pidstat-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let t = dir.path();
    write_pair(p, t)?;
    let ours = strata_tick(t)?;
    let mut s = String::new();
    let _ = writeln!(s, "T={}", sh_quote(&t.display().to_string()));
    s.push_str("mount --bind \"$T/a\" /proc || exit 90\n");
    let _ = writeln!(
        s,
        "env -i PATH=/usr/bin:/bin S_COLORS=never LC_ALL=C TZ=UTC {} -d 1 1 > \"$T/out\" 2> \"$T/err\" &",
        sh_quote(&pidstat.display().to_string())
    );
    // B is bound over A, not written into it: pidstat sees a tree whole.
    s.push_str("sleep 0.5\nmount --bind \"$T/b\" /proc || exit 92\nwait $!\necho $? > \"$T/rc\"\n");
    let out = peer_tools::run_in_namespace(t, &s, NS_TIMEOUT, &format!("pair {}", p.id))?;
    let theirs = report_rows(&out)?;
    compare(p, &ours, &theirs)
}

#[test]
fn the_process_layer_matches_pidstat_d() {
    let env = peer_tools::sysstat_in_namespace("pidstat");
    let Some(pidstat) = or_skip("pidstat parity", "STRATA_REQUIRE_PARITY", env) else {
        return;
    };
    let mut rng = Rng::new(SEED);
    let pairs: Vec<Pair> = (0..PAIRS).map(|id| generate(id, &mut rng)).collect();
    let o = outcome(run_all(&pairs, PARALLEL, ATTEMPTS, DEADLINE, |p| {
        run_pair(&pidstat, p)
    }));
    assert!(o.failures.is_empty(), "{}", o.failures.join("\n\n"));
    let mut total = Tally::default();
    for t in o.passed {
        total.processes += t.processes;
        total.pidstat_rows += t.pidstat_rows;
        total.rows += t.rows;
        total.fields += t.fields;
        total.strata_only += t.strata_only;
        total.ties += t.ties;
        for (k, v) in t.diverged {
            *total.diverged.entry(k).or_default() += v;
        }
        for (k, v) in t.fates {
            *total.fates.entry(k).or_default() += v;
        }
    }
    eprintln!(
        "pidstat parity: {} pairs, {} processes, {} pidstat rows: {} rows alike ({} fields: \
         UID, kB_rd/s, kB_wr/s, kB_ccwr/s, iodelay, command; {} kB figures on a rounding \
         tie), {} rows of documented divergence {:?}; {} strata rows of system calls only, \
         which pidstat -d leaves out; processes by fate {:?}; retried {:?}",
        pairs.len(),
        total.processes,
        total.pidstat_rows,
        total.rows,
        total.fields,
        total.ties,
        total.diverged.values().sum::<usize>(),
        total.diverged,
        total.strata_only,
        total.fates,
        o.retried
    );
    // Every fate came up, each divergence too, and the agreement is not a
    // handful of rows.
    assert_eq!(total.fates.len(), FATES.len(), "{:?}", total.fates);
    assert_eq!(
        total.diverged.len(),
        DIVERGING.len(),
        "{:?}",
        total.diverged
    );
    assert!(total.rows >= 1000, "{} rows", total.rows);
    assert!(total.strata_only >= 100, "{} rows", total.strata_only);
    assert!(total.ties >= 10, "{} ties", total.ties);
}

/// Without pidstat or root: strata's figures are unknown, or its rows
/// new, only where the generator meant them to be.
#[test]
fn strata_diverges_only_where_the_generator_meant() {
    let mut rng = Rng::new(SEED);
    for id in 0..4 {
        let p = generate(id, &mut rng);
        for (pid, b) in &p.b {
            let line = stat_line(*pid, b);
            let s = parse_stat(&line, "stat").unwrap();
            assert_eq!(
                line.rsplit(')').next().unwrap().split_whitespace().count(),
                50
            );
            assert_eq!(
                (s.comm.as_str(), s.start, s.blkio_ticks),
                (b.comm.as_str(), b.start, Some(b.blkio))
            );
        }
        let dir = tempfile::tempdir().unwrap();
        write_pair(&p, dir.path()).unwrap();
        let t = strata_tick(dir.path()).unwrap();
        assert_eq!(t.processes as usize, p.b.len());
        let no_io = p.b.values().filter(|b| b.io.is_none()).count();
        assert_eq!(t.readable as usize, p.b.len() - no_io);
        for f in &t.procs {
            let fate = p.fates[&f.row.pid];
            let unknown = f.row.delta.is_none() || f.row.blkio_ticks.is_none();
            assert_eq!(
                unknown,
                matches!(fate, Fate::Falls | Fate::NoIo),
                "pair {id}: {fate:?} {:?}",
                f.row
            );
            assert_eq!(
                f.row.new,
                matches!(fate, Fate::Started | Fate::Reused),
                "pair {id}: {fate:?} {:?}",
                f.row
            );
        }
    }
}

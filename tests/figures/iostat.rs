//! Figure-for-figure parity of `strata batch disks` with sysstat 12.6.1
//! `iostat -x -d -y 1 1`.
//!
//! A seeded generator makes pairs of snapshots (A, B) of /proc/uptime,
//! /proc/diskstats and /sys/block/NAME/stat. For each pair, in a private
//! mount namespace (`unshare -m`), the three are bind-mounted over the real
//! ones holding A; iostat and strata start together; B is written in place
//! (same inode) half a second later; each tool prints one report over the
//! interval A → B, which /proc/uptime decides. iostat, run with no device
//! argument, reads /sys/block/NAME/stat; strata reads /proc/diskstats: the
//! generator writes the same counters to both.
//!
//! The reports must agree token for token, and list the same devices in the
//! same order, except where strata documents a divergence:
//! - a discard or flush column the stat line does not have (11 or 15 fields):
//!   strata prints "–", iostat 0.00;
//! - a device counted from zero (new, or reset by iostat's test) whose
//!   io_ticks from zero pass the interval: strata "–" for the whole row, iostat
//!   its from-zero figures; and %util where io_ticks passed the interval:
//!   strata 100.00 within two jiffies, "–" beyond, iostat over 100;
//! - counters that moved in a way no interval explains (a count fell without
//!   iostat's reset heuristic holding, or a 32-bit millisecond field moved by
//!   2^31 or more): iostat prints garbage, strata "–" for the whole row.
//!   These are counted and listed separately, never as agreement.
//!
//! The rows iostat prints are also checked against the test's own model of
//! iostat (used devices, strcmp order of the sysfs name), so a fixture that
//! iostat reads differently from what the test intends fails loudly.
//!
//! Needs iostat and `unshare -m` with the right to mount (root or
//! CAP_SYS_ADMIN). Without them the tests print "SKIPPED: reason" and pass,
//! unless STRATA_REQUIRE_PARITY=1, which turns a skip into a failure.
//! STRATA_PARITY_IOSTAT=PATH runs another iostat binary than the one on
//! PATH.
//!
//! strata is run with its default device selection (partitions, loop, ram
//! and zram hidden), except in the pairs of the `all-devices` theme, which
//! have used loop/ram/zram devices and no never-used device, and pass
//! `--all-devices`. The generated /sys/block holds only `stat` files (and
//! `partition` for partitions): no `dm/name`, so dm devices print as dm-N in
//! both tools. The tests at the end of the file pin the cases this suite
//! found beyond that: dm names as iostat -x prints them, the sysfs sort
//! order of names with a '/', and %rrqm past 2^64 (documented in
//! layers::disks::model).

#![allow(
    unsafe_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::too_many_lines
)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use strata::format::UNKNOWN;

use crate::peer_tools;
use peer_tools::{
    Rng, can_bind_in_namespace, find_in_path, or_skip, run_all, run_bounded, sh_quote,
};

const STRATA: &str = env!("CARGO_BIN_EXE_strata");
const SEED: u64 = 0x57a7_a105_7a75_0001;
const PAIRS: usize = 64;
const PARALLEL: usize = 8;
/// Attempts per pair: a second one only when the first failed, in case the
/// machine stalled the tools past the half-second margins.
const ATTEMPTS: usize = 2;
const NS_TIMEOUT: Duration = Duration::from_secs(20);
const DEADLINE: Duration = Duration::from_secs(150);
/// B must be in place well before the tools' second reading at 1 s.
const LATEST_WRITE_NS: u64 = 850_000_000;

// Fields of a /sys/block/NAME/stat line (/proc/diskstats minus major,
// minor and name).
const RD_IOS: usize = 0;
const RD_MERGES: usize = 1;
const RD_SEC: usize = 2;
const RD_TICKS: usize = 3;
const WR_IOS: usize = 4;
const WR_MERGES: usize = 5;
const WR_SEC: usize = 6;
const WR_TICKS: usize = 7;
const IOS_PGR: usize = 8;
const TOT_TICKS: usize = 9;
const RQ_TICKS: usize = 10;
const DC_IOS: usize = 11;
const DC_MERGES: usize = 12;
const DC_SEC: usize = 13;
const DC_TICKS: usize = 14;
const FL_IOS: usize = 15;
const FL_TICKS: usize = 16;

const FIELD_NAMES: [&str; 17] = [
    "rd_ios",
    "rd_merges",
    "rd_sectors",
    "rd_ticks",
    "wr_ios",
    "wr_merges",
    "wr_sectors",
    "wr_ticks",
    "ios_pgr",
    "tot_ticks",
    "rq_ticks",
    "dc_ios",
    "dc_merges",
    "dc_sectors",
    "dc_ticks",
    "fl_ios",
    "fl_ticks",
];

/// 64-bit counts (`unsigned long` in the kernel).
const COUNTS: [usize; 10] = [
    RD_IOS, RD_MERGES, RD_SEC, WR_IOS, WR_MERGES, WR_SEC, DC_IOS, DC_MERGES, DC_SEC, FL_IOS,
];
/// 32-bit millisecond fields that iostat subtracts modulo 2^32.
const TICKS: [usize; 6] = [RD_TICKS, WR_TICKS, TOT_TICKS, RQ_TICKS, DC_TICKS, FL_TICKS];
const MASK32: u64 = 0xffff_ffff;
const P31: u64 = 1 << 31;
const P32: u64 = 1 << 32;
const P63: u64 = 1 << 63;

/// The 22 columns of `iostat -x -k`, in order.
const COLS: [&str; 22] = [
    "r/s", "rkB/s", "rrqm/s", "%rrqm", "r_await", "rareq-sz", "w/s", "wkB/s", "wrqm/s", "%wrqm",
    "w_await", "wareq-sz", "d/s", "dkB/s", "drqm/s", "%drqm", "d_await", "dareq-sz", "f/s",
    "f_await", "aqu-sz", "%util",
];
/// strata's JSON keys for the same columns.
const JSON_KEYS: [&str; 22] = [
    "r/s", "rkB/s", "rrqm/s", "rrqm", "r_await", "rareq-sz", "w/s", "wkB/s", "wrqm/s", "wrqm",
    "w_await", "wareq-sz", "d/s", "dkB/s", "drqm/s", "drqm", "d_await", "dareq-sz", "f/s",
    "f_await", "aqu-sz", "util",
];

/// Whether column `col` needs fields a stat line of `nfields` lacks: the
/// discard columns before kernel 4.18, the flush ones before 5.5.
fn kernel_absent(col: usize, nfields: usize) -> bool {
    ((12..=17).contains(&col) && nfields < 15) || ((18..=19).contains(&col) && nfields < 17)
}

// ---------------------------------------------------------------------------
// Deterministic generator
// ---------------------------------------------------------------------------

// peer_tools::Rng, seeded with SEED.

/// One device in one snapshot: the counters of its stat line.
#[derive(Debug, Clone)]
struct Dev {
    major: u32,
    minor: u32,
    /// 11, 15 or 17 fields.
    n: usize,
    /// Fields beyond `n` are zero, which is also how iostat reads them.
    v: [u64; 17],
    /// The whole disk, for a partition.
    parent: Option<String>,
    /// /sys/block/dm-N/dm/name: the device-mapper name, on LVM hosts.
    dm_name: Option<String>,
}

impl Dev {
    fn get(&self, i: usize) -> u64 {
        if i < self.n { self.v[i] } else { 0 }
    }

    /// iostat hides a device whose four I/O counts are all zero.
    fn used(&self) -> bool {
        [RD_IOS, WR_IOS, DC_IOS, FL_IOS]
            .iter()
            .any(|&i| self.get(i) != 0)
    }

    /// The line of /sys/block/NAME/stat, padded as the kernel pads it.
    fn sys_stat(&self) -> String {
        let mut s = String::new();
        for (i, x) in self.v[..self.n].iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            let _ = write!(s, "{x:>8}");
        }
        s.push('\n');
        s
    }

    fn diskstats_line(&self, name: &str) -> String {
        let fields: Vec<String> = self.v[..self.n].iter().map(u64::to_string).collect();
        format!(
            "{:>4} {:>7} {name} {}\n",
            self.major,
            self.minor,
            fields.join(" ")
        )
    }

    /// Path under /sys/block of the directory holding the stat file.
    /// sysfs spells a `/` in a device name (cciss/c0d0) as `!`.
    fn sys_rel(&self, name: &str) -> String {
        let sys = |n: &str| n.replace('/', "!");
        match &self.parent {
            Some(p) => format!("{}/{}", sys(p), sys(name)),
            None => sys(name),
        }
    }
}

#[derive(Debug, Clone, Default)]
struct Snapshot {
    uptime_cs: u64,
    devs: BTreeMap<String, Dev>,
}

impl Snapshot {
    fn uptime_text(&self) -> String {
        let idle = self.uptime_cs * 3 / 2;
        format!(
            "{}.{:02} {}.{:02}\n",
            self.uptime_cs / 100,
            self.uptime_cs % 100,
            idle / 100,
            idle % 100
        )
    }

    /// /proc/diskstats in the kernel's order (by major and minor).
    fn diskstats_text(&self) -> String {
        let mut devs: Vec<(&String, &Dev)> = self.devs.iter().collect();
        devs.sort_by_key(|(name, d)| (d.major, d.minor, name.as_str()));
        devs.iter().map(|(n, d)| d.diskstats_line(n)).collect()
    }
}

/// What happens to one device between A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scn {
    Idle,
    Busy,
    /// 32-bit ms fields close below 2^32 in A, a small true delta past it.
    Wrap32,
    /// Counts around 2^63.
    Big63,
    /// Counts just below 2^64, B at most 2^64 - 1.
    Big64,
    /// The 64-bit sum of the I/O counts wraps between A and B, but the
    /// sectors went on: not a reset.
    SumWrapNoReset,
    /// The sum wraps and no sector count was non-zero before: iostat's
    /// heuristic (and so strata's) takes it for a re-created device.
    SumWrapReset,
    /// Every counter restarted low.
    Reset,
    /// A write-only device re-created with a few reads: the read side
    /// passes the heuristic by having been zero.
    ResetReadsFromZero,
    /// In B only, with the counts of a device just created.
    Appear,
    /// In B only, with large counts.
    AppearLarge,
    /// In A only.
    Vanish,
    NeverUsed,
    /// No I/O completed, but io_ticks and the queue moved.
    NeverUsedTicks,
    /// Used in A, all zero in B.
    ZeroedInB,
    /// Deltas whose figures land on .xx5 (exactly or nearly).
    Rounding,
    /// 32-bit deltas of exactly 2^31 - 1: the largest strata accepts.
    Edge2p31,
    GarbageCount,
    GarbageSectors,
    GarbageMerges,
    GarbageDiscard,
    GarbageFlush,
    GarbageTicksJump,
    GarbageTicksBack,
    GarbageQueueBack,
    GarbageUtilJump,
}

const GARBAGE: [Scn; 9] = [
    Scn::GarbageCount,
    Scn::GarbageTicksJump,
    Scn::GarbageDiscard,
    Scn::GarbageSectors,
    Scn::GarbageMerges,
    Scn::GarbageFlush,
    Scn::GarbageTicksBack,
    Scn::GarbageQueueBack,
    Scn::GarbageUtilJump,
];

const THEMES: [&str; 16] = [
    "idle+busy",
    "wrap32",
    "big63",
    "big64",
    "reset",
    "appear",
    "vanish+never-used",
    "never-used-ticks+zeroed",
    "layout-mix",
    "long-names",
    "rounding",
    "garbage-1",
    "partitions",
    "all-devices",
    "edge-2^31+sum-wrap-reset",
    "garbage-2",
];

const NAMES: [&str; 22] = [
    "sda",
    "sdb",
    "sdc",
    "sdaa",
    "nvme0n1",
    "nvme1n1",
    "nvme10n1",
    "dm-0",
    "dm-1",
    "dm-12",
    "md0",
    "md127",
    "vda",
    "vdb",
    "xvda",
    "xvdf",
    "hda",
    "mmcblk0",
    "nbd0",
    "rbd0",
    "sr0",
    "cciss/c0d0",
];
/// Longer than iostat's 13-character name field, or exactly 13.
const LONG_NAMES: [&str; 4] = [
    "averylongdevname0",
    "nbd-longer-than-13",
    "x123456789012345678901234567890",
    "vdlong0000013",
];

fn major_of(name: &str) -> u32 {
    let table: [(&str, u32); 15] = [
        ("cciss", 104),
        ("sd", 8),
        ("nvme", 259),
        ("dm-", 253),
        ("md", 9),
        ("vd", 252),
        ("xvd", 202),
        ("hd", 3),
        ("mmcblk", 179),
        ("nbd", 43),
        ("rbd", 251),
        ("sr", 11),
        ("loop", 7),
        ("zram", 250),
        ("ram", 1),
    ];
    table
        .iter()
        .find(|(p, _)| name.starts_with(p))
        .map_or(240, |&(_, m)| m)
}

#[derive(Debug, Clone)]
struct Pair {
    id: usize,
    theme: &'static str,
    a: Snapshot,
    b: Snapshot,
    /// Pass --all-devices to strata.
    all_devices: bool,
    /// Also compare `--units MB` with `iostat -m`.
    mb: bool,
    /// The scenario of each device, for messages.
    scn: BTreeMap<String, Scn>,
}

impl Pair {
    fn itv_cs(&self) -> u64 {
        self.b.uptime_cs - self.a.uptime_cs
    }

    /// The rows both tools must print, in iostat's order: strcmp of the
    /// sysfs spelling (`cciss!c0d0`), printed as /proc/diskstats spells it.
    fn expected_rows(&self) -> Vec<String> {
        let mut rows: Vec<(String, String)> = self
            .b
            .devs
            .iter()
            .filter(|(_, d)| d.parent.is_none() && d.used())
            .filter(|(n, _)| self.all_devices || !hidden_by_default(n))
            .map(|(n, d)| (d.sys_rel(n), n.clone()))
            .collect();
        rows.sort();
        rows.into_iter().map(|(_, n)| n).collect()
    }

    /// Both samples of a device, for failure messages.
    fn describe(&self, name: &str) -> String {
        let show = |s: &Snapshot| {
            s.devs
                .get(name)
                .map_or("(absent)".to_string(), |d| d.diskstats_line(name))
        };
        format!(
            "pair {} ({}), device {name} ({:?}), interval {} cs:\n  A {}  B {}",
            self.id,
            self.theme,
            self.scn.get(name),
            self.itv_cs(),
            show(&self.a).trim_end(),
            show(&self.b)
        )
    }
}

fn hidden_by_default(name: &str) -> bool {
    name.starts_with("loop") || name.starts_with("ram") || name.starts_with("zram")
}

fn io_groups(n: usize) -> Vec<[usize; 4]> {
    let mut g = vec![
        [RD_IOS, RD_MERGES, RD_SEC, RD_TICKS],
        [WR_IOS, WR_MERGES, WR_SEC, WR_TICKS],
    ];
    if n >= 15 {
        g.push([DC_IOS, DC_MERGES, DC_SEC, DC_TICKS]);
    }
    g
}

/// Counters of a device that has been up for a while.
fn base_counters(rng: &mut Rng, n: usize) -> [u64; 17] {
    let mut v = [0u64; 17];
    for [ios, merges, sec, ticks] in io_groups(n) {
        let k = if ios == DC_IOS && rng.chance(20) {
            0
        } else {
            rng.range(1, 500_000_000)
        };
        v[ios] = k;
        v[merges] = rng.below(k);
        v[sec] = k * rng.range(1, 256);
        v[ticks] = rng.below(P32);
    }
    v[IOS_PGR] = rng.below(32);
    v[TOT_TICKS] = rng.below(P32);
    v[RQ_TICKS] = rng.below(P32);
    if n >= 17 {
        v[FL_IOS] = rng.range(0, 10_000_000);
        v[FL_TICKS] = rng.below(P32);
    }
    v
}

/// What a busy interval adds. `ios_pgr` holds the new in-flight count.
fn busy_delta(rng: &mut Rng, n: usize, itv: u64) -> [u64; 17] {
    let mut d = [0u64; 17];
    for [ios, merges, sec, ticks] in io_groups(n) {
        let k = if rng.chance(15) {
            0
        } else {
            rng.range(1, 20_000 * itv / 100)
        };
        d[ios] = k;
        d[merges] = rng.below(k + 1);
        d[sec] = k * rng.range(1, 512);
        d[ticks] = k * rng.range(0, 40);
    }
    d[IOS_PGR] = rng.below(64);
    // io_ticks can exceed the interval slightly in fabricated data: %util > 100
    d[TOT_TICKS] = rng.range(0, itv * 11);
    d[RQ_TICKS] = rng.range(0, itv * 10 * 64);
    if n >= 17 {
        d[FL_IOS] = rng.range(0, 500);
        d[FL_TICKS] = d[FL_IOS] * rng.range(0, 5);
    }
    d
}

/// A + delta: counts add (they must not overflow), ms fields wrap at 2^32.
fn apply(a: &[u64; 17], d: &[u64; 17]) -> [u64; 17] {
    let mut b = *a;
    for i in COUNTS {
        b[i] = a[i]
            .checked_add(d[i])
            .expect("generator: a count overflowed 2^64");
    }
    for i in TICKS {
        b[i] = (a[i] + d[i]) & MASK32;
    }
    b[IOS_PGR] = d[IOS_PGR];
    b
}

/// Counts from zero, as of a device created within the interval.
fn fresh_counters(rng: &mut Rng, n: usize, scale: u64) -> [u64; 17] {
    let mut v = [0u64; 17];
    for [ios, merges, sec, ticks] in io_groups(n) {
        let k = rng.range(1, scale);
        v[ios] = k;
        v[merges] = rng.below(k);
        v[sec] = k * rng.range(1, 256);
        v[ticks] = (k * rng.range(0, 20)).min(P31 - 1);
    }
    v[TOT_TICKS] = rng.range(0, 100_000);
    v[RQ_TICKS] = rng.range(0, 1_000_000);
    if n >= 17 {
        v[FL_IOS] = rng.range(0, scale);
        v[FL_TICKS] = rng.range(0, 1000);
    }
    v
}

/// Deltas whose figures are ties at the second decimal (exact in binary:
/// .125 .375 .625 .875) or look like ties but are not (2.675, 1.005).
fn rounding_delta(rng: &mut Rng, n: usize, itv: u64) -> [u64; 17] {
    let mut d = [0u64; 17];
    d[RD_IOS] = rng.pick(&[8, 16, 40]);
    d[RD_TICKS] = d[RD_IOS] / 8 * rng.pick(&[1, 3, 5, 7]);
    d[RD_SEC] = rng.pick(&[1, 3, 5, 201]);
    d[RD_MERGES] = rng.pick(&[0, 1, 3]);
    d[WR_IOS] = rng.pick(&[31, 40, 200]);
    d[WR_MERGES] = rng.pick(&[1, 3]);
    d[WR_TICKS] = match d[WR_IOS] {
        40 => 107, // 2.675, which is 2.67499999... in binary
        200 => 201,
        _ => 31 * rng.pick(&[1, 2, 3]),
    };
    d[WR_SEC] = d[WR_IOS] * 8 + rng.pick(&[0, 1, 5]);
    d[TOT_TICKS] = rng.pick(&[1, 5, 3, 201, itv * 5]);
    d[RQ_TICKS] = rng.pick(&[10, 50, 1000, 2010]);
    d[IOS_PGR] = 1;
    if n >= 15 {
        d[DC_IOS] = 16;
        d[DC_TICKS] = rng.pick(&[2, 6, 10, 14]);
        d[DC_SEC] = rng.pick(&[2, 6, 10]);
        d[DC_MERGES] = rng.pick(&[0, 1]);
    }
    if n >= 17 {
        d[FL_IOS] = 8;
        d[FL_TICKS] = rng.pick(&[1, 3, 5]);
    }
    d
}

/// Both samples of a device under a scenario (`None`: absent).
fn make(rng: &mut Rng, scn: Scn, n: usize, itv: u64) -> (Option<[u64; 17]>, Option<[u64; 17]>) {
    let base = base_counters(rng, n);
    let busy = |rng: &mut Rng, a: &[u64; 17]| apply(a, &busy_delta(rng, n, itv));
    match scn {
        Scn::Idle => (Some(base), Some(base)),
        Scn::Busy => (Some(base), Some(busy(rng, &base))),
        Scn::Wrap32 => {
            let mut a = base;
            let mut d = busy_delta(rng, n, itv);
            let present: Vec<usize> = TICKS.iter().copied().filter(|&i| i < n).collect();
            let mut wrapped = 0;
            for &i in &present {
                if rng.chance(60) || (wrapped == 0 && i == *present.last().unwrap()) {
                    let before = rng.range(1, 3000);
                    a[i] = P32 - before;
                    d[i] = before + rng.range(0, 100_000);
                    wrapped += 1;
                }
            }
            // an await that wrapped must have requests to show it
            for [ios, _, _, ticks] in io_groups(n) {
                if d[ticks] > 0 && d[ios] == 0 {
                    d[ios] = 1;
                }
            }
            if n >= 17 && d[FL_TICKS] > 0 && d[FL_IOS] == 0 {
                d[FL_IOS] = 1;
            }
            (Some(a), Some(apply(&a, &d)))
        }
        Scn::Big63 => {
            let mut a = base;
            for i in COUNTS.iter().copied().filter(|&i| i < n) {
                a[i] = P63 - 500_000 + rng.below(1_000_000);
            }
            (Some(a), Some(busy(rng, &a)))
        }
        Scn::Big64 => {
            let mut a = base;
            let d = busy_delta(rng, n, itv);
            for i in COUNTS.iter().copied().filter(|&i| i < n) {
                // slack 0 leaves B at exactly 2^64 - 1
                let slack = if rng.chance(30) { 0 } else { rng.below(1000) };
                a[i] = u64::MAX - d[i] - slack;
            }
            (Some(a), Some(apply(&a, &d)))
        }
        Scn::SumWrapNoReset | Scn::SumWrapReset => {
            assert_eq!(n, 17);
            let mut a = [0u64; 17];
            a[RD_IOS] = u64::MAX - 5;
            a[FL_IOS] = 3;
            a[RD_TICKS] = rng.range(0, 1000);
            a[TOT_TICKS] = rng.range(0, 1000);
            a[RQ_TICKS] = rng.range(0, 1000);
            if scn == Scn::SumWrapNoReset {
                a[RD_SEC] = rng.range(1000, 100_000);
                a[WR_IOS] = rng.range(1, 100);
                a[WR_SEC] = a[WR_IOS] * 8;
            }
            let mut d = [0u64; 17];
            d[RD_IOS] = 2;
            d[RD_SEC] = 16;
            d[RD_TICKS] = 3;
            d[FL_IOS] = 2;
            d[FL_TICKS] = 1;
            d[TOT_TICKS] = 4;
            d[RQ_TICKS] = 5;
            (Some(a), Some(apply(&a, &d)))
        }
        Scn::Reset => {
            let mut a = base;
            for [ios, _, sec, _] in io_groups(n) {
                a[ios] = a[ios].max(1_000_000);
                a[sec] = a[sec].max(a[ios] * 8);
            }
            (Some(a), Some(fresh_counters(rng, n, 1000)))
        }
        Scn::ResetReadsFromZero => {
            let mut a = base;
            for i in [
                RD_IOS, RD_MERGES, RD_SEC, RD_TICKS, DC_IOS, DC_MERGES, DC_SEC,
            ] {
                a[i] = 0;
            }
            a[WR_IOS] = a[WR_IOS].max(1_000_000);
            a[WR_SEC] = a[WR_IOS] * 8;
            let mut b = fresh_counters(rng, n, 1000);
            for i in [DC_IOS, DC_MERGES, DC_SEC, DC_TICKS] {
                b[i] = 0;
            }
            (Some(a), Some(b))
        }
        Scn::Appear => (None, Some(fresh_counters(rng, n, 5000))),
        Scn::AppearLarge => (None, Some(fresh_counters(rng, n, 400_000_000))),
        Scn::Vanish => (Some(base), None),
        Scn::NeverUsed => (Some([0; 17]), Some([0; 17])),
        Scn::NeverUsedTicks => {
            let mut a = [0u64; 17];
            a[TOT_TICKS] = rng.range(0, 5000);
            a[RQ_TICKS] = rng.range(0, 5000);
            let mut b = a;
            b[IOS_PGR] = 1;
            b[TOT_TICKS] += itv * 10;
            b[RQ_TICKS] += itv * 10;
            (Some(a), Some(b))
        }
        Scn::ZeroedInB => (Some(base), Some([0; 17])),
        Scn::Rounding => (Some(base), Some(apply(&base, &rounding_delta(rng, n, itv)))),
        Scn::Edge2p31 => {
            let mut d = [0u64; 17];
            d[RD_IOS] = 1;
            d[RD_SEC] = 8;
            d[RD_TICKS] = P31 - 1;
            d[TOT_TICKS] = P31 - 1;
            d[RQ_TICKS] = P31 - 1;
            (Some(base), Some(apply(&base, &d)))
        }
        Scn::GarbageCount | Scn::GarbageSectors | Scn::GarbageMerges => {
            let mut a = base;
            a[RD_IOS] = a[RD_IOS].max(1000);
            a[RD_MERGES] = a[RD_MERGES].max(1000);
            a[WR_SEC] = a[WR_SEC].max(1000);
            let mut d = busy_delta(rng, n, itv);
            d[RD_IOS] = d[RD_IOS].max(600);
            d[WR_IOS] = d[WR_IOS].max(600);
            d[WR_SEC] = d[WR_SEC].max(4800);
            let mut b = apply(&a, &d);
            let k = rng.range(1, 500);
            match scn {
                Scn::GarbageCount => b[RD_IOS] = a[RD_IOS] - k,
                Scn::GarbageSectors => b[WR_SEC] = a[WR_SEC] - k,
                _ => b[RD_MERGES] = a[RD_MERGES] - k,
            }
            (Some(a), Some(b))
        }
        Scn::GarbageDiscard | Scn::GarbageFlush => {
            let mut a = base;
            let i = if scn == Scn::GarbageDiscard {
                DC_IOS
            } else {
                FL_IOS
            };
            assert!(i < n);
            a[i] = a[i].max(1000);
            a[WR_SEC] = a[WR_SEC].max(1000);
            let mut d = busy_delta(rng, n, itv);
            d[RD_IOS] = d[RD_IOS].max(600);
            d[WR_SEC] = d[WR_SEC].max(8);
            let mut b = apply(&a, &d);
            b[i] = a[i] - rng.range(1, 500);
            (Some(a), Some(b))
        }
        Scn::GarbageTicksJump | Scn::GarbageUtilJump => {
            let mut d = busy_delta(rng, n, itv);
            if scn == Scn::GarbageTicksJump {
                d[RD_IOS] = 1;
                d[RD_TICKS] = P31 + rng.below(1_000_000);
            } else {
                d[TOT_TICKS] = P31 + rng.below(1_000_000);
            }
            (Some(base), Some(apply(&base, &d)))
        }
        Scn::GarbageTicksBack | Scn::GarbageQueueBack => {
            let d = busy_delta(rng, n, itv);
            let mut b = apply(&base, &d);
            if scn == Scn::GarbageTicksBack {
                b[WR_IOS] = base[WR_IOS] + 2;
                b[WR_TICKS] = base[WR_TICKS].wrapping_sub(rng.range(1, 1000)) & MASK32;
            } else {
                b[RQ_TICKS] = base[RQ_TICKS].wrapping_sub(500) & MASK32;
            }
            (Some(base), Some(b))
        }
    }
}

fn layout_for(rng: &mut Rng, scn: Scn) -> usize {
    match scn {
        Scn::GarbageFlush | Scn::SumWrapNoReset | Scn::SumWrapReset => 17,
        Scn::GarbageDiscard => rng.pick(&[15, 17]),
        _ => rng.pick(&[11, 15, 17]),
    }
}

fn gen_pair(id: usize) -> Pair {
    let mut rng = Rng::new(SEED ^ (id as u64).wrapping_mul(0x0100_0000_01b3));
    let t = id % THEMES.len();
    let theme = THEMES[t];
    let round = id / THEMES.len();
    let itv = if theme == "rounding" {
        rng.pick(&[80, 160, 200, 250])
    } else {
        rng.range(50, 300)
    };
    let all_devices = theme == "all-devices";
    let uptime_a = rng.range(10_000, 900_000_000);
    let mut names: Vec<&str> = NAMES.to_vec();
    for i in (1..names.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        names.swap(i, j);
    }
    // (scenario, forced name, forced layout)
    let mut specs: Vec<(Scn, Option<&str>, Option<usize>)> = Vec::new();
    let mut add = |scns: &[Scn]| {
        for &s in scns {
            specs.push((s, None, None));
        }
    };
    match theme {
        "idle+busy" => add(&[Scn::Idle, Scn::Busy]),
        "wrap32" => add(&[Scn::Wrap32, Scn::Wrap32]),
        "big63" => add(&[Scn::Big63, Scn::Big63]),
        "big64" => add(&[Scn::Big64, Scn::SumWrapNoReset]),
        "reset" => add(&[Scn::Reset, Scn::ResetReadsFromZero]),
        "appear" => add(&[Scn::Appear, Scn::AppearLarge]),
        "vanish+never-used" => add(&[Scn::Vanish, Scn::NeverUsed]),
        "never-used-ticks+zeroed" => add(&[Scn::NeverUsedTicks, Scn::ZeroedInB]),
        "layout-mix" => {
            for n in [11, 15, 17] {
                specs.push((Scn::Busy, None, Some(n)));
            }
        }
        "long-names" => {
            specs.push((Scn::Busy, Some(LONG_NAMES[round % 4]), None));
            specs.push((Scn::Idle, Some(LONG_NAMES[(round + 1) % 4]), None));
            specs.push((Scn::Busy, Some(LONG_NAMES[(round + 2) % 4]), None));
        }
        "rounding" => add(&[Scn::Rounding, Scn::Rounding, Scn::Rounding]),
        "garbage-1" | "garbage-2" => {
            let k = round * 2 + usize::from(theme == "garbage-2");
            add(&[GARBAGE[(k * 2) % 9], GARBAGE[(k * 2 + 1) % 9]]);
        }
        "all-devices" => {
            for name in ["loop0", "loop7", "ram0", "zram0"] {
                specs.push((Scn::Busy, Some(name), None));
            }
        }
        "edge-2^31+sum-wrap-reset" => add(&[Scn::Edge2p31, Scn::SumWrapReset]),
        _ => {}
    }
    let fillers = [
        Scn::Idle,
        Scn::Busy,
        Scn::Busy,
        Scn::Busy,
        Scn::Wrap32,
        Scn::NeverUsed,
        Scn::Appear,
        Scn::Vanish,
        Scn::Reset,
        Scn::Big63,
    ];
    for _ in 0..rng.range(1, 4) {
        let s = rng.pick(&fillers);
        if all_devices && s == Scn::NeverUsed {
            continue;
        }
        specs.push((s, None, None));
    }

    let mut a = Snapshot {
        uptime_cs: uptime_a,
        ..Default::default()
    };
    let mut b = Snapshot {
        uptime_cs: uptime_a + itv,
        ..Default::default()
    };
    let mut scn = BTreeMap::new();
    let mut minor = 0u32;
    let mut insert = |name: &str, s: Scn, n: usize, parent: Option<&str>, rng: &mut Rng| {
        let (va, vb) = make(rng, s, n, itv);
        let major = major_of(parent.unwrap_or(name));
        minor += 16;
        let dev = |v: [u64; 17]| {
            let mut v = v;
            for x in v.iter_mut().skip(n) {
                *x = 0;
            }
            for i in TICKS {
                assert!(
                    v[i] <= MASK32,
                    "generator: {name} {} ≥ 2^32",
                    FIELD_NAMES[i]
                );
            }
            Dev {
                major,
                minor,
                n,
                v,
                parent: parent.map(str::to_string),
                dm_name: None,
            }
        };
        if let Some(v) = va {
            a.devs.insert(name.to_string(), dev(v));
        }
        if let Some(v) = vb {
            b.devs.insert(name.to_string(), dev(v));
        }
        scn.insert(name.to_string(), s);
    };
    for (s, forced_name, forced_n) in specs {
        let name = match forced_name {
            Some(n) => n,
            None => names.pop().expect("generator: out of names"),
        };
        let n = forced_n.unwrap_or_else(|| layout_for(&mut rng, s));
        insert(name, s, n, None, &mut rng);
    }
    if theme == "partitions" {
        let disk = names.pop().expect("generator: out of names");
        let n = rng.pick(&[11, 15, 17]);
        insert(disk, Scn::Busy, n, None, &mut rng);
        let sep = if disk.ends_with(|c: char| c.is_ascii_digit()) {
            "p"
        } else {
            ""
        };
        for k in 1..=2 {
            let part = format!("{disk}{sep}{k}");
            insert(&part, Scn::Busy, n, Some(disk), &mut rng);
        }
    }
    Pair {
        id,
        theme,
        a,
        b,
        all_devices,
        mb: id % 4 == 1 || theme.starts_with("garbage"),
        scn,
    }
}

// ---------------------------------------------------------------------------
// A model of what iostat makes of a pair: which rows, which are garbage
// ---------------------------------------------------------------------------

/// iostat's test for a device re-created between two samples.
fn iostat_reset(p: &Dev, c: &Dev) -> bool {
    let ios = |d: &Dev| {
        d.get(RD_IOS)
            .wrapping_add(d.get(WR_IOS))
            .wrapping_add(d.get(DC_IOS))
            .wrapping_add(d.get(FL_IOS))
    };
    let fell = |i: usize| p.get(i) == 0 || c.get(i) < p.get(i);
    ios(c) < ios(p) && fell(RD_SEC) && fell(WR_SEC) && fell(DC_SEC)
}

/// Why strata gives no figure for a device iostat counts from zero (new
/// in B, or reset by iostat's test) when its io_ticks from zero pass the
/// interval: the counters are older than the interval (see layers::disks::model).
fn from_zero_past_the_interval(p: Option<&Dev>, c: &Dev, itv: u64) -> Option<String> {
    let from_zero = p.is_none_or(|p| iostat_reset(p, c));
    let tot = c.get(TOT_TICKS) & MASK32;
    (from_zero && tot > itv * 10).then(|| {
        format!(
            "counted from zero, io_ticks {tot} ms > the interval's {} ms",
            itv * 10
        )
    })
}

/// strata's %util where io_ticks passed the interval (see layers::disks::model):
/// 100.00 within the rounding slack, "–" beyond it; iostat prints > 100.
fn util_past_the_interval(iostat: &str, strata: &str) -> bool {
    iostat.parse::<f64>().is_ok_and(|u| u > 100.0) && matches!(strata, "100.00" | UNKNOWN)
}

/// When iostat's figures for a device are garbage over A → B: why, and the
/// largest nonsense value that garbage makes iostat print (a lower bound).
fn garbage(p: Option<&Dev>, c: &Dev, itv: u64, unit: Unit) -> Option<(String, f64)> {
    let zero = Dev {
        v: [0; 17],
        parent: None,
        dm_name: None,
        ..c.clone()
    };
    let p = match p {
        Some(p) if !iostat_reset(p, c) => p,
        _ => &zero,
    };
    let per_s = |d: u64| d as f64 / itv as f64 * 100.0;
    let mut why = Vec::new();
    let mut worst = 0.0f64;
    for i in COUNTS.iter().copied().filter(|&i| i < c.n) {
        if c.get(i) < p.get(i) {
            why.push(format!("{} fell {}→{}", FIELD_NAMES[i], p.get(i), c.get(i)));
            let d = c.get(i).wrapping_sub(p.get(i));
            let div = match (i, unit) {
                (RD_SEC | WR_SEC | DC_SEC, Unit::KB) => 2.0,
                (RD_SEC | WR_SEC | DC_SEC, Unit::MB) => 2048.0,
                _ => 1.0,
            };
            worst = worst.max(per_s(d) / div);
        }
    }
    for i in TICKS.iter().copied().filter(|&i| i < c.n) {
        let d = c.get(i).wrapping_sub(p.get(i)) & MASK32;
        if d >= P31 {
            why.push(format!(
                "{} moved by {d} ms (≥ 2^31) {}→{}",
                FIELD_NAMES[i],
                p.get(i),
                c.get(i)
            ));
            let ios = match i {
                RD_TICKS => Some(RD_IOS),
                WR_TICKS => Some(WR_IOS),
                DC_TICKS => Some(DC_IOS),
                FL_TICKS => Some(FL_IOS),
                _ => None,
            };
            let shown = match (i, ios) {
                (TOT_TICKS, _) => per_s(d) / 10.0,
                (RQ_TICKS, _) => per_s(d) / 1000.0,
                (_, Some(k)) => {
                    let n = c.get(k).wrapping_sub(p.get(k));
                    if n == 0 { 0.0 } else { d as f64 / n as f64 }
                }
                _ => 0.0,
            };
            worst = worst.max(shown);
        }
    }
    (!why.is_empty()).then(|| (why.join(", "), worst * 0.999))
}

// ---------------------------------------------------------------------------
// Reports
// ---------------------------------------------------------------------------

#[derive(Debug)]
struct Row {
    name: String,
    vals: Vec<String>,
    line: String,
}

#[derive(Debug)]
struct Report {
    header: String,
    rows: Vec<Row>,
}

/// The header line and device rows of an `iostat -x -d` style report.
fn parse_report(text: &str) -> Result<Report, String> {
    let lines: Vec<&str> = text.lines().collect();
    let headers: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("Device "))
        .collect();
    let [h] = headers[..] else {
        return Err(format!("{} header lines, expected 1", headers.len()));
    };
    let mut rows = Vec::new();
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate().skip(h + 1) {
        if line.trim().is_empty() {
            end = i;
            break;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.len() != 23 {
            return Err(format!("{} fields in row {line:?}", tokens.len()));
        }
        rows.push(Row {
            name: tokens[0].to_string(),
            vals: tokens[1..].iter().map(|t| t.to_string()).collect(),
            line: line.trim_end().to_string(),
        });
    }
    if let Some(extra) = lines[end..].iter().find(|l| !l.trim().is_empty()) {
        return Err(format!("unexpected line after the report: {extra:?}"));
    }
    Ok(Report {
        header: lines[h].trim_end().to_string(),
        rows,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    KB,
    MB,
}

impl Unit {
    fn label(self) -> &'static str {
        match self {
            Unit::KB => "kB",
            Unit::MB => "MB",
        }
    }

    fn iostat_flag(self) -> &'static str {
        match self {
            Unit::KB => "-k",
            Unit::MB => "-m",
        }
    }
}

#[derive(Debug, Default)]
struct Tally {
    reports: usize,
    rows: usize,
    equal: usize,
    /// Kernel-absent columns: strata "–", iostat 0.00.
    absent: usize,
    /// Rows whose whole printed line is the same byte for byte.
    identical_lines: usize,
    divergences: Vec<String>,
}

impl Tally {
    fn add(&mut self, o: Tally) {
        self.reports += o.reports;
        self.rows += o.rows;
        self.equal += o.equal;
        self.absent += o.absent;
        self.identical_lines += o.identical_lines;
        self.divergences.extend(o.divergences);
    }
}

/// Compares one iostat report with one strata report of the same pair.
fn compare(pair: &Pair, unit: Unit, io_text: &str, st_text: &str) -> Result<Tally, String> {
    let ctx = || {
        format!(
            "pair {} ({}), --units {}\n--- iostat ---\n{io_text}--- strata ---\n{st_text}",
            pair.id,
            pair.theme,
            unit.label()
        )
    };
    let io = parse_report(io_text).map_err(|e| format!("iostat report: {e}\n{}", ctx()))?;
    let st = parse_report(st_text).map_err(|e| format!("strata report: {e}\n{}", ctx()))?;
    if io.header != st.header {
        return Err(format!(
            "headers differ:\n  iostat {:?}\n  strata {:?}\n{}",
            io.header,
            st.header,
            ctx()
        ));
    }
    // column names as this report's header spells them (rkB/s or rMB/s)
    let cols: Vec<&str> = io.header.split_whitespace().skip(1).collect();
    let want = pair.expected_rows();
    let io_names: Vec<&str> = io.rows.iter().map(|r| r.name.as_str()).collect();
    let st_names: Vec<&str> = st.rows.iter().map(|r| r.name.as_str()).collect();
    if io_names != want {
        return Err(format!(
            "iostat rows {io_names:?}, the test's model of iostat expects {want:?}\n{}",
            ctx()
        ));
    }
    if st_names != io_names {
        return Err(format!(
            "device rows differ: iostat {io_names:?}, strata {st_names:?}\n{}",
            ctx()
        ));
    }
    let mut t = Tally {
        reports: 1,
        ..Default::default()
    };
    for (ir, sr) in io.rows.iter().zip(&st.rows) {
        let name = ir.name.as_str();
        let dev = &pair.b.devs[name];
        t.rows += 1;
        if let Some(why) = from_zero_past_the_interval(pair.a.devs.get(name), dev, pair.itv_cs())
            && garbage(pair.a.devs.get(name), dev, pair.itv_cs(), unit).is_none()
        {
            if let Some(c) = sr.vals.iter().position(|v| v != UNKNOWN) {
                return Err(format!(
                    "strata printed {} = {} for a device counted from zero past its interval ({why}); \
                         documented: every figure unknown\n{}\n{}",
                    cols[c],
                    sr.vals[c],
                    pair.describe(name),
                    ctx()
                ));
            }
            let util = ir.vals.last().map_or("?", String::as_str);
            t.divergences.push(format!(
                    "pair {} --units {} {name} [{:?}]: {why}; iostat %util {util}, strata \"–\" in all 22 columns",
                    pair.id,
                    unit.label(),
                    pair.scn[name],
                ));
            continue;
        }
        if let Some((why, least)) = garbage(pair.a.devs.get(name), dev, pair.itv_cs(), unit) {
            if let Some(c) = sr.vals.iter().position(|v| v != UNKNOWN) {
                return Err(format!(
                    "strata printed {} = {} for a device whose counters no interval explains ({why}); \
                     documented: every figure unknown\n{}\n{}",
                    cols[c],
                    sr.vals[c],
                    pair.describe(name),
                    ctx()
                ));
            }
            let (col, max) = ir
                .vals
                .iter()
                .enumerate()
                .map(|(c, v)| (c, v.parse::<f64>().unwrap_or(f64::NAN)))
                .fold(
                    (0, f64::NEG_INFINITY),
                    |acc, x| if x.1 > acc.1 { x } else { acc },
                );
            if !(max >= least && least >= 1e5) {
                return Err(format!(
                    "expected iostat to print garbage ≥ {least:e} for {name} ({why}), its largest figure is {} = {max}\n{}\n{}",
                    cols[col],
                    pair.describe(name),
                    ctx()
                ));
            }
            t.divergences.push(format!(
                "pair {} --units {} {name} [{:?}]: {why}; iostat {} {}, strata \"–\" in all 22 columns",
                pair.id,
                unit.label(),
                pair.scn[name],
                cols[col],
                ir.vals[col]
            ));
            continue;
        }
        let mut util_diverged = false;
        for (c, (i, s)) in ir.vals.iter().zip(&sr.vals).enumerate() {
            if kernel_absent(c, dev.n) {
                if s != UNKNOWN || i != "0.00" {
                    return Err(format!(
                        "{name} {}: the {}-field stat line has no such counter: expected iostat 0.00 and strata \"–\", got iostat {i} and strata {s}\n{}\n{}",
                        cols[c],
                        dev.n,
                        pair.describe(name),
                        ctx()
                    ));
                }
                t.absent += 1;
            } else if i == s {
                t.equal += 1;
            } else if c == cols.len() - 1 && util_past_the_interval(i, s) {
                util_diverged = true;
                t.divergences.push(format!(
                    "pair {} --units {} {name} [{:?}]: io_ticks past the interval; iostat %util {i}, strata {s}",
                    pair.id,
                    unit.label(),
                    pair.scn[name],
                ));
            } else {
                return Err(format!(
                    "{name} {} (--units {}): iostat {i}, strata {s}\n{}\n{}",
                    cols[c],
                    unit.label(),
                    pair.describe(name),
                    ctx()
                ));
            }
        }
        if !util_diverged && !sr.vals.iter().any(|v| v == UNKNOWN) {
            if ir.line != sr.line {
                return Err(format!(
                    "same figures but different lines:\n  iostat {:?}\n  strata {:?}\n{}",
                    ir.line,
                    sr.line,
                    ctx()
                ));
            }
            t.identical_lines += 1;
        }
    }
    Ok(t)
}

// ---------------------------------------------------------------------------
// Running both tools in a mount namespace
// ---------------------------------------------------------------------------

struct ParityEnv {
    iostat: PathBuf,
    version: String,
}

/// Everything the parity tests need, or why they cannot run here.
fn parity_env(need_iostat: bool) -> Result<ParityEnv, String> {
    let mut iostat = PathBuf::new();
    let mut version = String::new();
    if need_iostat {
        iostat = match std::env::var_os("STRATA_PARITY_IOSTAT") {
            Some(p) => Some(PathBuf::from(p)).filter(|p| p.is_file()),
            None => find_in_path("iostat"),
        }
        .ok_or("iostat not found (install sysstat, or set STRATA_PARITY_IOSTAT)")?;
        let (_, out, err) = run_bounded(Command::new(&iostat).arg("-V"), Duration::from_secs(10))?;
        version = format!("{out}{err}")
            .lines()
            .find(|l| l.contains("sysstat version"))
            .unwrap_or("sysstat version unknown")
            .trim()
            .to_string();
    }
    can_bind_in_namespace(&[])?;
    Ok(ParityEnv { iostat, version })
}

/// The environment, or `None` after printing why the test is skipped; with
/// STRATA_REQUIRE_PARITY=1 a skip is a failure instead.
fn env_or_skip(test: &str, need_iostat: bool) -> Option<ParityEnv> {
    or_skip(test, "STRATA_REQUIRE_PARITY", parity_env(need_iostat))
}

/// One process run over the interval in the namespace.
struct Run {
    key: String,
    argv: Vec<String>,
}

fn iostat_run(env: &ParityEnv, unit: Unit) -> Run {
    let mut argv = vec![env.iostat.display().to_string()];
    argv.extend(["-x", "-d", unit.iostat_flag(), "-y", "1", "1"].map(String::from));
    Run {
        key: format!("iostat_{}", unit.label()),
        argv,
    }
}

fn strata_run(format: &str, unit: Unit, all_devices: bool) -> Run {
    let mut argv = vec![STRATA.to_string()];
    argv.extend(
        [
            "batch",
            "disks",
            "--interval",
            "1",
            "--count",
            "1",
            "--format",
            format,
            "--units",
            unit.label(),
        ]
        .map(String::from),
    );
    if all_devices {
        argv.push("--all-devices".into());
    }
    Run {
        key: format!("strata_{format}_{}", unit.label()),
        argv,
    }
}

/// Writes a snapshot's /proc/uptime, /proc/diskstats and /sys/block tree.
fn write_snapshot(dir: &Path, s: &Snapshot) -> std::io::Result<()> {
    fs::create_dir_all(dir.join("block"))?;
    fs::write(dir.join("uptime"), s.uptime_text())?;
    fs::write(dir.join("diskstats"), s.diskstats_text())?;
    for (name, d) in &s.devs {
        let p = dir.join("block").join(d.sys_rel(name));
        fs::create_dir_all(&p)?;
        fs::write(p.join("stat"), d.sys_stat())?;
        if d.parent.is_some() {
            fs::write(p.join("partition"), format!("{}\n", d.minor % 16))?;
        }
        if let Some(dm) = &d.dm_name {
            fs::create_dir_all(p.join("dm"))?;
            fs::write(p.join("dm/name"), format!("{dm}\n"))?;
        }
    }
    Ok(())
}

/// The shell script run by `unshare -m`: bind A, start the runs just
/// after a whole second, write B in place half a second later, wait.
fn namespace_script(t: &Path, pair: &Pair, runs: &[Run]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "T={}", sh_quote(&t.display().to_string()));
    s.push_str(
        "mount --bind \"$T/root/uptime\" /proc/uptime || exit 90\n\
         mount --bind \"$T/root/diskstats\" /proc/diskstats || exit 91\n\
         mount --bind \"$T/root/block\" /sys/block || exit 92\n",
    );
    // iostat reads again 1 s after its start, strata at the next whole
    // second of the wall clock (its samplers' shared boundaries): started
    // just after one, both read B about 1 s later.
    s.push_str(peer_tools::AFTER_A_WHOLE_SECOND);
    s.push_str("t0=$(date +%s%N)\n");
    for (k, r) in runs.iter().enumerate() {
        let argv: Vec<String> = r.argv.iter().map(|a| sh_quote(a)).collect();
        let _ = writeln!(
            s,
            "env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=\"$T/home\" S_COLORS=never LC_ALL=C TZ=UTC {} \
             > \"$T/out/{key}.out\" 2> \"$T/out/{key}.err\" &\np{k}=$!",
            argv.join(" "),
            key = r.key
        );
    }
    s.push_str("sleep 0.5\n");
    // B, in place: same inodes for the files both tools already read.
    for (name, d) in &pair.a.devs {
        if !pair.b.devs.contains_key(name) {
            let rel = sh_quote(&d.sys_rel(name));
            let _ = writeln!(s, "rm -rf \"$T/root/block/\"{rel}");
        }
    }
    s.push_str(
        "cat \"$T/b/uptime\" > /proc/uptime\n\
         cat \"$T/b/diskstats\" > /proc/diskstats\n",
    );
    for (name, d) in &pair.b.devs {
        let rel = sh_quote(&d.sys_rel(name));
        if !pair.a.devs.contains_key(name) {
            let _ = writeln!(s, "mkdir -p /sys/block/{rel}");
            if d.parent.is_some() {
                let _ = writeln!(
                    s,
                    "cat \"$T/b/block/\"{rel}/partition > /sys/block/{rel}/partition"
                );
            }
        }
        let _ = writeln!(s, "cat \"$T/b/block/\"{rel}/stat > /sys/block/{rel}/stat");
    }
    s.push_str("t1=$(date +%s%N)\n");
    for (k, r) in runs.iter().enumerate() {
        let _ = writeln!(s, "wait $p{k}; echo $? > \"$T/out/{}.rc\"", r.key);
    }
    s.push_str("echo $((t1 - t0)) > \"$T/out/write_ns\"\nexit 0\n");
    s
}

/// Runs `runs` over the pair's interval in one mount namespace; returns
/// each run's standard output by key.
fn run_pair_once(pair: &Pair, runs: &[Run]) -> Result<BTreeMap<String, String>, String> {
    let dir = tempfile::Builder::new()
        .prefix("strata-parity-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let t = dir.path();
    let io = |r: std::io::Result<()>| r.map_err(|e| format!("{}: {e}", t.display()));
    io(write_snapshot(&t.join("root"), &pair.a))?;
    io(write_snapshot(&t.join("b"), &pair.b))?;
    io(fs::create_dir_all(t.join("out")))?;
    io(fs::create_dir_all(t.join("home")))?;
    let script = t.join("run.sh");
    io(fs::write(&script, namespace_script(t, pair, runs)))?;
    let (code, _, err) = run_bounded(
        Command::new("unshare").arg("-m").arg("sh").arg(&script),
        NS_TIMEOUT,
    )?;
    if code != 0 {
        return Err(format!(
            "pair {}: namespace script exited {code}: {}",
            pair.id,
            err.trim()
        ));
    }
    let read = |name: String| fs::read_to_string(t.join("out").join(&name)).unwrap_or_default();
    let write_ns: u64 = read("write_ns".into()).trim().parse().unwrap_or(u64::MAX);
    if write_ns > LATEST_WRITE_NS {
        return Err(format!(
            "pair {}: B was in place only {write_ns} ns after the tools started: too close to their second reading",
            pair.id
        ));
    }
    let mut outs = BTreeMap::new();
    for r in runs {
        let rc = read(format!("{}.rc", r.key));
        let stderr = read(format!("{}.err", r.key));
        if rc.trim() != "0" || !stderr.is_empty() {
            return Err(format!(
                "pair {}: {:?} exited {:?} with stderr {stderr:?}",
                pair.id,
                r.argv,
                rc.trim()
            ));
        }
        outs.insert(r.key.clone(), read(format!("{}.out", r.key)));
    }
    Ok(outs)
}

/// One attempt at a pair: both tools over the same snapshots, compared in
/// each unit.
fn check_pair(env: &ParityEnv, pair: &Pair) -> Result<Tally, String> {
    let mut units = vec![Unit::KB];
    if pair.mb {
        units.push(Unit::MB);
    }
    let runs: Vec<Run> = units
        .iter()
        .flat_map(|&u| [iostat_run(env, u), strata_run("text", u, pair.all_devices)])
        .collect();
    let outs = run_pair_once(pair, &runs)?;
    let mut tally = Tally::default();
    for &u in &units {
        let io = &outs[&format!("iostat_{}", u.label())];
        let st = &outs[&format!("strata_text_{}", u.label())];
        tally.add(compare(pair, u, io, st)?);
    }
    Ok(tally)
}

/// The generator covers what the parity claim is about.
fn check_coverage(pairs: &[Pair]) {
    assert!(pairs.len() >= 60);
    let all = [
        Scn::Idle,
        Scn::Busy,
        Scn::Wrap32,
        Scn::Big63,
        Scn::Big64,
        Scn::SumWrapNoReset,
        Scn::SumWrapReset,
        Scn::Reset,
        Scn::ResetReadsFromZero,
        Scn::Appear,
        Scn::AppearLarge,
        Scn::Vanish,
        Scn::NeverUsed,
        Scn::NeverUsedTicks,
        Scn::ZeroedInB,
        Scn::Rounding,
        Scn::Edge2p31,
    ];
    for s in all.iter().chain(&GARBAGE) {
        assert!(
            pairs.iter().any(|p| p.scn.values().any(|x| x == s)),
            "generator never makes {s:?}"
        );
    }
    for n in [11, 15, 17] {
        assert!(pairs.iter().any(|p| p.b.devs.values().any(|d| d.n == n)));
    }
    assert!(pairs.iter().any(|p| {
        let ns: std::collections::BTreeSet<usize> = p.b.devs.values().map(|d| d.n).collect();
        ns.len() == 3
    }));
    for i in TICKS {
        assert!(
            pairs.iter().any(|p| p.scn.iter().any(|(name, s)| {
                *s == Scn::Wrap32
                    && match (p.a.devs.get(name), p.b.devs.get(name)) {
                        (Some(a), Some(b)) => i < a.n && b.v[i] < a.v[i],
                        _ => false,
                    }
            })),
            "no 32-bit wrap of {}",
            FIELD_NAMES[i]
        );
    }
    let itvs: Vec<u64> = pairs.iter().map(Pair::itv_cs).collect();
    assert!(itvs.iter().all(|i| (50..=300).contains(i)));
    assert!(itvs.iter().any(|&i| i < 100) && itvs.iter().any(|&i| i > 250));
    assert!(pairs.iter().any(|p| p.b.devs.keys().any(|n| n.len() > 13)));
    assert!(
        pairs
            .iter()
            .any(|p| p.expected_rows().iter().any(|n| n.contains('/')))
    );
    assert!(
        pairs
            .iter()
            .any(|p| p.b.devs.values().any(|d| d.parent.is_some()))
    );
    assert!(
        pairs
            .iter()
            .any(|p| { p.all_devices && p.expected_rows().iter().any(|n| hidden_by_default(n)) })
    );
    let garbage_rows: usize = pairs
        .iter()
        .map(|p| {
            p.expected_rows()
                .iter()
                .filter(|n| {
                    garbage(p.a.devs.get(*n), &p.b.devs[*n], p.itv_cs(), Unit::KB).is_some()
                })
                .count()
        })
        .sum();
    assert!(garbage_rows >= 9, "only {garbage_rows} garbage rows");
    // only the garbage scenarios make garbage
    for p in pairs {
        for (name, d) in &p.b.devs {
            let g = garbage(p.a.devs.get(name), d, p.itv_cs(), Unit::KB).is_some();
            assert_eq!(g, GARBAGE.contains(&p.scn[name]), "{}", p.describe(name));
        }
    }
}

#[test]
fn strata_batch_disks_matches_iostat() {
    let Some(env) = env_or_skip("iostat parity", true) else {
        return;
    };
    let start = Instant::now();
    let pairs: Vec<Pair> = (0..PAIRS).map(gen_pair).collect();
    check_coverage(&pairs);
    let results = run_all(&pairs, PARALLEL, ATTEMPTS, DEADLINE, |p| {
        check_pair(&env, p)
    });
    let mut total = Tally::default();
    let mut failures = Vec::new();
    let mut retried = Vec::new();
    for (i, r) in results {
        match r {
            Ok((tally, earlier)) => {
                total.add(tally);
                if !earlier.is_empty() {
                    retried.push(format!("pair {i} passed after: {}", earlier.join("; ")));
                }
            }
            Err(e) => failures.push(e),
        }
    }
    eprintln!(
        "iostat parity: {} pairs, {} device rows, {} figures equal, {} documented divergences",
        pairs.len(),
        total.rows,
        total.equal,
        total.divergences.len()
    );
    eprintln!(
        "  {} reports ({} pairs also in MB), {} kernel-absent figures (strata \"–\", iostat 0.00), \
         {} rows identical byte for byte, {} pairs retried, {} failed, {:.1} s, {}",
        total.reports,
        pairs.iter().filter(|p| p.mb).count(),
        total.absent,
        total.identical_lines,
        retried.len(),
        failures.len(),
        start.elapsed().as_secs_f64(),
        env.version
    );
    if !env.version.contains("12.6.") {
        eprintln!(
            "  note: written against sysstat 12.6.1, found {}",
            env.version
        );
    }
    for d in &total.divergences {
        eprintln!("  divergence: {d}");
    }
    for r in &retried {
        eprintln!("  retried: {r}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} pairs failed:\n\n{}",
        failures.len(),
        pairs.len(),
        failures.join("\n\n")
    );
    assert_eq!(
        total.reports,
        pairs.len() + pairs.iter().filter(|p| p.mb).count()
    );
}

// ---------------------------------------------------------------------------
// JSON and CSV carry the text figures
// ---------------------------------------------------------------------------

/// The raw text of a JSON member's value on one line of strata's output.
fn json_raw<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\": ");
    let start = line.find(&pat)? + pat.len();
    let rest = &line[start..];
    let end = rest.find([',', '}'])?;
    Some(rest[..end].trim())
}

#[test]
fn json_and_csv_carry_the_text_figures() {
    let Some(_env) = env_or_skip("json/csv parity", false) else {
        return;
    };
    // a pair with a garbage row, a 11-field and a 17-field row
    let pair = (0..PAIRS)
        .map(gen_pair)
        .find(|p| {
            let rows = p.expected_rows();
            let has = |f: &dyn Fn(&Dev) -> bool| rows.iter().any(|n| f(&p.b.devs[n]));
            rows.iter()
                .any(|n| garbage(p.a.devs.get(n), &p.b.devs[n], p.itv_cs(), Unit::KB).is_some())
                && has(&|d| d.n == 11)
                && has(&|d| d.n == 17)
        })
        .expect("generator: no pair with a garbage, a 11-field and a 17-field row");
    let units = [Unit::KB, Unit::MB];
    let runs: Vec<Run> = units
        .iter()
        .flat_map(|&u| ["text", "json", "csv"].map(|f| strata_run(f, u, pair.all_devices)))
        .collect();
    let outs = run_pair_once(&pair, &runs).unwrap_or_else(|e| panic!("{e}"));
    let interval = format!("{:.2}", pair.itv_cs() as f64 / 100.0);
    let mut figures = 0;
    for u in units {
        let get = |f: &str| &outs[&format!("strata_{f}_{}", u.label())];
        let text = parse_report(get("text")).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = text.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, pair.expected_rows(), "pair {}", pair.id);
        let keys: Vec<String> = JSON_KEYS
            .iter()
            .map(|k| match u {
                Unit::KB => k.to_string(),
                Unit::MB => k.replace("kB/s", "MB/s"),
            })
            .collect();

        let json: Vec<&str> = get("json").lines().collect();
        assert_eq!(json.len(), text.rows.len(), "{}", get("json"));
        for (line, row) in json.iter().zip(&text.rows) {
            let v: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let obj = v.as_object().expect("one JSON object per line");
            assert_eq!(obj["disk_device"], row.name.as_str(), "{line}");
            // identity, the 22 figures, and whether the counters fell
            assert_eq!(obj.len(), 5 + 22 + 1, "{line}");
            assert!(obj["reset"].is_boolean(), "{line}");
            assert_eq!(json_raw(line, "interval_s"), Some(interval.as_str()));
            for (c, key) in keys.iter().enumerate() {
                assert!(obj.contains_key(key), "{key} missing: {line}");
                let raw = json_raw(line, key).unwrap();
                let want = if row.vals[c] == UNKNOWN {
                    "null"
                } else {
                    row.vals[c].as_str()
                };
                assert_eq!(raw, want, "{} {key} JSON vs text: {line}", row.name);
                figures += 1;
            }
        }

        let csv: Vec<&str> = get("csv").lines().collect();
        let header_cols: Vec<&str> = text.header.split_whitespace().skip(1).collect();
        assert_eq!(
            csv[0],
            format!(
                "timestamp,interval_s,device,name,class,{},reset",
                header_cols.join(",")
            )
        );
        assert_eq!(csv.len() - 1, text.rows.len(), "{}", get("csv"));
        for (line, row) in csv[1..].iter().zip(&text.rows) {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), 5 + 22 + 1, "{line}");
            assert!(matches!(fields[27], "true" | "false"), "{line}");
            assert_eq!(
                (fields[1], fields[3]),
                (interval.as_str(), row.name.as_str())
            );
            for (c, (&f, t)) in fields[5..27].iter().zip(&row.vals).enumerate() {
                let want = if t == UNKNOWN { "" } else { t.as_str() };
                assert_eq!(f, want, "{} {} CSV vs text: {line}", row.name, COLS[c]);
                figures += 1;
            }
        }
    }
    eprintln!(
        "json/csv parity: pair {} ({}), {figures} JSON and CSV figures equal to the text's, kB and MB",
        pair.id, pair.theme
    );
}

// ---------------------------------------------------------------------------
// Divergences found by this suite that strata does not document. Each test
// states the parity that fails today; they are ignored so that the suite
// stays green until the behaviour is fixed or documented (then delete the
// test or turn it into a documented exception above).
// ---------------------------------------------------------------------------

/// name, number of stat fields, counters in A, counters in B.
type HandDev<'a> = (&'a str, usize, Option<[u64; 17]>, Option<[u64; 17]>);

fn hand_pair(id: usize, itv: u64, devs: &[HandDev]) -> Pair {
    let mut a = Snapshot {
        uptime_cs: 500_000,
        ..Default::default()
    };
    let mut b = Snapshot {
        uptime_cs: 500_000 + itv,
        ..Default::default()
    };
    let mut scn = BTreeMap::new();
    for (k, &(name, n, va, vb)) in devs.iter().enumerate() {
        let dev = |v: [u64; 17]| Dev {
            major: major_of(name),
            minor: 16 * k as u32,
            n,
            v,
            parent: None,
            dm_name: None,
        };
        if let Some(v) = va {
            a.devs.insert(name.to_string(), dev(v));
        }
        if let Some(v) = vb {
            b.devs.insert(name.to_string(), dev(v));
        }
        scn.insert(name.to_string(), Scn::Busy);
    }
    Pair {
        id,
        theme: "hand-made",
        a,
        b,
        all_devices: false,
        mb: false,
        scn,
    }
}

/// Runs iostat -k and strata text (kB) over a hand-made pair.
fn reports(env: &ParityEnv, pair: &Pair) -> (Report, Report) {
    let runs = [
        iostat_run(env, Unit::KB),
        strata_run("text", Unit::KB, pair.all_devices),
    ];
    let outs = run_pair_once(pair, &runs).unwrap_or_else(|e| panic!("{e}"));
    let parse = |k: &str| parse_report(&outs[k]).unwrap_or_else(|e| panic!("{k}: {e}"));
    (parse("iostat_kB"), parse("strata_text_kB"))
}

/// Counters from zero that read `reads` requests and `reads * 8` sectors.
fn reads(n: u64) -> [u64; 17] {
    let mut v = [0u64; 17];
    v[RD_IOS] = n;
    v[RD_SEC] = n * 8;
    v
}

/// DOCUMENTED DIVERGENCE (layers::disks::model): when a device counts from zero
/// (new, or re-created) with merges + requests ≥ 2^64 over the interval,
/// iostat computes %rrqm as merges / (merges + ios) with the sum wrapped
/// modulo 2^64 and prints 184467440737095516160.00; strata sums in floating
/// point and prints 50.00. strata's figure is the arithmetically right one,
/// but it is neither iostat's (layers::disks::model claims agreement "to the last
/// digit") nor "–" (its rule where iostat prints garbage), and the
/// divergence is documented nowhere. Case: vda appears in B with
/// rd_ios = 2^63 + 5 and rd_merges = 2^63. Unreachable on a real kernel
/// (2^63 requests); fix by documenting it, by printing "–", or by wrapping
/// like iostat.
#[test]
fn rrqm_pct_when_merges_plus_ios_overflow_u64_is_the_true_share() {
    let Some(env) = env_or_skip("rrqm overflow", true) else {
        return;
    };
    let mut b = [0u64; 17];
    b[RD_IOS] = P63 + 5;
    b[RD_MERGES] = P63;
    b[RD_SEC] = 8;
    let pair = hand_pair(900, 100, &[("vda", 11, None, Some(b))]);
    let (io, st) = reports(&env, &pair);
    let c = COLS.iter().position(|&c| c == "%rrqm").unwrap();
    let (i, s) = (&io.rows[0].vals[c], &st.rows[0].vals[c]);
    // documented in layers::disks::model: iostat's wrapped u64 sum prints garbage,
    // strata the true share, 2^63 / (2^63 + 2^63 + 5)
    assert!(i.parse::<f64>().is_ok_and(|v| v > 1e9), "iostat prints {i}");
    assert_eq!(s, "50.00", "strata's %rrqm");
}

/// Fixed divergence: row order of names with a `/`. iostat lists
/// devices in strcmp order of the sysfs spelling (`cciss!c0d0`) and prints
/// them as `cciss/c0d0`; strata sorts by the /proc/diskstats spelling. The
/// two orders differ when such a name shares a prefix with a name that has
/// one of `"#$%&'()*+,-.` where the other has the `/` (`!` sorts before
/// them, `/` after). Case: cciss/c0d0 and cciss-x (a made-up name): iostat
/// prints cciss/c0d0 first, strata cciss-x. Real device names hardly ever
/// meet this.
#[test]
fn names_with_a_slash_sort_like_iostat() {
    let Some(env) = env_or_skip("slash order", true) else {
        return;
    };
    let pair = hand_pair(
        901,
        100,
        &[
            ("cciss/c0d0", 11, Some(reads(10)), Some(reads(20))),
            ("cciss-x", 11, Some(reads(10)), Some(reads(20))),
        ],
    );
    let (io, st) = reports(&env, &pair);
    let names = |r: &Report| r.rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&io),
        pair.expected_rows(),
        "the test's model of iostat"
    );
    assert_eq!(names(&st), names(&io), "row order: strata vs iostat");
}

/// Batch text names a dm device as `iostat -x -d -y` does: dm-0, not its
/// /dev/mapper name (/sys/block/dm-0/dm/name, here vg0-root; only
/// `iostat -N` prints those), in the kernel names' order. docs/screens.md
/// promises mapper names for the screen's Disks panel and docs/options.md
/// "iostat -x -d -y layout" for batch text. Strata once printed vg0-root
/// here, out of order before dm-1.
#[test]
fn dm_devices_are_named_as_iostat_x_names_them() {
    let Some(env) = env_or_skip("dm names", true) else {
        return;
    };
    let mut pair = hand_pair(
        902,
        100,
        &[
            ("dm-0", 11, Some(reads(10)), Some(reads(20))),
            ("dm-1", 11, Some(reads(10)), Some(reads(20))),
            ("sda", 11, Some(reads(10)), Some(reads(20))),
        ],
    );
    for s in [&mut pair.a, &mut pair.b] {
        s.devs.get_mut("dm-0").unwrap().dm_name = Some("vg0-root".into());
    }
    let (io, st) = reports(&env, &pair);
    let names = |r: &Report| r.rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&io), ["dm-0", "dm-1", "sda"], "iostat");
    assert_eq!(names(&st), names(&io), "strata vs iostat");
}

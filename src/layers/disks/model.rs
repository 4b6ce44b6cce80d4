//! iostat -x figures from two snapshots of a device's counters.
//!
//! The arithmetic follows sysstat 12.6.1 (`iostat.c` write_ext_stat and
//! `common.c` compute_ext_disk_stats), down to the order of operations, so
//! the printed figures agree to the last digit:
//! - the interval is the difference of /proc/uptime in centiseconds;
//! - the 32-bit millisecond fields are subtracted modulo 2^32, so a wrap
//!   gives the true elapsed time;
//! - a device seen for the first time, or re-created (iostat's test: fewer
//!   I/Os in all and fewer sectors on each side), counts from zero: all its
//!   I/O happened since it was created, within the interval.
//!
//! Where iostat prints garbage, strata prints nothing: a 64-bit count that
//! goes backwards without the rest of the device resetting, or a 32-bit
//! field that moved by 2^31 or more (24 days of milliseconds in one
//! interval), would give ~1.8e19 r/s or a queue of millions; strata reports
//! the device's figures as unknown for that interval instead.
//!
//! And where iostat prints the impossible, strata prints nothing too:
//! - a device counted from zero (new, or reset by iostat's test) whose
//!   io_ticks from zero exceed the interval did not do all that I/O within
//!   it: its counters fell without the device being re-created (a driver
//!   reset its statistics, a counter went backwards), so counting from zero
//!   would show the I/O of a longer past as this interval's (a real 100 r/s
//!   shown as 1031.63 r/s, %util 317.35). Every figure is unknown and the
//!   row says it was reset, as the NIC layer does;
//! - io_ticks can pass the interval by the kernel's jiffy rounding: %util
//!   over 100 by at most [`UTIL_SLACK_MS`] (or 2 %) is shown as 100.00,
//!   beyond that it is unknown, since no device is busy longer than the
//!   time that passed. iostat prints both as they come.
//!
//! One more place where iostat's integers overflow: %rrqm (and %wrqm,
//! %drqm) when merges + requests in one interval pass 2^64, which only
//! counters near 2^63 can do. iostat's wrapped sum prints ~1.8e20 %;
//! strata sums in floating point and prints the true share.

use super::diskstats::DiskCounters;
use crate::core::total::Delta;
// The units and column kinds are every layer's; their old home keeps
// the names for what imports them from here.
use crate::layers::col::{ColDef, Figures, cols};
pub use crate::layers::col::{ColKind, Units};

/// One column of `iostat -x`, in iostat's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiskCol {
    RPerS,
    RkBPerS,
    RrqmPerS,
    RrqmPct,
    RAwait,
    RareqSz,
    WPerS,
    WkBPerS,
    WrqmPerS,
    WrqmPct,
    WAwait,
    WareqSz,
    DPerS,
    DkBPerS,
    DrqmPerS,
    DrqmPct,
    DAwait,
    DareqSz,
    FPerS,
    FAwait,
    AquSz,
    Util,
}

/// The disks' figures in the units the user chose.
impl Units {
    /// A figure of `col` (held in kB) in these units. iostat -m divides
    /// sectors by 2048; kB / 1024 is the very same float, dividing by a
    /// power of two being exact.
    pub fn scale(self, col: DiskCol, kb: f64) -> f64 {
        match (self, col.def().kind) {
            (Units::MB, ColKind::Throughput) => kb / 1024.0,
            _ => kb,
        }
    }

    /// A column's name in these units, as iostat -k or -m heads it.
    pub fn header(self, col: DiskCol) -> &'static str {
        match self {
            Units::KB => col.def().header,
            Units::MB => col.def().header_mb(),
        }
    }
}

cols! {
    /// Headers as iostat -x -k prints them, the JSON keys the same without a
    /// `%`; the last item is the header in MB units (iostat -x -m).
    pub const DISK_COLS: [DiskCol, ColKind, &'static str] = [
        (RPerS, "r/s", "r/s", Ops, "r/s"),
        (RkBPerS, "rkB/s", "rkB/s", Throughput, "rMB/s"),
        (RrqmPerS, "rrqm/s", "rrqm/s", Ops, "rrqm/s"),
        (RrqmPct, "%rrqm", "rrqm", MergePct, "%rrqm"),
        (RAwait, "r_await", "r_await", Await, "r_await"),
        (RareqSz, "rareq-sz", "rareq-sz", ReqSize, "rareq-sz"),
        (WPerS, "w/s", "w/s", Ops, "w/s"),
        (WkBPerS, "wkB/s", "wkB/s", Throughput, "wMB/s"),
        (WrqmPerS, "wrqm/s", "wrqm/s", Ops, "wrqm/s"),
        (WrqmPct, "%wrqm", "wrqm", MergePct, "%wrqm"),
        (WAwait, "w_await", "w_await", Await, "w_await"),
        (WareqSz, "wareq-sz", "wareq-sz", ReqSize, "wareq-sz"),
        (DPerS, "d/s", "d/s", Ops, "d/s"),
        (DkBPerS, "dkB/s", "dkB/s", Throughput, "dMB/s"),
        (DrqmPerS, "drqm/s", "drqm/s", Ops, "drqm/s"),
        (DrqmPct, "%drqm", "drqm", MergePct, "%drqm"),
        (DAwait, "d_await", "d_await", Await, "d_await"),
        (DareqSz, "dareq-sz", "dareq-sz", ReqSize, "dareq-sz"),
        (FPerS, "f/s", "f/s", Ops, "f/s"),
        (FAwait, "f_await", "f_await", Await, "f_await"),
        (AquSz, "aqu-sz", "aqu-sz", Queue, "aqu-sz"),
        (Util, "%util", "util", Util, "%util"),
    ];
}

impl ColDef<DiskCol, ColKind, &'static str> {
    /// The header when MB units are chosen (iostat -x -m).
    pub fn header_mb(&self) -> &'static str {
        self.extra
    }
}

/// Counter differences over one interval. Sums of these over devices give
/// totals computed with the very same formulas.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DiskDelta {
    /// Interval in centiseconds of the source's /proc/uptime.
    pub itv_cs: u64,
    pub rd_ios: u64,
    pub rd_merges: u64,
    pub rd_sectors: u64,
    pub rd_ticks: u64,
    pub wr_ios: u64,
    pub wr_merges: u64,
    pub wr_sectors: u64,
    pub wr_ticks: u64,
    pub tot_ticks: u64,
    pub rq_ticks: u64,
    /// Discard deltas, when both snapshots have discard fields.
    pub discard: Option<[u64; 4]>,
    /// Flush deltas (ios, ticks), when both snapshots have flush fields.
    pub flush: Option<[u64; 2]>,
}

/// How far io_ticks may pass the interval by rounding alone: two jiffies
/// at HZ=100.
pub const UTIL_SLACK_MS: u64 = 20;

/// io_ticks over the interval: the most a device can be busy, with the
/// rounding slack; `None` beyond it.
fn busy_ms(ticks: u64, itv_cs: u64) -> Option<u64> {
    let itv_ms = itv_cs.saturating_mul(10);
    let slack = UTIL_SLACK_MS.max(itv_ms / 50);
    (ticks <= itv_ms.saturating_add(slack)).then_some(ticks.min(itv_ms))
}

/// Whether any count of the device fell between two samples: it was
/// re-created, or its statistics were reset.
pub fn fell(prev: &DiskCounters, cur: &DiskCounters) -> bool {
    let opt = |p: Option<u64>, c: Option<u64>| matches!((p, c), (Some(p), Some(c)) if c < p);
    cur.rd_ios < prev.rd_ios
        || cur.rd_merges < prev.rd_merges
        || cur.rd_sectors < prev.rd_sectors
        || cur.wr_ios < prev.wr_ios
        || cur.wr_merges < prev.wr_merges
        || cur.wr_sectors < prev.wr_sectors
        || opt(prev.discard.map(|d| d.ios), cur.discard.map(|d| d.ios))
        || opt(
            prev.discard.map(|d| d.sectors),
            cur.discard.map(|d| d.sectors),
        )
        || opt(
            prev.discard.map(|d| d.merges),
            cur.discard.map(|d| d.merges),
        )
        || opt(prev.flush.map(|d| d.ios), cur.flush.map(|d| d.ios))
}

fn count(prev: u64, cur: u64) -> Option<u64> {
    cur.checked_sub(prev)
}

fn ms(prev: u32, cur: u32) -> Option<u64> {
    let d = cur.wrapping_sub(prev);
    (d < 1 << 31).then_some(u64::from(d))
}

/// iostat's test for a device that was re-created between two samples.
fn is_reset(prev: &DiskCounters, cur: &DiskCounters) -> bool {
    let ios = |d: &DiskCounters| {
        d.rd_ios
            .wrapping_add(d.wr_ios)
            .wrapping_add(d.discard.map_or(0, |x| x.ios))
            .wrapping_add(d.flush.map_or(0, |x| x.ios))
    };
    let fell = |p: u64, c: u64| p == 0 || c < p;
    let dc_sectors = |d: &DiskCounters| d.discard.map_or(0, |x| x.sectors);
    ios(cur) < ios(prev)
        && fell(prev.rd_sectors, cur.rd_sectors)
        && fell(prev.wr_sectors, cur.wr_sectors)
        && fell(dc_sectors(prev), dc_sectors(cur))
}

/// Counters at zero, with the same optional fields as `like`.
fn zero_like(like: &DiskCounters) -> DiskCounters {
    DiskCounters {
        discard: like.discard.map(|_| Default::default()),
        flush: like.flush.map(|_| Default::default()),
        ..Default::default()
    }
}

impl DiskDelta {
    /// The differences between two snapshots of one device taken `itv_cs`
    /// centiseconds apart. `prev` is `None` for a device that was not in
    /// the previous sample. `None` when the interval is empty or the
    /// counters moved in a way no interval of I/O can explain.
    pub fn between(prev: Option<&DiskCounters>, cur: &DiskCounters, itv_cs: u64) -> Option<Self> {
        if itv_cs == 0 {
            return None;
        }
        let zero;
        let (prev, counted_from_zero) = match prev {
            Some(p) if !is_reset(p, cur) => (p, false),
            _ => {
                zero = zero_like(cur);
                (&zero, true)
            }
        };
        let discard = match (prev.discard, cur.discard) {
            (Some(p), Some(c)) => Some([
                count(p.ios, c.ios)?,
                count(p.merges, c.merges)?,
                count(p.sectors, c.sectors)?,
                ms(p.ticks, c.ticks)?,
            ]),
            _ => None,
        };
        let flush = match (prev.flush, cur.flush) {
            (Some(p), Some(c)) => Some([count(p.ios, c.ios)?, ms(p.ticks, c.ticks)?]),
            _ => None,
        };
        let tot_ticks = ms(prev.tot_ticks, cur.tot_ticks)?;
        if counted_from_zero && tot_ticks > itv_cs.saturating_mul(10) {
            return None;
        }
        Some(DiskDelta {
            itv_cs,
            rd_ios: count(prev.rd_ios, cur.rd_ios)?,
            rd_merges: count(prev.rd_merges, cur.rd_merges)?,
            rd_sectors: count(prev.rd_sectors, cur.rd_sectors)?,
            rd_ticks: ms(prev.rd_ticks, cur.rd_ticks)?,
            wr_ios: count(prev.wr_ios, cur.wr_ios)?,
            wr_merges: count(prev.wr_merges, cur.wr_merges)?,
            wr_sectors: count(prev.wr_sectors, cur.wr_sectors)?,
            wr_ticks: ms(prev.wr_ticks, cur.wr_ticks)?,
            tot_ticks,
            rq_ticks: ms(prev.rq_ticks, cur.rq_ticks)?,
            discard,
            flush,
        })
    }

    /// One device's figures: [`rates`](Self::rates) with %util bounded by
    /// the time that passed (a sum over devices is not).
    pub fn device_rates(&self) -> DiskRates {
        let mut rates = self.rates();
        let util = busy_ms(self.tot_ticks, self.itv_cs)
            .map(|busy| busy as f64 / self.itv_cs as f64 * 100.0 / 10.0);
        rates.set(DiskCol::Util, util);
        rates
    }

    /// Every iostat -x column for this interval.
    pub fn rates(&self) -> DiskRates {
        let itv = self.itv_cs as f64;
        // S_VALUE(m, n, p) = (n - m) / p * 100, p in centiseconds.
        let per_s = |d: u64| d as f64 / itv * 100.0;
        let ratio = |num: u64, den: u64| {
            if den == 0 {
                0.0
            } else {
                num as f64 / den as f64
            }
        };
        // iostat sums in integers before dividing; do the same where the sum
        // fits so the digits match, and in floating point where it cannot.
        let pct = |merges: u64, ios: u64| match merges.checked_add(ios) {
            Some(sum) => ratio(merges, sum) * 100.0,
            None => merges as f64 / (merges as f64 + ios as f64) * 100.0,
        };
        let mut v = DiskRates::default();
        // Reads, writes and discards: the same six columns from their ios,
        // merges, sectors and ticks.
        let mut direction = |cols: [DiskCol; 6], [ios, merges, sectors, ticks]: [u64; 4]| {
            let figures = [
                per_s(ios),
                per_s(sectors) / 2.0,
                per_s(merges),
                pct(merges, ios),
                ratio(ticks, ios),
                ratio(sectors, ios) / 2.0,
            ];
            for (c, x) in cols.into_iter().zip(figures) {
                v.set(c, Some(x));
            }
        };
        use DiskCol::*;
        direction(
            [RPerS, RkBPerS, RrqmPerS, RrqmPct, RAwait, RareqSz],
            [self.rd_ios, self.rd_merges, self.rd_sectors, self.rd_ticks],
        );
        direction(
            [WPerS, WkBPerS, WrqmPerS, WrqmPct, WAwait, WareqSz],
            [self.wr_ios, self.wr_merges, self.wr_sectors, self.wr_ticks],
        );
        if let Some(discard) = self.discard {
            direction(
                [DPerS, DkBPerS, DrqmPerS, DrqmPct, DAwait, DareqSz],
                discard,
            );
        }
        let mut set = |c: DiskCol, x: f64| v.set(c, Some(x));
        if let Some([ios, ticks]) = self.flush {
            set(DiskCol::FPerS, per_s(ios));
            set(DiskCol::FAwait, ratio(ticks, ios));
        }
        set(DiskCol::AquSz, per_s(self.rq_ticks) / 1000.0);
        set(DiskCol::Util, per_s(self.tot_ticks) / 10.0);
        v
    }
}

impl Delta for DiskDelta {
    fn itv_cs(&self) -> u64 {
        self.itv_cs
    }

    fn accumulate(&mut self, other: &DiskDelta) {
        self.rd_ios = self.rd_ios.saturating_add(other.rd_ios);
        self.rd_merges = self.rd_merges.saturating_add(other.rd_merges);
        self.rd_sectors = self.rd_sectors.saturating_add(other.rd_sectors);
        self.rd_ticks = self.rd_ticks.saturating_add(other.rd_ticks);
        self.wr_ios = self.wr_ios.saturating_add(other.wr_ios);
        self.wr_merges = self.wr_merges.saturating_add(other.wr_merges);
        self.wr_sectors = self.wr_sectors.saturating_add(other.wr_sectors);
        self.wr_ticks = self.wr_ticks.saturating_add(other.wr_ticks);
        self.tot_ticks = self.tot_ticks.saturating_add(other.tot_ticks);
        self.rq_ticks = self.rq_ticks.saturating_add(other.rq_ticks);
        self.discard = both_added(self.discard, other.discard);
        self.flush = both_added(self.flush, other.flush);
    }
}

/// Counters some devices have (discard, flush): summed only when both
/// sides have them, as a total over devices is known only when each is.
fn both_added<const N: usize>(a: Option<[u64; N]>, b: Option<[u64; N]>) -> Option<[u64; N]> {
    let (a, b) = (a?, b?);
    Some(std::array::from_fn(|i| a[i].saturating_add(b[i])))
}

/// The iostat -x figures of one device over one interval, in kB units.
/// `None` is a figure the kernel does not provide (discard before 4.18,
/// flush before 5.5).
pub type DiskRates = Figures<DiskCol, { DISK_COLS.len() }>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::disks::diskstats::{DiscardCounters, FlushCounters};

    fn dev(rd_ios: u64, rd_ticks: u32, tot: u32) -> DiskCounters {
        DiskCounters {
            name: "sda".into(),
            rd_ios,
            rd_sectors: rd_ios * 8,
            rd_ticks,
            tot_ticks: tot,
            ..Default::default()
        }
    }

    #[test]
    fn iostat_formulas() {
        let prev = DiskCounters {
            discard: Some(DiscardCounters::default()),
            flush: Some(FlushCounters::default()),
            ..dev(100, 1000, 5000)
        };
        let cur = DiskCounters {
            rd_merges: 50,
            rq_ticks: 3000,
            discard: Some(DiscardCounters {
                ios: 4,
                merges: 0,
                sectors: 64,
                ticks: 8,
            }),
            flush: Some(FlushCounters { ios: 2, ticks: 3 }),
            ..dev(300, 3000, 5500)
        };
        let r = DiskDelta::between(Some(&prev), &cur, 200).unwrap().rates();
        assert_eq!(r.get(DiskCol::RPerS), Some(100.0));
        assert_eq!(r.get(DiskCol::RkBPerS), Some(400.0));
        assert_eq!(r.get(DiskCol::RrqmPct), Some(50.0 / 250.0 * 100.0));
        assert_eq!(r.get(DiskCol::RAwait), Some(10.0));
        assert_eq!(r.get(DiskCol::RareqSz), Some(4.0));
        assert_eq!(r.get(DiskCol::AquSz), Some(1.5));
        assert_eq!(r.get(DiskCol::Util), Some(25.0));
        assert_eq!(r.get(DiskCol::DAwait), Some(2.0));
        assert_eq!(r.get(DiskCol::DareqSz), Some(8.0));
        assert_eq!(r.get(DiskCol::FPerS), Some(1.0));
        assert_eq!(r.get(DiskCol::WAwait), Some(0.0));
    }

    #[test]
    fn ms_fields_wrap_modulo_2_pow_32() {
        let prev = dev(100, u32::MAX - 99, u32::MAX - 499);
        let cur = dev(200, 100, 500);
        let r = DiskDelta::between(Some(&prev), &cur, 100).unwrap().rates();
        assert_eq!(r.get(DiskCol::RAwait), Some(2.0));
        assert_eq!(r.get(DiskCol::Util), Some(100.0));
    }

    #[test]
    fn a_recreated_device_counts_from_zero() {
        let r = DiskDelta::between(Some(&dev(100, 0, 0)), &dev(5, 0, 0), 100).unwrap();
        assert_eq!(r.rd_ios, 5);
        let new = DiskDelta::between(None, &dev(7, 0, 0), 100).unwrap();
        assert_eq!(new.rd_ios, 7);
        assert!(DiskDelta::between(Some(&dev(1, 0, 0)), &dev(5, 0, 0), 0).is_none());
    }

    #[test]
    fn counters_that_fell_without_the_device_being_recreated_are_unknown() {
        // A real 100 r/s at 1 s whose statistics fell back to a point long
        // past: counted from zero it read as 1031.63 r/s and %util 317.35.
        let prev = dev(5_000_000, 9_000_000, 40_000_000);
        let fallen = dev(103_163, 60_000, 3_173);
        assert!(fell(&prev, &fallen));
        assert!(DiskDelta::between(Some(&prev), &fallen, 100).is_none());
        // Re-created within the interval: all its I/O fits in it.
        let fresh = dev(100, 80, 950);
        let r = DiskDelta::between(Some(&prev), &fresh, 100).unwrap();
        assert_eq!(r.device_rates().get(DiskCol::RPerS), Some(100.0));
        assert_eq!(r.device_rates().get(DiskCol::Util), Some(95.0));
        // A device that appears with more busy time than the interval holds.
        assert!(DiskDelta::between(None, &dev(10, 10, 1001), 100).is_none());
    }

    #[test]
    fn util_is_bounded_by_the_time_that_passed() {
        let d = |tot: u32| DiskDelta::between(Some(&dev(0, 0, 0)), &dev(1, 0, tot), 100);
        let util = |tot| d(tot).unwrap().device_rates().get(DiskCol::Util);
        assert_eq!(util(1000), Some(100.0));
        // a jiffy or two of rounding: shown as the whole interval
        assert_eq!(util(1020), Some(100.0));
        // beyond it: no device is busy longer than the time that passed
        assert_eq!(util(1021), None);
        // iostat's figure stays in rates(), which sums over devices use
        let raw = d(1021).unwrap().rates().get(DiskCol::Util);
        assert_eq!(raw.map(|u| format!("{u:.2}")).as_deref(), Some("102.10"));
    }

    proptest::proptest! {
        /// Generated faults (counts that fall, jump or wrap, devices that
        /// appear) never give a figure no interval allows: each is finite
        /// and not negative, a rate is at most what the current counter
        /// holds over the interval, %util at most 100.
        #[test]
        fn every_figure_keeps_its_bound(
            p in proptest::collection::vec(0u64..2_000_000, 6),
            c in proptest::collection::vec(0u64..2_000_000, 6),
            ticks in proptest::collection::vec(proptest::num::u32::ANY, 8),
            itv_cs in 1u64..1000,
            seen in proptest::bool::ANY,
        ) {
            let counters = |v: &[u64], t: &[u32]| DiskCounters {
                name: "sda".into(),
                rd_ios: v[0],
                rd_merges: v[1],
                rd_sectors: v[2],
                wr_ios: v[3],
                wr_merges: v[4],
                wr_sectors: v[5],
                rd_ticks: t[0],
                wr_ticks: t[1],
                tot_ticks: t[2],
                rq_ticks: t[3],
                ..Default::default()
            };
            let prev = counters(&p, &ticks[..4]);
            let cur = counters(&c, &ticks[4..]);
            let Some(d) = DiskDelta::between(seen.then_some(&prev), &cur, itv_cs) else {
                return Ok(());
            };
            let r = d.device_rates();
            let secs = itv_cs as f64 / 100.0;
            for col in DISK_COLS.iter().map(|c| c.col) {
                if let Some(v) = r.get(col) {
                    proptest::prop_assert!(v.is_finite() && v >= 0.0, "{col:?} = {v}");
                }
            }
            let at_most = |col, n: u64| r.get(col).is_none_or(|v| v <= n as f64 / secs + 1e-9);
            proptest::prop_assert!(at_most(DiskCol::RPerS, cur.rd_ios));
            proptest::prop_assert!(at_most(DiskCol::WPerS, cur.wr_ios));
            proptest::prop_assert!(at_most(DiskCol::RkBPerS, cur.rd_sectors / 2 + 1));
            proptest::prop_assert!(r.get(DiskCol::Util).is_none_or(|u| u <= 100.0));
        }
    }

    #[test]
    fn movements_no_interval_explains_are_unknown() {
        // reads went back while writes went on: not a re-created device
        let prev = DiskCounters {
            wr_ios: 10,
            wr_sectors: 80,
            ..dev(100, 0, 0)
        };
        let cur = DiskCounters {
            wr_ios: 20,
            wr_sectors: 160,
            ..dev(50, 0, 0)
        };
        assert!(DiskDelta::between(Some(&prev), &cur, 100).is_none());
        // the queue time went back by 500 ms: iostat would print 4294966.80
        let prev = DiskCounters {
            rq_ticks: 4500,
            ..dev(1, 0, 0)
        };
        let cur = DiskCounters {
            rq_ticks: 4000,
            ..dev(2, 0, 0)
        };
        assert!(DiskDelta::between(Some(&prev), &cur, 100).is_none());
    }

    #[test]
    fn missing_discard_and_flush_are_unknown_not_zero() {
        let r = DiskDelta::between(Some(&dev(1, 0, 0)), &dev(2, 0, 0), 100)
            .unwrap()
            .rates();
        assert_eq!(r.get(DiskCol::DPerS), None);
        assert_eq!(r.get(DiskCol::FAwait), None);
    }
}

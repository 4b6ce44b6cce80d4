//! Per-cell figures from CellCLI's `list metriccurrent`: per cell disk
//! (named by its cell disk and joined to its OS device), DISK and FLASH
//! totals, the flash cache's read hit ratio, and the flash shares.
//!
//! CellCLI's rates are already rates (over the minute before
//! collectionTime), so no baseline is needed: one report gives one set of
//! figures. What is taken:
//! - `CD_IO_RQ_{R,W}_{SM,LG}_SEC` (IO/sec), `CD_IO_BY_{R,W}_{SM,LG}_SEC`
//!   (MB/sec) and `CD_IO_TM_{R,W}_{SM,LG}_RQ` (latency per request; the
//!   unit `us/request` is unverified, so a unit strata does not know makes
//!   the figure unknown rather than wrong by 1000). Names with a qualifier
//!   (`CD_IO_RQ_R_SCRUB_SEC`: the cell's own scrubbing) are not database
//!   I/O and are left out of every sum.
//! - `FC_IO_RQ_R_SEC` (reads served by the flash cache) and
//!   `FC_IO_RQ_R_MISS_SEC` for the hit ratio, and the flash cache's other
//!   plain read/write rates.
//!
//! A cell disk is FLASH when its name starts with `FD_` or `list celldisk`
//! says FlashDisk; DISK when it is a HardDisk or its name starts with
//! `CD_`; anything else (PMEM) is in neither total.
//!
//! Sums: a rate missing for some disks is summed over the disks that have
//! it, because a listing filtered with `metricValue != 0` (the Oracle
//! documentation's own example) leaves out exactly the zeros; it is
//! unknown only when no disk has it. The number of hard disks counts the
//! disks seen, so such a listing undercounts idle ones. Latencies of a
//! group are averaged weighted by each disk's requests; with no requests
//! at all, the plain mean of what the disks report. Negative or unknown
//! values are unknown, never summed.

use super::cell_shares::Shares;
use super::cellcli::{
    BlockSize, CellDisk, CellDiskType, CellcliReport, Direction, Metric, MetricPrefix, Quantity,
};
use crate::layers::col::{Figures, cols};

/// One figure of a cell disk, or of a group of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CellDiskCol {
    RPerS,
    WPerS,
    RMbPerS,
    WMbPerS,
    RAwait,
    WAwait,
    RSmPerS,
    RLgPerS,
    WSmPerS,
    WLgPerS,
    RSmMbPerS,
    RLgMbPerS,
    WSmMbPerS,
    WLgMbPerS,
    RSmAwait,
    RLgAwait,
    WSmAwait,
    WLgAwait,
}

/// What a cell column holds, which decides its formatting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellColKind {
    /// Requests per second.
    Ops,
    /// Megabytes per second, as CellCLI counts them.
    MbPerS,
    /// Milliseconds per request.
    Await,
    /// A percentage.
    Pct,
}

cols! {
    /// The headers are also the JSON keys; the last item names the CellCLI
    /// metrics the figure comes from.
    pub const CELL_DISK_COLS: [CellDiskCol, CellColKind, &'static str] = [
        (RPerS, "r/s", "r/s", Ops, "CD_IO_RQ_R_SM_SEC + CD_IO_RQ_R_LG_SEC"),
        (WPerS, "w/s", "w/s", Ops, "CD_IO_RQ_W_SM_SEC + CD_IO_RQ_W_LG_SEC"),
        (RMbPerS, "rMB/s", "rMB/s", MbPerS, "CD_IO_BY_R_SM_SEC + CD_IO_BY_R_LG_SEC"),
        (WMbPerS, "wMB/s", "wMB/s", MbPerS, "CD_IO_BY_W_SM_SEC + CD_IO_BY_W_LG_SEC"),
        (RAwait, "r_await", "r_await", Await, "CD_IO_TM_R_SM_RQ, CD_IO_TM_R_LG_RQ"),
        (WAwait, "w_await", "w_await", Await, "CD_IO_TM_W_SM_RQ, CD_IO_TM_W_LG_RQ"),
        (RSmPerS, "rSM/s", "rSM/s", Ops, "CD_IO_RQ_R_SM_SEC"),
        (RLgPerS, "rLG/s", "rLG/s", Ops, "CD_IO_RQ_R_LG_SEC"),
        (WSmPerS, "wSM/s", "wSM/s", Ops, "CD_IO_RQ_W_SM_SEC"),
        (WLgPerS, "wLG/s", "wLG/s", Ops, "CD_IO_RQ_W_LG_SEC"),
        (RSmMbPerS, "rSM_MB/s", "rSM_MB/s", MbPerS, "CD_IO_BY_R_SM_SEC"),
        (RLgMbPerS, "rLG_MB/s", "rLG_MB/s", MbPerS, "CD_IO_BY_R_LG_SEC"),
        (WSmMbPerS, "wSM_MB/s", "wSM_MB/s", MbPerS, "CD_IO_BY_W_SM_SEC"),
        (WLgMbPerS, "wLG_MB/s", "wLG_MB/s", MbPerS, "CD_IO_BY_W_LG_SEC"),
        (RSmAwait, "rSM_await", "rSM_await", Await, "CD_IO_TM_R_SM_RQ"),
        (RLgAwait, "rLG_await", "rLG_await", Await, "CD_IO_TM_R_LG_RQ"),
        (WSmAwait, "wSM_await", "wSM_await", Await, "CD_IO_TM_W_SM_RQ"),
        (WLgAwait, "wLG_await", "wLG_await", Await, "CD_IO_TM_W_LG_RQ"),
    ];
}

/// The figures of one cell disk or a group; `None` is unknown ("–").
pub type CellDiskFigures = Figures<CellDiskCol, { CELL_DISK_COLS.len() }>;

/// The flash cache's figures of a cell, or of all cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FlashCacheCol {
    HitPct,
    RPerS,
    RMissPerS,
    RSkipPerS,
    WPerS,
    RMbPerS,
    WMbPerS,
}

cols! {
    /// The last item is the CellCLI metrics each figure comes from.
    pub const FLASH_CACHE_COLS: [FlashCacheCol, CellColKind, &'static str] = [
        (HitPct, "%fc_hit", "fc_hit", Pct, "FC_IO_RQ_R_SEC / (FC_IO_RQ_R_SEC + FC_IO_RQ_R_MISS_SEC)"),
        (RPerS, "fc_r/s", "fc_r/s", Ops, "FC_IO_RQ_R_SEC"),
        (RMissPerS, "fc_rmiss/s", "fc_rmiss/s", Ops, "FC_IO_RQ_R_MISS_SEC"),
        (RSkipPerS, "fc_rskip/s", "fc_rskip/s", Ops, "FC_IO_RQ_R_SKIP_SEC"),
        (WPerS, "fc_w/s", "fc_w/s", Ops, "FC_IO_RQ_W_SEC"),
        (RMbPerS, "fc_rMB/s", "fc_rMB/s", MbPerS, "FC_IO_BY_R_SEC"),
        (WMbPerS, "fc_wMB/s", "fc_wMB/s", MbPerS, "FC_IO_BY_W_SEC"),
    ];
}

pub type FlashCacheFigures = Figures<FlashCacheCol, { FLASH_CACHE_COLS.len() }>;

/// Which total a cell disk counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Media {
    Disk,
    Flash,
    /// PMEM and anything else: in neither total.
    Other,
}

impl Media {
    pub fn of(name: &str, disk_type: Option<&CellDiskType>) -> Media {
        if name.starts_with("FD_") || disk_type == Some(&CellDiskType::FlashDisk) {
            Media::Flash
        } else if name.starts_with("CD_") || disk_type == Some(&CellDiskType::HardDisk) {
            Media::Disk
        } else {
            Media::Other
        }
    }
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn add(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        _ => finite(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// A latency averaged over disks, weighted by their requests.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct WeightedLatency {
    num: f64,
    den: f64,
    sum: f64,
    n: u32,
}

impl WeightedLatency {
    fn of(tm: Option<f64>, rq: Option<f64>) -> Self {
        let Some(tm) = tm else {
            return Self::default();
        };
        let rq = rq.unwrap_or(0.0);
        WeightedLatency {
            num: tm * rq,
            den: rq,
            sum: tm,
            n: 1,
        }
    }

    fn merge(self, o: Self) -> Self {
        WeightedLatency {
            num: self.num + o.num,
            den: self.den + o.den,
            sum: self.sum + o.sum,
            n: self.n.saturating_add(o.n),
        }
    }

    fn value(&self) -> Option<f64> {
        match self.n {
            0 => None,
            _ if self.den > 0.0 => finite(self.num / self.den),
            n => finite(self.sum / f64::from(n)),
        }
    }
}

/// Index of a (direction, size) pair: R_SM, R_LG, W_SM, W_LG.
fn slot(d: Direction, s: BlockSize) -> usize {
    let d = match d {
        Direction::Read => 0,
        Direction::Write => 2,
    };
    d + match s {
        BlockSize::Small => 0,
        BlockSize::Large => 1,
    }
}

/// Sums over disks from which a disk's or a group's figures follow.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct DiskAcc {
    rq: [Option<f64>; 4],
    mb: [Option<f64>; 4],
    lat: [WeightedLatency; 4],
}

impl DiskAcc {
    fn merge(&mut self, o: &DiskAcc) {
        for i in 0..4 {
            self.rq[i] = add(self.rq[i], o.rq[i]);
            self.mb[i] = add(self.mb[i], o.mb[i]);
            self.lat[i] = self.lat[i].merge(o.lat[i]);
        }
    }

    fn figures(&self) -> CellDiskFigures {
        let (rq, mb, lat) = (&self.rq, &self.mb, &self.lat);
        use CellDiskCol as C;
        let mut v = CellDiskFigures::default();
        v.set(C::RPerS, add(rq[0], rq[1]));
        v.set(C::WPerS, add(rq[2], rq[3]));
        v.set(C::RMbPerS, add(mb[0], mb[1]));
        v.set(C::WMbPerS, add(mb[2], mb[3]));
        v.set(C::RAwait, lat[0].merge(lat[1]).value());
        v.set(C::WAwait, lat[2].merge(lat[3]).value());
        let per_slot = [
            (C::RSmPerS, C::RSmMbPerS, C::RSmAwait),
            (C::RLgPerS, C::RLgMbPerS, C::RLgAwait),
            (C::WSmPerS, C::WSmMbPerS, C::WSmAwait),
            (C::WLgPerS, C::WLgMbPerS, C::WLgAwait),
        ];
        for (i, (r, m, a)) in per_slot.into_iter().enumerate() {
            v.set(r, rq[i]);
            v.set(m, mb[i]);
            v.set(a, lat[i].value());
        }
        v
    }

    fn read_iops(&self) -> Option<f64> {
        add(self.rq[0], self.rq[1])
    }

    fn write_iops(&self) -> Option<f64> {
        add(self.rq[2], self.rq[3])
    }
}

/// A value CellCLI printed, in strata's unit: `scale` gives the factor of
/// each unit strata knows. A zero needs no unit; any other value in a unit
/// strata does not know, or below zero, is unknown.
fn in_unit(m: &Metric, scale: &[(&str, f64)]) -> Option<f64> {
    if !m.value.is_finite() || m.value < 0.0 {
        return None;
    }
    if m.value == 0.0 {
        return Some(0.0);
    }
    let (_, factor) = scale.iter().find(|(u, _)| *u == m.unit)?;
    finite(m.value * factor)
}

const IOPS_UNITS: &[(&str, f64)] = &[("IO/sec", 1.0)];
const MBPS_UNITS: &[(&str, f64)] = &[
    ("MB/sec", 1.0),
    ("KB/sec", 1.0 / 1024.0),
    ("GB/sec", 1024.0),
];
const LATENCY_MS_UNITS: &[(&str, f64)] = &[("us/request", 0.001), ("ms/request", 1.0)];

/// The raw rates of one cell disk as the metrics give them.
#[derive(Debug, Clone, Copy, Default)]
struct DiskRaw {
    rq: [Option<f64>; 4],
    mb: [Option<f64>; 4],
    tm: [Option<f64>; 4],
}

impl DiskRaw {
    fn take(&mut self, m: &Metric) {
        let k = &m.kind;
        let (Some(d), Some(s), true) = (k.direction, k.size, k.qualifier.is_empty()) else {
            return;
        };
        let i = slot(d, s);
        use crate::layers::cells::cellcli::Basis as B;
        match (k.quantity, k.basis) {
            (Quantity::Requests, B::PerSecond) => self.rq[i] = in_unit(m, IOPS_UNITS),
            (Quantity::Bytes, B::PerSecond) => self.mb[i] = in_unit(m, MBPS_UNITS),
            (Quantity::Time, B::PerRequest) => self.tm[i] = in_unit(m, LATENCY_MS_UNITS),
            _ => {}
        }
    }

    fn acc(&self) -> DiskAcc {
        DiskAcc {
            rq: self.rq,
            mb: self.mb,
            lat: std::array::from_fn(|i| WeightedLatency::of(self.tm[i], self.rq[i])),
        }
    }
}

/// The flash cache's plain rates, summable over cells.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct FlashCacheAcc([Option<f64>; 6]);

impl FlashCacheAcc {
    fn take(&mut self, m: &Metric) {
        use crate::layers::cells::cellcli::Basis as B;
        let k = &m.kind;
        if k.basis != B::PerSecond || k.size.is_some() {
            return;
        }
        let i = match (k.quantity, k.direction, k.qualifier.as_str()) {
            (Quantity::Requests, Some(Direction::Read), "") => 0,
            (Quantity::Requests, Some(Direction::Read), "MISS") => 1,
            (Quantity::Requests, Some(Direction::Read), "SKIP") => 2,
            (Quantity::Requests, Some(Direction::Write), "") => 3,
            (Quantity::Bytes, Some(Direction::Read), "") => 4,
            (Quantity::Bytes, Some(Direction::Write), "") => 5,
            _ => return,
        };
        let units = if k.quantity == Quantity::Bytes {
            MBPS_UNITS
        } else {
            IOPS_UNITS
        };
        self.0[i] = in_unit(m, units);
    }

    fn merge(&mut self, o: &FlashCacheAcc) {
        for i in 0..6 {
            self.0[i] = add(self.0[i], o.0[i]);
        }
    }

    fn figures(&self) -> FlashCacheFigures {
        let [hit, miss, skip, w, rmb, wmb] = self.0;
        let hit_pct = match (hit, miss) {
            (Some(h), Some(m)) if h + m > 0.0 => finite(h / (h + m) * 100.0),
            _ => None,
        };
        FlashCacheFigures::new([hit_pct, hit, miss, skip, w, rmb, wmb])
    }
}

/// One cell disk: its names, its media and its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct CellDiskRow {
    pub cell: Option<String>,
    /// The cell disk: `CD_00_cel01`.
    pub name: String,
    /// The cell's OS device (`/dev/sda`), when `list celldisk` named it.
    pub device: Option<String>,
    pub media: Media,
    pub figures: CellDiskFigures,
    acc: DiskAcc,
}

/// Totals over the disks of one cell, or of several cells.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CellTotals {
    pub cells: usize,
    pub hard_disks: usize,
    pub flash_disks: usize,
    disk: DiskAcc,
    flash: DiskAcc,
    flash_cache: FlashCacheAcc,
}

impl CellTotals {
    /// The sum over cells (the all-cell line).
    pub fn sum<'a>(cells: impl IntoIterator<Item = &'a CellTotals>) -> CellTotals {
        let mut t = CellTotals::default();
        for c in cells {
            t.cells += c.cells;
            t.hard_disks += c.hard_disks;
            t.flash_disks += c.flash_disks;
            t.disk.merge(&c.disk);
            t.flash.merge(&c.flash);
            t.flash_cache.merge(&c.flash_cache);
        }
        t
    }

    /// The DISK or FLASH group's figures (nothing for `Media::Other`).
    pub fn group(&self, media: Media) -> CellDiskFigures {
        match media {
            Media::Disk => self.disk.figures(),
            Media::Flash => self.flash.figures(),
            Media::Other => CellDiskFigures::default(),
        }
    }

    pub fn flash_cache(&self) -> FlashCacheFigures {
        self.flash_cache.figures()
    }

    /// Reads served by flash, writes absorbed by flash, IOPS per hard disk,
    /// from the cell disks' small and large request rates.
    pub fn shares(&self) -> Shares {
        Shares::from_known_iops(
            self.flash.read_iops(),
            self.disk.read_iops(),
            self.flash.write_iops(),
            self.disk.write_iops(),
            self.hard_disks,
        )
    }
}

/// One cell's figures from one CellCLI report.
#[derive(Debug, Clone, PartialEq)]
pub struct CellSummary {
    /// dcli's cell name; `None` for the output of a single cell, whose
    /// name the caller knows.
    pub cell: Option<String>,
    /// `list celldisk`'s order, then disks only the metrics name.
    pub disks: Vec<CellDiskRow>,
    pub totals: CellTotals,
}

impl CellSummary {
    /// One summary per cell in the report, in order of first appearance.
    pub fn from_report(report: &CellcliReport) -> Vec<CellSummary> {
        CellSummary::from_parts(&report.celldisks.items, &report.metrics.items)
    }

    /// As [`CellSummary::from_report`], from the two listings (a pasted
    /// `list metriccurrent` alone gives no OS devices).
    pub fn from_parts(celldisks: &[CellDisk], metrics: &[Metric]) -> Vec<CellSummary> {
        struct Building<'a> {
            cell: Option<&'a str>,
            disks: Vec<(&'a str, Option<&'a CellDisk>, DiskRaw)>,
            flash_cache: FlashCacheAcc,
        }
        fn cell_of<'a, 'b>(
            cells: &'b mut Vec<Building<'a>>,
            cell: Option<&'a str>,
        ) -> &'b mut Building<'a> {
            let i = match cells.iter().position(|c| c.cell == cell) {
                Some(i) => i,
                None => {
                    cells.push(Building {
                        cell,
                        disks: Vec::new(),
                        flash_cache: FlashCacheAcc::default(),
                    });
                    cells.len() - 1
                }
            };
            &mut cells[i]
        }
        fn disk_of<'a, 'b>(
            b: &'b mut Building<'a>,
            name: &'a str,
        ) -> &'b mut (&'a str, Option<&'a CellDisk>, DiskRaw) {
            let i = match b.disks.iter().position(|d| d.0 == name) {
                Some(i) => i,
                None => {
                    b.disks.push((name, None, DiskRaw::default()));
                    b.disks.len() - 1
                }
            };
            &mut b.disks[i]
        }
        let mut cells: Vec<Building> = Vec::new();
        for cd in celldisks {
            let b = cell_of(&mut cells, cd.cell.as_deref());
            disk_of(b, &cd.name).1 = Some(cd);
        }
        for m in metrics {
            let b = cell_of(&mut cells, m.cell.as_deref());
            match m.kind.prefix {
                MetricPrefix::CellDisk => disk_of(b, &m.object).2.take(m),
                MetricPrefix::FlashCache => b.flash_cache.take(m),
                _ => {}
            }
        }
        cells
            .into_iter()
            .map(|b| {
                let mut totals = CellTotals {
                    cells: 1,
                    flash_cache: b.flash_cache,
                    ..CellTotals::default()
                };
                let disks = b
                    .disks
                    .iter()
                    .map(|(name, cd, raw)| {
                        let media = Media::of(name, cd.map(|c| &c.disk_type));
                        let acc = raw.acc();
                        match media {
                            Media::Disk => {
                                totals.hard_disks += 1;
                                totals.disk.merge(&acc);
                            }
                            Media::Flash => {
                                totals.flash_disks += 1;
                                totals.flash.merge(&acc);
                            }
                            Media::Other => {}
                        }
                        CellDiskRow {
                            cell: b.cell.map(str::to_string),
                            name: name.to_string(),
                            device: cd.map(|c| c.device.clone()),
                            media,
                            figures: acc.figures(),
                            acc,
                        }
                    })
                    .collect();
                CellSummary {
                    cell: b.cell.map(str::to_string),
                    disks,
                    totals,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::cells::cellcli::parse_metriccurrent;

    #[test]
    fn tables_are_in_enum_order() {
        for (i, d) in CELL_DISK_COLS.iter().enumerate() {
            assert_eq!(d.col as usize, i);
        }
        for (i, d) in FLASH_CACHE_COLS.iter().enumerate() {
            assert_eq!(d.col as usize, i);
        }
    }

    #[test]
    fn group_latency_is_weighted_by_requests() {
        // 10 reads at 2 ms and 30 at 6 ms: (20 + 180) / 40 = 5 ms, not 4
        let text = "CD_IO_RQ_R_SM_SEC CD_00_c 10 IO/sec\n\
                    CD_IO_TM_R_SM_RQ CD_00_c 2,000 us/request\n\
                    CD_IO_RQ_R_SM_SEC CD_01_c 30 IO/sec\n\
                    CD_IO_TM_R_SM_RQ CD_01_c 6,000 us/request\n";
        let p = parse_metriccurrent(text, "t");
        let s = CellSummary::from_parts(&[], &p.items);
        let g = s[0].totals.group(Media::Disk);
        assert_eq!(g.get(CellDiskCol::RSmAwait), Some(5.0));
        assert_eq!(s[0].disks[1].figures.get(CellDiskCol::RSmAwait), Some(6.0));
        // idle disks: the plain mean of what they report
        let idle = "CD_IO_RQ_R_SM_SEC CD_00_c 0.0 IO/sec\n\
                    CD_IO_TM_R_SM_RQ CD_00_c 0.0 us/request\n\
                    CD_IO_TM_R_SM_RQ CD_01_c 300.0 us/request\n";
        let s = CellSummary::from_parts(&[], &parse_metriccurrent(idle, "t").items);
        assert_eq!(
            s[0].totals.group(Media::Disk).get(CellDiskCol::RSmAwait),
            Some(0.15)
        );
    }

    #[test]
    fn unknown_units_and_negatives_are_unknown() {
        let text = "CD_IO_RQ_R_SM_SEC CD_00_c 10 IO/min\n\
                    CD_IO_RQ_R_LG_SEC CD_00_c -3 IO/sec\n\
                    CD_IO_TM_R_SM_RQ CD_00_c 5 fortnights\n\
                    CD_IO_BY_R_SM_SEC CD_00_c 512 KB/sec\n";
        let s = CellSummary::from_parts(&[], &parse_metriccurrent(text, "t").items);
        let f = s[0].disks[0].figures;
        assert_eq!(f.get(CellDiskCol::RSmPerS), None);
        assert_eq!(f.get(CellDiskCol::RLgPerS), None);
        assert_eq!(f.get(CellDiskCol::RPerS), None);
        assert_eq!(f.get(CellDiskCol::RSmAwait), None);
        assert_eq!(f.get(CellDiskCol::RSmMbPerS), Some(0.5));
    }
}

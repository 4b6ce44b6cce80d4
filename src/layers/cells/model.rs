//! Storage cells' disks as Exadata users group them: DISK (hard disks) and
//! FLASH (every disk that is not rotational), per cell from its own
//! /proc/diskstats over its own clock, and summed over all cells.
//!
//! A cell's group figures come from the sum of its disks' counter
//! differences over one interval of the cell's clock, with iostat's
//! formulas (`DiskDelta::rates`), as the host's totals do. Cells sample
//! at their own moments, so the all-cell line adds rates, not counters:
//! r/s, w/s and MB/s add up; the awaits are weighted by each cell's
//! request rate (Σ ticks / Σ requests, which is what one iostat over all
//! those disks would print); %util is the mean over the disks, as
//! `iostat -g` prints a group's.

use super::cell_metrics::Media;
use super::cell_shares::Shares;
use crate::core::total::Delta;
use crate::layers::col::{ColKind, cols};
use crate::layers::disks::model::{DiskCol, DiskDelta};
use crate::layers::disks::source::{DevClass, DeviceInfo};
use crate::layers::disks::tick::{DiskRow, DiskTick};

/// The group a cell's device counts in: whole physical disks only (no
/// partition, no dm or md on top), hard disks as DISK, SSD and NVMe as
/// FLASH.
pub fn media_of(row: &DiskRow) -> Option<Media> {
    media_of_device(row.info.as_deref()?)
}

/// [`media_of`] a device of a cell's catalogue.
pub fn media_of_device(info: &DeviceInfo) -> Option<Media> {
    if !info.counts_in_totals() {
        return None;
    }
    match info.class {
        DevClass::Hdd => Some(Media::Disk),
        DevClass::Ssd | DevClass::Nvme => Some(Media::Flash),
        _ => None,
    }
}

/// A figure of a DISK or FLASH group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupCol {
    RPerS,
    WPerS,
    RMbPerS,
    WMbPerS,
    /// Average request size, reads and writes together, in kB.
    AvgRqKb,
    RAwait,
    WAwait,
    Util,
}

cols! {
    /// Throughput is already in MB/s: never scaled by the kB/MB key.
    pub const GROUP_COLS: [GroupCol, ColKind] = [
        (RPerS, "r/s", "r_s", Ops),
        (WPerS, "w/s", "w_s", Ops),
        (RMbPerS, "rMB/s", "rmb_s", Throughput),
        (WMbPerS, "wMB/s", "wmb_s", Throughput),
        (AvgRqKb, "rq-sz kB", "avg_rq_kb", ReqSize),
        (RAwait, "r_await", "r_await_ms", Await),
        (WAwait, "w_await", "w_await_ms", Await),
        (Util, "%util", "util_pct", Util),
    ];
}

/// The figures of a group of disks over one interval (one cell), or the
/// sum of such groups (several cells).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GroupFigures {
    pub devices: usize,
    pub r_per_s: f64,
    pub w_per_s: f64,
    pub rkb_per_s: f64,
    pub wkb_per_s: f64,
    /// Milliseconds reads and writes spent per second: Σ await × rate, so
    /// that awaits average over cells weighted by their requests.
    pub rd_ms_per_s: f64,
    pub wr_ms_per_s: f64,
    /// Σ %util over the devices.
    pub util_sum: f64,
}

impl GroupFigures {
    /// `sum` is the devices' differences added up over one interval.
    fn from_delta(sum: &DiskDelta, devices: usize) -> GroupFigures {
        let rates = sum.rates();
        let per_s = |c: DiskCol| rates.get(c).unwrap_or(0.0);
        let secs = sum.itv_cs as f64 / 100.0;
        GroupFigures {
            devices,
            r_per_s: per_s(DiskCol::RPerS),
            w_per_s: per_s(DiskCol::WPerS),
            rkb_per_s: per_s(DiskCol::RkBPerS),
            wkb_per_s: per_s(DiskCol::WkBPerS),
            rd_ms_per_s: sum.rd_ticks as f64 / secs,
            wr_ms_per_s: sum.wr_ticks as f64 / secs,
            util_sum: per_s(DiskCol::Util),
        }
    }

    pub fn add(&mut self, o: &GroupFigures) {
        self.devices += o.devices;
        self.r_per_s += o.r_per_s;
        self.w_per_s += o.w_per_s;
        self.rkb_per_s += o.rkb_per_s;
        self.wkb_per_s += o.wkb_per_s;
        self.rd_ms_per_s += o.rd_ms_per_s;
        self.wr_ms_per_s += o.wr_ms_per_s;
        self.util_sum += o.util_sum;
    }

    /// `None` for every figure of a group of no device (a cell without
    /// flash has no FLASH figures, rather than zeros that read as idle
    /// flash). An average over no request is 0.00, iostat's rule, as the
    /// host's r_await and the cluster's say of an idle interval: the
    /// storage line said "–" beside the host's 0.00.
    pub fn get(&self, c: GroupCol) -> Option<f64> {
        if self.devices == 0 {
            return None;
        }
        let ratio = |a: f64, b: f64| Some(if b > 0.0 { a / b } else { 0.0 });
        let v = match c {
            GroupCol::RPerS => Some(self.r_per_s),
            GroupCol::WPerS => Some(self.w_per_s),
            GroupCol::RMbPerS => Some(self.rkb_per_s / 1024.0),
            GroupCol::WMbPerS => Some(self.wkb_per_s / 1024.0),
            GroupCol::AvgRqKb => {
                ratio(self.rkb_per_s + self.wkb_per_s, self.r_per_s + self.w_per_s)
            }
            GroupCol::RAwait => ratio(self.rd_ms_per_s, self.r_per_s),
            GroupCol::WAwait => ratio(self.wr_ms_per_s, self.w_per_s),
            GroupCol::Util => ratio(self.util_sum, self.devices as f64),
        };
        v.filter(|x| x.is_finite() && *x >= 0.0)
    }
}

/// One cell's DISK and FLASH groups over its latest interval. A group is
/// `None` unless every one of its disks in the sample has figures over
/// that interval (a sum over mixed intervals would be no rate at all); a
/// disk whose line is missing is left out and the device count says so,
/// as in the host's totals; a cell without flash has a FLASH group of no
/// device.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CellGroups {
    pub disk: Option<GroupFigures>,
    pub flash: Option<GroupFigures>,
}

impl CellGroups {
    pub fn of(tick: &DiskTick) -> CellGroups {
        let Some(itv) = tick.itv_cs else {
            return CellGroups::default();
        };
        // Not model::total::complete_sum: a cell without flash has a FLASH
        // group of 0 devices, whose figures are zeros, not unknown.
        let group = |media: Media| -> Option<GroupFigures> {
            let mut sum = DiskDelta {
                itv_cs: itv,
                ..DiskDelta::default()
            };
            let mut devices = 0;
            for r in tick.rows.iter().filter(|r| media_of(r) == Some(media)) {
                let d = r.delta.as_ref().filter(|d| d.itv_cs == itv)?;
                sum.accumulate(d);
                devices += 1;
            }
            Some(GroupFigures::from_delta(&sum, devices))
        };
        CellGroups {
            disk: group(Media::Disk),
            flash: group(Media::Flash),
        }
    }

    pub fn get(&self, media: Media) -> Option<&GroupFigures> {
        match media {
            Media::Disk => self.disk.as_ref(),
            Media::Flash => self.flash.as_ref(),
            Media::Other => None,
        }
    }

    /// Reads served by flash, writes absorbed by flash, IOPS per hard disk.
    pub fn shares(&self) -> Shares {
        let (Some(d), Some(f)) = (&self.disk, &self.flash) else {
            return Shares::default();
        };
        Shares::from_iops(f.r_per_s, d.r_per_s, f.w_per_s, d.w_per_s, d.devices)
    }
}

/// The all-cell line: the sum of the groups of the cells counted.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AllCells {
    pub groups: CellGroups,
    /// Cells whose groups are in the sum, and cells that are not (no
    /// figures yet, stale, or a group incomplete this interval).
    pub counted: usize,
    pub missing: usize,
}

impl AllCells {
    /// `cells` yields each cell's groups, `None` for a cell that has no
    /// current figures. A cell counts only with both groups known.
    pub fn sum<'a>(cells: impl IntoIterator<Item = Option<&'a CellGroups>>) -> AllCells {
        let mut all = AllCells::default();
        let mut disk = GroupFigures::default();
        let mut flash = GroupFigures::default();
        for c in cells {
            match c.and_then(|g| Some((g.disk?, g.flash?))) {
                Some((d, f)) => {
                    disk.add(&d);
                    flash.add(&f);
                    all.counted += 1;
                }
                None => all.missing += 1,
            }
        }
        if all.counted > 0 {
            all.groups = CellGroups {
                disk: Some(disk),
                flash: Some(flash),
            };
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::disks::diskstats::DiskCounters;
    use crate::layers::disks::source::{Catalogue, DeviceInfo, DiskSample};
    use std::sync::Arc;

    fn info(name: &str, class: DevClass, parent: Option<&str>) -> (String, Arc<DeviceInfo>) {
        let i = DeviceInfo::plain(name, class, parent, None);
        (name.into(), Arc::new(i))
    }

    type Load = (&'static str, u64, u64, u64, u64, u32, u32, u32);

    /// A cell of two hard disks, one with a partition, and an NVMe flash
    /// disk; `k` seconds after boot, each device's counters grown by its
    /// own per-second figures.
    fn sample(k: u64, skip: Option<&str>) -> DiskSample {
        let cat: Catalogue = [
            info("sda", DevClass::Hdd, None),
            info("sda1", DevClass::Hdd, Some("sda")),
            info("sdb", DevClass::Hdd, None),
            info("nvme0n1", DevClass::Nvme, None),
        ]
        .into_iter()
        .collect();
        // (name, r/s, w/s, sectors per read, per write, ms per read, per
        // write, busy ms per s)
        let per_s: [Load; 4] = [
            ("sda", 100, 20, 16, 64, 5, 2, 600),
            ("sda1", 100, 20, 16, 64, 5, 2, 600),
            ("sdb", 50, 80, 16, 16, 10, 1, 400),
            ("nvme0n1", 4000, 1000, 16, 16, 0, 0, 900),
        ];
        let devices = per_s
            .iter()
            .filter(|d| Some(d.0) != skip)
            .map(|&(name, r, w, rs, ws, rms, wms, busy)| DiskCounters {
                name: name.into(),
                rd_ios: r * k,
                rd_sectors: r * rs * k,
                rd_ticks: rms * r as u32 * k as u32,
                wr_ios: w * k,
                wr_sectors: w * ws * k,
                wr_ticks: wms * w as u32 * k as u32,
                tot_ticks: busy * k as u32,
                ..Default::default()
            })
            .collect();
        DiskSample {
            uptime_cs: 100_000 + k * 100,
            wall_ms: 0,
            devices,
            rejected: Vec::new(),
            catalogue: Arc::new(cat),
        }
    }

    fn groups() -> CellGroups {
        let mut b = crate::layers::disks::tick::Baseline::default();
        b.tick(&sample(10, None));
        CellGroups::of(&b.tick(&sample(12, None)))
    }

    #[test]
    fn disk_and_flash_groups_by_iostat_formulas() {
        let g = groups();
        let d = g.disk.expect("DISK");
        // sda + sdb, the partition not counted again: 150 r/s, 100 w/s
        assert_eq!(d.devices, 2);
        assert_eq!(d.get(GroupCol::RPerS), Some(150.0));
        assert_eq!(d.get(GroupCol::WPerS), Some(100.0));
        // (100×16 + 50×16) sectors/s / 2 = 1200 kB/s = 1.171875 MB/s
        assert_eq!(d.get(GroupCol::RMbPerS), Some(1200.0 / 1024.0));
        // reads: (100×5 + 50×10) ms / 150 = 6.667 ms; writes: (20×2 +
        // 80×1) / 100 = 1.2 ms
        assert_eq!(d.get(GroupCol::RAwait), Some(1000.0 / 150.0));
        assert_eq!(d.get(GroupCol::WAwait), Some(1.2));
        // (1200 + (20×64 + 80×16)/2 = 1280) kB/s over 250 req/s = 9.92 kB
        assert_eq!(d.get(GroupCol::AvgRqKb), Some(2480.0 / 250.0));
        // %util: (60 + 40) / 2 disks
        assert_eq!(d.get(GroupCol::Util), Some(50.0));
        let f = g.flash.expect("FLASH");
        assert_eq!((f.devices, f.get(GroupCol::RPerS)), (1, Some(4000.0)));
        assert_eq!(f.get(GroupCol::RAwait), Some(0.0));
        // 4000 / 4150 reads from flash = 96.39 %; 1000 / 1100 writes =
        // 90.91 %; (150 + 100) / 2 hard disks = 125 IOPS per disk
        let s = g.shares();
        assert_eq!(s.read_pct_from_flash, Some(4000.0 / 4150.0 * 100.0));
        assert_eq!(s.write_pct_to_flash, Some(1000.0 / 1100.0 * 100.0));
        assert_eq!(s.iops_per_disk, Some(125.0));
    }

    #[test]
    fn a_disk_diffed_over_another_interval_makes_its_group_unknown() {
        // sdb's line is missing at 12 s: as in the host's totals, the group
        // is the disks that are there, and says how many
        let mut b = crate::layers::disks::tick::Baseline::default();
        b.tick(&sample(10, None));
        let g = CellGroups::of(&b.tick(&sample(12, Some("sdb"))));
        assert_eq!(g.disk.map(|d| d.devices), Some(1));
        // back at 14 s, sdb's figures cover 4 s where the cell's interval
        // is 2 s: adding them would be wrong, so DISK is unknown
        let g = CellGroups::of(&b.tick(&sample(14, None)));
        assert!(g.disk.is_none(), "{g:?}");
        assert!(g.flash.is_some());
        assert_eq!(g.shares(), Shares::default());
    }

    #[test]
    fn all_cells_add_rates_weigh_awaits_and_average_util() {
        let a = groups();
        // a second cell, idle but for 10 reads/s of 20 ms on its disks
        let idle = CellGroups {
            disk: Some(GroupFigures {
                devices: 2,
                r_per_s: 10.0,
                rkb_per_s: 80.0,
                rd_ms_per_s: 200.0,
                ..GroupFigures::default()
            }),
            flash: Some(GroupFigures {
                devices: 1,
                ..GroupFigures::default()
            }),
        };
        let all = AllCells::sum([Some(&a), Some(&idle), None]);
        assert_eq!((all.counted, all.missing), (2, 1));
        let d = all.groups.disk.expect("DISK");
        assert_eq!(d.get(GroupCol::RPerS), Some(160.0));
        // (1000 + 200) ms over 160 reads
        assert_eq!(d.get(GroupCol::RAwait), Some(7.5));
        // (60 + 40 + 0 + 0) over 4 disks
        assert_eq!(d.get(GroupCol::Util), Some(25.0));
        assert_eq!(all.groups.shares().iops_per_disk, Some(260.0 / 4.0));
        // nothing known: no line at all, not zeros
        let none = AllCells::sum([None, None]);
        assert!(none.groups.disk.is_none() && none.missing == 2);
    }

    #[test]
    fn idle_averages_are_iostats_zero_and_a_group_of_no_device_unknown() {
        // a group of no device (a cell without flash): no figure at all
        let none = GroupFigures::default();
        assert!(GROUP_COLS.iter().all(|c| none.get(c.col).is_none()));
        // two idle disks: an average over no I/O is 0.00, as iostat and
        // the host's totals print it (the storage line said "–")
        let g = GroupFigures {
            devices: 2,
            ..GroupFigures::default()
        };
        assert_eq!(g.get(GroupCol::RPerS), Some(0.0));
        assert_eq!(g.get(GroupCol::Util), Some(0.0));
        for c in [GroupCol::AvgRqKb, GroupCol::RAwait, GroupCol::WAwait] {
            assert_eq!(g.get(c), Some(0.0), "{c:?}");
        }
    }
}

//! All devices over one interval: per-device figures, the totals of the
//! host's disks and the busiest device.

use super::diskstats::DiskCounters;
use super::model::{DiskCol, DiskDelta, DiskRates, fell};
use super::source::{DevClass, DeviceInfo, DiskSample};
use crate::core::last_seen::LastSeen;
use crate::core::total::complete_sum;
use crate::layers::tick::{Row, Tick};

/// One device over one interval. Its delta is `None` before the source's
/// second sample, or when the counters moved in a way no interval of I/O
/// explains; a device new since the first sample counts from zero (see
/// `layers::disks::model`).
pub type DiskRow = Row<DeviceInfo, DiskDelta, DiskRates>;

impl DiskRow {
    pub fn class(&self) -> DevClass {
        self.info.as_ref().map_or(DevClass::Unknown, |i| i.class)
    }

    pub fn is_partition(&self) -> bool {
        self.info.as_ref().is_some_and(|i| i.is_partition())
    }

    pub fn display_name(&self) -> &str {
        self.info.as_ref().map_or(&self.name, |i| i.display_name())
    }

    /// Whether this device's I/O reaches storage without being counted
    /// again on another device: a whole physical disk, which /sys must have
    /// confirmed (without /sys a partition could pass for a disk).
    pub fn counts_in_totals(&self) -> bool {
        self.info.as_ref().is_some_and(|i| i.counts_in_totals())
    }

    /// Whether a listing shows this device: partitions only when asked, and
    /// loop, ram and zram devices and devices never used since boot only
    /// when all devices are asked for (iostat hides the never used too).
    pub fn shown(&self, partitions: bool, all_devices: bool) -> bool {
        (partitions || !self.is_partition())
            && (all_devices || (!self.class().skipped_by_default() && !self.never_used))
    }
}

/// The figures of one interval of the disk source; the total is over the
/// disks that count in totals, and the extra is the busiest device.
pub type DiskTick = Tick<DiskRow, DiskRates, Busiest>;

/// The device with the highest %util among the whole devices where %util
/// means something (not NVMe, dm or md); ties go to the first name.
pub type Busiest = Option<(String, f64)>;

/// The last counters seen of every device, with the source clock they were
/// read at. A device that misses a sample (a rejected line, a path that
/// flapped) is diffed against its own last reading over its own interval,
/// rather than counted from zero as if all its I/O since boot had happened
/// in one interval.
#[derive(Debug, Default)]
pub struct Baseline {
    last: LastSeen<DiskCounters>,
}

impl Baseline {
    /// One that forgets a device gone for `forget_cs` of the source's
    /// clock (the app's history window).
    pub fn forgetting_after(forget_cs: u64) -> Self {
        let last = LastSeen::forgetting_after(forget_cs);
        Baseline { last }
    }

    /// How many devices' last counters are kept.
    pub fn names_held(&self) -> usize {
        self.last.len()
    }

    /// Figures of the interval that ends with `cur`. The first sample gives
    /// none: the first report covers the first interval, never the time
    /// since boot. A clock that went back (a reboot) starts a new baseline.
    pub fn tick(&mut self, cur: &DiskSample) -> DiskTick {
        self.tick_into(cur, Vec::new())
    }

    /// As [`tick`](Self::tick), its rows in `rows` (cleared first): the
    /// previous tick's, whose memory is then reused. A fresh vector of
    /// 100k rows is 50 MB of pages to fault in every interval.
    pub fn tick_into(&mut self, cur: &DiskSample, mut rows: Vec<DiskRow>) -> DiskTick {
        let itv_cs = self.last.interval(cur.uptime_cs);
        rows.clear();
        rows.reserve(cur.devices.len());
        for dev in &cur.devices {
            let last = itv_cs.and(self.last.get(&dev.name, cur.uptime_cs));
            let delta = itv_cs.and_then(|itv| match last {
                Some((prev, since)) => DiskDelta::between(Some(prev), dev, since),
                // new since strata started: all its I/O happened since it
                // appeared, within this interval (iostat does the same)
                None => DiskDelta::between(None, dev, itv),
            });
            // After a reboot every count starts again: a new baseline, not a reset.
            let reset = last.is_some_and(|(prev, _)| fell(prev, dev));
            rows.push(Row {
                reset,
                name: dev.name.clone(),
                never_used: dev.never_used(),
                info: cur.catalogue.get(&dev.name).cloned(),
                rates: delta.as_ref().map(DiskDelta::device_rates),
                delta,
                extra: (),
            });
        }
        self.last.record(
            cur.uptime_cs,
            cur.devices.iter().map(|d| (d.name.clone(), d.clone())),
        );
        DiskTick::from_rows(cur.wall_ms, itv_cs, rows)
    }
}

impl DiskTick {
    fn from_rows(wall_ms: i64, itv_cs: Option<u64>, rows: Vec<DiskRow>) -> DiskTick {
        let sum = complete_sum(
            itv_cs,
            rows.iter()
                .filter(|r| r.counts_in_totals())
                .map(|r| r.delta.as_ref()),
        );
        let busiest = rows
            .iter()
            .filter(|r| r.shown(false, false) && r.class().util_meaningful())
            .filter_map(|r| Some((r, r.rates?.get(DiskCol::Util)?)))
            .min_by(|(a, ua), (b, ub)| ub.total_cmp(ua).then_with(|| a.name.cmp(&b.name)))
            .map(|(r, u)| (r.display_name().to_string(), u));
        Tick {
            wall_ms,
            itv_cs,
            total: sum.map(|s| s.rates()),
            extra: busiest,
            rows,
        }
    }

    /// The device with the highest %util, and that %util.
    pub fn busiest(&self) -> Option<&(String, f64)> {
        self.extra.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::disks::source::Catalogue;
    use std::sync::Arc;

    fn info(name: &str, class: DevClass) -> (String, Arc<DeviceInfo>) {
        (
            name.into(),
            Arc::new(DeviceInfo::plain(name, class, None, None)),
        )
    }

    fn sample(uptime_cs: u64, devs: &[(&str, u64, u32)]) -> DiskSample {
        let cat: Catalogue = [
            info("sda", DevClass::Hdd),
            info("sdb", DevClass::Hdd),
            info("nvme0n1", DevClass::Nvme),
        ]
        .into_iter()
        .collect();
        DiskSample {
            uptime_cs,
            wall_ms: uptime_cs as i64 * 10,
            devices: devs
                .iter()
                .map(|&(n, ios, busy)| DiskCounters {
                    name: n.into(),
                    rd_ios: ios,
                    rd_sectors: ios * 8,
                    tot_ticks: busy,
                    ..Default::default()
                })
                .collect(),
            rejected: Vec::new(),
            catalogue: Arc::new(cat),
        }
    }

    fn r_per_s(t: &DiskTick, name: &str) -> Option<f64> {
        t.rows
            .iter()
            .find(|r| r.name == name)?
            .rates?
            .get(DiskCol::RPerS)
    }

    #[test]
    fn first_sample_gives_nothing_then_figures() {
        let mut b = Baseline::default();
        let t = b.tick(&sample(1000, &[("sda", 1_000_000, 0)]));
        assert!(t.itv_cs.is_none() && t.total.is_none() && r_per_s(&t, "sda").is_none());
        let t = b.tick(&sample(1100, &[("sda", 1_000_100, 0)]));
        assert_eq!(r_per_s(&t, "sda"), Some(100.0));
    }

    #[test]
    fn a_device_that_missed_a_sample_is_diffed_over_its_own_interval() {
        let mut b = Baseline::default();
        b.tick(&sample(1000, &[("sda", 1_000_000, 0), ("sdb", 5, 0)]));
        // sda's line was rejected in this sample
        let t = b.tick(&sample(1100, &[("sdb", 10, 0)]));
        assert!(
            t.total.is_some(),
            "sda is not in the sample: the total is sdb's"
        );
        let t = b.tick(&sample(1200, &[("sda", 1_000_100, 0), ("sdb", 15, 0)]));
        // 100 reads over 2 s, not 1,000,100 reads in one second
        assert_eq!(r_per_s(&t, "sda"), Some(50.0));
        assert!(
            t.total.is_none(),
            "sda's figure covers 2 s: the 1 s total would be wrong"
        );
        let t = b.tick(&sample(1300, &[("sda", 1_000_200, 0), ("sdb", 20, 0)]));
        assert_eq!(t.total.and_then(|r| r.get(DiskCol::RPerS)), Some(105.0));
    }

    #[test]
    fn a_device_new_since_start_counts_from_zero() {
        let mut b = Baseline::default();
        b.tick(&sample(1000, &[("sda", 10, 0)]));
        let t = b.tick(&sample(1100, &[("sda", 20, 0), ("sdb", 50, 0)]));
        assert_eq!(r_per_s(&t, "sdb"), Some(50.0));
    }

    #[test]
    fn reboot_and_repeated_readings() {
        let mut b = Baseline::default();
        b.tick(&sample(1000, &[("sda", 10, 0)]));
        let same = b.tick(&sample(1000, &[("sda", 10, 0)]));
        assert!(same.itv_cs.is_none());
        let t = b.tick(&sample(1100, &[("sda", 20, 0)]));
        assert_eq!(
            r_per_s(&t, "sda"),
            Some(10.0),
            "the repeat did not move the baseline"
        );
        let rebooted = b.tick(&sample(50, &[("sda", 3, 0)]));
        assert!(rebooted.itv_cs.is_none() && r_per_s(&rebooted, "sda").is_none());
        let t = b.tick(&sample(150, &[("sda", 8, 0)]));
        assert_eq!(r_per_s(&t, "sda"), Some(5.0));
    }

    #[test]
    fn busiest_is_where_util_means_something() {
        let mut b = Baseline::default();
        b.tick(&sample(
            1000,
            &[("sda", 1, 0), ("sdb", 1, 0), ("nvme0n1", 1, 0)],
        ));
        let t = b.tick(&sample(
            1100,
            &[("sda", 2, 300), ("sdb", 2, 300), ("nvme0n1", 2, 1000)],
        ));
        assert_eq!(
            t.busiest(),
            Some(&("sda".to_string(), 30.0)),
            "NVMe is skipped, ties go to the first name"
        );
    }

    #[test]
    fn without_sys_nothing_counts_in_totals() {
        let mut s = sample(1000, &[("sda", 1, 0)]);
        s.catalogue = Arc::new(Catalogue::new());
        let mut b = Baseline::default();
        b.tick(&s);
        s.uptime_cs = 1100;
        let t = b.tick(&s);
        assert!(
            t.total.is_none(),
            "without /sys a partition could pass for a disk"
        );
    }
}

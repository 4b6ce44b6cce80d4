//! All devices over one interval: per-device figures, the totals of the
//! host's disks and the busiest device.

use super::disk::{DiskCol, DiskDelta, DiskRates};
use crate::source::disks::{DevClass, DeviceInfo, DiskSample};
use std::collections::HashMap;
use std::sync::Arc;

/// One device over one interval.
#[derive(Debug, Clone)]
pub struct DiskRow {
    pub name: String,
    /// No I/O completed since boot; iostat hides such devices.
    pub never_used: bool,
    pub info: Option<Arc<DeviceInfo>>,
    /// `None` before the source's second sample, or when the counters moved
    /// in a way no interval of I/O explains (see `model::disk`).
    pub delta: Option<DiskDelta>,
    pub rates: Option<DiskRates>,
}

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
    /// again on another device: a whole disk at the bottom of the stack.
    pub fn counts_in_totals(&self) -> bool {
        let Some(info) = &self.info else {
            return false;
        };
        !info.is_partition()
            && !info.class.skipped_by_default()
            && !matches!(info.class, DevClass::Dm | DevClass::Md)
            && info.slaves.is_empty()
    }
}

/// The figures of one interval of the disk source.
#[derive(Debug, Clone, Default)]
pub struct DiskTick {
    /// Wall clock of the later sample, ms since the Unix epoch.
    pub wall_ms: i64,
    /// The interval of the source's clock; `None` when uptime went back
    /// (the host rebooted) and every figure is unknown.
    pub itv_cs: Option<u64>,
    pub rows: Vec<DiskRow>,
    /// The sum over the disks that count in totals.
    pub total: Option<DiskRates>,
    /// The device with the highest %util, among whole devices shown by default.
    pub busiest: Option<(String, f64)>,
}

impl DiskTick {
    /// Figures between two consecutive samples of the same source. With no
    /// previous sample every figure is unknown: the first report covers the
    /// first interval, never the time since boot.
    pub fn between(prev: Option<&DiskSample>, cur: &DiskSample) -> DiskTick {
        let itv_cs = prev
            .and_then(|p| cur.uptime_cs.checked_sub(p.uptime_cs))
            .filter(|&i| i > 0);
        let prev_by_name: HashMap<&str, _> = prev
            .map(|p| p.devices.iter().map(|d| (d.name.as_str(), d)).collect())
            .unwrap_or_default();
        let mut rows = Vec::with_capacity(cur.devices.len());
        for dev in &cur.devices {
            // A device new since the previous sample counts from zero, as in
            // iostat; with no previous sample at all nothing is known yet.
            let delta = itv_cs.and_then(|itv| {
                DiskDelta::between(prev_by_name.get(dev.name.as_str()).copied(), dev, itv)
            });
            rows.push(DiskRow {
                name: dev.name.clone(),
                never_used: dev.never_used(),
                info: cur.catalogue.get(&dev.name).cloned(),
                rates: delta.as_ref().map(DiskDelta::rates),
                delta,
            });
        }
        let mut sum: Option<DiskDelta> = None;
        for d in rows
            .iter()
            .filter(|r| r.counts_in_totals())
            .filter_map(|r| r.delta.as_ref())
        {
            match &mut sum {
                Some(s) => s.accumulate(d),
                None => sum = Some(*d),
            }
        }
        let busiest = rows
            .iter()
            .filter(|r| !r.is_partition() && !r.class().skipped_by_default())
            .filter_map(|r| Some((r.display_name().to_string(), r.rates?.get(DiskCol::Util)?)))
            .fold(None, |best: Option<(String, f64)>, (n, u)| match best {
                Some((_, b)) if b >= u => best,
                _ => Some((n, u)),
            });
        DiskTick {
            wall_ms: cur.wall_ms,
            itv_cs,
            total: sum.map(|s| s.rates()),
            busiest,
            rows,
        }
    }
}

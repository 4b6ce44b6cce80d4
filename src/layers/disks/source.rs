//! The host's block devices: /proc/diskstats read together with
//! /proc/uptime, and what /sys/block says about each device.

use super::diskstats::{DiskCounters, parse_diskstats};
use crate::core::error::ParseError;
use crate::core::error::SourceError;
use crate::core::rootfs::RootFs;
use crate::core::uptime::parse_uptime_cs;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// What kind of device a name is, as far as /sys tells.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum DevClass {
    Hdd,
    Ssd,
    Nvme,
    /// device-mapper: multipath, LVM, crypt.
    Dm,
    /// Linux software RAID.
    Md,
    Loop,
    Ram,
    Zram,
    /// Any other device without a backing `device` link (nbd, rbd, ...).
    Virtual,
    /// /sys could not be read.
    Unknown,
}

impl DevClass {
    pub fn label(self) -> &'static str {
        match self {
            DevClass::Hdd => "HDD",
            DevClass::Ssd => "SSD",
            DevClass::Nvme => "NVMe",
            DevClass::Dm => "dm",
            DevClass::Md => "md",
            DevClass::Loop => "loop",
            DevClass::Ram => "ram",
            DevClass::Zram => "zram",
            DevClass::Virtual => "virt",
            DevClass::Unknown => "?",
        }
    }

    /// iostat's man page: %util means little for devices that serve
    /// requests in parallel (NVMe, RAID, device-mapper).
    pub fn util_meaningful(self) -> bool {
        matches!(self, DevClass::Hdd | DevClass::Ssd | DevClass::Unknown)
    }

    /// Devices a database host does not want to see, hidden until asked
    /// for (iostat shows them once they have done I/O).
    pub fn skipped_by_default(self) -> bool {
        matches!(self, DevClass::Loop | DevClass::Ram | DevClass::Zram)
    }
}

/// What /sys says about one device; read again when the set of devices
/// changes, and once a minute.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeviceInfo {
    pub name: String,
    pub class: DevClass,
    /// The whole disk this partition belongs to.
    pub parent: Option<String>,
    /// /sys/block/dm-N/dm/name: the /dev/mapper name.
    pub mapper_name: Option<String>,
    /// Devices under a dm or md device (/sys/block/X/slaves).
    pub slaves: Vec<String>,
    pub partitions: Vec<String>,
    pub size_bytes: Option<u64>,
    pub model: Option<String>,
}

impl DeviceInfo {
    /// Whether the device's I/O reaches storage without being counted
    /// again in another device's: a whole physical disk, not a partition
    /// and not a device other devices are built on top of.
    pub fn counts_in_totals(&self) -> bool {
        !self.is_partition()
            && matches!(self.class, DevClass::Hdd | DevClass::Ssd | DevClass::Nvme)
            && self.slaves.is_empty()
    }

    /// A device /sys tells no more about than this.
    pub fn plain(
        name: &str,
        class: DevClass,
        parent: Option<&str>,
        size_bytes: Option<u64>,
    ) -> Self {
        DeviceInfo {
            name: name.to_string(),
            class,
            parent: parent.map(str::to_string),
            mapper_name: None,
            slaves: Vec::new(),
            partitions: Vec::new(),
            size_bytes,
            model: None,
        }
    }

    pub fn is_partition(&self) -> bool {
        self.parent.is_some()
    }

    /// The name a user knows the device by: the mapper name for dm devices.
    pub fn display_name(&self) -> &str {
        self.mapper_name.as_deref().unwrap_or(&self.name)
    }
}

/// Shared by every sample and row until the device set changes.
pub type Catalogue = BTreeMap<String, Arc<DeviceInfo>>;

/// One reading of every device's counters and the clock they go with.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DiskSample {
    /// /proc/uptime in centiseconds, read with the counters.
    pub uptime_cs: u64,
    /// Wall clock of the reading, milliseconds since the Unix epoch.
    pub wall_ms: i64,
    pub devices: Vec<DiskCounters>,
    /// Lines of /proc/diskstats that could not be read.
    pub rejected: Vec<ParseError>,
    /// Shared between samples until the set of devices changes.
    pub catalogue: Arc<Catalogue>,
}

/// Reads the host's block devices under a root directory.
pub struct DiskSource {
    fs: RootFs,
    catalogue: Arc<Catalogue>,
    /// (name, major, minor) of the devices the catalogue describes: a dm
    /// minor reused by another volume within one interval changes no name.
    known: BTreeSet<(String, u32, u32)>,
    /// Samples since /sys/block was last read.
    since_read: u32,
    /// The transport's facts generation the catalogue was read at.
    facts: u64,
}

/// /sys/block is read again after this many samples even when no device
/// came or went, while a dm or md device lists no slaves: they appear only
/// once its table is loaded.
const REREAD_EVERY: u32 = 60;

impl DiskSource {
    pub fn new(fs: RootFs) -> Self {
        DiskSource {
            fs,
            catalogue: Arc::new(Catalogue::new()),
            known: BTreeSet::new(),
            since_read: 0,
            facts: 0,
        }
    }

    pub fn sample(&mut self, wall_ms: i64) -> Result<DiskSample, SourceError> {
        // The clock first and the counters straight after, as sysstat does.
        let uptime_text = self.fs.read("/proc/uptime")?;
        let diskstats_text = self.fs.read("/proc/diskstats")?;
        let uptime_cs = parse_uptime_cs(&uptime_text, "/proc/uptime")?;
        let parsed = parse_diskstats(&diskstats_text, "/proc/diskstats");
        let devices: BTreeSet<(String, u32, u32)> = parsed
            .items
            .iter()
            .map(|d| (d.name.clone(), d.major, d.minor))
            .collect();
        self.since_read = self.since_read.saturating_add(1);
        let waiting_for_slaves = self.since_read >= REREAD_EVERY
            && self
                .catalogue
                .values()
                .any(|i| matches!(i.class, DevClass::Dm | DevClass::Md) && i.slaves.is_empty());
        let facts = self.fs.facts_generation();
        if devices != self.known || waiting_for_slaves || facts != self.facts {
            self.facts = facts;
            let names = devices.iter().map(|(n, _, _)| n.clone()).collect();
            self.catalogue = Arc::new(read_catalogue(&self.fs, &names));
            self.known = devices;
            self.since_read = 0;
        }
        Ok(DiskSample {
            uptime_cs,
            wall_ms,
            devices: parsed.items,
            rejected: parsed.rejected,
            catalogue: Arc::clone(&self.catalogue),
        })
    }
}

/// sysfs spells a `/` in a device name (cciss/c0d0) as `!`.
fn sys_name(name: &str) -> String {
    name.replace('/', "!")
}

pub(crate) fn class_by_name(name: &str) -> Option<DevClass> {
    let class = if name.starts_with("loop") {
        DevClass::Loop
    } else if name.starts_with("zram") {
        DevClass::Zram
    } else if name.starts_with("ram") {
        DevClass::Ram
    } else if name.starts_with("dm-") {
        DevClass::Dm
    } else if name.starts_with("md") {
        DevClass::Md
    } else if name.starts_with("nvme") {
        DevClass::Nvme
    } else {
        return None;
    };
    Some(class)
}

/// Reads /sys/block for the named devices. Partitions take their disk's
/// class.
pub fn read_catalogue(fs: &RootFs, names: &BTreeSet<String>) -> Catalogue {
    let sys_ok = fs.exists("/sys/block");
    let mut cat: BTreeMap<String, DeviceInfo> = BTreeMap::new();
    let mut parent_of: BTreeMap<String, String> = BTreeMap::new();
    for disk in fs.list("/sys/block") {
        let base = format!("/sys/block/{disk}");
        let disk_name = disk.replace('!', "/");
        for entry in fs.list(&base) {
            if fs.exists(&format!("{base}/{entry}/partition")) {
                parent_of.insert(entry.replace('!', "/"), disk_name.clone());
            }
        }
    }
    for name in names {
        if let Some(parent) = parent_of.get(name) {
            let base = format!("/sys/block/{}/{}", sys_name(parent), sys_name(name));
            cat.insert(
                name.clone(),
                DeviceInfo::plain(name, DevClass::Unknown, Some(parent), size_bytes(fs, &base)),
            );
            continue;
        }
        let base = format!("/sys/block/{}", sys_name(name));
        let class = if !sys_ok {
            class_by_name(name).unwrap_or(DevClass::Unknown)
        } else if let Some(c) = class_by_name(name) {
            c
        } else if !fs.exists(&format!("{base}/device")) {
            DevClass::Virtual
        } else if fs.attr(&format!("{base}/queue/rotational")).as_deref() == Some("1") {
            DevClass::Hdd
        } else {
            DevClass::Ssd
        };
        let mut partitions: Vec<String> = parent_of
            .iter()
            .filter(|(_, p)| *p == name)
            .map(|(c, _)| c.clone())
            .collect();
        partitions.sort();
        cat.insert(
            name.clone(),
            DeviceInfo {
                name: name.clone(),
                class,
                parent: None,
                mapper_name: fs
                    .attr(&format!("{base}/dm/name"))
                    .filter(|s| !s.is_empty()),
                slaves: fs
                    .list(&format!("{base}/slaves"))
                    .iter()
                    .map(|s| s.replace('!', "/"))
                    .collect(),
                partitions,
                size_bytes: size_bytes(fs, &base),
                model: fs
                    .attr(&format!("{base}/device/model"))
                    .filter(|s| !s.is_empty()),
            },
        );
    }
    // A partition is what its disk is.
    let classes: BTreeMap<String, DevClass> =
        cat.iter().map(|(n, i)| (n.clone(), i.class)).collect();
    for info in cat.values_mut() {
        if let Some(parent) = &info.parent {
            info.class = classes.get(parent).copied().unwrap_or(DevClass::Unknown);
        }
    }
    cat.into_iter().map(|(n, i)| (n, Arc::new(i))).collect()
}

fn size_bytes(fs: &RootFs, base: &str) -> Option<u64> {
    fs.attr(&format!("{base}/size"))?
        .parse::<u64>()
        .ok()?
        .checked_mul(512)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &std::path::Path, rel: &str, text: &str) {
        let p = root.join(rel);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).expect("mkdir");
        }
        std::fs::write(p, text).expect("write");
    }

    #[test]
    fn a_reused_dm_minor_is_read_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "proc/uptime", "100.00 0.00\n");
        write(root, "proc/diskstats", "253 3 dm-3 1 0 8 1 0 0 0 0 0 1 1\n");
        write(root, "sys/block/dm-3/dm/name", "vg-snap1\n");
        let mut src = DiskSource::new(RootFs::new(root));
        let s = src.sample(0).expect("sample");
        assert_eq!(s.catalogue["dm-3"].display_name(), "vg-snap1");
        // lvremove snap1; lvcreate snap2: the kernel name comes back as dm-3
        // with another minor, within one interval
        write(root, "proc/diskstats", "253 4 dm-3 1 0 8 1 0 0 0 0 0 1 1\n");
        write(root, "sys/block/dm-3/dm/name", "vg-snap2\n");
        let s = src.sample(0).expect("sample");
        assert_eq!(s.catalogue["dm-3"].display_name(), "vg-snap2");
    }

    #[test]
    fn slaves_that_appear_later_are_seen() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "proc/uptime", "100.00 0.00\n");
        write(root, "proc/diskstats", "253 0 dm-0 1 0 8 1 0 0 0 0 0 1 1\n");
        write(root, "sys/block/dm-0/dm/name", "mpatha\n");
        let mut src = DiskSource::new(RootFs::new(root));
        assert!(
            src.sample(0).expect("sample").catalogue["dm-0"]
                .slaves
                .is_empty()
        );
        std::fs::create_dir_all(root.join("sys/block/dm-0/slaves/sdb")).expect("mkdir");
        let mut last = None;
        for _ in 0..REREAD_EVERY {
            last = Some(src.sample(0).expect("sample"));
        }
        let slaves = last
            .map(|s| s.catalogue["dm-0"].slaves.clone())
            .unwrap_or_default();
        assert_eq!(slaves, vec!["sdb".to_string()]);
    }

    #[test]
    fn missing_files_are_errors_that_name_the_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut src = DiskSource::new(RootFs::new(dir.path()));
        let e = src.sample(0).expect_err("no /proc here").to_string();
        assert!(e.contains("proc/uptime"), "{e}");
    }
}

//! A cell's device catalogue from the class block its sampler sent: the
//! same classes the host's DiskSource gives its own devices, so a cell's
//! disk and a local disk read alike (partitions take their disk's class;
//! a disk without a `device` link is virtual; "not rotational" is flash).

use crate::layers::cells::cell_stream::SysBlockEntry;
use crate::layers::disks::diskstats::DiskCounters;
use crate::layers::disks::source::{Catalogue, DevClass, DeviceInfo, class_by_name};
use std::sync::Arc;

fn class_of(e: &SysBlockEntry) -> DevClass {
    if let Some(c) = class_by_name(&e.name) {
        c
    } else if !e.has_device {
        DevClass::Virtual
    } else if e.rotational == Some(true) {
        DevClass::Hdd
    } else {
        DevClass::Ssd
    }
}

fn bytes(sectors: Option<u64>) -> Option<u64> {
    sectors?.checked_mul(512)
}

/// Builds the catalogue of every device and partition in the block.
pub fn from_sys_block(entries: &[SysBlockEntry]) -> Catalogue {
    let mut cat = Catalogue::new();
    for e in entries {
        let class = class_of(e);
        let mut partitions: Vec<String> = e.partitions.iter().map(|(p, _)| p.clone()).collect();
        partitions.sort();
        for (part, size) in &e.partitions {
            cat.insert(
                part.clone(),
                Arc::new(DeviceInfo::plain(part, class, Some(&e.name), bytes(*size))),
            );
        }
        cat.insert(
            e.name.clone(),
            Arc::new(DeviceInfo {
                name: e.name.clone(),
                class,
                parent: None,
                mapper_name: e.dm_name.clone(),
                slaves: e.slaves.clone(),
                partitions,
                size_bytes: bytes(e.size_sectors),
                model: e.model.clone(),
            }),
        );
    }
    cat
}

/// Devices that appeared after the class block was read get an entry
/// from their name alone (Unknown where the name says nothing), so every
/// row of a sample has one. Returns None when nothing is missing.
pub fn with_unlisted(cat: &Catalogue, devices: &[DiskCounters]) -> Option<Catalogue> {
    if devices.iter().all(|d| cat.contains_key(&d.name)) {
        return None;
    }
    let mut out = cat.clone();
    for d in devices {
        out.entry(d.name.clone()).or_insert_with(|| {
            let class = class_by_name(&d.name).unwrap_or(DevClass::Unknown);
            Arc::new(DeviceInfo::plain(&d.name, class, None, None))
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::cells::cell_stream::parse_sys_block;

    #[test]
    fn an_exadata_like_cell() {
        // Two hard disks with a partition, a flash card, an M.2 boot disk
        // without rotational flag, a loop device.
        let text = "dev sda\nrot 1\nsize 2344225968\nlink 1\nmodel HGST H7280A520SUN8.0T\npart sda1 2048\n\
                    dev sdb\nrot 1\nlink 1\n\
                    dev nvme0n1\nrot 0\nlink 1\nmodel 7335940:ICDPC2DD2ORA6.4T\n\
                    dev sdc\nlink 1\n\
                    dev loop0\nrot 0\nsize 0\n\
                    dev md127\nrot 0\nslave sda1\n";
        let p = parse_sys_block(text, "classes");
        assert!(p.rejected.is_empty());
        let cat = from_sys_block(&p.items);
        let class = |n: &str| cat[n].class;
        assert_eq!(class("sda"), DevClass::Hdd);
        assert_eq!(class("sda1"), DevClass::Hdd);
        assert_eq!(cat["sda1"].parent.as_deref(), Some("sda"));
        assert_eq!(cat["sda1"].size_bytes, Some(2048 * 512));
        assert_eq!(cat["sda"].partitions, vec!["sda1".to_string()]);
        assert_eq!(cat["sda"].size_bytes, Some(2_344_225_968 * 512));
        assert_eq!(class("sdb"), DevClass::Hdd);
        assert_eq!(class("nvme0n1"), DevClass::Nvme);
        assert_eq!(class("sdc"), DevClass::Ssd);
        assert_eq!(class("loop0"), DevClass::Loop);
        assert_eq!(class("md127"), DevClass::Md);
        assert_eq!(cat["md127"].slaves, vec!["sda1".to_string()]);
    }

    #[test]
    fn devices_that_came_later() {
        let cat = from_sys_block(&parse_sys_block("dev sda\nrot 1\nlink 1\n", "c").items);
        let dev = |n: &str| DiskCounters {
            name: n.into(),
            ..DiskCounters::default()
        };
        assert!(with_unlisted(&cat, &[dev("sda")]).is_none());
        let more = with_unlisted(&cat, &[dev("sda"), dev("dm-3"), dev("sdq")]).unwrap();
        assert_eq!(more["dm-3"].class, DevClass::Dm);
        assert_eq!(more["sdq"].class, DevClass::Unknown);
        assert_eq!(more["sda"].class, DevClass::Hdd);
    }
}

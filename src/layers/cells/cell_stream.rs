//! What a cell's sampler frames hold (src/link/frame.rs splits the
//! stream into frames): a sample is /proc/uptime's line then
//! /proc/diskstats; the class block is what /sys/block says.

use crate::core::error::ParseError;
use crate::core::parse::Parsed;
use crate::core::uptime::parse_uptime_cs;
use crate::layers::disks::diskstats::{DiskCounters, parse_diskstats};
use crate::link::frame::Frame;

/// The counters of one `@@S` frame, read on the cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellSample {
    pub seq: u64,
    /// The cell's /proc/uptime in centiseconds.
    pub uptime_cs: u64,
    pub diskstats: Parsed<DiskCounters>,
}

/// Reads a sample frame body: /proc/uptime's line, then /proc/diskstats.
pub fn parse_sample(frame: &Frame) -> Result<CellSample, ParseError> {
    let (uptime, diskstats) = frame.body.split_once('\n').unwrap_or((&frame.body, ""));
    Ok(CellSample {
        seq: frame.seq,
        uptime_cs: parse_uptime_cs(uptime, "/proc/uptime")?,
        diskstats: parse_diskstats(diskstats, "/proc/diskstats"),
    })
}

/// What the cell's /sys/block/NAME says, as the sampler printed it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SysBlockEntry {
    pub name: String,
    /// queue/rotational: true for spinning disks.
    pub rotational: Option<bool>,
    /// `size`, in 512-byte sectors.
    pub size_sectors: Option<u64>,
    /// Has a `device` link: backed by hardware, not virtual.
    pub has_device: bool,
    pub model: Option<String>,
    /// dm/name: the /dev/mapper name.
    pub dm_name: Option<String>,
    pub slaves: Vec<String>,
    /// (partition, size in sectors)
    pub partitions: Vec<(String, Option<u64>)>,
}

/// sysfs spells a `/` in a device name (cciss/c0d0) as `!`.
fn dev_name(sys: &str) -> String {
    sys.replace('!', "/")
}

/// Reads the body of a `@@C` frame: `dev NAME` starts a device, then
/// `rot`, `size`, `link`, `model`, `dm`, `slave` and `part NAME SIZE`
/// lines describe it. Keys a later sampler may add are skipped.
pub fn parse_sys_block(text: &str, source_name: &str) -> Parsed<SysBlockEntry> {
    let mut out: Parsed<SysBlockEntry> = Parsed::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        let value = value.trim();
        let reject = |out: &mut Parsed<SysBlockEntry>, expected: &str| {
            out.rejected
                .push(ParseError::new(source_name, i + 1, line, expected));
        };
        if key == "dev" {
            if value.is_empty() || value.contains(char::is_whitespace) {
                reject(&mut out, "a device name after 'dev'");
            } else {
                out.items.push(SysBlockEntry {
                    name: dev_name(value),
                    ..SysBlockEntry::default()
                });
            }
            continue;
        }
        let Some(dev) = out.items.last_mut() else {
            reject(&mut out, "'dev NAME' before the device's attributes");
            continue;
        };
        let non_empty = |v: &str| (!v.is_empty()).then(|| v.to_string());
        match key {
            "rot" => match value {
                "0" => dev.rotational = Some(false),
                "1" => dev.rotational = Some(true),
                _ => reject(&mut out, "rot 0 or rot 1"),
            },
            "size" => match value.parse::<u64>() {
                Ok(n) => dev.size_sectors = Some(n),
                Err(_) => reject(&mut out, "a size in sectors"),
            },
            "link" => dev.has_device = value == "1",
            "model" => dev.model = non_empty(value),
            "dm" => dev.dm_name = non_empty(value),
            "slave" if !value.is_empty() => dev.slaves.push(dev_name(value)),
            "part" => {
                let mut words = value.split_whitespace();
                match (words.next(), words.next().map(|s| s.parse::<u64>().ok())) {
                    (Some(name), size) => dev.partitions.push((dev_name(name), size.flatten())),
                    (None, _) => reject(&mut out, "part NAME SIZE"),
                }
            }
            "slave" => reject(&mut out, "a device name after 'slave'"),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::frame::FrameKind;

    #[test]
    fn sample_body() {
        let f = Frame {
            kind: FrameKind::Sample,
            seq: 1,
            body: "350735.47 234388.90\n 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n 8 1 sda1 1".into(),
        };
        let s = parse_sample(&f).unwrap();
        assert_eq!(s.uptime_cs, 35_073_547);
        assert_eq!(s.diskstats.items.len(), 1);
        assert_eq!(s.diskstats.rejected.len(), 1);
        assert_eq!(s.diskstats.rejected[0].line_no, 2);
        let bad = Frame {
            body: "up 3 days".into(),
            ..f
        };
        assert!(parse_sample(&bad).is_err());
    }

    #[test]
    fn sys_block_records() {
        let text = "dev sda\nrot 1\nsize 1953525168\nlink 1\nmodel HGST H101812SFSUN1.2T\npart sda1 2048\npart sda2 -\n\
                    dev cciss!c0d0\nrot 0\nlink 1\nfuture 42\n\
                    dev dm-0\nrot 0\ndm vg-root\nslave sda2\nrot maybe\n";
        let p = parse_sys_block(text, "classes");
        assert_eq!(p.items.len(), 3);
        let sda = &p.items[0];
        assert_eq!(sda.rotational, Some(true));
        assert_eq!(sda.size_sectors, Some(1_953_525_168));
        assert_eq!(sda.model.as_deref(), Some("HGST H101812SFSUN1.2T"));
        assert_eq!(
            sda.partitions,
            vec![("sda1".into(), Some(2048)), ("sda2".into(), None)]
        );
        assert_eq!(p.items[1].name, "cciss/c0d0");
        assert!(!p.items[2].has_device);
        assert_eq!(p.items[2].slaves, vec!["sda2".to_string()]);
        assert_eq!(p.rejected.len(), 1);
        assert_eq!(p.rejected[0].line_no, 16);
        assert_eq!(parse_sys_block("rot 1\n", "c").rejected.len(), 1);
    }
}

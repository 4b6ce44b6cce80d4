//! `/proc/diskstats` and `/sys/block/DEV/stat`.
//!
//! Layout (Documentation/admin-guide/iostats.rst): major, minor, name, then
//! 11 fields (up to 4.17), 15 (4.18+: discard) or 17 (5.5+: flush). The
//! `*_ticks`, in-flight, io_ticks and time-in-queue fields are 32-bit in the
//! kernel and wrap; the counts are `unsigned long`. Extra trailing columns
//! from future kernels are ignored. Pre-2.6.25 partitions print 4 fields;
//! iostat -x cannot show them and neither does strata, so they are skipped.

use crate::core::error::ParseError;
use crate::core::parse::Parsed;
use serde::{Deserialize, Serialize};

/// Discard counters (kernel 4.18+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DiscardCounters {
    pub ios: u64,
    pub merges: u64,
    pub sectors: u64,
    pub ticks: u32,
}

/// Flush counters (kernel 5.5+).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FlushCounters {
    pub ios: u64,
    pub ticks: u32,
}

/// The cumulative counters of one block device, as the kernel prints them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DiskCounters {
    pub major: u32,
    pub minor: u32,
    pub name: String,
    pub rd_ios: u64,
    pub rd_merges: u64,
    pub rd_sectors: u64,
    pub rd_ticks: u32,
    pub wr_ios: u64,
    pub wr_merges: u64,
    pub wr_sectors: u64,
    pub wr_ticks: u32,
    pub ios_pgr: u32,
    pub tot_ticks: u32,
    pub rq_ticks: u32,
    pub discard: Option<DiscardCounters>,
    pub flush: Option<FlushCounters>,
}

impl DiskCounters {
    /// A device that has completed no I/O since boot; iostat hides these.
    pub fn never_used(&self) -> bool {
        self.rd_ios == 0
            && self.wr_ios == 0
            && self.discard.is_none_or(|d| d.ios == 0)
            && self.flush.is_none_or(|f| f.ios == 0)
    }
}

const DISKSTATS_EXPECTED: &str =
    "major minor name and 11, 15 or 17 counters (or 4 for an old partition)";

/// Parses the whole text of `/proc/diskstats`.
pub fn parse_diskstats(text: &str, source_name: &str) -> Parsed<DiskCounters> {
    Parsed::from_lines(text, source_name, parse_diskstats_line)
}

fn parse_diskstats_line(line: &str) -> Result<Option<DiskCounters>, String> {
    let mut words = line.split_whitespace();
    let major = words.next().and_then(|w| w.parse::<u32>().ok());
    let minor = words.next().and_then(|w| w.parse::<u32>().ok());
    let name = words.next();
    let (Some(major), Some(minor), Some(name)) = (major, minor, name) else {
        return Err(DISKSTATS_EXPECTED.to_string());
    };
    let fields: Vec<&str> = words.collect();
    if fields.len() == 4 {
        // A pre-2.6.25 partition: reads, read sectors, writes, write sectors.
        parse_fields(&fields)?;
        return Ok(None);
    }
    let mut dev = counters_from_fields(&fields)?;
    dev.major = major;
    dev.minor = minor;
    dev.name = name.to_string();
    Ok(Some(dev))
}

/// Parses `/sys/block/DEV/stat`: the same counters without major, minor and
/// name.
pub fn parse_sys_block_stat(
    text: &str,
    name: &str,
    source_name: &str,
) -> Result<DiskCounters, ParseError> {
    let line = text.lines().next().unwrap_or("");
    let fields: Vec<&str> = line.split_whitespace().collect();
    let mut dev = counters_from_fields(&fields)
        .map_err(|expected| ParseError::new(source_name, 1, line, expected))?;
    dev.name = name.to_string();
    Ok(dev)
}

fn parse_fields(fields: &[&str]) -> Result<Vec<u64>, String> {
    fields
        .iter()
        .map(|w| {
            w.parse::<u64>()
                .map_err(|_| format!("an unsigned integer counter, not {w:?}"))
        })
        .collect()
}

/// Builds the counters from the 11, 15 or 17 (or more) numeric fields.
fn counters_from_fields(fields: &[&str]) -> Result<DiskCounters, String> {
    if fields.len() < 11 || (fields.len() > 11 && fields.len() < 15) || fields.len() == 16 {
        return Err(format!(
            "11, 15 or 17 counters after the name, found {}",
            fields.len()
        ));
    }
    let v = parse_fields(fields)?;
    // The kernel prints these as %u; keep the low 32 bits as a C reader would.
    let ms = |x: u64| x as u32;
    Ok(DiskCounters {
        major: 0,
        minor: 0,
        name: String::new(),
        rd_ios: v[0],
        rd_merges: v[1],
        rd_sectors: v[2],
        rd_ticks: ms(v[3]),
        wr_ios: v[4],
        wr_merges: v[5],
        wr_sectors: v[6],
        wr_ticks: ms(v[7]),
        ios_pgr: ms(v[8]),
        tot_ticks: ms(v[9]),
        rq_ticks: ms(v[10]),
        discard: (v.len() >= 15).then(|| DiscardCounters {
            ios: v[11],
            merges: v[12],
            sectors: v[13],
            ticks: ms(v[14]),
        }),
        flush: (v.len() >= 17).then(|| FlushCounters {
            ios: v[15],
            ticks: ms(v[16]),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_three_layouts() {
        let text = "   3    0   hda 446216 784926 9550688 4382310 424847 312726 5922052 19310380 0 3376340 23705160\n\
                    \x20  3    1   hda1 35486 38030 38030 38030\n\
                    \x20  8    0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n\
                    \x20254    0 vda 137421 12563 15319058 208181 23812 55769 10388200 85086 0 24216 294876 11089 44 1765080 1534 1883 73\n";
        let p = parse_diskstats(text, "/proc/diskstats");
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        assert_eq!(p.items.len(), 3);
        let hda = &p.items[0];
        assert_eq!((hda.major, hda.minor, hda.name.as_str()), (3, 0, "hda"));
        assert_eq!(hda.rq_ticks, 23705160);
        assert!(hda.discard.is_none() && hda.flush.is_none());
        let sda = &p.items[1];
        assert_eq!(sda.discard.map(|d| d.ticks), Some(15));
        assert!(sda.flush.is_none());
        let vda = &p.items[2];
        assert_eq!(
            vda.flush,
            Some(FlushCounters {
                ios: 1883,
                ticks: 73
            })
        );
    }

    #[test]
    fn a_bad_line_is_named_and_the_rest_kept() {
        let text =
            " 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n 8 16 sdb 1 2 x 4 5 6 7 8 9 10 11\n 8 32 sdc 1 2\n";
        let p = parse_diskstats(text, "/proc/diskstats");
        assert_eq!(p.items.len(), 1);
        assert_eq!(p.rejected.len(), 2);
        assert_eq!(p.rejected[0].line_no, 2);
        assert!(p.rejected[0].to_string().contains("/proc/diskstats line 2"));
        assert_eq!(p.rejected[1].line_no, 3);
    }

    #[test]
    fn extra_columns_are_tolerated() {
        let line = "259 0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19";
        let p = parse_diskstats(line, "d");
        assert_eq!(p.items[0].flush, Some(FlushCounters { ios: 16, ticks: 17 }));
    }

    #[test]
    fn ms_fields_keep_the_low_32_bits() {
        let line = "8 0 sda 1 2 3 4294967297 5 6 7 8 9 10 11";
        assert_eq!(parse_diskstats(line, "d").items[0].rd_ticks, 1);
    }

    #[test]
    fn sys_block_stat() {
        let d = parse_sys_block_stat(
            "  137421    12563 15319058   208181    23812    55769 10388200    85086        0    24216   294876    11089       44  1765080     1534     1883       73\n",
            "vda",
            "/sys/block/vda/stat",
        )
        .unwrap();
        assert_eq!(d.name, "vda");
        assert_eq!(d.rd_ios, 137421);
        assert_eq!(d.flush.map(|f| f.ios), Some(1883));
        assert!(parse_sys_block_stat("1 2 3", "x", "s").is_err());
    }
}

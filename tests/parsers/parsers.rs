//! Parsers on real captures, and properties over any input: never a panic,
//! never a negative, NaN or infinite figure.

use proptest::prelude::*;
use strata::core::uptime::parse_uptime_cs;
use strata::layers::disks::diskstats::{
    DiscardCounters, DiskCounters, FlushCounters, parse_diskstats, parse_sys_block_stat,
};
use strata::layers::disks::model::{DISK_COLS, DiskDelta};

fn real(name: &str) -> String {
    let path = format!("{}/tests/fixtures/real/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn linux_6_18_diskstats_with_20_columns() {
    let p = parse_diskstats(&real("diskstats-linux6.18-20fields.txt"), "/proc/diskstats");
    assert!(p.rejected.is_empty(), "{:?}", p.rejected);
    assert_eq!(p.items.len(), 10);
    let vda = p.items.iter().find(|d| d.name == "vda").expect("vda");
    assert_eq!((vda.major, vda.minor), (254, 0));
    assert_eq!(
        (vda.rd_ios, vda.rd_merges, vda.rd_sectors, vda.rd_ticks),
        (137421, 12563, 15319058, 208181)
    );
    assert_eq!(
        (vda.wr_ios, vda.wr_merges, vda.wr_sectors, vda.wr_ticks),
        (23812, 55769, 10388200, 85086)
    );
    assert_eq!(
        (vda.ios_pgr, vda.tot_ticks, vda.rq_ticks),
        (0, 24216, 294876)
    );
    assert_eq!(
        vda.discard,
        Some(DiscardCounters {
            ios: 11089,
            merges: 44,
            sectors: 1765080,
            ticks: 1534
        })
    );
    assert_eq!(
        vda.flush,
        Some(FlushCounters {
            ios: 1883,
            ticks: 73
        })
    );
    let unused: Vec<&str> = p
        .items
        .iter()
        .filter(|d| d.never_used())
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(unused.len(), 9, "the loop devices and zram0 never did I/O");
}

#[test]
fn this_vm_diskstats_and_sysfs_agree() {
    let p = parse_diskstats(&real("diskstats-this-vm-6.18.44.txt"), "/proc/diskstats");
    assert!(p.rejected.is_empty(), "{:?}", p.rejected);
    assert!(p.items.iter().any(|d| d.name == "vda" && d.flush.is_some()));
    let sys = parse_sys_block_stat(
        &real("sys-block-vda-stat-6.18.44.txt"),
        "vda",
        "/sys/block/vda/stat",
    )
    .expect("sysfs stat parses");
    assert!(sys.flush.is_some() && sys.rd_ios > 0);
    let up = parse_uptime_cs(&real("uptime-6.18.44.txt"), "/proc/uptime").expect("uptime parses");
    assert!(up > 0);
}

#[test]
fn old_layouts_read() {
    // iostats.rst's 2.6 sample: 14 columns for a disk, 7 for an old partition
    let text = "   3    0   hda 446216 784926 9550688 4382310 424847 312726 5922052 19310380 0 3376340 23705160\n   3    1   hda1 35486 38030 38030 38030\n";
    let p = parse_diskstats(text, "/proc/diskstats");
    assert!(p.rejected.is_empty());
    assert_eq!(
        p.items.len(),
        1,
        "iostat -x cannot show 7-column partitions, neither does strata"
    );
    assert!(p.items[0].discard.is_none() && p.items[0].flush.is_none());
    // 4.18's sample: 18 columns
    let p = parse_diskstats(
        "   3    0   hda 446216 784926 9550688 4382310 424847 312726 5922052 19310380 0 3376340 23705160 0 0 0 0\n",
        "d",
    );
    assert!(p.items[0].discard.is_some() && p.items[0].flush.is_none());
}

fn counters() -> impl Strategy<Value = DiskCounters> {
    (
        prop::array::uniform6(any::<u64>()),
        prop::array::uniform5(any::<u32>()),
        prop::option::of((any::<u64>(), any::<u64>(), any::<u64>(), any::<u32>())),
        prop::option::of((any::<u64>(), any::<u32>())),
    )
        .prop_map(|(c, t, d, f)| DiskCounters {
            major: 8,
            minor: 0,
            name: "sda".into(),
            rd_ios: c[0],
            rd_merges: c[1],
            rd_sectors: c[2],
            rd_ticks: t[0],
            wr_ios: c[3],
            wr_merges: c[4],
            wr_sectors: c[5],
            wr_ticks: t[1],
            ios_pgr: 0,
            tot_ticks: t[2],
            rq_ticks: t[3],
            discard: d.map(|(ios, merges, sectors, ticks)| DiscardCounters {
                ios,
                merges,
                sectors,
                ticks,
            }),
            flush: f.map(|(ios, ticks)| FlushCounters { ios, ticks }),
        })
}

/// Counters that moved forward by a bounded amount, as real ones do.
fn moved(prev: &DiskCounters, step: u64, ms: u32) -> DiskCounters {
    DiskCounters {
        rd_ios: prev.rd_ios.saturating_add(step),
        rd_sectors: prev.rd_sectors.saturating_add(step * 8),
        rd_ticks: prev.rd_ticks.wrapping_add(ms),
        wr_ios: prev.wr_ios.saturating_add(step / 2),
        tot_ticks: prev.tot_ticks.wrapping_add(ms / 3),
        rq_ticks: prev.rq_ticks.wrapping_add(ms),
        ..prev.clone()
    }
}

proptest! {
    #[test]
    fn diskstats_parser_never_panics(text in "\\PC{0,400}") {
        let _ = parse_diskstats(&text, "/proc/diskstats");
        let _ = parse_sys_block_stat(&text, "x", "stat");
        let _ = parse_uptime_cs(&text, "/proc/uptime");
    }

    #[test]
    fn diskstats_parser_never_panics_on_near_misses(
        fields in prop::collection::vec(prop_oneof![
            "[0-9]{1,22}", "-[0-9]{1,3}", "[a-z]{1,4}", Just(String::new()), Just("18446744073709551616".to_string())
        ], 0..24)
    ) {
        let line = format!("8 0 sda {}", fields.join(" "));
        let p = parse_diskstats(&line, "d");
        prop_assert_eq!(p.items.len() + p.rejected.len() <= 1, true);
    }

    #[test]
    fn rates_are_never_negative_nan_or_infinite(prev in counters(), cur in counters(), itv in 0u64..1_000_000) {
        if let Some(d) = DiskDelta::between(Some(&prev), &cur, itv) {
            let r = d.rates();
            for c in &DISK_COLS {
                if let Some(v) = r.get(c.col) {
                    prop_assert!(v.is_finite() && v >= 0.0, "{} = {}", c.header, v);
                }
            }
        }
    }

    #[test]
    fn forward_counters_always_give_figures(prev in counters(), step in 0u64..1_000_000, ms in 0u32..1_000_000, itv in 1u64..100_000) {
        let cur = moved(&prev, step, ms);
        let d = DiskDelta::between(Some(&prev), &cur, itv);
        // a saturated counter cannot move; everything else must give figures
        if prev.rd_ios < u64::MAX - step && prev.rd_sectors < u64::MAX - step * 8 && prev.wr_ios < u64::MAX - step {
            let d = d.expect("forward counters give figures");
            prop_assert_eq!(d.rd_ios, step);
            prop_assert_eq!(d.rd_ticks, u64::from(ms));
        }
    }
}

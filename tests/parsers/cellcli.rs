//! CellCLI parsers and the cell figures on real samples (the Oracle
//! documentation's, a book's, the users' summary files) and reconstructed
//! listings (tests/fixtures/cellcli/README.md says which is which), and
//! properties over any input: never a panic, never a negative, NaN or
//! infinite figure.

use proptest::prelude::*;
use strata::layers::cells::cell_metrics::{
    CELL_DISK_COLS, CellDiskCol, CellSummary, CellTotals, FLASH_CACHE_COLS, FlashCacheCol, Media,
};
use strata::layers::cells::cell_shares::{SHARE_COLS, ShareCol, Shares};
use strata::layers::cells::cellcli::{
    Basis, BlockSize, CellDiskType, Direction, Metric, MetricPrefix, Quantity,
    parse_cellcli_report, parse_celldisk, parse_metriccurrent,
};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/cellcli/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A fixture's metrics, every line of it read.
fn metrics(name: &str) -> Vec<Metric> {
    let p = parse_metriccurrent(&fixture(name), name);
    assert!(p.rejected.is_empty(), "{name}: {:?}", p.rejected);
    p.items
}

/// The users' `KEY: value` summary file (ciops-all-summary.txt), read so
/// that the test takes its figures from the file, not from constants.
fn summary_values(text: &str) -> Vec<(String, f64)> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (k, v) = l
                .split_once(':')
                .unwrap_or_else(|| panic!("not KEY: value: {l:?}"));
            let v: f64 = v.trim().parse().unwrap_or_else(|_| panic!("{l:?}"));
            (k.trim().to_string(), v)
        })
        .collect()
}

fn value(kv: &[(String, f64)], key: &str) -> f64 {
    kv.iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("{key} missing"))
        .1
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9 * b.abs().max(1.0))
}

#[track_caller]
fn assert_close(a: Option<f64>, b: f64) {
    assert!(close(a, b), "{a:?} != {b}");
}

/// The figures as the users' script prints them: truncated.
fn truncated(s: &Shares) -> [Option<f64>; 3] {
    [s.write_pct_to_flash, s.read_pct_from_flash, s.iops_per_disk].map(|x| x.map(f64::trunc))
}

#[test]
fn shares_match_the_users_ciops_summary() {
    let kv = summary_values(&fixture("ciops-all-summary.txt"));
    let s = Shares::from_iops(
        value(&kv, "FLASH_READ_IOPS"),
        value(&kv, "DISK_READ_IOPS"),
        value(&kv, "FLASH_WRITE_IOPS"),
        value(&kv, "DISK_WRITE_IOPS"),
        value(&kv, "TOTAL_NUMBER_OF_DRIVES") as usize,
    );
    // by hand: 488203 / (488203 + 6814) = 488203 / 495017 = 98.6234816…%
    assert_close(s.write_pct_to_flash, 98.623_481_617_803_02);
    // 6305 / (6305 + 213) = 6305 / 6518 = 96.7321264…%
    assert_close(s.read_pct_from_flash, 96.732_126_419_146_98);
    // the hard disks' reads and writes only: (213 + 6814) / 84 = 83.6547…
    assert_close(s.iops_per_disk, 83.654_761_904_761_9);
    let printed =
        ["WRITE_PCT_to_FLASH", "READ_PCT_from_FLASH", "IOPS_PER_DISK"].map(|k| Some(value(&kv, k)));
    assert_eq!(truncated(&s), printed, "the file prints 98, 96, 83");
    // the headers strata prints are the file's own keys, in its order
    let headers: Vec<&str> = SHARE_COLS.iter().map(|d| d.header).collect();
    assert_eq!(
        headers,
        ["WRITE_PCT_to_FLASH", "READ_PCT_from_FLASH", "IOPS_PER_DISK"]
    );
    assert_eq!(s.get(ShareCol::IopsPerDisk), s.iops_per_disk);
}

#[test]
fn the_same_function_takes_the_cells_iostat_totals() {
    // the diskstats path: r and w of the DISK and FLASH groups per minute
    let text = fixture("iostat-all-summary.txt");
    // the file came from a web page: its columns are separated by
    // no-break spaces, which split_whitespace takes as spaces
    let rows: Vec<(String, f64, f64)> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 10 && (w[2] == "DISK" || w[2] == "FLASH"))
        .map(|w| {
            (
                w[2].to_string(),
                w[3].parse().unwrap(),
                w[4].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 4);
    let (disk, flash) = (&rows[0], &rows[1]);
    assert_eq!((disk.0.as_str(), flash.0.as_str()), ("DISK", "FLASH"));
    let s = Shares::from_iops(flash.1, disk.1, flash.2, disk.2, 0);
    // 14:40:11: reads 9 / (9 + 47) = 16.0714…%, writes 40354 / (40354 +
    // 40252) = 50.0633…%; the file gives no disk count, so no IOPS per disk
    assert_close(s.read_pct_from_flash, 16.071_428_571_428_573);
    assert_close(s.write_pct_to_flash, 50.063_270_724_263_695);
    assert_eq!(s.iops_per_disk, None);
    let (disk, flash) = (&rows[2], &rows[3]);
    let s = Shares::from_iops(flash.1, disk.1, flash.2, disk.2, 0);
    // 14:41:13: 9 / 57 = 15.7894…%, 53677 / 93225 = 57.5779…%
    assert_close(s.read_pct_from_flash, 15.789_473_684_210_526);
    assert_close(s.write_pct_to_flash, 57.577_902_923_035_666);
}

#[test]
fn seven_cells_through_dcli_give_the_summary_files_figures() {
    let items = metrics("dcli-7cells-x3-rq-sec.txt");
    // 7 cells × 28 cell disks × 5 metrics
    assert_eq!(items.len(), 980);
    assert_eq!(items[0].cell.as_deref(), Some("exa1cel01"));
    let cells = CellSummary::from_parts(&[], &items);
    let names: Vec<&str> = cells.iter().filter_map(|c| c.cell.as_deref()).collect();
    assert_eq!(
        names,
        (1..=7)
            .map(|c| format!("exa1cel{c:02}"))
            .collect::<Vec<_>>()
    );
    for c in &cells {
        assert_eq!((c.totals.hard_disks, c.totals.flash_disks), (12, 16));
        assert!(c.disks.iter().all(|d| d.device.is_none()), "no @@celldisk");
    }
    // exa1cel01 alone, summed with awk over the file (fixtures/cellcli/README.md):
    // DISK r 31.8 w 984, FLASH r 917.5 w 66803
    let one = &cells[0].totals;
    assert_close(one.group(Media::Disk).get(CellDiskCol::RPerS), 31.8);
    assert_close(one.group(Media::Disk).get(CellDiskCol::WPerS), 984.0);
    assert_close(one.group(Media::Flash).get(CellDiskCol::RPerS), 917.5);
    assert_close(one.group(Media::Flash).get(CellDiskCol::WPerS), 66803.0);
    // (31.8 + 984) / 12 = 84.65
    assert_close(one.shares().iops_per_disk, 84.65);

    let all = CellTotals::sum(cells.iter().map(|c| &c.totals));
    assert_eq!((all.cells, all.hard_disks, all.flash_disks), (7, 84, 112));
    let kv = summary_values(&fixture("ciops-all-summary.txt"));
    let (disk, flash) = (all.group(Media::Disk), all.group(Media::Flash));
    assert_close(flash.get(CellDiskCol::RPerS), value(&kv, "FLASH_READ_IOPS"));
    assert_close(disk.get(CellDiskCol::RPerS), value(&kv, "DISK_READ_IOPS"));
    assert_close(
        flash.get(CellDiskCol::WPerS),
        value(&kv, "FLASH_WRITE_IOPS"),
    );
    assert_close(disk.get(CellDiskCol::WPerS), value(&kv, "DISK_WRITE_IOPS"));
    assert_eq!(all.hard_disks as f64, value(&kv, "TOTAL_NUMBER_OF_DRIVES"));
    let printed =
        ["WRITE_PCT_to_FLASH", "READ_PCT_from_FLASH", "IOPS_PER_DISK"].map(|k| Some(value(&kv, k)));
    // counting the 52.5 IO/sec of scrubbing as reads would print 95 and 84
    assert_eq!(truncated(&all.shares()), printed);
    // the same totals as the sum of the per-cell ones
    let per_cell: f64 = cells
        .iter()
        .filter_map(|c| c.totals.group(Media::Disk).get(CellDiskCol::RPerS))
        .sum();
    assert_close(disk.get(CellDiskCol::RPerS), per_cell);
    // no MB/s or latency in this listing: unknown, not zero
    assert_eq!(disk.get(CellDiskCol::RMbPerS), None);
    assert_eq!(disk.get(CellDiskCol::RAwait), None);
    assert_eq!(all.flash_cache().get(FlashCacheCol::HitPct), None);
}

#[test]
fn one_x7_cell_through_the_remote_script() {
    let r = parse_cellcli_report(&fixture("cel01-x7-report.txt"));
    assert!(
        r.celldisks.rejected.is_empty(),
        "{:?}",
        r.celldisks.rejected
    );
    assert!(r.metrics.rejected.is_empty(), "{:?}", r.metrics.rejected);
    assert!(r.stray.is_empty());
    assert_eq!(r.celldisks.items.len(), 16);
    // 28 CD_ metrics × 16 cell disks + 23 FC_ metrics
    assert_eq!(r.metrics.items.len(), 28 * 16 + 23);
    let fd3 = &r.celldisks.items[15];
    assert_eq!(
        (fd3.name.as_str(), fd3.device.as_str(), &fd3.disk_type),
        ("FD_03_cel01", "/dev/nvme3n1", &CellDiskType::FlashDisk)
    );

    let cells = CellSummary::from_report(&r);
    assert_eq!(cells.len(), 1);
    let c = &cells[0];
    assert_eq!(c.cell, None, "one cell without dcli: the caller names it");
    assert_eq!(c.disks.len(), 16);
    let by_name = |n: &str| c.disks.iter().find(|d| d.name == n).unwrap();
    let cd00 = by_name("CD_00_cel01");
    assert_eq!(
        (cd00.device.as_deref(), cd00.media),
        (Some("/dev/sda"), Media::Disk)
    );
    assert_eq!(by_name("FD_00_cel01").media, Media::Flash);
    // CD_03: 13 small + 2.5 large reads; its 7 IO/sec of scrubbing are not
    // database reads
    let cd03 = by_name("CD_03_cel01").figures;
    assert_close(cd03.get(CellDiskCol::RPerS), 15.5);
    assert_close(cd03.get(CellDiskCol::RMbPerS), 2.6);
    // 4,000 us/request
    assert_close(cd03.get(CellDiskCol::RSmAwait), 4.0);
    // (13 × 4 + 2.5 × 12) / 15.5 = 82 / 15.5 = 5.2903… ms
    assert_close(cd03.get(CellDiskCol::RAwait), 82.0 / 15.5);

    let t = &c.totals;
    assert_eq!((t.hard_disks, t.flash_disks), (12, 4));
    let disk = t.group(Media::Disk);
    // small reads: Σ(10 + n), n = 0..11 = 120 + 66 = 186; large 12 × 2.5 = 30
    assert_close(disk.get(CellDiskCol::RSmPerS), 186.0);
    assert_close(disk.get(CellDiskCol::RLgPerS), 30.0);
    assert_close(disk.get(CellDiskCol::RPerS), 216.0);
    // writes: 12 × 20 + 12 × 1.5 = 240 + 18 = 258
    assert_close(disk.get(CellDiskCol::WPerS), 258.0);
    // MB/s: 12 × 0.1 + 12 × 2.5 = 31.2 read; 12 × 0.2 + 12 × 1.5 = 20.4 write
    assert_close(disk.get(CellDiskCol::RMbPerS), 31.2);
    assert_close(disk.get(CellDiskCol::WMbPerS), 20.4);
    // small-read latency weighted by requests: disks 0–5 (75 IO/s) at 4 ms,
    // 6–11 (111 IO/s) at 8 ms: (300 + 888) / 186 = 6.3871 ms
    assert_close(disk.get(CellDiskCol::RSmAwait), 1188.0 / 186.0);
    // with the large reads at 12 ms: (1188 + 360) / 216 = 7.1667 ms
    assert_close(disk.get(CellDiskCol::RAwait), 1548.0 / 216.0);
    // writes: (240 × 1 + 18 × 2) / 258 = 1.0698 ms
    assert_close(disk.get(CellDiskCol::WAwait), 276.0 / 258.0);

    let flash = t.group(Media::Flash);
    // 1500 + 1600 + 1700 + 1800 = 6600 small, 4 × 50 = 200 large
    assert_close(flash.get(CellDiskCol::RPerS), 6800.0);
    // 4 × 2000 + 4 × 100
    assert_close(flash.get(CellDiskCol::WPerS), 8400.0);
    // 4 × 12 + 4 × 50 = 248; 4 × 16 + 4 × 100 = 464
    assert_close(flash.get(CellDiskCol::RMbPerS), 248.0);
    assert_close(flash.get(CellDiskCol::WMbPerS), 464.0);
    // (6600 × 0.3 + 200 × 1.2) / 6800 = 2220 / 6800 = 0.3265 ms
    assert_close(flash.get(CellDiskCol::RAwait), 2220.0 / 6800.0);

    let fc = t.flash_cache();
    // FC_IO_RQ_R_SEC 3,900, FC_IO_RQ_R_MISS_SEC 100: 3900 / 4000 = 97.5 %
    assert_close(fc.get(FlashCacheCol::HitPct), 97.5);
    assert_close(fc.get(FlashCacheCol::RSkipPerS), 64.0);
    assert_close(fc.get(FlashCacheCol::WPerS), 8000.0);
    assert_close(fc.get(FlashCacheCol::RMbPerS), 30.469);

    let s = t.shares();
    // 6800 / (6800 + 216) = 96.9213 %; 8400 / (8400 + 258) = 97.0201 %;
    // (216 + 258) / 12 = 39.5
    assert_close(s.read_pct_from_flash, 6800.0 / 7016.0 * 100.0);
    assert_close(s.write_pct_to_flash, 8400.0 / 8658.0 * 100.0);
    assert_close(s.iops_per_disk, 39.5);
}

#[test]
fn the_documentations_detail_block() {
    let items = metrics("doc-cl-temp-detail.txt");
    assert_eq!(items.len(), 1);
    let m = &items[0];
    assert_eq!(
        (m.name.as_str(), m.object.as_str(), m.value, m.unit.as_str()),
        ("CL_TEMP", "abcd2x3", 48.0, "C")
    );
    assert_eq!(
        m.collection_time.as_deref(),
        Some("2009-12-17T15:32:25-08:00")
    );
    assert_eq!(
        (m.kind.prefix, m.kind.basis),
        (MetricPrefix::Cell, Basis::Instantaneous)
    );
    assert_eq!(m.cell, None);
}

#[test]
fn the_documentations_collection_time_column() {
    let items = metrics("doc-celldisk-collectiontime.txt");
    assert_eq!(items.len(), 2);
    let m = &items[0];
    assert_eq!(
        (m.object.as_str(), m.value, m.unit.as_str()),
        ("CD_00_abcd2x3", 1.9, "MB")
    );
    assert_eq!(
        m.collection_time.as_deref(),
        Some("2009-12-17T15:46:52-08:00")
    );
    let k = &m.kind;
    assert_eq!(
        (k.prefix, k.quantity, k.direction, k.size, k.basis),
        (
            MetricPrefix::CellDisk,
            Quantity::Bytes,
            Some(Direction::Read),
            Some(BlockSize::Large),
            Basis::Cumulative
        )
    );
    assert_eq!(items[1].value, 1.0);
}

#[test]
fn the_books_flash_cache_listing() {
    let items = metrics("book-flashcache.txt");
    let got: Vec<(&str, f64, &str)> = items
        .iter()
        .map(|m| (m.name.as_str(), m.value, m.unit.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("FC_BY_USED", 365_322.0, "MB"),
            ("FC_IO_BY_R_SEC", 21.193, "MB/sec"),
            ("FC_IO_ERRS", 0.0, ""),
            ("FC_IO_RQ_R", 6_638_504_145.0, "IO requests"),
            ("FC_IO_RQ_R_MISS_SEC", 28.5, "IO/sec"),
            ("FC_IO_RQ_R_SEC", 2688.0, "IO/sec"),
        ]
    );
    let cells = CellSummary::from_parts(&[], &items);
    // 2688 / (2688 + 28.5) = 98.9508…%
    assert_close(
        cells[0].totals.flash_cache().get(FlashCacheCol::HitPct),
        98.950_855_880_728_88,
    );
    assert_close(
        cells[0].totals.flash_cache().get(FlashCacheCol::RMbPerS),
        21.193,
    );
}

#[test]
fn the_remote_script_through_dcli_repeats_its_sections() {
    // reconstructed: two cells, the second one's cellcli refuses to run
    let text = "\
c1: @@celldisk
c1:          CD_00_c1     /dev/sda     HardDisk
c1:          FD_00_c1     /dev/nvme0n1 FlashDisk
c1: @@metriccurrent
c1:          CD_IO_RQ_R_SM_SEC        CD_00_c1        12.0 IO/sec
c1:          CD_IO_RQ_R_SM_SEC        FD_00_c1        1,200 IO/sec
c2: @@celldisk
c2:          PM_00_c2     /dev/dax0.0  PMEM
c2:          CD_00_c2     /dev/sda
c2: @@metriccurrent
c2: CELL-01514: Connect Error. Verify that Management Server is listening at the specified HTTP port: 8888.
";
    let r = parse_cellcli_report(text);
    assert_eq!(r.celldisks.items.len(), 3);
    assert_eq!(
        r.celldisks.items[2].disk_type,
        CellDiskType::Other("PMEM".into())
    );
    assert_eq!(r.celldisks.rejected.len(), 1);
    assert_eq!(
        r.celldisks.rejected[0].line_no, 9,
        "counted over the whole text"
    );
    assert!(r.celldisks.rejected[0].expected.contains("found 2 words"));
    assert_eq!(r.metrics.items.len(), 2);
    assert_eq!(r.metrics.rejected.len(), 1);
    let e = &r.metrics.rejected[0];
    assert_eq!(e.line_no, 11);
    assert!(e.to_string().contains("cellcli printed an error"), "{e}");
    let cells = CellSummary::from_report(&r);
    assert_eq!(cells.len(), 2);
    assert_eq!(cells[0].disks[1].device.as_deref(), Some("/dev/nvme0n1"));
    // c2's PMEM disk is in neither total, and its CD_00 line was rejected
    assert_eq!(cells[1].disks.len(), 1);
    assert_eq!(
        (cells[1].totals.hard_disks, cells[1].totals.flash_disks),
        (0, 0)
    );
    assert_eq!(cells[1].disks[0].media, Media::Other);
    assert_eq!(
        cells[1].totals.group(Media::Disk).get(CellDiskCol::RPerS),
        None
    );
    // c1 alone: 1200 / (1200 + 12)
    assert_close(
        cells[0].totals.shares().read_pct_from_flash,
        1200.0 / 1212.0 * 100.0,
    );
}

#[test]
fn a_missing_section_is_named_not_a_panic() {
    let r = parse_cellcli_report("@@celldisk\nCD_00_c /dev/sda HardDisk\n");
    assert_eq!(r.celldisks.items.len(), 1);
    assert!(r.celldisks.rejected.is_empty());
    assert_eq!(r.metrics.rejected.len(), 1);
    let e = &r.metrics.rejected[0];
    assert!(e.expected.contains("@@metriccurrent"), "{e}");
    assert_eq!(e.line_no, 3, "after the last line");

    let r = parse_cellcli_report("Last login: Mon Jun 24 14:40:11 2013\n");
    assert_eq!(r.stray.len(), 1);
    assert_eq!(r.celldisks.rejected.len(), 1);
    assert_eq!(r.metrics.rejected.len(), 1);
    let r = parse_cellcli_report("");
    assert_eq!(
        (r.celldisks.rejected.len(), r.metrics.rejected.len()),
        (1, 1)
    );
}

#[test]
fn one_bad_line_never_hides_the_others() {
    let text = "\
   FC_IO_RQ_R_SEC        FLASHCACHE   2,688 IO/sec
   FC_IO_RQ_R_MISS_SEC   FLASHCACHE   28,5 IO/sec
   FC_IO_BY_R_SEC        FLASHCACHE
   fc_io_rq_w_sec        FLASHCACHE   1 IO/sec
   N_MB_SENT_SEC         CELL         -0.25 MB/sec
";
    let p = parse_metriccurrent(text, "pasted");
    assert_eq!(p.items.len(), 2);
    assert_eq!(p.items[1].value, -0.25, "a negative value parses");
    let lines: Vec<usize> = p.rejected.iter().map(|e| e.line_no).collect();
    assert_eq!(lines, [2, 3, 4]);
    assert!(
        p.rejected[0].expected.contains("6,638,504,145"),
        "{}",
        p.rejected[0]
    );
    assert!(
        p.rejected[1].expected.contains("a value"),
        "{}",
        p.rejected[1]
    );
    assert!(
        p.rejected[2]
            .to_string()
            .starts_with("pasted line 4: expected name")
    );
    // the summary takes no figure from a negative rate
    let s = CellSummary::from_parts(&[], &p.items);
    assert_eq!(s[0].totals.flash_cache().get(FlashCacheCol::HitPct), None);
}

#[test]
fn detail_blocks_through_dcli_and_incomplete_ones() {
    // reconstructed from the documentation's DETAIL layout
    let text = "\
c1:          name:                   FC_IO_RQ_R_SEC
c1:          alertState:             normal
c1:          collectionTime:         2024-03-15T14:00:05+01:00
c1:          metricObjectName:       FLASHCACHE
c1:          metricType:             Rate
c1:          metricValue:            2,688 IO/sec
c1:          objectType:             FLASHCACHE
c1:          metricValueMax:         3,001 IO/sec

c1:          name:                   FC_IO_RQ_R_MISS_SEC
c1:          metricValue:            28.5 IO/sec
c2:          name:                   FC_BY_USED
c2:          metricObjectName:       FLASHCACHE
c2:          metricValue:            1,2 MB
         name:                   CL_FANS
         metricObjectName:       c3
         metricValue:            12
         futureAttribute:        whatever
";
    let p = parse_metriccurrent(text, "detail");
    let got: Vec<(Option<&str>, &str, f64)> = p
        .items
        .iter()
        .map(|m| (m.cell.as_deref(), m.name.as_str(), m.value))
        .collect();
    assert_eq!(
        got,
        [
            (Some("c1"), "FC_IO_RQ_R_SEC", 2688.0),
            (None, "CL_FANS", 12.0)
        ]
    );
    assert_eq!(
        p.items[0].collection_time.as_deref(),
        Some("2024-03-15T14:00:05+01:00")
    );
    // the MISS block lacks its object; c2's value is malformed
    let lines: Vec<usize> = p.rejected.iter().map(|e| e.line_no).collect();
    assert_eq!(lines, [10, 14], "{:?}", p.rejected);
    assert!(p.rejected[0].expected.contains("metricObjectName"));
}

#[test]
fn cell_disks_with_and_without_dcli() {
    let text = "\
CellCLI> list celldisk attributes name,deviceName,diskType
\t CD_00_cel01\t /dev/sda\t HardDisk
cel02: FD_00_cel02  /dev/nvme0n1  FlashDisk
";
    let p = parse_celldisk(text, "celldisk");
    assert!(p.rejected.is_empty(), "{:?}", p.rejected);
    assert_eq!(p.items[0].cell, None);
    assert_eq!(p.items[0].disk_type, CellDiskType::HardDisk);
    assert_eq!(p.items[1].cell.as_deref(), Some("cel02"));
    assert_eq!(p.items[1].device, "/dev/nvme0n1");
}

#[test]
fn column_tables_are_in_enum_order() {
    for (i, d) in CELL_DISK_COLS.iter().enumerate() {
        assert_eq!(d.col as usize, i, "{}", d.header);
    }
    for (i, d) in FLASH_CACHE_COLS.iter().enumerate() {
        assert_eq!(d.col as usize, i, "{}", d.header);
    }
    assert_eq!(CellDiskCol::RAwait.def().header, "r_await");
}

fn grouped(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn metric_line() -> impl Strategy<Value = String> {
    let known = prop::sample::select(vec![
        "CD_IO_RQ_R_SM_SEC",
        "CD_IO_RQ_W_LG_SEC",
        "CD_IO_BY_R_LG_SEC",
        "CD_IO_TM_W_SM_RQ",
        "CD_IO_RQ_R_SCRUB_SEC",
        "FC_IO_RQ_R_SEC",
        "FC_IO_RQ_R_MISS_SEC",
        "FC_IO_BY_W_SEC",
    ])
    .prop_map(String::from);
    let name = prop_oneof![known, "[A-Z]{1,3}(_[A-Z]{1,4}){0,4}"];
    let object = prop_oneof!["(CD|FD|PM)_0[0-3]_c[12]", "FLASHCACHE", "[a-z0-9:]{1,6}"];
    let value = prop_oneof![
        (0u64..u64::MAX).prop_map(grouped),
        (-1e6f64..1e6).prop_map(|v| format!("{v:.3}")),
        "[-0-9.,]{1,8}",
    ];
    let unit = prop::sample::select(vec![
        "",
        "IO/sec",
        "MB/sec",
        "KB/sec",
        "us/request",
        "IO requests",
        "%",
    ]);
    let prefix = prop::sample::select(vec!["", "c1: ", "c2: "]);
    (prefix, name, object, value, unit)
        .prop_map(|(p, n, o, v, u)| format!("{p}  {n}  {o}  {v} {u}"))
}

fn assert_sane(x: Option<f64>, what: &str) -> Result<(), TestCaseError> {
    if let Some(v) = x {
        prop_assert!(v.is_finite() && v >= 0.0, "{what} = {v}");
    }
    Ok(())
}

fn check_figures(cells: &[CellSummary]) -> Result<(), TestCaseError> {
    let all = CellTotals::sum(cells.iter().map(|c| &c.totals));
    for t in cells.iter().map(|c| &c.totals).chain([&all]) {
        for media in [Media::Disk, Media::Flash] {
            for d in &CELL_DISK_COLS {
                assert_sane(t.group(media).get(d.col), d.header)?;
            }
        }
        for d in &FLASH_CACHE_COLS {
            assert_sane(t.flash_cache().get(d.col), d.header)?;
        }
        let hit = t.flash_cache().get(FlashCacheCol::HitPct);
        prop_assert!(hit.is_none_or(|h| h <= 100.0));
        check_shares(&t.shares())?;
    }
    for d in cells.iter().flat_map(|c| &c.disks) {
        for c in &CELL_DISK_COLS {
            assert_sane(d.figures.get(c.col), c.header)?;
        }
    }
    Ok(())
}

fn check_shares(s: &Shares) -> Result<(), TestCaseError> {
    for d in &SHARE_COLS {
        assert_sane(s.get(d.col), d.header)?;
    }
    prop_assert!(s.read_pct_from_flash.is_none_or(|p| p <= 100.0));
    prop_assert!(s.write_pct_to_flash.is_none_or(|p| p <= 100.0));
    Ok(())
}

proptest! {
    #[test]
    fn parsers_never_panic(text in "\\PC{0,600}") {
        let p = parse_metriccurrent(&text, "m");
        prop_assert!(p.rejected.iter().all(|e| e.line_no >= 1));
        let d = parse_celldisk(&text, "d");
        prop_assert!(d.rejected.iter().all(|e| e.line_no >= 1));
        let r = parse_cellcli_report(&text);
        check_figures(&CellSummary::from_report(&r))?;
        check_figures(&CellSummary::from_parts(&d.items, &p.items))?;
    }

    #[test]
    fn near_miss_sections_never_panic(
        lines in prop::collection::vec(prop_oneof![
            Just("@@celldisk".to_string()),
            Just("@@metriccurrent".to_string()),
            Just("c1: @@metriccurrent".to_string()),
            Just(String::new()),
            "(c1: )?(name|metricValue|metricObjectName|fooBar): [A-Z_0-9, .]{0,12}",
            "(CD|FD)_0[0-3]_c1 /dev/sd[a-c]( HardDisk| FlashDisk)?",
            metric_line(),
        ], 0..40)
    ) {
        let text = lines.join("\n");
        let r = parse_cellcli_report(&text);
        let n = text.lines().count();
        for e in r.celldisks.rejected.iter().chain(&r.metrics.rejected).chain(&r.stray) {
            prop_assert!(e.line_no >= 1 && e.line_no <= n + 1);
        }
        check_figures(&CellSummary::from_report(&r))?;
    }

    #[test]
    fn figures_are_never_negative_or_nan(lines in prop::collection::vec(metric_line(), 0..60)) {
        let p = parse_metriccurrent(&lines.join("\n"), "m");
        prop_assert_eq!(p.items.len() + p.rejected.len(), lines.len());
        for m in &p.items {
            prop_assert!(m.value.is_finite());
        }
        check_figures(&CellSummary::from_parts(&[], &p.items))?;
    }

    #[test]
    fn grouped_values_read_back(v in 0u64..(1 << 53), frac in 0u32..1000) {
        let line = format!("CD_IO_RQ_R_SM_SEC CD_00_c {}.{frac:03} IO/sec", grouped(v));
        let p = parse_metriccurrent(&line, "m");
        prop_assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        let want: f64 = format!("{v}.{frac:03}").parse().unwrap();
        prop_assert_eq!(p.items[0].value, want);
    }

    #[test]
    fn shares_of_any_rates_stay_in_range(
        rates in prop::array::uniform4(prop_oneof![
            any::<f64>(), 0.0..1e7, Just(0.0), Just(f64::NAN), Just(f64::INFINITY)
        ]),
        disks in 0usize..200,
    ) {
        let s = Shares::from_iops(rates[0], rates[1], rates[2], rates[3], disks);
        check_shares(&s)?;
    }
}

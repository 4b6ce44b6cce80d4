//! `strata batch disks`: iostat -x figures per device per interval.
//!
//! Text follows `iostat -x -d -y` (sysstat 12.6): the same header, column
//! order, widths and two decimals, so the two can be read side by side.
//! Figures the kernel does not provide (discard before 4.18, flush before
//! 5.5) print as "–" where iostat prints 0.00. Devices are named as iostat
//! -x names them (dm-0), or by their mapper names with `-N`, as iostat -N.

use super::model::{DISK_COLS, DiskCol};
use super::source::DiskSource;
use super::tick::Baseline;
use super::tick::{DiskRow, DiskTick};
use crate::format::{self, UNKNOWN};
use crate::layers::LayerId;
use crate::layers::col::Units;
use crate::layers::report::{
    Format, csv_field, csv_stamp, figure, host_report, json_opt, json_stamp, json_str, printable,
    row_itv,
};
use std::fmt::Write as _;

/// Which devices a report lists, and by which names.
#[derive(Debug, Clone, Copy, Default)]
pub struct Selection {
    pub partitions: bool,
    /// Also loop, ram and zram devices, and devices never used since boot.
    pub all_devices: bool,
    /// dm devices by their /dev/mapper name (iostat -N), not as dm-N.
    pub mapper_names: bool,
}

impl Selection {
    fn name<'a>(&self, r: &'a DiskRow) -> &'a str {
        if self.mapper_names {
            r.display_name()
        } else {
            &r.name
        }
    }
}

/// The rows of a report: by name, as iostat lists them.
pub fn report_rows(tick: &DiskTick, sel: Selection) -> Vec<&DiskRow> {
    let mut rows: Vec<&DiskRow> = tick
        .rows
        .iter()
        .filter(|r| sel.partitions || !r.is_partition())
        .filter(|r| sel.all_devices || (!r.class().skipped_by_default() && !r.never_used))
        .collect();
    // iostat lists devices in the order of their sysfs names, which spell
    // a '/' (cciss/c0d0) as '!'.
    rows.sort_by_cached_key(|r| r.name.replace('/', "!"));
    rows
}

/// Field widths of iostat's `" %*.2f"` per column.
fn width(c: DiskCol) -> usize {
    use DiskCol::*;
    match c {
        RPerS | WPerS | DPerS | FPerS | RAwait | WAwait | DAwait | FAwait | AquSz => 7,
        RkBPerS | WkBPerS | DkBPerS => 9,
        RrqmPerS | WrqmPerS | DrqmPerS | RareqSz | WareqSz | DareqSz => 8,
        RrqmPct | WrqmPct | DrqmPct | Util => 6,
    }
}

/// A figure as the reports print it: known and finite, in `units`.
fn value(r: &DiskRow, c: DiskCol, units: Units) -> Option<f64> {
    Some(units.scale(c, r.rates.and_then(|x| x.get(c))?)).filter(|v| v.is_finite())
}

/// The header line of a text report.
pub fn text_header(units: Units) -> String {
    let mut s = String::from("Device       ");
    for c in &DISK_COLS {
        let _ = write!(s, " {:>w$}", units.header(c.col), w = width(c.col));
    }
    s
}

/// One text report: timestamp, header, a row per device, a blank line.
pub fn text_report(tick: &DiskTick, sel: Selection, units: Units) -> String {
    let mut s = format!(
        "{}\n{}\n",
        format::iso_datetime(tick.wall_ms),
        text_header(units)
    );
    for r in report_rows(tick, sel) {
        let _ = write!(s, "{:<13}", printable(sel.name(r)));
        for c in &DISK_COLS {
            let w = width(c.col);
            match value(r, c.col, units) {
                Some(v) => {
                    let _ = write!(s, " {v:>w$.2}");
                }
                None => {
                    let _ = write!(s, " {UNKNOWN:>w$}");
                }
            }
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

/// One JSON object per device, with iostat's keys; unknown figures are null.
pub fn json_report(tick: &DiskTick, sel: Selection, units: Units) -> String {
    let mut s = String::new();
    for r in report_rows(tick, sel) {
        let stamp = json_stamp(tick.wall_ms, row_itv(tick.itv_cs, r.delta.as_ref()));
        let _ = write!(
            s,
            "{{{stamp}, \"disk_device\": {}, \"name\": {}, \"class\": {}",
            json_str(sel.name(r)),
            json_str(r.display_name()),
            json_str(r.class().label()),
        );
        // iostat's key order: r/s w/s d/s f/s, then kB/s, merges, %merged, awaits, sizes
        use DiskCol::*;
        let order = [
            RPerS, WPerS, DPerS, FPerS, RkBPerS, WkBPerS, DkBPerS, RrqmPerS, WrqmPerS, DrqmPerS,
            RrqmPct, WrqmPct, DrqmPct, RAwait, WAwait, DAwait, FAwait, RareqSz, WareqSz, DareqSz,
            AquSz, Util,
        ];
        for c in order {
            let key = match (units, c.def().kind) {
                (Units::MB, crate::layers::col::ColKind::Throughput) => c.def().header_mb(),
                _ => c.def().json_key,
            };
            let v = value(r, c, units);
            let _ = write!(s, ", \"{key}\": {}", json_opt(figure(v)));
        }
        let _ = writeln!(s, ", \"reset\": {}}}", r.reset);
    }
    s
}

pub fn csv_header(units: Units) -> String {
    let mut s = String::from("timestamp,interval_s,device,name,class");
    for c in &DISK_COLS {
        s.push(',');
        s.push_str(units.header(c.col));
    }
    s.push_str(",reset");
    s
}

/// CSV lines, one per device; unknown figures are empty fields.
pub fn csv_report(tick: &DiskTick, sel: Selection, units: Units) -> String {
    let mut s = String::new();
    for r in report_rows(tick, sel) {
        let stamp = csv_stamp(tick.wall_ms, row_itv(tick.itv_cs, r.delta.as_ref()));
        let _ = write!(
            s,
            "{stamp},{},{},{}",
            csv_field(&printable(&r.name)),
            csv_field(&printable(r.display_name())),
            r.class().label()
        );
        for c in &DISK_COLS {
            let v = value(r, c.col, units);
            let _ = write!(s, ",{}", figure(v).unwrap_or_default());
        }
        let _ = writeln!(s, ",{}", r.reset);
    }
    s
}

pub fn report(format: Format, tick: &DiskTick, sel: Selection, units: Units) -> String {
    match format {
        Format::Text => text_report(tick, sel, units),
        Format::Json => json_report(tick, sel, units),
        Format::Csv => csv_report(tick, sel, units),
    }
}

/// `strata batch disks`: iostat -x.
pub struct DiskReport {
    pub source: DiskSource,
    pub baseline: Baseline,
    pub format: Format,
    pub units: Units,
    pub sel: Selection,
}

impl DiskReport {
    pub fn new(source: DiskSource, format: Format, units: Units, sel: Selection) -> Self {
        DiskReport {
            source,
            baseline: Baseline::default(),
            format,
            units,
            sel,
        }
    }
}

host_report!(
    DiskReport,
    LayerId::Disks,
    csv_header: |me| csv_header(me.units),
    report: |me, tick| report(me.format, &tick, me.sel, me.units),
);

#[cfg(test)]
mod tests {
    use super::*;

    /// A device whose line was rejected in one sample is diffed over two
    /// intervals: its row says so, in JSON and CSV alike.
    #[test]
    fn a_row_after_a_skipped_line_says_the_interval_its_rates_span() {
        use crate::layers::disks::diskstats::DiskCounters;
        use crate::layers::disks::source::DiskSample;
        use crate::layers::disks::tick::Baseline;
        let sample = |uptime_cs: u64, names: &[&str]| DiskSample {
            uptime_cs,
            wall_ms: uptime_cs as i64 * 10,
            devices: names
                .iter()
                .map(|n| DiskCounters {
                    name: (*n).into(),
                    rd_ios: uptime_cs,
                    ..Default::default()
                })
                .collect(),
            rejected: Vec::new(),
            catalogue: Default::default(),
        };
        let mut b = Baseline::default();
        b.tick(&sample(1000, &["sda", "sdb"]));
        b.tick(&sample(1100, &["sdb"]));
        let t = b.tick(&sample(1200, &["sda", "sdb"]));
        let sel = Selection {
            all_devices: true,
            ..Selection::default()
        };
        let json = json_report(&t, sel, Units::KB);
        let csv = csv_report(&t, sel, Units::KB);
        assert!(json.starts_with("{\"timestamp\"") && json.contains("\"name\": \"sda\""));
        let (json_itv, csv_itv) = crate::layers::report::stamped_intervals(&json, &csv);
        assert_eq!(json_itv, ["2.00", "1.00"], "sda then sdb: {json}");
        assert_eq!(csv_itv, ["2.00", "1.00"], "{csv}");
    }

    #[test]
    fn header_is_iostats() {
        assert_eq!(
            text_header(Units::KB),
            "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util"
        );
        assert!(text_header(Units::MB).contains("     rMB/s"));
    }

    #[test]
    fn control_characters_in_names_print_as_question_marks() {
        let evil = "vg-\u{1b}[2J\nx\r\u{7f}\u{85}é";
        let tick = DiskTick {
            rows: vec![DiskRow::named(evil)],
            ..DiskTick::default()
        };
        let sel = Selection::default();
        let text = text_report(&tick, sel, Units::KB);
        let row = text.lines().nth(2).unwrap_or_default();
        assert!(row.starts_with("vg-?[2J?x???é "), "{text:?}");
        // timestamp, header, the row, the blank line that ends a report
        assert_eq!(text.lines().count(), 4, "{text:?}");

        let csv = csv_report(&tick, sel, Units::KB);
        assert_eq!(csv.lines().count(), 1, "{csv:?}");
        assert!(csv.contains(",vg-?[2J?x???é,vg-?[2J?x???é,"), "{csv:?}");

        // JSON keeps the name exact: serde_json escapes it.
        let json = json_report(&tick, sel, Units::KB);
        let value: serde_json::Value = serde_json::from_str(json.trim_end()).unwrap();
        assert_eq!(value["disk_device"], evil);
        assert!(!json.trim_end().contains(['\n', '\u{1b}']), "{json:?}");
    }

    #[test]
    fn printable_leaves_ordinary_names_alone() {
        assert!(matches!(
            printable("dm-0"),
            std::borrow::Cow::Borrowed("dm-0")
        ));
        assert_eq!(printable("vg0-lv_data\t"), "vg0-lv_data?");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }
}

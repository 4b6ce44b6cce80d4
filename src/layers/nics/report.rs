//! `strata batch nics`: nicstat figures per interface per interval.
//!
//! Text follows nicstat 1.95's default Linux output (`print_stats`,
//! STYLE_FULL): the same header, widths and magnitude-dependent decimals
//! (`precision()`: 2 below 100, 1 below 100000, else 0; `precision4()` for
//! %Util: 2 below 10, 1 below 100, else 0). Unknown figures print as "–"
//! where nicstat prints 0.00 or garbage (layers::nics::model says when). The header
//! heads every report (nicstat repeats it every report when it shows more
//! than one interface), and a bond's warnings follow the rows, one per
//! line: `time  bond0 ! slave eth1: MII status down`.
//!
//! JSON lines and CSV carry every figure at full precision, with the
//! interface's kind, link and, for a bond, its mode, slaves and warnings.

use super::bond::BondRow;
use super::model::{NIC_COLS, NicCol};
use super::source::NicSource;
use super::tick::{NicBaseline, NicRow, NicTick};
use crate::format::{self, UNKNOWN};
use crate::layers::LayerId;
use crate::layers::report::host_report;
use crate::layers::report::{
    Format, csv_stamp, figure, json_opt, json_stamp, json_str, printable, row_itv,
};
use std::fmt::Write as _;

/// nicstat's `precision()`: decimals by magnitude.
pub fn precision(v: f64) -> usize {
    if v < 100.0 {
        2
    } else if v < 100_000.0 {
        1
    } else {
        0
    }
}

/// nicstat's `precision4()`, for %Util and its parts.
pub fn precision4(v: f64) -> usize {
    if v < 10.0 {
        2
    } else if v < 100.0 {
        1
    } else {
        0
    }
}

/// The text columns: nicstat's eight, with their printf widths.
const TEXT_COLS: [(NicCol, usize); 8] = [
    (NicCol::RKbPerS, 7),
    (NicCol::WKbPerS, 7),
    (NicCol::RPkPerS, 7),
    (NicCol::WPkPerS, 7),
    (NicCol::RAvs, 7),
    (NicCol::WAvs, 7),
    (NicCol::Util, 5),
    (NicCol::Sat, 6),
];

/// The rows of a report, in /proc/net/dev order (nicstat's).
pub fn report_rows(tick: &NicTick, all_devices: bool) -> Vec<&NicRow> {
    tick.rows.iter().filter(|r| r.shown(all_devices)).collect()
}

fn value(r: &NicRow, c: NicCol) -> Option<f64> {
    r.rates?.get(c).filter(|v| v.is_finite())
}

pub fn text_header() -> String {
    let mut s = format!("{:>8} {:>8}", "Time", "Int");
    for (c, w) in TEXT_COLS {
        let _ = write!(s, " {:>w$}", c.def().header);
    }
    s
}

/// A figure as nicstat prints it in a field of `w`.
fn cell(v: Option<f64>, c: NicCol, w: usize) -> String {
    match v {
        Some(v) => {
            let p = if c == NicCol::Util {
                precision4(v)
            } else {
                precision(v)
            };
            format!("{v:>w$.p$}")
        }
        None => format!("{UNKNOWN:>w$}"),
    }
}

pub fn text_report(tick: &NicTick, all_devices: bool) -> String {
    let time = format::local_time(tick.wall_ms);
    let mut s = text_header();
    s.push('\n');
    for r in report_rows(tick, all_devices) {
        let _ = write!(s, "{time} {:>8}", printable(&r.name));
        for (c, w) in TEXT_COLS {
            s.push(' ');
            s.push_str(&cell(value(r, c), c, w));
        }
        s.push('\n');
    }
    for b in tick.bonds() {
        for w in &b.warnings {
            let _ = writeln!(
                s,
                "{time} {:>8} ! {}",
                printable(b.name()),
                printable(&w.to_string())
            );
        }
    }
    s
}

fn json_bond(b: &BondRow) -> String {
    let i = &b.info;
    let opt_str = |v: &Option<String>| json_opt(v.as_deref().map(json_str));
    let mut s = format!(
        "{{\"mode\": {}, \"mii_status\": {}, \"active_slave\": {}, \"primary\": {}, \"xmit_hash_policy\": {}, \"driver_version\": {}, \"slaves\": [",
        json_opt(i.mode.map(|m| json_str(m.label()))),
        json_opt(i.mii_status.map(|m| json_str(m.label()))),
        opt_str(&i.active_slave),
        opt_str(&i.primary),
        opt_str(&i.xmit_hash_policy),
        opt_str(&i.driver_version),
    );
    for (k, sl) in b.slaves.iter().enumerate() {
        let x = &sl.slave;
        let _ = write!(
            s,
            "{}{{\"name\": {}, \"active\": {}, \"mii_status\": {}, \"speed_mbps\": {}, \"duplex\": {}, \"link_failures\": {}, \"failures_since_start\": {}, \"aggregator_id\": {}}}",
            if k > 0 { ", " } else { "" },
            json_str(&x.name),
            sl.active,
            json_opt(x.mii_status.map(|m| json_str(m.label()))),
            json_opt(x.speed_mbps),
            json_opt(x.duplex.map(|d| json_str(d.label()))),
            json_opt(x.link_failure_count),
            json_opt(sl.failures_since_start),
            json_opt(x.aggregator_id),
        );
    }
    s.push_str("], \"warnings\": [");
    for (k, w) in b.warnings.iter().enumerate() {
        let _ = write!(
            s,
            "{}{{\"kind\": {}, \"slave\": {}, \"text\": {}}}",
            if k > 0 { ", " } else { "" },
            json_str(w.key()),
            json_opt(w.slave().map(json_str)),
            json_str(&w.to_string())
        );
    }
    s.push_str("]}");
    s
}

/// One JSON object per interface; unknown figures are null.
pub fn json_report(tick: &NicTick, all_devices: bool) -> String {
    let mut s = String::new();
    for r in report_rows(tick, all_devices) {
        let stamp = json_stamp(tick.wall_ms, row_itv(tick.itv_cs, r.delta.as_ref()));
        let info = r.info.as_deref();
        let _ = write!(
            s,
            "{{{stamp}, \"interface\": {}, \"kind\": {}, \"operstate\": {}, \"speed_mbps\": {}, \"duplex\": {}, \"mtu\": {}, \"master\": {}, \"reset\": {}",
            json_str(&r.name),
            json_str(r.kind().label()),
            json_str(r.link().operstate.label()),
            json_opt(r.link().speed_mbps),
            json_str(r.link().duplex.label()),
            json_opt(info.and_then(|i| i.mtu)),
            json_opt(info.and_then(|i| i.master.as_deref()).map(json_str)),
            r.reset,
        );
        for c in &NIC_COLS {
            let _ = write!(
                s,
                ", \"{}\": {}",
                c.json_key,
                json_opt(figure(value(r, c.col)))
            );
        }
        if let Some(b) = tick.bonds().iter().find(|b| b.name() == r.name) {
            let _ = write!(s, ", \"bond\": {}", json_bond(b));
        }
        s.push_str("}\n");
    }
    s
}

pub fn csv_header() -> String {
    let mut s = String::from(
        "timestamp,interval_s,interface,kind,operstate,speed_mbps,duplex,mtu,master,reset",
    );
    for c in &NIC_COLS {
        s.push(',');
        s.push_str(c.json_key);
    }
    s.push_str(",warnings");
    s
}

/// Text in a CSV field, always quoted: interface names may hold ',' or '"'.
fn quoted(s: &str) -> String {
    format!("\"{}\"", printable(s).replace('"', "\"\""))
}

/// CSV lines, one per interface; unknown figures are empty fields. A bond's
/// warnings are one field, separated by "; ".
pub fn csv_report(tick: &NicTick, all_devices: bool) -> String {
    let mut s = String::new();
    let opt = |v: Option<String>| v.unwrap_or_default();
    for r in report_rows(tick, all_devices) {
        let stamp = csv_stamp(tick.wall_ms, row_itv(tick.itv_cs, r.delta.as_ref()));
        let info = r.info.as_deref();
        let _ = write!(
            s,
            "{stamp},{},{},{},{},{},{},{},{}",
            quoted(&r.name),
            r.kind().label(),
            r.link().operstate.label(),
            opt(r.link().speed_mbps.map(|v| v.to_string())),
            r.link().duplex.label(),
            opt(info.and_then(|i| i.mtu).map(|v| v.to_string())),
            opt(info.and_then(|i| i.master.as_deref()).map(quoted)),
            r.reset,
        );
        for c in &NIC_COLS {
            // Unrounded: nicstat prints one to no decimals by magnitude,
            // and tests/figures/nicstat.rs holds the text to these figures
            // rounded once.
            let _ = write!(s, ",{}", opt(value(r, c.col).map(|v| v.to_string())));
        }
        let warnings = tick
            .bonds()
            .iter()
            .find(|b| b.name() == r.name)
            .map(|b| b.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>());
        let _ = writeln!(s, ",{}", opt(warnings.map(|w| quoted(&w.join("; ")))));
    }
    s
}

pub fn report(format: Format, tick: &NicTick, all_devices: bool) -> String {
    match format {
        Format::Text => text_report(tick, all_devices),
        Format::Json => json_report(tick, all_devices),
        Format::Csv => csv_report(tick, all_devices),
    }
}

/// `strata batch nics`: nicstat.
pub struct NicReport {
    pub source: NicSource,
    pub baseline: NicBaseline,
    pub format: Format,
    /// Also interfaces that have never seen a packet.
    pub all_devices: bool,
}

impl NicReport {
    pub fn new(source: NicSource, format: Format, all_devices: bool) -> Self {
        NicReport {
            source,
            baseline: NicBaseline::default(),
            format,
            all_devices,
        }
    }
}

host_report!(
    NicReport,
    LayerId::Nics,
    csv_header: |_| csv_header(),
    report: |me, tick| report(me.format, &tick, me.all_devices),
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rootfs::RootFs;
    use crate::layers::nics::model::NicRates;
    use crate::layers::report::Report;

    fn row(name: &str, rates: Option<NicRates>) -> NicRow {
        NicRow {
            rates,
            ..NicRow::named(name)
        }
    }

    #[test]
    fn header_is_nicstats() {
        assert_eq!(
            text_header(),
            "    Time      Int   rKB/s   wKB/s   rPk/s   wPk/s    rAvs    wAvs %Util    Sat"
        );
    }

    #[test]
    fn decimals_follow_the_magnitude_as_in_nicstat() {
        // the Solaris capture of the shared fixtures:
        // "15:32:11    nxge1  392926 13382.1 95214.4 95161.8  4225.8   144.0  33.3   0.00"
        let mut v = NicRates::default();
        for (c, x) in [
            (NicCol::RKbPerS, 392926.0),
            (NicCol::WKbPerS, 13382.1),
            (NicCol::RPkPerS, 95214.4),
            (NicCol::WPkPerS, 95161.8),
            (NicCol::RAvs, 4225.8),
            (NicCol::WAvs, 144.0),
            (NicCol::Util, 33.3),
            (NicCol::Sat, 0.0),
        ] {
            v.set(c, Some(x));
        }
        let tick = NicTick {
            rows: vec![row("nxge1", Some(v)), row("e\u{1b}[2J", None)],
            ..Default::default()
        };
        let text = text_report(&tick, false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            &lines[1][8..],
            "    nxge1  392926 13382.1 95214.4 95161.8  4225.8   144.0  33.3   0.00"
        );
        assert_eq!(
            &lines[2][8..],
            "    e?[2J       –       –       –       –       –       –     –      –"
        );
    }

    /// A host whose bond2 runs on eth3 although eth2 is the primary (the
    /// v3.7.1 fixture), sampled twice one second apart; the report of each
    /// format over that second.
    fn bond_host_reports() -> [String; 3] {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let put = |rel: &str, text: &str| {
            let p = r.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        let bonding = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/bonding/bond2-active-backup-v3.7.1.txt"
        );
        put(
            "proc/net/bonding/bond2",
            &std::fs::read_to_string(bonding).unwrap(),
        );
        for (n, speed) in [("eth2", "-1"), ("eth3", "10000"), ("bond2", "10000")] {
            put(&format!("sys/class/net/{n}/speed"), speed);
            put(&format!("sys/class/net/{n}/duplex"), "full");
        }
        std::fs::create_dir_all(r.join("sys/class/net/eth3/device")).unwrap();
        std::fs::create_dir_all(r.join("sys/class/net/bond2/bonding")).unwrap();
        let dev = |k: u64| {
            format!(
                "Inter-| x\n face | y\n  eth2: 0 5 0 0 0 0 0 0 0 5 0 0 0 0 0 0\n  eth3: {} {} 0 {} 0 0 0 0 {} {} 0 0 0 0 0 0\n bond2: {} {} 0 {} 0 0 0 0 {} {} 0 0 0 0 0 0\n",
                k * 125_000_000,
                k * 100_000,
                k * 3,
                k * 1_250_000,
                k * 1000,
                k * 125_000_000,
                k * 100_000,
                k * 3,
                k * 1_250_000,
                k * 1000
            )
        };
        std::array::from_fn(|i| {
            let format = [Format::Text, Format::Json, Format::Csv][i];
            let mut report = NicReport::new(NicSource::new(RootFs::new(r)), format, false);
            put("proc/uptime", "100.00 0.00");
            put("proc/net/dev", &dev(1));
            assert!(report.sample(0).unwrap().report.is_none());
            put("proc/uptime", "101.00 0.00");
            put("proc/net/dev", &dev(2));
            report.sample(1000).unwrap().report.unwrap()
        })
    }

    #[test]
    fn bond_warnings_in_every_format_and_json_equals_csv() {
        let [text, json, csv] = bond_host_reports();
        // eth3 read 1 Gbit/s of its 10: %Util 10.0; eth2 sent nothing new
        assert!(
            text.contains(
                "    eth3  122070  1220.7  100000  1000.0  1250.0  1250.0  10.0   3.00\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "    eth2    0.00    0.00    0.00    0.00    0.00    0.00     –   0.00\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with("   bond2 ! slave eth2: MII status down\n"),
            "{text}"
        );
        assert!(
            text.contains("   bond2 ! active slave eth3 is not the primary eth2\n"),
            "{text}"
        );
        let rows: Vec<serde_json::Value> = json
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 3);
        let bond = &rows[2]["bond"];
        assert_eq!(bond["mode"], "active-backup");
        assert_eq!(bond["warnings"][0]["kind"], "active_not_primary");
        assert_eq!(bond["warnings"][1]["slave"], "eth2");
        assert_eq!(bond["slaves"][1]["active"], true);
        assert_eq!(rows[1]["kind"], "physical");
        assert_eq!(rows[1]["speed_mbps"], 10000);
        assert!(rows[0]["Util"].is_null(), "eth2's speed is -1");
        assert!(csv.lines().nth(2).unwrap().ends_with(
            ",\"active slave eth3 is not the primary eth2; slave eth2: MII status down\""
        ));
        // every figure of the JSON is the CSV's, to two decimals
        let header = csv_header();
        let keys: Vec<&str> = header.split(',').collect();
        for (row, line) in rows.iter().zip(csv.lines()) {
            let fields: Vec<&str> = line.split(',').collect();
            for c in &NIC_COLS {
                let at = keys.iter().position(|k| *k == c.json_key).unwrap();
                let from_csv: Option<f64> = fields[at]
                    .parse()
                    .ok()
                    .and_then(|v| figure(Some(v)))
                    .and_then(|v| v.parse().ok());
                assert_eq!(
                    row[c.json_key].as_f64(),
                    from_csv,
                    "{} {}",
                    row["interface"],
                    c.json_key
                );
            }
        }
    }

    #[test]
    fn json_and_csv_name_unknowns() {
        let tick = NicTick {
            itv_cs: Some(100),
            rows: vec![row("a,\"b", None)],
            ..Default::default()
        };
        let json = json_report(&tick, false);
        let v: serde_json::Value = serde_json::from_str(json.trim_end()).unwrap();
        assert_eq!(v["interface"], "a,\"b");
        assert!(v["Util"].is_null() && v["speed_mbps"].is_null());
        assert_eq!(v["kind"], "?");
        let csv = csv_report(&tick, false);
        assert!(
            csv.contains(",\"a,\"\"b\",?,unknown,,unknown,,,false,"),
            "{csv}"
        );
        assert_eq!(
            csv.trim_end().split(',').count(),
            csv_header().split(',').count() + 1,
            "one more comma: the one inside the quoted name"
        );
    }

    /// JSON gives a figure with two decimals, as the disks' does: it had
    /// printed 15.582853618421053. CSV keeps every digit (see
    /// `csv_report`).
    #[test]
    fn json_figures_have_two_decimals_as_the_disks() {
        let mut v = NicRates::default();
        v.set(NicCol::RKbPerS, Some(15.582853618421053));
        v.set(NicCol::Util, Some(0.004));
        let tick = NicTick {
            itv_cs: Some(100),
            rows: vec![row("eth0", Some(v))],
            ..Default::default()
        };
        let json = json_report(&tick, false);
        assert!(json.contains("\"rKB/s\": 15.58,"), "{json}");
        assert!(json.contains(": 0.00"), "{json}");
    }
}

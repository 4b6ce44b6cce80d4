//! `strata batch nfs`: nfsiostat figures per NFS mount per interval.
//!
//! Text follows nfs-utils' nfsiostat (tools/nfs-iostat/nfs-iostat.py):
//! the same `<export> mounted on <mount point>:` line, the ops/s and rpc
//! bklog block, then a header and a line of figures per op, in the same
//! widths and with three decimals, so the two can be read side by side.
//! Where nfsiostat prints READ and WRITE only, strata also prints the other
//! ops that were active in the interval, after them. Each report starts
//! with its time, as `strata batch disks` does. A superblock seen through
//! several mount points is printed once, `mounted on /a, /b:`; nfsiostat
//! prints it once per mount point. Unknown figures print as "–".

use super::model::{NFS_MOUNT_COLS, NFS_OP_COLS, NfsMountCol, NfsOpCol, NfsOpRates};
use super::source::NfsSource;
use super::tick::{NfsBaseline, NfsOpRow, NfsTick};
use crate::format::{self, UNKNOWN};
use crate::layers::LayerId;
use crate::layers::report::host_report;
use crate::layers::report::{
    Format, csv_field, csv_stamp, json_opt, json_stamp, json_str, printable, row_itv, to_fixed,
};
use std::fmt::Write as _;

/// One text report: the time, then each mount as nfsiostat prints it, and
/// a blank line.
pub fn text_report(tick: &NfsTick) -> String {
    let mut s = format::iso_datetime(tick.wall_ms);
    s.push('\n');
    if tick.rows.is_empty() {
        // nfsiostat's words when it finds none
        s.push_str("No NFS mount points were found\n");
    }
    for r in &tick.rows {
        let _ = write!(
            s,
            "\n{} mounted on {}:\n\n{:>16}{:>16}\n",
            printable(&r.export),
            printable(&r.mount_points.join(", ")),
            "ops/s",
            "rpc bklog"
        );
        let m = |c: NfsMountCol| r.rates.and_then(|x| x.get(c));
        let _ = writeln!(
            s,
            "{}{}\n",
            fixed(m(NfsMountCol::OpsPerS), 16),
            fixed(m(NfsMountCol::RpcBklog), 16)
        );
        for op in &r.ops {
            op_lines(&mut s, op);
        }
    }
    s.push('\n');
    s
}

/// nfsiostat's `'>{width}.3f'`, or "–" in the same width.
fn fixed(v: Option<f64>, width: usize) -> String {
    match v.filter(|v| v.is_finite()) {
        Some(v) => format!("{v:>width$.3}"),
        None => format!("{UNKNOWN:>width$}"),
    }
}

/// nfsiostat's `'{0:>10.0f} ({1:>3.1f}%)'.strip()`, right-aligned in 16.
fn count_pct(n: Option<f64>, pct: Option<f64>) -> String {
    let text = match (n, pct) {
        (Some(n), Some(p)) if n.is_finite() && p.is_finite() => format!("{n:.0} ({p:>3.1}%)"),
        _ => UNKNOWN.to_string(),
    };
    format!("{text:>16}")
}

/// The header and figures of one op, as nfsiostat's print_rpc_op_stats.
fn op_lines(s: &mut String, op: &NfsOpRow) {
    let name = format!("{}:", op.name.to_lowercase());
    let _ = write!(
        s,
        "{:<16}{:>8}{:>16}{:>16}{:>16}{:>16}{:>16}{:>16}",
        printable(&name),
        "ops/s",
        "kB/s",
        "kB/op",
        "retrans",
        "avg RTT (ms)",
        "avg exe (ms)",
        "avg queue (ms)"
    );
    if op.has_errors {
        let _ = write!(s, "{:>16}", "errors");
    }
    s.push('\n');
    let v = |c: NfsOpCol| op.rates.and_then(|r: NfsOpRates| r.get(c));
    let _ = write!(
        s,
        "{}{}{}{}{}{}{}",
        fixed(v(NfsOpCol::OpsPerS), 24),
        fixed(v(NfsOpCol::KBPerS), 16),
        fixed(v(NfsOpCol::KBPerOp), 16),
        count_pct(v(NfsOpCol::Retrans), v(NfsOpCol::RetransPct)),
        fixed(v(NfsOpCol::AvgRttMs), 16),
        fixed(v(NfsOpCol::AvgExeMs), 16),
        fixed(v(NfsOpCol::AvgQueueMs), 16),
    );
    if op.has_errors {
        s.push_str(&count_pct(v(NfsOpCol::Errors), v(NfsOpCol::ErrorsPct)));
    }
    s.push('\n');
}

/// A figure for JSON and CSV: counts as integers, the rest with
/// nfsiostat's three decimals; `None` for unknown.
fn number(v: Option<f64>, count: bool) -> Option<String> {
    to_fixed(v, if count { 0 } else { 3 })
}

fn is_count(c: NfsOpCol) -> bool {
    matches!(c, NfsOpCol::Retrans | NfsOpCol::Errors)
}

/// One JSON object per mount, its ops in an array; unknown figures are
/// null. Names are as the kernel escapes them (a space is `\040`).
pub fn json_report(tick: &NfsTick) -> String {
    let mut s = String::new();
    for r in &tick.rows {
        let stamp = json_stamp(tick.wall_ms, row_itv(tick.itv_cs, r.delta.as_ref()));
        let points: Vec<String> = r.mount_points.iter().map(|p| json_str(p)).collect();
        let _ = write!(
            s,
            "{{{stamp}, \"export\": {}, \"mount_point\": {}, \"mount_points\": [{}], \"fstype\": {}, \"vers\": {}, \"proto\": {}, \"age_s\": {}",
            json_str(&r.export),
            json_opt(r.mount_points.first().map(|p| json_str(p))),
            points.join(", "),
            json_str(&r.fstype),
            json_opt(r.vers.as_deref().map(json_str)),
            json_opt(r.proto.as_deref().map(json_str)),
            r.age_s,
        );
        for c in &NFS_MOUNT_COLS {
            let v = number(r.rates.and_then(|x| x.get(c.col)), false);
            let _ = write!(s, ", \"{}\": {}", c.json_key, json_opt(v));
        }
        s.push_str(", \"ops\": [");
        for (i, op) in r.ops.iter().enumerate() {
            let _ = write!(
                s,
                "{}{{\"op\": {}",
                if i > 0 { ", " } else { "" },
                json_str(&op.name)
            );
            for c in &NFS_OP_COLS {
                let v = number(op.rates.and_then(|x| x.get(c.col)), is_count(c.col));
                let _ = write!(s, ", \"{}\": {}", c.json_key, json_opt(v));
            }
            s.push('}');
        }
        s.push_str("]}\n");
    }
    s
}

pub fn csv_header() -> String {
    let mut s = String::from("timestamp,interval_s,export,mount_points,fstype,vers,proto,age_s");
    for c in &NFS_MOUNT_COLS {
        let _ = write!(s, ",{}", c.json_key);
    }
    s.push_str(",op");
    for c in &NFS_OP_COLS {
        let _ = write!(s, ",op_{}", c.json_key);
    }
    s
}

/// One CSV line per op of each mount (the mount's figures repeated on
/// each), or one line with empty op fields for a mount without ops.
/// Unknown figures are empty fields. Mount points are separated by spaces,
/// which the kernel escapes inside names.
pub fn csv_report(tick: &NfsTick) -> String {
    let mut s = String::new();
    for r in &tick.rows {
        let stamp = csv_stamp(tick.wall_ms, row_itv(tick.itv_cs, r.delta.as_ref()));
        let mut head = format!(
            "{stamp},{},{},{},{},{},{}",
            csv_field(&r.export),
            csv_field(&r.mount_points.join(" ")),
            csv_field(&r.fstype),
            csv_field(r.vers.as_deref().unwrap_or("")),
            csv_field(r.proto.as_deref().unwrap_or("")),
            r.age_s
        );
        for c in &NFS_MOUNT_COLS {
            let v = number(r.rates.and_then(|x| x.get(c.col)), false);
            let _ = write!(head, ",{}", v.unwrap_or_default());
        }
        if r.ops.is_empty() {
            let _ = writeln!(s, "{head},{}", ",".repeat(NFS_OP_COLS.len()));
        }
        for op in &r.ops {
            let _ = write!(s, "{head},{}", csv_field(&op.name));
            for c in &NFS_OP_COLS {
                let v = number(op.rates.and_then(|x| x.get(c.col)), is_count(c.col));
                let _ = write!(s, ",{}", v.unwrap_or_default());
            }
            s.push('\n');
        }
    }
    s
}

pub fn report(format: Format, tick: &NfsTick) -> String {
    match format {
        Format::Text => text_report(tick),
        Format::Json => json_report(tick),
        Format::Csv => csv_report(tick),
    }
}

/// `strata batch nfs`: nfsiostat.
pub struct NfsReport {
    pub source: NfsSource,
    pub baseline: NfsBaseline,
    pub format: Format,
}

impl NfsReport {
    pub fn new(source: NfsSource, format: Format) -> Self {
        NfsReport {
            source,
            baseline: NfsBaseline::default(),
            format,
        }
    }
}

host_report!(
    NfsReport,
    LayerId::Nfs,
    csv_header: |_| csv_header(),
    report: |me, tick| report(me.format, &tick),
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::nfs::model::NfsMountRates;
    use crate::layers::nfs::tick::NfsRow;

    fn row(ops: Vec<NfsOpRow>) -> NfsRow {
        NfsRow {
            key: "k".into(),
            export: "srv:/a,\"b\"".into(),
            mount_points: vec!["/mnt/a".into(), "/srv/x\u{1b}[2J".into()],
            fstype: "nfs4".into(),
            vers: Some("4.2".into()),
            proto: None,
            age_s: 7,
            delta: None,
            rates: Some(NfsMountRates::new([
                Some(10.0),
                Some(0.001),
                None,
                None,
                None,
                None,
                None,
                None,
            ])),
            ops,
        }
    }

    fn op(name: &str, errors: bool, rates: Option<[Option<f64>; 10]>) -> NfsOpRow {
        NfsOpRow {
            name: name.into(),
            has_errors: errors,
            delta: None,
            rates: rates.map(NfsOpRates::new),
        }
    }

    const READ: [Option<f64>; 10] = [
        Some(1.0),
        Some(19.62890625),
        Some(19.62890625),
        Some(1.0),
        Some(1.0),
        Some(5.0),
        Some(6.0),
        Some(0.5),
        Some(1.0),
        Some(1.0),
    ];

    #[test]
    fn text_is_nfsiostats_layout() {
        let tick = NfsTick {
            itv_cs: Some(100),
            rows: vec![row(vec![
                op("READ", true, Some(READ)),
                op("WRITE", false, None),
            ])],
            ..NfsTick::default()
        };
        let text = text_report(&tick);
        let lines: Vec<&str> = text.lines().collect();
        // what nfsiostat 2.6.2 printed for the same counters (see the
        // parity test), and strata's "–" where a figure is unknown
        assert_eq!(lines[1], "");
        assert_eq!(lines[2], "srv:/a,\"b\" mounted on /mnt/a, /srv/x?[2J:");
        assert_eq!(lines[4], "           ops/s       rpc bklog");
        assert_eq!(lines[5], "          10.000           0.001");
        assert_eq!(
            lines[7],
            "read:              ops/s            kB/s           kB/op         retrans    avg RTT (ms)    avg exe (ms)  avg queue (ms)          errors"
        );
        assert_eq!(
            lines[8],
            "                   1.000          19.629          19.629        1 (1.0%)           5.000           6.000           0.500        1 (1.0%)"
        );
        assert!(lines[9].starts_with("write:") && !lines[9].contains("errors"));
        assert_eq!(
            lines[10],
            format!("{:>24}{}", "–", format!("{:>16}", "–").repeat(6))
        );
        assert_eq!(
            text_report(&NfsTick::default()).lines().nth(1),
            Some("No NFS mount points were found")
        );
    }

    #[test]
    fn json_and_csv_carry_every_figure() {
        let tick = NfsTick {
            itv_cs: Some(150),
            rows: vec![row(vec![op("READ", true, Some(READ))]), row(Vec::new())],
            ..NfsTick::default()
        };
        let json = json_report(&tick);
        let v: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
        assert_eq!(v["interval_s"], 1.5);
        assert_eq!(
            v["mount_points"][1], "/srv/x\u{1b}[2J",
            "JSON keeps names exact"
        );
        assert_eq!(v["rpc_bklog"], 0.001);
        assert!(v["read_kB/s"].is_null());
        assert!(v["proto"].is_null());
        assert_eq!(v["ops"][0]["kB/s"], 19.629);
        assert_eq!(v["ops"][0]["retrans"], 1);
        assert_eq!(
            v["ops"][0].as_object().unwrap().len(),
            1 + NFS_OP_COLS.len()
        );
        let csv = csv_report(&tick);
        let header = csv_header();
        let ncols = header.split(',').count();
        assert_eq!(ncols, 8 + NFS_MOUNT_COLS.len() + 1 + NFS_OP_COLS.len());
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2, "{csv}");
        assert!(
            lines[0]
                .contains(",1.50,\"srv:/a,\"\"b\"\"\",/mnt/a /srv/x?[2J,nfs4,4.2,,7,10.000,0.001,"),
            "{csv}"
        );
        assert!(
            lines[0].ends_with(",READ,1.000,19.629,19.629,1,1.000,5.000,6.000,0.500,1,1.000"),
            "{csv}"
        );
        assert!(
            lines[1].ends_with(&",".repeat(NFS_OP_COLS.len() + 1)),
            "{csv}"
        );
    }
}

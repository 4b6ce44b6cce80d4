//! `strata batch procs`: text as `pidstat -d` prints it (the processes
//! whose storage counters or block I/O delay moved, by PID), then the
//! unreadable processes in a line each; JSON and CSV with every figure,
//! the role and instance of each process, and JSON the roles' sums too.

use super::model::{PROC_COLS, ProcCol, ProcFig, ProcTick};
use super::source::ProcSource;
use super::state::{ProcBaseline, ProcInterval, interval};
use crate::format;
use crate::layers::LayerId;
use crate::layers::report::{
    Format, csv_field, csv_stamp, figure, host_report, json_opt, json_stamp, json_str, printable,
};
use std::fmt::Write as _;

/// Whether pidstat -d prints the process: a storage counter or the block
/// I/O delay moved (pidstat's "active" test for -d).
pub fn pidstat_shows(p: &ProcFig) -> bool {
    let storage = p
        .row
        .delta
        .is_some_and(|d| d.read_bytes > 0 || d.write_bytes > 0 || d.cancelled_write_bytes > 0);
    // iodelay is this increase, so it moved exactly when the ticks did
    storage || p.row.blkio_ticks.is_some_and(|b| b > 0)
}

fn cell(v: Option<f64>, width: usize, decimals: usize) -> String {
    let s = v
        .filter(|v| v.is_finite())
        .map_or(format::UNKNOWN.to_string(), |v| format!("{v:.decimals$}"));
    format!("{s:>width$}")
}

pub fn text_report(t: &ProcTick) -> String {
    let start_ms = t.wall_ms - (t.itv_cs as i64) * 10;
    let mut s = format!(
        "\n{:<11}   UID       PID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command\n",
        format::local_time(start_ms)
    );
    let time = format::local_time(t.wall_ms);
    let mut rows: Vec<&ProcFig> = t.procs.iter().filter(|p| pidstat_shows(p)).collect();
    rows.sort_by_key(|p| p.row.pid);
    for p in rows {
        let f = &p.figures;
        let _ = writeln!(
            s,
            "{time:<11} {:>5} {:>9} {} {} {} {}  {}",
            p.row.uid,
            p.row.pid,
            cell(f.get(ProcCol::KbRd), 9, 2),
            cell(f.get(ProcCol::KbWr), 9, 2),
            cell(f.get(ProcCol::KbCcwr), 9, 2),
            cell(f.get(ProcCol::Iodelay), 7, 0),
            printable(&p.row.comm)
        );
    }
    for u in &t.unreadable {
        let _ = writeln!(s, "{time:<11} {}", u.explain());
    }
    if t.delayacct == super::table::DelayAcct::Off {
        let _ = writeln!(s, "{time:<11} {}", super::table::DelayAcct::HOW);
    }
    s
}

fn figures_json(f: &super::model::ProcFigures) -> String {
    let mut o = String::new();
    for c in &PROC_COLS {
        let v = match c.col {
            ProcCol::Iodelay => f.get(c.col).map(|v| format!("{v:.0}")),
            _ => figure(f.get(c.col)),
        };
        let _ = write!(o, ", \"{}\": {}", c.json_key, json_opt(v));
    }
    o
}

fn user(t: &ProcTick, uid: u32) -> String {
    t.users
        .get(&uid)
        .cloned()
        .unwrap_or_else(|| uid.to_string())
}

/// One JSON record per interval: the host's counts, the unreadable, each
/// role's sums and each active process.
pub fn json_report(t: &ProcTick) -> String {
    let mut s = format!(
        "{{{}, \"processes\": {}, \"readable\": {}, \"delay_accounting\": {}",
        json_stamp(t.wall_ms, Some(t.itv_cs)),
        t.processes,
        t.readable,
        json_str(match t.delayacct {
            super::table::DelayAcct::On => "on",
            super::table::DelayAcct::Off => "off",
            super::table::DelayAcct::Unknown => "unknown",
        })
    );
    s.push_str(", \"unreadable\": [");
    for (i, u) in t.unreadable.iter().enumerate() {
        let sep = if i > 0 { ", " } else { "" };
        let _ = write!(
            s,
            "{sep}{{\"user\": {}, \"count\": {}, \"why\": {}}}",
            json_str(&u.user),
            u.count,
            json_str(&u.explain())
        );
    }
    let _ = write!(
        s,
        "], \"all\": {{\"name\": \"all\"{}}}",
        figures_json(&t.all)
    );
    s.push_str(", \"roles\": [");
    for (i, r) in t.roles.iter().enumerate() {
        let sep = if i > 0 { ", " } else { "" };
        let _ = write!(
            s,
            "{sep}{{\"role\": {}, \"instance\": {}, \"active\": {}, \"unreadable\": {}{}}}",
            json_str(&r.role.label()),
            json_opt(r.instance.as_deref().map(json_str)),
            r.active,
            r.unreadable,
            figures_json(&r.figures)
        );
    }
    s.push_str("], \"procs\": [");
    for (i, p) in t.procs.iter().enumerate() {
        let sep = if i > 0 { ", " } else { "" };
        let _ = write!(
            s,
            "{sep}{{\"pid\": {}, \"start\": {}, \"uid\": {}, \"user\": {}, \"comm\": {}, \"cmd\": {}, \"role\": {}, \"instance\": {}, \"new\": {}{}}}",
            p.row.pid,
            p.row.start,
            p.row.uid,
            json_str(&user(t, p.row.uid)),
            json_str(&p.row.comm),
            json_str(&p.row.cmd),
            json_str(&p.row.role.label()),
            json_opt(p.row.instance.as_deref().map(json_str)),
            p.row.new,
            figures_json(&p.figures)
        );
    }
    s.push_str("]}\n");
    s
}

pub fn csv_header() -> String {
    let mut s = String::from("timestamp,interval_s,pid,uid,user,comm,role,instance");
    for c in &PROC_COLS {
        let _ = write!(s, ",{}", c.json_key);
    }
    s
}

/// One line per active process.
pub fn csv_report(t: &ProcTick) -> String {
    let stamp = csv_stamp(t.wall_ms, Some(t.itv_cs));
    let mut s = String::new();
    for p in &t.procs {
        let _ = write!(
            s,
            "{stamp},{},{},{},{},{},{}",
            p.row.pid,
            p.row.uid,
            csv_field(&user(t, p.row.uid)),
            csv_field(&p.row.comm),
            csv_field(&p.row.role.label()),
            csv_field(p.row.instance.as_deref().unwrap_or(""))
        );
        for c in &PROC_COLS {
            let v = match c.col {
                ProcCol::Iodelay => p.figures.get(c.col).map(|v| format!("{v:.0}")),
                _ => figure(p.figures.get(c.col)),
            };
            let _ = write!(s, ",{}", v.unwrap_or_default());
        }
        s.push('\n');
    }
    s
}

pub fn report(format: Format, t: &ProcInterval) -> String {
    let Some(fig) = &t.figures else {
        return String::new();
    };
    match format {
        Format::Text => text_report(fig),
        Format::Json => json_report(fig),
        Format::Csv => csv_report(fig),
    }
}

/// `strata batch procs`: pidstat -d, with roles.
pub struct ProcReport {
    pub source: ProcSource,
    pub baseline: ProcBaseline,
    pub format: Format,
}

impl ProcReport {
    pub fn new(source: ProcSource, format: Format) -> Self {
        ProcReport {
            source,
            baseline: ProcBaseline,
            format,
        }
    }
}

impl ProcBaseline {
    pub fn tick(&mut self, s: &super::table::ProcSample) -> ProcInterval {
        interval(s)
    }
}

host_report!(
    ProcReport,
    LayerId::Procs,
    csv_header: |_| csv_header(),
    report: |me, tick| report(me.format, &tick),
);

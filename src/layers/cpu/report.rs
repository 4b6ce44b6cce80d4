//! `strata batch cpu`: each CPU's modes as `mpstat -P ALL` prints them,
//! then the host's tasks, switches, swapping and load as sar prints them
//! (-q, -w, -I SUM, -W), then each resource's pressure: the kernel's
//! averages and the stalled share of the interval (sar -q ALL's). JSON
//! and CSV carry every figure, unknown ones as `null` or empty.

use super::model::{
    CPU_COLS, CpuState, CpuTick, PSI_COLS, Pressure, Resource, SYS_COLS, SysCol, SysColKind,
};
use super::source::CpuSource;
use super::state::{CpuBaseline, CpuFig, CpuInterval, decimals};
use crate::format;
use crate::layers::LayerId;
use crate::layers::report::host_report;
use crate::layers::report::{
    Format, csv_field, csv_stamp, figure, json_opt, json_stamp, json_str, to_fixed,
};
use std::fmt::Write as _;

/// mpstat's two decimals, in its column width; "–" when unknown.
fn cell(v: Option<f64>, width: usize) -> String {
    let s = v
        .filter(|v| v.is_finite())
        .map_or(format::UNKNOWN.to_string(), |v| format!("{v:.2}"));
    format!("{s:>width$}")
}

/// A host figure as sar and vmstat print it: tasks whole, the rest with
/// two decimals; `None` when unknown.
fn sys_figure(c: &crate::layers::col::ColDef<SysCol, SysColKind>, t: &CpuTick) -> Option<String> {
    to_fixed(t.sys.get(c.col), decimals(CpuFig::Sys(c.col)))
}

/// What a CPU's row says when its figures are unknown.
fn state_word(s: CpuState) -> &'static str {
    match s {
        CpuState::Online => "",
        CpuState::Offline => "offline",
        CpuState::CameOnline => "came online",
        CpuState::Unexplained => "counters fell",
    }
}

pub fn text_report(wall_ms: i64, t: &CpuTick) -> String {
    let time = format::local_time(wall_ms);
    let mut s = format!("{time}  {:>5}", "CPU");
    for c in &CPU_COLS {
        let _ = write!(s, " {:>8}", c.header);
    }
    s.push('\n');
    let _ = write!(s, "{time}  {:>5}", "all");
    for c in &CPU_COLS {
        s.push(' ');
        s.push_str(&cell(t.table.all.get(c.col), 8));
    }
    s.push('\n');
    for r in &t.table.cpus {
        let _ = write!(s, "{time}  {:>5}", r.cpu);
        for c in &CPU_COLS {
            s.push(' ');
            s.push_str(&cell(r.figures.get(c.col), 8));
        }
        let why = state_word(r.state);
        if !why.is_empty() {
            let _ = write!(s, "  {why}");
        }
        s.push('\n');
    }
    s.push('\n');
    let _ = write!(s, "{time} ");
    for c in &SYS_COLS {
        let _ = write!(s, " {:>9}", c.header);
    }
    s.push('\n');
    let _ = write!(s, "{time} ");
    for c in &SYS_COLS {
        let v = sys_figure(c, t).unwrap_or_else(|| format::UNKNOWN.to_string());
        let _ = write!(s, " {v:>9}");
    }
    s.push('\n');
    s.push('\n');
    let _ = write!(s, "{time}  {:>8}", "pressure");
    for c in &PSI_COLS {
        let _ = write!(s, " {:>9}", c.header);
    }
    s.push('\n');
    for r in Resource::ALL {
        let _ = write!(s, "{time}  {:>8}", r.file());
        match &t.pressure[r as usize] {
            Pressure::Known(f) => {
                for c in &PSI_COLS {
                    s.push(' ');
                    s.push_str(&cell(f.get(c.col), 9));
                }
            }
            Pressure::NotAvailable(why) => {
                let _ = write!(s, " {}", crate::layers::report::printable(why));
            }
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

/// One JSON record per interval: "all", every CPU, the host's figures and
/// each resource's pressure (`"available": false` and why, when none).
pub fn json_report(wall_ms: i64, t: &CpuTick) -> String {
    let cpu = |name: String, f: &super::model::CpuFigures, state: Option<CpuState>| {
        let mut o = format!("{{\"cpu\": {}", json_str(&name));
        if let Some(st) = state.filter(|s| *s != CpuState::Online) {
            let _ = write!(o, ", \"state\": {}", json_str(state_word(st)));
        }
        for c in &CPU_COLS {
            let _ = write!(
                o,
                ", \"{}\": {}",
                c.json_key,
                json_opt(figure(f.get(c.col)))
            );
        }
        o.push('}');
        o
    };
    let mut cpus = vec![cpu("all".into(), &t.table.all, None)];
    cpus.extend(
        t.table
            .cpus
            .iter()
            .map(|r| cpu(r.cpu.to_string(), &r.figures, Some(r.state))),
    );
    let mut s = format!(
        "{{{}, \"cpus\": [{}]",
        json_stamp(wall_ms, Some(t.itv_cs)),
        cpus.join(", ")
    );
    for c in &SYS_COLS {
        let _ = write!(s, ", \"{}\": {}", c.json_key, json_opt(sys_figure(c, t)));
    }
    s.push_str(", \"pressure\": {");
    for (i, r) in Resource::ALL.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "\"{}\": {{", r.file());
        match &t.pressure[*r as usize] {
            Pressure::Known(f) => {
                s.push_str("\"available\": true");
                for c in &PSI_COLS {
                    let _ = write!(
                        s,
                        ", \"{}\": {}",
                        c.json_key,
                        json_opt(figure(f.get(c.col)))
                    );
                }
            }
            Pressure::NotAvailable(why) => {
                let _ = write!(s, "\"available\": false, \"why\": {}", json_str(why));
            }
        }
        s.push('}');
    }
    s.push_str("}}\n");
    s
}

pub fn csv_header() -> String {
    let mut s = String::from("timestamp,interval_s,cpu,state");
    for c in &CPU_COLS {
        let _ = write!(s, ",{}", c.json_key);
    }
    for c in &SYS_COLS {
        let _ = write!(s, ",{}", c.json_key);
    }
    for r in Resource::ALL {
        for c in &PSI_COLS {
            let _ = write!(s, ",{}_{}", r.file(), c.json_key);
        }
    }
    s
}

/// One line per CPU ("all" first), the host's and the pressure figures
/// repeated on each; unknown figures are empty fields.
pub fn csv_report(wall_ms: i64, t: &CpuTick) -> String {
    let mut host = String::new();
    for c in &SYS_COLS {
        let _ = write!(host, ",{}", sys_figure(c, t).unwrap_or_default());
    }
    for r in Resource::ALL {
        for c in &PSI_COLS {
            let v = match &t.pressure[r as usize] {
                Pressure::Known(f) => figure(f.get(c.col)),
                Pressure::NotAvailable(_) => None,
            };
            let _ = write!(host, ",{}", v.unwrap_or_default());
        }
    }
    let stamp = csv_stamp(wall_ms, Some(t.itv_cs));
    let line = |name: &str, state: &str, f: &super::model::CpuFigures| {
        let mut l = format!("{stamp},{},{}", csv_field(name), csv_field(state));
        for c in &CPU_COLS {
            let _ = write!(l, ",{}", figure(f.get(c.col)).unwrap_or_default());
        }
        l.push_str(&host);
        l.push('\n');
        l
    };
    let mut s = line("all", "", &t.table.all);
    for r in &t.table.cpus {
        s.push_str(&line(&r.cpu.to_string(), state_word(r.state), &r.figures));
    }
    s
}

pub fn report(format: Format, t: &CpuInterval) -> String {
    let Some(fig) = &t.figures else {
        return String::new();
    };
    match format {
        Format::Text => text_report(t.wall_ms, fig),
        Format::Json => json_report(t.wall_ms, fig),
        Format::Csv => csv_report(t.wall_ms, fig),
    }
}

/// `strata batch cpu`: mpstat -P ALL, sar -q -w -W and pressure.
pub struct CpuReport {
    pub source: CpuSource,
    pub baseline: CpuBaseline,
    pub format: Format,
}

impl CpuReport {
    pub fn new(source: CpuSource, format: Format) -> Self {
        CpuReport {
            source,
            baseline: CpuBaseline::default(),
            format,
        }
    }
}

host_report!(
    CpuReport,
    LayerId::Cpu,
    csv_header: |_| csv_header(),
    report: |me, tick| report(me.format, &tick),
);

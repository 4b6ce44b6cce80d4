//! `strata summary FILE`: the key figures of each panel over a window, as
//! min, average, p95 and max: the table a benchmark report needs.
//!
//! The figures are those the overview shows (disks: the totals and the
//! busiest device's %util; NFS: each mount; NICs: the physical total and
//! each listed interface; the page cache; the cells' DISK and FLASH over
//! all cells), computed per interval by the live code (see [`Walker`]).
//!
//! p95 is the nearest-rank percentile: of the n samples where the figure
//! is known, sorted, the one at rank ⌈0.95·n⌉ (counting from 1), so it is
//! always a value that occurred. A sample where a figure is unknown ("–" on
//! screen) is left out of its statistics, and so is a latency over an
//! interval without a request (iostat and nfsiostat print 0 there, which
//! would drag a minimum and an average down); a figure known in no sample
//! has none, and prints "–", never 0. Every format prints two decimals, as
//! `strata batch` does.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::rows::{PANELS, listed, panel_name};
use super::walk::{Step, Walker};
use super::window::Window;
use crate::batch::{csv_field, printable};
use crate::format::{self, UNKNOWN};
use crate::layers::LayerId;
use crate::layers::cells::model::GroupCol;
use crate::layers::host;
use crate::layers::report::Format;
use crate::recording::session::Player;

/// Statistics of the known values of a figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Samples where the figure was known.
    pub n: usize,
    pub min: f64,
    pub avg: f64,
    /// Nearest rank: the ⌈0.95·n⌉-th smallest value.
    pub p95: f64,
    pub max: f64,
}

/// `None` for no values. Non-finite values are not figures and are left
/// out (the model gives none; a damaged file could).
pub fn stats(values: &[f64]) -> Option<Stats> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let rank = (95 * n).div_ceil(100);
    Some(Stats {
        n,
        min: v[0],
        avg: v.iter().sum::<f64>() / n as f64,
        p95: v[rank.max(1) - 1],
        max: v[n - 1],
    })
}

/// One figure of one entity, with its value at each sample of the window
/// where it was known.
#[derive(Debug, Clone)]
pub struct Figure {
    pub panel: LayerId,
    /// `total`, a mount, an interface, `DISK`...
    pub entity: String,
    /// The figure's name with its unit.
    pub figure: &'static str,
    pub values: Vec<f64>,
}

impl Figure {
    pub fn stats(&self) -> Option<Stats> {
        stats(&self.values)
    }
}

#[derive(Debug, Clone)]
pub struct Summary {
    pub window: Window,
    /// Time of the first and of the last sample in the window.
    pub first_ms: Option<i64>,
    pub last_ms: Option<i64>,
    /// The recording's interval: a sample's figures are of the interval
    /// that ends at it.
    pub interval_ms: i64,
    /// Intervals with figures in the window, per panel (all hosts').
    pub samples: Vec<(LayerId, usize)>,
    /// Those of each database node, per panel, in the order of the
    /// recording's nodes; empty without nodes.
    pub node_samples: Vec<(LayerId, Vec<(String, usize)>)>,
    /// In panel order, then in the order first seen.
    pub figures: Vec<Figure>,
}

impl Summary {
    pub fn figure(&self, panel: LayerId, entity: &str, figure: &str) -> Option<&Figure> {
        self.figures
            .iter()
            .find(|f| f.panel == panel && f.entity == entity && f.figure == figure)
    }
}

#[derive(Default)]
struct Collector {
    figures: Vec<Figure>,
    index: HashMap<(LayerId, String, &'static str), usize>,
    /// The node the figures being put are of; `None`: the recording's host.
    node: Option<String>,
}

impl Collector {
    /// Notes a figure's value at one sample; an unknown value still lists
    /// the figure.
    fn put(&mut self, panel: LayerId, entity: &str, figure: &'static str, v: Option<f64>) {
        let entity = match &self.node {
            Some(n) => format!("{n}:{entity}"),
            None => entity.to_string(),
        };
        let entity = entity.as_str();
        let key = (panel, entity.to_string(), figure);
        let i = match self.index.get(&key) {
            Some(i) => *i,
            None => {
                self.figures.push(Figure {
                    panel,
                    entity: entity.to_string(),
                    figure,
                    values: Vec::new(),
                });
                self.index.insert(key, self.figures.len() - 1);
                self.figures.len() - 1
            }
        };
        if let Some(v) = v.filter(|v| v.is_finite()) {
            self.figures[i].values.push(v);
        }
    }
}

const CELL_FIGS: [(&str, GroupCol); 7] = [
    ("r/s", GroupCol::RPerS),
    ("w/s", GroupCol::WPerS),
    ("rMB/s", GroupCol::RMbPerS),
    ("wMB/s", GroupCol::WMbPerS),
    ("r_await ms", GroupCol::RAwait),
    ("w_await ms", GroupCol::WAwait),
    ("%util", GroupCol::Util),
];

/// DISK and FLASH over every cell whose figures are current, as the
/// overview's storage lines; unknown while no cell counts.
fn cells(c: &mut Collector, all: Option<&crate::layers::cells::model::AllCells>) {
    use crate::layers::cells::cell_metrics::Media;
    for (entity, media) in [("DISK", Media::Disk), ("FLASH", Media::Flash)] {
        let g = all
            .filter(|a| a.counted > 0)
            .and_then(|a| a.groups.get(media));
        for (name, col) in CELL_FIGS {
            c.put(LayerId::Cells, entity, name, g.and_then(|g| g.get(col)));
        }
    }
}

const DNFS_FIGS: [(&str, crate::layers::dnfs::model::DnfsCol); 3] = [
    ("IOPS", crate::layers::dnfs::model::DnfsCol::Iops),
    ("rMB/s", crate::layers::dnfs::model::DnfsCol::ReadMbPerS),
    ("wMB/s", crate::layers::dnfs::model::DnfsCol::WriteMbPerS),
];

/// A database's dNFS totals at its reading `at_ms` (`None`: listed, never
/// known).
fn dnfs(c: &mut Collector, label: &str, tick: Option<&crate::layers::dnfs::model::DnfsTick>) {
    let total = tick.filter(|t| t.in_use).and_then(|t| t.total);
    for (name, col) in DNFS_FIGS {
        c.put(LayerId::Dnfs, label, name, total.and_then(|f| f.get(col)));
    }
}

/// Reads the whole window of `player` and sums it up.
pub fn summarize(player: &mut Player, window: &Window) -> Summary {
    player.rewind(i64::MIN);
    let meta = player.meta.clone();
    let mut walker = Walker::new(&meta, None);
    let mut c = Collector::default();
    // The host layers' and the cells' figures are listed even when they
    // are never known: a summary that leaves a layer out would hide that
    // it had nothing. NFS mounts and NICs are listed as they are seen.
    // With nodes, only they are sampled: the recording host is not one of
    // them, and rows of it would say "0 samples" of a host never asked.
    let labels: Vec<String> = meta.nodes.iter().map(|n| n.label().to_string()).collect();
    let hosts: Vec<Option<String>> = if labels.is_empty() {
        vec![None]
    } else {
        labels.iter().cloned().map(Some).collect()
    };
    for host in hosts {
        c.node = host;
        host::summarize_unknown(&mut |layer, entity, figure, v| c.put(layer, entity, figure, v));
    }
    c.node = None;
    if !meta.cells.is_empty() {
        cells(&mut c, None);
    }
    for db in &meta.dbs {
        dnfs(&mut c, &db.label, None);
    }
    let mut samples: HashMap<LayerId, usize> = HashMap::new();
    let mut node_samples: HashMap<(LayerId, usize), usize> = HashMap::new();
    let (mut first_ms, mut last_ms) = (None::<i64>, None::<i64>);
    while let Some((at, input)) = player.next_input() {
        if at > window.to_ms.saturating_add(super::rows::LATE_MS) {
            break;
        }
        let Some(step) = walker.apply(at, input) else {
            continue;
        };
        let t = step.at_ms();
        // A node's note is a note too: no sample.
        if matches!(step.of_node().1, Step::Note { .. }) || !window.contains(t) {
            continue;
        }
        *samples.entry(step.panel()).or_default() += 1;
        if let Some(node) = step.of_node().0 {
            *node_samples.entry((step.panel(), node)).or_default() += 1;
        }
        first_ms = Some(first_ms.map_or(t, |f| f.min(t)));
        last_ms = Some(last_ms.map_or(t, |l| l.max(t)));
        // A node's entities are named `node:entity` (its disks, mounts,
        // interfaces; its page cache as `node:host`).
        let (node, step) = step.of_node();
        c.node = node
            .and_then(|i| meta.nodes.get(i))
            .map(|n| n.label().to_string());
        match step {
            Step::Host(h) => {
                let layer = h.layer();
                h.summarize(&mut |entity, figure, v| c.put(layer, entity, figure, v));
            }
            Step::Cells { now_ms, .. } => cells(&mut c, Some(&walker.cells.all(*now_ms))),
            Step::Dnfs { db, at_ms } => {
                if let Some(v) = walker.dnfs.list.get(*db) {
                    let tick = v.current(*at_ms, walker.dnfs.interval.ms());
                    dnfs(&mut c, &v.target.label, tick);
                }
            }
            Step::Note { .. } | Step::Node { .. } => {}
        }
    }
    let order = |p: &LayerId| PANELS.iter().position(|q| q == p).unwrap_or(PANELS.len());
    let mut figures = c.figures;
    figures.sort_by_key(|f| order(&f.panel));
    Summary {
        window: window.clone(),
        first_ms,
        last_ms,
        interval_ms: meta.interval().ms(),
        samples: PANELS
            .into_iter()
            .filter_map(|p| Some((p, *samples.get(&p)?)))
            .collect(),
        node_samples: per_node_counts(&labels, &node_samples),
        figures,
    }
}

/// Each node's samples per panel, for the panels any node has some of.
fn per_node_counts(
    labels: &[String],
    counts: &HashMap<(LayerId, usize), usize>,
) -> Vec<(LayerId, Vec<(String, usize)>)> {
    PANELS
        .into_iter()
        .map(|p| {
            let per: Vec<(String, usize)> = labels
                .iter()
                .enumerate()
                .map(|(i, l)| (l.clone(), counts.get(&(p, i)).copied().unwrap_or(0)))
                .collect();
            (p, per)
        })
        .filter(|(_, per)| per.iter().any(|(_, n)| *n > 0))
        .collect()
}

/// The figure values of text: two decimals, "–" when unknown.
fn text_num(v: Option<f64>) -> String {
    v.map_or(UNKNOWN.to_string(), |v| format!("{v:.2}"))
}

/// What a summary says of its window, for its head.
fn window_line(s: &Summary) -> String {
    let span = match (s.first_ms, s.last_ms) {
        // From the start of the first sample's interval: five samples at
        // 1 s are five seconds of figures, not the four between them.
        (Some(a), Some(b)) => {
            let from = a - s.interval_ms.max(0);
            let secs = (b - from) as f64 / 1000.0;
            // To the interval's precision: samples are a few ms off
            // their boundaries.
            let secs = if s.interval_ms % 1000 == 0 {
                format!("{secs:.0}")
            } else {
                format!("{secs:.1}")
            };
            format!(
                "{} to {} ({secs} s)",
                format::local_datetime(from),
                format::local_datetime(b),
            )
        }
        _ => format!("no sample ({})", super::rows::describe(&s.window)),
    };
    match &s.window.markers {
        Some((a, b)) => format!(
            "{span}, between markers \"{}\" and \"{}\"",
            printable(a),
            printable(b)
        ),
        None => span,
    }
}

pub fn report(s: &Summary, format: Format, file: &str, host: &str) -> String {
    match format {
        Format::Text => text(s, file, host),
        Format::Json => json(s, file, host),
        Format::Csv => csv(s),
    }
}

fn text(s: &Summary, file: &str, host: &str) -> String {
    let mut out = format!(
        "strata summary of {} ({})\nwindow   {}\n",
        printable(file),
        printable(host),
        window_line(s)
    );
    let samples: Vec<String> = s
        .samples
        .iter()
        .map(|(p, n)| format!("{} {n}{}", panel_name(*p), per_node(s, *p)))
        .collect();
    let _ = writeln!(out, "samples  {}", listed(&samples, " · "));
    out.push_str(
        "n: samples where the figure was known · p95: nearest rank, the ⌈0.95·n⌉-th smallest\n\n",
    );
    let rows: Vec<[String; 8]> = s
        .figures
        .iter()
        .map(|f| {
            let st = f.stats();
            [
                panel_name(f.panel).to_string(),
                printable(&f.entity).into_owned(),
                f.figure.to_string(),
                st.map_or(0, |s| s.n).to_string(),
                text_num(st.map(|s| s.min)),
                text_num(st.map(|s| s.avg)),
                text_num(st.map(|s| s.p95)),
                text_num(st.map(|s| s.max)),
            ]
        })
        .collect();
    let head = ["panel", "entity", "figure", "n", "min", "avg", "p95", "max"];
    let mut w: [usize; 8] = head.map(|h| h.chars().count());
    for r in &rows {
        for (i, cell) in r.iter().enumerate() {
            w[i] = w[i].max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 8]| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i].saturating_sub(c.chars().count());
            if i < 3 {
                let _ = write!(l, "{c}{}  ", " ".repeat(pad));
            } else {
                let _ = write!(l, "{}{c}  ", " ".repeat(pad));
            }
        }
        l.trim_end().to_string() + "\n"
    };
    out.push_str(&line(head));
    for r in &rows {
        out.push_str(&line(r.each_ref().map(String::as_str)));
    }
    out
}

/// A panel's samples per node, after their sum: " over 2 nodes (db01 39,
/// db02 38)"; nothing without nodes.
fn per_node(s: &Summary, panel: LayerId) -> String {
    let Some((_, per)) = s.node_samples.iter().find(|(p, _)| *p == panel) else {
        return String::new();
    };
    let each: Vec<String> = per
        .iter()
        .map(|(l, n)| format!("{} {n}", printable(l)))
        .collect();
    format!(
        " over {} ({})",
        format::count(per.len(), "node", "nodes"),
        each.join(", ")
    )
}

/// Two decimals, as `strata batch` prints the disks' and cells' figures:
/// the model's floating point leaves noise below them (14561.000000000002
/// reads in a second).
fn two(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn json(s: &Summary, file: &str, host: &str) -> String {
    use serde_json::{Value, json};
    let iso = |t: Option<i64>| t.map_or(Value::Null, |t| Value::from(format::iso_datetime(t)));
    let num = |v: Option<f64>| v.map_or(Value::Null, |v| Value::from(two(v)));
    let figures: Vec<Value> = s
        .figures
        .iter()
        .map(|f| {
            let st = f.stats();
            json!({
                "panel": panel_name(f.panel),
                "entity": f.entity,
                "figure": f.figure,
                "n": st.map_or(0, |s| s.n),
                "min": num(st.map(|s| s.min)),
                "avg": num(st.map(|s| s.avg)),
                "p95": num(st.map(|s| s.p95)),
                "max": num(st.map(|s| s.max)),
            })
        })
        .collect();
    let samples: serde_json::Map<String, Value> = s
        .samples
        .iter()
        .map(|(p, n)| (panel_name(*p).to_string(), Value::from(*n)))
        .collect();
    let node_samples: serde_json::Map<String, Value> = s
        .node_samples
        .iter()
        .map(|(p, per)| {
            let per: serde_json::Map<String, Value> = per
                .iter()
                .map(|(l, n)| (l.clone(), Value::from(*n)))
                .collect();
            (panel_name(*p).to_string(), Value::Object(per))
        })
        .collect();
    let v = json!({
        "file": file,
        "host": host,
        "from": iso(s.first_ms),
        "to": iso(s.last_ms),
        "markers": s.window.markers.as_ref().map(|(a, b)| json!([a, b])),
        "samples": samples,
        "samples_per_node": node_samples,
        "p95": "nearest rank",
        "figures": figures,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

fn csv(s: &Summary) -> String {
    let iso = |t: Option<i64>| t.map_or(String::new(), format::iso_datetime);
    let (from, to) = (iso(s.first_ms), iso(s.last_ms));
    let num = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.2}"));
    let mut out = String::from("panel,entity,figure,n,min,avg,p95,max,from,to\n");
    for f in &s.figures {
        let st = f.stats();
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{from},{to}",
            panel_name(f.panel),
            csv_field(&f.entity),
            csv_field(f.figure),
            st.map_or(0, |s| s.n),
            num(st.map(|s| s.min)),
            num(st.map(|s| s.avg)),
            num(st.map(|s| s.p95)),
            num(st.map(|s| s.max)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p95_is_the_nearest_rank() {
        // 20 values 1..=20: rank ceil(0.95 * 20) = 19
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        let s = stats(&v).unwrap();
        assert_eq!((s.n, s.min, s.p95, s.max), (20, 1.0, 19.0, 20.0));
        assert_eq!(s.avg, 10.5);
        // 21 values: rank ceil(19.95) = 20
        let v: Vec<f64> = (1..=21).rev().map(f64::from).collect();
        assert_eq!(stats(&v).unwrap().p95, 20.0);
        // one value is every statistic
        let s = stats(&[7.5]).unwrap();
        assert_eq!((s.min, s.avg, s.p95, s.max), (7.5, 7.5, 7.5, 7.5));
        // 100 values: rank 95
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(stats(&v).unwrap().p95, 95.0);
    }

    #[test]
    fn no_known_value_has_no_stats() {
        assert_eq!(stats(&[]), None);
        assert_eq!(stats(&[f64::NAN, f64::INFINITY]), None);
        assert_eq!(stats(&[f64::NAN, 2.0]).map(|s| s.n), Some(1));
    }

    #[test]
    fn an_unknown_figure_prints_a_dash_never_0() {
        let s = Summary {
            window: Window::ALL,
            first_ms: None,
            last_ms: None,
            interval_ms: 1000,
            samples: Vec::new(),
            node_samples: Vec::new(),
            figures: vec![Figure {
                panel: LayerId::Cells,
                entity: "DISK".into(),
                figure: "r/s",
                values: Vec::new(),
            }],
        };
        let t = text(&s, "f", "h");
        let row = t.lines().last().unwrap();
        assert_eq!(row, "cells  DISK    r/s     0    –    –    –    –", "{t}");
        assert!(csv(&s).contains("cells,DISK,r/s,0,,,,,,\n"));
        let j: serde_json::Value = serde_json::from_str(&json(&s, "f", "h")).unwrap();
        assert!(j["figures"][0]["min"].is_null());
    }
}

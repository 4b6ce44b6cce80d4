//! One figure, one value: over assets/demo.strec (a real recording), what
//! a chart title, a table, `strata export` (batch's own printers, in CSV
//! and JSON) and `strata summary` print for the same entity and interval
//! agree at the printed precision.
//!
//! The recording is played into an app and, input for input, into the
//! walker export and summary use; at three intervals of each layer (a
//! quarter, half and three quarters through) the screens are drawn and
//! their figures read off the text, then the export and the summary of
//! exactly that interval are read the same way. Each figure is compared
//! across every output that shows it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::fidelity::app_of;
use std::path::Path;
use strata::app::{App, Panel, View};
use strata::export::summary::report;
use strata::export::walk::{Step, Walker};
use strata::export::{ExportOptions, Window, export, summarize};
use strata::layers::LayerId;
use strata::layers::disks::report::Selection;
use strata::layers::host::ReportOptions;
use strata::layers::report::Format;
use strata::recording::session::Player;

/// The fixture sessions' start.
const T0: i64 = 1_795_000_000_000;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.strec");

/// A number as printed, in a unit common to the outputs compared: its
/// value, and half a unit of its last digit (how far it may be from the
/// figure it rounds).
#[derive(Debug, Clone, Copy)]
struct Printed {
    v: f64,
    half: f64,
}

/// "12.34", "1.5k", "0"; `None` for "–" or an empty CSV field.
fn printed(text: &str, scale: f64) -> Option<Printed> {
    let t = text.trim().trim_matches('"');
    let (num, mult) = match t.chars().last()? {
        'k' => (&t[..t.len() - 1], 1e3),
        'M' => (&t[..t.len() - 1], 1e6),
        'G' => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    let v: f64 = num.parse().ok()?;
    let decimals = num.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    Some(Printed {
        v: v * mult * scale,
        half: 0.5 * 10f64.powi(-decimals) * mult * scale,
    })
}

/// One output's print of a figure.
struct Seen {
    from: String,
    text: String,
    p: Option<Printed>,
}

/// Every output's print of one figure of one entity at one interval.
struct Figure {
    what: String,
    /// A latency the summary leaves out over an interval without a request
    /// (the screens and batch print 0.00 there, as iostat does).
    latency: bool,
    seen: Vec<Seen>,
}

impl Figure {
    fn new(what: String, latency: bool) -> Figure {
        Figure {
            what,
            latency,
            seen: Vec::new(),
        }
    }

    fn saw(&mut self, from: &str, text: &str, scale: f64) {
        self.seen.push(Seen {
            from: from.to_string(),
            text: text.to_string(),
            p: printed(text, scale),
        });
    }

    /// A sum of printed figures (the cluster's IOPS from r/s and w/s): off
    /// by as much as its terms together.
    fn saw_sum(&mut self, from: &str, texts: &[String], scale: f64) {
        let terms: Option<Vec<Printed>> = texts.iter().map(|t| printed(t, scale)).collect();
        self.seen.push(Seen {
            from: from.to_string(),
            text: texts.join(" + "),
            p: terms.map(|t| Printed {
                v: t.iter().map(|p| p.v).sum(),
                half: t.iter().map(|p| p.half).sum(),
            }),
        });
    }

    /// Two prints of the same value agree at the printed precision: the
    /// same digits when printed alike, else each within half a unit of its
    /// last digit of the value, so of each other within the sum of both.
    fn check(&self) -> usize {
        let say = |s: &Seen| format!("{} {:?}", s.from, s.text);
        let all: Vec<String> = self.seen.iter().map(say).collect();
        let known = |s: &Seen| s.p.is_some();
        for a in &self.seen {
            let summary = a.from.starts_with("summary");
            if !(summary && self.latency) {
                assert_eq!(
                    known(a),
                    known(&self.seen[0]),
                    "{}: known in some outputs only: {all:?}",
                    self.what
                );
            }
        }
        let mut compared = 0;
        for (i, a) in self.seen.iter().enumerate() {
            for b in &self.seen[i + 1..] {
                let (Some(x), Some(y)) = (a.p, b.p) else {
                    continue;
                };
                let noise = 1e-9 * x.v.abs().max(1.0);
                let alike = (x.half - y.half).abs() <= 1e-12 * x.half;
                let tol = if alike {
                    noise
                } else {
                    x.half + y.half + noise
                };
                assert!(
                    (x.v - y.v).abs() <= tol,
                    "{}: {} and {} differ at the printed precision ({all:?})",
                    self.what,
                    say(a),
                    say(b)
                );
                compared += 1;
            }
        }
        compared
    }
}

/// The token after `label` in the chart titled `title` (right after the
/// title for a lone series the title names).
fn title_figure(screen: &str, title: &str, label: Option<&str>) -> String {
    let key = format!("┌ {title} ");
    let line = screen
        .lines()
        .find(|l| l.contains(&key))
        .unwrap_or_else(|| panic!("no chart {title:?}:\n{screen}"));
    let mut rest = &line[line.find(&key).unwrap() + key.len()..];
    if let Some(l) = label {
        let k = format!("{l} ");
        let at = rest
            .find(&k)
            .unwrap_or_else(|| panic!("no {l:?} in {title:?}: {line}"));
        rest = &rest[at + k.len()..];
    }
    rest.split_whitespace().next().unwrap().to_string()
}

/// Whitespace-separated tokens of a line with the char index each ends at.
fn tokens(line: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in chars.iter().chain([&' ']).enumerate() {
        let blank = c.is_whitespace() || matches!(c, '│' | '"');
        match (blank, start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((i, chars[s..i].iter().collect()));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Where the header `col` (a word or words, e.g. "avg RTT (ms)") ends on
/// `line`, in chars.
fn column_end(line: &str, col: &str) -> Option<usize> {
    let chars: Vec<char> = line.chars().collect();
    let pat: Vec<char> = col.chars().collect();
    let sep = |c: Option<&char>| c.is_none_or(|c| c.is_whitespace() || matches!(c, '│' | '"'));
    (0..=chars.len().saturating_sub(pat.len()))
        .find(|&i| {
            chars[i..i + pat.len()] == pat[..]
                && sep(i.checked_sub(1).and_then(|j| chars.get(j)))
                && sep(chars.get(i + pat.len()))
        })
        .map(|i| i + pat.len())
}

/// In the table whose header line has every one of `header`, the figure
/// in column `col` of the first row after it that starts with `row`: a
/// figure is right-aligned, so it ends where its header ends.
fn table_figure(screen: &str, header: &[&str], row: &str, col: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let h = lines
        .iter()
        .position(|l| header.iter().all(|t| column_end(l, t).is_some()))
        .unwrap_or_else(|| panic!("no table with {header:?}:\n{screen}"));
    let end =
        column_end(lines[h], col).unwrap_or_else(|| panic!("no column {col:?}: {}", lines[h]));
    let r = lines[h + 1..]
        .iter()
        .find(|l| tokens(l).first().is_some_and(|(_, t)| t == row))
        .unwrap_or_else(|| panic!("no row {row:?} under {}:\n{screen}", lines[h]));
    tokens(r)
        .into_iter()
        .find(|(e, _)| *e == end)
        .unwrap_or_else(|| panic!("nothing under {col:?} in {r}"))
        .1
}

/// The value after `label` on a line of a "now" box (not a chart title).
fn box_figure(screen: &str, label: &str) -> String {
    screen
        .lines()
        .filter(|l| !l.contains('┌'))
        .find_map(|l| {
            let t = tokens(l);
            let i = t.iter().position(|(_, x)| x == label)?;
            Some(t.get(i + 1)?.1.clone())
        })
        .unwrap_or_else(|| panic!("no {label:?} box line:\n{screen}"))
}

/// The token `k` places after the first line's tokens that start with
/// `lead` (the overview's "r_await ms 0.33", "DISK r/s 126.64 w/s ...").
fn line_figure(screen: &str, lead: &[&str], k: usize) -> String {
    screen
        .lines()
        .find_map(|l| {
            let t = tokens(l);
            let starts = t.len() >= lead.len() && lead.iter().zip(&t).all(|(a, b)| *a == b.1);
            starts.then(|| t.get(lead.len() - 1 + k).map(|x| x.1.clone()))?
        })
        .unwrap_or_else(|| panic!("no line {lead:?}:\n{screen}"))
}

/// A CSV export's field `col` on the row whose fields `keys` name.
fn csv_field(csv: &str, keys: &[(&str, &str)], col: &str) -> String {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |c: &str| {
        head.iter()
            .position(|h| *h == c)
            .unwrap_or_else(|| panic!("no CSV column {c:?}: {head:?}"))
    };
    let row: Vec<&str> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|r| keys.iter().all(|(c, k)| r[at(c)].trim_matches('"') == *k))
        .unwrap_or_else(|| panic!("no CSV row {keys:?}:\n{csv}"));
    row[at(col)].to_string()
}

/// A JSON export's field `key` on the object whose `key_field` is
/// `entity`, as printed (a parsed 16013.00 would read back as 16013.0);
/// within the object under `group` when given. Empty for null.
fn json_field(json: &str, key_field: &str, entity: &str, group: Option<&str>, key: &str) -> String {
    let line = json
        .lines()
        .find(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()[key_field] == entity)
        .unwrap_or_else(|| panic!("no JSON object {entity:?}:\n{json}"));
    let mut rest = line;
    if let Some(g) = group {
        let k = format!("\"{g}\": {{");
        rest = &rest[rest.find(&k).unwrap_or_else(|| panic!("no {g:?}: {line}")) + k.len()..];
    }
    let k = format!("\"{key}\": ");
    let at = rest
        .find(&k)
        .unwrap_or_else(|| panic!("no {key:?}: {line}"))
        + k.len();
    let v = rest[at..].split([',', '}']).next().unwrap().trim();
    if v == "null" {
        String::new()
    } else {
        v.to_string()
    }
}

/// The summary's printed max of a figure over a one-interval window (its
/// one value), "–" when unknown.
fn summary_figure(text: &str, panel: &str, entity: &str, figure: &str) -> String {
    let line = text
        .lines()
        .find(|l| {
            l.starts_with(panel)
                && l.contains(&format!(" {entity} "))
                && l.contains(&format!(" {figure} "))
        })
        .unwrap_or_else(|| panic!("no {panel} {entity} {figure}:\n{text}"));
    let t: Vec<&str> = line.split_whitespace().collect();
    let n = t[t.len() - 5];
    assert!(n == "1" || n == "0", "one interval, one sample: {line}");
    t[t.len() - 1].to_string()
}

fn render(app: &mut App, stack: Vec<View>, w: u16, h: u16) -> String {
    app.ui.stack = stack;
    common::render(app, w, h)
}

/// The intervals a layer's figures are compared at.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Target {
    panel: LayerId,
    at_ms: i64,
}

/// A quarter, half and three quarters through each layer's intervals.
fn targets(path: &Path, panels: &[LayerId]) -> Vec<Target> {
    let mut player = Player::open(path).unwrap();
    let mut walker = Walker::new(&player.meta, None);
    let mut steps: Vec<Target> = Vec::new();
    while let Some((at, input)) = player.next_input() {
        match walker.apply(at, input) {
            Some(Step::Note { .. } | Step::Node { .. }) | None => {}
            Some(s) => steps.push(Target {
                panel: s.panel(),
                at_ms: s.at_ms(),
            }),
        }
    }
    let mut out = Vec::new();
    for &p in panels {
        let of: Vec<&Target> = steps.iter().filter(|s| s.panel == p).collect();
        assert!(of.len() >= 8, "{p:?}: {} intervals", of.len());
        out.extend([of.len() / 4, of.len() / 2, of.len() * 3 / 4].map(|i| *of[i]));
    }
    out
}

/// What one interval's export (CSV and JSON) and summary print.
struct Printouts {
    csv: String,
    json: String,
    summary: String,
}

fn printouts(path: &Path, t: Target) -> Printouts {
    let mut player = Player::open(path).unwrap();
    let config = player.meta.config.clone();
    let window = Window {
        from_ms: t.at_ms,
        to_ms: t.at_ms,
        markers: None,
    };
    let mut run = |format| {
        let opts = ExportOptions {
            panel: Some(t.panel),
            window: window.clone(),
            how: ReportOptions {
                format,
                units: config.units,
                selection: Selection {
                    partitions: config.show_partitions,
                    all_devices: config.show_all_devices,
                    mapper_names: false,
                },
                all_interfaces: true,
            },
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = export(&mut player, &opts, &mut out, &mut err);
        assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
        String::from_utf8(out).unwrap()
    };
    let (csv, json) = (run(Format::Csv), run(Format::Json));
    let s = summarize(&mut player, &window);
    let summary = report(&s, Format::Text, "demo", "vm");
    Printouts { csv, json, summary }
}

/// A device's iostat figures: detail chart titles and "now" box, the
/// disks table's row, the overview's busiest devices, the export's rows;
/// its %util in the summary when it is the busiest.
fn disks(app: &mut App, out: &Printouts, busiest: bool, figs: &mut Vec<Figure>) {
    let tick = app.host().disks.tick().unwrap();
    let dev = tick
        .busiest()
        .map_or_else(|| tick.rows[0].name.clone(), |b| b.0.clone());
    let detail = render(
        app,
        vec![View::Panel(Panel::Disks), View::Disk(dev.clone())],
        200,
        80,
    );
    let table = render(app, vec![View::Panel(Panel::Disks)], 320, 60);
    let overview = render(app, vec![View::Panel(Panel::Overview)], 200, 60);
    let busiest_devices = ["busiest", "devices", "Class"];
    let util = if detail.contains("┌ %util (not meaningful here) ") {
        "%util (not meaningful here)"
    } else {
        "%util"
    };
    // (column, chart title, its label there, JSON key)
    let cols: [(&str, &str, Option<&str>, &str); 8] = [
        ("r/s", "IOPS", Some("r/s"), "r/s"),
        ("w/s", "IOPS", Some("w/s"), "w/s"),
        ("rkB/s", "Throughput", Some("rkB/s"), "rkB/s"),
        ("wkB/s", "Throughput", Some("wkB/s"), "wkB/s"),
        ("r_await", "Await ms", Some("r_await"), "r_await"),
        ("w_await", "Await ms", Some("w_await"), "w_await"),
        ("aqu-sz", "Queue", Some("aqu-sz"), "aqu-sz"),
        ("%util", util, None, "util"),
    ];
    for (col, title, label, key) in cols {
        let mut f = Figure::new(format!("disks {dev} {col}"), col.contains("await"));
        f.saw("chart title", &title_figure(&detail, title, label), 1.0);
        f.saw("now box", &box_figure(&detail, col), 1.0);
        f.saw(
            "disks table",
            &table_figure(&table, &["r/s", "%util"], &dev, col),
            1.0,
        );
        if ["r/s", "w/s", "r_await", "w_await", "%util"].contains(&col) {
            f.saw(
                "overview's busiest devices",
                &table_figure(&overview, &busiest_devices, &dev, col),
                1.0,
            );
        }
        f.saw(
            "export csv",
            &csv_field(&out.csv, &[("device", &dev)], col),
            1.0,
        );
        f.saw(
            "export json",
            &json_field(&out.json, "disk_device", &dev, None, key),
            1.0,
        );
        if col == "%util" && busiest {
            f.saw(
                "summary",
                &summary_figure(&out.summary, "disks", "busiest device", "%util"),
                1.0,
            );
            let o = line_figure(&overview, &["busiest"], 1);
            f.saw("overview's busiest", o.trim_end_matches('%'), 1.0);
        }
        figs.push(f);
    }
    // The whole disks' totals: the overview's lines, the summary (MB/s
    // there, kB/s on screen).
    let totals: [(&str, &str, f64); 6] = [
        ("r/s", "r/s", 1.0),
        ("w/s", "w/s", 1.0),
        ("rkB/s", "rMB/s", 1024.0),
        ("wkB/s", "wMB/s", 1024.0),
        ("r_await ms", "r_await ms", 1.0),
        ("w_await ms", "w_await ms", 1.0),
    ];
    for (label, sum, scale) in totals {
        let mut f = Figure::new(format!("disks total {label}"), label.contains("await"));
        let lead: Vec<&str> = label.split(' ').collect();
        f.saw("overview", &line_figure(&overview, &lead, 1), 1.0);
        f.saw(
            "summary",
            &summary_figure(&out.summary, "disks", "total", sum),
            scale,
        );
        figs.push(f);
    }
}

/// The page cache's charted figures: titles, export, summary (sizes in
/// kB: the chart and the summary count MiB).
fn cache(app: &mut App, out: &Printouts, figs: &mut Vec<Figure>) {
    let refault = app
        .host()
        .cache
        .tick()
        .and_then(|t| t.refault_counter)
        .unwrap_or("refault");
    let screen = render(app, vec![View::Panel(Panel::Cache)], 200, 60);
    let mib = "Dirty and writeback MiB";
    // (label, chart title, export column, summary's name, chart unit in kB)
    let (paging, faults) = ("Paging kB/s", "Faults /s");
    let figures: [(&str, &str, &str, &str, f64); 6] = [
        ("Dirty", mib, "dirty_kb", "dirty MB", 1024.0),
        ("Writeback", mib, "writeback_kb", "writeback MB", 1024.0),
        ("pgpgin", paging, "pgpgin_kb_s", "pgpgin kB/s", 1.0),
        ("pgpgout", paging, "pgpgout_kb_s", "pgpgout kB/s", 1.0),
        ("majflt", faults, "majflt_s", "majflt/s", 1.0),
        (refault, faults, "refault_file_s", "refault/s", 1.0),
    ];
    for (label, title, col, sum, scale) in figures {
        let mut f = Figure::new(format!("cache {label}"), false);
        f.saw(
            "chart title",
            &title_figure(&screen, title, Some(label)),
            scale,
        );
        f.saw(
            "export csv",
            &csv_field(&out.csv, &[("record", "memory")], col),
            1.0,
        );
        f.saw(
            "export json",
            &json_field(&out.json, "record", "memory", None, col),
            1.0,
        );
        f.saw(
            "summary",
            &summary_figure(&out.summary, "cache", "host", sum),
            scale,
        );
        figs.push(f);
    }
}

/// An interface's figures: its detail's chart titles and "now" box, its
/// export rows; in the summary (MB/s) when the panel lists it.
fn nic(app: &mut App, out: &Printouts, name: &str, listed: bool, figs: &mut Vec<Figure>) {
    let screen = render(
        app,
        vec![View::Panel(Panel::Nics), View::Nic(name.to_string())],
        200,
        60,
    );
    let figures: [(&str, &str, &str, &str); 5] = [
        ("rKB/s", "Throughput", "rKB/s", "in MB/s"),
        ("wKB/s", "Throughput", "wKB/s", "out MB/s"),
        ("rPk/s", "Packets", "rPk/s", ""),
        ("wPk/s", "Packets", "wPk/s", ""),
        ("%Util", "Utilisation", "Util", "%util"),
    ];
    for (label, title, col, sum) in figures {
        let mut f = Figure::new(format!("nics {name} {label}"), false);
        f.saw(
            "chart title",
            &title_figure(&screen, title, Some(label)),
            1.0,
        );
        f.saw("now box", &box_figure(&screen, label), 1.0);
        f.saw(
            "export csv",
            &csv_field(&out.csv, &[("interface", name)], col),
            1.0,
        );
        f.saw(
            "export json",
            &json_field(&out.json, "interface", name, None, col),
            1.0,
        );
        if listed && !sum.is_empty() {
            let scale = if sum.contains("MB/s") { 1024.0 } else { 1.0 };
            // an interface without a speed has no %util (nicstat's "–")
            f.saw(
                "summary",
                &summary_figure(&out.summary, "nics", name, sum),
                scale,
            );
        }
        figs.push(f);
    }
}

/// Each cell's disks: a disk's detail (chart titles and "now" box) and
/// its line in the cell's disks table.
fn cell_disks(app: &mut App, figs: &mut Vec<Figure>) {
    for i in 0..app.cells.list.len() {
        let names: Vec<String> = app
            .cell_disk_rows(i)
            .iter()
            .map(|r| r.name.clone())
            .collect();
        let label = app.cells.list[i].link.target.label.clone();
        let cell = vec![View::Panel(Panel::Cells), View::Cell(i)];
        let table = render(app, cell.clone(), 320, 90);
        for name in names {
            let mut stack = cell.clone();
            stack.push(View::CellDisk(i, name.clone()));
            let detail = render(app, stack, 200, 80);
            let util = if detail.contains("┌ %util (not meaningful here) ") {
                "%util (not meaningful here)"
            } else {
                "%util"
            };
            for (col, title, label_there) in [
                ("r/s", "IOPS", Some("r/s")),
                ("w/s", "IOPS", Some("w/s")),
                ("rkB/s", "Throughput", Some("rkB/s")),
                ("wkB/s", "Throughput", Some("wkB/s")),
                ("r_await", "Await ms", Some("r_await")),
                ("w_await", "Await ms", Some("w_await")),
                ("aqu-sz", "Queue", Some("aqu-sz")),
                ("%util", util, None),
            ] {
                let mut f = Figure::new(format!("cell {label} disk {name} {col}"), false);
                f.saw(
                    "chart title",
                    &title_figure(&detail, title, label_there),
                    1.0,
                );
                f.saw("now box", &box_figure(&detail, col), 1.0);
                f.saw(
                    "cell's disks table",
                    &table_figure(&table, &["Device", "r/s", "%util"], &name, col),
                    1.0,
                );
                figs.push(f);
            }
        }
    }
}

/// A group figure: its column, chart title, label there, JSON key,
/// summary's name, place on the overview's storage line.
type GroupFig = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
    &'static str,
    usize,
);

/// DISK and FLASH over all cells (charts, lines, the export's "all" row,
/// the summary) and of each cell (its view's charts and lines, its row).
fn cells(app: &mut App, out: &Printouts, figs: &mut Vec<Figure>) {
    let all = render(app, vec![View::Panel(Panel::Cells)], 320, 90);
    let overview = render(app, vec![View::Panel(Panel::Overview)], 200, 60);
    // (column, chart title, its label, JSON key, summary's name, place on
    // the overview's line)
    let figures: [GroupFig; 7] = [
        ("r/s", "IOPS", Some("r/s"), "r_s", "r/s", 2),
        ("w/s", "IOPS", Some("w/s"), "w_s", "w/s", 4),
        ("rMB/s", "MB/s", Some("rMB/s"), "rmb_s", "rMB/s", 7),
        ("wMB/s", "MB/s", Some("wMB/s"), "wmb_s", "wMB/s", 9),
        (
            "r_await",
            "await ms",
            Some("r"),
            "r_await_ms",
            "r_await ms",
            12,
        ),
        (
            "w_await",
            "await ms",
            Some("w"),
            "w_await_ms",
            "w_await ms",
            14,
        ),
        ("%util", "%util", None, "util_pct", "%util", 16),
    ];
    let labels: Vec<String> = app
        .cells
        .list
        .iter()
        .map(|c| c.link.target.label.clone())
        .collect();
    let mut screens = vec![("all".to_string(), all, "all cells")];
    for (i, label) in labels.into_iter().enumerate() {
        let s = render(app, vec![View::Panel(Panel::Cells), View::Cell(i)], 320, 90);
        screens.push((label, s, "this cell"));
    }
    for (entity, screen, head) in &screens {
        // a cell that is not live has no lines to compare
        if !screen.contains(head) {
            continue;
        }
        let lead = head.split(' ').next().unwrap();
        for (media, lower) in [("DISK", "disk"), ("FLASH", "flash")] {
            for (col, title, label, key, sum, at) in figures {
                let mut f = Figure::new(
                    format!("cells {entity} {media} {col}"),
                    col.contains("await"),
                );
                let title = format!("{media} {title}");
                f.saw("chart title", &title_figure(screen, &title, label), 1.0);
                f.saw(
                    "group lines",
                    &table_figure(screen, &[lead, "r/s", "%util"], media, col),
                    1.0,
                );
                let csv_col = format!("{lower}_{key}");
                f.saw(
                    "export csv",
                    &csv_field(&out.csv, &[("cell", entity)], &csv_col),
                    1.0,
                );
                f.saw(
                    "export json",
                    &json_field(&out.json, "cell", entity, Some(lower), key),
                    1.0,
                );
                if entity == "all" {
                    f.saw(
                        "summary",
                        &summary_figure(&out.summary, "cells", media, sum),
                        1.0,
                    );
                    // "DISK r/s 1.00 w/s 2.00 MB/s r 0.59 w 4.24 await r
                    // 0.33 w 1.57 %util 0.40"
                    f.saw(
                        "overview's storage line",
                        &line_figure(&overview, &[media], at),
                        1.0,
                    );
                }
                figs.push(f);
            }
        }
    }
}

/// Plays `path` into an app and the walker; at each target interval, `at`
/// adds the figures of its panel. Checks them all; returns how many pairs
/// were compared.
fn compare(
    path: &Path,
    panels: &[LayerId],
    mut at: impl FnMut(&mut App, &Printouts, LayerId, &mut Vec<Figure>),
) -> usize {
    let targets = targets(path, panels);
    let mut player = Player::open(path).unwrap();
    let mut app = app_of(&player.meta);
    let mut walker = Walker::new(&player.meta, None);
    let mut figs: Vec<Figure> = Vec::new();
    let mut seen = Vec::new();
    while let Some((t_in, input)) = player.next_input() {
        app.apply(input.clone());
        let Some(step) = walker.apply(t_in, input) else {
            continue;
        };
        let t = Target {
            panel: step.panel(),
            at_ms: step.at_ms(),
        };
        if matches!(step, Step::Note { .. }) || !targets.contains(&t) {
            continue;
        }
        seen.push(t);
        at(&mut app, &printouts(path, t), t.panel, &mut figs);
    }
    let key = |t: &Target| (t.panel as usize, t.at_ms);
    seen.sort_by_key(key);
    let mut want = targets.clone();
    want.sort_by_key(key);
    assert_eq!(seen, want, "every interval reached");
    let compared: usize = figs.iter().map(Figure::check).sum();
    let outputs: usize = figs.iter().map(|f| f.seen.len()).sum();
    let moving = figs
        .iter()
        .filter(|f| f.seen.iter().any(|s| s.p.is_some_and(|p| p.v != 0.0)))
        .count();
    println!(
        "{}: {} figures ({moving} not zero) at {} intervals, {outputs} prints, {compared} pairs compared",
        path.display(),
        figs.len(),
        targets.len()
    );
    compared
}

#[test]
fn every_output_prints_one_value_per_figure() {
    let panels = [
        LayerId::Disks,
        LayerId::Cache,
        LayerId::Nics,
        LayerId::Cells,
    ];
    let compared = compare(
        Path::new(DEMO),
        &panels,
        |app, out, panel, figs| match panel {
            LayerId::Disks => disks(app, out, true, figs),
            LayerId::Cache => cache(app, out, figs),
            LayerId::Nics => {
                nic(app, out, "eth0", true, figs);
                nic(app, out, "strata-demo0", false, figs);
            }
            LayerId::Cells => {
                cells(app, out, figs);
                cell_disks(app, figs);
            }
            _ => {}
        },
    );
    assert!(compared > 500, "{compared}");
}

/// A session of the fixture host's NFS mounts, recorded by the recorder
/// from what the real source read of a tree rewritten each second.
fn nfs_recording(dir: &Path) -> std::path::PathBuf {
    use strata::app::Input;
    use strata::core::host::SelfUsage;
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("proc/self")).unwrap();
    let fs = strata::core::rootfs::RootFs::new(root.clone());
    let mut source = strata::layers::nfs::source::NfsSource::new(fs);
    let app = common::fidelity::host_app(Vec::new(), 1.0);
    let path = dir.join("nfs.strec");
    let meta = strata::recording::control::meta_of(&app, T0);
    let mut rec = strata::recording::session::Recorder::create(&path, &meta).unwrap();
    for k in 0..20u64 {
        let up = 100_000 + k * 100;
        let uptime = format!("{}.{:02} 0.00\n", up / 100, up % 100);
        std::fs::write(root.join("proc/uptime"), uptime).unwrap();
        let stats = common::layers::mountstats_text(k);
        std::fs::write(root.join("proc/self/mountstats"), stats).unwrap();
        let t = T0 + k as i64 * 1000;
        let nfs = Input::Nfs(Ok(source.sample(t).unwrap()));
        rec.record(t + 5, &nfs).unwrap();
        let (now_ms, usage) = (t + 900, SelfUsage::default());
        rec.record(now_ms, &Input::Clock { now_ms, usage }).unwrap();
    }
    rec.close().unwrap();
    path
}

/// An operation's figure of a mount: the operation, chart title, its
/// label there, the operations table's column, the CSV column, the
/// summary's name ("" for none) and its unit in the chart's.
type OpFig = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    f64,
);

const NFS_OPS: [OpFig; 6] = [
    ("READ", "Operations", "READ/s", "ops/s", "op_ops/s", "", 1.0),
    (
        "WRITE",
        "Operations",
        "WRITE/s",
        "ops/s",
        "op_ops/s",
        "",
        1.0,
    ),
    (
        "READ",
        "Throughput",
        "rd kB/s",
        "kB/s",
        "op_kB/s",
        "rMB/s",
        1024.0,
    ),
    (
        "WRITE",
        "Throughput",
        "wr kB/s",
        "kB/s",
        "op_kB/s",
        "wMB/s",
        1024.0,
    ),
    (
        "READ",
        "RTT ms",
        "READ",
        "avg RTT (ms)",
        "op_avg_rtt_ms",
        "r RTT ms",
        1.0,
    ),
    (
        "WRITE",
        "RTT ms",
        "WRITE",
        "avg RTT (ms)",
        "op_avg_rtt_ms",
        "w RTT ms",
        1.0,
    ),
];

/// Each mount's figures: its view's chart titles and operations table,
/// the NFS table's row (ops/s), the export's rows (one per operation),
/// the summary.
fn nfs(app: &mut App, out: &Printouts, figs: &mut Vec<Figure>) {
    use strata::layers::nfs::tick::mount_label;
    let rows: Vec<(String, String, String)> = app
        .host()
        .nfs
        .tick()
        .unwrap()
        .rows
        .iter()
        .map(|r| (r.key.clone(), r.export.clone(), mount_label(r)))
        .collect();
    let table = render(app, vec![View::Panel(Panel::Nfs)], 250, 40);
    let ops = ["Operation", "ops/s", "kB/s"];
    for (key, export, label) in rows {
        let screen = render(
            app,
            vec![View::Panel(Panel::Nfs), View::Nfs(key.clone())],
            200,
            70,
        );
        let mut f = Figure::new(format!("nfs {label} ops/s"), false);
        f.saw(
            "chart title",
            &title_figure(&screen, "RPC", Some("ops/s")),
            1.0,
        );
        f.saw(
            "NFS table",
            &table_figure(&table, &["Export", "ops/s"], &export, "ops/s"),
            1.0,
        );
        let mount = [("export", export.as_str())];
        f.saw("export csv", &csv_field(&out.csv, &mount, "ops/s"), 1.0);
        f.saw(
            "summary",
            &summary_figure(&out.summary, "nfs", &label, "ops/s"),
            1.0,
        );
        figs.push(f);
        for (op, title, tl, col, csv_col, sum, scale) in NFS_OPS {
            let mut f = Figure::new(format!("nfs {label} {op} {col}"), col.contains("RTT"));
            f.saw("chart title", &title_figure(&screen, title, Some(tl)), 1.0);
            f.saw(
                "operations table",
                &table_figure(&screen, &ops, op, col),
                1.0,
            );
            let keys = [("export", export.as_str()), ("op", op)];
            f.saw("export csv", &csv_field(&out.csv, &keys, csv_col), 1.0);
            if !sum.is_empty() {
                f.saw(
                    "summary",
                    &summary_figure(&out.summary, "nfs", &label, sum),
                    scale,
                );
            }
            figs.push(f);
        }
    }
}

#[test]
fn a_recorded_nfs_mount_prints_one_value_per_figure() {
    let dir = tempfile::tempdir().unwrap();
    let path = nfs_recording(dir.path());
    let compared = compare(&path, &[LayerId::Nfs], |app, out, _, figs| {
        nfs(app, out, figs);
    });
    assert!(compared > 50, "{compared}");
}

/// A session of the fixture database PROD (19c RAC), recorded as the live
/// loop records it: the app's clock, then each reading.
fn dnfs_recording(dir: &Path) -> std::path::PathBuf {
    use strata::app::Input;
    use strata::core::host::SelfUsage;
    use strata::layers::dnfs::source::{DbEvent, DbStatus, parse_db_spec};
    let mut app = common::fidelity::host_app(Vec::new(), 5.0);
    app.set_dbs(vec![parse_db_spec("dbsnmp@//prod-scan:1521/PROD").unwrap()]);
    let samples = common::dnfs::readings("19c", 9);
    let start = samples[0].wall_ms - 1000;
    let path = dir.join("db.strec");
    let meta = strata::recording::control::meta_of(&app, start);
    let mut rec = strata::recording::session::Recorder::create(&path, &meta).unwrap();
    let status = DbStatus::Live;
    let live = Input::Db(DbEvent::Status { db: 0, status });
    rec.record(start, &live).unwrap();
    for sample in samples {
        let now_ms = sample.wall_ms;
        let usage = SelfUsage::default();
        rec.record(now_ms, &Input::Clock { now_ms, usage }).unwrap();
        let reading = Input::Db(DbEvent::Sample { db: 0, sample });
        rec.record(now_ms, &reading).unwrap();
    }
    rec.close().unwrap();
    path
}

/// A database's dNFS totals: the chart titles of the list and of the
/// database's view, the list's line, the instances table's database line,
/// the export's "all" row, the summary.
fn dnfs(app: &mut App, out: &Printouts, figs: &mut Vec<Figure>) {
    let label = app.dnfs.list[0].target.label.clone();
    let stack = vec![View::Panel(Panel::Databases)];
    app.ui.dnfs.db = None;
    let list = render(app, stack.clone(), 200, 50);
    app.ui.dnfs.db = Some(0);
    let db = render(app, stack, 200, 60);
    app.ui.dnfs.db = None;
    // (column, chart title after the label, series label, CSV column,
    // summary's name)
    let figures = [
        ("iops", "dNFS IOPS", "iops", "iops", "IOPS"),
        ("rMB/s", "MB/s", "r", "rmb_s", "rMB/s"),
        ("wMB/s", "MB/s", "w", "wmb_s", "wMB/s"),
    ];
    for (col, title, tl, csv_col, sum) in figures {
        let mut f = Figure::new(format!("dnfs {label} {col}"), false);
        let title = format!("{label} {title}");
        f.saw(
            "list's chart title",
            &title_figure(&list, &title, Some(tl)),
            1.0,
        );
        f.saw(
            "database's chart title",
            &title_figure(&db, &title, Some(tl)),
            1.0,
        );
        f.saw(
            "databases list",
            &table_figure(&list, &["Database", col], &label, col),
            1.0,
        );
        f.saw(
            "instances table",
            &table_figure(&db, &["Instance", col], "database", col),
            1.0,
        );
        let keys = [("db", label.as_str()), ("inst_id", "all")];
        f.saw("export csv", &csv_field(&out.csv, &keys, csv_col), 1.0);
        f.saw(
            "summary",
            &summary_figure(&out.summary, "dnfs", &label, sum),
            1.0,
        );
        figs.push(f);
    }
}

#[test]
fn a_recorded_database_prints_one_value_per_figure() {
    let dir = tempfile::tempdir().unwrap();
    let path = dnfs_recording(dir.path());
    let compared = compare(&path, &[LayerId::Dnfs], |app, out, _, figs| {
        dnfs(app, out, figs);
    });
    assert!(compared > 40, "{compared}");
}

/// A session of two database nodes' disks (the fixture host's, node `i`
/// `5 * i` seconds ahead), as the live loop records it.
fn cluster_recording(dir: &Path) -> std::path::PathBuf {
    use strata::app::Input;
    use strata::app::input::NodeInput;
    use strata::core::host::SelfUsage;
    use strata::link::HostStatus;
    let mut app = common::app_with(0);
    app.set_nodes(common::ssh_nodes(&["oracle@db01", "oracle@db02"]));
    let path = dir.join("cluster.strec");
    let meta = strata::recording::control::meta_of(&app, T0);
    let mut rec = strata::recording::session::Recorder::create(&path, &meta).unwrap();
    for k in 0..12u64 {
        let t = T0 + k as i64 * 1000;
        for node in 0..2usize {
            if k == 0 {
                let status = HostStatus::Live;
                rec.record(t + 1, &Input::NodeStatus { node, status })
                    .unwrap();
            }
            let mut d = common::sample(k + 5 * node as u64);
            d.wall_ms = t + 10;
            let input = NodeInput::Disks(Ok(d));
            rec.record(t + 10, &Input::Node { node, input }).unwrap();
        }
        let (now_ms, usage) = (t + 900, SelfUsage::default());
        rec.record(now_ms, &Input::Clock { now_ms, usage }).unwrap();
    }
    rec.close().unwrap();
    path
}

/// The cluster overview's IOPS and MB/s: the chart titles' cluster and
/// busiest node, their rows (r/s + w/s, MB/s), the summary's per-node
/// totals summed.
#[test]
fn the_cluster_overview_prints_one_value_per_figure() {
    let dir = tempfile::tempdir().unwrap();
    let path = cluster_recording(dir.path());
    let mut player = Player::open(&path).unwrap();
    let mut app = app_of(&player.meta);
    let labels: Vec<String> = app
        .nodes
        .iter()
        .map(|n| n.link.target.label().to_string())
        .collect();
    let mut figs = Vec::new();
    let mut clocks = 0;
    while let Some((_, input)) = player.next_input() {
        let clock = matches!(input, strata::app::Input::Clock { .. });
        app.apply(input);
        if !clock {
            continue;
        }
        clocks += 1;
        if ![4, 7, 10].contains(&clocks) {
            continue;
        }
        // the nodes' samples of this second
        let at = app.now_ms - 890;
        let window = Window {
            from_ms: at,
            to_ms: at,
            markers: None,
        };
        let s = summarize(&mut Player::open(&path).unwrap(), &window);
        let summary = report(&s, Format::Text, "cluster", "db01");
        let screen = render(&mut app, vec![View::Panel(Panel::Overview)], 200, 60);
        let busiest = labels
            .iter()
            .find(|l| screen.contains(&format!("] {l} ")))
            .cloned();
        let row =
            |name: &str, col: &str| table_figure(&screen, &["node", "r/s", "MB/s"], name, col);
        let sum = |node: &str, fig: &str| {
            summary_figure(&summary, "disks", &format!("{node}:total"), fig)
        };
        for (title, parts, sums) in [
            ("IOPS (r/s + w/s)", vec!["r/s", "w/s"], ["r/s", "w/s"]),
            ("MB/s (read + written)", vec!["MB/s"], ["rMB/s", "wMB/s"]),
        ] {
            let mut f = Figure::new(format!("cluster {title} at {clocks} s"), false);
            f.saw(
                "chart title",
                &title_figure(&screen, title, Some("cluster")),
                1.0,
            );
            let cells: Vec<String> = parts.iter().map(|c| row("cluster", c)).collect();
            f.saw_sum("cluster row", &cells, 1.0);
            let all: Vec<String> = labels
                .iter()
                .flat_map(|n| sums.map(|x| sum(n, x)))
                .collect();
            f.saw_sum("summary", &all, 1.0);
            figs.push(f);
            let Some(node) = &busiest else { continue };
            let mut f = Figure::new(format!("{node} {title} at {clocks} s"), false);
            f.saw(
                "chart title",
                &title_figure(&screen, title, Some(node)),
                1.0,
            );
            let cells: Vec<String> = parts.iter().map(|c| row(node, c)).collect();
            f.saw_sum("node's row", &cells, 1.0);
            f.saw_sum("summary", &sums.map(|x| sum(node, x)), 1.0);
            figs.push(f);
        }
    }
    assert_eq!(clocks, 12);
    let compared: usize = figs.iter().map(Figure::check).sum();
    println!("cluster: {} figures, {compared} pairs compared", figs.len());
    assert!(compared >= 30, "{compared}");
}

//! The process panel: who does the I/O. A row per Oracle role and
//! instance (or command) per host, and in the cluster's table the
//! cluster's sums; a role's processes with pidstat -d's figures; one
//! process's names and charts.

use super::table::{self, Col, Table, TableRow};
use super::widgets::Series;
use crate::app::list::Drawn;
use crate::app::procs::{
    PROC_TABLE, ProcLine, ProcNames, ROLE_TABLE, RoleColumn, RoleLine, proc_tick,
};
use crate::app::{App, View};
use crate::format;
use crate::layers::LayerId;
use crate::layers::col::Units;
use crate::layers::procs::model::{ProcCol, ProcColKind, ProcFig};
use crate::layers::procs::state::chart_index;
use crate::layers::procs::table::{DelayAcct, USER_HZ};
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Wrap};

/// What a host's error line blames.
const SOURCE: &str = "processes";

/// A column's header in the units shown: kB_rd/s, or MB_rd/s.
fn header(c: ProcCol, units: Units) -> String {
    let h = c.def().header;
    match (units, c.def().kind) {
        (Units::MB, ProcColKind::Throughput) => h.replacen("kB", "MB", 1),
        _ => h.to_string(),
    }
}

/// A figure in the units shown (held in kB/s).
fn scaled(c: ProcCol, v: Option<f64>, units: Units) -> Option<f64> {
    match (units, c.def().kind) {
        (Units::MB, ProcColKind::Throughput) => v.map(|x| x / 1024.0),
        _ => v,
    }
}

fn role_header(c: RoleColumn, units: Units) -> String {
    match c {
        RoleColumn::Active => "procs".into(),
        RoleColumn::Fig(c) => header(c, units),
    }
}

/// A role's row: its node, its role and instance, and its figures.
struct RoleItem<'a> {
    line: &'a RoleLine,
    node: Option<&'a str>,
    cluster: bool,
    app: &'a App,
}

impl TableRow for RoleItem<'_> {
    fn key(&self) -> &str {
        &self.line.key
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let t = &self.app.theme;
        let l = self.line;
        let mut cells = Vec::new();
        if self.cluster {
            cells.push(match self.node {
                Some(n) => Cell::from(n.to_string()),
                None => Cell::from(Span::styled("\u{2211} cluster", t.key)),
            });
        }
        cells.push(Cell::from(l.role.clone()));
        cells.push(Cell::from(Span::styled(
            l.instance.clone().unwrap_or_else(|| format::UNKNOWN.into()),
            if l.instance.is_some() {
                t.base
            } else {
                t.muted
            },
        )));
        cells
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let Some(c) = ROLE_TABLE.get(j) else {
            return (None, self.app.theme.muted);
        };
        let v = match c {
            RoleColumn::Fig(p) => scaled(*p, self.line.value(*c), self.app.ui.units),
            RoleColumn::Active => self.line.value(*c),
        };
        (v, self.app.theme.base)
    }

    fn figure_cell(&self, j: usize, width: u16, t: &Theme) -> Cell<'_> {
        match ROLE_TABLE.get(j) {
            // a count of processes is whole, and says its unreadable ones
            Some(RoleColumn::Active) => {
                let text = count_text(self.line);
                let style = if self.line.unreadable > 0 {
                    t.warn
                } else {
                    t.base
                };
                let w = usize::from(width);
                Cell::from(Line::from(Span::styled(format!("{text:>w$}"), style)))
            }
            _ => {
                let (v, style) = self.figure(j);
                table::figure(v, width, t, style)
            }
        }
    }

    fn figure_width(&self, j: usize) -> usize {
        match ROLE_TABLE.get(j) {
            Some(RoleColumn::Active) => count_text(self.line).chars().count(),
            _ => format::figure(self.figure(j).0).chars().count(),
        }
    }
}

/// "3", or "3+2?" with two processes of the role unreadable.
fn count_text(l: &RoleLine) -> String {
    if l.unreadable > 0 {
        format!("{}+{}?", l.active, l.unreadable)
    } else {
        l.active.to_string()
    }
}

/// What the panel says over its table: the processes read on each host,
/// who could not be read and why, and the delay accounting when it is
/// off. Warnings in `t.warn`, the rest muted.
fn host_notes(app: &App) -> Vec<(String, bool)> {
    let mut notes = Vec::new();
    let mut delay_off = false;
    for (i, h) in app.shown_hosts() {
        let Some(t) = proc_tick(h) else {
            continue;
        };
        let label = i
            .and_then(|i| app.nodes.get(i))
            .map(|n| format!("{}: ", n.link.target.label()));
        let lead = label.unwrap_or_default();
        let moved = t.procs.len();
        notes.push((
            format!(
                "{lead}{} read of {} · {} did I/O",
                t.readable,
                format::count(t.processes as usize, "process", "processes"),
                moved
            ),
            false,
        ));
        for u in &t.unreadable {
            notes.push((format!("{lead}{}", u.explain()), true));
        }
        delay_off |= t.delayacct == DelayAcct::Off;
    }
    if delay_off {
        notes.push((DelayAcct::HOW.to_string(), true));
    }
    notes
}

/// The panel's frame and what it says while it has no figures: the room
/// inside it, or `None`.
fn frame(f: &mut Frame, app: &App, area: Rect, title: String) -> Option<Rect> {
    let t = &app.theme;
    let block = super::panel_block(title, t, true);
    let block = if app.shows_cluster() {
        block
    } else {
        super::with_source_state(block, &app.host().procs, SOURCE, t)
    };
    let inner = block.inner(area);
    f.render_widget(block, area);
    if super::said_not_current(f, app, inner, true) {
        return None;
    }
    let has = |h: &crate::layers::host::HostLayers| h.procs.tick().is_some();
    if app.shows_cluster() {
        if !app.nodes.iter().any(|n| has(&n.layers)) {
            super::waiting_on(f, app, inner, true);
            return None;
        }
    } else if !has(app.host()) {
        super::no_figures(f, app, inner, (&app.host().procs, SOURCE), true);
        return None;
    }
    Some(inner)
}

/// Notes over a table: as many lines as they wrap to, up to `most`; the
/// rest of `inner` for the table.
fn notes_over(f: &mut Frame, app: &App, inner: Rect, most: u16) -> Rect {
    let t = &app.theme;
    let notes = host_notes(app);
    let lines: Vec<Line> = notes
        .into_iter()
        .map(|(n, warn)| Line::from(Span::styled(n, if warn { t.warn } else { t.muted })))
        .collect();
    let rows = super::widgets::wrapped_rows(&lines, usize::from(inner.width));
    let h = u16::try_from(rows).unwrap_or(u16::MAX).min(most);
    let [top, rest] = Layout::vertical([Constraint::Length(h), Constraint::Min(0)]).areas(inner);
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), top);
    rest
}

fn sort_word(sort: Option<usize>, cols: &[String], name: &'static str) -> String {
    sort.and_then(|i| cols.get(i).cloned())
        .unwrap_or_else(|| name.to_string())
}

/// The roles table.
pub fn draw(f: &mut Frame, app: &App, area: Rect) -> Drawn {
    let units = app.ui.units;
    let lines = app.role_lines();
    let headers: Vec<String> = ROLE_TABLE.iter().map(|c| role_header(*c, units)).collect();
    let sort = sort_word(app.ui.proc_roles.sort, &headers, "Role");
    let title = table::panel_title(
        app,
        "Procs",
        (lines.len(), app.role_count(), "roles"),
        &app.ui.proc_roles,
        &sort,
    );
    let Some(inner) = frame(f, app, area, title) else {
        return Drawn::default();
    };
    let rest = notes_over(f, app, inner, (inner.height / 3).max(1));
    let cluster = app.shows_cluster();
    let items: Vec<RoleItem> = lines
        .iter()
        .map(|line| RoleItem {
            line,
            node: line
                .node
                .and_then(|i| app.nodes.get(i))
                .map(|n| n.link.target.label()),
            cluster,
            app,
        })
        .collect();
    let mut cols = Vec::new();
    if cluster {
        let labels = items
            .iter()
            .filter_map(|r| r.node)
            .chain(["\u{2211} cluster"]);
        cols.push(Col::text("Node", table::name_width(labels, "Node").min(24)));
    }
    let rw = table::name_width(lines.iter().map(|l| l.role.as_str()), "Role").min(20);
    let iw = table::name_width(
        lines.iter().filter_map(|l| l.instance.as_deref()),
        "Instance",
    )
    .min(16);
    cols.push(Col::text("Role", rw));
    cols.push(Col::text("Instance", iw));
    let frozen = cols.len();
    cols.extend(headers.iter().map(Col::figure));
    if items.is_empty() {
        let why = if app.ui.filter.is_empty() && app.ui.filter_edit.is_none() {
            "no process did I/O in the last interval"
        } else {
            "no role matches the filter"
        };
        super::say(f, rest, why, app.theme.muted);
        return Drawn::default();
    }
    Table::new(cols, frozen, &app.ui.proc_roles)
        .legend(&[
            "– unknown",
            "n+m?: m processes unreadable",
            "iodelay in clock ticks",
        ])
        .draw(f, rest, &app.theme, &items)
}

/// A process's row in its role's table.
struct ProcItem<'a> {
    line: &'a ProcLine<'a>,
    node: Option<&'a str>,
    app: &'a App,
}

impl TableRow for ProcItem<'_> {
    fn key(&self) -> &str {
        &self.line.key
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let r = &self.line.fig.row;
        let t = &self.app.theme;
        let mut cells = Vec::new();
        if let Some(n) = self.node {
            cells.push(Cell::from(n.to_string()));
        }
        cells.push(Cell::from(Line::from(r.pid.to_string()).right_aligned()));
        cells.push(Cell::from(self.line.user.clone()));
        cells.push(Cell::from(Span::styled(r.comm.clone(), t.muted)));
        cells.push(Cell::from(r.cmd.clone()));
        cells
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let Some(c) = PROC_TABLE.get(j) else {
            return (None, self.app.theme.muted);
        };
        let v = scaled(*c, self.line.fig.figures.get(*c), self.app.ui.units);
        (v, self.app.theme.base)
    }
}

/// A role's processes.
fn draw_role(f: &mut Frame, app: &App, area: Rect, name: &str) -> Drawn {
    let t = &app.theme;
    let units = app.ui.units;
    let lines = app.proc_lines(name);
    let total = app.proc_lines_all(name).len();
    let headers: Vec<String> = PROC_TABLE.iter().map(|c| header(*c, units)).collect();
    let sort = sort_word(app.ui.procs.sort, &headers, "Command");
    let title = table::panel_title(
        app,
        name,
        (lines.len(), total, "processes"),
        &app.ui.procs,
        &sort,
    );
    let Some(inner) = frame(f, app, area, title) else {
        return Drawn::default();
    };
    let cluster = lines.iter().any(|l| l.node.is_some());
    let items: Vec<ProcItem> = lines
        .iter()
        .map(|line| ProcItem {
            line,
            node: line
                .node
                .and_then(|i| app.nodes.get(i))
                .map(|n| n.link.target.label()),
            app,
        })
        .collect();
    if items.is_empty() {
        let why = if total == 0 {
            "none of its processes did I/O in the last interval"
        } else {
            "no process matches the filter"
        };
        super::say(f, inner, why, t.muted);
        return Drawn::default();
    }
    let mut cols = Vec::new();
    if cluster {
        let labels = items.iter().filter_map(|r| r.node);
        cols.push(Col::text("Node", table::name_width(labels, "Node").min(24)));
    }
    let pid_w = lines
        .iter()
        .map(|l| l.fig.row.pid.to_string().chars().count())
        .chain([3])
        .max()
        .unwrap_or(3) as u16;
    cols.push(Col::text("PID", pid_w));
    cols.push(Col::text(
        "User",
        table::name_width(lines.iter().map(|l| l.user.as_str()), "User").min(12),
    ));
    cols.push(Col::text(
        "Comm",
        table::name_width(lines.iter().map(|l| l.fig.row.comm.as_str()), "Comm").min(15),
    ));
    cols.push(Col::text(
        "Command",
        table::name_width(lines.iter().map(|l| l.fig.row.cmd.as_str()), "Command").min(24),
    ));
    let frozen = cols.len();
    cols.extend(headers.iter().map(Col::figure));
    Table::new(cols, frozen, &app.ui.procs)
        .legend(&["– unknown", "Enter: a process's charts"])
        .draw(f, inner, t, &items)
}

/// A process's names, its figures now (or that it did no I/O) and what
/// its charts' gaps are.
fn names_lines(app: &App, p: &ProcNames, fig: Option<&ProcFig>) -> Vec<Line<'static>> {
    let t = &app.theme;
    let units = app.ui.units;
    // ticks after boot: seconds, as ps's START is of its clock
    let started = p.start as f64 / USER_HZ as f64;
    let role = match &p.instance {
        Some(i) => format!("{} {i}", p.role),
        None => p.role.clone(),
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled("pid ", t.muted),
            Span::raw(p.pid.to_string()),
            Span::styled(" · started ", t.muted),
            Span::raw(format!("{started:.2} s after boot")),
            Span::styled(" · user ", t.muted),
            Span::raw(p.user.clone()),
        ]),
        Line::from(vec![
            Span::styled("role ", t.muted),
            Span::styled(role, t.accent),
            Span::styled(" · instance ", t.muted),
            Span::raw(
                p.instance
                    .clone()
                    .unwrap_or_else(|| format::UNKNOWN.to_string()),
            ),
            Span::styled(" · comm ", t.muted),
            Span::raw(p.comm.clone()),
        ]),
        Line::from(vec![
            Span::styled("cmd ", t.muted),
            Span::raw(if p.cmd.is_empty() {
                format::UNKNOWN.to_string()
            } else {
                p.cmd.clone()
            }),
        ]),
    ];
    let now: Vec<Span> = match fig {
        Some(fig) => PROC_TABLE
            .iter()
            .take(5)
            .flat_map(|c| {
                let v = scaled(*c, fig.figures.get(*c), units);
                [
                    Span::styled(format!("{} ", header(*c, units)), t.muted),
                    Span::styled(
                        format!("{}  ", format::fit(v, 10, 2)),
                        if v.is_some() { t.base } else { t.muted },
                    ),
                ]
            })
            .collect(),
        None => vec![Span::styled(
            "no I/O in the last interval (or the process is gone)",
            t.muted,
        )],
    };
    lines.push(Line::from(now));
    lines.push(Line::from(Span::styled(
        "an interval the process did no I/O in has no value: a gap in its charts",
        t.muted,
    )));
    lines
}

/// One process: its names, its figures now and its charts.
fn draw_proc(f: &mut Frame, app: &App, area: Rect, p: &ProcNames) -> Drawn {
    let t = &app.theme;
    let layer = &app.host().procs;
    let title = super::title_of(
        &[
            format!("pid {}", p.pid),
            if p.cmd.is_empty() {
                p.comm.clone()
            } else {
                p.cmd.clone()
            },
        ],
        area.width,
    );
    let inner = super::source_framed(f, area, title, (layer, SOURCE), t);
    let fig = app.proc_fig(p);
    let units = app.ui.units;
    let lines = names_lines(app, p, fig);
    let rows = super::widgets::wrapped_rows(&lines, usize::from(inner.width));
    let h = u16::try_from(rows)
        .unwrap_or(u16::MAX)
        .min(inner.height / 2);
    let [top, charts] = Layout::vertical([Constraint::Length(h), Constraint::Min(0)]).areas(inner);
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), top);

    let entity = p.entity();
    let n = layer.history.capacity();
    let s = |label, c: ProcCol, style| Series {
        label,
        values: layer
            .series(&entity, chart_index(c), n)
            .into_iter()
            .map(|x| scaled(c, Some(f64::from(x)), units).unwrap_or(f64::NAN) as f32)
            .collect(),
        now: fig.and_then(|fig| scaled(c, fig.figures.get(c), units)),
        style,
    };
    let rd = header(ProcCol::KbRd, units);
    let wr = header(ProcCol::KbWr, units);
    let tput = if units == Units::MB { "MB/s" } else { "kB/s" };
    let specs: [(&str, &str, Vec<Series>); 3] = [
        (
            "Storage I/O",
            tput,
            vec![
                s(&rd, ProcCol::KbRd, t.read),
                s(&wr, ProcCol::KbWr, t.write),
            ],
        ),
        (
            "I/O delay",
            "ticks",
            vec![s("iodelay", ProcCol::Iodelay, t.accent)],
        ),
        ("I/O wait", "%", vec![s("%io", ProcCol::IoPct, t.accent)]),
    ];
    super::history_charts(
        f,
        app,
        charts,
        (&**layer, &entity),
        (Direction::Vertical, &specs),
    );
    Drawn::default()
}

/// The process panel and its drill-downs.
pub(super) struct ProcsScreen;

impl super::LayerScreen for ProcsScreen {
    fn id(&self) -> LayerId {
        LayerId::Procs
    }
    fn draw(&self, f: &mut Frame, app: &App, area: Rect, view: &View) -> Drawn {
        match view {
            View::Proc(p)
                if super::node_detail_not_current(f, app, area, &format!("pid {}", p.pid)) =>
            {
                Drawn::default()
            }
            View::Proc(p) => draw_proc(f, app, area, p),
            View::ProcRole(name) => draw_role(f, app, area, name),
            _ => draw(f, app, area),
        }
    }
    fn crumb(&self, _: &App, view: &View) -> String {
        match view {
            View::ProcRole(name) => name.clone(),
            View::Proc(p) => format!("pid {}", p.pid),
            _ => String::new(),
        }
    }
    fn footer(&self, _: &App, view: &View) -> Option<&'static [(&'static str, &'static str)]> {
        match view {
            View::ProcRole(_) => Some(&[
                ("Enter", "process"),
                ("s/S", "sort"),
                ("r", "reverse"),
                ("/", "filter"),
                ("Esc", "back"),
                ("u", "kB/MB"),
                ("p", "pause"),
            ]),
            View::Proc(_) => Some(&[("Esc", "back"), ("u", "kB/MB"), ("p", "pause")]),
            _ => None,
        }
    }
    fn offered(&self, app: &App, view: &View, key: &str) -> bool {
        match (view, key) {
            (View::ProcRole(name), "Enter") => !app.proc_lines(name).is_empty(),
            (View::Panel(_), "Enter") => !app.role_lines().is_empty(),
            _ => true,
        }
    }
}

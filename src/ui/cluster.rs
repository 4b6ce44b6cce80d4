//! The cluster on the overview: a line per database node (its block
//! devices, NICs, page cache and NFS client) and the cluster's, the
//! busiest node and any node that is not live standing out.

use super::panel_block;
use super::widgets::CHART_MIN;
use crate::app::App;
use crate::app::host::{ClusterRow, ClusterSeries, NodeShown};
use crate::format;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::ops::Range;

/// A column: header, width, and its text for a row. Columns go in this
/// order, the last ones first out on a narrow screen.
struct Col {
    header: &'static str,
    width: u16,
    text: Text,
}

enum Text {
    /// A figure and its decimals, right-aligned.
    Fig(fn(&ClusterRow) -> Option<f64>, usize),
    /// Text of its own, as wide as it is given.
    Own(fn(&ClusterRow, usize) -> String),
}

impl Col {
    const fn fig(
        header: &'static str,
        width: u16,
        decimals: usize,
        v: fn(&ClusterRow) -> Option<f64>,
    ) -> Col {
        Col {
            header,
            width,
            text: Text::Fig(v, decimals),
        }
    }

    const fn own(header: &'static str, width: u16, text: fn(&ClusterRow, usize) -> String) -> Col {
        Col {
            header,
            width,
            text: Text::Own(text),
        }
    }

    /// `r`'s text in `width` columns (the column's own, or more).
    fn text(&self, r: &ClusterRow, width: u16) -> String {
        let w = usize::from(width);
        match self.text {
            Text::Fig(v, decimals) => format!("{:>w$}", format::fit(v(r), w, decimals)),
            Text::Own(f) => f(r, w),
        }
    }
}

const COLS: [Col; 13] = [
    Col::fig("r/s", 7, 1, |r| r.r_s),
    Col::fig("w/s", 7, 1, |r| r.w_s),
    Col::fig("MB/s", 6, 1, |r| r.mb_s),
    Col::fig("r_await", 7, 2, |r| r.r_await),
    Col::fig("w_await", 7, 2, |r| r.w_await),
    Col::own(BUSIEST, 16, busiest),
    Col::fig("in MB/s", 7, 1, |r| r.nic_in_mb),
    Col::fig("out MB/s", 8, 1, |r| r.nic_out_mb),
    Col::own("dirty/wb MB", 11, dirty),
    Col::fig("NFS op/s", 8, 1, |r| r.nfs_ops),
    // What the disks wait on, in mpstat's and sar's names: last, so that
    // 80 columns keep the I/O figures and the charts they had.
    Col::fig("%iowait", 7, 2, |r| r.iowait),
    Col::fig("%sio", 6, 2, |r| r.io_some),
    // Who does the I/O: last of all, the first to go on a narrow screen,
    // and only where a host has the process layer's figures.
    Col::own(TOP_IO, 32, top_io),
];

/// The top I/O role's column.
const TOP_IO: &str = "top I/O role · process";

/// The role and its process when both fit whole in `w`, else the role
/// alone, cut with a mark only when even it does not fit.
fn top_io(r: &ClusterRow, w: usize) -> String {
    match &r.top_io {
        Some((role, process, _)) => {
            let both = format!("{role} · {process}");
            let text = if both.chars().count() <= w {
                both
            } else {
                truncate(role, w)
            };
            format!("{text:<w$}")
        }
        None => format!("{:<w$}", "–"),
    }
}

/// The busiest device's column: the one that grows into a line's spare
/// room, for the cluster's `dev@node`.
const BUSIEST: &str = "busiest  %util";

fn busiest(r: &ClusterRow, w: usize) -> String {
    match &r.busiest {
        Some((dev, util)) => {
            let u = format::fit(Some(*util), 5, 1);
            let room = w.saturating_sub(u.chars().count() + 1);
            format!("{:<room$} {u}", short_device(dev, room))
        }
        None => format!("{:>w$}", "–"),
    }
}

/// The columns the busiest device's column wants for `r`: its name whole.
fn busiest_wanted(r: &ClusterRow) -> u16 {
    r.busiest.as_ref().map_or(0, |(dev, _)| {
        u16::try_from(dev.chars().count() + 6).unwrap_or(u16::MAX)
    })
}

/// `dev` (on the cluster's row `dev@node`) in `room` columns: cut, the
/// device goes before the node, whose label alone says which one it is.
fn short_device(dev: &str, room: usize) -> String {
    match dev.split_once('@') {
        Some((d, node)) if dev.chars().count() > room && node.chars().count() + 2 <= room => {
            format!("{}@{node}", truncate(d, room - node.chars().count() - 1))
        }
        _ => truncate(dev, room),
    }
}

fn dirty(r: &ClusterRow, w: usize) -> String {
    match (r.dirty_mb, r.writeback_mb) {
        (None, None) => format!("{:>w$}", "–"),
        (d, w) => format!("{:>5}/{:<5}", format::fit(d, 5, 0), format::fit(w, 5, 0)),
    }
}

/// What a node's line says after its name when it is not live: its
/// state, and why when the whole reason fits in `room` characters (a
/// reason is never cut: the state alone says less, not something wrong).
fn state_of(r: &ClusterRow, room: usize) -> Option<String> {
    let state = match &r.shown {
        NodeShown::Live => return None,
        NodeShown::Stale(s) => format!("stale {s} s"),
        NodeShown::Down(word) => word.clone(),
    };
    let whole = r.why.as_ref().map(|why| format!("{state}: {why}"));
    Some(whole.filter(|w| w.chars().count() <= room).unwrap_or(state))
}

/// The room after a node's flag, name and a space on a line `width` wide.
fn state_room(width: u16, name_w: u16) -> usize {
    usize::from(width.saturating_sub(name_w + 2))
}

/// Where a row's line ends when its state takes it (not live), from the
/// panel's left; 0 for a live row.
fn state_end(r: &ClusterRow, width: u16, name_w: u16) -> u16 {
    state_of(r, state_room(width, name_w)).map_or(0, |s| {
        name_w + 2 + u16::try_from(s.chars().count()).unwrap_or(u16::MAX)
    })
}

/// A row's columns from here on go to its second line when one line is
/// too narrow for them all: the block devices stay together on the first.
const SECOND_LINE: usize = 6;

/// The last columns, the CPU's: they take only room their line's chart
/// can spare.
const CPU_COLS: usize = 2;

/// The columns after the CPU's: the top I/O role's.
const TOP_COLS: usize = 1;

/// The columns a second line's chart keeps before the CPU's columns take
/// any (the 80-column screen's chart).
const SPARK_KEPT: u16 = 20;

/// The least room a sparkline is drawn in.
const SPARK_MIN: u16 = 8;

/// How a row's figures go: the columns of its first line and of its
/// second (none: one line a row).
struct Fit<'a> {
    /// The node name column's width.
    name_w: u16,
    first: Vec<&'a Col>,
    second: Vec<&'a Col>,
    /// A line of its own for the top I/O role, where neither line above
    /// had room for it and the panel has the height.
    third: Vec<&'a Col>,
    /// The busiest device's column's width: its own, and what its line
    /// has to spare up to what its names want.
    busiest_w: u16,
}

/// The columns in order while they fit in `room`, a space before each.
fn fitting(cols: &[Col], room: u16) -> Vec<&Col> {
    let mut room = room;
    cols.iter()
        .take_while(|c| {
            let fits = room > c.width;
            room = room.saturating_sub(c.width + 1);
            fits
        })
        .collect()
}

fn cols_width(cols: &[&Col]) -> u16 {
    cols.iter().map(|c| c.width + 1).sum()
}

impl Fit<'static> {
    /// One line a row when every column fits; else two when every column
    /// fits so and the panel has the height for the header, the cluster's
    /// row and a node's (more nodes than fit scroll: every figure of fewer
    /// nodes beats some figures of all); else one, the last columns left
    /// out whole, never cut. The busiest device's column then takes what
    /// its line has to spare, up to `busiest_want` (a sparkline has less
    /// room: `sdb@127.0.…` did not say which node).
    fn choose(width: u16, height: u16, name_w: u16, busiest_want: u16, top: bool) -> Self {
        let room = width.saturating_sub(name_w + 1);
        let extra = CPU_COLS + TOP_COLS;
        // the top I/O role only where some host has one
        let tail = if top {
            &COLS[COLS.len() - extra..]
        } else {
            &COLS[COLS.len() - extra..COLS.len() - TOP_COLS]
        };
        // the CPU's columns (then the top I/O role's) where a line keeps
        // a chart of the width it had without them
        let with_cpu = |mut cols: Vec<&'static Col>| {
            let left = room.saturating_sub(cols_width(&cols) + SPARK_KEPT);
            cols.extend(fitting(tail, left));
            cols
        };
        let io = &COLS[..COLS.len() - extra];
        let all = fitting(io, room);
        let (first, second) = match io.split_at(SECOND_LINE) {
            _ if all.len() == io.len() => (with_cpu(all), Vec::new()),
            (a, b) if height >= 6 => {
                let (first, second) = (fitting(a, room), fitting(b, room));
                if first.len() == a.len() && second.len() == b.len() {
                    (first, with_cpu(second))
                } else {
                    (all, Vec::new())
                }
            }
            _ => (all, Vec::new()),
        };
        let own = first
            .iter()
            .find(|c| c.header == BUSIEST)
            .map_or(0, |c| c.width);
        let spare = room.saturating_sub(cols_width(&first));
        // The header's, the cluster's and a node's three lines.
        let placed = first.iter().chain(&second).any(|c| c.header == TOP_IO);
        let third = match COLS.last() {
            Some(c) if top && !placed && height >= 9 && room > c.width => vec![c],
            _ => Vec::new(),
        };
        Fit {
            name_w,
            busiest_w: own + busiest_want.saturating_sub(own).min(spare),
            first,
            second,
            third,
        }
    }
}

impl Fit<'_> {
    /// The columns `c` takes here.
    fn width(&self, c: &Col) -> u16 {
        if c.header == BUSIEST {
            self.busiest_w
        } else {
            c.width
        }
    }

    /// The lines after the first that have columns.
    fn more(&self) -> impl Iterator<Item = &Vec<&Col>> {
        [&self.second, &self.third]
            .into_iter()
            .filter(|l| !l.is_empty())
    }

    fn lines(&self) -> u16 {
        1 + self.more().count() as u16
    }

    /// The lines a row takes: a node that is not live has its state alone.
    fn row_lines(&self, r: &ClusterRow) -> u16 {
        if r.shown == NodeShown::Live {
            self.lines()
        } else {
            1
        }
    }

    /// Where a row's sparkline starts (from the panel's left): after the
    /// figures of its last line and a space.
    fn spark_x(&self) -> u16 {
        let last = if self.second.is_empty() {
            &self.first
        } else {
            &self.second
        };
        1 + self.name_w + last.iter().map(|c| self.width(c) + 1).sum::<u16>() + 1
    }
}

/// The nodes whose rows fit in `room` lines: all when they can, else a
/// run of them that holds the selected one.
fn shown_nodes(fit: &Fit, rows: &[ClusterRow], selected: usize, room: u16) -> Range<usize> {
    if rows.is_empty() {
        return 0..0;
    }
    let lines = |i: usize| rows.get(i).map_or(0, |r| fit.row_lines(r));
    let sel = selected.min(rows.len() - 1);
    let (mut start, mut used) = (sel + 1, 0);
    while start > 0 && used + lines(start - 1) <= room {
        start -= 1;
        used += lines(start);
    }
    let mut end = sel + 1;
    while end < rows.len() && used + lines(end) <= room {
        used += lines(end);
        end += 1;
    }
    start.min(end)..end
}

/// The live node with the most MB/s now, if any moves data.
fn busiest_node(rows: &[ClusterRow]) -> Option<usize> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.shown == NodeShown::Live)
        .filter_map(|(i, r)| Some((i, r.mb_s?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(_, v)| *v > 0.0)
        .map(|(i, _)| i)
}

/// The columns the busiest device's names want, the cluster's included.
fn busiest_want(rows: &[ClusterRow], total: &ClusterRow) -> u16 {
    rows.iter()
        .chain([total])
        .map(busiest_wanted)
        .max()
        .unwrap_or(0)
}

/// Whether a node has the process layer's top I/O role.
fn has_top(rows: &[ClusterRow]) -> bool {
    rows.iter().any(|r| r.top_io.is_some())
}

/// The node name column's width: the longest label, at most 20.
fn name_width(rows: &[ClusterRow], total: &ClusterRow) -> u16 {
    rows.iter()
        .map(|r| r.label.chars().count())
        .chain([total.label.chars().count(), 4])
        .max()
        .unwrap_or(4)
        .min(20) as u16
}

/// The height the box needs at `width` to show every node's row
/// (`App::cluster_rows`), its borders included (its charts take what is
/// left over).
pub fn rows_wanted((rows, total): (&[ClusterRow], &ClusterRow), width: u16) -> u16 {
    let inner_width = width.saturating_sub(2);
    // tall enough for two lines a row, if the width asks for them
    let fit = Fit::choose(
        inner_width,
        u16::MAX,
        name_width(rows, total),
        busiest_want(rows, total),
        has_top(rows),
    );
    let nodes: u16 = rows.iter().map(|r| fit.row_lines(r)).sum();
    2 + fit.lines() + fit.row_lines(total) + nodes
}

/// The box of `App::cluster_rows`' lines and the cluster's charts.
pub fn draw(f: &mut Frame, app: &App, area: Rect, (rows, total): (&[ClusterRow], &ClusterRow)) {
    let t = &app.theme;
    let live = rows.iter().filter(|r| r.shown == NodeShown::Live).count();
    let inner = panel_block(String::new(), t, true).inner(area);
    let name_w = name_width(rows, total);
    let fit = Fit::choose(
        inner.width,
        inner.height,
        name_w,
        busiest_want(rows, total),
        has_top(rows),
    );
    let room = inner
        .height
        .saturating_sub(fit.lines() + fit.row_lines(total));
    let shown = shown_nodes(&fit, rows, app.ui.cluster_selected, room);
    let scrolled = if shown.len() < rows.len() {
        format!(" · {}–{} shown", shown.start + 1, shown.end)
    } else {
        String::new()
    };
    let title = format!(
        " Cluster · {} · {live} live{scrolled} · ↑↓ Enter: one node ",
        format::count(rows.len(), "node", "nodes")
    );
    f.render_widget(panel_block(title, t, true), area);
    let busiest = busiest_node(rows);
    let series = app.cluster_series();
    let spark_x = fit.spark_x();
    let spark_room = inner.width.saturating_sub(spark_x);
    let shown_rows = rows.get(shown.clone()).unwrap_or(&[]);
    let lines = figure_lines(
        app,
        &fit,
        shown_rows,
        shown.start,
        total,
        busiest,
        (inner.width, spark_room),
    );
    f.render_widget(Paragraph::new(lines), inner);
    // Each row's last line, from the panel's top: the cluster's, then the
    // nodes'.
    let mut used = fit.lines();
    let last_lines: Vec<u16> = std::iter::once(total)
        .chain(shown_rows)
        .map(|r| {
            used += fit.row_lines(r);
            used - 1
        })
        .collect();
    // The cluster's sparkline, then each node's, on the last line of its
    // row: all end at the same boundary, so a column is the same second on
    // every line. The nodes' share one scale, so a node carrying more of
    // the load stands taller than the others.
    if spark_room >= SPARK_MIN {
        let tail = |s: &[f32]| s.len().saturating_sub(usize::from(spark_room));
        let nodes_max = series
            .node_iops
            .iter()
            .flat_map(|s| s.iter().skip(tail(s)))
            .filter(|v| v.is_finite())
            .fold(None, |m: Option<f32>, v| Some(m.map_or(*v, |m| m.max(*v))));
        let cluster = std::iter::once((&series.iops, None, t.key));
        let nodes = series
            .node_iops
            .iter()
            .enumerate()
            .skip(shown.start)
            .map(|(i, s)| {
                let style = if Some(i) == busiest { t.accent } else { t.read };
                (s, nodes_max, style)
            });
        // a node that is down gives its line to its reason when that
        // needs the sparkline's room: why it is down says more than how
        // busy it was before
        let ends =
            std::iter::once(0).chain(shown_rows.iter().map(|r| state_end(r, inner.width, name_w)));
        for (((values, max, style), line), end) in cluster.chain(nodes).zip(&last_lines).zip(ends) {
            let y = inner.y + line;
            if y >= inner.bottom() {
                break;
            }
            if end >= spark_x {
                continue;
            }
            let area = Rect::new(inner.x + spark_x, y, spark_room, 1);
            super::widgets::sparkline_to(f, area, values, max, style);
        }
    }
    let charts = Rect {
        y: inner.y + used + 1,
        height: inner.height.saturating_sub(used + 1),
        ..inner
    };
    let node = busiest.and_then(|i| Some((rows.get(i)?, i)));
    draw_charts(f, app, charts, (&series, total), node);
}

/// The header, the cluster's row and those of `rows` (the nodes from
/// the `first`), each one or two lines as `fit` has it.
fn figure_lines<'a>(
    app: &App,
    fit: &Fit,
    rows: &[ClusterRow],
    first: usize,
    total: &ClusterRow,
    busiest: Option<usize>,
    (width, spark_room): (u16, u16),
) -> Vec<Line<'a>> {
    let t = &app.theme;
    let name_w = fit.name_w;
    let name = |text: &str| {
        let w = usize::from(name_w);
        format!("{:<w$}", truncate(text, w))
    };
    let blank = " ".repeat(usize::from(name_w) + 1);
    let figures = |spans: &mut Vec<Span<'a>>, cols: &[&Col], r: &ClusterRow, style: Style| {
        for c in cols {
            let text = c.text(r, fit.width(c));
            let s = if text.trim() == "–" { t.muted } else { style };
            spans.push(Span::raw(" "));
            spans.push(Span::styled(text, s));
        }
    };
    let row = |r: &ClusterRow, name_style: Style, style: Style| -> Vec<Line<'a>> {
        // A bond warning flags the name, as the NIC table flags its row.
        let (mark, flag) = if r.bond_warnings > 0 {
            ("!", t.warn)
        } else {
            (" ", name_style)
        };
        let mut spans = vec![Span::styled(format!("{mark}{}", name(&r.label)), flag)];
        let mut more: Vec<Vec<Span<'a>>> =
            fit.more().map(|_| vec![Span::raw(blank.clone())]).collect();
        match state_of(r, state_room(width, name_w)) {
            // A node that is not live has no current figures: its state
            // takes the line.
            Some(state) => spans.push(Span::styled(format!(" {state}"), t.warn)),
            None => {
                figures(&mut spans, &fit.first, r, style);
                for (line, cols) in more.iter_mut().zip(fit.more()) {
                    figures(line, cols, r, style);
                }
            }
        }
        let mut out = vec![Line::from(spans)];
        if fit.row_lines(r) > 1 {
            out.extend(more.into_iter().map(Line::from));
        }
        out
    };
    let header = |lead: String, cols: &[&Col]| {
        let mut head = vec![Span::styled(lead, t.header)];
        for c in cols {
            let w = usize::from(fit.width(c));
            let text = if c.header == TOP_IO {
                format!(" {:<w$}", c.header)
            } else {
                format!(" {:>w$}", c.header)
            };
            head.push(Span::styled(text, t.header));
        }
        head
    };
    let mut head = vec![header(format!(" {}", name("node")), &fit.first)];
    for cols in fit.more() {
        head.push(header(blank.clone(), cols));
    }
    if spark_room >= SPARK_MIN
        && let Some(last) = head.last_mut()
    {
        // over the sparklines, where the last header line's columns end
        // before them (the top I/O role's line)
        let used: usize = last.iter().map(|s| s.content.chars().count()).sum();
        let at = usize::from(width.saturating_sub(spark_room)).saturating_sub(1);
        last.push(Span::styled(
            format!("{} IOPS", " ".repeat(at.saturating_sub(used))),
            t.header,
        ));
    }
    // The cluster's row under the header: on a low screen the nodes' rows
    // go before it does.
    let mut lines: Vec<Line> = head.into_iter().map(Line::from).collect();
    lines.extend(row(total, t.key, t.key));
    for (i, r) in (first..).zip(rows) {
        let name = if i == app.ui.cluster_selected {
            t.selected
        } else if Some(i) == busiest {
            t.accent
        } else {
            t.base
        };
        lines.extend(row(r, name, t.base));
    }
    lines
}

/// Under the lines, when the panel has the rows to spare: the cluster's
/// IOPS and MB/s over the window, with those of the busiest node (its
/// label and index, as in the rows) beside them.
/// During a benchmark the question is what the cluster does over time
/// and whether one node carries it: the sum alone hides a skew, a line
/// per node on a small chart cannot be read, the busiest node's line
/// under the cluster's shows its share at a glance (and each node's own
/// trend is its sparkline above). The titles say the figures of the
/// cluster's row and the node's, as the lines above print them.
fn draw_charts(
    f: &mut Frame,
    app: &App,
    area: Rect,
    (s, total): (&ClusterSeries, &ClusterRow),
    node: Option<(&ClusterRow, usize)>,
) {
    use super::widgets::{Series, TimeAxis, chart, chart_title_width};
    use ratatui::layout::{Constraint, Layout};
    let t = &app.theme;
    if area.height < CHART_MIN || s.times.is_empty() {
        return;
    }
    let series = |(cluster, nodes, now): Figure, with_node: bool| {
        let mut out = vec![Series {
            label: "cluster",
            values: cluster.to_vec(),
            now: now(total),
            style: t.key,
        }];
        if let Some((row, i)) = node.filter(|_| with_node) {
            out.push(Series {
                label: &row.label,
                values: nodes.get(i).cloned().unwrap_or_default(),
                now: now(row),
                style: t.accent,
            });
        }
        out
    };
    let (iops_title, mb_title) = ("IOPS (r/s + w/s)", "MB/s (read + written)");
    // Each chart's series, and its figure now in a row.
    type Figure<'a> = (&'a [f32], &'a [Vec<f32>], fn(&ClusterRow) -> Option<f64>);
    let iops: Figure = (&s.iops, &s.node_iops, |r| Some(r.r_s? + r.w_s?));
    let mb_s: Figure = (&s.mb_s, &s.node_mb_s, |r| r.mb_s);
    // Side by side when each title fits half the width with the busiest
    // node; else one over the other when the height allows; else side by
    // side with the cluster's series alone if that fits, both charts
    // outweighing the node's line; else IOPS alone. A title that would
    // not fit leaves the node's series out, as no figure of it is cut.
    let fits = |title: &str, ser: &[Series], width: u16| {
        chart_title_width(title, ser, t) + 2 <= usize::from(width)
    };
    let half = area.width / 2;
    let both_fit = |with_node: bool| {
        fits(iops_title, &series(iops, with_node), half)
            && fits(mb_title, &series(mb_s, with_node), half)
    };
    let side = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]);
    let areas: Vec<Rect> = if both_fit(true) {
        side.split(area).to_vec()
    } else if area.height >= 2 * CHART_MIN {
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)])
            .split(area)
            .to_vec()
    } else if both_fit(false) {
        side.split(area).to_vec()
    } else {
        vec![area]
    };
    let x = TimeAxis {
        times: s.times.clone(),
        marks: &app.markers,
    };
    let charts = [(iops_title, "/s", iops), (mb_title, "MB/s", mb_s)];
    for (a, (title, unit, fig)) in areas.iter().zip(charts) {
        let with_node = fits(title, &series(fig, true), a.width);
        chart(f, *a, title, unit, &series(fig, with_node), &x, t);
    }
}

/// `text` cut to `width` characters, the cut marked.
fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let keep: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{keep}…")
}

#[cfg(test)]
mod tests {
    use super::short_device;

    /// Short of room, the cluster's busiest device keeps its node's
    /// label whole and cuts the device's name; shorter still, the end.
    #[test]
    fn a_short_busiest_keeps_its_node() {
        assert_eq!(short_device("sdb@db01", 16), "sdb@db01");
        assert_eq!(short_device("nvme0n1@db01.x", 12), "nvme…@db01.x");
        assert_eq!(
            short_device("nvme0n1@127.0.0.63:36237", 15),
            "nvme0n1@127.0.…"
        );
        assert_eq!(short_device("sda", 2), "s…");
    }
}

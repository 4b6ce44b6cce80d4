//! The database layer: Oracle Direct NFS per database, with its history,
//! and the drill-down database → instance → NFS server → channel.
//!
//! Drawn from [`Dnfs`] and [`DnfsUi`] alone, so the panel can sit in any
//! frame: the app's body, or a test's TestBackend.
//!
//! A database that cannot be read says why in full (the DPI-1047 text
//! with where the client was looked for and the fix, or the ORA- error);
//! one whose views are empty says "dNFS not in use", never zeros.

use super::widgets::{Series, TimeAxis, chart};
use crate::app::dnfs::{DbView, Dnfs, DnfsUi, TOTAL, inst_entity};
use crate::app::state::Marker;
use crate::format;
use crate::layers::dnfs::model::{
    ChannelFigures, DNFS_COLS, DnfsCol, DnfsTick, Figures, ServerFigures,
};
use crate::layers::dnfs::path::{InstanceHost, InstanceLine, PathFlag, PathLine, PathView};
use crate::layers::dnfs::source::DbStatus;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

const W: usize = 10;

fn fig(v: Option<f64>) -> String {
    format!(" {:>W$}", format::fit(v, W, 1))
}

fn status_style(t: &Theme, s: &DbStatus) -> Style {
    match s {
        DbStatus::Live => t.ok,
        DbStatus::Connecting => t.muted,
        _ => t.crit,
    }
}

/// What a list `width` columns wide leaves out of its figure columns
/// after a name `name_w` wide (each column is dropped whole), then how to
/// see them; `None` when all fit.
fn dropped_columns(name_w: usize, width: usize) -> Option<[String; 2]> {
    let fit = width.saturating_sub(name_w) / (W + 1);
    let left_out: Vec<&str> = DNFS_COLS.iter().skip(fit).map(|c| c.header).collect();
    if left_out.is_empty() {
        return None;
    }
    let more = name_w + DNFS_COLS.len() * (W + 1) - width;
    Some([
        format!("not shown: {}", left_out.join(", ")),
        format!(": {more} columns more, or a [[db]] label"),
    ])
}

/// The header over [`figures_spans`], a span a column as they are, so
/// that a narrow screen drops the same columns of both.
fn figures_header(t: &Theme, first: &str, lw: usize, extra: &str) -> Line<'static> {
    let mut h = vec![Span::styled(format!("{first:<lw$}"), t.header)];
    for c in &DNFS_COLS {
        h.push(Span::styled(format!(" {:>W$}", c.header), t.header));
    }
    h.push(Span::styled(extra.to_string(), t.header));
    Line::from(h)
}

fn figures_spans(t: &Theme, f: Option<&Figures>) -> Vec<Span<'static>> {
    DNFS_COLS
        .iter()
        .map(|c| {
            let v = f.and_then(|f| f.get(c.col));
            Span::styled(fig(v), if v.is_some() { t.base } else { t.muted })
        })
        .collect()
}

fn row_style(t: &Theme, selected: bool) -> Style {
    if selected { t.selected } else { t.base }
}

/// The figures a database shows: none when not current or not in use.
fn shown(db: &DbView, now_ms: i64, interval_ms: i64) -> Option<&DnfsTick> {
    db.current(now_ms, interval_ms).filter(|t| t.in_use)
}

/// Columns of the widest of `names`, and no fewer than `min`.
fn widest<'a>(names: impl Iterator<Item = &'a str>, min: usize) -> usize {
    names.map(|n| n.chars().count()).max().unwrap_or(0).max(min)
}

/// The breadcrumb of the panel title, in a box `width` wide: where it
/// does not fit, its first steps give way to "…" (the last step, such as
/// "channel 20/0", is what the level shows).
fn crumbs(dnfs: &Dnfs, ui: &DnfsUi, width: u16) -> String {
    let mut steps = vec!["Databases · dNFS".to_string()];
    if let Some((db, tick)) = ui.db(dnfs) {
        steps.push(db.target.label.clone());
        if let Some(i) = ui.inst {
            steps.push(format!("inst {i}"));
        }
        if let (Some(i), Some(id)) = (ui.inst, ui.server) {
            let name = tick
                .and_then(|t| {
                    t.servers
                        .iter()
                        .find(|s| s.row.inst_id == i && s.row.id == id)
                })
                .map_or_else(|| format!("server {id}"), |s| s.row.name.clone());
            steps.push(name);
        }
        if let Some((p, c)) = ui.channel {
            steps.push(format!("channel {p}/{c}"));
        }
    }
    // two corners and a space either side
    let room = usize::from(width).saturating_sub(4);
    let mut s = steps.join(" › ");
    let mut first = 0;
    while Span::raw(s.as_str()).width() > room && first + 1 < steps.len() {
        first += 1;
        s = std::iter::once("…")
            .chain(steps[first..].iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" › ");
    }
    s
}

/// Draws the panel into `area` as `cx` says (its `now_ms` the screen's
/// clock, the panel picks the reading shown).
pub fn draw(f: &mut Frame, area: Rect, cx: Ctx) {
    let cx = Ctx {
        now_ms: cx.dnfs.shown_now(cx.now_ms),
        ..cx
    };
    let title = format!(" {} ", crumbs(cx.dnfs, cx.ui, area.width));
    let inner = super::framed(f, area, title, cx.t, true);
    if cx.dnfs.list.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled(
                super::none_here(
                    cx.recorded,
                    "databases",
                    "no databases: name one with --db user@//host:port/service (password in STRATA_DB_PASSWORD), --db / or [[db]] in the config",
                ),
                cx.t.muted,
            ))
            .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    }
    match cx.ui.db(cx.dnfs) {
        None => draw_list(f, inner, &cx),
        Some((db, _)) => draw_db(f, inner, &cx, db),
    }
}

/// What every level of the panel is drawn from.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub t: &'a Theme,
    pub dnfs: &'a Dnfs,
    pub ui: &'a DnfsUi,
    /// The time the screen shows (the pause's while paused).
    pub now_ms: i64,
    /// The run's markers, shown on the charts.
    pub marks: &'a [Marker],
    /// A recording's screens: no advice that only applies live.
    pub recorded: bool,
    /// The path's line-up, as the overview shows it.
    pub path: Option<&'a PathView>,
}

// a database's state and figures are read at the screen's time against
// the databases' interval, in every level alike
impl Ctx<'_> {
    fn current<'d>(&self, db: &'d DbView) -> Option<&'d DnfsTick> {
        db.current(self.now_ms, self.dnfs.interval.ms())
    }

    fn shown<'d>(&self, db: &'d DbView) -> Option<&'d DnfsTick> {
        shown(db, self.now_ms, self.dnfs.interval.ms())
    }

    fn state_label(&self, db: &DbView) -> String {
        db.state_label(self.now_ms, self.dnfs.interval.ms())
    }
}

/// Every database: its state and totals; the highlighted one's history
/// and, when it cannot be read, why.
fn draw_list(f: &mut Frame, area: Rect, cx: &Ctx) {
    let Ctx { t, dnfs, ui, .. } = *cx;
    let lw = widest(dnfs.list.iter().map(|d| d.target.label.as_str()), 8);
    // the name and its state column
    let name_w = lw + 18;
    let mut lines = vec![figures_header(t, "Database", name_w, "  inst  channels")];
    for (i, db) in dnfs.list.iter().enumerate() {
        let state = cx.state_label(db);
        let tick = cx.current(db);
        let mut spans = vec![
            Span::styled(
                format!("{:<lw$} ", db.target.label),
                row_style(t, i == ui.selected),
            ),
            Span::styled(format!("{state:<17}"), status_style(t, &db.status)),
        ];
        match tick {
            Some(tk) if !tk.in_use => spans.push(Span::styled(
                " dNFS not in use (the views are empty)",
                t.warn,
            )),
            _ => {
                spans.extend(figures_spans(
                    t,
                    cx.shown(db).and_then(|k| k.total.as_ref()),
                ));
                if let Some(tk) = tick {
                    spans.push(Span::styled(
                        format!("  {:>4}  {:>8}", tk.instances.len(), tk.channels.len()),
                        t.muted,
                    ));
                }
            }
        }
        lines.push(Line::from(spans));
    }
    if let Some(note) = dropped_columns(name_w, usize::from(area.width)) {
        lines.push(Line::from(note.map(|s| Span::styled(s, t.muted)).to_vec()));
    }
    let list_h = lines.len() as u16 + 1;
    let [top, rest] =
        Layout::vertical([Constraint::Length(list_h), Constraint::Min(0)]).areas(area);
    let lines = super::widgets::whole_spans(lines, top.width);
    f.render_widget(Paragraph::new(lines), top);
    // The path's line-up under the charts, in its aligned form, where the
    // panel has the room for both: the overview's box may only have room
    // for its compact line.
    let inner_w = usize::from(rest.width.saturating_sub(2));
    let path = cx
        .path
        .map(|p| path_lines(t, p, PathForm::Aligned(inner_w)));
    let path_h = path
        .as_ref()
        .map_or(0, |l| super::widgets::wrapped_rows(l, inner_w) as u16 + 2);
    let selected = dnfs.list.get(ui.selected);
    let why = selected.and_then(|db| reason(t, db));
    let (charts, path_area) = if path_h > 0 && rest.height >= path_h + CHARTS_MIN {
        // right under the charts or the reason
        let above = why
            .as_ref()
            .map_or(CHARTS_ROWS, |p| p.line_count(rest.width) as u16)
            .min(rest.height - path_h);
        let [c, p, _] = Layout::vertical([
            Constraint::Length(above),
            Constraint::Length(path_h),
            Constraint::Min(0),
        ])
        .areas(rest);
        (c, Some(p))
    } else {
        (rest, None)
    };
    if let Some(db) = selected {
        let now = cx.shown(db).and_then(|k| k.total.as_ref());
        history_or_reason(f, charts, cx, (db, why), (TOTAL, &db.target.label), now);
    }
    if let (Some(area), Some(lines)) = (path_area, path) {
        path_box(f, area, t, lines);
    }
}

/// The rows the charts of a database keep before the path's line-up gets
/// a box on the panel: two charts of five rows.
const CHARTS_MIN: u16 = 10;
/// The most rows the charts of an entity take.
const CHARTS_ROWS: u16 = 12;

/// Why a database has no charts, wrapped: its state, then each part of
/// its reason (a missing client's says where it looked).
fn reason<'a>(t: &Theme, db: &DbView) -> Option<Paragraph<'a>> {
    let reason = db.reason()?;
    let lines: Vec<Line> = std::iter::once(Line::from(Span::styled(
        format!("{}: {}", db.target.label, db.state_label(0, i64::MAX / 4)),
        status_style(t, &db.status),
    )))
    .chain(
        reason
            .split(" | ")
            .map(|p| Line::from(Span::styled(p.to_string(), t.base))),
    )
    .collect();
    Some(Paragraph::new(lines).wrap(Wrap { trim: true }))
}

/// The charts of an entity's IOPS and MB/s, or why there are none (`why`,
/// the database's [`reason`], built once by the caller that also sized
/// the area by it); `now` is the entity's figures as its line prints
/// them, for the titles.
fn history_or_reason(
    f: &mut Frame,
    area: Rect,
    cx: &Ctx,
    (db, why): (&DbView, Option<Paragraph>),
    (entity, what): (&str, &str),
    now: Option<&Figures>,
) {
    let (t, marks) = (cx.t, cx.marks);
    if let Some(why) = why {
        f.render_widget(why, area);
        return;
    }
    if area.height < 6 {
        return;
    }
    let h = &db.layer.history;
    let seq = h.seq();
    let n = h.capacity();
    let x = TimeAxis {
        times: h.times(seq, n),
        marks,
    };
    let s = |label, c: DnfsCol, style| Series {
        label,
        values: h.values(entity, c as usize, seq, n),
        now: now.and_then(|f| f.get(c)),
        style,
    };
    let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
        .areas(area.intersection(Rect {
            height: area.height.min(CHARTS_ROWS),
            ..area
        }));
    chart(
        f,
        a,
        &format!("{what} dNFS IOPS"),
        "/s",
        &[s("iops", DnfsCol::Iops, t.accent)],
        &x,
        t,
    );
    chart(
        f,
        b,
        &format!("{what} MB/s"),
        "MB/s",
        &[
            s("r", DnfsCol::ReadMbPerS, t.read),
            s("w", DnfsCol::WriteMbPerS, t.write),
        ],
        &x,
        t,
    );
}

fn draw_db(f: &mut Frame, area: Rect, cx: &Ctx, db: &DbView) {
    let Ctx { t, ui, .. } = *cx;
    let tick = db.layer.latest.as_ref();
    let current = cx.current(db).is_some();
    let mut head = vec![Line::from(vec![
        Span::styled(format!("{} ", db.target.label), t.accent),
        Span::styled(cx.state_label(db), status_style(t, &db.status)),
    ])];
    if let Some(tk) = tick {
        let itv = tk.itv_ms.map_or(format::UNKNOWN.to_string(), |ms| {
            format!("{:.1}", ms as f64 / 1000.0)
        });
        head[0].spans.extend([
            Span::styled(format!("  · interval {itv} s (database clock)"), t.muted),
            Span::styled(
                format!(" · SENDS/RECVS read as {}", tk.counting.label()),
                t.muted,
            ),
            Span::styled(format!(" · {}", shape_note(tk)), t.muted),
        ]);
    }
    if let Some(tk) = tick.filter(|tk| !tk.in_use) {
        let _ = tk;
        head.push(Line::from(Span::styled(
            "dNFS not in use: gv$dnfs_servers, channels and files are empty: this database does no I/O through Direct NFS (the views fill once a file is opened through it)",
            t.warn,
        )));
    }
    if !current && db.status == DbStatus::Live {
        head.push(Line::from(Span::styled(
            "figures not current: no reading for two intervals",
            t.warn,
        )));
    }
    let head_h = head.len() as u16;
    let (entity, what) = match ui.inst {
        Some(i) => (inst_entity(i), format!("inst {i}")),
        None => (TOTAL.to_string(), db.target.label.clone()),
    };
    let charts_h = if ui.server.is_none() {
        10u16.min(area.height / 2)
    } else {
        0
    };
    let [head_area, charts, _, body] = Layout::vertical([
        Constraint::Length(head_h),
        Constraint::Length(charts_h),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(area);
    // on a narrow screen the notes after the state drop whole
    let head = super::widgets::whole_spans(head, head_area.width);
    f.render_widget(Paragraph::new(head), head_area);
    if charts_h > 0 {
        let shown = cx.shown(db);
        let now = match ui.inst {
            Some(i) => shown
                .and_then(|k| k.instances.iter().find(|x| x.inst_id == i))
                .and_then(|x| x.figures.as_ref()),
            None => shown.and_then(|k| k.total.as_ref()),
        };
        history_or_reason(f, charts, cx, (db, reason(cx.t, db)), (&entity, &what), now);
    }
    let Some(tk) = tick.filter(|tk| tk.in_use) else {
        return;
    };
    let lines = match (ui.inst, ui.server, ui.channel) {
        (None, _, _) => instance_lines(t, tk, ui, current),
        (Some(i), None, _) => server_lines(t, tk, i, ui),
        (Some(i), Some(s), None) => channel_lines(t, tk, i, s, ui),
        (Some(i), Some(s), Some(ch)) => channel_detail(t, tk, i, s, ch),
    };
    let lines = super::widgets::whole_spans(lines, body.width);
    f.render_widget(Paragraph::new(lines), body);
}

fn shape_note(tk: &DnfsTick) -> String {
    let s = tk.shape;
    let mut parts = Vec::new();
    if !s.byte_columns {
        parts.push("no byte columns (before 11.2.0.4): MB/s unknown");
    }
    if !s.inst_id {
        parts.push("v$ views: one instance");
    }
    if parts.is_empty() {
        "columns: bytes, LOCAL".to_string()
            + if s.nfs_version_column {
                ", NFSVERSION"
            } else {
                ""
            }
    } else {
        parts.join(" · ")
    }
}

fn instance_lines(t: &Theme, tk: &DnfsTick, ui: &DnfsUi, current: bool) -> Vec<Line<'static>> {
    let mut lines = vec![figures_header(t, "Instance", 10, "  processes")];
    for (k, i) in tk.instances.iter().enumerate() {
        let mut spans = vec![Span::styled(
            format!("{:<10}", format!("inst {}", i.inst_id)),
            row_style(t, k == ui.selected),
        )];
        spans.extend(figures_spans(t, i.figures.as_ref().filter(|_| current)));
        spans.push(Span::styled(format!("  {:>9}", i.processes), t.muted));
        lines.push(Line::from(spans));
    }
    let mut spans = vec![Span::styled(format!("{:<10}", "database"), t.header)];
    spans.extend(figures_spans(t, tk.total.as_ref().filter(|_| current)));
    lines.push(Line::from(spans));
    lines
}

/// A span a column, each in `style`: a narrow screen drops the last
/// columns whole.
fn columns<const N: usize>(texts: [String; N], style: Style) -> Vec<Span<'static>> {
    texts.into_iter().map(|x| Span::styled(x, style)).collect()
}

fn server_lines(t: &Theme, tk: &DnfsTick, inst: u32, ui: &DnfsUi) -> Vec<Line<'static>> {
    let servers: Vec<&ServerFigures> = tk
        .servers
        .iter()
        .filter(|s| s.row.inst_id == inst)
        .collect();
    let nw = widest(servers.iter().map(|s| s.row.name.as_str()), 6);
    let dw = widest(servers.iter().map(|s| s.row.dirname.as_str()), 6);
    let mut lines = vec![Line::from(columns(
        [
            format!("{:<nw$}", "Server"),
            format!(" {:<dw$}", "Export"),
            format!(" {:<8}", "NFS"),
            format!(" {:>8}", "channels"),
            format!(" {:>6}", "files"),
            format!(" {:>W$}", "sends/s"),
            format!(" {:>W$}", "recvs/s"),
        ],
        t.header,
    ))];
    for (k, s) in servers.iter().enumerate() {
        let mut spans = vec![Span::styled(
            format!("{:<nw$}", s.row.name),
            row_style(t, k == ui.selected),
        )];
        spans.extend(columns(
            [
                format!(" {:<dw$}", s.row.dirname),
                format!(
                    " {:<8}",
                    s.row.nfs_version.as_deref().unwrap_or(format::UNKNOWN)
                ),
                format!(" {:>8}", s.channels),
                format!(" {:>6}", s.files),
                fig(s.sends_per_s),
                fig(s.recvs_per_s),
            ],
            t.base,
        ));
        lines.push(Line::from(spans));
    }
    if servers.is_empty() {
        lines.push(Line::from(Span::styled(
            "no NFS server on this instance",
            t.muted,
        )));
    }
    lines.push(Line::from(Span::styled(
        "no release's views count bytes per server or channel: MB/s is per instance",
        t.muted,
    )));
    lines
}

fn channels_of(tk: &DnfsTick, inst: u32, svr: u64) -> Vec<&ChannelFigures> {
    tk.channels
        .iter()
        .filter(|c| c.row.inst_id == inst && c.row.svr_id == svr)
        .collect()
}

fn channel_lines(t: &Theme, tk: &DnfsTick, inst: u32, svr: u64, ui: &DnfsUi) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(s) = tk
        .servers
        .iter()
        .find(|s| s.row.inst_id == inst && s.row.id == svr)
    {
        lines.push(Line::from(Span::styled(
            format!(
                "{} {} · {} · {} · {} open",
                s.row.name,
                s.row.dirname,
                s.row
                    .nfs_version
                    .as_deref()
                    .unwrap_or("NFS version not in this release's view"),
                format::count(s.channels, "channel", "channels"),
                format::count(s.files, "file", "files")
            ),
            t.accent,
        )));
    }
    lines.push(Line::from(columns(
        [
            format!("{:<9}", "PNUM/CH"),
            format!(" {:<16}", "Path"),
            format!(" {:<16}", "Local"),
            format!(" {:>W$}", "sends/s"),
            format!(" {:>W$}", "recvs/s"),
            format!(" {:>10}", "reconnects"),
        ],
        t.header,
    )));
    for (k, c) in channels_of(tk, inst, svr).iter().enumerate() {
        let mut spans = vec![Span::styled(
            format!("{:<9}", format!("{}/{}", c.row.pnum, c.row.ch_id)),
            row_style(t, k == ui.selected),
        )];
        spans.extend(columns(
            [
                format!(" {:<16}", c.row.path),
                format!(" {:<16}", c.row.local.as_deref().unwrap_or(format::UNKNOWN)),
                fig(c.sends_per_s),
                fig(c.recvs_per_s),
                format!(
                    " {:>10}",
                    c.row
                        .reconnects
                        .map_or(format::UNKNOWN.to_string(), |r| r.to_string())
                ),
            ],
            t.base,
        ));
        lines.push(Line::from(spans));
    }
    lines
}

fn channel_detail(
    t: &Theme,
    tk: &DnfsTick,
    inst: u32,
    svr: u64,
    (pnum, ch): (u64, u64),
) -> Vec<Line<'static>> {
    let Some(c) = channels_of(tk, inst, svr)
        .into_iter()
        .find(|c| c.row.pnum == pnum && c.row.ch_id == ch)
    else {
        return vec![Line::from(Span::styled("this channel is gone", t.warn))];
    };
    let kv = |k: &str, v: String| {
        Line::from(vec![
            Span::styled(format!("{k:<14}"), t.muted),
            Span::styled(v, t.base),
        ])
    };
    vec![
        kv("server", format!("{} (id {})", c.row.server, c.row.svr_id)),
        kv(
            "process",
            format!("PNUM {} · channel {}", c.row.pnum, c.row.ch_id),
        ),
        kv("path", c.row.path.clone()),
        kv(
            "local",
            c.row
                .local
                .clone()
                .unwrap_or_else(|| format!("{} (LOCAL is 11.2.0.3+)", format::UNKNOWN)),
        ),
        kv(
            "sends/s",
            format::fit(c.sends_per_s, W, 1).trim().to_string(),
        ),
        kv(
            "recvs/s",
            format::fit(c.recvs_per_s, W, 1).trim().to_string(),
        ),
        kv(
            "reconnects",
            c.row
                .reconnects
                .map_or(format::UNKNOWN.to_string(), |r| r.to_string()),
        ),
        kv("counted as", tk.counting.label().to_string()),
    ]
}

/// The path view's line-up: database → host NFS client → the NICs of the
/// dNFS channels → block devices, in MB/s, and each mismatch flagged; per
/// instance against its own node when there are nodes.
pub fn draw_path(f: &mut Frame, area: Rect, t: &Theme, p: &PathView) {
    let inner_w = usize::from(area.width.saturating_sub(2));
    path_box(f, area, t, path_lines(t, p, PathForm::Aligned(inner_w)));
}

/// The line-up's `lines` in their framed box.
fn path_box(f: &mut Frame, area: Rect, t: &Theme, lines: Vec<Line<'static>>) {
    let inner = super::framed(f, area, "Path · DB → host → wire → storage", t, false);
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// How the line-up is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathForm {
    /// Each layer's name over its figure, in rows of at most this many
    /// columns; per instance, a table.
    Aligned(usize),
    /// A line per host or instance, each figure beside its layer's short
    /// name: for a box too short for the aligned form.
    Compact,
}

fn path_lines(t: &Theme, p: &PathView, form: PathForm) -> Vec<Line<'static>> {
    match p {
        PathView::Host(line) => host_path_lines(t, line, form),
        PathView::Instances(insts) => instance_path_lines(t, insts, form),
    }
}

/// `label` then the four layers' MB/s, each beside its short name.
fn compact_line(t: &Theme, label: String, p: &PathLine) -> Line<'static> {
    let mb = |v: Option<f64>| format::fit(v, 9, 1).trim().to_string();
    let style = if p.flags.is_empty() { t.base } else { t.crit };
    Line::from(vec![
        Span::styled(label, t.accent),
        Span::styled(
            format!(
                "dNFS {} → NFS {} → wire {} → block {} MB/s",
                mb(p.dnfs_mb_s),
                mb(p.kernel_nfs_mb_s),
                mb(p.wire_mb_s),
                mb(p.block_mb_s)
            ),
            style,
        ),
    ])
}

/// The line-up's lines: the layers and their MB/s, then what does not add
/// up.
fn host_path_lines(t: &Theme, p: &PathLine, form: PathForm) -> Vec<Line<'static>> {
    let mut lines = match form {
        PathForm::Aligned(width) => aligned_host_lines(t, p, width),
        PathForm::Compact => vec![compact_line(t, "path ".to_string(), p)],
    };
    if !p.unmapped.is_empty() {
        lines.push(Line::from(Span::styled(
            format!(
                "channels whose LOCAL address no connected route holds: {}",
                p.unmapped.join(", ")
            ),
            t.warn,
        )));
    }
    // compact: the line's colour says there is no mismatch, its "–" that
    // there is nothing to compare
    if p.flags.is_empty() && form != PathForm::Compact {
        let said = if p.dnfs_mb_s.is_some() {
            "no mismatch between the layers"
        } else {
            "nothing to compare: no current dNFS figures"
        };
        lines.push(Line::from(Span::styled(said, t.muted)));
    }
    for fl in &p.flags {
        lines.push(Line::from(Span::styled(
            format!("⚠ {}", flag_text(fl, form)),
            t.crit,
        )));
    }
    lines
}

/// A flag's sentence, or its few words where the line-up is compact.
fn flag_text(flag: &PathFlag, form: PathForm) -> String {
    match form {
        PathForm::Aligned(_) => flag.message(),
        PathForm::Compact => flag.short().to_string(),
    }
}

/// The layers' names, each over its figure, on as many rows as `width`
/// needs: wrapped by the paragraph instead, a figure would stand under
/// another layer's name.
fn aligned_host_lines(t: &Theme, p: &PathLine, width: usize) -> Vec<Line<'static>> {
    let mb = |v: Option<f64>| match v {
        Some(_) => format!("{} MB/s", format::fit(v, 9, 1).trim()),
        None => format::UNKNOWN.to_string(),
    };
    let wire_what = if p.dnfs_ifaces.is_empty() {
        "NICs of the channels: none mapped".to_string()
    } else {
        format!("NICs of the channels ({})", p.dnfs_ifaces.join(", "))
    };
    let cells = [
        ("database (dNFS)".to_string(), p.dnfs_mb_s),
        ("host NFS client".to_string(), p.kernel_nfs_mb_s),
        (wire_what, p.wire_mb_s),
        ("block devices".to_string(), p.block_mb_s),
    ];
    let mut lines = Vec::new();
    let (mut head, mut vals, mut used) = (Vec::new(), Vec::new(), 0);
    for (i, (what, v)) in cells.iter().enumerate() {
        // room for the widest figure with its unit, "123456789 MB/s"
        let w = what.chars().count().max(14);
        let (sep, pad) = if i == 0 {
            ("", "")
        } else {
            ("  →  ", "     ")
        };
        let need = pad.len() + w;
        if used > 0 && used + need > width {
            lines.push(Line::from(std::mem::take(&mut head)));
            lines.push(Line::from(std::mem::take(&mut vals)));
            used = 0;
        }
        used += need;
        head.push(Span::styled(format!("{sep}{what:<w$}"), t.header));
        vals.push(Span::styled(
            format!("{pad}{:>w$}", mb(*v)),
            if v.is_some() { t.base } else { t.muted },
        ));
    }
    lines.push(Line::from(head));
    lines.push(Line::from(vals));
    lines
}

/// How an instance is named in the path view: its number and name, after
/// its database's label when more than one database is shown.
fn instance_label(i: &InstanceLine, with_db: bool) -> String {
    let mut s = if with_db {
        format!("{} ", i.db)
    } else {
        String::new()
    };
    s.push_str(&format!("inst {}", i.inst_id));
    if let Some(n) = &i.name {
        s.push_str(&format!(" ({n})"));
    }
    s
}

/// One row per instance: its dNFS MB/s against its own node's kernel NFS
/// client, the NICs of its channels and block devices; then per instance
/// what does not add up, and the instances on no node.
fn instance_path_lines(t: &Theme, insts: &[InstanceLine], form: PathForm) -> Vec<Line<'static>> {
    if insts.is_empty() {
        return vec![Line::from(Span::styled(
            "path per instance: nothing to compare, no current dNFS figures",
            t.muted,
        ))];
    }
    let with_db = insts.iter().any(|i| i.db != insts[0].db);
    let names: Vec<String> = insts.iter().map(|i| instance_label(i, with_db)).collect();
    let mut lines = match form {
        PathForm::Aligned(_) => instance_table(t, insts, &names),
        PathForm::Compact => insts
            .iter()
            .zip(&names)
            .map(|(i, name)| compact_line(t, format!("{name} "), &i.line))
            .collect(),
    };
    for (i, name) in insts.iter().zip(&names) {
        if let Some(why) = i.unplaced() {
            lines.push(Line::from(Span::styled(why, t.warn)));
        }
        if !i.line.unmapped.is_empty() {
            lines.push(Line::from(Span::styled(
                format!(
                    "{name}: channels whose LOCAL address no connected route of its node holds: {}",
                    i.line.unmapped.join(", ")
                ),
                t.warn,
            )));
        }
        for fl in &i.line.flags {
            lines.push(Line::from(Span::styled(
                format!("⚠ {name}: {}", flag_text(fl, form)),
                t.crit,
            )));
        }
    }
    lines
}

/// The instances' table: a row each with its node, its four layers' MB/s
/// and the NICs of its channels.
fn instance_table(t: &Theme, insts: &[InstanceLine], names: &[String]) -> Vec<Line<'static>> {
    let nodes: Vec<&str> = insts
        .iter()
        .map(|i| match &i.host {
            InstanceHost::Node(n) => n.as_str(),
            _ => format::UNKNOWN,
        })
        .collect();
    let wn = widest(names.iter().map(String::as_str), 8);
    let wd = widest(nodes.iter().copied(), 4);
    let mb = |v: Option<f64>| format::fit(v, 9, 1);
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:<wn$}  {:<wd$}  {:>9}  {:>9}  {:>9}  {:>9}  NICs of the channels",
            "instance", "node", "dNFS MB/s", "NFS MB/s", "wire MB/s", "blk MB/s"
        ),
        t.header,
    ))];
    for ((i, name), node) in insts.iter().zip(names).zip(&nodes) {
        let p = &i.line;
        let nics = if p.dnfs_ifaces.is_empty() {
            match i.host {
                InstanceHost::Node(_) => "none mapped".to_string(),
                _ => format::UNKNOWN.to_string(),
            }
        } else {
            p.dnfs_ifaces.join(", ")
        };
        let style = if p.flags.is_empty() { t.base } else { t.crit };
        lines.push(Line::from(vec![
            Span::styled(format!("{name:<wn$}  "), style),
            Span::styled(format!("{node:<wd$}"), t.accent),
            Span::styled(
                format!(
                    "  {:>9}  {:>9}  {:>9}  {:>9}  {nics}",
                    mb(p.dnfs_mb_s),
                    mb(p.kernel_nfs_mb_s),
                    mb(p.wire_mb_s),
                    mb(p.block_mb_s)
                ),
                t.base,
            ),
        ]));
    }
    lines
}

/// The overview's database box: each database's state and dNFS totals on
/// one line, then the path's line-up in `form` when there are databases.
pub fn overview_lines(
    t: &Theme,
    dnfs: &Dnfs,
    now_ms: i64,
    path: Option<&PathView>,
    recorded: bool,
    form: PathForm,
) -> Vec<Line<'static>> {
    let now_ms = dnfs.shown_now(now_ms);
    if dnfs.list.is_empty() {
        return vec![Line::from(Span::styled(
            super::none_here(
                recorded,
                "databases",
                // whole in 78 columns; the Databases panel names the password
                "no databases · --db user@//host:port/service or [[db]] in the config",
            ),
            t.muted,
        ))];
    }
    let itv = dnfs.interval.ms();
    let mut spans = Vec::new();
    for (i, db) in dnfs.list.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled("  ·  ", t.muted));
        }
        spans.push(Span::styled(format!("{} ", db.target.label), t.accent));
        let tick = db.current(now_ms, itv);
        match (tick, shown(db, now_ms, itv).and_then(|k| k.total)) {
            (Some(k), _) if !k.in_use => spans.push(Span::styled("dNFS not in use", t.warn)),
            (_, Some(fg)) => {
                let v = |c: DnfsCol| format::fit(fg.get(c), 8, 1).trim().to_string();
                spans.push(Span::styled(v(DnfsCol::Iops), t.base));
                spans.push(Span::styled(" IOPS ", t.muted));
                spans.push(Span::styled(v(DnfsCol::ReadMbPerS), t.read));
                spans.push(Span::styled(" r ", t.muted));
                spans.push(Span::styled(v(DnfsCol::WriteMbPerS), t.write));
                spans.push(Span::styled(" w MB/s", t.muted));
            }
            _ => spans.push(Span::styled(
                db.state_label(now_ms, itv),
                status_style(t, &db.status),
            )),
        }
    }
    let mut lines = vec![Line::from(spans)];
    if let Some(p) = path {
        lines.extend(path_lines(t, p, form));
    }
    lines
}

//! The view: drawn from the [`App`] (which holds the theme) and nothing
//! else: no IO and no clock in here. It reads the app and never writes
//! it; what only layout can know (rows per page, where the table scrolled
//! to) it returns as a [`Drawn`] that the loop hands back to the app.
//!
//! ```text
//! ┌ header: host · kernel · clock · interval · LIVE/PAUSED · strata's cpu/rss ┐
//! │ tabs │ breadcrumb                                                         │
//! │ body: overview | disks table | one device (charts, metrics, parts)        │
//! └ footer: keys, filter prompt or notice                                     ┘
//! ```

mod cache;
mod cells;
mod cluster;
mod detail;
mod disks;
pub mod dnfs;
mod help;
mod markers;
pub(crate) mod nfs;
mod nics;
mod overview;
mod passphrase;
mod procs;
mod table;
mod timeline;
mod widgets;

use crate::app::list::Drawn;
use crate::app::{App, Panel, View};
use crate::format;
use crate::layers::LayerId;
use crate::layers::layer::Layer;
use crate::theme::Theme;
use ratatui::backend::Backend;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::{Frame, Terminal};
use std::borrow::Cow;

/// What the screen does for a layer: draws its panel and its drill-down
/// views, names them in the breadcrumb and says which of the footer's
/// keys they offer. Each layer's lives in its own file here, and
/// [`SCREENS`] finds it by [`LayerId`].
trait LayerScreen: Sync {
    fn id(&self) -> LayerId;
    /// Draws `view`, the layer's panel or one of its drill-down views.
    fn draw(&self, f: &mut Frame, app: &App, area: Rect, view: &View) -> Drawn;
    /// The breadcrumb's word for one of the layer's drill-down views.
    fn crumb(&self, _app: &App, _view: &View) -> String {
        String::new()
    }
    /// The footer's keys where they are not the layer's
    /// ([`crate::layers::LayerDef::footer`]).
    fn footer(&self, _app: &App, _view: &View) -> Option<&'static [(&'static str, &'static str)]> {
        None
    }
    /// Whether one of the footer's keys does something on `view`.
    fn offered(&self, _app: &App, _view: &View, _key: &str) -> bool {
        true
    }
}

/// The database panel: drawn from its narrow [`dnfs::Ctx`], not the app.
struct DnfsScreen;

impl LayerScreen for DnfsScreen {
    fn id(&self) -> LayerId {
        LayerId::Dnfs
    }
    fn draw(&self, f: &mut Frame, app: &App, area: Rect, _: &View) -> Drawn {
        let path = app.path_view();
        dnfs::draw(
            f,
            area,
            dnfs::Ctx {
                t: &app.theme,
                dnfs: &app.dnfs,
                ui: &app.ui.dnfs,
                now_ms: app.now_ms,
                marks: &app.markers,
                recorded: app.replay.is_some(),
                path: path.as_ref(),
            },
        );
        Drawn::default()
    }
    fn offered(&self, app: &App, _: &View, key: &str) -> bool {
        key != "Enter" || !app.dnfs.list.is_empty()
    }
}

/// The screen of each layer that has a tab ([`crate::layers::TABS`]).
const SCREENS: [&dyn LayerScreen; crate::layers::TABS.len()] = [
    &disks::DisksScreen,
    &nfs::NfsScreen,
    &cache::CacheScreen,
    &nics::NicsScreen,
    &cells::CellsScreen,
    &DnfsScreen,
    &procs::ProcsScreen,
];

/// The screen of layer `id`; `None` for a layer without a tab.
fn screen(id: LayerId) -> Option<&'static dyn LayerScreen> {
    SCREENS.iter().copied().find(|s| s.id() == id)
}

#[test]
fn every_tab_has_one_screen() {
    for id in crate::layers::TABS {
        let n = SCREENS.iter().filter(|s| s.id() == id).count();
        assert_eq!(n, 1, "{id:?}");
    }
}

/// The smallest screen the layout works on.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 15;

/// Draws a frame of `app` on `terminal` and says what layout learned.
pub fn render<B: Backend>(terminal: &mut Terminal<B>, app: &App) -> Result<Drawn, B::Error> {
    let mut drawn = Drawn::default();
    terminal.draw(|f| drawn = draw(f, app))?;
    Ok(drawn)
}

pub fn draw(f: &mut Frame, app: &App) -> Drawn {
    let area = f.area();
    let theme = &app.theme;
    f.render_widget(Block::new().style(theme.base), area);
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "terminal too small: {}×{}\nstrata needs at least {MIN_WIDTH}×{MIN_HEIGHT}\n(q quits)",
            area.width, area.height
        );
        let para = Paragraph::new(msg)
            .style(theme.warn)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true });
        // as many rows as it wraps to: at 20×5 its three lines take five
        let rows = u16::try_from(para.line_count(area.width)).unwrap_or(u16::MAX);
        let h = rows.min(area.height);
        let y = area.height.saturating_sub(h) / 2;
        f.render_widget(para, Rect::new(area.x, area.y + y, area.width, h));
        return Drawn::default();
    }
    // a notice (config errors, a recording's fate) wraps to four rows: its
    // end is often the part that says what to do
    let footer_h = footer_notice(app).map_or(1, |n| {
        let rows = widgets::wrapped_rows(&[Line::raw(format!(" {n}"))], usize::from(area.width));
        rows.clamp(1, 4) as u16
    });
    let [header, nav, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(footer_h),
    ])
    .areas(area);
    let body = match &app.replay {
        Some(r) => {
            let [body, line] =
                Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(body);
            timeline::draw(f, &app.theme, r, line);
            body
        }
        None => body,
    };
    draw_header(f, app, header);
    draw_nav(f, app, nav);
    let mut drawn = match app.view().layer() {
        Some(id) => screen(id).map_or_else(Drawn::default, |s| s.draw(f, app, body, app.view())),
        None => {
            overview::draw(f, app, body);
            Drawn::default()
        }
    };
    draw_footer(f, app, footer);
    markers::draw(f, app, area);
    if app.ui.help {
        drawn.help_rows = Some(help::draw(f, &app.theme, area, app.ui.help_scroll));
    }
    passphrase::draw(f, app, area);
    drawn
}

fn draw_header(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    // The state badge comes first: a paused or stale screen must never
    // pass for a live one, however narrow the terminal.
    let state = if let Some(r) = &app.replay {
        let what = if r.playing {
            format!(" REPLAY ▶ ×{} ", r.speed)
        } else {
            " REPLAY ⏸ ".to_string()
        };
        Span::styled(what, t.paused)
    } else if app.paused() {
        Span::styled(" PAUSED ", t.paused)
    } else if app.never_connected() {
        // "stale" is of figures once had: a node refused at its first
        // connection never had any (its panels say why)
        Span::styled(" NOT CONNECTED ", t.crit)
    } else if app.host().disks.error.is_some()
        || app.shown_node_stale()
        || (app.shows_cluster() && app.no_node_current())
    {
        Span::styled(" STALE ", t.crit)
    } else {
        Span::styled(" LIVE ", t.live)
    };
    let cpu = app
        .usage
        .cpu_pct
        .map_or(format::UNKNOWN.to_string(), |c| format!("{c:.1}%"));
    let rss = app
        .usage
        .rss_bytes
        .map_or(format::UNKNOWN.to_string(), format::bytes);
    let rec = app.recording.as_ref().map(|r| {
        let growth = r.bytes_per_s.map_or(String::new(), |b| {
            format!(" +{}/s", format::bytes(b.round() as u64))
        });
        Span::styled(format!(" REC {}{growth} ", format::bytes(r.bytes)), t.crit)
    });
    // The kernel is this machine's: a node's is not known here.
    let kernel = app
        .nodes
        .is_empty()
        .then(|| format!("  {}", app.host.kernel));
    // What a narrow screen drops, least useful first: the kernel, the
    // interval, the date (the time stays), strata's name, its RSS. The
    // state, the host, the time and strata's CPU stay whole.
    let mut chosen = None;
    for drop in 0..=5 {
        // A replay's clock is its timeline's position, to the second: the
        // last sample played is up to an interval behind it.
        let now = app.replay.as_ref().map_or(app.now_ms, |r| r.pos_ms);
        let clock = match now {
            0 => String::new(),
            ms if drop >= 3 => format!("  {}", format::local_time(ms)),
            ms => format!("  {}", format::local_datetime(ms)),
        };
        let left = Line::from(vec![
            Span::styled(if drop >= 4 { "" } else { " strata " }, t.title),
            state.clone(),
            rec.clone().unwrap_or_default(),
            Span::styled(format!(" {}", shown_host(app)), t.accent),
            Span::styled(clock, t.base),
            Span::styled(
                if drop >= 2 {
                    String::new()
                } else {
                    format!("  every {}s", trim_float(app.interval.secs()))
                },
                t.muted,
            ),
            Span::styled(
                kernel.clone().filter(|_| drop == 0).unwrap_or_default(),
                t.muted,
            ),
        ]);
        let usage = if drop >= 5 {
            format!("  strata cpu {cpu} ")
        } else {
            format!("  strata cpu {cpu}  rss {rss} ")
        };
        let fits = left.width() + usage.chars().count() <= usize::from(area.width);
        chosen = Some((left, usage));
        if fits {
            break;
        }
    }
    let Some((left, usage)) = chosen else {
        return;
    };
    let right_width = usage.chars().count() as u16;
    let [left_area, right_area] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(right_width)]).areas(area);
    f.render_widget(Paragraph::new(left), left_area);
    f.render_widget(
        Paragraph::new(Line::from(Span::styled(usage, t.muted)).alignment(Alignment::Right)),
        right_area,
    );
}

fn draw_nav(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let crumbs = breadcrumb(app).join(" › ");
    let crumbs_width = crumbs.chars().count();
    // The panels' names while they leave the breadcrumb its room; on a
    // narrow screen only the current panel keeps its name, the others
    // their number (the key that opens them).
    let full: usize = Panel::ALL
        .iter()
        .enumerate()
        .map(|(i, p)| format!(" {} {} ", i + 1, p.title()).chars().count() + 1)
        .sum();
    // Measured as if the current panel had the longest name, so that the
    // bar is the same on every panel of one width: the NFS panel's short
    // breadcrumb once left the others their names at 80 columns.
    let longest = Panel::ALL
        .iter()
        .map(|p| p.title().chars().count())
        .max()
        .unwrap_or(0);
    let crumbs_width =
        crumbs_width - app.panel().title().chars().count().min(crumbs_width) + longest;
    let named = 1 + full + 2 + crumbs_width <= usize::from(area.width);
    let mut spans = vec![Span::raw(" ")];
    for (i, p) in Panel::ALL.iter().enumerate() {
        let current = *p == app.panel();
        let style = if current { t.selected } else { t.muted };
        let text = if named || current {
            format!(" {} {} ", i + 1, p.title())
        } else {
            format!(" {} ", i + 1)
        };
        spans.push(Span::styled(text, style));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled("│ ", t.border));
    for (i, crumb) in breadcrumb(app).into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" › ", t.muted));
        }
        spans.push(Span::styled(crumb, t.breadcrumb));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Whose figures the panels show: this machine's name, or with nodes the
/// node `n` chose (the cluster before any), so that even a narrow screen
/// says it.
fn shown_host(app: &App) -> String {
    if app.nodes.is_empty() {
        return app.host.hostname.clone();
    }
    match app.shown_node() {
        Some(n) => format!("node {}", n.link.target.label()),
        None => format!("cluster of {}", app.nodes.len()),
    }
}

/// Where the user is, from the top panel down.
pub fn breadcrumb(app: &App) -> Vec<String> {
    let host = (!app.nodes.is_empty()).then(|| match app.shown_node() {
        Some(n) => n.link.target.label().to_string(),
        None => "cluster".to_string(),
    });
    host.into_iter()
        .chain(app.ui.stack.iter().map(|v| {
            match v {
                View::Panel(p) => p.title().to_string(),
                v => v
                    .layer()
                    .and_then(screen)
                    .map_or_else(String::new, |s| s.crumb(app, v)),
            }
        }))
        .collect()
}

/// The notice the footer shows, when no prompt or filter takes it.
fn footer_notice(app: &App) -> Option<&str> {
    let typing = app.passphrase_prompt().is_some()
        || app.ui.prompt.is_some()
        || app.ui.filter_edit.is_some();
    app.notice.as_deref().filter(|_| !typing)
}

fn draw_footer(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    if let Some(n) = footer_notice(app) {
        let text = Span::styled(format!(" {n}"), t.warn);
        f.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), area);
        return;
    }
    let line = if app.passphrase_prompt().is_some() {
        Line::from(vec![
            Span::styled(" passphrase: ", t.key),
            Span::styled("typing is hidden · Enter unlock · Esc later", t.muted),
        ])
    } else if let Some(p) = &app.ui.prompt {
        Line::from(vec![
            Span::styled(format!(" {}: ", p.purpose.title()), t.key),
            Span::styled(format!("{}▏", p.text), t.base),
            Span::styled("  Enter ok · Esc cancel", t.muted),
        ])
    } else if let Some(edit) = &app.ui.filter_edit {
        Line::from(vec![
            Span::styled(" / filter: ", t.key),
            Span::styled(format!("{edit}▏"), t.base),
            Span::styled("  Enter keep · Esc clear", t.muted),
        ])
    } else {
        let keys: &[(&str, &str)] = match app.view() {
            // Enter on the cluster's line of a node shows that node
            View::Panel(Panel::Overview) if app.shows_cluster() => &[
                ("Enter", "node"),
                ("n", "nodes"),
                ("Tab", "panels"),
                ("p", "pause"),
                ("c", "theme"),
            ],
            View::Panel(Panel::Overview) => &[
                ("Enter", "disks"),
                ("Tab", "panels"),
                ("p", "pause"),
                ("c", "theme"),
            ],
            view => view.layer().map_or(&[][..], |id| {
                screen(id)
                    .and_then(|s| s.footer(app, view))
                    .unwrap_or(id.def().footer)
            }),
        };
        // A replay's own keys come first: without them its footer was the
        // live one and none of them showed until `?`.
        const REPLAY: [(&str, &str); 6] = [
            ("Space", "play"),
            ("t/T", "step"),
            ("</>", "minute"),
            ("b", "go to"),
            ("[ ]", "mark"),
            ("+/-", "speed"),
        ];
        let replay = if app.replay.is_some() {
            &REPLAY[..]
        } else {
            &[]
        };
        let keys: Vec<(&str, &str)> = replay
            .iter()
            .chain(keys)
            .copied()
            .filter(|(k, _)| offered(app, k))
            .collect();
        key_line(&keys, area.width, t)
    };
    f.render_widget(Paragraph::new(line), area);
}

/// The source's error or a rejected line, at the bottom of the block.
pub(crate) fn with_source_state<'a, T: Clone>(
    block: Block<'a>,
    layer: &Layer<T>,
    what: &str,
    t: &Theme,
) -> Block<'a> {
    if let Some(err) = layer.shown_error() {
        block.title_bottom(Line::from(Span::styled(format!(" {what}: {err} "), t.crit)))
    } else if let Some(bad) = layer.shown_rejected().first() {
        block.title_bottom(Line::from(Span::styled(
            format!(" rejected: {bad} "),
            t.warn,
        )))
    } else {
        block
    }
}

/// A frame of the focused panel or detail, [`with_source_state`] at its
/// bottom; the room inside it.
pub(crate) fn source_framed<'a, T: Clone>(
    f: &mut Frame,
    area: Rect,
    title: impl Into<Line<'a>>,
    (layer, what): (&Layer<T>, &str),
    t: &Theme,
) -> Rect {
    let block = with_source_state(panel_block(title, t, true), layer, what, t);
    let inner = block.inner(area);
    f.render_widget(block, area);
    inner
}

/// [`widgets::charts`] of one entity's history, over its layer's time
/// axis; where the history budget refused the entity its rings, why there
/// are none instead: empty charts would read as an entity doing nothing.
pub(crate) fn history_charts<T: Clone, S: AsRef<str>>(
    f: &mut Frame,
    app: &App,
    area: Rect,
    (layer, entity): (&crate::layers::layer::Layer<T>, &str),
    (direction, specs): (ratatui::layout::Direction, &[widgets::ChartSpec<'_, '_, S>]),
) {
    if layer.refused(entity) {
        let budget = crate::format::bytes(app.history_budget().limit() as u64);
        f.render_widget(
            Paragraph::new(Span::styled(
                format!("no history: the history budget ({budget}) is full; raise history_memory"),
                app.theme.warn,
            ))
            .wrap(Wrap { trim: true }),
            area,
        );
    } else {
        let x = widgets::TimeAxis::of(layer, &app.markers);
        widgets::charts(f, area, direction, specs, &x, &app.theme);
    }
}

/// A box's title: `parts` joined by " · ", as many whole parts as a box
/// `width` columns wide holds (the first always), so that the border never
/// cuts one, such as a mount's age, in the middle.
pub(crate) fn title_of(parts: &[String], width: u16) -> String {
    // two corners and a space either side
    let room = usize::from(width).saturating_sub(4);
    format!(" {} ", whole_parts(parts, room))
}

/// `parts` joined by " · ", as many whole ones as `room` columns hold
/// (the first always): a legend or title drops its last clauses rather
/// than cut one.
pub(crate) fn whole_parts<S: AsRef<str>>(parts: &[S], room: usize) -> String {
    let mut text = String::new();
    for p in parts {
        let p = p.as_ref();
        if !text.is_empty() {
            if Span::raw(text.as_str()).width() + 3 + Span::raw(p).width() > room {
                break;
            }
            text.push_str(" · ");
        }
        text.push_str(p);
    }
    text
}

/// What a screen says where it has none of `what`: live, how to name
/// some; in a recording, only that it has none (the advice would not
/// apply to it).
pub(crate) fn none_here(recorded: bool, what: &str, advice: &'static str) -> String {
    if recorded {
        format!("no {what} in this recording")
    } else {
        advice.to_string()
    }
}

/// Whether a footer's key does something on what is shown: no Enter into
/// the parts of a device that has none, into files nobody watches or
/// databases there are none of; no sort, reverse or filter of files
/// nobody watches or of cells there are none of.
fn offered(app: &App, key: &str) -> bool {
    let view = app.view();
    view.layer()
        .and_then(screen)
        .is_none_or(|s| s.offered(app, view, key))
}

/// A footer's keys, as many of the view's as the width holds, first ones
/// first, then `? help` and `q quit`, which are the last to go: on a
/// narrow screen the user can always find the rest and leave.
fn key_line<'a>(keys: &[(&'a str, &'a str)], width: u16, t: &crate::theme::Theme) -> Line<'a> {
    const LAST: [(&str, &str); 2] = [("?", "help"), ("q", "quit")];
    let item = |(k, what): &(&str, &str)| k.chars().count() + what.chars().count() + 3;
    // The last item's two trailing spaces may fall off the edge.
    let mut room = (usize::from(width) + 2)
        .saturating_sub(1)
        .saturating_sub(LAST.iter().map(item).sum());
    let mut shown: Vec<(&str, &str)> = Vec::new();
    for k in keys {
        let w = item(k);
        if w > room {
            break;
        }
        room -= w;
        shown.push(*k);
    }
    let mut spans = vec![Span::raw(" ")];
    for (k, what) in shown.into_iter().chain(LAST) {
        spans.push(Span::styled(k, t.key));
        spans.push(Span::styled(format!(" {what}  "), t.muted));
    }
    Line::from(spans)
}

/// "1", "0.5", "2.25": an interval as a person writes it.
fn trim_float(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A bordered block with a title in the theme's colours.
pub(crate) fn panel_block<'a>(
    title: impl Into<Line<'a>>,
    theme: &crate::theme::Theme,
    focus: bool,
) -> Block<'a> {
    Block::bordered()
        .border_style(if focus {
            theme.border_focus
        } else {
            theme.border
        })
        .title(title.into().style(theme.title))
        .style(theme.base)
}

/// Draws a panel's frame ([`panel_block`]) over `area` and gives the room
/// inside it.
pub(crate) fn framed<'a>(
    f: &mut Frame,
    area: Rect,
    title: impl Into<Line<'a>>,
    theme: &crate::theme::Theme,
    focus: bool,
) -> Rect {
    let block = panel_block(title, theme, focus);
    let inner = block.inner(area);
    f.render_widget(block, area);
    inner
}

/// Style of a figure by its threshold level.
pub(crate) fn level_style(theme: &crate::theme::Theme, level: crate::config::Level) -> Style {
    match level {
        crate::config::Level::Normal => theme.base,
        crate::config::Level::Warn => theme.warn,
        crate::config::Level::Crit => theme.crit,
    }
}

/// What a layer's area says before its second sample: no figure yet, and
/// never a zero that would look like an idle system.
pub(crate) fn waiting(f: &mut Frame, theme: &crate::theme::Theme, area: Rect) {
    said(
        f,
        area,
        "waiting for the second sample…".into(),
        theme.muted,
    );
}

/// What a host layer's area says while it has no current figures: on a
/// node that is not connected or stopped sending why (`whole`: in a whole
/// sentence, else a word or two where another box says the whole), or its
/// panels would wait for ever or show old figures as current; else
/// [`waiting`].
pub(crate) fn waiting_on(f: &mut Frame, app: &App, area: Rect, whole: bool) {
    if !said_not_current(f, app, area, whole) {
        waiting(f, &app.theme, area);
    }
}

/// Says in `area` why the host shown has no current figures (see
/// [`waiting_on`]), if it has none: true when it said so, and its last
/// figures must not be drawn there as if current.
pub(crate) fn said_not_current(f: &mut Frame, app: &App, area: Rect, whole: bool) -> bool {
    match not_current(app, whole) {
        Some(why) => {
            said(f, area, why, app.theme.warn);
            true
        }
        None => false,
    }
}

/// Why the node or cluster shown has no current rows, if it has none
/// (see [`said_not_current`]).
fn not_current(app: &App, whole: bool) -> Option<String> {
    let n = format::count(app.nodes.len(), "node", "nodes");
    if app.shows_cluster() && app.no_node_connected() {
        Some(format!(
            "no database node is connected (of {n}): the overview's cluster box says why of each"
        ))
    } else if app.shows_cluster() && app.no_node_current() {
        Some(format!(
            "no database node has current figures (of {n}): the overview's cluster box says why of each"
        ))
    } else {
        app.shown_node_not_current(whole)
    }
}

/// A panel title's count of its rows, "7 of 9 interfaces": none where
/// the panel says why it has no current rows (a node gone, whose old
/// rows it once counted).
pub(crate) fn counted(app: &App, (shown, total, noun): (usize, usize, &str)) -> String {
    if not_current(app, false).is_some() {
        String::new()
    } else {
        format!(" · {shown} of {total} {noun}")
    }
}

/// A host layer's area while it has no figures: its source's error,
/// whole (`what: error`), where reading failed (a panel would otherwise
/// wait for ever, its border cutting the reason); else [`waiting_on`].
pub(crate) fn no_figures<T: Clone>(
    f: &mut Frame,
    app: &App,
    area: Rect,
    (layer, what): (&crate::layers::layer::Layer<T>, &str),
    whole: bool,
) {
    match layer.shown_error() {
        Some(err) => said(f, area, format!("{what}: {err}"), app.theme.crit),
        None => waiting_on(f, app, area, whole),
    }
}

/// A node's detail of `name` while the node's figures are not current:
/// its frame and why, whole; true when drawn.
pub(super) fn node_detail_not_current(f: &mut Frame, app: &App, area: Rect, name: &str) -> bool {
    let Some(why) = app.shown_node_not_current(true) else {
        return false;
    };
    let inner = framed(f, area, format!(" {name} "), &app.theme, true);
    said(f, inner, why, app.theme.warn);
    true
}

/// `text` in `style` from the top of `area`, wrapped: a narrow box shows
/// the whole of it.
pub(crate) fn said(f: &mut Frame, area: Rect, text: String, style: Style) {
    f.render_widget(
        Paragraph::new(Span::styled(text, style)).wrap(Wrap { trim: true }),
        area,
    );
}

/// A detail opened on `name` whose row its source no longer has: its
/// frame, and `why` it shows nothing.
pub(crate) fn gone(f: &mut Frame, area: Rect, name: &str, why: &str, t: &crate::theme::Theme) {
    let inner = framed(f, area, format!(" {name} "), t, true);
    say(f, inner, why, t.warn);
}

/// `text` in `style` at the top of `area`, cut where it ends.
pub(crate) fn say<'a>(f: &mut Frame, area: Rect, text: impl Into<Cow<'a, str>>, style: Style) {
    f.render_widget(Paragraph::new(Span::styled(text, style)), area);
}

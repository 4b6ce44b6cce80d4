//! The page cache panel: the host's cache figures with history, and the
//! residency of the watched files as fincore shows it; one file's detail.

use super::panel_block;
use super::source_framed;
use super::table::{self, Col, Item, Table, TableRow};
use super::widgets::Series;
use crate::app::App;
use crate::app::View;
use crate::app::cache::{CACHE_NODE_TABLE, FILE_TABLE, file_figure};
use crate::app::cluster::CacheNodes;
use crate::app::list::Drawn;
use crate::format;
use crate::layers::LayerId;
use crate::layers::cache::fincore::{self, FincoreStatus};
use crate::layers::cache::model::{
    CacheCol, CacheFigures, CacheKind, CacheTick, FILE_COLS, FileCol, FileKind, FileRow,
};
use crate::layers::cache::report::age_text;
use crate::layers::cache::state::{FILE_HISTORY, HOST_ENTITY};
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph};

/// A size given in kB as a person reads it ("1.5 GiB"), or "–".
fn kb(v: Option<f64>) -> String {
    v.map_or(format::UNKNOWN.to_string(), |x| {
        format::bytes(x as u64 * 1024)
    })
}

/// A file figure as its kind reads: sizes in binary units, counts whole.
fn file_text(kind: FileKind, v: Option<f64>) -> Option<String> {
    let v = v?;
    Some(match kind {
        FileKind::Bytes => format::bytes(v as u64),
        FileKind::Pct => format!("{v:.1}"),
        FileKind::Pages | FileKind::PagesDelta => format!("{v:.0}"),
    })
}

/// "1023.9 MiB" fits.
const BYTES_WIDTH: u16 = 10;

/// Index of a cache figure in the host's history.
fn at(c: CacheCol) -> usize {
    c as usize
}

/// The host's figures, left of the charts, with why Cached misleads.
fn figure_lines<'a>(t: &Theme, figures: &CacheFigures) -> Vec<Line<'a>> {
    let g = |c: CacheCol| figures.get(c);
    [
        (CacheCol::Cached, "includes Shmem"),
        (CacheCol::CachedLessShmem, "file pages"),
        (CacheCol::Shmem, "SGA off HugePages"),
        (CacheCol::Buffers, ""),
        (CacheCol::Dirty, ""),
        (CacheCol::Writeback, ""),
        (CacheCol::ActiveFile, ""),
        (CacheCol::InactiveFile, ""),
        (CacheCol::MemAvailable, ""),
        (CacheCol::MemTotal, ""),
    ]
    .iter()
    .map(|(c, _)| {
        Line::from(vec![
            Span::styled(format!("{:<15}", c.def().header), t.muted),
            Span::styled(format!("{:>12}", kb(g(*c))), t.base),
        ])
    })
    .chain([
        Line::from(""),
        Line::from(Span::styled("Cached includes Shmem: an", t.muted)),
        Line::from(Span::styled("SGA off HugePages inflates it", t.muted)),
    ])
    .collect()
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) -> Drawn {
    if app.shows_cluster() {
        return draw_nodes(f, app, area);
    }
    let t = &app.theme;
    let title = " Page cache · /proc/meminfo, /proc/vmstat ";
    let inner = source_framed(f, area, title, (&app.host().cache, "page cache"), t);
    if super::said_not_current(f, app, inner, true) {
        return Drawn::default();
    }
    let cache = &app.host().cache;
    let Some(tick) = cache.tick() else {
        super::no_figures(f, app, inner, (cache, "page cache"), true);
        return Drawn::default();
    };
    let watched = !app.config.cache_files.is_empty() || !tick.files.is_empty();
    let files_height = if watched {
        (tick.files.len() as u16 + 4).clamp(5, inner.height / 2)
    } else {
        // the borders and the note on how to watch files, wrapped
        let note = [Line::raw(files_note(app))];
        let rows = super::widgets::wrapped_rows(&note, usize::from(inner.width.saturating_sub(2)));
        (rows as u16 + 2).min(inner.height / 2)
    };
    let [top, bottom] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(files_height)]).areas(inner);
    let [figs, charts] =
        Layout::horizontal([Constraint::Length(30), Constraint::Min(0)]).areas(top);

    f.render_widget(Paragraph::new(figure_lines(t, &tick.figures)), figs);

    let n = app.host().cache.history.capacity();
    // `scale` divides kB: 1024 for the MiB the first chart counts in.
    let s = |label, c: CacheCol, scale: f64, style| Series {
        label,
        values: app
            .host()
            .cache
            .series(HOST_ENTITY, at(c), n)
            .into_iter()
            .map(|v| (f64::from(v) / scale) as f32)
            .collect(),
        now: tick.figures.get(c).map(|v| v / scale),
        style,
    };
    let refault = tick.refault_counter.unwrap_or("refault");
    let specs: [(&str, &str, Vec<Series>); 3] = [
        (
            "Dirty and writeback MiB",
            "",
            vec![
                s("Dirty", CacheCol::Dirty, 1024.0, t.write),
                s("Writeback", CacheCol::Writeback, 1024.0, t.accent),
            ],
        ),
        (
            "Paging kB/s",
            "",
            vec![
                s("pgpgin", CacheCol::PgpginKbS, 1.0, t.read),
                s("pgpgout", CacheCol::PgpgoutKbS, 1.0, t.write),
            ],
        ),
        (
            "Faults /s",
            "",
            vec![
                s("majflt", CacheCol::MajfltS, 1.0, t.read),
                s(refault, CacheCol::RefaultS, 1.0, t.accent),
            ],
        ),
    ];
    let entity = (&*app.host().cache, HOST_ENTITY);
    super::history_charts(f, app, charts, entity, (Direction::Vertical, &specs));
    draw_files(f, app, bottom)
}

/// A node of the cluster's page cache table: its host figures, sizes in
/// binary units as the one-node panel gives them.
impl TableRow for Item<'_, CacheTick> {
    fn key(&self) -> &str {
        ""
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        Vec::new()
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let v = CACHE_NODE_TABLE
            .get(j)
            .and_then(|c| self.row.figures.get(*c));
        (v, self.app.theme.base)
    }

    fn figure_cell(&self, j: usize, width: u16, t: &Theme) -> Cell<'_> {
        let (v, style) = self.figure(j);
        match CACHE_NODE_TABLE.get(j).map(|c| c.def().kind) {
            Some(CacheKind::Kb) => {
                let style = if v.is_some() { style } else { t.muted };
                Cell::from(Line::from(Span::styled(kb(v), style)).right_aligned())
            }
            _ => table::figure(v, width, t, style),
        }
    }

    fn figure_width(&self, j: usize) -> usize {
        let (v, _) = self.figure(j);
        match CACHE_NODE_TABLE.get(j).map(|c| c.def().kind) {
            Some(CacheKind::Kb) => kb(v).chars().count(),
            _ => format::figure(v).chars().count(),
        }
    }
}

/// With nodes and none chosen: a row per live node of its page cache's
/// figures, the node writing most back first; Enter shows its panel.
fn draw_nodes(f: &mut Frame, app: &App, area: Rect) -> Drawn {
    let t = &app.theme;
    let rows = table::layer_items::<CacheNodes>(app);
    let list = &app.ui.cache_nodes;
    let sort = list.sort_name(&CACHE_NODE_TABLE, |c| c.def().header, "Node");
    let title = table::panel_title(
        app,
        "Page cache",
        (rows.len(), app.nodes.len(), "nodes"),
        list,
        sort,
    );
    let block = super::panel_block(title, t, true);
    let Some(inner) = table::layer_frame::<CacheNodes>(f, area, app, (block, "page cache")) else {
        return Drawn::default();
    };
    let mut cols: Vec<Col> = CACHE_NODE_TABLE
        .iter()
        .map(|c| {
            let mut col = Col::figure(c.def().header);
            if c.def().kind == CacheKind::Kb {
                col.width = col.width.max(BYTES_WIDTH);
            }
            col
        })
        .collect();
    let frozen = table::with_node_col(app, &mut cols, 0, &rows);
    let [table_area, legend] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(inner);
    let drawn = Table::new(cols, frozen, list).draw(f, table_area, t, &rows);
    super::say(
        f,
        legend,
        "/proc/meminfo, /proc/vmstat of each live node · Cached includes Shmem",
        t.muted,
    );
    drawn
}

/// A watched file: fincore's figures, then its path and, when it cannot
/// be read, why.
impl TableRow for Item<'_, FileRow> {
    fn key(&self) -> &str {
        &self.row.path
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let r = self.row;
        vec![match &r.error {
            Some(e) => Cell::from(Line::from(vec![
                Span::raw(r.path.clone()),
                Span::styled(format!("  {e}"), self.app.theme.warn),
            ])),
            None => match r.age_ms {
                // the mincore scan's last pass over a large file
                Some(age) => Cell::from(Line::from(vec![
                    Span::raw(r.path.clone()),
                    Span::styled(format!("  {}", age_text(age)), self.app.theme.muted),
                ])),
                None => Cell::from(r.path.clone()),
            },
        }]
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        (file_figure(self.row, j), self.app.theme.base)
    }

    /// Sizes in binary units and whole page counts, not fitted figures.
    fn figure_cell(&self, j: usize, _width: u16, t: &Theme) -> Cell<'_> {
        let text = FILE_COLS
            .get(j)
            .and_then(|c| file_text(c.kind, self.figure(j).0));
        let style = if text.is_some() { t.base } else { t.muted };
        let text = text.unwrap_or_else(|| format::UNKNOWN.into());
        Cell::from(Line::from(Span::styled(text, style)).right_aligned())
    }

    fn figure_width(&self, j: usize) -> usize {
        let text = FILE_COLS
            .get(j)
            .and_then(|c| file_text(c.kind, self.figure(j).0));
        text.map_or(1, |s| s.chars().count())
    }
}

/// The node whose panel this is, by its label; "the node" when none is
/// (a recording's node list lost).
fn node_label(app: &App) -> &str {
    app.ui
        .node
        .and_then(|i| app.nodes.get(i))
        .map_or("the node", |n| n.link.target.label())
}

/// How a node's files were measured, for the files' title: "fincore on
/// db01 every 10 s, last 3 s ago", or plainly why there are no figures.
fn fincore_said(app: &App, f: &FincoreStatus) -> String {
    let node = node_label(app);
    if f.missing {
        return fincore::missing_reason(node);
    }
    format!(
        "residency by fincore on {node} {}",
        fincore::cadence(f, app.now_ms)
    )
}

/// What the files' box says when it lists no file.
fn files_note(app: &App) -> &'static str {
    if app.config.cache_files.is_empty() {
        "no files watched: --cache-files 'GLOB' or cache_files in the config shows per-file residency"
    } else {
        "the --cache-files patterns match no file"
    }
}

fn draw_files(f: &mut Frame, app: &App, area: Rect) -> Drawn {
    let t = &app.theme;
    let Some(tick) = app.host().cache.tick() else {
        return Drawn::default();
    };
    if tick.files.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled(files_note(app), t.muted))
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(panel_block(" Files ", t, false)),
            area,
        );
        return Drawn::default();
    }
    let rows = app.cache_files();
    let how = match &tick.fincore {
        Some(f) => fincore_said(app, f),
        None => format!(
            "residency by {}",
            tick.method.map_or("no method", |m| m.label())
        ),
    };
    let sort = format!(
        "sort {} {}",
        app.ui
            .cache_files
            .sort_name(&FILE_COLS, |c| c.header, "FILE"),
        if app.ui.cache_files.desc {
            "↓"
        } else {
            "↑"
        }
    );
    let mut total_text = String::new();
    if let Some(total) = &tick.total {
        let res = total
            .figures
            .get(FileCol::Res)
            .map(|v| format::bytes(v as u64));
        let size = total
            .figures
            .get(FileCol::Size)
            .map(|v| format::bytes(v as u64));
        total_text = format!(
            " · total {} of {}{}",
            res.unwrap_or_else(|| format::UNKNOWN.into()),
            size.unwrap_or_else(|| format::UNKNOWN.into()),
            if total.errors > 0 {
                format!(" · {} unreadable", total.errors)
            } else {
                String::new()
            }
        );
    }
    // the total's figures whole or not at all: the method goes first,
    // but a node's fincore run says how old its figures are (up to its
    // cadence), which goes last
    let count = format!(" Files · {} of {}", rows.len(), tick.files.len());
    let room = usize::from(area.width.saturating_sub(2));
    let (without_how, without_total) = (
        format!("{count} · {sort}{total_text}"),
        format!("{count} · {how} · {sort}"),
    );
    let middle = if tick.fincore.is_some() {
        [without_total, without_how]
    } else {
        [without_how, without_total]
    };
    let mut title = std::iter::once(format!("{count} · {how} · {sort}{total_text}"))
        .chain(middle)
        .find(|title| title.chars().count() < room)
        .unwrap_or(format!("{count} · {sort}"));
    title.push(' ');
    let inner = super::framed(f, area, title, t, false);
    let mut cols: Vec<Col> = FILE_COLS[..FILE_TABLE]
        .iter()
        .map(|c| {
            let mut col = Col::figure(c.header);
            if c.kind == FileKind::Bytes {
                col.width = col.width.max(BYTES_WIDTH);
            }
            col
        })
        .collect();
    let (file, why_fits) = file_col(&rows, &cols, inner.width);
    cols.insert(0, file);
    let items = table::items(&rows, app);
    // where the column has no room for why a file cannot be read, the
    // file's own view says it
    let unread = !why_fits && rows.iter().any(|r| r.error.is_some());
    let legend: &[&str] = if unread {
        &["a row of –: its file cannot be read (Enter says why)"]
    } else {
        &[]
    };
    Table::new(cols, 1, &app.ui.cache_files)
        .legend(legend)
        .draw(f, inner, t, &items)
}

/// The Files table's FILE column, first and frozen, the figures `cols`
/// scrolling beside it (last, it scrolled off at 80 columns and left
/// figures without their file), and whether it holds why a file cannot
/// be read: as wide as the longest path and that reason where every
/// figure still fits beside, else as the longest path, while one figure
/// keeps its room.
fn file_col(rows: &[&FileRow], cols: &[Col], width: u16) -> (Col, bool) {
    let wanted = |with_why: bool| {
        rows.iter()
            .map(|r| {
                let why = r
                    .error
                    .as_ref()
                    .filter(|_| with_why)
                    .map(ToString::to_string);
                let why = why.or_else(|| r.age_ms.filter(|_| with_why).map(age_text));
                r.path.chars().count() + why.map_or(0, |e| e.chars().count() + 2)
            })
            .max()
            .map_or(4, |w| u16::try_from(w).unwrap_or(u16::MAX))
    };
    let figures: u16 = cols.iter().map(|c| c.width + 1).sum();
    let one_figure = cols.first().map_or(0, |c| c.width + 1);
    let why_fits = wanted(true) + figures <= width;
    let fw = if why_fits {
        wanted(true)
    } else {
        wanted(false).min(width.saturating_sub(one_figure))
    };
    (Col::text("FILE", fw.max(4)), why_fits)
}

pub fn draw_file(f: &mut Frame, app: &App, area: Rect, path: &str) {
    let t = &app.theme;
    let row = app.cache_file(path);
    let mut title = format!(" {path}");
    if let Some(size) = row
        .and_then(|r| r.figures.as_ref())
        .and_then(|x| x.get(FileCol::Size))
    {
        title.push_str(&format!(" · {}", format::bytes(size as u64)));
    }
    if let Some(m) = app.host().cache.tick().and_then(|k| k.method) {
        title.push_str(&format!(" · {}", m.label()));
    }
    title.push(' ');
    let inner = source_framed(f, area, title, (&app.host().cache, "page cache"), t);
    let Some(row) = row else {
        super::say(f, inner, "this file is no longer watched", t.warn);
        return;
    };
    let [charts, figs] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(28)]).areas(inner);
    if let Some(e) = &row.error {
        // wrapped: the Files table sends here for the whole reason
        super::said(f, figs, e.to_string(), t.warn);
    } else {
        let lines: Vec<Line> = FILE_COLS
            .iter()
            .enumerate()
            .map(|(j, c)| {
                let text = file_text(c.kind, file_figure(row, j));
                Line::from(vec![
                    Span::styled(format!("{:<10}", c.header), t.muted),
                    Span::styled(
                        format!("{:>14}", text.unwrap_or_else(|| format::UNKNOWN.into())),
                        t.base,
                    ),
                ])
            })
            .collect();
        f.render_widget(
            Paragraph::new(lines).block(panel_block(" now ", t, false)),
            figs,
        );
    }
    let n = app.host().cache.history.capacity();
    let s = |label, c: FileCol, style| Series {
        label,
        values: FILE_HISTORY
            .iter()
            .position(|x| *x == c)
            .map_or(Vec::new(), |i| app.host().cache.series(path, i, n)),
        now: row.figures.as_ref().and_then(|f| f.get(c)),
        style,
    };
    let specs: [(&str, &str, Vec<Series>); 2] = [
        (
            "Resident %",
            "%",
            vec![s("%RES", FileCol::ResPct, t.accent)],
        ),
        (
            "Pages",
            "",
            vec![
                s("dirty", FileCol::Dirty, t.write),
                s("writeback", FileCol::Writeback, t.read),
            ],
        ),
    ];
    let entity = (&*app.host().cache, path);
    super::history_charts(f, app, charts, entity, (Direction::Vertical, &specs));
}

/// The host's cache figures the overview shows, as text.
pub(crate) fn summary(app: &App) -> Option<[(String, String); 4]> {
    let tick = app.host().cache.tick()?;
    let g = |c: CacheCol| kb(tick.figures.get(c));
    Some([
        ("cached".into(), g(CacheCol::Cached)),
        ("−shmem".into(), g(CacheCol::CachedLessShmem)),
        ("dirty".into(), g(CacheCol::Dirty)),
        ("writeback".into(), g(CacheCol::Writeback)),
    ])
}

/// The page cache panel and one watched file's view.
pub(super) struct CacheScreen;

impl super::LayerScreen for CacheScreen {
    fn id(&self) -> LayerId {
        LayerId::Cache
    }
    fn draw(&self, f: &mut Frame, app: &App, area: Rect, view: &View) -> Drawn {
        match view {
            // one of a node's files while the node is gone or silent
            View::CacheFile(path) if super::node_detail_not_current(f, app, area, path) => {}
            View::CacheFile(path) => draw_file(f, app, area, path),
            _ => return draw(f, app, area),
        }
        Drawn::default()
    }
    fn crumb(&self, _: &App, view: &View) -> String {
        match view {
            View::CacheFile(path) => path.clone(),
            _ => String::new(),
        }
    }
    fn footer(&self, app: &App, view: &View) -> Option<&'static [(&'static str, &'static str)]> {
        match view {
            View::Panel(_) if app.shows_cluster() => Some(&[
                ("Enter", "node"),
                ("s/S", "sort"),
                ("r", "reverse"),
                ("/", "filter"),
                ("n", "nodes"),
                ("p", "pause"),
            ]),
            View::CacheFile(_) => Some(&[("Esc", "back"), ("p", "pause"), ("c", "theme")]),
            _ => None,
        }
    }
    fn offered(&self, app: &App, view: &View, key: &str) -> bool {
        match (view, key) {
            (View::Panel(_), "Enter" | "s/S") if !app.shows_cluster() => {
                !app.cache_files().is_empty()
            }
            // reverse and filter while any file is watched: a filter that
            // matches none must stay at hand to be changed
            (View::Panel(_), "r" | "/") if !app.shows_cluster() => {
                app.host().cache.tick().is_some_and(|t| !t.files.is_empty())
            }
            _ => true,
        }
    }
}

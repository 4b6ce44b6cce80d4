//! The scrolled, sortable table every panel draws its entities in.

use crate::app::App;
use crate::app::cluster::Listed;
use crate::app::list::{Drawn, ListUi};
use crate::format;
use crate::layers::host::HostLayers;
use crate::layers::tick::Tick;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Row, Table as Widget, TableState};
use std::borrow::Cow;

/// Width of a figure column: figures under 100000 fit in 8; a column
/// with larger ones on screen is widened to them (see [`widened`]).
pub(crate) const FIG_WIDTH: u16 = 8;

/// A column of a table: its header and width; figures are right-aligned.
#[derive(Clone)]
pub(crate) struct Col {
    pub header: String,
    pub width: u16,
    pub figure: bool,
    /// Takes the room the other columns leave, `width` at least.
    pub fill: bool,
}

impl Col {
    pub fn text(header: impl Into<String>, width: u16) -> Col {
        Col {
            header: header.into(),
            width,
            figure: false,
            fill: false,
        }
    }

    /// A text column that takes the room the others leave: a name that
    /// pushes the figures to the right edge of a box.
    pub fn filling(header: impl Into<String>, width: u16) -> Col {
        Col {
            fill: true,
            ..Col::text(header, width)
        }
    }

    fn constraint(&self) -> Constraint {
        if self.fill {
            Constraint::Min(self.width)
        } else {
            Constraint::Length(self.width)
        }
    }

    /// The column's header in `style`, right-aligned over figures.
    fn header_cell<'a>(&self, style: Style) -> Cell<'a> {
        let line = Line::from(self.header.clone());
        let line = if self.figure {
            line.right_aligned()
        } else {
            line
        };
        Cell::from(line).style(style)
    }

    pub fn figure(header: impl Into<String>) -> Col {
        let header = header.into();
        let width = (header.chars().count() as u16).max(FIG_WIDTH);
        Col {
            header,
            width,
            figure: true,
            fill: false,
        }
    }
}

/// A figure right-aligned in `width`, "–" when unknown, in `style`
/// (unknown figures are always muted).
pub(crate) fn figure<'a>(v: Option<f64>, width: u16, t: &Theme, style: Style) -> Cell<'a> {
    let text = format::fit(v, width as usize, 2);
    let style = if v.is_some() { style } else { t.muted };
    Cell::from(Line::from(Span::styled(text, style)).right_aligned())
}

/// A panel's title: " NICs · 7 of 9 interfaces · sort rKB/s ↓ · filter
/// "eth" ", from what the user asked of its `list`.
pub(crate) fn panel_title(
    app: &App,
    what: &str,
    (shown, total, noun): (usize, usize, &str),
    list: &ListUi,
    sort: &str,
) -> String {
    let filter = app.ui.filter_edit.as_deref().unwrap_or(&app.ui.filter);
    let mut title = format!(
        " {what}{} · sort {sort} {}",
        super::counted(app, (shown, total, noun)),
        if list.desc { "↓" } else { "↑" }
    );
    if !filter.is_empty() {
        title.push_str(&format!(" · filter \"{filter}\""));
    }
    title.push(' ');
    title
}

/// Width of a name column that fits the longest of `names`, within reason.
pub(crate) fn name_width<'a>(names: impl IntoIterator<Item = &'a str>, header: &str) -> u16 {
    names
        .into_iter()
        .map(|n| n.chars().count())
        .chain(std::iter::once(header.chars().count()))
        .max()
        .unwrap_or(6)
        .clamp(6, 40) as u16
}

/// The scrolled columns that fit beside the `frozen` ones, from `offset`,
/// at least one.
fn fitting(cols: &[Col], frozen: usize, offset: usize, width: u16) -> usize {
    let mut used: u16 = cols[..frozen].iter().map(|c| c.width + 1).sum();
    let mut n = 0;
    for c in &cols[frozen + offset..] {
        if used + c.width > width {
            break;
        }
        used += c.width + 1;
        n += 1;
    }
    n.max(1).min(cols.len() - frozen - offset)
}

/// The scrolled columns shown from `offset` (how many), and the sorted
/// one (its index among the scrolled) when they leave it out: it is then
/// shown beside them, in its place, so that a table always shows the
/// column its rows are sorted by and h/l still reach every column.
fn window(
    cols: &[Col],
    frozen: usize,
    offset: usize,
    width: u16,
    sorted: Option<usize>,
) -> (usize, Option<usize>) {
    let shown = fitting(cols, frozen, offset, width);
    match sorted {
        Some(s) if !(offset..offset + shown).contains(&s) => {
            let room = width.saturating_sub(cols[frozen + s].width + 1);
            (fitting(cols, frozen, offset, room), Some(s))
        }
        _ => (shown, None),
    }
}

/// One row of a [`Table`]: what its selection follows and its cells.
pub(crate) trait TableRow {
    /// The name the selection follows from one tick to the next.
    fn key(&self) -> &str;
    /// The cells of the text columns, in their order.
    fn texts(&self) -> Vec<Cell<'_>>;
    /// Figure `j` (counted among the figure columns) and its style.
    fn figure(&self, j: usize) -> (Option<f64>, Style);
    /// Figure `j` as a cell `width` wide.
    fn figure_cell(&self, j: usize, width: u16, t: &Theme) -> Cell<'_> {
        let (v, style) = self.figure(j);
        figure(v, width, t, style)
    }
    /// The columns figure `j` takes whole (its column is widened to it);
    /// 0 for a cell that fits any width its own way.
    fn figure_width(&self, j: usize) -> usize {
        format::figure(self.figure(j).0).chars().count()
    }
}

/// `cols` with each figure column as wide as the widest figure of `rows`
/// (those on screen): a rate of 100000 or more keeps its two decimals,
/// as iostat's does, and its column grows, where fitting it to the
/// column dropped a decimal (186192.0 beside iostat's 184128.00).
pub(crate) fn widened<'r, R: TableRow + 'r>(
    cols: &[Col],
    rows: impl Iterator<Item = &'r R>,
) -> Vec<Col> {
    let mut cols = cols.to_vec();
    let figures: Vec<usize> = (0..cols.len()).filter(|&i| cols[i].figure).collect();
    for r in rows {
        for (j, &i) in figures.iter().enumerate() {
            let w = u16::try_from(r.figure_width(j)).unwrap_or(u16::MAX);
            cols[i].width = cols[i].width.max(w);
        }
    }
    cols
}

/// One of the app's rows as a table shows it, with the app that styles
/// it (theme, thresholds, units) and the host it is of.
pub(crate) struct Item<'a, R> {
    pub row: &'a R,
    pub app: &'a App,
    pub host: &'a HostLayers,
}

/// `rows` of the host the panels show as a table shows them.
pub(crate) fn items<'a, R>(rows: &[&'a R], app: &'a App) -> Vec<Item<'a, R>> {
    let host = app.host();
    rows.iter().map(|&row| Item { row, app, host }).collect()
}

/// A row of a layer's table: the shown host's, or in the cluster's table
/// led by its node's label and selected by node and key.
pub(crate) struct OnNode<'a, R> {
    pub node: Option<&'a str>,
    pub key: Cow<'a, str>,
    pub row: R,
}

impl<R: TableRow> TableRow for OnNode<'_, R> {
    fn key(&self) -> &str {
        &self.key
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let node = self.node.map(|n| Cell::from(n.to_string()));
        node.into_iter().chain(self.row.texts()).collect()
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        self.row.figure(j)
    }

    fn figure_cell(&self, j: usize, width: u16, t: &Theme) -> Cell<'_> {
        self.row.figure_cell(j, width, t)
    }

    fn figure_width(&self, j: usize) -> usize {
        self.row.figure_width(j)
    }
}

/// The rows of a layer's table on screen (see [`App::table_rows`]), each
/// with the host it is of.
pub(crate) fn layer_items<L: Listed>(app: &App) -> Vec<OnNode<'_, Item<'_, L::Row>>> {
    layer_rows::<L, _>(app, |row, host| Item { row, app, host })
}

/// The rows of a layer's table on screen, each made by `item` from the
/// row and the host it is of (one pass: at 100k devices a second list
/// built from the first was one more of 100k a frame).
pub(crate) fn layer_rows<'a, L: Listed, T>(
    app: &'a App,
    item: impl Fn(&'a L::Row, &'a HostLayers) -> T,
) -> Vec<OnNode<'a, T>>
where
    L::Row: 'a,
{
    app.table_rows::<L>()
        .into_iter()
        .map(|(i, row)| {
            let node = i.and_then(|i| app.nodes.get(i));
            OnNode {
                node: node.map(|n| n.link.target.label()),
                key: app.row_key::<L>(i, row),
                row: item(row, node.map_or(app.host(), |n| &n.layers)),
            }
        })
        .collect()
}

/// In the cluster's table, a node column before `cols`, frozen with the
/// `frozen` first of them; the frozen columns then.
pub(crate) fn with_node_col<R>(
    app: &App,
    cols: &mut Vec<Col>,
    frozen: usize,
    rows: &[OnNode<R>],
) -> usize {
    if !app.shows_cluster() {
        return frozen;
    }
    let labels = rows.iter().filter_map(|r| r.node);
    cols.insert(0, Col::text("Node", name_width(labels, "Node").min(24)));
    frozen + 1
}

/// A tick of a layer of entities (disks, NICs, NFS mounts).
pub(crate) trait Rows {
    /// Its rows, before any is left out.
    fn count(&self) -> usize;
}

impl<R, T, X> Rows for Tick<R, T, X> {
    fn count(&self) -> usize {
        self.rows.len()
    }
}

/// Rows of the hosts a layer's table draws from, before its filter.
pub(crate) fn total<L: Listed<Tick: Rows>>(app: &App) -> usize {
    let hosts = app.shown_hosts();
    hosts
        .iter()
        .map(|(_, h)| L::layer(h).tick().map_or(0, Rows::count))
        .sum()
}

/// What a host layer's panel says of its table in its frame: the panel,
/// how many of the hosts' rows it shows and what it is sorted by above,
/// one host's source error or rejected line below.
pub(crate) trait LayerPanel: Listed<Tick: Rows> {
    /// The panel's name in its title.
    const TITLE: &'static str;
    /// What its rows are ("7 of 9 interfaces").
    const NOUN: &'static str;
    /// The name column's header: what a sort by name is called.
    const NAME: &'static str;
    /// The source a host's error names ("mountstats: ...").
    const SOURCE: &'static str;
    /// The header of figure column `col`, as a sort by it is called.
    fn header(col: usize) -> Option<&'static str>;
}

/// A host layer's panel titled as [`LayerPanel`] says with `shown` of
/// its rows: the room inside its frame and the rows of the hosts it
/// draws from, as [`layer_frame`] (none while it waits).
pub(crate) fn layer_panel<L: LayerPanel>(
    f: &mut Frame,
    area: Rect,
    app: &App,
    shown: usize,
) -> Option<(Rect, usize)> {
    let total = total::<L>(app);
    let list = L::list(&app.ui);
    let sort = list.sort.and_then(L::header).unwrap_or(L::NAME);
    let title = panel_title(app, L::TITLE, (shown, total, L::NOUN), list, sort);
    let block = super::panel_block(title, &app.theme, true);
    // the cluster's table leaves each node's error to its own panel
    let block = if app.shows_cluster() {
        block
    } else {
        super::with_source_state(block, L::layer(app.host()), L::SOURCE, &app.theme)
    };
    let inner = layer_frame::<L>(f, area, app, (block, L::SOURCE))?;
    Some((inner, total))
}

/// Draws a layer table's frame and gives the room inside it; none, with
/// why there (the host's `source` error, or what it waits on), while the
/// layer has no figures yet on any host the table draws from (a stale
/// node's old figures count: its table is empty, not waiting).
pub(crate) fn layer_frame<L: Listed>(
    f: &mut Frame,
    area: Rect,
    app: &App,
    (block, source): (Block, &str),
) -> Option<Rect> {
    let inner = block.inner(area);
    f.render_widget(block, area);
    // a node gone or silent: why, not its last rows as if current
    if super::said_not_current(f, app, inner, true) {
        return None;
    }
    let has = |h: &HostLayers| L::layer(h).tick().is_some();
    let waiting = if app.shows_cluster() {
        !app.nodes.iter().any(|n| has(&n.layers))
    } else {
        !has(app.host())
    };
    if waiting && app.shows_cluster() {
        super::waiting_on(f, app, inner, true);
        return None;
    }
    if waiting {
        super::no_figures(f, app, inner, (L::layer(app.host()), source), true);
        return None;
    }
    Some(inner)
}

/// A table's header, its rows on screen (the one at `selected` among
/// them highlighted) and its column widths, as every table of the screen
/// looks.
pub(crate) fn render(
    f: &mut Frame,
    area: Rect,
    t: &Theme,
    (header, body, widths): (Vec<Cell>, Vec<Row>, Vec<Constraint>),
    selected: Option<usize>,
) {
    let table = Widget::new(body, widths)
        .header(Row::new(header).style(t.header))
        .row_highlight_style(t.selected)
        .column_spacing(1);
    let mut state = TableState::default().with_selected(selected);
    f.render_stateful_widget(table, area, &mut state);
}

/// A scrolled, sortable table: its columns, how many of them always
/// show, and the list the user sorts, selects and scrolls. The list is
/// only read: where the table ends up is returned for the app to keep.
pub(crate) struct Table<'a> {
    cols: Vec<Col>,
    frozen: usize,
    list: &'a ListUi,
    legend: &'a [&'a str],
}

impl<'a> Table<'a> {
    pub fn new(cols: Vec<Col>, frozen: usize, list: &'a ListUi) -> Self {
        Table {
            cols,
            frozen,
            list,
            legend: &[],
        }
    }

    /// Clauses that explain the figures, on the table's bottom line after
    /// which columns are shown, as many whole ones as fit.
    pub fn legend(self, legend: &'a [&'a str]) -> Self {
        Table { legend, ..self }
    }

    /// Draws `rows`, building cells only for the rows on screen, keeps
    /// the selected row visible and highlights it, and marks the header
    /// of the sort column (the list sorts on its figure columns). The
    /// first `frozen` columns always show; when the others do not all
    /// fit, they scroll sideways from the list's `col_offset` (h/l) and
    /// the bottom line says which of them are shown (counted among the
    /// scrolled columns), before the legend's clauses that fit, so a
    /// column is never squeezed and a figure never cut.
    pub fn draw<R: TableRow>(&self, f: &mut Frame, area: Rect, t: &Theme, rows: &[R]) -> Drawn {
        let list = self.list;
        let n = rows.len();
        let selected = list.index(rows.iter().map(TableRow::key));
        // The rows that can be on screen, with the bottom line or without.
        let room = area.height.saturating_sub(1).max(1) as usize;
        let top = list.first_shown(selected, n, room).min(list.first_shown(
            selected,
            n,
            room.saturating_sub(1),
        ));
        let cols = &widened(&self.cols, rows.iter().skip(top).take(room + 1));
        let sorted = cols
            .iter()
            .position(|c| c.figure)
            .and_then(|first| list.sort.map(|i| i + first));
        let frozen = self.frozen.min(cols.len().saturating_sub(1));
        let scrolled = cols.len() - frozen;
        let sorted_rel = sorted.and_then(|s| s.checked_sub(frozen));
        let window = |o| window(cols, frozen, o, area.width, sorted_rel);
        // never scroll past the point where the last column already shows
        let last_offset = (0..scrolled)
            .find(|&o| o + window(o).0 == scrolled)
            .unwrap_or(0);
        let offset = list.col_offset.min(last_offset);
        let (shown, pinned) = window(offset);
        let keep = Kept {
            frozen,
            offset,
            shown,
            pinned,
        };
        let mut area = area;
        let hint = (shown + usize::from(pinned.is_some()) < scrolled).then(|| {
            let pinned = pinned.map_or(String::new(), |s| {
                format!(" + {} (sort)", cols[frozen + s].header)
            });
            format!(
                "columns {}–{} of {scrolled}{pinned} · h/l scroll",
                offset + 1,
                offset + shown,
            )
        });
        let parts: Vec<&str> = hint
            .iter()
            .map(String::as_str)
            .chain(self.legend.iter().copied())
            .collect();
        if !parts.is_empty() && area.height > 2 {
            let [table, bottom] =
                Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(area);
            let text = super::whole_parts(&parts, usize::from(bottom.width));
            super::say(f, bottom, text, t.muted);
            area = table;
        }

        let visible = area.height.saturating_sub(1).max(1) as usize;
        let first = list.first_shown(selected, n, visible);
        let on_screen = rows.iter().skip(first).take(visible);
        let parts = keep.parts(cols, on_screen, t, sorted);
        let shown = (n > 0).then(|| selected - first);
        render(f, area, t, parts, shown);
        Drawn::table(visible, first, offset)
    }
}

/// Which columns a table draws: the `frozen` ones, `shown` scrolled ones
/// from `offset`, and the `pinned` one (counted among the scrolled) that
/// they leave out.
#[derive(Clone, Copy)]
struct Kept {
    frozen: usize,
    offset: usize,
    shown: usize,
    pinned: Option<usize>,
}

impl Kept {
    fn has(self, j: usize) -> bool {
        j < self.frozen
            || (self.frozen + self.offset..self.frozen + self.offset + self.shown).contains(&j)
            || self.pinned.is_some_and(|s| j == self.frozen + s)
    }

    /// The header, the rows and the widths of the kept columns; the
    /// header of column `sorted` is marked.
    fn parts<'r, R: TableRow + 'r>(
        self,
        cols: &[Col],
        rows: impl Iterator<Item = &'r R>,
        t: &Theme,
        sorted: Option<usize>,
    ) -> (Vec<Cell<'r>>, Vec<Row<'r>>, Vec<Constraint>) {
        let kept = |j: &usize| self.has(*j);
        let header = (0..cols.len())
            .filter(kept)
            .map(|i| {
                let style = if sorted == Some(i) {
                    t.accent
                } else {
                    t.header
                };
                cols[i].header_cell(style)
            })
            .collect();
        let body = rows
            .map(|r| {
                let cells = cells(cols, r, t).into_iter().enumerate();
                Row::new(cells.filter(|(j, _)| kept(j)).map(|(_, c)| c))
            })
            .collect();
        let widths = (0..cols.len())
            .filter(kept)
            .map(|j| cols[j].constraint())
            .collect();
        (header, body, widths)
    }
}

/// A row's cells in column order: its texts where the text columns are,
/// its figures fitted to the figure columns.
fn cells<'r, R: TableRow>(cols: &[Col], row: &'r R, t: &Theme) -> Vec<Cell<'r>> {
    let mut texts = row.texts().into_iter();
    let mut j = 0;
    cols.iter()
        .map(|c| {
            if c.figure {
                j += 1;
                row.figure_cell(j - 1, c.width, t)
            } else {
                texts.next().unwrap_or_default()
            }
        })
        .collect()
}

/// A table that neither sorts, scrolls nor selects (a listing beside a
/// panel's own table): its header and as many rows as fit. Its leading
/// text columns always show; figure columns that do not fit are left out
/// whole from the right, all but figure column `keep` (the one its rows
/// are ordered by), so that no figure is cut.
pub(crate) fn plain<R: TableRow>(
    f: &mut Frame,
    area: Rect,
    t: &Theme,
    (cols, keep): (&[Col], Option<usize>),
    rows: &[R],
) {
    let visible = area.height.saturating_sub(1) as usize;
    let cols = &widened(cols, rows.iter().take(visible));
    let frozen = cols.iter().take_while(|c| !c.figure).count();
    let (shown, pinned) = if frozen < cols.len() {
        window(cols, frozen, 0, area.width, keep)
    } else {
        (0, None)
    };
    let mut kept = Kept {
        frozen,
        offset: 0,
        shown,
        pinned,
    };
    // `window` keeps one scrolled column and the pinned one even where
    // they do not fit (a scrolled table says so below it): here they go
    // whole, the scrolled first, or ratatui would narrow them all
    let width = |k: Kept| -> u16 {
        let w: u16 = (0..cols.len())
            .filter(|&j| k.has(j))
            .map(|j| cols[j].width + 1)
            .sum();
        w.saturating_sub(1)
    };
    while kept.shown > 0 && width(kept) > area.width {
        kept.shown -= 1;
    }
    if width(kept) > area.width {
        kept.pinned = None;
    }
    let parts = kept.parts(cols, rows.iter().take(visible), t, None);
    render(f, area, t, parts, None);
}

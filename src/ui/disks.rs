//! The disks panel: a row per device with every `iostat -x` column.

use super::{level_style, panel_block};
use crate::app::App;
use crate::app::cluster::Disks;
use crate::app::list::{Drawn, ListUi};
use crate::app::state::disk_sort_label;
use crate::config::Thresholds;
use crate::config::Units;
use crate::format;
use crate::layers::disks::model::{ColKind, DISK_COLS, DiskCol};
use crate::layers::disks::tick::DiskRow;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row};

/// Width of a figure column: iostat's widest figures fit in 8.
const COL_WIDTH: u16 = 8;
const CLASS_WIDTH: u16 = 5;

/// The disks panel's frame: what is shown and how it is sorted and
/// filtered above, the source's error or first rejected line below.
fn disks_block(app: &App, shown: usize, total: usize) -> Block<'_> {
    let t = &app.theme;
    let units = app.ui.units;
    let mut title = vec![Span::styled(
        format!(" Disks · {shown} of {total} devices · sort "),
        t.title,
    )];
    title.push(Span::styled(
        format!(
            "{} {}",
            disk_sort_label(app.ui.disks.sort, units),
            if app.ui.disks.desc { "↓" } else { "↑" }
        ),
        t.accent,
    ));
    let filter = app.ui.filter_edit.as_deref().unwrap_or(&app.ui.filter);
    if !filter.is_empty() {
        title.push(Span::styled(format!(" · filter \"{filter}\""), t.accent));
    }
    if !app.ui.show_partitions {
        title.push(Span::styled(" · partitions hidden", t.muted));
    }
    title.push(Span::raw(" "));
    let block = panel_block(Line::from(title), t, true);
    if let Some(err) = app.host().disks.shown_error() {
        block.title_bottom(Line::from(Span::styled(
            format!(" disk source: {err} "),
            t.crit,
        )))
    } else if let Some(bad) = app.host().disks.shown_rejected().first() {
        block.title_bottom(Line::from(Span::styled(
            format!(" rejected: {bad} "),
            t.warn,
        )))
    } else {
        block
    }
}

/// The table's rows: this host's devices, or with nodes and none chosen
/// every live node's, each with its node's name; the total before the
/// filter; the selected row.
fn table_rows(app: &App) -> (Vec<(Option<&str>, &DiskRow)>, usize, usize) {
    let rows = app.table_rows::<Disks>();
    let total = super::table::total(app, |h| h.disks.tick().map_or(0, |t| t.rows.len()));
    let selected = app.selected_in::<Disks>(&rows);
    let rows = rows
        .into_iter()
        .map(|(i, r)| {
            (
                i.and_then(|i| app.nodes.get(i)).map(|n| n.target.label()),
                r,
            )
        })
        .collect();
    (rows, total, selected)
}

/// The figure columns shown when `fit` of them fit (indices into
/// DISK_COLS, in their order), from where the user scrolled to but never
/// past the point where the last column already shows, and the column
/// the rows are sorted by when that window leaves it out: it is shown
/// beside the window, so h/l still reach every column.
fn shown_cols(list: &ListUi, fit: usize) -> (usize, Vec<usize>, Option<usize>) {
    let n = DISK_COLS.len();
    let offset = list.col_offset.min(n.saturating_sub(fit));
    let window = offset..(offset + fit).min(n);
    let pinned = list.sort.filter(|s| fit < n && !window.contains(s));
    let window = match pinned {
        Some(_) => offset..(offset + fit - 1).min(n),
        None => window,
    };
    let mut cols: Vec<usize> = window.chain(pinned).collect();
    cols.sort_unstable();
    (offset, cols, pinned)
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) -> Drawn {
    let (rows, total, selected) = table_rows(app);
    let t = &app.theme;
    let block = disks_block(app, rows.len(), total);
    let Some(inner) = super::table::layer_frame(f, area, app, block, |h| &h.disks) else {
        return Drawn::default();
    };

    let devices: Vec<&DiskRow> = rows.iter().map(|(_, r)| *r).collect();
    let name_width = name_width(&devices);
    // All nodes in one table: a node column first.
    let node_width = rows
        .iter()
        .filter_map(|(n, _)| n.map(|n| n.chars().count()))
        .max()
        .map_or(0, |w| w.clamp(4, 24) as u16 + 1);
    let fixed = node_width + name_width + 1 + CLASS_WIDTH + 1;
    let fit = (inner.width.saturating_sub(fixed) / (COL_WIDTH + 1)).max(1) as usize;
    let (offset, shown_cols, pinned) = shown_cols(&app.ui.disks, fit);
    let cols: Vec<DiskCol> = shown_cols.iter().map(|&i| DISK_COLS[i].col).collect();

    let header = header_cells(app, &cols, node_width > 0);
    let [table_area, legend] =
        ratatui::layout::Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(inner);
    // Only the rows on screen are built: formatting a thousand rows' cells
    // that nobody sees was most of a frame.
    let visible = table_area.height.saturating_sub(1).max(1) as usize;
    let first = app.ui.disks.first_shown(selected, rows.len(), visible);
    let body: Vec<Row> = rows
        .iter()
        .skip(first)
        .take(visible)
        .map(|(node, r)| match node {
            Some(n) => node_row(n, r, &cols, app),
            None => device_row(r, &cols, app),
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(name_width),
        Constraint::Length(CLASS_WIDTH),
    ];
    if node_width > 0 {
        widths.insert(0, Constraint::Length(node_width - 1));
    }
    widths.extend(cols.iter().map(|_| Constraint::Length(COL_WIDTH)));
    let window = cols.len() - usize::from(pinned.is_some());
    let pinned = pinned.map_or(String::new(), |s| {
        format!(" + {} (sort)", app.ui.units.header(DISK_COLS[s].col))
    });
    let shown = format!(
        " columns {}–{} of {}{pinned}{} ",
        offset + 1,
        offset + window,
        DISK_COLS.len(),
        if cols.len() < DISK_COLS.len() {
            " · h/l scroll"
        } else {
            ""
        }
    );
    let shown_row = Some(selected - first);
    super::table::render(f, table_area, t, (header, body, widths), shown_row);
    let legend_line = Line::from(vec![
        Span::styled(shown, t.muted),
        Span::styled(
            " · – unknown · dimmed %util: not meaningful for NVMe/dm/md",
            t.muted,
        ),
    ]);
    f.render_widget(Paragraph::new(legend_line), legend);
    Drawn::table(visible, first, offset)
}

/// The header: the node's column when there is one, the device's, its
/// class and the figures shown, the sort key's highlighted.
fn header_cells<'a>(app: &App, cols: &[DiskCol], with_node: bool) -> Vec<Cell<'a>> {
    let t = &app.theme;
    let sorted = app
        .ui
        .disks
        .sort
        .and_then(|i| DISK_COLS.get(i))
        .map(|d| d.col);
    let mut header = vec![Cell::from("Device"), Cell::from("Class")];
    if with_node {
        header.insert(0, Cell::from("Node"));
    }
    for c in cols {
        let style = if sorted == Some(*c) {
            t.accent
        } else {
            t.header
        };
        header.push(Cell::from(Line::from(app.ui.units.header(*c)).right_aligned()).style(style));
    }
    header
}

/// Width of a name column that fits the longest name, within reason: LVM
/// names differ only at their end.
pub(crate) fn name_width(rows: &[&DiskRow]) -> u16 {
    rows.iter()
        .map(|r| r.display_name().chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 40) as u16
}

/// A device's name, class and the given figures.
pub(crate) fn device_row<'a>(r: &DiskRow, cols: &[DiskCol], app: &App) -> Row<'a> {
    Row::new(device_cells(r, cols, app))
}

/// A node's device: its node, then as [`device_row`].
fn node_row<'a>(node: &str, r: &DiskRow, cols: &[DiskCol], app: &App) -> Row<'a> {
    let mut cells = vec![Cell::from(node.to_string())];
    cells.extend(device_cells(r, cols, app));
    Row::new(cells)
}

fn device_cells<'a>(r: &DiskRow, cols: &[DiskCol], app: &App) -> Vec<Cell<'a>> {
    let t = &app.theme;
    let mut cells = vec![
        Cell::from(r.display_name().to_string()),
        Cell::from(Span::styled(r.class().label(), t.muted)),
    ];
    cells.extend(
        cols.iter()
            .map(|c| figure_cell(r, *c, app.ui.units, &app.config.thresholds, t)),
    );
    cells
}

/// Header cells of figure columns, right-aligned over their figures.
pub(crate) fn figure_headers<'a>(cols: &[DiskCol], units: Units) -> Vec<Cell<'a>> {
    cols.iter()
        .map(|c| Cell::from(Line::from(units.header(*c)).right_aligned()))
        .collect()
}

/// One figure, coloured by its threshold; %util dimmed where iostat's man
/// page says it means little.
/// A device's figure as its table and its charts' titles print it: the
/// tick's f64 in the units shown.
pub(crate) fn shown_value(r: &DiskRow, c: DiskCol, units: Units) -> Option<f64> {
    r.rates.and_then(|x| x.get(c)).map(|x| units.scale(c, x))
}

pub(crate) fn figure_cell<'a>(
    r: &DiskRow,
    c: DiskCol,
    units: Units,
    th: &Thresholds,
    t: &Theme,
) -> Cell<'a> {
    let kind = c.def().kind;
    let v = shown_value(r, c, units);
    let text = format::fit(v, COL_WIDTH as usize, 2);
    let style: Style = match v {
        None => t.muted,
        Some(_) if kind == ColKind::Util && !r.class().util_meaningful() => t.muted,
        Some(x) => level_style(t, th.level(kind, x)),
    };
    Cell::from(Line::from(Span::styled(text, style)).right_aligned())
}

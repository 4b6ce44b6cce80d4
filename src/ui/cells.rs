//! The storage layer: DISK and FLASH summed over all cells with the flash
//! shares, a row per cell with its connection, and one cell's disks.

use super::panel_block;
use super::table::{self, Col, TableRow};
use super::widgets::Series;
use crate::app::App;
use crate::app::View;
use crate::app::cells::{CELL_TABLE, CellView, DISK_GROUP, FLASH_GROUP, group_figure};
use crate::app::link::LinkState;
use crate::app::list::Drawn;
use crate::format;
use crate::layers::LayerId;
use crate::layers::cells::cell_metrics::{
    CellDiskCol, CellDiskRow, CellSummary, FlashCacheCol, Media,
};
use crate::layers::cells::cell_shares::Shares;
use crate::layers::cells::model::{AllCells, CellGroups, GROUP_COLS, media_of};
use crate::layers::disks::model::DiskCol;
use crate::layers::disks::state::{DISK_HISTORY, history_index};
use crate::layers::disks::tick::DiskRow;
use crate::layers::layer::Layer;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Wrap};

fn state_style(t: &Theme, s: &LinkState) -> Style {
    match s {
        LinkState::Live => t.ok,
        LinkState::Connecting => t.muted,
        LinkState::Stale(_) => t.warn,
        _ => t.crit,
    }
}

/// Lines of DISK and FLASH figures under a header, and the shares: the
/// all-cell block of the panel and the top of one cell's view. Only the
/// columns that fit in `width` whole are drawn: a figure is left out,
/// never cut.
fn group_lines<'a>(t: &Theme, groups: &CellGroups, what: &str, width: u16) -> Vec<Line<'a>> {
    // a name of 14, the disks count of 5, each figure a space and 9
    let fit = usize::from(width).saturating_sub(19) / 10;
    let cols = &GROUP_COLS[..fit.min(GROUP_COLS.len())];
    let mut head = format!("{what:<14}{:>5}", "disks");
    for c in cols {
        head.push_str(&format!(" {:>9}", c.header));
    }
    let mut lines = vec![Line::from(Span::styled(head, t.header))];
    for (media, name) in [(Media::Disk, "DISK"), (Media::Flash, "FLASH")] {
        let g = groups.get(media);
        let mut spans = vec![Span::styled(format!("{name:<14}"), t.base)];
        spans.push(Span::styled(
            g.map_or(format!("{:>5}", format::UNKNOWN), |g| {
                format!("{:>5}", g.devices)
            }),
            t.muted,
        ));
        for c in cols {
            let v = g.and_then(|g| g.get(c.col));
            let style = if v.is_some() { t.base } else { t.muted };
            spans.push(Span::styled(format!(" {:>9}", format::fit(v, 9, 2)), style));
        }
        lines.push(Line::from(spans));
    }
    lines.push(shares_line(t, &groups.shares()));
    lines
}

/// Reads served by flash, writes absorbed by flash, IOPS per hard disk.
pub(super) fn shares_line<'a>(t: &Theme, s: &Shares) -> Line<'a> {
    let pct = |v: Option<f64>| v.map_or(format::UNKNOWN.to_string(), |v| format!("{v:.1} %"));
    Line::from(vec![
        Span::styled("reads from flash ", t.muted),
        Span::styled(pct(s.read_pct_from_flash), t.accent),
        Span::styled(" · writes to flash ", t.muted),
        Span::styled(pct(s.write_pct_to_flash), t.accent),
        Span::styled(" · IOPS per hard disk ", t.muted),
        Span::styled(
            s.iops_per_disk
                .map_or(format::UNKNOWN.to_string(), |v| format!("{v:.1}")),
            t.accent,
        ),
    ])
}

/// "all 3 cells", "2 of 3 cells (1 not current)".
fn counted(all: &AllCells) -> String {
    let n = all.counted + all.missing;
    if all.missing == 0 {
        format!("all {}", format::count(n, "cell", "cells"))
    } else {
        format!(
            "{} of {} ({} not current)",
            all.counted,
            format::count(n, "cell", "cells"),
            all.missing
        )
    }
}

/// A cell's row: its connection's state and its figures.
struct CellItem<'a> {
    i: usize,
    c: &'a CellView,
    state: LinkState<'a>,
    app: &'a App,
}

impl TableRow for CellItem<'_> {
    fn key(&self) -> &str {
        &self.c.link.target.label
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let t = &self.app.theme;
        vec![
            Cell::from(self.c.link.target.label.clone()),
            Cell::from(Span::styled(
                self.state.label(),
                state_style(t, &self.state),
            )),
        ]
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let v = self.app.cell_figure(self.i, CELL_TABLE[j].0);
        (v, self.app.theme.base)
    }
}

/// How to name cells, where the cells panel has none.
const NO_CELLS: &str = "no cells: name them with --cell [user@]host[:port], --cell-group FILE or [[cell]] in the config";

/// The overview's box of the cells says it shorter: whole in the 78
/// columns of an 80-column terminal (the Cells panel names --cell-group).
pub(super) const NO_CELLS_BRIEF: &str =
    "no cells · --cell [user@]host[:port] or [[cell]] in the config";

/// A panel of the cells: its frame, and the room inside when there are
/// cells; else `advice` there (in a recording, that it has none).
pub(super) fn cells_frame(
    f: &mut Frame,
    app: &App,
    area: Rect,
    title: String,
    focus: bool,
    advice: &'static str,
) -> Option<Rect> {
    let t = &app.theme;
    let inner = super::framed(f, area, title, t, focus);
    if !app.cells.list.is_empty() {
        return Some(inner);
    }
    // wrapped, as the NFS and Databases panels' advice: one row cut it
    // at the border of an 80-column terminal
    let say = super::none_here(app.replay.is_some(), "cells", advice);
    super::said(f, inner, say, t.muted);
    None
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) -> Drawn {
    let t = &app.theme;
    let n = app.cells.list.len();
    let rows = app.cell_rows();
    let sort = app.ui.cells.sort_name(&CELL_TABLE, |c| c.1, "Cell");
    let title = table::panel_title(app, "Cells", (rows.len(), n, "cells"), &app.ui.cells, sort);
    let Some(inner) = cells_frame(f, app, area, title, true, NO_CELLS) else {
        return Drawn::default();
    };
    let all = app.cells.all(app.now_ms);
    let (now, itv) = (app.now_ms, app.cells.interval.ms());
    let items: Vec<CellItem> = rows
        .iter()
        .map(|&i| {
            let c = &app.cells.list[i];
            let state = c.link.state(now, itv);
            CellItem { i, c, state, app }
        })
        .collect();
    // why the selected cell is not live, or what it said: whole, on as
    // many rows as it wraps to (a host key's takes three at 80 columns)
    let selected = app.ui.cells.index(items.iter().map(TableRow::key));
    let note = items.get(selected).and_then(|c| {
        let why = c.state.reason().or_else(|| c.c.link.message.clone())?;
        let why = crate::app::link::named_reason(&c.c.link.target.label, &why);
        Some(Line::from(Span::styled(why, t.muted)))
    });
    let bottom_h = note.as_ref().map_or(1, |l| {
        super::widgets::wrapped_rows(std::slice::from_ref(l), usize::from(inner.width))
            .clamp(1, NOTE_ROWS) as u16
    });
    let top_h = 5u16.min(inner.height / 2);
    // the charts take what the table leaves, when that is enough for them
    let spare = inner
        .height
        .saturating_sub(top_h + 1 + rows.len() as u16 + 1 + bottom_h);
    let charts_h = if spare >= CHARTS_HEIGHT { spare } else { 0 };
    let [top, charts, _, table_area, bottom] = Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Length(charts_h),
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(bottom_h),
    ])
    .areas(inner);
    if charts_h > 0 {
        group_charts(f, app, charts, (&app.cells.history, &all.groups));
    }
    let mut lines = group_lines(t, &all.groups, "all cells", top.width);
    // what does not fit is left out whole, the count first
    lines.extend(super::widgets::whole_spans(
        vec![Line::from(
            [
                counted(&all),
                " · rates added, awaits weighted by requests".to_string(),
                ", %util averaged over the disks".to_string(),
            ]
            .map(|s| Span::styled(s, t.muted))
            .to_vec(),
        )],
        top.width,
    ));
    f.render_widget(Paragraph::new(lines), top);

    let lw = table::name_width(
        rows.iter()
            .map(|&i| app.cells.list[i].link.target.label.as_str()),
        "Cell",
    );
    let mut cols = vec![Col::text("Cell", lw), Col::text("State", 16)];
    cols.extend(CELL_TABLE.iter().map(|(_, h)| Col::figure(*h)));
    let drawn = table::Table::new(cols, 2, &app.ui.cells).draw(f, table_area, t, &items);
    match note {
        Some(note) => f.render_widget(Paragraph::new(note).wrap(Wrap { trim: false }), bottom),
        None => {
            let legend = [
                "D = DISK (hard disks), F = FLASH (not rotational)",
                " · rates over each cell's own clock",
            ]
            .map(|s| Span::styled(s, t.muted));
            let legend =
                super::widgets::whole_spans(vec![Line::from(legend.to_vec())], bottom.width);
            f.render_widget(Paragraph::new(legend), bottom);
        }
    }
    drawn
}

/// The most rows the selected cell's reason takes under the table.
const NOTE_ROWS: usize = 4;

/// The cellcli figures of each cell disk the cell view lists: the
/// combined rates and latencies, then the small and large request rates.
const CELLCLI_TABLE: [CellDiskCol; 10] = [
    CellDiskCol::RPerS,
    CellDiskCol::WPerS,
    CellDiskCol::RMbPerS,
    CellDiskCol::WMbPerS,
    CellDiskCol::RAwait,
    CellDiskCol::WAwait,
    CellDiskCol::RSmPerS,
    CellDiskCol::RLgPerS,
    CellDiskCol::WSmPerS,
    CellDiskCol::WLgPerS,
];

fn group_name(m: Media) -> &'static str {
    match m {
        Media::Disk => "DISK",
        Media::Flash => "FLASH",
        Media::Other => "other",
    }
}

/// The line under a cell's groups: which disks the table shows and, with
/// cellcli, the flash cache's read hits and how old cellcli's figures are.
fn shown_line(
    t: &Theme,
    picked: Option<Media>,
    cellcli: Option<&CellSummary>,
    age: Option<i64>,
) -> Line<'static> {
    let mut spans = vec![
        Span::styled("disks shown: ", t.muted),
        Span::styled(picked.map_or("all", group_name), t.accent),
        Span::styled(" (d)", t.muted),
    ];
    if let (Some(s), Some(age)) = (cellcli, age) {
        let hit = s.totals.flash_cache().get(FlashCacheCol::HitPct);
        spans.extend([
            Span::styled(" · flash cache read hits ", t.muted),
            Span::styled(
                hit.map_or(format::UNKNOWN.to_string(), |v| format!("{v:.1} %")),
                t.accent,
            ),
            Span::styled(
                format!(" · cellcli {age} s ago: its figures are over a minute, not this interval"),
                t.muted,
            ),
        ]);
    }
    Line::from(spans)
}

/// A cell view's title: the cell, how it is reached and its state.
fn cell_title(c: &CellView, state: &LinkState) -> String {
    let target = &c.link.target;
    let port = if target.port == 22 {
        String::new()
    } else {
        format!(":{}", target.port)
    };
    let (label, user, host) = (&target.label, &target.user, &target.host);
    format!(" {label} · {user}@{host}{port} · {} ", state.label())
}

/// One cell: its DISK and FLASH groups, its disks with iostat's figures
/// and, when it has cellcli, its cell disks' names and metriccurrent
/// figures.
pub fn draw_cell(f: &mut Frame, app: &App, area: Rect, i: usize) -> Drawn {
    let t = &app.theme;
    let Some(c) = app.cells.list.get(i) else {
        return Drawn::default();
    };
    let state = c.link.state(app.now_ms, app.cells.interval.ms());
    let mut block = panel_block(cell_title(c, &state), t, true);
    let reason = state.reason();
    // a cell gone or silent says why instead of its last figures
    // as the cells' table: a cell gone or silent has no figures, paused
    // or not (a pause does not hold the cells)
    let groups = c.current_groups(app.now_ms, app.cells.interval.ms());
    // Beside figures (or a live cell's wait for them) the reason or its
    // last message is on the border; a cell down has the body to say its
    // reason whole (a host key's is longer than a border).
    let border = reason.clone().or_else(|| c.link.message.clone());
    if let Some(why) = border.filter(|_| groups.is_some() || reason.is_none()) {
        block = block.title_bottom(Line::from(Span::styled(format!(" {why} "), t.warn)));
    }
    let inner = block.inner(area);
    f.render_widget(block, area);
    let Some(groups) = groups else {
        match c.link.not_current(&state, app.now_ms).or(reason) {
            Some(why) => super::said(f, inner, why, t.warn),
            None => super::waiting(f, t, inner),
        }
        return Drawn::default();
    };
    let picked = app.ui.cell_group;
    let cellcli = c.cellcli.as_ref().map(|(_, s)| s);
    let cc_disks: Vec<&CellDiskRow> = cellcli.map_or(Vec::new(), |s| {
        s.disks
            .iter()
            .filter(|d| picked.is_none_or(|g| g == d.media))
            .collect()
    });
    let rows = app.cell_disk_rows(i);
    let rows_n = rows.len() as u16;
    // the cellcli box takes what the disks table leaves, and at least a
    // third when both are long
    // Under the groups: the disks table whole, the cellcli box (at least a
    // few cell disks), then the charts, which take what is left over.
    let table_h = rows_n + 2;
    let cc_want = if cellcli.is_some() {
        cc_disks.len() as u16 + 3
    } else {
        0
    };
    let room = inner.height.saturating_sub(5 + table_h);
    let charts_h = if room >= cc_want + CHARTS_HEIGHT {
        room - cc_want
    } else if room >= cc_want.min(8) + CHARTS_HEIGHT {
        CHARTS_HEIGHT
    } else {
        0
    };
    let cc_height = cc_want.min(
        inner
            .height
            .saturating_sub(5 + charts_h + table_h)
            .max(inner.height / 3),
    );
    let [top, info, charts, table_area, cc_area] = Layout::vertical([
        Constraint::Length(4.min(inner.height / 2)),
        Constraint::Length(1),
        Constraint::Length(charts_h),
        Constraint::Min(0),
        Constraint::Length(cc_height),
    ])
    .areas(inner);
    if charts_h > 0 {
        group_charts(f, app, charts, (&c.disks, groups));
    }
    let lines = group_lines(t, groups, "this cell", top.width);
    f.render_widget(Paragraph::new(lines), top);
    let info_line = shown_line(t, picked, cellcli, c.cellcli_age_s(app.now_ms));
    f.render_widget(Paragraph::new(info_line), info);

    let cell_disk = |r: &DiskRow| c.cell_disk_of(&r.name).map(|d| d.name.as_str());
    let nw = table::name_width(rows.iter().map(|r| r.name.as_str()), "Device");
    let mut cols = vec![Col::text("Device", nw)];
    if cellcli.is_some() {
        let cw = table::name_width(rows.iter().filter_map(|r| cell_disk(r)), "Cell disk");
        cols.push(Col::text("Cell disk", cw));
    }
    cols.extend([Col::text("Group", 5), Col::text("Class", 5)]);
    cols.extend(DISK_HISTORY.iter().map(|c| Col::figure(c.def().header)));
    let items: Vec<CellDiskItem> = rows
        .iter()
        .map(|&r| CellDiskItem {
            r,
            cell_disk: cellcli.map(|_| cell_disk(r).unwrap_or(format::UNKNOWN)),
            app,
        })
        .collect();
    let drawn = table::Table::new(cols, 1, &app.ui.cell_disks).draw(f, table_area, t, &items);
    if cc_height > 0 {
        draw_cellcli(f, t, cc_area, &cc_disks, c.cellcli_age_s(app.now_ms));
    }
    drawn
}

/// A disk's row in one cell's view: its cell disk when the cell has
/// cellcli, its group and class, and iostat's figures.
struct CellDiskItem<'a> {
    r: &'a DiskRow,
    cell_disk: Option<&'a str>,
    app: &'a App,
}

impl TableRow for CellDiskItem<'_> {
    fn key(&self) -> &str {
        &self.r.name
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let (r, t) = (self.r, &self.app.theme);
        let mut cells = vec![Cell::from(r.display_name().to_string())];
        if let Some(name) = self.cell_disk {
            cells.push(Cell::from(Span::styled(name.to_string(), t.accent)));
        }
        cells.extend([
            Cell::from(Span::styled(
                media_of(r).map_or(format::UNKNOWN, group_name),
                t.muted,
            )),
            Cell::from(Span::styled(r.class().label(), t.muted)),
        ]);
        cells
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let t = &self.app.theme;
        let c = DISK_HISTORY[j];
        let v = self.r.rates.and_then(|x| x.get(c));
        let style = match c {
            DiskCol::Util | DiskCol::RAwait | DiskCol::WAwait => v.map_or(t.muted, |v| {
                super::level_style(t, self.app.config.thresholds.level(c.def().kind, v))
            }),
            _ => t.base,
        };
        (v, style)
    }
}

/// The cell disks as cellcli's metriccurrent gives them, under a title
/// that says how old they are.
fn draw_cellcli(f: &mut Frame, t: &Theme, area: Rect, disks: &[&CellDiskRow], age: Option<i64>) {
    let title = format!(
        " cellcli metriccurrent · {} · {} ",
        format::count(disks.len(), "cell disk", "cell disks"),
        age.map_or(format::UNKNOWN.to_string(), |a| format!("{a} s ago")),
    );
    let inner = super::framed(f, area, title, t, false);
    let name_w = table::name_width(disks.iter().map(|d| d.name.as_str()), "Cell disk");
    let devs: Vec<&str> = disks
        .iter()
        .map(|d| {
            d.device
                .as_deref()
                .map_or(format::UNKNOWN, |p| p.strip_prefix("/dev/").unwrap_or(p))
        })
        .collect();
    let dev_w = table::name_width(devs.iter().copied(), "Device");
    let mut cols = vec![
        Col::text("Cell disk", name_w),
        Col::text("Device", dev_w),
        Col::text("Group", 5),
    ];
    cols.extend(CELLCLI_TABLE.iter().map(|c| Col::figure(c.def().header)));
    let rows: Vec<CellcliItem> = disks
        .iter()
        .zip(devs)
        .map(|(&disk, device)| CellcliItem { disk, device, t })
        .collect();
    table::plain(f, inner, t, (&cols, None), &rows);
}

/// A cell disk as cellcli's metriccurrent gives it: its name, its host
/// device and group, and cellcli's figures.
struct CellcliItem<'a> {
    disk: &'a CellDiskRow,
    device: &'a str,
    t: &'a Theme,
}

impl TableRow for CellcliItem<'_> {
    fn key(&self) -> &str {
        &self.disk.name
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let (d, t) = (self.disk, self.t);
        vec![
            Cell::from(Span::styled(d.name.clone(), t.accent)),
            Cell::from(self.device.to_string()),
            Cell::from(Span::styled(group_name(d.media), t.muted)),
        ]
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        (self.disk.figures.get(CELLCLI_TABLE[j]), self.t.base)
    }
}

/// One disk of cell `i`: the host device's detail view over the cell's
/// disks layer, with its cell disk's cellcli figures.
pub fn draw_cell_disk(f: &mut Frame, app: &App, area: Rect, i: usize, name: &str) {
    let Some(c) = app.cells.list.get(i) else {
        return;
    };
    // a cell gone or silent: why, not the disk's last figures as if current
    let state = c.link.state(app.now_ms, app.cells.interval.ms());
    let why = c.link.not_current(&state, app.now_ms);
    if let Some(why) = why.filter(|_| !app.paused()) {
        let label = &c.link.target.label;
        let inner = super::framed(f, area, format!(" {label} · {name} "), &app.theme, true);
        super::said(f, inner, why, app.theme.warn);
        return;
    }
    let cell_disk = c.cell_disk_of(name).zip(c.cellcli_age_s(app.now_ms));
    let dev = super::detail::Device {
        layer: &c.disks,
        source: &c.link.target.label,
        cell_disk,
    };
    super::detail::draw(f, app, area, name, dev);
}

/// The least height of the DISK and FLASH charts: a row of charts each.
const CHARTS_HEIGHT: u16 = 12;

/// DISK above FLASH over the window, from a history that holds the groups
/// as a disks layer holds a device (the all-cell sums, or one cell's):
/// IOPS, MB/s and awaits (reads against writes) and %util.
fn group_charts<T: Clone>(
    f: &mut Frame,
    app: &App,
    area: Rect,
    (layer, groups): (&Layer<T>, &CellGroups),
) {
    let t = &app.theme;
    let n = layer.history.capacity();
    let rows = Layout::vertical([Constraint::Ratio(1, 2); 2]).split(area);
    for ((entity, media, name), row) in [
        (DISK_GROUP, Media::Disk, "DISK"),
        (FLASH_GROUP, Media::Flash, "FLASH"),
    ]
    .into_iter()
    .zip(rows.iter())
    {
        // the history keeps kB/s, as a device's; MB/s as the group lines
        // print them (and as `group_figure` gives them)
        let s = |label, c: DiskCol, style| {
            let scale = if matches!(c, DiskCol::RkBPerS | DiskCol::WkBPerS) {
                1024.0
            } else {
                1.0
            };
            Series {
                label,
                values: history_index(c).map_or(Vec::new(), |i| {
                    layer
                        .series(entity, i, n)
                        .into_iter()
                        .map(|v| v / scale)
                        .collect()
                }),
                now: groups.get(media).and_then(|g| group_figure(g, c)),
                style,
            }
        };
        let pair = |a: (&'static str, DiskCol), b: (&'static str, DiskCol)| {
            vec![s(a.0, a.1, t.read), s(b.0, b.1, t.write)]
        };
        let specs: [(String, &str, Vec<Series>); 4] = [
            (
                format!("{name} IOPS"),
                "",
                pair(("r/s", DiskCol::RPerS), ("w/s", DiskCol::WPerS)),
            ),
            (
                format!("{name} MB/s"),
                "",
                pair(("rMB/s", DiskCol::RkBPerS), ("wMB/s", DiskCol::WkBPerS)),
            ),
            (
                format!("{name} await ms"),
                "",
                pair(("r", DiskCol::RAwait), ("w", DiskCol::WAwait)),
            ),
            (
                format!("{name} %util"),
                "%",
                vec![s("%util", DiskCol::Util, t.accent)],
            ),
        ];
        let specs = (Direction::Horizontal, &specs[..]);
        super::history_charts(f, app, *row, (layer, entity), specs);
    }
}

/// The cells panel, one cell's view and one of its disks'.
pub(super) struct CellsScreen;

impl super::LayerScreen for CellsScreen {
    fn id(&self) -> LayerId {
        LayerId::Cells
    }
    fn draw(&self, f: &mut Frame, app: &App, area: Rect, view: &View) -> Drawn {
        match view {
            View::Cell(i) => draw_cell(f, app, area, *i),
            View::CellDisk(i, name) => {
                draw_cell_disk(f, app, area, *i, name);
                Drawn::default()
            }
            _ => draw(f, app, area),
        }
    }
    fn crumb(&self, app: &App, view: &View) -> String {
        match view {
            View::Cell(i) => app
                .cells
                .list
                .get(*i)
                .map_or_else(|| i.to_string(), |c| c.link.target.label.clone()),
            View::CellDisk(_, name) => name.clone(),
            _ => String::new(),
        }
    }
    fn footer(&self, _: &App, view: &View) -> Option<&'static [(&'static str, &'static str)]> {
        match view {
            View::Cell(_) => Some(&[
                ("Enter", "disk"),
                ("d", "DISK/FLASH"),
                ("s/S", "sort disks"),
                ("Esc", "back"),
                ("p", "pause"),
            ]),
            View::CellDisk(..) => Some(&[
                ("Enter", "part"),
                ("Esc", "back"),
                ("p", "pause"),
                ("c", "theme"),
            ]),
            _ => None,
        }
    }
    fn offered(&self, app: &App, view: &View, key: &str) -> bool {
        match (view, key) {
            (View::CellDisk(..), "Enter") => !app.parts_here().is_empty(),
            (View::Panel(_), "Enter" | "s/S" | "r" | "/") => !app.cells.list.is_empty(),
            _ => true,
        }
    }
}

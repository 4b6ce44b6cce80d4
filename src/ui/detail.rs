//! One device, the host's or a storage cell's: history charts, every
//! iostat -x figure, and its parts (partitions, or the devices under a
//! dm/md device) to drill into. A cell's device also shows what its cell
//! disk's cellcli listing says.

use super::disks::{DeviceItem, device_cols, figure_cell};
use super::panel_block;
use super::table;
use super::widgets::Series;
use crate::app::App;
use crate::app::disks::parts_in;
use crate::app::list::ListUi;
use crate::format;
use crate::layers::cells::cell_metrics::{CELL_DISK_COLS, CellDiskRow};
use crate::layers::col::Units;
use crate::layers::disks::model::{DISK_COLS, DiskCol};
use crate::layers::disks::state::{DISK_HISTORY, history_index};
use crate::layers::disks::tick::{DiskRow, DiskTick};
use crate::layers::layer::Layer;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table};

/// What a host's disk error line blames, in the panel and a device's
/// detail.
pub(crate) const DISK_SOURCE: &str = "disk source";

/// Where a device's figures come from.
pub struct Device<'a> {
    pub layer: &'a Layer<DiskTick>,
    /// What the error line blames: "disk source", or the cell.
    pub source: &'a str,
    /// A cell's device: its cell disk in the latest cellcli listing, and
    /// the listing's age in seconds.
    pub cell_disk: Option<(&'a CellDiskRow, i64)>,
}

impl<'a> Device<'a> {
    pub fn host(app: &'a App) -> Device<'a> {
        Device {
            layer: &app.host().disks,
            source: DISK_SOURCE,
            cell_disk: None,
        }
    }
}

/// A device's title: its name (or device-mapper name), its cell disk, and
/// what the system says it is.
fn device_title(name: &str, dev: &Device, row: Option<&DiskRow>) -> String {
    let mut title = format!(" {name}");
    if let Some((cd, _)) = dev.cell_disk {
        title.push_str(&format!(" · {}", cd.name));
    }
    if let Some(info) = row.and_then(|r| r.info.as_ref()) {
        if let Some(m) = &info.mapper_name {
            title = format!(" {m} ({name})");
        }
        title.push_str(&format!(" · {}", info.class.label()));
        if let Some(p) = &info.parent {
            title.push_str(&format!(" · partition of {p}"));
        }
        if let Some(s) = info.size_bytes {
            title.push_str(&format!(" · {}", format::bytes(s)));
        }
        if let Some(m) = &info.model {
            title.push_str(&format!(" · {m}"));
        }
    }
    title.push(' ');
    title
}

/// A device's history charts: IOPS, throughput, await, queue and %util.
fn draw_charts(f: &mut Frame, app: &App, area: Rect, name: &str, dev: &Device, row: &DiskRow) {
    let t = &app.theme;
    let n = dev.layer.history.capacity();
    let mb = app.ui.units == Units::MB;
    let units = app.ui.units;
    let s = |label, c: DiskCol, style| Series {
        label,
        values: history_index(c).map_or(Vec::new(), |i| {
            dev.layer
                .series(name, i, n)
                .into_iter()
                .map(|x| units.scale(c, f64::from(x)) as f32)
                .collect()
        }),
        now: super::disks::shown_value(row, c, units),
        style,
    };
    let tput = if mb { "MB/s" } else { "kB/s" };
    let rk = format!("r{tput}");
    let wk = format!("w{tput}");
    let util_title = if row.class().util_meaningful() {
        "%util"
    } else {
        "%util (not meaningful here)"
    };
    let specs: [(&str, &str, Vec<Series>); 5] = [
        (
            "IOPS",
            "",
            vec![
                s("r/s", DiskCol::RPerS, t.read),
                s("w/s", DiskCol::WPerS, t.write),
            ],
        ),
        (
            "Throughput",
            "",
            vec![
                s(&rk, DiskCol::RkBPerS, t.read),
                s(&wk, DiskCol::WkBPerS, t.write),
            ],
        ),
        (
            "Await ms",
            "",
            vec![
                s("r_await", DiskCol::RAwait, t.read),
                s("w_await", DiskCol::WAwait, t.write),
            ],
        ),
        ("Queue", "", vec![s("aqu-sz", DiskCol::AquSz, t.accent)]),
        (util_title, "%", vec![s("%util", DiskCol::Util, t.accent)]),
    ];
    let entity = (dev.layer, name);
    super::history_charts(f, app, area, entity, (Direction::Vertical, &specs));
}

/// Every iostat -x figure of the device now and, for a cell's device, its
/// cell disk's cellcli figures.
fn draw_now(
    f: &mut Frame,
    app: &App,
    area: Rect,
    row: &DiskRow,
    cell_disk: Option<(&CellDiskRow, i64)>,
) {
    let t = &app.theme;
    let mut lines: Vec<Row> = DISK_COLS
        .iter()
        .map(|c| {
            let label = app.ui.units.header(c.col);
            Row::new(vec![
                Cell::from(Span::styled(label, t.muted)),
                // the box's column: 10 fits two decimals up to 9999999.99
                figure_cell(row, c.col, app, 10),
            ])
        })
        .collect();
    if let Some((cd, age_s)) = cell_disk {
        // cellcli's own figures are over its last minute, not this
        // interval: their age says so
        lines.push(Row::new(vec![
            Cell::from(Span::styled("cellcli", t.header)),
            Cell::from(
                Line::from(Span::styled(format!("{age_s} s ago"), t.header)).right_aligned(),
            ),
        ]));
        lines.extend(CELL_DISK_COLS.iter().take(6).map(|c| {
            Row::new(vec![
                Cell::from(Span::styled(c.header, t.muted)),
                super::table::figure(cd.figures.get(c.col), 10, t, t.base),
            ])
        }));
    }
    let table = Table::new(lines, [Constraint::Length(10), Constraint::Length(10)])
        .block(panel_block(" now ", t, false));
    f.render_widget(table, area);
}

pub fn draw(f: &mut Frame, app: &App, area: Rect, name: &str, dev: Device) {
    let t = &app.theme;
    let row = dev
        .layer
        .tick()
        .and_then(|k| k.rows.iter().find(|r| r.name == name));
    let title = device_title(name, &dev, row);
    let mut block = panel_block(title, t, true);
    if let Some(err) = dev.layer.shown_error() {
        block = block.title_bottom(Line::from(Span::styled(
            format!(" {}: {err} ", dev.source),
            t.crit,
        )));
    }
    let inner = block.inner(area);
    f.render_widget(block, area);
    let Some(row) = row else {
        super::say(f, inner, "this device is gone from /proc/diskstats", t.warn);
        return;
    };

    let parts = parts_in(dev.layer.tick(), name);
    let parts_height = if parts.is_empty() {
        0
    } else {
        (parts.len() as u16 + 3).min(inner.height / 3)
    };
    let [top, bottom] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(parts_height)]).areas(inner);
    let metrics_width = if top.width >= 100 { 24 } else { 0 };
    let [charts, metrics] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(metrics_width)]).areas(top);

    draw_charts(f, app, charts, name, &dev, row);

    if metrics_width > 0 {
        draw_now(f, app, metrics, row, dev.cell_disk);
    }

    if !parts.is_empty() {
        let kind = if row.info.as_ref().is_some_and(|i| !i.slaves.is_empty()) {
            "devices under it"
        } else {
            "partitions"
        };
        // only the figure columns that fit whole beside the name and class:
        // this table does not scroll sideways (h/l move the charts), so
        // it must not leave some out and say "h/l scroll" as a list does
        let name_w = table::name_width(parts.iter().map(|p| p.display_name()), "Device");
        let fit = usize::from(bottom.width.saturating_sub(name_w + 9) / 9);
        let figs = &DISK_HISTORY[..fit.min(DISK_HISTORY.len())];
        let cols = device_cols(app, parts.iter().map(|p| p.display_name()), figs);
        let items: Vec<DeviceItem> = parts
            .iter()
            .map(|&row| DeviceItem {
                row,
                cols: figs,
                app,
            })
            .collect();
        // the partitions neither sort nor scroll: only their selection
        // is the user's
        let list = ListUi {
            selected: app.ui.part_selected.clone(),
            ..ListUi::default()
        };
        let inner = super::framed(f, bottom, format!(" {kind} · Enter to open "), t, false);
        // nothing to keep: the rows start from the top each frame, as a
        // bond's slaves do, and the selection is kept visible
        let _ = table::Table::new(cols, 2, &list).draw(f, inner, t, &items);
    }
}

//! The disks panel: a row per device with every `iostat -x` column.

use super::table::{self, Col, Table, TableRow};
use super::{level_style, panel_block};
use crate::app::App;
use crate::app::View;
use crate::app::cluster::Disks;
use crate::app::disks::disk_sort_label;
use crate::app::list::Drawn;
use crate::layers::LayerId;
use crate::layers::col::{ColKind, Units};
use crate::layers::disks::model::{DISK_COLS, DiskCol};
use crate::layers::disks::tick::DiskRow;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell};

const CLASS_WIDTH: u16 = 5;

/// The disks panel's frame: what is shown and how it is sorted and
/// filtered above, the source's error or first rejected line below.
fn disks_block(app: &App, shown: usize, total: usize) -> Block<'_> {
    let t = &app.theme;
    let units = app.ui.units;
    let mut title = vec![Span::styled(
        format!(
            " Disks{} · sort ",
            super::counted(app, (shown, total, "devices"))
        ),
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
    super::with_source_state(block, &app.host().disks, super::detail::DISK_SOURCE, t)
}

/// A device's row: its name, its class and the figures of `cols`, each
/// coloured by its threshold.
pub(crate) struct DeviceItem<'a> {
    pub row: &'a DiskRow,
    pub cols: &'a [DiskCol],
    pub app: &'a App,
}

impl TableRow for DeviceItem<'_> {
    fn key(&self) -> &str {
        &self.row.name
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        vec![
            Cell::from(self.row.display_name().to_string()),
            Cell::from(Span::styled(self.row.class().label(), self.app.theme.muted)),
        ]
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let (r, c, units) = (self.row, self.cols[j], self.app.ui.units);
        let v = shown_value(r, c, units);
        (v, figure_style(r, c, v, self.app))
    }
}

/// The device and class columns, then a figure column for each of
/// `cols`, headed in the units shown.
pub(crate) fn device_cols<'a>(
    app: &App,
    names: impl IntoIterator<Item = &'a str>,
    cols: &[DiskCol],
) -> Vec<Col> {
    let mut all = vec![
        Col::text("Device", table::name_width(names, "Device")),
        Col::text("Class", CLASS_WIDTH),
    ];
    all.extend(cols.iter().map(|c| Col::figure(app.ui.units.header(*c))));
    all
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) -> Drawn {
    let all: Vec<DiskCol> = DISK_COLS.iter().map(|c| c.col).collect();
    let rows = table::layer_rows::<Disks, _>(app, |row, _| DeviceItem {
        row,
        cols: &all,
        app,
    });
    let total = table::total::<Disks>(app);
    let block = disks_block(app, rows.len(), total);
    let Some(inner) =
        table::layer_frame::<Disks>(f, area, app, (block, super::detail::DISK_SOURCE))
    else {
        return Drawn::default();
    };
    let names = rows.iter().map(|r| r.row.row.display_name());
    let mut cols = device_cols(app, names, &all);
    let frozen = table::with_node_col(app, &mut cols, 2, &rows);
    Table::new(cols, frozen, &app.ui.disks)
        .legend(&["– unknown", "dimmed %util: not meaningful for NVMe/dm/md"])
        .draw(f, inner, &app.theme, &rows)
}

/// A device's figure as its table and its charts' titles print it: the
/// tick's f64 in the units shown.
pub(crate) fn shown_value(r: &DiskRow, c: DiskCol, units: Units) -> Option<f64> {
    r.rates.and_then(|x| x.get(c)).map(|x| units.scale(c, x))
}

/// A device's figure `c` as a cell of a figure column `width` wide, as
/// its table shows it.
pub(crate) fn figure_cell<'a>(r: &DiskRow, c: DiskCol, app: &App, width: u16) -> Cell<'a> {
    let v = shown_value(r, c, app.ui.units);
    table::figure(v, width, &app.theme, figure_style(r, c, v, app))
}

/// A figure's colour: its threshold's; %util dimmed where iostat's man
/// page says it means little.
fn figure_style(r: &DiskRow, c: DiskCol, v: Option<f64>, app: &App) -> Style {
    let (t, kind) = (&app.theme, c.def().kind);
    match v {
        None => t.muted,
        Some(_) if kind == ColKind::Util && !r.class().util_meaningful() => t.muted,
        Some(x) => level_style(t, app.config.thresholds.level(kind, x)),
    }
}

/// The disks panel and one device's view.
pub(super) struct DisksScreen;

impl super::LayerScreen for DisksScreen {
    fn id(&self) -> LayerId {
        LayerId::Disks
    }
    fn draw(&self, f: &mut Frame, app: &App, area: Rect, view: &View) -> Drawn {
        match view {
            // one of a node's disks while the node is gone or silent: why,
            // not its last figures as if current
            View::Disk(name) if super::node_detail_not_current(f, app, area, name) => {}
            View::Disk(name) => {
                super::detail::draw(f, app, area, name, super::detail::Device::host(app))
            }
            _ => return draw(f, app, area),
        }
        Drawn::default()
    }
    fn crumb(&self, app: &App, view: &View) -> String {
        let View::Disk(n) = view else {
            return String::new();
        };
        app.view_tick()
            .and_then(|t| t.rows.iter().find(|r| &r.name == n))
            .map_or(n.to_string(), |r| r.display_name().to_string())
    }
    fn footer(&self, _: &App, view: &View) -> Option<&'static [(&'static str, &'static str)]> {
        match view {
            View::Disk(_) => Some(&[
                ("Enter", "part"),
                ("Esc", "back"),
                ("p", "pause"),
                ("c", "theme"),
            ]),
            _ => None,
        }
    }
    fn offered(&self, app: &App, view: &View, key: &str) -> bool {
        !matches!((view, key), (View::Disk(_), "Enter")) || !app.parts_here().is_empty()
    }
}

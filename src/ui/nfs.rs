//! The kernel NFS panel (a row per mount, nfsiostat's figures) and one
//! mount's detail: its charts and its operations.

use super::source_framed;
use super::table::{self, Col, Item, LayerPanel, Table, TableRow};
use super::widgets::Series;
use crate::app::App;
use crate::app::View;
use crate::app::cluster::Nfs;
use crate::app::list::Drawn;
use crate::layers::LayerId;
use crate::layers::col::ColKind;
use crate::layers::nfs::model::{NFS_OP_COLS, NfsColKind, NfsOpCol};
use crate::layers::nfs::state::{NFS_TABLE, NfsFig, nfs_figure};
use crate::layers::nfs::tick::{NfsOpRow, NfsRow, mount_label};
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::Cell;

/// Latency figures are coloured by the await thresholds, as disks' are.
fn style_of(app: &App, kind: NfsColKind, v: Option<f64>) -> Style {
    let t = &app.theme;
    match (kind, v) {
        (NfsColKind::Latency, Some(x)) => {
            super::level_style(t, app.config.thresholds.level(ColKind::Await, x))
        }
        _ => t.base,
    }
}

fn kind_of(fig: NfsFig) -> NfsColKind {
    match fig {
        NfsFig::Mount(c) => c.def().kind,
        NfsFig::Op(_, c) => c.def().kind,
    }
}

/// A mount: its export, where it is mounted and nfsiostat's figures.
impl TableRow for Item<'_, NfsRow> {
    fn key(&self) -> &str {
        &self.row.key
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let r = self.row;
        vec![
            Cell::from(r.export.clone()),
            Cell::from(mount_label(r)),
            Cell::from(Span::styled(
                r.vers.clone().unwrap_or_default(),
                self.app.theme.muted,
            )),
        ]
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let fig = NFS_TABLE[j].0;
        let v = nfs_figure(self.row, fig);
        (v, style_of(self.app, kind_of(fig), v))
    }
}

/// An operation of a mount, in its detail.
impl TableRow for Item<'_, NfsOpRow> {
    fn key(&self) -> &str {
        &self.row.name
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        vec![Cell::from(self.row.name.clone())]
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let (o, c) = (self.row, &NFS_OP_COLS[j]);
        // errors only exist from RPC iostats 1.1 on
        let v = match c.col {
            NfsOpCol::Errors | NfsOpCol::ErrorsPct if !o.has_errors => None,
            col => o.rates.as_ref().and_then(|r| r.get(col)),
        };
        (v, style_of(self.app, c.kind, v))
    }
}

impl LayerPanel for Nfs {
    const TITLE: &'static str = "Kernel NFS client";
    const NOUN: &'static str = "mounts";
    const NAME: &'static str = "Mount";
    const SOURCE: &'static str = "mountstats";
    fn header(col: usize) -> Option<&'static str> {
        NFS_TABLE.get(col).map(|c| c.1)
    }
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) -> Drawn {
    let rows = table::layer_items::<Nfs>(app);
    let t = &app.theme;
    let Some((inner, total)) = table::layer_panel::<Nfs>(f, area, app, rows.len()) else {
        return Drawn::default();
    };
    if total == 0 {
        super::said(
            f,
            inner,
            "no NFS mounts in /proc/self/mountstats (Oracle dNFS does its own I/O and never shows here)".into(),
            t.muted,
        );
        return Drawn::default();
    }
    let mw = table::name_width(rows.iter().map(|r| r.row.row.export.as_str()), "Export");
    let pw = table::name_width(
        rows.iter()
            .map(|r| mount_label(r.row.row))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str),
        "Mounted on",
    );
    let mut cols = vec![
        Col::text("Export", mw),
        Col::text("Mounted on", pw),
        Col::text("Vers", 4),
    ];
    cols.extend(NFS_TABLE.iter().map(|(_, h)| Col::figure(*h)));
    let frozen = table::with_node_col(app, &mut cols, 1, &rows);
    let [table_area, legend] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(inner);
    let drawn = Table::new(cols, frozen, &app.ui.nfs).draw(f, table_area, t, &rows);
    let text = super::whole_parts(
        &[
            "RTT and exe in ms per operation",
            "bklog: nfsiostat's rpc bklog",
            "bind mounts of one export are one row",
        ],
        usize::from(legend.width),
    );
    super::say(f, legend, text, t.muted);
    drawn
}

/// A mount's charts, from its history: RPC, operations, throughput and
/// round trips.
fn draw_mount_charts(f: &mut Frame, app: &App, area: Rect, key: &str, row: &NfsRow) {
    let t = &app.theme;
    let n = app.host().nfs.history.capacity();
    // `i` indexes NFS_TABLE, whose order the history keeps.
    let s = |label, i: usize, style| Series {
        label,
        values: app.host().nfs.series(key, i, n),
        now: NFS_TABLE.get(i).and_then(|(fig, _)| nfs_figure(row, *fig)),
        style,
    };
    let specs: [(&str, &str, Vec<Series>); 4] = [
        ("RPC", "", vec![s("ops/s", 0, t.accent)]),
        (
            "Operations",
            "",
            vec![s("READ/s", 2, t.read), s("WRITE/s", 6, t.write)],
        ),
        (
            "Throughput",
            "",
            vec![s("rd kB/s", 3, t.read), s("wr kB/s", 7, t.write)],
        ),
        (
            "RTT ms",
            "",
            vec![s("READ", 4, t.read), s("WRITE", 8, t.write)],
        ),
    ];
    let entity = (&*app.host().nfs, key);
    super::history_charts(f, app, area, entity, (Direction::Vertical, &specs));
}

pub fn draw_mount(f: &mut Frame, app: &App, area: Rect, key: &str) -> Drawn {
    let t = &app.theme;
    let Some(row) = app.nfs_row(key) else {
        super::gone(
            f,
            area,
            key,
            "this mount is gone from /proc/self/mountstats",
            t,
        );
        return Drawn::default();
    };
    let mut parts = vec![format!("{} on {}", row.export, row.mount_points.join(", "))];
    parts.extend(row.vers.as_ref().map(|v| format!("NFSv{v}")));
    parts.extend(row.proto.clone());
    parts.push(format!("mounted {}", crate::format::duration_s(row.age_s)));
    let title = super::title_of(&parts, area.width);
    let inner = source_framed(f, area, title, (&app.host().nfs, Nfs::SOURCE), t);

    let ops = app.nfs_ops(key);
    let ops_height = (ops.len() as u16 + 3).min(inner.height / 2).max(4);
    let [charts, bottom] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(ops_height)]).areas(inner);
    draw_mount_charts(f, app, charts, key, row);

    let ow = table::name_width(ops.iter().map(|o| o.name.as_str()), "Operation");
    let mut cols = vec![Col::text("Operation", ow)];
    cols.extend(NFS_OP_COLS.iter().map(|c| Col::figure(c.header)));
    let items = table::items(&ops, app);
    let table_area = super::framed(
        f,
        bottom,
        " operations · READ and WRITE always, others when active ",
        t,
        false,
    );
    Table::new(cols, 1, &app.ui.nfs_ops).draw(f, table_area, t, &items)
}

/// The NFS panel and one mount's view.
pub(super) struct NfsScreen;

impl super::LayerScreen for NfsScreen {
    fn id(&self) -> LayerId {
        LayerId::Nfs
    }
    fn draw(&self, f: &mut Frame, app: &App, area: Rect, view: &View) -> Drawn {
        match view {
            // one of a node's mounts while the node is gone or silent
            View::Nfs(key) if super::node_detail_not_current(f, app, area, key) => Drawn::default(),
            View::Nfs(key) => draw_mount(f, app, area, key),
            _ => draw(f, app, area),
        }
    }
    fn crumb(&self, app: &App, view: &View) -> String {
        let View::Nfs(key) = view else {
            return String::new();
        };
        app.nfs_row(key).map_or(key.clone(), |r| r.export.clone())
    }
    fn footer(&self, _: &App, view: &View) -> Option<&'static [(&'static str, &'static str)]> {
        match view {
            View::Nfs(_) => Some(&[("s/S", "sort operations"), ("Esc", "back"), ("p", "pause")]),
            _ => None,
        }
    }
}

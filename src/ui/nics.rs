//! The NIC panel (a row per interface, nicstat's figures, bond warnings)
//! and one interface's detail: its charts, its figures now, its link and,
//! for a bond, its slaves.

use super::source_framed;
use super::table::{self, Col, Item, LayerPanel, Table, TableRow};
use super::widgets::Series;
use super::{level_style, panel_block};
use crate::app::App;
use crate::app::View;
use crate::app::cluster::Nics;
use crate::app::list::{Drawn, ListUi};
use crate::format;
use crate::layers::LayerId;
use crate::layers::col::ColKind;
use crate::layers::host::HostLayers;
use crate::layers::nics::bond::{BondRow, SlaveRow};
use crate::layers::nics::model::{NIC_COLS, NicCol, NicColKind};
use crate::layers::nics::net_sysfs::OperState;
use crate::layers::nics::state::{NIC_TABLE, NicFig, nic_figure, nic_index};
use crate::layers::nics::tick::NicRow;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph};

/// "25000" Mb/s, or "–" when the link has no known speed.
fn speed(mbps: Option<u32>) -> String {
    mbps.map_or(format::UNKNOWN.to_string(), |s| s.to_string())
}

/// %Util coloured by the disks' %util thresholds, trouble when non-zero.
fn style_of(app: &App, kind: NicColKind, v: Option<f64>) -> Style {
    let t = &app.theme;
    match (kind, v) {
        (NicColKind::Util, Some(x)) => {
            level_style(t, app.config.thresholds.level(ColKind::Util, x))
        }
        (NicColKind::Trouble, Some(x)) if x > 0.0 => t.warn,
        _ => t.base,
    }
}

fn kind_of(fig: NicFig) -> NicColKind {
    match fig {
        NicFig::Col(c) => c.def().kind,
        NicFig::Errors | NicFig::Drops => NicColKind::Trouble,
    }
}

fn state_style(t: &Theme, s: OperState) -> Style {
    match s {
        OperState::Up => t.base,
        OperState::Unknown => t.muted,
        _ => t.warn,
    }
}

/// The bond `name` heads on `host`, if it is one with something wrong.
fn warned_bond<'a>(host: &'a HostLayers, name: &str) -> Option<&'a BondRow> {
    host.bond(name).filter(|b| !b.warnings.is_empty())
}

/// An interface: its link and nicstat's figures, flagged when it heads a
/// bond with something wrong.
impl TableRow for Item<'_, NicRow> {
    fn key(&self) -> &str {
        &self.row.name
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let (r, t) = (self.row, &self.app.theme);
        let warn = warned_bond(self.host, &r.name).is_some();
        vec![
            Cell::from(Span::styled(if warn { "!" } else { " " }, t.warn)),
            Cell::from(Span::styled(
                r.name.clone(),
                if warn { t.warn } else { t.base },
            )),
            Cell::from(Span::styled(r.kind().label(), t.muted)),
            Cell::from(Span::styled(
                r.link().operstate.label(),
                state_style(t, r.link().operstate),
            )),
            Cell::from(speed(r.link().speed_mbps)),
            Cell::from(r.link().duplex.label()),
            Cell::from(
                r.info
                    .as_ref()
                    .and_then(|i| i.mtu)
                    .map_or(format::UNKNOWN.to_string(), |m| m.to_string()),
            ),
        ]
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let fig = NIC_TABLE[j];
        let v = nic_figure(self.row.rates.as_ref(), fig);
        (v, style_of(self.app, kind_of(fig), v))
    }
}

/// The bond warnings of the hosts the table draws from, each led by its
/// node's label in the cluster's table.
fn bond_warnings(app: &App) -> Vec<String> {
    app.shown_hosts()
        .into_iter()
        .flat_map(|(i, h)| {
            let label = i
                .and_then(|i| app.nodes.get(i))
                .map(|n| n.link.target.label());
            let bonds = h.nics.tick().map_or(&[][..], |k| k.bonds());
            bonds
                .iter()
                .flat_map(BondRow::messages)
                .map(move |m| match label {
                    Some(l) => format!("{l}: {m}"),
                    None => m,
                })
        })
        .collect()
}

impl LayerPanel for Nics {
    const TITLE: &'static str = "NICs";
    const NOUN: &'static str = "interfaces";
    const NAME: &'static str = "Int";
    const SOURCE: &'static str = "net";
    fn header(col: usize) -> Option<&'static str> {
        NIC_TABLE.get(col).map(|f| f.header())
    }
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) -> Drawn {
    let rows = table::layer_items::<Nics>(app);
    let t = &app.theme;
    let Some((inner, _)) = table::layer_panel::<Nics>(f, area, app, rows.len()) else {
        return Drawn::default();
    };
    let warnings = bond_warnings(app);
    let iw = table::name_width(rows.iter().map(|r| r.row.row.name.as_str()), "Int");
    // "unknown", "dormant": a state is read whole, not cut to "unkno"
    let state_w = rows
        .iter()
        .map(|r| r.row.row.link().operstate.label().chars().count())
        .max()
        .unwrap_or(0)
        .clamp(5, 14) as u16;
    let mut cols = vec![
        Col::text("!", 1),
        Col::text("Int", iw),
        Col::text("Kind", 8),
        Col::text("State", state_w),
        Col::text("Mb/s", 6),
        Col::text("Duplex", 7),
        Col::text("MTU", 5),
    ];
    cols.extend(NIC_TABLE.iter().map(|f| Col::figure(f.header())));
    let frozen = table::with_node_col(app, &mut cols, 2, &rows);
    let mut lines: Vec<Line> = if warnings.is_empty() {
        let shown = if app.ui.show_all_nics {
            ["every interface", "a: only used wire-facing ones"]
        } else {
            [
                "used wire-facing interfaces",
                "a: also loopback, virtual and unused ones",
            ]
        };
        let parts = [shown[0], shown[1], "KB = 1024 bytes"];
        let text = super::whole_parts(&parts, usize::from(inner.width));
        vec![Line::from(Span::styled(text, t.muted))]
    } else {
        warnings
            .iter()
            .map(|w| Line::from(Span::styled(format!("! {w}"), t.warn)))
            .collect()
    };
    if rows.iter().any(|r| over_mtu(r.row.row)) {
        lines.push(Line::from(Span::styled(SUPER_PACKETS, t.muted)));
    }
    let legend_h = lines.len().clamp(1, 4) as u16;
    let [table_area, legend] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(legend_h)]).areas(inner);
    let drawn = Table::new(cols, frozen, &app.ui.nics).draw(f, table_area, t, &rows);
    f.render_widget(Paragraph::new(lines), legend);
    drawn
}

/// Why a packet size can pass the MTU: the kernel counts a segmentation
/// offload's packet before the NIC (or GRO after it) cuts it into frames.
const SUPER_PACKETS: &str =
    "Avs over the MTU: GSO/TSO/GRO super-packets, counted before segmentation";

/// rAvs or wAvs larger than the interface's MTU.
fn over_mtu(r: &NicRow) -> bool {
    let Some(mtu) = r.info.as_ref().and_then(|i| i.mtu) else {
        return false;
    };
    [NicCol::RAvs, NicCol::WAvs].iter().any(|c| {
        r.rates
            .as_ref()
            .and_then(|x| x.get(*c))
            .is_some_and(|v| v > f64::from(mtu))
    })
}

/// "physical · 25000 Mb/s full · up · MTU 9000 · driver mlx5_core".
fn link_facts(r: &NicRow) -> Vec<(&'static str, String)> {
    let info = r.info.as_ref();
    let opt = |v: Option<String>| v.unwrap_or_else(|| format::UNKNOWN.to_string());
    vec![
        ("kind", r.kind().label().to_string()),
        ("state", r.link().operstate.label().to_string()),
        ("speed", format!("{} Mb/s", speed(r.link().speed_mbps))),
        ("duplex", r.link().duplex.label().to_string()),
        ("MTU", opt(info.and_then(|i| i.mtu).map(|m| m.to_string()))),
        ("driver", opt(info.and_then(|i| i.driver.clone()))),
        ("address", opt(info.and_then(|i| i.address.clone()))),
        ("master", opt(info.and_then(|i| i.master.clone()))),
    ]
}

pub fn draw_nic(f: &mut Frame, app: &App, area: Rect, name: &str) -> Drawn {
    let t = &app.theme;
    let Some(row) = app.nic_row(name) else {
        super::gone(
            f,
            area,
            name,
            "this interface is gone from /proc/net/dev",
            t,
        );
        return Drawn::default();
    };
    let facts = link_facts(row);
    let title = format!(
        " {name} · {} · {} {} · {} ",
        facts[0].1, facts[2].1, facts[3].1, facts[1].1
    );
    let inner = source_framed(f, area, title, (&app.host().nics, Nics::SOURCE), t);
    let bond = app.bond(name);
    let bond_h = bond.map_or(0, |b| {
        (b.slaves.len() + b.warnings.len() + 4).min(inner.height as usize / 2) as u16
    });
    let [top, bottom] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(bond_h)]).areas(inner);
    let [charts, now] = Layout::horizontal([Constraint::Min(0), Constraint::Length(28)]).areas(top);

    let n = app.host().nics.history.capacity();
    let values = |fig: NicFig| app.host().nics.series(name, nic_index(fig), n);
    let s = |label, fig, style| Series {
        label,
        values: values(fig),
        now: nic_figure(row.rates.as_ref(), fig),
        style,
    };
    let specs: [(&str, &str, Vec<Series>); 4] = [
        (
            "Throughput",
            "KB/s",
            vec![
                s("rKB/s", NicFig::Col(NicCol::RKbPerS), t.read),
                s("wKB/s", NicFig::Col(NicCol::WKbPerS), t.write),
            ],
        ),
        (
            "Packets",
            "/s",
            vec![
                s("rPk/s", NicFig::Col(NicCol::RPkPerS), t.read),
                s("wPk/s", NicFig::Col(NicCol::WPkPerS), t.write),
            ],
        ),
        (
            "Utilisation",
            "%",
            vec![s("%Util", NicFig::Col(NicCol::Util), t.accent)],
        ),
        (
            "Errors and drops",
            "/s",
            vec![
                s("errs/s", NicFig::Errors, t.crit),
                s("drops/s", NicFig::Drops, t.warn),
            ],
        ),
    ];
    let entity = (&*app.host().nics, name);
    super::history_charts(f, app, charts, entity, (Direction::Vertical, &specs));

    let lines = now_lines(app, row, &facts);
    let now_block = panel_block(" now ", t, false);
    f.render_widget(Paragraph::new(lines).block(now_block), now);

    bond.map_or_else(Drawn::default, |b| draw_bond(f, app, bottom, b))
}

/// The interface's figures now and its link, beside its charts.
fn now_lines(app: &App, row: &NicRow, facts: &[(&str, String)]) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines: Vec<Line> = NIC_COLS
        .iter()
        .map(|c| {
            let v = row.rates.as_ref().and_then(|r| r.get(c.col));
            Line::from(vec![
                Span::styled(format!("{:<9}", c.header), t.muted),
                Span::styled(
                    format!("{:>17}", format::fit(v, 17, 2)),
                    style_of(app, c.kind, v),
                ),
            ])
        })
        .collect();
    lines.push(Line::from(""));
    lines.extend(facts.iter().map(|(k, v)| {
        Line::from(vec![
            Span::styled(format!("{k:<9}"), t.muted),
            Span::styled(format!("{v:>17}"), t.base),
        ])
    }));
    if over_mtu(row) {
        lines.push(Line::from(""));
        lines.extend(
            [
                "Avs over the MTU: GSO,",
                "TSO or GRO super-packets,",
                "counted before they are",
                "cut into frames",
            ]
            .map(|l| Line::from(Span::styled(l, t.muted))),
        );
    }
    lines
}

/// The figures of a bond's slave table.
const SLAVE_FIGS: [NicCol; 7] = [
    NicCol::RKbPerS,
    NicCol::WKbPerS,
    NicCol::RPkPerS,
    NicCol::WPkPerS,
    NicCol::Util,
    NicCol::RErrPerS,
    NicCol::RDropPerS,
];

/// A slave's row in its bond's table, flagged when a warning names it.
struct SlaveItem<'a> {
    s: &'a SlaveRow,
    warned: bool,
    app: &'a App,
}

impl TableRow for SlaveItem<'_> {
    fn key(&self) -> &str {
        &self.s.slave.name
    }

    fn texts(&self) -> Vec<Cell<'_>> {
        let (s, t) = (self.s, &self.app.theme);
        let sl = &s.slave;
        let mii = sl.mii_status.map_or(format::UNKNOWN, |m| m.label());
        vec![
            Cell::from(Span::styled(
                sl.name.clone(),
                if self.warned { t.warn } else { t.base },
            )),
            Cell::from(Span::styled(if s.active { "active" } else { "" }, t.accent)),
            Cell::from(mii),
            Cell::from(speed(sl.speed_mbps)),
            Cell::from(sl.duplex.map_or(format::UNKNOWN, |d| d.label())),
            Cell::from(
                s.failures_since_start
                    .map_or(format::UNKNOWN.to_string(), |n| n.to_string()),
            ),
            Cell::from(
                sl.perm_hw_addr
                    .clone()
                    .unwrap_or_else(|| format::UNKNOWN.to_string()),
            ),
        ]
    }

    fn figure(&self, j: usize) -> (Option<f64>, Style) {
        let c = SLAVE_FIGS[j];
        let v = self.s.rates.as_ref().and_then(|r| r.get(c));
        (v, style_of(self.app, c.def().kind, v))
    }
}

/// A bond's mode, primary, active slave and warnings, over its slaves.
fn draw_bond(f: &mut Frame, app: &App, area: Rect, b: &BondRow) -> Drawn {
    let t = &app.theme;
    let i = &b.info;
    let none = || "none".to_string();
    let title = format!(
        " bond {} · {} · primary {} · active {} · MII {} ",
        b.name(),
        i.mode
            .map_or(i.mode_text.clone().unwrap_or_else(none), |m| m
                .label()
                .to_string()),
        i.primary.clone().unwrap_or_else(none),
        i.active_slave.clone().unwrap_or_else(none),
        i.mii_status.map_or(format::UNKNOWN, |m| m.label()),
    );
    let inner = super::framed(f, area, title, t, false);
    let [warn_area, table_area] = Layout::vertical([
        Constraint::Length(b.warnings.len() as u16),
        Constraint::Min(0),
    ])
    .areas(inner);
    let lines: Vec<Line> = b
        .warnings
        .iter()
        .map(|w| Line::from(Span::styled(format!("! {w}"), t.warn)))
        .collect();
    f.render_widget(Paragraph::new(lines), warn_area);

    let sw = table::name_width(b.slaves.iter().map(|s| s.slave.name.as_str()), "Slave");
    let mut cols = vec![
        Col::text("Slave", sw),
        Col::text("Active", 6),
        Col::text("MII", 4),
        Col::text("Mb/s", 6),
        Col::text("Duplex", 7),
        Col::text("Fails+", 6),
        Col::text("Perm HW addr", 17),
    ];
    cols.extend(SLAVE_FIGS.iter().map(|c| Col::figure(c.def().header)));
    let items: Vec<SlaveItem> = b
        .slaves
        .iter()
        .map(|s| SlaveItem {
            s,
            warned: b.warnings.iter().any(|w| w.slave() == Some(&s.slave.name)),
            app,
        })
        .collect();
    // as before, a bond's slaves scroll only sideways: their rows start
    // from the top each frame
    let list = ListUi {
        offset: 0,
        ..app.ui.slaves.clone()
    };
    // only the interfaces' tables move a page at a time
    Drawn {
        page_rows: None,
        ..Table::new(cols, 1, &list).draw(f, table_area, t, &items)
    }
}

/// The NIC panel and one interface's view.
pub(super) struct NicsScreen;

impl super::LayerScreen for NicsScreen {
    fn id(&self) -> LayerId {
        LayerId::Nics
    }
    fn draw(&self, f: &mut Frame, app: &App, area: Rect, view: &View) -> Drawn {
        match view {
            // one of a node's interfaces while the node is gone or silent
            View::Nic(name) if super::node_detail_not_current(f, app, area, name) => {
                Drawn::default()
            }
            View::Nic(name) => draw_nic(f, app, area, name),
            _ => draw(f, app, area),
        }
    }
    fn crumb(&self, _: &App, view: &View) -> String {
        match view {
            View::Nic(name) => name.clone(),
            _ => String::new(),
        }
    }
    fn footer(&self, app: &App, view: &View) -> Option<&'static [(&'static str, &'static str)]> {
        match view {
            View::Nic(name) if app.bond(name).is_some() => {
                Some(&[("Enter", "slave"), ("Esc", "back"), ("p", "pause")])
            }
            View::Nic(_) => Some(&[("Esc", "back"), ("p", "pause"), ("c", "theme")]),
            _ => None,
        }
    }
}

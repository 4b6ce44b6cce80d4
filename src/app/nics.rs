//! The NIC layer of the app: interfaces with nicstat's figures, the wire
//! total and the bonds.

use super::cluster::{Listed, Nics, kept_in};
use super::list::ListUi;
use super::state::{App, UiState, View};
use super::views::LayerView;
use crate::layers::LayerId;
use crate::layers::host::HostLayers;
use crate::layers::layer::Layer;
use crate::layers::nics::bond::BondRow;
use crate::layers::nics::state::{NIC_TABLE, WIRE_ENTITY, nic_figure, nic_listed};
use crate::layers::nics::tick::{NicRow, NicTick};

impl App {
    /// The interfaces shown, filtered and sorted as the user asked.
    pub fn nic_rows(&self) -> Vec<&NicRow> {
        self.rows_in::<Nics>(self.host())
    }

    pub fn nic_row(&self, name: &str) -> Option<&NicRow> {
        self.host()
            .nics
            .tick()?
            .rows
            .iter()
            .find(|r| r.name == name)
    }

    pub fn bond(&self, name: &str) -> Option<&BondRow> {
        self.host().bond(name)
    }

    /// The slaves of a bond, in the bonding file's order.
    pub fn bond_slave_names(&self, name: &str) -> Vec<String> {
        self.bond(name).map_or(Vec::new(), |b| {
            b.slaves.iter().map(|s| s.slave.name.clone()).collect()
        })
    }

    /// Index of the selected slave among a bond's; the first when the
    /// selected one is gone.
    pub fn slave_index(&self, slaves: &[String]) -> usize {
        self.ui
            .slaves
            .selected
            .as_ref()
            .and_then(|s| slaves.iter().position(|p| p == s))
            .unwrap_or(0)
    }
}

impl HostLayers {
    /// The bond `name` of this host, if it is one.
    pub fn bond(&self, name: &str) -> Option<&BondRow> {
        self.nics.tick()?.bonds().iter().find(|b| b.name() == name)
    }
}

/// The NIC table: the interfaces `a` lets through.
impl Listed for Nics {
    type Row = NicRow;
    kept_in!(nics, nics: NicTick);
    fn rows<'a>(app: &App, tick: &'a NicTick) -> Vec<&'a NicRow> {
        let all = app.ui.show_all_nics;
        tick.rows.iter().filter(|r| nic_listed(r, all)).collect()
    }
    fn matches(r: &NicRow, filter: &str) -> bool {
        r.name.to_lowercase().contains(filter)
    }
    fn name(r: &NicRow) -> &str {
        &r.name
    }
    fn key(r: &NicRow) -> &str {
        &r.name
    }
    fn value(r: &NicRow, col: usize) -> Option<f64> {
        nic_figure(r.rates.as_ref(), *NIC_TABLE.get(col)?)
    }
}

/// The NIC panel and one interface's view ([`View::Nic`]): a bond's
/// slaves.
pub(super) struct NicsView;

impl LayerView for NicsView {
    fn id(&self) -> LayerId {
        LayerId::Nics
    }
    fn owns(&self, view: &View) -> bool {
        matches!(view, View::Nic(_))
    }
    fn sorted<'a>(&self, app: &'a mut App) -> Option<(&'a mut ListUi, usize)> {
        match app.view() {
            View::Panel(_) => Some((&mut app.ui.nics, NIC_TABLE.len())),
            _ => None,
        }
    }
    fn scrolled<'a>(&self, app: &'a mut App) -> Option<&'a mut ListUi> {
        match app.view() {
            View::Panel(_) => Some(&mut app.ui.nics),
            _ => Some(&mut app.ui.slaves),
        }
    }
    fn step(&self, app: &mut App, delta: isize) {
        match app.view().clone() {
            View::Nic(name) => {
                let slaves = app.bond_slave_names(&name);
                app.ui.slaves.step(&slaves, delta);
            }
            _ => app.step::<Nics>(delta),
        }
    }
    fn enter(&self, app: &mut App) {
        match app.view().clone() {
            View::Nic(name) => {
                let slaves = app.bond_slave_names(&name);
                if let Some(s) = slaves.get(app.slave_index(&slaves)) {
                    let child = s.clone();
                    app.ui.slaves.selected = None;
                    app.ui.stack.push(View::Nic(child));
                }
            }
            _ => {
                if let Some(name) = app.enter::<Nics>() {
                    app.ui.slaves.selected = None;
                    app.ui.stack.push(View::Nic(name));
                }
            }
        }
    }
    fn popped(&self, app: &mut App, view: View, top: bool) {
        if let View::Nic(name) = view {
            if top {
                app.ui.slaves.selected = None;
                app.ui.nics.selected = Some(name);
            } else {
                app.ui.slaves.selected = Some(name);
            }
        }
    }
    fn carry(&self, app: &mut App, from: Option<usize>, to: Option<usize>) -> bool {
        app.carry::<Nics>(from, to);
        true
    }
    fn open(&self, ui: &mut UiState) {
        ui.nics = ListUi::sorted_by(0);
    }
    fn toggle_all(&self, app: &mut App) -> bool {
        app.ui.show_all_nics = !app.ui.show_all_nics;
        true
    }
    fn keep(&self, app: &mut App) {
        let mut nics = vec![WIRE_ENTITY.to_string()];
        if let Some(View::Nic(name)) = app.ui.stack.last() {
            let name = name.clone();
            nics.extend(app.bond_slave_names(&name));
            nics.push(name);
        }
        app.host_mut().nics.keep(nics.iter().map(String::as_str));
    }
}

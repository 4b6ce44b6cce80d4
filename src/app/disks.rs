//! The disks layer of the app: iostat's devices, a device's parts, and
//! the view of its panel.

use super::cluster::{Disks, Listed, kept_in};
use super::list::{self, ListUi};
use super::state::{App, UiState, View};
use super::views::LayerView;
use crate::layers::LayerId;
use crate::layers::col::Units;
use crate::layers::disks::model::DISK_COLS;
use crate::layers::disks::model::DiskCol;
use crate::layers::disks::state::TOTAL_ENTITY;
use crate::layers::disks::tick::{DiskRow, DiskTick};
use crate::layers::host::HostLayers;
use crate::layers::layer::Layer;

/// The parts of a device shown under its charts: partitions, or the
/// devices under a dm/md device.
pub fn parts_in<'a>(tick: Option<&'a DiskTick>, name: &str) -> Vec<&'a DiskRow> {
    let Some(tick) = tick else {
        return Vec::new();
    };
    let Some(info) = tick
        .rows
        .iter()
        .find(|r| r.name == name)
        .and_then(|r| r.info.as_ref())
    else {
        return Vec::new();
    };
    info.partitions
        .iter()
        .chain(info.slaves.iter())
        .filter_map(|p| tick.rows.iter().find(|r| &r.name == p))
        .collect()
}

/// The disks table's sort label: "Device" or the column's header.
pub fn disk_sort_label(sort: Option<usize>, units: Units) -> &'static str {
    sort.and_then(|i| DISK_COLS.get(i))
        .map_or("Device", |c| units.header(c.col))
}

impl App {
    /// The disk figures on screen: frozen while paused, the newest otherwise.
    pub fn view_tick(&self) -> Option<&DiskTick> {
        self.host().disks.tick()
    }

    /// Rows of the disks panel: filtered and sorted as the user asked.
    pub fn disk_rows(&self) -> Vec<&DiskRow> {
        self.rows_in::<Disks>(self.host())
    }

    /// Index of the selected part among `parts`; the first when the
    /// selected one is gone.
    pub fn part_index(&self, parts: &[&DiskRow]) -> usize {
        list::index_of(
            self.ui.part_selected.as_deref(),
            parts.iter().map(|p| p.name.as_str()),
        )
    }

    /// The parts of a host device shown under its charts.
    pub fn parts_of(&self, name: &str) -> Vec<&DiskRow> {
        parts_in(self.view_tick(), name)
    }

    /// The parts of the device the current view shows, host's or cell's.
    pub fn parts_here(&self) -> Vec<&DiskRow> {
        match self.view() {
            View::Disk(name) => self.parts_of(name),
            View::CellDisk(i, name) => parts_in(self.cell_disk_tick(*i), name),
            _ => Vec::new(),
        }
    }

    /// Moves the selection among the parts of the device shown.
    pub(super) fn step_part(&mut self, delta: isize) {
        let names: Vec<String> = self.parts_here().iter().map(|p| p.name.clone()).collect();
        list::step_selected(&mut self.ui.part_selected, &names, delta);
    }

    /// Enter on a device's parts: the selected part's own view, made by
    /// `view` (a host's device or a cell's).
    pub(super) fn enter_part(&mut self, view: impl FnOnce(String) -> View) {
        let parts = self.parts_here();
        if let Some(p) = parts.get(self.part_index(&parts)) {
            let child = p.name.clone();
            self.ui.part_selected = None;
            self.ui.stack.push(view(child));
        }
    }
}

/// The disks table: iostat's devices as `P` and `A` let them through.
impl Listed for Disks {
    type Row = DiskRow;
    kept_in!(disks, disks: DiskTick);
    fn rows<'a>(app: &App, tick: &'a DiskTick) -> Vec<&'a DiskRow> {
        let (parts, all) = (app.ui.show_partitions, app.ui.show_all_devices);
        tick.rows.iter().filter(|r| r.shown(parts, all)).collect()
    }
    fn matches(r: &DiskRow, filter: &str) -> bool {
        r.name.to_lowercase().contains(filter) || r.display_name().to_lowercase().contains(filter)
    }
    fn name(r: &DiskRow) -> &str {
        r.display_name()
    }
    fn key(r: &DiskRow) -> &str {
        &r.name
    }
    fn value(r: &DiskRow, col: usize) -> Option<f64> {
        r.rates?.get(DISK_COLS.get(col)?.col)
    }
}

/// The disks panel and one device's view ([`View::Disk`]).
pub(super) struct DisksView;

impl LayerView for DisksView {
    fn id(&self) -> LayerId {
        LayerId::Disks
    }
    fn owns(&self, view: &View) -> bool {
        matches!(view, View::Disk(_))
    }
    fn sorted<'a>(&self, app: &'a mut App) -> Option<(&'a mut ListUi, usize)> {
        match app.view() {
            View::Panel(_) => Some((&mut app.ui.disks, DISK_COLS.len())),
            _ => None,
        }
    }
    fn step(&self, app: &mut App, delta: isize) {
        match app.view() {
            View::Panel(_) => app.step::<Disks>(delta),
            _ => app.step_part(delta),
        }
    }
    fn enter(&self, app: &mut App) {
        match app.view() {
            View::Panel(_) => {
                if let Some(name) = app.enter::<Disks>() {
                    app.ui.part_selected = None;
                    app.ui.stack.push(View::Disk(name));
                }
            }
            _ => app.enter_part(View::Disk),
        }
    }
    fn popped(&self, app: &mut App, view: View, top: bool) {
        if let View::Disk(name) = view {
            app.ui.part_selected = None;
            if top {
                app.ui.disks.selected = Some(name);
            }
        }
    }
    fn carry(&self, app: &mut App, from: Option<usize>, to: Option<usize>) -> bool {
        app.carry::<Disks>(from, to);
        true
    }
    fn open(&self, ui: &mut UiState) {
        ui.disks = ListUi::sorted_by(DiskCol::Util as usize);
    }
    fn keep(&self, app: &mut App) {
        let mut names = vec![TOTAL_ENTITY.to_string()];
        if let Some(View::Disk(name)) = app.ui.stack.last() {
            names.push(name.clone());
            let info = app
                .host()
                .disks
                .tick()
                .and_then(|t| t.rows.iter().find(|r| &r.name == name))
                .and_then(|r| r.info.as_ref());
            if let Some(info) = info {
                names.extend(info.partitions.iter().chain(&info.slaves).cloned());
            }
        }
        app.host_mut().disks.keep(names.iter().map(String::as_str));
    }
}

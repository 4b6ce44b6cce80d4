//! Each layer's panel as the app drives it: the table the sort and scroll
//! keys act on, moving and entering, going back, carrying the selection
//! between hosts and what a pause keeps. A layer's [`LayerView`] lives in
//! its own file in app/ and handles its panel and its drill-down views;
//! the app finds it by [`LayerId`] in [`VIEWS`], not by a match.

use super::list::ListUi;
use super::state::{App, Panel, UiState, View};
use crate::layers::{LayerId, TABS};

/// What the app does on a layer's panel and its drill-down views. Each
/// method acts on the app's current view, which is the layer's.
pub(crate) trait LayerView: Sync {
    fn id(&self) -> LayerId;
    /// `view` is one of the layer's drill-down views (its panel is
    /// `View::Panel(Panel::Layer(id))`).
    fn owns(&self, _view: &View) -> bool {
        false
    }
    /// The table the sort keys act on, and its number of figure columns.
    fn sorted<'a>(&self, _app: &'a mut App) -> Option<(&'a mut ListUi, usize)> {
        None
    }
    /// The table h/l scroll sideways.
    fn scrolled<'a>(&self, app: &'a mut App) -> Option<&'a mut ListUi> {
        self.sorted(app).map(|(list, _)| list)
    }
    /// Moves the selection by `delta` rows.
    fn step(&self, _app: &mut App, _delta: isize) {}
    /// Enter: opens the selected row.
    fn enter(&self, _app: &mut App) {}
    /// Esc climbs a level of the view's own before the stack's; true when
    /// it did.
    fn back(&self, _app: &mut App) -> bool {
        false
    }
    /// `view`, one of the layer's, was popped off the stack: the entity
    /// it showed stays selected in the table under it (`top`: the
    /// panel's own).
    fn popped(&self, _app: &mut App, _view: View, _top: bool) {}
    /// Carries the selection of the panel's table from one host's table
    /// to the next one's; false for a panel that has no cluster table.
    fn carry(&self, _app: &mut App, _from: Option<usize>, _to: Option<usize>) -> bool {
        false
    }
    /// While paused: the series the current view draws are kept out of
    /// the live history, so they stop eroding.
    fn keep(&self, _app: &mut App) {}
    /// `/` on `view`, one of the layer's drill-downs, filters its own
    /// rows rather than going back to the panel's table.
    fn filters_in_place(&self, _view: &View) -> bool {
        false
    }
    /// The layer's tables as they first open (their sort).
    fn open(&self, _ui: &mut UiState) {}
    /// `a` on the layer's panel, where it is the layer's own: true when it
    /// was (else it shows every device).
    fn toggle_all(&self, _app: &mut App) -> bool {
        false
    }
}

/// The view of each layer that has a panel ([`crate::layers::TABS`]).
const VIEWS: [&dyn LayerView; TABS.len()] = [
    &super::disks::DisksView,
    &super::nfs::NfsView,
    &super::cache::CacheView,
    &super::nics::NicsView,
    &super::cells::CellsView,
    &super::dnfs::DnfsView,
    &super::procs::ProcsView,
];

/// The view of layer `id`; `None` for a layer without a panel.
pub(crate) fn of(id: LayerId) -> Option<&'static dyn LayerView> {
    all().find(|v| v.id() == id)
}

/// Every layer's view.
pub(crate) fn all() -> impl Iterator<Item = &'static dyn LayerView> {
    VIEWS.iter().copied()
}

impl View {
    /// The layer whose panel or drill-down this is; `None`: the overview.
    pub fn layer(&self) -> Option<LayerId> {
        match self {
            View::Panel(p) => p.layer(),
            view => all().find(|v| v.owns(view)).map(|v| v.id()),
        }
    }
}

/// The tabs by the names they had as variants, for code that means one
/// tab (`goto(Panel::Nics)`).
#[allow(non_upper_case_globals)]
impl Panel {
    pub const Disks: Panel = Panel::Layer(LayerId::Disks);
    pub const Cache: Panel = Panel::Layer(LayerId::Cache);
    pub const Nfs: Panel = Panel::Layer(LayerId::Nfs);
    pub const Nics: Panel = Panel::Layer(LayerId::Nics);
    pub const Cells: Panel = Panel::Layer(LayerId::Cells);
    pub const Databases: Panel = Panel::Layer(LayerId::Dnfs);
    pub const Procs: Panel = Panel::Layer(LayerId::Procs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tab_has_one_view() {
        for id in TABS {
            assert_eq!(all().filter(|v| v.id() == id).count(), 1, "{id:?}");
        }
    }
}

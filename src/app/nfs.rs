//! The kernel NFS client layer of the app: mounts as nfsiostat sees them.

use super::cluster::{Listed, Nfs, kept_in};
use super::list::ListUi;
use super::state::{App, UiState, View};
use super::views::LayerView;
use crate::layers::LayerId;
use crate::layers::host::HostLayers;
use crate::layers::layer::Layer;
use crate::layers::nfs::model::NFS_OP_COLS;
use crate::layers::nfs::state::{NFS_TABLE, nfs_figure};
use crate::layers::nfs::tick::{NfsOpRow, NfsRow, NfsTick};

impl App {
    /// The mounts shown, filtered and sorted as the user asked.
    pub fn nfs_rows(&self) -> Vec<&NfsRow> {
        self.rows_in::<Nfs>(self.host())
    }

    pub fn nfs_row(&self, key: &str) -> Option<&NfsRow> {
        self.host().nfs.tick()?.rows.iter().find(|r| r.key == key)
    }

    /// A mount's operations as its detail lists them, sorted as asked.
    pub fn nfs_ops(&self, key: &str) -> Vec<&NfsOpRow> {
        let Some(row) = self.nfs_row(key) else {
            return Vec::new();
        };
        let mut ops: Vec<&NfsOpRow> = row.ops.iter().collect();
        self.ui.nfs_ops.sort(
            &mut ops,
            |o| o.name.as_str(),
            |o, c| o.rates.as_ref()?.get(NFS_OP_COLS.get(c)?.col),
        );
        ops
    }

    pub fn nfs_op_names(&self, key: &str) -> Vec<String> {
        self.nfs_ops(key).iter().map(|o| o.name.clone()).collect()
    }
}

/// The kernel NFS table: the mounts.
impl Listed for Nfs {
    type Row = NfsRow;
    kept_in!(nfs, nfs: NfsTick);
    fn rows<'a>(_: &App, tick: &'a NfsTick) -> Vec<&'a NfsRow> {
        tick.rows.iter().collect()
    }
    fn matches(r: &NfsRow, filter: &str) -> bool {
        r.export.to_lowercase().contains(filter)
            || r.mount_points
                .iter()
                .any(|m| m.to_lowercase().contains(filter))
    }
    fn name(r: &NfsRow) -> &str {
        &r.export
    }
    fn key(r: &NfsRow) -> &str {
        &r.key
    }
    fn value(r: &NfsRow, col: usize) -> Option<f64> {
        nfs_figure(r, NFS_TABLE.get(col)?.0)
    }
}

/// The NFS panel and one mount's view ([`View::Nfs`]): its operations.
pub(super) struct NfsView;

impl LayerView for NfsView {
    fn id(&self) -> LayerId {
        LayerId::Nfs
    }
    fn owns(&self, view: &View) -> bool {
        matches!(view, View::Nfs(_))
    }
    fn sorted<'a>(&self, app: &'a mut App) -> Option<(&'a mut ListUi, usize)> {
        match app.view() {
            View::Panel(_) => Some((&mut app.ui.nfs, NFS_TABLE.len())),
            _ => Some((&mut app.ui.nfs_ops, NFS_OP_COLS.len())),
        }
    }
    fn step(&self, app: &mut App, delta: isize) {
        match app.view().clone() {
            View::Nfs(key) => {
                let names = app.nfs_op_names(&key);
                app.ui.nfs_ops.step(&names, delta);
            }
            _ => app.step::<Nfs>(delta),
        }
    }
    fn enter(&self, app: &mut App) {
        // in the cluster's table, a row opens on its own node
        if let View::Panel(_) = app.view()
            && let Some(key) = app.enter::<Nfs>()
        {
            app.ui.nfs_ops.selected = None;
            app.ui.stack.push(View::Nfs(key));
        }
    }
    fn popped(&self, app: &mut App, view: View, _top: bool) {
        if let View::Nfs(key) = view {
            app.ui.nfs.selected = Some(key);
        }
    }
    fn carry(&self, app: &mut App, from: Option<usize>, to: Option<usize>) -> bool {
        app.carry::<Nfs>(from, to);
        true
    }
    fn open(&self, ui: &mut UiState) {
        ui.nfs = ListUi::sorted_by(0);
    }
    fn keep(&self, app: &mut App) {
        if let Some(View::Nfs(key)) = app.ui.stack.last() {
            let key = key.clone();
            app.host_mut().nfs.keep([key.as_str()]);
        }
    }
}

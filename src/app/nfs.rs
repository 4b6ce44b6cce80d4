//! The kernel NFS client layer of the app: mounts as nfsiostat sees them.

use super::state::App;
use crate::layers::nfs::model::NFS_OP_COLS;
use crate::layers::nfs::tick::{NfsOpRow, NfsRow};

impl App {
    /// The mounts shown, filtered and sorted as the user asked.
    pub fn nfs_rows(&self) -> Vec<&NfsRow> {
        self.rows_in::<super::cluster::Nfs>(self.host())
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

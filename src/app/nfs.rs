//! The kernel NFS client layer of the app: mounts as nfsiostat sees them.

use super::host::HostLayers;
use super::state::App;
use crate::core::error::SampleError;
use crate::layers::nfs::model::{NFS_OP_COLS, NfsMountCol, NfsOpCol};
use crate::layers::nfs::source::NfsSample;
use crate::layers::nfs::tick::{NfsOpRow, NfsRow};

/// A figure of the NFS table: a mount's own, or one of an operation's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NfsFig {
    Mount(NfsMountCol),
    Op(&'static str, NfsOpCol),
}

/// The NFS panel's figure columns, in order: what a user of nfsiostat
/// reads first, for both directions.
pub const NFS_TABLE: [(NfsFig, &str); 10] = [
    (NfsFig::Mount(NfsMountCol::OpsPerS), "ops/s"),
    (NfsFig::Mount(NfsMountCol::RpcBklog), "bklog"),
    (NfsFig::Op("READ", NfsOpCol::OpsPerS), "rd ops/s"),
    (NfsFig::Op("READ", NfsOpCol::KBPerS), "rd kB/s"),
    (NfsFig::Op("READ", NfsOpCol::AvgRttMs), "rd RTT"),
    (NfsFig::Op("READ", NfsOpCol::AvgExeMs), "rd exe"),
    (NfsFig::Op("WRITE", NfsOpCol::OpsPerS), "wr ops/s"),
    (NfsFig::Op("WRITE", NfsOpCol::KBPerS), "wr kB/s"),
    (NfsFig::Op("WRITE", NfsOpCol::AvgRttMs), "wr RTT"),
    (NfsFig::Op("WRITE", NfsOpCol::AvgExeMs), "wr exe"),
];

/// A mount's history holds the panel's figures, in its order.
pub const NFS_HISTORY: usize = NFS_TABLE.len();

pub fn op<'a>(row: &'a NfsRow, name: &str) -> Option<&'a NfsOpRow> {
    row.ops.iter().find(|o| o.name == name)
}

pub fn nfs_figure(row: &NfsRow, fig: NfsFig) -> Option<f64> {
    match fig {
        NfsFig::Mount(c) => row.rates.as_ref()?.get(c),
        NfsFig::Op(name, c) => op(row, name)?.rates.as_ref()?.get(c),
    }
}

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

impl HostLayers {
    /// Takes a sample of /proc/self/mountstats.
    pub fn ingest_nfs(&mut self, sample: impl std::borrow::Borrow<NfsSample>) {
        let sample = sample.borrow();
        let tick = self.nfs_baseline.tick(sample);
        let spans = tick.itv_cs.is_some();
        self.nfs.take(spans, tick, &sample.rejected, |layer, tick| {
            let rows: Vec<(&str, [Option<f32>; NFS_HISTORY])> = tick
                .rows
                .iter()
                .map(|r| {
                    let v =
                        std::array::from_fn(|i| nfs_figure(r, NFS_TABLE[i].0).map(|x| x as f32));
                    (r.key.as_str(), v)
                })
                .collect();
            layer
                .history
                .push(tick.wall_ms, rows.iter().map(|(n, v)| (*n, &v[..])));
        });
    }
    pub fn nfs_failed(&mut self, error: SampleError) {
        self.nfs.failed(error);
    }
}

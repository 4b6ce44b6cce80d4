//! What strata knows of one host's own layers (block devices, kernel NFS,
//! page cache, NICs): the local machine's, and each database node's from
//! its sampler's frames. The same baselines and histories for every host,
//! so a node's panel is the panel the same counters give locally.

use super::cache::CACHE_HISTORY;
use super::input::NodeInput;
use super::layer::Layer;
use super::nfs::NFS_HISTORY;
use super::nics::NIC_HISTORY;
use super::state::{App, DISK_HISTORY, push_disk_history};
use crate::layers::cache::model::{CacheBaseline, CacheTick};
use crate::layers::disks::source::DiskSample;
use crate::layers::disks::tick::{Baseline, DiskTick};
use crate::layers::nfs::tick::{NfsBaseline, NfsTick};
use crate::layers::nics::tick::{NicBaseline, NicTick};
use crate::remote::HostStatus;
use crate::remote::target::NodeTarget;
use std::time::Duration;

/// One host's layers; histories hold `capacity` samples.
#[derive(Debug)]
pub struct HostLayers {
    /// Block devices; history holds [`DISK_HISTORY`] per device.
    pub disks: Layer<DiskTick>,
    pub(super) disk_baseline: Baseline,
    /// Kernel NFS mounts; history holds the NFS table's figures per mount.
    pub nfs: Layer<NfsTick>,
    pub(super) nfs_baseline: NfsBaseline,
    /// The page cache; history holds the host's figures and each watched
    /// file's.
    pub cache: Layer<CacheTick>,
    pub(super) cache_baseline: CacheBaseline,
    /// Interfaces and bonds; history holds the NIC table's figures per
    /// interface and the wire total.
    pub nics: Layer<NicTick>,
    pub(super) nic_baseline: NicBaseline,
    /// The host's IPv4 routes as the NIC source last read them.
    pub routes: Vec<crate::parse::route::Route>,
}

impl HostLayers {
    pub fn new(capacity: usize) -> Self {
        HostLayers {
            disks: Layer::new(capacity, DISK_HISTORY.len()),
            disk_baseline: Baseline::default(),
            nfs: Layer::new(capacity, NFS_HISTORY),
            nfs_baseline: NfsBaseline::default(),
            cache: Layer::new(capacity, CACHE_HISTORY),
            cache_baseline: CacheBaseline::default(),
            nics: Layer::new(capacity, NIC_HISTORY),
            nic_baseline: NicBaseline::default(),
            routes: Vec::new(),
        }
    }

    /// Takes a new sample of the disk source: figures over the interval
    /// since the previous one go to the store, even while paused.
    pub fn ingest_disks(&mut self, sample: impl std::borrow::Borrow<DiskSample>) {
        let sample = sample.borrow();
        let tick = self.disk_baseline.tick(sample);
        let rejected = sample.rejected.iter().map(ToString::to_string).collect();
        if tick.itv_cs.is_none() {
            self.disks.ingest(None, rejected);
            return;
        }
        push_disk_history(&mut self.disks, &tick, &[]);
        self.disks.ingest(Some(tick), rejected);
    }

    pub fn disks_failed(&mut self, error: String) {
        self.disks.failed(error);
    }

    /// The host's IOPS (reads and writes a second over its whole disks)
    /// of its last `n` samples, oldest first; NaN where either is unknown.
    pub fn iops_series(&self, n: usize) -> Vec<f32> {
        use super::state::{TOTAL_ENTITY, history_index};
        use crate::layers::disks::model::DiskCol;
        let series =
            |c| history_index(c).map_or_else(Vec::new, |h| self.disks.series(TOTAL_ENTITY, h, n));
        let (r, w) = (series(DiskCol::RPerS), series(DiskCol::WPerS));
        r.iter().zip(&w).map(|(r, w)| r + w).collect()
    }

    pub(super) fn freeze(&mut self) {
        self.disks.freeze();
        self.nfs.freeze();
        self.cache.freeze();
        self.nics.freeze();
    }

    pub(super) fn thaw(&mut self) {
        self.disks.thaw();
        self.nfs.thaw();
        self.cache.thaw();
        self.nics.thaw();
    }
}

/// A database node: how it is reached, how its connection stands, and
/// its layers.
#[derive(Debug)]
pub struct NodeState {
    pub target: NodeTarget,
    pub status: HostStatus,
    /// SSH round trip of the last keepalive.
    pub rtt: Option<Duration>,
    /// When its last sample arrived (ms since the epoch, local clock).
    pub last_sample_ms: Option<i64>,
    /// The last thing it said on stderr, or a line its sampler sent that
    /// was not understood.
    pub message: Option<String>,
    /// The name it reports (/proc/sys/kernel/hostname), once its facts
    /// came.
    pub hostname: Option<String>,
    pub layers: HostLayers,
}

impl NodeState {
    pub fn new(target: NodeTarget, capacity: usize) -> Self {
        let status = match target {
            // The local host needs no connection.
            NodeTarget::Local { .. } => HostStatus::Live,
            NodeTarget::Ssh(_) => HostStatus::Connecting,
        };
        NodeState {
            target,
            status,
            rtt: None,
            last_sample_ms: None,
            message: None,
            hostname: None,
            layers: HostLayers::new(capacity),
        }
    }

    /// Live, and sampled within two intervals at `now_ms`.
    pub fn is_current(&self, now_ms: i64, interval_ms: i64) -> bool {
        self.status == HostStatus::Live
            && self
                .last_sample_ms
                .is_some_and(|at| now_ms - at <= 2 * interval_ms)
    }
}

impl App {
    /// A node's layer sample into its layers, or what it said.
    pub fn ingest_node(&mut self, node: usize, input: &NodeInput) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        let l = &mut n.layers;
        let sampled_at = match input {
            NodeInput::Disks(Ok(s)) => {
                l.ingest_disks(s);
                Some(s.wall_ms)
            }
            NodeInput::Nfs(Ok(s)) => {
                l.ingest_nfs(s);
                Some(s.wall_ms)
            }
            NodeInput::Cache(Ok(s)) => {
                l.ingest_cache(s);
                Some(s.wall_ms)
            }
            NodeInput::Nics(Ok(s)) => {
                l.ingest_nics(s);
                Some(s.wall_ms)
            }
            NodeInput::Disks(Err(e)) => return l.disks_failed(e.clone()),
            NodeInput::Nfs(Err(e)) => return l.nfs_failed(e.clone()),
            NodeInput::Cache(Err(e)) => return l.cache_failed(e.clone()),
            NodeInput::Nics(Err(e)) => return l.nics_failed(e.clone()),
            NodeInput::Stderr(t) if t.trim().is_empty() => return,
            NodeInput::Stderr(t) => return n.message = Some(t.clone()),
        };
        n.last_sample_ms = n.last_sample_ms.max(sampled_at);
    }
}

/// How a node's row stands on the cluster overview.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeShown {
    /// Sampled within two intervals: its figures are current.
    Live,
    /// Its samples stopped this many seconds ago.
    Stale(u64),
    /// Not connected; the text says why, in a word or two.
    Down(String),
}

/// One node's line of the cluster overview (or the cluster's): its block
/// devices' totals, its NICs, its page cache and its NFS client.
#[derive(Debug, Clone)]
pub struct ClusterRow {
    pub label: String,
    pub shown: NodeShown,
    pub r_s: Option<f64>,
    pub w_s: Option<f64>,
    /// Read plus written, MB/s.
    pub mb_s: Option<f64>,
    pub r_await: Option<f64>,
    pub w_await: Option<f64>,
    /// The busiest device and its %util (on the cluster row, `dev@node`).
    pub busiest: Option<(String, f64)>,
    pub nic_in_mb: Option<f64>,
    pub nic_out_mb: Option<f64>,
    /// Bond warnings now (a slave down, a link at a lower speed, ...).
    pub bond_warnings: usize,
    pub dirty_mb: Option<f64>,
    pub writeback_mb: Option<f64>,
    /// Kernel NFS client operations per second, over all its mounts.
    pub nfs_ops: Option<f64>,
}

impl ClusterRow {
    /// A node's figures from its layers' newest ticks; all unknown unless
    /// it is live.
    fn of(label: &str, shown: NodeShown, l: &HostLayers) -> ClusterRow {
        use crate::layers::cache::model::CacheCol;
        use crate::layers::disks::model::DiskCol;
        use crate::layers::nfs::model::NfsMountCol;
        use crate::layers::nics::model::NicCol;
        let live = shown == NodeShown::Live;
        // A layer that fails keeps its last tick for the screen; its
        // figures are not current.
        let disks = l.disks.tick().filter(|_| live && l.disks.error.is_none());
        let d = |c| disks.and_then(|t| t.total.as_ref()).and_then(|r| r.get(c));
        let nics = l.nics.tick().filter(|_| live && l.nics.error.is_none());
        let n = |c| {
            nics.and_then(|t| t.total.as_ref())
                .and_then(|r| r.get(c))
                .map(|kb| kb / 1024.0)
        };
        let cache = l.cache.tick().filter(|_| live && l.cache.error.is_none());
        let c = |col| cache.and_then(|t| t.figures.get(col)).map(|kb| kb / 1024.0);
        let nfs = l.nfs.tick().filter(|_| live && l.nfs.error.is_none());
        let nfs_ops = nfs.and_then(|t| {
            t.rows
                .iter()
                .map(|r| r.rates.as_ref().and_then(|x| x.get(NfsMountCol::OpsPerS)))
                .sum::<Option<f64>>()
        });
        ClusterRow {
            label: label.to_string(),
            shown,
            r_s: d(DiskCol::RPerS),
            w_s: d(DiskCol::WPerS),
            mb_s: d(DiskCol::RkBPerS)
                .zip(d(DiskCol::WkBPerS))
                .map(|(r, w)| (r + w) / 1024.0),
            r_await: d(DiskCol::RAwait),
            w_await: d(DiskCol::WAwait),
            busiest: disks.and_then(|t| t.busiest.clone()),
            nic_in_mb: n(NicCol::RKbPerS),
            nic_out_mb: n(NicCol::WKbPerS),
            bond_warnings: nics.map_or(0, |t| t.bonds.iter().map(|b| b.warnings.len()).sum()),
            dirty_mb: c(CacheCol::Dirty),
            writeback_mb: c(CacheCol::Writeback),
            nfs_ops,
        }
    }

    /// The cluster's line: sums over the live nodes that know the figure
    /// (a node's first interval, a layer it lacks), awaits weighted by each
    /// node's I/O (as the kernel's own await is), the busiest device of
    /// all; `None` for a figure no live node knows.
    fn total(rows: &[ClusterRow]) -> ClusterRow {
        let live: Vec<&ClusterRow> = rows.iter().filter(|r| r.shown == NodeShown::Live).collect();
        let sum = |f: fn(&ClusterRow) -> Option<f64>| {
            let known: Vec<f64> = live.iter().filter_map(|r| f(r)).collect();
            (!known.is_empty()).then(|| known.iter().sum::<f64>())
        };
        let weighted = |ios: fn(&ClusterRow) -> Option<f64>,
                        wait: fn(&ClusterRow) -> Option<f64>| {
            let both: Vec<(f64, f64)> = live
                .iter()
                .filter_map(|r| Some((ios(r)?, wait(r)?)))
                .collect();
            let n: f64 = both.iter().map(|(n, _)| n).sum();
            let waited: f64 = both.iter().map(|(n, w)| n * w).sum();
            (!both.is_empty()).then_some(if n > 0.0 { waited / n } else { 0.0 })
        };
        let busiest = live
            .iter()
            .filter_map(|r| {
                r.busiest
                    .as_ref()
                    .map(|(d, u)| (format!("{d}@{}", r.label), *u))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let label = if live.len() == rows.len() {
            "cluster".to_string()
        } else {
            format!("cluster ({} of {})", live.len(), rows.len())
        };
        ClusterRow {
            label,
            shown: NodeShown::Live,
            r_s: sum(|r| r.r_s),
            w_s: sum(|r| r.w_s),
            mb_s: sum(|r| r.mb_s),
            r_await: weighted(|r| r.r_s, |r| r.r_await),
            w_await: weighted(|r| r.w_s, |r| r.w_await),
            busiest,
            nic_in_mb: sum(|r| r.nic_in_mb),
            nic_out_mb: sum(|r| r.nic_out_mb),
            bond_warnings: live.iter().map(|r| r.bond_warnings).sum(),
            dirty_mb: sum(|r| r.dirty_mb),
            writeback_mb: sum(|r| r.writeback_mb),
            nfs_ops: sum(|r| r.nfs_ops),
        }
    }
}

impl NodeState {
    /// How its row stands at `now_ms`.
    pub fn shown(&self, now_ms: i64, interval_ms: i64) -> NodeShown {
        match &self.status {
            HostStatus::Live if self.is_current(now_ms, interval_ms) => NodeShown::Live,
            HostStatus::Live => NodeShown::Stale(
                self.last_sample_ms
                    .map_or(0, |at| ((now_ms - at) / 1000).max(0) as u64),
            ),
            HostStatus::Connecting => NodeShown::Down("connecting".into()),
            HostStatus::AuthFailed(_) => NodeShown::Down("login refused".into()),
            HostStatus::HostKeyRefused(_) => NodeShown::Down("host key refused".into()),
            HostStatus::Unreachable(_) => NodeShown::Down("unreachable".into()),
            HostStatus::NeedsPassphrase(_) => NodeShown::Down("needs passphrase".into()),
        }
    }
}

impl App {
    /// The cluster overview's rows, a node each in the order given, and
    /// the cluster's.
    pub fn cluster_rows(&self) -> (Vec<ClusterRow>, ClusterRow) {
        let interval_ms = (self.interval_s * 1000.0) as i64;
        let rows: Vec<ClusterRow> = self
            .nodes
            .iter()
            .map(|n| {
                ClusterRow::of(
                    n.target.label(),
                    n.shown(self.now_ms, interval_ms),
                    &n.layers,
                )
            })
            .collect();
        let total = ClusterRow::total(&rows);
        (rows, total)
    }
}

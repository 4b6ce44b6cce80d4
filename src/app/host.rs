//! What strata knows of one host's own layers (block devices, kernel NFS,
//! page cache, NICs): the local machine's, and each database node's from
//! its sampler's frames. The same baselines and histories for every host,
//! so a node's panel is the panel the same counters give locally.

use super::cache::CACHE_HISTORY;
use super::layer::Layer;
use super::nfs::NFS_HISTORY;
use super::nics::NIC_HISTORY;
use super::state::{DISK_HISTORY, push_disk_history};
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

//! Storage cells over a transport (SSH today: src/remote/ runs the connections): a cell's
//! sampler streams /proc/uptime and /proc/diskstats, read by the same
//! parsers as the host's, and `cellcli` runs on its own channel where the
//! cell has it.

pub mod catalogue;
pub mod remote;

use crate::core::error::ParseError;
use crate::layers::cells::cell_stream::{CellSample, parse_sample, parse_sys_block};
use crate::layers::disks::source::{Catalogue, DiskSample};
use crate::link::frame::{Frame, FrameKind};
use crate::link::sampler::Job;
use crate::link::{Decoder, HostEvent, HostStatus, Protocol, SideJob, Transport};
use std::sync::Arc;
use std::time::Duration;

/// What strata asks cellcli once per `side_every`, on its own channel.
pub const CELLCLI_SCRIPT: &str = "echo '@@celldisk'; cellcli -e 'list celldisk attributes name,deviceName,diskType'; echo '@@metriccurrent'; cellcli -e \"list metriccurrent where objectType = 'CELLDISK' or objectType = 'FLASHCACHE'\"";

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum CellEvent {
    Status {
        cell: usize,
        status: HostStatus,
    },
    /// SSH round trip of a keepalive request: once connected, then every
    /// interval (at least a second apart).
    Rtt {
        cell: usize,
        rtt: Duration,
    },
    /// uptime_cs is the cell's clock; wall_ms the local time of receipt.
    Sample {
        cell: usize,
        sample: DiskSample,
    },
    /// Raw stdout of CELLCLI_SCRIPT, where the cell has cellcli.
    Cellcli {
        cell: usize,
        text: String,
    },
    /// What the cell wrote on stderr.
    Stderr {
        cell: usize,
        text: String,
    },
}

impl CellEvent {
    /// The cell's index in the app's list.
    pub fn cell(&self) -> usize {
        match self {
            CellEvent::Status { cell, .. }
            | CellEvent::Rtt { cell, .. }
            | CellEvent::Sample { cell, .. }
            | CellEvent::Cellcli { cell, .. }
            | CellEvent::Stderr { cell, .. } => *cell,
        }
    }

    /// The event's kind, in a word.
    pub fn kind(&self) -> &'static str {
        match self {
            CellEvent::Status { .. } => "status",
            CellEvent::Rtt { .. } => "rtt",
            CellEvent::Sample { .. } => "sample",
            CellEvent::Cellcli { .. } => "cellcli",
            CellEvent::Stderr { .. } => "stderr",
        }
    }
}

impl HostEvent for CellEvent {
    type Sample = DiskSample;
    fn status(cell: usize, status: HostStatus) -> Self {
        CellEvent::Status { cell, status }
    }
    fn rtt(cell: usize, rtt: Duration) -> Self {
        CellEvent::Rtt { cell, rtt }
    }
    fn sample(cell: usize, sample: DiskSample) -> Self {
        CellEvent::Sample { cell, sample }
    }
    fn side(cell: usize, text: String) -> Self {
        CellEvent::Cellcli { cell, text }
    }
    fn stderr(cell: usize, text: String) -> Self {
        CellEvent::Stderr { cell, text }
    }
}

/// A cell: the disks sampler of remote.rs, and cellcli where it exists.
#[derive(Debug, Default)]
pub struct CellProtocol;

impl Protocol for CellProtocol {
    type Event = CellEvent;
    type Decoder = Decoded;
    fn sampler(&self, tag: &str, idle: std::time::Duration) -> Job {
        remote::sampler_job(tag, idle)
    }
    fn decoder(&self) -> Decoded {
        Decoded::default()
    }
    fn side(&self) -> Option<SideJob> {
        Some(SideJob {
            probe: Some(remote::cellcli_probe()),
            marker: remote::CELLCLI_MARKER,
            body: CELLCLI_SCRIPT.into(),
            name: "cellcli",
            every: None,
            limit: None,
        })
    }
}

/// Frame errors wait for the next sample's `rejected`; a stream of
/// garbage must not grow them without bound.
const MAX_PENDING_REJECTS: usize = 64;

/// What the sampler's frames have said that the next sample carries: the
/// disks' catalogue and the lines rejected since the last sample.
#[derive(Default)]
pub struct Decoded {
    cat: Arc<Catalogue>,
    pending: Vec<ParseError>,
}

impl Decoder for Decoded {
    type Sample = DiskSample;
    fn decode(&mut self, frame: Result<Frame, ParseError>, wall_ms: i64) -> Option<DiskSample> {
        let s = self.sample_of(frame)?;
        Some(self.disk_sample(s, wall_ms))
    }
}

impl Decoded {
    /// The sample a frame holds, if it holds one: a class block renews the
    /// catalogue, and what does not parse waits for the next sample.
    fn sample_of(&mut self, frame: Result<Frame, ParseError>) -> Option<CellSample> {
        let frame = match frame {
            Ok(f) => f,
            Err(e) => {
                self.reject(e);
                return None;
            }
        };
        if frame.kind == FrameKind::Classes {
            let p = parse_sys_block(&frame.body, "/sys/block");
            self.cat = Arc::new(catalogue::from_sys_block(&p.items));
            self.pending
                .extend(p.rejected.into_iter().take(MAX_PENDING_REJECTS));
            return None;
        }
        match parse_sample(&frame) {
            Ok(s) => Some(s),
            Err(e) => {
                self.reject(e);
                None
            }
        }
    }

    fn reject(&mut self, e: ParseError) {
        if self.pending.len() < MAX_PENDING_REJECTS {
            self.pending.push(e);
        }
    }

    /// The disk sample of `s`: the catalogue, grown by any disk it lists
    /// that no class block named, and every line rejected since the last.
    fn disk_sample(&mut self, s: CellSample, wall_ms: i64) -> DiskSample {
        if let Some(more) = catalogue::with_unlisted(&self.cat, &s.diskstats.items) {
            self.cat = Arc::new(more);
        }
        let mut rejected = std::mem::take(&mut self.pending);
        rejected.extend(s.diskstats.rejected);
        DiskSample {
            uptime_cs: s.uptime_cs,
            wall_ms,
            devices: s.diskstats.items,
            rejected,
            catalogue: Arc::clone(&self.cat),
        }
    }
}

/// Keeps one cell connected and streaming over `transport` until
/// `cancel` fires or the receiver is dropped.
pub async fn run_cell<T: Transport>(
    cell: usize,
    target: crate::link::HostTarget,
    transport: T,
    tx: tokio::sync::mpsc::Sender<CellEvent>,
    cancel: tokio_util::sync::CancellationToken,
) {
    transport
        .run_host(cell, target, Arc::new(CellProtocol), tx, cancel)
        .await;
}

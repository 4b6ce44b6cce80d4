//! Everything that changes what the screen shows, apart from keys: what the
//! live loop hands the app, what a recording stores, and what replay hands
//! the app again. One entry point for all three keeps replay faithful.

use serde::{Deserialize, Serialize};
use std::time::Duration;

use super::cells::CellRestate;
use super::state::App;
use crate::core::error::SampleError;
use crate::core::host::SelfUsage;
use crate::layers::LayerId;
use crate::layers::cache::source::CacheSample;
use crate::layers::cells::source::CellEvent;
use crate::layers::disks::source::DiskSample;
use crate::layers::dnfs::dnfs_sample::DnfsInstances;
use crate::layers::dnfs::source::{DbEvent, DbStatus};
use crate::layers::nfs::source::NfsSample;
use crate::layers::nics::source::NicSample;
use crate::link::HostStatus;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Input {
    /// A layer's sample, or why there is none (the screen shows the
    /// error's Display; a recording made before errors were typed holds
    /// its text, read as [`SampleError::Text`]).
    Disks(Result<DiskSample, SampleError>),
    Nfs(Result<NfsSample, SampleError>),
    Cache(Result<CacheSample, SampleError>),
    Nics(Result<NicSample, SampleError>),
    Cell(CellEvent),
    /// A database's connection state or its gv$dnfs_* reading.
    Db(DbEvent),
    /// A cell's state restated by a recording (see [`CellRestate`]).
    CellRestate(CellRestate),
    /// The loop's one-second clock: the header's time, staleness, own cost.
    Clock {
        now_ms: i64,
        usage: SelfUsage,
    },
    /// A labelled moment of the run (`m`, `strata mark`).
    Marker {
        wall_ms: i64,
        label: String,
    },
    /// A database node's layer sample, or what it wrote on stderr.
    Node {
        node: usize,
        input: NodeInput,
    },
    /// A database node's connection state.
    NodeStatus {
        node: usize,
        status: HostStatus,
    },
    /// SSH round trip of a node's keepalive.
    NodeRtt {
        node: usize,
        rtt: Duration,
    },
    /// The name a node reports (/proc/sys/kernel/hostname), from its
    /// facts, when it changed: the path view finds an instance's node by
    /// it too.
    NodeHostname {
        node: usize,
        hostname: String,
    },
}

/// What a database node sends: its host layers' samples, made by the same
/// sources as this machine's from the files its sampler sent, and what it
/// wrote on stderr (its connection's state and round trip are inputs of
/// their own, which a seek keeps).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum NodeInput {
    Disks(Result<DiskSample, SampleError>),
    Nfs(Result<NfsSample, SampleError>),
    Cache(Result<CacheSample, SampleError>),
    Nics(Result<NicSample, SampleError>),
    Stderr(String),
}

impl NodeInput {
    /// The input's kind, in a word (its stream's name ends with it).
    pub fn kind(&self) -> &'static str {
        match self {
            NodeInput::Disks(_) => "disks",
            NodeInput::Nfs(_) => "nfs",
            NodeInput::Cache(_) => "cache",
            NodeInput::Nics(_) => "nics",
            NodeInput::Stderr(_) => "stderr",
        }
    }

    fn is_sample(&self) -> bool {
        matches!(
            self,
            NodeInput::Disks(Ok(_))
                | NodeInput::Nfs(Ok(_))
                | NodeInput::Cache(Ok(_))
                | NodeInput::Nics(Ok(_))
        )
    }
}

impl Input {
    /// One input of each kind whose effect outlasts the next sample of its
    /// source: a cell's connection, round trip, cellcli listing, message and
    /// restate, a database's connection state, and the clock (which times a
    /// listing). A seek reads these from before the window it rebuilds and
    /// passes over the rest. Each holds `key` in the number every input of
    /// its kind has (its cell, its database, the clock's time): a recording
    /// knows the kind by that number's series, named by its path in the
    /// input (`cell0.Cell.Status.cell`).
    pub fn outlasting(key: usize) -> [Input; 11] {
        let cell = key;
        [
            Input::Cell(CellEvent::Status {
                cell,
                status: HostStatus::Live,
            }),
            Input::Cell(CellEvent::Rtt {
                cell,
                rtt: Duration::ZERO,
            }),
            Input::Cell(CellEvent::Cellcli {
                cell,
                text: String::new(),
            }),
            Input::Cell(CellEvent::Stderr {
                cell,
                text: String::new(),
            }),
            Input::CellRestate(CellRestate {
                cell,
                status: HostStatus::Live,
                rtt: None,
                cellcli: None,
                message: None,
            }),
            Input::Db(DbEvent::Status {
                db: key,
                status: DbStatus::Live,
            }),
            Input::Db(DbEvent::Instances {
                db: key,
                instances: DnfsInstances::default(),
            }),
            Input::Clock {
                now_ms: key as i64,
                usage: SelfUsage::default(),
            },
            Input::NodeStatus {
                node: key,
                status: HostStatus::Live,
            },
            Input::NodeRtt {
                node: key,
                rtt: Duration::ZERO,
            },
            Input::NodeHostname {
                node: key,
                hostname: String::new(),
            },
        ]
    }

    /// The stream an input belongs to: inputs of one stream share their
    /// shape from one sample to the next (a recording stores it once).
    pub fn stream(&self) -> String {
        match self {
            Input::Disks(_) => "disks".into(),
            Input::Nfs(_) => "nfs".into(),
            Input::Cache(_) => "cache".into(),
            Input::Nics(_) => "nics".into(),
            // One stream per kind: a cell's round trips and cellcli
            // reports come between its samples, and a stream whose shape
            // changed at every tick would state it again at every tick.
            Input::Cell(ev) => format!("cell{}.{}", ev.cell(), ev.kind()),
            Input::Db(DbEvent::Status { db, .. } | DbEvent::Sample { db, .. }) => format!("db{db}"),
            // Read every few minutes: apart, so the samples' stream keeps
            // its shape.
            Input::Db(DbEvent::Instances { db, .. }) => format!("db{db}.instances"),
            Input::CellRestate(r) => format!("restate{}", r.cell),
            Input::Clock { .. } => "clock".into(),
            Input::Marker { .. } => "marker".into(),
            Input::Node { node, input } => format!("node{node}.{}", input.kind()),
            Input::NodeStatus { node, .. } => format!("node{node}.status"),
            Input::NodeRtt { node, .. } => format!("node{node}.rtt"),
            Input::NodeHostname { node, .. } => format!("node{node}.hostname"),
        }
    }
}

impl Input {
    /// A source's counters, which the next sample of the same stream is
    /// diffed against: a recording that starts mid-run states the last of
    /// each first, so its first interval has figures.
    pub fn is_sample(&self) -> bool {
        matches!(
            self,
            Input::Disks(Ok(_))
                | Input::Nfs(Ok(_))
                | Input::Cache(Ok(_))
                | Input::Nics(Ok(_))
                | Input::Cell(CellEvent::Sample { .. })
                | Input::Db(DbEvent::Sample { .. })
        ) || matches!(self, Input::Node { input, .. } if input.is_sample())
    }

    /// A host layer's "no sample, because": `None` for the layers whose
    /// failures are events of their own (a cell's, a database's).
    /// `node` is the node this machine is (`--node local`) when there are
    /// nodes: its layers are that node's, not `App.local`'s.
    pub fn failed(layer: LayerId, why: SampleError, node: Option<usize>) -> Option<Input> {
        Some(match layer {
            LayerId::Disks => on_host(node, Input::Disks, NodeInput::Disks)(Err(why)),
            LayerId::Nfs => on_host(node, Input::Nfs, NodeInput::Nfs)(Err(why)),
            LayerId::Cache => on_host(node, Input::Cache, NodeInput::Cache)(Err(why)),
            LayerId::Nics => on_host(node, Input::Nics, NodeInput::Nics)(Err(why)),
            LayerId::Cells | LayerId::Dnfs => return None,
        })
    }
}

/// This machine's input of a host layer: its own (`node` None), or with
/// nodes the node it is (`--node local`), whose layers are not
/// `App.local`'s. `own` and `as_node` are the layer's two variants.
pub fn on_host<T: 'static>(
    node: Option<usize>,
    own: fn(T) -> Input,
    as_node: fn(T) -> NodeInput,
) -> impl Fn(T) -> Input + Send + 'static {
    move |r| match node {
        Some(node) => Input::Node {
            node,
            input: as_node(r),
        },
        None => own(r),
    }
}

impl App {
    pub fn apply(&mut self, input: Input) {
        match input {
            Input::Disks(Ok(s)) => self.local.ingest_disks(s),
            Input::Disks(Err(e)) => self.local.disks_failed(e),
            Input::Nfs(Ok(s)) => self.local.ingest_nfs(s),
            Input::Nfs(Err(e)) => self.local.nfs_failed(e),
            Input::Cache(Ok(s)) => self.local.ingest_cache(s),
            Input::Cache(Err(e)) => self.local.cache_failed(e),
            Input::Nics(Ok(s)) => self.local.ingest_nics(s),
            Input::Nics(Err(e)) => self.local.nics_failed(e),
            Input::Cell(ev) => self.ingest_cell_event(ev),
            Input::Db(ev) => self.ingest_db_event(ev),
            Input::CellRestate(r) => {
                self.cells.restate(r);
                self.review_passphrases();
            }
            Input::Clock { now_ms, usage } => {
                self.now_ms = now_ms;
                self.cells_clock();
                self.usage = usage;
            }
            Input::Marker { wall_ms, label } => self.add_marker(wall_ms, label),
            Input::Node { node, input } => self.ingest_node(node, &input),
            Input::NodeStatus { node, status } => {
                if let Some(n) = self.nodes.get_mut(node) {
                    n.link.status = status;
                }
                self.review_passphrases();
            }
            Input::NodeRtt { node, rtt } => {
                if let Some(n) = self.nodes.get_mut(node) {
                    n.link.rtt = Some(rtt);
                }
            }
            Input::NodeHostname { node, hostname } => {
                if let Some(n) = self.nodes.get_mut(node) {
                    n.hostname = Some(hostname).filter(|h| !h.is_empty());
                }
            }
        }
        self.tell_budget();
    }

    /// Applies a sample as [`apply`](Self::apply) does, by reference, and
    /// says whether `input` was one: the live loop keeps each stream's
    /// newest sample for a recording started later, and this spares it a
    /// copy per sample. Other inputs are left to `apply`.
    pub fn apply_sample(&mut self, input: &Input) -> bool {
        match input {
            Input::Disks(Ok(s)) => self.local.ingest_disks(s),
            Input::Nfs(Ok(s)) => self.local.ingest_nfs(s),
            Input::Cache(Ok(s)) => self.local.ingest_cache(s),
            Input::Nics(Ok(s)) => self.local.ingest_nics(s),
            Input::Cell(CellEvent::Sample { cell, sample }) => {
                self.cells.ingest_sample(self.now_ms, *cell, sample);
                self.review_passphrases();
            }
            Input::Db(DbEvent::Sample { db, sample }) => self.dnfs.ingest_sample(*db, sample),
            Input::Node { node, input } if input.is_sample() => self.ingest_node(*node, input),
            _ => return false,
        }
        self.tell_budget();
        true
    }
}

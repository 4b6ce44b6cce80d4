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
use crate::layers::cells::source::CellEvent;
use crate::layers::dnfs::dnfs_sample::DnfsInstances;
use crate::layers::dnfs::source::{DbEvent, DbStatus};
use crate::layers::host::{HostLayer, HostLayers, HostSample, HostState, Wrap, host_layers};
use crate::layers::metric::Sink;
use crate::link::HostStatus;

/// The inputs, with a variant per host layer (the recording's serde form
/// names each by its variant, as it always has).
macro_rules! def_inputs {
    (; $($field:ident $variant:ident $layer:path,)*) => {
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Input {
    $(
        /// A host layer's sample, or why there is none (the screen shows
        /// the error's Display; a recording made before errors were typed
        /// holds its text, read as [`SampleError::Text`]).
        $variant(Result<<$layer as HostLayer>::Sample, SampleError>),
    )*
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
    $($variant(Result<<$layer as HostLayer>::Sample, SampleError>),)*
    Stderr(String),
}


impl NodeInput {
    /// The input's kind, in a word (its stream's name ends with it).
    pub fn kind(&self) -> &'static str {
        match self {
            $(NodeInput::$variant(_) => stringify!($field),)*
            NodeInput::Stderr(_) => "stderr",
        }
    }

    fn is_sample(&self) -> bool {
        match self {
            $(NodeInput::$variant(r) => r.is_ok(),)*
            NodeInput::Stderr(_) => false,
        }
    }

    /// Lines a node's frame could not carry, for the layer that shows
    /// them (see [`HostLayer::reject`]).
    pub fn take_rejected(&mut self, lines: &mut Vec<crate::core::error::ParseError>) {
        match self {
            $(NodeInput::$variant(Ok(s)) => <$layer as HostLayer>::reject(s, lines),)*
            _ => {}
        }
    }

    /// Why a host layer has no reading, if this says so.
    pub fn error(&self) -> Option<&SampleError> {
        match self {
            $(NodeInput::$variant(Err(e)) => Some(e),)*
            _ => None,
        }
    }

    /// A host layer's good reading: its layer and wall clock.
    pub fn reading(&self) -> Option<(LayerId, i64)> {
        match self {
            $(NodeInput::$variant(Ok(s)) => Some((<$layer as HostLayer>::ID, <$layer as HostLayer>::wall_ms(s))),)*
            _ => None,
        }
    }

    /// A host layer's reading as series (see [`HostLayer::expose`]).
    pub fn expose(&self, sink: &mut dyn Sink) {
        match self {
            $(NodeInput::$variant(Ok(s)) => <$layer as HostLayer>::expose(s, sink),)*
            _ => {}
        }
    }

    /// A host layer's reading; `None` for what the node wrote on stderr.
    pub fn into_host(self) -> Option<HostSample> {
        match self {
            $(NodeInput::$variant(r) => Some(HostSample::$variant(r)),)*
            NodeInput::Stderr(_) => None,
        }
    }

    /// Into a host's layers: the sample's wall clock, if it was one.
    pub(super) fn apply_to(&self, l: &mut HostLayers) -> Option<i64> {
        match self {
            $(
                NodeInput::$variant(Ok(s)) => {
                    l.$field.ingest(s);
                    Some(<$layer as HostLayer>::wall_ms(s))
                }
                NodeInput::$variant(Err(e)) => {
                    l.$field.failed(e.clone());
                    None
                }
            )*
            NodeInput::Stderr(_) => None,
        }
    }
}

impl Input {
    /// A host layer's input of this machine as a node's (`--node local`),
    /// or the input as it is.
    fn host_stream(&self) -> Option<&'static str> {
        match self {
            $(Input::$variant(_) => Some(stringify!($field)),)*
            _ => None,
        }
    }

    /// This machine's host layer's reading, or the input as it is.
    pub fn into_host(self) -> Result<HostSample, Box<Input>> {
        match self {
            $(Input::$variant(r) => Ok(HostSample::$variant(r)),)*
            other => Err(Box::new(other)),
        }
    }

    /// This machine's host layer's good reading: its layer and wall clock.
    pub fn host_reading(&self) -> Option<(LayerId, i64)> {
        match self {
            $(Input::$variant(Ok(s)) => Some((<$layer as HostLayer>::ID, <$layer as HostLayer>::wall_ms(s))),)*
            _ => None,
        }
    }

    /// This machine's host layer's reading as series.
    pub fn expose_host(&self, sink: &mut dyn Sink) {
        match self {
            $(Input::$variant(Ok(s)) => <$layer as HostLayer>::expose(s, sink),)*
            _ => {}
        }
    }

    fn is_host_sample(&self) -> bool {
        match self {
            $(Input::$variant(r) => r.is_ok(),)*
            _ => false,
        }
    }

    /// A host layer's input into this machine's layers; false for any
    /// other input. `samples_only`: errors are left alone.
    fn apply_local(&self, l: &mut HostLayers, samples_only: bool) -> bool {
        match self {
            $(
                Input::$variant(Ok(s)) => l.$field.ingest(s),
                Input::$variant(Err(e)) if !samples_only => l.$field.failed(e.clone()),
            )*
            _ => return false,
        }
        true
    }

    /// A host layer's "no sample, because": `None` for the layers whose
    /// failures are events of their own (a cell's, a database's).
    /// `node` is the node this machine is (`--node local`) when there are
    /// nodes: its layers are that node's, not `App.local`'s.
    pub fn failed(layer: LayerId, why: SampleError, node: Option<usize>) -> Option<Input> {
        $(if layer == <$layer as HostLayer>::ID {
            return Some(on_host(node, Input::$variant, NodeInput::$variant)(Err(why)));
        })*
        None
    }
}

/// Makes this machine's inputs of its host layers (see [`on_host`]).
#[derive(Debug, Clone, Copy)]
pub struct LocalWrap {
    /// The node this machine is, if any.
    pub node: Option<usize>,
}

impl Wrap<Input> for LocalWrap {
    $(fn $field(&self, r: Result<<$layer as HostLayer>::Sample, SampleError>) -> Input {
        on_host(self.node, Input::$variant, NodeInput::$variant)(r)
    })*
}

/// Makes a node's inputs of its host layers.
#[derive(Debug, Clone, Copy)]
pub struct NodeWrap;

impl Wrap<NodeInput> for NodeWrap {
    $(fn $field(&self, r: Result<<$layer as HostLayer>::Sample, SampleError>) -> NodeInput {
        NodeInput::$variant(r)
    })*
}
    };
}
host_layers!(def_inputs);

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
        if let Some(layer) = self.host_stream() {
            return layer.into();
        }
        match self {
            Input::Node { node, input } => format!("node{node}.{}", input.kind()),
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
            Input::NodeStatus { node, .. } => format!("node{node}.status"),
            Input::NodeRtt { node, .. } => format!("node{node}.rtt"),
            Input::NodeHostname { node, .. } => format!("node{node}.hostname"),
            // A host layer's, named above.
            _ => String::new(),
        }
    }
}

impl Input {
    /// A source's counters, which the next sample of the same stream is
    /// diffed against: a recording that starts mid-run states the last of
    /// each first, so its first interval has figures.
    pub fn is_sample(&self) -> bool {
        self.is_host_sample()
            || matches!(
                self,
                Input::Cell(CellEvent::Sample { .. }) | Input::Db(DbEvent::Sample { .. })
            )
            || matches!(self, Input::Node { input, .. } if input.is_sample())
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
        if input.apply_local(&mut self.local, false) {
            self.tell_budget();
            return;
        }
        match input {
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
            // A host layer's, applied above.
            _ => {}
        }
        self.tell_budget();
    }

    /// Applies a sample as [`apply`](Self::apply) does, by reference, and
    /// says whether `input` was one: the live loop keeps each stream's
    /// newest sample for a recording started later, and this spares it a
    /// copy per sample. Other inputs are left to `apply`.
    pub fn apply_sample(&mut self, input: &Input) -> bool {
        if input.apply_local(&mut self.local, true) {
            self.tell_budget();
            return true;
        }
        match input {
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

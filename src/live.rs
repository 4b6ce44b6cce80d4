//! The live monitor: sampler tasks → channels → the one event loop
//! ([`crate::event_loop`]), which is the store's one writer and draws at
//! most at a capped frame rate; `strata record` is the same without a
//! screen.

use crate::app::input::{LocalWrap, NodeInput, NodeWrap};
use crate::app::session::Request;
use crate::app::{App, Input};
use crate::core::clock::now_ms;
use crate::core::error::SampleError;
use crate::core::host::SelfMeter;
use crate::core::rootfs::{RemoteFiles, RootFs};
use crate::event_loop::{self, Feed};
use crate::layers::LayerId;
use crate::layers::cells::source::{CellEvent, run_cell};
use crate::layers::dnfs::source::DbEvent;
use crate::layers::host::{HostOptions, HostSources, Reader, own_thread};
use crate::layers::node::{NodeEvent, NodeFrame, NodeProtocol};
use crate::link::target::NodeTarget;
use crate::recfile::Existing;
use crate::recfile::mark::MarkSocket;
use crate::recording::control::Control;
use crate::remote::{SshOptions, run_host};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::{Instant, Interval, MissedTickBehavior, interval_at, sleep_until};
use tokio_util::sync::CancellationToken;

/// Every source the screen samples, each on its own task.
pub struct Sources {
    /// This machine's host layers.
    pub host: HostSources,
    /// How to reach the app's cells and nodes, one task each.
    pub cells: SshOptions,
}

/// A host layer's sampler with its type erased: reads at `wall_ms` and
/// wraps the result as the layer's input, so one loop and one table spawn
/// every layer.
type Read = Reader<Input>;

/// A database node's host layers, read by the same sources as this
/// machine's from the files its sampler's frames bring.
struct NodeSources {
    files: Arc<RemoteFiles>,
    readers: Vec<(LayerId, Reader<NodeInput>)>,
}

impl NodeSources {
    /// `patterns`: the watched files, measured on the node by its fincore
    /// runs.
    fn new(patterns: Vec<String>) -> Self {
        let files = Arc::new(RemoteFiles::default());
        let fs = RootFs::remote(Arc::clone(&files));
        let opts = HostOptions {
            cache_files: patterns,
        };
        NodeSources {
            files,
            readers: HostSources::new(fs, &opts).readers(NodeWrap),
        }
    }

    /// Every layer's sample of one frame, at its time of receipt. The
    /// frame's own unreadable lines show with the first layer that takes
    /// them (the disks').
    fn read(&mut self, frame: NodeFrame) -> Vec<NodeInput> {
        let (mut rejected, wall_ms) = frame.put(&self.files);
        let mut inputs: Vec<NodeInput> = self.readers.iter_mut().map(|(_, r)| r(wall_ms)).collect();
        for input in &mut inputs {
            input.take_rejected(&mut rejected);
        }
        inputs
    }
}

/// Turns node `node`'s events into inputs: its frames into its layers'
/// samples, the rest as they are. A fincore run's output (it comes on a
/// channel of its own, at its own pace) goes with the next frame, whose
/// cache sample reads it. A frame is read here, on the loop's thread: it
/// is text in memory that cannot hang as a local /proc read can, and
/// handing each to a blocking thread and back cost more in switches than
/// reading it (about 0.3 ms a node).
async fn node_loop(
    node: usize,
    patterns: Vec<String>,
    mut rx: mpsc::Receiver<NodeEvent>,
    tx: mpsc::Sender<Input>,
) {
    let mut sources = NodeSources::new(patterns);
    // The facts come again every minute: the name is said when it changed.
    let mut hostname: Option<String> = None;
    let mut residency: Option<String> = None;
    while let Some(ev) = rx.recv().await {
        let input = |input| Input::Node { node, input };
        let inputs = match ev {
            NodeEvent::Frame { mut frame, .. } => {
                frame.files.fincore = residency.take();
                let named = frame.hostname().filter(|n| hostname.as_ref() != Some(n));
                if let Some(name) = named {
                    hostname = Some(name.clone());
                    let said = Input::NodeHostname {
                        node,
                        hostname: name,
                    };
                    if tx.send(said).await.is_err() {
                        return;
                    }
                }
                sources.read(*frame).into_iter().map(input).collect()
            }
            NodeEvent::Status { status, .. } => vec![Input::NodeStatus { node, status }],
            NodeEvent::Rtt { rtt, .. } => vec![Input::NodeRtt { node, rtt }],
            NodeEvent::Stderr { text, .. } => vec![input(NodeInput::Stderr(text))],
            NodeEvent::Residency { text, .. } => {
                residency = Some(text);
                Vec::new()
            }
        };
        for input in inputs {
            if tx.send(input).await.is_err() {
                return;
            }
        }
    }
}

/// The node this machine is, `--node local`, if it is one.
fn local_node(app: &App) -> Option<usize> {
    app.nodes
        .iter()
        .position(|n| matches!(n.link.target, NodeTarget::Local { .. }))
}

/// Every node over SSH on tasks of its own, all sending to one channel,
/// through the shared host manager (`--node local` is read by this
/// machine's own sources).
fn spawn_nodes(
    app: &App,
    opts: &Arc<SshOptions>,
    cancel: &CancellationToken,
    tasks: &mut JoinSet<()>,
) -> mpsc::Receiver<Input> {
    let every = app.interval.duration();
    let (tx, rx) = mpsc::channel::<Input>(64);
    let patterns = app.config.cache_files.clone();
    let proto = Arc::new(NodeProtocol::new(
        &patterns,
        every,
        Duration::from_secs(app.config.fincore_every_secs),
    ));
    for (node, n) in app.nodes.iter().enumerate() {
        match &n.link.target {
            NodeTarget::Remote(target) => {
                let (ev_tx, ev_rx) = mpsc::channel::<NodeEvent>(8);
                let (opts, proto) = (Arc::clone(opts), Arc::clone(&proto));
                tasks.spawn(run_host(
                    node,
                    target.clone(),
                    opts,
                    proto,
                    ev_tx,
                    cancel.clone(),
                ));
                tasks.spawn(node_loop(node, patterns.clone(), ev_rx, tx.clone()));
            }
            // Read by this machine's own sources (Live::start).
            NodeTarget::Local { .. } => {}
        }
    }
    rx
}

/// Samples a group of sources every `every`, for as long as the app
/// listens, one after the other on one blocking thread: a slow /sys or a
/// hung `--root` (on NFS, say) must not stall keys and drawing, nor the
/// sources of the other groups. One hand-off to a blocking thread and
/// back per boundary for the group: each cost its context switches, and
/// four a second (a task per source) were a tenth of a recorder's CPU.
async fn sample_loop(
    reads: Vec<(LayerId, Read)>,
    every: Duration,
    tx: mpsc::Sender<Input>,
    node: Option<usize>,
) {
    // A baseline at once, then the shared boundaries (a read that takes
    // longer than an interval skips to the next one).
    let mut tick = Instant::now();
    let mut reads = Some(reads);
    while let Some(rs) = reads.take() {
        sleep_until(tick).await;
        let Ok((rs, inputs)) = tokio::task::spawn_blocking(move || read_all(rs, node)).await else {
            return; // the loop sees the task end
        };
        for input in inputs {
            if tx.send(input).await.is_err() {
                return;
            }
        }
        if rs.is_empty() {
            // Every reader panicked, and said so: ending now would say
            // it again (the task is aborted with the others at the end).
            std::future::pending::<()>().await;
        }
        tick = crate::core::boundary::next(every);
        reads = Some(rs);
    }
}

/// Each source of a group read in turn, each at its own time. A reader
/// that panics takes only its layer down, which turns stale with the
/// reason; the group's other sources go on.
fn read_all(
    reads: Vec<(LayerId, Read)>,
    node: Option<usize>,
) -> (Vec<(LayerId, Read)>, Vec<Input>) {
    let mut kept = Vec::with_capacity(reads.len());
    let mut inputs = Vec::with_capacity(reads.len());
    for (layer, mut read) in reads {
        let input = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(now_ms())));
        match input {
            Ok(input) => {
                inputs.push(input);
                kept.push((layer, read));
            }
            Err(_) => inputs.extend(Input::failed(layer, sampler_ended(layer, "panicked"), node)),
        }
    }
    (kept, inputs)
}

/// What a layer whose sampler ended says.
fn sampler_ended(layer: LayerId, how: &str) -> SampleError {
    SampleError::Ended {
        sampler: layer.def().noun.to_string(),
        how: how.to_string(),
    }
}

/// Runs the screen until the user quits. The terminal is restored on every
/// way out, panics included (ratatui's hook).
pub fn run(
    mut app: App,
    source: Sources,
    record: Option<PathBuf>,
    existing: Existing,
    exporter: Option<Exporter>,
) -> anyhow::Result<()> {
    let how = Headless {
        existing,
        ..Headless::default()
    };
    event_loop::run(&mut app, true, |app| {
        let mut live = Live::start(app, source, record, how, false)?;
        live.exporter = exporter;
        Ok(live)
    })
}

/// `strata serve`: the live loop without a screen, serving `/metrics`
/// and recording too when `record` says where, until a signal or the
/// duration.
pub fn serve(
    mut app: App,
    source: Sources,
    listen: std::net::SocketAddr,
    web_config: Option<&std::path::Path>,
    record: Option<PathBuf>,
    how: Headless,
) -> anyhow::Result<()> {
    let exporter = Exporter::start(listen, web_config)?;
    say(&format!("serving /metrics on {}", exporter.url()));
    let result = event_loop::run(&mut app, false, |app| {
        let mut live = Live::start(app, source, record, how, true)?;
        live.exporter = Some(exporter);
        Ok(live)
    });
    let error = result.as_ref().err().map(ToString::to_string);
    if let Some(n) = app.notice.take().filter(|n| Some(n) != error.as_ref()) {
        say(&n);
    }
    result
}

/// `/metrics` beside the loop: the server (on a thread of its own, so a
/// scrape never waits on the loop nor the loop on a scrape), and what
/// makes each exposition of the app and the newest samples.
pub struct Exporter {
    server: crate::serve::Server,
    publisher: crate::serve::Publisher,
    collector: crate::expose::Collector,
}

impl Exporter {
    pub fn start(
        listen: std::net::SocketAddr,
        web_config: Option<&std::path::Path>,
    ) -> anyhow::Result<Exporter> {
        let (server, publisher) = crate::serve::start(listen, web_config)?;
        Ok(Exporter {
            server,
            publisher,
            collector: crate::expose::Collector::default(),
        })
    }

    pub fn url(&self) -> String {
        let scheme = if self.server.tls() { "https" } else { "http" };
        format!("{scheme}://{}/metrics", self.server.local_addr())
    }

    /// A new exposition, from now on the one every scrape gets.
    fn publish<'a>(&mut self, app: &App, newest: impl Iterator<Item = &'a Input>) {
        let exposition = self.collector.build(app, newest, now_ms());
        self.publisher
            .publish(crate::expose::to_metrics(&exposition));
    }
}

/// How `strata record` runs without a screen.
#[derive(Debug, Default, Clone, Copy)]
pub struct Headless {
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// Go on in a new file once the current one holds this many bytes.
    pub rotate_bytes: Option<u64>,
    /// `--force`: whether a finished recording at the path is replaced.
    pub existing: Existing,
}

/// `strata record FILE`: the live loop without a screen, until a signal or
/// the duration. Notices (a cell that fails, a recording that cannot be
/// written) go to stderr.
pub fn record(mut app: App, source: Sources, file: PathBuf, how: Headless) -> anyhow::Result<()> {
    let result = event_loop::run(&mut app, false, |app| {
        Live::start(app, source, Some(file), how, true)
    });
    // A failed recording's notice is the run's error, said once by main.
    let error = result.as_ref().err().map(ToString::to_string);
    if let Some(n) = app.notice.take().filter(|n| Some(n) != error.as_ref()) {
        say(&n);
    }
    result
}

/// A notice on stderr. Not `eprintln!`: a terminal that is gone must end
/// the recording cleanly, not in a panic over a notice it cannot show.
fn say(notice: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "strata: {notice}");
}

/// What feeds the app live: the samplers, the cells, the databases, marks
/// sent with `strata mark` and a clock; every input goes through the
/// recording (when one runs) to the app.
struct Live {
    samples: mpsc::Receiver<Input>,
    /// A sampler that dies (a panic in a reader) takes only its layer down:
    /// the layer turns stale with the reason, the rest goes on.
    samplers: JoinSet<()>,
    layers: Vec<Layer>,
    cells: mpsc::Receiver<CellEvent>,
    cell_tasks: JoinSet<()>,
    /// Every node's inputs, from `node_tasks`.
    nodes: mpsc::Receiver<Input>,
    node_tasks: JoinSet<()>,
    dbs: mpsc::Receiver<DbEvent>,
    /// Ends the cells' connections and the databases' threads.
    cancel: CancellationToken,
    marks: Option<MarkSocket>,
    mark_tx: mpsc::Sender<String>,
    mark_rx: mpsc::Receiver<String>,
    clock: Interval,
    meter: SelfMeter,
    rec: Control,
    how: Headless,
    deadline: Option<Instant>,
    headless: bool,
    /// Whether the run was asked to record: without a screen, one that
    /// fails is then the end of the run.
    recording_asked: bool,
    exporter: Option<Exporter>,
}

/// A sampler's task and the layer it samples.
type Layer = (tokio::task::Id, LayerId);

/// This machine's host layers' readers in groups: those that read /proc
/// and /sys, in a fraction of a millisecond, together, sharing one
/// hand-off (each cost a recorder about a tenth of its CPU in context
/// switches), and each one whose read may hang on its own thread (the page
/// cache's when it watches files, whose residency scan may hang on a dead
/// NFS server's). `node`: the database node this machine is, if any.
fn host_groups(
    sources: HostSources,
    node: Option<usize>,
    opts: &HostOptions,
) -> Vec<Vec<(LayerId, Read)>> {
    let mut shared = Vec::new();
    let mut groups = Vec::new();
    for (layer, read) in sources.readers(LocalWrap { node }) {
        if own_thread(layer, opts) {
            groups.push(vec![(layer, read)]);
        } else {
            shared.push((layer, read));
        }
    }
    groups.insert(0, shared);
    groups
}

/// Each group of host layers' samplers on its own task, all sending to one
/// channel.
fn spawn_samplers(
    groups: Vec<Vec<(LayerId, Read)>>,
    every: Duration,
    node: Option<usize>,
) -> (mpsc::Receiver<Input>, JoinSet<()>, Vec<Layer>) {
    let (tx, samples) = mpsc::channel(16);
    let mut samplers = JoinSet::new();
    let mut layers = Vec::new();
    for group in groups {
        let of_group: Vec<LayerId> = group.iter().map(|(layer, _)| *layer).collect();
        let id = samplers
            .spawn(sample_loop(group, every, tx.clone(), node))
            .id();
        layers.extend(of_group.into_iter().map(|layer| (id, layer)));
    }
    (samples, samplers, layers)
}

enum LiveEvent {
    Input(Input),
    /// A second passed.
    Clock,
    SamplerEnded(tokio::task::Id, &'static str),
    /// `--duration` is over.
    Deadline,
}

impl Live {
    /// Starts every source on its own task (or thread), and the recording
    /// if there is one; without a screen, a recording that cannot start
    /// is the end.
    fn start(
        app: &mut App,
        sources: Sources,
        record: Option<PathBuf>,
        how: Headless,
        headless: bool,
    ) -> anyhow::Result<Live> {
        let every = app.interval.duration();
        let Sources {
            host,
            cells: cell_opts,
        } = sources;
        // This machine's layers: its own without nodes; with nodes only as
        // the node `--node local` names. A jump host is not the database,
        // and sampling it beside eight nodes was a tenth of strata's CPU.
        let local_node = local_node(app);
        let own = if app.nodes.is_empty() || local_node.is_some() {
            let opts = HostOptions {
                cache_files: app.config.cache_files.clone(),
            };
            host_groups(host, local_node, &opts)
        } else {
            Vec::new()
        };
        let (samples, samplers, layers) = spawn_samplers(own, every, local_node);
        // Each cell on its own task: a cell that hangs or drops never holds
        // up the others or the screen.
        let (cell_tx, cells) = mpsc::channel::<CellEvent>(64);
        let cancel = CancellationToken::new();
        let mut cell_tasks = JoinSet::new();
        let cell_opts = Arc::new(cell_opts);
        for (i, c) in app.cells.list.iter().enumerate() {
            cell_tasks.spawn(run_cell(
                i,
                c.link.target.clone(),
                crate::remote::Ssh(std::sync::Arc::clone(&cell_opts)),
                cell_tx.clone(),
                cancel.clone(),
            ));
        }
        drop(cell_tx);
        let mut node_tasks = JoinSet::new();
        let nodes = spawn_nodes(app, &cell_opts, &cancel, &mut node_tasks);
        // Each database on its own thread: the oracle crate blocks, so a
        // slow query or a missing Oracle client never holds up the screen.
        // The threads end with `cancel`, not by being joined.
        let (db_tx, dbs) = mpsc::channel::<DbEvent>(64);
        let db_targets: Vec<_> = app.dnfs.list.iter().map(|d| d.target.clone()).collect();
        let mut db_opts = crate::layers::dnfs::source::DbOptions::new(every);
        db_opts.passwords = app.passphrases.store.clone();
        drop(crate::layers::dnfs::source::spawn_dbs(
            &db_targets,
            &db_opts,
            db_tx,
            &cancel,
        ));
        // The header's clock ticks on the second's boundary, where the
        // samplers wake: its frame and theirs are one frame, not two.
        let second = Duration::from_secs(1);
        let mut clock = interval_at(crate::core::boundary::next(second), second);
        clock.set_missed_tick_behavior(MissedTickBehavior::Skip);
        let mut rec = Control::new(record.clone())
            .replacing(how.existing)
            .in_dir(app.config.record_dir.clone());
        // A recording asked for on the command line or in the config that
        // cannot start (the file exists, another strata records to it)
        // ends the run before it starts: the user asked for evidence.
        if let Some(path) = &record
            && !rec.start(app, path)
        {
            anyhow::bail!("{}", app.notice.take().unwrap_or_default());
        }
        // `strata mark` reaches this strata through its socket.
        let (mark_tx, mark_rx) = mpsc::channel::<String>(8);
        let marks = match MarkSocket::bind() {
            Ok(m) => Some(m),
            Err(e) => {
                app.notice = Some(e);
                None
            }
        };
        Ok(Live {
            samples,
            samplers,
            layers,
            cells,
            cell_tasks,
            nodes,
            node_tasks,
            dbs,
            cancel,
            marks,
            mark_tx,
            mark_rx,
            clock,
            meter: SelfMeter::default(),
            rec,
            how,
            deadline: how.duration.map(|d| Instant::now() + d),
            headless,
            recording_asked: record.is_some(),
            exporter: None,
        })
    }

    /// Once a second: the clock and the recording's state; without a
    /// screen, the notices to stderr and the rotation.
    fn tick(&mut self, app: &mut App) {
        let usage = self.meter.read();
        self.rec.feed(
            app,
            Input::Clock {
                now_ms: now_ms(),
                usage,
            },
        );
        self.rec.refresh(app);
        if let Some(x) = &mut self.exporter {
            x.publish(app, self.rec.newest());
        }
        if !self.headless {
            return;
        }
        // A recording that failed ends the run: its notice is the run's
        // error, said once on the way out.
        if self.recording_asked && !self.rec.is_recording() {
            app.quit = true;
            return;
        }
        if let Some(n) = app.notice.take() {
            say(&n);
        }
        let full = self
            .how
            .rotate_bytes
            .zip(app.recording.as_ref())
            .is_some_and(|(max, r)| r.bytes >= max);
        if full {
            self.rec.rotate(app);
            // Said now: the run may end before the next tick, and the
            // last part's notice would take this one's place.
            if let Some(n) = app.notice.take() {
                say(&n);
            }
        }
    }
}

impl Feed for Live {
    type Event = LiveEvent;

    async fn next(&mut self) -> LiveEvent {
        // Fields one by one: each branch waits on its own.
        let Live {
            samples,
            samplers,
            cells,
            nodes,
            dbs,
            marks,
            mark_tx,
            mark_rx,
            clock,
            deadline,
            ..
        } = self;
        loop {
            tokio::select! {
                Some(input) = samples.recv() => return LiveEvent::Input(input),
                _ = async { if let Some(m) = marks.as_ref() { m.accept(mark_tx.clone()).await } }, if marks.is_some() => {}
                Some(label) = mark_rx.recv() => {
                    return LiveEvent::Input(Input::Marker { wall_ms: now_ms(), label });
                }
                Some(ev) = cells.recv() => return LiveEvent::Input(Input::Cell(ev)),
                Some(input) = nodes.recv() => return LiveEvent::Input(input),
                Some(ev) = dbs.recv() => return LiveEvent::Input(Input::Db(ev)),
                _ = clock.tick() => return LiveEvent::Clock,
                Some(end) = samplers.join_next_with_id() => {
                    return match end {
                        Ok((id, ())) => LiveEvent::SamplerEnded(id, "stopped"),
                        Err(e) => LiveEvent::SamplerEnded(
                            e.id(),
                            if e.is_panic() { "panicked" } else { "stopped" },
                        ),
                    };
                }
                _ = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    return LiveEvent::Deadline;
                }
            }
        }
    }

    fn apply(&mut self, app: &mut App, event: LiveEvent) {
        match event {
            LiveEvent::Input(input) => self.rec.feed(app, input),
            LiveEvent::Clock => self.tick(app),
            LiveEvent::SamplerEnded(id, how) => {
                let ended: Vec<LayerId> = self
                    .layers
                    .iter()
                    .filter(|(i, _)| *i == id)
                    .map(|(_, layer)| *layer)
                    .collect();
                for layer in ended {
                    let why = sampler_ended(layer, how);
                    if let Some(input) = Input::failed(layer, why, local_node(app)) {
                        self.rec.feed(app, input);
                    }
                }
            }
            LiveEvent::Deadline => app.quit = true,
        }
    }

    fn request(&mut self, app: &mut App, request: Request) {
        match request {
            Request::ToggleRecord => self.rec.toggle(app),
            Request::Input(input) => self.rec.feed(app, input),
            Request::Replay(_) => {}
        }
    }

    fn finish(self, app: &mut App) -> anyhow::Result<()> {
        // A notice not yet said (the run ended before the tick that says
        // it, as --duration may) is said before the close's takes its place.
        // A failed recording's notice is the run's error, said by main.
        if self.headless
            && app.notice.as_deref() != self.rec.failure()
            && let Some(n) = app.notice.take()
        {
            say(&n);
        }
        let recorded = self.rec.finish(app);
        let (mut samplers, mut cell_tasks) = (self.samplers, self.cell_tasks);
        let mut node_tasks = self.node_tasks;
        samplers.abort_all();
        // Closing the connections ends each host's sampler on its next write.
        self.cancel.cancel();
        cell_tasks.abort_all();
        node_tasks.abort_all();
        recorded.map_err(anyhow::Error::msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rootfs::FileSet;

    /// A sample frame with what the cache source reads, at `wall_ms`.
    fn frame(uptime: &str, wall_ms: i64) -> Box<NodeFrame> {
        let mut files = FileSet::default();
        for (path, text) in [
            ("/proc/uptime", uptime),
            ("/proc/meminfo", "MemTotal: 1000 kB\nCached: 10 kB\n"),
            ("/proc/vmstat", "pgpgin 1\n"),
        ] {
            files.files.insert(path.to_string(), text.to_string());
        }
        Box::new(NodeFrame {
            facts: None,
            files,
            rejected: Vec::new(),
            wall_ms,
        })
    }

    /// A node's layer whose file its frame lacks fails with the read's
    /// kind and text kept, as this machine's would: typed up to the app.
    #[test]
    fn a_nodes_layer_fails_with_the_typed_read_error() {
        let mut sources = NodeSources::new(Vec::new());
        let inputs = sources.read(*frame("10.00 1.00", 1_000));
        let host_layers = LayerId::ALL
            .iter()
            .filter(|l| crate::layers::host::is_host_layer(**l));
        assert_eq!(inputs.len(), host_layers.count(), "one input a host layer");
        let missing = |path: &str| SampleError::Io {
            path: path.into(),
            kind: "NotFound".into(),
            message: "not in the host's last frame from its sampler".into(),
        };
        let mut failed = 0;
        for input in &inputs {
            if let NodeInput::Cache(r) = input {
                assert!(r.is_ok(), "{r:?}");
                continue;
            }
            // Every other layer reads a file the frame lacks.
            let Some(e) = input.error() else {
                panic!("{input:?}");
            };
            let SampleError::Io { path, .. } = e else {
                panic!("{e:?}");
            };
            // A file of the layers' list, or the processes' own frame.
            assert!(
                crate::layers::host::node_files().contains(&path.as_str())
                    || path == crate::layers::procs::source::NODE_FILE,
                "{path}"
            );
            assert_eq!(*e, missing(path));
            assert_eq!(e.io_kind(), Some(std::io::ErrorKind::NotFound));
            assert_eq!(
                e.to_string(),
                format!("cannot read {path}: not in the host's last frame from its sampler")
            );
            failed += 1;
        }
        assert_eq!(failed, inputs.len() - 1);
    }

    /// A reader that panics turns its layer stale with why, typed, in the
    /// words the screen showed before errors were typed; on the node this
    /// machine is (`--node local`), as that node's input.
    #[test]
    fn a_panicking_reader_says_its_sampler_ended() {
        let ended = SampleError::Ended {
            sampler: "disk".into(),
            how: "panicked".into(),
        };
        assert_eq!(
            ended.to_string(),
            "the disk sampler panicked; restart strata to sample it again"
        );
        let boom: Read = Box::new(|_| panic!("a reader's bug"));
        let (kept, inputs) = read_all(vec![(LayerId::Disks, boom)], None);
        assert!(kept.is_empty());
        let [Input::Disks(Err(e))] = &inputs[..] else {
            panic!("{inputs:?}");
        };
        assert_eq!(*e, ended);
        let boom: Read = Box::new(|_| panic!("a reader's bug"));
        let (_, inputs) = read_all(vec![(LayerId::Nics, boom)], Some(2));
        let [
            Input::Node {
                node: 2,
                input: NodeInput::Nics(Err(e)),
            },
        ] = &inputs[..]
        else {
            panic!("{inputs:?}");
        };
        assert_eq!(
            e.to_string(),
            "the NIC sampler panicked; restart strata to sample it again"
        );
    }

    #[tokio::test]
    async fn a_fincore_run_gives_the_next_frames_cache_sample_its_rows() {
        let (ev_tx, ev_rx) = mpsc::channel(8);
        let (tx, mut rx) = mpsc::channel(64);
        let patterns = vec!["/u01/*.log".to_string()];
        let task = tokio::spawn(node_loop(3, patterns, ev_rx, tx));
        let run = "=e 10000\n=p 4096\n20480 5 20000 /u01/a.log\n".to_string();
        for ev in [
            NodeEvent::Frame {
                node: 3,
                frame: frame("10.00 1.00", 1_000),
            },
            NodeEvent::Residency { node: 3, text: run },
            NodeEvent::Frame {
                node: 3,
                frame: frame("11.00 1.00", 2_000),
            },
            NodeEvent::Frame {
                node: 3,
                frame: frame("12.00 1.00", 3_000),
            },
        ] {
            ev_tx.send(ev).await.unwrap();
        }
        drop(ev_tx);
        task.await.unwrap();
        let mut cache = Vec::new();
        while let Ok(input) = rx.try_recv() {
            if let Input::Node {
                node: 3,
                input: NodeInput::Cache(s),
            } = input
            {
                cache.push(s.unwrap());
            }
        }
        assert_eq!(cache.len(), 3);
        // before the run: no rows yet, and the pattern says so
        assert_eq!(cache[0].fincore.as_ref().unwrap().at_ms, None);
        assert!(cache[0].files[0].result.is_err());
        // the run with the frame after it, and kept by the next one
        for s in &cache[1..] {
            assert_eq!(s.fincore.as_ref().unwrap().at_ms, Some(2_000));
            assert_eq!(s.files.len(), 1);
            assert_eq!(s.files[0].path, "/u01/a.log");
            let r = s.files[0].result.as_ref().unwrap();
            assert_eq!((r.pages.cached, r.size_bytes), (5, 20_000));
        }
    }
}

//! `strata batch PANEL --node …`: a host panel (disks, nics, nfs, cache)
//! for every database node, each node's figures made by the very report
//! the local host uses, read from the files its sampler sent (or, for
//! `--node local`, from this machine). JSON lines gain a `node` field,
//! CSV a `node` column, text a `Node: LABEL` line above each block.

use super::run::banner;
use crate::core::boundary::{self, FirstInterval};
use crate::core::clock::now_ms;
use crate::core::rootfs::{RemoteFiles, RootFs};
use crate::layers::report::{Format, Report, csv_field, json_str, printable};
use crate::parse::ParseError;
use crate::remote::node::{NodeEvent, NodeProtocol};
use crate::remote::target::NodeTarget;
use crate::remote::{HostStatus, SshOptions, run_host};
use crate::source::host::host_info;
use std::io::Write;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// One node of the run: its report, where its files come from, and what
/// it has printed.
pub struct NodeReport {
    pub label: String,
    pub report: Box<dyn Report>,
    /// The node's files: a directory for the local host, frames for one
    /// over SSH.
    pub fs: RootFs,
    /// Where its frames go; `None` for the local host.
    pub files: Option<Arc<RemoteFiles>>,
    /// The last fincore run's output, for the next frame.
    residency: Option<String>,
    printed: u64,
    last_uptime_cs: Option<u64>,
    first: FirstInterval,
}

impl NodeReport {
    /// `report` of the node `label`, reading `fs` (see [`node_files`]).
    pub fn new(
        label: &str,
        report: Box<dyn Report>,
        fs: RootFs,
        files: Option<Arc<RemoteFiles>>,
    ) -> Self {
        NodeReport {
            label: label.to_string(),
            report,
            fs,
            files,
            residency: None,
            printed: 0,
            last_uptime_cs: None,
            first: FirstInterval::default(),
        }
    }
}

/// Where a node's files are read: `local` for `--node local`, else the
/// frames of its sampler, with the handle its frames are put through.
pub fn node_files(target: &NodeTarget, local: &RootFs) -> (RootFs, Option<Arc<RemoteFiles>>) {
    match target {
        NodeTarget::Local { .. } => (local.clone(), None),
        NodeTarget::Ssh(_) => {
            let files = Arc::new(RemoteFiles::default());
            (RootFs::remote(Arc::clone(&files)), Some(files))
        }
    }
}

/// `text` (one interval's report) with the node named, in `format`.
pub fn tag(label: &str, format: Format, text: &str) -> String {
    match format {
        Format::Text => format!("Node: {}\n{text}", printable(label)),
        Format::Json => text
            .lines()
            .map(|l| match l.strip_prefix('{') {
                Some(rest) => format!("{{\"node\": {}, {}\n", json_str(label), rest.trim_start()),
                None => format!("{l}\n"),
            })
            .collect(),
        Format::Csv => text
            .lines()
            .map(|l| format!("{},{l}\n", csv_field(label)))
            .collect(),
    }
}

/// A node's status on stderr. The session's texts start with the host
/// as `host:port`, which is the label of a node given that way: said once.
fn status_line(label: &str, status: &HostStatus) -> String {
    let text = status.to_string();
    let text = text
        .strip_prefix(label)
        .and_then(|t| t.strip_prefix(": "))
        .unwrap_or(&text);
    printable(&format!("strata: node {label}: {text}")).into_owned()
}

/// Prints `count` reports of every node (or until interrupted); the exit
/// code: 1 when a node gave no report for an interval or fell short.
/// `proto` says which files the nodes' samplers run fincore over.
pub fn run_nodes(
    targets: &[NodeTarget],
    nodes: Vec<NodeReport>,
    opts: SshOptions,
    proto: NodeProtocol,
    count: Option<u64>,
    format: Format,
) -> i32 {
    let mut run = Run {
        nodes,
        interval_ms: i64::try_from(opts.interval.as_millis()).unwrap_or(i64::MAX),
        format,
        missed: false,
        header_done: false,
        out: std::io::stdout().lock(),
        err: std::io::stderr(),
    };
    super::block_on(run.go(targets, opts, proto, count))
}

struct Run<O, E> {
    nodes: Vec<NodeReport>,
    interval_ms: i64,
    format: Format,
    missed: bool,
    header_done: bool,
    out: O,
    err: E,
}

impl<O: Write, E: Write> Run<O, E> {
    async fn go(
        &mut self,
        targets: &[NodeTarget],
        opts: SshOptions,
        proto: NodeProtocol,
        count: Option<u64>,
    ) -> i32 {
        let mut stop = match super::Stop::listen() {
            Ok(stop) => stop,
            Err(e) => {
                let _ = writeln!(self.err, "strata: {e}");
                return 1;
            }
        };
        let every = opts.interval;
        // A node that never answers fails after its timeouts and retries:
        // the run gives it its intervals, a connection and a stall more.
        let deadline = count.map(|c| {
            Instant::now()
                + every.mul_f64(c as f64 + 1.0)
                + opts.connect_timeout.saturating_mul(4)
                + every.saturating_mul(3)
        });
        let (tx, mut rx) = mpsc::channel::<NodeEvent>(64);
        let cancel = CancellationToken::new();
        let opts = Arc::new(opts);
        let proto = Arc::new(proto);
        let mut tasks = JoinSet::new();
        for (i, t) in targets.iter().enumerate() {
            if let NodeTarget::Ssh(target) = t {
                let (opts, proto) = (Arc::clone(&opts), Arc::clone(&proto));
                tasks.spawn(run_host(
                    i,
                    target.clone(),
                    opts,
                    proto,
                    tx.clone(),
                    cancel.child_token(),
                ));
            }
        }
        drop(tx);
        let has_local = self.nodes.iter().any(|n| n.files.is_none());
        // The local node reads at once for its baseline, then at the
        // boundaries the remote samplers are asked at.
        let mut local_at = Instant::now();
        loop {
            if count.is_some_and(|c| self.nodes.iter().all(|n| n.printed >= c)) {
                break;
            }
            tokio::select! {
                _ = stop.recv() => break,
                _ = tokio::time::sleep_until(deadline.unwrap_or(local_at)), if deadline.is_some() => {
                    self.short_of(count.unwrap_or(0));
                    break;
                }
                _ = tokio::time::sleep_until(local_at), if has_local => {
                    local_at = boundary::next(every);
                    for i in 0..self.nodes.len() {
                        if self.nodes[i].files.is_none() {
                            self.reading(i, now_ms(), Vec::new());
                        }
                    }
                }
                ev = rx.recv() => match ev {
                    Some(ev) => self.event(ev),
                    None if !has_local => break,
                    None => {}
                },
            }
        }
        cancel.cancel();
        while tasks.join_next().await.is_some() {}
        i32::from(self.missed)
    }

    fn short_of(&mut self, count: u64) {
        for n in &self.nodes {
            if n.printed < count {
                self.missed = true;
                let _ = writeln!(
                    self.err,
                    "strata: node {}: {} of {count} reports before the run's time was up",
                    n.label, n.printed
                );
            }
        }
    }

    fn event(&mut self, ev: NodeEvent) {
        let i = ev.node();
        let Some(label) = self.nodes.get(i).map(|n| n.label.clone()) else {
            return;
        };
        match ev {
            NodeEvent::Frame { mut frame, .. } => {
                // Only a node over SSH sends frames, and it has files.
                let Some(files) = self.nodes[i].files.clone() else {
                    return;
                };
                frame.files.fincore = self.nodes[i].residency.take();
                let (rejected, wall_ms) = frame.put(&files);
                self.reading(i, wall_ms, rejected);
            }
            NodeEvent::Status { status, .. } => match status {
                HostStatus::Live | HostStatus::Connecting => {}
                other => {
                    let _ = writeln!(self.err, "{}", status_line(&label, &other));
                }
            },
            NodeEvent::Stderr { text, .. } => {
                let said = format!("strata: node {label} says: {text}");
                let _ = writeln!(self.err, "{}", printable(&said));
            }
            NodeEvent::Residency { text, .. } => self.nodes[i].residency = Some(text),
            NodeEvent::Rtt { .. } => {}
        }
    }

    /// Node `i` has new files: its report over the interval since its
    /// last reading.
    fn reading(&mut self, i: usize, wall_ms: i64, rejected: Vec<ParseError>) {
        let format = self.format;
        let node = &mut self.nodes[i];
        for r in &rejected {
            let _ = writeln!(self.err, "strata: node {}: skipped {r}", node.label);
        }
        let s = match node.report.sample(wall_ms) {
            Ok(s) => s,
            Err(e) => {
                self.missed = true;
                let _ = writeln!(self.err, "strata: node {}: {e}", node.label);
                return;
            }
        };
        for r in &s.rejected {
            let _ = writeln!(self.err, "strata: node {}: skipped {r}", node.label);
        }
        let first = node.last_uptime_cs.is_none();
        let went_back = node.last_uptime_cs.is_some_and(|u| s.uptime_cs < u);
        node.last_uptime_cs = Some(s.uptime_cs);
        if format == Format::Csv && !self.header_done {
            self.header_done = true;
            let _ = writeln!(self.out, "node,{}", node.report.csv_header());
        }
        if first {
            if format == Format::Text {
                let what = format!("strata batch {} · node {}", node.report.panel(), node.label);
                let _ = writeln!(
                    self.out,
                    "{}",
                    banner(&host_info(&node.fs), s.wall_ms, &what)
                );
            }
            return;
        }
        // Its baseline was read when the node connected, between two
        // boundaries: a first interval too short is another baseline, as
        // export leaves it out, and --count counts the next.
        let left_out = s
            .itv_cs
            .and_then(|cs| node.first.left_out(cs, self.interval_ms))
            .is_some();
        match s.report {
            Some(_) if left_out => {}
            Some(text) => {
                node.printed += 1;
                let _ = write!(self.out, "{}", tag(&node.label, format, &text));
                let _ = self.out.flush();
            }
            None => {
                self.missed = true;
                let why = if went_back {
                    "uptime went backwards (node rebooted?): new baseline taken"
                } else {
                    "uptime did not advance: no interval to report"
                };
                let _ = writeln!(self.err, "strata: node {}: {why}", node.label);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_names_the_node_once() {
        let lost = HostStatus::Unreachable("10.0.0.5:2222: connection lost".into());
        assert_eq!(
            status_line("10.0.0.5:2222", &lost),
            "strata: node 10.0.0.5:2222: connection lost"
        );
        // A label the text does not start with is kept, and so is the text.
        assert_eq!(
            status_line("db01", &lost),
            "strata: node db01: 10.0.0.5:2222: connection lost"
        );
        let refused = HostStatus::AuthFailed("no key".into());
        assert_eq!(
            status_line("db01", &refused),
            "strata: node db01: login refused: no key"
        );
    }

    #[test]
    fn each_format_names_the_node() {
        let json = "{\"time\": 1, \"device\": \"sda\"}\n{\"time\": 1, \"device\": \"sdb\"}\n";
        assert_eq!(
            tag("db01", Format::Json, json),
            "{\"node\": \"db01\", \"time\": 1, \"device\": \"sda\"}\n{\"node\": \"db01\", \"time\": 1, \"device\": \"sdb\"}\n"
        );
        assert_eq!(tag("db,1", Format::Csv, "1,sda\n"), "\"db,1\",1,sda\n");
        assert_eq!(
            tag("db01", Format::Text, "Device r/s\n"),
            "Node: db01\nDevice r/s\n"
        );
    }
}

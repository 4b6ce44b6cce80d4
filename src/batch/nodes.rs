//! `strata batch PANEL --node …`: a host panel (disks, nics, nfs, cache)
//! for every database node, each node's figures made by the very report
//! the local host uses, read from the files its sampler sent (or, for
//! `--node local`, from this machine). JSON lines gain a `node` field,
//! CSV a `node` column, text a `Node: LABEL` line above each block.

use super::run::banner;
use crate::core::boundary::{self, FirstInterval};
use crate::core::clock::now_ms;
use crate::core::error::ParseError;
use crate::core::host::host_info;
use crate::core::rootfs::{RemoteFiles, RootFs};
use crate::layers::node::{NodeEvent, NodeProtocol};
use crate::layers::report::{Format, Report, csv_field, json_str, printable};
use crate::link::HostStatus;
use crate::link::target::NodeTarget;
use crate::remote::{SshOptions, run_host};
use std::collections::BTreeMap;
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
        NodeTarget::Remote(_) => {
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
    let interval_ms = opts.interval.ms();
    let mut run = Run::new(nodes, interval_ms, count, format, std::io::stdout().lock());
    super::block_on(run.go(targets, opts, proto))
}

struct Run<O, E> {
    nodes: Vec<NodeReport>,
    interval_ms: i64,
    count: Option<u64>,
    format: Format,
    missed: bool,
    header_done: bool,
    /// Reports not printed yet, by the boundary they end at, then by node:
    /// the nodes' readings come in the order their frames arrive, which
    /// changed from one interval to the next; a round prints in the order
    /// the nodes were given.
    rounds: BTreeMap<i64, Vec<Option<String>>>,
    out: O,
    err: E,
}

impl<O: Write> Run<O, std::io::Stderr> {
    fn new(
        nodes: Vec<NodeReport>,
        interval_ms: i64,
        count: Option<u64>,
        format: Format,
        out: O,
    ) -> Self {
        Run {
            nodes,
            interval_ms,
            count,
            format,
            missed: false,
            header_done: false,
            rounds: BTreeMap::new(),
            out,
            err: std::io::stderr(),
        }
    }
}

impl<O: Write, E: Write> Run<O, E> {
    async fn go(&mut self, targets: &[NodeTarget], opts: SshOptions, proto: NodeProtocol) -> i32 {
        let count = self.count;
        let mut stop = match super::Stop::listen() {
            Ok(stop) => stop,
            Err(e) => {
                let _ = writeln!(self.err, "strata: {e}");
                return 1;
            }
        };
        let every = opts.interval.duration();
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
            if let NodeTarget::Remote(target) = t {
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
        // Once every remote node's task has ended (or none was started:
        // `--node local` alone), `recv` answers `None` at once, every
        // time: polled again, it spun a core to the end of the run.
        let mut remote_open = true;
        // The local node reads at once for its baseline, then at the
        // boundaries the remote samplers are asked at.
        let mut local_at = Instant::now();
        loop {
            if count.is_some_and(|c| self.nodes.iter().all(|n| n.printed >= c)) {
                break;
            }
            let round_due = self.round_due();
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
                _ = tokio::time::sleep_until(round_due.unwrap_or(local_at)), if round_due.is_some() => {
                    self.print_rounds(now_ms());
                }
                ev = rx.recv(), if remote_open => match ev {
                    Some(ev) => self.event(ev),
                    None if !has_local => break,
                    None => remote_open = false,
                },
            }
        }
        self.print_rounds(i64::MAX);
        cancel.cancel();
        while tasks.join_next().await.is_some() {}
        i32::from(self.missed)
    }

    /// When the first round waiting is to be printed without the nodes
    /// that have not reported for it: half an interval after its boundary
    /// (a frame comes a round trip after the boundary; one later than that
    /// is printed on its own, after its round).
    fn round_due(&self) -> Option<Instant> {
        let (&at, _) = self.rounds.first_key_value()?;
        let wait_ms = at
            .saturating_add(self.interval_ms / 2)
            .saturating_sub(now_ms());
        // at least 1 ms: a timer that fires while the wall clock is still
        // short of the time (it is not the timer's clock) is not re-armed
        // at once, over and over
        let wait_ms = u64::try_from(wait_ms).unwrap_or(0).max(1);
        Some(Instant::now() + std::time::Duration::from_millis(wait_ms))
    }

    /// Prints, in time order, every round due by `now` (wall ms) and
    /// every round up to the last one all nodes have reported for; each
    /// round's reports in the nodes' order.
    fn print_rounds(&mut self, now: i64) {
        let count = self.count;
        let owes = |n: &NodeReport| count.is_none_or(|c| n.printed < c);
        let complete = self.rounds.iter().rev().find_map(|(&at, round)| {
            let all = round
                .iter()
                .zip(&self.nodes)
                .all(|(r, n)| r.is_some() || !owes(n));
            all.then_some(at)
        });
        let due = now.saturating_sub(self.interval_ms / 2);
        let upto = complete.map_or(due, |c| c.max(due));
        while let Some(entry) = self.rounds.first_entry() {
            if *entry.key() > upto {
                break;
            }
            for text in entry.remove().into_iter().flatten() {
                let _ = write!(self.out, "{text}");
            }
        }
        let _ = self.out.flush();
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
        let done = self.count.is_some_and(|c| node.printed >= c);
        match s.report {
            // --count is each node's: one that connected first (or whose
            // first interval was not left out) prints no more than the others.
            Some(_) if left_out || done => {}
            Some(text) => {
                node.printed += 1;
                let at = boundary::nearest(s.wall_ms, self.interval_ms);
                let n = self.nodes.len();
                let slot = &mut self.rounds.entry(at).or_insert_with(|| vec![None; n])[i];
                // A second reading for one boundary (a frame that came
                // late, then the next in time) keeps both.
                slot.get_or_insert_with(String::new).push_str(&tag(
                    &self.nodes[i].label,
                    format,
                    &text,
                ));
                // A reading's time is when it was read, or its frame came.
                self.print_rounds(s.wall_ms);
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
    use crate::core::error::SourceError;
    use crate::layers::report::Sampled;

    /// A node whose clock reads one second more at each sample; each
    /// report names the sample's time.
    struct Ticking(u64);

    impl Report for Ticking {
        fn panel(&self) -> &'static str {
            "disks"
        }
        fn csv_header(&self) -> String {
            "time".into()
        }
        fn sample(&mut self, wall_ms: i64) -> Result<Sampled, SourceError> {
            self.0 += 1;
            Ok(Sampled {
                uptime_cs: self.0 * 100,
                wall_ms,
                itv_cs: (self.0 > 1).then_some(100),
                report: (self.0 > 1).then(|| format!("{wall_ms}\n")),
                ..Sampled::default()
            })
        }
    }

    fn run_of(labels: &[&str], count: u64) -> Run<Vec<u8>, std::io::Stderr> {
        let nodes = labels
            .iter()
            .map(|l| NodeReport::new(l, Box::new(Ticking(0)), RootFs::new("/nonexistent"), None))
            .collect();
        Run::new(nodes, 1000, Some(count), Format::Csv, Vec::new())
    }

    #[test]
    fn each_round_prints_in_the_nodes_order_and_no_node_past_its_count() {
        let mut run = run_of(&["local", "db01", "db02"], 2);
        // baselines: local at once, the others when they connect
        run.reading(0, 10_300, Vec::new());
        run.reading(2, 10_700, Vec::new());
        // 11 s: db02's frame first, then local's reading, then db01's
        run.reading(2, 11_004, Vec::new());
        run.reading(0, 11_000, Vec::new());
        run.reading(1, 11_006, Vec::new());
        // db01 connected late: its baseline was the 11 s frame
        run.reading(1, 12_005, Vec::new());
        run.reading(0, 12_000, Vec::new());
        run.reading(2, 12_003, Vec::new());
        // local has printed its two; db01 owes one
        run.reading(0, 13_000, Vec::new());
        run.reading(1, 13_004, Vec::new());
        run.print_rounds(i64::MAX);
        let out = String::from_utf8(run.out).unwrap();
        assert_eq!(
            out,
            "node,time\n\
             local,11000\ndb02,11004\n\
             local,12000\ndb01,12005\ndb02,12003\n\
             db01,13004\n"
        );
    }

    #[test]
    fn a_round_waits_half_an_interval_for_a_silent_node() {
        let mut run = run_of(&["local", "db01"], 5);
        run.reading(0, 10_300, Vec::new());
        run.reading(0, 11_000, Vec::new());
        assert_eq!(String::from_utf8_lossy(&run.out), "node,time\n");
        run.print_rounds(11_499);
        assert_eq!(String::from_utf8_lossy(&run.out), "node,time\n");
        run.print_rounds(11_500);
        assert_eq!(
            String::from_utf8_lossy(&run.out),
            "node,time\nlocal,11000\n"
        );
    }

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

//! The real binary in tmux watching a cluster of three database nodes:
//! real OpenSSH sshd processes on loopback (tests/sshd/mod.rs) whose
//! ForceCommand points the node's sampler (`R=` in its script) at a copy
//! of the fixture host advanced by a test thread (tests/common/live_root.rs).
//! The run goes as a user's would: the cluster overview, down into one
//! node, its disks, one disk and its partition, back up, `n` through the
//! nodes, quit; no sampler is left on any node. A second run logs in to
//! two nodes with an encrypted key: the prompt asks for it once, naming
//! both nodes, and both go live.
//!
//! Needs tmux and sshd: without them the test prints SKIPPED, unless
//! STRATA_REQUIRE_E2E=1 or STRATA_REQUIRE_SSHD=1 (scripts/test sets both
//! as root), which makes a skip a failure.

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::sshd;

use common::live_root::LiveRoot;
use common::tmux::{Tmux, have_tmux, skip};
use sshd::{Keys, PASSPHRASE, Sshd, available, known_hosts, nonce, pgrep};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use strata::link::sampler::{SAMPLER_MARKER, WATCHDOG_MARKER};

/// The node's ForceCommand: the command strata sent, its sampler reading
/// under `tree`.
fn force_command(keys: &Keys, tree: &Path) -> PathBuf {
    sshd::rooted_force_command(keys, &nonce("node"), tree)
}

/// Nodes on `ips`, each a real sshd whose ForceCommand points the
/// sampler at `root`'s tree, and the command line that watches them with
/// the identity file `id` and this run's sampler `tag`: what each test
/// types into its tmux.
struct Cluster {
    nodes: Vec<Sshd>,
    cmd: String,
}

impl Cluster {
    fn start(keys: &Keys, root: &LiveRoot, ips: &[&str], id: &Path, tag: &str) -> Cluster {
        let wrapper = force_command(keys, &root.path());
        let extra = format!("ForceCommand {}", wrapper.display());
        let nodes: Vec<Sshd> = ips.iter().map(|ip| Sshd::start(keys, ip, &extra)).collect();
        let kh = known_hosts(keys, &nodes.iter().collect::<Vec<_>>());
        let specs: Vec<String> = nodes
            .iter()
            .map(|n| format!("--node {}@{}:{}", keys.user, n.ip, n.port))
            .collect();
        let cmd = format!(
            "env -u SSH_AUTH_SOCK HOME={home} STRATA_TEST_SAMPLER_TAG={tag} {bin} \
             --interval 1 --known-hosts {kh} --node-identity {id} {specs}",
            home = keys.dir.path().display(),
            bin = env!("CARGO_BIN_EXE_strata"),
            kh = kh.display(),
            id = id.display(),
            specs = specs.join(" "),
        );
        Cluster { nodes, cmd }
    }

    /// Each node as strata labels it, `host:port`.
    fn labels(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|n| format!("{}:{}", n.ip, n.port))
            .collect()
    }
}

#[test]
fn cluster_node_disks_device_partition_and_back() {
    let test = "cluster_node_disks_device_partition_and_back";
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    if !available(test) {
        return;
    }
    let root = LiveRoot::start();
    let keys = Keys::new();
    let tag = nonce("e2enodes");
    let cluster = Cluster::start(
        &keys,
        &root,
        &["127.0.0.61", "127.0.0.62", "127.0.0.63"],
        &keys.client_key,
        &tag,
    );
    let (nodes, cmd) = (&cluster.nodes, &cluster.cmd);
    let marker = format!("{SAMPLER_MARKER}-{tag}");
    // The sampler's command line names its watchdog too, never before a pid.
    let watchdog = format!("{WATCHDOG_MARKER}-{tag} [0-9]+$");
    let t = Tmux::start("nodes", 120, 40);
    t.type_line(cmd);
    let started = Instant::now();
    let s = t.wait_for("three live nodes with figures", |s| {
        s.contains("Cluster · 3 nodes · 3 live")
            && s.lines()
                .find(|l| l.starts_with("│ cluster ") || l.starts_with("│!cluster "))
                .is_some_and(|l| !l.contains('–'))
    });
    println!("cluster after {:?}:\n{s}", started.elapsed());
    assert!(s.contains("LIVE  cluster of 3"), "{s}");
    let second = format!("{}:{}", nodes[1].ip, nodes[1].port);
    assert!(s.contains(&second), "{s}");

    // cluster → the second node: its own overview, named in the header
    t.keys(&["Down", "Enter"]);
    let s = t.wait_text(&format!("LIVE  node {second}"));
    assert!(s.contains("Host · block devices"), "{s}");
    // → its disks → sda → sda1, as on a local host
    t.keys(&["2"]);
    t.wait_text("Disks · ");
    t.keys(&["s", "/", "s", "d", "Enter", "Enter"]);
    let s = t.wait_text("Disks › sda");
    assert!(s.contains(&format!("│ {second} › Disks › sda")), "{s}");
    assert!(s.contains("partitions · Enter to open"), "{s}");
    t.keys(&["Enter"]);
    t.wait_text("Disks › sda › sda1");
    // back up: sda, the table, then (after the overview) the cluster
    t.keys(&["Escape"]);
    t.wait_for("back at sda", |s| {
        s.contains("Disks › sda") && !s.contains("sda › sda1")
    });
    t.keys(&["Escape"]);
    t.wait_for("back at the table", |s| {
        s.contains("› Disks") && !s.contains("Disks ›")
    });
    t.keys(&["Escape", "1", "Escape"]);
    let s = t.wait_text("LIVE  cluster of 3");
    assert!(s.contains("Cluster · 3 nodes"), "{s}");

    // n: the nodes one by one, then the cluster again
    for n in nodes {
        t.keys(&["n"]);
        t.wait_text(&format!("LIVE  node {}:{}", n.ip, n.port));
    }
    t.keys(&["n"]);
    t.wait_text("LIVE  cluster of 3");
    assert_eq!(pgrep(&marker).len(), 3, "one sampler per node");
    assert_eq!(pgrep(&watchdog).len(), 3, "one watchdog per sampler");

    t.keys(&["q"]);
    t.assert_shell_usable();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !(pgrep(&marker).is_empty() && pgrep(&watchdog).is_empty()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(pgrep(&marker).is_empty(), "a sampler outlived strata");
    assert!(pgrep(&watchdog).is_empty(), "a watchdog outlived strata");
}

#[test]
fn nodes_on_an_encrypted_key_are_asked_for_it_once_and_go_live() {
    let test = "nodes_on_an_encrypted_key_are_asked_for_it_once_and_go_live";
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    if !available(test) {
        return;
    }
    let root = LiveRoot::start();
    let keys = Keys::new();
    let tag = nonce("e2enodekey");
    let cluster = Cluster::start(
        &keys,
        &root,
        &["127.0.0.64", "127.0.0.65"],
        &keys.encrypted_key,
        &tag,
    );
    let (labels, cmd) = (cluster.labels(), &cluster.cmd);
    let marker = format!("{SAMPLER_MARKER}-{tag}");
    let t = Tmux::start("nodekey", 120, 40);
    t.type_line(cmd);
    let started = Instant::now();
    // one prompt for the file, naming both nodes (it wraps at 120 columns;
    // the second node's status may come a moment after the first's)
    let s = t.wait_for("the prompt naming both nodes", |s| {
        s.contains(&format!("Passphrase for {}", keys.encrypted_key.display()))
            && s.contains(&format!("(nodes: {},", labels[0]))
            && s.contains(&format!("{}):", labels[1]))
    });
    println!("prompt after {:?}:\n{s}", started.elapsed());
    assert!(s.contains("needs passphrase"), "{s}");
    assert!(pgrep(&marker).is_empty(), "a sampler before the key opened");
    t.type_text(PASSPHRASE);
    t.keys(&["Enter"]);
    let s = t.wait_for("both nodes live with figures", |s| {
        s.contains("Cluster · 2 nodes · 2 live")
            && s.lines()
                .find(|l| l.starts_with("│ cluster ") || l.starts_with("│!cluster "))
                .is_some_and(|l| !l.contains('–'))
    });
    println!("live after {:?}:\n{s}", started.elapsed());
    assert!(!s.contains("Passphrase for"), "{s}");
    assert!(!s.contains(PASSPHRASE), "the passphrase on screen:\n{s}");
    assert_eq!(pgrep(&marker).len(), 2, "one sampler per node");

    t.keys(&["q"]);
    t.assert_shell_usable();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pgrep(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(pgrep(&marker).is_empty(), "a sampler outlived strata");
}

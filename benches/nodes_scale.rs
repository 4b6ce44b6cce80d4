//! Database nodes at scale: 8 nodes (then 64) beside 24 cells × 28 disks,
//! on loopback at 1 s.
//!
//! ```text
//! cargo bench --bench nodes_scale                        # full run (root, sshd)
//! STRATA_BENCH_QUICK=1 cargo bench --bench nodes_scale   # smoke run (CI)
//! STRATA_BENCH_RUNS=0,8 cargo bench --bench nodes_scale  # only these TUI runs
//! ```
//!
//! Each node is a real OpenSSH sshd on its own 127.0.3.x address whose
//! ForceCommand runs strata's node sampler unchanged but for `R=;`, set to
//! the node's synthetic tree (scale/node_tree.rs: 100 block devices, 16
//! interfaces with two bonds, 8 NFSv3 mounts, meminfo, vmstat, 600
//! processes of which 60 do I/O), whose
//! counters a thread rewrites each second; /proc/uptime is this machine's.
//! The 64 nodes share 8 trees. The 24 cells are cells_scale's
//! (scale/cells.rs).
//!
//! 1. Bytes: the sampler under a local `sh` on one tree: what a sample
//!    frame holds uncompressed, file by file.
//! 2. Skew, in process: `run_host` with `NodeProtocol` for 15 s; at each
//!    second every node served, the spread of the nodes' /proc/uptime
//!    readings (cs) and of the frames' arrival at strata (ms).
//! 3. The release binary in tmux on the overview, `--interval 1`, 60 s
//!    steady after a warm-up, three times: 24 cells and no node, 24 cells
//!    and 8 nodes, 24 cells and 64 nodes. Its CPU (utime + stime from
//!    /proc/PID/stat) over the window; the CPU a node costs is the
//!    difference from the run without nodes over the number of nodes.
//!    Frame times from STRATA_FRAME_LOG. Bytes on the wire: `ss -tin`'s
//!    bytes_received and bytes_acked of strata's connections to the nodes
//!    over the window. The node's own cost: CPU of its sshd session and
//!    sampler (with the children they waited for). Node 0's sshd logs at
//!    DEBUG1, whose kex lines say which compression was negotiated.
//!
//! Benchmarks report, they do not gate: what is over its budget (16 ms a
//! frame, 16 kB/s a node) is marked OVER and the exit status stays 0.
//! Without root or sshd the run says SKIPPED (or fails under
//! STRATA_REQUIRE_SSHD=1).

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/layers.rs"]
mod layers;
#[path = "scale/node_tree.rs"]
mod node_tree;
#[path = "../tests/peer_tools/mod.rs"]
mod peer_tools;
#[path = "scale/mod.rs"]
mod scale;
#[path = "../tests/sshd/mod.rs"]
mod sshd;

use scale::cells::{spec, targets, wrapper};
use scale::{FrameLog, FrameStats, Tmux, cpu_ticks, cpu_ticks_with_children};
use sshd::{Keys, Sshd};
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use strata::layers::node::{NodeEvent, NodeProtocol, sampler_script};
use strata::link::HostStatus;
use strata::remote::run_host;

const TMUX: Tmux = Tmux("strata-nodes-scale");
/// What a node may send at 1 s.
const BYTES_BUDGET: f64 = 16_000.0;

struct Plan {
    cells: usize,
    nodes: usize,
    many: usize,
    skew_secs: u64,
    warm_secs: u64,
    steady_secs: u64,
}

fn main() {
    let quick = std::env::var("STRATA_BENCH_QUICK").is_ok_and(|v| v == "1");
    let plan = if quick {
        Plan {
            cells: 2,
            nodes: 2,
            many: 4,
            skew_secs: 4,
            warm_secs: 3,
            steady_secs: 5,
        }
    } else {
        Plan {
            cells: 24,
            nodes: 8,
            many: 64,
            skew_secs: 15,
            warm_secs: 8,
            steady_secs: 60,
        }
    };
    if !sshd::available("nodes_scale") {
        return;
    }
    if sshd::current_user() != "root" {
        // 88 addresses, ForceCommand and a login as root keep it simple.
        println!("nodes_scale: SKIPPED: needs root");
        return;
    }
    let keys = Keys::new();
    let stop = Arc::new(AtomicBool::new(false));
    let (cells, cell_gen) = scale::cells::start(&keys, plan.cells, &stop);
    let templates = node_tree::Templates::read();
    let trees: Vec<PathBuf> = (0..plan.nodes)
        .map(|i| keys.path(&format!("node{i:02}")))
        .collect();
    for (i, t) in trees.iter().enumerate() {
        node_tree::make(t, i, &templates);
    }
    let node_gen = {
        let (trees, stop) = (trees.clone(), Arc::clone(&stop));
        std::thread::spawn(move || node_tree::generate(&trees, &stop, &templates))
    };
    let mut nodes: Vec<Sshd> = (0..plan.many)
        .map(|i| {
            let tree = trees[i % trees.len()].display().to_string();
            let w = wrapper(
                &keys,
                &format!("node{i:02}.sh"),
                &format!("-e 's#R=;#R={tree};#'"),
            );
            Sshd::start(
                &keys,
                &format!("127.0.3.{}", i + 1),
                &scale::cells::session_config(&w),
            )
        })
        .collect();
    debug_log(&mut nodes[0]);
    let all: Vec<&Sshd> = cells.iter().chain(nodes.iter()).collect();
    let kh = sshd::known_hosts(&keys, &all);
    println!(
        "nodes_scale: {} nodes (then {}; {} trees of {} block devices, {} NICs with 2 bonds, {} NFS mounts, \
         {} processes of which {} move) beside {} cells × 28 disks on loopback, interval 1 s",
        plan.nodes,
        plan.many,
        trees.len(),
        node_tree::BLOCK,
        node_tree::NICS.len(),
        node_tree::NFS.len(),
        node_tree::PROCS,
        node_tree::MOVING,
        plan.cells
    );
    let raw = sample_bytes(&trees[0]);
    // STRATA_BENCH_RUNS=8 (say) runs only the TUI with that many nodes:
    // for profiling one configuration.
    let only: Option<Vec<usize>> = std::env::var("STRATA_BENCH_RUNS")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect());
    if only.is_none() {
        skew(plan.skew_secs, &keys, &nodes[..plan.nodes], &kh);
    }
    let mut runs = Vec::new();
    if peer_tools::find_in_path("tmux").is_none() {
        println!("tui: SKIPPED: tmux not installed");
    } else {
        let counts = only
            .clone()
            .unwrap_or_else(|| vec![0, plan.nodes, plan.many]);
        for n in counts.into_iter().filter(|&n| n <= nodes.len()) {
            let r = tui(&plan, &keys, &cells, &nodes[..n], &kh);
            runs.extend(r.map(|r| (n, r)));
        }
    }
    if only.is_none() {
        skew(plan.skew_secs.min(10), &keys, &nodes, &kh);
        serve(&plan, &keys, &cells, &nodes[..plan.nodes], &kh);
    }
    let compression = negotiated(&nodes[0]);
    table(&runs, raw, &compression);
    stop.store(true, Ordering::Relaxed);
    let _ = cell_gen.join();
    let _ = node_gen.join();
}

/// `strata serve` of the cells and nodes, scraped once a second as
/// Prometheus scrapes (OpenMetrics, gzip): the whole process's CPU and
/// RSS over the steady window, and what a scrape took and weighed.
fn serve(plan: &Plan, keys: &Keys, cells: &[Sshd], nodes: &[Sshd], kh: &Path) {
    use std::io::Read as _;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata"));
    cmd.arg("serve")
        .arg("--listen")
        .arg(port.to_string())
        .arg("--known-hosts")
        .arg(kh)
        .arg("--cell-identity")
        .arg(&keys.client_key)
        .arg("--node-identity")
        .arg(&keys.client_key)
        .args(["--interval", "1"])
        .env("HOME", keys.dir.path())
        .env_remove("SSH_AUTH_SOCK")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for c in cells {
        cmd.arg("--cell").arg(spec(keys, c));
    }
    for n in nodes {
        cmd.arg("--node").arg(spec(keys, n));
    }
    let Ok(mut child) = cmd.spawn() else {
        println!("serve: SKIPPED: strata did not start");
        return;
    };
    let pid = child.id();
    let scrape = || -> Option<(Duration, usize, usize)> {
        let t = Instant::now();
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
        s.write_all(
            b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text;version=1.0.0\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
        )
        .ok()?;
        let mut body = Vec::new();
        s.read_to_end(&mut body).ok()?;
        let took = t.elapsed();
        let text = String::from_utf8_lossy(&body);
        let series = text.lines().filter(|l| !l.starts_with('#')).count();
        Some((took, body.len(), series))
    };
    let start = Instant::now();
    let until = |secs: u64| start + Duration::from_secs(secs);
    let mut samples = Vec::new();
    let mut cpu0 = None;
    let mut k = 0;
    while Instant::now() < until(plan.warm_secs + plan.steady_secs) && k < 1000 {
        k += 1;
        std::thread::sleep(until(k).saturating_duration_since(Instant::now()));
        if cpu0.is_none() && Instant::now() >= until(plan.warm_secs) {
            cpu0 = cpu_ticks(pid).map(|c| (c, Instant::now()));
        }
        if let Some(s) = scrape()
            && cpu0.is_some()
        {
            samples.push(s);
        }
    }
    let cpu1 = cpu_ticks(pid);
    let rss = scale::rss_kib(pid);
    let _ = child.kill();
    let _ = child.wait();
    let cpu = match (cpu0, cpu1) {
        (Some((a, t)), Some(b)) => format!("{:.2} %", (b - a) as f64 / t.elapsed().as_secs_f64()),
        _ => "–".into(),
    };
    let mut took: Vec<Duration> = samples.iter().map(|s| s.0).collect();
    took.sort();
    let med = took.get(took.len() / 2).copied().unwrap_or_default();
    let max = took.last().copied().unwrap_or_default();
    let bytes = samples.iter().map(|s| s.1).max().unwrap_or(0);
    println!(
        "serve: {} cells, {} nodes, one scrape a second ({} in {} s, gzip): strata's CPU {cpu} (budget 3 %), RSS {} MiB; a scrape {:.1} ms median, {:.1} ms max, {} kB on the wire",
        cells.len(),
        nodes.len(),
        samples.len(),
        plan.steady_secs,
        rss.map_or("–".into(), |r| format!("{:.1}", r as f64 / 1024.0)),
        med.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
        bytes / 1024
    );
}

/// sshd at DEBUG1 (its config takes the first LogLevel), restarted.
fn debug_log(s: &mut Sshd) {
    let text = fs::read_to_string(&s.config).expect("sshd config");
    let text = text.replace("LogLevel VERBOSE", "LogLevel DEBUG1");
    fs::write(&s.config, text).expect("sshd config");
    s.restart();
}

/// The compression sshd's kex chose each way, from its DEBUG1 log.
fn negotiated(s: &Sshd) -> String {
    let log = s.log_text();
    let mut seen: Vec<String> = log
        .lines()
        .filter(|l| l.contains("kex: ") && l.contains("compression: "))
        .filter_map(|l| {
            let dir = if l.contains("client->server") {
                "client→server"
            } else {
                "server→client"
            };
            let c = l.split("compression: ").nth(1)?.split_whitespace().next()?;
            Some(format!("{dir} {c}"))
        })
        .collect();
    seen.sort();
    seen.dedup();
    if seen.is_empty() {
        "no kex line in sshd's DEBUG1 log".into()
    } else {
        seen.join(", ")
    }
}

/// One sample frame of the sampler run under a local `sh` on `tree`.
struct RawFrame {
    /// The whole frame, its @@ lines included.
    bytes: usize,
    /// The class frame at connection.
    class_bytes: usize,
    /// Bytes by what carries them, most first.
    parts: Vec<(String, usize)>,
}

fn sample_bytes(tree: &Path) -> RawFrame {
    let script = sampler_script().replacen("R=;", &format!("R={};", tree.display()), 1);
    // Its first sample comes unasked at its start: the first request here.
    // The state directory a node's sampler has (`sampler_with_dir`): in
    // it the process layer's awk keeps what it sent, and without it sends
    // every process every time.
    let state = tempfile::tempdir().expect("state dir");
    let script = format!("T={}; read -r t; {script}", state.path().display());
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sh");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut class_bytes = 0;
    let mut last: Vec<String> = Vec::new();
    // Three samples: the class frame comes with the first.
    for _ in 0..3 {
        stdin.write_all(b"\n").expect("ask");
        stdin.flush().expect("ask");
        let mut frame: Vec<String> = Vec::new();
        let mut line = String::new();
        for _ in 0..100_000 {
            line.clear();
            if out.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            frame.push(line.clone());
            if line.starts_with("@@E") {
                if frame[0].starts_with("@@C") {
                    class_bytes = frame.iter().map(String::len).sum();
                    frame.clear();
                    continue;
                }
                break;
            }
        }
        last = frame;
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let mut parts: BTreeMap<String, usize> = BTreeMap::new();
    let mut current = String::from("@@ frame lines");
    for l in &last {
        let key = if l.starts_with("@@") {
            "@@ frame lines".to_string()
        } else if let Some(path) = l.strip_prefix("=f ") {
            let path = path.trim_end();
            current = if path.starts_with("/proc/net/bonding/") {
                "/proc/net/bonding/*".into()
            } else {
                path.to_string()
            };
            current.clone()
        } else if l.starts_with("=a /sys/class/net/") {
            "=a /sys/class/net/*/{carrier_changes,operstate,speed,duplex}".into()
        } else if l.starts_with("=d ") {
            "=d listings".into()
        } else {
            current.clone()
        };
        *parts.entry(key).or_default() += l.len();
    }
    let mut parts: Vec<(String, usize)> = parts.into_iter().collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    let bytes: usize = last.iter().map(String::len).sum();
    println!(
        "bytes: a sample frame {bytes} B uncompressed (the class frame at connection {class_bytes} B):"
    );
    for (what, n) in &parts {
        println!(
            "  {n:>6} B {:>5.1} %  {what}",
            100.0 * *n as f64 / bytes.max(1) as f64
        );
    }
    RawFrame {
        bytes,
        class_bytes,
        parts,
    }
}

/// The uptime a frame carries, in centiseconds.
fn uptime_cs(text: &str) -> Option<u64> {
    let first = text.split_whitespace().next()?;
    let (s, cs) = first.split_once('.')?;
    Some(s.parse::<u64>().ok()? * 100 + cs.parse::<u64>().ok()?)
}

fn skew(secs: u64, keys: &Keys, nodes: &[Sshd], kh: &Path) {
    let opts = scale::skew_options(kh);
    let proto = Arc::new(NodeProtocol::default());
    let mut seconds = scale::Seconds::new(nodes.len());
    scale::drive(
        secs,
        |tx, cancel| {
            for (i, t) in targets(keys, nodes).into_iter().enumerate() {
                tokio::spawn(run_host(
                    i,
                    t,
                    Arc::clone(&opts),
                    Arc::clone(&proto),
                    tx.clone(),
                    cancel.clone(),
                ));
            }
        },
        |ev| match ev {
            NodeEvent::Frame { node, frame } => {
                let up = frame.files.files.get("/proc/uptime");
                if let Some(cs) = up.and_then(|u| uptime_cs(u)) {
                    seconds.add(node, cs, frame.wall_ms);
                }
            }
            NodeEvent::Status { node, status }
                if !matches!(status, HostStatus::Live | HostStatus::Connecting) =>
            {
                println!("  node {node}: {status:?}");
            }
            _ => {}
        },
    );
    println!(
        "skew ({} nodes): {}",
        nodes.len(),
        seconds.summary("the nodes' /proc/uptime readings")
    );
}

/// Bytes strata's connections to 127.0.3.x have received and sent (acked),
/// by (local, peer) address: `ss -tin`.
fn wire() -> BTreeMap<(String, String), (u64, u64)> {
    let out = Command::new("ss")
        .args(["-tinH", "dst", "127.0.3.0/24"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let mut map = BTreeMap::new();
    let mut key: Option<(String, String)> = None;
    for line in out.lines() {
        if !line.starts_with(char::is_whitespace) {
            let f: Vec<&str> = line.split_whitespace().collect();
            key = (f.len() >= 5).then(|| (f[3].to_string(), f[4].to_string()));
            continue;
        }
        let field = |name: &str| {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(name))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        if let Some(k) = key.take() {
            map.insert(k, (field("bytes_received:"), field("bytes_acked:")));
        }
    }
    map
}

/// The CPU ticks of each node's sshd sessions and sampler (with the
/// children they waited for), by pid.
fn node_side(nodes: &[Sshd]) -> BTreeMap<u32, u64> {
    nodes
        .iter()
        .filter_map(Sshd::pid)
        .flat_map(sshd::descendants)
        .filter(|(_, comm)| comm.starts_with("sshd") || comm == "sh" || comm == "bash")
        .filter_map(|(pid, _)| Some((pid, cpu_ticks_with_children(pid)?)))
        .collect()
}

struct Run {
    cpu_pct: f64,
    rss_mib: f64,
    frames: FrameStats,
    connecting: FrameStats,
    slow: Vec<String>,
    live: String,
    /// Per node: bytes/s received from it and sent to it.
    wire: Vec<(f64, f64)>,
    /// The nodes' own CPU, % of a core per node.
    node_cpu_pct: f64,
    /// /proc/loadavg's 1-minute figure at the window's end: other work on
    /// the machine.
    load: String,
}

fn tui(plan: &Plan, keys: &Keys, cells: &[Sshd], nodes: &[Sshd], kh: &Path) -> Option<Run> {
    let log = keys.path(&format!("frames-{}.log", nodes.len()));
    let mut cmd = format!(
        "exec env {}={} {} --known-hosts {} --cell-identity {} --node-identity {} --interval 1",
        strata::frame_log::VAR,
        log.display(),
        env!("CARGO_BIN_EXE_strata"),
        kh.display(),
        keys.client_key.display(),
        keys.client_key.display()
    );
    for c in cells {
        cmd += &format!(" --cell {}", spec(keys, c));
    }
    for n in nodes {
        cmd += &format!(" --node {}", spec(keys, n));
    }
    let Some(pid) = TMUX.launch("nodes", &cmd) else {
        println!("tui: SKIPPED: no pane pid");
        return None;
    };
    let start = Instant::now();
    let at = |s: u64| start + Duration::from_secs(s);
    let sleep_until = |t: Instant| std::thread::sleep(t.saturating_duration_since(Instant::now()));
    sleep_until(at(plan.warm_secs));
    let (cpu0, wire0, side0) = (cpu_ticks(pid), wire(), node_side(nodes));
    let t0 = Instant::now();
    sleep_until(at(plan.warm_secs + plan.steady_secs));
    let (cpu1, wire1, side1) = (cpu_ticks(pid), wire(), node_side(nodes));
    let window = t0.elapsed().as_secs_f64();
    let rss = scale::rss_kib(pid);
    let load = fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_default();
    let screen = TMUX.screen("nodes");
    TMUX.quit("nodes");
    if std::env::var("STRATA_BENCH_SHOW").is_ok_and(|v| v == "1") {
        println!("{screen}");
    }
    let live = screen
        .lines()
        .find_map(|l| {
            let i = l.find(" Cluster ·")?;
            Some(l[i..].split(" · n:").next()?.trim().to_string())
        })
        .unwrap_or_else(|| "no cluster line".into());
    let wire = nodes
        .iter()
        .map(|n| {
            let peer = format!("{}:{}", n.ip, n.port);
            let d = wire1
                .iter()
                .filter(|(k, _)| k.1 == peer)
                .filter_map(|(k, b)| Some((b.0 - wire0.get(k)?.0, b.1 - wire0.get(k)?.1)))
                .next()
                .unwrap_or((0, 0));
            (d.0 as f64 / window, d.1 as f64 / window)
        })
        .collect();
    let side: u64 = side1
        .iter()
        .filter_map(|(pid, t)| Some(t - side0.get(pid)?))
        .sum();
    let frames = FrameLog::read(&log, start)?;
    Some(Run {
        cpu_pct: cpu1?.saturating_sub(cpu0?) as f64 / window,
        rss_mib: rss.unwrap_or(0) as f64 / 1024.0,
        frames: frames.stats(plan.warm_secs, plan.warm_secs + plan.steady_secs),
        connecting: frames.stats(0, plan.warm_secs),
        slow: frames.slow(),
        live,
        wire,
        node_cpu_pct: side as f64 / window / nodes.len().max(1) as f64,
        load,
    })
}

fn table(runs: &[(usize, Run)], raw: RawFrame, compression: &str) {
    let base = runs.iter().find(|(n, _)| *n == 0).map(|(_, r)| r.cpu_pct);
    println!();
    println!(
        "| nodes | strata CPU % | per node % | RSS MiB | frames | draw p99 / max ms | wait+draw max ms | >16 ms | B/s from a node (mean, max) | B/s to a node | node's sshd+sampler CPU % |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (n, r) in runs {
        let per_node = match (base, *n) {
            (Some(b), n) if n > 0 => format!("{:.3}", (r.cpu_pct - b) / n as f64),
            _ => "–".into(),
        };
        let recv: Vec<f64> = r.wire.iter().map(|w| w.0).collect();
        let sent: Vec<f64> = r.wire.iter().map(|w| w.1).collect();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let max = recv.iter().copied().fold(0.0, f64::max);
        println!(
            "| {n} | {:.2} | {per_node} | {:.1} | {} | {:.2} / {:.2} | {:.2} | {}{} | {} | {} | {} |",
            r.cpu_pct,
            r.rss_mib,
            r.frames.frames,
            scale::ms(r.frames.draw_p99_us),
            scale::ms(r.frames.draw_max_us),
            scale::ms(r.frames.total_max_us),
            r.frames.over,
            if r.frames.over > 0 { " OVER" } else { "" },
            if *n == 0 {
                "–".into()
            } else {
                format!(
                    "{:.0}, {:.0}{}",
                    mean(&recv),
                    max,
                    if max > BYTES_BUDGET { " OVER" } else { "" }
                )
            },
            if *n == 0 {
                "–".into()
            } else {
                format!("{:.0}", mean(&sent))
            },
            if *n == 0 {
                "–".into()
            } else {
                format!("{:.2}", r.node_cpu_pct)
            },
        );
    }
    println!();
    for (n, r) in runs {
        println!(
            "tui ({n} nodes): {}; load average at the end {}",
            r.live, r.load
        );
        println!("tui ({n} nodes): connecting: {}", r.connecting.line());
        println!("tui ({n} nodes): steady: {}", r.frames.line());
        if !r.slow.is_empty() {
            println!("tui ({n} nodes): frames over 16 ms: {}", r.slow.join("; "));
        }
    }
    let wire: Vec<f64> = runs
        .iter()
        .filter(|(n, _)| *n > 0)
        .flat_map(|(_, r)| r.wire.iter().map(|w| w.0))
        .collect();
    let mean = wire.iter().sum::<f64>() / wire.len().max(1) as f64;
    println!(
        "bytes: a sample frame {} B uncompressed ({:.0} % of it {}), the class frame {} B once; \
         on the wire {:.0} B/s a node (SSH packets, ss's bytes_received): {:.1}× smaller; compression negotiated: {compression}{}",
        raw.bytes,
        raw.parts
            .first()
            .map_or(0.0, |p| 100.0 * p.1 as f64 / raw.bytes.max(1) as f64),
        raw.parts.first().map_or("–", |p| p.0.as_str()),
        raw.class_bytes,
        mean,
        raw.bytes as f64 / mean.max(1.0),
        if raw.bytes as f64 > BYTES_BUDGET {
            " (uncompressed OVER 16 kB)"
        } else {
            ""
        },
    );
}

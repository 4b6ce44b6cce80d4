//! `/metrics` at scale, in process: 8 database nodes of nodes_scale's
//! synthetic trees (100 block devices, 16 interfaces, 8 NFS mounts, the
//! page cache and this machine's CPU files each) and 24 cells × 28 disks,
//! each sampled twice through the real sources, then the exposition made
//! (`Collector::build`, `to_metrics`: what the loop does once a second)
//! and encoded in both formats (what the first scrape after it does; the
//! others are served the cached bytes), 100 times over:
//! - the time of each step (median and max);
//! - the bytes on the wire, plain and gzipped;
//! - what the 1st and the 100th round allocate (a counting allocator):
//!   a scrape that allocates more each time is a leak.
//!
//! ```text
//! cargo bench --bench exposition                        # full run
//! STRATA_BENCH_QUICK=1 cargo bench --bench exposition   # smoke run (CI)
//! ```
//!
//! Then the release binary's screen with `--listen`, in tmux, this host
//! at 1 s, recording: a quiet window, then one as long with 50 scrapes a
//! second and two clients that hang (one sends half a request, one never
//! reads its answer): the frames' times (STRATA_FRAME_LOG), the sampling
//! cadence (each interval of the recording, from `strata export`) and
//! strata's CPU, window by window. A scraper must change none of them.
//!
//! Benchmarks report, they do not gate: a figure over its budget (5 ms a
//! scrape, 2 MB on the wire) is marked OVER and the exit status stays 0.

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/layers.rs"]
mod layers;
#[path = "scale/many_disks.rs"]
mod many_disks;
// nodes_scale's trees; their generator thread is not used here
#[allow(dead_code)]
#[path = "scale/node_tree.rs"]
mod node_tree;
#[path = "../tests/peer_tools/mod.rs"]
mod peer_tools;
#[path = "scale/mod.rs"]
mod scale;
#[path = "../tests/sshd/mod.rs"]
mod sshd;

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use strata::app::App;
use strata::app::input::{Input, NodeInput, NodeWrap};
use strata::config::Config;
use strata::core::duration::Interval;
use strata::core::host::HostInfo;
use strata::core::rootfs::RootFs;
use strata::expose::{Collector, to_metrics};
use strata::layers::cells::source::CellEvent;
use strata::layers::disks::source::DiskSource;
use strata::layers::host::{HostOptions, HostSources};
use strata::link::HostStatus;
use strata::link::target::{HostTarget, NodeTarget, parse_ssh_spec};
use strata::metrics::encode::{Format, to_bytes};
use strata::theme::Theme;

/// Counts what is allocated, to compare one round's with another's.
struct Counting;

static ALLOCATED: AtomicU64 = AtomicU64::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed to the system allocator unchanged; the
// counters are only added to.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size() as u64, Ordering::Relaxed);
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const NODES: usize = 8;
const CELLS: usize = 24;
const CELL_DISKS: usize = 28;

fn main() {
    let quick = std::env::var("STRATA_BENCH_QUICK").is_ok_and(|v| v == "1");
    in_process(quick);
    flooded_screen(if quick { 4 } else { 30 });
}

fn in_process(quick: bool) {
    let rounds = if quick { 5 } else { 100 };
    let dir = tempfile::tempdir().unwrap();
    let (app, last) = fleet(dir.path());
    let newest = || last.values();
    let now = strata::core::clock::now_ms();

    let mut collector = Collector::default();
    let mut build = Vec::new();
    let mut convert = Vec::new();
    let mut om = Vec::new();
    let mut text = Vec::new();
    let mut allocs = Vec::new();
    let mut sizes = (0, 0, 0);
    for _ in 0..rounds {
        let (b0, n0) = (
            ALLOCATED.load(Ordering::Relaxed),
            ALLOCATIONS.load(Ordering::Relaxed),
        );
        let t = Instant::now();
        let e = collector.build(&app, newest(), now);
        build.push(t.elapsed());
        let t = Instant::now();
        let m = Arc::new(to_metrics(&e));
        convert.push(t.elapsed());
        let t = Instant::now();
        let o = to_bytes(&m, Format::OpenMetrics);
        om.push(t.elapsed());
        let t = Instant::now();
        let p = to_bytes(&m, Format::Text);
        text.push(t.elapsed());
        allocs.push((
            ALLOCATED.load(Ordering::Relaxed) - b0,
            ALLOCATIONS.load(Ordering::Relaxed) - n0,
        ));
        sizes = (o.len(), p.len(), m.len());
    }
    if std::env::var("STRATA_BENCH_FAMILIES").is_ok() {
        breakdown(&collector.build(&app, newest(), now));
    }
    let gz = {
        let m = Arc::new(to_metrics(&collector.build(&app, newest(), now)));
        let plain = to_bytes(&m, Format::OpenMetrics);
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&plain).unwrap();
        z.finish().unwrap().len()
    };
    println!(
        "exposition of {NODES} nodes (100 devices, 16 interfaces, 8 mounts each) and {CELLS} cells × {CELL_DISKS} disks: {} series, {rounds} rounds",
        sizes.2
    );
    report("build (loop, once a second)", &mut build, None);
    report("to the server's model", &mut convert, None);
    report(
        "encode OpenMetrics (first scrape)",
        &mut om,
        Some(Duration::from_millis(5)),
    );
    report(
        "encode 0.0.4 text (first scrape)",
        &mut text,
        Some(Duration::from_millis(5)),
    );
    let mb = |b: usize| b as f64 / 1e6;
    let over = |b: usize| if b > 2_000_000 { "  OVER 2 MB" } else { "" };
    println!(
        "  on the wire: OpenMetrics {:.2} MB{}, 0.0.4 {:.2} MB{}, OpenMetrics gzipped {:.2} MB",
        mb(sizes.0),
        over(sizes.0),
        mb(sizes.1),
        over(sizes.1),
        mb(gz)
    );
    let (first, last_round) = (allocs[0], allocs[allocs.len() - 1]);
    // The same fleet each round: a round that allocates more than the
    // first holds on to something.
    println!(
        "  allocated, round 1: {} allocations, {} bytes; round {rounds}: {} allocations, {} bytes{}",
        first.1,
        first.0,
        last_round.1,
        last_round.0,
        if last_round.1 > first.1 {
            "  OVER: more than the first"
        } else {
            ""
        }
    );
}

/// Series and bytes by family prefix (`STRATA_BENCH_FAMILIES=1`): what
/// the wire's bytes are made of.
fn breakdown(e: &strata::expose::Exposition) {
    let mut by: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for s in e {
        let key = s
            .family
            .name
            .split('_')
            .take(3)
            .collect::<Vec<_>>()
            .join("_");
        let line = |x: &strata::expose::Sample| {
            s.family.name.len()
                + x.labels
                    .iter()
                    .map(|(k, v)| k.len() + v.len() + 4)
                    .sum::<usize>()
                + 12
        };
        let b = by.entry(key).or_default();
        b.0 += s.samples.len();
        b.1 += s.samples.iter().map(line).sum::<usize>();
    }
    for (k, (n, b)) in by {
        println!("  {k}: {n} series, {b} bytes");
    }
}

fn report(what: &str, times: &mut [Duration], budget: Option<Duration>) {
    times.sort();
    let med = times[times.len() / 2];
    let max = times[times.len() - 1];
    let over = budget.is_some_and(|b| med > b);
    println!(
        "  {what}: median {:.2} ms, max {:.2} ms{}",
        med.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
        if over { "  OVER" } else { "" }
    );
}

/// The app of 8 live nodes and 24 live cells, each sampled twice, and
/// the newest sample of each stream, as the loop keeps them.
fn fleet(dir: &std::path::Path) -> (App, BTreeMap<String, Input>) {
    let host = HostInfo {
        hostname: "jump".into(),
        kernel: "5.15".into(),
    };
    let mut app = App::new(
        Config::default(),
        Theme::default(),
        host,
        Interval::ONE_SECOND,
    );
    let nodes = (0..NODES)
        .map(|i| {
            NodeTarget::Remote(parse_ssh_spec(&format!("oracle@exadb{i:02}"), "oracle").unwrap())
        })
        .collect();
    app.set_nodes(nodes);
    let cells: Vec<HostTarget> = (0..CELLS)
        .map(|i| {
            let mut t = parse_ssh_spec(&format!("celladmin@exacel{i:02}"), "celladmin").unwrap();
            t.label = format!("exacel{i:02}");
            t
        })
        .collect();
    app.set_cells(cells);
    let mut last = BTreeMap::new();
    let mut feed = |app: &mut App, input: Input| {
        if app.apply_sample(&input) {
            last.insert(input.stream(), input);
        } else {
            app.apply(input);
        }
    };
    for node in 0..NODES {
        feed(
            &mut app,
            Input::NodeStatus {
                node,
                status: HostStatus::Live,
            },
        );
    }
    for cell in 0..CELLS {
        feed(
            &mut app,
            Input::Cell(CellEvent::Status {
                cell,
                status: HostStatus::Live,
            }),
        );
    }
    let templates = node_tree::Templates::read();
    let trees: Vec<_> = (0..NODES).map(|i| dir.join(format!("node{i}"))).collect();
    let mut readers: Vec<_> = trees
        .iter()
        .enumerate()
        .map(|(i, t)| {
            node_tree::make(t, i, &templates);
            HostSources::new(RootFs::new(t.clone()), &HostOptions::default()).readers(NodeWrap)
        })
        .collect();
    let mut disks: Vec<(many_disks::ManyDisks, DiskSource)> = (0..CELLS)
        .map(|j| {
            let root = dir.join(format!("cell{j}"));
            let m = many_disks::ManyDisks::new(&root, CELL_DISKS);
            (m, DiskSource::new(RootFs::new(root)))
        })
        .collect();
    for k in 0..2u64 {
        let wall = strata::core::clock::now_ms() + k as i64 * 1000;
        for (i, t) in trees.iter().enumerate() {
            node_tree::write_counters(t, i, k, &templates);
            for (_, read) in &mut readers[i] {
                let input: NodeInput = read(wall);
                feed(&mut app, Input::Node { node: i, input });
            }
        }
        for (cell, (m, source)) in disks.iter_mut().enumerate() {
            m.advance(100);
            let sample = source.sample(wall).unwrap();
            feed(&mut app, Input::Cell(CellEvent::Sample { cell, sample }));
        }
    }
    (app, last)
}

const TMUX: scale::Tmux = scale::Tmux("strata-exposition");

/// The screen with `--listen`, quiet for `secs`, then flooded for `secs`.
fn flooded_screen(secs: u64) {
    if std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_err()
    {
        println!("screen under a scrape flood: SKIPPED: no tmux");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("frames.log");
    let rec = dir.path().join("run.strec");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
    let cmd = format!(
        "exec env {}={} HOME={} {} --interval 1 --listen {port} --record {}",
        strata::frame_log::VAR,
        log.display(),
        dir.path().display(),
        env!("CARGO_BIN_EXE_strata"),
        rec.display()
    );
    let Some(pid) = TMUX.launch("flood", &cmd) else {
        println!("screen under a scrape flood: SKIPPED: no pane pid");
        return;
    };
    let start = Instant::now();
    let at = |s: u64| start + Duration::from_secs(s);
    let sleep_until = |t: Instant| std::thread::sleep(t.saturating_duration_since(Instant::now()));
    let warm = 3;
    sleep_until(at(warm));
    let cpu0 = scale::cpu_ticks(pid);
    let quiet_ms = strata::core::clock::now_ms();
    sleep_until(at(warm + secs));
    let cpu1 = scale::cpu_ticks(pid);
    let flood_ms = strata::core::clock::now_ms();
    // two that hang: half a request, and a request whose answer is never read
    let mut half = std::net::TcpStream::connect(addr).unwrap();
    half.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let mut unread = std::net::TcpStream::connect(addr).unwrap();
    unread
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let (scrapes, bytes, slowest) = flood(addr, at(warm + 2 * secs), secs);
    let cpu2 = scale::cpu_ticks(pid);
    let end_ms = strata::core::clock::now_ms();
    TMUX.quit("flood");
    drop((half, unread));
    std::thread::sleep(Duration::from_secs(1));
    println!(
        "screen with --listen, {secs} s quiet then {secs} s of {scrapes} scrapes ({:.1} a second, {} kB each, slowest {:.1} ms) and two hung clients:",
        scrapes as f64 / secs as f64,
        bytes / scrapes.max(1) as usize / 1024,
        slowest.as_secs_f64() * 1e3
    );
    let Some(frames) = scale::FrameLog::read(&log, start) else {
        println!("  no frame log");
        return;
    };
    let cadence = intervals(&rec);
    for (name, from, to, a, b, t0, t1) in [
        ("quiet", warm, warm + secs, cpu0, cpu1, quiet_ms, flood_ms),
        (
            "flooded",
            warm + secs,
            warm + 2 * secs,
            cpu1,
            cpu2,
            flood_ms,
            end_ms,
        ),
    ] {
        let cpu = match (a, b) {
            (Some(a), Some(b)) => format!("{:.2} %", (b - a) as f64 / secs as f64),
            _ => "–".into(),
        };
        // timestamps are whole seconds: a second's slack at each end
        let itv: Vec<f64> = cadence
            .iter()
            .filter(|(ms, _)| *ms >= t0 && *ms + 1000 <= t1)
            .map(|(_, s)| *s)
            .collect();
        let lo = itv.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = itv.iter().copied().fold(0.0, f64::max);
        println!(
            "  {name}: {}; {} samples, intervals {lo:.2}–{hi:.2} s; strata's CPU {cpu}",
            frames.stats(from, to).line(),
            itv.len()
        );
    }
}

/// 50 scrapes a second until `stop`: how many, their bytes, the slowest.
fn flood(addr: std::net::SocketAddr, stop: Instant, secs: u64) -> (u64, usize, Duration) {
    let mut scrapes = 0u64;
    let mut bytes = 0usize;
    let mut slowest = Duration::ZERO;
    let mut next = Instant::now();
    while Instant::now() < stop && scrapes < 50 * (secs + 2) {
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        next += Duration::from_millis(20);
        let t = Instant::now();
        bytes += scrape(addr);
        slowest = slowest.max(t.elapsed());
        scrapes += 1;
    }
    (scrapes, bytes, slowest)
}

/// One scrape of `/metrics` as Prometheus asks: the bytes of the answer.
fn scrape(addr: std::net::SocketAddr) -> usize {
    use std::io::Read as _;
    let Ok(mut s) = std::net::TcpStream::connect(addr) else {
        return 0;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let req = "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text;version=1.0.0\r\nConnection: close\r\n\r\n";
    if s.write_all(req.as_bytes()).is_err() {
        return 0;
    }
    let mut body = Vec::new();
    let _ = s.read_to_end(&mut body);
    body.len()
}

/// `YYYY-MM-DDTHH:MM:SS+HHMM` as ms since the epoch.
fn epoch_ms(ts: &str) -> Option<i64> {
    let n = |a: usize, b: usize| ts.get(a..b)?.parse::<i64>().ok();
    let (y, m, d) = (n(0, 4)?, n(5, 7)?, n(8, 10)?);
    let secs = n(11, 13)? * 3600 + n(14, 16)? * 60 + n(17, 19)?;
    let sign = if ts.get(19..20)? == "-" { -1 } else { 1 };
    let off = sign * (n(20, 22)? * 3600 + n(22, 24)? * 60);
    // days from the civil date (Howard Hinnant's algorithm)
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + secs - off) * 1000)
}

/// (wall ms, interval s) of each CPU interval the recording holds.
fn intervals(rec: &std::path::Path) -> Vec<(i64, f64)> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(["export", "--panel", "cpu", "--format", "json"])
        .arg(rec)
        .output();
    let Ok(out) = out else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let ts = v.get("timestamp")?.as_str()?;
            Some((epoch_ms(ts)?, v.get("interval_s")?.as_f64()?))
        })
        .collect()
}

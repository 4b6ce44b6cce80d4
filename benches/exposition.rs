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

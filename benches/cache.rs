//! What a page-cache tick costs: `CacheSource::sample` (/proc/uptime,
//! /proc/meminfo, /proc/vmstat and the residency of every watched file)
//! plus `CacheBaseline::tick`, with cachestat(2) and with the mincore(2)
//! fallback.
//!
//! ```text
//! cargo bench --bench cache                 # full run
//! STRATA_BENCH_QUICK=1 cargo bench --bench cache   # smoke run (CI)
//! ```
//!
//! 1. 100 sparse files of 1 GiB (100 GiB in all, no disk used, nothing
//!    cached): the cost of looking at a large file set whose pages are not
//!    in the cache. mincore must still be asked about every page; cachestat
//!    skips the holes of the cache's tree.
//! 2. 100 files of real data, written, synced and left in the cache (1 GiB
//!    in all; 100 MiB in quick mode): the cost of counting cached pages.
//! 3. Whether the scan itself brought any page in (it must not).
//!
//! Benchmarks report, they do not gate: a figure over its budget is marked
//! OVER and the exit status stays 0.

#![allow(clippy::expect_used)]

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};
use strata::core::rootfs::RootFs;
use strata::layers::cache::model::CacheBaseline;
use strata::layers::cache::residency::{self, Method};
use strata::layers::cache::source::CacheSource;

const FILES: usize = 100;
const SPARSE_FILE_BYTES: u64 = 1 << 30;
/// Per-tick budget with cachestat for 100 files of 100 GiB.
const BUDGET_MS: f64 = 50.0;

struct Plan {
    quick: bool,
    /// Timed ticks with cachestat, and with mincore (slower on sparse files).
    cachestat_ticks: usize,
    mincore_ticks: usize,
    cached_file_bytes: u64,
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick")
        || std::env::var("STRATA_BENCH_QUICK").is_ok_and(|v| v == "1");
    let plan = if quick {
        Plan {
            quick,
            cachestat_ticks: 10,
            mincore_ticks: 2,
            cached_file_bytes: 1 << 20,
        }
    } else {
        Plan {
            quick,
            cachestat_ticks: 200,
            mincore_ticks: 10,
            cached_file_bytes: 10 << 20,
        }
    };
    let started = Instant::now();
    // The target directory is on the same disk-backed file system the
    // tests use; tmpfs would hold the "real data" in memory anyway.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("bench dir");
    let mut rows: Vec<[String; 4]> = Vec::new();

    eprintln!("sparse: {FILES} files of 1 GiB…");
    let sparse = dir.path().join("sparse");
    make_files(&sparse, SPARSE_FILE_BYTES, false);
    let pattern = format!("{}/*.dbf", sparse.display());
    for (method, ticks) in [
        (Method::Cachestat, plan.cachestat_ticks),
        (Method::Mincore, plan.mincore_ticks),
    ] {
        let t = time_ticks(&pattern, method, ticks);
        let budget = (method == Method::Cachestat).then_some(BUDGET_MS);
        rows.push(row(
            &format!("tick, {FILES} sparse files, 100 GiB, {}", method.label()),
            &t,
            budget,
        ));
    }
    let brought_in = cached_pages(&pattern);
    rows.push([
        "pages of the sparse files cached after all those scans".into(),
        brought_in.to_string(),
        "must stay 0: the scan reads no data".into(),
        if brought_in == 0 { "PASS" } else { "FAIL" }.into(),
    ]);

    let mib = plan.cached_file_bytes >> 20;
    eprintln!("cached: {FILES} files of {mib} MiB…");
    let real = dir.path().join("real");
    make_files(&real, plan.cached_file_bytes, true);
    let pattern = format!("{}/*.dbf", real.display());
    let pages = cached_pages(&pattern);
    for (method, ticks) in [
        (Method::Cachestat, plan.cachestat_ticks),
        (Method::Mincore, plan.cachestat_ticks),
    ] {
        let t = time_ticks(&pattern, method, ticks);
        rows.push(row(
            &format!(
                "tick, {FILES} files of {mib} MiB, {pages} pages cached, {}",
                method.label()
            ),
            &t,
            None,
        ));
    }

    println!();
    println!("{}", machine(&plan));
    println!();
    print!("{}", markdown(&rows));
    println!();
    println!(
        "A tick is CacheSource::sample + CacheBaseline::tick: /proc reads and parsing included, \
         pattern expansion not (it runs every 10 s). Took {:.1} s.",
        started.elapsed().as_secs_f64()
    );
}

/// `FILES` files of `bytes` each under `dir`: holes only, or real data
/// written, synced (so not dirty) and left in the cache.
fn make_files(dir: &Path, bytes: u64, data: bool) {
    std::fs::create_dir_all(dir).expect("mkdir");
    let chunk: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251 + 1) as u8).collect();
    for i in 0..FILES {
        let path = dir.join(format!("data{i:03}.dbf"));
        let mut f = File::create(&path).expect("create");
        if data {
            let mut left = bytes;
            while left > 0 {
                let n = left.min(chunk.len() as u64) as usize;
                f.write_all(&chunk[..n]).expect("write");
                left -= n as u64;
            }
            f.sync_all().expect("fsync");
        } else {
            f.set_len(bytes).expect("set_len");
        }
    }
}

/// Cached pages of the files `pattern` matches, by cachestat (or mincore
/// on an older kernel).
fn cached_pages(pattern: &str) -> u64 {
    let mut src = CacheSource::new(RootFs::default(), vec![pattern.to_string()]);
    let s = src.sample(0).expect("sample");
    s.files
        .iter()
        .filter_map(|f| f.result.as_ref().ok())
        .map(|r| r.pages.cached)
        .sum()
}

/// Durations of `n` ticks after a first, untimed one (which expands the
/// pattern and opens the baseline).
fn time_ticks(pattern: &str, method: Method, n: usize) -> Vec<Duration> {
    let mut src = CacheSource::new(RootFs::default(), vec![pattern.to_string()]);
    src.force_method(method);
    let mut base = CacheBaseline::default();
    let first = src.sample(0).expect("sample");
    let errors = first.files.iter().filter(|f| f.result.is_err()).count();
    assert_eq!(errors, 0, "{:?}", first.files.first());
    assert_eq!(first.files.len(), FILES);
    base.tick(&first);
    (0..n)
        .map(|_| {
            let t0 = Instant::now();
            let s = src.sample(0).expect("sample");
            let tick = base.tick(&s);
            let d = t0.elapsed();
            std::hint::black_box(tick);
            d
        })
        .collect()
}

/// Median and worst of `t`, in ms.
fn median_max(t: &[Duration]) -> (f64, f64) {
    let mut ms: Vec<f64> = t.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], ms[ms.len() - 1])
}

fn row(what: &str, t: &[Duration], budget_ms: Option<f64>) -> [String; 4] {
    let (median, max) = median_max(t);
    let verdict = match budget_ms {
        Some(b) if median <= b && max <= b => "PASS".to_string(),
        Some(b) if median <= b => "PASS (max OVER)".to_string(),
        Some(_) => "OVER".to_string(),
        None => "–".to_string(),
    };
    [
        what.to_string(),
        format!("{median:.2} ms median, {max:.2} ms max ({} ticks)", t.len()),
        budget_ms.map_or("–".to_string(), |b| format!("≤ {b:.0} ms")),
        verdict,
    ]
}

fn markdown(rows: &[[String; 4]]) -> String {
    let head = ["Measure", "Figure", "Budget", "Result"].map(String::from);
    let mut widths = [0usize; 4];
    for r in std::iter::once(&head).chain(rows) {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let fmt = |r: &[String; 4]| -> String {
        let cells: Vec<String> = r
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let rule = widths.map(|w| "-".repeat(w));
    let mut out = fmt(&head);
    out.push_str(&fmt(&rule));
    for r in rows {
        out.push_str(&fmt(r));
    }
    out
}

fn machine(plan: &Plan) -> String {
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "?".into());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "Machine: {nproc} CPUs · Linux {kernel} · {} pages · {} build · {} mode",
        residency::page_size(),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        if plan.quick { "quick" } else { "full" }
    )
}

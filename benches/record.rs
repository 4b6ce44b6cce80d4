//! Size and seek of recordings, through the real recorder and player.
//!
//! cargo bench --bench record                       # docs/performance.md's figures
//! STRATA_BENCH_QUICK=1 cargo bench --bench record  # smoke run (CI)
//! STRATA_BENCH_DAY=/tmp/day.strec cargo bench --bench record
//!                          # keeps the day-long file there and, when it is
//!                          # there already, measures the jump on it alone
//! STRATA_BENCH_FIRST=5000,20000 STRATA_BENCH_FIRST_ONLY=1 cargo bench --bench record
//!                          # the recorder's first tick at those device
//!                          # counts (5k, 20k and 100k by default), alone;
//!                          # STRATA_BENCH_CHURN=5,10 the churning recordings'
//!                          # lengths in seconds (60, 120 and 240 by default);
//!                          # STRATA_BENCH_CHURN_MINUTES=15,30,60 adds
//!                          # recordings of those minutes at 100 new names
//!                          # a second (none by default)
//! STRATA_BENCH_CHURN_DAY=24 cargo bench --bench record
//!                          # alone: memory over 24 h of 12 new device names
//!                          # and 12 new interface names a second, fed to the
//!                          # recorder and an app at once; with
//!                          # STRATA_BENCH_CHURN_HISTORY=600 (seconds) and
//!                          # STRATA_BENCH_CHURN_MEMORY_MIB=16 another
//!                          # history window and budget than the defaults
//!
//! A host of 76 block devices sampled once a second, on the workload of
//! the reference's format comparison (../shared/reference/crates.md §8):
//! 30% of the devices idle, every other counter's rate random-walking
//! ±10/s from a random start, the queue depth walking ±1; plus the loop's
//! clock. The recorder makes a
//! series of each number; the bench prints how many, the file's size per
//! hour and per sample, and the time to open a day-long file and show its
//! last minute (Player::open, then Replayer's jump to the end, which
//! rebuilds the figures from the 300 samples before it). First, the CPU
//! of the recorder's first tick of 5k, 20k and 100k devices, where every
//! series is new; then the summary and export of recordings where 550
//! device names are new every second (1100 devices, each living two
//! seconds).

#![allow(clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;
use strata::app::{App, Input};
use strata::config::Config;
use strata::core::host::HostInfo;
use strata::core::host::SelfUsage;
use strata::layers::disks::diskstats::DiskCounters;
use strata::layers::disks::source::DiskSample;
use strata::recording::control::meta_of;
use strata::recording::session::{Player, Recorder};
use strata::replay::Replayer;
use strata::theme::Theme;

const T0: i64 = 1_795_000_000_000;
const DEVICES: usize = 76;
/// The counters of a device that move, in [`Host::step`]'s order.
const MOVING: usize = 10;

struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

struct Host {
    devs: Vec<DiskCounters>,
    rates: Vec<[i64; MOVING]>,
    rng: Rng,
}

impl Host {
    fn new() -> Host {
        Host::with_devices(DEVICES)
    }

    fn with_devices(devices: usize) -> Host {
        let devs = (0..devices)
            .map(|i| DiskCounters {
                major: 8,
                minor: 16 * i as u32,
                // The day's names as they were; a many-device host's
                // would grow with its count.
                name: if devices <= DEVICES {
                    format!("sd{}", (b'a' + (i % 26) as u8) as char) + &"a".repeat(i / 26)
                } else {
                    format!("sd{i}")
                },
                rd_ios: 1_000_000 * i as u64,
                wr_ios: 700_000 * i as u64,
                ..DiskCounters::default()
            })
            .collect();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let rates = (0..devices)
            .map(|i| std::array::from_fn(|_| if i % 10 < 3 { 0 } else { rng.next(5000) as i64 }))
            .collect();
        Host { devs, rates, rng }
    }

    fn sample(&mut self, k: i64) -> DiskSample {
        for (i, d) in self.devs.iter_mut().enumerate() {
            let idle = i % 10 < 3;
            let rate = &mut self.rates[i];
            if !idle {
                for r in rate.iter_mut() {
                    *r = (*r + self.rng.next(21) as i64 - 10).max(0);
                }
                d.ios_pgr =
                    (i64::from(d.ios_pgr) + self.rng.next(3) as i64 - 1).clamp(0, 64) as u32;
            }
            let r = |j: usize| rate[j] as u64;
            d.rd_ios += r(0);
            d.rd_merges += r(1);
            d.rd_sectors += r(2);
            d.rd_ticks = d.rd_ticks.wrapping_add(r(3) as u32);
            d.wr_ios += r(4);
            d.wr_merges += r(5);
            d.wr_sectors += r(6);
            d.wr_ticks = d.wr_ticks.wrapping_add(r(7) as u32);
            d.tot_ticks = d.tot_ticks.wrapping_add(r(8) as u32);
            d.rq_ticks = d.rq_ticks.wrapping_add(r(9) as u32);
        }
        DiskSample {
            uptime_cs: 100_000 + k as u64 * 100,
            wall_ms: T0 + k * 1000 + 2,
            devices: self.devs.clone(),
            rejected: Vec::new(),
            catalogue: Arc::new(BTreeMap::new()),
        }
    }
}

fn app() -> App {
    let host = HostInfo {
        hostname: "bench".into(),
        kernel: "6.18".into(),
    };
    App::new(
        Config::default(),
        Theme::default(),
        host,
        strata::core::duration::Interval::ONE_SECOND,
    )
}

/// Records `secs` seconds; returns (series, bytes, seconds spent).
fn record(path: &std::path::Path, secs: i64) -> (usize, u64, f64) {
    let mut host = Host::new();
    let mut rec = Recorder::create(path, &meta_of(&app(), T0)).expect("create");
    let start = Instant::now();
    let mut series = 0;
    for k in 0..secs {
        let input = Input::Disks(Ok(host.sample(k)));
        if k == 0 {
            let mut n = 0;
            let tree = serde_json::to_value(&input).expect("json");
            strata::recfile::shape::split(
                &tree,
                "",
                &mut |_, _| {
                    n += 1;
                    n
                },
                &mut Vec::new(),
            );
            series = n as usize;
        }
        rec.record(T0 + k * 1000 + 3, &input).expect("record");
        let clock = Input::Clock {
            now_ms: T0 + k * 1000 + 900,
            usage: SelfUsage {
                cpu_pct: Some(0.5 + (k % 7) as f64 / 10.0),
                rss_bytes: Some(30 << 20),
                ..SelfUsage::default()
            },
        };
        rec.record(T0 + k * 1000 + 900, &clock).expect("record");
    }
    rec.close().expect("close");
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    (series + 3, bytes, start.elapsed().as_secs_f64())
}

/// CPU seconds of this thread (the recorder runs on the caller's).
fn cpu_s() -> f64 {
    strata::core::sys::thread_cpu_time()
        .map_or(f64::NAN, |t| t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
}

/// The recorder's first tick of a host of `devices` devices: every series
/// is new then. CPU seconds of the first disk sample, then of the second
/// (its shape known), and the file's size.
fn first_tick(dir: &std::path::Path, devices: usize) -> (f64, f64, u64) {
    let mut host = Host::with_devices(devices);
    let path = dir.join(format!("first-{devices}.strec"));
    let mut rec = Recorder::create(&path, &meta_of(&app(), T0)).expect("create");
    let first = host.sample(0);
    let second = host.sample(1);
    let start = cpu_s();
    rec.record(T0 + 3, &Input::Disks(Ok(first)))
        .expect("record");
    let mid = cpu_s();
    rec.record(T0 + 1003, &Input::Disks(Ok(second)))
        .expect("record");
    let end = cpu_s();
    rec.close().expect("close");
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    // Both samples read back: a recording the reader refuses is no figure.
    let mut player = Player::open(&path).expect("open");
    let disks = std::iter::from_fn(|| player.next_input())
        .filter(|(_, i)| matches!(i, Input::Disks(Ok(_))))
        .count();
    assert_eq!(disks, 2, "{devices} devices: {:?}", player.notices);
    let _ = std::fs::remove_file(&path);
    (mid - start, end - mid, bytes)
}

/// Devices that come and go in [`churn`], beside the host's: each lives
/// two samples, so half of them are new names each second (550).
const CHURN: usize = 1100;

/// The same for the churning hours: 100 new names a second.
const CHURN_HOUR: usize = 200;

/// Records `secs` seconds of the host's devices and `devices` more, each
/// living two samples (so it has rates once): `devices / 2` new names a
/// second. Fed at once, not in real time.
fn churn(path: &std::path::Path, secs: i64, devices: usize) {
    let mut host = Host::new();
    let mut rec = Recorder::create(path, &meta_of(&app(), T0)).expect("create");
    for k in 0..secs {
        let mut sample = host.sample(k);
        for j in 0..devices as i64 {
            let n = k * devices as i64 / 2 + j;
            sample.devices.push(DiskCounters {
                major: 259,
                minor: (n % 1_000_000) as u32,
                name: format!("nvme{n}"),
                rd_ios: (k * 100 + j) as u64,
                rd_ticks: (k * 50) as u32,
                tot_ticks: (k * 500) as u32,
                ..DiskCounters::default()
            });
        }
        rec.record(T0 + k * 1000 + 3, &Input::Disks(Ok(sample)))
            .expect("record");
        let clock = Input::Clock {
            now_ms: T0 + k * 1000 + 900,
            usage: SelfUsage::default(),
        };
        rec.record(T0 + k * 1000 + 900, &clock).expect("record");
    }
    rec.close().expect("close");
}

/// CPU seconds of the summary and of the disks' CSV export of `path`.
fn summary_and_export(path: &std::path::Path) -> (f64, f64) {
    use strata::export::cmd::{ExportArgs, run_export, run_summary};
    use strata::layers::report::Format;
    let (mut out, mut err) = (std::io::sink(), std::io::sink());
    let start = cpu_s();
    run_summary(path, None, None, None, Format::Text, &mut out, &mut err);
    let mid = cpu_s();
    let args = ExportArgs {
        format: Some(Format::Csv),
        panel: Some(strata::layers::LayerId::Disks),
        ..ExportArgs::default()
    };
    run_export(path, &args, &mut out, &mut err);
    (mid - start, cpu_s() - mid)
}

/// Resident memory of this process, in MB (/proc/self/statm).
fn rss_mb() -> f64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<f64>().ok())
        .unwrap_or(f64::NAN);
    pages * 4096.0 / 1e6
}

/// The 24 names of second `k` of a churning host, 12 of them new (each
/// lives two seconds), with a counter that moves.
fn churning(k: i64, prefix: &str) -> impl Iterator<Item = (i64, String, u64)> + '_ {
    (0..24).map(move |j| {
        let n = (k - j % 2) * 12 + j / 2;
        (n, format!("{prefix}{n}"), (k * 10 + j) as u64)
    })
}

/// `hours` of a host whose devices and interfaces are renamed at 12 new
/// names a second each (24 of each, each living two seconds), fed at once
/// (not in real time) to the recorder and to an app as the TUI's, under
/// the config's history window and budget or those of the environment:
/// resident memory, the names the app's layers hold, the bytes its charts
/// reserve, the series the recorder holds and the file's size at each
/// mark.
fn churn_day(dir: &std::path::Path, hours: i64) {
    use strata::layers::nics::netdev::NetDevCounters;
    use strata::layers::nics::source::{NicReading, NicSample};
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let mut config = Config::default();
    if let Some(secs) = env("STRATA_BENCH_CHURN_HISTORY") {
        config.history_secs = secs;
    }
    if let Some(mib) = env("STRATA_BENCH_CHURN_MEMORY_MIB") {
        config.history_memory = mib << 20;
    }
    println!(
        "churn day: history {} s, history_memory {} MiB",
        config.history_secs,
        config.history_memory >> 20
    );
    let path = dir.join("churn-day.strec");
    let host = HostInfo {
        hostname: "bench".into(),
        kernel: "6.18".into(),
    };
    let mut app = App::new(
        config,
        Theme::default(),
        host,
        strata::core::duration::Interval::ONE_SECOND,
    );
    let mut rec = Recorder::create(&path, &meta_of(&app, T0)).expect("create");
    let marks = [1, 2, 6, 12, 24]
        .map(|h| h * 3600)
        .map(|s: i64| s.min(hours * 3600));
    let start = Instant::now();
    for k in 0..hours * 3600 {
        let nics = NicSample {
            uptime_cs: 100_000 + k as u64 * 100,
            wall_ms: T0 + k * 1000 + 2,
            nics: churning(k, "veth")
                .map(|(_, name, bytes)| NicReading {
                    counters: NetDevCounters::from_values(&name, [bytes; 16]),
                    link: Default::default(),
                })
                .collect(),
            bonds: Vec::new(),
            routes: Vec::new(),
            rejected: Vec::new(),
            catalogue: Default::default(),
        };
        let input = Input::Nics(Ok(nics));
        rec.record(T0 + k * 1000 + 3, &input).expect("record");
        app.apply(input);
        let devices = churning(k, "sd")
            .map(|(n, name, rd_ios)| DiskCounters {
                major: 8,
                minor: (n % 1_000_000) as u32,
                name,
                rd_ios,
                ..DiskCounters::default()
            })
            .collect();
        let sample = DiskSample {
            uptime_cs: 100_000 + k as u64 * 100,
            wall_ms: T0 + k * 1000 + 2,
            devices,
            rejected: Vec::new(),
            catalogue: Arc::new(BTreeMap::new()),
        };
        let input = Input::Disks(Ok(sample));
        let at = T0 + k * 1000 + 3;
        rec.record(at, &input).expect("record");
        app.apply(input);
        let clock = Input::Clock {
            now_ms: T0 + k * 1000 + 900,
            usage: SelfUsage::default(),
        };
        rec.record(T0 + k * 1000 + 900, &clock).expect("record");
        app.apply(clock);
        if marks.contains(&(k + 1)) {
            println!(
                "churn day: {:>2} h, {} names seen: {:.1} MB resident, {} names held by the app, {:.1} MB of charts reserved, {} series held by the recorder, file {:.1} MB ({:.0} s)",
                (k + 1) / 3600,
                (k + 1) * 24,
                rss_mb(),
                app.local.names_held(),
                app.history_budget().reserved() as f64 / 1e6,
                rec.series_held(),
                rec.bytes() as f64 / 1e6,
                start.elapsed().as_secs_f64()
            );
        }
    }
    rec.close().expect("close");
    let _ = std::fs::remove_file(&path);
}

fn main() {
    let quick = std::env::var("STRATA_BENCH_QUICK").is_ok_and(|v| v == "1");
    let dir = std::env::temp_dir().join(format!("strata-bench-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    if let Ok(hours) = std::env::var("STRATA_BENCH_CHURN_DAY") {
        churn_day(&dir, hours.parse().unwrap_or(24));
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let sizes: Vec<usize> = match std::env::var("STRATA_BENCH_FIRST") {
        Ok(list) => list.split(',').filter_map(|n| n.parse().ok()).collect(),
        Err(_) if quick => vec![5_000],
        Err(_) => vec![5_000, 20_000, 100_000],
    };
    for devices in sizes {
        let (first, second, bytes) = first_tick(&dir, devices);
        println!(
            "record: first tick of {devices} devices: {first:.2} s of CPU (the next: {second:.2} s; file {:.1} MB)",
            bytes as f64 / 1e6
        );
    }
    let lengths: Vec<i64> = match std::env::var("STRATA_BENCH_CHURN") {
        Ok(list) => list.split(',').filter_map(|n| n.parse().ok()).collect(),
        Err(_) if quick => vec![10],
        Err(_) => vec![60, 120, 240],
    };
    // The churning hours: opt-in, an hour and three quarters recorded.
    let minutes: Vec<i64> = std::env::var("STRATA_BENCH_CHURN_MINUTES")
        .map(|list| list.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_default();
    let runs = lengths
        .into_iter()
        .map(|secs| (secs, CHURN))
        .chain(minutes.into_iter().map(|m| (m * 60, CHURN_HOUR)));
    for (secs, devices) in runs {
        let path = dir.join(format!("churn-{secs}.strec"));
        let start = Instant::now();
        churn(&path, secs, devices);
        let took = start.elapsed().as_secs_f64();
        let (summary, export) = summary_and_export(&path);
        let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        println!(
            "churn: {secs} s with {} new names a second ({:.1} MB, recorded in {took:.0} s): summary {summary:.2} s, export {export:.2} s of CPU",
            devices / 2,
            bytes as f64 / 1e6
        );
        let _ = std::fs::remove_file(&path);
    }
    if std::env::var_os("STRATA_BENCH_FIRST_ONLY").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let kept = std::env::var_os("STRATA_BENCH_DAY").map(std::path::PathBuf::from);
    let day = if quick { 3 * 3600 } else { 86_400 };
    let path = kept.clone().unwrap_or_else(|| dir.join("day.strec"));
    if !kept.as_ref().is_some_and(|p| p.exists()) {
        let hour = if quick { 600 } else { 3600 };
        let (series, bytes, took) = record(&dir.join("hour.strec"), hour);
        let per_hour = bytes as f64 * 3600.0 / hour as f64;
        let samples = series as f64 * hour as f64;
        println!(
            "record: {series} series at 1 s for {hour} s: {bytes} B, {:.2} MB per hour, {:.3} B per sample ({:.1} µs per input to record)",
            per_hour / 1e6,
            bytes as f64 / samples,
            took * 1e6 / (2 * hour) as f64
        );
        let (_, bytes, took) = record(&path, day);
        println!(
            "record: a {} h file: {:.1} MB, written in {took:.1} s",
            day / 3600,
            bytes as f64 / 1e6
        );
    }
    // Best of 3 of the whole (open, then jump), and of each part.
    let (mut best, mut open, mut jump) = (f64::MAX, f64::MAX, f64::MAX);
    let mut hours = 0.0;
    for _ in 0..3 {
        let start = Instant::now();
        let player = Player::open(&path).expect("open");
        let end = player.end_ms;
        hours = (end - player.start_ms) as f64 / 3.6e6;
        let mut app = app();
        let mut r = Replayer::new(player, &mut app, &path);
        let opened = start.elapsed().as_secs_f64();
        r.seek(&mut app, end);
        let took = start.elapsed().as_secs_f64();
        (best, open, jump) = (best.min(took), open.min(opened), jump.min(took - opened));
        assert!(app.local.disks.tick().is_some(), "figures at the end");
    }
    println!(
        "replay: open the {hours:.0} h file and jump to its end: {:.0} ms (best of 3; open {:.0} ms, jump {:.0} ms)",
        best * 1e3,
        open * 1e3,
        jump * 1e3
    );
    let _ = std::fs::remove_dir_all(&dir);
}

//! Size and seek of recordings, through the real recorder and player.
//!
//! cargo bench --bench record                       # docs/performance.md's figures
//! STRATA_BENCH_QUICK=1 cargo bench --bench record  # smoke run (CI)
//! STRATA_BENCH_DAY=/tmp/day.strec cargo bench --bench record
//!                          # keeps the day-long file there and, when it is
//!                          # there already, measures the jump on it alone
//!
//! A host of 76 block devices sampled once a second, on the workload of
//! the reference's format comparison (../shared/reference/crates.md §8):
//! 30% of the devices idle, every other counter's rate random-walking
//! ±10/s from a random start, the queue depth walking ±1; plus the loop's
//! clock. The recorder makes a
//! series of each number; the bench prints how many, the file's size per
//! hour and per sample, and the time to open a day-long file and show its
//! last minute (Player::open, then Replayer's jump to the end, which
//! rebuilds the figures from the 300 samples before it).

#![allow(clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;
use strata::app::{App, HostInfo, Input, SelfUsage};
use strata::config::Config;
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
        let devs = (0..DEVICES)
            .map(|i| DiskCounters {
                major: 8,
                minor: 16 * i as u32,
                name: format!("sd{}", (b'a' + (i % 26) as u8) as char) + &"a".repeat(i / 26),
                rd_ios: 1_000_000 * i as u64,
                wr_ios: 700_000 * i as u64,
                ..DiskCounters::default()
            })
            .collect();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let rates = (0..DEVICES)
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
    App::new(Config::default(), Theme::default(), host, 1.0)
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
            strata::record::shape::split(
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
            },
        };
        rec.record(T0 + k * 1000 + 900, &clock).expect("record");
    }
    rec.close().expect("close");
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    (series + 3, bytes, start.elapsed().as_secs_f64())
}

fn main() {
    let quick = std::env::var("STRATA_BENCH_QUICK").is_ok_and(|v| v == "1");
    let dir = std::env::temp_dir().join(format!("strata-bench-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
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

//! How fast the TUI answers keys with 100k devices, and what it holds.
//!
//! ```text
//! cargo bench --bench keys                          # 100k devices
//! STRATA_KEYS_DEVICES=20000 cargo bench --bench keys
//! STRATA_KEYS_HISTORY_MEMORY=64M cargo bench --bench keys   # another budget
//! cargo bench --bench keys -- --quick               # 10k devices (CI)
//! STRATA_BENCH_QUICK=1 cargo bench --bench keys
//! ```
//!
//! The host is scale/many_disks.rs's (`n` devices in /proc/diskstats), its
//! counters rewritten every second for a warm-up of 20 s (10 s quick),
//! then left as they are: the TUI goes on sampling and ingesting all of
//! them every second, but the figures on screen stop changing, so a
//! change of the pane is the key's doing. The release binary (cargo
//! builds it for the bench as `CARGO_BIN_EXE_strata`) runs at 1 s with
//! `--root` on that tree and the default config (an hour of history
//! within a 1 GiB `history_memory`, or STRATA_KEYS_HISTORY_MEMORY's) in a
//! detached 200×50 tmux session on a private tmux server.
//!
//! A key's latency is the time from `tmux send-keys` returning to the
//! pane's text (with its colours, the clock line left out) differing from
//! before the key, polled every 2 ms, at most 10 s; `q` is timed to the
//! process's exit and, apart, to the pane leaving the alternate screen
//! (the user has the terminal back). Keys, in order: 2 (the disks panel) and 1 (back to the
//! overview), j on the disks panel, / (the
//! filter prompt), Esc, Enter (the selected device's detail), Esc, each
//! three times (the median and the worst kept), then q. RSS (VmRSS) and
//! the history budget's use (the detail's) after the warm-up. Budget:
//! 200 ms a key. Benchmarks report, they do not gate: the exit status
//! stays 0.

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

#[path = "scale/many_disks.rs"]
mod many_disks;
#[path = "../tests/peer_tools/mod.rs"]
mod peer_tools;
#[path = "scale/mod.rs"]
mod scale;
#[path = "../tests/sshd/mod.rs"]
mod sshd;

use many_disks::ManyDisks;
use scale::{Tmux, rss_kib};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const BUDGET: Duration = Duration::from_millis(200);
const GIVE_UP: Duration = Duration::from_secs(10);
const TMUX: Tmux = Tmux("strata-keys");
const SESSION: &str = "keys";

fn main() {
    let quick = std::env::args().any(|a| a == "--quick")
        || std::env::var("STRATA_BENCH_QUICK").is_ok_and(|v| v == "1");
    let devices = std::env::var("STRATA_KEYS_DEVICES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if quick { 10_000 } else { 100_000 });
    let warmup = Duration::from_secs(if quick { 10 } else { 20 });
    let bin = env!("CARGO_BIN_EXE_strata");
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join("root");
    let started = Instant::now();
    let mut host = ManyDisks::new(&root, devices);
    eprintln!(
        "keys: {devices} devices written in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let config = dir.path().join("config.toml");
    let budget = std::env::var("STRATA_KEYS_HISTORY_MEMORY").ok();
    let text = budget
        .as_ref()
        .map_or(String::new(), |b| format!("history_memory = \"{b}\"\n"));
    std::fs::write(&config, text).expect("write the config");
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || host.run(Duration::from_secs(1), &stop))
    };
    let pid = TMUX.launch(
        SESSION,
        &format!(
            "exec {bin} --root {} --config {} --interval 1",
            root.display(),
            config.display()
        ),
    );
    std::thread::sleep(warmup);
    stop.store(true, Ordering::Relaxed);
    let late = writer.join().unwrap_or(0);
    // the last rewrite's sample, then the screen settles
    std::thread::sleep(Duration::from_secs(3));
    let rss = pid.and_then(rss_kib);

    let rows = time_keys();
    let detail = TMUX.screen(SESSION);
    let (given_back, quit) = quit_latency(pid);

    println!();
    println!(
        "{devices} devices at 1 s, history 1h, history_memory {}; \
         RSS after {} s: {}; tree rewrites late: {late}; load average {}",
        budget.as_deref().unwrap_or("1G (the default)"),
        warmup.as_secs(),
        rss.map_or("–".into(), |k| format!("{:.0} MiB", k as f64 / 1024.0)),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!();
    println!("| key | median | worst | verdict |\n|---|---:|---:|---|");
    for (name, times) in &rows {
        let mut sorted: Vec<Duration> = times.iter().flatten().copied().collect();
        sorted.sort();
        let worst = if sorted.len() < times.len() {
            None
        } else {
            sorted.last().copied()
        };
        println!(
            "| {name} | {} | {} | {} |",
            ms(sorted.get(sorted.len() / 2).copied()),
            ms(worst),
            verdict(worst)
        );
    }
    println!(
        "| q (terminal given back) | {} | | {} |",
        ms(given_back),
        verdict(given_back)
    );
    println!("| q (process gone) | {} | | |", ms(quit));
    if let Some(line) = detail.lines().find(|l| l.contains("history")) {
        println!("\nthe device detail says: {}", line.trim());
    }
}

type Times = Vec<(&'static str, Vec<Option<Duration>>)>;

/// Each key changes the screen; a pair's second key undoes its first. Ends
/// on a device's detail.
fn time_keys() -> Times {
    let mut rows = Times::new();
    for _ in 0..3 {
        time(
            &mut rows,
            &[("2 (disks panel)", "2"), ("1 (overview)", "1")],
        );
    }
    key_latency("2");
    for _ in 0..3 {
        time(&mut rows, &[("j (next row)", "j")]);
    }
    for _ in 0..3 {
        time(
            &mut rows,
            &[
                ("/ (filter prompt)", "/"),
                ("Esc (closes the prompt)", "Escape"),
            ],
        );
    }
    for _ in 0..3 {
        time(
            &mut rows,
            &[
                ("Enter (device detail)", "Enter"),
                ("Esc (back to the table)", "Escape"),
            ],
        );
    }
    key_latency("Enter");
    rows
}

fn time(rows: &mut Times, keys: &[(&'static str, &'static str)]) {
    for (name, key) in keys {
        let took = key_latency(key);
        match rows.iter_mut().find(|(n, _)| n == name) {
            Some((_, times)) => times.push(took),
            None => rows.push((name, vec![took])),
        }
    }
}

fn ms(d: Option<Duration>) -> String {
    d.map_or(format!("> {} s", GIVE_UP.as_secs()), |d| {
        format!("{:.0} ms", d.as_secs_f64() * 1000.0)
    })
}

fn verdict(d: Option<Duration>) -> &'static str {
    match d {
        Some(d) if d <= BUDGET => "ok",
        _ => "OVER",
    }
}

/// The pane with its colours, but for its first line (the clock).
fn pane() -> String {
    let text = TMUX.run(&["capture-pane", "-p", "-e", "-t", SESSION]);
    text.split_once('\n')
        .map_or(text.clone(), |(_, rest)| rest.to_owned())
}

/// From the key's sending to the pane's change; None past [`GIVE_UP`].
fn key_latency(key: &str) -> Option<Duration> {
    let before = pane();
    let start = Instant::now();
    TMUX.run(&["send-keys", "-t", SESSION, key]);
    while start.elapsed() < GIVE_UP {
        if pane() != before {
            let took = start.elapsed();
            // let the frame finish before the next key's "before"
            std::thread::sleep(Duration::from_millis(300));
            return Some(took);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    None
}

/// From `q`'s sending to the pane leaving the alternate screen (the
/// terminal given back), and to the process's exit (its memory torn down
/// and reaped); None past [`GIVE_UP`].
fn quit_latency(pid: Option<u32>) -> (Option<Duration>, Option<Duration>) {
    let Some(pid) = pid else {
        return (None, None);
    };
    let before = pane();
    let start = Instant::now();
    TMUX.run(&["send-keys", "-t", SESSION, "q"]);
    let (mut given_back, mut gone) = (None, None);
    while start.elapsed() < GIVE_UP && gone.is_none() {
        if given_back.is_none() && pane() != before {
            given_back = Some(start.elapsed());
        }
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            gone = Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = TMUX.run(&["kill-server"]);
    (given_back.or(gone), gone)
}

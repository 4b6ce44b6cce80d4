//! The storage layer at scale: 24 cells × 28 disks on loopback at 1 s.
//!
//! ```text
//! cargo bench --bench cells_scale                        # full run (root, sshd)
//! STRATA_BENCH_QUICK=1 cargo bench --bench cells_scale   # smoke run (CI)
//! ```
//!
//! Each cell is a real OpenSSH sshd on its own 127.0.2.x address with a
//! generated host key, logged into with a generated client key. Its
//! ForceCommand runs strata's own sampler command unchanged except for two
//! paths: `/proc/diskstats` and `/sys/block` point into a synthetic tree of
//! 12 hard disks and 16 NVMe flash devices (a loopback machine has neither
//! 24 hosts nor 28 disks each), which a thread of this process rewrites
//! every 50 ms with counters that grow at fixed rates. `/proc/uptime` is
//! the real one: rates use the cells' clock as in the field.
//!
//! 1. Skew, in process: 24 `run_cell` tasks for 15 s; at each second
//!    every cell served, the spread of the cells' clock readings (cs) and
//!    of the samples' arrival at strata (ms).
//! 2. The real binary (release) in tmux on the cells panel for 60 s: its
//!    CPU (utime + stime from /proc/PID/stat) while steady, and its frame
//!    times from STRATA_FRAME_LOG while cells connect and drop: 6 cells'
//!    sshd killed at 20 s and restarted at 30 s, 12 cells' connections cut
//!    at 42 s.
//!
//! Benchmarks report, they do not gate: a frame over 16 ms is counted and
//! marked OVER, and the exit status stays 0. Without root or sshd the run
//! says SKIPPED (or fails under STRATA_REQUIRE_SSHD=1).

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/peer_tools/mod.rs"]
mod peer_tools;
#[path = "../tests/sshd/mod.rs"]
mod sshd;

use sshd::{Keys, Sshd};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use strata::layers::cells::source::{CellEvent, run_cell};
use strata::remote::{SshOptions, SshTarget, parse_ssh_spec};

const HARD_DISKS: usize = 12;
const FLASH: usize = 16;
/// The 60 fps budget a frame must stay under.
const FRAME_BUDGET_US: u64 = 16_000;

struct Plan {
    cells: usize,
    skew_secs: u64,
    /// (seconds into the run, what happens)
    tui_secs: u64,
    drop_at: u64,
    back_at: u64,
    cut_at: u64,
}

fn main() {
    let quick = std::env::var("STRATA_BENCH_QUICK").is_ok_and(|v| v == "1");
    let plan = if quick {
        Plan {
            cells: 4,
            skew_secs: 4,
            tui_secs: 12,
            drop_at: 4,
            back_at: 6,
            cut_at: 8,
        }
    } else {
        Plan {
            cells: 24,
            skew_secs: 15,
            tui_secs: 60,
            drop_at: 20,
            back_at: 30,
            cut_at: 42,
        }
    };
    if !sshd::available("cells_scale") {
        return;
    }
    if sshd::current_user() != "root" {
        // 24 addresses, ForceCommand and a login as root keep it simple.
        println!("cells_scale: SKIPPED: needs root");
        return;
    }
    let keys = Keys::new();
    let trees: Vec<PathBuf> = (0..plan.cells)
        .map(|i| keys.path(&format!("cell{i:02}")))
        .collect();
    for t in &trees {
        make_block_tree(t);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let generator = {
        let trees = trees.clone();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || generate(&trees, &stop))
    };
    // The first diskstats exist before any sampler looks.
    std::thread::sleep(Duration::from_millis(120));
    let mut sshds: Vec<Sshd> = trees
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let wrapper = force_command(&keys, i, t);
            let ip = format!("127.0.2.{}", i + 1);
            Sshd::start(&keys, &ip, &format!("ForceCommand {}\n", wrapper.display()))
        })
        .collect();
    let kh = sshd::known_hosts(&keys, &sshds.iter().collect::<Vec<_>>());
    println!(
        "cells_scale: {} cells × {} disks ({HARD_DISKS} hard, {FLASH} flash) on loopback, interval 1 s",
        plan.cells,
        HARD_DISKS + FLASH
    );
    skew(&plan, &keys, &sshds, &kh);
    tui(&plan, &keys, &mut sshds, &kh);
    stop.store(true, Ordering::Relaxed);
    let _ = generator.join();
}

fn spec(keys: &Keys, s: &Sshd) -> String {
    format!("{}@{}:{}", keys.user, s.ip, s.port)
}

/// The cell's ForceCommand: strata's sampler command with the two paths
/// moved into the cell's tree; any other command (cellcli's probe) as is.
fn force_command(keys: &Keys, i: usize, tree: &Path) -> PathBuf {
    let path = keys.path(&format!("cell{i:02}.sh"));
    let t = tree.display();
    let text = format!(
        "#!/bin/sh\n\
         c=$(printf '%s' \"$SSH_ORIGINAL_COMMAND\" | sed -e 's#/proc/diskstats#{t}/diskstats#g' -e 's#/sys/block#{t}/block#g')\n\
         exec sh -c \"$c\"\n"
    );
    fs::write(&path, text).expect("write wrapper");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod wrapper");
    path
}

fn disk_name(j: usize) -> String {
    if j < HARD_DISKS {
        format!("sd{}", (b'a' + j as u8) as char)
    } else {
        format!("nvme{}n1", j - HARD_DISKS)
    }
}

fn make_block_tree(tree: &Path) {
    for j in 0..HARD_DISKS + FLASH {
        let d = tree.join("block").join(disk_name(j));
        fs::create_dir_all(d.join("queue")).expect("queue dir");
        fs::create_dir_all(d.join("device")).expect("device dir");
        let (rot, size, model) = if j < HARD_DISKS {
            ("1", 27_344_764_928u64, "HGST H7280A520SUN8.0T")
        } else {
            ("0", 12_502_446_768u64, "7335940:ICDPC2DD2ORA6.4T")
        };
        fs::write(d.join("queue/rotational"), format!("{rot}\n")).expect("rotational");
        fs::write(d.join("size"), format!("{size}\n")).expect("size");
        fs::write(d.join("device/model"), format!("{model}\n")).expect("model");
    }
}

/// /proc/diskstats (17 fields) of one cell `t` seconds in: every counter
/// grows at a fixed rate, different per cell and disk.
fn diskstats(cell: usize, t: f64) -> String {
    let mut s = String::new();
    for j in 0..HARD_DISKS + FLASH {
        let hard = j < HARD_DISKS;
        let (r, w, kb, ms, util) = if hard {
            (
                120.0 + 10.0 * j as f64 + 5.0 * cell as f64,
                60.0,
                8.0,
                6.0,
                0.45,
            )
        } else {
            (3000.0 + 100.0 * j as f64, 1500.0, 8.0, 0.3, 0.2)
        };
        let base = 1_000_000.0;
        let reads = (base + r * t) as u64;
        let writes = (base + w * t) as u64;
        let (major, minor) = if hard { (8, 16 * j) } else { (259, j) };
        let _ = writeln!(
            s,
            "{major:4} {minor:7} {} {reads} 0 {} {} {writes} 0 {} {} 0 {} {} 0 0 0 0 0 0",
            disk_name(j),
            reads * (kb as u64 * 2),
            (reads as f64 * ms) as u64,
            writes * (kb as u64 * 2),
            (writes as f64 * ms) as u64,
            (base + t * 1000.0 * util) as u64,
            ((reads + writes) as f64 * ms) as u64,
        );
    }
    s
}

/// Rewrites every cell's diskstats each 50 ms, by rename so that a reader
/// sees the old file or the new one, never half of each.
fn generate(trees: &[PathBuf], stop: &AtomicBool) {
    let start = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let t = start.elapsed().as_secs_f64();
        for (i, tree) in trees.iter().enumerate() {
            let tmp = tree.join("diskstats.new");
            if fs::write(&tmp, diskstats(i, t)).is_ok() {
                let _ = fs::rename(&tmp, tree.join("diskstats"));
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn targets(keys: &Keys, sshds: &[Sshd]) -> Vec<SshTarget> {
    sshds
        .iter()
        .map(|s| {
            let mut t = parse_ssh_spec(&spec(keys, s), "root").expect("spec");
            t.identity = Some(keys.client_key.clone());
            t
        })
        .collect()
}

fn skew(plan: &Plan, keys: &Keys, sshds: &[Sshd], kh: &Path) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut opts = SshOptions::new(Duration::from_secs(1), kh.to_path_buf());
    opts.agent_socket = None;
    opts.interactive = false;
    let opts = Arc::new(opts);
    let (tx, mut rx) = tokio::sync::mpsc::channel(256);
    let cancel = tokio_util::sync::CancellationToken::new();
    // (second, cell) → (clock cs, arrival ms)
    let mut at: BTreeMap<i64, Vec<(u64, i64)>> = BTreeMap::new();
    let mut firsts = vec![true; sshds.len()];
    rt.block_on(async {
        for (i, t) in targets(keys, sshds).into_iter().enumerate() {
            tokio::spawn(run_cell(
                i,
                t,
                Arc::clone(&opts),
                tx.clone(),
                cancel.clone(),
            ));
        }
        let end = tokio::time::Instant::now() + Duration::from_secs(plan.skew_secs + 2);
        loop {
            let ev = tokio::select! {
                _ = tokio::time::sleep_until(end) => break,
                ev = rx.recv() => ev,
            };
            match ev {
                Some(CellEvent::Sample { cell, sample }) => {
                    // The first sample is asked for at connect, off the
                    // boundaries.
                    if std::mem::take(&mut firsts[cell]) {
                        continue;
                    }
                    at.entry(sample.wall_ms.div_euclid(1000))
                        .or_default()
                        .push((sample.uptime_cs, sample.wall_ms.rem_euclid(1000)));
                }
                Some(CellEvent::Status { cell, status }) => {
                    if !matches!(
                        status,
                        strata::remote::HostStatus::Live | strata::remote::HostStatus::Connecting
                    ) {
                        println!("  cell {cell}: {status:?}");
                    }
                }
                Some(_) => {}
                None => break,
            }
        }
        cancel.cancel();
    });
    let full: Vec<&Vec<(u64, i64)>> = at.values().filter(|v| v.len() == sshds.len()).collect();
    let clock: Vec<u64> = full
        .iter()
        .map(|v| {
            let max = v.iter().map(|x| x.0).max().unwrap_or(0);
            let min = v.iter().map(|x| x.0).min().unwrap_or(0);
            max - min
        })
        .collect();
    let arrival: Vec<i64> = full
        .iter()
        .map(|v| {
            let max = v.iter().map(|x| x.1).max().unwrap_or(0);
            let min = v.iter().map(|x| x.1).min().unwrap_or(0);
            max - min
        })
        .collect();
    let late: Vec<i64> = full
        .iter()
        .map(|v| v.iter().map(|x| x.1).max().unwrap_or(0))
        .collect();
    println!(
        "skew: {} seconds served by all {} cells; spread of the cells' clocks {} cs (median {}), \
         of the arrivals {} ms (median {}); last arrival {} ms after the boundary at most",
        full.len(),
        sshds.len(),
        range(&clock),
        median(&clock),
        range(&arrival),
        median(&arrival),
        late.iter().max().copied().unwrap_or(0),
    );
}

fn range<T: Copy + Ord + std::fmt::Display>(v: &[T]) -> String {
    match (v.iter().min(), v.iter().max()) {
        (Some(a), Some(b)) => format!("{a}–{b}"),
        _ => "–".into(),
    }
}

fn median<T: Copy + Ord + std::fmt::Display>(v: &[T]) -> String {
    let mut s = v.to_vec();
    s.sort();
    s.get(s.len() / 2).map_or("–".into(), |m| m.to_string())
}

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux")
        .args(["-L", "strata-scale"])
        .args(args)
        .output()
        .expect("tmux");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// utime + stime of a process, in clock ticks (USER_HZ, 100 on Linux).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: fields start after its ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn tui(plan: &Plan, keys: &Keys, sshds: &mut [Sshd], kh: &Path) {
    if peer_tools::find_in_path("tmux").is_none() {
        println!("tui: SKIPPED: tmux not installed");
        return;
    }
    let group = keys.path("cells.group");
    let text: String = sshds.iter().map(|s| spec(keys, s) + "\n").collect();
    fs::write(&group, text).expect("group file");
    let log = keys.path("frames.log");
    let cmd = format!(
        "exec env {}={} {} --cell-group {} --known-hosts {} --cell-identity {} --interval 1",
        strata::frame_log::VAR,
        log.display(),
        env!("CARGO_BIN_EXE_strata"),
        group.display(),
        kh.display(),
        keys.client_key.display()
    );
    let _ = tmux(&["kill-server"]);
    tmux(&[
        "new-session",
        "-d",
        "-s",
        "scale",
        "-x",
        "200",
        "-y",
        "50",
        &cmd,
    ]);
    let pid: Option<u32> = tmux(&["list-panes", "-t", "scale", "-F", "#{pane_pid}"])
        .trim()
        .parse()
        .ok();
    let Some(pid) = pid else {
        println!("tui: SKIPPED: no pane pid");
        return;
    };
    let start = Instant::now();
    let at = |s: u64| start + Duration::from_secs(s);
    let sleep_until = |t: Instant| std::thread::sleep(t.saturating_duration_since(Instant::now()));
    std::thread::sleep(Duration::from_millis(500));
    tmux(&["send-keys", "-t", "scale", "6"]);
    let steady_from = plan.drop_at / 4;
    sleep_until(at(steady_from));
    let cpu0 = cpu_ticks(pid);
    sleep_until(at(plan.drop_at));
    let cpu1 = cpu_ticks(pid);
    let screen = tmux(&["capture-pane", "-p", "-t", "scale"]);
    let dropped = sshds.len() / 4;
    for s in sshds.iter_mut().take(dropped) {
        s.kill_all();
    }
    sleep_until(at(plan.back_at));
    for s in sshds.iter_mut().take(dropped) {
        s.restart();
    }
    sleep_until(at(plan.cut_at));
    let cut = sshds.len() / 2;
    for s in sshds.iter().skip(dropped).take(cut) {
        s.kill_sessions();
    }
    sleep_until(at(plan.tui_secs));
    let cpu2 = cpu_ticks(pid);
    let rss = rss_kib(pid);
    let end_screen = tmux(&["capture-pane", "-p", "-t", "scale"]);
    tmux(&["send-keys", "-t", "scale", "q"]);
    std::thread::sleep(Duration::from_millis(500));
    let _ = tmux(&["kill-server"]);
    let live = |s: &str| s.lines().filter(|l| l.contains(" live ")).count();
    println!(
        "tui: cells live on screen: {} before the drops, {} at the end",
        live(&screen),
        live(&end_screen)
    );
    let steady = plan.drop_at - steady_from;
    let churn = plan.tui_secs - plan.drop_at;
    if let (Some(a), Some(b), Some(c)) = (cpu0, cpu1, cpu2) {
        println!(
            "tui: strata's CPU {:.1} % of a core while steady ({steady} s), {:.1} % while cells drop and reconnect ({churn} s); RSS {} MiB",
            (b - a) as f64 / steady as f64,
            (c - b) as f64 / churn as f64,
            rss.map_or("–".into(), |k| format!("{:.1}", k as f64 / 1024.0)),
        );
    }
    frames(&log, start, plan, steady_from);
    if std::env::var("STRATA_BENCH_SHOW").is_ok_and(|v| v == "1") {
        println!("{screen}");
    }
}

fn frames(log: &Path, start: Instant, plan: &Plan, steady_from: u64) {
    let Ok(text) = fs::read_to_string(log) else {
        println!("tui: no frame log at {}", log.display());
        return;
    };
    let start_ms = strata::core::clock::now_ms() - start.elapsed().as_millis() as i64;
    let rows: Vec<(i64, u64, u64, u64)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some((
                f.first()?.parse().ok()?,
                f.get(1)?.parse().ok()?,
                f.get(2)?.parse().ok()?,
                f.get(3)?.parse().ok()?,
            ))
        })
        .collect();
    let report = |name: &str, from_s: u64, to_s: u64| {
        let (a, b) = (
            start_ms + from_s as i64 * 1000,
            start_ms + to_s as i64 * 1000,
        );
        let mut draw: Vec<u64> = rows
            .iter()
            .filter(|r| r.0 >= a && r.0 < b)
            .map(|r| r.2)
            .collect();
        let mut total: Vec<u64> = rows
            .iter()
            .filter(|r| r.0 >= a && r.0 < b)
            .map(|r| r.1 + r.2)
            .collect();
        let mut cpu: Vec<u64> = rows
            .iter()
            .filter(|r| r.0 >= a && r.0 < b)
            .map(|r| r.3)
            .collect();
        draw.sort();
        total.sort();
        cpu.sort();
        let pct = |v: &[u64], p: f64| {
            v.get(((v.len() as f64 * p) as usize).min(v.len().saturating_sub(1)))
                .copied()
                .unwrap_or(0)
        };
        let over = total.iter().filter(|t| **t > FRAME_BUDGET_US).count();
        println!(
            "tui: {name}: {} frames; draw median {:.2} ms, p99 {:.2} ms, max {:.2} ms (CPU max {:.2} ms); wait + draw max {:.2} ms; {} over 16 ms{}",
            draw.len(),
            pct(&draw, 0.5) as f64 / 1000.0,
            pct(&draw, 0.99) as f64 / 1000.0,
            draw.last().copied().unwrap_or(0) as f64 / 1000.0,
            cpu.last().copied().unwrap_or(0) as f64 / 1000.0,
            total.last().copied().unwrap_or(0) as f64 / 1000.0,
            over,
            if over > 0 { " OVER" } else { "" }
        );
    };
    let slow: Vec<String> = rows
        .iter()
        .filter(|r| r.1 + r.2 > FRAME_BUDGET_US)
        .map(|r| {
            format!(
                "{:.2} s: wait {:.1} + draw {:.1} ms (of which CPU {:.1} ms)",
                (r.0 - start_ms) as f64 / 1000.0,
                r.1 as f64 / 1000.0,
                r.2 as f64 / 1000.0,
                r.3 as f64 / 1000.0
            )
        })
        .collect();
    if !slow.is_empty() {
        println!("tui: frames over 16 ms: {}", slow.join("; "));
    }
    report("connecting", 0, steady_from);
    report("steady", steady_from, plan.drop_at);
    report("drops and reconnects", plan.drop_at, plan.tui_secs);
}

//! What the scale benchmarks (cells_scale, nodes_scale) share: the release
//! binary in tmux, a process's CPU from /proc, the frame log's figures,
//! and the synthetic cells (`cells`).
#![allow(dead_code)]

pub mod cells;

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The 60 fps budget a frame must stay under.
pub const FRAME_BUDGET_US: u64 = 16_000;

/// A tmux server of its own (`-L socket`), so benchmarks never touch
/// another's.
pub struct Tmux(pub &'static str);

impl Tmux {
    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", self.0])
            .args(args)
            .output()
            .expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `cmd` in a new 200×50 session `name`; the pane's pid.
    pub fn launch(&self, name: &str, cmd: &str) -> Option<u32> {
        let _ = self.run(&["kill-server"]);
        self.run(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "200",
            "-y",
            "50",
            cmd,
        ]);
        self.run(&["list-panes", "-t", name, "-F", "#{pane_pid}"])
            .trim()
            .parse()
            .ok()
    }

    /// `q` to the session, then the server goes.
    pub fn quit(&self, name: &str) {
        self.run(&["send-keys", "-t", name, "q"]);
        std::thread::sleep(std::time::Duration::from_millis(500));
        let _ = self.run(&["kill-server"]);
    }

    pub fn screen(&self, name: &str) -> String {
        self.run(&["capture-pane", "-p", "-t", name])
    }
}

/// The fields of /proc/PID/stat after the command name (which may hold
/// spaces): field 14 of proc(5) (utime) is index 11.
fn stat_fields(pid: u32) -> Option<Vec<u64>> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    Some(
        rest.split_whitespace()
            .map(|f| f.parse::<u64>().unwrap_or(0))
            .collect(),
    )
}

/// utime + stime of a process, in clock ticks (USER_HZ, 100 on Linux).
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let f = stat_fields(pid)?;
    Some(f.get(11)? + f.get(12)?)
}

/// utime + stime + cutime + cstime: the process and the children it has
/// waited for (a shell's awk and subshells).
pub fn cpu_ticks_with_children(pid: u32) -> Option<u64> {
    let f = stat_fields(pid)?;
    Some(f.get(11)? + f.get(12)? + f.get(13)? + f.get(14)?)
}

pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub fn range<T: Copy + Ord + std::fmt::Display>(v: &[T]) -> String {
    match (v.iter().min(), v.iter().max()) {
        (Some(a), Some(b)) => format!("{a}–{b}"),
        _ => "–".into(),
    }
}

pub fn median<T: Copy + Ord + std::fmt::Display>(v: &[T]) -> String {
    let mut s = v.to_vec();
    s.sort();
    s.get(s.len() / 2).map_or("–".into(), |m| m.to_string())
}

/// The figures of the frames in one window of a run.
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameStats {
    pub frames: usize,
    pub draw_median_us: u64,
    pub draw_p99_us: u64,
    pub draw_max_us: u64,
    pub cpu_max_us: u64,
    /// late + draw: the wall time a frame kept the screen waiting.
    pub total_max_us: u64,
    pub over: usize,
}

impl FrameStats {
    pub fn line(&self) -> String {
        format!(
            "{} frames; draw median {:.2} ms, p99 {:.2} ms, max {:.2} ms (CPU max {:.2} ms); wait + draw max {:.2} ms; {} over 16 ms{}",
            self.frames,
            ms(self.draw_median_us),
            ms(self.draw_p99_us),
            ms(self.draw_max_us),
            ms(self.cpu_max_us),
            ms(self.total_max_us),
            self.over,
            if self.over > 0 { " OVER" } else { "" }
        )
    }
}

pub fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// A STRATA_FRAME_LOG file (`wall_ms late_us draw_us draw_cpu_us` a
/// line), its times counted from `start`.
pub struct FrameLog {
    rows: Vec<(i64, u64, u64, u64)>,
    start_ms: i64,
}

impl FrameLog {
    pub fn read(log: &Path, start: Instant) -> Option<FrameLog> {
        let text = fs::read_to_string(log).ok()?;
        let start_ms = strata::core::clock::now_ms() - start.elapsed().as_millis() as i64;
        let rows = text
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
        Some(FrameLog { rows, start_ms })
    }

    /// The frames from `from_s` to `to_s` seconds into the run.
    pub fn stats(&self, from_s: u64, to_s: u64) -> FrameStats {
        let (a, b) = (
            self.start_ms + from_s as i64 * 1000,
            self.start_ms + to_s as i64 * 1000,
        );
        let rows: Vec<_> = self.rows.iter().filter(|r| r.0 >= a && r.0 < b).collect();
        let sorted = |f: fn(&(i64, u64, u64, u64)) -> u64| {
            let mut v: Vec<u64> = rows.iter().map(|r| f(r)).collect();
            v.sort();
            v
        };
        let (draw, total, cpu) = (sorted(|r| r.2), sorted(|r| r.1 + r.2), sorted(|r| r.3));
        let pct = |v: &[u64], p: f64| {
            v.get(((v.len() as f64 * p) as usize).min(v.len().saturating_sub(1)))
                .copied()
                .unwrap_or(0)
        };
        FrameStats {
            frames: draw.len(),
            draw_median_us: pct(&draw, 0.5),
            draw_p99_us: pct(&draw, 0.99),
            draw_max_us: draw.last().copied().unwrap_or(0),
            cpu_max_us: cpu.last().copied().unwrap_or(0),
            total_max_us: total.last().copied().unwrap_or(0),
            over: total.iter().filter(|t| **t > FRAME_BUDGET_US).count(),
        }
    }

    /// Every frame over the budget: when, and where its time went.
    pub fn slow(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r.1 + r.2 > FRAME_BUDGET_US)
            .map(|r| {
                format!(
                    "{:.2} s: wait {:.1} + draw {:.1} ms (of which CPU {:.1} ms)",
                    (r.0 - self.start_ms) as f64 / 1000.0,
                    ms(r.1),
                    ms(r.2),
                    ms(r.3)
                )
            })
            .collect()
    }
}

/// SSH options of the in-process skew runs: interval 1 s, no agent, no
/// prompt.
pub fn skew_options(kh: &Path) -> std::sync::Arc<strata::remote::SshOptions> {
    let mut opts = strata::remote::SshOptions::new(
        strata::core::duration::Interval::ONE_SECOND,
        kh.to_path_buf(),
    );
    opts.agent_socket = None;
    opts.interactive = false;
    std::sync::Arc::new(opts)
}

/// Runs the host tasks `spawn` starts for `secs` (+2) seconds on a
/// runtime of its own, handing each of their events to `on`.
pub fn drive<E: Send + 'static>(
    secs: u64,
    spawn: impl FnOnce(tokio::sync::mpsc::Sender<E>, tokio_util::sync::CancellationToken),
    mut on: impl FnMut(E),
) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (tx, mut rx) = tokio::sync::mpsc::channel(1024);
    let cancel = tokio_util::sync::CancellationToken::new();
    rt.block_on(async {
        spawn(tx, cancel.clone());
        let end = tokio::time::Instant::now() + std::time::Duration::from_secs(secs + 2);
        loop {
            let ev = tokio::select! {
                _ = tokio::time::sleep_until(end) => break,
                ev = rx.recv() => ev,
            };
            match ev {
                Some(ev) => on(ev),
                None => break,
            }
        }
        cancel.cancel();
    });
}

/// The hosts' samples by wall-clock second: each host's clock reading
/// (cs) and the sample's arrival (ms into the second).
pub struct Seconds {
    at: std::collections::BTreeMap<i64, Vec<(u64, i64)>>,
    firsts: Vec<bool>,
}

impl Seconds {
    pub fn new(hosts: usize) -> Seconds {
        Seconds {
            at: Default::default(),
            firsts: vec![true; hosts],
        }
    }

    /// A sample of `host`; its first, asked for at connect off the
    /// boundaries, is left out.
    pub fn add(&mut self, host: usize, clock_cs: u64, wall_ms: i64) {
        if std::mem::take(&mut self.firsts[host]) {
            return;
        }
        self.at
            .entry(wall_ms.div_euclid(1000))
            .or_default()
            .push((clock_cs, wall_ms.rem_euclid(1000)));
    }

    /// Over the seconds every host served: the spread of their clocks and
    /// of the arrivals, and the latest arrival.
    pub fn summary(&self, clocks: &str) -> String {
        let n = self.firsts.len();
        let full: Vec<&Vec<(u64, i64)>> = self.at.values().filter(|v| v.len() == n).collect();
        let spread = |f: fn(&(u64, i64)) -> i64| -> Vec<i64> {
            full.iter()
                .map(|v| {
                    let max = v.iter().map(f).max().unwrap_or(0);
                    max - v.iter().map(f).min().unwrap_or(0)
                })
                .collect()
        };
        let (clock, arrival) = (spread(|x| x.0 as i64), spread(|x| x.1));
        let late = full.iter().flat_map(|v| v.iter().map(|x| x.1)).max();
        format!(
            "{} seconds served by all {n}; spread of {clocks} {} cs (median {}), \
             of the arrivals {} ms (median {}); last arrival {} ms after the boundary at most",
            full.len(),
            range(&clock),
            median(&clock),
            range(&arrival),
            median(&arrival),
            late.unwrap_or(0),
        )
    }
}

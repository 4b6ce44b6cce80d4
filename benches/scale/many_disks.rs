//! A host of many block devices under a directory, as `--root` reads it:
//! /proc/diskstats with `n` NVMe namespaces whose counters grow at fixed
//! rates, and /proc/uptime to match, rewritten by [`ManyDisks::advance`]
//! (atomically, so a reader never sees half a file). No /sys/block: every
//! device is a whole disk, and the catalogue costs nothing to read.

use crate::scale::cells::replace;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct ManyDisks {
    root: PathBuf,
    devices: usize,
    /// Hundredths of a second of the synthetic clock.
    uptime_cs: u64,
    text: String,
}

impl ManyDisks {
    /// The tree at `root` (created), its counters at their start.
    pub fn new(root: &Path, devices: usize) -> ManyDisks {
        fs::create_dir_all(root.join("proc")).expect("create proc");
        let mut d = ManyDisks {
            root: root.to_path_buf(),
            devices,
            uptime_cs: 12_345_600,
            text: String::with_capacity(devices * 120),
        };
        d.write();
        d
    }

    /// `step_cs` hundredths of a second later: every counter moved.
    pub fn advance(&mut self, step_cs: u64) {
        self.uptime_cs += step_cs;
        self.write();
    }

    fn write(&mut self) {
        let k = self.uptime_cs;
        self.text.clear();
        for j in 0..self.devices {
            let j64 = j as u64;
            // reads and writes per centisecond, different per device
            let (r, w) = (1 + j64 % 7, 1 + j64 % 5);
            let (rd, wr) = (1_000_000 + r * k, 500_000 + w * k);
            let _ = writeln!(
                self.text,
                "{:4} {:7} nvme{j}n1 {rd} 0 {} {} {wr} 0 {} {} 0 {} {} 0 0 0 0 0 0",
                259,
                j,
                rd * 8,
                rd / 10,
                wr * 8,
                wr / 8,
                k * 9 / 10 % (1 << 32),
                (rd / 10 + wr / 8) % (1 << 32),
            );
        }
        replace(&self.root.join("proc/diskstats"), &self.text);
        let (s, cs) = (k / 100, k % 100);
        replace(
            &self.root.join("proc/uptime"),
            &format!("{s}.{cs:02} {}.{cs:02}\n", s * 2),
        );
    }

    /// Advances the counters every `every` until `stop`, on a schedule
    /// that does not drift; returns how many rewrites were late by more
    /// than a tenth of `every`.
    pub fn run(&mut self, every: Duration, stop: &AtomicBool) -> u64 {
        let start = Instant::now();
        let step_cs = (every.as_millis() / 10) as u64;
        let (mut n, mut late) = (0u32, 0);
        while !stop.load(Ordering::Relaxed) {
            n += 1;
            let due = start + every * n;
            let now = Instant::now();
            if now < due {
                std::thread::sleep(due - now);
            } else if now - due > every / 10 {
                late += 1;
            }
            self.advance(step_cs);
        }
        late
    }
}

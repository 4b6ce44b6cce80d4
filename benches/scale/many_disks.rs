//! A host of many block devices under a directory, as `--root` reads it:
//! /proc/diskstats with `n` NVMe namespaces whose counters grow at fixed
//! rates, and /proc/uptime to match, rewritten by [`ManyDisks::advance`]
//! (atomically, so a reader never sees half a file). No /sys/block: every
//! device is a whole disk, and the catalogue costs nothing to read.
//! [`ManyDisks::churning`] renames every device at each rewrite and adds
//! /proc/net/dev with interfaces renamed as well: a host whose names churn.
// Shared by benches that each use a part of it (keys does not churn).
#![allow(dead_code)]

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
    /// Interfaces in /proc/net/dev, and whether every name is new at each
    /// rewrite.
    nics: usize,
    churn: bool,
    /// Rewrites so far, which a churning host's names count.
    rewrites: usize,
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
            nics: 0,
            churn: false,
            rewrites: 0,
        };
        d.write();
        d
    }

    /// As [`new`](Self::new) with `nics` interfaces too, every device and
    /// interface under a new name at each rewrite.
    pub fn churning(root: &Path, devices: usize, nics: usize) -> ManyDisks {
        fs::create_dir_all(root.join("proc/net")).expect("create proc/net");
        let mut d = ManyDisks::new(root, devices);
        (d.nics, d.churn) = (nics, true);
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
        self.rewrites += 1;
        // the first name of this rewrite: all new when churning
        let first = if self.churn {
            self.rewrites * self.devices.max(self.nics)
        } else {
            0
        };
        self.text.clear();
        for j in 0..self.devices {
            let j64 = j as u64;
            let name = first + j;
            // reads and writes per centisecond, different per device
            let (r, w) = (1 + j64 % 7, 1 + j64 % 5);
            let (rd, wr) = (1_000_000 + r * k, 500_000 + w * k);
            let _ = writeln!(
                self.text,
                "{:4} {:7} nvme{name}n1 {rd} 0 {} {} {wr} 0 {} {} 0 {} {} 0 0 0 0 0 0",
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
        if self.nics > 0 {
            self.text.clear();
            self.text.push_str("Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n");
            for i in 0..self.nics {
                let (rx, tx) = (k * (1000 + i as u64), k * 700);
                let _ = writeln!(
                    self.text,
                    "veth{}: {rx} {} 0 0 0 0 0 0 {tx} {} 0 0 0 0 0 0",
                    first + i,
                    rx / 1000,
                    tx / 1000
                );
            }
            replace(&self.root.join("proc/net/dev"), &self.text);
        }
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

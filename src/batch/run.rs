//! The batch loop: sample, wait an interval, sample, print.

use super::Format;
use super::disks::{Selection, csv_header, report};
use crate::config::Units;
use crate::live::now_ms;
use crate::model::disk_tick::Baseline;
use crate::source::disks::DiskSource;
use std::io::Write;
use std::time::{Duration, Instant};

/// Prints `count` reports (or until interrupted), each over one interval:
/// never a since-boot report. Returns the process exit code.
pub fn run_disks(
    mut source: DiskSource,
    interval_s: f64,
    count: Option<u64>,
    format: Format,
    units: Units,
    sel: Selection,
) -> i32 {
    let mut out = std::io::stdout().lock();
    let first = match source.sample(now_ms()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    warn_rejected(&first.rejected);
    let mut baseline = Baseline::default();
    baseline.tick(&first);
    if format == Format::Csv && writeln!(out, "{}", csv_header(units)).is_err() {
        return 0;
    }
    if format == Format::Text {
        let banner = crate::source::host::host_info(&crate::source::rootfs::RootFs::default());
        let _ = writeln!(
            out,
            "Linux {} ({}) \t{} \t(strata batch disks)\n",
            banner.kernel,
            banner.hostname,
            crate::format::local_datetime(first.wall_ms)
        );
    }
    let start = Instant::now();
    let every = Duration::from_secs_f64(interval_s);
    let mut n = 0u64;
    while count.is_none_or(|c| n < c) {
        n += 1;
        let due = start + every.mul_f64(n as f64);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let cur = match source.sample(now_ms()) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("strata: {e}");
                continue;
            }
        };
        warn_rejected(&cur.rejected);
        let tick = baseline.tick(&cur);
        if tick.itv_cs.is_none() {
            eprintln!("strata: /proc/uptime did not advance (host rebooted?); new baseline taken");
        } else if write!(out, "{}", report(format, &tick, sel, units))
            .and_then(|_| out.flush())
            .is_err()
        {
            // the reader went away (a closed pipe): stop quietly
            return 0;
        }
    }
    0
}

fn warn_rejected(rejected: &[crate::parse::ParseError]) {
    for r in rejected {
        eprintln!("strata: skipped {r}");
    }
}

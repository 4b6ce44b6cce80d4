//! The batch loop: sample, wait an interval, sample, print.

use super::disks::{Selection, csv_header, report};
use super::{Format, printable};
use crate::config::Units;
use crate::live::now_ms;
use crate::model::disk_tick::Baseline;
use crate::source::SourceError;
use crate::source::disks::{DiskSample, DiskSource};
use crate::source::host::host_info;
use crate::source::rootfs::RootFs;
use std::io::Write;
use std::time::{Duration, Instant};

/// Prints `count` reports (or until interrupted), each over one interval:
/// never a since-boot report. `root` is the tree `source` reads, whose host
/// name and kernel head a text report. Returns the process exit code: 1 when
/// the first sample fails or any interval gives no report.
pub fn run_disks(
    mut source: DiskSource,
    root: &RootFs,
    interval_s: f64,
    count: Option<u64>,
    format: Format,
    units: Units,
    sel: Selection,
) -> i32 {
    let plan = Plan {
        interval_s,
        count,
        format,
        units,
        sel,
    };
    run(
        |wall_ms| source.sample(wall_ms),
        root,
        &plan,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr(),
    )
}

struct Plan {
    interval_s: f64,
    count: Option<u64>,
    format: Format,
    units: Units,
    sel: Selection,
}

/// `run_disks` over any sampler and streams, so tests can fail samples on
/// cue and read what was printed.
fn run(
    mut sample: impl FnMut(i64) -> Result<DiskSample, SourceError>,
    root: &RootFs,
    plan: &Plan,
    out: &mut impl Write,
    err: &mut impl Write,
) -> i32 {
    let Ok(every) = Duration::try_from_secs_f64(plan.interval_s) else {
        let _ = writeln!(err, "strata: no interval of {} s", plan.interval_s);
        return 1;
    };
    // Without a first reading there is nothing to diff against; a root that
    // cannot be read at all is better reported at once than every interval.
    let first = match sample(now_ms()) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "strata: {e}");
            return 1;
        }
    };
    warn_rejected(err, &first.rejected);
    let mut baseline = Baseline::default();
    baseline.tick(&first);
    let mut last_uptime_cs = first.uptime_cs;
    if plan.format == Format::Csv && writeln!(out, "{}", csv_header(plan.units)).is_err() {
        return 0;
    }
    if plan.format == Format::Text {
        let host = host_info(root);
        let _ = writeln!(
            out,
            "Linux {} ({}) \t{} \t(strata batch disks)\n",
            printable(&host.kernel),
            printable(&host.hostname),
            crate::format::local_datetime(first.wall_ms)
        );
    }
    let start = Instant::now();
    let mut missed = false;
    let mut n = 0u64;
    while plan.count.is_none_or(|c| n < c) {
        n += 1;
        // Deadlines count from the start, so a failed or slow sample still
        // uses up its interval and `--count N` ends after N intervals.
        let due = start + every.mul_f64(n as f64);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let cur = match sample(now_ms()) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(err, "strata: {e}");
                missed = true;
                continue;
            }
        };
        warn_rejected(err, &cur.rejected);
        let went_back = cur.uptime_cs < last_uptime_cs;
        last_uptime_cs = cur.uptime_cs;
        let tick = baseline.tick(&cur);
        if tick.itv_cs.is_none() {
            missed = true;
            let why = if went_back {
                "uptime went backwards (host rebooted?): new baseline taken"
            } else {
                "uptime did not advance: no interval to report"
            };
            let _ = writeln!(err, "strata: {why}");
        } else if write!(out, "{}", report(plan.format, &tick, plan.sel, plan.units))
            .and_then(|_| out.flush())
            .is_err()
        {
            // The reader went away (a closed pipe): stop without a word, but
            // still own up to intervals already missed.
            break;
        }
    }
    i32::from(missed)
}

fn warn_rejected(err: &mut impl Write, rejected: &[crate::parse::ParseError]) {
    for r in rejected {
        let _ = writeln!(err, "strata: skipped {r}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;

    const DISKSTATS: &str = "   8       0 sda 100 0 800 50 10 0 80 20 0 60 70\n";

    /// A host with one disk that nobody touches: its counters never move.
    fn fake_root(hostname: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let kernel = dir.path().join("proc/sys/kernel");
        fs::create_dir_all(&kernel).unwrap();
        fs::write(kernel.join("hostname"), format!("{hostname}\n")).unwrap();
        fs::write(kernel.join("osrelease"), "6.1.0-fake\n").unwrap();
        set_uptime(dir.path(), "1000.00");
        fs::write(dir.path().join("proc/diskstats"), DISKSTATS).unwrap();
        dir
    }

    fn set_uptime(root: &Path, secs: &str) {
        fs::write(root.join("proc/uptime"), format!("{secs} 2000.00\n")).unwrap();
    }

    fn plan(count: u64, format: Format) -> Plan {
        Plan {
            interval_s: 0.1,
            count: Some(count),
            format,
            units: Units::KB,
            sel: Selection::default(),
        }
    }

    /// Runs the loop over `root`, setting /proc/uptime to each of `uptimes`
    /// in turn before a sample; the last one stays once they run out.
    fn run_with_uptimes(root: &Path, uptimes: &[&str], plan: &Plan) -> (i32, String, String) {
        let fs = RootFs::new(root);
        let mut source = DiskSource::new(fs.clone());
        let mut uptimes = uptimes.iter();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(
            |wall_ms| {
                if let Some(secs) = uptimes.next() {
                    set_uptime(root, secs);
                }
                source.sample(wall_ms)
            },
            &fs,
            plan,
            &mut out,
            &mut err,
        );
        let text = |v: Vec<u8>| String::from_utf8(v).unwrap();
        (code, text(out), text(err))
    }

    #[test]
    fn the_banner_names_the_host_under_root() {
        let root = fake_root("fake\u{1b}[2Jhost");
        let (_, out, _) =
            run_with_uptimes(root.path(), &["1000.00", "1001.00"], &plan(1, Format::Text));
        assert!(
            out.starts_with("Linux 6.1.0-fake (fake?[2Jhost) \t"),
            "{out}"
        );
        assert!(out.contains("\nsda "), "{out}");
    }

    #[test]
    fn reports_over_advancing_uptime_exit_0() {
        let root = fake_root("h");
        let uptimes = ["1000.00", "1001.00", "1002.00"];
        let (code, out, err) = run_with_uptimes(root.path(), &uptimes, &plan(2, Format::Csv));
        assert_eq!((code, err.as_str()), (0, ""));
        assert_eq!(
            out.lines().filter(|l| l.contains(",sda,")).count(),
            2,
            "{out}"
        );
    }

    #[test]
    fn a_static_root_says_uptime_did_not_advance_and_exits_1() {
        let root = fake_root("h");
        let (code, out, err) = run_with_uptimes(root.path(), &[], &plan(2, Format::Csv));
        assert_eq!(code, 1);
        assert_eq!(out.lines().count(), 1, "only the header: {out}");
        assert_eq!(
            err,
            "strata: uptime did not advance: no interval to report\n".repeat(2)
        );
    }

    #[test]
    fn only_a_clock_that_went_back_suggests_a_reboot() {
        let root = fake_root("h");
        let uptimes = ["1000.00", "1001.00", "5.00", "5.00", "6.00"];
        let (code, out, err) = run_with_uptimes(root.path(), &uptimes, &plan(4, Format::Csv));
        assert_eq!(code, 1);
        assert_eq!(
            out.lines().filter(|l| l.contains(",sda,")).count(),
            2,
            "{out}"
        );
        assert_eq!(
            err,
            "strata: uptime went backwards (host rebooted?): new baseline taken\n\
             strata: uptime did not advance: no interval to report\n"
        );
    }

    #[test]
    fn failed_samples_use_up_their_intervals_and_exit_1() {
        let root = fake_root("h");
        let fs = RootFs::new(root.path());
        let mut source = DiskSource::new(fs.clone());
        let mut samples = 0;
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let started = Instant::now();
        let code = run(
            |wall_ms| {
                samples += 1;
                if samples > 1 {
                    // /proc gone from under a live --root
                    let _ = fs::remove_file(root.path().join("proc/diskstats"));
                }
                source.sample(wall_ms)
            },
            &fs,
            &plan(3, Format::Csv),
            &mut out,
            &mut err,
        );
        let elapsed = started.elapsed();
        assert_eq!(code, 1);
        assert_eq!(samples, 4, "the baseline, then one per interval");
        assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
        let err = String::from_utf8(err).unwrap();
        assert_eq!(err.lines().count(), 3, "{err}");
        assert!(
            err.lines().all(|l| l.starts_with("strata: cannot read ")),
            "{err}"
        );
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 1);
    }

    #[test]
    fn an_unreadable_root_fails_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fs = RootFs::new(dir.path());
        let mut source = DiskSource::new(fs.clone());
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let started = Instant::now();
        let code = run(
            |wall_ms| source.sample(wall_ms),
            &fs,
            &plan(1000, Format::Text),
            &mut out,
            &mut err,
        );
        assert_eq!(code, 1);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(out.is_empty());
        assert_eq!(String::from_utf8(err).unwrap().lines().count(), 1);
    }
}

//! The batch loop: sample, wait an interval, sample, print. One loop for
//! every panel; a panel plugs in through [`Report`].

use super::printable;
use crate::core::boundary::{self, FirstInterval};
use crate::core::clock::now_ms;
use crate::core::duration::Interval;
use crate::core::error::ParseError;
use crate::core::host::host_info;
use crate::core::rootfs::RootFs;
use crate::layers::report::{Format, Report};
use std::io::Write;

// main.rs and tests/recordings/export.rs name it here.

/// Prints `count` reports of `panel` (or until interrupted), each over one
/// interval: never a since-boot report. `root` is the tree the panel's
/// source reads, whose host name and kernel head a text report. Returns the
/// process exit code: 1 when the first sample fails or any interval gives
/// no report.
pub fn run_report(
    panel: &mut (impl Report + ?Sized),
    root: &RootFs,
    interval: Interval,
    count: Option<u64>,
    format: Format,
) -> i32 {
    run(
        panel,
        root,
        interval,
        count,
        format,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr(),
    )
}

/// `run_report` over any streams, so tests can read what was printed.
fn run(
    panel: &mut (impl Report + ?Sized),
    root: &RootFs,
    interval: Interval,
    count: Option<u64>,
    format: Format,
    out: &mut impl Write,
    err: &mut impl Write,
) -> i32 {
    let every = interval.duration();
    // Without a first reading there is nothing to diff against; a root that
    // cannot be read at all is better reported at once than every interval.
    let first = match panel.sample(now_ms()) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "strata: {e}");
            return 1;
        }
    };
    warn_rejected(err, &first.rejected);
    let mut last_uptime_cs = first.uptime_cs;
    if format == Format::Csv && writeln!(out, "{}", panel.csv_header()).is_err() {
        return 0;
    }
    if format == Format::Text {
        let what = format!("strata batch {}", panel.panel());
        let _ = writeln!(out, "{}", banner(&host_info(root), first.wall_ms, &what));
    }
    let interval_ms = i64::try_from(every.as_millis()).unwrap_or(i64::MAX);
    let mut first_interval = FirstInterval::default();
    let mut missed = false;
    let mut n = 0u64;
    while count.is_none_or(|c| n < c) {
        // At the wall clock's boundaries, as the screen, recordings and
        // nodes sample: a row stamped 18:02:54 is then the same interval
        // in each of them. Read at this run's own phase, the same stamp
        // covered another window. A failed or slow sample still uses up
        // its interval.
        boundary::sleep_to_next(every);
        let cur = match panel.sample(now_ms()) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(err, "strata: {e}");
                missed = true;
                n += 1;
                continue;
            }
        };
        warn_rejected(err, &cur.rejected);
        let went_back = cur.uptime_cs < last_uptime_cs;
        last_uptime_cs = cur.uptime_cs;
        // The baseline was read at start, between two boundaries: a first
        // interval shorter than half is another baseline, as export and
        // `--node` leave it out, and --count counts the next.
        let left_out = cur
            .itv_cs
            .and_then(|cs| first_interval.left_out(cs, interval_ms))
            .is_some();
        match cur.report {
            Some(_) if left_out => {}
            None => {
                n += 1;
                missed = true;
                let why = if went_back {
                    "uptime went backwards (host rebooted?): new baseline taken"
                } else {
                    "uptime did not advance: no interval to report"
                };
                let _ = writeln!(err, "strata: {why}");
            }
            Some(text) => {
                n += 1;
                if write!(out, "{text}").and_then(|_| out.flush()).is_err() {
                    // The reader went away (a closed pipe): stop without a
                    // word, but still own up to intervals already missed.
                    break;
                }
            }
        }
    }
    i32::from(missed)
}

/// The first line of a text report, as sysstat's: the kernel, the host,
/// the time of the first reading and what prints the report; then a blank
/// line.
pub fn banner(host: &crate::core::host::HostInfo, wall_ms: i64, what: &str) -> String {
    format!(
        "Linux {} ({}) \t{} \t({what})\n",
        printable(&host.kernel),
        printable(&host.hostname),
        crate::format::local_datetime(wall_ms),
    )
}

fn warn_rejected(err: &mut impl Write, rejected: &[ParseError]) {
    for r in rejected {
        let _ = writeln!(err, "strata: skipped {r}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::SourceError;
    use crate::layers::col::Units;
    use crate::layers::disks::report::{DiskReport, Selection};
    use crate::layers::disks::source::DiskSource;
    use crate::layers::report::Sampled;
    use std::fs;
    use std::path::Path;
    use std::time::Duration;
    use std::time::Instant;

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

    /// Every 0.1 s, `count` times, in `format`.
    struct Plan {
        count: u64,
        format: Format,
    }

    fn plan(count: u64, format: Format) -> Plan {
        Plan { count, format }
    }

    fn disks(fs: &RootFs, plan: &Plan) -> DiskReport {
        DiskReport::new(
            DiskSource::new(fs.clone()),
            plan.format,
            Units::KB,
            Selection::default(),
        )
    }

    fn run_plan(
        panel: &mut (impl Report + ?Sized),
        fs: &RootFs,
        plan: &Plan,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> i32 {
        run(
            panel,
            fs,
            crate::core::duration::Interval::from_secs(0.1).unwrap(),
            Some(plan.count),
            plan.format,
            out,
            err,
        )
    }

    /// A report whose reading runs `before` first.
    struct Hooked<R, F> {
        inner: R,
        before: F,
    }

    impl<R: Report, F: FnMut()> Report for Hooked<R, F> {
        fn panel(&self) -> &'static str {
            self.inner.panel()
        }
        fn csv_header(&self) -> String {
            self.inner.csv_header()
        }
        fn sample(&mut self, wall_ms: i64) -> Result<Sampled, SourceError> {
            (self.before)();
            self.inner.sample(wall_ms)
        }
    }

    /// Runs the loop over `root`, setting /proc/uptime to each of `uptimes`
    /// in turn before a sample; the last one stays once they run out.
    fn run_with_uptimes(root: &Path, uptimes: &[&str], plan: &Plan) -> (i32, String, String) {
        let fs = RootFs::new(root);
        let mut uptimes = uptimes.iter();
        let mut panel = Hooked {
            inner: disks(&fs, plan),
            before: || {
                if let Some(secs) = uptimes.next() {
                    set_uptime(root, secs);
                }
            },
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run_plan(&mut panel, &fs, plan, &mut out, &mut err);
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
        let plan = plan(3, Format::Csv);
        let mut samples = 0;
        let mut panel = Hooked {
            inner: disks(&fs, &plan),
            before: || {
                samples += 1;
                if samples > 1 {
                    // /proc gone from under a live --root
                    let _ = fs::remove_file(root.path().join("proc/diskstats"));
                }
            },
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let started = Instant::now();
        let code = run_plan(&mut panel, &fs, &plan, &mut out, &mut err);
        drop(panel);
        let elapsed = started.elapsed();
        assert_eq!(code, 1);
        assert_eq!(samples, 4, "the baseline, then one per interval");
        // three boundaries after the baseline: the first a tenth of an
        // interval away at the least, then two whole intervals
        assert!(elapsed >= Duration::from_millis(210), "{elapsed:?}");
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
        let plan = plan(1000, Format::Text);
        let mut panel = disks(&fs, &plan);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let started = Instant::now();
        let code = run_plan(&mut panel, &fs, &plan, &mut out, &mut err);
        assert_eq!(code, 1);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(out.is_empty());
        assert_eq!(String::from_utf8(err).unwrap().lines().count(), 1);
    }
}

//! `strata export` and `strata summary` over a session recorded from the
//! fixture host. The host's disks, NICs and NFS mounts are read by the real
//! sources from a tree rewritten each second; `strata batch`'s own reports
//! (the Report a live `strata batch PANEL` runs) read the same tree at the
//! same moments, so an export can be held to what batch printed live.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::layers::{bonding_text, mountstats_text, netdev_text};
use common::{cache_sample, diskstats_text, fixture_root, sample};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use strata::app::Input;
use strata::config::Config;
use strata::core::host::SelfUsage;
use strata::core::rootfs::RootFs;
use strata::export::cmd::{ExportArgs, run_export, run_summary};
use strata::export::summary::{Summary, stats, summarize};
use strata::export::window::between_markers;
use strata::layers::LayerId;
use strata::layers::cells::source::CellEvent;
use strata::layers::disks::report::DiskReport;
use strata::layers::disks::report::Selection;
use strata::layers::disks::source::DiskSource;
use strata::layers::nfs::report::NfsReport;
use strata::layers::nfs::source::NfsSource;
use strata::layers::nics::report::NicReport;
use strata::layers::nics::source::NicSource;
use strata::layers::report::Format;
use strata::layers::report::Report;
use strata::link::HostStatus;
use strata::recording::control::meta_of;
use strata::recording::session::{Player, Recorder};

const T0: i64 = 1_795_000_000_000;
/// Samples: over a minute, so the file holds several chunks.
const N: u64 = 75;
const RAMP: &str = "ramp to 64 users";
const STEADY: &str = "steady";

/// A recording, and what `strata batch disks|nics|nfs --format csv` printed
/// live over the same samples: the CSV header, then each sample's report
/// (`None` for the first, which has no interval).
struct Fixture {
    path: PathBuf,
    batch: Vec<(LayerId, String, Vec<Option<String>>)>,
}

fn write_tree(root: &Path, k: u64) {
    let w = |p: &str, text: String| std::fs::write(root.join(p), text).unwrap();
    let uptime_cs = 100_000 + k * 100;
    w(
        "proc/uptime",
        format!("{}.{:02} 0.00\n", uptime_cs / 100, uptime_cs % 100),
    );
    w("proc/diskstats", diskstats_text(k));
    w("proc/net/dev", netdev_text(k));
    w("proc/net/bonding/bond0", bonding_text(1));
    w("proc/self/mountstats", mountstats_text(k));
}

fn record_into(dir: &Path) -> Fixture {
    let root = dir.join("root");
    for d in ["proc/net/bonding", "proc/self"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::os::unix::fs::symlink(fixture_root().join("sys"), root.join("sys")).unwrap();
    let fs = RootFs::new(root.clone());
    let app = common::recorded_app();
    let units = app.config.units;
    let sel = Selection {
        partitions: app.config.show_partitions,
        all_devices: app.config.show_all_devices,
        mapper_names: false,
    };
    let path = dir.join("run.strec");
    let mut rec = Recorder::create(&path, &meta_of(&app, T0)).unwrap();
    // The sources the live loop reads, and the reports live batch runs.
    let (mut disks, mut nics, mut nfs) = (
        DiskSource::new(fs.clone()),
        NicSource::new(fs.clone()),
        NfsSource::new(fs.clone()),
    );
    let mut batch_disks = DiskReport::new(DiskSource::new(fs.clone()), Format::Csv, units, sel);
    let mut batch_nics = NicReport::new(NicSource::new(fs.clone()), Format::Csv, false);
    let mut batch_nfs = NfsReport::new(NfsSource::new(fs.clone()), Format::Csv);
    let mut printed: [Vec<Option<String>>; 3] = Default::default();
    for k in 0..N {
        write_tree(&root, k);
        let t = T0 + k as i64 * 1000;
        let mut inputs = vec![
            (t + 3, Input::Disks(Ok(disks.sample(t).unwrap()))),
            (t + 5, Input::Nfs(Ok(nfs.sample(t).unwrap()))),
            (t + 6, Input::Cache(Ok(cache_sample(k)))),
            (t + 8, Input::Nics(Ok(nics.sample(t).unwrap()))),
        ];
        printed[0].push(batch_disks.sample(t).unwrap().report);
        printed[1].push(batch_nics.sample(t).unwrap().report);
        printed[2].push(batch_nfs.sample(t).unwrap().report);
        if k == 0 {
            for cell in 0..2 {
                let status = HostStatus::Live;
                inputs.push((t + 1, Input::Cell(CellEvent::Status { cell, status })));
            }
        }
        for cell in 0..2 {
            let mut s = sample(k + 7 * cell as u64);
            s.wall_ms = t + 20 + cell as i64;
            inputs.push((t + 20, Input::Cell(CellEvent::Sample { cell, sample: s })));
        }
        for (at_k, label) in [(20, RAMP), (50, STEADY)] {
            if k == at_k {
                let label = label.to_string();
                inputs.push((
                    t + 50,
                    Input::Marker {
                        wall_ms: t + 50,
                        label,
                    },
                ));
            }
        }
        let usage = SelfUsage {
            cpu_pct: Some(1.0),
            rss_bytes: Some(20 << 20),
            ..SelfUsage::default()
        };
        let now_ms = t + 900;
        inputs.push((now_ms, Input::Clock { now_ms, usage }));
        for (at, input) in inputs {
            rec.record(at, &input).unwrap();
        }
    }
    rec.close().unwrap();
    let [d, n, f] = printed;
    Fixture {
        path,
        batch: vec![
            (
                LayerId::Disks,
                strata::layers::disks::report::csv_header(units),
                d,
            ),
            (LayerId::Nics, strata::layers::nics::report::csv_header(), n),
            (LayerId::Nfs, strata::layers::nfs::report::csv_header(), f),
        ],
    }
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<(tempfile::TempDir, Fixture)> = OnceLock::new();
    &F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let f = record_into(dir.path());
        (dir, f)
    })
    .1
}

/// What batch printed for `panel` over samples `ks`: its header, then the
/// reports.
fn batch_csv(panel: LayerId, ks: std::ops::RangeInclusive<usize>) -> String {
    let (_, header, reports) = fixture().batch.iter().find(|b| b.0 == panel).unwrap();
    let mut s = format!("{header}\n");
    for r in &reports[ks] {
        s.push_str(r.as_deref().unwrap_or(""));
    }
    s
}

fn export(args: ExportArgs) -> (i32, String, String) {
    export_file(&fixture().path, args)
}

fn export_file(path: &Path, args: ExportArgs) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_export(path, &args, &mut out, &mut err);
    let s = |v: Vec<u8>| String::from_utf8(v).unwrap();
    (code, s(out), s(err))
}

fn csv_of(panel: LayerId) -> ExportArgs {
    ExportArgs {
        format: Some(Format::Csv),
        panel: Some(panel),
        ..ExportArgs::default()
    }
}

#[test]
fn an_export_is_what_batch_printed_live_over_the_same_samples() {
    for panel in [LayerId::Disks, LayerId::Nics, LayerId::Nfs] {
        let (code, out, err) = export(csv_of(panel));
        assert_eq!((code, err.as_str()), (0, ""), "{panel:?}");
        let want = batch_csv(panel, 0..=N as usize - 1);
        // the comparison is of many rows, not of two empty outputs
        assert!(want.lines().count() > N as usize, "{panel:?}: {want}");
        assert_eq!(out, want, "{panel:?}");
    }
}

#[test]
fn from_and_to_cut_the_rows_exactly() {
    let at = |k: i64| strata::format::local_datetime(T0 + k * 1000);
    let want = batch_csv(LayerId::Disks, 10..=20);
    // a full local date and time, a bare time of day, offsets from the start
    // and from the end (the last sample is at +74 s, the end at +74.9 s)
    let time_of_day = |k| at(k).split_once(' ').unwrap().1.to_string();
    for (from, to) in [
        (at(10), at(20)),
        (time_of_day(10), time_of_day(20)),
        ("+10s".to_string(), "+20s".to_string()),
        ("+10s".to_string(), "-54s".to_string()),
    ] {
        let (code, out, err) = export(ExportArgs {
            from: Some(from.clone()),
            to: Some(to.clone()),
            ..csv_of(LayerId::Disks)
        });
        assert_eq!((code, err.as_str()), (0, ""), "{from} {to}");
        assert_eq!(out, want, "--from {from} --to {to}");
    }
    // The stamps of the rows are the samples' own.
    let iso = |k: i64| strata::format::iso_datetime(T0 + k * 1000);
    let stamps: std::collections::BTreeSet<&str> = want
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    let expected: std::collections::BTreeSet<String> = (10..=20).map(iso).collect();
    assert_eq!(
        stamps,
        expected.iter().map(String::as_str).collect(),
        "one report per second from 10 to 20"
    );
}

/// The cells' rounds are at their samples' time, 20 ms after the second
/// they print as: `--to` of that second keeps them (it ended at the
/// second's first millisecond, so `--from T --to T` held nothing), and
/// the summary counts the same round.
#[test]
fn a_to_time_keeps_the_rows_printed_as_it() {
    let at = |k: i64| strata::format::local_datetime(T0 + k * 1000);
    let iso = |k: i64| strata::format::iso_datetime(T0 + k * 1000);
    for (from, ks) in [(at(20), 20..=20), (at(18), 18..=20)] {
        let (code, out, err) = export(ExportArgs {
            from: Some(from.clone()),
            to: Some(at(20)),
            ..csv_of(LayerId::Cells)
        });
        assert_eq!((code, err.as_str()), (0, ""), "--from {from}");
        let stamps: Vec<&str> = out
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap())
            .collect();
        // a round's rows: each cell's and all cells'
        let want: Vec<String> = ks.flat_map(|k| [iso(k), iso(k), iso(k)]).collect();
        assert_eq!(stamps, want, "--from {from} --to {}", at(20));
    }
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let (from, to) = (at(20), at(20));
    let code = run_summary(
        &fixture().path,
        None,
        Some(&from),
        Some(&to),
        Format::Text,
        &mut out,
        &mut err,
    );
    let out = String::from_utf8(out).unwrap();
    assert_eq!(code, 0, "{out}{}", String::from_utf8_lossy(&err));
    assert!(
        out.contains("samples  disks 1 · nfs 1 · cache 1 · nics 1 · cells 1"),
        "{out}"
    );
}

#[test]
fn json_parses_and_carries_every_figure_of_the_csv() {
    let (code, json, err) = export(ExportArgs {
        format: Some(Format::Json),
        ..csv_of(LayerId::Disks)
    });
    assert_eq!((code, err.as_str()), (0, ""));
    let (_, csv, _) = export(csv_of(LayerId::Disks));
    let mut csv = csv.lines();
    let header: Vec<&str> = csv.next().unwrap().split(',').collect();
    let rows: Vec<&str> = csv.collect();
    let objects: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objects.len(), rows.len());
    let units = Config::default().units;
    for (o, row) in objects.iter().zip(&rows) {
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(o["disk_device"], fields[2]);
        for c in &strata::layers::disks::model::DISK_COLS {
            let key = c.col.def().json_key;
            let at = header
                .iter()
                .position(|h| *h == units.header(c.col))
                .unwrap();
            let v = o.get(key).unwrap_or_else(|| panic!("{key} missing in {o}"));
            match fields[at] {
                "" => assert!(v.is_null(), "{key}: {v}"),
                f => assert_eq!(v.as_f64(), Some(f.parse::<f64>().unwrap()), "{key}"),
            }
        }
    }
    // Without --panel: every panel, each object named by its panel.
    let (code, all, err) = export(ExportArgs {
        format: Some(Format::Json),
        ..ExportArgs::default()
    });
    assert_eq!((code, err.as_str()), (0, ""));
    let mut panels = std::collections::BTreeSet::new();
    for l in all.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        panels.insert(v["panel"].as_str().unwrap().to_string());
    }
    let want = ["cache", "cells", "disks", "nfs", "nics"];
    assert_eq!(panels.iter().map(String::as_str).collect::<Vec<_>>(), want);
    assert_eq!(
        all.lines()
            .filter(|l| l.starts_with("{\"panel\": \"disks\""))
            .count(),
        objects.len()
    );
}

#[test]
fn csv_without_a_panel_names_the_panels_to_choose_from() {
    let (code, out, err) = export(ExportArgs {
        format: Some(Format::Csv),
        ..ExportArgs::default()
    });
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("needs --panel") && err.contains("disks, nfs, cache, nics, cells"),
        "{err}"
    );
}

/// Total reads per second of the fixture host at second `k`, from the
/// load tests/common/mod.rs generates: the whole disks at the bottom of
/// the stack (sda, sdb, sdc, nvme0n1; the dm devices sit on them), each
/// `r * wave(k) / 100` reads in a 1 s interval.
fn total_reads(k: u64) -> f64 {
    // (index in the fixture's device table, reads per second)
    let disks = [(0u64, 40u64), (3, 900), (4, 880), (5, 12_000)];
    disks
        .iter()
        .map(|&(i, r)| r * (100 + (k * 7 + i * 13) % 60) / 100)
        .sum::<u64>() as f64
}

fn summary_between(a: &str, b: &str) -> Summary {
    let mut player = Player::open(&fixture().path).unwrap();
    let w = between_markers(a, b, player.markers()).unwrap();
    summarize(&mut player, &w)
}

#[test]
fn a_summary_between_markers_is_the_stats_of_the_samples_between_them() {
    let s = summary_between(RAMP, STEADY);
    // The markers are at 20.05 s and 50.05 s: samples 21 to 50.
    // (the last is the cells' round of second 50, at their samples' time)
    assert_eq!(
        (s.first_ms, s.last_ms),
        (Some(T0 + 21_000), Some(T0 + 50_021))
    );
    let disks = s.samples.iter().find(|(p, _)| *p == LayerId::Disks);
    assert_eq!(disks, Some(&(LayerId::Disks, 30)));
    let mut v: Vec<f64> = (21..=50).map(total_reads).collect();
    let got = s
        .figure(LayerId::Disks, "total", "r/s")
        .unwrap()
        .stats()
        .unwrap();
    v.sort_by(f64::total_cmp);
    // The model divides by the interval in floating point (14561 reads in
    // 1.00 s come out as 14561.000000000002): equal to a part in 10^12.
    let near = |a: f64, b: f64| (a - b).abs() <= b.abs() * 1e-12;
    assert_eq!(got.n, 30);
    assert!(near(got.min, v[0]), "min {} vs {}", got.min, v[0]);
    assert!(near(got.max, v[29]), "max {} vs {}", got.max, v[29]);
    // nearest rank: ceil(0.95 * 30) = 29th smallest (a neighbour is at
    // least one read away)
    assert!(near(got.p95, v[28]), "p95 {} vs {}", got.p95, v[28]);
    assert!(v[28] != v[27] && v[28] != v[29], "{v:?}");
    let avg = v.iter().sum::<f64>() / 30.0;
    assert!(near(got.avg, avg), "avg {} vs {avg}", got.avg);
    // the figures do move over the window: not a constant's statistics
    assert!(v[0] < v[29], "{v:?}");
    // The library's stats are the same function the test leans on nowhere
    // else: an independent check of it on these values.
    assert_eq!(stats(&v).map(|s| s.p95), Some(v[28]));
}

#[test]
fn a_figure_never_known_prints_a_dash() {
    // The NFSv4.1 home mount is idle: no READ completes, so there is no
    // round trip in any sample (nfsiostat prints 0.000), while its ops/s
    // (0) is known.
    let s = summary_between(RAMP, STEADY);
    let rtt = s.figure(LayerId::Nfs, "/home/oracle", "r RTT ms").unwrap();
    assert!(rtt.values.is_empty() && rtt.stats().is_none());
    let ops = s.figure(LayerId::Nfs, "/home/oracle", "ops/s").unwrap();
    assert_eq!(ops.stats().map(|s| (s.n, s.max)), Some((30, 0.0)));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let between = [RAMP.to_string(), STEADY.to_string()];
    let code = run_summary(
        &fixture().path,
        Some(&between),
        None,
        None,
        Format::Text,
        &mut out,
        &mut err,
    );
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let text = String::from_utf8(out).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("nfs") && l.contains("/home/oracle") && l.contains("r RTT ms"))
        .unwrap_or_else(|| panic!("{text}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[cells.len() - 5..], ["0", "–", "–", "–", "–"], "{row}");
}

fn strata(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .env("HOME", fixture().path.parent().unwrap())
        .output()
        .unwrap();
    let s = |v: Vec<u8>| String::from_utf8(v).unwrap();
    (
        out.status.code().unwrap_or(-1),
        s(out.stdout),
        s(out.stderr),
    )
}

#[test]
fn the_binary_exports_and_sums_up_a_recording() {
    let file = fixture().path.to_str().unwrap();
    let (code, out, err) = strata(&["export", file, "--panel", "disks", "--format", "csv"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out, batch_csv(LayerId::Disks, 0..=N as usize - 1));

    let (code, out, err) = strata(&["summary", file, "--between", RAMP, STEADY]);
    assert_eq!((code, err.as_str()), (0, ""));
    let v: Vec<f64> = (21..=50).map(total_reads).collect();
    let max = v.iter().copied().fold(f64::MIN, f64::max);
    let row = out
        .lines()
        .find(|l| l.starts_with("disks") && l.contains("total") && l.contains(" r/s "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(row.ends_with(&format!("{max:.2}")), "{row}");
    // 30 samples of 1 s are 30 s of figures (it said 29, the time
    // between the first and the last).
    let window = out.lines().find(|l| l.starts_with("window")).unwrap();
    assert!(window.contains(&format!("({} s)", v.len())), "{window}");
    assert!(
        out.contains("between markers \"ramp to 64 users\" and \"steady\""),
        "{out}"
    );

    let (code, out, err) = strata(&["summary", file, "--format", "json", "--from", "+30s"]);
    assert_eq!((code, err.as_str()), (0, ""));
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["samples"]["disks"], 45, "samples 30 to 74");

    // A window past the end: the table of unknowns, and exit 1.
    let (code, out, err) = strata(&["summary", file, "--from", "+100s"]);
    assert_eq!(code, 1);
    assert!(err.contains("no sample in the window"), "{err}");
    assert!(out.contains("samples  none"), "{out}");
}

#[test]
fn bad_panels_times_and_markers_exit_2_with_a_clear_message() {
    let file = fixture().path.to_str().unwrap();
    let (code, _, err) = strata(&["export", file, "--panel", "disk"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("invalid value 'disk'") && err.contains("disks"),
        "{err}"
    );
    let (code, _, err) = strata(&["export", file, "--from", "25:00"]);
    assert_eq!(code, 2);
    assert!(err.contains("\"25:00\" is not a time"), "{err}");
    let (code, _, err) = strata(&["summary", file, "--to", "-1x"]);
    assert_eq!(code, 2);
    assert!(err.contains("\"-1x\" is not a time"), "{err}");
    let (code, _, err) = strata(&["summary", file, "--between", "ramp", STEADY]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no marker \"ramp\"; its markers: ")
            && err.contains("\"ramp to 64 users\"")
            && err.contains("\"steady\""),
        "{err}"
    );
}

#[test]
fn a_damaged_file_exports_up_to_the_damage_and_exits_3() {
    let f = fixture();
    let whole = std::fs::read(&f.path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.strec");
    // Into the last chunk: the first minute's chunk before it is whole.
    std::fs::write(&cut, &whole[..whole.len() - 64]).unwrap();
    let (code, out, err) = export_file(&cut, csv_of(LayerId::Disks));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("strata: recording"), "{err}");
    let full = batch_csv(LayerId::Disks, 0..=N as usize - 1);
    let diff = full.lines().zip(out.lines()).find(|(a, b)| a != b);
    assert!(
        full.starts_with(&out),
        "the rows before the damage, as they were: {diff:?} {err}"
    );
    assert!(out.lines().count() > 1 && out.len() < full.len(), "{out}");

    // A version this strata does not know is refused whole, by name.
    let mut b = whole.clone();
    b[8..10].copy_from_slice(&99u16.to_le_bytes());
    let crc = crc32fast::hash(&b[..20]);
    b[20..24].copy_from_slice(&crc.to_le_bytes());
    let newer = dir.path().join("newer.strec");
    std::fs::write(&newer, &b).unwrap();
    let (code, out, err) = export_file(&newer, csv_of(LayerId::Disks));
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("cannot read") && err.contains("version"),
        "{err}"
    );
}

/// A recording of page-cache samples taken at these uptimes (cs after
/// the first), the wall clock moving with them; its export as JSON.
fn cache_at(path: &Path, at: &[u64]) -> (i32, String, String) {
    let app = common::recorded_app();
    let mut rec = Recorder::create(path, &meta_of(&app, T0)).unwrap();
    for (k, at) in at.iter().enumerate() {
        let mut s = cache_sample(k as u64);
        s.uptime_cs = 100_000 + at;
        s.wall_ms = T0 + *at as i64 * 10;
        rec.record(s.wall_ms + 2, &Input::Cache(Ok(s))).unwrap();
    }
    rec.close().unwrap();
    let json = ExportArgs {
        format: Some(Format::Json),
        panel: Some(LayerId::Cache),
        ..ExportArgs::default()
    };
    export_file(path, json)
}

/// The intervals of the memory rows of a cache export.
fn memory_intervals(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["record"] == "memory")
        .map(|v| v["interval_s"].to_string())
        .collect()
}

/// The recorder's first interval is partial (it aligns its samples on the
/// clock): that 0.29 s row is left out of an export, said on stderr, and
/// not counted by the summary, whose window starts a whole interval before
/// its first full one.
#[test]
fn a_partial_first_interval_is_left_out_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("partial.strec");
    // 0, 0.29 s, then 1 s apart
    let (code, out, err) = cache_at(&path, &[0, 29, 129, 229, 329, 429]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("a 0.29 s interval left out (shorter than half the 1.00 s interval)"),
        "{err}"
    );
    let intervals = memory_intervals(&out);
    assert_eq!(intervals, ["1.0"; 4], "samples 2 to 5: {out}");
    let mut player = Player::open(&path).unwrap();
    let s = summarize(&mut player, &strata::export::Window::ALL);
    assert_eq!(
        s.samples.iter().find(|(p, _)| *p == LayerId::Cache),
        Some(&(LayerId::Cache, 4))
    );
    assert_eq!(s.first_ms, Some(T0 + 1290));
}

/// A short interval later in the run is a real one: a sample 0.6 s late
/// (a read that hung on a busy server) leaves 1.6 s, then 0.4 s, and both
/// are exported, since that is when the storage is in trouble.
#[test]
fn a_short_interval_after_a_late_sample_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late.strec");
    // 0, 1, 2.6, 3, 4 s
    let (code, out, err) = cache_at(&path, &[0, 100, 260, 300, 400]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("left out"), "{err}");
    let intervals = memory_intervals(&out);
    assert_eq!(intervals, ["1.0", "1.6", "0.4", "1.0"], "{out}");
}

/// A cell's first interval is partial too (cel02's is 0.14 s in the first
/// demo recording, of 2026-11-22, kept as a fixture): the round that
/// counts it is left out of the cells' export and summary, and said.
#[test]
fn a_round_with_a_cells_partial_interval_is_left_out_and_said() {
    let demo = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/recordings/demo-2026-11-22.strec"
    ));
    let (code, out, err) = export_file(demo, csv_of(LayerId::Cells));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("cel02: a 0.14 s interval left out (shorter than half the 1.00 s interval)"),
        "{err}"
    );
    let head: Vec<&str> = out.lines().next().unwrap().split(',').collect();
    let col = head.iter().position(|h| *h == "interval_s").unwrap();
    let short: Vec<&str> = out
        .lines()
        .skip(1)
        .filter(|l| {
            let v = l.split(',').nth(col).unwrap_or("");
            v.parse::<f64>().is_ok_and(|s| s < 0.5)
        })
        .collect();
    assert!(short.is_empty(), "{short:?}");
    let rounds = out.lines().filter(|l| l.contains(",all,")).count();
    let mut player = Player::open(demo).unwrap();
    let s = summarize(&mut player, &strata::export::Window::ALL);
    let cells = s.samples.iter().find(|(p, _)| *p == LayerId::Cells);
    assert_eq!(cells, Some(&(LayerId::Cells, rounds)));
}

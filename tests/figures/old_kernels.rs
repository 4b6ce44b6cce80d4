//! Every host layer over the old kernels' trees (tests/fixtures/kernels):
//! Red Hat 3.10 and UEK5 4.14 (14-field diskstats, NFSv3 with 8-field
//! per-op lines, no PSI), UEK6 5.4 (discards, NFSv4.1, PSI without a cpu
//! `full` line) and UEK7 5.15 (flushes, the split refault counters).
//!
//! Each tree is sampled, then moved 10,000 s on with every counter
//! doubled (tests/common/kernels.rs), so each rate is the tree's own
//! counter over 10,000 s: worked out here from the fixture's text, not from
//! strata's parsers. What a kernel does not count is unknown ("–", null),
//! never 0.

use crate::common;

use common::kernels::{KERNELS, SECONDS, advance, copy_kernel};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use strata::core::rootfs::RootFs;
use strata::layers::cache::report::CacheReport;
use strata::layers::cache::source::CacheSource;
use strata::layers::cpu::model::{Pressure, PsiCol, tick};
use strata::layers::cpu::source::CpuSource;
use strata::layers::disks::model::Units;
use strata::layers::disks::report::{DiskReport, Selection};
use strata::layers::disks::source::DiskSource;
use strata::layers::nfs::report::NfsReport;
use strata::layers::nfs::source::NfsSource;
use strata::layers::nics::report::NicReport;
use strata::layers::nics::source::NicSource;
use strata::layers::report::{Format, Report};

const WALL_MS: i64 = 1_795_000_000_000;

fn reports(fs: &RootFs, format: Format) -> Vec<Box<dyn Report>> {
    vec![
        Box::new(DiskReport::new(
            DiskSource::new(fs.clone()),
            format,
            Units::KB,
            Selection {
                partitions: true,
                all_devices: true,
                mapper_names: true,
            },
        )),
        Box::new(NicReport::new(NicSource::new(fs.clone()), format, true)),
        Box::new(NfsReport::new(NfsSource::new(fs.clone()), format)),
        Box::new(CacheReport::new(
            CacheSource::new(fs.clone(), Vec::new()),
            format,
        )),
    ]
}

/// Each panel's report of the interval between the tree and its second
/// state, in `format`: disks, NICs, NFS, cache.
fn interval_reports(kernel: &str, format: Format) -> Vec<String> {
    let dir = copy_kernel(kernel);
    let fs = RootFs::new(dir.path());
    let mut reps = reports(&fs, format);
    for r in &mut reps {
        let first = r.sample(WALL_MS).unwrap();
        assert!(
            first.rejected.is_empty(),
            "{kernel} {}: {:?}",
            r.panel(),
            first.rejected
        );
    }
    advance(dir.path());
    reps.iter_mut()
        .map(|r| {
            let s = r.sample(WALL_MS + SECONDS as i64 * 1000).unwrap();
            assert!(
                s.rejected.is_empty(),
                "{kernel} {}: {:?}",
                r.panel(),
                s.rejected
            );
            assert_eq!(s.itv_cs, Some(SECONDS * 100), "{kernel} {}", r.panel());
            s.report
                .unwrap_or_else(|| panic!("{kernel} {}: no report", r.panel()))
        })
        .collect()
}

/// The JSON records of a report, one a line.
fn records(report: &str) -> Vec<Value> {
    report
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A counter over the interval, as JSON prints it (two decimals).
fn rate(counter: u64) -> f64 {
    (counter as f64 / SECONDS as f64 * 100.0).round() / 100.0
}

fn close(v: &Value, want: f64, what: &str) {
    let got = v
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: {v} is no number"));
    assert!((got - want).abs() < 0.006, "{what}: {got}, expected {want}");
}

/// The tree's file as text.
fn text(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

/// The words of a line after its name, as numbers.
fn numbers(rest: &str) -> Vec<u64> {
    rest.split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect()
}

#[test]
fn every_disk_figure_a_kernel_counts_and_none_it_does_not() {
    for kernel in KERNELS {
        let root = common::kernels::kernel_tree(kernel);
        let json = records(&interval_reports(kernel, Format::Json)[0]);
        let by_name: BTreeMap<String, &Value> = json
            .iter()
            .map(|r| (r["disk_device"].as_str().unwrap().to_string(), r))
            .collect();
        let diskstats = text(&root, "proc/diskstats");
        let mut widths = Vec::new();
        for line in diskstats.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            let name = w[2];
            // a dm device is listed by its mapper name
            let shown = std::fs::read_to_string(root.join(format!("sys/block/{name}/dm/name")))
                .map_or(name.to_string(), |n| n.trim().to_string());
            let r = by_name
                .get(&shown)
                .unwrap_or_else(|| panic!("{kernel}: no {shown}"));
            let c = numbers(&w[3..].join(" "));
            widths.push(w.len());
            let what = |f: &str| format!("{kernel} {shown} {f}");
            close(&r["r/s"], rate(c[0]), &what("r/s"));
            close(&r["w/s"], rate(c[4]), &what("w/s"));
            // io_ticks (ms) over the interval, as a share
            close(&r["util"], rate(c[9]) / 10.0, &what("%util"));
            let discard = ["d/s", "dkB/s", "drqm/s", "drqm", "d_await", "dareq-sz"];
            let flush = ["f/s", "f_await"];
            match w.len() {
                14 => {
                    for k in discard.iter().chain(&flush) {
                        assert!(r[*k].is_null(), "{}: {}", what(k), r[*k]);
                    }
                }
                18 | 20 => {
                    close(&r["d/s"], rate(c[11]), &what("d/s"));
                    // sectors of 512 bytes, in kB
                    close(&r["dkB/s"], rate(c[13]) / 2.0, &what("dkB/s"));
                    if w.len() == 18 {
                        for k in flush {
                            assert!(r[k].is_null(), "{}: {}", what(k), r[k]);
                        }
                    } else {
                        close(&r["f/s"], rate(c[15]), &what("f/s"));
                        let f_await = (c[16] as f64 / c[15] as f64 * 100.0).round() / 100.0;
                        close(&r["f_await"], f_await, &what("f_await"));
                    }
                }
                n => panic!("{kernel}: {n} fields"),
            }
        }
        let want = match kernel {
            "rh7-3.10" | "uek5-4.14" => 14,
            "uek6-5.4" => 18,
            _ => 20,
        };
        assert!(widths.iter().all(|w| *w == want), "{kernel}: {widths:?}");
        // the text report prints what is not counted as "–", never 0
        let report = &interval_reports(kernel, Format::Text)[0];
        let mut lines = report.lines().skip(1);
        let head: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        let sda = lines
            .find(|l| l.starts_with("sda "))
            .unwrap_or_else(|| panic!("{kernel}: no sda in\n{report}"));
        let row: BTreeMap<&str, &str> = head.iter().copied().zip(sda.split_whitespace()).collect();
        let unknown = |k: &str| row[k] == "–";
        assert_eq!(unknown("d/s"), want == 14, "{kernel}: {sda}");
        assert_eq!(unknown("f/s"), want < 20, "{kernel}: {sda}");
        assert!(!unknown("r/s") && !unknown("%util"), "{kernel}: {sda}");
    }
}

#[test]
fn every_interface_and_bond_of_each_kernel() {
    for kernel in KERNELS {
        let root = common::kernels::kernel_tree(kernel);
        let json = records(&interval_reports(kernel, Format::Json)[1]);
        let netdev = text(&root, "proc/net/dev");
        let mut seen = 0;
        for line in netdev.lines().skip(2) {
            let (name, rest) = line.split_once(':').unwrap();
            let name = name.trim();
            let c = numbers(rest);
            let r = json
                .iter()
                .find(|r| r["interface"] == name)
                .unwrap_or_else(|| panic!("{kernel}: no {name}"));
            close(
                &r["rKB/s"],
                rate(c[0]) / 1024.0,
                &format!("{kernel} {name} rKB/s"),
            );
            close(&r["rPk/s"], rate(c[1]), &format!("{kernel} {name} rPk/s"));
            close(&r["wPk/s"], rate(c[9]), &format!("{kernel} {name} wPk/s"));
            seen += 1;
        }
        assert_eq!(seen, json.len(), "{kernel}");
        let bond = json.iter().find(|r| r["interface"] == "bond0").unwrap();
        let b = &bond["bond"];
        assert_eq!(b["mode"], "active-backup", "{kernel}");
        assert_eq!(b["slaves"].as_array().map(Vec::len), Some(2), "{kernel}");
        assert_eq!(b["warnings"], Value::Array(vec![]), "{kernel}");
        // the driver's own version to 5.x, then the kernel's release
        let version = b["driver_version"].as_str().unwrap();
        if kernel == "uek7-5.15" {
            assert!(version.starts_with("v5.15.0"), "{kernel}: {version}");
        } else {
            assert_eq!(version, "v3.7.1", "{kernel}");
        }
    }
}

#[test]
fn nfsv3_and_nfsv4_mounts_with_and_without_per_op_errors() {
    for kernel in KERNELS {
        let root = common::kernels::kernel_tree(kernel);
        let json = records(&interval_reports(kernel, Format::Json)[2]);
        assert_eq!(json.len(), 1, "{kernel}: one NFS export");
        let m = &json[0];
        let v3 = matches!(kernel, "rh7-3.10" | "uek5-4.14");
        assert_eq!(m["vers"], if v3 { "3" } else { "4.1" }, "{kernel}");
        let stats = text(&root, "proc/self/mountstats");
        let read = stats
            .lines()
            .find_map(|l| l.trim().strip_prefix("READ:"))
            .unwrap();
        let c = numbers(read);
        // RPC iostats 1.0 has 8 fields an op, 1.1 a 9th: errors
        assert_eq!(c.len(), if v3 { 8 } else { 9 }, "{kernel}");
        let op = m["ops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["op"] == "READ")
            .unwrap();
        close(&op["ops/s"], rate(c[0]), &format!("{kernel} READ ops/s"));
        let rtt = c[6] as f64 / c[0] as f64;
        assert!(
            (op["avg_rtt_ms"].as_f64().unwrap() - rtt).abs() < 0.0006,
            "{kernel}: {op}"
        );
        if v3 {
            assert!(
                op["errors"].is_null() && op["errors_pct"].is_null(),
                "{kernel}: {op}"
            );
        } else {
            assert_eq!(op["errors"], 0, "{kernel}");
        }
        let report = &interval_reports(kernel, Format::Text)[2];
        assert_eq!(report.contains("errors"), !v3, "{kernel}:\n{report}");
    }
}

#[test]
fn the_page_cache_and_the_refault_counter_of_each_kernel() {
    for kernel in KERNELS {
        let root = common::kernels::kernel_tree(kernel);
        let json = records(&interval_reports(kernel, Format::Json)[3]);
        let m = &json[0];
        assert_eq!(m["record"], "memory");
        let meminfo = text(&root, "proc/meminfo");
        let kb = |key: &str| -> u64 {
            let line = meminfo
                .lines()
                .find(|l| l.starts_with(&format!("{key}:")))
                .unwrap();
            numbers(line.split_once(':').unwrap().1.trim_end_matches("kB"))[0]
        };
        assert_eq!(m["mem_total_kb"], kb("MemTotal"), "{kernel}");
        assert_eq!(
            m["cached_minus_shmem_kb"],
            kb("Cached") - kb("Shmem"),
            "{kernel}"
        );
        let vmstat = text(&root, "proc/vmstat");
        let counter = |key: &str| -> Option<u64> {
            vmstat
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{key} ")))
                .map(|v| v.trim().parse().unwrap())
        };
        close(&m["pgpgin_kb_s"], rate(counter("pgpgin").unwrap()), kernel);
        // 3.10 has no refault counter; 3.15 to 5.8 one; 5.9 on, file's own
        let name = match kernel {
            "rh7-3.10" => None,
            "uek7-5.15" => Some("workingset_refault_file"),
            _ => Some("workingset_refault"),
        };
        assert_eq!(m["refault_counter"].as_str(), name, "{kernel}");
        match name {
            Some(n) => close(&m["refault_file_s"], rate(counter(n).unwrap()), kernel),
            None => assert!(m["refault_file_s"].is_null(), "{kernel}: {m}"),
        }
        let report = &interval_reports(kernel, Format::Text)[3];
        let line = report.lines().nth(1).unwrap();
        assert_eq!(line.ends_with(" –"), name.is_none(), "{kernel}: {line}");
    }
}

/// Pressure (PSI) from 4.20: none in the 3.10 and 4.14 trees, said in
/// words; 5.4's cpu file has no `full` line (5.13 on), 5.15's has.
#[test]
fn pressure_is_not_available_before_4_20_and_measured_after() {
    for kernel in KERNELS {
        let dir = copy_kernel(kernel);
        let mut src = CpuSource::new(RootFs::new(dir.path()));
        let a = src.sample(WALL_MS).unwrap();
        assert!(a.rejected.is_empty(), "{kernel}: {:?}", a.rejected);
        advance(dir.path());
        let b = src.sample(WALL_MS + SECONDS as i64 * 1000).unwrap();
        let t = tick(&a, &b).unwrap();
        assert_eq!(t.itv_cs, SECONDS * 100);
        let old = matches!(kernel, "rh7-3.10" | "uek5-4.14");
        for (i, p) in t.pressure.iter().enumerate() {
            match p {
                Pressure::NotAvailable(why) => {
                    assert!(old, "{kernel} {i}: {why}");
                    assert_eq!(
                        why,
                        "not available: no /proc/pressure (a kernel before 4.20, or without CONFIG_PSI)"
                    );
                }
                Pressure::Known(f) => {
                    assert!(!old, "{kernel} {i}");
                    let file = ["cpu", "io", "memory"][i];
                    let psi = text(
                        &common::kernels::kernel_tree(kernel),
                        &format!("proc/pressure/{file}"),
                    );
                    let some = psi.lines().next().unwrap();
                    let avg10: f64 = some.split(['=', ' ']).nth(2).unwrap().parse().unwrap();
                    assert_eq!(f.get(PsiCol::Some10), Some(avg10), "{kernel} {file}");
                    // total µs over the interval, as a share
                    let total: u64 = some.rsplit('=').next().unwrap().trim().parse().unwrap();
                    let share = total as f64 / (SECONDS as f64 * 1e4);
                    let got = f.get(PsiCol::Some).unwrap();
                    assert!((got - share).abs() < 1e-6, "{kernel} {file}: {got} {share}");
                    // the system's cpu full line is unknown either way
                    let full = psi.lines().any(|l| l.starts_with("full"));
                    assert_eq!(
                        full,
                        file != "cpu" || kernel == "uek7-5.15",
                        "{kernel} {file}"
                    );
                    if file == "cpu" {
                        assert_eq!(f.get(PsiCol::Full10), None, "{kernel}");
                    } else {
                        assert!(f.get(PsiCol::Full10).is_some(), "{kernel} {file}");
                    }
                }
            }
        }
    }
}

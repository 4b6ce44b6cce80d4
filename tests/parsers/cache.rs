//! /proc/meminfo and /proc/vmstat on real captures (kernel 6.18 and 4.19,
//! and a pre-4.8 vmstat), the page-cache figures over a real interval, and
//! properties over any input: the parsers never panic, and no figure is
//! negative, NaN or infinite (only the signed changes of residency may be
//! negative, and they are finite).

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use std::path::Path;
use strata::core::rootfs::RootFs;
use strata::layers::cache::meminfo::{MEMINFO, MemInfo, MemValue};
use strata::layers::cache::model::{CACHE_COLS, CacheBaseline, CacheCol, FILE_COLS, FileKind};
use strata::layers::cache::residency::{Method, Residency};
use strata::layers::cache::source::{CacheFile, CacheSample, CacheSource, FileResidency};
use strata::layers::cache::vmstat::{VMSTAT, VmStat};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/cache/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn meminfo(name: &str) -> MemInfo {
    let p = MEMINFO.parse(&fixture(name), "/proc/meminfo");
    assert!(p.rejected.is_empty(), "{name}: {:?}", p.rejected);
    MemInfo::from_entries(p.items)
}

fn vmstat(name: &str) -> VmStat {
    let p = VMSTAT.parse(&fixture(name), "/proc/vmstat");
    assert!(p.rejected.is_empty(), "{name}: {:?}", p.rejected);
    VmStat::from_entries(p.items)
}

#[test]
fn linux_6_18_meminfo_and_vmstat() {
    let m = meminfo("meminfo-6.18.44-b.txt");
    assert_eq!(m.len(), 54, "every line of the capture is kept");
    assert_eq!(m.kb("MemTotal"), Some(24_683_656));
    assert_eq!(m.kb("Cached"), Some(1_124_956));
    assert_eq!(m.kb("Active(file)"), Some(44_988));
    assert_eq!(m.kb("VmallocTotal"), Some(34_359_738_367));
    assert_eq!(m.get("HugePages_Total"), Some(MemValue::Count(0)));
    assert_eq!(m.kb("Hugepagesize"), Some(2048));
    let v = vmstat("vmstat-6.18.44-b.txt");
    assert_eq!(v.len(), 192);
    assert_eq!(v.get("pgpgin"), Some(11_736_541));
    assert_eq!(v.get("workingset_refault_file"), Some(2_276_146));
    assert_eq!(v.get("workingset_refault"), None, "split in 5.9");
}

#[test]
fn linux_4_19_shmem_overstates_cached() {
    let m = meminfo("meminfo-4.19.52.txt");
    assert_eq!(m.len(), 48);
    let v = vmstat("vmstat-4.19.52.txt");
    assert_eq!(v.get("workingset_refault"), Some(71_365_357));
    assert_eq!(v.get("workingset_refault_file"), None);
    let sample = CacheSample {
        uptime_cs: 1,
        wall_ms: 0,
        meminfo: m,
        vmstat: v,
        rejected: Vec::new(),
        files: Vec::new(),
        method: None,
        page_size: 4096,
        fincore: None,
    };
    let t = CacheBaseline::default().tick(&sample);
    // 1225112 - 875680 = 349432 kB of file cache; Cached claims 3.5 times it
    assert_eq!(t.figures.get(CacheCol::CachedLessShmem), Some(349_432.0));
    assert_eq!(t.figures.get(CacheCol::ActiveFile), Some(194_580.0));
    assert_eq!(t.figures.get(CacheCol::InactiveFile), Some(153_452.0));
    assert_eq!(t.refault_counter, Some("workingset_refault"));
}

#[test]
fn pre_4_8_vmstat_reads_whole() {
    let v = vmstat("vmstat-node_exporter-pre4.8.txt");
    assert_eq!(v.get("workingset_refault"), Some(157_066));
    assert_eq!(v.get("nr_overhead"), Some(4956), "unknown names are kept");
    assert_eq!(v.get("pgmajfault"), Some(507_162));
}

fn copy_capture(root: &Path, suffix: &str) {
    let proc = root.join("proc");
    std::fs::create_dir_all(&proc).unwrap();
    for name in ["uptime", "meminfo", "vmstat"] {
        let text = fixture(&format!("{name}-6.18.44-{suffix}.txt"));
        std::fs::write(proc.join(name), text).unwrap();
    }
}

#[test]
fn rates_over_the_real_6_18_interval() {
    let dir = tempfile::tempdir().unwrap();
    copy_capture(dir.path(), "a");
    let mut src = CacheSource::new(RootFs::new(dir.path()), Vec::new());
    let mut base = CacheBaseline::default();
    let first = base.tick(&src.sample(0).unwrap());
    assert_eq!(first.itv_cs, None);
    assert_eq!(first.figures.get(CacheCol::MajfltS), None);
    copy_capture(dir.path(), "b");
    let t = base.tick(&src.sample(0).unwrap());
    // uptime 3483.26 -> 3486.32: 306 cs
    assert_eq!(t.itv_cs, Some(306));
    let rate = |d: f64| Some(d / 306.0 * 100.0);
    // pgpgin 11132325 -> 11736541 kB: 604216 kB in 3.06 s = 197456.21 kB/s
    assert_eq!(t.figures.get(CacheCol::PgpginKbS), rate(604_216.0));
    // pgpgout 25298128 -> 25363892: 65764 kB = 21491.50 kB/s
    assert_eq!(t.figures.get(CacheCol::PgpgoutKbS), rate(65_764.0));
    // pgmajfault 20557 -> 20796: 239 = 78.10/s
    assert_eq!(t.figures.get(CacheCol::MajfltS), rate(239.0));
    // workingset_refault_file 2276048 -> 2276146: 98 = 32.03/s
    assert_eq!(t.figures.get(CacheCol::RefaultS), rate(98.0));
    // Cached 1124956 - Shmem 8896 = 1116060 kB
    assert_eq!(t.figures.get(CacheCol::CachedLessShmem), Some(1_116_060.0));
    // The text line after the time: MB rounded (2836 kB = 3 MB ...), rates
    // with two decimals.
    let text = strata::layers::cache::report::text_report(&t, false);
    let line = text.lines().next().unwrap();
    let after_time: Vec<&str> = line.split_whitespace().skip(1).collect();
    assert_eq!(
        after_time,
        [
            "3",
            "1099",
            "1090",
            "9",
            "481",
            "0",
            "44",
            "1049",
            "23629",
            "24105",
            "197456.21",
            "21491.50",
            "78.10",
            "32.03"
        ]
    );
}

fn kb_line(key: &str, v: u64) -> String {
    // as show_val_kb pads it
    format!("{:<16}{v:>8} kB\n", format!("{key}:"))
}

proptest! {
    #[test]
    fn parsers_never_panic(text in "\\PC{0,400}") {
        let _ = MEMINFO.parse(&text, "/proc/meminfo");
        let _ = VMSTAT.parse(&text, "/proc/vmstat");
    }

    #[test]
    fn parsers_never_panic_on_near_misses(
        key in "[A-Za-z_()]{0,12}",
        sep in prop_oneof![Just(":"), Just(" "), Just(": "), Just("::")],
        num in prop_oneof!["[0-9]{1,22}", "-[0-9]{1,3}", Just(String::new()), Just("18446744073709551616".to_string())],
        unit in prop_oneof![Just(""), Just(" kB"), Just(" MB"), Just(" kB x")],
    ) {
        let line = format!("{key}{sep}{num}{unit}");
        let m = MEMINFO.parse(&line, "m");
        prop_assert!(m.items.len() + m.rejected.len() <= 1);
        let v = VMSTAT.parse(&line, "v");
        prop_assert!(v.items.len() + v.rejected.len() <= 1);
    }

    #[test]
    fn what_the_kernel_prints_reads_back(values in prop::collection::btree_map("[A-Z][a-z]{0,8}(\\([a-z]{4}\\))?", any::<u64>(), 0..40)) {
        let text: String = values.iter().map(|(k, v)| kb_line(k, *v)).collect();
        let p = MEMINFO.parse(&text, "m");
        prop_assert!(p.rejected.is_empty());
        let m = MemInfo::from_entries(p.items);
        for (k, v) in &values {
            prop_assert_eq!(m.kb(k), Some(*v));
        }
        let text: String = values.iter().map(|(k, v)| format!("{k} {v}\n")).collect();
        let v = VmStat::from_entries(VMSTAT.parse(&text, "v").items);
        for (k, x) in &values {
            prop_assert_eq!(v.get(k), Some(*x));
        }
    }

    #[test]
    fn figures_are_never_negative_nan_or_infinite(
        mem in prop::array::uniform9(any::<u64>()),
        prev in prop::array::uniform4(any::<u64>()),
        cur in prop::array::uniform4(any::<u64>()),
        up in (0u64..u64::MAX / 2, 0u64..1_000_000),
        files in prop::collection::vec((any::<u64>(), prop::array::uniform5(any::<u64>()), any::<bool>()), 0..4),
        files2 in prop::collection::vec((any::<u64>(), prop::array::uniform5(any::<u64>()), any::<bool>()), 0..4),
        page in prop_oneof![Just(4096u64), Just(65536u64)],
    ) {
        let keys = ["MemTotal", "MemAvailable", "Buffers", "Cached", "Shmem", "Dirty", "Writeback", "Active(file)", "Inactive(file)"];
        let meminfo: String = keys.iter().zip(mem).map(|(k, v)| kb_line(k, v)).collect();
        let names = ["pgpgin", "pgpgout", "pgmajfault", "workingset_refault_file"];
        let vm = |c: [u64; 4]| -> String { names.iter().zip(c).map(|(n, v)| format!("{n} {v}\n")).collect() };
        let file_rows = |fs: &[(u64, [u64; 5], bool)]| -> Vec<CacheFile> {
            fs.iter().enumerate().map(|(i, (size, p, cachestat))| CacheFile {
                path: format!("/f{i}"),
                result: Ok(FileResidency {
                    dev: 1,
                    ino: i as u64,
                    size_bytes: *size,
                    pages: Residency {
                        cached: p[0],
                        dirty: cachestat.then_some(p[1]),
                        writeback: cachestat.then_some(p[2]),
                        evicted: cachestat.then_some(p[3]),
                        recently_evicted: cachestat.then_some(p[4]),
                    },
                    scanned_ms: None,
                }),
            }).collect()
        };
        let sample = |uptime_cs, c, fs: &[(u64, [u64; 5], bool)]| CacheSample {
            uptime_cs,
            wall_ms: 0,
            meminfo: MemInfo::from_entries(MEMINFO.parse(&meminfo, "m").items),
            vmstat: VmStat::from_entries(VMSTAT.parse(&vm(c), "v").items),
            rejected: Vec::new(),
            files: file_rows(fs),
            method: Some(Method::Cachestat),
            page_size: page,
            fincore: None,
        };
        let mut b = CacheBaseline::default();
        b.tick(&sample(up.0, prev, &files));
        let t = b.tick(&sample(up.0 + up.1, cur, &files2));
        for c in &CACHE_COLS {
            if let Some(v) = t.figures.get(c.col) {
                prop_assert!(v.is_finite() && v >= 0.0, "{} = {}", c.header, v);
            }
        }
        let rows = t.files.iter().filter_map(|r| r.figures);
        for f in rows.chain(t.total.map(|t| t.figures)) {
            for c in &FILE_COLS {
                if let Some(v) = f.get(c.col) {
                    prop_assert!(v.is_finite(), "{} = {}", c.header, v);
                    if c.kind != FileKind::PagesDelta {
                        prop_assert!(v >= 0.0, "{} = {}", c.header, v);
                    }
                }
            }
        }
    }
}

//! Page-cache figures: what /proc/meminfo holds now, what /proc/vmstat's
//! counters did over the source's own interval, and each watched file's
//! residency.
//!
//! On a database host "Cached" overstates the file cache: it includes
//! Shmem, where an SGA that is not on HugePages lives (AMM's /dev/shm files,
//! SysV shm). Cached − Shmem is the file cache the database's buffered I/O
//! can use; Active(file) + Inactive(file) is another view of it.
//!
//! Rates are counter differences over the uptime interval. A counter that
//! went back (a reboot the clock did not show, a rename between kernels)
//! gives an unknown rate, never a negative one. Residency counts are gauges:
//! their change over an interval is signed (pages come in and go out) and
//! is only given for the same file (device and inode) seen twice.

use super::error::FileError;
use super::fincore::FincoreStatus;
use super::meminfo::MemInfo;
use super::residency::{Method, Residency};
use super::source::{CacheSample, FileResidency};
use super::vmstat::VmStat;
use crate::layers::col::{ColDef, Figures, cols};
use std::collections::HashMap;

/// One figure of the page-cache line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CacheCol {
    Buffers,
    Cached,
    CachedLessShmem,
    Shmem,
    Dirty,
    Writeback,
    ActiveFile,
    InactiveFile,
    MemAvailable,
    MemTotal,
    PgpginKbS,
    PgpgoutKbS,
    MajfltS,
    RefaultS,
}

/// What a figure holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheKind {
    /// kB held now (a /proc/meminfo value).
    Kb,
    /// kB per second over the interval.
    KbPerS,
    /// Events per second over the interval.
    PerS,
}

cols! {
    /// Headers as /proc/meminfo or sar -B name the figure; the last item is
    /// the header of `strata batch cache` text, in cachestat's style: sizes
    /// in MB as cachestat prints BUFFERS_MB and CACHED_MB.
    pub const CACHE_COLS: [CacheCol, CacheKind, &'static str] = [
        (Buffers, "Buffers", "buffers_kb", Kb, "BUFFERS_MB"),
        (Cached, "Cached", "cached_kb", Kb, "CACHED_MB"),
        (CachedLessShmem, "Cached-Shmem", "cached_minus_shmem_kb", Kb, "CACHED-SHM_MB"),
        (Shmem, "Shmem", "shmem_kb", Kb, "SHMEM_MB"),
        (Dirty, "Dirty", "dirty_kb", Kb, "DIRTY_MB"),
        (Writeback, "Writeback", "writeback_kb", Kb, "WB_MB"),
        (ActiveFile, "Active(file)", "active_file_kb", Kb, "ACT_F_MB"),
        (InactiveFile, "Inactive(file)", "inactive_file_kb", Kb, "INACT_F_MB"),
        (MemAvailable, "MemAvailable", "mem_available_kb", Kb, "AVAIL_MB"),
        (MemTotal, "MemTotal", "mem_total_kb", Kb, "TOTAL_MB"),
        (PgpginKbS, "pgpgin/s", "pgpgin_kb_s", KbPerS, "PGPGIN/s"),
        (PgpgoutKbS, "pgpgout/s", "pgpgout_kb_s", KbPerS, "PGPGOUT/s"),
        (MajfltS, "majflt/s", "majflt_s", PerS, "MAJFLT/s"),
        (RefaultS, "refault/s", "refault_file_s", PerS, "REFAULT/s"),
    ];
}

impl ColDef<CacheCol, CacheKind, &'static str> {
    /// The header of `strata batch cache` text.
    pub fn text_header(&self) -> &'static str {
        self.extra
    }
}

/// The page-cache line of one interval; `None` is unknown.
pub type CacheFigures = Figures<CacheCol, { CACHE_COLS.len() }>;

/// One figure of a watched file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileCol {
    /// Bytes in the page cache.
    Res,
    /// Pages in the page cache.
    ResPages,
    Size,
    /// Cached bytes as a share of the size.
    ResPct,
    Dirty,
    Writeback,
    Evicted,
    RecentlyEvicted,
    /// Change of cached pages over the interval (signed).
    ResDelta,
    /// Change of evicted pages over the interval (signed).
    EvictedDelta,
    /// Change of recently evicted pages over the interval (signed).
    RecentDelta,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Bytes,
    Pages,
    Pct,
    /// A signed change of a page count.
    PagesDelta,
}

cols! {
    /// Headers as util-linux fincore prints them (RES, PAGES, SIZE); the
    /// cachestat(2) counts as fincore 2.40 abbreviates them.
    pub const FILE_COLS: [FileCol, FileKind] = [
        (Res, "RES", "res_bytes", Bytes),
        (ResPages, "PAGES", "res_pages", Pages),
        (Size, "SIZE", "size_bytes", Bytes),
        (ResPct, "%RES", "res_pct", Pct),
        (Dirty, "DIRTY", "dirty_pages", Pages),
        (Writeback, "WB", "writeback_pages", Pages),
        (Evicted, "EVICTED", "evicted_pages", Pages),
        (RecentlyEvicted, "RECENT", "recently_evicted_pages", Pages),
        (ResDelta, "ΔPAGES", "res_pages_delta", PagesDelta),
        (EvictedDelta, "ΔEVICTED", "evicted_pages_delta", PagesDelta),
        (RecentDelta, "ΔRECENT", "recently_evicted_pages_delta", PagesDelta),
    ];
}

/// A watched file's figures; `None` is what the method cannot tell
/// (mincore knows no dirty pages) or what has no previous reading.
pub type FileFigures = Figures<FileCol, { FILE_COLS.len() }>;

/// One watched file over one interval.
#[derive(Debug, Clone, PartialEq)]
pub struct FileRow {
    /// The path as the user knows it, or the pattern that matched nothing.
    pub path: String,
    /// `None` when the file could not be measured; then `error` says why.
    pub figures: Option<FileFigures>,
    pub error: Option<FileError>,
    /// How much older than its sample the figures are (ms): a large file's
    /// last complete pass of the mincore scan; `None` when they are the
    /// sample's own.
    pub age_ms: Option<u64>,
}

/// The sum over the files that could be measured.
#[derive(Debug, Clone, PartialEq)]
pub struct FileTotal {
    /// Files measured, and rows that are errors.
    pub files: usize,
    pub errors: usize,
    /// A column is known only when it is known for every measured file.
    pub figures: FileFigures,
}

/// The page cache over one interval.
#[derive(Debug, Clone, Default)]
pub struct CacheTick {
    /// Wall clock of the later sample, ms since the Unix epoch.
    pub wall_ms: i64,
    /// The interval of the source's clock; `None` on the first sample and
    /// when the clock did not advance or went back (then only the meminfo
    /// figures are known).
    pub itv_cs: Option<u64>,
    pub figures: CacheFigures,
    /// The vmstat counter behind refault/s: `workingset_refault_file`, or
    /// `workingset_refault` on kernels before 5.9.
    pub refault_counter: Option<&'static str>,
    pub files: Vec<FileRow>,
    /// `None` when no file could be measured.
    pub total: Option<FileTotal>,
    /// How the files were measured; `None` when no file is watched.
    pub method: Option<Method>,
    pub page_size: u64,
    /// A node's fincore runs (cadence, age, why no rows).
    pub fincore: Option<FincoreStatus>,
}

/// The vmstat counters the rates come from.
#[derive(Debug, Clone, Copy, Default)]
struct VmCounters {
    pgpgin: Option<u64>,
    pgpgout: Option<u64>,
    pgmajfault: Option<u64>,
    refault: Option<(&'static str, u64)>,
}

const REFAULT_NAMES: [&str; 2] = ["workingset_refault_file", "workingset_refault"];

/// The /proc/vmstat counters the figures come from: the source keeps these
/// and lets the other 170-odd go, which the recorder would encode every
/// second for nothing.
pub const VMSTAT_USED: [&str; 5] = [
    "pgpgin",
    "pgpgout",
    "pgmajfault",
    REFAULT_NAMES[0],
    REFAULT_NAMES[1],
];

/// The /proc/meminfo keys the figures come from (see [`VMSTAT_USED`]).
pub const MEMINFO_USED: [&str; 9] = [
    "Buffers",
    "Cached",
    "Shmem",
    "Dirty",
    "Writeback",
    "Active(file)",
    "Inactive(file)",
    "MemAvailable",
    "MemTotal",
];

impl VmCounters {
    fn of(vm: &VmStat) -> Self {
        VmCounters {
            pgpgin: vm.get("pgpgin"),
            pgpgout: vm.get("pgpgout"),
            pgmajfault: vm.get("pgmajfault"),
            refault: REFAULT_NAMES
                .iter()
                .find_map(|&n| vm.get(n).map(|v| (n, v))),
        }
    }
}

/// The last readings the next interval is diffed against.
#[derive(Debug, Default)]
pub struct CacheBaseline {
    uptime_cs: Option<u64>,
    vm: Option<VmCounters>,
    files: HashMap<String, FileResidency>,
}

/// Counts per second from two readings `itv_cs` centiseconds apart;
/// `None` when either is missing or the counter went back.
fn per_s(prev: Option<u64>, cur: Option<u64>, itv_cs: u64) -> Option<f64> {
    let d = cur?.checked_sub(prev?)?;
    (itv_cs > 0).then(|| d as f64 / itv_cs as f64 * 100.0)
}

/// The meminfo figures, in kB.
fn meminfo_figures(m: &MemInfo, out: &mut CacheFigures) {
    let kb = |k: &str| m.kb(k).map(|v| v as f64);
    out.set(CacheCol::Buffers, kb("Buffers"));
    out.set(CacheCol::Cached, kb("Cached"));
    // Shmem above Cached (shmem pages in the swap cache are counted in one
    // and taken out of the other) leaves the file cache unknown, not
    // negative.
    let cached_less_shmem = m
        .kb("Cached")
        .zip(m.kb("Shmem"))
        .and_then(|(c, s)| c.checked_sub(s));
    out.set(
        CacheCol::CachedLessShmem,
        cached_less_shmem.map(|v| v as f64),
    );
    out.set(CacheCol::Shmem, kb("Shmem"));
    out.set(CacheCol::Dirty, kb("Dirty"));
    out.set(CacheCol::Writeback, kb("Writeback"));
    out.set(CacheCol::ActiveFile, kb("Active(file)"));
    out.set(CacheCol::InactiveFile, kb("Inactive(file)"));
    out.set(CacheCol::MemAvailable, kb("MemAvailable"));
    out.set(CacheCol::MemTotal, kb("MemTotal"));
}

fn diff(prev: Option<u64>, cur: Option<u64>) -> Option<f64> {
    let (p, c) = (prev? as i128, cur? as i128);
    Some((c - p) as f64)
}

/// A file's figures; `prev` is its previous reading when it is the same
/// file (device and inode) and the interval is known.
fn file_figures(cur: &FileResidency, prev: Option<&FileResidency>, page_size: u64) -> FileFigures {
    let mut f = FileFigures::default();
    let p = &cur.pages;
    let bytes = |pages: u64| pages.saturating_mul(page_size) as f64;
    let size_pages = cur.size_bytes.div_ceil(page_size.max(1));
    f.set(FileCol::Res, Some(bytes(p.cached)));
    f.set(FileCol::ResPages, Some(p.cached as f64));
    f.set(FileCol::Size, Some(cur.size_bytes as f64));
    f.set(
        FileCol::ResPct,
        (size_pages > 0).then(|| p.cached as f64 / size_pages as f64 * 100.0),
    );
    let n = |x: Option<u64>| x.map(|x| x as f64);
    f.set(FileCol::Dirty, n(p.dirty));
    f.set(FileCol::Writeback, n(p.writeback));
    f.set(FileCol::Evicted, n(p.evicted));
    f.set(FileCol::RecentlyEvicted, n(p.recently_evicted));
    if let Some(prev) = prev.filter(|q| (q.dev, q.ino) == (cur.dev, cur.ino)) {
        let q: &Residency = &prev.pages;
        f.set(FileCol::ResDelta, diff(Some(q.cached), Some(p.cached)));
        f.set(FileCol::EvictedDelta, diff(q.evicted, p.evicted));
        f.set(
            FileCol::RecentDelta,
            diff(q.recently_evicted, p.recently_evicted),
        );
    }
    f
}

/// How much older than the sample at `wall_ms` a file's figure is; `None`
/// when it is the sample's own.
fn age_ms(r: &FileResidency, wall_ms: i64) -> Option<u64> {
    let at = r.scanned_ms?;
    (at < wall_ms).then(|| wall_ms.abs_diff(at))
}

/// Sums the measured files' figures; a column unknown for any one of them
/// is unknown in the total.
fn total(rows: &[FileRow], page_size: u64) -> Option<FileTotal> {
    let measured: Vec<&FileFigures> = rows.iter().filter_map(|r| r.figures.as_ref()).collect();
    if measured.is_empty() {
        return None;
    }
    let mut v = FileFigures::default();
    for def in &FILE_COLS {
        if def.col == FileCol::ResPct {
            continue;
        }
        v.set(def.col, measured.iter().map(|f| f.get(def.col)).sum());
    }
    let size_pages: Option<f64> = measured
        .iter()
        .map(|f| {
            f.get(FileCol::Size)
                .map(|b| (b as u64).div_ceil(page_size.max(1)) as f64)
        })
        .sum();
    let res_pct = v
        .get(FileCol::ResPages)
        .zip(size_pages)
        .and_then(|(res, size)| (size > 0.0).then(|| res / size * 100.0));
    v.set(FileCol::ResPct, res_pct);
    Some(FileTotal {
        files: measured.len(),
        errors: rows.len() - measured.len(),
        figures: v,
    })
}

impl CacheBaseline {
    /// Figures of the interval that ends with `cur`. The first sample gives
    /// the meminfo figures and residency but no rates: those cover an
    /// interval, never the time since boot. A clock that went back (a
    /// reboot) starts a new baseline.
    pub fn tick(&mut self, cur: &CacheSample) -> CacheTick {
        let itv_cs = match self.uptime_cs {
            Some(prev) if cur.uptime_cs > prev => Some(cur.uptime_cs - prev),
            Some(prev) if cur.uptime_cs < prev => {
                self.vm = None;
                self.files.clear();
                None
            }
            _ => None,
        };
        let mut v = CacheFigures::default();
        meminfo_figures(&cur.meminfo, &mut v);
        let now = VmCounters::of(&cur.vmstat);
        if let (Some(itv), Some(prev)) = (itv_cs, self.vm) {
            v.set(CacheCol::PgpginKbS, per_s(prev.pgpgin, now.pgpgin, itv));
            v.set(CacheCol::PgpgoutKbS, per_s(prev.pgpgout, now.pgpgout, itv));
            v.set(
                CacheCol::MajfltS,
                per_s(prev.pgmajfault, now.pgmajfault, itv),
            );
            let refault = match (prev.refault, now.refault) {
                (Some((pn, pv)), Some((cn, cv))) if pn == cn => per_s(Some(pv), Some(cv), itv),
                _ => None,
            };
            v.set(CacheCol::RefaultS, refault);
        }
        let mut files = Vec::with_capacity(cur.files.len());
        let mut seen = HashMap::with_capacity(cur.files.len());
        for f in &cur.files {
            files.push(match &f.result {
                Ok(r) => {
                    let age_ms = age_ms(r, cur.wall_ms);
                    // fincore's rows are a run several samples old, kept
                    // until the next, and a mincore pass may span many
                    // samples: a change over this interval is known only
                    // between two figures of consecutive samples' own.
                    let prev = itv_cs
                        .filter(|_| cur.method != Some(Method::Fincore) && age_ms.is_none())
                        .and(self.files.get(&f.path));
                    if age_ms.is_none() {
                        seen.insert(f.path.clone(), *r);
                    }
                    FileRow {
                        path: f.path.clone(),
                        figures: Some(file_figures(r, prev, cur.page_size)),
                        error: None,
                        age_ms,
                    }
                }
                Err(e) => FileRow {
                    path: f.path.clone(),
                    figures: None,
                    error: Some(e.clone()),
                    age_ms: None,
                },
            });
        }
        // A clock that stood still keeps the old readings, so the next
        // interval's changes are still over one known interval.
        if itv_cs.is_some() || self.uptime_cs.is_none_or(|p| cur.uptime_cs < p) {
            self.files = seen;
            self.vm = Some(now);
            self.uptime_cs = Some(cur.uptime_cs);
        }
        let total = total(&files, cur.page_size);
        CacheTick {
            wall_ms: cur.wall_ms,
            itv_cs,
            figures: v,
            refault_counter: now.refault.map(|(n, _)| n),
            files,
            total,
            method: cur.method,
            page_size: cur.page_size,
            fincore: cur.fincore.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::cache::meminfo::MEMINFO;
    use crate::layers::cache::source::CacheFile;
    use crate::layers::cache::vmstat::VMSTAT;

    fn sample(uptime_cs: u64, meminfo: &str, vmstat: &str, files: Vec<CacheFile>) -> CacheSample {
        CacheSample {
            uptime_cs,
            wall_ms: 0,
            meminfo: MemInfo::from_entries(MEMINFO.parse(meminfo, "m").items),
            vmstat: VmStat::from_entries(VMSTAT.parse(vmstat, "v").items),
            rejected: Vec::new(),
            files,
            method: Some(Method::Cachestat),
            page_size: 4096,
            fincore: None,
        }
    }

    fn file(path: &str, ino: u64, size: u64, cached: u64, evicted: u64) -> CacheFile {
        CacheFile {
            path: path.into(),
            result: Ok(FileResidency {
                dev: 1,
                ino,
                size_bytes: size,
                pages: Residency {
                    cached,
                    dirty: Some(1),
                    writeback: Some(0),
                    evicted: Some(evicted),
                    recently_evicted: Some(0),
                },
                scanned_ms: None,
            }),
        }
    }

    const MEM: &str = "MemTotal: 1000 kB\nCached: 600 kB\nShmem: 450 kB\nBuffers: 10 kB\n";

    #[test]
    fn rates_over_the_uptime_interval() {
        let mut b = CacheBaseline::default();
        let t = b.tick(&sample(
            1000,
            MEM,
            "pgpgin 100\npgpgout 50\npgmajfault 7\nworkingset_refault_file 10\n",
            vec![],
        ));
        assert_eq!(t.itv_cs, None);
        assert_eq!(t.figures.get(CacheCol::PgpginKbS), None);
        // meminfo figures need no interval: 600 - 450 = 150 kB of file cache
        assert_eq!(t.figures.get(CacheCol::CachedLessShmem), Some(150.0));
        assert_eq!(t.figures.get(CacheCol::MemAvailable), None);
        // 2.5 s later: 500 kB in, 0 out, 5 major faults, 25 refaults
        let t = b.tick(&sample(
            1250,
            MEM,
            "pgpgin 600\npgpgout 50\npgmajfault 12\nworkingset_refault_file 35\n",
            vec![],
        ));
        assert_eq!(t.itv_cs, Some(250));
        assert_eq!(t.figures.get(CacheCol::PgpginKbS), Some(200.0));
        assert_eq!(t.figures.get(CacheCol::PgpgoutKbS), Some(0.0));
        assert_eq!(t.figures.get(CacheCol::MajfltS), Some(2.0));
        assert_eq!(t.figures.get(CacheCol::RefaultS), Some(10.0));
        assert_eq!(t.refault_counter, Some("workingset_refault_file"));
    }

    #[test]
    fn counters_that_went_back_are_unknown_and_old_kernels_use_workingset_refault() {
        let mut b = CacheBaseline::default();
        b.tick(&sample(
            100,
            MEM,
            "pgpgin 100\nworkingset_refault 50\n",
            vec![],
        ));
        let t = b.tick(&sample(
            200,
            MEM,
            "pgpgin 90\nworkingset_refault 80\n",
            vec![],
        ));
        assert_eq!(t.figures.get(CacheCol::PgpginKbS), None);
        assert_eq!(t.figures.get(CacheCol::RefaultS), Some(30.0));
        assert_eq!(t.refault_counter, Some("workingset_refault"));
        // the clock went back: a new baseline, no rates
        let t = b.tick(&sample(50, MEM, "pgpgin 1\nworkingset_refault 1\n", vec![]));
        assert_eq!(t.itv_cs, None);
        assert_eq!(t.figures.get(CacheCol::RefaultS), None);
        let t = b.tick(&sample(
            150,
            MEM,
            "pgpgin 101\nworkingset_refault 2\n",
            vec![],
        ));
        assert_eq!(t.figures.get(CacheCol::PgpginKbS), Some(100.0));
    }

    #[test]
    fn shmem_above_cached_leaves_the_file_cache_unknown() {
        let mut b = CacheBaseline::default();
        let t = b.tick(&sample(1, "Cached: 10 kB\nShmem: 11 kB\n", "", vec![]));
        assert_eq!(t.figures.get(CacheCol::CachedLessShmem), None);
        assert_eq!(t.figures.get(CacheCol::Cached), Some(10.0));
    }

    #[test]
    fn file_figures_changes_and_total() {
        let mut b = CacheBaseline::default();
        // 10 pages of 4 KiB = 40960 bytes; 5 cached
        let t = b.tick(&sample(
            100,
            MEM,
            "",
            vec![file("/a", 1, 40960, 5, 2), file("/b", 2, 4097, 2, 0)],
        ));
        let a = t.files[0].figures.unwrap();
        assert_eq!(a.get(FileCol::Res), Some(20480.0));
        assert_eq!(a.get(FileCol::ResPct), Some(50.0));
        assert_eq!(a.get(FileCol::ResDelta), None, "no previous reading");
        // /b is 4097 bytes: 2 pages, both cached
        assert_eq!(
            t.files[1].figures.unwrap().get(FileCol::ResPct),
            Some(100.0)
        );
        let tot = t.total.unwrap();
        assert_eq!((tot.files, tot.errors), (2, 0));
        assert_eq!(tot.figures.get(FileCol::ResPages), Some(7.0));
        // 7 of 12 pages
        assert_eq!(tot.figures.get(FileCol::ResPct), Some(7.0 / 12.0 * 100.0));
        assert_eq!(tot.figures.get(FileCol::ResDelta), None);

        // 1 s later: /a lost 3 pages to reclaim; /b was replaced (new inode)
        let t = b.tick(&sample(
            200,
            MEM,
            "",
            vec![
                file("/a", 1, 40960, 2, 5),
                file("/b", 3, 4097, 2, 0),
                CacheFile {
                    path: "/c".into(),
                    result: Err(FileError::PermissionDenied),
                },
            ],
        ));
        let a = t.files[0].figures.unwrap();
        assert_eq!(a.get(FileCol::ResDelta), Some(-3.0));
        assert_eq!(a.get(FileCol::EvictedDelta), Some(3.0));
        assert_eq!(t.files[1].figures.unwrap().get(FileCol::ResDelta), None);
        assert_eq!(t.files[2].error, Some(FileError::PermissionDenied));
        let tot = t.total.unwrap();
        assert_eq!((tot.files, tot.errors), (2, 1));
        assert_eq!(tot.figures.get(FileCol::ResDelta), None, "/b has none");
        assert_eq!(tot.figures.get(FileCol::Dirty), Some(2.0));
    }

    #[test]
    fn fincore_rows_have_no_change_over_an_interval() {
        let mut b = CacheBaseline::default();
        let run = crate::layers::cache::fincore::parse_fincore("4096 2 8192 /a", &[], "t");
        let mut s = sample(100, MEM, "", run.files.clone());
        s.method = Some(Method::Fincore);
        b.tick(&s);
        let mut later = sample(200, MEM, "", run.files);
        later.method = Some(Method::Fincore);
        let t = b.tick(&later);
        let a = t.files[0].figures.unwrap();
        assert_eq!(a.get(FileCol::ResPct), Some(100.0));
        assert_eq!(
            a.get(FileCol::ResDelta),
            None,
            "a run is several samples old"
        );
        assert_eq!(a.get(FileCol::Dirty), None);
    }

    #[test]
    fn mincore_leaves_dirty_unknown_in_rows_and_total() {
        let mut b = CacheBaseline::default();
        let mut f = file("/a", 1, 8192, 2, 0);
        if let Ok(r) = &mut f.result {
            r.pages = Residency {
                cached: 2,
                ..Residency::default()
            };
        }
        let t = b.tick(&sample(1, MEM, "", vec![f]));
        assert_eq!(t.files[0].figures.unwrap().get(FileCol::Dirty), None);
        assert_eq!(t.total.unwrap().figures.get(FileCol::Dirty), None);
    }

    /// The mincore scan's figure of a pass completed at an earlier sample
    /// carries its age and no change over the interval; one completed at
    /// its own sample has neither, and a change only from another such.
    #[test]
    fn a_scanned_figure_older_than_its_sample_has_an_age_and_no_change() {
        let scanned = |cached, at: i64, wall: i64, uptime| {
            let mut f = file("/big.dbf", 1, 1 << 30, cached, 0);
            if let Ok(r) = &mut f.result {
                r.pages = Residency {
                    cached,
                    ..Residency::default()
                };
                r.scanned_ms = Some(at);
            }
            let mut s = sample(uptime, MEM, "", vec![f]);
            (s.wall_ms, s.method) = (wall, Some(Method::Mincore));
            s
        };
        let mut b = CacheBaseline::default();
        let t = b.tick(&scanned(10, 1_000, 1_000, 100));
        assert_eq!(t.files[0].age_ms, None);
        // a new pass at the next sample: a change over the interval
        let t = b.tick(&scanned(15, 2_000, 2_000, 200));
        assert_eq!(t.files[0].age_ms, None);
        let f = t.files[0].figures.unwrap();
        assert_eq!(f.get(FileCol::ResDelta), Some(5.0));
        // the same pass shown 42 s later: its age, no change
        let t = b.tick(&scanned(15, 2_000, 44_000, 300));
        assert_eq!(t.files[0].age_ms, Some(42_000));
        let f = t.files[0].figures.unwrap();
        assert_eq!(
            (f.get(FileCol::ResPages), f.get(FileCol::ResDelta)),
            (Some(15.0), None)
        );
        // a fresh pass after an old figure: no interval to diff over
        let t = b.tick(&scanned(30, 45_000, 45_000, 400));
        assert_eq!(t.files[0].age_ms, None);
        assert_eq!(t.files[0].figures.unwrap().get(FileCol::ResDelta), None);
    }
}

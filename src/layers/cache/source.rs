//! The host's page cache: /proc/meminfo and /proc/vmstat read together
//! with /proc/uptime, and how much of each file the user names (by glob
//! patterns) is in the cache.
//!
//! Watched files are looked for under `--root` like everything else. With
//! the default root this is the real file system. With `--root /host` (the
//! host's / bind-mounted into a container, the usual reason for --root on a
//! live system) `/u01/redo01.log` names the host's file and its page cache,
//! which is what the user means; with a captured tree the files are absent
//! and say so, rather than mixing this machine's cache into another
//! machine's figures. Paths are shown without the root. An absolute symlink
//! inside the root points outside it; the kernel, not strata, resolves it.
//!
//! A node's files are measured there, by util-linux fincore run over the
//! patterns on a channel of its own every few samples (see `fincore.rs`):
//! the source keeps the last run's rows until the next one comes.

use super::error::FileError;
use super::fincore::{FincoreStatus, parse_fincore};
use super::meminfo::{MEMINFO, MemInfo};
use super::model::{MEMINFO_USED, VMSTAT_USED};
use super::residency::{self, Method, Residency};
use super::scan::{Outcome, Scanner, Target, TickCost};
use super::vmstat::{VMSTAT, VmStat};
use crate::core::error::ParseError;
use crate::core::error::SourceError;
use crate::core::rootfs::RootFs;
use crate::core::uptime::parse_uptime_cs;
use std::collections::{HashMap, HashSet};
use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// One watched file's size and residency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileResidency {
    /// Device and inode: a file replaced under the same name (a rotated
    /// log) is another file, whose counts are not diffed with the old one's.
    pub dev: u64,
    pub ino: u64,
    pub size_bytes: u64,
    pub pages: Residency,
    /// Wall clock (ms since the epoch) of the sample whose scan completed
    /// the figure, where it may be older than its sample: the mincore
    /// fallback's pass over a large file spans many ticks (`scan.rs`).
    /// `None`: measured whole in its own sample (cachestat, fincore's
    /// rows, recordings made before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scanned_ms: Option<i64>,
}

/// A watched file, or a pattern that gave no file, with why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CacheFile {
    /// The path as the user knows it (without `--root`), or the pattern
    /// when it matched nothing.
    pub path: String,
    pub result: Result<FileResidency, FileError>,
}

/// One reading of the page cache and of the watched files.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CacheSample {
    /// /proc/uptime in centiseconds, read just before the counters.
    pub uptime_cs: u64,
    /// Wall clock of the reading, ms since the Unix epoch.
    pub wall_ms: i64,
    pub meminfo: MemInfo,
    pub vmstat: VmStat,
    /// Lines of /proc/meminfo and /proc/vmstat that could not be read.
    pub rejected: Vec<ParseError>,
    /// Watched files in pattern order, then by name within a pattern.
    pub files: Vec<CacheFile>,
    /// How the files were measured; `None` when no file is watched.
    pub method: Option<Method>,
    pub page_size: u64,
    /// A node's fincore runs: cadence, age, and why there are no rows;
    /// `None` on this machine and when no file is watched.
    #[serde(default)]
    pub fincore: Option<FincoreStatus>,
}

/// Patterns are expanded again after this much of the source's clock
/// (10 s), not at every sample: expanding reads every directory on the
/// pattern's path, and a trace directory of 100,000 files costs more than
/// the residency of the few files that match. The files that matter come
/// and go at log switches and archive runs, minutes apart; 10 s late is
/// soon enough, and a file that vanishes in between shows as an error and
/// brings the next expansion forward to the next sample.
pub const EXPAND_EVERY_CS: u64 = 1000;

#[derive(Debug, Clone)]
enum Watched {
    File { shown: String, real: PathBuf },
    Problem { pattern: String, error: FileError },
}

/// Reads the page cache under a root directory.
pub struct CacheSource {
    fs: RootFs,
    patterns: Vec<String>,
    watched: Vec<Watched>,
    /// Source clock of the last expansion.
    expanded_at: Option<u64>,
    /// A watched file vanished: expand again at the next sample.
    expand_soon: bool,
    method: Method,
    /// Set by `force_method`: never switch method on ENOSYS.
    forced: bool,
    page_size: u64,
    /// mincore's vector, kept between scans.
    vec: Vec<u8>,
    /// The mincore fallback's passes over the files, across ticks.
    scanner: Scanner,
    /// Watched files kept open between scans, by path, with the identity
    /// they were opened with: a scan then costs a stat(2) of the path and
    /// the residency call, where opening afresh cost five system calls.
    /// A file deleted or replaced is let go at the next scan.
    open: HashMap<PathBuf, OpenFile>,
    /// A node's last fincore run, shown until the next one.
    node: NodeRuns,
}

#[derive(Default)]
struct NodeRuns {
    status: FincoreStatus,
    files: Vec<CacheFile>,
    /// The node's page size, once a run has said it.
    page_size: Option<u64>,
}

struct OpenFile {
    file: std::fs::File,
    dev: u64,
    ino: u64,
}

impl CacheSource {
    /// `patterns` are glob patterns (`*`, `?`, `[a-z]`, `**`); a relative
    /// one is taken from the current directory, on a node from the login's
    /// (its fincore run expands them).
    pub fn new(fs: RootFs, patterns: Vec<String>) -> Self {
        let cwd = std::env::current_dir()
            .ok()
            .filter(|_| fs.local_path("/").is_some());
        let patterns = patterns
            .into_iter()
            .map(|p| match &cwd {
                Some(cwd) if !p.starts_with('/') => cwd.join(&p).to_string_lossy().into_owned(),
                _ => p,
            })
            .collect();
        let mut source = CacheSource {
            fs,
            patterns,
            watched: Vec::new(),
            expanded_at: None,
            expand_soon: false,
            method: Method::Cachestat,
            forced: false,
            page_size: residency::page_size(),
            vec: Vec::new(),
            scanner: Scanner::new(residency::page_size(), super::scan::SCAN_BUDGET),
            open: HashMap::new(),
            node: NodeRuns::default(),
        };
        if cachestat_off() {
            source.force_method(Method::Mincore);
        }
        source
    }

    /// The mincore fallback's work per tick (its thread's CPU time).
    pub fn set_scan_budget(&mut self, budget: std::time::Duration) {
        self.scanner.set_budget(budget);
    }

    /// What the mincore fallback did at the last sample.
    pub fn scan_cost(&self) -> TickCost {
        self.scanner.last_tick()
    }

    /// Measures with `method` only, even where the kernel lacks it (then
    /// every file shows the error): for tests and benchmarks of the
    /// mincore fallback on a kernel that has cachestat.
    pub fn force_method(&mut self, method: Method) {
        self.method = method;
        self.forced = true;
    }

    /// The patterns as they are expanded (relative ones made absolute).
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    pub fn sample(&mut self, wall_ms: i64) -> Result<CacheSample, SourceError> {
        // The clock first and the counters straight after, as sysstat does.
        let uptime_text = self.fs.read("/proc/uptime")?;
        let meminfo_text = self.fs.read("/proc/meminfo")?;
        let vmstat_text = self.fs.read("/proc/vmstat")?;
        let uptime_cs = parse_uptime_cs(&uptime_text, "/proc/uptime")?;
        // Only the values the figures use are kept (and recorded).
        let mem = MEMINFO.parse_keeping(&meminfo_text, "/proc/meminfo", |k| {
            MEMINFO_USED.contains(&k)
        });
        let vm = VMSTAT.parse_keeping(&vmstat_text, "/proc/vmstat", |k| VMSTAT_USED.contains(&k));
        let mut rejected = mem.rejected;
        rejected.extend(vm.rejected);
        let watched = !self.patterns.is_empty();
        let (files, fincore) = if self.fs.local_path("/").is_some() {
            (self.scan(uptime_cs, wall_ms), None)
        } else {
            let (files, status) = self.node_scan(wall_ms, &mut rejected);
            self.method = Method::Fincore;
            if let Some(p) = self.node.page_size {
                self.page_size = p;
            }
            (files, status)
        };
        Ok(CacheSample {
            uptime_cs,
            wall_ms,
            meminfo: MemInfo::from_entries(mem.items),
            vmstat: VmStat::from_entries(vm.items),
            rejected,
            method: watched.then_some(self.method),
            files,
            page_size: self.page_size,
            fincore,
        })
    }

    /// A node's files: the last fincore run's, read afresh when the frame
    /// brought a new one; before the first, a row per pattern says so.
    fn node_scan(
        &mut self,
        wall_ms: i64,
        rejected: &mut Vec<ParseError>,
    ) -> (Vec<CacheFile>, Option<FincoreStatus>) {
        if self.patterns.is_empty() {
            return (Vec::new(), None);
        }
        let node = &mut self.node;
        if let Some(body) = self.fs.fincore() {
            let run = parse_fincore(&body, &self.patterns, "node: fincore");
            rejected.extend(run.rejected);
            node.status = FincoreStatus {
                every_ms: run.every_ms,
                at_ms: Some(wall_ms),
                missing: run.missing,
                capped: run.capped,
            };
            node.files = run.files;
            node.page_size = run.page_size.or(node.page_size);
        }
        // Without a run, or without fincore, each pattern says why: the
        // same rows in every report and on the screen.
        let why = if node.status.at_ms.is_none() {
            FileError::NoRunYet
        } else if node.status.missing {
            FileError::NoFincore
        } else {
            return (node.files.clone(), Some(node.status.clone()));
        };
        let rows = self.patterns.iter().map(|p| CacheFile {
            path: p.clone(),
            result: Err(why.clone()),
        });
        (rows.collect(), Some(node.status.clone()))
    }

    /// Expands the patterns when due, then measures every watched file.
    fn scan(&mut self, uptime_cs: u64, wall_ms: i64) -> Vec<CacheFile> {
        if self.patterns.is_empty() {
            return Vec::new();
        }
        let due = self.expand_soon
            || self
                .expanded_at
                .is_none_or(|at| uptime_cs < at || uptime_cs - at >= EXPAND_EVERY_CS);
        if due {
            self.watched = expand(&self.fs, &self.patterns);
            self.expanded_at = Some(uptime_cs);
            self.expand_soon = false;
            let watched: HashSet<&PathBuf> = self
                .watched
                .iter()
                .filter_map(|w| match w {
                    Watched::File { real, .. } => Some(real),
                    Watched::Problem { .. } => None,
                })
                .collect();
            self.open.retain(|path, _| watched.contains(path));
        }
        let watched = std::mem::take(&mut self.watched);
        let mut out = Vec::with_capacity(watched.len());
        // Files left to the mincore scan: their row, path, and stat.
        let mut scanned: Vec<(usize, &Path, std::fs::Metadata)> = Vec::new();
        for w in &watched {
            let (shown, real) = match w {
                Watched::Problem { pattern, error } => {
                    out.push(CacheFile {
                        path: pattern.clone(),
                        result: Err(error.clone()),
                    });
                    continue;
                }
                Watched::File { shown, real } => (shown, real),
            };
            let result = match self.measure(real) {
                Ok(Measured::Done(r)) => Ok(r),
                Ok(Measured::Scan(meta)) => {
                    scanned.push((out.len(), real, meta));
                    // the scan's outcome replaces it below
                    Err(FileError::NoRunYet)
                }
                Err(e) => Err(self.said(e)),
            };
            out.push(CacheFile {
                path: shown.clone(),
                result,
            });
        }
        if self.method == Method::Mincore {
            for ((row, _, meta), outcome) in scanned.iter().zip(self.run_scan(&scanned, wall_ms)) {
                let result = match outcome {
                    Outcome::Figure { cached, scanned_ms } => Ok(FileResidency {
                        dev: meta.dev(),
                        ino: meta.ino(),
                        size_bytes: meta.len(),
                        pages: Residency {
                            cached,
                            ..Residency::default()
                        },
                        scanned_ms: Some(scanned_ms),
                    }),
                    Outcome::FirstPass { scanned_bytes } => Err(FileError::FirstPass {
                        scanned_bytes,
                        size_bytes: meta.len(),
                    }),
                    Outcome::Failed(e) => Err(self.said(Failed::Io(e))),
                };
                if let Some(f) = out.get_mut(*row) {
                    f.result = result;
                }
            }
        }
        self.watched = watched;
        out
    }

    /// A failed file as its row says it; a vanished one brings the next
    /// expansion forward.
    fn said(&mut self, e: Failed) -> FileError {
        match e {
            Failed::NotRegular => FileError::NotRegular,
            Failed::Io(e) => {
                if e.kind() == io::ErrorKind::NotFound {
                    self.expand_soon = true;
                }
                FileError::of_io(&e, self.method)
            }
        }
    }

    /// One tick of the mincore scan over `files` (row, path, stat), with
    /// the descriptors `measure` kept open.
    fn run_scan(
        &mut self,
        files: &[(usize, &Path, std::fs::Metadata)],
        wall_ms: i64,
    ) -> Vec<Outcome> {
        let targets: Vec<Target<'_>> = files
            .iter()
            .map(|(_, real, meta)| Target {
                key: real,
                dev: meta.dev(),
                ino: meta.ino(),
                size: meta.len(),
            })
            .collect();
        let (open, vec) = (&self.open, &mut self.vec);
        let probe = |i: usize, off: u64, len: u64| -> io::Result<u64> {
            let file = files
                .get(i)
                .and_then(|(_, real, _)| open.get(*real))
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
            residency::mincore(&file.file, off, len, vec)
        };
        self.scanner
            .tick(&targets, wall_ms, probe, super::scan::work_clock())
    }

    /// Stats `real` and keeps it open; measures it at once by cachestat,
    /// or leaves it to the mincore scan.
    fn measure(&mut self, real: &Path) -> Result<Measured, Failed> {
        // Out of the map until it is measured: a file gone or replaced is
        // closed here, so strata never holds a deleted file's space.
        let kept = self.open.remove(real);
        // Only regular files are opened: opening a FIFO blocks, and opening
        // a device can rewind a tape.
        let meta = std::fs::metadata(real)?;
        if !meta.is_file() {
            return Err(Failed::NotRegular);
        }
        // A file replaced since the last scan is opened afresh.
        let file = match kept {
            Some(o) if (o.dev, o.ino) == (meta.dev(), meta.ino()) => o,
            _ => {
                // O_NONBLOCK in case it became a FIFO since; read-only,
                // never O_DIRECT, and nothing is read.
                let file = OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_NONBLOCK)
                    .open(real)?;
                let opened = file.metadata()?;
                if !opened.is_file() {
                    return Err(Failed::NotRegular);
                }
                OpenFile {
                    file,
                    dev: opened.dev(),
                    ino: opened.ino(),
                }
            }
        };
        if self.method == Method::Cachestat {
            match residency::cachestat(&file.file) {
                Ok(pages) => {
                    self.open.insert(real.to_path_buf(), file);
                    return Ok(Measured::Done(FileResidency {
                        dev: meta.dev(),
                        ino: meta.ino(),
                        size_bytes: meta.len(),
                        pages,
                        scanned_ms: None,
                    }));
                }
                // A kernel before 6.5: mincore from now on.
                Err(e) if e.raw_os_error() == Some(libc::ENOSYS) && !self.forced => {
                    self.method = Method::Mincore;
                }
                Err(e) => return Err(e.into()),
            }
        }
        if self.method != Method::Mincore {
            // fincore runs on a node, whose files are never measured here.
            return Err(io::Error::from(io::ErrorKind::Unsupported).into());
        }
        // Since 5.0 mincore calls every page resident for anyone else.
        if !residency::mincore_truthful(real, &meta) {
            return Err(io::Error::from_raw_os_error(libc::EPERM).into());
        }
        self.open.insert(real.to_path_buf(), file);
        Ok(Measured::Scan(meta))
    }
}

/// A watched file measured at once, or left to the mincore scan.
enum Measured {
    Done(FileResidency),
    Scan(std::fs::Metadata),
}

/// `STRATA_CACHESTAT=off`: measure by the mincore fallback as on a kernel
/// before 6.5, for tests and benchmarks of the fallback on a newer one.
fn cachestat_off() -> bool {
    std::env::var_os("STRATA_CACHESTAT").is_some_and(|v| v == "off")
}

/// Why a watched file could not be measured, before it is said by the
/// method it was measured by.
enum Failed {
    /// A stat, open or residency call failed.
    Io(io::Error),
    /// A FIFO, a directory or a device: never opened.
    NotRegular,
}

impl From<io::Error> for Failed {
    fn from(e: io::Error) -> Self {
        Failed::Io(e)
    }
}

/// A pattern as `--cache-files` and the config's `cache_files` take it:
/// not blank, and glob syntax that parses.
pub fn check_pattern(pattern: &str) -> Result<String, String> {
    if pattern.trim().is_empty() {
        return Err("an empty pattern names no file".to_string());
    }
    glob::Pattern::new(pattern)
        .map(|_| pattern.to_string())
        .map_err(|e| FileError::from(e).to_string())
}

/// Paths a `**` pattern's walk may visit, and the time it may take,
/// before it stops: glob's `**` followed directory symlinks for ever (two
/// links to `..`: the TUI at 100 % of a core and 661 MB in 15 s, a
/// recording without its cache layer). strata walks such a pattern
/// itself, each directory once by device and inode, and says where it
/// stopped; the files found before the stop are watched.
const WALK_MAX_PATHS: u64 = 100_000;
const WALK_BUDGET: std::time::Duration = std::time::Duration::from_millis(500);

/// The files under `pattern`'s literal prefix (below `root`) that `full`
/// (the pattern with the root escaped before it) matches, in order, each
/// directory entered once, and what stopped or hindered the walk.
fn walk(root: &Path, pattern: &str, full: &str) -> (Vec<PathBuf>, Vec<FileError>) {
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    let Ok(matcher) = glob::Pattern::new(full) else {
        return (found, problems);
    };
    let opts = glob::MatchOptions {
        require_literal_separator: true,
        ..glob::MatchOptions::new()
    };
    let literal: PathBuf = Path::new(pattern.trim_start_matches('/'))
        .components()
        .take_while(|c| !has_glob_meta(&c.as_os_str().to_string_lossy()))
        .collect();
    let base = root.join(literal);
    let (started, mut visited) = (std::time::Instant::now(), 0u64);
    let mut dirs: HashSet<(u64, u64)> = HashSet::new();
    if let Ok(m) = std::fs::metadata(&base) {
        dirs.insert((m.dev(), m.ino()));
    }
    let mut todo = vec![base];
    while let Some(dir) = todo.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                problems.push(FileError::Unreadable {
                    path: shown_path(root, &dir),
                    kind: crate::core::error::kind_name(e.kind()),
                    message: e.to_string(),
                });
                continue;
            }
        };
        let mut names: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        for path in names.into_iter().rev() {
            visited += 1;
            if visited > WALK_MAX_PATHS || started.elapsed() > WALK_BUDGET {
                let ms = started.elapsed().as_millis();
                problems.push(FileError::WalkStopped {
                    paths: visited - 1,
                    ms: u64::try_from(ms).unwrap_or(u64::MAX),
                });
                found.sort();
                return (found, problems);
            }
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                if dirs.insert((meta.dev(), meta.ino())) {
                    todo.push(path);
                }
            } else if matcher.matches_path_with(&path, opts) {
                found.push(path);
            }
        }
    }
    found.sort();
    (found, problems)
}

fn has_glob_meta(p: &str) -> bool {
    p.contains(['*', '?', '['])
}

/// The watched files of `patterns` under the root: each pattern's matches
/// by name, a file matched twice listed once, and a row for each pattern
/// that matched nothing or hit an unreadable directory.
fn expand(fs: &RootFs, patterns: &[String]) -> Vec<Watched> {
    let Some(root) = fs.local_path("/") else {
        // A node's patterns are expanded there (node_scan).
        return Vec::new();
    };
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut out = Vec::new();
    for pattern in patterns {
        let real = root.join(pattern.trim_start_matches('/'));
        if !has_glob_meta(pattern) {
            // A file named outright is watched whether or not it exists
            // yet: its absence is news.
            if seen.insert(real.clone()) {
                out.push(Watched::File {
                    shown: pattern.clone(),
                    real,
                });
            }
            continue;
        }
        // Checked alone so that an error's position is in the user's text
        // (not blank: it holds a glob character).
        if let Err(e) = glob::Pattern::new(pattern) {
            out.push(Watched::Problem {
                pattern: pattern.clone(),
                error: e.into(),
            });
            continue;
        }
        // The root is a literal prefix: a '[' in a temporary directory's
        // name must not become a character class.
        let full = format!(
            "{}/{}",
            glob::Pattern::escape(root.to_string_lossy().trim_end_matches('/')),
            pattern.trim_start_matches('/')
        );
        let (files, problems) = if pattern.contains("**") {
            walk(&root, pattern, &full)
        } else {
            globbed(&root, &full)
        };
        let matched = !files.is_empty();
        for path in files {
            if seen.insert(path.clone()) {
                out.push(Watched::File {
                    shown: shown_path(&root, &path),
                    real: path,
                });
            }
        }
        out.extend(problems.into_iter().map(|error| Watched::Problem {
            pattern: pattern.clone(),
            error,
        }));
        if !matched {
            out.push(Watched::Problem {
                pattern: pattern.clone(),
                error: FileError::NoMatch,
            });
        }
    }
    out
}

/// The files `full` (a pattern without `**`, the root escaped in it)
/// matches, in glob's order, and the directories it could not read.
/// Directories on a pattern such as /u01/* are not files anyone watches;
/// other odd files are kept and say why.
fn globbed(root: &Path, full: &str) -> (Vec<PathBuf>, Vec<FileError>) {
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    let paths = match glob::glob(full) {
        Ok(paths) => paths,
        Err(e) => return (found, vec![e.into()]),
    };
    for entry in paths {
        match entry {
            Ok(path) if path.is_dir() => {}
            Ok(path) => found.push(path),
            Err(e) => problems.push(FileError::Unreadable {
                path: shown_path(root, e.path()),
                kind: crate::core::error::kind_name(e.error().kind()),
                message: e.error().to_string(),
            }),
        }
    }
    (found, problems)
}

/// `real` as the user names it: without the root.
fn shown_path(root: &Path, real: &Path) -> String {
    match real.strip_prefix(root) {
        Ok(rel) => format!("/{}", rel.display()),
        Err(_) => real.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(p, text).unwrap();
    }

    fn proc_tree(root: &Path, uptime: &str) {
        write(root, "proc/uptime", &format!("{uptime} 1.00\n"));
        write(
            root,
            "proc/meminfo",
            "MemTotal: 100 kB\nSwapTotal: 8 kB\nCached: 40 kB\n",
        );
        write(
            root,
            "proc/vmstat",
            "nr_free_pages 3\npgpgin 10\npgpgout 20\n",
        );
    }

    #[test]
    fn reads_proc_and_no_files_without_patterns() {
        let dir = tempfile::tempdir().unwrap();
        proc_tree(dir.path(), "5.00");
        let mut src = CacheSource::new(RootFs::new(dir.path()), Vec::new());
        let s = src.sample(7).unwrap();
        assert_eq!((s.uptime_cs, s.wall_ms), (500, 7));
        assert_eq!(s.meminfo.kb("Cached"), Some(40));
        assert_eq!(s.vmstat.get("pgpgout"), Some(20));
        // what no figure uses is not kept (nor recorded)
        assert_eq!(s.meminfo.kb("SwapTotal"), None);
        assert_eq!(s.vmstat.get("nr_free_pages"), None);
        assert_eq!((s.meminfo.iter().count(), s.vmstat.len()), (2, 2));
        assert!(s.files.is_empty() && s.method.is_none());
    }

    #[test]
    fn patterns_follow_the_root_and_problems_are_rows() {
        let dir = tempfile::tempdir().unwrap();
        // a '[' in the root must stay literal
        let root = dir.path().join("capture[1]");
        proc_tree(&root, "5.00");
        write(&root, "u01/redo/redo01.log", "x");
        write(&root, "u01/redo/redo02.log", "yy");
        std::fs::create_dir_all(root.join("u01/redo/old.log")).unwrap();
        let patterns = vec![
            "/u01/redo/*.log".to_string(),
            "/u01/redo/redo01.log".to_string(),
            "/u01/arch/*.arc".to_string(),
            "/u01/missing.dbf".to_string(),
            "/u01/[".to_string(),
        ];
        let mut src = CacheSource::new(RootFs::new(&root), patterns);
        let s = src.sample(0).unwrap();
        let rows: Vec<(&str, Result<u64, FileError>)> = s
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.result.clone().map(|r| r.size_bytes)))
            .collect();
        let bad = "Pattern syntax error near position 5: invalid range pattern";
        assert_eq!(
            rows,
            [
                ("/u01/redo/redo01.log", Ok(1)),
                ("/u01/redo/redo02.log", Ok(2)),
                ("/u01/arch/*.arc", Err(FileError::NoMatch)),
                ("/u01/missing.dbf", Err(FileError::NoSuchFile)),
                (
                    "/u01/[",
                    Err(FileError::BadPattern {
                        message: bad.into()
                    })
                ),
            ]
        );
        // in the words a row said when it was a string
        let said: Vec<String> = rows[2..]
            .iter()
            .filter_map(|(_, r)| r.as_ref().err().map(ToString::to_string))
            .collect();
        assert_eq!(
            said,
            [
                "no file matches",
                "no such file",
                &format!("bad pattern: {bad}")
            ]
        );
        assert!(s.method.is_some());
        // The command line rejects the pattern in the same words.
        assert_eq!(check_pattern("/u01/["), Err(format!("bad pattern: {bad}")));
    }

    #[test]
    fn expansion_waits_ten_seconds_unless_a_file_vanished() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        proc_tree(root, "100.00");
        write(root, "d/a.log", "a");
        let mut src = CacheSource::new(RootFs::new(root), vec!["/d/*.log".into()]);
        let names = |s: &CacheSample| -> Vec<String> {
            s.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>()
        };
        assert_eq!(names(&src.sample(0).unwrap()), ["/d/a.log"]);
        write(root, "d/b.log", "b");
        proc_tree(root, "109.99");
        assert_eq!(names(&src.sample(0).unwrap()), ["/d/a.log"], "not due yet");
        proc_tree(root, "110.00");
        assert_eq!(names(&src.sample(0).unwrap()), ["/d/a.log", "/d/b.log"]);
        // a.log vanishes: an error row at once, gone from the list at the
        // next sample
        std::fs::remove_file(root.join("d/a.log")).unwrap();
        proc_tree(root, "111.00");
        let s = src.sample(0).unwrap();
        assert!(s.files[0].result.is_err());
        proc_tree(root, "112.00");
        assert_eq!(names(&src.sample(0).unwrap()), ["/d/b.log"]);
    }

    #[test]
    fn fifos_and_directories_named_outright_are_errors_not_hangs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        proc_tree(root, "1.00");
        let made = std::process::Command::new("mkfifo")
            .arg(root.join("fifo"))
            .status()
            .unwrap();
        assert!(made.success());
        std::fs::create_dir(root.join("dir")).unwrap();
        let mut src = CacheSource::new(RootFs::new(root), vec!["/fifo".into(), "/dir".into()]);
        let s = src.sample(0).unwrap();
        for f in &s.files {
            assert_eq!(f.result, Err(FileError::NotRegular), "{}", f.path);
            let e = f.result.as_ref().map(|_| ()).unwrap_err();
            assert_eq!(e.to_string(), "not a regular file");
        }
    }

    fn watched_files(w: &[Watched]) -> Vec<String> {
        w.iter()
            .filter_map(|w| match w {
                Watched::File { shown, .. } => Some(shown.clone()),
                Watched::Problem { .. } => None,
            })
            .collect()
    }

    /// `**/*.dbf` gives glob's files where there is no loop, and ends
    /// where two links to `..` make one (glob's own walk never ended
    /// there), each file once. A `**` at the end is every file below
    /// (glob's gave its directories only, which nobody watches).
    #[test]
    fn a_double_star_walk_matches_globs_files_and_ends_in_a_symlink_loop() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "d/a.dbf", "x");
        write(root, "d/sub/b.dbf", "x");
        write(root, "d/sub/deeper/c.log", "x");
        let fs = RootFs::new(root);
        let patterns = ["/d/**".to_string(), "/d/**/*.dbf".to_string()];
        let before: Vec<Vec<String>> = patterns
            .iter()
            .map(|p| watched_files(&expand(&fs, std::slice::from_ref(p))))
            .collect();
        let by_glob: Vec<Vec<String>> = patterns[1..]
            .iter()
            .map(|p| {
                let full = format!("{}{p}", root.display());
                let mut v: Vec<String> = glob::glob(&full)
                    .unwrap()
                    .filter_map(Result::ok)
                    .filter(|p| !p.is_dir())
                    .map(|p| shown_path(root, &p))
                    .collect();
                v.sort();
                v
            })
            .collect();
        assert_eq!(before[1..], by_glob);
        assert_eq!(before[1], ["/d/a.dbf", "/d/sub/b.dbf"]);
        assert_eq!(
            before[0],
            ["/d/a.dbf", "/d/sub/b.dbf", "/d/sub/deeper/c.log"]
        );
        std::os::unix::fs::symlink("..", root.join("d/up")).unwrap();
        std::os::unix::fs::symlink("..", root.join("d/sub/up")).unwrap();
        let started = std::time::Instant::now();
        let after: Vec<Vec<String>> = patterns
            .iter()
            .map(|p| watched_files(&expand(&fs, std::slice::from_ref(p))))
            .collect();
        assert!(
            started.elapsed() < WALK_BUDGET * 4,
            "{:?}",
            started.elapsed()
        );
        assert_eq!(after[1], ["/d/a.dbf", "/d/sub/b.dbf"]);
        assert_eq!(after[0].len(), 3, "{:?}", after[0]);
    }
}

//! Residency of real files on this kernel, with the cache state set by the
//! test: written and synced, dropped with POSIX_FADV_DONTNEED, read back in
//! part, written again without a sync. cachestat(2), the mincore(2)
//! fallback and util-linux fincore must all count the same pages.
//!
//! The files live on a disk-backed file system (tmpfs pages cannot be
//! dropped: they are the file). Reads are made with POSIX_FADV_RANDOM on
//! the reading descriptor, which turns readahead off (the kernel then
//! reads exactly the pages asked for, as order-0 folios), so the counts are
//! exact, not approximate.
//!
//! Two checks run in a child process of this test binary: one under a
//! seccomp filter that makes cachestat fail with ENOSYS, as on a kernel
//! before 6.5, and one as user `nobody` (needs root for setpriv).
//!
//! The libc calls below (statfs, posix_fadvise, prctl) set up the
//! experiment; the product's unsafe code stays in src/core/sys.rs.

#![allow(unsafe_code, clippy::unwrap_used, clippy::undocumented_unsafe_blocks)]

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use strata::core::rootfs::RootFs;
use strata::layers::cache::error::FileError;
use strata::layers::cache::residency::{Method, page_size};
use strata::layers::cache::source::{CacheSource, FileResidency};

const TMPFS_MAGIC: i64 = 0x0102_1994;
const RAMFS_MAGIC: i64 = 0x8584_58f6;

/// A temporary directory on a file system whose pages can be dropped: the
/// target directory, else /var/tmp.
fn disk_dir() -> tempfile::TempDir {
    for base in [env!("CARGO_TARGET_TMPDIR"), "/var/tmp"] {
        let magic = fs_magic(Path::new(base));
        if magic.is_some_and(|m| m != TMPFS_MAGIC && m != RAMFS_MAGIC) {
            return tempfile::tempdir_in(base).unwrap();
        }
    }
    panic!("neither the target directory nor /var/tmp is on a disk-backed file system");
}

fn fs_magic(path: &Path) -> Option<i64> {
    let c = std::ffi::CString::new(path.to_str()?).ok()?;
    // SAFETY: a zeroed statfs is a valid value; the kernel fills it in and
    // reads only the NUL-terminated path, both live for the call.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statfs(c.as_ptr(), &mut st) };
    (rc == 0).then_some(st.f_type as i64)
}

fn fadvise(f: &File, off: u64, len: u64, advice: libc::c_int) {
    // SAFETY: an open descriptor and plain integers.
    let rc = unsafe { libc::posix_fadvise(f.as_raw_fd(), off as i64, len as i64, advice) };
    assert_eq!(rc, 0, "posix_fadvise");
}

fn page() -> u64 {
    page_size()
}

/// A file of `pages` pages of non-zero data, on disk and out of the cache.
fn cold_file(dir: &Path, name: &str, pages: u64) -> PathBuf {
    let path = dir.join(name);
    let mut f = File::create(&path).unwrap();
    let chunk: Vec<u8> = (0..page()).map(|i| (i % 251 + 1) as u8).collect();
    for _ in 0..pages {
        f.write_all(&chunk).unwrap();
    }
    f.sync_all().unwrap();
    fadvise(&f, 0, 0, libc::POSIX_FADV_DONTNEED);
    path
}

/// Reads pages `first..first + n` (up to the end of the file) in one
/// call, with readahead off.
fn read_pages(path: &Path, first: u64, n: u64) {
    let f = File::open(path).unwrap();
    fadvise(&f, 0, 0, libc::POSIX_FADV_RANDOM);
    let mut buf = vec![0u8; (n * page()) as usize];
    let got = f.read_at(&mut buf, first * page()).unwrap();
    assert!(got > 0);
}

/// Writes pages `first..first + n` without syncing them.
fn dirty_pages(path: &Path, first: u64, n: u64) {
    let f = OpenOptions::new().write(true).open(path).unwrap();
    let buf = vec![7u8; (n * page()) as usize];
    f.write_all_at(&buf, first * page()).unwrap();
}

/// The figure of `path` through the real source, with `method` forced or
/// chosen by the source: the first sample's, or for mincore the first
/// sample's that completes a pass (a 3 GiB file takes several ticks' budget).
fn measure(path: &Path, method: Option<Method>) -> (FileResidency, Method) {
    let mut src = CacheSource::new(RootFs::default(), vec![path.display().to_string()]);
    if let Some(m) = method {
        src.force_method(m);
    }
    for tick in 1..=10_000 {
        let s = src.sample(tick).unwrap();
        assert_eq!(s.files.len(), 1);
        match &s.files[0].result {
            Err(FileError::FirstPass { .. }) => continue,
            Ok(r) => return (*r, s.method.unwrap()),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    panic!("{}: no pass completed in 10,000 samples", path.display())
}

fn kernel_has_cachestat() -> bool {
    let rel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    let mut it = rel.trim().split(['.', '-']);
    let major: u32 = it.next().and_then(|x| x.parse().ok()).unwrap_or(0);
    let minor: u32 = it.next().and_then(|x| x.parse().ok()).unwrap_or(0);
    (major, minor) >= (6, 5)
}

/// (resident pages, size) as util-linux fincore counts them; `None` when
/// fincore is not installed and not required.
fn fincore(path: &Path) -> Option<(u64, u64)> {
    let out = match Command::new("fincore")
        .args(["-b", "-n", "-r", "-o", "PAGES,SIZE"])
        .arg(path)
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var_os("STRATA_REQUIRE_FINCORE").is_none(),
                "fincore required: {e}"
            );
            eprintln!("SKIPPED fincore parity: {e}");
            return None;
        }
    };
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut w = text.split_whitespace().map(|x| x.parse::<u64>().unwrap());
    Some((w.next().unwrap(), w.next().unwrap()))
}

#[test]
fn cachestat_mincore_and_fincore_count_the_pages_the_test_put_in_the_cache() {
    assert!(
        kernel_has_cachestat(),
        "this test expects kernel 6.5+ (cachestat)"
    );
    let dir = disk_dir();
    // 256 pages (1 MiB with 4 KiB pages) plus 100 bytes: 257 pages of file
    let path = cold_file(dir.path(), "redo01.log", 256);
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&[1u8; 100])
        .unwrap();
    let f = File::open(&path).unwrap();
    f.sync_all().unwrap();
    fadvise(&f, 0, 0, libc::POSIX_FADV_DONTNEED);
    let size = 256 * page() + 100;

    // synced and dropped: nothing cached, nothing dirty
    let (cs, m) = measure(&path, None);
    assert_eq!(m, Method::Cachestat);
    assert_eq!(cs.size_bytes, size);
    assert_eq!((cs.pages.cached, cs.pages.dirty), (0, Some(0)));
    assert_eq!(measure(&path, Some(Method::Mincore)).0.pages.cached, 0);

    // 37 pages read back from page 10: exactly those 37
    read_pages(&path, 10, 37);
    let (cs, _) = measure(&path, None);
    let (mc, m) = measure(&path, Some(Method::Mincore));
    assert_eq!(m, Method::Mincore);
    assert_eq!(cs.pages.cached, 37);
    assert_eq!(mc.pages.cached, 37);
    assert_eq!(mc.pages.dirty, None, "mincore cannot tell dirty pages");
    assert_eq!(cs.pages.dirty, Some(0));
    if let Some((pages, fsize)) = fincore(&path) {
        assert_eq!((pages, fsize), (37, size));
    }

    // the partial last page read too: 38
    read_pages(&path, 256, 1);
    assert_eq!(measure(&path, None).0.pages.cached, 38);
    assert_eq!(measure(&path, Some(Method::Mincore)).0.pages.cached, 38);

    // 5 pages written at page 100, not synced: cached and dirty. Full-page
    // writes need no read, and the folios the write allocates never
    // reach past the written range, so the count is exact. (A sync(2) by
    // another process in the microseconds between the write and the
    // cachestat call would move them to writeback or clean.)
    dirty_pages(&path, 100, 5);
    let (cs, _) = measure(&path, None);
    assert_eq!(cs.pages.cached, 43);
    assert_eq!(cs.pages.dirty, Some(5));
    assert_eq!(measure(&path, Some(Method::Mincore)).0.pages.cached, 43);
    if let Some((pages, _)) = fincore(&path) {
        assert_eq!(pages, 43);
    }

    // fsync waits for the writeback to end: clean, still cached
    File::open(&path).unwrap().sync_all().unwrap();
    let (cs, _) = measure(&path, None);
    assert_eq!(
        (cs.pages.cached, cs.pages.dirty, cs.pages.writeback),
        (43, Some(0), Some(0))
    );

    // dropped again; DONTNEED leaves no shadow entries, so nothing counts
    // as evicted either (reclaim would leave them)
    fadvise(&File::open(&path).unwrap(), 0, 0, libc::POSIX_FADV_DONTNEED);
    let (cs, _) = measure(&path, None);
    assert_eq!(cs.pages.cached, 0);
    assert_eq!(cs.pages.evicted, Some(0));
    assert_eq!(measure(&path, Some(Method::Mincore)).0.pages.cached, 0);
}

#[test]
fn a_large_sparse_file_costs_no_cache_and_counts_right() {
    let dir = disk_dir();
    let path = dir.path().join("sparse.dbf");
    // 3 GiB: the mincore path crosses two 1 GiB window boundaries
    let f = File::create(&path).unwrap();
    f.set_len(3 << 30).unwrap();
    // one page at the start of each window and the last page
    let last = (3u64 << 30) / page() - 1;
    let per_window = (1u64 << 30) / page();
    for p in [0, per_window, 2 * per_window, last] {
        f.write_all_at(&[1u8], p * page()).unwrap();
    }
    f.sync_all().unwrap();
    fadvise(&f, 0, 0, libc::POSIX_FADV_DONTNEED);
    for p in [0, per_window, 2 * per_window, last] {
        read_pages(&path, p, 1);
    }
    let (mc, _) = measure(&path, Some(Method::Mincore));
    assert_eq!(mc.pages.cached, 4);
    if kernel_has_cachestat() {
        assert_eq!(measure(&path, None).0.pages.cached, 4);
    }
}

/// Runs one `child_*` test of this binary in a new process, with `env`,
/// under `prefix` (a command such as setpriv) if given; returns its stdout.
fn run_child(name: &str, env: &[(&str, &str)], prefix: &[&str]) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = match prefix.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    // Test names in a binary of several modules start with the module's.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let full = format!("{module}::{name}");
    cmd.args(["--exact", &full, "--nocapture", "--test-threads=1"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{name}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("CHILD DONE"),
        "{name} did not run: {stdout}"
    );
    stdout
}

/// A line `key=value` printed by a child.
fn child_value<'a>(stdout: &'a str, key: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key}= in {stdout}"))
}

#[test]
fn without_cachestat_the_source_falls_back_to_mincore() {
    let dir = disk_dir();
    let path = cold_file(dir.path(), "arch_1_42.arc", 64);
    read_pages(&path, 3, 9);
    let out = run_child(
        "child_under_a_seccomp_filter_that_hides_cachestat",
        &[("STRATA_CHILD_FILE", path.to_str().unwrap())],
        &[],
    );
    // the kernel said ENOSYS, as before 6.5; the source switched itself
    assert_eq!(child_value(&out, "method"), "Mincore");
    assert_eq!(child_value(&out, "cached"), "9");
    assert_eq!(child_value(&out, "dirty"), "None");
}

/// Child of the test above: cachestat gives ENOSYS in this process.
#[test]
fn child_under_a_seccomp_filter_that_hides_cachestat() {
    let Some(path) = std::env::var_os("STRATA_CHILD_FILE") else {
        return; // run only as a child
    };
    hide_cachestat();
    let (r, m) = measure(Path::new(&path), None);
    println!(
        "\nmethod={m:?}\ncached={}\ndirty={:?}",
        r.pages.cached, r.pages.dirty
    );
    println!("CHILD DONE");
}

/// Installs a seccomp filter: syscall 451 (cachestat) fails with ENOSYS,
/// everything else is allowed. Only this process is affected.
fn hide_cachestat() {
    const NR: u32 = 451;
    let filter = [
        // A = seccomp_data.nr
        libc::sock_filter {
            code: (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16,
            jt: 0,
            jf: 0,
            k: 0,
        },
        libc::sock_filter {
            code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
            jt: 0,
            jf: 1,
            k: NR,
        },
        libc::sock_filter {
            code: (libc::BPF_RET | libc::BPF_K) as u16,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32,
        },
        libc::sock_filter {
            code: (libc::BPF_RET | libc::BPF_K) as u16,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ALLOW,
        },
    ];
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: prctl with constant arguments, then with a pointer to a
    // filter program that lives until the call returns (the kernel copies
    // it).
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
        assert_eq!(
            libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &prog as *const libc::sock_fprog
            ),
            0
        );
    }
}

/// True when this process may run a child as another user.
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}

#[test]
fn another_user_gets_an_error_not_a_fully_cached_file() {
    if !is_root() {
        eprintln!("SKIPPED: needs root to run a child as nobody");
        return;
    }
    // /var/tmp, where nobody can reach the file, readable by all
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = cold_file(dir.path(), "alert.log", 16);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    // nothing is cached: a mincore call from nobody would say 16 of 16
    let out = run_child(
        "child_as_nobody",
        &[("STRATA_CHILD_FILE", path.to_str().unwrap())],
        &[
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
        ],
    );
    if kernel_has_cachestat() {
        assert_eq!(
            child_value(&out, "cachestat"),
            "cachestat(2): the kernel tells residency only to the file's owner, a writer or root"
        );
    }
    assert_eq!(
        child_value(&out, "mincore"),
        "mincore(2): the kernel tells residency only to the file's owner, a writer or root"
    );
}

/// Child of the test above, as an unprivileged user who may read the file
/// but neither owns nor may write it.
#[test]
fn child_as_nobody() {
    let Some(path) = std::env::var_os("STRATA_CHILD_FILE") else {
        return; // run only as a child
    };
    println!();
    for (key, method) in [
        ("cachestat", Method::Cachestat),
        ("mincore", Method::Mincore),
    ] {
        let mut src = CacheSource::new(RootFs::default(), vec![path.to_string_lossy().into()]);
        src.force_method(method);
        let s = src.sample(0).unwrap();
        match &s.files[0].result {
            Ok(r) => println!("{key}=cached {}", r.pages.cached),
            Err(e) => println!("{key}={e}"),
        }
    }
    println!("CHILD DONE");
}

/// Sparse files, so the sizes cost no disk; not much larger, as fincore
/// asks mincore about every page of them.
#[test]
fn sizes_print_as_fincore_prints_them() {
    let dir = disk_dir();
    let sizes = [
        0u64,
        1023,
        1024,
        1536,
        100_000,
        1_048_535,
        1_048_676,
        5_000_000_000,
        (3 << 30) + 123_456_789,
    ];
    let mut paths = Vec::new();
    for (i, size) in sizes.iter().enumerate() {
        let path = dir.path().join(format!("f{i}"));
        File::create(&path).unwrap().set_len(*size).unwrap();
        paths.push(path);
    }
    let out = match Command::new("fincore")
        .args(["-n", "-r", "-o", "SIZE"])
        .args(&paths)
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var_os("STRATA_REQUIRE_FINCORE").is_none(),
                "fincore required: {e}"
            );
            eprintln!("SKIPPED fincore size parity: {e}");
            return;
        }
    };
    assert!(out.status.success(), "{out:?}");
    let theirs: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let ours: Vec<String> = sizes
        .iter()
        .map(|&s| strata::layers::cache::report::human_size(s))
        .collect();
    assert_eq!(ours, theirs);
}

/// Paths of this process's open descriptors.
fn open_fd_targets() -> Vec<String> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_file_kept_open_between_scans_is_let_go_when_replaced_or_deleted() {
    let dir = disk_dir();
    let path = cold_file(dir.path(), "users01.dbf", 8);
    read_pages(&path, 0, 3);
    let mut src = CacheSource::new(RootFs::default(), vec![path.display().to_string()]);
    let first = |src: &mut CacheSource| src.sample(0).unwrap().files.remove(0).result;

    let a = first(&mut src).unwrap();
    assert_eq!((a.pages.cached, a.size_bytes), (3, 8 * page()));
    let held = |name: &str| open_fd_targets().iter().any(|t| t.contains(name));
    assert!(held("users01.dbf"), "the watched file is kept open");

    // Replaced under the same name (as a restore does): the new file's
    // identity and pages, not the old descriptor's.
    let b = cold_file(dir.path(), "users01.new", 5);
    read_pages(&b, 0, 5);
    std::fs::rename(&b, &path).unwrap();
    let r = first(&mut src).unwrap();
    assert_ne!(r.ino, a.ino, "the replacement was opened afresh");
    assert_eq!((r.pages.cached, r.size_bytes), (5, 5 * page()));
    assert!(
        !open_fd_targets()
            .iter()
            .any(|t| t.contains("users01") && t.contains("(deleted)")),
        "the replaced file's descriptor was closed: {:?}",
        open_fd_targets()
    );

    // Deleted: an error row, and no descriptor keeps its space allocated.
    std::fs::remove_file(&path).unwrap();
    let e = first(&mut src).unwrap_err();
    assert_eq!(
        (e.to_string(), e),
        ("no such file".into(), FileError::NoSuchFile)
    );
    assert!(!held("users01.dbf"), "{:?}", open_fd_targets());
}

/// The mincore fallback's scan on this kernel, a page a tick (a budget of
/// a nanosecond): each tick resumes where the last stopped and the pass's
/// figure counts the pages read; a file truncated under a pass gives no
/// more pages than it has, and one replaced under its name starts over.
#[test]
fn the_incremental_mincore_scan_resumes_across_ticks_and_survives_changes() {
    let dir = disk_dir();
    let path = cold_file(dir.path(), "system01.dbf", 6);
    read_pages(&path, 1, 3);
    let mut src = CacheSource::new(RootFs::default(), vec![path.display().to_string()]);
    src.force_method(Method::Mincore);
    src.set_scan_budget(std::time::Duration::from_nanos(1));
    let result =
        |src: &mut CacheSource, tick: i64| src.sample(tick).unwrap().files.remove(0).result;
    for tick in 1..=5 {
        let first = FileError::FirstPass {
            scanned_bytes: tick as u64 * page(),
            size_bytes: 6 * page(),
        };
        assert_eq!(result(&mut src, tick), Err(first), "tick {tick}");
        assert_eq!(src.scan_cost().bytes, page(), "a page a tick");
    }
    let r = result(&mut src, 6).unwrap();
    assert_eq!(
        (r.pages.cached, r.scanned_ms, r.size_bytes),
        (3, Some(6), 6 * page())
    );
    // the next pass is under way: the figure of tick 6 stays, with its time
    let r = result(&mut src, 7).unwrap();
    assert_eq!((r.pages.cached, r.scanned_ms), (3, Some(6)));

    // truncated to 2 pages while the next pass is under way: at most 2
    File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(2 * page())
        .unwrap();
    let r = result(&mut src, 8).unwrap();
    assert!(r.pages.cached <= 2 && r.size_bytes == 2 * page(), "{r:?}");

    // replaced under its name: another inode, which starts over
    let b = cold_file(dir.path(), "system01.new", 4);
    std::fs::rename(&b, &path).unwrap();
    assert!(matches!(
        result(&mut src, 9),
        Err(FileError::FirstPass { scanned_bytes, size_bytes })
            if scanned_bytes == page() && size_bytes == 4 * page()
    ));
    // deleted: said, and forgotten
    std::fs::remove_file(&path).unwrap();
    assert_eq!(result(&mut src, 10), Err(FileError::NoSuchFile));
}

/// `STRATA_CACHESTAT=off` makes a kernel with cachestat measure as one
/// without: the mincore scan, figures stamped with their pass's sample.
#[test]
fn strata_cachestat_off_forces_the_mincore_scan() {
    let dir = disk_dir();
    let path = cold_file(dir.path(), "undotbs01.dbf", 32);
    read_pages(&path, 4, 7);
    let out = run_child(
        "child_with_strata_cachestat_off",
        &[
            ("STRATA_CHILD_FILE", path.to_str().unwrap()),
            ("STRATA_CACHESTAT", "off"),
        ],
        &[],
    );
    assert_eq!(child_value(&out, "method"), "Mincore");
    assert_eq!(child_value(&out, "cached"), "7");
    assert_eq!(child_value(&out, "scanned_ms"), "Some(1)");
}

/// Child of the test above.
#[test]
fn child_with_strata_cachestat_off() {
    let Some(path) = std::env::var_os("STRATA_CHILD_FILE") else {
        return; // run only as a child
    };
    let mut src = CacheSource::new(RootFs::default(), vec![path.to_string_lossy().into()]);
    let s = src.sample(1).unwrap();
    let r = s.files[0].result.clone().unwrap();
    println!(
        "\nmethod={:?}\ncached={}\nscanned_ms={:?}",
        s.method.unwrap(),
        r.pages.cached,
        r.scanned_ms
    );
    println!("CHILD DONE");
}

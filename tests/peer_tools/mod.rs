//! Running a peer tool (iostat, nicstat) beside strata on the same
//! generated snapshots: a seeded generator, processes bounded in time, and
//! pairs run a few at a time under a deadline. Shared by the iostat and
//! nicstat parity tests and the sshd harness.
#![allow(dead_code)]

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A line of sh that sleeps until 20 ms after the wall clock's next whole
/// second (awk reads date's nanoseconds as decimal, where sh would take a
/// leading zero for octal). `strata batch` reads at the whole seconds of
/// the wall clock, a peer tool 1 s after its start: tools started there
/// read their second snapshot within a few ms of each other.
pub const AFTER_A_WHOLE_SECOND: &str =
    "sleep \"$(date +%N | awk '{ printf \"%.3f\", (1e9 - $1) / 1e9 + 0.02 }')\"\n";

/// xorshift64*: small, seeded, good enough to pick test cases.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        for _ in 0..4 {
            r.next();
        }
        r
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in 0..n (0 when n is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    /// Uniform in lo..=hi.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

pub fn find_in_path(cmd: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/bin".into(), "/usr/sbin".into(), "/bin".into()])
        .map(|d| d.join(cmd))
        .find(|p| p.is_file())
}

/// Runs `cmd` in its own process group, killed whole once it outlives
/// `timeout`. Returns (exit status, stdout, stderr).
pub fn run_bounded(cmd: &mut Command, timeout: Duration) -> Result<(i32, String, String), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (out_path, err_path) = (dir.path().join("out"), dir.path().join("err"));
    let file = |p: &Path| fs::File::create(p).map_err(|e| e.to_string());
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(file(&out_path)?)
        .stderr(file(&err_path)?)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                // SAFETY: signals only the process group spawned above.
                unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
                let _ = child.wait();
                return Err(format!("{cmd:?} still running after {timeout:?}: killed"));
            }
        }
    };
    let read = |p: &Path| fs::read_to_string(p).unwrap_or_default();
    Ok((
        status.code().unwrap_or(-1),
        read(&out_path),
        read(&err_path),
    ))
}

pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

static POOL: Mutex<()> = Mutex::new(());

/// The result of `run` on one item, with the failures of the attempts
/// before the one that passed.
pub type Attempts<T> = Result<(T, Vec<String>), String>;

/// Runs `run` on every item, `parallel` at a time, up to `attempts` times
/// each until it passes (a loaded machine can stall a tool past a margin);
/// items not started within `deadline` fail. Results in item order.
pub fn run_all<I: Sync, T: Send>(
    items: &[I],
    parallel: usize,
    attempts: usize,
    deadline: Duration,
    run: impl Fn(&I) -> Result<T, String> + Sync,
) -> Vec<(usize, Attempts<T>)> {
    // One pool at a time in a test binary: two suites' pools of tools at
    // once would stall both past their margins.
    let _one_pool = POOL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..parallel.min(items.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= items.len() {
                        break;
                    }
                    let r = if start.elapsed() > deadline {
                        Err(format!(
                            "item {i} not run: the {deadline:?} deadline passed"
                        ))
                    } else {
                        let mut failures = Vec::new();
                        let mut passed = None;
                        for attempt in 1..=attempts {
                            match run(&items[i]) {
                                Ok(t) => {
                                    passed = Some(t);
                                    break;
                                }
                                Err(e) => failures.push(format!("attempt {attempt}: {e}")),
                            }
                        }
                        match passed {
                            Some(t) => Ok((t, failures)),
                            None => Err(failures.join("\n")),
                        }
                    };
                    results.lock().unwrap().push((i, r));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    results
}

/// Whether this process may make a private mount namespace (with the other
/// `unshare` flags given, such as "-n") and bind a file over /proc/uptime
/// in it: root or CAP_SYS_ADMIN.
pub fn can_bind_in_namespace(unshare_flags: &[&str]) -> Result<(), String> {
    find_in_path("unshare").ok_or("unshare not found (util-linux)")?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let probe = dir.path().join("uptime");
    fs::write(&probe, "4242.25 1.00\n").map_err(|e| e.to_string())?;
    let script = "mount --bind \"$1\" /proc/uptime && cat /proc/uptime";
    let (code, out, err) = run_bounded(
        Command::new("unshare")
            .arg("-m")
            .args(unshare_flags)
            .args(["sh", "-c", script, "sh"])
            .arg(&probe),
        Duration::from_secs(10),
    )?;
    if code != 0 || out != "4242.25 1.00\n" {
        return Err(format!(
            "`unshare -m {}` + `mount --bind` failed (needs root or CAP_SYS_ADMIN): exit {code}, {}",
            unshare_flags.join(" "),
            err.trim()
        ));
    }
    Ok(())
}

/// What a test needs, or `None` after printing why it is skipped; when the
/// environment variable `require` is 1, a skip is a failure instead.
/// Runs `script` (sh, in `dir`, which it writes its tool's output to as
/// `out`, its errors to `err` and its exit status to `rc`) in a private
/// mount namespace (`unshare -m`), bounded by `timeout`: the tool's
/// output, or what went wrong, named by `what` ("pair 3").
#[allow(dead_code)]
pub fn run_in_namespace(
    dir: &Path,
    script: &str,
    timeout: Duration,
    what: &str,
) -> Result<String, String> {
    fs::write(dir.join("run.sh"), script).map_err(|e| e.to_string())?;
    let (code, _, err) = run_bounded(
        Command::new("unshare")
            .arg("-m")
            .arg("sh")
            .arg(dir.join("run.sh")),
        timeout,
    )?;
    let read = |n: &str| fs::read_to_string(dir.join(n)).unwrap_or_default();
    if code != 0 || read("rc").trim() != "0" || !read("err").is_empty() {
        return Err(format!(
            "{what}: exit {code}, tool {:?}: {} {}",
            read("rc").trim(),
            read("err"),
            err.trim()
        ));
    }
    Ok(read("out"))
}

/// A sysstat tool (`mpstat`, `pidstat`) to run on generated /proc trees
/// bound over the real ones in a private mount namespace: its path, or
/// why it cannot run here.
#[allow(dead_code)]
pub fn sysstat_in_namespace(cmd: &str) -> Result<PathBuf, String> {
    let path = find_in_path(cmd).ok_or_else(|| format!("{cmd} not found (sysstat)"))?;
    can_bind_in_namespace(&[])?;
    Ok(path)
}

pub fn or_skip<T>(test: &str, require: &str, env: Result<T, String>) -> Option<T> {
    match env {
        Ok(env) => Some(env),
        Err(reason) => {
            if std::env::var(require).as_deref() == Ok("1") {
                panic!("{test}: {require}=1 but the test cannot run: {reason}");
            }
            eprintln!("{test}: SKIPPED: {reason}");
            None
        }
    }
}

/// What `run_all` gave: the passes, a line per item that passed only on a
/// later attempt, and the failures.
pub struct Outcome<T> {
    pub passed: Vec<T>,
    pub retried: Vec<String>,
    pub failures: Vec<String>,
}

pub fn outcome<T>(results: Vec<(usize, Attempts<T>)>) -> Outcome<T> {
    let mut o = Outcome {
        passed: Vec::new(),
        retried: Vec::new(),
        failures: Vec::new(),
    };
    for (i, r) in results {
        match r {
            Ok((t, earlier)) => {
                o.passed.push(t);
                if let Some(first) = earlier.first() {
                    o.retried
                        .push(format!("item {i}: {}", first.lines().next().unwrap_or("")));
                }
            }
            Err(e) => o.failures.push(e),
        }
    }
    o
}

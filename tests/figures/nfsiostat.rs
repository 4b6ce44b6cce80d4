//! Figure-for-figure parity of `strata batch nfs` with nfs-utils' nfsiostat
//! (Debian nfs-common), on the snapshot pairs of tests/nfs_pairs: real
//! mountstats samples, old (2.6.16 udp, 10-field tcp, 8-field ops) and new
//! (RPC iostats 1.1, 9-field ops with errors), and B made from each.
//!
//! nfsiostat reads /proc/self/mountstats, which resolves to the reading
//! process's own /proc/PID. So in a private mount namespace (`unshare -m`)
//! a shell binds A over /proc/$$/mountstats and then `exec`s nfsiostat,
//! which keeps the shell's PID and so reads the bound file. strata reads
//! the same file with `--root`, and /proc/uptime next to it. Once both
//! have read A (nfsiostat has printed its since-mount report, strata its
//! banner), B is written in place, well before their second read one
//! interval later. nfsiostat divides by its nominal interval, strata by
//! the uptime difference; B's uptime is exactly one interval on, so the
//! two must agree to the last digit.
//!
//! Every line nfsiostat prints for a mount in its second report must be in
//! strata's block for that mount, in the same order; strata's block may
//! add the other ops that were active (GETATTR here), after WRITE. strata's
//! JSON must carry the same figures as its text.
//!
//! Needs nfsiostat, python3 and `unshare -m` with the right to mount (root
//! or CAP_SYS_ADMIN). Without them the test prints "SKIPPED: reason" and
//! passes, unless STRATA_REQUIRE_NFSIOSTAT=1 (scripts/test sets it as root
//! when the tool is there), which turns a skip into a failure.
//! STRATA_PARITY_NFSIOSTAT=PATH runs another nfsiostat than the one on
//! PATH.

#![allow(unsafe_code)]

use crate::nfs_pairs;

use nfs_pairs::{PAIRS, Pair};
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const STRATA: &str = env!("CARGO_BIN_EXE_strata");
/// A second try only when the first could not write B in time.
const ATTEMPTS: usize = 2;
const UPTIME_A_CS: u64 = 500_000;

/// A child in its own process group, its output going to files.
struct Running {
    what: &'static str,
    child: Child,
    out: PathBuf,
    err: PathBuf,
}

impl Running {
    fn start(what: &'static str, cmd: &mut Command, dir: &Path) -> Result<Running, String> {
        let out = dir.join(format!("{what}.out"));
        let err = dir.join(format!("{what}.err"));
        let file = |p: &Path| fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
        let child = cmd
            .stdin(Stdio::null())
            .stdout(file(&out)?)
            .stderr(file(&err)?)
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {what}: {e}"))?;
        Ok(Running {
            what,
            child,
            out,
            err,
        })
    }

    fn output(&self) -> String {
        fs::read_to_string(&self.out).unwrap_or_default()
    }

    /// Waits for the exit until `deadline`, then kills the group. The
    /// output of a successful exit, or why not.
    fn finish(mut self, deadline: Instant) -> Result<String, String> {
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return Ok(self.output()),
                Ok(Some(status)) => {
                    return Err(format!(
                        "{} exited with {status}: {}{}",
                        self.what,
                        self.output(),
                        fs::read_to_string(&self.err).unwrap_or_default()
                    ));
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => break,
            }
        }
        // SAFETY: signals only the process group `start` created.
        unsafe {
            libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL);
        }
        let _ = self.child.wait();
        Err(format!(
            "{} still running at the deadline: killed",
            self.what
        ))
    }
}

fn nfsiostat_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("STRATA_PARITY_NFSIOSTAT") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .map(|d| d.join("nfsiostat"))
        .find(|p| p.is_file())
}

/// `unshare -m sh`: binds FILE over the shell's own mountstats and becomes
/// nfsiostat with ARGS.
fn nfsiostat_cmd(nfsiostat: &Path, file: &Path, args: &[String]) -> Command {
    let mut cmd = Command::new("unshare");
    cmd.args([
        "-m",
        "sh",
        "-c",
        "mount --bind \"$1\" /proc/$$/mountstats || exit 90; shift; exec \"$@\"",
        "sh",
    ])
    .arg(file)
    .arg(nfsiostat)
    .args(args);
    cmd
}

/// nfsiostat and a namespace that runs it, or why the test cannot run.
fn parity_env() -> Result<PathBuf, String> {
    let nfsiostat = nfsiostat_path()
        .ok_or("nfsiostat not found (install nfs-common, or set STRATA_PARITY_NFSIOSTAT)")?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let probe = dir.path().join("mountstats");
    fs::write(&probe, nfs_pairs::OLD_UDP.a()).map_err(|e| e.to_string())?;
    let run = Running::start(
        "probe",
        &mut nfsiostat_cmd(&nfsiostat, &probe, &[]),
        dir.path(),
    )?;
    let out = run
        .finish(Instant::now() + Duration::from_secs(20))
        .map_err(|e| format!("nfsiostat in `unshare -m` over a bound mountstats (needs root or CAP_SYS_ADMIN, and python3): {e}"))?;
    if !out.contains("sparrow:/exported/joe mounted on /u/joe:") {
        return Err(format!("nfsiostat did not read the bound file: {out}"));
    }
    Ok(nfsiostat)
}

fn env_or_skip(test: &str) -> Option<PathBuf> {
    match parity_env() {
        Ok(p) => Some(p),
        Err(reason) => {
            if std::env::var("STRATA_REQUIRE_NFSIOSTAT").as_deref() == Ok("1") {
                panic!("{test}: STRATA_REQUIRE_NFSIOSTAT=1 but the test cannot run: {reason}");
            }
            eprintln!("{test}: SKIPPED: {reason}");
            None
        }
    }
}

fn uptime(cs: u64) -> String {
    format!("{}.{:02} 0.00\n", cs / 100, cs % 100)
}

/// Runs nfsiostat and strata (text and JSON) over A → B. Their outputs.
fn run_pair(pair: &Pair, nfsiostat: &Path) -> Result<[String; 3], String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = dir.path().join("root");
    let proc_self = root.join("proc/self");
    fs::create_dir_all(&proc_self).map_err(|e| e.to_string())?;
    let mountstats = proc_self.join("mountstats");
    let uptime_path = root.join("proc/uptime");
    let write = |p: &Path, text: String| fs::write(p, text).map_err(|e| e.to_string());
    write(&uptime_path, uptime(UPTIME_A_CS))?;
    write(&mountstats, pair.a())?;
    let itv = pair.itv_s.to_string();
    let strata = |format: &str| {
        let mut cmd = Command::new(STRATA);
        cmd.args([
            "batch",
            "nfs",
            "--count",
            "1",
            "--interval",
            &itv,
            "--format",
            format,
        ])
        .arg("--root")
        .arg(&root);
        cmd
    };
    // nfsiostat reads again an interval after its start, strata at the
    // next multiple of the interval on the wall clock (its samplers'
    // shared boundaries): started 20 ms after one, both read B about an
    // interval later.
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| e.to_string())?;
    let itv_ns = u128::from(pair.itv_s.max(1)) * 1_000_000_000;
    let to_next =
        u64::try_from(itv_ns - since_epoch.as_nanos() % itv_ns).map_err(|e| e.to_string())?;
    std::thread::sleep(Duration::from_nanos(to_next) + Duration::from_millis(20));
    let started = Instant::now();
    let runs = [
        Running::start(
            "nfsiostat",
            &mut nfsiostat_cmd(nfsiostat, &mountstats, &[itv.clone(), "2".into()]),
            dir.path(),
        )?,
        Running::start("strata_text", &mut strata("text"), dir.path())?,
        Running::start("strata_json", &mut strata("json"), dir.path())?,
    ];
    // A is read once nfsiostat has printed its since-mount report and
    // strata its banner (text) or nothing yet (JSON prints no banner: give
    // it the time the text run took, plus a margin).
    let itv_d = Duration::from_secs(pair.itv_s);
    loop {
        let read_a = runs[0].output().contains(" mounted on ") && !runs[1].output().is_empty();
        if read_a {
            std::thread::sleep(Duration::from_millis(100));
            break;
        }
        if started.elapsed() > itv_d / 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if started.elapsed() > itv_d.saturating_sub(Duration::from_millis(300)) {
        let deadline = Instant::now();
        for r in runs {
            let _ = r.finish(deadline);
        }
        return Err(format!(
            "too slow to read A: {:?} after the start",
            started.elapsed()
        ));
    }
    write(&mountstats, pair.b())?;
    write(&uptime_path, uptime(UPTIME_A_CS + pair.itv_s * 100))?;
    let deadline = started + 2 * itv_d + Duration::from_secs(20);
    let [a, b, c] = runs;
    Ok([
        a.finish(deadline)?,
        b.finish(deadline)?,
        c.finish(deadline)?,
    ])
}

/// The blocks of a report: from each `<export> mounted on <mp>:` line to
/// the next, without blank lines.
fn blocks(text: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    for line in text.lines() {
        if line.contains(" mounted on ") && line.ends_with(':') {
            out.push(vec![line]);
        } else if let Some(b) = out.last_mut()
            && !line.trim().is_empty()
        {
            b.push(line);
        }
    }
    out
}

/// Checks strata's text and JSON against nfsiostat's second report; the
/// number of figures found equal.
fn compare(nfsiostat: &str, text: &str, json: &str) -> Result<usize, String> {
    let io = blocks(nfsiostat);
    if !io.len().is_multiple_of(2) {
        return Err(format!(
            "nfsiostat printed {} blocks:\n{nfsiostat}",
            io.len()
        ));
    }
    let io = &io[io.len() / 2..];
    let st = blocks(text);
    if st.len() != io.len() {
        return Err(format!(
            "{} mounts in strata, {} in nfsiostat:\n{text}\n{nfsiostat}",
            st.len(),
            io.len()
        ));
    }
    let mut figures = 0;
    for (i, s) in io.iter().zip(&st) {
        if s.len() < i.len() || s[..i.len()] != i[..] {
            return Err(format!(
                "nfsiostat\n{}\nstrata\n{}",
                i.join("\n"),
                s.join("\n")
            ));
        }
        // the figures lines: a `N (p%)` pair counts as two figures
        figures += i
            .iter()
            .skip(2)
            .step_by(2)
            .map(|l| l.split_whitespace().count())
            .sum::<usize>();
        // what strata adds: header and figures of ops nfsiostat leaves out
        for extra in s[i.len()..].chunks(2) {
            let name = extra[0].split(':').next().unwrap_or_default();
            if ["read", "write"].contains(&name) || extra.len() != 2 {
                return Err(format!("unexpected lines {extra:?}"));
            }
        }
    }
    // JSON: one object per mount, the same figures as the text
    let objects: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{e}: {l}")))
        .collect::<Result<_, _>>()?;
    if objects.len() != st.len() {
        return Err(format!(
            "{} JSON objects for {} mounts",
            objects.len(),
            st.len()
        ));
    }
    for (o, s) in objects.iter().zip(&st) {
        let want = format!(
            "{:>16.3}{:>16.3}",
            o["ops/s"].as_f64().unwrap_or(f64::NAN),
            o["rpc_bklog"].as_f64().unwrap_or(f64::NAN)
        );
        if s[2] != want {
            return Err(format!("JSON {want:?}, text {:?}", s[2]));
        }
        for (k, op) in o["ops"].as_array().into_iter().flatten().enumerate() {
            let get = |key: &str| op[key].as_f64().unwrap_or(f64::NAN);
            let line = s.get(4 + 2 * k).copied().unwrap_or_default();
            let want = format!(
                "{:>24.3}{:>16.3}{:>16.3}",
                get("ops/s"),
                get("kB/s"),
                get("kB/op")
            );
            if !line.starts_with(&want) {
                return Err(format!("JSON {want:?}, text {line:?}"));
            }
        }
    }
    Ok(figures)
}

#[test]
fn strata_batch_nfs_prints_nfsiostats_figures() {
    let Some(nfsiostat) = env_or_skip("nfsiostat parity") else {
        return;
    };
    let results: Vec<(&Pair, Result<usize, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = PAIRS
            .iter()
            .map(|&pair| {
                let nfsiostat = &nfsiostat;
                s.spawn(move || {
                    let mut last = Err(String::new());
                    for _ in 0..ATTEMPTS {
                        last = run_pair(pair, nfsiostat)
                            .and_then(|[io, text, json]| compare(&io, &text, &json));
                        if last.is_ok() {
                            break;
                        }
                    }
                    (pair, last)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| panic!("a pair's thread panicked"))
            })
            .collect()
    });
    let mut failed = Vec::new();
    for (pair, r) in results {
        match r {
            Ok(n) => eprintln!(
                "nfsiostat parity: {} ({} s): {n} figures equal",
                pair.name, pair.itv_s
            ),
            Err(e) => failed.push(format!("{}: {e}", pair.name)),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

//! `strata batch cells`: the real binary against real OpenSSH sshd
//! processes on loopback (the harness is tests/sshd/mod.rs). The cells are
//! this machine, so a dd with O_DIRECT during the run puts figures in
//! them.
//!
//! Without /usr/sbin/sshd the tests print SKIPPED, unless
//! STRATA_REQUIRE_SSHD=1 (scripts/test sets it as root).

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use crate::sshd;

use serde_json::Value;
use sshd::{Keys, Sshd, available, descendants, known_hosts, nonce};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const STRATA: &str = env!("CARGO_BIN_EXE_strata");

/// `strata batch cells` at 0.5 s over `sshds` with `identity`, in a HOME
/// of the test's own (no config, no ~/.ssh) and without ssh-agent.
fn strata(keys: &Keys, sshds: &[&Sshd], kh: &Path, identity: &Path, args: &[&str]) -> Child {
    let mut cmd = Command::new(STRATA);
    cmd.args(["batch", "cells", "--interval", "0.5"])
        .args(args)
        .arg("--known-hosts")
        .arg(kh)
        .arg("--cell-identity")
        .arg(identity);
    for s in sshds {
        cmd.arg("--cell")
            .arg(format!("{}@{}:{}", keys.user, s.ip, s.port));
    }
    cmd.env("HOME", keys.dir.path())
        .env_remove("SSH_AUTH_SOCK")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run strata")
}

/// What a run printed, line by line as it came, and how it ended.
struct Run {
    child: Child,
    lines: mpsc::Receiver<String>,
    stdout: Vec<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl Run {
    fn new(mut child: Child) -> Run {
        let out = child.stdout.take().expect("stdout");
        let mut err = child.stderr.take().expect("stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        Run {
            child,
            lines,
            stdout: Vec::new(),
            stderr,
        }
    }

    /// Reads stdout until a line satisfies `pred` (true) or `within` passes.
    fn until(&mut self, within: Duration, pred: impl Fn(&str) -> bool) -> bool {
        let end = Instant::now() + within;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let hit = pred(&l);
                    self.stdout.push(l);
                    if hit {
                        return true;
                    }
                }
                Err(_) => return false,
            }
        }
    }

    /// Waits (at most `within`) for the exit; kills and fails on timeout.
    fn finish(mut self, within: Duration) -> (ExitStatus, String, String, Duration) {
        let t = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                break s;
            }
            if t.elapsed() > within {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("strata still running after {within:?}: {:?}", self.stdout);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let took = t.elapsed();
        let _ = self.until(Duration::from_secs(2), |_| false);
        let err = self.stderr.join().unwrap_or_default();
        (status, self.stdout.join("\n"), err, took)
    }
}

/// The sampler processes running under `sshd`'s sessions: those whose
/// command line holds the marker (a zombie's is empty: it has exited).
fn samplers(sshd: &Sshd) -> Vec<u32> {
    let Some(pid) = sshd.pid() else {
        return Vec::new();
    };
    let all: Vec<u32> = descendants(pid)
        .into_iter()
        .filter(|(p, _)| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("strata-sampler"))
        })
        .map(|(p, _)| p)
        .collect();
    // A sampler's child between fork and exec still carries its command
    // line: count the samplers, not their forks.
    all.iter()
        .copied()
        .filter(|p| !parent_of(*p).is_some_and(|pp| all.contains(&pp)))
        .collect()
}

/// The parent pid from /proc/PID/stat (the field after the command name's
/// closing parenthesis and the state).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Polls until no sampler runs under any of `sshds` (at most `bound`).
fn samplers_gone(sshds: &[&Sshd], bound: Duration) -> Result<Duration, Vec<u32>> {
    let t = Instant::now();
    loop {
        let left: Vec<u32> = sshds.iter().flat_map(|s| samplers(s)).collect();
        if left.is_empty() {
            return Ok(t.elapsed());
        }
        if t.elapsed() > bound {
            return Err(left);
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Writes with O_DIRECT to a file under the target dir until `stop` (at
/// most 40 rounds of 2 MB), so that the cells' disk has something to show.
fn disk_load(stop: mpsc::Receiver<()>) -> std::thread::JoinHandle<u32> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(nonce("batch_cells_dd"));
    std::thread::spawn(move || {
        let mut rounds = 0;
        while rounds < 40 && stop.try_recv() == Err(mpsc::TryRecvError::Empty) {
            let ok = Command::new("dd")
                .arg("if=/dev/zero")
                .arg(format!("of={}", file.display()))
                .args(["bs=64k", "count=32", "oflag=direct", "conv=fsync"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                break;
            }
            rounds += 1;
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = std::fs::remove_file(&file);
        rounds
    })
}

/// Keys and an sshd on each of `ips`; None when the test is skipped.
fn cells(test: &str, ips: &[&str]) -> Option<(Keys, Vec<Sshd>)> {
    if !available(test) {
        return None;
    }
    let keys = Keys::new();
    let sshds = ips.iter().map(|ip| Sshd::start(&keys, ip, "")).collect();
    Some((keys, sshds))
}

fn logs(sshds: &[&Sshd]) -> String {
    sshds
        .iter()
        .map(|s| s.log_text())
        .collect::<Vec<_>>()
        .join("\n---\n")
}

const SUMMED: [&str; 4] = ["r_s", "w_s", "rmb_s", "wmb_s"];

#[test]
fn json_totals_are_the_sums_of_the_cells_and_no_sampler_is_left() {
    let Some((keys, all)) = cells(
        "json_totals_are_the_sums_of_the_cells_and_no_sampler_is_left",
        &["127.0.0.21", "127.0.0.22", "127.0.0.23"],
    ) else {
        return;
    };
    let refs: Vec<&Sshd> = all.iter().collect();
    let kh = known_hosts(&keys, &refs);
    let (stop, stopped) = mpsc::channel();
    let load = disk_load(stopped);
    let child = strata(
        &keys,
        &refs,
        &kh,
        &keys.client_key,
        &["--format", "json", "--count", "3"],
    );
    let mut run = Run::new(child);
    // While it reports, one sampler runs per cell: the way they are found
    // below finds them.
    let first = run.until(Duration::from_secs(20), |l| l.contains("\"cell\": \"all\""));
    let running: Vec<usize> = refs.iter().map(|s| samplers(s).len()).collect();
    let (status, out, err, _) = run.finish(Duration::from_secs(30));
    let _ = stop.send(());
    let rounds = load.join().expect("dd thread");
    assert!(first, "no report\n{out}\n{err}\n{}", logs(&refs));
    assert_eq!(running, [1, 1, 1], "samplers while running");
    assert!(status.success(), "{status}: {err}");
    let gone = samplers_gone(&refs, Duration::from_secs(3));
    println!("dd rounds {rounds}; samplers gone {gone:?} after exit");
    assert!(gone.is_ok(), "left behind: {gone:?}");

    let values: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let reports: Vec<&[Value]> = values
        .split_inclusive(|v| v["cell"] == "all")
        .filter(|r| !r.is_empty())
        .collect();
    assert_eq!(reports.len(), 3, "--count 3\n{out}");
    let mut nonzero = 0;
    let mut full = 0;
    for r in &reports {
        let (total, cells) = r.split_last().expect("lines");
        assert_eq!(total["cell"], "all");
        assert_eq!(cells.len(), 3, "{r:?}");
        let counted: Vec<&Value> = cells.iter().filter(|c| c["counted"] == true).collect();
        assert_eq!(total["cells_counted"], counted.len(), "{r:?}");
        assert_eq!(total["cells"], 3);
        if counted.len() == 3 {
            full += 1;
        }
        for group in ["disk", "flash"] {
            for key in SUMMED {
                // A group of no device (this VM has no flash) has no
                // figure in any cell, nor in the total.
                if counted.iter().all(|c| c[group][key].is_null()) {
                    assert!(total[group][key].is_null(), "{group} {key}\n{r:?}");
                    continue;
                }
                let sum: f64 = counted
                    .iter()
                    .map(|c| c[group][key].as_f64().expect("a counted cell's figure"))
                    .sum();
                let t = total[group][key].as_f64().expect("total figure");
                // each printed with 2 decimals: ±0.005 per figure
                let slack = 0.005 * (counted.len() as f64 + 1.0) + 1e-9;
                assert!(
                    (sum - t).abs() <= slack,
                    "{group} {key}: cells {sum} total {t}\n{r:?}"
                );
                if t > 0.0 {
                    nonzero += 1;
                }
            }
        }
        println!(
            "total DISK r/s {} w/s {} wMB/s {} FLASH r/s {} ({} of 3 cells)",
            total["disk"]["r_s"],
            total["disk"]["w_s"],
            total["disk"]["wmb_s"],
            total["flash"]["r_s"],
            counted.len()
        );
    }
    assert!(full >= 1, "never all 3 cells counted\n{out}");
    assert!(
        nonzero >= 1,
        "every total was 0: the sums prove nothing\n{out}"
    );
}

#[test]
fn an_unknown_host_key_is_refused_with_its_fingerprint_and_the_others_report() {
    let Some((keys, all)) = cells(
        "an_unknown_host_key_is_refused_with_its_fingerprint_and_the_others_report",
        &["127.0.0.24", "127.0.0.25", "127.0.0.26"],
    ) else {
        return;
    };
    let refs: Vec<&Sshd> = all.iter().collect();
    // the third cell is not in known_hosts
    let kh = known_hosts(&keys, &refs[..2]);
    let child = strata(&keys, &refs, &kh, &keys.client_key, &["--count", "3"]);
    let (status, out, err, _) = Run::new(child).finish(Duration::from_secs(30));
    assert!(status.success(), "{status}: {err}");
    println!("{out}");
    let fp = Keys::fingerprint(&keys.host_key);
    let label = |s: &Sshd| format!("{}:{}", s.ip, s.port);
    let last: Vec<&str> = out.lines().rev().take(4).collect();
    let row = |s: &Sshd| {
        *last
            .iter()
            .find(|l| l.starts_with(&label(s)))
            .unwrap_or_else(|| panic!("no row for {}\n{out}", label(s)))
    };
    let refused = row(refs[2]);
    assert!(refused.contains("host key refused"), "{refused}");
    assert!(refused.contains(&fp), "fingerprint {fp} not in {refused}");
    for s in &refs[..2] {
        let r = row(s);
        assert!(r.contains(" live "), "{r}\n{}", logs(&refs));
        // figures, not unknowns: the r/s of DISK is a number
        let fields: Vec<&str> = r.split_whitespace().collect();
        assert!(fields[3].parse::<f64>().is_ok(), "{r}");
    }
    assert!(
        last.iter().any(|l| l.starts_with("all (2 of 3 cells)")),
        "{out}"
    );
    assert_eq!(out.matches("all (").count(), 3, "--count 3\n{out}");
}

#[test]
fn an_encrypted_identity_fails_auth_in_batch_and_still_reports() {
    let Some((keys, all)) = cells(
        "an_encrypted_identity_fails_auth_in_batch_and_still_reports",
        &["127.0.0.27"],
    ) else {
        return;
    };
    let refs: Vec<&Sshd> = all.iter().collect();
    let kh = known_hosts(&keys, &refs);
    let child = strata(&keys, &refs, &kh, &keys.encrypted_key, &["--count", "2"]);
    let (status, out, err, _) = Run::new(child).finish(Duration::from_secs(30));
    println!("{out}");
    // A refused cell is a state to report, not a failure of the run.
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(out.matches("all (0 of 1 cells)").count(), 2, "{out}");
    // the head counts its cells as words are counted: it said "1 cells"
    let head = out.lines().next().unwrap_or_default();
    assert!(head.ends_with(" \t1 cell, every 0.5 s"), "{head:?}");
    let row = out
        .lines()
        .find(|l| l.starts_with("127.0.0.27:"))
        .expect("the cell's row");
    assert!(row.contains("auth failed"), "{row}");
    assert!(
        row.contains("is encrypted") && row.contains("ssh-add"),
        "{row}"
    );
    assert!(row.contains(&keys.encrypted_key.display().to_string()));
    // every figure unknown, none made up
    assert!(!row.contains("0.00"), "{row}");
}

#[test]
fn sigint_stops_cleanly_and_leaves_no_sampler() {
    let Some((keys, all)) = cells(
        "sigint_stops_cleanly_and_leaves_no_sampler",
        &["127.0.0.28", "127.0.0.29"],
    ) else {
        return;
    };
    let refs: Vec<&Sshd> = all.iter().collect();
    let kh = known_hosts(&keys, &refs);
    let child = strata(&keys, &refs, &kh, &keys.client_key, &["--format", "csv"]);
    let mut run = Run::new(child);
    let reported = run.until(Duration::from_secs(20), |l| l.contains(",all,"));
    let running: usize = refs.iter().map(|s| samplers(s).len()).sum();
    let _ = Command::new("kill")
        .args(["-INT", &run.child.id().to_string()])
        .status();
    let (status, out, err, took) = run.finish(Duration::from_secs(5));
    assert!(reported, "{out}\n{err}");
    assert_eq!(running, 2, "one sampler per cell while running");
    assert_eq!(status.code(), Some(0), "{status}: {err}");
    let gone = samplers_gone(&refs, Duration::from_secs(3));
    println!("exited {took:?} after SIGINT, samplers gone {gone:?} after that");
    assert!(gone.is_ok(), "left behind: {gone:?}");
    assert!(out.starts_with("timestamp,cell,state,"), "{out}");
}

#[test]
fn no_cells_is_an_error_naming_the_ways_to_give_them() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(STRATA)
        .args(["batch", "cells", "--count", "1"])
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .expect("run strata");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for way in ["--cell ", "--cell-group", "[[cell]]"] {
        assert!(err.contains(way), "{way} not in {err}");
    }
    assert!(out.stdout.is_empty());
}

#[test]
fn a_wrong_user_or_key_shows_auth_failed_in_that_cells_row() {
    let Some((keys, all)) = cells(
        "a_wrong_user_or_key_shows_auth_failed_in_that_cells_row",
        &["127.0.0.28"],
    ) else {
        return;
    };
    let refs: Vec<&Sshd> = all.iter().collect();
    let kh = known_hosts(&keys, &refs);
    let s = &all[0];
    // The same sshd twice: as the right user, and as one it does not know.
    let wrong_user = format!("nosuchuser@{}:{}", s.ip, s.port);
    let child = strata(
        &keys,
        &refs,
        &kh,
        &keys.client_key,
        &["--count", "2", "--cell", &wrong_user],
    );
    let (status, out, err, _) = Run::new(child).finish(Duration::from_secs(30));
    println!("{out}");
    assert_eq!(status.code(), Some(0), "{err}");
    let rows: Vec<&str> = out.lines().collect();
    let right = format!("{}@{}:{}", keys.user, s.ip, s.port);
    let right_label = format!("{}:{}", s.ip, s.port);
    let bad = rows
        .iter()
        .rev()
        .find(|l| l.starts_with("nosuchuser@") || l.contains("nosuchuser"))
        .expect("the wrong user's row");
    assert!(bad.contains("auth failed"), "{bad}\n{}", logs(&refs));
    assert!(
        rows.iter()
            .any(|l| l.starts_with(&right_label) && !l.contains("auth failed")),
        "the right user's row ({right}) is live:\n{out}"
    );
    assert_eq!(out.matches("all (1 of 2 cells)").count(), 2, "{out}");

    // A key the cell does not list.
    let child = strata(&keys, &refs, &kh, &keys.stranger_key, &["--count", "1"]);
    let (status, out, err, _) = Run::new(child).finish(Duration::from_secs(30));
    println!("{out}");
    assert_eq!(status.code(), Some(0), "{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with(&right_label))
        .expect("the cell's row");
    assert!(row.contains("auth failed"), "{row}");
    assert!(!row.contains("0.00"), "{row}");
}

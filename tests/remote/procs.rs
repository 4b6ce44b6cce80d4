//! `strata batch procs` on this machine, live: who does the I/O.
//!
//! - Two dd writers and one dd reader, started under names that mimic
//!   Oracle's (`exec -a ora_dbw0_SID`, `ora_lgwr_SID`, `oracleSID
//!   (LOCAL=NO)`): the role rows DBWR, LGWR and session of the instance
//!   add up, over the run's records (figure × interval_s × 1024), to the
//!   bytes each dd says it copied, within 5 % (within rounding, in fact).
//!   Locally, and with this machine as a node over a loopback sshd
//!   without ForceCommand (its sampler reads this machine).
//! - Processes run as another user, which a non-root strata may not read,
//!   are counted by user and explained, and the host's sum is unknown
//!   rather than a partial sum.
//!
//! The comparison is exact because no dd ends while strata could still
//! owe it bytes: a process's I/O after the last reading before it exits
//! is never seen (as with pidstat), so each dd is kept alive, its I/O
//! done, for HOLD seconds (several readings). Each dd moves a MiB per
//! 0.1 s at most, so its bytes span several intervals. A writer reads its bytes
//! from a pipe whose producer sleeps after writing them: dd has written
//! them all and waits on the empty pipe. The reader writes into a pipe
//! whose consumer takes all but the last MiB, then sleeps: dd has read
//! the whole file and waits to write its last block. All of it O_DIRECT
//! (a file under the target directory, on a disk: a tmpfs refuses
//! O_DIRECT), so that read_bytes and write_bytes are the dd's own (on
//! this kernel, 6.18 on ext4, read_bytes of /proc/PID/io counts
//! `dd iflag=direct`'s reads, as write_bytes `oflag=direct`'s writes).
//! The instance is named after this test process, `PROD<pid>`, so that
//! another run's dd named as Oracle's (tests/e2e/procs.rs uses PROD1) on
//! the same machine adds nothing to these sums.
//!
//! Without dd, bash, timeout or O_DIRECT under the target directory they
//! print SKIPPED, unless STRATA_REQUIRE_E2E=1; the node's without sshd,
//! unless STRATA_REQUIRE_SSHD=1. The unreadable test needs root (to start
//! processes as two other users, with setpriv), else SKIPPED unless
//! STRATA_REQUIRE_E2E=1.

use crate::nodes::{Run, assert_no_sampler_left, keys_or_skip, label, node_lines, serial, strata};
use crate::peer_tools::{find_in_path, or_skip, run_bounded, sh_quote};
use crate::sshd::{Sshd, known_hosts, nonce};

use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const STRATA: &str = env!("CARGO_BIN_EXE_strata");
const MIB: u64 = 1 << 20;
/// Seconds each dd stays alive once its I/O is done.
const HOLD: u32 = 4;
/// Seconds between MiBs: about 10 MiB/s, a dd's I/O over seconds.
const PACE: &str = "0.1";
/// Seconds after which `timeout` kills any child these tests start.
const LIMIT: u32 = 90;

/// A bash script in a process group of its own, under `timeout`, with its
/// stderr in a file; the group is killed on Drop, pass or fail.
struct Load {
    name: String,
    child: Child,
    err: PathBuf,
}

impl Load {
    fn start(name: &str, script: &str, err: PathBuf) -> Load {
        let file = std::fs::File::create(&err).expect("stderr file");
        let child = Command::new("timeout")
            .args(["-s", "KILL", &LIMIT.to_string(), "bash", "-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .process_group(0)
            .spawn()
            .expect("timeout and bash run");
        Load {
            name: name.to_string(),
            child,
            err,
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err).unwrap_or_default()
    }

    /// Waits for the exit (until `end`); fails unless it succeeded.
    fn wait(&mut self, end: Instant) {
        loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                assert!(s.success(), "{}: {s}\n{}", self.name, self.stderr());
                return;
            }
            assert!(
                Instant::now() < end,
                "{} still running\n{}",
                self.name,
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The bytes dd says it copied: "N bytes (…) copied, …".
    fn copied(&self) -> u64 {
        let text = self.stderr();
        text.lines()
            .filter(|l| l.contains(" copied"))
            .find_map(|l| l.split_once(" bytes")?.0.trim().parse().ok())
            .unwrap_or_else(|| panic!("{}: no byte count from dd:\n{text}", self.name))
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        // the group this test started, by its id
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

/// A directory under the target directory where dd can read and write
/// O_DIRECT, holding the reader's file of `size` bytes (written O_DIRECT,
/// so not in the page cache); removed on Drop.
struct Direct {
    dir: PathBuf,
    data: PathBuf,
}

impl Direct {
    fn new(size: u64) -> Result<Direct, String> {
        for tool in ["dd", "bash", "timeout", "head"] {
            find_in_path(tool).ok_or(format!("{tool} is not installed"))?;
        }
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(nonce("procs-live-"));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let d = Direct {
            data: dir.join("datafile"),
            dir,
        };
        let run = |args: &str| {
            Command::new("dd")
                .args(args.split(' '))
                .stdin(Stdio::null())
                .output()
                .map_err(|e| e.to_string())
                .and_then(|o| {
                    if o.status.success() {
                        Ok(())
                    } else {
                        Err(String::from_utf8_lossy(&o.stderr).trim().to_string())
                    }
                })
        };
        let (data, size) = (d.data.display(), size / MIB);
        let write = format!("if=/dev/zero of={data} bs=1M count={size} oflag=direct");
        run(&write).map_err(|e| format!("O_DIRECT writes refused in {}: {e}", d.dir.display()))?;
        run(&format!("if={data} of=/dev/null bs=1M iflag=direct"))
            .map_err(|e| format!("O_DIRECT reads refused in {}: {e}", d.dir.display()))?;
        Ok(d)
    }

    fn path(&self, name: &str) -> String {
        sh_quote(&self.dir.join(name).display().to_string())
    }
}

impl Drop for Direct {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `size` bytes a MiB at a time, a MiB every PACE seconds at most, so
/// that a dd's I/O spans several intervals.
fn paced(size: u64, mib: &str) -> String {
    format!(
        "i=0; while [ $i -lt {} ]; do {mib}; sleep {PACE}; i=$((i+1)); done",
        size / MIB
    )
}

/// A dd named `name` that writes `size` bytes O_DIRECT to `file` (paced),
/// then waits HOLD seconds on its empty pipe before it exits.
fn writer(name: &str, file: &str, size: u64) -> String {
    format!(
        "{{ {}; sleep {HOLD}; }} | (exec -a {} dd of={file} bs=1M iflag=fullblock oflag=direct)",
        paced(size, &format!("head -c {MIB} /dev/zero")),
        sh_quote(name)
    )
}

/// A dd named `name` that reads `file` (`size` bytes) O_DIRECT whole (as
/// fast as its pipe is emptied, paced), then waits HOLD seconds to write
/// its last MiB into the pipe.
fn reader(name: &str, file: &str, size: u64) -> String {
    format!(
        "(exec -a {} dd if={file} bs=1M iflag=direct) | {{ {}; sleep {HOLD}; cat >/dev/null; }}",
        sh_quote(name),
        paced(size - MIB, &format!("head -c {MIB} >/dev/null"))
    )
}

/// What one role did: the bytes its dd copied, and strata's sum.
struct Bytes {
    role: &'static str,
    key: &'static str,
    dd: u64,
    strata: f64,
}

impl Bytes {
    fn ratio(&self) -> f64 {
        self.strata / self.dd as f64
    }
}

const DBWR_SIZE: u64 = 48 * MIB;
const LGWR_SIZE: u64 = 16 * MIB;
const READ_SIZE: u64 = 32 * MIB;

/// Runs the three dd's under `run` once its first record (a line that
/// starts with `prefix`) is out, waits until they have exited and two
/// more records are out, ends strata, and sums each role's bytes over
/// its records.
fn measure(run: &mut Run, prefix: &str, d: &Direct, sid: &str) -> Vec<Bytes> {
    let record = |l: &crate::nodes::Line| !l.err && l.text.starts_with(prefix);
    if run.until(Duration::from_secs(60), record).is_none() {
        panic!("no first record within 60 s:\n{}", run.text(true));
    }
    // well after the reading: each dd starts after it, counted from zero
    std::thread::sleep(Duration::from_millis(300));
    let (dbwr, lgwr, session) = (
        format!("ora_dbw0_{sid}"),
        format!("ora_lgwr_{sid}"),
        format!("oracle{sid} (LOCAL=NO)"),
    );
    let mut loads = [
        Load::start(
            &dbwr,
            &writer(&dbwr, &d.path("dbf_written"), DBWR_SIZE),
            d.dir.join("dbwr.err"),
        ),
        Load::start(
            &lgwr,
            &writer(&lgwr, &d.path("redo"), LGWR_SIZE),
            d.dir.join("lgwr.err"),
        ),
        Load::start(
            &session,
            &reader(&session, &d.path("datafile"), READ_SIZE),
            d.dir.join("session.err"),
        ),
    ];
    let end = Instant::now() + Duration::from_secs(60);
    for l in &mut loads {
        l.wait(end);
    }
    for _ in 0..2 {
        if run.until(Duration::from_secs(15), record).is_none() {
            panic!("no record after the dd's:\n{}", run.text(true));
        }
    }
    run.interrupt();
    let (status, _) = run.finish(Duration::from_secs(30));
    println!("strata after SIGINT: {status}");

    let mut out = vec![
        Bytes {
            role: "DBWR",
            key: "kB_wr/s",
            dd: loads[0].copied(),
            strata: 0.0,
        },
        Bytes {
            role: "LGWR",
            key: "kB_wr/s",
            dd: loads[1].copied(),
            strata: 0.0,
        },
        Bytes {
            role: "session",
            key: "kB_rd/s",
            dd: loads[2].copied(),
            strata: 0.0,
        },
    ];
    let lines: Vec<&str> = run
        .stdout()
        .into_iter()
        .filter(|l| l.starts_with(prefix))
        .collect();
    let mut named = std::collections::BTreeSet::new();
    for l in &lines {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        let itv = v["interval_s"].as_f64().expect("interval_s");
        let mut moved = Vec::new();
        for r in v["roles"].as_array().expect("roles") {
            if r["instance"].as_str() != Some(sid) {
                continue;
            }
            let role = r["role"].as_str().expect("role");
            named.insert(role.to_string());
            assert_eq!(r["unreadable"], 0, "{role}: {l}");
            if let Some(b) = out.iter_mut().find(|b| b.role == role) {
                let f = r[b.key]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{role} {}: {l}", b.key));
                b.strata += f * itv * 1024.0;
                moved.push(format!("{role} {f:.2} {}", b.key));
            }
        }
        println!("  interval_s {itv:.2}: {}", moved.join(", "));
    }
    let want: std::collections::BTreeSet<String> =
        ["DBWR", "LGWR", "session"].map(String::from).into();
    assert_eq!(named, want, "the roles of instance {sid}");
    out
}

fn check(what: &str, sums: &[Bytes]) {
    for b in sums {
        println!(
            "{what}: {} {}: dd copied {} bytes, strata's sum {:.0} bytes, ratio {:.5}",
            b.role,
            b.key,
            b.dd,
            b.strata,
            b.ratio()
        );
    }
    for b in sums {
        assert!(
            (0.95..=1.05).contains(&b.ratio()),
            "{what}: {}: dd {} bytes, strata {:.0}",
            b.role,
            b.dd,
            b.strata
        );
    }
    assert_eq!(
        sums.iter().map(|b| b.dd).collect::<Vec<_>>(),
        [DBWR_SIZE, LGWR_SIZE, READ_SIZE],
        "what each dd copied"
    );
}

fn sid() -> String {
    format!("PROD{}", std::process::id())
}

#[test]
fn oracle_named_dds_bytes_are_their_roles_sums_locally() {
    let test = "oracle_named_dds_bytes_are_their_roles_sums_locally";
    let Some(d) = or_skip(test, "STRATA_REQUIRE_E2E", Direct::new(READ_SIZE)) else {
        return;
    };
    let _serial = serial();
    let home = tempfile::tempdir().unwrap();
    let child = Command::new(STRATA)
        .args(["batch", "procs", "--interval", "1", "--count", "60"])
        .args(["--format", "json"])
        .env("HOME", home.path())
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run strata");
    let mut run = Run::new(child);
    let sums = measure(&mut run, "{\"timestamp\": ", &d, &sid());
    check("local", &sums);
}

#[test]
fn oracle_named_dds_bytes_are_their_roles_sums_on_a_node() {
    let test = "oracle_named_dds_bytes_are_their_roles_sums_on_a_node";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let Some(d) = or_skip(test, "STRATA_REQUIRE_E2E", Direct::new(READ_SIZE)) else {
        return;
    };
    let _serial = serial();
    // No ForceCommand: the sampler reads this machine.
    let node = Sshd::start(&keys, "127.0.0.131", "");
    let kh = known_hosts(&keys, &[&node]);
    let tag = nonce("procs");
    let args = [
        "procs",
        "--interval",
        "1",
        "--count",
        "60",
        "--format",
        "json",
    ];
    let mut run = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
    let prefix = format!("{{\"node\": \"{}\", ", label(&node));
    let sums = measure(&mut run, &prefix, &d, &sid());
    assert!(!node_lines(&run.stdout(), &label(&node)).is_empty());
    let gone = assert_no_sampler_left(&tag, "SIGINT");
    println!("samplers gone {gone:?}");
    check("node", &sums);
}

/// The name of `uid` in /etc/passwd, else the number.
fn user_name(uid: u32) -> String {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() > 2 && f[2] == uid.to_string()).then(|| f[0].to_string())
        })
        .unwrap_or_else(|| uid.to_string())
}

/// Waits (at most 5 s) until a child of `load`'s timeout (bash, which
/// exec'd setpriv, which exec'd sleep) runs as `uid`.
fn wait_for_uid(load: &Load, uid: u32) {
    let t = Instant::now();
    let uid_of = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| strata::layers::procs::source::parse_status_uid(&s))
    };
    loop {
        // timeout's child: bash, which exec'd setpriv, which exec'd sleep
        let kids = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", load.child.id()))
            .unwrap_or_default();
        let up = kids
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .any(|p| uid_of(p) == Some(uid));
        if up {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the sleep as UID {uid}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One JSON record of a strata that may read neither root's processes
/// nor `other`'s.
fn check_unreadable(v: &Value, other: &str) {
    let (processes, readable) = (
        v["processes"].as_u64().unwrap(),
        v["readable"].as_u64().unwrap(),
    );
    let unreadable = v["unreadable"].as_array().unwrap();
    println!("processes {processes}, readable {readable}, unreadable:");
    for u in unreadable {
        println!("  {u}");
    }
    assert!(readable >= 1 && readable < processes, "{v}");
    let of = |user: &str| unreadable.iter().find(|u| u["user"] == user);
    let theirs = of(other).unwrap_or_else(|| panic!("no {other} in {v}"));
    let n = theirs["count"].as_u64().unwrap();
    assert!(n >= 1, "{theirs}");
    let processes_n = if n == 1 { "process" } else { "processes" };
    assert_eq!(
        theirs["why"],
        format!("{n} {processes_n} of user {other} unreadable: run as root or as {other}")
    );
    let root = of("root").unwrap_or_else(|| panic!("no root in {v}"));
    let n = root["count"].as_u64().unwrap();
    let processes_n = if n == 1 { "process" } else { "processes" };
    assert_eq!(
        root["why"],
        format!("{n} {processes_n} of user root unreadable: run as root")
    );
    let counted: u64 = unreadable
        .iter()
        .map(|u| u["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, processes - readable, "{v}");
    // never a partial sum shown as the host's
    for key in [
        "kB_rd/s",
        "kB_wr/s",
        "kB_ccwr/s",
        "kB_rchar/s",
        "kB_wchar/s",
        "syscr/s",
        "syscw/s",
    ] {
        assert_eq!(v["all"][key], Value::Null, "all {key}: {v}");
    }
    // nor as a role's: the other user's sleep's role
    let roles = v["roles"].as_array().unwrap();
    let sleep = roles
        .iter()
        .find(|r| r["role"] == "sleep" && r["unreadable"].as_u64() >= Some(1))
        .unwrap_or_else(|| panic!("no unreadable sleep role: {v}"));
    assert_eq!(sleep["kB_rd/s"], Value::Null, "{sleep}");
}

/// As root: a sleep as UID 65534 (nobody), and strata as UID 65533, which
/// may read neither it nor root's processes.
#[test]
fn another_users_processes_are_counted_and_explained_to_a_non_root_strata() {
    let test = "another_users_processes_are_counted_and_explained_to_a_non_root_strata";
    let env = if strata::core::sys::euid() != 0 {
        Err("not root: starting processes as two other users needs root".to_string())
    } else if find_in_path("setpriv").is_none() {
        Err("setpriv is missing (util-linux)".to_string())
    } else if find_in_path("timeout").is_none() {
        Err("timeout is missing (coreutils)".to_string())
    } else {
        Ok(())
    };
    if or_skip(test, "STRATA_REQUIRE_E2E", env).is_none() {
        return;
    }
    let (theirs, mine) = (65534u32, 65533u32);
    let other = user_name(theirs);
    let sleeper = Load::start(
        "sleep as another user",
        &format!("exec setpriv --reuid={theirs} --regid={theirs} --clear-groups sleep {LIMIT}"),
        std::env::temp_dir().join(nonce("sleeper-err-")),
    );
    wait_for_uid(&sleeper, theirs);
    let home = tempfile::tempdir().unwrap();
    std::os::unix::fs::chown(home.path(), Some(mine), Some(mine)).unwrap();
    let config = home.path().join("config");
    let strata_as = |format: &str| {
        let mut cmd = Command::new("setpriv");
        cmd.args([
            &format!("--reuid={mine}"),
            &format!("--regid={mine}"),
            "--clear-groups",
            STRATA,
            "batch",
            "procs",
            "--format",
            format,
            "--count",
            "2",
            "--interval",
            "1",
        ])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", &config);
        let (code, out, err) = run_bounded(&mut cmd, Duration::from_secs(30)).unwrap();
        assert_eq!(code, 0, "strata as UID {mine} ({format}):\n{out}\n{err}");
        (out, err)
    };

    let (out, err) = strata_as("json");
    println!("json stderr: {err}");
    let records: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(!records.is_empty(), "{out}\n{err}");
    for v in &records {
        check_unreadable(v, &other);
    }

    let (out, err) = strata_as("text");
    println!("text:\n{out}{err}");
    let said = |tail: &str| {
        out.lines()
            .any(|l| l.ends_with(tail) && l.contains(" unreadable"))
    };
    assert!(
        said(&format!(
            " of user {other} unreadable: run as root or as {other}"
        )),
        "{out}"
    );
    assert!(said(" of user root unreadable: run as root"), "{out}");
    drop(sleeper);
}

//! What the user names and strata cannot have is an error, said plainly,
//! with a non-zero exit, before anything runs; a file that is no file
//! (a device, a FIFO) is refused at once instead of read without end.
//!
//! Each test reproduces a defect seen before the fix (issue 27): a bad
//! `--node` or group file reported this host's disks with exit 0, a
//! missing `--config` went on with defaults, `--config` a FIFO hung and
//! `/dev/zero` grew to gigabytes, `record --force` replaced any file, and
//! without a terminal strata said only "No such device or address".

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn strata() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_strata"));
    // No user config of the machine's leaks into a test.
    c.env("XDG_CONFIG_HOME", "/nonexistent-strata-test");
    c.stdin(Stdio::null());
    c
}

/// The run's output, or a failure when it takes longer than `limit` (the
/// child is killed: a blocked read is the defect).
fn within(mut c: Command, limit: Duration) -> Output {
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn batch_disks(args: &[&str]) -> Output {
    let mut c = strata();
    c.args(args)
        .args(["batch", "disks", "--count", "1", "--interval", "0.2"]);
    within(c, Duration::from_secs(20))
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

#[test]
fn bad_node_input_is_an_error_not_this_hosts_disks() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "# no node yet\n").unwrap();
    let junk = dir.path().join("junk.txt");
    std::fs::write(&junk, "db 01\n\u{1b}[2Jdb02\n").unwrap();
    let missing = dir.path().join("missing.txt");
    let fifo = dir.path().join("fifo.txt");
    mkfifo(&fifo);
    let cases: [(&[&str], &str); 6] = [
        (&["--node", "db01:abc"], "port \"abc\""),
        (&["--node", ""], "no host"),
        (&["--node-group", &empty.to_string_lossy()], "names no node"),
        (&["--node-group", &junk.to_string_lossy()], "line 2:"),
        (
            &["--node-group", &missing.to_string_lossy()],
            "No such file",
        ),
        (&["--node-group", &fifo.to_string_lossy()], "is a FIFO"),
    ];
    for (args, why) in cases {
        let out = batch_disks(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        assert!(!err.contains('\u{1b}'), "{args:?}: {err:?}");
        assert!(out.stdout.is_empty(), "{args:?}: this host's report");
    }
}

#[test]
fn record_with_a_bad_node_does_not_start() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.strec");
    let mut c = strata();
    c.args(["--node", "db01:abc", "record", "--duration", "1"])
        .arg(&file);
    let out = within(c, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!file.exists());
}

#[test]
fn a_config_named_that_cannot_be_read_is_an_error_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("config.toml");
    mkfifo(&fifo);
    let missing = dir.path().join("missing.toml");
    for (path, why) in [
        (missing.as_path(), "No such file"),
        (fifo.as_path(), "is a FIFO"),
        (Path::new("/dev/zero"), "is a device"),
    ] {
        let out = batch_disks(&["--config", &path.to_string_lossy()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", path.display());
        assert!(err.contains(why), "{}: {err}", path.display());
    }
}

#[test]
fn a_theme_fifo_does_not_hold_a_recording() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("theme.toml");
    mkfifo(&fifo);
    let file = dir.path().join("r.strec");
    let mut c = strata();
    c.arg("--theme")
        .arg(&fifo)
        .args(["record", "--interval", "0.25", "--duration", "1"])
        .arg(&file);
    let out = within(c, Duration::from_secs(20));
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn force_replaces_a_recording_only() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.txt");
    std::fs::write(&plain, "hello\n").unwrap();
    let mut c = strata();
    c.args(["record", "--interval", "0.25", "--duration", "1", "--force"])
        .arg(&plain);
    let out = within(c, Duration::from_secs(20));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not a strata recording"), "{err}");
    assert_eq!(std::fs::read_to_string(&plain).unwrap(), "hello\n");
}

#[test]
fn without_a_terminal_strata_says_so_and_what_runs_without_one() {
    let dir = tempfile::tempdir().unwrap();
    // setsid: a session of its own has no controlling terminal, whatever
    // the test runner has.
    let mut c = Command::new("setsid");
    c.arg("--wait")
        .arg(env!("CARGO_BIN_EXE_strata"))
        .arg("--root")
        .arg(dir.path())
        .env("XDG_CONFIG_HOME", "/nonexistent-strata-test")
        .stdin(Stdio::null());
    let out = within(c, Duration::from_secs(20));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(
        err.contains("strata batch") && err.contains("strata record"),
        "{err}"
    );
}

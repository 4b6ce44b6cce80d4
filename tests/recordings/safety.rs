//! A recording is evidence: strata never overwrites one unless told to,
//! never lets two writers share one, ends with a non-zero status and says
//! what was saved when it cannot write, keeps its files private, and takes
//! markers only through a directory nobody else can enter.
//!
//! Each test reproduces a defect seen before the fix: a second `strata
//! record` on the same path turned a 399-row file into 2 rows, two
//! recorders corrupted each other while both exited 0, a full disk and a
//! deleted file exited 0, files were created 0644, and a marker directory
//! of another user's with mode 0777 was used as it was.

#![allow(unsafe_code, clippy::unwrap_used, clippy::undocumented_unsafe_blocks)]

use crate::peer_tools;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use peer_tools::{can_bind_in_namespace, or_skip, run_bounded, sh_quote};
use strata::recording::session::Player;

fn strata() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_strata"));
    // No user config of the machine's leaks into a test.
    c.env("XDG_CONFIG_HOME", "/nonexistent-strata-test");
    c
}

/// Waits (bounded) until `f` holds.
fn wait_for(what: &str, limit: Duration, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Inputs of a recording, read to its end (bounded).
fn inputs(path: &Path) -> usize {
    let mut p = Player::open(path).unwrap();
    let mut n = 0;
    while p.next_input().is_some() {
        n += 1;
        assert!(n < 1_000_000, "bounded");
    }
    n
}

/// Inputs of a recording that was closed and has no damage (bounded).
fn whole_inputs(path: &Path) -> usize {
    let p = Player::open(path).unwrap();
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    inputs(path)
}

/// A headless recorder at 0.25 s, its marker socket in `dir/marks`.
fn recorder(dir: &Path, file: &Path, extra: &[&str]) -> Child {
    strata()
        .args(["record", "--interval", "0.25"])
        .args(extra)
        .arg(file)
        .env("STRATA_MARK_DIR", dir.join("marks"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn record_for(dir: &Path, file: &Path, secs: &str, extra: &[&str]) -> std::process::Output {
    strata()
        .args(["record", "--interval", "0.25", "--duration", secs])
        .args(extra)
        .arg(file)
        .env("STRATA_MARK_DIR", dir.join("marks"))
        .output()
        .unwrap()
}

fn stop(mut child: Child) -> std::process::Output {
    // SAFETY: signals only the child spawned by this test.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn an_existing_recording_is_refused_and_force_replaces_only_a_finished_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bench.strec");
    let out = record_for(dir.path(), &file, "2", &[]);
    assert!(out.status.success(), "{out:?}");
    let before = std::fs::read(&file).unwrap();
    let rows = inputs(&file);
    assert!(rows > 4, "{rows} inputs in 2 s at 0.25 s");

    // Before the fix this truncated the file and wrote 2 rows into it.
    let out = record_for(dir.path(), &file, "1", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("exists") && err.contains("--force"), "{err}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "the file is untouched"
    );

    let out = record_for(dir.path(), &file, "1", &["--force"]);
    assert!(out.status.success(), "{out:?}");
    assert_ne!(std::fs::read(&file).unwrap(), before, "--force replaced it");
    assert!(inputs(&file) > 0);
}

#[test]
fn a_recording_in_progress_is_refused_to_a_second_writer_with_its_pid() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("live.strec");
    let first = recorder(dir.path(), &file, &[]);
    let pid = first.id();
    wait_for("the first recorder's file", Duration::from_secs(10), || {
        file.exists()
    });
    for extra in [&[][..], &["--force"][..]] {
        let out = record_for(dir.path(), &file, "1", extra);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(
            err.contains(&format!("strata pid {pid}")) && err.contains("in progress"),
            "{extra:?}: {err}"
        );
    }
    std::thread::sleep(Duration::from_millis(1000));
    let out = stop(first);
    assert!(out.status.success(), "{out:?}");
    // The first writer's file is whole: closed, every interval there.
    let n = whole_inputs(&file);
    assert!(n > 4, "{n} inputs");
}

#[test]
fn recordings_journals_and_rotated_parts_are_private_whatever_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.strec");
    // The umask of the test process is inherited; a permissive one shows
    // that strata does not rely on it.
    // SAFETY: umask has no preconditions; tests in this file do not depend
    // on the process umask otherwise.
    let old = unsafe { libc::umask(0o000) };
    let child = recorder(dir.path(), &file, &["--rotate-size", "16k"]);
    unsafe { libc::umask(old) };
    let journal = dir.path().join("p.strec.journal");
    wait_for("the journal", Duration::from_secs(10), || journal.exists());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&journal), 0o600, "journal");
    wait_for("a rotated part", Duration::from_secs(10), || {
        dir.path().join("p.strec.1").exists()
    });
    let out = stop(child);
    assert!(out.status.success(), "{out:?}");
    let parts: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("p.strec"))
        .collect();
    assert!(parts.len() >= 2, "{parts:?}");
    for p in &parts {
        assert_eq!(mode(p), 0o600, "{}", p.display());
    }
    // --force narrows the mode of a file it replaces.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = record_for(dir.path(), &file, "1", &["--force"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(mode(&file), 0o600);
}

#[test]
fn a_symbolic_link_is_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("precious");
    std::fs::write(&target, "keep me").unwrap();
    let link = dir.path().join("l.strec");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = record_for(dir.path(), &link, "1", &["--force"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
}

#[test]
fn a_time_pattern_names_each_run_its_own_file() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = dir.path().join("bench-%Y%m%d-%H%M%S.strec");
    let out = record_for(dir.path(), &pattern, "1", &[]);
    assert!(out.status.success(), "{out:?}");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("bench-"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let n = &names[0];
    // bench-20261125-153012.strec
    assert_eq!(n.len(), "bench-20261125-153012.strec".len(), "{n}");
    assert!(n[6..14].chars().all(|c| c.is_ascii_digit()), "{n}");
    assert!(n[15..21].chars().all(|c| c.is_ascii_digit()), "{n}");
    assert!(!n.contains('%'));
}

#[test]
fn a_deleted_recording_ends_the_run_with_a_non_zero_status() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gone.strec");
    let child = recorder(dir.path(), &file, &[]);
    wait_for("the recording", Duration::from_secs(10), || file.exists());
    std::thread::sleep(Duration::from_millis(600));
    std::fs::remove_file(&file).unwrap();
    let removed = Instant::now();
    let mut child = child;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if removed.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("strata record went on for 10 s into a deleted file");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = removed.elapsed();
    let err = child.wait_with_output().unwrap().stderr;
    let err = String::from_utf8_lossy(&err);
    println!("exit {status} {took:?} after the delete: {err}");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("was deleted while being recorded"), "{err}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(err.matches("was deleted").count(), 1, "said once: {err}");
    // Its journal, joined to no segment now, is not left behind.
    let left: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("gone.strec"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A recording renamed under strata (`mv`, as `tail -F` users do) goes on
/// in its new name, and the run ends as any other. Before, it stopped with
/// exit 1 ("was deleted ... nothing written since reaches a file") though
/// the file was there.
#[test]
fn a_renamed_recording_goes_on_in_its_new_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("before.strec");
    let moved = dir.path().join("after.strec");
    let child = recorder(dir.path(), &file, &[]);
    wait_for("the recording", Duration::from_secs(10), || file.exists());
    std::thread::sleep(Duration::from_millis(600));
    std::fs::rename(&file, &moved).unwrap();
    let at_rename = inputs(&moved);
    std::thread::sleep(Duration::from_millis(2000));
    let out = stop(child);
    let err = String::from_utf8_lossy(&out.stderr);
    println!("{err}");
    assert!(out.status.success(), "{out:?}");
    assert!(
        err.contains(&format!("recording saved to {}", moved.display())),
        "the last notice names where it is: {err}"
    );
    let n = whole_inputs(&moved);
    assert!(n > at_rename + 4, "{n} inputs, {at_rename} at the rename");
    for gone in [file.clone(), dir.path().join("before.strec.journal")] {
        assert!(!gone.exists(), "{}", gone.display());
    }
    assert!(!dir.path().join("after.strec.journal").exists());
}

/// A journal deleted mid-run loses nothing once the recording closes:
/// every tick is in the segment. Before, the run exited 1 on removing it.
#[test]
fn a_deleted_journal_ends_the_run_as_any_other() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("j.strec");
    let journal = dir.path().join("j.strec.journal");
    let child = recorder(dir.path(), &file, &[]);
    wait_for("the journal", Duration::from_secs(10), || journal.exists());
    std::thread::sleep(Duration::from_millis(600));
    std::fs::remove_file(&journal).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let out = stop(child);
    assert!(out.status.success(), "{out:?}");
    let n = whole_inputs(&file);
    assert!(n > 8, "{n} inputs");
}

/// A refused start leaves no file: a symbolic link for the journal left an
/// empty recording, which the next run then refused as existing.
#[test]
fn a_refused_journal_leaves_no_recording_behind() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.strec");
    let target = dir.path().join("precious");
    std::fs::write(&target, "keep me").unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("s.strec.journal")).unwrap();
    let out = record_for(dir.path(), &file, "1", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    assert!(!file.exists(), "an empty recording was left");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    std::fs::remove_file(dir.path().join("s.strec.journal")).unwrap();
    let out = record_for(dir.path(), &file, "1", &[]);
    assert!(out.status.success(), "the next run: {out:?}");
}

#[test]
fn a_full_disk_ends_the_run_with_a_non_zero_status_and_says_what_was_saved() {
    let Some(()) = or_skip(
        "a_full_disk_ends_the_run",
        "STRATA_REQUIRE_PARITY",
        can_bind_in_namespace(&[]),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small");
    let keep = dir.path().join("keep");
    std::fs::create_dir_all(&small).unwrap();
    std::fs::create_dir_all(&keep).unwrap();
    // A 256 kB tmpfs in a mount namespace of its own, 208 kB of it taken
    // (a recording of this host grows about 80 kB in its first minute);
    // what strata wrote is copied out before the namespace (and the tmpfs)
    // goes.
    let script = format!(
        "mount -t tmpfs -o size=256k tmpfs {small} || exit 90
head -c 212992 /dev/zero >{small}/filler || exit 91
{bin} record --interval 0.2 {small}/full.strec
rc=$?
cp {small}/full.strec {small}/full.strec.journal {keep}/ 2>/dev/null
exit $rc",
        small = sh_quote(&small.to_string_lossy()),
        keep = sh_quote(&keep.to_string_lossy()),
        bin = sh_quote(env!("CARGO_BIN_EXE_strata")),
    );
    let (code, _, err) = run_bounded(
        Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", &script])
            .env("STRATA_MARK_DIR", dir.path().join("marks"))
            .env("XDG_CONFIG_HOME", "/nonexistent-strata-test"),
        Duration::from_secs(120),
    )
    .unwrap();
    println!("exit {code}: {err}");
    assert_ne!(code, 90, "the tmpfs could not be mounted: {err}");
    assert_ne!(code, 91, "the tmpfs could not be filled: {err}");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains("keeps what was recorded up to"), "{err}");
    // What it says was saved replays.
    let saved = keep.join("full.strec");
    assert!(saved.exists());
    let n = inputs(&saved);
    assert!(n > 0, "{n} inputs saved");
    println!("{n} inputs replay from the full disk's file");
}

#[test]
fn markers_are_refused_through_a_directory_others_can_enter() {
    let dir = tempfile::tempdir().unwrap();
    let marks = dir.path().join("marks");
    std::fs::create_dir(&marks).unwrap();
    std::fs::set_permissions(&marks, std::fs::Permissions::from_mode(0o777)).unwrap();
    // As root, also the directory of another user (nobody), as an attacker
    // would leave /tmp/strata-0 for root's strata.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&marks, Some(65534), Some(65534)).unwrap();
    }
    let file = dir.path().join("m.strec");
    let out = strata()
        .args(["record", "--interval", "0.25", "--duration", "1"])
        .arg(&file)
        .env("STRATA_MARK_DIR", &marks)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "monitoring goes on: {err}");
    let why = if root {
        "belongs to uid 65534"
    } else {
        "mode 0777"
    };
    assert!(
        err.contains("markers are not taken there") && err.contains(why),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(&marks).unwrap().count(),
        0,
        "no socket made"
    );
    let out = strata()
        .args(["mark", "x"])
        .env("STRATA_MARK_DIR", &marks)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("markers are not taken there"), "{err}");

    // A directory strata makes itself is 0700 and its socket 0600.
    let own = dir.path().join("own");
    let child = strata()
        .args(["record", "--interval", "0.25", "--duration", "3"])
        .arg(dir.path().join("o.strec"))
        .env("STRATA_MARK_DIR", &own)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the socket", Duration::from_secs(10), || {
        std::fs::read_dir(&own).is_ok_and(|mut d| d.next().is_some())
    });
    let meta = std::fs::metadata(&own).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o700);
    let sock = std::fs::read_dir(&own)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert_eq!(std::fs::metadata(&sock).unwrap().mode() & 0o777, 0o600);
    let out = stop(child);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_password_in_a_database_spec_is_never_echoed() {
    let out = strata()
        .args(["--db", "scott/tiger99", "batch", "dnfs", "--count", "1"])
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains("tiger99"), "{all}");
    assert!(all.contains("no password on the command line"), "{all}");
}

#[test]
fn what_is_not_a_regular_file_is_refused_at_once() {
    for (what, path) in [
        ("summary", "/dev/zero"),
        ("export", "/dev/zero"),
        ("summary", "/tmp"),
    ] {
        let start = Instant::now();
        let mut cmd = strata();
        cmd.arg(what).arg(path);
        if what == "export" {
            cmd.args(["--panel", "disks"]);
        }
        let (code, _, err) = run_bounded(&mut cmd, Duration::from_secs(20)).unwrap();
        println!(
            "{what} {path}: exit {code} in {:?}: {}",
            start.elapsed(),
            err.trim()
        );
        assert_ne!(code, 0, "{err}");
        assert!(err.contains("not a regular file"), "{err}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}

#[test]
fn rotated_parts_lose_no_interval() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rot.strec");
    let out = strata()
        .args(["record", "--interval", "0.25", "--duration", "3"])
        .args(["--rotate-size", "16k"])
        .arg(&file)
        .env("STRATA_MARK_DIR", dir.path().join("marks"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut parts = vec![file.clone()];
    for i in 1..1000 {
        let p = dir.path().join(format!("rot.strec.{i}"));
        if !p.exists() {
            break;
        }
        parts.push(p);
    }
    assert!(parts.len() >= 3, "{parts:?}");
    // Each part is said saved, the last too: a rotation's notice and the
    // close's came in one tick and the second took the first's place.
    let err = String::from_utf8_lossy(&out.stderr);
    for p in &parts {
        let said = format!("recording saved to {}\n", p.display());
        assert_eq!(err.matches(&said).count(), 1, "{}: {err}", p.display());
    }
    // Every disk sample the run took, by its own clock, over all parts.
    let mut samples = std::collections::BTreeSet::new();
    let mut exported = 0;
    for p in &parts {
        let mut player = Player::open(p).unwrap();
        let mut n = 0;
        while let Some((_, input)) = player.next_input() {
            if let strata::app::Input::Disks(Ok(s)) = input {
                samples.insert(s.uptime_cs);
            }
            n += 1;
            assert!(n < 100_000, "bounded");
        }
        let out = strata()
            .args(["export", "--panel", "disks", "--format", "csv"])
            .arg(p)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        // A part cut before its second disk sample has no interval of its own.
        if out.status.code() == Some(1) && err.contains("no disks in the window") {
            continue;
        }
        assert!(out.status.success(), "{}: {out:?}", p.display());
        let csv = String::from_utf8(out.stdout).unwrap();
        // One row per device per interval: count the first device's rows
        // (the timestamp column has whole seconds, 4 intervals each here).
        let device = |l: &str| l.split(',').nth(2).map(str::to_owned);
        let first = csv.lines().nth(1).and_then(device);
        let rows = csv.lines().skip(1).filter(|l| device(l) == first).count();
        exported += rows;
    }
    println!(
        "{} parts, {} disk samples, {exported} intervals exported",
        parts.len(),
        samples.len()
    );
    // Only the run's very first sample is a baseline alone; an interval
    // shorter than half the run's 0.25 s (the first, as the recorder aligns
    // on the clock) is left out of an export.
    let uptimes: Vec<u64> = samples.into_iter().collect();
    let full = uptimes.windows(2).filter(|w| w[1] - w[0] >= 13).count();
    assert_eq!(exported, full, "{uptimes:?}");
}

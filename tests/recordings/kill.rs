//! `strata record` killed with SIGKILL: the file replays to within one
//! interval of the kill, says it was not closed, and keeps the marker
//! `strata mark` added while it ran.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use strata::app::Input;
use strata::recording::session::Player;

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn strata() -> Command {
    Command::new(env!("CARGO_BIN_EXE_strata"))
}

/// Waits (bounded) until `f` holds.
fn wait_for(what: &str, limit: Duration, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn last_input_ms(path: &Path) -> (i64, Player) {
    let mut p = Player::open(path).unwrap();
    let mut last = p.start_ms;
    let mut n = 0;
    while let Some((t, input)) = p.next_input() {
        last = t;
        n += 1;
        assert!(n < 100_000, "bounded");
        if let Input::Disks(Err(e)) = input {
            panic!("the host's disks could not be read: {e}");
        }
    }
    (last, p)
}

#[test]
fn sigkill_loses_at_most_the_last_interval_and_keeps_the_marker() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.strec");
    let marks = dir.path().join("marks");
    let mut child = strata()
        .args(["record", "--interval", "0.5"])
        .arg(&file)
        .env("STRATA_MARK_DIR", &marks)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let sock_ready = || {
        std::fs::read_dir(&marks)
            .map(|d| d.count() > 0)
            .unwrap_or(false)
    };
    wait_for("the mark socket", Duration::from_secs(10), sock_ready);
    std::thread::sleep(Duration::from_millis(1200));
    let out = strata()
        .args(["mark", "ramp to 64 users"])
        .env("STRATA_MARK_DIR", &marks)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Past the first chunk's minute is not needed: the journal holds the
    // ticks a chunk has not committed yet.
    std::thread::sleep(Duration::from_millis(2600));
    let killed_at = now_ms();
    child.kill().unwrap();
    child.wait().unwrap();
    let (last, player) = last_input_ms(&file);
    let lost = killed_at - last;
    println!("killed at {killed_at}, last input {last}: {lost} ms lost");
    assert!(
        (0..=500 + 250).contains(&lost),
        "{lost} ms between the last input and the kill (interval 500 ms)"
    );
    assert!(
        player.notices.iter().any(|n| n.contains("not close")),
        "{:?}",
        player.notices
    );
    assert_eq!(player.markers().len(), 1, "{:?}", player.markers());
    assert_eq!(player.markers()[0].1, "ramp to 64 users");
    // The killed strata's socket is left behind; the next mark clears it
    // and says no strata took the marker.
    let out = strata()
        .args(["mark", "after"])
        .env("STRATA_MARK_DIR", &marks)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(std::fs::read_dir(&marks).unwrap().count(), 0);
}

#[test]
fn a_clean_stop_closes_every_file_and_rotation_goes_on_in_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.strec");
    let out = strata()
        .args([
            "record",
            "--interval",
            "0.5",
            "--duration",
            "3",
            "--rotate-size",
            "16k",
        ])
        .arg(&file)
        .env("STRATA_MARK_DIR", dir.path().join("marks"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Each file starts with a sample's full shape (tens of kB), so every
    // clock tick rotates: r.strec, r.strec.1, r.strec.2, ...
    let mut paths = vec![file.clone()];
    for i in 1.. {
        let p = dir.path().join(format!("r.strec.{i}"));
        if !p.exists() {
            break;
        }
        paths.push(p);
    }
    assert!(paths.len() >= 2, "{paths:?}");
    let mut prev_end = 0;
    for p in &paths {
        let (last, player) = last_input_ms(p);
        assert!(
            player.notices.is_empty(),
            "{}: {:?}",
            p.display(),
            player.notices
        );
        assert!(
            !strata::recfile::journal_path(p).exists(),
            "closed: no journal"
        );
        assert!(
            player.start_ms >= prev_end,
            "{} starts after the last ends",
            p.display()
        );
        prev_end = last;
    }
}

//! The CPU and pressure layer on the screen while fio does I/O: strata on
//! this machine's own /proc in tmux, fio writing with O_DIRECT and an
//! fsync per write beside it. The host's line of CPU figures must come,
//! each figure named, %iowait and the io stall share (%sio) with values,
//! and the io stall share must have seen fio's waits (above zero at least
//! once): a line of dashes, or zeros all along, fails.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::{Tmux, have_tmux, skip};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// fio, killed when the test ends however it ends.
struct Fio(Child);

impl Drop for Fio {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The value after `name` on the line that starts with "cpu" in a box.
fn figure(screen: &str, name: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains("│cpu "))?;
    let mut words = line.split_whitespace();
    words.find(|w| *w == name)?;
    words.next().map(|w| w.trim_end_matches('│').to_string())
}

#[test]
fn the_cpu_line_shows_iowait_and_io_pressure_while_fio_runs() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    if Command::new("fio").arg("--version").output().is_err() {
        return skip("fio is not installed");
    }
    if !std::path::Path::new("/proc/pressure/io").exists() {
        return skip("this kernel has no /proc/pressure/io");
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let fio = Command::new("fio")
        .args([
            "--name=strata-e2e",
            "--rw=randwrite",
            "--bs=4k",
            "--size=64m",
            "--direct=1",
            "--fsync=1",
            "--ioengine=psync",
            "--time_based",
            "--runtime=40",
        ])
        .arg(format!("--directory={}", dir.path().display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("fio");
    let _fio = Fio(fio);
    let t = Tmux::start("cpu-fio", 120, 40);
    t.type_line(&format!("{} --interval 0.5", env!("CARGO_BIN_EXE_strata")));
    let s = t.wait_within("the CPU line with figures", Duration::from_secs(20), |s| {
        figure(s, "%iowait").is_some_and(|v| v.parse::<f64>().is_ok())
            && figure(s, "%sio").is_some_and(|v| v.parse::<f64>().is_ok())
    });
    assert!(s.contains("│cpu %iowait "), "{s}");
    // fio's writes wait on the disk: some interval shows io stall
    let deadline = Instant::now() + Duration::from_secs(25);
    let mut seen = Vec::new();
    let stalled = loop {
        let s = t.screen(false);
        let sio = figure(&s, "%sio").and_then(|v| v.parse::<f64>().ok());
        seen.push(sio);
        if sio.is_some_and(|v| v > 0.0) {
            break true;
        }
        if Instant::now() > deadline || seen.len() > 500 {
            break false;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(stalled, "io pressure stayed at zero under fio: {seen:?}");
    let s = t.screen(false);
    eprintln!(
        "cpu line under fio: {}",
        s.lines().find(|l| l.contains("│cpu ")).unwrap_or_default()
    );
    t.keys(&["q"]);
}

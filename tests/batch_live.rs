//! `strata batch` of this machine, run as a user runs it:
//!
//! - `--node local` costs no more CPU than the same run without `--node`
//!   (it spun a core on a closed channel: 3 s of CPU in 3 s).

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const STRATA: &str = env!("CARGO_BIN_EXE_strata");

/// `strata ARGS` started with a config directory of its own (no user
/// config).
fn spawn(args: &[&str], config_home: &Path) -> i32 {
    let child = Command::new(STRATA)
        .args(args)
        .env("XDG_CONFIG_HOME", config_home)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    i32::try_from(child.id()).unwrap()
}

/// Waits for the child `pid` (at most `bound`, else kills it and fails):
/// its exit code and the user plus system CPU it used, from wait4(2).
fn cpu_of(pid: i32, bound: Duration) -> (i32, Duration) {
    let step = Duration::from_millis(50);
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    for _ in 0..=bound.as_millis() / step.as_millis() {
        // SAFETY: pid is our child, not yet reaped (std's Child is never
        // waited on); status and usage are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            let tv = |t: libc::timeval| {
                Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
            };
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                -1
            };
            return (code, tv(usage.ru_utime) + tv(usage.ru_stime));
        }
        assert_eq!(r, 0, "wait4: {}", std::io::Error::last_os_error());
        std::thread::sleep(step);
    }
    // SAFETY: kill and reap our own child.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        libc::waitpid(pid, &mut status, 0);
    }
    panic!("strata (pid {pid}) still running after {bound:?}");
}

#[test]
fn batch_with_node_local_uses_no_more_cpu_than_without() {
    let home = tempfile::tempdir().unwrap();
    let runs = [
        ("disks", true),
        ("nics", true),
        ("cache", true),
        ("disks", false),
    ];
    // All at once: about 3 s of wall time for the four.
    let pids: Vec<i32> = runs
        .iter()
        .map(|&(panel, node)| {
            let mut args = vec!["batch", panel, "--count", "3"];
            if node {
                args.extend(["--node", "local"]);
            }
            spawn(&args, home.path())
        })
        .collect();
    let used: Vec<(i32, Duration)> = pids
        .iter()
        .map(|&pid| cpu_of(pid, Duration::from_secs(30)))
        .collect();
    let alone = used[3].1;
    for (&(panel, node), &(code, cpu)) in runs.iter().zip(&used) {
        let how = if node { "--node local" } else { "alone" };
        eprintln!("batch {panel} {how}: {cpu:?} of CPU");
        assert_eq!(code, 0, "batch {panel} {how}");
        // A spinning run takes what CPU it can get in its 3 s: 1.8 s
        // alone in a debug build, 0.54 s with three of them on two
        // loaded cores. Reading /proc four times takes under 10 ms even
        // in a debug build: 0.25 s is room for a loaded machine.
        assert!(
            cpu < Duration::from_millis(250),
            "batch {panel} {how} used {cpu:?} of CPU (disks without --node: {alone:?})"
        );
    }
}

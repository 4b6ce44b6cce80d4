//! The process panel of the real binary in tmux, on this machine: three
//! `dd`s named as Oracle names its processes (`exec -a`), a database
//! writer and a log writer writing O_DIRECT to a file and a session
//! reading it O_DIRECT, each in a bounded loop of its own process group;
//! the Procs tab must show DBWR PROD1, LGWR PROD1 and session PROD1 with
//! their kB/s. Without tmux or dd it prints SKIPPED, unless
//! STRATA_REQUIRE_E2E=1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::{Tmux, have_tmux, skip};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A bash loop of at most `runs` dd runs, each `exec -a name`, in a
/// process group of its own (the loop's PID), so that the test ends the
/// loop and whichever dd runs then, and nothing else.
struct Load {
    child: Child,
}

impl Load {
    fn start(name: &str, dd: &str, runs: u32) -> Load {
        let script = format!(
            "for i in $(seq 1 {runs}); do (exec -a '{name}' dd {dd} bs=1M status=none) || break; done"
        );
        let child = Command::new("bash")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("bash runs");
        Load { child }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        // the group of the loop this test started, by its id
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}

/// A row's figures: the numbers after its role and instance.
fn figures(line: &str) -> Vec<f64> {
    line.split(|c: char| c.is_whitespace() || c == '│')
        .filter_map(|w| w.parse::<f64>().ok())
        .collect()
}

/// The row of `role` with instance PROD1 whose kB/s in column `col`
/// (after the process count: 1 read, 2 written) is above zero.
fn moving(screen: &str, role: &str, col: usize) -> bool {
    screen
        .lines()
        .filter(|l| {
            let w: Vec<&str> = l
                .split(|c: char| c.is_whitespace() || c == '│')
                .filter(|w| !w.is_empty())
                .collect();
            w.first() == Some(&role) && w.get(1) == Some(&"PROD1")
        })
        .any(|l| figures(l).get(col).is_some_and(|v| *v > 0.0))
}

#[test]
fn the_procs_tab_names_the_oracle_roles_doing_the_io() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    if Command::new("dd").arg("--version").output().is_err() {
        return skip("dd is not installed");
    }
    // a disk, not a tmpfs: O_DIRECT
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("procs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("datafile");
    let redo = dir.join("redo");
    let direct = Command::new("dd")
        .arg("if=/dev/zero")
        .arg(format!("of={}", data.display()))
        .args(["bs=1M", "count=32", "oflag=direct", "status=none"])
        .status()
        .is_ok_and(|s| s.success());
    if !direct {
        let _ = std::fs::remove_dir_all(&dir);
        return skip("O_DIRECT writes refused under the target directory");
    }
    // 32 MiB a run, 400 runs at most: killed when the test ends
    let loads = [
        Load::start(
            "ora_dbw0_PROD1",
            &format!(
                "if=/dev/zero of={} count=32 oflag=direct conv=notrunc",
                data.display()
            ),
            400,
        ),
        Load::start(
            "ora_lgwr_PROD1",
            &format!("if=/dev/zero of={} count=32 oflag=direct", redo.display()),
            400,
        ),
        Load::start(
            "oraclePROD1 (LOCAL=NO)",
            &format!("if={} of=/dev/null iflag=direct", data.display()),
            400,
        ),
    ];
    let t = Tmux::start("procs", 160, 48);
    t.type_line(&format!("{} --interval 1", env!("CARGO_BIN_EXE_strata")));
    t.wait_for("the overview", |s| s.contains("LIVE"));
    // the Procs tab: the last one
    t.keys(&["8"]);
    t.wait_text("Procs · ");
    let s = t.wait_within("the three roles moving", Duration::from_secs(30), |s| {
        moving(s, "DBWR", 2) && moving(s, "LGWR", 2) && moving(s, "session", 1)
    });
    assert!(s.contains("kB_wr/s"), "{s}");
    // u: the same roles in MB/s
    t.keys(&["u"]);
    let s = t.wait_text("MB_wr/s");
    assert!(s.contains("DBWR") && s.contains("session"), "{s}");
    t.keys(&["q"]);
    drop(loads);
    let _ = std::fs::remove_dir_all(&dir);
}

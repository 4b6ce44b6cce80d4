//! The real binary in tmux, driven by keys as a person would, over a fixture
//! host whose counters a test thread advances every 250 ms.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::live_root::LiveRoot;
use common::tmux::{Tmux, have_tmux, skip};

use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::Duration;

fn strata_cmd(root: &Path, extra: &str) -> String {
    format!(
        "{} --root {} --interval 0.5 {extra}",
        env!("CARGO_BIN_EXE_strata"),
        root.display()
    )
}

#[test]
fn drill_sort_filter_pause_help_theme_quit() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let root = LiveRoot::start();
    let t = Tmux::start("keys", 160, 48);
    t.type_line(&strata_cmd(&root.path(), "--theme dark"));
    let s = t.wait_for("overview with figures", |s| {
        s.contains("busiest devices") && s.contains("mpatha")
    });
    assert!(s.contains("db01") && s.contains("LIVE"));
    assert!(s.contains("no databases · --db"), "{s}");

    t.keys(&["2"]);
    t.wait_text("Disks · ");
    t.keys(&["s"]);
    t.wait_text("sort Device ↑");
    t.keys(&["/", "s", "d"]);
    t.wait_text("filter: sd");
    t.keys(&["Enter"]);
    let s = t.wait_text("filter \"sd\"");
    assert!(!s.contains("nvme0n1 "), "filter left nvme0n1 in:\n{s}");

    // sorted by name, sda is the first row: down into it, then its partition
    t.keys(&["Enter"]);
    let s = t.wait_text("Disks › sda");
    assert!(s.contains("IOPS") && s.contains("partitions · Enter to open"));
    t.keys(&["Enter"]);
    t.wait_text("Disks › sda › sda1");
    t.keys(&["Escape"]);
    t.wait_for("back at sda", |s| {
        s.contains("Disks › sda") && !s.contains("sda › sda1")
    });
    t.keys(&["Escape"]);
    t.wait_for("back at the table", |s| {
        s.contains("│ Disks") && !s.contains("Disks ›")
    });

    // the host's other layers, and a drill-down into an NFS mount
    t.keys(&["3"]);
    let s = t.wait_text("Cached-Shmem");
    assert!(s.contains("no files watched"), "{s}");
    t.keys(&["4"]);
    t.wait_text("filer01:/vol/arch");
    t.keys(&["g", "Enter"]);
    let s = t.wait_text("operations · READ and WRITE");
    assert!(s.contains("NFS › filer01:/vol/arch"), "{s}");
    t.keys(&["Escape"]);
    t.wait_for("back at the NFS table", |s| {
        s.contains("│ NFS") && !s.contains("NFS ›")
    });

    // the wire: the bond's warning, then down into its slaves and back
    t.keys(&["5"]);
    let s = t.wait_text("NICs · ");
    assert!(s.contains("ens3f0") && s.contains("physical"), "{s}");
    assert!(
        s.contains("! bond0: active slave eth1 is not the primary eth0"),
        "{s}"
    );
    t.keys(&["/", "b", "o", "n", "d", "Enter", "S"]);
    t.wait_text("sort Int ↑");
    t.keys(&["Enter"]);
    let s = t.wait_text("NICs › bond0");
    assert!(s.contains("primary eth0 · active eth1"), "{s}");
    assert!(s.contains("Slave  Active MII"), "{s}");
    // the slave table is in name order: eth0 first
    t.keys(&["Enter"]);
    let s = t.wait_text("NICs › bond0 › eth0");
    assert!(s.contains("master") && s.contains("bond0"), "{s}");
    t.keys(&["Escape"]);
    t.wait_for("back at bond0", |s| {
        s.contains("NICs › bond0") && !s.contains("bond0 › eth0")
    });
    t.keys(&["Escape"]);
    t.wait_for("back at the NICs table", |s| {
        s.contains("│ NICs") && !s.contains("NICs ›")
    });
    t.keys(&["2"]);
    t.wait_text("Disks · ");

    t.keys(&["p"]);
    let paused = t.wait_text("PAUSED");
    thread::sleep(Duration::from_millis(1200));
    let still = t.screen(false);
    let table = |s: &str| s.lines().skip(2).take(10).collect::<Vec<_>>().join("\n");
    assert_eq!(table(&paused), table(&still), "figures moved while paused");
    t.keys(&["p"]);
    t.wait_text("LIVE");

    t.keys(&["?"]);
    let s = t.wait_text(" Keys ");
    assert!(s.contains("pause the view"));
    t.keys(&["x"]);
    t.wait_for("help closed", |s| !s.contains(" Keys "));

    let before = t.screen(true);
    t.keys(&["c"]);
    thread::sleep(Duration::from_millis(300));
    let after = t.screen(true);
    assert_ne!(before, after, "theme key changed no colour");
    assert!(
        !after.contains("replay"),
        "c is the theme key, not a replay key"
    );

    t.keys(&["q"]);
    t.assert_shell_usable();
}

#[test]
fn signals_and_panic_restore_the_terminal() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let root = LiveRoot::start();
    let t = Tmux::start("signals", 120, 40);
    for sig in ["TERM", "INT", "HUP"] {
        t.type_line(&strata_cmd(&root.path(), ""));
        t.wait_text("busiest devices");
        let shell = t.pane_pid().expect("pane pid");
        // strata is the shell's child
        let out = Command::new("pgrep")
            .args(["-P", &shell.to_string()])
            .output()
            .expect("pgrep");
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(!pid.is_empty(), "no strata process under the shell");
        let sent = Command::new("kill")
            .args([&format!("-{sig}"), &pid])
            .status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -{sig}");
        t.assert_shell_usable();
    }

    t.type_line(&format!(
        "RUST_BACKTRACE=0 STRATA_TEST_PANIC_AFTER_MS=1500 {}",
        strata_cmd(&root.path(), "")
    ));
    let s = t.wait_text("STRATA_TEST_PANIC_AFTER_MS reached");
    assert!(
        !s.contains("busiest devices"),
        "the screen was not left after the panic:\n{s}"
    );
    t.assert_shell_usable();
}

#[test]
fn too_small_terminal_says_so() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let root = LiveRoot::start();
    let t = Tmux::start("small", 40, 10);
    t.type_line(&strata_cmd(&root.path(), ""));
    t.wait_text("terminal too small: 40×10");
    t.keys(&["q"]);
    t.assert_shell_usable();
}

/// The fixture host's screens in docs/screens.md, as a user sees them: run with
/// `cargo test --test e2e_tmux readme_screens -- --ignored --nocapture`
/// and paste what it prints.
#[test]
#[ignore = "prints docs/screens.md's screens; not a check"]
fn readme_screens() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let root = LiveRoot::start();
    let t = Tmux::start("readme", 132, 30);
    t.type_line(&format!("clear; {}", strata_cmd(&root.path(), "")));
    t.wait_text("busiest devices");
    for (key, wait) in [("2", "Disks · "), ("5", "NICs · ")] {
        t.keys(&[key]);
        t.wait_text(wait);
        // a few samples into the history
        thread::sleep(Duration::from_secs(3));
        println!("{}", t.screen(false).trim_end());
    }
    t.keys(&["/", "b", "o", "n", "d", "Enter", "S", "Enter"]);
    t.wait_text("NICs › bond0");
    thread::sleep(Duration::from_secs(2));
    println!("{}", t.screen(false).trim_end());
    t.keys(&["q"]);
}

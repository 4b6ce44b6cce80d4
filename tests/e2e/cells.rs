//! The real binary in tmux with live cells: real OpenSSH sshd processes on
//! loopback (tests/sshd/mod.rs), so the cells are this machine. The run
//! goes as a user's would: put the passphrase prompt off, look at the
//! cells, lose one and get it back, then unlock the encrypted key (a wrong
//! passphrase first) and quit, leaving no sampler on any cell.
//!
//! Needs tmux and sshd: without them the test prints SKIPPED,
//! unless STRATA_REQUIRE_E2E=1 or STRATA_REQUIRE_SSHD=1 (scripts/test sets
//! both as root), which makes a skip a failure.

#![allow(
    unsafe_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::too_many_lines
)]

use crate::common;
use crate::sshd;

use common::tmux::{Tmux, have_tmux, skip};
use sshd::{Keys, PASSPHRASE, Sshd, available, known_hosts, nonce, pgrep};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};
use strata::link::sampler::SAMPLER_MARKER;

/// The line of the cells table that starts with `label`.
fn row<'a>(screen: &'a str, label: &str) -> &'a str {
    let start = format!("│{label} ");
    screen.lines().find(|l| l.contains(&start)).unwrap_or("")
}

/// The row says live and shows a round trip in ms: a figure, not "–".
fn live_with_figures(screen: &str, label: &str) -> bool {
    let r = row(screen, label);
    let mut words = r.split(['│', ' ']).filter(|w| !w.is_empty());
    words.nth(1) == Some("live")
        && words
            .next()
            .is_some_and(|rtt| rtt.parse::<f64>().is_ok_and(|v| v > 0.0))
}

/// This machine's disks that a cell's view lists: whole disks behind a
/// device, read from since boot.
fn local_disks() -> Vec<String> {
    let stats = std::fs::read_to_string("/proc/diskstats").unwrap_or_default();
    let read_from = |name: &str| {
        stats.lines().any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.get(2) == Some(&name) && f.get(3).is_some_and(|r| *r != "0")
        })
    };
    let Ok(dir) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    dir.flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| Path::new(&format!("/sys/block/{n}/device")).exists() && read_from(n))
        .collect()
}

#[test]
fn live_cells_lost_and_back_and_an_encrypted_key_unlocked() {
    let test = "live_cells_lost_and_back_and_an_encrypted_key_unlocked";
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    if !available(test) {
        return;
    }
    let keys = Keys::new();
    let mut one = Sshd::start(&keys, "127.0.0.41", "");
    let two = Sshd::start(&keys, "127.0.0.42", "");
    let locked = Sshd::start(&keys, "127.0.0.43", "");
    let kh = known_hosts(&keys, &[&one, &two, &locked]);
    // The third cell logs in with the encrypted key: a config [[cell]]
    // names its own identity file, --cell-identity the others'.
    let config = keys.path("strata.toml");
    std::fs::write(
        &config,
        format!(
            "[[cell]]\nhost = \"{}\"\nport = {}\nuser = \"{}\"\nidentity_file = \"{}\"\nlabel = \"locked\"\n",
            locked.ip,
            locked.port,
            keys.user,
            keys.encrypted_key.display()
        ),
    )
    .expect("write config");
    let (l1, l2) = (
        format!("{}:{}", one.ip, one.port),
        format!("{}:{}", two.ip, two.port),
    );
    let tag = nonce("e2ecells");
    let marker = format!("{SAMPLER_MARKER}-{tag}");
    // HOME of the test's own: no user config, no ~/.ssh; no ssh-agent.
    // The host's panels read this machine, as the cells do.
    let cmd = format!(
        "env -u SSH_AUTH_SOCK HOME={home} STRATA_TEST_SAMPLER_TAG={tag} {bin} \
         --interval 1 --config {config} --known-hosts {kh} --cell-identity {id} \
         --cell {user}@{l1} --cell {user}@{l2}",
        home = keys.dir.path().display(),
        bin = env!("CARGO_BIN_EXE_strata"),
        config = config.display(),
        kh = kh.display(),
        id = keys.client_key.display(),
        user = keys.user,
    );
    let t = Tmux::start("cells", 160, 40);
    t.type_line(&cmd);
    let started = Instant::now();

    // The encrypted key is asked for at once, naming the file and its cell.
    let ask = format!(
        "Passphrase for {} (cells: locked):",
        keys.encrypted_key.display()
    );
    t.wait_text(&ask);
    println!("prompt after {:?}", started.elapsed());
    t.keys(&["Escape"]);
    t.wait_for("the prompt put off", |s| !s.contains("Passphrase for"));

    t.keys(&["6"]);
    let s = t.wait_for("both cells live with figures", |s| {
        live_with_figures(s, &l1) && live_with_figures(s, &l2)
    });
    println!("both live after {:?}:\n{s}", started.elapsed());
    assert!(
        row(&s, "locked").contains("needs passphrase"),
        "after Esc the locked cell waits:\n{s}"
    );
    // three samplers on the cells, each found by this run's tag: what
    // "none left" is checked against at the end
    let deadline = Instant::now() + Duration::from_secs(5);
    while pgrep(&marker).len() < 2 && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(pgrep(&marker).len(), 2, "one sampler per live cell");

    // Enter opens the first cell (label order) and its disks.
    t.keys(&["g", "Enter"]);
    let s = t.wait_for("the cell's disks", |s| {
        s.contains(&format!("Cells › {l1}")) && s.contains("Group")
    });
    let disks = local_disks();
    println!("this machine's disks {disks:?}; the cell's view:\n{s}");
    assert!(
        disks.iter().any(|d| s.contains(&format!("│{d} "))),
        "none of {disks:?} in the cell's view:\n{s}"
    );
    assert!(s.contains("live"), "{s}");
    t.keys(&["Escape"]);
    t.wait_for("back at the cells", |s| !s.contains("Cells ›"));

    // One cell gone: its row leaves live, the other stays.
    one.kill_all();
    let lost = Instant::now();
    let s = t.wait_for("the killed cell not live", |s| {
        let r = row(s, &l1);
        !r.is_empty() && !r.contains(" live ")
    });
    println!(
        "{l1} left live after {:?}:\n{}",
        lost.elapsed(),
        row(&s, &l1)
    );
    assert!(
        row(&s, &l1).contains("unreachable") || row(&s, &l1).contains("stale"),
        "{s}"
    );
    assert!(live_with_figures(&s, &l2), "the other cell left live:\n{s}");

    // Back: reconnected by itself within its backoff (1 s doubling).
    one.restart();
    let back = Instant::now();
    t.wait_within("the cell live again", Duration::from_secs(30), |s| {
        live_with_figures(s, &l1)
    });
    println!("{l1} live again {:?} after sshd restarted", back.elapsed());

    // The locked cell: i asks again; a wrong passphrase is said so and
    // the prompt returns; the right one brings the cell up.
    t.keys(&["i"]);
    t.wait_text(&ask);
    t.type_text("not the passphrase");
    let s = t.wait_text("•••••••• (hidden)");
    assert!(!s.contains("not the passphrase"), "typed text shown:\n{s}");
    t.keys(&["Enter"]);
    let wrong_at = Instant::now();
    let s = t.wait_text("wrong passphrase: the key file did not open");
    println!("wrong passphrase said after {:?}", wrong_at.elapsed());
    assert!(s.contains(&ask), "{s}");
    t.type_text(PASSPHRASE);
    let s = t.wait_text("•••••••• (hidden)");
    assert!(!s.contains("horse"), "typed text shown:\n{s}");
    t.keys(&["Enter"]);
    let right_at = Instant::now();
    let s = t.wait_within("the locked cell live", Duration::from_secs(15), |s| {
        live_with_figures(s, "locked")
    });
    println!(
        "locked cell live {:?} after the passphrase",
        right_at.elapsed()
    );
    assert!(!s.contains("Passphrase for"), "{s}");
    assert!(
        live_with_figures(&s, &l1) && live_with_figures(&s, &l2),
        "{s}"
    );
    assert_eq!(pgrep(&marker).len(), 3, "one sampler per cell");

    // q quits: the terminal is back, and every sampler ends within one
    // interval of its channel closing.
    t.keys(&["q"]);
    t.assert_shell_usable();
    let quit = Instant::now();
    let deadline = quit + Duration::from_secs(5);
    let mut left = pgrep(&marker);
    while !left.is_empty() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(50));
        left = pgrep(&marker);
    }
    println!(
        "samplers gone {:?} after the shell was back",
        quit.elapsed()
    );
    assert!(left.is_empty(), "samplers left behind: {left:?}");
    drop((two, locked));
}

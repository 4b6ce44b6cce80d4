//! The real binary in a terminal of 80×24, the size of a fresh SSH
//! session: every panel reached by its key with its figures and its
//! footer's way out, help read to its end, and a replay with its own keys
//! in the footer and a header clock that is the timeline's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::live_root::LiveRoot;
use common::tmux::{Tmux, have_tmux, skip};

const W: usize = 80;

fn strata() -> &'static str {
    env!("CARGO_BIN_EXE_strata")
}

/// strata live at 0.5 s on the fixture host, in a tmux window of
/// `width`×`height`; the root lives as long as the run.
fn live(name: &str, width: u16, height: u16) -> (LiveRoot, Tmux) {
    let root = LiveRoot::start();
    let t = Tmux::start(name, width, height);
    t.type_line(&format!(
        "{} --root {} --interval 0.5",
        strata(),
        root.path().display()
    ));
    (root, t)
}

/// The footer (the screen's last line) keeps help and quit, and no line
/// is wider than the terminal.
fn check_frame(what: &str, s: &str) {
    let lines: Vec<&str> = s.lines().collect();
    assert!(lines.len() <= 24, "{what}: {} lines\n{s}", lines.len());
    for l in &lines {
        assert!(l.chars().count() <= W, "{what}: a line over {W}\n{s}");
    }
    let footer = lines.iter().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert!(
        footer.contains("? help") && footer.contains("q quit"),
        "{what}: the footer lost its way out: {footer:?}\n{s}"
    );
}

#[test]
fn every_panel_and_help_at_80x24() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let (_root, t) = live("small", 80, 24);
    let s = t.wait_for("the overview with figures", |s| {
        // at 80×24 the bond's warning takes the line of the busiest NIC
        s.contains("LIVE") && s.contains("r/s ") && s.contains("bond0") && s.contains("q quit")
    });
    check_frame("overview", &s);
    // Each tab by its number: its title, then the figures of the layer.
    let panels = [
        ("2", "Disks · ", "mpatha"),
        ("3", "Page cache", "Cached"),
        ("4", "Kernel NFS client · ", "filer01:"),
        ("5", "NICs · ", "ens3f0"),
        ("6", "Cells", "no cells"),
        ("7", "Databases", "no databases"),
    ];
    for (key, title, figure) in panels {
        t.keys(&[key]);
        let s = t.wait_for(title, |s| {
            s.contains(title) && s.contains(figure) && s.contains("q quit")
        });
        check_frame(title, &s);
    }
    // A device's own screen at this size.
    t.keys(&["2", "Home", "Enter"]);
    let s = t.wait_for("a device", |s| {
        s.contains("Disks › ") && s.contains("q quit")
    });
    check_frame("a device", &s);
    t.keys(&["Escape", "1"]);

    // Help, read to its end.
    t.keys(&["?"]);
    let s = t.wait_text(" Keys ");
    assert!(
        s.contains("· ↑ ↓ PgUp PgDn scroll"),
        "help says it scrolls:\n{s}"
    );
    assert!(!s.contains("any other key closes it"), "{s}");
    t.keys(&["End"]);
    let s = t.wait_text("any other key closes it.");
    // "lines a–b of n" with b = n: the last line is on screen
    let (shown, of) = s
        .lines()
        .find_map(|l| l.split_once(" lines ").map(|(_, r)| r))
        .and_then(|r| r.split_once(" · ").map(|(a, _)| a))
        .and_then(|a| a.split_once(" of "))
        .map(|(range, n)| {
            (
                range.rsplit('–').next().unwrap_or("").to_string(),
                n.to_string(),
            )
        })
        .unwrap_or_default();
    assert!(!of.is_empty() && shown == of, "help not at its end:\n{s}");
    // the help box takes the whole height: it says itself how to close it
    assert!(s.lines().all(|l| l.chars().count() <= W), "{s}");
    t.keys(&["Escape"]);
    t.wait_for("help closed", |s| !s.contains(" Keys "));
    t.keys(&["q"]);
    t.assert_shell_usable();
}

#[test]
fn a_replay_at_80x24_shows_its_keys_and_its_time() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.strec");
    let p = strata::recording::session::Player::open(std::path::Path::new(demo)).unwrap();
    let t = Tmux::start("small-replay", 80, 24);
    t.type_line(&format!("{} replay {demo}", strata()));
    let s = t.wait_for("the replay drawn whole", |s| {
        s.contains("REPLAY ⏸") && s.contains("q quit")
    });
    check_frame("replay", &s);
    let footer = s.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    for key in ["Space", "b", "[ ]"] {
        assert!(footer.contains(key), "replay key {key:?} not in {footer:?}");
    }
    // A jump to a whole second: the header's clock is the timeline's.
    let second = (p.start_ms / 1000 + 60) * 1000;
    let hms = strata::format::local_time(second);
    t.keys(&["b"]);
    t.wait_text("jump to");
    t.type_text(&hms);
    t.keys(&["Enter"]);
    let s = t.wait_for("the jump", |s| {
        s.lines().next().is_some_and(|h| h.contains(&hms))
            && s.lines().skip(1).any(|l| l.contains(&hms))
    });
    check_frame("replay after the jump", &s);
    t.keys(&["q"]);
    t.assert_shell_usable();
}

/// A terminal resized under strata: its screen follows, down to 80×24
/// whole (the viewport moves with the Resize events; strata does not ask
/// the size before every frame) and back up to use the room.
#[test]
fn a_resized_terminal_is_drawn_at_its_new_size() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let (_root, t) = live("resized", 120, 40);
    let wide = |s: &str, w: usize| s.lines().any(|l| l.trim_end().chars().count() > w);
    t.wait_for("the overview at 120 columns", |s| {
        s.contains("r/s ") && s.contains("q quit") && wide(s, 100)
    });
    t.resize(80, 24);
    let s = t.wait_for("the overview at 80×24", |s| {
        s.contains("r/s ") && s.lines().count() <= 24 && !wide(s, W) && s.contains("q quit")
    });
    check_frame("resized to 80×24", &s);
    t.resize(160, 48);
    t.wait_for("the overview at 160 columns", |s| {
        s.contains("r/s ") && s.contains("q quit") && wide(s, 140)
    });
    t.keys(&["q"]);
    t.assert_shell_usable();
}

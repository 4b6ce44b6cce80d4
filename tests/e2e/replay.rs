//! The real binary in tmux: `--record` and `m` while monitoring, then
//! `strata replay` of that file driven by its keys, and the terminal given
//! back after `q` and after SIGTERM.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::{Tmux, have_tmux, skip};
use std::time::Duration;
use strata::recording::session::Player;

/// The column of the position (●) on the timeline.
fn position(screen: &str) -> Option<usize> {
    screen
        .lines()
        .find_map(|l| l.find('●').map(|b| l[..b].chars().count()))
}

/// The first "hh:mm:ss" of a line.
fn time_in(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    (0..b.len().saturating_sub(7)).find_map(|i| {
        let w = &b[i..i + 8];
        let ok = w.iter().enumerate().all(|(j, c)| {
            if j == 2 || j == 5 {
                *c == b':'
            } else {
                c.is_ascii_digit()
            }
        });
        ok.then(|| &line[i..i + 8])
    })
}

/// The header's clock and the timeline's position ("DATE TIME / END
/// ×SPEED" at its right) say the same second.
fn clocks_agree(screen: &str) -> bool {
    let header = screen.lines().next().and_then(time_in);
    let position = screen
        .lines()
        .skip(1)
        .find(|l| l.contains(" / ") && l.contains('×'))
        .and_then(|l| l.rsplit_once(" / "))
        .and_then(|(before, _)| time_in(&before[before.len().saturating_sub(8)..]));
    header.is_some() && header == position
}

fn strata() -> &'static str {
    env!("CARGO_BIN_EXE_strata")
}

#[test]
fn record_mark_then_replay_with_its_keys() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("e2e.strec");
    let marks = dir.path().join("marks");
    let t = Tmux::start("replay", 150, 46);
    t.type_line(&format!(
        "STRATA_MARK_DIR={} {} --interval 0.5 --record {}",
        marks.display(),
        strata(),
        file.display()
    ));
    let s = t.wait_text("REC ");
    assert!(s.contains("LIVE"), "{s}");
    // Well after the first second, where the replay opens: the marker and
    // the position are two places on the timeline.
    std::thread::sleep(Duration::from_millis(3000));
    t.keys(&["m"]);
    t.wait_text("marker label:");
    t.type_text("warm cache");
    t.keys(&["Enter"]);
    std::thread::sleep(Duration::from_millis(2000));
    // R stops the recording: the file is closed and said so.
    t.keys(&["R"]);
    t.wait_text("recording saved to");
    t.keys(&["q"]);
    t.assert_shell_usable();

    let p = Player::open(&file).unwrap();
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    assert_eq!(p.markers().len(), 1);
    assert_eq!(p.markers()[0].1, "warm cache");
    let span = p.end_ms - p.start_ms;
    assert!(span >= 3000, "{span} ms recorded");

    t.type_line(&format!("{} replay {}", strata(), file.display()));
    t.wait_text("REPLAY ⏸");
    // The marker is on the timeline, apart from the position.
    t.wait_for("the marker on the timeline", |s| {
        s.contains("▼") && s.contains("●")
    });
    // To the marker: the position covers it.
    t.keys(&["]"]);
    let at_marker = t.wait_for("the position on the marker", |s| {
        !s.contains("▼") && position(s).is_some()
    });
    let from = position(&at_marker).unwrap_or_default();
    // Three intervals on (1.5 s of a ~5 s file) the position has moved right
    // and the marker shows again behind it. One step alone can end within
    // the same column and second as the marker, so it is not what is tested.
    t.keys(&["T", "T", "T"]);
    let after = t.wait_for("three steps on", |s| {
        s.contains("▼") && position(s).is_some_and(|c| c > from)
    });
    assert!(after.contains("REPLAY ⏸"));
    assert!(clocks_agree(&after), "{after}");
    // A jump to a whole second lands at its end, past the samples taken a
    // few ms after its boundary (`tests/recordings/replay.rs` holds their
    // figures); the header's clock is the timeline's position (it was
    // once a second behind it).
    let second = (p.start_ms / 1000 + 2) * 1000;
    assert!(second < p.end_ms, "a whole second inside the file");
    let hms = strata::format::local_time(second);
    t.keys(&["b"]);
    t.wait_text("jump to");
    t.type_text(&hms);
    t.keys(&["Enter"]);
    let jumped = t.wait_for("the jump", |s| {
        s.lines()
            .skip(1)
            .any(|l| l.contains(&hms) && l.contains(" / "))
    });
    assert!(clocks_agree(&jumped), "{jumped}");
    // Play at ×60 to the end: it stops there by itself.
    t.keys(&["+", "+", "+", " "]);
    t.wait_within("the end of the file", Duration::from_secs(10), |s| {
        s.contains("REPLAY ⏸") && s.contains("×60")
    });
    // Drill down works on a recording.
    t.keys(&["2"]);
    t.wait_text("Disks · ");
    t.keys(&["Enter"]);
    t.wait_text("Esc back");
    // A typed time that is not one is said, not acted on.
    t.keys(&["b"]);
    t.wait_text("jump to");
    t.type_text("25:99");
    t.keys(&["Enter"]);
    t.wait_text("is not a time");
    t.keys(&["q"]);
    t.assert_shell_usable();

    // SIGTERM gives the terminal back too.
    t.type_line(&format!(
        "(sleep 1.5; pkill -TERM -f 'strata replay {f}') & {} replay {f}",
        strata(),
        f = file.display()
    ));
    t.wait_text("REPLAY ⏸");
    t.assert_shell_usable();
}

//! Markers on the screens: a mark in a chart's column of the marker's time
//! with its label, and the list of markers (`M`), live and in replay.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{app_with, render};
use strata::app::session::{ReplayCmd, ReplayStatus, Request};
use strata::app::{Action, App, View};

const T0: i64 = 1_795_000_000_000;

fn keys(app: &mut App, actions: &[Action]) {
    for a in actions {
        app.update(a.clone());
    }
}

/// sda's detail after `n` samples (times T0 + k s + 0), with markers.
fn detail_with_markers(n: u64, markers: &[(i64, &str)]) -> App {
    let mut app = app_with(n);
    for (at, label) in markers {
        app.add_marker(*at, label.to_string());
    }
    app.ui.stack.push(View::Disk("sda".into()));
    app
}

/// The rows of a chart (a screen line holding its y label and plot) whose
/// plot holds `what`.
fn lines_with<'a>(screen: &'a str, what: &str) -> Vec<&'a str> {
    screen.lines().filter(|l| l.contains(what)).collect()
}

#[test]
fn a_marker_shows_on_every_chart_in_its_column_with_its_label() {
    let mut app = detail_with_markers(
        60,
        &[
            (T0 + 20_500, "ramp to 64 users"),
            (T0 + 45_000, "checkpoint"),
            // Before the history's first sample and after its last: not
            // on the charts.
            (T0 - 5_000, "too early"),
            (T0 + 90_000, "too late"),
        ],
    );
    let screen = render(&mut app, 160, 50);
    insta::assert_snapshot!("detail_sda_markers_160x50", screen);
    // One ▼ per marker in the window on each of the five charts.
    let tops = lines_with(&screen, "▼");
    assert_eq!(tops.len(), 5, "{screen}");
    for l in &tops {
        assert_eq!(l.matches('▼').count(), 2, "{l}");
        assert!(l.contains("▼ramp to 64"), "{l}");
        assert!(l.contains("▼checkpoint"), "{l}");
    }
    assert!(!screen.contains("too early") && !screen.contains("too late"));
    // The ▼ of a marker stands in the same column on every chart, and its
    // dotted line goes down from it.
    let col = |l: &str, label: &str| {
        let at = l.find(&format!("▼{label}"))?;
        Some(l[..at].chars().count())
    };
    let first: Vec<_> = tops.iter().map(|l| col(l, "ramp")).collect();
    assert!(
        first.iter().all(|c| c.is_some() && *c == first[0]),
        "{first:?}"
    );
    let c = first[0].unwrap_or_default();
    let below = screen
        .lines()
        .filter(|l| l.chars().nth(c) == Some('┊'))
        .count();
    assert!(below >= 5, "{below} dotted rows under the marker");
}

#[test]
fn the_list_of_markers_live() {
    let mut app = app_with(10);
    app.add_marker(T0 + 3_000, "ramp to 64 users".into());
    app.add_marker(T0 + 7_000, "checkpoint".into());
    keys(&mut app, &[Action::ListMarkers]);
    let screen = render(&mut app, 100, 30);
    insta::assert_snapshot!("markers_list_live_100x30", screen);
    assert!(screen.contains("Markers (2)"));
    assert!(screen.contains("hh:mm:ss  ramp to 64 users"), "{screen}");
    // Live, Enter goes nowhere and says so; the list closes.
    keys(&mut app, &[Action::Up, Action::Enter]);
    assert!(app.take_requests().is_empty());
    assert!(
        app.notice
            .as_deref()
            .unwrap_or("")
            .contains("strata replay")
    );
    assert!(!render(&mut app, 100, 30).contains("Markers ("));
    // An empty list says how to add one; any other key closes it.
    let mut empty = app_with(3);
    keys(&mut empty, &[Action::ListMarkers]);
    assert!(render(&mut empty, 100, 30).contains("no marker yet: m adds one"));
    keys(&mut empty, &[Action::SortNext]);
    assert!(!render(&mut empty, 100, 30).contains("Markers ("));
}

#[test]
fn in_replay_enter_on_a_marker_goes_to_it() {
    let mut app = app_with(10);
    let markers = vec![
        (T0 + 3_000, "ramp to 64 users".to_string()),
        (T0 + 7_000, "checkpoint".to_string()),
        (T0 + 40_000, "ahead".to_string()),
    ];
    app.replay = Some(ReplayStatus {
        file: "run.strec".into(),
        start_ms: T0,
        end_ms: T0 + 60_000,
        pos_ms: T0 + 10_000,
        playing: false,
        speed: 1,
        markers,
        gaps: Vec::new(),
    });
    keys(&mut app, &[Action::ListMarkers]);
    // The last marker passed is selected; those ahead are listed too.
    assert_eq!(app.ui.marker_list, Some(1));
    let screen = render(&mut app, 100, 30);
    insta::assert_snapshot!("markers_list_replay_100x30", screen);
    // A recording's screens give no advice that only applies live.
    assert!(
        screen.contains("no databases in this recording"),
        "{screen}"
    );
    assert!(
        !screen.contains("--db ") && !screen.contains("--cell "),
        "{screen}"
    );
    assert!(screen.contains("ahead") && screen.contains("Enter go to it"));
    keys(&mut app, &[Action::Down, Action::Down, Action::Enter]);
    let reqs = app.take_requests();
    assert!(
        matches!(reqs.as_slice(), [Request::Replay(ReplayCmd::JumpTo(t))] if *t == T0 + 40_000),
        "{reqs:?}"
    );
    assert_eq!(app.ui.marker_list, None);
}

/// A marker's label stands above the plot, on a row of its own: drawn on
/// the plot's top row it hid the points there (the demo's 45498 r/s peak
/// of loop0 under "▼fio: random reads, queue depth 1", issue 26).
#[test]
fn a_markers_label_hides_no_point_of_a_chart() {
    let mut app = detail_with_markers(60, &[(T0 + 20_500, "ramp to 64 users")]);
    for (w, h) in [(160, 50), (240, 70)] {
        let screen = render(&mut app, w, h);
        let tops = lines_with(&screen, "▼");
        assert_eq!(tops.len(), 5, "{screen}");
        for l in tops {
            assert!(
                !l.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)),
                "a chart's points on the labels' row at {w}×{h}: {l}\n{screen}"
            );
        }
        // and every chart still plots its points
        let plotted = screen
            .lines()
            .filter(|l| l.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)))
            .count();
        assert!(plotted >= 5, "{screen}");
    }
}

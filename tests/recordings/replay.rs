//! Record and replay through the same app: a session of the fixture host's
//! layers and two cells is recorded as it is applied to a live app, then
//! replayed into a second app built from the recording alone. At every
//! sample, every drill-down level renders the very same screen (TestBackend
//! buffers). A replayer's jump lands on the same screens as playing forward.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::fidelity::{self, CELL0, CELLS, app_of, assert_same, views};
use common::{cache_sample, nfs_sample, nic_sample, sample};
use std::path::Path;
use std::time::Duration;
use strata::app::session::{ReplayCmd, Request};
use strata::app::{Action, App, Input};
use strata::config::Config;
use strata::core::host::SelfUsage;
use strata::layers::cells::source::CellEvent;
use strata::link::HostStatus;
use strata::recording::control::meta_of;
use strata::recording::session::{Player, Recorder};
use strata::replay::Replayer;
use strata::theme::Theme;

const T0: i64 = 1_795_000_000_000;
/// Samples: more than a minute, so the file holds several chunks and the
/// shapes of a chunk after the first are read from their own chunk.
const N: u64 = 75;

fn live_app() -> App {
    live_app_keeping(Config::default().history_secs)
}

/// The recorded sessions' app, keeping `history_secs` of history.
fn live_app_keeping(history_secs: u64) -> App {
    let base = common::recorded_app();
    let config = Config {
        history_secs,
        ..base.config.clone()
    };
    let mut app = App::new(
        config,
        Theme::default(),
        base.host.clone(),
        strata::core::duration::Interval::ONE_SECOND,
    );
    app.set_cells(
        base.cells
            .list
            .iter()
            .map(|c| c.link.target.clone())
            .collect(),
    );
    app
}

fn cellcli() -> String {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/cellcli/cel01-x7-report.txt"
    );
    std::fs::read_to_string(p).unwrap()
}

/// Both cells' samples of second `k` (cel02's not in `cel02_out`), and
/// cel01's round trip every ten seconds.
fn cell_inputs(k: u64, cel02_out: std::ops::Range<u64>) -> Vec<(i64, Input)> {
    let t = T0 + k as i64 * 1000;
    let mut v = Vec::new();
    for cell in 0..2 {
        if cell == 1 && cel02_out.contains(&k) {
            continue;
        }
        let mut s = sample(k + 7 * cell as u64);
        s.wall_ms = t + 20 + cell as i64;
        v.push((t + 20, Input::Cell(CellEvent::Sample { cell, sample: s })));
    }
    if k.is_multiple_of(10) {
        v.push((
            t + 30,
            Input::Cell(CellEvent::Rtt {
                cell: 0,
                rtt: Duration::from_micros(800 + k * 3),
            }),
        ));
    }
    v
}

/// The inputs of second `k`, as the live loop hands them over, with the
/// time each arrived.
fn inputs(k: u64) -> Vec<(i64, Input)> {
    let t = T0 + k as i64 * 1000;
    let mut v = vec![
        (t + 3, Input::Disks(Ok(sample(k)))),
        (t + 5, Input::Nfs(Ok(nfs_sample(k)))),
        (t + 6, Input::Cache(Ok(cache_sample(k)))),
        (t + 8, Input::Nics(Ok(nic_sample(k)))),
    ];
    if k == 0 {
        for cell in 0..2 {
            v.push((
                t + 1,
                Input::Cell(CellEvent::Status {
                    cell,
                    status: HostStatus::Live,
                }),
            ));
        }
    }
    // cel02 misses samples 20..25: its row goes stale and comes back.
    v.extend(cell_inputs(k, 20..25));
    if k.is_multiple_of(10) {
        v.push((
            t + 31,
            Input::Cell(CellEvent::Cellcli {
                cell: 0,
                text: cellcli(),
            }),
        ));
    }
    if k == 33 {
        v.push((
            t + 40,
            Input::Nfs(Err("mountstats: permission denied".into())),
        ));
        v.push((
            t + 41,
            Input::Cell(CellEvent::Stderr {
                cell: 1,
                text: "iostat: warning".into(),
            }),
        ));
    }
    if k == 50 {
        v.push((
            t + 50,
            Input::Marker {
                wall_ms: t + 50,
                label: "ramp to 64 users".into(),
            },
        ));
    }
    v.push((
        t + 900,
        Input::Clock {
            now_ms: t + 900,
            usage: SelfUsage {
                cpu_pct: Some(1.5 + k as f64 / 10.0),
                rss_bytes: Some(20 << 20),
                ..SelfUsage::default()
            },
        },
    ));
    v
}

/// Every level a user can drill to in this session, with each view's
/// screen.
fn screens(app: &mut App) -> Vec<String> {
    fidelity::screens(app, &views("sda"))
}

fn record(path: &Path) -> Vec<Vec<String>> {
    record_started(path, T0)
}

/// The session, recorded from `start_ms` (its first samples are at T0).
fn record_started(path: &Path, start_ms: i64) -> Vec<Vec<String>> {
    let mut live = live_app();
    let mut rec = Recorder::create(path, &meta_of(&live, start_ms)).unwrap();
    let mut seen = Vec::new();
    for k in 0..N {
        for (at, input) in inputs(k) {
            rec.record(at, &input).unwrap();
            live.apply(input);
        }
        seen.push(screens(&mut live));
    }
    rec.close().unwrap();
    seen
}

#[test]
fn replay_renders_what_live_rendered_at_every_sample_and_level() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.strec");
    let live = record(&path);
    let mut player = Player::open(&path).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    assert_eq!(
        player.markers(),
        [(T0 + 50_050, "ramp to 64 users".to_string())]
    );
    let mut app = app_of(&player.meta);
    let mut applied = 0;
    for (k, want) in live.iter().enumerate() {
        for (at, _) in inputs(k as u64) {
            let (t, input) = player.next_input().expect("an input per recorded one");
            assert_eq!(t, at);
            app.apply(input);
            applied += 1;
        }
        assert_same(want, &screens(&mut app), &format!("sample {k}"));
    }
    assert!(
        player.next_input().is_none(),
        "{applied} inputs, then no more"
    );
    // The screens did change over the session: the comparison is not of
    // empty frames.
    assert_ne!(live[2][1], live[40][1]);
    assert!(live[60][CELLS].contains("cel02"), "{}", live[60][CELLS]);
    assert!(live[60][CELL0].contains("cel01"), "{}", live[60][CELL0]);
}

#[test]
fn a_jump_lands_on_the_screens_playing_forward_showed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.strec");
    let live = record(&path);
    let player = Player::open(&path).unwrap();
    let mut app = app_of(&player.meta);
    let mut r = Replayer::new(player, &mut app, &path);
    // Forward past the end, back into the middle (a delta chunk), to a
    // marker, and one sample back from there.
    for k in [70u64, 12, 65, 31, 49] {
        let t = T0 + k as i64 * 1000 + 999;
        r.seek(&mut app, t);
        assert_eq!(r.pos_ms(), t);
        assert_same(
            &live[k as usize],
            &screens(&mut app),
            &format!("seek to {k}"),
        );
    }
    r.command(&mut app, strata::app::session::ReplayCmd::Marker(1));
    assert_eq!(r.pos_ms(), T0 + 50_050);
    r.command(&mut app, strata::app::session::ReplayCmd::Step(-1));
    assert_same(&live[49], &screens(&mut app), "a step back from the marker");
    r.command(&mut app, strata::app::session::ReplayCmd::Step(1));
    assert_same(&live[50], &screens(&mut app), "a step on");
}

/// `b` and a typed second: the screens of that second's samples, taken a
/// few ms after it starts (the jump stopped at its first millisecond,
/// before them, and showed the second before).
#[test]
fn a_typed_time_lands_on_the_samples_stamped_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.strec");
    let live = record(&path);
    let player = Player::open(&path).unwrap();
    let mut app = app_of(&player.meta);
    let mut r = Replayer::new(player, &mut app, &path);
    // Far back, near ahead (played on, not rebuilt), far ahead.
    for k in [70u64, 12, 13, 31, 60] {
        let hms = strata::format::local_time(T0 + k as i64 * 1000);
        app.update(Action::JumpToTime);
        for c in hms.chars() {
            app.update(Action::FilterChar(c));
        }
        app.update(Action::FilterCommit);
        for req in app.take_requests() {
            if let Request::Replay(cmd) = req {
                r.command(&mut app, cmd);
            }
        }
        assert_eq!(strata::format::local_time(r.pos_ms()), hms);
        assert_same(&live[k as usize], &screens(&mut app), &format!("b {hms}"));
    }
}

/// `T` from within an interval (the start of a file that began between
/// two seconds, a marker) plays the next one: it went to the end of the
/// interval it was in, whose samples were on the screen already.
#[test]
fn a_step_from_within_an_interval_plays_the_next_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.strec");
    // Started half a second before the first samples: the replay opens
    // at T0 + 1.5 s, with second 1's samples played.
    let live = record_started(&path, T0 - 500);
    let player = Player::open(&path).unwrap();
    let mut app = app_of(&player.meta);
    let mut r = Replayer::new(player, &mut app, &path);
    assert_eq!(r.pos_ms(), T0 + 1_500);
    r.command(&mut app, ReplayCmd::Step(1));
    assert_same(&live[2], &screens(&mut app), "the first T");
    r.command(&mut app, ReplayCmd::Marker(1));
    assert_eq!(r.pos_ms(), T0 + 50_050);
    r.command(&mut app, ReplayCmd::Step(1));
    assert_same(&live[51], &screens(&mut app), "T from the marker");
}

/// Damage anywhere in a session's file (a cut, flipped bits) never panics
/// the player; it replays what comes before the damage and says why it
/// stopped.
#[test]
fn damaged_sessions_replay_up_to_the_damage_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.strec");
    let mut live = live_app();
    let mut rec = Recorder::create(&path, &meta_of(&live, T0)).unwrap();
    let mut total = 0;
    for k in 0..N {
        for (at, input) in inputs(k) {
            rec.record(at, &input).unwrap();
            live.apply(input);
            total += 1;
        }
    }
    rec.close().unwrap();
    let whole = std::fs::read(&path).unwrap();
    let bad = dir.path().join("bad.strec");
    let count = |p: &Path| -> Option<(usize, Vec<String>)> {
        let mut player = Player::open(p).ok()?;
        let mut n = 0;
        while player.next_input().is_some() {
            n += 1;
            assert!(n <= total, "never more inputs than recorded");
        }
        Some((n, player.notices.clone()))
    };
    assert_eq!(count(&path).map(|c| c.0), Some(total));
    // Cuts: at 40 places across the file.
    for i in 1..40 {
        let cut = whole.len() * i / 40;
        std::fs::write(&bad, &whole[..cut]).unwrap();
        if let Some((n, notices)) = count(&bad) {
            assert!(n < total, "cut at {cut}: {n} of {total}");
            assert!(!notices.is_empty(), "cut at {cut}: no notice");
        }
    }
    // Bit flips: 200 at pseudo-random places.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..200 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut b = whole.clone();
        let at = (x % b.len() as u64) as usize;
        b[at] ^= 1 << (x % 8);
        std::fs::write(&bad, &b).unwrap();
        if let Some((n, notices)) = count(&bad) {
            assert!(
                n == total || !notices.is_empty(),
                "flip at {at}: {n} of {total} inputs and no notice"
            );
        }
    }
}

mod fuzzish {
    use proptest::prelude::*;
    use strata::recfile::format;
    use strata::recording::session::Player;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// What the fuzz target runs (fuzz/fuzz_targets/player.rs): a valid
        /// file header and then anything, with or without a journal.
        #[test]
        fn the_player_returns_on_any_bytes(
            tail in prop::collection::vec(any::<u8>(), 0..2048),
            journal in prop::option::of(prop::collection::vec(any::<u8>(), 0..256)),
        ) {
            let mut data = format::encode_file_header(1_795_000_000_000).to_vec();
            data.extend_from_slice(&tail);
            let (n, notices) = Player::read_bytes(&data, journal.as_deref());
            prop_assert!(n == 0 || !notices.is_empty() || tail.is_empty());
        }
    }
}

/// Seconds of the long session: past two key chunks (one every ten
/// minutes), so a jump near its end starts reading at a key chunk and
/// passes over ticks before its window.
const LONG: u64 = 1550;

/// The long session's inputs of second `k`: the host's disks, two cells and
/// the clock, with the events whose effect outlasts them (status, round
/// trip, cellcli listing, stderr) at moments before and inside the
/// windows the jumps below rebuild.
fn long_inputs(k: u64) -> Vec<(i64, Input)> {
    use HostStatus::{Connecting, Live, Unreachable};
    let t = T0 + k as i64 * 1000;
    let status = |cell, status| Input::Cell(CellEvent::Status { cell, status });
    let stderr = |cell, text: &str| {
        Input::Cell(CellEvent::Stderr {
            cell,
            text: text.into(),
        })
    };
    let listing = || {
        Input::Cell(CellEvent::Cellcli {
            cell: 0,
            text: cellcli(),
        })
    };
    let mut v = vec![(t + 3, Input::Disks(Ok(sample(k))))];
    let event = match k {
        0 => vec![status(0, Live), status(1, Live)],
        5 => vec![Input::Cell(CellEvent::Rtt {
            cell: 1,
            rtt: Duration::from_micros(1234),
        })],
        100 => vec![listing()],
        300 => vec![status(1, Unreachable("connection reset by peer".into()))],
        400 => vec![status(1, Live)],
        450 => vec![stderr(1, "iostat: warning")],
        640 => vec![stderr(0, "sdb: medium error")],
        650 => vec![status(0, Connecting)],
        652 => vec![status(0, Live)],
        660 => vec![stderr(0, " \n")],
        1000 => vec![stderr(0, "cellsrv: restarted")],
        1010 => vec![listing()],
        _ => Vec::new(),
    };
    v.extend(event.into_iter().map(|e| (t + 10, e)));
    v.extend(cell_inputs(k, 300..400));
    v.push((
        t + 900,
        Input::Clock {
            now_ms: t + 900,
            usage: SelfUsage {
                cpu_pct: Some(1.5),
                rss_bytes: Some(20 << 20),
                ..SelfUsage::default()
            },
        },
    ));
    v
}

/// A jump far into a long session rebuilds its window's figures and keeps
/// what outlasts the inputs before the window: each cell's connection,
/// round trip, cellcli box and last message, however long ago they came
/// (before the key chunk the jump reads from: the recorder restates them
/// there), and the screens are those playing forward showed.
#[test]
fn a_jump_far_into_a_long_session_keeps_what_outlasts_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.strec");
    let targets = [1540u64, 990, 1400, 700, 1250];
    // A chart spans the history the config keeps (an hour by default), a
    // jump rebuilds REBUILD_SAMPLES intervals (300): its charts are the
    // live ones when the history fits in them (docs/recording.md says so).
    let mut live = live_app_keeping(240);
    let mut rec = Recorder::create(&path, &meta_of(&live, T0)).unwrap();
    let mut want = std::collections::HashMap::new();
    for k in 0..LONG {
        for (at, input) in long_inputs(k) {
            strata::recording::control::record_and_apply(&mut rec, &mut live, at, input).unwrap();
        }
        if targets.contains(&k) {
            want.insert(k, screens(&mut live));
        }
    }
    rec.close().unwrap();
    // What the jumps must bring back is on the live screens (the cells
    // table is view 9, the cells' views 10 and 11): the comparison below is not of empty boxes.
    let cell0 = |k: u64| &want[&k][10];
    let cell1 = |k: u64| &want[&k][11];
    assert!(cell0(990).contains("sdb: medium error"), "{}", cell0(990));
    assert!(cell0(990).contains("891 s ago"), "{}", cell0(990));
    assert!(cell1(1540).contains("iostat: warning"), "{}", cell1(1540));
    let cel02_row = want[&1540][9]
        .lines()
        .find(|l| l.contains("cel02"))
        .unwrap_or("");
    assert!(
        cel02_row.contains("1.23"),
        "cel02's round trip: {cel02_row}"
    );
    assert!(cell0(1400).contains("391 s ago"), "{}", cell0(1400));
    assert!(
        !cell0(1400).contains("cellsrv: restarted"),
        "{}",
        cell0(1400)
    );

    let player = Player::open(&path).unwrap();
    assert_eq!(player.end_ms, T0 + (LONG as i64 - 1) * 1000 + 900);
    let mut app = app_of(&player.meta);
    let mut r = Replayer::new(player, &mut app, &path);
    for k in targets {
        let t = T0 + k as i64 * 1000 + 999;
        r.seek(&mut app, t);
        let got = screens(&mut app);
        if k != 700 {
            assert_same(&want[&k], &got, &format!("jump to {k}"));
            continue;
        }
        // What a jump does not bring back (docs/recording.md says so): the
        // all-cell chart's rounds. A round closes when every live cell has
        // sampled since the last one, so which samples it pairs depends on
        // the history: live, since cel02 came back at 400 a round closes
        // on cel01's sample and pairs it with cel02's previous one; the
        // jump starts the rounds afresh in the window (from 400.999) and
        // pairs the samples of one second, until a status change (cel01's
        // at 650) realigns live's. Every other view is the live one.
        let (w, g) = (&want[&k], &got);
        assert_same(&w[..9], &g[..9], "jump to 700");
        assert_same(&w[10..], &g[10..], "jump to 700");
        assert_ne!(
            w[9], g[9],
            "the rounds are paired as live: update docs/recording.md"
        );
    }
}

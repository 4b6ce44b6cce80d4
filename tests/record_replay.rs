//! Record and replay through the same app: a session of the fixture host's
//! layers and two cells is recorded as it is applied to a live app, then
//! replayed into a second app built from the recording alone. At every
//! sample, every drill-down level renders the very same screen (TestBackend
//! buffers). A replayer's jump lands on the same screens as playing forward.

mod common;

use common::fidelity::{self, CELL0, CELLS, app_of, assert_same, views};
use common::{cache_sample, nfs_sample, nic_sample, sample};
use std::path::Path;
use std::time::Duration;
use strata::app::{App, Input, SelfUsage};
use strata::record::control::meta_of;
use strata::record::session::{Player, Recorder};
use strata::replay::Replayer;
use strata::source::cells::{CellEvent, CellStatus};

const T0: i64 = 1_795_000_000_000;
/// Samples: more than a minute, so the file holds several chunks and the
/// shapes of a chunk after the first are read from their own chunk.
const N: u64 = 75;

fn live_app() -> App {
    common::recorded_app()
}

fn cellcli() -> String {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/cellcli/cel01-x7-report.txt"
    );
    std::fs::read_to_string(p).unwrap()
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
                    status: CellStatus::Live,
                }),
            ));
        }
    }
    // cel02 misses samples 20..25: its row goes stale and comes back.
    for cell in 0..2 {
        if cell == 1 && (20..25).contains(&k) {
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
    let mut live = live_app();
    let mut rec = Recorder::create(path, &meta_of(&live, T0)).unwrap();
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
    use strata::record::format;
    use strata::record::session::Player;

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

//! Record and replay with live cells: two cells served by real OpenSSH
//! sshd processes on loopback (tests/sshd/mod.rs; one has the stand-in
//! cellcli), the host's layers from the fixture samples. The app is driven
//! as the live loop drives it: each input goes through the loop's
//! recording control (record, then apply) as it arrives. At every sample
//! every drill-down level is rendered; the file then replays, through the
//! Player and through the Replayer's jumps, to the very same screens.
//!
//! Without /usr/sbin/sshd the test prints SKIPPED, unless
//! STRATA_REQUIRE_SSHD=1 (scripts/test sets it as root), which turns a
//! skip into a failure.

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::sshd;

use common::fidelity::{CELL0, CELL0_DISK, CELL1, CELLS, app_of, assert_same, host_app, screens};
use common::{cache_sample, nfs_sample, nic_sample, sample};
use sshd::{Keys, Sshd, available, known_hosts, nonce, options, target};
use std::sync::Arc;
use std::time::Duration;
use strata::app::{Input, View};
use strata::core::clock::now_ms;
use strata::core::host::SelfMeter;
use strata::layers::cells::source::{CellEvent, run_cell};
use strata::recording::control::Control;
use strata::recording::session::Player;
use strata::replay::Replayer;
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout_at};
use tokio_util::sync::CancellationToken;

/// Samples, at the cells' and the app's interval.
const N: usize = 14;
const INTERVAL: Duration = Duration::from_millis(500);
/// The markers, added at these samples.
const MARKS: [(usize, &str); 2] = [(5, "ramp to 16 jobs"), (10, "back to 4 jobs")];

/// Arrival times as the loop stamps them (now_ms), but never the same
/// twice nor going back, so each input is known to fall in its sample.
struct Stamps(i64);

impl Stamps {
    fn next(&mut self) -> i64 {
        self.0 = now_ms().max(self.0 + 1);
        self.0
    }
}

/// The fixture host's layers, sampled `k` intervals in, at wall time `at`.
fn host_inputs(k: u64, at: i64) -> Vec<Input> {
    let (mut d, mut n, mut c, mut i) = (sample(k), nfs_sample(k), cache_sample(k), nic_sample(k));
    d.wall_ms = at;
    n.wall_ms = at;
    c.wall_ms = at;
    i.wall_ms = at;
    vec![
        Input::Disks(Ok(d)),
        Input::Nfs(Ok(n)),
        Input::Cache(Ok(c)),
        Input::Nics(Ok(i)),
    ]
}

/// The whole disk of a cell's sample that was read from most: the one its
/// deepest view opens.
fn busiest_disk(ev: &CellEvent) -> Option<String> {
    let CellEvent::Sample { sample, .. } = ev else {
        return None;
    };
    sample
        .devices
        .iter()
        .filter(|d| {
            sample
                .catalogue
                .get(&d.name)
                .is_some_and(|i| i.parent.is_none())
        })
        .max_by_key(|d| d.rd_ios)
        .map(|d| d.name.clone())
}

/// What the live run saw: each sample's screens and the time of its last
/// input, and the views they are of.
struct Live {
    seen: Vec<Vec<String>>,
    ends: Vec<i64>,
    views: Vec<Vec<View>>,
    labels: [String; 2],
}

async fn record_live(path: &std::path::Path) -> Live {
    let keys = Keys::new();
    let with = Sshd::start(&keys, "127.0.0.51", &keys.with_cellcli());
    let without = Sshd::start(&keys, "127.0.0.52", "");
    let kh = known_hosts(&keys, &[&with, &without]);
    let mut opts = options(&kh, INTERVAL, &nonce("fidelity"));
    opts.side_every = Duration::from_secs(1);
    let targets = vec![
        target(&with, &keys, &keys.client_key),
        target(&without, &keys, &keys.client_key),
    ];
    let labels = [targets[0].label.clone(), targets[1].label.clone()];
    let mut app = host_app(targets.clone(), INTERVAL.as_secs_f64());
    let (tx, mut rx) = mpsc::channel(256);
    let cancel = CancellationToken::new();
    let opts = Arc::new(opts);
    let tasks: Vec<_> = targets
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            tokio::spawn(run_cell(
                i,
                t,
                strata::remote::Ssh(Arc::clone(&opts)),
                tx.clone(),
                cancel.clone(),
            ))
        })
        .collect();
    drop(tx);

    let mut rec = Control::new(None);
    rec.start(&mut app, path);
    assert!(rec.is_recording(), "{:?}", app.notice);
    let mut stamps = Stamps(0);
    let mut meter = SelfMeter::default();
    let mut views = None;
    let (mut seen, mut ends) = (Vec::new(), Vec::new());
    for k in 0..N {
        let at = stamps.next();
        for input in host_inputs(k as u64, at) {
            rec.feed_at(&mut app, at, input);
        }
        // The cells' events as they come, until each cell has sent this
        // interval's sample (the first waits for the logins).
        let within = if k == 0 { 20 } else { 5 };
        let until = Instant::now() + Duration::from_secs(within);
        let mut sampled = [false; 2];
        while !sampled.iter().all(|s| *s) {
            let Ok(Some(ev)) = timeout_at(until, rx.recv()).await else {
                panic!(
                    "sample {k}: cells sampled {sampled:?} within {within} s\n{}\n{}",
                    with.log_text(),
                    without.log_text()
                );
            };
            if let CellEvent::Sample { cell, .. } = &ev {
                sampled[*cell] = true;
            }
            if views.is_none() && ev.cell() == 0 {
                views = busiest_disk(&ev).map(|d| common::fidelity::views(&d));
            }
            rec.feed_at(&mut app, stamps.next(), Input::Cell(ev));
        }
        if let Some((_, label)) = MARKS.iter().find(|(at, _)| *at == k) {
            let wall_ms = stamps.next();
            let label = label.to_string();
            rec.feed_at(&mut app, wall_ms, Input::Marker { wall_ms, label });
        }
        let now = stamps.next();
        let usage = meter.read();
        rec.feed_at(&mut app, now, Input::Clock { now_ms: now, usage });
        ends.push(now);
        let views = views.as_ref().expect("cell 0 sent a sample");
        seen.push(screens(&mut app, views));
    }
    cancel.cancel();
    for task in tasks {
        tokio::time::timeout(Duration::from_secs(3), task)
            .await
            .expect("run_cell returns promptly after cancel")
            .expect("run_cell does not panic");
    }
    rec.finish(&mut app).unwrap();
    Live {
        seen,
        ends,
        views: views.expect("views"),
        labels,
    }
}

/// The number of each cell's inputs of a kind in a recording.
fn count(path: &std::path::Path, kind: fn(&CellEvent) -> bool) -> [usize; 2] {
    let mut player = Player::open(path).expect("open");
    let mut n = [0; 2];
    while let Some((_, input)) = player.next_input() {
        if let Input::Cell(ev) = input
            && kind(&ev)
        {
            n[ev.cell()] += 1;
        }
    }
    n
}

#[tokio::test]
async fn live_cells_replay_to_the_screens_the_live_run_rendered() {
    if !available("live_cells_replay_to_the_screens_the_live_run_rendered") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("live.strec");
    let live = record_live(&path).await;
    let last = &live.seen[N - 1];
    println!("the last sample's cells:\n{}", last[CELLS]);
    println!("cell 0:\n{}", last[CELL0]);

    // Played forward: each sample's inputs, then its screens.
    let mut player = Player::open(&path).expect("open");
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let labels: Vec<&str> = player.markers().iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(labels, MARKS.map(|(_, l)| l));
    let mut app = app_of(&player.meta);
    for (k, want) in live.seen.iter().enumerate() {
        while player.peek_time().is_some_and(|t| t <= live.ends[k]) {
            let (_, input) = player.next_input().expect("the input peeked at");
            app.apply(input);
        }
        assert_same(
            want,
            &screens(&mut app, &live.views),
            &format!("sample {k}"),
        );
    }
    assert!(
        player.next_input().is_none(),
        "no input after the last sample"
    );

    // Jumps: back and forth, each rebuilding from the file.
    let player = Player::open(&path).expect("open");
    let mut app = app_of(&player.meta);
    let mut r = Replayer::new(player, &mut app, &path);
    for k in [N - 1, 3, 9, 0, 6] {
        r.seek(&mut app, live.ends[k]);
        let got = screens(&mut app, &live.views);
        assert_same(&live.seen[k], &got, &format!("a jump to sample {k}"));
    }

    // What was compared is live cells' figures, not empty frames: both
    // cells live, cell 0's disk opened, cellcli from cell 0 only, and the
    // cells' screens moving on from sample to sample.
    for label in &live.labels {
        let row = last[CELLS]
            .lines()
            .find(|l| l.contains(&format!("│{label} ")))
            .unwrap_or_default();
        assert!(row.contains(" live "), "{label}: {row}\n{}", last[CELLS]);
    }
    let View::CellDisk(_, disk) = &live.views[CELL0_DISK][2] else {
        panic!("the deepest view is a cell's disk");
    };
    assert!(
        last[CELL0_DISK].contains(disk.as_str()),
        "{}",
        last[CELL0_DISK]
    );
    assert_ne!(live.seen[1][CELL0], last[CELL0]);
    assert_ne!(live.seen[1][CELL1], last[CELL1]);
    let samples = count(&path, |e| matches!(e, CellEvent::Sample { .. }));
    let cellcli = count(&path, |e| matches!(e, CellEvent::Cellcli { .. }));
    println!("recorded: samples {samples:?}, cellcli {cellcli:?}");
    assert!(samples.iter().all(|n| *n >= N), "{samples:?}");
    assert!(cellcli[0] >= 2 && cellcli[1] == 0, "{cellcli:?}");
}

/// Not a check: two cells for scripts/make-demo-recording, served as the
/// test above serves them (cel01 has the stand-in cellcli), until the file
/// DIR/stop appears or 15 minutes have passed. Writes DIR/cells.toml (the
/// two `[[cell]]` entries) and DIR/known_hosts, then DIR/ready. Run as
/// `STRATA_DEMO_CELLS=DIR cargo test --test recordings -- --ignored
/// --exact cells_live::serve_demo_cells`.
#[test]
#[ignore = "serves cells for scripts/make-demo-recording"]
fn serve_demo_cells() {
    let Some(dir) = std::env::var_os("STRATA_DEMO_CELLS").map(std::path::PathBuf::from) else {
        println!("STRATA_DEMO_CELLS=DIR names where the cells' config goes");
        return;
    };
    if !available("serve_demo_cells") {
        return;
    }
    let keys = Keys::new();
    // make-demo-recording's stand-in names this machine's disks
    let cellcli = match std::env::var_os("STRATA_DEMO_CELLCLI") {
        Some(path) => keys.with_cellcli_from(std::path::Path::new(&path)),
        None => keys.with_cellcli(),
    };
    let cells = [
        ("cel01", Sshd::start(&keys, "127.0.0.61", &cellcli)),
        ("cel02", Sshd::start(&keys, "127.0.0.62", "")),
    ];
    let kh = known_hosts(&keys, &[&cells[0].1, &cells[1].1]);
    std::fs::copy(&kh, dir.join("known_hosts")).expect("copy known_hosts");
    let identity = dir.join("id_ed25519");
    std::fs::copy(&keys.client_key, &identity).expect("copy the key");
    let toml: String = cells
        .iter()
        .map(|(label, s)| {
            format!(
                "[[cell]]\nhost = \"{}\"\nport = {}\nuser = \"{}\"\nidentity_file = \"{}\"\nlabel = \"{label}\"\n",
                s.ip,
                s.port,
                keys.user,
                identity.display()
            )
        })
        .collect();
    std::fs::write(dir.join("cells.toml"), toml).expect("write cells.toml");
    std::fs::write(dir.join("ready"), "").expect("write ready");
    let until = std::time::Instant::now() + Duration::from_secs(15 * 60);
    while !dir.join("stop").exists() && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
    }
}

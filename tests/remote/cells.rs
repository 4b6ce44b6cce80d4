//! Cells over SSH against real OpenSSH sshd processes on loopback (the
//! harness is tests/sshd/mod.rs). The cells are this machine, so what they
//! stream can be checked against the local /proc and /sys.
//!
//! Without /usr/sbin/sshd the tests print SKIPPED, unless
//! STRATA_REQUIRE_SSHD=1 (scripts/test sets it as root), which turns a
//! skip into a failure.

#![allow(
    unsafe_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::too_many_lines
)]

use crate::peer_tools;
use crate::sshd;

use sshd::{Keys, PASSPHRASE, Sshd, available, known_hosts, nonce, options, pgrep, target};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use strata::core::rootfs::RootFs;
use strata::core::uptime::parse_uptime_cs;
use strata::layers::cells::cell_stream::parse_sample;
use strata::layers::cells::source::{CellEvent, remote, run_cell};
use strata::layers::disks::diskstats::parse_diskstats;
use strata::layers::disks::source::DiskSource;
use strata::link::frame::{FrameKind, FrameReader};
use strata::link::{HostKeyError, HostStatus, HostTarget, LoginError, Unreachable};
use strata::remote::{Ssh, SshOptions};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The cells of one test and every event they sent, stamped on receipt.
struct Cells {
    rx: mpsc::Receiver<CellEvent>,
    cancel: CancellationToken,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    start: Instant,
    log: Vec<(Duration, CellEvent)>,
}

fn cell_of(ev: &CellEvent) -> usize {
    match ev {
        CellEvent::Status { cell, .. }
        | CellEvent::Rtt { cell, .. }
        | CellEvent::Sample { cell, .. }
        | CellEvent::Cellcli { cell, .. }
        | CellEvent::Stderr { cell, .. } => *cell,
    }
}

fn status_of(ev: &CellEvent, which: usize) -> Option<&HostStatus> {
    match ev {
        CellEvent::Status { cell, status } if *cell == which => Some(status),
        _ => None,
    }
}

fn is_sample(ev: &CellEvent, which: usize) -> bool {
    matches!(ev, CellEvent::Sample { cell, .. } if *cell == which)
}

impl Cells {
    fn start(targets: Vec<HostTarget>, opts: SshOptions) -> Cells {
        Self::start_each(targets.into_iter().map(|t| (t, opts.clone())).collect())
    }

    fn start_each(cells: Vec<(HostTarget, SshOptions)>) -> Cells {
        let (tx, rx) = mpsc::channel(256);
        let cancel = CancellationToken::new();
        let tasks = cells
            .into_iter()
            .enumerate()
            .map(|(i, (t, o))| {
                tokio::spawn(run_cell(i, t, Ssh(Arc::new(o)), tx.clone(), cancel.clone()))
            })
            .collect();
        Cells {
            rx,
            cancel,
            tasks,
            start: Instant::now(),
            log: Vec::new(),
        }
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    /// Records events until `pred` holds for one (returned with its time)
    /// or `within` has passed.
    async fn wait_for(
        &mut self,
        within: Duration,
        mut pred: impl FnMut(&CellEvent) -> bool,
    ) -> Option<(Duration, CellEvent)> {
        let until = tokio::time::Instant::now() + within;
        loop {
            let ev = tokio::time::timeout_at(until, self.rx.recv())
                .await
                .ok()??;
            let at = self.now();
            self.log.push((at, ev.clone()));
            if pred(&ev) {
                return Some((at, ev));
            }
        }
    }

    /// Like wait_for, but an event already recorded (while waiting for
    /// another cell) counts too.
    async fn seen_or_wait(
        &mut self,
        within: Duration,
        mut pred: impl FnMut(&CellEvent) -> bool,
    ) -> Option<(Duration, CellEvent)> {
        if let Some(hit) = self.log.iter().find(|(_, e)| pred(e)) {
            return Some(hit.clone());
        }
        self.wait_for(within, pred).await
    }

    /// The first status of a cell other than Connecting.
    async fn outcome(&mut self, cell: usize, within: Duration) -> Option<HostStatus> {
        let (_, ev) = self
            .seen_or_wait(
                within,
                |e| matches!(status_of(e, cell), Some(s) if *s != HostStatus::Connecting),
            )
            .await?;
        status_of(&ev, cell).cloned()
    }

    /// Records everything for `d`.
    async fn run_for(&mut self, d: Duration) {
        let _ = self.wait_for(d, |_| false).await;
    }

    async fn samples(
        &mut self,
        cell: usize,
        n: usize,
        within: Duration,
    ) -> Vec<(Duration, CellEvent)> {
        let until = Instant::now() + within;
        while self.log.iter().filter(|(_, e)| is_sample(e, cell)).count() < n {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() || self.wait_for(left, |e| is_sample(e, cell)).await.is_none() {
                break;
            }
        }
        self.log
            .iter()
            .filter(|(_, e)| is_sample(e, cell))
            .cloned()
            .collect()
    }

    fn statuses(&self, cell: usize) -> Vec<HostStatus> {
        self.log
            .iter()
            .filter_map(|(_, e)| status_of(e, cell).cloned())
            .collect()
    }

    /// Cancels and waits (bounded) for every task to return.
    async fn stop(self) -> Duration {
        let t = Instant::now();
        self.cancel.cancel();
        for task in self.tasks {
            tokio::time::timeout(Duration::from_secs(2), task)
                .await
                .expect("run_cell returns promptly after cancel")
                .expect("run_cell does not panic");
        }
        t.elapsed()
    }
}

fn local_uptime_cs() -> u64 {
    let text = std::fs::read_to_string("/proc/uptime").expect("/proc/uptime");
    parse_uptime_cs(&text, "/proc/uptime").expect("uptime")
}

/// Fails with the sshd logs, which say why a login went wrong.
fn logs(sshds: &[&Sshd]) -> String {
    sshds
        .iter()
        .map(|s| s.log_text())
        .collect::<Vec<_>>()
        .join("\n---\n")
}

/// Keys, one sshd on `ip` and a known_hosts naming it; None when the test
/// is skipped.
fn one_sshd(test: &str, ip: &str) -> Option<(Keys, Sshd, PathBuf)> {
    if !available(test) {
        return None;
    }
    let keys = Keys::new();
    let sshd = Sshd::start(&keys, ip, "");
    let kh = known_hosts(&keys, &[&sshd]);
    Some((keys, sshd, kh))
}

#[tokio::test]
async fn three_cells_stream_this_machines_disks() {
    if !available("three_cells_stream_this_machines_disks") {
        return;
    }
    let keys = Keys::new();
    let sshds: Vec<Sshd> = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
        .iter()
        .map(|ip| Sshd::start(&keys, ip, ""))
        .collect();
    let refs: Vec<&Sshd> = sshds.iter().collect();
    let kh = known_hosts(&keys, &refs);
    let interval = Duration::from_millis(300);
    let targets = sshds
        .iter()
        .map(|s| target(s, &keys, &keys.client_key))
        .collect();
    let mut cells = Cells::start(targets, options(&kh, interval, &nonce("three")));
    for c in 0..3 {
        let got = cells.samples(c, 5, Duration::from_secs(15)).await;
        assert!(
            got.len() >= 5,
            "cell {c}: {} samples\n{}",
            got.len(),
            logs(&refs)
        );
    }
    let local_names: Vec<String> = {
        let text = std::fs::read_to_string("/proc/diskstats").expect("diskstats");
        parse_diskstats(&text, "/proc/diskstats")
            .items
            .into_iter()
            .map(|d| d.name)
            .collect()
    };
    let local_cat = DiskSource::new(RootFs::new("/"))
        .sample(0)
        .expect("local sample")
        .catalogue;
    let uptime_after = local_uptime_cs();
    for c in 0..3 {
        let statuses = cells.statuses(c);
        assert_eq!(
            statuses[..2],
            [HostStatus::Connecting, HostStatus::Live],
            "cell {c}"
        );
        let samples: Vec<_> = cells
            .log
            .iter()
            .filter_map(|(_, e)| match e {
                CellEvent::Sample { cell, sample } if *cell == c => Some(sample.clone()),
                _ => None,
            })
            .collect();
        // The first sample is asked for at connect, the next ones at each
        // multiple of 0.300 s on the wall clock: after the first (partial)
        // step, each step of the cell's clock is 30 cs, give or take the
        // centisecond the two reads fall across (more on a loaded machine,
        // hence the slack from 25 to 35).
        let steps: Vec<u64> = samples
            .windows(2)
            .skip(1)
            .map(|w| w[1].uptime_cs - w[0].uptime_cs)
            .collect();
        println!("cell {c}: uptime steps {steps:?} cs");
        assert!(
            steps.iter().all(|s| (25..=35).contains(s)),
            "cell {c}: {steps:?}"
        );
        // Arrival just after a boundary: 0.300 s divides the epoch's
        // seconds, so a sample asked for at a boundary arrives a few ms
        // past a multiple of 300 ms.
        let late: Vec<i64> = samples.iter().skip(1).map(|s| s.wall_ms % 300).collect();
        println!("cell {c}: arrivals {late:?} ms past a boundary");
        assert!(late.iter().all(|ms| *ms < 100), "cell {c}: {late:?}");
        let last = samples.last().expect("a sample");
        // The cell is this machine: its clock is ours, read before now.
        assert!(last.uptime_cs <= uptime_after && last.uptime_cs + 200 > uptime_after);
        let names: Vec<String> = last.devices.iter().map(|d| d.name.clone()).collect();
        assert_eq!(names, local_names, "cell {c}");
        assert!(last.rejected.is_empty(), "{:?}", last.rejected);
        let mut whole = 0;
        for (name, info) in local_cat.iter().filter(|(_, i)| i.parent.is_none()) {
            let remote = last
                .catalogue
                .get(name)
                .unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(remote.class, info.class, "{name}");
            assert_eq!(remote.size_bytes, info.size_bytes, "{name}");
            assert_eq!(remote.model, info.model, "{name}");
            whole += 1;
        }
        assert!(whole > 0);
        let rtts: Vec<Duration> = cells
            .log
            .iter()
            .filter_map(|(_, e)| match e {
                CellEvent::Rtt { cell, rtt } if *cell == c => Some(*rtt),
                _ => None,
            })
            .collect();
        println!("cell {c}: {} whole disks alike, RTT {rtts:?}", whole);
        assert!(!rtts.is_empty() && rtts.iter().all(|r| *r < Duration::from_millis(500)));
    }
    // The three cells sample together: at each boundary that all three
    // served, their clocks (one machine's) read within 2 cs of each other.
    // Each cell's first sample, asked for at connect, is not on a boundary.
    let mut at: std::collections::BTreeMap<i64, Vec<u64>> = Default::default();
    let mut seen = [0; 3];
    for (_, e) in &cells.log {
        if let CellEvent::Sample { cell, sample } = e {
            seen[*cell] += 1;
            if seen[*cell] == 1 {
                continue;
            }
            at.entry(sample.wall_ms / 300)
                .or_default()
                .push(sample.uptime_cs);
        }
    }
    let spreads: Vec<u64> = at
        .values()
        .filter(|v| v.len() == 3)
        .map(|v| v.iter().max().unwrap() - v.iter().min().unwrap())
        .collect();
    println!("spread of the 3 cells' clocks per boundary: {spreads:?} cs");
    assert!(spreads.len() >= 3, "{at:?}");
    assert!(spreads.iter().all(|s| *s <= 2), "{spreads:?}");
    cells.stop().await;
}

#[tokio::test]
async fn a_killed_cell_goes_stale_and_comes_back_by_itself() {
    let Some((keys, mut sshd, kh)) = one_sshd(
        "a_killed_cell_goes_stale_and_comes_back_by_itself",
        "127.0.0.7",
    ) else {
        return;
    };
    let interval = Duration::from_millis(300);
    let opts = options(&kh, interval, &nonce("killed"));
    let mut cells = Cells::start(vec![target(&sshd, &keys, &keys.client_key)], opts);
    assert!(
        cells.samples(0, 3, Duration::from_secs(10)).await.len() >= 3,
        "{}",
        sshd.log_text()
    );
    let killed_at = cells.now();
    sshd.kill_all();
    let (t, ev) = cells
        .wait_for(
            Duration::from_secs(3),
            |e| matches!(status_of(e, 0), Some(s) if *s != HostStatus::Live),
        )
        .await
        .expect("a status after the kill");
    let stale_after = t - killed_at;
    println!("non-live after {stale_after:?}: {ev:?}");
    assert!(stale_after <= 2 * interval, "{stale_after:?}");
    assert!(matches!(
        status_of(&ev, 0),
        Some(HostStatus::Unreachable(_))
    ));
    // The cell retries against a closed port for a while.
    cells.run_for(Duration::from_millis(800)).await;
    assert!(
        !cells
            .log
            .iter()
            .any(|(t, e)| *t > killed_at && is_sample(e, 0))
    );
    sshd.restart();
    let restarted = cells.now();
    let (live, _) = cells
        .wait_for(Duration::from_secs(5), |e| {
            status_of(e, 0) == Some(&HostStatus::Live)
        })
        .await
        .expect("live again");
    let (first, _) = cells
        .wait_for(Duration::from_secs(5), |e| is_sample(e, 0))
        .await
        .expect("samples again");
    println!(
        "live again {:?} after sshd came back, first sample after {:?}",
        live - restarted,
        first - restarted
    );
    // backoff cap 0.4 s + handshake + the first frame
    assert!(
        first - restarted < Duration::from_secs(2),
        "{:?}",
        first - restarted
    );
    cells.stop().await;
}

#[tokio::test]
async fn a_hung_cell_is_dropped_and_reconnected() {
    let Some((keys, sshd, kh)) = one_sshd("a_hung_cell_is_dropped_and_reconnected", "127.0.0.16")
    else {
        return;
    };
    let interval = Duration::from_millis(300);
    let opts = options(&kh, interval, &nonce("hung"));
    let mut cells = Cells::start(vec![target(&sshd, &keys, &keys.client_key)], opts);
    assert!(cells.samples(0, 2, Duration::from_secs(10)).await.len() >= 2);
    let last_sample = cells
        .log
        .iter()
        .rev()
        .find(|(_, e)| is_sample(e, 0))
        .map(|(t, _)| *t);
    assert!(sshd.stop_sessions() >= 1);
    let (t, ev) = cells
        .wait_for(Duration::from_secs(5), |e| {
            matches!(status_of(e, 0), Some(HostStatus::Unreachable(_)))
        })
        .await
        .expect("the hung cell is given up");
    assert!(
        matches!(
            status_of(&ev, 0),
            Some(HostStatus::Unreachable(Unreachable::Silent { .. }))
        ),
        "{ev:?}"
    );
    let silent = t - last_sample.unwrap_or_default();
    println!("hung: {ev:?} {silent:?} after the last sample");
    // two intervals and a second of slack, then the connection is dropped
    assert!(
        silent >= 2 * interval + Duration::from_secs(1) - interval
            && silent < 2 * interval + Duration::from_secs(1) + interval,
        "{silent:?}"
    );
    let said = status_of(&ev, 0)
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(said.contains("no sample for"), "{said}");
    // The listener still answers: a new connection streams again.
    let (back, _) = cells
        .wait_for(Duration::from_secs(5), |e| {
            status_of(e, 0) == Some(&HostStatus::Live)
        })
        .await
        .expect("live again");
    println!("hung: live again {:?} after it was given up", back - t);
    assert!(cells.samples(0, 4, Duration::from_secs(5)).await.len() >= 4);
    cells.stop().await;
}

#[tokio::test]
async fn host_keys_unknown_changed_hashed_and_accept_new() {
    if !available("host_keys_unknown_changed_hashed_and_accept_new") {
        return;
    }
    let keys = Keys::new();
    let sshd = Sshd::start(&keys, "127.0.0.8", "");
    let interval = Duration::from_millis(300);
    let host = format!("[{}]:{}", sshd.ip, sshd.port);
    let fp = Keys::fingerprint(&keys.host_key);
    let ours = Keys::public(&keys.host_key);
    let other = Keys::public(&keys.other_host_key);
    let write = |name: &str, text: &str| {
        let p = keys.path(&nonce(name));
        std::fs::write(&p, text).expect("write");
        p
    };
    let empty = write("empty", "");
    let changed = write("changed", &format!("# cells\n\n{host} {other}\n"));
    let plain = write("plain", &format!("{host} {ours}\n"));
    let hashed = write("hashed", &format!("{host} {ours}\n"));
    let out = Command::new("ssh-keygen")
        .arg("-H")
        .arg("-f")
        .arg(&hashed)
        .output()
        .expect("ssh-keygen -H");
    assert!(out.status.success());
    let hashed_text = std::fs::read_to_string(&hashed).expect("read");
    assert!(
        hashed_text.starts_with("|1|") && !hashed_text.contains("127.0.0"),
        "{hashed_text}"
    );
    let learn = write("learn", "");
    let learn_changed = write("learn_changed", &format!("{host} {other}\n"));
    let cases = [
        (&empty, false),
        (&changed, false),
        (&plain, false),
        (&hashed, false),
        (&learn, true),
        (&learn_changed, true),
    ];
    let cells_opts = cases
        .iter()
        .map(|(kh, accept)| {
            let mut o = options(kh, interval, &nonce("hostkey"));
            o.accept_new_host_keys = *accept;
            (target(&sshd, &keys, &keys.client_key), o)
        })
        .collect();
    let mut cells = Cells::start_each(cells_opts);
    let mut outcome = Vec::new();
    for c in 0..cases.len() {
        let s = cells.outcome(c, Duration::from_secs(8)).await;
        outcome.push(s.unwrap_or_else(|| panic!("cell {c}: no status\n{}", sshd.log_text())));
    }
    for (c, s) in outcome.iter().enumerate() {
        println!("case {c}: {s:?}");
    }
    let refused = |s: &HostStatus| match s {
        HostStatus::HostKeyRefused(r) => r.clone(),
        other => panic!("expected a refusal, got {other:?}"),
    };
    let r = refused(&outcome[0]);
    assert!(
        matches!(&r, HostKeyError::Unknown { port, .. } if *port == sshd.port),
        "{r:?}"
    );
    let r = r.to_string();
    for part in [
        &fp,
        "ssh-ed25519",
        &sshd.port.to_string(),
        &sshd.ip,
        &empty.display().to_string(),
    ] {
        assert!(r.contains(part), "{part:?} not in {r}");
    }
    let r = refused(&outcome[1]);
    assert!(matches!(r, HostKeyError::Changed { line: 3, .. }), "{r:?}");
    let r = r.to_string();
    assert!(
        r.contains("CHANGED") && r.contains("line 3") && r.contains(&fp),
        "{r}"
    );
    assert_eq!(outcome[2], HostStatus::Live);
    assert_eq!(outcome[3], HostStatus::Live);
    assert_eq!(outcome[4], HostStatus::Live);
    let learned = std::fs::read_to_string(&learn).expect("read");
    assert!(learned.contains(&format!("{host} {ours}")), "{learned:?}");
    let r = refused(&outcome[5]);
    assert!(matches!(r, HostKeyError::Changed { line: 1, .. }), "{r:?}");
    assert!(r.to_string().contains("line 1"), "{r}");
    assert_eq!(
        std::fs::read_to_string(&learn_changed).expect("read"),
        format!("{host} {other}\n"),
        "a changed key is not learned"
    );
    cells.stop().await;
}

/// Accepts TCP connections and never says a word, for a bounded time.
fn silent_listener(ip: &str, for_at_most: Duration) -> (u16, std::thread::JoinHandle<usize>) {
    let l = std::net::TcpListener::bind((ip, 0)).expect("bind");
    let port = l.local_addr().expect("addr").port();
    l.set_nonblocking(true).expect("nonblocking");
    let h = std::thread::spawn(move || {
        let start = Instant::now();
        let mut held = Vec::new();
        while start.elapsed() < for_at_most {
            match l.accept() {
                Ok((s, _)) => held.push(s),
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        held.len()
    });
    (port, h)
}

#[tokio::test]
async fn a_silent_listener_does_not_delay_the_other_cells() {
    if !available("a_silent_listener_does_not_delay_the_other_cells") {
        return;
    }
    let keys = Keys::new();
    let sshd = Sshd::start(&keys, "127.0.0.9", "");
    let (silent_port, silent) = silent_listener("127.0.0.10", Duration::from_secs(6));
    let kh = known_hosts(&keys, &[&sshd]);
    let interval = Duration::from_millis(250);
    let mut opts = options(&kh, interval, &nonce("silent"));
    opts.connect_timeout = Duration::from_secs(1);
    let mut mute = target(&sshd, &keys, &keys.client_key);
    mute.host = "127.0.0.10".into();
    mute.port = silent_port;
    let mut cells = Cells::start(vec![mute, target(&sshd, &keys, &keys.client_key)], opts);
    let (refused_at, ev) = cells
        .wait_for(Duration::from_secs(4), |e| {
            matches!(status_of(e, 0), Some(HostStatus::Unreachable(_)))
        })
        .await
        .expect("the silent cell is unreachable");
    assert!(
        matches!(
            status_of(&ev, 0),
            Some(HostStatus::Unreachable(
                Unreachable::HandshakeTimedOut { .. }
            ))
        ),
        "{ev:?}"
    );
    println!("silent cell: {ev:?} after {refused_at:?}");
    assert!(
        refused_at >= Duration::from_secs(1) && refused_at < Duration::from_millis(1600),
        "{refused_at:?}"
    );
    let said = status_of(&ev, 0)
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(said.contains("no SSH handshake"), "{said}");
    cells.run_for(Duration::from_secs(2)).await;
    let times: Vec<Duration> = cells
        .log
        .iter()
        .filter(|(_, e)| is_sample(e, 1))
        .map(|(t, _)| *t)
        .collect();
    let gaps: Vec<u128> = times
        .windows(2)
        .map(|w| (w[1] - w[0]).as_millis())
        .collect();
    let max_gap = gaps.iter().max().copied().unwrap_or(u128::MAX);
    println!(
        "other cell: {} samples in {:?}, max gap {max_gap} ms: {gaps:?}",
        times.len(),
        cells.now()
    );
    assert!(times.len() >= 10, "{}", times.len());
    // 250 ms apart on the cell. Waiting on the silent cell's 1 s connect
    // timeout would show as a gap of a second; allow two intervals.
    assert!(max_gap < 500, "{gaps:?}");
    cells.stop().await;
    assert!(silent.join().expect("listener thread") >= 1);
}

#[tokio::test]
async fn wrong_user_wrong_key_and_encrypted_keys() {
    let Some((keys, sshd, kh)) = one_sshd("wrong_user_wrong_key_and_encrypted_keys", "127.0.0.11")
    else {
        return;
    };
    let interval = Duration::from_millis(300);
    let batch = options(&kh, interval, &nonce("auth"));
    let mut interactive = batch.clone();
    interactive.interactive = true;
    // A store of its own: in one strata every host is batch or every one
    // interactive, and a batch cell retrying with the passphrase typed for
    // cell 3 would go live (once under load it did).
    interactive.passphrases = strata::link::PassphraseStore::new();
    let mut wrong_user = target(&sshd, &keys, &keys.client_key);
    wrong_user.user = "strata-no-such-user".into();
    let mut cells = Cells::start_each(vec![
        (wrong_user, batch.clone()),
        (target(&sshd, &keys, &keys.stranger_key), batch.clone()),
        (target(&sshd, &keys, &keys.encrypted_key), batch.clone()),
        (
            target(&sshd, &keys, &keys.encrypted_key),
            interactive.clone(),
        ),
    ]);
    let mut first = Vec::new();
    for c in 0..4 {
        let s = cells.outcome(c, Duration::from_secs(15)).await;
        let s = s.unwrap_or_else(|| panic!("cell {c}: no status\n{}", sshd.log_text()));
        println!("cell {c}: {s:?}");
        first.push(s);
    }
    let failed = |s: &HostStatus| match s {
        HostStatus::AuthFailed(m) => m.clone(),
        other => panic!("expected auth failed, got {other:?}"),
    };
    assert!(
        matches!(failed(&first[0]), LoginError::NoKeyAccepted { user, .. } if user == "strata-no-such-user")
    );
    assert!(matches!(
        failed(&first[1]),
        LoginError::NoKeyAccepted { .. }
    ));
    assert!(failed(&first[1]).to_string().contains("refused"));
    assert_eq!(
        failed(&first[2]),
        LoginError::Encrypted {
            identity: keys.encrypted_key.clone()
        }
    );
    let m = failed(&first[2]).to_string();
    assert!(m.contains("is encrypted") && m.contains("ssh-add"), "{m}");
    assert!(m.contains(&keys.encrypted_key.display().to_string()), "{m}");
    assert_eq!(
        first[3],
        HostStatus::NeedsPassphrase(keys.encrypted_key.clone())
    );
    // A wrong passphrase is said, forgotten and asked for again.
    interactive
        .passphrases
        .insert(keys.encrypted_key.clone(), "not the passphrase");
    let (_, said) = cells
        .wait_for(Duration::from_secs(15), |e| {
            matches!(e, CellEvent::Stderr { cell: 3, .. })
        })
        .await
        .expect("the wrong passphrase is said");
    assert!(
        format!("{said:?}").contains("wrong passphrase for identity file"),
        "{said:?}"
    );
    let (_, again) = cells
        .wait_for(Duration::from_secs(5), |e| status_of(e, 3).is_some())
        .await
        .expect("asked again");
    assert_eq!(
        status_of(&again, 3),
        Some(&HostStatus::NeedsPassphrase(keys.encrypted_key.clone()))
    );
    assert_eq!(interactive.passphrases.get(&keys.encrypted_key), None);
    let asked = cells.now();
    interactive
        .passphrases
        .insert(keys.encrypted_key.clone(), PASSPHRASE);
    let (live, _) = cells
        .wait_for(Duration::from_secs(15), |e| {
            status_of(e, 3) == Some(&HostStatus::Live)
        })
        .await
        .unwrap_or_else(|| panic!("live with the passphrase\n{}", sshd.log_text()));
    println!("live {:?} after the passphrase was given", live - asked);
    assert!(cells.samples(3, 1, Duration::from_secs(5)).await.len() == 1);
    // The failed cells keep their status: no Live for them.
    for c in 0..3 {
        assert!(!cells.statuses(c).contains(&HostStatus::Live), "cell {c}");
    }
    cells.stop().await;
}

#[tokio::test]
async fn a_refused_login_is_retried_at_the_slowest_pace() {
    let Some((keys, sshd, kh)) = one_sshd(
        "a_refused_login_is_retried_at_the_slowest_pace",
        "127.0.0.17",
    ) else {
        return;
    };
    let mut opts = options(&kh, Duration::from_millis(300), &nonce("slow"));
    opts.backoff_first = Duration::from_millis(100);
    opts.backoff_cap = Duration::from_millis(1500);
    let mut t = target(&sshd, &keys, &keys.client_key);
    t.user = "strata-retried-slowly".into();
    let mut cells = Cells::start(vec![t], opts);
    cells.run_for(Duration::from_millis(2500)).await;
    let statuses = cells.statuses(0);
    cells.stop().await;
    let attempts = sshd
        .log_text()
        .matches("Invalid user strata-retried-slowly")
        .count();
    // At the cap, waits are 0.75..1.5 s: at most 4 logins in 2.5 s. The
    // ramp from 0.1 s (0.05..0.1, 0.1..0.2, 0.2..0.4, 0.4..0.8, ...)
    // would make at least 5.
    println!("refused login: {attempts} attempts in 2.5 s");
    assert!(
        (2..=4).contains(&attempts),
        "{attempts}: {statuses:?}\n{}",
        sshd.log_text()
    );
    assert_eq!(
        statuses.len(),
        2,
        "Connecting, then AuthFailed once: {statuses:?}"
    );
}

#[tokio::test]
async fn an_agent_key_logs_in() {
    let Some((keys, sshd, kh)) = one_sshd("an_agent_key_logs_in", "127.0.0.12") else {
        return;
    };
    let sock = keys.path("agent.sock");
    let mut agent = Command::new("ssh-agent")
        .arg("-D")
        .arg("-a")
        .arg(&sock)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("ssh-agent");
    for _ in 0..100 {
        if sock.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let added = Command::new("ssh-add")
        .arg(&keys.client_key)
        .env("SSH_AUTH_SOCK", &sock)
        .output()
        .expect("ssh-add");
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let mut opts = options(&kh, Duration::from_millis(300), &nonce("agent"));
    opts.agent_socket = Some(sock.clone());
    // The file alone would be refused: only the agent's key can log in.
    let mut cells = Cells::start(vec![target(&sshd, &keys, &keys.stranger_key)], opts);
    let got = cells.outcome(0, Duration::from_secs(10)).await;
    let _ = agent.kill();
    let _ = agent.wait();
    assert_eq!(got, Some(HostStatus::Live), "{}", sshd.log_text());
    cells.stop().await;
}

/// Polls pgrep until nothing matches (bounded); returns how long it took.
async fn gone_within(pattern: &str, bound: Duration) -> Result<Duration, Vec<u32>> {
    let t = Instant::now();
    loop {
        let left = pgrep(pattern);
        if left.is_empty() {
            return Ok(t.elapsed());
        }
        if t.elapsed() > bound {
            return Err(left);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A process is gone once it has exited: a zombie counts, as its parent
/// (here init, which in a container may never reap it) holds only its
/// exit status.
fn running(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rfind(')')
        .and_then(|i| stat[i + 1..].split_whitespace().next());
    matches!(state, Some(s) if s != "Z" && s != "X")
}

async fn pid_gone_within(pid: u32, bound: Duration) -> Option<Duration> {
    let t = Instant::now();
    while running(pid) {
        if t.elapsed() > bound {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    Some(t.elapsed())
}

#[tokio::test]
async fn no_sampler_is_left_behind() {
    let Some((keys, sshd, kh)) = one_sshd("no_sampler_is_left_behind", "127.0.0.13") else {
        return;
    };
    let interval = Duration::from_millis(300);
    let bound = 2 * interval + Duration::from_secs(1);

    // A cell streaming, and the one sampler pgrep finds for it.
    let stream = |what: &str| {
        let tag = nonce(what);
        let cells = Cells::start(
            vec![target(&sshd, &keys, &keys.client_key)],
            options(&kh, interval, &tag),
        );
        (
            cells,
            format!("{}-{tag}", strata::link::sampler::SAMPLER_MARKER),
        )
    };
    async fn sampler(cells: &mut Cells, marker: &str) -> u32 {
        assert_eq!(cells.samples(0, 2, Duration::from_secs(10)).await.len(), 2);
        let running = pgrep(marker);
        assert_eq!(running.len(), 1, "one sampler runs: {running:?}");
        running[0]
    }

    // strata quits
    let (mut cells, marker) = stream("quit");
    sampler(&mut cells, &marker).await;
    let returned = cells.stop().await;
    let took = gone_within(&marker, bound).await;
    println!("quit: run_cell returned in {returned:?}, sampler gone after {took:?}");
    assert!(returned < Duration::from_millis(500));
    assert!(took.is_ok(), "left behind: {took:?}");

    // the channel is cut: the sessions' sshd processes die, not the sampler
    let (mut cells, marker) = stream("cut");
    let pid = sampler(&mut cells, &marker).await;
    let killed = sshd.kill_sessions();
    assert!(killed >= 1);
    let took = pid_gone_within(pid, bound).await;
    println!("cut: {killed} sshd processes killed, the sampler gone after {took:?}");
    // The cell reconnects to the listener that still runs and a new
    // sampler starts under the same marker; the old one must be gone.
    assert!(took.is_some(), "sampler {pid} outlived its channel");
    assert!(cells.samples(0, 4, Duration::from_secs(10)).await.len() >= 4);
    cells.stop().await;
    assert!(gone_within(&marker, bound).await.is_ok());
}

#[tokio::test]
async fn cellcli_only_where_the_cell_has_it() {
    if !available("cellcli_only_where_the_cell_has_it") {
        return;
    }
    let keys = Keys::new();
    let with = Sshd::start(&keys, "127.0.0.14", &keys.with_cellcli());
    let bin = keys.path("bin");
    let without = Sshd::start(&keys, "127.0.0.15", "");
    let kh = known_hosts(&keys, &[&with, &without]);
    let mut opts = options(&kh, Duration::from_millis(300), &nonce("cellcli"));
    opts.side_every = Duration::from_secs(1);
    let mut cells = Cells::start(
        vec![
            target(&with, &keys, &keys.client_key),
            target(&without, &keys, &keys.client_key),
        ],
        opts,
    );
    let (_, ev) = cells
        .wait_for(Duration::from_secs(10), |e| {
            matches!(e, CellEvent::Cellcli { .. })
        })
        .await
        .unwrap_or_else(|| panic!("no cellcli event\n{}", with.log_text()));
    let CellEvent::Cellcli { cell, text } = ev else {
        unreachable!()
    };
    assert_eq!(cell, 0);
    let expected = std::process::Command::new("sh")
        .arg("-c")
        .arg(strata::layers::cells::source::CELLCLI_SCRIPT)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .expect("run the script locally");
    assert_eq!(text, String::from_utf8_lossy(&expected.stdout));
    assert!(
        text.starts_with("@@celldisk\n\t CD_00_dm01cel01\t /dev/sda\t HardDisk\n"),
        "{text}"
    );
    assert!(
        text.contains("@@metriccurrent\n\t CD_IO_RQ_R_LG\t CD_00_dm01cel01\t 2,712 IO requests\n")
    );
    cells.run_for(Duration::from_millis(1500)).await;
    let count = |c: usize, f: fn(&CellEvent) -> bool| {
        cells
            .log
            .iter()
            .filter(|(_, e)| cell_of(e) == c && f(e))
            .count()
    };
    let cellcli = |e: &CellEvent| matches!(e, CellEvent::Cellcli { .. });
    let stderr = |e: &CellEvent| matches!(e, CellEvent::Stderr { .. });
    println!(
        "cellcli events: {} with, {} without; stderr events: {} and {}",
        count(0, cellcli),
        count(1, cellcli),
        count(0, stderr),
        count(1, stderr)
    );
    assert!(count(0, cellcli) >= 2, "once per cellcli_every");
    assert_eq!(count(1, cellcli), 0);
    assert_eq!(
        (count(0, stderr), count(1, stderr)),
        (0, 0),
        "{:?}",
        cells.log
    );
    assert!(cells.statuses(1).contains(&HostStatus::Live));
    cells.stop().await;
}

/// Runs the sampler under a local shell, without SSH: a frame for each line
/// on its stdin, and it ends by itself once its stdin ends or, with its
/// stdin still open, at the first frame nobody reads.
fn sampler_under(shell: &str, stdin_ends: bool) {
    let Some(sh) = peer_tools::find_in_path(shell) else {
        println!("SKIPPED: sampler under {shell}: not installed");
        return;
    };
    let marker = nonce("local");
    // The first sample is taken unasked, when strata starts the sampler:
    // here the first request stands for that start.
    let mut child = Command::new(sh)
        .arg("-c")
        .arg(format!("read -r t; {}", remote::sampler_script()))
        .arg(&marker)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().expect("stdout");
    let mut asks = child.stdin.take().expect("stdin");
    asks.write_all(b"\n\n\n").expect("ask for three samples");
    let mut reader = FrameReader::new();
    let mut frames = Vec::new();
    let mut buf = [0u8; 4096];
    let start = Instant::now();
    while frames
        .iter()
        .filter(|f: &&strata::link::frame::Frame| f.kind == FrameKind::Sample)
        .count()
        < 3
        && start.elapsed() < Duration::from_secs(5)
    {
        let n = out.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        for f in reader.push(&buf[..n]) {
            frames.push(f.expect("a well-formed frame"));
        }
    }
    assert_eq!(frames[0].kind, FrameKind::Classes, "{shell}");
    let samples: Vec<_> = frames[1..]
        .iter()
        .map(|f| parse_sample(f).expect("sample"))
        .collect();
    assert_eq!(samples.len(), 3, "{shell}");
    assert_eq!(samples.iter().map(|s| s.seq).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(
        samples
            .iter()
            .all(|s| s.diskstats.rejected.is_empty() && !s.diskstats.items.is_empty())
    );
    drop(out);
    // Kept open until the sampler is seen to end without it.
    let _open_stdin = if stdin_ends {
        drop(asks);
        None
    } else {
        // Nobody reads the frame this asks for: the write fails.
        asks.write_all(b"\n").expect("ask once more");
        Some(asks)
    };
    let closed = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if closed.elapsed() > Duration::from_millis(1200) {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    println!(
        "{shell}: sampler ended {:?} after its {} went: {status:?}",
        closed.elapsed(),
        if stdin_ends { "stdin" } else { "reader" }
    );
    assert!(status.is_some(), "{shell}: the sampler outlived its reader");
    let mut err = String::new();
    let _ = child.stderr.take().map(|mut e| e.read_to_string(&mut err));
    assert!(err.is_empty(), "{shell}: {err}");
}

#[test]
fn the_sampler_under_dash_and_bash() {
    for stdin_ends in [true, false] {
        sampler_under("dash", stdin_ends);
        sampler_under("bash", stdin_ends);
    }
}

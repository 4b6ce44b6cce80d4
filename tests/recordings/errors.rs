//! A host layer's error is typed from its source up to the screen
//! (`SampleError`), and a recording stores it typed. A recording made
//! before, which holds the error as its text (`{"Err": "text"}`), still
//! opens and says the same.
//!
//! `tests/fixtures/recordings/errors-old-2026-11-26.strec` was recorded by
//! the binary of ca40b5e (the commit before errors were typed) at 0.5 s for
//! 3 s, with `--root /tmp/strata-old-root`: a copy of tests/fixtures/host
//! whose /proc/diskstats was a directory, without /proc/self/mountstats,
//! an empty /proc/meminfo, this VM's /proc/net/dev and /proc/vmstat, and
//! its /proc/uptime rewritten every 100 ms from this VM's, but "garbage"
//! for 0.6 s in the middle. Beside it, what that binary's
//! `strata export FILE` printed (`TZ=UTC LC_ALL=C`): `.export.txt` on
//! stdout and `.notes.txt` on stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::fidelity::app_of;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use strata::app::input::NodeInput;
use strata::app::{App, Input, Panel, View};
use strata::core::error::{ParseError, SampleError};
use strata::recording::control::meta_of;
use strata::recording::session::{Player, Recorder};

const T0: i64 = 1_795_000_000_000;

fn fixture(ext: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/recordings")
        .join(format!("errors-old-2026-11-26.{ext}"))
}

/// A host layer's error in `input`, with the layer's name.
fn error_of(input: &Input) -> Option<(&'static str, &SampleError)> {
    match input {
        Input::Disks(Err(e)) => Some(("disks", e)),
        Input::Nfs(Err(e)) => Some(("nfs", e)),
        Input::Cache(Err(e)) => Some(("cache", e)),
        Input::Nics(Err(e)) => Some(("nics", e)),
        Input::Node { input, .. } => match input {
            NodeInput::Disks(Err(e)) => Some(("node disks", e)),
            NodeInput::Nfs(Err(e)) => Some(("node nfs", e)),
            NodeInput::Cache(Err(e)) => Some(("node cache", e)),
            NodeInput::Nics(Err(e)) => Some(("node nics", e)),
            _ => None,
        },
        _ => None,
    }
}

/// The screen of one panel, wide enough for a whole error line.
fn panel(app: &mut App, p: Panel) -> String {
    app.ui.stack = vec![View::Panel(p)];
    let s = common::render(app, 200, 48);
    app.ui.stack = vec![View::Panel(Panel::Overview)];
    s
}

const DISKS_SAID: &str =
    "cannot read /tmp/strata-old-root/proc/diskstats: Is a directory (os error 21)";
const NFS_SAID: &str =
    "cannot read /tmp/strata-old-root/proc/self/mountstats: No such file or directory (os error 2)";
const UPTIME_SAID: &str =
    "/proc/uptime line 1: expected seconds since boot such as 350735.47: \"garbage\"";

/// Each error of the old recording reads as its text, the very text the
/// binary that wrote it printed, and the replayed screen shows it where
/// the screen showed it then.
#[test]
fn a_recording_made_before_errors_were_typed_opens_and_shows_the_same_text() {
    let mut player = Player::open(&fixture("strec")).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let mut app = app_of(&player.meta);
    let mut said = BTreeSet::new();
    let mut screens = Vec::new();
    while let Some((_, input)) = player.next_input() {
        let error = error_of(&input).map(|(layer, e)| (layer, e.clone()));
        app.apply(input);
        let Some((layer, e)) = error else {
            continue;
        };
        // Stored as a plain string: read as the text it was.
        let SampleError::Text(text) = &e else {
            panic!("{layer}: {e:?}");
        };
        assert_eq!(e.to_string(), *text);
        said.insert((layer, text.clone()));
        let shown = match layer {
            "disks" => [Panel::Overview, Panel::Disks]
                .map(|p| (format!("disk source: {text}"), panel(&mut app, p)))
                .to_vec(),
            "nfs" => vec![(text.clone(), panel(&mut app, Panel::Nfs))],
            "cache" => vec![(text.clone(), panel(&mut app, Panel::Cache))],
            _ => vec![(text.clone(), panel(&mut app, Panel::Nics))],
        };
        screens.extend(
            shown
                .into_iter()
                .map(|(want, screen)| (layer, want, screen)),
        );
    }
    let want: BTreeSet<_> = [
        ("disks", DISKS_SAID),
        ("nfs", NFS_SAID),
        ("cache", UPTIME_SAID),
        ("nics", UPTIME_SAID),
    ]
    .into_iter()
    .map(|(l, t)| (l, t.to_string()))
    .collect();
    assert_eq!(said, want);
    for (layer, want, screen) in &screens {
        assert!(screen.contains(want.as_str()), "{layer}: {want}\n{screen}");
    }
    // The old binary's notes name each error in the same words.
    let notes = std::fs::read_to_string(fixture("notes.txt")).unwrap();
    for (_, text) in &said {
        assert!(notes.contains(&format!(": {text}\n")), "{text}\n{notes}");
    }
}

/// `strata export` of the old recording prints, to the byte, what the
/// binary that wrote it printed: its figures and each error's note.
#[test]
fn an_export_of_the_old_recording_prints_what_its_own_binary_printed() {
    let (out, notes) = common::export_of(&fixture("strec"), &[]);
    let want_out = std::fs::read_to_string(fixture("export.txt")).unwrap();
    let want_notes = std::fs::read_to_string(fixture("notes.txt")).unwrap();
    assert_eq!(out, want_out);
    assert_eq!(notes, want_notes);
}

fn io(path: &str, kind: &str, message: &str) -> SampleError {
    SampleError::Io {
        path: path.into(),
        kind: kind.into(),
        message: message.into(),
    }
}

/// Every kind of error, each twice in a row (the second rides the
/// stream's shape as it stands), with numbers that change (a parse error's
/// line), between good samples, on this machine and on a node.
fn typed_inputs() -> Vec<(i64, Input)> {
    let eacces = io(
        "/proc/self/mountstats",
        "PermissionDenied",
        "Permission denied (os error 13)",
    );
    let parse = |line_no| {
        SampleError::Parse(ParseError::new(
            "/proc/uptime",
            line_no,
            "garbage",
            "seconds since boot such as 350735.47",
        ))
    };
    let ended = SampleError::Ended {
        sampler: "page cache".into(),
        how: "panicked".into(),
    };
    let missing = io(
        "/proc/net/dev",
        "NotFound",
        "not in the host's last frame from its sampler",
    );
    let mut v = Vec::new();
    for k in 0..6u64 {
        let t = T0 + k as i64 * 1000;
        let mut disks = common::sample(k);
        disks.wall_ms = t;
        v.push((t + 1, Input::Disks(Ok(disks))));
        let bad = k % 3 != 1;
        let nfs = if bad {
            Err(eacces.clone())
        } else {
            Ok(common::nfs_sample(k))
        };
        v.push((t + 2, Input::Nfs(nfs)));
        v.push((t + 3, Input::Disks(Err(parse(k as usize + 1)))));
        v.push((t + 4, Input::Cache(Err(ended.clone()))));
        v.push((t + 5, Input::Nics(Err("an error known by its text".into()))));
        v.push((
            t + 6,
            Input::Node {
                node: 0,
                input: NodeInput::Nics(Err(missing.clone())),
            },
        ));
    }
    v
}

/// A new recording stores the typed error and gives back the same value:
/// the kind of a failed read, a parse error's line, a sampler that ended.
#[test]
fn a_typed_error_goes_through_a_recording_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typed.strec");
    // Without nodes, so the panels show this machine's layers (a node's
    // input is recorded all the same).
    let app = common::app_of_config(strata::config::Config::default());
    let inputs = typed_inputs();
    let mut rec = Recorder::create(&path, &meta_of(&app, T0)).unwrap();
    for (t, input) in &inputs {
        rec.record(*t, input).unwrap();
    }
    rec.close().unwrap();
    let mut player = Player::open(&path).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let mut errors = 0;
    for (t, input) in &inputs {
        let (at, read) = player.next_input().expect("each input recorded");
        assert_eq!(at, *t);
        assert_eq!(
            serde_json::to_value(&read).unwrap(),
            serde_json::to_value(input).unwrap(),
            "at {t}"
        );
        if let Some((layer, want)) = error_of(input) {
            let (read_layer, got) = error_of(&read).expect("an error read as an error");
            assert_eq!((read_layer, got), (layer, want), "at {t}");
            errors += 1;
        }
    }
    assert!(player.next_input().is_none());
    assert_eq!(errors, 6 * 5 - 2);
    // Played into an app, the screen says them in their words.
    let mut player = Player::open(&path).unwrap();
    let mut app = app_of(&player.meta);
    while let Some((_, input)) = player.next_input() {
        app.apply(input);
    }
    let nfs = panel(&mut app, Panel::Nfs);
    assert!(
        nfs.contains("cannot read /proc/self/mountstats: Permission denied (os error 13)"),
        "{nfs}"
    );
    let disks = panel(&mut app, Panel::Disks);
    assert!(
        disks.contains(
            "disk source: /proc/uptime line 6: expected seconds since boot such as 350735.47: \"garbage\""
        ),
        "{disks}"
    );
    let cache = panel(&mut app, Panel::Cache);
    assert!(
        cache.contains("the page cache sampler panicked; restart strata to sample it again"),
        "{cache}"
    );
}

/// `strata record` over a tree whose files fail keeps each read's kind:
/// the live loop hands the app (and the recording) the typed error, not
/// its text.
#[test]
fn a_live_recording_keeps_the_kind_of_a_failed_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    common::write_tree(
        &root,
        &["proc/net", "proc/self", "proc/sys/kernel", "proc/diskstats"],
        &[
            ("proc/uptime", "1000.00 0.00\n".to_string()),
            ("proc/net/dev", common::layers::netdev_text(0)),
            ("proc/meminfo", common::layers::meminfo_text(0)),
            ("proc/vmstat", common::layers::vmstat_text(0)),
            ("proc/sys/kernel/hostname", "db01\n".to_string()),
        ],
    );
    let file = common::record_root(dir.path(), &root, &[]);
    let mut player = Player::open(&file).unwrap();
    let mut seen = Vec::new();
    let mut good = BTreeSet::new();
    while let Some((_, input)) = player.next_input() {
        if let Some((layer, e)) = error_of(&input) {
            if !seen.iter().any(|(l, s)| (*l, s) == (layer, e)) {
                seen.push((layer, e.clone()));
            }
        } else if input.is_sample() {
            good.insert(input.stream());
        }
    }
    let at = |rel: &str| root.join(rel).display().to_string();
    let want = vec![
        (
            "disks",
            io(
                &at("proc/diskstats"),
                "IsADirectory",
                "Is a directory (os error 21)",
            ),
        ),
        (
            "nfs",
            io(
                &at("proc/self/mountstats"),
                "NotFound",
                "No such file or directory (os error 2)",
            ),
        ),
    ];
    seen.sort_by_key(|(layer, _)| *layer);
    assert_eq!(seen, want);
    for (_, e) in &seen {
        assert!(e.io_kind().is_some(), "{e:?}");
    }
    assert!(good.contains("nics") && good.contains("cache"), "{good:?}");
}

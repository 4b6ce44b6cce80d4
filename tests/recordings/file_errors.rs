//! A watched file's error is typed from the page-cache source up to the
//! screen (`FileError`), and a recording stores it typed. A recording made
//! before, which holds it as its text (`{"Err": "no file matches"}`),
//! still opens and says the same.
//!
//! `tests/fixtures/recordings/files-old-2026-11-26.strec` was recorded by
//! the binary of ed645b2 (the commit before these errors were typed), as
//! the user nobody (`setpriv --reuid=nobody --regid=nogroup
//! --clear-groups`), at 0.5 s for 3 s, with `--root /tmp/strata-fe-root`:
//! a directory whose proc, sys and dev were symlinks to this VM's, and
//! whose u01 held redo/redo01.log (nobody's), redo/redo02.log (root's,
//! 0644), secret.dbf (root's, 0600), a FIFO `fifo`, a directory `dir`,
//! `locked` (mode 000, holding sub/a.log) and two symlinks to each other,
//! `loop1` and `loop2`; and `--cache-files` '/u01/redo/*.log',
//! /u01/secret.dbf, '/u01/arch/*.arc', /u01/missing.dbf, /u01/fifo,
//! /u01/dir, '/u01/locked/*/*.log' and /u01/loop1. Beside it, what that
//! binary's `strata export --panel cache` printed (`TZ=UTC LC_ALL=C`) as
//! text (`.export.txt`) and JSON (`.export.json`) on stdout, and on
//! stderr (`.notes.txt`, the same for both).
//!
//! `files-nodes-old-2026-11-26.strec` was recorded by the same binary at
//! 0.5 s for 4 s from two nodes, two sshds on 127.0.0.1 logging root in
//! to this VM, with `--cache-files` '/tmp/fe-node/u01/*.log' (which
//! matched redo01.log), '/tmp/fe-node/u02/*.arc' and /tmp/fe-node/u02/x.dbf
//! (neither there). Each sshd's ForceCommand set PATH: on :40211 to a
//! directory whose `fincore` slept 1.5 s before running util-linux's, so
//! that the first samples came before the first run; on :40212 to one
//! without fincore. Its `strata export --panel cache` as text and JSON are
//! beside it; it printed nothing on stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::fidelity::app_of;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use strata::app::input::NodeInput;
use strata::app::{App, Input, Panel, View};
use strata::layers::cache::error::FileError;
use strata::layers::cache::residency::Method;
use strata::layers::cache::source::{CacheFile, CacheSample};
use strata::recording::control::meta_of;
use strata::recording::session::{Player, Recorder};

const T0: i64 = 1_795_000_000_000;

fn fixture(ext: &str) -> PathBuf {
    recording("files-old-2026-11-26", ext)
}

fn recording(name: &str, ext: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/recordings")
        .join(format!("{name}.{ext}"))
}

/// The watched files' errors of a cache input: (path, error).
fn file_errors(input: &Input) -> Vec<(String, FileError)> {
    let Input::Cache(Ok(s)) = input else {
        return Vec::new();
    };
    s.files
        .iter()
        .filter_map(|f| Some((f.path.clone(), f.result.clone().err()?)))
        .collect()
}

/// A screen wide enough for the longest error after its path.
fn screen(app: &mut App, view: View) -> String {
    app.ui.stack = vec![view];
    let s = common::render(app, 240, 48);
    app.ui.stack = vec![View::Panel(Panel::Overview)];
    s
}

/// What the binary of ed645b2 said of each file, in its words.
const OLD_SAID: [(&str, &str); 9] = [
    (
        "/u01/redo/redo02.log",
        "cachestat(2): the kernel tells residency only to the file's owner, a writer or root",
    ),
    ("/u01/secret.dbf", "permission denied"),
    ("/u01/arch/*.arc", "no file matches"),
    ("/u01/missing.dbf", "no such file"),
    ("/u01/fifo", "not a regular file"),
    ("/u01/dir", "not a regular file"),
    (
        "/u01/locked/*/*.log",
        "cannot read /u01/locked: Permission denied (os error 13)",
    ),
    ("/u01/locked/*/*.log", "no file matches"),
    (
        "/u01/loop1",
        "Too many levels of symbolic links (os error 40)",
    ),
];

/// Each watched file's error in the old recording reads as its text, the
/// very text the binary that wrote it printed, and the replayed page-cache
/// panel shows it after the file's path, as it did then.
#[test]
fn a_recording_made_before_file_errors_were_typed_opens_and_shows_the_same_text() {
    let mut player = Player::open(&fixture("strec")).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let mut app = app_of(&player.meta);
    let mut said = BTreeSet::new();
    let mut samples = 0;
    while let Some((_, input)) = player.next_input() {
        for (path, e) in file_errors(&input) {
            // Stored as a plain string: read as the text it was.
            let FileError::Text(text) = &e else {
                panic!("{path}: {e:?}");
            };
            assert_eq!(e.to_string(), *text);
            said.insert((path, text.clone()));
        }
        samples += usize::from(matches!(input, Input::Cache(Ok(_))));
        app.apply(input);
    }
    assert!(samples >= 5, "{samples} cache samples");
    let want: BTreeSet<_> = OLD_SAID
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    assert_eq!(said, want);
    let panel = screen(&mut app, View::Panel(Panel::Cache));
    for (path, text) in OLD_SAID {
        assert!(
            panel.contains(&format!("{path}  {text}")),
            "{path}: {text}\n{panel}"
        );
    }
    assert!(panel.contains("/u01/redo/redo01.log"), "{panel}");
    // A file's own view says why it has no figures.
    let one = screen(&mut app, View::CacheFile("/u01/secret.dbf".into()));
    assert!(one.contains("permission denied"), "{one}");
    // The old binary's export names each in the same words.
    let json = std::fs::read_to_string(fixture("export.json")).unwrap();
    for (path, text) in OLD_SAID {
        let row = format!("\"file\": \"{path}\", \"error\": \"{text}\"");
        assert!(json.contains(&row), "{row}");
    }
}

fn export(file: &Path, format: &str) -> (String, String) {
    common::export_of(file, &["--panel", "cache", "--format", format])
}

/// `strata export --panel cache` of the old recording prints, to the byte,
/// what the binary that wrote it printed, as text and as JSON: each file's
/// error after its path, and in the `"error"` field.
#[test]
fn an_export_of_the_old_recording_prints_what_its_own_binary_printed() {
    let notes = std::fs::read_to_string(fixture("notes.txt")).unwrap();
    for (format, ext) in [("text", "export.txt"), ("json", "export.json")] {
        let want = std::fs::read_to_string(fixture(ext)).unwrap();
        let (out, err) = export(&fixture("strec"), format);
        assert_eq!(out, want, "{format}");
        assert_eq!(err, notes, "{format}");
    }
}

/// What the binary of ed645b2 said of each node's patterns, in its words.
const NODES_OLD_SAID: [(usize, &str, &str); 7] = [
    (
        0,
        "/tmp/fe-node/u01/*.log",
        "no fincore run from the node yet",
    ),
    (
        0,
        "/tmp/fe-node/u02/*.arc",
        "no fincore run from the node yet",
    ),
    (
        0,
        "/tmp/fe-node/u02/x.dbf",
        "no fincore run from the node yet",
    ),
    (0, "/tmp/fe-node/u02/*.arc", "no file matches"),
    (0, "/tmp/fe-node/u02/x.dbf", "no regular file by this name"),
    (
        1,
        "/tmp/fe-node/u01/*.log",
        "no fincore run from the node yet",
    ),
    (1, "/tmp/fe-node/u01/*.log", NO_FINCORE),
];

const NO_FINCORE: &str = "fincore is not on the node's PATH: util-linux 2.30 or later has it (util-linux-extra on Debian 12)";

/// A node's errors of before, from its fincore runs, read as their text,
/// show on the node's panel, and export to the byte as they did.
#[test]
fn a_recording_of_nodes_made_before_file_errors_were_typed_says_the_same() {
    let file = recording("files-nodes-old-2026-11-26", "strec");
    let mut player = Player::open(&file).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let mut app = app_of(&player.meta);
    let mut said = BTreeSet::new();
    while let Some((_, input)) = player.next_input() {
        if let Input::Node {
            node,
            input: NodeInput::Cache(Ok(s)),
        } = &input
        {
            for f in &s.files {
                let Err(e) = &f.result else { continue };
                let FileError::Text(text) = e else {
                    panic!("{}: {e:?}", f.path);
                };
                said.insert((*node, f.path.clone(), text.clone()));
            }
        }
        app.apply(input);
    }
    let mut want: BTreeSet<_> = NODES_OLD_SAID
        .iter()
        .map(|(n, p, t)| (*n, p.to_string(), t.to_string()))
        .collect();
    for p in ["/tmp/fe-node/u02/*.arc", "/tmp/fe-node/u02/x.dbf"] {
        want.insert((1, p.into(), NO_FINCORE.into()));
        want.insert((1, p.into(), "no fincore run from the node yet".into()));
    }
    assert_eq!(said, want);
    // Each node's panel as the last run left it.
    for (node, rows) in [
        (
            0,
            vec![
                ("/tmp/fe-node/u02/*.arc", "no file matches"),
                ("/tmp/fe-node/u02/x.dbf", "no regular file by this name"),
            ],
        ),
        (1, vec![("/tmp/fe-node/u02/x.dbf", NO_FINCORE)]),
    ] {
        app.ui.node = Some(node);
        let panel = screen(&mut app, View::Panel(Panel::Cache));
        for (path, text) in rows {
            let row = format!("{path}  {text}");
            assert!(panel.contains(&row), "{row}\n{panel}");
        }
    }
    for (format, ext) in [("text", "export.txt"), ("json", "export.json")] {
        let want = std::fs::read_to_string(recording("files-nodes-old-2026-11-26", ext)).unwrap();
        let (out, err) = export(&file, format);
        assert_eq!(out, want, "{format}");
        assert_eq!(err, "", "{format}");
    }
}

/// Every kind of watched file's error, here and from a node's fincore
/// run, with numbers that change (files left out of a run).
fn typed_files(k: u64) -> Vec<CacheFile> {
    let errors = [
        FileError::NoMatch,
        FileError::NoRegularFile,
        FileError::BadPattern {
            message: "Pattern syntax error near position 5: invalid range pattern".into(),
        },
        FileError::Unreadable {
            path: "/u01/locked".into(),
            kind: "PermissionDenied".into(),
            message: "Permission denied (os error 13)".into(),
        },
        FileError::NotRegular,
        FileError::NoSuchFile,
        FileError::PermissionDenied,
        FileError::NotOwner {
            method: Method::Cachestat,
        },
        FileError::NotSupported {
            method: Method::Mincore,
        },
        FileError::Io {
            kind: "FilesystemLoop".into(),
            message: "Too many levels of symbolic links (os error 40)".into(),
        },
        FileError::NoRunYet,
        FileError::NoFincore,
        FileError::NotMeasured { files: k + 1 },
        FileError::Text("an error known by its text".into()),
    ];
    let mut files = common::cache_sample(k).files;
    files.extend(errors.into_iter().enumerate().map(|(i, e)| CacheFile {
        path: format!("/u09/e{i:02}"),
        result: Err(e),
    }));
    files
}

/// A new recording stores each typed error and gives back the same value;
/// the replayed panel says each in its words.
#[test]
fn a_typed_file_error_goes_through_a_recording_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typed.strec");
    let app = common::app_of_config(strata::config::Config::default());
    let samples: Vec<CacheSample> = (0..4u64)
        .map(|k| {
            let mut s = common::cache_sample(k);
            s.wall_ms = T0 + k as i64 * 1000;
            s.files = typed_files(k);
            s
        })
        .collect();
    let mut rec = Recorder::create(&path, &meta_of(&app, T0)).unwrap();
    for s in &samples {
        rec.record(s.wall_ms, &Input::Cache(Ok(s.clone()))).unwrap();
    }
    rec.close().unwrap();
    let mut player = Player::open(&path).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let mut app = app_of(&player.meta);
    for s in &samples {
        let (at, read) = player.next_input().expect("each input recorded");
        assert_eq!(at, s.wall_ms);
        let Input::Cache(Ok(got)) = &read else {
            panic!("{read:?}");
        };
        assert_eq!(got.files, s.files, "at {at}");
        app.apply(read);
    }
    assert!(player.next_input().is_none());
    let panel = screen(&mut app, View::Panel(Panel::Cache));
    for f in typed_files(3) {
        if let Err(e) = &f.result {
            let row = format!("{}  {e}", f.path);
            assert!(panel.contains(&row), "{row}\n{panel}");
        }
    }
    assert!(
        panel.contains("/u09/e12  4 files not measured: not readable"),
        "{panel}"
    );
    // strata export's JSON gives each in its "error" field, in the same
    // words.
    let (json, _) = export(&path, "json");
    for f in typed_files(3) {
        if let Err(e) = &f.result {
            let row = format!("\"file\": \"{}\", \"error\": \"{e}\"", f.path);
            assert!(json.contains(&row), "{row}\n{json}");
        }
    }
}

/// `strata record` over a tree whose watched files fail stores each
/// error's kind, not its text.
#[test]
fn a_live_recording_keeps_the_kind_of_a_watched_files_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    common::write_tree(
        &root,
        &["proc/net", "proc/sys/kernel", "u01/dir", "u01/redo"],
        &[
            ("proc/uptime", "1000.00 0.00\n".to_string()),
            ("proc/meminfo", common::layers::meminfo_text(0)),
            ("proc/vmstat", common::layers::vmstat_text(0)),
            ("proc/sys/kernel/hostname", "db01\n".to_string()),
            ("u01/redo/redo01.log", "redo\n".to_string()),
        ],
    );
    std::os::unix::fs::symlink("loop2", root.join("u01/loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", root.join("u01/loop2")).unwrap();
    let patterns = [
        "/u01/redo/*.log",
        "/u01/arch/*.arc",
        "/u01/missing.dbf",
        "/u01/dir",
        "/u01/loop1",
    ];
    let args: Vec<&str> = patterns.iter().flat_map(|p| ["--cache-files", p]).collect();
    let file = common::record_root(dir.path(), &root, &args);
    let mut player = Player::open(&file).unwrap();
    let mut seen = BTreeSet::new();
    let mut measured = 0;
    while let Some((_, input)) = player.next_input() {
        if let Input::Cache(Ok(s)) = &input {
            measured += s.files.iter().filter(|f| f.result.is_ok()).count();
        }
        for (path, e) in file_errors(&input) {
            seen.insert((path, format!("{e:?}"), e.to_string()));
        }
    }
    assert!(measured > 0, "redo01.log measured");
    let eloop = std::io::Error::from_raw_os_error(libc::ELOOP);
    let loop_error = FileError::Io {
        kind: format!("{:?}", eloop.kind()),
        message: eloop.to_string(),
    };
    let want: BTreeSet<_> = [
        ("/u01/arch/*.arc", FileError::NoMatch, "no file matches"),
        ("/u01/missing.dbf", FileError::NoSuchFile, "no such file"),
        ("/u01/dir", FileError::NotRegular, "not a regular file"),
        (
            "/u01/loop1",
            loop_error,
            "Too many levels of symbolic links (os error 40)",
        ),
    ]
    .into_iter()
    .map(|(p, e, t)| (p.to_string(), format!("{e:?}"), t.to_string()))
    .collect();
    assert_eq!(seen, want);
}

//! Why a cell, a node or a database is not live is typed from where it
//! happens up to the screen (`link::error`, `layers::dnfs::error`), and
//! a recording stores it typed. Recordings made before, which hold each
//! reason as its text (`{"Unreachable": "127.0.0.1:40319: Connection
//! refused (os error 111)"}`), still open and say the same.
//!
//! `tests/fixtures/recordings/ssh-errors-old-2026-11-26.strec` was
//! recorded by the binary of f93013c (the commit before these errors were
//! typed), as root with SSH_AUTH_SOCK unset, in /tmp/typed-ssh, at 0.5 s
//! for 10 s, with `--known-hosts known_hosts --cell-identity id
//! --node-identity id`, from six OpenSSH sshds on 127.0.0.1 and a closed
//! port, as cells 40311 to 40316 and 40319 and nodes 40311, 40312 and
//! 40319. known_hosts named 40311, 40312, 40313, 40315 and 40316 with the
//! key `host`. 40311 let `id` in (live); 40312 let only another key in
//! (login refused); 40313 and 40314 offered the key `host2` (changed,
//! unknown); 40315's ForceCommand wrote on stderr and exited 3 (the
//! sampler ended); 40316's slept (no sample). Beside it, what that
//! binary's `strata export --panel cells` printed (`TZ=UTC LC_ALL=C`) as
//! text and JSON, and on stderr (`.notes.txt`, the same for both).
//!
//! `dnfs-errors-old-2026-11-26.strec` holds no real database's answers:
//! there is no Oracle database here. It was written through the
//! recorder's own API (`Recorder::record`) by the code of f93013c, by the
//! program kept beside it (`.gen.rs.txt`): two databases' statuses with
//! the texts that code made or would make (its `client_missing_text`, a
//! MapError's Display; ORA- texts as the driver words them), samples of
//! the 19c fixture (one with a row its mapper rejected) and two
//! gv$instance reads with problems. Beside it, that code's state label
//! and reason after each status (`.reasons.txt`), and what the binary of
//! f93013c's `strata export --panel dnfs` printed of it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::fidelity::app_of;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use strata::app::Input;
use strata::layers::cells::source::CellEvent;
use strata::layers::dnfs::error::{DbError, OraError, RowProblem};
use strata::layers::dnfs::source::{DbEvent, DbStatus};
use strata::link::{HostKeyError, HostStatus, LoginError, Unreachable};
use strata::recording::session::{Player, Recorder};

fn fixture(name: &str, ext: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/recordings")
        .join(format!("{name}-old-2026-11-26.{ext}"))
}

/// `strata export` of `name`'s recording with `args`: stdout and stderr.
fn export(name: &str, args: &[&str]) -> (String, String) {
    common::export_of(&fixture(name, "strec"), args)
}

fn read(name: &str, ext: &str) -> String {
    std::fs::read_to_string(fixture(name, ext)).unwrap()
}

/// The cells' export of the old recording prints, to the byte, what the
/// binary that wrote it printed: each cell's state and reason.
#[test]
fn the_cells_export_of_the_old_recording_prints_what_its_own_binary_printed() {
    let notes = read("ssh-errors", "notes.txt");
    let (out, err) = export("ssh-errors", &["--panel", "cells"]);
    assert_eq!(out, read("ssh-errors", "export.txt"));
    assert_eq!(err, notes);
    let (out, err) = export("ssh-errors", &["--panel", "cells", "--format", "json"]);
    assert_eq!(out, read("ssh-errors", "export.json"));
    assert_eq!(err, notes);
}

/// Whether a status's reason is known only by its text, as a recording
/// made before holds it.
fn by_text(s: &HostStatus) -> bool {
    match s {
        HostStatus::Unreachable(u) => matches!(u, Unreachable::Text(_)),
        HostStatus::AuthFailed(l) => matches!(l, LoginError::Text(_)),
        HostStatus::HostKeyRefused(h) => matches!(h, HostKeyError::Text(_)),
        HostStatus::Connecting | HostStatus::Live | HostStatus::NeedsPassphrase(_) => true,
    }
}

const KNOWN_HOSTS_LINE_3: &str = "HOST KEY CHANGED for 127.0.0.1 port 40313: it offers ssh-ed25519 SHA256:opVj9bzxHFKkKANvY/KOuUGLOQcDXOTk6VH60uySCao, known_hosts line 3 holds SHA256:KApvrRy5RzBR4wbiXDfUOwu65JZSfx+D1eJQYbzI5aw; if the host was reinstalled, remove line 3";

/// Each status of the old recording, cells' and nodes', says what it said
/// then.
#[test]
fn the_old_recordings_host_statuses_say_what_they_said() {
    let mut player = Player::open(&fixture("ssh-errors", "strec")).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let mut cells = BTreeSet::new();
    let mut nodes = BTreeSet::new();
    while let Some((_, input)) = player.next_input() {
        match input {
            Input::Cell(CellEvent::Status { cell, status }) => {
                assert!(by_text(&status), "{status:?}");
                cells.insert((cell, status.to_string()));
            }
            Input::NodeStatus { node, status } => {
                assert!(by_text(&status), "{status:?}");
                nodes.insert((node, status.to_string()));
            }
            _ => {}
        }
    }
    let silent: Vec<_> = cells
        .iter()
        .filter(|(c, _)| *c == 5)
        .map(|(_, s)| s.clone())
        .collect();
    assert!(silent.len() > 1, "{silent:?}");
    for s in silent.iter().filter(|s| *s != "connecting") {
        assert!(
            s.starts_with("127.0.0.1:40316: no sample for ") && s.ends_with(" s"),
            "{s}"
        );
    }
    let cells: BTreeSet<_> = cells.into_iter().filter(|(c, _)| *c != 5).collect();
    let unknown = "host key refused: unknown host key for 127.0.0.1 port 40314: ssh-ed25519 SHA256:opVj9bzxHFKkKANvY/KOuUGLOQcDXOTk6VH60uySCao is not in known_hosts; check the fingerprint and add it (ssh-keyscan -p 40314 127.0.0.1 >> known_hosts) or start strata with --accept-new-host-keys";
    let want: BTreeSet<(usize, String)> = [
        (0, "connecting".to_string()),
        (0, "live".into()),
        (1, "connecting".into()),
        (
            1,
            "login refused: root@127.0.0.1:40312: no key accepted: id refused".into(),
        ),
        (2, "connecting".into()),
        (2, format!("host key refused: {KNOWN_HOSTS_LINE_3}")),
        (3, "connecting".into()),
        (3, unknown.into()),
        (4, "connecting".into()),
        (
            4,
            "127.0.0.1:40315: the sampler ended with status 3: sampler: cannot run here".into(),
        ),
        (6, "connecting".into()),
        (
            6,
            "127.0.0.1:40319: Connection refused (os error 111)".into(),
        ),
    ]
    .into_iter()
    .collect();
    assert_eq!(cells, want);
    let want: BTreeSet<(usize, String)> = [
        (0, "connecting".to_string()),
        (0, "live".into()),
        (1, "connecting".into()),
        (
            1,
            "login refused: root@127.0.0.1:40312: no key accepted: id refused".into(),
        ),
        (2, "connecting".into()),
        (
            2,
            "127.0.0.1:40319: Connection refused (os error 111)".into(),
        ),
    ]
    .into_iter()
    .collect();
    assert_eq!(nodes, want);
}

/// The databases' export of the old recording prints, to the byte, what
/// the binary of before printed of it.
#[test]
fn the_dnfs_export_of_the_old_recording_prints_what_its_own_binary_printed() {
    let notes = read("dnfs-errors", "notes.txt");
    let (out, err) = export("dnfs-errors", &["--panel", "dnfs"]);
    assert_eq!(out, read("dnfs-errors", "export.txt"));
    assert_eq!(err, notes);
    // JSON lines carry the driver's code of a reason now (`code`): none
    // where the database was live; a reason of before (a text) gives the
    // code it starts with, as the typed error of today gives it.
    let (out, err) = export("dnfs-errors", &["--panel", "dnfs", "--format", "json"]);
    let old = read("dnfs-errors", "export.json");
    assert_eq!(out.lines().count(), old.lines().count());
    for (new, old) in out.lines().zip(old.lines()) {
        let mut new: serde_json::Value = serde_json::from_str(new).unwrap();
        let old: serde_json::Value = serde_json::from_str(old).unwrap();
        let code = new.as_object_mut().unwrap().remove("code");
        let leading = old["reason"]
            .as_str()
            .and_then(|r| r.split_once(": "))
            .map(|(c, _)| c)
            .filter(|c| c.starts_with("ORA-") || c.starts_with("DPI-"));
        let want = leading.map_or(serde_json::Value::Null, |c| c.into());
        assert_eq!(code, Some(want), "{new}");
        assert_eq!(new, old);
    }
    assert_eq!(err, notes);
}

/// Replayed, each database status of the old recording gives the state
/// and the reason the code of before gave.
#[test]
fn the_old_recordings_database_statuses_say_what_they_said() {
    let mut player = Player::open(&fixture("dnfs-errors", "strec")).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let mut app = app_of(&player.meta);
    let mut said = String::new();
    let mut rejected = Vec::new();
    while let Some((t, input)) = player.next_input() {
        let db = match &input {
            Input::Db(DbEvent::Status { db, status }) => {
                // stored as a plain string: read as the text it was
                if let DbStatus::ClientMissing(e)
                | DbStatus::ConnectFailed(e)
                | DbStatus::QueryFailed(e) = status
                {
                    assert!(matches!(e, DbError::Text(_)), "{e:?}");
                }
                Some(*db)
            }
            Input::Db(DbEvent::Sample { sample, .. }) => {
                let texts = sample.rejected.iter();
                assert!(texts.clone().all(|p| matches!(p, RowProblem::Text(_))));
                rejected.extend(texts.map(ToString::to_string));
                None
            }
            Input::Db(DbEvent::Instances { instances, .. }) => {
                let texts = instances.problems.iter();
                assert!(texts.clone().all(|p| matches!(p, RowProblem::Text(_))));
                rejected.extend(texts.map(ToString::to_string));
                None
            }
            _ => None,
        };
        app.now_ms = t;
        app.apply(input);
        if let Some(db) = db {
            let v = &app.dnfs.list[db];
            let why = v.reason().unwrap_or_default();
            said += &format!(
                "{t}\tdb{db}\t{}\t{}\n",
                v.state_label(t, app.dnfs.interval.ms()),
                why.replace('\n', "\\n")
            );
        }
    }
    assert_eq!(said, read("dnfs-errors", "reasons.txt"));
    assert_eq!(
        rejected,
        [
            "gv$instance row 2: HOST_NAME is NULL",
            "gv$dnfs_stats row 2: NFS_READ = \"12x\" is not a count",
            "gv$instance: ORA-00942: table or view does not exist",
        ]
    );
}

/// A new recording stores the typed reasons, cells' and nodes', and gives
/// back the same values, said in the same words.
#[test]
fn typed_host_statuses_go_through_a_recording_unchanged() {
    use std::time::Duration;
    use strata::link::error::OfferedKey;
    let statuses = [
        HostStatus::Unreachable(Unreachable::Connect {
            at: "10.0.0.5:22".into(),
            kind: "ConnectionRefused".into(),
            message: "Connection refused (os error 111)".into(),
        }),
        HostStatus::Unreachable(Unreachable::Silent {
            host: "cel01".into(),
            after: Duration::from_millis(2049),
        }),
        HostStatus::Unreachable(Unreachable::SamplerEnded {
            host: "cel01".into(),
            status: Some(127),
            stderr: "sh: 1: exec: strata-sampler: not found".into(),
        }),
        HostStatus::AuthFailed(LoginError::NoKeyAccepted {
            user: "root".into(),
            host: "cel01".into(),
            tried: vec!["/root/.ssh/id_ed25519 refused".into()],
        }),
        HostStatus::HostKeyRefused(HostKeyError::Changed {
            host: "cel01".into(),
            port: 22,
            offered: OfferedKey {
                key_type: "ssh-ed25519".into(),
                fingerprint: "SHA256:opVj".into(),
            },
            file: "/root/.ssh/known_hosts".into(),
            line: 3,
            known: "SHA256:KApv".into(),
        }),
        HostStatus::Unreachable("an old text".into()),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typed.strec");
    let mut app = common::app_of_config(strata::config::Config::default());
    app.set_cells(vec![common::cell_target("cel01")]);
    app.set_nodes(common::ssh_nodes(&["db02"]));
    let t0 = 1_795_000_000_000;
    let meta = strata::recording::control::meta_of(&app, t0);
    let mut rec = Recorder::create(&path, &meta).unwrap();
    let mut inputs = Vec::new();
    for (k, status) in statuses.iter().enumerate() {
        inputs.push(Input::Cell(CellEvent::Status {
            cell: 0,
            status: status.clone(),
        }));
        inputs.push(Input::NodeStatus {
            node: 0,
            status: status.clone(),
        });
        for (j, input) in inputs[inputs.len() - 2..].iter().enumerate() {
            rec.record(t0 + (2 * k + j) as i64 * 1000, input).unwrap();
        }
    }
    rec.close().unwrap();
    let mut player = Player::open(&path).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let mut app = app_of(&player.meta);
    let mut read = Vec::new();
    while let Some((_, input)) = player.next_input() {
        let node_status = matches!(input, Input::NodeStatus { .. });
        match &input {
            Input::Cell(CellEvent::Status { status, .. }) | Input::NodeStatus { status, .. } => {
                read.push(status.clone())
            }
            _ => {}
        }
        app.apply(input);
        // the cell's detail line says the reason the node's status says
        if node_status {
            let why = app.cells.list[0]
                .link
                .state(app.now_ms, 1000)
                .reason()
                .unwrap();
            let said = app.nodes[0].link.status.to_string();
            assert!(said.ends_with(&why), "{said} / {why}");
        }
    }
    let want: Vec<HostStatus> = statuses
        .iter()
        .flat_map(|s| [s.clone(), s.clone()])
        .collect();
    assert_eq!(read, want);
}

/// A new recording stores the typed database errors and gives back the
/// same values; the panel's reason says them in the same words.
#[test]
fn typed_database_statuses_go_through_a_recording_unchanged() {
    let ora = OraError::of_text;
    let statuses = [
        (
            DbStatus::ConnectFailed(DbError::Oracle(ora(
                "ORA-01017: invalid username/password; logon denied",
            ))),
            Some("ORA-01017"),
        ),
        (
            DbStatus::ClientMissing(DbError::ClientMissing {
                error: ora("DPI-1047: Cannot locate a 64-bit Oracle Client library"),
                ld_library_path: None,
            }),
            Some("DPI-1047"),
        ),
        (
            DbStatus::ConnectFailed(DbError::ConnectionLost(ora(
                "ORA-03113: end-of-file on communication channel",
            ))),
            Some("ORA-03113"),
        ),
        (
            DbStatus::QueryFailed(DbError::MissingColumn {
                view: "gv$dnfs_files".into(),
                column: "FILENAME".into(),
            }),
            None,
        ),
        (DbStatus::NoPassword("STRATA_DB_PASSWORD".into()), None),
        (DbStatus::QueryFailed("an old text".into()), None),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typed.strec");
    let mut app = common::app_of_config(strata::config::Config::default());
    app.set_dbs(vec![
        strata::layers::dnfs::source::parse_db_spec("dbsnmp@//prod-scan:1521/PROD").unwrap(),
    ]);
    let t0 = 1_795_000_000_000;
    let meta = strata::recording::control::meta_of(&app, t0);
    let mut rec = Recorder::create(&path, &meta).unwrap();
    for (k, (status, _)) in statuses.iter().enumerate() {
        let input = Input::Db(DbEvent::Status {
            db: 0,
            status: status.clone(),
        });
        rec.record(t0 + k as i64 * 1000, &input).unwrap();
    }
    rec.close().unwrap();
    let mut player = Player::open(&path).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let mut app = app_of(&player.meta);
    let mut want = statuses.iter();
    while let Some((_, input)) = player.next_input() {
        let Input::Db(DbEvent::Status { status, .. }) = &input else {
            panic!("{input:?}");
        };
        let (sent, code) = want.next().unwrap();
        assert_eq!(status, sent);
        app.apply(input);
        let db = &app.dnfs.list[0];
        assert_eq!(db.error_code(), *code);
        if let DbStatus::ClientMissing(e) | DbStatus::ConnectFailed(e) | DbStatus::QueryFailed(e) =
            sent
        {
            assert_eq!(db.reason(), Some(e.to_string()));
        }
    }
    assert!(want.next().is_none());
}

/// `strata record` with a cell and a node on a closed port stores why
/// they are unreachable typed: where, and the io kind of the refusal.
#[test]
fn a_live_recording_keeps_the_kind_of_a_refused_connection() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host");
    let at = format!("127.0.0.1:{port}");
    let spec = format!("root@{at}");
    let known = dir.path().join("known_hosts");
    let args = [
        "--cell",
        &spec,
        "--node",
        &spec,
        "--known-hosts",
        known.to_str().unwrap(),
    ];
    let file = common::record_root(dir.path(), &root, &args);
    let mut player = Player::open(&file).unwrap();
    let want = HostStatus::Unreachable(Unreachable::Connect {
        at: at.clone(),
        kind: "ConnectionRefused".into(),
        message: std::io::Error::from_raw_os_error(libc::ECONNREFUSED).to_string(),
    });
    let (mut cell, mut node) = (Vec::new(), Vec::new());
    while let Some((_, input)) = player.next_input() {
        match input {
            Input::Cell(CellEvent::Status { status, .. }) => cell.push(status),
            Input::NodeStatus { status, .. } => node.push(status),
            _ => {}
        }
    }
    assert_eq!(cell, [HostStatus::Connecting, want.clone()]);
    assert_eq!(node, [HostStatus::Connecting, want.clone()]);
    assert_eq!(
        want.to_string(),
        format!("{at}: Connection refused (os error 111)")
    );
}

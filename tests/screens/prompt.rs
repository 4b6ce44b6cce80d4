//! The passphrase prompt on screen, driven by keys through the keymap as
//! the live loop drives it; the passphrase is read back from the store the
//! cells' tasks wait on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{app_with, cell_target as target, render};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::{Path, PathBuf};
use strata::app::keymap::{KeyMode, map_key};
use strata::app::{Action, App, Panel};
use strata::layers::cells::source::CellEvent;
use strata::link::{HostStatus, PassphraseStore};

const KEY: &str = "/home/oracle/.ssh/id_cells";
const OTHER: &str = "/home/oracle/.ssh/id_spare";

fn status(app: &mut App, cell: usize, status: HostStatus) {
    app.ingest_cell_event(CellEvent::Status { cell, status });
}

fn needs(path: &str) -> HostStatus {
    HostStatus::NeedsPassphrase(PathBuf::from(path))
}

/// cel01 and cel02 wait on KEY, cel03 is live.
fn app_and_store() -> (App, PassphraseStore) {
    let mut app = app_with(3);
    app.set_cells(vec![target("cel01"), target("cel02"), target("cel03")]);
    let store = PassphraseStore::new();
    app.set_passphrase_store(store.clone());
    status(&mut app, 2, HostStatus::Live);
    let i = Panel::ALL.iter().position(|p| *p == Panel::Cells).unwrap();
    app.update(Action::GotoPanel(i));
    assert!(app.passphrase_prompt().is_none());
    status(&mut app, 0, needs(KEY));
    status(&mut app, 1, needs(KEY));
    (app, store)
}

fn press(app: &mut App, code: KeyCode, mods: KeyModifiers) {
    if let Some(a) = map_key(KeyEvent::new(code, mods), app.key_mode()) {
        app.update(a);
    }
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c), KeyModifiers::NONE);
    }
}

fn key(app: &mut App, code: KeyCode) {
    press(app, code, KeyModifiers::NONE);
}

#[test]
fn the_prompt_names_the_file_and_its_cells_and_hides_what_is_typed() {
    let (mut app, store) = app_and_store();
    assert_eq!(app.key_mode(), KeyMode::Passphrase);
    let empty = render(&mut app, 100, 24);
    insta::assert_snapshot!("passphrase_prompt_100x24", empty);
    assert!(
        empty.contains("Passphrase for /home/oracle/.ssh/id_cells (cells: cel01, cel02):"),
        "{empty}"
    );
    assert!(!empty.contains("••••"), "{empty}");

    // q, ? and Tab-free letters are passphrase, not commands
    typed(&mut app, "q?1s3");
    assert!(!app.quit && !app.ui.help);
    let short = render(&mut app, 100, 24);
    typed(&mut app, "cretXYZ");
    let long = render(&mut app, 100, 24);
    assert!(long.contains("•••••••• (hidden)"), "{long}");
    assert_eq!(short, long, "the screen tells the passphrase's length");
    for shown in ["q?1s3", "cret", "XYZ"] {
        assert!(!long.contains(shown), "{shown} on screen:\n{long}");
    }
    assert!(
        !format!("{:?}", app.passphrases).contains("XYZ"),
        "Debug of the app's passphrase state shows what was typed"
    );

    // Backspace drops the last key; Ctrl-U everything
    for _ in 0..3 {
        key(&mut app, KeyCode::Backspace);
    }
    press(&mut app, KeyCode::Char('u'), KeyModifiers::CONTROL);
    let cleared = render(&mut app, 100, 24);
    assert_eq!(cleared, empty, "Ctrl-U left something typed");
    // an Enter on nothing is not a try
    key(&mut app, KeyCode::Enter);
    assert!(app.passphrase_prompt().is_some());
    assert_eq!(store.get(Path::new(KEY)), None);

    typed(&mut app, "s3cretX");
    key(&mut app, KeyCode::Backspace);
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        store.get(Path::new(KEY)).as_deref().map(String::as_str),
        Some("s3cret")
    );
    assert!(app.passphrase_prompt().is_none());
    assert_eq!(app.key_mode(), KeyMode::Normal);
    let after = render(&mut app, 100, 24);
    assert!(!after.contains("Passphrase for"), "{after}");
    // both cells still say so until they log in
    assert_eq!(after.matches("needs passphrase").count(), 2, "{after}");
}

#[test]
fn esc_puts_the_prompt_off_until_i_and_nothing_reaches_the_store() {
    let (mut app, store) = app_and_store();
    typed(&mut app, "half");
    key(&mut app, KeyCode::Esc);
    assert!(app.passphrase_prompt().is_none());
    assert_eq!(store.get(Path::new(KEY)), None);
    let s = render(&mut app, 100, 24);
    assert_eq!(s.matches("needs passphrase").count(), 2, "{s}");
    // the cells asking again (a reconnect) do not bring it back
    status(&mut app, 0, needs(KEY));
    assert!(app.passphrase_prompt().is_none());
    // i does, empty
    key(&mut app, KeyCode::Char('i'));
    let s = render(&mut app, 100, 24);
    assert!(
        s.contains("Passphrase for /home/oracle/.ssh/id_cells"),
        "{s}"
    );
    assert!(!s.contains("••••"), "{s}");
    key(&mut app, KeyCode::Esc);
    // q quits again once the prompt is closed
    key(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn i_with_no_cell_waiting_says_so() {
    let mut app = app_with(3);
    app.set_cells(vec![target("cel01")]);
    key(&mut app, KeyCode::Char('i'));
    assert!(app.passphrase_prompt().is_none());
    let s = render(&mut app, 100, 24);
    assert!(s.contains("no cell or node waits for a passphrase"), "{s}");
}

/// A node's task waits on the same store as the cells': before, the prompt
/// looked at the cells only, so a node whose key was encrypted said
/// "needs passphrase" for ever and `i` said nobody waited.
#[test]
fn a_node_waiting_on_a_key_is_asked_for_it_once_with_the_cells_on_that_key() {
    use strata::app::Input;
    let mut app = app_with(3);
    app.set_cells(vec![target("cel01")]);
    app.set_nodes(common::ssh_nodes(&["db01", "db02"]));
    let store = PassphraseStore::new();
    app.set_passphrase_store(store.clone());
    let node_status = |app: &mut App, node: usize, status: HostStatus| {
        app.apply(Input::NodeStatus { node, status });
    };
    node_status(&mut app, 0, HostStatus::Live);
    assert!(app.passphrase_prompt().is_none());
    node_status(&mut app, 1, needs(OTHER));
    assert_eq!(app.key_mode(), KeyMode::Passphrase);
    let s = render(&mut app, 100, 24);
    assert!(
        s.contains("Passphrase for /home/oracle/.ssh/id_spare (nodes: db02):"),
        "{s}"
    );
    // put off, then the cell waits on the same file: i asks once for both
    key(&mut app, KeyCode::Esc);
    status(&mut app, 0, needs(OTHER));
    assert!(app.passphrase_prompt().is_none());
    key(&mut app, KeyCode::Char('i'));
    let s = render(&mut app, 100, 24);
    assert!(
        s.contains("Passphrase for /home/oracle/.ssh/id_spare (cells: cel01; nodes: db02):"),
        "{s}"
    );
    typed(&mut app, "node-key");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        store.get(Path::new(OTHER)).as_deref().map(String::as_str),
        Some("node-key")
    );
    assert!(app.passphrase_prompt().is_none());
}

#[test]
fn a_wrong_passphrase_reopens_the_prompt_and_says_so() {
    let (mut app, store) = app_and_store();
    typed(&mut app, "nope");
    key(&mut app, KeyCode::Enter);
    assert!(app.passphrase_prompt().is_none());
    // what a cell does with a passphrase that does not open the file
    store.forget(Path::new(KEY));
    app.ingest_cell_event(CellEvent::Stderr {
        cell: 0,
        text: format!("wrong passphrase for identity file {KEY}"),
    });
    status(&mut app, 0, needs(KEY));
    let s = render(&mut app, 100, 24);
    assert!(
        s.contains("wrong passphrase: the key file did not open"),
        "{s}"
    );
    assert!(s.contains("(cells: cel01, cel02)"), "{s}");
    // the other cell's late report of the same wrong try changes nothing
    status(&mut app, 1, needs(KEY));
    assert_eq!(render(&mut app, 100, 24), s);
    typed(&mut app, "right");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        store.get(Path::new(KEY)).as_deref().map(String::as_str),
        Some("right")
    );
    // a cell reporting after the new passphrase was given is trying it:
    // not asked again, not called wrong
    status(&mut app, 1, needs(KEY));
    assert!(app.passphrase_prompt().is_none());
    status(&mut app, 0, HostStatus::Live);
    status(&mut app, 1, HostStatus::Live);
    let s = render(&mut app, 100, 24);
    assert!(!s.contains("needs passphrase") && !s.contains("Passphrase for"));
}

#[test]
fn each_file_is_asked_once_in_turn_and_the_prompt_beats_the_help() {
    let (mut app, store) = app_and_store();
    status(&mut app, 2, needs(OTHER));
    // one prompt at a time: KEY's, asked first
    let s = render(&mut app, 100, 24);
    assert!(s.contains("id_cells (cells: cel01, cel02)"), "{s}");
    assert!(!s.contains("id_spare"), "{s}");
    typed(&mut app, "one");
    key(&mut app, KeyCode::Enter);
    let s = render(&mut app, 100, 24);
    assert!(s.contains("Passphrase for /home/oracle/.ssh/id_spare (cells: cel03):"));
    key(&mut app, KeyCode::Esc);
    assert!(app.passphrase_prompt().is_none());

    // a prompt that opens over the help overlay closes it and takes the keys
    key(&mut app, KeyCode::Char('?'));
    assert!(app.ui.help);
    status(&mut app, 0, HostStatus::Connecting);
    store.forget(Path::new(KEY));
    status(&mut app, 0, needs(KEY));
    assert!(!app.ui.help);
    assert_eq!(app.key_mode(), KeyMode::Passphrase);
    let s = render(&mut app, 100, 24);
    assert!(s.contains("wrong passphrase"), "{s}");
    assert!(!s.contains(" Keys "), "{s}");
}

#[test]
fn a_long_path_wraps_inside_the_prompt_on_a_narrow_screen() {
    let mut app = app_with(3);
    app.set_cells(vec![target("cel01")]);
    let long =
        "/u01/app/oracle/product/19.0.0/dbhome_1/network/admin/keys/cells/id_ed25519_exadata_cells";
    status(&mut app, 0, needs(long));
    let s = render(&mut app, 60, 20);
    assert!(s.contains("Enter unlock"), "{s}");
    assert!(s.contains("(cells: cel01):"), "{s}");
    assert!(s.contains("id_ed25519_exa"), "{s}");
}

/// A database without a password in its variable: the reader says so, the
/// prompt asks for it by the database's label, what is typed reaches the
/// store the reader waits on, and ORA-01017 (the reader forgets it) brings
/// the prompt back saying it was wrong.
#[test]
fn a_database_without_a_password_is_asked_for_it_and_told_when_it_is_wrong() {
    use strata::layers::dnfs::source::{DbEvent, DbStatus, parse_db_spec};
    use strata::link::Secret;
    let mut app = app_with(3);
    let store = PassphraseStore::new();
    app.set_passphrase_store(store.clone());
    app.set_dbs(vec![parse_db_spec("dbsnmp@//prod-scan:1521/PROD").unwrap()]);
    let label = app.dnfs.list[0].target.label.clone();
    let db_status = |app: &mut App, status: DbStatus| {
        app.ingest_db_event(DbEvent::Status { db: 0, status });
    };
    db_status(&mut app, DbStatus::Connecting);
    assert!(app.passphrase_prompt().is_none());
    db_status(&mut app, DbStatus::NoPassword("STRATA_DB_PASSWORD".into()));
    assert_eq!(app.key_mode(), KeyMode::Passphrase);
    let asked = render(&mut app, 100, 24);
    insta::assert_snapshot!("db_password_prompt_100x24", asked);
    assert!(
        asked.contains(&format!("Password for the database {label}:")),
        "{asked}"
    );
    typed(&mut app, "tiger");
    key(&mut app, KeyCode::Enter);
    let key_of = Secret::Database(label.clone());
    assert_eq!(
        store.get(key_of.clone()).as_deref().map(String::as_str),
        Some("tiger")
    );
    assert!(app.passphrase_prompt().is_none());

    // what run_db does on ORA-01017 with a typed password
    store.forget(key_of.clone());
    db_status(
        &mut app,
        DbStatus::ConnectFailed("ORA-01017: invalid username/password; logon denied".into()),
    );
    db_status(&mut app, DbStatus::NoPassword("STRATA_DB_PASSWORD".into()));
    let again = render(&mut app, 100, 24);
    assert!(
        again.contains("wrong password: the database refused it (ORA-01017)"),
        "{again}"
    );
    typed(&mut app, "scott");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        store.get(key_of).as_deref().map(String::as_str),
        Some("scott")
    );
    let after = render(&mut app, 100, 24);
    assert!(
        !after.contains("••••") && !after.contains("scott"),
        "{after}"
    );
}

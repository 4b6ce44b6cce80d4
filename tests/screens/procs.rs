//! The process panel: its roles, a role's processes and one process, on
//! one host and in the cluster, from samples the layer's own table made
//! (tests/common/procs.rs) and fed through the app's inputs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::procs::{procs_app, procs_cluster_app};
use common::render;
use strata::app::{Action, App, Panel, View};

fn goto(app: &mut App, panel: Panel) {
    let i = Panel::ALL.iter().position(|p| *p == panel).expect("panel");
    app.update(Action::GotoPanel(i));
}

fn keys(app: &mut App, actions: &[Action]) {
    for a in actions {
        app.update(a.clone());
    }
}

fn line_with<'a>(screen: &'a str, what: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line with {what:?} in\n{screen}"))
}

/// The roles panel, the DBWR's processes, and DBW1 (idle one second in
/// four: gaps in its charts), as the screen matrix shows them.
pub fn roles() -> App {
    let mut app = procs_app();
    goto(&mut app, Panel::Procs);
    app
}

pub fn role() -> App {
    let mut app = roles();
    app.update(Action::Enter);
    app
}

pub fn process() -> App {
    let mut app = role();
    keys(&mut app, &[Action::Down, Action::Enter]);
    app
}

pub fn cluster_roles() -> App {
    let mut app = procs_cluster_app();
    goto(&mut app, Panel::Procs);
    app
}

#[test]
fn the_roles_panel_sums_each_role_and_says_what_it_could_not_read() {
    let mut app = roles();
    let screen = render(&mut app, 120, 40);
    // the writers first (sorted by kB_wr/s): two DBWn summed
    let dbwr = line_with(&screen, "DBWR");
    assert!(
        dbwr.contains("PROD1") && dbwr.contains("70500.00"),
        "{dbwr}"
    );
    assert!(line_with(&screen, "session").contains("140100.00"));
    // PMON could not be read: its role's I/O is unknown, never 0
    let pmon = line_with(&screen, "bg:pmon");
    assert!(pmon.contains("0+1?") && pmon.contains('–'), "{pmon}");
    assert!(screen.contains("8 read of 9 processes"), "{screen}");
    assert!(
        screen.contains("1 process of user oracle unreadable: run as root or as oracle"),
        "{screen}"
    );
    // u: MB/s
    app.update(Action::ToggleUnits);
    let mb = render(&mut app, 120, 40);
    assert!(mb.contains("MB_wr/s"), "{mb}");
    assert!(line_with(&mb, "DBWR").contains("68.85"), "{mb}");
}

#[test]
fn enter_lists_a_roles_processes_sorted_and_filtered() {
    let mut app = role();
    assert_eq!(app.view(), &View::ProcRole("DBWR PROD1".into()));
    let screen = render(&mut app, 120, 40);
    assert!(screen.contains("DBWR PROD1 · 2 of 2 processes"), "{screen}");
    let first = screen.find("4101").expect("dbw0");
    let second = screen.find("4102").expect("dbw1");
    assert!(first < second, "{screen}");
    // r: the other way round
    app.update(Action::SortReverse);
    let rev = render(&mut app, 120, 40);
    assert!(rev.find("4102") < rev.find("4101"), "{rev}");
    // / filters this table, where it is
    keys(
        &mut app,
        &[
            Action::StartFilter,
            Action::FilterChar('d'),
            Action::FilterChar('b'),
            Action::FilterChar('w'),
            Action::FilterChar('1'),
            Action::FilterCommit,
        ],
    );
    assert_eq!(app.view(), &View::ProcRole("DBWR PROD1".into()));
    let filtered = render(&mut app, 120, 40);
    assert!(filtered.contains("1 of 2 processes"), "{filtered}");
    assert!(!filtered.contains("4101"), "{filtered}");
    // Esc: the roles again, unfiltered, the role still selected
    app.update(Action::Back);
    assert!(matches!(app.view(), View::Panel(_)));
    assert!(app.ui.filter.is_empty());
    assert_eq!(app.ui.proc_roles.selected.as_deref(), Some("DBWR PROD1"));
}

#[test]
fn a_process_shows_its_names_and_charts_and_says_idle_seconds_are_gaps() {
    let mut app = process();
    let View::Proc(p) = app.view().clone() else {
        panic!("{:?}", app.view());
    };
    assert_eq!((p.pid, p.cmd.as_str()), (4102, "ora_dbw1_PROD1"));
    let screen = render(&mut app, 120, 40);
    assert!(screen.contains("role DBWR PROD1"), "{screen}");
    assert!(screen.contains("user oracle"), "{screen}");
    assert!(screen.contains("kB_wr/s 29500.00"), "{screen}");
    assert!(screen.contains("no I/O in has no value: a gap"), "{screen}");
    assert!(screen.contains("Storage I/O"), "{screen}");
    // its history holds a gap for each second it was idle
    let n = app.host().procs.history.capacity();
    let writes = app.host().procs.series(&p.entity(), 1, n);
    assert!(writes.iter().any(|v| v.is_nan()), "{writes:?}");
    assert!(writes.iter().any(|v| *v > 29_000.0), "{writes:?}");
    app.update(Action::Back);
    assert_eq!(app.view(), &View::ProcRole("DBWR PROD1".into()));
}

#[test]
fn the_clusters_roles_are_each_nodes_and_their_sums() {
    let mut app = cluster_roles();
    let screen = render(&mut app, 120, 40);
    // dd runs on both nodes: summed; a role of an instance on each node
    // is summed over the instances, the cluster's DBWR
    let dd = line_with(&screen, "∑ cluster dd");
    assert!(dd.contains("4096.00"), "{dd}");
    let dbwr = line_with(&screen, "∑ cluster DBWR");
    assert!(dbwr.contains("all") && dbwr.contains("141000.00"), "{dbwr}");
    assert!(line_with(&screen, "db02      DBWR").contains("PROD2"));
    // db02 keeps no I/O delay: its iodelay is unknown, so is the sum's
    let systemd = line_with(&screen, "∑ cluster systemd");
    assert!(systemd.contains('–'), "{systemd}");
    assert!(
        screen.contains("I/O delay not kept: sysctl -w kernel.task_delayacct=1"),
        "{screen}"
    );
    // Enter on the sum: dd's processes on both nodes
    let keys_to = |app: &App, key: &str| {
        app.role_lines()
            .iter()
            .position(|l| l.key == key)
            .expect(key)
    };
    let at = keys_to(&app, "∑ dd (all)");
    app.update(Action::Down);
    let now = keys_to(&app, app.ui.proc_roles.selected.clone().unwrap().as_str());
    keys(&mut app, &vec![Action::Down; at - now]);
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::ProcRole("dd (all)".into()));
    assert_eq!(app.ui.node, None);
    let dd = render(&mut app, 120, 40);
    assert!(dd.contains("dd (all) · 2 of 2 processes"), "{dd}");
    assert!(line_with(&dd, "db01").contains("8800"), "{dd}");
    assert!(line_with(&dd, "db02").contains("8800"), "{dd}");
}

#[test]
fn the_overview_names_each_hosts_top_io_role() {
    let mut app = procs_app();
    let small = render(&mut app, 80, 24);
    assert!(
        line_with(&small, "top I/O").contains("session PROD1 · 5200 oracle"),
        "{small}"
    );
    let mut cluster = procs_cluster_app();
    let wide = render(&mut cluster, 240, 70);
    assert!(wide.contains("top I/O role · process"), "{wide}");
    assert!(
        line_with(&wide, "!db02").contains("session PROD2 · 5200 oracle"),
        "{wide}"
    );
    assert!(line_with(&wide, "!cluster").contains("session PROD2@db02"));
    // 80 columns: a line of its own under each row's two, the I/O
    // figures whole
    let narrow = render(&mut cluster, 80, 24);
    assert!(narrow.contains("top I/O role · process"), "{narrow}");
    assert!(narrow.contains("%iowait"), "{narrow}");
    let db02 = narrow.lines().skip_while(|l| !l.contains("!db02")).nth(2);
    assert!(
        db02.is_some_and(|l| l.contains("session PROD2 · 5200 oracle")),
        "{narrow}"
    );
}

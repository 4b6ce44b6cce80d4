//! The cluster on the screen: three database nodes fed the fixture host's
//! samples (each its own phase of the generators), one of them unreachable;
//! the overview's cluster lines and one node's panels after `n`, drawn
//! into ratatui's TestBackend.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{app_with, cache_sample, nfs_sample, nic_sample, render, sample};
use strata::app::cluster::{CacheNodes, Nfs, Nics};
use strata::app::input::NodeInput;
use strata::app::{Action, App, Input, Panel, View};
use strata::layers::cache::model::CacheCol;
use strata::layers::disks::model::DiskCol;
use strata::layers::nfs::model::NfsMountCol;
use strata::layers::nfs::state::{NfsFig, nfs_figure};
use strata::layers::nfs::tick::NfsRow;
use strata::layers::nics::model::NicCol;
use strata::layers::nics::state::{NicFig, nic_figure};
use strata::layers::nics::tick::NicRow;
use strata::link::target::{NodeTarget, parse_ssh_spec};
use strata::link::{HostStatus, Unreachable};

const BASE_MS: i64 = 1_795_000_000_000;
const STEPS: u64 = 20;

fn node(app: &mut App, node: usize, input: NodeInput) {
    app.apply(Input::Node { node, input });
}

/// db01 and db02 live (db02 five seconds of the generators ahead, so
/// their figures differ), db03 unreachable.
fn cluster_app() -> App {
    nodes_app(3, 2)
}

/// `n` nodes, db01 on: the first `live` live, each five seconds of the
/// generators ahead of the one before, the others unreachable.
fn nodes_app(n: usize, live: usize) -> App {
    let hosts: Vec<String> = (1..=n).map(|i| format!("db{i:02}")).collect();
    nodes_app_of(&hosts, live)
}

/// [`nodes_app`] of nodes named `hosts`.
fn nodes_app_of(hosts: &[String], live: usize) -> App {
    let n = hosts.len();
    let mut app = app_with(2);
    let targets = hosts
        .iter()
        .map(|h| NodeTarget::Remote(parse_ssh_spec(&format!("oracle@{h}"), "oracle").unwrap()))
        .collect();
    app.set_nodes(targets);
    for i in 0..live {
        let status = HostStatus::Live;
        app.apply(Input::NodeStatus { node: i, status });
        for k in 0..STEPS {
            let at = BASE_MS + k as i64 * 1000;
            let g = k + 5 * i as u64;
            let mut d = sample(g);
            d.wall_ms = at;
            let mut n = nic_sample(g);
            n.wall_ms = at;
            let mut f = nfs_sample(g);
            f.wall_ms = at;
            let mut c = cache_sample(g);
            c.wall_ms = at;
            node(&mut app, i, NodeInput::Disks(Ok(d)));
            node(&mut app, i, NodeInput::Nics(Ok(n)));
            node(&mut app, i, NodeInput::Nfs(Ok(f)));
            node(&mut app, i, NodeInput::Cache(Ok(c)));
        }
    }
    for i in live..n {
        let status = HostStatus::Unreachable(Unreachable::Connect {
            at: format!("db{:02}:22", i + 1),
            kind: "ConnectionRefused".into(),
            message: "Connection refused (os error 111)".into(),
        });
        app.apply(Input::NodeStatus { node: i, status });
    }
    app.now_ms = BASE_MS + (STEPS as i64 - 1) * 1000 + 300;
    app
}

fn line_with<'a>(screen: &'a str, what: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line with {what:?} in\n{screen}"))
}

fn total(app: &App, i: usize, col: DiskCol) -> f64 {
    app.nodes[i]
        .layers
        .disks
        .tick()
        .and_then(|t| t.total.as_ref())
        .and_then(|r| r.get(col))
        .expect("a figure")
}

#[test]
fn the_overview_shows_the_cluster_a_line_per_node_and_the_clusters() {
    let mut app = cluster_app();
    let screen = render(&mut app, 80, 24);
    insta::assert_snapshot!("cluster_80x24", screen);
    assert!(screen.contains("Cluster · 3 nodes · 2 live"), "{screen}");
    assert!(
        line_with(&screen, " db03").contains("unreachable"),
        "{screen}"
    );
    // bond0's active slave is not its primary on both live nodes
    assert!(line_with(&screen, "│!db01").contains("16497.0"), "{screen}");
    // the cluster's r/s is the live nodes' sum, as each node's line says
    let (a, b) = (
        total(&app, 0, DiskCol::RPerS),
        total(&app, 1, DiskCol::RPerS),
    );
    assert!((a - b).abs() > 1.0, "the nodes differ: {a} {b}");
    let sum = strata::format::fit(Some(a + b), 7, 1);
    let cluster = line_with(&screen, "cluster (2 of 3)");
    assert!(cluster.contains(&sum), "{sum} in {cluster}");
    assert!(line_with(&screen, "!db01").contains(&strata::format::fit(Some(a), 7, 1)));
    assert!(screen.contains("strata  LIVE  cluster of 3"), "{screen}");
    // 80 columns: every column the issue names, each live row's figures
    // whole (a row's second line under its first)
    for header in NAMED_HEADERS {
        assert!(screen.contains(header), "{header} in {screen}");
    }
    assert!(!screen.contains('…'), "{screen}");
    let (rows, total) = app.cluster_rows();
    for r in rows.iter().chain([&total]).filter(|r| r.label != "db03") {
        assert_whole(&screen, r);
    }
    // a wide screen has room for every column
    let wide = render(&mut app, 160, 30);
    insta::assert_snapshot!("cluster_160x30", wide);
    for header in NAMED_HEADERS {
        assert!(wide.contains(header), "{header} in {wide}");
    }
    // the cluster's IOPS and MB/s over the window in the rows to spare
    assert!(line_with(&wide, "IOPS (r/s + w/s) cluster").contains("MB/s (read + written)"));
}

/// The cluster's busiest device names its node in full where the line
/// has the room: at 160 columns it was cut to "sdb@127.0.0…" with 40
/// columns to spare (issue 26).
#[test]
fn the_clusters_busiest_device_names_its_whole_node() {
    let hosts: Vec<String> = (61..=63).map(|i| format!("127.0.0.{i}:36237")).collect();
    let mut app = nodes_app_of(&hosts, 3);
    let (_, total) = app.cluster_rows();
    let (dev, _) = total.busiest.clone().expect("a busiest device");
    assert!(dev.ends_with(":36237"), "{dev}");
    // the cluster's row, flagged for its nodes' bonds
    let row = |s: &str| line_with(s, "│!cluster ").to_string();
    for w in [160, 200] {
        let wide = render(&mut app, w, 30);
        assert!(
            row(&wide).contains(&format!(" {dev} ")),
            "{dev} cut:\n{wide}"
        );
    }
    // where it cannot, it is cut whole-figured, its %util kept
    let narrow = render(&mut app, 80, 24);
    assert!(row(&narrow).contains("… 60.0│"), "{narrow}");
}

/// The cluster line's column headers, every figure the issue names.
const NAMED_HEADERS: [&str; 10] = [
    "r/s",
    "w/s",
    "MB/s",
    "r_await",
    "w_await",
    "busiest  %util",
    "in MB/s",
    "out MB/s",
    "dirty/wb MB",
    "NFS op/s",
];

/// Every figure of `r` is on its line or the next, whole, as the
/// overview's columns print it.
fn assert_whole(screen: &str, r: &strata::app::host::ClusterRow) {
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| {
            let name = l.trim_start_matches("\"│").get(1..).unwrap_or("");
            name.starts_with(&format!("{} ", r.label))
        })
        .unwrap_or_else(|| panic!("no line of {} in\n{screen}", r.label));
    let both = format!("{} {}", lines[at], lines.get(at + 1).unwrap_or(&""));
    let fit = |v: Option<f64>, w: usize, d: usize| strata::format::fit(v, w, d);
    let (dev, util) = r.busiest.clone().expect("a busiest device");
    let figures = [
        fit(r.r_s, 7, 1),
        fit(r.w_s, 7, 1),
        fit(r.mb_s, 6, 1),
        fit(r.r_await, 7, 2),
        fit(r.w_await, 7, 2),
        format!("{dev} "),
        fit(Some(util), 5, 1),
        fit(r.nic_in_mb, 7, 1),
        fit(r.nic_out_mb, 8, 1),
        format!("{}/{}", fit(r.dirty_mb, 5, 0), fit(r.writeback_mb, 5, 0)),
        fit(r.nfs_ops, 8, 1),
    ];
    for text in figures {
        assert!(
            !text.contains('–'),
            "{} knows every figure: {text}",
            r.label
        );
        assert!(
            both.contains(&format!(" {text}")),
            "{text} of {} in\n{both}",
            r.label
        );
    }
}

#[test]
fn more_nodes_than_80x24_holds_scroll_with_the_selection_every_figure_whole() {
    let mut app = nodes_app(6, 6);
    let screen = render(&mut app, 80, 24);
    assert!(screen.contains("6 live · 1–4 shown"), "{screen}");
    let (rows, total) = app.cluster_rows();
    for r in rows.iter().take(4).chain([&total]) {
        assert_whole(&screen, r);
    }
    assert!(!screen.contains("db05"), "{screen}");
    for _ in 0..5 {
        app.update(Action::Down);
    }
    let screen = render(&mut app, 80, 24);
    insta::assert_snapshot!("cluster_6_nodes_db06_selected_80x24", screen);
    assert!(screen.contains("6 live · 3–6 shown"), "{screen}");
    for r in rows.iter().skip(2).chain([&total]) {
        assert_whole(&screen, r);
    }
    assert!(!screen.contains("db02"), "{screen}");
    // on a tall screen every node, no scrolling
    let tall = render(&mut app, 80, 40);
    assert!(tall.contains("6 live · ↑↓"), "{tall}");
    for r in rows.iter().chain([&total]) {
        assert_whole(&tall, r);
    }
}

#[test]
fn a_tall_screen_charts_the_clusters_iops_and_mb_s_under_the_lines() {
    let mut app = cluster_app();
    let screen = render(&mut app, 200, 60);
    insta::assert_snapshot!("cluster_200x60", screen);
    // the busiest node's series beside the cluster's, in both charts
    let (rows, _) = app.cluster_rows();
    let busiest = rows
        .iter()
        .filter(|r| r.mb_s.is_some())
        .max_by(|a, b| a.mb_s.partial_cmp(&b.mb_s).unwrap())
        .unwrap();
    for chart in ["IOPS (r/s + w/s) cluster", "MB/s (read + written) cluster"] {
        let title = line_with(&screen, chart);
        assert!(title.contains(&format!(" {} ", busiest.label)), "{title}");
    }
    // the cluster's sparkline on its line, the nodes' on theirs
    for label in ["!cluster (2 of 3)", "!db01", "!db02"] {
        assert!(
            line_with(&screen, label)
                .chars()
                .any(|c| ('▁'..='█').contains(&c)),
            "{label} in {screen}"
        );
    }
}

#[test]
fn a_node_that_stops_sending_turns_stale_after_two_intervals() {
    let mut app = cluster_app();
    app.now_ms += 2500;
    let screen = render(&mut app, 80, 24);
    assert!(
        line_with(&screen, "│ db01").contains("stale 2 s"),
        "{screen}"
    );
    assert!(screen.contains("0 live"), "{screen}");
    assert!(
        line_with(&screen, "cluster (0 of 3)").contains('–'),
        "{screen}"
    );
}

#[test]
fn n_shows_one_nodes_panels_and_then_the_cluster_again() {
    let mut app = cluster_app();
    app.update(Action::CycleNode);
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("strata  LIVE  node db01"), "{screen}");
    assert!(screen.contains("│ db01 › Overview"), "{screen}");
    assert!(screen.contains("Host · block devices"), "{screen}");
    let i = Panel::ALL.iter().position(|p| *p == Panel::Nics).unwrap();
    app.update(Action::GotoPanel(i));
    let nics = render(&mut app, 160, 24);
    insta::assert_snapshot!("node_db01_nics_160x24", nics);
    assert!(nics.contains("│ db01 › NICs"), "{nics}");
    assert!(
        nics.contains("! bond0: active slave eth1 is not the primary eth0"),
        "{nics}"
    );
    for _ in 0..3 {
        app.update(Action::CycleNode);
    }
    app.update(Action::GotoPanel(0));
    let back = render(&mut app, 80, 24);
    assert!(back.contains("LIVE  cluster of 3"), "{back}");
    assert!(back.contains("Cluster · 3 nodes"), "{back}");
}

#[test]
fn the_clusters_disks_in_one_table_busiest_first_and_enter_opens_the_nodes_disk() {
    let mut app = cluster_app();
    let i = Panel::ALL.iter().position(|p| *p == Panel::Disks).unwrap();
    app.update(Action::GotoPanel(i));
    let screen = render(&mut app, 160, 24);
    insta::assert_snapshot!("cluster_disks_by_util_160x24", screen);
    assert!(screen.contains("sort %util ↓"), "{screen}");
    let header = line_with(&screen, "Device");
    assert!(header.contains("│Node   Device"), "{header}");
    // sorted by %util over both live nodes: the first row's is the highest
    let rows = app.table_rows::<strata::app::cluster::Disks>();
    let util = |r: &strata::layers::disks::tick::DiskRow| {
        r.rates
            .and_then(|x| x.get(DiskCol::Util))
            .unwrap_or(f64::NAN)
    };
    let top = util(rows[0].1);
    assert!(
        rows.iter().all(|(_, r)| util(r).is_nan() || util(r) <= top),
        "not the busiest first"
    );
    assert!(rows.iter().any(|(n, _)| *n == Some(0)) && rows.iter().any(|(n, _)| *n == Some(1)));
    assert!(
        !rows.iter().any(|(n, _)| *n == Some(2)),
        "db03 is down: none of its disks"
    );
    // Enter: that node's disk, its breadcrumb naming the node
    let (node, name) = (rows[0].0.unwrap(), rows[0].1.display_name().to_string());
    app.update(Action::Enter);
    let detail = render(&mut app, 160, 40);
    let label = ["db01", "db02"][node];
    assert!(
        detail.contains(&format!("│ {label} › Disks › {name}")),
        "{detail}"
    );
    app.update(Action::Back);
    app.update(Action::Back);
    let back = render(&mut app, 160, 24);
    assert!(back.contains("│ cluster › Disks"), "{back}");
}

/// A filter typed in the cluster's table that names a node ("db02") keeps
/// that node's rows when Enter opens one of them and Esc goes back to the
/// node's table: it once matched the node's label only in the cluster's
/// table, and the node's own table said "0 of 10 devices".
#[test]
fn a_filter_that_named_a_node_keeps_its_rows_in_the_nodes_table() {
    let mut app = cluster_app();
    goto(&mut app, Panel::Disks);
    app.update(Action::StartFilter);
    for c in "db02".chars() {
        app.update(Action::FilterChar(c));
    }
    app.update(Action::FilterCommit);
    let rows = app.table_rows::<strata::app::cluster::Disks>();
    assert!(!rows.is_empty() && rows.iter().all(|(n, _)| *n == Some(1)));
    let n = rows.len();
    app.update(Action::Enter);
    app.update(Action::Back);
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("│ db02 › Disks"), "{screen}");
    assert_eq!(app.disk_rows().len(), n, "{screen}");
    assert!(screen.contains(&format!("Disks · {n} of")), "{screen}");
}

fn goto(app: &mut App, panel: Panel) {
    let i = Panel::ALL.iter().position(|p| *p == panel).unwrap();
    app.update(Action::GotoPanel(i));
}

/// The label of a row's node in the cluster's tables.
fn label(node: Option<usize>) -> &'static str {
    ["db01", "db02", "db03"][node.expect("a node's row")]
}

/// The row of the cluster's table on screen that starts with `label` and
/// holds `name`.
fn row_of<'a>(screen: &'a str, label: &str, name: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.starts_with(&format!("\"│{label} ")) && l.contains(name))
        .unwrap_or_else(|| panic!("no row of {label} {name} in\n{screen}"))
}

#[test]
fn the_clusters_nics_in_one_table_busiest_first_each_figure_its_nodes() {
    let mut app = cluster_app();
    goto(&mut app, Panel::Nics);
    let screen = render(&mut app, 80, 24);
    insta::assert_snapshot!("cluster_nics_by_rkb_80x24", screen);
    assert!(screen.contains("sort rKB/s ↓"), "{screen}");
    assert!(
        line_with(&screen, "Int").contains("│Node   ! Int"),
        "{screen}"
    );
    let rows = app.table_rows::<Nics>();
    let rkb = |r: &NicRow| nic_figure(r.rates.as_ref(), NicFig::Col(NicCol::RKbPerS));
    let top = rkb(rows[0].1).expect("a rate");
    assert!(rows.iter().all(|(_, r)| rkb(r).is_none_or(|v| v <= top)));
    assert!(rows.iter().any(|(n, _)| *n == Some(0)) && rows.iter().any(|(n, _)| *n == Some(1)));
    assert!(!rows.iter().any(|(n, _)| *n == Some(2)), "db03 is down");
    assert!(!screen.contains("db03"), "{screen}");
    // each row's figures are its own node's, as that node's tick has them
    for (i, r) in &rows {
        let own = app.nodes[i.unwrap()].layers.nics.tick().unwrap();
        let own = own.rows.iter().find(|o| o.name == r.name).unwrap();
        let text = strata::format::fit(rkb(own), 8, 2);
        assert!(row_of(&screen, label(*i), &format!(" {} ", r.name)).contains(&text));
    }
    assert!(
        rkb(rows[0].1) != rkb(rows[1].1),
        "the nodes' figures differ"
    );
    // both nodes' bond warnings, each named
    for l in ["db01", "db02"] {
        let w = format!("! {l}: bond0: active slave eth1 is not the primary eth0");
        assert!(screen.contains(&w), "{w} in {screen}");
    }
    let wide = render(&mut app, 160, 24);
    insta::assert_snapshot!("cluster_nics_by_rkb_160x24", wide);
    assert!(line_with(&wide, "Int").contains("%Util"), "{wide}");
    // a filter matches a node's label
    app.update(Action::StartFilter);
    for c in "db02".chars() {
        app.update(Action::FilterChar(c));
    }
    app.update(Action::FilterCommit);
    let rows = app.table_rows::<Nics>();
    assert!(!rows.is_empty() && rows.iter().all(|(n, _)| *n == Some(1)));
}

#[test]
fn enter_on_the_clusters_nics_opens_that_nodes_nic_as_its_own_panel_does() {
    let mut app = cluster_app();
    goto(&mut app, Panel::Nics);
    let rows = app.table_rows::<Nics>();
    // the first row of the node the top row is not of
    let at = rows.iter().position(|(n, _)| *n != rows[0].0).unwrap();
    let (node, name) = (rows[at].0, rows[at].1.name.clone());
    for _ in 0..at {
        app.update(Action::Down);
    }
    app.update(Action::Enter);
    assert_eq!(app.ui.node, node);
    assert_eq!(app.view(), &View::Nic(name.clone()));
    let detail = render(&mut app, 120, 40);
    assert!(
        detail.contains(&format!("│ {} › NICs › {name}", label(node))),
        "{detail}"
    );
    // the same view as the node's own NIC panel gives
    let mut own = cluster_app();
    for _ in 0..=node.unwrap() {
        own.update(Action::CycleNode);
    }
    goto(&mut own, Panel::Nics);
    let there = own.nic_rows().iter().position(|r| r.name == name).unwrap();
    for _ in 0..there {
        own.update(Action::Down);
    }
    own.update(Action::Enter);
    assert_eq!(render(&mut own, 120, 40), detail);
    // Esc: the node's NICs, then the cluster's, on the same row
    app.update(Action::Back);
    assert!(render(&mut app, 120, 24).contains(&format!("│ {} › NICs", label(node))));
    app.update(Action::Back);
    let back = render(&mut app, 120, 24);
    assert!(back.contains("│ cluster › NICs"), "{back}");
    let key = format!("{} {name}", label(node));
    assert_eq!(app.ui.nics.selected.as_deref(), Some(key.as_str()));
}

#[test]
fn the_clusters_nfs_mounts_in_one_table_and_enter_opens_the_nodes_mount() {
    let mut app = cluster_app();
    goto(&mut app, Panel::Nfs);
    let screen = render(&mut app, 80, 24);
    insta::assert_snapshot!("cluster_nfs_by_ops_80x24", screen);
    assert!(screen.contains("sort ops/s ↓"), "{screen}");
    assert!(
        line_with(&screen, "Export").contains("│Node   Export"),
        "{screen}"
    );
    let rows = app.table_rows::<Nfs>();
    assert!(rows.iter().any(|(n, _)| *n == Some(0)) && rows.iter().any(|(n, _)| *n == Some(1)));
    assert!(!rows.iter().any(|(n, _)| *n == Some(2)), "db03 is down");
    let ops = |r: &NfsRow| nfs_figure(r, NfsFig::Mount(NfsMountCol::OpsPerS));
    let top = ops(rows[0].1).unwrap();
    assert!(rows.iter().all(|(_, r)| ops(r).is_none_or(|v| v <= top)));
    for (i, r) in &rows {
        let own = app.nodes[i.unwrap()].layers.nfs.tick().unwrap();
        let own = own.rows.iter().find(|o| o.key == r.key).unwrap();
        let text = strata::format::fit(ops(own), 8, 2);
        assert!(
            row_of(&screen, label(*i), &r.export).contains(&text),
            "{screen}"
        );
    }
    let (node, key, export) = (rows[0].0, rows[0].1.key.clone(), rows[0].1.export.clone());
    app.update(Action::Enter);
    assert_eq!((app.ui.node, app.view()), (node, &View::Nfs(key)));
    let detail = render(&mut app, 120, 40);
    assert!(
        detail.contains(&format!("│ {} › NFS › {export}", label(node))),
        "{detail}"
    );
}

#[test]
fn the_clusters_page_cache_a_row_per_live_node_and_enter_opens_its_panel() {
    let mut app = cluster_app();
    goto(&mut app, Panel::Cache);
    let screen = render(&mut app, 80, 24);
    insta::assert_snapshot!("cluster_cache_by_dirty_80x24", screen);
    assert!(
        screen.contains("Page cache · 2 of 3 nodes · sort Dirty ↓"),
        "{screen}"
    );
    assert!(!screen.contains("db03"), "{screen}");
    let rows = app.table_rows::<CacheNodes>();
    assert_eq!(rows.len(), 2, "db01 and db02, not the down db03");
    let dirty = |i: usize| {
        let t = app.nodes[i].layers.cache.tick().unwrap();
        t.figures.get(CacheCol::Dirty).unwrap()
    };
    assert!(dirty(0) != dirty(1), "the nodes' figures differ");
    let busiest = if dirty(0) > dirty(1) { 0 } else { 1 };
    assert_eq!(rows[0].0, Some(busiest), "the node with most dirty first");
    // every figure the one-node panel's summary gives, as each node's own
    let kib = |v: f64| strata::format::bytes(v as u64 * 1024);
    for (i, _) in &rows {
        let figures = app.nodes[i.unwrap()].layers.cache.tick().unwrap().figures;
        let line = row_of(&screen, label(*i), "");
        for c in [
            CacheCol::Cached,
            CacheCol::CachedLessShmem,
            CacheCol::Dirty,
            CacheCol::Writeback,
        ] {
            let text = kib(figures.get(c).unwrap());
            assert!(line.contains(&format!(" {text}")), "{c:?} {text} in {line}");
        }
    }
    let wide = render(&mut app, 160, 24);
    insta::assert_snapshot!("cluster_cache_by_dirty_160x24", wide);
    assert!(line_with(&wide, "Node").contains("refault/s"), "{wide}");
    // Enter: that node's page cache panel; Esc: the cluster's again
    app.update(Action::Enter);
    assert_eq!(app.ui.node, Some(busiest));
    let panel = render(&mut app, 120, 30);
    assert!(
        panel.contains(&format!("│ {} › Cache", label(Some(busiest)))),
        "{panel}"
    );
    assert!(panel.contains("Page cache · /proc/meminfo"), "{panel}");
    app.update(Action::Back);
    let back = render(&mut app, 80, 24);
    assert!(back.contains("Page cache · 2 of 3 nodes"), "{back}");
    assert_eq!(app.ui.node, None);
}

#[test]
fn n_and_esc_keep_the_selected_row_between_the_clusters_table_and_its_node() {
    let mut app = cluster_app();
    goto(&mut app, Panel::Nics);
    let rows = app.table_rows::<Nics>();
    let at = rows.iter().position(|(n, _)| *n == Some(0)).unwrap();
    let name = rows[at].1.name.clone();
    for _ in 0..at {
        app.update(Action::Down);
    }
    app.update(Action::CycleNode);
    assert_eq!(app.ui.node, Some(0));
    assert_eq!(app.ui.nics.selected.as_deref(), Some(name.as_str()));
    app.update(Action::Back);
    assert_eq!(app.ui.node, None);
    let key = format!("db01 {name}");
    assert_eq!(app.ui.nics.selected.as_deref(), Some(key.as_str()));
    let screen = render(&mut app, 120, 24);
    assert!(screen.contains("│ cluster › NICs"), "{screen}");
}

/// A node's watched files as its fincore runs give them: the panel says
/// where, how often and how long ago; and plainly why not on a node
/// without fincore.
#[test]
fn a_nodes_files_say_fincore_on_the_node_its_cadence_and_age_or_why_not() {
    use strata::layers::cache::fincore::{FincoreStatus, parse_fincore};
    use strata::layers::cache::residency::Method;
    let mut app = cluster_app();
    let run = parse_fincore(
        "=e 10000\n=p 4096\n20480 5 20000 /u01/redo\\x2001.log",
        &[],
        "t",
    );
    for (i, missing) in [(0, false), (1, true)] {
        for k in 0..2u64 {
            let mut c = cache_sample(STEPS + k);
            c.wall_ms = BASE_MS + (STEPS + k) as i64 * 1000;
            c.method = Some(Method::Fincore);
            c.files = if missing {
                vec![strata::layers::cache::source::CacheFile {
                    path: "/u01/*.log".into(),
                    result: Err(strata::layers::cache::error::FileError::NoFincore),
                }]
            } else {
                run.files.clone()
            };
            c.fincore = Some(FincoreStatus {
                every_ms: run.every_ms,
                at_ms: Some(BASE_MS + STEPS as i64 * 1000 - 2000),
                missing,
                capped: None,
            });
            node(&mut app, i, NodeInput::Cache(Ok(c)));
        }
    }
    app.now_ms = BASE_MS + (STEPS as i64 + 1) * 1000 + 300;
    app.update(Action::CycleNode);
    let i = Panel::ALL.iter().position(|p| *p == Panel::Cache).unwrap();
    app.update(Action::GotoPanel(i));
    // how old the figures are stays before the total where both do not
    // fit: at 100 columns the age was the first part dropped
    for w in [200, 100, 90] {
        let screen = render(&mut app, w, 40);
        let title = line_with(&screen, "Files ·");
        assert!(
            title.contains("residency by fincore on db01 every 10 s, last 3 s ago"),
            "{w}: {screen}"
        );
    }
    let screen = render(&mut app, 200, 40);
    // fincore knows no dirty pages: "–", as mincore's rows
    let row = line_with(&screen, "/u01/redo 01.log");
    assert!(row.contains("20.0 KiB") && row.contains("100.0"), "{row}");
    assert!(row.contains("–"), "{row}");
    app.update(Action::CycleNode);
    let screen = render(&mut app, 200, 40);
    assert!(
        line_with(&screen, "Files ·").contains("fincore not found on db02: util-linux 2.30"),
        "{screen}"
    );
    assert!(line_with(&screen, "/u01/*.log").contains("not on the node's PATH"));
}

/// A node that cannot be reached never sends a sample: its panels say why
/// instead of waiting for a second sample for ever, the whole sentence
/// where there is room, a word or two in the overview's small boxes; the
/// cluster's tables say none is connected when no node is.
#[test]
fn a_down_nodes_panels_say_why_not_waiting() {
    let mut app = nodes_app(2, 0);
    goto(&mut app, Panel::Disks);
    let cluster = render(&mut app, 80, 24);
    assert!(
        cluster.contains("no database node is connected (of 2 nodes)"),
        "{cluster}"
    );
    assert!(
        !cluster.contains("waiting for the second sample"),
        "{cluster}"
    );
    app.update(Action::GotoPanel(0));
    app.update(Action::CycleNode);
    app.update(Action::CycleNode);
    let overview = render(&mut app, 80, 24);
    assert!(overview.contains("node db02"), "{overview}");
    assert!(
        !overview.contains("waiting for the second sample"),
        "{overview}"
    );
    // the disks box has the room for the sentence, wrapped whole, the
    // host named once
    assert!(
        overview.contains("db02:22: Connection refused (os error 111)"),
        "{overview}"
    );
    assert!(!overview.contains("db02: db02:22"), "{overview}");
    assert!(overview.contains("db02: unreachable"), "{overview}");
    goto(&mut app, Panel::Nics);
    let panel = render(&mut app, 80, 24);
    assert!(
        panel.contains("db02:22: Connection refused (os error 111)"),
        "{panel}"
    );
    assert!(!panel.contains("db02: db02:22"), "{panel}");
}

/// A node that was live and went away: 20 s later its overview, Disks
/// and NICs panels say why and how old its last figures are, never those
/// figures as current; one that stopped sending says since when. The
/// cluster's line gives the whole reason where the line has the room.
#[test]
fn a_node_that_went_away_says_why_not_its_last_figures() {
    let mut app = db02_gone();
    let why = "unreachable: db02:22: Connection refused (os error 111)";
    for (w, h) in [(160, 48), (100, 30)] {
        let screen = render(&mut app, w, h);
        // no node's figures are current: the cluster is not live
        assert!(screen.contains("STALE  cluster of 2"), "{screen}");
        assert!(line_with(&screen, "│ db02").contains(why), "{screen}");
        assert!(
            line_with(&screen, "│ db01").contains("stale 20 s"),
            "{screen}"
        );
    }
    // db02's last figures, which its panels showed while it was live
    let dev = app.nodes[1].layers.disks.tick().unwrap().rows[0]
        .name
        .clone();
    app.update(Action::CycleNode);
    app.update(Action::CycleNode);
    let overview = render(&mut app, 100, 30);
    assert!(overview.contains("STALE  node db02"), "{overview}");
    // the disks box wraps the sentence, whole
    let said = "db02:22: Connection refused (os error 111) · last sample 20 s ago";
    let (head, tail) = said.split_at(said.find(" s ago").unwrap());
    assert!(overview.contains(head), "{overview}");
    assert!(overview.contains(&tail[1..]), "{overview}");
    for figure in ["r_await ms", "bond0"] {
        assert!(!overview.contains(figure), "{figure} in {overview}");
    }
    goto(&mut app, Panel::Disks);
    let disks = render(&mut app, 100, 30);
    assert!(disks.contains(said), "{disks}");
    assert!(!disks.contains(&format!(" {dev} ")), "{disks}");
    // a disk opened before it went: its frame and why, no figure
    app.ui.stack.push(View::Disk(dev.clone()));
    let detail = render(&mut app, 100, 30);
    assert!(detail.contains(said), "{detail}");
    assert!(!detail.contains("r_await"), "{detail}");
    app.update(Action::Back);
    goto(&mut app, Panel::Nics);
    let nics = render(&mut app, 100, 30);
    assert!(nics.contains(said), "{nics}");
    assert!(!nics.contains("bond0"), "{nics}");
    // the cluster's table has no node to list, and says so
    app.update(Action::CycleNode);
    let cluster = render(&mut app, 100, 30);
    assert!(
        cluster.contains("no database node has current figures (of 2 nodes)"),
        "{cluster}"
    );
    // db01 is connected but sends nothing: its panels say since when
    app.update(Action::CycleNode);
    let stale = render(&mut app, 100, 30);
    assert!(stale.contains("STALE  node db01"), "{stale}");
    assert!(stale.contains("db01: no sample for 20 s"), "{stale}");
    assert!(!stale.contains("bond0"), "{stale}");
    // paused, the figures frozen are shown under the PAUSED badge; a
    // node with none still says why
    app.update(Action::TogglePause);
    let paused = render(&mut app, 100, 30);
    assert!(paused.contains("PAUSED  node db01"), "{paused}");
    assert!(paused.contains("bond0"), "{paused}");
    let mut down = nodes_app(2, 1);
    down.update(Action::TogglePause);
    down.update(Action::CycleNode);
    down.update(Action::CycleNode);
    let screen = render(&mut down, 100, 30);
    assert!(screen.contains("db02: unreachable"), "{screen}");
}

/// db01 and db02 sent figures; then db02's connection was refused, and
/// 20 s went by without a sample of either.
fn db02_gone() -> App {
    let mut app = nodes_app(2, 2);
    let status = HostStatus::Unreachable(Unreachable::Connect {
        at: "db02:22".into(),
        kind: "ConnectionRefused".into(),
        message: "Connection refused (os error 111)".into(),
    });
    app.apply(Input::NodeStatus { node: 1, status });
    app.now_ms += 20_000;
    app
}

/// What a node's sampler writes on stderr (a shell's complaint, a command
/// it lacks) is on its overview's host box, where its figures go on.
#[test]
fn a_nodes_stderr_is_on_its_overview() {
    let mut app = cluster_app();
    node(
        &mut app,
        0,
        NodeInput::Stderr("sh: 1: fincore: not found\n".into()),
    );
    app.update(Action::CycleNode);
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("node db01"), "{screen}");
    assert!(
        screen.contains(" stderr: sh: 1: fincore: not found "),
        "{screen}"
    );
    app.update(Action::CycleNode);
    let other = render(&mut app, 100, 30);
    assert!(other.contains("node db02"), "{other}");
    assert!(!other.contains("stderr:"), "{other}");
}

/// A node that never connected is not stale, which is of figures once
/// had: the header says NOT CONNECTED and its panels why; a node gone
/// after sending has its panels' titles count no old rows ("7 of 9
/// interfaces" of a node whose rows were not shown, issue 26).
#[test]
fn a_node_never_connected_is_not_stale_and_a_gone_nodes_rows_are_not_counted() {
    let mut app = nodes_app(2, 1);
    app.update(Action::CycleNode);
    app.update(Action::CycleNode);
    assert_eq!(app.ui.node, Some(1));
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains(" NOT CONNECTED  node db02"), "{screen}");
    assert!(!screen.contains("STALE"), "{screen}");
    assert!(screen.contains("db02: unreachable"), "{screen}");
    // the cluster is live while db01 is
    app.update(Action::CycleNode);
    assert!(render(&mut app, 100, 30).contains(" LIVE "));
    // db02 goes: its panels say why, and count none of its old rows
    let mut gone = db02_gone();
    gone.update(Action::CycleNode);
    gone.update(Action::CycleNode);
    for panel in [Panel::Disks, Panel::Nfs, Panel::Nics] {
        goto(&mut gone, panel);
        let screen = render(&mut gone, 100, 30);
        assert!(screen.contains("STALE  node db02"), "{screen}");
        let title = line_with(&screen, "┌ ");
        assert!(
            !title.contains(" of "),
            "{panel:?} counts old rows: {title}"
        );
    }
}

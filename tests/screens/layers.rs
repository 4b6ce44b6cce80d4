//! Screens of the host's other layers (kernel NFS, page cache, NICs),
//! drawn into ratatui's TestBackend from the fixture host's samples.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use strata::layers::host::HostState;

use common::{app_with, render};
use strata::app::{Action, App, Panel};

fn keys(app: &mut App, actions: &[Action]) {
    for a in actions {
        app.update(a.clone());
    }
}

fn goto(app: &mut App, panel: Panel) {
    let i = Panel::ALL.iter().position(|p| *p == panel).expect("panel");
    keys(app, &[Action::GotoPanel(i)]);
}

/// The row of `screen` that contains `what`.
fn line_with<'a>(screen: &'a str, what: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line with {what:?} in\n{screen}"))
}

#[test]
fn nfs_panel_lists_each_export_once_with_nfsiostat_figures() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Nfs);
    let screen = render(&mut app, 170, 16);
    insta::assert_snapshot!("nfs_170x16", screen);
    // /arch and /u01/app/oracle/arch are one superblock: one row
    assert!(screen.contains("2 of 2 mounts"), "{screen}");
    let arch = line_with(&screen, "filer01:/vol/arch");
    assert!(arch.contains("/arch (+1)"), "{arch}");
    // The last interval is t=29: wave = 100 + 29*17 % 30 = 113, so
    // READ 800*1.13 = 904/s, WRITE 1200*1.13 = 1356/s, GETATTR 40*1.13 =
    // 45/s; RPC sends are their sum: 2305/s. RTT per op: READ 2 ms,
    // WRITE 3 ms (the counters grow by exactly 2 and 3 ms per op).
    for figure in ["2305.00", "904.00", "1356.00", "2.00", "3.00"] {
        assert!(arch.contains(figure), "{figure} missing in {arch}");
    }
    // an idle mount shows zeros it measured, not unknowns
    let home = line_with(&screen, "filer02:/export/home");
    assert!(home.contains("0.00"), "{home}");
}

#[test]
fn nfs_mount_detail_charts_and_operations() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Nfs);
    keys(&mut app, &[Action::Top, Action::Enter]);
    let screen = render(&mut app, 170, 40);
    insta::assert_snapshot!("nfs_mount_170x40", screen);
    assert!(screen.contains("filer01:/vol/arch on /arch, /u01/app/oracle/arch"));
    assert!(screen.contains("NFSv3"), "{screen}");
    for op in ["READ", "WRITE", "GETATTR"] {
        assert!(screen.contains(&format!("││{op} ")), "{op} missing");
    }
    // ops idle in the interval are left out; READ and WRITE never are
    assert!(!screen.contains("││COMMIT"), "{screen}");
    // retransmissions: READ's ntrans runs ahead of its ops by k/5, which
    // moved between t=28 (5) and t=29 (5): 0 this interval
    let read = line_with(&screen, "││READ ");
    assert!(read.contains("904.00"), "{read}");
    keys(&mut app, &[Action::Back]);
    assert_eq!(app.ui.stack.len(), 1);
    assert!(app.ui.nfs.selected.is_some(), "the mount stays selected");
}

#[test]
fn cache_panel_shows_cached_less_shmem_charts_and_watched_files() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Cache);
    let screen = render(&mut app, 150, 40);
    insta::assert_snapshot!("cache_150x40", screen);
    // meminfo of t=29: Cached 140,000,000 + 29*2048 kB = 133.6 GiB; Shmem
    // 100,663,296 kB = 96.0 GiB; Cached-Shmem = 39,396,096 kB = 37.6 GiB
    assert!(
        line_with(&screen, "Cached-Shmem").contains("37.6 GiB"),
        "{screen}"
    );
    assert!(
        line_with(&screen, "│Shmem ").contains("96.0 GiB"),
        "{screen}"
    );
    assert!(screen.contains("residency by cachestat(2)"), "{screen}");
    // the vanished file is listed with its reason, not dropped
    assert!(
        line_with(&screen, "redo03.log").contains("No such file"),
        "{screen}"
    );
    // redo02 is fully cached: 262,144 pages of 4 KiB = 1 GiB of 1 GiB
    let redo02 = line_with(&screen, "redo02.log");
    assert!(
        redo02.contains("100.0") && redo02.contains("262144"),
        "{redo02}"
    );
}

#[test]
fn cache_file_detail_charts_its_residency() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Cache);
    // sorted by RES, biggest first: redo02 (1 GiB) is at the top
    keys(&mut app, &[Action::Top, Action::Enter]);
    let screen = render(&mut app, 120, 30);
    insta::assert_snapshot!("cache_file_120x30", screen);
    assert!(
        screen.contains("/u02/oradata/ORCL/redo02.log · 1.0 GiB · cachestat(2)"),
        "{screen}"
    );
    assert!(screen.contains("Resident %"), "{screen}");
    keys(&mut app, &[Action::Back]);
    assert_eq!(
        app.ui.cache_files.selected.as_deref(),
        Some("/u02/oradata/ORCL/redo02.log")
    );
}

#[test]
fn a_filter_stays_with_the_panel_it_was_typed_for() {
    let mut app = app_with(3);
    keys(
        &mut app,
        &[
            Action::GotoPanel(1),
            Action::StartFilter,
            Action::FilterChar('s'),
            Action::FilterChar('d'),
            Action::FilterCommit,
        ],
    );
    assert_eq!(app.disk_rows().len(), 3, "sda, sdb, sdc");
    goto(&mut app, Panel::Nfs);
    assert_eq!(app.nfs_rows().len(), 2, "the disks' filter hid mounts");
}

#[test]
fn nic_sample_reads_the_fixture_tree() {
    let s = common::nic_sample(3);
    let kind = |n: &str| s.catalogue.get(n).map(|i| i.kind.label());
    for (n, k) in [
        ("lo", "loopback"),
        ("eth0", "physical"),
        ("bond0", "bond"),
        ("bond0.100", "vlan"),
        ("ens3f1", "physical"),
        ("docker0", "bridge"),
        ("veth1a2b", "veth"),
    ] {
        assert_eq!(kind(n), Some(k), "{n}");
    }
    assert_eq!(s.catalogue["eth1"].master.as_deref(), Some("bond0"));
    assert_eq!(s.catalogue["ens3f0"].driver.as_deref(), Some("ixgbe"));
    assert_eq!(s.bonds.len(), 1);
}

#[test]
fn nic_panel_lists_used_wire_facing_interfaces_with_nicstat_figures() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Nics);
    let screen = render(&mut app, 160, 24);
    insta::assert_snapshot!("nics_160x24", screen);
    // lo and the veth are host plumbing: hidden until `a`
    assert!(screen.contains("7 of 9 interfaces"), "{screen}");
    assert!(!screen.contains("super-packets"), "{screen}");
    assert!(!screen.contains("veth1a2b"), "{screen}");
    // t=29 on ens3f0 (6th in layers.rs): wave = 100 + (29*11 + 5*7) % 50
    // = 104, so 900,000,000 × 1.04 = 936,000,000 B/s = 914062.5 KB/s in,
    // 60,000,000 × 1.04 / 1024 = 60937.5 KB/s out, 110,000 × 1.04 =
    // 114400 rPk/s; %rUtil = 936e6 × 800 / 10000e6 = 74.88, %wUtil =
    // 62.4e6 × 800 / 10000e6 = 4.99
    let ens = line_with(&screen, "ens3f0");
    for figure in [
        "10000",
        "914062.50",
        "60937.50",
        "114400.00",
        "74.88",
        "4.99",
    ] {
        assert!(ens.contains(figure), "{figure} missing in {ens}");
    }
    // eth1, bond0's active slave: wave = 100 + (319 + 14) % 50 = 133:
    // 40e6 × 1.33 / 1024 = 51953.12 KB/s; %Util (full duplex: the larger
    // way) = 53.2e6 × 800 / 25000e6 = 1.70
    let eth1 = line_with(&screen, "│  eth1 ");
    assert!(eth1.contains("51953.12") && eth1.contains("1.70"), "{eth1}");
    // a link that is down has no speed, so no %Util
    let down = line_with(&screen, "ens3f1");
    assert!(down.contains("down") && down.contains("–"), "{down}");
    // the bond is flagged and its warning spelled out
    assert!(screen.contains("│! bond0 "), "{screen}");
    assert!(
        screen.contains("! bond0: active slave eth1 is not the primary eth0"),
        "{screen}"
    );
    keys(&mut app, &[Action::ToggleAllDevices]);
    let screen = render(&mut app, 160, 24);
    assert!(screen.contains("9 of 9 interfaces"), "{screen}");
    assert!(line_with(&screen, "veth1a2b").contains("veth"), "{screen}");
    // 540,000 B/s over 12 packets/s: 45000 bytes a packet on a 1500 MTU
    assert!(
        line_with(&screen, "veth1a2b").contains("45000.0"),
        "{screen}"
    );
    assert!(
        screen.contains("Avs over the MTU: GSO/TSO/GRO super-packets"),
        "{screen}"
    );
    assert!(
        !app.ui.show_all_devices,
        "the disks' own toggle is untouched"
    );
    // the veth's own screen says why its packets pass the MTU
    let filter: Vec<Action> = "veth".chars().map(Action::FilterChar).collect();
    keys(&mut app, &[Action::StartFilter]);
    keys(&mut app, &filter);
    keys(
        &mut app,
        &[Action::FilterCommit, Action::Top, Action::Enter],
    );
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains(" veth1a2b · veth"), "{screen}");
    assert!(screen.contains("TSO or GRO super-packets,"), "{screen}");
}

#[test]
fn nic_table_sorts_and_filters_and_keeps_the_selection_by_name() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Nics);
    // sorted by rKB/s, biggest first: ens3f0, bond0.100, bond0, eth1, ...
    keys(&mut app, &[Action::Top, Action::Down, Action::Down]);
    assert_eq!(app.ui.nics.selected.as_deref(), Some("bond0"));
    keys(&mut app, &[Action::SortReverse]);
    let names: Vec<&str> = app.nic_rows().iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names.last(), Some(&"ens3f0"), "{names:?}");
    assert_eq!(app.ui.nics.selected.as_deref(), Some("bond0"));
    keys(
        &mut app,
        &[
            Action::StartFilter,
            Action::FilterChar('e'),
            Action::FilterChar('t'),
            Action::FilterChar('h'),
            Action::FilterCommit,
        ],
    );
    let names: Vec<&str> = app.nic_rows().iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["eth0", "eth1"]);
}

#[test]
fn bond_detail_lists_its_slaves_and_drills_into_one() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Nics);
    keys(&mut app, &[Action::Top, Action::Down, Action::Down]);
    keys(&mut app, &[Action::Enter]);
    let screen = render(&mut app, 160, 48);
    insta::assert_snapshot!("nic_bond0_160x48", screen);
    assert!(
        screen.contains("bond bond0 · active-backup · primary eth0 · active eth1 · MII up"),
        "{screen}"
    );
    assert!(
        screen.contains("! active slave eth1 is not the primary eth0"),
        "{screen}"
    );
    // eth0: MII up at 25000 full, no failure since strata started (its one
    // failure is older), no bytes: only 2 rPk/s of its own
    let eth0 = line_with(&screen, "││eth0 ");
    assert!(
        eth0.contains("0c:42:a1:5e:10:20") && eth0.contains("25000"),
        "{eth0}"
    );
    assert!(!eth0.contains("active"), "{eth0}");
    assert!(eth0.contains("2.00"), "{eth0}");
    // eth1 is the active one and carries the bond: 51953.12 KB/s in
    let eth1 = line_with(&screen, "││eth1 ");
    assert!(
        eth1.contains("active") && eth1.contains("51953.12"),
        "{eth1}"
    );
    // the bond's own counters (4th in layers.rs) have their own wave:
    // 100 + (319 + 21) % 50 = 140, 40e6 × 1.40 / 1024 = 54687.50 KB/s
    assert!(
        line_with(&screen, "│rKB/s ").contains("54687.50"),
        "{screen}"
    );
    keys(&mut app, &[Action::Down, Action::Enter]);
    assert_eq!(app.view(), &strata::app::View::Nic("eth1".into()));
    let screen = render(&mut app, 160, 40);
    assert!(screen.contains("NICs › bond0 › eth1"), "{screen}");
    assert!(screen.contains("mlx5_core"), "{screen}");
    assert!(
        line_with(&screen, "│rKB/s ").contains("51953.12"),
        "{screen}"
    );
    keys(&mut app, &[Action::Back]);
    assert_eq!(app.view(), &strata::app::View::Nic("bond0".into()));
    assert_eq!(app.ui.slaves.selected.as_deref(), Some("eth1"));
    keys(&mut app, &[Action::Back]);
    assert_eq!(app.ui.nics.selected.as_deref(), Some("bond0"));
}

#[test]
fn overview_shows_the_wire_and_the_bond_warning() {
    let mut app = app_with(30);
    let screen = render(&mut app, 120, 40);
    let wire = line_with(&screen, "physical  in");
    // physical interfaces at t=29: eth0 (0 B), eth1 53.2e6 B, ens3f0
    // 936e6 B, ens3f1 0: 989.2e6 B/s / 1024² = 943.4 MB/s in
    assert!(wire.contains("943.4"), "{wire}");
    assert!(
        line_with(&screen, "bond0 ").contains("! active slave eth1 is not the primary eth0"),
        "{screen}"
    );
}

#[test]
fn pause_freezes_the_nic_layer() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Nics);
    keys(&mut app, &[Action::TogglePause]);
    let before = render(&mut app, 160, 24);
    app.local.nics.ingest(&common::nic_sample(30));
    app.local.nics.ingest(&common::nic_sample(31));
    assert_eq!(render(&mut app, 160, 24), before);
    keys(&mut app, &[Action::TogglePause]);
    assert_ne!(render(&mut app, 160, 24), before);
}

#[test]
fn a_narrow_nics_table_scrolls_sideways_and_never_cuts_a_figure() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Nics);
    let screen = render(&mut app, 100, 16);
    insta::assert_snapshot!("nics_100x16", screen);
    // the names stay whole: bond0 and its VLAN are told apart
    assert!(screen.contains("│! bond0     bond "), "{screen}");
    assert!(screen.contains("│  bond0.100 vlan "), "{screen}");
    // the figures shown are whole: 914062.5 rKB/s, 114400.0 rPk/s (t=29,
    // see nics_panel_shows_nicstat_figures)
    let ens = line_with(&screen, "ens3f0");
    assert!(
        ens.contains("914062.50") && ens.contains("114400.00"),
        "{ens}"
    );
    assert!(
        screen.contains("columns 1–10 of 17 · h/l scroll"),
        "{screen}"
    );
    assert!(!screen.contains("%wUtil"), "{screen}");
    // l scrolls to the last columns, and no further
    keys(&mut app, &[const { Action::Right }; 30]);
    let screen = render(&mut app, 100, 16);
    assert!(
        screen.contains("%wUtil") && screen.contains("drops/s"),
        "{screen}"
    );
    // the column the rows are sorted by stays, beside the last ones
    assert!(
        screen.contains("columns 10–17 of 17 + rKB/s (sort) · h/l scroll"),
        "{screen}"
    );
    assert!(
        line_with(&screen, "ens3f0").contains("914062.50"),
        "{screen}"
    );
    assert!(line_with(&screen, "ens3f0").contains("74.88"), "{screen}");
    // and h comes back at once, not after the presses past the end
    keys(&mut app, &[Action::Left]);
    let back = render(&mut app, 100, 16);
    assert_ne!(back, screen);
}

#[test]
fn nics_come_after_nfs_in_tab_order() {
    assert_eq!(
        Panel::ALL.map(Panel::title),
        [
            "Overview",
            "Disks",
            "Cache",
            "NFS",
            "NICs",
            "Cells",
            "Databases",
            "Procs"
        ]
    );
    let mut app = app_with(2);
    goto(&mut app, Panel::Nfs);
    keys(&mut app, &[Action::NextPanel]);
    assert_eq!(app.panel(), Panel::Nics);
}

#[test]
fn interface_detail_shows_its_figures_now_and_its_link() {
    let mut app = app_with(30);
    goto(&mut app, Panel::Nics);
    // sorted by rKB/s: ens3f0 is at the top
    keys(&mut app, &[Action::Top, Action::Enter]);
    let screen = render(&mut app, 160, 40);
    assert!(
        screen.contains("ens3f0 · physical · 10000 Mb/s full · up"),
        "{screen}"
    );
    // the now column: the t=29 figures of the panel's test
    assert!(
        line_with(&screen, "│rKB/s ").contains("914062.50"),
        "{screen}"
    );
    assert!(line_with(&screen, "│%rUtil ").contains("74.88"), "{screen}");
    assert!(line_with(&screen, "│driver ").contains("ixgbe"), "{screen}");
    assert!(line_with(&screen, "│MTU ").contains("9000"), "{screen}");
    for chart in ["Throughput", "Packets", "Utilisation", "Errors and drops"] {
        assert!(screen.contains(chart), "{chart} missing");
    }
    // not a bond: no slaves to drill into
    keys(&mut app, &[Action::Enter]);
    assert_eq!(app.ui.stack.len(), 2);
}

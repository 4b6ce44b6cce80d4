//! Screens of the host's other layers (kernel NFS, page cache, NICs),
//! drawn into ratatui's TestBackend from the fixture host's samples.

mod common;

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

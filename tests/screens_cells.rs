//! The storage layer on screen: the cells panel, one cell, and the
//! overview's storage box, fed with the fixture host's disks as the cells'
//! samples (each cell is that host seen over SSH).

mod common;

use common::{app_with, render, sample};
use strata::app::{Action, App, Panel, View};
use strata::model::cell_metrics::Media;
use strata::model::cells::GroupCol;
use strata::model::disk::DiskCol;
use strata::source::cells::target::CellTarget;
use strata::source::cells::{CellEvent, CellStatus};

fn target(name: &str) -> CellTarget {
    CellTarget {
        label: name.into(),
        host: name.into(),
        port: 22,
        user: "celladmin".into(),
        identity: None,
    }
}

/// Three cells: cel01 and cel02 live for 30 samples, cel03 refused.
fn cells_app() -> App {
    let mut app = app_with(30);
    app.set_cells(vec![target("cel01"), target("cel02"), target("cel03")]);
    for cell in 0..2 {
        app.ingest_cell_event(CellEvent::Status {
            cell,
            status: CellStatus::Live,
        });
        app.ingest_cell_event(CellEvent::Rtt {
            cell,
            rtt: std::time::Duration::from_micros(1500 + cell as u64 * 500),
        });
        for k in 0..30 {
            app.ingest_cell_event(CellEvent::Sample {
                cell,
                sample: sample(k),
            });
        }
    }
    app.ingest_cell_event(CellEvent::Status {
        cell: 2,
        status: CellStatus::Unreachable("connect to 10.0.0.3:22: connection refused".into()),
    });
    app
}

fn goto(app: &mut App, panel: Panel) {
    let i = Panel::ALL.iter().position(|p| *p == panel).unwrap();
    app.update(Action::GotoPanel(i));
}

#[test]
fn all_cells_are_the_sum_of_the_cells_and_each_cell_of_its_disks() {
    let mut app = cells_app();
    // one cell's DISK r/s is its hard disks' (sda, sdb, sdc: the fixture's
    // HDDs), FLASH its NVMe's, as the host's own rows give them
    let host = app.disks.tick().unwrap();
    let r = |names: &[&str]| -> f64 {
        host.rows
            .iter()
            .filter(|d| names.contains(&d.name.as_str()))
            .map(|d| d.rates.unwrap().get(DiskCol::RPerS).unwrap())
            .sum()
    };
    let disk_r = r(&["sda", "sdb", "sdc"]);
    let flash_r = r(&["nvme0n1"]);
    assert!(disk_r > 0.0 && flash_r > 0.0);
    let one = app.cells.list[0].groups.unwrap();
    assert_eq!(one.disk.unwrap().devices, 3);
    assert_eq!(
        one.get(Media::Disk).unwrap().get(GroupCol::RPerS),
        Some(disk_r)
    );
    assert_eq!(
        one.get(Media::Flash).unwrap().get(GroupCol::RPerS),
        Some(flash_r)
    );
    // all cells: the two live ones, the refused one left out and counted
    let all = app.cells.all(app.now_ms);
    assert_eq!((all.counted, all.missing), (2, 1));
    let d = all.groups.disk.unwrap();
    assert_eq!(d.get(GroupCol::RPerS), Some(2.0 * disk_r));
    assert_eq!(d.devices, 6);
    assert_eq!(
        all.groups.shares().read_pct_from_flash,
        Some(flash_r / (flash_r + disk_r) * 100.0)
    );

    goto(&mut app, Panel::Cells);
    let screen = render(&mut app, 160, 20);
    insta::assert_snapshot!("cells_160x20", screen);
    assert!(screen.contains("2 of 3 cells (1 not current)"), "{screen}");
    assert!(screen.contains("reads from flash"), "{screen}");
    let line = |what: &str| {
        screen
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or("")
            .to_string()
    };
    assert!(line("│cel03 ").contains("unreachable"), "{screen}");
    assert!(
        line("│cel01 ").contains("live") && line("│cel01 ").contains("1.50"),
        "{screen}"
    );
    // the all-cell DISK r/s, as the screen prints it
    let shown = format!("{:.2}", 2.0 * disk_r);
    assert!(line("DISK").contains(&shown), "{shown} not in {screen}");

    // the refused cell says why when selected
    app.update(Action::Bottom);
    let screen = render(&mut app, 160, 20);
    assert!(
        screen.contains("cel03: connect to 10.0.0.3:22: connection refused"),
        "{screen}"
    );
}

#[test]
fn a_cell_without_samples_for_two_intervals_is_stale_and_leaves_the_sum() {
    let mut app = cells_app();
    app.now_ms += 5_000;
    goto(&mut app, Panel::Cells);
    let screen = render(&mut app, 160, 20);
    assert!(screen.contains("stale for 6 s"), "{screen}");
    assert!(screen.contains("0 of 3 cells (3 not current)"), "{screen}");
    // unknown, not zero: the all-cell line has no figure
    assert!(app.cells.all(app.now_ms).groups.disk.is_none());
}

#[test]
fn one_cell_shows_its_groups_and_its_disks() {
    let mut app = cells_app();
    goto(&mut app, Panel::Cells);
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::Cell(0));
    let screen = render(&mut app, 140, 24);
    insta::assert_snapshot!("cell_140x24", screen);
    assert!(screen.contains("Cells › cel01"), "{screen}");
    assert!(
        screen.contains("cel01 · celladmin@cel01 · live"),
        "{screen}"
    );
    let line = |what: &str| {
        screen
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or("")
            .to_string()
    };
    assert!(
        line("│sda ").contains("DISK") && line("│sda ").contains("HDD"),
        "{screen}"
    );
    assert!(line("│nvme0n1 ").contains("FLASH"), "{screen}");
    // partitions and dm devices are not in a group
    assert!(
        !screen.contains("sda1") && !screen.contains("dm-0"),
        "{screen}"
    );
}

#[test]
fn the_overview_lines_up_the_storage_layer() {
    let mut app = cells_app();
    let screen = render(&mut app, 140, 44);
    assert!(screen.contains("Storage · 3 cells"), "{screen}");
    assert!(screen.contains("2 of 3 live"), "{screen}");
    assert!(screen.contains("! cel03 unreachable"), "{screen}");
    assert!(screen.contains("reads from flash"), "{screen}");
}

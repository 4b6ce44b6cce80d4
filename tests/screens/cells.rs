//! The storage layer on screen: the cells panel, one cell, and the
//! overview's storage box, fed with the fixture host's disks as the cells'
//! samples (each cell is that host seen over SSH).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cells::{cells_app, wall};
use common::{render, sample};
use strata::app::cells::{DISK_GROUP, FLASH_GROUP};
use strata::app::{Action, App, Panel, View};
use strata::layers::cells::cell_metrics::Media;
use strata::layers::cells::model::GroupCol;
use strata::layers::cells::source::CellEvent;
use strata::layers::disks::model::DiskCol;
use strata::layers::disks::state::history_index;

/// cel01's cellcli listing (the reconstructed X7 cell: CD_00_cel01 on
/// /dev/sda … FD_00_cel01 on /dev/nvme0n1), arrived `age_s` seconds ago.
fn give_cellcli(app: &mut App, cell: usize, age_s: i64) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/cellcli/cel01-x7-report.txt"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let now = app.now_ms;
    app.now_ms = now - age_s * 1000;
    app.ingest_cell_event(CellEvent::Cellcli { cell, text });
    app.now_ms = now;
}

/// Fails, showing the screen, unless the line of `screen` that holds
/// `what` also holds `value`.
fn assert_line(screen: &str, what: &str, value: &str) {
    let l = line_of(screen, what);
    assert!(l.contains(value), "{value} not in {l}\n{screen}");
}

/// The line of `screen` that holds `what`.
fn line_of(screen: &str, what: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or("")
        .to_string()
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
    let host = app.local.disks.tick().unwrap();
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
    // beside DISK and FLASH, their IOPS over the window: 29 rounds, each a
    // bar (none a gap), when the screen is wide enough for them all
    let screen = render(&mut app, 180, 44);
    let bars = |l: String| l.chars().filter(|c| ('▁'..='█').contains(c)).count();
    assert_eq!(bars(line_of(&screen, "DISK  r/s")), 29, "{screen}");
    assert_eq!(bars(line_of(&screen, "FLASH r/s")), 29, "{screen}");
}

#[test]
fn a_cell_disk_is_the_same_detail_view_as_a_host_disk() {
    let mut app = cells_app();
    // the host's sda, from the disks panel
    goto(&mut app, Panel::Disks);
    app.ui.disks.selected = Some("sda".into());
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::Disk("sda".into()));
    let host = render(&mut app, 160, 50);
    // cel01's sda: cells → cel01 → (nvme0n1, sda, sdb, sdc by name) sda
    goto(&mut app, Panel::Cells);
    app.update(Action::Enter);
    app.update(Action::Down);
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::CellDisk(0, "sda".into()));
    let cell = render(&mut app, 160, 50);
    insta::assert_snapshot!("cell_disk_sda_160x50", cell);
    assert!(cell.contains("Cells › cel01 › sda"), "{cell}");
    // The cell was fed the host's own samples: below the breadcrumb and
    // the title, the two screens are the same, chart for chart, figure for
    // figure, partitions included.
    let body = |s: &str| s.lines().skip(3).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(body(&host), body(&cell));
    // By hand, sda over its last second (k = 28 → 29): wave(29) = 100 +
    // (29·7 + 0) % 60 = 123, reads 40·123/100 = 49 (integer), writes
    // 12·123/100 = 14, 64 kB per read: r/s 49.00, w/s 14.00, rkB/s 3136.00.
    for (what, v) in [("r/s", "49.00"), ("w/s", "14.00"), ("rkB/s", "3136.00")] {
        let l = line_of(&cell, &format!("│{what} "));
        assert!(l.contains(v), "{what} {v} not in {l}");
    }
    assert!(cell.contains("partitions · Enter to open"), "{cell}");
}

#[test]
fn keys_go_down_to_a_cell_disk_and_its_partition_and_back_up() {
    let mut app = cells_app();
    goto(&mut app, Panel::Cells);
    app.update(Action::Down); // cel02
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::Cell(1));
    // m: DISK only (sda, sdb, sdc), FLASH only (nvme0n1), all again
    app.update(Action::CycleGroup);
    let names = |app: &App| -> Vec<String> {
        app.cell_disk_rows(1)
            .iter()
            .map(|r| r.name.clone())
            .collect()
    };
    assert_eq!(names(&app), ["sda", "sdb", "sdc"]);
    let screen = render(&mut app, 140, 24);
    assert!(screen.contains("disks shown: DISK"), "{screen}");
    assert!(!screen.contains("│nvme0n1"), "{screen}");
    app.update(Action::CycleGroup);
    assert_eq!(names(&app), ["nvme0n1"]);
    app.update(Action::CycleGroup);
    assert_eq!(names(&app), ["nvme0n1", "sda", "sdb", "sdc"]);
    // the last disk, then its only partition
    app.update(Action::Bottom);
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::CellDisk(1, "sdc".into()));
    app.update(Action::Enter);
    // sdc has no partition in the fixture: Enter stays
    assert_eq!(app.view(), &View::CellDisk(1, "sdc".into()));
    app.update(Action::Back);
    app.update(Action::Up);
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::CellDisk(1, "sdb".into()));
    app.update(Action::Back);
    app.update(Action::Up);
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::CellDisk(1, "sda".into()));
    // sda's partitions: sda1, sda2
    app.update(Action::Down);
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::CellDisk(1, "sda2".into()));
    let screen = render(&mut app, 140, 44);
    assert!(screen.contains("Cells › cel02 › sda › sda2"), "{screen}");
    assert!(screen.contains("partition of sda"), "{screen}");
    app.update(Action::Back);
    assert_eq!(app.view(), &View::CellDisk(1, "sda".into()));
    // back in the cell, the disk drilled into stays selected
    app.update(Action::Back);
    assert_eq!(app.view(), &View::Cell(1));
    assert_eq!(app.ui.cell_disks.selected.as_deref(), Some("sda"));
    app.update(Action::Back);
    assert_eq!(app.view(), &View::Panel(Panel::Cells));
    assert_eq!(app.ui.cells.selected.as_deref(), Some("cel02"));
}

#[test]
fn cellcli_names_the_disks_and_gives_its_figures_with_their_age() {
    let mut app = cells_app();
    give_cellcli(&mut app, 0, 12);
    goto(&mut app, Panel::Cells);
    app.update(Action::Enter);
    let screen = render(&mut app, 150, 40);
    insta::assert_snapshot!("cell_cellcli_150x40", screen);
    // each OS device beside its cell disk, as `list celldisk` joins them
    assert_line(&screen, "│sda ", "CD_00_cel01");
    assert_line(&screen, "│sdc ", "CD_02_cel01");
    assert_line(&screen, "│nvme0n1 ", "FD_00_cel01");
    // the hit ratio: FC_IO_RQ_R_SEC 3,900 / (3,900 + MISS 100) = 97.5 %,
    // and the listing's age
    assert!(screen.contains("flash cache read hits 97.5 %"), "{screen}");
    assert!(screen.contains("cellcli 12 s ago"), "{screen}");
    // CD_00_cel01 (fixture): R_SM 10 + R_LG 2.5 = 12.50 r/s, W_SM 20 +
    // W_LG 1.5 = 21.50 w/s, 0.1 + 2.5 = 2.60 rMB/s, 0.2 + 1.5 = 1.70
    // wMB/s; r_await (10·4 ms + 2.5·12 ms) / 12.5 = 5.60, w_await (20·1 +
    // 1.5·2) / 21.5 = 1.0698 → 1.07
    let cd = line_of(&screen, "│CD_00_cel01 ");
    for v in [
        "sda", "DISK", "12.50", "21.50", "2.60", "1.70", "5.60", "1.07",
    ] {
        assert!(cd.contains(v), "{v} not in {cd}");
    }
    // FD_00_cel01: 1,500 + 50 = 1550.00 r/s, 2,000 + 100 = 2100.00 w/s,
    // 12 + 50 = 62.00 rMB/s, 16 + 100 = 116.00 wMB/s, r_await (1500·0.3 +
    // 50·1.2) / 1550 = 0.329 → 0.33, w_await (2000·0.15 + 100·0.8) / 2100
    // = 0.181 → 0.18
    app.update(Action::CycleGroup);
    app.update(Action::CycleGroup); // FLASH only: the four flash disks
    let screen = render(&mut app, 150, 40);
    assert!(screen.contains("4 cell disks · 12 s ago"), "{screen}");
    let fd = line_of(&screen, "│FD_00_cel01 ");
    for v in [
        "nvme0n1", "FLASH", "1550.00", "2100.00", "62.00", "116.00", "0.33", "0.18",
    ] {
        assert!(fd.contains(v), "{v} not in {fd}");
    }
    assert!(!screen.contains("CD_00_cel01"), "{screen}");

    // the cell disk's own detail gives its cellcli figures beside iostat's
    app.update(Action::CycleGroup);
    app.update(Action::Down);
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::CellDisk(0, "sda".into()));
    let screen = render(&mut app, 160, 50);
    assert!(screen.contains(" sda · CD_00_cel01 · HDD"), "{screen}");
    assert_line(&screen, "│cellcli ", "12 s ago");
    // under iostat's r_await (6.33 over the last second), cellcli's
    let cc_await = screen.lines().rev().find(|l| l.contains("│r_await "));
    assert!(cc_await.unwrap_or("").contains("5.60"), "{screen}");

    // a cell without cellcli shows nothing of it
    app.update(Action::Back);
    app.update(Action::Back);
    app.update(Action::Down);
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::Cell(1));
    let screen = render(&mut app, 150, 40);
    assert!(
        !screen.contains("cellcli") && !screen.contains("Cell disk"),
        "{screen}"
    );
}

#[test]
fn all_cells_keep_a_history_point_per_round_and_an_unknown_one_when_stale() {
    let mut app = cells_app();
    let h = &app.cells.history;
    let r = history_index(DiskCol::RPerS).unwrap();
    // 30 rounds of samples; round 0 gives no figures (first samples), so
    // 29 points, stamped with the rounds' sample times
    assert_eq!(h.history.seq(), 29);
    let times: Vec<i64> = (1..30).map(wall).collect();
    assert_eq!(h.series_times(100), times);
    // By hand, DISK r/s of one cell at second t: Σ over sda, sdb, sdc
    // (fixture devices 0, 3, 4) of base·wave/100, wave = 100 + (7t +
    // 13i) % 60. t = 1: 40·107/100 = 42, 900·146/100 = 1314, 880·159/100
    // = 1399: 2755, 5510 for two (round 1 waited for cel02, whose first
    // sample had no figures yet). t = 29: 40·123/100 = 49, 900·102/100 =
    // 918, 880·115/100 = 1012: 1979 per cell, 3958 for two.
    let disk = h.series(DISK_GROUP, r, 100);
    assert_eq!(disk.len(), 29);
    assert_eq!((disk[0], disk[28]), (5510.0, 3958.0));
    // FLASH (nvme0n1, device 5) at t = 29: 12000·128/100 = 15360 a cell
    assert_eq!(h.series(FLASH_GROUP, r, 100)[28], 30720.0);

    goto(&mut app, Panel::Cells);
    let screen = render(&mut app, 160, 44);
    insta::assert_snapshot!("cells_charts_160x44", screen);
    assert_line(&screen, "DISK IOPS", "r/s 3958.00");
    assert_line(&screen, "FLASH IOPS", "r/s 30720.00");

    // a round waits for every current cell: cel01 alone adds no point
    app.now_ms = wall(30);
    app.ingest_cell_event(CellEvent::Sample {
        cell: 0,
        sample: sample(30),
    });
    assert_eq!(app.cells.history.history.seq(), 29);
    app.ingest_cell_event(CellEvent::Sample {
        cell: 1,
        sample: sample(30),
    });
    assert_eq!(app.cells.history.history.seq(), 30);

    // every cell stale: the clock closes a round of nothing two intervals
    // after the last point, and its point is unknown, not zero
    app.now_ms = wall(31);
    app.cells_clock();
    assert_eq!(app.cells.history.history.seq(), 30);
    app.now_ms = wall(33);
    app.cells_clock();
    let h = &app.cells.history;
    assert_eq!(h.history.seq(), 31);
    assert_eq!(h.series_times(1), [wall(33)]);
    let last = h.series(DISK_GROUP, r, 1)[0];
    assert!(last.is_nan(), "{last}");
    assert_eq!(h.latest.map(|a| (a.counted, a.missing)), Some((0, 3)));
    let screen = render(&mut app, 160, 44);
    assert_line(&screen, "DISK IOPS", "r/s – ");
}

#[test]
fn one_cell_charts_its_groups_from_its_own_history() {
    let mut app = cells_app();
    goto(&mut app, Panel::Cells);
    app.update(Action::Enter);
    let screen = render(&mut app, 160, 40);
    insta::assert_snapshot!("cell_charts_160x40", screen);
    // one cell's DISK r/s at t = 29 (1979, worked out above)
    assert_line(&screen, "DISK IOPS", "r/s 1979.00");
    assert_line(&screen, "FLASH %util", "100.00");
}

/// A cell that went away keeps its last keepalive's round trip, which is
/// no round trip now: "–"; the note under the table names it once.
#[test]
fn a_cell_that_went_away_has_no_round_trip_and_is_named_once() {
    use strata::app::cells::CellFig;
    use strata::link::{HostStatus, Unreachable};
    let mut app = cells_app();
    assert!(app.cell_figure(1, CellFig::Rtt).is_some());
    app.ingest_cell_event(CellEvent::Status {
        cell: 1,
        status: HostStatus::Unreachable(Unreachable::Connect {
            at: "cel02:22".into(),
            kind: "ConnectionRefused".into(),
            message: "Connection refused (os error 111)".into(),
        }),
    });
    assert_eq!(app.cell_figure(1, CellFig::Rtt), None);
    goto(&mut app, Panel::Cells);
    app.update(Action::Down);
    let panel = render(&mut app, 160, 24);
    let row = line_of(&panel, "cel02 ");
    assert!(row.contains("unreachable"), "{panel}");
    assert!(!row.contains("2.00"), "{row}\n{panel}");
    assert!(
        panel.contains("cel02:22: Connection refused (os error 111)"),
        "{panel}"
    );
    assert!(!panel.contains("cel02: cel02:22"), "{panel}");
    // its view and its disks' say why, not their last figures
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::Cell(1));
    let view = render(&mut app, 160, 24);
    let said = "cel02:22: Connection refused (os error 111) · last sample";
    assert!(view.contains(said), "{view}");
    assert!(!view.contains("sda"), "{view}");
    app.ui.stack.push(View::CellDisk(1, "sda".into()));
    let disk = render(&mut app, 160, 24);
    assert!(disk.contains(said), "{disk}");
    assert!(!disk.contains("r_await"), "{disk}");
}

/// A cell whose host key is refused has no figures: the cells panel's
/// note under the table and its view's body say the whole reason,
/// wrapped, where one row and the border cut it at 80 columns.
#[test]
fn a_refused_cell_says_its_whole_reason_at_80_columns() {
    use strata::link::error::OfferedKey;
    use strata::link::{HostKeyError, HostStatus};
    let mut app = cells_app();
    app.ingest_cell_event(CellEvent::Status {
        cell: 2,
        status: HostStatus::HostKeyRefused(HostKeyError::Unknown {
            host: "cel03".into(),
            port: 22,
            offered: OfferedKey {
                key_type: "ssh-ed25519".into(),
                fingerprint: "SHA256:opVj9bzxHFKkKANvY".into(),
            },
            file: "/root/.ssh/known_hosts".into(),
        }),
    });
    goto(&mut app, Panel::Cells);
    let text = |screen: &str| -> String {
        screen
            .lines()
            .map(|l| l.trim_matches(|c| c == '"' || c == '│' || c == ' '))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for _ in 0..2 {
        app.update(Action::Down);
    }
    // the panel's note under the table, the cell selected
    let panel = render(&mut app, 80, 24);
    assert!(
        text(&panel).contains("start strata with --accept-new-host-keys"),
        "the note is cut:\n{panel}"
    );
    app.update(Action::Enter);
    assert_eq!(app.view(), &View::Cell(2));
    let screen = render(&mut app, 80, 24);
    assert!(
        text(&screen).contains("start strata with --accept-new-host-keys"),
        "the reason is cut:\n{screen}"
    );
    assert!(
        !screen.contains("waiting for the second sample"),
        "{screen}"
    );
}

/// With no cells, the cells panel's advice wraps inside its frame at
/// 80 columns, as the NFS and Databases panels' do; the border cut it at
/// "[[cel" (issue 26).
#[test]
fn the_cells_panel_without_cells_says_its_whole_advice_at_80_columns() {
    let mut app = common::app_with(30);
    goto(&mut app, Panel::Cells);
    let screen = render(&mut app, 80, 24);
    let text: String = screen
        .lines()
        .map(|l| l.trim_matches(|c| c == '"' || c == '│' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("--cell-group FILE or [[cell]] in the config"),
        "the advice is cut:\n{screen}"
    );
}

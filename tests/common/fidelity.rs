//! Record and replay fidelity: the fixture host's app, every drill-down
//! level a session is compared at, and the screens of each level. Shared
//! by the test with fixture cells (record_replay.rs) and the one with
//! cells on real sshd processes (record_cells_live.rs).

use strata::app::{App, Panel, View};
use strata::config::Config;
use strata::core::host::HostInfo;
use strata::link::target::HostTarget;
use strata::recording::session::Meta;
use strata::theme::Theme;

/// The fixture host (db01, its redo logs watched) with `cells`.
pub fn host_app(cells: Vec<HostTarget>, interval_s: f64) -> App {
    let host = HostInfo {
        hostname: "db01".into(),
        kernel: "5.15.0-301.163.5.el8uek.x86_64".into(),
    };
    let config = Config {
        cache_files: vec!["/u02/oradata/ORCL/redo*.log".into()],
        ..Config::default()
    };
    let interval = strata::core::duration::Interval::from_secs(interval_s).unwrap();
    let mut app = App::new(config, Theme::default(), host, interval);
    app.set_cells(cells);
    app
}

/// The app a recording describes, as `strata replay` builds it.
pub fn app_of(meta: &Meta) -> App {
    let meta = meta.clone();
    let interval = meta.interval();
    let mut app = App::new(meta.config, Theme::default(), meta.host, interval);
    app.set_cells(meta.cells);
    app.set_dbs(meta.dbs);
    app.set_nodes(meta.nodes);
    app
}

/// Every level a user can drill to on the fixture host with two cells;
/// `cell_disk` is the device of cell 0 opened at the deepest level.
pub fn views(cell_disk: &str) -> Vec<Vec<View>> {
    use View::{CacheFile, Cell, CellDisk, Disk, Nic};
    let panel = View::Panel;
    vec![
        vec![panel(Panel::Overview)],
        vec![panel(Panel::Disks)],
        vec![panel(Panel::Disks), Disk("sda".into())],
        vec![panel(Panel::Disks), Disk("dm-0".into())],
        vec![panel(Panel::Cache)],
        vec![
            panel(Panel::Cache),
            CacheFile("/u02/oradata/ORCL/redo01.log".into()),
        ],
        vec![panel(Panel::Nfs)],
        vec![panel(Panel::Nics)],
        vec![panel(Panel::Nics), Nic("bond0".into())],
        vec![panel(Panel::Cells)],
        vec![panel(Panel::Cells), Cell(0)],
        vec![panel(Panel::Cells), Cell(1)],
        vec![panel(Panel::Cells), Cell(0), CellDisk(0, cell_disk.into())],
    ]
}

/// Where the cells panel and each cell's view are in [`views`].
pub const CELLS: usize = 9;
pub const CELL0: usize = 10;
pub const CELL1: usize = 11;
pub const CELL0_DISK: usize = 12;

/// The screen of each view, with what differs by design left out: the
/// replay's header and timeline, and the live run's REC.
pub fn screens(app: &mut App, views: &[Vec<View>]) -> Vec<String> {
    let replay = app.replay.take();
    let recording = app.recording.take();
    let out = views
        .iter()
        .map(|stack| {
            app.ui.stack = stack.clone();
            super::render(app, 140, 48)
        })
        .collect();
    app.replay = replay;
    app.recording = recording;
    app.ui.stack = vec![View::Panel(Panel::Overview)];
    out
}

pub fn assert_same(live: &[String], replayed: &[String], what: &str) {
    assert_eq!(live.len(), replayed.len(), "{what}: as many views");
    for (v, (a, b)) in live.iter().zip(replayed).enumerate() {
        assert_eq!(a, b, "{what}: view {v} differs");
    }
}

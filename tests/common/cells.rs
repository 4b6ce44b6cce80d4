//! The cells of the screen tests: the fixture host's disks as each
//! cell's samples (each cell is that host seen over SSH).

use super::{app_with, cell_target, sample};
use strata::app::App;
use strata::layers::cells::source::CellEvent;
use strata::link::HostStatus;

/// Wall clock of the fixture host's sample `k`.
pub fn wall(k: u64) -> i64 {
    1_795_000_000_000 + k as i64 * 1000
}

/// Three cells: cel01 and cel02 live for 30 samples, taken as the host's
/// were (one a second, each cell's sample `k` seen at the host's `k`);
/// cel03 refused.
pub fn cells_app() -> App {
    let mut app = app_with(30);
    let now = app.now_ms;
    app.set_cells(vec![
        cell_target("cel01"),
        cell_target("cel02"),
        cell_target("cel03"),
    ]);
    for cell in 0..2 {
        app.ingest_cell_event(CellEvent::Status {
            cell,
            status: HostStatus::Live,
        });
        app.ingest_cell_event(CellEvent::Rtt {
            cell,
            rtt: std::time::Duration::from_micros(1500 + cell as u64 * 500),
        });
    }
    for k in 0..30 {
        app.now_ms = wall(k);
        for cell in 0..2 {
            app.ingest_cell_event(CellEvent::Sample {
                cell,
                sample: sample(k),
            });
        }
    }
    app.now_ms = now;
    app.ingest_cell_event(CellEvent::Status {
        cell: 2,
        status: HostStatus::Unreachable("connect to 10.0.0.3:22: connection refused".into()),
    });
    app
}

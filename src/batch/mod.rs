//! `strata batch PANEL`: the same figures as the screen, printed for
//! scripts and tests, with no terminal UI.

pub mod cells;
pub mod dnfs;
pub mod nodes;
pub mod run;

// The formats and helpers every layer's report uses live with the layers;
// batch/ and export/ keep using them through these paths.
pub(crate) use crate::layers::report::{csv_field, json_str, printable};

/// Runs a batch loop on a runtime of this thread and gives its exit code;
/// a runtime that cannot start is said and exits 1. Tasks still running
/// (hosts' connections) get a moment to close.
pub(crate) fn block_on(run: impl std::future::Future<Output = i32>) -> i32 {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let code = rt.block_on(run);
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    code
}

/// SIGINT and SIGTERM: either ends a batch run between reports.
pub(crate) struct Stop {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
}

impl Stop {
    /// Listens for both (on the runtime of this thread).
    pub(crate) fn listen() -> std::io::Result<Stop> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Stop {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
        })
    }

    /// Resolves when either comes; cancel-safe, as the two it waits on.
    pub(crate) async fn recv(&mut self) {
        tokio::select! {
            _ = self.int.recv() => {}
            _ = self.term.recv() => {}
        }
    }
}

//! The live monitor: sampler task → channel → the app loop, which is the
//! store's one writer and draws at most at a capped frame rate.

use crate::app::{App, keymap};
use crate::source::SourceError;
use crate::source::cache::{CacheSample, CacheSource};
use crate::source::cells::{CellEvent, CellOptions, run_cell};
use crate::source::disks::{DiskSample, DiskSource};
use crate::source::host::SelfMeter;
use crate::source::nfs::{NfsSample, NfsSource};
use crate::source::nics::{NicSample, NicSource};
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures::StreamExt;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::{Instant, MissedTickBehavior, interval, sleep_until};

/// At most this many frames a second; sampling has its own clock.
const FRAME: Duration = Duration::from_millis(33);

pub enum Msg {
    Disks(Result<DiskSample, SourceError>),
    Nfs(Result<NfsSample, SourceError>),
    Cache(Result<CacheSample, SourceError>),
    Nics(Result<NicSample, SourceError>),
}

/// Every source the screen samples, each on its own task.
pub struct Sources {
    pub disks: DiskSource,
    pub nfs: NfsSource,
    pub cache: CacheSource,
    pub nics: NicSource,
    /// How to reach the app's cells, one task each.
    pub cells: CellOptions,
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Samples a source every `every`, for as long as the app listens, and
/// sends each result wrapped by `wrap`. Reading runs on a blocking thread:
/// a slow /sys or a hung `--root` (on NFS, say) must not stall keys and
/// drawing, nor the other sources.
async fn sample_loop<S, T>(
    source: S,
    mut read: impl FnMut(&mut S, i64) -> Result<T, SourceError> + Send + Copy + 'static,
    wrap: fn(Result<T, SourceError>) -> Msg,
    every: Duration,
    tx: mpsc::Sender<Msg>,
) where
    S: Send + 'static,
    T: Send + 'static,
{
    // A baseline at once, then the shared boundaries (a read that takes
    // longer than an interval skips to the next one).
    let mut tick = Instant::now();
    let mut source = Some(source);
    while let Some(mut src) = source.take() {
        sleep_until(tick).await;
        let Ok((src, sample)) = tokio::task::spawn_blocking(move || {
            let sample = read(&mut src, now_ms());
            (src, sample)
        })
        .await
        else {
            return; // the reader panicked; the loop sees the task end
        };
        if tx.send(wrap(sample)).await.is_err() {
            return;
        }
        tick = crate::source::boundary::next(every);
        source = Some(src);
    }
}

/// Runs the screen until the user quits. The terminal is restored on every
/// way out, panics included (ratatui's hook).
pub fn run(mut app: App, source: Sources) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut terminal = ratatui::try_init()?;
    let result = rt.block_on(event_loop(&mut terminal, &mut app, source));
    ratatui::restore();
    // A reader stuck in a hung --root (an NFS server gone) must not keep
    // strata from quitting: blocking reads are abandoned, not awaited.
    rt.shutdown_timeout(Duration::from_millis(200));
    result
}

async fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    sources: Sources,
) -> anyhow::Result<()> {
    let (tx, mut rx) = mpsc::channel(16);
    let every = Duration::from_secs_f64(app.interval_s);
    // A sampler that dies (a panic in a reader) takes only its layer down:
    // the layer turns stale with the reason, the rest goes on.
    let mut samplers = JoinSet::new();
    let disks = samplers.spawn(sample_loop(
        sources.disks,
        |s: &mut DiskSource, wall_ms| s.sample(wall_ms),
        Msg::Disks,
        every,
        tx.clone(),
    ));
    let nfs = samplers.spawn(sample_loop(
        sources.nfs,
        |s: &mut NfsSource, wall_ms| s.sample(wall_ms),
        Msg::Nfs,
        every,
        tx.clone(),
    ));
    let cache = samplers.spawn(sample_loop(
        sources.cache,
        |s: &mut CacheSource, wall_ms| s.sample(wall_ms),
        Msg::Cache,
        every,
        tx.clone(),
    ));
    let nics = samplers.spawn(sample_loop(
        sources.nics,
        |s: &mut NicSource, wall_ms| s.sample(wall_ms),
        Msg::Nics,
        every,
        tx,
    ));
    type Fail = fn(&mut App, String);
    let layers: [(tokio::task::Id, &str, Fail); 4] = [
        (disks.id(), "disk", App::disks_failed),
        (nfs.id(), "NFS", App::nfs_failed),
        (cache.id(), "page cache", App::cache_failed),
        (nics.id(), "NIC", App::nics_failed),
    ];
    // Each cell on its own task: a cell that hangs or drops never holds up
    // the others or the screen.
    let (cell_tx, mut cell_rx) = mpsc::channel::<CellEvent>(64);
    let cancel = tokio_util::sync::CancellationToken::new();
    let mut cell_tasks = JoinSet::new();
    let cell_opts = std::sync::Arc::new(sources.cells);
    for (i, c) in app.cells.list.iter().enumerate() {
        cell_tasks.spawn(run_cell(
            i,
            c.target.clone(),
            std::sync::Arc::clone(&cell_opts),
            cell_tx.clone(),
            cancel.clone(),
        ));
    }
    drop(cell_tx);
    let mut events = EventStream::new();
    let mut clock = interval(Duration::from_secs(1));
    clock.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut meter = SelfMeter::default();
    use tokio::signal::unix::{SignalKind, signal};
    // Every polite way to ask a program to stop gives the terminal back.
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let mut sigquit = signal(SignalKind::quit())?;
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    let mut frame_log = match crate::frame_log::FrameLog::from_env() {
        Ok(log) => log,
        Err(e) => {
            app.notice = Some(e);
            None
        }
    };
    // The first change since the last frame, for the frame log's lateness.
    let mut dirty_at = Some(Instant::now());
    // Debug builds only: lets the end-to-end test prove that a panic in the
    // loop still gives the user their terminal back.
    #[cfg(debug_assertions)]
    let panic_at = std::env::var("STRATA_TEST_PANIC_AFTER_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(|ms| Instant::now() + Duration::from_millis(ms));
    while !app.quit {
        if dirty && dirty_at.is_none() {
            dirty_at = Some(Instant::now());
        }
        tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(Event::Key(k))) if k.kind == KeyEventKind::Press => {
                    if let Some(a) = keymap::map_key(k, app.key_mode()) {
                        app.update(a);
                        dirty = true;
                    }
                }
                Some(Ok(Event::Resize(..))) => dirty = true,
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.into()),
                None => break,
            },
            Some(msg) = rx.recv() => {
                match msg {
                    Msg::Disks(Ok(s)) => app.ingest_disks(s),
                    Msg::Disks(Err(e)) => app.disks_failed(e.to_string()),
                    Msg::Nfs(Ok(s)) => app.ingest_nfs(s),
                    Msg::Nfs(Err(e)) => app.nfs_failed(e.to_string()),
                    Msg::Cache(Ok(s)) => app.ingest_cache(s),
                    Msg::Cache(Err(e)) => app.cache_failed(e.to_string()),
                    Msg::Nics(Ok(s)) => app.ingest_nics(s),
                    Msg::Nics(Err(e)) => app.nics_failed(e.to_string()),
                }
                dirty = true;
            }
            Some(ev) = cell_rx.recv() => {
                app.ingest_cell_event(ev);
                dirty = true;
            }
            _ = clock.tick() => {
                #[cfg(debug_assertions)]
                if panic_at.is_some_and(|t| Instant::now() >= t) {
                    panic!("STRATA_TEST_PANIC_AFTER_MS reached");
                }
                app.now_ms = now_ms();
                app.cells_clock();
                app.usage = meter.read();
                if let Some(log) = frame_log.as_mut() {
                    log.flush();
                }
                dirty = true;
            }
            _ = sigterm.recv() => app.quit = true,
            _ = sigint.recv() => app.quit = true,
            _ = sighup.recv() => app.quit = true,
            _ = sigquit.recv() => app.quit = true,
            Some(end) = samplers.join_next_with_id() => {
                let (id, how) = match end {
                    Ok((id, ())) => (id, "stopped"),
                    Err(e) => (e.id(), if e.is_panic() { "panicked" } else { "stopped" }),
                };
                if let Some((_, name, fail)) = layers.iter().find(|(i, ..)| *i == id) {
                    fail(app, format!("the {name} sampler {how}; restart strata to sample it again"));
                }
                dirty = true;
            }
            _ = sleep_until(last_draw + FRAME), if dirty => {
                let cpu = frame_log.is_some().then(crate::frame_log::thread_cpu);
                let start = Instant::now();
                terminal.draw(|f| crate::ui::draw(f, app))?;
                let end = Instant::now();
                if let (Some(log), Some(cpu)) = (frame_log.as_mut(), cpu) {
                    let due = dirty_at.unwrap_or(start).max(last_draw + FRAME);
                    let cpu = crate::frame_log::thread_cpu().saturating_sub(cpu);
                    log.record(now_ms(), due.into_std(), start.into_std(), end.into_std(), cpu);
                }
                last_draw = end;
                dirty = false;
                dirty_at = None;
            }
        }
    }
    samplers.abort_all();
    // Closing the connections ends each cell's sampler on its next write.
    cancel.cancel();
    cell_tasks.abort_all();
    Ok(())
}

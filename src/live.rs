//! The live monitor: sampler task → channel → the app loop, which is the
//! store's one writer and draws at most at a capped frame rate.

use crate::app::session::Request;
use crate::app::{App, Input, keymap};
use crate::record::Existing;
use crate::recording::control::Control;
use crate::source::SourceError;
use crate::source::cache::CacheSource;
use crate::source::cells::{CellEvent, CellOptions, run_cell};
use crate::source::disks::DiskSource;
use crate::source::host::SelfMeter;
use crate::source::nfs::NfsSource;
use crate::source::nics::NicSource;
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures::StreamExt;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::{Instant, MissedTickBehavior, interval, sleep_until};

/// At most this many frames a second; sampling has its own clock.
const FRAME: Duration = Duration::from_millis(33);

/// Every source the screen samples, each on its own task.
pub struct Sources {
    pub disks: DiskSource,
    pub nfs: NfsSource,
    pub cache: CacheSource,
    pub nics: NicSource,
    /// How to reach the app's cells, one task each.
    pub cells: CellOptions,
}

use crate::core::clock::now_ms;

/// Samples a source every `every`, for as long as the app listens, and
/// sends each result wrapped by `wrap`. Reading runs on a blocking thread:
/// a slow /sys or a hung `--root` (on NFS, say) must not stall keys and
/// drawing, nor the other sources.
async fn sample_loop<S, T>(
    source: S,
    mut read: impl FnMut(&mut S, i64) -> Result<T, SourceError> + Send + Copy + 'static,
    wrap: fn(Result<T, String>) -> Input,
    every: Duration,
    tx: mpsc::Sender<Input>,
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
        if tx
            .send(wrap(sample.map_err(|e| e.to_string())))
            .await
            .is_err()
        {
            return;
        }
        tick = crate::core::boundary::next(every);
        source = Some(src);
    }
}

/// Runs the screen until the user quits. The terminal is restored on every
/// way out, panics included (ratatui's hook).
pub fn run(
    mut app: App,
    source: Sources,
    record: Option<PathBuf>,
    existing: Existing,
) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut terminal = ratatui::try_init()?;
    let how = Headless {
        existing,
        ..Headless::default()
    };
    let result = rt.block_on(event_loop(
        Some(&mut terminal),
        &mut app,
        source,
        record,
        how,
    ));
    ratatui::restore();
    // A reader stuck in a hung --root (an NFS server gone) must not keep
    // strata from quitting: blocking reads are abandoned, not awaited.
    rt.shutdown_timeout(Duration::from_millis(200));
    result
}

/// How `strata record` runs without a screen.
#[derive(Debug, Default, Clone, Copy)]
pub struct Headless {
    /// Stop after this long.
    pub duration: Option<Duration>,
    /// Go on in a new file once the current one holds this many bytes.
    pub rotate_bytes: Option<u64>,
    /// `--force`: whether a finished recording at the path is replaced.
    pub existing: Existing,
}

/// `strata record FILE`: the live loop without a screen, until a signal or
/// the duration. Notices (a cell that fails, a recording that cannot be
/// written) go to stderr.
pub fn record(mut app: App, source: Sources, file: PathBuf, how: Headless) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = rt.block_on(event_loop(None, &mut app, source, Some(file), how));
    rt.shutdown_timeout(Duration::from_millis(200));
    let error = result.as_ref().err().map(ToString::to_string);
    if let Some(n) = app.notice.take().filter(|n| Some(n) != error.as_ref()) {
        eprintln!("strata: {n}");
    }
    result
}

async fn event_loop(
    mut terminal: Option<&mut ratatui::DefaultTerminal>,
    app: &mut App,
    sources: Sources,
    record: Option<PathBuf>,
    how: Headless,
) -> anyhow::Result<()> {
    let (tx, mut rx) = mpsc::channel(16);
    let every = Duration::from_secs_f64(app.interval_s);
    // A sampler that dies (a panic in a reader) takes only its layer down:
    // the layer turns stale with the reason, the rest goes on.
    let mut samplers = JoinSet::new();
    let disks = samplers.spawn(sample_loop(
        sources.disks,
        |s: &mut DiskSource, wall_ms| s.sample(wall_ms),
        Input::Disks,
        every,
        tx.clone(),
    ));
    let nfs = samplers.spawn(sample_loop(
        sources.nfs,
        |s: &mut NfsSource, wall_ms| s.sample(wall_ms),
        Input::Nfs,
        every,
        tx.clone(),
    ));
    let cache = samplers.spawn(sample_loop(
        sources.cache,
        |s: &mut CacheSource, wall_ms| s.sample(wall_ms),
        Input::Cache,
        every,
        tx.clone(),
    ));
    let nics = samplers.spawn(sample_loop(
        sources.nics,
        |s: &mut NicSource, wall_ms| s.sample(wall_ms),
        Input::Nics,
        every,
        tx,
    ));
    type Fail = fn(String) -> Input;
    let layers: [(tokio::task::Id, &str, Fail); 4] = [
        (disks.id(), "disk", |e| Input::Disks(Err(e))),
        (nfs.id(), "NFS", |e| Input::Nfs(Err(e))),
        (cache.id(), "page cache", |e| Input::Cache(Err(e))),
        (nics.id(), "NIC", |e| Input::Nics(Err(e))),
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
    // Each database on its own thread: the oracle crate blocks, so a slow
    // query or a missing Oracle client never holds up the screen.
    let (db_tx, mut db_rx) = mpsc::channel::<crate::source::dnfs::DbEvent>(64);
    let db_targets: Vec<_> = app.dnfs.list.iter().map(|d| d.target.clone()).collect();
    let mut db_opts = crate::source::dnfs::DbOptions::new(Duration::from_secs_f64(app.interval_s));
    db_opts.passwords = app.passphrases.store.clone();
    let _db_threads = crate::source::dnfs::spawn_dbs(&db_targets, &db_opts, db_tx, &cancel);
    // Only a screen has keys; EventStream needs a terminal.
    let mut events = terminal.is_some().then(EventStream::new);
    let mut clock = interval(Duration::from_secs(1));
    clock.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut meter = SelfMeter::default();
    let mut rec = Control::new(record.clone()).replacing(how.existing);
    // A recording asked for on the command line or in the config that
    // cannot start (the file exists, another strata records to it) ends
    // the run before it starts: the user asked for evidence.
    if let Some(path) = &record
        && !rec.start(app, path)
    {
        anyhow::bail!("{}", app.notice.take().unwrap_or_default());
    }
    let deadline = how.duration.map(|d| Instant::now() + d);
    // `strata mark` reaches this strata through its socket.
    let (mark_tx, mut mark_rx) = mpsc::channel::<String>(8);
    let marks = match crate::record::mark::MarkSocket::bind() {
        Ok(m) => Some(m),
        Err(e) => {
            app.notice = Some(e);
            None
        }
    };
    let headless = terminal.is_none();
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
            ev = async { match events.as_mut() {
                Some(e) => e.next().await,
                None => std::future::pending().await,
            } }, if !headless => match ev {
                Some(Ok(Event::Key(k))) if k.kind == KeyEventKind::Press => {
                    if let Some(a) = keymap::map_key(k, app.key_mode()) {
                        app.update(a);
                        for r in app.take_requests() {
                            match r {
                                Request::ToggleRecord => rec.toggle(app),
                                Request::Input(input) => rec.feed(app, input),
                                Request::Replay(_) => {}
                            }
                        }
                        dirty = true;
                    }
                }
                Some(Ok(Event::Resize(..))) => dirty = true,
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.into()),
                None => break,
            },
            Some(input) = rx.recv() => {
                rec.feed(app, input);
                dirty = true;
            }
            _ = async { if let Some(m) = &marks { m.accept(mark_tx.clone()).await } }, if marks.is_some() => {}
            Some(label) = mark_rx.recv() => {
                rec.feed(app, Input::Marker { wall_ms: now_ms(), label });
                dirty = true;
            }
            Some(ev) = cell_rx.recv() => {
                rec.feed(app, Input::Cell(ev));
                dirty = true;
            }
            Some(ev) = db_rx.recv() => {
                rec.feed(app, Input::Db(ev));
                dirty = true;
            }
            _ = clock.tick() => {
                #[cfg(debug_assertions)]
                if panic_at.is_some_and(|t| Instant::now() >= t) {
                    panic!("STRATA_TEST_PANIC_AFTER_MS reached");
                }
                rec.feed(app, Input::Clock { now_ms: now_ms(), usage: meter.read() });
                rec.refresh(app);
                if headless {
                    // A recording that failed ends the run: its notice is
                    // the run's error, said once on the way out.
                    if !rec.is_recording() {
                        break;
                    }
                    if let Some(n) = app.notice.take() {
                        eprintln!("strata: {n}");
                    }
                    let full = how
                        .rotate_bytes
                        .zip(app.recording.as_ref())
                        .is_some_and(|(max, r)| r.bytes >= max);
                    if full {
                        rec.rotate(app);
                    }
                }
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
                    let why = format!("the {name} sampler {how}; restart strata to sample it again");
                    rec.feed(app, fail(why));
                }
                dirty = true;
            }
            _ = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                app.quit = true;
            }
            _ = sleep_until(last_draw + FRAME), if dirty && !headless => {
                let Some(terminal) = terminal.as_deref_mut() else {
                    continue;
                };
                let cpu = frame_log.is_some().then(crate::frame_log::thread_cpu);
                let start = Instant::now();
                app.apply_drawn(crate::ui::render(terminal, app)?);
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
    let recorded = rec.finish(app);
    samplers.abort_all();
    // Closing the connections ends each cell's sampler on its next write.
    cancel.cancel();
    cell_tasks.abort_all();
    recorded.map_err(anyhow::Error::msg)
}

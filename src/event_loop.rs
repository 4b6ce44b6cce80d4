//! The one loop of every mode: the live screen, a replay and the headless
//! `strata record`. It owns what they share (the terminal's keys, the
//! signals, the terminal's loss, the frame clock and drawing); a [`Feed`]
//! is what differs, where inputs come from (the samplers, cells and
//! databases live, a recording's playback clock in a replay) and which of
//! the user's requests it honours.

use crate::app::session::Request;
use crate::app::{App, keymap};
use crate::core::sys;
use crossterm::event::{Event, EventStream, KeyEventKind};
use futures::StreamExt;
use ratatui::layout::{Position, Rect};
use std::future::Future;
use std::time::Duration;
use tokio::time::{Instant, MissedTickBehavior, interval, sleep_until};

/// At most this many frames a second; sampling has its own clock.
pub const FRAME: Duration = Duration::from_millis(33);

/// How long a frame for new figures waits after the first of them: the
/// hosts, cells and databases of one sampling boundary arrive over tens
/// to hundreds of milliseconds, and drawing each arrival on its own was
/// most of strata's CPU (24 cells gave 12 frames a second at 1 s).
const SETTLE: Duration = Duration::from_millis(150);

/// At most one frame for new figures in this share of the interval: the
/// screen still follows every sample, keys are drawn at once.
const DATA_FRAMES_PER_INTERVAL: u32 = 2;

/// How often the loop looks for a terminal that is gone without a word:
/// well within the second a lost terminal may take to end strata.
const WATCH: Duration = Duration::from_millis(250);

/// Where a mode's inputs come from.
pub trait Feed {
    type Event;

    /// Waits for what the feed has next. The loop drops this future
    /// whenever a key, a signal or a frame comes first, so it must lose
    /// nothing when dropped (tokio's channels, timers and joins do not).
    fn next(&mut self) -> impl Future<Output = Self::Event>;

    /// Applies what [`Feed::next`] gave; setting `app.quit` ends the loop.
    fn apply(&mut self, app: &mut App, event: Self::Event);

    /// What the feed gives is paced by the user (a replay's playback
    /// clock), not by samplers: drawn at once, as keys are, rather than
    /// settled and held to twice an interval.
    fn paced(&self) -> bool {
        false
    }

    /// A request of the user's that the app leaves to its feed.
    fn request(&mut self, app: &mut App, request: Request);

    /// Once, on every way out of the loop (a recording is closed here); an
    /// error is the run's (a recording that could not be written).
    fn finish(self, app: &mut App) -> anyhow::Result<()>;
}

/// Runs `app` fed by what `start` makes, on a screen or (`screen` false)
/// without one, until the user quits, a signal, the terminal goes or the
/// feed says so. The terminal is restored on every way out, panics
/// included (ratatui's hook), unless it is gone.
pub fn run<F: Feed>(
    app: &mut App,
    screen: bool,
    start: impl FnOnce(&mut App) -> anyhow::Result<F>,
) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let tty = Tty::now();
    let mut terminal = if screen { Some(init_terminal()?) } else { None };
    let result = rt.block_on(async {
        let mut feed = start(app)?;
        let result = event_loop(terminal.as_mut(), tty, app, &mut feed).await;
        let finished = feed.finish(app);
        result.and(finished)
    });
    if screen && tty.gone() {
        // A terminal that is gone has nothing to restore, and saying that
        // it could not be (as restoring and dropping the terminal do) fails
        // in turn and aborts: the process is about to end, leave it be.
        std::mem::forget(terminal.take());
    } else if screen {
        ratatui::restore();
    }
    // A reader stuck in a hung --root (an NFS server gone) must not keep
    // strata from quitting: blocking reads are abandoned, not awaited.
    rt.shutdown_timeout(Duration::from_millis(200));
    result
}

/// Why the screen could not be had, and what runs without one: with no
/// terminal, the open of /dev/tty says only "No such device or address".
fn no_terminal(e: std::io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "strata needs a terminal to draw its screen, and has none ({e}): run it in one, \
         or without a screen use `strata batch PANEL` or `strata record FILE` \
         (`strata export FILE` for a recording)"
    )
}

/// The screen, as ratatui's init makes it (raw mode, the alternate screen,
/// the panic hook), with a viewport of the terminal's size that Resize
/// events move: a full-screen viewport asks the size before every frame,
/// which crossterm answers by opening /dev/tty, an ioctl and a close (3.5 %
/// of the TUI's CPU at 1 s).
fn init_terminal() -> anyhow::Result<ratatui::DefaultTerminal> {
    let full = ratatui::try_init().map_err(no_terminal)?;
    let area = Rect::from((Position::ORIGIN, full.size()?));
    let options = ratatui::TerminalOptions {
        viewport: ratatui::Viewport::Fixed(area),
    };
    Ok(ratatui::Terminal::with_options(
        ratatui::backend::CrosstermBackend::new(std::io::stdout()),
        options,
    )?)
}

async fn event_loop<F: Feed>(
    mut terminal: Option<&mut ratatui::DefaultTerminal>,
    tty: Tty,
    app: &mut App,
    feed: &mut F,
) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    // Every polite way to ask a program to stop gives the terminal back,
    // and a hangup (the terminal closed) ends every mode.
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let mut sigquit = signal(SignalKind::quit())?;
    let headless = terminal.is_none();
    // Only a screen has keys; EventStream needs a terminal.
    let mut events = terminal.is_some().then(keys);
    let mut watch = interval(WATCH);
    watch.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut frames = Frames::new(app);
    let panic_at = test_panic_at();
    let mut hangup = Hangup::new(tty);
    // A terminal registered with the runtime says when it hangs up; else
    // a tick asks. A recording without a terminal has nothing to watch.
    // Each tick woke the loop (and polled every branch) four times a second.
    let watching = |hangup: &Hangup| {
        (tty.is_some() && !hangup.registered()) || panic_at.is_some() || frames_logged()
    };
    // Every way out goes past the end of the loop, errors too: the keys'
    // reader must stop before the terminal is given back.
    let mut result = Ok(());
    while !app.quit {
        tokio::select! {
            ev = async { match events.as_mut() {
                Some(e) => e.recv().await,
                None => std::future::pending().await,
            } }, if !headless => match ev {
                Some(Ok(Event::Key(k))) if k.kind == KeyEventKind::Press => {
                    if let Some(a) = keymap::map_key(k, app.key_mode()) {
                        app.update(a);
                        for r in app.take_requests() {
                            feed.request(app, r);
                        }
                        frames.changed();
                    }
                }
                Some(Ok(Event::Resize(w, h))) => {
                    if let Some(t) = terminal.as_deref_mut()
                        && let Err(e) = t.resize(Rect::new(0, 0, w, h))
                    {
                        result = Err(e.into());
                        break;
                    }
                    frames.changed();
                }
                Some(Ok(_)) => {}
                Some(Err(_)) if tty.gone() => break,
                Some(Err(e)) => {
                    result = Err(e.into());
                    break;
                }
                None => break,
            },
            ev = feed.next() => {
                feed.apply(app, ev);
                if feed.paced() {
                    frames.changed();
                } else {
                    frames.new_figures();
                }
            }
            _ = sigterm.recv() => app.quit = true,
            _ = sigint.recv() => app.quit = true,
            _ = sighup.recv() => app.quit = true,
            _ = sigquit.recv() => app.quit = true,
            _ = hangup.changed(), if hangup.registered() => {
                if tty.gone() {
                    break;
                }
            }
            _ = watch.tick(), if watching(&hangup) => {
                // crossterm's reader spins on a terminal that is gone and
                // never says so: without a hangup signal (strata not in the
                // terminal's session) only the terminal itself tells. A
                // headless recording started on one ends with it too.
                if tty.gone() {
                    break;
                }
                if panic_at.is_some_and(|t| Instant::now() >= t) {
                    panic!("STRATA_TEST_PANIC_AFTER_MS reached");
                }
                frames.flush();
            }
            _ = sleep_until(frames.next()), if frames.dirty && !headless => {
                let Some(terminal) = terminal.as_deref_mut() else {
                    continue;
                };
                if let Err(e) = frames.draw(terminal, app) {
                    if !tty.gone() {
                        result = Err(e.into());
                    }
                    break;
                }
            }
        }
    }
    frames.flush();
    if let Some(keys) = events {
        keys.stop().await;
    }
    result
}

/// The frame clock: a frame when something changed, at most every
/// [`FRAME`], each in the frame log when one is kept. What the user did is
/// drawn at once; new figures wait [`SETTLE`] for the rest of their
/// boundary and come at most [`DATA_FRAMES_PER_INTERVAL`] times an
/// interval.
struct Frames {
    dirty: bool,
    /// The user changed something: no settling.
    urgent: bool,
    /// The first change since the last frame, for the frame log's lateness.
    dirty_at: Option<Instant>,
    last: Instant,
    /// The least time between two frames for new figures.
    data_gap: Duration,
    log: Option<crate::frame_log::FrameLog>,
}

impl Frames {
    fn new(app: &mut App) -> Frames {
        let log = crate::frame_log::FrameLog::from_env().unwrap_or_else(|e| {
            app.notice = Some(e);
            None
        });
        Frames {
            dirty: true,
            urgent: true,
            dirty_at: Some(Instant::now()),
            last: Instant::now() - FRAME,
            data_gap: data_gap(app.interval_s),
            log,
        }
    }

    /// A key, a resize: drawn at the next frame.
    fn changed(&mut self) {
        self.urgent = true;
        self.new_figures();
    }

    fn new_figures(&mut self) {
        if !self.dirty {
            self.dirty = true;
            self.dirty_at = Some(Instant::now());
        }
    }

    /// The earliest the next frame may be drawn.
    fn next(&self) -> Instant {
        let soonest = self.last + FRAME;
        if self.urgent {
            return soonest;
        }
        let settled = self.dirty_at.map_or(soonest, |t| t + SETTLE);
        soonest.max(settled).max(self.last + self.data_gap)
    }

    fn draw(
        &mut self,
        terminal: &mut ratatui::DefaultTerminal,
        app: &mut App,
    ) -> std::io::Result<()> {
        let cpu = self.log.is_some().then(crate::frame_log::thread_cpu);
        let start = Instant::now();
        app.apply_drawn(crate::ui::render(terminal, app)?);
        let end = Instant::now();
        let due = self.dirty_at.unwrap_or(start).max(self.next());
        if let (Some(log), Some(cpu)) = (self.log.as_mut(), cpu) {
            let cpu = crate::frame_log::thread_cpu().saturating_sub(cpu);
            let wall_ms = crate::core::clock::now_ms();
            log.record(
                wall_ms,
                due.into_std(),
                start.into_std(),
                end.into_std(),
                cpu,
            );
        }
        self.last = end;
        self.dirty = false;
        self.urgent = false;
        self.dirty_at = None;
        Ok(())
    }

    fn flush(&mut self) {
        if let Some(log) = self.log.as_mut() {
            log.flush();
        }
    }
}

/// The least time between two frames for new figures at `interval_s`.
fn data_gap(interval_s: f64) -> Duration {
    let share = Duration::try_from_secs_f64(interval_s / f64::from(DATA_FRAMES_PER_INTERVAL))
        .unwrap_or(FRAME);
    share.clamp(FRAME, Duration::from_secs(1))
}

/// The terminal's events on a task of their own, through a channel: the
/// loop polls every branch at each wake-up, and polling crossterm's stream
/// takes a lock its reader thread holds, spun for with sched_yield (4 % of
/// strata's CPU with 32 hosts).
fn keys() -> Keys {
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    let task = tokio::spawn(async move {
        let mut stream = EventStream::new();
        while let Some(ev) = stream.next().await {
            if tx.send(ev).await.is_err() {
                break;
            }
        }
    });
    Keys { rx, task }
}

struct Keys {
    rx: tokio::sync::mpsc::Receiver<std::io::Result<Event>>,
    task: tokio::task::JoinHandle<()>,
}

impl Keys {
    async fn recv(&mut self) -> Option<std::io::Result<Event>> {
        self.rx.recv().await
    }

    /// Ends the reader before the terminal is given back: crossterm's
    /// reader must not take what the shell reads next.
    async fn stop(mut self) {
        self.task.abort();
        let _ = (&mut self.task).await;
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Whether frames are logged: the log is flushed at each watch tick.
fn frames_logged() -> bool {
    std::env::var_os(crate::frame_log::VAR).is_some()
}

/// The terminal's descriptor registered with the runtime's epoll, which
/// reports a hangup (POLLHUP) whatever was asked: the loop wakes when the
/// terminal goes (and at each key, which crossterm reads), not on a clock.
struct Hangup(Option<tokio::io::unix::AsyncFd<sys::StdioFd>>);

impl Hangup {
    fn new(tty: Tty) -> Hangup {
        let fd = tty.fds.into_iter().flatten().next();
        Hangup(fd.and_then(sys::register_stdio))
    }

    fn registered(&self) -> bool {
        self.0.is_some()
    }

    /// Until the terminal has something to say: input or a hangup. A
    /// closed side stays ready, so the watch tick takes over from there.
    async fn changed(&mut self) {
        let Some(fd) = &self.0 else {
            return std::future::pending().await;
        };
        let closed = match fd.readable().await {
            Ok(mut ready) => {
                let closed = ready.ready().is_read_closed();
                ready.clear_ready();
                closed
            }
            Err(_) => true,
        };
        if closed {
            self.0 = None;
        }
    }
}

/// Debug builds only: lets the end-to-end test prove that a panic in the
/// loop still gives the user their terminal back.
fn test_panic_at() -> Option<Instant> {
    if !cfg!(debug_assertions) {
        return None;
    }
    std::env::var("STRATA_TEST_PANIC_AFTER_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(|ms| Instant::now() + Duration::from_millis(ms))
}

/// The descriptors of the terminal strata draws on and reads keys from,
/// told while it is there: a terminal that hung up no longer says it is one.
#[derive(Clone, Copy)]
struct Tty {
    fds: [Option<std::os::fd::RawFd>; 2],
}

impl Tty {
    fn now() -> Tty {
        use std::io::IsTerminal;
        let fd = |tty: bool, fd| tty.then_some(fd);
        Tty {
            fds: [
                fd(std::io::stdin().is_terminal(), libc::STDIN_FILENO),
                fd(std::io::stdout().is_terminal(), libc::STDOUT_FILENO),
            ],
        }
    }

    /// Whether strata runs on a terminal at all.
    fn is_some(self) -> bool {
        self.fds.iter().any(Option::is_some)
    }

    /// Whether it has hung up: its pty closed, its session killed.
    fn gone(self) -> bool {
        self.fds.into_iter().flatten().any(|fd| {
            sys::poll_now(fd)
                .is_some_and(|ev| ev & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0)
        })
    }
}

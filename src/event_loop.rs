//! The one loop of every mode: the live screen, a replay and the headless
//! `strata record`. It owns what they share (the terminal's keys, the
//! signals, the terminal's loss, the frame clock and drawing); a [`Feed`]
//! is what differs, where inputs come from (the samplers, cells and
//! databases live, a recording's playback clock in a replay) and which of
//! the user's requests it honours.

use crate::app::session::Request;
use crate::app::{App, keymap};
use crate::core::duration::Interval;
use crate::core::sys;
use crossterm::event::{Event, KeyEventKind};
use ratatui::layout::{Position, Rect};
use std::future::Future;
use std::sync::atomic::AtomicBool;
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
    let watchdog = Watchdog::start(tty, screen);
    if screen && let Err(e) = start_reader() {
        ratatui::restore();
        return Err(e);
    }
    let result = rt.block_on(async {
        let mut feed = start(app)?;
        let result = event_loop(terminal.as_mut(), tty, app, &mut feed, &watchdog).await;
        // What is left is the feed's to finish (a recording's last
        // samples): the watchdog leaves that to end by itself.
        watchdog.loop_ended();
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
    watchdog: &Watchdog,
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
    let mut events = terminal.is_some().then(|| keys(tty));
    let mut watch = interval(WATCH);
    watch.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut frames = Frames::new(app);
    let panic_at = test_panic_at();
    let mut hold = test_hold();
    let mut hangup = Hangup::new(tty);
    // A terminal registered with the runtime says when it hangs up; else
    // a tick asks. A recording without a terminal has nothing to watch.
    // Each tick woke the loop (and polled every branch) four times a second.
    // The environment is read once: the guard is asked at every turn, and
    // getenv's lock and scan each time were 1 % of a recorder's CPU.
    let logged = frames_logged();
    let watching =
        |hangup: &Hangup| (tty.is_some() && !hangup.registered()) || panic_at.is_some() || logged;
    // Every way out goes past the end of the loop, errors too: the keys'
    // reader must stop before the terminal is given back.
    let mut result = Ok(());
    while !app.quit {
        watchdog.beat(app.recording.is_some());
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
                    if let Some(d) = hold.take() {
                        std::thread::sleep(d);
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
            data_gap: data_gap(app.interval),
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

/// The least time between two frames for new figures at `interval`.
fn data_gap(interval: Interval) -> Duration {
    let share = interval.duration() / DATA_FRAMES_PER_INTERVAL;
    share.clamp(FRAME, Duration::from_secs(1))
}

/// The terminal's events on a thread of their own, through a channel.
/// Not crossterm's EventStream, whose reads ran on the loop's only thread:
/// crossterm retries a read of 0 bytes for ever, so a terminal that went
/// while the loop was busy (a jump in a long replay) had it spin there,
/// deaf to signals, long after the terminal was gone. Here that spin, if
/// the terminal goes during a poll, is a thread's the loop leaves behind
/// when it ends, and the reader looks at the terminal before each poll.
///
/// Between keys the thread sleeps in poll(2) on the terminal and a pipe
/// that a resize (SIGWINCH) and [`Keys::stop`] write to: crossterm's poll
/// with a timeout, in a loop, woke it ten times a second (a sixth of the
/// TUI's CPU at 1 s).
fn keys(tty: Tty) -> Keys {
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = std::sync::Arc::clone(&stop);
    // crossterm reads stdin when it is a terminal, else its own open of
    // /dev/tty, which only its timed poll sees.
    let mut sleep = tty.fds[0].and_then(|fd| {
        sys::Wake::new().ok().map(|wake| KeySleep {
            wake,
            fd,
            readable: false,
        })
    });
    let waker = sleep.as_ref().map(|s| s.wake.waker());
    // crossterm took SIGWINCH when its reader was made (start_reader):
    // its action runs first, so its resize is there when this one wakes.
    let winch = waker
        .clone()
        .and_then(|w| sys::wake_on_signal(libc::SIGWINCH, w));
    if winch.is_none() {
        sleep = None;
    }
    let reader = move || {
        use std::sync::atomic::Ordering;
        let mut timeout = Duration::ZERO;
        while !stopped.load(Ordering::Relaxed) && !tty.gone() {
            let ev = match crossterm::event::poll(timeout) {
                Ok(false) => {
                    timeout = match sleep.as_mut() {
                        Some(s) => s.until_input(timeout),
                        None => KEY_POLL,
                    };
                    continue;
                }
                Ok(true) => crossterm::event::read(),
                Err(e) => Err(e),
            };
            // What one read of the terminal brought may hold more keys.
            timeout = Duration::ZERO;
            if let Some(s) = sleep.as_mut() {
                s.readable = false;
            }
            let failed = ev.is_err();
            if tx.blocking_send(ev).is_err() || failed {
                break;
            }
        }
    };
    let thread = std::thread::Builder::new()
        .name("keys".into())
        .spawn(reader)
        .ok();
    Keys {
        rx,
        stop,
        thread,
        waker,
        winch,
    }
}

/// How long the keys' reader waits for a key before it looks at the
/// terminal and its stop again, when it cannot sleep until one (and
/// after a resize's wake-up): also the most a stop waits for it.
const KEY_POLL: Duration = Duration::from_millis(100);

/// The keys' reader's sleep between keys.
struct KeySleep {
    wake: sys::Wake,
    /// The terminal crossterm reads.
    fd: std::os::fd::RawFd,
    /// The last sleep ended with the terminal readable.
    readable: bool,
}

impl KeySleep {
    /// Sleeps until the terminal has input, goes, or a resize or a stop
    /// comes, once crossterm's poll with `waited` had nothing; says how
    /// long crossterm's next poll may wait.
    fn until_input(&mut self, waited: Duration) -> Duration {
        if waited.is_zero() && self.readable {
            // The terminal said input, crossterm took none: its epoll is
            // edge-triggered and may hold bytes it has already been told
            // of. Its timed poll, as before, rather than a spin.
            self.readable = false;
            return KEY_POLL;
        }
        let woken = sys::wait(&self.wake, &[self.fd], true, None);
        self.wake.drain();
        self.readable = woken.readable;
        if woken.wake && !woken.readable {
            // A resize: crossterm's own pipe has it, or has it soon.
            KEY_POLL
        } else {
            Duration::ZERO
        }
    }
}

struct Keys {
    rx: tokio::sync::mpsc::Receiver<std::io::Result<Event>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Wakes the reader from its sleep between keys.
    waker: Option<sys::Waker>,
    winch: Option<signal_hook_registry::SigId>,
}

impl Keys {
    async fn recv(&mut self) -> Option<std::io::Result<Event>> {
        self.rx.recv().await
    }

    /// Ends the reader before the terminal is given back: crossterm's
    /// reader must not take what the shell reads next. A reader that does
    /// not end within a few polls is spinning on a terminal that is gone,
    /// and is left to end with the process.
    async fn stop(mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(w) = &self.waker {
            w.wake();
        }
        if let Some(id) = self.winch.take() {
            sys::forget_signal(id);
        }
        self.rx.close();
        let Some(thread) = self.thread.take() else {
            return;
        };
        let until = Instant::now() + KEY_POLL * 3;
        while !thread.is_finished() && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        if thread.is_finished() {
            let _ = thread.join();
        }
    }
}

/// Ends strata when its loop cannot. A signal or the terminal's loss is
/// the loop's to act on, but a loop held by one long piece of work (a
/// jump across a large replay takes seconds) acts on it only when the
/// work ends. So a thread sees the signals and the terminal too, and
/// when the loop has not turned once in [`GRACE`] after either (it is
/// held; not while it records), or has not ended in [`GRACE_TURNING`] (a
/// loop that turns acts on it at once, a slow machine's too), it gives the terminal back (if
/// it is there) and exits, 128 + the signal's number (129 for a terminal
/// gone).
///
/// Until one of them comes the thread sleeps in poll(2) on the terminal
/// and a pipe the signals write to, and costs nothing: a sleep of 50 ms
/// in a loop was 20 wake-ups a second, 40 % of a recorder's CPU.
struct Watchdog {
    state: std::sync::Arc<std::sync::atomic::AtomicU8>,
    turns: std::sync::Arc<std::sync::atomic::AtomicU64>,
    recording: std::sync::Arc<AtomicBool>,
    ids: Vec<signal_hook_registry::SigId>,
    /// Wakes the thread when the loop ends, so that it ends too.
    waker: Option<sys::Waker>,
}

/// How long a held loop has to end by itself: with [`WATCH_HELD`], under
/// the second in which every mode ends once its terminal is gone.
const GRACE: Duration = Duration::from_millis(700);
/// How long a loop that turns has.
const GRACE_TURNING: Duration = Duration::from_secs(10);
/// How often the watchdog looks at the loop once a signal came or the
/// terminal went (before that, it sleeps until one of them).
const WATCH_HELD: Duration = Duration::from_millis(50);
const LOOPING: u8 = 0;
const LOOP_ENDED: u8 = 1;

impl Watchdog {
    fn start(tty: Tty, screen: bool) -> Watchdog {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};
        let state = Arc::new(AtomicU8::new(LOOPING));
        let signal = Arc::new(AtomicI32::new(0));
        // Without a pipe (no descriptor left) the thread looks every
        // WATCH_HELD, as it always did before.
        let wake = sys::Wake::new().ok();
        let waker = wake.as_ref().map(sys::Wake::waker);
        let mut ids = Vec::new();
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
            ids.extend(sys::note_signal(sig, Arc::clone(&signal), waker.clone()));
        }
        let turns = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let recording = Arc::new(AtomicBool::new(false));
        let looping = Arc::clone(&state);
        let turned = Arc::clone(&turns);
        let records = Arc::clone(&recording);
        // Only a screen's terminal is watched here: a headless recording's
        // loop sees its terminal go by itself.
        let watched: Vec<std::os::fd::RawFd> = if screen {
            tty.fds.into_iter().flatten().collect()
        } else {
            Vec::new()
        };
        let watch = move || {
            // When the signal or the loss was first seen, which, and the
            // loop's turns then.
            let mut since: Option<(std::time::Instant, i32, u64)> = None;
            while looping.load(Ordering::Relaxed) == LOOPING {
                match (&wake, since) {
                    (Some(wake), None) => {
                        sys::wait(wake, &watched, false, None);
                        wake.drain();
                    }
                    _ => std::thread::sleep(WATCH_HELD),
                }
                if looping.load(Ordering::Relaxed) != LOOPING {
                    return;
                }
                let sig = signal.load(Ordering::Relaxed);
                let why = if sig != 0 {
                    Some(sig)
                } else {
                    (screen && tty.gone()).then_some(libc::SIGHUP)
                };
                let now = turned.load(Ordering::Relaxed);
                match (why, since) {
                    (Some(w), None) => since = Some((std::time::Instant::now(), w, now)),
                    (Some(_), Some((t, w, then)))
                        if (now == then
                            && t.elapsed() >= GRACE
                            && !records.load(Ordering::Relaxed))
                            || t.elapsed() >= GRACE_TURNING =>
                    {
                        if looping.load(Ordering::Relaxed) != LOOPING {
                            return;
                        }
                        if screen && !tty.gone() {
                            ratatui::restore();
                        }
                        std::process::exit(128 + w);
                    }
                    _ => {}
                }
            }
        };
        let _ = std::thread::Builder::new()
            .name("watchdog".into())
            .spawn(watch);
        Watchdog {
            state,
            turns,
            recording,
            ids,
            waker,
        }
    }

    /// The loop turned: it is not held. While it records, a held loop is
    /// given the long grace too: a recording's tick being written (100k
    /// devices take seconds) is not cut short and lost.
    fn beat(&self, recording: bool) {
        use std::sync::atomic::Ordering;
        self.turns.fetch_add(1, Ordering::Relaxed);
        self.recording.store(recording, Ordering::Relaxed);
    }

    fn loop_ended(&self) {
        self.state
            .store(LOOP_ENDED, std::sync::atomic::Ordering::Relaxed);
        if let Some(w) = &self.waker {
            w.wake();
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.loop_ended();
        for id in self.ids.drain(..) {
            sys::forget_signal(id);
        }
    }
}

/// crossterm's reader of the terminal, made before anything else takes
/// descriptors: made later with none left, crossterm panicked ("reader
/// source not set") and strata exited 0. Its error says what ran out.
fn start_reader() -> anyhow::Result<()> {
    crossterm::event::poll(Duration::ZERO).map_err(|e| {
        anyhow::anyhow!(
            "cannot read the terminal's keys: {e}{}",
            sys::descriptors_note()
        )
    })?;
    Ok(())
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
    test_ms("STRATA_TEST_PANIC_AFTER_MS").map(|d| Instant::now() + d)
}

/// Debug builds only: the milliseconds `var` holds.
fn test_ms(var: &str) -> Option<Duration> {
    if !cfg!(debug_assertions) {
        return None;
    }
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_millis)
}

/// Debug builds only: holds the loop this long at the first key, as a
/// jump across a large replay does, so that the end-to-end test proves a
/// held loop still ends when its terminal goes or a signal comes.
fn test_hold() -> Option<Duration> {
    test_ms("STRATA_TEST_HOLD_MS")
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

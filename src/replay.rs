//! `strata replay FILE`: the recording's inputs handed to the same app the
//! live loop feeds, so every screen and drill-down works as it did live.
//!
//! Played forward, inputs are applied in their recorded order, exactly as
//! live. A jump (a step back, a minute, a marker, a typed time) rebuilds the
//! app's figures from the inputs of the [`REBUILD_SAMPLES`] intervals before
//! the new position, which keeps a jump to the end of a day-long file fast;
//! of the inputs before those it keeps only what outlasts them (`Kept`).
//! A chart spans the whole history kept (an hour by default): after a jump
//! it holds these intervals, and fills as the replay plays on.

use crate::core::duration::Interval;
use std::collections::HashMap;
use std::future::Future;
use std::path::Path;
use std::time::Duration;

use tokio::time::{Instant, sleep_until};

use crate::app::session::{ReplayCmd, ReplayStatus, Request, SPEEDS};
use crate::app::{App, Input};
use crate::event_loop::{self, FRAME, Feed};
use crate::layers::cells::source::CellEvent;
use crate::recording::session::Player;

/// Intervals of inputs a jump rebuilds the figures from.
pub const REBUILD_SAMPLES: i64 = 300;

pub struct Replayer {
    player: Player,
    /// Time of the newest input applied, and where a jump rebuilt from.
    pos_ms: i64,
    playing: bool,
    speed: usize,
    interval: Interval,
    /// The player's notices already put in the footer: each is said once,
    /// so a key the user presses clears it for good.
    notices_shown: usize,
}

impl Replayer {
    /// The app a recording's meta describes, at the recording's start.
    pub fn new(player: Player, app: &mut App, file: &Path) -> Replayer {
        let interval = player.meta.interval();
        let interval_ms = interval.ms();
        // Stretches lost to damage show as gaps too (a damaged chunk of a
        // minute would not by its chunk times alone).
        let mut gaps = gaps(&player.chunk_times(), interval_ms);
        gaps.extend(player.damage());
        gaps.sort_unstable();
        app.replay = Some(ReplayStatus {
            file: file.display().to_string(),
            start_ms: player.start_ms,
            end_ms: player.end_ms,
            pos_ms: player.start_ms,
            playing: false,
            speed: SPEEDS[0],
            markers: player.markers().to_vec(),
            gaps,
        });
        let mut r = Replayer {
            pos_ms: player.start_ms,
            player,
            playing: false,
            speed: 0,
            interval,
            notices_shown: 0,
        };
        // Two samples in: the first figures over an interval are on screen.
        r.advance_to(app, r.pos_ms + 2 * interval_ms);
        r
    }

    pub fn pos_ms(&self) -> i64 {
        self.pos_ms
    }

    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Applies every input up to `t`, in order.
    pub fn advance_to(&mut self, app: &mut App, t: i64) {
        while let Some(at) = self.player.peek_time() {
            if at > t {
                break;
            }
            if let Some((_, input)) = self.player.next_input() {
                app.apply(input);
            }
        }
        self.pos_ms = t.min(self.player.end_ms).max(self.pos_ms);
        if self.pos_ms >= self.player.end_ms {
            self.playing = false;
        }
        self.sync(app);
    }

    /// Rebuilds the app at `t` from the inputs before it: the window's in
    /// full, and of those before it what outlasts them (`Kept`).
    pub fn seek(&mut self, app: &mut App, t: i64) {
        let t = t.clamp(self.player.start_ms, self.player.end_ms);
        let from = t.saturating_sub(REBUILD_SAMPLES * self.interval.ms());
        app.reset_data();
        let mut kept = Kept::default();
        self.player
            .rewind_keeping(from, &mut |input| kept.take(input));
        kept.apply(app);
        self.pos_ms = self.player.start_ms;
        // Markers are read from the file's index: a rebuild that starts
        // after one still lists it.
        for (at, label) in self.player.markers() {
            if *at < from {
                app.add_marker(*at, label.clone());
            }
        }
        while let Some(at) = self.player.peek_time() {
            if at > t {
                break;
            }
            if let Some((_, input)) = self.player.next_input() {
                let listed = matches!(&input, Input::Marker { wall_ms, .. } if *wall_ms < from);
                if !listed {
                    app.apply(input);
                }
            }
        }
        self.pos_ms = t;
        self.sync(app);
    }

    /// Plays on by the wall time that passed, times the speed.
    pub fn play(&mut self, app: &mut App, elapsed: Duration) {
        if self.playing {
            let ms = elapsed.as_millis() as i64 * i64::from(SPEEDS[self.speed]);
            self.advance_to(app, self.pos_ms + ms);
        }
    }

    pub fn command(&mut self, app: &mut App, cmd: ReplayCmd) {
        match cmd {
            ReplayCmd::PlayPause => {
                self.playing = !self.playing && self.pos_ms < self.player.end_ms;
            }
            ReplayCmd::Step(n) if n > 0 => {
                self.playing = false;
                // The next interval's end, also from within an interval
                // (the start, a marker, a pause): its samples, read at
                // its boundary, have been played, and going only to its
                // end left the screen as it was.
                let end = interval_end(self.pos_ms, self.interval.ms()) + self.interval.ms();
                self.advance_to(app, end);
            }
            ReplayCmd::Step(_) => {
                self.playing = false;
                let itv = self.interval.ms();
                self.seek(app, self.pos_ms.div_euclid(itv) * itv - 1);
            }
            ReplayCmd::Jump(ms) if ms > 0 => self.advance_to(app, self.pos_ms + ms),
            ReplayCmd::Jump(ms) => self.seek(app, self.pos_ms + ms),
            ReplayCmd::JumpTo(t) if t > self.pos_ms && t - self.pos_ms < 60_000 => {
                self.advance_to(app, t)
            }
            ReplayCmd::JumpTo(t) => self.seek(app, t),
            ReplayCmd::Marker(dir) => {
                let markers = self.player.markers();
                let target = if dir > 0 {
                    markers
                        .iter()
                        .map(|m| m.0)
                        .filter(|t| *t > self.pos_ms)
                        .min()
                } else {
                    // Not the one just reached: the one before it.
                    markers
                        .iter()
                        .map(|m| m.0)
                        .filter(|t| *t < self.pos_ms)
                        .max()
                };
                match target {
                    Some(t) => self.seek(app, t),
                    None => app.notice = Some("no marker that way".into()),
                }
            }
            ReplayCmd::Speed(d) => {
                self.speed = (self.speed as i32 + d).clamp(0, SPEEDS.len() as i32 - 1) as usize;
            }
        }
        self.sync(app);
    }

    fn sync(&mut self, app: &mut App) {
        if let Some(r) = &mut app.replay {
            r.pos_ms = self.pos_ms;
            r.playing = self.playing;
            r.speed = SPEEDS[self.speed];
        }
        let new = &self.player.notices[self.notices_shown..];
        if !new.is_empty() {
            app.notice = Some(new.join(" · "));
            self.notices_shown = self.player.notices.len();
        }
    }
}

/// The last millisecond of the interval (of `itv` ms, counted from the
/// epoch, as the samplers align on them) that `t` is in.
fn interval_end(t: i64, itv: i64) -> i64 {
    (t.div_euclid(itv) + 1) * itv - 1
}

/// What a seek keeps of the inputs before its window: of each kind of
/// [`Input::outlasting`], each cell's (or database's) newest, with the
/// clock it came at.
/// Each overrides what came before it of its kind (a cellcli listing also
/// the message, a restate all of them), so applying these in their order
/// leaves the cells as applying every input would.
#[derive(Default)]
struct Kept {
    now_ms: Option<i64>,
    newest: HashMap<(usize, &'static str), (usize, Option<i64>, Input)>,
    seen: usize,
}

impl Kept {
    fn take(&mut self, input: Input) {
        let key = match &input {
            Input::Clock { now_ms, .. } => {
                self.now_ms = Some(*now_ms);
                return;
            }
            Input::CellRestate(r) => (r.cell, "restate"),
            Input::Db(crate::layers::dnfs::source::DbEvent::Status { db, .. }) => {
                (*db, "db status")
            }
            Input::Db(crate::layers::dnfs::source::DbEvent::Instances { db, .. }) => {
                (*db, "db instances")
            }
            Input::NodeStatus { node, .. } => (*node, "node status"),
            Input::NodeRtt { node, .. } => (*node, "node rtt"),
            Input::NodeHostname { node, .. } => (*node, "node hostname"),
            Input::Cell(ev) => match ev {
                CellEvent::Status { cell, .. } => (*cell, "status"),
                CellEvent::Rtt { cell, .. } => (*cell, "rtt"),
                CellEvent::Cellcli { cell, .. } => (*cell, "cellcli"),
                // A blank one changes nothing (the app ignores it), so it
                // must not hide the one before.
                CellEvent::Stderr { text, .. } if text.trim().is_empty() => return,
                CellEvent::Stderr { cell, .. } => (*cell, "stderr"),
                CellEvent::Sample { .. } => return,
            },
            _ => return,
        };
        self.seen += 1;
        self.newest.insert(key, (self.seen, self.now_ms, input));
    }

    fn apply(self, app: &mut App) {
        let mut kept: Vec<_> = self.newest.into_values().collect();
        kept.sort_by_key(|k| k.0);
        for (_, now_ms, input) in kept {
            // A cellcli listing is timed by the clock it came at.
            app.now_ms = now_ms.unwrap_or(app.now_ms);
            app.apply(input);
        }
        app.now_ms = self.now_ms.unwrap_or(app.now_ms);
    }
}

/// Stretches with no chunk: a chunk spans at most a minute, so a next chunk
/// that starts later than that (and a few intervals) leaves a gap.
pub fn gaps(chunk_t0s: &[i64], interval_ms: i64) -> Vec<(i64, i64)> {
    let span = crate::recfile::format::CHUNK_SPAN_MS;
    chunk_t0s
        .windows(2)
        .filter(|w| w[1] - w[0] > span + 3 * interval_ms)
        .map(|w| (w[0] + span, w[1]))
        .collect()
}

/// Runs the replay screen until the user quits, a signal or the terminal
/// goes; the terminal is restored on every way out.
pub fn run(mut app: App, player: Player, file: &Path) -> anyhow::Result<()> {
    let replayer = Replayer::new(player, &mut app, file);
    event_loop::run(&mut app, true, |_| {
        Ok(Playback {
            replayer,
            played_to: Instant::now(),
        })
    })
}

/// What feeds the app in a replay: the recording, under a playback clock
/// that runs while playing and the user's replay keys.
struct Playback {
    replayer: Replayer,
    /// The wall time played up to.
    played_to: Instant,
}

impl Feed for Playback {
    /// The playback clock's tick.
    type Event = ();

    fn next(&mut self) -> impl Future<Output = ()> {
        // Played a frame at a time: what is played shows at once.
        let next = self.replayer.is_playing().then_some(self.played_to + FRAME);
        async move {
            match next {
                Some(at) => sleep_until(at).await,
                None => std::future::pending().await,
            }
        }
    }

    fn paced(&self) -> bool {
        true
    }

    fn apply(&mut self, app: &mut App, (): ()) {
        // Whole milliseconds, and the rest is kept for the next tick: the
        // replay runs at its speed exactly, however often it is played.
        let ms = self.played_to.elapsed().as_millis();
        let step = Duration::from_millis(u64::try_from(ms).unwrap_or(u64::MAX));
        self.replayer.play(app, step);
        self.played_to += step;
    }

    fn request(&mut self, app: &mut App, request: Request) {
        if let Request::Replay(cmd) = request {
            let was_playing = self.replayer.is_playing();
            self.replayer.command(app, cmd);
            if !was_playing {
                // The time it stood still is not played.
                self.played_to = Instant::now();
            }
        }
    }

    fn finish(self, _: &mut App) -> anyhow::Result<()> {
        Ok(())
    }
}

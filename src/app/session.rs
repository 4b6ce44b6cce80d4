//! Recording, replay and markers as the app sees them: what the header and
//! the timeline show, the prompts, and the requests the loop carries out
//! (the app does no IO).

use super::action::Action;
use super::input::Input;
use super::state::App;

/// A recording in progress, for the header.
#[derive(Debug, Clone, PartialEq)]
pub struct RecStatus {
    pub path: String,
    pub bytes: u64,
    /// Growth over the last minute (or since the start), bytes a second.
    pub bytes_per_s: Option<f64>,
}

/// Where the replay stands, for the header and the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayStatus {
    pub file: String,
    pub start_ms: i64,
    pub end_ms: i64,
    /// Time of the newest input applied.
    pub pos_ms: i64,
    pub playing: bool,
    pub speed: u32,
    /// Every marker of the file, not only those before the position.
    pub markers: Vec<(i64, String)>,
    /// Stretches of the file with no sample, (from, to).
    pub gaps: Vec<(i64, i64)>,
}

/// The replay speeds `+` and `-` step through.
pub const SPEEDS: [u32; 4] = [1, 2, 10, 60];

/// What the loop is asked to do after a key.
#[derive(Debug, Clone)]
pub enum Request {
    /// Start or stop recording.
    ToggleRecord,
    /// An input made by the user (a marker): recorded, then applied.
    Input(Input),
    Replay(ReplayCmd),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayCmd {
    PlayPause,
    /// To the end of the previous (-1) or next (+1) interval: the samples
    /// read at the interval's boundary and all that came with them.
    Step(i32),
    /// By this many ms.
    Jump(i64),
    /// To this wall time.
    JumpTo(i64),
    /// To the previous (-1) or next (+1) marker.
    Marker(i32),
    /// Faster (+1) or slower (-1).
    Speed(i32),
}

/// A line of text the user is typing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPrompt {
    pub purpose: PromptFor,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptFor {
    MarkerLabel,
    /// `HH:MM[:SS]` or `YYYY-MM-DD HH:MM[:SS]`, local time as the header shows it.
    JumpTime,
}

impl PromptFor {
    pub fn title(self) -> &'static str {
        match self {
            PromptFor::MarkerLabel => "marker label",
            PromptFor::JumpTime => "jump to (HH:MM[:SS] or YYYY-MM-DD HH:MM[:SS])",
        }
    }
}

impl App {
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.requests)
    }

    pub fn replaying(&self) -> bool {
        self.replay.is_some()
    }

    /// The keys of recording, replay and the text prompt; true when `action`
    /// was one of them.
    pub(super) fn update_session(&mut self, action: &Action) -> bool {
        if let Some(p) = &mut self.ui.prompt {
            match action {
                Action::FilterChar(c) => p.text.push(*c),
                Action::FilterBackspace => {
                    p.text.pop();
                }
                Action::FilterCancel => self.ui.prompt = None,
                Action::FilterCommit => self.submit_prompt(),
                Action::Quit => self.quit = true,
                _ => {}
            }
            return true;
        }
        if let Some(row) = self.ui.marker_list {
            self.update_marker_list(row, action);
            return true;
        }
        let cmd = match action {
            Action::ListMarkers => {
                let markers = self.marker_rows();
                // In replay the last marker passed, live the newest.
                let pos = self.replay.as_ref().map_or(i64::MAX, |r| r.pos_ms);
                let passed = markers.iter().filter(|m| m.0 <= pos).count();
                self.ui.marker_list = Some(passed.saturating_sub(1));
                return true;
            }
            Action::ToggleRecord => {
                if self.replaying() {
                    self.notice = Some("a replay is not recorded again".into());
                } else {
                    self.requests.push(Request::ToggleRecord);
                }
                return true;
            }
            Action::AddMarker => {
                self.ui.prompt = Some(TextPrompt {
                    purpose: PromptFor::MarkerLabel,
                    text: String::new(),
                });
                return true;
            }
            Action::TogglePause if self.replaying() => ReplayCmd::PlayPause,
            Action::StepBack => ReplayCmd::Step(-1),
            Action::StepForward => ReplayCmd::Step(1),
            Action::JumpBack => ReplayCmd::Jump(-60_000),
            Action::JumpForward => ReplayCmd::Jump(60_000),
            Action::PrevMarker => ReplayCmd::Marker(-1),
            Action::NextMarker => ReplayCmd::Marker(1),
            Action::Faster => ReplayCmd::Speed(1),
            Action::Slower => ReplayCmd::Speed(-1),
            Action::JumpToTime => {
                if self.replaying() {
                    self.ui.prompt = Some(TextPrompt {
                        purpose: PromptFor::JumpTime,
                        text: String::new(),
                    });
                } else {
                    self.notice = Some("jumping in time works in strata replay".into());
                }
                return true;
            }
            _ => return false,
        };
        if self.replaying() {
            self.requests.push(Request::Replay(cmd));
        } else {
            self.notice = Some("that key moves in time in strata replay".into());
        }
        true
    }

    /// The markers the list shows, oldest first: in replay every marker of
    /// the file (those ahead too), live those added so far.
    pub fn marker_rows(&self) -> Vec<(i64, &str)> {
        match &self.replay {
            Some(r) => r.markers.iter().map(|(t, l)| (*t, l.as_str())).collect(),
            None => self
                .markers
                .iter()
                .map(|m| (m.wall_ms, m.label.as_str()))
                .collect(),
        }
    }

    /// The list of markers takes every key: moves pick a marker, Enter goes
    /// to it in replay, any other key closes the list.
    fn update_marker_list(&mut self, row: usize, action: &Action) {
        let rows = self.marker_rows();
        let last = rows.len().saturating_sub(1);
        let page = self.ui.page_rows.max(1);
        let moved = match action {
            Action::Up => row.saturating_sub(1),
            Action::Down => (row + 1).min(last),
            Action::PageUp => row.saturating_sub(page),
            Action::PageDown => (row + page).min(last),
            Action::Top => 0,
            Action::Bottom => last,
            Action::Enter => {
                let at = rows.get(row).map(|m| m.0);
                self.ui.marker_list = None;
                match at {
                    Some(t) if self.replaying() => {
                        self.requests.push(Request::Replay(ReplayCmd::JumpTo(t)));
                    }
                    Some(_) => {
                        self.notice = Some("going to a marker works in strata replay".into())
                    }
                    None => {}
                }
                return;
            }
            Action::Quit => {
                self.quit = true;
                return;
            }
            _ => {
                self.ui.marker_list = None;
                return;
            }
        };
        self.ui.marker_list = Some(moved);
    }

    fn submit_prompt(&mut self) {
        let Some(p) = self.ui.prompt.take() else {
            return;
        };
        let text = p.text.trim().to_string();
        match p.purpose {
            PromptFor::MarkerLabel => {
                if self.replaying() {
                    self.notice = Some("markers are added while recording, not in replay".into());
                } else if !text.is_empty() {
                    self.requests.push(Request::Input(Input::Marker {
                        wall_ms: self.now_ms,
                        label: text,
                    }));
                }
            }
            PromptFor::JumpTime => {
                let Some(r) = &self.replay else {
                    return;
                };
                let offset_s = crate::format::utc_offset_s(r.pos_ms);
                match parse_jump_time(&text, r.pos_ms, offset_s) {
                    // To the end of the typed second: its samples, taken a
                    // few ms after it starts, are played, as export's row
                    // stamped with it has them (`t`, `T` land there too).
                    Some(t) => {
                        let (_, end) = crate::format::printed_second(t);
                        self.requests.push(Request::Replay(ReplayCmd::JumpTo(end)))
                    }
                    None => {
                        self.notice = Some(format!(
                            "{text:?} is not a time: HH:MM, HH:MM:SS or YYYY-MM-DD HH:MM:SS"
                        ))
                    }
                }
            }
        }
    }
}

/// A typed local time (`offset_s` from UTC, as the header shows it): a bare
/// time of day is taken on the local day of `around`.
pub fn parse_jump_time(text: &str, around: i64, offset_s: i64) -> Option<i64> {
    let off = offset_s.checked_mul(1000)?;
    let (date, time) = match text.split_once(' ') {
        Some((d, t)) => (Some(d.trim()), t.trim()),
        None => (None, text),
    };
    let mut hms = time.split(':').map(|p| p.parse::<i64>().ok());
    let h = hms.next()??;
    let m = hms.next()??;
    let s = hms.next().unwrap_or(Some(0))?;
    if hms.next().is_some()
        || !(0..24).contains(&h)
        || !(0..60).contains(&m)
        || !(0..60).contains(&s)
    {
        return None;
    }
    let day_ms = match date {
        Some(d) => {
            let mut ymd = d.split('-').map(|p| p.parse::<i64>().ok());
            let (y, mo, da) = (ymd.next()??, ymd.next()??, ymd.next()??);
            // Four-digit years, as a recording's times have: a year typed
            // with twenty digits overflowed the day's milliseconds (found
            // by the time_expr fuzz target).
            if ymd.next().is_some()
                || !(1..=9999).contains(&y)
                || !(1..=12).contains(&mo)
                || !(1..=31).contains(&da)
            {
                return None;
            }
            days_from_civil(y, mo, da) * 86_400_000
        }
        None => around
            .checked_add(off)?
            .div_euclid(86_400_000)
            .checked_mul(86_400_000)?,
    };
    day_ms
        .checked_add(((h * 60 + m) * 60 + s) * 1000)?
        .checked_sub(off)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_year_no_recording_has_is_no_time_and_never_overflows() {
        // The time_expr fuzz target's crash: a 15-digit year overflowed.
        assert_eq!(parse_jump_time("225401541106-2-20 14:5", 0, 0), None);
        assert_eq!(parse_jump_time("0-1-1 00:00", 0, 0), None);
        assert_eq!(parse_jump_time("14:00", i64::MAX, 3600), None);
        assert_eq!(parse_jump_time("14:00", 0, i64::MAX), None);
        let t = parse_jump_time("2026-11-25 14:00:05", 0, 0);
        assert_eq!(t, Some(1_795_615_205_000));
        assert_eq!(
            parse_jump_time("9999-12-31 23:59:59", 0, 0),
            Some(253_402_300_799_000)
        );
    }

    #[test]
    fn typed_times_read_in_the_given_offset() {
        // 2026-11-22 00:00:00 UTC = 1795305600 s
        let day = 1_795_305_600_000;
        assert_eq!(days_from_civil(2026, 11, 22) * 86_400_000, day);
        assert_eq!(
            parse_jump_time("12:30", day + 5_000, 0),
            Some(day + 45_000_000)
        );
        assert_eq!(
            parse_jump_time("2026-11-22 00:00:07", 0, 0),
            Some(day + 7_000)
        );
        // UTC+1: 00:30 local on the 22nd is 23:30 UTC on the 21st.
        assert_eq!(
            parse_jump_time("00:30", day + 3_600_000, 3600),
            Some(day - 1_800_000)
        );
        for bad in [
            "",
            "25:00",
            "12",
            "12:60",
            "a:b",
            "12:00:00:00",
            "2026-13-01 00:00",
        ] {
            assert_eq!(parse_jump_time(bad, day, 0), None, "{bad}");
        }
    }
}

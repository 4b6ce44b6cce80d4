//! The stretch of a recording an export or a summary covers: `--from` and
//! `--to` as replay's typed jump reads a time, offsets from either end, or
//! two markers.

use crate::app::session::parse_jump_time;
use crate::format;

const DAY_MS: i64 = 86_400_000;

/// Both ends included: a row is in when its sample's time (the end of its
/// interval) is within them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub from_ms: i64,
    pub to_ms: i64,
    /// The markers that bound it, when they do.
    pub markers: Option<(String, String)>,
}

impl Window {
    pub const ALL: Window = Window {
        from_ms: i64::MIN,
        to_ms: i64::MAX,
        markers: None,
    };

    pub fn contains(&self, t: i64) -> bool {
        (self.from_ms..=self.to_ms).contains(&t)
    }
}

/// What `--from` and `--to` accept, for messages and `--help`.
pub const TIME_FORMS: &str = "HH:MM[:SS] or YYYY-MM-DD HH:MM[:SS] (local time), +SPAN after the start or -SPAN before the end (e.g. +90s, -5m, +1h30m)";

/// Why a window cannot be read from what the user gave: each says what was
/// given and what would do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    #[error("{text:?} is not a time: {TIME_FORMS}")]
    NotATime { text: String },
    #[error(
        "--from ({}) is after --to ({})",
        format::local_datetime(*.from_ms),
        format::local_datetime(*.to_ms)
    )]
    FromAfterTo { from_ms: i64, to_ms: i64 },
    /// No marker has the label; `markers` are those the recording has.
    #[error("no marker {label:?}{}", listing(.markers))]
    NoMarker {
        label: String,
        markers: Vec<(i64, String)>,
    },
    /// No marker labelled `to` at or after the first labelled `from`.
    #[error("no marker {to:?} after {from:?}{}", listing(.markers))]
    NoMarkerAfter {
        from: String,
        to: String,
        markers: Vec<(i64, String)>,
    },
    #[error("--between takes two marker labels")]
    BetweenTakesTwo,
}

/// A recording's markers, after what a label matched none of.
fn listing(markers: &[(i64, String)]) -> String {
    if markers.is_empty() {
        return ": the recording has no markers".into();
    }
    let list: Vec<String> = markers
        .iter()
        .map(|(t, l)| format!("{} {l:?}", format::local_datetime(*t)))
        .collect();
    format!("; its markers: {}", list.join(", "))
}

/// One bound of a recording that runs from `start_ms` to `end_ms`. A time
/// of day is on the recording's first (local) day, or on the next when the
/// recording runs past midnight and that time falls within it.
pub fn bound(text: &str, start_ms: i64, end_ms: i64) -> Result<i64, WindowError> {
    let text = text.trim();
    let bad = || WindowError::NotATime {
        text: text.to_string(),
    };
    let span = |s: &str| {
        crate::core::duration::parse_duration(s)
            .ok()
            .and_then(|s| i64::try_from(s).ok()?.checked_mul(1000))
            .ok_or_else(bad)
    };
    if let Some(s) = text.strip_prefix('+') {
        return start_ms.checked_add(span(s)?).ok_or_else(bad);
    }
    if let Some(s) = text.strip_prefix('-') {
        return end_ms.checked_sub(span(s)?).ok_or_else(bad);
    }
    let t = parse_jump_time(text, start_ms, format::utc_offset_s(start_ms)).ok_or_else(bad)?;
    let bare = !text.contains(' ');
    if bare && t < start_ms && t + DAY_MS <= end_ms {
        return Ok(t + DAY_MS);
    }
    Ok(t)
}

/// The window of `--from` and `--to`; either may be left out. Each names
/// the whole second it prints as: a row's time is a sample's, a few ms
/// after its second (15:20:57.400 prints as 15:20:57), so `--to 15:20:57`
/// ending at 15:20:57.000 left out the row stamped 15:20:57.
pub fn between_times(
    from: Option<&str>,
    to: Option<&str>,
    start_ms: i64,
    end_ms: i64,
) -> Result<Window, WindowError> {
    let second = |t: &str| bound(t, start_ms, end_ms).map(format::printed_second);
    let from_ms = from.map_or(Ok(i64::MIN), |f| second(f).map(|s| s.0))?;
    let to_ms = to.map_or(Ok(i64::MAX), |t| second(t).map(|s| s.1))?;
    if from_ms > to_ms {
        return Err(WindowError::FromAfterTo { from_ms, to_ms });
    }
    Ok(Window {
        from_ms,
        to_ms,
        markers: None,
    })
}

/// The window from the first marker labelled `a` to the first marker
/// labelled `b` after it (labels match exactly).
pub fn between_markers(a: &str, b: &str, markers: &[(i64, String)]) -> Result<Window, WindowError> {
    let first = markers
        .iter()
        .position(|(_, l)| l == a)
        .ok_or_else(|| WindowError::NoMarker {
            label: a.to_string(),
            markers: markers.to_vec(),
        })?;
    let from_ms = markers[first].0;
    let to_ms = markers
        .iter()
        .enumerate()
        .find(|(i, (t, l))| *i != first && *t >= from_ms && l == b)
        .map(|(_, (t, _))| *t)
        .ok_or_else(|| WindowError::NoMarkerAfter {
            from: a.to_string(),
            to: b.to_string(),
            markers: markers.to_vec(),
        })?;
    Ok(Window {
        from_ms,
        to_ms,
        markers: Some((a.to_string(), b.to_string())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: i64 = 1_795_000_000_000;

    #[test]
    fn offsets_count_from_either_end() {
        let end = START + 3_600_000;
        assert_eq!(bound("+90s", START, end), Ok(START + 90_000));
        assert_eq!(bound("-5m", START, end), Ok(end - 300_000));
        assert_eq!(bound("+1h30m", START, end), Ok(START + 5_400_000));
        for bad in ["+", "-x", "+1.5m", "12", "", "tomorrow"] {
            let e = bound(bad, START, end).unwrap_err().to_string();
            assert!(e.contains("is not a time"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_time_of_day_is_on_the_recordings_day_or_the_next_past_midnight() {
        let off = format::utc_offset_s(START);
        // the local midnight that starts START's day
        let midnight = (START + off * 1000).div_euclid(DAY_MS) * DAY_MS - off * 1000;
        let start = midnight + 23 * 3_600_000; // 23:00
        let end = start + 2 * 3_600_000; // 01:00 the next day
        assert_eq!(bound("23:30", start, end), Ok(start + 1_800_000));
        assert_eq!(bound("00:30", start, end), Ok(start + 5_400_000));
        // a time before a recording that does not reach it the next day
        assert_eq!(bound("22:00", start, start + 60_000), Ok(start - 3_600_000));
    }

    #[test]
    fn a_typed_second_holds_the_rows_printed_as_it() {
        // Samples taken 400 ms after their second, as a recorder's are
        // a little after their boundary.
        let start = START + 400;
        let end = start + 16_000;
        let row = start + 11_000;
        let hms = format::local_time(row);
        for (from, to) in [(hms.as_str(), hms.as_str()), ("+11s", "+11s")] {
            let w = between_times(Some(from), Some(to), start, end).unwrap();
            assert!(w.contains(row), "{from} to {to}: {w:?}");
            assert!(!w.contains(row - 1000) && !w.contains(row + 1000), "{w:?}");
        }
        // --to alone: the row of its second is the last one in
        let w = between_times(None, Some(&hms), start, end).unwrap();
        assert!(w.contains(row) && !w.contains(row + 600), "{w:?}");
    }

    #[test]
    fn from_after_to_is_refused() {
        let e = between_times(Some("+2m"), Some("+1m"), START, START + 600_000)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is after --to"), "{e}");
        assert_eq!(between_times(None, None, START, START), Ok(Window::ALL));
    }

    #[test]
    fn markers_bound_a_window_by_their_exact_labels() {
        let m = vec![
            (START + 1_000, "ramp".to_string()),
            (START + 5_000, "steady".to_string()),
            (START + 9_000, "ramp".to_string()),
            (START + 12_000, "end".to_string()),
        ];
        let w = between_markers("steady", "end", &m).unwrap();
        assert_eq!((w.from_ms, w.to_ms), (START + 5_000, START + 12_000));
        // the same label twice: from the first to the next
        let w = between_markers("ramp", "ramp", &m).unwrap();
        assert_eq!((w.from_ms, w.to_ms), (START + 1_000, START + 9_000));
        let e = between_markers("Ramp", "end", &m).unwrap_err().to_string();
        assert!(e.starts_with("no marker \"Ramp\"; its markers: "), "{e}");
        assert!(e.contains("\"steady\""), "{e}");
        let e = between_markers("end", "steady", &m)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("no marker \"steady\" after \"end\""), "{e}");
        let e = between_markers("a", "b", &[]).unwrap_err().to_string();
        assert_eq!(e, "no marker \"a\": the recording has no markers");
    }
}

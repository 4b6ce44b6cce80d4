//! Durations as the command line and the config file take them.

/// Whole seconds from "90s", "30m", "1h", "2h30m", "1d 12h" or "600".
/// Units go from days down to seconds, each at most once, so "30m2h" or
/// "1h1h" is taken for the typo it probably is.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty duration (expected e.g. \"90s\", \"30m\" or \"2h30m\")".to_owned());
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().map_err(|_| format!("duration {s:?} is too long"));
    }
    let mut total: u64 = 0;
    let mut last_rank = None;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let Some(unit) = rest[digits..].chars().next() else {
            return Err(format!(
                "duration {s:?}: {rest:?} needs a unit (s, m, h or d)"
            ));
        };
        if digits == 0 {
            return Err(format!("duration {s:?}: expected a number before {unit:?}"));
        }
        let (multiplier, rank) = match unit {
            'd' => (86_400, 0),
            'h' => (3_600, 1),
            'm' => (60, 2),
            's' => (1, 3),
            '.' | ',' => return Err(format!("duration {s:?}: use whole numbers, e.g. \"1h30m\"")),
            other => {
                return Err(format!(
                    "duration {s:?}: unknown unit {other:?} (use s, m, h or d)"
                ));
            }
        };
        if last_rank.is_some_and(|last| rank <= last) {
            return Err(format!(
                "duration {s:?}: units must go from days down to seconds, each at most once"
            ));
        }
        last_rank = Some(rank);
        total = rest[..digits]
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(multiplier))
            .and_then(|n| total.checked_add(n))
            .ok_or_else(|| format!("duration {s:?} is too long"))?;
        rest = rest[digits + unit.len_utf8()..].trim_start();
    }
    Ok(total)
}

/// The sampling interval, in whole milliseconds from 0.1 s to 1 h: built
/// once from `--interval` or the config (or a recording's header), and
/// read in the unit each use wants, so that every staleness edge,
/// boundary and gap turns it into the same milliseconds.
///
/// Config files and recordings hold it as seconds, a number, as they did
/// before it had a type of its own.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(into = "f64", try_from = "f64")]
pub struct Interval(i64);

impl From<Interval> for f64 {
    fn from(i: Interval) -> f64 {
        i.secs()
    }
}

impl TryFrom<f64> for Interval {
    type Error = String;
    fn try_from(secs: f64) -> Result<Interval, String> {
        Interval::from_secs(secs).ok_or_else(|| format!("{secs} s is outside 0.1 to 3600 s"))
    }
}

impl Interval {
    pub const ONE_SECOND: Interval = Interval(1000);
    const MIN_MS: i64 = 100;
    const MAX_MS: i64 = 3_600_000;

    /// A number of seconds, as `--interval` and the config's `interval`
    /// take it: 0.1 to 3600, to the millisecond.
    pub fn parse(s: &str) -> Result<Interval, String> {
        let v: f64 = s
            .parse()
            .map_err(|_| format!("{s:?} is not a number of seconds"))?;
        Interval::from_secs(v).ok_or_else(|| format!("{v} s is outside 0.1 to 3600 s"))
    }

    /// `secs` to the nearest millisecond (1.001 s is 1000.9999999999999 ms
    /// as f64: truncating lost a millisecond), or `None` outside 0.1 s to
    /// 1 h.
    pub fn from_secs(secs: f64) -> Option<Interval> {
        if !(0.1..=3600.0).contains(&secs) {
            return None;
        }
        let ms = (secs * 1000.0).round() as i64;
        Some(Interval(ms.clamp(Self::MIN_MS, Self::MAX_MS)))
    }

    pub fn ms(self) -> i64 {
        self.0
    }

    pub fn secs(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    pub fn duration(self) -> std::time::Duration {
        std::time::Duration::from_millis(self.0.unsigned_abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_is_the_nearest_whole_ms_for_every_interval_the_cli_takes() {
        let ms = |s: f64| Interval::from_secs(s).map(Interval::ms);
        // 1.001 * 1000.0 is 1000.9999999999999 in f64: truncation lost a ms.
        assert_eq!(ms(1.001), Some(1001));
        assert_eq!(ms(2.002), Some(2002));
        assert_eq!(ms(0.1), Some(100));
        assert_eq!(ms(3600.0), Some(3_600_000));
        for ms in 100..=20_000_i64 {
            let i = Interval::parse(&format!("{}", ms as f64 / 1000.0)).unwrap();
            assert_eq!(i.ms(), ms);
            assert_eq!(i.duration().as_millis(), ms as u128);
        }
        assert_eq!(Interval::parse("1.5").unwrap().secs(), 1.5);
        for bad in ["0.09", "3600.5", "x", "NaN", "-1", "inf"] {
            assert!(Interval::parse(bad).is_err(), "{bad}");
        }
    }
}

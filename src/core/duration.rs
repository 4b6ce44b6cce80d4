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

/// An interval of `secs` in whole milliseconds, at least 1: the one
/// rule by which staleness edges, boundaries and gaps turn the
/// configured interval into ms. Rounded, since truncating would turn
/// 1.001 s (1000.9999999999999 ms as f64) into 1000 ms in some places
/// and 1001 ms in others.
pub fn interval_ms(secs: f64) -> i64 {
    ((secs * 1000.0).round() as i64).max(1)
}

/// A sampling interval in seconds, as `--interval` and the config's
/// `interval` take it.
pub fn parse_interval(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("{s:?} is not a number of seconds"))?;
    if !(0.1..=3600.0).contains(&v) {
        return Err(format!("{v} s is outside 0.1 to 3600 s"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_ms_is_the_nearest_whole_ms_for_every_interval_the_cli_takes() {
        // 1.001 * 1000.0 is 1000.9999999999999 in f64: truncation lost a ms.
        assert_eq!(interval_ms(1.001), 1001);
        assert_eq!(interval_ms(2.002), 2002);
        assert_eq!(interval_ms(0.1), 100);
        assert_eq!(interval_ms(3600.0), 3_600_000);
        for ms in 100..=20_000_i64 {
            let secs = parse_interval(&format!("{}", ms as f64 / 1000.0)).unwrap();
            assert_eq!(interval_ms(secs), ms, "{secs} s");
        }
    }
}

//! `/proc/uptime`: the clock that every local rate is computed over.

use super::error::ParseError;

/// Seconds since boot, in centiseconds, as sysstat reads it (`%lu.%lu`).
///
/// sysstat takes the interval between two reports from this clock rather
/// than from the wall clock, so a late or paused reader does not distort
/// the rates. strata does the same to print the same figures.
pub fn parse_uptime_cs(text: &str, source_name: &str) -> Result<u64, ParseError> {
    let line = text.lines().next().unwrap_or("");
    let bad = || ParseError::new(source_name, 1, line, "seconds since boot such as 350735.47");
    let first = line.split_whitespace().next().ok_or_else(bad)?;
    let (secs, frac) = match first.split_once('.') {
        Some((s, f)) => (s, f),
        None => (first, ""),
    };
    let secs: u64 = secs.parse().map_err(|_| bad())?;
    if !frac.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    // The kernel always prints two decimals; read any other width as a
    // decimal fraction rather than as a count of centiseconds.
    let cs = match frac.len() {
        0 => 0,
        1 => frac.parse::<u64>().map_err(|_| bad())? * 10,
        _ => frac[..2].parse::<u64>().map_err(|_| bad())?,
    };
    secs.checked_mul(100)
        .and_then(|v| v.checked_add(cs))
        .ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_centiseconds() {
        assert_eq!(
            parse_uptime_cs("350735.47 234388.90\n", "u"),
            Ok(35_073_547)
        );
        assert_eq!(parse_uptime_cs("12.5 1.0", "u"), Ok(1250));
        assert_eq!(parse_uptime_cs("12", "u"), Ok(1200));
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["", "abc", "-1.00 2", "1.x 2", "99999999999999999999.00"] {
            let e = parse_uptime_cs(bad, "/proc/uptime").unwrap_err();
            assert_eq!(e.source_name, "/proc/uptime");
        }
    }
}

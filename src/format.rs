//! Figures as text. Unknown, NaN and infinite values print as "–", never
//! as a number.

/// What an unknown figure looks like everywhere.
pub const UNKNOWN: &str = "–";

/// `v` in at most `width` characters: fewer decimals first, then a k/M/G
/// suffix, so a column never overflows and a figure never lies.
pub fn fit(v: Option<f64>, width: usize, decimals: usize) -> String {
    let Some(x) = v.filter(|x| x.is_finite()) else {
        return UNKNOWN.to_string();
    };
    // A sum of nothing is -0.0 in Rust, which prints as "-0.0".
    let x = x + 0.0;
    for d in (0..=decimals).rev() {
        let s = format!("{x:.d$}");
        if s.len() <= width {
            return s;
        }
    }
    for (div, suffix) in [(1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"), (1e15, "P")] {
        let y = x / div;
        // "123.5M" reads faster than "123457k"
        if y.abs() >= 1000.0 && suffix != "P" {
            continue;
        }
        for d in (0..=1).rev() {
            let s = format!("{y:.d$}{suffix}");
            if s.len() <= width {
                return s;
            }
        }
    }
    "#".repeat(width.max(1))
}

/// A figure as strata prints it wherever it has its room (the tables widen
/// for it, the charts' titles move what does not fit): two decimals, as
/// iostat and `strata batch` print it, whatever its size; "–" when
/// unknown. One figure has one text on the screen and in batch.
pub fn figure(v: Option<f64>) -> String {
    fit(v, usize::MAX, 2)
}

/// A byte count in binary units: "512 B", "1.5 KiB", "12.3 MiB".
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// An age as uptime prints it: "3d 04:05", "04:05:06" under a day.
pub fn duration_s(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}d {h:02}:{m:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    }
}

/// The first and last millisecond of the second `ms` prints as (every
/// printer here drops the milliseconds): a time typed to the second names
/// all of it, since a row stamped 15:20:57 may be a sample taken at
/// 15:20:57.400.
pub fn printed_second(ms: i64) -> (i64, i64) {
    let first = ms.div_euclid(1000).saturating_mul(1000);
    (first, first.saturating_add(999))
}

/// Local date and time of a Unix time in ms: "2026-11-22 07:45:12".
pub fn local_datetime(ms: i64) -> String {
    let (tm, _) = local_tm(ms);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

/// Local time of day: "07:45:12".
pub fn local_time(ms: i64) -> String {
    let (tm, _) = local_tm(ms);
    format!("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec)
}

/// ISO 8601 with the UTC offset, as `S_TIME_FORMAT=ISO iostat -t` prints.
pub fn iso_datetime(ms: i64) -> String {
    let (tm, off) = local_tm(ms);
    let sign = if off < 0 { '-' } else { '+' };
    let off = off.abs();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{:02}{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        sign,
        off / 3600,
        off % 3600 / 60
    )
}

/// The local time's offset from UTC at a Unix time in ms, in seconds.
pub fn utc_offset_s(ms: i64) -> i64 {
    local_tm(ms).1
}

/// Broken-down local time and its offset from UTC in seconds (UTC where
/// libc cannot convert the time).
pub fn local_tm(ms: i64) -> (libc::tm, i64) {
    let t: libc::time_t = ms.div_euclid(1000) as libc::time_t;
    match crate::core::sys::localtime(t) {
        Some(tm) => (tm, tm.tm_gmtoff),
        None => (crate::core::sys::gmtime(t), 0),
    }
}

/// "1 file", "2 files": a count with its noun.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_is_a_dash() {
        assert_eq!(fit(None, 8, 2), UNKNOWN);
        assert_eq!(fit(Some(f64::NAN), 8, 2), UNKNOWN);
        assert_eq!(fit(Some(f64::INFINITY), 8, 2), UNKNOWN);
    }

    #[test]
    fn negative_zero_prints_as_zero() {
        let nothing: f64 = std::iter::empty::<f64>().sum();
        assert_eq!(fit(Some(nothing), 8, 1), "0.0");
    }

    #[test]
    fn fit_keeps_columns() {
        assert_eq!(fit(Some(12.345), 8, 2), "12.35");
        assert_eq!(fit(Some(123456.78), 8, 2), "123456.8");
        assert_eq!(fit(Some(123456789.0), 8, 2), "123.5M");
        assert_eq!(fit(Some(1.2e13), 6, 2), "12.0T");
        for x in [0.0, 1.0, 9.99e20, 1e300] {
            assert!(fit(Some(x), 6, 2).chars().count() <= 6, "{x}");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        // a 256 GiB disk as lsblk says it, not "275 GB"
        assert_eq!(bytes(274_877_906_944), "256.0 GiB");
    }
}

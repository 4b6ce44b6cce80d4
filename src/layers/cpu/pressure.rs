//! `/proc/pressure/{cpu,io,memory}` (kernel/sched/psi.c `psi_show`), the
//! pressure stall information of 4.20 and later:
//!
//! ```text
//! some avg10=0.31 avg60=2.45 avg300=2.65 total=113366303
//! full avg10=0.00 avg60=1.77 avg300=2.06 total=49357527
//! ```
//!
//! `some` is the share of time at least one non-idle task was stalled on
//! the resource, `full` the share all of them were. The averages are the
//! kernel's own, with two decimals; `total` is the stalled time in µs
//! since boot, from which strata takes the share over its own interval,
//! as sar -q does. The cpu file has a `full` line since 5.13, all zero
//! at the system level; before that it has `some` only.

use crate::core::error::ParseError;

/// One line of a pressure file. The averages are in hundredths of a
/// percent, as the kernel prints them with two decimals, so that strata
/// prints the very figure the file holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PsiLine {
    pub avg10: u32,
    pub avg60: u32,
    pub avg300: u32,
    /// Stalled time since boot in µs.
    pub total_us: u64,
}

/// One reading of a pressure file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Psi {
    pub some: PsiLine,
    /// Absent from the cpu file before 5.13.
    pub full: Option<PsiLine>,
}

const LINE: &str =
    "\"some\" or \"full\" with avg10=, avg60=, avg300= (two decimals) and total= (µs)";

/// A figure as the kernel prints it with two decimals (`%lu.%02lu`), in
/// hundredths.
pub(super) fn hundredths(v: &str) -> Option<u64> {
    let (int, frac) = v.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || frac.len() != 2 || !digits(frac) {
        return None;
    }
    int.parse::<u64>()
        .ok()?
        .checked_mul(100)?
        .checked_add(frac.parse().ok()?)
}

/// A share of time, at most 100 %: more is a damaged line.
fn share(v: &str) -> Option<u32> {
    hundredths(v)
        .filter(|&v| v <= 10_000)
        .and_then(|v| u32::try_from(v).ok())
}

fn parse_line(rest: &str) -> Option<PsiLine> {
    let mut line = PsiLine::default();
    let mut seen = 0u8;
    for word in rest.split_ascii_whitespace() {
        let (key, value) = word.split_once('=')?;
        let bit = match key {
            "avg10" => {
                line.avg10 = share(value)?;
                1
            }
            "avg60" => {
                line.avg60 = share(value)?;
                2
            }
            "avg300" => {
                line.avg300 = share(value)?;
                4
            }
            "total" => {
                line.total_us = value.parse().ok()?;
                8
            }
            // A key a later kernel adds is no reason to lose the file.
            _ => 0,
        };
        seen |= bit;
    }
    (seen == 15).then_some(line)
}

/// A pressure file; its `some` line is required, `full` is not.
pub fn parse_psi(text: &str, source_name: &str) -> Result<Psi, ParseError> {
    let (mut some, mut full) = (None, None);
    for (i, raw) in text.lines().enumerate() {
        let Some((kind, rest)) = raw.trim_start().split_once(' ') else {
            if raw.trim().is_empty() {
                continue;
            }
            return Err(ParseError::new(source_name, i + 1, raw, LINE));
        };
        let slot = match kind {
            "some" => &mut some,
            "full" => &mut full,
            _ => return Err(ParseError::new(source_name, i + 1, raw, LINE)),
        };
        let line =
            parse_line(rest).ok_or_else(|| ParseError::new(source_name, i + 1, raw, LINE))?;
        if slot.replace(line).is_some() {
            return Err(ParseError::new(
                source_name,
                i + 1,
                raw,
                "each of some and full once",
            ));
        }
    }
    let some = some.ok_or_else(|| ParseError::new(source_name, 1, text, "a \"some\" line"))?;
    Ok(Psi { some, full })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_some_and_full() {
        let p = parse_psi(
            "some avg10=0.31 avg60=2.45 avg300=2.65 total=113366303\n\
             full avg10=0.00 avg60=1.77 avg300=100.00 total=49357527\n",
            "/proc/pressure/io",
        )
        .unwrap();
        assert_eq!(
            p.some,
            PsiLine {
                avg10: 31,
                avg60: 245,
                avg300: 265,
                total_us: 113_366_303
            }
        );
        assert_eq!(
            p.full.map(|f| (f.avg300, f.total_us)),
            Some((10_000, 49_357_527))
        );
    }

    /// 4.20 to 5.12: the cpu file has no full line.
    #[test]
    fn the_cpu_file_of_older_kernels_has_some_only() {
        let p = parse_psi("some avg10=12.50 avg60=3.00 avg300=0.75 total=42\n", "c").unwrap();
        assert_eq!(p.full, None);
        assert_eq!(p.some.avg10, 1250);
    }

    #[test]
    fn damaged_files_are_named() {
        for text in [
            "",
            "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
            "some avg10=0.0 avg60=0.00 avg300=0.00 total=1\n",
            "some avg10=0.00 avg60=0.00 avg300=0.00\n",
            "some avg10=100.01 avg60=0.00 avg300=0.00 total=1\n",
            "some avg10=-1.00 avg60=0.00 avg300=0.00 total=1\n",
            "some avg10=1.00 avg60=0.00 avg300=0.00 total=x\n",
            "some avg10=1.00 avg60=0.00 avg300=0.00 total=1\nsome avg10=1.00 avg60=0.00 avg300=0.00 total=1\n",
            "part avg10=1.00\n",
            "some\n",
        ] {
            let e = parse_psi(text, "/proc/pressure/cpu").unwrap_err();
            assert_eq!(e.source_name, "/proc/pressure/cpu", "{text:?}");
        }
    }

    #[test]
    fn keys_a_later_kernel_adds_are_skipped() {
        let p = parse_psi(
            "some avg10=1.00 avg60=0.00 avg300=0.00 total=7 avg1=3.00\n",
            "c",
        )
        .unwrap();
        assert_eq!(p.some.total_us, 7);
    }
}

//! `/proc/loadavg` (fs/proc/loadavg.c): `0.20 0.18 0.12 1/80 11206`, the
//! load averages over 1, 5 and 15 minutes with two decimals, the tasks
//! runnable and the tasks that exist, and the last PID.

use super::pressure::hundredths;
use crate::core::error::ParseError;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoadAvg {
    /// In hundredths, as printed, so that strata shows the file's figure.
    pub avg1: u64,
    pub avg5: u64,
    pub avg15: u64,
    /// Tasks (threads) that exist: sar -q's plist-sz.
    pub tasks: u64,
}

const EXPECTED: &str =
    "three load averages, runnable/total tasks and a PID, such as \"0.20 0.18 0.12 1/80 11206\"";

pub fn parse_loadavg(text: &str, source_name: &str) -> Result<LoadAvg, ParseError> {
    let line = text.lines().next().unwrap_or("");
    let bad = || ParseError::new(source_name, 1, line, EXPECTED);
    let w: Vec<&str> = line.split_ascii_whitespace().collect();
    let [a1, a5, a15, tasks, _pid] = w.as_slice() else {
        return Err(bad());
    };
    let (_, total) = tasks.split_once('/').ok_or_else(bad)?;
    Ok(LoadAvg {
        avg1: hundredths(a1).ok_or_else(bad)?,
        avg5: hundredths(a5).ok_or_else(bad)?,
        avg15: hundredths(a15).ok_or_else(bad)?,
        tasks: total.parse().map_err(|_| bad())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_averages_and_tasks() {
        let l = parse_loadavg("4.80 2.23 11.50 9/135 7397\n", "/proc/loadavg").unwrap();
        assert_eq!(
            l,
            LoadAvg {
                avg1: 480,
                avg5: 223,
                avg15: 1150,
                tasks: 135
            }
        );
    }

    #[test]
    fn rejects_damage() {
        for t in [
            "",
            "4.80 2.23 1.50 9/135",
            "4.8 2.23 1.50 9/135 1",
            "a b c d e",
            "1.00 1.00 1.00 9 1",
        ] {
            assert_eq!(
                parse_loadavg(t, "/proc/loadavg").unwrap_err().line_no,
                1,
                "{t:?}"
            );
        }
    }
}

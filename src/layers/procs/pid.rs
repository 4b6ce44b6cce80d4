//! One process's files: `/proc/PID/stat` (fs/proc/array.c, `do_task_stat`),
//! `/proc/PID/io` (`proc_pid_io_accounting`) and `/proc/PID/cmdline`.
//! Pure: text in, counters or a `ParseError` naming the line out.
//!
//! stat's fields as proc(5) numbers them: 2 `(comm)`, which may hold
//! blanks and parentheses (so it ends at the *last* `)`), 3 state, 14
//! utime, 15 stime, 22 starttime (clock ticks after boot: with the PID it
//! names one process, a PID reused is a new starttime), 42
//! delayacct_blkio_ticks (since 2.6.18; the ticks spent waiting for block
//! I/O, kept only while the kernel accounts delays: `nodelayacct`, or
//! `kernel.task_delayacct` = 0 since 5.14, leaves it 0).

use crate::core::error::ParseError;

/// What strata reads of `/proc/PID/stat`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PidStat {
    /// The kernel's command name, at most 15 bytes (`TASK_COMM_LEN`).
    pub comm: String,
    pub state: char,
    /// utime + stime, clock ticks.
    pub cpu_ticks: u64,
    /// Clock ticks after boot at which the process started.
    pub start: u64,
    /// delayacct_blkio_ticks; `None` on a kernel before 2.6.18.
    pub blkio_ticks: Option<u64>,
}

/// The counters of `/proc/PID/io`, bytes and calls since the process
/// started (its dead threads' included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct IoCounters {
    /// Bytes asked of read(2) and its kin, whether from the page cache
    /// or a device.
    pub rchar: u64,
    pub wchar: u64,
    /// read and write system calls.
    pub syscr: u64,
    pub syscw: u64,
    /// Bytes the process caused to be fetched from storage.
    pub read_bytes: u64,
    /// Bytes the process caused to be sent to storage (charged when the
    /// pages are dirtied, not when writeback runs).
    pub write_bytes: u64,
    /// Dirty bytes the process truncated before they were written.
    pub cancelled_write_bytes: u64,
}

impl IoCounters {
    /// Each counter's increase from `prev`; `None` when any went back
    /// (a counter of one process never does: the file is not that
    /// process's, or was damaged).
    pub fn since(&self, prev: &IoCounters) -> Option<IoCounters> {
        Some(IoCounters {
            rchar: self.rchar.checked_sub(prev.rchar)?,
            wchar: self.wchar.checked_sub(prev.wchar)?,
            syscr: self.syscr.checked_sub(prev.syscr)?,
            syscw: self.syscw.checked_sub(prev.syscw)?,
            read_bytes: self.read_bytes.checked_sub(prev.read_bytes)?,
            write_bytes: self.write_bytes.checked_sub(prev.write_bytes)?,
            cancelled_write_bytes: self
                .cancelled_write_bytes
                .checked_sub(prev.cancelled_write_bytes)?,
        })
    }

    pub fn is_zero(&self) -> bool {
        *self == IoCounters::default()
    }

    /// Adds `other`, saturating (a sum of increases).
    pub fn add(&mut self, other: &IoCounters) {
        self.rchar = self.rchar.saturating_add(other.rchar);
        self.wchar = self.wchar.saturating_add(other.wchar);
        self.syscr = self.syscr.saturating_add(other.syscr);
        self.syscw = self.syscw.saturating_add(other.syscw);
        self.read_bytes = self.read_bytes.saturating_add(other.read_bytes);
        self.write_bytes = self.write_bytes.saturating_add(other.write_bytes);
        self.cancelled_write_bytes = self
            .cancelled_write_bytes
            .saturating_add(other.cancelled_write_bytes);
    }
}

const STAT_EXPECTED: &str =
    "PID (comm) state and at least 22 fields, as proc(5) gives /proc/PID/stat";

pub fn parse_stat(text: &str, source_name: &str) -> Result<PidStat, ParseError> {
    // The whole file: a comm may hold a newline (anyone may write one to
    // /proc/self/comm), which the kernel prints as it is.
    let line = text.strip_suffix('\n').unwrap_or(text);
    let bad = || ParseError::new(source_name, 1, line, STAT_EXPECTED);
    let open = line.find('(').ok_or_else(bad)?;
    let close = line.rfind(')').ok_or_else(bad)?;
    if close < open {
        return Err(bad());
    }
    let comm = clean_comm(&line[open + 1..close]);
    // Fields 3 (state) to 42 in one pass, no list of them made: this runs
    // for every process every interval. `nth(k)` skips k fields.
    let mut fields = line[close + 1..].split_ascii_whitespace();
    let num = |v: Option<&str>| -> Result<u64, ParseError> {
        v.and_then(|v| v.parse().ok()).ok_or_else(bad)
    };
    let state = fields
        .next()
        .and_then(|s| s.chars().next())
        .ok_or_else(bad)?;
    let utime = num(fields.nth(10))?; // field 14
    let cpu_ticks = utime.saturating_add(num(fields.next())?); // 15, stime
    let start = num(fields.nth(6))?; // 22
    let blkio_ticks = match fields.nth(19) {
        // 42, delayacct_blkio_ticks
        None => None,
        Some(v) => Some(v.parse().map_err(|_| bad())?),
    };
    Ok(PidStat {
        comm,
        state,
        cpu_ticks,
        start,
        blkio_ticks,
    })
}

pub fn parse_io(text: &str, source_name: &str) -> Result<IoCounters, ParseError> {
    let mut io = IoCounters::default();
    let mut seen = 0u8;
    for (i, line) in text.lines().enumerate() {
        let Some((key, value)) = line.split_once(':') else {
            return Err(ParseError::new(source_name, i + 1, line, "'name: value'"));
        };
        let slot = match key {
            "rchar" => (&mut io.rchar, 0),
            "wchar" => (&mut io.wchar, 1),
            "syscr" => (&mut io.syscr, 2),
            "syscw" => (&mut io.syscw, 3),
            "read_bytes" => (&mut io.read_bytes, 4),
            "write_bytes" => (&mut io.write_bytes, 5),
            "cancelled_write_bytes" => (&mut io.cancelled_write_bytes, 6),
            // A later kernel's counter: not one strata shows.
            _ => continue,
        };
        *slot.0 = value
            .trim()
            .parse()
            .map_err(|_| ParseError::new(source_name, i + 1, line, "a count of bytes or calls"))?;
        seen |= 1 << slot.1;
    }
    if seen != 0x7f {
        return Err(ParseError::new(
            source_name,
            text.lines().count().max(1),
            text.lines().last().unwrap_or(""),
            "rchar, wchar, syscr, syscw, read_bytes, write_bytes and cancelled_write_bytes",
        ));
    }
    Ok(io)
}

/// The most of a command line strata keeps: enough for Oracle's
/// `oracleSID (DESCRIPTION=(LOCAL=YES)(ADDRESS=(PROTOCOL=beq)))` and a
/// program's first arguments.
pub const CMDLINE_MAX: usize = 256;

/// `/proc/PID/cmdline` (the arguments, each ended by a NUL) as text: its
/// first argument (up to the first NUL or other control character), and
/// the whole line with every control character a blank (a process names
/// itself: its name is outside input and must not move the terminal's
/// cursor), trailing blanks cut, each at most [`CMDLINE_MAX`] bytes.
/// Empty for a kernel thread or a zombie. A node's awk makes the same of
/// the same bytes.
pub fn parse_cmdline(bytes: &[u8]) -> (String, String) {
    let cut = |b: &[u8]| String::from_utf8_lossy(&b[..b.len().min(CMDLINE_MAX)]).into_owned();
    let first = bytes
        .iter()
        .position(|b| b.is_ascii_control())
        .unwrap_or(bytes.len());
    let line: Vec<u8> = bytes
        .iter()
        .map(|b| if b.is_ascii_control() { b' ' } else { *b })
        .collect();
    let end = line.iter().rposition(|b| *b != b' ').map_or(0, |i| i + 1);
    (cut(&bytes[..first]), cut(&line[..end]))
}

/// A command name as strata keeps it: control characters made `?`.
pub fn clean_comm(comm: &str) -> String {
    comm.chars()
        .map(|c| if c.is_ascii_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stat line whose field n (proc(5)'s numbering, from 3) is n,
    /// but for those set here.
    fn stat_line(comm: &str, fields: usize) -> String {
        let mut v: Vec<String> = (3..=fields).map(|n| n.to_string()).collect();
        v[0] = "S".into();
        v[14 - 3] = "150".into();
        v[15 - 3] = "73".into();
        v[22 - 3] = "90210".into();
        if fields >= 42 {
            v[42 - 3] = "31".into();
        }
        format!("4242 ({comm}) {}\n", v.join(" "))
    }

    const STAT_FIELDS: usize = 52;

    #[test]
    fn reads_stat_fields_by_their_numbers() {
        let s = parse_stat(&stat_line("ora_dbw0_PROD1", STAT_FIELDS), "/proc/4242/stat").unwrap();
        assert_eq!(s.comm, "ora_dbw0_PROD1");
        assert_eq!(s.state, 'S');
        assert_eq!(s.cpu_ticks, 223);
        assert_eq!(s.start, 90210);
        assert_eq!(s.blkio_ticks, Some(31));
    }

    #[test]
    fn a_comm_with_blanks_and_parentheses_ends_at_the_last_one() {
        let line = stat_line("a) b (c)", STAT_FIELDS);
        let s = parse_stat(&line, "stat").unwrap();
        assert_eq!(s.comm, "a) b (c)");
        assert_eq!(s.start, 90210);
    }

    #[test]
    fn a_comm_with_a_newline_is_read_whole() {
        let s = parse_stat(&stat_line("x\ny", STAT_FIELDS), "stat").unwrap();
        assert_eq!(s.comm, "x?y");
        assert_eq!(s.start, 90210);
    }

    #[test]
    fn an_old_kernel_without_blkio_ticks_reads_none() {
        let s = parse_stat(&stat_line("x", 41), "stat").unwrap();
        assert_eq!(s.blkio_ticks, None);
    }

    #[test]
    fn a_short_or_broken_stat_is_an_error() {
        assert!(parse_stat("4242 (x) S 1 2 3", "stat").is_err());
        assert!(parse_stat("", "stat").is_err());
        assert!(parse_stat(") 4242 (x S", "stat").is_err());
        let bad = stat_line("x", STAT_FIELDS).replace(" 90210 ", " nine ");
        assert!(parse_stat(&bad, "stat").is_err());
    }

    #[test]
    fn reads_io() {
        let text = "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 5\nwrite_bytes: 6\ncancelled_write_bytes: 7\n";
        let io = parse_io(text, "io").unwrap();
        assert_eq!(io.rchar, 1);
        assert_eq!(io.cancelled_write_bytes, 7);
        assert!(parse_io("rchar: 1\n", "io").is_err());
        assert!(parse_io(&text.replace("5", "x"), "io").is_err());
    }

    #[test]
    fn since_is_none_when_a_counter_falls() {
        let a = IoCounters {
            read_bytes: 10,
            ..Default::default()
        };
        let b = IoCounters {
            read_bytes: 4,
            ..Default::default()
        };
        assert_eq!(a.since(&b).map(|d| d.read_bytes), Some(6));
        assert_eq!(b.since(&a), None);
    }

    #[test]
    fn cmdline_keeps_the_first_argument_and_cleans_control_characters() {
        let (argv0, line) = parse_cmdline(b"oraclePROD1 (LOCAL=NO)\0");
        assert_eq!(argv0, "oraclePROD1 (LOCAL=NO)");
        assert_eq!(line, "oraclePROD1 (LOCAL=NO)");
        let (argv0, line) = parse_cmdline(b"dd\0if=/dev/zero\0of=/x\x1b[2J\0");
        assert_eq!(argv0, "dd");
        assert_eq!(line, "dd if=/dev/zero of=/x [2J");
        assert_eq!(parse_cmdline(b""), (String::new(), String::new()));
    }
}

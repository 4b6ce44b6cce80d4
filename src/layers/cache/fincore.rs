//! Residency of a node's watched files by util-linux `fincore`, run there
//! on a channel of its own (src/layers/node.rs) at a slower cadence than
//! the node's samples: mincore(2) and cachestat(2) need the file mapped or
//! open on the machine that reads them, and strata installs nothing.
//!
//! What a run prints, line by line; the data lines are fincore's own, `--raw --bytes --noheadings
//! --output RES,PAGES,SIZE,FILE`:
//!
//! ```text
//! =e 10000                  the cadence strata asked for, ms
//! =p 4096                   the node's page size (getconf PAGESIZE)
//! =x                        fincore is not on the node's PATH: nothing else follows
//! =u 2                      pattern 2 (from 0) matched no regular file
//! =n 1 3                    3 files of pattern 1 were left out (below)
//! =c 256 1200               256 of the 1200 files matched were measured
//! 4096 1 5 /u01/a\x20b.log  RES bytes, resident pages, size, FILE
//! ```
//!
//! fincore's raw output hex-escapes whatever is unsafe in FILE (`\x20`
//! for a space, `\x0a` a newline, `\x5c` a backslash, and in the C locale
//! every byte above 0x7e), so one file is one line whatever its name and
//! the output stays UTF-8.
//!
//! Since Linux 5.0 mincore(2), which fincore uses, calls every page of a
//! file resident for a caller that neither owns the file nor may write it
//! (nor is root): the run leaves such files out, and unreadable ones,
//! and counts them (`=n`), rather than send figures that are not true.
//! What fincore writes on stderr becomes the node's message
//! ("fincore: ..."), shown on its panel.

use super::error::FileError;
use super::residency::Residency;
use super::source::{CacheFile, FileResidency};
use crate::core::error::ParseError;
use crate::layers::node::FINCORE_MAX_FILES;
use std::collections::HashSet;

/// What is known of a node's fincore runs: how often, how long ago, and
/// what kept the last one from measuring every file.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct FincoreStatus {
    /// Cadence of the runs, ms; `None` until a run says it.
    pub every_ms: Option<u64>,
    /// Wall clock (ms since the epoch, local) at which the last run's
    /// frame arrived; `None` before the first.
    pub at_ms: Option<i64>,
    /// The last run found no `fincore` on the node.
    pub missing: bool,
    /// (measured, matched) when the patterns matched more files than a run
    /// measures.
    pub capped: Option<(u64, u64)>,
}

/// What needs installing on a node without fincore.
macro_rules! package {
    () => {
        "util-linux 2.30 or later has it (util-linux-extra on Debian 12)"
    };
}

/// A watched pattern's row on a node without fincore.
pub const NO_FINCORE: &str = concat!("fincore is not on the node's PATH: ", package!());

/// Why a node has no residency figures at all, in a sentence; `node`
/// names it.
pub fn missing_reason(node: &str) -> String {
    format!(concat!("fincore not found on {}: ", package!()), node)
}

/// The cadence and age of a node's runs as a panel states them: "every
/// 10 s, last 3 s ago" at `now_ms`; "–" for what is not known yet.
pub fn cadence(f: &FincoreStatus, now_ms: i64) -> String {
    let every = f.every_ms.map_or(crate::format::UNKNOWN.to_string(), |ms| {
        if ms % 1000 == 0 {
            format!("{} s", ms / 1000)
        } else {
            format!("{:.1} s", ms as f64 / 1000.0)
        }
    });
    let age = f.at_ms.map_or(crate::format::UNKNOWN.to_string(), |at| {
        format!("{} s", (now_ms - at).max(0) / 1000)
    });
    let capped = f.capped.map_or(String::new(), |(n, of)| {
        format!(", {n} of {of} matching files (at most {FINCORE_MAX_FILES} a run)")
    });
    format!("every {every}, last {age} ago{capped}")
}

/// One run, read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FincoreRun {
    pub every_ms: Option<u64>,
    pub page_size: Option<u64>,
    pub missing: bool,
    pub capped: Option<(u64, u64)>,
    /// The files fincore measured, in its order (each once), then a row
    /// for each pattern whose files were left out and for each pattern
    /// that matched nothing.
    pub files: Vec<CacheFile>,
    pub rejected: Vec<ParseError>,
}

/// `\xHH` sequences back to their bytes; anything else as it is. A name
/// that is not UTF-8 is shown with U+FFFD, as paths are elsewhere.
fn unescape(raw: &str) -> String {
    let b = raw.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            // from_str_radix would take a sign: "\x+f" is no escape
            let hex = b
                .get(i + 2..i + 4)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .and_then(|h| std::str::from_utf8(h).ok());
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A data line: RES bytes, resident pages, size, FILE.
fn data_line(line: &str) -> Option<(u64, u64, u64, String)> {
    let mut w = line.split(' ');
    let res = w.next()?.parse().ok()?;
    let pages = w.next()?.parse().ok()?;
    let size = w.next()?.parse().ok()?;
    let file = w.next().filter(|f| !f.is_empty())?;
    w.next()
        .is_none()
        .then(|| (res, pages, size, unescape(file)))
}

/// `=c MEASURED MATCHED` and `=n PATTERN COUNT`: two whole numbers.
fn two<A: std::str::FromStr, B: std::str::FromStr>(value: &str) -> Option<(A, B)> {
    let (a, b) = value.split_once(' ')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Reads what a fincore run printed. `patterns` are the ones the run
/// was given, in its order: a pattern that matched nothing is a row of
/// its own, as locally. A line that is neither a marker nor a data line
/// is rejected and the rest still read.
pub fn parse_fincore(body: &str, patterns: &[String], source: &str) -> FincoreRun {
    let mut run = FincoreRun::default();
    let mut unmatched = Vec::new();
    let mut seen = HashSet::new();
    let mut left_out = Vec::new();
    for (i, line) in body.lines().enumerate() {
        let bad = |expected: &str| ParseError::new(source, i + 1, line, expected);
        if line.is_empty() {
            continue;
        }
        let marker = line
            .strip_prefix('=')
            .and_then(|r| r.split_once(' ').or(Some((r, ""))));
        let Some((kind, value)) = marker else {
            match data_line(line) {
                Some((res, pages, size, path)) => {
                    // fincore reports RES as pages times its page size
                    if run.page_size.is_none() && pages > 0 && res % pages == 0 {
                        run.page_size = Some(res / pages);
                    }
                    if seen.insert(path.clone()) {
                        run.files.push(measured(path, pages, size));
                    }
                }
                None => run
                    .rejected
                    .push(bad("RES PAGES SIZE FILE from fincore --raw")),
            }
            continue;
        };
        let ok = match kind {
            "e" => value.parse().map(|v| run.every_ms = Some(v)).is_ok(),
            "p" => value
                .parse()
                .ok()
                .filter(|&p: &u64| p > 0)
                .map(|p| run.page_size = Some(p))
                .is_some(),
            "x" => {
                run.missing = true;
                true
            }
            "u" => value
                .parse::<usize>()
                .ok()
                .and_then(|k| patterns.get(k))
                .map(|p| unmatched.push(p.clone()))
                .is_some(),
            "c" => two(value).map(|c| run.capped = Some(c)).is_some(),
            "n" => two::<usize, u64>(value)
                .and_then(|(k, n)| Some((patterns.get(k)?, n)))
                .map(|(p, n)| left_out.push(not_measured(p, n)))
                .is_some(),
            _ => false,
        };
        if !ok {
            run.rejected
                .push(bad("=e MS, =p BYTES, =x, =u N, =n N N or =c N N"));
        }
    }
    run.files.extend(left_out);
    run.files.extend(unmatched.into_iter().map(|p| {
        let error = if p.contains(['*', '?', '[']) {
            FileError::NoMatch
        } else {
            FileError::NoRegularFile
        };
        CacheFile {
            path: p,
            result: Err(error),
        }
    }));
    run
}

/// The row of a pattern whose `n` files the run left out.
fn not_measured(pattern: &str, n: u64) -> CacheFile {
    CacheFile {
        path: pattern.to_string(),
        result: Err(FileError::NotMeasured { files: n }),
    }
}

/// fincore's figures as the local source's row: resident pages and size;
/// dirty, writeback and evictions are what fincore does not know. Device
/// and inode are not sent: the model gives no per-interval change for
/// these rows (see `Method::Fincore`).
fn measured(path: String, pages: u64, size: u64) -> CacheFile {
    CacheFile {
        path,
        result: Ok(FileResidency {
            dev: 0,
            ino: 0,
            size_bytes: size,
            pages: Residency {
                cached: pages,
                ..Residency::default()
            },
            scanned_ms: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fincore --raw --bytes --noheadings --output RES,PAGES,SIZE,FILE`
    /// (util-linux 2.38.1, LC_ALL=C) over files written by
    /// tests/fixtures/fincore/make.sh.
    const REAL: &str = include_str!("../../../tests/fixtures/fincore/raw.txt");

    fn ok(f: &CacheFile) -> (u64, u64) {
        let r = f.result.as_ref().unwrap();
        (r.pages.cached, r.size_bytes)
    }

    #[test]
    fn real_output_reads_names_with_spaces_newlines_and_utf8() {
        let run = parse_fincore(REAL, &[], "t");
        assert!(run.rejected.is_empty(), "{:?}", run.rejected);
        let names: Vec<&str> = run.files.iter().map(|f| f.path.as_str()).collect();
        assert!(
            names.iter().any(|n| n.ends_with("/redo 01.log")),
            "{names:?}"
        );
        assert!(names.iter().any(|n| n.ends_with("/new\nline.log")));
        assert!(names.iter().any(|n| n.ends_with("/ütf.log")));
        assert!(names.iter().any(|n| n.ends_with("/back\\slash.log")));
        for f in &run.files {
            let r = f.result.as_ref().unwrap();
            assert_eq!(r.pages.dirty, None, "fincore knows no dirty pages");
            assert!(r.pages.cached <= r.size_bytes.div_ceil(4096));
        }
        assert_eq!(run.page_size, Some(4096));
    }

    #[test]
    fn markers_say_cadence_page_size_cap_and_unmatched_patterns() {
        let patterns = ["/u01/*.log".to_string(), "/u02/x.dbf".to_string()];
        let body = "=e 10000\n=p 65536\n=c 1 3\n65536 1 100 /u01/a.log\n65536 1 100 /u01/a.log\n\
                    =n 0 2\n=u 1";
        let run = parse_fincore(body, &patterns, "t");
        assert!(run.rejected.is_empty(), "{:?}", run.rejected);
        assert_eq!(
            (run.every_ms, run.page_size, run.capped),
            (Some(10000), Some(65536), Some((1, 3)))
        );
        assert_eq!(run.files.len(), 3, "a file listed twice is one row");
        assert_eq!(ok(&run.files[0]), (1, 100));
        assert_eq!(run.files[1].path, "/u01/*.log");
        assert_eq!(
            run.files[1].result,
            Err(FileError::NotMeasured { files: 2 })
        );
        assert_eq!(
            (run.files[2].path.as_str(), run.files[2].result.clone()),
            ("/u02/x.dbf", Err(FileError::NoRegularFile))
        );
    }

    #[test]
    fn bad_lines_are_rejected_and_the_rest_read() {
        let body = "=x\nfincore: unknown column\n4096 x 1 /a\n=u 7\n=q\n=c 1\n\
                    4096 1 1 /a b\n\\x 1\n4096 1 4096 /ok\n=p 0\n=n 3 1\n=n 0 -1";
        let run = parse_fincore(body, &["/p".to_string()], "t");
        assert!(run.missing);
        assert_eq!(run.rejected.len(), 10, "{:?}", run.rejected);
        assert_eq!(run.rejected[0].line_no, 2);
        assert_eq!(run.files.len(), 1);
        assert_eq!(ok(&run.files[0]), (1, 4096));
    }

    #[test]
    fn escapes_that_are_not_hex_stay_as_they_are() {
        assert_eq!(unescape("a\\x2"), "a\\x2");
        assert_eq!(unescape("a\\xzz\\x41"), "a\\xzzA");
        assert_eq!(unescape("\\xff"), "\u{fffd}");
        assert_eq!(unescape("\\x+f"), "\\x+f");
    }
}

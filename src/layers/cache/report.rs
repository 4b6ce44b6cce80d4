//! `strata batch cache`: the page cache per interval, and the residency of
//! the watched files.
//!
//! Text: one line per interval in the layout of Brendan Gregg's cachestat
//! (`-T`: the time first, sizes in MB as BUFFERS_MB and CACHED_MB), the
//! header printed once. With watched files each interval is a block: the
//! header and line, then a table in util-linux fincore's layout (RES PAGES
//! SIZE, sizes as fincore prints them) with the cachestat(2) counts after
//! it, the file name last so long paths do not break the columns, and a
//! total line that names the method. JSON: one object per record (memory,
//! file, total) per interval. CSV: one header, a `record` column, and the
//! fields that do not apply to a record left empty.

use super::model::{
    CACHE_COLS, CacheBaseline, CacheCol, CacheKind, CacheTick, FILE_COLS, FileCol, FileFigures,
    FileKind, FileRow,
};
use super::residency::Method;
use super::source::CacheSource;
use crate::format::{self, UNKNOWN};
use crate::layers::LayerId;
use crate::layers::report::host_report;
use crate::layers::report::{
    Format, csv_field, csv_stamp, json_opt, json_stamp, json_str, printable, to_fixed,
};
use std::fmt::Write as _;

/// The file table's text columns, in order; the changes over the interval
/// are left to JSON and CSV.
const TEXT_FILE_COLS: [FileCol; 8] = [
    FileCol::Res,
    FileCol::ResPages,
    FileCol::Size,
    FileCol::ResPct,
    FileCol::Dirty,
    FileCol::Writeback,
    FileCol::Evicted,
    FileCol::RecentlyEvicted,
];

/// A size as util-linux prints it with one-letter suffixes (fincore's RES
/// and SIZE): "0B", "512B", "148K", "1.5M", "1G". strutils.c
/// size_to_human_string: the largest power of 1024 not above the value,
/// one decimal rounded half up, a trailing ".0" dropped.
pub fn human_size(bytes: u64) -> String {
    const SUFFIX: [&str; 7] = ["B", "K", "M", "G", "T", "P", "E"];
    let mut exp = 0u32;
    while exp < 60 && bytes >= 1u64 << (exp + 10) {
        exp += 10;
    }
    let suffix = SUFFIX[(exp / 10) as usize];
    if exp == 0 {
        return format!("{bytes}{suffix}");
    }
    let mut dec = bytes >> exp;
    let frac = bytes & ((1u64 << exp) - 1);
    // three digits of the fraction, then rounded to one (util-linux keeps
    // the same integer arithmetic, guarding the multiplication)
    let mut frac = if frac >= u64::MAX / 1000 {
        (frac / 1024) * 1000 / (1u64 << (exp - 10))
    } else {
        frac * 1000 / (1u64 << exp)
    };
    frac = (frac + 50) / 100;
    if frac == 10 {
        dec += 1;
        frac = 0;
    }
    if frac == 0 {
        format!("{dec}{suffix}")
    } else {
        format!("{dec}.{frac}{suffix}")
    }
}

/// `strata batch cache`: the page cache and the watched files.
pub struct CacheReport {
    pub source: CacheSource,
    pub baseline: CacheBaseline,
    pub format: Format,
    /// A header-once text report has printed its header.
    header_done: bool,
}

impl CacheReport {
    pub fn new(source: CacheSource, format: Format) -> Self {
        CacheReport {
            source,
            baseline: CacheBaseline::default(),
            format,
            header_done: false,
        }
    }
}

host_report!(
    CacheReport,
    LayerId::Cache,
    csv_header: |_| csv_header(),
    report: |me, tick| report(me.format, &tick, &mut me.header_done),
);

/// One interval's report. Text prints its header the first time
/// (`header_done` then turns true) and again with every table of files.
pub fn report(format: Format, tick: &CacheTick, header_done: &mut bool) -> String {
    match format {
        Format::Text => {
            let header = !*header_done || !tick.files.is_empty();
            *header_done = true;
            text_report(tick, header)
        }
        Format::Json => json_report(tick),
        Format::Csv => csv_report(tick),
    }
}

fn text_width(c: CacheCol) -> usize {
    c.def().text_header().len().max(9)
}

/// A page-cache figure as text prints it: sizes in MB without decimals,
/// rates with two.
fn text_value(c: CacheCol, v: Option<f64>) -> String {
    match v.filter(|v| v.is_finite()) {
        None => UNKNOWN.to_string(),
        Some(v) => match c.def().kind {
            CacheKind::Kb => format!("{:.0}", v / 1024.0),
            CacheKind::KbPerS | CacheKind::PerS => format!("{v:.2}"),
        },
    }
}

/// The header of the page-cache line.
pub fn text_header() -> String {
    let mut s = String::from("TIME    ");
    for c in &CACHE_COLS {
        let _ = write!(s, " {:>w$}", c.text_header(), w = text_width(c.col));
    }
    s
}

fn text_line(tick: &CacheTick) -> String {
    let mut s = format::local_time(tick.wall_ms);
    for c in &CACHE_COLS {
        let v = text_value(c.col, tick.figures.get(c.col));
        let _ = write!(s, " {v:>w$}", w = text_width(c.col));
    }
    s
}

fn file_width(c: FileCol) -> usize {
    match c {
        FileCol::ResPages => 9,
        FileCol::ResPct => 7,
        _ => 8,
    }
}

fn file_text_value(c: FileCol, v: Option<f64>) -> String {
    match v.filter(|v| v.is_finite()) {
        None => UNKNOWN.to_string(),
        Some(v) => match c.def().kind {
            FileKind::Bytes => human_size(v as u64),
            FileKind::Pct => format!("{v:.2}"),
            FileKind::Pages | FileKind::PagesDelta => format!("{v:.0}"),
        },
    }
}

/// The header of the file table.
pub fn file_header() -> String {
    let mut s = String::new();
    for (i, c) in TEXT_FILE_COLS.iter().enumerate() {
        let sep = if i == 0 { "" } else { " " };
        let _ = write!(s, "{sep}{:>w$}", c.def().header, w = file_width(*c));
    }
    s.push_str(" FILE");
    s
}

fn file_line(figures: Option<&FileFigures>, label: &str) -> String {
    let mut s = String::new();
    for (i, c) in TEXT_FILE_COLS.iter().enumerate() {
        let sep = if i == 0 { "" } else { " " };
        let v = file_text_value(*c, figures.and_then(|f| f.get(*c)));
        let _ = write!(s, "{sep}{v:>w$}", w = file_width(*c));
    }
    let _ = write!(s, " {}", printable(label));
    s
}

fn file_label(r: &FileRow) -> String {
    match (&r.error, r.age_ms) {
        (Some(e), _) => format!("{}: {e}", r.path),
        (None, Some(age)) => format!("{} ({})", r.path, age_text(age)),
        (None, None) => r.path.clone(),
    }
}

/// A figure older than its sample, as the screen and the text report say
/// it: "scanned 42 s ago", "scanned 1h 05m ago".
pub fn age_text(age_ms: u64) -> String {
    let s = age_ms / 1000;
    let ago = match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s / 60 % 60),
    };
    format!("scanned {ago} ago")
}

fn total_label(tick: &CacheTick) -> String {
    let errors = tick.files.iter().filter(|r| r.figures.is_none()).count();
    let files = tick.files.len() - errors;
    let mut method = tick.method.map_or("", Method::label).to_string();
    // A node's figures are as old as its last fincore run: the line says so
    if let Some(f) = tick.fincore.as_ref().filter(|f| !f.missing) {
        method = format!("{method} {}", super::fincore::cadence(f, tick.wall_ms));
    }
    format!(
        "total: {}, {} ({method}, {}-byte pages)",
        crate::format::count(files, "file", "files"),
        crate::format::count(errors, "error", "errors"),
        tick.page_size
    )
}

/// One text report; `header` prints the page-cache header first.
pub fn text_report(tick: &CacheTick, header: bool) -> String {
    let mut s = String::new();
    if header {
        s.push_str(&text_header());
        s.push('\n');
    }
    s.push_str(&text_line(tick));
    s.push('\n');
    if tick.files.is_empty() {
        return s;
    }
    let _ = writeln!(s, "\n{}", file_header());
    for r in &tick.files {
        let _ = writeln!(s, "{}", file_line(r.figures.as_ref(), &file_label(r)));
    }
    let total = tick.total.as_ref().map(|t| &t.figures);
    let _ = writeln!(s, "{}\n", file_line(total, &total_label(tick)));
    s
}

/// kB as integers, the rest with two decimals.
fn cache_number(c: CacheCol, v: Option<f64>) -> Option<String> {
    to_fixed(v, if c.def().kind == CacheKind::Kb { 0 } else { 2 })
}

fn file_number(c: FileCol, v: Option<f64>) -> Option<String> {
    to_fixed(v, if c.def().kind == FileKind::Pct { 2 } else { 0 })
}

fn method_key(m: Option<Method>) -> Option<&'static str> {
    m.map(|m| match m {
        Method::Cachestat => "cachestat",
        Method::Mincore => "mincore",
        Method::Fincore => "fincore",
    })
}

fn json_file_fields(s: &mut String, figures: Option<&FileFigures>) {
    for c in &FILE_COLS {
        let v = file_number(c.col, figures.and_then(|f| f.get(c.col)));
        let _ = write!(s, ", \"{}\": {}", c.json_key, json_opt(v));
    }
}

/// One JSON object per record: the page cache, each file, the total.
pub fn json_report(tick: &CacheTick) -> String {
    let stamp = json_stamp(tick.wall_ms, tick.itv_cs);
    let head = |record: &str| format!("{{{stamp}, \"record\": \"{record}\"");
    let mut s = head("memory");
    for c in &CACHE_COLS {
        let v = cache_number(c.col, tick.figures.get(c.col));
        let _ = write!(s, ", \"{}\": {}", c.json_key, json_opt(v));
    }
    let _ = writeln!(
        s,
        ", \"refault_counter\": {}}}",
        json_opt(tick.refault_counter.map(json_str))
    );
    let method = json_opt(method_key(tick.method).map(json_str));
    for r in &tick.files {
        s.push_str(&head("file"));
        let _ = write!(
            s,
            ", \"file\": {}, \"error\": {}, \"method\": {method}",
            json_str(&r.path),
            json_opt(r.error.as_ref().map(|e| json_str(&e.to_string())))
        );
        // only where the figures are older than the record: recordings of
        // before, and cachestat's figures, keep their keys
        if let Some(age) = r.age_ms {
            let _ = write!(s, ", \"age_ms\": {age}");
        }
        json_file_fields(&mut s, r.figures.as_ref());
        s.push_str("}\n");
    }
    if !tick.files.is_empty() {
        let errors = tick.files.iter().filter(|r| r.figures.is_none()).count();
        s.push_str(&head("total"));
        let _ = write!(
            s,
            ", \"files\": {}, \"errors\": {errors}, \"method\": {method}",
            tick.files.len() - errors
        );
        json_file_fields(&mut s, tick.total.as_ref().map(|t| &t.figures));
        s.push_str("}\n");
    }
    s
}

pub fn csv_header() -> String {
    let mut s = String::from("timestamp,interval_s,record,file,error,method");
    for c in &CACHE_COLS {
        s.push(',');
        s.push_str(c.json_key);
    }
    for c in &FILE_COLS {
        s.push(',');
        s.push_str(c.json_key);
    }
    // last, so that the columns before keep their places
    s.push_str(",age_ms");
    s
}

/// CSV lines: the page cache, then each file and the total, all under
/// one header.
pub fn csv_report(tick: &CacheTick) -> String {
    let stamp = csv_stamp(tick.wall_ms, tick.itv_cs);
    let empty_cache = ",".repeat(CACHE_COLS.len());
    let empty_files = ",".repeat(FILE_COLS.len());
    let method = method_key(tick.method).unwrap_or("");
    let mut s = format!("{stamp},memory,,,");
    for c in &CACHE_COLS {
        let v = cache_number(c.col, tick.figures.get(c.col));
        let _ = write!(s, ",{}", v.unwrap_or_default());
    }
    let _ = writeln!(s, "{empty_files},");
    let file_fields = |s: &mut String, figures: Option<&FileFigures>, age: Option<u64>| {
        for c in &FILE_COLS {
            let v = file_number(c.col, figures.and_then(|f| f.get(c.col)));
            let _ = write!(s, ",{}", v.unwrap_or_default());
        }
        let _ = writeln!(s, ",{}", age.map(|a| a.to_string()).unwrap_or_default());
    };
    for r in &tick.files {
        let _ = write!(
            s,
            "{stamp},file,{},{},{method}{empty_cache}",
            csv_field(&r.path),
            csv_field(
                &r.error
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            )
        );
        file_fields(&mut s, r.figures.as_ref(), r.age_ms);
    }
    if !tick.files.is_empty() {
        let _ = write!(s, "{stamp},total,,,{method}{empty_cache}");
        file_fields(&mut s, tick.total.as_ref().map(|t| &t.figures), None);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::rootfs::RootFs;
    use crate::layers::report::Report;
    use std::path::Path;

    fn capture(root: &Path, suffix: &str, uptime: Option<&str>) {
        let proc = root.join("proc");
        std::fs::create_dir_all(&proc).unwrap();
        for name in ["uptime", "meminfo", "vmstat"] {
            let path = format!(
                "{}/tests/fixtures/cache/{name}-6.18.44-{suffix}.txt",
                env!("CARGO_MANIFEST_DIR")
            );
            std::fs::copy(path, proc.join(name)).unwrap();
        }
        if let Some(u) = uptime {
            std::fs::write(proc.join("uptime"), format!("{u} 0.00\n")).unwrap();
        }
    }

    #[test]
    fn text_without_files_prints_its_header_once_and_unknowns_as_dashes() {
        let dir = tempfile::tempdir().unwrap();
        capture(dir.path(), "a", None);
        let src = CacheSource::new(RootFs::new(dir.path()), Vec::new());
        let mut r = CacheReport::new(src, Format::Text);
        assert!(r.sample(0).unwrap().report.is_none(), "no interval yet");
        capture(dir.path(), "b", None);
        let first = r.sample(0).unwrap().report.unwrap();
        assert_eq!(first.lines().count(), 2, "{first}");
        assert!(first.starts_with("TIME     BUFFERS_MB CACHED_MB CACHED-SHM_MB"));
        // the counters of capture a again, a second later: they went back
        capture(dir.path(), "a", Some("3487.32"));
        let second = r.sample(0).unwrap().report.unwrap();
        assert_eq!(second.lines().count(), 1, "{second}");
        let fields: Vec<&str> = second.split_whitespace().collect();
        assert_eq!(fields[fields.len() - 4..], ["–", "–", "–", "–"]);
    }

    #[test]
    fn json_records_for_memory_each_file_and_the_total() {
        let dir = tempfile::tempdir().unwrap();
        capture(dir.path(), "a", None);
        std::fs::create_dir_all(dir.path().join("u01")).unwrap();
        std::fs::write(dir.path().join("u01/redo01.log"), [1u8; 12288]).unwrap();
        let patterns = vec!["/u01/*.log".to_string(), "/u01/gone.dbf".to_string()];
        let src = CacheSource::new(RootFs::new(dir.path()), patterns);
        let mut r = CacheReport::new(src, Format::Json);
        r.sample(0).unwrap();
        capture(dir.path(), "b", None);
        let out = r.sample(0).unwrap().report.unwrap();
        let recs: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let kinds: Vec<&str> = recs.iter().map(|v| v["record"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["memory", "file", "file", "total"]);
        assert_eq!(recs[0]["interval_s"], 3.06);
        assert_eq!(recs[0]["cached_minus_shmem_kb"], 1_116_060);
        assert_eq!(recs[1]["file"], "/u01/redo01.log");
        assert_eq!(recs[1]["size_bytes"], 12288);
        assert_eq!(recs[1]["method"], "cachestat");
        assert_eq!(recs[2]["error"], "no such file");
        assert!(recs[2]["res_pages"].is_null());
        assert_eq!(
            (recs[3]["files"].as_u64(), recs[3]["errors"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(recs[3]["size_bytes"], 12288);
    }

    #[test]
    fn sizes_as_util_linux_prints_them() {
        // util-linux strutils.c test cases (size_to_human_string, 1 letter)
        assert_eq!(human_size(0), "0B");
        assert_eq!(human_size(1023), "1023B");
        assert_eq!(human_size(1024), "1K");
        assert_eq!(human_size(1536), "1.5K");
        assert_eq!(human_size(151_552), "148K");
        assert_eq!(human_size(1_048_576), "1M");
        assert_eq!(
            human_size(1_048_676),
            "1M",
            "100 bytes over 1 MiB round away"
        );
        // 1023.96 KiB rounds up into the next unit's integer, as C does
        assert_eq!(human_size(1_048_535), "1024K");
        assert_eq!(human_size(3 << 30), "3G");
        assert_eq!(human_size(u64::MAX), "16E");
    }

    #[test]
    fn a_nodes_total_line_says_how_often_fincore_ran_and_how_long_ago() {
        let tick = CacheTick {
            wall_ms: 13_400,
            itv_cs: Some(100),
            method: Some(Method::Fincore),
            page_size: 4096,
            fincore: Some(super::super::fincore::FincoreStatus {
                every_ms: Some(10_000),
                at_ms: Some(10_000),
                missing: false,
                capped: Some((256, 300)),
            }),
            ..CacheTick::default()
        };
        assert_eq!(
            total_label(&tick),
            "total: 0 files, 0 errors (fincore every 10 s, last 3 s ago, 256 of 300 matching files (at most 256 a run), 4096-byte pages)"
        );
    }

    /// A figure of the mincore scan's last pass says how old it is in the
    /// text, JSON and CSV; the sample's own figures say nothing more.
    #[test]
    fn an_old_figure_says_its_age_in_every_format() {
        let figures = FileFigures::default();
        let row = |path: &str, age_ms| FileRow {
            path: path.into(),
            figures: Some(figures),
            error: None,
            age_ms,
        };
        let tick = CacheTick {
            itv_cs: Some(100),
            files: vec![row("/old.dbf", Some(3_725_000)), row("/new.log", None)],
            method: Some(Method::Mincore),
            ..CacheTick::default()
        };
        let text = text_report(&tick, false);
        assert!(text.contains(" /old.dbf (scanned 1h 02m ago)\n"), "{text}");
        assert!(text.contains(" /new.log\n"), "{text}");
        let json = json_report(&tick);
        let files: Vec<&str> = json.lines().filter(|l| l.contains("\"file\"")).collect();
        assert!(files[0].contains("\"age_ms\": 3725000"), "{json}");
        assert!(!files[1].contains("age_ms"), "{json}");
        let csv = csv_report(&tick);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(
            lines[1].ends_with(",3725000") && lines[2].ends_with(','),
            "{csv}"
        );
        assert_eq!(age_text(42_999), "scanned 42 s ago");
        assert_eq!(age_text(61_000), "scanned 1m 01s ago");
    }

    #[test]
    fn the_csv_header_and_every_line_have_the_same_number_of_fields() {
        let tick = CacheTick {
            itv_cs: Some(100),
            files: vec![FileRow {
                path: "/a,b".into(),
                figures: None,
                error: Some("no \"such\" file".into()),
                age_ms: None,
            }],
            ..CacheTick::default()
        };
        let n = csv_header().split(',').count();
        let csv = csv_report(&tick);
        assert_eq!(csv.lines().count(), 3, "{csv}");
        assert!(csv_header().ends_with(",age_ms"));
        for line in csv.lines() {
            // the quoted fields hold one comma between them
            let fields = line.split(',').count() - usize::from(line.contains("\"/a,b\""));
            assert_eq!(fields, n, "{line}");
        }
    }
}

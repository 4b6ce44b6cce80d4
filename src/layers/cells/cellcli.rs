//! CellCLI output of an Exadata storage cell.
//!
//! - `list metriccurrent`: the default three columns (`name
//!   metricObjectName value unit…`), the same with `collectionTime` after
//!   the unit (the Oracle documentation's `ATTRIBUTES name,
//!   metricObjectName, metricValue, collectionTime` example), and DETAIL
//!   blocks (`name: …` / `metricObjectName: …` / `metricValue: …`), since
//!   users paste all three. Values carry thousands separators
//!   (`6,638,504,145`) and units of several words (`IO requests`).
//! - `list celldisk attributes name,deviceName,diskType`.
//! - The report strata's remote script prints: both listings behind
//!   `@@celldisk` and `@@metriccurrent` marker lines.
//!
//! Any line may carry dcli's `cellname: ` prefix; the cell name is kept.
//! `CellCLI>` prompt lines of a pasted session are skipped. A metric's name
//! is decoded by the grammar of domain.md §6.1 into a [`MetricKind`]; the
//! grammar is inferred from the names, not documented by Oracle.

use crate::core::error::ParseError;
use crate::core::parse::Parsed;
use serde::{Deserialize, Serialize};

/// The object family a metric name starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MetricPrefix {
    /// `CD_`: a cell disk, hard or flash (the object name tells which).
    CellDisk,
    /// `GD_`
    GridDisk,
    /// `FC_`
    FlashCache,
    /// `FL_`
    FlashLog,
    /// `DB_`: IORM per database.
    Database,
    /// `PDB_`
    PluggableDatabase,
    /// `CG_`: IORM consumer group.
    ConsumerGroup,
    /// `CT_`: IORM category.
    Category,
    /// `CL_`
    Cell,
    /// `N_`
    Network,
    /// `SIO_`: smart I/O.
    SmartIo,
    Other,
}

/// What the figure counts, from the word after `IO_` (or a bare `BY_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Quantity {
    /// `IO_RQ`
    Requests,
    /// `IO_BY`, `BY`: megabytes.
    Bytes,
    /// `IO_TM`: I/O time (latency).
    Time,
    /// `IO_WT`: IORM wait.
    Wait,
    /// `IO_UTIL`
    Util,
    /// `IO_LOAD`
    Load,
    /// `IO_ERRS`
    Errors,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    Read,
    Write,
}

/// `SM` / `LG`: small and large requests (the size split is unverified).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BlockSize {
    Small,
    Large,
}

/// What the value is taken over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Basis {
    /// `_SEC`: a rate over the previous minute.
    PerSecond,
    /// `_RQ` after the quantity: an average per request.
    PerRequest,
    /// No suffix: a running total, by the grammar. Some unsuffixed names
    /// are gauges (FC_BY_USED, CD_BY_FC_DIRTY) that the name cannot tell
    /// apart; DETAIL's `metricType: Instantaneous` corrects them.
    Cumulative,
    /// Utilisation, load, a `%` or `C` unit, or DETAIL said so.
    Instantaneous,
}

/// A metric name decoded by its grammar: `FC_IO_RQ_R_MISS_SEC` is flash
/// cache, requests, read, qualifier `MISS`, per second.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MetricKind {
    pub prefix: MetricPrefix,
    pub quantity: Quantity,
    pub direction: Option<Direction>,
    pub size: Option<BlockSize>,
    pub basis: Basis,
    /// The name's other words, `_`-joined (`MISS`, `SCRUB`, `FC_DIRTY`,
    /// `DISK_WRITE`); empty for the plain figure. Sums of "all reads" must
    /// take only the empty qualifier, or scrubbing and misses count twice.
    pub qualifier: String,
}

impl MetricKind {
    /// Decodes a metric name; the unit only settles the basis of gauges
    /// whose name looks cumulative.
    pub fn decode(name: &str, unit: &str) -> MetricKind {
        let words: Vec<&str> = name.split('_').collect();
        let prefix = match words.first().copied().unwrap_or("") {
            "CD" => MetricPrefix::CellDisk,
            "GD" => MetricPrefix::GridDisk,
            "FC" => MetricPrefix::FlashCache,
            "FL" => MetricPrefix::FlashLog,
            "DB" => MetricPrefix::Database,
            "PDB" => MetricPrefix::PluggableDatabase,
            "CG" => MetricPrefix::ConsumerGroup,
            "CT" => MetricPrefix::Category,
            "CL" => MetricPrefix::Cell,
            "N" => MetricPrefix::Network,
            "SIO" => MetricPrefix::SmartIo,
            _ => MetricPrefix::Other,
        };
        let rest = words.get(1..).unwrap_or(&[]);
        let io_quantity = |w: &str| match w {
            "RQ" => Some(Quantity::Requests),
            "BY" => Some(Quantity::Bytes),
            "TM" => Some(Quantity::Time),
            "WT" => Some(Quantity::Wait),
            "UTIL" => Some(Quantity::Util),
            "LOAD" => Some(Quantity::Load),
            "ERRS" => Some(Quantity::Errors),
            _ => None,
        };
        // The quantity is `IO_<Q>` anywhere after the prefix
        // (DB_FC_IO_BY_SEC), or a bare `BY` right after it (FC_BY_USED).
        let io_at = rest
            .windows(2)
            .position(|w| w[0] == "IO" && io_quantity(w[1]).is_some());
        let (quantity, mut other, tail): (Quantity, Vec<&str>, &[&str]) = match io_at {
            Some(i) => (
                io_quantity(rest[i + 1]).unwrap_or(Quantity::Other),
                rest[..i].to_vec(),
                &rest[i + 2..],
            ),
            None if rest.first() == Some(&"BY") => (Quantity::Bytes, Vec::new(), &rest[1..]),
            None => (Quantity::Other, Vec::new(), rest),
        };
        let (tail, mut basis) = match tail.split_last() {
            Some((&"SEC", t)) => (t, Basis::PerSecond),
            Some((&"RQ", t)) => (t, Basis::PerRequest),
            _ => (tail, Basis::Cumulative),
        };
        let (mut direction, mut size) = (None, None);
        for &w in tail {
            match w {
                "R" if direction.is_none() => direction = Some(Direction::Read),
                "W" if direction.is_none() => direction = Some(Direction::Write),
                "SM" if size.is_none() => size = Some(BlockSize::Small),
                "LG" if size.is_none() => size = Some(BlockSize::Large),
                _ => other.push(w),
            }
        }
        let gauge_unit = matches!(unit, "%" | "C" | "F");
        if basis == Basis::Cumulative
            && (matches!(quantity, Quantity::Util | Quantity::Load) || gauge_unit)
        {
            basis = Basis::Instantaneous;
        }
        MetricKind {
            prefix,
            quantity,
            direction,
            size,
            basis,
            qualifier: other.join("_"),
        }
    }
}

/// One line (or DETAIL block) of `list metriccurrent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// dcli's `cellname: ` prefix, when the text came through dcli.
    pub cell: Option<String>,
    pub name: String,
    /// metricObjectName: `CD_00_cel01`, `FLASHCACHE`, a database name…
    pub object: String,
    /// The value with its thousands separators removed.
    pub value: f64,
    /// As printed, words joined by one space: `IO/sec`, `IO requests`, or
    /// empty for a count without a unit.
    pub unit: String,
    /// collectionTime, where the listing printed it.
    pub collection_time: Option<String>,
    pub kind: MetricKind,
}

/// The media of a cell disk as `list celldisk` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CellDiskType {
    HardDisk,
    FlashDisk,
    /// Anything else, as printed (PMEM on X8M cells, for one).
    Other(String),
}

/// One line of `list celldisk attributes name,deviceName,diskType`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellDisk {
    pub cell: Option<String>,
    /// `CD_00_cel01`, `FD_00_cel01`
    pub name: String,
    /// The cell's OS device: `/dev/sda`, `/dev/nvme0n1`.
    pub device: String,
    pub disk_type: CellDiskType,
}

/// What strata's remote script printed, one section each.
#[derive(Debug, Clone, PartialEq)]
pub struct CellcliReport {
    pub celldisks: Parsed<CellDisk>,
    pub metrics: Parsed<Metric>,
    /// Lines outside any section (a login banner, say). A missing section
    /// is reported in that section's own `rejected`.
    pub stray: Vec<ParseError>,
}

const METRIC_EXPECTED: &str = "name, metricObjectName and a value with an optional unit";
const CELLDISK_EXPECTED: &str = "name, deviceName and diskType";
/// The attributes `list metriccurrent … detail` prints.
const DETAIL_KEYS: [&str; 7] = [
    "name",
    "alertState",
    "collectionTime",
    "metricObjectName",
    "metricType",
    "metricValue",
    "objectType",
];

/// Parses `list metriccurrent` output in any of its layouts.
pub fn parse_metriccurrent(text: &str, source_name: &str) -> Parsed<Metric> {
    parse_metric_lines(numbered(text), source_name)
}

/// Parses `list celldisk attributes name,deviceName,diskType`.
pub fn parse_celldisk(text: &str, source_name: &str) -> Parsed<CellDisk> {
    parse_celldisk_lines(numbered(text), source_name)
}

const CELLDISK_SOURCE: &str = "cellcli list celldisk";
const METRIC_SOURCE: &str = "cellcli list metriccurrent";
const REPORT_SOURCE: &str = "cellcli report";

/// Splits the remote script's output on its `@@celldisk` and
/// `@@metriccurrent` marker lines and parses each section. A section may
/// appear more than once (the script run through dcli prints both per
/// cell); line numbers count from the top of the whole text. Lines of an
/// unknown `@@` section are left alone, so the script can grow sections.
pub fn parse_cellcli_report(text: &str) -> CellcliReport {
    #[derive(Clone, Copy, PartialEq)]
    enum Section {
        None,
        CellDisk,
        Metric,
        Unknown,
    }
    let mut section = Section::None;
    let (mut disk_lines, mut metric_lines) = (Vec::new(), Vec::new());
    let (mut seen_disk, mut seen_metric) = (false, false);
    let mut stray = Vec::new();
    let mut last_line = 0;
    for (no, line) in numbered(text) {
        last_line = no;
        let (_, rest) = split_dcli(line.trim(), false, false);
        if let Some(marker) = rest.strip_prefix("@@") {
            section = match marker.trim() {
                "celldisk" => {
                    seen_disk = true;
                    Section::CellDisk
                }
                "metriccurrent" => {
                    seen_metric = true;
                    Section::Metric
                }
                _ => Section::Unknown,
            };
            continue;
        }
        match section {
            Section::CellDisk => disk_lines.push((no, line)),
            Section::Metric => metric_lines.push((no, line)),
            Section::Unknown => {}
            Section::None if rest.is_empty() => {}
            Section::None => stray.push(ParseError::new(
                REPORT_SOURCE,
                no,
                line,
                "a @@celldisk or @@metriccurrent line before any output",
            )),
        }
    }
    let mut celldisks = parse_celldisk_lines(disk_lines.into_iter(), CELLDISK_SOURCE);
    let mut metrics = parse_metric_lines(metric_lines.into_iter(), METRIC_SOURCE);
    let missing = |source: &str, marker: &str| {
        ParseError::new(
            source,
            last_line + 1,
            "",
            format!("a {marker} section (the end of the text came first)"),
        )
    };
    if !seen_disk {
        celldisks
            .rejected
            .push(missing(CELLDISK_SOURCE, "@@celldisk"));
    }
    if !seen_metric {
        metrics
            .rejected
            .push(missing(METRIC_SOURCE, "@@metriccurrent"));
    }
    CellcliReport {
        celldisks,
        metrics,
        stray,
    }
}

fn numbered(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l))
}

/// A lowerCamelCase word, as CellCLI's attribute names are.
fn is_attr_word(w: &str) -> bool {
    w.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && w.chars().all(|c| c.is_ascii_alphabetic())
}

/// `CELL-02559:`, the start of a CellCLI error message.
fn is_cellcli_error(word: &str) -> bool {
    word.strip_prefix("CELL-")
        .and_then(|r| r.strip_suffix(':'))
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Splits off dcli's `cellname: ` prefix. A first word that is a DETAIL
/// attribute (`name:`) is no prefix; within an open DETAIL block without
/// a cell (`block_open`), neither is any other attribute-like word, so an
/// attribute strata does not know is not taken for a cell name.
fn split_dcli(line: &str, block_open: bool, detail_keys: bool) -> (Option<&str>, &str) {
    let Some(first) = line.split_whitespace().next() else {
        return (None, line);
    };
    let Some(stem) = first.strip_suffix(':') else {
        return (None, line);
    };
    if stem.is_empty() || is_cellcli_error(first) || (detail_keys && DETAIL_KEYS.contains(&stem)) {
        return (None, line);
    }
    let rest = line[first.len()..].trim_start();
    if detail_keys && block_open && is_attr_word(stem) {
        let second_is_attr = rest
            .split_whitespace()
            .next()
            .and_then(|w| w.strip_suffix(':'))
            .is_some_and(is_attr_word);
        if !second_is_attr {
            return (None, line);
        }
    }
    (Some(stem), rest)
}

fn is_prompt(line: &str) -> bool {
    line.starts_with("CellCLI>")
}

/// A metric name: upper-case words joined by `_`.
fn is_metric_name(w: &str) -> bool {
    w.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && w.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A number as CellCLI prints it: an optional sign, digits grouped by
/// commas in threes, an optional fraction. No exponent, NaN or infinity.
fn parse_value(word: &str) -> Result<f64, String> {
    let bad = || format!("a number such as 6,638,504,145 or -0.5, not {word:?}");
    let unsigned = word.strip_prefix(['-', '+']).unwrap_or(word);
    let (int, frac) = match unsigned.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (unsigned, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let groups: Vec<&str> = int.split(',').collect();
    let grouped = groups.len() == 1
        || (groups[0].len() <= 3
            && !groups[0].is_empty()
            && groups[1..].iter().all(|g| g.len() == 3));
    let int_ok = grouped && groups.iter().all(|g| digits(g));
    let frac_ok = frac.is_none_or(|f| digits(f) && !f.is_empty());
    if !int_ok || !frac_ok || (int.is_empty() && frac.is_none()) {
        return Err(bad());
    }
    let plain: String = word.chars().filter(|&c| c != ',').collect();
    plain
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(bad)
}

/// `2009-12-17T15:46:52-08:00`: a collectionTime column after the unit.
fn is_timestamp(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() >= 19
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
}

/// Value, unit and collection time from `6,638,504,145 IO requests`.
fn value_unit(words: &[&str]) -> Result<(f64, String, Option<String>), String> {
    let (first, rest) = words
        .split_first()
        .ok_or_else(|| "a value after the object name".to_string())?;
    let value = parse_value(first)?;
    let (rest, time) = match rest.split_last() {
        Some((last, r)) if is_timestamp(last) => (r, Some(last.to_string())),
        _ => (rest, None),
    };
    Ok((value, rest.join(" "), time))
}

fn metric(
    cell: Option<&str>,
    name: &str,
    object: &str,
    (value, unit, collection_time): (f64, String, Option<String>),
) -> Metric {
    Metric {
        cell: cell.map(str::to_string),
        name: name.to_string(),
        object: object.to_string(),
        kind: MetricKind::decode(name, &unit),
        value,
        unit,
        collection_time,
    }
}

/// A DETAIL block being read: the line of its `name:`, and what it has.
struct Block<'a> {
    cell: Option<&'a str>,
    line_no: usize,
    line: &'a str,
    name: &'a str,
    object: Option<&'a str>,
    value: Option<(f64, String, Option<String>)>,
    time: Option<&'a str>,
    instantaneous: bool,
    /// One of its lines was already rejected; do not report it again.
    bad: bool,
}

impl Block<'_> {
    fn finish(self, source_name: &str, out: &mut Parsed<Metric>) {
        if self.bad {
            return;
        }
        let (Some(object), Some(mut value)) = (self.object, self.value) else {
            out.rejected.push(ParseError::new(
                source_name,
                self.line_no,
                self.line,
                format!(
                    "metricObjectName and metricValue lines in the DETAIL block of {}",
                    self.name
                ),
            ));
            return;
        };
        if value.2.is_none() {
            value.2 = self.time.map(str::to_string);
        }
        let mut m = metric(self.cell, self.name, object, value);
        if self.instantaneous && m.kind.basis == Basis::Cumulative {
            m.kind.basis = Basis::Instantaneous;
        }
        out.items.push(m);
    }
}

fn parse_metric_lines<'a>(
    lines: impl Iterator<Item = (usize, &'a str)>,
    source_name: &str,
) -> Parsed<Metric> {
    let mut out = Parsed {
        items: Vec::new(),
        rejected: Vec::new(),
    };
    let mut block: Option<Block<'a>> = None;
    for (no, raw) in lines {
        let trimmed = raw.trim();
        let block_open_nocell = block.as_ref().is_some_and(|b| b.cell.is_none());
        let (cell, line) = split_dcli(trimmed, block_open_nocell, true);
        if line.is_empty() || is_prompt(line) {
            if let Some(b) = block.take() {
                b.finish(source_name, &mut out);
            }
            continue;
        }
        let reject = |out: &mut Parsed<Metric>, expected: String| {
            out.rejected
                .push(ParseError::new(source_name, no, raw, expected));
        };
        // DETAIL: `key: value`, the key an attribute word.
        let attr = line
            .split_once(':')
            .filter(|(k, _)| is_attr_word(k) && !k.contains(char::is_whitespace));
        if let Some((key, value)) = attr {
            let value = value.trim();
            if key == "name" {
                if let Some(b) = block.take() {
                    b.finish(source_name, &mut out);
                }
                if !is_metric_name(value) {
                    reject(
                        &mut out,
                        format!("a metric name after name:, not {value:?}"),
                    );
                    continue;
                }
                block = Some(Block {
                    cell,
                    line_no: no,
                    line: raw,
                    name: value,
                    object: None,
                    value: None,
                    time: None,
                    instantaneous: false,
                    bad: false,
                });
                continue;
            }
            let Some(b) = block.as_mut().filter(|b| b.cell == cell) else {
                reject(
                    &mut out,
                    format!("a name: line opening a DETAIL block before {key}:"),
                );
                continue;
            };
            match key {
                "metricObjectName" => b.object = Some(value),
                "collectionTime" => b.time = Some(value),
                "metricType" => b.instantaneous = value.eq_ignore_ascii_case("instantaneous"),
                "metricValue" => {
                    let words: Vec<&str> = value.split_whitespace().collect();
                    match value_unit(&words) {
                        Ok(v) => b.value = Some(v),
                        Err(e) => {
                            b.bad = true;
                            reject(&mut out, e);
                        }
                    }
                }
                // alertState, objectType and attributes of later releases
                _ => {}
            }
            continue;
        }
        if let Some(b) = block.take() {
            b.finish(source_name, &mut out);
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first().is_some_and(|w| is_cellcli_error(w)) {
            reject(
                &mut out,
                format!("{METRIC_EXPECTED}; cellcli printed an error instead"),
            );
            continue;
        }
        let parsed = match words.as_slice() {
            [name, object, rest @ ..] if is_metric_name(name) => {
                value_unit(rest).map(|v| metric(cell, name, object, v))
            }
            _ => Err(METRIC_EXPECTED.to_string()),
        };
        match parsed {
            Ok(m) => out.items.push(m),
            Err(e) => reject(&mut out, e),
        }
    }
    if let Some(b) = block.take() {
        b.finish(source_name, &mut out);
    }
    out
}

fn parse_celldisk_lines<'a>(
    lines: impl Iterator<Item = (usize, &'a str)>,
    source_name: &str,
) -> Parsed<CellDisk> {
    Parsed::from_numbered_lines(lines, source_name, |raw| {
        let (cell, line) = split_dcli(raw.trim(), false, false);
        if line.is_empty() || is_prompt(line) {
            return Ok(None);
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [w, ..] if is_cellcli_error(w) => Err(format!(
                "{CELLDISK_EXPECTED}; cellcli printed an error instead"
            )),
            [name, device, disk_type] => Ok(Some(CellDisk {
                cell: cell.map(str::to_string),
                name: name.to_string(),
                device: device.to_string(),
                disk_type: match *disk_type {
                    "HardDisk" => CellDiskType::HardDisk,
                    "FlashDisk" => CellDiskType::FlashDisk,
                    other => CellDiskType::Other(other.to_string()),
                },
            })),
            _ => Err(format!("{CELLDISK_EXPECTED}, found {} words", words.len())),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_as_cellcli_prints_them() {
        assert_eq!(parse_value("6,638,504,145"), Ok(6_638_504_145.0));
        assert_eq!(parse_value("21.193"), Ok(21.193));
        assert_eq!(parse_value("-0.5"), Ok(-0.5));
        assert_eq!(parse_value("0"), Ok(0.0));
        assert_eq!(parse_value(".5"), Ok(0.5));
        for bad in [
            "1,2,3",
            "12,34",
            ",123",
            "1,234.5,6",
            "NaN",
            "inf",
            "1e5",
            "-",
            ".",
            "1.",
            "",
            "1..2",
        ] {
            assert!(parse_value(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn names_decode_by_the_grammar() {
        let k = MetricKind::decode("FC_IO_RQ_R_MISS_SEC", "IO/sec");
        assert_eq!(
            (k.prefix, k.quantity, k.direction, k.size, k.basis),
            (
                MetricPrefix::FlashCache,
                Quantity::Requests,
                Some(Direction::Read),
                None,
                Basis::PerSecond
            )
        );
        assert_eq!(k.qualifier, "MISS");
        let k = MetricKind::decode("CD_IO_TM_W_LG_RQ", "us/request");
        assert_eq!(
            (
                k.quantity,
                k.direction,
                k.size,
                k.basis,
                k.qualifier.as_str()
            ),
            (
                Quantity::Time,
                Some(Direction::Write),
                Some(BlockSize::Large),
                Basis::PerRequest,
                ""
            )
        );
        // the body's RQ is not the per-request suffix
        let k = MetricKind::decode("FC_IO_RQ_R", "IO requests");
        assert_eq!(
            (k.quantity, k.basis),
            (Quantity::Requests, Basis::Cumulative)
        );
        let k = MetricKind::decode("DB_FC_IO_BY_SEC", "MB/sec");
        assert_eq!(
            (k.prefix, k.quantity, k.basis, k.qualifier.as_str()),
            (
                MetricPrefix::Database,
                Quantity::Bytes,
                Basis::PerSecond,
                "FC"
            )
        );
        let k = MetricKind::decode("CD_BY_FC_DIRTY", "MB");
        assert_eq!(
            (k.quantity, k.qualifier.as_str()),
            (Quantity::Bytes, "FC_DIRTY")
        );
        assert_eq!(
            MetricKind::decode("CD_IO_UTIL", "%").basis,
            Basis::Instantaneous
        );
        assert_eq!(
            MetricKind::decode("CL_TEMP", "C").basis,
            Basis::Instantaneous
        );
        assert_eq!(
            MetricKind::decode("PDB_IO_WT_SM_RQ", "ms/request").prefix,
            MetricPrefix::PluggableDatabase
        );
        assert_eq!(MetricKind::decode("XYZ", "").prefix, MetricPrefix::Other);
    }

    #[test]
    fn dcli_prefix_and_detail_keys() {
        for (line, in_block, want) in [
            ("cel01: CD_X a 1", false, (Some("cel01"), "CD_X a 1")),
            ("name: CL_TEMP", false, (None, "name: CL_TEMP")),
            (
                "cel01: name: CL_TEMP",
                false,
                (Some("cel01"), "name: CL_TEMP"),
            ),
            // an attribute strata does not know, inside a block
            ("metricValueMax: 3", true, (None, "metricValueMax: 3")),
            (
                "cel: metricValueMax: 3",
                true,
                (Some("cel"), "metricValueMax: 3"),
            ),
        ] {
            assert_eq!(split_dcli(line, in_block, true), want, "{line}");
        }
        assert_eq!(split_dcli("CELL-02559: error", false, true).0, None);
    }
}

//! What every layer's batch report shares: the output formats, the text
//! helpers and the [`Report`] trait the batch loop drives.

use crate::core::error::ParseError;
use crate::core::error::SourceError;

/// Output formats of the batch printers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The layout and column names of the reference tool (iostat -x).
    Text,
    /// One JSON object per entity per interval (newline-delimited).
    Json,
    /// A header line, then one line per entity per interval.
    Csv,
}

/// Text from /proc or /sys as it may go to a terminal or a CSV file: a dm
/// name or a host name can hold any byte but '/', and an escape sequence
/// or a newline in one would repaint the screen or split a row. JSON needs
/// none of this: serde_json escapes control characters itself.
pub(crate) use crate::core::text::printable;

/// A string as a JSON string literal (serde_json escapes control
/// characters itself).
pub(crate) fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// A CSV field: control characters printed as '?', quoted when it holds
/// a comma or a quote.
pub(crate) fn csv_field(s: &str) -> String {
    let s = printable(s);
    if s.contains([',', '"']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

/// A figure for JSON and CSV with `decimals` after the point; `None` for
/// an unknown one (or one that is not finite).
pub(crate) fn to_fixed(v: Option<f64>, decimals: usize) -> Option<String> {
    let v = v.filter(|v| v.is_finite())?;
    Some(format!("{v:.decimals$}"))
}

/// A figure as iostat's JSON gives it, two decimals: the disks' and
/// cells' JSON and CSV and the NICs' JSON (the NICs' CSV keeps every
/// digit, which nicstat's parity test rounds once; nfs keeps nfsiostat's
/// three, the cache its whole kB). `None` for an unknown one.
pub(crate) fn figure(v: Option<f64>) -> Option<String> {
    to_fixed(v, 2)
}

/// A JSON value as it is, `null` when unknown.
pub(crate) fn json_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("null".to_string(), |v| v.to_string())
}

/// The interval in seconds as every report prints it.
fn interval_s(itv_cs: Option<u64>) -> Option<String> {
    itv_cs.map(|i| format!("{:.2}", i as f64 / 100.0))
}

/// The interval a row's figures span: its own counters' (longer than the
/// sample's when the entity missed a sample, a line skipped or an
/// interface or mount absent once, and was diffed over both), else the
/// sample's. A row said 1.00 s over rates of 2 s.
pub(crate) fn row_itv<D: crate::core::total::Delta>(
    tick_itv: Option<u64>,
    delta: Option<&D>,
) -> Option<u64> {
    delta.map(|d| d.itv_cs()).or(tick_itv)
}

/// The `interval_s` of each JSON record and of each CSV line of a report,
/// as printed, for the tests of a row's own interval.
#[cfg(test)]
pub(crate) fn stamped_intervals(json: &str, csv: &str) -> (Vec<String>, Vec<String>) {
    let field = |l: &str| {
        let rest = l.split("\"interval_s\": ").nth(1).unwrap_or("");
        rest.split(',').next().unwrap_or("").to_string()
    };
    let json = json.lines().map(field).collect();
    let csv = csv
        .lines()
        .map(|l| l.split(',').nth(1).unwrap_or("").to_string())
        .collect();
    (json, csv)
}

/// What every JSON record of a host layer's report starts with: when its
/// interval ended and how long it was (`null` when unknown).
pub(crate) fn json_stamp(wall_ms: i64, itv_cs: Option<u64>) -> String {
    format!(
        "\"timestamp\": {}, \"interval_s\": {}",
        json_str(&crate::format::iso_datetime(wall_ms)),
        json_opt(interval_s(itv_cs))
    )
}

/// The first two fields of every CSV line of a host layer's report: when
/// its interval ended and how long it was (empty when unknown).
pub(crate) fn csv_stamp(wall_ms: i64, itv_cs: Option<u64>) -> String {
    format!(
        "{},{}",
        crate::format::iso_datetime(wall_ms),
        interval_s(itv_cs).unwrap_or_default()
    )
}

/// One reading of a panel's source, with the report it makes over the
/// interval since the previous reading.
#[derive(Debug, Default)]
pub struct Sampled {
    /// The source's own clock (/proc/uptime), in centiseconds.
    pub uptime_cs: u64,
    /// Wall-clock time of the reading, ms since the Unix epoch.
    pub wall_ms: i64,
    /// Lines of the source that were skipped.
    pub rejected: Vec<ParseError>,
    /// The interval since the previous reading, by the source's clock, in
    /// centiseconds; `None` when there is no report.
    pub itv_cs: Option<u64>,
    /// This interval's report in the chosen format; `None` on the first
    /// reading and when the clock did not advance (or went back).
    pub report: Option<String>,
}

/// A panel's batch printer: it owns its source, its baseline, the format
/// and the selection, and turns each reading into a report.
pub trait Report {
    /// The panel's name, as typed after `strata batch`.
    fn panel(&self) -> &'static str;
    /// The first line of a CSV output.
    fn csv_header(&self) -> String;
    /// Reads the source once at `wall_ms` and reports over the interval
    /// since the previous reading.
    fn sample(&mut self, wall_ms: i64) -> Result<Sampled, SourceError>;
}

/// The [`Report`] of a host layer's printer, a struct with a `source`, a
/// `baseline` and a `format`: it reads the source once, ticks the reading
/// against the baseline and reports the tick when the tick spans an
/// interval. The layers differ only in the panel, the CSV header and the
/// call that writes a report, which see the printer as `$me`.
macro_rules! host_report {
    (
        $printer:ty,
        $layer:expr,
        csv_header: |$hme:pat_param| $header:expr,
        report: |$me:ident, $tick:ident| $report:expr $(,)?
    ) => {
        impl $crate::layers::report::Report for $printer {
            fn panel(&self) -> &'static str {
                $layer.name()
            }

            fn csv_header(&self) -> String {
                let $hme: &Self = self;
                $header
            }

            fn sample(
                &mut self,
                wall_ms: i64,
            ) -> Result<$crate::layers::report::Sampled, $crate::core::error::SourceError> {
                let cur = self.source.sample(wall_ms)?;
                let $tick = self.baseline.tick(&cur);
                let $me = &mut *self;
                Ok($crate::layers::report::Sampled {
                    uptime_cs: cur.uptime_cs,
                    wall_ms: cur.wall_ms,
                    rejected: cur.rejected,
                    itv_cs: $tick.itv_cs,
                    report: $tick.itv_cs.map(|_| $report),
                })
            }
        }
    };
}
pub(crate) use host_report;

/// A latency over an interval without a request is no latency (iostat and
/// nfsiostat print 0 there): left out, as an unknown figure is.
pub fn latency(v: Option<f64>, requests: Option<f64>) -> Option<f64> {
    v.filter(|_| requests.is_some_and(|n| n > 0.0))
}

//! What every layer's batch report shares: the output formats, the text
//! helpers and the [`Report`] trait the batch loop drives.

use crate::parse::ParseError;
use crate::source::SourceError;

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
pub(crate) fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_control) {
        s.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}

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
    /// This interval's report in the chosen format; `None` on the first
    /// reading and when the clock did not advance (or went back).
    pub report: Option<String>,
}

impl Sampled {
    /// A host layer's reading (its clock, when, what was skipped) with the
    /// report its tick made.
    pub fn of(
        uptime_cs: u64,
        wall_ms: i64,
        rejected: Vec<ParseError>,
        report: Option<String>,
    ) -> Self {
        Sampled {
            uptime_cs,
            wall_ms,
            rejected,
            report,
        }
    }
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

//! The two text formats Prometheus scrapes, written from an
//! [`Exposition`]: OpenMetrics 1.0.0, which Prometheus asks for first, and
//! the Prometheus text format 0.0.4, which every scraper reads. The format
//! is chosen from the request's Accept header as client_golang's promhttp
//! chooses it ([`Format::negotiate`]).

use super::{Exposition, Family, Kind};
use std::fmt::Write as _;

/// A text exposition format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// OpenMetrics 1.0.0: counters' samples end in `_total`, a `# UNIT`
    /// line where the family has a unit, `# EOF` at the end.
    OpenMetrics,
    /// The Prometheus text format 0.0.4: no units, statesets and infos as
    /// gauges, no end marker.
    Text,
}

pub const OPENMETRICS_CONTENT_TYPE: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";
pub const TEXT_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => OPENMETRICS_CONTENT_TYPE,
            Format::Text => TEXT_CONTENT_TYPE,
        }
    }

    /// The format an Accept header asks for: its media ranges by falling
    /// q (in their order where q ties), the first that is OpenMetrics
    /// (version 0.0.1, 1.0.0 or none) or text/plain (version 0.0.4 or
    /// none); 0.0.4 when none is, or there is no header, as promhttp
    /// answers. Prometheus asks for OpenMetrics 1.0.0 at q=1.
    pub fn negotiate(accept: Option<&str>) -> Format {
        let Some(accept) = accept else {
            return Format::Text;
        };
        let mut ranges: Vec<(f64, Option<Format>)> = accept
            .split(',')
            .map(|range| {
                let mut parts = range.split(';').map(str::trim);
                let media = parts.next().unwrap_or("").to_ascii_lowercase();
                let (mut q, mut version) = (1.0, "");
                for p in parts {
                    let Some((k, v)) = p.split_once('=') else {
                        continue;
                    };
                    match k.trim().to_ascii_lowercase().as_str() {
                        "q" => q = v.trim().parse::<f64>().unwrap_or(0.0),
                        "version" => version = v.trim().trim_matches('"'),
                        _ => {}
                    }
                }
                let format = match (media.as_str(), version) {
                    ("application/openmetrics-text", "" | "0.0.1" | "1.0.0") => {
                        Some(Format::OpenMetrics)
                    }
                    ("text/plain", "" | "0.0.4") => Some(Format::Text),
                    _ => None,
                };
                (q, format)
            })
            .filter(|(q, _)| *q > 0.0)
            .collect();
        ranges.sort_by(|a, b| b.0.total_cmp(&a.0));
        ranges
            .into_iter()
            .find_map(|(_, f)| f)
            .unwrap_or(Format::Text)
    }
}

/// The exposition in `format`, appended to `out`.
pub fn encode(exposition: &Exposition, format: Format, out: &mut String) {
    for family in exposition.families() {
        match format {
            Format::OpenMetrics => openmetrics_family(family, out),
            Format::Text => text_family(family, out),
        }
    }
    if format == Format::OpenMetrics {
        out.push_str("# EOF\n");
    }
}

/// The exposition in `format`, as bytes for a response body.
pub fn to_bytes(exposition: &Exposition, format: Format) -> Vec<u8> {
    // about 80 bytes a sample: the capacity saves the doubling copies
    let mut out = String::with_capacity(64 + exposition.len() * 80);
    encode(exposition, format, &mut out);
    out.into_bytes()
}

fn openmetrics_family(f: &Family, out: &mut String) {
    if f.samples().is_empty() {
        return;
    }
    out.push_str("# HELP ");
    out.push_str(f.name());
    out.push(' ');
    escape(f.help(), true, out);
    out.push_str("\n# TYPE ");
    out.push_str(f.name());
    out.push(' ');
    out.push_str(f.kind().openmetrics());
    out.push('\n');
    if let Some(unit) = f.unit() {
        out.push_str("# UNIT ");
        out.push_str(f.name());
        out.push(' ');
        out.push_str(unit);
        out.push('\n');
    }
    samples(f, out);
}

fn text_family(f: &Family, out: &mut String) {
    if f.samples().is_empty() {
        return;
    }
    let name = f.sample_name();
    let kind = match f.kind() {
        Kind::Counter => "counter",
        Kind::Gauge | Kind::StateSet | Kind::Info => "gauge",
        Kind::Unknown => "untyped",
    };
    out.push_str("# HELP ");
    out.push_str(&name);
    out.push(' ');
    escape(f.help(), false, out);
    out.push_str("\n# TYPE ");
    out.push_str(&name);
    out.push(' ');
    out.push_str(kind);
    out.push('\n');
    samples(f, out);
}

/// The sample lines, alike in both formats.
fn samples(f: &Family, out: &mut String) {
    let name = f.sample_name();
    for s in f.samples() {
        out.push_str(&name);
        if !s.labels().is_empty() {
            out.push('{');
            for (i, (k, v)) in s.labels().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(k);
                out.push_str("=\"");
                escape(v, true, out);
                out.push('"');
            }
            out.push('}');
        }
        out.push(' ');
        value(s.value(), out);
        out.push('\n');
    }
}

/// Backslash and newline escaped, and the double quote where `quote`
/// (label values in both formats, HELP in OpenMetrics).
fn escape(s: &str, quote: bool, out: &mut String) {
    if !s.contains(['\\', '\n', '"']) {
        out.push_str(s);
        return;
    }
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '"' if quote => out.push_str("\\\""),
            c => out.push(c),
        }
    }
}

/// A value Prometheus parses back to the same f64: integers in plain
/// digits (a counter of 2^53 reads back exactly), other values in Rust's
/// shortest round-trip form, with an exponent only where plain digits
/// would run long; NaN and the infinities as both formats spell them.
pub fn value(v: f64, out: &mut String) {
    if v.is_nan() {
        out.push_str("NaN");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "+Inf" } else { "-Inf" });
    } else if v.fract() == 0.0 && v.abs() < 1e21 {
        // Display of an integral f64 below 1e21 is its digits, no point
        let _ = write!(out, "{v}");
    } else if v != 0.0 && (v.abs() < 1e-5 || v.abs() >= 1e21) {
        let _ = write!(out, "{v:e}");
    } else {
        let _ = write!(out, "{v}");
    }
}

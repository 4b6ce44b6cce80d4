//! The two text formats Prometheus scrapes, written from an
//! [`Exposition`] by the Prometheus project's crates: OpenMetrics 1.0.0
//! (prometheus-client's encoder), which Prometheus asks for first, and the
//! Prometheus text format 0.0.4 (the prometheus crate's `TextEncoder`),
//! which every scraper reads. The format is chosen from the request's
//! Accept header as client_golang's promhttp chooses it
//! ([`Format::negotiate`]).

use super::{Exposition, Family, Kind};
use std::sync::Arc;

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
pub fn encode(exposition: &Arc<Exposition>, format: Format, out: &mut String) {
    match format {
        Format::OpenMetrics => {
            let mut registry = prometheus_client::registry::Registry::default();
            registry.register_collector(Box::new(OpenMetrics(Arc::clone(exposition))));
            // Writing to a String cannot fail, and every family was
            // checked when it was made.
            let _ = prometheus_client::encoding::text::encode(out, &registry);
        }
        Format::Text => {
            // A family at a time: the crate's model is a copy of every
            // name and label, and the whole exposition's at once was
            // megabytes a scrape left in the allocator's arenas.
            let encoder = prometheus::TextEncoder::new();
            for f in exposition.families() {
                if let Some(mf) = text_family(f) {
                    let _ = encoder.encode_utf8(std::slice::from_ref(&mf), out);
                }
            }
        }
    }
}

/// The exposition in `format`, as bytes for a response body.
pub fn to_bytes(exposition: &Arc<Exposition>, format: Format) -> Vec<u8> {
    // about 80 bytes a sample: the capacity saves the doubling copies
    let mut out = String::with_capacity(64 + exposition.len() * 80);
    encode(exposition, format, &mut out);
    out.into_bytes()
}

/// The exposition as prometheus-client's collector of it.
#[derive(Debug)]
struct OpenMetrics(Arc<Exposition>);

impl prometheus_client::collector::Collector for OpenMetrics {
    fn encode(
        &self,
        mut encoder: prometheus_client::encoding::DescriptorEncoder,
    ) -> Result<(), std::fmt::Error> {
        use prometheus_client::encoding::NoLabelSet;
        use prometheus_client::metrics::MetricType;
        use prometheus_client::registry::Unit;
        for f in self.0.families().iter().filter(|f| !f.samples().is_empty()) {
            // The crate writes the unit after the name it is given.
            let (name, unit) = match f.unit() {
                Some(u) => (
                    f.name()
                        .strip_suffix(u)
                        .and_then(|n| n.strip_suffix('_'))
                        .unwrap_or(f.name()),
                    Some(match u {
                        "bytes" => Unit::Bytes,
                        "seconds" => Unit::Seconds,
                        "ratios" => Unit::Ratios,
                        other => Unit::Other(other.to_string()),
                    }),
                ),
                None => (f.name(), None),
            };
            let kind = match f.kind() {
                Kind::Counter => MetricType::Counter,
                Kind::Gauge => MetricType::Gauge,
                Kind::Info => MetricType::Info,
                Kind::Unknown => MetricType::Unknown,
            };
            let mut metric = encoder.encode_descriptor(name, f.help(), unit.as_ref(), kind)?;
            for s in f.samples() {
                let labels: Vec<(&str, &str)> = s
                    .labels()
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                // Whole numbers as integers (a count reads as one), the
                // rest as floats; both read back to the same f64.
                let v = s.value();
                let whole = v.fract() == 0.0 && v.abs() <= 9_007_199_254_740_992.0;
                if f.kind() == Kind::Info {
                    metric.encode_info(&labels)?;
                    continue;
                }
                let mut family = metric.encode_family(&labels)?;
                match f.kind() {
                    Kind::Counter if whole => {
                        family.encode_counter::<NoLabelSet, u64, u64>(&(v as u64), None)?;
                    }
                    Kind::Counter => family.encode_counter::<NoLabelSet, f64, f64>(&v, None)?,
                    _ if whole => family.encode_gauge(&(v as i64))?,
                    _ => family.encode_gauge(&v)?,
                }
            }
        }
        Ok(())
    }
}

/// A family as the prometheus crate's model has it: the name its samples
/// carry (`_total` for a counter), infos as gauges of 1, and untyped
/// families as gauges too: the crate's text encoder writes no `untyped`
/// (it panics on one), and a gauge reads the same in PromQL.
fn text_family(f: &Family) -> Option<prometheus::proto::MetricFamily> {
    use prometheus::proto::{Counter, Gauge, LabelPair, Metric, MetricFamily, MetricType};
    if f.samples().is_empty() {
        return None;
    }
    let mut mf = MetricFamily::default();
    mf.set_name(f.sample_name());
    mf.set_help(f.help().to_string());
    mf.set_field_type(match f.kind() {
        Kind::Counter => MetricType::COUNTER,
        Kind::Gauge | Kind::Info | Kind::Unknown => MetricType::GAUGE,
    });
    let metrics = f
        .samples()
        .iter()
        .map(|s| {
            let mut m = Metric::default();
            m.set_label(
                s.labels()
                    .iter()
                    .map(|(k, v)| {
                        let mut l = LabelPair::default();
                        l.set_name(k.clone());
                        l.set_value(v.clone());
                        l
                    })
                    .collect(),
            );
            match f.kind() {
                Kind::Counter => {
                    let mut c = Counter::default();
                    c.set_value(s.value());
                    m.set_counter(c);
                }
                Kind::Gauge | Kind::Info | Kind::Unknown => {
                    let mut g = Gauge::default();
                    g.set_value(s.value());
                    m.set_gauge(g);
                }
            }
            m
        })
        .collect();
    mf.set_metric(metrics);
    Some(mf)
}

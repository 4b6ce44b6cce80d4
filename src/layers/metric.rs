//! The metric families each layer exposes on `/metrics`, declared once
//! beside the figures they come from: a family's name, help, unit, type and
//! labels, and for each one the field of the layer's sample that holds it.
//! The exposition, `docs/metrics.md` and its test all read these tables.
//!
//! strata exposes the raw counters the kernel (or a cell, or a database)
//! keeps, not its own rates: Prometheus computes `rate()` from the counters
//! over its own scrape times, and the figures strata shows are the same
//! counters over the source's clock. Where node_exporter exposes the same
//! kernel counter, the family takes node_exporter's name, type, unit and
//! labels, so its users' dashboards and alerts read strata's series too.

/// How a family's value behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricType {
    /// Only goes up, but for a reset (a reboot, a device re-created); its
    /// name ends in `_total`.
    Counter,
    /// A level: free memory, a queue's depth, a link's state.
    Gauge,
    /// What node_exporter exposes untyped (its vmstat fields): kept so,
    /// that a family of node_exporter's name is the family it knows.
    Untyped,
}

impl MetricType {
    pub fn name(self) -> &'static str {
        match self {
            MetricType::Counter => "counter",
            MetricType::Gauge => "gauge",
            MetricType::Untyped => "untyped",
        }
    }
}

/// One metric family, as the layer that samples it declares it.
#[derive(Debug, PartialEq)]
pub struct Family {
    /// The series' name as the Prometheus text format prints it: a
    /// counter's ends in `_total`.
    pub name: &'static str,
    pub help: &'static str,
    /// The OpenMetrics unit (`bytes`, `seconds`), which the name ends
    /// with; empty where the value has none (a count).
    pub unit: &'static str,
    pub kind: MetricType,
    /// The labels beside `node` (or `cell`, `database`), in order.
    pub labels: &'static [&'static str],
    /// Whether node_exporter exposes a family of this name from the same
    /// kernel counter.
    pub node_exporter: bool,
    /// Where the value comes from: a file and field, a command's figure.
    pub source: &'static str,
}

/// Every part of a family is a text of the program's own.
pub type Text = &'static str;

/// A family is built in a const: a gauge without labels of strata's own,
/// then made what it is by the calls after it, so that each layer's
/// family helper states only what its families share.
impl Family {
    pub const fn new(name: Text, help: Text, unit: Text, source: Text) -> Family {
        Family {
            name,
            help,
            unit,
            kind: MetricType::Gauge,
            labels: &[],
            node_exporter: false,
            source,
        }
    }

    pub const fn kind(self, kind: MetricType) -> Family {
        Family { kind, ..self }
    }

    pub const fn counter(self) -> Family {
        self.kind(MetricType::Counter)
    }

    pub const fn labels(self, labels: &'static [Text]) -> Family {
        Family { labels, ..self }
    }

    /// Says whether node_exporter exposes this name from the same counter.
    pub const fn node_exporter(self, node_exporter: bool) -> Family {
        Family {
            node_exporter,
            ..self
        }
    }

    /// The name OpenMetrics gives the family: without `_total`.
    pub fn family_name(&self) -> &'static str {
        match self.kind {
            MetricType::Counter => self.name.strip_suffix("_total").unwrap_or(self.name),
            MetricType::Gauge | MetricType::Untyped => self.name,
        }
    }
}

/// One family whose value is a field of an entity `E` (a device's
/// counters, an interface's, a mount's): `None` where the entity's source
/// does not have it (a kernel without discard counters).
pub struct Field<E> {
    pub family: Family,
    pub get: fn(&E) -> Option<f64>,
}

/// Where a layer puts its series: each one its family, its label values
/// in the family's order, and its value.
pub trait Sink {
    fn put(&mut self, family: &'static Family, labels: &[&str], value: f64);
}

/// Puts every field of `fields` that `entity` has, with `labels`.
pub fn put_fields<E>(
    fields: &'static [Field<E>],
    entity: &E,
    labels: &[&str],
    sink: &mut dyn Sink,
) {
    for f in fields {
        if let Some(v) = (f.get)(entity) {
            sink.put(&f.family, labels, v);
        }
    }
}

/// The families of a table of fields.
pub fn families_of<E>(fields: &'static [Field<E>]) -> impl Iterator<Item = &'static Family> {
    fields.iter().map(|f| &f.family)
}

/// A count as the float a sample holds. Counters past 2^53 lose their
/// last digits, as they do in every Prometheus client.
#[allow(clippy::cast_precision_loss)]
pub fn count(v: u64) -> Option<f64> {
    Some(v as f64)
}

/// Milliseconds as seconds.
pub fn ms(v: u64) -> Option<f64> {
    count(v).map(|v| v / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counters_family_name_drops_total() {
        let f = Family {
            name: "node_disk_reads_completed_total",
            help: "",
            unit: "",
            kind: MetricType::Counter,
            labels: &["device"],
            node_exporter: true,
            source: "",
        };
        assert_eq!(f.family_name(), "node_disk_reads_completed");
        let g = Family {
            kind: MetricType::Gauge,
            name: "node_disk_io_now",
            ..f
        };
        assert_eq!(g.family_name(), "node_disk_io_now");
    }
}

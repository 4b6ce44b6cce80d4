//! Metric families as Prometheus scrapes them, apart from where their
//! figures come from: a [`Family`] has a name, a help text, an optional
//! unit, a [`Kind`] and its [`Sample`]s; an [`Exposition`] is the set of
//! families one scrape returns. The layers build families (the loop over
//! layers, hosts, entities and declared figures), [`encode`] writes them as
//! OpenMetrics 1.0.0 or the Prometheus text format 0.0.4, and the server
//! (`crate::serve`) answers scrapes from the newest exposition published.
//!
//! Names are checked when a family is made and label names when a sample
//! is added, so that an exposition, once made, always encodes to text
//! Prometheus accepts: an error here is a bug in a figure's declaration,
//! found by the tests, not by a user's scrape.
//!
//! It imports no other module of the crate.

pub mod encode;

use std::collections::HashSet;
use std::hash::BuildHasher;

/// What a family's samples mean, the OpenMetrics types strata exposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A monotonic total: its samples are named `<name>_total`, never
    /// negative or NaN, and reset only when their source resets.
    Counter,
    /// A value that goes up and down.
    Gauge,
    /// Facts as labels with the value 1 (a host's kernel, strata's
    /// version): samples named `<name>_info`. 0.0.4 sees a gauge.
    Info,
    /// What node_exporter exposes untyped (its vmstat fields), kept so
    /// that a family of its name is the family its users know; the 0.0.4
    /// text, whose encoder writes no untyped, sees a gauge.
    Unknown,
}

impl Kind {
    /// The suffix the samples' name adds to the family's.
    fn sample_suffix(self) -> &'static str {
        match self {
            Kind::Counter => "_total",
            Kind::Info => "_info",
            Kind::Gauge | Kind::Unknown => "",
        }
    }
}

/// A family or sample refused, naming what and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricsError {
    #[error("metric name {0:?}: {1}")]
    Name(String, &'static str),
    #[error("{family}: unit {unit:?}: {why}")]
    Unit {
        family: String,
        unit: String,
        why: &'static str,
    },
    #[error("{family}: label name {label:?}: {why}")]
    Label {
        family: String,
        label: String,
        why: &'static str,
    },
    #[error("{family}: value {value}: {why}")]
    Value {
        family: String,
        value: String,
        why: &'static str,
    },
    #[error("{0}: two samples with the same labels")]
    DuplicateSample(String),
    #[error("{0}: two families of that name, or one whose samples' name another family takes")]
    DuplicateFamily(String),
}

/// One time series of a family at the time of the exposition: its labels
/// in the order given, and its value. No timestamp: Prometheus stamps a
/// scrape with its own time, and staleness then works as for any target.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    labels: Vec<(String, String)>,
    value: f64,
}

impl Sample {
    pub fn labels(&self) -> &[(String, String)] {
        &self.labels
    }

    pub fn value(&self) -> f64 {
        self.value
    }
}

/// A metric family: what [`Family::new`] checked, and the samples added.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    name: String,
    help: String,
    unit: Option<String>,
    kind: Kind,
    samples: Vec<Sample>,
}

/// `[a-zA-Z_][a-zA-Z0-9_]*`: OpenMetrics's metric name without the colon,
/// which is left to recording rules (Prometheus's naming practice).
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The suffixes OpenMetrics gives to samples of its types: a family named
/// with one would meet another family's samples in the 0.0.4 text.
const RESERVED_SUFFIXES: [&str; 8] = [
    "_total", "_created", "_count", "_sum", "_bucket", "_gcount", "_gsum", "_info",
];

impl Family {
    /// A family with no samples yet. `name` is the family's, without the
    /// `_total` or `_info` the encoders add to a counter's or an info's
    /// samples; with a unit, it ends in `_<unit>` as OpenMetrics requires
    /// (`node_disk_read_time_seconds`, unit `seconds`).
    pub fn new(
        name: &str,
        help: &str,
        unit: Option<&str>,
        kind: Kind,
    ) -> Result<Family, MetricsError> {
        let bad = |why| Err(MetricsError::Name(name.to_string(), why));
        if !is_name(name) {
            return bad("not [a-zA-Z_][a-zA-Z0-9_]*");
        }
        if name.starts_with("__") {
            return bad("names beginning with __ are Prometheus's own");
        }
        if help.trim().is_empty() {
            return bad("every family has a help text");
        }
        // The OpenMetrics encoder writes HELP as given.
        if help.contains(['\\', '\n', '"']) {
            return bad("a help text without backslash, double quote or newline");
        }
        if RESERVED_SUFFIXES.iter().any(|s| name.ends_with(s)) {
            return bad(
                "ends in a suffix OpenMetrics gives to samples (_total, _info, _count, ...): \
                 name the family without it",
            );
        }
        if let Some(unit) = unit {
            let why = if unit.is_empty()
                || !unit
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                Some("not [a-z0-9_]+")
            } else if !name.ends_with(&format!("_{unit}")) {
                Some("the family's name must end in _<unit> (OpenMetrics)")
            } else if kind == Kind::Info {
                Some("an info has no unit (OpenMetrics)")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(MetricsError::Unit {
                    family: name.to_string(),
                    unit: unit.to_string(),
                    why,
                });
            }
        }
        Ok(Family {
            name: name.to_string(),
            help: help.to_string(),
            unit: unit.map(str::to_string),
            kind,
            samples: Vec::new(),
        })
    }

    /// Adds a sample. Label names are checked here; label values may hold
    /// anything, the encoders escape them. A counter's value is never
    /// negative or NaN, and an info's is 1.
    pub fn sample(&mut self, labels: &[(&str, &str)], value: f64) -> Result<(), MetricsError> {
        let owned = labels
            .iter()
            .map(|&(k, v)| (k.to_string(), v.to_string()))
            .collect();
        self.push(owned, value)
    }

    /// [`Family::sample`] with labels the caller already owns.
    pub fn push(&mut self, labels: Vec<(String, String)>, value: f64) -> Result<(), MetricsError> {
        for (i, (k, _)) in labels.iter().enumerate() {
            let why = if !is_name(k) {
                Some("not [a-zA-Z_][a-zA-Z0-9_]*")
            } else if k.starts_with("__") {
                Some("names beginning with __ are Prometheus's own")
            } else if labels[..i].iter().any(|(o, _)| o == k) {
                Some("given twice")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(MetricsError::Label {
                    family: self.name.clone(),
                    label: k.clone(),
                    why,
                });
            }
        }
        let why = match self.kind {
            Kind::Counter if value.is_nan() || value < 0.0 => {
                Some("a counter is never NaN or negative")
            }
            Kind::Info if value != 1.0 => Some("an info's value is 1"),
            _ => None,
        };
        if let Some(why) = why {
            return Err(MetricsError::Value {
                family: self.name.clone(),
                value: value.to_string(),
                why,
            });
        }
        self.samples.push(Sample { labels, value });
        Ok(())
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn help(&self) -> &str {
        &self.help
    }

    pub fn unit(&self) -> Option<&str> {
        self.unit.as_deref()
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// The name its samples carry: `_total` for a counter, `_info` for an
    /// info, the family's own otherwise.
    pub fn sample_name(&self) -> String {
        format!("{}{}", self.name, self.kind.sample_suffix())
    }

    /// Two samples with the same label set (in any order) would be two
    /// values of one series in one scrape, which Prometheus refuses.
    fn check_unique_samples(&self) -> Result<(), MetricsError> {
        if self.samples.len() < 2 {
            return Ok(());
        }
        let state = foldhash::fast::FixedState::default();
        let mut seen: HashSet<u64> = HashSet::with_capacity(self.samples.len());
        let mut collided = false;
        fn sorted(s: &Sample) -> Vec<&(String, String)> {
            let mut l: Vec<&(String, String)> = s.labels.iter().collect();
            l.sort();
            l
        }
        for s in &self.samples {
            collided |= !seen.insert(state.hash_one(sorted(s)));
        }
        if !collided {
            return Ok(());
        }
        // A hash met twice: compare the label sets themselves.
        let mut sets: Vec<_> = self.samples.iter().map(sorted).collect();
        sets.sort();
        if sets.windows(2).any(|w| w[0] == w[1]) {
            return Err(MetricsError::DuplicateSample(self.name.clone()));
        }
        Ok(())
    }
}

/// The families of one scrape, in the order they are written. Made once
/// per sampling tick and shared by every scrape until the next.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exposition {
    families: Vec<Family>,
}

impl Exposition {
    /// Refuses two families of one name (or one whose samples' name is
    /// another's, such as a gauge `x_total` beside a counter `x`: not
    /// possible through [`Family::new`], checked anyway) and two samples
    /// of one family with the same labels. Families without samples are
    /// kept: their HELP and TYPE say what strata would expose.
    pub fn new(families: Vec<Family>) -> Result<Exposition, MetricsError> {
        let mut names: HashSet<String> = HashSet::with_capacity(families.len() * 2);
        for f in &families {
            let mut taken = vec![f.name.clone()];
            if !f.kind.sample_suffix().is_empty() {
                taken.push(f.sample_name());
            }
            if taken.into_iter().any(|n| !names.insert(n)) {
                return Err(MetricsError::DuplicateFamily(f.name.clone()));
            }
            f.check_unique_samples()?;
        }
        Ok(Exposition { families })
    }

    pub fn families(&self) -> &[Family] {
        &self.families
    }

    /// How many samples the exposition holds, all families together.
    pub fn len(&self) -> usize {
        self.families.iter().map(|f| f.samples.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests;

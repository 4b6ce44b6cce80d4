//! What `/metrics` shows: the newest reading of every host layer of every
//! host (this machine, each database node), of every cell and database,
//! as the raw counters and gauges their layers declare
//! ([`crate::layers::metric`]), each labelled with the host it came from;
//! and each link's and each source's state.
//!
//! A series is exposed while its source is live and its reading is
//! recent: a node that goes down, a layer that fails or a reading older
//! than a few intervals leaves the exposition, so Prometheus marks its
//! series stale instead of freezing them at their last value, and the
//! link's own family says why.

use std::collections::BTreeMap;

use crate::app::input::Input;
use crate::app::state::App;
use crate::layers::LayerId;
use crate::layers::cells::source::CellEvent;
use crate::layers::metric::{Family, Sink};
use crate::link::HostStatus;

mod families;

pub use families::{
    LINK_LAST_ERROR, LINK_UP, PROCESS_CPU, PROCESS_RSS, SOURCE_LAST_ERROR, SOURCE_UP,
};

/// How long a cell's CellCLI listing stands for "now".
const CELLCLI_FRESH_MS: i64 = 5 * 60 * 1000;

/// One series: its labels in order and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub labels: Vec<(&'static str, String)>,
    pub value: f64,
}

/// A family and its series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub family: &'static Family,
    pub samples: Vec<Sample>,
}

/// Every family with a series, in name order.
pub type Exposition = Vec<Series>;

/// Series gathered by family, under the label of what they came from
/// (`node`, `cell`, `database`).
struct Gather<'a> {
    by_name: &'a mut BTreeMap<&'static str, Series>,
    owner: (&'static str, &'a str),
}

impl Sink for Gather<'_> {
    fn put(&mut self, family: &'static Family, labels: &[&str], value: f64) {
        // A value no client library would print: a source's bug, not a
        // figure (every figure strata reads is finite).
        if !value.is_finite() {
            return;
        }
        let mut all = Vec::with_capacity(1 + family.labels.len());
        all.push((self.owner.0, self.owner.1.to_string()));
        all.extend(
            family
                .labels
                .iter()
                .zip(labels)
                .map(|(k, v)| (*k, (*v).to_string())),
        );
        self.by_name
            .entry(family.name)
            .or_insert_with(|| Series {
                family,
                samples: Vec::new(),
            })
            .samples
            .push(Sample { labels: all, value });
    }
}

/// Since when each link or source has been failing, for the time of its
/// last error: kept from one exposition to the next.
#[derive(Debug, Default)]
pub struct Collector {
    failing_since: BTreeMap<(String, String), i64>,
    failed_at: BTreeMap<(String, String), i64>,
}

impl Collector {
    /// The exposition of `app`'s state and the newest samples (`last`, as
    /// the loop keeps them for a recording) at `now_ms`.
    pub fn build<'a>(
        &mut self,
        app: &App,
        last: impl Iterator<Item = &'a Input>,
        now_ms: i64,
    ) -> Exposition {
        let mut by_name = BTreeMap::new();
        // A reading older than a few intervals is not "now": its source
        // stopped without saying so yet.
        let stale_ms = (app.interval.ms() * 3).max(5_000) + 2_000;
        let fresh = |wall_ms: i64| now_ms.saturating_sub(wall_ms) <= stale_ms;
        let local = app.host.hostname.as_str();
        for input in last {
            if let Some((layer, wall_ms)) = input.host_reading() {
                if fresh(wall_ms) && app.local.error(layer).is_none() {
                    input.expose_host(&mut Gather {
                        by_name: &mut by_name,
                        owner: ("node", local),
                    });
                }
                continue;
            }
            match input {
                Input::Node { node, input } => {
                    let Some(n) = app.nodes.get(*node) else {
                        continue;
                    };
                    let live = n.link.status == HostStatus::Live;
                    if let Some((layer, wall_ms)) = input.reading()
                        && live
                        && fresh(wall_ms)
                        && n.layers.error(layer).is_none()
                    {
                        input.expose(&mut Gather {
                            by_name: &mut by_name,
                            owner: ("node", n.link.target.label()),
                        });
                    }
                }
                Input::Cell(CellEvent::Sample { cell, sample }) => {
                    let Some(c) = app.cells.list.get(*cell) else {
                        continue;
                    };
                    if c.link.status == HostStatus::Live && fresh(sample.wall_ms) {
                        crate::layers::cells::metrics::expose(
                            sample,
                            &mut Gather {
                                by_name: &mut by_name,
                                owner: ("cell", &c.link.target.label),
                            },
                        );
                    }
                }
                _ => {}
            }
        }
        // A cell's CellCLI figures are cellsrv's over its last minute, read
        // every few minutes: kept while the cell is up and the listing is
        // younger than that.
        for c in &app.cells.list {
            if let Some((at, summary)) = &c.cellcli
                && c.link.status == HostStatus::Live
                && now_ms.saturating_sub(*at) <= CELLCLI_FRESH_MS
            {
                crate::layers::cells::metrics::expose_cellsrv(
                    summary,
                    &mut Gather {
                        by_name: &mut by_name,
                        owner: ("cell", &c.link.target.label),
                    },
                );
            }
        }
        for d in &app.dnfs.list {
            let live = d.status == crate::layers::dnfs::source::DbStatus::Live;
            let Some(tick) = d.layer.latest.as_ref().filter(|t| live && fresh(t.wall_ms)) else {
                continue;
            };
            let name = |id: u32| {
                d.instances
                    .as_ref()
                    .and_then(|i| i.rows.iter().find(|r| r.inst_id == id))
                    .map_or_else(|| id.to_string(), |r| r.name.clone())
            };
            crate::layers::dnfs::metrics::expose(
                tick,
                &name,
                &mut Gather {
                    by_name: &mut by_name,
                    owner: ("database", &d.target.label),
                },
            );
        }
        self.links(app, now_ms, &mut by_name);
        self.own(app, &mut by_name);
        by_name.into_values().collect()
    }

    /// Each node's, cell's and database's link, and each host layer's
    /// source: up or not, and when it last failed.
    fn links(&mut self, app: &App, now_ms: i64, by_name: &mut BTreeMap<&'static str, Series>) {
        let mut links: Vec<(&'static str, &str, bool)> = Vec::new();
        for n in &app.nodes {
            links.push((
                "node",
                n.link.target.label(),
                n.link.status == HostStatus::Live,
            ));
        }
        for c in &app.cells.list {
            links.push((
                "cell",
                &c.link.target.label,
                c.link.status == HostStatus::Live,
            ));
        }
        for d in &app.dnfs.list {
            links.push((
                "database",
                &d.target.label,
                d.status == crate::layers::dnfs::source::DbStatus::Live,
            ));
        }
        for (kind, target, up) in links {
            let key = (kind.to_string(), target.to_string());
            let labels = [kind, target];
            put(by_name, &LINK_UP, &labels, if up { 1.0 } else { 0.0 });
            if let Some(ms) = self.failure(key, !up, now_ms) {
                put(by_name, &LINK_LAST_ERROR, &labels, ms as f64 / 1000.0);
            }
        }
        // This machine's layers, where it samples them (on its own, or as
        // the node `--node local` names).
        let mut sources: Vec<(&str, LayerId, bool)> = Vec::new();
        let host_layers = LayerId::ALL
            .into_iter()
            .filter(|l| crate::layers::host::is_host_layer(*l));
        let mut hosts: Vec<(&str, &crate::layers::host::HostLayers)> = app
            .nodes
            .iter()
            .map(|n| (n.link.target.label(), &n.layers))
            .collect();
        if app.nodes.is_empty() {
            hosts.push((&app.host.hostname, &app.local));
        }
        for (node, layers) in hosts {
            for layer in host_layers.clone() {
                if let Some(up) = layers.up(layer) {
                    sources.push((node, layer, up));
                }
            }
        }
        for (node, layer, up) in sources {
            let name = layer.def().name;
            let key = (node.to_string(), name.to_string());
            let labels = [node, name];
            put(by_name, &SOURCE_UP, &labels, if up { 1.0 } else { 0.0 });
            if let Some(ms) = self.failure(key, !up, now_ms) {
                put(by_name, &SOURCE_LAST_ERROR, &labels, ms as f64 / 1000.0);
            }
        }
    }

    /// When `key` last started failing, noting that it fails now.
    fn failure(&mut self, key: (String, String), failing: bool, now_ms: i64) -> Option<i64> {
        if failing {
            let since = *self.failing_since.entry(key.clone()).or_insert(now_ms);
            self.failed_at.insert(key.clone(), since);
        } else {
            self.failing_since.remove(&key);
        }
        self.failed_at.get(&key).copied()
    }

    fn own(&self, app: &App, by_name: &mut BTreeMap<&'static str, Series>) {
        if let Some(s) = app.usage.cpu_seconds {
            put(by_name, &PROCESS_CPU, &[], s);
        }
        if let Some(b) = app.usage.rss_bytes {
            put(by_name, &PROCESS_RSS, &[], b as f64);
        }
    }
}

/// A series of strata's own (no host label).
fn put(
    by_name: &mut BTreeMap<&'static str, Series>,
    family: &'static Family,
    labels: &[&str],
    value: f64,
) {
    by_name
        .entry(family.name)
        .or_insert_with(|| Series {
            family,
            samples: Vec::new(),
        })
        .samples
        .push(Sample {
            labels: family
                .labels
                .iter()
                .zip(labels)
                .map(|(k, v)| (*k, (*v).to_string()))
                .collect(),
            value,
        });
}

/// Every family `/metrics` may show, with the labels each series carries
/// first (`node`, `cell`, `database` or none) and the layer it belongs to:
/// docs/metrics.md is made of it.
pub fn catalogue() -> Vec<(Option<LayerId>, &'static str, &'static Family)> {
    let mut out: Vec<(Option<LayerId>, &'static str, &'static Family)> =
        crate::layers::host::families()
            .into_iter()
            .map(|(l, f)| (Some(l), "node", f))
            .collect();
    out.extend(
        crate::layers::cells::metrics::families().map(|f| (Some(LayerId::Cells), "cell", f)),
    );
    out.extend(
        crate::layers::dnfs::metrics::families().map(|f| (Some(LayerId::Dnfs), "database", f)),
    );
    out.extend(families::OWN.iter().map(|f| (None, "", *f)));
    out
}

/// docs/metric-families.md: every family, by layer, as [`catalogue`] has
/// it; a test keeps the page equal to this.
pub fn families_page() -> String {
    let mut out = String::from(
        "# Metric families\n\n\
         Every family `strata serve` and `strata --listen` expose on `/metrics`, made\n\
         from the layers' declarations (`src/layers/*/metrics.rs`,\n\
         `src/expose/families.rs`) by `cargo test`, which fails when this page is\n\
         out of date (`STRATA_BLESS=1 cargo test --lib expose` writes it again).\n\n\
         Counters are the sources' raw counters: `rate()` of them gives the\n\
         figures strata shows. A family marked *node_exporter* has the name, type,\n\
         unit and labels node_exporter gives the same kernel counter, with the\n\
         label `node` (the host it came from) added; `cell` and `database` name a\n\
         storage cell and a database.\n",
    );
    let mut layer: Option<Option<LayerId>> = None;
    for (l, owner, f) in catalogue() {
        if layer != Some(l) {
            layer = Some(l);
            let title = l.map_or("strata itself", |l| l.def().title);
            out.push_str(&format!(
                "\n## {title}\n\n| family | type | unit | labels | node_exporter | source |\n|---|---|---|---|---|---|\n"
            ));
        }
        let labels: Vec<&str> = (!owner.is_empty())
            .then_some(owner)
            .into_iter()
            .chain(f.labels.iter().copied())
            .collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            f.name,
            f.kind.name(),
            if f.unit.is_empty() { "–" } else { f.unit },
            if labels.is_empty() {
                "–".to_string()
            } else {
                labels.join(", ")
            },
            if f.node_exporter { "yes" } else { "–" },
            f.source.replace('|', "\\|"),
        ));
    }
    out
}

#[cfg(test)]
mod tests;

/// The exposition as the server's families. A series the model refuses
/// (none should be: the families are declared and checked by the tests)
/// is left out, not the scrape.
pub fn to_metrics(e: &Exposition) -> crate::metrics::Exposition {
    use crate::layers::metric::MetricType;
    use crate::metrics::{Family, Kind};
    let families: Vec<Family> = e
        .iter()
        .filter_map(|s| {
            let f = s.family;
            let kind = match f.kind {
                MetricType::Counter => Kind::Counter,
                MetricType::Gauge => Kind::Gauge,
                MetricType::Untyped => Kind::Unknown,
            };
            let unit = (!f.unit.is_empty()).then_some(f.unit);
            let mut m = Family::new(f.family_name(), f.help, unit, kind).ok()?;
            for x in &s.samples {
                let labels = x
                    .labels
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), v.clone()))
                    .collect();
                let _ = m.push(labels, x.value);
            }
            Some(m)
        })
        .collect();
    crate::metrics::Exposition::new(families).unwrap_or_default()
}

//! What strata knows of one host's own layers (block devices, kernel NFS,
//! page cache, NICs): the local machine's, and each database node's from
//! its sampler's frames. The same baselines and histories for every host,
//! so a node's panel is the panel the same counters give locally.

use super::input::NodeInput;
use super::link::{Link, LinkState};
use super::state::App;
use crate::layers::host::HostLayers;
use crate::link::target::NodeTarget;
use crate::store::Window;

impl HostLayers {
    /// The host's IOPS (reads and writes a second over its whole disks)
    /// of its last `n` samples, oldest first; NaN where either is unknown.
    pub fn iops_series(&self, n: usize) -> Vec<f32> {
        use crate::layers::disks::model::DiskCol;
        self.totals_series([DiskCol::RPerS, DiskCol::WPerS], n, 1.0)
    }

    /// The host's MB/s (read plus written over its whole disks) of its
    /// last `n` samples, oldest first; NaN where either is unknown.
    pub fn mb_s_series(&self, n: usize) -> Vec<f32> {
        use crate::layers::disks::model::DiskCol;
        self.totals_series([DiskCol::RkBPerS, DiskCol::WkBPerS], n, 1024.0)
    }

    /// The sum of two figures of the host's disk totals, divided by `per`,
    /// over its last `n` samples.
    fn totals_series(
        &self,
        cols: [crate::layers::disks::model::DiskCol; 2],
        n: usize,
        per: f32,
    ) -> Vec<f32> {
        use crate::layers::disks::state::{TOTAL_ENTITY, history_index};
        let series =
            |c| history_index(c).map_or_else(Vec::new, |h| self.disks.series(TOTAL_ENTITY, h, n));
        let (a, b) = (series(cols[0]), series(cols[1]));
        a.iter().zip(&b).map(|(a, b)| (a + b) / per).collect()
    }
}

/// A database node: how it is reached, how its connection stands, and
/// its layers.
#[derive(Debug)]
pub struct NodeState {
    pub link: Link<NodeTarget>,
    /// The name it reports (/proc/sys/kernel/hostname), once its facts
    /// came.
    pub hostname: Option<String>,
    pub layers: HostLayers,
}

impl NodeState {
    pub fn new(target: NodeTarget, capacity: impl Into<Window>) -> Self {
        NodeState {
            link: Link::new(target),
            hostname: None,
            layers: HostLayers::new(&capacity.into()),
        }
    }
}

impl App {
    /// A node's layer sample into its layers, or what it said.
    pub fn ingest_node(&mut self, node: usize, input: &NodeInput) {
        let Some(n) = self.nodes.get_mut(node) else {
            return;
        };
        if let NodeInput::Stderr(t) = input {
            n.link.said(t);
        } else if let Some(sampled_at) = input.apply_to(&mut n.layers) {
            n.link.sampled(sampled_at);
        }
    }
}

/// How a node's row stands on the cluster overview.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeShown {
    /// Sampled within two intervals: its figures are current.
    Live,
    /// Its samples stopped this many seconds ago.
    Stale(u64),
    /// Not connected; the text says why, in a word or two.
    Down(String),
}

/// One node's line of the cluster overview (or the cluster's): its block
/// devices' totals, its NICs, its page cache and its NFS client.
#[derive(Debug, Clone)]
pub struct ClusterRow {
    pub label: String,
    pub shown: NodeShown,
    /// Why a node is not connected, in the transport's whole sentence
    /// without the label the row starts with.
    pub why: Option<String>,
    pub r_s: Option<f64>,
    pub w_s: Option<f64>,
    /// Read plus written, MB/s.
    pub mb_s: Option<f64>,
    pub r_await: Option<f64>,
    pub w_await: Option<f64>,
    /// The busiest device and its %util (on the cluster row, `dev@node`).
    pub busiest: Option<(String, f64)>,
    pub nic_in_mb: Option<f64>,
    pub nic_out_mb: Option<f64>,
    /// Bond warnings now (a slave down, a link at a lower speed, ...).
    pub bond_warnings: usize,
    pub dirty_mb: Option<f64>,
    pub writeback_mb: Option<f64>,
    /// Kernel NFS client operations per second, over all its mounts.
    pub nfs_ops: Option<f64>,
    /// %iowait over all its CPUs, as mpstat's "all".
    pub iowait: Option<f64>,
    /// The share of the interval some task stalled on I/O (sar's %sio).
    pub io_some: Option<f64>,
    /// CPUs counted times the interval (centiseconds): what weighs the
    /// node's %iowait in the cluster's.
    pub cpu_weight: Option<f64>,
    /// The busiest I/O role and process (`ProcState::top`), and the
    /// role's kB read and written a second; on the cluster's row the
    /// busiest node's, `role@node`.
    pub top_io: Option<(String, String, f64)>,
}

impl ClusterRow {
    /// A node's figures from its layers' newest ticks; all unknown unless
    /// it is live.
    fn of(label: &str, (shown, why): (NodeShown, Option<String>), l: &HostLayers) -> ClusterRow {
        use crate::layers::cache::model::CacheCol;
        use crate::layers::cpu::model::{CpuCol, PsiCol, Resource};
        use crate::layers::cpu::state::CpuFig;
        use crate::layers::disks::model::DiskCol;
        use crate::layers::nfs::model::NfsMountCol;
        use crate::layers::nics::model::NicCol;
        let live = shown == NodeShown::Live;
        // A layer that fails keeps its last tick for the screen; its
        // figures are not current.
        let disks = l.disks.tick().filter(|_| live && l.disks.error.is_none());
        let d = |c| disks.and_then(|t| t.total.as_ref()).and_then(|r| r.get(c));
        let nics = l.nics.tick().filter(|_| live && l.nics.error.is_none());
        let n = |c| {
            nics.and_then(|t| t.total.as_ref())
                .and_then(|r| r.get(c))
                .map(|kb| kb / 1024.0)
        };
        let cache = l.cache.tick().filter(|_| live && l.cache.error.is_none());
        let c = |col| cache.and_then(|t| t.figures.get(col)).map(|kb| kb / 1024.0);
        let nfs = l.nfs.tick().filter(|_| live && l.nfs.error.is_none());
        let nfs_ops = nfs.and_then(|t| {
            t.rows
                .iter()
                .map(|r| r.rates.as_ref().and_then(|x| x.get(NfsMountCol::OpsPerS)))
                .sum::<Option<f64>>()
        });
        let cpu = l
            .cpu
            .tick()
            .filter(|_| live && l.cpu.error.is_none())
            .and_then(|t| t.figures.as_ref());
        let cpu_fig = |fig: CpuFig| cpu.and_then(|t| fig.of(t));
        let procs = (live && l.procs.error.is_none()).then_some(&l.procs);
        let top_io = procs.and_then(|p| {
            let (role, process) = p.top()?;
            let t = crate::app::procs::proc_tick(l)?;
            let busy = crate::layers::procs::model::busy(&t.roles.first()?.figures);
            Some((role, process, busy))
        });
        ClusterRow {
            top_io,
            iowait: cpu_fig(CpuFig::All(CpuCol::Iowait)),
            io_some: cpu_fig(CpuFig::Psi(Resource::Io, PsiCol::Some)),
            cpu_weight: cpu.map(|t| t.table.counted as f64 * t.itv_cs as f64),
            label: label.to_string(),
            shown,
            why,
            r_s: d(DiskCol::RPerS),
            w_s: d(DiskCol::WPerS),
            mb_s: d(DiskCol::RkBPerS)
                .zip(d(DiskCol::WkBPerS))
                .map(|(r, w)| (r + w) / 1024.0),
            r_await: d(DiskCol::RAwait),
            w_await: d(DiskCol::WAwait),
            busiest: disks.and_then(|t| t.busiest().cloned()),
            nic_in_mb: n(NicCol::RKbPerS),
            nic_out_mb: n(NicCol::WKbPerS),
            bond_warnings: nics.map_or(0, |t| t.bonds().iter().map(|b| b.warnings.len()).sum()),
            dirty_mb: c(CacheCol::Dirty),
            writeback_mb: c(CacheCol::Writeback),
            nfs_ops,
        }
    }

    /// The cluster's line: sums over the live nodes that know the figure
    /// (a node's first interval, a layer it lacks), awaits weighted by each
    /// node's I/O (as the kernel's own await is), the busiest device of
    /// all; `None` for a figure no live node knows.
    fn total(rows: &[ClusterRow]) -> ClusterRow {
        let live: Vec<&ClusterRow> = rows.iter().filter(|r| r.shown == NodeShown::Live).collect();
        let sum = |f: fn(&ClusterRow) -> Option<f64>| {
            let known: Vec<f64> = live.iter().filter_map(|r| f(r)).collect();
            (!known.is_empty()).then(|| known.iter().sum::<f64>())
        };
        let weighted = |ios: fn(&ClusterRow) -> Option<f64>,
                        wait: fn(&ClusterRow) -> Option<f64>| {
            let both: Vec<(f64, f64)> = live
                .iter()
                .filter_map(|r| Some((ios(r)?, wait(r)?)))
                .collect();
            let n: f64 = both.iter().map(|(n, _)| n).sum();
            let waited: f64 = both.iter().map(|(n, w)| n * w).sum();
            (!both.is_empty()).then_some(if n > 0.0 { waited / n } else { 0.0 })
        };
        let busiest = live
            .iter()
            .filter_map(|r| {
                r.busiest
                    .as_ref()
                    .map(|(d, u)| (format!("{d}@{}", r.label), *u))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let top_io = live
            .iter()
            .filter_map(|r| {
                let (role, process, busy) = r.top_io.as_ref()?;
                Some((format!("{role}@{}", r.label), process.clone(), *busy))
            })
            .max_by(|a, b| a.2.total_cmp(&b.2));
        let label = if live.len() == rows.len() {
            "cluster".to_string()
        } else {
            format!("cluster ({} of {})", live.len(), rows.len())
        };
        ClusterRow {
            label,
            shown: NodeShown::Live,
            why: None,
            r_s: sum(|r| r.r_s),
            w_s: sum(|r| r.w_s),
            mb_s: sum(|r| r.mb_s),
            r_await: weighted(|r| r.r_s, |r| r.r_await),
            w_await: weighted(|r| r.w_s, |r| r.w_await),
            busiest,
            nic_in_mb: sum(|r| r.nic_in_mb),
            nic_out_mb: sum(|r| r.nic_out_mb),
            bond_warnings: live.iter().map(|r| r.bond_warnings).sum(),
            dirty_mb: sum(|r| r.dirty_mb),
            writeback_mb: sum(|r| r.writeback_mb),
            nfs_ops: sum(|r| r.nfs_ops),
            // each node's share of its CPUs' time, weighed by how much
            // CPU time it had: the share of the cluster's, as mpstat's
            // "all" is of a host's
            iowait: weighted(|r| r.cpu_weight, |r| r.iowait),
            // a stall share has no sum over hosts
            io_some: None,
            cpu_weight: sum(|r| r.cpu_weight),
            top_io,
        }
    }
}

impl NodeState {
    /// How its row stands at `now_ms`.
    pub fn shown(&self, now_ms: i64, interval_ms: i64) -> NodeShown {
        match self.link.state(now_ms, interval_ms) {
            LinkState::Live => NodeShown::Live,
            LinkState::Stale(s) => NodeShown::Stale(s),
            LinkState::Connecting => NodeShown::Down("connecting".into()),
            LinkState::AuthFailed(_) => NodeShown::Down("login refused".into()),
            LinkState::HostKeyRefused(_) => NodeShown::Down("host key refused".into()),
            LinkState::Unreachable(_) => NodeShown::Down("unreachable".into()),
            LinkState::NeedsPassphrase(_) => NodeShown::Down("needs passphrase".into()),
        }
    }

    /// Why it is not connected at `now_ms`, in the transport's words,
    /// for a line its label already leads.
    pub fn why(&self, now_ms: i64, interval_ms: i64) -> Option<String> {
        let why = self.link.state(now_ms, interval_ms).reason()?;
        Some(super::link::reason_after_label(self.link.target.label(), &why).to_string())
    }
}

impl App {
    /// The cluster overview's rows, a node each in the order given, and
    /// the cluster's.
    pub fn cluster_rows(&self) -> (Vec<ClusterRow>, ClusterRow) {
        let interval_ms = self.interval.ms();
        let rows: Vec<ClusterRow> = self
            .nodes
            .iter()
            .map(|n| {
                let shown = n.shown(self.now_ms, interval_ms);
                let why = n.why(self.now_ms, interval_ms);
                ClusterRow::of(n.link.target.label(), (shown, why), &n.layers)
            })
            .collect();
        let total = ClusterRow::total(&rows);
        (rows, total)
    }
}

/// The cluster's disk figures over the window, on the shared time axis:
/// every node samples at the same wall-clock boundaries, so a column of a
/// node's chart is the same second as that column of any other's, and the
/// cluster's value there is the sum of theirs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClusterSeries {
    /// The boundaries, oldest first, an interval apart.
    pub times: Vec<i64>,
    /// Each node's IOPS at those boundaries, in the nodes' order; NaN where
    /// it has no sample.
    pub node_iops: Vec<Vec<f32>>,
    /// Each node's MB/s, as `node_iops`.
    pub node_mb_s: Vec<Vec<f32>>,
    /// The sum of the nodes' IOPS that are known at each boundary; NaN
    /// where none is (a gap, not a zero).
    pub iops: Vec<f32>,
    /// The sum of the nodes' MB/s, as `iops`.
    pub mb_s: Vec<f32>,
}

/// A host's samples (`values` aligned on the newest of `times`) put at
/// the boundaries `first`, `first + interval_ms`, ... (`n` of them); NaN
/// where it has none.
fn on_boundaries(
    times: &[i64],
    values: &[f32],
    first: i64,
    n: usize,
    interval_ms: i64,
) -> Vec<f32> {
    let mut out = vec![f32::NAN; n];
    let skip = times.len().saturating_sub(values.len());
    for (t, v) in times.iter().skip(skip).zip(values) {
        let k = (crate::core::boundary::nearest(*t, interval_ms) - first).div_euclid(interval_ms);
        if let Some(slot) = usize::try_from(k).ok().and_then(|k| out.get_mut(k)) {
            *slot = *v;
        }
    }
    out
}

/// At each boundary, the sum of the series known there; NaN where none is.
fn sum_known(series: &[Vec<f32>], n: usize) -> Vec<f32> {
    (0..n)
        .map(|k| {
            let known = series
                .iter()
                .filter_map(|s| s.get(k))
                .filter(|v| v.is_finite());
            known.fold(f32::NAN, |sum, v| if sum.is_nan() { *v } else { sum + v })
        })
        .collect()
}

impl App {
    /// The cluster's IOPS and MB/s over the window, and each node's, on
    /// the shared boundaries. The window ends at the newest boundary every
    /// current node has sampled: a node's frame may come a moment after
    /// another's, and a sum made before it came would dip for nothing.
    pub fn cluster_series(&self) -> ClusterSeries {
        let iv = self.interval.ms();
        let at = |t: i64| crate::core::boundary::nearest(t, iv);
        let cap = self.local.disks.history.capacity();
        let times: Vec<Vec<i64>> = self
            .nodes
            .iter()
            .map(|n| n.layers.disks.series_times(cap))
            .collect();
        // Each node's newest boundary, and whether it is current.
        let ends: Vec<(bool, i64)> = self
            .nodes
            .iter()
            .zip(&times)
            .filter_map(|(n, t)| Some((n.link.is_current(self.now_ms, iv), at(*t.last()?))))
            .collect();
        let current = ends.iter().filter(|e| e.0).map(|e| e.1).min();
        let Some(last) = current.or_else(|| ends.iter().map(|e| e.1).max()) else {
            return ClusterSeries::default();
        };
        let oldest = times.iter().filter_map(|t| t.first().map(|t| at(*t))).min();
        let first = oldest
            .unwrap_or(last)
            .clamp(last - (cap.max(1) as i64 - 1) * iv, last);
        let n = ((last - first) / iv + 1) as usize;
        let align = |values: Vec<Vec<f32>>| -> Vec<Vec<f32>> {
            times
                .iter()
                .zip(&values)
                .map(|(t, v)| on_boundaries(t, v, first, n, iv))
                .collect()
        };
        let node_iops = align(
            self.nodes
                .iter()
                .map(|n| n.layers.iops_series(cap))
                .collect(),
        );
        let node_mb_s = align(
            self.nodes
                .iter()
                .map(|n| n.layers.mb_s_series(cap))
                .collect(),
        );
        ClusterSeries {
            times: (0..n as i64).map(|k| first + k * iv).collect(),
            iops: sum_known(&node_iops, n),
            mb_s: sum_known(&node_mb_s, n),
            node_iops,
            node_mb_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::core::host::HostInfo;
    use crate::layers::disks::source::DiskSample;
    use crate::layers::disks::state::{DISK_HISTORY, TOTAL_ENTITY, push_disk_history};
    use crate::theme::Theme;
    use std::collections::BTreeMap;

    const BASE: i64 = 1_795_000_000_000;

    /// A node's disk totals at `wall_ms`: r/s, w/s, rkB/s, wkB/s.
    fn push(app: &mut App, node: usize, wall_ms: i64, r: f32, w: f32) {
        let vals = [Some(r), Some(w), Some(r * 8.0), Some(w * 16.0)];
        let n = &mut app.nodes[node];
        n.layers
            .disks
            .history
            .push(wall_ms, [(TOTAL_ENTITY, &vals[..])]);
        n.link.last_sample_ms = Some(wall_ms);
    }

    fn app(nodes: usize) -> App {
        let host = HostInfo {
            hostname: "jump".into(),
            kernel: "6.1".into(),
        };
        let mut app = App::new(
            Config::default(),
            Theme::default(),
            host,
            crate::core::duration::Interval::ONE_SECOND,
        );
        let targets = (0..nodes)
            .map(|i| NodeTarget::Local {
                label: format!("db{i}"),
            })
            .collect();
        app.set_nodes(targets);
        app
    }

    /// Devices and interfaces renamed all along (12 new names a second of
    /// each, every one living 2 s), locally and on a node, under a history
    /// of a minute: every map of their layers holds the names of the last
    /// minute or so, not of the ten it ran. Before, the baselines kept
    /// every name for an hour (7200 of each here).
    #[test]
    fn a_churning_host_holds_only_the_names_of_its_window() {
        use crate::app::input::{Input, NodeInput};
        use crate::layers::disks::diskstats::DiskCounters;
        use crate::layers::nics::netdev::NetDevCounters;
        use crate::layers::nics::source::{NicReading, NicSample};
        let mut app = App::new(
            Config {
                history_secs: 60,
                ..Config::default()
            },
            Theme::default(),
            HostInfo::default(),
            crate::core::duration::Interval::ONE_SECOND,
        );
        app.set_nodes(vec![NodeTarget::Local {
            label: "db0".into(),
        }]);
        // name k of second s: 12 new a second, each in two samples
        let names = |s: u64, prefix: &str| -> Vec<(String, u64)> {
            (0..24)
                .map(|j| (format!("{prefix}{}", (s - j % 2) * 12 + j / 2), s * 10 + j))
                .collect()
        };
        for s in 1..=600u64 {
            let (uptime_cs, wall_ms) = (s * 100, BASE + s as i64 * 1000);
            let disks = DiskSample {
                uptime_cs,
                wall_ms,
                devices: names(s, "sd")
                    .into_iter()
                    .map(|(name, ios)| DiskCounters {
                        name,
                        rd_ios: ios,
                        ..Default::default()
                    })
                    .collect(),
                rejected: Vec::new(),
                catalogue: Default::default(),
            };
            let nics = NicSample {
                uptime_cs,
                wall_ms,
                nics: names(s, "veth")
                    .into_iter()
                    .map(|(name, bytes)| NicReading {
                        counters: NetDevCounters::from_values(&name, [bytes; 16]),
                        link: Default::default(),
                    })
                    .collect(),
                bonds: Vec::new(),
                routes: Vec::new(),
                rejected: Vec::new(),
                catalogue: Default::default(),
            };
            app.ingest_node(0, &NodeInput::Disks(Ok(disks.clone())));
            app.ingest_node(0, &NodeInput::Nics(Ok(nics.clone())));
            app.apply(Input::Disks(Ok(disks)));
            app.apply(Input::Nics(Ok(nics)));
        }
        // A minute's names of each layer (12 a second), the 24 alive and
        // the totals: charts and baselines, disks and NICs.
        let most = 4 * (61 * 12 + 24) + 2;
        for (host, l) in [("local", &app.local), ("db0", &app.nodes[0].layers)] {
            let each = [
                l.disks.history.entity_count(),
                l.disks.baseline.names_held(),
                l.nics.history.entity_count(),
                l.nics.baseline.names_held(),
            ];
            assert!(
                each.iter().all(|n| (700..=800).contains(n)),
                "{host}: {each:?}"
            );
            assert!(l.names_held() <= most, "{host}: {}", l.names_held());
        }
    }

    #[test]
    fn a_budget_that_runs_out_on_the_devices_keeps_the_totals_history() {
        use crate::layers::disks::tick::{DiskRow, DiskTick};
        use crate::store::{Budget, Window};
        // 4 ticks of 8 figures: 128 bytes an entity; room for two
        let budget = Budget::new(256);
        let window = Window {
            budget: budget.clone(),
            ..Window::from(4)
        };
        let mut layer = crate::layers::layer::Layer::new(&window, DISK_HISTORY.len());
        let row = DiskRow::named;
        let tick = DiskTick {
            wall_ms: BASE,
            rows: vec![row("sda"), row("sdb"), row("sdc")],
            ..DiskTick::default()
        };
        push_disk_history(&mut layer, &tick, &[("DISK", [Some(1.0); 8])]);
        let h = &layer.history;
        assert!(budget.ran_out());
        assert!(!h.refused(TOTAL_ENTITY) && !h.refused("DISK"));
        assert!(h.refused("sda") && h.refused("sdc"));
    }

    #[test]
    fn the_clusters_series_sums_the_nodes_by_boundary_and_leaves_gaps() {
        let mut app = app(3);
        for s in 0..=11i64 {
            let b = BASE + s * 1000;
            // db0 wakes 3 ms late, db1 4 ms early and from the 2nd second;
            // neither sampled the 6th; db2 stopped after the 3rd.
            if s != 6 {
                push(&mut app, 0, b + 3, 100.0 + s as f32, 10.0);
            }
            if (2..=10).contains(&s) && s != 6 {
                push(&mut app, 1, b - 4, 50.0 * s as f32, 5.0);
            }
            if s <= 3 {
                push(&mut app, 2, b + 1, 7.0, 1.0);
            }
        }
        app.now_ms = BASE + 11_000 + 200;
        let c = app.cluster_series();
        // db1 has not sent the 11th yet: the window ends at the 10th.
        let want: Vec<i64> = (0..=10).map(|s| BASE + s * 1000).collect();
        assert_eq!(c.times, want);
        // Each node's own series, put at the nearest boundary and summed.
        let mut iops: BTreeMap<i64, f32> = BTreeMap::new();
        let mut mb: BTreeMap<i64, f32> = BTreeMap::new();
        for n in &app.nodes {
            let t = n.layers.disks.series_times(100);
            let at = |t: &i64| (t + 500).div_euclid(1000) * 1000;
            for (t, v) in t.iter().zip(n.layers.iops_series(100)) {
                *iops.entry(at(t)).or_default() += v;
            }
            for (t, v) in t.iter().zip(n.layers.mb_s_series(100)) {
                *mb.entry(at(t)).or_default() += v;
            }
        }
        for (k, t) in c.times.iter().enumerate() {
            match iops.get(t) {
                Some(v) => {
                    assert_eq!(c.iops[k], *v, "IOPS at {t}");
                    assert_eq!(c.mb_s[k], mb[t], "MB/s at {t}");
                }
                None => assert!(c.iops[k].is_nan() && c.mb_s[k].is_nan(), "a gap at {t}"),
            }
        }
        assert!(c.iops[6].is_nan(), "no node sampled the 6th");
        assert_eq!(c.iops[0], 100.0 + 10.0 + 8.0);
        assert_eq!(c.iops[4], 114.0 + 205.0);
        assert_eq!(
            c.mb_s[4],
            (104.0 * 8.0 + 160.0) / 1024.0 + (200.0 * 8.0 + 80.0) / 1024.0
        );
        // each node's own on the same columns
        assert!(c.node_iops[1][..2].iter().all(|v| v.is_nan()));
        assert_eq!(c.node_iops[1][2], 105.0);
        assert_eq!(c.node_iops[2][3], 8.0);
        assert!(c.node_iops[2][4].is_nan());
    }
}

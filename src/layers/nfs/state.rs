//! What a host keeps of its kernel NFS mounts: the newest tick, each
//! mount's charted figures (the NFS table's) and the counters the next
//! sample is diffed against.

use super::model::{NfsMountCol, NfsOpCol};
use super::source::{NfsSample, NfsSource};
use super::tick::{NfsBaseline, NfsOpRow, NfsRow, NfsTick};
use crate::core::rootfs::RootFs;
use crate::layers::LayerId;
use crate::layers::host::{HostLayer, HostOptions, HostState, ReportOptions};
use crate::layers::layer::Layer;
use crate::layers::nfs::report::NfsReport;
use crate::layers::report::{Report, latency};
use crate::store::Window;

/// A figure of the NFS table: a mount's own, or one of an operation's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NfsFig {
    Mount(NfsMountCol),
    Op(&'static str, NfsOpCol),
}

/// The NFS panel's figure columns, in order: what a user of nfsiostat
/// reads first, for both directions.
pub const NFS_TABLE: [(NfsFig, &str); 10] = [
    (NfsFig::Mount(NfsMountCol::OpsPerS), "ops/s"),
    (NfsFig::Mount(NfsMountCol::RpcBklog), "bklog"),
    (NfsFig::Op("READ", NfsOpCol::OpsPerS), "rd ops/s"),
    (NfsFig::Op("READ", NfsOpCol::KBPerS), "rd kB/s"),
    (NfsFig::Op("READ", NfsOpCol::AvgRttMs), "rd RTT"),
    (NfsFig::Op("READ", NfsOpCol::AvgExeMs), "rd exe"),
    (NfsFig::Op("WRITE", NfsOpCol::OpsPerS), "wr ops/s"),
    (NfsFig::Op("WRITE", NfsOpCol::KBPerS), "wr kB/s"),
    (NfsFig::Op("WRITE", NfsOpCol::AvgRttMs), "wr RTT"),
    (NfsFig::Op("WRITE", NfsOpCol::AvgExeMs), "wr exe"),
];

/// A mount's history holds the panel's figures, in its order.
pub const NFS_HISTORY: usize = NFS_TABLE.len();

pub fn op<'a>(row: &'a NfsRow, name: &str) -> Option<&'a NfsOpRow> {
    row.ops.iter().find(|o| o.name == name)
}

pub fn nfs_figure(row: &NfsRow, fig: NfsFig) -> Option<f64> {
    match fig {
        NfsFig::Mount(c) => row.rates.as_ref()?.get(c),
        NfsFig::Op(name, c) => op(row, name)?.rates.as_ref()?.get(c),
    }
}

crate::layers::sampler!(NfsSource => NfsSample);

/// The kernel NFS client layer of a host.
#[derive(Debug)]
pub struct Host;

impl HostLayer for Host {
    const ID: LayerId = LayerId::Nfs;
    type Sample = NfsSample;
    type Source = NfsSource;
    fn families() -> Vec<&'static crate::layers::metric::Family> {
        super::metrics::families().collect()
    }
    fn expose(sample: &NfsSample, sink: &mut dyn crate::layers::metric::Sink) {
        super::metrics::expose(&sample.mounts, sink);
    }
    type State = NfsState;
    const NODE_FILES: &'static [&'static str] = &["/proc/self/mountstats", "/proc/self/mountinfo"];

    fn source(fs: RootFs, _: &HostOptions) -> NfsSource {
        NfsSource::new(fs)
    }

    type Tick = NfsTick;
    type Baseline = NfsBaseline;

    fn tick(baseline: &mut NfsBaseline, sample: &NfsSample) -> NfsTick {
        baseline.tick(sample)
    }

    fn itv_cs(tick: &NfsTick) -> Option<u64> {
        tick.itv_cs
    }

    fn tick_ms(tick: &NfsTick) -> i64 {
        tick.wall_ms
    }

    fn print(tick: &NfsTick, how: &ReportOptions, _: &mut bool) -> String {
        super::report::report(how.format, tick)
    }

    fn csv_header(_: &ReportOptions) -> String {
        super::report::csv_header()
    }

    /// Each mount, as it is seen.
    fn summarize(tick: Option<&NfsTick>, put: &mut dyn FnMut(&str, &'static str, Option<f64>)) {
        const FIGS: [(&str, NfsFig, f64); 5] = [
            ("ops/s", NfsFig::Mount(NfsMountCol::OpsPerS), 1.0),
            ("rMB/s", NfsFig::Op("READ", NfsOpCol::KBPerS), 1024.0),
            ("wMB/s", NfsFig::Op("WRITE", NfsOpCol::KBPerS), 1024.0),
            ("r RTT ms", NfsFig::Op("READ", NfsOpCol::AvgRttMs), 1.0),
            ("w RTT ms", NfsFig::Op("WRITE", NfsOpCol::AvgRttMs), 1.0),
        ];
        for r in tick.iter().flat_map(|t| &t.rows) {
            let entity = super::tick::mount_label(r);
            for (name, fig, div) in FIGS {
                let v = match fig {
                    NfsFig::Op(op, NfsOpCol::AvgRttMs) => latency(
                        nfs_figure(r, fig),
                        nfs_figure(r, NfsFig::Op(op, NfsOpCol::OpsPerS)),
                    ),
                    _ => nfs_figure(r, fig).map(|v| v / div),
                };
                put(&entity, name, v);
            }
        }
    }

    fn report(fs: RootFs, _: &HostOptions, how: &ReportOptions) -> Box<dyn Report> {
        Box::new(NfsReport::new(NfsSource::new(fs), how.format))
    }

    fn wall_ms(sample: &NfsSample) -> i64 {
        sample.wall_ms
    }
}

/// A host's NFS mounts; history holds the NFS table's figures per mount.
#[derive(Debug)]
pub struct NfsState {
    layer: Layer<NfsTick>,
    pub baseline: NfsBaseline,
}

crate::layers::host::layer_state!(NfsState, NfsTick);

impl HostState for NfsState {
    crate::layers::host::layer_field!();
    type Tick = NfsTick;
    type Sample = NfsSample;

    fn new(window: &Window) -> Self {
        NfsState {
            layer: Layer::new(window, NFS_HISTORY),
            baseline: NfsBaseline::forgetting_after(window.forget_cs),
        }
    }

    /// Takes a sample of /proc/self/mountstats.
    fn ingest(&mut self, sample: &NfsSample) {
        let tick = self.baseline.tick(sample);
        let spans = tick.itv_cs.is_some();
        self.layer
            .take(spans, tick, &sample.rejected, |layer, tick| {
                let rows: Vec<(&str, [Option<f32>; NFS_HISTORY])> = tick
                    .rows
                    .iter()
                    .map(|r| {
                        let v = std::array::from_fn(|i| {
                            nfs_figure(r, NFS_TABLE[i].0).map(|x| x as f32)
                        });
                        (r.key.as_str(), v)
                    })
                    .collect();
                layer
                    .history
                    .push(tick.wall_ms, rows.iter().map(|(n, v)| (*n, &v[..])));
            });
    }

    fn baseline_names(&self) -> usize {
        self.baseline.names_held()
    }
}

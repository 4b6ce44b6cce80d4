//! What a host keeps of its interfaces: the newest tick (with the bonds),
//! each interface's charted figures (the NIC table's) and the wire total,
//! its routes, and the counters the next sample is diffed against.

use super::model::{NicCol, NicRates};
use super::route::Route;
use super::source::{NicKind, NicSample, NicSource};
use super::tick::NicRow;
use super::tick::{NicBaseline, NicTick};
use crate::core::rootfs::RootFs;
use crate::layers::LayerId;
use crate::layers::host::{HostLayer, HostOptions, HostState, ReportOptions};
use crate::layers::layer::Layer;
use crate::layers::nics::report::NicReport;
use crate::layers::report::Report;
use crate::store::Window;

/// A figure of the NIC table: one of nicstat's, or errors or drops of
/// both directions together (each direction is in the detail view).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NicFig {
    Col(NicCol),
    Errors,
    Drops,
}

impl NicFig {
    /// The column's header: nicstat's, from the layer's table, or one of
    /// the two sums.
    pub fn header(self) -> &'static str {
        match self {
            NicFig::Col(c) => c.def().header,
            NicFig::Errors => "errs/s",
            NicFig::Drops => "drops/s",
        }
    }
}

/// The NIC panel's figure columns, in order.
pub const NIC_TABLE: [NicFig; 12] = [
    NicFig::Col(NicCol::RKbPerS),
    NicFig::Col(NicCol::WKbPerS),
    NicFig::Col(NicCol::RPkPerS),
    NicFig::Col(NicCol::WPkPerS),
    NicFig::Col(NicCol::RAvs),
    NicFig::Col(NicCol::WAvs),
    NicFig::Col(NicCol::Util),
    NicFig::Col(NicCol::Sat),
    NicFig::Col(NicCol::RUtil),
    NicFig::Col(NicCol::WUtil),
    NicFig::Errors,
    NicFig::Drops,
];

/// An interface's history holds the panel's figures, in its order.
pub const NIC_HISTORY: usize = NIC_TABLE.len();

/// The history entity that holds the physical interfaces' total.
pub const WIRE_ENTITY: &str = "\u{2211}wire";

pub fn nic_figure(rates: Option<&NicRates>, fig: NicFig) -> Option<f64> {
    let r = rates?;
    let both = |a, b| Some(r.get(a)? + r.get(b)?);
    match fig {
        NicFig::Col(c) => r.get(c),
        NicFig::Errors => both(NicCol::RErrPerS, NicCol::WErrPerS),
        NicFig::Drops => both(NicCol::RDropPerS, NicCol::WDropPerS),
    }
}

/// Index in [`NIC_TABLE`] (and so in history) of a figure.
pub fn nic_index(fig: NicFig) -> usize {
    NIC_TABLE.iter().position(|f| *f == fig).unwrap_or(0)
}

/// Whether the panel lists an interface: by default, as nicstat, those
/// that have seen a packet, and not the host's own plumbing (loopback,
/// veths, tunnels); `a` shows them all.
pub fn nic_listed(r: &NicRow, all: bool) -> bool {
    all || (r.shown(false)
        && !matches!(
            r.kind(),
            NicKind::Loopback | NicKind::Veth | NicKind::Virtual
        ))
}

crate::layers::sampler!(NicSource => NicSample);

/// The NIC layer of a host.
#[derive(Debug)]
pub struct Host;

impl HostLayer for Host {
    const ID: LayerId = LayerId::Nics;
    type Sample = NicSample;
    type Source = NicSource;
    fn families() -> Vec<&'static crate::layers::metric::Family> {
        super::metrics::families().collect()
    }
    fn expose(sample: &NicSample, sink: &mut dyn crate::layers::metric::Sink) {
        super::metrics::expose(&sample.nics, &sample.bonds, sink);
    }
    type State = NicState;
    const NODE_FILES: &'static [&'static str] = &["/proc/net/dev", "/proc/net/route"];

    fn source(fs: RootFs, _: &HostOptions) -> NicSource {
        NicSource::new(fs)
    }

    type Tick = NicTick;
    type Baseline = NicBaseline;

    fn tick(baseline: &mut NicBaseline, sample: &NicSample) -> NicTick {
        baseline.tick(sample)
    }

    fn itv_cs(tick: &NicTick) -> Option<u64> {
        tick.itv_cs
    }

    fn tick_ms(tick: &NicTick) -> i64 {
        tick.wall_ms
    }

    fn print(tick: &NicTick, how: &ReportOptions, _: &mut bool) -> String {
        super::report::report(how.format, tick, how.all_interfaces)
    }

    fn csv_header(_: &ReportOptions) -> String {
        super::report::csv_header()
    }

    /// The physical total, and each interface the panel lists.
    fn summarize(tick: Option<&NicTick>, put: &mut dyn FnMut(&str, &'static str, Option<f64>)) {
        let mb = |v: Option<f64>| v.map(|v| v / 1024.0);
        let total = tick.and_then(|t| t.total.as_ref());
        let fig = |col| nic_figure(total, NicFig::Col(col));
        put("physical", "in MB/s", mb(fig(NicCol::RKbPerS)));
        put("physical", "out MB/s", mb(fig(NicCol::WKbPerS)));
        put("physical", "in pk/s", fig(NicCol::RPkPerS));
        put("physical", "out pk/s", fig(NicCol::WPkPerS));
        for r in tick
            .iter()
            .flat_map(|t| &t.rows)
            .filter(|r| nic_listed(r, false))
        {
            let fig = |col| nic_figure(r.rates.as_ref(), NicFig::Col(col));
            put(&r.name, "in MB/s", mb(fig(NicCol::RKbPerS)));
            put(&r.name, "out MB/s", mb(fig(NicCol::WKbPerS)));
            put(&r.name, "%util", fig(NicCol::Util));
        }
    }

    fn report(fs: RootFs, _: &HostOptions, how: &ReportOptions) -> Box<dyn Report> {
        Box::new(NicReport::new(
            NicSource::new(fs),
            how.format,
            how.all_interfaces,
        ))
    }

    fn wall_ms(sample: &NicSample) -> i64 {
        sample.wall_ms
    }
}

/// A host's interfaces and bonds; history holds the NIC table's figures
/// per interface and the wire total.
#[derive(Debug)]
pub struct NicState {
    layer: Layer<NicTick>,
    pub baseline: NicBaseline,
    /// The host's IPv4 routes as the NIC source last read them.
    pub routes: Vec<Route>,
}

crate::layers::host::layer_state!(NicState, NicTick);

impl HostState for NicState {
    crate::layers::host::layer_field!();
    type Tick = NicTick;
    type Sample = NicSample;

    fn new(window: &Window) -> Self {
        NicState {
            layer: Layer::new(window, NIC_HISTORY),
            baseline: NicBaseline::forgetting_after(window.forget_cs),
            routes: Vec::new(),
        }
    }

    /// Takes a sample of /proc/net/dev, /sys/class/net and the bonds.
    fn ingest(&mut self, sample: &NicSample) {
        let tick = self.baseline.tick(sample);
        if self.routes != sample.routes {
            self.routes.clone_from(&sample.routes);
        }
        let spans = tick.itv_cs.is_some();
        self.layer
            .take(spans, tick, &sample.rejected, |layer, tick| {
                let hist = |r: Option<&NicRates>| -> [Option<f32>; NIC_HISTORY] {
                    std::array::from_fn(|i| nic_figure(r, NIC_TABLE[i]).map(|v| v as f32))
                };
                let rows: Vec<(&str, [Option<f32>; NIC_HISTORY])> = tick
                    .rows
                    .iter()
                    .map(|r| (r.name.as_str(), hist(r.rates.as_ref())))
                    .collect();
                let total = hist(tick.total.as_ref());
                layer.history.push(
                    tick.wall_ms,
                    rows.iter()
                        .map(|(n, v)| (*n, &v[..]))
                        .chain(std::iter::once((WIRE_ENTITY, &total[..]))),
                );
            });
    }

    fn baseline_names(&self) -> usize {
        self.baseline.names_held()
    }
}

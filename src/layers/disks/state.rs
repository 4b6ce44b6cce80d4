//! What a host keeps of its block devices: the newest tick, each device's
//! charted figures and the counters the next sample is diffed against.

use super::model::{DiskCol, DiskRates};
use super::source::{DiskSample, DiskSource};
use super::tick::{Baseline, DiskRow, DiskTick};
use crate::core::rootfs::RootFs;
use crate::layers::LayerId;
use crate::layers::disks::report::DiskReport;
use crate::layers::host::{HostLayer, HostOptions, HostState, ReportOptions};
use crate::layers::layer::Layer;
use crate::layers::report::{Report, latency};
use crate::store::Window;

/// The metrics of a device kept in history for charts, in this order.
pub const DISK_HISTORY: [DiskCol; 8] = [
    DiskCol::RPerS,
    DiskCol::WPerS,
    DiskCol::RkBPerS,
    DiskCol::WkBPerS,
    DiskCol::RAwait,
    DiskCol::WAwait,
    DiskCol::AquSz,
    DiskCol::Util,
];

/// The history entity that holds the host's disk totals; its %util slot
/// holds the busiest device's %util.
pub const TOTAL_ENTITY: &str = "\u{2211}total";

pub fn history_index(col: DiskCol) -> Option<usize> {
    DISK_HISTORY.iter().position(|c| *c == col)
}

/// Pushes a disk tick's charted figures into its layer's history: each
/// device's, the total's (whose %util is the busiest device's), and
/// `extra` entities of the same tick (a cell's DISK and FLASH groups).
pub fn push_disk_history(
    layer: &mut Layer<DiskTick>,
    tick: &DiskTick,
    extra: &[(&str, [Option<f32>; 8])],
) {
    let hist = |rates: Option<&DiskRates>| -> [Option<f32>; 8] {
        std::array::from_fn(|i| rates.and_then(|r| r.get(DISK_HISTORY[i])).map(|v| v as f32))
    };
    let rows: Vec<(&str, [Option<f32>; 8])> = tick
        .rows
        .iter()
        .map(|r| (r.name.as_str(), hist(r.rates.as_ref())))
        .collect();
    let mut total = hist(tick.total.as_ref());
    if let Some(i) = history_index(DiskCol::Util) {
        total[i] = tick.busiest().map(|(_, u)| *u as f32);
    }
    // The total and the groups first: a budget handed out in push order
    // would otherwise run out on the devices and leave the overview's
    // totals without history.
    layer.history.push(
        tick.wall_ms,
        std::iter::once((TOTAL_ENTITY, &total[..]))
            .chain(extra.iter().map(|(n, v)| (*n, &v[..])))
            .chain(rows.iter().map(|(n, v)| (*n, &v[..]))),
    );
}

crate::layers::sampler!(DiskSource => DiskSample);

/// The block-device layer of a host.
#[derive(Debug)]
pub struct Host;

impl HostLayer for Host {
    const ID: LayerId = LayerId::Disks;
    type Sample = DiskSample;
    type Source = DiskSource;
    fn families() -> Vec<&'static crate::layers::metric::Family> {
        super::metrics::families().collect()
    }
    fn expose(sample: &DiskSample, sink: &mut dyn crate::layers::metric::Sink) {
        super::metrics::expose(sample, sink);
    }
    type State = DiskState;
    const NODE_FILES: &'static [&'static str] = &["/proc/diskstats"];

    fn source(fs: RootFs, _: &HostOptions) -> DiskSource {
        DiskSource::new(fs)
    }

    type Tick = DiskTick;
    type Baseline = Baseline;

    fn tick(baseline: &mut Baseline, sample: &DiskSample) -> DiskTick {
        baseline.tick(sample)
    }

    fn itv_cs(tick: &DiskTick) -> Option<u64> {
        tick.itv_cs
    }

    fn tick_ms(tick: &DiskTick) -> i64 {
        tick.wall_ms
    }

    fn print(tick: &DiskTick, how: &ReportOptions, _: &mut bool) -> String {
        super::report::report(how.format, tick, how.selection, how.units)
    }

    fn csv_header(how: &ReportOptions) -> String {
        super::report::csv_header(how.units)
    }

    /// The totals, and the busiest device's %util.
    fn summarize(tick: Option<&DiskTick>, put: &mut dyn FnMut(&str, &'static str, Option<f64>)) {
        const FIGS: [(&str, DiskCol, f64); 6] = [
            ("r/s", DiskCol::RPerS, 1.0),
            ("w/s", DiskCol::WPerS, 1.0),
            ("rMB/s", DiskCol::RkBPerS, 1024.0),
            ("wMB/s", DiskCol::WkBPerS, 1024.0),
            ("r_await ms", DiskCol::RAwait, 1.0),
            ("w_await ms", DiskCol::WAwait, 1.0),
        ];
        let total = tick.and_then(|t| t.total.as_ref());
        let get = |col| total.and_then(|r| r.get(col));
        for (name, col, div) in FIGS {
            let v = match col {
                DiskCol::RAwait => latency(get(col), get(DiskCol::RPerS)),
                DiskCol::WAwait => latency(get(col), get(DiskCol::WPerS)),
                _ => get(col).map(|v| v / div),
            };
            put("total", name, v);
        }
        let busiest = tick.and_then(|t| t.busiest()).map(|b| b.1);
        put("busiest device", "%util", busiest);
    }

    fn report(fs: RootFs, _: &HostOptions, how: &ReportOptions) -> Box<dyn Report> {
        Box::new(DiskReport::new(
            DiskSource::new(fs),
            how.format,
            how.units,
            how.selection,
        ))
    }

    fn wall_ms(sample: &DiskSample) -> i64 {
        sample.wall_ms
    }

    fn reject(sample: &mut DiskSample, lines: &mut Vec<crate::core::error::ParseError>) {
        sample.rejected.append(lines);
    }
}

/// A host's block devices; history holds [`DISK_HISTORY`] per device.
#[derive(Debug)]
pub struct DiskState {
    layer: Layer<DiskTick>,
    pub baseline: Baseline,
    /// The rows of the tick before the newest, for the next tick to reuse.
    spare_rows: Vec<DiskRow>,
}

crate::layers::host::layer_state!(DiskState, DiskTick);

impl HostState for DiskState {
    crate::layers::host::layer_field!();
    type Tick = DiskTick;
    type Sample = DiskSample;

    fn new(window: &Window) -> Self {
        DiskState {
            layer: Layer::new(window, DISK_HISTORY.len()),
            baseline: Baseline::forgetting_after(window.forget_cs),
            spare_rows: Vec::new(),
        }
    }

    fn ingest(&mut self, sample: &DiskSample) {
        let rows = std::mem::take(&mut self.spare_rows);
        let tick = self.baseline.tick_into(sample, rows);
        let mut old = None;
        self.layer.take(
            tick.itv_cs.is_some(),
            tick,
            &sample.rejected,
            |layer, tick| {
                push_disk_history(layer, tick, &[]);
                old = layer.latest.take();
            },
        );
        if let Some(old) = old {
            self.spare_rows = old.rows;
            self.spare_rows.clear();
        }
    }

    fn baseline_names(&self) -> usize {
        self.baseline.names_held()
    }
}

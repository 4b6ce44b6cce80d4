//! The CPU and pressure layer as a host layer: its ticks, what a host
//! keeps of it (the newest figures and their history), and what batch,
//! export and summary print of it.

use super::model::{CpuCol, CpuTick, Pressure, PsiCol, Resource, SysCol};
use super::source::{CpuSample, CpuSource};
use crate::core::rootfs::RootFs;
use crate::layers::LayerId;
use crate::layers::host::{HostLayer, HostOptions, HostState, ReportOptions};
use crate::layers::layer::Layer;
use crate::layers::report::Report;
use crate::store::Window;

/// The CPU layer's figures over one interval, or the reading that opened
/// one (no figures: the first, or after the host's clock went back).
#[derive(Debug, Clone, PartialEq)]
pub struct CpuInterval {
    /// The wall clock of the reading that closed the interval.
    pub wall_ms: i64,
    /// The interval's centiseconds of /proc/uptime, with its figures.
    pub itv_cs: Option<u64>,
    /// (Boxed: a tick travels in an enum of every layer's.)
    pub figures: Option<Box<CpuTick>>,
}

/// The reading the next one is diffed against.
#[derive(Debug, Default)]
pub struct CpuBaseline {
    prev: Option<CpuSample>,
}

impl CpuBaseline {
    pub fn tick(&mut self, cur: &CpuSample) -> CpuInterval {
        let figures = self
            .prev
            .as_ref()
            .and_then(|p| super::model::tick(p, cur))
            .map(Box::new);
        self.prev = Some(cur.clone());
        CpuInterval {
            wall_ms: cur.wall_ms,
            itv_cs: figures.as_ref().map(|f| f.itv_cs),
            figures,
        }
    }
}

/// One charted figure of a host's CPU layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuFig {
    /// A mode's share over all CPUs.
    All(CpuCol),
    Sys(SysCol),
    /// A resource's stalled share of the interval.
    Psi(Resource, PsiCol),
}

impl CpuFig {
    /// Its header, as mpstat, sar and vmstat name it.
    pub fn header(self) -> &'static str {
        match self {
            CpuFig::All(c) => c.def().header,
            CpuFig::Sys(c) => c.def().header,
            CpuFig::Psi(r, c) => c.def().extra[r as usize],
        }
    }

    pub fn of(self, t: &CpuTick) -> Option<f64> {
        match self {
            CpuFig::All(c) => t.table.all.get(c),
            CpuFig::Sys(c) => t.sys.get(c),
            CpuFig::Psi(r, c) => match &t.pressure[r as usize] {
                Pressure::Known(f) => f.get(c),
                Pressure::NotAvailable(_) => None,
            },
        }
    }
}

/// The figures a host's CPU layer charts, in this order: what a
/// performance engineer reads beside iostat.
pub const CPU_HISTORY: [CpuFig; 12] = [
    CpuFig::All(CpuCol::Usr),
    CpuFig::All(CpuCol::Sys),
    CpuFig::All(CpuCol::Iowait),
    CpuFig::All(CpuCol::Steal),
    CpuFig::All(CpuCol::Idle),
    CpuFig::Sys(SysCol::Runnable),
    CpuFig::Sys(SysCol::Blocked),
    CpuFig::Sys(SysCol::Ldavg1),
    CpuFig::Psi(Resource::Cpu, PsiCol::Some),
    CpuFig::Psi(Resource::Io, PsiCol::Some),
    CpuFig::Psi(Resource::Io, PsiCol::Full),
    CpuFig::Psi(Resource::Memory, PsiCol::Some),
];

/// What a host's line on the overview says of its CPUs, most wanted
/// first: a narrow screen keeps the first that fit.
pub const HEADLINE: [CpuFig; 8] = [
    CpuFig::All(CpuCol::Iowait),
    CpuFig::Psi(Resource::Io, PsiCol::Some),
    CpuFig::Psi(Resource::Io, PsiCol::Full),
    CpuFig::All(CpuCol::Sys),
    CpuFig::All(CpuCol::Usr),
    CpuFig::All(CpuCol::Steal),
    CpuFig::Sys(SysCol::Ldavg1),
    CpuFig::Sys(SysCol::Blocked),
];

/// The decimals a figure is shown with: tasks whole, the rest two.
pub fn decimals(fig: CpuFig) -> usize {
    match fig {
        CpuFig::Sys(c) if c.def().kind == super::model::SysColKind::Tasks => 0,
        _ => 2,
    }
}

/// The history entity of the host's CPU figures.
pub const CPU_ENTITY: &str = "\u{2211}cpu";

crate::layers::sampler!(CpuSource => CpuSample);

/// The CPU and pressure layer of a host.
#[derive(Debug)]
pub struct Host;

impl HostLayer for Host {
    const ID: LayerId = LayerId::Cpu;
    type Sample = CpuSample;
    type Source = CpuSource;
    fn families() -> Vec<&'static crate::layers::metric::Family> {
        super::metrics::families().collect()
    }
    fn expose(sample: &CpuSample, sink: &mut dyn crate::layers::metric::Sink) {
        super::metrics::expose(sample, sink);
    }
    type State = CpuState;
    const NODE_FILES: &'static [&'static str] = &super::source::FILES;
    type Tick = CpuInterval;
    type Baseline = CpuBaseline;

    fn source(fs: RootFs, _: &HostOptions) -> CpuSource {
        CpuSource::new(fs)
    }

    fn tick(baseline: &mut CpuBaseline, sample: &CpuSample) -> CpuInterval {
        baseline.tick(sample)
    }

    fn itv_cs(tick: &CpuInterval) -> Option<u64> {
        tick.itv_cs
    }

    fn tick_ms(tick: &CpuInterval) -> i64 {
        tick.wall_ms
    }

    fn print(tick: &CpuInterval, how: &ReportOptions, _: &mut bool) -> String {
        super::report::report(how.format, tick)
    }

    fn csv_header(_: &ReportOptions) -> String {
        super::report::csv_header()
    }

    /// "all"'s shares, the run queue and the stalled shares; a recording
    /// without the layer lists none of them.
    fn summarize(tick: Option<&CpuInterval>, put: &mut dyn FnMut(&str, &'static str, Option<f64>)) {
        let Some(t) = tick.and_then(|t| t.figures.as_ref()) else {
            return;
        };
        for fig in CPU_HISTORY {
            let entity = match fig {
                CpuFig::All(_) => "all",
                CpuFig::Sys(_) => "host",
                CpuFig::Psi(r, _) => r.file(),
            };
            put(entity, fig.header(), fig.of(t));
        }
    }

    fn report(fs: RootFs, _: &HostOptions, how: &ReportOptions) -> Box<dyn Report> {
        Box::new(super::report::CpuReport::new(
            CpuSource::new(fs),
            how.format,
        ))
    }

    fn wall_ms(sample: &CpuSample) -> i64 {
        sample.wall_ms
    }
}

/// A host's CPU layer; history holds [`CPU_HISTORY`] under [`CPU_ENTITY`].
#[derive(Debug)]
pub struct CpuState {
    layer: Layer<CpuInterval>,
    baseline: CpuBaseline,
}

crate::layers::host::layer_state!(CpuState, CpuInterval);

impl HostState for CpuState {
    crate::layers::host::layer_field!();
    type Tick = CpuInterval;
    type Sample = CpuSample;

    fn new(window: &Window) -> Self {
        CpuState {
            layer: Layer::new(window, CPU_HISTORY.len()),
            baseline: CpuBaseline::default(),
        }
    }

    fn ingest(&mut self, sample: &CpuSample) {
        let tick = self.baseline.tick(sample);
        let spans = tick.figures.is_some();
        self.layer
            .take(spans, tick, &sample.rejected, |layer, tick| {
                let Some(t) = &tick.figures else {
                    return;
                };
                let host: [Option<f32>; CPU_HISTORY.len()] =
                    std::array::from_fn(|i| CPU_HISTORY[i].of(t).map(|v| v as f32));
                layer
                    .history
                    .push(tick.wall_ms, std::iter::once((CPU_ENTITY, &host[..])));
            });
    }
}

//! The process layer as a host layer: its ticks, what a host keeps of it
//! (the newest figures and the history of each role and active process),
//! and what batch, export and summary print of it.

use super::model::{PROC_COLS, ProcCol, ProcTick, busy};
use super::source::{FILES, ProcSource};
use super::table::ProcSample;
use crate::core::rootfs::RootFs;
use crate::layers::LayerId;
use crate::layers::host::{HostLayer, HostOptions, HostState, ReportOptions};
use crate::layers::layer::Layer;
use crate::layers::report::Report;
use crate::store::Window;

/// The process layer's figures over one interval, or the reading that
/// opened one.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcInterval {
    pub wall_ms: i64,
    pub itv_cs: Option<u64>,
    /// (Boxed: a tick travels in an enum of every layer's.)
    pub figures: Option<Box<ProcTick>>,
}

/// A sample holds its own increases: nothing is kept between two.
#[derive(Debug, Default)]
pub struct ProcBaseline;

pub fn interval(s: &ProcSample) -> ProcInterval {
    let figures = super::model::tick(s).map(Box::new);
    ProcInterval {
        wall_ms: s.wall_ms,
        itv_cs: figures.as_ref().map(|f| f.itv_cs),
        figures,
    }
}

/// The history entity of a role ("DBWR PROD1").
pub fn role_entity(name: &str) -> String {
    format!("role {name}")
}

/// The history entity of a process: its PID and start, which name it.
pub fn proc_entity(pid: u32, start: u64) -> String {
    format!("pid {pid} {start}")
}

/// The history entity of the host's sum.
pub const ALL_ENTITY: &str = "\u{2211}procs";

crate::layers::sampler!(ProcSource => ProcSample);

/// The process layer of a host.
#[derive(Debug)]
pub struct Host;

impl HostLayer for Host {
    const ID: LayerId = LayerId::Procs;
    type Sample = ProcSample;
    type Source = ProcSource;
    type State = ProcState;
    const NODE_FILES: &'static [&'static str] = &FILES;
    type Tick = ProcInterval;
    type Baseline = ProcBaseline;

    fn node_script() -> Option<String> {
        Some(super::node::script())
    }

    fn families() -> Vec<&'static crate::layers::metric::Family> {
        super::metrics::families().collect()
    }

    fn expose(sample: &ProcSample, sink: &mut dyn crate::layers::metric::Sink) {
        super::metrics::expose(sample, sink);
    }

    fn source(fs: RootFs, _: &HostOptions) -> ProcSource {
        ProcSource::new(fs)
    }

    fn tick(_: &mut ProcBaseline, sample: &ProcSample) -> ProcInterval {
        interval(sample)
    }

    fn itv_cs(tick: &ProcInterval) -> Option<u64> {
        tick.itv_cs
    }

    fn tick_ms(tick: &ProcInterval) -> i64 {
        tick.wall_ms
    }

    fn print(tick: &ProcInterval, how: &ReportOptions, _: &mut bool) -> String {
        super::report::report(how.format, tick)
    }

    fn csv_header(_: &ReportOptions) -> String {
        super::report::csv_header()
    }

    /// Each role's figures; roles come and go, so only those seen.
    fn summarize(
        tick: Option<&ProcInterval>,
        put: &mut dyn FnMut(&str, &'static str, Option<f64>),
    ) {
        let Some(t) = tick.and_then(|t| t.figures.as_ref()) else {
            return;
        };
        for r in &t.roles {
            for c in &PROC_COLS {
                put(&r.name(), c.header, r.figures.get(c.col));
            }
        }
    }

    fn report(fs: RootFs, _: &HostOptions, how: &ReportOptions) -> Box<dyn Report> {
        Box::new(super::report::ProcReport::new(
            ProcSource::new(fs),
            how.format,
        ))
    }

    fn wall_ms(sample: &ProcSample) -> i64 {
        sample.wall_ms
    }
}

/// The figures each role and process charts, in [`PROC_COLS`] order.
pub const PROC_HISTORY: usize = PROC_COLS.len();

/// A host's processes.
#[derive(Debug)]
pub struct ProcState {
    layer: Layer<ProcInterval>,
}

crate::layers::host::layer_state!(ProcState, ProcInterval);

impl ProcState {
    /// The host's busiest role and process of the newest interval, as the
    /// overview and the cluster table name them: `None` when nothing moved.
    pub fn top(&self) -> Option<(String, String)> {
        let t = self.layer.tick()?.figures.as_ref()?;
        let role = t.roles.first().filter(|r| busy(&r.figures) > 0.0)?;
        let p = t.procs.first()?;
        Some((role.name(), format!("{} {}", p.row.pid, p.row.comm)))
    }
}

impl HostState for ProcState {
    crate::layers::host::layer_field!();
    type Tick = ProcInterval;
    type Sample = ProcSample;

    fn new(window: &Window) -> Self {
        ProcState {
            layer: Layer::new(window, PROC_HISTORY),
        }
    }

    fn ingest(&mut self, sample: &ProcSample) {
        let tick = interval(sample);
        let spans = tick.figures.is_some();
        self.layer
            .take(spans, tick, &sample.rejected, |layer, tick| {
                let Some(t) = &tick.figures else {
                    return;
                };
                let vals = |f: &super::model::ProcFigures| -> [Option<f32>; PROC_HISTORY] {
                    std::array::from_fn(|i| f.0[i].map(|v| v as f32))
                };
                let mut rows: Vec<(String, [Option<f32>; PROC_HISTORY])> =
                    Vec::with_capacity(1 + t.roles.len() + t.procs.len());
                rows.push((ALL_ENTITY.to_string(), vals(&t.all)));
                for r in &t.roles {
                    rows.push((role_entity(&r.name()), vals(&r.figures)));
                }
                for p in &t.procs {
                    rows.push((proc_entity(p.row.pid, p.row.start), vals(&p.figures)));
                }
                layer
                    .history
                    .push(tick.wall_ms, rows.iter().map(|(n, v)| (n.as_str(), &v[..])));
            });
    }
}

/// A figure of a charted entity: its column.
pub fn chart_index(c: ProcCol) -> usize {
    c as usize
}

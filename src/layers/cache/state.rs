//! What a host keeps of its page cache: the newest tick, the host's and
//! each watched file's charted figures, and the counters the next sample
//! is diffed against.

use super::model::{CACHE_COLS, CacheBaseline, CacheCol, CacheTick, FileCol};
use super::source::{CacheSample, CacheSource};
use crate::core::rootfs::RootFs;
use crate::layers::LayerId;
use crate::layers::cache::report::CacheReport;
use crate::layers::host::{HostLayer, HostOptions, HostState, ReportOptions};
use crate::layers::layer::Layer;
use crate::layers::report::Report;
use crate::store::Window;

/// The history entity that holds the host's page cache figures.
pub const HOST_ENTITY: &str = "\u{2211}host";

/// The file figures kept in history per watched file, in this order.
pub const FILE_HISTORY: [FileCol; 4] = [
    FileCol::ResPct,
    FileCol::ResPages,
    FileCol::Dirty,
    FileCol::Writeback,
];

/// Slots per entity: the host's figures are the wider set.
pub const CACHE_HISTORY: usize = CACHE_COLS.len();

crate::layers::sampler!(CacheSource => CacheSample);

/// The page cache layer of a host.
#[derive(Debug)]
pub struct Host;

impl HostLayer for Host {
    const ID: LayerId = LayerId::Cache;
    type Sample = CacheSample;
    type Source = CacheSource;
    fn families() -> Vec<&'static crate::layers::metric::Family> {
        super::metrics::families().collect()
    }
    fn expose(sample: &CacheSample, sink: &mut dyn crate::layers::metric::Sink) {
        super::metrics::expose(
            &sample.meminfo,
            &sample.vmstat,
            &sample.files,
            sample.page_size,
            sink,
        );
    }
    type State = CacheState;
    const NODE_FILES: &'static [&'static str] = &["/proc/meminfo", "/proc/vmstat"];

    fn source(fs: RootFs, opts: &HostOptions) -> CacheSource {
        CacheSource::new(fs, opts.cache_files.clone())
    }

    /// Watched files: a residency scan may hang on a dead NFS server's.
    fn own_thread(opts: &HostOptions) -> bool {
        !opts.cache_files.is_empty()
    }

    type Tick = CacheTick;
    type Baseline = CacheBaseline;

    fn tick(baseline: &mut CacheBaseline, sample: &CacheSample) -> CacheTick {
        baseline.tick(sample)
    }

    fn itv_cs(tick: &CacheTick) -> Option<u64> {
        tick.itv_cs
    }

    fn tick_ms(tick: &CacheTick) -> i64 {
        tick.wall_ms
    }

    fn print(tick: &CacheTick, how: &ReportOptions, header_done: &mut bool) -> String {
        super::report::report(how.format, tick, header_done)
    }

    fn csv_header(_: &ReportOptions) -> String {
        super::report::csv_header()
    }

    /// The host's figures.
    fn summarize(tick: Option<&CacheTick>, put: &mut dyn FnMut(&str, &'static str, Option<f64>)) {
        const FIGS: [(&str, CacheCol, f64); 9] = [
            ("cached MB", CacheCol::Cached, 1024.0),
            ("cached-shmem MB", CacheCol::CachedLessShmem, 1024.0),
            ("dirty MB", CacheCol::Dirty, 1024.0),
            ("writeback MB", CacheCol::Writeback, 1024.0),
            ("available MB", CacheCol::MemAvailable, 1024.0),
            ("pgpgin kB/s", CacheCol::PgpginKbS, 1.0),
            ("pgpgout kB/s", CacheCol::PgpgoutKbS, 1.0),
            ("majflt/s", CacheCol::MajfltS, 1.0),
            ("refault/s", CacheCol::RefaultS, 1.0),
        ];
        for (name, col, div) in FIGS {
            let v = tick.and_then(|t| t.figures.get(col)).map(|v| v / div);
            put("host", name, v);
        }
    }

    fn report(fs: RootFs, opts: &HostOptions, how: &ReportOptions) -> Box<dyn Report> {
        Box::new(CacheReport::new(
            CacheSource::new(fs, opts.cache_files.clone()),
            how.format,
        ))
    }

    fn wall_ms(sample: &CacheSample) -> i64 {
        sample.wall_ms
    }
}

/// A host's page cache; history holds the host's figures and each
/// watched file's.
#[derive(Debug)]
pub struct CacheState {
    layer: Layer<CacheTick>,
    pub baseline: CacheBaseline,
}

crate::layers::host::layer_state!(CacheState, CacheTick);

impl HostState for CacheState {
    crate::layers::host::layer_field!();
    type Tick = CacheTick;
    type Sample = CacheSample;

    fn new(window: &Window) -> Self {
        CacheState {
            layer: Layer::new(window, CACHE_HISTORY),
            baseline: CacheBaseline::default(),
        }
    }

    /// Takes a sample of /proc/meminfo, /proc/vmstat and the watched files.
    fn ingest(&mut self, sample: &CacheSample) {
        let tick = self.baseline.tick(sample);
        let spans = tick.itv_cs.is_some();
        self.layer
            .take(spans, tick, &sample.rejected, |layer, tick| {
                let host: [Option<f32>; CACHE_HISTORY] =
                    std::array::from_fn(|i| tick.figures.get(CACHE_COLS[i].col).map(|v| v as f32));
                let files: Vec<(&str, [Option<f32>; CACHE_HISTORY])> = tick
                    .files
                    .iter()
                    .map(|r| {
                        let v = std::array::from_fn(|i| {
                            let c = FILE_HISTORY.get(i)?;
                            r.figures.as_ref()?.get(*c).map(|v| v as f32)
                        });
                        (r.path.as_str(), v)
                    })
                    .collect();
                layer.history.push(
                    tick.wall_ms,
                    std::iter::once((HOST_ENTITY, &host[..]))
                        .chain(files.iter().map(|(n, v)| (*n, &v[..]))),
                );
            });
    }
}

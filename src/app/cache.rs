//! The page cache layer of the app: the host's figures and the residency
//! of the files the user watches.

use super::host::HostLayers;
use super::state::App;
use crate::core::error::SampleError;
use crate::layers::cache::model::{CACHE_COLS, CacheCol, FILE_COLS, FileCol, FileRow};
use crate::layers::cache::source::CacheSample;

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

/// The file table's figure columns: the counts, not the per-interval
/// changes (those go to JSON and CSV).
pub const FILE_TABLE: usize = 8;

/// The cluster's page cache table's figure columns, in order: first
/// what the overview says of a host's cache, then the rest of the panel's.
pub const CACHE_NODE_TABLE: [CacheCol; 14] = [
    CacheCol::Cached,
    CacheCol::CachedLessShmem,
    CacheCol::Dirty,
    CacheCol::Writeback,
    CacheCol::Shmem,
    CacheCol::MemAvailable,
    CacheCol::PgpginKbS,
    CacheCol::PgpgoutKbS,
    CacheCol::MajfltS,
    CacheCol::RefaultS,
    CacheCol::Buffers,
    CacheCol::ActiveFile,
    CacheCol::InactiveFile,
    CacheCol::MemTotal,
];

pub fn file_figure(r: &FileRow, c: usize) -> Option<f64> {
    r.figures.as_ref()?.get(FILE_COLS.get(c)?.col)
}

impl App {
    /// The watched files shown, filtered and sorted as the user asked.
    pub fn cache_files(&self) -> Vec<&FileRow> {
        let Some(tick) = self.host().cache.tick() else {
            return Vec::new();
        };
        let filter = self.filter_text();
        let mut rows: Vec<&FileRow> = tick
            .files
            .iter()
            .filter(|r| filter.is_empty() || r.path.to_lowercase().contains(&filter))
            .collect();
        self.ui
            .cache_files
            .sort(&mut rows, |r| r.path.as_str(), |r, c| file_figure(r, c));
        rows
    }

    pub fn cache_file(&self, path: &str) -> Option<&FileRow> {
        self.host()
            .cache
            .tick()?
            .files
            .iter()
            .find(|r| r.path == path)
    }
}

impl HostLayers {
    /// Takes a sample of /proc/meminfo, /proc/vmstat and the watched files.
    pub fn ingest_cache(&mut self, sample: impl std::borrow::Borrow<CacheSample>) {
        let sample = sample.borrow();
        let tick = self.cache_baseline.tick(sample);
        let spans = tick.itv_cs.is_some();
        self.cache
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
    pub fn cache_failed(&mut self, error: SampleError) {
        self.cache.failed(error);
    }
}

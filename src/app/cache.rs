//! The page cache layer of the app: the host's figures and the residency
//! of the files the user watches.

use super::state::App;
use crate::layers::cache::model::{CacheCol, FILE_COLS, FileRow};

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

//! The page cache layer of the app: the host's figures and the residency
//! of the files the user watches.

use super::cluster::{CacheNodes, Listed, kept_in};
use super::list::ListUi;
use super::state::{App, UiState, View};
use super::views::LayerView;
use crate::layers::LayerId;
use crate::layers::cache::model::FileCol;
use crate::layers::cache::model::{CacheCol, CacheTick, FILE_COLS, FileRow};
use crate::layers::cache::state::HOST_ENTITY;
use crate::layers::host::HostLayers;
use crate::layers::layer::Layer;

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

    /// The watched files' paths as their table lists them.
    fn cache_paths(&self) -> Vec<String> {
        self.cache_files().iter().map(|r| r.path.clone()).collect()
    }
}

/// A node's row is its figures: only its node's label can match a filter,
/// and its node is what it is selected by.
impl Listed for CacheNodes {
    type Row = CacheTick;
    kept_in!(cache_nodes, cache: CacheTick);
    fn rows<'a>(_: &App, tick: &'a CacheTick) -> Vec<&'a CacheTick> {
        vec![tick]
    }
    fn matches(_: &CacheTick, _: &str) -> bool {
        false
    }
    fn name(_: &CacheTick) -> &str {
        ""
    }
    fn key(_: &CacheTick) -> &str {
        ""
    }
    fn value(t: &CacheTick, col: usize) -> Option<f64> {
        t.figures.get(*CACHE_NODE_TABLE.get(col)?)
    }
}

/// The page cache panel (the watched files; the cluster's, a row per
/// node) and one file's view ([`View::CacheFile`]).
pub(super) struct CacheView;

impl LayerView for CacheView {
    fn id(&self) -> LayerId {
        LayerId::Cache
    }
    fn owns(&self, view: &View) -> bool {
        matches!(view, View::CacheFile(_))
    }
    fn sorted<'a>(&self, app: &'a mut App) -> Option<(&'a mut ListUi, usize)> {
        match app.view() {
            View::Panel(_) if app.shows_cluster() => {
                Some((&mut app.ui.cache_nodes, CACHE_NODE_TABLE.len()))
            }
            View::Panel(_) => Some((&mut app.ui.cache_files, FILE_TABLE)),
            _ => None,
        }
    }
    fn step(&self, app: &mut App, delta: isize) {
        match app.view() {
            View::Panel(_) if app.shows_cluster() => app.step::<CacheNodes>(delta),
            View::Panel(_) => {
                let paths = app.cache_paths();
                app.ui.cache_files.step(&paths, delta);
            }
            _ => {}
        }
    }
    fn enter(&self, app: &mut App) {
        match app.view() {
            // a node of the cluster's cache → that node's cache panel
            View::Panel(_) if app.shows_cluster() => {
                app.enter::<CacheNodes>();
            }
            View::Panel(_) => {
                let mut paths = app.cache_paths();
                if let Some(at) = app.ui.cache_files.enter(&paths) {
                    app.ui.stack.push(View::CacheFile(paths.swap_remove(at)));
                }
            }
            _ => {}
        }
    }
    fn popped(&self, app: &mut App, view: View, _top: bool) {
        if let View::CacheFile(path) = view {
            app.ui.cache_files.selected = Some(path);
        }
    }
    fn carry(&self, app: &mut App, from: Option<usize>, to: Option<usize>) -> bool {
        app.carry::<CacheNodes>(from, to);
        true
    }
    fn open(&self, ui: &mut UiState) {
        ui.cache_files = ListUi::sorted_by(FileCol::Res as usize);
        // the node writing most back first
        ui.cache_nodes = ListUi::sorted_by(
            CACHE_NODE_TABLE
                .iter()
                .position(|c| *c == CacheCol::Dirty)
                .unwrap_or(0),
        );
    }
    fn keep(&self, app: &mut App) {
        let mut cache = vec![HOST_ENTITY.to_string()];
        if let Some(View::CacheFile(path)) = app.ui.stack.last() {
            cache.push(path.clone());
        }
        app.host_mut().cache.keep(cache.iter().map(String::as_str));
    }
}

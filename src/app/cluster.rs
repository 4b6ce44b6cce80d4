//! A host layer's table, of one host or of the whole cluster: with nodes
//! and none chosen, the disks, NICs, NFS and cache panels list every live
//! node's rows in one table led by the node, filtered and sorted as one
//! node's table is, so the cluster's busiest disk or NIC is on top. One
//! description of each table ([`Listed`]) serves both; each table's is in
//! its layer's file (app/disks.rs, nics.rs, nfs.rs, cache.rs).

use super::host::NodeState;
use super::list::ListUi;
use super::state::{App, UiState};
use crate::layers::host::HostLayers;
use crate::layers::layer::Layer;
use std::borrow::Cow;

/// What a layer's table lists of a host and how it sorts and selects.
pub trait Listed {
    type Row;
    /// What the layer keeps of a host: its newest tick, history and error.
    type Tick: Clone + 'static;
    /// The layer on `host` the table lists from.
    fn layer(host: &HostLayers) -> &Layer<Self::Tick>;
    fn list(ui: &UiState) -> &ListUi;
    fn list_mut(ui: &mut UiState) -> &mut ListUi;
    /// The rows of a host's newest tick the table shows before the filter.
    fn rows<'a>(app: &App, tick: &'a Self::Tick) -> Vec<&'a Self::Row>;
    /// The row matches the filter (lower case, not empty).
    fn matches(row: &Self::Row, filter: &str) -> bool;
    /// What a sort by name and ties of a sort by figure go by.
    fn name(row: &Self::Row) -> &str;
    /// What the selection follows from one tick to the next.
    fn key(row: &Self::Row) -> &str;
    /// Figure column `col` (an index into the layer's table of figures).
    fn value(row: &Self::Row, col: usize) -> Option<f64>;
}

/// The disks table: iostat's devices.
pub struct Disks;
/// The NIC table: the interfaces `a` lets through.
pub struct Nics;
/// The kernel NFS table: the mounts.
pub struct Nfs;
/// The cluster's page cache table: a row per node, its host figures.
pub struct CacheNodes;

/// Where a table lists from and keeps its selection and sort: the host
/// layer (`host.$layer`, of ticks `$tick`) and the UI's list, each named
/// once for reading and for writing.
macro_rules! kept_in {
    ($list:ident, $layer:ident: $tick:ty) => {
        type Tick = $tick;
        fn layer(host: &HostLayers) -> &Layer<$tick> {
            &host.$layer
        }
        fn list(ui: &UiState) -> &ListUi {
            &ui.$list
        }
        fn list_mut(ui: &mut UiState) -> &mut ListUi {
            &mut ui.$list
        }
    };
}
pub(super) use kept_in;

/// A row of a layer's table with its node: `None` for the host the panels
/// show, a node's index in the cluster's table.
pub type Placed<'a, R> = (Option<usize>, &'a R);

impl App {
    /// The nodes whose figures are current: the cluster's tables list
    /// theirs, not a stale or a down node's.
    pub fn live_nodes(&self) -> impl Iterator<Item = (usize, &NodeState)> {
        let interval_ms = self.interval.ms();
        self.nodes
            .iter()
            .enumerate()
            .filter(move |(_, n)| n.link.is_current(self.now_ms, interval_ms))
    }

    /// The hosts a layer's table draws from: the shown host, or with
    /// nodes and none chosen every live node.
    pub fn shown_hosts(&self) -> Vec<(Option<usize>, &HostLayers)> {
        if self.shows_cluster() {
            self.live_nodes()
                .map(|(i, n)| (Some(i), &n.layers))
                .collect()
        } else {
            vec![(None, self.host())]
        }
    }

    /// A host's rows of a layer's table, filtered and sorted as asked.
    pub fn rows_in<'a, L: Listed>(&self, host: &'a HostLayers) -> Vec<&'a L::Row> {
        let mut rows: Vec<Placed<L::Row>> = self
            .listed::<L>(host)
            .into_iter()
            .map(|r| (None, r))
            .collect();
        self.filter_sort::<L>(&mut rows);
        rows.into_iter().map(|(_, r)| r).collect()
    }

    /// The rows of a layer's table on screen: the shown host's, or with
    /// nodes and none chosen every live node's (a filter matches a node's
    /// label too), in one order.
    pub fn table_rows<L: Listed>(&self) -> Vec<Placed<'_, L::Row>> {
        let mut rows: Vec<Placed<L::Row>> = self
            .shown_hosts()
            .into_iter()
            .flat_map(|(i, h)| self.listed::<L>(h).into_iter().map(move |r| (i, r)))
            .collect();
        self.filter_sort::<L>(&mut rows);
        rows
    }

    /// A host's rows of a layer's table before the filter: none while the
    /// layer has no tick on it.
    fn listed<'a, L: Listed>(&self, host: &'a HostLayers) -> Vec<&'a L::Row> {
        L::layer(host)
            .tick()
            .map_or(Vec::new(), |t| L::rows(self, t))
    }

    fn filter_sort<L: Listed>(&self, rows: &mut Vec<Placed<L::Row>>) {
        let filter = self.filter_text();
        if !filter.is_empty() {
            // A row of the shown host is its chosen node's, when one is: a
            // filter that picked a node in the cluster's table keeps its
            // rows once Enter has opened the node.
            let label = |i: Option<usize>| {
                i.or(self.ui.node)
                    .and_then(|i| self.nodes.get(i))
                    .is_some_and(|n| n.link.target.label().to_lowercase().contains(&filter))
            };
            rows.retain(|(i, r)| label(*i) || L::matches(r, &filter));
        }
        L::list(&self.ui).sort(rows, |(_, r)| L::name(r), |(_, r), c| L::value(r, c));
    }

    /// What a row is selected by: its own key, and in the cluster's table
    /// its node's label before it.
    pub fn row_key<'r, L: Listed>(&self, node: Option<usize>, row: &'r L::Row) -> Cow<'r, str> {
        // a host's own row is keyed by its own name, borrowed: a string
        // per row and frame was 100k of them with 100k devices
        node.map_or_else(
            || Cow::Borrowed(L::key(row)),
            |i| Cow::Owned(self.cluster_key(i, L::key(row))),
        )
    }

    /// A key of node `i`'s table as the cluster's table selects it.
    pub fn cluster_key(&self, node: usize, key: &str) -> String {
        let label = self.nodes.get(node).map_or("", |n| n.link.target.label());
        format!("{label} {key}")
    }

    /// Index of the selected row among `rows` of a layer's table; the
    /// first when it is gone.
    pub fn selected_in<L: Listed>(&self, rows: &[Placed<L::Row>]) -> usize {
        let Some(selected) = L::list(&self.ui).selected.as_deref() else {
            return 0;
        };
        // A host's own row is keyed by its own name: no key is built for
        // it (a string per row was 100k of them a key with 100k devices).
        rows.iter()
            .position(|(i, r)| match i {
                None => L::key(r) == selected,
                Some(n) => self.cluster_key(*n, L::key(r)) == selected,
            })
            .unwrap_or(0)
    }

    /// Moves the selection of a layer's table.
    pub(super) fn step<L: Listed>(&mut self, delta: isize) {
        let rows = self.table_rows::<L>();
        if rows.is_empty() {
            return;
        }
        let i = self.selected_in::<L>(&rows) as isize;
        let j = i.saturating_add(delta).clamp(0, rows.len() as isize - 1) as usize;
        let key = rows
            .get(j)
            .map(|(n, r)| self.row_key::<L>(*n, r).into_owned());
        L::list_mut(&mut self.ui).selected = key;
    }

    /// Enter on a layer's table: the selected row's own key, selected, and
    /// in the cluster's table its node shown from now on.
    pub(super) fn enter<L: Listed>(&mut self) -> Option<String> {
        let rows = self.table_rows::<L>();
        let at = self.selected_in::<L>(&rows);
        let (node, key) = rows.get(at).map(|(i, r)| (*i, L::key(r).to_string()))?;
        if node.is_some() {
            self.ui.node = node;
        }
        L::list_mut(&mut self.ui).selected = Some(key.clone());
        Some(key)
    }

    /// The selection of a layer's table as the next host's table keys it,
    /// when `n` or Esc goes from the cluster to a node or back: the
    /// cluster's row of a node is that node's own row, and back.
    pub(super) fn carry<L: Listed>(&mut self, from: Option<usize>, to: Option<usize>) {
        let selected = L::list(&self.ui).selected.clone();
        let carried = match (from, to) {
            (Some(i), None) => Some(self.cluster_key(i, selected.as_deref().unwrap_or(""))),
            (None, Some(n)) => selected
                .as_deref()
                .and_then(|s| s.strip_prefix(&self.cluster_key(n, "")))
                .map(str::to_string),
            _ => selected,
        };
        L::list_mut(&mut self.ui).selected = carried;
    }
}

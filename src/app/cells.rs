//! The storage layer as the app keeps it: per cell its connection state,
//! SSH round trip, disk figures over the cell's own clock, DISK and FLASH
//! groups and the cellcli summary; over all cells the sum of the cells
//! whose figures are current, and its history, one point per round of
//! samples.

use super::link::Link;
use super::list::ListUi;
use super::state::{App, View};
use super::views::LayerView;
use crate::core::duration::Interval;
use crate::layers::LayerId;
use crate::layers::cells::cell_metrics::{CellDiskRow, CellSummary};
use crate::layers::cells::cellcli::parse_cellcli_report;
use crate::layers::cells::model::{AllCells, CellGroups, GroupFigures};
use crate::layers::cells::source::CellEvent;
use crate::layers::disks::model::DiskCol;
use crate::layers::disks::source::DiskSample;
use crate::layers::disks::state::DISK_HISTORY;
use crate::layers::disks::tick::{Baseline, DiskTick};
use crate::layers::layer::Layer;
use crate::link::HostStatus;
use crate::link::target::HostTarget;
use crate::store::Window;
use std::time::Duration;

/// One cell.
#[derive(Debug)]
pub struct CellView {
    /// Its connection; the message is also why its cellcli listing could
    /// not be read.
    pub link: Link<HostTarget>,
    baseline: Baseline,
    /// Its disks' figures and history, as the host's disks layer keeps them.
    pub disks: Layer<DiskTick>,
    /// DISK and FLASH over the latest interval.
    pub groups: Option<CellGroups>,
    /// The latest cellcli listing, when the cell has cellcli, and when it
    /// arrived.
    pub cellcli: Option<(i64, CellSummary)>,
    /// That listing as the cell wrote it, for a recording to restate.
    cellcli_text: Option<(i64, String)>,
}

impl CellView {
    pub fn new(target: HostTarget, history: impl Into<Window>) -> CellView {
        let history = history.into();
        CellView {
            link: Link::new(target),
            baseline: Baseline::forgetting_after(history.forget_cs),
            disks: Layer::new(history, DISK_HISTORY.len()),
            groups: None,
            cellcli: None,
            cellcli_text: None,
        }
    }

    /// Takes a cellcli listing that arrived at `at`; returns what in it
    /// could not be read, for the cell's message.
    fn take_listing(&mut self, at: i64, text: String) -> Option<String> {
        let report = parse_cellcli_report(&text);
        let mut bad = report
            .metrics
            .rejected
            .iter()
            .chain(&report.celldisks.rejected);
        let message = bad.next().map(|e| format!("cellcli: not understood: {e}"));
        let summary = CellSummary::from_report(&report).into_iter().next();
        self.cellcli = summary.map(|s| (at, s));
        self.cellcli_text = Some((at, text));
        message
    }

    /// The groups when they are current: the cell is live and sampled
    /// within two intervals.
    pub fn current_groups(&self, now_ms: i64, interval_ms: i64) -> Option<&CellGroups> {
        if self.link.is_current(now_ms, interval_ms) {
            self.groups.as_ref()
        } else {
            None
        }
    }

    /// The cell disk on OS device `dev` (`sda`) in the latest cellcli
    /// listing, which names it `/dev/sda`.
    pub fn cell_disk_of(&self, dev: &str) -> Option<&CellDiskRow> {
        let (_, summary) = self.cellcli.as_ref()?;
        summary.disks.iter().find(|d| {
            d.device
                .as_deref()
                .is_some_and(|p| p.strip_prefix("/dev/").unwrap_or(p) == dev)
        })
    }

    /// Whole seconds since the cellcli listing arrived, at `now_ms`; none
    /// when either time is not known: a listing that comes before the
    /// app's first tick is stamped 0, and an age from 1970 is no age.
    pub fn cellcli_age_s(&self, now_ms: i64) -> Option<i64> {
        let (at, _) = self.cellcli.as_ref()?;
        (*at > 0 && now_ms > 0).then(|| ((now_ms - at) / 1000).max(0))
    }

    pub fn ingest(&mut self, sample: impl std::borrow::Borrow<DiskSample>) {
        let sample = sample.borrow();
        let tick = self.baseline.tick(sample);
        self.link.sampled(sample.wall_ms);
        // none after the first sample, or a reboot: a new baseline
        self.groups = None;
        let shown_groups = &mut self.groups;
        let spans = tick.itv_cs.is_some();
        self.disks
            .take(spans, tick, &sample.rejected, |layer, tick| {
                let groups = CellGroups::of(tick);
                *shown_groups = Some(groups);
                crate::layers::disks::state::push_disk_history(
                    layer,
                    tick,
                    &group_history(Some(&groups)),
                );
            });
    }
}

/// The history entities of a DISK and a FLASH group, in a history shaped
/// as a disks layer's ([`DISK_HISTORY`] per entity, kB/s for throughput):
/// each cell's groups beside its devices, and the all-cell sums.
pub const DISK_GROUP: &str = "\u{2211}DISK";
pub const FLASH_GROUP: &str = "\u{2211}FLASH";

/// A group's figure under the disk column that holds it in history, as
/// the group lines print it (MB/s for throughput); a group has no queue
/// size (aqu-sz) of its own.
pub fn group_figure(g: &GroupFigures, c: DiskCol) -> Option<f64> {
    use crate::layers::cells::model::GroupCol as G;
    g.get(match c {
        DiskCol::RPerS => G::RPerS,
        DiskCol::WPerS => G::WPerS,
        DiskCol::RkBPerS => G::RMbPerS,
        DiskCol::WkBPerS => G::WMbPerS,
        DiskCol::RAwait => G::RAwait,
        DiskCol::WAwait => G::WAwait,
        DiskCol::Util => G::Util,
        _ => return None,
    })
}

/// A group's figures in [`DISK_HISTORY`]'s order, unknown when the group
/// is.
fn group_values(g: Option<&GroupFigures>) -> [Option<f32>; DISK_HISTORY.len()] {
    std::array::from_fn(|i| {
        let c = DISK_HISTORY[i];
        let v = group_figure(g?, c)?;
        // the history keeps kB/s as the disks' does
        let v = match c {
            DiskCol::RkBPerS | DiskCol::WkBPerS => v * 1024.0,
            _ => v,
        };
        Some(v as f32)
    })
}

type GroupValues = (&'static str, [Option<f32>; DISK_HISTORY.len()]);

/// Both groups' history values; unknown when `groups` is `None`.
fn group_history(groups: Option<&CellGroups>) -> [GroupValues; 2] {
    [
        (
            DISK_GROUP,
            group_values(groups.and_then(|g| g.disk.as_ref())),
        ),
        (
            FLASH_GROUP,
            group_values(groups.and_then(|g| g.flash.as_ref())),
        ),
    ]
}

/// Every cell and the interval they are sampled at.
#[derive(Debug)]
pub struct Cells {
    pub list: Vec<CellView>,
    pub interval: Interval,
    /// The all-cell DISK and FLASH figures over time, one point per round
    /// of samples (see [`Cells::close_round`]); `latest` is the last
    /// point's sum.
    pub history: Layer<AllCells>,
    /// Wall clock of the last point.
    last_point_ms: Option<i64>,
}

impl Default for Cells {
    fn default() -> Cells {
        Cells::new(Vec::new(), Interval::ONE_SECOND, 2)
    }
}

impl Cells {
    pub fn new(targets: Vec<HostTarget>, interval: Interval, history: impl Into<Window>) -> Cells {
        let history = history.into();
        Cells {
            list: targets
                .into_iter()
                .map(|t| CellView::new(t, &history))
                .collect(),
            interval,
            history: Layer::new(history, DISK_HISTORY.len()),
            last_point_ms: None,
        }
    }

    /// Adds a point to the all-cell history when a round of samples is
    /// complete: every live cell that samples has sampled since the last
    /// point and has figures (cells sample at their own moments, so the
    /// point waits for the slowest, and is stamped with its sample's time;
    /// a cell's first sample, which gives no figures yet, holds the round
    /// too, so that the first point is not one cell's alone). A cell that
    /// stops sampling is stale after two intervals and stops holding
    /// rounds up.
    /// When no point came for two intervals (no cell live, or none
    /// sampling), the point is the sum of what is current at `now_ms`:
    /// unknown, never zero, when nothing is. Call it on every sample and
    /// on the app's clock.
    pub fn close_round(&mut self, now_ms: i64) {
        let itv = self.interval.ms();
        let current: Vec<(i64, bool)> = self
            .list
            .iter()
            .filter(|c| c.link.is_current(now_ms, itv))
            .filter_map(|c| Some((c.link.last_sample_ms?, c.groups.is_some())))
            .collect();
        let done =
            |&(t, figures): &(i64, bool)| figures && self.last_point_ms.is_none_or(|l| t > l);
        let at = if !current.is_empty() && current.iter().all(done) {
            current.iter().map(|c| c.0).max()
        } else {
            self.last_point_ms
                .filter(|l| now_ms - l >= 2 * itv)
                .map(|_| now_ms)
        };
        let Some(at) = at else {
            return;
        };
        let all = self.all(now_ms);
        let groups = (all.counted > 0).then_some(&all.groups);
        let values = group_history(groups);
        self.history
            .history
            .push(at, values.iter().map(|(n, v)| (*n, &v[..])));
        self.history.show(Some(all), Vec::new());
        self.last_point_ms = Some(at);
    }

    /// The sum over the cells whose figures are current at `now_ms`.
    pub fn all(&self, now_ms: i64) -> AllCells {
        AllCells::sum(
            self.list
                .iter()
                .map(|c| c.current_groups(now_ms, self.interval.ms())),
        )
    }
}

impl Cells {
    /// Applies one event of a cell's sampler; returns the cell's label and
    /// what it wrote on stderr, for a caller that prints it.
    pub fn ingest(&mut self, now_ms: i64, ev: CellEvent) -> Option<(String, String)> {
        let cell = match &ev {
            CellEvent::Status { cell, .. }
            | CellEvent::Rtt { cell, .. }
            | CellEvent::Sample { cell, .. }
            | CellEvent::Cellcli { cell, .. }
            | CellEvent::Stderr { cell, .. } => *cell,
        };
        let c = self.list.get_mut(cell)?;
        match ev {
            CellEvent::Status { status, .. } => c.link.status = status,
            CellEvent::Rtt { rtt, .. } => c.link.rtt = Some(rtt),
            CellEvent::Sample { sample, .. } => self.ingest_sample(now_ms, cell, &sample),
            CellEvent::Cellcli { text, .. } => c.link.message = c.take_listing(now_ms, text),
            CellEvent::Stderr { text, .. } => {
                let said = c.link.said(&text)?.to_string();
                return Some((c.link.target.label.clone(), said));
            }
        }
        None
    }

    /// A cell's sample, read by reference: the loop keeps it for a
    /// recording that starts later (see [`super::App::apply_sample`]).
    pub fn ingest_sample(&mut self, now_ms: i64, cell: usize, sample: &DiskSample) {
        if let Some(c) = self.list.get_mut(cell) {
            c.ingest(sample);
            self.close_round(now_ms);
        }
    }
}

/// What a cell shows that its samples do not bring again: its connection,
/// round trip, cellcli listing (with when it came) and last message. A
/// recording states it again where a seek may start reading, so a jump
/// shows it however long ago it came; applied live, it changes nothing.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CellRestate {
    pub cell: usize,
    pub status: HostStatus,
    pub rtt: Option<Duration>,
    pub cellcli: Option<(i64, String)>,
    pub message: Option<String>,
}

impl Cells {
    /// Every cell's [`CellRestate`].
    pub fn restates(&self) -> Vec<CellRestate> {
        self.list
            .iter()
            .enumerate()
            .map(|(cell, c)| CellRestate {
                cell,
                status: c.link.status.clone(),
                rtt: c.link.rtt,
                cellcli: c.cellcli_text.clone(),
                message: c.link.message.clone(),
            })
            .collect()
    }

    pub fn restate(&mut self, r: CellRestate) {
        let Some(c) = self.list.get_mut(r.cell) else {
            return;
        };
        c.link.status = r.status;
        c.link.rtt = r.rtt;
        match r.cellcli {
            Some((at, text)) => {
                c.take_listing(at, text);
            }
            None => {
                c.cellcli = None;
                c.cellcli_text = None;
            }
        }
        c.link.message = r.message;
    }
}

impl App {
    pub fn ingest_cell_event(&mut self, ev: CellEvent) {
        self.cells.ingest(self.now_ms, ev);
        self.review_passphrases();
    }

    /// The app's clock ticked: closes an overdue all-cell round.
    pub fn cells_clock(&mut self) {
        self.cells.close_round(self.now_ms);
    }
}

/// A column of the cells table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellFig {
    Rtt,
    Group(
        crate::layers::cells::cell_metrics::Media,
        crate::layers::cells::model::GroupCol,
    ),
}

/// The figure columns of the cells table: the SSH round trip, then DISK's
/// and FLASH's main figures.
pub const CELL_TABLE: [(CellFig, &str); 11] = {
    use crate::layers::cells::cell_metrics::Media::{Disk, Flash};
    use crate::layers::cells::model::GroupCol::*;
    [
        (CellFig::Rtt, "rtt ms"),
        (CellFig::Group(Disk, RPerS), "D r/s"),
        (CellFig::Group(Disk, WPerS), "D w/s"),
        (CellFig::Group(Disk, RMbPerS), "D rMB/s"),
        (CellFig::Group(Disk, WMbPerS), "D wMB/s"),
        (CellFig::Group(Disk, Util), "D %util"),
        (CellFig::Group(Flash, RPerS), "F r/s"),
        (CellFig::Group(Flash, WPerS), "F w/s"),
        (CellFig::Group(Flash, RMbPerS), "F rMB/s"),
        (CellFig::Group(Flash, WMbPerS), "F wMB/s"),
        (CellFig::Group(Flash, Util), "F %util"),
    ]
};

impl App {
    /// A figure of cell `i` as the table shows it: "–" (None) for a cell
    /// whose figures are not current.
    pub fn cell_figure(&self, i: usize, fig: CellFig) -> Option<f64> {
        let c = self.cells.list.get(i)?;
        match fig {
            CellFig::Rtt => c.link.current_rtt().map(|d| d.as_secs_f64() * 1000.0),
            CellFig::Group(media, col) => c
                .current_groups(self.now_ms, self.cells.interval.ms())?
                .get(media)?
                .get(col),
        }
    }

    /// Indices of the cells listed: filtered by label and sorted as the
    /// user asked (by label, or a figure).
    pub fn cell_rows(&self) -> Vec<usize> {
        let filter = self.filter_text();
        let mut rows: Vec<(usize, &str)> = self
            .cells
            .list
            .iter()
            .enumerate()
            .map(|(i, c)| (i, c.link.target.label.as_str()))
            .filter(|(_, label)| filter.is_empty() || label.to_lowercase().contains(&filter))
            .collect();
        self.ui.cells.sort(
            &mut rows,
            |r| r.1,
            |r, c| self.cell_figure(r.0, CELL_TABLE.get(c)?.0),
        );
        rows.into_iter().map(|r| r.0).collect()
    }

    /// The disk figures of cell `i` on screen.
    pub fn cell_disk_tick(&self, i: usize) -> Option<&DiskTick> {
        self.cells.list.get(i).and_then(|c| c.disks.tick())
    }

    /// The whole disks of cell `i` that count in DISK or FLASH (only the
    /// group the user picked, if any), sorted as the user asked (by name,
    /// or an iostat figure).
    pub fn cell_disk_rows(&self, i: usize) -> Vec<&crate::layers::disks::tick::DiskRow> {
        let Some(tick) = self.cell_disk_tick(i) else {
            return Vec::new();
        };
        let mut rows: Vec<_> = tick
            .rows
            .iter()
            .filter(|r| match crate::layers::cells::model::media_of(r) {
                None => false,
                Some(m) => self.ui.cell_group.is_none_or(|g| g == m),
            })
            .collect();
        self.ui.cell_disks.sort(
            &mut rows,
            |r| r.name.as_str(),
            |r, c| r.rates?.get(DISK_HISTORY.get(c).copied()?),
        );
        rows
    }
}

impl App {
    /// All disks, DISK only, FLASH only, all again.
    pub(super) fn cycle_cell_group(&mut self) {
        use crate::layers::cells::cell_metrics::Media;
        self.ui.cell_group = match self.ui.cell_group {
            None => Some(Media::Disk),
            Some(Media::Disk) => Some(Media::Flash),
            Some(_) => None,
        };
    }

    /// Cell `i`'s devices' names as its table lists them.
    fn cell_disk_names(&self, i: usize) -> Vec<String> {
        self.cell_disk_rows(i)
            .iter()
            .map(|r| r.name.clone())
            .collect()
    }
}

/// The cells panel, one cell's view ([`View::Cell`]: its groups and its
/// disks) and one of its disks ([`View::CellDisk`]).
pub(super) struct CellsView;

impl LayerView for CellsView {
    fn id(&self) -> LayerId {
        LayerId::Cells
    }
    fn owns(&self, view: &View) -> bool {
        matches!(view, View::Cell(_) | View::CellDisk(..))
    }
    fn sorted<'a>(&self, app: &'a mut App) -> Option<(&'a mut ListUi, usize)> {
        match app.view() {
            View::Panel(_) => Some((&mut app.ui.cells, CELL_TABLE.len())),
            View::Cell(_) => Some((&mut app.ui.cell_disks, DISK_HISTORY.len())),
            _ => None,
        }
    }
    fn step(&self, app: &mut App, delta: isize) {
        match app.view() {
            View::Panel(_) => {
                let labels: Vec<String> = app
                    .cell_rows()
                    .iter()
                    .map(|&i| app.cells.list[i].link.target.label.clone())
                    .collect();
                app.ui.cells.step(&labels, delta);
            }
            View::Cell(i) => {
                let names = app.cell_disk_names(*i);
                app.ui.cell_disks.step(&names, delta);
            }
            _ => app.step_part(delta),
        }
    }
    fn enter(&self, app: &mut App) {
        match *app.view() {
            View::Panel(_) => {
                let rows = app.cell_rows();
                let labels: Vec<&str> = rows
                    .iter()
                    .map(|&i| app.cells.list[i].link.target.label.as_str())
                    .collect();
                if let Some(at) = app.ui.cells.enter(&labels) {
                    app.ui.cell_disks.selected = None;
                    app.ui.stack.push(View::Cell(rows[at]));
                }
            }
            View::Cell(i) => {
                let mut names = app.cell_disk_names(i);
                if let Some(at) = app.ui.cell_disks.enter(&names) {
                    app.ui.part_selected = None;
                    app.ui.stack.push(View::CellDisk(i, names.swap_remove(at)));
                }
            }
            View::CellDisk(i, _) => app.enter_part(|child| View::CellDisk(i, child)),
            _ => {}
        }
    }
    fn popped(&self, app: &mut App, view: View, _top: bool) {
        if let View::CellDisk(_, name) = view {
            app.ui.part_selected = None;
            if let Some(View::Cell(_)) = app.ui.stack.last() {
                app.ui.cell_disks.selected = Some(name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells() -> Cells {
        let target = |name: &str| HostTarget {
            label: name.into(),
            host: name.into(),
            port: 22,
            user: "celladmin".into(),
            identity: None,
        };
        Cells::new(
            vec![target("cel01"), target("cel02")],
            crate::core::duration::Interval::ONE_SECOND,
            10,
        )
    }

    /// A restate brings a fresh cell to what the restated one showed
    /// (status, round trip, listing with its time, message), and changes
    /// nothing on the cell it was taken from.
    #[test]
    fn a_restate_gives_back_what_no_sample_restates() {
        let listing = include_str!("../../tests/fixtures/cellcli/cel01-x7-report.txt");
        let mut live = cells();
        live.ingest(
            5_000,
            CellEvent::Cellcli {
                cell: 0,
                text: listing.into(),
            },
        );
        let events = [
            CellEvent::Status {
                cell: 0,
                status: HostStatus::Live,
            },
            CellEvent::Rtt {
                cell: 0,
                rtt: Duration::from_micros(1234),
            },
            CellEvent::Stderr {
                cell: 0,
                text: "sdb: medium error\n".into(),
            },
            CellEvent::Status {
                cell: 1,
                status: HostStatus::Unreachable("reset".into()),
            },
        ];
        for ev in events {
            live.ingest(9_000, ev);
        }
        let shown = |c: &Cells| format!("{:?}", c.list);
        let before = shown(&live);
        let restates = live.restates();
        for r in restates.clone() {
            live.restate(r);
        }
        assert_eq!(shown(&live), before, "a restate changes nothing live");
        let mut fresh = cells();
        for r in restates {
            fresh.restate(r);
        }
        assert_eq!(shown(&fresh), before);
        let c = &fresh.list[0];
        assert_eq!(c.cellcli.as_ref().map(|x| x.0), Some(5_000));
        assert_eq!(c.link.message.as_deref(), Some("sdb: medium error"));
        assert_eq!(c.link.rtt, Some(Duration::from_micros(1234)));
        assert_eq!(
            fresh.list[1].link.status,
            HostStatus::Unreachable("reset".into())
        );
    }

    #[test]
    fn a_listing_before_the_first_tick_has_no_age() {
        let listing = include_str!("../../tests/fixtures/cellcli/cel01-x7-report.txt");
        let mut c = cells();
        let ev = |cell| CellEvent::Cellcli {
            cell,
            text: listing.into(),
        };
        // The app's clock is 0 until its first tick.
        c.ingest(0, ev(0));
        c.ingest(1_795_891_194_000, ev(1));
        assert!(c.list[0].cellcli.is_some());
        assert_eq!(c.list[0].cellcli_age_s(1_795_891_194_000), None);
        assert_eq!(c.list[1].cellcli_age_s(1_795_891_206_500), Some(12));
        assert_eq!(c.list[1].cellcli_age_s(0), None);
    }
}

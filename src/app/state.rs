//! What the screen shows and how the user has arranged it.

use super::action::Action;
use super::cells::Cells;
use super::host::NodeState;
use super::list::ListUi;
use super::views;
use crate::config::Config;
use crate::core::duration::Interval;
use crate::core::host::{HostInfo, SelfUsage};
use crate::layers::col::Units;
use crate::layers::host::HostLayers;
use crate::layers::{LayerId, TABS};
use crate::link::HostStatus;
use crate::link::target::{HostTarget, NodeTarget};
use crate::store::{Budget, Window};
use crate::theme::Theme;

/// Top-level panels, in Tab order: the overview, then a layer's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Overview,
    Layer(LayerId),
}

impl Panel {
    /// The overview, then the layers' tabs in the registry's order.
    pub const ALL: [Panel; TABS.len() + 1] = {
        let mut all = [Panel::Overview; TABS.len() + 1];
        let mut i = 0;
        while i < TABS.len() {
            all[i + 1] = Panel::Layer(TABS[i]);
            i += 1;
        }
        all
    };

    /// The layer a tab shows; the overview is every layer's.
    pub fn layer(self) -> Option<LayerId> {
        match self {
            Panel::Overview => None,
            Panel::Layer(id) => Some(id),
        }
    }

    pub fn title(self) -> &'static str {
        self.layer().map_or("Overview", |l| l.def().title)
    }
}

/// One level of the drill-down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum View {
    Panel(Panel),
    /// One device: its charts, then its partitions or the devices under it.
    Disk(String),
    /// One NFS mount (by its key): its charts, then its operations.
    Nfs(String),
    /// One watched file (by its path): its residency over time.
    CacheFile(String),
    /// One interface (by name): its charts and link; a bond's slaves.
    Nic(String),
    /// One storage cell (by its index in `App::cells`): its DISK and FLASH
    /// groups and its disks.
    Cell(usize),
    /// One device of a cell (cell index, device name): the same view as a
    /// host device's, drawn from the cell's disks layer.
    CellDisk(usize, String),
    /// One role and instance of the process panel ("DBWR PROD1"): its
    /// processes on the hosts the panel shows.
    ProcRole(String),
    /// One process: its names as it was opened, and its charts.
    Proc(Box<super::procs::ProcNames>),
}

/// A labelled moment of the run: `m` in the UI or `strata mark`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    pub wall_ms: i64,
    pub label: String,
}

/// The whole state the view is drawn from.
pub struct App {
    pub host: HostInfo,
    pub config: Config,
    pub interval: Interval,
    pub theme: Theme,
    /// A message for the user (bad theme or config file, ...).
    pub notice: Option<String>,
    /// Wall clock for the header, ms since the Unix epoch; set by the loop.
    pub now_ms: i64,
    pub usage: SelfUsage,
    /// This machine's layers (or those of the tree under --root).
    pub local: HostLayers,
    /// Storage cells reached over SSH.
    pub cells: Cells,
    /// Database nodes (`--node`, `--node-group`, `[[node]]`); empty: the
    /// local host as ever.
    pub nodes: Vec<NodeState>,
    /// Labelled moments of the run, oldest first.
    pub markers: Vec<Marker>,
    /// The recording in progress, if any.
    pub recording: Option<super::session::RecStatus>,
    /// Set when the app shows a recording, not the live host.
    pub replay: Option<super::session::ReplayStatus>,
    /// What the loop is to do after the last key.
    pub(super) requests: Vec<super::session::Request>,
    /// Oracle databases whose Direct NFS views are read.
    pub dnfs: super::dnfs::Dnfs,
    /// Encrypted identity files' passphrases: the prompt and the store.
    pub passphrases: super::passphrase::Passphrases,
    pub quit: bool,
    pub ui: UiState,
    /// NO_COLOR is set: `t` must not bring colour back.
    pub no_color: bool,
    /// The theme strata started with, kept in the `t` cycle when it is the
    /// user's own.
    start_theme: Theme,
    /// The history every layer keeps, within the one budget of
    /// `config.history_memory`.
    pub(super) window: Window,
    /// The user was told the history budget ran out.
    told_budget: bool,
}

/// Ticks of history a recorder without a screen keeps: the least a
/// history holds, since nothing draws them.
pub const HEADLESS_TICKS: usize = 2;

#[derive(Debug)]
pub struct UiState {
    /// Drill-down path; never empty.
    pub stack: Vec<View>,
    /// The node whose layers the panels show (`n` cycles); `None`: this
    /// machine.
    pub node: Option<usize>,
    /// The node selected on the cluster overview (Enter shows it).
    pub cluster_selected: usize,
    /// The disks table: selected device, sort (an index into DISK_COLS).
    pub disks: ListUi,
    /// The NFS table (sort: an index into NFS_TABLE).
    pub nfs: ListUi,
    /// A mount's operations (sort: an index into NFS_OP_COLS).
    pub nfs_ops: ListUi,
    /// The watched files (sort: an index into FILE_COLS).
    pub cache_files: ListUi,
    /// The cluster's page cache, a row per node (sort: an index into
    /// CACHE_NODE_TABLE).
    pub cache_nodes: ListUi,
    /// The NIC table (sort: an index into NIC_TABLE).
    pub nics: ListUi,
    /// The cells table (sort: an index into CELL_TABLE), and one cell's
    /// disks table.
    pub cells: ListUi,
    pub cell_disks: ListUi,
    /// Where the database panel is: database → instance → server → channel.
    pub dnfs: super::dnfs::DnfsUi,
    /// The one cell's disks table shows only this group (`m` cycles it).
    pub cell_group: Option<crate::layers::cells::cell_metrics::Media>,
    /// The slave table of a bond's detail view.
    pub slaves: ListUi,
    /// The process panel's roles (sort: an index into ROLE_TABLE) and a
    /// role's processes (sort: an index into PROC_TABLE).
    pub proc_roles: ListUi,
    pub procs: ListUi,
    /// The NIC table lists every interface, not only used wire-facing ones.
    pub show_all_nics: bool,
    /// Selected row among a device's parts in its detail view.
    pub part_selected: Option<String>,
    pub filter: String,
    /// The filter being typed, while the prompt is open.
    pub filter_edit: Option<String>,
    pub show_partitions: bool,
    pub show_all_devices: bool,
    pub units: Units,
    /// The user has paused: every layer shows what it had then.
    pub paused: bool,
    pub help: bool,
    /// The first line of the help shown, and as the help was last drawn,
    /// its lines shown and the first line of its last page.
    pub help_scroll: usize,
    pub help_rows: (usize, usize),
    /// Rows the last drawn table could show, for page up and down.
    pub page_rows: usize,
    /// A marker's label or a replay time being typed.
    pub prompt: Option<super::session::TextPrompt>,
    /// The list of markers is open, with this row selected.
    pub marker_list: Option<usize>,
}

impl App {
    pub fn new(config: Config, theme: Theme, host: HostInfo, interval: Interval) -> App {
        let start_theme = theme.clone();
        let (ticks, capped) = crate::config::history_ticks(config.history_secs, interval);
        let budget = usize::try_from(config.history_memory).unwrap_or(usize::MAX);
        let window = Window {
            ticks,
            budget: Budget::new(budget),
            // The user's window, not the ticks a headless recorder keeps,
            // and two samples at the least (a 10 s history at 60 s).
            forget_cs: (config.history_secs as f64 * 100.0)
                .max(ticks as f64 * interval.secs() * 100.0) as u64,
        };
        let mut ui = UiState {
            stack: vec![View::Panel(Panel::Overview)],
            node: None,
            cluster_selected: 0,
            // each layer's view sorts its tables as they first open
            disks: ListUi::default(),
            nfs: ListUi::default(),
            nfs_ops: ListUi::default(),
            cache_files: ListUi::default(),
            cache_nodes: ListUi::default(),
            nics: ListUi::default(),
            cells: ListUi::default(),
            cell_disks: ListUi::default(),
            dnfs: Default::default(),
            cell_group: None,
            slaves: ListUi::default(),
            proc_roles: ListUi::default(),
            procs: ListUi::default(),
            show_all_nics: false,
            part_selected: None,
            filter: String::new(),
            filter_edit: None,
            show_partitions: config.show_partitions,
            show_all_devices: config.show_all_devices,
            units: config.units,
            paused: false,
            help: false,
            help_scroll: 0,
            help_rows: (0, 0),
            page_rows: 10,
            prompt: None,
            marker_list: None,
        };
        for v in views::all() {
            v.open(&mut ui);
        }
        App {
            notice: capped,
            host,
            config,
            interval,
            theme,
            now_ms: 0,
            usage: SelfUsage::default(),
            local: HostLayers::new(&window),
            cells: Cells::default(),
            nodes: Vec::new(),
            markers: Vec::new(),
            recording: None,
            replay: None,
            requests: Vec::new(),
            dnfs: Default::default(),
            passphrases: Default::default(),
            quit: false,
            ui,
            no_color: false,
            start_theme,
            window,
            told_budget: false,
        }
    }

    /// A recorder without a screen: nothing draws its history, so each
    /// ring keeps the least ([`HEADLESS_TICKS`]) instead of the whole
    /// `history`. `config` is kept: the recording carries it, and its
    /// replays chart the user's window. Before the first input.
    pub fn headless(&mut self) {
        self.window.ticks = HEADLESS_TICKS;
        self.fresh_layers();
    }

    /// Ticks of history each entity keeps.
    pub fn history_ticks(&self) -> usize {
        self.window.ticks
    }

    /// The budget all the app's history rings are charged to.
    pub fn history_budget(&self) -> &Budget {
        &self.window.budget
    }

    /// Every layer anew, without samples, for the same cells, nodes and
    /// databases.
    fn fresh_layers(&mut self) {
        self.local = HostLayers::new(&self.window);
        let cells = self
            .cells
            .list
            .iter()
            .map(|c| c.link.target.clone())
            .collect();
        self.cells = Cells::new(cells, self.interval, &self.window);
        let dbs = self.dnfs.list.iter().map(|d| d.target.clone()).collect();
        self.dnfs = super::dnfs::Dnfs::new(dbs, self.interval, &self.window);
        for n in &mut self.nodes {
            *n = NodeState::new(n.link.target.clone(), &self.window);
        }
    }

    /// Once, when the history budget first refuses an entity its rings.
    pub(super) fn tell_budget(&mut self) {
        if self.told_budget || !self.window.budget.ran_out() {
            return;
        }
        self.told_budget = true;
        let note = format!(
            "history budget ({}) full: some series have no charts; raise history_memory",
            crate::format::bytes(self.window.budget.limit() as u64)
        );
        self.add_notes(None, Some(note));
    }

    /// Puts `before` in the footer ahead of what it already says and
    /// `after` behind it, all on one line.
    pub fn add_notes(
        &mut self,
        before: impl IntoIterator<Item = String>,
        after: impl IntoIterator<Item = String>,
    ) {
        let notes: Vec<String> = before
            .into_iter()
            .chain(self.notice.take())
            .chain(after)
            .collect();
        if !notes.is_empty() {
            self.notice = Some(notes.join(" · "));
        }
    }

    /// The node `n` chose, whose layers the panels show; `None`: this
    /// machine, or the cluster.
    pub fn shown_node(&self) -> Option<&NodeState> {
        self.ui.node.and_then(|i| self.nodes.get(i))
    }

    /// The host whose layers the panels show: the node `n` chose, else
    /// this machine.
    pub fn host(&self) -> &HostLayers {
        match self.shown_node() {
            Some(n) => &n.layers,
            None => &self.local,
        }
    }

    pub(super) fn host_mut(&mut self) -> &mut HostLayers {
        match self.ui.node.and_then(|i| self.nodes.get_mut(i)) {
            Some(n) => &mut n.layers,
            None => &mut self.local,
        }
    }

    /// Cluster → node 1 → … → node N → cluster. A drill-down into a
    /// device or an interface goes back to its panel: the next node may
    /// not have it.
    fn cycle_node(&mut self) {
        if self.nodes.is_empty() {
            return;
        }
        let from = self.ui.node;
        self.ui.node = match from {
            None => Some(0),
            Some(i) if i + 1 < self.nodes.len() => Some(i + 1),
            Some(_) => None,
        };
        self.carry_selection(from, self.ui.node);
        self.ui.stack.truncate(1);
    }

    /// Carries the selection of the panel's table from one host's table
    /// to the next one's; false for a panel that has no cluster table.
    fn carry_selection(&mut self, from: Option<usize>, to: Option<usize>) -> bool {
        match self.panel().layer() {
            Some(id) => views::of(id).is_some_and(|v| v.carry(self, from, to)),
            None => false,
        }
    }

    /// The database nodes, in the order their samplers number them.
    pub fn set_nodes(&mut self, targets: Vec<NodeTarget>) {
        self.nodes = targets
            .into_iter()
            .map(|t| NodeState::new(t, &self.window))
            .collect();
        self.ui.node = None;
    }

    /// The cells to show, in the order their samplers number them.
    pub fn set_cells(&mut self, targets: Vec<HostTarget>) {
        self.cells = Cells::new(targets, self.interval, &self.window);
    }

    /// Forgets every sample, keeping how the user has arranged the screen:
    /// replay rebuilds the figures of a new position from its inputs.
    pub fn reset_data(&mut self) {
        self.now_ms = 0;
        self.usage = SelfUsage::default();
        self.fresh_layers();
        self.markers = Vec::new();
    }

    pub fn add_marker(&mut self, wall_ms: i64, label: String) {
        self.markers.push(Marker { wall_ms, label });
    }

    pub fn paused(&self) -> bool {
        self.ui.paused
    }

    /// While paused, copies the series the current view draws out of the
    /// live history, so they stop eroding.
    fn freeze_view(&mut self) {
        if !self.ui.paused {
            return;
        }
        for v in views::all() {
            v.keep(self);
        }
    }

    pub fn view(&self) -> &View {
        self.ui
            .stack
            .last()
            .unwrap_or(&View::Panel(Panel::Overview))
    }

    pub fn panel(&self) -> Panel {
        match self.ui.stack.first() {
            Some(View::Panel(p)) => *p,
            _ => Panel::Overview,
        }
    }

    /// Pause freezes every layer's view where it is (dNFS keeps its
    /// pause's time); going on thaws them.
    fn toggle_pause(&mut self) {
        self.ui.paused = !self.ui.paused;
        if self.ui.paused {
            self.local.freeze();
            self.nodes.iter_mut().for_each(|n| n.layers.freeze());
            self.dnfs.pause(self.now_ms);
        } else {
            self.local.thaw();
            self.nodes.iter_mut().for_each(|n| n.layers.thaw());
            self.dnfs.resume();
        }
        self.freeze_view();
    }

    /// Back out of a drill-down (or a dNFS view's own level), or clear the
    /// filter at the top.
    fn go_back(&mut self) {
        if let Some(v) = self.view().layer().and_then(views::of)
            && v.back(self)
        {
            return;
        }
        if self.ui.stack.len() > 1 {
            // back in the table, the entity drilled into stays selected
            let top = self.ui.stack.len() == 2;
            if let Some(view) = self.ui.stack.pop()
                && let Some(v) = view.layer().and_then(views::of)
            {
                v.popped(self, view, top);
            }
        } else if !self.ui.filter.is_empty() {
            self.ui.filter.clear();
        } else if let Some(i) = self.ui.node.take() {
            // node → cluster, the node still selected: its overview, or
            // the cluster's table of the layer, on the row of that node
            // the user was on; the cluster has no other panel.
            self.ui.cluster_selected = i;
            if !self.carry_selection(Some(i), None) {
                self.ui.stack = vec![View::Panel(Panel::Overview)];
            }
        }
    }

    /// Scrolls the current table's columns by one, left (-1) or right.
    fn scroll_columns(&mut self, by: isize) {
        if let Some(list) = self.scrolled_list() {
            list.col_offset = list.col_offset.saturating_add_signed(by);
        }
    }

    fn start_filter(&mut self) {
        // a drill-down that lists its own rows filters them where it is
        let here = self.view().layer().and_then(views::of);
        if here.is_some_and(|v| v.filters_in_place(self.view())) {
            self.ui.filter_edit = Some(self.ui.filter.clone());
            return;
        }
        // a filter narrows the panel's table; the overview has none
        let panel = match self.panel() {
            Panel::Overview => Panel::Disks,
            p => p,
        };
        self.ui.stack = vec![View::Panel(panel)];
        self.ui.filter_edit = Some(self.ui.filter.clone());
    }

    pub fn update(&mut self, action: Action) {
        // a message has been seen once the user acts
        self.notice = None;
        if self.update_passphrase(&action) {
            return;
        }
        if !self.ui.help && self.update_session(&action) {
            return;
        }
        if self.ui.help {
            self.update_help(&action);
            return;
        }
        match action {
            Action::Quit => self.quit = true,
            Action::ToggleHelp => {
                self.ui.help = true;
                self.ui.help_scroll = 0;
            }
            Action::TogglePause => self.toggle_pause(),
            Action::CycleTheme => self.cycle_theme(),
            // update_session has taken these
            Action::ToggleRecord
            | Action::AddMarker
            | Action::ListMarkers
            | Action::StepBack
            | Action::StepForward
            | Action::JumpBack
            | Action::JumpForward
            | Action::JumpToTime
            | Action::PrevMarker
            | Action::NextMarker
            | Action::Faster
            | Action::Slower => {}
            Action::Up => self.move_selection(-1),
            Action::Down => self.move_selection(1),
            Action::PageUp => self.move_selection(-(self.ui.page_rows.max(1) as isize)),
            Action::PageDown => self.move_selection(self.ui.page_rows.max(1) as isize),
            Action::Top => self.move_selection(isize::MIN / 2),
            Action::Bottom => self.move_selection(isize::MAX / 2),
            // each table clamps its own offset when it is drawn
            Action::Left => self.scroll_columns(-1),
            Action::Right => self.scroll_columns(1),
            Action::Enter => {
                self.drill_down();
                self.freeze_view();
            }
            Action::Back => self.go_back(),
            Action::NextPanel => self.switch_panel(1),
            Action::PrevPanel => self.switch_panel(Panel::ALL.len() - 1),
            Action::GotoPanel(i) => {
                if let Some(p) = Panel::ALL.get(i) {
                    self.open_panel(*p);
                }
            }
            Action::SortNext => self.cycle_sort(1),
            Action::SortPrev => self.cycle_sort(-1),
            Action::SortReverse => {
                if let Some((list, _)) = self.sorted_list() {
                    list.desc = !list.desc;
                }
            }
            Action::StartFilter => self.start_filter(),
            Action::FilterChar(c) => {
                if let Some(f) = &mut self.ui.filter_edit {
                    f.push(c);
                }
            }
            Action::FilterBackspace => {
                if let Some(f) = &mut self.ui.filter_edit {
                    f.pop();
                }
            }
            Action::FilterCommit => {
                if let Some(f) = self.ui.filter_edit.take() {
                    self.ui.filter = f;
                }
            }
            Action::FilterCancel => {
                self.ui.filter_edit = None;
                self.ui.filter.clear();
            }
            Action::TogglePartitions => self.ui.show_partitions = !self.ui.show_partitions,
            Action::ToggleAllDevices => {
                let view = self.panel().layer().and_then(views::of);
                if !view.is_some_and(|v| v.toggle_all(self)) {
                    self.ui.show_all_devices = !self.ui.show_all_devices;
                }
            }
            Action::CycleGroup => self.cycle_cell_group(),
            Action::CycleNode => self.cycle_node(),
            Action::ToggleUnits => {
                self.ui.units = match self.ui.units {
                    Units::KB => Units::MB,
                    Units::MB => Units::KB,
                }
            }
            // the prompt's, applied by update_passphrase above
            Action::PassphraseChar(_)
            | Action::PassphraseBackspace
            | Action::PassphraseClear
            | Action::PassphraseSubmit
            | Action::PassphraseDismiss
            | Action::AskPassphrase => {}
        }
    }

    pub fn filtering(&self) -> bool {
        self.ui.filter_edit.is_some()
    }

    pub fn key_mode(&self) -> crate::app::keymap::KeyMode {
        use crate::app::keymap::KeyMode;
        if self.passphrases.prompt.is_some() {
            KeyMode::Passphrase
        } else if self.ui.help {
            KeyMode::Help
        } else if self.filtering() || self.ui.prompt.is_some() {
            KeyMode::Filter
        } else {
            KeyMode::Normal
        }
    }

    fn cycle_theme(&mut self) {
        if self.no_color {
            self.notice = Some("NO_COLOR is set: themes with colour stay off".into());
            return;
        }
        let builtins = Theme::builtin_names();
        let own = !builtins.contains(&self.start_theme.name.as_str());
        let at = builtins.iter().position(|n| *n == self.theme.name);
        self.theme = match at {
            Some(i) if i + 1 == builtins.len() && own => self.start_theme.clone(),
            Some(_) => self.theme.next_builtin(),
            None => Theme::builtin(builtins[0]).unwrap_or_default(),
        };
    }

    fn switch_panel(&mut self, step: usize) {
        let i = Panel::ALL
            .iter()
            .position(|p| *p == self.panel())
            .unwrap_or(0);
        self.open_panel(Panel::ALL[(i + step) % Panel::ALL.len()]);
    }

    /// Opens a panel at its top. A filter belongs to the table it was typed
    /// for: "sd" narrows disks, and would hide every NFS mount.
    fn open_panel(&mut self, panel: Panel) {
        if panel != self.panel() {
            self.ui.filter.clear();
            self.ui.filter_edit = None;
        }
        self.ui.stack = vec![View::Panel(panel)];
    }

    /// Why the node whose layers are shown has no current figures: it is
    /// not connected (its status says why: `whole`, the whole sentence,
    /// else a word or two) or it stopped sending; with how old its last
    /// figures are, when it has some. `None` on this machine, on a node
    /// whose figures are current, on a connected node before its first
    /// sample (its figures come with its second), and while paused on
    /// a node with figures (they are those of the pause, and the header
    /// says so).
    pub fn shown_node_not_current(&self, whole: bool) -> Option<String> {
        use super::host::NodeShown;
        let n = self.shown_node()?;
        let interval_ms = self.interval.ms();
        let state = n.link.state(self.now_ms, interval_ms);
        let sampled = n.link.last_sample_ms.is_some();
        if state.is_live() || (self.paused() && sampled) {
            return None;
        }
        let why = if whole {
            match n.link.not_current(&state, self.now_ms) {
                Some(why) => why,
                // it never sampled
                None => match &n.link.status {
                    HostStatus::Live => return None,
                    HostStatus::Connecting => "connecting…".into(),
                    status => status.to_string(),
                },
            }
        } else {
            match n.shown(self.now_ms, interval_ms) {
                NodeShown::Live => return None,
                NodeShown::Stale(_) if !sampled => return None,
                NodeShown::Stale(s) => format!("stale {s} s"),
                NodeShown::Down(word) => word,
            }
        };
        Some(super::link::named_reason(n.link.target.label(), &why))
    }

    /// What the node shown last wrote on stderr (its sampler's shell, a
    /// command it runs), if anything.
    pub fn shown_node_message(&self) -> Option<&str> {
        let n = self.shown_node()?;
        n.link.message.as_deref()
    }

    /// Every database node is down (none connected): the cluster's tables
    /// have nothing to wait for.
    pub fn no_node_connected(&self) -> bool {
        !self.nodes.is_empty()
            && self
                .nodes
                .iter()
                .all(|n| !matches!(n.link.status, HostStatus::Live | HostStatus::Connecting))
    }

    /// No database node's figures are current, and none waits for its
    /// first: the cluster's tables list none and will not by waiting.
    pub fn no_node_current(&self) -> bool {
        let interval_ms = self.interval.ms();
        !self.nodes.is_empty()
            && self.nodes.iter().all(|n| {
                let first = matches!(n.link.status, HostStatus::Live | HostStatus::Connecting)
                    && n.link.last_sample_ms.is_none();
                !first && !n.link.is_current(self.now_ms, interval_ms)
            })
    }

    /// The node shown, or with none chosen every node, failed to connect
    /// and never sent a sample: not stale, it never had figures.
    pub fn never_connected(&self) -> bool {
        let never = |n: &NodeState| {
            n.link.last_sample_ms.is_none()
                && !matches!(n.link.status, HostStatus::Live | HostStatus::Connecting)
        };
        match self.shown_node() {
            Some(n) => never(n),
            None => self.shows_cluster() && self.nodes.iter().all(never),
        }
    }

    /// The node shown has stopped sending: its panels hold old figures.
    pub fn shown_node_stale(&self) -> bool {
        let interval_ms = self.interval.ms();
        self.shown_node()
            .is_some_and(|n| !n.link.is_current(self.now_ms, interval_ms))
    }

    /// The table the sort keys act on in the current view, and its
    /// number of figure columns.
    fn sorted_list(&mut self) -> Option<(&mut ListUi, usize)> {
        views::of(self.view().layer()?)?.sorted(self)
    }

    /// The table h/l scroll sideways in the current view.
    fn scrolled_list(&mut self) -> Option<&mut ListUi> {
        views::of(self.view().layer()?)?.scrolled(self)
    }

    /// The moving keys scroll the help overlay, any other closes it;
    /// quitting still works.
    fn update_help(&mut self, action: &Action) {
        let page = self.ui.help_rows.0.max(1) as isize;
        match action {
            Action::Quit => self.quit = true,
            Action::Up => self.scroll_help(-1),
            Action::Down => self.scroll_help(1),
            Action::PageUp => self.scroll_help(-page),
            Action::PageDown => self.scroll_help(page),
            Action::Top => self.scroll_help(isize::MIN / 2),
            Action::Bottom => self.scroll_help(isize::MAX / 2),
            _ => self.ui.help = false,
        }
    }

    fn scroll_help(&mut self, delta: isize) {
        let last = self.ui.help_rows.1;
        self.ui.help_scroll = self.ui.help_scroll.saturating_add_signed(delta).min(last);
    }

    /// Takes back what the last frame learned from layout: the rows a
    /// page moves and where the view's table stands. The view is drawn
    /// from the same state, so its table is the one h/l act on.
    pub fn apply_drawn(&mut self, drawn: super::list::Drawn) {
        if let Some(rows) = drawn.help_rows {
            self.ui.help_rows = rows;
            self.ui.help_scroll = self.ui.help_scroll.min(rows.1);
        }
        if let Some(rows) = drawn.page_rows {
            self.ui.page_rows = rows;
        }
        if let (Some(scroll), Some(list)) = (drawn.scroll, self.scrolled_list()) {
            list.offset = scroll.offset;
            list.col_offset = scroll.col_offset;
        }
    }

    fn cycle_sort(&mut self, step: isize) {
        if let Some((list, cols)) = self.sorted_list() {
            list.cycle_sort(cols, step);
        }
    }

    /// The filter as typed or kept, lower case.
    pub fn filter_text(&self) -> String {
        self.ui
            .filter_edit
            .as_deref()
            .unwrap_or(&self.ui.filter)
            .to_lowercase()
    }

    fn move_selection(&mut self, delta: isize) {
        match self.view().layer() {
            Some(id) => {
                if let Some(v) = views::of(id) {
                    v.step(self, delta);
                }
            }
            None if self.shows_cluster() => {
                let last = self.nodes.len().saturating_sub(1) as isize;
                let i = (self.ui.cluster_selected as isize).saturating_add(delta);
                self.ui.cluster_selected = i.clamp(0, last) as usize;
            }
            None => {}
        }
    }

    /// The overview is the cluster's: there are nodes and none is chosen.
    pub fn shows_cluster(&self) -> bool {
        !self.nodes.is_empty() && self.ui.node.is_none()
    }

    fn drill_down(&mut self) {
        match self.view().layer() {
            Some(id) => {
                if let Some(v) = views::of(id) {
                    v.enter(self);
                }
            }
            // cluster → node: its own overview
            None if self.shows_cluster() => {
                self.ui.node = Some(self.ui.cluster_selected.min(self.nodes.len() - 1));
            }
            None => self.ui.stack = vec![View::Panel(Panel::Disks)],
        }
    }
}

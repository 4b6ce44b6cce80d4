//! The process layer of the app: who does the I/O. Its panel is a table
//! of roles (an Oracle role and instance, or a command) per host, and in
//! the cluster's table each node's rows and the cluster's sums; Enter on
//! a role lists its processes, Enter on a process shows its charts.

use super::list::ListUi;
use super::state::{App, UiState, View};
use super::views::LayerView;
use crate::layers::LayerId;
use crate::layers::host::HostLayers;
use crate::layers::procs::model::{ProcCol, ProcFig, ProcFigures, ProcTick, RoleFig, figures};
use crate::layers::procs::pid::IoCounters;
use crate::layers::procs::state::{ALL_ENTITY, proc_entity, role_entity};

/// A figure column of the roles table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleColumn {
    /// Processes of the role whose counters moved.
    Active,
    Fig(ProcCol),
}

/// The roles table's figure columns, in their order.
pub const ROLE_TABLE: [RoleColumn; 7] = [
    RoleColumn::Active,
    RoleColumn::Fig(ProcCol::KbRd),
    RoleColumn::Fig(ProcCol::KbWr),
    RoleColumn::Fig(ProcCol::Iodelay),
    RoleColumn::Fig(ProcCol::IoPct),
    RoleColumn::Fig(ProcCol::KbRchar),
    RoleColumn::Fig(ProcCol::KbWchar),
];

/// The process table's figure columns: every one of pidstat -d's and the
/// syscall layer's.
pub const PROC_TABLE: [ProcCol; 9] = [
    ProcCol::KbRd,
    ProcCol::KbWr,
    ProcCol::KbCcwr,
    ProcCol::Iodelay,
    ProcCol::IoPct,
    ProcCol::KbRchar,
    ProcCol::KbWchar,
    ProcCol::Syscr,
    ProcCol::Syscw,
];

/// What the key of a cluster's sum row starts with.
pub const SUM_MARK: &str = "\u{2211} ";

/// What a cluster's sum of a role over its nodes and instances is named
/// by, after the role: "DBWR (all)".
pub const ALL_INSTANCES: &str = " (all)";

/// One row of the roles table: a role and instance of one host, or in
/// the cluster's table of one node or summed over the live nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleLine {
    /// The node the row is of in the cluster's table; `None`: the host
    /// shown, or the cluster's sum.
    pub node: Option<usize>,
    /// Summed over the cluster's live nodes.
    pub sum: bool,
    /// What the selection follows.
    pub key: String,
    /// "DBWR PROD1": the role's name, which the processes view opens.
    pub name: String,
    pub role: String,
    pub instance: Option<String>,
    pub active: u32,
    pub unreadable: u32,
    pub figures: ProcFigures,
}

impl RoleLine {
    pub fn value(&self, col: RoleColumn) -> Option<f64> {
        match col {
            RoleColumn::Active => Some(f64::from(self.active)),
            RoleColumn::Fig(c) => self.figures.get(c),
        }
    }
}

/// One row of a role's processes.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcLine<'a> {
    pub node: Option<usize>,
    pub key: String,
    pub user: String,
    pub fig: &'a ProcFig,
}

impl ProcLine<'_> {
    /// The process as a sort by name and the filter read it: its command
    /// line, else its command.
    pub fn name(&self) -> &str {
        let r = &self.fig.row;
        if r.cmd.is_empty() { &r.comm } else { &r.cmd }
    }
}

/// One process as its view names it: taken when it was opened, so that
/// an interval it is idle in (no row in the tick) keeps its names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcNames {
    pub pid: u32,
    /// Clock ticks after boot: with the PID it names the process.
    pub start: u64,
    pub user: String,
    pub comm: String,
    pub cmd: String,
    pub role: String,
    pub instance: Option<String>,
}

impl ProcNames {
    /// Its history entity.
    pub fn entity(&self) -> String {
        proc_entity(self.pid, self.start)
    }
}

/// A process's key in its host's table: "PID start".
fn proc_key(f: &ProcFig) -> String {
    format!("{} {}", f.row.pid, f.row.start)
}

/// A host's process figures on screen, when it has some.
pub fn proc_tick(h: &HostLayers) -> Option<&ProcTick> {
    h.procs.tick()?.figures.as_deref()
}

/// The user name of `uid` on a host.
pub fn user_of(t: &ProcTick, uid: u32) -> String {
    t.users
        .get(&uid)
        .cloned()
        .unwrap_or_else(|| uid.to_string())
}

/// A role that did nothing on a host whose figures are known: no I/O,
/// no delay where the kernel keeps it.
fn idle(t: &ProcTick) -> ProcFigures {
    figures(Some(&IoCounters::default()), Some(0), 1, t.delayacct)
}

/// Adds `from` into `to`, a figure unknown in either unknown in the sum.
fn add_into(to: &mut ProcFigures, from: &ProcFigures) {
    for (t, f) in to.0.iter_mut().zip(from.0.iter()) {
        *t = match (*t, *f) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
}

impl App {
    /// The roles table's rows, before the filter and the sort: the shown
    /// host's roles, or in the cluster's table each live node's and, for
    /// each role on more than one node or of more than one instance, the
    /// sum over the live nodes and every instance, "DBWR (all)" (a node
    /// without it adds nothing; a figure unknown on a node, or a node
    /// without figures, makes the sum's unknown).
    fn role_lines_all(&self) -> Vec<RoleLine> {
        let hosts = self.shown_hosts();
        let line = |i: Option<usize>, r: &RoleFig| {
            let name = r.name();
            RoleLine {
                node: i,
                sum: false,
                key: i.map_or_else(|| name.clone(), |i| self.cluster_key(i, &name)),
                name,
                role: r.role.label(),
                instance: r.instance.clone(),
                active: r.active,
                unreadable: r.unreadable,
                figures: r.figures,
            }
        };
        let mut lines: Vec<RoleLine> = hosts
            .iter()
            .flat_map(|(i, h)| {
                proc_tick(h)
                    .map_or(&[][..], |t| &t.roles[..])
                    .iter()
                    .map(move |r| line(*i, r))
            })
            .collect();
        if self.shows_cluster() {
            let mut sums: Vec<RoleLine> = Vec::new();
            for l in &lines {
                // A role of one instance on one node is its own sum; a
                // role on several nodes or of several instances is summed
                // over them all (a RAC database's DBWR of PROD1 and PROD2).
                let on = lines.iter().filter(|o| o.role == l.role).count();
                let name = format!("{}{ALL_INSTANCES}", l.role);
                if on < 2 || sums.iter().any(|s| s.name == name) {
                    continue;
                }
                let instanced = lines
                    .iter()
                    .any(|o| o.role == l.role && o.instance.is_some());
                let mut sum = RoleLine {
                    node: None,
                    sum: true,
                    key: format!("{SUM_MARK}{name}"),
                    instance: instanced.then(|| "all".to_string()),
                    name,
                    active: 0,
                    unreadable: 0,
                    figures: ProcFigures::new(
                        [Some(0.0); crate::layers::procs::model::PROC_COLS.len()],
                    ),
                    ..l.clone()
                };
                for (_, h) in &hosts {
                    let Some(t) = proc_tick(h) else {
                        sum.figures = ProcFigures::default();
                        continue;
                    };
                    let mut any = false;
                    for r in t.roles.iter().filter(|r| r.role.label() == l.role) {
                        any = true;
                        sum.active += r.active;
                        sum.unreadable += r.unreadable;
                        add_into(&mut sum.figures, &r.figures);
                    }
                    if !any {
                        add_into(&mut sum.figures, &idle(t));
                    }
                }
                sums.push(sum);
            }
            lines.extend(sums);
        }
        lines
    }

    /// The roles table's rows, filtered and sorted as the user asked.
    pub fn role_lines(&self) -> Vec<RoleLine> {
        let mut lines = self.role_lines_all();
        let filter = self.filter_text();
        if !filter.is_empty() {
            let label = |l: &RoleLine| match l.node {
                Some(i) => self
                    .nodes
                    .get(i)
                    .is_some_and(|n| n.link.target.label().to_lowercase().contains(&filter)),
                None => l.sum && "cluster".contains(&filter),
            };
            lines.retain(|l| label(l) || l.name.to_lowercase().contains(&filter));
        }
        self.ui.proc_roles.sort(
            &mut lines,
            |l| &l.name,
            |l, c| ROLE_TABLE.get(c).and_then(|c| l.value(*c)),
        );
        lines
    }

    /// The roles table's rows before the filter, for its title's count.
    pub fn role_count(&self) -> usize {
        self.role_lines_all().len()
    }

    /// The processes of role `name` on the hosts the roles table draws
    /// from, filtered and sorted as asked.
    pub fn proc_lines(&self, name: &str) -> Vec<ProcLine<'_>> {
        let mut lines = self.proc_lines_all(name);
        let filter = self.filter_text();
        if !filter.is_empty() {
            lines.retain(|l| {
                let r = &l.fig.row;
                let node = l
                    .node
                    .and_then(|i| self.nodes.get(i))
                    .is_some_and(|n| n.link.target.label().to_lowercase().contains(&filter));
                node || r.pid.to_string().contains(&filter)
                    || l.user.to_lowercase().contains(&filter)
                    || r.comm.to_lowercase().contains(&filter)
                    || r.cmd.to_lowercase().contains(&filter)
            });
        }
        self.ui.procs.sort(
            &mut lines,
            |l| l.name(),
            |l, c| PROC_TABLE.get(c).and_then(|c| l.fig.figures.get(*c)),
        );
        lines
    }

    /// The processes of role `name`, before the filter.
    pub fn proc_lines_all(&self, name: &str) -> Vec<ProcLine<'_>> {
        self.shown_hosts()
            .into_iter()
            .flat_map(|(i, h)| {
                let t = proc_tick(h);
                let procs = t.map_or(&[][..], |t| &t.procs[..]);
                procs
                    .iter()
                    .filter(move |p| {
                        role_name(p) == name
                            || name
                                .strip_suffix(ALL_INSTANCES)
                                .is_some_and(|role| p.row.role.label() == role)
                    })
                    .map(move |p| {
                        let own = proc_key(p);
                        ProcLine {
                            node: i,
                            key: i.map_or_else(|| own.clone(), |i| self.cluster_key(i, &own)),
                            user: t
                                .map_or_else(|| p.row.uid.to_string(), |t| user_of(t, p.row.uid)),
                            fig: p,
                        }
                    })
            })
            .collect()
    }

    /// The process `names` names on the host shown, if it did I/O in
    /// the interval on screen.
    pub fn proc_fig(&self, names: &ProcNames) -> Option<&ProcFig> {
        proc_tick(self.host())?
            .procs
            .iter()
            .find(|p| p.row.pid == names.pid && p.row.start == names.start)
    }

    /// The role a process view or a processes view is of.
    fn shown_role(&self) -> Option<String> {
        self.ui.stack.iter().rev().find_map(|v| match v {
            View::ProcRole(name) => Some(name.clone()),
            _ => None,
        })
    }
}

/// A process's role and instance as the roles table names it.
pub fn role_name(p: &ProcFig) -> String {
    match &p.row.instance {
        Some(i) => format!("{} {i}", p.row.role.label()),
        None => p.row.role.label(),
    }
}

/// The process panel, a role's processes ([`View::ProcRole`]) and one
/// process ([`View::Proc`]).
pub(super) struct ProcsView;

impl LayerView for ProcsView {
    fn id(&self) -> LayerId {
        LayerId::Procs
    }
    fn owns(&self, view: &View) -> bool {
        matches!(view, View::ProcRole(_) | View::Proc(_))
    }
    fn sorted<'a>(&self, app: &'a mut App) -> Option<(&'a mut ListUi, usize)> {
        match app.view() {
            View::Panel(_) => Some((&mut app.ui.proc_roles, ROLE_TABLE.len())),
            View::ProcRole(_) => Some((&mut app.ui.procs, PROC_TABLE.len())),
            _ => None,
        }
    }
    fn filters_in_place(&self, view: &View) -> bool {
        matches!(view, View::ProcRole(_))
    }
    fn step(&self, app: &mut App, delta: isize) {
        match app.view().clone() {
            View::Panel(_) => {
                let keys: Vec<String> = app.role_lines().into_iter().map(|l| l.key).collect();
                app.ui.proc_roles.step(&keys, delta);
            }
            View::ProcRole(name) => {
                let keys: Vec<String> = app.proc_lines(&name).into_iter().map(|l| l.key).collect();
                app.ui.procs.step(&keys, delta);
            }
            _ => {}
        }
    }
    fn enter(&self, app: &mut App) {
        match app.view().clone() {
            View::Panel(_) => {
                let lines = app.role_lines();
                let keys: Vec<&str> = lines.iter().map(|l| l.key.as_str()).collect();
                let at = app.ui.proc_roles.index(keys.iter().copied());
                let Some(line) = lines.get(at) else {
                    return;
                };
                // a node's row opens its processes on that node, as the
                // other cluster tables open a node's row
                if let Some(i) = line.node {
                    app.ui.node = Some(i);
                }
                let own = if line.sum {
                    line.key.clone()
                } else {
                    line.name.clone()
                };
                let name = line.name.clone();
                app.ui.proc_roles.selected = Some(own);
                app.ui.procs.selected = None;
                // a filter belongs to the table it was typed for
                app.ui.filter.clear();
                app.ui.stack.push(View::ProcRole(name));
            }
            View::ProcRole(name) => {
                let lines = app.proc_lines(&name);
                let keys: Vec<&str> = lines.iter().map(|l| l.key.as_str()).collect();
                let at = app.ui.procs.index(keys.iter().copied());
                let Some(line) = lines.get(at) else {
                    return;
                };
                let r = &line.fig.row;
                let names = ProcNames {
                    pid: r.pid,
                    start: r.start,
                    user: line.user.clone(),
                    comm: r.comm.clone(),
                    cmd: r.cmd.clone(),
                    role: r.role.label(),
                    instance: r.instance.clone(),
                };
                let (node, own) = (line.node, proc_key(line.fig));
                if let Some(i) = node {
                    app.ui.node = Some(i);
                }
                app.ui.procs.selected = Some(own);
                app.ui.stack.push(View::Proc(Box::new(names)));
            }
            _ => {}
        }
    }
    fn popped(&self, app: &mut App, view: View, _top: bool) {
        if let View::ProcRole(_) = view {
            // the processes' filter is not the roles'
            app.ui.filter.clear();
        }
    }
    fn carry(&self, app: &mut App, from: Option<usize>, to: Option<usize>) -> bool {
        let selected = app.ui.proc_roles.selected.clone();
        let carried = match (from, to) {
            (Some(i), None) => Some(app.cluster_key(i, selected.as_deref().unwrap_or(""))),
            (None, Some(n)) => selected
                .as_deref()
                .and_then(|s| s.strip_prefix(&app.cluster_key(n, "")))
                .map(str::to_string),
            _ => selected,
        };
        app.ui.proc_roles.selected = carried;
        true
    }
    fn open(&self, ui: &mut UiState) {
        // busiest writers first: the database writers and the log
        ui.proc_roles = ListUi::sorted_by(2);
        ui.procs = ListUi::sorted_by(1);
    }
    fn keep(&self, app: &mut App) {
        let mut names = vec![ALL_ENTITY.to_string()];
        if let Some(role) = app.shown_role() {
            names.push(role_entity(&role));
        }
        if let Some(View::Proc(p)) = app.ui.stack.last() {
            names.push(p.entity());
        }
        app.host_mut().procs.keep(names.iter().map(String::as_str));
    }
}

//! The database layer as the app keeps it: per database its connection
//! state, its Direct NFS figures over the database's own clock and their
//! history (the database's total and each instance), and where the user
//! is in the drill-down database → instance → NFS server → channel.
//!
//! Entry points for the loop: [`Dnfs::ingest`] with each [`DbEvent`] of
//! `layers::dnfs::source::run_db`; the screen reads [`Dnfs`] and [`DnfsUi`].

use super::state::App;
use super::views::LayerView;
use crate::core::duration::Interval;
use crate::layers::LayerId;
use crate::layers::dnfs::dnfs_sample::DnfsInstances;
use crate::layers::dnfs::error::DbError;
use crate::layers::dnfs::model::{DNFS_COLS, DnfsBaseline, DnfsTick, Figures};
use crate::layers::dnfs::path::{
    DbFigures, HostFigures, NodeNames, PathView, line_up, line_up_instances,
};
use crate::layers::dnfs::source::{DbEvent, DbStatus, DbTarget};
use crate::layers::layer::Layer;
use crate::store::Window;

/// The history entity of a database's total.
pub const TOTAL: &str = "all";

/// The history entity of instance `inst`.
pub fn inst_entity(inst: u32) -> String {
    format!("inst {inst}")
}

/// One database.
#[derive(Debug, Clone)]
pub struct DbView {
    pub target: DbTarget,
    pub status: DbStatus,
    baseline: DnfsBaseline,
    /// Figures and history: [`DNFS_COLS`] per entity ([`TOTAL`] and each
    /// instance).
    pub layer: Layer<DnfsTick>,
    /// Local wall clock of the latest reading.
    pub last_sample_ms: Option<i64>,
    /// gv$instance as last read: which host each instance runs on.
    pub instances: Option<DnfsInstances>,
}

fn values(f: Option<&Figures>) -> [Option<f32>; DNFS_COLS.len()] {
    std::array::from_fn(|i| f.and_then(|f| f.get(DNFS_COLS[i].col)).map(|v| v as f32))
}

impl DbView {
    pub fn new(target: DbTarget, history: impl Into<Window>) -> DbView {
        let history = history.into();
        DbView {
            target,
            status: DbStatus::Connecting,
            baseline: DnfsBaseline::forgetting_after(history.forget_cs),
            layer: Layer::new(history, DNFS_COLS.len()),
            last_sample_ms: None,
            instances: None,
        }
    }

    pub fn ingest(&mut self, sample: &crate::layers::dnfs::dnfs_sample::DnfsSample) {
        let tick = self.baseline.tick(sample);
        self.last_sample_ms = Some(sample.wall_ms);
        // no figures from the first reading, or when the database clock
        // went back
        let (spans, rejected) = (tick.itv_ms.is_some(), tick.rejected.clone());
        self.layer.take(spans, tick, rejected, |layer, tick| {
            let total = values(tick.total.as_ref());
            let insts: Vec<(String, [Option<f32>; DNFS_COLS.len()])> = tick
                .instances
                .iter()
                .map(|i| (inst_entity(i.inst_id), values(i.figures.as_ref())))
                .collect();
            layer.history.push(
                tick.wall_ms,
                std::iter::once((TOTAL, &total[..]))
                    .chain(insts.iter().map(|(n, v)| (n.as_str(), &v[..]))),
            );
        });
    }

    /// The latest figures when they are current: the database is live and
    /// was read within two intervals.
    pub fn current(&self, now_ms: i64, interval_ms: i64) -> Option<&DnfsTick> {
        let fresh = self
            .last_sample_ms
            .is_some_and(|t| now_ms - t <= 2 * interval_ms);
        (self.status == DbStatus::Live && fresh)
            .then_some(self.layer.latest.as_ref())
            .flatten()
    }

    /// The driver's code (`ORA-12541`) of why the database is not read,
    /// where it has one.
    pub fn error_code(&self) -> Option<&str> {
        self.status.error().and_then(DbError::code)
    }

    /// What the panel says of the connection at `now_ms`.
    pub fn state_label(&self, now_ms: i64, interval_ms: i64) -> String {
        match &self.status {
            DbStatus::Connecting => "connecting".into(),
            DbStatus::Live => match self.last_sample_ms {
                Some(t) if now_ms - t > 2 * interval_ms => {
                    format!("stale for {} s", ((now_ms - t) / 1000).max(0))
                }
                _ => "live".into(),
            },
            DbStatus::ClientMissing(_) => "no Oracle client".into(),
            DbStatus::NoPassword(_) => "no password".into(),
            DbStatus::ConnectFailed(_) => "unreachable".into(),
            DbStatus::QueryFailed(_) => "query failed".into(),
        }
    }

    /// The reason behind a state, as the driver said it.
    pub fn reason(&self) -> Option<String> {
        match &self.status {
            DbStatus::NoPassword(env) => Some(format!(
                "type it when asked (i asks again), or set {env} in strata's environment (or password_env in the [[db]] entry)"
            )),
            s => s.error().map(ToString::to_string),
        }
    }
}

/// Every database and the interval they are read at.
#[derive(Debug)]
pub struct Dnfs {
    /// The databases on screen: live, or while paused as they were at the
    /// pause.
    pub list: Vec<DbView>,
    pub interval: Interval,
    /// While paused: the live databases, which go on taking readings, and
    /// the time of the pause (the screen's "now", so nothing turns stale).
    paused: Option<(Vec<DbView>, i64)>,
}

impl Default for Dnfs {
    fn default() -> Dnfs {
        Dnfs::new(Vec::new(), Interval::ONE_SECOND, 2)
    }
}

impl Dnfs {
    pub fn new(targets: Vec<DbTarget>, interval: Interval, history: impl Into<Window>) -> Dnfs {
        let history = history.into();
        Dnfs {
            list: targets
                .into_iter()
                .map(|t| DbView::new(t, &history))
                .collect(),
            interval,
            paused: None,
        }
    }

    /// The databases as read, paused or not.
    pub fn live(&self) -> &[DbView] {
        self.paused.as_ref().map_or(&self.list, |(live, _)| live)
    }

    /// `p`: the screen keeps the databases as they are now; readings go on
    /// behind it.
    pub fn pause(&mut self, now_ms: i64) {
        if self.paused.is_none() {
            self.paused = Some((self.list.clone(), now_ms));
        }
    }

    pub fn resume(&mut self) {
        if let Some((live, _)) = self.paused.take() {
            self.list = live;
        }
    }

    /// The time the screen is shown at: the pause's while paused.
    pub fn shown_now(&self, now_ms: i64) -> i64 {
        self.paused.as_ref().map_or(now_ms, |(_, at)| *at)
    }

    /// Applies one event of a database's reader.
    pub fn ingest(&mut self, ev: DbEvent) {
        match ev {
            DbEvent::Status { db, status } => {
                if let Some(d) = self.live_mut().get_mut(db) {
                    d.status = status;
                }
            }
            DbEvent::Sample { db, sample } => self.ingest_sample(db, &sample),
            DbEvent::Instances { db, instances } => {
                if let Some(d) = self.live_mut().get_mut(db) {
                    d.instances = Some(instances);
                }
            }
        }
    }

    /// A database's sample, read by reference (see
    /// [`super::App::apply_sample`]).
    pub fn ingest_sample(
        &mut self,
        db: usize,
        sample: &crate::layers::dnfs::dnfs_sample::DnfsSample,
    ) {
        if let Some(d) = self.live_mut().get_mut(db) {
            d.ingest(sample);
        }
    }

    /// What the readers update: the live list, kept aside while paused.
    fn live_mut(&mut self) -> &mut Vec<DbView> {
        match &mut self.paused {
            Some((live, _)) => live,
            None => &mut self.list,
        }
    }
}

impl super::host::NodeState {
    /// The names an instance's HOST_NAME may give this node by: its label,
    /// the host as written, and the name it reports (the local host's is
    /// `local_hostname`).
    pub fn names<'a>(&'a self, local_hostname: &'a str) -> NodeNames<'a> {
        use crate::link::target::NodeTarget;
        let (host, hostname) = match &self.link.target {
            NodeTarget::Local { .. } => (None, Some(local_hostname)),
            NodeTarget::Remote(t) => (Some(t.host.as_str()), self.hostname.as_deref()),
        };
        NodeNames {
            label: self.link.target.label(),
            host,
            hostname,
        }
    }
}

impl super::App {
    /// The path view of the figures on screen. Without database nodes:
    /// the databases' current dNFS figures against the host shown (a
    /// node's once `n` chose it). With nodes: each instance against the
    /// node gv$instance puts it on. `None` without databases.
    pub fn path_view(&self) -> Option<PathView> {
        if self.dnfs.list.is_empty() {
            return None;
        }
        let now = self.dnfs.shown_now(self.now_ms);
        let itv = self.dnfs.interval.ms();
        if self.nodes.is_empty() {
            let ticks: Vec<&DnfsTick> = self
                .dnfs
                .list
                .iter()
                .filter_map(|d| d.current(now, itv))
                .collect();
            return Some(PathView::Host(line_up(
                &ticks,
                &self.host().path_figures(true),
            )));
        }
        let dbs: Vec<DbFigures> = self
            .dnfs
            .list
            .iter()
            .filter_map(|d| {
                Some(DbFigures {
                    label: &d.target.label,
                    tick: d.current(now, itv)?,
                    instances: d.instances.as_ref(),
                })
            })
            .collect();
        let interval_ms = self.interval.ms();
        let nodes: Vec<(NodeNames, HostFigures)> = self
            .nodes
            .iter()
            .map(|n| {
                let current = n.link.is_current(self.now_ms, interval_ms);
                (n.names(&self.host.hostname), n.layers.path_figures(current))
            })
            .collect();
        Some(PathView::Instances(line_up_instances(&dbs, &nodes)))
    }

    /// The databases to read, from `--db` and `[[db]]`.
    pub fn set_dbs(&mut self, targets: Vec<DbTarget>) {
        self.dnfs = Dnfs::new(targets, self.interval, &self.window);
    }

    /// One event of a database's reader (`layers::dnfs::source::run_db`).
    pub fn ingest_db_event(&mut self, ev: DbEvent) {
        // only a state says a database waits on a password
        let status = matches!(ev, DbEvent::Status { .. });
        self.dnfs.ingest(ev);
        if status {
            self.review_passphrases();
        }
    }

    /// Esc in the database panel climbs its drill-down first; true when it
    /// did.
    fn dnfs_back(&mut self) -> bool {
        if self.ui.dnfs.depth() > 0 {
            self.ui.dnfs.up();
            return true;
        }
        false
    }
}

/// The database panel, whose drill-down is its own (database →
/// instance → server → channel), not the app's stack.
pub(super) struct DnfsView;

impl LayerView for DnfsView {
    fn id(&self) -> LayerId {
        LayerId::Dnfs
    }
    fn step(&self, app: &mut App, delta: isize) {
        app.ui.dnfs.move_by(&app.dnfs, delta);
    }
    fn enter(&self, app: &mut App) {
        app.ui.dnfs.enter(&app.dnfs);
    }
    fn back(&self, app: &mut App) -> bool {
        app.dnfs_back()
    }
}

/// Where the user is in the database panel: nothing chosen lists the
/// databases; each level down narrows to one entity of the level above.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DnfsUi {
    /// Index in `Dnfs::list`.
    pub db: Option<usize>,
    pub inst: Option<u32>,
    /// (INST_ID, server ID).
    pub server: Option<u64>,
    /// (PNUM, CH_ID).
    pub channel: Option<(u64, u64)>,
    /// The highlighted row of the list at this level.
    pub selected: usize,
}

impl DnfsUi {
    /// The breadcrumb: "Databases › PROD › inst 1 › nas1 › ch 20/0".
    pub fn depth(&self) -> usize {
        [
            self.db.is_some(),
            self.inst.is_some(),
            self.server.is_some(),
            self.channel.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count()
    }

    /// Esc: one level up.
    pub fn up(&mut self) {
        if self.channel.take().is_none()
            && self.server.take().is_none()
            && self.inst.take().is_none()
        {
            self.db = None;
        }
        self.selected = 0;
    }

    /// The database chosen, and its latest figures (current or not: the
    /// screen says which).
    pub fn db<'a>(&self, dnfs: &'a Dnfs) -> Option<(&'a DbView, Option<&'a DnfsTick>)> {
        let v = dnfs.list.get(self.db?)?;
        Some((v, v.layer.latest.as_ref()))
    }

    /// The rows listed at this level: databases, instances, servers of the
    /// instance, channels of the server; none under a channel.
    pub fn rows(&self, dnfs: &Dnfs) -> usize {
        let Some((_, tick)) = self.db(dnfs) else {
            return dnfs.list.len();
        };
        let Some(t) = tick else { return 0 };
        match (self.inst, self.server, self.channel) {
            (None, _, _) => t.instances.len(),
            (Some(i), None, _) => t.servers.iter().filter(|s| s.row.inst_id == i).count(),
            (Some(i), Some(s), None) => t
                .channels
                .iter()
                .filter(|c| c.row.inst_id == i && c.row.svr_id == s)
                .count(),
            _ => 0,
        }
    }

    pub fn move_by(&mut self, dnfs: &Dnfs, delta: isize) {
        let n = self.rows(dnfs);
        self.selected = if n == 0 {
            0
        } else {
            self.selected.saturating_add_signed(delta).min(n - 1)
        };
    }

    /// Enter: down into the highlighted row.
    pub fn enter(&mut self, dnfs: &Dnfs) {
        let k = self.selected;
        if self.db.is_none() {
            if k < dnfs.list.len() {
                self.db = Some(k);
                self.selected = 0;
            }
            return;
        }
        let Some((_, Some(t))) = self.db(dnfs) else {
            return;
        };
        match (self.inst, self.server, self.channel) {
            (None, _, _) => self.inst = t.instances.get(k).map(|i| i.inst_id),
            (Some(i), None, _) => {
                self.server = t
                    .servers
                    .iter()
                    .filter(|s| s.row.inst_id == i)
                    .nth(k)
                    .map(|s| s.row.id)
            }
            (Some(i), Some(s), None) => {
                self.channel = t
                    .channels
                    .iter()
                    .filter(|c| c.row.inst_id == i && c.row.svr_id == s)
                    .nth(k)
                    .map(|c| (c.row.pnum, c.row.ch_id))
            }
            _ => return,
        }
        self.selected = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::dnfs::dnfs_sample::{DnfsSample, StatsRow};
    use crate::layers::dnfs::source::parse_db_spec;

    fn sample(db_ms: i64, reads: u64) -> DnfsSample {
        DnfsSample {
            wall_ms: db_ms,
            db_ms,
            stats: vec![StatsRow {
                inst_id: 1,
                pnum: 20,
                nfs_read: reads,
                nfs_write: 0,
                read_bytes: None,
                write_bytes: None,
            }],
            ..DnfsSample::default()
        }
    }

    #[test]
    fn history_and_staleness() {
        let mut d = Dnfs::new(
            vec![parse_db_spec("/").unwrap()],
            crate::core::duration::Interval::ONE_SECOND,
            10,
        );
        d.ingest(DbEvent::Status {
            db: 0,
            status: DbStatus::Live,
        });
        d.ingest(DbEvent::Sample {
            db: 0,
            sample: sample(1000, 0),
        });
        d.ingest(DbEvent::Sample {
            db: 0,
            sample: sample(2000, 500),
        });
        let v = &d.list[0];
        let seq = v.layer.history.seq();
        assert_eq!(v.layer.history.values(TOTAL, 0, seq, 10), [500.0]);
        assert_eq!(v.layer.history.values("inst 1", 0, seq, 10), [500.0]);
        assert!(v.current(2500, 1000).is_some());
        assert!(v.current(5000, 1000).is_none(), "three intervals old");
        assert_eq!(v.state_label(5000, 1000), "stale for 3 s");
        // a status for a database that is not there changes nothing
        d.ingest(DbEvent::Status {
            db: 7,
            status: DbStatus::Connecting,
        });
    }

    #[test]
    fn a_pause_holds_the_screen_while_readings_go_on() {
        let mut d = Dnfs::new(
            vec![parse_db_spec("/").unwrap()],
            crate::core::duration::Interval::ONE_SECOND,
            10,
        );
        let live = |d: &mut Dnfs, ms: i64, reads: u64| {
            d.ingest(DbEvent::Sample {
                db: 0,
                sample: sample(ms, reads),
            })
        };
        d.ingest(DbEvent::Status {
            db: 0,
            status: DbStatus::Live,
        });
        live(&mut d, 1000, 0);
        live(&mut d, 2000, 500);
        d.pause(2100);
        live(&mut d, 3000, 2500);
        d.ingest(DbEvent::Status {
            db: 0,
            status: DbStatus::ConnectFailed("ORA-12541: TNS:no listener".into()),
        });
        let iops = |v: &DbView| {
            v.layer
                .latest
                .as_ref()
                .and_then(|t| t.total)
                .map(|f| f.get(crate::layers::dnfs::model::DnfsCol::Iops))
        };
        // the screen: 500 IOPS, live and current at the pause's time, long after
        let now = d.shown_now(60_000);
        assert_eq!(now, 2100);
        assert_eq!(iops(&d.list[0]), Some(Some(500.0)));
        assert!(d.list[0].current(now, 1000).is_some());
        assert_eq!(d.list[0].layer.history.seq(), 1);
        // behind it, the reading and the error arrived
        assert_eq!(iops(&d.live()[0]), Some(Some(2000.0)));
        assert!(matches!(d.live()[0].status, DbStatus::ConnectFailed(_)));
        d.resume();
        assert_eq!(d.shown_now(60_000), 60_000);
        assert_eq!(iops(&d.list[0]), Some(Some(2000.0)));
        assert_eq!(d.list[0].layer.history.seq(), 2);
    }

    #[test]
    fn up_climbs_one_level_at_a_time() {
        let mut u = DnfsUi {
            db: Some(0),
            inst: Some(1),
            server: Some(0),
            channel: Some((20, 0)),
            selected: 0,
        };
        for depth in (0..4).rev() {
            u.up();
            assert_eq!(u.depth(), depth);
        }
        u.up();
        assert_eq!(u, DnfsUi::default());
    }

    #[test]
    fn a_nodes_names_are_its_label_its_host_and_what_it_reports() {
        use crate::app::host::NodeState;
        use crate::link::target::{NodeTarget, parse_node_spec};
        let local = NodeState::new(
            NodeTarget::Local {
                label: "local".into(),
            },
            2,
        );
        let n = local.names("db03.example.com");
        assert_eq!(
            (n.label, n.host, n.hostname),
            ("local", None, Some("db03.example.com"))
        );
        let mut ssh = NodeState::new(parse_node_spec("oracle@10.0.0.12", "oracle").unwrap(), 2);
        assert_eq!(ssh.names("x").hostname, None, "no facts yet");
        ssh.hostname = Some("db02".into());
        let n = ssh.names("x");
        assert_eq!(
            (n.label, n.host, n.hostname),
            ("10.0.0.12", Some("10.0.0.12"), Some("db02"))
        );
    }
}

//! A database host's processes, as its process source would read them:
//! an Oracle instance's writers, log writer, archiver and sessions, a dd,
//! an idle process and one the reader may not read, each second made by
//! the layer's own `ProcTable` from the counters below and fed to the app
//! through its inputs (this machine's, or a node's).

use strata::app::input::NodeInput;
use strata::app::{App, Input};
use strata::layers::procs::pid::{IoCounters, PidStat};
use strata::layers::procs::table::{DelayAcct, ProcSample, ProcTable, Seen, Unread};
use strata::link::HostStatus;
use strata::link::target::{NodeTarget, parse_ssh_spec};

pub const BASE_MS: i64 = 1_795_000_000_000;
/// Seconds of samples: the first opens the interval of the second.
pub const STEPS: u64 = 20;

pub const ORACLE: u32 = 54321;

/// (pid, argv0, comm, uid, kB read and written a second, blkio ticks a
/// second, idle every this many seconds (0: never)).
type Spec = (u32, &'static str, &'static str, u32, (u64, u64), u64, u64);

/// A [`Spec`] of one instance: its first argument and comm named.
type Named = (u32, String, String, u32, (u64, u64), u64, u64);

fn specs(sid: &str) -> Vec<Named> {
    let base: [Spec; 9] = [
        (4101, "ora_dbw0_", "ora_dbw0_", ORACLE, (0, 41_000), 3, 0),
        (4102, "ora_dbw1_", "ora_dbw1_", ORACLE, (0, 29_500), 2, 4),
        (4110, "ora_lgwr_", "ora_lgwr_", ORACLE, (0, 8_200), 5, 0),
        (4120, "ora_arc0_", "ora_arc0_", ORACLE, (6_100, 6_100), 1, 0),
        (
            5200,
            "oracle (LOCAL=NO)",
            "oracle",
            ORACLE,
            (120_300, 0),
            9,
            0,
        ),
        (
            5201,
            "oracle (LOCAL=NO)",
            "oracle",
            ORACLE,
            (19_800, 12),
            2,
            3,
        ),
        (4130, "ora_pmon_", "ora_pmon_", ORACLE, (0, 0), 0, 0),
        (8800, "dd", "dd", 0, (0, 2_048), 0, 0),
        (1, "/usr/lib/systemd/systemd", "systemd", 0, (0, 0), 0, 0),
    ];
    base.iter()
        .map(|&(pid, argv0, comm, uid, kb, blkio, idle)| {
            let name = if let Some(how) = argv0.strip_prefix("oracle ") {
                format!("oracle{sid} {how}")
            } else if argv0.starts_with("ora_") {
                format!("{argv0}{sid}")
            } else {
                argv0.to_string()
            };
            let comm = if comm.starts_with("ora_") {
                // comm is argv0 cut to 15 bytes
                name.chars().take(15).collect()
            } else {
                comm.to_string()
            };
            (pid, name, comm, uid, kb, blkio, idle)
        })
        .collect()
}

/// The processes at second `k` of instance `sid`: counters that grew by
/// their rates each second, but for the idle seconds. PMON's are not
/// readable (`pmon_denied`).
fn seen(sid: &str, k: u64, pmon_denied: bool) -> Vec<Seen> {
    specs(sid)
        .into_iter()
        .map(|(pid, name, comm, uid, (rd, wr), blkio, idle)| {
            // seconds this process moved, up to k
            let moved = if idle == 0 {
                k
            } else {
                (1..=k).filter(|s| s % idle != 0).count() as u64
            };
            let io = IoCounters {
                rchar: (rd + 3) * 1024 * moved + 100,
                wchar: (wr + 1) * 1024 * moved + 100,
                syscr: 40 * moved + 10,
                syscw: 30 * moved + 10,
                read_bytes: rd * 1024 * moved,
                write_bytes: wr * 1024 * moved,
                cancelled_write_bytes: 0,
            };
            let io = if pmon_denied && name.starts_with("ora_pmon") {
                Err(Unread::Denied)
            } else {
                Ok(io)
            };
            Seen {
                pid,
                uid,
                stat: PidStat {
                    comm,
                    state: 'S',
                    cpu_ticks: 100 * moved,
                    start: 1_234 + u64::from(pid % 97),
                    blkio_ticks: Some(blkio * moved),
                },
                io,
                cmd: Some((name.clone(), name)),
            }
        })
        .collect()
}

/// `STEPS` seconds of instance `sid`'s host, a sample a second.
pub fn samples(sid: &str, delay: DelayAcct) -> Vec<ProcSample> {
    let mut table = ProcTable::default();
    (0..STEPS)
        .map(|k| {
            let mut s = table.update(
                500_000 + k * 100,
                BASE_MS + k as i64 * 1000,
                seen(sid, k, true),
            );
            s.delayacct = delay;
            s.users.insert(ORACLE, "oracle".into());
            s.users.insert(0, "root".into());
            s
        })
        .collect()
}

/// The fixture host (its disks and the rest as `app_with` has them) with
/// instance PROD1's processes.
pub fn procs_app() -> App {
    let mut app = super::app_with(30);
    for s in samples("PROD1", DelayAcct::On) {
        app.apply(Input::Procs(Ok(s)));
    }
    app.now_ms = BASE_MS + (STEPS as i64 - 1) * 1000 + 300;
    app
}

/// Two live database nodes, db01 (PROD1) and db02 (PROD2, whose kernel
/// keeps no I/O delay), with their disks, NICs, NFS, cache and processes.
pub fn procs_cluster_app() -> App {
    use super::{cache_sample, nfs_sample, nic_sample, sample};
    let mut app = super::app_with(2);
    let targets = ["oracle@db01", "oracle@db02"]
        .iter()
        .map(|h| NodeTarget::Remote(parse_ssh_spec(h, "oracle").expect("a target")))
        .collect();
    app.set_nodes(targets);
    for (node, (sid, delay)) in [("PROD1", DelayAcct::On), ("PROD2", DelayAcct::Off)]
        .into_iter()
        .enumerate()
    {
        let status = HostStatus::Live;
        app.apply(Input::NodeStatus { node, status });
        let procs = samples(sid, delay);
        for (k, p) in (0..STEPS).zip(procs) {
            let at = BASE_MS + k as i64 * 1000;
            let g = k + 5 * node as u64;
            let (mut d, mut n, mut f, mut c) =
                (sample(g), nic_sample(g), nfs_sample(g), cache_sample(g));
            (d.wall_ms, n.wall_ms, f.wall_ms, c.wall_ms) = (at, at, at, at);
            for input in [
                NodeInput::Disks(Ok(d)),
                NodeInput::Nics(Ok(n)),
                NodeInput::Nfs(Ok(f)),
                NodeInput::Cache(Ok(c)),
                NodeInput::Procs(Ok(p)),
            ] {
                app.apply(Input::Node { node, input });
            }
        }
    }
    app.now_ms = BASE_MS + (STEPS as i64 - 1) * 1000 + 300;
    app
}

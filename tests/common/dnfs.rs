//! The databases of the screen tests: the 19c RAC fixture (PROD) and the
//! 12.1 one (CDB1), read through the same mapper as the oracle crate's
//! rows, and a RAC over two database nodes.

use strata::layers::dnfs::dnfs_sample::{
    DnfsInstances, DnfsSample, map_instance_rows, map_rows, rows_from_capture,
};
use strata::layers::dnfs::source::{DbEvent, DbStatus, parse_db_spec};
use strata::layers::dnfs::sql_rows::parse_sql_csv;

pub const T0: i64 = 1_795_000_000_000;

pub fn sample(name: &str) -> DnfsSample {
    let path = format!("{}/tests/fixtures/dnfs/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    map_rows(&rows_from_capture(0, name, &text).unwrap()).unwrap()
}

/// Reading `a`, then `b`, then `more` readings that go on as b went on
/// from a (each process's counts grow by the same step again), as far
/// apart as a and b on the database clock and 5 s apart on the wall
/// clock, the last at `T0`.
pub fn readings(release: &str, more: usize) -> Vec<DnfsSample> {
    let a = sample(&format!("gv-dnfs-{release}-a.txt"));
    let b = sample(&format!("gv-dnfs-{release}-b.txt"));
    let mut out = vec![a.clone(), b.clone()];
    let mut cur = b.clone();
    for k in 0..more {
        // a swell and ebb, so the chart has a shape; the last interval
        // is b's step exactly (f = 2), so the figures on screen are the
        // fixture's hand-worked ones
        let f = match (more - 1 - k) % 3 {
            0 => 2,
            1 => 1,
            _ => 3,
        };
        for s in &mut cur.stats {
            // b's step again: b less a, from zero for a process new in b
            let q = b
                .stats
                .iter()
                .find(|q| (q.inst_id, q.pnum) == (s.inst_id, s.pnum))
                .map_or((0, 0), |q| (q.nfs_read, q.nfs_write));
            let p = a
                .stats
                .iter()
                .find(|p| (p.inst_id, p.pnum) == (s.inst_id, s.pnum))
                .map_or((0, 0), |p| (p.nfs_read, p.nfs_write));
            let step = (q.0 - p.0, q.1 - p.1);
            s.nfs_read += step.0 * f / 2;
            s.nfs_write += step.1 * f / 2;
            s.read_bytes = s.read_bytes.map(|_| s.nfs_read * 8192);
            s.write_bytes = s.write_bytes.map(|_| s.nfs_write * 8192);
        }
        // SENDS/RECVS as the release's fixture counts them: 19c since
        // the last select (b's counts, swelled), 12.1 as running totals
        // (b's growth again)
        for c in &mut cur.channels {
            let key = |x: &&strata::layers::dnfs::dnfs_sample::ChannelRow| {
                (x.inst_id, x.pnum, x.ch_id) == (c.inst_id, c.pnum, c.ch_id)
            };
            let (Some(ca), Some(cb)) = (a.channels.iter().find(key), b.channels.iter().find(key))
            else {
                continue;
            };
            if release == "12.1" {
                c.sends += (cb.sends - ca.sends) * f / 2;
            } else {
                c.sends = cb.sends * f / 2;
            }
            c.recvs = c.sends;
        }
        cur.db_ms += b.db_ms - a.db_ms;
        out.push(cur.clone());
    }
    let n = out.len() as i64;
    for (i, s) in out.iter_mut().enumerate() {
        s.wall_ms = T0 - (n - 1 - i as i64) * 5000;
    }
    out
}

/// PROD's gv$instance, as the fixture prints it.
pub fn prod_instances() -> DnfsInstances {
    let path = format!(
        "{}/tests/fixtures/dnfs/gv-instance-19c.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let (rows, bad) = parse_sql_csv("gv-instance-19c.csv", &text).unwrap();
    assert!(bad.is_empty(), "{bad:?}");
    let x = map_instance_rows(T0, &rows).unwrap();
    assert!(x.problems.is_empty(), "{:?}", x.problems);
    x
}

/// A RAC over two database nodes: PROD1 on db01 (written as its FQDN,
/// HOST_NAME the short name), PROD2 on db02 (written as an address, found
/// by the name the node reports). Both nodes take the fixture host's
/// samples (ens3f0 holds 192.168.10.0/24, bond0 192.168.11.0/24), but
/// db02's NFS client stands still. PROD1 reads four times the fixture's
/// bytes, so that its MB/s meet db01's filer NICs.
pub fn rac_app() -> strata::app::App {
    use super::{cache_sample, nfs_sample, nic_sample, sample};
    use strata::app::Input;
    use strata::app::input::NodeInput;
    use strata::link::HostStatus;
    use strata::link::target::{NodeTarget, parse_ssh_spec};
    let mut app = super::app_with(2);
    let targets = ["oracle@db01.example.com", "oracle@10.0.0.12"]
        .iter()
        .map(|s| NodeTarget::Remote(parse_ssh_spec(s, "oracle").unwrap()))
        .collect();
    app.set_nodes(targets);
    for node in 0..2usize {
        let status = HostStatus::Live;
        app.apply(Input::NodeStatus { node, status });
        for k in 0..20u64 {
            let at = T0 - (19 - k as i64) * 1000;
            let idle_nfs = if node == 1 { 0 } else { k };
            let (mut d, mut n, mut c) = (sample(k), nic_sample(k), cache_sample(k));
            let mut f = nfs_sample(idle_nfs);
            f.uptime_cs = 100_000 + k * 100;
            (d.wall_ms, n.wall_ms, f.wall_ms, c.wall_ms) = (at, at, at, at);
            for input in [
                NodeInput::Disks(Ok(d)),
                NodeInput::Nics(Ok(n)),
                NodeInput::Nfs(Ok(f)),
                NodeInput::Cache(Ok(c)),
            ] {
                app.apply(Input::Node { node, input });
            }
        }
    }
    app.apply(Input::NodeHostname {
        node: 1,
        hostname: "db02".into(),
    });
    app.set_dbs(vec![parse_db_spec("dbsnmp@//prod-scan:1521/PROD").unwrap()]);
    app.ingest_db_event(DbEvent::Status {
        db: 0,
        status: DbStatus::Live,
    });
    app.ingest_db_event(DbEvent::Instances {
        db: 0,
        instances: prod_instances(),
    });
    for mut s in readings("19c", 3) {
        for p in s.stats.iter_mut().filter(|p| p.inst_id == 1) {
            p.read_bytes = p.read_bytes.map(|b| b * 4);
            p.write_bytes = p.write_bytes.map(|b| b * 4);
        }
        app.ingest_db_event(DbEvent::Sample { db: 0, sample: s });
    }
    app.now_ms = T0 + 500;
    app
}

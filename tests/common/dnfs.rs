//! The database fixtures as the panel and recordings are fed them: the
//! captured gv$ views of a release, and readings that go on from them.

use strata::layers::dnfs::dnfs_sample::{DnfsSample, map_rows, rows_from_capture};

/// The last reading's wall clock.
const T0: i64 = 1_795_000_000_000;

/// The captured reading `name` of tests/fixtures/dnfs.
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

//! Every NFS mount over one interval: the mount's figures, its READ and
//! WRITE and whichever other RPC ops were active, and the sum of the
//! mounts' byte figures.

use super::model::{NfsMountDelta, NfsMountRates, NfsOpDelta, NfsOpRates};
use super::mountstats::NfsCounters;
use super::source::{NfsMount, NfsSample};
use crate::core::last_seen::LastSeen;
use crate::core::total::complete_sum;
use crate::layers::tick::Tick;

/// One RPC op of a mount over one interval.
#[derive(Debug, Clone)]
pub struct NfsOpRow {
    /// As the kernel names it: `READ`, `GETATTR`, ...
    pub name: String,
    /// The kernel counts this op's errors (RPC iostats 1.1 and later):
    /// nfsiostat then prints an errors column.
    pub has_errors: bool,
    pub delta: Option<NfsOpDelta>,
    pub rates: Option<NfsOpRates>,
}

/// One NFS superblock over one interval.
#[derive(Debug, Clone)]
pub struct NfsRow {
    /// The entity's name from one sample to the next.
    pub key: String,
    /// `srv:/export`, as the kernel escapes it.
    pub export: String,
    /// Every mount point the superblock is seen through, the original
    /// first.
    pub mount_points: Vec<String>,
    /// `nfs` or `nfs4`.
    pub fstype: String,
    /// From the mount options: `3`, `4.2`, ...
    pub vers: Option<String>,
    /// From the mount options: `tcp`, `udp`, `rdma`.
    pub proto: Option<String>,
    /// Seconds since mounted.
    pub age_s: u64,
    /// `None` on the source's first sample, for a mount not in the
    /// previous one, and for a mount mounted again (its age went back).
    pub delta: Option<NfsMountDelta>,
    pub rates: Option<NfsMountRates>,
    /// READ and WRITE, then the other ops that completed RPCs in the
    /// interval, in the kernel's order.
    pub ops: Vec<NfsOpRow>,
}

/// "filer01:/vol/arch" and where it is mounted, as one label.
pub fn mount_label(r: &NfsRow) -> String {
    match r.mount_points.as_slice() {
        [] => r.export.clone(),
        [one] => one.clone(),
        [one, rest @ ..] => format!("{one} (+{})", rest.len()),
    }
}

/// The figures of one interval of the NFS source. The total holds the byte
/// figures summed over the mounts; its ops/s and rpc bklog are `None`:
/// mounts of one server share their transport.
pub type NfsTick = Tick<NfsRow, NfsMountRates>;

/// The ops always listed, as nfsiostat lists them.
const ALWAYS: [&str; 2] = ["READ", "WRITE"];

/// The last counters seen of every mount, with the source clock they were
/// read at: a mount that left the samples (a block rejected for a sample,
/// say) and comes back within an hour is diffed against them over its own
/// interval.
#[derive(Debug, Default)]
pub struct NfsBaseline {
    last: LastSeen<NfsCounters>,
}

impl NfsBaseline {
    /// One that forgets a mount gone for `forget_cs` of the source's
    /// clock (the app's history window).
    pub fn forgetting_after(forget_cs: u64) -> Self {
        let last = LastSeen::forgetting_after(forget_cs);
        NfsBaseline { last }
    }

    /// How many mounts' last counters are kept.
    pub fn names_held(&self) -> usize {
        self.last.len()
    }

    /// Figures of the interval that ends with `cur`. The first sample gives
    /// none: strata never prints nfsiostat's since-mount report. A clock
    /// that went back (a reboot) starts a new baseline.
    pub fn tick(&mut self, cur: &NfsSample) -> NfsTick {
        let itv_cs = self.last.interval(cur.uptime_cs);
        let rows: Vec<NfsRow> = cur
            .mounts
            .iter()
            .map(|m| {
                let prev = itv_cs.and_then(|_| self.last.get(&m.key, cur.uptime_cs));
                row(m, prev)
            })
            .collect();
        self.last.record(
            cur.uptime_cs,
            cur.mounts
                .iter()
                .map(|m| (m.key.clone(), m.counters.clone())),
        );
        let total = total(&rows, itv_cs);
        Tick {
            wall_ms: cur.wall_ms,
            itv_cs,
            rows,
            total,
            extra: (),
        }
    }
}

/// One mount's figures against its previous counters, read `itv_cs`
/// before.
fn row(m: &NfsMount, prev: Option<(&NfsCounters, u64)>) -> NfsRow {
    let c = &m.counters;
    let delta = prev.and_then(|(p, itv)| NfsMountDelta::between(p, c, itv));
    // no op figures for a mount mounted again: its ops restarted too
    let base = prev.filter(|_| delta.is_some()).map(|(p, _)| p);
    let mut ops: Vec<NfsOpRow> = c
        .ops
        .iter()
        .filter_map(|op| {
            let d = base.and_then(|p| NfsOpDelta::between(p.op(&op.name)?, op));
            let active = d.is_some_and(|d| d.ops > 0);
            (ALWAYS.contains(&op.name.as_str()) || active).then(|| NfsOpRow {
                name: op.name.clone(),
                has_errors: op.errors.is_some(),
                rates: d.zip(delta).map(|(d, m)| d.rates(m.itv_cs)),
                delta: d,
            })
        })
        .collect();
    // READ and WRITE first, as nfsiostat prints them, then the others in
    // the kernel's order
    ops.sort_by_key(|o| !ALWAYS.contains(&o.name.as_str()));
    NfsRow {
        key: m.key.clone(),
        export: m.export.clone(),
        mount_points: m.mount_points.clone(),
        fstype: m.fstype.clone(),
        vers: c.opt("vers").map(str::to_string),
        proto: c.opt("proto").map(str::to_string),
        age_s: c.age_s,
        rates: delta.as_ref().map(NfsMountDelta::rates),
        delta,
        ops,
    }
}

/// The sum of the mounts' byte figures, only when every mount has them over
/// this very interval: a partial sum would look like a drop in load.
fn total(rows: &[NfsRow], itv_cs: Option<u64>) -> Option<NfsMountRates> {
    let mut sum = complete_sum(itv_cs, rows.iter().map(|r| r.delta.as_ref()))?;
    // Sends and backlog are per transport, which mounts of one server
    // share: a total has none, even over one mount.
    sum.sends = None;
    sum.bklog_u = None;
    Some(sum.rates())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::nfs::model::{NfsMountCol, NfsOpCol};
    use crate::layers::nfs::mountstats::parse_mountstats;
    use crate::layers::nfs::source::group_mounts;

    /// A mount `age` seconds old that has read `reads` RPCs of 4 kB; every
    /// counter moves with `reads`.
    fn block(mp: &str, age: u64, reads: u64, getattrs: u64) -> String {
        format!(
            "device srv:{mp} mounted on {mp} with fstype nfs statvers=1.1\n\
             \topts:\trw,vers=3,proto=tcp\n\tage:\t{age}\n\
             \tbytes:\t{b} 0 0 0 {b} 0 0 0\n\
             \tRPC iostats version: 1.1  p/v: 100003/3 (nfs)\n\
             \txprt:\ttcp 0 0 1 0 0 {s} {s} 0 0 {s} 1 0 0\n\
             \tper-op statistics\n\
             \t        NULL: 0 0 0 0 0 0 0 0 0\n\
             \t     GETATTR: {getattrs} {getattrs} 0 0 0 0 {getattrs} {getattrs} 0\n\
             \t        READ: {reads} {reads} 0 0 {b} 0 {reads} {reads} 0\n\
             \t       WRITE: 0 0 0 0 0 0 0 0 0\n",
            b = reads * 4096,
            s = reads + getattrs,
        )
    }

    fn sample(uptime_cs: u64, blocks: &[String]) -> NfsSample {
        let p = parse_mountstats(&blocks.concat(), "ms");
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        NfsSample {
            uptime_cs,
            wall_ms: uptime_cs as i64 * 10,
            mounts: group_mounts(p.items, None),
            rejected: Vec::new(),
        }
    }

    fn read_ops(t: &NfsTick, mp: &str) -> Option<f64> {
        let r = t.rows.iter().find(|r| r.mount_points[0] == mp)?;
        r.ops
            .iter()
            .find(|o| o.name == "READ")?
            .rates?
            .get(NfsOpCol::OpsPerS)
    }

    fn op_names(t: &NfsTick, i: usize) -> Vec<&str> {
        t.rows[i].ops.iter().map(|o| o.name.as_str()).collect()
    }

    #[test]
    fn first_sample_gives_nothing_then_figures() {
        let mut b = NfsBaseline::default();
        let t = b.tick(&sample(1000, &[block("/a", 50, 100, 0)]));
        assert!(t.itv_cs.is_none() && t.total.is_none() && t.rows[0].rates.is_none());
        assert_eq!(op_names(&t, 0), ["READ", "WRITE"]);
        // 200 reads of 4 kB over 2 s
        let t = b.tick(&sample(1200, &[block("/a", 52, 300, 0)]));
        assert_eq!(read_ops(&t, "/a"), Some(100.0));
        let r = t.rows[0].rates.unwrap();
        assert_eq!(r.get(NfsMountCol::OpsPerS), Some(100.0));
        assert_eq!(r.get(NfsMountCol::NormalReadKBs), Some(400.0));
        assert_eq!(
            t.total.unwrap().get(NfsMountCol::ServerReadKBs),
            Some(400.0)
        );
        assert_eq!(t.total.unwrap().get(NfsMountCol::OpsPerS), None);
    }

    #[test]
    fn other_ops_are_listed_when_active() {
        let mut b = NfsBaseline::default();
        b.tick(&sample(1000, &[block("/a", 50, 100, 7)]));
        let t = b.tick(&sample(1100, &[block("/a", 51, 100, 9)]));
        assert_eq!(op_names(&t, 0), ["READ", "WRITE", "GETATTR"]);
        let t = b.tick(&sample(1200, &[block("/a", 52, 100, 9)]));
        assert_eq!(op_names(&t, 0), ["READ", "WRITE"], "GETATTR was idle");
    }

    #[test]
    fn a_remount_is_unknown_never_negative() {
        let mut b = NfsBaseline::default();
        b.tick(&sample(1000, &[block("/a", 500, 1000, 0)]));
        // unmounted and mounted again: age and counters restarted
        let t = b.tick(&sample(1100, &[block("/a", 0, 10, 0)]));
        assert!(t.rows[0].rates.is_none() && read_ops(&t, "/a").is_none());
        assert!(t.total.is_none());
        let t = b.tick(&sample(1200, &[block("/a", 1, 60, 0)]));
        assert_eq!(read_ops(&t, "/a"), Some(50.0));
    }

    #[test]
    fn a_counter_that_went_back_is_unknown() {
        let mut b = NfsBaseline::default();
        b.tick(&sample(1000, &[block("/a", 50, 100, 0)]));
        // age went on, READ went back (a torn read, a kernel bug)
        let t = b.tick(&sample(1100, &[block("/a", 51, 90, 0)]));
        assert!(read_ops(&t, "/a").is_none());
        let r = t.rows[0].rates.unwrap();
        assert_eq!(r.get(NfsMountCol::OpsPerS), None, "sends went back");
        assert_eq!(r.get(NfsMountCol::ServerReadKBs), None, "bytes went back");
    }

    #[test]
    fn mounts_that_appear_or_vanish() {
        let mut b = NfsBaseline::default();
        b.tick(&sample(1000, &[block("/a", 50, 100, 0)]));
        let t = b.tick(&sample(
            1100,
            &[block("/a", 51, 200, 0), block("/b", 0, 10, 0)],
        ));
        assert_eq!(read_ops(&t, "/a"), Some(100.0));
        assert!(t.rows[1].rates.is_none(), "/b is new: no baseline");
        assert!(t.total.is_none(), "/b has no figures: no total");
        // /a's block was rejected in this sample
        let t = b.tick(&sample(1200, &[block("/b", 1, 30, 0)]));
        assert_eq!(read_ops(&t, "/b"), Some(20.0));
        assert_eq!(t.rows.len(), 1);
        // /a back: diffed over its own 2 s
        let t = b.tick(&sample(
            1300,
            &[block("/a", 53, 400, 0), block("/b", 2, 40, 0)],
        ));
        assert_eq!(read_ops(&t, "/a"), Some(100.0));
        assert!(t.total.is_none(), "/a's figures cover 2 s, not this 1 s");
    }

    /// A mount absent from one sample (its block rejected, say) is diffed
    /// over its own 2 s: its JSON record and its CSV lines (one an op) say
    /// 2.00, where they said the sample's 1.00.
    #[test]
    fn a_row_after_a_missed_sample_says_the_interval_its_rates_span() {
        use crate::layers::nfs::report::{csv_report, json_report};
        let mut b = NfsBaseline::default();
        b.tick(&sample(
            1000,
            &[block("/a", 50, 100, 0), block("/b", 50, 0, 0)],
        ));
        b.tick(&sample(1100, &[block("/a", 51, 200, 0)]));
        let t = b.tick(&sample(
            1200,
            &[block("/a", 52, 300, 0), block("/b", 52, 200, 0)],
        ));
        assert_eq!(read_ops(&t, "/b"), Some(100.0), "200 reads over 2 s");
        let (json, csv) = (json_report(&t), csv_report(&t));
        let (json_itv, csv_itv) = crate::layers::report::stamped_intervals(&json, &csv);
        assert_eq!(json_itv, ["1.00", "2.00"], "/a then /b: {json}");
        assert_eq!(csv_itv, ["1.00", "1.00", "2.00", "2.00"], "{csv}");
    }

    #[test]
    fn reboot_and_repeated_readings() {
        let mut b = NfsBaseline::default();
        b.tick(&sample(1000, &[block("/a", 50, 100, 0)]));
        let same = b.tick(&sample(1000, &[block("/a", 50, 100, 0)]));
        assert!(same.itv_cs.is_none());
        let t = b.tick(&sample(1100, &[block("/a", 51, 110, 0)]));
        assert_eq!(
            read_ops(&t, "/a"),
            Some(10.0),
            "the repeat did not move the baseline"
        );
        let rebooted = b.tick(&sample(50, &[block("/a", 0, 3, 0)]));
        assert!(rebooted.itv_cs.is_none() && read_ops(&rebooted, "/a").is_none());
        let t = b.tick(&sample(150, &[block("/a", 1, 8, 0)]));
        assert_eq!(read_ops(&t, "/a"), Some(5.0));
    }
}

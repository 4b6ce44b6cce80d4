//! Direct NFS figures of one database over one interval of the database's
//! own clock (SYSTIMESTAMP), from two consecutive [`DnfsSample`]s.
//!
//! - Per instance: IOPS = rate of NFS_READ + NFS_WRITE summed over the
//!   instance's processes (the classic mondnfs figure), read and write
//!   MB/s (MiB, as iostat -m) where the byte columns exist (11.2.0.4+),
//!   and the average I/O size. gv$dnfs_stats has one row per process, so
//!   counts are diffed per process: a process that exited takes its counts
//!   with it (that is no negative rate), a process new since the previous
//!   reading counts from zero, and a PNUM whose counts fell is a new
//!   process on a reused number, which counts from zero too.
//! - Per channel: sends and receives per second. Oracle documents SENDS
//!   and RECVS as counts "since the last select", not running totals;
//!   nobody has confirmed it on a live system for strata (domain.md §8).
//!   So both readings are computed and the database's own figures decide
//!   ([`ChannelCounting`]): a count that falls on a channel that is still
//!   there cannot be a running total, and when the instance did I/O, the
//!   sum of sends lies near its NFS operations under one reading only.
//!   Until one of these happens the figure is shown only where both
//!   readings agree.
//! - Per server: its channels' sends and receives, its channels, its open
//!   files. The views have no bytes per server or channel, in any release.

use std::collections::BTreeMap;

use super::dnfs_sample::{ChannelRow, DnfsSample, ServerRow, Shape, StatsRow};
use crate::core::last_seen::LastSeen;
use crate::layers::col::ColKind;
use crate::layers::col::cols;
use serde::{Deserialize, Serialize};

const MIB: f64 = 1024.0 * 1024.0;

/// How SENDS and RECVS of gv$dnfs_channels count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ChannelCounting {
    /// Not decided yet: a channel's figure shows only where both
    /// readings agree.
    #[default]
    Undetermined,
    /// Running totals: the rate is the difference over the interval.
    Cumulative,
    /// Counts since the previous select, as documented: the rate is the
    /// count over the interval (another session polling the same views
    /// takes its share).
    SinceLastSelect,
}

impl ChannelCounting {
    pub fn label(self) -> &'static str {
        match self {
            ChannelCounting::Undetermined => "undetermined",
            ChannelCounting::Cumulative => "running totals",
            ChannelCounting::SinceLastSelect => "since last select",
        }
    }
}

/// Operation and byte rates; sums of these over processes and instances
/// are the same figures one level up.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Figures {
    pub read_per_s: f64,
    pub write_per_s: f64,
    /// `None` where the view has no byte columns (before 11.2.0.4).
    pub read_bytes_per_s: Option<f64>,
    pub write_bytes_per_s: Option<f64>,
}

impl Figures {
    fn add(&mut self, o: &Figures) {
        self.read_per_s += o.read_per_s;
        self.write_per_s += o.write_per_s;
        let sum = |a: Option<f64>, b: Option<f64>| Some(a? + b?);
        self.read_bytes_per_s = sum(self.read_bytes_per_s, o.read_bytes_per_s);
        self.write_bytes_per_s = sum(self.write_bytes_per_s, o.write_bytes_per_s);
    }

    pub fn get(&self, col: DnfsCol) -> Option<f64> {
        let v = match col {
            DnfsCol::Iops => self.read_per_s + self.write_per_s,
            DnfsCol::ReadPerS => self.read_per_s,
            DnfsCol::WritePerS => self.write_per_s,
            DnfsCol::ReadMbPerS => self.read_bytes_per_s? / MIB,
            DnfsCol::WriteMbPerS => self.write_bytes_per_s? / MIB,
            DnfsCol::AvgIoKb => {
                let ops = self.read_per_s + self.write_per_s;
                if ops <= 0.0 {
                    return None;
                }
                (self.read_bytes_per_s? + self.write_bytes_per_s?) / ops / 1024.0
            }
        };
        v.is_finite().then_some(v.max(0.0))
    }
}

/// A figure of an instance or of the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DnfsCol {
    Iops,
    ReadPerS,
    WritePerS,
    ReadMbPerS,
    WriteMbPerS,
    AvgIoKb,
}

cols! {
    pub const DNFS_COLS: [DnfsCol, ColKind] = [
        (Iops, "iops", "iops", Ops),
        (ReadPerS, "r/s", "r_s", Ops),
        (WritePerS, "w/s", "w_s", Ops),
        (ReadMbPerS, "rMB/s", "rmb_s", Throughput),
        (WriteMbPerS, "wMB/s", "wmb_s", Throughput),
        (AvgIoKb, "avg kB", "avg_io_kb", ReqSize),
    ];
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstFigures {
    pub inst_id: u32,
    /// Processes with a row in gv$dnfs_stats.
    pub processes: usize,
    /// `None` before the second reading.
    pub figures: Option<Figures>,
}

/// A server as read, with its channels and open files and their sends and
/// receives per second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerFigures {
    pub row: ServerRow,
    pub channels: usize,
    pub files: usize,
    pub sends_per_s: Option<f64>,
    pub recvs_per_s: Option<f64>,
}

/// A channel as read, with its sends and receives per second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelFigures {
    pub row: ChannelRow,
    pub sends_per_s: Option<f64>,
    pub recvs_per_s: Option<f64>,
}

/// One database over one interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DnfsTick {
    pub wall_ms: i64,
    /// The database clock's interval; `None` on the first reading, a
    /// repeat, or a clock that went back.
    pub itv_ms: Option<u64>,
    /// false: the views are empty, "dNFS not in use", not an idle system.
    pub in_use: bool,
    pub shape: Shape,
    pub counting: ChannelCounting,
    pub instances: Vec<InstFigures>,
    /// The sum over instances; `None` unless every instance has figures.
    pub total: Option<Figures>,
    pub servers: Vec<ServerFigures>,
    pub channels: Vec<ChannelFigures>,
    /// The reading's rejected rows, as the panel and batch say them.
    pub rejected: Vec<String>,
    /// The database's running totals as of this reading (made again from
    /// the readings, never stored).
    #[serde(skip)]
    pub totals: DnfsTotals,
}

/// Running totals of a database since strata first read it: what
/// `/metrics` exposes as counters. The views count per process (and per
/// process's channel), and a process that exits takes its counts with
/// it, so their sum is no counter; these add each process's counts over
/// each interval (all of them for a process first seen), and only go up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DnfsTotals {
    /// By INST_ID: reads, writes, and the bytes of each where the views
    /// count bytes.
    pub instances: BTreeMap<u32, InstTotals>,
    /// By (INST_ID, server, path): sends and receives, once strata knows
    /// how the channels count.
    pub channels: BTreeMap<(u32, String, String), [u64; 2]>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct InstTotals {
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: Option<u64>,
    pub write_bytes: Option<u64>,
}

/// The previous readings of one database.
#[derive(Debug, Clone, Default)]
pub struct DnfsBaseline {
    procs: LastSeen<StatsRow>,
    chans: LastSeen<(u64, u64)>,
    pub counting: ChannelCounting,
    totals: DnfsTotals,
    /// Whether a reading started the totals.
    totalling: bool,
}

fn proc_key(inst: u32, pnum: u64) -> String {
    format!("{inst}/{pnum}")
}

/// A process's counts over `secs`; from zero when it is new or its counts
/// fell (a reused PNUM).
fn proc_figures(prev: Option<&StatsRow>, cur: &StatsRow, secs: f64, bytes: bool) -> Figures {
    let prev = prev.filter(|p| !fell(p, cur));
    let d = |c: u64, p: Option<u64>| c.saturating_sub(p.unwrap_or(0)) as f64 / secs;
    let db = |c: Option<u64>, p: Option<Option<u64>>| match p {
        Some(p) => Some(c?.saturating_sub(p?) as f64 / secs),
        None => Some(c? as f64 / secs),
    };
    Figures {
        read_per_s: d(cur.nfs_read, prev.map(|p| p.nfs_read)),
        write_per_s: d(cur.nfs_write, prev.map(|p| p.nfs_write)),
        read_bytes_per_s: db(cur.read_bytes, prev.map(|p| p.read_bytes)).filter(|_| bytes),
        write_bytes_per_s: db(cur.write_bytes, prev.map(|p| p.write_bytes)).filter(|_| bytes),
    }
}

/// Whether a process's counts fell since `p`: its PNUM was reused.
fn fell(p: &StatsRow, cur: &StatsRow) -> bool {
    cur.nfs_read < p.nfs_read
        || cur.nfs_write < p.nfs_write
        || matches!((p.read_bytes, cur.read_bytes), (Some(a), Some(b)) if b < a)
        || matches!((p.write_bytes, cur.write_bytes), (Some(a), Some(b)) if b < a)
}

/// Whether `x` lies within a factor of two of `ops`.
fn near(x: u64, ops: f64) -> bool {
    let x = x as f64;
    x >= ops / 2.0 && x <= ops * 2.0
}

impl DnfsBaseline {
    /// One that forgets a process or a channel gone for `forget_cs` of the
    /// database's clock (the app's history window).
    pub fn forgetting_after(forget_cs: u64) -> Self {
        DnfsBaseline {
            procs: LastSeen::forgetting_after(forget_cs),
            chans: LastSeen::forgetting_after(forget_cs),
            counting: ChannelCounting::default(),
            totals: DnfsTotals::default(),
            totalling: false,
        }
    }

    pub fn tick(&mut self, cur: &DnfsSample) -> DnfsTick {
        let now_cs = (cur.db_ms.max(0) / 10) as u64;
        let itv_cs = self.procs.interval(now_cs);
        let chan_itv = self.chans.interval(now_cs);
        let bytes = cur.shape.byte_columns;

        let (instances, ops_by_inst) = self.instances(cur, now_cs, itv_cs, bytes);
        // The first reading starts the totals with every process's counts;
        // later ones add what each did since. A repeated clock or one that
        // went back adds nothing (every process would look new).
        let totalling = itv_cs.is_some() || !self.totalling;
        if totalling {
            self.add_processes(cur, now_cs, bytes);
            self.totalling = true;
        }
        self.procs.record(
            now_cs,
            cur.stats
                .iter()
                .map(|s| (proc_key(s.inst_id, s.pnum), s.clone())),
        );
        let total = if instances.is_empty() {
            itv_cs.map(|_| zero_figures(bytes))
        } else {
            instances
                .iter()
                .try_fold(zero_figures(bytes), |mut acc, i| {
                    acc.add(i.figures.as_ref()?);
                    Some(acc)
                })
        };

        // channels: decide how they count, then rate them
        let chan_key = |c: &ChannelRow| format!("{}/{}/{}", c.inst_id, c.pnum, c.ch_id);
        let prevs: Vec<Option<(u64, u64)>> = cur
            .channels
            .iter()
            .map(|c| chan_itv.and_then(|_| self.chans.get(&chan_key(c), now_cs).map(|(p, _)| *p)))
            .collect();
        if self.counting == ChannelCounting::Undetermined && chan_itv.is_some() {
            self.counting = learn_counting(&cur.channels, &prevs, &ops_by_inst);
        }
        let counting = self.counting;
        let channels = channel_figures(&cur.channels, &prevs, chan_itv, counting);
        if totalling {
            self.add_channels(&cur.channels, &prevs);
        }
        self.chans.record(
            now_cs,
            cur.channels
                .iter()
                .map(|c| (chan_key(c), (c.sends, c.recvs))),
        );
        let servers = server_figures(cur, &channels);

        DnfsTick {
            wall_ms: cur.wall_ms,
            itv_ms: itv_cs.map(|cs| cs * 10),
            in_use: cur.in_use(),
            shape: cur.shape,
            counting,
            instances,
            total,
            servers,
            channels,
            rejected: cur.rejected.iter().map(ToString::to_string).collect(),
            totals: self.totals.clone(),
        }
    }

    /// Adds each process's reads and writes since its last reading (all
    /// of them when it is new, or its counts fell: a reused PNUM).
    fn add_processes(&mut self, cur: &DnfsSample, now_cs: u64, bytes: bool) {
        for s in &cur.stats {
            let prev = self
                .procs
                .get(&proc_key(s.inst_id, s.pnum), now_cs)
                .map(|(p, _)| p)
                .filter(|p| !fell(p, s));
            let d = |c: u64, p: Option<u64>| c.saturating_sub(p.unwrap_or(0));
            let db = |c: Option<u64>, p: Option<Option<u64>>| -> Option<u64> {
                Some(c?.saturating_sub(p.flatten().unwrap_or(0)))
            };
            let t = self
                .totals
                .instances
                .entry(s.inst_id)
                .or_insert(InstTotals {
                    read_bytes: bytes.then_some(0),
                    write_bytes: bytes.then_some(0),
                    ..InstTotals::default()
                });
            t.reads = t
                .reads
                .saturating_add(d(s.nfs_read, prev.map(|p| p.nfs_read)));
            t.writes = t
                .writes
                .saturating_add(d(s.nfs_write, prev.map(|p| p.nfs_write)));
            let add = |total: Option<u64>, v: Option<u64>| Some(total?.saturating_add(v?));
            t.read_bytes = add(t.read_bytes, db(s.read_bytes, prev.map(|p| p.read_bytes)));
            t.write_bytes = add(
                t.write_bytes,
                db(s.write_bytes, prev.map(|p| p.write_bytes)),
            );
        }
    }

    /// Adds each channel's sends and receives over the interval, as the
    /// channels count; nothing while that is undetermined.
    fn add_channels(&mut self, channels: &[ChannelRow], prevs: &[Option<(u64, u64)>]) {
        for (c, prev) in channels.iter().zip(prevs) {
            let (sends, recvs) = match (self.counting, prev) {
                (ChannelCounting::SinceLastSelect, _) => (c.sends, c.recvs),
                (ChannelCounting::Cumulative, Some((s, r))) if c.sends >= *s && c.recvs >= *r => {
                    (c.sends - s, c.recvs - r)
                }
                (ChannelCounting::Cumulative, _) => (c.sends, c.recvs),
                (ChannelCounting::Undetermined, _) => continue,
            };
            let t = self
                .totals
                .channels
                .entry((c.inst_id, c.server.clone(), c.path.clone()))
                .or_default();
            t[0] = t[0].saturating_add(sends);
            t[1] = t[1].saturating_add(recvs);
        }
    }

    /// Each instance's figures, in order of INST_ID, and the operations
    /// each did over the interval (what tells how channels count).
    fn instances(
        &self,
        cur: &DnfsSample,
        now_cs: u64,
        itv_cs: Option<u64>,
        bytes: bool,
    ) -> (Vec<InstFigures>, Vec<(u32, f64)>) {
        let mut inst_ids: Vec<u32> = cur.stats.iter().map(|s| s.inst_id).collect();
        inst_ids.sort_unstable();
        inst_ids.dedup();
        let mut instances = Vec::with_capacity(inst_ids.len());
        let mut ops_by_inst: Vec<(u32, f64)> = Vec::new();
        for &inst in &inst_ids {
            let rows = cur.stats.iter().filter(|s| s.inst_id == inst);
            let figures = itv_cs.map(|_| {
                let mut sum = zero_figures(bytes);
                for s in rows.clone() {
                    let f = match self.procs.get(&proc_key(inst, s.pnum), now_cs) {
                        Some((p, since)) => {
                            proc_figures(Some(p), s, since.max(1) as f64 / 100.0, bytes)
                        }
                        None => {
                            proc_figures(None, s, itv_cs.unwrap_or(1).max(1) as f64 / 100.0, bytes)
                        }
                    };
                    sum.add(&f);
                }
                sum
            });
            if let (Some(f), Some(itv)) = (&figures, itv_cs) {
                ops_by_inst.push((inst, (f.read_per_s + f.write_per_s) * itv as f64 / 100.0));
            }
            instances.push(InstFigures {
                inst_id: inst,
                processes: rows.count(),
                figures,
            });
        }
        (instances, ops_by_inst)
    }
}

/// Figures of nothing yet: zero bytes where the views count bytes.
fn zero_figures(bytes: bool) -> Figures {
    Figures {
        read_bytes_per_s: bytes.then_some(0.0),
        write_bytes_per_s: bytes.then_some(0.0),
        ..Figures::default()
    }
}

/// How the channels count, from a tick where some were seen before
/// (`prevs`): a count that fell was reset by the last select; otherwise
/// an instance busy enough tells by which reading matches its operations.
/// Undetermined while none does.
fn learn_counting(
    channels: &[ChannelRow],
    prevs: &[Option<(u64, u64)>],
    ops_by_inst: &[(u32, f64)],
) -> ChannelCounting {
    let fell = channels
        .iter()
        .zip(prevs)
        .any(|(c, p)| p.is_some_and(|(s, r)| c.sends < s || c.recvs < r));
    if fell {
        return ChannelCounting::SinceLastSelect;
    }
    for &(inst, ops) in ops_by_inst {
        let mine: Vec<_> = channels
            .iter()
            .zip(prevs)
            .filter(|(c, _)| c.inst_id == inst)
            .collect();
        if ops < 100.0 || mine.is_empty() || mine.iter().any(|(_, p)| p.is_none()) {
            continue;
        }
        let since: u64 = mine.iter().map(|(c, _)| c.sends).sum();
        let cum: u64 = mine
            .iter()
            .map(|(c, p)| c.sends.saturating_sub(p.map_or(0, |p| p.0)))
            .sum();
        match (near(cum, ops), near(since, ops)) {
            (true, false) => return ChannelCounting::Cumulative,
            (false, true) => return ChannelCounting::SinceLastSelect,
            _ => continue,
        }
    }
    ChannelCounting::Undetermined
}

/// Each channel's sends and receives per second, read as `counting` says.
fn channel_figures(
    channels: &[ChannelRow],
    prevs: &[Option<(u64, u64)>],
    chan_itv: Option<u64>,
    counting: ChannelCounting,
) -> Vec<ChannelFigures> {
    channels
        .iter()
        .zip(prevs)
        .map(|(c, prev)| {
            let secs = chan_itv.map(|cs| cs as f64 / 100.0);
            let rate = |cur: u64, prev: Option<u64>| -> Option<f64> {
                let secs = secs?;
                let since = cur as f64 / secs;
                let cum = prev
                    .and_then(|p| cur.checked_sub(p))
                    .map(|d| d as f64 / secs);
                match counting {
                    ChannelCounting::SinceLastSelect => Some(since),
                    ChannelCounting::Cumulative => cum,
                    ChannelCounting::Undetermined => cum.filter(|c| *c == since),
                }
            };
            ChannelFigures {
                row: c.clone(),
                sends_per_s: rate(c.sends, prev.map(|p| p.0)),
                recvs_per_s: rate(c.recvs, prev.map(|p| p.1)),
            }
        })
        .collect()
}

/// Each server's figures: its channels' sums, and its files.
fn server_figures(cur: &DnfsSample, channels: &[ChannelFigures]) -> Vec<ServerFigures> {
    cur.servers
        .iter()
        .map(|s| {
            let mine: Vec<&ChannelFigures> = channels
                .iter()
                .filter(|c| c.row.inst_id == s.inst_id && c.row.svr_id == s.id)
                .collect();
            let sum = |f: fn(&ChannelFigures) -> Option<f64>| -> Option<f64> {
                mine.iter().map(|c| f(c)).sum::<Option<f64>>()
            };
            ServerFigures {
                row: s.clone(),
                channels: mine.len(),
                files: cur
                    .files
                    .iter()
                    .filter(|f| f.inst_id == s.inst_id && f.svr_id == s.id)
                    .count(),
                sends_per_s: if mine.is_empty() {
                    None
                } else {
                    sum(|c| c.sends_per_s)
                },
                recvs_per_s: if mine.is_empty() {
                    None
                } else {
                    sum(|c| c.recvs_per_s)
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::dnfs::dnfs_sample::{ChannelRow, Shape};

    fn stat(inst: u32, pnum: u64, r: u64, w: u64) -> StatsRow {
        StatsRow {
            inst_id: inst,
            pnum,
            nfs_read: r,
            nfs_write: w,
            read_bytes: Some(r * 8192),
            write_bytes: Some(w * 8192),
        }
    }

    fn chan(ch: u64, sends: u64) -> ChannelRow {
        ChannelRow {
            inst_id: 1,
            pnum: 20,
            ch_id: ch,
            svr_id: 1,
            server: "nas".into(),
            path: "10.0.0.1".into(),
            local: None,
            sends,
            recvs: sends,
            pings: None,
            reconnects: None,
        }
    }

    fn sample(db_ms: i64, stats: Vec<StatsRow>, channels: Vec<ChannelRow>) -> DnfsSample {
        DnfsSample {
            wall_ms: db_ms,
            db_ms,
            shape: Shape {
                byte_columns: true,
                ..Shape::default()
            },
            stats,
            channels,
            ..DnfsSample::default()
        }
    }

    fn iops(t: &DnfsTick) -> Option<f64> {
        t.total?.get(DnfsCol::Iops)
    }

    #[test]
    fn exited_new_and_reused_processes() {
        let mut b = DnfsBaseline::default();
        let t = b.tick(&sample(
            1_000_000,
            vec![stat(1, 20, 1000, 0), stat(1, 21, 500, 0)],
            vec![],
        ));
        assert_eq!(iops(&t), None, "the first reading gives no rate");
        // 2 s later: pnum 20 +400 reads; pnum 21 exited; pnum 22 new with
        // 100 reads; => (400 + 100) / 2 s = 250/s, not a negative rate
        let t = b.tick(&sample(
            1_002_000,
            vec![stat(1, 20, 1400, 0), stat(1, 22, 100, 0)],
            vec![],
        ));
        assert_eq!(iops(&t), Some(250.0));
        // pnum 20's counts fell: a new process reused the number; its 60
        // reads and 40 writes since it started, over 2 s = 50/s
        let t = b.tick(&sample(
            1_004_000,
            vec![stat(1, 20, 60, 40), stat(1, 22, 100, 0)],
            vec![],
        ));
        assert_eq!(iops(&t), Some(50.0));
        // avg I/O 8192 B = 8 kB; 40 writes × 8192 B / 2 s / MiB = 0.15625
        let f = t.total.unwrap();
        assert_eq!(f.get(DnfsCol::AvgIoKb), Some(8.0));
        assert_eq!(f.get(DnfsCol::WriteMbPerS), Some(0.156_25));
    }

    #[test]
    fn the_running_totals_only_go_up_by_what_each_process_did() {
        let mut b = DnfsBaseline::default();
        let reads = |t: &DnfsTick| t.totals.instances.get(&1).map(|i| (i.reads, i.writes));
        let t = b.tick(&sample(
            1_000_000,
            vec![stat(1, 20, 1000, 0), stat(1, 21, 500, 0)],
            vec![],
        ));
        assert_eq!(reads(&t), Some((1500, 0)), "the first reading starts them");
        // as above: +400, 21 exited (its 500 stay counted), 22 new with 100
        let t = b.tick(&sample(
            1_002_000,
            vec![stat(1, 20, 1400, 0), stat(1, 22, 100, 0)],
            vec![],
        ));
        assert_eq!(reads(&t), Some((2000, 0)));
        // the reused pnum 20: its 60 reads and 40 writes
        let t = b.tick(&sample(
            1_004_000,
            vec![stat(1, 20, 60, 40), stat(1, 22, 100, 0)],
            vec![],
        ));
        assert_eq!(reads(&t), Some((2060, 40)));
        assert_eq!(t.totals.instances[&1].write_bytes, Some(40 * 8192));
        // the database's clock went back: nothing added, nothing taken
        let t = b.tick(&sample(1_003_000, vec![stat(1, 20, 99, 99)], vec![]));
        assert_eq!(reads(&t), Some((2060, 40)));
    }

    #[test]
    fn a_clock_that_went_back_starts_over() {
        let mut b = DnfsBaseline::default();
        b.tick(&sample(10_000, vec![stat(1, 20, 1000, 0)], vec![]));
        let t = b.tick(&sample(9_000, vec![stat(1, 20, 2000, 0)], vec![]));
        assert_eq!((t.itv_ms, iops(&t)), (None, None));
        let t = b.tick(&sample(10_000, vec![stat(1, 20, 2100, 0)], vec![]));
        assert_eq!(iops(&t), Some(100.0));
    }

    #[test]
    fn without_byte_columns_mb_is_unknown_not_zero() {
        let mut b = DnfsBaseline::default();
        let mut s = sample(0, vec![stat(1, 20, 0, 0)], vec![]);
        s.shape.byte_columns = false;
        s.stats[0].read_bytes = None;
        b.tick(&s);
        s.db_ms = 1000;
        s.stats[0].nfs_read = 10;
        let t = b.tick(&s);
        let f = t.total.unwrap();
        assert_eq!(f.get(DnfsCol::Iops), Some(10.0));
        assert_eq!(f.get(DnfsCol::ReadMbPerS), None);
        assert_eq!(f.get(DnfsCol::AvgIoKb), None);
    }

    #[test]
    fn a_falling_send_count_means_counts_since_last_select() {
        let mut b = DnfsBaseline::default();
        b.tick(&sample(0, vec![stat(1, 20, 0, 0)], vec![chan(0, 500)]));
        let t = b.tick(&sample(1000, vec![stat(1, 20, 10, 0)], vec![chan(0, 300)]));
        assert_eq!(t.counting, ChannelCounting::SinceLastSelect);
        assert_eq!(t.channels[0].sends_per_s, Some(300.0));
    }

    #[test]
    fn sends_near_the_operations_decide_the_reading() {
        // one second in which the instance did 1000 ops and its channel's
        // sends read `before`, then `after`
        let over_1000_ops = |before, after| {
            let mut b = DnfsBaseline::default();
            b.tick(&sample(0, vec![stat(1, 20, 0, 0)], vec![chan(0, before)]));
            b.tick(&sample(
                1000,
                vec![stat(1, 20, 1000, 0)],
                vec![chan(0, after)],
            ))
        };
        // running totals: +1000 sends while the instance did 1000 ops
        let t = over_1000_ops(50_000, 51_000);
        assert_eq!(t.counting, ChannelCounting::Cumulative);
        assert_eq!(t.channels[0].sends_per_s, Some(1000.0));
        // since last select: 1000 sends read while 1000 ops were done, 900
        // read the time before (a difference of 100 is far from 1000)
        let t = over_1000_ops(900, 1000);
        assert_eq!(t.counting, ChannelCounting::SinceLastSelect);
        assert_eq!(t.channels[0].sends_per_s, Some(1000.0));
    }

    #[test]
    fn undecided_channels_show_only_what_both_readings_agree_on() {
        let mut b = DnfsBaseline::default();
        b.tick(&sample(0, vec![], vec![chan(0, 0), chan(1, 7)]));
        let t = b.tick(&sample(1000, vec![], vec![chan(0, 0), chan(1, 9)]));
        assert_eq!(t.counting, ChannelCounting::Undetermined);
        assert_eq!(t.channels[0].sends_per_s, Some(0.0));
        assert_eq!(t.channels[1].sends_per_s, None, "2/s or 9/s: unknown");
    }

    #[test]
    fn empty_views_are_not_in_use_and_total_zero_only_with_an_interval() {
        let mut b = DnfsBaseline::default();
        let t = b.tick(&sample(0, vec![], vec![]));
        assert!(!t.in_use && t.total.is_none());
        let t = b.tick(&sample(1000, vec![], vec![]));
        assert!(!t.in_use);
        assert_eq!(iops(&t), Some(0.0));
    }
}

//! nfsiostat figures from two readings of the NFS client's counters.
//!
//! The arithmetic is nfs-utils' `tools/nfs-iostat/nfs-iostat.py` (nfsiostat
//! 0.2, as in nfs-utils 2.6), down to the order of the floating-point
//! operations, so the printed figures agree to the last digit:
//!
//! ```text
//! per mount  ops/s     = Δsends / itv
//!            rpc bklog = (Δbklog_u / Δsends) / itv           0 without sends
//! per op     ops/s     = Δops / itv
//!            kB/s      = ((Δbytes_sent + Δbytes_recv) / 1024) / itv
//!            kB/op     = ((Δbytes_sent + Δbytes_recv) / 1024) / Δops
//!            retrans   = Δntrans - Δops;   retrans % = retrans * 100 / Δops
//!            avg RTT, avg exe, avg queue (ms) = Δrtt, Δexecute, Δqueue / Δops
//!            errors    = Δerrors;          errors %  = errors * 100 / Δops
//!            (the per-op ratios are 0 when Δops is 0, as nfsiostat prints)
//! ```
//!
//! plus, per mount, kB/s from the `bytes:` line (normal, O_DIRECT and
//! server side, read and write), which nfsiostat does not print.
//!
//! Where strata differs, and why:
//! - The interval is the source's /proc/uptime clock between the two
//!   readings, not nfsiostat's nominal `interval` argument: nfsiostat
//!   sleeps `interval` seconds and divides by it whatever the time the
//!   reads really took, so a late wake-up or a slow read inflates its
//!   rates. With an interval that is exact (uptime moved by exactly the
//!   interval) the two are the same figures.
//! - Several `xprt:` lines (nconnect) are summed; nfsiostat keeps the last.
//!   With one transport the figures are the same.
//! - rdma: the kernel prints req_u before bklog_u, as for tcp; nfsiostat
//!   reads rdma's req_u as the backlog. strata reads bklog_u.
//! - A counter that went back (a remount: `age:` went back, or a torn
//!   read) gives no figure for that interval; nfsiostat prints negative
//!   rates. A mount, or an op, missing from the previous reading has no
//!   figures for its first interval: nfsiostat cannot report it either.
//!   Its RPC counters may belong to a transport or client shared with the
//!   server's older mounts, so they did not start at the mount.
//! - mount ops/s and rpc bklog count the transport, which every mount of
//!   the same server shares: like nfsiostat, strata shows the transport's
//!   figures on each of them, and so has no sum of them across mounts.

use super::mountstats::{NfsCounters, RpcOpCounters};
use crate::core::total::Delta;
use crate::layers::col::{Figures, cols};

/// A per-mount figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NfsMountCol {
    OpsPerS,
    RpcBklog,
    NormalReadKBs,
    NormalWriteKBs,
    DirectReadKBs,
    DirectWriteKBs,
    ServerReadKBs,
    ServerWriteKBs,
}

/// A per-op figure, in nfsiostat's column order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NfsOpCol {
    OpsPerS,
    KBPerS,
    KBPerOp,
    Retrans,
    RetransPct,
    AvgRttMs,
    AvgExeMs,
    AvgQueueMs,
    Errors,
    ErrorsPct,
}

/// What a column holds, which decides its colouring and chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NfsColKind {
    /// Operations (RPCs) per second.
    Ops,
    /// Kilobytes (1024 bytes) per second.
    Throughput,
    /// Kilobytes per operation.
    PerOp,
    /// A count over the interval (retransmissions, errors).
    Count,
    /// A share of the operations, in %.
    Percent,
    /// Milliseconds per operation.
    Latency,
    /// nfsiostat's rpc bklog.
    Backlog,
}

cols! {
    /// Headers as nfsiostat prints them (strata's own names for the `bytes:`
    /// figures).
    pub const NFS_MOUNT_COLS: [NfsMountCol, NfsColKind] = [
        (OpsPerS, "ops/s", "ops/s", Ops),
        (RpcBklog, "rpc bklog", "rpc_bklog", Backlog),
        (NormalReadKBs, "read kB/s", "read_kB/s", Throughput),
        (NormalWriteKBs, "write kB/s", "write_kB/s", Throughput),
        (DirectReadKBs, "o_direct read kB/s", "direct_read_kB/s", Throughput),
        (DirectWriteKBs, "o_direct write kB/s", "direct_write_kB/s", Throughput),
        (ServerReadKBs, "server read kB/s", "server_read_kB/s", Throughput),
        (ServerWriteKBs, "server write kB/s", "server_write_kB/s", Throughput),
    ];
}

cols! {
    pub const NFS_OP_COLS: [NfsOpCol, NfsColKind] = [
        (OpsPerS, "ops/s", "ops/s", Ops),
        (KBPerS, "kB/s", "kB/s", Throughput),
        (KBPerOp, "kB/op", "kB/op", PerOp),
        (Retrans, "retrans", "retrans", Count),
        (RetransPct, "retrans %", "retrans_pct", Percent),
        (AvgRttMs, "avg RTT (ms)", "avg_rtt_ms", Latency),
        (AvgExeMs, "avg exe (ms)", "avg_exe_ms", Latency),
        (AvgQueueMs, "avg queue (ms)", "avg_queue_ms", Latency),
        (Errors, "errors", "errors", Count),
        (ErrorsPct, "errors %", "errors_pct", Percent),
    ];
}

/// The per-mount figures of one interval; `None` is a figure the counters
/// cannot give (a counter went back, a transport strata cannot read).
pub type NfsMountRates = Figures<NfsMountCol, { NFS_MOUNT_COLS.len() }>;

/// The figures of one RPC op over one interval. Errors are `None` on
/// kernels that do not count them (RPC iostats before 1.1).
pub type NfsOpRates = Figures<NfsOpCol, { NFS_OP_COLS.len() }>;

/// Interval in seconds, as nfsiostat's `sample_time`.
fn seconds(itv_cs: u64) -> f64 {
    itv_cs as f64 / 100.0
}

/// Counter differences of one mount over one interval.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NfsMountDelta {
    /// Interval in centiseconds of the source's /proc/uptime.
    pub itv_cs: u64,
    /// RPC requests sent, over every transport; `None` when a transport
    /// could not be read or the transports changed.
    pub sends: Option<u64>,
    pub bklog_u: Option<u64>,
    /// normal, direct and server bytes, read then write, as NfsMountCol.
    pub bytes: [Option<u64>; 6],
}

impl NfsMountDelta {
    /// The differences between two readings of one mount `itv_cs`
    /// centiseconds apart; `None` when the interval is empty or the mount
    /// was mounted again in between (its age went back).
    pub fn between(prev: &NfsCounters, cur: &NfsCounters, itv_cs: u64) -> Option<Self> {
        if itv_cs == 0 || cur.age_s < prev.age_s {
            return None;
        }
        let same_transports = prev.xprts.len() == cur.xprts.len()
            && prev
                .xprts
                .iter()
                .zip(&cur.xprts)
                .all(|(p, c)| p.proto == c.proto);
        let xprt_sum =
            |f: fn(&crate::layers::nfs::mountstats::XprtCounters) -> u64| -> Option<u64> {
                if !same_transports || cur.xprts.is_empty() {
                    return None;
                }
                prev.xprts
                    .iter()
                    .zip(&cur.xprts)
                    .try_fold(0u64, |sum, (p, c)| {
                        let d = f(c.counters.as_ref()?).checked_sub(f(p.counters.as_ref()?))?;
                        sum.checked_add(d)
                    })
            };
        let (p, c) = (&prev.bytes, &cur.bytes);
        Some(NfsMountDelta {
            itv_cs,
            sends: xprt_sum(|x| x.sends),
            bklog_u: xprt_sum(|x| x.bklog_u),
            bytes: [
                c.normal_read.checked_sub(p.normal_read),
                c.normal_write.checked_sub(p.normal_write),
                c.direct_read.checked_sub(p.direct_read),
                c.direct_write.checked_sub(p.direct_write),
                c.server_read.checked_sub(p.server_read),
                c.server_write.checked_sub(p.server_write),
            ],
        })
    }

    pub fn rates(&self) -> NfsMountRates {
        let itv = seconds(self.itv_cs);
        let mut v = NfsMountRates::default();
        if let Some(sends) = self.sends {
            let sends = sends as f64;
            v.set(NfsMountCol::OpsPerS, Some(sends / itv));
            let bklog = self.bklog_u.map(|b| {
                if sends != 0.0 {
                    (b as f64 / sends) / itv
                } else {
                    0.0
                }
            });
            v.set(NfsMountCol::RpcBklog, bklog);
        }
        for (i, b) in self.bytes.iter().enumerate() {
            v.0[NfsMountCol::NormalReadKBs as usize + i] = b.map(|b| (b as f64 / 1024.0) / itv);
        }
        v
    }
}

impl Delta for NfsMountDelta {
    fn itv_cs(&self) -> u64 {
        self.itv_cs
    }

    /// Adds another mount's bytes over the same interval. Sends and backlog
    /// are not summed: mounts of one server share their transport.
    fn accumulate(&mut self, other: &NfsMountDelta) {
        self.sends = None;
        self.bklog_u = None;
        for (a, b) in self.bytes.iter_mut().zip(other.bytes) {
            *a = a.zip(b).and_then(|(a, b)| a.checked_add(b));
        }
    }
}

/// Counter differences of one RPC op over one interval.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NfsOpDelta {
    pub ops: u64,
    /// Transmissions less operations; `None` when a torn read saw an op
    /// completed before its transmission was counted.
    pub retrans: Option<u64>,
    pub timeouts: u64,
    pub bytes_sent: u64,
    pub bytes_recv: u64,
    pub queue_ms: u64,
    pub rtt_ms: u64,
    pub execute_ms: u64,
    pub errors: Option<u64>,
}

impl NfsOpDelta {
    /// `None` when a counter went back.
    pub fn between(prev: &RpcOpCounters, cur: &RpcOpCounters) -> Option<Self> {
        let ops = cur.ops.checked_sub(prev.ops)?;
        let ntrans = cur.ntrans.checked_sub(prev.ntrans)?;
        Some(NfsOpDelta {
            ops,
            retrans: ntrans.checked_sub(ops),
            timeouts: cur.timeouts.checked_sub(prev.timeouts)?,
            bytes_sent: cur.bytes_sent.checked_sub(prev.bytes_sent)?,
            bytes_recv: cur.bytes_recv.checked_sub(prev.bytes_recv)?,
            queue_ms: cur.queue_ms.checked_sub(prev.queue_ms)?,
            rtt_ms: cur.rtt_ms.checked_sub(prev.rtt_ms)?,
            execute_ms: cur.execute_ms.checked_sub(prev.execute_ms)?,
            errors: match (prev.errors, cur.errors) {
                (Some(p), Some(c)) => Some(c.checked_sub(p)?),
                _ => None,
            },
        })
    }

    /// nfsiostat's figures over `itv_cs` centiseconds; none over an empty
    /// interval.
    pub fn rates(&self, itv_cs: u64) -> NfsOpRates {
        if itv_cs == 0 {
            return NfsOpRates::default();
        }
        let itv = seconds(itv_cs);
        let ops = self.ops as f64;
        // Python sums the two integers exactly before converting.
        let kilobytes = (u128::from(self.bytes_sent) + u128::from(self.bytes_recv)) as f64 / 1024.0;
        let per_op = |x: f64| if self.ops != 0 { x / ops } else { 0.0 };
        let pct = |x: f64| {
            if self.ops != 0 {
                (x * 100.0) / ops
            } else {
                0.0
            }
        };
        let retrans = self.retrans.map(|r| r as f64);
        let errors = self.errors.map(|e| e as f64);
        let mut v = NfsOpRates::default();
        v.set(NfsOpCol::OpsPerS, Some(ops / itv));
        v.set(NfsOpCol::KBPerS, Some(kilobytes / itv));
        v.set(NfsOpCol::KBPerOp, Some(per_op(kilobytes)));
        v.set(NfsOpCol::Retrans, retrans);
        v.set(NfsOpCol::RetransPct, retrans.map(pct));
        v.set(NfsOpCol::AvgRttMs, Some(per_op(self.rtt_ms as f64)));
        v.set(NfsOpCol::AvgExeMs, Some(per_op(self.execute_ms as f64)));
        v.set(NfsOpCol::AvgQueueMs, Some(per_op(self.queue_ms as f64)));
        v.set(NfsOpCol::Errors, errors);
        v.set(NfsOpCol::ErrorsPct, errors.map(pct));
        v
    }
}

//! `/proc/self/mountstats`: the kernel NFS client's per-mount counters.
//!
//! Every mount gets a `device X mounted on Y with fstype Z` line; NFS mounts
//! (`nfs`, `nfs4`) add ` statvers=V` and an indented block
//! (fs/nfs/super.c nfs_show_stats, net/sunrpc/stats.c rpc_clnt_show_stats):
//!
//! ```text
//! device srv:/export mounted on /mnt with fstype nfs4 statvers=1.1
//!     opts:   rw,vers=4.2,...          age:    3542        (seconds since mount)
//!     events: 27 counters (25 on old kernels)
//!     bytes:  normal rd/wr, direct rd/wr, server rd/wr, pages rd/wr
//!     RPC iostats version: 1.1  p/v: 100003/4 (nfs)
//!     xprt:   tcp|udp|rdma ...     (one line per transport: nconnect gives several)
//!     per-op statistics
//!             READ: ops ntrans timeouts bytes_sent bytes_recv queue rtt execute [errors]
//! ```
//!
//! The `xprt:` layouts differ by transport (net/sunrpc/xprtsock.c
//! xs_udp_print_stats / xs_tcp_print_stats, xprtrdma/transport.c
//! xprt_rdma_print_stats): udp has no connect fields, rdma appends its own
//! counters. Newer kernels append max_slots, sending_u and pending_u to tcp
//! and udp. Per-op lines have 8 fields, 9 (errors) from RPC iostats 1.1.
//! Extra trailing fields from future kernels are ignored.
//!
//! A malformed line rejects its whole mount, named by that line: counters
//! that cannot all be read cannot be trusted. The other mounts are kept.
//! Lines with keys strata does not use (caps:, sec:, nfsv4:, fsc:, ...) are
//! skipped, so new keys in future kernels do no harm.

use crate::core::error::ParseError;
use crate::core::parse::Parsed;

/// The `bytes:` line: what applications and the server moved, in bytes,
/// and the pages read and written.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub struct NfsBytes {
    /// Read by applications through the page cache.
    pub normal_read: u64,
    pub normal_write: u64,
    /// Read with O_DIRECT.
    pub direct_read: u64,
    pub direct_write: u64,
    /// Read from the server (READ replies), whatever asked for them.
    pub server_read: u64,
    pub server_write: u64,
    pub read_pages: u64,
    pub write_pages: u64,
}

/// The counters of one `xprt:` line that strata knows the layout of.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct XprtCounters {
    pub port: u64,
    pub bind_count: u64,
    /// tcp and rdma; 0 for udp, which does not print it.
    pub connect_count: u64,
    pub connect_time: u64,
    /// Seconds idle; printed signed (`%ld`).
    pub idle_time: i64,
    /// RPC requests sent: nfsiostat's `rpcsends`.
    pub sends: u64,
    pub recvs: u64,
    pub bad_xids: u64,
    /// Sum over sends of the requests in flight (nfsiostat: inflightsends).
    pub req_u: u64,
    /// Sum over sends of the backlog queue length (nfsiostat: backlogutil).
    pub bklog_u: u64,
    /// Fields after bklog_u: max_slots, sending_u, pending_u (tcp, udp on
    /// newer kernels) or the rdma chunk and registration counters.
    pub more: Vec<u64>,
}

/// One `xprt:` line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Xprt {
    /// `tcp`, `udp`, `rdma`, or a name a future kernel prints.
    pub proto: String,
    /// `None` for a transport whose layout strata does not know: its sends
    /// and backlog are then unknown, not guessed.
    pub counters: Option<XprtCounters>,
}

/// One line of `per-op statistics` (kernel `struct rpc_iostats`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct RpcOpCounters {
    /// `READ`, `WRITE`, `GETATTR`, ...
    pub name: String,
    /// RPCs completed.
    pub ops: u64,
    /// Transmissions, retransmissions included.
    pub ntrans: u64,
    /// Major timeouts.
    pub timeouts: u64,
    /// Bytes sent and received, RPC headers included.
    pub bytes_sent: u64,
    pub bytes_recv: u64,
    /// Cumulative milliseconds queued for transmission.
    pub queue_ms: u64,
    /// Cumulative round-trip milliseconds.
    pub rtt_ms: u64,
    /// Cumulative milliseconds from submission to completion.
    pub execute_ms: u64,
    /// RPCs that completed with an error: only from RPC iostats 1.1.
    pub errors: Option<u64>,
}

impl RpcOpCounters {
    /// An op from the numbers of its line: `None` with fewer than 8.
    pub fn from_fields(name: &str, v: &[u64]) -> Option<Self> {
        // A struct literal's fields are evaluated in the order written.
        let mut v = v.iter().copied();
        Some(RpcOpCounters {
            name: name.to_string(),
            ops: v.next()?,
            ntrans: v.next()?,
            timeouts: v.next()?,
            bytes_sent: v.next()?,
            bytes_recv: v.next()?,
            queue_ms: v.next()?,
            rtt_ms: v.next()?,
            execute_ms: v.next()?,
            errors: v.next(),
        })
    }
}

/// What an NFS mount's block says, apart from where it is mounted: two
/// blocks with equal counters and the same device are one superblock seen
/// through two mount points (bind mounts).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct NfsCounters {
    /// The `opts:` line as printed (`rw,vers=4.2,...`).
    pub opts: String,
    /// Seconds since the superblock was mounted.
    pub age_s: u64,
    /// The `events:` counters, as many as the kernel printed.
    pub events: Vec<u64>,
    pub bytes: NfsBytes,
    /// `RPC iostats version:` such as `1.1`.
    pub rpc_version: String,
    /// What follows `p/v:`, such as `100003/4 (nfs)`.
    pub program: String,
    pub xprts: Vec<Xprt>,
    /// In the kernel's order.
    pub ops: Vec<RpcOpCounters>,
}

impl NfsCounters {
    /// The value of a mount option, such as `vers` or `proto`.
    pub fn opt(&self, key: &str) -> Option<&str> {
        self.opts
            .split(',')
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
    }

    pub fn op(&self, name: &str) -> Option<&RpcOpCounters> {
        self.ops.iter().find(|o| o.name == name)
    }
}

/// One NFS mount's block.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MountStats {
    /// Line number of the `device` line.
    pub line_no: usize,
    /// The export, as the kernel escapes it (`srv:/export`).
    pub device: String,
    /// As the kernel escapes it: a space is `\040`.
    pub mount_point: String,
    /// `nfs` or `nfs4`.
    pub fstype: String,
    /// `statvers=` of the device line.
    pub statvers: Option<String>,
    pub counters: NfsCounters,
}

/// Whether a file system type is one the kernel NFS client prints
/// statistics for.
pub fn is_nfs(fstype: &str) -> bool {
    fstype == "nfs" || fstype == "nfs4"
}

/// A block being read.
struct Block {
    stats: MountStats,
    has_age: bool,
    has_bytes: bool,
    has_rpc: bool,
    in_ops: bool,
    /// The first malformed line: the block is rejected for it.
    bad: Option<ParseError>,
}

/// Parses the whole text of a mountstats file. Non-NFS mounts are skipped.
pub fn parse_mountstats(text: &str, source_name: &str) -> Parsed<MountStats> {
    let mut out = Parsed::default();
    let mut block: Option<Block> = None;
    // After a device line that could not be read: its indented lines
    // belong to no mount.
    let mut orphan = false;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else {
            continue;
        };
        if first == "device" || line.starts_with("no device") {
            finish(block.take(), source_name, &mut out);
            orphan = false;
            match parse_device_line(line) {
                Ok(Some((device, mount_point, fstype, statvers))) => {
                    block = Some(Block {
                        stats: MountStats {
                            line_no,
                            device,
                            mount_point,
                            fstype,
                            statvers,
                            counters: NfsCounters::default(),
                        },
                        has_age: false,
                        has_bytes: false,
                        has_rpc: false,
                        in_ops: false,
                        bad: None,
                    });
                }
                Ok(None) => {}
                Err(expected) => {
                    out.rejected
                        .push(ParseError::new(source_name, line_no, line, expected));
                    orphan = true;
                }
            }
            continue;
        }
        let Some(b) = block.as_mut() else {
            if !orphan {
                out.rejected.push(ParseError::new(
                    source_name,
                    line_no,
                    line,
                    "a `device ... mounted on ... with fstype ...` line",
                ));
                orphan = true;
            }
            continue;
        };
        if b.bad.is_some() {
            continue;
        }
        if let Err(expected) = parse_block_line(b, first, words) {
            b.bad = Some(ParseError::new(source_name, line_no, line, expected));
        }
    }
    finish(block, source_name, &mut out);
    out
}

/// `device X mounted on Y with fstype Z [statvers=V]`: `Ok(None)` for a
/// mount that is not NFS.
type DeviceLine = (String, String, String, Option<String>);

fn parse_device_line(line: &str) -> Result<Option<DeviceLine>, String> {
    const EXPECTED: &str = "`device X mounted on Y with fstype Z [statvers=V]`";
    let w: Vec<&str> = line.split_whitespace().collect();
    // "no device mounted on Y with fstype Z": a mount without a device
    // name, never NFS.
    if w.first() == Some(&"no") {
        return Ok(None);
    }
    if w.len() < 8 || w[2] != "mounted" || w[3] != "on" || w[5] != "with" || w[6] != "fstype" {
        return Err(EXPECTED.to_string());
    }
    if !is_nfs(w[7]) {
        return Ok(None);
    }
    let statvers = w
        .get(8)
        .and_then(|s| s.strip_prefix("statvers="))
        .map(str::to_string);
    Ok(Some((
        w[1].to_string(),
        w[4].to_string(),
        w[7].to_string(),
        statvers,
    )))
}

fn numbers<'a, T: std::str::FromStr>(
    words: impl Iterator<Item = &'a str>,
) -> Result<Vec<T>, String> {
    words
        .map(|w| {
            w.parse::<T>()
                .map_err(|_| format!("an unsigned integer counter, not {w:?}"))
        })
        .collect()
}

const EVENTS_MIN: usize = 25;

fn parse_block_line<'a>(
    b: &mut Block,
    first: &str,
    words: impl Iterator<Item = &'a str>,
) -> Result<(), String> {
    let c = &mut b.stats.counters;
    if b.in_ops {
        let name = first
            .strip_suffix(':')
            .filter(|n| !n.is_empty())
            .ok_or("a per-op line `NAME: ops ntrans timeouts bytes_sent bytes_recv queue rtt execute [errors]`")?;
        let v: Vec<u64> = numbers(words)?;
        if v.len() < 8 {
            return Err(format!("8 or 9 counters after {name}:, found {}", v.len()));
        }
        if c.ops.iter().any(|o| o.name == name) {
            return Err(format!("{name} once per mount"));
        }
        c.ops.extend(RpcOpCounters::from_fields(name, &v));
        return Ok(());
    }
    match first {
        "opts:" => c.opts = words.collect::<Vec<_>>().join(""),
        "age:" => {
            let v: Vec<u64> = numbers(words)?;
            c.age_s = *v.first().ok_or("seconds since mount after age:")?;
            b.has_age = true;
        }
        "events:" => {
            let v: Vec<u64> = numbers(words)?;
            if v.len() < EVENTS_MIN {
                return Err(format!(
                    "{EVENTS_MIN} or more counters after events:, found {}",
                    v.len()
                ));
            }
            c.events = v;
        }
        "bytes:" => {
            let v: Vec<u64> = numbers(words)?;
            if v.len() < 8 {
                return Err(format!("8 counters after bytes:, found {}", v.len()));
            }
            c.bytes = NfsBytes {
                normal_read: v[0],
                normal_write: v[1],
                direct_read: v[2],
                direct_write: v[3],
                server_read: v[4],
                server_write: v[5],
                read_pages: v[6],
                write_pages: v[7],
            };
            b.has_bytes = true;
        }
        "RPC" => {
            // RPC iostats version: 1.1  p/v: 100003/4 (nfs)
            let rest: Vec<&str> = words.collect();
            match rest.as_slice() {
                ["iostats", "version:", v, more @ ..] => {
                    c.rpc_version = (*v).to_string();
                    c.program = match more {
                        ["p/v:", p @ ..] => p.join(" "),
                        _ => String::new(),
                    };
                    b.has_rpc = true;
                }
                _ => return Err("`RPC iostats version: V  p/v: P/V (nfs)`".to_string()),
            }
        }
        "xprt:" => c.xprts.push(parse_xprt(words)?),
        "per-op" => b.in_ops = true,
        // Keys strata does not use, and keys of kernels to come.
        _ if first.ends_with(':') => {}
        _ => return Err("a `key: values` line of an NFS mount".to_string()),
    }
    Ok(())
}

fn parse_xprt<'a>(mut words: impl Iterator<Item = &'a str>) -> Result<Xprt, String> {
    let proto = words.next().ok_or("a transport name after xprt:")?;
    let counters = match proto {
        "udp" => {
            // port bind_count sends recvs bad_xids req_u bklog_u [max_slots sending_u pending_u]
            let v: Vec<u64> = numbers(words)?;
            if v.len() < 7 {
                return Err(format!(
                    "7 or more counters after xprt: udp, found {}",
                    v.len()
                ));
            }
            Some(XprtCounters {
                port: v[0],
                bind_count: v[1],
                sends: v[2],
                recvs: v[3],
                bad_xids: v[4],
                req_u: v[5],
                bklog_u: v[6],
                more: v[7..].to_vec(),
                ..Default::default()
            })
        }
        "tcp" | "rdma" => {
            // port bind_count connect_count connect_time idle_time sends
            // recvs bad_xids req_u bklog_u [tcp: max_slots sending_u
            // pending_u | rdma: read_chunks write_chunks reply_chunks ...]
            let w: Vec<&str> = words.collect();
            if w.len() < 10 {
                return Err(format!(
                    "10 or more counters after xprt: {proto}, found {}",
                    w.len()
                ));
            }
            let idle_time = w[4]
                .parse::<i64>()
                .map_err(|_| format!("idle seconds, not {:?}", w[4]))?;
            let head: Vec<u64> = numbers(w[..4].iter().copied())?;
            let tail: Vec<u64> = numbers(w[5..].iter().copied())?;
            Some(XprtCounters {
                port: head[0],
                bind_count: head[1],
                connect_count: head[2],
                connect_time: head[3],
                idle_time,
                sends: tail[0],
                recvs: tail[1],
                bad_xids: tail[2],
                req_u: tail[3],
                bklog_u: tail[4],
                more: tail[5..].to_vec(),
            })
        }
        _ => None,
    };
    Ok(Xprt {
        proto: proto.to_string(),
        counters,
    })
}

fn finish(block: Option<Block>, source_name: &str, out: &mut Parsed<MountStats>) {
    let Some(b) = block else {
        return;
    };
    if let Some(e) = b.bad {
        out.rejected.push(e);
        return;
    }
    if !(b.has_age && b.has_bytes && b.has_rpc) {
        let s = &b.stats;
        let line = format!(
            "device {} mounted on {} with fstype {}",
            s.device, s.mount_point, s.fstype
        );
        out.rejected.push(ParseError::new(
            source_name,
            s.line_no,
            &line,
            "age:, bytes: and `RPC iostats version:` lines in the mount's block",
        ));
        return;
    }
    out.items.push(b.stats);
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "device srv:/export mounted on /mnt/a with fstype nfs statvers=1.1
\topts:\trw,vers=3,proto=tcp
\tage:\t100
\tcaps:\tcaps=0x3fc7
\tevents:\t1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27
\tbytes:\t10 20 30 40 50 60 7 8
\tRPC iostats version: 1.1  p/v: 100003/3 (nfs)
\txprt:\ttcp 840 1 2 3 -1 1000 999 0 5000 100 10 20 30
\tper-op statistics
\t        READ: 100 101 0 10000 2000000 50 500 600 1
\t       WRITE: 50 50 0 1000000 5000 20 300 400
";

    #[test]
    fn reads_a_block() {
        let p = parse_mountstats(
            &format!("device proc mounted on /proc with fstype proc\n{BLOCK}"),
            "ms",
        );
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        assert_eq!(p.items.len(), 1, "proc is not NFS");
        let m = &p.items[0];
        assert_eq!(
            (m.line_no, m.device.as_str(), m.mount_point.as_str()),
            (2, "srv:/export", "/mnt/a")
        );
        assert_eq!(m.statvers.as_deref(), Some("1.1"));
        let c = &m.counters;
        assert_eq!(
            (c.opt("vers"), c.opt("proto"), c.opt("x")),
            (Some("3"), Some("tcp"), None)
        );
        assert_eq!(c.age_s, 100);
        assert_eq!(c.events.len(), 27);
        assert_eq!(c.bytes.server_read, 50);
        assert_eq!(
            (c.rpc_version.as_str(), c.program.as_str()),
            ("1.1", "100003/3 (nfs)")
        );
        let x = c.xprts[0].counters.as_ref().unwrap();
        assert_eq!(
            (x.idle_time, x.sends, x.req_u, x.bklog_u),
            (-1, 1000, 5000, 100)
        );
        assert_eq!(x.more, vec![10, 20, 30]);
        assert_eq!(c.op("READ").unwrap().errors, Some(1));
        assert_eq!(c.op("WRITE").unwrap().errors, None, "8 fields: no errors");
        assert_eq!(c.op("WRITE").unwrap().execute_ms, 400);
    }

    #[test]
    fn transports_by_layout() {
        let p = parse_mountstats(
            &BLOCK.replace(
                "xprt:\ttcp 840 1 2 3 -1 1000 999 0 5000 100 10 20 30",
                "xprt:\tudp 1023 0 560 560 0 1832 176\n\
                 \txprt:\trdma 0 1 1 0 0 77 76 0 88 9 1 2 3 4 5 6 7 8 9 10\n\
                 \txprt:\tquic 1 2 3",
            ),
            "ms",
        );
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        let x = &p.items[0].counters.xprts;
        let udp = x[0].counters.as_ref().unwrap();
        assert_eq!((udp.sends, udp.req_u, udp.bklog_u), (560, 1832, 176));
        let rdma = x[1].counters.as_ref().unwrap();
        // the kernel prints req_u then bklog_u before the rdma counters
        assert_eq!(
            (rdma.sends, rdma.req_u, rdma.bklog_u, rdma.more.len()),
            (77, 88, 9, 10)
        );
        assert_eq!(
            (x[2].proto.as_str(), x[2].counters.is_none()),
            ("quic", true)
        );
    }

    #[test]
    fn a_bad_line_rejects_its_mount_only() {
        let bad = BLOCK
            .replace("/mnt/a", "/mnt/bad")
            .replace("WRITE: 50 50 0", "WRITE: 50 x 0");
        let text = format!("{bad}{BLOCK}");
        let p = parse_mountstats(&text, "/proc/self/mountstats");
        assert_eq!(p.items.len(), 1);
        assert_eq!(p.items[0].mount_point, "/mnt/a");
        assert_eq!(p.rejected.len(), 1);
        assert_eq!(p.rejected[0].line_no, 11);
        assert!(
            p.rejected[0]
                .to_string()
                .contains("/proc/self/mountstats line 11")
        );
    }

    #[test]
    fn malformed_lines_are_named() {
        let cases = [
            ("\tage:\t100", "\tage:\tlong"),
            ("\tage:\t100", "\tage:"),
            ("\tbytes:\t10 20 30 40 50 60 7 8", "\tbytes:\t10 20"),
            ("\tevents:\t1 2 3 4 5 6", "\tevents:\t1 2 3"),
            (
                "tcp 840 1 2 3 -1 1000 999 0 5000 100 10 20 30",
                "tcp 840 1 2 3 -1 1000 999 0",
            ),
            (
                "xprt:\ttcp 840 1 2 3 -1 1000",
                "xprt:\tudp 840 -1 2 3 4 5 6",
            ),
            ("RPC iostats version: 1.1", "RPC stats"),
            ("        READ: 100 101 0 10000", "        READ: 100 101"),
            ("       WRITE: 50", "        READ: 50"),
            ("\tper-op statistics\n", "\tper-op statistics\n\tgarbage\n"),
            ("\tcaps:\tcaps=0x3fc7", "\tcaps"),
        ];
        for (from, to) in cases {
            let text = BLOCK.replacen(from, to, 1);
            assert_ne!(text, BLOCK, "{from}");
            let p = parse_mountstats(&text, "ms");
            assert!(p.items.is_empty(), "{to}: {:?}", p.items);
            assert_eq!(p.rejected.len(), 1, "{to}");
        }
    }

    #[test]
    fn missing_lines_reject_the_mount_at_its_device_line() {
        let text = "device a:/x mounted on /x with fstype nfs statvers=1.0\n\txprt:\ttcp 1 2 3 4 5 6 7 8 9 10\n";
        let p = parse_mountstats(text, "ms");
        assert!(p.items.is_empty());
        assert_eq!(p.rejected[0].line_no, 1);
    }

    #[test]
    fn device_lines() {
        let text = "no device mounted on /x with fstype none\n\
                    device a:/x mounted on /y with fstype nfs4\n\
                    device a:/x mounted\n\
                    \tage:\t1\n\
                    device tmpfs mounted on /t with fstype tmpfs\n";
        let p = parse_mountstats(text, "ms");
        assert!(p.items.is_empty());
        // the NFS mount without a block, then the broken device line (its
        // indented line is not reported again)
        let lines: Vec<usize> = p.rejected.iter().map(|e| e.line_no).collect();
        assert_eq!(lines, vec![2, 3]);
        let p = parse_mountstats("\tage:\t1\n\tage:\t2\n", "ms");
        assert_eq!(p.rejected.len(), 1, "{:?}", p.rejected);
    }
}

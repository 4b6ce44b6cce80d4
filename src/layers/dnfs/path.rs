//! The path view's line-up: the database's dNFS MB/s beside the MB/s of
//! the NICs that carry its channels (each channel's LOCAL address mapped to
//! its interface through the connected routes), the kernel NFS client's
//! and the block devices', with the two cases users get wrong flagged:
//!
//! - the database moves data the host's NFS client cannot see: iostat and
//!   nfsiostat show an idle mount while dNFS is busy;
//! - the filer-facing NICs do not match the dNFS figures: less on the wire
//!   than the database reports (a channel on another interface, a wrong
//!   map), or much more (traffic the database does not account for).
//!
//! Pure: figures of one moment in, a line-up out. The thresholds are wide
//! on purpose: different clocks and intervals make the layers differ by a
//! few percent in normal operation.

use super::model::{DnfsCol, DnfsTick};
use crate::parse::route::{Route, iface_of};
use serde::Serialize;

/// Below this dNFS MB/s nothing is flagged: too little to compare.
pub const BUSY_MB_S: f64 = 1.0;
/// The kernel NFS client seeing less than this share of dNFS's MB/s.
pub const BLIND_SHARE: f64 = 0.05;
/// The wire under this share of dNFS's MB/s.
pub const WIRE_SHORT: f64 = 0.9;
/// The wire over this multiple of (dNFS + kernel NFS) MB/s, plus 1 MB/s.
pub const WIRE_EXTRA: f64 = 1.5;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum PathFlag {
    /// dNFS is busy and the host's NFS client sees (next to) nothing.
    HostBlind {
        dnfs_mb_s: f64,
        kernel_nfs_mb_s: f64,
    },
    /// The NICs of the channels carry less than the database reports.
    WireShort { dnfs_mb_s: f64, wire_mb_s: f64 },
    /// The NICs of the channels carry much more than dNFS and kernel NFS.
    WireExtra {
        dnfs_mb_s: f64,
        kernel_nfs_mb_s: f64,
        wire_mb_s: f64,
    },
}

impl PathFlag {
    pub fn message(&self) -> String {
        match self {
            PathFlag::HostBlind {
                dnfs_mb_s,
                kernel_nfs_mb_s,
            } => format!(
                "dNFS moves {dnfs_mb_s:.1} MB/s that the host's NFS client does not see ({kernel_nfs_mb_s:.1} MB/s): iostat and nfsiostat show an idle mount, the I/O goes through Direct NFS"
            ),
            PathFlag::WireShort {
                dnfs_mb_s,
                wire_mb_s,
            } => format!(
                "the NICs of the dNFS channels carry {wire_mb_s:.1} MB/s, less than the {dnfs_mb_s:.1} MB/s the database reports: a channel on an interface not mapped, or the wrong NICs"
            ),
            PathFlag::WireExtra {
                dnfs_mb_s,
                kernel_nfs_mb_s,
                wire_mb_s,
            } => format!(
                "the NICs of the dNFS channels carry {wire_mb_s:.1} MB/s, far more than dNFS ({dnfs_mb_s:.1}) and kernel NFS ({kernel_nfs_mb_s:.1}) together: other traffic shares the filer-facing links"
            ),
        }
    }
}

/// One moment of the path, layer by layer.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct PathLine {
    /// Read + write MB/s over the databases whose figures are current.
    pub dnfs_mb_s: Option<f64>,
    /// The interfaces the channels' LOCAL addresses are on.
    pub dnfs_ifaces: Vec<String>,
    /// LOCAL addresses no connected route holds (or channels without one).
    pub unmapped: Vec<String>,
    /// rx + tx MB/s of `dnfs_ifaces`; `None` unless every one has figures.
    pub wire_mb_s: Option<f64>,
    pub kernel_nfs_mb_s: Option<f64>,
    pub block_mb_s: Option<f64>,
    pub flags: Vec<PathFlag>,
}

/// Lines the layers up. `dbs` are the current ticks of the databases;
/// `nic_mb_s` each interface's rx + tx MB/s; `kernel_nfs_mb_s` and
/// `block_mb_s` the host's totals (`None` when unknown).
pub fn line_up(
    dbs: &[&DnfsTick],
    routes: &[Route],
    nic_mb_s: &[(String, Option<f64>)],
    kernel_nfs_mb_s: Option<f64>,
    block_mb_s: Option<f64>,
) -> PathLine {
    let in_use: Vec<&&DnfsTick> = dbs.iter().filter(|t| t.in_use).collect();
    let dnfs_mb_s = if in_use.is_empty() {
        None
    } else {
        in_use
            .iter()
            .map(|t| {
                let f = t.total?;
                Some(f.get(DnfsCol::ReadMbPerS)? + f.get(DnfsCol::WriteMbPerS)?)
            })
            .sum::<Option<f64>>()
    };
    let mut ifaces: Vec<String> = Vec::new();
    let mut unmapped: Vec<String> = Vec::new();
    for c in in_use.iter().flat_map(|t| &t.channels) {
        match c
            .row
            .local
            .as_deref()
            .and_then(|l| Some((l, iface_of(l, routes)?)))
        {
            Some((_, i)) => {
                if !ifaces.iter().any(|x| x == i) {
                    ifaces.push(i.to_string());
                }
            }
            None => {
                let l = c
                    .row
                    .local
                    .clone()
                    .unwrap_or_else(|| format!("{} (no LOCAL)", c.row.path));
                if !unmapped.contains(&l) {
                    unmapped.push(l);
                }
            }
        }
    }
    ifaces.sort();
    let wire_mb_s = if ifaces.is_empty() {
        None
    } else {
        ifaces
            .iter()
            .map(|i| nic_mb_s.iter().find(|(n, _)| n == i).and_then(|(_, v)| *v))
            .sum::<Option<f64>>()
    };
    let mut flags = Vec::new();
    if let Some(d) = dnfs_mb_s.filter(|d| *d >= BUSY_MB_S) {
        if let Some(k) = kernel_nfs_mb_s.filter(|k| *k < d * BLIND_SHARE) {
            flags.push(PathFlag::HostBlind {
                dnfs_mb_s: d,
                kernel_nfs_mb_s: k,
            });
        }
        if let Some(w) = wire_mb_s {
            let k = kernel_nfs_mb_s.unwrap_or(0.0);
            if w < d * WIRE_SHORT {
                flags.push(PathFlag::WireShort {
                    dnfs_mb_s: d,
                    wire_mb_s: w,
                });
            } else if w > (d + k) * WIRE_EXTRA + 1.0 {
                flags.push(PathFlag::WireExtra {
                    dnfs_mb_s: d,
                    kernel_nfs_mb_s: k,
                    wire_mb_s: w,
                });
            }
        }
    }
    PathLine {
        dnfs_mb_s,
        dnfs_ifaces: ifaces,
        unmapped,
        wire_mb_s,
        kernel_nfs_mb_s,
        block_mb_s,
        flags,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::dnfs::dnfs_sample::ChannelRow;
    use crate::layers::dnfs::model::{ChannelFigures, Figures};
    use crate::parse::route::parse_route;

    const MB: f64 = 1024.0 * 1024.0;

    fn routes() -> Vec<Route> {
        parse_route(
            "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n\
             ens3f0\t000AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n\
             ens3f1\t000BA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n",
        )
        .items
    }

    /// A database doing `r` + `w` MB/s over channels from `locals`.
    fn db(r: f64, w: f64, locals: &[Option<&str>]) -> DnfsTick {
        DnfsTick {
            in_use: true,
            itv_ms: Some(1000),
            total: Some(Figures {
                read_per_s: r * 128.0,
                write_per_s: w * 128.0,
                read_bytes_per_s: Some(r * MB),
                write_bytes_per_s: Some(w * MB),
            }),
            channels: locals
                .iter()
                .enumerate()
                .map(|(i, l)| ChannelFigures {
                    row: ChannelRow {
                        inst_id: 1,
                        pnum: 20,
                        ch_id: i as u64,
                        svr_id: 0,
                        server: "nas1".into(),
                        path: "192.168.10.11".into(),
                        local: l.map(str::to_string),
                        sends: 0,
                        recvs: 0,
                        pings: None,
                        reconnects: None,
                    },
                    sends_per_s: None,
                    recvs_per_s: None,
                })
                .collect(),
            ..DnfsTick::default()
        }
    }

    fn nics(a: f64, b: f64) -> Vec<(String, Option<f64>)> {
        vec![
            ("ens3f0".into(), Some(a)),
            ("ens3f1".into(), Some(b)),
            ("eth0".into(), Some(900.0)),
        ]
    }

    #[test]
    fn a_matching_wire_and_a_blind_host() {
        // 400 + 80 = 480 MB/s of dNFS on both NICs (250 + 245 = 495 MB/s
        // with headers); the kernel NFS client sees 0.3 MB/s
        let t = db(400.0, 80.0, &[Some("192.168.10.1"), Some("192.168.11.1")]);
        let p = line_up(&[&t], &routes(), &nics(250.0, 245.0), Some(0.3), Some(12.0));
        assert_eq!(p.dnfs_ifaces, ["ens3f0", "ens3f1"]);
        assert_eq!(p.wire_mb_s, Some(495.0));
        assert_eq!(
            p.flags,
            [PathFlag::HostBlind {
                dnfs_mb_s: 480.0,
                kernel_nfs_mb_s: 0.3
            }]
        );
    }

    #[test]
    fn wire_short_and_wire_extra() {
        // one channel's LOCAL on a subnet with no route: only ens3f0 is
        // counted, 250 MB/s < 0.9 × 480
        let t = db(400.0, 80.0, &[Some("192.168.10.1"), Some("172.16.0.9")]);
        let p = line_up(&[&t], &routes(), &nics(250.0, 245.0), Some(100.0), None);
        assert_eq!(p.unmapped, ["172.16.0.9"]);
        assert!(
            matches!(p.flags[..], [PathFlag::WireShort { .. }]),
            "{:?}",
            p.flags
        );
        // 100 MB/s of dNFS, 10 of kernel NFS, 900 on the wire > 1.5 × 110 + 1
        let t = db(100.0, 0.0, &[Some("192.168.10.1")]);
        let p = line_up(&[&t], &routes(), &nics(900.0, 0.0), Some(10.0), None);
        assert!(
            matches!(p.flags[..], [PathFlag::WireExtra { .. }]),
            "{:?}",
            p.flags
        );
    }

    #[test]
    fn nothing_flagged_when_idle_unknown_or_not_in_use() {
        let t = db(0.5, 0.0, &[Some("192.168.10.1")]);
        assert!(
            line_up(&[&t], &routes(), &nics(0.0, 0.0), Some(0.0), None)
                .flags
                .is_empty()
        );
        let mut t = db(400.0, 0.0, &[Some("192.168.10.1")]);
        t.in_use = false;
        let p = line_up(&[&t], &routes(), &nics(0.0, 0.0), Some(0.0), None);
        assert_eq!((p.dnfs_mb_s, p.flags.len()), (None, 0));
        // MB/s unknown (no byte columns): nothing to compare
        let mut t = db(400.0, 0.0, &[Some("192.168.10.1")]);
        t.total = t.total.map(|f| Figures {
            read_bytes_per_s: None,
            ..f
        });
        let p = line_up(&[&t], &routes(), &nics(0.0, 0.0), Some(0.0), None);
        assert_eq!((p.dnfs_mb_s, p.flags.len()), (None, 0));
    }
}

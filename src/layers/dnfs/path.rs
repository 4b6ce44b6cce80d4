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
//! With database nodes, each RAC instance is lined up against its own node
//! ([`line_up_instances`]): gv$instance's HOST_NAME names the node
//! ([`node_of`]), and the instance's dNFS MB/s meets that node's NICs,
//! kernel NFS client and block devices.
//!
//! Pure: figures of one moment in, a line-up out. The thresholds are wide
//! on purpose: different clocks and intervals make the layers differ by a
//! few percent in normal operation.

use super::dnfs_sample::{ChannelRow, DnfsInstances, INSTANCE_VIEW};
use super::model::{DnfsCol, DnfsTick, Figures};
use crate::layers::disks::model::DiskCol;
use crate::layers::host::HostLayers;
use crate::layers::nfs::model::NfsMountCol;
use crate::layers::nics::model::NicCol;
use crate::layers::nics::route::{Route, iface_of};
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

    /// The flag in a few words, for a box too short for `message`: the
    /// compact line beside it carries the figures, the Databases panel
    /// the whole sentence.
    pub fn short(&self) -> &'static str {
        match self {
            PathFlag::HostBlind { .. } => "dNFS I/O the host's NFS client does not see",
            PathFlag::WireShort { .. } => "the channels' NICs carry less than dNFS",
            PathFlag::WireExtra { .. } => "the channels' NICs carry far more than dNFS and NFS",
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

/// One host's figures the path lines dNFS up against: its routes (which
/// interface holds a channel's LOCAL address), each interface's rx + tx
/// MB/s, its kernel NFS client's and its block devices' MB/s (`None`
/// when unknown).
#[derive(Debug, Clone, Default)]
pub struct HostFigures<'a> {
    pub routes: &'a [Route],
    pub nic_mb_s: Vec<(String, Option<f64>)>,
    pub kernel_nfs_mb_s: Option<f64>,
    pub block_mb_s: Option<f64>,
}

/// Read + write MB/s of dNFS figures; `None` without byte columns.
fn mb_s(f: Option<&Figures>) -> Option<f64> {
    let f = f?;
    Some(f.get(DnfsCol::ReadMbPerS)? + f.get(DnfsCol::WriteMbPerS)?)
}

impl HostLayers {
    /// What the path view lines dNFS up against on this host: its routes,
    /// each NIC's, the kernel NFS client's and the block devices' MB/s;
    /// only the routes when its figures are not `current`.
    pub fn path_figures(&self, current: bool) -> HostFigures<'_> {
        let routes = &self.nics.routes;
        if !current {
            return HostFigures {
                routes,
                ..HostFigures::default()
            };
        }
        let mb = |r: Option<f64>, w: Option<f64>| Some((r? + w?) / 1024.0);
        let nic_mb_s: Vec<(String, Option<f64>)> = self
            .nics
            .tick()
            .map(|t| {
                t.rows
                    .iter()
                    .map(|r| {
                        let get = |c| r.rates.as_ref().and_then(|x| x.get(c));
                        (
                            r.name.clone(),
                            mb(get(NicCol::RKbPerS), get(NicCol::WKbPerS)),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        // what went over the wire for the mounts: the server's bytes, as
        // nfsiostat's kB/s
        let kernel_nfs_mb_s = self
            .nfs
            .tick()
            .and_then(|t| t.total.as_ref())
            .and_then(|x| {
                mb(
                    x.get(NfsMountCol::ServerReadKBs),
                    x.get(NfsMountCol::ServerWriteKBs),
                )
            });
        let block_mb_s = self
            .disks
            .tick()
            .and_then(|t| t.total.as_ref())
            .and_then(|x| mb(x.get(DiskCol::RkBPerS), x.get(DiskCol::WkBPerS)));
        HostFigures {
            routes,
            nic_mb_s,
            kernel_nfs_mb_s,
            block_mb_s,
        }
    }
}

/// Lines the layers up. `dbs` are the current ticks of the databases,
/// `host` the figures of the host they run on.
pub fn line_up(dbs: &[&DnfsTick], host: &HostFigures) -> PathLine {
    let in_use: Vec<&&DnfsTick> = dbs.iter().filter(|t| t.in_use).collect();
    let dnfs_mb_s = if in_use.is_empty() {
        None
    } else {
        in_use
            .iter()
            .map(|t| mb_s(t.total.as_ref()))
            .sum::<Option<f64>>()
    };
    let channels = in_use.iter().flat_map(|t| &t.channels).map(|c| &c.row);
    line_up_channels(dnfs_mb_s, channels, host)
}

/// The line-up of `dnfs_mb_s` moved over `channels` against `host`.
fn line_up_channels<'c>(
    dnfs_mb_s: Option<f64>,
    channels: impl Iterator<Item = &'c ChannelRow>,
    host: &HostFigures,
) -> PathLine {
    let mut ifaces: Vec<String> = Vec::new();
    let mut unmapped: Vec<String> = Vec::new();
    for c in channels {
        match c
            .local
            .as_deref()
            .and_then(|l| Some((l, iface_of(l, host.routes)?)))
        {
            Some((_, i)) => {
                if !ifaces.iter().any(|x| x == i) {
                    ifaces.push(i.to_string());
                }
            }
            None => {
                let l = c
                    .local
                    .clone()
                    .unwrap_or_else(|| format!("{} (no LOCAL)", c.path));
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
            .map(|i| {
                host.nic_mb_s
                    .iter()
                    .find(|(n, _)| n == i)
                    .and_then(|(_, v)| *v)
            })
            .sum::<Option<f64>>()
    };
    let (kernel_nfs_mb_s, block_mb_s) = (host.kernel_nfs_mb_s, host.block_mb_s);
    PathLine {
        flags: flags(dnfs_mb_s, dnfs_mb_s, wire_mb_s, kernel_nfs_mb_s),
        dnfs_mb_s,
        dnfs_ifaces: ifaces,
        unmapped,
        wire_mb_s,
        kernel_nfs_mb_s,
        block_mb_s,
    }
}

/// What does not add up between dNFS, the wire and the kernel client.
/// `on_wire` is the dNFS the wire's NICs carry: `dnfs_mb_s` itself, or
/// with instances sharing a node's NICs the sum of theirs.
fn flags(
    dnfs_mb_s: Option<f64>,
    on_wire: Option<f64>,
    wire_mb_s: Option<f64>,
    kernel: Option<f64>,
) -> Vec<PathFlag> {
    let mut flags = Vec::new();
    let Some(d) = dnfs_mb_s.filter(|d| *d >= BUSY_MB_S) else {
        return flags;
    };
    if let Some(k) = kernel.filter(|k| *k < d * BLIND_SHARE) {
        flags.push(PathFlag::HostBlind {
            dnfs_mb_s: d,
            kernel_nfs_mb_s: k,
        });
    }
    let d = on_wire.unwrap_or(d).max(d);
    if let Some(w) = wire_mb_s {
        let k = kernel.unwrap_or(0.0);
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
    flags
}

/// The names a database node goes by, for finding the node an instance's
/// HOST_NAME names.
#[derive(Debug, Clone, Default)]
pub struct NodeNames<'a> {
    /// What the panels call it (the config's label, else the host as
    /// written).
    pub label: &'a str,
    /// The host as the user wrote it (`--node`), `None` for the local host.
    pub host: Option<&'a str>,
    /// The name the node itself reports (/proc/sys/kernel/hostname), when
    /// known.
    pub hostname: Option<&'a str>,
}

/// The part before the first dot, unless the name is an address (whose
/// first number names nothing).
fn short_name(name: &str) -> &str {
    if name.parse::<std::net::IpAddr>().is_ok() {
        return name;
    }
    name.split('.').next().unwrap_or(name)
}

/// The node whose names include `host_name`, case-insensitively: a full
/// match first, else the short names (HOST_NAME is often `db01` where the
/// user wrote `db01.example.com`, or the reverse). The first node wins a
/// tie; `None` when no node matches.
pub fn node_of(host_name: &str, nodes: &[NodeNames]) -> Option<usize> {
    let host_name = host_name.trim();
    if host_name.is_empty() {
        return None;
    }
    let matching = |same: &dyn Fn(&str) -> bool| {
        nodes.iter().position(|n| {
            [Some(n.label), n.host, n.hostname]
                .into_iter()
                .flatten()
                .map(str::trim)
                .any(|name| !name.is_empty() && same(name))
        })
    };
    matching(&|name| name.eq_ignore_ascii_case(host_name)).or_else(|| {
        let short = short_name(host_name);
        matching(&|name| short_name(name).eq_ignore_ascii_case(short))
    })
}

/// A database as the per-instance path view reads it: its label, its
/// current figures and gv$instance as last read.
#[derive(Debug, Clone, Copy)]
pub struct DbFigures<'a> {
    pub label: &'a str,
    pub tick: &'a DnfsTick,
    pub instances: Option<&'a DnfsInstances>,
}

/// Where an instance runs, as far as strata can tell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum InstanceHost {
    /// On this node (its label).
    Node(String),
    /// gv$instance names a host that is none of the nodes.
    NotANode(String),
    /// gv$instance not read yet, or without this instance; the text says
    /// which (with the query's problem, if it had one).
    Unknown(String),
}

/// One instance's line-up against its own node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstanceLine {
    pub db: String,
    pub inst_id: u32,
    /// INSTANCE_NAME, when gv$instance gave it.
    pub name: Option<String>,
    pub host: InstanceHost,
    /// Only the dNFS figure unless the instance's node is known.
    pub line: PathLine,
}

impl InstanceLine {
    /// Why there is no line-up against a node, in the words the screen
    /// uses; `None` when the instance is on a node.
    pub fn unplaced(&self) -> Option<String> {
        let i = self.inst_id;
        match &self.host {
            InstanceHost::Node(_) => None,
            InstanceHost::NotANode(h) => {
                Some(format!("instance {i} on host {h}: not among the nodes"))
            }
            InstanceHost::Unknown(why) => Some(format!("instance {i}: host unknown, {why}")),
        }
    }
}

/// Each in-use database's instances, each lined up against its own node:
/// the instance's dNFS MB/s (over its processes) and its channels' NICs
/// by that node's routes, that node's kernel NFS client and block devices.
/// `nodes` are the nodes' names with their figures, in the same order.
pub fn line_up_instances(
    dbs: &[DbFigures],
    nodes: &[(NodeNames, HostFigures)],
) -> Vec<InstanceLine> {
    let names: Vec<NodeNames> = nodes.iter().map(|(n, _)| n.clone()).collect();
    let mut out = Vec::new();
    for db in dbs.iter().filter(|d| d.tick.in_use) {
        for inst in &db.tick.instances {
            let id = inst.inst_id;
            let row = db
                .instances
                .and_then(|x| x.rows.iter().find(|r| r.inst_id == id));
            let dnfs_mb_s = mb_s(inst.figures.as_ref());
            let alone = |host| {
                let line = PathLine {
                    dnfs_mb_s,
                    ..PathLine::default()
                };
                (host, line)
            };
            let (host, line) = match (row, db.instances) {
                (Some(r), _) => match node_of(&r.host_name, &names) {
                    Some(n) => {
                        let channels = db.tick.channels.iter().map(|c| &c.row);
                        let mine = channels.filter(|c| c.inst_id == id);
                        let line = line_up_channels(dnfs_mb_s, mine, &nodes[n].1);
                        (InstanceHost::Node(names[n].label.to_string()), line)
                    }
                    None => alone(InstanceHost::NotANode(r.host_name.clone())),
                },
                (None, None) => alone(InstanceHost::Unknown(format!(
                    "{INSTANCE_VIEW} not read yet"
                ))),
                // The query's problem is the reason only when it read no
                // row: a bad row of another instance is not this one's.
                (None, Some(x)) => alone(InstanceHost::Unknown(
                    match x.problems.first().filter(|_| x.rows.is_empty()) {
                        Some(p) => p.to_string(),
                        None => format!("not in {INSTANCE_VIEW}"),
                    },
                )),
            };
            out.push(InstanceLine {
                db: db.label.to_string(),
                inst_id: id,
                name: row.map(|r| r.name.clone()).filter(|n| !n.is_empty()),
                host,
                line,
            });
        }
    }
    share_the_wire(&mut out);
    out
}

/// Instances on one node whose channels use the same NICs share that
/// wire: each is held against the sum of their dNFS, else two databases
/// of 300 MB/s on one NIC of 600 would each be "traffic the database does
/// not account for".
fn share_the_wire(lines: &mut [InstanceLine]) {
    let placed: Vec<(Option<&str>, &[String], Option<f64>)> = lines
        .iter()
        .map(|l| match &l.host {
            InstanceHost::Node(n) => (Some(n.as_str()), &l.line.dnfs_ifaces[..], l.line.dnfs_mb_s),
            _ => (None, &[][..], None),
        })
        .collect();
    let shared: Vec<Option<f64>> = placed
        .iter()
        .map(|(node, ifaces, _)| {
            let node = (*node)?;
            placed
                .iter()
                .filter(|(n, i, _)| *n == Some(node) && i.iter().any(|x| ifaces.contains(x)))
                .map(|(_, _, d)| *d)
                .sum::<Option<f64>>()
        })
        .collect();
    for (l, on_wire) in lines.iter_mut().zip(shared) {
        if on_wire.is_some() && on_wire != l.line.dnfs_mb_s {
            let p = &l.line;
            l.line.flags = flags(p.dnfs_mb_s, on_wire, p.wire_mb_s, p.kernel_nfs_mb_s);
        }
    }
}

/// What the path view shows: one line-up for the host shown, or, with
/// database nodes, one per instance against its own node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum PathView {
    Host(PathLine),
    Instances(Vec<InstanceLine>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::dnfs::dnfs_sample::ChannelRow;
    use crate::layers::dnfs::model::{ChannelFigures, Figures};
    use crate::layers::nics::route::parse_route;

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

    fn host(
        routes: &[Route],
        nic_mb_s: Vec<(String, Option<f64>)>,
        kernel_nfs_mb_s: Option<f64>,
        block_mb_s: Option<f64>,
    ) -> HostFigures<'_> {
        HostFigures {
            routes,
            nic_mb_s,
            kernel_nfs_mb_s,
            block_mb_s,
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
        let p = line_up(
            &[&t],
            &host(&routes(), nics(250.0, 245.0), Some(0.3), Some(12.0)),
        );
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
        let p = line_up(
            &[&t],
            &host(&routes(), nics(250.0, 245.0), Some(100.0), None),
        );
        assert_eq!(p.unmapped, ["172.16.0.9"]);
        assert!(
            matches!(p.flags[..], [PathFlag::WireShort { .. }]),
            "{:?}",
            p.flags
        );
        // 100 MB/s of dNFS, 10 of kernel NFS, 900 on the wire > 1.5 × 110 + 1
        let t = db(100.0, 0.0, &[Some("192.168.10.1")]);
        let p = line_up(&[&t], &host(&routes(), nics(900.0, 0.0), Some(10.0), None));
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
            line_up(&[&t], &host(&routes(), nics(0.0, 0.0), Some(0.0), None))
                .flags
                .is_empty()
        );
        let mut t = db(400.0, 0.0, &[Some("192.168.10.1")]);
        t.in_use = false;
        let p = line_up(&[&t], &host(&routes(), nics(0.0, 0.0), Some(0.0), None));
        assert_eq!((p.dnfs_mb_s, p.flags.len()), (None, 0));
        // MB/s unknown (no byte columns): nothing to compare
        let mut t = db(400.0, 0.0, &[Some("192.168.10.1")]);
        t.total = t.total.map(|f| Figures {
            read_bytes_per_s: None,
            ..f
        });
        let p = line_up(&[&t], &host(&routes(), nics(0.0, 0.0), Some(0.0), None));
        assert_eq!((p.dnfs_mb_s, p.flags.len()), (None, 0));
    }

    fn names<'a>(
        label: &'a str,
        host: Option<&'a str>,
        hostname: Option<&'a str>,
    ) -> NodeNames<'a> {
        NodeNames {
            label,
            host,
            hostname,
        }
    }

    #[test]
    fn host_names_find_their_node_by_full_or_short_name_in_any_case() {
        let nodes = [
            names("db01", Some("db01.example.com"), None),
            names("rac-b", Some("10.0.0.12"), Some("DB02")),
            names("local", None, Some("db03.example.com")),
        ];
        // FQDN against the short name the user wrote, and the reverse
        assert_eq!(node_of("db01", &nodes), Some(0));
        assert_eq!(node_of("DB01.EXAMPLE.COM", &nodes), Some(0));
        assert_eq!(node_of("db01.other.net", &nodes), Some(0));
        // by the name the node reports, when the user wrote an address
        assert_eq!(node_of("db02.example.com", &nodes), Some(1));
        assert_eq!(node_of("db03", &nodes), Some(2));
        // unmapped: an address's first number names no host
        assert_eq!(node_of("dbx07", &nodes), None);
        assert_eq!(node_of("10", &nodes), None);
        assert_eq!(node_of("", &nodes), None);
        // a full match wins over an earlier node's short one
        let both = [
            names("a", Some("db01.site-a.com"), None),
            names("b", Some("db01.site-b.com"), None),
        ];
        assert_eq!(node_of("db01.site-b.com", &both), Some(1));
    }

    /// A two-instance database: instance `i` moves `mb[i]` MB/s of reads
    /// over a channel from `locals[i]`.
    fn rac(mb: [f64; 2], locals: [&str; 2]) -> DnfsTick {
        use crate::layers::dnfs::model::InstFigures;
        let mut t = db(mb[0] + mb[1], 0.0, &[Some(locals[0]), Some(locals[1])]);
        t.channels[1].row.inst_id = 2;
        t.instances = (0..2)
            .map(|i| InstFigures {
                inst_id: i as u32 + 1,
                processes: 1,
                figures: Some(Figures {
                    read_per_s: mb[i] * 128.0,
                    write_per_s: 0.0,
                    read_bytes_per_s: Some(mb[i] * MB),
                    write_bytes_per_s: Some(0.0),
                }),
            })
            .collect();
        t
    }

    fn instances(rows: &[(u32, &str, &str)]) -> DnfsInstances {
        DnfsInstances {
            wall_ms: 0,
            rows: rows
                .iter()
                .map(
                    |(id, name, host)| crate::layers::dnfs::dnfs_sample::InstanceRow {
                        inst_id: *id,
                        name: name.to_string(),
                        host_name: host.to_string(),
                    },
                )
                .collect(),
            problems: Vec::new(),
        }
    }

    #[test]
    fn each_instance_against_its_own_node() {
        // PROD1 on db01 (300 MB/s over ens3f0), PROD2 on db02 (200 MB/s
        // over ens3f1); db02's NFS client sees nothing, db01's wire is short
        let t = rac([300.0, 200.0], ["192.168.10.1", "192.168.11.2"]);
        let x = instances(&[(1, "PROD1", "db01"), (2, "PROD2", "DB02.example.com")]);
        let r = routes();
        let nodes = [
            (
                names("db01.example.com", Some("db01.example.com"), None),
                host(&r, nics(100.0, 900.0), Some(290.0), Some(5.0)),
            ),
            (
                names("db02", Some("db02"), None),
                host(&r, nics(900.0, 205.0), Some(0.1), Some(7.0)),
            ),
        ];
        let db = DbFigures {
            label: "PROD",
            tick: &t,
            instances: Some(&x),
        };
        let lines = line_up_instances(&[db], &nodes);
        assert_eq!(lines.len(), 2);
        let (a, b) = (&lines[0], &lines[1]);
        assert_eq!(a.host, InstanceHost::Node("db01.example.com".into()));
        assert_eq!(a.name.as_deref(), Some("PROD1"));
        // only its own channel's NIC, on its own node's figures
        assert_eq!(a.line.dnfs_mb_s, Some(300.0));
        assert_eq!(a.line.dnfs_ifaces, ["ens3f0"]);
        assert_eq!(a.line.wire_mb_s, Some(100.0));
        assert_eq!(a.line.kernel_nfs_mb_s, Some(290.0));
        assert_eq!(
            a.line.flags,
            [PathFlag::WireShort {
                dnfs_mb_s: 300.0,
                wire_mb_s: 100.0
            }]
        );
        assert_eq!(b.host, InstanceHost::Node("db02".into()));
        assert_eq!(b.line.dnfs_ifaces, ["ens3f1"]);
        assert_eq!(
            (b.line.wire_mb_s, b.line.block_mb_s),
            (Some(205.0), Some(7.0))
        );
        assert_eq!(
            b.line.flags,
            [PathFlag::HostBlind {
                dnfs_mb_s: 200.0,
                kernel_nfs_mb_s: 0.1
            }]
        );
        assert_eq!(a.unplaced(), None);
    }

    #[test]
    fn instances_sharing_a_nic_are_held_against_their_sum() {
        // Two instances of 300 MB/s each over the same NIC of db01.
        let t = rac([300.0, 300.0], ["192.168.10.1", "192.168.10.1"]);
        let r = routes();
        let x = instances(&[(1, "PROD1", "db01"), (2, "PROD2", "db01")]);
        let wire = |a: f64| {
            let nodes = [(
                names("db01", Some("db01"), None),
                host(&r, nics(a, 0.0), Some(0.0), None),
            )];
            let db = DbFigures {
                label: "PROD",
                tick: &t,
                instances: Some(&x),
            };
            line_up_instances(&[db], &nodes)
        };
        let on_wire = |lines: &[InstanceLine]| -> Vec<Vec<&'static str>> {
            lines
                .iter()
                .map(|l| {
                    l.line
                        .flags
                        .iter()
                        .filter_map(|f| match f {
                            PathFlag::WireShort { .. } => Some("short"),
                            PathFlag::WireExtra { .. } => Some("extra"),
                            PathFlag::HostBlind { .. } => None,
                        })
                        .collect()
                })
                .collect()
        };
        // 600 on the wire is the two of them: nothing extra.
        let lines = wire(600.0);
        assert_eq!(lines[0].line.dnfs_mb_s, Some(300.0));
        assert_eq!(lines[0].line.wire_mb_s, Some(600.0));
        assert_eq!(on_wire(&lines), [Vec::<&str>::new(), Vec::new()]);
        // 400 is short of their 600, though not of either's 300.
        let lines = wire(400.0);
        assert_eq!(on_wire(&lines), [vec!["short"], vec!["short"]]);
        // 2000 is more than both account for.
        let lines = wire(2000.0);
        assert_eq!(on_wire(&lines), [vec!["extra"], vec!["extra"]]);
    }

    #[test]
    fn two_instances_on_one_node_and_one_on_no_node() {
        let t = rac([300.0, 200.0], ["192.168.10.1", "192.168.11.2"]);
        let r = routes();
        let nodes = [(
            names("db01", Some("db01"), None),
            host(&r, nics(310.0, 205.0), Some(0.0), None),
        )];
        // both on db01: each lined up against db01, each its own NIC
        let x = instances(&[(1, "PROD1", "db01"), (2, "PROD2", "db01.example.com")]);
        let db = DbFigures {
            label: "PROD",
            tick: &t,
            instances: Some(&x),
        };
        let lines = line_up_instances(&[db], &nodes);
        assert_eq!(
            lines.iter().map(|l| l.host.clone()).collect::<Vec<_>>(),
            [
                InstanceHost::Node("db01".into()),
                InstanceHost::Node("db01".into())
            ]
        );
        assert_eq!(lines[0].line.wire_mb_s, Some(310.0));
        assert_eq!(lines[1].line.wire_mb_s, Some(205.0));
        // instance 2 on a host that is no node: its dNFS figure alone
        let x = instances(&[(1, "PROD1", "db01"), (2, "PROD2", "dbx07")]);
        let db = DbFigures {
            instances: Some(&x),
            ..db
        };
        let lines = line_up_instances(&[db], &nodes);
        let b = &lines[1];
        assert_eq!(b.host, InstanceHost::NotANode("dbx07".into()));
        assert_eq!(
            b.unplaced().as_deref(),
            Some("instance 2 on host dbx07: not among the nodes")
        );
        assert_eq!((b.line.dnfs_mb_s, b.line.wire_mb_s), (Some(200.0), None));
        assert!(b.line.flags.is_empty());
        // gv$instance not read yet
        let db = DbFigures {
            instances: None,
            ..db
        };
        let lines = line_up_instances(&[db], &nodes);
        assert_eq!(
            lines[0].unplaced().as_deref(),
            Some("instance 1: host unknown, gv$instance not read yet")
        );
    }
}

//! The host's network interfaces: /proc/net/dev read together with
//! /proc/uptime, each interface's link as /sys/class/net tells it, and the
//! bonds of /proc/net/bonding.
//!
//! What is read when:
//! - every sample: /proc/uptime, /proc/net/dev, every /proc/net/bonding
//!   file (failure counts and the active slave change at any time), and
//!   per interface `carrier_changes`. A host without bonds (mostly without
//!   the directory: the bonding driver makes it) lists it again only with
//!   the catalogue: a new bond is a new interface, which reads the
//!   catalogue at once;
//! - `operstate` when carrier_changes moved or is missing, and every
//!   [`OPERSTATE_EVERY`] samples (a link that goes down or up moves the
//!   carrier; an administrative down need not). One read less per
//!   interface halves the cost of a sample: 64 interfaces took 0.78 ms in
//!   the release benchmark with both read every sample;
//! - `speed` and `duplex` only when the interface is new, its operstate or
//!   carrier_changes moved since the last sample (a flap, after which the
//!   link may have renegotiated), the kernel has no carrier_changes (before
//!   3.15: then every sample), or with the catalogue. Reading them takes
//!   the RTNL lock and asks the driver (mlx5 asks the firmware); operstate
//!   and carrier_changes are plain reads. Measured on the development VM
//!   (debug build, a read ~11-13 µs): a sample of its 4 interfaces takes
//!   0.28 ms; of 201 (veths in a namespace) 8.3-9.3 ms, to which reading
//!   speed and duplex every sample would add 5.2-5.5 ms and 400 RTNL
//!   locks;
//! - the catalogue (kind, type, MTU, driver, master): when an interface
//!   comes or goes, when an interface's counters went back (it was
//!   re-created under the same name), and every [`REREAD_EVERY`] samples
//!   (an MTU change, a slave enslaved): 0.54 ms for 4 interfaces, 34-36 ms
//!   for 201.
//!
//! Kinds come from sysfs alone, so that `--root` trees work: a veth is told
//! by its peer's index (`iflink`), and a veth whose peer sits in another
//! namespace under the same index as its own reads as "virtual" (netlink's
//! IFLA_INFO_KIND would tell; sysfs does not).

use super::bonding::{BondInfo, parse_bonding};
use super::net_sysfs::{
    Duplex, OperState, parse_duplex, parse_operstate, parse_speed_mbps, uevent_value,
};
use super::netdev::{NetDevCounters, parse_net_dev};
use crate::core::error::ParseError;
use crate::core::error::SourceError;
use crate::core::rootfs::RootFs;
use crate::core::uptime::parse_uptime_cs;
use crate::layers::nics::route::{Route, parse_route};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// What an interface is, as far as /sys tells.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum NicKind {
    Loopback,
    Bond,
    Bridge,
    Vlan,
    /// A veth end: virtual, with a peer (its iflink) and no lower device.
    Veth,
    /// Backed by a device (PCI, virtio, ...): /sys/class/net/IF/device.
    Physical,
    /// Any other interface without a device: tun/tap, dummy, macvlan,
    /// tunnels, ifb.
    Virtual,
    /// /sys could not be read.
    Unknown,
}

impl NicKind {
    pub fn label(self) -> &'static str {
        match self {
            NicKind::Loopback => "loopback",
            NicKind::Bond => "bond",
            NicKind::Bridge => "bridge",
            NicKind::Vlan => "vlan",
            NicKind::Veth => "veth",
            NicKind::Physical => "physical",
            NicKind::Virtual => "virtual",
            NicKind::Unknown => "?",
        }
    }

    /// Whether the speed sysfs reports is that of a wire: a device's link,
    /// a bond's (the sum of its slaves') or a VLAN's (its device's). A veth
    /// claims 10000 Mbit/s whatever its peer can take, so a %Util over it
    /// would be invented.
    pub fn has_wire_speed(self) -> bool {
        matches!(
            self,
            NicKind::Physical | NicKind::Bond | NicKind::Vlan | NicKind::Unknown
        )
    }
}

/// What /sys says about one interface; read again as the module doc says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NicInfo {
    pub name: String,
    pub kind: NicKind,
    /// ARPHRD_* (1 Ethernet, 772 loopback, 32 InfiniBand).
    pub if_type: Option<u32>,
    pub mtu: Option<u32>,
    pub ifindex: Option<u32>,
    /// The driver of the backing device (`device/driver`).
    pub driver: Option<String>,
    /// The bond or bridge this interface is enslaved to (`master`).
    pub master: Option<String>,
    pub address: Option<String>,
}

/// Shared by every sample and row until the catalogue is read again.
pub type NicCatalogue = BTreeMap<String, Arc<NicInfo>>;

/// The link as it was at one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct LinkState {
    /// Mbit/s; `None` when unknown (link down, -1, EINVAL, no such file).
    pub speed_mbps: Option<u32>,
    pub duplex: Duplex,
    pub operstate: OperState,
    /// Carrier ups and downs since the interface was created (3.15+).
    pub carrier_changes: Option<u64>,
}

/// One interface's counters and link at one sample.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct NicReading {
    pub counters: NetDevCounters,
    pub link: LinkState,
}

/// One reading of every interface and bond, and the clock it goes with.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct NicSample {
    /// /proc/uptime in centiseconds, read with the counters.
    pub uptime_cs: u64,
    /// Wall clock of the reading, milliseconds since the Unix epoch.
    pub wall_ms: i64,
    /// In /proc/net/dev order.
    pub nics: Vec<NicReading>,
    /// Every bond of /proc/net/bonding, by name.
    pub bonds: Vec<BondInfo>,
    /// The IPv4 routes of /proc/net/route: which interface holds a local
    /// address (a dNFS channel's LOCAL). Recordings made before have none.
    #[serde(default)]
    pub routes: Vec<Route>,
    /// Lines of /proc/net/dev, /proc/net/route and the bonding files that
    /// could not be read.
    pub rejected: Vec<ParseError>,
    pub catalogue: Arc<NicCatalogue>,
}

/// The catalogue is read again after this many samples at the latest.
pub const REREAD_EVERY: u32 = 60;

/// operstate is read every this many samples even when carrier_changes
/// stood still: an administrative down or up need not touch the carrier.
pub const OPERSTATE_EVERY: u32 = 5;

/// Reads the host's interfaces under a root directory.
pub struct NicSource {
    fs: RootFs,
    catalogue: Arc<NicCatalogue>,
    known: BTreeSet<String>,
    /// Samples since the catalogue was read.
    since_read: u32,
    /// The transport's facts generation the catalogue was read at.
    facts: u64,
    /// Each interface's last link state and its rx+tx packets.
    last: HashMap<String, (LinkState, u64)>,
    /// Whether /proc/net/bonding listed a bond the last time it was
    /// listed: without one it is listed only with the catalogue.
    bonding: bool,
}

impl NicSource {
    pub fn new(fs: RootFs) -> Self {
        NicSource {
            fs,
            catalogue: Arc::new(NicCatalogue::new()),
            known: BTreeSet::new(),
            since_read: 0,
            facts: 0,
            last: HashMap::new(),
            bonding: true,
        }
    }

    pub fn sample(&mut self, wall_ms: i64) -> Result<NicSample, SourceError> {
        // The clock first and the counters straight after, as for disks.
        let uptime_text = self.fs.read("/proc/uptime")?;
        let dev_text = self.fs.read("/proc/net/dev")?;
        let uptime_cs = parse_uptime_cs(&uptime_text, "/proc/uptime")?;
        let parsed = parse_net_dev(&dev_text, "/proc/net/dev");
        let mut rejected = parsed.rejected;

        let names: BTreeSet<String> = parsed.items.iter().map(|c| c.name.clone()).collect();
        let recreated = parsed.items.iter().any(|c| {
            self.last
                .get(&c.name)
                .is_some_and(|(_, pkts)| c.rx_packets.wrapping_add(c.tx_packets) < *pkts)
        });
        self.since_read = self.since_read.saturating_add(1);
        let facts = self.fs.facts_generation();
        let reread = names != self.known
            || recreated
            || self.since_read >= REREAD_EVERY
            || facts != self.facts;
        if reread {
            // A kept carrier_changes follows its interface, not its name.
            self.fs.forget_kept();
            self.facts = facts;
            self.catalogue = Arc::new(read_catalogue(&self.fs, &names));
            self.known = names;
            self.since_read = 0;
        }

        let operstate_due = self.since_read.is_multiple_of(OPERSTATE_EVERY);
        let mut nics = Vec::with_capacity(parsed.items.len());
        let mut last = HashMap::with_capacity(parsed.items.len());
        for counters in parsed.items {
            let prev = self.last.get(&counters.name).map(|(l, _)| *l);
            let link = read_link_state(&self.fs, &counters.name, prev, reread, operstate_due);
            let pkts = counters.rx_packets.wrapping_add(counters.tx_packets);
            last.insert(counters.name.clone(), (link, pkts));
            nics.push(NicReading { counters, link });
        }
        self.last = last;

        let mut bonds = Vec::new();
        let listed = if reread || self.bonding {
            self.fs.list("/proc/net/bonding")
        } else {
            Vec::new()
        };
        self.bonding = !listed.is_empty();
        for name in listed {
            let path = format!("/proc/net/bonding/{name}");
            // a bond deleted between the listing and the read is gone, not an error
            let Ok(text) = self.fs.read(&path) else {
                continue;
            };
            let (bond, bad) = parse_bonding(&text, &name, &path);
            rejected.extend(bad);
            bonds.push(bond);
        }

        // Only the path view needs routes: a host without /proc/net/route
        // (a namespace without IPv4) still has its NICs.
        let routes = match self.fs.read("/proc/net/route") {
            Ok(text) => {
                let parsed = parse_route(&text);
                rejected.extend(parsed.rejected);
                parsed.items
            }
            Err(_) => Vec::new(),
        };

        Ok(NicSample {
            uptime_cs,
            wall_ms,
            nics,
            bonds,
            routes,
            rejected,
            catalogue: Arc::clone(&self.catalogue),
        })
    }
}

/// sysfs spells nothing differently for interfaces (names cannot hold a
/// '/'), so the name is the directory.
fn base(name: &str) -> String {
    format!("/sys/class/net/{name}")
}

/// The link state now: carrier_changes always, operstate when it may have
/// moved or is due, speed and duplex only when `prev` cannot stand for
/// them (see the module doc).
fn read_link_state(
    fs: &RootFs,
    name: &str,
    prev: Option<LinkState>,
    force: bool,
    operstate_due: bool,
) -> LinkState {
    let base = base(name);
    // Read at every sample: kept open (the catalogue's reread lets go).
    let carrier_changes = fs
        .kept_attr(&format!("{base}/carrier_changes"))
        .and_then(|s| s.parse().ok());
    let operstate = match prev {
        Some(p)
            if !force
                && !operstate_due
                && carrier_changes.is_some()
                && p.carrier_changes == carrier_changes =>
        {
            p.operstate
        }
        _ => fs
            .attr(&format!("{base}/operstate"))
            .map_or(OperState::Unknown, |s| parse_operstate(&s)),
    };
    match prev {
        Some(p)
            if !force
                && carrier_changes.is_some()
                && p.carrier_changes == carrier_changes
                && p.operstate == operstate =>
        {
            LinkState {
                operstate,
                carrier_changes,
                ..p
            }
        }
        _ => LinkState {
            speed_mbps: fs
                .attr(&format!("{base}/speed"))
                .and_then(|s| parse_speed_mbps(&s)),
            duplex: fs
                .attr(&format!("{base}/duplex"))
                .map_or(Duplex::Unknown, |s| parse_duplex(&s)),
            operstate,
            carrier_changes,
        },
    }
}

/// Reads /sys/class/net (and /proc/net/vlan) for the named interfaces.
pub fn read_catalogue(fs: &RootFs, names: &BTreeSet<String>) -> NicCatalogue {
    let sys_ok = fs.exists("/sys/class/net");
    names
        .iter()
        .map(|name| {
            let base = base(name);
            let num = |attr: &str| {
                fs.attr(&format!("{base}/{attr}"))
                    .and_then(|s| s.parse::<u32>().ok())
            };
            let if_type = num("type");
            let ifindex = num("ifindex");
            let driver = fs.link_name(&format!("{base}/device/driver"));
            let kind = if !sys_ok || !fs.exists(&base) {
                if name == "lo" {
                    NicKind::Loopback
                } else {
                    NicKind::Unknown
                }
            } else {
                kind_from_sys(fs, name, if_type, ifindex, driver.as_deref())
            };
            let info = NicInfo {
                name: name.clone(),
                kind,
                if_type,
                mtu: num("mtu"),
                ifindex,
                master: fs.link_name(&format!("{base}/master")),
                address: fs
                    .attr(&format!("{base}/address"))
                    .filter(|s| !s.is_empty()),
                driver,
            };
            (name.clone(), Arc::new(info))
        })
        .collect()
}

/// ARPHRD_LOOPBACK.
const TYPE_LOOPBACK: u32 = 772;
/// ARPHRD_ETHER.
const TYPE_ETHER: u32 = 1;

fn kind_from_sys(
    fs: &RootFs,
    name: &str,
    if_type: Option<u32>,
    ifindex: Option<u32>,
    driver: Option<&str>,
) -> NicKind {
    let base = base(name);
    let devtype = fs
        .read_once(&format!("{base}/uevent"))
        .ok()
        .and_then(|u| uevent_value(&u, "DEVTYPE").map(str::to_string));
    if if_type == Some(TYPE_LOOPBACK) || name == "lo" {
        return NicKind::Loopback;
    }
    if fs.exists(&format!("{base}/bonding")) || devtype.as_deref() == Some("bond") {
        return NicKind::Bond;
    }
    if fs.exists(&format!("{base}/bridge")) || devtype.as_deref() == Some("bridge") {
        return NicKind::Bridge;
    }
    if fs.exists(&format!("/proc/net/vlan/{name}")) || devtype.as_deref() == Some("vlan") {
        return NicKind::Vlan;
    }
    if driver == Some("veth") || devtype.as_deref() == Some("veth") {
        return NicKind::Veth;
    }
    if fs.exists(&format!("{base}/device")) {
        return NicKind::Physical;
    }
    // veth's uevent names no DEVTYPE: an Ethernet interface whose iflink is
    // another interface (its peer) and that sits on no lower device
    // (macvlan, ipvlan and VLANs do) is a veth end. Tunnels' iflink is 0.
    let iflink = fs
        .attr(&format!("{base}/iflink"))
        .and_then(|s| s.parse::<u32>().ok());
    let has_lower = fs.list(&base).iter().any(|e| e.starts_with("lower_"));
    if if_type == Some(TYPE_ETHER)
        && iflink.is_some_and(|l| l != 0 && Some(l) != ifindex)
        && !has_lower
    {
        return NicKind::Veth;
    }
    NicKind::Virtual
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).expect("mkdir");
        }
        std::fs::write(p, text).expect("write");
    }

    fn mkdir(root: &Path, rel: &str) {
        std::fs::create_dir_all(root.join(rel)).expect("mkdir");
    }

    const HEADER: &str = "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n";

    fn dev_line(name: &str, rx_packets: u64) -> String {
        format!("{name:>6}: 1000 {rx_packets} 0 0 0 0 0 0 2000 20 0 0 0 0 0 0\n")
    }

    fn iface(root: &Path, name: &str, kv: &[(&str, &str)]) {
        for (k, v) in kv {
            write(
                root,
                &format!("sys/class/net/{name}/{k}"),
                &format!("{v}\n"),
            );
        }
    }

    /// The interfaces of [`host`], in /proc/net/dev order.
    const NAMES: [&str; 8] = [
        "lo",
        "eth0",
        "eth1",
        "bond0",
        "bond0.100",
        "br0",
        "veth1a2b",
        "tun0",
    ];

    /// A host with one of each kind, laid out as 6.18 lays /sys out.
    fn host() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        let r = dir.path();
        write(r, "proc/uptime", "100.00 0.00\n");
        let text: String = NAMES.iter().map(|n| dev_line(n, 10)).collect();
        write(r, "proc/net/dev", &format!("{HEADER}{text}"));
        iface(
            r,
            "lo",
            &[("type", "772"), ("ifindex", "1"), ("iflink", "1")],
        );
        for (n, i) in [("eth0", "2"), ("eth1", "3")] {
            iface(
                r,
                n,
                &[
                    ("type", "1"),
                    ("ifindex", i),
                    ("iflink", i),
                    ("speed", "25000"),
                    ("duplex", "full"),
                    ("operstate", "up"),
                    ("carrier_changes", "2"),
                    ("mtu", "9000"),
                ],
            );
            mkdir(r, &format!("sys/class/net/{n}/device"));
        }
        iface(
            r,
            "bond0",
            &[("type", "1"), ("speed", "50000"), ("duplex", "full")],
        );
        mkdir(r, "sys/class/net/bond0/bonding");
        iface(
            r,
            "bond0.100",
            &[
                ("type", "1"),
                ("uevent", "DEVTYPE=vlan\nINTERFACE=bond0.100"),
            ],
        );
        mkdir(r, "sys/class/net/bond0.100/lower_bond0");
        iface(r, "br0", &[("type", "1"), ("uevent", "DEVTYPE=bridge")]);
        mkdir(r, "sys/class/net/br0/bridge");
        iface(
            r,
            "veth1a2b",
            &[
                ("type", "1"),
                ("ifindex", "7"),
                ("iflink", "6"),
                ("speed", "10000"),
            ],
        );
        iface(
            r,
            "tun0",
            &[("type", "65534"), ("ifindex", "8"), ("iflink", "8")],
        );
        write(
            r,
            "proc/net/bonding/bond0",
            "Bonding Mode: fault-tolerance (active-backup)\nPrimary Slave: eth0 (primary_reselect always)\nCurrently Active Slave: eth1\nMII Status: up\n\nSlave Interface: eth0\nMII Status: down\nLink Failure Count: 1\n\nSlave Interface: eth1\nMII Status: up\nLink Failure Count: 0\n",
        );
        dir
    }

    #[test]
    fn kinds_links_and_bonds() {
        let dir = host();
        let mut src = NicSource::new(RootFs::new(dir.path()));
        let s = src.sample(0).expect("sample");
        let kind = |n: &str| s.catalogue[n].kind;
        assert_eq!(kind("lo"), NicKind::Loopback);
        assert_eq!(kind("eth0"), NicKind::Physical);
        assert_eq!(kind("bond0"), NicKind::Bond);
        assert_eq!(kind("bond0.100"), NicKind::Vlan);
        assert_eq!(kind("br0"), NicKind::Bridge);
        assert_eq!(kind("veth1a2b"), NicKind::Veth);
        assert_eq!(kind("tun0"), NicKind::Virtual);
        assert_eq!(s.catalogue["eth0"].mtu, Some(9000));
        let eth0 = &s.nics[1];
        assert_eq!(eth0.counters.name, "eth0");
        assert_eq!(
            eth0.link,
            LinkState {
                speed_mbps: Some(25000),
                duplex: Duplex::Full,
                operstate: OperState::Up,
                carrier_changes: Some(2)
            }
        );
        assert_eq!(s.nics[0].link.speed_mbps, None, "lo has no speed file here");
        assert_eq!(s.bonds.len(), 1);
        assert_eq!(s.bonds[0].active_slave.as_deref(), Some("eth1"));
        assert!(s.rejected.is_empty(), "{:?}", s.rejected);
    }

    /// [`host`], and a source that has read it once.
    fn sampled_host() -> (tempfile::TempDir, NicSource) {
        let dir = host();
        let mut src = NicSource::new(RootFs::new(dir.path()));
        src.sample(0).expect("sample");
        (dir, src)
    }

    #[test]
    fn speed_is_read_again_after_a_flap_only() {
        let (dir, mut src) = sampled_host();
        let r = dir.path();
        // the speed file changes without a flap: the old speed stands
        iface(r, "eth0", &[("speed", "10000")]);
        let s = src.sample(0).expect("sample");
        assert_eq!(s.nics[1].link.speed_mbps, Some(25000));
        // down and up between two samples: carrier_changes moved by 2
        iface(r, "eth0", &[("carrier_changes", "4")]);
        let s = src.sample(0).expect("sample");
        assert_eq!(s.nics[1].link.speed_mbps, Some(10000));
        // a kernel without carrier_changes: read every sample
        std::fs::remove_file(r.join("sys/class/net/eth1/carrier_changes")).expect("rm");
        src.sample(0).expect("sample");
        iface(r, "eth1", &[("speed", "-1"), ("duplex", "unknown")]);
        let s = src.sample(0).expect("sample");
        assert_eq!(s.nics[2].link.speed_mbps, None);
        assert_eq!(s.nics[2].link.duplex, Duplex::Unknown);
    }

    #[test]
    fn operstate_follows_the_carrier_at_once_and_an_admin_change_within_its_period() {
        let dir = host();
        let r = dir.path();
        let mut src = NicSource::new(RootFs::new(r));
        let state = |src: &mut NicSource| src.sample(0).expect("sample").nics[1].link.operstate;
        assert_eq!(state(&mut src), OperState::Up);
        // carrier lost: carrier_changes moves and operstate is read at once
        iface(
            r,
            "eth0",
            &[("operstate", "down"), ("carrier_changes", "3")],
        );
        assert_eq!(state(&mut src), OperState::Down);
        // `ip link set up` on a driver that keeps the carrier: no change
        // to carrier_changes, seen within OPERSTATE_EVERY samples
        iface(r, "eth0", &[("operstate", "up")]);
        let seen = (1..=OPERSTATE_EVERY).position(|_| state(&mut src) == OperState::Up);
        assert!(seen.is_some(), "operstate never read again");
        // and not read on every sample in between
        iface(r, "eth0", &[("operstate", "dormant")]);
        assert_eq!(state(&mut src), OperState::Up, "read every sample");
    }

    /// Without bonds /proc/net/bonding is listed only with the catalogue
    /// (its absence was a failed open every second); a new bond is a new
    /// interface, whose catalogue finds it at once.
    #[test]
    fn bonds_are_looked_for_with_the_catalogue_when_there_were_none() {
        let dir = host();
        let r = dir.path();
        std::fs::remove_dir_all(r.join("proc/net/bonding")).expect("rm");
        let mut src = NicSource::new(RootFs::new(r));
        assert!(src.sample(0).expect("sample").bonds.is_empty());
        // bond0's file back without a new interface: not looked for yet
        write(
            r,
            "proc/net/bonding/bond0",
            "Bonding Mode: fault-tolerance (active-backup)\nMII Status: up\n",
        );
        assert!(src.sample(0).expect("sample").bonds.is_empty());
        // a new bond: its interface reads the catalogue, and the bonds
        let names = ["lo", "eth0", "eth1", "bond0", "bond1"];
        let text: String = names.iter().map(|n| dev_line(n, 10)).collect();
        write(r, "proc/net/dev", &format!("{HEADER}{text}"));
        write(
            r,
            "proc/net/bonding/bond1",
            "Bonding Mode: fault-tolerance (active-backup)\nMII Status: up\n",
        );
        let bonds = |src: &mut NicSource| src.sample(0).expect("sample").bonds.len();
        assert_eq!(bonds(&mut src), 2);
        // and from then on every sample
        std::fs::remove_file(r.join("proc/net/bonding/bond1")).expect("rm");
        assert_eq!(bonds(&mut src), 1);
    }

    #[test]
    fn a_recreated_interface_is_catalogued_again() {
        let (dir, mut src) = sampled_host();
        let r = dir.path();
        // veth1a2b deleted and a bridge made under the same name, within
        // one interval: the name set is the same but the counters fell
        std::fs::remove_dir_all(r.join("sys/class/net/veth1a2b")).expect("rm");
        mkdir(r, "sys/class/net/veth1a2b/bridge");
        let text: String = NAMES
            .iter()
            .map(|n| dev_line(n, if *n == "veth1a2b" { 0 } else { 10 }))
            .collect();
        write(r, "proc/net/dev", &format!("{HEADER}{text}"));
        let s = src.sample(0).expect("sample");
        assert_eq!(s.catalogue["veth1a2b"].kind, NicKind::Bridge);
    }

    #[test]
    fn without_sys_only_lo_is_known_and_errors_name_the_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let r = dir.path();
        write(r, "proc/uptime", "100.00 0.00\n");
        write(
            r,
            "proc/net/dev",
            &format!("{HEADER}{}{}", dev_line("lo", 1), dev_line("eth0", 1)),
        );
        let mut src = NicSource::new(RootFs::new(r));
        let s = src.sample(0).expect("sample");
        assert_eq!(s.catalogue["lo"].kind, NicKind::Loopback);
        assert_eq!(s.catalogue["eth0"].kind, NicKind::Unknown);
        std::fs::remove_file(r.join("proc/net/dev")).expect("rm");
        let e = src.sample(0).expect_err("no /proc/net/dev").to_string();
        assert!(e.contains("proc/net/dev"), "{e}");
    }
}

//! `/proc/net/bonding/BOND`: a bond's mode, its active slave and each
//! slave's link (drivers/net/bonding/bond_procfs.c).
//!
//! The file is `key: value` lines; each `Slave Interface:` line starts a
//! new slave. Which keys appear depends on the driver version (v2.6 and
//! v3.4 slaves have no Speed or Duplex), the mode (Primary Slave only in
//! active-backup, tlb and alb; Transmit Hash Policy only in xor and
//! 802.3ad; Aggregator ID only in 802.3ad) and the reader's privileges (the
//! LACP details), so a missing key is normal and leaves its field `None`.
//! Indented lines are details of the block above (the active aggregator,
//! LACP PDUs); of these only the active aggregator's ID is read. A known
//! key whose value cannot be read is rejected by line; the rest is kept.

use super::net_sysfs::{Duplex, parse_duplex};
use crate::core::error::ParseError;
use serde::{Deserialize, Serialize};

/// The bonding mode, from the name `bond_mode_name()` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BondMode {
    /// 0, balance-rr.
    RoundRobin,
    /// 1, active-backup.
    ActiveBackup,
    /// 2, balance-xor.
    Xor,
    /// 3, broadcast.
    Broadcast,
    /// 4, 802.3ad (LACP).
    Lacp,
    /// 5, balance-tlb.
    Tlb,
    /// 6, balance-alb.
    Alb,
    Unknown,
}

impl BondMode {
    fn from_name(name: &str) -> BondMode {
        match name {
            "load balancing (round-robin)" => BondMode::RoundRobin,
            "fault-tolerance (active-backup)" => BondMode::ActiveBackup,
            "load balancing (xor)" => BondMode::Xor,
            "fault-tolerance (broadcast)" => BondMode::Broadcast,
            "IEEE 802.3ad Dynamic link aggregation" => BondMode::Lacp,
            "transmit load balancing" | "adaptive transmit load balancing" => BondMode::Tlb,
            "adaptive load balancing" => BondMode::Alb,
            _ => BondMode::Unknown,
        }
    }

    /// The name `ip link` and the `mode=` option use.
    pub fn label(self) -> &'static str {
        match self {
            BondMode::RoundRobin => "balance-rr",
            BondMode::ActiveBackup => "active-backup",
            BondMode::Xor => "balance-xor",
            BondMode::Broadcast => "broadcast",
            BondMode::Lacp => "802.3ad",
            BondMode::Tlb => "balance-tlb",
            BondMode::Alb => "balance-alb",
            BondMode::Unknown => "?",
        }
    }
}

/// A link's MII status as `bond_slave_link_status()` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MiiStatus {
    Up,
    /// Down, waiting out downdelay.
    GoingDown,
    Down,
    /// Up again, waiting out updelay.
    GoingBack,
    Unknown,
}

impl MiiStatus {
    pub fn label(self) -> &'static str {
        match self {
            MiiStatus::Up => "up",
            MiiStatus::GoingDown => "going down",
            MiiStatus::Down => "down",
            MiiStatus::GoingBack => "going back",
            MiiStatus::Unknown => "unknown",
        }
    }

    fn parse(v: &str) -> MiiStatus {
        match v {
            "up" => MiiStatus::Up,
            "going down" => MiiStatus::GoingDown,
            "down" => MiiStatus::Down,
            "going back" => MiiStatus::GoingBack,
            _ => MiiStatus::Unknown,
        }
    }
}

/// One slave section.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BondSlave {
    pub name: String,
    pub mii_status: Option<MiiStatus>,
    /// `None` for "Unknown" and before driver v3.6, which did not print it.
    pub speed_mbps: Option<u32>,
    pub duplex: Option<Duplex>,
    pub link_failure_count: Option<u64>,
    pub perm_hw_addr: Option<String>,
    pub queue_id: Option<u32>,
    /// 802.3ad only; `None` also for "N/A" (the slave is in no aggregator).
    pub aggregator_id: Option<u32>,
}

/// What the file says about the bond itself, and its slaves in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BondInfo {
    /// The bond's interface name: the file's name.
    pub name: String,
    /// "v3.7.1" or, on recent kernels, the kernel release "v6.6.0".
    pub driver_version: Option<String>,
    pub mode: Option<BondMode>,
    /// The mode line as printed, without the fail_over_mac suffix.
    pub mode_text: Option<String>,
    pub fail_over_mac: Option<String>,
    pub xmit_hash_policy: Option<String>,
    /// The configured primary; `None` when the file says "None" or has no
    /// such line (modes that use no primary).
    pub primary: Option<String>,
    pub primary_reselect: Option<String>,
    pub active_slave: Option<String>,
    pub mii_status: Option<MiiStatus>,
    pub mii_polling_ms: Option<u32>,
    pub up_delay_ms: Option<u32>,
    pub down_delay_ms: Option<u32>,
    pub arp_polling_ms: Option<u32>,
    pub lacp_rate: Option<String>,
    /// 802.3ad: the aggregator that carries the traffic.
    pub active_aggregator_id: Option<u32>,
    pub slaves: Vec<BondSlave>,
}

/// `value (key word)` → (value, word) for the suffixes the driver appends.
fn split_suffix<'a>(v: &'a str, key: &str) -> (&'a str, Option<&'a str>) {
    let open = format!(" ({key} ");
    match v.rfind(&open) {
        Some(at) if v.ends_with(')') => (&v[..at], Some(&v[at + open.len()..v.len() - 1])),
        _ => (v, None),
    }
}

fn none_word(v: &str) -> Option<String> {
    (!v.is_empty() && v != "None").then(|| v.to_string())
}

/// Parses one bonding file; `name` is the bond's (the file's) name.
/// Returns what could be read and the lines that could not.
pub fn parse_bonding(text: &str, name: &str, source_name: &str) -> (BondInfo, Vec<ParseError>) {
    let mut bond = BondInfo {
        name: name.to_string(),
        ..Default::default()
    };
    let mut rejected = Vec::new();
    let mut slave: Option<BondSlave> = None;
    let mut in_active_aggregator = false;
    for (i, line) in text.lines().enumerate() {
        // "802.3ad info", "bond bond0 has no active aggregator": headings
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let indented = line.starts_with([' ', '\t']);
        let (key, v) = (key.trim(), value.trim());
        let mut bad = |expected: &str| {
            rejected.push(ParseError::new(source_name, i + 1, line, expected));
        };
        let mut number = |v: &str| -> Option<u32> {
            let n = v.parse().ok();
            if n.is_none() {
                bad("an unsigned number after the ':'");
            }
            n
        };
        if key == "Slave Interface" && !indented {
            bond.slaves.extend(slave.take());
            if v.is_empty() || v.contains(char::is_whitespace) {
                bad("an interface name after \"Slave Interface:\"");
            } else {
                slave = Some(BondSlave {
                    name: v.to_string(),
                    ..Default::default()
                });
            }
            continue;
        }
        if let Some(s) = slave.as_mut() {
            if indented {
                continue; // LACP PDU details
            }
            match key {
                "MII Status" => s.mii_status = Some(MiiStatus::parse(v)),
                "Speed" => {
                    s.speed_mbps = match v.strip_suffix(" Mbps") {
                        Some(n) => number(n).filter(|&n| n != 0 && n != u32::MAX),
                        None if v == "Unknown" => None,
                        None => {
                            bad("\"N Mbps\" or \"Unknown\"");
                            None
                        }
                    }
                }
                "Duplex" => s.duplex = Some(parse_duplex(v)),
                "Link Failure Count" => match v.parse() {
                    Ok(n) => s.link_failure_count = Some(n),
                    Err(_) => bad("a count of link failures"),
                },
                "Permanent HW addr" => {
                    s.perm_hw_addr = Some(v.to_string()).filter(|a| !a.is_empty())
                }
                "Slave queue ID" => s.queue_id = number(v),
                "Aggregator ID" if v != "N/A" => s.aggregator_id = number(v),
                _ => {}
            }
            continue;
        }
        if indented {
            if in_active_aggregator && key == "Aggregator ID" {
                bond.active_aggregator_id = number(v);
            }
            continue;
        }
        in_active_aggregator = key == "Active Aggregator Info";
        bond_field(&mut bond, key, v, &mut number);
    }
    bond.slaves.extend(slave);
    (bond, rejected)
}

/// One line of the bond's own section (not a slave's): `key: v`.
fn bond_field(
    bond: &mut BondInfo,
    key: &str,
    v: &str,
    number: &mut impl FnMut(&str) -> Option<u32>,
) {
    match key {
        "Ethernet Channel Bonding Driver" => {
            bond.driver_version = v.split_whitespace().next().map(str::to_string);
        }
        "Bonding Mode" => {
            let (mode, fom) = split_suffix(v, "fail_over_mac");
            bond.mode = Some(BondMode::from_name(mode));
            bond.mode_text = Some(mode.to_string());
            bond.fail_over_mac = fom.map(str::to_string);
        }
        "Transmit Hash Policy" => {
            // "layer2+3 (2)": the name, then the number
            let policy = v.rsplit_once(" (").map_or(v, |(p, _)| p);
            bond.xmit_hash_policy = Some(policy.to_string());
        }
        "Primary Slave" => {
            let (primary, reselect) = split_suffix(v, "primary_reselect");
            bond.primary = none_word(primary);
            bond.primary_reselect = reselect.map(str::to_string);
        }
        "Currently Active Slave" => bond.active_slave = none_word(v),
        "MII Status" => bond.mii_status = Some(MiiStatus::parse(v)),
        "MII Polling Interval (ms)" => bond.mii_polling_ms = number(v),
        "Up Delay (ms)" => bond.up_delay_ms = number(v),
        "Down Delay (ms)" => bond.down_delay_ms = number(v),
        "ARP Polling Interval (ms)" => bond.arp_polling_ms = number(v),
        "LACP rate" => bond.lacp_rate = Some(v.to_string()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_come_off() {
        assert_eq!(
            split_suffix("eth0 (primary_reselect always)", "primary_reselect"),
            ("eth0", Some("always"))
        );
        assert_eq!(
            split_suffix("fault-tolerance (active-backup)", "fail_over_mac"),
            ("fault-tolerance (active-backup)", None)
        );
        assert_eq!(
            split_suffix(
                "fault-tolerance (active-backup) (fail_over_mac active)",
                "fail_over_mac"
            ),
            ("fault-tolerance (active-backup)", Some("active"))
        );
    }

    #[test]
    fn bad_values_are_named_and_the_rest_kept() {
        let text = "Bonding Mode: load balancing (xor)\n\
                    MII Polling Interval (ms): fast\n\
                    \n\
                    Slave Interface:\n\
                    MII Status: up\n\
                    \n\
                    Slave Interface: eth1\n\
                    Speed: 10 Gbps\n\
                    Link Failure Count: -1\n\
                    Aggregator ID: x\n\
                    Duplex: full\n";
        let (b, rejected) = parse_bonding(text, "bond0", "/proc/net/bonding/bond0");
        assert_eq!(b.mode, Some(BondMode::Xor));
        assert_eq!(b.mii_polling_ms, None);
        assert_eq!(b.slaves.len(), 1, "the nameless slave is dropped");
        assert_eq!(b.slaves[0].duplex, Some(Duplex::Full));
        let lines: Vec<usize> = rejected.iter().map(|r| r.line_no).collect();
        assert_eq!(lines, vec![2, 4, 8, 9, 10]);
        assert!(
            rejected[0]
                .to_string()
                .contains("/proc/net/bonding/bond0 line 2")
        );
    }

    #[test]
    fn empty_text_is_an_empty_bond() {
        let (b, rejected) = parse_bonding("", "bond9", "x");
        assert_eq!(b.name, "bond9");
        assert!(b.slaves.is_empty() && rejected.is_empty() && b.mode.is_none());
    }
}

//! The NICs on `/metrics`: /proc/net/dev's 16 counters under node_exporter's
//! netdev names, the link's speed and state under its sysfs ones, and the
//! bonds under its bonding ones, so nicstat's figures are `rate()`s of
//! them: `rKB/s` is the rate of bytes received over 1024, `%Util` that of
//! the larger direction's bytes over the speed.

use super::bonding::{BondInfo, MiiStatus};
use super::net_sysfs::OperState;
use super::netdev::NetDevCounters;
use super::source::NicReading;
use crate::layers::metric::{Family, Field, Sink, Text, count, put_fields};

const fn netdev(name: Text, help: Text, unit: Text) -> Family {
    Family::new(name, help, unit, "/proc/net/dev")
        .counter()
        .labels(&["device"])
        .node_exporter(true)
}

macro_rules! netdev_fields {
    ($(($field:ident, $key:literal, $unit:literal)),* $(,)?) => {
        /// An interface's counters, in /proc/net/dev's order.
        pub static NETDEV_FIELDS: [Field<NetDevCounters>; 16] = [$(
            Field {
                family: netdev(
                    concat!("node_network_", $key, "_total"),
                    concat!("Network device statistic ", $key, "."),
                    $unit,
                ),
                get: |c| count(c.$field),
            },
        )*];
    };
}

netdev_fields![
    (rx_bytes, "receive_bytes", "bytes"),
    (rx_packets, "receive_packets", ""),
    (rx_errs, "receive_errs", ""),
    (rx_drop, "receive_drop", ""),
    (rx_fifo, "receive_fifo", ""),
    (rx_frame, "receive_frame", ""),
    (rx_compressed, "receive_compressed", ""),
    (rx_multicast, "receive_multicast", ""),
    (tx_bytes, "transmit_bytes", "bytes"),
    (tx_packets, "transmit_packets", ""),
    (tx_errs, "transmit_errs", ""),
    (tx_drop, "transmit_drop", ""),
    (tx_fifo, "transmit_fifo", ""),
    (tx_colls, "transmit_colls", ""),
    (tx_carrier, "transmit_carrier", ""),
    (tx_compressed, "transmit_compressed", ""),
];

const fn link(name: Text, help: Text, unit: Text, source: Text) -> Family {
    Family::new(name, help, unit, source)
        .labels(&["device"])
        .node_exporter(true)
}

/// An interface's link, from sysfs.
pub static LINK_FIELDS: [Field<NicReading>; 3] = [
    Field {
        family: link(
            "node_network_speed_bytes",
            "Network device property: speed_bytes",
            "bytes",
            "/sys/class/net/IF/speed × 125000",
        ),
        get: |n| {
            n.link
                .speed_mbps
                .and_then(|s| count(u64::from(s) * 125_000))
        },
    },
    Field {
        family: link(
            "node_network_up",
            "Value is 1 if operstate is 'up', 0 otherwise.",
            "",
            "/sys/class/net/IF/operstate",
        ),
        get: |n| {
            Some(if n.link.operstate == OperState::Up {
                1.0
            } else {
                0.0
            })
        },
    },
    Field {
        family: Family::new(
            "strata_network_carrier_changes_total",
            "Carrier ups and downs since the interface was created.",
            "",
            "/sys/class/net/IF/carrier_changes (3.15+)",
        )
        .counter()
        .labels(&["device"]),
        get: |n| n.link.carrier_changes.and_then(count),
    },
];

const fn bond(name: Text, help: Text, node_exporter: bool) -> Family {
    Family::new(name, help, "", "/proc/net/bonding/BOND")
        .labels(&["master"])
        .node_exporter(node_exporter)
}

fn slaves_up(b: &BondInfo) -> usize {
    b.slaves
        .iter()
        .filter(|s| s.mii_status == Some(MiiStatus::Up))
        .count()
}

/// A bond, as node_exporter's bonding collector has it.
pub static BOND_FIELDS: [Field<BondInfo>; 2] = [
    Field {
        family: bond(
            "node_bonding_slaves",
            "Number of configured slaves per bonding interface.",
            true,
        ),
        get: |b| count(b.slaves.len() as u64),
    },
    Field {
        family: bond(
            "node_bonding_active",
            "Number of active slaves per bonding interface.",
            true,
        ),
        get: |b| count(slaves_up(b) as u64),
    },
];

/// Which slave a bond sends through: 1 for the active slave, 0 for the
/// others (active-backup and the modes that name one).
pub static BOND_SLAVE_ACTIVE: Family = Family::new(
    "strata_bond_slave_active",
    "1 for the slave a bond names as its currently active slave, 0 for its other slaves.",
    "",
    "/proc/net/bonding/BOND `Currently Active Slave`",
)
.labels(&["master", "slave"]);

/// A slave's MII status: 1 up, 0 otherwise.
pub static BOND_SLAVE_UP: Family = Family {
    name: "strata_bond_slave_up",
    help: "1 when a bond's slave's MII status is up, 0 otherwise.",
    labels: &["master", "slave"],
    source: "/proc/net/bonding/BOND `MII Status`",
    ..BOND_SLAVE_ACTIVE
};

/// Every family of the layer.
pub fn families() -> impl Iterator<Item = &'static Family> {
    NETDEV_FIELDS
        .iter()
        .map(|f| &f.family)
        .chain(LINK_FIELDS.iter().map(|f| &f.family))
        .chain(BOND_FIELDS.iter().map(|f| &f.family))
        .chain([&BOND_SLAVE_ACTIVE, &BOND_SLAVE_UP])
}

pub fn expose(nics: &[NicReading], bonds: &[BondInfo], sink: &mut dyn Sink) {
    for n in nics {
        let labels = [n.counters.name.as_str()];
        put_fields(&NETDEV_FIELDS, &n.counters, &labels, sink);
        put_fields(&LINK_FIELDS, n, &labels, sink);
    }
    for b in bonds {
        put_fields(&BOND_FIELDS, b, &[&b.name], sink);
        for s in &b.slaves {
            let labels = [b.name.as_str(), s.name.as_str()];
            if let Some(active) = &b.active_slave {
                sink.put(
                    &BOND_SLAVE_ACTIVE,
                    &labels,
                    if *active == s.name { 1.0 } else { 0.0 },
                );
            }
            if let Some(mii) = s.mii_status {
                sink.put(
                    &BOND_SLAVE_UP,
                    &labels,
                    if mii == MiiStatus::Up { 1.0 } else { 0.0 },
                );
            }
        }
    }
}

//! All interfaces over one interval: per-interface figures, the total on
//! the wire and the bonds.

use super::bond::{BondBaseline, BondRow};
use super::model::{LinkSpeed, NicDelta, NicRates};
use super::netdev::NetDevCounters;
use super::source::{LinkState, NicInfo, NicKind, NicSample};
use crate::core::last_seen::LastSeen;
use crate::core::total::complete_sum;
use crate::layers::tick::{Row, Tick};
use std::collections::HashMap;

/// One interface over one interval, with its link as read with the
/// counters. Never used: no packet either way. Its delta is `None` before
/// the interface's second reading, and when a counter went back (a reset:
/// this interval is unknown).
pub type NicRow = Row<NicInfo, NicDelta, NicRates, LinkState>;

impl NicRow {
    /// The link as it was read with the counters.
    pub fn link(&self) -> LinkState {
        self.extra
    }

    pub fn kind(&self) -> NicKind {
        self.info.as_ref().map_or(NicKind::Unknown, |i| i.kind)
    }

    /// The link a %Util is taken against: a known speed, on an interface
    /// whose speed is a wire's (not a veth's made-up 10000).
    pub fn link_speed(&self) -> Option<LinkSpeed> {
        let link = self.link();
        let mbps = link.speed_mbps?;
        self.kind().has_wire_speed().then_some(LinkSpeed {
            mbps,
            duplex: link.duplex,
        })
    }

    /// Whether this interface's traffic crosses a wire and is not counted
    /// again elsewhere: a physical interface (bonds, VLANs and bridges
    /// carry their slaves' and devices' traffic again).
    pub fn counts_in_totals(&self) -> bool {
        self.kind() == NicKind::Physical
    }

    /// Whether a listing shows this interface: all of them, or, as
    /// nicstat, those that have seen a packet.
    pub fn shown(&self, all_devices: bool) -> bool {
        all_devices || !self.never_used
    }
}

/// The figures of one interval of the NIC source: rows in /proc/net/dev
/// order, the total over physical interfaces (no %Util: links differ), and
/// the bonds.
pub type NicTick = Tick<NicRow, NicRates, Vec<BondRow>>;

impl NicTick {
    /// In /proc/net/bonding's order.
    pub fn bonds(&self) -> &[BondRow] {
        &self.extra
    }
}

/// The last counters of every interface, and the first sight of every
/// bond. An interface that missed a sample is diffed over its own interval
/// (see [`LastSeen`]). One seen for the first time after the first sample
/// has no figures for its first interval: it may have been created within
/// it, or moved in from another namespace with its counters (nicstat prints
/// its since-boot average instead).
#[derive(Debug, Default)]
pub struct NicBaseline {
    last: LastSeen<NetDevCounters>,
    bonds: BondBaseline,
}

impl NicBaseline {
    /// One that forgets an interface gone for `forget_cs` of the source's
    /// clock (the app's history window).
    pub fn forgetting_after(forget_cs: u64) -> Self {
        let last = LastSeen::forgetting_after(forget_cs);
        NicBaseline {
            last,
            ..Default::default()
        }
    }

    /// How many interfaces' last counters are kept (a bond's first sight
    /// lasts only while it is listed).
    pub fn names_held(&self) -> usize {
        self.last.len()
    }

    /// Figures of the interval that ends with `cur`. The first sample gives
    /// none, but its bonds are read (so warnings show from the start).
    pub fn tick(&mut self, cur: &NicSample) -> NicTick {
        let itv_cs = self.last.interval(cur.uptime_cs);
        let mut rows = Vec::with_capacity(cur.nics.len());
        for reading in &cur.nics {
            let c = &reading.counters;
            let prev = itv_cs.and(self.last.get(&c.name, cur.uptime_cs));
            let delta = prev.and_then(|(p, since)| NicDelta::between(p, c, since));
            let mut row = Row {
                name: c.name.clone(),
                info: cur.catalogue.get(&c.name).cloned(),
                never_used: c.never_used(),
                delta,
                rates: None,
                reset: prev.is_some() && delta.is_none(),
                extra: reading.link,
            };
            row.rates = delta.map(|d| d.rates(row.link_speed()));
            rows.push(row);
        }
        let readings = cur
            .nics
            .iter()
            .map(|r| (r.counters.name.clone(), r.counters.clone()));
        self.last.record(cur.uptime_cs, readings);
        let by_name: HashMap<&str, &NicRow> = rows.iter().map(|r| (r.name.as_str(), r)).collect();
        let bonds = self.bonds.rows(&cur.bonds, |name| match by_name.get(name) {
            Some(r) => (r.rates, Some(r.link())),
            None => (None, None),
        });
        Tick {
            wall_ms: cur.wall_ms,
            itv_cs,
            total: total(itv_cs, &rows),
            rows,
            extra: bonds,
        }
    }
}

/// The physical interfaces' sum, only when each has figures over this very
/// interval: a partial sum would look like a drop in traffic.
fn total(itv_cs: Option<u64>, rows: &[NicRow]) -> Option<NicRates> {
    let deltas = rows
        .iter()
        .filter(|r| r.counts_in_totals())
        .map(|r| r.delta.as_ref());
    complete_sum(itv_cs, deltas).map(|s| s.rates(None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::nics::bonding::parse_bonding;
    use crate::layers::nics::model::NicCol;
    use crate::layers::nics::net_sysfs::{Duplex, OperState};
    use crate::layers::nics::source::{NicCatalogue, NicReading};
    use std::sync::Arc;

    fn info(name: &str, kind: NicKind) -> (String, Arc<NicInfo>) {
        let i = NicInfo {
            name: name.into(),
            kind,
            if_type: Some(1),
            mtu: Some(1500),
            ifindex: None,
            driver: None,
            master: None,
            address: None,
        };
        (name.into(), Arc::new(i))
    }

    /// (name, rx bytes, rx packets, speed)
    fn sample(uptime_cs: u64, nics: &[(&str, u64, u64, Option<u32>)]) -> NicSample {
        let cat: NicCatalogue = [
            info("lo", NicKind::Loopback),
            info("eth0", NicKind::Physical),
            info("eth1", NicKind::Physical),
            info("bond0", NicKind::Bond),
            info("veth0", NicKind::Veth),
        ]
        .into_iter()
        .collect();
        NicSample {
            uptime_cs,
            wall_ms: uptime_cs as i64 * 10,
            routes: Vec::new(),
            nics: nics
                .iter()
                .map(|&(n, bytes, pkts, speed)| {
                    let mut v = [0u64; 16];
                    v[0] = bytes;
                    v[1] = pkts;
                    NicReading {
                        counters: NetDevCounters::from_values(n, v),
                        link: LinkState {
                            speed_mbps: speed,
                            duplex: Duplex::Full,
                            operstate: OperState::Up,
                            carrier_changes: None,
                        },
                    }
                })
                .collect(),
            bonds: Vec::new(),
            rejected: Vec::new(),
            catalogue: Arc::new(cat),
        }
    }

    fn get(t: &NicTick, name: &str, c: NicCol) -> Option<f64> {
        t.rows.iter().find(|r| r.name == name)?.rates?.get(c)
    }

    #[test]
    fn first_sample_nothing_then_figures_and_total() {
        let g = Some(1000);
        let mut b = NicBaseline::default();
        let t = b.tick(&sample(1000, &[("eth0", 0, 0, g), ("eth1", 0, 0, g)]));
        assert!(t.itv_cs.is_none() && t.total.is_none());
        assert_eq!(get(&t, "eth0", NicCol::RKbPerS), None);
        // 2 s: eth0 read 25 MB (100 Mbit/s = 10% of 1 Gbit/s), eth1 5 MB
        let t = b.tick(&sample(
            1200,
            &[("eth0", 25_000_000, 2000, g), ("eth1", 5_000_000, 1000, g)],
        ));
        assert_eq!(get(&t, "eth0", NicCol::RUtil), Some(10.0));
        assert_eq!(get(&t, "eth0", NicCol::RPkPerS), Some(1000.0));
        let total = t.total.expect("both physical interfaces have figures");
        assert_eq!(total.get(NicCol::RKbPerS), Some(15_000_000.0 / 1024.0));
        assert_eq!(total.get(NicCol::Util), None, "no single link to divide by");
    }

    #[test]
    fn a_veth_has_no_util_and_no_part_in_the_total() {
        let mut b = NicBaseline::default();
        b.tick(&sample(100, &[("veth0", 0, 0, Some(10000))]));
        let t = b.tick(&sample(200, &[("veth0", 1000, 1, Some(10000))]));
        assert_eq!(get(&t, "veth0", NicCol::Util), None);
        assert_eq!(get(&t, "veth0", NicCol::RAvs), Some(1000.0));
        assert!(t.total.is_none(), "no physical interface at all");
    }

    #[test]
    fn resets_new_and_missing_interfaces() {
        let g = Some(1000);
        let mut b = NicBaseline::default();
        b.tick(&sample(100, &[("eth0", 5000, 5, g), ("eth1", 1000, 1, g)]));
        // eth1 missing from this sample (a rejected line); lo new
        let t = b.tick(&sample(200, &[("eth0", 6000, 6, g), ("lo", 50, 1, None)]));
        assert_eq!(
            get(&t, "lo", NicCol::RKbPerS),
            None,
            "new: first interval unknown"
        );
        assert!(!t.rows[1].reset);
        // eth0 re-created: counters restart
        let t = b.tick(&sample(
            300,
            &[
                ("eth0", 100, 1, g),
                ("eth1", 3000, 3, g),
                ("lo", 150, 2, None),
            ],
        ));
        let eth0 = &t.rows[0];
        assert!(eth0.reset && eth0.rates.is_none());
        assert_eq!(get(&t, "lo", NicCol::RKbPerS), Some(100.0 / 1024.0));
        // eth1 over its own 2 s: 2000 bytes → 1000 B/s
        assert_eq!(get(&t, "eth1", NicCol::RPkPerS), Some(1.0));
        assert!(
            t.total.is_none(),
            "eth0 is unknown and eth1's figure covers 2 s"
        );
        let t = b.tick(&sample(400, &[("eth0", 200, 2, g), ("eth1", 4000, 4, g)]));
        assert_eq!(get(&t, "eth0", NicCol::RKbPerS), Some(100.0 / 1024.0));
        assert!(t.total.is_some());
    }

    /// An interface absent from one sample (its line skipped, or gone and
    /// back) is diffed over its own 2 s: its JSON and CSV rows say 2.00,
    /// where they said the sample's 1.00.
    #[test]
    fn a_row_after_a_missed_sample_says_the_interval_its_rates_span() {
        use crate::layers::nics::report::{csv_report, json_report};
        let g = Some(1000);
        let mut b = NicBaseline::default();
        b.tick(&sample(100, &[("eth0", 0, 0, g), ("eth1", 0, 0, g)]));
        b.tick(&sample(200, &[("eth0", 1000, 1, g)]));
        let t = b.tick(&sample(300, &[("eth0", 2000, 2, g), ("eth1", 2000, 2, g)]));
        assert_eq!(get(&t, "eth1", NicCol::RPkPerS), Some(1.0), "2 over 2 s");
        let (json, csv) = (json_report(&t, true), csv_report(&t, true));
        let (json_itv, csv_itv) = crate::layers::report::stamped_intervals(&json, &csv);
        assert_eq!(json_itv, ["1.00", "2.00"], "eth0 then eth1: {json}");
        assert_eq!(csv_itv, ["1.00", "2.00"], "{csv}");
    }

    #[test]
    fn reboot_and_repeated_readings() {
        let mut b = NicBaseline::default();
        b.tick(&sample(1000, &[("eth0", 10, 1, None)]));
        assert!(
            b.tick(&sample(1000, &[("eth0", 10, 1, None)]))
                .itv_cs
                .is_none()
        );
        let t = b.tick(&sample(1100, &[("eth0", 20, 2, None)]));
        assert_eq!(get(&t, "eth0", NicCol::RPkPerS), Some(1.0));
        let t = b.tick(&sample(50, &[("eth0", 3, 1, None)]));
        assert!(t.itv_cs.is_none() && !t.rows[0].reset);
        let t = b.tick(&sample(150, &[("eth0", 8, 2, None)]));
        assert_eq!(get(&t, "eth0", NicCol::RPkPerS), Some(1.0));
    }

    #[test]
    fn bonds_carry_their_slaves_figures() {
        let mut b = NicBaseline::default();
        let (bond, _) = parse_bonding(
            "Bonding Mode: fault-tolerance (active-backup)\nCurrently Active Slave: eth1\nMII Status: up\n\nSlave Interface: eth0\nMII Status: up\n\nSlave Interface: eth1\nMII Status: up\n",
            "bond0",
            "b",
        );
        let mut s = sample(
            100,
            &[
                ("eth0", 0, 0, None),
                ("eth1", 0, 0, None),
                ("bond0", 0, 0, None),
            ],
        );
        s.bonds = vec![bond.clone()];
        let t = b.tick(&s);
        assert_eq!(t.bonds().len(), 1, "bonds show from the first sample");
        let mut s = sample(
            200,
            &[
                ("eth0", 0, 0, None),
                ("eth1", 2048, 2, None),
                ("bond0", 2048, 2, None),
            ],
        );
        s.bonds = vec![bond];
        let t = b.tick(&s);
        let row = &t.bonds()[0];
        assert_eq!(row.rates.and_then(|r| r.get(NicCol::RKbPerS)), Some(2.0));
        let eth1 = &row.slaves[1];
        assert!(eth1.active);
        assert_eq!(eth1.rates.and_then(|r| r.get(NicCol::RPkPerS)), Some(2.0));
        assert!(row.warnings.is_empty());
    }
}

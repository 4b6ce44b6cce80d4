//! NIC and bonding parsers on real and reconstructed captures, and
//! properties over any input: never a panic, never a negative, NaN or
//! infinite figure.

use proptest::prelude::*;
use strata::layers::nics::bond::{BondBaseline, BondWarning};
use strata::layers::nics::bonding::{BondMode, MiiStatus, parse_bonding};
use strata::layers::nics::model::{LinkSpeed, NIC_COLS, NicDelta};
use strata::layers::nics::net_sysfs::{Duplex, parse_duplex, parse_operstate, parse_speed_mbps};
use strata::layers::nics::netdev::{NetDevCounters, parse_net_dev};

fn fixture(dir: &str, name: &str) -> String {
    let path = format!("{}/tests/fixtures/{dir}/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn bond(name: &str) -> strata::layers::nics::bonding::BondInfo {
    // the file is named after the bond: bond2-active-backup-v3.7.1.txt
    let bond_name = name.split('-').next().unwrap_or(name);
    let (b, rejected) = parse_bonding(&fixture("bonding", name), bond_name, name);
    assert!(rejected.is_empty(), "{name}: {rejected:?}");
    b
}

#[test]
fn this_vm_net_dev() {
    let p = parse_net_dev(
        &fixture("net", "net-dev-this-vm-6.18.44.txt"),
        "/proc/net/dev",
    );
    assert!(p.rejected.is_empty(), "{:?}", p.rejected);
    let names: Vec<&str> = p.items.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["lo", "ifb0", "ifb1", "eth0"]);
    let eth0 = &p.items[3];
    assert_eq!(
        (
            eth0.rx_bytes,
            eth0.rx_packets,
            eth0.tx_bytes,
            eth0.tx_packets
        ),
        (81109622, 4867, 365312, 4199)
    );
    assert!(p.items[1].never_used() && !eth0.never_used());
}

#[test]
fn bonding_v2_6_3_real_rac_interconnect() {
    let b = bond("bond1-active-backup-v2.6.3.txt");
    assert_eq!(b.driver_version.as_deref(), Some("v2.6.3"));
    assert_eq!(b.mode, Some(BondMode::ActiveBackup));
    assert_eq!(b.primary, None, "Primary Slave: None");
    assert_eq!(b.active_slave.as_deref(), Some("eth5"));
    assert_eq!(b.mii_status, Some(MiiStatus::Up));
    assert_eq!(
        (b.mii_polling_ms, b.up_delay_ms, b.down_delay_ms),
        (Some(100), Some(0), Some(0))
    );
    assert_eq!(b.slaves.len(), 2);
    let eth1 = &b.slaves[0];
    assert_eq!(eth1.name, "eth1");
    assert_eq!(eth1.link_failure_count, Some(5));
    assert_eq!(eth1.perm_hw_addr.as_deref(), Some("00:1c:23:bf:6e:73"));
    assert_eq!(
        (eth1.speed_mbps, eth1.duplex),
        (None, None),
        "v2.6 prints no speed"
    );
    // every link up and no primary: strata has nothing to warn about from
    // one node (the outage was nodes disagreeing on the active slave)
    let rows = BondBaseline::default().rows(&[b], |_| (None, None));
    assert!(rows[0].warnings.is_empty());
}

#[test]
fn bonding_v3_4_0_slave_down() {
    let b = bond("bond0-active-backup-v3.4.0.txt");
    assert_eq!(b.driver_version.as_deref(), Some("v3.4.0"));
    assert_eq!(b.slaves[1].mii_status, Some(MiiStatus::Down));
    assert_eq!(b.slaves[1].speed_mbps, None);
    let rows = BondBaseline::default().rows(&[b], |_| (None, None));
    assert_eq!(
        rows[0].warnings,
        [BondWarning::SlaveMiiDown {
            slave: "eth1".into(),
            status: MiiStatus::Down
        }]
    );
}

#[test]
fn bonding_v3_6_0_alb() {
    let b = bond("bond0-alb-v3.6.0.txt");
    assert_eq!(b.mode, Some(BondMode::Alb));
    let s = &b.slaves[0];
    assert_eq!(
        (s.speed_mbps, s.duplex, s.queue_id),
        (Some(100), Some(Duplex::Full), Some(0))
    );
}

#[test]
fn bonding_v3_7_1_primary_down() {
    let b = bond("bond2-active-backup-v3.7.1.txt");
    assert_eq!(b.primary.as_deref(), Some("eth2"));
    assert_eq!(b.primary_reselect.as_deref(), Some("always"));
    assert_eq!(b.active_slave.as_deref(), Some("eth3"));
    let eth2 = &b.slaves[0];
    assert_eq!(
        (eth2.speed_mbps, eth2.duplex),
        (None, Some(Duplex::Unknown)),
        "Speed: Unknown, Duplex: Unknown"
    );
    assert_eq!(b.slaves[1].speed_mbps, Some(10000));
    let rows = BondBaseline::default().rows(&[b], |_| (None, None));
    let keys: Vec<&str> = rows[0].warnings.iter().map(BondWarning::key).collect();
    assert_eq!(keys, ["active_not_primary", "slave_mii_down"]);
    assert_eq!(
        rows[0].messages()[0],
        "bond2: active slave eth3 is not the primary eth2"
    );
}

#[test]
fn bonding_v6_802_3ad() {
    let b = bond("bond0-802.3ad-v6.x.txt");
    assert_eq!(b.driver_version.as_deref(), Some("v6.1.0-18-amd64"));
    assert_eq!(b.mode, Some(BondMode::Lacp));
    assert_eq!(b.xmit_hash_policy.as_deref(), Some("layer3+4"));
    assert_eq!(b.lacp_rate.as_deref(), Some("fast"));
    assert_eq!(b.primary, None);
    assert_eq!(b.active_slave, None, "802.3ad prints no active slave");
    assert_eq!(
        b.active_aggregator_id,
        Some(1),
        "the tab-indented Aggregator ID"
    );
    assert_eq!(b.slaves.len(), 2, "LACP PDU details are no slaves");
    let ids: Vec<Option<u32>> = b.slaves.iter().map(|s| s.aggregator_id).collect();
    assert_eq!(ids, [Some(1), Some(2)]);
    assert_eq!(b.slaves[1].speed_mbps, Some(25000));
    let rows = BondBaseline::default().rows(&[b], |_| (None, None));
    assert_eq!(
        rows[0].messages(),
        ["bond0: slave ens1f1: in aggregator 2, not the active 1: it carries no traffic"]
    );
}

/// A /proc/net/dev text as the kernel prints it, modern or 2.6 style.
fn render(nics: &[(String, [u64; 16], bool)]) -> String {
    let mut s = String::from(
        "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n",
    );
    for (name, v, old) in nics {
        let sep = if *old { ":" } else { ": " };
        let nums: Vec<String> = v.iter().map(u64::to_string).collect();
        s.push_str(&format!("{name:>6}{sep}{}\n", nums.join(" ")));
    }
    s
}

fn counters() -> impl Strategy<Value = [u64; 16]> {
    prop::array::uniform16(prop_oneof![
        any::<u64>(),
        0u64..1000,
        Just(u64::MAX),
        (1u64 << 32) - 10..(1u64 << 32) + 10
    ])
}

proptest! {
    #[test]
    fn net_dev_parser_never_panics(text in "\\PC{0,600}") {
        let p = parse_net_dev(&text, "/proc/net/dev");
        for r in &p.rejected {
            prop_assert!(r.line_no >= 1);
        }
        let _ = parse_bonding(&text, "bond0", "b");
        let _ = (parse_speed_mbps(&text), parse_duplex(&text), parse_operstate(&text));
    }

    #[test]
    fn net_dev_near_misses_are_kept_or_named(
        name in "[a-z0-9.:_-]{0,8}",
        fields in prop::collection::vec(prop_oneof![
            "[0-9]{1,21}", "-[0-9]{1,3}", "[a-z]{1,3}", Just(String::new())
        ], 0..20)
    ) {
        let line = format!("{name}: {}", fields.join(" "));
        let p = parse_net_dev(&line, "d");
        prop_assert_eq!(p.items.len() + p.rejected.len(), 1);
    }

    #[test]
    fn net_dev_reads_back_what_was_printed(
        nics in prop::collection::vec(("[a-z][a-z0-9._-]{0,14}", counters(), any::<bool>()), 1..12)
    ) {
        let p = parse_net_dev(&render(&nics), "d");
        prop_assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        let got: Vec<(String, [u64; 16])> = p.items.iter().map(|c| (c.name.clone(), c.values())).collect();
        let want: Vec<(String, [u64; 16])> = nics.iter().map(|(n, v, _)| (n.clone(), *v)).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn bonding_parser_never_panics_on_near_misses(
        lines in prop::collection::vec(prop_oneof![
            Just("Slave Interface: eth0".to_string()),
            Just("Slave Interface:".to_string()),
            Just("Primary Slave: None".to_string()),
            Just("Active Aggregator Info:".to_string()),
            Just("\tAggregator ID: 1".to_string()),
            "(MII Status|Speed|Duplex|Link Failure Count|Aggregator ID|Bonding Mode|Currently Active Slave|Transmit Hash Policy): [ -~]{0,24}",
            "[ -~]{0,30}",
        ], 0..30)
    ) {
        let (b, _) = parse_bonding(&lines.join("\n"), "bond0", "b");
        // every slave has a name; warnings can be built from anything parsed
        prop_assert!(b.slaves.iter().all(|s| !s.name.is_empty()));
        let rows = BondBaseline::default().rows(&[b], |_| (None, None));
        for w in &rows[0].warnings {
            prop_assert!(!w.to_string().is_empty());
        }
    }

    #[test]
    fn rates_are_never_negative_nan_or_infinite(
        prev in counters(),
        cur in counters(),
        itv in 0u64..10_000_000,
        mbps in prop_oneof![Just(0u32), 1u32..1_000_000, Just(u32::MAX)],
        full in any::<bool>(),
    ) {
        let (p, c) = (NetDevCounters::from_values("x", prev), NetDevCounters::from_values("x", cur));
        if let Some(d) = NicDelta::between(&p, &c, itv) {
            let duplex = if full { Duplex::Full } else { Duplex::Half };
            for link in [None, Some(LinkSpeed { mbps, duplex })] {
                let r = d.rates(link);
                for col in &NIC_COLS {
                    if let Some(v) = r.get(col.col) {
                        prop_assert!(v.is_finite() && v >= 0.0, "{} = {}", col.header, v);
                        if col.header.contains("Util") {
                            prop_assert!(v <= 100.0, "{} = {}", col.header, v);
                        }
                    }
                }
            }
        } else {
            // unknown only for an empty interval or a counter that went back
            prop_assert!(itv == 0 || (0..16).any(|i| cur[i] < prev[i]));
        }
    }

    #[test]
    fn failure_counts_that_come_and_go_never_panic(counts in prop::collection::vec(prop::option::of(any::<u64>()), 1..20)) {
        let mut base = BondBaseline::default();
        for c in counts {
            let count = c.map_or(String::new(), |c| format!("Link Failure Count: {c}\n"));
            let text = format!("Slave Interface: eth0\nMII Status: up\n{count}");
            let (b, _) = parse_bonding(&text, "bond0", "b");
            let rows = base.rows(&[b], |_| (None, None));
            if let Some(BondWarning::LinkFailuresRose { from, to, .. }) = rows[0].warnings.first() {
                prop_assert!(from < to);
            }
        }
    }
}

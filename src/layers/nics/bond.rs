//! A bond over one interval: its slaves' own figures and what is wrong
//! with it, as data the screens can show.
//!
//! Warnings, each of which has hidden an outage on a database cluster:
//! - the bond's MII status is not up (no slave carries traffic);
//! - a slave's MII status is not up (the bond runs without redundancy);
//! - a slave's link failure count rose while strata watched (a flapping
//!   port; the count since boot alone says nothing about now);
//! - the active slave is not the configured primary (only when a primary
//!   is configured: active-backup, balance-tlb, balance-alb);
//! - the active slave changed while strata watched (a failover; with
//!   Primary Slave: None nothing brings it back, and cluster nodes that
//!   failed over differently can no longer reach each other);
//! - 802.3ad: a slave whose link is up sits outside the active aggregator
//!   (its switch port is not in the same LAG, or its partner never
//!   answered LACP), so it carries nothing.
//!
//! "While strata watched" compares with the first reading of each bond and
//! slave; a slave whose count fell was enslaved again and is read afresh.

use super::bonding::{BondInfo, BondMode, BondSlave, MiiStatus};
use super::model::NicRates;
use super::source::LinkState;
use std::collections::HashMap;
use std::fmt;

/// Something wrong with a bond.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BondWarning {
    BondMiiDown {
        status: MiiStatus,
    },
    SlaveMiiDown {
        slave: String,
        status: MiiStatus,
    },
    LinkFailuresRose {
        slave: String,
        /// The count when strata first saw the slave.
        from: u64,
        to: u64,
    },
    ActiveNotPrimary {
        active: Option<String>,
        primary: String,
    },
    ActiveChanged {
        from: Option<String>,
        to: Option<String>,
    },
    NotInActiveAggregator {
        slave: String,
        aggregator: Option<u32>,
        active: u32,
    },
}

impl BondWarning {
    /// A stable name for JSON and CSV.
    pub fn key(&self) -> &'static str {
        match self {
            BondWarning::BondMiiDown { .. } => "bond_mii_down",
            BondWarning::SlaveMiiDown { .. } => "slave_mii_down",
            BondWarning::LinkFailuresRose { .. } => "link_failures_rose",
            BondWarning::ActiveNotPrimary { .. } => "active_not_primary",
            BondWarning::ActiveChanged { .. } => "active_changed",
            BondWarning::NotInActiveAggregator { .. } => "not_in_active_aggregator",
        }
    }

    /// The slave the warning is about, if it is about one.
    pub fn slave(&self) -> Option<&str> {
        match self {
            BondWarning::SlaveMiiDown { slave, .. }
            | BondWarning::LinkFailuresRose { slave, .. }
            | BondWarning::NotInActiveAggregator { slave, .. } => Some(slave),
            _ => None,
        }
    }
}

fn or_none(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("none")
}

/// The text without the bond's name: "slave eth1: MII status down".
impl fmt::Display for BondWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BondWarning::BondMiiDown { status } => {
                write!(
                    f,
                    "bond MII status {}: no slave carries traffic",
                    status.label()
                )
            }
            BondWarning::SlaveMiiDown { slave, status } => {
                write!(f, "slave {slave}: MII status {}", status.label())
            }
            BondWarning::LinkFailuresRose { slave, from, to } => write!(
                f,
                "slave {slave}: link failures rose from {from} to {to} since strata started"
            ),
            BondWarning::ActiveNotPrimary { active, primary } => write!(
                f,
                "active slave {} is not the primary {primary}",
                or_none(active)
            ),
            BondWarning::ActiveChanged { from, to } => write!(
                f,
                "active slave changed from {} to {} since strata started",
                or_none(from),
                or_none(to)
            ),
            BondWarning::NotInActiveAggregator {
                slave,
                aggregator,
                active,
            } => match aggregator {
                Some(a) => write!(
                    f,
                    "slave {slave}: in aggregator {a}, not the active {active}: it carries no traffic"
                ),
                None => write!(f, "slave {slave}: in no aggregator: it carries no traffic"),
            },
        }
    }
}

/// One slave of a bond over one interval.
#[derive(Debug, Clone)]
pub struct SlaveRow {
    pub slave: BondSlave,
    /// The slave interface's own figures (it is in /proc/net/dev too).
    pub rates: Option<NicRates>,
    pub link: Option<LinkState>,
    /// Link failures since strata first saw this slave.
    pub failures_since_start: Option<u64>,
    pub active: bool,
}

/// One bond over one interval.
#[derive(Debug, Clone)]
pub struct BondRow {
    pub info: BondInfo,
    /// The bond interface's own figures.
    pub rates: Option<NicRates>,
    pub slaves: Vec<SlaveRow>,
    pub warnings: Vec<BondWarning>,
}

impl BondRow {
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// Each warning's text with the bond's name: "bond0: slave eth1: ...".
    pub fn messages(&self) -> Vec<String> {
        self.warnings
            .iter()
            .map(|w| format!("{}: {w}", self.info.name))
            .collect()
    }
}

/// What strata saw of a bond when it first read it.
#[derive(Debug, Default)]
struct FirstSight {
    active: Option<String>,
    failures: HashMap<String, u64>,
}

/// The first readings of every bond, which the warnings compare with.
#[derive(Debug, Default)]
pub struct BondBaseline {
    seen: HashMap<String, FirstSight>,
}

impl BondBaseline {
    /// The rows of this interval's bonds; `figures` gives an interface's
    /// rates and link by name.
    pub fn rows(
        &mut self,
        bonds: &[BondInfo],
        figures: impl Fn(&str) -> (Option<NicRates>, Option<LinkState>),
    ) -> Vec<BondRow> {
        self.seen
            .retain(|name, _| bonds.iter().any(|b| &b.name == name));
        bonds
            .iter()
            .map(|b| {
                let first = self
                    .seen
                    .entry(b.name.clone())
                    .or_insert_with(|| FirstSight {
                        active: b.active_slave.clone(),
                        failures: HashMap::new(),
                    });
                first
                    .failures
                    .retain(|s, _| b.slaves.iter().any(|x| &x.name == s));
                let mut warnings = Vec::new();
                if let Some(status) = b.mii_status.filter(|s| *s != MiiStatus::Up) {
                    warnings.push(BondWarning::BondMiiDown { status });
                }
                if let Some(primary) = &b.primary
                    && b.active_slave.as_ref() != Some(primary)
                {
                    warnings.push(BondWarning::ActiveNotPrimary {
                        active: b.active_slave.clone(),
                        primary: primary.clone(),
                    });
                }
                if first.active != b.active_slave {
                    warnings.push(BondWarning::ActiveChanged {
                        from: first.active.clone(),
                        to: b.active_slave.clone(),
                    });
                }
                let slaves = b
                    .slaves
                    .iter()
                    .map(|s| {
                        let since = s.link_failure_count.map(|now| {
                            let base = first.failures.entry(s.name.clone()).or_insert(now);
                            if now < *base {
                                *base = now; // enslaved again: counts from 0
                            }
                            now - *base
                        });
                        slave_warnings(b, s, since, &mut warnings);
                        let (rates, link) = figures(&s.name);
                        SlaveRow {
                            slave: s.clone(),
                            rates,
                            link,
                            failures_since_start: since,
                            active: b.active_slave.as_ref() == Some(&s.name),
                        }
                    })
                    .collect();
                BondRow {
                    info: b.clone(),
                    rates: figures(&b.name).0,
                    slaves,
                    warnings,
                }
            })
            .collect()
    }
}

fn slave_warnings(b: &BondInfo, s: &BondSlave, since: Option<u64>, out: &mut Vec<BondWarning>) {
    let up = s.mii_status == Some(MiiStatus::Up);
    if let Some(status) = s.mii_status.filter(|_| !up) {
        out.push(BondWarning::SlaveMiiDown {
            slave: s.name.clone(),
            status,
        });
    }
    if let (Some(d), Some(to)) = (since.filter(|&d| d > 0), s.link_failure_count) {
        out.push(BondWarning::LinkFailuresRose {
            slave: s.name.clone(),
            from: to - d,
            to,
        });
    }
    if let (Some(BondMode::Lacp), Some(active)) = (b.mode, b.active_aggregator_id)
        && up
        && s.aggregator_id != Some(active)
    {
        out.push(BondWarning::NotInActiveAggregator {
            slave: s.name.clone(),
            aggregator: s.aggregator_id,
            active,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::nics::bonding::parse_bonding;

    fn bond(text: &str) -> BondInfo {
        parse_bonding(text, "bond0", "b").0
    }

    const AB: &str = "Bonding Mode: fault-tolerance (active-backup)\n\
                      Primary Slave: eth0 (primary_reselect always)\n\
                      Currently Active Slave: ACTIVE\n\
                      MII Status: up\n\n\
                      Slave Interface: eth0\nMII Status: EUP\nLink Failure Count: E0F\n\n\
                      Slave Interface: eth1\nMII Status: up\nLink Failure Count: 7\n";

    fn ab(active: &str, eth0_mii: &str, eth0_failures: u64) -> BondInfo {
        bond(
            &AB.replace("ACTIVE", active)
                .replace("EUP", eth0_mii)
                .replace("E0F", &eth0_failures.to_string()),
        )
    }

    fn no_figures(_: &str) -> (Option<NicRates>, Option<LinkState>) {
        (None, None)
    }

    #[test]
    fn a_healthy_bond_has_no_warnings() {
        let mut b = BondBaseline::default();
        let rows = b.rows(&[ab("eth0", "up", 3)], no_figures);
        assert!(rows[0].warnings.is_empty(), "{:?}", rows[0].warnings);
        assert!(rows[0].slaves[0].active && !rows[0].slaves[1].active);
        assert_eq!(rows[0].slaves[0].failures_since_start, Some(0));
    }

    #[test]
    fn a_failover_while_watched() {
        let mut b = BondBaseline::default();
        b.rows(&[ab("eth0", "up", 3)], no_figures);
        // eth0's link failed once: eth1 took over
        let rows = b.rows(&[ab("eth1", "down", 4)], no_figures);
        let texts = rows[0].messages();
        assert_eq!(
            texts,
            vec![
                "bond0: active slave eth1 is not the primary eth0",
                "bond0: active slave changed from eth0 to eth1 since strata started",
                "bond0: slave eth0: MII status down",
                "bond0: slave eth0: link failures rose from 3 to 4 since strata started",
            ]
        );
        assert_eq!(rows[0].warnings[3].slave(), Some("eth0"));
        assert_eq!(rows[0].warnings[3].key(), "link_failures_rose");
        // eth0 re-enslaved: its count starts again at 0 and is the new base
        let rows = b.rows(&[ab("eth0", "up", 0)], no_figures);
        assert!(rows[0].warnings.is_empty(), "{:?}", rows[0].warnings);
        let rows = b.rows(&[ab("eth0", "up", 1)], no_figures);
        assert_eq!(
            rows[0].warnings,
            vec![BondWarning::LinkFailuresRose {
                slave: "eth0".into(),
                from: 0,
                to: 1
            }]
        );
    }

    #[test]
    fn no_primary_no_primary_warning() {
        let text = AB
            .replace("eth0 (primary_reselect always)", "None")
            .replace("ACTIVE", "eth1")
            .replace("EUP", "up")
            .replace("E0F", "0");
        let mut b = BondBaseline::default();
        assert!(b.rows(&[bond(&text)], no_figures)[0].warnings.is_empty());
    }

    #[test]
    fn lacp_slave_outside_the_active_aggregator() {
        let text = "Bonding Mode: IEEE 802.3ad Dynamic link aggregation\nMII Status: down\n\
                    Active Aggregator Info:\n\tAggregator ID: 1\n\n\
                    Slave Interface: a\nMII Status: up\nAggregator ID: 1\n\n\
                    Slave Interface: b\nMII Status: up\nAggregator ID: 2\n\n\
                    Slave Interface: c\nMII Status: up\nAggregator ID: N/A\n\n\
                    Slave Interface: d\nMII Status: down\nAggregator ID: 3\n";
        let mut b = BondBaseline::default();
        let keys: Vec<String> = b.rows(&[bond(text)], no_figures)[0]
            .warnings
            .iter()
            .map(|w| format!("{} {}", w.key(), w.slave().unwrap_or("-")))
            .collect();
        assert_eq!(
            keys,
            [
                "bond_mii_down -",
                "not_in_active_aggregator b",
                "not_in_active_aggregator c",
                "slave_mii_down d"
            ]
        );
    }
}

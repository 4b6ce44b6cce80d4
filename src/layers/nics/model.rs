//! nicstat figures from two snapshots of an interface's counters.
//!
//! The arithmetic is nicstat 1.95's (`print_stats` in nicstat.c), down to
//! the order of operations, so the printed figures agree to the last digit
//! when the interval is the same:
//! - rates are counter differences over the interval in seconds; the
//!   interval is /proc/uptime's, in centiseconds (nicstat times its reads
//!   with gettimeofday; see tests/figures/nicstat.rs);
//! - rKB/s and wKB/s divide bytes by 1024; rAvs and wAvs are bytes per
//!   packet, 0 when no packet went that way;
//! - Sat is rx errs + rx drop + tx drop + tx fifo + tx colls + tx carrier
//!   per second;
//! - %rUtil and %wUtil are `bytes/s × 800 / (Mbit/s × 10^6)` capped at 100
//!   (100 for percent, 8 bits a byte); %Util is the larger of the two on a
//!   full-duplex link and the capped sum on a half-duplex one, or when the
//!   duplex is unknown, as nicstat does.
//!
//! Where nicstat prints something else:
//! - %Util, %rUtil and %wUtil of a link whose speed is unknown are unknown
//!   (nicstat prints 0.00);
//! - a counter that went back (the interface was re-created under the same
//!   name, or the driver reset its statistics) makes every figure of that
//!   interval unknown. nicstat subtracts modulo 2^64 and prints ~1.8e19/s.
//!   A 64-bit counter does not wrap within any uptime (2^64 bytes at 400
//!   Gbit/s take 11.7 years), and a 32-bit one (old 32-bit kernels) cannot
//!   be told from a reset, so no wrap is assumed either way;
//! - strata adds errors and drops per second each way.

use super::net_sysfs::Duplex;
use super::netdev::NetDevCounters;
use crate::core::total::Delta;
use crate::layers::col::{Figures, cols};

/// One figure of an interface over an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NicCol {
    RKbPerS,
    WKbPerS,
    RPkPerS,
    WPkPerS,
    RAvs,
    WAvs,
    Util,
    Sat,
    RUtil,
    WUtil,
    RErrPerS,
    WErrPerS,
    RDropPerS,
    WDropPerS,
}

/// What a column holds, which decides its formatting and colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NicColKind {
    /// Kilobytes (1024 bytes) per second.
    Throughput,
    /// Packets per second.
    Packets,
    /// Bytes per packet.
    PacketSize,
    /// Percentage of the link's speed.
    Util,
    /// Errors, drops and other trouble per second.
    Trouble,
}

cols! {
    /// Every figure, nicstat's default columns first, in its order. The
    /// headers as nicstat prints them (the first 8; `-U` for %rUtil and
    /// %wUtil), strata's own for the errors and drops.
    pub const NIC_COLS: [NicCol, NicColKind] = [
        (RKbPerS, "rKB/s", "rKB/s", Throughput),
        (WKbPerS, "wKB/s", "wKB/s", Throughput),
        (RPkPerS, "rPk/s", "rPk/s", Packets),
        (WPkPerS, "wPk/s", "wPk/s", Packets),
        (RAvs, "rAvs", "rAvs", PacketSize),
        (WAvs, "wAvs", "wAvs", PacketSize),
        (Util, "%Util", "Util", Util),
        (Sat, "Sat", "Sat", Trouble),
        (RUtil, "%rUtil", "rUtil", Util),
        (WUtil, "%wUtil", "wUtil", Util),
        (RErrPerS, "rErr/s", "rErr/s", Trouble),
        (WErrPerS, "wErr/s", "wErr/s", Trouble),
        (RDropPerS, "rDrop/s", "rDrop/s", Trouble),
        (WDropPerS, "wDrop/s", "wDrop/s", Trouble),
    ];
}

/// Counter differences over one interval. Sums of these over interfaces
/// give totals computed with the very same formulas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NicDelta {
    /// Interval in centiseconds of the source's /proc/uptime.
    pub itv_cs: u64,
    pub rx_bytes: u64,
    pub tx_bytes: u64,
    pub rx_packets: u64,
    pub tx_packets: u64,
    pub rx_errs: u64,
    pub tx_errs: u64,
    pub rx_drop: u64,
    pub tx_drop: u64,
    /// nicstat's saturation counters, summed.
    pub sat: u64,
}

/// The link a %Util is taken against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkSpeed {
    pub mbps: u32,
    pub duplex: Duplex,
}

impl NicDelta {
    /// The differences between two snapshots of one interface taken
    /// `itv_cs` centiseconds apart; `None` when the interval is empty or
    /// any counter went back.
    pub fn between(prev: &NetDevCounters, cur: &NetDevCounters, itv_cs: u64) -> Option<Self> {
        if itv_cs == 0 {
            return None;
        }
        let (p, c) = (prev.values(), cur.values());
        let mut d = [0u64; 16];
        for (i, slot) in d.iter_mut().enumerate() {
            *slot = c[i].checked_sub(p[i])?;
        }
        let sat = [d[2], d[3], d[11], d[12], d[13], d[14]]
            .iter()
            .fold(0u64, |a, &x| a.saturating_add(x));
        Some(NicDelta {
            itv_cs,
            rx_bytes: d[0],
            rx_packets: d[1],
            rx_errs: d[2],
            rx_drop: d[3],
            tx_bytes: d[8],
            tx_packets: d[9],
            tx_errs: d[10],
            tx_drop: d[11],
            sat,
        })
    }

    /// Every figure for this interval; the %Util columns only against a
    /// link of known speed.
    pub fn rates(&self, link: Option<LinkSpeed>) -> NicRates {
        let tdiff = self.itv_cs as f64 / 100.0;
        let per_s = |d: u64| d as f64 / tdiff;
        let (rbps, wbps) = (per_s(self.rx_bytes), per_s(self.tx_bytes));
        let (rpps, wpps) = (per_s(self.rx_packets), per_s(self.tx_packets));
        let avs = |bps: f64, pps: f64| if pps > 0.0 { bps / pps } else { 0.0 };
        let mut v = NicRates::default();
        let mut set = |c: NicCol, x: f64| v.set(c, Some(x));
        set(NicCol::RKbPerS, rbps / 1024.0);
        set(NicCol::WKbPerS, wbps / 1024.0);
        set(NicCol::RPkPerS, rpps);
        set(NicCol::WPkPerS, wpps);
        set(NicCol::RAvs, avs(rbps, rpps));
        set(NicCol::WAvs, avs(wbps, wpps));
        set(NicCol::Sat, per_s(self.sat));
        set(NicCol::RErrPerS, per_s(self.rx_errs));
        set(NicCol::WErrPerS, per_s(self.tx_errs));
        set(NicCol::RDropPerS, per_s(self.rx_drop));
        set(NicCol::WDropPerS, per_s(self.tx_drop));
        if let Some(link) = link.filter(|l| l.mbps > 0) {
            // nicstat keeps the speed in bit/s as an integer
            let speed = (u64::from(link.mbps) * 1_000_000) as f64;
            let rutil = (rbps * 800.0 / speed).min(100.0);
            let wutil = (wbps * 800.0 / speed).min(100.0);
            let util = if link.duplex == Duplex::Full {
                rutil.max(wutil)
            } else {
                ((rbps + wbps) * 800.0 / speed).min(100.0)
            };
            set(NicCol::RUtil, rutil);
            set(NicCol::WUtil, wutil);
            set(NicCol::Util, util);
        }
        v
    }
}

impl Delta for NicDelta {
    fn itv_cs(&self) -> u64 {
        self.itv_cs
    }

    fn accumulate(&mut self, o: &NicDelta) {
        self.rx_bytes = self.rx_bytes.saturating_add(o.rx_bytes);
        self.tx_bytes = self.tx_bytes.saturating_add(o.tx_bytes);
        self.rx_packets = self.rx_packets.saturating_add(o.rx_packets);
        self.tx_packets = self.tx_packets.saturating_add(o.tx_packets);
        self.rx_errs = self.rx_errs.saturating_add(o.rx_errs);
        self.tx_errs = self.tx_errs.saturating_add(o.tx_errs);
        self.rx_drop = self.rx_drop.saturating_add(o.rx_drop);
        self.tx_drop = self.tx_drop.saturating_add(o.tx_drop);
        self.sat = self.sat.saturating_add(o.sat);
    }
}

/// The figures of one interface over one interval; `None` is unknown.
pub type NicRates = Figures<NicCol, { NIC_COLS.len() }>;

#[cfg(test)]
mod tests {
    use super::*;

    fn nic(v: [u64; 16]) -> NetDevCounters {
        NetDevCounters::from_values("eth0", v)
    }

    fn link(mbps: u32, duplex: Duplex) -> Option<LinkSpeed> {
        Some(LinkSpeed { mbps, duplex })
    }

    #[test]
    fn nicstat_formulas_full_duplex() {
        let prev = nic([0; 16]);
        //   rx: 250,000,000 B, 200,000 pkts, 4 errs, 6 drop, 1 fifo, 9 frame
        //   tx: 50,000,000 B, 100,000 pkts, 2 errs, 8 drop, 3 fifo, 5 colls, 7 carrier
        let cur = nic([
            250_000_000,
            200_000,
            4,
            6,
            1,
            9,
            0,
            0,
            50_000_000,
            100_000,
            2,
            8,
            3,
            5,
            7,
            0,
        ]);
        // over 2.5 s
        let d = NicDelta::between(&prev, &cur, 250).unwrap();
        assert_eq!(
            d.sat,
            4 + 6 + 8 + 3 + 5 + 7,
            "frame and fifo-in are not Sat"
        );
        let r = d.rates(link(1000, Duplex::Full));
        // 100,000,000 B/s / 1024
        assert_eq!(r.get(NicCol::RKbPerS), Some(97656.25));
        assert_eq!(r.get(NicCol::WKbPerS), Some(19531.25));
        assert_eq!(r.get(NicCol::RPkPerS), Some(80_000.0));
        assert_eq!(r.get(NicCol::WPkPerS), Some(40_000.0));
        assert_eq!(r.get(NicCol::RAvs), Some(1250.0));
        assert_eq!(r.get(NicCol::WAvs), Some(500.0));
        assert_eq!(r.get(NicCol::Sat), Some(13.2));
        // 800 Mbit/s of 1000 in, 160 out: full duplex takes the larger
        assert_eq!(r.get(NicCol::RUtil), Some(80.0));
        assert_eq!(r.get(NicCol::WUtil), Some(16.0));
        assert_eq!(r.get(NicCol::Util), Some(80.0));
        assert_eq!(r.get(NicCol::RErrPerS), Some(1.6));
        assert_eq!(r.get(NicCol::WErrPerS), Some(0.8));
        assert_eq!(r.get(NicCol::RDropPerS), Some(2.4));
        assert_eq!(r.get(NicCol::WDropPerS), Some(3.2));
    }

    #[test]
    fn half_duplex_sums_and_caps() {
        let prev = nic([0; 16]);
        let mut v = [0u64; 16];
        v[0] = 10_000_000; // 80 Mbit/s in over 1 s
        v[8] = 5_000_000; // 40 Mbit/s out
        let d = NicDelta::between(&prev, &nic(v), 100).unwrap();
        let r = d.rates(link(100, Duplex::Half));
        assert_eq!(r.get(NicCol::RUtil), Some(80.0));
        assert_eq!(r.get(NicCol::WUtil), Some(40.0));
        assert_eq!(r.get(NicCol::Util), Some(100.0), "120% capped");
        // nicstat treats an unknown duplex as half
        let r = d.rates(link(1000, Duplex::Unknown));
        assert_eq!(r.get(NicCol::Util), Some(12.0));
        // no packets: average sizes are 0, as nicstat prints them
        assert_eq!(r.get(NicCol::RAvs), Some(0.0));
    }

    #[test]
    fn unknown_speed_gives_unknown_util() {
        let d = NicDelta::between(&nic([0; 16]), &nic([1; 16]), 100).unwrap();
        for l in [None, link(0, Duplex::Full)] {
            let r = d.rates(l);
            assert_eq!(r.get(NicCol::Util), None);
            assert_eq!(r.get(NicCol::RUtil), None);
            assert_eq!(r.get(NicCol::RKbPerS), Some(1.0 / 1024.0));
        }
    }

    #[test]
    fn a_counter_that_went_back_is_unknown_not_negative() {
        let mut v = [100u64; 16];
        let prev = nic(v);
        v[14] = 99; // tx carrier fell by one: the statistics were reset
        assert_eq!(NicDelta::between(&prev, &nic(v), 100), None);
        assert_eq!(NicDelta::between(&prev, &nic([100; 16]), 0), None);
        // near 2^64 the difference is still exact
        let prev = nic([u64::MAX - 1000; 16]);
        let d = NicDelta::between(&prev, &nic([u64::MAX; 16]), 100).unwrap();
        assert_eq!(d.rx_bytes, 1000);
        assert_eq!(d.sat, 6000);
    }
}

//! `/proc/net/dev`: per-interface packet and byte counters.
//!
//! Layout (net/core/net-procfs.c `dev_seq_printf_stats`): two header lines,
//! then `name: ` and 16 counters per interface: rx bytes, packets, errs,
//! drop, fifo, frame, compressed, multicast; tx bytes, packets, errs, drop,
//! fifo, colls, carrier, compressed. 2.6 kernels printed `"%6s:%8lu"`, so a
//! line can read `eth0:1234567 ...` with no space: the name ends at the
//! first ':' (interface names cannot hold one). Neither the header text nor
//! the column widths are relied on; a proposed kernel patch changes both.
//! Counters past the 16th, should a kernel add some, are ignored.

use crate::core::parse::Parsed;
use serde::{Deserialize, Serialize};

/// The cumulative counters of one interface, as the kernel prints them
/// (some are sums of driver counters: see the field docs).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NetDevCounters {
    pub name: String,
    pub rx_bytes: u64,
    pub rx_packets: u64,
    pub rx_errs: u64,
    /// rx_dropped + rx_missed_errors.
    pub rx_drop: u64,
    pub rx_fifo: u64,
    /// rx length + over + crc + frame errors.
    pub rx_frame: u64,
    pub rx_compressed: u64,
    pub rx_multicast: u64,
    pub tx_bytes: u64,
    pub tx_packets: u64,
    pub tx_errs: u64,
    pub tx_drop: u64,
    pub tx_fifo: u64,
    pub tx_colls: u64,
    /// tx carrier + aborted + window + heartbeat errors.
    pub tx_carrier: u64,
    pub tx_compressed: u64,
}

impl NetDevCounters {
    /// The 16 counters in the kernel's order.
    pub fn values(&self) -> [u64; 16] {
        [
            self.rx_bytes,
            self.rx_packets,
            self.rx_errs,
            self.rx_drop,
            self.rx_fifo,
            self.rx_frame,
            self.rx_compressed,
            self.rx_multicast,
            self.tx_bytes,
            self.tx_packets,
            self.tx_errs,
            self.tx_drop,
            self.tx_fifo,
            self.tx_colls,
            self.tx_carrier,
            self.tx_compressed,
        ]
    }

    pub fn from_values(name: &str, v: [u64; 16]) -> Self {
        NetDevCounters {
            name: name.to_string(),
            rx_bytes: v[0],
            rx_packets: v[1],
            rx_errs: v[2],
            rx_drop: v[3],
            rx_fifo: v[4],
            rx_frame: v[5],
            rx_compressed: v[6],
            rx_multicast: v[7],
            tx_bytes: v[8],
            tx_packets: v[9],
            tx_errs: v[10],
            tx_drop: v[11],
            tx_fifo: v[12],
            tx_colls: v[13],
            tx_carrier: v[14],
            tx_compressed: v[15],
        }
    }

    /// No packet either way since the interface was created; nicstat
    /// hides these.
    pub fn never_used(&self) -> bool {
        self.rx_packets == 0 && self.tx_packets == 0
    }
}

const EXPECTED: &str = "an interface name, ':' and 16 unsigned counters";

/// Parses the whole text of `/proc/net/dev`. Lines without a ':' that hold
/// a '|' are the header and are skipped; any other line that is not an
/// interface with 16 counters is rejected with its number.
pub fn parse_net_dev(text: &str, source_name: &str) -> Parsed<NetDevCounters> {
    Parsed::from_lines(text, source_name, |line| {
        if !line.contains(':') && line.contains('|') {
            return Ok(None);
        }
        parse_line(line).map(Some)
    })
}

fn parse_line(line: &str) -> Result<NetDevCounters, String> {
    let Some((name, rest)) = line.split_once(':') else {
        return Err(EXPECTED.to_string());
    };
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("{EXPECTED}; no interface name before the ':'"));
    }
    let mut v = [0u64; 16];
    let mut words = rest.split_whitespace();
    for (k, slot) in v.iter_mut().enumerate() {
        let w = words
            .next()
            .ok_or_else(|| format!("{EXPECTED}; found {k} counters"))?;
        *slot = w
            .parse()
            .map_err(|_| format!("{EXPECTED}; counter {} is {w:?}", k + 1))?;
    }
    Ok(NetDevCounters::from_values(name, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n";

    #[test]
    fn reads_the_modern_layout() {
        let text = format!(
            "{HEADER}    lo:    6386      58    0    0    0     0          0         0     6386      58    0    0    0     0       0          0\n  eth0: 66043854    3675    1    2    3     4          5         6   252058    2862    7    8    9    10      11         12\n"
        );
        let p = parse_net_dev(&text, "/proc/net/dev");
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        assert_eq!(p.items.len(), 2);
        let eth0 = &p.items[1];
        assert_eq!(eth0.name, "eth0");
        assert_eq!(
            eth0.values(),
            [
                66043854, 3675, 1, 2, 3, 4, 5, 6, 252058, 2862, 7, 8, 9, 10, 11, 12
            ]
        );
        assert_eq!(
            NetDevCounters::from_values("eth0", eth0.values()),
            eth0.clone()
        );
    }

    #[test]
    fn a_2_6_line_has_no_space_after_the_colon() {
        let p = parse_net_dev(
            "  eth0:1234567890 9876543    0    0    0     0          0         0 987654321 7654321    0    0    0     0       0          0\n",
            "d",
        );
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        assert_eq!(
            (p.items[0].name.as_str(), p.items[0].rx_bytes),
            ("eth0", 1234567890)
        );
    }

    #[test]
    fn another_header_is_skipped_and_bad_lines_are_named() {
        let text = "Interface|                            Receive                                       |                                 Transmit\n\
                    \x20        |            bytes      packets errs   drop fifo frame compressed multicast|            bytes      packets errs   drop fifo colls carrier compressed\n\
                    eth0: 1 2 3\n\
                    : 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n\
                    eth1: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 -16\n\
                    garbage\n\
                    eth2: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n";
        let p = parse_net_dev(text, "/proc/net/dev");
        assert_eq!(p.items.len(), 1, "extra counters are tolerated");
        assert_eq!(p.items[0].tx_compressed, 16);
        let lines: Vec<usize> = p.rejected.iter().map(|r| r.line_no).collect();
        assert_eq!(lines, vec![3, 4, 5, 6]);
        assert!(p.rejected[0].to_string().contains("found 3 counters"));
        assert!(p.rejected[2].to_string().contains("counter 16 is \"-16\""));
    }

    #[test]
    fn counters_reach_2_pow_64_minus_1() {
        let max = u64::MAX;
        let p = parse_net_dev(
            &format!(
                "x: {max} 1 0 0 0 0 0 0 0 1 0 0 0 0 0 0\ny: 18446744073709551616 1 0 0 0 0 0 0 0 1 0 0 0 0 0 0"
            ),
            "d",
        );
        assert_eq!(p.items[0].rx_bytes, max);
        assert_eq!(p.rejected.len(), 1, "2^64 does not fit");
    }
}

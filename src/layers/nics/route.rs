//! `/proc/net/route`: the IPv4 routes and the interface of each. strata
//! uses the connected routes (no gateway) to find which interface holds a
//! local address, such as the LOCAL of a dNFS channel.
//!
//! ```text
//! (tab-separated; tabs shown as spaces)
//! Iface  Destination  Gateway   Flags  RefCnt  Use  Metric  Mask    MTU  Window  IRTT
//! ens3f0  000AA8C0  00000000  0001  0  0  0  00FFFFFF  0  0  0
//! ```
//! Addresses are the kernel's 32-bit values printed in hex in host byte
//! order (little-endian on x86: 000AA8C0 is 192.168.10.0).

use crate::core::error::ParseError;
use crate::core::parse::Parsed;
use std::net::Ipv4Addr;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Route {
    pub iface: String,
    pub dest: Ipv4Addr,
    pub gateway: Ipv4Addr,
    pub mask: Ipv4Addr,
}

fn addr(hex: &str) -> Option<Ipv4Addr> {
    let v = u32::from_str_radix(hex, 16).ok()?;
    // printed from the kernel's network-order word read in little-endian
    Some(Ipv4Addr::from(v.to_le_bytes()))
}

pub fn parse_route(text: &str) -> Parsed<Route> {
    let mut out = Parsed {
        items: Vec::new(),
        rejected: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if i == 0 || f.is_empty() {
            continue;
        }
        let r = (f.len() >= 8)
            .then(|| {
                Some(Route {
                    iface: f[0].to_string(),
                    dest: addr(f[1])?,
                    gateway: addr(f[2])?,
                    mask: addr(f[7])?,
                })
            })
            .flatten();
        match r {
            Some(r) => out.items.push(r),
            None => out.rejected.push(ParseError::new(
                "/proc/net/route",
                i + 1,
                line,
                "Iface Destination Gateway Flags RefCnt Use Metric Mask ...",
            )),
        }
    }
    out
}

/// The interface of the connected route (no gateway) with the longest
/// prefix that holds `local`; `None` for an address no local subnet holds
/// or one that is not IPv4.
pub fn iface_of<'a>(local: &str, routes: &'a [Route]) -> Option<&'a str> {
    let ip: Ipv4Addr = local.trim().parse().ok()?;
    let ip = u32::from(ip);
    routes
        .iter()
        .filter(|r| r.gateway.is_unspecified() && u32::from(r.mask) != 0)
        .filter(|r| ip & u32::from(r.mask) == u32::from(r.dest) & u32::from(r.mask))
        .max_by_key(|r| u32::from(r.mask).count_ones())
        .map(|r| r.iface.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTE: &str = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n\
eth0\t00000000\t0102A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n\
eth0\t0002A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n\
ens3f0\t000AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n\
ens3f1\t000BA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n\
bond1\t800BA8C0\t00000000\t0001\t0\t0\t0\t80FFFFFF\t0\t0\t0\n\
bad line\n";

    #[test]
    fn connected_routes_map_local_addresses() {
        let p = parse_route(ROUTE);
        assert_eq!(p.items.len(), 5);
        assert_eq!(p.rejected.len(), 1);
        assert_eq!(p.items[2].dest, Ipv4Addr::new(192, 168, 10, 0));
        assert_eq!(iface_of("192.168.10.1", &p.items), Some("ens3f0"));
        assert_eq!(iface_of("192.168.11.1", &p.items), Some("ens3f1"));
        // the /25 wins over the /24
        assert_eq!(iface_of("192.168.11.200", &p.items), Some("bond1"));
        // the default route is no local subnet
        assert_eq!(iface_of("10.9.9.9", &p.items), None);
        assert_eq!(iface_of("fe80::1", &p.items), None);
    }
}

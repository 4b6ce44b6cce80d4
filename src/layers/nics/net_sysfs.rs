//! Attributes of `/sys/class/net/IF/` (Documentation/ABI/testing/
//! sysfs-class-net), each the first line of a small file.

use serde::{Deserialize, Serialize};

/// Link duplex: sysfs `duplex`, bonding's `Duplex:`, ethtool's setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Duplex {
    Full,
    Half,
    #[default]
    Unknown,
}

impl Duplex {
    pub fn label(self) -> &'static str {
        match self {
            Duplex::Full => "full",
            Duplex::Half => "half",
            Duplex::Unknown => "unknown",
        }
    }
}

/// `duplex` (`full`, `half`, `unknown`) or bonding's `Duplex: full`.
pub fn parse_duplex(text: &str) -> Duplex {
    match text.trim().to_ascii_lowercase().as_str() {
        "full" => Duplex::Full,
        "half" => Duplex::Half,
        _ => Duplex::Unknown,
    }
}

/// `speed` in Mbit/s. Unknown (`None`) when the driver says so: -1 today
/// (SPEED_UNKNOWN), 65535 or 4294967295 from drivers that stored -1 in a
/// 16- or 32-bit field, and 0, which no link runs at. A read error (EINVAL
/// for a link that is down or a driver without ethtool) never gets here.
pub fn parse_speed_mbps(text: &str) -> Option<u32> {
    let v: i64 = text.trim().parse().ok()?;
    match v {
        1..=65534 | 65536..=4294967294 => u32::try_from(v).ok(),
        _ => None,
    }
}

/// RFC 2863 operational state, as `operstate` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OperState {
    Up,
    Down,
    LowerLayerDown,
    Dormant,
    Testing,
    NotPresent,
    #[default]
    Unknown,
}

impl OperState {
    pub fn label(self) -> &'static str {
        match self {
            OperState::Up => "up",
            OperState::Down => "down",
            OperState::LowerLayerDown => "lowerlayerdown",
            OperState::Dormant => "dormant",
            OperState::Testing => "testing",
            OperState::NotPresent => "notpresent",
            OperState::Unknown => "unknown",
        }
    }
}

pub fn parse_operstate(text: &str) -> OperState {
    match text.trim() {
        "up" => OperState::Up,
        "down" => OperState::Down,
        "lowerlayerdown" => OperState::LowerLayerDown,
        "dormant" => OperState::Dormant,
        "testing" => OperState::Testing,
        "notpresent" => OperState::NotPresent,
        _ => OperState::Unknown,
    }
}

/// The value of `KEY=value` in a `uevent` file, such as DEVTYPE.
pub fn uevent_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds() {
        assert_eq!(parse_speed_mbps("25000\n"), Some(25000));
        assert_eq!(parse_speed_mbps("100"), Some(100));
        for unknown in ["-1", "0", "65535", "4294967295", "", "fast", "99999999999"] {
            assert_eq!(parse_speed_mbps(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn duplex_operstate_uevent() {
        assert_eq!(parse_duplex("full\n"), Duplex::Full);
        assert_eq!(parse_duplex("Half"), Duplex::Half);
        assert_eq!(parse_duplex("Unknown"), Duplex::Unknown);
        assert_eq!(
            parse_operstate("lowerlayerdown\n"),
            OperState::LowerLayerDown
        );
        assert_eq!(parse_operstate("???"), OperState::Unknown);
        let uevent = "DEVTYPE=vlan\nINTERFACE=bond0.100\nIFINDEX=9\n";
        assert_eq!(uevent_value(uevent, "DEVTYPE"), Some("vlan"));
        assert_eq!(uevent_value(uevent, "DRIVER"), None);
    }
}

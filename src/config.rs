//! The user's settings: `~/.config/strata/config.toml` or `--config FILE`.

use crate::model::disk::ColKind;

/// Throughput units of the disks panel and `batch disks`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Units {
    #[default]
    KB,
    MB,
}

/// How alarming a figure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Normal,
    Warn,
    Crit,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds {
    pub util_warn: f64,
    pub util_crit: f64,
    pub await_warn_ms: f64,
    pub await_crit_ms: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            util_warn: 80.0,
            util_crit: 95.0,
            await_warn_ms: 20.0,
            await_crit_ms: 100.0,
        }
    }
}

impl Thresholds {
    pub fn level(&self, kind: ColKind, value: f64) -> Level {
        let (warn, crit) = match kind {
            ColKind::Util => (self.util_warn, self.util_crit),
            ColKind::Await => (self.await_warn_ms, self.await_crit_ms),
            _ => return Level::Normal,
        };
        if value >= crit {
            Level::Crit
        } else if value >= warn {
            Level::Warn
        } else {
            Level::Normal
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Seconds between samples.
    pub interval: Option<f64>,
    pub theme: Option<String>,
    /// Seconds of history kept for charts.
    pub history_secs: u64,
    pub units: Units,
    pub show_partitions: bool,
    /// Also show loop, ram and zram devices.
    pub show_all_devices: bool,
    pub thresholds: Thresholds,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            interval: None,
            theme: None,
            history_secs: 3600,
            units: Units::KB,
            show_partitions: false,
            show_all_devices: false,
            thresholds: Thresholds::default(),
        }
    }
}

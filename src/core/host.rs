//! Who the monitored host is and what strata itself costs: the source reads
//! them, the app shows them and a recording keeps them.

#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HostInfo {
    pub hostname: String,
    pub kernel: String,
}

/// strata's own cost, shown in the header.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SelfUsage {
    pub cpu_pct: Option<f64>,
    pub rss_bytes: Option<u64>,
}

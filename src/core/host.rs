//! Who the monitored host is and what strata itself costs: read here, shown
//! by the app and kept by a recording.

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
    /// CPU time since strata started, for `/metrics`; a recording does
    /// not keep it (the header shows the share above).
    #[serde(skip)]
    pub cpu_seconds: Option<f64>,
}

use super::rootfs::RootFs;

pub fn host_info(fs: &RootFs) -> HostInfo {
    HostInfo {
        hostname: fs
            .attr("/proc/sys/kernel/hostname")
            .unwrap_or_else(|| "?".into()),
        kernel: fs
            .attr("/proc/sys/kernel/osrelease")
            .unwrap_or_else(|| "?".into()),
    }
}

/// strata's own CPU time and resident memory, from /proc/self/stat (always
/// the real /proc: it is this process, whatever `--root` says).
#[derive(Debug, Default)]
pub struct SelfMeter {
    last: Option<(u64, std::time::Instant)>,
    /// Keeps /proc/self/stat open: procfs's `Process::myself` opened the
    /// directory and the file again every second, nine system calls.
    proc: RootFs,
}

impl SelfMeter {
    pub fn read(&mut self) -> SelfUsage {
        use procfs::FromRead;
        let stat = self
            .proc
            .read("/proc/self/stat")
            .ok()
            .and_then(|text| procfs::process::Stat::from_read(text.as_bytes()).ok());
        let Some(stat) = stat else {
            return SelfUsage::default();
        };
        let ticks = stat.utime + stat.stime;
        let now = std::time::Instant::now();
        let tps = procfs::ticks_per_second() as f64;
        let cpu_pct = self.last.and_then(|(t0, i0)| {
            let secs = now.duration_since(i0).as_secs_f64();
            (secs > 0.0 && tps > 0.0).then(|| ticks.saturating_sub(t0) as f64 / tps / secs * 100.0)
        });
        self.last = Some((ticks, now));
        SelfUsage {
            cpu_pct,
            rss_bytes: stat.rss.checked_mul(procfs::page_size()),
            cpu_seconds: (tps > 0.0).then(|| ticks as f64 / tps),
        }
    }
}

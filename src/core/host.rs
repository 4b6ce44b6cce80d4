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
        let stat = self
            .proc
            .read("/proc/self/stat")
            .ok()
            .and_then(|text| times_and_rss(&text));
        let Some((ticks, rss)) = stat else {
            return SelfUsage::default();
        };
        let now = std::time::Instant::now();
        let tps = procfs::ticks_per_second() as f64;
        let cpu_pct = self.last.and_then(|(t0, i0)| {
            let secs = now.duration_since(i0).as_secs_f64();
            (secs > 0.0 && tps > 0.0).then(|| ticks.saturating_sub(t0) as f64 / tps / secs * 100.0)
        });
        self.last = Some((ticks, now));
        SelfUsage {
            cpu_pct,
            rss_bytes: rss.checked_mul(procfs::page_size()),
            cpu_seconds: (tps > 0.0).then(|| ticks as f64 / tps),
        }
    }
}

/// utime + stime (clock ticks) and rss (pages) from a /proc/PID/stat line:
/// the three fields used, where procfs's parse of all 52 (a String for the
/// name, a lossy copy of the line) was a third of this meter's cost.
fn times_and_rss(stat: &str) -> Option<(u64, u64)> {
    // The name is in brackets and may hold anything, brackets too: the
    // fields start after the last one, at the third (the state).
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_ascii_whitespace();
    let utime: u64 = fields.nth(14 - 3)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    let rss: u64 = fields.nth(24 - 16)?.parse().ok()?;
    Some((utime + stime, rss))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same figures as procfs's full parse, of this process and of a
    /// name with brackets and spaces in it.
    #[test]
    fn times_and_rss_are_procfs_own() {
        use procfs::FromRead;
        let own = std::fs::read_to_string("/proc/self/stat").unwrap();
        let odd = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 811 0 0 0 17 5 0 0 20 0 1 0 \
                   3300 10317824 1234 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 \
                   0 0 0 0 0 0 0 0 0\n";
        for line in [own.as_str(), odd] {
            let full = procfs::process::Stat::from_read(line.as_bytes()).unwrap();
            assert_eq!(
                times_and_rss(line),
                Some((full.utime + full.stime, full.rss)),
                "{line}"
            );
        }
        assert_eq!(times_and_rss(odd), Some((22, 1234)));
        assert_eq!(times_and_rss("1 (x) S 1 2"), None);
        assert_eq!(times_and_rss(""), None);
    }
}

//! The host layers' checks: the kernel, diskstats' layout, the page cache
//! and how file residency is measured, NFS mounts, NICs and bonds, CPU and
//! pressure. Each reads through the layer's own source over a `RootFs`
//! (this host, a `--root` tree, or a node's frames), so that a line says
//! what the monitor itself would make of the host; the `*_line` functions
//! are pure.

use super::{CheckLine, Status};
use crate::core::rootfs::RootFs;
use crate::layers::cache::residency::Method;
use crate::layers::cache::source::{CacheSample, CacheSource};
use crate::layers::cpu::source::{CpuSample, CpuSource, PsiMissing, PsiRead};
use crate::layers::disks::diskstats::parse_diskstats;
use crate::layers::nfs::source::{NfsSample, NfsSource};
use crate::layers::nics::bonding::{BondInfo, MiiStatus};
use crate::layers::nics::source::{NicSample, NicSource};

/// Every layer line of one host, in the monitor's order.
pub fn host_lines(fs: &RootFs, target: &str) -> Vec<CheckLine> {
    let now = crate::core::clock::now_ms();
    let release = fs.attr("/proc/sys/kernel/osrelease");
    let nics = NicSource::new(fs.clone())
        .sample(now)
        .map_err(|e| e.to_string());
    let cpu = CpuSource::new(fs.clone())
        .sample(now)
        .map_err(|e| e.to_string());
    vec![
        kernel_line(
            target,
            release.as_deref(),
            fs.attr("/proc/sys/kernel/hostname").as_deref(),
        ),
        disks_line(
            target,
            fs.read("/proc/diskstats").map_err(|e| e.to_string()),
            fs.exists("/sys/block").then(|| fs.list("/sys/block").len()),
        ),
        cache_line(
            target,
            CacheSource::new(fs.clone(), Vec::new())
                .sample(now)
                .map_err(|e| e.to_string()),
        ),
        nfs_line(
            target,
            NfsSource::new(fs.clone())
                .sample(now)
                .map_err(|e| e.to_string()),
        ),
        nics_line(target, &nics, fs.exists("/sys/class/net")),
        bonding_line(
            target,
            nics.as_ref().map(|s| s.bonds.as_slice()).unwrap_or(&[]),
            fs.exists("/proc/net/bonding"),
        ),
        cpu_line(target, &cpu),
        pressure_line(
            target,
            cpu.as_ref().ok().map(|s| &*s.psi),
            release.as_deref(),
        ),
    ]
}

/// The kernel's release as (major, minor), when it starts with them.
pub fn release_version(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

pub fn kernel_line(target: &str, release: Option<&str>, hostname: Option<&str>) -> CheckLine {
    let host = hostname.unwrap_or("?");
    match release {
        Some(r) => CheckLine::ok(target, "kernel", format!("Linux {r}, host name {host}")),
        None => CheckLine::new(
            target,
            "kernel",
            Status::Warn,
            format!(
                "no /proc/sys/kernel/osrelease: the kernel's release is unknown (host name {host})"
            ),
        ),
    }
}

/// What a diskstats line of `fields` words is, by the kernels that print it.
fn layout(fields: usize) -> String {
    match fields {
        14 => "11 counters: a kernel before 4.18, no discard or flush counters".into(),
        18 => "15 counters: discard, as 4.18 to 5.4 print them, no flush counters".into(),
        20 => "17 counters: discard and flush, 5.5 and later".into(),
        n if n > 20 => format!(
            "{} counters: a kernel newer than strata, whose extra counters are ignored",
            n - 3
        ),
        n => format!("{} counters", n.saturating_sub(3)),
    }
}

/// /proc/diskstats as read (or why not) and how many entries /sys/block
/// lists (`None`: no /sys/block).
pub fn disks_line(
    target: &str,
    text: Result<String, String>,
    sys_block: Option<usize>,
) -> CheckLine {
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            return CheckLine::new(target, "disks", Status::Fail, e).with_fix(
                "strata reads /proc/diskstats: /proc must be mounted (with --root DIR, DIR/proc/diskstats)",
            );
        }
    };
    let parsed = parse_diskstats(&text, "/proc/diskstats");
    // Lines by their number of words: one layout per kernel, and the
    // 7-word partitions of kernels before 2.6.25.
    let mut counts = std::collections::BTreeMap::<usize, usize>::new();
    for line in text.lines() {
        let n = line.split_whitespace().count();
        if n > 0 {
            *counts.entry(n).or_default() += 1;
        }
    }
    let main = counts
        .iter()
        .filter(|(n, _)| **n != 7)
        .max_by_key(|(_, c)| **c)
        .map(|(n, _)| *n);
    let Some(fields) = main.filter(|_| !parsed.items.is_empty()) else {
        let why = parsed
            .rejected
            .first()
            .map(|e| format!(": {e}"))
            .unwrap_or_default();
        return CheckLine::new(
            target,
            "disks",
            Status::Fail,
            format!("/proc/diskstats lists no device strata can read{why}"),
        )
        .with_fix("send this output with the file (cat /proc/diskstats) to the maintainers");
    };
    let mut what = format!(
        "/proc/diskstats: {fields} fields a line ({}), {} devices",
        layout(fields),
        parsed.items.len()
    );
    if let Some(old) = counts.get(&7) {
        what.push_str(&format!(
            ", {old} old-style partition lines skipped (as iostat does)"
        ));
    }
    if let Some(n) = sys_block {
        what.push_str(&format!("; /sys/block: {n} whole devices"));
    }
    if let Some(first) = parsed.rejected.first() {
        return CheckLine::new(
            target,
            "disks",
            Status::Warn,
            format!(
                "{what}; {} lines not read, the first: {first}",
                parsed.rejected.len()
            ),
        )
        .with_fix("those devices are left out; send this output to the maintainers");
    }
    if sys_block.is_none() {
        return CheckLine::new(
            target,
            "disks",
            Status::Warn,
            format!("{what}; no /sys/block: devices are not classed (HDD, SSD, NVMe, dm) nor partitions tied to their disks"),
        )
        .with_fix("mount sysfs on /sys (with --root DIR, DIR/sys/block)");
    }
    CheckLine::ok(target, "disks", what)
}

pub fn cache_line(target: &str, sample: Result<CacheSample, String>) -> CheckLine {
    match sample {
        Err(e) => CheckLine::new(target, "cache", Status::Fail, e).with_fix(
            "strata reads /proc/meminfo and /proc/vmstat: /proc must be mounted (with --root DIR, under DIR)",
        ),
        Ok(s) if !s.rejected.is_empty() => CheckLine::new(
            target,
            "cache",
            Status::Warn,
            format!(
                "/proc/meminfo and /proc/vmstat read; {} lines not read, the first: {}",
                s.rejected.len(),
                s.rejected[0]
            ),
        )
        .with_fix("those figures show –; send this output to the maintainers"),
        Ok(_) => CheckLine::ok(target, "cache", "/proc/meminfo and /proc/vmstat read"),
    }
}

/// How watched files' residency is measured here. `probe`: what
/// cachestat(2) answered on this machine (`None` for a tree, whose
/// kernel is known only by its release); `files`: the `--cache-files`
/// sample when patterns were given.
pub fn residency_line(
    target: &str,
    release: Option<&str>,
    probe: Option<Result<(), std::io::Error>>,
    files: Option<Result<CacheSample, String>>,
) -> CheckLine {
    let kernel = release.unwrap_or("of unknown release");
    let fallback = format!(
        "mincore(2) fallback: kernel {kernel} has no cachestat(2) (Linux 6.5); it reads files this user owns or may write (any as root)"
    );
    let (status, mut what) = match probe {
        Some(Ok(())) => (Status::Ok, "cachestat(2): this kernel has it".to_string()),
        Some(Err(e)) if e.raw_os_error() == Some(libc::ENOSYS) => (Status::Ok, fallback),
        Some(Err(e)) => (
            Status::Warn,
            format!("cachestat(2) refused a probe of strata's own binary ({e}); files are measured by mincore(2) where cachestat refuses"),
        ),
        None => match release.and_then(release_version) {
            Some(v) if v >= (6, 5) => (
                Status::Ok,
                format!("cachestat(2): kernel {kernel} has it (6.5 and later)"),
            ),
            Some(_) => (Status::Ok, fallback),
            None => (
                Status::Warn,
                "the kernel's release is unknown: cachestat(2) if it is 6.5 or later, else the mincore(2) fallback".to_string(),
            ),
        },
    };
    let Some(files) = files else {
        what.push_str("; no --cache-files given");
        return CheckLine::new(target, "residency", status, what);
    };
    let s = match files {
        Ok(s) => s,
        Err(e) => {
            return CheckLine::new(target, "residency", Status::Fail, format!("{what}; {e}"))
                .with_fix("strata reads /proc/meminfo with the files");
        }
    };
    let measured = s.files.iter().filter(|f| f.result.is_ok()).count();
    let failed: Vec<String> = s
        .files
        .iter()
        .filter_map(|f| f.result.as_ref().err().map(|e| format!("{}: {e}", f.path)))
        .collect();
    match s.method.map(Method::label) {
        Some(method) if measured > 0 => what.push_str(&format!(
            "; --cache-files: {measured} files measured by {method}"
        )),
        _ => what.push_str("; --cache-files: no file measured"),
    }
    if failed.is_empty() {
        return CheckLine::new(target, "residency", status, what);
    }
    what.push_str(&format!(", {} not: {}", failed.len(), failed[0]));
    let status = if measured == 0 {
        Status::Fail
    } else {
        Status::Warn
    };
    CheckLine::new(target, "residency", status, what)
        .with_fix("check each --cache-files pattern against the files here, and that this user owns or may write them")
}

/// The residency line of a directory: cachestat(2) probed on this machine
/// when the directory is `/`, the tree's release otherwise.
pub fn residency(fs: &RootFs, target: &str, this_machine: bool, patterns: &[String]) -> CheckLine {
    let probe = this_machine.then(|| {
        use std::os::fd::AsFd;
        let exe = std::env::current_exe()?;
        let file = std::fs::File::open(exe)?;
        crate::core::sys::cachestat(file.as_fd()).map(|_| ())
    });
    let files = (!patterns.is_empty()).then(|| {
        CacheSource::new(fs.clone(), patterns.to_vec())
            .sample(crate::core::clock::now_ms())
            .map_err(|e| e.to_string())
    });
    residency_line(
        target,
        fs.attr("/proc/sys/kernel/osrelease").as_deref(),
        probe,
        files,
    )
}

pub fn nfs_line(target: &str, sample: Result<NfsSample, String>) -> CheckLine {
    let s = match sample {
        Ok(s) => s,
        Err(e) => {
            return CheckLine::new(target, "nfs", Status::Fail, e).with_fix(
                "strata reads /proc/self/mountstats: /proc must be mounted (with --root DIR, DIR/proc/self/mountstats)",
            );
        }
    };
    let mut what = if s.mounts.is_empty() {
        "no NFS mount in /proc/self/mountstats (the NFS panel stays empty; dNFS does not use the kernel's client)".to_string()
    } else {
        let shown: Vec<String> = s
            .mounts
            .iter()
            .take(3)
            .map(|m| {
                let vers = m.statvers.as_deref().unwrap_or("?");
                format!(
                    "{} on {} ({}, statvers={vers})",
                    m.export,
                    m.mount_points.join(" "),
                    m.fstype
                )
            })
            .collect();
        let more = s.mounts.len().saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let n = s.mounts.len();
        let exports = if n == 1 { "export" } else { "exports" };
        format!("{n} NFS {exports} mounted: {}{more}", shown.join(", "))
    };
    if let Some(first) = s.rejected.first() {
        what.push_str(&format!(
            "; {} lines not read, the first: {first}",
            s.rejected.len()
        ));
        return CheckLine::new(target, "nfs", Status::Warn, what)
            .with_fix("those counters are left out; send this output to the maintainers");
    }
    CheckLine::ok(target, "nfs", what)
}

pub fn nics_line(
    target: &str,
    sample: &Result<NicSample, String>,
    sys_class_net: bool,
) -> CheckLine {
    let s = match sample {
        Ok(s) => s,
        Err(e) => {
            return CheckLine::new(target, "nics", Status::Fail, e.clone()).with_fix(
                "strata reads /proc/net/dev: /proc must be mounted (with --root DIR, DIR/proc/net/dev)",
            );
        }
    };
    let names: Vec<&str> = s.nics.iter().map(|n| n.counters.name.as_str()).collect();
    let mut what = format!(
        "/proc/net/dev: {} interfaces ({})",
        names.len(),
        names.join(", ")
    );
    if let Some(first) = s.rejected.first() {
        what.push_str(&format!(
            "; {} lines not read, the first: {first}",
            s.rejected.len()
        ));
        return CheckLine::new(target, "nics", Status::Warn, what)
            .with_fix("those interfaces are left out; send this output to the maintainers");
    }
    if !sys_class_net {
        what.push_str("; no /sys/class/net: no link speed, %util, driver or bond membership");
        return CheckLine::new(target, "nics", Status::Warn, what)
            .with_fix("mount sysfs on /sys (with --root DIR, DIR/sys/class/net)");
    }
    CheckLine::ok(target, "nics", what)
}

/// The bonds /proc/net/bonding listed; `listed`: whether the directory is
/// there (the bonding driver is loaded).
pub fn bonding_line(target: &str, bonds: &[BondInfo], listed: bool) -> CheckLine {
    if bonds.is_empty() {
        let what = if listed {
            "the bonding driver is loaded and holds no bond"
        } else {
            "no bond: no /proc/net/bonding (the bonding driver is not loaded)"
        };
        return CheckLine::ok(target, "bonding", what);
    }
    let each: Vec<String> = bonds
        .iter()
        .map(|b| {
            let mode = b.mode_text.as_deref().unwrap_or("mode unknown");
            let up = b
                .slaves
                .iter()
                .filter(|s| s.mii_status == Some(MiiStatus::Up))
                .count();
            let active = b
                .active_slave
                .as_deref()
                .map(|a| format!(", active {a}"))
                .unwrap_or_default();
            let driver = b.driver_version.as_deref().unwrap_or("?");
            format!(
                "{}: {mode}{active}, {} slaves ({up} up), driver {driver}",
                b.name,
                b.slaves.len()
            )
        })
        .collect();
    CheckLine::ok(target, "bonding", each.join("; "))
}

pub fn cpu_line(target: &str, sample: &Result<CpuSample, String>) -> CheckLine {
    match sample {
        Err(e) => CheckLine::new(target, "cpu", Status::Fail, e.clone()).with_fix(
            "strata reads /proc/stat and /proc/uptime: /proc must be mounted (with --root DIR, under DIR)",
        ),
        Ok(s) => {
            let load = if s.loadavg.is_some() {
                "/proc/loadavg read"
            } else {
                "no /proc/loadavg"
            };
            CheckLine::ok(
                target,
                "cpu",
                format!("/proc/stat: {} CPUs online; {load}", s.stat.cpus.len()),
            )
        }
    }
}

/// Pressure (PSI) by the CPU source's reading of the three files, and the
/// kernel's release for why they are missing.
pub fn pressure_line(target: &str, psi: Option<&[PsiRead; 3]>, release: Option<&str>) -> CheckLine {
    let Some(psi) = psi else {
        return CheckLine::new(
            target,
            "pressure",
            Status::Warn,
            "not read: the CPU layer could not be (see the cpu line)",
        );
    };
    let missing = psi.iter().find_map(|r| match r {
        PsiRead::Missing(m) => Some(m),
        PsiRead::Read(_) => None,
    });
    let Some(m) = missing else {
        return CheckLine::ok(
            target,
            "pressure",
            "/proc/pressure/cpu, io and memory read (PSI is on)",
        );
    };
    let kernel = release.unwrap_or("of unknown release");
    let old = release
        .and_then(release_version)
        .is_some_and(|v| v < (4, 20));
    let (what, fix) = match m {
        PsiMissing::NoFile if old => (
            format!(
                "no /proc/pressure: kernel {kernel} is older than 4.20, which brought PSI; the CPU panel shows load and run queue without it"
            ),
            "none for the other layers; PSI needs a 4.20 or later kernel (UEK6 and later)"
                .to_string(),
        ),
        PsiMissing::NoFile => (
            format!("no /proc/pressure: kernel {kernel} is built without CONFIG_PSI"),
            "none for the other layers; PSI needs a kernel built with CONFIG_PSI".to_string(),
        ),
        PsiMissing::Off => (
            format!(
                "{m}: the files refuse reads (booted with psi=0, or built with CONFIG_PSI_DEFAULT_DISABLED)"
            ),
            "boot with psi=1 (grubby --update-kernel=ALL --args=psi=1, then reboot)".to_string(),
        ),
        PsiMissing::Unreadable(_) => (
            m.to_string(),
            "send this output to the maintainers".to_string(),
        ),
    };
    CheckLine::new(target, "pressure", Status::Warn, what).with_fix(fix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_read_as_major_and_minor() {
        assert_eq!(release_version("3.10.0-1160.el7.x86_64"), Some((3, 10)));
        assert_eq!(
            release_version("5.15.0-200.131.27.el9uek.x86_64"),
            Some((5, 15))
        );
        assert_eq!(release_version("6.18.44"), Some((6, 18)));
        assert_eq!(release_version("?"), None);
    }

    #[test]
    fn diskstats_layouts_are_named_by_their_field_count() {
        let line = |n: usize| {
            let fields: Vec<String> = (0..n - 3).map(|i| i.to_string()).collect();
            format!("   8       0 sda {}\n", fields.join(" "))
        };
        for (n, says) in [
            (14, "14 fields a line (11 counters: a kernel before 4.18"),
            (18, "18 fields a line (15 counters: discard, as 4.18 to 5.4"),
            (20, "20 fields a line (17 counters: discard and flush"),
        ] {
            let l = disks_line("h", Ok(line(n)), Some(1));
            assert_eq!(l.status, Status::Ok, "{l:?}");
            assert!(l.what.contains(says), "{l:?}");
            assert!(
                l.what.ends_with("1 devices; /sys/block: 1 whole devices"),
                "{l:?}"
            );
        }
        let bad = disks_line("h", Ok("8 0 sda 1 2 3\n".into()), Some(0));
        assert_eq!(bad.status, Status::Fail);
        assert!(bad.what.contains("line 1"), "{bad:?}");
        let no_sys = disks_line("h", Ok(line(14)), None);
        assert_eq!(no_sys.status, Status::Warn);
        assert!(no_sys.fix.unwrap().contains("sysfs"));
        let gone = disks_line(
            "h",
            Err("cannot read /x/proc/diskstats: No such file".into()),
            None,
        );
        assert_eq!(gone.status, Status::Fail);
    }

    /// The files of a psi=0 boot exist and every read fails with
    /// EOPNOTSUPP, which no fixture tree can hold.
    #[test]
    fn pressure_says_why_it_is_missing_and_what_turns_it_on() {
        let off = [0, 1, 2].map(|_| PsiRead::Missing(PsiMissing::Off));
        let l = pressure_line("h", Some(&off), Some("4.18.0-553.el8_10.x86_64"));
        assert_eq!(l.status, Status::Warn);
        assert!(l.what.contains("PSI is off"), "{l:?}");
        assert_eq!(
            l.fix.as_deref(),
            Some("boot with psi=1 (grubby --update-kernel=ALL --args=psi=1, then reboot)")
        );
        let none = [0, 1, 2].map(|_| PsiRead::Missing(PsiMissing::NoFile));
        let l = pressure_line("h", Some(&none), Some("3.10.0-1160.el7.x86_64"));
        assert!(l.what.contains("older than 4.20"), "{l:?}");
        let l = pressure_line("h", Some(&none), Some("5.4.17"));
        assert!(l.what.contains("without CONFIG_PSI"), "{l:?}");
    }

    #[test]
    fn residency_follows_the_probe_or_the_release() {
        let enosys = std::io::Error::from_raw_os_error(libc::ENOSYS);
        let l = residency_line("h", Some("5.15.0"), Some(Err(enosys)), None);
        assert_eq!(l.status, Status::Ok);
        assert!(
            l.what
                .starts_with("mincore(2) fallback: kernel 5.15.0 has no cachestat(2)"),
            "{l:?}"
        );
        let l = residency_line("h", Some("6.18.44"), Some(Ok(())), None);
        assert!(
            l.what.starts_with("cachestat(2): this kernel has it"),
            "{l:?}"
        );
        let l = residency_line("h", Some("6.5.0"), None, None);
        assert!(
            l.what.starts_with("cachestat(2): kernel 6.5.0 has it"),
            "{l:?}"
        );
        let l = residency_line("h", None, None, None);
        assert_eq!(l.status, Status::Warn);
    }
}

//! Reads a host's CPU counters, load and pressure through its root file
//! system: /proc/uptime, /proc/stat, /proc/loadavg, /proc/pressure/* and
//! the swap counters of /proc/vmstat.

use super::loadavg::{LoadAvg, parse_loadavg};
use super::pressure::{Psi, parse_psi};
use super::stat::{ProcStat, parse_stat};
use crate::core::error::{ParseError, SourceError};
use crate::core::rootfs::RootFs;
use crate::core::uptime::parse_uptime_cs;
use crate::layers::cache::vmstat::VMSTAT;

/// Why a host has no pressure figures for a resource.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PsiMissing {
    /// No /proc/pressure: a kernel before 4.20, or built without CONFIG_PSI.
    NoFile,
    /// The file is there and refuses reads: PSI is off (psi=0 on the
    /// kernel's command line, the default of some distribution kernels).
    Off,
    /// The file could not be read or parsed: the error as it read.
    Unreadable(String),
}

impl std::fmt::Display for PsiMissing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PsiMissing::NoFile => write!(
                f,
                "not available: no /proc/pressure (a kernel before 4.20, or without CONFIG_PSI)"
            ),
            PsiMissing::Off => {
                write!(
                    f,
                    "not available: PSI is off (boot with psi=1 to turn it on)"
                )
            }
            PsiMissing::Unreadable(e) => write!(f, "not available: {e}"),
        }
    }
}

/// One resource's pressure file as read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PsiRead {
    Read(Psi),
    Missing(PsiMissing),
}

/// One reading of a host's CPU layer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CpuSample {
    /// /proc/uptime in centiseconds, read just before the counters.
    pub uptime_cs: u64,
    /// Wall clock of the reading, ms since the Unix epoch.
    pub wall_ms: i64,
    /// (Boxed, as `psi`: most of a sample.)
    pub stat: Box<ProcStat>,
    /// `None` when /proc/loadavg could not be read (see `rejected`).
    pub loadavg: Option<LoadAvg>,
    /// cpu, io and memory, in [`super::model::Resource`] order.
    /// (Boxed: the array is most of a sample, which travels in an enum of
    /// every layer's.)
    pub psi: Box<[PsiRead; 3]>,
    /// pswpin and pswpout of /proc/vmstat: pages swapped in and out.
    pub swap: Option<(u64, u64)>,
    /// Lines of /proc/loadavg and /proc/vmstat that could not be read.
    pub rejected: Vec<ParseError>,
}

/// Reads the CPU layer under a root directory, or a node's frames.
pub struct CpuSource {
    fs: RootFs,
}

/// The files a sample reads, for a node's sampler to send.
pub const FILES: [&str; 7] = [
    "/proc/uptime",
    "/proc/stat",
    "/proc/loadavg",
    "/proc/pressure/cpu",
    "/proc/pressure/io",
    "/proc/pressure/memory",
    "/proc/vmstat",
];

fn psi_read(fs: &RootFs, path: &str) -> PsiRead {
    psi_of(fs.read(path), path)
}

/// What a read of a pressure file gives: the file's figures, or why there
/// are none. (Apart from the read, so that a test can hand it the
/// EOPNOTSUPP of a psi=0 kernel, which no file of a fixture tree gives.)
fn psi_of(read: Result<String, SourceError>, path: &str) -> PsiRead {
    match read {
        Ok(text) => match parse_psi(&text, path) {
            Ok(psi) => PsiRead::Read(psi),
            Err(e) => PsiRead::Missing(PsiMissing::Unreadable(e.to_string())),
        },
        Err(SourceError::Io { err, .. }) if err.kind() == std::io::ErrorKind::NotFound => {
            PsiRead::Missing(PsiMissing::NoFile)
        }
        // psi=0: the files exist and every read fails with EOPNOTSUPP.
        Err(SourceError::Io { err, .. }) if err.kind() == std::io::ErrorKind::Unsupported => {
            PsiRead::Missing(PsiMissing::Off)
        }
        Err(e) => PsiRead::Missing(PsiMissing::Unreadable(e.to_string())),
    }
}

impl CpuSource {
    pub fn new(fs: RootFs) -> Self {
        CpuSource { fs }
    }

    /// /proc/stat and /proc/uptime are the layer: without them there is no
    /// sample. Load, swap and pressure are each unknown on their own.
    pub fn sample(&mut self, wall_ms: i64) -> Result<CpuSample, SourceError> {
        let uptime_cs = parse_uptime_cs(&self.fs.read("/proc/uptime")?, "/proc/uptime")?;
        let stat = parse_stat(&self.fs.read("/proc/stat")?, "/proc/stat")?;
        let mut rejected = Vec::new();
        let loadavg = match self.fs.read("/proc/loadavg") {
            Ok(text) => parse_loadavg(&text, "/proc/loadavg")
                .map_err(|e| rejected.push(e))
                .ok(),
            Err(_) => None,
        };
        let psi = [
            "/proc/pressure/cpu",
            "/proc/pressure/io",
            "/proc/pressure/memory",
        ]
        .map(|p| psi_read(&self.fs, p));
        let psi = Box::new(psi);
        let swap = self.fs.read("/proc/vmstat").ok().and_then(|text| {
            let parsed =
                VMSTAT.parse_keeping(&text, "/proc/vmstat", |n| n == "pswpin" || n == "pswpout");
            rejected.extend(parsed.rejected);
            let get = |name: &str| {
                parsed
                    .items
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| *v)
            };
            Some((get("pswpin")?, get("pswpout")?))
        });
        Ok(CpuSample {
            uptime_cs,
            wall_ms,
            stat: Box::new(stat),
            loadavg,
            psi,
            swap,
            rejected,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::cpu::model::{Pressure, PsiCol, Resource, SysCol, tick};

    fn write(root: &std::path::Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn tree(uptime: &str, stat: &str, io_total: u64) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        write(r, "proc/uptime", uptime);
        write(r, "proc/stat", stat);
        write(r, "proc/loadavg", "1.50 0.75 0.25 3/210 4242\n");
        write(r, "proc/vmstat", "pgpgin 5\npswpin 100\npswpout 40\n");
        write(
            r,
            "proc/pressure/cpu",
            "some avg10=1.00 avg60=0.50 avg300=0.25 total=0\n",
        );
        let io = format!(
            "some avg10=12.34 avg60=5.00 avg300=1.00 total={io_total}\nfull avg10=2.00 avg60=1.00 avg300=0.50 total={}\n",
            io_total / 2
        );
        write(r, "proc/pressure/io", &io);
        write(
            r,
            "proc/pressure/memory",
            "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
        );
        d
    }

    #[test]
    fn a_host_with_psi_gives_every_figure() {
        let a = tree(
            "100.00 1\n",
            "cpu 0 0 0 0\ncpu0 0 0 0 100\nctxt 1000\nintr 50\nprocs_running 2\nprocs_blocked 1\n",
            1_000_000,
        );
        let p = CpuSource::new(RootFs::new(a.path())).sample(0).unwrap();
        let b = tree(
            "102.00 1\n",
            "cpu 0 0 0 0\ncpu0 50 0 0 250\nctxt 3000\nintr 450\nprocs_running 4\nprocs_blocked 3\n",
            1_500_000,
        );
        let mut c = CpuSource::new(RootFs::new(b.path())).sample(0).unwrap();
        c.swap = Some((110, 40));
        let t = tick(&p, &c).unwrap();
        assert_eq!(t.itv_cs, 200);
        assert_eq!(t.sys.get(SysCol::CswchPerS), Some(1000.0));
        assert_eq!(t.sys.get(SysCol::IntrPerS), Some(200.0));
        assert_eq!(t.sys.get(SysCol::PswpinPerS), Some(5.0));
        assert_eq!(t.sys.get(SysCol::Blocked), Some(3.0));
        assert_eq!(t.sys.get(SysCol::Ldavg1), Some(1.5));
        assert_eq!(t.sys.get(SysCol::PlistSz), Some(210.0));
        let Pressure::Known(io) = &t.pressure[Resource::Io as usize] else {
            panic!()
        };
        // 0.5 s stalled in 2 s, and 0.25 s of it all tasks
        assert_eq!(
            (io.get(PsiCol::Some), io.get(PsiCol::Full)),
            (Some(25.0), Some(12.5))
        );
        assert_eq!(io.get(PsiCol::Some10), Some(12.34));
        let Pressure::Known(cpu) = &t.pressure[Resource::Cpu as usize] else {
            panic!()
        };
        assert_eq!(cpu.get(PsiCol::Full), None);
    }

    #[test]
    fn a_kernel_without_psi_says_so_and_keeps_the_rest() {
        let a = tree("100.00 1\n", "cpu0 0 0 0 100\n", 0);
        std::fs::remove_dir_all(a.path().join("proc/pressure")).unwrap();
        std::fs::remove_file(a.path().join("proc/vmstat")).unwrap();
        let s = CpuSource::new(RootFs::new(a.path())).sample(0).unwrap();
        assert_eq!(s.psi[1], PsiRead::Missing(PsiMissing::NoFile));
        assert_eq!(s.swap, None);
        let t = tick(
            &s,
            &CpuSample {
                uptime_cs: s.uptime_cs + 200,
                ..s.clone()
            },
        )
        .unwrap();
        let Pressure::NotAvailable(why) = &t.pressure[1] else {
            panic!()
        };
        assert!(why.starts_with("not available: no /proc/pressure"), "{why}");
        assert_eq!(t.sys.get(SysCol::PswpinPerS), None);
        assert_eq!(t.table.cpus.len(), 1);
    }

    #[test]
    fn a_damaged_stat_is_the_layers_error_and_damaged_extras_are_kept_apart() {
        let a = tree("100.00 1\n", "cpu0 1 2\n", 0);
        let e = CpuSource::new(RootFs::new(a.path())).sample(0).unwrap_err();
        assert!(e.to_string().contains("/proc/stat line 1"), "{e}");
        let b = tree("100.00 1\n", "cpu0 1 2 3 4\n", 0);
        write(b.path(), "proc/loadavg", "junk\n");
        write(b.path(), "proc/pressure/io", "some avg10=x\n");
        let s = CpuSource::new(RootFs::new(b.path())).sample(0).unwrap();
        assert_eq!((s.loadavg, s.rejected.len()), (None, 1));
        assert!(
            matches!(&s.psi[1], PsiRead::Missing(PsiMissing::Unreadable(e)) if e.contains("/proc/pressure/io"))
        );
    }

    /// psi=0: the kernel keeps the files and fails every read with
    /// EOPNOTSUPP (kernel/sched/psi.c `psi_show`), which Rust's std names
    /// `Unsupported`. The figures say PSI is off, never 0.
    #[test]
    fn a_kernel_booted_with_psi_0_says_psi_is_off() {
        let path = "/proc/pressure/io";
        let refused = |errno: i32| {
            psi_of(
                Err(SourceError::Io {
                    path: path.into(),
                    err: std::io::Error::from_raw_os_error(errno),
                }),
                path,
            )
        };
        // EOPNOTSUPP is 95 on Linux's every architecture but parisc's
        let off = refused(95);
        assert_eq!(off, PsiRead::Missing(PsiMissing::Off));
        assert_eq!(refused(2), PsiRead::Missing(PsiMissing::NoFile));
        assert!(matches!(
            refused(13),
            PsiRead::Missing(PsiMissing::Unreadable(e)) if e.contains("/proc/pressure/io")
        ));
        let a = tree("100.00 1\n", "cpu0 0 0 0 100\n", 0);
        let mut s = CpuSource::new(RootFs::new(a.path())).sample(0).unwrap();
        s.psi[Resource::Io as usize] = off;
        let t = tick(
            &s,
            &CpuSample {
                uptime_cs: s.uptime_cs + 200,
                ..s.clone()
            },
        )
        .unwrap();
        let Pressure::NotAvailable(why) = &t.pressure[Resource::Io as usize] else {
            panic!("{:?}", t.pressure)
        };
        assert_eq!(
            why,
            "not available: PSI is off (boot with psi=1 to turn it on)"
        );
        assert!(matches!(
            t.pressure[Resource::Cpu as usize],
            Pressure::Known(_)
        ));
    }

    #[test]
    fn the_clock_going_back_gives_no_tick() {
        let a = tree("100.00 1\n", "cpu0 0 0 0 100\n", 0);
        let s = CpuSource::new(RootFs::new(a.path())).sample(0).unwrap();
        assert!(tick(&s, &s).is_none());
        assert!(
            tick(
                &CpuSample {
                    uptime_cs: 20_000,
                    ..s.clone()
                },
                &s
            )
            .is_none()
        );
    }
}

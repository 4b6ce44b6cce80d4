//! Shared by the screen and end-to-end tests: a host tree under
//! tests/fixtures/host (multipath dm over two SAN paths, LVM on NVMe,
//! partitions, an unused loop device) and deterministic counters of a
//! busy system sampled once a second.
#![allow(dead_code)]

pub mod cells;
pub mod dnfs;
pub mod fidelity;
pub mod kernels;
pub mod layers;
pub mod live_root;
pub mod node_tree;
pub mod procs;
pub mod tmux;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use strata::app::App;
use strata::config::Config;
use strata::core::host::HostInfo;
use strata::core::rootfs::RootFs;
use strata::layers::cache::meminfo::{MEMINFO, MemInfo};
use strata::layers::cache::residency::{Method, Residency};
use strata::layers::cache::source::{CacheFile, CacheSample, FileResidency};
use strata::layers::cache::vmstat::{VMSTAT, VmStat};
use strata::layers::disks::diskstats::parse_diskstats;
use strata::layers::disks::source::{DiskSample, read_catalogue};
use strata::layers::host::HostState;
use strata::layers::nfs::mountstats::parse_mountstats;
use strata::layers::nfs::source::{NfsSample, group_mounts};
use strata::layers::nics::source::{NicSample, NicSource};
use strata::theme::Theme;

pub fn fixture_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host")
}

/// (major, minor, name), then per-second reads and writes, kB per read and
/// per write, ms per read and per write.
type Device = ((u32, u32, &'static str), (u64, u64), (u64, u64), (u64, u64));

const DEVICES: [Device; 10] = [
    ((8, 0, "sda"), (40, 12), (64, 16), (6, 3)),
    ((8, 1, "sda1"), (1, 1), (4, 4), (5, 2)),
    ((8, 2, "sda2"), (39, 11), (64, 16), (6, 3)),
    ((8, 16, "sdb"), (900, 300), (8, 8), (4, 2)),
    ((8, 32, "sdc"), (880, 310), (8, 8), (5, 2)),
    ((259, 0, "nvme0n1"), (12000, 4000), (8, 32), (0, 0)),
    ((259, 1, "nvme0n1p1"), (11990, 3990), (8, 32), (0, 0)),
    ((253, 0, "dm-0"), (1780, 610), (8, 8), (5, 2)),
    ((253, 1, "dm-1"), (11990, 3990), (8, 32), (1, 1)),
    ((7, 0, "loop0"), (0, 0), (0, 0), (0, 0)),
];

/// /proc/diskstats (20 fields) of the fixture host `k` seconds in.
pub fn diskstats_text(k: u64) -> String {
    let mut s = String::new();
    for (i, &((maj, min, name), (r, w), (rkb, wkb), (rms, wms))) in DEVICES.iter().enumerate() {
        // a load that swells and ebbs, different per device
        let wave = |t: u64| 100 + (t * 7 + i as u64 * 13) % 60;
        let sum = |base: u64| (1..=k).map(|t| base * wave(t) / 100).sum::<u64>();
        let (rd, wr) = (sum(r), sum(w));
        let base = 1_000_000 * (i as u64 + 1);
        let (rd_ios, wr_ios) = if r == 0 && w == 0 {
            (0, 0)
        } else {
            (base + rd, base / 2 + wr)
        };
        let rd_sec = rd_ios * rkb * 2;
        let wr_sec = wr_ios * wkb * 2;
        let rd_ticks = (rd_ios * rms + rd / 3) % (1 << 32);
        let wr_ticks = (wr_ios * wms + wr / 5) % (1 << 32);
        let busy = if r + w == 0 {
            0
        } else {
            (k * 1000 * (r + w).min(2000) / 2000 + base / 10) % (1 << 32)
        };
        let queue = (rd_ticks + wr_ticks) % (1 << 32);
        let merges = rd_ios / 10;
        let flush = if name.starts_with("sd") && name.len() == 3 {
            wr_ios / 50
        } else {
            0
        };
        s.push_str(&format!(
            "{maj:4} {min:7} {name} {rd_ios} {merges} {rd_sec} {rd_ticks} {wr_ios} {} {wr_sec} {wr_ticks} 0 {busy} {queue} 0 0 0 0 {flush} {}\n",
            wr_ios / 20,
            flush * 2
        ));
    }
    s
}

/// The fixture host's sample `k` seconds after boot plus 1000 s.
pub fn sample(k: u64) -> DiskSample {
    let parsed = parse_diskstats(&diskstats_text(k), "/proc/diskstats");
    assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
    let names: BTreeSet<String> = parsed.items.iter().map(|d| d.name.clone()).collect();
    DiskSample {
        uptime_cs: 100_000 + k * 100,
        wall_ms: 1_795_000_000_000 + k as i64 * 1000,
        devices: parsed.items,
        rejected: Vec::new(),
        catalogue: Arc::new(read_catalogue(&RootFs::new(fixture_root()), &names)),
    }
}

/// The fixture host's NFS mounts `k` seconds after boot plus 1000 s.
pub fn nfs_sample(k: u64) -> NfsSample {
    let parsed = parse_mountstats(&layers::mountstats_text(k), "/proc/self/mountstats");
    assert!(parsed.rejected.is_empty(), "{:?}", parsed.rejected);
    NfsSample {
        uptime_cs: 100_000 + k * 100,
        wall_ms: 1_795_000_000_000 + k as i64 * 1000,
        mounts: group_mounts(parsed.items, None),
        rejected: Vec::new(),
    }
}

/// The fixture host's IPv4 routes: the filer-facing subnets on ens3f0
/// and bond0, the default route through eth0.
pub const ROUTES: &str = "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n\
eth0\t00000000\t0100000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n\
ens3f0\t000AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n\
bond0\t000BA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";

/// The fixture host's interfaces and bond `k` seconds after boot plus
/// 1000 s, read by the real NicSource: /sys is the fixture tree's
/// sys/class/net (lo, bond0 over eth0 and eth1 at 25000 full, the VLAN
/// bond0.100, ens3f0 at 10000 full, ens3f1 down, the bridge docker0, a
/// veth), /proc holds the generated counters. eth0's link failed once
/// before strata started and never since.
pub fn nic_sample(k: u64) -> NicSample {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::os::unix::fs::symlink(fixture_root().join("sys"), root.join("sys")).unwrap();
    std::fs::create_dir_all(root.join("proc/net/bonding")).unwrap();
    let uptime_cs = 100_000 + k * 100;
    std::fs::write(
        root.join("proc/uptime"),
        format!("{}.{:02} 0.00\n", uptime_cs / 100, uptime_cs % 100),
    )
    .unwrap();
    std::fs::write(root.join("proc/net/dev"), layers::netdev_text(k)).unwrap();
    std::fs::write(root.join("proc/net/bonding/bond0"), layers::bonding_text(1)).unwrap();
    std::fs::write(root.join("proc/net/route"), ROUTES).unwrap();
    let sample = NicSource::new(RootFs::new(root.to_path_buf()))
        .sample(1_795_000_000_000 + k as i64 * 1000)
        .unwrap();
    assert!(sample.rejected.is_empty(), "{:?}", sample.rejected);
    sample
}

/// Watched files of the fixture host: the online redo logs, one being
/// written (dirty pages, growing residency), an archived log read back by
/// RMAN, and a pattern's file that vanished.
fn watched_files(k: u64) -> Vec<CacheFile> {
    let file = |ino, size_bytes, cached, dirty, writeback| {
        Ok(FileResidency {
            dev: 2049,
            ino,
            size_bytes,
            pages: Residency {
                cached,
                dirty: Some(dirty),
                writeback: Some(writeback),
                evicted: Some(0),
                recently_evicted: Some(0),
            },
            scanned_ms: None,
        })
    };
    vec![
        CacheFile {
            path: "/u02/oradata/ORCL/redo01.log".into(),
            result: file(11, 1 << 30, 40_000 + k * 300, 120 + k % 40, k % 9),
        },
        CacheFile {
            path: "/u02/oradata/ORCL/redo02.log".into(),
            result: file(12, 1 << 30, 262_144, 0, 0),
        },
        CacheFile {
            path: "/u03/arch/ORCL_1_4711.arc".into(),
            result: file(13, 512 << 20, 1_000 + k * 900, 0, 0),
        },
        CacheFile {
            path: "/u02/oradata/ORCL/redo03.log".into(),
            result: Err("No such file or directory (os error 2)".into()),
        },
    ]
}

/// The fixture host's page cache `k` seconds after boot plus 1000 s.
pub fn cache_sample(k: u64) -> CacheSample {
    let mem = MEMINFO.parse(&layers::meminfo_text(k), "/proc/meminfo");
    let vm = VMSTAT.parse(&layers::vmstat_text(k), "/proc/vmstat");
    assert!(mem.rejected.is_empty() && vm.rejected.is_empty());
    CacheSample {
        uptime_cs: 100_000 + k * 100,
        wall_ms: 1_795_000_000_000 + k as i64 * 1000,
        meminfo: MemInfo::from_entries(mem.items),
        vmstat: VmStat::from_entries(vm.items),
        rejected: Vec::new(),
        files: watched_files(k),
        method: Some(Method::Cachestat),
        page_size: 4096,
        fincore: None,
    }
}

/// The fixture host db01's app, at 1 s, with `config`, before any sample.
pub fn app_of_config(config: Config) -> App {
    let host = HostInfo {
        hostname: "db01".into(),
        kernel: "5.15.0-301.163.5.el8uek.x86_64".into(),
    };
    App::new(
        config,
        Theme::default(),
        host,
        strata::core::duration::Interval::ONE_SECOND,
    )
}

/// An app that has taken `n` samples of the fixture host.
pub fn app_with(n: u64) -> App {
    let mut app = app_of_config(Config::default());
    for k in 0..n {
        app.local.disks.ingest(&sample(k));
        app.local.nfs.ingest(&nfs_sample(k));
        app.local.cache.ingest(&cache_sample(k));
        app.local.nics.ingest(&nic_sample(k));
    }
    app.now_ms = 1_795_000_000_000 + n as i64 * 1000;
    app
}

/// The app of the recorded sessions: the fixture host db01 watching its
/// online redo logs, with two cells.
pub fn recorded_app() -> App {
    fidelity::host_app(vec![cell_target("cel01"), cell_target("cel02")], 1.0)
}

/// The screen as text, with wall-clock times (local time zone dependent)
/// replaced by placeholders so snapshots are the same in every zone.
pub fn render(app: &mut App, width: u16, height: u16) -> String {
    let backend = ratatui::backend::TestBackend::new(width, height);
    let mut terminal = ratatui::Terminal::new(backend).expect("test backend");
    app.apply_drawn(strata::ui::render(&mut terminal, app).expect("draw"));
    redact_times(&terminal.backend().to_string())
}

pub fn redact_times(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let digit = |j: usize| b.get(j).is_some_and(u8::is_ascii_digit);
    while i < b.len() {
        // YYYY-MM-DD
        if (0..4).all(|d| digit(i + d))
            && b.get(i + 4) == Some(&b'-')
            && digit(i + 5)
            && digit(i + 6)
            && b.get(i + 7) == Some(&b'-')
            && digit(i + 8)
            && digit(i + 9)
        {
            out.push_str("YYYY-MM-DD");
            i += 10;
            continue;
        }
        // HH:MM:SS
        if digit(i)
            && digit(i + 1)
            && b.get(i + 2) == Some(&b':')
            && digit(i + 3)
            && digit(i + 4)
            && b.get(i + 5) == Some(&b':')
            && digit(i + 6)
            && digit(i + 7)
        {
            out.push_str("hh:mm:ss");
            i += 8;
            continue;
        }
        let ch = s[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// A cell of the screen tests: `celladmin@NAME`, on port 22, labelled NAME.
pub fn cell_target(name: &str) -> strata::link::target::HostTarget {
    strata::link::target::HostTarget {
        label: name.into(),
        host: name.into(),
        port: 22,
        user: "celladmin".into(),
        identity: None,
    }
}

/// Database nodes reached over SSH as `oracle`, by `user@host` specs.
pub fn ssh_nodes(specs: &[&str]) -> Vec<strata::link::target::NodeTarget> {
    use strata::link::target::{NodeTarget, parse_ssh_spec};
    specs
        .iter()
        .map(|s| NodeTarget::Remote(parse_ssh_spec(s, "oracle").unwrap()))
        .collect()
}

/// A tree under `root` of `dirs` and `files` (path, text): the /proc a
/// test's `strata --root` reads.
pub fn write_tree(root: &std::path::Path, dirs: &[&str], files: &[(&str, String)]) {
    for d in dirs {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    for (f, text) in files {
        std::fs::write(root.join(f), text).unwrap();
    }
}

/// `strata --root ROOT --interval 0.5 ARGS record --duration 2s` into
/// `dir`/live.strec, its marks' socket in `dir`; the recording, once the
/// run succeeded.
pub fn record_root(dir: &std::path::Path, root: &std::path::Path, args: &[&str]) -> PathBuf {
    let file = dir.join("live.strec");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("--root")
        .arg(root)
        .args(["--interval", "0.5"])
        .args(args)
        .args(["record", "--duration", "2s"])
        .arg(&file)
        .env("STRATA_MARK_DIR", dir.join("marks"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    file
}

/// `strata export ARGS FILE` in UTC and the C locale, as the fixtures'
/// expected outputs were printed; its stdout and stderr, once it
/// succeeded.
pub fn export_of(file: &std::path::Path, args: &[&str]) -> (String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("export")
        .args(args)
        .arg(file)
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (text(out.stdout), text(out.stderr))
}

//! What strata costs: per-tick work, frame rendering, history memory and the
//! CPU of the real binary. Prints a markdown table of figures beside their
//! budgets.
//!
//! ```text
//! cargo bench --bench tick                 # full run, about a minute
//! cargo bench --bench tick -- --quick      # smoke run of a few seconds (CI)
//! STRATA_BENCH_QUICK=1 cargo bench --bench tick
//! ```
//!
//! Benchmarks report, they do not gate: a figure over its budget is marked
//! OVER and the exit status stays 0.
//!
//! 1. Tick: `DiskSource::sample` (read + parse /proc) and `App::ingest_disks`
//!    (model + store) over a synthetic root of 1, 100 and 1000 devices.
//!    The files are rewritten before each tick, outside the timed region.
//! 2. Render: `ui::draw` into ratatui's `TestBackend` at 200×60, with 1000
//!    devices and a full history (the app of 3).
//! 3. Memory: the history after one hour at 1 s with 1000 devices, pushed
//!    from in-memory samples.
//! 5. All host sources: one tick of every host layer together (disks, NICs
//!    and bonds, page cache with its watched files, kernel NFS), read,
//!    parsed, modelled and stored, over a synthetic root of 100 block
//!    devices, 64 interfaces (2 bonds, a VLAN, loopback), 8 NFS mounts and
//!    100 watched 1 GiB datafiles (sparse, on the target directory's file
//!    system) read with cachestat(2).
//! 4. CPU: the release binary (cargo builds it for the bench and passes its
//!    path as `CARGO_BIN_EXE_strata`) monitoring this host at 1 s in a
//!    detached tmux session on a private tmux server.

#![allow(unsafe_code, clippy::expect_used, clippy::too_many_lines)]

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use strata::app::{Action, App};
use strata::config::Config;
use strata::core::host::HostInfo;
use strata::core::rootfs::RootFs;
use strata::layers::cache::residency::Method;
use strata::layers::cache::source::CacheSource;
use strata::layers::disks::diskstats::{DiscardCounters, DiskCounters, FlushCounters};
use strata::layers::disks::source::{DiskSample, DiskSource};
use strata::layers::host::HostState;
use strata::layers::nfs::source::NfsSource;
use strata::layers::nics::source::NicSource;
use strata::theme::Theme;

const TICK_DEVICES: [usize; 3] = [1, 100, 1000];
const RENDER_DEVICES: usize = 1000;
const MEMORY_DEVICES: usize = 1000;
const HISTORY_SECS: u64 = 3600;

/// How much work each part does.
struct Plan {
    quick: bool,
    /// Timed ticks per device count, in the order of `TICK_DEVICES`.
    ticks: [usize; 3],
    frames: usize,
    /// Ticks pushed into the history (and the history's length in seconds).
    history_ticks: u64,
    /// How long the binary runs, warm-up included.
    cpu_run: Duration,
    cpu_warmup: Duration,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                quick,
                ticks: [30, 30, 10],
                frames: 10,
                history_ticks: 600,
                cpu_run: Duration::from_secs(5),
                cpu_warmup: Duration::from_secs(2),
            }
        } else {
            Plan {
                quick,
                ticks: [1000, 1000, 200],
                frames: 200,
                history_ticks: HISTORY_SECS,
                cpu_run: Duration::from_secs(30),
                cpu_warmup: Duration::from_secs(2),
            }
        }
    }
}

fn main() {
    // cargo passes `--bench`; anything else unknown is ignored too.
    let quick = std::env::args().any(|a| a == "--quick")
        || std::env::var("STRATA_BENCH_QUICK").is_ok_and(|v| v == "1");
    let plan = Plan::new(quick);
    let started = Instant::now();
    let mut table = Table::default();

    for (i, &n) in TICK_DEVICES.iter().enumerate() {
        eprintln!("tick: {n} devices, {} ticks…", plan.ticks[i]);
        bench_tick(&mut table, n, plan.ticks[i]);
    }
    eprintln!(
        "memory: {MEMORY_DEVICES} devices, {} ticks…",
        plan.history_ticks
    );
    let app = bench_memory(&mut table, &plan);
    eprintln!("render: {} frames per view…", plan.frames);
    bench_render(&mut table, app, plan.frames);
    eprintln!("host sources: {} ticks…", plan.ticks[1]);
    bench_host_sources(&mut table, plan.ticks[1]);
    eprintln!("cpu: running the binary for {:?}…", plan.cpu_run);
    bench_cpu(&mut table, &plan);

    println!();
    println!("{}", machine(&plan));
    println!();
    print!("{}", table.markdown());
    println!();
    println!(
        "Budgets are reported, not enforced. Took {:.1} s.",
        started.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------- report

#[derive(Default)]
struct Table {
    rows: Vec<[String; 5]>,
}

impl Table {
    fn row(&mut self, what: &str, figure: String, detail: String, budget: &str, verdict: &str) {
        self.rows.push([
            what.to_string(),
            figure,
            detail,
            budget.to_string(),
            verdict.to_string(),
        ]);
    }

    fn markdown(&self) -> String {
        let head = ["Measure", "Figure", "Detail", "Budget", "Result"];
        let mut widths = head.map(str::len);
        for r in &self.rows {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cells: &[String]| -> String {
            let mut s = String::from("|");
            for (c, w) in cells.iter().zip(widths) {
                let pad = w - c.chars().count();
                let _ = write!(s, " {c}{} |", " ".repeat(pad));
            }
            s.push('\n');
            s
        };
        let mut out = line(&head.map(String::from));
        out.push_str(&line(&widths.map(|w| "-".repeat(w))));
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

/// `PASS` when the figure is within its budget.
fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "OVER" }
}

/// Median and p99 (nearest rank) of durations, in µs.
struct Stats {
    median: f64,
    p99: f64,
    n: usize,
}

fn stats(samples: &[Duration]) -> Stats {
    let mut us: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e6).collect();
    us.sort_by(f64::total_cmp);
    let rank = |p: f64| -> f64 {
        let i = ((p / 100.0 * us.len() as f64).ceil() as usize).clamp(1, us.len());
        us[i - 1]
    };
    Stats {
        median: rank(50.0),
        p99: rank(99.0),
        n: us.len(),
    }
}

/// A time in µs with a readable precision.
fn us(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0} µs")
    } else {
        format!("{x:.1} µs")
    }
}

fn timing_verdict(s: &Stats, budget_us: f64) -> &'static str {
    match (s.median <= budget_us, s.p99 <= budget_us) {
        (true, true) => "PASS",
        (true, false) => "PASS (p99 OVER)",
        _ => "OVER",
    }
}

fn machine(plan: &Plan) -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "?".into());
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "?".into());
    let build = if cfg!(debug_assertions) {
        "debug build (debug_assertions on): figures are not representative"
    } else {
        "release build (debug_assertions off)"
    };
    format!(
        "Machine: {nproc} CPUs · {cpu} · Linux {kernel} · {build} · {} mode",
        if plan.quick { "quick" } else { "full" }
    )
}

// ---------------------------------------------------------------- synthetic host

/// A small, fast, deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// sda … sdz, sdaa …: the kernel's sd naming.
fn sd_name(k: usize) -> String {
    let mut k = k + 1;
    let mut letters = Vec::new();
    while k > 0 {
        k -= 1;
        letters.push(b'a' + (k % 26) as u8);
        k /= 26;
    }
    letters.reverse();
    format!("sd{}", String::from_utf8(letters).unwrap_or_default())
}

/// What /sys/block says about one line of /proc/diskstats.
enum SysEntry {
    Disk {
        rotational: bool,
        model: &'static str,
    },
    Partition {
        parent: String,
    },
    Dm {
        mapper: String,
        slaves: Vec<String>,
    },
}

struct Device {
    counters: DiskCounters,
    sys: SysEntry,
}

fn counters(major: u32, minor: u32, name: &str) -> DiskCounters {
    DiskCounters {
        major,
        minor,
        name: name.to_string(),
        discard: Some(DiscardCounters::default()),
        flush: Some(FlushCounters::default()),
        ..DiskCounters::default()
    }
}

/// `n` lines of /proc/diskstats: groups of an sd disk with two partitions,
/// an NVMe namespace with one partition and a dm device on the sd disk's
/// second partition, cut at `n`.
fn synthetic_devices(n: usize) -> Vec<Device> {
    const SD_MAJORS: [u32; 16] = [
        8, 65, 66, 67, 68, 69, 70, 71, 128, 129, 130, 131, 132, 133, 134, 135,
    ];
    let mut out = Vec::with_capacity(n);
    let (mut sd, mut nvme, mut dm, mut nvme_minor) = (0usize, 0usize, 0usize, 0u32);
    let mut last_sd = String::new();
    let push = |out: &mut Vec<Device>, d: Device| {
        if out.len() < n {
            out.push(d);
        }
    };
    for group in 0.. {
        if out.len() >= n {
            break;
        }
        match group % 3 {
            0 => {
                let name = sd_name(sd);
                let major = SD_MAJORS[(sd / 16) % SD_MAJORS.len()];
                let minor = (sd % 16) as u32 * 16;
                push(
                    &mut out,
                    Device {
                        counters: counters(major, minor, &name),
                        sys: SysEntry::Disk {
                            rotational: sd % 2 == 0,
                            model: if sd % 2 == 0 {
                                "ST8000NM0055"
                            } else {
                                "SAMSUNG MZ7LH3T8"
                            },
                        },
                    },
                );
                for p in 1..=2u32 {
                    push(
                        &mut out,
                        Device {
                            counters: counters(major, minor + p, &format!("{name}{p}")),
                            sys: SysEntry::Partition {
                                parent: name.clone(),
                            },
                        },
                    );
                }
                last_sd = name;
                sd += 1;
            }
            1 => {
                let name = format!("nvme{nvme}n1");
                push(
                    &mut out,
                    Device {
                        counters: counters(259, nvme_minor, &name),
                        sys: SysEntry::Disk {
                            rotational: false,
                            model: "Dell Ent NVMe P5600 MU U.2 3.2TB",
                        },
                    },
                );
                push(
                    &mut out,
                    Device {
                        counters: counters(259, nvme_minor + 1, &format!("{name}p1")),
                        sys: SysEntry::Partition { parent: name },
                    },
                );
                nvme += 1;
                nvme_minor += 2;
            }
            _ => {
                let name = format!("dm-{dm}");
                push(
                    &mut out,
                    Device {
                        counters: counters(253, dm as u32, &name),
                        sys: SysEntry::Dm {
                            mapper: format!("vg{dm}-lv_data"),
                            slaves: vec![format!("{last_sd}2")],
                        },
                    },
                );
                dm += 1;
            }
        }
    }
    out
}

/// One interval of a busy system on every device; `itv_ms` of wall time.
fn bump(c: &mut DiskCounters, rng: &mut Rng, itv_ms: u32) {
    let r = 20 + rng.below(400);
    let w = 20 + rng.below(400);
    c.rd_ios += r;
    c.rd_merges += r / 8;
    c.rd_sectors += r * (8 + rng.below(120));
    c.rd_ticks = c.rd_ticks.wrapping_add((r * (1 + rng.below(4))) as u32);
    c.wr_ios += w;
    c.wr_merges += w / 4;
    c.wr_sectors += w * (8 + rng.below(248));
    c.wr_ticks = c.wr_ticks.wrapping_add((w * (1 + rng.below(8))) as u32);
    c.ios_pgr = rng.below(8) as u32;
    let busy = itv_ms / 4 + rng.below(u64::from(itv_ms) * 3 / 4 + 1) as u32;
    c.tot_ticks = c.tot_ticks.wrapping_add(busy);
    c.rq_ticks = c.rq_ticks.wrapping_add(busy * (1 + rng.below(6) as u32));
    if let Some(d) = &mut c.discard {
        let n = rng.below(5);
        d.ios += n;
        d.merges += n / 2;
        d.sectors += n * 2048;
        d.ticks = d.ticks.wrapping_add(n as u32);
    }
    if let Some(f) = &mut c.flush {
        let n = rng.below(30);
        f.ios += n;
        f.ticks = f.ticks.wrapping_add(n as u32 / 2);
    }
}

/// A /proc/diskstats line with all 20 fields (kernel 5.5+).
fn diskstats_line(out: &mut String, c: &DiskCounters) {
    let d = c.discard.unwrap_or_default();
    let f = c.flush.unwrap_or_default();
    let _ = writeln!(
        out,
        "{:4} {:7} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
        c.major,
        c.minor,
        c.name,
        c.rd_ios,
        c.rd_merges,
        c.rd_sectors,
        c.rd_ticks,
        c.wr_ios,
        c.wr_merges,
        c.wr_sectors,
        c.wr_ticks,
        c.ios_pgr,
        c.tot_ticks,
        c.rq_ticks,
        d.ios,
        d.merges,
        d.sectors,
        d.ticks,
        f.ios,
        f.ticks
    );
}

/// A temporary root directory, removed when dropped.
struct TempRoot(PathBuf);

impl TempRoot {
    fn new(tag: &str) -> TempRoot {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("strata-bench-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the temporary root");
        TempRoot(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create a directory of the synthetic root");
    }
    std::fs::write(path, text).expect("write a file of the synthetic root");
}

/// A host's /proc and /sys under a temporary directory, with counters that
/// move on every `advance`.
struct SyntheticHost {
    root: TempRoot,
    devices: Vec<Device>,
    uptime_cs: u64,
    wall_ms: i64,
    rng: Rng,
    text: String,
}

impl SyntheticHost {
    fn new(n: usize) -> SyntheticHost {
        let root = TempRoot::new(&format!("{n}dev"));
        let devices = synthetic_devices(n);
        let sys = root.path().join("sys/block");
        std::fs::create_dir_all(&sys).expect("create sys/block");
        let stat = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
        for d in &devices {
            let name = &d.counters.name;
            match &d.sys {
                SysEntry::Disk { rotational, model } => {
                    let base = sys.join(name);
                    write(&base.join("stat"), stat);
                    write(&base.join("size"), "7814037168\n");
                    write(
                        &base.join("queue/rotational"),
                        if *rotational { "1\n" } else { "0\n" },
                    );
                    write(&base.join("device/model"), &format!("{model}\n"));
                    std::fs::create_dir_all(base.join("slaves")).expect("create slaves");
                }
                SysEntry::Partition { parent } => {
                    let base = sys.join(parent).join(name);
                    write(&base.join("partition"), "1\n");
                    write(&base.join("stat"), stat);
                    write(&base.join("size"), "3907018584\n");
                }
                SysEntry::Dm { mapper, slaves } => {
                    let base = sys.join(name);
                    write(&base.join("stat"), stat);
                    write(&base.join("size"), "3907018584\n");
                    write(&base.join("queue/rotational"), "0\n");
                    write(&base.join("dm/name"), &format!("{mapper}\n"));
                    for s in slaves {
                        write(&base.join("slaves").join(s), "");
                    }
                }
            }
        }
        let mut host = SyntheticHost {
            root,
            devices,
            uptime_cs: 12_345_678,
            wall_ms: 1_750_000_000_000,
            rng: Rng(0x9e37_79b9_7f4a_7c15),
            text: String::new(),
        };
        host.write_proc();
        host
    }

    /// One second later: uptime +100 cs and every counter moved.
    fn advance(&mut self) {
        self.uptime_cs += 100;
        self.wall_ms += 1000;
        for d in &mut self.devices {
            bump(&mut d.counters, &mut self.rng, 1000);
        }
        self.write_proc();
    }

    fn write_proc(&mut self) {
        let up = self.uptime_cs;
        write(
            &self.root.path().join("proc/uptime"),
            &format!("{}.{:02} {}.{:02}\n", up / 100, up % 100, up / 50, up % 50),
        );
        self.text.clear();
        for d in &self.devices {
            diskstats_line(&mut self.text, &d.counters);
        }
        write(&self.root.path().join("proc/diskstats"), &self.text);
    }
}

fn new_app(history_secs: u64) -> App {
    let config = Config {
        history_secs,
        ..Config::default()
    };
    let host = HostInfo {
        hostname: "bench".into(),
        kernel: "6.1.0-synthetic".into(),
    };
    App::new(
        config,
        Theme::default(),
        host,
        strata::core::duration::Interval::ONE_SECOND,
    )
}

// ---------------------------------------------------------------- 1. tick

fn bench_tick(table: &mut Table, n: usize, ticks: usize) {
    let mut host = SyntheticHost::new(n);
    let mut source = DiskSource::new(RootFs::new(host.root.path()));
    let mut app = new_app(HISTORY_SECS);

    // The first sample reads the /sys catalogue: a one-off, reported apart.
    let t0 = Instant::now();
    let first = source.sample(host.wall_ms).expect("first sample");
    let first_sample = t0.elapsed();
    assert_eq!(first.devices.len(), n, "every synthetic line parses");
    assert!(first.rejected.is_empty(), "no synthetic line is rejected");
    app.local.disks.ingest(&first);

    let mut total = Vec::with_capacity(ticks);
    let mut read = Vec::with_capacity(ticks);
    let mut ingest = Vec::with_capacity(ticks);
    for _ in 0..ticks {
        host.advance();
        let t0 = Instant::now();
        let sample = source.sample(host.wall_ms).expect("sample");
        let t1 = Instant::now();
        app.local.disks.ingest(&sample);
        let t2 = Instant::now();
        total.push(t2 - t0);
        read.push(t1 - t0);
        ingest.push(t2 - t1);
    }
    assert!(app.local.disks.latest.is_some(), "ticks produced figures");

    let budget_us = match n {
        0..=100 => 1_000.0,
        _ => 10_000.0,
    };
    let s = stats(&total);
    let (r, m) = (stats(&read), stats(&ingest));
    let budget = if budget_us >= 10_000.0 {
        "≤ 10 ms"
    } else {
        "≤ 1 ms"
    };
    let shown_budget = if n == 1 { "–" } else { budget };
    table.row(
        &format!("Tick, {n} device{}", if n == 1 { "" } else { "s" }),
        format!("median {} · p99 {}", us(s.median), us(s.p99)),
        format!(
            "{} ticks; median read+parse {} + model+store {}; first sample (reads /sys) {}",
            s.n,
            us(r.median),
            us(m.median),
            us(first_sample.as_secs_f64() * 1e6)
        ),
        shown_budget,
        if n == 1 {
            "–"
        } else {
            timing_verdict(&s, budget_us)
        },
    );
}

// ---------------------------------------------------------------- 5. all host sources

const HOST_DEVICES: usize = 100;
const HOST_NICS: usize = 64;
const HOST_FILES: usize = 100;
const HOST_MOUNTS: usize = 8;

/// The host's layers other than disks, written into a synthetic root whose
/// counters move on every `advance`.
struct HostLayers {
    root: PathBuf,
    /// (name, rx bytes, rx packets, tx bytes, tx packets) per interface.
    nics: Vec<(String, u64, u64, u64, u64)>,
    rng: Rng,
    mountstats: String,
}

impl HostLayers {
    /// lo, bond0 over eth0+eth1, bond1 over eth2+eth3, a VLAN on bond0 and
    /// physical eth0…eth59.
    fn new(root: &Path, files_dir: &Path) -> HostLayers {
        let net = root.join("sys/class/net");
        let attr = |name: &str, file: &str, text: &str| write(&net.join(name).join(file), text);
        let mut names = vec!["lo".to_string(), "bond0".into(), "bond1".into()];
        names.push("bond0.100".into());
        names.extend((0..HOST_NICS - names.len()).map(|i| format!("eth{i}")));
        for (i, name) in names.iter().enumerate() {
            let (if_type, devtype) = match name.as_str() {
                "lo" => ("772", ""),
                "bond0" | "bond1" => ("1", "DEVTYPE=bond\n"),
                "bond0.100" => ("1", "DEVTYPE=vlan\n"),
                _ => ("1", ""),
            };
            attr(name, "type", &format!("{if_type}\n"));
            attr(name, "ifindex", &format!("{}\n", i + 1));
            attr(name, "iflink", &format!("{}\n", i + 1));
            attr(name, "mtu", "9000\n");
            attr(name, "operstate", "up\n");
            attr(name, "carrier_changes", "2\n");
            attr(name, "speed", "25000\n");
            attr(name, "duplex", "full\n");
            attr(
                name,
                "address",
                &format!("0c:42:a1:5e:{:02x}:{:02x}\n", i / 256, i % 256),
            );
            attr(
                name,
                "uevent",
                &format!("INTERFACE={name}\nIFINDEX={}\n{devtype}", i + 1),
            );
            if name.starts_with("eth") {
                attr(name, "device/vendor", "0x15b3\n");
            }
        }
        for (bond, slaves) in [("bond0", ["eth0", "eth1"]), ("bond1", ["eth2", "eth3"])] {
            attr(bond, "bonding/mode", "active-backup 1\n");
            for slave in slaves {
                let link = net.join(slave).join("master");
                std::os::unix::fs::symlink(format!("../{bond}"), link).expect("master link");
            }
            let text = include_str!("../tests/fixtures/bonding/bond2-active-backup-v3.7.1.txt")
                .replace("eth2", slaves[0])
                .replace("eth3", slaves[1]);
            write(&root.join("proc/net/bonding").join(bond), &text);
        }

        // 8 mounts of a real NFSv3 client's block, each its own export.
        let block = include_str!("../tests/fixtures/nfs/tacc-nfs3-tcp-statvers1.0.txt");
        let mut mountstats = String::new();
        let mut mountinfo = String::new();
        for m in 0..HOST_MOUNTS {
            mountstats.push_str(
                &block
                    .replace(
                        "ifs10G.blah.blah.blah.com:/ifs",
                        &format!("filer{m}:/vol/data{m}"),
                    )
                    .replace("mounted on /ifs ", &format!("mounted on /u0{m} ")),
            );
            mountinfo.push_str(&format!(
                "{} 1 0:{} / /u0{m} rw,relatime shared:{} - nfs filer{m}:/vol/data{m} rw,vers=3\n",
                100 + m,
                60 + m,
                200 + m
            ));
        }
        write(&root.join("proc/self/mountinfo"), &mountinfo);

        // The datafiles live on a disk-backed file system; the root links
        // to them as /u02/oradata.
        std::fs::create_dir_all(files_dir).expect("files dir");
        for i in 0..HOST_FILES {
            let f = std::fs::File::create(files_dir.join(format!("data{i:03}.dbf")))
                .expect("create a datafile");
            f.set_len(1 << 30).expect("size a datafile");
        }
        write(&root.join("u02/.keep"), "");
        std::os::unix::fs::symlink(files_dir, root.join("u02/oradata")).expect("oradata link");

        let nics = names.into_iter().map(|n| (n, 0, 0, 0, 0)).collect();
        let mut layers = HostLayers {
            root: root.to_path_buf(),
            nics,
            rng: Rng(0x2545_f491_4f6c_dd1d),
            mountstats,
        };
        layers.advance();
        layers
    }

    /// One second on: interface counters move; meminfo and vmstat are this
    /// host's own, read afresh.
    fn advance(&mut self) {
        let mut dev = String::from(
            "Inter-|   Receive                                                |  Transmit\n \
             face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n",
        );
        for (name, rb, rp, tb, tp) in &mut self.nics {
            let pk = self.rng.below(100_000);
            *rp += pk;
            *rb += pk * (64 + self.rng.below(8_900));
            let pk = self.rng.below(100_000);
            *tp += pk;
            *tb += pk * (64 + self.rng.below(8_900));
            let _ = writeln!(
                dev,
                "{name:>6}: {rb} {rp} 0 0 0 0 0 0 {tb} {tp} 0 0 0 0 0 0"
            );
        }
        write(&self.root.join("proc/net/dev"), &dev);
        write(&self.root.join("proc/self/mountstats"), &self.mountstats);
        for f in ["meminfo", "vmstat"] {
            let text = std::fs::read_to_string(format!("/proc/{f}")).expect("this host's /proc");
            write(&self.root.join("proc").join(f), &text);
        }
    }
}

fn bench_host_sources(table: &mut Table, ticks: usize) {
    let mut host = SyntheticHost::new(HOST_DEVICES);
    let files =
        tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a directory for datafiles");
    let mut layers = HostLayers::new(host.root.path(), files.path());
    let fs = RootFs::new(host.root.path());
    let mut disks = DiskSource::new(fs.clone());
    let mut nics = NicSource::new(fs.clone());
    let mut nfs = NfsSource::new(fs.clone());
    let mut cache = CacheSource::new(fs, vec!["/u02/oradata/*.dbf".into()]);
    let mut app = new_app(HISTORY_SECS);

    // One tick of every layer; the first also reads /sys and expands the
    // pattern, reported apart.
    let mut tick = |app: &mut App, wall_ms: i64| -> [Duration; 4] {
        let t0 = Instant::now();
        app.local
            .disks
            .ingest(&disks.sample(wall_ms).expect("disks"));
        let t1 = Instant::now();
        app.local.nics.ingest(&nics.sample(wall_ms).expect("nics"));
        let t2 = Instant::now();
        app.local
            .cache
            .ingest(&cache.sample(wall_ms).expect("cache"));
        let t3 = Instant::now();
        app.local.nfs.ingest(&nfs.sample(wall_ms).expect("nfs"));
        let t4 = Instant::now();
        [t1 - t0, t2 - t1, t3 - t2, t4 - t3]
    };
    let first: Duration = tick(&mut app, host.wall_ms).iter().sum();

    let mut parts: [Vec<Duration>; 4] = Default::default();
    let mut total = Vec::with_capacity(ticks);
    for _ in 0..ticks {
        host.advance();
        layers.advance();
        let t = tick(&mut app, host.wall_ms);
        total.push(t.iter().sum());
        for (p, d) in parts.iter_mut().zip(t) {
            p.push(d);
        }
    }
    let nic_tick = app.local.nics.latest.as_ref().expect("NIC figures");
    assert_eq!(nic_tick.rows.len(), HOST_NICS, "every interface read");
    let cache_tick = app.local.cache.latest.as_ref().expect("cache figures");
    assert_eq!(cache_tick.files.len(), HOST_FILES, "every datafile watched");
    assert!(
        cache_tick.files.iter().all(|f| f.error.is_none()),
        "every datafile read"
    );
    let method = cache_tick.method.map_or("–", Method::label);
    assert_eq!(
        app.local
            .nfs
            .latest
            .as_ref()
            .expect("NFS figures")
            .rows
            .len(),
        HOST_MOUNTS
    );
    assert!(app.local.disks.latest.is_some(), "disk figures");

    let s = stats(&total);
    let [d, n, c, f] = parts.map(|p| us(stats(&p).median));
    table.row(
        "Tick, all host sources",
        format!("median {} · p99 {}", us(s.median), us(s.p99)),
        format!(
            "{} ticks of {HOST_DEVICES} devices, {HOST_NICS} interfaces (2 bonds), \
             {HOST_FILES} watched files of 1 GiB ({}), {HOST_MOUNTS} NFS mounts; \
             medians: disks {d}, NICs {n}, cache {c}, NFS {f}; first tick {}",
            s.n,
            method,
            us(first.as_secs_f64() * 1e6)
        ),
        "≤ 2 ms",
        timing_verdict(&s, 2_000.0),
    );
}

// ---------------------------------------------------------------- 3. memory

/// VmRSS of a process in kB, from /proc/PID/status ("self" for this one).
fn rss_kb(pid: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / (1024.0 * 1024.0))
}

/// Pushes an hour of 1 s ticks from in-memory samples; returns the app,
/// whose full history the render part draws.
fn bench_memory(table: &mut Table, plan: &Plan) -> App {
    // The catalogue and first counters come from a synthetic root, as in
    // the tick part; the rest never touches files.
    let host = SyntheticHost::new(MEMORY_DEVICES);
    let mut source = DiskSource::new(RootFs::new(host.root.path()));
    let first = source.sample(host.wall_ms).expect("first sample");
    let catalogue = Arc::clone(&first.catalogue);
    let mut devices = first.devices.clone();
    let (mut uptime_cs, mut wall_ms) = (first.uptime_cs, first.wall_ms);
    drop(host);

    let mut app = new_app(plan.history_ticks);
    let rss_before = rss_kb("self");
    app.local.disks.ingest(&first);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut times = Vec::with_capacity(plan.history_ticks as usize);
    for _ in 0..plan.history_ticks {
        uptime_cs += 100;
        wall_ms += 1000;
        for d in &mut devices {
            bump(d, &mut rng, 1000);
        }
        let sample = DiskSample {
            uptime_cs,
            wall_ms,
            devices: devices.clone(),
            rejected: Vec::new(),
            catalogue: Arc::clone(&catalogue),
        };
        let t0 = Instant::now();
        app.local.disks.ingest(&sample);
        times.push(t0.elapsed());
    }
    let push_time: Duration = times.iter().sum();
    let rss_after = rss_kb("self");

    let h = &app.local.disks.history;
    let heap = h.heap_bytes();
    let values = h.stored_values();
    let per_value = h.values_heap_bytes() as f64 / values.max(1) as f64;
    let span = if plan.history_ticks == HISTORY_SECS {
        "1 h".to_string()
    } else {
        format!("{} min (quick)", plan.history_ticks / 60)
    };
    table.row(
        &format!("History, {MEMORY_DEVICES} devices × {span} at 1 s"),
        format!("{} ({heap} B)", mib(heap as f64)),
        format!(
            "heap_bytes(); {} entities × 8 metrics × {} ticks",
            h.entity_count(),
            h.capacity()
        ),
        "–",
        "–",
    );
    table.row(
        "History: stored values",
        format!("{values}"),
        "stored_values()".into(),
        "–",
        "–",
    );
    table.row(
        "History: bytes per stored value",
        format!("{per_value:.4} B"),
        format!(
            "values_heap_bytes() / stored_values(); the tick times cost {} B more, \
             once per source ({:.4} B per value with them)",
            h.times_heap_bytes(),
            heap as f64 / values.max(1) as f64
        ),
        "≤ 4 B",
        verdict(per_value <= 4.0),
    );
    let rss = |kb: Option<u64>| kb.map_or("?".to_string(), |k| mib(k as f64 * 1024.0));
    let delta = match (rss_before, rss_after) {
        (Some(b), Some(a)) => mib((a as f64 - b as f64) * 1024.0),
        _ => "?".into(),
    };
    let s = stats(&times);
    let (worst_at, worst) = times
        .iter()
        .enumerate()
        .max_by_key(|(_, d)| **d)
        .map_or((0, Duration::ZERO), |(i, d)| (i + 1, *d));
    let worst_us = worst.as_secs_f64() * 1e6;
    table.row(
        &format!("Model+store tick, {MEMORY_DEVICES} devices, history filling"),
        format!("median {} · p99 {}", us(s.median), us(s.p99)),
        format!(
            "ingest_disks() alone over {} in-memory ticks; slowest {} at tick {worst_at}",
            s.n,
            us(worst_us)
        ),
        "≤ 10 ms",
        match timing_verdict(&s, 10_000.0) {
            "PASS" if worst_us > 10_000.0 => "PASS (max OVER)",
            v => v,
        },
    );
    table.row(
        "Process RSS around the history fill",
        format!("{} → {}", rss(rss_before), rss(rss_after)),
        format!(
            "Δ {delta}; {} ticks pushed, {:.2} s in ingest_disks()",
            plan.history_ticks,
            push_time.as_secs_f64()
        ),
        "–",
        "–",
    );
    app
}

// ---------------------------------------------------------------- 2. render

fn bench_render(table: &mut Table, mut app: App, frames: usize) {
    let (w, h) = (200u16, 60u16);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    app.now_ms = app.local.disks.latest.as_ref().map_or(0, |t| t.wall_ms);
    let budget_us = 5_000.0;
    let mut frame = |app: &mut App, label: &str, detail: String| {
        let mut times = Vec::with_capacity(frames);
        // one untimed frame first: layout caches, first allocations
        app.apply_drawn(
            strata::ui::render(&mut terminal, app).expect("draw into the test backend"),
        );
        for _ in 0..frames {
            let t0 = Instant::now();
            app.apply_drawn(
                strata::ui::render(&mut terminal, app).expect("draw into the test backend"),
            );
            times.push(t0.elapsed());
        }
        let s = stats(&times);
        table.row(
            label,
            format!("median {} · p99 {}", us(s.median), us(s.p99)),
            format!("{} frames at {w}×{h}, TestBackend; {detail}", s.n),
            "≤ 5 ms",
            timing_verdict(&s, budget_us),
        );
    };
    let full = format!(
        "{} ticks of history",
        app.local.disks.history.times(u64::MAX, usize::MAX).len()
    );

    frame(&mut app, "Render: overview", full.clone());

    app.update(Action::GotoPanel(1));
    let shown = app.disk_rows().len();
    let total = app.local.disks.latest.as_ref().map_or(0, |t| t.rows.len());
    frame(
        &mut app,
        &format!("Render: disks panel, {RENDER_DEVICES} devices"),
        format!("{shown} rows of {total} (partitions hidden, the default)"),
    );

    // A disk with partitions, so the detail view has its parts table too.
    app.ui.disks.selected = Some("sda".into());
    app.update(Action::Enter);
    let name = match app.view() {
        strata::app::View::Disk(n) => n.clone(),
        _ => "?".into(),
    };
    let parts = app.parts_of(&name).len();
    frame(
        &mut app,
        "Render: device detail",
        format!("{name}, 5 charts over {full}, {parts} partitions"),
    );
}

// ---------------------------------------------------------------- 4. cpu

/// utime + stime of a process, in clock ticks.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // after "pid (comm) ": state is field 3, utime 14, stime 15
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// A tmux command on the bench's own server, whose socket lives in the
/// bench's temporary directory: no tmux the user runs is touched.
fn tmux(socket: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("tmux")
        .arg("-S")
        .arg(socket)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn bench_cpu(table: &mut Table, plan: &Plan) {
    const WHAT: &str = "CPU of `strata` at 1 s, this host";
    let budget = "≤ 0.5 % of one core";
    let tmux_ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !tmux_ok {
        table.row(
            WHAT,
            "skipped".into(),
            "tmux not found".into(),
            budget,
            "skipped",
        );
        return;
    }
    let bin = env!("CARGO_BIN_EXE_strata");
    let dir = TempRoot::new("cpu");
    let config = dir.path().join("config.toml");
    write(&config, "");
    let socket = dir.path().join("tmux.sock");
    let session = "bench";
    let cmd = format!("exec '{bin}' --interval 1 --config '{}'", config.display());
    let started = tmux(
        &socket,
        &[
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            "200",
            "-y",
            "50",
            &cmd,
        ],
    );
    let t_start = Instant::now();
    let pid = started
        .and_then(|_| tmux(&socket, &["list-panes", "-t", session, "-F", "#{pane_pid}"]))
        .and_then(|s| s.trim().lines().next()?.trim().parse::<u32>().ok());
    let Some(pid) = pid else {
        let _ = tmux(&socket, &["kill-server"]);
        table.row(
            WHAT,
            "skipped".into(),
            "tmux could not start the session".into(),
            budget,
            "skipped",
        );
        return;
    };
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();

    std::thread::sleep(plan.cpu_warmup.saturating_sub(t_start.elapsed()));
    let c0 = cpu_ticks(pid);
    let w0 = Instant::now();
    std::thread::sleep(plan.cpu_run.saturating_sub(t_start.elapsed()));
    let c1 = cpu_ticks(pid);
    let window = w0.elapsed().as_secs_f64();
    let rss = rss_kb(&pid.to_string());
    let screen = tmux(&socket, &["capture-pane", "-p", "-t", session]).unwrap_or_default();

    let _ = tmux(&socket, &["send-keys", "-t", session, "q"]);
    let quit_by = Instant::now() + Duration::from_secs(2);
    while Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < quit_by {
        std::thread::sleep(Duration::from_millis(20));
    }
    let quit_ok = !Path::new(&format!("/proc/{pid}")).exists();
    let _ = tmux(&socket, &["kill-session", "-t", session]);
    let _ = tmux(&socket, &["kill-server"]);

    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let devices = std::fs::read_to_string("/proc/diskstats")
        .map_or(0, |t| t.lines().filter(|l| !l.trim().is_empty()).count());
    match (c0, c1) {
        (Some(a), Some(b)) if comm.trim() == "strata" => {
            let pct = (b - a) as f64 / hz / window * 100.0;
            let drew = screen.contains("strata");
            table.row(
                WHAT,
                format!("{pct:.2} %"),
                format!(
                    "{} clock ticks over {window:.1} s after {:.0} s warm-up \
                     (resolution {:.2} %); {devices} devices in /proc/diskstats; \
                     tmux 200×50; RSS {}; {}{}",
                    b - a,
                    plan.cpu_warmup.as_secs_f64(),
                    100.0 / hz / window,
                    rss.map_or("?".into(), |k| mib(k as f64 * 1024.0)),
                    if drew {
                        "screen drawn"
                    } else {
                        "screen NOT drawn"
                    },
                    if quit_ok {
                        ", quit on q"
                    } else {
                        ", killed (q ignored)"
                    }
                ),
                budget,
                verdict(pct <= 0.5),
            );
        }
        _ => table.row(
            WHAT,
            "skipped".into(),
            format!(
                "the pane's process ({pid}, {:?}) was not strata or ended early",
                comm.trim()
            ),
            budget,
            "skipped",
        ),
    }
}

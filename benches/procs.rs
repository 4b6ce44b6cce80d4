//! The process layer's cost on this machine's real /proc, with /proc
//! filled to about 1,000 and then 10,000 processes by idle `sleep 600`
//! children of the bench (and 8 children of its own binary that write and
//! read a file ten times a second, for a second phase).
//!
//! ```text
//! cargo bench --bench procs                        # full run (about 5 min)
//! STRATA_BENCH_QUICK=1 cargo bench --bench procs   # smoke run (CI)
//! STRATA_PROCS_POPULATIONS=1000,5000 cargo bench --bench procs
//! ```
//!
//! At each population:
//! 1. Locally: `ProcSource::sample` on `/`, once cold (every process's
//!    status and cmdline read, as at strata's start) and then 30 times,
//!    250 ms apart, idle and then with the 8 writers: the thread's CPU
//!    (getrusage RUSAGE_THREAD, user and system), the wall time, and the
//!    model's tick of the sample (`procs::state::interval`).
//! 2. The node side: the node sampler's procs awk
//!    (`procs::node::script()` under `sh -c` with `R=` and `T=` a
//!    temporary directory, as a node's sampler runs it) once with no
//!    state (the full list) and then 20 times, 1 s apart, idle and with
//!    the writers: its stdout bytes and the CPU of the sh and the awk it
//!    waited for (getrusage RUSAGE_CHILDREN).
//! 3. The whole node sample frame of every layer:
//!    `layers::node::sampler_script()` under a local `sh` on this
//!    machine's root with `T=` set, asked for 20 samples 1 s apart (the
//!    writers on): each frame's bytes, the procs section's share, and the
//!    bytes a zlib stream at level 6 flushed after each frame makes of
//!    them (what OpenSSH's zlib@openssh.com does to a channel's data,
//!    modelled: the wire itself is not measured here).
//!
//! The children are killed and reaped at the end, on a panic too, and
//! each has PR_SET_PDEATHSIG SIGKILL, so a bench killed outright leaves
//! none behind (a `sleep 600` ends by itself in any case).
//!
//! Benchmarks report, they do not gate: a figure over its budget (5 ms of
//! CPU a local sample at 1,000 processes, 16 kB/s a node's frame) is
//! marked OVER and the exit status stays 0.

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::FileExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use strata::core::rootfs::RootFs;
use strata::layers::procs::source::ProcSource;

/// The budget of a local sample's CPU at 1,000 processes.
const LOCAL_BUDGET_MS: f64 = 5.0;
/// What a node may send a second, all layers.
const BYTES_BUDGET: f64 = 16_000.0;
const WRITERS: usize = 8;
const WRITER_ENV: &str = "STRATA_PROCS_BENCH_WRITER";

fn main() {
    if std::env::var("STRATA_PROCS_DUMP").is_ok() {
        print!("{}", strata::layers::procs::node::script());
        return;
    }
    if let Ok(path) = std::env::var(WRITER_ENV) {
        writer(Path::new(&path));
        return;
    }
    let quick = std::env::var("STRATA_BENCH_QUICK").is_ok_and(|v| v == "1");
    let populations: Vec<usize> = match std::env::var("STRATA_PROCS_POPULATIONS") {
        Ok(v) => v.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
        Err(_) if quick => vec![proc_count() + 50],
        Err(_) => vec![1_000, 10_000],
    };
    let plan = if quick {
        Plan {
            local_calls: 5,
            local_gap: Duration::from_millis(20),
            node_runs: 3,
            node_gap: Duration::from_millis(200),
            frames: 3,
        }
    } else {
        Plan {
            local_calls: 30,
            local_gap: Duration::from_millis(250),
            node_runs: 20,
            node_gap: Duration::from_secs(1),
            frames: 20,
        }
    };
    machine();
    let tmp = tempfile::tempdir().unwrap();
    if let Ok(awk) = std::env::var("STRATA_PROCS_AWK") {
        let bin = tmp.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(&awk, bin.join("awk")).unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        PATH.set(path).unwrap();
        println!("awk: {awk} (STRATA_PROCS_AWK)");
    }
    let mut kids = Children::default();
    let mut results = Vec::new();
    for &target in &populations {
        let have = proc_count();
        let want = target.saturating_sub(have);
        let t = Instant::now();
        if let Err(e) = kids.sleepers(want) {
            println!(
                "population {target}: could not start {want} sleepers ({e}); measuring {} processes",
                proc_count()
            );
        }
        println!(
            "\n== population: {} processes in /proc ({} sleepers of the bench started in {:.1} s)",
            proc_count(),
            kids.sleepers.len(),
            t.elapsed().as_secs_f64()
        );
        results.push(population(&plan, &mut kids, tmp.path()));
    }
    drop(kids);
    summary(&results);
}

struct Plan {
    local_calls: usize,
    local_gap: Duration,
    node_runs: usize,
    node_gap: Duration,
    frames: usize,
}

/// One population's figures.
struct Population {
    processes: usize,
    cold: Call,
    idle: Vec<Call>,
    busy: Vec<Call>,
    /// `None`: the awk failed.
    awk_full: Option<Run>,
    awk_idle: Vec<Run>,
    awk_busy: Vec<Run>,
    frames: Vec<Frame>,
}

/// One local sample.
#[derive(Clone, Copy)]
struct Call {
    /// CLOCK_THREAD_CPUTIME_ID around the sample.
    cpu_ms: f64,
    /// getrusage(RUSAGE_THREAD)'s split of it, which the kernel scales
    /// from tick sampling: approximate.
    user_ms: f64,
    sys_ms: f64,
    wall_ms: f64,
    tick_ms: f64,
    seen: u32,
    rows: usize,
}

impl Call {
    fn cpu_ms(&self) -> f64 {
        self.cpu_ms
    }
}

/// One run of the node's procs awk.
#[derive(Clone, Copy)]
struct Run {
    bytes: usize,
    lines: usize,
    p_lines: usize,
    cpu_ms: f64,
    wall_ms: f64,
}

/// One sample frame of the whole node sampler.
#[derive(Clone, Copy)]
struct Frame {
    bytes: usize,
    procs_bytes: usize,
    zlib: usize,
    zlib_without_procs: usize,
}

fn machine() {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut lim) };
    let avail = read("/proc/meminfo")
        .lines()
        .find(|l| l.starts_with("MemAvailable:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0);
    let release = read("/proc/sys/kernel/osrelease");
    let awk = std::fs::canonicalize(
        std::env::var("PATH")
            .unwrap_or_default()
            .split(':')
            .map(|d| Path::new(d).join("awk"))
            .find(|p| p.exists())
            .unwrap_or_default(),
    )
    .map(|p| p.display().to_string())
    .unwrap_or_else(|_| "?".into());
    println!(
        "Machine: {} CPUs · Linux {} · pid_max {} · ulimit -u {} · MemAvailable {} MiB · euid {} · awk {} · load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        release.trim(),
        read("/proc/sys/kernel/pid_max").trim(),
        if lim.rlim_cur == libc::RLIM_INFINITY {
            "unlimited".to_string()
        } else {
            lim.rlim_cur.to_string()
        },
        avail / 1024,
        // SAFETY: geteuid has no failure and no arguments.
        unsafe { libc::geteuid() },
        awk,
        load()
    );
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split(' ')
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn proc_count() -> usize {
    std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| {
                    e.file_name()
                        .to_str()
                        .is_some_and(|n| n.parse::<u32>().is_ok())
                })
                .count()
        })
        .unwrap_or(0)
}

/// The bench's children: killed and reaped when dropped (a panic too).
#[derive(Default)]
struct Children {
    sleepers: Vec<Child>,
    writers: Vec<Child>,
}

/// A child that dies with the bench.
fn dies_with_parent(cmd: &mut Command) -> &mut Command {
    // SAFETY: prctl is async-signal-safe; nothing else runs between fork
    // and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
}

impl Children {
    fn sleepers(&mut self, n: usize) -> std::io::Result<()> {
        for _ in 0..n {
            self.sleepers
                .push(dies_with_parent(Command::new("sleep").arg("600")).spawn()?);
        }
        Ok(())
    }

    fn start_writers(&mut self, dir: &Path) {
        let exe = std::env::current_exe().unwrap();
        for i in 0..WRITERS {
            let file = dir.join(format!("writer-{i}"));
            self.writers.push(
                dies_with_parent(Command::new(&exe).env(WRITER_ENV, &file))
                    .spawn()
                    .unwrap(),
            );
        }
    }

    fn stop_writers(&mut self) {
        stop(&mut self.writers);
    }
}

fn stop(kids: &mut Vec<Child>) {
    for c in kids.iter_mut() {
        let _ = c.kill();
    }
    for mut c in kids.drain(..) {
        let _ = c.wait();
    }
}

impl Drop for Children {
    fn drop(&mut self) {
        stop(&mut self.writers);
        stop(&mut self.sleepers);
    }
}

/// A process doing I/O: 64 KiB written and read back every 100 ms, the
/// file synced every second; for at most 600 s.
fn writer(path: &Path) {
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let block = vec![0x5au8; 64 * 1024];
    let mut back = vec![0u8; 64 * 1024];
    for i in 0..6_000u32 {
        f.write_all_at(&block, 0).unwrap();
        f.read_exact_at(&mut back, 0).unwrap();
        if i % 10 == 9 {
            f.sync_data().unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn rusage(who: libc::c_int) -> (f64, f64) {
    // SAFETY: rusage is plain data; getrusage fills it.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to the struct above.
    unsafe { libc::getrusage(who, &mut u) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    (ms(u.ru_utime), ms(u.ru_stime))
}

fn thread_cpu_ms() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid pointer; the clock exists on every Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}

fn local_call(src: &mut ProcSource) -> Call {
    let (u0, s0) = rusage(libc::RUSAGE_THREAD);
    let c = thread_cpu_ms();
    let w = Instant::now();
    let sample = src
        .sample(strata::core::clock::now_ms())
        .expect("ProcSource::sample");
    let wall_ms = w.elapsed().as_secs_f64() * 1e3;
    let cpu_ms = thread_cpu_ms() - c;
    let (u1, s1) = rusage(libc::RUSAGE_THREAD);
    let c0 = thread_cpu_ms();
    let tick = strata::layers::procs::state::interval(&sample);
    let tick_ms = thread_cpu_ms() - c0;
    std::hint::black_box(tick);
    Call {
        cpu_ms,
        user_ms: u1 - u0,
        sys_ms: s1 - s0,
        wall_ms,
        tick_ms,
        seen: sample.processes,
        rows: sample.rows.len(),
    }
}

fn local(plan: &Plan, src: &mut ProcSource) -> Vec<Call> {
    (0..plan.local_calls)
        .map(|_| {
            std::thread::sleep(plan.local_gap);
            local_call(src)
        })
        .collect()
}

/// The PATH the node's sh runs under: `STRATA_PROCS_AWK` (a path, such
/// as /usr/bin/gawk) is put first as `awk`.
static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn sh() -> Command {
    let mut c = Command::new("sh");
    if let Some(p) = PATH.get() {
        c.env("PATH", p);
    }
    c
}

/// The node's procs awk, once, with its state in `state`; its exit
/// status and stderr when it fails.
fn awk_run(state: &Path) -> Result<Run, String> {
    let (u0, s0) = rusage(libc::RUSAGE_CHILDREN);
    let w = Instant::now();
    let out = sh()
        .arg("-c")
        .arg(format!(
            // As the sampler runs it (LC_ALL=C, which its character
            // ranges need under gawk), but for its errors, which the
            // sampler throws away.
            "export LC_ALL=C; R=; T={}; {}",
            state.display(),
            strata::layers::procs::node::script().replace(" 2>/dev/null;", ";")
        ))
        .output()
        .expect("sh");
    let wall_ms = w.elapsed().as_secs_f64() * 1e3;
    let (u1, s1) = rusage(libc::RUSAGE_CHILDREN);
    if !out.status.success() {
        return Err(format!(
            "{}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(Run {
        bytes: out.stdout.len(),
        lines: text.lines().count(),
        p_lines: text.lines().filter(|l| l.starts_with("p ")).count(),
        cpu_ms: (u1 - u0) + (s1 - s0),
        wall_ms,
    })
}

fn awk_runs(plan: &Plan, state: &Path) -> Vec<Run> {
    (0..plan.node_runs)
        .filter_map(|_| {
            std::thread::sleep(plan.node_gap);
            awk_run(state).ok()
        })
        .collect()
}

/// The whole node sampler on this machine's root, `n` sample frames
/// asked `gap` apart after the first (unasked) one, whose procs section
/// is the full list and is left out.
fn frames(n: usize, gap: Duration, state: &Path) -> Vec<Frame> {
    let script = format!(
        "T={}; read -r t; {}",
        state.display(),
        strata::layers::node::sampler_script()
    );
    let mut child = sh()
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("sh");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut with = flate2::Compress::new(flate2::Compression::new(6), true);
    let mut without = flate2::Compress::new(flate2::Compression::new(6), true);
    let mut got = Vec::new();
    for i in 0..=n {
        if i > 0 {
            std::thread::sleep(gap);
        }
        stdin.write_all(b"\n").expect("ask");
        stdin.flush().expect("ask");
        // The class frame (at the first sample) is compressed as the wire
        // would, but not counted.
        let mut frame = Vec::new();
        let mut class = true;
        while class {
            frame.clear();
            let mut line = String::new();
            loop {
                line.clear();
                if out.read_line(&mut line).unwrap_or(0) == 0 {
                    panic!("the sampler ended");
                }
                frame.push(line.clone());
                if line.starts_with("@@E") {
                    break;
                }
            }
            class = frame[0].starts_with("@@C");
            let all: String = frame.concat();
            let z = deflate(&mut with, all.as_bytes());
            let rest = strip_procs(&frame);
            let zr = deflate(&mut without, rest.as_bytes());
            if !class && i > 0 {
                got.push(Frame {
                    bytes: all.len(),
                    procs_bytes: all.len() - rest.len(),
                    zlib: z,
                    zlib_without_procs: zr,
                });
            }
        }
    }
    drop(stdin);
    let _ = child.kill();
    let mut rest = Vec::new();
    let _ = out.read_to_end(&mut rest);
    let _ = child.wait();
    got
}

/// A frame without its `=f /proc/strata/procs` section.
fn strip_procs(frame: &[String]) -> String {
    let mut out = String::new();
    let mut inside = false;
    for l in frame {
        if l.starts_with("=f ") || l.starts_with("@@") || l.starts_with("=a ") {
            inside = l.starts_with("=f /proc/strata/procs");
        } else if l.starts_with("=d ") || l.starts_with("=e ") || l.starts_with("=l ") {
            inside = false;
        }
        if !inside {
            out.push_str(l);
        }
    }
    out
}

/// Bytes of `input` through a continuing zlib stream, flushed (sync) at
/// its end, as SSH compresses a packet.
fn deflate(z: &mut flate2::Compress, input: &[u8]) -> usize {
    let before = z.total_out();
    let mut out = Vec::with_capacity(input.len() + 1024);
    let mut done = 0;
    loop {
        let before_in = z.total_in();
        z.compress_vec(&input[done..], &mut out, flate2::FlushCompress::Sync)
            .expect("deflate");
        done += (z.total_in() - before_in) as usize;
        if done >= input.len() && out.len() < out.capacity() {
            break;
        }
        out.reserve(out.capacity());
    }
    (z.total_out() - before) as usize
}

fn population(plan: &Plan, kids: &mut Children, tmp: &Path) -> Population {
    let processes = proc_count();
    let mut src = ProcSource::new(RootFs::new("/"));
    let cold = local_call(&mut src);
    println!(
        "local, cold (every status and cmdline read): CPU {:.2} ms (user {:.2} + sys {:.2}), wall {:.2} ms, {} processes seen; model tick {:.3} ms",
        cold.cpu_ms(),
        cold.user_ms,
        cold.sys_ms,
        cold.wall_ms,
        cold.seen,
        cold.tick_ms
    );
    let idle = local(plan, &mut src);
    print_calls("local, idle", &idle);

    let state = tempfile::tempdir_in(tmp).unwrap();
    let awk_full = match awk_run(state.path()) {
        Ok(r) => {
            println!(
                "node awk, first run (F, every process): {} B, {} lines, CPU {:.1} ms, wall {:.1} ms",
                r.bytes, r.lines, r.cpu_ms, r.wall_ms
            );
            Some(r)
        }
        Err(e) => {
            println!("node awk: FAILED ({e}); the node side is not measured");
            None
        }
    };
    let node = awk_full.is_some();
    let awk_idle = if node {
        awk_runs(plan, state.path())
    } else {
        Vec::new()
    };
    if node {
        print_runs("node awk, idle", &awk_idle, plan.node_gap);
    }

    let io_dir = tempfile::tempdir_in(tmp).unwrap();
    kids.start_writers(io_dir.path());
    // Their first reading (names, owners) out of the way.
    std::thread::sleep(Duration::from_millis(300));
    let _ = local_call(&mut src);
    let _ = awk_run(state.path());
    let busy = local(plan, &mut src);
    print_calls(&format!("local, {WRITERS} writers"), &busy);
    let (awk_busy, frames) = if node {
        let awk_busy = awk_runs(plan, state.path());
        print_runs(
            &format!("node awk, {WRITERS} writers"),
            &awk_busy,
            plan.node_gap,
        );
        let frame_state = tempfile::tempdir_in(tmp).unwrap();
        let frames = frames(plan.frames, plan.node_gap, frame_state.path());
        print_frames(&frames, plan.node_gap);
        (awk_busy, frames)
    } else {
        (Vec::new(), Vec::new())
    };
    kids.stop_writers();
    Population {
        processes,
        cold,
        idle,
        busy,
        awk_full,
        awk_idle,
        awk_busy,
        frames,
    }
}

/// Median, p95 and max.
fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95), v[v.len() - 1])
}

fn fmt3((m, p, x): (f64, f64, f64), unit: &str) -> String {
    format!("median {m:.2} · p95 {p:.2} · max {x:.2} {unit}")
}

fn print_calls(what: &str, calls: &[Call]) {
    let cpu = stats(calls.iter().map(Call::cpu_ms).collect());
    println!(
        "{what}: {} samples: CPU {}; user {} ms, sys {} ms (medians); wall {}; model tick {}; rows {}",
        calls.len(),
        fmt3(cpu, "ms"),
        fmt1(stats(calls.iter().map(|c| c.user_ms).collect()).0),
        fmt1(stats(calls.iter().map(|c| c.sys_ms).collect()).0),
        fmt3(stats(calls.iter().map(|c| c.wall_ms).collect()), "ms"),
        fmt3(stats(calls.iter().map(|c| c.tick_ms).collect()), "ms"),
        fmt3(stats(calls.iter().map(|c| c.rows as f64).collect()), "")
    );
}

fn fmt1(x: f64) -> String {
    format!("{x:.2}")
}

fn print_runs(what: &str, runs: &[Run], gap: Duration) {
    println!(
        "{what}: {} runs {} ms apart: bytes {}; p lines {}; all lines {}; CPU (sh + awk) {}; wall {}",
        runs.len(),
        gap.as_millis(),
        fmt3(stats(runs.iter().map(|r| r.bytes as f64).collect()), "B"),
        fmt3(stats(runs.iter().map(|r| r.p_lines as f64).collect()), ""),
        fmt3(stats(runs.iter().map(|r| r.lines as f64).collect()), ""),
        fmt3(stats(runs.iter().map(|r| r.cpu_ms).collect()), "ms"),
        fmt3(stats(runs.iter().map(|r| r.wall_ms).collect()), "ms")
    );
}

fn print_frames(frames: &[Frame], gap: Duration) {
    println!(
        "node sample frame, every layer, this machine ({WRITERS} writers), {} frames {} ms apart: bytes {}; of which procs {}; zlib-6 stream {}; zlib without procs {}",
        frames.len(),
        gap.as_millis(),
        fmt3(stats(frames.iter().map(|f| f.bytes as f64).collect()), "B"),
        fmt3(
            stats(frames.iter().map(|f| f.procs_bytes as f64).collect()),
            "B"
        ),
        fmt3(stats(frames.iter().map(|f| f.zlib as f64).collect()), "B"),
        fmt3(
            stats(frames.iter().map(|f| f.zlib_without_procs as f64).collect()),
            "B"
        ),
    );
}

fn summary(results: &[Population]) {
    println!("\n| Measure | {} |", {
        results
            .iter()
            .map(|p| format!("{} processes", p.processes))
            .collect::<Vec<_>>()
            .join(" | ")
    });
    println!("|---|{}", "---|".repeat(results.len()));
    let row = |name: &str, f: &dyn Fn(&Population) -> String| row(results, name, f);
    let ms3 = |v: Vec<f64>| {
        let (m, p, x) = stats(v);
        format!("{m:.2} / {p:.2} / {x:.2} ms")
    };
    row("Local sample, cold: CPU, wall", &|p| {
        format!("{:.1} ms, {:.1} ms", p.cold.cpu_ms(), p.cold.wall_ms)
    });
    row("Local sample, idle: CPU median / p95 / max", &|p| {
        ms3(p.idle.iter().map(Call::cpu_ms).collect())
    });
    row("… of which system (median)", &|p| {
        format!(
            "{:.2} ms",
            stats(p.idle.iter().map(|c| c.sys_ms).collect()).0
        )
    });
    row("Local sample, idle: wall median / p95 / max", &|p| {
        ms3(p.idle.iter().map(|c| c.wall_ms).collect())
    });
    row(
        &format!("Local sample, {WRITERS} writers: CPU median / p95 / max"),
        &|p| ms3(p.busy.iter().map(Call::cpu_ms).collect()),
    );
    row("Model tick of a sample (median)", &|p| {
        format!(
            "{:.3} ms",
            stats(p.busy.iter().map(|c| c.tick_ms).collect()).0
        )
    });
    row(
        &format!("Budget ≤ {LOCAL_BUDGET_MS} ms CPU (idle median; at 1,000)"),
        &|p| {
            let m = stats(p.idle.iter().map(Call::cpu_ms).collect()).0;
            if p.processes > 2_000 {
                "–".into()
            } else if m <= LOCAL_BUDGET_MS {
                "PASS".into()
            } else {
                "OVER".into()
            }
        },
    );
    row("Keeps a 1 s interval (max wall < 1 s)", &|p| {
        let x = stats(p.idle.iter().chain(&p.busy).map(|c| c.wall_ms).collect()).2;
        if x < 1_000.0 { "yes" } else { "NO" }.into()
    });
    summary_node(results);
    println!("load average at the end {}", load());
}

/// Prints one row of the summary: a column a population.
fn row(results: &[Population], name: &str, f: &dyn Fn(&Population) -> String) {
    println!(
        "| {name} | {} |",
        results.iter().map(f).collect::<Vec<_>>().join(" | ")
    );
}

fn summary_node(results: &[Population]) {
    let row = |name: &str, f: &dyn Fn(&Population) -> String| row(results, name, f);
    row("Node awk, first run: bytes, CPU", &|p| {
        p.awk_full.map_or("FAILED".into(), |r| {
            format!("{} B, {:.1} ms", r.bytes, r.cpu_ms)
        })
    });
    row("Node awk, idle: bytes, CPU (medians)", &|p| {
        format!(
            "{:.0} B, {:.1} ms",
            stats(p.awk_idle.iter().map(|r| r.bytes as f64).collect()).0,
            stats(p.awk_idle.iter().map(|r| r.cpu_ms).collect()).0
        )
    });
    row(
        &format!("Node awk, {WRITERS} writers: bytes, CPU (medians)"),
        &|p| {
            format!(
                "{:.0} B, {:.1} ms",
                stats(p.awk_busy.iter().map(|r| r.bytes as f64).collect()).0,
                stats(p.awk_busy.iter().map(|r| r.cpu_ms).collect()).0
            )
        },
    );
    row("Whole frame, this machine: plain, zlib (medians)", &|p| {
        format!(
            "{:.0} B, {:.0} B",
            stats(p.frames.iter().map(|f| f.bytes as f64).collect()).0,
            stats(p.frames.iter().map(|f| f.zlib as f64).collect()).0
        )
    });
    row("… procs' share: plain, zlib (medians)", &|p| {
        format!(
            "{:.0} B, {:.0} B",
            stats(p.frames.iter().map(|f| f.procs_bytes as f64).collect()).0,
            stats(
                p.frames
                    .iter()
                    .map(|f| f.zlib as f64 - f.zlib_without_procs as f64)
                    .collect()
            )
            .0
        )
    });
    row(
        &format!("Budget ≤ {} kB/s a node (zlib, max)", BYTES_BUDGET / 1e3),
        &|p| {
            let x = stats(p.frames.iter().map(|f| f.zlib as f64).collect()).2;
            if p.frames.is_empty() {
                "–"
            } else if x <= BYTES_BUDGET {
                "PASS"
            } else {
                "OVER"
            }
            .into()
        },
    );
}

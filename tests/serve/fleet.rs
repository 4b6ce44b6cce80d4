//! The real binary into a real Prometheus (issue 30's "Done means"):
//! `strata serve` with two database nodes and two cells over OpenSSH sshd
//! on loopback (all of them this machine), scraped every second while a
//! bounded dd load runs; dNFS from fixture row sets through the real code
//! path, served in-process beside it; a node that dies; TLS and basic auth
//! with the binary.
//!
//! How the figures are compared, exactly rather than with a tolerance:
//!
//! - **Raw counters against /proc/diskstats.** A node's disks are one
//!   reading of /proc/diskstats: every device of one sample comes from the
//!   same read. The test reads /proc/diskstats (*before*), then writes one
//!   4 KiB block with O_DIRECT to a loop device of its own (nothing else
//!   writes there), then waits for the first scrape whose loop counter
//!   shows that block: the sample behind that scrape was read after the
//!   block, so after *before*. It then reads /proc/diskstats again
//!   (*after*, after Prometheus answered, so after the scrape). For every
//!   device, `before ≤ exposed ≤ after` at that scrape's timestamp, for
//!   both nodes, with no tolerance.
//! - **rate() against `strata batch`.** Prometheus's `rate()` extrapolates
//!   to the edges of its window, and its scrapes and batch's samples fall
//!   at different moments, so rates of a busy shared disk cannot agree to
//!   the byte. The load is therefore put where nothing else is: a loop
//!   device of the test's own (dd with O_DIRECT) and a veth pair whose
//!   other end is in a network namespace of the test's own (UDP datagrams
//!   sent from there, with IPv6 off and static neighbours, so no other
//!   frame crosses it). Their counters are flat before and after the
//!   bounded load. Over the window from the last scrape before the load
//!   to the first scrape after it (`W`, exact scrape timestamps),
//!   `increase(x[W])` at the window's end has no extrapolation (its first
//!   and last samples are the window's edges) and equals the counter's
//!   step, which equals the bytes dd wrote (or the frames sent), and
//!   `rate(x[W])` is that over W. `strata batch disks|nics --format json`
//!   running over the same seconds prints rates with two decimals over
//!   each interval: the sum of `rate × interval_s` over its rows is the
//!   same bytes within the rounding of two decimals (0.005 kB/s × 1024 ×
//!   interval_s a row), and that sum over W is its rate over the same
//!   seconds.

use super::prometheus::{Prometheus, WAIT, api, free_port, job, urlencode};
use super::{
    PROMETHEUS, PROMTOOL, PYTHON, Reply, get, get_tls, have_om_parser, make_certs, or_skip,
};
use crate::common;
use crate::sshd::{self, Keys, Sshd, known_hosts, nonce};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const STRATA: &str = env!("CARGO_BIN_EXE_strata");

/// The tests that load the machine and time its clock, one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn is_root() -> bool {
    sshd::current_user() == "root"
}

/// Root for the loop device and the network namespace: skipped without
/// it, a failure when STRATA_REQUIRE_PROMETHEUS=1 (scripts/test sets that
/// only as root).
fn root_or_skip(test: &str) -> bool {
    if is_root() {
        return true;
    }
    if std::env::var("STRATA_REQUIRE_PROMETHEUS").as_deref() == Ok("1") {
        panic!("{test}: STRATA_REQUIRE_PROMETHEUS=1 but not root (losetup, ip netns)");
    }
    eprintln!("{test}: SKIPPED: needs root for a loop device and a network namespace");
    false
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ------------------------------------------------------------ processes

/// A child process, killed on drop.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `strata serve` on loopback, killed on drop; its stderr in a file.
struct Serve {
    child: Guard,
    addr: SocketAddr,
    stderr: PathBuf,
}

impl Serve {
    /// `strata serve --listen 127.0.0.1:PORT` with `nodes` and `cells`
    /// over `keys`' client key, in a HOME of the test's own, without
    /// ssh-agent; bounded by --duration.
    fn start(keys: &Keys, kh: &Path, nodes: &[&Sshd], cells: &[&Sshd], extra: &[&str]) -> Serve {
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let stderr = keys.path(&nonce("serve-stderr"));
        let mut cmd = Command::new(STRATA);
        cmd.args(["serve", "--interval", "1", "--duration", "120s", "--listen"])
            .arg(addr.to_string())
            .arg("--known-hosts")
            .arg(kh)
            .arg("--node-identity")
            .arg(&keys.client_key)
            .arg("--cell-identity")
            .arg(&keys.client_key)
            .args(extra);
        for s in nodes {
            cmd.arg("--node").arg(spec(keys, s));
        }
        for s in cells {
            cmd.arg("--cell").arg(spec(keys, s));
        }
        let child = cmd
            .env("HOME", keys.dir.path())
            .env_remove("SSH_AUTH_SOCK")
            .env_remove("XDG_CONFIG_HOME")
            .env("STRATA_TEST_SAMPLER_TAG", nonce("fleet"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("run strata serve");
        let mut serve = Serve {
            child: Guard(child),
            addr,
            stderr,
        };
        // the port answers once the server is up (bounded)
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(15) {
            if let Ok(Some(status)) = serve.child.0.try_wait() {
                panic!("strata serve exited: {status}\n{}", serve.stderr_text());
            }
            if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                return serve;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "strata serve not listening on {addr} within 15 s\n{}",
            serve.stderr_text()
        );
    }

    fn stderr_text(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

fn spec(keys: &Keys, s: &Sshd) -> String {
    format!("{}@{}:{}", keys.user, s.ip, s.port)
}

/// A node's or cell's label as strata gives it (host:port).
fn label(s: &Sshd) -> String {
    format!("{}:{}", s.ip, s.port)
}

/// `strata batch LAYER --format json --all-devices` on this machine, its
/// stdout lines as they come; killed on drop.
struct Batch {
    _child: Guard,
    lines: mpsc::Receiver<String>,
    seen: Vec<Value>,
}

impl Batch {
    fn start(layer: &str) -> Batch {
        let mut child = Command::new(STRATA)
            .args(["batch", layer, "--format", "json", "--all-devices"])
            .args(["--interval", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run strata batch");
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Batch {
            _child: Guard(child),
            lines,
            seen: Vec::new(),
        }
    }

    fn drain(&mut self) {
        while let Ok(l) = self.lines.try_recv() {
            self.seen.push(serde_json::from_str(&l).unwrap());
        }
    }

    /// The rows of one device or interface so far.
    fn rows(&mut self, key: &str, name: &str) -> Vec<Value> {
        self.drain();
        self.seen
            .iter()
            .filter(|v| v[key] == name)
            .cloned()
            .collect()
    }

    /// Waits (bounded) for `n` rows of `name`.
    fn wait_rows(&mut self, key: &str, name: &str, n: usize) {
        let t = Instant::now();
        while self.rows(key, name).len() < n {
            assert!(
                t.elapsed() < Duration::from_secs(15),
                "batch: {n} rows of {name} not within 15 s: {:?}",
                self.seen.last()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A loop device over a file in `dir`, detached on drop.
struct LoopDev {
    dev: String,
}

impl LoopDev {
    fn new(dir: &Path) -> LoopDev {
        let file = dir.join("loop.img");
        std::fs::File::create(&file)
            .unwrap()
            .set_len(64 << 20)
            .unwrap();
        let dev = run(Command::new("losetup").args(["-f", "--show"]).arg(&file))
            .trim()
            .to_string();
        LoopDev { dev }
    }

    fn name(&self) -> &str {
        self.dev.trim_start_matches("/dev/")
    }

    /// `count` blocks of `bs` with O_DIRECT at block `seek`, bounded.
    fn write(&self, bs: &str, count: u64, seek: u64) {
        dd(&self.dev, bs, count, seek);
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

fn dd(of: &str, bs: &str, count: u64, seek: u64) {
    run(Command::new("timeout").args([
        "30",
        "dd",
        "if=/dev/zero",
        &format!("of={of}"),
        &format!("bs={bs}"),
        &format!("count={count}"),
        &format!("seek={seek}"),
        "oflag=direct",
        "conv=notrunc",
        "status=none",
    ]));
}

/// A veth pair, one end here (`host`) and one in a network namespace of
/// the test's own, with IPv6 off and static neighbours both ways: no frame
/// crosses it but the datagrams the test sends. Removed on drop.
struct Veth {
    ns: String,
    host: String,
    host_ip: String,
}

impl Veth {
    fn new() -> Veth {
        let id = std::process::id() % 100_000;
        let (ns, host, peer) = (
            format!("strata-fleet-{id}"),
            format!("stf{id}h"),
            format!("stf{id}p"),
        );
        let net = 100 + id % 150;
        let (host_ip, peer_ip) = (format!("10.213.{net}.1"), format!("10.213.{net}.2"));
        let (host_mac, peer_mac) = ("02:5f:00:00:00:01", "02:5f:00:00:00:02");
        let _ = Command::new("ip")
            .args(["netns", "del", &ns])
            .stderr(Stdio::null())
            .status();
        run(Command::new("ip").args(["netns", "add", &ns]));
        let v = Veth {
            ns: ns.clone(),
            host: host.clone(),
            host_ip: host_ip.clone(),
        };
        let inns = |args: &[&str]| {
            run(Command::new("ip").args(["netns", "exec", &ns]).args(args));
        };
        inns(&[
            "sysctl",
            "-qw",
            "net.ipv6.conf.all.disable_ipv6=1",
            "net.ipv6.conf.default.disable_ipv6=1",
        ]);
        run(Command::new("ip").args([
            "link", "add", &host, "address", host_mac, "type", "veth", "peer", "name", &peer,
            "address", peer_mac, "netns", &ns,
        ]));
        std::fs::write(format!("/proc/sys/net/ipv6/conf/{host}/disable_ipv6"), "1").unwrap();
        run(Command::new("ip").args(["addr", "add", &format!("{host_ip}/24"), "dev", &host]));
        run(Command::new("ip").args([
            "neigh",
            "replace",
            &peer_ip,
            "lladdr",
            peer_mac,
            "dev",
            &host,
            "nud",
            "permanent",
        ]));
        run(Command::new("ip").args(["link", "set", &host, "up"]));
        inns(&["ip", "addr", "add", &format!("{peer_ip}/24"), "dev", &peer]);
        inns(&[
            "ip",
            "neigh",
            "replace",
            &host_ip,
            "lladdr",
            host_mac,
            "dev",
            &peer,
            "nud",
            "permanent",
        ]);
        inns(&["ip", "link", "set", &peer, "up"]);
        v
    }

    /// `n` UDP datagrams of `size` bytes from the namespace to this end,
    /// paced (50 then 2 ms) so that no backlog drops one; bounded.
    fn send(&self, n: u32, size: u32) {
        let script = "import socket,sys,time\n\
            n,size,dst=int(sys.argv[1]),int(sys.argv[2]),sys.argv[3]\n\
            s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n\
            for i in range(n):\n    s.sendto(b'x'*size,(dst,9))\n    \
            if i%50==49: time.sleep(0.002)\n";
        run(Command::new("timeout")
            .args(["30", "ip", "netns", "exec", &self.ns, PYTHON, "-c", script])
            .args([n.to_string(), size.to_string(), self.host_ip.clone()]));
    }
}

impl Drop for Veth {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["link", "del", &self.host])
            .status();
        let _ = Command::new("ip").args(["netns", "del", &self.ns]).status();
    }
}

// ------------------------------------------------------------ Prometheus

/// Prometheus's time parameter for a timestamp in ms, exactly.
fn at(ms: i64) -> String {
    format!("{}.{:03}", ms.div_euclid(1000), ms.rem_euclid(1000))
}

/// The instant vector of `q` at `ms`.
fn query_at(p: &Prometheus, q: &str, ms: i64) -> Vec<(Value, f64)> {
    let v = api(
        p.addr,
        &format!("/api/v1/query?query={}&time={}", urlencode(q), at(ms)),
    )
    .unwrap_or_else(|| panic!("query {q} at {ms} failed"));
    v["data"]["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["metric"].clone(),
                r["value"][1].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect()
}

/// Every scraped sample of `selector` over the last `secs` before `ms`:
/// (labels, [(timestamp ms, value)]).
fn raw(p: &Prometheus, selector: &str, secs: u64, ms: i64) -> Vec<(Value, Vec<(i64, f64)>)> {
    let q = format!("{selector}[{secs}s]");
    let v = api(
        p.addr,
        &format!("/api/v1/query?query={}&time={}", urlencode(&q), at(ms)),
    )
    .unwrap_or_else(|| panic!("query {q} failed"));
    v["data"]["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let points = r["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| {
                    (
                        (x[0].as_f64().unwrap() * 1000.0).round() as i64,
                        x[1].as_str().unwrap().parse().unwrap(),
                    )
                })
                .collect();
            (r["metric"].clone(), points)
        })
        .collect()
}

/// The one series of `selector`'s raw samples (panics on none or more).
fn raw_one(p: &Prometheus, selector: &str, secs: u64) -> Vec<(i64, f64)> {
    let mut r = raw(p, selector, secs, now_ms());
    assert_eq!(r.len(), 1, "{selector}: {r:?}");
    r.remove(0).1
}

/// A counter's step over a burst, from its scraped samples: the last
/// scrape before the counter moved (`t0`, `v0`) and the first one after
/// it stopped (`t1`, `v1`); every sample before `t0` equals `v0` and
/// every one after `t1` equals `v1`.
struct Step {
    t0: i64,
    v0: f64,
    t1: i64,
    v1: f64,
}

fn step(points: &[(i64, f64)], what: &str) -> Step {
    let (v0, v1) = (points[0].1, points[points.len() - 1].1);
    let i0 = points.iter().rposition(|x| x.1 == v0).unwrap();
    let i1 = points.iter().position(|x| x.1 == v1).unwrap();
    assert!(
        i0 < i1 && points[..=i0].iter().all(|x| x.1 == v0),
        "{what}: no flat start then one rise then a flat end: {points:?}"
    );
    assert!(
        points.len() - i1 >= 2 && i0 >= 1,
        "{what}: want two flat scrapes each side: {points:?}"
    );
    Step {
        t0: points[i0].0,
        v0,
        t1: points[i1].0,
        v1,
    }
}

/// `increase()` and `rate()` over exactly the step's window, at its end.
fn aligned(p: &Prometheus, selector: &str, s: &Step) -> (f64, f64) {
    let w = s.t1 - s.t0;
    let inc = query_at(p, &format!("increase({selector}[{w}ms])"), s.t1);
    let rate = query_at(p, &format!("rate({selector}[{w}ms])"), s.t1);
    assert_eq!(
        (inc.len(), rate.len()),
        (1, 1),
        "{selector}: {inc:?} {rate:?}"
    );
    (inc[0].1, rate[0].1)
}

/// Batch's rows of a device: the bytes they stand for (Σ rate × 1024 ×
/// interval) and the most two-decimal rounding can put in that sum.
fn batch_bytes(rows: &[Value], key: &str) -> (f64, f64, f64) {
    let mut bytes = 0.0;
    let mut secs = 0.0;
    for r in rows {
        let itv = r["interval_s"].as_f64().unwrap();
        bytes += r[key].as_f64().unwrap() * 1024.0 * itv;
        secs += itv;
    }
    (bytes, 0.005 * 1024.0 * secs, secs)
}

// ------------------------------------------------------------ /proc

/// /proc/diskstats: device → (reads completed, sectors written).
fn diskstats() -> BTreeMap<String, (u64, u64)> {
    std::fs::read_to_string("/proc/diskstats")
        .unwrap()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 14).then(|| {
                (
                    f[2].to_string(),
                    (f[3].parse().unwrap(), f[9].parse().unwrap()),
                )
            })
        })
        .collect()
}

// ------------------------------------------------------------ dNFS

/// The dNFS readings of the fixture (19c RAC, tests/common/dnfs.rs), one
/// after another through the real path: App, `Input::Db(DbEvent::Sample)`,
/// the Collector, `to_metrics` and the server's publisher, each held for
/// `HOLD`; with this host's NICs (the fixture host's, with bond0) beside
/// them, so that the dashboard's bond panels have series too.
struct DnfsFeed {
    addr: SocketAddr,
    /// When each reading was published (wall ms).
    published: Arc<Mutex<Vec<i64>>>,
    go: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    _server: strata::serve::Server,
}

const HOLD: Duration = Duration::from_millis(2500);

fn dnfs_readings() -> Vec<strata::layers::dnfs::dnfs_sample::DnfsSample> {
    common::dnfs::readings("19c", 3)
}

impl DnfsFeed {
    fn start() -> DnfsFeed {
        use strata::app::Input;
        use strata::layers::dnfs::source::{DbEvent, DbStatus, parse_db_spec};
        let (server, publisher) = strata::serve::start_with(
            "127.0.0.1:0".parse().unwrap(),
            None,
            strata::serve::Limits::default(),
        )
        .unwrap();
        let addr = server.local_addr();
        let published = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let go = Arc::new(AtomicBool::new(false));
        let (pubd, st, g) = (published.clone(), stop.clone(), go.clone());
        let thread = std::thread::spawn(move || {
            // the readings once Prometheus scrapes (bounded)
            let t = Instant::now();
            while !g.load(Ordering::Relaxed) && t.elapsed() < Duration::from_secs(60) {
                if st.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let mut app = common::app_with(2);
            app.set_dbs(vec![parse_db_spec("dbsnmp@//prod-scan:1521/PROD").unwrap()]);
            app.apply(Input::Db(DbEvent::Status {
                db: 0,
                status: DbStatus::Live,
            }));
            app.apply(Input::Db(DbEvent::Instances {
                db: 0,
                instances: common::dnfs::prod_instances(),
            }));
            let mut collector = strata::expose::Collector::default();
            for (k, s) in dnfs_readings().into_iter().enumerate() {
                if st.load(Ordering::Relaxed) {
                    return;
                }
                let now = s.wall_ms + 500;
                app.now_ms = now;
                app.apply(Input::Db(DbEvent::Sample { db: 0, sample: s }));
                let mut nics = common::nic_sample(2 + k as u64);
                nics.wall_ms = now - 500;
                let last = [Input::Nics(Ok(nics))];
                let e = collector.build(&app, last.iter(), now);
                publisher.publish(strata::expose::to_metrics(&e));
                pubd.lock().unwrap().push(now_ms());
                let t = Instant::now();
                while t.elapsed() < HOLD && !st.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        });
        DnfsFeed {
            addr,
            published,
            go,
            stop,
            thread: Some(thread),
            _server: server,
        }
    }

    /// Starts publishing: call once Prometheus scrapes the feed.
    fn go(&self) {
        self.go.store(true, Ordering::Relaxed);
    }

    /// Waits (bounded) until every reading has been published and held.
    fn wait_done(&self) -> Vec<i64> {
        let n = dnfs_readings().len();
        let t = Instant::now();
        loop {
            let p = self.published.lock().unwrap().clone();
            if p.len() == n && now_ms() - p[n - 1] >= HOLD.as_millis() as i64 {
                return p;
            }
            assert!(t.elapsed() < Duration::from_secs(30), "dNFS feed: {p:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for DnfsFeed {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Each instance's dNFS counts, summed over its processes, of a reading.
fn inst_counts(
    s: &strata::layers::dnfs::dnfs_sample::DnfsSample,
    inst: u32,
) -> (u64, u64, u64, u64) {
    let mut c = (0, 0, 0, 0);
    for p in s.stats.iter().filter(|p| p.inst_id == inst) {
        c.0 += p.nfs_read;
        c.1 += p.nfs_write;
        c.2 += p.read_bytes.unwrap_or(0);
        c.3 += p.write_bytes.unwrap_or(0);
    }
    c
}

/// The dNFS checks on a Prometheus that scraped `feed` as job `dnfs`:
/// every family with its database and instance labels, and `increase()`
/// over the scrapes of reading 1 to the last (the same processes in each)
/// equal to the fixture's counts.
fn check_dnfs(p: &Prometheus, feed: &DnfsFeed) {
    let published = feed.wait_done();
    let readings = dnfs_readings();
    let families = [
        "strata_dnfs_reads_total",
        "strata_dnfs_writes_total",
        "strata_dnfs_read_bytes_total",
        "strata_dnfs_written_bytes_total",
    ];
    for f in families.iter().chain(&[
        "strata_dnfs_channel_sends_total",
        "strata_dnfs_channel_receives_total",
    ]) {
        let r = p.query(&format!("{f}{{job=\"dnfs\"}}"));
        assert!(!r.is_empty(), "{f}: no series");
        for (l, _) in &r {
            assert!(
                l["database"].is_string()
                    && l["instance_name"].is_string()
                    && l.get("exported_instance").is_none(),
                "{f}: {l}"
            );
        }
    }
    let last = readings.len() - 1;
    for (inst, name) in [(1u32, "PROD1"), (2, "PROD2")] {
        for f in families {
            let sel = format!("{f}{{job=\"dnfs\",instance_name=\"{name}\"}}");
            let points = raw_one(p, &sel, 120);
            // a scrape well inside reading k's hold shows reading k
            let inside = |k: usize| {
                let from = published[k] + 200;
                let to = published.get(k + 1).copied().unwrap_or(i64::MAX) - 200;
                points.iter().find(|(t, _)| (from..to).contains(t)).copied()
            };
            // the first reading with figures (strata shows none from the
            // first; the processes are the same from reading 1 on)
            let first = (1..=last)
                .find(|&k| inside(k).is_some())
                .unwrap_or_else(|| panic!("{sel}: {points:?}, published {published:?}"));
            assert!(
                first < last,
                "{sel}: only the last reading scraped: {points:?}"
            );
            let (t0, v0) = inside(first).unwrap();
            let (t1, v1) = inside(last).unwrap();
            let (a, b) = (
                inst_counts(&readings[first], inst),
                inst_counts(&readings[last], inst),
            );
            let want = match f {
                "strata_dnfs_reads_total" => b.0 - a.0,
                "strata_dnfs_writes_total" => b.1 - a.1,
                "strata_dnfs_read_bytes_total" => b.2 - a.2,
                _ => b.3 - a.3,
            };
            let inc = query_at(p, &format!("increase({sel}[{}ms])", t1 - t0), t1);
            eprintln!(
                "dNFS {f}{{instance_name={name}}}: {v0} at reading {first}, {v1} at reading {last}; increase() over the aligned {} ms = {}; the fixture's processes' counts grew by {want}",
                t1 - t0,
                inc[0].1
            );
            assert_eq!(v1 - v0, want as f64, "{sel}");
            assert_eq!(inc[0].1, want as f64, "{sel}");
        }
    }
}

#[test]
fn dnfs_fixture_readings_through_the_real_path_into_prometheus() {
    let test = "dnfs_fixture_readings_through_the_real_path_into_prometheus";
    if !or_skip(test, &[(PROMETHEUS, "prometheus")]) {
        return;
    }
    let feed = DnfsFeed::start();
    let p = Prometheus::start(&job("dnfs", feed.addr, ""));
    feed.go();
    check_dnfs(&p, &feed);
}

// ------------------------------------------------------------ the fleet

/// promtool on the real 0.0.4 exposition: only the camelCase lint on
/// node_exporter's own node_memory_* names (node_exporter's e2e test
/// filters the same). OpenMetrics: promtool 2.42 reads only the 0.0.4
/// text (a counter's HELP under the family name, without `_total`, is an
/// error to it), so the OpenMetrics reference parser of the Python client
/// reads the real OpenMetrics exposition instead.
fn check_formats(addr: SocketAddr) {
    let text = get(
        addr,
        "GET",
        "/metrics",
        &[("Accept", "text/plain;version=0.0.4")],
    );
    assert_eq!(text.status, 200);
    let out = pipe(Command::new(PROMTOOL).args(["check", "metrics"]), &text);
    let complaints: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!complaints.is_empty(), "no node_memory_* lint at all?");
    for c in &complaints {
        assert!(
            c.starts_with("node_memory_")
                && c.ends_with("metric names should be written in 'snake_case' not 'camelCase'"),
            "promtool check metrics: {c}"
        );
    }
    eprintln!(
        "promtool check metrics on {} bytes of 0.0.4: {} complaints, each camelCase on node_memory_*: {complaints:?}",
        text.body.len(),
        complaints.len()
    );
    if let Err(package) = have_om_parser() {
        if std::env::var("STRATA_REQUIRE_PROMETHEUS").as_deref() == Ok("1") {
            panic!("STRATA_REQUIRE_PROMETHEUS=1 but {package} is missing");
        }
        eprintln!("OpenMetrics parser: SKIPPED: apt-get install {package}");
        return;
    }
    let om = get(
        addr,
        "GET",
        "/metrics",
        &[("Accept", "application/openmetrics-text; version=1.0.0")],
    );
    assert_eq!(om.status, 200);
    let script = "import sys\n\
        from prometheus_client.openmetrics.parser import text_string_to_metric_families\n\
        fs=list(text_string_to_metric_families(sys.stdin.read()))\n\
        print(len(fs), sum(len(f.samples) for f in fs))\n";
    let out = pipe(Command::new(PYTHON).args(["-c", script]), &om);
    eprintln!("OpenMetrics parser: (families, samples) = {}", out.trim());
}

/// `cmd` with `reply`'s body on stdin: its stdout and stderr, whatever
/// its exit (promtool exits 1 on a lint).
fn pipe(cmd: &mut Command, reply: &Reply) -> String {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&reply.body).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // promtool exits 1 for lint findings only; the parser exits 0
    assert!(
        out.status.success() || cmd.get_program() == PROMTOOL,
        "{cmd:?}: {said}"
    );
    said
}

/// Each panel expression of the shipped dashboard, `$__rate_interval`
/// as 5s (five scrapes at 1 s).
fn dashboard_exprs() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/grafana-dashboard.json"
    ))
    .unwrap();
    let d: Value = serde_json::from_str(&text).unwrap();
    let mut out = Vec::new();
    fn walk(panels: &Value, out: &mut Vec<(String, String)>) {
        for p in panels.as_array().into_iter().flatten() {
            walk(&p["panels"], out);
            for t in p["targets"].as_array().into_iter().flatten() {
                if let Some(e) = t["expr"].as_str() {
                    out.push((
                        p["title"].as_str().unwrap_or("").to_string(),
                        e.replace("$__rate_interval", "5s"),
                    ));
                }
            }
        }
    }
    walk(&d["panels"], &mut out);
    out
}

fn loop_sel(lo: &LoopDev, n: &str) -> String {
    format!(
        "node_disk_written_bytes_total{{job=\"strata\",node=\"{n}\",device=\"{}\"}}",
        lo.name()
    )
}

fn veth_sel(veth: &Veth, n: &str) -> String {
    format!(
        "node_network_receive_bytes_total{{job=\"strata\",node=\"{n}\",device=\"{}\"}}",
        veth.host
    )
}

/// The bounded load between flat stretches, with `strata batch` running
/// through it: the counters' steps, increase() and rate() over the exact
/// window, and batch's figures over the same seconds (the module's doc
/// says how).
fn check_rates(p: &Prometheus, lo: &LoopDev, veth: &Veth, node_labels: &[String], work: &Path) {
    let loop_sel = |n: &str| loop_sel(lo, n);
    let veth_sel = |n: &str| veth_sel(veth, n);
    // ---- the load, between flat stretches, with batch running through it
    let mut bdisks = Batch::start("disks");
    let mut bnics = Batch::start("nics");
    bdisks.wait_rows("disk_device", lo.name(), 1);
    bnics.wait_rows("interface", &veth.host, 1);
    std::thread::sleep(Duration::from_millis(2500));
    let load_mib = 24u64;
    let (datagrams, size) = (3000u32, 1000u32);
    let disk_file = work.join("load");
    let t_load = Instant::now();
    std::thread::scope(|s| {
        // spread over a few scrapes: 6 × 4 MiB and 3 × 1000 datagrams
        s.spawn(|| {
            for i in 0..6 {
                lo.write("1M", load_mib / 6, 8 + i * load_mib / 6);
                std::thread::sleep(Duration::from_millis(400));
            }
        });
        s.spawn(|| {
            for _ in 0..3 {
                veth.send(datagrams / 3, size);
                std::thread::sleep(Duration::from_millis(700));
            }
        });
        s.spawn(|| dd(disk_file.to_str().unwrap(), "1M", 48, 0));
    });
    let load_s = t_load.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_millis(3500));
    let drows = bdisks.rows("disk_device", lo.name());
    let nrows = bnics.rows("interface", &veth.host);
    drop((bdisks, bnics));
    eprintln!(
        "load: {load_mib} MiB to {} and {datagrams} datagrams of {size} B into {} in {load_s:.2} s (and 48 MiB to a file)",
        lo.name(),
        veth.host
    );
    let want_disk = (load_mib << 20) as f64;
    // a frame of a datagram: Ethernet 14 + IPv4 20 + UDP 8 + payload
    let want_nic = f64::from(datagrams * (size + 42));
    for (what, sel, rows, key, want) in [
        (
            "disk",
            &loop_sel as &dyn Fn(&str) -> String,
            &drows,
            "wkB/s",
            want_disk,
        ),
        ("nic", &veth_sel, &nrows, "rKB/s", want_nic),
    ] {
        let (bytes, rounding, secs) = batch_bytes(rows, key);
        for n in node_labels {
            let s = sel(n);
            let st = step(&raw_one(p, &s, 60), &s);
            let (inc, rate) = aligned(p, &s, &st);
            let w = (st.t1 - st.t0) as f64 / 1000.0;
            eprintln!(
                "{what} {n}: scraped {} at {} then {} at {} (W = {w:.3} s): step {}, increase() {inc}, rate() {rate:.1} B/s; batch over {} rows ({secs:.2} s): {bytes:.0} B (±{rounding:.0}), {:.1} B/s over the same W",
                st.v0,
                st.t0,
                st.v1,
                st.t1,
                st.v1 - st.v0,
                rows.len(),
                bytes / w
            );
            assert_eq!(st.v1 - st.v0, want, "{s}");
            assert_eq!(inc, want, "{s}");
            assert!((rate * w - want).abs() < 1e-6 * want, "{s}: {rate} × {w}");
            assert!(
                (bytes - want).abs() <= rounding,
                "{what}: batch {bytes} vs {want} (rounding {rounding}): {rows:?}"
            );
            assert!((bytes / w - rate).abs() <= rounding / w, "{what}: rates");
        }
    }
}

/// Raw counters against /proc/diskstats read before a witness write and
/// after the scrape that shows it (the module's doc says why that is
/// exact).
fn check_diskstats(p: &Prometheus, lo: &LoopDev, node_labels: &[String], work: &Path) {
    let loop_sel = |n: &str| loop_sel(lo, n);
    // ---- raw counters against /proc/diskstats, with a witness write
    let before = diskstats();
    let t_before = now_ms();
    let marker_at = before[lo.name()].1 * 512 + 4096;
    std::thread::scope(|s| {
        s.spawn(|| dd(work.join("load2").to_str().unwrap(), "1M", 16, 0));
        lo.write("4k", 1, 7 * 256);
        let mut seen = Vec::new();
        for n in node_labels {
            let t = Instant::now();
            let ts = loop {
                let hit = raw_one(p, &loop_sel(n), 30)
                    .into_iter()
                    .find(|(ts, v)| *ts >= t_before && *v >= marker_at as f64);
                if let Some((ts, _)) = hit {
                    break ts;
                }
                assert!(t.elapsed() < WAIT, "{n}: the marker write never scraped");
                std::thread::sleep(Duration::from_millis(200));
            };
            seen.push((n.clone(), ts));
        }
        let after = diskstats();
        for (n, ts) in &seen {
            let reads = query_at(
                p,
                &format!("node_disk_reads_completed_total{{job=\"strata\",node=\"{n}\"}}"),
                *ts,
            );
            let written = query_at(
                p,
                &format!("node_disk_written_bytes_total{{job=\"strata\",node=\"{n}\"}}"),
                *ts,
            );
            assert!(!reads.is_empty() && reads.len() == written.len());
            for ((l, r), (l2, w)) in reads.iter().zip(&written) {
                let dev = l["device"].as_str().unwrap();
                assert_eq!(l2["device"], l["device"]);
                let (b, a) = (before[dev], after[dev]);
                let (r, w) = (*r as u64, *w as u64);
                assert!(
                    b.0 <= r && r <= a.0,
                    "{n} {dev} reads: {} ≤ {r} ≤ {}",
                    b.0,
                    a.0
                );
                assert!(
                    b.1 * 512 <= w && w <= a.1 * 512,
                    "{n} {dev} written: {} ≤ {w} ≤ {}",
                    b.1 * 512,
                    a.1 * 512
                );
                if dev == "vda" || dev == lo.name() || reads.len() <= 4 {
                    eprintln!(
                        "{n} {dev} at scrape {ts}: reads {} ≤ {r} ≤ {}; written bytes {} ≤ {w} ≤ {}",
                        b.0,
                        a.0,
                        b.1 * 512,
                        a.1 * 512
                    );
                }
            }
        }
    });
}

/// The cells' families with their media, the pressure families of each
/// node and each link up.
fn check_families(p: &Prometheus, node_labels: &[String], cell_labels: &[String]) {
    // ---- cells, pressure, links
    for c in cell_labels {
        let r = p.wait_for(
            &format!("strata_cell_disk_written_bytes_total{{job=\"strata\",cell=\"{c}\"}}"),
            WAIT,
            |r| !r.is_empty(),
        );
        let media: Vec<String> = r
            .iter()
            .map(|(l, _)| format!("{}={}", l["device"], l["media"]))
            .collect();
        assert!(
            r.iter()
                .any(|(l, _)| l["media"] == "DISK" || l["media"] == "FLASH"),
            "{c}: {media:?}"
        );
        eprintln!("cell {c}: strata_cell_disk_written_bytes_total {media:?}");
    }
    // cellsrv's figures come from the stand-in cellcli's listing, which
    // has none of the per-second metrics they need: shown, not required
    let srv = p.query("{job=\"strata\",__name__=~\"strata_cellsrv_.*\"}");
    eprintln!(
        "strata_cellsrv_* series from the stand-in cellcli: {}",
        srv.len()
    );
    for n in node_labels {
        for f in [
            "node_pressure_cpu_waiting_seconds_total",
            "node_pressure_io_waiting_seconds_total",
            "node_pressure_io_stalled_seconds_total",
            "node_pressure_memory_waiting_seconds_total",
            "node_pressure_memory_stalled_seconds_total",
        ] {
            let r = p.query(&format!("{f}{{job=\"strata\",node=\"{n}\"}}"));
            assert_eq!(r.len(), 1, "{f} {n}: {r:?}");
        }
    }
    for (kind, ls) in [("node", node_labels), ("cell", cell_labels)] {
        for t in ls.iter() {
            let r = p.query(&format!(
                "strata_link_up{{job=\"strata\",kind=\"{kind}\",target=\"{t}\"}}"
            ));
            assert_eq!(r.len(), 1, "{kind} {t}: {r:?}");
            assert_eq!(r[0].1, 1.0, "{kind} {t}");
        }
    }
}

/// Two nodes and two cells (this machine over loopback sshd), `strata
/// serve` scraped every second by a real Prometheus, with the dNFS feed
/// as a second job; bounded load on a loop device of the test's own, a
/// veth of its own and a file on this machine's disk.
#[test]
fn two_nodes_and_two_cells_into_prometheus_under_load() {
    let test = "two_nodes_and_two_cells_into_prometheus_under_load";
    if !or_skip(
        test,
        &[(PROMETHEUS, "prometheus"), (PROMTOOL, "prometheus")],
    ) || !sshd::available(test)
        || !root_or_skip(test)
    {
        return;
    }
    let _serial = serial();
    let started = Instant::now();
    let keys = Keys::new();
    let cellcli = keys.with_cellcli();
    let nodes = [
        Sshd::start(&keys, "127.0.0.41", ""),
        Sshd::start(&keys, "127.0.0.42", ""),
    ];
    let cells = [
        Sshd::start(&keys, "127.0.0.43", &cellcli),
        Sshd::start(&keys, "127.0.0.44", &cellcli),
    ];
    let kh = known_hosts(&keys, &[&nodes[0], &nodes[1], &cells[0], &cells[1]]);
    let work = tempfile::tempdir().unwrap();
    let lo = LoopDev::new(work.path());
    // once used, the loop device is a series (never-used devices are not)
    lo.write("1M", 1, 0);
    let veth = Veth::new();
    veth.send(1, 100);
    let feed = DnfsFeed::start();
    let serve = Serve::start(
        &keys,
        &kh,
        &[&nodes[0], &nodes[1]],
        &[&cells[0], &cells[1]],
        &[],
    );
    let p = Prometheus::start(&format!(
        "{}{}",
        job("strata", serve.addr, ""),
        job("dnfs", feed.addr, "")
    ));
    feed.go();
    let node_labels = [label(&nodes[0]), label(&nodes[1])];
    let cell_labels = [label(&cells[0]), label(&cells[1])];
    let loop_sel = |n: &str| loop_sel(&lo, n);
    let veth_sel = |n: &str| veth_sel(&veth, n);
    for n in &node_labels {
        p.wait_for(&loop_sel(n), WAIT, |r| r.len() == 1);
        p.wait_for(&veth_sel(n), WAIT, |r| r.len() == 1);
    }
    eprintln!(
        "{:.1} s: both nodes' loop and veth series in Prometheus",
        started.elapsed().as_secs_f64()
    );

    check_rates(&p, &lo, &veth, &node_labels, work.path());
    check_diskstats(&p, &lo, &node_labels, work.path());
    check_families(&p, &node_labels, &cell_labels);

    // ---- the dNFS feed, and every expression of the dashboard
    check_dnfs(&p, &feed);
    for (title, e) in dashboard_exprs() {
        let r = p.query(&e);
        assert!(!r.is_empty(), "dashboard panel {title:?}: no data for {e}");
        eprintln!("dashboard {title:?}: {} series", r.len());
    }

    check_formats(serve.addr);
    let up = p.query("up");
    assert!(up.iter().all(|(_, v)| *v == 1.0), "{up:?}");
    let targets = api(p.addr, "/api/v1/targets").unwrap();
    for t in targets["data"]["activeTargets"].as_array().unwrap() {
        eprintln!(
            "target {}: {} last scrape {} s",
            t["labels"]["job"], t["health"], t["lastScrapeDuration"]
        );
    }
    assert!(
        serve.child.0.id() > 0 && !serve.stderr_text().contains("panicked"),
        "{}",
        serve.stderr_text()
    );
    eprintln!("{test}: {:.1} s", started.elapsed().as_secs_f64());
}

// ------------------------------------------------------------ faults

/// A node's sshd killed mid-run: its link goes 0 on the next scrapes and
/// its host series go stale (Prometheus's staleness marker: an instant
/// query after it finds none, where a frozen value would be found for
/// five minutes), while the other node's series go on.
#[test]
fn a_node_that_dies_is_marked_down_and_its_series_go_stale() {
    let test = "a_node_that_dies_is_marked_down_and_its_series_go_stale";
    if !or_skip(test, &[(PROMETHEUS, "prometheus")]) || !sshd::available(test) {
        return;
    }
    let _serial = serial();
    let keys = Keys::new();
    let mut nodes = [
        Sshd::start(&keys, "127.0.0.45", ""),
        Sshd::start(&keys, "127.0.0.46", ""),
    ];
    let kh = known_hosts(&keys, &[&nodes[0], &nodes[1]]);
    let serve = Serve::start(&keys, &kh, &[&nodes[0], &nodes[1]], &[], &[]);
    let p = Prometheus::start(&job("strata", serve.addr, ""));
    let (alive, dead) = (label(&nodes[0]), label(&nodes[1]));
    let disk = |n: &str| format!("node_disk_reads_completed_total{{job=\"strata\",node=\"{n}\"}}");
    let link = format!("strata_link_up{{job=\"strata\",kind=\"node\",target=\"{dead}\"}}");
    for n in [&alive, &dead] {
        p.wait_for(&disk(n), WAIT, |r| !r.is_empty());
    }
    p.wait_for(&link, WAIT, |r| r.len() == 1 && r[0].1 == 1.0);
    // a few scrapes of both
    std::thread::sleep(Duration::from_secs(3));
    let series = p.query(&disk(&dead)).len();

    let t_kill = now_ms();
    nodes[1].kill_all();
    let k = Instant::now();
    p.wait_for(&link, WAIT, |r| r.len() == 1 && r[0].1 == 0.0);
    let down_s = k.elapsed().as_secs_f64();
    p.wait_for(&disk(&dead), WAIT, |r| r.is_empty());
    let stale_s = k.elapsed().as_secs_f64();
    // the link's first 0 and the dead node's last scraped sample
    let first_zero = raw_one(&p, &link, 60)
        .into_iter()
        .find(|(t, v)| *t >= t_kill && *v == 0.0)
        .unwrap()
        .0;
    let last_seen = raw(&p, &disk(&dead), 60, now_ms())
        .iter()
        .filter_map(|(_, pts)| pts.last().map(|x| x.0))
        .max()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let now = now_ms();
    // stale, not frozen: no series at any time after the marker
    assert!(query_at(&p, &disk(&dead), now).is_empty());
    assert!(query_at(&p, &disk(&dead), last_seen + 1500).is_empty());
    assert_eq!(query_at(&p, &disk(&dead), last_seen).len(), series);
    // the other node goes on, scraped after the kill
    let other = raw(&p, &disk(&alive), 10, now);
    assert!(!other.is_empty());
    let newest = other
        .iter()
        .filter_map(|(_, pts)| pts.last().map(|x| x.0))
        .max()
        .unwrap();
    assert!(
        newest > now - 2500,
        "{alive}: newest sample {newest}, now {now}"
    );
    let err = p.query(&format!(
        "strata_link_last_error_timestamp_seconds{{job=\"strata\",kind=\"node\",target=\"{dead}\"}}"
    ));
    eprintln!(
        "killed {dead}'s sshd at {t_kill}: link_up 0 in Prometheus after {down_s:.1} s (first 0 scraped at {first_zero}, +{} ms); its {series} node_disk series last scraped at {last_seen} (+{} ms), gone (stale) from instant queries after {stale_s:.1} s; {alive} scraped at {newest}; last error timestamp {err:?}",
        first_zero - t_kill,
        last_seen - t_kill
    );
}

// ------------------------------------------------------------ TLS

/// A bcrypt hash of `password` made outside strata: python3's bcrypt
/// (Debian's python3-bcrypt), else `htpasswd -nbB` (apache2-utils).
fn bcrypt_hash(password: &str) -> Result<String, String> {
    let py = Command::new(PYTHON)
        .args([
            "-c",
            "import bcrypt,sys; print(bcrypt.hashpw(sys.argv[1].encode(), bcrypt.gensalt(6)).decode())",
            password,
        ])
        .output();
    if let Ok(o) = py
        && o.status.success()
    {
        return Ok(String::from_utf8_lossy(&o.stdout).trim().to_string());
    }
    let ht = Command::new("htpasswd")
        .args(["-nbBC", "6", "prometheus", password])
        .output();
    if let Ok(o) = ht
        && o.status.success()
    {
        let line = String::from_utf8_lossy(&o.stdout).trim().to_string();
        return Ok(line.split_once(':').unwrap().1.to_string());
    }
    Err("python3-bcrypt (or apache2-utils)".into())
}

/// Plain HTTP to the TLS port gets no HTTP answer; a wrong password and
/// none get 401 and no figure; the right one gets the figures.
fn check_answers(addr: SocketAddr, ca: &Path) {
    let ca = ca.to_path_buf();
    // plain HTTP on the TLS port: no HTTP answer at all
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    assert!(
        !raw.starts_with(b"HTTP/"),
        "{}",
        String::from_utf8_lossy(&raw)
    );
    use base64::Engine as _;
    let basic = |s: &str| {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(s)
        )
    };
    let wrong = get_tls(
        addr,
        &ca,
        "/metrics",
        &[("Authorization", &basic("prometheus:wrong"))],
    );
    assert_eq!(wrong.status, 401);
    assert!(!wrong.text().contains("node_"));
    assert_eq!(get_tls(addr, &ca, "/metrics", &[]).status, 401);
    // the first exposition comes with the first sample: bounded wait
    let t = Instant::now();
    let right = loop {
        let r = get_tls(
            addr,
            &ca,
            "/metrics",
            &[("Authorization", &basic("prometheus:correct horse"))],
        );
        if r.status == 200 && r.text().contains("node_disk_reads_completed_total") {
            break r;
        }
        assert!(t.elapsed() < WAIT, "{} {}", r.status, r.text());
        std::thread::sleep(Duration::from_millis(200));
    };
    eprintln!(
        "plain HTTP: no HTTP answer ({} bytes); wrong password: 401; right: 200, {} bytes",
        raw.len(),
        right.body.len()
    );
}

#[test]
fn the_binary_over_tls_with_basic_auth_scraped_by_prometheus() {
    let test = "the_binary_over_tls_with_basic_auth_scraped_by_prometheus";
    if !or_skip(
        test,
        &[(PROMETHEUS, "prometheus"), ("/usr/bin/openssl", "openssl")],
    ) {
        return;
    }
    let hash = match bcrypt_hash("correct horse") {
        Ok(h) => h,
        Err(package) => {
            if std::env::var("STRATA_REQUIRE_PROMETHEUS").as_deref() == Ok("1") {
                panic!("{test}: STRATA_REQUIRE_PROMETHEUS=1 but {package} is missing");
            }
            eprintln!("{test}: SKIPPED: apt-get install {package}");
            return;
        }
    };
    assert!(hash.starts_with("$2"), "{hash}");
    let keys = Keys::new();
    let (ca, _, _) = make_certs(keys.dir.path());
    let web = keys.path("web.yml");
    std::fs::write(
        &web,
        format!(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: '{hash}'\n"
        ),
    )
    .unwrap();
    let kh = keys.path("known_hosts");
    std::fs::write(&kh, "").unwrap();
    let serve = Serve::start(
        &keys,
        &kh,
        &[],
        &[],
        &["--web-config", web.to_str().unwrap()],
    );
    let addr = serve.addr;

    check_answers(addr, &ca);

    let tls = |password: &str| {
        format!(
            "    scheme: https\n    tls_config:\n      ca_file: {}\n    basic_auth:\n      username: prometheus\n      password: '{password}'\n",
            ca.display()
        )
    };
    let p = Prometheus::start(&format!(
        "{}{}",
        job("strata", addr, &tls("correct horse")),
        job("wrong_password", addr, &tls("wrong")),
    ));
    p.wait_for("up{job=\"strata\"}", WAIT, |r| {
        r.len() == 1 && r[0].1 == 1.0
    });
    p.wait_for("up{job=\"wrong_password\"}", WAIT, |r| {
        r.len() == 1 && r[0].1 == 0.0
    });
    let r = p.wait_for(
        "node_disk_reads_completed_total{job=\"strata\"}",
        WAIT,
        |r| !r.is_empty(),
    );
    assert!(
        p.query("node_disk_reads_completed_total{job=\"wrong_password\"}")
            .is_empty()
    );
    let targets = api(p.addr, "/api/v1/targets").unwrap();
    for t in targets["data"]["activeTargets"].as_array().unwrap() {
        eprintln!("{}: {} {}", t["labels"]["job"], t["health"], t["lastError"]);
    }
    eprintln!(
        "Prometheus over TLS with the CA and the password: up 1, {} disk series",
        r.len()
    );
}

//! A real Prometheus (Debian's `prometheus`) scraping the server every
//! second on loopback: over plain HTTP, then over TLS with basic auth from
//! an exporter-toolkit web config, with a CA the test makes. Its HTTP API
//! shows what it scraped: `up`, a family's value, and (from the metadata
//! API) a unit, which only the OpenMetrics text carries.

use super::{PROMETHEUS, families, get_tls, make_certs, or_skip};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use strata::serve::start;

/// A Prometheus child process, killed on drop.
pub(crate) struct Prometheus {
    child: Child,
    pub(crate) addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A GET to Prometheus's own (plain HTTP) API.
pub(crate) fn api(addr: SocketAddr, path: &str) -> Option<serde_json::Value> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    // Prometheus may answer chunked: the JSON is the one line between sizes
    let json = body.lines().find(|l| l.starts_with('{'))?;
    serde_json::from_str(json).ok()
}

pub(crate) fn urlencode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

impl Prometheus {
    /// Starts Prometheus with `scrape_configs` (YAML, indented as the
    /// list under that key) and waits, bounded, until it is ready.
    pub(crate) fn start(scrape_configs: &str) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nscrape_configs:\n{scrape_configs}"
            ),
        )
        .unwrap();
        let log_path = dir.path().join("prometheus.log");
        let mut dir = Some(dir);
        for _ in 0..3 {
            let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
            let log = std::fs::File::create(&log_path).unwrap();
            let data = dir.as_ref().unwrap().path().join("data");
            let child = Command::new(PROMETHEUS)
                .arg(format!("--config.file={}", config.display()))
                .arg(format!("--storage.tsdb.path={}", data.display()))
                .arg(format!("--web.listen-address={addr}"))
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap();
            let mut p = Prometheus {
                child,
                addr,
                _dir: dir.take().unwrap(),
            };
            let t = Instant::now();
            while t.elapsed() < Duration::from_secs(30) {
                if let Ok(Some(_)) = p.child.try_wait() {
                    break;
                }
                if ready(addr) {
                    return p;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            if !log.contains("address already in use") {
                panic!("prometheus did not get ready:\n{log}");
            }
            // the port was taken between the probe and the bind: again
            let _ = p.child.kill();
            let _ = p.child.wait();
            dir = Some(std::mem::replace(&mut p._dir, tempfile::tempdir().unwrap()));
        }
        panic!("prometheus found no free port");
    }

    /// The instant vector of `query`, as (labels, value) pairs.
    pub(crate) fn query(&self, query: &str) -> Vec<(serde_json::Value, f64)> {
        let Some(v) = api(
            self.addr,
            &format!("/api/v1/query?query={}", urlencode(query)),
        ) else {
            return Vec::new();
        };
        v["data"]["result"]
            .as_array()
            .map(|rs| {
                rs.iter()
                    .map(|r| {
                        let value = r["value"][1]
                            .as_str()
                            .unwrap_or("NaN")
                            .parse()
                            .unwrap_or(f64::NAN);
                        (r["metric"].clone(), value)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Polls `query` (bounded) until `ok` holds for its result.
    pub(crate) fn wait_for(
        &self,
        query: &str,
        within: Duration,
        ok: impl Fn(&[(serde_json::Value, f64)]) -> bool,
    ) -> Vec<(serde_json::Value, f64)> {
        let t = Instant::now();
        let mut last = Vec::new();
        while t.elapsed() < within {
            last = self.query(query);
            if ok(&last) {
                return last;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        let targets = api(self.addr, "/api/v1/targets").unwrap_or_default();
        panic!("{query}: still {last:?} after {within:?}; targets: {targets}");
    }
}

fn ready(addr: SocketAddr) -> bool {
    let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_millis(500)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /-/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    raw.starts_with(b"HTTP/1.1 200")
}

pub(crate) fn job(name: &str, target: SocketAddr, extra: &str) -> String {
    format!("  - job_name: {name}\n{extra}    static_configs:\n      - targets: ['{target}']\n")
}

/// Publishes a new exposition every 100 ms until dropped.
struct Ticker {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    fn start(publisher: strata::serve::Publisher) -> Ticker {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut k = 0;
            while !s.load(std::sync::atomic::Ordering::Relaxed) && k < 100_000 {
                publisher.publish(families(k));
                k += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Ticker {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub(crate) const WAIT: Duration = Duration::from_secs(20);

fn check_scraped(p: &Prometheus, job: &str) {
    let up = p.wait_for(&format!("up{{job=\"{job}\"}}"), WAIT, |r| {
        r.len() == 1 && r[0].1 == 1.0
    });
    eprintln!("{job}: up = {}", up[0].1);
    let big = p.wait_for(
        &format!("node_disk_reads_completed_total{{job=\"{job}\",device=\"nvme0n1\"}}"),
        WAIT,
        |r| r.len() == 1,
    );
    assert_eq!(big[0].1, 9_007_199_254_740_992.0);
    assert_eq!(big[0].0["node"], "db1");
    let odd = p.wait_for(
        &format!("strata_test_dirty_bytes{{job=\"{job}\"}}"),
        WAIT,
        |r| r.len() == 2,
    );
    assert!(
        odd.iter()
            .any(|(l, v)| l["node"] == "db \"1\" \\ x\ny" && *v == 1.5e-7),
        "{odd:?}"
    );
    p.wait_for(
        &format!("strata_build_info{{job=\"{job}\",version=\"0.1.0\"}}"),
        WAIT,
        |r| r.len() == 1,
    );
    p.wait_for(
        &format!("node_vmstat_pgpgin{{job=\"{job}\",node=\"db1\"}}"),
        WAIT,
        |r| r.len() == 1 && r[0].1 >= 77.0,
    );
    let dur = p.query(&format!("scrape_duration_seconds{{job=\"{job}\"}}"));
    eprintln!(
        "{job}: scrape_duration_seconds = {:?}",
        dur.first().map(|d| d.1)
    );
    // a unit reaches Prometheus only through OpenMetrics: it asked for it
    let meta = api(
        p.addr,
        "/api/v1/metadata?metric=node_disk_read_time_seconds",
    )
    .unwrap();
    assert_eq!(
        meta["data"]["node_disk_read_time_seconds"][0]["unit"], "seconds",
        "{meta}"
    );
}

#[test]
fn prometheus_scrapes_plain_http() {
    if !or_skip(
        "prometheus_scrapes_plain_http",
        &[(PROMETHEUS, "prometheus")],
    ) {
        return;
    }
    let (server, publisher) = start("127.0.0.1:0".parse().unwrap(), None).unwrap();
    let _ticker = Ticker::start(publisher);
    let p = Prometheus::start(&job("strata", server.local_addr(), ""));
    check_scraped(&p, "strata");
    // the tick moves between scrapes: the newest exposition is served
    let a = p.wait_for("strata_test_tick{job=\"strata\"}", WAIT, |r| r.len() == 1)[0].1;
    let b = p.wait_for("strata_test_tick{job=\"strata\"}", WAIT, |r| {
        r.len() == 1 && r[0].1 > a
    })[0]
        .1;
    eprintln!("tick {a} then {b}; {} scrapes served", server.scrapes());
}

#[test]
fn prometheus_scrapes_over_tls_with_basic_auth() {
    if !or_skip(
        "prometheus_scrapes_over_tls_with_basic_auth",
        &[(PROMETHEUS, "prometheus"), ("/usr/bin/openssl", "openssl")],
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (ca, _, _) = make_certs(dir.path());
    let hash = bcrypt::hash("correct horse", 6).unwrap();
    // relative names: taken from the config file's folder
    let web = dir.path().join("web.yml");
    std::fs::write(
        &web,
        format!(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS12\nbasic_auth_users:\n  prometheus: {hash}\n"
        ),
    )
    .unwrap();
    let (server, publisher) = start("127.0.0.1:0".parse().unwrap(), Some(&web)).unwrap();
    assert!(server.tls());
    let addr = server.local_addr();
    let _ticker = Ticker::start(publisher);

    // plain HTTP to the TLS port gets no HTTP answer
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
    assert_eq!(wrong.header("www-authenticate"), Some("Basic"));
    assert!(!wrong.text().contains("node_"));
    assert_eq!(get_tls(addr, &ca, "/metrics", &[]).status, 401);
    let right = get_tls(
        addr,
        &ca,
        "/metrics",
        &[("Authorization", &basic("prometheus:correct horse"))],
    );
    assert_eq!(right.status, 200);
    assert!(right.text().contains("node_disk_reads_completed_total"));

    let tls = |password: &str| {
        format!(
            "    scheme: https\n    tls_config:\n      ca_file: {}\n    basic_auth:\n      username: prometheus\n      password: '{password}'\n",
            ca.display()
        )
    };
    let no_ca = "    scheme: https\n    basic_auth:\n      username: prometheus\n      password: 'correct horse'\n";
    let p = Prometheus::start(&format!(
        "{}{}{}{}",
        job("strata", addr, &tls("correct horse")),
        job("wrong_password", addr, &tls("wrong")),
        job("plain_http", addr, ""),
        job("unknown_ca", addr, no_ca),
    ));
    check_scraped(&p, "strata");
    for j in ["wrong_password", "plain_http", "unknown_ca"] {
        p.wait_for(&format!("up{{job=\"{j}\"}}"), WAIT, |r| {
            r.len() == 1 && r[0].1 == 0.0
        });
        let none = p.query(&format!("node_disk_reads_completed_total{{job=\"{j}\"}}"));
        assert!(none.is_empty(), "{j}: {none:?}");
    }
    let targets = api(p.addr, "/api/v1/targets").unwrap();
    for t in targets["data"]["activeTargets"].as_array().unwrap() {
        eprintln!("{}: {} {}", t["labels"]["job"], t["health"], t["lastError"]);
    }
}

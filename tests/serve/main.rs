//! The /metrics server (src/serve) from outside: HTTP answers, promtool
//! and the OpenMetrics reference parser on both encodings, a real
//! Prometheus scraping it over plain HTTP and over TLS with basic auth,
//! and a scrape flood beside a publisher; and the `strata` binary itself
//! (fleet.rs) with two nodes and two cells over loopback sshd under load,
//! a node that dies, and TLS with basic auth, into a real Prometheus.
//!
//! One test binary for the group (docs/tests.md says why). The tests that
//! need Debian's `prometheus` (prometheus, promtool), `openssl` and
//! `python3-prometheus-client` print SKIPPED without them, or fail when
//! STRATA_REQUIRE_PROMETHEUS=1 (scripts/test sets it as root after
//! installing them). The fleet tests also need sshd (else SKIPPED, or a
//! failure with STRATA_REQUIRE_SSHD=1) and root for their loop device and
//! network namespace. Everything listens on loopback; every wait is
//! bounded; child processes are killed on drop.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
mod fleet;
mod flood;
mod http;
#[allow(unsafe_code)]
#[path = "../peer_tools/mod.rs"]
mod peer_tools;
mod prometheus;
mod promtool;
#[path = "../sshd/mod.rs"]
mod sshd;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;
use strata::metrics::{Exposition, Family, Kind};

pub const PROMETHEUS: &str = "/usr/bin/prometheus";
pub const PROMTOOL: &str = "/usr/bin/promtool";
/// Debian's python, where python3-prometheus-client is installed (a
/// python earlier on PATH, such as pyenv's, may not have it).
pub const PYTHON: &str = "/usr/bin/python3";

/// What a test needs, or `None` after printing why it is skipped; with
/// STRATA_REQUIRE_PROMETHEUS=1 a skip is a failure.
pub fn or_skip(test: &str, need: &[(&str, &str)]) -> bool {
    for (path, package) in need {
        if !Path::new(path).is_file() {
            let reason = format!("{path} is missing (apt-get install {package})");
            if std::env::var("STRATA_REQUIRE_PROMETHEUS").as_deref() == Ok("1") {
                panic!("{test}: STRATA_REQUIRE_PROMETHEUS=1 but the test cannot run: {reason}");
            }
            eprintln!("{test}: SKIPPED: {reason}");
            return false;
        }
    }
    true
}

pub fn have_om_parser() -> Result<(), String> {
    let ok = Command::new(PYTHON)
        .args(["-c", "import prometheus_client.openmetrics.parser"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Ok(())
    } else {
        Err("python3-prometheus-client".into())
    }
}

/// Counters with labels (one at 2^53), a counter and a gauge with units,
/// label values that need escaping, an untyped family (node_exporter's
/// vmstat), an info and a gauge without labels; `k` moves the values.
pub fn families(k: u64) -> Exposition {
    let mut reads = Family::new(
        "node_disk_reads_completed",
        "The total number of reads completed successfully.",
        None,
        Kind::Counter,
    )
    .unwrap();
    reads
        .sample(&[("node", "db1"), ("device", "sda")], (1234 + k) as f64)
        .unwrap();
    reads
        .sample(
            &[("node", "db1"), ("device", "nvme0n1")],
            9_007_199_254_740_992.0,
        )
        .unwrap();
    let mut time = Family::new(
        "node_disk_read_time_seconds",
        "The total number of seconds spent by all reads.",
        Some("seconds"),
        Kind::Counter,
    )
    .unwrap();
    time.sample(&[("node", "db1"), ("device", "sda")], 12.345 + k as f64)
        .unwrap();
    let mut dirty = Family::new(
        "strata_test_dirty_bytes",
        "Memory waiting for writeback (Dirty in /proc/meminfo).",
        Some("bytes"),
        Kind::Gauge,
    )
    .unwrap();
    dirty
        .sample(&[("node", "db \"1\" \\ x\ny")], 1.5e-7)
        .unwrap();
    dirty.sample(&[("node", "db2")], 4096.0).unwrap();
    let mut pgpgin = Family::new(
        "node_vmstat_pgpgin",
        "/proc/vmstat information field pgpgin.",
        None,
        Kind::Unknown,
    )
    .unwrap();
    pgpgin.sample(&[("node", "db1")], (77 + k) as f64).unwrap();
    let mut build = Family::new("strata_build", "strata's version.", None, Kind::Info).unwrap();
    build.sample(&[("version", "0.1.0")], 1.0).unwrap();
    let mut tick = Family::new("strata_test_tick", "The test's tick.", None, Kind::Gauge).unwrap();
    tick.sample(&[], k as f64).unwrap();
    Exposition::new(vec![reads, time, dirty, pgpgin, build, tick]).unwrap()
}

/// A response as read off the wire.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn request_text(method: &str, path: &str, headers: &[(&str, &str)]) -> String {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req
}

/// Splits a whole HTTP/1.1 response with a Content-Length body.
pub fn parse_reply(raw: &[u8]) -> Reply {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no end of head in {:?}", String::from_utf8_lossy(raw)));
    let head = std::str::from_utf8(&raw[..end]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect();
    Reply {
        status,
        headers,
        body: raw[end + 4..].to_vec(),
    }
}

/// One request over plain HTTP, on a new connection, read to its close.
pub fn get(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request_text(method, path, headers).as_bytes())
        .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    parse_reply(&raw)
}

/// One GET over TLS, trusting only `ca` (PEM).
pub fn get_tls(addr: SocketAddr, ca: &Path, path: &str, headers: &[(&str, &str)]) -> Reply {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(c.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = ServerName::IpAddress(addr.ip().into());
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let sock = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut tls = rustls::StreamOwned::new(conn, sock);
    tls.write_all(request_text("GET", path, headers).as_bytes())
        .unwrap();
    let mut raw = Vec::new();
    // a close without close_notify still ends a Connection: close reply
    let _ = tls.read_to_end(&mut raw);
    parse_reply(&raw)
}

/// A CA and a server certificate for 127.0.0.1 signed by it, made with
/// the openssl CLI in `dir`: (ca.crt, server.crt, server.key).
pub fn make_certs(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509"];
    ca.extend(ec);
    ca.extend([
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=strata test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    run(&ca);
    let mut csr = vec!["req"];
    csr.extend(ec);
    csr.extend([
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    run(&csr);
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
    ]);
    (
        dir.join("ca.crt"),
        dir.join("server.crt"),
        dir.join("server.key"),
    )
}

/// The process's resident set and its peak, in kB (/proc/self/status).
pub fn rss_kb() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

//! The server's HTTP answers, with no outside tool: routes and methods,
//! the format by Accept, gzip, basic auth's 401, and the limits on what a
//! client can hold.

use super::{families, get, parse_reply};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use strata::metrics::encode::{OPENMETRICS_CONTENT_TYPE, TEXT_CONTENT_TYPE};
use strata::serve::config::{WebConfig, parse};
use strata::serve::{Limits, start_with};

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

#[test]
fn routes_methods_formats_and_gzip() {
    let (server, publisher) = start_with(loopback(), None, Limits::default()).unwrap();
    let addr = server.local_addr();
    // before the first publish: an empty exposition
    let r = get(
        addr,
        "GET",
        "/metrics",
        &[("Accept", "application/openmetrics-text")],
    );
    assert_eq!((r.status, r.text().as_str()), (200, "# EOF\n"));
    publisher.publish(families(1));

    let prom = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    let om = get(addr, "GET", "/metrics", &[("Accept", prom)]);
    assert_eq!(om.status, 200);
    assert_eq!(om.header("content-type"), Some(OPENMETRICS_CONTENT_TYPE));
    assert!(
        om.text()
            .contains("# TYPE node_disk_reads_completed counter\n")
    );
    assert!(
        om.text().ends_with("strata_test_tick 1\n# EOF\n"),
        "{}",
        om.text()
    );

    let text = get(addr, "GET", "/metrics", &[]);
    assert_eq!(text.header("content-type"), Some(TEXT_CONTENT_TYPE));
    assert!(
        text.text()
            .contains("# TYPE node_disk_reads_completed_total counter\n")
    );
    assert!(!text.text().contains("# EOF"));

    let z = get(addr, "GET", "/metrics", &[("Accept-Encoding", "gzip")]);
    assert_eq!(z.header("content-encoding"), Some("gzip"));
    let mut unzipped = String::new();
    flate2::read::GzDecoder::new(&z.body[..])
        .read_to_string(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, text.text());

    let head = get(addr, "HEAD", "/metrics", &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(
        head.header("content-length"),
        Some(text.body.len().to_string().as_str())
    );

    let index = get(addr, "GET", "/", &[]);
    assert_eq!(index.status, 200);
    assert!(index.text().contains("href=\"/metrics\""));
    assert_eq!(get(addr, "GET", "/metrics/x", &[]).status, 404);
    assert_eq!(get(addr, "GET", "/favicon.ico", &[]).status, 404);
    let post = get(addr, "POST", "/metrics", &[("Content-Length", "0")]);
    assert_eq!(
        (post.status, post.header("allow")),
        (405, Some("GET, HEAD"))
    );
    // a query string is no other path
    assert_eq!(get(addr, "GET", "/metrics?x=1", &[]).status, 200);

    // a newer exposition replaces the older for the next scrape
    publisher.publish(families(2));
    assert!(
        get(addr, "GET", "/metrics", &[])
            .text()
            .contains("strata_test_tick 2\n")
    );
    assert!(server.scrapes() >= 6);
}

#[test]
fn basic_auth_gets_401_and_nothing_else() {
    let hash = bcrypt::hash("s3cret", 4).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let web = WebConfig::from_file(
        parse(&format!(
            "basic_auth_users:\n  alice: {hash}\nhttp_server_config:\n  headers:\n    X-Content-Type-Options: nosniff\n"
        ))
        .unwrap(),
        dir.path(),
    )
    .unwrap();
    let (server, publisher) = start_with(loopback(), Some(web), Limits::default()).unwrap();
    publisher.publish(families(1));
    let addr = server.local_addr();
    use base64::Engine as _;
    let basic = |s: &str| {
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(s)
        )
    };
    for (auth, path) in [
        (None, "/metrics"),
        (Some(basic("alice:wrong")), "/metrics"),
        (Some(basic("bob:s3cret")), "/metrics"),
        (Some(basic("alice:s3cret ")), "/metrics"),
        (Some("Bearer s3cret".to_string()), "/metrics"),
        (None, "/"),
        (None, "/nothere"),
    ] {
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("Authorization", a.as_str())).collect();
        let r = get(addr, "GET", path, &headers);
        assert_eq!(r.status, 401, "{auth:?} {path}");
        assert_eq!(r.header("www-authenticate"), Some("Basic"));
        assert_eq!(r.text(), "Unauthorized\n");
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }
    let ok = get(
        addr,
        "GET",
        "/metrics",
        &[("Authorization", &basic("alice:s3cret"))],
    );
    assert_eq!(ok.status, 200);
    assert!(ok.text().contains("node_disk_reads_completed_total"));
    assert_eq!(ok.header("x-content-type-options"), Some("nosniff"));
    // the verified pair is cached: a hundred scrapes cost no bcrypt each
    let t = Instant::now();
    for _ in 0..100 {
        let r = get(
            addr,
            "GET",
            "/metrics",
            &[("Authorization", &basic("alice:s3cret"))],
        );
        assert_eq!(r.status, 200);
    }
    eprintln!("100 authenticated scrapes: {:?}", t.elapsed());
}

/// Waits, bounded, until the server holds `n` connections.
fn connections_reach(server: &strata::serve::Server, n: usize, within: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < within {
        if server.connections() == n {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn idle_and_half_sent_requests_are_cut_and_connections_are_bounded() {
    let limits = Limits {
        connections: 4,
        header_timeout: Duration::from_millis(500),
        ..Limits::default()
    };
    let (server, publisher) = start_with(loopback(), None, limits).unwrap();
    publisher.publish(families(1));
    let addr = server.local_addr();
    let mut silent = TcpStream::connect(addr).unwrap();
    let mut half = TcpStream::connect(addr).unwrap();
    half.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    assert!(connections_reach(&server, 2, Duration::from_secs(2)));
    // two more fill the slots; a fifth is closed at once, unanswered
    let extra: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(addr).unwrap()).collect();
    assert!(connections_reach(&server, 4, Duration::from_secs(2)));
    let mut fifth = TcpStream::connect(addr).unwrap();
    fifth
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let _ = fifth.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    let mut buf = Vec::new();
    let _ = fifth.read_to_end(&mut buf);
    assert!(buf.is_empty(), "{}", String::from_utf8_lossy(&buf));
    // the header timeout closes all four
    let t = Instant::now();
    assert!(connections_reach(&server, 0, Duration::from_secs(5)));
    eprintln!("four idle connections closed after {:?}", t.elapsed());
    for s in [&mut silent, &mut half] {
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        // hyper may answer a half-sent request 408 before closing
        assert!(rest.is_empty() || parse_reply(&rest).status == 408);
    }
    drop(extra);
    assert_eq!(get(addr, "GET", "/metrics", &[]).status, 200);
    // a request head beyond the limit is refused, not buffered
    let mut big = TcpStream::connect(addr).unwrap();
    big.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = big.write_all(
        format!(
            "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: {}\r\n\r\n",
            "a".repeat(64 * 1024)
        )
        .as_bytes(),
    );
    let mut reply = Vec::new();
    let _ = big.read_to_end(&mut reply);
    assert!(
        reply.is_empty() || parse_reply(&reply).status == 431,
        "{}",
        String::from_utf8_lossy(&reply)
    );
}

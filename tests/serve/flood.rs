//! A scrape flood (50 scrapes a second from five clients, each scrape on
//! a new connection) and clients that connect and send nothing, beside a
//! publisher that publishes every 100 ms (ten times strata's 1 s tick):
//! publishing is never delayed, every scrape is answered, and the
//! process's memory stays where it was.

use super::{families, get, rss_kb};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use strata::metrics::{Exposition, Family, Kind};
use strata::serve::{Limits, start_with};

/// An exposition of 10 families of 500 samples (150 kB): big enough that
/// encoding it shows, small enough that a debug build's server keeps up
/// with the flood on a shared two-core machine.
fn large(k: u64) -> Exposition {
    let mut fams = Vec::new();
    for f in 0..10 {
        let mut fam = Family::new(
            &format!("strata_flood_{f}"),
            "A family of the flood test.",
            None,
            Kind::Counter,
        )
        .unwrap();
        for s in 0..500 {
            let node = format!("db{}", s % 8);
            let dev = format!("sd{s}");
            fam.sample(&[("node", &node), ("device", &dev)], (k * 1000 + s) as f64)
                .unwrap();
        }
        fams.push(fam);
    }
    Exposition::new(fams).unwrap()
}

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Five clients, ten scrapes a second each for three seconds: the scrape
/// times and the bytes they read.
fn flood(addr: std::net::SocketAddr, start: Instant) -> (Vec<Duration>, usize) {
    let clients: Vec<_> = (0..5u32)
        .map(|c| {
            std::thread::spawn(move || {
                let mut took = Vec::new();
                let mut bytes = 0;
                for i in 0..30u32 {
                    // ten a second each, the five clients 20 ms apart
                    let due =
                        start + Duration::from_millis(100) * i + Duration::from_millis(20) * c;
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    let t = Instant::now();
                    let headers: &[(&str, &str)] = if i % 2 == 0 {
                        &[("Accept-Encoding", "gzip")]
                    } else {
                        &[("Accept", "application/openmetrics-text")]
                    };
                    let r = get(addr, "GET", "/metrics", headers);
                    took.push(t.elapsed());
                    assert_eq!(r.status, 200);
                    bytes += r.body.len();
                }
                (took, bytes)
            })
        })
        .collect();
    let mut scrape = Vec::new();
    let mut bytes = 0;
    for c in clients {
        let (took, b) = c.join().unwrap();
        scrape.extend(took);
        bytes += b;
    }
    (scrape, bytes)
}

#[test]
fn a_flood_and_silent_clients_neither_delay_publishing_nor_grow_memory() {
    let limits = Limits {
        header_timeout: Duration::from_secs(2),
        ..Limits::default()
    };
    let (server, publisher) = start_with("127.0.0.1:0".parse().unwrap(), None, limits).unwrap();
    let addr = server.local_addr();
    publisher.publish(families(0));
    // warm up: the first scrapes' allocations are not growth
    for _ in 0..5 {
        assert_eq!(get(addr, "GET", "/metrics", &[]).status, 200);
    }
    // expositions made ahead, so that the publisher's loop times the
    // publish alone, as the sampler would after building one
    let ready: Vec<Exposition> = (0..4).map(large).collect();
    publisher.publish(ready[0].clone());
    for _ in 0..3 {
        let r = get(addr, "GET", "/metrics", &[("Accept-Encoding", "gzip")]);
        assert_eq!(r.status, 200);
    }
    let (rss0, _) = rss_kb();

    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let publishing = std::thread::spawn(move || {
        let mut took = Vec::new();
        let mut k = 0usize;
        while !s.load(Ordering::Relaxed) && k < 2000 {
            let e = ready[k % ready.len()].clone();
            let t = Instant::now();
            publisher.publish(e);
            took.push(t.elapsed());
            k += 1;
            std::thread::sleep(Duration::from_millis(100));
        }
        took
    });
    // five clients that connect and never send a byte
    let silent: Vec<TcpStream> = (0..5).map(|_| TcpStream::connect(addr).unwrap()).collect();

    let start = Instant::now();
    let (mut scrape, bytes) = flood(addr, start);
    let flood = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    let mut took = publishing.join().unwrap();
    let (rss1, hwm) = rss_kb();

    let n = took.len();
    let (p50, p99, max) = (
        percentile(&mut took, 0.5),
        percentile(&mut took, 0.99),
        *took.last().unwrap(),
    );
    let (s50, s99, smax) = (
        percentile(&mut scrape, 0.5),
        percentile(&mut scrape, 0.99),
        *scrape.last().unwrap(),
    );
    eprintln!(
        "150 scrapes in {flood:?} ({} kB a scrape on average); scrape latency p50 {s50:?} p99 {s99:?} max {smax:?}",
        bytes / 150 / 1024
    );
    eprintln!("{n} publishes: p50 {p50:?} p99 {p99:?} max {max:?}");
    eprintln!(
        "RSS {rss0} kB before the flood, {rss1} kB after (+{} kB), peak {hwm} kB",
        rss1 as i64 - rss0 as i64
    );
    // a publish swaps an Arc and hands the old one to another thread: it
    // takes microseconds, and what more a publish takes here is the
    // publisher waiting for a core (the flood's clients, the server and
    // whatever else shares the machine), not for the server: no lock of
    // the server's is held for longer than an Arc's clone
    assert!(p50 < Duration::from_millis(5), "p50 publish {p50:?}");
    assert!(max < Duration::from_millis(50), "a publish took {max:?}");
    assert!(n >= 25, "only {n} publishes in {flood:?}");
    // the flood ran at its pace: scrapes answered while others waited
    assert!(flood < Duration::from_secs(6), "{flood:?}");
    // what a flood leaves: the expositions' encodings (4 × ~1 MB) and
    // allocator slack, not a buffer per scrape (150 × ~1 MB)
    assert!(
        rss1 < rss0 + 48 * 1024,
        "RSS grew from {rss0} kB to {rss1} kB"
    );
    // the silent clients were cut by the header timeout
    let t = Instant::now();
    while server.connections() > 0 && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(server.connections(), 0);
    drop(silent);
}

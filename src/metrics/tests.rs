use super::encode::{Format, encode, to_bytes, value};
use super::*;

/// Counters with labels, gauges with and without units, a stateset, an
/// info, and label values and a help text that need escaping: what the
/// promtool and Prometheus tests (tests/serve) expose too.
pub fn sample_exposition() -> Exposition {
    let mut reads = Family::new(
        "node_disk_reads_completed",
        "The total number of reads completed successfully.",
        None,
        Kind::Counter,
    )
    .unwrap();
    reads
        .sample(&[("node", "db1"), ("device", "sda")], 1234.0)
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
    time.sample(&[("node", "db1"), ("device", "sda")], 12.345)
        .unwrap();
    let mut dirty = Family::new(
        "node_memory_dirty_bytes",
        "Memory waiting to be written back to disk \\ \"Dirty\" in\n/proc/meminfo.",
        Some("bytes"),
        Kind::Gauge,
    )
    .unwrap();
    dirty.sample(&[("node", "db\"1\"\\\nx")], 1.5e-7).unwrap();
    dirty.sample(&[("node", "db2")], -0.25).unwrap();
    let mut link = Family::new(
        "strata_link_state",
        "The state of a node's link.",
        None,
        Kind::StateSet,
    )
    .unwrap();
    for (state, v) in [("live", 1.0), ("down", 0.0)] {
        link.sample(&[("node", "db1"), ("strata_link_state", state)], v)
            .unwrap();
    }
    let mut build = Family::new("strata_build", "strata's version.", None, Kind::Info).unwrap();
    build.sample(&[("version", "0.1.0")], 1.0).unwrap();
    let mut up = Family::new("strata_sources", "How many sources.", None, Kind::Gauge).unwrap();
    up.sample(&[], 3.0).unwrap();
    let empty = Family::new("strata_nothing", "Never sampled.", None, Kind::Gauge).unwrap();
    Exposition::new(vec![reads, time, dirty, link, build, up, empty]).unwrap()
}

#[test]
fn openmetrics_text_of_every_kind() {
    let text = String::from_utf8(to_bytes(&sample_exposition(), Format::OpenMetrics)).unwrap();
    insta::assert_snapshot!(text, @r####"
    # HELP node_disk_reads_completed The total number of reads completed successfully.
    # TYPE node_disk_reads_completed counter
    node_disk_reads_completed_total{node="db1",device="sda"} 1234
    node_disk_reads_completed_total{node="db1",device="nvme0n1"} 9007199254740992
    # HELP node_disk_read_time_seconds The total number of seconds spent by all reads.
    # TYPE node_disk_read_time_seconds counter
    # UNIT node_disk_read_time_seconds seconds
    node_disk_read_time_seconds_total{node="db1",device="sda"} 12.345
    # HELP node_memory_dirty_bytes Memory waiting to be written back to disk \\ \"Dirty\" in\n/proc/meminfo.
    # TYPE node_memory_dirty_bytes gauge
    # UNIT node_memory_dirty_bytes bytes
    node_memory_dirty_bytes{node="db\"1\"\\\nx"} 1.5e-7
    node_memory_dirty_bytes{node="db2"} -0.25
    # HELP strata_link_state The state of a node's link.
    # TYPE strata_link_state stateset
    strata_link_state{node="db1",strata_link_state="live"} 1
    strata_link_state{node="db1",strata_link_state="down"} 0
    # HELP strata_build strata's version.
    # TYPE strata_build info
    strata_build_info{version="0.1.0"} 1
    # HELP strata_sources How many sources.
    # TYPE strata_sources gauge
    strata_sources 3
    # EOF
    "####);
}

#[test]
fn prometheus_text_of_every_kind() {
    let text = String::from_utf8(to_bytes(&sample_exposition(), Format::Text)).unwrap();
    insta::assert_snapshot!(text, @r####"
    # HELP node_disk_reads_completed_total The total number of reads completed successfully.
    # TYPE node_disk_reads_completed_total counter
    node_disk_reads_completed_total{node="db1",device="sda"} 1234
    node_disk_reads_completed_total{node="db1",device="nvme0n1"} 9007199254740992
    # HELP node_disk_read_time_seconds_total The total number of seconds spent by all reads.
    # TYPE node_disk_read_time_seconds_total counter
    node_disk_read_time_seconds_total{node="db1",device="sda"} 12.345
    # HELP node_memory_dirty_bytes Memory waiting to be written back to disk \\ "Dirty" in\n/proc/meminfo.
    # TYPE node_memory_dirty_bytes gauge
    node_memory_dirty_bytes{node="db\"1\"\\\nx"} 1.5e-7
    node_memory_dirty_bytes{node="db2"} -0.25
    # HELP strata_link_state The state of a node's link.
    # TYPE strata_link_state gauge
    strata_link_state{node="db1",strata_link_state="live"} 1
    strata_link_state{node="db1",strata_link_state="down"} 0
    # HELP strata_build_info strata's version.
    # TYPE strata_build_info gauge
    strata_build_info{version="0.1.0"} 1
    # HELP strata_sources How many sources.
    # TYPE strata_sources gauge
    strata_sources 3
    "####);
}

fn v(x: f64) -> String {
    let mut s = String::new();
    value(x, &mut s);
    s
}

#[test]
fn values_read_back_exactly() {
    assert_eq!(v(0.0), "0");
    assert_eq!(v(-0.0), "-0");
    assert_eq!(v(1e20), "100000000000000000000");
    assert_eq!(v(1e21), "1e21");
    // shortest digits that read back to the same f64, zeros after them
    assert_eq!(v(u64::MAX as f64), "18446744073709552000");
    assert_eq!(v(0.1), "0.1");
    assert_eq!(v(1e-5), "0.00001");
    assert_eq!(v(1.5e-6), "1.5e-6");
    assert_eq!(v(f64::NAN), "NaN");
    assert_eq!(v(f64::INFINITY), "+Inf");
    assert_eq!(v(f64::NEG_INFINITY), "-Inf");
    assert_eq!(v(f64::MAX), "1.7976931348623157e308");
    assert_eq!(v(f64::MIN_POSITIVE), "2.2250738585072014e-308");
    // every finite value parses back to its own bits
    let mut x: f64 = 1.0e-300;
    for _ in 0..2000 {
        for y in [x, -x, x * 0.7, x + 0.5] {
            assert_eq!(v(y).parse::<f64>().unwrap().to_bits(), y.to_bits(), "{y}");
        }
        x *= 1.43;
    }
}

#[test]
fn accept_headers_as_promhttp_reads_them() {
    use Format::*;
    // Prometheus 2.x's scrape Accept header
    let prom = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    assert_eq!(Format::negotiate(Some(prom)), OpenMetrics);
    assert_eq!(Format::negotiate(None), Text);
    assert_eq!(Format::negotiate(Some("*/*")), Text);
    assert_eq!(Format::negotiate(Some("text/plain")), Text);
    assert_eq!(
        Format::negotiate(Some("application/openmetrics-text")),
        OpenMetrics
    );
    assert_eq!(
        Format::negotiate(Some("application/openmetrics-text; version=2.0.0")),
        Text
    );
    assert_eq!(
        Format::negotiate(Some(
            "text/plain;version=0.0.4;q=0.5, application/openmetrics-text;q=0.9"
        )),
        OpenMetrics
    );
    assert_eq!(
        Format::negotiate(Some("application/openmetrics-text;q=0, text/plain")),
        Text
    );
    assert_eq!(
        Format::negotiate(Some("APPLICATION/OpenMetrics-Text; Version=\"1.0.0\"")),
        OpenMetrics
    );
    assert_eq!(Format::negotiate(Some(",,;;=q")), Text);
}

#[test]
fn names_units_and_labels_are_checked() {
    let err = |r: Result<Family, MetricsError>| r.unwrap_err().to_string();
    assert!(err(Family::new("9x", "h", None, Kind::Gauge)).contains("not [a-zA-Z_]"));
    assert!(err(Family::new("a:b", "h", None, Kind::Gauge)).contains("not [a-zA-Z_]"));
    assert!(err(Family::new("", "h", None, Kind::Gauge)).contains("not [a-zA-Z_]"));
    assert!(err(Family::new("__x", "h", None, Kind::Gauge)).contains("__"));
    assert!(err(Family::new("x_total", "h", None, Kind::Counter)).contains("suffix"));
    assert!(err(Family::new("x_info", "h", None, Kind::Gauge)).contains("suffix"));
    assert!(err(Family::new("x", " ", None, Kind::Gauge)).contains("help"));
    assert!(err(Family::new("x_bytes", "h", Some("seconds"), Kind::Gauge)).contains("_<unit>"));
    assert!(err(Family::new("x_Bytes", "h", Some("Bytes"), Kind::Gauge)).contains("[a-z0-9_]"));
    assert!(err(Family::new("x_bytes", "h", Some("bytes"), Kind::Info)).contains("no unit"));
    assert!(Family::new("x_bytes", "h", Some("bytes"), Kind::Gauge).is_ok());

    let mut g = Family::new("x", "h", None, Kind::Gauge).unwrap();
    let e = g.sample(&[("a-b", "v")], 1.0).unwrap_err().to_string();
    assert!(e.contains("label name \"a-b\""), "{e}");
    assert!(g.sample(&[("__name__", "v")], 1.0).is_err());
    assert!(g.sample(&[("a", "v"), ("a", "w")], 1.0).is_err());
    assert!(
        g.sample(&[("a", "any \u{0} ✓ \"value\"")], f64::NAN)
            .is_ok()
    );
    let mut c = Family::new("x", "h", None, Kind::Counter).unwrap();
    assert!(c.sample(&[], -1.0).is_err());
    assert!(c.sample(&[], f64::NAN).is_err());
    assert!(c.sample(&[], f64::INFINITY).is_ok());
    let mut s = Family::new("st", "h", None, Kind::StateSet).unwrap();
    assert!(s.sample(&[("node", "a")], 1.0).is_err());
    assert!(s.sample(&[("st", "a")], 0.5).is_err());
    let mut i = Family::new("i", "h", None, Kind::Info).unwrap();
    assert!(i.sample(&[], 2.0).is_err());
}

#[test]
fn an_exposition_refuses_duplicates() {
    let g = |name: &str, kind| Family::new(name, "h", None, kind).unwrap();
    assert_eq!(
        Exposition::new(vec![g("x", Kind::Gauge), g("x", Kind::Counter)]),
        Err(MetricsError::DuplicateFamily("x".into()))
    );
    assert!(Exposition::new(vec![g("x", Kind::Gauge), g("y", Kind::Counter)]).is_ok());
    let mut f = g("x", Kind::Gauge);
    f.sample(&[("a", "1"), ("b", "2")], 1.0).unwrap();
    f.sample(&[("a", "1"), ("b", "3")], 1.0).unwrap();
    f.sample(&[("b", "2"), ("a", "1")], 1.0).unwrap();
    assert_eq!(
        Exposition::new(vec![f]),
        Err(MetricsError::DuplicateSample("x".into()))
    );
}

#[test]
fn encoding_appends() {
    let mut out = String::from("x");
    encode(&Exposition::default(), Format::OpenMetrics, &mut out);
    assert_eq!(out, "x# EOF\n");
}

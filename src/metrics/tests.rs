use super::encode::{Format, encode, to_bytes};
use super::*;
use std::sync::Arc;

/// Counters with labels, gauges with and without units, an untyped
/// family, an info, and label values that need escaping: what the
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
        "Memory waiting to be written back to disk (Dirty in /proc/meminfo).",
        Some("bytes"),
        Kind::Gauge,
    )
    .unwrap();
    dirty.sample(&[("node", "db\"1\"\\\nx")], 1.5e-7).unwrap();
    dirty.sample(&[("node", "db2")], -0.25).unwrap();
    let mut pgpgin = Family::new(
        "node_vmstat_pgpgin",
        "/proc/vmstat information field pgpgin.",
        None,
        Kind::Unknown,
    )
    .unwrap();
    pgpgin.sample(&[("node", "db1")], 77.0).unwrap();
    let mut build = Family::new("strata_build", "strata's version.", None, Kind::Info).unwrap();
    build.sample(&[("version", "0.1.0")], 1.0).unwrap();
    let mut up = Family::new("strata_sources", "How many sources.", None, Kind::Gauge).unwrap();
    up.sample(&[], 3.0).unwrap();
    let empty = Family::new("strata_nothing", "Never sampled.", None, Kind::Gauge).unwrap();
    Exposition::new(vec![reads, time, dirty, pgpgin, build, up, empty]).unwrap()
}

#[test]
fn openmetrics_text_of_every_kind() {
    let text = String::from_utf8(to_bytes(
        &Arc::new(sample_exposition()),
        Format::OpenMetrics,
    ))
    .unwrap();
    insta::assert_snapshot!(text, @r####"
    # HELP node_disk_reads_completed The total number of reads completed successfully.
    # TYPE node_disk_reads_completed counter
    node_disk_reads_completed_total{node="db1",device="sda"} 1234
    node_disk_reads_completed_total{node="db1",device="nvme0n1"} 9007199254740992
    # HELP node_disk_read_time_seconds The total number of seconds spent by all reads.
    # TYPE node_disk_read_time_seconds counter
    # UNIT node_disk_read_time_seconds seconds
    node_disk_read_time_seconds_total{node="db1",device="sda"} 12.345
    # HELP node_memory_dirty_bytes Memory waiting to be written back to disk (Dirty in /proc/meminfo).
    # TYPE node_memory_dirty_bytes gauge
    # UNIT node_memory_dirty_bytes bytes
    node_memory_dirty_bytes{node="db\"1\"\\\nx"} 1.5e-7
    node_memory_dirty_bytes{node="db2"} -0.25
    # HELP node_vmstat_pgpgin /proc/vmstat information field pgpgin.
    # TYPE node_vmstat_pgpgin unknown
    node_vmstat_pgpgin{node="db1"} 77
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
    let text = String::from_utf8(to_bytes(&Arc::new(sample_exposition()), Format::Text)).unwrap();
    insta::assert_snapshot!(text, @r####"
    # HELP node_disk_reads_completed_total The total number of reads completed successfully.
    # TYPE node_disk_reads_completed_total counter
    node_disk_reads_completed_total{node="db1",device="sda"} 1234
    node_disk_reads_completed_total{node="db1",device="nvme0n1"} 9007199254740992
    # HELP node_disk_read_time_seconds_total The total number of seconds spent by all reads.
    # TYPE node_disk_read_time_seconds_total counter
    node_disk_read_time_seconds_total{node="db1",device="sda"} 12.345
    # HELP node_memory_dirty_bytes Memory waiting to be written back to disk (Dirty in /proc/meminfo).
    # TYPE node_memory_dirty_bytes gauge
    node_memory_dirty_bytes{node="db\"1\"\\\nx"} 0.00000015
    node_memory_dirty_bytes{node="db2"} -0.25
    # HELP node_vmstat_pgpgin /proc/vmstat information field pgpgin.
    # TYPE node_vmstat_pgpgin gauge
    node_vmstat_pgpgin{node="db1"} 77
    # HELP strata_build_info strata's version.
    # TYPE strata_build_info gauge
    strata_build_info{version="0.1.0"} 1
    # HELP strata_sources How many sources.
    # TYPE strata_sources gauge
    strata_sources 3
    "####);
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
    assert!(err(Family::new("x", "a \"b\"", None, Kind::Gauge)).contains("help"));
    assert!(err(Family::new("x", "a\nb", None, Kind::Gauge)).contains("help"));
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
    encode(
        &Arc::new(Exposition::default()),
        Format::OpenMetrics,
        &mut out,
    );
    assert_eq!(out, "x# EOF\n");
}

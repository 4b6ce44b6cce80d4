//! `/metrics` of the fixture host and of database nodes: each exposed
//! counter is the very counter of the newest sample, a source that fails
//! or goes quiet leaves the exposition (its series go stale in
//! Prometheus rather than freeze), and its state says since when.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::{app_of_config, cache_sample, nfs_sample, nic_sample, sample};
use strata::app::App;
use strata::app::input::{Input, NodeInput};
use strata::config::Config;
use strata::core::error::SampleError;
use strata::expose::{Collector, Exposition, catalogue};
use strata::layers::LayerId;
use strata::link::target::{NodeTarget, parse_ssh_spec};
use strata::link::{HostStatus, Unreachable};

/// Applies `inputs` and keeps each stream's newest sample, as the loop does.
fn feed(app: &mut App, last: &mut BTreeMap<String, Input>, inputs: Vec<Input>) {
    for input in inputs {
        if app.apply_sample(&input) {
            last.insert(input.stream(), input);
        } else {
            app.apply(input);
        }
    }
}

fn host_inputs(k: u64) -> Vec<Input> {
    vec![
        Input::Disks(Ok(sample(k))),
        Input::Nfs(Ok(nfs_sample(k))),
        Input::Cache(Ok(cache_sample(k))),
        Input::Nics(Ok(nic_sample(k))),
    ]
}

/// A series' value by family and labels (`name="value"` pairs).
fn value(e: &Exposition, family: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let s = e.iter().find(|s| s.family.name == family)?;
    s.samples
        .iter()
        .find(|x| {
            labels
                .iter()
                .all(|(k, v)| x.labels.iter().any(|(lk, lv)| lk == k && lv == v))
        })
        .map(|x| x.value)
}

fn families(e: &Exposition) -> BTreeSet<&'static str> {
    e.iter().map(|s| s.family.name).collect()
}

/// Every series once, every family declared.
fn well_formed(e: &Exposition) {
    let declared: BTreeSet<&str> = catalogue().iter().map(|(_, _, f)| f.name).collect();
    for s in e {
        assert!(
            declared.contains(s.family.name),
            "{} undeclared",
            s.family.name
        );
        let mut seen = BTreeSet::new();
        for x in &s.samples {
            assert!(
                seen.insert(&x.labels),
                "{} {:?} twice",
                s.family.name,
                x.labels
            );
            assert!(
                x.value.is_finite() && (x.value >= 0.0),
                "{} {:?}",
                s.family.name,
                x
            );
        }
    }
}

#[test]
fn each_counter_is_the_newest_samples_own() {
    let mut app = app_of_config(Config::default());
    let mut last = BTreeMap::new();
    for k in 0..3 {
        feed(&mut app, &mut last, host_inputs(k));
    }
    let newest = sample(2);
    let now = newest.wall_ms + 500;
    let e = Collector::default().build(&app, last.values(), now);
    well_formed(&e);
    let mut checked = 0;
    for d in newest.devices.iter().filter(|d| !d.never_used()) {
        let at = [("node", "db01"), ("device", d.name.as_str())];
        assert_eq!(
            value(&e, "node_disk_reads_completed_total", &at),
            Some(d.rd_ios as f64)
        );
        assert_eq!(
            value(&e, "node_disk_written_bytes_total", &at),
            Some(d.wr_sectors as f64 * 512.0)
        );
        assert_eq!(
            value(&e, "node_disk_io_time_seconds_total", &at),
            Some(f64::from(d.tot_ticks) / 1000.0)
        );
        checked += 1;
    }
    assert!(checked >= 3, "{checked} devices");
    for n in &nic_sample(2).nics {
        let at = [("node", "db01"), ("device", n.counters.name.as_str())];
        assert_eq!(
            value(&e, "node_network_receive_bytes_total", &at),
            Some(n.counters.rx_bytes as f64)
        );
    }
    let dirty = cache_sample(2).meminfo.kb("Dirty").unwrap();
    assert_eq!(
        value(&e, "node_memory_Dirty_bytes", &[("node", "db01")]),
        Some((dirty * 1024) as f64)
    );
    let m = &nfs_sample(2).mounts[0];
    let read = [
        ("node", "db01"),
        ("export", m.export.as_str()),
        ("operation", "READ"),
    ];
    assert_eq!(
        value(&e, "node_mountstats_nfs_operations_requests_total", &read),
        Some(m.counters.op("READ").unwrap().ops as f64)
    );
    assert_eq!(
        value(
            &e,
            "strata_source_up",
            &[("node", "db01"), ("layer", "disks")]
        ),
        Some(1.0)
    );
    // No source has failed yet: no time of a last error.
    assert!(!families(&e).contains("strata_source_last_error_timestamp_seconds"));
}

#[test]
fn a_failed_or_quiet_source_leaves_the_exposition() {
    let mut app = app_of_config(Config::default());
    let mut last = BTreeMap::new();
    for k in 0..3 {
        feed(&mut app, &mut last, host_inputs(k));
    }
    let now = sample(2).wall_ms + 500;
    let mut c = Collector::default();
    feed(
        &mut app,
        &mut last,
        vec![Input::failed(LayerId::Disks, SampleError::Text("gone".into()), None).unwrap()],
    );
    let e = c.build(&app, last.values(), now);
    assert!(!families(&e).contains("node_disk_reads_completed_total"));
    assert!(families(&e).contains("node_network_receive_bytes_total"));
    let disks = [("node", "db01"), ("layer", "disks")];
    assert_eq!(value(&e, "strata_source_up", &disks), Some(0.0));
    let at = value(&e, "strata_source_last_error_timestamp_seconds", &disks);
    assert_eq!(at, Some(now as f64 / 1000.0));
    // Back: up again, the time of its last failure kept.
    feed(&mut app, &mut last, vec![Input::Disks(Ok(sample(3)))]);
    let e = c.build(&app, last.values(), now + 1000);
    assert_eq!(value(&e, "strata_source_up", &disks), Some(1.0));
    assert_eq!(
        value(&e, "strata_source_last_error_timestamp_seconds", &disks),
        at
    );
    // Nothing new for a minute: every host series is stale.
    let e = c.build(&app, last.values(), now + 60_000);
    assert!(
        !families(&e).iter().any(|f| f.starts_with("node_")),
        "{:?}",
        families(&e)
    );
}

#[test]
fn a_node_that_goes_down_leaves_it_and_says_so() {
    let mut app = app_of_config(Config::default());
    let targets = ["oracle@db01", "oracle@db02"]
        .iter()
        .map(|s| NodeTarget::Remote(parse_ssh_spec(s, "oracle").unwrap()))
        .collect();
    app.set_nodes(targets);
    let mut last = BTreeMap::new();
    for node in 0..2 {
        app.apply(Input::NodeStatus {
            node,
            status: HostStatus::Live,
        });
    }
    for k in 0..3 {
        for node in 0..2 {
            let g = k + 5 * node as u64;
            let mut d = sample(g);
            d.wall_ms = sample(k).wall_ms;
            feed(
                &mut app,
                &mut last,
                vec![Input::Node {
                    node,
                    input: NodeInput::Disks(Ok(d)),
                }],
            );
        }
    }
    let now = sample(2).wall_ms + 500;
    let mut c = Collector::default();
    let e = c.build(&app, last.values(), now);
    well_formed(&e);
    let sda = |node: &'static str| [("node", node), ("device", "sda")];
    let newest = |g: u64| {
        sample(g)
            .devices
            .iter()
            .find(|d| d.name == "sda")
            .unwrap()
            .rd_ios as f64
    };
    assert_eq!(
        value(&e, "node_disk_reads_completed_total", &sda("db01")),
        Some(newest(2))
    );
    assert_eq!(
        value(&e, "node_disk_reads_completed_total", &sda("db02")),
        Some(newest(7))
    );
    let link = |t: &'static str| [("kind", "node"), ("target", t)];
    assert_eq!(value(&e, "strata_link_up", &link("db02")), Some(1.0));
    app.apply(Input::NodeStatus {
        node: 1,
        status: HostStatus::Unreachable(Unreachable::Connect {
            at: "db02:22".into(),
            kind: "ConnectionRefused".into(),
            message: "Connection refused (os error 111)".into(),
        }),
    });
    let e = c.build(&app, last.values(), now + 200);
    assert_eq!(
        value(&e, "node_disk_reads_completed_total", &sda("db01")),
        Some(newest(2))
    );
    assert_eq!(
        value(&e, "node_disk_reads_completed_total", &sda("db02")),
        None
    );
    assert_eq!(value(&e, "strata_link_up", &link("db02")), Some(0.0));
    assert_eq!(
        value(
            &e,
            "strata_link_last_error_timestamp_seconds",
            &link("db02")
        ),
        Some((now + 200) as f64 / 1000.0)
    );
    // A layer that never read is neither up nor down.
    assert_eq!(
        value(
            &e,
            "strata_source_up",
            &[("node", "db01"), ("layer", "disks")]
        ),
        Some(1.0)
    );
    assert_eq!(
        value(
            &e,
            "strata_source_up",
            &[("node", "db01"), ("layer", "cpu")]
        ),
        None
    );
}

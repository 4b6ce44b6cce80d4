//! A recording of a cluster: two database nodes' host layers beside the
//! recording host's own. It replays with its nodes; `strata export` gives
//! a node column whose rows are, figure for figure, what the same samples
//! give as a host's own; `strata summary` names a node's entities
//! `node:entity`. A seek keeps the nodes' states and reported names.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{nic_sample, sample};
use strata::app::Input;
use strata::app::input::NodeInput;
use strata::core::host::SelfUsage;
use strata::export::cmd::{ExportArgs, run_export};
use strata::export::summary::summarize;
use strata::export::window::Window;
use strata::layers::LayerId;
use strata::layers::report::Format;
use strata::link::HostStatus;
use strata::link::target::{NodeTarget, parse_ssh_spec};
use strata::recording::control::meta_of;
use strata::recording::session::{Player, Recorder};

const T0: i64 = 1_795_000_000_000;
const N: u64 = 12;

/// Node `i`'s samples are the fixture host's, `5 * i` seconds ahead; with
/// `as_local`, node 0's go in as the recording host's own instead.
fn record(path: &std::path::Path, as_local: bool) {
    let mut app = common::app_with(0);
    if !as_local {
        let nodes = ["oracle@db01", "oracle@db02"]
            .iter()
            .map(|s| NodeTarget::Remote(parse_ssh_spec(s, "oracle").unwrap()))
            .collect();
        app.set_nodes(nodes);
    }
    let mut rec = Recorder::create(path, &meta_of(&app, T0)).unwrap();
    for k in 0..N {
        let t = T0 + k as i64 * 1000;
        let mut inputs = Vec::new();
        for node in 0..2usize {
            let g = k + 5 * node as u64;
            let (mut d, mut n) = (sample(g), nic_sample(g));
            d.wall_ms = t + 10;
            n.wall_ms = t + 10;
            if as_local {
                if node == 0 {
                    inputs.push((t + 10, Input::Disks(Ok(d))));
                    inputs.push((t + 11, Input::Nics(Ok(n))));
                }
                continue;
            }
            if k == 0 {
                let status = HostStatus::Live;
                inputs.push((t + 1, Input::NodeStatus { node, status }));
                let hostname = format!("db0{}.example.com", node + 1);
                inputs.push((t + 2, Input::NodeHostname { node, hostname }));
            }
            inputs.push((
                t + 10,
                Input::Node {
                    node,
                    input: NodeInput::Disks(Ok(d)),
                },
            ));
            inputs.push((
                t + 11,
                Input::Node {
                    node,
                    input: NodeInput::Nics(Ok(n)),
                },
            ));
        }
        let usage = SelfUsage::default();
        let now_ms = t + 900;
        inputs.push((now_ms, Input::Clock { now_ms, usage }));
        for (at, input) in inputs {
            rec.record(at, &input).unwrap();
        }
    }
    rec.close().unwrap();
}

fn export_csv(path: &std::path::Path, panel: LayerId) -> String {
    let args = ExportArgs {
        format: Some(Format::Csv),
        panel: Some(panel),
        ..ExportArgs::default()
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_export(path, &args, &mut out, &mut err);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    String::from_utf8(out).unwrap()
}

#[test]
fn a_clusters_recording_replays_exports_and_sums_up_per_node() {
    let dir = tempfile::tempdir().unwrap();
    let (cluster, single) = (dir.path().join("c.strec"), dir.path().join("s.strec"));
    record(&cluster, false);
    record(&single, true);
    let player = Player::open(&cluster).unwrap();
    let labels: Vec<&str> = player.meta.nodes.iter().map(NodeTarget::label).collect();
    assert_eq!(labels, ["db01", "db02"]);

    for panel in [LayerId::Disks, LayerId::Nics] {
        let by_node = export_csv(&cluster, panel);
        let own = export_csv(&single, panel);
        let mut lines = by_node.lines();
        let header = lines.next().unwrap();
        assert_eq!(
            Some(header),
            own.lines().next().map(|h| format!("node,{h}")).as_deref()
        );
        // db01's rows, without their node, are the host's own rows
        let db01: Vec<&str> = lines
            .clone()
            .filter_map(|l| l.strip_prefix("db01,"))
            .collect();
        let mine: Vec<&str> = own.lines().skip(1).collect();
        assert!(!db01.is_empty());
        assert_eq!(db01, mine, "{panel:?}");
        let db02 = lines.filter(|l| l.starts_with("db02,")).count();
        assert_eq!(db02, db01.len(), "{panel:?}");
    }

    // a seek past the nodes' connection keeps their states, not their samples
    let mut player = Player::open(&cluster).unwrap();
    let mut kept = Vec::new();
    player.rewind_keeping(T0 + 9_000, &mut |input| kept.push(input));
    let states = kept
        .iter()
        .filter(|i| {
            matches!(
                i,
                Input::NodeStatus {
                    status: HostStatus::Live,
                    ..
                }
            )
        })
        .count();
    assert_eq!(states, 2, "{kept:?}");
    // and the names they report, said once at their first facts
    let names: Vec<&str> = kept
        .iter()
        .filter_map(|i| match i {
            Input::NodeHostname { hostname, .. } => Some(hostname.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["db01.example.com", "db02.example.com"], "{kept:?}");
    assert!(!kept.iter().any(|i| matches!(i, Input::Node { .. })));

    let mut player = Player::open(&cluster).unwrap();
    let s = summarize(&mut player, &Window::ALL);
    let f = s
        .figure(LayerId::Disks, "db02:total", "r/s")
        .expect("db02 total");
    assert_eq!(f.values.len(), N as usize - 1);
    assert!(
        s.figure(LayerId::Disks, "total", "r/s")
            .is_none_or(|f| f.values.is_empty())
    );
}

/// A summary of a cluster's recording lists the hosts that were sampled,
/// the nodes, and no row of the recording host, which was not: it had
/// `disks total r/s 0 – – – –` and the like for the cache and the NICs.
/// Its sample counts say each node's, not only their sum.
#[test]
fn a_clusters_summary_has_rows_and_counts_of_the_sampled_nodes_only() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = dir.path().join("c.strec");
    record(&cluster, false);
    let mut player = Player::open(&cluster).unwrap();
    let s = summarize(&mut player, &Window::ALL);
    let own: Vec<String> = s
        .figures
        .iter()
        .filter(|f| !f.entity.starts_with("db01:") && !f.entity.starts_with("db02:"))
        .map(|f| format!("{:?} {} {}", f.panel, f.entity, f.figure))
        .collect();
    assert!(own.is_empty(), "rows of a host never sampled: {own:?}");
    // the nodes' cache was never sampled either, but they were: listed
    assert!(s.figure(LayerId::Cache, "db02:host", "dirty MB").is_some());
    let text = strata::export::summary::report(&s, Format::Text, "c.strec", "h");
    let n = N - 1;
    let head = format!(
        "samples  disks {} over 2 nodes (db01 {n}, db02 {n}) · nics {} over 2 nodes (db01 {n}, db02 {n})",
        2 * n,
        2 * n
    );
    assert!(text.lines().any(|l| l == head), "{text}");
    let json = strata::export::summary::report(&s, Format::Json, "c.strec", "h");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["samples_per_node"]["disks"]["db02"], n);
}

/// A node's fincore figures go into a recording as its cache samples do
/// (the rows, the method, the runs' cadence, age and cap) and come back
/// the same, to the screen and to `strata export`.
#[test]
fn a_nodes_fincore_rows_and_their_cadence_replay_as_recorded() {
    use strata::layers::cache::fincore::{FincoreStatus, parse_fincore};
    use strata::layers::cache::residency::Method;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.strec");
    let mut app = common::app_with(0);
    let node = NodeTarget::Remote(parse_ssh_spec("oracle@db01", "oracle").unwrap());
    app.set_nodes(vec![node]);
    let mut rec = Recorder::create(&path, &meta_of(&app, T0)).unwrap();
    let raw = include_str!("../fixtures/fincore/raw.txt");
    let patterns = ["/u02/*.arc".to_string()];
    let run = parse_fincore(
        &format!("=e 10000\n=p 4096\n=c 5 7\n=u 0\n{raw}"),
        &patterns,
        "t",
    );
    assert!(run.rejected.is_empty());
    let status = FincoreStatus {
        every_ms: run.every_ms,
        at_ms: Some(T0 + 10),
        missing: false,
        capped: run.capped,
    };
    let mut sent = Vec::new();
    for k in 0..4u64 {
        let mut s = common::cache_sample(k);
        s.wall_ms = T0 + k as i64 * 1000 + 10;
        s.files = run.files.clone();
        s.method = Some(Method::Fincore);
        s.fincore = Some(status.clone());
        let input = NodeInput::Cache(Ok(s.clone()));
        rec.record(s.wall_ms, &Input::Node { node: 0, input })
            .unwrap();
        sent.push(s);
    }
    rec.close().unwrap();
    let mut player = Player::open(&path).unwrap();
    let mut got = Vec::new();
    while let Some((_, input)) = player.next_input() {
        if let Input::Node {
            input: NodeInput::Cache(Ok(s)),
            ..
        } = input
        {
            got.push(s);
        }
    }
    assert_eq!(got.len(), sent.len());
    for (a, b) in sent.iter().zip(&got) {
        assert_eq!(a.files, b.files);
        assert_eq!((a.method, a.page_size), (b.method, b.page_size));
        assert_eq!(a.fincore, b.fincore);
    }
    let csv = export_csv(&path, LayerId::Cache);
    let files: Vec<&str> = csv
        .lines()
        .skip(1)
        .filter(|l| l.contains(",file,"))
        .collect();
    assert_eq!(files.len(), 3 * (run.files.len()), "{csv}");
    assert!(
        files
            .iter()
            .all(|l| l.starts_with("db01,") && l.contains(",fincore,"))
    );
    assert!(files.iter().any(|l| l.contains("redo 01.log")), "{csv}");
}

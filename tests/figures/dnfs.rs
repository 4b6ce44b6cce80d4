//! dNFS figures from row sets shaped like each release's gv$dnfs_* views
//! (tests/fixtures/dnfs/, 11.2.0.4, 12.1 and 19c column sets), through the
//! same mapper the oracle crate's rows go through. Expected figures are
//! worked out by hand in each fixture's comments.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use strata::layers::dnfs::dnfs_sample::{DnfsRows, DnfsSample, map_rows, rows_from_capture};
use strata::layers::dnfs::model::{ChannelCounting, DnfsBaseline, DnfsCol, DnfsTick};
use strata::layers::dnfs::sql_rows::SqlRows;

fn capture(name: &str) -> DnfsRows {
    let path = format!("{}/tests/fixtures/dnfs/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    rows_from_capture(0, name, &text).unwrap()
}

fn sample(name: &str) -> DnfsSample {
    let s = map_rows(&capture(name)).unwrap();
    assert!(s.rejected.is_empty(), "{name}: {:?}", s.rejected);
    s
}

/// The tick over a release's two readings.
fn tick(release: &str) -> DnfsTick {
    let mut b = DnfsBaseline::default();
    let first = b.tick(&sample(&format!("gv-dnfs-{release}-a.txt")));
    assert!(first.total.is_none(), "no rate from one reading");
    b.tick(&sample(&format!("gv-dnfs-{release}-b.txt")))
}

fn fig(t: &DnfsTick, inst: Option<u32>, col: DnfsCol) -> Option<f64> {
    match inst {
        None => t.total?.get(col),
        Some(i) => t
            .instances
            .iter()
            .find(|x| x.inst_id == i)?
            .figures?
            .get(col),
    }
}

#[test]
fn rac_19c_per_instance_and_total() {
    let t = tick("19c");
    assert_eq!(t.itv_ms, Some(5000));
    assert!(t.in_use);
    assert!(t.shape.byte_columns && t.shape.con_id && t.shape.nfs_version_column);
    // inst 1: 206000 ops / 5 s; pnum 22 exited, pnum 23 new from zero
    assert_eq!(fig(&t, Some(1), DnfsCol::Iops), Some(41_200.0));
    assert_eq!(fig(&t, Some(1), DnfsCol::ReadMbPerS), Some(314.0625));
    assert_eq!(fig(&t, Some(1), DnfsCol::WriteMbPerS), Some(7.8125));
    assert_eq!(fig(&t, Some(1), DnfsCol::AvgIoKb), Some(8.0));
    assert_eq!(fig(&t, Some(2), DnfsCol::Iops), Some(20_400.0));
    assert_eq!(fig(&t, Some(2), DnfsCol::ReadMbPerS), Some(156.25));
    assert_eq!(fig(&t, None, DnfsCol::Iops), Some(61_600.0));
    assert_eq!(fig(&t, None, DnfsCol::ReadMbPerS), Some(470.3125));
    assert_eq!(fig(&t, None, DnfsCol::WriteMbPerS), Some(10.9375));
    // 77500 after 80000 on a channel still there: since the last select
    assert_eq!(t.counting, ChannelCounting::SinceLastSelect);
    let ch = |inst: u32, pnum: u64, ch: u64| {
        t.channels
            .iter()
            .find(|c| (c.row.inst_id, c.row.pnum, c.row.ch_id) == (inst, pnum, ch))
            .unwrap()
    };
    assert_eq!(ch(1, 20, 0).sends_per_s, Some(15_500.0));
    assert_eq!(ch(1, 20, 1).row.local.as_deref(), Some("192.168.11.1"));
    // server nas1 on inst 1: (77500 + 77500 + 50000 + 1000) / 5 = 41200
    // sends/s over 4 channels, 2 files; NFS version from the view
    let s = t.servers.iter().find(|s| s.row.inst_id == 1).unwrap();
    assert_eq!((s.channels, s.files, s.sends_per_s), (4, 2, Some(41_200.0)));
    assert_eq!(s.row.nfs_version.as_deref(), Some("NFSv4.1"));
}

#[test]
fn single_instance_12_1_with_running_total_channels() {
    let t = tick("12.1");
    assert_eq!(fig(&t, None, DnfsCol::Iops), Some(7_500.0));
    assert_eq!(fig(&t, None, DnfsCol::ReadMbPerS), Some(39.0625));
    assert_eq!(fig(&t, None, DnfsCol::WriteMbPerS), Some(19.531_25));
    // +75000 sends against 75000 ops done; 575000 would be 7.7× too many
    assert_eq!(t.counting, ChannelCounting::Cumulative);
    let sends: Vec<_> = t
        .servers
        .iter()
        .map(|s| (s.row.name.as_str(), s.sends_per_s))
        .collect();
    assert_eq!(sends, [("nas1", Some(5_500.0)), ("nas2", Some(2_000.0))]);
    assert_eq!(t.channels[1].row.reconnects, Some(1), "SPRECO + DPRECO");
}

#[test]
fn release_11_2_0_4_has_bytes_but_no_version_or_con_id() {
    let t = tick("11.2.0.4");
    assert!(t.shape.byte_columns && t.shape.local_column);
    assert!(!t.shape.nfs_version_column && !t.shape.con_id);
    assert_eq!(fig(&t, None, DnfsCol::Iops), Some(900.0));
    assert_eq!(fig(&t, None, DnfsCol::ReadMbPerS), Some(6.25));
    assert_eq!(fig(&t, None, DnfsCol::WriteMbPerS), Some(0.781_25));
    assert_eq!(t.counting, ChannelCounting::SinceLastSelect);
    assert_eq!(t.channels[0].sends_per_s, Some(840.0));
    assert_eq!(t.channels[1].row.reconnects, Some(2), "RECO");
    assert_eq!(t.servers[0].row.nfs_version, None);
}

#[test]
fn the_same_rows_without_byte_columns_give_unknown_mb_not_zero() {
    // 11.2.0.3 lacks NFS_READBYTES and NFS_WRITEBYTES: drop them from the
    // 11.2.0.4 readings
    let drop_bytes = |name: &str| {
        let mut r = capture(name);
        let keep: Vec<usize> = (0..r.stats.columns.len())
            .filter(|&i| !r.stats.columns[i].ends_with("BYTES"))
            .collect();
        r.stats = SqlRows {
            columns: keep.iter().map(|&i| r.stats.columns[i].clone()).collect(),
            rows: r
                .stats
                .rows
                .iter()
                .map(|row| keep.iter().map(|&i| row[i].clone()).collect())
                .collect(),
        };
        map_rows(&r).unwrap()
    };
    let mut b = DnfsBaseline::default();
    b.tick(&drop_bytes("gv-dnfs-11.2.0.4-a.txt"));
    let t = b.tick(&drop_bytes("gv-dnfs-11.2.0.4-b.txt"));
    assert_eq!(fig(&t, None, DnfsCol::Iops), Some(900.0));
    assert_eq!(fig(&t, None, DnfsCol::ReadMbPerS), None);
    assert_eq!(fig(&t, None, DnfsCol::AvgIoKb), None);
}

#[test]
fn empty_views_say_not_in_use() {
    let mut r = capture("gv-dnfs-19c-a.txt");
    for v in [&mut r.stats, &mut r.servers, &mut r.channels, &mut r.files] {
        v.rows.clear();
    }
    let s = map_rows(&r).unwrap();
    assert!(!s.in_use());
    let mut b = DnfsBaseline::default();
    assert!(!b.tick(&s).in_use);
}

fn arb_value() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        (0u64..u64::MAX).prop_map(|v| Some(v.to_string())),
        (0u64..1000).prop_map(|v| Some(v.to_string())),
        Just(Some("-1".to_string())),
        Just(Some("1.5E+300".to_string())),
        Just(Some("NaN".to_string())),
        "[ -~]{0,6}".prop_map(Some),
    ]
}

/// A view's rows with its real columns, a random subset of the optional
/// ones (after the first `required`) dropped, random values.
fn arb_rows(cols: &'static [&'static str], required: usize) -> impl Strategy<Value = SqlRows> {
    (
        prop::collection::vec(any::<bool>(), cols.len()),
        prop::collection::vec(prop::collection::vec(arb_value(), cols.len()), 0..5),
    )
        .prop_map(move |(keep, rows)| {
            let idx: Vec<usize> = (0..cols.len())
                .filter(|&i| keep[i] || i < required)
                .collect();
            SqlRows {
                columns: idx.iter().map(|&i| cols[i].to_string()).collect(),
                rows: rows
                    .into_iter()
                    .map(|r| idx.iter().map(|&i| r[i].clone()).collect())
                    .collect(),
            }
        })
}

const STATS: &[&str] = &[
    "PNUM",
    "NFS_READ",
    "NFS_WRITE",
    "INST_ID",
    "NFS_READBYTES",
    "NFS_WRITEBYTES",
];
const SERVERS: &[&str] = &["ID", "SVRNAME", "INST_ID", "DIRNAME", "NFSVERSION", "WTMAX"];
const CHANNELS: &[&str] = &[
    "PNUM", "CH_ID", "SVR_ID", "SENDS", "RECVS", "INST_ID", "LOCAL", "RECO", "SPRECO",
];
const FILES: &[&str] = &["FILENAME", "PNUM", "SVR_ID", "INST_ID", "FILESIZE"];

proptest! {
    #[test]
    fn mapper_never_panics_and_figures_are_never_negative_or_nan(
        readings in prop::collection::vec(
            (arb_rows(STATS, 3), arb_rows(SERVERS, 2), arb_rows(CHANNELS, 5), arb_rows(FILES, 3), -5_000i64..5_000),
            1..5,
        )
    ) {
        let mut b = DnfsBaseline::default();
        // ms into 10:00 on one day; a negative step is a clock that went back
        let mut clock = 1_800_000i64;
        for (stats, servers, channels, files, step) in readings {
            clock += step;
            let rows = DnfsRows {
                wall_ms: 0,
                db_clock: format!(
                    "2024-03-01 10:{:02}:{:02}.{:03}",
                    clock / 60_000,
                    clock / 1000 % 60,
                    clock % 1000
                ),
                stats, servers, channels, files,
            };
            // bad values reject rows, never the reading
            let s = map_rows(&rows).unwrap();
            let t = b.tick(&s);
            let mut all: Vec<Option<f64>> = Vec::new();
            for f in t.instances.iter().filter_map(|i| i.figures).chain(t.total) {
                for c in strata::layers::dnfs::model::DNFS_COLS {
                    all.push(f.get(c.col));
                }
            }
            for c in &t.channels {
                all.push(c.sends_per_s);
                all.push(c.recvs_per_s);
            }
            for s in &t.servers {
                all.push(s.sends_per_s);
            }
            for v in all.into_iter().flatten() {
                prop_assert!(v.is_finite() && v >= 0.0, "{v}");
            }
        }
    }
}

/// gv$instance of the 19c RAC, as strata queries it.
fn instances_19c() -> strata::layers::dnfs::dnfs_sample::DnfsInstances {
    let path = format!(
        "{}/tests/fixtures/dnfs/gv-instance-19c.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let (rows, bad) =
        strata::layers::dnfs::sql_rows::parse_sql_csv("gv-instance-19c.csv", &text).unwrap();
    assert!(bad.is_empty());
    strata::layers::dnfs::dnfs_sample::map_instance_rows(0, &rows).unwrap()
}

/// The 19c RAC's instances on their nodes: gv$instance as strata queries
/// it (gv-instance-19c.csv) puts PROD1 on db01 and PROD2 on db02, written
/// here as an FQDN and in capitals; each instance's MB/s (321.875 and
/// 159.375, read + write of its processes) meets only its own channels'
/// NICs by its own node's routes.
#[test]
fn rac_19c_instances_line_up_against_their_own_nodes() {
    use strata::layers::dnfs::path::{
        DbFigures, HostFigures, InstanceHost, NodeNames, line_up_instances,
    };
    use strata::layers::nics::route::parse_route;
    let instances = instances_19c();
    let t = tick("19c");
    // db01 holds the filer subnets on ens3f0 and ens3f1; db02 only
    // 192.168.10.0/24, on eth2
    let routes = |text: &str| parse_route(text).items;
    let head = "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n";
    let r1 = routes(&format!(
        "{head}ens3f0\t000AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n\
         ens3f1\t000BA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
    ));
    let r2 = routes(&format!(
        "{head}eth2\t000AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
    ));
    let figures = |routes| HostFigures {
        routes,
        nic_mb_s: vec![
            ("ens3f0".into(), Some(170.0)),
            ("ens3f1".into(), Some(165.0)),
            ("eth2".into(), Some(80.0)),
        ],
        kernel_nfs_mb_s: Some(0.0),
        block_mb_s: None,
    };
    let nodes = [
        (
            NodeNames {
                label: "db01.example.com",
                host: Some("db01.example.com"),
                hostname: None,
            },
            figures(&r1[..]),
        ),
        (
            NodeNames {
                label: "DB02",
                host: Some("DB02"),
                hostname: None,
            },
            figures(&r2[..]),
        ),
    ];
    let db = DbFigures {
        label: "PROD",
        tick: &t,
        instances: Some(&instances),
    };
    let lines = line_up_instances(&[db], &nodes);
    let (p1, p2) = (&lines[0], &lines[1]);
    assert_eq!((p1.inst_id, p1.name.as_deref()), (1, Some("PROD1")));
    assert_eq!(p1.host, InstanceHost::Node("db01.example.com".into()));
    assert_eq!(
        (p1.line.dnfs_mb_s, p1.line.wire_mb_s),
        (Some(321.875), Some(335.0))
    );
    assert_eq!(p1.line.dnfs_ifaces, ["ens3f0", "ens3f1"]);
    assert!(p1.line.unmapped.is_empty());
    assert_eq!((p2.inst_id, p2.name.as_deref()), (2, Some("PROD2")));
    assert_eq!(p2.host, InstanceHost::Node("DB02".into()));
    assert_eq!(
        (p2.line.dnfs_mb_s, p2.line.wire_mb_s),
        (Some(159.375), Some(80.0))
    );
    assert_eq!(p2.line.dnfs_ifaces, ["eth2"]);
    assert_eq!(p2.line.unmapped, ["192.168.11.2"]);
    // db02's one mapped NIC carries half of PROD2's figure: wire short
    use strata::layers::dnfs::path::PathFlag::{HostBlind, WireShort};
    let f = |i: usize| &lines[i].line.flags;
    assert!(matches!(f(0)[..], [HostBlind { .. }]), "{:?}", f(0));
    assert!(
        matches!(
            f(1)[..],
            [
                HostBlind { .. },
                WireShort {
                    wire_mb_s: 80.0,
                    ..
                }
            ]
        ),
        "{:?}",
        f(1)
    );
}

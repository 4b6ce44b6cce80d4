//! The mountstats parser on real samples, and properties over any input:
//! never a panic, never a negative, NaN or infinite figure.

#![allow(clippy::expect_used)]

use proptest::prelude::*;
use strata::layers::nfs::model::{NFS_MOUNT_COLS, NFS_OP_COLS, NfsMountDelta, NfsOpDelta};
use strata::layers::nfs::mountinfo::parse_mountinfo;
use strata::layers::nfs::mountstats::{
    MountStats, NfsBytes, NfsCounters, RpcOpCounters, Xprt, XprtCounters, parse_mountstats,
};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/nfs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse_clean(name: &str) -> Vec<MountStats> {
    let p = parse_mountstats(&fixture(name), "/proc/self/mountstats");
    assert!(p.rejected.is_empty(), "{name}: {:?}", p.rejected);
    p.items
}

fn xprt(m: &MountStats) -> (&str, &XprtCounters) {
    let x = &m.counters.xprts[0];
    (
        x.proto.as_str(),
        x.counters.as_ref().expect("a known layout"),
    )
}

#[test]
fn procfs_crate_sample() {
    let m = parse_clean("procfs-crate-nfs4.1-statvers1.1.txt");
    assert_eq!(m.len(), 1);
    let m = &m[0];
    assert_eq!(
        (m.device.as_str(), m.fstype.as_str()),
        ("elwe:/space", "nfs4")
    );
    assert_eq!(m.mount_point, "/srv/elwe/space");
    let c = &m.counters;
    assert_eq!(
        (c.age_s, c.events.len(), c.rpc_version.as_str()),
        (3542, 27, "1.0")
    );
    assert_eq!(c.opt("sec"), Some("krb5"));
    assert_eq!(
        c.bytes,
        NfsBytes {
            normal_read: 1,
            normal_write: 2,
            direct_read: 3,
            direct_write: 4,
            server_read: 5,
            server_write: 6,
            read_pages: 7,
            write_pages: 8
        }
    );
    let (proto, x) = xprt(m);
    // tcp 909 0 1 0 2 294 294 0 294 0 2 0 0
    assert_eq!(proto, "tcp");
    assert_eq!(
        (
            x.port,
            x.connect_count,
            x.idle_time,
            x.sends,
            x.req_u,
            x.bklog_u
        ),
        (909, 1, 2, 294, 294, 0)
    );
    assert_eq!(x.more, vec![2, 0, 0], "max_slots sending_u pending_u");
    let read = c.op("READ").expect("READ");
    assert_eq!(
        (
            read.ops,
            read.ntrans,
            read.timeouts,
            read.bytes_sent,
            read.bytes_recv
        ),
        (1, 2, 3, 4, 5)
    );
    assert_eq!(
        (read.queue_ms, read.rtt_ms, read.execute_ms, read.errors),
        (6, 7, 8, None)
    );
}

#[test]
fn linux_2_6_16_udp() {
    let m = parse_clean("lkml-2006-nfs3-udp-statvers1.0.txt");
    let c = &m[0].counters;
    assert_eq!(m[0].statvers.as_deref(), Some("1.0"));
    assert_eq!((c.events.len(), c.program.as_str()), (25, "100003/3 (nfs)"));
    assert_eq!(c.opt("proto"), Some("udp"));
    // udp 1023 0 560 560 0 1832 176: no connect fields
    let (proto, x) = xprt(&m[0]);
    assert_eq!(proto, "udp");
    assert_eq!(
        (
            x.port,
            x.bind_count,
            x.connect_count,
            x.sends,
            x.recvs,
            x.req_u,
            x.bklog_u
        ),
        (1023, 0, 0, 560, 560, 1832, 176)
    );
    assert!(x.more.is_empty());
    assert_eq!(c.ops.len(), 22, "every NFSv3 procedure");
    assert!(c.ops.iter().all(|o| o.errors.is_none()));
    assert_eq!(c.op("READ").map(|o| o.bytes_recv), Some(5977864));
    assert_eq!(c.bytes.server_read, 114028223);
}

#[test]
fn isilon_tcp_before_max_slots() {
    let m = parse_clean("tacc-nfs3-tcp-statvers1.0.txt");
    let (proto, x) = xprt(&m[0]);
    assert_eq!(
        (proto, x.sends, x.bklog_u),
        ("tcp", 172670997, 293843845166)
    );
    assert!(x.more.is_empty(), "10 fields: no max_slots yet");
    let w = m[0].counters.op("WRITE").expect("WRITE");
    assert_eq!(
        (w.bytes_sent, w.queue_ms, w.execute_ms),
        (676314934552, 212745097913, 212850213433)
    );
    assert_eq!(m[0].counters.bytes.normal_read, 4886067767364);
}

#[test]
fn a_desktops_whole_file() {
    let text = fixture("nfsmountstats-nfs4.2-and-nfs3-tcp.txt");
    let m = parse_clean("nfsmountstats-nfs4.2-and-nfs3-tcp.txt");
    let devices = text.lines().filter(|l| l.starts_with("device ")).count();
    assert_eq!((devices, m.len()), (35, 7), "28 mounts are not NFS");
    let v4 = &m[0].counters;
    assert_eq!(v4.opt("vers"), Some("4.2"));
    assert_eq!(v4.rpc_version, "1.1");
    assert_eq!(v4.ops.len(), 69);
    assert!(
        v4.ops.iter().all(|o| o.errors.is_some()),
        "RPC iostats 1.1: 9 fields"
    );
    assert_eq!(v4.op("LOOKUP").and_then(|o| o.errors), Some(1728));
    assert_eq!(v4.op("BIND_CONN_TO_SESSION").map(|o| o.ops), Some(0));
    let v3 = &m[4].counters;
    assert_eq!(
        (m[4].mount_point.as_str(), v3.rpc_version.as_str()),
        ("/webmail0", "1.0")
    );
    assert!(
        v3.ops.iter().all(|o| o.errors.is_none()),
        "RPC iostats 1.0: 8 fields"
    );
    assert_eq!(xprt(&m[5]).1.more, vec![1417, 59765520263, 15660436504]);
}

#[test]
fn one_bad_mount_does_not_hide_the_others() {
    let text = fixture("nfsmountstats-nfs4.2-and-nfs3-tcp.txt")
        .replacen("READ: 484 484 0", "READ: 484 4x4 0", 1)
        .replacen("\tage:\t2919118", "\tage:\t-1", 1);
    let p = parse_mountstats(&text, "/proc/self/mountstats");
    assert_eq!(p.items.len(), 5);
    assert_eq!(p.rejected.len(), 2);
    assert!(
        p.rejected[0].line.contains("READ: 484 4x4"),
        "{}",
        p.rejected[0]
    );
    assert!(
        p.items
            .iter()
            .all(|m| m.mount_point != "/mnt/nfs1/docs" && m.mount_point != "/webmail0")
    );
}

fn op_counters() -> impl Strategy<Value = RpcOpCounters> {
    (
        prop::collection::vec(any::<u64>(), 8..=8),
        prop::option::of(any::<u64>()),
    )
        .prop_map(|(mut v, errors)| {
            v.extend(errors);
            RpcOpCounters::from_fields("READ", &v).expect("8 or 9 fields")
        })
}

fn counters() -> impl Strategy<Value = NfsCounters> {
    (
        any::<u64>(),
        prop::array::uniform6(any::<u64>()),
        prop::collection::vec(
            (
                prop_oneof![Just("tcp"), Just("udp"), Just("rdma")],
                any::<u64>(),
                any::<u64>(),
            ),
            0..3,
        ),
        op_counters(),
    )
        .prop_map(|(age_s, b, xprts, op)| NfsCounters {
            age_s,
            bytes: NfsBytes {
                normal_read: b[0],
                normal_write: b[1],
                direct_read: b[2],
                direct_write: b[3],
                server_read: b[4],
                server_write: b[5],
                ..Default::default()
            },
            xprts: xprts
                .into_iter()
                .map(|(proto, sends, bklog_u)| Xprt {
                    proto: proto.into(),
                    counters: Some(XprtCounters {
                        sends,
                        bklog_u,
                        ..Default::default()
                    }),
                })
                .collect(),
            ops: vec![op],
            ..Default::default()
        })
}

/// A real block's words, some replaced by near misses.
fn mutated_block() -> impl Strategy<Value = String> {
    let text = fixture("nfsmountstats-nfs4.2-and-nfs3-tcp.txt");
    let words: Vec<String> = text.split(' ').map(str::to_string).collect();
    let n = words.len();
    prop::collection::vec(
        (
            0..n,
            prop_oneof![
                "[0-9]{1,22}",
                "-[0-9]{1,3}",
                "[a-z:]{1,6}",
                Just(String::new()),
                Just("\n".to_string()),
                Just("device".to_string()),
                Just("18446744073709551616".to_string()),
            ],
        ),
        0..12,
    )
    .prop_map(move |edits| {
        let mut w = words.clone();
        for (i, x) in edits {
            w[i] = x;
        }
        w.join(" ")
    })
}

proptest! {
    #[test]
    fn parsers_never_panic(text in "\\PC{0,600}") {
        let _ = parse_mountstats(&text, "m");
        let _ = parse_mountinfo(&text, "m");
    }

    #[test]
    fn parsers_never_panic_on_near_misses(text in mutated_block()) {
        let p = parse_mountstats(&text, "m");
        // every NFS device line ends as a mount or a rejected line
        let nfs_lines = text.lines().filter(|l| l.starts_with("device ") && l.contains("fstype nfs")).count();
        prop_assert!(p.items.len() <= nfs_lines);
        for e in &p.rejected {
            prop_assert!(e.line_no >= 1 && e.line_no <= text.lines().count());
        }
    }

    #[test]
    fn figures_are_never_negative_nan_or_infinite(
        prev in counters(), cur in counters(), moved in prop::array::uniform8(any::<u64>()),
        errors in any::<u64>(), itv in 0u64..1_000_000
    ) {
        // any two readings, and the same op moved forward by any amounts
        // (ntrans may lag ops: a torn read)
        let mut fwd = prev.ops[0].clone();
        for (f, d) in [&mut fwd.ops, &mut fwd.ntrans, &mut fwd.timeouts, &mut fwd.bytes_sent,
            &mut fwd.bytes_recv, &mut fwd.queue_ms, &mut fwd.rtt_ms, &mut fwd.execute_ms]
            .into_iter()
            .zip(moved)
        {
            *f = f.saturating_add(d);
        }
        fwd.errors = fwd.errors.map(|e| e.saturating_add(errors));
        if let Some(d) = NfsMountDelta::between(&prev, &cur, itv) {
            let r = d.rates();
            for c in &NFS_MOUNT_COLS {
                if let Some(v) = r.get(c.col) {
                    prop_assert!(v.is_finite() && v >= 0.0, "{} = {}", c.header, v);
                }
            }
        }
        for op in [&cur.ops[0], &fwd] {
            if let Some(o) = NfsOpDelta::between(&prev.ops[0], op) {
                let r = o.rates(itv);
                for c in &NFS_OP_COLS {
                    if let Some(v) = r.get(c.col) {
                        prop_assert!(v.is_finite() && v >= 0.0, "{} = {}", c.header, v);
                    }
                }
            }
        }
        prop_assert!(NfsOpDelta::between(&prev.ops[0], &fwd).is_some());
    }

    #[test]
    fn forward_counters_always_give_figures(
        prev in counters(), step in 0u64..1_000_000, secs in 1u64..100_000
    ) {
        let mut cur = prev.clone();
        cur.age_s = prev.age_s.saturating_add(secs);
        cur.bytes.normal_read = prev.bytes.normal_read.saturating_add(step);
        let o = &mut cur.ops[0];
        o.ops = o.ops.saturating_add(step);
        o.ntrans = o.ntrans.saturating_add(step);
        let d = NfsMountDelta::between(&prev, &cur, secs * 100).expect("age went on");
        if prev.bytes.normal_read < u64::MAX - step {
            prop_assert_eq!(d.bytes[0], Some(step));
        }
        let o = NfsOpDelta::between(&prev.ops[0], &cur.ops[0]).expect("counters went on");
        if prev.ops[0].ops < u64::MAX - step && prev.ops[0].ntrans < u64::MAX - step {
            prop_assert_eq!(o.ops, step);
        }
    }
}

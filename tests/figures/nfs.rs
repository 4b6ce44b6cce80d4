//! nfsiostat's formulas on real mountstats samples, old and new kernel
//! layouts, against figures computed by hand from the deltas of
//! tests/nfs_pairs (written out again in each comment).

#![allow(clippy::expect_used)]

use crate::nfs_pairs;

use nfs_pairs::{NEW_TCP, OLD_TCP, OLD_UDP, Pair};
use strata::layers::nfs::model::{NfsMountCol, NfsOpCol};
use strata::layers::nfs::mountstats::parse_mountstats;
use strata::layers::nfs::report::text_report;
use strata::layers::nfs::source::{NfsSample, group_mounts};
use strata::layers::nfs::tick::{NfsBaseline, NfsRow, NfsTick};

fn sample(text: &str, uptime_cs: u64) -> NfsSample {
    let p = parse_mountstats(text, "/proc/self/mountstats");
    assert!(p.rejected.is_empty(), "{:?}", p.rejected);
    NfsSample {
        uptime_cs,
        wall_ms: 0,
        mounts: group_mounts(p.items, None),
        rejected: Vec::new(),
    }
}

fn tick(pair: &Pair) -> NfsTick {
    let mut b = NfsBaseline::default();
    let a = 100_000;
    assert!(b.tick(&sample(&pair.a(), a)).itv_cs.is_none());
    let t = b.tick(&sample(&pair.b(), a + pair.itv_s * 100));
    assert_eq!(t.itv_cs, Some(pair.itv_s * 100));
    t
}

/// The figures line of an op: ops/s in 24 columns, the rest in 16.
fn figures(v: &[&str]) -> String {
    let mut s = format!("{:>24}", v[0]);
    for x in &v[1..] {
        s.push_str(&format!("{x:>16}"));
    }
    s
}

/// The lines of one mount's block in a text report, without blank lines.
fn block<'a>(text: &'a str, mounted_on: &str) -> Vec<&'a str> {
    let start = text
        .lines()
        .position(|l| l.ends_with(&format!(" mounted on {mounted_on}:")))
        .unwrap_or_else(|| panic!("{mounted_on} not in\n{text}"));
    text.lines()
        .skip(start)
        .take_while({
            let mut first = true;
            move |l| std::mem::take(&mut first) || !l.contains(" mounted on ")
        })
        .filter(|l| !l.is_empty())
        .collect()
}

fn row<'a>(t: &'a NfsTick, mount_point: &str) -> &'a NfsRow {
    t.rows
        .iter()
        .find(|r| r.mount_points[0] == mount_point)
        .expect("mount")
}

fn op(r: &NfsRow, name: &str, c: NfsOpCol) -> Option<f64> {
    r.ops.iter().find(|o| o.name == name)?.rates?.get(c)
}

#[test]
fn linux_2_6_16_udp_with_8_field_ops() {
    let t = tick(&OLD_UDP);
    let text = text_report(&t);
    let b = block(&text, "/u/joe");
    assert_eq!(b[0], "sparrow:/exported/joe mounted on /u/joe:");
    // 150 sends over 2 s = 75.000 ops/s; bklog (30 / 150) / 2 = 0.100
    assert_eq!(b[2], format!("{:>16}{:>16}", "75.000", "0.100"));
    assert!(
        b[3].starts_with("read:") && !b[3].contains("errors"),
        "8 fields: no errors column"
    );
    // READ: 100 ops / 2 s = 50.000; (0 + 3,276,800) / 1024 = 3200 kB,
    // / 2 s = 1600.000 kB/s, / 100 = 32.000 kB/op; 103 - 100 = 3
    // retransmissions, 3 * 100 / 100 = 3.0 %; RTT 500 / 100 = 5.000,
    // exe 800 / 100 = 8.000, queue 100 / 100 = 1.000 ms
    assert_eq!(
        b[4],
        figures(&[
            "50.000", "1600.000", "32.000", "3 (3.0%)", "5.000", "8.000", "1.000"
        ])
    );
    // WRITE did nothing: nfsiostat's zeros, not "–"
    assert!(b[5].starts_with("write:"));
    assert_eq!(
        b[6],
        figures(&[
            "0.000", "0.000", "0.000", "0 (0.0%)", "0.000", "0.000", "0.000"
        ])
    );
    // GETATTR, active, after READ and WRITE: 50 / 2 = 25.000 ops/s;
    // 5,600 / 1024 = 5.46875 kB, / 2 = 2.734375 → 2.734 kB/s, / 50 =
    // 0.109375 → 0.109 kB/op; RTT 5 / 50 = 0.100, exe 10 / 50 = 0.200
    assert!(b[7].starts_with("getattr:"));
    assert_eq!(
        b[8],
        figures(&[
            "25.000", "2.734", "0.109", "0 (0.0%)", "0.100", "0.200", "0.000"
        ])
    );
    assert_eq!(b.len(), 9, "LOOKUP and the rest were idle: {b:#?}");
    let r = row(&t, "/u/joe");
    assert_eq!(op(r, "GETATTR", NfsOpCol::KBPerS), Some(2.734375));
    assert_eq!(op(r, "READ", NfsOpCol::Errors), None);
    // bytes: 3,276,800 / 1024 / 2 = 1600 kB/s read by the application
    // and from the server, nothing written
    let m = r.rates.expect("figures");
    assert_eq!(m.get(NfsMountCol::NormalReadKBs), Some(1600.0));
    assert_eq!(m.get(NfsMountCol::ServerReadKBs), Some(1600.0));
    assert_eq!(m.get(NfsMountCol::NormalWriteKBs), Some(0.0));
}

#[test]
fn isilon_tcp_10_field_xprt_terabyte_counters() {
    let t = tick(&OLD_TCP);
    let text = text_report(&t);
    let b = block(&text, "/ifs");
    // 5000 sends / 5 s = 1000.000; bklog (2500 / 5000) / 5 = 0.100
    assert_eq!(b[2], format!("{:>16}{:>16}", "1000.000", "0.100"));
    // READ: 3000 / 5 = 600.000 ops/s; (492,000 + 98,640,000) / 1024 =
    // 96,808.59375 kB, / 5 = 19,361.71875 → 19361.719 kB/s, / 3000 =
    // 32.26953125 → 32.270 kB/op; no retransmission; RTT 12000 / 3000 =
    // 4.000, exe 15000 / 3000 = 5.000, queue 1500 / 3000 = 0.500
    assert_eq!(
        b[4],
        figures(&[
            "600.000",
            "19361.719",
            "32.270",
            "0 (0.0%)",
            "4.000",
            "5.000",
            "0.500"
        ])
    );
    // WRITE: 2000 / 5 = 400.000; (65,872,000 + 272,000) / 1024 =
    // 64,593.75 kB, / 5 = 12918.750, / 2000 = 32.296875 → 32.297; 2010 -
    // 2000 = 10 retransmissions, 10 * 100 / 2000 = 0.5 %; RTT 6000 / 2000
    // = 3.000, exe 50000 / 2000 = 25.000, queue 40000 / 2000 = 20.000
    assert_eq!(
        b[6],
        figures(&[
            "400.000",
            "12918.750",
            "32.297",
            "10 (0.5%)",
            "3.000",
            "25.000",
            "20.000"
        ])
    );
    assert_eq!(b.len(), 7, "no other op moved");
    // bytes: 98,304,000 / 1024 / 5 = 19,200 kB/s read, 65,536,000 / 1024
    // / 5 = 12,800 kB/s written
    let m = row(&t, "/ifs").rates.expect("figures");
    assert_eq!(m.get(NfsMountCol::NormalReadKBs), Some(19200.0));
    assert_eq!(m.get(NfsMountCol::ServerWriteKBs), Some(12800.0));
    assert_eq!(
        t.total.and_then(|x| x.get(NfsMountCol::NormalWriteKBs)),
        Some(12800.0)
    );
}

#[test]
fn nfs4_2_with_errors_and_a_shared_transport() {
    let t = tick(&NEW_TCP);
    let text = text_report(&t);
    assert_eq!(t.rows.len(), 7);
    let read = figures(&[
        // 200 / 1 s; (52,000 + 52,428,800) / 1024 = 51,250.78125 kB →
        // 51250.781 kB/s, / 200 = 256.25390625 → 256.254 kB/op; 202 - 200
        // = 2 retransmissions = 1.0 %; RTT 600 / 200 = 3.000, exe 700 /
        // 200 = 3.500, queue 10 / 200 = 0.050; 1 error = 0.5 %
        "200.000",
        "51250.781",
        "256.254",
        "2 (1.0%)",
        "3.000",
        "3.500",
        "0.050",
        "1 (0.5%)",
    ]);
    let write = figures(&[
        // 100 / 1 s; (104,857,600 + 10,000) / 1024 = 102,409.765625 →
        // 102409.766 kB/s, / 100 = 1024.09765625 → 1024.098 kB/op; RTT 900
        // / 100 = 9.000, exe 6000 / 100 = 60.000, queue 5000 / 100 = 50.000
        "100.000",
        "102409.766",
        "1024.098",
        "0 (0.0%)",
        "9.000",
        "60.000",
        "50.000",
        "0 (0.0%)",
    ]);
    let getattr = figures(&[
        // 100 / 1 s; (22,900 + 24,400) / 1024 = 46.19140625 → 46.191,
        // / 100 = 0.462; RTT 200 / 100 = 2.000, exe 250 / 100 = 2.500
        "100.000", "46.191", "0.462", "0 (0.0%)", "2.000", "2.500", "0.000", "0 (0.0%)",
    ]);
    // The four exports print the transport's and the client's figures:
    // 400 sends / 1 s, bklog (100 / 400) / 1 = 0.250
    for mp in [
        "/mnt/nfs1/docs",
        "/mnt/nfs1/system_setup",
        "/mnt/nfs1/code",
        "/mnt/nfs1/docs_work",
    ] {
        let b = block(&text, mp);
        assert_eq!(b[2], format!("{:>16}{:>16}", "400.000", "0.250"), "{mp}");
        assert!(
            b[3].ends_with("  avg queue (ms)          errors"),
            "{mp}: {}",
            b[3]
        );
        assert_eq!(
            (b[4], b[6], b[8]),
            (read.as_str(), write.as_str(), getattr.as_str()),
            "{mp}"
        );
        assert!(b[7].starts_with("getattr:"));
        assert_eq!(b.len(), 9, "SEQUENCE and the rest were idle: {b:#?}");
    }
    // Only docs moved data: 52,428,800 / 1024 = 51,200 kB/s read and
    // 104,857,600 / 1024 = 102,400 kB/s written, by the application and
    // on the wire; its neighbours show 0, and the total is docs'
    let docs = row(&t, "/mnt/nfs1/docs").rates.expect("figures");
    assert_eq!(docs.get(NfsMountCol::NormalReadKBs), Some(51200.0));
    assert_eq!(docs.get(NfsMountCol::ServerWriteKBs), Some(102400.0));
    let code = row(&t, "/mnt/nfs1/code").rates.expect("figures");
    assert_eq!(code.get(NfsMountCol::NormalWriteKBs), Some(0.0));
    let total = t.total.expect("every mount has figures");
    assert_eq!(total.get(NfsMountCol::NormalWriteKBs), Some(102400.0));
    assert_eq!(
        total.get(NfsMountCol::OpsPerS),
        None,
        "a shared transport does not add up"
    );
    assert_eq!(
        op(row(&t, "/mnt/nfs1/docs"), "READ", NfsOpCol::ErrorsPct),
        Some(0.5)
    );
    // The NFSv3 mounts (RPC iostats 1.0) sat idle: zeros, no errors column
    let b = block(&text, "/mailhome6");
    assert_eq!(b[2], format!("{:>16}{:>16}", "0.000", "0.000"));
    assert!(!b[3].contains("errors"));
    assert_eq!(
        b[4],
        figures(&[
            "0.000", "0.000", "0.000", "0 (0.0%)", "0.000", "0.000", "0.000"
        ])
    );
}

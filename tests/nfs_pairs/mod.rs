//! Pairs of mountstats snapshots: a real sample (tests/fixtures/nfs) as A,
//! and B made from it by moving counters by the deltas written out here,
//! which the tests' hand computations use.
#![allow(dead_code)]

use std::fs;

pub struct Pair {
    pub name: &'static str,
    pub fixture: &'static str,
    /// (text in A, its replacement in B, how many times it occurs in A).
    pub edits: &'static [(&'static str, &'static str, usize)],
    /// The interval in seconds: uptime moves by exactly this much.
    pub itv_s: u64,
}

impl Pair {
    pub fn a(&self) -> String {
        let path = format!(
            "{}/tests/fixtures/nfs/{}",
            env!("CARGO_MANIFEST_DIR"),
            self.fixture
        );
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    pub fn b(&self) -> String {
        let mut text = self.a();
        for (from, to, n) in self.edits {
            assert_eq!(
                text.matches(from).count(),
                *n,
                "{}: {from:?} should occur {n} times",
                self.name
            );
            text = text.replace(from, to);
        }
        text
    }
}

/// Linux 2.6.16, NFSv3 over UDP, statvers=1.0, 8-field ops; 2 s.
/// ΔREAD: 100 ops, 103 transmissions, 0 sent (this kernel did not count
/// them), 3,276,800 received, queue 100, rtt 500, execute 800 ms.
/// ΔGETATTR: 50 ops, 5,600 received, rtt 5, execute 10 ms.
/// xprt udp: 150 sends, req_u +300, bklog_u +30.
/// bytes: normal and server read +3,276,800.
pub const OLD_UDP: Pair = Pair {
    name: "2.6.16 NFSv3 udp",
    fixture: "lkml-2006-nfs3-udp-statvers1.0.txt",
    edits: &[
        (" age:    2526", " age:    2528", 1),
        (
            "xprt:   udp 1023 0 560 560 0 1832 176",
            "xprt:   udp 1023 0 710 710 0 2132 206",
            1,
        ),
        (
            "READ: 193 193 0 0 5977864 176 424 600",
            "READ: 293 296 0 0 9254664 276 924 1400",
            1,
        ),
        (
            "GETATTR: 115 115 0 0 12880 0 16 24",
            "GETATTR: 165 165 0 0 18480 0 21 34",
            1,
        ),
        (
            "bytes:  131161418 19867448 0 0 114028223 19862777 31282 4349 ",
            "bytes:  134438218 19867448 0 0 117305023 19862777 32082 4349 ",
            1,
        ),
    ],
    itv_s: 2,
};

/// An Isilon NFSv3 mount over TCP, statvers=1.0, 10-field xprt, 8-field
/// ops, counters in the terabytes; 5 s.
/// ΔREAD: 3000 ops and transmissions, 492,000 sent, 98,640,000 received,
/// queue 1500, rtt 12000, execute 15000 ms.
/// ΔWRITE: 2000 ops, 2010 transmissions, 65,872,000 sent, 272,000
/// received, queue 40000, rtt 6000, execute 50000 ms.
/// xprt tcp: 5000 sends, req_u +20000, bklog_u +2500.
/// bytes: normal and server read +98,304,000, write +65,536,000.
pub const OLD_TCP: Pair = Pair {
    name: "Isilon NFSv3 tcp",
    fixture: "tacc-nfs3-tcp-statvers1.0.txt",
    edits: &[
        ("age:    1309110", "age:    1309115", 1),
        (
            "tcp 766 1 1 0 0 172670997 172670964 33 3451662215 293843845166",
            "tcp 766 1 1 0 0 172675997 172675964 33 3451682215 293843847666",
            1,
        ),
        (
            "READ: 40661028 40661029 0 6667603140 1273590220520 53470812 194367680 249334714",
            "READ: 40664028 40664029 0 6668095140 1273688860520 53472312 194379680 249349714",
            1,
        ),
        (
            "WRITE: 22095837 22095838 0 676314934552 3534070784 212745097913 103711782 212850213433",
            "WRITE: 22097837 22097848 0 676380806552 3534342784 212745137913 103717782 212850263433",
            1,
        ),
        (
            "bytes:  4886067767364 671548484867 0 0 1268384471881 672425463273",
            "bytes:  4886166071364 671614020867 0 0 1268482775881 672490999273",
            1,
        ),
    ],
    itv_s: 5,
};

/// NFSv4.2, statvers=1.1, RPC iostats 1.1: 9-field ops with errors; four
/// exports of one server share the transport and the per-op counters, so
/// their lines move together; only /mnt/nfs1/docs moved data; 1 s.
/// ΔREAD: 200 ops, 202 transmissions, 52,000 sent, 52,428,800 received,
/// queue 10, rtt 600, execute 700 ms, 1 error.
/// ΔWRITE: 100 ops and transmissions, 104,857,600 sent, 10,000 received,
/// queue 5000, rtt 900, execute 6000 ms, no error.
/// ΔGETATTR: 100 ops and transmissions, 22,900 sent, 24,400 received,
/// rtt 200, execute 250 ms.
/// xprt tcp: 400 sends, req_u +1200, bklog_u +100.
/// bytes of docs: normal and server read +52,428,800, write +104,857,600.
pub const NEW_TCP: Pair = Pair {
    name: "NFSv4.2 tcp, RPC iostats 1.1",
    fixture: "nfsmountstats-nfs4.2-and-nfs3-tcp.txt",
    edits: &[
        ("\tage:\t258103", "\tage:\t258104", 4),
        ("\tage:\t2919118", "\tage:\t2919119", 3),
        (
            "tcp 0 0 62 0 0 35130 35097 3 889722 0 31 11242 11142",
            "tcp 0 0 62 0 0 35530 35497 3 890922 100 31 11642 11542",
            4,
        ),
        (
            "READ: 484 484 0 121212 11259100 23 2152 2190 0",
            "READ: 684 686 0 173212 63687900 33 2752 2890 1",
            4,
        ),
        (
            "WRITE: 513 513 0 121747828 97008 260140 5367 265518 0",
            "WRITE: 613 613 0 226605428 107008 265140 6267 271518 0",
            4,
        ),
        (
            "GETATTR: 13920 13924 0 3187904 3394844 6668 27030 34563 7",
            "GETATTR: 14020 14024 0 3210804 3419244 6668 27230 34813 7",
            4,
        ),
        (
            "bytes:\t114488545 121602879 0 0 11208171 121607878 3027 30003 ",
            "bytes:\t166917345 226460479 0 0 63636971 226465478 15827 55603 ",
            1,
        ),
    ],
    itv_s: 1,
};

pub const PAIRS: [&Pair; 3] = [&OLD_UDP, &OLD_TCP, &NEW_TCP];

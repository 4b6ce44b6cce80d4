//! The fixture host's other layers, `k` seconds in: NICs and a bond, the
//! page cache, kernel NFS mounts. Texts are laid out exactly as the kernel
//! prints them, and counters advance with a deterministic load.
#![allow(dead_code)]

/// (name, rx bytes/s, rx packets/s, tx bytes/s, tx packets/s, rx errs and
/// drops every 10 s).
type Nic = (&'static str, u64, u64, u64, u64, u64);

/// eth0 and eth1 are bond0's slaves (active-backup, eth1 active: the bond's
/// traffic is eth1's); ens3f0 faces the filer; ens3f1's link is down.
const NICS: [Nic; 9] = [
    ("lo", 2_000_000, 3_000, 2_000_000, 3_000, 0),
    ("eth0", 0, 2, 0, 0, 0),
    ("eth1", 40_000_000, 30_000, 8_000_000, 20_000, 1),
    ("bond0", 40_000_000, 30_002, 8_000_000, 20_000, 1),
    ("bond0.100", 39_000_000, 29_000, 7_900_000, 19_500, 0),
    ("ens3f0", 900_000_000, 110_000, 60_000_000, 80_000, 3),
    ("ens3f1", 0, 0, 0, 0, 0),
    ("docker0", 0, 0, 0, 0, 0),
    // 45,000 bytes a packet out: what GSO hands a veth (the demo's)
    ("veth1a2b", 1_000, 10, 540_000, 12, 0),
];

/// /proc/net/dev (kernel 6.x layout) `k` seconds in.
pub fn netdev_text(k: u64) -> String {
    let mut s = String::from(
        "Inter-|   Receive                                                |  Transmit\n \
         face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n",
    );
    for (i, &(name, rb, rp, tb, tp, bad)) in NICS.iter().enumerate() {
        let wave = |t: u64| 100 + (t * 11 + i as u64 * 7) % 50;
        let sum = |base: u64| (1..=k).map(|t| base * wave(t) / 100).sum::<u64>();
        let base = 10_000_000 * (i as u64 + 1);
        let (rxb, rxp, txb, txp) = (
            base + sum(rb),
            base / 1000 + sum(rp),
            base * 2 + sum(tb),
            base / 500 + sum(tp),
        );
        let errs = bad * k / 10;
        s.push_str(&format!(
            "{name:>6}: {rxb:>7} {rxp:>7} {errs:>4} {errs:>4} {:>4} {:>5} {:>10} {:>9} {txb:>8} {txp:>7} {:>4} {:>4} {:>4} {:>5} {:>7} {:>10}\n",
            0, 0, 0, rxp / 1000, 0, errs / 2, 0, 0, 0, 0
        ));
    }
    s
}

/// /proc/net/bonding/bond0: active-backup with eth0 as the configured
/// primary but eth1 active, after eth0's link failed once at start.
pub fn bonding_text(eth0_failures: u64) -> String {
    format!(
        "Ethernet Channel Bonding Driver: v6.12.0\n\
         \n\
         Bonding Mode: fault-tolerance (active-backup)\n\
         Primary Slave: eth0 (primary_reselect failure)\n\
         Currently Active Slave: eth1\n\
         MII Status: up\n\
         MII Polling Interval (ms): 100\n\
         Up Delay (ms): 0\n\
         Down Delay (ms): 0\n\
         Peer Notification Delay (ms): 0\n\
         \n\
         Slave Interface: eth0\n\
         MII Status: up\n\
         Speed: 25000 Mbps\n\
         Duplex: full\n\
         Link Failure Count: {eth0_failures}\n\
         Permanent HW addr: 0c:42:a1:5e:10:20\n\
         Slave queue ID: 0\n\
         \n\
         Slave Interface: eth1\n\
         MII Status: up\n\
         Speed: 25000 Mbps\n\
         Duplex: full\n\
         Link Failure Count: 0\n\
         Permanent HW addr: 0c:42:a1:5e:10:21\n\
         Slave queue ID: 0\n"
    )
}

/// /proc/meminfo of a 256 GiB database host whose SGA is not on
/// HugePages: Shmem holds 96 GiB of Cached.
pub fn meminfo_text(k: u64) -> String {
    let dirty = 40_000 + (k * 3_517) % 90_000;
    let writeback = (k * 1_231) % 12_000;
    let cached = 140_000_000 + k * 2_048;
    [
        ("MemTotal", 263_883_084),
        ("MemFree", 9_876_544),
        ("MemAvailable", 60_553_216),
        ("Buffers", 1_204_332),
        ("Cached", cached),
        ("SwapCached", 0),
        ("Active", 120_000_000),
        ("Inactive", 30_000_000),
        ("Active(anon)", 99_000_000),
        ("Inactive(anon)", 2_000_000),
        ("Active(file)", 21_000_000 + k * 1_024),
        ("Inactive(file)", 28_000_000 + k * 1_024),
        ("Unevictable", 0),
        ("Mlocked", 0),
        ("SwapTotal", 16_777_212),
        ("SwapFree", 16_777_212),
        ("Dirty", dirty),
        ("Writeback", writeback),
        ("AnonPages", 3_000_000),
        ("Mapped", 99_500_000),
        ("Shmem", 100_663_296),
        ("KReclaimable", 2_000_000),
        ("Slab", 3_000_000),
        ("SReclaimable", 2_000_000),
        ("SUnreclaim", 1_000_000),
    ]
    .iter()
    .map(|(key, v)| format!("{:<16}{v:>8} kB\n", format!("{key}:")))
    .chain(
        [
            "HugePages_Total:       0\n",
            "HugePages_Free:        0\n",
            "HugePages_Rsvd:        0\n",
            "HugePages_Surp:        0\n",
            "Hugepagesize:       2048 kB\n",
        ]
        .map(String::from),
    )
    .collect()
}

/// /proc/vmstat (the counters strata reads, among others) `k` s in.
pub fn vmstat_text(k: u64) -> String {
    let wave = |t: u64| 100 + (t * 13) % 40;
    let sum = |base: u64| (1..=k).map(|t| base * wave(t) / 100).sum::<u64>();
    format!(
        "nr_free_pages 2469136\n\
         nr_dirty {}\n\
         nr_writeback {}\n\
         nr_shmem 25165824\n\
         workingset_refault_anon 0\n\
         workingset_refault_file {}\n\
         workingset_activate_file 1000\n\
         pgpgin {}\n\
         pgpgout {}\n\
         pswpin 0\n\
         pswpout 0\n\
         pgfault {}\n\
         pgmajfault {}\n",
        10_000 + k,
        k % 7,
        500_000 + sum(120),
        7_000_000_000 + sum(180_000),
        3_000_000_000 + sum(60_000),
        90_000_000 + sum(20_000),
        40_000 + sum(15),
    )
}

/// /proc/self/mountstats: the root fs, an NFSv3 mount of the filer's
/// archive export (also bind-mounted elsewhere: the same counters), and an
/// idle NFSv4.1 mount.
pub fn mountstats_text(k: u64) -> String {
    let wave = |t: u64| 100 + (t * 17) % 30;
    let sum = |base: u64| (1..=k).map(|t| base * wave(t) / 100).sum::<u64>();
    let (reads, writes, getattr) = (
        1_000_000 + sum(800),
        2_000_000 + sum(1_200),
        50_000 + sum(40),
    );
    let sends = reads + writes + getattr + 10;
    let archive = format!(
        "device filer01:/vol/arch mounted on {{MP}} with fstype nfs statvers=1.1\n\
         \topts:\trw,vers=3,rsize=1048576,wsize=1048576,namlen=255,acregmin=3,acregmax=60,acdirmin=30,acdirmax=60,hard,proto=tcp,timeo=600,retrans=2,sec=sys,mountaddr=192.168.10.5,mountvers=3,mountport=635,mountproto=udp,local_lock=none\n\
         \tage:\t{age}\n\
         \tcaps:\tcaps=0x3fef,wtmult=4096,dtsize=1048576,bsize=0,namlen=255\n\
         \tsec:\tflavor=1,pseudoflavor=1\n\
         \tevents:\t{getattr} 9000 0 4 1200 800 {getattr} {w} 0 {r} 0 {w} 10 0 5 5 0 1200 0 0 {w} 0 0 0 0 0 0\n\
         \tbytes:\t{rb} {wb} 0 0 {rb} {wb} {rp} {wp}\n\
         \tRPC iostats version: 1.1  p/v: 100003/3 (nfs)\n\
         \txprt:\ttcp 875 1 1 0 0 {sends} {sends} 0 {inflight} {backlog} 128 {pending} {pending}\n\
         \tper-op statistics\n\
         \t        NULL: 1 1 0 44 24 0 0 0 0\n\
         \t     GETATTR: {getattr} {getattr} 0 {ga_sent} {ga_recv} {ga_q} {ga_rtt} {ga_exe} 0\n\
         \t     SETATTR: 0 0 0 0 0 0 0 0 0\n\
         \t      LOOKUP: 5 5 0 700 900 0 2 2 1\n\
         \t      ACCESS: 3 3 0 400 360 0 1 1 0\n\
         \t        READ: {reads} {reads_tx} 0 {r_sent} {r_recv} {r_q} {r_rtt} {r_exe} 0\n\
         \t       WRITE: {writes} {writes} 0 {w_sent} {w_recv} {w_q} {w_rtt} {w_exe} 0\n\
         \t      COMMIT: 2 2 0 300 240 0 3 3 0\n\
         \n",
        age = 86_400 + k,
        r = reads,
        w = writes,
        rb = reads * 262_144,
        wb = writes * 131_072,
        rp = reads * 64,
        wp = writes * 32,
        inflight = sends * 3,
        backlog = sends / 50,
        pending = sends * 2,
        ga_sent = getattr * 132,
        ga_recv = getattr * 112,
        ga_q = getattr / 100,
        ga_rtt = getattr / 4,
        ga_exe = getattr / 3,
        reads_tx = reads + k / 5,
        r_sent = reads * 140,
        r_recv = reads * (262_144 + 120),
        r_q = reads / 50,
        r_rtt = reads * 2,
        r_exe = reads * 2 + reads / 10,
        w_sent = writes * (131_072 + 200),
        w_recv = writes * 136,
        w_q = writes / 20,
        w_rtt = writes * 3,
        w_exe = writes * 3 + writes / 5,
    );
    let mut s = String::from(
        "device /dev/vda1 mounted on / with fstype ext4\n\
         device proc mounted on /proc with fstype proc\n",
    );
    s.push_str(&archive.replace("{MP}", "/arch"));
    s.push_str(&archive.replace("{MP}", "/u01/app/oracle/arch"));
    s.push_str(
        "device filer02:/export/home mounted on /home/oracle with fstype nfs4 statvers=1.1\n\
         \topts:\trw,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,acregmin=3,acregmax=60,acdirmin=30,acdirmax=60,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=192.168.10.21,local_lock=none\n\
         \tage:\t86400\n\
         \tevents:\t0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n\
         \tbytes:\t0 0 0 0 0 0 0 0\n\
         \tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n\
         \txprt:\ttcp 0 1 1 0 0 12 12 0 12 0 64 0 0\n\
         \tper-op statistics\n\
         \t        NULL: 1 1 0 44 24 0 0 0 0\n\
         \t        READ: 0 0 0 0 0 0 0 0 0\n\
         \t       WRITE: 0 0 0 0 0 0 0 0 0\n\
         \t     GETATTR: 11 11 0 1800 2400 0 4 5 0\n\
         \n",
    );
    s
}

/// /proc/stat of a two-CPU host at state `k`: each CPU busy a share of
/// every interval that changes with `k`, with I/O wait and steal.
pub fn stat_text(k: u64) -> String {
    let line = |name: &str, cpu: u64| {
        let t = |base: u64| base + k * (base % 7 + 3 + cpu);
        format!(
            "{name} {} {} {} {} {} {} {} {} 0 0\n",
            t(4705),
            t(356),
            t(584),
            t(369_900),
            t(230),
            t(23),
            t(41),
            t(12),
        )
    };
    let mut s = String::new();
    let all = {
        let sum = |base: u64| 2 * base + k * (2 * (base % 7 + 3) + 1);
        format!(
            "cpu  {} {} {} {} {} {} {} {} 0 0\n",
            sum(4705),
            sum(356),
            sum(584),
            sum(369_900),
            sum(230),
            sum(23),
            sum(41),
            sum(12),
        )
    };
    s.push_str(&all);
    s.push_str(&line("cpu0", 0));
    s.push_str(&line("cpu1", 1));
    s.push_str(&format!(
        "intr {} 0 0\nctxt {}\nbtime 1795000000\nprocesses {}\nprocs_running {}\nprocs_blocked {}\nsoftirq 0 0\n",
        1_000_000 + 1_500 * k,
        2_000_000 + 2_700 * k,
        9_000 + k,
        1 + k % 3,
        k % 2,
    ));
    s
}

/// /proc/loadavg at state `k`.
pub fn loadavg_text(k: u64) -> String {
    format!(
        "0.{:02} 0.18 0.12 {}/{} 11206\n",
        20 + k % 50,
        1 + k % 3,
        180 + k
    )
}

/// A /proc/pressure file at state `k`: `full` for io and memory only
/// (the cpu file's full line is all zero where it has one).
pub fn pressure_text(resource: &str, k: u64) -> String {
    let some = 1_000_000 + k * 37_000;
    let mut s = format!("some avg10=1.50 avg60=0.80 avg300=0.20 total={some}\n");
    if resource != "cpu" {
        let full = 500_000 + k * 11_000;
        s.push_str(&format!(
            "full avg10=0.70 avg60=0.30 avg300=0.10 total={full}\n"
        ));
    }
    s
}

/// The processes of a host at state `k`, each file as (path, text): a DB
/// writer and a log writer that write, a session that reads, and one that
/// does nothing; their counters grow with `k`. The stat lines have the 52
/// fields of a 5.x kernel; what strata reads of them is fields 2, 3, 14,
/// 15, 22 and 42.
pub fn procs_files(k: u64) -> Vec<(String, Vec<u8>)> {
    let procs: [(u32, &str, &[u8], u64, u64); 4] = [
        (300, "oracle", b"ora_dbw0_PROD1\0", 0, 40_960),
        (301, "oracle", b"ora_lgwr_PROD1\0", 0, 4_096),
        (302, "oracle", b"oraclePROD1 (LOCAL=NO)\0", 81_920, 0),
        (303, "sleep", b"sleep\x0060\0", 0, 0),
    ];
    let mut out = Vec::new();
    for (pid, comm, argv, rd, wr) in procs {
        let (stat, io) = proc_texts(pid, comm, k, (rd, wr), k * u64::from(pid % 3));
        out.push((format!("proc/{pid}/stat"), stat.into_bytes()));
        out.push((format!("proc/{pid}/io"), io.into_bytes()));
        out.push((
            format!("proc/{pid}/status"),
            b"Name:\toracle\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t54321\t54321\t54321\t54321\n".to_vec(),
        ));
        out.push((format!("proc/{pid}/cmdline"), argv.to_vec()));
    }
    out.push((
        "etc/passwd".into(),
        b"root:x:0:0:root:/root:/bin/sh\noracle:x:54321:54321::/home/oracle:/bin/bash\n".to_vec(),
    ));
    out
}

/// A process's /proc/PID/stat and io at state `k`, having read and
/// written `rd` and `wr` bytes a state (in calls of 8 and 4 kB), with
/// `blkio` ticks of block I/O delay: a stat of the 52 fields of a 5.x
/// kernel, started at 5000.
pub fn proc_texts(
    pid: u32,
    comm: &str,
    k: u64,
    (rd, wr): (u64, u64),
    blkio: u64,
) -> (String, String) {
    let mut f: Vec<String> = (3..=52).map(|n| (n % 7).to_string()).collect();
    f[0] = "S".into();
    f[22 - 3] = "5000".into();
    f[42 - 3] = blkio.to_string();
    let stat = format!("{pid} ({comm}) {}\n", f.join(" "));
    let io = format!(
        "rchar: {}\nwchar: {}\nsyscr: {}\nsyscw: {}\nread_bytes: {}\nwrite_bytes: {}\ncancelled_write_bytes: 0\n",
        1000 + k * rd,
        1000 + k * wr,
        10 + k * (rd / 8192),
        10 + k * (wr / 4096),
        k * rd,
        k * wr
    );
    (stat, io)
}

/// Writes [`procs_files`] of state `k` under `root`.
pub fn write_procs(root: &std::path::Path, k: u64) {
    for (rel, bytes) in procs_files(k) {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, bytes).unwrap();
    }
}

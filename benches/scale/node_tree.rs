//! A synthetic database node under a directory, as its sampler reads it
//! under `$R`: 100 block devices (40 SAN LUNs sd*, 40 NVMe, 20 multipath
//! dm-*), 16 interfaces with two active-backup bonds of two slaves each,
//! 8 NFSv3 mounts with the kernel's 22 per-op lines, /proc/meminfo and
//! /proc/vmstat laid out as this machine's (its keys and order, the
//! generator's values where it has them), mountinfo and routes.
//! /proc/uptime is a link to this machine's: the node's clock is real; so
//! are /proc/stat, /proc/loadavg and /proc/pressure/*, the CPU layer's.
//! [`PROCS`] processes of one database instance, ASM and Grid, of which
//! [`MOVING`] do I/O each second (its writers, its log writer, an archiver
//! and one session in ten), for the process layer's awk.

use crate::layers;
use crate::scale::cells::replace;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub const SD: usize = 40;
pub const NVME: usize = 40;
pub const DM: usize = 20;
pub const BLOCK: usize = SD + NVME + DM;
pub const NFS: [(&str, &str); 8] = [
    ("filer01:/vol/oradata", "/u02/oradata"),
    ("filer01:/vol/redo", "/u03/redo"),
    ("filer02:/vol/fra", "/u04/fra"),
    ("filer02:/vol/arch", "/u05/arch"),
    ("filer03:/vol/backup", "/u06/backup"),
    ("filer03:/vol/export", "/u07/export"),
    ("filer04:/vol/stage", "/u08/stage"),
    ("filer04:/vol/dump", "/u09/dump"),
];

/// What an interface is: its driver, bond master or lower device.
#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    Lo,
    Phys(&'static str),
    Slave(&'static str, &'static str),
    Bond(&'static str, &'static str),
    Vlan(&'static str),
    Ib,
    Bridge,
}

/// (name, kind, speed Mb/s (0: none), up, rx bytes/s, tx bytes/s)
type Nic = (&'static str, Kind, u32, bool, u64, u64);

pub const NICS: [Nic; 16] = [
    ("lo", Kind::Lo, 0, true, 3_000_000, 3_000_000),
    ("eth0", Kind::Slave("mlx5_core", "bond0"), 25000, true, 0, 0),
    (
        "eth1",
        Kind::Slave("mlx5_core", "bond0"),
        25000,
        true,
        80_000_000,
        20_000_000,
    ),
    (
        "eth2",
        Kind::Slave("mlx5_core", "bond1"),
        25000,
        true,
        300_000_000,
        90_000_000,
    ),
    ("eth3", Kind::Slave("mlx5_core", "bond1"), 25000, true, 0, 0),
    (
        "bond0",
        Kind::Bond("eth0", "eth1"),
        25000,
        true,
        80_000_000,
        20_000_000,
    ),
    (
        "bond1",
        Kind::Bond("eth2", "eth3"),
        25000,
        true,
        300_000_000,
        90_000_000,
    ),
    (
        "bond0.100",
        Kind::Vlan("bond0"),
        25000,
        true,
        79_000_000,
        19_000_000,
    ),
    (
        "bond1.200",
        Kind::Vlan("bond1"),
        25000,
        true,
        299_000_000,
        89_000_000,
    ),
    (
        "ens3f0",
        Kind::Phys("ixgbe"),
        10000,
        true,
        600_000_000,
        40_000_000,
    ),
    ("ens3f1", Kind::Phys("ixgbe"), 0, false, 0, 0),
    (
        "ens4f0",
        Kind::Phys("i40e"),
        10000,
        true,
        200_000_000,
        150_000_000,
    ),
    ("ens4f1", Kind::Phys("i40e"), 10000, true, 5_000, 4_000),
    ("ib0", Kind::Ib, 100000, true, 1_000_000_000, 900_000_000),
    ("ib1", Kind::Ib, 100000, true, 900_000_000, 1_000_000_000),
    ("virbr0", Kind::Bridge, 0, false, 0, 0),
];

/// (major, minor, name) of block device `j`.
pub fn block_dev(j: usize) -> (u32, usize, String) {
    if j < SD {
        let name = if j < 26 {
            format!("sd{}", (b'a' + j as u8) as char)
        } else {
            format!("sda{}", (b'a' + (j - 26) as u8) as char)
        };
        (if j < 16 { 8 } else { 65 }, (j % 16) * 16, name)
    } else if j < SD + NVME {
        (259, j - SD, format!("nvme{}n1", j - SD))
    } else {
        (253, j - SD - NVME, format!("dm-{}", j - SD - NVME))
    }
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).expect("mkdir");
    }
    fs::write(path, text).expect("write");
}

fn link(target: &str, path: &Path) {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).expect("mkdir");
    }
    std::os::unix::fs::symlink(target, path).expect("symlink");
}

/// This machine's /proc/meminfo and /proc/vmstat: the layout the
/// generator's values are put into.
pub struct Templates {
    meminfo: String,
    vmstat: String,
}

impl Templates {
    pub fn read() -> Templates {
        Templates {
            meminfo: fs::read_to_string("/proc/meminfo").unwrap_or_default(),
            vmstat: fs::read_to_string("/proc/vmstat").unwrap_or_default(),
        }
    }
}

/// `template`'s lines with those whose key (`key` of a line) the
/// generated text has replaced by the generated ones; the generated
/// lines the template lacks at the end.
fn overlay(template: &str, generated: &str, key: fn(&str) -> &str) -> String {
    let gen_lines: Vec<&str> = generated.lines().collect();
    let find = |k: &str| gen_lines.iter().find(|l| key(l) == k).copied();
    let mut out = String::new();
    for l in template.lines() {
        out.push_str(find(key(l)).unwrap_or(l));
        out.push('\n');
    }
    for g in &gen_lines {
        if !template.lines().any(|l| key(l) == key(g)) {
            out.push_str(g);
            out.push('\n');
        }
    }
    out
}

fn word(l: &str) -> &str {
    l.split_whitespace().next().unwrap_or("")
}

fn colon_key(l: &str) -> &str {
    l.split(':').next().unwrap_or("")
}

/// Makes node `node`'s tree, its counters at second 0.
pub fn make(tree: &Path, node: usize, templates: &Templates) {
    let p = |rel: &str| tree.join(rel);
    write(&p("proc/sys/kernel/hostname"), &format!("exadb{node:02}\n"));
    write(
        &p("proc/sys/kernel/osrelease"),
        "5.15.0-301.163.5.el8uek.x86_64\n",
    );
    link("/proc/uptime", &p("proc/uptime"));
    // The CPU layer's files are this machine's too: real, moving counters
    // of the size a node's are.
    for f in [
        "stat",
        "loadavg",
        "pressure/cpu",
        "pressure/io",
        "pressure/memory",
    ] {
        link(&format!("/proc/{f}"), &p(&format!("proc/{f}")));
    }
    for j in 0..BLOCK {
        let (_, _, name) = block_dev(j);
        let d = p(&format!("sys/block/{name}"));
        let (rot, size) = if j < SD {
            ("1", 4_294_967_296u64)
        } else if j < SD + NVME {
            ("0", 12_502_446_768)
        } else {
            ("0", 8_589_934_592)
        };
        write(&d.join("queue/rotational"), &format!("{rot}\n"));
        write(&d.join("size"), &format!("{size}\n"));
        if j < SD {
            write(&d.join("device/model"), "LUN C-Mode      \n");
        } else if j < SD + NVME {
            write(&d.join("device/model"), "SAMSUNG MZWLR6T4HALA-00007\n");
        } else {
            let k = j - SD - NVME;
            write(&d.join("dm/name"), &format!("mpath{k:02}\n"));
            for s in [2 * k, 2 * k + 1] {
                fs::create_dir_all(d.join("slaves").join(block_dev(s).2)).expect("slave");
            }
        }
    }
    make_nics(tree);
    let bonding = layers::bonding_text(1);
    write(&p("proc/net/bonding/bond0"), &bonding);
    write(
        &p("proc/net/bonding/bond1"),
        &bonding
            .replace("eth0", "eth2")
            .replace("eth1", "eth3")
            .replace("10:2", "10:3"),
    );
    write(
        &p("proc/net/route"),
        "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n\
         ens4f0\t00000000\t0100000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n\
         bond0.100\t000AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n\
         bond1.200\t000BA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n\
         ens3f0\t000CA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n",
    );
    write(&p("proc/self/mountinfo"), &mountinfo());
    write(
        &p("etc/passwd"),
        "root:x:0:0:root:/root:/bin/bash\noracle:x:54321:54321::/home/oracle:/bin/bash\ngrid:x:54331:54321::/home/grid:/bin/bash\n",
    );
    for i in 0..PROCS {
        let (pid, argv, uid, _) = process(node, i);
        let d = p(&format!("proc/{pid}"));
        let comm = comm(&argv);
        write(
            &d.join("status"),
            &format!(
                "Name:\t{comm}\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n"
            ),
        );
        write(&d.join("cmdline"), &format!("{argv}\0"));
        write_process(tree, node, i, 0);
    }
    write_counters(tree, node, 0, templates);
}

/// Processes of a node, and how many of them move each second.
pub const PROCS: usize = 600;
pub const MOVING: usize = 60;

/// Process `i` of `node`: its PID, command line, owner, and the bytes it
/// reads and writes a second (0 and 0 for one that does no I/O).
fn process(node: usize, i: usize) -> (usize, String, u32, (u64, u64)) {
    let sid = format!("PROD{}", node + 1);
    let (argv, uid, io) = match i {
        0..=7 => (format!("ora_dbw{i}_{sid}"), 54321, (0, 8 << 20)),
        8 => (format!("ora_lgwr_{sid}"), 54321, (0, 2 << 20)),
        9 => (format!("ora_arc0_{sid}"), 54321, (2 << 20, 2 << 20)),
        10 => (format!("ora_ckpt_{sid}"), 54321, (0, 0)),
        11..=59 => (format!("ora_m{i:03}_{sid}"), 54321, (0, 0)),
        60..=559 if i.is_multiple_of(10) => (
            format!("oracle{sid} (LOCAL=NO)"),
            54321,
            (1 << 20, 64 << 10),
        ),
        60..=559 => (format!("oracle{sid} (LOCAL=NO)"), 54321, (0, 0)),
        560..=579 => (format!("asm_m{i:03}_+ASM{}", node + 1), 54331, (0, 0)),
        _ => (
            "/u01/app/19.0.0/grid/bin/ocssd.bin".to_string(),
            54331,
            (0, 0),
        ),
    };
    (2000 + i, argv, uid, io)
}

/// The command name the kernel gives a command line: its first word's
/// file name, cut to 15 bytes.
fn comm(argv: &str) -> String {
    let word = argv.split(' ').next().unwrap_or("");
    word.rsplit('/')
        .next()
        .unwrap_or("")
        .chars()
        .take(15)
        .collect()
}

/// Process `i`'s stat and io as of second `k`.
fn write_process(tree: &Path, node: usize, i: usize, k: u64) {
    let (pid, argv, _, (rd, wr)) = process(node, i);
    let comm = comm(&argv);
    let d = tree.join(format!("proc/{pid}"));
    let pid = u32::try_from(pid).expect("a PID");
    let blkio = k * u64::from(rd + wr > 0);
    let (stat, io) = layers::proc_texts(pid, &comm, k, (rd, wr), blkio);
    replace(&d.join("stat"), &stat);
    replace(&d.join("io"), &io);
}

fn make_nics(tree: &Path) {
    for (i, &(name, kind, speed, up, _, _)) in NICS.iter().enumerate() {
        let d = tree.join("sys/class/net").join(name);
        let ifindex = i + 1;
        let mac = if kind == Kind::Lo {
            "00:00:00:00:00:00".to_string()
        } else {
            format!("0c:42:a1:5e:{:02x}:{:02x}", i / 4, i * 3)
        };
        let (ty, mtu, devtype) = match kind {
            Kind::Lo => ("772", "65536", None),
            Kind::Ib => ("32", "4092", None),
            Kind::Bond(..) => ("1", "9000", Some("bond")),
            Kind::Vlan(_) => ("1", "9000", Some("vlan")),
            Kind::Bridge => ("1", "1500", Some("bridge")),
            Kind::Slave(..) => ("1", "9000", None),
            Kind::Phys(_) => ("1", "9000", None),
        };
        let iflink = match kind {
            Kind::Vlan(lower) => NICS.iter().position(|n| n.0 == lower).unwrap_or(i) + 1,
            _ => ifindex,
        };
        for (file, value) in [
            ("type", ty.to_string()),
            ("ifindex", ifindex.to_string()),
            ("iflink", iflink.to_string()),
            ("mtu", mtu.to_string()),
            ("address", mac),
            ("operstate", if up { "up" } else { "down" }.to_string()),
            ("carrier_changes", if up { "2" } else { "1" }.to_string()),
        ] {
            write(&d.join(file), &format!("{value}\n"));
        }
        if kind != Kind::Lo && kind != Kind::Bridge {
            let (s, dup) = if up && speed > 0 {
                (speed.to_string(), "full")
            } else {
                ("-1".to_string(), "unknown")
            };
            write(&d.join("speed"), &format!("{s}\n"));
            write(&d.join("duplex"), &format!("{dup}\n"));
        }
        let mut uevent = format!("INTERFACE={name}\nIFINDEX={ifindex}\n");
        if let Some(t) = devtype {
            let _ = writeln!(uevent, "DEVTYPE={t}");
        }
        write(&d.join("uevent"), &uevent);
        match kind {
            Kind::Phys(driver) | Kind::Slave(driver, _) => {
                link(
                    &format!("../../../../bus/pci/drivers/{driver}"),
                    &d.join("device/driver"),
                );
                write(&d.join("device/vendor"), "0x15b3\n");
                if let Kind::Slave(_, master) = kind {
                    link(&format!("../{master}"), &d.join("master"));
                }
            }
            Kind::Ib => link(
                "../../../../bus/pci/drivers/mlx5_core",
                &d.join("device/driver"),
            ),
            Kind::Bond(a, b) => {
                write(&d.join("bonding/mode"), "active-backup 1\n");
                link(&format!("../{a}"), &d.join(format!("lower_{a}")));
                link(&format!("../{b}"), &d.join(format!("lower_{b}")));
            }
            Kind::Vlan(lower) => {
                link(&format!("../{lower}"), &d.join(format!("lower_{lower}")));
                write(
                    &tree.join(format!("proc/net/vlan/{name}")),
                    &format!("{name}  VID: 100\t REORDER_HDR: 1  dev->priv_flags: 1021\n"),
                );
            }
            Kind::Bridge => write(&d.join("bridge/stp_state"), "0\n"),
            Kind::Lo => {}
        }
    }
}

/// /proc/diskstats (20 fields) of a node `k` seconds in: counters of a
/// node up for weeks, growing at fixed rates per device and node.
fn diskstats(node: usize, k: u64) -> String {
    let mut s = String::new();
    for j in 0..BLOCK {
        let (maj, min, name) = block_dev(j);
        let (r, w, sec_r, sec_w, ms) = if j < SD {
            (150 + 3 * j as u64 + node as u64, 80, 16, 16, 4)
        } else if j < SD + NVME {
            (4_000 + 50 * j as u64, 2_000, 16, 64, 0)
        } else {
            (300 + 5 * j as u64, 160, 16, 16, 3)
        };
        let base = 3_000_000_000 + 1_000_003 * j as u64 + 7_777 * node as u64;
        let (rd, wr) = (base + r * k, base / 2 + w * k);
        let _ = writeln!(
            s,
            "{maj:4} {min:7} {name} {rd} {} {} {} {wr} {} {} {} 0 {} {} {} 0 {} {} {} {}",
            rd / 10,
            rd * sec_r,
            rd * ms + rd / 3,
            wr / 20,
            wr * sec_w,
            wr * ms + wr / 5,
            (base / 7 + k * 450) % (1 << 32),
            (rd * ms + wr * ms) % (1 << 32),
            base / 1000,
            base / 125,
            base / 2000,
            wr / 50,
            wr / 25,
        );
    }
    s
}

/// /proc/net/dev (kernel 6.x layout) of a node `k` seconds in.
fn netdev(node: usize, k: u64) -> String {
    let mut s = String::from(
        "Inter-|   Receive                                                |  Transmit\n \
         face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n",
    );
    for (i, &(name, _, _, _, rx, tx)) in NICS.iter().enumerate() {
        let base = 900_000_000_000 + 10_000_000_007 * i as u64 + 1_000_003 * node as u64;
        let (rxb, txb) = (base + rx * k, base / 3 + tx * k);
        let (rxp, txp) = (rxb / 1400, txb / 1100);
        let _ = writeln!(
            s,
            "{name:>6}: {rxb:>7} {rxp:>7} {:>4} {:>4} {:>4} {:>5} {:>10} {:>9} {txb:>8} {txp:>7} {:>4} {:>4} {:>4} {:>5} {:>7} {:>10}",
            0,
            rxp / 2_000_000,
            0,
            0,
            0,
            rxp / 1000,
            0,
            0,
            0,
            0,
            0,
            0
        );
    }
    s
}

/// The non-NFS mounts of a real machine's mountstats (the fixture's).
fn other_mounts() -> (String, String) {
    let real = include_str!("../../tests/fixtures/nfs/nfsmountstats-nfs4.2-and-nfs3-tcp.txt");
    let plain: Vec<&str> = real
        .lines()
        .filter(|l| l.starts_with("device ") && !l.contains("fstype nfs"))
        .collect();
    let (before, after) = plain.split_at(plain.len().saturating_sub(3));
    (before.join("\n") + "\n", after.join("\n") + "\n")
}

/// The kernel's NFSv3 operations in its order.
const NFS3_OPS: [&str; 22] = [
    "NULL",
    "GETATTR",
    "SETATTR",
    "LOOKUP",
    "ACCESS",
    "READLINK",
    "READ",
    "WRITE",
    "CREATE",
    "MKDIR",
    "SYMLINK",
    "MKNOD",
    "REMOVE",
    "RMDIR",
    "RENAME",
    "LINK",
    "READDIR",
    "READDIRPLUS",
    "FSSTAT",
    "FSINFO",
    "PATHCONF",
    "COMMIT",
];

/// /proc/self/mountstats of a node `k` seconds in: the generator's busy
/// NFSv3 mount (tests/common/layers.rs) as each of the 8 mounts, with
/// all 22 NFSv3 operations as the kernel prints them.
fn mountstats(node: usize, k: u64) -> String {
    let generated = layers::mountstats_text(k + 100 * node as u64);
    let start = generated.find("device filer01").unwrap_or(0);
    let end = generated[start..]
        .find("\n\n")
        .map_or(generated.len(), |e| start + e + 1);
    let block = &generated[start..end];
    let (head, ops) = block
        .split_once("\tper-op statistics\n")
        .unwrap_or((block, ""));
    let mut full = format!("{head}\tper-op statistics\n");
    for op in NFS3_OPS {
        let line = ops
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{op}:")));
        match line {
            Some(l) => full.push_str(l),
            None => {
                let _ = write!(full, "\t{op:>12}: 0 0 0 0 0 0 0 0 0");
            }
        }
        full.push('\n');
    }
    let (before, after) = other_mounts();
    let mut s = before;
    for (dev, mp) in NFS {
        s.push_str(
            &full
                .replace("filer01:/vol/arch", dev)
                .replace("mounted on /arch ", &format!("mounted on {mp} ")),
        );
        s.push('\n');
    }
    s + &after
}

/// A server's system mounts: (mount point, type, source, options).
const SYSTEM_MOUNTS: [(&str, &str, &str, &str); 19] = [
    ("/", "ext4", "/dev/mapper/vg-root", "rw,relatime"),
    ("/sys", "sysfs", "sysfs", "rw,nosuid,nodev,noexec,relatime"),
    ("/proc", "proc", "proc", "rw,nosuid,nodev,noexec,relatime"),
    (
        "/dev",
        "devtmpfs",
        "devtmpfs",
        "rw,nosuid,size=131941204k,nr_inodes=32985301,mode=755",
    ),
    (
        "/dev/shm",
        "tmpfs",
        "tmpfs",
        "rw,nosuid,nodev,size=198000000k",
    ),
    (
        "/dev/pts",
        "devpts",
        "devpts",
        "rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000",
    ),
    ("/run", "tmpfs", "tmpfs", "rw,nosuid,nodev,mode=755"),
    (
        "/sys/fs/cgroup",
        "cgroup2",
        "cgroup2",
        "rw,nosuid,nodev,noexec,relatime,nsdelegate",
    ),
    (
        "/sys/kernel/security",
        "securityfs",
        "securityfs",
        "rw,nosuid,nodev,noexec,relatime",
    ),
    (
        "/sys/fs/pstore",
        "pstore",
        "pstore",
        "rw,nosuid,nodev,noexec,relatime",
    ),
    (
        "/sys/fs/bpf",
        "bpf",
        "bpf",
        "rw,nosuid,nodev,noexec,relatime,mode=700",
    ),
    (
        "/sys/kernel/debug",
        "debugfs",
        "debugfs",
        "rw,nosuid,nodev,noexec,relatime",
    ),
    (
        "/dev/hugepages",
        "hugetlbfs",
        "hugetlbfs",
        "rw,relatime,pagesize=2M",
    ),
    (
        "/dev/mqueue",
        "mqueue",
        "mqueue",
        "rw,nosuid,nodev,noexec,relatime",
    ),
    (
        "/boot",
        "xfs",
        "/dev/sda2",
        "rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota",
    ),
    (
        "/boot/efi",
        "vfat",
        "/dev/sda1",
        "rw,relatime,fmask=0077,dmask=0077,codepage=437,iocharset=ascii",
    ),
    (
        "/u01",
        "xfs",
        "/dev/mapper/vg-u01",
        "rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota",
    ),
    (
        "/var/lib/nfs/rpc_pipefs",
        "rpc_pipefs",
        "sunrpc",
        "rw,relatime",
    ),
    (
        "/run/user/1000",
        "tmpfs",
        "tmpfs",
        "rw,nosuid,nodev,relatime,size=26388308k,mode=700,uid=1000",
    ),
];

/// /proc/self/mountinfo: a server's system mounts and the 8 NFS mounts.
fn mountinfo() -> String {
    let mut s = String::new();
    for (i, (mp, fs, dev, opts)) in SYSTEM_MOUNTS.iter().enumerate() {
        let _ = writeln!(
            s,
            "{} 1 0:{} / {mp} rw,relatime shared:{} - {fs} {dev} {opts}",
            22 + i,
            20 + i,
            i + 1
        );
    }
    for (i, (dev, mp)) in NFS.iter().enumerate() {
        let _ = writeln!(
            s,
            "{} 1 0:{} / {mp} rw,relatime shared:{} - nfs {dev} rw,vers=3,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys,mountaddr=192.168.10.5,mountvers=3,mountport=635,mountproto=udp,local_lock=none,addr=192.168.10.5",
            60 + i,
            60 + i,
            40 + i
        );
    }
    s
}

/// Writes node `node`'s counter files as of second `k`.
pub fn write_counters(tree: &Path, node: usize, k: u64, t: &Templates) {
    let p = |rel: &str| tree.join(rel);
    replace(&p("proc/diskstats"), &diskstats(node, k));
    replace(&p("proc/net/dev"), &netdev(node, k));
    replace(
        &p("proc/meminfo"),
        &overlay(&t.meminfo, &layers::meminfo_text(k), colon_key),
    );
    replace(
        &p("proc/vmstat"),
        &overlay(&t.vmstat, &layers::vmstat_text(k), word),
    );
    replace(&p("proc/self/mountstats"), &mountstats(node, k));
    for i in 0..PROCS {
        if process(node, i).3 != (0, 0) {
            write_process(tree, node, i, k);
        }
    }
}

/// Rewrites every tree's counters once a second, half a second after the
/// wall clock's second (when the samplers, which read on the boundary,
/// are done): each sample sees exactly one second more of counters, and
/// its /proc/uptime a second more of the clock.
pub fn generate(trees: &[PathBuf], stop: &AtomicBool, t: &Templates) {
    let start = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let ms = strata::core::clock::now_ms().rem_euclid(1000) as u64;
        std::thread::sleep(Duration::from_millis((1500 - ms) % 1000 + 1));
        let k = start.elapsed().as_secs_f64().round() as u64;
        for (i, tree) in trees.iter().enumerate() {
            write_counters(tree, i, k, t);
        }
    }
}

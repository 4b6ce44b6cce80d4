//! The kernel NFS client: /proc/self/mountstats read together with
//! /proc/uptime, one entity per NFS superblock with every mount point it is
//! seen through.
//!
//! Under `--root DIR` the files are DIR/proc/self/mountstats and
//! DIR/proc/self/mountinfo; on a live system "self" is strata's own mount
//! namespace.
//!
//! Note that Oracle Direct NFS sends its own RPCs over its own sockets: its
//! I/O is not in these counters (see the dNFS views for that).

use super::mountinfo::{MountInfo, parse_mountinfo};
use super::mountstats::{MountStats, NfsCounters, is_nfs, parse_mountstats};
use crate::core::error::ParseError;
use crate::core::error::SourceError;
use crate::core::rootfs::RootFs;
use crate::core::uptime::parse_uptime_cs;
use std::collections::{HashMap, VecDeque};

/// One NFS superblock: an export as mounted, however many mount points
/// show it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NfsMount {
    /// Names the entity from one sample to the next: the export and the
    /// first mount point it was listed under (`#2`, `#3` appended when the
    /// same export is mounted twice on one directory).
    pub key: String,
    /// `srv:/export`, as the kernel escapes it.
    pub export: String,
    /// In the kernel's order, the original mount first.
    pub mount_points: Vec<String>,
    /// `nfs` or `nfs4`.
    pub fstype: String,
    pub statvers: Option<String>,
    /// The superblock's (major, minor) from mountinfo; `None` when
    /// mountinfo could not be read or matched, and the mount points were
    /// grouped by their counters instead.
    pub superblock: Option<(u32, u32)>,
    /// The counters of the first block listed for the superblock.
    pub counters: NfsCounters,
}

/// One reading of the NFS client's counters and the clock they go with.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct NfsSample {
    /// /proc/uptime in centiseconds, read just before the counters.
    pub uptime_cs: u64,
    /// Wall clock of the reading, milliseconds since the Unix epoch.
    pub wall_ms: i64,
    /// In the order of the kernel's mount list.
    pub mounts: Vec<NfsMount>,
    /// Lines of mountstats (and mountinfo) that could not be read.
    pub rejected: Vec<ParseError>,
}

/// Reads the NFS client's counters under a root directory.
pub struct NfsSource {
    fs: RootFs,
    /// The namespace's mount table, watched (this machine's only): while
    /// the last read of mountstats held no NFS mount and no mount came or
    /// went since, it is not read again. It prints a line for every mount
    /// of the namespace, made afresh at each read: 5 % of a recorder's CPU
    /// on a host without NFS.
    mounts: Option<std::fs::File>,
    /// Whether the last read of mountstats held an NFS mount; None before
    /// the first.
    had_nfs: Option<bool>,
}

const MOUNTSTATS: &str = "/proc/self/mountstats";
const MOUNTINFO: &str = "/proc/self/mountinfo";

impl NfsSource {
    pub fn new(fs: RootFs) -> Self {
        let mounts = fs.open_procfs(MOUNTINFO);
        NfsSource {
            fs,
            mounts,
            had_nfs: None,
        }
    }

    /// Whether mountstats would say what it said last time: no NFS mount,
    /// and no mount since.
    fn still_without_nfs(&self) -> bool {
        self.had_nfs == Some(false)
            && self
                .mounts
                .as_ref()
                .is_some_and(|m| !crate::core::sys::mounts_changed(std::os::fd::AsFd::as_fd(m)))
    }

    pub fn sample(&mut self, wall_ms: i64) -> Result<NfsSample, SourceError> {
        // The clock first and the counters straight after, as for disks.
        let uptime_text = self.fs.read("/proc/uptime")?;
        let parsed = if self.still_without_nfs() {
            crate::core::parse::Parsed::default()
        } else {
            parse_mountstats(&self.fs.read(MOUNTSTATS)?, MOUNTSTATS)
        };
        self.had_nfs = Some(!parsed.items.is_empty());
        // Only used to tell bind mounts apart; without it the counters do.
        // Without an NFS mount there is nothing to tell apart, and reading
        // it printed every mount of the namespace at every sample.
        let mountinfo_text = if parsed.items.is_empty() {
            None
        } else {
            self.fs.read(MOUNTINFO).ok()
        };
        let uptime_cs = parse_uptime_cs(&uptime_text, "/proc/uptime")?;
        let mut rejected = parsed.rejected;
        let info = mountinfo_text.map(|t| {
            let p = parse_mountinfo(&t, MOUNTINFO);
            rejected.extend(p.rejected);
            p.items
        });
        Ok(NfsSample {
            uptime_cs,
            wall_ms,
            mounts: group_mounts(parsed.items, info.as_deref()),
            rejected,
        })
    }
}

/// What makes two blocks of mountstats one superblock.
#[derive(PartialEq, Eq, Hash)]
enum Identity<'a> {
    Superblock(&'a str, (u32, u32)),
    Counters(&'a str, &'a NfsCounters),
}

/// Groups the blocks of mountstats into one entity per superblock.
///
/// mountstats prints one block per mount point, and bind mounts (and the
/// same export mounted again with the same options, which the NFS client
/// shares) show one superblock, whose counters would otherwise be counted
/// once per mount point. The kernel's own identity of a superblock is its
/// device number, which mountinfo prints: blocks are matched to mountinfo
/// lines by mount point, file system type and source, in order (both files
/// list the namespace's mounts in the same order and escape names alike),
/// and grouped by (export, device number).
///
/// Where mountinfo is missing (a captured tree with only mountstats) or a
/// block has no match (a mount came or went between the two reads), blocks
/// are grouped by (export, every counter of the block equal). A superblock
/// prints the same counters under each of its mount points, but the kernel
/// prints the blocks one after the other while I/O goes on, so under load
/// bind mounts can differ by a few counts and stay apart: that is why the
/// device number comes first. Two different superblocks never share an
/// export and all their counters, age included, unless both are idle since
/// mounted in the same second, where merging them loses nothing. Equal RPC
/// counters alone prove nothing: NFSv4 mounts of different exports on one
/// server share their transport and per-op counters, and keep their own
/// `bytes:` and `events:` (see the fixture nfsmountstats-nfs4.2-and-nfs3-tcp).
pub fn group_mounts(blocks: Vec<MountStats>, info: Option<&[MountInfo]>) -> Vec<NfsMount> {
    let mut devs = superblocks(&blocks, info.unwrap_or(&[]));
    let mut index: HashMap<Identity<'_>, usize> = HashMap::new();
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let id = match devs[i] {
            Some(dev) => Identity::Superblock(&b.device, dev),
            None => Identity::Counters(&b.device, &b.counters),
        };
        match index.get(&id) {
            Some(&g) => groups[g].1.push(i),
            None => {
                index.insert(id, groups.len());
                groups.push((i, vec![i]));
            }
        }
    }
    drop(index);
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut slots: Vec<Option<MountStats>> = blocks.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(groups.len());
    for (first, members) in groups {
        let mount_points: Vec<String> = members
            .iter()
            .filter_map(|&i| slots[i].as_ref().map(|b| b.mount_point.clone()))
            .collect();
        let Some(b) = slots[first].take() else {
            continue;
        };
        let mut key = format!("{} on {}", b.device, b.mount_point);
        let n = seen.entry(key.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            key = format!("{key} #{n}");
        }
        out.push(NfsMount {
            key,
            export: b.device,
            mount_points,
            fstype: b.fstype,
            statvers: b.statvers,
            superblock: devs[first].take(),
            counters: b.counters,
        });
    }
    out
}

/// The superblock device number of each block, matched in order among the
/// mountinfo lines with the same mount point, type and source.
fn superblocks(blocks: &[MountStats], info: &[MountInfo]) -> Vec<Option<(u32, u32)>> {
    // (mount point, type, source) → device numbers, in the file's order
    type Name<'a> = (&'a str, &'a str, &'a str);
    let mut queues: HashMap<Name<'_>, VecDeque<(u32, u32)>> = HashMap::new();
    for m in info.iter().filter(|m| is_nfs(&m.fstype)) {
        queues
            .entry((&m.mount_point, &m.fstype, &m.source))
            .or_default()
            .push_back(m.dev);
    }
    blocks
        .iter()
        .map(|b| {
            queues
                .get_mut(&(b.mount_point.as_str(), b.fstype.as_str(), b.device.as_str()))?
                .pop_front()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(device: &str, mp: &str, age: u64, reads: u64) -> String {
        format!(
            "device {device} mounted on {mp} with fstype nfs4 statvers=1.1\n\
             \topts:\trw,vers=4.2\n\tage:\t{age}\n\
             \tbytes:\t{reads} 0 0 0 {reads} 0 0 0\n\
             \tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n\
             \txprt:\ttcp 0 0 1 0 0 {reads} {reads} 0 0 0 1 0 0\n\
             \tper-op statistics\n\
             \t        READ: {reads} {reads} 0 0 0 0 0 0 0\n\
             \t       WRITE: 0 0 0 0 0 0 0 0 0\n"
        )
    }

    fn group(text: &str, mountinfo: Option<&str>) -> Vec<NfsMount> {
        let p = parse_mountstats(text, "ms");
        assert!(p.rejected.is_empty(), "{:?}", p.rejected);
        let info = mountinfo.map(|t| parse_mountinfo(t, "mi").items);
        group_mounts(p.items, info.as_deref())
    }

    fn points(m: &[NfsMount]) -> Vec<Vec<&str>> {
        m.iter()
            .map(|m| m.mount_points.iter().map(String::as_str).collect())
            .collect()
    }

    #[test]
    fn bind_mounts_with_equal_counters_are_one_entity() {
        let text = [
            block("srv:/a", "/mnt/a", 100, 5),
            block("srv:/b", "/mnt/b", 100, 5),
            block("srv:/a", "/srv/bind", 100, 5),
        ]
        .concat();
        let m = group(&text, None);
        assert_eq!(
            points(&m),
            vec![vec!["/mnt/a", "/srv/bind"], vec!["/mnt/b"]]
        );
        assert_eq!(m[0].key, "srv:/a on /mnt/a");
        assert_eq!(m[0].superblock, None);
    }

    #[test]
    fn without_mountinfo_differing_counters_stay_apart() {
        // a busy bind mount printed a moment later, or two superblocks
        let text = [
            block("srv:/a", "/mnt/a", 100, 5),
            block("srv:/a", "/srv/bind", 100, 6),
        ]
        .concat();
        assert_eq!(points(&group(&text, None)).len(), 2);
    }

    #[test]
    fn mountinfo_groups_by_superblock_whatever_the_counters() {
        let text = [
            block("srv:/a", "/mnt/a", 100, 5),
            block("srv:/a", "/srv/bind", 100, 6),
            block("srv:/a", "/mnt/a", 7, 1),
            block("srv:/c", "/mnt/c", 9, 1),
        ]
        .concat();
        // /mnt/a is mounted twice (a new superblock stacked on the first);
        // /mnt/c has no mountinfo line (mounted between the two reads)
        let mountinfo = "40 22 0:45 / /mnt/a rw - nfs4 srv:/a rw\n\
                         41 22 0:45 / /srv/bind rw - nfs4 srv:/a rw\n\
                         42 40 0:50 / /mnt/a rw - nfs4 srv:/a rw\n\
                         43 22 8:1 / /boot rw - ext4 /dev/sda1 rw\n";
        let m = group(&text, Some(mountinfo));
        assert_eq!(
            points(&m),
            vec![vec!["/mnt/a", "/srv/bind"], vec!["/mnt/a"], vec!["/mnt/c"]]
        );
        assert_eq!(
            m.iter().map(|m| m.superblock).collect::<Vec<_>>(),
            vec![Some((0, 45)), Some((0, 50)), None]
        );
        assert_eq!(m[0].counters.age_s, 100, "the first block's counters");
        assert_eq!(
            m.iter().map(|m| m.key.as_str()).collect::<Vec<_>>(),
            vec![
                "srv:/a on /mnt/a",
                "srv:/a on /mnt/a #2",
                "srv:/c on /mnt/c"
            ]
        );
    }

    #[test]
    fn the_real_nfs4_exports_sharing_rpc_counters_stay_apart() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/nfs/nfsmountstats-nfs4.2-and-nfs3-tcp.txt"
        ))
        .expect("fixture");
        let m = group(&text, None);
        assert_eq!(m.len(), 7, "four NFSv4.2 exports and three NFSv3 ones");
        assert!(m.iter().all(|m| m.mount_points.len() == 1));
        // the four v4 exports print the same xprt and per-op lines
        assert_eq!(m[0].counters.xprts, m[3].counters.xprts);
        assert_eq!(m[0].counters.ops, m[3].counters.ops);
    }

    #[test]
    fn reads_under_root() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("proc/self")).expect("mkdir");
        std::fs::write(root.join("proc/uptime"), "100.50 0.00\n").expect("write");
        let text = [
            "device proc mounted on /proc with fstype proc\n".to_string(),
            block("srv:/a", "/mnt/a", 100, 5),
            "device srv:/b mounted on /mnt/b with fstype nfs\n".to_string(),
        ]
        .concat();
        std::fs::write(root.join("proc/self/mountstats"), text).expect("write");
        let mut src = NfsSource::new(RootFs::new(root));
        let s = src.sample(42).expect("sample");
        assert_eq!((s.uptime_cs, s.wall_ms), (10050, 42));
        assert_eq!(s.mounts.len(), 1);
        assert_eq!(s.rejected.len(), 1, "srv:/b has no block");
        std::fs::remove_file(root.join("proc/self/mountstats")).expect("rm");
        let e = src.sample(0).expect_err("no mountstats").to_string();
        assert!(e.contains("proc/self/mountstats"), "{e}");
    }
}

//! Reads a host's processes: every `/proc/PID/stat` and `/proc/PID/io`
//! each interval, and `/proc/PID/status` (the owner) and
//! `/proc/PID/cmdline` once per process, under a root directory; or, on a
//! database node, the lines its sampler's one awk sends
//! ([`super::node`]). Either way the readings go to the same
//! [`ProcTable`].

use super::node::NodeMirror;
use super::pid::{parse_cmdline, parse_io, parse_stat};
use super::table::{DelayAcct, ProcSample, ProcTable, Seen, Unread};
use crate::core::error::SourceError;
use crate::core::rootfs::RootFs;
use crate::core::uptime::parse_uptime_cs;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The virtual file a node's sampler sends the processes in.
pub const NODE_FILE: &str = "/proc/strata/procs";

/// The files a node's sampler sends for the layer beside its awk's lines.
pub const FILES: [&str; 1] = ["/proc/uptime"];

pub struct ProcSource {
    fs: RootFs,
    table: ProcTable,
    /// A node's processes as its sampler's lines left them.
    mirror: NodeMirror,
    /// Each process's owner, read once (pid, start) → uid.
    owners: HashMap<(u32, u64), u32>,
    users: Users,
    buf: Vec<u8>,
    pids: Vec<u32>,
    seen: Vec<Seen>,
}

/// User names by UID, from the host's /etc/passwd, read again when its
/// length changes.
#[derive(Debug, Default)]
struct Users {
    len: Option<usize>,
    names: BTreeMap<u32, String>,
}

/// `/etc/passwd`'s names by UID; lines that do not read are skipped (a
/// name is only shown, never trusted).
pub fn parse_passwd(text: &str) -> BTreeMap<u32, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let mut f = line.split(':');
        let (Some(name), Some(_), Some(uid)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let Ok(uid) = uid.parse::<u32>() else {
            continue;
        };
        if !name.is_empty() && name.chars().all(|c| !c.is_control()) {
            out.entry(uid).or_insert_with(|| name.to_string());
        }
    }
    out
}

/// The first real UID of `/proc/PID/status`.
pub fn parse_status_uid(text: &str) -> Option<u32> {
    text.lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// Whether the kernel keeps per-task delays: `kernel.task_delayacct`
/// where there is one (5.14 on, off by default), else on unless the kernel
/// was booted with `nodelayacct`.
fn delayacct(sysctl: Option<String>, cmdline: Option<String>) -> DelayAcct {
    match sysctl.as_deref().map(str::trim) {
        Some("1") => DelayAcct::On,
        Some("0") => DelayAcct::Off,
        Some(_) => DelayAcct::Unknown,
        None => match cmdline {
            Some(c) if c.split_whitespace().any(|w| w == "nodelayacct") => DelayAcct::Off,
            Some(_) => DelayAcct::On,
            None => DelayAcct::Unknown,
        },
    }
}

impl ProcSource {
    pub fn new(fs: RootFs) -> Self {
        ProcSource {
            fs,
            table: ProcTable::default(),
            mirror: NodeMirror::default(),
            owners: HashMap::new(),
            users: Users::default(),
            buf: Vec::with_capacity(4096),
            pids: Vec::new(),
            seen: Vec::new(),
        }
    }

    pub fn sample(&mut self, wall_ms: i64) -> Result<ProcSample, SourceError> {
        let uptime_cs = parse_uptime_cs(&self.fs.read("/proc/uptime")?, "/proc/uptime")?;
        match self.fs.local_path("/proc") {
            Some(proc_dir) => self.sample_dir(&proc_dir, uptime_cs, wall_ms),
            None => self.sample_node(uptime_cs, wall_ms),
        }
    }

    fn sample_dir(
        &mut self,
        proc_dir: &Path,
        uptime_cs: u64,
        wall_ms: i64,
    ) -> Result<ProcSample, SourceError> {
        let entries = std::fs::read_dir(proc_dir).map_err(|err| SourceError::Io {
            path: proc_dir.to_path_buf(),
            err,
        })?;
        // The lists are kept from one sample to the next: made afresh, a
        // thousand processes' took pages the kernel zeroed every sample
        // (a sixth of its time).
        let mut pids = std::mem::take(&mut self.pids);
        let mut seen = std::mem::take(&mut self.seen);
        pids.clear();
        seen.clear();
        pids.extend(entries.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()));
        pids.sort_unstable();
        let mut rejected = Vec::new();
        let mut path = PathBuf::from(proc_dir);
        for &pid in &pids {
            path.push(pid.to_string());
            match self.read_pid(&mut path, pid) {
                Ok(Some(s)) => seen.push(s),
                Ok(None) => {}
                Err(e) => rejected.push(e),
            }
            path.pop();
        }
        self.pids = pids;
        // `seen` is in PID order, each PID once: a binary search, not a
        // scan of every process for each (10,000 processes took 10^8
        // comparisons a sample).
        self.owners.retain(|(pid, start), _| {
            seen.binary_search_by_key(pid, |s: &Seen| s.pid)
                .is_ok_and(|i| seen[i].stat.start == *start)
        });
        let delay = delayacct(
            self.fs.read_once("/proc/sys/kernel/task_delayacct").ok(),
            self.fs.read_once("/proc/cmdline").ok(),
        );
        self.read_users();
        let mut sample = self.table.update(uptime_cs, wall_ms, seen.drain(..));
        self.seen = seen;
        sample.delayacct = delay;
        sample.rejected = rejected;
        sample.reader = Some(crate::core::sys::euid());
        self.name_users(&mut sample);
        Ok(sample)
    }

    /// One process: `None` when it is gone (it ended between the listing
    /// and its files).
    fn read_pid(
        &mut self,
        dir: &mut PathBuf,
        pid: u32,
    ) -> Result<Option<Seen>, crate::core::error::ParseError> {
        dir.push("stat");
        let stat = read_into(dir, &mut self.buf);
        dir.pop();
        let Ok(()) = stat else {
            return Ok(None);
        };
        // The file's name only for an error: not a string a process.
        let named = |mut e: crate::core::error::ParseError, file: &str| {
            e.source_name = format!("/proc/{pid}/{file}");
            e
        };
        let stat = parse_stat(&String::from_utf8_lossy(&self.buf), "stat")
            .map_err(|e| named(e, "stat"))?;
        dir.push("io");
        let read = read_into(dir, &mut self.buf);
        dir.pop();
        let io =
            match read {
                Ok(()) => Ok(parse_io(&String::from_utf8_lossy(&self.buf), "io")
                    .map_err(|e| named(e, "io"))?),
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(Unread::Denied),
                // No io in a process's directory that is still there: a kernel
                // without per-task I/O accounting. The process is read all the
                // same (its block I/O delay, its owner), as pidstat does.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && dir.is_dir() => {
                    Err(Unread::NoFile)
                }
                // Gone, or an error of an exiting process (ESRCH).
                Err(_) => return Ok(None),
            };
        let key = (pid, stat.start);
        // A process that exec(2)s may have changed its owner before (su,
        // sudo, sshd, cron): its owner is read again with its names.
        let renamed = !self.table.knows(pid, stat.start, &stat.comm);
        if renamed {
            self.owners.remove(&key);
        }
        let uid = match self.owners.get(&key) {
            Some(uid) => *uid,
            None => {
                dir.push("status");
                let uid = read_into(dir, &mut self.buf)
                    .ok()
                    .and_then(|()| parse_status_uid(&String::from_utf8_lossy(&self.buf)));
                dir.pop();
                let Some(uid) = uid else {
                    return Ok(None);
                };
                self.owners.insert(key, uid);
                uid
            }
        };
        let cmd = if !renamed {
            None
        } else {
            dir.push("cmdline");
            let read = read_into(dir, &mut self.buf);
            dir.pop();
            Some(match read {
                Ok(()) => parse_cmdline(&self.buf),
                Err(_) => (String::new(), String::new()),
            })
        };
        Ok(Some(Seen {
            pid,
            uid,
            stat,
            io,
            cmd,
        }))
    }

    fn sample_node(&mut self, uptime_cs: u64, wall_ms: i64) -> Result<ProcSample, SourceError> {
        let text = self.fs.read(NODE_FILE)?;
        // A full list after the node's awk started afresh replaces the
        // mirror; the table still diffs each process against its last
        // counters, which are the same process's.
        let news = self.mirror.apply(&text, NODE_FILE);
        let mut sample = self.table.update(uptime_cs, wall_ms, self.mirror.seen());
        sample.delayacct = self.mirror.delayacct;
        sample.reader = self.mirror.reader;
        sample.rejected = news.rejected;
        self.users.names = self.mirror.users.clone();
        self.name_users(&mut sample);
        Ok(sample)
    }

    fn read_users(&mut self) {
        let Some(path) = self.fs.local_path("/etc/passwd") else {
            return;
        };
        let len = std::fs::metadata(&path).ok().map(|m| m.len() as usize);
        if len == self.users.len {
            return;
        }
        self.users.len = len;
        self.users.names = std::fs::read_to_string(&path)
            .map(|t| parse_passwd(&t))
            .unwrap_or_default();
    }

    /// The names of the UIDs the sample mentions.
    fn name_users(&self, sample: &mut ProcSample) {
        let uids = sample
            .rows
            .iter()
            .map(|r| r.uid)
            .chain(sample.unreadable.iter().map(|u| u.uid));
        for uid in uids {
            if let Some(name) = self.users.names.get(&uid) {
                sample.users.insert(uid, name.clone());
            }
        }
    }
}

/// Reads a /proc file into `buf`: open, one read, close. A procfs file
/// gives all it has to a read with the room for it, so a read that does
/// not fill the buffer ends the file (`read_to_end` would first ask the
/// file's size, which procfs does not know, and then read once more to
/// find the end: five system calls a file where three do, on two files
/// of every process each interval).
fn read_into(path: &Path, buf: &mut Vec<u8>) -> std::io::Result<()> {
    const FIRST: usize = 4096;
    buf.clear();
    buf.resize(FIRST, 0);
    let mut f = std::fs::File::open(path)?;
    let mut n = 0;
    loop {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(r) => {
                n += r;
                if n < buf.len() {
                    break;
                }
                buf.resize(buf.len() * 2, 0);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.clear();
                return Err(e);
            }
        }
    }
    buf.truncate(n);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn proc(root: &Path, pid: u32, argv0: &str, start: u64, read_bytes: u64) {
        write(
            root,
            &format!("proc/{pid}/stat"),
            &format!(
                "{pid} (oracle) S 1 1 1 0 -1 0 0 0 0 0 10 5 0 0 20 0 1 0 {start} 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 7 0 0\n"
            ),
        );
        write(
            root,
            &format!("proc/{pid}/io"),
            &format!(
                "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: {read_bytes}\nwrite_bytes: 0\ncancelled_write_bytes: 0\n"
            ),
        );
        write(
            root,
            &format!("proc/{pid}/status"),
            "Name:\toracle\nUid:\t54321\t54321\t54321\t54321\n",
        );
        write(root, &format!("proc/{pid}/cmdline"), &format!("{argv0}\0"));
    }

    #[test]
    fn reads_a_tree_twice_into_rows() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        write(r, "proc/uptime", "100.00 1\n");
        write(r, "proc/sys/kernel/task_delayacct", "1\n");
        write(
            r,
            "etc/passwd",
            "root:x:0:0::/root:/bin/sh\noracle:x:54321:54321::/home/oracle:/bin/bash\n",
        );
        proc(r, 300, "ora_dbw0_PROD1", 50, 0);
        proc(r, 301, "ora_lgwr_PROD1", 50, 0);
        let mut s = ProcSource::new(RootFs::new(r));
        let first = s.sample(0).unwrap();
        assert_eq!(first.processes, 2);
        assert!(first.rows.is_empty());
        write(r, "proc/uptime", "101.00 1\n");
        proc(r, 300, "ora_dbw0_PROD1", 50, 8192);
        let second = s.sample(1000).unwrap();
        assert_eq!(second.delayacct, DelayAcct::On);
        assert_eq!(second.rows.len(), 1);
        assert_eq!(second.rows[0].delta.map(|d| d.read_bytes), Some(8192));
        assert_eq!(second.user(54321), "oracle");
    }

    #[test]
    fn a_process_without_an_io_file_is_unreadable_not_gone() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        write(r, "proc/uptime", "100.00 1\n");
        proc(r, 300, "ora_dbw0_PROD1", 50, 0);
        proc(r, 301, "ora_lgwr_PROD1", 50, 0);
        std::fs::remove_file(r.join("proc/301/io")).unwrap();
        let mut s = ProcSource::new(RootFs::new(r));
        let first = s.sample(0).unwrap();
        assert_eq!((first.processes, first.readable), (2, 1));
        assert_eq!(first.unreadable.len(), 1);
        assert_eq!(first.unreadable[0].why, Unread::NoFile);
        // Its block I/O delay moves: a row, its I/O unknown.
        write(r, "proc/uptime", "101.00 1\n");
        let stat = std::fs::read_to_string(r.join("proc/301/stat")).unwrap();
        write(r, "proc/301/stat", &stat.replace(" 7 0 0\n", " 7 0 5\n"));
        let second = s.sample(1000).unwrap();
        assert_eq!(second.rows.len(), 1);
        let row = &second.rows[0];
        assert_eq!((row.pid, row.io, row.delta), (301, None, None));
        assert_eq!(row.blkio_ticks, Some(5));
        // A process whose directory went with its io file is gone.
        std::fs::remove_dir_all(r.join("proc/301")).unwrap();
        write(r, "proc/uptime", "102.00 1\n");
        let third = s.sample(2000).unwrap();
        assert_eq!((third.processes, third.readable), (1, 1));
        assert!(third.unreadable.is_empty());
    }

    /// A file longer than the first read's room is read whole.
    #[test]
    fn a_long_file_is_read_whole() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("cmdline");
        let long: Vec<u8> = (0..10_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        std::fs::write(&path, &long).unwrap();
        let mut buf = Vec::new();
        read_into(&path, &mut buf).unwrap();
        assert_eq!(buf, long);
        read_into(Path::new("/proc/self/stat"), &mut buf).unwrap();
        assert!(buf.ends_with(b"\n"));
    }

    #[test]
    fn delay_accounting_as_the_kernel_says() {
        assert_eq!(delayacct(Some("0\n".into()), None), DelayAcct::Off);
        assert_eq!(
            delayacct(None, Some("ro nodelayacct quiet".into())),
            DelayAcct::Off
        );
        assert_eq!(delayacct(None, Some("ro quiet".into())), DelayAcct::On);
        assert_eq!(delayacct(None, None), DelayAcct::Unknown);
    }

    #[test]
    fn passwd_and_status() {
        let p = parse_passwd("a:x:1:1::/:/bin/sh\nbroken\nb:x:notanumber\n\n");
        assert_eq!(p.len(), 1);
        assert_eq!(
            parse_status_uid("Name:\tx\nUid:\t1000\t0\t0\t0\n"),
            Some(1000)
        );
        assert_eq!(parse_status_uid("Name:\tx\n"), None);
    }
}

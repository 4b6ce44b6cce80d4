//! A database node's processes, over its sampler's channel: one awk per
//! interval reads every `/proc/PID/stat` and `/proc/PID/io` (no process
//! forked per PID), and sends only what changed since its last run, which
//! it keeps in a file of the sampler's private temporary directory. Local
//! reading and this decoder feed the same [`super::table::ProcTable`].
//!
//! Its lines, in the virtual file `/proc/strata/procs`:
//!
//! ```text
//! F | D                  every process follows (the first run) | only changes
//! p PID START UID BLKIO IO [TAB COMM TAB ARGV0 TAB CMDLINE]
//!                        a process new or changed; IO is the seven counters
//!                        of /proc/PID/io joined by commas, or "-" when it
//!                        cannot be read; BLKIO "-" on an old kernel; the
//!                        names only with a process the run had not seen
//! a 1                    kernel.task_delayacct ("-": no such sysctl)
//! r UID                  the UID the awk reads as (its effective UID)
//! g PID                  a process that ended
//! u UID NAME             a user's name (/etc/passwd)
//! ```
//!
//! Counters stay text in awk (its numbers are doubles, exact only to
//! 2^53): it compares them as strings and never adds them.

use super::pid::{IoCounters, PidStat};
use super::table::{DelayAcct, Seen, Unread};
use crate::core::error::ParseError;
use std::collections::{BTreeMap, HashMap};

/// Every this many runs the awk sends every process again (10 minutes at
/// 1 s).
pub const RESYNC: u32 = 600;

/// The body of the sh function a node's sampler runs in each sample (`$R`
/// the root, `$T` its private temporary directory, empty when it has
/// none: then every run sends every process).
pub fn script() -> String {
    let awk = [
        "BEGIN{",
        "S=(T==\"\")?\"\":T \"/procs\"; full=1; ",
        // The state's first line counts the runs: every RESYNC-th sends
        // every process again, so that a frame lost on the way (or a
        // state file cut short) is mended within minutes.
        "rn=0; if(S!=\"\"){while((getline l < S)>0){if(l ~ /^#n /){rn=substr(l,4)+0; continue}; full=0; split(l,w,\" \"); split(l,tt,\"\\t\"); prev[w[1]]=tt[1]; puid[w[1]]=w[3]; pc[w[1]]=tt[2]}; close(S)} ",
        &format!("rn++; if(!full && rn % {RESYNC} == 0){{full=1; for(p in prev) delete prev[p]}}; "),
        "print (full?\"F\":\"D\"); ",
        // Processes that started after this moment are not the ones whose
        // io the grep below read (a PID used again in between).
        "up=-1; if((getline u < (R \"/proc/uptime\"))>0){split(u,z,\" \"); up=int(z[1]*100+0.5)}; close(R \"/proc/uptime\"); ",
        "v=\"-\"; if((getline v < (R \"/proc/sys/kernel/task_delayacct\"))<=0) v=\"-\"; close(R \"/proc/sys/kernel/task_delayacct\"); print \"a \" v; ",
        "while((getline y < \"/proc/self/status\")>0) if(y ~ /^Uid:/){split(y,z,\" \"); print \"r \" z[3]; break}; close(\"/proc/self/status\"); ",
        // Every /proc/PID/io in one grep, not a getline each: a file that
        // opens and then refuses its read (another user's process, or one
        // protected even from root, whose io checks ptrace access at
        // read(2)) is a fatal "read error" to mawk, Debian's and Ubuntu's
        // awk, which then sends no process at all; grep -s skips it. A
        // process without its counters here is unread ("-"), as before.
        "q=\"\"; n=split(R,x,sprintf(\"%c\",39)); for(j=1;j<=n;j++) q=q (j>1?sprintf(\"%c\\\"%c\\\"%c\",39,39,39):\"\") x[j]; ",
        "c=\"grep -s -H ^ \" sprintf(\"%c\",39) q sprintf(\"%c\",39) \"/proc/[0-9]*/io 2>/dev/null\"; ",
        "while((c | getline y)>0){if(!match(y,/\\/proc\\/[0-9]+\\/io:[a-z_]+: *[0-9]+$/)) continue; y=substr(y,RSTART+6); k=index(y,\"/\"); p=substr(y,1,k-1); split(substr(y,k+4),z,\" \"); if(!((p \" \" z[1]) in iov)) ion[p]++; iov[p \" \" z[1]]=z[2]}; close(c); ",
        "for(i=1;i<ARGC;i++){d=ARGV[i]; pid=d; sub(/.*\\//,\"\",pid); if(pid !~ /^[0-9]+$/) continue; ",
        // stat whole: a comm may hold a newline.
        "f=d \"/stat\"; s=\"\"; r=0; while((getline y < f)>0){s=(r?s \"\\n\":\"\") y; r=1}; close(f); if(!r) continue; ",
        "o=index(s,\"(\"); c=0; t=s; while((k=index(t,\")\"))>0){c+=k; t=substr(t,k+1)}; if(o==0||c<=o) continue; ",
        "comm=substr(s,o+1,c-o-1); n=split(substr(s,c+1),x,\" \"); if(n<20) continue; start=x[20]; blk=(n>=40)?x[40]:\"-\"; ",
        "m=ion[pid]+0; v=pid \" \"; if(up>=0 && start+0>=up) m=0; ",
        "if(m<7){r=(getline y < (d \"/stat\")); close(d \"/stat\"); if(r<=0) continue}; iv=(m>=7)?iov[v \"rchar:\"] \",\" iov[v \"wchar:\"] \",\" iov[v \"syscr:\"] \",\" iov[v \"syscw:\"] \",\" iov[v \"read_bytes:\"] \",\" iov[v \"write_bytes:\"] \",\" iov[v \"cancelled_write_bytes:\"]:\"-\"; ",
        "seen[pid]=1; split(prev[pid],w,\" \"); ",
        "gsub(/[^ -~\\200-\\377]/,\"?\",comm); ",
        // Known by PID, start and name: a process that exec(2)s keeps
        // the first two and is sent with its new names.
        "if(prev[pid]!=\"\" && w[2]==start && pc[pid]==comm){uid=puid[pid]; line=pid \" \" start \" \" uid \" \" blk \" \" iv; if(line!=prev[pid]) print \"p \" line; state[pid]=line \"\\t\" comm; continue} ",
        "uid=\"-\"; f=d \"/status\"; while((getline y < f)>0){if(y ~ /^Uid:/){split(y,z,\" \"); uid=z[2]; break}}; close(f); if(uid==\"-\") continue; ",
        // The first argument ends at the first NUL (or other control
        // character); busybox's awk, whose strings end at a NUL, reads
        // only that far anyway.
        "a0=\"\"; cl=\"\"; f=d \"/cmdline\"; if((getline cl < f)>0){p=match(cl,/[^ -~\\200-\\377]/); a0=(p>0)?substr(cl,1,p-1):cl; gsub(/[^ -~\\200-\\377]/,\" \",cl); sub(/ +$/,\"\",cl)}; close(f); ",
        "line=pid \" \" start \" \" uid \" \" blk \" \" iv; state[pid]=line \"\\t\" comm; print \"p \" line \"\\t\" comm \"\\t\" substr(a0,1,256) \"\\t\" substr(cl,1,256); ",
        "if(!(uid in named)){named[uid]=1; want=1}} ",
        "for(p in prev) if(!(p in seen)) print \"g \" p; ",
        "if(want||full){f=R \"/etc/passwd\"; while((getline y < f)>0){split(y,z,\":\"); if(z[3] in named) print \"u \" z[3] \" \" z[1]}; close(f)} ",
        "if(S!=\"\"){print \"#n \" rn > S; for(p in state) print state[p] > S; close(S)} exit}",
    ]
    .concat();
    format!(
        "printf '=f {}\\n'; awk -v R=\"$R\" -v T=\"$T\" '{awk}' \"$R\"/proc/[0-9]* 2>/dev/null;",
        super::source::NODE_FILE
    )
}

/// A node's processes as its sampler's lines left them.
#[derive(Debug, Default)]
pub struct NodeMirror {
    procs: HashMap<u32, Seen>,
    pub users: BTreeMap<u32, String>,
    /// The login's UID, which the awk reads of itself.
    pub reader: Option<u32>,
    /// kernel.task_delayacct as the node read it.
    pub delayacct: DelayAcct,
}

/// What one text did to the mirror.
#[derive(Debug, Default)]
pub struct Applied {
    /// The node's awk started afresh (its first run, or it lost its
    /// state): the processes before it are not these.
    pub restarted: bool,
    pub rejected: Vec<ParseError>,
}

fn io_of(text: &str) -> Option<Option<IoCounters>> {
    if text == "-" {
        return Some(None);
    }
    let v: Vec<u64> = text
        .split(',')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let [
        rchar,
        wchar,
        syscr,
        syscw,
        read_bytes,
        write_bytes,
        cancelled_write_bytes,
    ] = v[..]
    else {
        return None;
    };
    Some(Some(IoCounters {
        rchar,
        wchar,
        syscr,
        syscw,
        read_bytes,
        write_bytes,
        cancelled_write_bytes,
    }))
}

impl NodeMirror {
    pub fn apply(&mut self, text: &str, source: &str) -> Applied {
        let mut out = Applied::default();
        for (i, line) in text.lines().enumerate() {
            let bad = |what: &str| ParseError::new(source, i + 1, line, what);
            match line.split_once(' ').map_or((line, ""), |(k, v)| (k, v)) {
                ("F", _) => {
                    self.procs.clear();
                    out.restarted = true;
                }
                ("D", _) => {}
                ("a", v) => {
                    self.delayacct = match v.trim() {
                        "1" => DelayAcct::On,
                        "0" => DelayAcct::Off,
                        _ => DelayAcct::Unknown,
                    };
                }
                ("r", v) => match v.trim().parse::<u32>() {
                    Ok(uid) => self.reader = Some(uid),
                    Err(_) => out.rejected.push(bad("'r UID'")),
                },
                ("g", v) => match v.trim().parse::<u32>() {
                    Ok(pid) => {
                        self.procs.remove(&pid);
                    }
                    Err(_) => out.rejected.push(bad("'g PID'")),
                },
                ("u", v) => match v
                    .split_once(' ')
                    .and_then(|(u, n)| Some((u.parse::<u32>().ok()?, n)))
                {
                    Some((uid, name)) if !name.chars().any(char::is_control) => {
                        self.users.insert(uid, name.to_string());
                    }
                    _ => out.rejected.push(bad("'u UID NAME'")),
                },
                ("p", v) => {
                    if self.process(v).is_none() {
                        out.rejected.push(bad(
                            "'p PID START UID BLKIO IO' and, for a new process, its names",
                        ));
                    }
                }
                _ => out.rejected.push(bad("F, D, a, r, p, g or u")),
            }
        }
        out
    }

    fn process(&mut self, v: &str) -> Option<()> {
        let mut parts = v.split('\t');
        let head: Vec<&str> = parts.next()?.split(' ').collect();
        let [pid, start, uid, blk, io] = head[..] else {
            return None;
        };
        let pid: u32 = pid.parse().ok()?;
        let start: u64 = start.parse().ok()?;
        let uid: u32 = uid.parse().ok()?;
        let blkio_ticks = match blk {
            "-" => None,
            b => Some(b.parse().ok()?),
        };
        let io = io_of(io)?;
        let names = match (parts.next(), parts.next(), parts.next()) {
            (Some(comm), Some(argv0), Some(cmd)) => Some((comm, argv0, cmd)),
            (None, ..) => None,
            _ => return None,
        };
        let entry = match (self.procs.get_mut(&pid), names) {
            (_, Some((comm, argv0, cmd))) => {
                self.procs.insert(
                    pid,
                    Seen {
                        pid,
                        uid,
                        stat: PidStat {
                            comm: comm.to_string(),
                            ..PidStat::default()
                        },
                        io: Err(Unread::Denied),
                        cmd: Some((argv0.to_string(), cmd.to_string())),
                    },
                );
                self.procs.get_mut(&pid)?
            }
            (Some(e), None) if e.stat.start == start => e,
            // A change of a process the mirror does not hold.
            _ => return None,
        };
        entry.uid = uid;
        entry.stat.start = start;
        entry.stat.blkio_ticks = blkio_ticks;
        entry.io = io.ok_or(Unread::Denied);
        Some(())
    }

    /// Every process the node has, as a reading.
    pub fn seen(&self) -> impl Iterator<Item = Seen> + '_ {
        self.procs.values().cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_then_changes() {
        let mut m = NodeMirror::default();
        let a = m.apply(
            "F\np 10 50 54321 3 1,2,3,4,5,6,7\toracle\tora_dbw0_P1\tora_dbw0_P1\np 11 50 0 - -\tkworker\t\t\nu 54321 oracle\n",
            "x",
        );
        assert!(a.restarted && a.rejected.is_empty(), "{:?}", a.rejected);
        assert_eq!(m.seen().count(), 2);
        let b = m.apply("D\np 10 50 54321 4 1,2,3,4,9,6,7\ng 11\n", "x");
        assert!(!b.restarted && b.rejected.is_empty());
        let all: Vec<Seen> = m.seen().collect();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].io.as_ref().map(|i| i.read_bytes), Ok(9));
        assert_eq!(all[0].stat.blkio_ticks, Some(4));
        assert_eq!(
            all[0].cmd.as_ref().map(|c| c.0.as_str()),
            Some("ora_dbw0_P1")
        );
    }

    #[test]
    fn lines_that_do_not_read_are_rejected_not_fatal() {
        let mut m = NodeMirror::default();
        let a = m.apply("F\np x\np 12 1 0 0 1,2\nq\np 13 1 0 0 -\ng z\nu z z\n", "x");
        assert_eq!(a.rejected.len(), 6);
        assert_eq!(m.seen().count(), 0);
    }
}

#[cfg(test)]
mod script_tests {
    use super::*;
    use std::path::Path;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn proc(root: &Path, pid: u32, comm: &str, argv: &[u8], start: u64, read_bytes: u64, io: bool) {
        let mut fields: Vec<String> = (3..=52).map(|n| n.to_string()).collect();
        fields[0] = "S".into();
        fields[22 - 3] = start.to_string();
        fields[42 - 3] = "7".into();
        write(
            root,
            &format!("proc/{pid}/stat"),
            &format!("{pid} ({comm}) {}\n", fields.join(" ")),
        );
        if io {
            write(
                root,
                &format!("proc/{pid}/io"),
                &format!(
                    "rchar: 18446744073709551615\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: {read_bytes}\nwrite_bytes: 0\ncancelled_write_bytes: 0\n"
                ),
            );
        }
        write(
            root,
            &format!("proc/{pid}/status"),
            "Name:\tx\nUmask:\t0022\nUid:\t54321\t54321\t54321\t54321\n",
        );
        let path = root.join(format!("proc/{pid}/cmdline"));
        std::fs::write(path, argv).unwrap();
    }

    fn run(root: &Path, tmp: &Path) -> String {
        // LC_ALL=C, as the sampler exports: gawk's ranges are bytes only so
        let out = std::process::Command::new("sh")
            .env("LC_ALL", "C")
            .arg("-c")
            .arg(format!(
                "R={}; T={}; {}",
                root.display(),
                tmp.display(),
                script()
            ))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// A process whose io opens and then fails its read (here a
    /// directory: EISDIR; on a live host another user's process, or one
    /// protected from root: EACCES at read(2)) is sent unread, and every
    /// other process with its counters. Each getline on such a file was a
    /// fatal "read error" to mawk, which then sent no process at all.
    #[test]
    fn an_io_file_that_refuses_its_read_leaves_the_others_read() {
        let root = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let r = root.path();
        write(r, "etc/passwd", "oracle:x:54321:54321::/:/bin/sh\n");
        proc(r, 1, "init", b"/sbin/init\0", 1, 0, false);
        std::fs::create_dir_all(r.join("proc/1/io")).unwrap();
        proc(r, 10, "dd", b"ora_dbw0_PROD1\0", 50, 4096, true);
        let out = run(r, tmp.path());
        let body = out.strip_prefix("=f /proc/strata/procs\n").unwrap();
        let mut m = NodeMirror::default();
        let a = m.apply(body, "x");
        assert!(a.rejected.is_empty(), "{body}\n{:?}", a.rejected);
        let init = m.seen().find(|s| s.pid == 1).expect(body);
        assert_eq!(init.io, Err(Unread::Denied));
        let dbw = m.seen().find(|s| s.pid == 10).expect(body);
        assert_eq!(dbw.io.as_ref().map(|i| i.read_bytes), Ok(4096));
    }

    /// The node's awk under the sh that runs it, on a tree: a full list,
    /// then only what changed, with counters past 2^53 kept exact.
    #[test]
    fn the_awk_sends_everything_once_then_changes() {
        let root = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let r = root.path();
        write(
            r,
            "etc/passwd",
            "oracle:x:54321:54321::/home/oracle:/bin/sh\n",
        );
        proc(
            r,
            10,
            "dd",
            b"ora_dbw0_PROD1\0if=/dev/zero\0",
            50,
            100,
            true,
        );
        proc(r, 11, "a) b (c", b"oraclePROD1 (LOCAL=NO)\0", 50, 5, false);
        proc(r, 12, "idle", b"sleep\0", 50, 0, true);
        let first = run(r, tmp.path());
        let body = first.strip_prefix("=f /proc/strata/procs\n").unwrap();
        let mut m = NodeMirror::default();
        let a = m.apply(body, "x");
        assert!(
            a.restarted && a.rejected.is_empty(),
            "{body}\n{:?}",
            a.rejected
        );
        assert_eq!(m.seen().count(), 3);
        assert_eq!(m.users.get(&54321).map(String::as_str), Some("oracle"));
        let dbw = m.seen().find(|s| s.pid == 10).unwrap();
        assert_eq!(dbw.io.as_ref().map(|i| i.rchar), Ok(u64::MAX));
        assert_eq!(
            dbw.cmd.as_ref().map(|c| c.0.as_str()),
            Some("ora_dbw0_PROD1")
        );
        let fg = m.seen().find(|s| s.pid == 11).unwrap();
        assert_eq!(fg.stat.comm, "a) b (c");
        assert_eq!(fg.io, Err(Unread::Denied));
        // 10 reads more, 12 ends, 13 starts.
        proc(r, 10, "dd", b"ora_dbw0_PROD1\0", 50, 4196, true);
        std::fs::remove_dir_all(r.join("proc/12")).unwrap();
        proc(r, 13, "new", b"new\0", 60, 1, true);
        let second = run(r, tmp.path());
        let body = second.strip_prefix("=f /proc/strata/procs\n").unwrap();
        let lines: Vec<&str> = body.lines().collect();
        assert_eq!(lines[0], "D", "{body}");
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("p ")).count(),
            2,
            "{body}"
        );
        assert!(lines.contains(&"g 12"), "{body}");
        let b = m.apply(body, "x");
        assert!(!b.restarted && b.rejected.is_empty());
        let pids: std::collections::BTreeSet<u32> = m.seen().map(|s| s.pid).collect();
        assert_eq!(pids, [10, 11, 13].into());
        let dbw = m.seen().find(|s| s.pid == 10).unwrap();
        assert_eq!(dbw.io.as_ref().map(|i| i.read_bytes), Ok(4196));
        // A comm with a newline is read whole; the RESYNC-th run sends
        // every process again.
        proc(r, 14, "a\nb", b"x\0", 70, 1, true);
        let state = tmp.path().join("procs");
        let text = std::fs::read_to_string(&state).unwrap();
        let rest = text.split_once('\n').unwrap().1;
        std::fs::write(&state, format!("#n {}\n{rest}", RESYNC - 1)).unwrap();
        let third = run(r, tmp.path());
        let body = third.strip_prefix("=f /proc/strata/procs\n").unwrap();
        assert!(body.starts_with("F\n"), "{body}");
        let c = m.apply(body, "x");
        assert!(c.restarted && c.rejected.is_empty(), "{:?}", c.rejected);
        let pids: std::collections::BTreeSet<u32> = m.seen().map(|s| s.pid).collect();
        assert_eq!(pids, [10, 11, 13, 14].into());
        let odd = m.seen().find(|s| s.pid == 14).unwrap();
        assert_eq!(odd.stat.comm, "a?b");
    }
}

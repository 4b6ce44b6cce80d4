//! The command line of a host's sampler: its POSIX sh script (cells' in
//! src/layers/cells/source/remote.rs, nodes' in node.rs) under a marker.
//!
//! Lifetime: closing a non-PTY exec channel does not signal the remote
//! command, and sshd refuses `signal` requests for root logins. A sampler
//! therefore ends when its stdin ends (sshd closes it when the channel or
//! the connection goes) or when a write fails (SIGPIPE, or EPIPE where
//! SIGPIPE is ignored).
//!
//! A connection that dies without a word (a partition, a host gone: no
//! FIN, no RST) leaves sshd waiting for TCP keepalive, about two hours,
//! and the sampler blocked in `read` all that time. So each sampler has a
//! watchdog: a sh of its own that looks at the sampler's read count
//! (`rchar` in /proc/PID/io, which every request and every `$(...)` moves)
//! once per `idle`, and ends the sampler when it has not moved since the
//! last look: between one and two `idle` periods after the last request.
//! strata asks at every interval, so only a sampler nobody asks any more
//! is idle. The sampler ends its watchdog when it ends; a watchdog whose
//! sampler died unasked ends at its next look.

/// Every sampler's command line carries this word (as `$0` of its sh),
/// so leftovers can be found with `pgrep -f strata-sampler`.
pub const SAMPLER_MARKER: &str = "strata-sampler";

/// A sampler's watchdog carries this word (as `$0` of its sh).
pub const WATCHDOG_MARKER: &str = "strata-watchdog";

use std::time::Duration;

/// Keeps a tag to what needs no quoting in any shell.
fn clean_tag(tag: &str) -> String {
    tag.chars()
        .filter(|c| c.is_ascii_alphanumeric() || "_.-".contains(*c))
        .collect()
}

/// What strata runs on a host. SSH hands the command line to the login
/// user's shell, and bash, ksh, zsh, fish, csh and tcsh each quote and
/// expand differently (fish reads `\\` as `\` inside '...', csh expands
/// `!` there), so the command line is fixed words with no shell syntax at
/// all, `exec sh -s MARKER`, which every one of them runs alike. The
/// script is what that POSIX `sh` reads from the channel: one line, so
/// that sh has parsed all of it before it runs any, and whatever strata
/// writes after it (a sampler's requests) is read by the script as data,
/// never as code, even by a sh that reads its input ahead (dash does).
/// Nothing from the user is in the command line; what is in the script
/// is quoted for that one sh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    marker: String,
    script: String,
}

impl Job {
    /// `marker` (kept to letters, digits and `_.-`) names the job's
    /// processes for `pgrep -f`; `script` is one line of POSIX sh that
    /// ends itself (`sh -s` would otherwise wait for more).
    pub fn new(marker: &str, script: String) -> Job {
        debug_assert!(!script.contains('\n'), "a job's script is one line");
        Job {
            marker: clean_tag(marker),
            script,
        }
    }

    /// The command line the login shell is given.
    pub fn command_line(&self) -> String {
        format!("exec sh -s {}", self.marker)
    }

    /// The script sh reads, without its newline.
    pub fn script(&self) -> &str {
        &self.script
    }

    /// What is written on the channel as soon as the command runs.
    pub fn input(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.script.len() + 1);
        bytes.extend_from_slice(self.script.as_bytes());
        bytes.push(b'\n');
        bytes
    }
}

/// `script` (one line) as a long-lived sampler, ended by its watchdog
/// after `idle` (whole seconds, at least one) without a request. `tag`
/// is appended to the marker (e.g. a test's nonce); it may be empty. The
/// script takes its first sample at once, unasked (the command is the
/// first request, so strata writes nothing while sh may still be reading
/// the script), then one per line it reads.
pub fn sampler(script: &str, tag: &str, idle: Duration) -> Job {
    sampler_job(script, tag, idle, false)
}

/// [`sampler`] with a private temporary directory in `$T` (mktemp -d,
/// 0700; empty where mktemp fails), removed on every way out the sampler
/// has: for a script that keeps what it sent last between two samples.
pub fn sampler_with_dir(script: &str, tag: &str, idle: Duration) -> Job {
    sampler_job(script, tag, idle, true)
}

fn sampler_job(script: &str, tag: &str, idle: Duration, dir: bool) -> Job {
    let tag = clean_tag(tag);
    let sep = if tag.is_empty() { "" } else { "-" };
    let idle = idle.as_secs().max(1);
    // Builtins only in the loop: one `sleep` a period is all it costs. A
    // host without /proc/PID/io, or a PATH without `sleep`, keeps its
    // sampler as before. Its own sh
    // and name (pgrep tells it from the sampler); the sampler's pid is $1.
    // It stops as soon as it is no longer the sampler's child (the sampler
    // died unasked: its pid may be another process's by now), and its
    // `sleep` ends with it rather than linger for a period.
    let dog = format!(
        "W=$1; s=; trap \"kill \\$s 2>/dev/null; exit 0\" TERM; p=; \
         while :; do sleep {idle} & s=$!; wait $s || exit 0; \
         read -r a b c q x </proc/$$/stat; [ \"$q\" = \"$W\" ] || exit 0; \
         [ -r /proc/$W/io ] || exit 0; r=; \
         while read -r k v; do [ \"$k\" = rchar: ] && r=$v; done </proc/$W/io; \
         [ -n \"$r\" ] && [ \"$r\" = \"$p\" ] && {{ kill $W; exit 0; }}; p=$r; done"
    );
    // Quoted for the sampler's sh, which starts it: inside "...".
    let dog = dog
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('$', "\\$");
    // The sampler ends its watchdog on every way out it has: the end of
    // its requests, a failed write, a hangup or a TERM. The watchdog holds
    // none of the channel's descriptors, which would keep sshd from
    // closing the channel when the sampler ends.
    let (mk, rm) = if dir {
        (
            "T=$(mktemp -d 2>/dev/null) || T=; ",
            "; [ -n \\\"\\$T\\\" ] && rm -rf \\\"\\$T\\\"",
        )
    } else {
        ("", "")
    };
    let watchdog = format!(
        "{mk}sh -c \"{dog}\" {WATCHDOG_MARKER}{sep}{tag} $$ </dev/null >/dev/null 2>&1 & D=$!; \
         trap \"kill $D 2>/dev/null{rm}\" EXIT; trap \"exit 0\" HUP PIPE TERM; "
    );
    Job::new(
        &format!("{SAMPLER_MARKER}{sep}{tag}"),
        format!("{watchdog}{script}; exit 0"),
    )
}

/// `body` (sh, one line) as a side job that ends with its channel and
/// never outlives `limit`: cellcli on a cell, fincore on a node. Closing
/// a channel signals nothing, and a side job hung on a dead NFS mount or
/// a stuck cellcli would otherwise stay for ever, one more each period.
/// So the job reads its stdin, which strata never closes while it waits
/// for the job: its end (strata gave up on the run, or quit, or the
/// connection closed) kills the job, and so does `limit`. sshd makes the
/// command a session and process-group leader, so the kill takes the
/// job's children (fincore, cellcli) with it; where it is not a leader
/// only the job's own sh is killed. The limit is counted in one-second
/// sleeps, so that the job's end leaves no sleep behind for longer than a
/// second (a `sleep LIMIT` in the background outlived a job killed between
/// its start and the trap that ends it); without `sleep` on its PATH a job
/// has no limit, rather than none of its time.
pub fn side(marker: &str, body: &str, limit: Duration) -> Job {
    let limit = limit.as_secs().max(1);
    Job::new(
        marker,
        format!(
            "exec 3<&0 </dev/null; ( {body} ) & J=$!; K=$J; \
             {{ read -r a b c d g x </proc/$$/stat; }} 2>/dev/null && [ \"$g\" = \"$$\" ] && K=-$$; \
             {{ n=0; while [ $n -lt {limit} ]; do sleep 1 || exit 0; n=$((n+1)); done; kill -KILL $K; }} >/dev/null 2>&1 & W=$!; \
             {{ read -r x <&3; kill -KILL $K; }} >/dev/null 2>&1 & Z=$!; \
             wait $J; e=$?; kill $W $Z 2>/dev/null; exit $e"
        ),
    )
}

/// How long a sampler waits for strata's next request before its
/// watchdog ends it: ten intervals, and never under a minute.
pub fn idle_for(interval: Duration) -> Duration {
    (interval * 10).max(Duration::from_secs(60))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE_S: Duration = Duration::from_secs(1);

    /// The private directory is made before the script and removed when
    /// it ends, by the same trap that ends the watchdog.
    #[test]
    fn a_sampler_with_a_directory_removes_it_on_its_way_out() {
        let job = sampler_with_dir("echo \"$T\"; [ -d \"$T\" ] && echo made", "t", ONE_S);
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(job.script())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let dir = lines.next().unwrap_or("");
        assert!(dir.starts_with('/'), "{text}");
        assert_eq!(lines.next(), Some("made"));
        assert!(!std::path::Path::new(dir).exists(), "{dir} left behind");
    }

    #[test]
    fn the_command_line_has_no_shell_syntax_and_the_script_one_line() {
        let job = sampler("true", "t-1;rm -rf /", ONE_S);
        assert_eq!(job.command_line(), "exec sh -s strata-sampler-t-1rm-rf");
        let s = job.script();
        assert!(s.starts_with("sh -c \"W=\\$1; s=; trap"), "{s}");
        assert!(s.contains("sleep 1 & s="));
        assert!(s.contains("\" strata-watchdog-t-1rm-rf $$ </dev/null"));
        assert!(s.ends_with("; true; exit 0"), "{s}");
        assert_eq!(job.input(), format!("{s}\n").into_bytes());
        assert_eq!(
            sampler("true", "", ONE_S).command_line(),
            "exec sh -s strata-sampler"
        );
        let side = side("strata-fincore", "echo hi", ONE_S);
        assert_eq!(side.command_line(), "exec sh -s strata-fincore");
        assert!(side.script().contains("( echo hi ) & J=$!"));
        assert_eq!(idle_for(ONE_S), Duration::from_secs(60));
        assert_eq!(idle_for(Duration::from_secs(30)), Duration::from_secs(300));
    }

    /// Runs `job` as sshd would: its command line under `sh -c`, its
    /// script written on stdin, which stays open.
    fn start(job: &Job) -> std::process::Child {
        use std::io::Write;
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(job.command_line())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .as_mut()
            .unwrap()
            .write_all(&job.input())
            .unwrap();
        child
    }

    /// Runs a sampler that answers each line with a line, as the real
    /// ones do: its first at once, unasked.
    fn spawn(tag: &str) -> std::process::Child {
        let script = "echo x; while read -r t; do echo \"x$t\" || exit 0; done";
        start(&sampler(script, tag, ONE_S))
    }

    /// The sampler's processes and its watchdog's (whose name the
    /// sampler's command line also holds, but never before a pid).
    fn alive(tag: &str) -> (usize, usize) {
        let count = |pattern: String| {
            let out = std::process::Command::new("pgrep")
                .args(["-f", &pattern])
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).lines().count()
        };
        (
            count(format!("{SAMPLER_MARKER}-{tag}")),
            count(format!("{WATCHDOG_MARKER}-{tag} [0-9]+$")),
        )
    }

    /// Polls for at most `secs` seconds.
    fn wait_until(secs: u64, mut done: impl FnMut() -> bool) -> bool {
        let end = std::time::Instant::now() + Duration::from_secs(secs);
        while std::time::Instant::now() < end {
            if done() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        done()
    }

    #[test]
    fn a_sampler_nobody_asks_ends_and_one_asked_lives() {
        use std::io::{BufRead, Write};
        if !std::path::Path::new("/proc/self/io").exists() {
            return; // no I/O accounting: the watchdog stays out of the way
        }
        let tag = format!("wd{}", std::process::id());
        // Asked every 300 ms for 3 s (three watchdog periods): alive.
        let mut asked = spawn(&format!("{tag}a"));
        let mut stdin = asked.stdin.take().unwrap();
        let mut out = std::io::BufReader::new(asked.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert_eq!(first, "x\n", "the first answer comes unasked");
        for i in 0..10 {
            writeln!(stdin, "{i}").unwrap();
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            assert_eq!(line, format!("x{i}\n"));
            std::thread::sleep(Duration::from_millis(300));
        }
        assert_eq!(asked.try_wait().unwrap(), None, "an asked sampler ended");
        assert_eq!(
            alive(&format!("{tag}a")),
            (1, 1),
            "one sampler, one watchdog"
        );
        // Its stdin gone: it ends, and its watchdog with it at once.
        drop(stdin);
        assert!(wait_until(5, || asked.try_wait().unwrap().is_some()));
        assert!(wait_until(1, || alive(&format!("{tag}a")) == (0, 0)));
        // Never asked, its stdin open (a connection dead without a word):
        // ended within two periods of the watchdog.
        let mut idle = spawn(&format!("{tag}i"));
        let _stdin = idle.stdin.take().unwrap();
        let ended = wait_until(5, || idle.try_wait().unwrap().is_some());
        if !ended {
            let _ = idle.kill();
        }
        assert!(ended, "an idle sampler outlived its watchdog");
        assert!(wait_until(2, || alive(&format!("{tag}i")) == (0, 0)));
    }

    /// A side job as sshd runs it (a process-group leader): its
    /// stdin's end, and its limit, each end it and its children.
    #[test]
    fn a_side_job_ends_with_its_channel_and_at_its_limit() {
        use std::os::unix::process::CommandExt;
        let start_leader = |body: &str, limit: u64| {
            let job = side("strata-side-test", body, Duration::from_secs(limit));
            let mut child = std::process::Command::new("sh")
                .arg("-c")
                .arg(job.command_line())
                .process_group(0)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap();
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(&job.input()).unwrap();
            (child, stdin)
        };
        let children = |name: &str| {
            let out = std::process::Command::new("pgrep")
                .args(["-f", name])
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).lines().count()
        };
        let n = std::process::id();
        // The channel closes: the job and its child end at once.
        let closed = format!("sleep 30.{n}1");
        let (mut job, stdin) = start_leader(&closed, 60);
        assert!(wait_until(3, || children(&closed) == 1), "never started");
        drop(stdin);
        assert!(wait_until(3, || job.try_wait().unwrap().is_some()));
        assert!(wait_until(2, || children(&closed) == 0), "its child stayed");
        // Never closed, never done: ended at its limit.
        let hung = format!("sleep 30.{n}2");
        let (mut job, _stdin) = start_leader(&hung, 1);
        assert!(wait_until(4, || job.try_wait().unwrap().is_some()));
        assert!(wait_until(2, || children(&hung) == 0), "its child stayed");
        // Done in time: its status, and no helper left behind.
        let (mut job, _stdin) = start_leader("exit 3", 60);
        let group = job.id().to_string();
        assert!(wait_until(3, || job.try_wait().unwrap().is_some()));
        assert_eq!(job.wait().unwrap().code(), Some(3));
        let left = || {
            let out = std::process::Command::new("pgrep")
                .args(["-g", &group])
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).lines().count()
        };
        assert!(wait_until(3, || left() == 0), "its limit's sleep stayed");
    }
}

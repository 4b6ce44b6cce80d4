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

/// `script` (one line, no single quote) as the command of a long-lived
/// sampling channel, whatever the login shell (bash, dash, busybox ash or
/// csh), ended by its watchdog after `idle` (whole seconds, at least one)
/// without a request. `tag` is appended to the marker (e.g. a test's
/// nonce); it may be empty.
pub fn command(script: &str, tag: &str, idle: Duration) -> String {
    let tag = clean_tag(tag);
    let sep = if tag.is_empty() { "" } else { "-" };
    let idle = idle.as_secs().max(1);
    // Builtins only in the loop: one `sleep` a period is all it costs. A
    // host without /proc/PID/io keeps its sampler as before. Its own sh
    // and name (pgrep tells it from the sampler); the sampler's pid is $1.
    // It stops as soon as it is no longer the sampler's child (the sampler
    // died unasked: its pid may be another process's by now), and its
    // `sleep` ends with it rather than linger for a period.
    let dog = format!(
        "W=$1; s=; trap \"kill \\$s 2>/dev/null; exit 0\" TERM; p=; \
         while :; do sleep {idle} & s=$!; wait $s; \
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
    let watchdog = format!(
        "sh -c \"{dog}\" {WATCHDOG_MARKER}{sep}{tag} $$ </dev/null >/dev/null 2>&1 & D=$!; \
         trap \"kill $D 2>/dev/null\" EXIT; trap \"exit 0\" HUP PIPE TERM; "
    );
    format!("exec sh -c '{watchdog}{script}' {SAMPLER_MARKER}{sep}{tag}")
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

    #[test]
    fn the_command_line() {
        let c = command("true", "t-1;rm -rf /", ONE_S);
        assert!(c.starts_with("exec sh -c 'sh -c \"W=\\$1; s=; trap"));
        assert!(c.contains("sleep 1 & s="));
        assert!(c.contains("\" strata-watchdog-t-1rm-rf $$ </dev/null"));
        assert!(c.ends_with("true' strata-sampler-t-1rm-rf"));
        assert!(command("true", "", ONE_S).ends_with("' strata-sampler"));
        // Inside the single quotes: none of its own.
        let inner = &c["exec sh -c '".len()..c.rfind('\'').unwrap()];
        assert!(!inner.contains('\''));
        assert_eq!(idle_for(ONE_S), Duration::from_secs(60));
        assert_eq!(idle_for(Duration::from_secs(30)), Duration::from_secs(300));
    }

    /// Runs a sampler that answers each line with a line, as the real
    /// ones do, under `sh -c` as sshd would run its command.
    fn spawn(tag: &str) -> std::process::Child {
        let script = "while read -r t; do echo \"x$t\" || exit 0; done";
        let c = command(script, tag, ONE_S);
        std::process::Command::new("sh")
            .arg("-c")
            .arg(c)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
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
}

//! The commands strata runs on a cell. Nothing is installed there: the
//! sampler is a POSIX sh loop, read by src/parse/cell_stream.rs.
//!
//! Lifetime: closing a non-PTY exec channel does not signal the remote
//! command, and sshd refuses `signal` requests for root logins. The loop
//! therefore writes a frame every interval and exits when the write fails
//! (SIGPIPE, or EPIPE where SIGPIPE is ignored), so it outlives a cut
//! channel by one interval at most. Its only children are a `cat` that
//! reads two /proc files and a `sleep` of one interval.

use std::time::Duration;

/// Every sampler's command line carries this word (as `$0` of its sh),
/// so leftovers can be found with `pgrep -f strata-sampler`.
pub const SAMPLER_MARKER: &str = "strata-sampler";

/// The shortest sleep the loop is given: `sleep 0` would spin.
const MIN_INTERVAL: Duration = Duration::from_millis(50);

/// One line, no single quote: it is passed inside '...' to the user's
/// login shell, which may be bash, dash, busybox ash or csh.
///
/// `a FILE KEY` prints `KEY VALUE` when FILE has a value. The class block
/// is printed once, then a sample frame per interval: `$(...)` strips the
/// last newline and `${#f}` is the body's length in bytes (LC_ALL=C).
const SAMPLER_SCRIPT: &str = concat!(
    "export LC_ALL=C; i=$1; ",
    "a() { v=; { read -r v <\"$1\"; } 2>/dev/null; [ -n \"$v\" ] && printf \"%s %s\\n\" \"$2\" \"$v\"; }; ",
    "c=$(for d in /sys/block/*; do [ -d \"$d\" ] || continue; ",
    "printf \"dev %s\\n\" \"${d##*/}\"; ",
    "a \"$d/queue/rotational\" rot; a \"$d/size\" size; ",
    "[ -e \"$d/device\" ] && printf \"link 1\\n\"; ",
    "a \"$d/device/model\" model; a \"$d/dm/name\" dm; ",
    "for x in \"$d\"/slaves/*; do [ -e \"$x\" ] && printf \"slave %s\\n\" \"${x##*/}\"; done; ",
    "for p in \"$d\"/*; do [ -f \"$p/partition\" ] || continue; ",
    "v=; { read -r v <\"$p/size\"; } 2>/dev/null; printf \"part %s %s\\n\" \"${p##*/}\" \"${v:--}\"; done; ",
    "done); ",
    "printf \"@@C 0\\n%s\\n@@E 0 %d\\n\" \"$c\" \"${#c}\" || exit 0; ",
    "s=0; while :; do s=$((s+1)); ",
    "f=$(cat /proc/uptime /proc/diskstats); ",
    "printf \"@@S %d\\n%s\\n@@E %d %d\\n\" \"$s\" \"$f\" \"$s\" \"${#f}\" || exit 0; ",
    "sleep \"$i\" || sleep 1 || exit 0; done",
);

/// Keeps a tag to what needs no quoting in any shell.
fn clean_tag(tag: &str) -> String {
    tag.chars()
        .filter(|c| c.is_ascii_alphanumeric() || "_.-".contains(*c))
        .collect()
}

/// Seconds with millisecond precision: coreutils and busybox `sleep`
/// take fractions (the loop falls back to `sleep 1` where one does not).
fn seconds(d: Duration) -> String {
    let d = d.max(MIN_INTERVAL);
    format!("{}.{:03}", d.as_secs(), d.subsec_millis())
}

/// The command of the long-lived sampling channel. `tag` is appended to
/// the marker (e.g. a test's nonce); it may be empty.
pub fn sampler_command(interval: Duration, tag: &str) -> String {
    let tag = clean_tag(tag);
    let sep = if tag.is_empty() { "" } else { "-" };
    format!(
        "exec sh -c '{SAMPLER_SCRIPT}' {SAMPLER_MARKER}{sep}{tag} {}",
        seconds(interval)
    )
}

/// The script alone, for running it under a local shell in tests.
pub fn sampler_script() -> &'static str {
    SAMPLER_SCRIPT
}

/// Exits 0 where `cellcli` is on the PATH of a login.
pub const CELLCLI_PROBE: &str = "exec sh -c 'command -v cellcli >/dev/null 2>&1'";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_without_single_quotes() {
        assert!(!SAMPLER_SCRIPT.contains('\''));
        assert!(!SAMPLER_SCRIPT.contains('\n'));
    }

    #[test]
    fn the_command_line() {
        let c = sampler_command(Duration::from_millis(250), "t-1;rm -rf /");
        assert!(c.starts_with("exec sh -c '"));
        assert!(c.ends_with("' strata-sampler-t-1rm-rf 0.250"), "{c}");
        assert!(sampler_command(Duration::ZERO, "").ends_with(" strata-sampler 0.050"));
        assert!(sampler_command(Duration::from_secs(2), "").ends_with(" 2.000"));
    }
}

//! The commands strata runs on a cell. Nothing is installed there: the
//! sampler is a POSIX sh loop, read by src/layers/cells/cell_stream.rs.
//!
//! Timing: the loop samples when strata writes a line to its stdin, and
//! strata writes to every cell at the same wall-clock boundaries, so the
//! cells' samples are taken together rather than each at its own phase
//! since it connected (the all-cell sums add figures of the same second).
//!
//! Lifetime: as every sampler's (src/remote/sampler.rs). Its only child
//! is a `cat` that reads two /proc files.

pub use crate::remote::sampler::SAMPLER_MARKER;

/// One line, no single quote: it is passed inside '...' to the user's
/// login shell, which may be bash, dash, busybox ash or csh.
///
/// `a FILE KEY` prints `KEY VALUE` when FILE has a value. The class block
/// is printed once, then a sample frame per line read from stdin: `$(...)`
/// strips the last newline and `${#f}` is the body's length in bytes
/// (LC_ALL=C).
const SAMPLER_SCRIPT: &str = concat!(
    "export LC_ALL=C; ",
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
    "s=0; while read -r t; do s=$((s+1)); ",
    "f=$(cat /proc/uptime /proc/diskstats); ",
    "printf \"@@S %d\\n%s\\n@@E %d %d\\n\" \"$s\" \"$f\" \"$s\" \"${#f}\" || exit 0; ",
    "done",
);

/// The command of the long-lived sampling channel. `tag` is appended to
/// the marker (e.g. a test's nonce); it may be empty.
pub fn sampler_command(tag: &str, idle: std::time::Duration) -> String {
    crate::remote::sampler::command(SAMPLER_SCRIPT, tag, idle)
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
}

//! The commands strata runs on a cell. Nothing is installed there: the
//! sampler is a POSIX sh loop, read by src/layers/cells/cell_stream.rs.
//!
//! Timing: the loop samples when strata writes a line to its stdin, and
//! strata writes to every cell at the same wall-clock boundaries, so the
//! cells' samples are taken together rather than each at its own phase
//! since it connected (the all-cell sums add figures of the same second).
//!
//! Lifetime: as every sampler's (src/link/sampler.rs). Its only child
//! is a `cat` that reads two /proc files.

use crate::link::sampler::Job;

/// One line, read by `sh -s` (src/link/sampler.rs says why).
///
/// `a FILE KEY` prints `KEY VALUE` when FILE has a value. The class block
/// is printed once, then a sample frame at once and one per line read
/// from stdin: `$(...)`
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
    "s=0; while :; do s=$((s+1)); ",
    "f=$(cat /proc/uptime /proc/diskstats); ",
    "printf \"@@S %d\\n%s\\n@@E %d %d\\n\" \"$s\" \"$f\" \"$s\" \"${#f}\" || exit 0; ",
    "read -r t || exit 0; done",
);

/// What the long-lived sampling channel runs. `tag` is appended to the
/// marker (e.g. a test's nonce); it may be empty.
pub fn sampler_job(tag: &str, idle: std::time::Duration) -> Job {
    crate::link::sampler::sampler(SAMPLER_SCRIPT, tag, idle)
}

/// The script alone, for running it under a local shell in tests.
pub fn sampler_script() -> &'static str {
    SAMPLER_SCRIPT
}

/// Exits 0 where `cellcli` is on the PATH of a login.
pub fn cellcli_probe() -> Job {
    Job::new(
        "strata-cellcli-probe",
        "command -v cellcli >/dev/null 2>&1 && exit 0; exit 1".into(),
    )
}

/// cellcli's runs' name on the cell.
pub const CELLCLI_MARKER: &str = "strata-cellcli";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_without_single_quotes() {
        assert!(!SAMPLER_SCRIPT.contains('\''));
        assert!(!SAMPLER_SCRIPT.contains('\n'));
    }
}

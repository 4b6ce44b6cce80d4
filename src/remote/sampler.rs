//! The command line of a host's sampler: its POSIX sh script (cells' in
//! src/layers/cells/source/remote.rs, nodes' in node.rs) under a marker.
//!
//! Lifetime: closing a non-PTY exec channel does not signal the remote
//! command, and sshd refuses `signal` requests for root logins. A sampler
//! therefore ends when its stdin ends (sshd closes it when the channel or
//! the connection goes) or when a write fails (SIGPIPE, or EPIPE where
//! SIGPIPE is ignored).

/// Every sampler's command line carries this word (as `$0` of its sh),
/// so leftovers can be found with `pgrep -f strata-sampler`.
pub const SAMPLER_MARKER: &str = "strata-sampler";

/// Keeps a tag to what needs no quoting in any shell.
fn clean_tag(tag: &str) -> String {
    tag.chars()
        .filter(|c| c.is_ascii_alphanumeric() || "_.-".contains(*c))
        .collect()
}

/// `script` (one line, no single quote) as the command of a long-lived
/// sampling channel, whatever the login shell (bash, dash, busybox ash or
/// csh). `tag` is appended to the marker (e.g. a test's nonce); it may be
/// empty.
pub fn command(script: &str, tag: &str) -> String {
    let tag = clean_tag(tag);
    let sep = if tag.is_empty() { "" } else { "-" };
    format!("exec sh -c '{script}' {SAMPLER_MARKER}{sep}{tag}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line() {
        let c = command("true", "t-1;rm -rf /");
        assert_eq!(c, "exec sh -c 'true' strata-sampler-t-1rm-rf");
        assert!(command("true", "").ends_with("' strata-sampler"));
    }
}

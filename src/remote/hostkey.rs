//! A host's key against known_hosts, as OpenSSH reads the file.
//!
//! russh::keys::known_hosts is not used for the check: it counts lines
//! wrongly after a comment (so a "changed key" would name the wrong line),
//! ignores `@revoked` (a revoked key would look unknown, and
//! accept-new would learn it), splits fields on single spaces only and
//! knows no `*`/`?`/`!` patterns. This module parses each line with
//! ssh-key and matches hosts as OpenSSH's hostfile.c does. Nor is russh's
//! `learn_known_hosts_path` used to write a new line: it creates the
//! directory 0755 and the file 0644 (after the umask) and starts a new
//! file with an empty line; OpenSSH makes ~/.ssh 0700 and known_hosts 0600.

use crate::core::error::kind_name;
use crate::link::error::{HostKeyError, OfferedKey};
use russh::keys::ssh_key::known_hosts::HostPatterns;
use russh::keys::{Algorithm, HashAlg, PublicKey};
use std::path::Path;
use std::sync::Mutex;

/// What known_hosts says about the key a host offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The key is on this line.
    Known { line: usize },
    /// No line names this host.
    Unknown,
    /// A line names the host with another key of the same type.
    Changed { line: usize, known: String },
    /// The host is known only by keys of other types: the server no longer
    /// offers the type the file has. OpenSSH's accept-new would learn the
    /// new key; strata refuses it as it would a changed key.
    OtherTypes { lines: Vec<(usize, String)> },
    /// The key is listed under `@revoked`.
    Revoked { line: usize },
}

/// The name known_hosts files use for a host and port.
fn host_port(host: &str, port: u16) -> String {
    let host = host.to_ascii_lowercase();
    if port == 22 {
        host
    } else {
        format!("[{host}]:{port}")
    }
}

/// `*` and `?` globbing, as OpenSSH's match_pattern (case folded by the
/// caller). Iterative with one backtrack point: linear in practice.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

fn hashed_matches(salt: &[u8], hash: &[u8], name: &str) -> bool {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, salt);
    ring::hmac::verify(&key, name.as_bytes(), hash).is_ok()
}

/// Does the hosts field of a line name `name`? A matching `!pattern`
/// excludes the line whatever else matches.
fn hosts_match(field: &str, name: &str) -> bool {
    if field.starts_with("|1|") {
        return match field.parse::<HostPatterns>() {
            Ok(HostPatterns::HashedName { salt, hash }) => hashed_matches(&salt, &hash, name),
            _ => false,
        };
    }
    let mut matched = false;
    for pattern in field.split(',') {
        let (negated, pattern) = match pattern.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, pattern),
        };
        if glob(pattern.to_ascii_lowercase().as_bytes(), name.as_bytes()) {
            if negated {
                return false;
            }
            matched = true;
        }
    }
    matched
}

struct Line<'a> {
    no: usize,
    marker: Option<&'a str>,
    key: PublicKey,
}

/// The lines of a known_hosts text that name this host, with their keys.
/// Comments, blank and malformed lines are skipped, as OpenSSH does.
fn lines_for<'a>(text: &'a str, host: &str, port: u16) -> Vec<Line<'a>> {
    let name = host_port(host, port);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        if first.starts_with('#') {
            continue;
        }
        let (marker, hosts) = if first.starts_with('@') {
            match words.next() {
                Some(h) => (Some(first), h),
                None => continue,
            }
        } else {
            (None, first)
        };
        let (Some(kind), Some(b64)) = (words.next(), words.next()) else {
            continue;
        };
        if !hosts_match(hosts, &name) {
            continue;
        }
        if let Ok(key) = PublicKey::from_openssh(&format!("{kind} {b64}")) {
            out.push(Line {
                no: i + 1,
                marker,
                key,
            });
        }
    }
    out
}

pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// Checks the key `host` offered against a known_hosts text.
pub fn check(text: &str, host: &str, port: u16, key: &PublicKey) -> Verdict {
    let lines = lines_for(text, host, port);
    if let Some(l) = lines
        .iter()
        .find(|l| l.marker == Some("@revoked") && l.key.key_data() == key.key_data())
    {
        return Verdict::Revoked { line: l.no };
    }
    let plain: Vec<&Line> = lines.iter().filter(|l| l.marker.is_none()).collect();
    if let Some(l) = plain.iter().find(|l| l.key.key_data() == key.key_data()) {
        return Verdict::Known { line: l.no };
    }
    if let Some(l) = plain.iter().find(|l| l.key.algorithm() == key.algorithm()) {
        return Verdict::Changed {
            line: l.no,
            known: fingerprint(&l.key),
        };
    }
    if plain.is_empty() {
        Verdict::Unknown
    } else {
        Verdict::OtherTypes {
            lines: plain
                .iter()
                .map(|l| (l.no, l.key.algorithm().as_str().to_string()))
                .collect(),
        }
    }
}

/// The key types known_hosts holds for a host, so that the handshake asks
/// for those first (as OpenSSH orders its HostKeyAlgorithms).
pub fn known_algorithms(text: &str, host: &str, port: u16) -> Vec<Algorithm> {
    let mut out: Vec<Algorithm> = Vec::new();
    for l in lines_for(text, host, port) {
        let a = l.key.algorithm();
        if l.marker.is_none() && !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// `preferred` with the algorithms of `known` first. An RSA key is
/// accepted under each RSA signature algorithm.
pub fn prefer_known(preferred: &[Algorithm], known: &[Algorithm]) -> Vec<Algorithm> {
    let is_known = |a: &Algorithm| {
        known.iter().any(|k| {
            k == a || (matches!(k, Algorithm::Rsa { .. }) && matches!(a, Algorithm::Rsa { .. }))
        })
    };
    let (mut first, rest): (Vec<Algorithm>, Vec<Algorithm>) =
        preferred.iter().cloned().partition(is_known);
    first.extend(rest);
    first
}

/// Why a host key is refused, in words a user can act on.
pub fn refusal(
    verdict: &Verdict,
    host: &str,
    port: u16,
    key: &PublicKey,
    file: &Path,
) -> Option<HostKeyError> {
    let offered = OfferedKey {
        key_type: key.algorithm().as_str().to_string(),
        fingerprint: fingerprint(key),
    };
    let (host, file) = (host.to_string(), file.display().to_string());
    Some(match verdict {
        Verdict::Known { .. } => return None,
        Verdict::Unknown => HostKeyError::Unknown {
            host,
            port,
            offered,
            file,
        },
        Verdict::Changed { line, known } => HostKeyError::Changed {
            host,
            port,
            offered,
            file,
            line: *line,
            known: known.clone(),
        },
        Verdict::OtherTypes { lines } => HostKeyError::OtherTypes {
            host,
            port,
            offered,
            file,
            lines: lines.clone(),
        },
        Verdict::Revoked { line } => HostKeyError::Revoked {
            host,
            port,
            offered,
            file,
            line: *line,
        },
    })
}

/// Hosts checking and learning at once must not append the same key twice.
static LEARNING: Mutex<()> = Mutex::new(());

/// The most of a known_hosts file strata reads: 20,000 RSA host keys.
pub const MAX_KNOWN_HOSTS_BYTES: u64 = 16 << 20;

/// A known_hosts file's text, read as every file the user names is.
pub fn read_known_hosts(path: &Path) -> std::io::Result<String> {
    crate::core::userfile::read_text(path, MAX_KNOWN_HOSTS_BYTES)
}

/// Appends `host`'s key to the file at `path` as OpenSSH's accept-new
/// does: a missing directory made 0700 and a new file 0600, whatever the
/// umask would allow beyond; a line break first only where the file has
/// lines and its last one is not ended.
fn learn(host: &str, port: u16, key: &PublicKey, path: &Path) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut last = [b'\n'];
    if file.seek(SeekFrom::End(-1)).is_ok() {
        file.read_exact(&mut last)?;
    }
    let key = key.to_openssh().map_err(std::io::Error::other)?;
    let line = format!(
        "{}{} {key}\n",
        if last[0] == b'\n' { "" } else { "\n" },
        host_port(host, port)
    );
    file.write_all(line.as_bytes())
}

/// Checks the offered key against the file; with `accept_new` a host the
/// file does not know at all is learned (appended), as OpenSSH's
/// StrictHostKeyChecking=accept-new does. Returns the refusal otherwise,
/// boxed: it names the host, both keys and the file, which would make
/// every result as large.
pub fn verify(
    path: &Path,
    host: &str,
    port: u16,
    key: &PublicKey,
    accept_new: bool,
) -> Result<(), Box<HostKeyError>> {
    let _guard = LEARNING.lock().unwrap_or_else(|p| p.into_inner());
    let text = match read_known_hosts(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(Box::new(HostKeyError::Unreadable {
                file: path.display().to_string(),
                kind: kind_name(e.kind()),
                message: e.to_string(),
            }));
        }
    };
    let verdict = check(&text, host, port, key);
    if verdict == Verdict::Unknown && accept_new {
        return learn(&host.to_ascii_lowercase(), port, key, path).map_err(|e| {
            Box::new(HostKeyError::NotLearned {
                host: host.to_string(),
                port,
                file: path.display().to_string(),
                message: e.to_string(),
            })
        });
    }
    match refusal(&verdict, host, port, key, path) {
        None => Ok(()),
        Some(reason) => Err(Box::new(reason)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Public keys made with ssh-keygen -t ed25519 / -t ecdsa for these tests.
    const ED_A: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA35t3ff8z3l8e2W+1/TBgHttYD5k273ZVmiB9ofhrPN";
    const ED_B: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHK/1KAcuT1La2HAPg0aXAVieA80EO5gFv2/N+u5ZID4";
    const ECDSA: &str = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBGQUp/pVd9tV9zwRsRrDoWkJmolgVkZ7u7srJsM43uoHCg2y51mVUf1yOSvGgxL++i6uhOqpaXcaQ8Eoegh7ucc=";

    fn key(s: &str) -> PublicKey {
        PublicKey::from_openssh(s).unwrap()
    }

    #[test]
    fn globs() {
        assert!(glob(b"*.cells.example", b"dm01cel01.cells.example"));
        assert!(glob(b"dm01cel0?", b"dm01cel07"));
        assert!(!glob(b"dm01cel0?", b"dm01cel10"));
        assert!(glob(b"*", b""));
        assert!(!glob(b"a*b*c", b"aXbY"));
        assert!(glob(b"[10.0.0.*]:2222", b"[10.0.0.9]:2222"));
    }

    #[test]
    fn line_numbers_count_comments_and_blank_lines() {
        let text = format!("# cells\n\ncel01 {ED_B}\n");
        assert_eq!(
            check(&text, "cel01", 22, &key(ED_A)),
            Verdict::Changed {
                line: 3,
                known: fingerprint(&key(ED_B))
            }
        );
    }

    #[test]
    fn ports_patterns_and_negation() {
        let text = format!(
            "[cel01]:2222 {ED_A}\n*.rack1,!bad.rack1 {ED_A}\ncel01,CEL02\t{ED_A} comment here\n"
        );
        let k = key(ED_A);
        assert_eq!(check(&text, "cel01", 2222, &k), Verdict::Known { line: 1 });
        assert_eq!(check(&text, "cel01", 22, &k), Verdict::Known { line: 3 });
        assert_eq!(check(&text, "cel02", 22, &k), Verdict::Known { line: 3 });
        assert_eq!(check(&text, "x.rack1", 22, &k), Verdict::Known { line: 2 });
        assert_eq!(check(&text, "bad.rack1", 22, &k), Verdict::Unknown);
        assert_eq!(check(&text, "cel01", 2200, &k), Verdict::Unknown);
    }

    #[test]
    fn hashed_entries() {
        // ssh-keygen -H on "[cel01]:2222 ED_B"
        let text = format!("|1|v7kZWqTHMFc9KnGPAFeiMeiNFmg=|wt74jCOlDoRZ4PezPpjv5dblcT8= {ED_B}\n");
        assert_eq!(
            check(&text, "cel01", 2222, &key(ED_B)),
            Verdict::Known { line: 1 }
        );
        assert_eq!(check(&text, "cel01", 22, &key(ED_B)), Verdict::Unknown);
    }

    #[test]
    fn revoked_other_types_and_malformed_lines() {
        let text = format!("@revoked * {ED_A}\ncel01 {ED_A}\n");
        assert_eq!(
            check(&text, "cel01", 22, &key(ED_A)),
            Verdict::Revoked { line: 1 }
        );
        let text = format!("cel01 {ECDSA}\ncel01 ssh-ed25519 AAAAnotbase64\n");
        assert_eq!(
            check(&text, "cel01", 22, &key(ED_A)),
            Verdict::OtherTypes {
                lines: vec![(1, "ecdsa-sha2-nistp256".into())]
            }
        );
        assert_eq!(
            known_algorithms(&text, "cel01", 22),
            vec![key(ECDSA).algorithm()]
        );
        let text = format!("@cert-authority *.rack1 {ED_A}\n");
        assert_eq!(check(&text, "a.rack1", 22, &key(ED_A)), Verdict::Unknown);
    }

    #[test]
    fn known_types_go_first() {
        let pref = [Algorithm::Ed25519, key(ECDSA).algorithm()];
        assert_eq!(
            prefer_known(&pref, &[key(ECDSA).algorithm()]),
            vec![key(ECDSA).algorithm(), Algorithm::Ed25519]
        );
    }

    #[test]
    fn refusals_name_host_port_type_fingerprint_file_and_line() {
        let k = key(ED_A);
        let f = Path::new("/home/u/.ssh/known_hosts");
        let r = refusal(&Verdict::Unknown, "cel01", 2222, &k, f)
            .unwrap()
            .to_string();
        assert!(
            r.contains("cel01 port 2222") && r.contains("ssh-ed25519 SHA256:"),
            "{r}"
        );
        assert!(r.contains("/home/u/.ssh/known_hosts"), "{r}");
        let r = refusal(
            &Verdict::Changed {
                line: 7,
                known: "SHA256:x".into(),
            },
            "cel01",
            22,
            &k,
            f,
        )
        .unwrap()
        .to_string();
        assert!(r.contains("line 7") && r.contains("CHANGED"), "{r}");
    }

    #[test]
    fn accept_new_learns_unknown_and_refuses_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("known_hosts");
        assert!(verify(&path, "cel01", 2222, &key(ED_A), false).is_err());
        assert!(!path.exists());
        verify(&path, "CEL01", 2222, &key(ED_A), true).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("[cel01]:2222 ssh-ed25519 "), "{text:?}");
        verify(&path, "cel01", 2222, &key(ED_A), false).unwrap();
        let e = verify(&path, "cel01", 2222, &key(ED_B), true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn accept_new_makes_the_directory_0700_and_the_file_0600_as_openssh() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ssh = dir.path().join("home/.ssh");
        let path = ssh.join("known_hosts");
        verify(&path, "cel01", 22, &key(ED_A), true).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&ssh), mode(&path)), (0o700, 0o600));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("cel01 ssh-ed25519 AAAA"), "{text:?}");
        // A last line without its break gets one before the new line.
        std::fs::write(&path, "cel09 ssh-ed25519 AAAA").unwrap();
        verify(&path, "cel02", 2200, &key(ED_B), true).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("cel09 ssh-ed25519 AAAA\n[cel02]:2200 ssh-ed25519 "),
            "{text:?}"
        );
        assert_eq!(text.lines().count(), 2);
    }
}

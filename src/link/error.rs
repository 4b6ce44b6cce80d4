//! Why a host over SSH (a cell, a node) is not live: what the session and
//! the host key check make, a [`super::HostStatus`] carries, a recording
//! stores, and the screen, `strata batch` and `strata export` print by its
//! Display, in the words they printed when these were strings.
//!
//! Recordings made before these errors were typed hold each one as its
//! text, a plain string (`{"Unreachable": "10.0.0.5:22: connect: ..."}`):
//! that form reads as the `Text` variant, and `Text` writes it again.
//! Every other variant is a struct variant, written as a map, so no plain
//! string of before reads as one.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// A wait as the texts say it: `3.0 s`.
pub fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// `d` to the tenth of a second its sentence shows: a host silent again
/// after a reconnect is then the same status, which is said once, not a
/// new one each time by a few nanoseconds.
pub fn tenths(d: Duration) -> Duration {
    Duration::from_millis(u64::try_from((d.as_millis() + 50) / 100 * 100).unwrap_or(u64::MAX))
}

/// No connection, a handshake that never completed, a connection lost or
/// a host silent for too long. `at` is the host as `host:port` (before
/// login), `host` the target's label (after).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Unreachable {
    /// The TCP connection failed: refused, no route, a name that does not
    /// resolve.
    Connect {
        at: String,
        /// The `io::ErrorKind`'s name (`core::error::kind_name`), such as
        /// `ConnectionRefused`.
        kind: String,
        /// The `io::Error`'s text: `Connection refused (os error 111)`.
        message: String,
    },
    /// No TCP connection within the connect timeout.
    ConnectTimedOut { at: String, after: Duration },
    /// The SSH handshake failed; `message` is russh's.
    Handshake { at: String, message: String },
    /// The port accepted, but no handshake completed in time.
    HandshakeTimedOut { at: String, after: Duration },
    /// No answer to the login in time.
    LoginTimedOut { host: String, after: Duration },
    /// The connection went during the login; `message` says after what.
    LostInLogin { host: String, message: String },
    /// The sampler's channel or command was refused; `message` is russh's.
    SamplerNotStarted { host: String, message: String },
    /// The sampler's channel did not open in time.
    SamplerTimedOut { host: String, after: Duration },
    /// The request for a sample could not be written.
    CannotAsk { host: String },
    /// No frame for two intervals and a second (the first: and the
    /// connect timeout).
    Silent { host: String, after: Duration },
    /// The connection closed under the sampler.
    ConnectionLost { host: String },
    /// The sampler's channel closed: its exit status if it gave one, and
    /// the last of what it wrote on stderr.
    SamplerEnded {
        host: String,
        status: Option<u32>,
        stderr: String,
    },
    /// A reason known only by its text: one a recording made before these
    /// were typed holds (written as a plain string, as it was then).
    #[serde(untagged)]
    Text(String),
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Unreachable as U;
        match self {
            U::Connect { at, message, .. } => write!(f, "{at}: {message}"),
            U::ConnectTimedOut { at, after } => {
                write!(f, "{at}: no TCP connection within {}", secs(*after))
            }
            U::Handshake { at, message } => write!(f, "{at}: SSH handshake: {message}"),
            U::HandshakeTimedOut { at, after } => write!(
                f,
                "{at} accepted the connection but no SSH handshake completed within {}",
                secs(*after)
            ),
            U::LoginTimedOut { host, after } => write!(
                f,
                "{host}: no answer to authentication within {}",
                secs(*after)
            ),
            U::LostInLogin { host, message } => write!(f, "{host}: {message}"),
            U::SamplerNotStarted { host, message } => {
                write!(f, "{host}: cannot start the sampler: {message}")
            }
            U::SamplerTimedOut { host, after } => write!(
                f,
                "{host}: the sampler channel did not open within {}",
                secs(*after)
            ),
            U::CannotAsk { host } => write!(f, "{host}: cannot ask the sampler for a sample"),
            U::Silent { host, after } => write!(f, "{host}: no sample for {}", secs(*after)),
            U::ConnectionLost { host } => write!(f, "{host}: connection lost"),
            U::SamplerEnded {
                host,
                status,
                stderr,
            } => {
                write!(f, "{host}: the sampler ended")?;
                if let Some(s) = status {
                    write!(f, " with status {s}")?;
                }
                if !stderr.is_empty() {
                    write!(f, ": {stderr}")?;
                }
                Ok(())
            }
            U::Text(t) => f.write_str(t),
        }
    }
}

/// Why the host refused the login (publickey only, never a password).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LoginError {
    /// Every key offered was refused or unusable; `tried` says each.
    NoKeyAccepted {
        user: String,
        host: String,
        tried: Vec<String>,
    },
    /// Only an encrypted identity file was left, in batch mode where no
    /// one can type its passphrase.
    Encrypted { identity: PathBuf },
    /// The passphrase given for an identity file did not open it (batch
    /// mode; the TUI asks again).
    WrongPassphrase { identity: PathBuf },
    /// A refusal known only by its text (a recording made before).
    #[serde(untagged)]
    Text(String),
}

impl fmt::Display for LoginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoginError::NoKeyAccepted { user, host, tried } => {
                write!(f, "{user}@{host}: no key accepted: {}", tried.join("; "))
            }
            LoginError::Encrypted { identity } => {
                let p = identity.display();
                write!(
                    f,
                    "identity file {p} is encrypted; load it into ssh-agent (ssh-add {p}) \
                     or run strata interactively to type its passphrase"
                )
            }
            LoginError::WrongPassphrase { identity } => write!(
                f,
                "wrong passphrase for identity file {}",
                identity.display()
            ),
            LoginError::Text(t) => f.write_str(t),
        }
    }
}

/// The key a host offered: its type and SHA256 fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OfferedKey {
    /// `ssh-ed25519`, `ecdsa-sha2-nistp256`, ...
    pub key_type: String,
    /// `SHA256:...`, as ssh-keygen -l prints it.
    pub fingerprint: String,
}

impl fmt::Display for OfferedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.key_type, self.fingerprint)
    }
}

/// Why a host's key was refused, in words a user can act on. `file` is
/// the known_hosts file as the user named it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum HostKeyError {
    /// No line of the file names the host.
    Unknown {
        host: String,
        port: u16,
        offered: OfferedKey,
        file: String,
    },
    /// A line names the host with another key of the same type.
    Changed {
        host: String,
        port: u16,
        offered: OfferedKey,
        file: String,
        line: usize,
        /// The fingerprint the line holds.
        known: String,
    },
    /// The file knows the host only by keys of other types.
    OtherTypes {
        host: String,
        port: u16,
        offered: OfferedKey,
        file: String,
        /// Each line's number and key type.
        lines: Vec<(usize, String)>,
    },
    /// The key is listed under `@revoked`.
    Revoked {
        host: String,
        port: u16,
        offered: OfferedKey,
        file: String,
        line: usize,
    },
    /// The host offered a certificate, which strata does not check.
    Certificate { host: String, port: u16 },
    /// The known_hosts file could not be read.
    Unreadable {
        file: String,
        /// The `io::ErrorKind`'s name.
        kind: String,
        message: String,
    },
    /// accept-new could not add the key to the file.
    NotLearned {
        host: String,
        port: u16,
        file: String,
        message: String,
    },
    /// The check itself failed (its thread panicked).
    CheckFailed { message: String },
    /// A refusal known only by its text (a recording made before).
    #[serde(untagged)]
    Text(String),
}

impl fmt::Display for HostKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use HostKeyError as H;
        match self {
            H::Unknown {
                host,
                port,
                offered,
                file,
            } => write!(
                f,
                "unknown host key for {host} port {port}: {offered} is not in {file}; \
                 check the fingerprint and add it (ssh-keyscan -p {port} {host} >> {file}) \
                 or start strata with --accept-new-host-keys"
            ),
            H::Changed {
                host,
                port,
                offered,
                file,
                line,
                known,
            } => write!(
                f,
                "HOST KEY CHANGED for {host} port {port}: it offers {offered}, {file} line {line} \
                 holds {known}; if the host was reinstalled, remove line {line}"
            ),
            H::OtherTypes {
                host,
                port,
                offered,
                file,
                lines,
            } => {
                let known: Vec<String> = lines
                    .iter()
                    .map(|(n, a)| format!("line {n}: {a}"))
                    .collect();
                write!(
                    f,
                    "host key of {host} port {port} is of another type than {file} knows \
                     ({}): it offers {offered}; refused as a changed key",
                    known.join(", ")
                )
            }
            H::Revoked {
                host,
                port,
                offered,
                file,
                line,
            } => write!(
                f,
                "host key {offered} of {host} port {port} is @revoked in {file} line {line}"
            ),
            H::Certificate { host, port } => write!(
                f,
                "{host} port {port} offers a host certificate; strata checks plain host keys only"
            ),
            H::Unreadable { file, message, .. } => write!(f, "cannot read {file}: {message}"),
            H::NotLearned {
                host,
                port,
                file,
                message,
            } => write!(
                f,
                "cannot add the key of {host} port {port} to {file}: {message}"
            ),
            H::CheckFailed { message } => write!(f, "host key check failed: {message}"),
            H::Text(t) => f.write_str(t),
        }
    }
}

impl std::error::Error for Unreachable {}
impl std::error::Error for LoginError {}
impl std::error::Error for HostKeyError {}

crate::core::error::from_text!(Unreachable, LoginError, HostKeyError);

#[cfg(test)]
mod tests {
    use super::*;

    fn offered() -> OfferedKey {
        OfferedKey {
            key_type: "ssh-ed25519".into(),
            fingerprint: "SHA256:opVj9bzxHFKkKANvY".into(),
        }
    }

    /// Each reason with the words the screen and batch printed for it when
    /// it was a string (the session's format! of before).
    fn unreachable() -> Vec<(Unreachable, &'static str)> {
        let host = || "cel01".to_string();
        let at = || "10.0.0.5:22".to_string();
        let t = Duration::from_millis(3040);
        vec![
            (
                Unreachable::Connect {
                    at: at(),
                    kind: "ConnectionRefused".into(),
                    message: "Connection refused (os error 111)".into(),
                },
                "10.0.0.5:22: Connection refused (os error 111)",
            ),
            (
                Unreachable::ConnectTimedOut { at: at(), after: t },
                "10.0.0.5:22: no TCP connection within 3.0 s",
            ),
            (
                Unreachable::Handshake {
                    at: at(),
                    message: "Disconnected".into(),
                },
                "10.0.0.5:22: SSH handshake: Disconnected",
            ),
            (
                Unreachable::HandshakeTimedOut { at: at(), after: t },
                "10.0.0.5:22 accepted the connection but no SSH handshake completed within 3.0 s",
            ),
            (
                Unreachable::LoginTimedOut {
                    host: host(),
                    after: Duration::from_secs(15),
                },
                "cel01: no answer to authentication within 15.0 s",
            ),
            (
                Unreachable::LostInLogin {
                    host: host(),
                    message: "while offering /k/id: Disconnected".into(),
                },
                "cel01: while offering /k/id: Disconnected",
            ),
            (
                Unreachable::SamplerNotStarted {
                    host: host(),
                    message: "Channel open failure".into(),
                },
                "cel01: cannot start the sampler: Channel open failure",
            ),
            (
                Unreachable::SamplerTimedOut {
                    host: host(),
                    after: t,
                },
                "cel01: the sampler channel did not open within 3.0 s",
            ),
            (
                Unreachable::CannotAsk { host: host() },
                "cel01: cannot ask the sampler for a sample",
            ),
            (
                Unreachable::Silent {
                    host: host(),
                    after: Duration::from_millis(2049),
                },
                "cel01: no sample for 2.0 s",
            ),
            (
                Unreachable::ConnectionLost { host: host() },
                "cel01: connection lost",
            ),
            (
                Unreachable::SamplerEnded {
                    host: host(),
                    status: Some(3),
                    stderr: "sh: 1: fincore: not found".into(),
                },
                "cel01: the sampler ended with status 3: sh: 1: fincore: not found",
            ),
            (
                Unreachable::SamplerEnded {
                    host: host(),
                    status: None,
                    stderr: String::new(),
                },
                "cel01: the sampler ended",
            ),
            (Unreachable::Text("an old text".into()), "an old text"),
        ]
    }

    fn login() -> Vec<(LoginError, &'static str)> {
        vec![
            (
                LoginError::NoKeyAccepted {
                    user: "root".into(),
                    host: "cel01".into(),
                    tried: vec!["agent key SHA256:x refused".into(), "/k/id refused".into()],
                },
                "root@cel01: no key accepted: agent key SHA256:x refused; /k/id refused",
            ),
            (
                LoginError::Encrypted {
                    identity: "/k/id".into(),
                },
                "identity file /k/id is encrypted; load it into ssh-agent (ssh-add /k/id) or run strata interactively to type its passphrase",
            ),
            (
                LoginError::WrongPassphrase {
                    identity: "/k/id".into(),
                },
                "wrong passphrase for identity file /k/id",
            ),
        ]
    }

    fn host_key() -> Vec<(HostKeyError, &'static str)> {
        let host = || "cel01".to_string();
        let file = || "/root/.ssh/known_hosts".to_string();
        vec![
            (
                HostKeyError::Unknown {
                    host: host(),
                    port: 2222,
                    offered: offered(),
                    file: file(),
                },
                "unknown host key for cel01 port 2222: ssh-ed25519 SHA256:opVj9bzxHFKkKANvY is not in /root/.ssh/known_hosts; check the fingerprint and add it (ssh-keyscan -p 2222 cel01 >> /root/.ssh/known_hosts) or start strata with --accept-new-host-keys",
            ),
            (
                HostKeyError::Changed {
                    host: host(),
                    port: 22,
                    offered: offered(),
                    file: file(),
                    line: 3,
                    known: "SHA256:KApv".into(),
                },
                "HOST KEY CHANGED for cel01 port 22: it offers ssh-ed25519 SHA256:opVj9bzxHFKkKANvY, /root/.ssh/known_hosts line 3 holds SHA256:KApv; if the host was reinstalled, remove line 3",
            ),
            (
                HostKeyError::OtherTypes {
                    host: host(),
                    port: 22,
                    offered: offered(),
                    file: file(),
                    lines: vec![(1, "ecdsa-sha2-nistp256".into()), (4, "ssh-rsa".into())],
                },
                "host key of cel01 port 22 is of another type than /root/.ssh/known_hosts knows (line 1: ecdsa-sha2-nistp256, line 4: ssh-rsa): it offers ssh-ed25519 SHA256:opVj9bzxHFKkKANvY; refused as a changed key",
            ),
            (
                HostKeyError::Revoked {
                    host: host(),
                    port: 22,
                    offered: offered(),
                    file: file(),
                    line: 1,
                },
                "host key ssh-ed25519 SHA256:opVj9bzxHFKkKANvY of cel01 port 22 is @revoked in /root/.ssh/known_hosts line 1",
            ),
            (
                HostKeyError::Certificate {
                    host: host(),
                    port: 22,
                },
                "cel01 port 22 offers a host certificate; strata checks plain host keys only",
            ),
            (
                HostKeyError::Unreadable {
                    file: file(),
                    kind: "PermissionDenied".into(),
                    message: "Permission denied (os error 13)".into(),
                },
                "cannot read /root/.ssh/known_hosts: Permission denied (os error 13)",
            ),
            (
                HostKeyError::NotLearned {
                    host: host(),
                    port: 22,
                    file: file(),
                    message: "Permission denied (os error 13)".into(),
                },
                "cannot add the key of cel01 port 22 to /root/.ssh/known_hosts: Permission denied (os error 13)",
            ),
            (
                HostKeyError::CheckFailed {
                    message: "task 7 panicked".into(),
                },
                "host key check failed: task 7 panicked",
            ),
        ]
    }

    /// Says what the string said, goes through serde and back, and the
    /// string itself (what a recording of before holds) reads as `Text`
    /// and is written again as the same string.
    fn check<E>(cases: Vec<(E, &'static str)>)
    where
        E: fmt::Display
            + fmt::Debug
            + PartialEq
            + serde::Serialize
            + serde::de::DeserializeOwned
            + From<String>,
    {
        crate::core::error::says_and_reads_old(cases.into_iter().map(|(e, t)| (e, t.to_string())));
    }

    #[test]
    fn each_reason_says_what_the_string_said_and_reads_the_old_string() {
        check(unreachable());
        check(login());
        check(host_key());
    }

    /// A status as a recording of before holds it, and the new form.
    #[test]
    fn a_host_status_of_before_reads_as_its_text() {
        use crate::link::HostStatus;
        let old = serde_json::json!({ "Unreachable": "10.0.0.5:22: connect: Connection refused" });
        let s: HostStatus = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(
            s,
            HostStatus::Unreachable("10.0.0.5:22: connect: Connection refused".into())
        );
        assert_eq!(s.to_string(), "10.0.0.5:22: connect: Connection refused");
        assert_eq!(serde_json::to_value(&s).unwrap(), old);
        let old = serde_json::json!({ "AuthFailed": "no key" });
        let s: HostStatus = serde_json::from_value(old).unwrap();
        assert_eq!(s.to_string(), "login refused: no key");
        let new = HostStatus::Unreachable(Unreachable::ConnectionLost {
            host: "cel01".into(),
        });
        assert_eq!(
            serde_json::to_value(&new).unwrap(),
            serde_json::json!({ "Unreachable": { "ConnectionLost": { "host": "cel01" } } })
        );
    }
}

//! Hosts over SSH, cells and database nodes alike: one connection per
//! host, one long-lived exec channel running a POSIX sh sampler that
//! streams frames (`frame`), and a side command on its own channel where
//! the host has one (cellcli on a cell, fincore on a node with watched
//! files). What the sampler reads and what its frames become is a
//! [`Protocol`]; everything else is shared.
//!
//! ```text
//!  run_host (one task per host, never waits on another)
//!   connect ─► host key (hostkey.rs) ─► publickey auth (auth.rs) ─► session.rs
//!      ▲                                                              │ sampler channel: frames (frame.rs)
//!      └──── capped exponential backoff with jitter ◄── lost/refused ─┤ pings: Rtt
//!                                                                     └ side channel: cellcli, fincore
//! ```
//!
//! russh is built on ring, not its default aws-lc-rs: the same algorithms
//! without aws-lc's C library build. Cold debug build of russh alone on the
//! 2-core build machine (shared, load 2 to 6): ring 1 m 42 s (1 m 31 s
//! user), aws-lc-rs 2 m 10 s (1 m 46 s user); crates.md §0 has release
//! figures (1 m 40 s against 1 m 59 s for the whole tree).

pub mod error;
pub mod frame;
pub mod hostkey;
pub mod node;
pub mod sampler;
pub mod target;

mod auth;
pub use auth::{MAX_IDENTITY_BYTES, decode_identity};
mod session;

pub use target::{SshTarget, parse_host_group, parse_ssh_spec};

use crate::parse::ParseError;
pub use error::{HostKeyError, LoginError, Unreachable};
use frame::Frame;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use zeroize::Zeroizing;

/// What a secret typed in the TUI opens.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Secret {
    /// An encrypted identity file, shared by every host that uses it.
    Identity(PathBuf),
    /// A database's password, by the database's label.
    Database(String),
}

impl From<&Path> for Secret {
    fn from(p: &Path) -> Secret {
        Secret::Identity(p.to_path_buf())
    }
}

impl From<&PathBuf> for Secret {
    fn from(p: &PathBuf) -> Secret {
        Secret::Identity(p.clone())
    }
}

impl From<PathBuf> for Secret {
    fn from(p: PathBuf) -> Secret {
        Secret::Identity(p)
    }
}

impl From<&str> for Secret {
    fn from(p: &str) -> Secret {
        Secret::Identity(PathBuf::from(p))
    }
}

/// Secrets typed once in the TUI: passphrases of encrypted identity files
/// (shared by every host that uses the same file) and database passwords.
#[derive(Clone)]
pub struct PassphraseStore(Arc<PassphraseInner>);

struct PassphraseInner {
    /// Wiped when replaced, forgotten or dropped.
    map: Mutex<HashMap<Secret, Zeroizing<String>>>,
    /// Bumped on every insert, so hosts waiting for a passphrase wake.
    changed: watch::Sender<u64>,
}

impl Default for PassphraseStore {
    fn default() -> Self {
        PassphraseStore(Arc::new(PassphraseInner {
            map: Mutex::new(HashMap::new()),
            changed: watch::Sender::new(0),
        }))
    }
}

impl fmt::Debug for PassphraseStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the passphrases themselves.
        let n = self.0.map.lock().map(|m| m.len()).unwrap_or(0);
        write!(f, "PassphraseStore({n} entries)")
    }
}

impl PassphraseStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&self, key: impl Into<Secret>, secret: impl Into<String>) {
        if let Ok(mut m) = self.0.map.lock() {
            m.insert(key.into(), Zeroizing::new(secret.into()));
        }
        self.0.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A copy of the secret, wiped when the caller drops it.
    pub fn get(&self, key: impl Into<Secret>) -> Option<Zeroizing<String>> {
        self.0.map.lock().ok()?.get(&key.into()).cloned()
    }

    /// Whether the store holds a secret for `key`, without a copy of it.
    pub fn has(&self, key: impl Into<Secret>) -> bool {
        self.0.map.lock().is_ok_and(|m| m.contains_key(&key.into()))
    }

    /// Drops a secret that did not open what it was for.
    pub fn forget(&self, key: impl Into<Secret>) {
        if let Ok(mut m) = self.0.map.lock() {
            m.remove(&key.into());
        }
    }

    /// Drops `wrong`, the secret a host tried that did not open what it was
    /// for, unless another has replaced it since: hosts that share an
    /// identity file try a typed passphrase each on its own, and a slow
    /// one failing with the first, wrong one would otherwise drop the
    /// right one typed after it, leaving the others asking for ever.
    pub fn forget_if(&self, key: impl Into<Secret>, wrong: &str) {
        if let Ok(mut m) = self.0.map.lock() {
            let key = key.into();
            if m.get(&key).is_some_and(|s| s.as_str() == wrong) {
                m.remove(&key);
            }
        }
    }

    /// Returns once the store holds a passphrase for `identity`.
    async fn wait_for(&self, identity: &Path) {
        let mut rx = self.0.changed.subscribe();
        while !self.has(identity) {
            if rx.changed().await.is_err() {
                return;
            }
        }
    }
}

/// How strata reaches its hosts over SSH; shared by every host's task.
#[derive(Debug, Clone)]
pub struct SshOptions {
    pub interval: Duration,
    pub known_hosts: PathBuf,
    /// OpenSSH's StrictHostKeyChecking=accept-new: learn a host that
    /// known_hosts does not name at all; a changed key is still refused.
    pub accept_new_host_keys: bool,
    /// For the TCP connection, then again for the SSH handshake.
    pub connect_timeout: Duration,
    /// The side command's period where its job names none (cellcli's on
    /// cells).
    pub side_every: Duration,
    pub passphrases: PassphraseStore,
    /// false in batch mode: an encrypted identity is refused with a
    /// message instead of a NeedsPassphrase status.
    pub interactive: bool,
    /// The ssh-agent socket; `new` takes SSH_AUTH_SOCK.
    pub agent_socket: Option<PathBuf>,
    /// First wait before reconnecting; doubled per failure up to
    /// `backoff_cap`, each wait drawn between half and all of it.
    pub backoff_first: Duration,
    pub backoff_cap: Duration,
    /// Appended to the sampler's marker on the host (`strata-sampler-TAG`).
    pub sampler_tag: String,
}

impl SshOptions {
    /// Defaults for everything but the interval and known_hosts.
    pub fn new(interval: Duration, known_hosts: PathBuf) -> Self {
        SshOptions {
            interval,
            known_hosts,
            accept_new_host_keys: false,
            connect_timeout: Duration::from_secs(5),
            side_every: Duration::from_secs(60),
            passphrases: PassphraseStore::default(),
            interactive: true,
            agent_socket: std::env::var_os("SSH_AUTH_SOCK")
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
            backoff_first: Duration::from_secs(1),
            backoff_cap: Duration::from_secs(30),
            sampler_tag: String::new(),
        }
    }
}

/// ~/.ssh/known_hosts, when HOME is set.
pub fn default_known_hosts() -> Option<PathBuf> {
    home_ssh("known_hosts")
}

fn home_ssh(name: &str) -> Option<PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".ssh").join(name))
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum HostStatus {
    Connecting,
    /// Samples are arriving.
    Live,
    AuthFailed(LoginError),
    HostKeyRefused(HostKeyError),
    /// No connection, a handshake that never completed, a connection lost
    /// or a host silent for too long.
    Unreachable(Unreachable),
    /// An encrypted identity file whose passphrase the store lacks; the
    /// host retries once `PassphraseStore::insert` gives it.
    NeedsPassphrase(PathBuf),
}

impl fmt::Display for HostStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostStatus::Connecting => write!(f, "connecting"),
            HostStatus::Live => write!(f, "live"),
            HostStatus::AuthFailed(w) => write!(f, "login refused: {w}"),
            HostStatus::HostKeyRefused(w) => write!(f, "host key refused: {w}"),
            HostStatus::Unreachable(w) => write!(f, "{w}"),
            HostStatus::NeedsPassphrase(p) => write!(
                f,
                "identity file {} is encrypted and its passphrase is not known (ssh-agent, or the prompt on the screen)",
                p.display()
            ),
        }
    }
}

/// What a host's task tells the app; cells and nodes each have their own
/// event type (a cell's is recorded as it was before nodes existed).
pub trait HostEvent: Send + 'static {
    /// What a sample frame becomes.
    type Sample: Send + 'static;
    fn status(host: usize, status: HostStatus) -> Self;
    fn rtt(host: usize, rtt: Duration) -> Self;
    fn sample(host: usize, sample: Self::Sample) -> Self;
    /// The stdout of the side command ([`Protocol::side`]).
    fn side(host: usize, text: String) -> Self;
    fn stderr(host: usize, text: String) -> Self;
}

/// A command run now and then on a channel of its own, so that however
/// long it takes no sample waits for it: cellcli on a cell, fincore on a
/// node.
#[derive(Debug, Clone)]
pub struct SideJob {
    /// Run once per connection first: the job runs only where it exits
    /// 0. `None`: the job runs anyway (it says itself what it lacks).
    pub probe: Option<sampler::Job>,
    /// Its processes' name on the host (`pgrep -f`).
    pub marker: &'static str,
    /// One line of sh: what runs each time, under [`sampler::side`].
    pub body: Cow<'static, str>,
    /// Prefixes what the command writes on stderr ("cellcli: ...").
    pub name: &'static str,
    /// From one start to the next; `None`: the options' `side_every`.
    pub every: Option<Duration>,
    /// How long one run may take before its channel is closed; `None`:
    /// one period.
    pub limit: Option<Duration>,
}

impl SideJob {
    /// What runs each time, ended by the host at `limit` too; `tag`
    /// ends its marker, as the sampler's.
    pub fn job(&self, tag: &str, limit: Duration) -> sampler::Job {
        let sep = if tag.is_empty() { "" } else { "-" };
        sampler::side(&format!("{}{sep}{tag}", self.marker), &self.body, limit)
    }
}

/// What a kind of host runs and makes of its frames: the one thing cells
/// and nodes do differently.
pub trait Protocol: Send + Sync + 'static {
    type Event: HostEvent;
    /// Reads one connection's frames; a new one per connection, so what a
    /// class frame said never outlives its sampler.
    type Decoder: Decoder<Sample = <Self::Event as HostEvent>::Sample>;
    /// The long-lived sampler; `tag` ends its marker.
    fn sampler(&self, tag: &str, idle: std::time::Duration) -> sampler::Job;
    fn decoder(&self) -> Self::Decoder;
    fn side(&self) -> Option<SideJob> {
        None
    }
}

/// One connection's frames into samples.
pub trait Decoder: Send {
    type Sample;
    /// The sample a frame holds, if it holds one; `wall_ms` is its time of
    /// receipt. A class frame updates what later samples carry; what does
    /// not parse is kept for the next sample's rejected lines.
    fn decode(&mut self, frame: Result<Frame, ParseError>, wall_ms: i64) -> Option<Self::Sample>;
}

/// A host's way to the receiver; sending gives up when strata quits.
struct Events<E> {
    host: usize,
    tx: mpsc::Sender<E>,
    cancel: CancellationToken,
}

impl<E> Clone for Events<E> {
    fn clone(&self) -> Self {
        Events {
            host: self.host,
            tx: self.tx.clone(),
            cancel: self.cancel.clone(),
        }
    }
}

impl<E: HostEvent> Events<E> {
    /// false once the receiver is gone or strata quits.
    async fn send(&self, ev: E) -> bool {
        tokio::select! {
            biased;
            _ = self.cancel.cancelled() => false,
            r = self.tx.send(ev) => r.is_ok(),
        }
    }

    /// Whatever a message holds of the peer's (its stderr, a frame it
    /// sent) goes out printable, to the screen and to batch's stderr.
    async fn stderr(&self, text: String) -> bool {
        let text = match crate::core::text::printable(&text) {
            std::borrow::Cow::Borrowed(_) => text,
            clean => clean.into_owned(),
        };
        self.send(E::stderr(self.host, text)).await
    }
}

/// Sends a status only when it differs from the last one sent, so that
/// retries do not make a row flicker.
struct Reporter<E> {
    ev: Events<E>,
    last: Option<HostStatus>,
}

impl<E: HostEvent> Reporter<E> {
    async fn status(&mut self, status: HostStatus) -> bool {
        if self.last.as_ref() == Some(&status) {
            return true;
        }
        self.last = Some(status.clone());
        self.ev.send(E::status(self.ev.host, status)).await
    }
}

/// The wait before reconnect attempt `failures` (1 for the first): the
/// doubled base, capped, then drawn between half and all of it so that
/// cells dropped together do not come back together.
pub fn backoff(failures: u32, first: Duration, cap: Duration, random: u64) -> Duration {
    let doubled = first
        .checked_mul(1u32 << failures.saturating_sub(1).min(20))
        .unwrap_or(cap);
    let d = doubled.min(cap);
    let half = d / 2;
    let spread = (d - half).as_micros() as u64;
    let jitter = if spread == 0 {
        0
    } else {
        random % (spread + 1)
    };
    half + Duration::from_micros(jitter)
}

/// xorshift64: enough to spread reconnects.
fn next_random(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    x
}

/// Keeps one host connected and streaming until `cancel` fires or the
/// receiver is dropped. Every failure is a status; after one the host
/// reconnects by itself. `host` is the host's index in the app's list.
pub async fn run_host<P: Protocol>(
    host: usize,
    target: SshTarget,
    opts: Arc<SshOptions>,
    proto: Arc<P>,
    tx: mpsc::Sender<P::Event>,
    cancel: CancellationToken,
) {
    let mut rep = Reporter {
        ev: Events {
            host,
            tx,
            cancel: cancel.clone(),
        },
        last: None,
    };
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut rng = (seed ^ (host as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1;
    let mut failures: u32 = 0;
    if !rep.status(HostStatus::Connecting).await {
        return;
    }
    loop {
        match session::run(&target, &opts, &*proto, &mut rep).await {
            session::End::Quit => return,
            session::End::NeedsPassphrase(path) => {
                // Asked again after a wrong passphrase: the TUI must see it
                // even though the status is the same.
                rep.last = None;
                if !rep.status(HostStatus::NeedsPassphrase(path.clone())).await {
                    return;
                }
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = opts.passphrases.wait_for(&path) => {}
                }
                // A typed passphrase is tried at once, not after a backoff.
                continue;
            }
            session::End::Lost { status, was_live } => {
                if was_live {
                    failures = 0;
                }
                // A refused key or login fails the same way until someone
                // edits a file: retry at the slowest pace, so that a host's
                // auth log does not fill with strata's attempts.
                if matches!(
                    status,
                    HostStatus::AuthFailed(_) | HostStatus::HostKeyRefused(_)
                ) {
                    failures = u32::MAX - 1;
                }
                if !rep.status(status).await {
                    return;
                }
            }
        }
        failures = failures.saturating_add(1);
        let wait = backoff(
            failures,
            opts.backoff_first,
            opts.backoff_cap,
            next_random(&mut rng),
        );
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host that failed with a wrong passphrase after the right one was
    /// typed leaves the right one for the others.
    #[test]
    fn a_wrong_passphrase_is_forgotten_only_while_it_is_the_one_kept() {
        let store = PassphraseStore::new();
        store.insert("/k", "wrong");
        store.insert("/k", "right");
        store.forget_if("/k", "wrong");
        assert_eq!(
            store.get("/k").as_deref().map(String::as_str),
            Some("right")
        );
        store.forget_if("/k", "right");
        assert!(!store.has("/k"));
        store.forget_if("/k", "right");
        assert!(!store.has("/k"));
    }

    #[test]
    fn backoff_doubles_within_half_and_all_and_stops_at_the_cap() {
        let (first, cap) = (Duration::from_secs(1), Duration::from_secs(30));
        for r in [0u64, 1, 12345, u64::MAX] {
            // attempt n waits between 2^(n-1)/2 and 2^(n-1) seconds, at most 30 s
            for (n, lo, hi) in [
                (1, 500, 1000),
                (2, 1000, 2000),
                (5, 8000, 16000),
                (6, 15000, 30000),
            ] {
                let d = backoff(n, first, cap, r).as_millis();
                assert!((lo..=hi).contains(&d), "attempt {n} random {r}: {d} ms");
            }
            let d = backoff(u32::MAX, first, cap, r).as_millis();
            assert!((15000..=30000).contains(&d), "{d}");
        }
        assert_eq!(backoff(3, Duration::ZERO, cap, 7), Duration::ZERO);
    }

    #[tokio::test]
    async fn a_waiting_cell_wakes_when_its_passphrase_comes() {
        let store = PassphraseStore::new();
        let p = PathBuf::from("/k/id_ed25519");
        let s2 = store.clone();
        let p2 = p.clone();
        let waiter = tokio::spawn(async move { s2.wait_for(&p2).await });
        tokio::task::yield_now().await;
        store.insert("/k/other", "x");
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        store.insert(p.clone(), "secret");
        tokio::time::timeout(Duration::from_secs(2), waiter)
            .await
            .expect("woken")
            .expect("joined");
        assert_eq!(store.get(&p).as_deref().map(String::as_str), Some("secret"));
        assert!(!format!("{store:?}").contains("secret"));
    }
}

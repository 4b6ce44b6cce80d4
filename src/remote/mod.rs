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

pub mod hostkey;

mod auth;
pub use auth::{MAX_IDENTITY_BYTES, agent_keys, decode_identity, identity_files};
mod session;

use crate::core::duration::Interval;
use crate::link::backoff::{backoff, next_random};
use crate::link::{HostEvent, HostStatus, HostTarget, PassphraseStore, Protocol, Transport};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How strata reaches its hosts over SSH; shared by every host's task.
#[derive(Debug, Clone)]
pub struct SshOptions {
    pub interval: Interval,
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
    pub fn new(interval: Interval, known_hosts: PathBuf) -> Self {
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

/// SSH as a [`Transport`]: every host's task shares the options.
#[derive(Debug, Clone)]
pub struct Ssh(pub Arc<SshOptions>);

impl Transport for Ssh {
    fn run_host<P: Protocol>(
        &self,
        host: usize,
        target: HostTarget,
        proto: Arc<P>,
        tx: mpsc::Sender<P::Event>,
        cancel: CancellationToken,
    ) -> impl std::future::Future<Output = ()> + Send {
        run_host(host, target, self.0.clone(), proto, tx, cancel)
    }
}

/// Keeps one host connected and streaming until `cancel` fires or the
/// receiver is dropped. Every failure is a status; after one the host
/// reconnects by itself. `host` is the host's index in the app's list.
pub async fn run_host<P: Protocol>(
    host: usize,
    target: HostTarget,
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

//! Reaching a host, whatever carries it: targets as the user names them,
//! the state of each link and why it is down, the frames a host sends and
//! what a kind of host makes of them ([`Protocol`]), the secrets a link
//! may need, and the [`Transport`] that runs it. SSH (`crate::remote`) is
//! the one transport today; the app, the screen, the config and the
//! recordings know links only through this module.

pub mod backoff;
pub mod error;
pub mod frame;
pub mod sampler;
pub mod secret;
pub mod target;

pub use error::{HostKeyError, LoginError, Unreachable};
pub use secret::{PassphraseStore, Secret};
pub use target::HostTarget;

use crate::core::error::ParseError;
use frame::Frame;
use std::borrow::Cow;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The state of a host's link, as the screen shows it and a recording
/// keeps it. A reason is typed where it is known.
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

/// A way to reach hosts. `run_host` keeps one host connected and streaming
/// the frames of `proto` as events until `cancel` fires or the receiver is
/// dropped; every failure is a status, and the host reconnects by itself.
/// `host` is the host's index in the app's list.
pub trait Transport: Send + Sync + 'static {
    fn run_host<P: Protocol>(
        &self,
        host: usize,
        target: HostTarget,
        proto: Arc<P>,
        tx: mpsc::Sender<P::Event>,
        cancel: CancellationToken,
    ) -> impl std::future::Future<Output = ()> + Send;
}

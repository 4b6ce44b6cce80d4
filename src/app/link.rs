//! How a host reached over SSH (a cell, a database node) stands as the
//! app sees it: one [`Link`] per host, fed by the events its task in
//! `remote` sends (status, keepalive round trip, stderr, samples), and the
//! state its row shows, derived here for cells and nodes alike.

use crate::link::target::{HostTarget, NodeTarget};
use crate::link::{HostKeyError, HostStatus, LoginError, Unreachable};
use std::time::Duration;

/// What a kind of host decides for itself about its link: the only
/// places where cells (reached by an [`HostTarget`]) and nodes (by a
/// [`NodeTarget`]) differ.
pub trait Reach {
    /// The status before its task has said anything.
    fn first_status(&self) -> HostStatus;
    /// What a live host shows before its first sample: live, or stale
    /// (for 0 s), not current.
    const LIVE_BEFORE_SAMPLES: bool;
    /// Whether each sample's time replaces the last one's (samples that
    /// arrive in the order they were taken), or only a newer one does.
    const SAMPLES_IN_ORDER: bool;
}

/// A cell's status turns live as its first sample is decoded, just before
/// the sample arrives (or, after a seek, with its restated status before
/// its next sample): a live cell without a sample is live. Its samples
/// come on one stream, in order.
impl Reach for HostTarget {
    fn first_status(&self) -> HostStatus {
        HostStatus::Connecting
    }
    const LIVE_BEFORE_SAMPLES: bool = true;
    const SAMPLES_IN_ORDER: bool = true;
}

/// The local node is live without a connection: until one of its layers
/// has read, it has no figures and is not current. Its four layers each
/// send their samples (the local node's read on threads of their own), so
/// they may arrive out of order and the newest time stands.
impl Reach for NodeTarget {
    fn first_status(&self) -> HostStatus {
        match self {
            NodeTarget::Local { .. } => HostStatus::Live,
            NodeTarget::Remote(_) => HostStatus::Connecting,
        }
    }
    const LIVE_BEFORE_SAMPLES: bool = false;
    const SAMPLES_IN_ORDER: bool = false;
}

/// One host's connection as its events left it.
#[derive(Debug)]
pub struct Link<T> {
    pub target: T,
    pub status: HostStatus,
    /// SSH round trip of the last keepalive.
    pub rtt: Option<Duration>,
    /// When its latest sample arrived (ms since the epoch, local clock).
    pub last_sample_ms: Option<i64>,
    /// What it last wrote on stderr (a cell's: or why its cellcli listing
    /// could not be read).
    pub message: Option<String>,
}

/// What a host's row says of its connection.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkState<'a> {
    Connecting,
    Live,
    /// Live by its connection, but no sample for this many seconds.
    Stale(u64),
    AuthFailed(&'a LoginError),
    HostKeyRefused(&'a HostKeyError),
    Unreachable(&'a Unreachable),
    /// Waits for the passphrase of this identity file.
    NeedsPassphrase(&'a std::path::Path),
}

impl LinkState<'_> {
    /// The state in the words of the cells' rows and report.
    pub fn label(&self) -> String {
        match self {
            LinkState::Connecting => "connecting".into(),
            LinkState::Live => "live".into(),
            LinkState::Stale(s) => format!("stale for {s} s"),
            LinkState::AuthFailed(_) => "auth failed".into(),
            LinkState::HostKeyRefused(_) => "host key refused".into(),
            LinkState::Unreachable(_) => "unreachable".into(),
            LinkState::NeedsPassphrase(_) => "needs passphrase".into(),
        }
    }

    /// The reason the transport gave, for the detail line.
    pub fn reason(&self) -> Option<String> {
        match self {
            LinkState::AuthFailed(r) => Some(r.to_string()),
            LinkState::HostKeyRefused(r) => Some(r.to_string()),
            LinkState::Unreachable(r) => Some(r.to_string()),
            _ => None,
        }
    }

    pub fn is_live(&self) -> bool {
        *self == LinkState::Live
    }
}

impl<T> Link<T> {
    /// Why the figures of a host that had some are not current in `state`
    /// at `now_ms`, in a sentence a view says instead of them: since when
    /// it is silent, or its status and how old its last sample is. `None`
    /// when they are current, or for a host that never sampled.
    pub fn not_current(&self, state: &LinkState, now_ms: i64) -> Option<String> {
        let at = self.last_sample_ms?;
        let age = ((now_ms - at) / 1000).max(0);
        Some(match state {
            LinkState::Live => return None,
            LinkState::Stale(s) => format!("no sample for {s} s (stale after two intervals)"),
            _ => format!("{} · last sample {age} s ago", self.status),
        })
    }
}

/// `reason` said of the host labelled `label`: the reason alone when it
/// already starts with the label (the transport's errors start with the
/// host as `host:port`, which is the label of a host given so), else the
/// label before it, so that the host is named once.
pub fn named_reason(label: &str, reason: &str) -> String {
    let named = reason
        .strip_prefix(label)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', ' ']));
    if named {
        reason.to_string()
    } else {
        format!("{label}: {reason}")
    }
}

/// `reason` where the label is already said (a row led by it): without
/// a leading `label: `.
pub fn reason_after_label<'a>(label: &str, reason: &'a str) -> &'a str {
    reason
        .strip_prefix(label)
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(reason)
}

impl<T: Reach> Link<T> {
    pub fn new(target: T) -> Link<T> {
        Link {
            status: target.first_status(),
            target,
            rtt: None,
            last_sample_ms: None,
            message: None,
        }
    }

    /// A sample taken at `at` (local wall clock) arrived.
    pub fn sampled(&mut self, at: i64) {
        self.last_sample_ms = if T::SAMPLES_IN_ORDER {
            Some(at)
        } else {
            self.last_sample_ms.max(Some(at))
        };
    }

    /// The connection as the row shows it at `now_ms`: a host whose
    /// samples stopped for two intervals is stale even while its
    /// connection still stands.
    pub fn state(&self, now_ms: i64, interval_ms: i64) -> LinkState<'_> {
        match &self.status {
            HostStatus::Connecting => LinkState::Connecting,
            HostStatus::Live => match self.last_sample_ms {
                Some(at) if now_ms - at > 2 * interval_ms => {
                    LinkState::Stale(((now_ms - at) / 1000).max(0) as u64)
                }
                Some(_) => LinkState::Live,
                None if T::LIVE_BEFORE_SAMPLES => LinkState::Live,
                None => LinkState::Stale(0),
            },
            HostStatus::AuthFailed(r) => LinkState::AuthFailed(r),
            HostStatus::HostKeyRefused(r) => LinkState::HostKeyRefused(r),
            HostStatus::Unreachable(r) => LinkState::Unreachable(r),
            HostStatus::NeedsPassphrase(p) => LinkState::NeedsPassphrase(p),
        }
    }

    /// The round trip of its last keepalive while its connection stands:
    /// a host that dropped keeps what its last keepalive measured, which
    /// is no round trip now.
    pub fn current_rtt(&self) -> Option<Duration> {
        self.rtt.filter(|_| self.status == HostStatus::Live)
    }

    /// Live, and sampled within two intervals at `now_ms`: its figures
    /// are current.
    pub fn is_current(&self, now_ms: i64, interval_ms: i64) -> bool {
        self.state(now_ms, interval_ms).is_live()
    }
}

impl<T> Link<T> {
    /// What the host wrote on stderr: kept, trimmed, unless blank; the
    /// text kept, for a caller that prints it.
    pub fn said(&mut self, text: &str) -> Option<&str> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        self.message = Some(text.to_string());
        self.message.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ITV: i64 = 1000;

    fn cell() -> Link<HostTarget> {
        Link::new(HostTarget {
            label: "cel01".into(),
            host: "cel01".into(),
            port: 22,
            user: "celladmin".into(),
            identity: None,
        })
    }

    fn local() -> Link<NodeTarget> {
        Link::new(NodeTarget::Local {
            label: "db01".into(),
        })
    }

    /// Stale once the last sample is more than two intervals old, for
    /// cells and nodes alike; before any sample a live cell is live and
    /// a live node stale for 0 s.
    #[test]
    fn stale_after_two_intervals_and_before_the_first_sample_as_each_kind_says() {
        let mut c = cell();
        assert_eq!(c.state(5_000, ITV), LinkState::Connecting);
        c.status = HostStatus::Live;
        assert_eq!(c.state(5_000, ITV), LinkState::Live);
        let mut n = local();
        assert_eq!(n.status, HostStatus::Live);
        assert_eq!(n.state(5_000, ITV), LinkState::Stale(0));
        assert!(!n.is_current(5_000, ITV));
        c.sampled(1_000);
        n.sampled(1_000);
        for l in [c.state(3_000, ITV), n.state(3_000, ITV)] {
            assert_eq!(l, LinkState::Live);
        }
        for l in [c.state(3_001, ITV), n.state(3_001, ITV)] {
            assert_eq!(l, LinkState::Stale(2));
        }
    }

    /// A cell takes each sample's time; a node keeps the newest of its
    /// layers'.
    #[test]
    fn a_node_keeps_its_newest_sample_time_a_cell_its_last() {
        let (mut c, mut n) = (cell(), local());
        for at in [2_000, 1_500] {
            c.sampled(at);
            n.sampled(at);
        }
        assert_eq!(c.last_sample_ms, Some(1_500));
        assert_eq!(n.last_sample_ms, Some(2_000));
    }

    /// The transport's reasons start with the host: a host labelled by
    /// its `host:port` is named once, one labelled otherwise by both.
    #[test]
    fn a_reason_names_its_host_once() {
        let why = "10.0.0.5:22: Connection refused (os error 111)";
        assert_eq!(named_reason("10.0.0.5:22", why), why);
        assert_eq!(named_reason("10.0.0.5", why), why);
        assert_eq!(named_reason("cel01", why), format!("cel01: {why}"));
        assert_eq!(named_reason("10.0.0.", why), format!("10.0.0.: {why}"));
        assert_eq!(
            reason_after_label("10.0.0.5:22", why),
            "Connection refused (os error 111)"
        );
        assert_eq!(reason_after_label("cel01", why), why);
    }

    /// A cell that went down keeps its last keepalive's round trip, which
    /// is no longer current.
    #[test]
    fn a_host_not_current_has_no_round_trip() {
        let mut c = cell();
        c.status = HostStatus::Live;
        c.rtt = Some(Duration::from_micros(410));
        assert_eq!(c.current_rtt(), c.rtt);
        c.status = HostStatus::Unreachable(Unreachable::ConnectionLost {
            host: "cel01".into(),
        });
        assert_eq!(c.current_rtt(), None);
    }

    #[test]
    fn blank_stderr_leaves_the_message() {
        let mut c = cell();
        assert_eq!(c.said(" sdb: medium error\n"), Some("sdb: medium error"));
        assert_eq!(c.said("  \n"), None);
        assert_eq!(c.message.as_deref(), Some("sdb: medium error"));
    }
}

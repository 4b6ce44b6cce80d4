//! One connection to a host, from TCP connect to the end of its stream.

use super::auth::{self, AuthEnd};
use super::hostkey;
use super::{Events, Reporter, SshOptions};
use crate::core::boundary;
use crate::core::clock::now_ms;
use crate::core::error::kind_name;
use crate::link::error::{self, HostKeyError, LoginError, Unreachable, secs};
use crate::link::frame::FrameReader;
use crate::link::sampler::{Job, idle_for};
use crate::link::{Decoder, HostEvent, HostStatus, HostTarget, Protocol, SideJob};
use russh::ChannelMsg;
use russh::client::{self, Handle};
use russh::keys::PublicKeyOrCertificate;
use russh::{ChannelReadHalf, ChannelWriteHalf};
use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;
use tokio::time::timeout;
use tokio_util::sync::CancellationToken;

pub(super) enum End {
    /// strata quits, or nobody listens any more.
    Quit,
    Lost {
        status: HostStatus,
        was_live: bool,
    },
    NeedsPassphrase(PathBuf),
}

fn lost(status: HostStatus) -> End {
    End::Lost {
        status,
        was_live: false,
    }
}

#[derive(Debug)]
pub(super) enum SshError {
    Ssh(russh::Error),
    HostKey(HostKeyError),
}

impl From<russh::Error> for SshError {
    fn from(e: russh::Error) -> Self {
        SshError::Ssh(e)
    }
}

pub(super) struct HostHandler {
    host: String,
    port: u16,
    known_hosts: PathBuf,
    accept_new: bool,
}

impl client::Handler for HostHandler {
    type Error = SshError;

    async fn check_server_key(&mut self, key: &PublicKeyOrCertificate) -> Result<bool, SshError> {
        let PublicKeyOrCertificate::PublicKey { key, .. } = key else {
            return Err(SshError::HostKey(HostKeyError::Certificate {
                host: self.host.clone(),
                port: self.port,
            }));
        };
        let (path, host, port, accept, key) = (
            self.known_hosts.clone(),
            self.host.clone(),
            self.port,
            self.accept_new,
            key.clone(),
        );
        let checked =
            tokio::task::spawn_blocking(move || hostkey::verify(&path, &host, port, &key, accept))
                .await;
        match checked {
            Ok(Ok(())) => Ok(true),
            Ok(Err(reason)) => Err(SshError::HostKey(*reason)),
            Err(e) => Err(SshError::HostKey(HostKeyError::CheckFailed {
                message: e.to_string(),
            })),
        }
    }
}

/// The wait for a frame before the host counts as lost: two intervals
/// and a second of slack for a loaded host.
fn stall_after(interval: Duration) -> Duration {
    interval.saturating_mul(2) + Duration::from_secs(1)
}

async fn connect(
    target: &HostTarget,
    opts: &SshOptions,
) -> Result<Handle<HostHandler>, HostStatus> {
    let at = format!("{}:{}", target.host, target.port);
    let t = opts.connect_timeout;
    let tcp = match timeout(
        t,
        tokio::net::TcpStream::connect((target.host.as_str(), target.port)),
    )
    .await
    {
        Err(_) => {
            return Err(HostStatus::Unreachable(Unreachable::ConnectTimedOut {
                at,
                after: t,
            }));
        }
        Ok(Err(e)) => {
            return Err(HostStatus::Unreachable(Unreachable::Connect {
                at,
                kind: kind_name(e.kind()),
                message: e.to_string(),
            }));
        }
        Ok(Ok(s)) => s,
    };
    // Best effort: samples are small and should not wait for Nagle.
    let _ = tcp.set_nodelay(true);
    // Read here only to order the host key types; the check proper reads
    // the file again when the key arrives. A missing file knows nothing.
    let known = hostkey::read_known_hosts(&opts.known_hosts).unwrap_or_default();
    let default = russh::Preferred::DEFAULT;
    let key = hostkey::prefer_known(
        &default.key,
        &hostkey::known_algorithms(&known, &target.host, target.port),
    );
    let config = Arc::new(client::Config {
        preferred: russh::Preferred {
            key: Cow::Owned(key),
            // A node's frame is tens of kB of /proc text a second, which
            // zlib makes a few kB; OpenSSH's sshd offers only the delayed
            // zlib@openssh.com (after login), and none.
            compression: Cow::Borrowed(&[
                russh::compression::ZLIB_LEGACY,
                russh::compression::ZLIB,
                russh::compression::NONE,
            ]),
            ..default
        },
        keepalive_interval: Some(Duration::from_secs(15)),
        keepalive_max: 3,
        nodelay: true,
        ..Default::default()
    });
    let handler = HostHandler {
        host: target.host.clone(),
        port: target.port,
        known_hosts: opts.known_hosts.clone(),
        accept_new: opts.accept_new_host_keys,
    };
    match timeout(t, client::connect_stream(config, tcp, handler)).await {
        Err(_) => Err(HostStatus::Unreachable(Unreachable::HandshakeTimedOut {
            at,
            after: t,
        })),
        Ok(Err(SshError::HostKey(reason))) => Err(HostStatus::HostKeyRefused(reason)),
        Ok(Err(SshError::Ssh(e))) => Err(HostStatus::Unreachable(Unreachable::Handshake {
            at,
            message: e.to_string(),
        })),
        Ok(Ok(h)) => Ok(h),
    }
}

/// Connects, logs in and streams until the connection ends.
pub(super) async fn run<P: Protocol>(
    target: &HostTarget,
    opts: &SshOptions,
    proto: &P,
    rep: &mut Reporter<P::Event>,
) -> End {
    match log_in(target, opts, &rep.ev).await {
        Ok(handle) => stream(Arc::new(handle), target, opts, proto, rep).await,
        Err(end) => end,
    }
}

/// Connects and logs in; how the connection ended when it got no further.
async fn log_in<E: HostEvent>(
    target: &HostTarget,
    opts: &SshOptions,
    ev: &Events<E>,
) -> Result<Handle<HostHandler>, End> {
    let cancel = &ev.cancel;
    let connected = tokio::select! {
        _ = cancel.cancelled() => return Err(End::Quit),
        c = connect(target, opts) => c,
    };
    let mut handle = connected.map_err(lost)?;
    // Several round trips, and an agent may be slow to sign.
    let auth_time = opts.connect_timeout.saturating_mul(3);
    let authed = tokio::select! {
        _ = cancel.cancelled() => return Err(End::Quit),
        a = timeout(auth_time, auth::authenticate(&mut handle, target, opts)) => a,
    };
    match authed {
        Ok(Ok(())) => Ok(handle),
        Err(_) => Err(lost(HostStatus::Unreachable(Unreachable::LoginTimedOut {
            host: target.label.clone(),
            after: auth_time,
        }))),
        Ok(Err(AuthEnd::Failed(why))) => Err(lost(HostStatus::AuthFailed(why))),
        Ok(Err(AuthEnd::Lost(why))) => {
            Err(lost(HostStatus::Unreachable(Unreachable::LostInLogin {
                host: target.label.clone(),
                message: why,
            })))
        }
        Ok(Err(AuthEnd::NeedsPassphrase(path))) => Err(End::NeedsPassphrase(path)),
        Ok(Err(AuthEnd::WrongPassphrase(path))) => {
            let refused = LoginError::WrongPassphrase {
                identity: path.clone(),
            };
            if !opts.interactive {
                return Err(lost(HostStatus::AuthFailed(refused)));
            }
            if !ev.stderr(refused.to_string()).await {
                return Err(End::Quit);
            }
            Err(End::NeedsPassphrase(path))
        }
    }
}

/// stderr text is cut to this before it becomes an event.
const MAX_STDERR_EVENT: usize = 2048;

/// A peer's stderr as printable text of at most `max` bytes.
fn cut(text: &[u8], max: usize) -> String {
    crate::core::text::printable_bytes(text, max)
}

/// How many stderr messages a host may print per [`STDERR_WINDOW`]: a
/// sampler that floods its stderr (53 MB were seen) would otherwise fill
/// the user's terminal or log, and hide every other host's messages.
const STDERR_PER_WINDOW: u32 = 10;
const STDERR_WINDOW: Duration = Duration::from_secs(10);

/// What of a host's stderr is printed: [`STDERR_PER_WINDOW`] messages a
/// window, and of the rest how much there was, said once the window ends.
struct StderrBudget {
    since: Instant,
    said: u32,
    dropped_messages: u64,
    dropped_bytes: u64,
}

impl StderrBudget {
    fn new(now: Instant) -> Self {
        StderrBudget {
            since: now,
            said: 0,
            dropped_messages: 0,
            dropped_bytes: 0,
        }
    }

    /// At `now`, a new window if the last one is over, with what it left
    /// out to say, if anything; `force` ends the window anyway (the
    /// stream ends).
    fn roll(&mut self, now: Instant, force: bool) -> Option<String> {
        if !force && now.duration_since(self.since) < STDERR_WINDOW {
            return None;
        }
        let note = (self.dropped_messages > 0).then(|| {
            format!(
                "{} more stderr messages ({} bytes) not shown: at most {STDERR_PER_WINDOW} every {} s",
                self.dropped_messages,
                self.dropped_bytes,
                STDERR_WINDOW.as_secs()
            )
        });
        *self = StderrBudget::new(now);
        note
    }

    /// Whether a message of `len` bytes is printed; counted as left out
    /// if not.
    fn admit(&mut self, len: usize) -> bool {
        if self.said < STDERR_PER_WINDOW {
            self.said += 1;
            return true;
        }
        self.dropped_messages += 1;
        self.dropped_bytes = self.dropped_bytes.saturating_add(len as u64);
        false
    }
}

/// The sampler's stderr: what of it is printed, and its last
/// [`MAX_STDERR_EVENT`] bytes for the reason it ended.
struct Stderr {
    tail: Vec<u8>,
    budget: StderrBudget,
}

impl Stderr {
    fn new() -> Self {
        Stderr {
            tail: Vec::new(),
            budget: StderrBudget::new(Instant::now()),
        }
    }

    /// The sampler wrote `data`; false when strata quits.
    async fn said<E: HostEvent>(&mut self, ev: &Events<E>, data: &[u8]) -> bool {
        self.tail.extend_from_slice(data);
        let over = self.tail.len().saturating_sub(MAX_STDERR_EVENT);
        self.tail.drain(..over);
        let note = self.budget.roll(Instant::now(), false);
        let text = self
            .budget
            .admit(data.len())
            .then(|| cut(data, MAX_STDERR_EVENT));
        for t in note.into_iter().chain(text) {
            if !ev.stderr(t).await {
                return false;
            }
        }
        true
    }

    /// The channel closed: what was left out is said now.
    async fn ends<E: HostEvent>(&mut self, ev: &Events<E>) -> bool {
        match self.budget.roll(Instant::now(), true) {
            Some(note) => ev.stderr(note).await,
            None => true,
        }
    }
}

/// Opens the sampler's channel and starts the sampler in it.
async fn open_sampler(
    handle: &Handle<HostHandler>,
    job: &Job,
    target: &HostTarget,
    opts: &SshOptions,
    cancel: &CancellationToken,
) -> Result<(ChannelReadHalf, ChannelWriteHalf<client::Msg>), End> {
    let opened = tokio::select! {
        _ = cancel.cancelled() => return Err(End::Quit),
        o = timeout(opts.connect_timeout, async {
            let ch = handle.channel_open_session().await?;
            ch.exec(true, job.command_line()).await?;
            ch.data_bytes(job.input()).await?;
            Ok::<_, russh::Error>(ch)
        }) => o,
    };
    match opened {
        Ok(Ok(ch)) => Ok(ch.split()),
        Ok(Err(e)) => Err(lost(HostStatus::Unreachable(
            Unreachable::SamplerNotStarted {
                host: target.label.clone(),
                message: e.to_string(),
            },
        ))),
        Err(_) => Err(lost(HostStatus::Unreachable(
            Unreachable::SamplerTimedOut {
                host: target.label.clone(),
                after: opts.connect_timeout,
            },
        ))),
    }
}

async fn stream<P: Protocol>(
    handle: Arc<Handle<HostHandler>>,
    target: &HostTarget,
    opts: &SshOptions,
    proto: &P,
    rep: &mut Reporter<P::Event>,
) -> End {
    let cancel = rep.ev.cancel.clone();
    let job = proto.sampler(&opts.sampler_tag, idle_for(opts.interval.duration()));
    let (mut ch, writer) = match open_sampler(&handle, &job, target, opts, &cancel).await {
        Ok(halves) => halves,
        Err(end) => return end,
    };
    // Dropped with this function: aborts the pings and side commands.
    let _helpers = spawn_helpers(&handle, &rep.ev, opts, proto.side());
    let mut reader = FrameReader::new();
    let mut decoder = proto.decoder();
    let mut live = false;
    let stall = stall_after(opts.interval.duration());
    // The first frame also waits for the class block to be gathered.
    let mut deadline = tokio::time::Instant::now() + stall + opts.connect_timeout;
    let mut last_frame = Instant::now();
    let mut exit_status: Option<u32> = None;
    let mut stderr = Stderr::new();
    let gone = |why, was_live| End::Lost {
        status: HostStatus::Unreachable(why),
        was_live,
    };
    // The sampler takes its first sample unasked, for a baseline; the next
    // ones are asked for at the shared boundaries. One request at a time: a
    // host slow to answer (the class block, a loaded host) would otherwise
    // serve a backlog of requests back to back, off the boundaries. A
    // frame nobody asked for is dropped and counted, never a sample.
    let mut tick = tokio::time::Instant::now();
    let mut asked = true;
    let mut unasked = Unasked::default();
    loop {
        let msg = tokio::select! {
            _ = cancel.cancelled() => return quit(&writer, &handle).await,
            _ = tokio::time::sleep_until(tick), if !asked => {
                // A host that stops reading is caught by the stall deadline;
                // the wait here only keeps a full window from holding the loop.
                let sent = timeout(stall, writer.data_bytes(&b"\n"[..])).await;
                if !matches!(sent, Ok(Ok(()))) {
                    let host = target.label.clone();
                    return gone(Unreachable::CannotAsk { host }, live);
                }
                asked = true;
                tick = boundary::next(opts.interval.duration());
                continue;
            }
            _ = tokio::time::sleep_until(deadline) => {
                let (host, after) = (target.label.clone(), error::tenths(last_frame.elapsed()));
                return gone(Unreachable::Silent { host, after }, live);
            }
            m = ch.wait() => m,
        };
        match msg {
            None => {
                let host = target.label.clone();
                return gone(Unreachable::ConnectionLost { host }, live);
            }
            Some(ChannelMsg::Data { data }) => {
                for frame in reader.push(&data) {
                    if !asked {
                        if let Some(said) = unasked.drop_one()
                            && !rep.ev.stderr(said).await
                        {
                            return End::Quit;
                        }
                        continue;
                    }
                    // A broken frame answers the request all the same.
                    if let Err(e) = &frame {
                        asked = false;
                        if !say_broken(&rep.ev, e).await {
                            return End::Quit;
                        }
                    }
                    let Some(sample) = decoder.decode(frame, now_ms()) else {
                        continue;
                    };
                    last_frame = Instant::now();
                    asked = false;
                    if tick <= tokio::time::Instant::now() {
                        tick = boundary::next(opts.interval.duration());
                    }
                    deadline = tokio::time::Instant::now() + stall;
                    if !live {
                        live = true;
                        if !rep.status(HostStatus::Live).await {
                            return End::Quit;
                        }
                    }
                    if !rep.ev.send(P::Event::sample(rep.ev.host, sample)).await {
                        return End::Quit;
                    }
                }
            }
            Some(ChannelMsg::ExtendedData { data, .. }) => {
                if !stderr.said(&rep.ev, &data).await {
                    return End::Quit;
                }
            }
            Some(ChannelMsg::ExitStatus { exit_status: s }) => exit_status = Some(s),
            Some(ChannelMsg::Close) => {
                if !stderr.ends(&rep.ev).await {
                    return End::Quit;
                }
                return gone(sampler_ended(target, exit_status, &stderr.tail), live);
            }
            Some(_) => {}
        }
    }
}

/// Ends a connection when strata quits. Best effort: the sampler ends
/// with its stdin anyway.
async fn quit(writer: &ChannelWriteHalf<client::Msg>, handle: &Handle<HostHandler>) -> End {
    let _ = timeout(Duration::from_millis(200), async {
        let _ = writer.close().await;
        let _ = handle
            .disconnect(russh::Disconnect::ByApplication, "strata quits", "")
            .await;
    })
    .await;
    End::Quit
}

/// Frames a host sent that strata had not asked for: a sampler answers
/// one request with one sample (after a class frame when its devices
/// changed), so more is a hostile or broken host, whose flood must cost
/// neither samples nor a recording's room.
#[derive(Default)]
struct Unasked {
    dropped: u64,
    said: Option<Instant>,
}

impl Unasked {
    /// Counts one; what to tell the user, at most once a second.
    fn drop_one(&mut self) -> Option<String> {
        self.dropped += 1;
        if self
            .said
            .is_some_and(|t| t.elapsed() < Duration::from_secs(1))
        {
            return None;
        }
        self.said = Some(Instant::now());
        let n = self.dropped;
        let frames = if n == 1 { "frame" } else { "frames" };
        Some(format!("{n} unrequested {frames} dropped"))
    }
}

/// Why a frame gave nothing, for the user (the next boundary asks
/// again); false when strata quits.
async fn say_broken<E: HostEvent>(ev: &Events<E>, e: &crate::core::error::ParseError) -> bool {
    ev.stderr(format!("a frame was not understood: {e}")).await
}

/// The round trips, and the side job where the protocol has one.
fn spawn_helpers<E: HostEvent>(
    handle: &Arc<Handle<HostHandler>>,
    ev: &Events<E>,
    opts: &SshOptions,
    side: Option<SideJob>,
) -> JoinSet<()> {
    let mut helpers = JoinSet::new();
    helpers.spawn(rtt_loop(
        Arc::clone(handle),
        ev.clone(),
        opts.interval.duration(),
    ));
    if let Some(job) = side {
        let every = job.every.unwrap_or(opts.side_every);
        let run = Run {
            every,
            connect_timeout: opts.connect_timeout,
            tag: opts.sampler_tag.clone(),
        };
        helpers.spawn(side_loop(Arc::clone(handle), ev.clone(), job, run));
    }
    helpers
}

/// Why a host is lost when its sampler's channel closes: its exit status
/// and the last of what it said on stderr.
fn sampler_ended(target: &HostTarget, exit_status: Option<u32>, stderr_tail: &[u8]) -> Unreachable {
    Unreachable::SamplerEnded {
        host: target.label.clone(),
        status: exit_status,
        stderr: cut(stderr_tail, MAX_STDERR_EVENT),
    }
}

/// Round trips of keepalive requests: at once, then every interval (at
/// least a second apart).
async fn rtt_loop<E: HostEvent>(
    handle: Arc<Handle<HostHandler>>,
    ev: Events<E>,
    interval: Duration,
) {
    let every = interval.max(Duration::from_secs(1));
    loop {
        let t = Instant::now();
        // send_ping returns Ok at once when the session is gone.
        if let Ok(Ok(())) = timeout(every, handle.send_ping()).await {
            if handle.is_closed() {
                return;
            }
            if !ev.send(E::rtt(ev.host, t.elapsed())).await {
                return;
            }
        }
        tokio::time::sleep(every.saturating_sub(t.elapsed())).await;
    }
}

/// What a command printed, each stream cut at a bound.
struct Output {
    status: Option<u32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

const MAX_SIDE_BYTES: usize = 8 * 1024 * 1024;

/// Runs a command on its own channel and collects what it prints, for at
/// most `limit` (the channel is then closed; the command is the host's).
async fn exec_collect(
    handle: &Handle<HostHandler>,
    job: &Job,
    limit: Duration,
) -> Result<Output, String> {
    let mut ch = timeout(limit, handle.channel_open_session())
        .await
        .map_err(|_| format!("no channel within {}", secs(limit)))?
        .map_err(|e| e.to_string())?;
    let mut out = Output {
        status: None,
        stdout: Vec::new(),
        stderr: Vec::new(),
    };
    let read = timeout(limit, async {
        ch.exec(true, job.command_line())
            .await
            .map_err(|e| e.to_string())?;
        // stdin stays open: its end is what ends a side job on the host.
        ch.data_bytes(job.input())
            .await
            .map_err(|e| e.to_string())?;
        while let Some(msg) = ch.wait().await {
            match msg {
                ChannelMsg::Data { data } => {
                    let room = MAX_SIDE_BYTES.saturating_sub(out.stdout.len());
                    out.stdout.extend_from_slice(&data[..data.len().min(room)]);
                }
                ChannelMsg::ExtendedData { data, .. } => {
                    let room = MAX_STDERR_EVENT.saturating_sub(out.stderr.len());
                    out.stderr.extend_from_slice(&data[..data.len().min(room)]);
                }
                ChannelMsg::ExitStatus { exit_status } => out.status = Some(exit_status),
                ChannelMsg::Close => break,
                _ => {}
            }
        }
        Ok::<(), String>(())
    })
    .await;
    match read {
        Ok(r) => r.map(|()| out),
        Err(_) => {
            let _ = ch.close().await;
            Err(format!("no answer within {}", secs(limit)))
        }
    }
}

/// How a side job runs: its period, how long a probe may take, and the
/// tag its marker ends with.
struct Run {
    every: Duration,
    connect_timeout: Duration,
    tag: String,
}

/// Where the host has the side job's command (cellcli on a cell, fincore
/// on a node): its output once per `every`, on a channel of its own so
/// that a slow command never delays a sample. One run at a time: a run
/// longer than `every` is followed at once by the next.
async fn side_loop<E: HostEvent>(
    handle: Arc<Handle<HostHandler>>,
    ev: Events<E>,
    job: SideJob,
    run: Run,
) {
    let Run {
        every,
        connect_timeout,
        tag,
    } = run;
    if let Some(probe) = &job.probe {
        match exec_collect(&handle, probe, connect_timeout).await {
            Ok(out) if out.status == Some(0) => {}
            _ => return,
        }
    }
    let every = every.max(Duration::from_secs(1));
    let limit = job.limit.unwrap_or(every);
    // The host's own end of a run comes after strata's, which closes the
    // channel and so ends the run: a run cut there would give part of its
    // rows as if they were all. The host's is for a connection that died.
    let run = job.job(&tag, limit + Duration::from_secs(5));
    loop {
        let t = Instant::now();
        let said = match exec_collect(&handle, &run, limit).await {
            Ok(out) => {
                if !out.stderr.is_empty()
                    && !ev
                        .stderr(format!(
                            "{}: {}",
                            job.name,
                            cut(&out.stderr, MAX_STDERR_EVENT)
                        ))
                        .await
                {
                    return;
                }
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                text.is_empty() || ev.send(E::side(ev.host, text)).await
            }
            Err(e) => ev.stderr(format!("{}: {e}", job.name)).await,
        };
        if !said {
            return;
        }
        tokio::time::sleep(every.saturating_sub(t.elapsed())).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stderr_flood_prints_ten_messages_a_window_and_says_what_it_left_out() {
        let t0 = Instant::now();
        let mut b = StderrBudget::new(t0);
        let printed = (0..26_000).filter(|_| b.admit(2048)).count();
        assert_eq!(printed, 10);
        assert_eq!(b.roll(t0 + Duration::from_secs(9), false), None);
        assert_eq!(
            b.roll(t0 + STDERR_WINDOW, false).as_deref(),
            Some("25990 more stderr messages (53227520 bytes) not shown: at most 10 every 10 s")
        );
        assert!(b.admit(1));
        assert_eq!(b.roll(t0 + STDERR_WINDOW, true), None);
    }

    #[test]
    fn what_a_peer_prints_reaches_no_terminal_raw() {
        let said = cut(
            b"fatal: \x1b]0;EXITPWN\x07\x1b[2J\xc2\x9b1m\n",
            MAX_STDERR_EVENT,
        );
        assert_eq!(said, "fatal: ?]0;EXITPWN??[2J?1m");
        let ended = sampler_ended(
            &crate::link::target::parse_ssh_spec("db01", "u").unwrap_or_else(|e| panic!("{e}")),
            Some(1),
            b"\x1b[2Jgone",
        );
        assert!(!ended.to_string().contains('\u{1b}'), "{ended}");
    }
}

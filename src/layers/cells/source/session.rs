//! One connection to a cell, from TCP connect to the end of its stream.

use super::auth::{self, AuthEnd};
use super::{CELLCLI_SCRIPT, CellEvent, CellOptions, CellStatus, CellTarget, Events, Reporter};
use super::{catalogue, hostkey, remote};
use crate::core::boundary;
use crate::layers::cells::cell_stream::{
    CellSample, Frame, FrameKind, FrameReader, parse_sample, parse_sys_block,
};
use crate::layers::disks::source::{Catalogue, DiskSample};
use crate::parse::ParseError;
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
        status: CellStatus,
        was_live: bool,
    },
    NeedsPassphrase(PathBuf),
}

fn lost(status: CellStatus) -> End {
    End::Lost {
        status,
        was_live: false,
    }
}

#[derive(Debug)]
pub(super) enum SshError {
    Ssh(russh::Error),
    HostKey(String),
}

impl From<russh::Error> for SshError {
    fn from(e: russh::Error) -> Self {
        SshError::Ssh(e)
    }
}

pub(super) struct CellHandler {
    host: String,
    port: u16,
    known_hosts: PathBuf,
    accept_new: bool,
}

impl client::Handler for CellHandler {
    type Error = SshError;

    async fn check_server_key(&mut self, key: &PublicKeyOrCertificate) -> Result<bool, SshError> {
        let PublicKeyOrCertificate::PublicKey { key, .. } = key else {
            return Err(SshError::HostKey(format!(
                "{} port {} offers a host certificate; strata checks plain host keys only",
                self.host, self.port
            )));
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
            Ok(Err(reason)) => Err(SshError::HostKey(reason)),
            Err(e) => Err(SshError::HostKey(format!("host key check failed: {e}"))),
        }
    }
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// The wait for a frame before the cell counts as lost: two intervals
/// and a second of slack for a loaded cell.
fn stall_after(interval: Duration) -> Duration {
    interval.saturating_mul(2) + Duration::from_secs(1)
}

async fn connect(
    target: &CellTarget,
    opts: &CellOptions,
) -> Result<Handle<CellHandler>, CellStatus> {
    let at = format!("{}:{}", target.host, target.port);
    let t = opts.connect_timeout;
    let tcp = match timeout(
        t,
        tokio::net::TcpStream::connect((target.host.as_str(), target.port)),
    )
    .await
    {
        Err(_) => {
            return Err(CellStatus::Unreachable(format!(
                "{at}: no TCP connection within {}",
                secs(t)
            )));
        }
        Ok(Err(e)) => return Err(CellStatus::Unreachable(format!("{at}: {e}"))),
        Ok(Ok(s)) => s,
    };
    // Best effort: samples are small and should not wait for Nagle.
    let _ = tcp.set_nodelay(true);
    // Read here only to order the host key types; the check proper reads
    // the file again when the key arrives. A missing file knows nothing.
    let known = std::fs::read_to_string(&opts.known_hosts).unwrap_or_default();
    let default = russh::Preferred::DEFAULT;
    let key = hostkey::prefer_known(
        &default.key,
        &hostkey::known_algorithms(&known, &target.host, target.port),
    );
    let config = Arc::new(client::Config {
        preferred: russh::Preferred {
            key: Cow::Owned(key),
            ..default
        },
        keepalive_interval: Some(Duration::from_secs(15)),
        keepalive_max: 3,
        nodelay: true,
        ..Default::default()
    });
    let handler = CellHandler {
        host: target.host.clone(),
        port: target.port,
        known_hosts: opts.known_hosts.clone(),
        accept_new: opts.accept_new_host_keys,
    };
    match timeout(t, client::connect_stream(config, tcp, handler)).await {
        Err(_) => Err(CellStatus::Unreachable(format!(
            "{at} accepted the connection but no SSH handshake completed within {}",
            secs(t)
        ))),
        Ok(Err(SshError::HostKey(reason))) => Err(CellStatus::HostKeyRefused(reason)),
        Ok(Err(SshError::Ssh(e))) => {
            Err(CellStatus::Unreachable(format!("{at}: SSH handshake: {e}")))
        }
        Ok(Ok(h)) => Ok(h),
    }
}

/// Connects, logs in and streams until the connection ends.
pub(super) async fn run(target: &CellTarget, opts: &CellOptions, rep: &mut Reporter) -> End {
    let cancel = rep.ev.cancel.clone();
    let connected = tokio::select! {
        _ = cancel.cancelled() => return End::Quit,
        c = connect(target, opts) => c,
    };
    let mut handle = match connected {
        Ok(h) => h,
        Err(status) => return lost(status),
    };
    // Several round trips, and an agent may be slow to sign.
    let auth_time = opts.connect_timeout.saturating_mul(3);
    let authed = tokio::select! {
        _ = cancel.cancelled() => return End::Quit,
        a = timeout(auth_time, auth::authenticate(&mut handle, target, opts)) => a,
    };
    match authed {
        Ok(Ok(())) => {}
        Err(_) => {
            return lost(CellStatus::Unreachable(format!(
                "{}: no answer to authentication within {}",
                target.label,
                secs(auth_time)
            )));
        }
        Ok(Err(AuthEnd::Failed(why))) => return lost(CellStatus::AuthFailed(why)),
        Ok(Err(AuthEnd::Lost(why))) => {
            return lost(CellStatus::Unreachable(format!("{}: {why}", target.label)));
        }
        Ok(Err(AuthEnd::NeedsPassphrase(path))) => return End::NeedsPassphrase(path),
        Ok(Err(AuthEnd::WrongPassphrase(path))) => {
            let msg = format!("wrong passphrase for identity file {}", path.display());
            if !opts.interactive {
                return lost(CellStatus::AuthFailed(msg));
            }
            if !rep.ev.stderr(msg).await {
                return End::Quit;
            }
            return End::NeedsPassphrase(path);
        }
    }
    stream(Arc::new(handle), target, opts, rep).await
}

/// Frame errors wait for the next sample's `rejected`; a stream of
/// garbage must not grow them without bound.
const MAX_PENDING_REJECTS: usize = 64;

/// stderr text is cut to this before it becomes an event.
const MAX_STDERR_EVENT: usize = 2048;

fn cut(text: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(&text[..text.len().min(max)]);
    s.trim_end().to_string()
}

/// Opens the sampler's channel and starts the sampler in it.
async fn open_sampler(
    handle: &Handle<CellHandler>,
    target: &CellTarget,
    opts: &CellOptions,
    cancel: &CancellationToken,
) -> Result<(ChannelReadHalf, ChannelWriteHalf<client::Msg>), End> {
    let command = remote::sampler_command(&opts.sampler_tag);
    let opened = tokio::select! {
        _ = cancel.cancelled() => return Err(End::Quit),
        o = timeout(opts.connect_timeout, async {
            let ch = handle.channel_open_session().await?;
            ch.exec(true, command).await?;
            Ok::<_, russh::Error>(ch)
        }) => o,
    };
    match opened {
        Ok(Ok(ch)) => Ok(ch.split()),
        Ok(Err(e)) => Err(lost(CellStatus::Unreachable(format!(
            "{}: cannot start the sampler: {e}",
            target.label
        )))),
        Err(_) => Err(lost(CellStatus::Unreachable(format!(
            "{}: the sampler channel did not open within {}",
            target.label,
            secs(opts.connect_timeout)
        )))),
    }
}

/// What the sampler's frames have said that the next sample carries: the
/// disks' catalogue and the lines rejected since the last sample.
#[derive(Default)]
struct Decoded {
    cat: Arc<Catalogue>,
    pending: Vec<ParseError>,
}

impl Decoded {
    /// The sample a frame holds, if it holds one: a class block renews the
    /// catalogue, and what does not parse waits for the next sample.
    fn sample_of(&mut self, frame: Result<Frame, ParseError>) -> Option<CellSample> {
        let frame = match frame {
            Ok(f) => f,
            Err(e) => {
                self.reject(e);
                return None;
            }
        };
        if frame.kind == FrameKind::Classes {
            let p = parse_sys_block(&frame.body, "/sys/block");
            self.cat = Arc::new(catalogue::from_sys_block(&p.items));
            self.pending
                .extend(p.rejected.into_iter().take(MAX_PENDING_REJECTS));
            return None;
        }
        match parse_sample(&frame) {
            Ok(s) => Some(s),
            Err(e) => {
                self.reject(e);
                None
            }
        }
    }

    fn reject(&mut self, e: ParseError) {
        if self.pending.len() < MAX_PENDING_REJECTS {
            self.pending.push(e);
        }
    }

    /// The disk sample of `s`: the catalogue, grown by any disk it lists
    /// that no class block named, and every line rejected since the last.
    fn disk_sample(&mut self, s: CellSample) -> DiskSample {
        if let Some(more) = catalogue::with_unlisted(&self.cat, &s.diskstats.items) {
            self.cat = Arc::new(more);
        }
        let mut rejected = std::mem::take(&mut self.pending);
        rejected.extend(s.diskstats.rejected);
        DiskSample {
            uptime_cs: s.uptime_cs,
            wall_ms: wall_ms(),
            devices: s.diskstats.items,
            rejected,
            catalogue: Arc::clone(&self.cat),
        }
    }
}

async fn stream(
    handle: Arc<Handle<CellHandler>>,
    target: &CellTarget,
    opts: &CellOptions,
    rep: &mut Reporter,
) -> End {
    let cancel = rep.ev.cancel.clone();
    let (mut ch, writer) = match open_sampler(&handle, target, opts, &cancel).await {
        Ok(halves) => halves,
        Err(end) => return end,
    };
    // Dropped with this function: aborts the pings and cellcli runs.
    let mut helpers = JoinSet::new();
    helpers.spawn(rtt_loop(Arc::clone(&handle), rep.ev.clone(), opts.interval));
    helpers.spawn(cellcli_loop(
        Arc::clone(&handle),
        rep.ev.clone(),
        opts.cellcli_every,
        opts.connect_timeout,
    ));
    let mut reader = FrameReader::new();
    let mut decoded = Decoded::default();
    let mut live = false;
    let stall = stall_after(opts.interval);
    // The first frame also waits for the class block to be gathered.
    let mut deadline = tokio::time::Instant::now() + stall + opts.connect_timeout;
    let mut last_frame = Instant::now();
    let mut exit_status: Option<u32> = None;
    let mut stderr_tail: Vec<u8> = Vec::new();
    let gone = |why: String, live: bool| End::Lost {
        status: CellStatus::Unreachable(why),
        was_live: live,
    };
    // The first sample is asked for at once, for a baseline; the next ones
    // at the shared boundaries. One request at a time: a cell slow to
    // answer (the class block, a loaded cell) would otherwise serve a
    // backlog of requests back to back, off the boundaries.
    let mut tick = tokio::time::Instant::now();
    let mut asked = false;
    loop {
        let msg = tokio::select! {
            _ = cancel.cancelled() => {
                // Best effort: the sampler ends with its stdin anyway.
                let _ = timeout(Duration::from_millis(200), async {
                    let _ = writer.close().await;
                    let _ = handle.disconnect(russh::Disconnect::ByApplication, "strata quits", "").await;
                }).await;
                return End::Quit;
            }
            _ = tokio::time::sleep_until(tick), if !asked => {
                // A cell that stops reading is caught by the stall deadline;
                // the wait here only keeps a full window from holding the loop.
                let sent = timeout(stall, writer.data_bytes(&b"\n"[..])).await;
                if !matches!(sent, Ok(Ok(()))) {
                    return gone(format!("{}: cannot ask the sampler for a sample", target.label), live);
                }
                asked = true;
                tick = boundary::next(opts.interval);
                continue;
            }
            _ = tokio::time::sleep_until(deadline) => {
                return gone(format!(
                    "{}: no sample for {}",
                    target.label,
                    secs(last_frame.elapsed())
                ), live);
            }
            m = ch.wait() => m,
        };
        match msg {
            None => {
                return gone(format!("{}: connection lost", target.label), live);
            }
            Some(ChannelMsg::Data { data }) => {
                for frame in reader.push(&data) {
                    let Some(s) = decoded.sample_of(frame) else {
                        continue;
                    };
                    last_frame = Instant::now();
                    asked = false;
                    if tick <= tokio::time::Instant::now() {
                        tick = boundary::next(opts.interval);
                    }
                    deadline = tokio::time::Instant::now() + stall;
                    if !live {
                        live = true;
                        if !rep.status(CellStatus::Live).await {
                            return End::Quit;
                        }
                    }
                    let sample = decoded.disk_sample(s);
                    let cell = rep.ev.cell;
                    if !rep.ev.send(CellEvent::Sample { cell, sample }).await {
                        return End::Quit;
                    }
                }
            }
            Some(ChannelMsg::ExtendedData { data, .. }) => {
                stderr_tail.extend_from_slice(&data);
                let over = stderr_tail.len().saturating_sub(MAX_STDERR_EVENT);
                stderr_tail.drain(..over);
                if !rep.ev.stderr(cut(&data, MAX_STDERR_EVENT)).await {
                    return End::Quit;
                }
            }
            Some(ChannelMsg::ExitStatus { exit_status: s }) => exit_status = Some(s),
            Some(ChannelMsg::Close) => {
                return gone(sampler_ended(target, exit_status, &stderr_tail), live);
            }
            Some(_) => {}
        }
    }
}

/// Why a cell is lost when its sampler's channel closes: its exit status
/// and the last of what it said on stderr.
fn sampler_ended(target: &CellTarget, exit_status: Option<u32>, stderr_tail: &[u8]) -> String {
    let status = exit_status
        .map(|s| format!(" with status {s}"))
        .unwrap_or_default();
    let said = cut(stderr_tail, MAX_STDERR_EVENT);
    let said = if said.is_empty() {
        String::new()
    } else {
        format!(": {said}")
    };
    format!("{}: the sampler ended{status}{said}", target.label)
}

fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Round trips of keepalive requests: at once, then every interval (at
/// least a second apart).
async fn rtt_loop(handle: Arc<Handle<CellHandler>>, ev: Events, interval: Duration) {
    let every = interval.max(Duration::from_secs(1));
    loop {
        let t = Instant::now();
        // send_ping returns Ok at once when the session is gone.
        if let Ok(Ok(())) = timeout(every, handle.send_ping()).await {
            if handle.is_closed() {
                return;
            }
            let cell = ev.cell;
            if !ev
                .send(CellEvent::Rtt {
                    cell,
                    rtt: t.elapsed(),
                })
                .await
            {
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

const MAX_CELLCLI_BYTES: usize = 8 * 1024 * 1024;

/// Runs a command on its own channel and collects what it prints, for at
/// most `limit` (the channel is then closed; the command is the cell's).
async fn exec_collect(
    handle: &Handle<CellHandler>,
    command: &str,
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
        ch.exec(true, command).await.map_err(|e| e.to_string())?;
        while let Some(msg) = ch.wait().await {
            match msg {
                ChannelMsg::Data { data } => {
                    let room = MAX_CELLCLI_BYTES.saturating_sub(out.stdout.len());
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

/// Where the cell has cellcli: its metrics once per `every`, on a channel
/// of their own so that a slow cellcli never delays a sample.
async fn cellcli_loop(
    handle: Arc<Handle<CellHandler>>,
    ev: Events,
    every: Duration,
    connect_timeout: Duration,
) {
    match exec_collect(&handle, remote::CELLCLI_PROBE, connect_timeout).await {
        Ok(out) if out.status == Some(0) => {}
        _ => return,
    }
    let every = every.max(Duration::from_secs(1));
    loop {
        let t = Instant::now();
        let said = match exec_collect(&handle, CELLCLI_SCRIPT, every).await {
            Ok(out) => {
                if !out.stderr.is_empty()
                    && !ev
                        .stderr(format!("cellcli: {}", cut(&out.stderr, MAX_STDERR_EVENT)))
                        .await
                {
                    return;
                }
                let cell = ev.cell;
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                text.is_empty() || ev.send(CellEvent::Cellcli { cell, text }).await
            }
            Err(e) => ev.stderr(format!("cellcli: {e}")).await,
        };
        if !said {
            return;
        }
        tokio::time::sleep(every.saturating_sub(t.elapsed())).await;
    }
}

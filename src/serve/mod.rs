//! The `/metrics` server: answers Prometheus's scrapes with the newest
//! [`Exposition`] the sampler published, over HTTP/1.1, with the TLS and
//! basic auth of an exporter-toolkit web config ([`config`]).
//!
//! ```text
//!  sampler ── Publisher::publish(Exposition) ─► watch ─► server thread ─► scrapes
//!             (an Arc swapped, never waits)              (own runtime; encodes
//!                                                         once per exposition
//!                                                         and format)
//! ```
//!
//! The server runs on a thread and a tokio runtime of its own, so that a
//! scrape, its TLS handshake, its bcrypt or its encoding never takes time
//! from the sampler's or the screen's thread; publishing swaps an `Arc`
//! under a lock no scrape holds for longer than a clone. What a client can
//! hold is bounded ([`Limits`]): connections, header size and the time to
//! send them, the TLS handshake's time, a connection's life.

pub mod auth;
pub mod config;

use crate::metrics::Exposition;
use crate::metrics::encode::{self, Format};
use anyhow::Context as _;
use auth::Auth;
use bytes::Bytes;
pub use config::WebConfig;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;

/// What one client can take of the server.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once; one more is closed at accept.
    pub connections: usize,
    /// From a connection's first byte (or the end of its last request)
    /// to the end of a request's headers.
    pub header_timeout: Duration,
    /// For the TLS handshake.
    pub handshake_timeout: Duration,
    /// A connection is asked to close after this long (after the response
    /// in progress), and closed when it has not after `grace` more: a
    /// client that reads its response slowly, or not at all, holds a slot
    /// for at most their sum.
    pub lifetime: Duration,
    pub grace: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: 64,
            header_timeout: Duration::from_secs(10),
            handshake_timeout: Duration::from_secs(10),
            lifetime: Duration::from_secs(60),
            grace: Duration::from_secs(30),
        }
    }
}

/// The largest request head read: a scrape's is under 1 kB (hyper's
/// smallest allowed buffer is 8 kB).
const MAX_HEAD: usize = 16 * 1024;
const MAX_HEADERS: usize = 64;

/// One published exposition and its encodings, made by the first scrape
/// that asks for each and shared by the scrapes after it.
struct Snapshot {
    exposition: Arc<Exposition>,
    /// by format (OpenMetrics, text) and gzip (no, yes)
    encoded: [OnceLock<Bytes>; 4],
}

impl Snapshot {
    fn new(exposition: Exposition) -> Snapshot {
        Snapshot {
            exposition: Arc::new(exposition),
            encoded: Default::default(),
        }
    }

    fn body(&self, format: Format, gzip: bool) -> Bytes {
        let i = match format {
            Format::OpenMetrics => 0,
            Format::Text => 2,
        } + usize::from(gzip);
        self.encoded[i]
            .get_or_init(|| {
                if !gzip {
                    return Bytes::from(encode::to_bytes(&self.exposition, format));
                }
                let plain = self.body(format, false);
                let mut z = flate2::write::GzEncoder::new(
                    Vec::with_capacity(plain.len() / 4),
                    flate2::Compression::fast(),
                );
                // writing to a Vec cannot fail
                let _ = z.write_all(&plain);
                Bytes::from(z.finish().unwrap_or_default())
            })
            .clone()
    }
}

/// The sampler's end: publishes each new exposition. Cloneable; publishing
/// never waits on a scrape.
#[derive(Clone)]
pub struct Publisher {
    tx: Arc<watch::Sender<Arc<Snapshot>>>,
    /// Where the exposition replaced goes to be freed: freeing 20,000
    /// samples' strings took milliseconds of the publisher's time.
    old: std::sync::mpsc::SyncSender<Arc<Snapshot>>,
}

impl Publisher {
    /// Makes `exposition` the one every scrape from now on is answered
    /// with. The one before is freed on a thread of the server's (here
    /// only when that thread is behind by several).
    pub fn publish(&self, exposition: Exposition) {
        let old = self.tx.send_replace(Arc::new(Snapshot::new(exposition)));
        let _ = self.old.try_send(old);
    }
}

/// The running server. Dropping it stops it: the listener closes, open
/// connections are cut, and the thread is joined.
pub struct Server {
    addr: SocketAddr,
    tls: bool,
    open: Arc<AtomicUsize>,
    scrapes: Arc<AtomicU64>,
    stop: Option<watch::Sender<bool>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// The address bound (with the port the system chose for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Whether it serves HTTPS.
    pub fn tls(&self) -> bool {
        self.tls
    }

    /// Connections open now.
    pub fn connections(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// Scrapes of /metrics answered with an exposition so far.
    pub fn scrapes(&self) -> u64 {
        self.scrapes.load(Ordering::Relaxed)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Binds `listen` and serves /metrics there, with the web config at
/// `web_config` if given (TLS, basic auth), on a thread of its own.
/// Returns when the socket is bound, with the publisher the sampler
/// pushes expositions through; until its first, scrapes get an empty one.
pub fn start(listen: SocketAddr, web_config: Option<&Path>) -> anyhow::Result<(Server, Publisher)> {
    let web = web_config
        .map(WebConfig::load)
        .transpose()
        .map_err(anyhow::Error::msg)
        .context("--web-config")?;
    start_with(listen, web, Limits::default())
}

/// [`start`] with a config already loaded and limits of one's own.
pub fn start_with(
    listen: SocketAddr,
    web: Option<WebConfig>,
    limits: Limits,
) -> anyhow::Result<(Server, Publisher)> {
    let web = web.unwrap_or(WebConfig {
        tls: None,
        users: Default::default(),
        headers: Vec::new(),
        rate_limit: None,
    });
    let listener =
        std::net::TcpListener::bind(listen).with_context(|| format!("--listen {listen}"))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let auth = Auth::new(web.users.clone()).map_err(anyhow::Error::msg)?;
    let (tx, rx) = watch::channel(Arc::new(Snapshot::new(Exposition::default())));
    let (stop_tx, stop_rx) = watch::channel(false);
    let (old_tx, old_rx) = std::sync::mpsc::sync_channel::<Arc<Snapshot>>(4);
    // ends when the last publisher is dropped
    std::thread::Builder::new()
        .name("strata-serve-free".into())
        .spawn(move || {
            while let Ok(snapshot) = old_rx.recv() {
                drop(snapshot);
            }
        })?;
    let open = Arc::new(AtomicUsize::new(0));
    let scrapes = Arc::new(AtomicU64::new(0));
    let ctx = Arc::new(Ctx {
        snapshot: rx,
        auth,
        headers: web
            .headers
            .iter()
            .filter_map(|(k, v)| {
                Some((
                    header::HeaderName::from_bytes(k.as_bytes()).ok()?,
                    HeaderValue::from_str(v).ok()?,
                ))
            })
            .collect(),
        bucket: web.rate_limit.map(|(every, burst)| {
            Mutex::new(Bucket {
                every,
                burst,
                tokens: f64::from(burst),
                at: Instant::now(),
            })
        }),
        limits,
        open: open.clone(),
        scrapes: scrapes.clone(),
    });
    let tls = web.tls.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(2)
        .thread_name("strata-serve-bcrypt")
        .build()?;
    let thread = std::thread::Builder::new()
        .name("strata-serve".into())
        .spawn(move || {
            runtime.block_on(accept_loop(listener, tls, ctx, stop_rx));
            // a bcrypt under way is not waited for past this
            runtime.shutdown_timeout(Duration::from_secs(1));
        })?;
    Ok((
        Server {
            addr,
            tls: web.tls.is_some(),
            open,
            scrapes,
            stop: Some(stop_tx),
            thread: Some(thread),
        },
        Publisher {
            tx: Arc::new(tx),
            old: old_tx,
        },
    ))
}

struct Ctx {
    snapshot: watch::Receiver<Arc<Snapshot>>,
    auth: Option<Arc<Auth>>,
    headers: Vec<(header::HeaderName, HeaderValue)>,
    bucket: Option<Mutex<Bucket>>,
    limits: Limits,
    open: Arc<AtomicUsize>,
    scrapes: Arc<AtomicU64>,
}

/// exporter-toolkit's `rate_limit`: a token bucket of `burst` requests,
/// one more every `every`.
struct Bucket {
    every: Duration,
    burst: u32,
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn take(&mut self, now: Instant) -> bool {
        let refill = now.duration_since(self.at).as_secs_f64() / self.every.as_secs_f64();
        self.tokens = (self.tokens + refill).min(f64::from(self.burst));
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Counts a connection open from accept to close.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

async fn accept_loop(
    listener: std::net::TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    ctx: Arc<Ctx>,
    mut stop: watch::Receiver<bool>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = stop.changed() => return,
        };
        let stream = match accepted {
            Ok((s, _)) => s,
            Err(_) => {
                // out of descriptors or the like: a pause, not a spin
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if ctx.open.fetch_add(1, Ordering::Relaxed) >= ctx.limits.connections {
            ctx.open.fetch_sub(1, Ordering::Relaxed);
            drop(stream);
            continue;
        }
        let slot = Slot(ctx.open.clone());
        let _ = stream.set_nodelay(true);
        let (ctx, acceptor, stop) = (ctx.clone(), acceptor.clone(), stop.clone());
        tokio::spawn(async move {
            let _slot = slot;
            match acceptor {
                None => connection(stream, ctx, stop).await,
                Some(a) => {
                    let limit = ctx.limits.handshake_timeout;
                    if let Ok(Ok(s)) = tokio::time::timeout(limit, a.accept(stream)).await {
                        connection(s, ctx, stop).await;
                    }
                }
            }
        });
    }
}

async fn connection<I>(io: I, ctx: Arc<Ctx>, mut stop: watch::Receiver<bool>)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let limits = ctx.limits;
    let service = hyper::service::service_fn(move |req| {
        let ctx = ctx.clone();
        async move { Ok::<_, Infallible>(respond(req, &ctx).await) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        .serve_connection(TokioIo::new(io), service);
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = tokio::time::sleep(limits.lifetime) => {}
        _ = stop.changed() => return,
    }
    conn.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(limits.grace, conn).await;
}

type Body = Full<Bytes>;

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

const INDEX: &str = "<!DOCTYPE html>\n<html><head><title>strata</title></head>\n<body><h1>strata</h1><p><a href=\"/metrics\">Metrics</a></p></body></html>\n";

/// Whether Accept-Encoding takes gzip (at a q above 0).
fn takes_gzip(value: Option<&HeaderValue>) -> bool {
    let Some(v) = value.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    v.split(',').any(|coding| {
        let mut parts = coding.split(';').map(str::trim);
        let name = parts.next().unwrap_or("");
        let q = parts
            .filter_map(|p| p.strip_prefix("q="))
            .filter_map(|q| q.trim().parse::<f64>().ok())
            .next()
            .unwrap_or(1.0);
        name.eq_ignore_ascii_case("gzip") && q > 0.0
    })
}

async fn respond(req: Request<Incoming>, ctx: &Ctx) -> Response<Body> {
    let mut r = route(&req, ctx).await;
    for (k, v) in &ctx.headers {
        r.headers_mut().insert(k.clone(), v.clone());
    }
    r
}

async fn route(req: &Request<Incoming>, ctx: &Ctx) -> Response<Body> {
    if let Some(b) = &ctx.bucket {
        let ok = b
            .lock()
            .map(|mut b| b.take(Instant::now()))
            .unwrap_or(false);
        if !ok {
            return plain(StatusCode::TOO_MANY_REQUESTS, "Too Many Requests\n");
        }
    }
    if let Some(auth) = &ctx.auth {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes);
        if !auth.allows(given).await {
            let mut r = plain(StatusCode::UNAUTHORIZED, "Unauthorized\n");
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Basic"));
            return r;
        }
    }
    let path = req.uri().path();
    if path != "/metrics" && path != "/" {
        return plain(StatusCode::NOT_FOUND, "Not Found\n");
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed\n");
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    if path == "/" {
        let mut r = Response::new(Full::new(Bytes::from_static(INDEX.as_bytes())));
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        return r;
    }
    let format = Format::negotiate(
        req.headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok()),
    );
    let gzip = takes_gzip(req.headers().get(header::ACCEPT_ENCODING));
    // the Arc is cloned and the borrow ends: publishing never waits on it
    let snapshot = ctx.snapshot.borrow().clone();
    let body = snapshot.body(format, gzip);
    ctx.scrapes.fetch_add(1, Ordering::Relaxed);
    let mut r = Response::new(Full::new(body));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    h.insert(
        header::VARY,
        HeaderValue::from_static("Accept, Accept-Encoding"),
    );
    if gzip {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_is_taken_as_accept_encoding_says() {
        let t = |s: &str| takes_gzip(Some(&HeaderValue::from_str(s).unwrap()));
        assert!(t("gzip"));
        assert!(t("deflate, GZIP;q=0.5"));
        assert!(!t("gzip;q=0"));
        assert!(!t("identity"));
        assert!(!takes_gzip(None));
    }

    #[test]
    fn the_bucket_refills() {
        let t0 = Instant::now();
        let mut b = Bucket {
            every: Duration::from_secs(1),
            burst: 2,
            tokens: 2.0,
            at: t0,
        };
        assert!(b.take(t0) && b.take(t0) && !b.take(t0));
        assert!(b.take(t0 + Duration::from_secs(1)));
        assert!(!b.take(t0 + Duration::from_secs(1)));
    }
}

//! `--web-config FILE`: the web configuration of the Prometheus
//! exporter-toolkit (its docs/web-configuration.md), the file that
//! node_exporter and the other exporters take, so that one file serves
//! them all. [`parse`] reads the YAML (pure), [`WebConfig::load`] reads the
//! files it names and builds the TLS configuration.
//!
//! As in exporter-toolkit, a key the format does not know is an error, and
//! a relative file name is taken from the config file's folder. Keys the
//! format knows and strata cannot honour with rustls are errors too, not
//! silently dropped: `cipher_suites`, `curve_preferences`,
//! `client_allowed_sans`, TLS 1.0 and 1.1, and the client auth types that
//! take a certificate without verifying it. `http_server_config.http2` is
//! accepted and has no effect: strata serves HTTP/1.1 only, which is what
//! Prometheus scrapes with. Unlike exporter-toolkit, the file and the
//! certificates are read once, at start.

use crate::core::userfile;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The file as written; every field optional, unknown keys refused.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WebConfigFile {
    #[serde(default)]
    pub tls_server_config: Option<TlsFile>,
    #[serde(default)]
    pub http_server_config: Option<HttpFile>,
    #[serde(default)]
    pub rate_limit: Option<RateLimitFile>,
    #[serde(default)]
    pub basic_auth_users: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TlsFile {
    pub cert: Option<String>,
    pub key: Option<String>,
    pub client_ca: Option<String>,
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    pub client_auth_type: Option<String>,
    pub client_ca_file: Option<PathBuf>,
    pub client_allowed_sans: Option<Vec<String>>,
    pub min_version: Option<String>,
    pub max_version: Option<String>,
    pub cipher_suites: Option<Vec<String>>,
    pub prefer_server_cipher_suites: Option<bool>,
    pub curve_preferences: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HttpFile {
    pub http2: Option<bool>,
    pub headers: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RateLimitFile {
    pub interval: Option<String>,
    pub burst: Option<u32>,
}

/// The headers exporter-toolkit lets a config add, with the values each
/// may take (any, where the list is empty).
const EXTRA_HEADERS: [(&str, &[&str]); 5] = [
    ("Strict-Transport-Security", &[]),
    ("X-Content-Type-Options", &["nosniff"]),
    ("X-Frame-Options", &["deny", "sameorigin"]),
    ("X-XSS-Protection", &[]),
    ("Content-Security-Policy", &[]),
];

/// Parses the YAML of a web config and checks what needs no file: the
/// password hashes, the headers, the rate limit and the TLS options.
pub fn parse(text: &str) -> Result<WebConfigFile, String> {
    parse_file(text).map_err(|e| crate::core::text::printable(&e).into_owned())
}

/// [`parse`], its messages as they come: the YAML parser's quotes the
/// file's lines under its first, which is kept alone (a message is one
/// line, and a quoted line may hold anything).
fn parse_file(text: &str) -> Result<WebConfigFile, String> {
    if text.trim().is_empty() {
        return Ok(WebConfigFile::default());
    }
    let file: WebConfigFile = serde_saphyr::from_str(text).map_err(|e| {
        e.to_string()
            .lines()
            .next()
            .unwrap_or("not YAML")
            .to_string()
    })?;
    for (user, hash) in file.basic_auth_users.iter().flatten() {
        if hash.parse::<bcrypt::HashParts>().is_err() {
            return Err(format!(
                "basic_auth_users: {user:?}: not a bcrypt hash (make one with `htpasswd -nBC 10 \"\" | tr -d ':\\n'`)"
            ));
        }
    }
    for (name, value) in file
        .http_server_config
        .iter()
        .flat_map(|h| h.headers.iter().flatten())
    {
        let Some((_, allowed)) = EXTRA_HEADERS.iter().find(|(n, _)| n == name) else {
            return Err(format!(
                "http_server_config.headers: HTTP header {name:?} can not be configured"
            ));
        };
        if !allowed.is_empty() && !allowed.contains(&value.as_str()) {
            return Err(format!(
                "http_server_config.headers: {name}: expected one of {allowed:?}, not {value:?}"
            ));
        }
    }
    if let Some(r) = &file.rate_limit {
        rate_limit(r)?;
    }
    if let Some(t) = &file.tls_server_config
        && tls_enabled(t)
    {
        tls_options(t)?;
    }
    Ok(file)
}

/// A Go duration as exporter-toolkit's YAML takes it ("500ms", "1s",
/// "1m30s"; "0" alone): a sequence of decimal numbers each with a unit.
fn go_duration(s: &str) -> Result<Duration, String> {
    let bad = || format!("{s:?} is not a duration such as 500ms, 1s or 1m30s");
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    let mut rest = s.trim();
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total = 0.0f64;
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let amount: f64 = rest[..n].parse().map_err(|_| bad())?;
        let unit_len = rest[n..]
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len() - n);
        let seconds = match &rest[n..n + unit_len] {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        total += amount * seconds;
        rest = &rest[n + unit_len..];
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
}

/// The token bucket's refill interval and size, None when disabled.
pub fn rate_limit(r: &RateLimitFile) -> Result<Option<(Duration, u32)>, String> {
    let interval = match &r.interval {
        Some(s) => go_duration(s).map_err(|e| format!("rate_limit.interval: {e}"))?,
        None => Duration::ZERO,
    };
    if interval.is_zero() {
        return Ok(None);
    }
    match r.burst {
        Some(b) if b > 0 => Ok(Some((interval, b))),
        _ => Err("rate_limit: a burst of at least 1 (requests) goes with an interval".into()),
    }
}

/// What rustls is told from the TLS section, apart from certificates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TlsOptions {
    pub tls12: bool,
    pub tls13: bool,
    pub client_auth: ClientAuth,
    pub prefer_server_order: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    None,
    VerifyIfGiven,
    RequireAndVerify,
}

fn tls_version(s: &str, key: &str) -> Result<u8, String> {
    match s {
        "TLS12" => Ok(12),
        "TLS13" => Ok(13),
        "TLS10" | "TLS11" => Err(format!(
            "tls_server_config.{key}: {s}: strata's TLS (rustls) has only TLS12 and TLS13"
        )),
        _ => Err(format!(
            "tls_server_config.{key}: {s:?}: expected TLS12 or TLS13"
        )),
    }
}

pub fn tls_options(t: &TlsFile) -> Result<TlsOptions, String> {
    let unsupported = |key: &str, why: &str| {
        Err(format!(
            "tls_server_config.{key}: not supported by strata ({why})"
        ))
    };
    if t.cipher_suites.as_ref().is_some_and(|v| !v.is_empty()) {
        return unsupported("cipher_suites", "rustls offers only its own modern suites");
    }
    if t.curve_preferences.as_ref().is_some_and(|v| !v.is_empty()) {
        return unsupported(
            "curve_preferences",
            "rustls chooses among X25519, P-256 and P-384",
        );
    }
    if t.client_allowed_sans.is_some() {
        return unsupported(
            "client_allowed_sans",
            "use a client CA that signs only the allowed clients",
        );
    }
    let min = tls_version(t.min_version.as_deref().unwrap_or("TLS12"), "min_version")?;
    let max = tls_version(t.max_version.as_deref().unwrap_or("TLS13"), "max_version")?;
    if min > max {
        return Err("tls_server_config: min_version is above max_version".into());
    }
    let client_auth = match t.client_auth_type.as_deref().unwrap_or("") {
        "" | "NoClientCert" => ClientAuth::None,
        "VerifyClientCertIfGiven" => ClientAuth::VerifyIfGiven,
        "RequireAndVerifyClientCert" => ClientAuth::RequireAndVerify,
        s @ ("RequestClientCert" | "RequireAnyClientCert" | "RequireClientCert") => {
            return Err(format!(
                "tls_server_config.client_auth_type: {s}: a client certificate taken without verifying it is not supported; use RequireAndVerifyClientCert"
            ));
        }
        s => {
            return Err(format!(
                "tls_server_config.client_auth_type: {s:?}: expected NoClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert"
            ));
        }
    };
    let has_ca = t.client_ca.is_some() || t.client_ca_file.is_some();
    if has_ca && client_auth == ClientAuth::None {
        return Err(
            "tls_server_config: a client CA is configured without a client_auth_type".into(),
        );
    }
    if !has_ca && client_auth != ClientAuth::None {
        return Err(
            "tls_server_config: client_auth_type needs client_ca_file (or client_ca)".into(),
        );
    }
    for (inline, file, key) in [
        (t.cert.is_some(), t.cert_file.is_some(), "cert"),
        (t.key.is_some(), t.key_file.is_some(), "key"),
        (
            t.client_ca.is_some(),
            t.client_ca_file.is_some(),
            "client_ca",
        ),
    ] {
        if inline && file {
            return Err(format!(
                "tls_server_config: give {key} or {key}_file, not both"
            ));
        }
        if !inline && !file && key != "client_ca" {
            return Err(format!("tls_server_config: missing {key} or {key}_file"));
        }
    }
    Ok(TlsOptions {
        tls12: min <= 12,
        tls13: max >= 13,
        client_auth,
        prefer_server_order: t.prefer_server_cipher_suites.unwrap_or(true),
    })
}

/// Whether the TLS section turns TLS on, as exporter-toolkit decides: any
/// certificate, key, client CA or client auth type given.
fn tls_enabled(t: &TlsFile) -> bool {
    t.cert.is_some()
        || t.key.is_some()
        || t.client_ca.is_some()
        || t.cert_file.is_some()
        || t.key_file.is_some()
        || t.client_ca_file.is_some()
        || t.client_auth_type.as_deref().is_some_and(|s| !s.is_empty())
}

/// A web config ready to serve with.
#[derive(Clone)]
pub struct WebConfig {
    pub(crate) tls: Option<Arc<ServerConfig>>,
    /// user name → bcrypt hash
    pub(crate) users: BTreeMap<String, String>,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) rate_limit: Option<(Duration, u32)>,
}

impl std::fmt::Debug for WebConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // the hashes stay out of logs
        f.debug_struct("WebConfig")
            .field("tls", &self.tls.is_some())
            .field("users", &self.users.keys().collect::<Vec<_>>())
            .field("headers", &self.headers)
            .field("rate_limit", &self.rate_limit)
            .finish()
    }
}

/// The most of a certificate, key or CA file read (a chain of a few
/// certificates is a few kB).
const PEM_LIMIT: u64 = 1 << 20;

impl WebConfig {
    /// Reads `path`, and the certificate, key and CA files it names
    /// (relative to its folder), and builds the TLS configuration.
    pub fn load(path: &Path) -> Result<WebConfig, String> {
        let text = userfile::read_text(path, userfile::TEXT_LIMIT)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let file = parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        // The file names it holds and what was found there, made printable.
        Self::from_file(file, dir).map_err(|e| {
            let e = crate::core::text::printable(&e);
            format!("{}: {e}", path.display())
        })
    }

    /// The config of a parsed file whose relative names are under `dir`.
    pub fn from_file(file: WebConfigFile, dir: &Path) -> Result<WebConfig, String> {
        let tls = match &file.tls_server_config {
            Some(t) if tls_enabled(t) => Some(Arc::new(server_config(t, dir)?)),
            _ => None,
        };
        let headers = file
            .http_server_config
            .and_then(|h| h.headers)
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .collect();
        let rate_limit = match &file.rate_limit {
            Some(r) => rate_limit(r)?,
            None => None,
        };
        Ok(WebConfig {
            tls,
            users: file.basic_auth_users.unwrap_or_default(),
            headers,
            rate_limit,
        })
    }

    /// Whether the server speaks TLS.
    pub fn tls(&self) -> bool {
        self.tls.is_some()
    }

    /// Whether a scrape needs a user and password.
    pub fn basic_auth(&self) -> bool {
        !self.users.is_empty()
    }
}

fn pem(
    inline: &Option<String>,
    file: &Option<PathBuf>,
    dir: &Path,
    key: &str,
) -> Result<Vec<u8>, String> {
    match (inline, file) {
        (Some(text), _) => Ok(text.as_bytes().to_vec()),
        (None, Some(f)) => {
            let f = dir.join(f);
            userfile::read_regular(&f, PEM_LIMIT)
                .map_err(|e| format!("tls_server_config.{key}_file: {}: {e}", f.display()))
        }
        (None, None) => Err(format!("tls_server_config: missing {key} or {key}_file")),
    }
}

fn server_config(t: &TlsFile, dir: &Path) -> Result<ServerConfig, String> {
    let opts = tls_options(t)?;
    let certs = pem(&t.cert, &t.cert_file, dir, "cert")?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&certs)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("tls_server_config.cert: {e}"))?;
    if certs.is_empty() {
        return Err("tls_server_config.cert: no certificate in it".into());
    }
    let key = zeroize::Zeroizing::new(pem(&t.key, &t.key_file, dir, "key")?);
    let key =
        PrivateKeyDer::from_pem_slice(&key).map_err(|e| format!("tls_server_config.key: {e}"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut versions = Vec::new();
    if opts.tls13 {
        versions.push(&rustls::version::TLS13);
    }
    if opts.tls12 {
        versions.push(&rustls::version::TLS12);
    }
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&versions)
        .map_err(|e| format!("tls_server_config: {e}"))?;
    let builder = if opts.client_auth == ClientAuth::None {
        builder.with_no_client_auth()
    } else {
        let ca = pem(&t.client_ca, &t.client_ca_file, dir, "client_ca")?;
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_slice_iter(&ca) {
            let c = c.map_err(|e| format!("tls_server_config.client_ca: {e}"))?;
            roots
                .add(c)
                .map_err(|e| format!("tls_server_config.client_ca: {e}"))?;
        }
        let v = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
        let v = if opts.client_auth == ClientAuth::VerifyIfGiven {
            v.allow_unauthenticated()
        } else {
            v
        };
        builder.with_client_cert_verifier(
            v.build()
                .map_err(|e| format!("tls_server_config.client_ca: {e}"))?,
        )
    };
    let mut config = builder
        .with_single_cert(certs, key)
        .map_err(|e| format!("tls_server_config: certificate and key: {e}"))?;
    config.ignore_client_order = opts.prefer_server_order;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yaml_error_is_one_printable_line() {
        let e = parse("rate_limit:\n  burst: 10\n  \u{1b}[31mred: 1\n").unwrap_err();
        assert!(!e.contains(crate::core::text::is_unsafe), "{e:?}");
        let e = parse("http_server_config:\n  headers: {}\n  burst: 10\n").unwrap_err();
        assert!(
            e.contains("unknown field `burst`") && !e.contains('\n'),
            "{e:?}"
        );
    }

    #[test]
    fn the_documented_keys_parse() {
        let hash = bcrypt::hash("pw", 4).unwrap();
        let f = parse(&format!(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS13\n  prefer_server_cipher_suites: false\nhttp_server_config:\n  http2: false\n  headers:\n    X-Frame-Options: deny\nrate_limit:\n  interval: 1m30s\n  burst: 5\nbasic_auth_users:\n  alice: {hash}\n"
        ))
        .unwrap();
        let t = f.tls_server_config.as_ref().unwrap();
        assert_eq!(t.cert_file.as_deref(), Some(Path::new("server.crt")));
        assert_eq!(
            tls_options(t).unwrap(),
            TlsOptions {
                tls12: false,
                tls13: true,
                client_auth: ClientAuth::None,
                prefer_server_order: false
            }
        );
        assert_eq!(
            rate_limit(f.rate_limit.as_ref().unwrap()).unwrap(),
            Some((Duration::from_secs(90), 5))
        );
        assert_eq!(f.basic_auth_users.unwrap()["alice"], hash);
        assert_eq!(parse("").unwrap(), WebConfigFile::default());
        assert_eq!(parse("# nothing\n").unwrap(), WebConfigFile::default());
    }

    #[test]
    fn unknown_and_unsupported_keys_are_errors() {
        for (yaml, says) in [
            ("tls_config:\n  cert_file: a\n", "tls_config"),
            ("tls_server_config:\n  cert_fil: a\n", "cert_fil"),
            ("basic_auth_users:\n  alice: secret\n", "not a bcrypt hash"),
            (
                "http_server_config:\n  headers:\n    Server: x\n",
                "can not be configured",
            ),
            (
                "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
                "expected one of",
            ),
            ("rate_limit:\n  interval: 1s\n", "burst"),
            (
                "rate_limit:\n  interval: 1x\n  burst: 1\n",
                "not a duration",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
                "cipher_suites",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS11\n",
                "TLS12 and TLS13",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n",
                "above",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
                "without a client_auth_type",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
                "needs client_ca_file",
            ),
            (
                "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAnyClientCert\n  client_ca_file: c\n",
                "without verifying",
            ),
            ("tls_server_config:\n  cert_file: a\n", "missing key"),
            (
                "tls_server_config:\n  cert_file: a\n  cert: b\n  key_file: c\n",
                "not both",
            ),
            ("- a\n- b\n", ""),
        ] {
            let e = parse(yaml).unwrap_err();
            assert!(e.contains(says), "{yaml:?}: {e}");
        }
    }

    #[test]
    fn go_durations() {
        assert_eq!(go_duration("0").unwrap(), Duration::ZERO);
        assert_eq!(go_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(
            go_duration("1h1m1.5s").unwrap(),
            Duration::from_millis(3_661_500)
        );
        for bad in ["", "1", "s", "1s2", "-1s", "1e3s"] {
            assert!(go_duration(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn relative_files_are_under_the_configs_folder() {
        let dir = tempfile::tempdir().unwrap();
        let f = parse("tls_server_config:\n  cert_file: nothere.crt\n  key_file: nothere.key\n")
            .unwrap();
        let e = WebConfig::from_file(f, dir.path()).unwrap_err();
        assert!(
            e.contains(&dir.path().join("nothere.crt").display().to_string()),
            "{e}"
        );
        // a config without TLS and users serves plain HTTP to anyone
        let w =
            WebConfig::from_file(parse("tls_server_config: {}\n").unwrap(), dir.path()).unwrap();
        assert!(!w.tls() && !w.basic_auth());
    }
}

//! The user's settings: `~/.config/strata/config.toml` or `--config FILE`.
//!
//! ```toml
//! interval = 2          # seconds between samples
//! theme = "light"       # a built-in, a user theme name or a path
//! history = "2h30m"     # or whole seconds
//! history_memory = "1G" # the most bytes all charts' history may take
//! units = "MB"          # or "kB"
//! show_partitions = true
//! show_all_devices = false
//! cache_files = ["/u01/oradata/*/redo*.log"]  # residency of these files (globs; a
//!                                             # relative one is from the current directory)
//! fincore_every = "30s" # a node's fincore runs over cache_files (default 10s)
//! record = "/var/tmp/bench.strec"  # record while monitoring, as --record
//! record_dir = "/var/tmp"          # where R puts the recordings it names
//!
//! [[cell]]            # a storage cell, reached over SSH (repeatable)
//! host = "exa1cel01"    # name or address, as known_hosts knows it
//! port = 22             # optional
//! user = "celladmin"    # optional: --cell's default user otherwise
//! identity_file = "~/.ssh/id_cells"   # optional: after the agent's keys
//! label = "cel01"       # optional: what the panel calls it
//!
//! [[node]]            # a database node (repeatable): the keys of [[cell]];
//! host = "exa1db01"     # host = "local" is the local host, without SSH
//!
//! [[db]]              # an Oracle database whose Direct NFS views are read (repeatable)
//! connect = "dbsnmp@//db1:1521/PROD"   # user@//host:port/service, user@alias, / or /@alias
//! password_env = "PROD_PW"             # optional: default STRATA_DB_PASSWORD
//! label = "PROD"                       # optional
//!
//! [thresholds]
//! util_warn = 80
//! util_crit = 95
//! await_warn_ms = 20
//! await_crit_ms = 100
//! ```
//!
//! Bad settings never stop strata: each becomes a message for the UI and
//! keeps its default. Unknown keys are reported rather than ignored, so a
//! typo does not silently leave a setting at its default.

use crate::core::duration::Interval;
use crate::core::text::is_unsafe;
use crate::layers::col::Units;
use crate::layers::dnfs::source::DbEntry;
use crate::link::target::{HostTarget, LOCAL_NODE, NodeTarget, host_name_ok, user_name_ok};
use std::env;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeInteger, DeString, DeTable, DeValue};

use crate::layers::col::ColKind;
// The config's `history` takes it, and tests check against it here.
pub use crate::core::duration::parse_duration;

// The disk model's, where the columns it converts are; the config names
// a default.

/// How alarming a figure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Normal,
    Warn,
    Crit,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Thresholds {
    pub util_warn: f64,
    pub util_crit: f64,
    pub await_warn_ms: f64,
    pub await_crit_ms: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            util_warn: 80.0,
            util_crit: 95.0,
            await_warn_ms: 20.0,
            await_crit_ms: 100.0,
        }
    }
}

impl Thresholds {
    pub fn level(&self, kind: ColKind, value: f64) -> Level {
        let (warn, crit) = match kind {
            ColKind::Util => (self.util_warn, self.util_crit),
            ColKind::Await => (self.await_warn_ms, self.await_crit_ms),
            _ => return Level::Normal,
        };
        if value >= crit {
            Level::Crit
        } else if value >= warn {
            Level::Warn
        } else {
            Level::Normal
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// Seconds between samples.
    pub interval: Option<Interval>,
    pub theme: Option<String>,
    /// Seconds of history kept for charts.
    pub history_secs: u64,
    /// The most bytes the history of all charts may reserve together.
    /// Recordings made before the budget have none.
    #[serde(default = "default_history_memory")]
    pub history_memory: u64,
    pub units: Units,
    pub show_partitions: bool,
    /// Also show loop, ram and zram devices.
    pub show_all_devices: bool,
    pub thresholds: Thresholds,
    /// Glob patterns of the files whose page-cache residency is watched.
    pub cache_files: Vec<String>,
    /// Seconds between a node's fincore runs over `cache_files`, rounded
    /// to whole intervals. Recordings made before nodes ran it have none.
    #[serde(default = "default_fincore_every")]
    pub fincore_every_secs: u64,
    /// `[[cell]]` entries: storage cells reached over SSH.
    pub cells: Vec<CellEntry>,
    /// `[[node]]` entries: database nodes, the local host (`host =
    /// "local"`) or reached over SSH as the cells are. Recordings made
    /// before nodes were named have none.
    #[serde(default)]
    pub nodes: Vec<CellEntry>,
    /// Record to this file while monitoring (`--record` wins).
    pub record: Option<PathBuf>,
    /// Where `R` puts a recording it names itself (default: the current
    /// directory).
    pub record_dir: Option<PathBuf>,
    /// `[[db]]` entries: Oracle databases whose dNFS views are read.
    /// Recordings made before databases were read have none.
    #[serde(default)]
    pub dbs: Vec<DbEntry>,
}

/// One `[[cell]]` (or `[[node]]`) of the config; the user is filled in
/// with the default user when the targets are put together.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CellEntry {
    pub host: String,
    pub port: u16,
    pub user: Option<String>,
    pub identity_file: Option<PathBuf>,
    pub label: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            interval: None,
            theme: None,
            history_secs: 3600,
            history_memory: default_history_memory(),
            units: Units::KB,
            show_partitions: false,
            show_all_devices: false,
            thresholds: Thresholds::default(),
            cache_files: Vec::new(),
            fincore_every_secs: default_fincore_every(),
            cells: Vec::new(),
            nodes: Vec::new(),
            record: None,
            record_dir: None,
            dbs: Vec::new(),
        }
    }
}

fn default_history_memory() -> u64 {
    HISTORY_MEMORY_DEFAULT
}

/// The history budget: a GiB holds a full hour at 1 s of about 9,000
/// devices (8 figures of 4 bytes per sample).
pub const HISTORY_MEMORY_DEFAULT: u64 = 1 << 30;
/// The least budget: an hour at 1 s of a few devices.
pub const HISTORY_MEMORY_MIN: u64 = 1 << 20;
/// The most budget: beyond this a typo is likelier than a machine.
pub const HISTORY_MEMORY_MAX: u64 = 1 << 40;

fn default_fincore_every() -> u64 {
    crate::layers::node::FINCORE_EVERY.as_secs()
}

/// Shortest history worth charting: a few samples at the default interval.
pub const HISTORY_MIN_SECS: u64 = 10;
/// Longest history. A week at 1 s is 604,800 samples of 8 figures as f32,
/// about 19 MB per device, which is why `history_ticks` also caps the
/// samples kept: a whole week fits only at intervals of 7 s or more.
pub const HISTORY_MAX_SECS: u64 = 7 * 24 * 3600;
/// Samples kept per history ring whatever `history` and `interval` ask
/// for: a day at 1 s, about 2.8 MB per device.
pub const MAX_HISTORY_TICKS: usize = 86_400;

const TOP_KEYS: &[&str] = &[
    "interval",
    "theme",
    "history",
    "history_memory",
    "units",
    "show_partitions",
    "show_all_devices",
    "thresholds",
    "cache_files",
    "fincore_every",
    "cell",
    "node",
    "record",
    "record_dir",
    "db",
];
const SSH_KEYS: &[&str] = &["host", "port", "user", "identity_file", "label"];
/// The keys of SSH a `[[node]]` with `host = "local"` may not have: even
/// `port = 22` is refused, as `local:22` is on the command line.
const LOCAL_TAKES_NO: &[&str] = &["port", "user", "identity_file"];
const DB_KEYS: &[&str] = &["connect", "password_env", "label"];
const THRESHOLD_KEYS: &[&str] = &["util_warn", "util_crit", "await_warn_ms", "await_crit_ms"];

/// A path the config names under `key`: a string, not blank.
fn path_of(key: &str, value: &DeValue, what: &str) -> Result<PathBuf, String> {
    match value.as_str().map(str::trim) {
        Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
        Some(_) => Err(format!("{key} must not be empty")),
        None => Err(expected(what, value)),
    }
}

/// The directory strata's files live in: `$XDG_CONFIG_HOME/strata`, else
/// `~/.config/strata`; `None` when neither variable is usable.
pub fn config_dir() -> Option<PathBuf> {
    config_dir_from(env::var_os("XDG_CONFIG_HOME"), env::var_os("HOME"))
}

fn config_dir_from(xdg: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be
    // ignored, so a stray `XDG_CONFIG_HOME=.` cannot redirect the config.
    let base = match xdg.map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        _ => PathBuf::from(home.filter(|h| !h.is_empty())?).join(".config"),
    };
    Some(base.join("strata"))
}

/// Where `load(None)` looks for the config file.
pub fn default_path() -> Option<PathBuf> {
    config_dir().map(|dir| dir.join("config.toml"))
}

/// Reads the config file: `explicit` (from `--config`), else the default
/// path. Every problem in the file becomes a message for the UI, and the
/// settings it concerns keep their defaults; the error is a file named by
/// `--config` that cannot be read, as the user asked for what cannot be
/// had. A default file that cannot be read is a message.
pub fn load(explicit: Option<&Path>) -> Result<(Config, Vec<String>), String> {
    load_in(explicit, default_path().as_deref())
}

/// The most of a config file strata reads.
pub const MAX_CONFIG_BYTES: u64 = crate::core::userfile::TEXT_LIMIT;

fn load_in(
    explicit: Option<&Path>,
    default: Option<&Path>,
) -> Result<(Config, Vec<String>), String> {
    let Some(path) = explicit.or(default) else {
        return Ok((Config::default(), Vec::new()));
    };
    let text = match crate::core::userfile::read_text(path, MAX_CONFIG_BYTES) {
        Ok(text) => text,
        // Nobody has to write a config file; only a file asked for by name
        // is missed.
        Err(e) if e.kind() == ErrorKind::NotFound && explicit.is_none() => {
            return Ok((Config::default(), Vec::new()));
        }
        Err(e) => {
            let message = printable(&format!("{}: cannot read config file: {e}", path.display()))
                .into_owned();
            return match explicit {
                Some(_) => Err(message),
                None => Ok((Config::default(), vec![message])),
            };
        }
    };
    let (mut config, messages) = parse(&text, &path.display().to_string());
    // A theme file named in the config is looked for next to the config,
    // not wherever strata happened to be started.
    if let Some(spec) = &config.theme
        && is_path_spec(spec)
        && !spec.starts_with('~')
        && Path::new(spec).is_relative()
        && let Some(dir) = path.parent()
    {
        config.theme = Some(dir.join(spec).display().to_string());
    }
    Ok((config, messages))
}

/// The config file's text to settings. Each bad key gives one message
/// naming the file, line and key and keeps its default, so one typo does
/// not throw away the rest of the file; a TOML syntax error gives one
/// message and all defaults, as nothing after it can be trusted.
pub fn parse(text: &str, source_name: &str) -> (Config, Vec<String>) {
    let mut config = Config::default();
    let doc = match parse_document(text) {
        Ok(doc) => doc,
        Err(e) => return (config, vec![syntax_message(source_name, text, &e)]),
    };
    let mut problems = Vec::new();
    for (key, value) in doc.get_ref().iter() {
        let name: &str = key.get_ref();
        let value = value.get_ref();
        let outcome = match name {
            "interval" => parse_interval(value).map(|secs| config.interval = Some(secs)),
            "theme" => match value.as_str() {
                Some(spec) if !spec.trim().is_empty() => {
                    config.theme = Some(spec.trim().to_owned());
                    Ok(())
                }
                Some(_) => Err("theme must not be empty".to_owned()),
                None => Err(expected("a theme name or path", value)),
            },
            "history" => parse_history_value(value).map(|secs| config.history_secs = secs),
            "history_memory" => {
                parse_history_memory(value).map(|bytes| config.history_memory = bytes)
            }
            "units" => parse_units(value).map(|units| config.units = units),
            "show_partitions" => boolean(value).map(|b| config.show_partitions = b),
            "show_all_devices" => boolean(value).map(|b| config.show_all_devices = b),
            "thresholds" => match value.as_table() {
                Some(table) => {
                    config.thresholds = parse_thresholds(table, &mut problems);
                    Ok(())
                }
                None => Err(expected("a table", value)),
            },
            "cache_files" => parse_cache_files(value, &mut problems)
                .map(|patterns| config.cache_files = patterns),
            "fincore_every" => parse_fincore_every(value).map(|s| config.fincore_every_secs = s),
            "cell" => parse_ssh_tables(value, SshTable::Cell, &mut problems)
                .map(|cells| config.cells = cells),
            "node" => parse_ssh_tables(value, SshTable::Node, &mut problems)
                .map(|nodes| config.nodes = nodes),
            "record" => path_of(name, value, "a file path").map(|p| config.record = Some(p)),
            "record_dir" => {
                path_of(name, value, "a directory").map(|p| config.record_dir = Some(p))
            }
            "db" => parse_dbs(value, &mut problems).map(|dbs| config.dbs = dbs),
            _ => Err(format!("unknown key (known keys: {})", TOP_KEYS.join(", "))),
        };
        if let Err(problem) = outcome {
            problems.push(Problem::new(key, name.to_owned(), problem));
        }
    }
    // The map is sorted by key; the user reads the file top to bottom.
    problems.sort_by_key(|p| p.offset);
    let lines = Lines::new(text);
    let messages = problems
        .iter()
        .map(|p| p.render(source_name, &lines))
        .collect();
    (config, messages)
}

fn parse_interval(value: &DeValue) -> Result<Interval, String> {
    let secs = number(value).ok_or_else(|| expected("a number of seconds", value))?;
    // The CLI's own check, so `interval` and `--interval` cannot drift
    // apart; an f64's text parses back to exactly the same f64.
    Interval::parse(&secs.to_string())
}

/// Ring capacity for `history_secs` of samples every `interval_s`: at
/// least 2 (a chart needs two points) and at most `MAX_HISTORY_TICKS`.
/// When capped, also a message for the user saying how much is kept.
pub fn history_ticks(history_secs: u64, interval: Interval) -> (usize, Option<String>) {
    let interval_s = interval.secs();
    let wanted = history_secs as f64 / interval_s;
    // A NaN (0 s of history every 0 s) fails this test and is capped like
    // an infinite demand instead of going through a cast.
    if wanted <= MAX_HISTORY_TICKS as f64 {
        return ((wanted.ceil() as usize).max(2), None);
    }
    let kept_secs = (MAX_HISTORY_TICKS as f64 * interval_s).floor();
    let kept = if kept_secs.is_finite() && kept_secs >= 1.0 {
        format!(" ({})", format_duration(kept_secs as u64))
    } else {
        String::new()
    };
    let message = format!(
        "history {} at {interval_s} s needs {} samples; keeping the last {MAX_HISTORY_TICKS}{kept}",
        format_duration(history_secs),
        wanted.ceil()
    );
    (MAX_HISTORY_TICKS, Some(message))
}

/// Seconds as the config spells a duration ("1d", "2h24m", "1m30s"), so
/// a message can be copied back into the file.
fn format_duration(secs: u64) -> String {
    if secs == 0 {
        return "0s".to_owned();
    }
    let mut s = String::new();
    let mut rest = secs;
    for (unit, size) in [('d', 86_400), ('h', 3_600), ('m', 60), ('s', 1)] {
        if rest >= size {
            let _ = write!(s, "{}{unit}", rest / size);
            rest %= size;
        }
    }
    s
}

fn parse_history_value(value: &DeValue) -> Result<u64, String> {
    match value {
        DeValue::String(text) => parse_history(text),
        DeValue::Integer(i) => match integer(i) {
            Some(secs) if secs >= 0 => check_history(secs.unsigned_abs()),
            _ => Err(format!("{}, found {}", history_range(), describe(value))),
        },
        _ => Err(expected(
            "a duration such as \"30m\" or \"2h30m\", or whole seconds",
            value,
        )),
    }
}

fn parse_units(value: &DeValue) -> Result<Units, String> {
    match value.as_str() {
        Some(s) if s.eq_ignore_ascii_case("kb") => Ok(Units::KB),
        Some(s) if s.eq_ignore_ascii_case("mb") => Ok(Units::MB),
        _ => Err(expected("\"kB\" or \"MB\"", value)),
    }
}

/// An array of glob patterns. A bad element is reported at its own line
/// and left out; the good ones still apply, so one typo does not stop the
/// other files being watched.
fn parse_cache_files(value: &DeValue, problems: &mut Vec<Problem>) -> Result<Vec<String>, String> {
    let Some(items) = value.as_array() else {
        return Err(expected(
            "an array of glob patterns such as [\"/u01/oradata/*/redo*.log\"]",
            value,
        ));
    };
    let mut patterns = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let checked = match item.get_ref().as_str() {
            Some(p) => crate::layers::cache::source::check_pattern(p),
            None => Err(expected("a glob pattern", item.get_ref())),
        };
        match checked {
            Ok(p) => patterns.push(p),
            Err(problem) => problems.push(Problem {
                offset: item.span().start,
                key: format!("cache_files[{i}]"),
                problem,
            }),
        }
    }
    Ok(patterns)
}

/// An array of tables naming SSH hosts, read alike: `[[cell]]` or
/// `[[node]]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SshTable {
    Cell,
    Node,
}

impl SshTable {
    fn name(self) -> &'static str {
        match self {
            SshTable::Cell => "cell",
            SshTable::Node => "node",
        }
    }
}

/// The `[[cell]]` or `[[node]]` array of tables. A bad entry is reported
/// at its own line and left out; the others are still reached. A node's
/// `host = "local"` is the local host, which takes no port, user or
/// identity_file.
fn parse_ssh_tables(
    value: &DeValue,
    kind: SshTable,
    problems: &mut Vec<Problem>,
) -> Result<Vec<CellEntry>, String> {
    let name = kind.name();
    let Some(items) = value.as_array() else {
        return Err(expected(
            &format!("[[{name}]] tables with a host each"),
            value,
        ));
    };
    let mut entries = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut report = |offset: usize, key: String, problem: String| {
            problems.push(Problem {
                offset,
                key,
                problem,
            })
        };
        let Some(table) = item.get_ref().as_table() else {
            report(
                item.span().start,
                format!("{name}[{i}]"),
                expected("a table", item.get_ref()),
            );
            continue;
        };
        let mut entry = CellEntry {
            host: String::new(),
            port: 22,
            user: None,
            identity_file: None,
            label: None,
        };
        let mut ok = true;
        for (key, v) in table.iter() {
            if let Err(problem) = set_ssh_key(&mut entry, key.get_ref(), v.get_ref()) {
                ok = false;
                let key_name: &str = key.get_ref();
                report(key.span().start, format!("{name}[{i}].{key_name}"), problem);
            }
        }
        let problem = if entry.host.is_empty() {
            Some(format!(
                "no host: each [[{name}]] needs host = \"name or address\""
            ))
        } else if kind == SshTable::Node
            && entry.is_local_node()
            && table
                .iter()
                .any(|(k, _)| LOCAL_TAKES_NO.contains(&&**k.get_ref()))
        {
            Some(format!(
                "host = \"{LOCAL_NODE}\" is the local host, read without SSH: it takes no port, user or identity_file"
            ))
        } else {
            None
        };
        match problem {
            Some(problem) if ok => report(item.span().start, format!("{name}[{i}]"), problem),
            None if ok => entries.push(entry),
            _ => {}
        }
    }
    Ok(entries)
}

/// One key of a `[[cell]]` or `[[node]]` entry into `entry`, or why not.
fn set_ssh_key(entry: &mut CellEntry, name: &str, v: &DeValue) -> Result<(), String> {
    let text = |what: &str, ok: fn(&str) -> bool| match v.as_str().map(str::trim) {
        Some(t) if ok(t) => Ok(t.to_owned()),
        _ => Err(expected(what, v)),
    };
    match name {
        "host" => text("a host name or address", host_name_ok).map(|h| entry.host = h),
        "user" => text("a user name", user_name_ok).map(|u| entry.user = Some(u)),
        "label" => match v.as_str().map(str::trim) {
            Some(l) if !l.is_empty() && !l.contains(is_unsafe) => {
                entry.label = Some(l.to_owned());
                Ok(())
            }
            _ => Err(expected("a label", v)),
        },
        "identity_file" => match v.as_str() {
            Some(p) if !p.trim().is_empty() => {
                entry.identity_file = Some(expand_home(p.trim()));
                Ok(())
            }
            _ => Err(expected("a path", v)),
        },
        "port" => match v {
            DeValue::Integer(n) => match integer(n).and_then(|n| u16::try_from(n).ok()) {
                Some(p) if p > 0 => {
                    entry.port = p;
                    Ok(())
                }
                _ => Err(format!("a port is 1 to 65535, found {}", describe(v))),
            },
            other => Err(expected("a port number", other)),
        },
        _ => Err(format!("unknown key (known keys: {})", SSH_KEYS.join(", "))),
    }
}

/// The `[[db]]` array of tables; a bad entry is reported at its line and
/// left out.
fn parse_dbs(value: &DeValue, problems: &mut Vec<Problem>) -> Result<Vec<DbEntry>, String> {
    let Some(items) = value.as_array() else {
        return Err(expected("[[db]] tables with a connect each", value));
    };
    let mut dbs = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(table) = item.get_ref().as_table() else {
            problems.push(Problem {
                offset: item.span().start,
                key: format!("db[{i}]"),
                problem: expected("a table", item.get_ref()),
            });
            continue;
        };
        let (mut connect, mut password_env, mut label) = (None, None, None);
        let mut ok = true;
        for (key, v) in table.iter() {
            let name: &str = key.get_ref();
            let text = v
                .get_ref()
                .as_str()
                .map(str::trim)
                .filter(|t| !t.is_empty());
            let outcome = match (name, text) {
                ("connect", Some(t)) => {
                    crate::layers::dnfs::source::parse_db_spec(t).map(|t| connect = Some(t))
                }
                ("password_env", Some(t)) if !t.contains(['=', '\0']) => {
                    password_env = Some(t.to_owned());
                    Ok(())
                }
                ("label", Some(t)) if !t.contains(is_unsafe) => {
                    label = Some(t.to_owned());
                    Ok(())
                }
                ("connect" | "password_env" | "label", _) => Err(expected("a string", v.get_ref())),
                _ => Err(format!("unknown key (known keys: {})", DB_KEYS.join(", "))),
            };
            if let Err(problem) = outcome {
                ok = false;
                problems.push(Problem {
                    offset: key.span().start,
                    key: format!("db[{i}].{name}"),
                    problem,
                });
            }
        }
        match connect {
            Some(mut target) if ok => {
                if let Some(env) = password_env {
                    target.password_env = env;
                }
                if let Some(l) = label {
                    target.label = l;
                }
                dbs.push(DbEntry { target });
            }
            None if ok => problems.push(Problem {
                offset: item.span().start,
                key: format!("db[{i}]"),
                problem: "no connect: each [[db]] needs connect = \"user@//host:port/service\""
                    .to_owned(),
            }),
            _ => {}
        }
    }
    Ok(dbs)
}

impl CellEntry {
    /// The cell as the sampler reaches it; `default_user` where the entry
    /// names no user.
    pub fn target(&self, default_user: &str) -> HostTarget {
        let label = match (&self.label, self.port) {
            (Some(l), _) => l.clone(),
            (None, 22) => self.host.clone(),
            (None, p) if self.host.contains(':') => format!("[{}]:{p}", self.host),
            (None, p) => format!("{}:{p}", self.host),
        };
        HostTarget {
            label,
            host: self.host.clone(),
            port: self.port,
            user: self.user.clone().unwrap_or_else(|| default_user.to_owned()),
            identity: self.identity_file.clone(),
        }
    }
}

impl CellEntry {
    /// A `[[node]]` naming the local host.
    fn is_local_node(&self) -> bool {
        self.host == LOCAL_NODE
    }

    /// The `[[node]]` as a node: the local host for `host = "local"`
    /// (labelled "local" unless the entry has a label), else as
    /// `target` reaches a cell.
    pub fn node(&self, default_user: &str) -> NodeTarget {
        if self.is_local_node() {
            NodeTarget::Local {
                label: self.label.clone().unwrap_or_else(|| LOCAL_NODE.to_owned()),
            }
        } else {
            NodeTarget::Remote(self.target(default_user))
        }
    }
}

/// `~/x` as the shell would read it; anything else as written.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), env::var_os("HOME")) {
        (Some(rest), Some(home)) if !home.is_empty() => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
}

fn boolean(value: &DeValue) -> Result<bool, String> {
    value
        .as_bool()
        .ok_or_else(|| expected("true or false", value))
}

fn parse_thresholds(table: &DeTable, problems: &mut Vec<Problem>) -> Thresholds {
    let mut thresholds = Thresholds::default();
    // Where each pair's keys were set, to blame the right line when the
    // pair is inconsistent.
    let mut set: Vec<(&str, &Spanned<DeString>)> = Vec::new();
    for (key, value) in table.iter() {
        let name: &str = key.get_ref();
        let value = value.get_ref();
        let slot = match name {
            "util_warn" => &mut thresholds.util_warn,
            "util_crit" => &mut thresholds.util_crit,
            "await_warn_ms" => &mut thresholds.await_warn_ms,
            "await_crit_ms" => &mut thresholds.await_crit_ms,
            _ => {
                let problem = format!("unknown key (known keys: {})", THRESHOLD_KEYS.join(", "));
                problems.push(Problem::new(key, format!("thresholds.{name}"), problem));
                continue;
            }
        };
        match number(value) {
            Some(n) if n >= 0.0 => {
                *slot = n;
                set.push((name, key));
            }
            Some(n) => problems.push(Problem::new(
                key,
                format!("thresholds.{name}"),
                format!("must be 0 or more, found {n}"),
            )),
            None => problems.push(Problem::new(
                key,
                format!("thresholds.{name}"),
                expected("a number", value),
            )),
        }
    }
    let defaults = Thresholds::default();
    let pairs = [
        (
            "util_warn",
            "util_crit",
            thresholds.util_warn,
            thresholds.util_crit,
        ),
        (
            "await_warn_ms",
            "await_crit_ms",
            thresholds.await_warn_ms,
            thresholds.await_crit_ms,
        ),
    ];
    for (warn, crit, warn_value, crit_value) in pairs {
        if warn_value <= crit_value {
            continue;
        }
        // A warning above the critical level would never show. Whichever
        // of the two the user set is dropped, which leaves the defaults'
        // consistent pair.
        let blamed = set
            .iter()
            .find(|(name, _)| *name == warn)
            .or_else(|| set.iter().find(|(name, _)| *name == crit));
        if let Some((name, key)) = blamed {
            problems.push(Problem::new(
                key,
                format!("thresholds.{name}"),
                format!(
                    "{warn} ({warn_value}) is above {crit} ({crit_value}); using the defaults for both"
                ),
            ));
        }
        if warn == "util_warn" {
            thresholds.util_warn = defaults.util_warn;
            thresholds.util_crit = defaults.util_crit;
        } else {
            thresholds.await_warn_ms = defaults.await_warn_ms;
            thresholds.await_crit_ms = defaults.await_crit_ms;
        }
    }
    thresholds
}

/// `history_memory`: a size ("512M", "2G") or bytes, from 1 MiB to 1 TiB.
fn parse_history_memory(value: &DeValue) -> Result<u64, String> {
    let what = "a size such as \"512M\" or \"2G\", or bytes";
    let bytes = match value {
        DeValue::String(text) => {
            crate::core::size::parse_size(text).map_err(|_| expected(what, value))?
        }
        DeValue::Integer(i) => integer(i)
            .filter(|b| *b >= 0)
            .map(i64::unsigned_abs)
            .ok_or_else(|| expected(what, value))?,
        _ => return Err(expected(what, value)),
    };
    if (HISTORY_MEMORY_MIN..=HISTORY_MEMORY_MAX).contains(&bytes) {
        Ok(bytes)
    } else {
        Err(format!(
            "must be between 1M and 1024G, found {}",
            describe(value)
        ))
    }
}

/// `fincore_every`: a duration or whole seconds, from 1 s to an hour.
fn parse_fincore_every(value: &DeValue) -> Result<u64, String> {
    let secs = match value {
        DeValue::String(text) => parse_duration(text)?,
        DeValue::Integer(i) => integer(i)
            .filter(|s| *s >= 0)
            .map(i64::unsigned_abs)
            .ok_or_else(|| format!("must be whole seconds, found {}", describe(value)))?,
        _ => {
            return Err(expected(
                "a duration such as \"30s\", or whole seconds",
                value,
            ));
        }
    };
    if (1..=3600).contains(&secs) {
        Ok(secs)
    } else {
        Err(format!(
            "must be between 1 second and 1 hour, found {secs} seconds"
        ))
    }
}

fn history_range() -> String {
    format!(
        "must be between {HISTORY_MIN_SECS} seconds and {} days",
        HISTORY_MAX_SECS / 86_400
    )
}

fn check_history(secs: u64) -> Result<u64, String> {
    if (HISTORY_MIN_SECS..=HISTORY_MAX_SECS).contains(&secs) {
        Ok(secs)
    } else {
        Err(format!("{}, found {secs} seconds", history_range()))
    }
}

/// A history length as the config's `history` takes it: a duration
/// ("90s", "30m", "2h30m", "7d", or bare seconds), from 10 s to 7 days.
pub fn parse_history(text: &str) -> Result<u64, String> {
    check_history(parse_duration(text)?)
}

/// A theme spec that names a file rather than a theme.
pub(crate) fn is_path_spec(spec: &str) -> bool {
    spec.ends_with(".toml") || spec.contains('/')
}

/// One bad key, kept with its byte offset so messages come out in file
/// order and carry the line of the key.
#[derive(Debug)]
pub(crate) struct Problem {
    pub(crate) offset: usize,
    pub(crate) key: String,
    pub(crate) problem: String,
}

impl Problem {
    pub(crate) fn new(at: &Spanned<DeString>, key: String, problem: String) -> Self {
        Problem {
            offset: at.span().start,
            key,
            problem,
        }
    }

    /// The message, with what came from the file (the key, a value quoted
    /// in the problem) made printable.
    fn render(&self, source_name: &str, lines: &Lines) -> String {
        let message = format!(
            "{source_name} line {}, key {}: {}",
            lines.line_of(self.offset),
            self.key,
            self.problem
        );
        printable(&message).into_owned()
    }
}

/// Text from a file made safe for a terminal: an ESC in a quoted key
/// would reach the terminal raw.
pub(crate) use crate::core::text::printable;

/// The line starts of a text, found once: a file with 200,000 bad keys is
/// reported in one pass, not one scan of the file per key.
pub(crate) struct Lines {
    newlines: Vec<usize>,
}

impl Lines {
    pub(crate) fn new(text: &str) -> Lines {
        Lines {
            newlines: text
                .bytes()
                .enumerate()
                .filter_map(|(i, b)| (b == b'\n').then_some(i))
                .collect(),
        }
    }

    /// 1-based line of a byte offset; offsets past the end count as the
    /// last line.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&nl| nl < offset) + 1
    }
}

/// 1-based line of a byte offset; offsets past the end count as the last
/// line rather than panicking on a span from a recovering parser.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    Lines::new(text).line_of(offset)
}

/// A TOML document, or its earliest syntax error. The parser reports errors
/// in the order its recovery meets them, which is not file order: an
/// unterminated string inside an inline table is reported after the
/// confusion it causes on the next line. The user wants the cause.
pub(crate) fn parse_document(text: &str) -> Result<Spanned<DeTable<'_>>, toml::de::Error> {
    let (doc, errors) = DeTable::parse_recoverable(text);
    match errors
        .into_iter()
        .min_by_key(|e| e.span().map_or(usize::MAX, |span| span.start))
    {
        Some(error) => Err(error),
        None => Ok(doc),
    }
}

pub(crate) fn syntax_message(source_name: &str, text: &str, error: &toml::de::Error) -> String {
    let message = match error.span() {
        Some(span) => format!(
            "{source_name} line {}: TOML syntax error: {}",
            line_of(text, span.start),
            error.message()
        ),
        None => format!("{source_name}: TOML syntax error: {}", error.message()),
    };
    printable(&message).into_owned()
}

pub(crate) fn expected(what: &str, found: &DeValue) -> String {
    format!("expected {what}, found {}", describe(found))
}

/// A value as the user wrote it, short enough for a one-line message.
pub(crate) fn describe(value: &DeValue) -> String {
    match value {
        DeValue::String(s) => {
            let shown: String = s.chars().take(40).collect();
            if shown.len() < s.len() {
                format!("string {shown:?}…")
            } else {
                format!("string {shown:?}")
            }
        }
        DeValue::Integer(i) => {
            let prefix = match i.radix() {
                2 => "0b",
                8 => "0o",
                16 => "0x",
                _ => "",
            };
            format!("integer {prefix}{}", i.as_str())
        }
        DeValue::Float(f) => format!("float {}", f.as_str()),
        DeValue::Boolean(b) => format!("boolean {b}"),
        DeValue::Datetime(d) => format!("date-time {d}"),
        DeValue::Array(_) => "an array".to_owned(),
        DeValue::Table(_) => "a table".to_owned(),
    }
}

pub(crate) fn integer(i: &DeInteger) -> Option<i64> {
    i64::from_str_radix(i.as_str(), i.radix()).ok()
}

/// A finite number from an integer or a float; TOML's inf and nan are not
/// settings anyone means.
pub(crate) fn number(value: &DeValue) -> Option<f64> {
    let n = match value {
        DeValue::Integer(i) => integer(i)? as f64,
        DeValue::Float(f) => f.as_str().parse::<f64>().ok()?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn relative_xdg_config_home_is_ignored() {
        let dir = config_dir_from(Some("rel".into()), Some("/home/u".into()));
        assert_eq!(dir, Some(PathBuf::from("/home/u/.config/strata")));
        let dir = config_dir_from(Some("/x".into()), Some("/home/u".into()));
        assert_eq!(dir, Some(PathBuf::from("/x/strata")));
        assert_eq!(config_dir_from(None, None), None);
        assert_eq!(config_dir_from(Some("".into()), Some("".into())), None);
    }

    #[test]
    fn missing_default_file_is_silent_but_missing_explicit_file_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("config.toml");
        let (config, messages) = load_in(None, Some(&missing)).unwrap();
        assert_eq!(config, Config::default());
        assert!(messages.is_empty());
        let e = load_in(Some(&missing), None).unwrap_err();
        assert!(e.contains("config.toml: cannot read config file"), "{e}");
    }

    #[test]
    fn a_device_or_fifo_as_config_is_refused_without_reading_it() {
        // Named (an error) and as the default file (a message).
        let said = crate::core::userfile::testing::fifo_and_zero(|p| {
            let named = load_in(Some(p), None).err();
            let default = load_in(None, Some(p)).ok().map(|(_, m)| m.join("; "));
            format!("{named:?} / {default:?}")
        });
        for (said, kind) in said.iter().zip(["is a FIFO", "/dev/zero is a device"]) {
            assert_eq!(said.matches(kind).count(), 2, "{said}");
        }
    }

    #[test]
    fn relative_theme_path_is_taken_from_the_config_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        fs::write(&file, "theme = \"mine.toml\"\n").unwrap();
        let (config, messages) = load_in(Some(&file), None).unwrap();
        assert!(messages.is_empty(), "{messages:?}");
        let expected = dir.path().join("mine.toml").display().to_string();
        assert_eq!(config.theme, Some(expected));

        fs::write(&file, "theme = \"light\"\n").unwrap();
        let (config, _) = load_in(Some(&file), None).unwrap();
        assert_eq!(config.theme.as_deref(), Some("light"));
    }

    #[test]
    fn history_ticks_covers_the_history_up_to_the_cap() {
        assert_eq!(
            history_ticks(3600, crate::core::duration::Interval::ONE_SECOND),
            (3600, None)
        );
        assert_eq!(
            history_ticks(
                3600,
                crate::core::duration::Interval::from_secs(0.7).unwrap()
            ),
            (5143, None)
        );
        assert_eq!(
            history_ticks(
                10,
                crate::core::duration::Interval::from_secs(3600.0).unwrap()
            ),
            (2, None)
        );
        assert_eq!(
            history_ticks(86_400, crate::core::duration::Interval::ONE_SECOND),
            (MAX_HISTORY_TICKS, None)
        );
        assert_eq!(
            history_ticks(
                HISTORY_MAX_SECS,
                crate::core::duration::Interval::from_secs(7.0).unwrap()
            ),
            (MAX_HISTORY_TICKS, None)
        );

        let (ticks, message) = history_ticks(
            HISTORY_MAX_SECS,
            crate::core::duration::Interval::ONE_SECOND,
        );
        assert_eq!(ticks, MAX_HISTORY_TICKS);
        assert_eq!(
            message.as_deref(),
            Some("history 7d at 1 s needs 604800 samples; keeping the last 86400 (1d)")
        );
        let (ticks, message) = history_ticks(
            86_401,
            crate::core::duration::Interval::from_secs(0.1).unwrap(),
        );
        assert_eq!(ticks, MAX_HISTORY_TICKS);
        assert_eq!(
            message.as_deref(),
            Some("history 1d1s at 0.1 s needs 864010 samples; keeping the last 86400 (2h24m)")
        );
    }

    #[test]
    fn history_ticks_survives_the_widest_history() {
        assert_eq!(
            history_ticks(
                u64::MAX,
                crate::core::duration::Interval::from_secs(0.1).unwrap()
            )
            .0,
            MAX_HISTORY_TICKS
        );
    }

    #[test]
    fn durations_print_as_the_config_spells_them() {
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(90), "1m30s");
        assert_eq!(format_duration(9000), "2h30m");
        assert_eq!(format_duration(604_800), "7d");
        for secs in [1, 59, 3601, 129_600, 1_000_000] {
            assert_eq!(parse_duration(&format_duration(secs)), Ok(secs));
        }
    }

    #[test]
    fn bad_cache_patterns_are_left_out_and_the_good_ones_kept() {
        let text = "cache_files = [\"/u01/*.log\", 3, \"\", \"/u02/[\", \"/u03/a.dbf\"]\n";
        let (config, messages) = parse(text, "c");
        assert_eq!(config.cache_files, ["/u01/*.log", "/u03/a.dbf"]);
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].starts_with("c line 1, key cache_files[1]: expected a glob pattern"));
        assert!(messages[2].contains("key cache_files[3]: bad pattern"));
        let (config, messages) = parse("cache_files = []\n", "c");
        assert!(config.cache_files.is_empty() && messages.is_empty());
    }

    #[test]
    fn cells_are_read() {
        let text = "\
[[cell]]
host = \"exa1cel01\"
user = \"celladmin\"
identity_file = \"/keys/cells\"
label = \"cel01\"

[[cell]]
host = \"10.0.0.2\"
port = 2222
";
        let (config, messages) = parse(text, "c");
        assert!(messages.is_empty(), "{messages:?}");
        assert_eq!(
            config.cells,
            [
                CellEntry {
                    host: "exa1cel01".into(),
                    port: 22,
                    user: Some("celladmin".into()),
                    identity_file: Some("/keys/cells".into()),
                    label: Some("cel01".into()),
                },
                CellEntry {
                    host: "10.0.0.2".into(),
                    port: 2222,
                    user: None,
                    identity_file: None,
                    label: None,
                },
            ]
        );
    }

    #[test]
    fn a_bad_cell_or_node_is_left_out_at_its_line() {
        for kind in ["cell", "node"] {
            let text = format!(
                "[[{kind}]]\nhost = \"h1\"\n\n\
                 [[{kind}]]\nhost = \"h2\"\nport = 70000\n\n\
                 [[{kind}]]\nhost = \"h3\"\nport = 0\n\n\
                 [[{kind}]]\nuser = \"u\"\n\n\
                 [[{kind}]]\nhost = \"h5\"\ncolour = \"red\"\n"
            );
            let (config, messages) = parse(&text, "c");
            let kept = match kind {
                "cell" => config.cells.len(),
                _ => config.nodes.len(),
            };
            assert_eq!(kept, 1, "{kind}");
            assert_eq!(messages.len(), 4, "{messages:?}");
            for (m, (line, key, says)) in messages.iter().zip([
                (6, "[1].port", "a port is 1 to 65535"),
                (10, "[2].port", "a port is 1 to 65535"),
                (12, "[3]", "no host: each [["),
                (17, "[4].colour", "unknown key"),
            ]) {
                let want = format!("c line {line}, key {kind}{key}: {says}");
                assert!(m.starts_with(&want), "{want} in {messages:?}");
            }
            let (_, messages) = parse(&format!("{kind} = \"h\"\n"), "c");
            assert!(
                messages[0].contains(&format!("[[{kind}]] tables")),
                "{messages:?}"
            );
        }
    }

    #[test]
    fn nodes_are_read_as_cells_are_and_the_local_host_takes_no_ssh_keys() {
        let text = "\
[[node]]
host = \"local\"

[[node]]
host = \"exa1db02\"
port = 2200
user = \"oracle\"
identity_file = \"/keys/nodes\"
label = \"db02\"

[[node]]
host = \"local\"
user = \"root\"
";
        let (config, messages) = parse(text, "c");
        assert!(config.cells.is_empty());
        let nodes: Vec<NodeTarget> = config.nodes.iter().map(|n| n.node("grid")).collect();
        assert_eq!(
            nodes,
            [
                NodeTarget::Local {
                    label: "local".into()
                },
                NodeTarget::Remote(HostTarget {
                    label: "db02".into(),
                    host: "exa1db02".into(),
                    port: 2200,
                    user: "oracle".into(),
                    identity: Some("/keys/nodes".into()),
                }),
            ]
        );
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("c line 11, key node[2]: host = \"local\" is the local host"),
            "{messages:?}"
        );
        // A local node keeps its label; a [[cell]] named local is a host.
        let (config, messages) = parse(
            "[[node]]\nhost = \"local\"\nlabel = \"db01\"\n[[cell]]\nhost = \"local\"\nport = 2\n",
            "c",
        );
        assert!(messages.is_empty(), "{messages:?}");
        assert_eq!(config.nodes[0].node("u").label(), "db01");
        assert_eq!(config.cells[0].target("u").label, "local:2");
    }

    #[test]
    fn line_of_counts_from_one_and_tolerates_bad_offsets() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
        let lines = Lines::new("a\nb\nc");
        for offset in 0..8 {
            assert_eq!(
                lines.line_of(offset),
                line_of("a\nb\nc", offset),
                "{offset}"
            );
        }
        assert_eq!(Lines::new("").line_of(5), 1);
    }

    #[test]
    fn local_takes_no_port_even_22_as_local_22_in_a_group_file() {
        let (config, messages) = parse("[[node]]\nhost = \"local\"\nport = 22\n", "c");
        assert!(config.nodes.is_empty(), "{:?}", config.nodes);
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].contains("is the local host, read without SSH: it takes no port"),
            "{messages:?}"
        );
        let (_, errors) = crate::link::target::parse_node_group("local:22\n", "u");
        assert!(errors[0].contains("local is the local host"), "{errors:?}");
    }

    #[test]
    fn escapes_in_a_host_user_or_label_are_refused_and_never_printed() {
        for (key, value) in [
            ("host", "db\\u001b]0;PWN\\u0007"),
            ("host", "db\\u0000\\u0008\\u007f01"),
            ("host", "db\\u009b2J"),
            ("user", "or\\u001b[2Jacle"),
            ("label", "db\\u202e10"),
        ] {
            let text = format!("[[node]]\nhost = \"db01\"\n{key} = \"{value}\"\n");
            let text = text.replacen("host = \"db01\"\n", "", usize::from(key == "host"));
            let (config, messages) = parse(&text, "c");
            assert!(config.nodes.is_empty(), "{key}: {:?}", config.nodes);
            assert_eq!(messages.len(), 1, "{key}: {messages:?}");
            assert!(!messages[0].contains(is_unsafe), "{messages:?}");
        }
    }

    #[test]
    fn a_control_character_in_a_key_never_reaches_the_terminal() {
        let (_, messages) = parse("\"\\u001b[2Jx\" = 1\n", "c");
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(!messages[0].contains('\u{1b}'), "{messages:?}");
        assert!(messages[0].contains("key ?[2Jx"), "{messages:?}");
    }

    #[test]
    fn fifty_thousand_unknown_keys_are_each_reported_with_their_line() {
        let text: String = (0..50_000).map(|i| format!("k{i} = 1\n")).collect();
        let (_, messages) = parse(&text, "c");
        assert_eq!(messages.len(), 50_000);
        assert!(
            messages[0].starts_with("c line 1, key k0: unknown key"),
            "{}",
            messages[0]
        );
        assert!(
            messages[49_999].starts_with("c line 50000, key k49999: unknown key"),
            "{}",
            messages[49_999]
        );
    }

    #[test]
    fn dbs_are_read_with_their_password_variable_and_a_bad_one_left_out() {
        let text = "[[db]]\nconnect = \"dbsnmp@//db1:1521/PROD\"\npassword_env = \"PROD_PW\"\n\n[[db]]\nconnect = \"/\"\nlabel = \"local\"\n\n[[db]]\nconnect = \"system/manager@PROD\"\n\n[[db]]\nlabel = \"x\"\n";
        let (config, messages) = parse(text, "c");
        let got: Vec<_> = config
            .dbs
            .iter()
            .map(|d| {
                (
                    d.target.label.as_str(),
                    d.target.password_env.as_str(),
                    d.target.external,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("dbsnmp@//db1:1521/PROD", "PROD_PW", false),
                ("local", "STRATA_DB_PASSWORD", true)
            ]
        );
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0].contains("db[2].connect") && !messages[0].contains("manager"),
            "{messages:?}"
        );
        assert!(messages[1].contains("db[3]: no connect"), "{messages:?}");
    }
}

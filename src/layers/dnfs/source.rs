//! Oracle Direct NFS over SQL: one connection per database, owned by one
//! blocking thread (the oracle crate is synchronous), reading
//! gv$dnfs_stats, gv$dnfs_servers, gv$dnfs_channels and gv$dnfs_files
//! with `SELECT *`, so the columns of whatever release answers come from
//! the result set's own metadata. The rows go to the pure mapper
//! (`layers::dnfs::dnfs_sample::map_rows`) as [`SqlRows`], as the fixtures do.
//! gv$instance (which host each INST_ID runs on, for the per-instance path
//! view) is read at connect and every [`INSTANCES_EVERY`] after, not at
//! every sample: instances move between nodes rarely.
//!
//! ```text
//!  run_db (one std::thread per database)
//!   connect ─► call timeout ─► gv$instance ─► DbEvent::Instances (again every INSTANCES_EVERY)
//!                          └─► every interval: clock + 4 views ─► DbEvent::Sample
//!      ▲                                          │ ORA- error: DbEvent::Status(QueryFailed)
//!      └── capped exponential backoff ◄── lost ───┘ connection gone: reconnect
//! ```
//!
//! The Oracle client library (libclntsh) is loaded at run time by ODPI-C,
//! on the first call. Without it every connect fails with DPI-1047; the
//! database's status says so, where the loader looked and how to fix it,
//! and the thread keeps retrying slowly, so the rest of strata is not
//! touched and a client installed later is picked up.

use super::dnfs_sample::{
    CHANNELS_VIEW, DnfsInstances, DnfsRows, DnfsSample, FILES_VIEW, INSTANCE_VIEW, SERVERS_VIEW,
    STATS_VIEW, map_instance_rows, map_rows,
};
use super::error::{DbError, OraError, RowProblem};
use super::sql_rows::SqlRows;
use crate::link::backoff::backoff;
use crate::link::{PassphraseStore, Secret};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The environment variable a database's password comes from unless the
/// config names another. Never from the command line: it would show in
/// `ps` and in shell history.
pub const DEFAULT_PASSWORD_ENV: &str = "STRATA_DB_PASSWORD";

/// The database clock, read just before the views, in a form the pure
/// mapper parses (`parse_db_clock`).
pub const CLOCK_SQL: &str =
    "SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD HH24:MI:SS.FF3') FROM DUAL";

/// The instances and their hosts. Named columns: all three exist in every
/// release strata reads.
pub const INSTANCES_SQL: &str = "SELECT INST_ID, INSTANCE_NAME, HOST_NAME FROM gv$instance";

/// How often gv$instance is read again on a live connection: an instance
/// that moved (a RAC One Node relocation, a policy-managed pool) shows on
/// the right node within this.
pub const INSTANCES_EVERY: Duration = Duration::from_secs(300);

/// One database to read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DbTarget {
    /// What the panel calls it.
    pub label: String,
    /// Empty with `external`.
    pub user: String,
    /// EZConnect `//host:port/service`, a TNS alias, or empty for the
    /// local default (ORACLE_SID) with `/`.
    pub connect: String,
    /// OS authentication or a wallet (`/` or `/@alias`): no password.
    pub external: bool,
    /// The variable holding the password.
    pub password_env: String,
}

/// `--db` as typed: `user@//host:port/service`, `user@alias`, `/`, or
/// `/@alias`. A password in the spec (`user/pw@...`) is refused: it would
/// be visible to every user of the host.
pub fn parse_db_spec(spec: &str) -> Result<DbTarget, String> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err("an empty database: give user@//host:port/service, user@alias or /".into());
    }
    let target = |user: &str, connect: &str, external: bool| DbTarget {
        label: if external && connect.is_empty() {
            "/".to_string()
        } else if external {
            connect.to_string()
        } else {
            format!("{user}@{connect}")
        },
        user: user.to_string(),
        connect: connect.to_string(),
        external,
        password_env: DEFAULT_PASSWORD_ENV.to_string(),
    };
    if spec == "/" {
        return Ok(target("", "", true));
    }
    if let Some(alias) = spec.strip_prefix("/@") {
        return Ok(target("", alias.trim(), true));
    }
    // Before anything is echoed: `scott/tiger` (with or without an @) holds
    // a password, which an error message must not print back.
    if spec
        .split('@')
        .next()
        .is_some_and(|user| user.contains('/'))
    {
        return Err(format!(
            "a database given as user/password: no password on the command line; put it in {DEFAULT_PASSWORD_ENV} (or the variable password_env names in the config)"
        ));
    }
    let Some((user, connect)) = spec.split_once('@') else {
        return Err(format!(
            "{spec:?}: expected user@//host:port/service, user@alias or / (the password comes from {DEFAULT_PASSWORD_ENV})"
        ));
    };
    if user.is_empty() || connect.trim().is_empty() || user.contains(char::is_whitespace) {
        return Err(format!(
            "{spec:?}: expected user@//host:port/service or user@alias"
        ));
    }
    Ok(target(user, connect.trim(), false))
}

/// One `[[db]]` of the config, already checked as `--db` is.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DbEntry {
    pub target: DbTarget,
}

/// The databases of `--db` (first) and the config's `[[db]]` entries; a
/// bad `--db` becomes a message and is left out.
pub fn db_targets(specs: &[String], config: &[DbEntry]) -> (Vec<DbTarget>, Vec<String>) {
    let mut problems = Vec::new();
    let mut out: Vec<DbTarget> = Vec::new();
    for s in specs {
        match parse_db_spec(s) {
            Ok(t) => out.push(t),
            Err(e) => problems.push(format!("--db: {e}")),
        }
    }
    for e in config {
        if !out
            .iter()
            .any(|t| t.user == e.target.user && t.connect == e.target.connect)
        {
            out.push(e.target.clone());
        }
    }
    (out, problems)
}

/// What the database panel says of a database's connection.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DbStatus {
    Connecting,
    /// Readings are arriving.
    Live,
    /// The Oracle client library could not be loaded (DPI-1047): the
    /// driver's message, then where the loader looked and how to fix it.
    ClientMissing(DbError),
    /// No password: the variable (named here) is unset.
    NoPassword(String),
    /// Connecting failed, or the connection went.
    ConnectFailed(DbError),
    /// A query failed on a live connection, or its rows could not be
    /// read; the thread goes on with the next interval.
    QueryFailed(DbError),
}

impl DbStatus {
    /// The error behind a state that has one.
    pub fn error(&self) -> Option<&DbError> {
        match self {
            DbStatus::ClientMissing(e) | DbStatus::ConnectFailed(e) | DbStatus::QueryFailed(e) => {
                Some(e)
            }
            DbStatus::Connecting | DbStatus::Live | DbStatus::NoPassword(_) => None,
        }
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum DbEvent {
    Status {
        db: usize,
        status: DbStatus,
    },
    Sample {
        db: usize,
        sample: DnfsSample,
    },
    /// gv$instance as read at connect and every [`INSTANCES_EVERY`].
    Instances {
        db: usize,
        instances: DnfsInstances,
    },
}

/// How an oracle error is shown: the client missing (with where the
/// dynamic loader looked, which is what ODPI-C uses to find
/// libclntsh.so), or the error itself.
pub fn describe_error(err: &oracle::Error) -> DbStatus {
    let error = ora_error(err);
    if error.names("DPI-1047") {
        return DbStatus::ClientMissing(DbError::ClientMissing {
            error,
            ld_library_path: std::env::var("LD_LIBRARY_PATH").ok(),
        });
    }
    DbStatus::ConnectFailed(DbError::Oracle(error))
}

/// An oracle error by its own text, which starts with its ORA- or DPI-
/// code.
fn ora_error(err: &oracle::Error) -> OraError {
    match err.db_error() {
        Some(e) => OraError::of_text(e.message()),
        None => OraError::of_text(&err.to_string()),
    }
}

/// Whether the connection is gone (reconnect) rather than one query
/// failing (try again next interval), by a code of the error's stack:
/// ORA-03113, 03114, 03135, 12537, 12570, 28 (session killed), 1012 (not
/// logged on), DPI-1010 (not connected), DPI-1080 (connection closed by
/// call timeout).
pub fn connection_lost(e: &OraError) -> bool {
    const LOST: [&str; 9] = [
        "ORA-03113",
        "ORA-03114",
        "ORA-03135",
        "ORA-12537",
        "ORA-12570",
        "ORA-00028",
        "ORA-01012",
        "DPI-1010",
        "DPI-1080",
    ];
    e.codes().any(|c| LOST.contains(&c))
}

/// How a database is read.
#[derive(Debug, Clone)]
pub struct DbOptions {
    pub interval: Duration,
    /// Per call: a v$ query behind a latch or a dead network must not
    /// hold the thread for ever (needs an 18c or later client; older
    /// clients go without).
    pub call_timeout: Duration,
    pub backoff_first: Duration,
    pub backoff_cap: Duration,
    /// Passwords typed in the TUI, by database label; none in batch mode.
    pub passwords: PassphraseStore,
}

impl DbOptions {
    pub fn new(interval: Duration) -> DbOptions {
        DbOptions {
            interval,
            call_timeout: Duration::from_secs(5),
            backoff_first: Duration::from_secs(1),
            backoff_cap: Duration::from_secs(60),
            passwords: PassphraseStore::default(),
        }
    }
}

/// Connects as the target says, the password from its variable, else the
/// one `typed` in the TUI.
pub fn connect(
    target: &DbTarget,
    call_timeout: Duration,
    typed: Option<zeroize::Zeroizing<String>>,
) -> Result<oracle::Connection, DbStatus> {
    let password = if target.external {
        zeroize::Zeroizing::default()
    } else {
        let env = std::env::var(&target.password_env)
            .ok()
            .map(zeroize::Zeroizing::new);
        match env.or(typed) {
            Some(p) => p,
            None => return Err(DbStatus::NoPassword(target.password_env.clone())),
        }
    };
    // (the Connector keeps a copy of its own, out of reach)
    let mut c = oracle::Connector::new(
        target.user.as_str(),
        password.as_str(),
        target.connect.as_str(),
    );
    if target.external {
        c.external_auth(true);
    }
    let conn = c.connect().map_err(|e| describe_error(&e))?;
    // An older client refuses a call timeout; reading without one is
    // still better than not reading.
    let _ = conn.set_call_timeout(Some(call_timeout));
    Ok(conn)
}

/// A query's rows with the column names its metadata gives; every value
/// as Oracle renders it as text.
fn query_rows(conn: &oracle::Connection, sql: &str) -> Result<SqlRows, oracle::Error> {
    let rs = conn.query(sql, &[])?;
    let mut out = SqlRows::new(
        rs.column_info()
            .iter()
            .map(|c| c.name().to_string())
            .collect(),
    );
    for row in rs {
        let row = row?;
        out.rows.push(
            row.sql_values()
                .iter()
                .map(|v| v.get::<Option<String>>())
                .collect::<Result<_, _>>()?,
        );
    }
    Ok(out)
}

/// One reading: the clock, then the four views.
pub fn read_rows(conn: &oracle::Connection, wall_ms: i64) -> Result<DnfsRows, oracle::Error> {
    let clock: Option<String> = conn.query_row_as(CLOCK_SQL, &[])?;
    let view = |v: &str| query_rows(conn, &format!("SELECT * FROM {v}"));
    Ok(DnfsRows {
        wall_ms,
        db_clock: clock.unwrap_or_default(),
        stats: view(STATS_VIEW)?,
        servers: view(SERVERS_VIEW)?,
        channels: view(CHANNELS_VIEW)?,
        files: view(FILES_VIEW)?,
    })
}

/// gv$instance's rows, mapped; a failed query or an unreadable result is
/// said in the problems, since the dNFS figures do without the hosts.
pub fn read_instances(conn: &oracle::Connection, wall_ms: i64) -> DnfsInstances {
    let failed = |why: RowProblem| DnfsInstances {
        wall_ms,
        rows: Vec::new(),
        problems: vec![why],
    };
    match query_rows(conn, INSTANCES_SQL) {
        // the mapper's error names the view
        Ok(rows) => map_instance_rows(wall_ms, &rows)
            .unwrap_or_else(|e| failed(RowProblem::Unmapped(e.into()))),
        Err(e) => failed(RowProblem::Query {
            view: INSTANCE_VIEW.to_string(),
            error: ora_error(&e),
        }),
    }
}

/// Sleeps `d` in short steps; false when cancelled.
fn sleep(d: Duration, cancel: &CancellationToken) -> bool {
    let until = Instant::now() + d;
    while !cancel.is_cancelled() {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(Duration::from_millis(100)));
    }
    false
}

/// Keeps database `db` read until `cancel` fires or the receiver goes.
/// Run it on its own thread (`std::thread::spawn`): every call blocks.
pub fn run_db(
    db: usize,
    target: DbTarget,
    opts: DbOptions,
    tx: mpsc::Sender<DbEvent>,
    cancel: CancellationToken,
) {
    let mut last: Option<DbStatus> = None;
    let mut status = |s: DbStatus| -> bool {
        if last.as_ref() == Some(&s) {
            return true;
        }
        last = Some(s.clone());
        tx.blocking_send(DbEvent::Status { db, status: s }).is_ok()
    };
    let mut failures = 0u32;
    let seed =
        crate::core::clock::now_ms() as u64 ^ (db as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    // waits before reconnect attempt `n`; false when cancelled
    let back_off = |n: u32| {
        let wait = backoff(n, opts.backoff_first, opts.backoff_cap, seed.rotate_left(n));
        sleep(wait, &cancel)
    };
    if !status(DbStatus::Connecting) {
        return;
    }
    let key = Secret::Database(target.label.clone());
    while !cancel.is_cancelled() {
        let typed = opts.passwords.get(key.clone());
        let tried = typed.clone();
        let conn = match connect(&target, opts.call_timeout, typed) {
            Ok(c) => c,
            Err(s @ DbStatus::NoPassword(_)) => {
                // the TUI asks for it; a typed password is tried at once
                if !status(s) || !wait_for_password(&opts.passwords, &key, &cancel) {
                    return;
                }
                continue;
            }
            Err(s) if tried.is_some() && password_refused(&s) => {
                // forgotten, so that the prompt asks again and says why
                if let Some(wrong) = &tried {
                    opts.passwords.forget_if(key.clone(), wrong);
                }
                if !status(s) {
                    return;
                }
                continue;
            }
            Err(s) => {
                failures = failures.saturating_add(1);
                if !status(s) || !back_off(failures) {
                    return;
                }
                continue;
            }
        };
        failures = 0;
        let start = Instant::now();
        let mut n = 0u32;
        let mut instances_at: Option<Instant> = None;
        loop {
            if instances_at.is_none_or(|at| at.elapsed() >= INSTANCES_EVERY) {
                instances_at = Some(Instant::now());
                let instances = read_instances(&conn, crate::core::clock::now_ms());
                if tx
                    .blocking_send(DbEvent::Instances { db, instances })
                    .is_err()
                {
                    return;
                }
            }
            let Some(lost) = read_once(&conn, db, &tx, &mut status) else {
                return;
            };
            if lost {
                break;
            }
            // deadlines from the start: a slow query uses up its interval
            n = n.saturating_add(1);
            let due = start + opts.interval.saturating_mul(n);
            if !sleep(due.saturating_duration_since(Instant::now()), &cancel) {
                let _ = conn.close();
                return;
            }
        }
        let _ = conn.close();
        failures = failures.saturating_add(1);
        if !back_off(failures) {
            return;
        }
    }
}

/// Reads the views once and sends what came of it: `None` when the
/// receiver is gone, else whether the connection was lost.
fn read_once(
    conn: &oracle::Connection,
    db: usize,
    tx: &mpsc::Sender<DbEvent>,
    status: &mut impl FnMut(DbStatus) -> bool,
) -> Option<bool> {
    match read_rows(conn, crate::core::clock::now_ms()) {
        Ok(rows) => match map_rows(&rows) {
            Ok(sample) => {
                if !status(DbStatus::Live) {
                    return None;
                }
                if tx.blocking_send(DbEvent::Sample { db, sample }).is_err() {
                    return None;
                }
                Some(false)
            }
            Err(e) => {
                if !status(DbStatus::QueryFailed(e.into())) {
                    return None;
                }
                Some(false)
            }
        },
        Err(e) => {
            let e = ora_error(&e);
            let lost = connection_lost(&e);
            let s = if lost {
                DbStatus::ConnectFailed(DbError::ConnectionLost(e))
            } else {
                DbStatus::QueryFailed(DbError::Oracle(e))
            };
            if !status(s) {
                return None;
            }
            Some(lost)
        }
    }
}

/// ORA-01017: invalid username/password; logon denied, by a code of the
/// error's stack as [`connection_lost`] looks.
fn password_refused(s: &DbStatus) -> bool {
    matches!(s, DbStatus::ConnectFailed(DbError::Oracle(e)) if e.names("ORA-01017"))
}

/// Waits until `store` holds `key`; false when cancelled.
fn wait_for_password(store: &PassphraseStore, key: &Secret, cancel: &CancellationToken) -> bool {
    while !store.has(key.clone()) {
        if !sleep(Duration::from_millis(200), cancel) {
            return false;
        }
    }
    true
}

/// Starts one reader thread per database (index = position in
/// `targets`). The threads end when `cancel` fires or `tx`'s receiver
/// goes; one stuck in a call ends at its call timeout.
pub fn spawn_dbs(
    targets: &[DbTarget],
    opts: &DbOptions,
    tx: mpsc::Sender<DbEvent>,
    cancel: &CancellationToken,
) -> Vec<std::thread::JoinHandle<()>> {
    targets
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (t, opts, tx, cancel) = (t.clone(), opts.clone(), tx.clone(), cancel.clone());
            std::thread::Builder::new()
                .name(format!("strata-db-{i}"))
                .spawn(move || run_db(i, t, opts, tx, cancel))
        })
        .filter_map(Result::ok)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let t = parse_db_spec("dbsnmp@//db1:1521/PROD").unwrap();
        assert_eq!(
            (t.user.as_str(), t.connect.as_str(), t.external),
            ("dbsnmp", "//db1:1521/PROD", false)
        );
        assert_eq!(t.label, "dbsnmp@//db1:1521/PROD");
        assert_eq!(t.password_env, DEFAULT_PASSWORD_ENV);
        assert!(parse_db_spec("/").unwrap().external);
        assert_eq!(parse_db_spec("/@PRODW").unwrap().connect, "PRODW");
        assert_eq!(parse_db_spec("system@PROD").unwrap().connect, "PROD");
        let pw = parse_db_spec("system/manager@PROD").unwrap_err();
        assert!(pw.contains("no password on the command line"), "{pw}");
        assert!(!pw.contains("manager"), "never echo the password: {pw}");
        assert!(parse_db_spec("PROD").is_err());
        assert!(parse_db_spec("@PROD").is_err());
        assert!(parse_db_spec("").is_err());
    }

    #[test]
    fn lost_connections_and_query_errors() {
        let lost = |t| connection_lost(&OraError::of_text(t));
        assert!(lost("ORA-03113: end-of-file on communication channel"));
        assert!(lost("DPI-1080: connection was closed by ORA-3156"));
        assert!(lost(
            "ORA-00604: error occurred at recursive SQL level 1\nORA-03113: end-of-file on communication channel"
        ));
        assert!(!lost("ORA-00942: table or view does not exist"));
        // OCI that cannot load its message files still names the code
        assert!(lost(
            "Error while trying to retrieve text for error ORA-03113"
        ));
    }

    #[test]
    fn a_refused_password_is_known_by_its_code() {
        let refused = |t| {
            password_refused(&DbStatus::ConnectFailed(DbError::Oracle(
                OraError::of_text(t),
            )))
        };
        assert!(refused(
            "ORA-01017: invalid username/password; logon denied"
        ));
        assert!(!refused("ORA-12541: TNS:no listener"));
        assert!(!refused("ORA-28000: The account is locked."));
        assert!(refused(
            "Error while trying to retrieve text for error ORA-01017"
        ));
    }
}

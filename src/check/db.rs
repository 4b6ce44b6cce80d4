//! The Oracle client library and each database of `--db`: loaded or
//! DPI-1047 with its fix, as the dNFS source words it
//! (`layers::dnfs::source::describe_error`), then a connection and one
//! reading of the gv$dnfs_* views with the monitor's own calls.

use super::{CheckLine, Status};
use crate::layers::dnfs::error::DbError;
use crate::layers::dnfs::source::{DbStatus, DbTarget};
use std::time::Duration;

/// How long one database may take to connect and answer.
pub const DB_LIMIT: Duration = Duration::from_secs(20);

/// A DPI-1047's words split into what happened and what fixes it, at the
/// `| Fix:` its Display puts between them.
/// Its other ` | ` become `; `: the line's own ` | fix:` stays the only one.
fn what_and_fix(text: &str) -> (String, Option<String>) {
    match text.split_once(" | Fix: ") {
        Some((what, fix)) => (what.replace(" | ", "; "), Some(fix.to_string())),
        None => (text.replace(" | ", "; "), None),
    }
}

/// The client library line: its version when ODPI-C loaded it, else the
/// error (DPI-1047 with where the loader looked and the fix). `asked`:
/// a database was named, so a missing client fails.
pub fn client_line(target: &str, client: &Result<String, DbStatus>, asked: bool) -> CheckLine {
    match client {
        Ok(version) => CheckLine::ok(
            target,
            "oracle",
            format!("Oracle client library loaded: version {version}"),
        ),
        Err(status) => {
            let text = status
                .error()
                .map(DbError::to_string)
                .unwrap_or_else(|| format!("{status:?}"));
            let (mut what, fix) = what_and_fix(&text);
            let state = if asked {
                Status::Fail
            } else {
                what.push_str(" (needed only with --db)");
                Status::NotAsked
            };
            let line = CheckLine::new(target, "oracle", state, what);
            match fix {
                Some(f) => line.with_fix(f),
                None => line,
            }
        }
    }
}

/// One database: what a connection and one reading gave, or why none.
pub fn db_line(
    target: &DbTarget,
    client_loaded: bool,
    result: Option<Result<(usize, usize), DbStatus>>,
) -> CheckLine {
    let label = target.label.as_str();
    if !client_loaded {
        return CheckLine::new(
            label,
            "dnfs",
            Status::Fail,
            "not connected: the Oracle client library is missing (the oracle line above)",
        )
        .with_fix("install the client as the oracle line says, then run strata check again");
    }
    match result {
        None => CheckLine::new(
            label,
            "dnfs",
            Status::Fail,
            format!("no answer within {} s", DB_LIMIT.as_secs()),
        )
        .with_fix("check the connect string, the listener and the network to it (tnsping)"),
        Some(Ok((servers, channels))) => CheckLine::ok(
            label,
            "dnfs",
            format!("connected; gv$dnfs_* read: {servers} NFS servers, {channels} channels"),
        ),
        Some(Err(DbStatus::NoPassword(env))) => CheckLine::new(
            label,
            "dnfs",
            Status::Fail,
            format!("no password: {env} is not set (strata check never prompts)"),
        )
        .with_fix(format!(
            "export {env} before strata check, or use OS authentication or a wallet (--db / or /@alias)"
        )),
        Some(Err(status)) => {
            let text = status
                .error()
                .map(DbError::to_string)
                .unwrap_or_else(|| format!("{status:?}"));
            let (what, fix) = what_and_fix(&text);
            let fix = fix.unwrap_or_else(|| {
                if text.contains("ORA-01017") {
                    "check the user and its password".into()
                } else if text.contains("ORA-00942") {
                    "grant the user SELECT on the gv$dnfs_* views (SELECT_CATALOG_ROLE)".into()
                } else {
                    "look the code up (oerr ora NNNNN) and check the connect string".into()
                }
            });
            CheckLine::new(label, "dnfs", Status::Fail, what).with_fix(fix)
        }
    }
}

/// Connects and reads once on a thread of its own: a dead listener must
/// not hold the check past [`DB_LIMIT`].
fn try_db(target: &DbTarget) -> Option<Result<(usize, usize), DbStatus>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let t = target.clone();
    std::thread::spawn(move || {
        let r = crate::layers::dnfs::source::connect(&t, Duration::from_secs(5), None).and_then(
            |conn| {
                crate::layers::dnfs::source::read_rows(&conn, crate::core::clock::now_ms())
                    .map(|rows| (rows.servers.rows.len(), rows.channels.rows.len()))
                    .map_err(|e| crate::layers::dnfs::source::describe_error(&e))
            },
        );
        let _ = tx.send(r);
    });
    rx.recv_timeout(DB_LIMIT).ok()
}

/// The client line of this host, then one line per database.
pub fn check(target: &str, dbs: &[DbTarget]) -> Vec<CheckLine> {
    let client = oracle::Version::client()
        .map(|v| v.to_string())
        .map_err(|e| crate::layers::dnfs::source::describe_error(&e));
    let mut lines = vec![client_line(target, &client, !dbs.is_empty())];
    for db in dbs {
        lines.push(match client {
            Ok(_) => db_line(db, true, try_db(db)),
            Err(_) => db_line(db, false, None),
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::dnfs::error::OraError;

    fn missing() -> DbStatus {
        DbStatus::ClientMissing(DbError::ClientMissing {
            error: OraError::of_text(
                "DPI-1047: Cannot locate a 64-bit Oracle Client library: \"libclntsh.so: cannot open shared object file: No such file or directory\"",
            ),
            ld_library_path: None,
        })
    }

    #[test]
    fn a_missing_client_says_dpi_1047_and_its_fix_and_fails_only_when_asked() {
        let l = client_line("this host", &Err(missing()), true);
        assert_eq!(l.status, Status::Fail);
        assert!(
            l.what
                .starts_with("Oracle client library not found. DPI-1047: Cannot locate"),
            "{l:?}"
        );
        assert!(l.what.ends_with("directory\"; Looked for libclntsh.so in: LD_LIBRARY_PATH (unset), the ld.so cache, /lib and /usr/lib."), "{l:?}");
        assert!(
            l.fix
                .as_deref()
                .unwrap()
                .starts_with("install Oracle Instant Client"),
            "{l:?}"
        );
        let l = client_line("this host", &Err(missing()), false);
        assert_eq!(l.status, Status::NotAsked);
        assert!(l.what.ends_with("(needed only with --db)"), "{l:?}");
        let l = client_line("this host", &Ok("19.22.0.0.0".into()), true);
        assert_eq!(l.what, "Oracle client library loaded: version 19.22.0.0.0");
    }

    #[test]
    fn a_database_says_what_stops_it() {
        let t = crate::layers::dnfs::source::parse_db_spec("dbsnmp@//db1:1521/PROD").unwrap();
        assert_eq!(db_line(&t, false, None).status, Status::Fail);
        let l = db_line(
            &t,
            true,
            Some(Err(DbStatus::NoPassword("STRATA_DB_PASSWORD".into()))),
        );
        assert!(l.fix.unwrap().starts_with("export STRATA_DB_PASSWORD"));
        let l = db_line(&t, true, Some(Ok((2, 8))));
        assert_eq!(
            l.what,
            "connected; gv$dnfs_* read: 2 NFS servers, 8 channels"
        );
    }
}

//! The oracle crate for real. No Oracle client can be installed on the
//! machines strata is built on, so:
//! - the missing-client path runs for real: ODPI-C tries to load
//!   libclntsh.so, fails, and strata's status carries DPI-1047, where the
//!   loader looked and how to fix it, while the reader keeps retrying;
//! - a live test reads a real database when STRATA_TEST_ORACLE holds a
//!   connect string (password in STRATA_DB_PASSWORD), and says SKIPPED
//!   otherwise.

use std::time::Duration;
use strata::layers::dnfs::dnfs_sample::map_rows;
use strata::layers::dnfs::model::{DnfsBaseline, DnfsCol};
use strata::layers::dnfs::source::{
    DbEvent, DbOptions, DbStatus, connect, parse_db_spec, read_instances, read_rows, run_db,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Whether this machine has an Oracle client after all, in which case the
/// missing-client test has nothing to show.
fn client_present() -> bool {
    let dirs = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
    dirs.split(':')
        .filter(|d| !d.is_empty())
        .chain(["/usr/lib", "/usr/lib/x86_64-linux-gnu", "/lib"])
        .any(|d| std::path::Path::new(d).join("libclntsh.so").exists())
}

#[test]
fn without_a_client_connect_says_dpi_1047_where_it_looked_and_how_to_fix() {
    if client_present() {
        println!("SKIPPED: an Oracle client is installed here");
        return;
    }
    let target = parse_db_spec("/").unwrap();
    let err = connect(&target, Duration::from_secs(1), None)
        .err()
        .unwrap();
    let DbStatus::ClientMissing(e) = err else {
        panic!("{err:?}");
    };
    // the driver's code is kept as data
    assert_eq!(e.code(), Some("DPI-1047"), "{e:?}");
    let text = e.to_string();
    println!("{text}");
    assert!(
        text.contains("DPI-1047: Cannot locate a 64-bit Oracle Client library"),
        "{text}"
    );
    assert!(text.contains("libclntsh.so"), "{text}");
    assert!(text.contains("LD_LIBRARY_PATH"), "{text}");
    assert!(text.contains("Instant Client"), "{text}");
}

#[test]
fn without_a_client_the_reader_reports_and_keeps_retrying_until_cancelled() {
    if client_present() {
        println!("SKIPPED: an Oracle client is installed here");
        return;
    }
    let (tx, mut rx) = mpsc::channel(16);
    let cancel = CancellationToken::new();
    let mut opts = DbOptions::new(Duration::from_millis(100));
    opts.backoff_first = Duration::from_millis(20);
    opts.backoff_cap = Duration::from_millis(40);
    let target = parse_db_spec("/").unwrap();
    let c = cancel.clone();
    let th = std::thread::spawn(move || run_db(3, target, opts, tx, c));
    let first = rx.blocking_recv().unwrap();
    assert!(matches!(
        first,
        DbEvent::Status {
            db: 3,
            status: DbStatus::Connecting
        }
    ));
    let second = rx.blocking_recv().unwrap();
    let DbEvent::Status {
        db: 3,
        status: DbStatus::ClientMissing(text),
    } = second
    else {
        panic!("{second:?}");
    };
    assert_eq!(text.code(), Some("DPI-1047"), "{text:?}");
    // retries go on (the same status is not sent again) until cancelled
    std::thread::sleep(Duration::from_millis(300));
    assert!(!th.is_finished(), "the reader gave up");
    cancel.cancel();
    let started = std::time::Instant::now();
    while !th.is_finished() && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(th.is_finished(), "cancel stops the reader within 5 s");
    assert!(rx.try_recv().is_err(), "no repeated status while retrying");
}

#[test]
fn no_password_in_the_environment_is_said_before_any_connect() {
    let mut target = parse_db_spec("dbsnmp@//127.0.0.1:1/NONE").unwrap();
    target.password_env = "STRATA_TEST_SURELY_UNSET_PASSWORD".into();
    let err = connect(&target, Duration::from_secs(1), None)
        .err()
        .unwrap();
    assert_eq!(
        err,
        DbStatus::NoPassword("STRATA_TEST_SURELY_UNSET_PASSWORD".into())
    );
}

#[test]
fn live_database_when_strata_test_oracle_is_set() {
    let Ok(spec) = std::env::var("STRATA_TEST_ORACLE") else {
        println!(
            "SKIPPED: STRATA_TEST_ORACLE is not set (user@//host:port/service; password in STRATA_DB_PASSWORD)"
        );
        return;
    };
    let target = parse_db_spec(&spec).unwrap();
    let conn = match connect(&target, Duration::from_secs(10), None) {
        Ok(c) => c,
        Err(s) => panic!("{s:?}"),
    };
    let instances = read_instances(&conn, 0);
    println!("live: gv$instance {instances:?}");
    assert!(instances.problems.is_empty(), "{:?}", instances.problems);
    assert!(!instances.rows.is_empty(), "every database has an instance");
    let mut b = DnfsBaseline::default();
    let a = map_rows(&read_rows(&conn, 0).unwrap()).unwrap();
    b.tick(&a);
    std::thread::sleep(Duration::from_secs(2));
    let s = map_rows(&read_rows(&conn, 0).unwrap()).unwrap();
    let t = b.tick(&s);
    println!(
        "live: shape {:?}, in use {}, interval {:?} ms, IOPS {:?}, rMB/s {:?}, counting {:?}, rejected {:?}",
        t.shape,
        t.in_use,
        t.itv_ms,
        t.total.and_then(|f| f.get(DnfsCol::Iops)),
        t.total.and_then(|f| f.get(DnfsCol::ReadMbPerS)),
        t.counting,
        t.rejected
    );
    assert!(
        t.itv_ms.is_some_and(|ms| ms >= 1000),
        "the database clock advanced"
    );
    assert!(t.rejected.is_empty());
}

/// A password typed in the TUI reaches the reader: with the variable unset
/// it says NoPassword and waits; once the store holds the password it tries
/// at once (here the missing client answers, DPI-1047), well before the
/// first backoff would have ended.
#[test]
fn a_typed_password_is_tried_at_once() {
    use strata::link::{PassphraseStore, Secret};
    if client_present() {
        println!("SKIPPED: an Oracle client is installed here");
        return;
    }
    let mut target = parse_db_spec("dbsnmp@//127.0.0.1:1/NONE").unwrap();
    target.password_env = "STRATA_TEST_SURELY_UNSET_PASSWORD".into();
    let store = PassphraseStore::new();
    let (tx, mut rx) = mpsc::channel(16);
    let cancel = CancellationToken::new();
    let mut opts = DbOptions::new(Duration::from_millis(100));
    opts.backoff_first = Duration::from_secs(30);
    opts.passwords = store.clone();
    let label = target.label.clone();
    let th = {
        let cancel = cancel.clone();
        std::thread::spawn(move || run_db(0, target, opts, tx, cancel))
    };
    let next = |rx: &mut mpsc::Receiver<DbEvent>| {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(ev) = rx.try_recv() {
                return Some(ev);
            }
            if std::time::Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    assert!(matches!(
        next(&mut rx),
        Some(DbEvent::Status {
            status: DbStatus::Connecting,
            ..
        })
    ));
    assert!(matches!(
        next(&mut rx),
        Some(DbEvent::Status {
            status: DbStatus::NoPassword(_),
            ..
        })
    ));
    let typed_at = std::time::Instant::now();
    store.insert(Secret::Database(label), "tiger");
    let ev = next(&mut rx);
    assert!(
        matches!(
            ev,
            Some(DbEvent::Status {
                status: DbStatus::ClientMissing(_),
                ..
            })
        ),
        "{ev:?}"
    );
    assert!(
        typed_at.elapsed() < Duration::from_secs(5),
        "not after the 30 s backoff"
    );
    cancel.cancel();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !th.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(th.is_finished(), "cancel stops the reader");
}

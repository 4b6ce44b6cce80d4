//! `strata batch dnfs`: per interval, each database's Direct NFS figures.
//! Text is the classic mondnfs log, `timestmp|nfsiops` (a `db` column in
//! between when there are several databases); JSON has every figure (per
//! instance, server and channel) and CSV a line per instance and one per
//! database.
//!
//! The databases are read on their own threads (`layers::dnfs::source::run_db`)
//! into the app's [`Dnfs`], as on the screen; this loop prints what that
//! state holds once per interval.

use super::{csv_field, printable};
use crate::app::dnfs::{DbView, Dnfs};
use crate::core::duration::Interval;
use crate::format::{self, UNKNOWN};
use crate::layers::dnfs::model::{DNFS_COLS, DnfsCol, DnfsTick, Figures};
use crate::layers::dnfs::source::{DbOptions, DbTarget, spawn_dbs};
use crate::layers::report::Format;
use std::fmt::Write as _;
use std::io::Write;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What `strata batch dnfs` says, with exit status 2, when no database is
/// given.
pub const NO_DBS: &str = "batch dnfs: no database to read: name one with --db user@//host:port/service (password in STRATA_DB_PASSWORD), --db / or [[db]] entries in the config";

/// IOPS as mondnfs prints them (Oracle's default NUMBER rendering of a
/// value rounded to one decimal): `48162`, `48517.4`.
pub fn mondnfs_iops(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

/// The text header: mondnfs's, with the database between when there are
/// several.
pub fn text_header(several: bool) -> &'static str {
    if several {
        "timestmp|db|nfsiops"
    } else {
        "timestmp|nfsiops"
    }
}

/// The database's figures, unless its views are empty: zeros there would
/// read as an idle system.
fn in_use_total(t: Option<&DnfsTick>) -> Option<&Figures> {
    t.filter(|t| t.in_use)?.total.as_ref()
}

fn iops(t: Option<&DnfsTick>) -> Option<f64> {
    in_use_total(t)?.get(DnfsCol::Iops)
}

/// One text line. A database that is not current, or does not use dNFS,
/// prints "–": no zero that reads as an idle system.
pub fn text_line(wall_ms: i64, db: Option<&str>, tick: Option<&DnfsTick>) -> String {
    let v = iops(tick).map_or_else(|| UNKNOWN.to_string(), mondnfs_iops);
    match db {
        Some(db) => format!("{}|{}|{v}\n", format::local_time(wall_ms), printable(db)),
        None => format!("{}|{v}\n", format::local_time(wall_ms)),
    }
}

fn num(v: Option<f64>) -> serde_json::Value {
    v.filter(|v| v.is_finite())
        .map_or(serde_json::Value::Null, serde_json::Value::from)
}

fn figures_json(f: Option<&Figures>) -> serde_json::Map<String, serde_json::Value> {
    DNFS_COLS
        .iter()
        .map(|c| (c.json_key.to_string(), num(f.and_then(|f| f.get(c.col)))))
        .collect()
}

/// One JSON object for one database at `wall_ms`.
pub fn json_line(wall_ms: i64, db: &DbView, tick: Option<&DnfsTick>, state: &str) -> String {
    use serde_json::{Value, json};
    let mut o = serde_json::Map::new();
    o.insert("timestamp".into(), json!(format::iso_datetime(wall_ms)));
    o.insert("db".into(), json!(db.target.label));
    o.insert("state".into(), json!(state));
    o.insert(
        "reason".into(),
        db.reason().map_or(Value::Null, Value::from),
    );
    // the driver's code of the reason (ORA-12541), for a script to act on
    o.insert(
        "code".into(),
        db.error_code().map_or(Value::Null, Value::from),
    );
    o.insert(
        "in_use".into(),
        tick.map_or(Value::Null, |t| json!(t.in_use)),
    );
    o.insert(
        "interval_s".into(),
        num(tick.and_then(|t| t.itv_ms).map(|ms| ms as f64 / 1000.0)),
    );
    o.extend(figures_json(in_use_total(tick)));
    if let Some(t) = tick {
        o.insert("channel_counting".into(), json!(t.counting.label()));
        o.insert(
            "instances".into(),
            t.instances
                .iter()
                .map(|i| {
                    let mut m = figures_json(i.figures.as_ref());
                    m.insert("inst_id".into(), json!(i.inst_id));
                    m.insert("processes".into(), json!(i.processes));
                    Value::Object(m)
                })
                .collect(),
        );
        o.insert(
            "servers".into(),
            t.servers
                .iter()
                .map(|s| {
                    let r = &s.row;
                    json!({"inst_id": r.inst_id, "id": r.id, "server": r.name, "dirname": r.dirname,
                        "nfs_version": r.nfs_version, "channels": s.channels, "files": s.files,
                        "sends_s": num(s.sends_per_s), "recvs_s": num(s.recvs_per_s)})
                })
                .collect(),
        );
        o.insert(
            "channels".into(),
            t.channels
                .iter()
                .map(|c| {
                    json!({"inst_id": c.row.inst_id, "pnum": c.row.pnum, "ch_id": c.row.ch_id, "svr_id": c.row.svr_id,
                        "server": c.row.server, "path": c.row.path, "local": c.row.local,
                        "sends_s": num(c.sends_per_s), "recvs_s": num(c.recvs_per_s),
                        "reconnects": c.row.reconnects})
                })
                .collect(),
        );
        o.insert("rejected".into(), json!(t.rejected));
    }
    let mut s = Value::Object(o).to_string();
    s.push('\n');
    s
}

pub fn csv_header() -> String {
    let mut s = "timestamp,db,inst_id,state,in_use,interval_s".to_string();
    for c in &DNFS_COLS {
        let _ = write!(s, ",{}", c.json_key);
    }
    s
}

/// CSV lines: one per instance, then the database's (inst_id "all").
pub fn csv_lines(wall_ms: i64, db: &DbView, tick: Option<&DnfsTick>, state: &str) -> String {
    let ts = format::iso_datetime(wall_ms);
    let mut out = String::new();
    let mut line = |inst: &str, f: Option<&Figures>| {
        let _ = write!(
            out,
            "{ts},{},{inst},{},{},{}",
            csv_field(&db.target.label),
            csv_field(state),
            tick.map_or(String::new(), |t| t.in_use.to_string()),
            tick.and_then(|t| t.itv_ms)
                .map_or(String::new(), |ms| (ms as f64 / 1000.0).to_string())
        );
        for c in &DNFS_COLS {
            match f.and_then(|f| f.get(c.col)) {
                Some(v) => {
                    let _ = write!(out, ",{v}");
                }
                None => out.push(','),
            }
        }
        out.push('\n');
    };
    if let Some(t) = tick {
        for i in &t.instances {
            line(&i.inst_id.to_string(), i.figures.as_ref());
        }
    }
    line("all", in_use_total(tick));
    out
}

/// The report of every database at `now_ms`.
pub fn report(format: Format, dnfs: &Dnfs, now_ms: i64) -> String {
    (0..dnfs.list.len())
        .map(|db| db_report(format, dnfs, db, now_ms))
        .collect()
}

/// The report of database `db` at `now_ms` (empty for one not there).
pub fn db_report(format: Format, dnfs: &Dnfs, db: usize, now_ms: i64) -> String {
    let Some(v) = dnfs.list.get(db) else {
        return String::new();
    };
    let tick = v.current(now_ms, dnfs.interval.ms());
    let state = v.state_label(now_ms, dnfs.interval.ms());
    match format {
        Format::Text => text_line(
            now_ms,
            (dnfs.list.len() > 1).then_some(v.target.label.as_str()),
            tick,
        ),
        Format::Json => json_line(now_ms, v, tick, &state),
        Format::Csv => csv_lines(now_ms, v, tick, &state),
    }
}

/// Reads every database and prints `count` reports (or until
/// interrupted). Exit status 1 when any report lacked a database's
/// figures.
pub fn run_dnfs(
    targets: Vec<DbTarget>,
    interval: Interval,
    count: Option<u64>,
    format: Format,
) -> i32 {
    let every = interval.duration();
    let mut dnfs = Dnfs::new(targets.clone(), interval, 2);
    let (tx, mut rx) = mpsc::channel(64);
    let cancel = CancellationToken::new();
    let threads = spawn_dbs(&targets, &DbOptions::new(every), tx, &cancel);
    let mut out = std::io::stdout().lock();
    let header = match format {
        Format::Text => text_header(dnfs.list.len() > 1).to_string(),
        Format::Csv => csv_header(),
        Format::Json => String::new(),
    };
    if !header.is_empty() && writeln!(out, "{header}").is_err() {
        cancel.cancel();
        return 0;
    }
    // the first reading only sets the baseline: the first report is one
    // interval after the second
    let start = Instant::now() + every;
    let mut missed = false;
    let mut said: Vec<String> = vec![String::new(); dnfs.list.len()];
    let mut n = 0u64;
    while count.is_none_or(|c| n < c) {
        n += 1;
        let due = start + every.mul_f64(n as f64);
        while let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait.min(Duration::from_millis(50)));
            while let Ok(ev) = rx.try_recv() {
                dnfs.ingest(ev);
            }
        }
        let now = crate::core::clock::now_ms();
        for (db, said) in dnfs.list.iter().zip(&mut said) {
            let why = db.reason().unwrap_or_default();
            if *said != why && !why.is_empty() {
                eprintln!("strata: {}: {why}", printable(&db.target.label));
            }
            *said = why;
            missed |= db
                .current(now, dnfs.interval.ms())
                .is_none_or(|t| t.total.is_none());
        }
        if write!(out, "{}", report(format, &dnfs, now))
            .and_then(|_| out.flush())
            .is_err()
        {
            break;
        }
    }
    cancel.cancel();
    for t in threads {
        // a reader stuck in a call ends with its call timeout
        let _ = t.join();
    }
    i32::from(missed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::dnfs::dnfs_sample::{DnfsSample, StatsRow};
    use crate::layers::dnfs::error::{DbError, OraError};
    use crate::layers::dnfs::source::{DbEvent, DbStatus, parse_db_spec};

    #[test]
    fn iops_print_as_the_classic_log_does() {
        let log = include_str!("../../tests/fixtures/dnfs/mondnfs-log.txt");
        let mut lines = log.lines();
        assert_eq!(lines.next(), Some("timestmp|nfsiops"));
        assert_eq!(text_header(false), "timestmp|nfsiops");
        let mut n = 0;
        for l in lines {
            let (_, v) = l.split_once('|').unwrap();
            assert_eq!(mondnfs_iops(v.parse().unwrap()), v);
            n += 1;
        }
        assert_eq!(n, 8);
        assert_eq!(mondnfs_iops(48_517.44), "48517.4");
        assert_eq!(mondnfs_iops(48_161.96), "48162");
    }

    fn dnfs_with(reads: &[u64]) -> Dnfs {
        let mut d = Dnfs::new(
            vec![parse_db_spec("dbsnmp@//db1/PROD").unwrap()],
            crate::core::duration::Interval::ONE_SECOND,
            4,
        );
        d.ingest(DbEvent::Status {
            db: 0,
            status: DbStatus::Live,
        });
        for (i, r) in reads.iter().enumerate() {
            let mut s = DnfsSample {
                wall_ms: 1000 * (i as i64 + 1),
                db_ms: 1000 * (i as i64 + 1),
                stats: vec![StatsRow {
                    inst_id: 1,
                    pnum: 20,
                    nfs_read: *r,
                    nfs_write: 0,
                    read_bytes: Some(r * 8192),
                    write_bytes: Some(0),
                }],
                ..DnfsSample::default()
            };
            s.shape.byte_columns = true;
            d.ingest(DbEvent::Sample { db: 0, sample: s });
        }
        d
    }

    #[test]
    fn text_json_and_csv_of_one_database() {
        // 1000 → 49162 reads over 1 s
        let d = dnfs_with(&[1000, 49_162]);
        assert!(report(Format::Text, &d, 2000).ends_with("|48162\n"));
        let j: serde_json::Value =
            serde_json::from_str(report(Format::Json, &d, 2000).trim()).unwrap();
        assert_eq!(j["iops"], 48_162.0);
        // 48162 × 8192 B / 2^20 = 376.265625 MB/s
        assert_eq!(j["rmb_s"], 376.265_625);
        assert_eq!(j["instances"][0]["inst_id"], 1);
        assert_eq!(j["state"], "live");
        let csv = report(Format::Csv, &d, 2000);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2, "instance 1 and all: {csv}");
        assert_eq!(lines[0].split(',').count(), csv_header().split(',').count());
        assert!(
            lines[1].contains(",all,live,true,1,48162,48162,0,376.265625,0,8"),
            "{csv}"
        );
    }

    #[test]
    fn a_database_without_figures_prints_unknown_not_zero() {
        let d = dnfs_with(&[1000]);
        assert!(report(Format::Text, &d, 1000).ends_with("|–\n"));
        let mut d = dnfs_with(&[1000, 2000]);
        d.ingest(DbEvent::Status {
            db: 0,
            status: DbStatus::ClientMissing("DPI-1047".into()),
        });
        let j: serde_json::Value =
            serde_json::from_str(report(Format::Json, &d, 2000).trim()).unwrap();
        assert_eq!(
            (j["state"].as_str(), j["iops"].is_null()),
            (Some("no Oracle client"), true)
        );
        assert_eq!(j["reason"], "DPI-1047");
        // a text of before has no code as data
        assert!(j["code"].is_null());
        d.ingest(DbEvent::Status {
            db: 0,
            status: DbStatus::ConnectFailed(DbError::Oracle(OraError::of_text(
                "ORA-12541: TNS:no listener",
            ))),
        });
        let j: serde_json::Value =
            serde_json::from_str(report(Format::Json, &d, 2000).trim()).unwrap();
        assert_eq!(
            (&j["state"], &j["reason"], &j["code"]),
            (
                &"unreachable".into(),
                &"ORA-12541: TNS:no listener".into(),
                &"ORA-12541".into()
            )
        );
        // not in use: the views were empty
        let mut d = dnfs_with(&[]);
        for ms in [1000, 2000] {
            d.ingest(DbEvent::Sample {
                db: 0,
                sample: DnfsSample {
                    wall_ms: ms,
                    db_ms: ms,
                    ..DnfsSample::default()
                },
            });
        }
        assert!(report(Format::Text, &d, 2000).ends_with("|–\n"));
        let j: serde_json::Value =
            serde_json::from_str(report(Format::Json, &d, 2000).trim()).unwrap();
        assert_eq!(
            (j["in_use"].as_bool(), j["iops"].is_null()),
            (Some(false), true)
        );
    }
}

//! One reading of a database's Direct NFS views, as read: the rows of
//! gv$dnfs_stats, gv$dnfs_servers, gv$dnfs_channels and gv$dnfs_files
//! mapped by column name from [`SqlRows`], plus the database's own clock.
//!
//! Columns a release lacks are detected from the rows' own metadata, never
//! assumed from a version number (domain.md §5.1): NFS_READBYTES and
//! NFS_WRITEBYTES exist from 11.2.0.4, LOCAL from 11.2.0.3, NFSVERSION
//! from 12.1, RECO in 11.2.0.4 only (SPRECO + DPRECO from 12.1), CON_ID
//! from 12.1. A missing optional column is `None`, shown as unknown; a
//! view without a column strata cannot do without (NFS_READ, SVR_ID, ...)
//! is an error that names the view and the column.
//!
//! This mapper is the only way rows become a sample: the oracle crate's
//! rows and the fixtures under tests/fixtures/dnfs/ both come through it.

use super::error::{BadValue, RowProblem};
use super::sql_rows::{SqlRows, parse_db_clock, parse_sql_csv};
use crate::core::error::ParseError;
use serde::{Deserialize, Serialize};

pub const STATS_VIEW: &str = "gv$dnfs_stats";
pub const SERVERS_VIEW: &str = "gv$dnfs_servers";
pub const CHANNELS_VIEW: &str = "gv$dnfs_channels";
pub const FILES_VIEW: &str = "gv$dnfs_files";
/// Which host each instance runs on: read at connect and then seldom
/// ([`super::source::INSTANCES_EVERY`]), as instances rarely move.
pub const INSTANCE_VIEW: &str = "gv$instance";

/// One Oracle process's NFS operation counts since it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatsRow {
    /// 0 when read from a v$ view, which has no INST_ID.
    pub inst_id: u32,
    pub pnum: u64,
    pub nfs_read: u64,
    pub nfs_write: u64,
    /// 11.2.0.4 and later.
    pub read_bytes: Option<u64>,
    pub write_bytes: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRow {
    pub inst_id: u32,
    /// Joins CHANNELS.SVR_ID and FILES.SVR_ID.
    pub id: u64,
    pub name: String,
    /// The exported directory.
    pub dirname: String,
    /// 12.1 and later.
    pub nfs_version: Option<String>,
    pub wtmax: Option<u64>,
    pub rtmax: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelRow {
    pub inst_id: u32,
    pub pnum: u64,
    pub ch_id: u64,
    pub svr_id: u64,
    pub server: String,
    /// The server's address this channel reaches.
    pub path: String,
    /// The local address on the database host; 11.2.0.3 and later.
    pub local: Option<String>,
    /// Documented as counts since the last select (see layers::dnfs::model).
    pub sends: u64,
    pub recvs: u64,
    pub pings: Option<u64>,
    /// Reconnects: RECO (11.2.0.4) or SPRECO + DPRECO (12.1+).
    pub reconnects: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRow {
    pub inst_id: u32,
    pub filename: String,
    pub filesize: Option<u64>,
    pub pnum: u64,
    pub svr_id: u64,
}

/// The optional columns the views had, as read from their metadata.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    pub byte_columns: bool,
    pub local_column: bool,
    pub nfs_version_column: bool,
    pub con_id: bool,
    /// gv$ (INST_ID) rather than v$.
    pub inst_id: bool,
}

/// One reading of one database.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DnfsSample {
    /// Local wall clock when the reading was taken, ms since the epoch.
    pub wall_ms: i64,
    /// The database's SYSTIMESTAMP in UTC, ms since the epoch: rates use
    /// this clock, so a slow round trip does not bend them.
    pub db_ms: i64,
    pub shape: Shape,
    pub stats: Vec<StatsRow>,
    pub servers: Vec<ServerRow>,
    pub channels: Vec<ChannelRow>,
    pub files: Vec<FileRow>,
    /// Rows that could not be mapped, each naming its view and why.
    pub rejected: Vec<RowProblem>,
}

impl DnfsSample {
    /// The views stay empty until a file is opened through dNFS.
    pub fn in_use(&self) -> bool {
        !(self.servers.is_empty() && self.channels.is_empty() && self.files.is_empty())
            || self.stats.iter().any(|s| s.nfs_read > 0 || s.nfs_write > 0)
    }
}

/// The four views' rows and the clock, as one reading returned them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DnfsRows {
    pub wall_ms: i64,
    /// `TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD HH24:MI:SS.FF3')`.
    pub db_clock: String,
    pub stats: SqlRows,
    pub servers: SqlRows,
    pub channels: SqlRows,
    pub files: SqlRows,
}

/// Why rows could not become a sample at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("{view} has no column {column}")]
    MissingColumn {
        view: &'static str,
        column: &'static str,
    },
    #[error("the database clock {0:?} is not a timestamp")]
    Clock(String),
}

/// A view's rows with its required columns resolved.
struct View<'a> {
    name: &'static str,
    rows: &'a SqlRows,
}

impl<'a> View<'a> {
    fn need(&self, column: &'static str) -> Result<usize, MapError> {
        self.rows.col(column).ok_or(MapError::MissingColumn {
            view: self.name,
            column,
        })
    }
}

/// A NUMBER as Oracle renders it, as a count: digits, or a float form of
/// a whole number (`1E+20` from a client that formats so). Negative,
/// fractional or out-of-range values are refused.
fn count(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Ok(v) = t.parse::<u64>() {
        return Some(v);
    }
    let f: f64 = t.parse().ok()?;
    (f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 1.8e19).then_some(f as u64)
}

/// Field accessors for one row, which collect the first problem.
struct Cells<'a> {
    view: &'static str,
    row: &'a [Option<String>],
    problem: Option<BadValue>,
}

impl Cells<'_> {
    fn text(&self, i: Option<usize>) -> Option<&str> {
        self.row.get(i?)?.as_deref()
    }

    /// A required count: NULL or garbage rejects the row.
    fn num(&mut self, i: usize, name: &str) -> u64 {
        match self.text(Some(i)).map(|t| (t, count(t))) {
            Some((_, Some(v))) => v,
            Some((t, None)) => {
                let value = t.to_string();
                self.fail(BadValue::NotACount {
                    column: name.into(),
                    value,
                });
                0
            }
            None => {
                self.fail(BadValue::Null {
                    column: name.into(),
                });
                0
            }
        }
    }

    /// An optional count: absent column or NULL is unknown; garbage
    /// rejects the row.
    fn opt(&mut self, i: Option<usize>, name: &str) -> Option<u64> {
        let t = self.text(i)?;
        let v = count(t);
        if v.is_none() {
            let value = t.to_string();
            self.fail(BadValue::NotACount {
                column: name.into(),
                value,
            });
        }
        v
    }

    fn string(&self, i: Option<usize>) -> String {
        self.text(i).unwrap_or_default().trim().to_string()
    }

    fn fail(&mut self, why: BadValue) {
        if self.problem.is_none() {
            self.problem = Some(why);
        }
    }

    fn done<T>(self, no: usize, v: T, rejected: &mut Vec<RowProblem>) -> Option<T> {
        match self.problem {
            None => Some(v),
            Some(value) => {
                rejected.push(RowProblem::Row {
                    view: self.view.to_string(),
                    row: no + 1,
                    value,
                });
                None
            }
        }
    }
}

fn rows_of<'a, T>(
    view: &View<'a>,
    rejected: &mut Vec<RowProblem>,
    mut map: impl FnMut(&mut Cells<'a>) -> T,
) -> Vec<T> {
    view.rows
        .rows
        .iter()
        .enumerate()
        .filter_map(|(no, row)| {
            let mut c = Cells {
                view: view.name,
                row,
                problem: None,
            };
            let v = map(&mut c);
            c.done(no, v, rejected)
        })
        .collect()
}

fn inst(c: &mut Cells<'_>, i: Option<usize>) -> u32 {
    match i {
        None => 0,
        Some(i) => u32::try_from(c.num(i, "INST_ID")).unwrap_or(u32::MAX),
    }
}

/// The channels view's rows (a reconnect count from RECO, or from the
/// two counts that replaced it).
fn channel_rows(
    view: &View<'_>,
    rejected: &mut Vec<RowProblem>,
) -> Result<Vec<ChannelRow>, MapError> {
    let h = view.rows;
    let (cp, ch, csv, sends, recvs) = (
        view.need("PNUM")?,
        view.need("CH_ID")?,
        view.need("SVR_ID")?,
        view.need("SENDS")?,
        view.need("RECVS")?,
    );
    let (cn, path, local, pings, reco, spreco, dpreco, hi) = (
        h.col("SVRNAME"),
        h.col("PATH"),
        h.col("LOCAL"),
        h.col("PINGS"),
        h.col("RECO"),
        h.col("SPRECO"),
        h.col("DPRECO"),
        h.col("INST_ID"),
    );
    Ok(rows_of(view, rejected, |c| {
        let reconnects = match (
            c.opt(reco, "RECO"),
            c.opt(spreco, "SPRECO"),
            c.opt(dpreco, "DPRECO"),
        ) {
            (Some(r), _, _) => Some(r),
            (None, Some(a), Some(b)) => Some(a.saturating_add(b)),
            (None, a, b) => a.or(b),
        };
        ChannelRow {
            inst_id: inst(c, hi),
            pnum: c.num(cp, "PNUM"),
            ch_id: c.num(ch, "CH_ID"),
            svr_id: c.num(csv, "SVR_ID"),
            server: c.string(cn),
            path: c.string(path),
            local: local.map(|i| c.string(Some(i))).filter(|s| !s.is_empty()),
            sends: c.num(sends, "SENDS"),
            recvs: c.num(recvs, "RECVS"),
            pings: c.opt(pings, "PINGS"),
            reconnects,
        }
    }))
}

/// Rows of the four views into a sample. Pure: the same rows always give
/// the same sample.
pub fn map_rows(rows: &DnfsRows) -> Result<DnfsSample, MapError> {
    let db_ms =
        parse_db_clock(&rows.db_clock).ok_or_else(|| MapError::Clock(rows.db_clock.clone()))?;
    let stats = View {
        name: STATS_VIEW,
        rows: &rows.stats,
    };
    let servers = View {
        name: SERVERS_VIEW,
        rows: &rows.servers,
    };
    let channels = View {
        name: CHANNELS_VIEW,
        rows: &rows.channels,
    };
    let local = rows.channels.col("LOCAL");
    let files = View {
        name: FILES_VIEW,
        rows: &rows.files,
    };
    let mut rejected = Vec::new();

    let s = &rows.stats;
    let (pnum, read, write) = (
        stats.need("PNUM")?,
        stats.need("NFS_READ")?,
        stats.need("NFS_WRITE")?,
    );
    let (rb, wb, si) = (
        s.col("NFS_READBYTES"),
        s.col("NFS_WRITEBYTES"),
        s.col("INST_ID"),
    );
    let stats_rows = rows_of(&stats, &mut rejected, |c| StatsRow {
        inst_id: inst(c, si),
        pnum: c.num(pnum, "PNUM"),
        nfs_read: c.num(read, "NFS_READ"),
        nfs_write: c.num(write, "NFS_WRITE"),
        read_bytes: c.opt(rb, "NFS_READBYTES"),
        write_bytes: c.opt(wb, "NFS_WRITEBYTES"),
    });

    let v = &rows.servers;
    let (id, name) = (servers.need("ID")?, servers.need("SVRNAME")?);
    let (dir, ver, wt, rt, vi) = (
        v.col("DIRNAME"),
        v.col("NFSVERSION"),
        v.col("WTMAX"),
        v.col("RTMAX"),
        v.col("INST_ID"),
    );
    let server_rows = rows_of(&servers, &mut rejected, |c| ServerRow {
        inst_id: inst(c, vi),
        id: c.num(id, "ID"),
        name: c.string(Some(name)),
        dirname: c.string(dir),
        nfs_version: ver.map(|i| c.string(Some(i))).filter(|s| !s.is_empty()),
        wtmax: c.opt(wt, "WTMAX"),
        rtmax: c.opt(rt, "RTMAX"),
    });

    let channel_rows = channel_rows(&channels, &mut rejected)?;

    let f = &rows.files;
    let (fname, fp, fs) = (
        files.need("FILENAME")?,
        files.need("PNUM")?,
        files.need("SVR_ID")?,
    );
    let (size, fi) = (f.col("FILESIZE"), f.col("INST_ID"));
    let file_rows = rows_of(&files, &mut rejected, |c| FileRow {
        inst_id: inst(c, fi),
        filename: c.string(Some(fname)),
        filesize: c.opt(size, "FILESIZE"),
        pnum: c.num(fp, "PNUM"),
        svr_id: c.num(fs, "SVR_ID"),
    });

    Ok(DnfsSample {
        wall_ms: rows.wall_ms,
        db_ms,
        shape: Shape {
            byte_columns: rb.is_some() && wb.is_some(),
            local_column: local.is_some(),
            nfs_version_column: ver.is_some(),
            con_id: s.has("CON_ID"),
            inst_id: si.is_some(),
        },
        stats: stats_rows,
        servers: server_rows,
        channels: channel_rows,
        files: file_rows,
        rejected,
    })
}

/// One row of gv$instance: the instance's number (the INST_ID the
/// gv$dnfs_* rows carry), its name and the host it runs on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceRow {
    pub inst_id: u32,
    pub name: String,
    /// As the instance reports it: often the short host name, sometimes
    /// the fully qualified one.
    pub host_name: String,
}

/// The database's instances as one read of gv$instance found them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DnfsInstances {
    /// Local wall clock of the read.
    pub wall_ms: i64,
    pub rows: Vec<InstanceRow>,
    /// Rows that could not be mapped, or why the query failed (the
    /// dNFS figures go on without the hosts).
    pub problems: Vec<RowProblem>,
}

/// gv$instance's rows into instances. Pure; a row without INST_ID or
/// HOST_NAME is rejected with its line, INSTANCE_NAME may be NULL.
pub fn map_instance_rows(wall_ms: i64, rows: &SqlRows) -> Result<DnfsInstances, MapError> {
    let view = View {
        name: INSTANCE_VIEW,
        rows,
    };
    let (id, host) = (view.need("INST_ID")?, view.need("HOST_NAME")?);
    let name = rows.col("INSTANCE_NAME");
    let mut problems = Vec::new();
    let mapped = rows_of(&view, &mut problems, |c| {
        let host_name = c.string(Some(host));
        if host_name.is_empty() {
            c.fail(BadValue::Null {
                column: "HOST_NAME".into(),
            });
        }
        InstanceRow {
            inst_id: inst(c, Some(id)),
            name: c.string(name),
            host_name,
        }
    });
    Ok(DnfsInstances {
        wall_ms,
        rows: mapped,
        problems,
    })
}

/// A capture of one reading: `@@ clock` then the timestamp, and `@@ VIEW`
/// then that view's rows as SQL*Plus `SET MARKUP CSV ON` prints them, for
/// each of the four views (`#` lines are comments). This is how the
/// fixtures are written, and how a spool taken with SQL*Plus on a real
/// system can be fed to the same mapper.
pub fn rows_from_capture(wall_ms: i64, name: &str, text: &str) -> Result<DnfsRows, ParseError> {
    let mut rows = DnfsRows {
        wall_ms,
        ..DnfsRows::default()
    };
    let mut seen = Vec::new();
    let mut section: Option<(usize, String, String)> = None;
    let mut flush = |sec: Option<(usize, String, String)>, rows: &mut DnfsRows| {
        let Some((no, view, body)) = sec else {
            return Ok(());
        };
        let source = format!("{name} {view}");
        let slot = match view.as_str() {
            "clock" => {
                rows.db_clock = body
                    .lines()
                    .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                seen.push(view);
                return Ok(());
            }
            STATS_VIEW => &mut rows.stats,
            SERVERS_VIEW => &mut rows.servers,
            CHANNELS_VIEW => &mut rows.channels,
            FILES_VIEW => &mut rows.files,
            _ => return Err(ParseError::new(name, no, &view, "clock or a gv$dnfs_ view")),
        };
        let (parsed, rejected) = parse_sql_csv(&source, &body)?;
        if let Some(r) = rejected.into_iter().next() {
            return Err(r);
        }
        *slot = parsed;
        seen.push(view);
        Ok(())
    };
    for (i, line) in text.lines().enumerate() {
        if let Some(view) = line.strip_prefix("@@ ") {
            flush(section.take(), &mut rows)?;
            section = Some((i + 1, view.trim().to_string(), String::new()));
        } else if let Some((_, _, body)) = &mut section {
            body.push_str(line);
            body.push('\n');
        }
    }
    flush(section.take(), &mut rows)?;
    for want in ["clock", STATS_VIEW, SERVERS_VIEW, CHANNELS_VIEW, FILES_VIEW] {
        if !seen.iter().any(|s| s == want) {
            return Err(ParseError::new(name, 1, "", format!("a section @@ {want}")));
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(cols: &[&str], data: &[&[Option<&str>]]) -> SqlRows {
        let mut r = SqlRows::new(cols.iter().map(|c| c.to_string()).collect());
        r.rows = data
            .iter()
            .map(|row| row.iter().map(|v| v.map(str::to_string)).collect())
            .collect();
        r
    }

    fn empty_views() -> DnfsRows {
        DnfsRows {
            wall_ms: 5,
            db_clock: "2024-03-01 00:00:00.000".into(),
            stats: rows(&["INST_ID", "PNUM", "NFS_READ", "NFS_WRITE"], &[]),
            servers: rows(&["INST_ID", "ID", "SVRNAME", "DIRNAME"], &[]),
            channels: rows(
                &[
                    "INST_ID", "PNUM", "SVRNAME", "PATH", "CH_ID", "SVR_ID", "SENDS", "RECVS",
                    "PINGS",
                ],
                &[],
            ),
            files: rows(&["INST_ID", "FILENAME", "FILESIZE", "PNUM", "SVR_ID"], &[]),
        }
    }

    #[test]
    fn empty_views_are_not_in_use_and_11_1_has_no_bytes() {
        let s = map_rows(&empty_views()).unwrap();
        assert!(!s.in_use());
        assert!(!s.shape.byte_columns && !s.shape.local_column && s.shape.inst_id);
    }

    #[test]
    fn a_missing_required_column_names_its_view() {
        let mut r = empty_views();
        r.channels.columns.retain(|c| c != "SENDS");
        assert_eq!(
            map_rows(&r),
            Err(MapError::MissingColumn {
                view: CHANNELS_VIEW,
                column: "SENDS"
            })
        );
        let mut r = empty_views();
        r.db_clock = "yesterday".into();
        assert!(matches!(map_rows(&r), Err(MapError::Clock(_))));
    }

    #[test]
    fn bad_values_reject_their_row_only() {
        let mut r = empty_views();
        r.stats = rows(
            &[
                "INST_ID",
                "PNUM",
                "NFS_READ",
                "NFS_WRITE",
                "NFS_READBYTES",
                "NFS_WRITEBYTES",
            ],
            &[
                &[
                    Some("1"),
                    Some("20"),
                    Some("10"),
                    Some("5"),
                    Some("8192"),
                    None,
                ],
                &[Some("1"), Some("21"), Some("-3"), Some("5"), None, None],
                &[Some("2"), Some("22"), None, Some("5"), None, None],
                &[
                    Some("2"),
                    Some("23"),
                    Some("1E+3"),
                    Some("0"),
                    Some("1.5"),
                    None,
                ],
            ],
        );
        let s = map_rows(&r).unwrap();
        assert_eq!(s.stats.len(), 1);
        assert_eq!(s.stats[0].read_bytes, Some(8192));
        assert_eq!(s.stats[0].write_bytes, None, "NULL is unknown, not zero");
        assert_eq!(
            s.rejected
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            [
                "gv$dnfs_stats row 2: NFS_READ = \"-3\" is not a count",
                "gv$dnfs_stats row 3: NFS_READ is NULL",
                "gv$dnfs_stats row 4: NFS_READBYTES = \"1.5\" is not a count",
            ]
        );
        assert!(s.shape.byte_columns);
    }

    #[test]
    fn instances_map_by_column_name_and_bad_rows_are_said() {
        let r = rows(
            &["INST_ID", "INSTANCE_NAME", "HOST_NAME"],
            &[
                &[Some("1"), Some("PROD1"), Some("db01")],
                &[Some("2"), None, Some("db02.example.com ")],
                &[Some("x"), Some("PROD3"), Some("db03")],
                &[Some("4"), Some("PROD4"), None],
            ],
        );
        let m = map_instance_rows(7, &r).unwrap();
        assert_eq!(m.wall_ms, 7);
        assert_eq!(
            m.rows,
            [
                InstanceRow {
                    inst_id: 1,
                    name: "PROD1".into(),
                    host_name: "db01".into()
                },
                InstanceRow {
                    inst_id: 2,
                    name: String::new(),
                    host_name: "db02.example.com".into()
                },
            ]
        );
        assert_eq!(
            m.problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            [
                "gv$instance row 3: INST_ID = \"x\" is not a count",
                "gv$instance row 4: HOST_NAME is NULL",
            ]
        );
        // kept as data: the view, the row and the column
        assert_eq!(
            m.problems[1],
            RowProblem::Row {
                view: INSTANCE_VIEW.into(),
                row: 4,
                value: BadValue::Null {
                    column: "HOST_NAME".into()
                }
            }
        );
        let no_host = rows(&["INST_ID", "INSTANCE_NAME"], &[]);
        assert_eq!(
            map_instance_rows(0, &no_host),
            Err(MapError::MissingColumn {
                view: INSTANCE_VIEW,
                column: "HOST_NAME"
            })
        );
    }
}

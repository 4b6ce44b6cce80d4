//! Rows of a SQL query as strata keeps them before mapping: the column
//! names the result set's own metadata gave, and each value as the text
//! Oracle renders it (NUMBER as its decimal digits, NULL as `None`).
//!
//! The oracle crate's rows and the test fixtures both become [`SqlRows`],
//! so the mapper that turns them into a dNFS sample is one pure function
//! whatever the rows came from. Fixtures are written as SQL*Plus prints a
//! query under `SET MARKUP CSV ON` (12.2+): a header of quoted column names,
//! then one line per row, strings quoted, numbers bare, NULL empty.

use crate::core::error::ParseError;
use serde::{Deserialize, Serialize};

/// One query's result: column names in select order, then the rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SqlRows {
    /// Upper-case, as Oracle's metadata names them.
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Option<String>>>,
}

impl SqlRows {
    pub fn new(columns: Vec<String>) -> SqlRows {
        SqlRows {
            columns: columns
                .into_iter()
                .map(|c| c.to_ascii_uppercase())
                .collect(),
            rows: Vec::new(),
        }
    }

    /// The index of a column, by its name in any case.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))
    }

    pub fn has(&self, name: &str) -> bool {
        self.col(name).is_some()
    }
}

/// Splits one CSV line into fields; `None` for an unterminated quote.
/// A quoted field is `Some(text)`, even when empty; a bare empty field
/// is SQL*Plus's NULL.
fn split_csv(line: &str) -> Option<Vec<Option<String>>> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        let quoted = chars.peek() == Some(&'"');
        if quoted {
            chars.next();
            loop {
                match chars.next()? {
                    '"' if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    '"' => break,
                    c => field.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ',' {
                    break;
                }
                field.push(c);
                chars.next();
            }
        }
        let field = field.trim_end_matches('\r').to_string();
        out.push(if quoted || !field.is_empty() {
            Some(field)
        } else {
            None
        });
        match chars.next() {
            Some(',') => continue,
            None => return Some(out),
            // text after a closing quote
            Some(_) => return None,
        }
    }
}

/// Reads SQL*Plus `SET MARKUP CSV ON` output. Lines starting with `#` and
/// blank lines are skipped (fixtures say where their shape comes from
/// there). A row whose field count differs from the header's is rejected
/// with its line, and the others kept.
pub fn parse_sql_csv(
    source_name: &str,
    text: &str,
) -> Result<(SqlRows, Vec<ParseError>), ParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let Some((no, header)) = lines.next() else {
        return Err(ParseError::new(
            source_name,
            1,
            "",
            "a header of column names",
        ));
    };
    let names = split_csv(header)
        .filter(|f| f.iter().all(|c| c.as_ref().is_some_and(|c| !c.is_empty())))
        .ok_or_else(|| ParseError::new(source_name, no, header, "a header of column names"))?;
    let mut rows = SqlRows::new(names.into_iter().flatten().collect());
    let mut rejected = Vec::new();
    for (no, line) in lines {
        match split_csv(line) {
            Some(f) if f.len() == rows.columns.len() => rows.rows.push(f),
            _ => rejected.push(ParseError::new(
                source_name,
                no,
                line,
                format!("{} comma-separated fields", rows.columns.len()),
            )),
        }
    }
    Ok((rows, rejected))
}

/// Milliseconds since the Unix epoch of a UTC timestamp as strata selects
/// the database's clock: `YYYY-MM-DD HH24:MI:SS.FF3` (the fraction may be
/// shorter or absent). `None` for anything else.
pub fn parse_db_clock(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = s.split_once([' ', 'T'])?;
    let mut d = date.splitn(3, '-');
    let y: i64 = d.next()?.parse().ok()?;
    let m: u32 = d.next()?.parse().ok()?;
    let day: u32 = d.next()?.parse().ok()?;
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut t = hms.splitn(3, ':');
    let h: i64 = t.next()?.parse().ok()?;
    let mi: i64 = t.next()?.parse().ok()?;
    let sec: i64 = t.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    if !frac.chars().all(|c| c.is_ascii_digit()) || frac.len() > 9 {
        return None;
    }
    let ms: i64 = format!("{frac:0<3}")[..3].parse().ok()?;
    Some((days_from_civil(y, m, day) * 86_400 + h * 3600 + mi * 60 + sec) * 1000 + ms)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// algorithm), so no date crate is needed for one conversion.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_header_quotes_nulls_and_a_bad_row() {
        let text = "# a comment\n\"INST_ID\",\"SVRNAME\",\"NFSVERSION\"\n1,\"nas, \"\"a\"\"\",\n2,\"nas2\",\"NFSv4.1\"\n3,\"x\"\n";
        let (rows, bad) = parse_sql_csv("t", text).unwrap();
        assert_eq!(rows.columns, ["INST_ID", "SVRNAME", "NFSVERSION"]);
        assert_eq!(
            rows.rows[0],
            [Some("1".into()), Some("nas, \"a\"".into()), None]
        );
        assert_eq!(rows.rows[1][2].as_deref(), Some("NFSv4.1"));
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].line_no, 5);
        assert!(parse_sql_csv("t", "# only\n").is_err());
        assert!(parse_sql_csv("t", "\"A\",\n").is_err(), "an empty name");
    }

    #[test]
    fn db_clock() {
        // 2024-03-01 is day 19783: 19783 × 86400 s = 1709251200 s
        assert_eq!(
            parse_db_clock("2024-03-01 00:00:01.250"),
            Some(1_709_251_201_250)
        );
        assert_eq!(parse_db_clock("1970-01-01 00:00:00"), Some(0));
        assert_eq!(parse_db_clock("1970-01-01T00:00:00.5"), Some(500));
        assert_eq!(parse_db_clock("1970-13-01 00:00:00"), None);
        assert_eq!(parse_db_clock("01-MAR-24 00.00.01"), None);
    }
}

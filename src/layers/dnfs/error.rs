//! Why a database is not read: what the reader thread makes of the
//! driver's errors and of rows it cannot map, a [`super::source::DbStatus`]
//! carries, a recording stores, and the panel and `strata batch dnfs`
//! print by its Display, in the words they printed when these were
//! strings.
//!
//! Recordings made before these errors were typed hold each one as its
//! text, a plain string (`{"ConnectFailed": "ORA-12541: TNS:no
//! listener"}`): that form reads as [`DbError::Text`], and `Text` writes
//! it again. The other variants are written as maps, so no plain string
//! of before reads as one.

use super::dnfs_sample::MapError;
use std::fmt;

/// An error as Oracle's client words it, its code kept apart: what a DBA
/// looks up, and what strata decides on (a refused password, a lost
/// connection) instead of searching the text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OraError {
    /// `ORA-01017`, `DPI-1047`, `TNS-12541`, as Oracle writes it; `None`
    /// when the text starts with no code (an error of the oracle crate
    /// itself, such as a value it could not convert).
    pub code: Option<String>,
    /// The text after the code and its `: `; the whole text without a
    /// code. An error stack's further lines (each with its own code)
    /// stay in it, as Oracle wrote them.
    pub message: String,
}

/// `ORA-01017`: a few capital letters, a dash and digits.
fn is_code(word: &str) -> bool {
    let Some((prefix, number)) = word.split_once('-') else {
        return false;
    };
    (2..=5).contains(&prefix.len())
        && prefix.bytes().all(|b| b.is_ascii_uppercase())
        && (3..=6).contains(&number.len())
        && number.bytes().all(|b| b.is_ascii_digit())
}

/// The code a text starts with (`ORA-12541: TNS:no listener`), and the
/// rest after its `: `.
fn leading_code(text: &str) -> Option<(&str, &str)> {
    text.split_once(": ").filter(|(code, _)| is_code(code))
}

impl OraError {
    /// The error of a text that starts with its code (`ORA-12541:
    /// TNS:no listener`), as the driver gives it.
    pub fn of_text(text: &str) -> OraError {
        match leading_code(text) {
            Some((code, message)) => OraError {
                code: Some(code.to_string()),
                message: message.to_string(),
            },
            None => OraError {
                code: None,
                message: text.to_string(),
            },
        }
    }

    /// Whether `code` is in the error's stack ([`codes`](Self::codes)).
    pub fn names(&self, code: &str) -> bool {
        self.codes().any(|c| c == code)
    }

    /// The codes of the error stack: the error's own, then every code
    /// the message names, wherever it stands: a later line of a stack
    /// (`ORA-00604: ...\nORA-03113: ...`), a stack on one line, or OCI's
    /// "Error while trying to retrieve text for error ORA-03113" when it
    /// cannot load its message files (the error then has no code of its
    /// own, and a lost connection or a refused password must still be
    /// known as such).
    pub fn codes(&self) -> impl Iterator<Item = &str> {
        let named = self
            .message
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| is_code(w));
        self.code.as_deref().into_iter().chain(named)
    }
}

impl fmt::Display for OraError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.code {
            Some(code) => write!(f, "{code}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Why a database's connection or reading failed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DbError {
    /// An error of the driver, on connecting or on a query.
    Oracle(OraError),
    /// DPI-1047: the Oracle client library could not be loaded. Said with
    /// where the loader looked (`LD_LIBRARY_PATH` as strata found it) and
    /// how to fix it.
    ClientMissing {
        error: OraError,
        ld_library_path: Option<String>,
    },
    /// The connection went under a query (ORA-03113 and the like, see
    /// `source::connection_lost`); strata connects again.
    ConnectionLost(OraError),
    /// A view answered without a column the mapper needs.
    MissingColumn { view: String, column: String },
    /// The database clock did not read as a timestamp.
    BadClock { text: String },
    /// An error known only by its text: one a recording made before these
    /// were typed holds (written as a plain string, as it was then).
    #[serde(untagged)]
    Text(String),
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbError::Oracle(e) => write!(f, "{e}"),
            DbError::ClientMissing {
                error,
                ld_library_path,
            } => {
                let looked = match ld_library_path.as_deref().filter(|p| !p.is_empty()) {
                    Some(p) => {
                        format!("LD_LIBRARY_PATH={p}, then the ld.so cache and /lib, /usr/lib")
                    }
                    None => "LD_LIBRARY_PATH (unset), the ld.so cache, /lib and /usr/lib".into(),
                };
                write!(
                    f,
                    "Oracle client library not found. {error} | Looked for libclntsh.so in: {looked}. | Fix: install Oracle Instant Client (Basic or Basic Light, 11.2 or later; it also needs libaio) and start strata with LD_LIBRARY_PATH set to its directory, or register it with ldconfig."
                )
            }
            DbError::ConnectionLost(e) => write!(f, "connection lost: {e}"),
            DbError::MissingColumn { view, column } => write!(f, "{view} has no column {column}"),
            DbError::BadClock { text } => {
                write!(f, "the database clock {text:?} is not a timestamp")
            }
            DbError::Text(t) => f.write_str(t),
        }
    }
}

impl std::error::Error for DbError {}

impl DbError {
    /// The driver's code, where the error has one: what `strata batch
    /// dnfs` gives as `code`. A recording made before errors were typed
    /// holds the driver's text, which starts with the same code: both
    /// give it, so one error has one code whichever strata recorded it.
    pub fn code(&self) -> Option<&str> {
        match self {
            DbError::Oracle(e)
            | DbError::ConnectionLost(e)
            | DbError::ClientMissing { error: e, .. } => e.code.as_deref(),
            DbError::Text(t) => leading_code(t).map(|(code, _)| code),
            DbError::MissingColumn { .. } | DbError::BadClock { .. } => None,
        }
    }
}

/// A value that kept a row from being read: the first one of the row.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BadValue {
    /// A count column holding something else (`-1`, `1.5`, `x`).
    NotACount { column: String, value: String },
    /// A required column that is NULL (or, for a name, blank).
    Null { column: String },
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadValue::NotACount { column, value } => {
                write!(f, "{column} = {value:?} is not a count")
            }
            BadValue::Null { column } => write!(f, "{column} is NULL"),
        }
    }
}

/// What of a reading was left out: a row the mapper could not read (the
/// rest of the reading is kept), or gv$instance unread (the figures do
/// without the hosts). Stored in the sample and the instances a
/// recording holds; a recording made before holds each as its text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RowProblem {
    /// Row `row` (from 1, as the view returned them) of `view`.
    Row {
        view: String,
        row: usize,
        value: BadValue,
    },
    /// The query of `view` failed.
    Query { view: String, error: OraError },
    /// The view answered without a column the mapper needs.
    Unmapped(DbError),
    /// A problem known only by its text (a recording made before).
    #[serde(untagged)]
    Text(String),
}

impl fmt::Display for RowProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowProblem::Row { view, row, value } => write!(f, "{view} row {row}: {value}"),
            RowProblem::Query { view, error } => write!(f, "{view}: {error}"),
            RowProblem::Unmapped(e) => write!(f, "{e}"),
            RowProblem::Text(t) => f.write_str(t),
        }
    }
}

impl From<MapError> for DbError {
    fn from(e: MapError) -> Self {
        match e {
            MapError::MissingColumn { view, column } => DbError::MissingColumn {
                view: view.to_string(),
                column: column.to_string(),
            },
            MapError::Clock(text) => DbError::BadClock { text },
        }
    }
}

crate::core::error::from_text!(DbError, RowProblem);

#[cfg(test)]
mod tests {
    use super::*;

    const DPI: &str = "DPI-1047: Cannot locate a 64-bit Oracle Client library: \"libclntsh.so: cannot open shared object file: No such file or directory\". See https://oracle.github.io/odpi/doc/installation.html#linux for help";

    /// Each error with the words the panel and batch printed for it when
    /// it was a string.
    fn said() -> Vec<(DbError, String)> {
        let fix = "| Fix: install Oracle Instant Client (Basic or Basic Light, 11.2 or later; it also needs libaio) and start strata with LD_LIBRARY_PATH set to its directory, or register it with ldconfig.";
        let lost = "ORA-03113: end-of-file on communication channel\nProcess ID: 48213\nSession ID: 1153 Serial number: 32085";
        vec![
            (
                DbError::Oracle(OraError::of_text("ORA-12541: TNS:no listener")),
                "ORA-12541: TNS:no listener".into(),
            ),
            (
                DbError::ClientMissing {
                    error: OraError::of_text(DPI),
                    ld_library_path: Some("/opt/oracle/ic".into()),
                },
                format!(
                    "Oracle client library not found. {DPI} | Looked for libclntsh.so in: LD_LIBRARY_PATH=/opt/oracle/ic, then the ld.so cache and /lib, /usr/lib. {fix}"
                ),
            ),
            (
                DbError::ClientMissing {
                    error: OraError::of_text(DPI),
                    ld_library_path: Some(String::new()),
                },
                format!(
                    "Oracle client library not found. {DPI} | Looked for libclntsh.so in: LD_LIBRARY_PATH (unset), the ld.so cache, /lib and /usr/lib. {fix}"
                ),
            ),
            (
                DbError::ConnectionLost(OraError::of_text(lost)),
                format!("connection lost: {lost}"),
            ),
            (
                DbError::MissingColumn {
                    view: "gv$dnfs_files".into(),
                    column: "FILENAME".into(),
                },
                "gv$dnfs_files has no column FILENAME".into(),
            ),
            (
                DbError::BadClock { text: "x".into() },
                "the database clock \"x\" is not a timestamp".into(),
            ),
            (
                DbError::Oracle(OraError::of_text(
                    "invalid type conversion from NUMBER to u32",
                )),
                "invalid type conversion from NUMBER to u32".into(),
            ),
            (DbError::Text("an old text".into()), "an old text".into()),
        ]
    }

    #[test]
    fn says_what_the_string_said_and_reads_the_old_string() {
        crate::core::error::says_and_reads_old(said());
        // The mapper's errors say what they said.
        let e = MapError::MissingColumn {
            view: "gv$dnfs_files",
            column: "FILENAME",
        };
        assert_eq!(DbError::from(e.clone()).to_string(), e.to_string());
        let e = MapError::Clock("2026-13-01".into());
        assert_eq!(DbError::from(e.clone()).to_string(), e.to_string());
    }

    #[test]
    fn row_problems_say_what_the_strings_said() {
        let cases = [
            (
                RowProblem::Row {
                    view: "gv$dnfs_stats".into(),
                    row: 2,
                    value: BadValue::NotACount {
                        column: "NFS_READ".into(),
                        value: "12x".into(),
                    },
                },
                "gv$dnfs_stats row 2: NFS_READ = \"12x\" is not a count",
            ),
            (
                RowProblem::Row {
                    view: "gv$instance".into(),
                    row: 4,
                    value: BadValue::Null {
                        column: "HOST_NAME".into(),
                    },
                },
                "gv$instance row 4: HOST_NAME is NULL",
            ),
            (
                RowProblem::Query {
                    view: "gv$instance".into(),
                    error: OraError::of_text("ORA-00942: table or view does not exist"),
                },
                "gv$instance: ORA-00942: table or view does not exist",
            ),
            (
                RowProblem::Unmapped(DbError::MissingColumn {
                    view: "gv$instance".into(),
                    column: "HOST_NAME".into(),
                }),
                "gv$instance has no column HOST_NAME",
            ),
            (RowProblem::Text("an old text".into()), "an old text"),
        ];
        crate::core::error::says_and_reads_old(
            cases.into_iter().map(|(p, text)| (p, text.to_string())),
        );
    }

    #[test]
    fn the_code_is_kept_apart() {
        let e = OraError::of_text("ORA-01017: invalid username/password; logon denied");
        assert_eq!(e.code.as_deref(), Some("ORA-01017"));
        assert_eq!(e.message, "invalid username/password; logon denied");
        assert_eq!(
            DbError::ConnectionLost(e).code(),
            Some("ORA-01017"),
            "the code of the error under the loss"
        );
        for not in [
            "invalid type conversion",
            "ora-01017: lower case",
            "ORA-: no number",
            "Process ID: 48213",
            "DPI-1047 without a colon",
        ] {
            assert_eq!(OraError::of_text(not).code, None, "{not}");
        }
        let stack = OraError::of_text(
            "ORA-00604: error occurred at recursive SQL level 1\nORA-03113: end-of-file on communication channel",
        );
        assert_eq!(
            stack.codes().collect::<Vec<_>>(),
            ["ORA-00604", "ORA-03113"]
        );
        // OCI without its message files names the code in a sentence; a
        // stack may come on one line
        let untold = OraError::of_text("Error while trying to retrieve text for error ORA-03113");
        assert_eq!(untold.code, None);
        assert_eq!(untold.codes().collect::<Vec<_>>(), ["ORA-03113"]);
        let one_line = OraError::of_text("ORA-00604: recursive SQL, ORA-01017: logon denied.");
        assert_eq!(
            one_line.codes().collect::<Vec<_>>(),
            ["ORA-00604", "ORA-01017"]
        );
        assert_eq!(
            DbError::Text("ORA-01017: x".into()).code(),
            Some("ORA-01017")
        );
        assert_eq!(DbError::Text("an old text".into()).code(), None);
    }
}

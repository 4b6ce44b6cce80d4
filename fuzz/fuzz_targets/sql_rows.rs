//! Rows of the gv$dnfs_* views as text: a CSV spool, a capture of every
//! view, and the mapping of rows to a database sample.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = strata::layers::dnfs::sql_rows::parse_sql_csv("fuzz", &text);
    let _ = strata::layers::dnfs::sql_rows::parse_db_clock(&text);
    if let Ok(rows) = strata::layers::dnfs::dnfs_sample::rows_from_capture(0, "fuzz", &text) {
        let _ = strata::layers::dnfs::dnfs_sample::map_rows(&rows);
    }
});

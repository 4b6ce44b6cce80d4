//! `STRATA_FRAME_LOG=FILE`: a line per frame drawn, for measuring what the
//! screen costs under load (the cells' scale benchmark reads it). Nothing
//! is written unless the variable is set.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::Instant;

pub const VAR: &str = "STRATA_FRAME_LOG";

pub struct FrameLog {
    out: BufWriter<File>,
}

impl FrameLog {
    /// None when the variable is unset; an error names the file.
    pub fn from_env() -> Result<Option<FrameLog>, String> {
        let Some(path) = std::env::var_os(VAR).filter(|p| !p.is_empty()) else {
            return Ok(None);
        };
        let file = File::create(&path)
            .map_err(|e| format!("{VAR}: cannot write {}: {e}", path.to_string_lossy()))?;
        let mut out = BufWriter::new(file);
        // The header names the columns; a failed write shows at the flush.
        let _ = writeln!(out, "# wall_ms late_us draw_us");
        Ok(Some(FrameLog { out }))
    }

    /// `due`: when the frame could have been drawn at the earliest (the
    /// first change after the last frame, or the frame cap); `late` is the
    /// wait beyond that, i.e. the time the loop was busy elsewhere.
    pub fn record(&mut self, wall_ms: i64, due: Instant, start: Instant, end: Instant) {
        let late = start.saturating_duration_since(due).as_micros();
        let draw = end.saturating_duration_since(start).as_micros();
        let _ = writeln!(self.out, "{wall_ms} {late} {draw}");
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

impl Drop for FrameLog {
    fn drop(&mut self) {
        self.flush();
    }
}

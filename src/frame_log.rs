//! `STRATA_FRAME_LOG=FILE`: a line per frame drawn, for measuring what the
//! screen costs under load (the cells' scale benchmark reads it). Nothing
//! is written unless the variable is set.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::{Duration, Instant};

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
        let _ = writeln!(out, "# wall_ms late_us draw_us draw_cpu_us");
        Ok(Some(FrameLog { out }))
    }

    /// `due`: when the frame could have been drawn at the earliest (the
    /// first change after the last frame, or the frame cap); `late` is the
    /// wait beyond that, i.e. the time the loop was busy elsewhere.
    /// `cpu` is the thread's CPU time spent drawing: a draw much longer
    /// than its CPU time waited for the terminal or for a CPU.
    pub fn record(
        &mut self,
        wall_ms: i64,
        due: Instant,
        start: Instant,
        end: Instant,
        cpu: Duration,
    ) {
        let late = start.saturating_duration_since(due).as_micros();
        let draw = end.saturating_duration_since(start).as_micros();
        let cpu = cpu.as_micros();
        let _ = writeln!(self.out, "{wall_ms} {late} {draw} {cpu}");
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

/// CPU time of the calling thread so far (zero where the clock is missing).
pub fn thread_cpu() -> Duration {
    let Some(ts) = crate::core::sys::thread_cpu_time() else {
        return Duration::ZERO;
    };
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

impl Drop for FrameLog {
    fn drop(&mut self) {
        self.flush();
    }
}

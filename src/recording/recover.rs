//! `strata recover FILE OUT`: a clean copy of a damaged (or unclosed) recording.
//!
//! The copy is made one level above the codec, input by input: the player
//! reads FILE past its damage, and a fresh recorder writes what it read, so
//! the copy's shapes, series and key chunks are stated afresh and hold
//! together, which copying ticks would not guarantee (a tick after a gap may
//! refer to a shape stated in the chunk the gap took). The gaps are reported,
//! with their time ranges, on the output stream.

use std::io::Write;
use std::path::Path;

use super::session::{Player, Recorder, gap_notice};

/// Exit status: 0 the copy is whole (FILE had no damage); 1 FILE cannot be
/// read or OUT cannot be written (an existing OUT is refused, as `strata
/// record` refuses it); 3 the copy is written and FILE had gaps or other
/// notices, which are listed.
pub fn run_recover(file: &Path, out: &Path, say: &mut impl Write, err: &mut impl Write) -> i32 {
    let mut player = match Player::open(file) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(err, "strata: cannot read {}: {e}", file.display());
            return 1;
        }
    };
    let mut rec = match Recorder::create(out, &player.meta) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "strata: {e}");
            return 1;
        }
    };
    let (mut inputs, mut first, mut last) = (0u64, None, None);
    while let Some((at, input)) = player.next_input() {
        if let Err(e) = rec.record(at, &input) {
            rec.discard();
            let _ = writeln!(
                err,
                "strata: {e}; {} is not written (it would have held the first {inputs} inputs, unclosed)",
                out.display()
            );
            return 1;
        }
        inputs += 1;
        first = first.or(Some(at));
        last = Some(at);
    }
    if let Err(e) = rec.close_or_discard() {
        let _ = writeln!(err, "strata: {e}; {} is not written", out.display());
        return 1;
    }
    let span = match (first, last) {
        (Some(a), Some(b)) => format!(
            ", from {} to {}",
            crate::format::local_datetime(a),
            crate::format::local_datetime(b)
        ),
        _ => String::new(),
    };
    let gaps = player.reader().gaps();
    let _ = writeln!(
        say,
        "{}: {inputs} inputs{span}, {} gap{}",
        out.display(),
        gaps.len(),
        if gaps.len() == 1 { "" } else { "s" }
    );
    for g in gaps {
        let _ = writeln!(say, "{}", gap_notice(g));
    }
    // The gaps are said above; every other notice (why each gap is there, an
    // unclosed file, a tick that did not decode) goes to stderr.
    let gap_lines: Vec<String> = gaps.iter().map(gap_notice).collect();
    let others: Vec<&String> = player
        .notices
        .iter()
        .filter(|n| !gap_lines.contains(n))
        .collect();
    for n in &others {
        let _ = writeln!(err, "strata: {n}");
    }
    if gaps.is_empty() && others.is_empty() {
        0
    } else {
        3
    }
}

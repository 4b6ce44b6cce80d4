//! Recovery past damage (issue 15, item 2): a recording with a damaged byte
//! or a cut loses the chunk the damage is in and nothing else.
//!
//! Each case damages a 200 s recording of the fixture host's disks, exports
//! its disk rows as `strata export` does, and holds the count to an
//! expectation computed apart from the reader: the undamaged file's frames
//! are walked with the codec's frame decoder, each chunk's sample times read
//! from its head, and the rows expected are the undamaged export's rows at
//! the samples of the chunks the damage leaves whole (less the first such
//! sample's, which is then only a baseline). Rows at a sample whose previous
//! sample also survived must be the undamaged rows, byte for byte.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use strata::app::Input;
use strata::core::host::SelfUsage;
use strata::export::cmd::{ExportArgs, run_export};
use strata::layers::LayerId;
use strata::layers::report::Format;
use strata::recfile::format::{self, FILE_HEADER_LEN, FrameKind};
use strata::recfile::journal_path;
use strata::recording::control::meta_of;
use strata::recording::recover::run_recover;
use strata::recording::session::{Player, Recorder};

const T0: i64 = 1_795_000_000_000;
const SECS: u64 = 200;
/// Past the first ten chunks, where shapes are stated only at key chunks.
const LONG: u64 = 900;

/// The fixture host's disks once a second and the loop's clock, as the live
/// loop records them; `close` false leaves the file as a kill would (no end
/// frame, the ticks of the chunk being filled only in the journal).
fn record(path: &Path, secs: u64, close: bool) {
    record_with(path, secs, close, None)
}

/// As [`record`]; from sample `shrink_at` on, the host has one device less
/// (a new shape for the disks' stream).
fn record_with(path: &Path, secs: u64, close: bool, shrink_at: Option<u64>) {
    let app = common::recorded_app();
    let mut rec = Recorder::create(path, &meta_of(&app, T0)).unwrap();
    for k in 0..secs {
        let t = T0 + k as i64 * 1000;
        let mut sample = common::sample(k);
        if shrink_at.is_some_and(|at| k >= at) {
            sample.devices.pop();
        }
        rec.record(t, &Input::Disks(Ok(sample))).unwrap();
        let now_ms = t + 900;
        let usage = SelfUsage::default();
        rec.record(now_ms, &Input::Clock { now_ms, usage }).unwrap();
    }
    if close {
        rec.close().unwrap();
    } else {
        // As a kill -9: nothing more reaches the file.
        std::mem::forget(rec);
    }
}

/// One frame of the undamaged file: its bytes and, for a chunk, the times
/// of the disk samples in it (on whole seconds; the clock ticks are not).
struct Frame {
    key: bool,
    start: usize,
    end: usize,
    samples: BTreeSet<i64>,
    /// Every tick's time, for a chunk.
    times: Vec<i64>,
}

fn frame_table(bytes: &[u8]) -> Vec<Frame> {
    let mut frames = Vec::new();
    let mut pos = FILE_HEADER_LEN;
    let mut ctx = None;
    while pos < bytes.len() {
        let (h, payload) = format::decode_frame(&bytes[pos..], pos as u64).unwrap();
        // A delta chunk (which this recorder no longer writes) decodes with
        // the chunk before it, as it was written.
        let ticks = match h.kind {
            FrameKind::Chunk | FrameKind::DeltaChunk => {
                let before = ctx.as_ref().filter(|_| h.kind == FrameKind::DeltaChunk);
                let (ticks, after) = format::decode_chunk_frame(payload, 0, before).unwrap();
                ctx = Some(after);
                ticks
            }
            _ => Vec::new(),
        };
        let times = ticks.iter().map(|t| t.wall_ms).collect();
        // The meta tick (blob tag 2) is stated again at the start of a chunk,
        // at the time of the input that opens it: not a sample.
        let samples = ticks
            .iter()
            .filter(|t| t.blob.first() != Some(&2) && (t.wall_ms - T0) % 1000 == 0)
            .map(|t| t.wall_ms)
            .collect();
        let end = pos + h.total_len() as usize;
        frames.push(Frame {
            key: h.kind == FrameKind::Chunk,
            start: pos,
            end,
            samples,
            times,
        });
        pos = end;
    }
    frames
}

/// The disk rows of an export, by sample time; and its exit status.
fn rows(path: &Path) -> (i32, BTreeMap<i64, Vec<String>>, String) {
    let args = ExportArgs {
        format: Some(Format::Csv),
        panel: Some(LayerId::Disks),
        ..ExportArgs::default()
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_export(path, &args, &mut out, &mut err);
    let stamp_of: BTreeMap<String, i64> = (0..LONG as i64 + 1)
        .map(|k| (strata::format::iso_datetime(T0 + k * 1000), T0 + k * 1000))
        .collect();
    let mut by_time: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8(out).unwrap().lines().skip(1) {
        let stamp = line.split(',').next().unwrap();
        let t = *stamp_of.get(stamp).unwrap_or_else(|| panic!("{line}"));
        by_time.entry(t).or_default().push(line.to_string());
    }
    (code, by_time, String::from_utf8(err).unwrap())
}

fn count(r: &BTreeMap<i64, Vec<String>>) -> usize {
    r.values().map(Vec::len).sum()
}

/// The rows a file keeps when the samples `kept` survive: the undamaged
/// rows at each, but the first (a baseline).
fn expected(whole: &BTreeMap<i64, Vec<String>>, kept: &BTreeSet<i64>) -> usize {
    kept.iter()
        .skip(1)
        .map(|t| whole.get(t).map_or(0, Vec::len))
        .sum()
}

/// Checks the damaged export against the expectation; returns rows kept.
fn check(
    what: &str,
    bad: &Path,
    whole: &BTreeMap<i64, Vec<String>>,
    kept: &BTreeSet<i64>,
) -> usize {
    let (code, got, err) = rows(bad);
    let want = expected(whole, kept);
    assert_eq!(count(&got), want, "{what}: rows kept; stderr: {err}");
    assert_eq!(code, 3, "{what}: {err}");
    for (t, lines) in &got {
        assert!(kept.contains(t), "{what}: a row at {t}, a lost sample");
        if kept.contains(&(t - 1000)) {
            assert_eq!(Some(lines), whole.get(t), "{what}: the rows at {t}");
        }
    }
    // `whole` has rows at every sample but the first.
    let lost_some = kept.len() < whole.len() + 1;
    if lost_some && !kept.is_empty() {
        assert!(
            err.contains("gap: what was recorded after"),
            "{what}: {err}"
        );
    }
    want
}

struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// The samples of the chunks a damage to `lost` frames leaves whole.
fn kept_without(frames: &[Frame], lost: impl Fn(&Frame) -> bool) -> BTreeSet<i64> {
    frames
        .iter()
        .filter(|f| !lost(f))
        .flat_map(|f| f.samples.iter().copied())
        .collect()
}

#[test]
fn a_damaged_byte_costs_its_chunk_alone_and_a_cut_what_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.strec");
    record(&path, SECS, true);
    let bytes = std::fs::read(&path).unwrap();
    let frames = frame_table(&bytes);
    let chunks: Vec<&Frame> = frames.iter().filter(|f| !f.samples.is_empty()).collect();
    let all = kept_without(&frames, |_| false);
    assert_eq!(all.len(), SECS as usize, "every sample is in a chunk");
    let (code, whole, err) = rows(&path);
    assert_eq!((code, err.as_str()), (0, ""));
    let total = count(&whole);
    assert_eq!(total, expected(&whole, &all));
    println!(
        "{} B, {} frames, {} chunks, {total} rows",
        bytes.len(),
        frames.len(),
        chunks.len()
    );
    let bad = dir.path().join("bad.strec");
    let frame_at = |at: usize| frames.iter().find(|f| (f.start..f.end).contains(&at));

    // A flip at each chunk's first and last byte (its boundaries).
    for f in &chunks {
        for at in [f.start, f.end - 1] {
            let mut b = bytes.clone();
            b[at] ^= 0x10;
            std::fs::write(&bad, &b).unwrap();
            let kept = kept_without(&frames, |g| g.start == f.start);
            let n = check(&format!("flip at {at}"), &bad, &whole, &kept);
            println!("flip at chunk boundary {at}: {n} of {total} rows kept, as expected");
        }
    }

    // 50 flips at random offsets past the file header.
    let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
    let mut kept_sum = (0, 0);
    for _ in 0..50 {
        let at = FILE_HEADER_LEN + rng.below(bytes.len() - FILE_HEADER_LEN);
        let mut b = bytes.clone();
        b[at] ^= 1 << rng.below(8);
        std::fs::write(&bad, &b).unwrap();
        let hit = frame_at(at).unwrap();
        let kept = kept_without(&frames, |g| g.start == hit.start);
        // A flip in a catalogue frame loses no row: chunks do not need it.
        let want = check(&format!("flip at {at}"), &bad, &whole, &kept);
        kept_sum = (kept_sum.0 + want, kept_sum.1 + total);
    }
    println!(
        "50 random flips: {} of {} rows kept in all, each as expected",
        kept_sum.0, kept_sum.1
    );

    // 50 cuts at random offsets past the file header.
    let mut kept_sum = (0, 0);
    for _ in 0..50 {
        let at = FILE_HEADER_LEN + rng.below(bytes.len() - FILE_HEADER_LEN);
        std::fs::write(&bad, &bytes[..at]).unwrap();
        let kept = kept_without(&frames, |g| g.end > at);
        let what = format!("cut at {at}");
        let (code, got, err) = rows(&bad);
        let want = expected(&whole, &kept);
        assert_eq!(count(&got), want, "{what}: rows kept; stderr: {err}");
        // A cut before the first chunk whose meta reads leaves nothing to open.
        assert!(
            code == 3 || (code == 1 && want == 0),
            "{what}: {code} {err}"
        );
        kept_sum = (kept_sum.0 + want, kept_sum.1 + total);
    }
    println!(
        "50 cuts: {} of {} rows kept in all, each as expected",
        kept_sum.0, kept_sum.1
    );
}

/// Damage in the first kilobytes (the catalogue, the first chunks and their
/// shapes) costs those chunks only: the meta and the shapes are stated again.
#[test]
fn damage_at_the_start_loses_only_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.strec");
    record(&path, SECS, true);
    let bytes = std::fs::read(&path).unwrap();
    let frames = frame_table(&bytes);
    let (_, whole, _) = rows(&path);
    let bad = dir.path().join("bad.strec");
    // Every frame before the first chunk of samples, and that chunk.
    let first = frames.iter().position(|f| !f.samples.is_empty()).unwrap();
    for f in &frames[..=first] {
        let mut b = bytes.clone();
        let at = (f.start + f.end) / 2;
        b[at] ^= 0x01;
        std::fs::write(&bad, &b).unwrap();
        let kept = kept_without(&frames, |g| g.start == f.start);
        let n = check(&format!("flip at {at}"), &bad, &whole, &kept);
        println!(
            "flip at {at} (frame at {}..{}): {n} of {} rows",
            f.start,
            f.end,
            count(&whole)
        );
        assert!(n > count(&whole) / 2);
    }
}

/// A recording killed after 20 s: its samples are in the journal. A cut of
/// the segment (here, into the frames before the journal's base) still
/// leaves the journal's samples, after a gap.
#[test]
fn a_killed_recordings_journal_reads_past_a_cut_segment() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.strec");
    record(&path, 20, false);
    let bytes = std::fs::read(&path).unwrap();
    let frames = frame_table(&bytes);
    let journal = std::fs::read(journal_path(&path)).unwrap();
    // The journal's samples, read with the codec alone.
    let mut in_journal = BTreeSet::new();
    let mut pos = format::JOURNAL_HEADER_LEN;
    while pos < journal.len() {
        let (p, n) = format::decode_record(&journal[pos..], pos as u64).unwrap();
        let t = format::decode_tick(p, 0).unwrap();
        if t.blob.first() != Some(&2) && (t.wall_ms - T0) % 1000 == 0 {
            in_journal.insert(t.wall_ms);
        }
        pos += n;
    }
    assert!(in_journal.len() >= 15, "{in_journal:?}");
    let (code, whole, err) = rows(&path);
    assert_eq!(code, 3, "{err}");
    let bad = dir.path().join("bad.strec");
    for pct in [50, 80, 95] {
        let at = bytes.len() * pct / 100;
        std::fs::write(&bad, &bytes[..at]).unwrap();
        std::fs::copy(journal_path(&path), journal_path(&bad)).unwrap();
        let mut kept = kept_without(&frames, |g| g.end > at);
        kept.extend(&in_journal);
        let n = check(&format!("cut at {pct} %"), &bad, &whole, &kept);
        println!(
            "killed 20 s file cut at {pct} %: {n} of {} rows",
            count(&whole)
        );
    }
}

#[test]
fn recover_writes_a_clean_private_copy_and_lists_the_gaps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.strec");
    record(&path, SECS, true);
    let bytes = std::fs::read(&path).unwrap();
    let frames = frame_table(&bytes);
    let chunks: Vec<&Frame> = frames.iter().filter(|f| !f.times.is_empty()).collect();
    let chunk = chunks[3];
    let mut b = bytes.clone();
    b[(chunk.start + chunk.end) / 2] ^= 0x40;
    let bad = dir.path().join("bad.strec");
    std::fs::write(&bad, &b).unwrap();
    let out = dir.path().join("clean.strec");
    let (mut say, mut err) = (Vec::new(), Vec::new());
    let code = run_recover(&bad, &out, &mut say, &mut err);
    let (say, err) = (
        String::from_utf8(say).unwrap(),
        String::from_utf8(err).unwrap(),
    );
    assert_eq!(code, 3, "{say}{err}");
    // The gap is named by the last sample before it and the first after.
    let before = chunks[2].times.iter().max().unwrap();
    let after = chunks[4].times.iter().min().unwrap();
    let gap = format!(
        "gap: what was recorded after {} and before {} is lost",
        strata::format::local_datetime(*before),
        strata::format::local_datetime(*after)
    );
    assert!(say.contains("1 gap") && say.contains(&gap), "{say}");
    assert!(err.contains("damaged up to byte"), "{err}");
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // The copy reads clean, and exports the rows the damaged file does.
    let player = Player::open(&out).unwrap();
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let (code, copied, err) = rows(&out);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(copied, rows(&bad).1);
    // An existing OUT is refused, and left as it was.
    let before_len = std::fs::metadata(&out).unwrap().len();
    let (mut say, mut err) = (Vec::new(), Vec::new());
    assert_eq!(run_recover(&bad, &out, &mut say, &mut err), 1);
    let err = String::from_utf8(err).unwrap();
    assert!(err.contains("exists"), "{err}");
    assert_eq!(std::fs::metadata(&out).unwrap().len(), before_len);
    // A whole file recovers with status 0 and no gap.
    let out2 = dir.path().join("same.strec");
    let (mut say, mut err) = (Vec::new(), Vec::new());
    assert_eq!(run_recover(&path, &out2, &mut say, &mut err), 0);
    assert!(String::from_utf8(say).unwrap().contains(", 0 gaps"));
}

/// Past the first ten minutes, shapes are stated again only at key chunks
/// (every tenth). A flip still costs its chunk alone while shapes do not
/// change; when the damaged chunk held a new shape, that stream's ticks are
/// passed over until it is stated again, and never joined with the older one.
#[test]
fn past_ten_minutes_a_flip_costs_its_chunk_and_a_lost_new_shape_is_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.strec");
    record(&path, LONG, true);
    let bytes = std::fs::read(&path).unwrap();
    let frames = frame_table(&bytes);
    let (_, whole, _) = rows(&path);
    let chunks: Vec<&Frame> = frames.iter().filter(|f| !f.times.is_empty()).collect();
    assert!(chunks.len() >= 15, "{} chunks", chunks.len());
    let bad = dir.path().join("bad.strec");
    for f in &chunks[9..] {
        let mut b = bytes.clone();
        b[f.start + 8] ^= 0x04;
        std::fs::write(&bad, &b).unwrap();
        let kept = kept_without(&frames, |g| g.start == f.start);
        let n = check(&format!("flip at {}", f.start + 8), &bad, &whole, &kept);
        println!(
            "{LONG} s, flip in the chunk at {} (key {}): {n} of {} rows, as expected",
            f.start,
            f.key,
            count(&whole)
        );
    }

    // A device goes at 700 s: the disks' new shape is in the chunk that
    // holds that sample. Damage there costs the disks' rows up to the next
    // key chunk (here: to the end), and no row comes from the older shape.
    let path = dir.path().join("shrink.strec");
    record_with(&path, LONG, true, Some(700));
    let bytes = std::fs::read(&path).unwrap();
    let frames = frame_table(&bytes);
    let (_, whole, _) = rows(&path);
    let hit = frames
        .iter()
        .position(|f| f.samples.contains(&(T0 + 700_000)))
        .unwrap();
    assert!(!frames[hit].key && frames[hit + 1..].iter().all(|f| !f.key));
    let mut b = bytes.clone();
    b[frames[hit].start + 8] ^= 0x04;
    std::fs::write(&bad, &b).unwrap();
    let kept = kept_without(&frames[..hit], |_| false);
    let (code, got, err) = rows(&bad);
    assert_eq!(code, 3);
    assert_eq!(count(&got), expected(&whole, &kept), "{err}");
    assert_eq!(got.keys().last(), kept.iter().last(), "{err}");
    assert!(
        err.contains("its shape was stated in a damaged chunk"),
        "{err}"
    );
    println!(
        "a device gone at 700 s, its new shape's chunk damaged: {} of {} rows (to the end: no key chunk after)",
        count(&got),
        count(&whole)
    );
}

/// The command as a user runs it.
#[test]
fn the_binary_recovers_and_says_the_gaps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.strec");
    record(&path, SECS, true);
    let mut b = std::fs::read(&path).unwrap();
    let frames = frame_table(&b);
    let chunk = frames
        .iter()
        .filter(|f| !f.times.is_empty())
        .nth(3)
        .unwrap();
    b[chunk.start + 100] ^= 0x08;
    let bad = dir.path().join("bad.strec");
    std::fs::write(&bad, &b).unwrap();
    let out = dir.path().join("clean.strec");
    let run = |out: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .arg("recover")
            .arg(&bad)
            .arg(out)
            .output()
            .unwrap()
    };
    let o = run(&out);
    let (say, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(3), "{say}{err}");
    assert!(
        say.contains("1 gap") && say.contains("gap: what was recorded after"),
        "{say}"
    );
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let o = run(&out);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
}

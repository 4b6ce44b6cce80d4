//! Bounded memory when reading recordings (issue 15, item 3): a recording
//! followed by a 2 GiB hole (a sparse file, as a disk that lost its tail
//! leaves one) opens, reads and recovers, and a 2 GiB file of zeroes is
//! refused by name, both without the file in memory. The bound is on the
//! process's peak resident size (VmHWM), which reading the file whole
//! would raise by 2 GiB: the reader holds its index and a frame at a time.
//!
//! One crate of its own: VmHWM is the whole process's, and no other test
//! may run beside these.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::fs::File;
use std::path::Path;

use strata::app::Input;
use strata::core::host::SelfUsage;
use strata::recfile::RecordReader;
use strata::recfile::format::FRAME_HEADER_LEN;
use strata::recording::control::meta_of;
use strata::recording::recover::run_recover;
use strata::recording::session::Recorder;

const T0: i64 = 1_795_000_000_000;
const HOLE: u64 = 2 << 30;
/// What the tests allow the peak resident size to grow by.
const BOUND_KB: u64 = 64 << 10;

/// The process's peak resident size so far, in kB.
fn peak_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Five minutes of the loop's clock, closed, then its end frame taken off
/// and the file extended by a hole: the hole reads as damage to the end.
fn recording_then_hole(path: &Path) -> u64 {
    let app = common::recorded_app();
    let mut rec = Recorder::create(path, &meta_of(&app, T0)).unwrap();
    for k in 0..300 {
        let now_ms = T0 + k * 1000;
        let usage = SelfUsage::default();
        rec.record(now_ms, &Input::Clock { now_ms, usage }).unwrap();
    }
    rec.close().unwrap();
    let f = File::options().write(true).open(path).unwrap();
    let written = f.metadata().unwrap().len() - FRAME_HEADER_LEN as u64;
    f.set_len(written).unwrap();
    f.set_len(written + HOLE).unwrap();
    written
}

#[test]
fn a_recording_before_a_2_gib_hole_reads_and_recovers_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("holed.strec");
    let written = recording_then_hole(&path);
    let before = peak_kb();

    let r = RecordReader::open(&path).unwrap();
    let gaps = r.gaps().to_vec();
    assert_eq!(gaps.len(), 1, "{:?}", r.notices());
    assert_eq!((gaps[0].offset, gaps[0].end), (written, written + HOLE));
    assert!(
        r.notices()
            .iter()
            .any(|n| n.offset == written && n.reason.starts_with("reading stops here")),
        "{:?}",
        r.notices()
    );
    let rec = r.read_all();
    let clocks = rec.ticks.iter().filter(|t| t.wall_ms >= T0).count();
    assert!(clocks >= 300, "{clocks} ticks");
    drop(r);

    let out = dir.path().join("copy.strec");
    let (mut say, mut err) = (Vec::new(), Vec::new());
    let code = run_recover(&path, &out, &mut say, &mut err);
    let say = String::from_utf8_lossy(&say);
    assert_eq!(code, 3, "{say} {}", String::from_utf8_lossy(&err));
    assert!(say.contains("300 inputs") && say.contains("1 gap"), "{say}");
    assert!(std::fs::metadata(&out).unwrap().len() < 1 << 20);

    let grown = peak_kb().saturating_sub(before);
    eprintln!("peak resident size grew by {grown} kB");
    assert!(grown < BOUND_KB, "peak resident size grew by {grown} kB");
}

#[test]
fn a_2_gib_file_of_zeroes_is_refused_by_name_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zeroes.strec");
    File::create(&path).unwrap().set_len(HOLE).unwrap();
    let before = peak_kb();
    let err = RecordReader::open(&path).err().unwrap().to_string();
    assert!(err.contains("not a strata recording"), "{err}");
    let grown = peak_kb().saturating_sub(before);
    eprintln!("peak resident size grew by {grown} kB");
    assert!(grown < BOUND_KB, "peak resident size grew by {grown} kB");
}

/// A journal that is no file (here /dev/zero, which reading whole never
/// ends) is refused with a notice, not read; the recording still opens.
#[test]
fn a_journal_that_is_not_a_file_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.strec");
    recording_then_hole(&path);
    std::fs::remove_file(strata::recfile::journal_path(&path)).ok();
    std::os::unix::fs::symlink("/dev/zero", strata::recfile::journal_path(&path)).unwrap();
    let before = peak_kb();
    let r = RecordReader::open(&path).unwrap();
    assert!(
        r.notices()
            .iter()
            .any(|n| n.reason.contains("journal") && n.reason.contains("not a regular file")),
        "{:?}",
        r.notices()
    );
    let grown = peak_kb().saturating_sub(before);
    assert!(grown < BOUND_KB, "peak resident size grew by {grown} kB");
}

/// The figure for the issue, not a check: `cargo test --test record_big --
/// --ignored --nocapture` writes a 300 MB recording (one chunk of 600 ticks
/// of incompressible blobs, framed 300 times) and prints how much the peak
/// resident size grows while it is opened and each tick read once.
#[test]
#[ignore]
fn measure_reading_a_300_mb_recording() {
    use std::io::Write;
    use strata::recfile::format::{self, FrameKind, Tick};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.strec");
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let ticks: Vec<Tick> = (0..600)
        .map(|i| Tick {
            wall_ms: T0 + i * 100,
            values: vec![],
            blob: (0..1_700)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect(),
        })
        .collect();
    let payload = format::compress(&format::encode_chunk(&ticks, None));
    let mut f = std::io::BufWriter::new(File::create(&path).unwrap());
    f.write_all(&format::encode_file_header(T0)).unwrap();
    for _ in 0..300 {
        f.write_all(&format::encode_frame(FrameKind::Chunk, T0, &payload))
            .unwrap();
    }
    f.write_all(&format::encode_frame(FrameKind::End, T0, &[]))
        .unwrap();
    drop(f);
    let size = std::fs::metadata(&path).unwrap().len();
    let before = peak_kb();
    let r = RecordReader::open(&path).unwrap();
    let opened = peak_kb().saturating_sub(before);
    let n = r.ticks().filter(Result::is_ok).count();
    let read = peak_kb().saturating_sub(before);
    eprintln!(
        "{size} bytes, {n} ticks: peak resident size +{opened} kB after open, \
         +{read} kB after reading every tick"
    );
    assert_eq!(n, 600 * 300);
}

//! The recording container and codec: round trips, recovery after SIGKILL, damage at
//! every offset, fuzzed input, version refusal, and the size of an hour.

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use strata::recfile::format::{self, FILE_HEADER_LEN};
use strata::recfile::{
    NoticeSource, RecordError, RecordReader, RecordWriter, SeriesDef, SeriesKind, Tick, Value,
    journal_path,
};

/// xorshift64*: a seeded RNG so sizes are deterministic and can be asserted.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn def(id: u32, name: &str, kind: SeriesKind) -> SeriesDef {
    SeriesDef {
        id,
        name: name.into(),
        kind,
    }
}

const T0: i64 = 1_763_800_000_000;

/// 150 ticks over 3 chunks: counters (one starts 50 below u64::MAX and wraps), a gauge
/// that is NaN and ±inf at times, a series absent every 4th tick, and series 7 added
/// at tick 70 (mid-chunk, which commits a short chunk first).
fn small_ticks() -> Vec<Tick> {
    (0..150i64)
        .map(|i| {
            let mut v = vec![
                (1, Value::Counter(1_000 + 4096 * i as u64)),
                (
                    2,
                    Value::Counter((u64::MAX - 50).wrapping_add(i as u64 * (i as u64 % 5))),
                ),
                (
                    3,
                    Value::Gauge(match i % 30 {
                        7 => f64::NAN,
                        8 => f64::INFINITY,
                        9 => -0.0,
                        _ => (i % 12) as f64 * 0.5,
                    }),
                ),
            ];
            if i % 4 != 1 {
                v.push((4, Value::Counter(77 * i as u64)));
            }
            if i >= 70 {
                v.push((7, Value::Gauge(i as f64)));
            }
            Tick {
                wall_ms: T0 + 1000 * i,
                values: v,
                blob: Vec::new(),
            }
        })
        .collect()
}

fn small_defs() -> Vec<SeriesDef> {
    vec![
        def(1, "sda.read_sectors", SeriesKind::Counter),
        def(2, "wrapper", SeriesKind::Counter),
        def(3, "sda.in_flight", SeriesKind::Gauge),
        def(4, "eth0.rx_bytes", SeriesKind::Counter),
    ]
}

fn write_small(path: &Path) -> Vec<Tick> {
    let ticks = small_ticks();
    let mut w = RecordWriter::create(path, T0, &small_defs()).unwrap();
    for (i, t) in ticks.iter().enumerate() {
        if i == 70 {
            w.add_series(def(7, "late.gauge", SeriesKind::Gauge))
                .unwrap();
        }
        // Reversed order on input: the reader gives ascending ids.
        let rev: Vec<_> = t.values.iter().rev().copied().collect();
        w.push(t.wall_ms, &rev).unwrap();
    }
    w.close().unwrap();
    ticks
}

fn assert_prefix(got: &[Tick], want: &[Tick]) {
    assert!(
        got.len() <= want.len(),
        "{} ticks read, {} written",
        got.len(),
        want.len()
    );
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(g.same_bits(w), "tick {i}: read {g:?}, wrote {w:?}");
    }
}

#[test]
fn round_trip_counters_gauges_absent_wrap_nan_and_late_series() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.strata");
    let want = write_small(&path);
    assert!(!journal_path(&path).exists(), "close removes the journal");
    let r = RecordReader::open(&path).unwrap();
    assert!(r.is_closed());
    assert_eq!(r.header().start_wall_ms, T0);
    let names: Vec<_> = r
        .catalogue()
        .iter()
        .map(|d| (d.id, d.name.as_str(), d.kind))
        .collect();
    assert_eq!(names[4], (7, "late.gauge", SeriesKind::Gauge));
    // 60 + 10 (short chunk committed by add_series) + 60 + 20 (committed by close).
    let t0s: Vec<_> = r.chunks().iter().map(|c| (c.t0 - T0) / 1000).collect();
    assert_eq!(t0s, [0, 60, 70, 130]);
    let rec = r.read_all();
    assert!(rec.notices.is_empty(), "{:?}", rec.notices);
    assert_eq!(rec.ticks.len(), want.len());
    assert_prefix(&rec.ticks, &want);
    // NaN comes back as NaN (bit for bit), distinct from absent.
    assert!(matches!(rec.ticks[7].values[2], (3, Value::Gauge(g)) if g.is_nan()));
    assert_eq!(
        rec.ticks[1]
            .values
            .iter()
            .filter(|(id, _)| *id == 4)
            .count(),
        0
    );
}

#[test]
fn seek_starts_at_the_first_tick_at_or_after_the_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.strata");
    let want = write_small(&path);
    let r = RecordReader::open(&path).unwrap();
    for (target, first) in [
        (i64::MIN, 0),
        (T0 + 65_500, 66),
        (T0 + 70_000, 70),
        (T0 + 149_000, 149),
    ] {
        let got: Vec<Tick> = r.seek(target).map(Result::unwrap).collect();
        assert_eq!(got.len(), 150 - first, "seek {target}");
        assert!(got[0].same_bits(&want[first]));
    }
    assert_eq!(r.seek(T0 + 150_000).count(), 0);
}

#[test]
fn writer_refuses_unknown_series_wrong_kind_and_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.strata");
    let mut w = RecordWriter::create(&path, T0, &[def(1, "c", SeriesKind::Counter)]).unwrap();
    assert!(matches!(
        w.push(T0, &[(2, Value::Counter(1))]),
        Err(RecordError::UnknownSeries(2))
    ));
    assert!(matches!(
        w.push(T0, &[(1, Value::Gauge(1.0))]),
        Err(RecordError::KindMismatch { id: 1, .. })
    ));
    assert!(matches!(
        w.push(T0, &[(1, Value::Counter(1)), (1, Value::Counter(2))]),
        Err(RecordError::RepeatedInTick(1))
    ));
    assert!(matches!(
        w.add_series(def(1, "again", SeriesKind::Gauge)),
        Err(RecordError::DuplicateSeries(1))
    ));
}

/// A host of many devices fills the pending ticks long before a minute:
/// they are committed as a shorter chunk once they hold
/// MAX_PENDING_VALUES, so the writer's memory does not grow with the
/// number of series; a tick without values (a key chunk's restatement)
/// still opens the chunk of the tick after it.
#[test]
fn pending_ticks_are_bounded_in_values_not_only_in_time() {
    use strata::recfile::writer::MAX_PENDING_VALUES;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.strata");
    let n = 100_000u32;
    let defs: Vec<SeriesDef> = (0..n)
        .map(|i| def(i, &format!("s{i}"), SeriesKind::Counter))
        .collect();
    let mut w = RecordWriter::create(&path, T0, &defs).unwrap();
    let per_chunk = MAX_PENDING_VALUES / n as usize;
    let ticks = per_chunk as i64 + 1;
    for t in 0..ticks {
        let values: Vec<(u32, Value)> = (0..n)
            .map(|i| (i, Value::Counter(t as u64 + u64::from(i))))
            .collect();
        let at = T0 + t * 500;
        let opens = w.opens_chunk(at, values.len());
        assert_eq!(opens, (t as usize).is_multiple_of(per_chunk), "tick {t}");
        assert_eq!(w.opens_chunk(at, 0), t == 0, "tick {t}");
        // What opens on size is what the recorder restates at most once a minute.
        assert_eq!(
            w.opens_on_size(at, values.len()),
            opens && t > 0,
            "tick {t}"
        );
        w.push(at, &values).unwrap();
    }
    w.close().unwrap();
    let r = RecordReader::open(&path).unwrap();
    assert_eq!(r.chunks().len(), 2);
    assert_eq!(r.ticks().count(), ticks as usize);
    assert!(
        ticks * 500 < format::CHUNK_SPAN_MS,
        "all in less than a minute"
    );
}

#[test]
fn truncation_at_every_offset_reads_a_prefix_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.strata");
    let want = write_small(&path);
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.path().join("cut.strata");
    let mut last_count = 0;
    for len in 0..bytes.len() {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        match RecordReader::open(&cut) {
            Err(e) => {
                // Only a cut inside the 24-byte file header leaves nothing to read.
                assert!(len < FILE_HEADER_LEN, "cut at {len}: {e}");
                assert!(e.to_string().contains("the data ends"), "{e}");
            }
            Ok(r) => {
                let rec = r.read_all();
                assert!(!rec.notices.is_empty(), "cut at {len} went unnoticed");
                assert_prefix(&rec.ticks, &want);
                // A longer prefix never reads fewer ticks.
                assert!(rec.ticks.len() >= last_count, "cut at {len}");
                last_count = rec.ticks.len();
            }
        }
    }
    // The longest cut only tears the 17-byte end frame: every tick still reads.
    assert_eq!(last_count, 150);
    println!("truncated {} B file at every offset", bytes.len());
}

#[test]
fn unknown_version_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.strata");
    write_small(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8..10].copy_from_slice(&2u16.to_le_bytes());
    // Re-seal the header so the refusal is the version check, not the CRC.
    let crc = crc32fast::hash(&bytes[..20]);
    bytes[20..24].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let err = RecordReader::open(&path).err().unwrap().to_string();
    assert!(
        err.contains("format version 2 is not supported: this strata reads version 1"),
        "{err}"
    );
    std::fs::write(&path, b"SQLite format 3\0 and then some").unwrap();
    let err = RecordReader::open(&path).err().unwrap().to_string();
    assert!(err.contains("not a strata recording"), "{err}");
}

#[test]
fn journal_left_by_a_crash_after_commit_is_not_read_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.strata");
    let want = small_ticks();
    let mut w = RecordWriter::create(&path, T0, &small_defs()).unwrap();
    for t in &want[..59] {
        w.push(t.wall_ms, &t.values).unwrap();
    }
    let stale = std::fs::read(journal_path(&path)).unwrap();
    w.push(want[59].wall_ms, &want[59].values).unwrap();
    drop(w);
    // As if the writer died between appending the chunk and restarting the journal.
    std::fs::write(journal_path(&path), &stale).unwrap();
    let rec = RecordReader::open(&path).unwrap().read_all();
    assert_eq!(rec.ticks.len(), 60);
    assert_prefix(&rec.ticks, &want);
}

/// The tick the kill-test child writes at step i (deterministic, so the parent can check).
fn kill_tick(i: u64) -> Vec<(u32, Value)> {
    let mut v: Vec<(u32, Value)> = (0..20)
        .map(|s| (s, Value::Counter(i * (s as u64 + 1) * 512)))
        .collect();
    v.push((20, Value::Gauge((i % 17) as f64)));
    v
}

const CHILD_ENV: &str = "STRATA_RECORD_KILL_CHILD";

/// Runs only when re-executed by `sigkill_loses_at_most_the_tick_being_written`: writes
/// ticks until killed, saying after each push that it returned.
#[test]
fn record_kill_child_writer() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let mut defs: Vec<_> = (0..20)
        .map(|s| def(s, &format!("c{s}"), SeriesKind::Counter))
        .collect();
    defs.push(def(20, "g", SeriesKind::Gauge));
    let mut w = RecordWriter::create(Path::new(&path), T0, &defs).unwrap();
    let start = Instant::now();
    for i in 0..100_000u64 {
        if start.elapsed() > Duration::from_secs(60) {
            break;
        }
        w.push(T0 + 1000 * i as i64, &kill_tick(i)).unwrap();
        println!("pushed {i}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn kill_child_after(dir: &Path, name: &str, confirmed: u64) -> (PathBuf, u64) {
    let path = dir.join(name);
    // Test names in a binary of several modules start with the module's.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let child_test = format!("{module}::record_kill_child_writer");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            child_test.as_str(),
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = None;
    while Instant::now() < deadline {
        let Some(Ok(line)) = lines.next() else { break };
        if let Some(n) = line.strip_prefix("pushed ") {
            let n: u64 = n.trim().parse().unwrap();
            last = Some(n);
            if n + 1 >= confirmed {
                break;
            }
        }
    }
    child.kill().unwrap(); // SIGKILL on unix
    child.wait().unwrap();
    (path, last.map_or(0, |n| n + 1))
}

#[test]
fn sigkill_loses_at_most_the_tick_being_written() {
    let dir = tempfile::tempdir().unwrap();
    // Killed with the journal holding 30 ticks, then 59, then right after a commit.
    for (k, confirmed) in [150u64, 179, 181].into_iter().enumerate() {
        let (path, pushed) = kill_child_after(dir.path(), &format!("k{k}.strata"), confirmed);
        assert!(pushed >= confirmed, "child confirmed only {pushed} pushes");
        let r = RecordReader::open(&path).unwrap();
        let rec = r.read_all();
        assert!(
            rec.notices
                .iter()
                .any(|n| n.source == NoticeSource::Segment && n.reason.contains("no end frame")),
            "{:?}",
            rec.notices
        );
        // Every push that returned is in the file; the child may have pushed a
        // few more between its last line and the kill, and those must be right too.
        assert!(
            rec.ticks.len() as u64 >= pushed,
            "{} read, {pushed} confirmed",
            rec.ticks.len()
        );
        for (i, t) in rec.ticks.iter().enumerate() {
            let want = Tick {
                wall_ms: T0 + 1000 * i as i64,
                values: kill_tick(i as u64),
                blob: Vec::new(),
            };
            assert!(t.same_bits(&want), "tick {i}");
        }
        if k == 0 {
            // A kill mid-write leaves the journal's last record torn: cut it at every
            // byte of its last two records; at most that one tick may go, with a notice.
            let jp = journal_path(&path);
            let whole = std::fs::read(&jp).unwrap();
            let rec_len = format::encode_record(&format::encode_tick(&Tick {
                wall_ms: T0 + 1000 * (rec.ticks.len() as i64 - 1),
                values: kill_tick(rec.ticks.len() as u64 - 1),
                blob: Vec::new(),
            }))
            .len();
            for cut in 1..2 * rec_len {
                std::fs::write(&jp, &whole[..whole.len() - cut]).unwrap();
                let torn = RecordReader::open(&path).unwrap().read_all();
                let lost = rec.ticks.len() - torn.ticks.len();
                assert!(lost == 1 + cut / (rec_len + 1), "cut {cut}: {lost} lost");
                assert_eq!(
                    torn.notices
                        .iter()
                        .any(|n| n.source == NoticeSource::Journal),
                    cut % rec_len != 0
                );
                assert_prefix(&torn.ticks, &rec.ticks);
            }
            std::fs::write(&jp, &whole).unwrap();
        }
        println!(
            "SIGKILL after {pushed} confirmed pushes: {} ticks recovered ({} from {} chunks, {} from the journal), notices: {}",
            rec.ticks.len(),
            rec.ticks.len() - r.journal_ticks().len(),
            r.chunks().len(),
            r.journal_ticks().len(),
            rec.notices
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
}

#[test]
fn one_hour_of_1000_series_fits_the_budget() {
    const SERIES: u32 = 1000;
    const GAUGES: u32 = 50;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hour.strata");
    let defs: Vec<_> = (0..SERIES)
        .map(|s| {
            let kind = if s < SERIES - GAUGES {
                SeriesKind::Counter
            } else {
                SeriesKind::Gauge
            };
            def(s, &format!("host.dev{}.field{}", s / 11, s % 11), kind)
        })
        .collect();
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    // 30% of counters idle (a quiet device); the others' rates random-walk ±10/s from
    // a random start, as in crates.md §8. Gauges are integer queue depths walking ±1.
    let mut counter: Vec<u64> = (0..SERIES).map(|_| rng.next() >> 20).collect();
    let mut rate: Vec<i64> = (0..SERIES)
        .map(|s| {
            if s % 10 < 3 {
                0
            } else {
                rng.below(5_000) as i64
            }
        })
        .collect();
    let mut depth: Vec<i64> = (0..SERIES).map(|_| rng.below(32) as i64).collect();
    let mut w = RecordWriter::create(&path, T0, &defs).unwrap();
    let started = Instant::now();
    let mut values = Vec::with_capacity(SERIES as usize);
    for t in 0..3600i64 {
        values.clear();
        for s in 0..SERIES as usize {
            if s >= (SERIES - GAUGES) as usize {
                depth[s] = (depth[s] + rng.below(3) as i64 - 1).max(0);
                values.push((s as u32, Value::Gauge(depth[s] as f64)));
            } else {
                if rate[s] != 0 || s % 10 >= 3 {
                    rate[s] = (rate[s] + rng.below(21) as i64 - 10).max(0);
                }
                counter[s] = counter[s].wrapping_add(rate[s] as u64);
                values.push((s as u32, Value::Counter(counter[s])));
            }
        }
        w.push(T0 + 1000 * t, &values).unwrap();
    }
    w.close().unwrap();
    let elapsed = started.elapsed();
    let bytes = std::fs::metadata(&path).unwrap().len();
    let samples = 3600 * u64::from(SERIES);
    println!(
        "1 h x {SERIES} series at 1 s: {bytes} B/hour ({:.2} MiB), {:.3} B/sample; written in {:.1?} (debug build)",
        bytes as f64 / (1 << 20) as f64,
        bytes as f64 / samples as f64,
        elapsed
    );
    assert!(bytes <= 2_000_000, "{bytes} B/hour is over the 2 MB budget");
    let r = RecordReader::open(&path).unwrap();
    assert_eq!(r.chunks().len(), 60);
    let t = Instant::now();
    let last: Vec<_> = r.seek(T0 + 3_599_000).collect();
    println!(
        "open + seek to the last tick: {:.1?} (debug build)",
        t.elapsed()
    );
    assert_eq!(last.len(), 1);
    // The last chunk is a delta chunk: seek decoded back from the key chunk before it.
    let want = Tick {
        wall_ms: T0 + 3_599_000,
        values: values.clone(),
        blob: Vec::new(),
    };
    assert!(last[0].as_ref().unwrap().same_bits(&want));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random bit flips anywhere: never a panic, always an error or a notice, and what
    /// is read is a prefix of what was written (CRC32 catches every 1–3 bit flip).
    #[test]
    fn bit_flips_never_panic_and_are_noticed(flips in prop::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..4)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.strata");
        let want = write_small(&path);
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        let mut seen = std::collections::HashSet::new();
        for (at, bit) in &flips {
            let i = at.index(n);
            // Two flips of the same bit would cancel out.
            if seen.insert((i, *bit)) {
                bytes[i] ^= 1 << bit;
            }
        }
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(r) = RecordReader::open(&path) {
            let rec = r.read_all();
            prop_assert!(!rec.notices.is_empty());
            assert_prefix(&rec.ticks, &want);
        }
    }

    /// Fuzz target: arbitrary bytes as a recording, as one with a valid header, and
    /// as a journal beside a valid but unclosed header, and straight into the decoders.
    #[test]
    fn reader_never_panics_on_arbitrary_bytes(junk in prop::collection::vec(any::<u8>(), 0..2048)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.strata");
        std::fs::write(&path, &junk).unwrap();
        if let Ok(r) = RecordReader::open(&path) { let _ = r.read_all(); }
        let mut framed = format::encode_file_header(T0).to_vec();
        framed.extend_from_slice(&junk);
        std::fs::write(&path, &framed).unwrap();
        let r = RecordReader::open(&path).unwrap();
        prop_assert!(!r.read_all().notices.is_empty());
        std::fs::write(&path, format::encode_file_header(T0)).unwrap();
        let mut journal = format::encode_journal_header(FILE_HEADER_LEN as u64).to_vec();
        journal.extend_from_slice(&junk);
        std::fs::write(journal_path(&path), &journal).unwrap();
        let _ = RecordReader::open(&path).unwrap().read_all();
        let ctx = format::ChunkContext::after(&small_ticks());
        let _ = format::decode_chunk(&junk, None);
        let _ = format::decode_chunk(&junk, Some(&ctx));
        let _ = format::decode_chunk_frame(&junk, 0, Some(&ctx));
        let _ = format::decode_catalogue(&junk, 0);
        let _ = format::decode_tick(&junk, 0);
        let _ = format::decode_frame(&junk, 0);
    }

    /// Any chunk of counters and gauges (gaps, wraps, NaN payloads) decodes to itself.
    #[test]
    fn chunk_codec_round_trips(
        walls in prop::collection::vec(any::<i64>(), 1..=60),
        cols in prop::collection::vec((any::<bool>(), prop::collection::vec(prop::option::of(any::<u64>()), 60)), 0..6),
    ) {
        let ticks: Vec<Tick> = walls.iter().enumerate().map(|(i, &wall_ms)| Tick {
            wall_ms,
            values: cols.iter().enumerate().filter_map(|(id, (gauge, vals))| {
                vals[i].map(|v| (id as u32 * 3, if *gauge { Value::Gauge(f64::from_bits(v)) } else { Value::Counter(v) }))
            }).collect(),
            blob: if i % 3 == 0 { vec![i as u8; i % 7] } else { Vec::new() },
        }).collect();
        let (back, after) = format::decode_chunk_frame(&format::compress(&format::encode_chunk(&ticks, None)), 0, None).unwrap();
        prop_assert_eq!(back.len(), ticks.len());
        for (a, b) in ticks.iter().zip(&back) {
            prop_assert!(a.same_bits(b), "{:?} != {:?}", a, b);
        }
        // The context the reader derives from the columns is the writer's,
        // and a delta chunk after the chunk decodes with it.
        let ctx = format::ChunkContext::after(&ticks);
        prop_assert_eq!(&after, &ctx);
        let delta = format::compress(&format::encode_chunk(&ticks, Some(&ctx)));
        let (back, after) = format::decode_chunk_frame(&delta, 0, Some(&ctx)).unwrap();
        for (a, b) in ticks.iter().zip(&back) {
            prop_assert!(a.same_bits(b), "{:?} != {:?}", a, b);
        }
        prop_assert_eq!(after, ctx);
    }
}

/// Chunks committed early (here before each new series' catalogue frame,
/// as on size at many devices) do not bring key chunks, and with them every
/// stream's shape restated, sooner: one every ten minutes of the recording,
/// as with whole-minute chunks, and a seek from the end still reads.
#[test]
fn key_chunks_come_every_ten_minutes_however_short_the_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.strata");
    let mut w = RecordWriter::create(&path, T0, &[]).unwrap();
    for t in 0..660u32 {
        w.add_series(def(t, &format!("s{t}"), SeriesKind::Gauge))
            .unwrap();
        let at = T0 + 1000 * i64::from(t);
        assert_eq!(w.opens_key_chunk(at, 1), t == 0 || t == 600, "tick {t}");
        w.push(at, &[(t, Value::Gauge(f64::from(t)))]).unwrap();
    }
    w.close().unwrap();
    let r = RecordReader::open(&path).unwrap();
    assert_eq!(r.chunks().len(), 660);
    let keys: Vec<i64> = r
        .chunks()
        .iter()
        .filter(|c| c.key)
        .map(|c| c.t0 - T0)
        .collect();
    assert_eq!(keys, [0, 600_000]);
    let last: Vec<_> = r.seek(T0 + 659_000).collect();
    assert_eq!(last.len(), 1);
    let want = Tick {
        wall_ms: T0 + 659_000,
        values: vec![(659, Value::Gauge(659.0))],
        blob: Vec::new(),
    };
    assert!(last[0].as_ref().unwrap().same_bits(&want));
}

/// The same with whole-minute chunks and no new series: what
/// `opens_key_chunk` tells a tick is what its chunk's frame says (it once
/// told the chunk after each key chunk it was one too, and the recorder
/// restated everything for it); and a wall clock stepped back an hour
/// brings a key chunk with the next chunk, not an hour and ten minutes on.
#[test]
fn a_chunk_is_key_when_its_first_tick_was_told_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.strata");
    let mut w = RecordWriter::create(&path, T0, &[def(0, "g", SeriesKind::Gauge)]).unwrap();
    let mut told = Vec::new();
    let step_back = 3_600_000;
    for t in 0..1500i64 {
        // after 900 s, the clock is set back an hour
        let at = T0 + 1000 * t - if t >= 900 { step_back } else { 0 };
        if w.opens_key_chunk(at, 1) {
            told.push(at);
        }
        w.push(at, &[(0, Value::Gauge(t as f64))]).unwrap();
    }
    w.close().unwrap();
    let r = RecordReader::open(&path).unwrap();
    let keys: Vec<i64> = r.chunks().iter().filter(|c| c.key).map(|c| c.t0).collect();
    assert_eq!(keys, told);
    let secs: Vec<i64> = keys.iter().map(|k| (k - T0) / 1000).collect();
    // 0, 600, then the first chunk to open after the step: the chunk of
    // 840 s takes the stepped-back ticks up to its 600 ticks (1439 s)
    assert_eq!(secs, [0, 600, 1440 - 3600]);
}

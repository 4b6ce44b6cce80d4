//! The mincore(2) fallback as an incremental scan under a time budget.
//!
//! Without cachestat(2) (kernels before 6.5: all of OL7 and OL8, UEK7)
//! residency is counted by asking mincore about every page of a PROT_NONE
//! mapping, cached or not: 6 to 45 ns a page on the development VM
//! (docs/performance.md), so 10 TB of datafiles is 20 s to two minutes of
//! CPU. Done whole at every tick, that stalls the sampler for as long. Here a tick
//! spends at most a budget of its thread's CPU time on mincore, a window
//! at a time, and the next tick resumes where it stopped. A file's figure
//! is the count of its last complete pass, stamped with the wall clock of
//! the tick that completed it, so that the screen and the reports can say
//! how old it is.
//!
//! The budget is CPU time, not wall time: it bounds the work strata does,
//! which is what a DBA asks of a monitor on a database host; a thread that
//! waits for a core does no work, and the cache sampler runs on a thread of
//! its own, so a slow tick of it holds up no other layer.
//!
//! A pass counts each window's pages when it gets there, so a figure spans
//! the pass's duration, as a fincore run's spans its run. Which file next:
//! the one a pass is under way on, else one without a figure yet (a new
//! log is not made to wait for a lap of the datafiles), else the one whose
//! figure is oldest. Each file completes at most one pass a tick, so a few
//! small files are all measured afresh at every tick, as before the scan.
//!
//! A file that shrinks under a pass ends it at its new size and its count
//! is capped at that size's pages; one that grows is scanned to the size
//! it has when the pass gets there; one replaced under its path (another
//! device or inode) starts over with no figure: the old file's is not its.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Work a tick may spend on mincore by default. With the /proc reads, the
/// stats of the watched files and the model, a tick stays within 5 ms.
pub const SCAN_BUDGET: Duration = Duration::from_millis(4);

/// The cost of a byte of mincore assumed before a step has been timed:
/// 45 ns a 4 KiB page, the dearest measured on the development VM, so
/// that a first step errs on the short side.
const ASSUMED_NS_PER_BYTE: f64 = 45.0 / 4096.0;

/// A step is sized to take at most this fraction of the budget, so that
/// one step misjudged overruns the budget by little.
const STEP_SHARE: u32 = 8;

/// Kept back from the budget left for a step's mapping and unmapping,
/// which cost a few µs beyond its pages.
const STEP_MARGIN: Duration = Duration::from_micros(20);

/// Steps shorter than this (a file's last bytes) are not timed into the
/// estimate: the mapping's own cost would make pages look dearer.
const MIN_TIMED_STEP: u64 = 1 << 20;

/// One watched file as the source found it at this tick.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The file's real path: what its progress is kept by.
    pub key: &'a Path,
    pub dev: u64,
    pub ino: u64,
    /// Its size at this tick's stat.
    pub size: u64,
}

/// What the scan knows of one target after a tick.
#[derive(Debug)]
pub enum Outcome {
    /// The last complete pass: resident pages (at most the pages of the
    /// size at this tick) and the wall clock of the tick it completed in.
    Figure { cached: u64, scanned_ms: i64 },
    /// No pass completed yet; the first has covered `scanned_bytes`.
    FirstPass { scanned_bytes: u64 },
    /// mincore failed on it at this tick: its pass starts over.
    Failed(io::Error),
}

/// What one tick of the scan did, for the benchmark and the tests.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TickCost {
    /// mincore calls, and the bytes they covered.
    pub steps: u64,
    pub bytes: u64,
    /// The clock's time from the start of the tick to its last step.
    pub work: Duration,
    /// Passes completed at this tick.
    pub passes: usize,
}

#[derive(Debug, Clone, Copy)]
struct Progress {
    dev: u64,
    ino: u64,
    /// Where the pass under way has got to, and what it has counted.
    off: u64,
    resident: u64,
    /// The last complete pass: (resident pages, wall ms of its tick).
    figure: Option<(u64, i64)>,
}

impl Progress {
    fn new(t: &Target<'_>) -> Self {
        Progress {
            dev: t.dev,
            ino: t.ino,
            off: 0,
            resident: 0,
            figure: None,
        }
    }
}

/// The scan's position across ticks and its last figures.
#[derive(Debug)]
pub struct Scanner {
    budget: Duration,
    page: u64,
    files: HashMap<PathBuf, Progress>,
    /// The file a pass is under way on.
    current: Option<PathBuf>,
    /// The clock's cost of a byte of mincore, from the steps timed so far.
    ns_per_byte: Option<f64>,
    last: TickCost,
}

impl Scanner {
    pub fn new(page: u64, budget: Duration) -> Self {
        Scanner {
            budget,
            page: page.max(1),
            files: HashMap::new(),
            current: None,
            ns_per_byte: None,
            last: TickCost::default(),
        }
    }

    pub fn set_budget(&mut self, budget: Duration) {
        self.budget = budget;
    }

    /// What the last tick did.
    pub fn last_tick(&self) -> TickCost {
        self.last
    }

    /// Spends up to the budget, as `clock` measures it, on the passes over
    /// `targets`, and says what is known of each, in their order.
    /// `probe(i, off, len)` counts the resident pages of `targets[i]`
    /// between `off` and `off + len`.
    pub fn tick<P, C>(
        &mut self,
        targets: &[Target<'_>],
        wall_ms: i64,
        mut probe: P,
        clock: C,
    ) -> Vec<Outcome>
    where
        P: FnMut(usize, u64, u64) -> io::Result<u64>,
        C: Fn() -> Duration,
    {
        self.forget_and_restart(targets);
        let start = clock();
        let mut cost = TickCost::default();
        let mut done = vec![false; targets.len()];
        let mut failed: Vec<Option<io::Error>> = targets.iter().map(|_| None).collect();
        let mut queue = self.queue(targets);
        while let Some(i) = queue.next(&done) {
            let t = &targets[i];
            // forget_and_restart made one for every target
            let mut p = self
                .files
                .get(t.key)
                .copied()
                .unwrap_or_else(|| Progress::new(t));
            if p.off >= t.size {
                // The end, or a file that shrank below where the pass was.
                p.figure = Some((p.resident.min(t.size.div_ceil(self.page)), wall_ms));
                (p.off, p.resident) = (0, 0);
                done[i] = true;
                cost.passes += 1;
                self.current = None;
                queue.current = None;
            } else {
                let left = self.budget.saturating_sub(clock().saturating_sub(start));
                let len = self.step_len(left, t.size - p.off, cost.steps == 0);
                if len == 0 {
                    break;
                }
                if queue.current != Some(i) {
                    self.current = Some(t.key.to_path_buf());
                    queue.current = Some(i);
                }
                let before = clock();
                let counted = probe(i, p.off, len);
                let took = clock().saturating_sub(before);
                cost.steps += 1;
                cost.bytes += len;
                match counted {
                    Ok(n) => {
                        // never more pages than the window holds
                        p.resident += n.min(len.div_ceil(self.page));
                        p.off += len;
                        if len >= MIN_TIMED_STEP {
                            self.learn(took, len);
                        }
                    }
                    Err(e) => {
                        p = Progress::new(t);
                        failed[i] = Some(e);
                        done[i] = true;
                        self.current = None;
                        queue.current = None;
                    }
                }
            }
            if let Some(slot) = self.files.get_mut(t.key) {
                *slot = p;
            }
        }
        cost.work = clock().saturating_sub(start);
        self.last = cost;
        self.outcomes(targets, failed)
    }

    /// Lets go of files no longer watched, and starts a replaced file over.
    fn forget_and_restart(&mut self, targets: &[Target<'_>]) {
        let keys: HashSet<&Path> = targets.iter().map(|t| t.key).collect();
        self.files.retain(|k, _| keys.contains(k.as_path()));
        if self
            .current
            .as_ref()
            .is_some_and(|c| !keys.contains(c.as_path()))
        {
            self.current = None;
        }
        for t in targets {
            match self.files.get_mut(t.key) {
                Some(p) if (p.dev, p.ino) == (t.dev, t.ino) => {}
                Some(p) => {
                    *p = Progress::new(t);
                    if self.current.as_deref() == Some(t.key) {
                        self.current = None;
                    }
                }
                None => {
                    self.files.insert(t.key.to_path_buf(), Progress::new(t));
                }
            }
        }
    }

    /// The order of this tick's files: the pass under way, then the files
    /// without a figure (in order), then the oldest figure first. Sorted
    /// once a tick: a figure changes only when its file's pass ends, and
    /// that file is done for the tick.
    fn queue(&self, targets: &[Target<'_>]) -> Queue {
        let mut order: Vec<(bool, i64, usize)> = targets
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let fig = self.files.get(t.key).and_then(|p| p.figure);
                (fig.is_some(), fig.map_or(i64::MIN, |(_, at)| at), i)
            })
            .collect();
        order.sort_unstable();
        let current = self
            .current
            .as_ref()
            .and_then(|c| targets.iter().position(|t| t.key == c.as_path()));
        Queue {
            order: order.into_iter().map(|(_, _, i)| i).collect(),
            next: 0,
            current,
        }
    }

    /// Bytes of the next step: what fits in the budget left and in a share
    /// of the whole, in pages, at least a page for a tick's first step so
    /// that every tick gets on; 0 when the budget is spent.
    fn step_len(&self, left: Duration, remaining: u64, first: bool) -> u64 {
        let aim = left
            .saturating_sub(STEP_MARGIN)
            .min(self.budget / STEP_SHARE);
        let r = self
            .ns_per_byte
            .filter(|r| *r > 0.0)
            .unwrap_or(ASSUMED_NS_PER_BYTE);
        let bytes = (aim.as_nanos() as f64 / r) as u64;
        // a mapping of more than 1 GiB needs a 256 KiB vector
        let bytes = bytes.min(super::residency::MINCORE_WINDOW) / self.page * self.page;
        let bytes = if first { bytes.max(self.page) } else { bytes };
        bytes.min(remaining)
    }

    /// Takes a step's cost into the estimate: at once when dearer (the
    /// machine got busier), slowly when cheaper, so that the budget errs on
    /// the short side.
    fn learn(&mut self, took: Duration, len: u64) {
        let r = took.as_nanos() as f64 / len as f64;
        self.ns_per_byte = Some(match self.ns_per_byte {
            Some(old) if r < old => old * 0.8 + r * 0.2,
            _ => r,
        });
    }

    fn outcomes(&self, targets: &[Target<'_>], failed: Vec<Option<io::Error>>) -> Vec<Outcome> {
        targets
            .iter()
            .zip(failed)
            .map(|(t, failed)| {
                if let Some(e) = failed {
                    return Outcome::Failed(e);
                }
                let p = self.files.get(t.key);
                match p.and_then(|p| p.figure) {
                    Some((cached, scanned_ms)) => Outcome::Figure {
                        // a file that shrank since its pass holds no more
                        // than its size
                        cached: cached.min(t.size.div_ceil(self.page)),
                        scanned_ms,
                    },
                    None => Outcome::FirstPass {
                        scanned_bytes: p.map_or(0, |p| p.off.min(t.size)),
                    },
                }
            })
            .collect()
    }
}

/// A tick's files in the order they are scanned.
struct Queue {
    order: Vec<usize>,
    next: usize,
    /// The file whose pass is under way, scanned first.
    current: Option<usize>,
}

impl Queue {
    /// The next file not done at this tick; none once every file has
    /// completed a pass (or failed) at this tick.
    fn next(&mut self, done: &[bool]) -> Option<usize> {
        if let Some(i) = self.current.filter(|i| !done[*i]) {
            return Some(i);
        }
        while let Some(&i) = self.order.get(self.next) {
            if !done[i] {
                return Some(i);
            }
            self.next += 1;
        }
        None
    }
}

/// The calling thread's CPU time, the scan's clock; wall time since the
/// first call where the kernel has no thread clock.
pub fn work_clock() -> impl Fn() -> Duration {
    let wall = std::time::Instant::now();
    move || match crate::core::sys::thread_cpu_time() {
        Some(ts) => Duration::new(
            u64::try_from(ts.tv_sec).unwrap_or(0),
            u32::try_from(ts.tv_nsec).unwrap_or(0).min(999_999_999),
        ),
        None => wall.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cell::Cell;

    const PAGE: u64 = 4096;
    const GIB: u64 = 1 << 30;
    /// The fake mincore's cost: 45 ns a page, the dearest measured on the
    /// VM, and 3 µs a call for the mapping.
    const NS_PER_PAGE: u64 = 45;
    const NS_PER_CALL: u64 = 3000;

    /// A file of the fake file system: its identity, size, and which pages
    /// are resident (every `every`-th).
    #[derive(Debug, Clone)]
    struct Fake {
        path: PathBuf,
        ino: u64,
        size: u64,
        every: u64,
    }

    impl Fake {
        fn new(name: &str, size: u64, every: u64) -> Self {
            Fake {
                path: PathBuf::from(name),
                ino: 1,
                size,
                every: every.max(1),
            }
        }
        fn pages(&self) -> u64 {
            self.size.div_ceil(PAGE)
        }
        /// Resident pages in [off, off + len), none past the end.
        fn resident(&self, off: u64, len: u64) -> u64 {
            let (a, b) = (off / PAGE, (off + len).min(self.size).div_ceil(PAGE));
            (a..b.max(a)).filter(|p| p % self.every == 0).count() as u64
        }
        fn expected(&self) -> u64 {
            self.resident(0, self.size)
        }
    }

    /// A scanner and the fake clock its probes advance.
    struct Rig {
        scanner: Scanner,
        clock: Cell<Duration>,
        calls: Cell<u64>,
        fail: Option<PathBuf>,
        /// Every call: (file, offset, length).
        log: std::cell::RefCell<Vec<(usize, u64, u64)>>,
    }

    impl Rig {
        fn new(budget: Duration) -> Self {
            Rig {
                scanner: Scanner::new(PAGE, budget),
                clock: Cell::new(Duration::ZERO),
                calls: Cell::new(0),
                fail: None,
                log: std::cell::RefCell::new(Vec::new()),
            }
        }

        fn tick(&mut self, files: &[Fake], wall_ms: i64) -> Vec<Outcome> {
            let targets: Vec<Target<'_>> = files
                .iter()
                .map(|f| Target {
                    key: &f.path,
                    dev: 7,
                    ino: f.ino,
                    size: f.size,
                })
                .collect();
            let (clock, calls, fail, log) = (&self.clock, &self.calls, &self.fail, &self.log);
            let probe = |i: usize, off: u64, len: u64| {
                let f = &files[i];
                assert_eq!(off % PAGE, 0, "a mapping starts on a page");
                assert!(len > 0 && len <= super::super::residency::MINCORE_WINDOW);
                let cost = NS_PER_CALL + len.div_ceil(PAGE) * NS_PER_PAGE;
                clock.set(clock.get() + Duration::from_nanos(cost));
                calls.set(calls.get() + 1);
                log.borrow_mut().push((i, off, len));
                if fail.as_ref() == Some(&f.path) {
                    return Err(io::Error::from_raw_os_error(libc::ENOMEM));
                }
                Ok(f.resident(off, len))
            };
            self.scanner
                .tick(&targets, wall_ms, probe, || self.clock.get())
        }
    }

    fn figure(o: &Outcome) -> Option<(u64, i64)> {
        match o {
            Outcome::Figure { cached, scanned_ms } => Some((*cached, *scanned_ms)),
            _ => None,
        }
    }

    /// 4 GiB (a million pages, 47 ms of the fake mincore) at 4 ms a tick:
    /// every tick within its budget, the first passes spread over a dozen
    /// ticks, each tick resuming where the last stopped (no page asked
    /// twice), and each figure exact and stamped with the tick it completed
    /// in.
    #[test]
    fn ticks_stay_within_the_budget_and_resume_where_they_stopped() {
        let files: Vec<Fake> = (0..4)
            .map(|i| Fake::new(&format!("/d/{i}.dbf"), GIB, 3 + i))
            .collect();
        let mut rig = Rig::new(SCAN_BUDGET);
        let mut done_at = vec![None; files.len()];
        for tick in 1..=40i64 {
            let out = rig.tick(&files, tick * 1000);
            let cost = rig.scanner.last_tick();
            assert!(cost.work <= SCAN_BUDGET, "tick {tick}: {cost:?}");
            for (i, o) in out.iter().enumerate() {
                if let Some((cached, at)) = figure(o) {
                    assert_eq!(cached, files[i].expected(), "{i}");
                    done_at[i].get_or_insert(at);
                }
            }
            if done_at.iter().all(Option::is_some) {
                break;
            }
        }
        // each first pass asked every byte once, in order, whatever the
        // ticks' boundaries; 11 to 13 ticks (47 ms over 4 ms)
        for i in 0..files.len() {
            let mut at = 0;
            for &(_, off, len) in rig.log.borrow().iter().filter(|c| c.0 == i) {
                if at == GIB {
                    break;
                }
                assert_eq!(off, at, "file {i}");
                at += len;
            }
            assert_eq!(at, GIB, "file {i}");
        }
        let last = done_at.iter().flatten().max().copied();
        assert!(matches!(last, Some(11_000..=13_000)), "{done_at:?}");
        // one file at a time, in order: the first done before the second
        assert!(done_at.windows(2).all(|w| w[0] < w[1]), "{done_at:?}");
    }

    #[test]
    fn a_first_pass_says_how_far_it_got() {
        let files = [Fake::new("/big", 2 * GIB, 1)];
        let mut rig = Rig::new(SCAN_BUDGET);
        let mut last = 0;
        for tick in 1..=5 {
            match &rig.tick(&files, tick)[0] {
                Outcome::FirstPass { scanned_bytes } => {
                    assert!(*scanned_bytes > last && *scanned_bytes < 2 * GIB);
                    last = *scanned_bytes;
                }
                o => panic!("{o:?}"),
            }
        }
    }

    /// A few small files are all measured afresh at every tick, once each.
    #[test]
    fn small_files_are_measured_whole_at_every_tick() {
        let files: Vec<Fake> = (0..3)
            .map(|i| Fake::new(&format!("/log{i}"), 40 * PAGE + 100, 2))
            .collect();
        let mut rig = Rig::new(SCAN_BUDGET);
        for tick in 1..=3 {
            rig.calls.set(0);
            let out = rig.tick(&files, tick);
            assert_eq!(rig.calls.get(), 3, "one call a file");
            assert_eq!(rig.scanner.last_tick().passes, 3);
            for (f, o) in files.iter().zip(&out) {
                assert_eq!(
                    figure(o),
                    Some((f.expected(), tick)),
                    "{}",
                    f.path.display()
                );
            }
        }
        // an empty file needs no call
        let empty = [Fake::new("/empty", 0, 1)];
        rig.calls.set(0);
        assert_eq!(figure(&rig.tick(&empty, 9)[0]), Some((0, 9)));
        assert_eq!(rig.calls.get(), 0);
    }

    /// A new file is measured before the old figures are refreshed.
    #[test]
    fn a_new_file_goes_before_refreshing_old_ones() {
        let mut files: Vec<Fake> = (0..3)
            .map(|i| Fake::new(&format!("/d/{i}"), GIB / 4, 1))
            .collect();
        let mut rig = Rig::new(SCAN_BUDGET);
        let mut tick = 0;
        while !rig.tick(&files, tick).iter().all(|o| figure(o).is_some()) {
            tick += 1;
            assert!(tick < 100);
        }
        files.push(Fake::new("/d/new.log", 10 * PAGE, 1));
        // the pass under way finishes first, then the new file, before the
        // other old figures are refreshed
        let mut first = [None; 4];
        for t in tick + 1..tick + 20 {
            let out = rig.tick(&files, t);
            for (i, o) in out.iter().enumerate() {
                if figure(o).is_some_and(|(_, at)| at > tick) {
                    first[i].get_or_insert(t);
                }
            }
        }
        let new_at = first[3].unwrap();
        assert!(new_at <= tick + 2, "{first:?}");
        // of the old files, at most the one under way was refreshed before
        let before = first[..3].iter().filter(|f| f.is_some_and(|f| f < new_at));
        assert!(before.count() <= 1, "{first:?}");
    }

    /// A file that shrinks under its pass gives at most its new size's
    /// pages; one replaced starts over; one that vanishes is forgotten.
    #[test]
    fn shrunk_replaced_and_vanished_files_give_no_impossible_figure() {
        let mut files = vec![Fake::new("/a", 4 * GIB, 1)];
        let mut rig = Rig::new(SCAN_BUDGET);
        rig.tick(&files, 1);
        rig.tick(&files, 2);
        let Outcome::FirstPass { scanned_bytes } = rig.tick(&files, 3)[0] else {
            panic!("done too soon")
        };
        // every page resident: the pass has counted scanned_bytes of them
        files[0].size = scanned_bytes / 2;
        let (cached, at) = figure(&rig.tick(&files, 4)[0]).unwrap();
        assert_eq!((cached, at), (files[0].pages(), 4));
        // smaller still: the old figure is capped at the new size
        files[0].size = 10 * PAGE;
        assert_eq!(figure(&rig.tick(&files, 5)[0]), Some((10, 5)));
        files[0].size = 3 * PAGE;
        let out = rig.tick(&files, 6);
        assert!(figure(&out[0]).is_some_and(|(c, _)| c <= 3));
        // replaced: another inode under the same path
        files[0] = Fake::new("/a", GIB, 1);
        files[0].ino = 2;
        let out = rig.tick(&files, 7);
        assert!(matches!(out[0], Outcome::FirstPass { .. }), "{out:?}");
        // vanished, then back: no figure of before
        rig.tick(&[], 8);
        let back = [Fake::new("/a", GIB, 1)];
        assert!(matches!(rig.tick(&back, 9)[0], Outcome::FirstPass { .. }));
    }

    #[test]
    fn a_failed_call_restarts_that_file_and_the_others_go_on() {
        let files = [
            Fake::new("/bad", 8 * PAGE, 1),
            Fake::new("/good", 8 * PAGE, 1),
        ];
        let mut rig = Rig::new(SCAN_BUDGET);
        rig.fail = Some(PathBuf::from("/bad"));
        let out = rig.tick(&files, 1);
        assert!(matches!(&out[0], Outcome::Failed(e) if e.raw_os_error() == Some(libc::ENOMEM)));
        assert_eq!(figure(&out[1]), Some((8, 1)));
        rig.fail = None;
        let out = rig.tick(&files, 2);
        assert_eq!(figure(&out[0]), Some((8, 2)));
    }

    /// Thousands of small files (a trace directory): each tick within its
    /// budget, round robin from the oldest figure, so none is older than
    /// the ticks a lap takes.
    #[test]
    fn many_small_files_take_turns_oldest_first() {
        let files: Vec<Fake> = (0..3000)
            .map(|i| Fake::new(&format!("/trace/{i}.trc"), PAGE, 1))
            .collect();
        let mut rig = Rig::new(SCAN_BUDGET);
        // 3 µs a call: about 1,300 files a tick, a lap in 3 ticks
        for tick in 1..=12i64 {
            let out = rig.tick(&files, tick);
            assert!(rig.scanner.last_tick().work <= SCAN_BUDGET);
            if tick >= 3 {
                for o in &out {
                    let (cached, at) = figure(o).expect("a figure by the third tick");
                    assert_eq!(cached, 1);
                    assert!(at >= tick - 2, "tick {tick}: a figure of {at}");
                }
            }
        }
    }

    /// Budgets below one page's cost still move a page a tick.
    #[test]
    fn a_tiny_budget_still_gets_on() {
        let files = [Fake::new("/f", 3 * PAGE, 1)];
        let mut rig = Rig::new(Duration::from_nanos(1));
        let outs: Vec<Outcome> = (1..=3).map(|t| rig.tick(&files, t).remove(0)).collect();
        assert!(matches!(
            outs[0],
            Outcome::FirstPass {
                scanned_bytes: PAGE
            }
        ));
        assert!(
            matches!(outs[1], Outcome::FirstPass { scanned_bytes } if scanned_bytes == 2 * PAGE)
        );
        // the last page's step ends the pass within its tick
        assert_eq!(figure(&outs[2]), Some((3, 3)));
    }

    /// What may happen to a watched file between two ticks.
    #[derive(Debug, Clone)]
    enum Change {
        Resize(usize, u64),
        Replace(usize),
        Vanish(usize),
        Nothing,
    }

    fn change() -> impl Strategy<Value = Change> {
        prop_oneof![
            (0..4usize, 0..(3 * GIB / PAGE)).prop_map(|(i, p)| Change::Resize(i, p * PAGE + p % 3)),
            (0..4usize).prop_map(Change::Replace),
            (0..4usize).prop_map(Change::Vanish),
            Just(Change::Nothing),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever happens to the files: no figure above the pages of the
        /// file's size at that tick, no first pass past its end, no tick
        /// over its budget, and once the files stop changing every one has
        /// a figure of its own within the ticks its size needs.
        #[test]
        fn figures_are_possible_and_every_file_gets_refreshed(
            sizes in prop::collection::vec(0..(2 * GIB / PAGE), 4),
            every in 1..5u64,
            changes in prop::collection::vec(change(), 0..30),
            budget_us in 200..5000u64,
        ) {
            let budget = Duration::from_micros(budget_us);
            let mut files: Vec<Fake> = sizes
                .iter()
                .enumerate()
                .map(|(i, p)| Fake::new(&format!("/f{i}"), p * PAGE, every))
                .collect();
            let mut live = [true; 4];
            let mut rig = Rig::new(budget);
            let mut wall = 0i64;
            let check = |files: &[Fake], out: &[Outcome], rig: &Rig| -> Result<(), TestCaseError> {
                for (f, o) in files.iter().zip(out) {
                    match o {
                        Outcome::Figure { cached, .. } => prop_assert!(*cached <= f.pages(), "{f:?} {o:?}"),
                        Outcome::FirstPass { scanned_bytes } => prop_assert!(*scanned_bytes <= f.size),
                        Outcome::Failed(e) => prop_assert!(false, "{e}"),
                    }
                }
                let cost = rig.scanner.last_tick();
                // at most the margin's worth of mapping costs over, and a
                // page for a first step past a tiny budget
                let slack = Duration::from_nanos(NS_PER_CALL + NS_PER_PAGE);
                prop_assert!(cost.work <= budget + slack, "{cost:?}");
                Ok(())
            };
            for c in changes {
                match c {
                    Change::Resize(i, size) => files[i].size = size,
                    Change::Replace(i) => files[i].ino += 1,
                    Change::Vanish(i) => live[i] = !live[i],
                    Change::Nothing => {}
                }
                let now: Vec<Fake> = files.iter().zip(live).filter(|(_, l)| *l).map(|(f, _)| f.clone()).collect();
                wall += 1000;
                let out = rig.tick(&now, wall);
                check(&now, &out, &rig)?;
            }
            // settled: every file refreshed within its pages' cost over the
            // budget's worth of pages a tick, plus a tick a file
            let settled = wall;
            let pages: u64 = files.iter().map(Fake::pages).sum();
            let per_tick = (budget.as_nanos() as u64 / (NS_PER_PAGE + 1)).max(1) / 2;
            let bound = pages / per_tick + 2 * files.len() as u64 + 4;
            let mut fresh = false;
            for _ in 0..bound {
                wall += 1000;
                let out = rig.tick(&files, wall);
                check(&files, &out, &rig)?;
                fresh = out.iter().all(|o| figure(o).is_some_and(|(_, at)| at > settled));
                if fresh {
                    for (f, o) in files.iter().zip(&out) {
                        prop_assert_eq!(figure(o).map(|(c, _)| c), Some(f.expected()));
                    }
                    break;
                }
            }
            prop_assert!(fresh, "not all refreshed in {} ticks", bound);
        }
    }
}

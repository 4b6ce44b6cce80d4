//! The recording's periodic `fdatasync`, on a thread of its own. The
//! recorder runs on the thread that answers keys, draws and hands the
//! samplers their boundaries; on a disk a write benchmark saturates, one
//! fdatasync of a small file took up to 1.1 s here (median 13.5 ms, fio
//! writing 1 MiB blocks), and the screen stood still for as long. Writes
//! stay where they are (one `write(2)` a tick, to the page cache); only
//! the wait for the disk moves.

use super::RecordError;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// What the thread shares with the writer.
#[derive(Default)]
struct Shared {
    /// A sync was asked for and has not ended: the next is not asked.
    busy: AtomicBool,
    /// Syncs done, for the tests.
    done: AtomicU64,
    /// The first failure since the writer last looked.
    error: Mutex<Option<RecordError>>,
}

/// One file the thread syncs: a second descriptor of the writer's.
struct Synced {
    file: File,
    path: PathBuf,
}

impl Synced {
    fn of(file: &File, path: &Path) -> Result<Synced, RecordError> {
        Ok(Synced {
            file: file.try_clone().map_err(RecordError::io("dup", path))?,
            path: path.to_path_buf(),
        })
    }

    fn sync(&self) -> Result<(), RecordError> {
        sync_data(&self.file, &self.path)
    }
}

/// `fdatasync` of `file`, its error naming `path`: the writer's own syncs
/// (at the start and the close) and the thread's are the same call.
pub fn sync_data(file: &File, path: &Path) -> Result<(), RecordError> {
    file.sync_data().map_err(RecordError::io("sync", path))
}

/// Syncs a recording's segment and journal when asked, one sync at a time.
pub struct Syncer {
    /// The segment's length to sync up to; `None` once stopped.
    tx: Option<SyncSender<u64>>,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    /// The segment's, to name a sync thread that ended abnormally.
    path: PathBuf,
}

impl Syncer {
    /// Starts the thread on second descriptors of `segment` and `journal`.
    pub fn start(
        (segment, segment_path): (&File, &Path),
        (journal, journal_path): (&File, &Path),
    ) -> Result<Syncer, RecordError> {
        let segment = Synced::of(segment, segment_path)?;
        let journal = Synced::of(journal, journal_path)?;
        let shared = Arc::new(Shared::default());
        // `busy` lets no request in while a sync is under way (the writer
        // asks again at its next tick), so one slot is all that is needed.
        let (tx, rx) = mpsc::sync_channel::<u64>(1);
        let on_thread = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("strata-sync".into())
            .spawn(move || {
                // A segment that has not grown since the last sync (it grows
                // a chunk a minute) is not synced every few seconds.
                let mut synced_len = None;
                for seg_len in rx {
                    let mut result = Ok(());
                    if synced_len != Some(seg_len) {
                        result = segment.sync();
                        if result.is_ok() {
                            synced_len = Some(seg_len);
                        }
                    }
                    let result = result.and_then(|()| journal.sync());
                    if let Err(e) = result {
                        let mut error = on_thread
                            .error
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner);
                        error.get_or_insert(e);
                    }
                    on_thread.done.fetch_add(1, Ordering::Relaxed);
                    on_thread.busy.store(false, Ordering::Release);
                }
            })
            .map_err(RecordError::io("start the sync thread for", segment_path))?;
        Ok(Syncer {
            tx: Some(tx),
            shared,
            thread: Some(thread),
            path: segment_path.to_path_buf(),
        })
    }

    /// Asks for the segment (up to `seg_len`) and the journal to be synced,
    /// unless a sync is under way; whether it was asked.
    pub fn request(&self, seg_len: u64) -> bool {
        let Some(tx) = &self.tx else {
            return false;
        };
        if self.shared.busy.swap(true, Ordering::AcqRel) {
            return false;
        }
        match tx.try_send(seg_len) {
            Ok(()) => true,
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.shared.busy.store(false, Ordering::Release);
                false
            }
        }
    }

    /// The failure of a sync since the last call, if any.
    pub fn take_error(&self) -> Option<RecordError> {
        self.shared
            .error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Ends the thread once the sync under way, if any, has ended; its
    /// failure, if it failed.
    pub fn stop(&mut self) -> Option<RecordError> {
        self.tx = None;
        let panicked = self.thread.take().is_some_and(|t| t.join().is_err());
        self.take_error().or_else(|| {
            // nothing in the thread panics; were it to, the syncs it was
            // to do were not done, and the writer must hear of it
            panicked.then(|| {
                RecordError::io("sync", &self.path)(std::io::Error::other(
                    "the sync thread panicked",
                ))
            })
        })
    }

    /// Syncs the thread has done.
    #[cfg(test)]
    pub fn done(&self) -> u64 {
        self.shared.done.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn wait_idle(s: &Syncer) {
        let start = Instant::now();
        while s.shared.busy.load(Ordering::Acquire) && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// A sync is asked for once while one is under way, done on the
    /// thread, and counted; stop waits for it.
    #[test]
    fn syncs_happen_on_the_thread_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let (fa, fb) = (File::create(&a).unwrap(), File::create(&b).unwrap());
        let mut s = Syncer::start((&fa, &a), (&fb, &b)).unwrap();
        for len in 0..5 {
            assert!(s.request(len));
            wait_idle(&s);
        }
        assert_eq!(s.done(), 5);
        assert!(s.stop().is_none());
        assert!(!s.request(9), "a stopped syncer asks nothing");
    }

    /// A file that cannot be synced (here /dev/null: EINVAL) gives its
    /// error to the writer once, named by the file's path.
    #[test]
    fn a_failed_sync_is_said_once_with_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let fa = File::create(&a).unwrap();
        let null = Path::new("/dev/null");
        let fnull = std::fs::OpenOptions::new().write(true).open(null).unwrap();
        let mut s = Syncer::start((&fa, &a), (&fnull, null)).unwrap();
        assert!(s.request(1));
        wait_idle(&s);
        let e = s
            .take_error()
            .expect("the journal's sync failed")
            .to_string();
        assert!(e.starts_with("sync /dev/null"), "{e}");
        assert!(s.take_error().is_none());
        assert!(s.stop().is_none());
    }
}

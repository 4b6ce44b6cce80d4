//! Reads /proc and /sys through a transport: under a root directory (`/`
//! by default, or a captured tree or a test fixture), or from the frames a
//! remote sampler sent (a database node over SSH). The parsers and models
//! above do not know which.

use super::error::SourceError;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

#[derive(Debug)]
pub struct RootFs {
    at: At,
    /// The procfs files [`RootFs::read`] read (and the sysfs attributes of
    /// [`RootFs::kept_attr`]), kept open with the length of their last
    /// read: read again by two pread(2) at offset 0, where opening afresh
    /// took an open, a statx, reads from 32 bytes doubling up and a close,
    /// the most frequent system calls of a sample.
    kept: Mutex<HashMap<PathBuf, (File, usize)>>,
}

/// At most this many files are kept open by one RootFs: a host layer's
/// source reads two to four, and one attribute per network interface.
const KEPT_MAX: usize = 32;

/// Each clone keeps its own files: each source has its own clone, and
/// every source reads /proc/uptime at the same boundary.
impl Clone for RootFs {
    fn clone(&self) -> Self {
        RootFs {
            at: self.at.clone(),
            kept: Mutex::default(),
        }
    }
}

#[derive(Debug, Clone)]
enum At {
    Dir(PathBuf),
    Frames(Arc<RemoteFiles>),
}

/// What a remote sampler's frames said, by absolute path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FileSet {
    /// Whole files, and attributes (one line).
    pub files: HashMap<String, String>,
    /// Directory listings: the entries strata reads, not every entry.
    pub dirs: HashMap<String, Vec<String>>,
    /// The last path component of a symlink's target.
    pub links: HashMap<String, String>,
    /// Paths that exist and nothing more is said of.
    pub present: HashSet<String>,
    /// What a node's fincore run printed (on its own channel), in the
    /// sample that followed the run only.
    pub fincore: Option<String>,
}

impl FileSet {
    fn has(&self, rel: &str) -> bool {
        self.files.contains_key(rel)
            || self.dirs.contains_key(rel)
            || self.links.contains_key(rel)
            || self.present.contains(rel)
    }
}

/// A remote host's files as of its last frames: the facts of the last
/// class frame (sysfs, read once per connection) and the last sample's
/// files. The host's task swaps them; its sources read them.
#[derive(Debug, Default)]
pub struct RemoteFiles {
    now: RwLock<(Arc<FileSet>, Arc<FileSet>)>,
    /// Bumped by every class frame: sources that keep sysfs facts read
    /// them again (locally they re-read on their own signs).
    facts_seen: std::sync::atomic::AtomicU64,
}

impl RemoteFiles {
    pub fn set_facts(&self, facts: Arc<FileSet>) {
        if let Ok(mut now) = self.now.write() {
            now.0 = facts;
        }
        self.facts_seen
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn set_sample(&self, sample: FileSet) {
        if let Ok(mut now) = self.now.write() {
            now.1 = Arc::new(sample);
        }
    }

    /// The sample's word on a path, else the facts'.
    fn find<T>(&self, f: impl Fn(&FileSet) -> Option<T>) -> Option<T> {
        let now = self.now.read().ok()?;
        f(&now.1).or_else(|| f(&now.0))
    }
}

/// A procfs file from offset 0 to its end, into a buffer a page larger than
/// its last length `len`: one read and the read that finds the end.
fn pread_text(file: &File, len: usize) -> std::io::Result<String> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; len + 4096];
    let mut at = 0;
    loop {
        if at == buf.len() {
            buf.resize(at * 2, 0);
        }
        match file.read_at(&mut buf[at..], at as u64) {
            Ok(0) => break,
            Ok(n) => at += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(at);
    String::from_utf8(buf).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

impl Default for RootFs {
    fn default() -> Self {
        RootFs::new("/")
    }
}

impl RootFs {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        RootFs {
            at: At::Dir(root.into()),
            kept: Mutex::default(),
        }
    }

    /// Files as a remote sampler's frames give them.
    pub fn remote(files: Arc<RemoteFiles>) -> Self {
        RootFs {
            at: At::Frames(files),
            kept: Mutex::default(),
        }
    }

    /// How many times the facts have been renewed: 0 for a directory, whose
    /// files are read where they are; a source that keeps sysfs facts reads
    /// them again when this moves.
    pub fn facts_generation(&self) -> u64 {
        match &self.at {
            At::Dir(_) => 0,
            At::Frames(f) => f.facts_seen.load(std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// `rel` opened to be watched, not read, when it is a procfs file of
    /// this machine (such as the mount table, which poll(2) reports
    /// changes of); `None` for a captured tree or a remote host's files.
    pub fn open_procfs(&self, rel: &str) -> Option<File> {
        let path = self.local_path(rel)?;
        let file = File::open(path).ok()?;
        super::sys::regenerated(std::os::fd::AsFd::as_fd(&file)).then_some(file)
    }

    /// Where `rel` (an absolute system path such as `/proc/diskstats`) is
    /// on this machine; `None` for a remote host's files.
    pub fn local_path(&self, rel: &str) -> Option<PathBuf> {
        match &self.at {
            At::Dir(root) => Some(root.join(rel.trim_start_matches('/'))),
            At::Frames(_) => None,
        }
    }

    pub fn read(&self, rel: &str) -> Result<String, SourceError> {
        self.read_kept(rel, true)
    }

    /// As [`RootFs::read`], for a file read once (a catalogue's, such as an
    /// interface's uevent): not kept open, as the kept files are for what
    /// every sample reads. At 30 interfaces their uevents took every slot.
    pub fn read_once(&self, rel: &str) -> Result<String, SourceError> {
        self.read_kept(rel, false)
    }

    fn read_kept(&self, rel: &str, keep: bool) -> Result<String, SourceError> {
        match &self.at {
            At::Dir(root) => {
                let path = root.join(rel.trim_start_matches('/'));
                let text = if keep {
                    self.read_file(&path)
                } else {
                    std::fs::read_to_string(&path)
                };
                text.map_err(|err| SourceError::Io { path, err })
            }
            At::Frames(f) => f
                .find(|s| s.files.get(rel).cloned())
                .ok_or_else(|| SourceError::Io {
                    path: PathBuf::from(rel),
                    err: std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        "not in the host's last frame from its sampler",
                    ),
                }),
        }
    }

    /// A whole file, through the file kept open when it is on procfs.
    fn read_file(&self, path: &Path) -> std::io::Result<String> {
        let kept = self.kept.lock().ok().and_then(|mut k| k.remove(path));
        // A kept file that fails (a process's file after it ended) is
        // opened again, which says why it cannot be.
        if let Some((file, len)) = kept
            && let Ok(text) = pread_text(&file, len)
        {
            self.keep(path, file, text.len());
            return Ok(text);
        }
        let mut file = File::open(path)?;
        if !super::sys::regenerated(std::os::fd::AsFd::as_fd(&file)) {
            let mut text = String::new();
            file.read_to_string(&mut text)?;
            return Ok(text);
        }
        let text = pread_text(&file, 0)?;
        self.keep(path, file, text.len());
        Ok(text)
    }

    /// As [`RootFs::attr`], read through a file kept open: for an
    /// attribute read at every sample. A kept file follows its object, not
    /// its name: [`RootFs::forget_kept`] when names may have moved.
    pub fn kept_attr(&self, rel: &str) -> Option<String> {
        let At::Dir(root) = &self.at else {
            return self.attr(rel);
        };
        let text = self
            .read_file(&root.join(rel.trim_start_matches('/')))
            .ok()?;
        Some(text.lines().next().unwrap_or("").trim().to_string())
    }

    /// Closes every kept file: the next reads open them afresh.
    pub fn forget_kept(&self) {
        if let Ok(mut kept) = self.kept.lock() {
            kept.clear();
        }
    }

    fn keep(&self, path: &Path, file: File, len: usize) {
        if let Ok(mut kept) = self.kept.lock()
            && kept.len() < KEPT_MAX
        {
            kept.insert(path.to_path_buf(), (file, len));
        }
    }

    /// The output of the fincore run a node's last sample came with, if
    /// one did; `None` for a directory.
    pub fn fincore(&self) -> Option<String> {
        match &self.at {
            At::Dir(_) => None,
            At::Frames(f) => f.now.read().ok()?.1.fincore.clone(),
        }
    }

    /// The first line of a small attribute file, trimmed; `None` when the
    /// file is absent or unreadable, which for sysfs attributes is normal.
    pub fn attr(&self, rel: &str) -> Option<String> {
        let root = match &self.at {
            At::Dir(root) => root,
            At::Frames(f) => {
                return f.find(|s| {
                    let text = s.files.get(rel)?;
                    Some(text.lines().next().unwrap_or("").trim().to_string())
                });
            }
        };
        // sysfs serves at most a page per attribute; one read(2) into a
        // buffer on the stack skips the statx and the second read that
        // read_to_string makes, which counts at 64 interfaces per tick.
        let mut buf = [0u8; 4096];
        let n = std::fs::File::open(root.join(rel.trim_start_matches('/')))
            .ok()?
            .read(&mut buf)
            .ok()?;
        let text = std::str::from_utf8(&buf[..n]).ok()?;
        Some(text.lines().next().unwrap_or("").trim().to_string())
    }

    pub fn exists(&self, rel: &str) -> bool {
        match &self.at {
            At::Dir(root) => root.join(rel.trim_start_matches('/')).exists(),
            At::Frames(f) => f.find(|s| s.has(rel).then_some(())).is_some(),
        }
    }

    /// The last path component of a symlink's target, such as the driver
    /// of `device/driver` or the bond of `master`.
    pub fn link_name(&self, rel: &str) -> Option<String> {
        match &self.at {
            At::Dir(root) => {
                let target = std::fs::read_link(root.join(rel.trim_start_matches('/'))).ok()?;
                Some(target.file_name()?.to_string_lossy().into_owned())
            }
            At::Frames(f) => f.find(|s| s.links.get(rel).cloned()),
        }
    }

    /// Entry names of a directory, sorted; empty when it cannot be read.
    /// A remote host's listing holds the entries strata reads.
    pub fn list(&self, rel: &str) -> Vec<String> {
        let root = match &self.at {
            At::Dir(root) => root,
            At::Frames(f) => {
                let mut names = f.find(|s| s.dirs.get(rel).cloned()).unwrap_or_default();
                names.sort();
                return names;
            }
        };
        let Ok(dir) = std::fs::read_dir(root.join(rel.trim_start_matches('/'))) else {
            return Vec::new();
        };
        let mut names: Vec<String> = dir
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_procfs_file_is_kept_open_and_read_afresh_each_time() {
        let fs = RootFs::new("/");
        let first = fs.read("/proc/uptime").unwrap();
        // /proc/uptime counts hundredths of a second.
        std::thread::sleep(std::time::Duration::from_millis(30));
        let second = fs.read("/proc/uptime").unwrap();
        assert_ne!(first, second, "read afresh");
        assert_eq!(fs.kept.lock().unwrap().len(), 1, "kept, not reopened");
        // A clone keeps its own files.
        assert!(fs.clone().kept.lock().unwrap().is_empty());
    }

    /// A catalogue's files (an interface's uevent, read at every reread of
    /// the interfaces) leave the kept slots to what every sample reads.
    #[test]
    fn a_file_read_once_is_not_kept() {
        let fs = RootFs::new("/");
        let uevent = fs.read_once("/sys/class/net/lo/uevent").unwrap();
        assert!(uevent.contains("INTERFACE=lo"), "{uevent}");
        assert!(fs.kept.lock().unwrap().is_empty());
        fs.read("/proc/uptime").unwrap();
        assert_eq!(fs.kept.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_file_elsewhere_is_read_afresh_and_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("proc")).unwrap();
        let path = dir.path().join("proc/uptime");
        std::fs::write(&path, "1.00 2.00\n").unwrap();
        let fs = RootFs::new(dir.path());
        assert_eq!(fs.read("/proc/uptime").unwrap(), "1.00 2.00\n");
        // Replaced under its name, as a test's synthetic tree does.
        let new = dir.path().join("proc/uptime.new");
        std::fs::write(&new, "3.00 4.00\n").unwrap();
        std::fs::rename(&new, &path).unwrap();
        assert_eq!(fs.read("/proc/uptime").unwrap(), "3.00 4.00\n");
        assert!(fs.kept.lock().unwrap().is_empty());
    }
}

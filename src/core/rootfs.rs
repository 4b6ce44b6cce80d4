//! Reads /proc and /sys through a transport: under a root directory (`/`
//! by default, or a captured tree or a test fixture), or from the frames a
//! remote sampler sent (a database node over SSH). The parsers and models
//! above do not know which.

use super::error::SourceError;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

#[derive(Debug, Clone)]
pub struct RootFs {
    at: At,
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

impl Default for RootFs {
    fn default() -> Self {
        RootFs::new("/")
    }
}

impl RootFs {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        RootFs {
            at: At::Dir(root.into()),
        }
    }

    /// Files as a remote sampler's frames give them.
    pub fn remote(files: Arc<RemoteFiles>) -> Self {
        RootFs {
            at: At::Frames(files),
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

    /// Where `rel` (an absolute system path such as `/proc/diskstats`) is
    /// on this machine; `None` for a remote host's files.
    pub fn local_path(&self, rel: &str) -> Option<PathBuf> {
        match &self.at {
            At::Dir(root) => Some(root.join(rel.trim_start_matches('/'))),
            At::Frames(_) => None,
        }
    }

    pub fn read(&self, rel: &str) -> Result<String, SourceError> {
        match &self.at {
            At::Dir(root) => {
                let path = root.join(rel.trim_start_matches('/'));
                std::fs::read_to_string(&path).map_err(|err| SourceError::Io { path, err })
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

//! Reads /proc and /sys under a root directory, `/` by default, so that a
//! captured tree or a test fixture can stand in for the live system.

use super::error::SourceError;
use std::io::Read;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct RootFs {
    root: PathBuf,
}

impl Default for RootFs {
    fn default() -> Self {
        RootFs::new("/")
    }
}

impl RootFs {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        RootFs { root: root.into() }
    }

    /// `rel` is an absolute system path such as `/proc/diskstats`.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel.trim_start_matches('/'))
    }

    pub fn read(&self, rel: &str) -> Result<String, SourceError> {
        let path = self.path(rel);
        std::fs::read_to_string(&path).map_err(|err| SourceError::Io { path, err })
    }

    /// The first line of a small attribute file, trimmed; `None` when the
    /// file is absent or unreadable, which for sysfs attributes is normal.
    pub fn attr(&self, rel: &str) -> Option<String> {
        // sysfs serves at most a page per attribute; one read(2) into a
        // buffer on the stack skips the statx and the second read that
        // read_to_string makes, which counts at 64 interfaces per tick.
        let mut buf = [0u8; 4096];
        let n = std::fs::File::open(self.path(rel))
            .ok()?
            .read(&mut buf)
            .ok()?;
        let text = std::str::from_utf8(&buf[..n]).ok()?;
        Some(text.lines().next().unwrap_or("").trim().to_string())
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    /// Entry names of a directory, sorted; empty when it cannot be read.
    pub fn list(&self, rel: &str) -> Vec<String> {
        let Ok(dir) = std::fs::read_dir(self.path(rel)) else {
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

//! How much of one open file is in the page cache: cachestat(2) (Linux
//! 6.5+), or mmap + mincore(2) where the kernel has no cachestat. The calls
//! themselves, unsafe, are in `core::sys`.
//!
//! Neither way reads the file's data or faults a page in: cachestat looks
//! the range up in the page cache, and mincore is asked about a PROT_NONE
//! mapping that is never touched (util-linux fincore maps the same way).
//! A monitor that read the files would fill the cache it measures.
//!
//! Both ways are told the truth only by the file's owner, a writer or
//! root: since 5.0 mincore *pretends every page is resident* to anyone
//! else, and cachestat refuses them with EPERM (seen on 6.18). So the
//! mincore path checks the same permission first and refuses rather than
//! report a fully cached file that is not.

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::core::sys;

/// How residency is measured, which decides what is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Method {
    /// cachestat(2): cached, dirty, writeback, evicted, recently evicted.
    Cachestat,
    /// mmap + mincore(2): resident pages only.
    Mincore,
    /// util-linux fincore run on a node by its sampler (mincore there):
    /// resident pages only, every few samples (see `fincore.rs`).
    Fincore,
}

impl Method {
    /// The name a panel shows.
    pub fn label(self) -> &'static str {
        match self {
            Method::Cachestat => "cachestat(2)",
            Method::Mincore => "mincore(2)",
            Method::Fincore => "fincore",
        }
    }
}

/// Page counts of one file. `None` is what the method cannot tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Residency {
    /// Pages in the page cache.
    pub cached: u64,
    pub dirty: Option<u64>,
    pub writeback: Option<u64>,
    /// Pages evicted whose shadow entries the kernel still keeps.
    pub evicted: Option<u64>,
    /// Evicted pages whose refault would count as the working set
    /// thrashing (the kernel's refault-distance test).
    pub recently_evicted: Option<u64>,
}

/// The system page size, in bytes.
pub fn page_size() -> u64 {
    // Linux always answers; 4096 only keeps a broken libc from giving 0,
    // which every page count would then divide by.
    sys::page_size().unwrap_or(4096)
}

/// The whole file's page counts. ENOSYS means a kernel before 6.5; EPERM
/// a file this user neither owns nor may write; EOPNOTSUPP hugetlbfs.
pub fn cachestat(file: &File) -> io::Result<Residency> {
    let cs = sys::cachestat(file.as_fd())?;
    Ok(Residency {
        cached: cs.nr_cache,
        dirty: Some(cs.nr_dirty),
        writeback: Some(cs.nr_writeback),
        evicted: Some(cs.nr_evicted),
        recently_evicted: Some(cs.nr_recently_evicted),
    })
}

/// mincore is asked about at most this much of a file at a time: a 1 GiB
/// window needs a 256 KiB vector (4 KiB pages), and mapping a whole 100 GB
/// file at once could exhaust a 32-bit address space.
///
/// mincore looks up every page, cached or not: 1.6 to 12 ms per GiB of
/// file on the development VM (benches/cache.rs), where cachestat takes
/// under 1 ms for 100 GiB. So the fallback is an incremental scan with a
/// budget per tick (`scan.rs`), whose steps are smaller than this.
pub const MINCORE_WINDOW: u64 = 1 << 30;

/// Resident pages of `file` from `off` for `len` bytes (at most
/// [`MINCORE_WINDOW`]), by mapping it PROT_NONE and asking mincore(2).
/// `vec` is scratch space kept by the caller so a scan allocates once.
/// Pages past the end of the file are never resident.
pub fn mincore(file: &File, off: u64, len: u64, vec: &mut Vec<u8>) -> io::Result<u64> {
    if len == 0 {
        return Ok(0);
    }
    sys::mincore(file.as_fd(), off, len.min(MINCORE_WINDOW), vec)?;
    Ok(vec.iter().filter(|&&b| b & 1 == 1).count() as u64)
}

/// Whether mincore(2) tells this process the truth about the file: the
/// kernel's `can_do_mincore` asks for the owner, CAP_FOWNER (root here)
/// or write permission.
pub fn mincore_truthful(path: &Path, meta: &std::fs::Metadata) -> bool {
    let euid = sys::euid();
    euid == 0 || meta.uid() == euid || sys::may_write(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_size_is_a_power_of_two() {
        let p = page_size();
        assert!(p >= 4096 && p.is_power_of_two(), "{p}");
    }

    #[test]
    fn an_empty_file_has_no_pages_either_way() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty");
        let f = File::create(&path).unwrap();
        let mut vec = Vec::new();
        assert_eq!(mincore(&f, 0, 0, &mut vec).unwrap(), 0);
        if let Ok(r) = cachestat(&f) {
            assert_eq!(r.cached, 0);
            assert_eq!(r.dirty, Some(0));
        }
    }
}

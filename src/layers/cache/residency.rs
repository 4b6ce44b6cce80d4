//! How much of one open file is in the page cache: cachestat(2) (Linux
//! 6.5+), or mmap + mincore(2) where the kernel has no cachestat. All the
//! unsafe code of the cache source is here.
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
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// How residency is measured, which decides what is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Method {
    /// cachestat(2): cached, dirty, writeback, evicted, recently evicted.
    Cachestat,
    /// mmap + mincore(2): resident pages only.
    Mincore,
}

impl Method {
    /// The name a panel shows.
    pub fn label(self) -> &'static str {
        match self {
            Method::Cachestat => "cachestat(2)",
            Method::Mincore => "mincore(2)",
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
    // SAFETY: sysconf takes a constant and touches no memory of ours.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    // Linux always answers; 4096 only keeps a broken libc from giving 0,
    // which every page count would then divide by.
    u64::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
}

/// cachestat(2) is number 451 in the syscall table every architecture has
/// shared since 5.1 (alpha excepted); libc defines no constant for it on
/// x86_64 or aarch64.
const SYS_CACHESTAT: libc::c_long = 451;

/// include/uapi/linux/mman.h `struct cachestat_range`.
#[repr(C)]
struct CachestatRange {
    off: u64,
    /// 0: from `off` to the end of the file.
    len: u64,
}

/// include/uapi/linux/mman.h `struct cachestat`, in pages.
#[repr(C)]
#[derive(Default)]
struct Cachestat {
    nr_cache: u64,
    nr_dirty: u64,
    nr_writeback: u64,
    nr_evicted: u64,
    nr_recently_evicted: u64,
}

/// The whole file's page counts. ENOSYS means a kernel before 6.5; EPERM
/// a file this user neither owns nor may write; EOPNOTSUPP hugetlbfs.
pub fn cachestat(file: &File) -> io::Result<Residency> {
    let range = CachestatRange { off: 0, len: 0 };
    let mut cs = Cachestat::default();
    let flags: libc::c_uint = 0;
    // SAFETY: the fd is open for the duration of the call (borrowed from
    // `file`); `range` and `cs` are live, #[repr(C)] and laid out as the
    // uapi structs; the kernel reads only `range` and writes only `cs`.
    let rc = unsafe {
        libc::syscall(
            SYS_CACHESTAT,
            file.as_raw_fd(),
            &range as *const CachestatRange,
            &mut cs as *mut Cachestat,
            flags,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Residency {
        cached: cs.nr_cache,
        dirty: Some(cs.nr_dirty),
        writeback: Some(cs.nr_writeback),
        evicted: Some(cs.nr_evicted),
        recently_evicted: Some(cs.nr_recently_evicted),
    })
}

/// mincore is asked about this much of a file at a time: a 1 GiB window
/// needs a 256 KiB vector (4 KiB pages), and mapping a whole 100 GB file at
/// once could exhaust a 32-bit address space.
///
/// mincore looks up every page, cached or not: about 12 ms per GiB of
/// file on the development VM (benches/cache.rs: 1.26 s a tick for 100
/// GiB, where cachestat takes under 1 ms). The fallback suits a few GB of
/// logs, not a whole datafile set.
pub const MINCORE_WINDOW: u64 = 1 << 30;

/// Resident pages of the first `size` bytes of `file`, by mapping it
/// PROT_NONE a window at a time and asking mincore(2). `vec` is scratch
/// space kept by the caller so a scan allocates once.
pub fn mincore(file: &File, size: u64, page_size: u64, vec: &mut Vec<u8>) -> io::Result<u64> {
    let window = MINCORE_WINDOW.max(page_size) / page_size * page_size;
    let mut resident = 0u64;
    let mut off = 0u64;
    while off < size {
        let len = window.min(size - off);
        let pages = len.div_ceil(page_size);
        let (Ok(map_len), Ok(map_off), Ok(pages)) = (
            usize::try_from(len),
            libc::off_t::try_from(off),
            usize::try_from(pages),
        ) else {
            return Err(io::Error::from_raw_os_error(libc::EOVERFLOW));
        };
        vec.clear();
        vec.resize(pages, 0);
        // SAFETY: a fresh mapping chosen by the kernel (no address hint,
        // so nothing of ours is replaced); the fd is open for the call; the
        // mapping is PROT_NONE and never dereferenced, so a file shrinking
        // under it cannot fault us.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_NONE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                map_off,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `addr`..`addr + map_len` is the mapping made above;
        // `vec` holds one byte per page of it, as mincore writes.
        let rc = unsafe { libc::mincore(addr, map_len, vec.as_mut_ptr()) };
        let err = (rc != 0).then(io::Error::last_os_error);
        // SAFETY: unmaps exactly the mapping made above, which nothing
        // else refers to.
        unsafe { libc::munmap(addr, map_len) };
        if let Some(e) = err {
            return Err(e);
        }
        resident += vec.iter().filter(|&&b| b & 1 == 1).count() as u64;
        off += len;
    }
    Ok(resident)
}

/// Whether mincore(2) tells this process the truth about the file: the
/// kernel's `can_do_mincore` asks for the owner, CAP_FOWNER (root here)
/// or write permission.
pub fn mincore_truthful(path: &Path, meta: &std::fs::Metadata) -> bool {
    // SAFETY: geteuid has no arguments and cannot fail.
    let euid = unsafe { libc::geteuid() };
    if euid == 0 || meta.uid() == euid {
        return true;
    }
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c_path` is a NUL-terminated string that outlives the call.
    unsafe {
        libc::faccessat(
            libc::AT_FDCWD,
            c_path.as_ptr(),
            libc::W_OK,
            libc::AT_EACCESS,
        ) == 0
    }
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
        assert_eq!(mincore(&f, 0, page_size(), &mut vec).unwrap(), 0);
        if let Ok(r) = cachestat(&f) {
            assert_eq!(r.cached, 0);
            assert_eq!(r.dirty, Some(0));
        }
    }
}

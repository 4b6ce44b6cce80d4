//! Every call strata makes into libc or the kernel that the compiler cannot
//! check, each behind a safe function whose `SAFETY:` comment says why it is
//! sound. This is the one module allowed `unsafe`: the crate denies it
//! everywhere else, so a new call into the kernel lands here and gets its
//! argument reviewed in one place.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The system page size in bytes, or `None` if libc cannot tell.
pub fn page_size() -> Option<u64> {
    // SAFETY: sysconf takes a constant and touches no memory of ours.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(n).ok().filter(|&n| n > 0)
}

/// The effective user id of this process.
pub fn euid() -> u32 {
    // SAFETY: geteuid has no arguments, no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Whether this process, by its effective ids, may write `path`
/// (faccessat(2) with `AT_EACCESS`). A path holding a NUL byte cannot be
/// asked about and is not writable.
pub fn may_write(path: &Path) -> bool {
    let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c_path` is a NUL-terminated string that outlives the call;
    // faccessat only reads it.
    let rc = unsafe {
        libc::faccessat(
            libc::AT_FDCWD,
            c_path.as_ptr(),
            libc::W_OK,
            libc::AT_EACCESS,
        )
    };
    rc == 0
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
#[derive(Debug, Default, Clone, Copy)]
pub struct Cachestat {
    pub nr_cache: u64,
    pub nr_dirty: u64,
    pub nr_writeback: u64,
    pub nr_evicted: u64,
    pub nr_recently_evicted: u64,
}

/// The whole file's page counts by cachestat(2). ENOSYS means a kernel
/// before 6.5; EPERM a file this user neither owns nor may write;
/// EOPNOTSUPP hugetlbfs.
pub fn cachestat(fd: BorrowedFd<'_>) -> io::Result<Cachestat> {
    let range = CachestatRange { off: 0, len: 0 };
    let mut cs = Cachestat::default();
    let flags: libc::c_uint = 0;
    // SAFETY: the fd is open for the duration of the call (borrowed);
    // `range` and `cs` are live, #[repr(C)] and laid out as the uapi
    // structs; the kernel reads only `range` and writes only `cs`.
    let rc = unsafe {
        libc::syscall(
            SYS_CACHESTAT,
            fd.as_raw_fd(),
            &range as *const CachestatRange,
            &mut cs as *mut Cachestat,
            flags,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cs)
}

/// Residency of the `len` bytes of the file at `off`, by mapping them
/// PROT_NONE and asking mincore(2): `vec` ends up with one byte per page,
/// bit 0 set where the page is resident. `off` must be a multiple of the
/// page size (mmap refuses it otherwise, with EINVAL).
pub fn mincore(fd: BorrowedFd<'_>, off: u64, len: u64, vec: &mut Vec<u8>) -> io::Result<()> {
    let overflow = || io::Error::from_raw_os_error(libc::EOVERFLOW);
    // The vector is sized from the kernel's own page size, not the
    // caller's, so mincore can never write past it.
    let page = page_size().ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
    let map_len = usize::try_from(len).map_err(|_| overflow())?;
    let map_off = libc::off_t::try_from(off).map_err(|_| overflow())?;
    let pages = usize::try_from(len.div_ceil(page)).map_err(|_| overflow())?;
    vec.clear();
    vec.resize(pages, 0);
    // SAFETY: a fresh mapping chosen by the kernel (no address hint, so
    // nothing of ours is replaced); the fd is open for the call; the mapping
    // is PROT_NONE and never dereferenced, so a file shrinking under it
    // cannot fault us.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            map_len,
            libc::PROT_NONE,
            libc::MAP_SHARED,
            fd.as_raw_fd(),
            map_off,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `addr`..`addr + map_len` is the mapping made above; `vec`
    // holds one byte per page of it (sized above from the page size), as
    // mincore writes.
    let rc = unsafe { libc::mincore(addr, map_len, vec.as_mut_ptr()) };
    let err = (rc != 0).then(io::Error::last_os_error);
    // SAFETY: unmaps exactly the mapping made above, which nothing else
    // refers to.
    unsafe { libc::munmap(addr, map_len) };
    match err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A `struct tm` of all zeroes, which libc's time functions fill in.
fn zeroed_tm() -> libc::tm {
    // SAFETY: `tm` is plain integers and one nullable pointer (`tm_zone`):
    // all zeroes is a valid value of it.
    unsafe { std::mem::zeroed() }
}

/// Broken-down local time at Unix time `t` (localtime_r(3)), or `None`
/// where libc cannot convert it.
pub fn localtime(t: libc::time_t) -> Option<libc::tm> {
    let mut tm = zeroed_tm();
    // SAFETY: localtime_r reads `t` and writes only into `tm`; both are
    // ours and outlive the call.
    let ok = unsafe { !libc::localtime_r(&t, &mut tm).is_null() };
    ok.then_some(tm)
}

/// Broken-down UTC time at Unix time `t` (gmtime_r(3)); all zeroes where
/// libc cannot convert it.
pub fn gmtime(t: libc::time_t) -> libc::tm {
    let mut tm = zeroed_tm();
    // SAFETY: gmtime_r reads `t` and writes only into `tm`; both are ours
    // and outlive the call. On failure `tm` keeps its zeroes.
    unsafe { libc::gmtime_r(&t, &mut tm) };
    tm
}

/// The events poll(2) reports at once on `fd` asking for none (so only
/// POLLHUP, POLLERR and POLLNVAL can show), or `None` when there are none.
pub fn poll_now(fd: RawFd) -> Option<libc::c_short> {
    let mut pfd = libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd and a zero timeout: poll only reads the
    // descriptor's state and writes `revents`. A closed or bogus fd is
    // reported (POLLNVAL), not dereferenced.
    let n = unsafe { libc::poll(&mut pfd, 1, 0) };
    (n > 0).then_some(pfd.revents)
}

/// Whether the mount table behind `fd` (an open /proc/self/mountinfo,
/// mounts or mountstats) changed since the file was opened or this was last
/// asked: the kernel reports POLLPRI and POLLERR once per change. True when
/// poll fails, so that the caller reads the table rather than miss a mount.
pub fn mounts_changed(fd: BorrowedFd<'_>) -> bool {
    let mut pfd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLPRI,
        revents: 0,
    };
    // SAFETY: one valid pollfd and a zero timeout: poll only reads the
    // descriptor's state and writes `revents`. A closed or bogus fd is
    // reported (POLLNVAL), not dereferenced.
    let n = unsafe { libc::poll(&mut pfd, 1, 0) };
    n < 0 || pfd.revents & (libc::POLLPRI | libc::POLLERR | libc::POLLNVAL) != 0
}

/// CPU time of the calling thread so far (CLOCK_THREAD_CPUTIME_ID), or
/// `None` where the clock is missing.
pub fn thread_cpu_time() -> Option<libc::timespec> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then_some(ts)
}

/// Whether `fd` is a file of procfs or sysfs (fstatfs(2)): one the kernel
/// makes afresh at every read from offset 0.
pub fn regenerated(fd: BorrowedFd<'_>) -> bool {
    // SAFETY: `statfs` is plain integers: all zeroes is a valid value of it.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: fstatfs writes one statfs through a valid pointer; a closed
    // fd is an error (EBADF), not a dereference.
    let rc = unsafe { libc::fstatfs(fd.as_raw_fd(), &mut st) };
    // f_type and the constant differ in type and width between targets.
    #[allow(clippy::unnecessary_cast)]
    let magic = st.f_type as i64;
    #[allow(clippy::unnecessary_cast)]
    let kinds = [libc::PROC_SUPER_MAGIC as i64, libc::SYSFS_MAGIC as i64];
    rc == 0 && kinds.contains(&magic)
}

/// stdin, stdout or stderr, as the runtime's epoll watches it.
pub struct StdioFd(RawFd);

impl AsRawFd for StdioFd {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

/// `fd` (0, 1 or 2) registered with the current tokio runtime for
/// readiness (its epoll also reports a hangup); `None` for another fd or
/// where it cannot be registered. Must be called within a runtime.
pub fn register_stdio(fd: RawFd) -> Option<tokio::io::unix::AsyncFd<StdioFd>> {
    if !(0..=2).contains(&fd) {
        return None;
    }
    // SAFETY: the standard descriptors stay open for the life of the
    // process (strata never closes them), so the fd outlives the
    // registration, which only watches it and never reads or closes it.
    unsafe {
        tokio::io::unix::AsyncFd::register_with_interest(StdioFd(fd), tokio::io::Interest::READABLE)
    }
    .ok()
}

/// Stores `sig` into `seen` whenever the process gets `sig`, and wakes
/// `wake` if there is one, beside whatever else handles it (tokio's own action stays);
/// `None` when it cannot be registered. Undone by [`forget_signal`].
pub fn note_signal(
    sig: libc::c_int,
    seen: std::sync::Arc<std::sync::atomic::AtomicI32>,
    wake: Option<Waker>,
) -> Option<signal_hook_registry::SigId> {
    // SAFETY: the action stores to an atomic and writes one byte to a
    // pipe (write(2) is async-signal-safe; the registry keeps errno), and
    // allocates nothing. The pipe's write end is the action's own (an
    // Arc), closed only once the registry has dropped the action.
    unsafe {
        signal_hook_registry::register(sig, move || {
            seen.store(sig, std::sync::atomic::Ordering::Relaxed);
            if let Some(w) = &wake {
                w.wake();
            }
        })
    }
    .ok()
}

/// Wakes `wake` whenever the process gets `sig`, after the actions
/// registered before this one (the registry runs them in that order).
/// Undone by [`forget_signal`].
pub fn wake_on_signal(sig: libc::c_int, wake: Waker) -> Option<signal_hook_registry::SigId> {
    // SAFETY: as in note_signal: one write(2) of one byte to a pipe the
    // action owns, nothing allocated.
    unsafe { signal_hook_registry::register(sig, move || wake.wake()) }.ok()
}

/// A pipe that wakes a thread blocked in [`wait`]: a signal's action, or
/// another thread, writes a byte to it through a [`Waker`].
pub struct Wake {
    read: OwnedFd,
    write: std::sync::Arc<OwnedFd>,
}

/// The write end of a [`Wake`]: cheap to clone, safe in a signal handler.
#[derive(Clone)]
pub struct Waker(std::sync::Arc<OwnedFd>);

impl Wake {
    pub fn new() -> io::Result<Wake> {
        let mut fds: [libc::c_int; 2] = [-1, -1];
        // SAFETY: pipe2 writes two descriptors into the array, which lives
        // on this stack; on success both are new and owned by nothing else.
        let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: pipe2 succeeded: both are open and this is their one owner.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(Wake {
            read,
            write: std::sync::Arc::new(write),
        })
    }

    pub fn waker(&self) -> Waker {
        Waker(std::sync::Arc::clone(&self.write))
    }

    /// Empties the pipe, so that the next [`wait`] blocks until a new wake.
    pub fn drain(&self) {
        let mut buf = [0u8; 64];
        loop {
            // SAFETY: reads at most the buffer's length into it; the fd is
            // this pipe's read end, non-blocking.
            let n =
                unsafe { libc::read(self.read.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                return;
            }
        }
    }
}

impl Waker {
    /// One byte into the pipe; a full pipe is already awake.
    pub fn wake(&self) {
        let byte = 1u8;
        // SAFETY: writes one byte from a local to a pipe the Arc keeps
        // open; non-blocking, so a full pipe returns EAGAIN, ignored.
        let _ = unsafe { libc::write(self.0.as_raw_fd(), (&raw const byte).cast(), 1) };
    }
}

/// What [`wait`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Woken {
    /// The wake pipe had a byte (a signal, a stop).
    pub wake: bool,
    /// A watched fd was readable (`readable` asked for it).
    pub readable: bool,
    /// A watched fd hung up, failed or is not open.
    pub gone: bool,
}

/// Blocks until `wake` is woken, one of `fds` hangs up (or fails), with
/// `readable` until one has input, or `timeout` passes (`None`: no
/// limit). Nothing is read. A signal that interrupts the wait returns
/// it with nothing seen; so does a failed poll.
pub fn wait(
    wake: &Wake,
    fds: &[RawFd],
    readable: bool,
    timeout: Option<std::time::Duration>,
) -> Woken {
    const MAX: usize = 3;
    let none = libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    };
    let mut pfds = [none; MAX];
    pfds[0] = libc::pollfd {
        fd: wake.read.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let events = if readable { libc::POLLIN } else { 0 };
    let mut n = 1;
    for &fd in fds.iter().take(MAX - 1) {
        pfds[n] = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        n += 1;
    }
    let ms = timeout.map_or(-1, |t| {
        libc::c_int::try_from(t.as_millis()).unwrap_or(libc::c_int::MAX)
    });
    // SAFETY: `n` valid pollfds on this stack (poll ignores a negative
    // fd); poll only writes their `revents`. A closed or bogus fd is
    // reported (POLLNVAL), not dereferenced.
    let rc = unsafe { libc::poll(pfds.as_mut_ptr(), n as libc::nfds_t, ms) };
    let mut woken = Woken {
        wake: false,
        readable: false,
        gone: false,
    };
    if rc <= 0 {
        return woken;
    }
    woken.wake = pfds[0].revents & libc::POLLIN != 0;
    for p in &pfds[1..n] {
        woken.readable |= p.revents & libc::POLLIN != 0;
        woken.gone |= p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0;
    }
    woken
}

pub fn forget_signal(id: signal_hook_registry::SigId) {
    signal_hook_registry::unregister(id);
}

/// What to add to an error that may come from running out of file
/// descriptors: how many are open of how many the limit allows, and the
/// fix, when nine in ten or more are in use; else nothing.
pub fn descriptors_note() -> String {
    let open = std::fs::read_dir("/proc/self/fd").map(|d| d.count());
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit, which lives on this stack.
    let got = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0;
    match open {
        Ok(open) if got && (open as u64).saturating_mul(10) >= lim.rlim_cur.saturating_mul(9) => {
            format!(
                " (out of file descriptors: {open} open of a limit of {}; raise it with `ulimit -n`)",
                lim.rlim_cur
            )
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::os::fd::AsFd;

    /// A wait ends at a wake, a hangup of a watched fd or its timeout, and
    /// a drained pipe sleeps again.
    #[test]
    fn a_wait_ends_at_a_wake_a_hangup_or_its_timeout() {
        let wake = Wake::new().unwrap();
        let short = Some(std::time::Duration::from_millis(20));
        let nothing = Woken {
            wake: false,
            readable: false,
            gone: false,
        };
        assert_eq!(wait(&wake, &[], false, short), nothing);
        let waker = wake.waker();
        let woke = std::thread::spawn(move || waker.wake());
        let woken = wait(&wake, &[], false, None);
        woke.join().unwrap();
        assert!(woken.wake && !woken.gone, "{woken:?}");
        wake.drain();
        assert_eq!(wait(&wake, &[], false, short), nothing);
        // A pipe whose writer closed stands for a terminal that hung up.
        let other = Wake::new().unwrap();
        let Wake { read, write } = other;
        assert_eq!(wait(&wake, &[read.as_raw_fd()], false, short), nothing);
        drop(write);
        let woken = wait(&wake, &[read.as_raw_fd()], false, None);
        assert!(woken.gone && !woken.wake, "{woken:?}");
    }

    /// A mount in a namespace is reported once to a watcher of that
    /// namespace's table, and nothing before it. The namespace is a child's
    /// of its own (unshare --mount, as root), so the test mounts nothing
    /// anyone else sees.
    #[test]
    fn a_mount_is_reported_once() {
        if euid() != 0 || !Path::new("/usr/bin/unshare").exists() {
            eprintln!("SKIPPED a_mount_is_reported_once: needs root and unshare");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let script = format!(
            "mount --make-rprivate / && echo ready && read go && mount -t tmpfs none {} && echo mounted && read end",
            dir.path().display()
        );
        let mut child = std::process::Command::new("unshare")
            .args(["--mount", "sh", "-c", &script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut stdin = child.stdin.take().unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert_eq!(line, "ready\n");
        let table = std::fs::File::open(format!("/proc/{}/mountinfo", child.id())).unwrap();
        assert!(!mounts_changed(table.as_fd()), "no mount yet");
        std::io::Write::write_all(&mut stdin, b"go\n").unwrap();
        line.clear();
        out.read_line(&mut line).unwrap();
        assert_eq!(line, "mounted\n");
        assert!(mounts_changed(table.as_fd()), "the tmpfs");
        assert!(!mounts_changed(table.as_fd()), "reported once");
        // end of input ends the child's shell, and its namespace
        drop(stdin);
        child.wait().unwrap();
    }
}

//! Files a recording writes: created private (0600, whatever the umask
//! allows beyond it), never over an existing recording unless asked, and
//! never over one in progress. A recording in progress holds an exclusive
//! `flock(2)` on its segment for as long as it is open, so a second writer
//! is refused with the holder's pid (read from /proc/locks, as lslocks does).

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use super::RecordError;

/// Owner read and write, nobody else: a recording names hosts, devices and
/// databases.
pub const PRIVATE: u32 = 0o600;

/// Whether an existing finished recording at the path may be replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Existing {
    /// Refuse it: the default, a recording is evidence.
    #[default]
    Refuse,
    /// `--force`: replace it, unless it is in progress.
    Replace,
}

/// Opens `path` for a new recording: created 0600 and locked; an existing
/// file is refused, or with [`Existing::Replace`] emptied, unless another
/// process is recording to it. A symbolic link or anything but a regular
/// file is never written through.
pub fn open_segment(path: &Path, existing: Existing) -> Result<File, RecordError> {
    let mut opts = OpenOptions::new();
    opts.read(true)
        .write(true)
        .mode(PRIVATE)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    match opts.clone().create_new(true).open(path) {
        Ok(f) => {
            lock(&f, path)?;
            return Ok(f);
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        Err(e) => return Err(RecordError::io("create", path)(e)),
    }
    let f = opts.open(path).map_err(|e| refused_open(path, e))?;
    let meta = f.metadata().map_err(RecordError::io("stat", path))?;
    if !meta.is_file() {
        return Err(RecordError::NotRegular(path.to_path_buf()));
    }
    // The lock comes first: a recording in progress is refused as such,
    // with or without --force.
    lock(&f, path)?;
    if existing == Existing::Refuse {
        return Err(RecordError::Exists(path.to_path_buf()));
    }
    // --force replaces a recording, nothing else: a file that does not
    // start as one is the user's, and was named by mistake.
    if !starts_as_recording(&f).map_err(RecordError::io("read", path))? {
        return Err(RecordError::NotARecording(path.to_path_buf()));
    }
    f.set_len(0).map_err(RecordError::io("truncate", path))?;
    make_private(&f, path)?;
    Ok(f)
}

/// Whether the file starts with a recording's magic bytes. Read at an
/// offset (pread): the file's position stays at 0, where the new
/// recording is written.
fn starts_as_recording(f: &File) -> std::io::Result<bool> {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; super::format::MAGIC.len()];
    match f.read_exact_at(&mut head, 0) {
        Ok(()) => Ok(&head == super::format::MAGIC),
        Err(e) if e.kind() == ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// Opens (creating or emptying) a file beside a locked segment, such as
/// its journal: the segment's lock already keeps other recorders out.
pub fn open_private(path: &Path) -> Result<File, RecordError> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .mode(PRIVATE)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| refused_open(path, e))?;
    make_private(&f, path)?;
    Ok(f)
}

/// O_NOFOLLOW fails on a symbolic link with ELOOP, which says nothing to a
/// user; say what it is.
fn refused_open(path: &Path, e: std::io::Error) -> RecordError {
    if e.raw_os_error() == Some(libc::ELOOP) {
        RecordError::NotRegular(path.to_path_buf())
    } else {
        RecordError::io("open", path)(e)
    }
}

/// A file that existed keeps its mode on open: narrow it.
fn make_private(f: &File, path: &Path) -> Result<(), RecordError> {
    let meta = f.metadata().map_err(RecordError::io("stat", path))?;
    if meta.permissions().mode() & 0o777 != PRIVATE {
        f.set_permissions(std::fs::Permissions::from_mode(PRIVATE))
            .map_err(RecordError::io("chmod", path))?;
    }
    Ok(())
}

fn lock(f: &File, path: &Path) -> Result<(), RecordError> {
    match f.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => Err(RecordError::InProgress {
            path: path.to_path_buf(),
            pid: holder(f),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(RecordError::io("lock", path)(e)),
    }
}

/// The pid holding the flock on `f`, from /proc/locks.
fn holder(f: &File) -> Option<u32> {
    let meta = f.metadata().ok()?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    flock_holder(&locks, meta.dev(), meta.ino())
}

/// The pid of the granted FLOCK on the file `dev`/`ino` in the text of
/// /proc/locks ("1: FLOCK  ADVISORY  WRITE 3569 fd:01:1060930 0 EOF";
/// lines of waiters carry "->" and are passed over).
pub fn flock_holder(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    locks.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.get(1) != Some(&"FLOCK") {
            return None;
        }
        let mut id = f.get(5)?.split(':');
        let maj = u32::from_str_radix(id.next()?, 16).ok()?;
        let min = u32::from_str_radix(id.next()?, 16).ok()?;
        let i = id.next()?.parse::<u64>().ok()?;
        (maj == major && min == minor && i == ino)
            .then(|| f.get(4)?.parse().ok())
            .flatten()
    })
}

/// Whether `path` still names the file `f` was opened as: a recording
/// deleted or replaced under strata goes on into a file nobody can open.
pub fn still_at(f: &File, path: &Path) -> Result<(), RecordError> {
    let open = f.metadata().map_err(RecordError::io("stat", path))?;
    still_is((open.dev(), open.ino()), path)
}

/// As [`still_at`], for the file whose (device, inode) `open` is: an
/// open file keeps both, so they are read once, not at every check.
pub fn still_is(open: (u64, u64), path: &Path) -> Result<(), RecordError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if (m.dev(), m.ino()) == open => Ok(()),
        Ok(_) => Err(RecordError::Gone {
            path: path.to_path_buf(),
            how: "replaced by another file",
        }),
        Err(e) if e.kind() == ErrorKind::NotFound => Err(RecordError::Gone {
            path: path.to_path_buf(),
            how: "deleted",
        }),
        Err(e) => Err(RecordError::io("stat", path)(e)),
    }
}

/// The (device, inode) of an open file.
pub fn ident_of(f: &File) -> Option<(u64, u64)> {
    f.metadata().ok().map(|m| (m.dev(), m.ino()))
}

/// Where the open file `f` is named now, when it was renamed (`mv`, as
/// `tail -F` users do): the kernel's name for the descriptor, checked to
/// be that very file. `None` when it has no name left (deleted: no link),
/// or without /proc.
pub fn named_now(f: &File) -> Option<std::path::PathBuf> {
    use std::os::fd::AsRawFd;
    let meta = f.metadata().ok()?;
    if meta.nlink() == 0 {
        return None;
    }
    let name = std::fs::read_link(format!("/proc/self/fd/{}", f.as_raw_fd())).ok()?;
    let here = std::fs::symlink_metadata(&name).ok()?;
    ((here.dev(), here.ino()) == (meta.dev(), meta.ino())).then_some(name)
}

/// Removes `path` if it is still the file `ident` names: what a start that
/// failed had made, never a file another process put there since.
pub fn remove_if_still(path: &Path, ident: Option<(u64, u64)>) {
    if let Some(ident) = ident
        && still_is(ident, path).is_ok()
    {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn force_replaces_a_recording_and_refuses_any_other_file() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, "hello\n").unwrap();
        let e = open_segment(&plain, Existing::Replace).unwrap_err();
        assert!(matches!(e, RecordError::NotARecording(_)), "{e}");
        assert!(e.to_string().contains("not a strata recording"), "{e}");
        assert_eq!(std::fs::read_to_string(&plain).unwrap(), "hello\n");
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "").unwrap();
        assert!(open_segment(&empty, Existing::Replace).is_err());
        let rec = dir.path().join("old.strec");
        std::fs::write(&rec, b"STRATREC\x01\x00rest").unwrap();
        let mut f = open_segment(&rec, Existing::Replace).unwrap();
        assert_eq!(f.metadata().unwrap().len(), 0);
        // What is written next starts the file.
        std::io::Write::write_all(&mut f, b"STRATREC").unwrap();
        assert_eq!(std::fs::read(&rec).unwrap(), b"STRATREC");
    }

    #[test]
    fn the_holder_is_the_granted_flock_on_that_very_file() {
        let dev = libc::makedev(0xfd, 0x01);
        let locks = "\
1: POSIX  ADVISORY  WRITE 700 fd:01:1060930 0 EOF
2: FLOCK  ADVISORY  WRITE 3569 fd:01:1060931 0 EOF
3: FLOCK  ADVISORY  WRITE 3570 fd:01:1060930 0 EOF
3: -> FLOCK  ADVISORY  WRITE 4000 fd:01:1060930 0 EOF
";
        assert_eq!(flock_holder(locks, dev, 1060930), Some(3570));
        assert_eq!(flock_holder(locks, dev, 1060931), Some(3569));
        assert_eq!(flock_holder(locks, dev, 99), None);
        assert_eq!(flock_holder("", dev, 1060930), None);
        assert_eq!(flock_holder("1: FLOCK x y z q:r:s", dev, 1), None);
    }
}

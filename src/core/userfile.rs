//! Files the user names (config, theme, identity, group files, a
//! recording): the rule every one is opened by. /dev/zero or a file the
//! size of a disk would be read without end, and a FIFO would block the
//! open, and then the read, for as long as nobody writes to it.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// The most of a config, theme or group file strata reads: a hand-written
/// file is a few kB, and a group of 10,000 hosts is well under this.
pub const TEXT_LIMIT: u64 = 4 << 20;

/// The error of a path that is no regular file, told apart from the
/// open's own errors by [`is_not_regular`].
#[derive(Debug)]
struct NotRegular(String);

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotRegular {}

/// Whether `e` is [`open_regular`]'s refusal of what is no regular file.
pub fn is_not_regular(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<NotRegular>())
}

/// What `path` is when it is no regular file, for a message.
fn kind_of(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "something else"
    }
}

/// Opens `path` for reading if it is a regular file. O_NONBLOCK keeps the
/// open of a FIFO from waiting for a writer; the type is then checked on
/// what was opened (fstat), not on the name, which another process could
/// swap in between. The file's length at open comes with it.
pub fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            NotRegular(format!(
                "{} is {}, not a regular file: strata reads only a regular file here",
                path.display(),
                kind_of(meta.file_type())
            )),
        ));
    }
    Ok((file, meta.len()))
}

/// The bytes of the regular file `path`, refused when longer than `limit`
/// (checked on its length and again while reading, as a file may grow).
pub fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open_regular(path)?;
    let too_long = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is longer than strata reads here ({limit} bytes)",
                path.display()
            ),
        )
    };
    if len > limit {
        return Err(too_long());
    }
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(too_long());
    }
    Ok(buf)
}

/// As [`read_regular`], as UTF-8 text.
pub fn read_text(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_regular(path, limit)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text", path.display()),
        )
    })
}

/// What the tests of every reader of the user's files share.
#[cfg(test)]
pub(crate) mod testing {
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    /// What `read` says of a FIFO and of /dev/zero, in that order; the
    /// test fails if that takes over 5 s: a blocked open of the FIFO would
    /// hold it for ever, and a read of /dev/zero fill the memory.
    pub(crate) fn fifo_and_zero(read: impl Fn(&Path) -> String + Send + 'static) -> [String; 2] {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let fifo: PathBuf = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send([read(&fifo), read(Path::new("/dev/zero"))]);
        });
        rx.recv_timeout(Duration::from_secs(5))
            .unwrap_or_else(|_| panic!("a FIFO or /dev/zero held the read over 5 s"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_directories_are_refused_at_once() {
        let said = testing::fifo_and_zero(|p| match read_text(p, TEXT_LIMIT) {
            Err(e) if is_not_regular(&e) => e.to_string(),
            other => format!("{other:?}"),
        });
        assert!(
            said[0].contains("is a FIFO, not a regular file"),
            "{said:?}"
        );
        assert!(said[1].contains("/dev/zero is a device"), "{said:?}");
        let dir = tempfile::tempdir().unwrap();
        let e = read_text(dir.path(), TEXT_LIMIT).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_and_one_within_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "0123456789").unwrap();
        assert_eq!(read_text(&path, 10).unwrap(), "0123456789");
        let e = read_text(&path, 9).unwrap_err().to_string();
        assert!(e.contains("longer than strata reads here (9 bytes)"), "{e}");
        std::fs::write(&path, b"\xff\xfe").unwrap();
        assert!(
            read_text(&path, 10)
                .unwrap_err()
                .to_string()
                .contains("UTF-8")
        );
    }
}

//! `strata mark "label"`: a benchmark script adds a marker to every strata the
//! user runs, through a Unix socket per strata in a directory only the user
//! can enter.
//!
//! Protocol: one line, the label; strata answers `ok` once the marker is
//! taken. A socket nobody listens on (a strata killed) is removed by the
//! next `strata mark`.

use std::io::{BufRead, BufReader, Read as _, Write};
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt as _, AsyncWriteExt};
use tokio::net::UnixListener;
use tokio::sync::mpsc;

/// Longest label taken; the rest of a longer line is cut.
pub const MAX_LABEL: usize = 200;

/// `$XDG_RUNTIME_DIR/strata`, else `/tmp/strata-UID`.
pub fn socket_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("STRATA_MARK_DIR") {
        return PathBuf::from(d);
    }
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d).join("strata"),
        _ => PathBuf::from(format!("/tmp/strata-{}", euid())),
    }
}

fn euid() -> u32 {
    crate::core::sys::euid()
}

/// Whether `dir` is a directory of this user's that nobody else can enter
/// or write (not a symbolic link): in a directory another user can write,
/// that user could read the markers or answer in strata's place.
pub fn check_private(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(dir)
        .map_err(|e| format!("strata mark: {}: {e}", dir.display()))?;
    let why = if m.file_type().is_symlink() {
        Some("is a symbolic link".to_owned())
    } else if !m.is_dir() {
        Some("is not a directory".to_owned())
    } else if m.uid() != euid() {
        Some(format!("belongs to uid {}, not {}", m.uid(), euid()))
    } else if m.mode() & 0o077 != 0 {
        Some(format!(
            "has mode {:04o}, open to other users",
            m.mode() & 0o7777
        ))
    } else {
        None
    };
    match why {
        None => Ok(()),
        Some(why) => Err(format!(
            "strata mark: {} {why}: markers are not taken there (remove it, or set STRATA_MARK_DIR to a directory of yours with mode 0700)",
            dir.display()
        )),
    }
}

/// A listening socket for this strata; removed when dropped.
pub struct MarkSocket {
    path: PathBuf,
    listener: UnixListener,
}

impl Drop for MarkSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl MarkSocket {
    pub fn bind() -> Result<MarkSocket, String> {
        use std::os::unix::fs::PermissionsExt;
        let dir = socket_dir();
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("strata mark: cannot create {}: {e}", dir.display())),
        }
        check_private(&dir)?;
        let path = dir.join(format!("strata-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path)
            .map_err(|e| format!("strata mark: cannot listen on {}: {e}", path.display()))?;
        // The directory already keeps others out; the socket says so too.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("strata mark: {}: {e}", path.display()))?;
        Ok(MarkSocket { path, listener })
    }

    /// Takes one connection: its label goes to `tx`, and the sender hears
    /// `ok` once the loop has it.
    pub async fn accept(&self, tx: mpsc::Sender<String>) {
        let Ok((stream, _)) = self.listener.accept().await else {
            return;
        };
        tokio::spawn(async move {
            let (read, mut write) = stream.into_split();
            let mut line = String::new();
            let mut reader = tokio::io::BufReader::new(read).take(4096);
            let read = tokio::time::timeout(Duration::from_secs(2), reader.read_line(&mut line));
            if !matches!(read.await, Ok(Ok(_))) {
                return;
            }
            let label = clean_label(&line);
            if label.is_empty() {
                let _ = write.write_all(b"error: empty label\n").await;
                return;
            }
            if tx.send(label).await.is_ok() {
                let _ = write.write_all(b"ok\n").await;
            }
        });
    }
}

/// One line of printable text, at most [`MAX_LABEL`] characters: what
/// would act on the terminal is left out (a U+202E would turn the marker
/// list's columns around).
pub fn clean_label(line: &str) -> String {
    line.trim()
        .chars()
        .filter(|&c| !crate::core::text::is_unsafe(c))
        .take(MAX_LABEL)
        .collect()
}

/// Sends `label` to every strata of this user; the exit code: 0 when at
/// least one took it.
pub fn send(label: &str) -> i32 {
    let label = clean_label(label);
    if label.is_empty() {
        eprintln!("strata mark: the label is empty");
        return 2;
    }
    let dir = socket_dir();
    if std::fs::symlink_metadata(&dir).is_ok()
        && let Err(e) = check_private(&dir)
    {
        eprintln!("{e}");
        return 1;
    }
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("strata mark: no running strata ({}: {e})", dir.display());
            return 1;
        }
    };
    let mut taken = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "sock") {
            continue;
        }
        match deliver(&path, &label) {
            Ok(()) => taken += 1,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                // Left by a strata that was killed.
                let _ = std::fs::remove_file(&path);
            }
            Err(e) => eprintln!("strata mark: {}: {e}", path.display()),
        }
    }
    if taken == 0 {
        eprintln!("strata mark: no running strata took the marker");
        return 1;
    }
    println!("marker {label:?} added to {taken} strata");
    0
}

fn deliver(path: &Path, label: &str) -> std::io::Result<()> {
    let mut s = UnixStream::connect(path)?;
    s.set_read_timeout(Some(Duration::from_secs(3)))?;
    s.set_write_timeout(Some(Duration::from_secs(3)))?;
    s.write_all(format!("{label}\n").as_bytes())?;
    let mut reply = String::new();
    BufReader::new(s).take(256).read_line(&mut reply)?;
    if reply.trim() == "ok" {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "strata answered {:?}",
            reply.trim()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_keeps_no_escape_and_no_bidi_override() {
        assert_eq!(
            clean_label(" load\u{202e}ing\u{1b}[2J 2 \n"),
            "loading[2J 2"
        );
        assert_eq!(clean_label("a\u{2066}b\u{200f}c\u{9b}"), "abc");
    }
}

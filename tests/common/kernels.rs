//! The old kernels' fixture trees (tests/fixtures/kernels: Red Hat 3.10,
//! UEK5 4.14, UEK6 5.4, UEK7 5.15) as two states a test can sample: the
//! tree as it is, then 10,000 s later with every counter doubled, so that
//! each rate over the interval is the tree's own counter over 10,000 s and
//! can be worked out by hand from the fixture. (The trees' counters are
//! since boot, 20 days: over a shorter interval their busy times would be
//! over 100 % and unknown.)

use std::path::{Path, PathBuf};

/// The trees, oldest kernel first.
pub const KERNELS: [&str; 4] = ["rh7-3.10", "uek5-4.14", "uek6-5.4", "uek7-5.15"];

/// The interval between the two states, in seconds.
pub const SECONDS: u64 = 10_000;

pub fn kernel_tree(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/kernels")
        .join(name)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read fixture dir") {
        let e = e.expect("entry");
        let dest = to.join(e.file_name());
        let kind = e.file_type().expect("type");
        if kind.is_symlink() {
            // sysfs links are read as links; their targets are not in the tree
            let target = std::fs::read_link(e.path()).expect("readlink");
            std::os::unix::fs::symlink(target, &dest).expect("symlink");
        } else if kind.is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).expect("copy");
        }
    }
}

/// A copy of tree `name` in a temp dir, in its first state.
pub fn copy_kernel(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(&kernel_tree(name), dir.path());
    // Processes are not in the captured trees: the same made-up ones on
    // each, whose files have not changed format since 2.6.20.
    super::layers::write_procs(dir.path(), 0);
    dir
}

/// Every whitespace-separated word from the `skip`-th on doubled where it
/// is a number; the words joined by single spaces, after the line's first
/// `keep` characters and a space.
fn doubled(line: &str, keep: usize, skip: usize) -> String {
    let (head, rest) = line.split_at(keep.min(line.len()));
    let words: Vec<String> = rest
        .split_whitespace()
        .enumerate()
        .map(|(i, w)| match w.parse::<u64>() {
            Ok(n) if i >= skip => (n * 2).to_string(),
            _ => w.to_string(),
        })
        .collect();
    let sep = if head.is_empty() { "" } else { " " };
    format!("{head}{sep}{}", words.join(" "))
}

fn rewrite(root: &Path, rel: &str, f: impl Fn(&str) -> String) {
    let path = root.join(rel);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let out: Vec<String> = text.lines().map(&f).collect();
    std::fs::write(&path, out.join("\n") + "\n").expect("write");
}

/// Moves the copy at `root` to its second state: /proc/uptime 10,000 s on,
/// and the counters of diskstats, net/dev, stat's cpu lines, vmstat,
/// pressure's totals and mountstats' events, bytes, transport (not its
/// port) and per-op lines doubled (meminfo, the bonds and sysfs stay).
pub fn advance(root: &Path) {
    super::layers::write_procs(root, 1);
    rewrite(root, "proc/uptime", |l| {
        let mut w = l.split_whitespace();
        let up: f64 = w.next().and_then(|v| v.parse().ok()).expect("uptime");
        format!("{:.2} {}", up + SECONDS as f64, w.next().unwrap_or("0.00"))
    });
    // major minor name, then counters
    rewrite(root, "proc/diskstats", |l| doubled(l, 0, 3));
    rewrite(root, "proc/net/dev", |l| match l.find(':') {
        Some(at) if !l.contains('|') => doubled(l, at + 1, 0),
        _ => l.to_string(),
    });
    rewrite(root, "proc/stat", |l| {
        if l.starts_with("cpu") {
            doubled(l, 0, 1)
        } else {
            l.to_string()
        }
    });
    rewrite(root, "proc/vmstat", |l| doubled(l, 0, 1));
    for r in ["cpu", "io", "memory"] {
        rewrite(root, &format!("proc/pressure/{r}"), |l| {
            match l.find("total=") {
                Some(at) => {
                    let total: u64 = l[at + 6..].trim().parse().expect("total");
                    format!("{}total={}", &l[..at], total * 2)
                }
                None => l.to_string(),
            }
        });
    }
    rewrite(root, "proc/self/mountstats", |l| {
        let t = l.trim_start();
        if t.starts_with("per-op statistics") {
            return l.to_string();
        }
        if t.starts_with("xprt:") {
            // the protocol and the local port, then counters
            return l
                .find(':')
                .map_or(l.to_string(), |at| doubled(l, at + 1, 2));
        }
        let counters = t.starts_with("events:") || t.starts_with("bytes:");
        // a per-op line: an op name in capitals, a colon, numbers
        let op = t.split_once(':').is_some_and(|(name, rest)| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                && rest.split_whitespace().all(|w| w.parse::<u64>().is_ok())
        });
        match l.find(':') {
            Some(at) if counters || op => doubled(l, at + 1, 0),
            _ => l.to_string(),
        }
    });
}

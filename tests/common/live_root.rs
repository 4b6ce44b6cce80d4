//! A copy of the fixture host whose counters a test thread advances every
//! 250 ms, for the real binary to sample live (`--root`).

use super::layers;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

/// A copy of the fixture host in a temp dir, with its /proc files advanced
/// by a thread until dropped.
pub struct LiveRoot {
    dir: tempfile::TempDir,
    stop: Arc<AtomicBool>,
    writer: Option<thread::JoinHandle<()>>,
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read fixture dir") {
        let e = e.expect("entry");
        let dest = to.join(e.file_name());
        let kind = e.file_type().expect("type");
        if kind.is_symlink() {
            // sysfs links (master, device/driver) are read as links, and
            // their targets are not in the tree
            let target = std::fs::read_link(e.path()).expect("readlink");
            std::os::unix::fs::symlink(target, &dest).expect("symlink");
        } else if kind.is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).expect("copy");
        }
    }
}

fn write_atomic(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).expect("write");
    std::fs::rename(&tmp, path).expect("rename");
}

impl LiveRoot {
    pub fn start() -> LiveRoot {
        let dir = tempfile::tempdir().expect("tempdir");
        copy_tree(&super::fixture_root(), dir.path());
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("proc/self")).expect("mkdir proc/self");
        std::fs::create_dir_all(root.join("proc/net/bonding")).expect("mkdir proc/net/bonding");
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let writer = thread::spawn(move || {
            // bounded: at most 10 minutes of quarter seconds
            for k in 0..2400u64 {
                if flag.load(Ordering::Relaxed) {
                    break;
                }
                write_atomic(&root.join("proc/diskstats"), &super::diskstats_text(k));
                write_atomic(&root.join("proc/meminfo"), &layers::meminfo_text(k));
                write_atomic(&root.join("proc/vmstat"), &layers::vmstat_text(k));
                write_atomic(
                    &root.join("proc/self/mountstats"),
                    &layers::mountstats_text(k),
                );
                write_atomic(&root.join("proc/net/dev"), &layers::netdev_text(k));
                write_atomic(
                    &root.join("proc/net/bonding/bond0"),
                    &layers::bonding_text(1),
                );
                // the generators move their counters by one second's
                // worth per step: the source clock says so, and runs four
                // times faster than the wall clock
                write_atomic(
                    &root.join("proc/uptime"),
                    &format!("{}.00 0.00\n", 1000 + k),
                );
                thread::sleep(Duration::from_millis(250));
            }
        });
        // let the first files exist before strata starts
        thread::sleep(Duration::from_millis(300));
        LiveRoot {
            dir,
            stop,
            writer: Some(writer),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for LiveRoot {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

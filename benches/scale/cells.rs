//! Synthetic storage cells: a real sshd each whose ForceCommand runs
//! strata's cell sampler with `/proc/diskstats` and `/sys/block` moved
//! into a tree of 12 hard disks and 16 NVMe flash devices, rewritten by a
//! thread every 50 ms with counters that grow at fixed rates.

use crate::sshd::{Keys, Sshd};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use strata::link::HostTarget;
use strata::link::target::parse_ssh_spec;

pub const HARD_DISKS: usize = 12;
pub const FLASH: usize = 16;

/// `n` cells on 127.0.2.1.., their trees under the keys' directory, and
/// the thread that rewrites them until `stop`.
pub fn start(keys: &Keys, n: usize, stop: &Arc<AtomicBool>) -> (Vec<Sshd>, JoinHandle<()>) {
    let trees: Vec<PathBuf> = (0..n).map(|i| keys.path(&format!("cell{i:02}"))).collect();
    for t in &trees {
        make_block_tree(t);
    }
    let generator = {
        let trees = trees.clone();
        let stop = Arc::clone(stop);
        std::thread::spawn(move || generate(&trees, &stop))
    };
    // The first diskstats exist before any sampler looks.
    std::thread::sleep(Duration::from_millis(120));
    let sshds = trees
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let wrapper = force_command(keys, i, t);
            let ip = format!("127.0.2.{}", i + 1);
            Sshd::start(keys, &ip, &session_config(&wrapper))
        })
        .collect();
    (sshds, generator)
}

/// sshd config lines: `command` for every session, run with HOME in the
/// keys' directory, so that the login shell (root's bash, which reads
/// ~/.bashrc when sshd starts it) runs none of this machine's start-up
/// files: a pyenv init there took seconds of CPU per login and, with 88
/// hosts connecting, starved strata itself.
pub fn session_config(command: &Path) -> String {
    let home = command.parent().unwrap_or(Path::new("/nonexistent"));
    format!(
        "ForceCommand {}\nSetEnv HOME={}\n",
        command.display(),
        home.display()
    )
}

pub fn spec(keys: &Keys, s: &Sshd) -> String {
    format!("{}@{}:{}", keys.user, s.ip, s.port)
}

/// The hosts as strata's SSH tasks take them, logged in with the keys'
/// client key.
pub fn targets(keys: &Keys, sshds: &[Sshd]) -> Vec<HostTarget> {
    sshds
        .iter()
        .map(|s| {
            let mut t = parse_ssh_spec(&spec(keys, s), "root").expect("spec");
            t.identity = Some(keys.client_key.clone());
            t
        })
        .collect()
}

/// The cell's ForceCommand: strata's sampler command with the two paths
/// moved into the cell's tree; any other command (cellcli's probe) as is.
fn force_command(keys: &Keys, i: usize, tree: &Path) -> PathBuf {
    let t = tree.display();
    wrapper(
        keys,
        &format!("cell{i:02}.sh"),
        &format!("-e 's#/proc/diskstats#{t}/diskstats#g' -e 's#/sys/block#{t}/block#g'"),
    )
}

/// An executable ForceCommand that runs the client's command through
/// `sed SED_ARGS`.
pub fn wrapper(keys: &Keys, name: &str, sed_args: &str) -> PathBuf {
    let path = keys.path(name);
    let text = format!(
        "#!/bin/sh\n\
         c=$(printf '%s' \"$SSH_ORIGINAL_COMMAND\" | sed {sed_args})\n\
         exec sh -c \"$c\"\n"
    );
    fs::write(&path, text).expect("write wrapper");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod wrapper");
    path
}

fn disk_name(j: usize) -> String {
    if j < HARD_DISKS {
        format!("sd{}", (b'a' + j as u8) as char)
    } else {
        format!("nvme{}n1", j - HARD_DISKS)
    }
}

fn make_block_tree(tree: &Path) {
    for j in 0..HARD_DISKS + FLASH {
        let d = tree.join("block").join(disk_name(j));
        fs::create_dir_all(d.join("queue")).expect("queue dir");
        fs::create_dir_all(d.join("device")).expect("device dir");
        let (rot, size, model) = if j < HARD_DISKS {
            ("1", 27_344_764_928u64, "HGST H7280A520SUN8.0T")
        } else {
            ("0", 12_502_446_768u64, "7335940:ICDPC2DD2ORA6.4T")
        };
        fs::write(d.join("queue/rotational"), format!("{rot}\n")).expect("rotational");
        fs::write(d.join("size"), format!("{size}\n")).expect("size");
        fs::write(d.join("device/model"), format!("{model}\n")).expect("model");
    }
}

/// /proc/diskstats (17 fields) of one cell `t` seconds in: every counter
/// grows at a fixed rate, different per cell and disk.
fn diskstats(cell: usize, t: f64) -> String {
    let mut s = String::new();
    for j in 0..HARD_DISKS + FLASH {
        let hard = j < HARD_DISKS;
        let (r, w, kb, ms, util) = if hard {
            (
                120.0 + 10.0 * j as f64 + 5.0 * cell as f64,
                60.0,
                8.0,
                6.0,
                0.45,
            )
        } else {
            (3000.0 + 100.0 * j as f64, 1500.0, 8.0, 0.3, 0.2)
        };
        let base = 1_000_000.0;
        let reads = (base + r * t) as u64;
        let writes = (base + w * t) as u64;
        let (major, minor) = if hard { (8, 16 * j) } else { (259, j) };
        let _ = writeln!(
            s,
            "{major:4} {minor:7} {} {reads} 0 {} {} {writes} 0 {} {} 0 {} {} 0 0 0 0 0 0",
            disk_name(j),
            reads * (kb as u64 * 2),
            (reads as f64 * ms) as u64,
            writes * (kb as u64 * 2),
            (writes as f64 * ms) as u64,
            (base + t * 1000.0 * util) as u64,
            ((reads + writes) as f64 * ms) as u64,
        );
    }
    s
}

/// Writes `text` to `path` by rename, so that a reader sees the old file
/// or the new one, never half of each.
pub fn replace(path: &Path, text: &str) {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".new");
    if fs::write(&tmp, text).is_ok() {
        let _ = fs::rename(&tmp, path);
    }
}

/// Rewrites every cell's diskstats each 50 ms.
fn generate(trees: &[PathBuf], stop: &AtomicBool) {
    let start = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let t = start.elapsed().as_secs_f64();
        for (i, tree) in trees.iter().enumerate() {
            replace(&tree.join("diskstats"), &diskstats(i, t));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

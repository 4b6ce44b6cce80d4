//! A database node's tree for the tests that run its sampler: a copy of
//! the fixture host whose counters move from state to state.
#![allow(clippy::unwrap_used)]

use std::path::Path;

/// The fixture host's counters at state `k`; each interval is a distinct
/// length (1.01 s from state 0 to 1, 1.02 s from 1 to 2, ...), so that a
/// report's interval_s says which interval it is.
///
/// Every file is written beside the tree first (a staging directory
/// outside every directory the sampler lists), then all are renamed into
/// place one after the other: no reader sees half a file, and the window
/// in which a reader could see files of two states is a few renames long.
/// A node's first sample is taken when it connects, which can fall on
/// x.55 s: it once did, in a run that was then off by a bond's figures
/// (its baseline had read the bonding file of the next state), when the
/// files were written and renamed one by one.
pub fn write_state(root: &Path, k: u64) {
    let cs = 100_000 + 100 * k + k * (k + 1) / 2;
    let files = [
        ("proc/diskstats", super::diskstats_text(k)),
        ("proc/meminfo", super::layers::meminfo_text(k)),
        ("proc/vmstat", super::layers::vmstat_text(k)),
        ("proc/self/mountstats", super::layers::mountstats_text(k)),
        ("proc/net/dev", super::layers::netdev_text(k)),
        ("proc/net/bonding/bond0", super::layers::bonding_text(k / 2)),
        ("proc/stat", super::layers::stat_text(k)),
        ("proc/loadavg", super::layers::loadavg_text(k)),
        ("proc/pressure/cpu", super::layers::pressure_text("cpu", k)),
        ("proc/pressure/io", super::layers::pressure_text("io", k)),
        (
            "proc/pressure/memory",
            super::layers::pressure_text("memory", k),
        ),
        (
            "proc/uptime",
            format!("{}.{:02} 0.00\n", cs / 100, cs % 100),
        ),
    ];
    let staged = |rel: &str| root.join(".staging").join(rel.replace('/', "_"));
    for (rel, text) in &files {
        std::fs::write(staged(rel), text).unwrap();
    }
    for (rel, _) in &files {
        std::fs::rename(staged(rel), root.join(rel)).unwrap();
    }
    super::layers::write_procs(root, k);
}

/// A kernel without PSI: the CPU layer's files of the fixture host at
/// state `k` as [`write_state`] writes them, /proc/stat, /proc/loadavg and
/// /proc/uptime, and no /proc/pressure (a tree made by [`tree`] whose
/// proc/pressure was removed). Staged and renamed, /proc/uptime last.
pub fn write_state_without_psi(root: &Path, k: u64) {
    let cs = 100_000 + 100 * k + k * (k + 1) / 2;
    let files = [
        ("proc/stat", super::layers::stat_text(k)),
        ("proc/loadavg", super::layers::loadavg_text(k)),
        (
            "proc/uptime",
            format!("{}.{:02} 0.00\n", cs / 100, cs % 100),
        ),
    ];
    for (rel, text) in &files {
        let staged = root.join(".staging").join(rel.replace('/', "_"));
        std::fs::write(&staged, text).unwrap();
        std::fs::rename(&staged, root.join(rel)).unwrap();
    }
}

/// A copy of the fixture host in a temp dir, at state 0.
pub fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", super::fixture_root().display()))
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    for d in ["proc/self", "proc/net/bonding", "proc/pressure", ".staging"] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
    }
    write_state(dir.path(), 0);
    dir
}

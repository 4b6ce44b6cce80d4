//! Names the commit a binary was built from, for `strata --version`.
//!
//! A build from a source tarball has no .git, and git may be missing or
//! refuse the tree (another owner): the commit is then "unknown" and the
//! build goes on. A packager building from a tarball can name the commit
//! with STRATA_BUILD_COMMIT (and STRATA_BUILD_DATE, YYYY-MM-DD).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=STRATA_BUILD_COMMIT");
    println!("cargo:rerun-if-env-changed=STRATA_BUILD_DATE");
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let from_git = git_commit(&dir);
    let commit = given("STRATA_BUILD_COMMIT")
        .or_else(|| from_git.as_ref().map(|c| c.0.clone()))
        .unwrap_or_else(|| "unknown".into());
    let date = given("STRATA_BUILD_DATE").or_else(|| from_git.map(|c| c.1));
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let long = match &date {
        Some(date) => format!("{version} (git {commit} {date})"),
        None => format!("{version} (git {commit})"),
    };
    println!("cargo:rustc-env=STRATA_LONG_VERSION={long}");
    // The man pages' date: the commit's, so a rebuild makes the same page.
    println!(
        "cargo:rustc-env=STRATA_COMMIT_DATE={}",
        date.unwrap_or_default()
    );
}

fn given(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The short hash and commit date (not the build's: two builds of one
/// commit say the same) of HEAD, when the manifest's directory is the top
/// of a git work tree. A tarball unpacked inside some other repository (or
/// `cargo package`'s copy under target/) must not take that one's commit.
fn git_commit(dir: &Path) -> Option<(String, String)> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    if std::fs::canonicalize(&top).ok()? != std::fs::canonicalize(dir).ok()? {
        return None;
    }
    watch_head(dir);
    let out = git(dir, &["log", "-1", "--format=%h %cs", "--abbrev=7"])?;
    let (hash, date) = out.split_once(' ')?;
    Some((hash.to_string(), date.to_string()))
}

/// Reruns this script when HEAD moves: HEAD itself (a checkout), the
/// branch it names (a commit), packed-refs (where a branch may live
/// without a file of its own) and HEAD's reflog, which every move appends
/// to (a commit on a branch that lived only in packed-refs writes a file
/// not watched before). Only files that exist: Cargo reruns a
/// script on every build while a file it watches is missing. A work tree
/// made by `git worktree add` keeps HEAD in its own git dir and the
/// branches in the common one, hence the two.
fn watch_head(dir: &Path) {
    let abs = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() { p } else { dir.join(p) }
    };
    let Some(git_dir) = git(dir, &["rev-parse", "--git-dir"]).map(abs) else {
        return;
    };
    let common = git(dir, &["rev-parse", "--git-common-dir"])
        .map(abs)
        .unwrap_or_else(|| git_dir.clone());
    let mut files = vec![
        git_dir.join("HEAD"),
        git_dir.join("logs").join("HEAD"),
        common.join("packed-refs"),
    ];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        files.push(common.join(branch));
    }
    for f in files.iter().filter(|f| f.is_file()) {
        println!("cargo:rerun-if-changed={}", f.display());
    }
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

//! The real binary in tmux, driven by keys as a person would, over a fixture
//! host whose counters a test thread advances every 250 ms.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::live_root::LiveRoot;
use common::tmux::{Tmux, have_tmux, skip};

use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::Duration;

fn strata_cmd(root: &Path, extra: &str) -> String {
    format!(
        "{} --root {} --interval 0.5 {extra}",
        env!("CARGO_BIN_EXE_strata"),
        root.display()
    )
}

#[test]
fn drill_sort_filter_pause_help_theme_quit() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let root = LiveRoot::start();
    let t = Tmux::start("keys", 160, 48);
    t.type_line(&strata_cmd(&root.path(), "--theme dark"));
    let s = t.wait_for("overview with figures", |s| {
        s.contains("busiest devices") && s.contains("mpatha")
    });
    assert!(s.contains("db01") && s.contains("LIVE"));
    assert!(s.contains("no databases · --db"), "{s}");

    t.keys(&["2"]);
    t.wait_text("Disks · ");
    t.keys(&["s"]);
    t.wait_text("sort Device ↑");
    t.keys(&["/", "s", "d"]);
    t.wait_text("filter: sd");
    t.keys(&["Enter"]);
    let s = t.wait_text("filter \"sd\"");
    assert!(!s.contains("nvme0n1 "), "filter left nvme0n1 in:\n{s}");

    // sorted by name, sda is the first row: down into it, then its partition
    t.keys(&["Enter"]);
    let s = t.wait_text("Disks › sda");
    assert!(s.contains("IOPS") && s.contains("partitions · Enter to open"));
    t.keys(&["Enter"]);
    t.wait_text("Disks › sda › sda1");
    t.keys(&["Escape"]);
    t.wait_for("back at sda", |s| {
        s.contains("Disks › sda") && !s.contains("sda › sda1")
    });
    t.keys(&["Escape"]);
    t.wait_for("back at the table", |s| {
        s.contains("│ Disks") && !s.contains("Disks ›")
    });

    // the host's other layers, and a drill-down into an NFS mount
    t.keys(&["3"]);
    let s = t.wait_text("Cached-Shmem");
    assert!(s.contains("no files watched"), "{s}");
    t.keys(&["4"]);
    t.wait_text("filer01:/vol/arch");
    t.keys(&["g", "Enter"]);
    let s = t.wait_text("operations · READ and WRITE");
    assert!(s.contains("NFS › filer01:/vol/arch"), "{s}");
    t.keys(&["Escape"]);
    t.wait_for("back at the NFS table", |s| {
        s.contains("│ NFS") && !s.contains("NFS ›")
    });

    // the wire: the bond's warning, then down into its slaves and back
    t.keys(&["5"]);
    let s = t.wait_text("NICs · ");
    assert!(s.contains("ens3f0") && s.contains("physical"), "{s}");
    assert!(
        s.contains("! bond0: active slave eth1 is not the primary eth0"),
        "{s}"
    );
    t.keys(&["/", "b", "o", "n", "d", "Enter", "S"]);
    t.wait_text("sort Int ↑");
    t.keys(&["Enter"]);
    let s = t.wait_text("NICs › bond0");
    assert!(s.contains("primary eth0 · active eth1"), "{s}");
    assert!(s.contains("Slave  Active MII"), "{s}");
    // the slave table is in name order: eth0 first
    t.keys(&["Enter"]);
    let s = t.wait_text("NICs › bond0 › eth0");
    assert!(s.contains("master") && s.contains("bond0"), "{s}");
    t.keys(&["Escape"]);
    t.wait_for("back at bond0", |s| {
        s.contains("NICs › bond0") && !s.contains("bond0 › eth0")
    });
    t.keys(&["Escape"]);
    t.wait_for("back at the NICs table", |s| {
        s.contains("│ NICs") && !s.contains("NICs ›")
    });
    t.keys(&["2"]);
    t.wait_text("Disks · ");

    t.keys(&["p"]);
    let paused = t.wait_text("PAUSED");
    thread::sleep(Duration::from_millis(1200));
    let still = t.screen(false);
    let table = |s: &str| s.lines().skip(2).take(10).collect::<Vec<_>>().join("\n");
    assert_eq!(table(&paused), table(&still), "figures moved while paused");
    t.keys(&["p"]);
    t.wait_text("LIVE");

    t.keys(&["?"]);
    let s = t.wait_text(" Keys ");
    assert!(s.contains("pause the view"));
    t.keys(&["x"]);
    t.wait_for("help closed", |s| !s.contains(" Keys "));

    let before = t.screen(true);
    t.keys(&["c"]);
    thread::sleep(Duration::from_millis(300));
    let after = t.screen(true);
    assert_ne!(before, after, "theme key changed no colour");
    assert!(
        !after.contains("replay"),
        "c is the theme key, not a replay key"
    );

    t.keys(&["q"]);
    t.assert_shell_usable();
}

#[test]
fn signals_and_panic_restore_the_terminal() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let root = LiveRoot::start();
    let t = Tmux::start("signals", 120, 40);
    for sig in ["TERM", "INT", "HUP"] {
        t.type_line(&strata_cmd(&root.path(), ""));
        t.wait_text("busiest devices");
        let shell = t.pane_pid().expect("pane pid");
        // strata is the shell's child
        let out = Command::new("pgrep")
            .args(["-P", &shell.to_string()])
            .output()
            .expect("pgrep");
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(!pid.is_empty(), "no strata process under the shell");
        let sent = Command::new("kill")
            .args([&format!("-{sig}"), &pid])
            .status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -{sig}");
        t.assert_shell_usable();
    }

    t.type_line(&format!(
        "RUST_BACKTRACE=0 STRATA_TEST_PANIC_AFTER_MS=1500 {}",
        strata_cmd(&root.path(), "")
    ));
    let s = t.wait_text("STRATA_TEST_PANIC_AFTER_MS reached");
    assert!(
        !s.contains("busiest devices"),
        "the screen was not left after the panic:\n{s}"
    );
    t.assert_shell_usable();
}

#[test]
fn too_small_terminal_says_so() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let root = LiveRoot::start();
    let t = Tmux::start("small", 40, 10);
    t.type_line(&strata_cmd(&root.path(), ""));
    t.wait_text("terminal too small: 40×10");
    t.keys(&["q"]);
    t.assert_shell_usable();
}

/// The fixture host's screens in docs/screens.md, as a user sees them: run with
/// `cargo test --test e2e_tmux readme_screens -- --ignored --nocapture`
/// and paste what it prints.
#[test]
#[ignore = "prints docs/screens.md's screens; not a check"]
fn readme_screens() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let root = LiveRoot::start();
    let t = Tmux::start("readme", 132, 30);
    t.type_line(&format!("clear; {}", strata_cmd(&root.path(), "")));
    t.wait_text("busiest devices");
    for (key, wait) in [("2", "Disks · "), ("5", "NICs · ")] {
        t.keys(&[key]);
        t.wait_text(wait);
        // a few samples into the history
        thread::sleep(Duration::from_secs(3));
        println!("{}", t.screen(false).trim_end());
    }
    t.keys(&["/", "b", "o", "n", "d", "Enter", "S", "Enter"]);
    t.wait_text("NICs › bond0");
    thread::sleep(Duration::from_secs(2));
    println!("{}", t.screen(false).trim_end());
    t.keys(&["q"]);
}

/// The commands the README shows, in its code blocks and in its text: how
/// one is run here, and what says it worked.
enum Run {
    /// A screen: what it shows once it runs; `q` then ends it.
    Screen(&'static str),
    /// Without a screen: it must exit 0.
    Exits,
    /// `strata check` of a node no one answers for: its lines, and exit 1.
    Check,
}

/// What the README's `strata` commands become here: the duration or
/// count made short; `strata mark` needs a strata that records.
fn shortened(line: &str) -> String {
    let line = line
        .replace("--count 10", "--count 2")
        .replace("--duration 8h", "--duration 3s");
    // `serve` runs until stopped: a short run that must serve and end.
    if line.contains("strata serve") && !line.contains("--duration") {
        return format!("{line} --duration 2s");
    }
    line
}

fn how(line: &str) -> Run {
    let words: Vec<&str> = line
        .split_whitespace()
        .skip_while(|w| w.contains('='))
        .collect();
    match words.get(1).copied() {
        Some("batch" | "record" | "export" | "summary" | "serve") => Run::Exits,
        Some("replay") => Run::Screen("REPLAY"),
        Some("check") => Run::Check,
        // The tab bar: the typed command line holds no such word.
        _ => Run::Screen("Overview"),
    }
}

/// Every `strata` command of the README's `sh` blocks, and every whole
/// one its text quotes. Placeholders (PANEL, …) and bare command names
/// are not commands.
fn readme_commands() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut commands: Vec<String> = Vec::new();
    let mut in_sh = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        let code = line.split("  #").next().unwrap_or("").trim();
        if in_sh && (code.starts_with("strata") || code.contains("... strata")) {
            commands.push(code.to_string());
        }
    }
    // The text outside the code blocks, whose quotes may break a line.
    let text: String = readme.split("```").step_by(2).collect::<Vec<_>>().join(" ");
    for quoted in text.split('`').skip(1).step_by(2) {
        let quoted = quoted.split_whitespace().collect::<Vec<_>>().join(" ");
        let whole = quoted.starts_with("strata ")
            && quoted.split_whitespace().count() > 2
            && !quoted.contains('…')
            && !quoted.contains("PANEL");
        if whole && !commands.contains(&quoted) {
            commands.push(quoted);
        }
    }
    commands
}

/// A directory as the README's reader has it: `strata` on the PATH, the
/// demo, the group files the tour names (nodes and a cell no one answers
/// for), a HOME of its own and a place for `strata mark`; and the shell
/// line that enters it.
fn readme_place() -> (tempfile::TempDir, String) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p);
    for d in ["bin", "home", "marks"] {
        std::fs::create_dir_all(at(d)).unwrap();
    }
    std::fs::set_permissions(at("marks"), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_strata"), at("bin/strata")).unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    std::os::unix::fs::symlink(&assets, at("assets")).unwrap();
    std::fs::write(at("dbs.txt"), "db01\ndb02\n").unwrap();
    std::fs::write(at("cells.txt"), "cel01\n").unwrap();
    let env = format!(
        "cd {} && export PATH={}:$PATH HOME={} STRATA_MARK_DIR={} && unset XDG_CONFIG_HOME SSH_AUTH_SOCK",
        dir.path().display(),
        at("bin").display(),
        at("home").display(),
        at("marks").display()
    );
    (dir, env)
}

fn exits_0(env: &str, line: &str) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{env} && {line}"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{line}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The README's `strata check --node db01`: db01 is no host here, so its
/// ssh line fails and so does the check, with this host's lines before.
fn check_fails_on_db01(env: &str, line: &str) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{env} && {line}"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{line}: {text}");
    assert!(text.starts_with("this host  kernel "), "{line}: {text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("db01 ") && l.contains(" ssh ") && l.contains(" FAIL ")),
        "{line}: {text}"
    );
}

/// The README's commands run as written, with a short count or
/// duration: a screen comes up and `q` ends it with status 0, or the
/// command exits 0; `strata mark` marks the recording `--record` makes.
#[test]
fn the_readmes_commands_run_as_written() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let commands = readme_commands();
    assert!(commands.len() >= 10, "{commands:?}");
    let (dir, env) = readme_place();
    let (marks, rest): (Vec<String>, Vec<String>) = commands
        .into_iter()
        .partition(|c| c.starts_with("strata mark"));
    for command in &rest {
        let line = shortened(command);
        // Each command that records is run as if alone: the one before
        // made run.strec, which strata never overwrites.
        if line.contains("record") {
            let _ = std::fs::remove_file(dir.path().join("run.strec"));
        }
        match how(&line) {
            Run::Exits => exits_0(&env, &line),
            Run::Check => check_fails_on_db01(&env, &line),
            Run::Screen(shows) => {
                let t = Tmux::start("readme", 120, 40);
                t.type_line(&format!("{env} && {line}; echo EXIT=$?"));
                let screen = t.wait_text(shows);
                if line.contains("--record") {
                    marks.iter().for_each(|m| exits_0(&env, m));
                }
                t.keys(&["q"]);
                let end = t.wait_text("EXIT=");
                assert!(end.contains("EXIT=0"), "{line}:\n{screen}\n{end}");
            }
        }
        println!("README: {line}: ran");
    }
    assert!(dir.path().join("run.strec").exists());
}

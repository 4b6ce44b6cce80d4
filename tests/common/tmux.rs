//! The real binary in tmux, driven by keys as a person would: a session
//! per test, screens read with capture-pane, every wait bounded.

use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

pub fn have_tmux() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Skips (with a reason on stderr) unless the environment demands the test.
pub fn skip(reason: &str) {
    if std::env::var("STRATA_REQUIRE_E2E").is_ok_and(|v| v == "1") {
        panic!("end-to-end test required but: {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

pub struct Tmux {
    pub session: String,
}

impl Tmux {
    pub fn start(name: &str, width: u16, height: u16) -> Tmux {
        let session = format!("strata-e2e-{name}-{}", std::process::id());
        // A session killed just before may have been the server's last: a
        // new-session that meets the server on its way out fails ("server
        // exited unexpectedly"), and the next one starts a fresh server.
        let mut last = None;
        for _ in 0..5 {
            let out = Command::new("tmux")
                .args([
                    "new-session",
                    "-d",
                    "-s",
                    &session,
                    "-x",
                    &width.to_string(),
                    "-y",
                    &height.to_string(),
                ])
                .args([
                    "env",
                    "PS1=$ ",
                    "TERM=xterm-256color",
                    "bash",
                    "--norc",
                    "--noprofile",
                ])
                .output()
                .expect("tmux runs");
            if out.status.success() {
                return Tmux { session };
            }
            last = Some(String::from_utf8_lossy(&out.stderr).into_owned());
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        panic!("tmux new-session failed: {}", last.unwrap_or_default());
    }

    /// The window resized, as a user drags a terminal's corner.
    pub fn resize(&self, width: u16, height: u16) {
        let ok = Command::new("tmux")
            .args(["resize-window", "-t", &self.session])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "tmux resize-window failed");
    }

    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            let ok = Command::new("tmux")
                .args(["send-keys", "-t", &self.session, k])
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "send-keys {k}");
            thread::sleep(Duration::from_millis(120));
        }
    }

    /// Types `text` as keys, literally (no key names), without Enter.
    pub fn type_text(&self, text: &str) {
        let ok = Command::new("tmux")
            .args(["send-keys", "-t", &self.session, "-l", text])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "send-keys -l");
    }

    pub fn type_line(&self, line: &str) {
        self.type_text(line);
        self.keys(&["Enter"]);
    }

    pub fn screen(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", &self.session];
        if escapes {
            args.push("-e");
        }
        let out = Command::new("tmux")
            .args(&args)
            .output()
            .expect("capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits up to 10 s for the screen to satisfy `pred`.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        self.wait_within(what, Duration::from_secs(10), pred)
    }

    /// Waits up to `within` for the screen to satisfy `pred`.
    pub fn wait_within(&self, what: &str, within: Duration, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + within;
        loop {
            let s = self.screen(false);
            if pred(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{s}"
            );
            thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn wait_text(&self, text: &str) -> String {
        self.wait_for(text, |s| s.contains(text))
    }

    pub fn pane_pid(&self) -> Option<u32> {
        let out = Command::new("tmux")
            .args(["list-panes", "-t", &self.session, "-F", "#{pane_pid}"])
            .output()
            .ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    }

    /// The shell is back, line-buffered and echoing: the terminal was restored.
    pub fn assert_shell_usable(&self) {
        // keys typed while strata is still exiting would go to strata, not
        // to the shell: wait (at most 10 s) until the shell has no child
        let deadline = Instant::now() + Duration::from_secs(10);
        let shell = self.pane_pid().expect("pane pid").to_string();
        while Command::new("pgrep")
            .args(["-P", &shell])
            .output()
            .is_ok_and(|o| !o.stdout.is_empty())
        {
            assert!(Instant::now() < deadline, "strata still runs 10 s on");
            thread::sleep(Duration::from_millis(50));
        }
        self.type_line("clear; stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo -e -icanon -e -echo | sort | tr '\\n' ' '; echo; echo ok-$((40+2))");
        let s = self.wait_text("ok-42");
        assert!(
            s.contains("echo icanon"),
            "terminal not restored (want icanon and echo):\n{s}"
        );
        assert!(!s.contains("\x1b[?1049h"));
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.session])
            .status();
    }
}

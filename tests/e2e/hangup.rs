//! The terminal taken away from a running strata: its tmux session killed
//! (the pty closed and SIGHUP sent) under the live screen, a replay and a
//! headless recording, and the pty closed with no signal at all under the
//! three modes. Every mode must be gone within a second, and a recording
//! must hold its samples to the last interval.

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::live_root::LiveRoot;
use common::tmux::{Tmux, have_tmux, skip};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use strata::app::Input;
use strata::recording::session::Player;

/// How long a mode may take to end once its terminal is gone.
const WITHIN: Duration = Duration::from_secs(1);
/// How long the test waits for it before calling it stuck.
const PATIENCE: Duration = Duration::from_secs(3);

fn strata() -> &'static str {
    env!("CARGO_BIN_EXE_strata")
}

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/demo.strec")
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
}

/// Whether `pid` still runs: a zombie waiting for its parent has ended.
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command's closing parenthesis.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| state != 'Z' && state != 'X'),
        Err(_) => false,
    }
}

/// How long `pid` took to end, polled for at most [`PATIENCE`]; `None` if
/// it still runs then (and it is killed, so no test leaves it behind).
fn time_to_end(pid: u32, since: Instant) -> Option<Duration> {
    while since.elapsed() < PATIENCE {
        if !running(pid) {
            return Some(since.elapsed());
        }
        thread::sleep(Duration::from_millis(10));
    }
    let _ = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status();
    None
}

/// The one child of the tmux pane's shell: strata, once it started.
fn strata_pid(t: &Tmux) -> u32 {
    let shell = t.pane_pid().expect("pane pid").to_string();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = Command::new("pgrep")
            .args(["-P", &shell])
            .output()
            .expect("pgrep");
        let pids = String::from_utf8_lossy(&out.stdout).to_string();
        if let Some(pid) = pids.lines().next().and_then(|p| p.trim().parse().ok()) {
            return pid;
        }
        assert!(Instant::now() < deadline, "no strata under the shell");
        thread::sleep(Duration::from_millis(50));
    }
}

fn kill_session(t: &Tmux) {
    let ok = Command::new("tmux")
        .args(["kill-session", "-t", &t.session])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "tmux kill-session");
}

/// Fails unless strata ended, and within [`WITHIN`].
fn check(what: &str, took: Option<Duration>) {
    let took = took.unwrap_or_else(|| panic!("{what}: still running {PATIENCE:?} after"));
    assert!(took <= WITHIN, "{what}: took {took:?} to end");
}

/// Kills the session strata runs in and says how long strata took to end.
fn hang_up(t: &Tmux, what: &str) -> Option<Duration> {
    let pid = strata_pid(t);
    assert!(running(pid), "{what}: strata ended before the hangup");
    let start = Instant::now();
    kill_session(t);
    let took = time_to_end(pid, start);
    println!("{what}: gone {took:?} after its tmux session was killed");
    took
}

#[test]
fn killed_session_ends_the_live_screen() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let root = LiveRoot::start();
    let marks = tempfile::tempdir().unwrap();
    let t = Tmux::start("hangup-live", 120, 40);
    t.type_line(&format!(
        "STRATA_MARK_DIR={} {} --root {} --interval 0.5",
        marks.path().display(),
        strata(),
        root.path().display()
    ));
    t.wait_text("LIVE");
    check("live", hang_up(&t, "live"));
}

#[test]
fn killed_session_ends_the_replay() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let t = Tmux::start("hangup-replay", 120, 40);
    t.type_line(&format!("{} replay {}", strata(), demo().display()));
    t.wait_text("REPLAY ⏸");
    let paused = hang_up(&t, "replay paused");

    // Playing, the replay has a clock of its own to stop too.
    let t = Tmux::start("hangup-playing", 120, 40);
    t.type_line(&format!("{} replay {}", strata(), demo().display()));
    t.wait_text("REPLAY ⏸");
    t.keys(&[" "]);
    t.wait_text("REPLAY ▶");
    let playing = hang_up(&t, "replay playing");
    check("replay paused", paused);
    check("replay playing", playing);
}

/// The time of a recording's newest disk sample, and its player.
/// A loop held by long work when its terminal goes, or SIGTERM comes: a
/// jump across a large replay holds it for seconds (here the debug
/// build's STRATA_TEST_HOLD_MS holds it at the first key). Before, the
/// keys' reader, on the loop's thread, then spun for ever on the dead
/// terminal (crossterm retries a 0-byte read), deaf to SIGTERM; and a
/// SIGTERM waited for the work to end.
#[test]
fn a_held_replay_ends_when_its_terminal_goes_or_at_sigterm() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let start = |name: &str| {
        let t = Tmux::start(name, 120, 40);
        t.type_line(&format!(
            "STRATA_TEST_HOLD_MS=4000 {} replay {}; echo EXIT=$?",
            strata(),
            demo().display()
        ));
        t.wait_text("REPLAY ⏸");
        t.keys(&[" "]);
        thread::sleep(Duration::from_millis(300));
        t
    };
    let t = start("hangup-held");
    let gone = hang_up(&t, "replay held");
    let t = start("sigterm-held");
    let pid = strata_pid(&t);
    let at = Instant::now();
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let ended = time_to_end(pid, at);
    println!("replay held: gone {ended:?} after SIGTERM");
    check("replay held, terminal gone", gone);
    check("replay held, SIGTERM", ended);
    // The terminal was given back: the shell runs the next command.
    t.wait_text("EXIT=143");
}

fn last_input_ms(path: &Path) -> (i64, Player) {
    let mut p = Player::open(path).expect("the recording opens");
    let mut last = p.start_ms;
    for _ in 0..1_000_000 {
        match p.next_input() {
            Some((t, Input::Disks(Ok(_)))) => last = t,
            Some((_, Input::Disks(Err(e)))) => panic!("the fixture's disks could not be read: {e}"),
            Some(_) => {}
            None => break,
        }
    }
    (last, p)
}

#[test]
fn killed_session_ends_a_recording_with_its_last_interval() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hangup.strec");
    let marks = dir.path().join("marks");
    let root = LiveRoot::start();
    let t = Tmux::start("hangup-record", 120, 40);
    t.type_line(&format!(
        "STRATA_MARK_DIR={} {} --root {} --interval 0.5 record {}",
        marks.display(),
        strata(),
        root.path().display(),
        file.display()
    ));
    let _ = strata_pid(&t);
    // A few intervals in, so there is something to lose.
    thread::sleep(Duration::from_millis(2300));
    let killed_at = now_ms();
    check("record", hang_up(&t, "record"));
    let (last, player) = last_input_ms(&file);
    let lost = killed_at - last;
    println!("record: killed at {killed_at}, last input {last}: {lost} ms lost");
    assert!(
        lost <= 500 + 250,
        "{lost} ms between the last input and the kill (interval 500 ms)"
    );
    assert!(
        player.end_ms - player.start_ms >= 1500,
        "{} ms recorded",
        player.end_ms - player.start_ms
    );
    assert!(
        !player.notices.iter().any(|n| n.contains("not close")),
        "a hangup closes the recording: {:?}",
        player.notices
    );
}

/// A pty this test holds the master of, read all along so strata never
/// blocks on a full terminal, until [`Pty::close`].
struct Pty {
    stop: Arc<AtomicBool>,
    seen: Arc<std::sync::Mutex<Vec<u8>>>,
    reader: Option<thread::JoinHandle<()>>,
    slave: OwnedFd,
}

impl Pty {
    fn open() -> Pty {
        let (mut master, mut slave) = (-1, -1);
        let size = libc::winsize {
            ws_row: 40,
            ws_col: 120,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: both fds are written by openpty; no name buffer and no
        // termios are passed (null is allowed for both).
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // strata must not inherit the master: the pty would outlive close.
        for fd in [master, slave] {
            // SAFETY: sets a flag on an fd openpty just returned.
            let rc = unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
            assert_eq!(rc, 0, "FD_CLOEXEC: {}", std::io::Error::last_os_error());
        }
        // SAFETY: openpty returned two fds that nothing else owns.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let reader = {
            let stop = Arc::clone(&stop);
            let seen = Arc::clone(&seen);
            thread::spawn(move || {
                let mut buf = [0u8; 4096];
                // bounded: a minute of 20 ms polls at most
                for _ in 0..3000 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let mut pfd = libc::pollfd {
                        fd: master.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    // SAFETY: one valid pollfd, for 20 ms.
                    let n = unsafe { libc::poll(&mut pfd, 1, 20) };
                    if n <= 0 || pfd.revents & libc::POLLIN == 0 {
                        continue;
                    }
                    // SAFETY: reads into a buffer of the length given.
                    let got = unsafe {
                        libc::read(master.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len())
                    };
                    if got <= 0 {
                        break;
                    }
                    if let Ok(mut s) = seen.lock() {
                        s.extend_from_slice(&buf[..got as usize]);
                    }
                }
                // Dropping the master here is what takes the terminal away.
                drop(master);
            })
        };
        Pty {
            stop,
            seen,
            reader: Some(reader),
            slave,
        }
    }

    /// strata on this pty as its terminal, in a session of its own with no
    /// controlling terminal: closing the pty sends it no signal.
    fn spawn(&self, args: &[&str], marks: &Path) -> std::process::Child {
        let io = || Stdio::from(self.slave.try_clone().expect("dup the pty"));
        let mut cmd = Command::new(strata());
        cmd.args(args)
            .env("TERM", "xterm-256color")
            .env("STRATA_MARK_DIR", marks)
            .stdin(io())
            .stdout(io())
            .stderr(io());
        // SAFETY: setsid is async-signal-safe, as pre_exec requires.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd.spawn().expect("spawn strata")
    }

    fn screen_has(&self, text: &str) -> bool {
        self.seen
            .lock()
            .map(|s| String::from_utf8_lossy(&s).contains(text))
            .unwrap_or(false)
    }

    fn wait_text(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.screen_has(text) {
            assert!(Instant::now() < deadline, "timed out waiting for {text}");
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Closes the master: the terminal is gone, without a signal.
    fn close(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

/// What strata shows before its pty is taken away.
enum Ready<'a> {
    Shows(&'a str),
    /// Headless: it runs for this long.
    After(Duration),
}

/// Runs strata on a pty, closes the pty once it is ready, and says how
/// long strata took to end, and when (ms since the epoch) the pty closed.
fn lose_the_pty(what: &str, args: &[&str], ready: Ready) -> (Option<Duration>, i64) {
    let marks = tempfile::tempdir().unwrap();
    let pty = Pty::open();
    let mut child = pty.spawn(args, marks.path());
    match ready {
        Ready::Shows(text) => {
            pty.wait_text(text);
            thread::sleep(Duration::from_millis(300));
        }
        Ready::After(d) => thread::sleep(d),
    }
    assert!(
        child.try_wait().ok().flatten().is_none(),
        "{what} ended early"
    );
    let start = Instant::now();
    let closed_at = now_ms();
    pty.close();
    let mut took = None;
    while start.elapsed() < PATIENCE {
        if let Ok(Some(status)) = child.try_wait() {
            took = Some(start.elapsed());
            // Ended as it quits, not by a panic or an abort.
            assert!(status.success(), "{what} ended with {status}");
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    if took.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    println!("{what}: gone {took:?} after its pty was closed");
    (took, closed_at)
}

#[test]
fn closed_pty_without_a_signal_ends_every_mode() {
    let host = LiveRoot::start();
    let root = host.path();
    let root = root.to_string_lossy();
    let demo = demo();
    let demo = demo.to_string_lossy();
    let live_args = ["--root", &root, "--interval", "0.5"];
    let (live, _) = lose_the_pty("live", &live_args, Ready::Shows("LIVE"));
    let (replay, _) = lose_the_pty("replay", &["replay", &demo], Ready::Shows("REPLAY"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pty.strec");
    let file_arg = file.to_string_lossy();
    let record_args = ["--root", &root, "--interval", "0.5", "record", &file_arg];
    let ready = Ready::After(Duration::from_millis(2300));
    let (record, closed_at) = lose_the_pty("record", &record_args, ready);
    check("live", live);
    check("replay", replay);
    check("record", record);
    let (last, player) = last_input_ms(&file);
    let lost = closed_at - last;
    println!("record: pty closed at {closed_at}, last input {last}: {lost} ms lost");
    assert!(lost <= 500 + 250, "{lost} ms lost (interval 500 ms)");
    assert!(
        !player.notices.iter().any(|n| n.contains("not close")),
        "a lost terminal closes the recording: {:?}",
        player.notices
    );
}

/// Out of file descriptors: 300 nodes that accept TCP and never speak
/// SSH under `ulimit -n 128`. Before, crossterm's reader, made after the
/// nodes took the descriptors, panicked ("reader source not set") and
/// strata exited 0; now it is made first, each node that could not get a
/// descriptor says so, and `q` ends the screen as usual.
#[test]
fn out_of_descriptors_each_node_says_so_and_q_quits() {
    if !have_tmux() {
        return skip("tmux is not installed");
    }
    // 300 loopback listeners that accept and hold every connection,
    // saying nothing.
    let listeners: Vec<std::net::TcpListener> = (0..300)
        .map(|i| {
            let l = std::net::TcpListener::bind(format!("127.0.{}.{}:0", 1 + i / 200, 1 + i % 200))
                .unwrap();
            l.set_nonblocking(true).unwrap();
            l
        })
        .collect();
    let lines: Vec<String> = listeners
        .iter()
        .map(|l| format!("u@{}\n", l.local_addr().unwrap()))
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    let acceptor = thread::spawn(move || {
        let mut held = Vec::new();
        let end = Instant::now() + Duration::from_secs(60);
        while !stopped.load(Ordering::Relaxed) && Instant::now() < end {
            let before = held.len();
            held.extend(listeners.iter().filter_map(|l| l.accept().ok()));
            if held.len() == before {
                thread::sleep(Duration::from_millis(5));
            }
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let group = dir.path().join("nodes.txt");
    std::fs::write(&group, lines.concat()).unwrap();
    let t = Tmux::start("fds", 120, 30);
    t.type_line(&format!(
        "bash -c 'ulimit -n 128; HOME={} {} --node-group {}; echo EXIT=$?'",
        dir.path().display(),
        strata(),
        group.display()
    ));
    let screen = t.wait_within("nodes out of descriptors", Duration::from_secs(20), |s| {
        s.contains("Too many open files") || s.contains("EXIT=")
    });
    t.keys(&["q"]);
    let end = t.wait_text("EXIT=");
    stop.store(true, Ordering::Relaxed);
    let _ = acceptor.join();
    assert!(!end.contains("panicked"), "{end}");
    assert!(end.contains("EXIT=0"), "{screen}\n{end}");
    assert!(screen.contains("Too many open files"), "{screen}");
}

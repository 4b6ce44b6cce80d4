//! `strata batch disks|nics|nfs|cache|cpu --node …`: the real binary against
//! real OpenSSH sshd processes on loopback acting as database nodes (the
//! harness is tests/sshd/mod.rs).
//!
//! - A node whose sshd ForceCommand points the sampler at a fixture tree
//!   (`R=;` becomes `R=<tree>;`) reports, interval by interval, byte for
//!   byte what `--root <tree>` reports (tests/remote/node_sampler.rs proves the
//!   same without SSH).
//! - A node left as it is samples this machine: the same devices and
//!   interfaces, and the same figures under load, as the local run.
//! - A node killed, restarted, frozen and thawed: named on stderr within
//!   its stall, back by itself, and the other nodes keep their cadence.
//! - No sampler outlives strata on any node.
//!
//! Without /usr/sbin/sshd the tests print SKIPPED, unless
//! STRATA_REQUIRE_SSHD=1. The tests take a lock: they time the wall clock
//! and load the machine, so they run one at a time.

#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use crate::peer_tools;
use crate::sshd;
use common::node_tree::{tree, write_state, write_state_without_psi};

use serde_json::Value;
use sshd::{Keys, Sshd, available, known_hosts, nonce, pgrep};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const STRATA: &str = env!("CARGO_BIN_EXE_strata");

/// One test at a time: they wait for the wall clock and load the disk.
static SERIAL: Mutex<()> = Mutex::new(());

pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------- running

/// `strata batch ARGS` with the nodes in `nodes` (none: a local run), in
/// a HOME of the test's own, without ssh-agent, with the test's sampler
/// tag.
pub(crate) fn strata(keys: &Keys, kh: &Path, nodes: &[&Sshd], tag: &str, args: &[&str]) -> Child {
    let mut cmd = Command::new(STRATA);
    cmd.arg("batch").args(args);
    if !nodes.is_empty() {
        cmd.arg("--known-hosts")
            .arg(kh)
            .arg("--node-identity")
            .arg(&keys.client_key);
    }
    for s in nodes {
        cmd.arg("--node").arg(spec(keys, s));
    }
    cmd.env("HOME", keys.dir.path())
        .env_remove("SSH_AUTH_SOCK")
        .env_remove("XDG_CONFIG_HOME")
        .env("STRATA_TEST_SAMPLER_TAG", tag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run strata")
}

fn spec(keys: &Keys, s: &Sshd) -> String {
    format!("{}@{}:{}", keys.user, s.ip, s.port)
}

/// The node's label as strata prints it (not port 22: host:port).
pub(crate) fn label(s: &Sshd) -> String {
    format!("{}:{}", s.ip, s.port)
}

/// A line a run printed: when it came, whether on stderr, and its text.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    pub(crate) at: Instant,
    pub(crate) err: bool,
    pub(crate) text: String,
}

/// A running strata: its lines as they come, stdout and stderr.
pub(crate) struct Run {
    child: Child,
    rx: mpsc::Receiver<Line>,
    lines: Vec<Line>,
}

impl Run {
    pub(crate) fn new(mut child: Child) -> Run {
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().expect("stdout");
        let err = child.stderr.take().expect("stderr");
        for (stream, is_err) in [
            (Box::new(out) as Box<dyn Read + Send>, false),
            (Box::new(err) as Box<dyn Read + Send>, true),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for text in BufReader::new(stream).lines().map_while(Result::ok) {
                    let line = Line {
                        at: Instant::now(),
                        err: is_err,
                        text,
                    };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Run {
            child,
            rx,
            lines: Vec::new(),
        }
    }

    /// Reads lines until one satisfies `pred` (its time) or `within` passes.
    pub(crate) fn until(
        &mut self,
        within: Duration,
        pred: impl Fn(&Line) -> bool,
    ) -> Option<Instant> {
        let end = Instant::now() + within;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(l) => {
                    let hit = pred(&l).then_some(l.at);
                    self.lines.push(l);
                    if hit.is_some() {
                        return hit;
                    }
                }
                Err(_) => return None,
            }
        }
    }

    pub(crate) fn interrupt(&self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
    }

    /// Waits (at most `within`) for the exit, then for the last lines;
    /// kills and fails on timeout. The exit status and the time it took.
    pub(crate) fn finish(&mut self, within: Duration) -> (ExitStatus, Duration) {
        let t = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                break s;
            }
            if t.elapsed() > within {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "strata still running after {within:?}:\n{}",
                    self.text(true)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let took = t.elapsed();
        // Both readers end at EOF, which follows the exit: bounded anyway.
        let end = Instant::now() + Duration::from_secs(3);
        while let Ok(l) = self
            .rx
            .recv_timeout(end.saturating_duration_since(Instant::now()))
        {
            self.lines.push(l);
        }
        (status, took)
    }

    pub(crate) fn stdout(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter(|l| !l.err)
            .map(|l| l.text.as_str())
            .collect()
    }

    fn said(&self) -> Vec<&str> {
        let err = self.lines.iter().filter(|l| l.err);
        err.map(|l| l.text.as_str()).collect()
    }

    /// Everything printed, stderr too when `all`.
    pub(crate) fn text(&self, all: bool) -> String {
        self.lines
            .iter()
            .filter(|l| all || !l.err)
            .map(|l| format!("{}{}\n", if l.err { "E: " } else { "" }, l.text))
            .collect()
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `pgrep -f` for the run's samplers, their watchdogs and side jobs
/// (`strata-sampler-TAG`, `strata-fincore-TAG`, …) until it finds nothing
/// (at most `bound`): how long that took, or what was left.
fn samplers_gone(tag: &str, bound: Duration) -> Result<Duration, Vec<u32>> {
    let pattern = format!("strata-[a-z]+-{tag}");
    let t = Instant::now();
    loop {
        let left = pgrep(&pattern);
        if left.is_empty() {
            return Ok(t.elapsed());
        }
        if t.elapsed() > bound {
            return Err(left);
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// How long until `n` samplers of the run tagged `tag` run (at most
/// `bound`; it goes on either way, and the comparison then says why).
fn samplers_up(tag: &str, n: usize, bound: Duration) -> Duration {
    let pattern = format!("strata-sampler-{tag}");
    let t = Instant::now();
    while pgrep(&pattern).len() < n && t.elapsed() < bound {
        std::thread::sleep(Duration::from_millis(25));
    }
    t.elapsed()
}

pub(crate) fn assert_no_sampler_left(tag: &str, after: &str) -> Duration {
    match samplers_gone(tag, Duration::from_secs(2)) {
        Ok(d) => d,
        Err(left) => {
            let cmds: Vec<String> = left
                .iter()
                .map(|p| {
                    let c = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
                    format!("{p}: {}", String::from_utf8_lossy(&c).replace('\0', " "))
                })
                .collect();
            panic!("samplers left 2 s after {after}: {cmds:#?}");
        }
    }
}

// ------------------------------------------------------- the wall clock

fn frac_now() -> f64 {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    f64::from(d.subsec_nanos()) / 1e9
}

/// Sleeps until the wall clock's fraction of a second is `frac` (at most
/// a second).
fn wait_wall(frac: f64) {
    let wait = (frac - frac_now()).rem_euclid(1.0);
    std::thread::sleep(Duration::from_secs_f64(wait));
}

// ------------------------------------------------------ the node's tree

/// A thread that moves every tree to state 1, 2, ... at about x.55 s of
/// the wall clock, far from the x.00 s the nodes are asked at and the
/// x.10 s the --root run reads at. Bounded: 90 states.
struct Advancer {
    stop: Arc<AtomicBool>,
    /// While set, the trees stay in their state.
    hold: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<u64>>,
}

impl Advancer {
    fn start(trees: Vec<PathBuf>) -> Advancer {
        Advancer::stepping(trees, 90, || wait_wall(0.55))
    }

    /// A new state every 0.1 s, for a test that needs only the uptime to
    /// advance between two frames, however late a loaded machine makes
    /// one of them (at x.55 s, a frame read more than 0.55 s late reads
    /// the same state as the next). Bounded: 900 states.
    fn often(trees: Vec<PathBuf>) -> Advancer {
        Advancer::stepping(trees, 900, || {
            std::thread::sleep(Duration::from_millis(100));
        })
    }

    fn stepping(trees: Vec<PathBuf>, most: u64, wait: fn()) -> Advancer {
        let stop = Arc::new(AtomicBool::new(false));
        let hold = Arc::new(AtomicBool::new(false));
        let (s, h) = (Arc::clone(&stop), Arc::clone(&hold));
        let handle = std::thread::spawn(move || {
            let mut k = 0;
            // held periods count too: at most three times `most` periods
            for _ in 0..3 * most {
                if k == most || s.load(Ordering::Relaxed) {
                    break;
                }
                wait();
                if h.load(Ordering::Relaxed) {
                    continue;
                }
                k += 1;
                for t in &trees {
                    write_state(t, k);
                }
            }
            k
        });
        Advancer {
            stop,
            hold,
            handle: Some(handle),
        }
    }

    /// Keeps the trees in their state (`true`) or lets them move again.
    fn hold(&self, hold: bool) {
        self.hold.store(hold, Ordering::Relaxed);
    }

    fn stop(&mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.take().map_or(0, |h| h.join().unwrap_or(0))
    }
}

impl Drop for Advancer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The node's ForceCommand line: strata's command, reading under `tree`.
fn force_command(keys: &Keys, name: &str, tree: &Path) -> String {
    let path = sshd::rooted_force_command(keys, name, tree);
    format!("ForceCommand {}\n", path.display())
}

// --------------------------------------------------------- JSON on text

/// The raw text of `key`'s value in a JSON line (the first such key).
fn raw_field<'a>(line: &'a str, key: &str) -> Option<(usize, &'a str)> {
    let pat = format!("\"{key}\": ");
    let at = line.find(&pat)?;
    let rest = &line[at + pat.len()..];
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    values.next()?.ok()?;
    Some((at, &rest[..values.byte_offset()]))
}

/// `line` without `"key": VALUE, ` (the text otherwise untouched, so that
/// number formatting is compared too).
fn without(line: &str, key: &str) -> String {
    let Some((at, value)) = raw_field(line, key) else {
        return line.to_string();
    };
    let end = at + format!("\"{key}\": ").len() + value.len();
    let after = &line[end..];
    let after = after.strip_prefix(", ").unwrap_or(after);
    format!("{}{after}", &line[..at])
}

/// JSON lines by their interval_s, each without node and timestamp.
fn by_interval<'a>(lines: impl Iterator<Item = &'a str>) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in lines {
        let (_, itv) = raw_field(l, "interval_s").unwrap_or_else(|| panic!("no interval_s: {l}"));
        m.entry(itv.to_string())
            .or_default()
            .push(without(&without(l, "node"), "timestamp"));
    }
    for v in m.values_mut() {
        v.sort();
    }
    m
}

pub(crate) fn node_lines<'a>(lines: &[&'a str], label: &str) -> Vec<&'a str> {
    let prefix = format!("{{\"node\": \"{label}\", ");
    lines
        .iter()
        .copied()
        .filter(|l| l.starts_with(&prefix))
        .collect()
}

/// The intervals both runs reported, each equal as text; how many.
fn compare(
    what: &str,
    node: &BTreeMap<String, Vec<String>>,
    root: &BTreeMap<String, Vec<String>>,
) -> usize {
    let mut common = 0;
    for (itv, lines) in node {
        if let Some(theirs) = root.get(itv) {
            let only = |a: &[String], b: &[String]| -> Vec<String> {
                a.iter().filter(|l| !b.contains(l)).cloned().collect()
            };
            assert!(
                lines == theirs,
                "{what}: interval_s {itv}: only the node's {:#?}\nonly --root's {:#?}",
                only(lines, theirs),
                only(theirs, lines)
            );
            common += 1;
        }
    }
    common
}

#[test]
fn json_and_helpers_cut_fields_on_the_text() {
    let l = "{\"node\": \"127.0.0.1:22\", \"timestamp\": \"2026-01-01T00:00:00+0000\", \"interval_s\": 1.03, \"x\": [1, {\"a\": null}]}";
    assert_eq!(raw_field(l, "interval_s").unwrap().1, "1.03");
    assert_eq!(
        without(&without(l, "node"), "timestamp"),
        "{\"interval_s\": 1.03, \"x\": [1, {\"a\": null}]}"
    );
    assert_eq!(without(l, "missing"), l);
}

/// How many nodes of a run said "uptime did not advance" before their
/// first report; fails on any other complaint. A node's baseline is taken
/// when it connects, its next sample at the next whole second: when the
/// login and the sampler's first (class) frame take longer than the 0.45 s
/// from the start (x.10 s) to the tree's change (x.55 s), both samples see
/// the same state and the node rightly has no interval to report (the
/// exit code is then 1). A fixture tree's uptime moves once a second; a
/// real one moves every centisecond, so this needs the fixture. The
/// --root run (`labels` empty) may say it too, when the load delays its
/// start past the trees' change. A report is a line with the node's label
/// first (CSV) or its JSON field; the --root run's lines are all reports
/// but its CSV header.
fn late_baselines(run: &Run, labels: &[String], csv: bool) -> usize {
    let mut late = 0;
    for (i, l) in run.lines.iter().enumerate() {
        if !l.err {
            continue;
        }
        let own =
            labels.is_empty() && l.text == "strata: uptime did not advance: no interval to report";
        let who = labels.iter().find(|n| {
            l.text == format!("strata: node {n}: uptime did not advance: no interval to report")
        });
        let prefix = match who {
            Some(who) if csv => format!("{who},"),
            Some(who) => format!("{{\"node\": \"{who}\", "),
            // the --root run's lines name no node: each is a report, but
            // a CSV's header
            None if own => String::new(),
            None => panic!("stderr: {}\n{}", l.text, run.text(true)),
        };
        let reports = run.lines[..i]
            .iter()
            .filter(|p| !p.err && p.text.starts_with(&prefix))
            .count();
        assert!(
            reports <= usize::from(csv && own),
            "{prefix}: no interval after its first report\n{}",
            run.text(true)
        );
        late += 1;
    }
    late
}

// ----------------------------------------------------------------- tests

/// Keys and the sshds of a test; None when it is skipped.
pub(crate) fn keys_or_skip(test: &str) -> Option<Keys> {
    available(test).then(Keys::new)
}

/// A node whose sampler writes terminal escapes on stderr and exits with
/// them: batch says so with each escape a '?', never raw (issue 27: it
/// printed `node … says: fatal: ^[]0;EXITPWN^G^[[2J…`, which retitles and
/// clears the user's terminal).
#[test]
fn a_nodes_escapes_on_stderr_reach_the_terminal_as_question_marks() {
    let test = "a_nodes_escapes_on_stderr_reach_the_terminal_as_question_marks";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let _serial = serial();
    let script = keys.path("pwn.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf 'fatal: \\033]0;EXITPWN\\007\\033[2J\\302\\233 \\342\\200\\256x\\n' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let node = Sshd::start(
        &keys,
        "127.0.0.80",
        &format!("ForceCommand {}\n", script.display()),
    );
    let kh = known_hosts(&keys, &[&node]);
    let tag = nonce("nodes");
    let args = ["disks", "--interval", "0.5", "--count", "1"];
    let mut run = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
    let (status, _) = run.finish(Duration::from_secs(60));
    let said = run.said().join("\n");
    assert!(!status.success(), "{said}");
    assert!(said.contains("fatal: ?]0;EXITPWN??[2J? ?x"), "{said}");
    for line in run.said() {
        assert!(!line.contains(strata::core::text::is_unsafe), "{line:?}");
    }
}

#[test]
fn each_node_reports_byte_for_byte_what_root_reads_of_its_tree() {
    let test = "each_node_reports_byte_for_byte_what_root_reads_of_its_tree";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let _serial = serial();
    let trees = [tree(), tree()];
    let nodes: Vec<Sshd> = ["127.0.0.71", "127.0.0.72"]
        .iter()
        .zip(&trees)
        .enumerate()
        .map(|(i, (ip, t))| {
            Sshd::start(
                &keys,
                ip,
                &force_command(&keys, &format!("node{i}"), t.path()),
            )
        })
        .collect();
    let refs: Vec<&Sshd> = nodes.iter().collect();
    let kh = known_hosts(&keys, &refs);
    let mut adv = Advancer::start(trees.iter().map(|t| t.path().to_path_buf()).collect());
    let root1 = trees[0].path().to_str().unwrap().to_string();
    let labels: Vec<String> = refs.iter().map(|s| label(s)).collect();

    let mut summary = Vec::new();
    for panel in ["disks", "nics", "nfs", "cache", "cpu", "disks-csv"] {
        let (name, format) = match panel.strip_suffix("-csv") {
            Some(p) => (p, "csv"),
            None => (panel, "json"),
        };
        let tag = nonce("nodes");
        let args = [name, "--interval", "1", "--count", "5", "--format", format];
        // Both runs take their baselines from one state: the trees hold it
        // until both nodes' samplers run (a login can take more than a
        // second on a loaded machine, and a bond's failures since strata
        // started count from the baseline), and the --root run starts
        // then, at x.10 s, reading its baseline as it starts; the trees
        // move on again at x.55 s, before either run's next sample.
        adv.hold(true);
        let mut by_node = Run::new(strata(&keys, &kh, &refs, &tag, &args));
        let up = samplers_up(&tag, nodes.len(), Duration::from_secs(10));
        // a sampler reads its first frame as it starts
        std::thread::sleep(Duration::from_millis(300));
        wait_wall(0.10);
        let mut by_root = Run::new(strata(
            &keys,
            &kh,
            &[],
            &tag,
            &[&args[..], &["--root", &root1]].concat(),
        ));
        wait_wall(0.40);
        adv.hold(false);
        let (s_node, _) = by_node.finish(Duration::from_secs(30));
        let (s_root, _) = by_root.finish(Duration::from_secs(30));
        let gone = assert_no_sampler_left(&tag, "a --count run");
        let late = late_baselines(&by_node, &labels, format == "csv");
        assert!(
            s_node.success() || (s_node.code() == Some(1) && late > 0),
            "{panel} nodes: {s_node}\n{}",
            by_node.text(true)
        );
        let root_late = late_baselines(&by_root, &[], format == "csv");
        assert!(
            s_root.success() || (s_root.code() == Some(1) && root_late > 0),
            "{panel} root: {s_root}\n{}",
            by_root.text(true)
        );
        let counts = common_intervals(panel, format == "json", &by_node, &by_root, &labels);
        summary.push(format!(
            "{panel}: intervals in common per node {counts:?}, late baselines {late} and {root_late} (--root), samplers up after {up:?}, gone after {gone:?}"
        ));
    }
    let states = adv.stop();
    println!("{test}: {} states\n{}", states, summary.join("\n"));
}

/// For every node, the intervals its lines and the --root run's have in
/// common, each equal as text (at least 3 per node).
fn common_intervals(
    panel: &str,
    json: bool,
    by_node: &Run,
    by_root: &Run,
    labels: &[String],
) -> Vec<usize> {
    let (out_node, out_root) = (by_node.stdout(), by_root.stdout());
    let mut counts = Vec::new();
    if json {
        let root = by_interval(out_root.iter().copied());
        for l in labels {
            let mine = node_lines(&out_node, l);
            assert!(
                !mine.is_empty(),
                "{panel}: nothing from {l}\n{}",
                by_node.text(true)
            );
            let n = compare(
                &format!("{panel} node {l}"),
                &by_interval(mine.into_iter()),
                &root,
            );
            assert!(
                n >= 3,
                "{panel} node {l}: {n} intervals in common\n{}\n---\n{}",
                by_node.text(true),
                by_root.text(true)
            );
            counts.push(n);
        }
    } else {
        // CSV: `node,` before the root run's header; each row the
        // node's label first, then the root run's row.
        let header = out_root.first().expect("a header");
        assert_eq!(
            out_node.first().copied(),
            Some(format!("node,{header}").as_str())
        );
        assert!(header.starts_with("timestamp,interval_s,"), "{header}");
        let rows = |lines: &[&str]| -> BTreeMap<String, Vec<String>> {
            let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for l in lines {
                let (_, rest) = l.split_once(',').unwrap();
                let (itv, _) = rest.split_once(',').unwrap();
                m.entry(itv.to_string()).or_default().push(rest.to_string());
            }
            for v in m.values_mut() {
                v.sort();
            }
            m
        };
        let root = rows(&out_root[1..]);
        for l in labels {
            let prefix = format!("{l},");
            let mine: Vec<&str> = out_node[1..]
                .iter()
                .filter_map(|r| r.strip_prefix(&prefix))
                .collect();
            let n = compare(&format!("csv node {l}"), &rows(&mine), &root);
            assert!(
                n >= 3,
                "csv node {l}: {n} intervals in common\n{}",
                by_node.text(true)
            );
            counts.push(n);
        }
    }
    counts
}

/// The string values of `key` in a run's JSON lines.
fn names(lines: &[&str], key: &str) -> BTreeSet<String> {
    lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v[key].as_str().map(str::to_string))
        .collect()
}

/// O_DIRECT writes of 1 MB to a file under the target dir, about every
/// 20 ms, until `stop` (at most 400 rounds and 10 s): a steady load, so
/// that two runs sampling a few milliseconds apart see nearly the same.
fn disk_load(stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u32> {
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(nonce("nodes_ssh_dd"));
    std::thread::spawn(move || {
        let t = Instant::now();
        let mut rounds = 0;
        while rounds < 400 && t.elapsed() < Duration::from_secs(10) && !stop.load(Ordering::Relaxed)
        {
            let ok = Command::new("dd")
                .arg("if=/dev/zero")
                .arg(format!("of={}", file.display()))
                .args(["bs=64k", "count=16", "oflag=direct"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                break;
            }
            rounds += 1;
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_file(&file);
        rounds
    })
}

/// TCP on 127.0.0.1: 16 KiB about every millisecond from a sender to a
/// receiver in this process, until `stop` (at most 10 s). Bytes sent.
fn loopback_load(stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let at = listener.local_addr().unwrap();
    let receiver = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let _ = s.set_read_timeout(Some(Duration::from_secs(12)));
        let mut buf = vec![0u8; 65536];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                break;
            }
        }
    });
    std::thread::spawn(move || {
        let mut s = std::net::TcpStream::connect(at).unwrap();
        let buf = vec![7u8; 16 * 1024];
        let t = Instant::now();
        let mut sent = 0u64;
        while t.elapsed() < Duration::from_secs(10) && !stop.load(Ordering::Relaxed) {
            if s.write_all(&buf).is_err() {
                break;
            }
            sent += buf.len() as u64;
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(s);
        let _ = receiver.join();
        sent
    })
}

/// A figure of `key` in JSON lines where `name_key` is `name`, by the
/// report's second (its timestamp) with its interval_s.
fn figures(lines: &[&str], name_key: &str, name: &str, key: &str) -> BTreeMap<String, (f64, f64)> {
    lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v[name_key] == name)
        .filter_map(|v| {
            Some((
                v["timestamp"].as_str()?.to_string(),
                (v["interval_s"].as_f64()?, v[key].as_f64()?),
            ))
        })
        .collect()
}

#[test]
fn this_machine_as_a_node_shows_the_devices_interfaces_and_figures_of_the_local_run() {
    let test = "this_machine_as_a_node_shows_the_devices_interfaces_and_figures_of_the_local_run";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let _serial = serial();
    // No ForceCommand: R stays empty, the sampler reads this machine.
    let node = Sshd::start(&keys, "127.0.0.74", "");
    let kh = known_hosts(&keys, &[&node]);
    let tag = nonce("nodes");

    for (panel, key) in [("disks", "disk_device"), ("nics", "interface")] {
        let args = [panel, "--interval", "1", "--count", "2", "--format", "json"];
        let mut by_node = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
        let mut local = Run::new(strata(&keys, &kh, &[], &tag, &args));
        let (s_node, _) = by_node.finish(Duration::from_secs(30));
        let (s_local, _) = local.finish(Duration::from_secs(30));
        assert!(s_node.success(), "{s_node}\n{}", by_node.text(true));
        assert!(s_local.success(), "{s_local}\n{}", local.text(true));
        let (a, b) = (names(&by_node.stdout(), key), names(&local.stdout(), key));
        println!("{panel}: node {a:?}, local {b:?}");
        assert!(!b.is_empty(), "{panel}: no {key} locally");
        assert_eq!(a, b, "{panel}: {key}s");
    }
    let gone = assert_no_sampler_left(&tag, "a --count run");

    let figures = under_load(&keys, &kh, &node, &tag);
    println!("{test}: samplers gone {gone:?}; {figures}");
}

/// The CPU and pressure layer over SSH, two nodes in one run of `batch
/// cpu --format json`: this machine as it is (no ForceCommand), whose
/// report has this machine's CPUs ("all" and each cpuN of /proc/stat)
/// with their figures, and its io pressure, known when this machine's
/// /proc/pressure/io reads; and a node whose tree is a kernel without PSI
/// (no /proc/pressure: the sampler's missing files must reach strata as
/// missing), whose every resource says why it has no pressure, never 0.
#[test]
fn a_node_shows_its_cpu_and_pressure_and_a_node_without_psi_says_not_available() {
    let test = "a_node_shows_its_cpu_and_pressure_and_a_node_without_psi_says_not_available";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let _serial = serial();
    let no_psi = tree();
    std::fs::remove_dir_all(no_psi.path().join("proc/pressure")).unwrap();
    let here = Sshd::start(&keys, "127.0.0.91", "");
    let old = Sshd::start(
        &keys,
        "127.0.0.92",
        &force_command(&keys, "nopsi", no_psi.path()),
    );
    let kh = known_hosts(&keys, &[&here, &old]);
    // the old kernel's tree moves every 50 ms (at most 600 states, 30 s)
    let stop = Arc::new(AtomicBool::new(false));
    let adv = {
        let (root, stop) = (no_psi.path().to_path_buf(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let t = Instant::now();
            let mut k = 0;
            while k < 600 && t.elapsed() < Duration::from_secs(30) && !stop.load(Ordering::Relaxed)
            {
                k += 1;
                write_state_without_psi(&root, k);
                std::thread::sleep(Duration::from_millis(50));
            }
            k
        })
    };
    let tag = nonce("nodes");
    let args = ["cpu", "--interval", "1", "--count", "2", "--format", "json"];
    let mut run = Run::new(strata(&keys, &kh, &[&here, &old], &tag, &args));
    let (status, _) = run.finish(Duration::from_secs(30));
    stop.store(true, Ordering::Relaxed);
    let states = adv.join().unwrap();
    let gone = assert_no_sampler_left(&tag, "a --count run");
    assert!(status.success(), "{status}\n{}", run.text(true));
    let out = run.stdout();

    // This machine's CPUs as /proc/stat lists them now.
    let stat = std::fs::read_to_string("/proc/stat").unwrap();
    let mut cpus = vec!["all".to_string()];
    cpus.extend(stat.lines().filter_map(|l| {
        let name = l.split_whitespace().next()?.strip_prefix("cpu")?;
        (!name.is_empty()).then(|| name.to_string())
    }));
    let psi_here = std::fs::read_to_string("/proc/pressure/io").is_ok();
    let mine = node_lines(&out, &label(&here));
    assert_eq!(mine.len(), 2, "{}", run.text(true));
    for l in &mine {
        let v: Value = serde_json::from_str(l).unwrap();
        let names: Vec<&str> = v["cpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["cpu"].as_str().unwrap())
            .collect();
        assert_eq!(names, cpus, "{l}");
        let all = &v["cpus"][0];
        let modes: f64 = [
            "usr", "nice", "sys", "iowait", "irq", "soft", "steal", "idle",
        ]
        .iter()
        .map(|k| all[k].as_f64().unwrap_or_else(|| panic!("{k}: {l}")))
        .sum();
        // mpstat's modes of a CPU add up to 100, give or take the rounding
        assert!((modes - 100.0).abs() < 0.1, "{modes}: {l}");
        assert!(v["cswch/s"].as_f64().is_some_and(|c| c > 0.0), "{l}");
        assert!(v["ldavg-1"].as_f64().is_some(), "{l}");
        let io = &v["pressure"]["io"];
        assert_eq!(io["available"], Value::Bool(psi_here), "{l}");
        if psi_here {
            let some = io["some"].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&some), "{l}");
        }
    }

    let theirs = node_lines(&out, &label(&old));
    assert_eq!(theirs.len(), 2, "{}", run.text(true));
    let why = "not available: no /proc/pressure (a kernel before 4.20, or without CONFIG_PSI)";
    for l in &theirs {
        let v: Value = serde_json::from_str(l).unwrap();
        for r in ["cpu", "io", "memory"] {
            let want = serde_json::json!({"available": false, "why": why});
            assert_eq!(v["pressure"][r], want, "{r}: {l}");
        }
        assert_eq!(v["cpus"].as_array().unwrap().len(), 3, "{l}");
        assert!(v["cpus"][0]["usr"].as_f64().is_some_and(|u| u > 0.0), "{l}");
    }
    println!(
        "{test}: {states} states, samplers gone after {gone:?}\n{}",
        run.text(true)
    );
}

/// Every node's first report covers at least half an interval, as
/// export's rule has it: a node's baseline is read when it connects (the
/// local node at once), its next sample at the next whole second, so a
/// run started at x.60 s had a 0.40 s first interval for the local node
/// (and the SSH node's depended on its login). A first interval that
/// short is another baseline, and --count counts the reports that follow.
#[test]
fn every_nodes_first_report_covers_at_least_half_an_interval() {
    let test = "every_nodes_first_report_covers_at_least_half_an_interval";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let _serial = serial();
    let node = Sshd::start(&keys, "127.0.0.79", "");
    let kh = known_hosts(&keys, &[&node]);
    let tag = nonce("nodes");
    let args = [
        "disks",
        "--interval",
        "1",
        "--count",
        "3",
        "--format",
        "csv",
        "--node",
        "local",
    ];
    wait_wall(0.60);
    let mut run = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
    let (status, _) = run.finish(Duration::from_secs(30));
    assert!(status.success(), "{status}\n{}", run.text(true));
    assert_no_sampler_left(&tag, "a --count run");
    let out = run.stdout();
    let head: Vec<&str> = out.first().expect("a header").split(',').collect();
    let col = head.iter().position(|h| *h == "interval_s").unwrap();
    let mut reports: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for row in &out[1..] {
        let f: Vec<&str> = row.split(',').collect();
        let itv: f64 = f[col].parse().unwrap();
        assert!(itv >= 0.5, "a {itv} s interval: {row}\n{}", run.text(true));
        reports.entry(f[0]).or_default().insert(f[1]);
    }
    let counts: Vec<usize> = reports.values().map(BTreeSet::len).collect();
    assert_eq!(counts, [3, 3], "{reports:?}\n{}", run.text(true));
}

/// `--node-group` with `local` given last and `--count 2`: each node
/// prints two reports, no more (the local node, whose baseline comes
/// first, printed a third while it waited for the others), and the rows of
/// each interval come in the order the nodes were given, not the order
/// their readings came in (the local one, read at the boundary, came
/// first; the other two in the order their frames came).
#[test]
fn a_node_group_prints_count_reports_per_node_in_the_order_given() {
    let test = "a_node_group_prints_count_reports_per_node_in_the_order_given";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let _serial = serial();
    let nodes = [
        Sshd::start(&keys, "127.0.0.81", ""),
        Sshd::start(&keys, "127.0.0.82", ""),
    ];
    let kh = known_hosts(&keys, &[&nodes[0], &nodes[1]]);
    let tag = nonce("nodes");
    let group = keys.dir.path().join("dbs.txt");
    let specs: Vec<String> = nodes.iter().map(|n| spec(&keys, n)).collect();
    std::fs::write(&group, format!("{}\n{}\nlocal\n", specs[0], specs[1])).unwrap();
    let order = [label(&nodes[0]), label(&nodes[1]), "local".to_string()];
    let group = group.to_string_lossy();
    let args = [
        "disks",
        "--interval",
        "1",
        "--count",
        "2",
        "--format",
        "csv",
        "--known-hosts",
        &*kh.to_string_lossy(),
        "--node-identity",
        &*keys.client_key.to_string_lossy(),
        "--node-group",
        &group,
    ];
    for round in 0..3 {
        let mut run = Run::new(strata(&keys, &kh, &[], &tag, &args));
        let (status, _) = run.finish(Duration::from_secs(30));
        assert!(status.success(), "{status}\n{}", run.text(true));
        let out = run.stdout();
        let head: Vec<&str> = out.first().expect("a header").split(',').collect();
        let col = head.iter().position(|h| *h == "timestamp").unwrap();
        // the nodes in the order their rows came, interval by interval
        let mut by_time: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for row in &out[1..] {
            let f: Vec<&str> = row.split(',').collect();
            let seq = by_time.entry(f[col].to_string()).or_default();
            if seq.last().map(String::as_str) != Some(f[0]) {
                seq.push(f[0].to_string());
            }
        }
        let text = run.text(true);
        for (at, seq) in &by_time {
            let given: Vec<&String> = order.iter().filter(|l| seq.contains(l)).collect();
            let seq: Vec<&String> = seq.iter().collect();
            assert_eq!(seq, given, "run {round}, rows of {at}:\n{text}");
        }
        for l in &order {
            let reports = by_time.values().filter(|seq| seq.contains(l)).count();
            assert_eq!(reports, 2, "run {round}: {l}'s reports\n{text}");
        }
    }
    assert_no_sampler_left(&tag, "a --count run");
}

/// The node run and the local run under a disk and a loopback load, the
/// same seconds: the busiest device's w/s and wkB/s, and lo's rKB/s and
/// wKB/s agree. What was compared.
fn under_load(keys: &Keys, kh: &Path, node: &Sshd, tag: &str) -> String {
    // Under load. Both runs read at whole seconds, the node's a few ms
    // later (the SSH round trip and the sampler's awk); each one's first
    // interval runs from its own start and is not compared. Their other
    // intervals are thus the same seconds, shifted by a few milliseconds: the figures may differ by what the load did in
    // those milliseconds at either end (20 ms of a 1 MB dd every 20 ms is
    // one dd, 1024 kB and its 16 writes), and other processes on this
    // machine write too. Hence 10 % of the larger figure plus one dd (and
    // 512 kB/s on lo, whose load is steadier).
    let stop = Arc::new(AtomicBool::new(false));
    let dd = disk_load(Arc::clone(&stop));
    let tcp = loopback_load(Arc::clone(&stop));
    wait_wall(0.30);
    let node_args = |p| [p, "--interval", "1", "--count", "5", "--format", "json"];
    let local_args = |p| [p, "--interval", "1", "--count", "5", "--format", "json"];
    let mut runs = vec![
        Run::new(strata(keys, kh, &[node], tag, &node_args("disks"))),
        Run::new(strata(keys, kh, &[node], tag, &node_args("nics"))),
    ];
    wait_wall(0.0);
    runs.push(Run::new(strata(keys, kh, &[], tag, &local_args("disks"))));
    runs.push(Run::new(strata(keys, kh, &[], tag, &local_args("nics"))));
    for r in &mut runs {
        let (s, _) = r.finish(Duration::from_secs(30));
        assert!(s.success(), "{s}\n{}", r.text(true));
    }
    stop.store(true, Ordering::Relaxed);
    let (rounds, sent) = (dd.join().unwrap(), tcp.join().unwrap());
    assert_no_sampler_left(tag, "a --count run");
    let out: Vec<Vec<&str>> = runs.iter().map(Run::stdout).collect();

    // The busiest device of the local run.
    let busiest = names(&out[2], "disk_device")
        .into_iter()
        .max_by(|a, b| {
            let total = |d: &str| -> f64 {
                figures(&out[2], "disk_device", d, "wkB/s")
                    .values()
                    .map(|f| f.1)
                    .sum()
            };
            total(a).total_cmp(&total(b))
        })
        .expect("a device");
    let checks = [
        (
            &out[0],
            &out[2],
            "disk_device",
            busiest.as_str(),
            "w/s",
            16.0,
        ),
        (
            &out[0],
            &out[2],
            "disk_device",
            busiest.as_str(),
            "wkB/s",
            1024.0,
        ),
        (&out[1], &out[3], "interface", "lo", "rKB/s", 512.0),
        (&out[1], &out[3], "interface", "lo", "wKB/s", 512.0),
    ];
    let mut report = Vec::new();
    for (n, l, name_key, name, key, slack) in checks {
        let (mine, theirs) = (
            figures(n, name_key, name, key),
            figures(l, name_key, name, key),
        );
        let mut pairs = Vec::new();
        for (second, (itv, a)) in &mine {
            // The node's first interval runs from its connection: no match.
            let Some((itv2, b)) = theirs.get(second) else {
                continue;
            };
            if (itv - itv2).abs() > 0.05 {
                continue;
            }
            pairs.push((*a, *b));
        }
        report.push(format!("{name} {key} (node, local): {pairs:.1?}"));
        assert!(
            pairs.len() >= 3,
            "{name} {key}: {} intervals matched\n{mine:?}\n{theirs:?}",
            pairs.len()
        );
        assert!(
            pairs.iter().any(|(_, b)| *b > 4.0 * slack),
            "{name} {key}: no load seen: {pairs:?}"
        );
        for (a, b) in &pairs {
            assert!(
                (a - b).abs() <= 0.10 * a.max(*b) + slack,
                "{name} {key}: node {a} local {b}; all {pairs:?}"
            );
        }
    }
    format!(
        "dd rounds {rounds}, {} MB over lo\n{}",
        sent >> 20,
        report.join("\n")
    )
}

fn kill_each(pids: &[u32], sig: &str) {
    for p in pids {
        let _ = Command::new("kill")
            .args([sig, &p.to_string()])
            .stderr(Stdio::null())
            .status();
    }
}

/// The first line (read so far or within `within`) after `after` that
/// `pred` accepts: its time.
fn line_after(
    run: &mut Run,
    after: Instant,
    within: Duration,
    pred: impl Fn(&Line) -> bool,
) -> Option<Instant> {
    if let Some(l) = run.lines.iter().find(|l| l.at > after && pred(l)) {
        return Some(l.at);
    }
    run.until(within, |l| l.at > after && pred(l))
}

fn report_of(l: &Line, label: &str) -> bool {
    !l.err && l.text.starts_with(&format!("{{\"node\": \"{label}\", "))
}

/// The longest wait between two lines of `label` within `from..to`
/// (counting from `from` and up to `to`), and its lines per second.
fn cadence(run: &Run, label: &str, from: Instant, to: Instant) -> (Duration, Vec<usize>) {
    let times: Vec<Instant> = run
        .lines
        .iter()
        .filter(|l| l.at >= from && l.at <= to && report_of(l, label))
        .map(|l| l.at)
        .collect();
    let mut gap = Duration::ZERO;
    let mut last = from;
    for t in times.iter().chain([&to]) {
        gap = gap.max(t.saturating_duration_since(last));
        last = *t;
    }
    let secs = to.saturating_duration_since(from).as_secs() as usize + 1;
    let mut per = vec![0; secs];
    for t in &times {
        per[t.saturating_duration_since(from).as_secs() as usize] += 1;
    }
    (gap, per)
}

/// No stderr line names a node twice ("node L: L: connection lost").
fn named_once(said: &[&str], labels: &[String]) {
    for l in labels {
        let twice = format!("{l}: {l}: ");
        assert!(
            !said.iter().any(|s| s.contains(&twice)),
            "{l} twice: {said:#?}"
        );
    }
}

/// What freezing a node's sessions did.
struct Freeze {
    at: Instant,
    sessions: usize,
    /// When strata named the node on stderr.
    stale: Option<Instant>,
    /// A report of the node while its old sessions were still frozen.
    while_frozen: Option<Instant>,
    thawed_at: Instant,
    /// Its first report after the thaw, if none came while frozen.
    after_thaw: Option<Instant>,
    /// How long the frozen session's sampler outlived the thaw.
    old_sampler_gone: Result<Duration, usize>,
}

/// SIGSTOP to the node's sessions, then (3 s after strata names it)
/// SIGCONT; the node's reports and samplers meanwhile.
fn freeze_and_thaw(run: &mut Run, node: &Sshd, label: &str, tag: &str) -> Freeze {
    let named = |l: &Line| l.err && l.text.starts_with(&format!("strata: node {label}: "));
    let frozen_at = Instant::now();
    let frozen = node.stop_sessions();
    let stale = line_after(run, frozen_at, Duration::from_secs(6), named);
    // strata drops the frozen connection and logs in again: the listener
    // is not frozen, only the old sessions. Seen here for 3 s.
    let stale_at = stale.unwrap_or_else(Instant::now);
    let while_frozen = line_after(run, stale_at, Duration::from_secs(3), |l| {
        report_of(l, label)
    });
    let thawed_at = Instant::now();
    kill_each(&node.session_pids(), "-CONT");
    let after_thaw = match while_frozen {
        Some(_) => None,
        None => line_after(run, thawed_at, Duration::from_secs(40), |l| {
            report_of(l, label)
        }),
    };
    // Thawed, the old session finds its connection closed by strata and
    // ends its sampler: one sampler per node remains (3 nodes).
    let t = Instant::now();
    let old_sampler_gone = loop {
        let n = top_samplers(tag);
        if n <= 3 {
            break Ok(t.elapsed());
        }
        if t.elapsed() > Duration::from_secs(3) {
            break Err(n);
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    Freeze {
        at: frozen_at,
        sessions: frozen,
        stale,
        while_frozen,
        thawed_at,
        after_thaw,
        old_sampler_gone,
    }
}

/// The samplers of a tag, not counting their forks (a `$(...)` subshell
/// carries its sampler's command line).
fn top_samplers(tag: &str) -> usize {
    let all = pgrep(&format!("strata-sampler-{tag}"));
    let parent = |p: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        stat[stat.rfind(')')? + 1..]
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    all.iter()
        .filter(|p| !parent(**p).is_some_and(|pp| all.contains(&pp)))
        .count()
}

#[test]
fn a_node_killed_and_restarted_and_one_frozen_and_thawed_while_the_others_keep_time() {
    let test = "a_node_killed_and_restarted_and_one_frozen_and_thawed_while_the_others_keep_time";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let _serial = serial();
    let mut nodes: Vec<Sshd> = ["127.0.0.76", "127.0.0.77", "127.0.0.78"]
        .iter()
        .map(|ip| Sshd::start(&keys, ip, ""))
        .collect();
    let kh = known_hosts(&keys, &nodes.iter().collect::<Vec<_>>());
    let labels: Vec<String> = nodes.iter().map(label).collect();
    let tag = nonce("nodes");
    let every = Duration::from_millis(500);
    // nics with every interface: lo is always there, each report has lines.
    let args = "nics --all-devices --interval 0.5 --format json";
    let args: Vec<&str> = args.split(' ').collect();
    let refs: Vec<&Sshd> = nodes.iter().collect();
    let mut run = Run::new(strata(&keys, &kh, &refs, &tag, &args));
    let start = Instant::now();
    for l in &labels {
        let first = line_after(&mut run, start, Duration::from_secs(20), |x| {
            report_of(x, l)
        });
        assert!(first.is_some(), "no report of {l}\n{}", run.text(true));
    }
    let live = Instant::now();
    std::thread::sleep(Duration::from_secs(2));

    // Node 0 gone: named on stderr within its stall; back by itself.
    let killed = Instant::now();
    nodes[0].kill_all();
    let named = |l: &Line, who: &str| l.err && l.text.starts_with(&format!("strata: node {who}: "));
    let lost = line_after(&mut run, killed, Duration::from_secs(6), |l| {
        named(l, &labels[0])
    });
    std::thread::sleep(Duration::from_secs(3).saturating_sub(killed.elapsed()));
    nodes[0].restart();
    let restarted = Instant::now();
    // The product's backoff doubles from 1 s up to 30 s: bounded by that.
    let back = line_after(&mut run, restarted, Duration::from_secs(40), |l| {
        report_of(l, &labels[0])
    });

    let f = freeze_and_thaw(&mut run, &nodes[1], &labels[1], &tag);
    std::thread::sleep(Duration::from_secs(2));
    let end = Instant::now();
    let _ = run.until(Duration::from_millis(300), |_| false);

    run.interrupt();
    let interrupted = Instant::now();
    let (status, took) = run.finish(Duration::from_secs(5));
    let gone = samplers_gone(&tag, Duration::from_secs(2));

    let secs = |t: Option<Instant>, from: Instant| t.map(|t| t.saturating_duration_since(from));
    let (lost_in, back_in) = (secs(lost, killed), secs(back, restarted));
    let stale_in = secs(f.stale, f.at);
    let while_frozen = f
        .while_frozen
        .zip(f.stale)
        .map(|(t, s)| t.saturating_duration_since(s));
    let thawed_in = secs(f.after_thaw, f.thawed_at);
    // Node 2 throughout; node 1 while node 0 was away; node 0 from its
    // return, through node 1's freeze, to the end.
    let c2 = cadence(&run, &labels[2], live, end);
    let c1 = cadence(&run, &labels[1], live, f.at);
    let c0 = cadence(&run, &labels[0], back.unwrap_or(end), end);
    let said = run.said();
    println!(
        "{test}:\n node 0 killed: named after {lost_in:?}, restarted: reports after {back_in:?}\n \
         node 1 frozen ({} sessions): named after {stale_in:?}, reports again (new login, old \
         sessions still frozen) {while_frozen:?} after that, after the thaw {thawed_in:?}; the \
         frozen session's sampler gone {:?} after the thaw\n cadence (longest gap, lines per \
         second): node 2 {c2:?}, node 1 {c1:?}, node 0 {c0:?}\n exit {status} {took:?} after \
         SIGINT ({:?} after the last check), samplers gone {gone:?}\n stderr: {said:#?}",
        f.sessions,
        f.old_sampler_gone,
        interrupted.saturating_duration_since(end),
    );
    let text = run.text(true);
    assert!(
        lost_in.is_some_and(|d| d <= Duration::from_secs(3)),
        "node 0 not named within 3 s\n{text}"
    );
    assert!(back_in.is_some(), "node 0 never came back\n{text}");
    assert!(f.sessions > 0, "no session of node 1 to freeze");
    named_once(&said, &labels);
    assert!(
        stale_in.is_some_and(|d| d <= Duration::from_secs(3)),
        "node 1 not named within 3 s\n{text}"
    );
    assert!(
        f.while_frozen.or(f.after_thaw).is_some(),
        "node 1 never came back\n{text}"
    );
    assert!(
        f.old_sampler_gone.is_ok(),
        "the frozen session's sampler outlived the thaw by 3 s: {:?}",
        f.old_sampler_gone
    );
    for (who, (gap, _)) in [(2, &c2), (1, &c1), (0, &c0)] {
        assert!(*gap <= every * 2, "node {who}: a gap of {gap:?}\n{text}");
    }
    assert!(status.code().is_some(), "no exit of its own: {status}");
    assert!(gone.is_ok(), "samplers left 2 s after SIGINT: {gone:?}");
}

/// `batch cache --node … --cache-files …`: the node runs fincore (on a
/// channel of its own, through the same ForceCommand as the sampler) over
/// the files the patterns match in its tree, and the report's file
/// records are those files with fincore's figures, method "fincore"; a
/// pattern that matches nothing there is a record that says so.
/// util-linux fincore on this machine, or the test says it is skipped
/// (a failure where STRATA_REQUIRE_FINCORE is set).
fn fincore_or_skip(test: &str) -> Option<std::path::PathBuf> {
    let found = peer_tools::find_in_path("fincore");
    if found.is_none() {
        assert!(
            std::env::var_os("STRATA_REQUIRE_FINCORE").is_none(),
            "fincore required"
        );
        eprintln!("SKIPPED {test}: no fincore here");
    }
    found
}

#[test]
fn a_nodes_watched_files_come_from_fincore_run_on_the_node() {
    let test = "a_nodes_watched_files_come_from_fincore_run_on_the_node";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    if fincore_or_skip(test).is_none() {
        return;
    }
    let _serial = serial();
    let t = tree();
    write_state(t.path(), 0);
    let u01 = t.path().join("u01");
    std::fs::create_dir_all(&u01).unwrap();
    std::fs::write(u01.join("redo 01.log"), vec![7u8; 20_000]).unwrap();
    std::fs::write(u01.join("redo02.log"), vec![7u8; 9_000]).unwrap();
    for n in ["redo 01.log", "redo02.log"] {
        std::fs::read(u01.join(n)).unwrap();
    }
    let node = Sshd::start(&keys, "127.0.0.75", &force_command(&keys, "fin", t.path()));
    let kh = known_hosts(&keys, &[&node]);
    let tag = nonce("nodes");
    let mut adv = Advancer::often(vec![t.path().to_path_buf()]);
    let args = [
        "cache",
        "--interval",
        "1",
        "--count",
        "4",
        "--format",
        "json",
        "--cache-files",
        "/u01/*.log",
        "--cache-files",
        "/u02/*.arc",
    ];
    let mut run = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
    let (status, _) = run.finish(Duration::from_secs(30));
    adv.stop();
    // The tree's clock steps every 0.1 s: a frame that a loaded machine
    // delays lands close enough to the next one to read the same state,
    // and strata rightly reports no interval for it (and exits 1). That
    // is the fixture's clock, not the node's: nothing else may fail.
    let complaints: Vec<&str> = run
        .lines
        .iter()
        .filter(|l| l.err && !l.text.contains("uptime did not advance"))
        .map(|l| l.text.as_str())
        .collect();
    let late = run.text(true).contains("uptime did not advance");
    assert!(
        status.success() || (status.code() == Some(1) && late && complaints.is_empty()),
        "{status}\n{}",
        run.text(true)
    );
    assert_no_sampler_left(&tag, "a --count run");
    // An interval's file records, each closed by its total record.
    let mut intervals: Vec<Vec<Value>> = vec![Vec::new()];
    for v in run
        .stdout()
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
    {
        if v["record"] == "file" {
            intervals.last_mut().unwrap().push(v);
        } else if v["record"] == "total" {
            intervals.push(Vec::new());
        }
    }
    intervals.pop();
    assert!(intervals.len() >= 2, "{}", run.text(true));
    // The node's first fincore run can end after strata's first interval
    // on a loaded machine; such an interval says so, pattern by pattern.
    let not_yet = |i: &Vec<Value>| {
        i.iter()
            .all(|f| f["error"] == "no fincore run from the node yet")
    };
    // At most the first: a node whose figures always came an interval
    // late would be a fault (a_slow_fincore_... times them to the run).
    let early = intervals.iter().take_while(|i| not_yet(i)).count();
    assert!(early <= 1, "{}", run.text(true));
    let files: Vec<Value> = intervals.into_iter().skip(early).flatten().collect();
    assert!(files.len() >= 2 * 3, "{}", run.text(true));
    let out = Command::new("fincore")
        .args(["--raw", "--bytes", "--noheadings", "--output", "PAGES,SIZE"])
        .arg(u01.join("redo 01.log"))
        .arg(u01.join("redo02.log"))
        .output()
        .unwrap();
    let here: Vec<(u64, u64)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (p, s) = l.split_once(' ').unwrap();
            (p.parse().unwrap(), s.parse().unwrap())
        })
        .collect();
    for interval in files.chunks(3) {
        assert!(
            interval.iter().all(|f| f["method"] == "fincore"),
            "{interval:?}"
        );
        let names: Vec<&str> = interval
            .iter()
            .map(|f| f["file"].as_str().unwrap())
            .collect();
        assert!(names[0].ends_with("/u01/redo 01.log"), "{names:?}");
        assert!(names[1].ends_with("/u01/redo02.log"), "{names:?}");
        assert_eq!(names[2], "/u02/*.arc");
        assert_eq!(interval[2]["error"], "no file matches");
        let theirs: Vec<(u64, u64)> = interval[..2]
            .iter()
            .map(|f| {
                (
                    f["res_pages"].as_u64().unwrap(),
                    f["size_bytes"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(theirs, here);
        assert!(interval[0]["dirty_pages"].is_null());
    }
    println!(
        "{test}: {} file records, fincore here {here:?}",
        files.len()
    );
}

/// A fincore that takes 3 s (as one over a few hundred GiB of datafiles
/// does), run every 2 s, delays no sample: it runs on a channel of its
/// own, the node's reports keep their 0.5 s interval all through the
/// runs, the files say there is no run yet until the first ends, and its
/// figures come afterwards. Inside the sampler's loop the second run
/// held its interval's sample for 3 s, beyond the node's stall (two
/// intervals and a second; the first sample has a connection's time
/// more): the node was dropped and reconnected, and ran fincore again.
#[test]
fn a_slow_fincore_delays_no_sample_and_its_figures_come_when_it_ends() {
    let test = "a_slow_fincore_delays_no_sample_and_its_figures_come_when_it_ends";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let Some(real) = fincore_or_skip(test) else {
        return;
    };
    let _serial = serial();
    let delay = Duration::from_secs(3);
    let data = keys.path("slow.dbf");
    std::fs::write(&data, vec![7u8; 64 * 1024]).unwrap();
    std::fs::read(&data).unwrap();
    // No ForceCommand: the sampler reads this machine, whose uptime moves.
    let node = Sshd::start(&keys, "127.0.0.76", &keys.with_slow_fincore(&real, delay));
    let kh = known_hosts(&keys, &[&node]);
    let tag = nonce("nodes");
    let file = data.to_str().unwrap();
    let config = keys.path("fincore_every.toml");
    std::fs::write(&config, "fincore_every = \"2s\"\n").unwrap();
    let args = [
        "--config",
        config.to_str().unwrap(),
        "cache",
        "--interval",
        "0.5",
        "--count",
        "14",
        "--format",
        "json",
        "--cache-files",
        file,
    ];
    let start = Instant::now();
    let mut run = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
    let (status, _) = run.finish(Duration::from_secs(30));
    assert!(status.success(), "{status}\n{}", run.text(true));
    assert!(run.said().is_empty(), "{}", run.text(true));
    assert_no_sampler_left(&tag, "a --count run");
    let lines: Vec<(Duration, Value)> = run
        .lines
        .iter()
        .filter(|l| !l.err)
        .map(|l| (l.at - start, serde_json::from_str(&l.text).unwrap()))
        .collect();
    let totals: Vec<Duration> = lines
        .iter()
        .filter(|(_, v)| v["record"] == "total")
        .map(|(at, _)| *at)
        .collect();
    assert_eq!(totals.len(), 14, "{}", run.text(true));
    let gaps: Vec<Duration> = totals.windows(2).map(|w| w[1] - w[0]).collect();
    let widest = gaps.iter().max().copied().unwrap_or_default();
    let files: Vec<&(Duration, Value)> = lines
        .iter()
        .filter(|(_, v)| v["record"] == "file")
        .collect();
    assert_eq!(files.len(), 14, "{}", run.text(true));
    let measured = |v: &Value| v["error"].is_null();
    let first = files
        .iter()
        .position(|(_, v)| measured(v))
        .unwrap_or_else(|| panic!("no fincore figures\n{}", run.text(true)));
    // the run's figures stay from the first report that has them
    assert!(files[first..].iter().all(|(_, v)| measured(v)));
    for (_, v) in &files[..first] {
        assert_eq!(v["error"], "no fincore run from the node yet", "{v}");
    }
    let out = Command::new(&real)
        .args(["--raw", "--bytes", "--noheadings", "--output", "PAGES,SIZE"])
        .arg(&data)
        .output()
        .unwrap();
    let here = String::from_utf8(out.stdout).unwrap();
    let (_, v) = files[first];
    assert_eq!(
        format!("{} {}\n", v["res_pages"], v["size_bytes"]),
        here,
        "{v}"
    );
    assert_eq!(v["method"], "fincore");
    let figures_at = files[first].0;
    println!(
        "{test}: reports every {:?} at most (gaps {:?}); {first} reports before the run's \
         figures, which came {figures_at:?} after the start",
        widest,
        gaps.iter().map(|g| g.as_millis()).collect::<Vec<_>>()
    );
    assert!(
        widest <= Duration::from_millis(1250),
        "a gap of {widest:?} between reports at 0.5 s: {gaps:?}\n{}",
        run.text(true)
    );
    assert!(figures_at >= delay, "{figures_at:?}");
    // samples came all through the run: connecting takes well under 1.5 s
    assert!(first >= 3, "{first} reports before the figures");
    assert!(files.len() - first >= 3, "too few reports after the run");
}

/// Patterns that would run `touch D/pN` if any shell read them as code:
/// quotes of every shell, substitutions, separators, history, braces,
/// printf formats, a newline and a trailing backslash.
fn hostile_patterns(d: &str) -> Vec<String> {
    [
        "\\\"; do touch {d}/p1; done; for Z in \\\"",
        "\"; touch {d}/p2; \"",
        "'; touch {d}/p3; '",
        "$(touch {d}/p4)",
        "`touch {d}/p5`",
        "*; touch {d}/p6",
        "x\ntouch {d}/p7\n",
        "(touch {d}/p8)",
        "!touch {d}/p9",
        "$(touch${IFS}{d}/p10)",
        "\\\\'; touch {d}/p11; echo \\\\'",
        "%s%n%b touch {d}/p12",
        "{d}/*$(touch {d}/p13)*",
        "{{touch,{d}/p14}}",
        ";touch {d}/p15;",
        "|touch {d}/p16",
        "&& touch {d}/p17",
        "$((1)) $(touch {d}/p18)",
        "{d}/p19\\",
        "\"$(touch {d}/p20)\"",
        "-- ; touch {d}/p21",
        "\\",
        "\\047; touch {d}/p22; \\047",
        "'\"'\"'; touch {d}/p23 #",
    ]
    .iter()
    .map(|p| p.replace("{d}", d).replace("{{", "{").replace("}}", "}"))
    .collect()
}

/// File names that would run `touch strata-pwned-N` (in the login's
/// home, where sshd starts the command: a name holds no '/') if a shell
/// read them as code.
const HOSTILE_NAMES: [&str; 5] = [
    "a;touch strata-pwned-31;.dat",
    "$(touch strata-pwned-32).dat",
    "`touch strata-pwned-33`.dat",
    "x\ntouch strata-pwned-34\n.dat",
    "'; touch strata-pwned-35; '.dat",
];

/// What a hostile name made in the home of the login running the test.
fn pwned_in_home() -> Vec<String> {
    let Some(home) = std::env::var_os("HOME") else {
        return Vec::new();
    };
    std::fs::read_dir(home)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("strata-pwned-"))
                .collect()
        })
        .unwrap_or_default()
}

/// A node whose login shell is `shell` (its forced command hands strata's
/// command to that shell, as sshd does with a user's login shell) samples
/// and measures residency, and no pattern or file name runs as code on
/// it: strata's command line is words no shell reads differently, and
/// the script and patterns go to `sh` as data. Before, a fish node never
/// reported, and a pattern created a file there.
#[test]
fn a_node_under_sh_bash_fish_and_tcsh_samples_and_runs_nothing_it_is_sent() {
    let test = "a_node_under_sh_bash_fish_and_tcsh_samples_and_runs_nothing_it_is_sent";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    if fincore_or_skip(test).is_none() {
        return;
    }
    let _serial = serial();
    for (i, shell) in ["sh", "bash", "fish", "tcsh"].into_iter().enumerate() {
        let Some(path) = peer_tools::find_in_path(shell) else {
            assert!(
                std::env::var_os("STRATA_REQUIRE_SSHD").is_none(),
                "{test}: {shell} required (scripts/test installs it as root)"
            );
            eprintln!("SKIPPED {test} under {shell}: not installed");
            continue;
        };
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().to_str().unwrap().to_string();
        std::fs::write(d.path().join("data.dat"), vec![7u8; 12_000]).unwrap();
        for name in HOSTILE_NAMES {
            std::fs::write(d.path().join(name), b"x").unwrap();
        }
        let force = keys.path(&format!("login-{shell}.sh"));
        std::fs::write(
            &force,
            format!(
                "#!/bin/sh\nexec {} -c \"$SSH_ORIGINAL_COMMAND\"\n",
                path.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&force, std::fs::Permissions::from_mode(0o755)).unwrap();
        let ip = format!("127.0.0.{}", 81 + i);
        let node = Sshd::start(&keys, &ip, &format!("ForceCommand {}", force.display()));
        let kh = known_hosts(&keys, &[&node]);
        let tag = nonce("shells");
        let mut args: Vec<String> = ["cache", "--interval", "1", "--count", "2"]
            .map(String::from)
            .to_vec();
        args.extend(["--format".into(), "json".into()]);
        args.extend(["--cache-files".into(), format!("{dir}/*.dat")]);
        // Joined to the flag: a value that starts with '-' stays a value.
        args.extend(
            hostile_patterns(&dir)
                .iter()
                .map(|p| format!("--cache-files={p}")),
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut run = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
        let (status, _) = run.finish(Duration::from_secs(40));
        let text = run.text(true);
        assert!(
            status.success(),
            "{shell}: {status}\n{text}\n{}",
            node.log_text()
        );
        let records: Vec<Value> = run
            .stdout()
            .iter()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect();
        // Sampled: the node's page cache, every interval.
        assert!(
            records.iter().filter(|v| v["record"] == "total").count() >= 2,
            "{shell}: {text}"
        );
        // Residency: fincore ran on the node over the file the pattern
        // matched (the last interval: the first may come before the run).
        let data = records.iter().rev().find(|v| {
            v["record"] == "file" && v["file"].as_str().is_some_and(|f| f.ends_with("/data.dat"))
        });
        assert!(
            data.is_some_and(|v| v["method"] == "fincore" && v["size_bytes"] == 12_000),
            "{shell}: {text}"
        );
        let made: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('p'))
            .collect();
        assert!(made.is_empty(), "{shell}: ran on the node: {made:?}");
        assert_eq!(
            pwned_in_home(),
            Vec::<String>::new(),
            "{shell}: ran on the node"
        );
        assert_no_sampler_left(&tag, shell);
        println!(
            "{test}: {shell}: {} records, {} patterns, nothing run",
            records.len(),
            hostile_patterns(&dir).len() + 1
        );
    }
}

/// A node that sends frames without being asked (its sampler's loop no
/// longer waits for a request) gets one sample per request, on the
/// boundaries: the rest are dropped, counted and said. Before, every
/// frame was a sample: `--count 3` ended in 0.3 s with three rows of one
/// timestamp.
#[test]
fn frames_a_node_sends_unasked_are_dropped_counted_and_said() {
    let test = "frames_a_node_sends_unasked_are_dropped_counted_and_said";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let _serial = serial();
    let force = keys.path("flood.sh");
    std::fs::write(
        &force,
        "#!/bin/sh\nIFS= read -r s\n\
         s=$(printf '%s\\n' \"$s\" | sed -e 's#read -r t || exit 0; ##')\n\
         exec sh -c \"$s\" flood\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&force, std::fs::Permissions::from_mode(0o755)).unwrap();
    let node = Sshd::start(
        &keys,
        "127.0.0.86",
        &format!("ForceCommand {}", force.display()),
    );
    let kh = known_hosts(&keys, &[&node]);
    let tag = nonce("flood");
    let args = [
        "disks",
        "--interval",
        "1",
        "--count",
        "3",
        "--format",
        "json",
    ];
    let mut run = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
    let (status, took) = run.finish(Duration::from_secs(30));
    let text = run.text(true);
    assert!(status.success(), "{status}\n{text}");
    let stamps: BTreeSet<String> = run
        .stdout()
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|v| v["timestamp"].as_str().map(String::from))
        .collect();
    assert_eq!(stamps.len(), 3, "one report per interval\n{text}");
    assert!(took >= Duration::from_millis(1500), "{took:?}\n{text}");
    let said = run.said().join("\n");
    assert!(
        said.contains("unrequested frames dropped"),
        "the node is marked\n{text}"
    );
    assert_no_sampler_left(&tag, "a flooding node");
    println!("{test}: {took:?}, {said}");
}

/// A node with busybox for its userland, as on a minimal host: its login
/// shell busybox sh and its PATH busybox's applets alone, so that the
/// `sh` strata execs, the sampler's awk and readlink are busybox's, and
/// there is no fincore (as on OL7, whose util-linux 2.23 has none). Over
/// real sshd it samples every host layer of this machine as the local run
/// does, and its watched files say that fincore is missing.
#[test]
fn a_busybox_node_without_fincore_says_so_and_samples_every_other_layer() {
    let test = "a_busybox_node_without_fincore_says_so_and_samples_every_other_layer";
    let Some(keys) = keys_or_skip(test) else {
        return;
    };
    let Some(busybox) = peer_tools::find_in_path("busybox") else {
        assert!(
            std::env::var_os("STRATA_REQUIRE_SSHD").is_none(),
            "{test}: busybox required (scripts/test installs it as root)"
        );
        eprintln!("SKIPPED {test}: no busybox");
        return;
    };
    let _serial = serial();
    let applets = keys.path("busybox-applets");
    std::fs::create_dir_all(&applets).unwrap();
    let list = Command::new(&busybox).arg("--list").output().unwrap();
    for applet in String::from_utf8(list.stdout).unwrap().lines() {
        std::os::unix::fs::symlink(&busybox, applets.join(applet)).unwrap();
    }
    assert!(!applets.join("fincore").exists());
    let force = keys.path("login-busybox.sh");
    std::fs::write(
        &force,
        format!(
            "#!{} sh\nPATH={}; export PATH\nexec sh -c \"$SSH_ORIGINAL_COMMAND\"\n",
            busybox.display(),
            applets.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&force, std::fs::Permissions::from_mode(0o755)).unwrap();
    let node = Sshd::start(
        &keys,
        "127.0.0.89",
        &format!("ForceCommand {}", force.display()),
    );
    let kh = known_hosts(&keys, &[&node]);
    let tag = nonce("busybox");
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("redo01.log"), vec![7u8; 12_000]).unwrap();
    let pattern = format!("{}/*.log", d.path().display());

    let args = [
        "cache",
        "--interval",
        "1",
        "--count",
        "2",
        "--format",
        "json",
    ];
    let args = [&args[..], &["--cache-files", &pattern]].concat();
    let mut run = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
    samplers_up(&tag, 1, Duration::from_secs(10));
    // the sampler (and its watchdog) are busybox's sh, not dash
    let exes: Vec<PathBuf> = pgrep(&format!("strata-sampler-{tag}"))
        .iter()
        .filter_map(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).ok())
        .collect();
    let (status, _) = run.finish(Duration::from_secs(40));
    let text = run.text(true);
    assert!(status.success(), "{status}\n{text}\n{}", node.log_text());
    assert!(
        !exes.is_empty() && exes.iter().all(|e| *e == busybox),
        "{exes:?}"
    );
    let records: Vec<Value> = run
        .stdout()
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    let memory: Vec<&Value> = records.iter().filter(|v| v["record"] == "memory").collect();
    assert_eq!(memory.len(), 2, "{text}");
    assert!(
        memory
            .iter()
            .all(|v| v["mem_total_kb"].as_f64().is_some_and(|kb| kb > 0.0)),
        "{text}"
    );
    let file = records.iter().rev().find(|v| v["record"] == "file");
    let missing = strata::layers::cache::fincore::NO_FINCORE;
    assert!(
        file.is_some_and(|v| v["file"] == pattern.as_str() && v["error"] == missing),
        "{text}"
    );

    for (panel, key) in [("disks", "disk_device"), ("nics", "interface")] {
        let args = [panel, "--interval", "1", "--count", "2", "--format", "json"];
        let mut by_node = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
        let mut local = Run::new(strata(&keys, &kh, &[], &tag, &args));
        let (s_node, _) = by_node.finish(Duration::from_secs(30));
        let (s_local, _) = local.finish(Duration::from_secs(30));
        assert!(s_node.success(), "{s_node}\n{}", by_node.text(true));
        assert!(s_local.success(), "{s_local}\n{}", local.text(true));
        let (a, b) = (names(&by_node.stdout(), key), names(&local.stdout(), key));
        assert!(!b.is_empty(), "{panel}: no {key} locally");
        assert_eq!(a, b, "{panel}: {key}s");
    }
    let args = ["nfs", "--interval", "1", "--count", "2", "--format", "json"];
    let mut nfs = Run::new(strata(&keys, &kh, &[&node], &tag, &args));
    let (s_nfs, _) = nfs.finish(Duration::from_secs(30));
    assert!(s_nfs.success(), "{s_nfs}\n{}", nfs.text(true));
    let gone = assert_no_sampler_left(&tag, "a busybox node");
    println!("{test}: cache, disks, NICs and NFS sampled by busybox; samplers gone {gone:?}");
}

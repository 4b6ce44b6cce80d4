//! `strata check`, the binary: each kernel's fixture tree
//! (tests/fixtures/kernels) and this host line by line with the exit
//! status, a database without the Oracle client (this machine has none:
//! DPI-1047 and its fix), and a node over a real sshd on loopback whose
//! host key is first unknown (a failing line with the fix), then known
//! (its sh, files, fincore and layers read through its own sampler, the
//! Red Hat 3.10 tree behind sshd's ForceCommand).
//!
//! Every run has a clean environment: HOME a fresh directory (no config,
//! no ~/.ssh), no ssh-agent, no TERM, no LD_LIBRARY_PATH; stdin and
//! stdout are not terminals.

use crate::sshd;

use sshd::{Keys, Sshd, available, nonce, pgrep};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const KERNELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kernels");

/// The exit code, stdout and stderr of `strata ARGS` run in `cwd` with
/// HOME at `home` and nothing else of this shell's environment but PATH
/// and USER, and `env` added.
fn run(cwd: &Path, home: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata"));
    cmd.args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("USER", sshd::current_user())
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run strata");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One expected line: target, layer, status word, what, fix.
type Line = (String, &'static str, &'static str, String, Option<String>);

/// The lines as `strata check` aligns them: written out here rather than
/// by the library, so that a change of layout fails this test.
fn text(lines: &[Line]) -> String {
    let tw = lines.iter().map(|l| l.0.chars().count()).max().unwrap_or(0);
    let lw = lines.iter().map(|l| l.1.chars().count()).max().unwrap_or(0);
    lines
        .iter()
        .map(|(t, l, s, w, f)| {
            let fix = f
                .as_ref()
                .map(|f| format!(" | fix: {f}"))
                .unwrap_or_default();
            format!("{t:<tw$}  {l:<lw$}  {s:<4}  {w}{fix}\n")
        })
        .collect()
}

/// Compares line by line, so that a failure names the line.
fn assert_lines(got: &str, want: &[Line]) {
    let want = text(want);
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {}", i + 1);
    }
    assert_eq!(got.lines().count(), want.lines().count(), "{got}");
}

const DPI_1047: &str = "Oracle client library not found. DPI-1047: Cannot locate a 64-bit Oracle Client library: \"libclntsh.so: cannot open shared object file: No such file or directory\". See https://oracle.github.io/odpi/doc/installation.html#linux for help; Looked for libclntsh.so in: LD_LIBRARY_PATH (unset), the ld.so cache, /lib and /usr/lib.";
const DPI_1047_FIX: &str = "install Oracle Instant Client (Basic or Basic Light, 11.2 or later; it also needs libaio) and start strata with LD_LIBRARY_PATH set to its directory, or register it with ldconfig.";

/// The terminal and Oracle lines of a run without a terminal, TERM, or
/// Oracle client.
fn machine_lines(db_asked: bool) -> Vec<Line> {
    let host = || "this host".to_string();
    let (status, what) = if db_asked {
        ("FAIL", DPI_1047.to_string())
    } else {
        ("n/a", format!("{DPI_1047} (needed only with --db)"))
    };
    vec![
        (
            host(),
            "terminal",
            "n/a",
            "not run in a terminal (TERM=unset, no colours): the monitor needs one, check and batch do not".into(),
            None,
        ),
        (host(), "oracle", status, what, Some(DPI_1047_FIX.into())),
    ]
}

struct Kernel {
    tree: &'static str,
    release: &'static str,
    host: &'static str,
    disks: &'static str,
    nfs: &'static str,
    nics: &'static str,
    bond: &'static str,
    psi: bool,
}

const TREES: [Kernel; 4] = [
    Kernel {
        tree: "rh7-3.10",
        release: "3.10.0-1160.el7.x86_64",
        host: "ol7db01",
        disks: "14 fields a line (11 counters: a kernel before 4.18, no discard or flush counters)",
        nfs: "nfs",
        nics: "lo, eth0, eth1, bond0",
        bond: "active eth0, 2 slaves (2 up), driver v3.7.1",
        psi: false,
    },
    Kernel {
        tree: "uek5-4.14",
        release: "4.14.35-2047.518.4.2.el7uek.x86_64",
        host: "ol7db02",
        disks: "14 fields a line (11 counters: a kernel before 4.18, no discard or flush counters)",
        nfs: "nfs",
        nics: "lo, eth0, eth1, bond0",
        bond: "active eth0, 2 slaves (2 up), driver v3.7.1",
        psi: false,
    },
    Kernel {
        tree: "uek6-5.4",
        release: "5.4.17-2136.330.7.1.el8uek.x86_64",
        host: "ol8db01",
        disks: "18 fields a line (15 counters: discard, as 4.18 to 5.4 print them, no flush counters)",
        nfs: "nfs4",
        nics: "lo, ens3f0, ens3f1, bond0",
        bond: "active ens3f0, 2 slaves (2 up), driver v3.7.1",
        psi: true,
    },
    Kernel {
        tree: "uek7-5.15",
        release: "5.15.0-200.131.27.el9uek.x86_64",
        host: "ol9db01",
        disks: "20 fields a line (17 counters: discard and flush, 5.5 and later)",
        nfs: "nfs4",
        nics: "lo, ens3f0, ens3f1, bond0",
        bond: "active ens3f0, 2 slaves (2 up), driver v5.15.0-200.131.27.el9uek.x86_64",
        psi: true,
    },
];

/// The host layers' lines of a kernel tree, read directly or through a
/// node's sampler (`residency`: only a directory has one).
fn kernel_lines(target: &str, k: &Kernel, residency: bool) -> Vec<Line> {
    let t = || target.to_string();
    let r = k.release;
    let mut lines: Vec<Line> = vec![
        (
            t(),
            "kernel",
            "ok",
            format!("Linux {r}, host name {}", k.host),
            None,
        ),
        (
            t(),
            "disks",
            "ok",
            format!(
                "/proc/diskstats: {}, 5 devices; /sys/block: 3 whole devices",
                k.disks
            ),
            None,
        ),
        (
            t(),
            "cache",
            "ok",
            "/proc/meminfo and /proc/vmstat read".into(),
            None,
        ),
        (
            t(),
            "nfs",
            "ok",
            format!(
                "1 NFS export mounted: 10.0.0.5:/export/u02 on /u02 ({}, statvers=1.1)",
                k.nfs
            ),
            None,
        ),
        (
            t(),
            "nics",
            "ok",
            format!("/proc/net/dev: 4 interfaces ({})", k.nics),
            None,
        ),
        (
            t(),
            "bonding",
            "ok",
            format!("bond0: fault-tolerance (active-backup), {}", k.bond),
            None,
        ),
        (
            t(),
            "cpu",
            "ok",
            "/proc/stat: 4 CPUs online; /proc/loadavg read".into(),
            None,
        ),
    ];
    lines.push(if k.psi {
        (t(), "pressure", "ok", "/proc/pressure/cpu, io and memory read (PSI is on)".into(), None)
    } else {
        (
            t(),
            "pressure",
            "warn",
            format!("no /proc/pressure: kernel {r} is older than 4.20, which brought PSI; the CPU panel shows load and run queue without it"),
            Some("none for the other layers; PSI needs a 4.20 or later kernel (UEK6 and later)".into()),
        )
    });
    if residency {
        lines.push((
            t(),
            "residency",
            "ok",
            format!("mincore(2) fallback: kernel {r} has no cachestat(2) (Linux 6.5); it reads files this user owns or may write (any as root); no --cache-files given"),
            None,
        ));
    }
    lines
}

#[test]
fn each_kernel_tree_line_by_line_and_exit_0() {
    let home = tempfile::tempdir().unwrap();
    for k in &TREES {
        let (code, out, err) = run(
            Path::new(KERNELS),
            home.path(),
            &["--root", k.tree, "check"],
            &[],
        );
        println!("{}:\n{out}", k.tree);
        assert_eq!(code, 0, "{}: {out}{err}", k.tree);
        assert_eq!(err, "", "{}", k.tree);
        let mut want = kernel_lines(k.tree, k, true);
        want.extend(machine_lines(false));
        assert_lines(&out, &want);
    }
    // The same in JSON: the statuses by name and the exit status in `ok`.
    let (code, out, _) = run(
        Path::new(KERNELS),
        home.path(),
        &["--root", "rh7-3.10", "check", "--format", "json"],
        &[],
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ok"], true);
    let lines = v["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 11);
    assert_eq!(lines[7]["layer"], "pressure");
    assert_eq!(lines[7]["status"], "warn");
    assert_eq!(lines[10]["status"], "not_asked");
}

/// The first line of a /proc file of this machine, trimmed.
fn proc_line(path: &str) -> String {
    std::fs::read_to_string(path).unwrap().trim().to_string()
}

#[test]
fn this_host_line_by_line_and_exit_0() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, err) = run(Path::new("/"), home.path(), &["check"], &[]);
    println!("{out}{err}");
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    let layers: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| {
            let mut w = l["this host".len()..].split_whitespace();
            (w.next().unwrap(), w.next().unwrap())
        })
        .collect();
    assert!(lines.iter().all(|l| l.starts_with("this host  ")), "{out}");
    // What this VM has: PSI, cachestat (6.18), no NFS, no bond.
    assert_eq!(
        layers,
        [
            ("kernel", "ok"),
            ("disks", "ok"),
            ("cache", "ok"),
            ("nfs", "ok"),
            ("nics", "ok"),
            ("bonding", "ok"),
            ("cpu", "ok"),
            ("pressure", "ok"),
            ("residency", "ok"),
            ("terminal", "n/a"),
            ("oracle", "n/a"),
        ],
        "{out}"
    );
    let what = |i: usize| lines[i].split_once("  ok    ").map_or(lines[i], |x| x.1);
    let release = proc_line("/proc/sys/kernel/osrelease");
    let hostname = proc_line("/proc/sys/kernel/hostname");
    assert_eq!(what(0), format!("Linux {release}, host name {hostname}"));
    let diskstats = std::fs::read_to_string("/proc/diskstats").unwrap();
    let fields = diskstats.lines().next().unwrap().split_whitespace().count();
    let devices = diskstats.lines().filter(|l| !l.trim().is_empty()).count();
    let whole = std::fs::read_dir("/sys/block").unwrap().count();
    assert!(
        what(1).starts_with(&format!("/proc/diskstats: {fields} fields a line (")),
        "{}",
        lines[1]
    );
    assert!(
        what(1).ends_with(&format!(
            "), {devices} devices; /sys/block: {whole} whole devices"
        )),
        "{}",
        lines[1]
    );
    assert_eq!(what(2), "/proc/meminfo and /proc/vmstat read");
    assert_eq!(
        what(3),
        "no NFS mount in /proc/self/mountstats (the NFS panel stays empty; dNFS does not use the kernel's client)"
    );
    let nics = std::fs::read_to_string("/proc/net/dev")
        .unwrap()
        .lines()
        .count()
        - 2;
    assert!(
        what(4).starts_with(&format!("/proc/net/dev: {nics} interfaces (")),
        "{}",
        lines[4]
    );
    assert_eq!(
        what(5),
        "no bond: no /proc/net/bonding (the bonding driver is not loaded)"
    );
    let cpus = std::fs::read_to_string("/proc/stat")
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("cpu") && !l.starts_with("cpu "))
        .count();
    assert_eq!(
        what(6),
        format!("/proc/stat: {cpus} CPUs online; /proc/loadavg read")
    );
    assert_eq!(
        what(7),
        "/proc/pressure/cpu, io and memory read (PSI is on)"
    );
    assert_eq!(
        what(8),
        "cachestat(2): this kernel has it; no --cache-files given"
    );
    // The machine's lines as in the trees' runs, aligned to this run's
    // widest layer.
    let words = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let machine = text(&machine_lines(false));
    let machine: Vec<String> = machine.lines().map(words).collect();
    let tail: Vec<String> = lines[9..].iter().map(|l| words(l)).collect();
    assert_eq!(tail, machine);
}

#[test]
fn a_database_without_the_oracle_client_fails_with_dpi_1047_and_its_fix() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, err) = run(
        Path::new(KERNELS),
        home.path(),
        &[
            "--root",
            "uek7-5.15",
            "check",
            "--db",
            "dbsnmp@//127.0.0.1:9/PROD",
        ],
        &[],
    );
    println!("{out}{err}");
    assert_eq!(code, 1, "{out}{err}");
    let mut want = kernel_lines("uek7-5.15", &TREES[3], true);
    want.extend(machine_lines(true));
    want.push((
        "dbsnmp@//127.0.0.1:9/PROD".into(),
        "dnfs",
        "FAIL",
        "not connected: the Oracle client library is missing (the oracle line above)".into(),
        Some("install the client as the oracle line says, then run strata check again".into()),
    ));
    assert_lines(&out, &want);
}

/// A node served by a real sshd whose ForceCommand points the sampler and
/// the probe at the Red Hat 3.10 tree; its spec and the check's extra
/// arguments.
struct Node {
    keys: Keys,
    sshd: Sshd,
    tag: String,
}

impl Node {
    fn start(ip: &str) -> Node {
        let keys = Keys::new();
        let tree = PathBuf::from(KERNELS).join("rh7-3.10");
        let force = sshd::rooted_force_command(&keys, &nonce("checknode"), &tree);
        let sshd = Sshd::start(&keys, ip, &format!("ForceCommand {}", force.display()));
        Node {
            keys,
            sshd,
            tag: nonce("check"),
        }
    }

    fn label(&self) -> String {
        format!("{}:{}", self.sshd.ip, self.sshd.port)
    }

    fn check(&self, known_hosts: &Path) -> (i32, String, String) {
        let spec = format!("{}@{}", self.keys.user, self.label());
        let (kh, id) = (
            known_hosts.to_string_lossy(),
            self.keys.client_key.to_string_lossy(),
        );
        run(
            Path::new(KERNELS),
            self.keys.dir.path(),
            &[
                "--root",
                "uek7-5.15",
                "check",
                "--node",
                &spec,
                "--known-hosts",
                &kh,
                "--node-identity",
                &id,
            ],
            &[("STRATA_TEST_SAMPLER_TAG", &self.tag)],
        )
    }

    fn assert_nothing_left(&self) {
        assert_nothing_left(&self.tag);
    }
}

/// Nothing the check started stays on a host: a sampler ends with its
/// stdin, the probe at once (within 10 s).
fn assert_nothing_left(tag: &str) {
    let start = Instant::now();
    let left = loop {
        let left = pgrep(&format!("strata-(sampler|check)-{tag}"));
        if left.is_empty() || start.elapsed() > Duration::from_secs(10) {
            break left;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(left.is_empty(), "left on the host: {left:?}");
}

/// The lines of the uek7 tree, this machine and the keys line of a node.
fn head_lines(node: &Node, kh: &Path, known: bool) -> Vec<Line> {
    let mut want = kernel_lines("uek7-5.15", &TREES[3], true);
    want.extend(machine_lines(false));
    let label = node.label();
    let (ip, port) = (&node.sshd.ip, node.sshd.port);
    let start = format!(
        "no ssh-agent (SSH_AUTH_SOCK unset); identity files {}; {}",
        node.keys.client_key.display(),
        kh.display()
    );
    want.push(if known {
        (label, "keys", "ok", format!("{start} holds ssh-ed25519 for [{ip}]:{port}"), None)
    } else {
        (
            label,
            "keys",
            "warn",
            format!("{start} has no entry for [{ip}]:{port}"),
            Some(format!(
                "check the host's fingerprint, then ssh-keyscan -p {port} {ip} >> {}, or run with --accept-new-host-keys",
                kh.display()
            )),
        )
    });
    want
}

#[test]
fn a_node_whose_host_key_is_unknown_fails_with_its_fix() {
    let test = "a_node_whose_host_key_is_unknown_fails_with_its_fix";
    if !available(test) {
        return;
    }
    let node = Node::start("127.0.0.81");
    let kh = node.keys.path("known_hosts_empty");
    std::fs::write(&kh, "").unwrap();
    let (code, out, err) = node.check(&kh);
    println!("{out}{err}");
    assert_eq!(code, 1, "{out}{err}");
    let (ip, port) = (&node.sshd.ip, node.sshd.port);
    let fp = Keys::fingerprint(&node.keys.host_key);
    let mut want = head_lines(&node, &kh, false);
    want.push((
        node.label(),
        "ssh",
        "FAIL",
        format!(
            "unknown host key: {ip} port {port} offers ssh-ed25519 {fp}, which {} does not hold",
            kh.display()
        ),
        Some(format!(
            "check the fingerprint, then ssh-keyscan -p {port} {ip} >> {}; or run strata with --accept-new-host-keys",
            kh.display()
        )),
    ));
    assert_lines(&out, &want);
    // Nothing was learnt: the check asked for no --accept-new-host-keys.
    assert_eq!(std::fs::read_to_string(&kh).unwrap(), "");
    node.assert_nothing_left();
}

#[test]
fn a_known_node_is_checked_through_its_own_sampler() {
    let test = "a_known_node_is_checked_through_its_own_sampler";
    if !available(test) {
        return;
    }
    let node = Node::start("127.0.0.82");
    let kh = sshd::known_hosts(&node.keys, &[&node.sshd]);
    let (code, out, err) = node.check(&kh);
    println!("{out}{err}");
    assert_eq!(code, 0, "{out}{err}");
    let label = node.label();
    let l = || label.clone();
    let mut want = head_lines(&node, &kh, true);
    want.push((
        l(),
        "ssh",
        "ok",
        format!(
            "logged in as {}, host key known in {}; the node's sampler sent its files",
            node.keys.user,
            kh.display()
        ),
        None,
    ));
    // The node's own sh and tools: this machine's, behind sshd, whose
    // login shell is the user's in the password file.
    let sh = std::fs::canonicalize("/bin/sh").unwrap();
    let passwd = Command::new("getent")
        .args(["passwd", &node.keys.user])
        .output()
        .unwrap();
    let login = String::from_utf8_lossy(&passwd.stdout)
        .trim()
        .rsplit(':')
        .next()
        .unwrap()
        .to_string();
    let awk = which("awk");
    let fincore = Command::new("fincore").arg("--version").output().unwrap();
    let fincore = String::from_utf8_lossy(&fincore.stdout)
        .lines()
        .next()
        .unwrap()
        .to_string();
    want.push((
        l(),
        "sh",
        "ok",
        format!("sh is {} (login shell {login}); awk is {awk}", sh.display()),
        None,
    ));
    want.push((
        l(),
        "files",
        "warn",
        "every file disks, cache, nfs, nics, cpu, procs cannot go without is there; missing, and shown as –: cpu: /proc/pressure/cpu, cpu: /proc/pressure/io, cpu: /proc/pressure/memory".into(),
        None,
    ));
    want.push((l(), "fincore", "ok", fincore, None));
    // The 3.10 tree's layers through the node's frames: no residency line
    // (a node's files are measured by its fincore).
    want.extend(kernel_lines(&label, &TREES[0], false));
    assert_lines(&out, &want);
    node.assert_nothing_left();
}

/// Where `cmd` is on this PATH, as `command -v` says.
fn which(cmd: &str) -> String {
    let out = Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// An ssh-agent of the test's own on a socket beside its keys, holding
/// `key`; killed on Drop.
struct Agent {
    sock: PathBuf,
    child: std::process::Child,
}

impl Agent {
    fn start(keys: &Keys, key: &Path) -> Agent {
        let sock = keys.path("agent.sock");
        let child = Command::new("ssh-agent")
            .arg("-D")
            .arg("-a")
            .arg(&sock)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("ssh-agent");
        let start = Instant::now();
        while !sock.exists() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let added = Command::new("ssh-add")
            .arg(key)
            .env("SSH_AUTH_SOCK", &sock)
            .stdin(Stdio::null())
            .output()
            .expect("ssh-add");
        assert!(added.status.success(), "{added:?}");
        Agent { sock, child }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A cell logged in to with the agent's key alone (no identity file),
/// as the monitor logs in: the keys line counts the agent's key.
#[test]
fn a_known_cell_is_logged_in_to_as_the_monitor_does() {
    let test = "a_known_cell_is_logged_in_to_as_the_monitor_does";
    if !available(test) {
        return;
    }
    let keys = Keys::new();
    let agent = Agent::start(&keys, &keys.client_key);
    let cell = Sshd::start(&keys, "127.0.0.83", "");
    let kh = sshd::known_hosts(&keys, &[&cell]);
    let tag = nonce("checkcell");
    let label = format!("{}:{}", cell.ip, cell.port);
    let spec = format!("{}@{label}", keys.user);
    let k = kh.to_string_lossy();
    let sock = agent.sock.to_string_lossy();
    let (code, out, err) = run(
        Path::new(KERNELS),
        keys.dir.path(),
        &[
            "--root",
            "uek6-5.4",
            "check",
            "--cell",
            &spec,
            "--known-hosts",
            &k,
        ],
        &[("STRATA_TEST_SAMPLER_TAG", &tag), ("SSH_AUTH_SOCK", &sock)],
    );
    println!("{out}{err}");
    assert_eq!(code, 0, "{out}{err}");
    let mut want = kernel_lines("uek6-5.4", &TREES[2], true);
    want.extend(machine_lines(false));
    want.push((
        label.clone(),
        "keys",
        "ok",
        format!(
            "ssh-agent: 1 key; no identity file; {} holds ssh-ed25519 for [{}]:{}",
            kh.display(),
            cell.ip,
            cell.port
        ),
        None,
    ));
    want.push((
        label,
        "ssh",
        "ok",
        format!(
            "logged in as {}, host key known in {}; the cell's sampler streams",
            keys.user,
            kh.display()
        ),
        None,
    ));
    assert_lines(&out, &want);
    assert_nothing_left(&tag);
}

/// The node probe as a node's shell runs it (dash as sh, bash as OL7's,
/// busybox sh where there is one), reading under a kernel tree: the layer
/// files that exist, the CPU layer's files whole, its own findings.
#[test]
fn the_probe_runs_under_each_posix_shell() {
    let shells: Vec<Vec<&str>> = [vec!["sh"], vec!["bash", "--posix"], vec!["busybox", "sh"]]
        .into_iter()
        .filter(|s| !which(s[0]).is_empty())
        .collect();
    assert!(shells.len() >= 2, "{shells:?}");
    for (tree, psi) in [("rh7-3.10", false), ("uek6-5.4", true)] {
        let root = format!("{KERNELS}/{tree}");
        let script = strata::check::ssh::probe_script().replacen("R=;", &format!("R={root};"), 1);
        for shell in &shells {
            let out = Command::new(shell[0])
                .args(&shell[1..])
                .arg("-c")
                .arg(&script)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let what = format!("{shell:?} on {tree}: {text}");
            assert!(out.status.success(), "{what}");
            let (set, bad) = strata::layers::node::parse_files(&text, "probe");
            assert!(bad.is_empty(), "{what}: {bad:?}");
            for p in [
                "/proc/diskstats",
                "/proc/self/mountstats",
                "/sys/block",
                "/sys/class/net",
            ] {
                assert!(set.present.contains(p), "{what}: {p}");
            }
            assert_eq!(set.present.contains("/proc/pressure/io"), psi, "{what}");
            assert_eq!(set.files.contains_key("/proc/pressure/io"), psi, "{what}");
            assert_eq!(
                set.files["/proc/loadavg"],
                std::fs::read_to_string(format!("{root}/proc/loadavg")).unwrap(),
                "{what}"
            );
            assert_eq!(set.files["/.strata-check/awk"], which("awk"), "{what}");
            assert!(
                set.files["/.strata-check/fincore-version"].starts_with("fincore from util-linux"),
                "{what}"
            );
            let sh = &set.files["/.strata-check/sh"];
            assert!(sh.contains(shell[0]) || shell[0] == "sh", "{what}");
        }
    }
}

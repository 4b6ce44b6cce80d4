//! Real OpenSSH sshd processes on loopback, acting as storage cells: each
//! test makes its keys with ssh-keygen in a temporary directory, starts
//! sshd in the foreground with its own config, and kills it (and the
//! session processes it forked) on Drop. Works as root (privilege
//! separation, PermitRootLogin prohibit-password) and as any other user
//! (sshd then logs in only that user). Every wait is bounded.
#![allow(dead_code)]

use super::peer_tools::{find_in_path, or_skip};
use std::fs;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use strata::link::HostTarget;
use strata::link::target::parse_ssh_spec;
use strata::remote::SshOptions;

pub const SSHD: &str = "/usr/sbin/sshd";

/// True when sshd can run here. Otherwise prints SKIPPED and returns
/// false, or fails the test when STRATA_REQUIRE_SSHD=1 (scripts/test sets
/// it as root once openssh-server is installed).
pub fn available(test: &str) -> bool {
    let env = if !Path::new(SSHD).is_file() {
        Err(format!(
            "{SSHD} is missing (apt-get install openssh-server)"
        ))
    } else if find_in_path("ssh-keygen").is_none() {
        Err("ssh-keygen is missing".to_string())
    } else {
        Ok(())
    };
    or_skip(test, "STRATA_REQUIRE_SSHD", env).is_some()
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A distinct word per call, for sampler markers and file names.
pub fn nonce(what: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{what}{}x{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

pub fn current_user() -> String {
    run(Command::new("id").arg("-un")).trim().to_string()
}

/// The keys and files of one test, in a directory removed on Drop.
pub struct Keys {
    pub dir: tempfile::TempDir,
    pub host_key: PathBuf,
    /// Another host key: a cell that was reinstalled, or an impostor.
    pub other_host_key: PathBuf,
    /// Listed in authorized_keys.
    pub client_key: PathBuf,
    /// Not listed.
    pub stranger_key: PathBuf,
    /// Listed, encrypted with PASSPHRASE.
    pub encrypted_key: PathBuf,
    pub authorized_keys: PathBuf,
    pub user: String,
}

pub const PASSPHRASE: &str = "correct horse battery staple";

/// An encrypted key gets 2 bcrypt-pbkdf rounds, not ssh-keygen's 16: the
/// tests' dependencies are built without optimisation, where a decode with
/// 16 rounds took about 1 s (cells_ssh's passphrase test: 1.5 s to live
/// after the passphrase, 0.56 s with 2). The login flow under test is the
/// same for any number of rounds.
fn keygen(path: &Path, passphrase: &str) {
    let mut cmd = Command::new("ssh-keygen");
    cmd.args(["-q", "-t", "ed25519", "-N", passphrase, "-C", "strata-test"]);
    if !passphrase.is_empty() {
        cmd.args(["-a", "2"]);
    }
    run(cmd.arg("-f").arg(path));
}

impl Keys {
    pub fn new() -> Keys {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = |n: &str| dir.path().join(n);
        let keys = Keys {
            host_key: p("host_ed25519"),
            other_host_key: p("other_host_ed25519"),
            client_key: p("id_ed25519"),
            stranger_key: p("stranger_ed25519"),
            encrypted_key: p("encrypted_ed25519"),
            authorized_keys: p("authorized_keys"),
            user: current_user(),
            dir,
        };
        for k in [
            &keys.host_key,
            &keys.other_host_key,
            &keys.client_key,
            &keys.stranger_key,
        ] {
            keygen(k, "");
        }
        keygen(&keys.encrypted_key, PASSPHRASE);
        let mut auth = String::new();
        for k in [&keys.client_key, &keys.encrypted_key] {
            auth += &fs::read_to_string(k.with_extension("pub")).expect("read .pub");
        }
        fs::write(&keys.authorized_keys, auth).expect("write authorized_keys");
        keys
    }

    /// `keytype base64` of a key's .pub file.
    pub fn public(key: &Path) -> String {
        let text = fs::read_to_string(pub_path(key)).expect("read .pub");
        text.split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// "SHA256:..." as ssh-keygen -l prints it.
    pub fn fingerprint(key: &Path) -> String {
        let out = run(Command::new("ssh-keygen").arg("-lf").arg(pub_path(key)));
        out.split_whitespace()
            .nth(1)
            .expect("fingerprint")
            .to_string()
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// sshd config lines that put the stand-in cellcli
    /// (tests/fixtures/cells/cellcli, copied to `bin/`) on the PATH of the
    /// commands the cell runs: a cell that has cellcli.
    pub fn with_cellcli(&self) -> String {
        self.with_cellcli_from(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/cells/cellcli"
        )))
    }

    /// As [`with_cellcli`](Self::with_cellcli), with another stand-in (the
    /// demo's, whose cell disks are this machine's).
    pub fn with_cellcli_from(&self, fake: &Path) -> String {
        let bin = self.path("bin");
        fs::create_dir_all(&bin).expect("mkdir bin");
        fs::copy(fake, bin.join("cellcli")).expect("copy cellcli");
        fs::set_permissions(bin.join("cellcli"), fs::Permissions::from_mode(0o755))
            .expect("chmod cellcli");
        format!("SetEnv PATH={}:/usr/local/bin:/usr/bin:/bin", bin.display())
    }

    /// sshd config lines that put a slow fincore first on the PATH of the
    /// commands the node runs: one that sleeps `delay` before it execs
    /// `real` (this machine's fincore), as fincore over a few hundred GiB
    /// of datafiles takes seconds.
    pub fn with_slow_fincore(&self, real: &Path, delay: Duration) -> String {
        let bin = self.path("bin");
        fs::create_dir_all(&bin).expect("mkdir bin");
        let script = format!(
            "#!/bin/sh\nsleep {}\nexec {} \"$@\"\n",
            delay.as_secs_f64(),
            real.display()
        );
        fs::write(bin.join("fincore"), script).expect("write fincore");
        fs::set_permissions(bin.join("fincore"), fs::Permissions::from_mode(0o755))
            .expect("chmod fincore");
        format!("SetEnv PATH={}:/usr/local/bin:/usr/bin:/bin", bin.display())
    }
}

/// A ForceCommand script (`name`.sh beside the keys) that runs what
/// strata sent as sshd would, but reading under `tree`: the script strata
/// writes first on stdin gets `R=<tree>;` for its `R=;` (the root, always
/// empty as strata sends it). That script is one line, so `read` takes
/// exactly it, and what follows on stdin stays for the job.
pub fn rooted_force_command(keys: &Keys, name: &str, tree: &Path) -> PathBuf {
    let path = keys.path(&format!("{name}.sh"));
    let text = [
        "#!/bin/sh",
        "case \"$SSH_ORIGINAL_COMMAND\" in",
        "\"exec sh -s \"*) IFS= read -r s || exit 97",
        &format!(
            "  s=$(printf '%s\\n' \"$s\" | sed -e 's#R=;#R={};#')",
            tree.display()
        ),
        "  exec sh -c \"$s\" \"${SSH_ORIGINAL_COMMAND#exec sh -s }\" ;;",
        "*) exec sh -c \"$SSH_ORIGINAL_COMMAND\" ;;",
        "esac\n",
    ]
    .join("\n");
    fs::write(&path, text).expect("write the ForceCommand");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// Cell options for tests: short timeouts and backoff, no agent, no
/// prompt, and the test's tag on the sampler's marker.
pub fn options(known_hosts: &Path, interval: Duration, tag: &str) -> SshOptions {
    let interval = strata::core::duration::Interval::from_secs(interval.as_secs_f64()).unwrap();
    let mut o = SshOptions::new(interval, known_hosts.to_path_buf());
    o.connect_timeout = Duration::from_secs(3);
    o.agent_socket = None;
    o.backoff_first = Duration::from_millis(100);
    o.backoff_cap = Duration::from_millis(400);
    o.sampler_tag = tag.to_string();
    o.interactive = false;
    o
}

/// The cell `sshd` serves, logged into as the keys' user with `identity`.
pub fn target(sshd: &Sshd, keys: &Keys, identity: &Path) -> HostTarget {
    let spec = format!("{}@{}:{}", keys.user, sshd.ip, sshd.port);
    let mut t = parse_ssh_spec(&spec, "nobody").expect("spec");
    t.identity = Some(identity.to_path_buf());
    t
}

fn pub_path(key: &Path) -> PathBuf {
    let mut p = key.as_os_str().to_owned();
    p.push(".pub");
    PathBuf::from(p)
}

/// known_hosts naming each sshd by `[ip]:port` with the keys' host key.
pub fn known_hosts(keys: &Keys, sshds: &[&Sshd]) -> PathBuf {
    let path = keys.path(&nonce("known_hosts"));
    let key = Keys::public(&keys.host_key);
    let text: String = sshds
        .iter()
        .map(|s| format!("[{}]:{} {key}\n", s.ip, s.port))
        .collect();
    fs::write(&path, text).expect("write known_hosts");
    path
}

/// A free TCP port on `ip`, as the kernel picks it (released at once;
/// sshd binds it a moment later).
pub fn free_port(ip: &str) -> u16 {
    TcpListener::bind((ip, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// Parent pid of each process, from /proc/PID/stat.
fn parents() -> Vec<(u32, u32, String)> {
    let mut out = Vec::new();
    let Ok(dir) = fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // comm may hold spaces: the fields after the last ')' are fixed.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = stat[open + 1..close].to_string();
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            out.push((pid, ppid, comm));
        }
    }
    out
}

/// Every process below `root`, with its command name.
pub fn descendants(root: u32) -> Vec<(u32, String)> {
    let all = parents();
    let mut found: Vec<(u32, String)> = Vec::new();
    let mut frontier = vec![root];
    // A process tree is finite; the bound guards against pid reuse loops.
    for _ in 0..64 {
        let next: Vec<(u32, String)> = all
            .iter()
            .filter(|(pid, ppid, _)| {
                frontier.contains(ppid) && !found.iter().any(|(f, _)| f == pid)
            })
            .map(|(pid, _, comm)| (*pid, comm.clone()))
            .collect();
        if next.is_empty() {
            break;
        }
        frontier = next.iter().map(|(p, _)| *p).collect();
        found.extend(next);
    }
    found
}

fn kill(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args([sig, &pid.to_string()])
        .stderr(Stdio::null())
        .status();
}

/// `pgrep -f PATTERN`: the pids whose command line holds it.
pub fn pgrep(pattern: &str) -> Vec<u32> {
    let out = Command::new("pgrep")
        .args(["-f", pattern])
        .output()
        .expect("pgrep (procps)");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// One sshd listening on ip:port.
pub struct Sshd {
    pub ip: String,
    pub port: u16,
    pub config: PathBuf,
    pub log: PathBuf,
    child: Option<Child>,
}

impl Sshd {
    /// Starts sshd with the keys' host key and authorized_keys; `extra`
    /// lines are appended to its config.
    pub fn start(keys: &Keys, ip: &str, extra: &str) -> Sshd {
        let port = free_port(ip);
        let name = format!("sshd-{ip}-{port}");
        let config = keys.path(&format!("{name}.conf"));
        let log = keys.path(&format!("{name}.log"));
        let root = current_user() == "root";
        let text = format!(
            "ListenAddress {ip}:{port}\n\
             HostKey {}\n\
             AuthorizedKeysFile {}\n\
             StrictModes no\n\
             UsePAM no\n\
             PasswordAuthentication no\n\
             KbdInteractiveAuthentication no\n\
             PubkeyAuthentication yes\n\
             PidFile none\n\
             {}\
             LogLevel VERBOSE\n\
             {extra}\n",
            keys.host_key.display(),
            keys.authorized_keys.display(),
            if root {
                "PermitRootLogin prohibit-password\n"
            } else {
                ""
            },
        );
        fs::write(&config, text).expect("write sshd_config");
        if root {
            // The privilege-separation directory sshd chroots into.
            let _ = fs::create_dir_all("/run/sshd");
            let _ = fs::set_permissions("/run/sshd", fs::Permissions::from_mode(0o755));
        }
        let mut sshd = Sshd {
            ip: ip.to_string(),
            port,
            config,
            log,
            child: None,
        };
        sshd.launch();
        sshd
    }

    fn launch(&mut self) {
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("sshd log");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(&self.config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start sshd");
        self.child = Some(child);
        self.wait_ready();
    }

    /// Waits (at most 5 s) until the port answers with an SSH banner.
    fn wait_ready(&mut self) {
        let start = Instant::now();
        for _ in 0..100 {
            if let Some(c) = self.child.as_mut()
                && let Ok(Some(status)) = c.try_wait()
            {
                panic!("sshd exited: {status}\n{}", self.log_text());
            }
            if let Ok(mut s) = TcpStream::connect((self.ip.as_str(), self.port)) {
                let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
                let mut buf = [0u8; 8];
                if s.read_exact(&mut buf).is_ok() && &buf == b"SSH-2.0-" {
                    return;
                }
            }
            if start.elapsed() > Duration::from_secs(5) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "sshd on {}:{} not ready within 5 s\n{}",
            self.ip,
            self.port,
            self.log_text()
        );
    }

    pub fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    /// The sshd processes serving connections (not the commands they run).
    pub fn session_pids(&self) -> Vec<u32> {
        let Some(pid) = self.pid() else {
            return Vec::new();
        };
        descendants(pid)
            .into_iter()
            .filter(|(_, comm)| comm.starts_with("sshd"))
            .map(|(p, _)| p)
            .collect()
    }

    /// Cuts every connection: SIGKILL to the session sshd processes. The
    /// listener stays; the commands they ran are left to end by themselves.
    pub fn kill_sessions(&self) -> usize {
        let pids = self.session_pids();
        for &p in &pids {
            kill(p, "-KILL");
        }
        pids.len()
    }

    /// Freezes every connection (SIGSTOP): a hung cell, whose TCP
    /// connection stays open and silent. Drop kills them.
    pub fn stop_sessions(&self) -> usize {
        let pids = self.session_pids();
        for &p in &pids {
            kill(p, "-STOP");
        }
        pids.len()
    }

    /// The listener and every session: the cell is gone.
    pub fn kill_all(&mut self) {
        let sessions = self.session_pids();
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        for p in sessions {
            kill(p, "-KILL");
        }
    }

    /// sshd again on the same address, port and host key.
    pub fn restart(&mut self) {
        self.kill_all();
        self.launch();
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        self.kill_all();
    }
}

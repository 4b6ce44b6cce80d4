//! Nodes and cells over SSH, reached as the monitor reaches them
//! (`remote::run_host`: the same host key check, login and sampler):
//! the keys a login would offer and what known_hosts holds for the host,
//! the login's outcome, and for a node its first frames (the node
//! sampler's own) with a probe on a side channel: the `sh` that runs the
//! sampler, awk, fincore's version and which of the files each host layer
//! reads are there. The node's frames then go through the host checks, as
//! its panels go through the local host's parsers.

use super::{CheckLine, Status, host};
use crate::core::rootfs::{FileSet, RemoteFiles, RootFs};
use crate::layers::cells::source::{CellEvent, CellProtocol};
use crate::layers::node::{NodeDecoder, NodeEvent, NodeFrame, parse_files, sampler_job};
use crate::link::error::HostKeyError;
use crate::link::sampler::Job;
use crate::link::target::NodeTarget;
use crate::link::{HostStatus, HostTarget, Protocol, SideJob};
use crate::remote::{SshOptions, hostkey};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The probe's processes' name on a node (`pgrep -f`).
pub const PROBE_MARKER: &str = "strata-check";

/// What the probe's own findings are filed under in its frame body (a path
/// no host has, so that they cannot mix with the host's files).
const FOUND: &str = "/.strata-check";

/// The files each host layer reads on a node: those it cannot go without,
/// then those it does without (showing less). `/proc/uptime` is every
/// layer's clock.
pub const LAYER_FILES: [(&str, &[&str], &[&str]); 6] = [
    (
        "disks",
        &["/proc/uptime", "/proc/diskstats"],
        &["/sys/block"],
    ),
    (
        "cache",
        &["/proc/uptime", "/proc/meminfo", "/proc/vmstat"],
        &[],
    ),
    (
        "nfs",
        &["/proc/uptime", "/proc/self/mountstats"],
        &["/proc/self/mountinfo"],
    ),
    (
        "nics",
        &["/proc/uptime", "/proc/net/dev"],
        &["/sys/class/net", "/proc/net/route"],
    ),
    (
        "cpu",
        &["/proc/uptime", "/proc/stat"],
        &[
            "/proc/loadavg",
            "/proc/pressure/cpu",
            "/proc/pressure/io",
            "/proc/pressure/memory",
        ],
    ),
    // The processes' own files are read by the sampler's awk
    // (`=f /proc/strata/procs`), which the probe finds. Without
    // kernel.task_delayacct (before 5.14) the delay is kept unless the
    // kernel was booted without it: nothing is shown as –.
    ("procs", &["/proc/uptime"], &[]),
];

/// Every path of [`LAYER_FILES`], once each.
fn all_layer_files() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Vec::new();
    for (_, need, may) in LAYER_FILES {
        for p in need.iter().chain(may.iter()) {
            if !all.contains(p) {
                all.push(p);
            }
        }
    }
    all
}

/// The probe, one line of POSIX sh reading under `$R` (empty as sent, a
/// fixture tree in tests), in the node frames' own markup
/// (`layers::node::parse_files`): `=e PATH` for each layer file that
/// exists, the CPU layer's files whole (the sampler does not send them),
/// and its findings as attributes under `FOUND`. A pressure file that
/// exists and gives no text is PSI turned off.
pub fn probe_script() -> String {
    let files = all_layer_files().join(" ");
    let cpu = crate::layers::cpu::source::FILES.join(" ");
    [
        "export LC_ALL=C; R=; ",
        &format!("x=$(readlink /proc/$$/exe 2>/dev/null); echo \"=a {FOUND}/sh ${{x:-unknown}}\"; "),
        &format!("echo \"=a {FOUND}/login ${{SHELL:-unknown}}\"; "),
        &format!("for c in awk fincore; do p=$(command -v $c 2>/dev/null) && echo \"=a {FOUND}/$c $p\"; done; "),
        &format!("v=$(fincore --version 2>/dev/null | {{ read -r l; echo \"$l\"; }}); [ -n \"$v\" ] && echo \"=a {FOUND}/fincore-version $v\"; "),
        &format!("for p in {files}; do [ -e \"$R$p\" ] && echo \"=e $p\"; done; "),
        &format!("for p in {cpu}; do [ -r \"$R$p\" ] && awk -v r=\"$R\" \"FNR==1{{print \\\"=f \\\" substr(FILENAME,length(r)+1)}}{{print}}\" \"$R$p\" 2>/dev/null; done; "),
        "true",
    ]
    .concat()
}

/// A node as the monitor samples it, with the probe on a side channel.
struct NodeCheck;

impl Protocol for NodeCheck {
    type Event = NodeEvent;
    type Decoder = NodeDecoder;
    fn sampler(&self, tag: &str, idle: Duration) -> Job {
        sampler_job(tag, idle)
    }
    fn decoder(&self) -> NodeDecoder {
        NodeDecoder::default()
    }
    fn side(&self) -> Option<SideJob> {
        Some(SideJob {
            probe: None,
            marker: PROBE_MARKER,
            body: probe_script().into(),
            name: "strata check's probe",
            // Once: the check ends long before a second run.
            every: Some(Duration::from_secs(3600)),
            limit: Some(PROBE_LIMIT),
        })
    }
}

/// How long the probe may run on a node.
const PROBE_LIMIT: Duration = Duration::from_secs(10);

/// What a login and its first frames gave.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The first status after `Connecting` that is not `Live`.
    pub failure: Option<HostStatus>,
    pub live: bool,
    /// A node's first sample, with its facts.
    pub frame: Option<NodeFrame>,
    /// What the probe printed.
    pub probe: Option<String>,
    /// The host's stderr, as the monitor would show it.
    pub stderr: Vec<String>,
    /// The wait ran out.
    pub timed_out: bool,
}

/// How long one host may take from connect to its first frame and probe:
/// the connection, the handshake and the login's three (as the monitor
/// allows them), then the first frame's wait.
pub fn host_limit(opts: &SshOptions) -> Duration {
    opts.connect_timeout.saturating_mul(6) + PROBE_LIMIT
}

/// Runs `proto` against one host until it fails, or it is live and
/// `done` says it has what it needs, or the limit; then cancels it.
async fn watch<P: Protocol>(
    target: HostTarget,
    opts: Arc<SshOptions>,
    proto: P,
    mut take: impl FnMut(P::Event, &mut Outcome) -> Option<HostStatus>,
    done: impl Fn(&Outcome) -> bool,
) -> Outcome {
    let limit = host_limit(&opts);
    let (tx, mut rx) = mpsc::channel(64);
    let cancel = CancellationToken::new();
    let task = tokio::spawn(crate::remote::run_host(
        0,
        target,
        opts,
        Arc::new(proto),
        tx,
        cancel.clone(),
    ));
    let mut out = Outcome::default();
    let deadline = tokio::time::sleep(limit);
    tokio::pin!(deadline);
    loop {
        let ev = tokio::select! {
            _ = &mut deadline => {
                out.timed_out = true;
                break;
            }
            ev = rx.recv() => ev,
        };
        let Some(ev) = ev else { break };
        match take(ev, &mut out) {
            Some(HostStatus::Connecting) | None => {}
            Some(HostStatus::Live) => out.live = true,
            Some(other) => {
                out.failure = Some(other);
                break;
            }
        }
        if done(&out) {
            break;
        }
    }
    cancel.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
    out
}

async fn watch_node(target: HostTarget, opts: Arc<SshOptions>) -> Outcome {
    let take = |ev: NodeEvent, out: &mut Outcome| match ev {
        NodeEvent::Status { status, .. } => Some(status),
        NodeEvent::Frame { frame, .. } => {
            if out.frame.is_none() {
                out.frame = Some(*frame);
            }
            None
        }
        NodeEvent::Residency { text, .. } => {
            out.probe = Some(text);
            None
        }
        NodeEvent::Stderr { text, .. } => {
            out.stderr.push(text);
            None
        }
        NodeEvent::Rtt { .. } => None,
    };
    watch(target, opts, NodeCheck, take, |o| {
        o.frame.is_some() && o.probe.is_some()
    })
    .await
}

async fn watch_cell(target: HostTarget, opts: Arc<SshOptions>) -> Outcome {
    let take = |ev: CellEvent, out: &mut Outcome| match ev {
        CellEvent::Status { status, .. } => Some(status),
        CellEvent::Stderr { text, .. } => {
            out.stderr.push(text);
            None
        }
        _ => None,
    };
    watch(target, opts, CellProtocol, take, |o| o.live).await
}

/// How known_hosts names a host.
fn known_name(host: &str, port: u16) -> String {
    if port == 22 {
        host.to_string()
    } else {
        format!("[{host}]:{port}")
    }
}

/// The keys a login to `target` offers (the agent's, by fingerprint, or
/// why none; the identity files) and the key types known_hosts holds for
/// it (or why it cannot be read).
pub struct Keys<'a> {
    pub agent: &'a Option<Result<Vec<String>, String>>,
    pub identities: Vec<PathBuf>,
    pub known: &'a Result<String, String>,
    pub known_hosts: &'a Path,
    pub accept_new: bool,
    /// `--node-identity` or `--cell-identity`, for the fix.
    pub identity_flag: &'a str,
}

pub fn keys_line(target: &HostTarget, k: &Keys) -> CheckLine {
    let label = target.label.as_str();
    let agent_n = match k.agent {
        Some(Ok(keys)) => keys.len(),
        _ => 0,
    };
    let agent = match k.agent {
        None => "no ssh-agent (SSH_AUTH_SOCK unset)".to_string(),
        Some(Ok(keys)) if keys.len() == 1 => "ssh-agent: 1 key".to_string(),
        Some(Ok(keys)) => format!("ssh-agent: {} keys", keys.len()),
        Some(Err(e)) => e.clone(),
    };
    let ids = if k.identities.is_empty() {
        "no identity file".to_string()
    } else {
        let names: Vec<String> = k
            .identities
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        format!("identity files {}", names.join(", "))
    };
    let file = k.known_hosts.display();
    let name = known_name(&target.host, target.port);
    let known = match k.known {
        Err(e) => Err(format!("cannot read {file}: {e}")),
        Ok(text) => {
            let types: Vec<String> = hostkey::known_algorithms(text, &target.host, target.port)
                .iter()
                .map(|a| a.as_str().to_string())
                .collect();
            Ok(types)
        }
    };
    if agent_n == 0 && k.identities.is_empty() {
        return CheckLine::new(
            label,
            "keys",
            Status::Fail,
            format!("no key to log in with: {agent}, {ids}"),
        )
        .with_fix(format!(
            "load a key into ssh-agent (ssh-add) or name one with {}",
            k.identity_flag
        ));
    }
    match known {
        Err(e) => CheckLine::new(label, "keys", Status::Fail, format!("{agent}; {ids}; {e}"))
            .with_fix("make the file readable, or name another with --known-hosts"),
        Ok(types) if types.is_empty() && k.accept_new => CheckLine::ok(
            label,
            "keys",
            format!("{agent}; {ids}; {file} has no entry for {name}: --accept-new-host-keys will add the key it offers"),
        ),
        Ok(types) if types.is_empty() => CheckLine::new(
            label,
            "keys",
            Status::Warn,
            format!("{agent}; {ids}; {file} has no entry for {name}"),
        )
        .with_fix(format!(
            "check the host's fingerprint, then ssh-keyscan -p {} {} >> {file}, or run with --accept-new-host-keys",
            target.port, target.host
        )),
        Ok(types) => CheckLine::ok(
            label,
            "keys",
            format!(
                "{agent}; {ids}; {file} holds {} for {name}",
                types.join(", ")
            ),
        ),
    }
}

/// The login's line: live, or the status that stopped it, with its fix.
pub fn ssh_line(
    target: &HostTarget,
    out: &Outcome,
    known_hosts: &Path,
    limit: Duration,
    what_runs: &str,
) -> CheckLine {
    let label = target.label.as_str();
    let (host, port, user) = (&target.host, target.port, &target.user);
    let fail =
        |what: String, fix: String| CheckLine::new(label, "ssh", Status::Fail, what).with_fix(fix);
    match &out.failure {
        Some(HostStatus::HostKeyRefused(e)) => match e {
            HostKeyError::Unknown { offered, file, .. } => fail(
                format!(
                    "unknown host key: {host} port {port} offers {offered}, which {file} does not hold"
                ),
                format!(
                    "check the fingerprint, then ssh-keyscan -p {port} {host} >> {file}; or run strata with --accept-new-host-keys"
                ),
            ),
            HostKeyError::Changed {
                offered,
                file,
                line,
                known,
                ..
            } => fail(
                format!(
                    "HOST KEY CHANGED: {host} port {port} offers {offered}, {file} line {line} holds {known}"
                ),
                format!(
                    "if {host} was reinstalled, remove the old key (ssh-keygen -R '{}' -f {file}) and add the new one; otherwise do not connect",
                    known_name(host, port)
                ),
            ),
            other => fail(
                format!("host key refused: {other}"),
                format!(
                    "make {} hold the host's current key, as OpenSSH's ssh would need",
                    known_hosts.display()
                ),
            ),
        },
        Some(HostStatus::AuthFailed(e)) => fail(
            format!("login refused: {e}"),
            format!(
                "add your public key to ~{user}/.ssh/authorized_keys on {host}, or load the key it holds into ssh-agent"
            ),
        ),
        Some(HostStatus::NeedsPassphrase(p)) => fail(
            HostStatus::NeedsPassphrase(p.clone()).to_string(),
            format!("ssh-add {} (strata check never prompts)", p.display()),
        ),
        Some(other) => {
            let said = out
                .stderr
                .last()
                .map(|s| format!("; it said: {s}"))
                .unwrap_or_default();
            fail(
                format!("{other}{said}"),
                format!(
                    "check the host name and port, that sshd runs on {host} and that nothing drops port {port}"
                ),
            )
        }
        None if out.live => CheckLine::ok(
            label,
            "ssh",
            format!(
                "logged in as {user}, host key known in {}; {what_runs}",
                known_hosts.display()
            ),
        ),
        None => {
            let said = out
                .stderr
                .last()
                .map(|s| format!("; it said: {s}"))
                .unwrap_or_default();
            let when = if out.timed_out {
                format!("within {} s", limit.as_secs())
            } else {
                "before its login ended".to_string()
            };
            fail(
                format!("no answer from {host} port {port} {when}{said}"),
                "check the network to the host and its load".to_string(),
            )
        }
    }
}

/// A finding of the probe.
fn found<'a>(probe: &'a FileSet, name: &str) -> Option<&'a str> {
    probe
        .files
        .get(&format!("{FOUND}/{name}"))
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
}

pub fn sh_line(label: &str, probe: &FileSet) -> CheckLine {
    let sh = found(probe, "sh").unwrap_or("unknown");
    let login = found(probe, "login").unwrap_or("unknown");
    match found(probe, "awk") {
        Some(awk) => CheckLine::ok(
            label,
            "sh",
            format!("sh is {sh} (login shell {login}); awk is {awk}"),
        ),
        None => CheckLine::new(
            label,
            "sh",
            Status::Fail,
            format!("sh is {sh} (login shell {login}); no awk on its PATH"),
        )
        .with_fix("install awk (gawk, mawk or busybox awk) on the node: the sampler reads /proc through it"),
    }
}

/// Which of the files each host layer reads the probe found.
pub fn files_line(label: &str, probe: &FileSet) -> CheckLine {
    let mut lacking = Vec::new();
    let mut without = Vec::new();
    let mut n = 0;
    for (layer, need, may) in LAYER_FILES {
        for p in need {
            n += 1;
            if !probe.present.contains(*p) {
                lacking.push(format!("{layer}: {p}"));
            }
        }
        for p in may {
            n += 1;
            if !probe.present.contains(*p) {
                without.push(format!("{layer}: {p}"));
            }
        }
    }
    let layers: Vec<&str> = LAYER_FILES.iter().map(|(l, _, _)| *l).collect();
    if !lacking.is_empty() {
        return CheckLine::new(
            label,
            "files",
            Status::Fail,
            format!("missing, so those layers are not sampled: {}", lacking.join(", ")),
        )
        .with_fix("the login must see the node's own /proc and /sys (not a container's): check it with ssh NODE ls /proc/diskstats");
    }
    if !without.is_empty() {
        return CheckLine::new(
            label,
            "files",
            Status::Warn,
            format!(
                "every file {} cannot go without is there; missing, and shown as –: {}",
                layers.join(", "),
                without.join(", ")
            ),
        );
    }
    CheckLine::ok(
        label,
        "files",
        format!("all {n} files {} read are there", layers.join(", ")),
    )
}

pub fn fincore_line(label: &str, probe: &FileSet, watched: bool) -> CheckLine {
    match (found(probe, "fincore"), found(probe, "fincore-version")) {
        (Some(_), Some(v)) => CheckLine::ok(label, "fincore", v.to_string()),
        (Some(p), None) => CheckLine::new(
            label,
            "fincore",
            if watched { Status::Fail } else { Status::Warn },
            format!("{p} did not say its version (fincore --version)"),
        )
        .with_fix("install util-linux 2.30 or later on the node"),
        (None, _) => CheckLine::new(
            label,
            "fincore",
            if watched { Status::Fail } else { Status::Warn },
            "no fincore on the node's PATH (util-linux before 2.30, as OL7's 2.23): no residency of --cache-files there; every other layer is sampled",
        )
        .with_fix("install util-linux 2.30 or later on the node, or leave --cache-files out"),
    }
}

/// The lines of one node from its outcome.
pub fn node_lines(
    target: &HostTarget,
    keys: CheckLine,
    out: Outcome,
    opts: &SshOptions,
    watched: bool,
) -> Vec<CheckLine> {
    let label = target.label.as_str();
    let mut lines = vec![
        keys,
        ssh_line(
            target,
            &out,
            &opts.known_hosts,
            host_limit(opts),
            "the node's sampler sent its files",
        ),
    ];
    // A frame comes only once the node is live.
    let Some(frame) = out.frame else {
        return lines;
    };
    let Some(text) = out.probe else {
        lines.push(
            CheckLine::new(
                label,
                "sh",
                Status::Fail,
                format!("the probe gave nothing within {} s", PROBE_LIMIT.as_secs()),
            )
            .with_fix("check the node's load; run strata check again"),
        );
        return lines;
    };
    let (probe, _) = parse_files(&text, "strata check's probe");
    lines.push(sh_line(label, &probe));
    lines.push(files_line(label, &probe));
    lines.push(fincore_line(label, &probe, watched));
    // The node's files as its panels read them: the sampler's, with the
    // CPU layer's files the probe sent.
    let files = Arc::new(RemoteFiles::default());
    if let Some(facts) = frame.facts.clone() {
        files.set_facts(facts);
    }
    let mut sample = frame.files;
    for (k, v) in &probe.files {
        if !k.starts_with(FOUND) {
            sample.files.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    files.set_sample(sample);
    let fs = RootFs::remote(files);
    let psi_off: HashSet<&str> = [
        "/proc/pressure/cpu",
        "/proc/pressure/io",
        "/proc/pressure/memory",
    ]
    .into_iter()
    .filter(|p| probe.present.contains(*p) && !probe.files.contains_key(*p))
    .collect();
    for mut l in host::host_lines(&fs, label) {
        if l.layer == "pressure" && !psi_off.is_empty() {
            let off = [0, 1, 2].map(|_| {
                crate::layers::cpu::source::PsiRead::Missing(
                    crate::layers::cpu::source::PsiMissing::Off,
                )
            });
            l = host::pressure_line(
                label,
                Some(&off),
                fs.attr("/proc/sys/kernel/osrelease").as_deref(),
            );
        }
        lines.push(l);
    }
    lines
}

/// Every remote node's and cell's lines, all hosts checked at once.
pub fn check(
    nodes: &[NodeTarget],
    cells: &[HostTarget],
    opts: &SshOptions,
    watched: bool,
) -> Vec<CheckLine> {
    let remote: Vec<HostTarget> = nodes
        .iter()
        .filter_map(|n| match n {
            NodeTarget::Remote(t) => Some(t.clone()),
            NodeTarget::Local { .. } => None,
        })
        .collect();
    if remote.is_empty() && cells.is_empty() {
        return Vec::new();
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            return vec![CheckLine::new(
                "ssh",
                "ssh",
                Status::Fail,
                format!("no async runtime: {e}"),
            )];
        }
    };
    let mut opts = opts.clone();
    // Nobody answers a prompt here: an encrypted key says so and fails.
    opts.interactive = false;
    let opts = Arc::new(opts);
    rt.block_on(async {
        let agent = match &opts.agent_socket {
            Some(sock) => Some(crate::remote::agent_keys(sock).await),
            None => None,
        };
        let known = match hostkey::read_known_hosts(&opts.known_hosts) {
            Ok(t) => Ok(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(e.to_string()),
        };
        let keys = |t: &HostTarget, flag: &'static str| {
            keys_line(
                t,
                &Keys {
                    agent: &agent,
                    identities: crate::remote::identity_files(t),
                    known: &known,
                    known_hosts: &opts.known_hosts,
                    accept_new: opts.accept_new_host_keys,
                    identity_flag: flag,
                },
            )
        };
        let node_runs = remote
            .iter()
            .map(|t| watch_node(t.clone(), Arc::clone(&opts)));
        let cell_runs = cells
            .iter()
            .map(|t| watch_cell(t.clone(), Arc::clone(&opts)));
        let (node_outs, cell_outs) = futures::join!(
            futures::future::join_all(node_runs),
            futures::future::join_all(cell_runs)
        );
        let mut lines = Vec::new();
        for (t, out) in remote.iter().zip(node_outs) {
            lines.extend(node_lines(
                t,
                keys(t, "--node-identity"),
                out,
                &opts,
                watched,
            ));
        }
        for (t, out) in cells.iter().zip(cell_outs) {
            lines.push(keys(t, "--cell-identity"));
            lines.push(ssh_line(
                t,
                &out,
                &opts.known_hosts,
                host_limit(&opts),
                "the cell's sampler streams",
            ));
        }
        lines
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layer_table_names_every_file_the_node_sampler_and_the_cpu_source_read() {
        let all = all_layer_files();
        for f in crate::layers::host::node_files()
            .iter()
            .chain(crate::layers::cpu::source::FILES.iter())
        {
            assert!(all.contains(f), "{f} is read on a node but not checked");
        }
    }

    #[test]
    fn the_probe_is_one_line_that_reads_under_its_root() {
        let s = probe_script();
        assert!(!s.contains('\n'));
        assert!(s.starts_with("export LC_ALL=C; R=; "), "{s}");
    }

    #[test]
    fn a_changed_key_or_a_refused_login_says_what_to_do() {
        use crate::link::error::{LoginError, OfferedKey};
        let t = crate::link::target::parse_ssh_spec("oracle@db01:2222", "u").unwrap();
        let kh = Path::new("/home/u/.ssh/known_hosts");
        let out = |status| Outcome {
            failure: Some(status),
            ..Outcome::default()
        };
        let changed = HostStatus::HostKeyRefused(HostKeyError::Changed {
            host: "db01".into(),
            port: 2222,
            offered: OfferedKey {
                key_type: "ssh-ed25519".into(),
                fingerprint: "SHA256:new".into(),
            },
            file: kh.display().to_string(),
            line: 7,
            known: "SHA256:old".into(),
        });
        let l = ssh_line(&t, &out(changed), kh, Duration::from_secs(40), "");
        assert_eq!(l.status, Status::Fail);
        assert_eq!(
            l.what,
            "HOST KEY CHANGED: db01 port 2222 offers ssh-ed25519 SHA256:new, /home/u/.ssh/known_hosts line 7 holds SHA256:old"
        );
        assert_eq!(
            l.fix.as_deref(),
            Some(
                "if db01 was reinstalled, remove the old key (ssh-keygen -R '[db01]:2222' -f /home/u/.ssh/known_hosts) and add the new one; otherwise do not connect"
            )
        );
        let refused = HostStatus::AuthFailed(LoginError::NoKeyAccepted {
            user: "oracle".into(),
            host: "db01:2222".into(),
            tried: vec!["agent key SHA256:k refused".into()],
        });
        let l = ssh_line(&t, &out(refused), kh, Duration::from_secs(40), "");
        assert_eq!(
            l.what,
            "login refused: oracle@db01:2222: no key accepted: agent key SHA256:k refused"
        );
        assert!(
            l.fix
                .unwrap()
                .starts_with("add your public key to ~oracle/.ssh/authorized_keys on db01")
        );
        let silent = Outcome {
            timed_out: true,
            ..Outcome::default()
        };
        let l = ssh_line(&t, &silent, kh, Duration::from_secs(40), "");
        assert_eq!(l.what, "no answer from db01 port 2222 within 40 s");
    }

    fn probe(text: &str) -> FileSet {
        parse_files(text, "t").0
    }

    #[test]
    fn the_probe_findings_become_lines() {
        let p = probe(
            "=a /.strata-check/sh /usr/bin/dash\n=a /.strata-check/login /bin/bash\n\
             =a /.strata-check/awk /usr/bin/awk\n=a /.strata-check/fincore /usr/bin/fincore\n\
             =a /.strata-check/fincore-version fincore from util-linux 2.38.1\n",
        );
        assert_eq!(
            sh_line("n", &p).what,
            "sh is /usr/bin/dash (login shell /bin/bash); awk is /usr/bin/awk"
        );
        assert_eq!(
            fincore_line("n", &p, true).what,
            "fincore from util-linux 2.38.1"
        );
        let bare = probe("=a /.strata-check/sh /bin/busybox\n");
        assert_eq!(sh_line("n", &bare).status, Status::Fail);
        assert_eq!(fincore_line("n", &bare, false).status, Status::Warn);
        assert_eq!(fincore_line("n", &bare, true).status, Status::Fail);
        let l = files_line("n", &bare);
        assert_eq!(l.status, Status::Fail);
        assert!(l.what.contains("disks: /proc/diskstats"), "{l:?}");
    }
}

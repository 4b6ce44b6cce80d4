//! A database node over SSH: a POSIX sh sampler (nothing installed, no
//! root) that sends the files the local host layers read, so that a
//! node's figures go through the very parsers and models of the local
//! host: the frames become a [`FileSet`] behind a `RootFs`.
//!
//! What a frame body holds, line by line (paths are absolute, as on the
//! node):
//!
//! ```text
//! =f /proc/diskstats        a whole file: the lines up to the next marker
//!    8 0 sda 1 2 ...
//! =a /sys/block/sda/size 1953525168      an attribute: its first line
//! =e /sys/block/sda/device               a path that exists
//! =d /sys/block sda sdb dm-0             the entries strata reads of a directory
//! =l /sys/class/net/eth0/master bond0    the last component of a link's target
//! ```
//!
//! The class frame (`@@C`) carries the sysfs facts: at connection, again
//! whenever the node's block devices, partitions, dm/md slaves, interfaces
//! or bond masters change, just before the sample that shows the change,
//! and once a minute at 1 s (every 60 samples) for what changes in place
//! (an MTU); the sources read their facts again at each (as the local ones
//! re-read sysfs on their own signs). Each sample frame (`@@S`) carries
//! /proc/uptime first (the node's clock), the counter files in one `awk`
//! read, then the link attributes read every interval.
//!
//! With `--cache-files`, util-linux fincore runs on a channel of its own
//! on the same connection (the side job, as cellcli on a cell), at once
//! and then every [`FINCORE_EVERY`]: a sh that expands the patterns
//! itself and runs fincore over the regular files they match. fincore
//! takes about 20 ms per GiB watched, a few hundred GiB of datafiles take
//! seconds, and a sample must never wait for it (a node without a sample
//! for two intervals and a second is stale). Its output is the node's
//! [`NodeEvent::Residency`], which goes with the next sample's files
//! ([`FileSet::fincore`]); layers/cache/fincore.rs says what it holds.
//!
//! The sampler and the fincore run read under `$R`, empty in the commands
//! strata sends; tests point them at a fixture tree through sshd's
//! ForceCommand.

use crate::core::error::ParseError;
use crate::core::rootfs::{FileSet, RemoteFiles};
use crate::link::frame::{Frame, FrameKind};
use crate::link::sampler::{self, Job};
use crate::link::{Decoder, HostEvent, HostStatus, Protocol, SideJob};
use std::sync::Arc;
use std::time::Duration;

/// How often a node runs fincore by default (the config's
/// `fincore_every`): every this many seconds' worth of samples. fincore
/// asks mincore(2) about every page of every file (util-linux 2.38.1 took
/// 20 ms for a cached 1 GiB file and 70 to 100 ms for a 4 GiB sparse one
/// on the development VM), where a sample of /proc costs a few ms;
/// residency moves at log switches and backups, not from one second to
/// the next.
pub const FINCORE_EVERY: Duration = Duration::from_secs(10);

/// How long one fincore run may take before strata closes its channel and
/// waits for the next. Not one period: at 20 ms per GiB, the most files a
/// run measures ([`FINCORE_MAX_FILES`]) of the largest datafiles (32 GiB
/// each) take under three minutes, and a run cut short gives no rows at
/// all; a run still going after five minutes hangs (a dead NFS mount).
pub const FINCORE_LIMIT: Duration = Duration::from_secs(300);

/// The fincore run's `$0` on the node, so that `pgrep -f` finds it.
pub const FINCORE_MARKER: &str = "strata-fincore";

/// Files measured per run at most: fincore's time and output grow with
/// them (256 files of 64 KiB with 46-byte paths: 15,387 bytes, the whole
/// run 40 to 55 ms under dash); the screen says when the patterns
/// matched more.
pub const FINCORE_MAX_FILES: usize = 256;

/// Samples between two runs `every` apart at `interval`: rounded to
/// whole samples, at least one. A run's figures are shown with the next
/// sample: runs closer than one interval would be measured for nothing.
pub fn every_samples(interval: Duration, every: Duration) -> u64 {
    let i = interval.as_secs_f64();
    if i <= 0.0 {
        return 1;
    }
    ((every.as_secs_f64() / i).round() as u64).max(1)
}

/// Link attributes read every interval (the NIC source's link state).
const LINK_ATTRS: &str = "carrier_changes operstate speed duplex";

/// `s` as one word of the fincore run's script that holds only octal
/// escapes in single quotes (`'\\057\\165...'`), which `printf` turns
/// back into its bytes: whatever a pattern holds, the script's code is
/// the same and the pattern is only ever data. A NUL, which no path can
/// hold and no sh variable either, is left out.
fn octal_word(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 4 + 2);
    out.push('\'');
    for b in s.bytes().filter(|b| *b != 0) {
        out.push_str(&format!("\\{b:03o}"));
    }
    out.push('\'');
    out
}

/// The fincore run's script for `patterns`, `every_ms` its cadence: a
/// function `fin` and a call to it, one line. Each pattern is decoded
/// from its octal word into a variable and expanded from it unquoted with
/// IFS empty: pathname expansion without field splitting (a name with
/// blanks or a newline stays one argument), and the results of an
/// expansion are never run. Only regular files are given to fincore
/// (opening a FIFO would block); only those the login may read and that
/// it owns or may write, or all as root, as mincore(2) calls every page of
/// any other file resident. Without fincore on the node it says so
/// (`=x`), which the screen shows.
fn fincore_script(patterns: &[String], every_ms: u64) -> String {
    let words: Vec<String> = patterns.iter().map(|p| octal_word(p)).collect();
    let cap = FINCORE_MAX_FILES;
    [
        "export LC_ALL=C; R=; ",
        "U=$(id -u 2>/dev/null); ",
        &format!("fin() {{ echo \"=e {every_ms}\"; command -v fincore >/dev/null 2>&1 || {{ echo =x; return 0; }}; "),
        "z=$(getconf PAGESIZE 2>/dev/null) && echo \"=p $z\"; IFS=; set --; n=0; i=0; ",
        &format!("for E in {}; do P=$(printf \"${{E}}x\"); P=${{P%x}}; m=; k=0; for x in \"$R\"$P; do [ -f \"$x\" ] || continue; m=1; ", words.join(" ")),
        // A file two patterns match is measured and counted once.
        "d=; for y; do [ \"$y\" = \"$x\" ] && { d=1; break; }; done; [ -n \"$d\" ] && continue; ",
        "if [ -r \"$x\" ] && { [ \"$U\" = 0 ] || [ -O \"$x\" ] || [ -w \"$x\" ]; }; then n=$((n+1)); ",
        &format!("[ $n -le {cap} ] && set -- \"$@\" \"$x\"; else k=$((k+1)); fi; done; "),
        "[ -n \"$m\" ] || echo \"=u $i\"; [ $k -gt 0 ] && echo \"=n $i $k\"; i=$((i+1)); done; ",
        &format!("[ $n -gt {cap} ] && echo \"=c {cap} $n\"; "),
        // coreutils' timeout, where there is one, ends a fincore that hangs
        // (an NFS server gone under a hard mount) before the run's limit.
        &format!("T=; command -v timeout >/dev/null 2>&1 && T=\"timeout -s KILL {}\"; ", FINCORE_LIMIT.as_secs().saturating_sub(10).max(1)),
        "[ $# -gt 0 ] && { IFS=\" \"; $T fincore --raw --bytes --noheadings --output RES,PAGES,SIZE,FILE -- \"$@\"; }; return 0; }; ",
        "fin",
    ]
    .concat()
}

/// The sampler, one line. Functions: `a` an attribute, `e` paths that
/// exist, `l` a link's last component, `d` a listing (`$2` a glob), `f`
/// whole files with their headers in one awk.
fn script() -> String {
    // Every host layer's files, from the one list of host layers: a
    // layer's source reads on a node what its sampler sends, and nothing
    // else. `/proc/net/bonding/*` is added to them.
    let files = crate::layers::host::node_files().join(" ");
    // The layers' own readers (the processes'), which keep what they sent
    // last in the sampler's private directory `$T`.
    let (defs, calls) = crate::layers::host::node_scripts();
    [
        "export LC_ALL=C; R=; ",
        &defs,
        "a() { v=; if { read -r v <\"$R$1\"; } 2>/dev/null || [ -n \"$v\" ]; then printf \"=a %s %s\\n\" \"$1\" \"$v\"; fi; }; ",
        "e() { for x; do [ -e \"$R$x\" ] && printf \"=e %s\\n\" \"$x\"; done; }; ",
        "l() { t=$(readlink \"$R$1\" 2>/dev/null) && printf \"=l %s %s\\n\" \"$1\" \"${t##*/}\"; }; ",
        "d() { [ -d \"$R$1\" ] || return 0; n=; for x in \"$R$1\"/$2; do [ -e \"$x\" ] && n=\"$n ${x##*/}\"; done; printf \"=d %s%s\\n\" \"$1\" \"$n\"; }; ",
        "f() { awk -v r=\"$R\" \"FNR==1{print \\\"=f \\\" substr(FILENAME,length(r)+1)}{print}\" \"$@\" 2>/dev/null; }; ",
        "facts() { a /proc/sys/kernel/hostname; a /proc/sys/kernel/osrelease; e /sys/block /sys/class/net; d /sys/block \"*\"; ",
        "for b in \"$R\"/sys/block/*; do [ -e \"$b\" ] || continue; b=${b#\"$R\"}; ",
        "a \"$b/queue/rotational\"; a \"$b/size\"; a \"$b/dm/name\"; a \"$b/device/model\"; e \"$b/device\"; d \"$b/slaves\" \"*\"; ",
        "n=; for p in \"$R$b\"/*; do [ -f \"$p/partition\" ] || continue; p=${p#\"$R\"}; n=\"$n ${p##*/}\"; e \"$p/partition\"; a \"$p/size\"; done; ",
        "printf \"=d %s%s\\n\" \"$b\" \"$n\"; done; ",
        "d /sys/class/net \"*\"; set --; for i in \"$R\"/sys/class/net/*; do [ -d \"$i\" ] || continue; i=${i#\"$R\"}; ",
        "for x in type ifindex mtu address iflink; do a \"$i/$x\"; done; ",
        "l \"$i/device/driver\"; l \"$i/master\"; e \"$i/bonding\" \"$i/bridge\" \"$i/device\" \"/proc/net/vlan/${i##*/}\"; d \"$i\" \"lower_*\"; ",
        "[ -r \"$R$i/uevent\" ] && set -- \"$@\" \"$R$i/uevent\"; done; [ $# -gt 0 ] && f \"$@\"; }; ",
        &format!("sample() {{ set --; for p in {files}; do [ -r \"$R$p\" ] && set -- \"$@\" \"$R$p\"; done; "),
        "for p in \"$R\"/proc/net/bonding/*; do [ -r \"$p\" ] && set -- \"$@\" \"$p\"; done; f \"$@\"; d /proc/net/bonding \"*\"; ",
        &format!("for i in \"$R\"/sys/class/net/*; do [ -d \"$i\" ] || continue; i=${{i#\"$R\"}}; for x in {LINK_ATTRS}; do a \"$i/$x\"; done; done; {calls}}}; "),
        "s=0; K=; while :; do ",
        "k=$(echo \"$R\"/sys/block/* \"$R\"/sys/block/*/*/partition \"$R\"/sys/block/*/slaves/* \"$R\"/sys/class/net/* \"$R\"/sys/class/net/*/master); ",
        "[ $((s % 60)) -eq 59 ] && K=; ",
        "if [ \"$k\" != \"$K\" ]; then K=$k; c=$(facts); printf \"@@C %d\\n%s\\n@@E %d %d\\n\" \"$s\" \"$c\" \"$s\" \"${#c}\" || exit 0; fi; ",
        "s=$((s+1)); ",
        "b=$(sample); printf \"@@S %d\\n%s\\n@@E %d %d\\n\" \"$s\" \"$b\" \"$s\" \"${#b}\" || exit 0; read -r t || exit 0; done",
    ]
    .concat()
}

/// What a node's sampling channel runs; `tag` ends the marker.
pub fn sampler_job(tag: &str, idle: Duration) -> Job {
    sampler::sampler_with_dir(&script(), tag, idle)
}

/// The script alone, for running it under a local shell in tests.
pub fn sampler_script() -> String {
    script()
}

/// What a line of a frame body starts, if it is a marker.
fn marker(line: &str) -> Option<(char, &str)> {
    let rest = line.strip_prefix('=')?;
    let mut chars = rest.chars();
    let kind = chars.next()?;
    let after = chars.as_str().strip_prefix(' ')?;
    "faedl".contains(kind).then_some((kind, after))
}

/// Reads a frame body into the files it names. A line outside any file
/// that is no marker is rejected; a marker without its path too.
pub fn parse_files(body: &str, source: &str) -> (FileSet, Vec<ParseError>) {
    let mut set = FileSet::default();
    let mut rejected = Vec::new();
    // The file being read: its path and its text so far.
    let mut open: Option<(String, String)> = None;
    for (i, line) in body.lines().enumerate() {
        let Some((kind, rest)) = marker(line) else {
            match open.as_mut() {
                Some((_, text)) => {
                    text.push_str(line);
                    text.push('\n');
                }
                None => rejected.push(ParseError::new(
                    source,
                    i + 1,
                    line,
                    "a marker such as '=f PATH'",
                )),
            }
            continue;
        };
        if let Some((path, text)) = open.take() {
            set.files.insert(path, text);
        }
        let (path, value) = rest.split_once(' ').unwrap_or((rest, ""));
        if !path.starts_with('/') {
            rejected.push(ParseError::new(
                source,
                i + 1,
                line,
                "an absolute path after the marker",
            ));
            continue;
        }
        let path = path.to_string();
        match kind {
            'f' => open = Some((path, String::new())),
            'a' => {
                set.files.insert(path, value.to_string());
            }
            'e' => {
                set.present.insert(path);
            }
            'd' => {
                set.dirs
                    .insert(path, value.split_whitespace().map(str::to_string).collect());
            }
            _ => {
                set.links.insert(path, value.to_string());
            }
        }
    }
    if let Some((path, text)) = open {
        set.files.insert(path, text);
    }
    (set, rejected)
}

/// One sample of a node: its files, with the facts when they changed.
#[derive(Debug, Clone)]
pub struct NodeFrame {
    /// The class frame's files, when one came since the last sample.
    pub facts: Option<Arc<FileSet>>,
    pub files: FileSet,
    /// Lines of the frames that were not understood.
    pub rejected: Vec<ParseError>,
    /// Local time of receipt, ms since the epoch.
    pub wall_ms: i64,
}

impl NodeFrame {
    /// The name the node reports (/proc/sys/kernel/hostname), when the
    /// frame brought its facts.
    pub fn hostname(&self) -> Option<String> {
        let name = self
            .facts
            .as_ref()?
            .files
            .get("/proc/sys/kernel/hostname")?;
        Some(name.trim().to_string()).filter(|n| !n.is_empty())
    }

    /// Puts the frame's files (and facts, when it brought them) where the
    /// node's sources read them; gives back its rejected lines and time.
    pub fn put(self, into: &RemoteFiles) -> (Vec<ParseError>, i64) {
        if let Some(facts) = self.facts {
            into.set_facts(facts);
        }
        into.set_sample(self.files);
        (self.rejected, self.wall_ms)
    }
}

#[derive(Debug, Clone)]
pub enum NodeEvent {
    Status {
        node: usize,
        status: HostStatus,
    },
    Rtt {
        node: usize,
        rtt: Duration,
    },
    Frame {
        node: usize,
        frame: Box<NodeFrame>,
    },
    /// What a fincore run printed (layers/cache/fincore.rs), for the
    /// node's next sample.
    Residency {
        node: usize,
        text: String,
    },
    Stderr {
        node: usize,
        text: String,
    },
}

impl NodeEvent {
    pub fn node(&self) -> usize {
        match self {
            NodeEvent::Status { node, .. }
            | NodeEvent::Rtt { node, .. }
            | NodeEvent::Frame { node, .. }
            | NodeEvent::Residency { node, .. }
            | NodeEvent::Stderr { node, .. } => *node,
        }
    }
}

impl HostEvent for NodeEvent {
    type Sample = NodeFrame;
    fn status(node: usize, status: HostStatus) -> Self {
        NodeEvent::Status { node, status }
    }
    fn rtt(node: usize, rtt: Duration) -> Self {
        NodeEvent::Rtt { node, rtt }
    }
    fn sample(node: usize, frame: NodeFrame) -> Self {
        NodeEvent::Frame {
            node,
            frame: Box::new(frame),
        }
    }
    /// A node's side command is its fincore run.
    fn side(node: usize, text: String) -> Self {
        NodeEvent::Residency { node, text }
    }
    fn stderr(node: usize, text: String) -> Self {
        NodeEvent::Stderr { node, text }
    }
}

/// A node's fincore runs: over `patterns`, every `every_ms`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FincoreJob {
    pub patterns: Vec<String>,
    pub every_ms: u64,
}

/// A database node: the sampler above, and fincore on its own channel
/// when files are watched.
#[derive(Debug, Default, Clone)]
pub struct NodeProtocol {
    fincore: Option<FincoreJob>,
}

impl NodeProtocol {
    /// Nodes sampled at `interval` that run fincore over `patterns`
    /// (`--cache-files`; none, no run) every `fincore_every` rounded to
    /// whole samples.
    pub fn new(patterns: &[String], interval: Duration, fincore_every: Duration) -> Self {
        let every = every_samples(interval, fincore_every);
        let every_ms = (interval.as_millis() as u64).saturating_mul(every);
        NodeProtocol {
            fincore: (!patterns.is_empty()).then(|| FincoreJob {
                patterns: patterns.to_vec(),
                every_ms,
            }),
        }
    }

    pub fn fincore(&self) -> Option<&FincoreJob> {
        self.fincore.as_ref()
    }
}

impl Protocol for NodeProtocol {
    type Event = NodeEvent;
    type Decoder = NodeDecoder;
    fn sampler(&self, tag: &str, idle: Duration) -> Job {
        sampler_job(tag, idle)
    }
    fn decoder(&self) -> NodeDecoder {
        NodeDecoder::default()
    }
    fn side(&self) -> Option<SideJob> {
        let job = self.fincore.as_ref()?;
        Some(SideJob {
            probe: None,
            marker: FINCORE_MARKER,
            body: fincore_script(&job.patterns, job.every_ms).into(),
            name: "fincore",
            every: Some(Duration::from_millis(job.every_ms)),
            limit: Some(FINCORE_LIMIT),
        })
    }
}

/// Rejected lines wait for the next sample; a stream of garbage must not
/// grow them without bound.
const MAX_PENDING_REJECTS: usize = 64;

#[derive(Default)]
pub struct NodeDecoder {
    facts: Option<Arc<FileSet>>,
    pending: Vec<ParseError>,
}

impl NodeDecoder {
    fn reject(&mut self, errors: impl IntoIterator<Item = ParseError>) {
        let room = MAX_PENDING_REJECTS.saturating_sub(self.pending.len());
        self.pending.extend(errors.into_iter().take(room));
    }
}

impl Decoder for NodeDecoder {
    type Sample = NodeFrame;
    fn decode(&mut self, frame: Result<Frame, ParseError>, wall_ms: i64) -> Option<NodeFrame> {
        let frame = match frame {
            Ok(f) => f,
            Err(e) => {
                self.reject([e]);
                return None;
            }
        };
        match frame.kind {
            FrameKind::Classes => {
                let (facts, bad) = parse_files(&frame.body, "node sampler: /sys");
                self.reject(bad);
                self.facts = Some(Arc::new(facts));
                None
            }
            FrameKind::Sample => {
                let (files, bad) = parse_files(&frame.body, "node sampler: sample");
                self.reject(bad);
                Some(NodeFrame {
                    facts: self.facts.take(),
                    files,
                    rejected: std::mem::take(&mut self.pending),
                    wall_ms,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cadence_rounds_to_whole_samples() {
        let every = |i| every_samples(i, FINCORE_EVERY);
        assert_eq!(every(Duration::from_secs(1)), 10);
        assert_eq!(every(Duration::from_secs(3)), 3);
        assert_eq!(every(Duration::from_secs(60)), 1);
        assert_eq!(every(Duration::from_millis(100)), 100);
        assert_eq!(every(Duration::ZERO), 1);
        assert_eq!(
            every_samples(Duration::from_secs(2), Duration::from_secs(30)),
            15
        );
    }

    #[test]
    fn one_line_and_no_fincore() {
        let s = script();
        assert!(!s.contains('\n'));
        assert!(
            !s.contains("fincore") && !s.contains("fin()") && !s.contains("@@R"),
            "{s}"
        );
        let job = sampler_job("t", Duration::from_secs(60));
        assert_eq!(job.command_line(), "exec sh -s strata-sampler-t");
    }

    /// The octal words of `script`, in order.
    fn octal_words(script: &str) -> Vec<&str> {
        let (_, rest) = script.split_once("for E in ").expect("the patterns' loop");
        let (words, _) = rest.split_once("; do P=").expect("its end");
        words.split(' ').collect()
    }

    #[test]
    fn any_pattern_is_only_data_in_the_fincore_run_and_reads_back_as_itself() {
        let pattern = "/u01/it's \"a\" $HOME `x` \\ [!*]\n*.log; $(touch M) %s %n";
        let proto = NodeProtocol::new(
            &[pattern.to_string(), "/u02/*.dbf".into()],
            Duration::from_secs(1),
            FINCORE_EVERY,
        );
        let side = proto.side().expect("a fincore job");
        assert_eq!(side.every, Some(FINCORE_EVERY));
        assert_eq!(side.limit, Some(FINCORE_LIMIT));
        assert!(side.probe.is_none());
        let job = side.job("t1", FINCORE_LIMIT);
        assert_eq!(job.command_line(), "exec sh -s strata-fincore-t1");
        let body = &side.body;
        assert!(!body.contains('\n'), "{body}");
        assert!(
            body.contains("=e 10000") && body.ends_with("; fin"),
            "{body}"
        );
        // The code is that of a harmless pattern: only the words differ.
        let plain = fincore_script(&["a".into(), "b".into()], 10_000);
        let words = octal_words(body);
        assert_eq!(
            body.replacen(&words.join(" "), "W", 1),
            plain.replacen(&octal_words(&plain).join(" "), "W", 1),
        );
        for (word, want) in words.iter().zip([pattern, "/u02/*.dbf"]) {
            let inner = &word[1..word.len() - 1];
            assert!(
                inner
                    .split('\\')
                    .skip(1)
                    .all(|o| o.len() == 3 && o.bytes().all(|b| (b'0'..=b'7').contains(&b))),
                "{word}"
            );
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "E={word}; P=$(printf \"${{E}}x\"); P=${{P%x}}; printf %s \"$P\""
                ))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
        }
        assert!(
            NodeProtocol::new(&[], Duration::from_secs(1), FINCORE_EVERY)
                .side()
                .is_none()
        );
    }

    /// Two patterns that match the same file: it is measured and counted
    /// once, as locally.
    #[test]
    fn a_file_two_patterns_match_is_one_file() {
        let dir = std::env::temp_dir().join(format!("strata-fin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.dbf"), b"x").unwrap();
        let d = dir.display();
        let patterns = [format!("{d}/*.dbf"), format!("{d}/a.*")];
        let script = fincore_script(&patterns, 1000);
        // fincore itself need not be here: a stand-in prints its arguments.
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let fake = bin.join("fincore");
        std::fs::write(&fake, "#!/bin/sh\nfor a; do echo \"arg $a\"; done\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let files: Vec<&str> = text.lines().filter(|l| l.ends_with("a.dbf")).collect();
        assert_eq!(files, [format!("arg {d}/a.dbf")], "{text}");
        assert!(!text.contains("=c "), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_body_reads_into_files_attributes_listings_and_links() {
        let body = "=f /proc/uptime\n12.00 3.00\n=f /proc/diskstats\n   8 0 sda 1 2\n   8 1 sda1 1\n\
                    =a /sys/block/sda/size 100\n=a /sys/block/sda/dm/name \n=e /sys/block/sda/device\n\
                    =d /sys/block sda sdb\n=d /proc/net/bonding\n=l /sys/class/net/eth0/master bond0\n\
                    =f /sys/class/net/eth0/uevent\nINTERFACE=eth0\nIFINDEX=2";
        let (set, bad) = parse_files(body, "t");
        assert!(bad.is_empty(), "{bad:?}");
        assert_eq!(set.files["/proc/uptime"], "12.00 3.00\n");
        assert_eq!(
            set.files["/proc/diskstats"],
            "   8 0 sda 1 2\n   8 1 sda1 1\n"
        );
        assert_eq!(set.files["/sys/block/sda/size"], "100");
        assert_eq!(set.files["/sys/block/sda/dm/name"], "");
        assert!(set.present.contains("/sys/block/sda/device"));
        assert_eq!(set.dirs["/sys/block"], vec!["sda", "sdb"]);
        assert!(set.dirs["/proc/net/bonding"].is_empty());
        assert_eq!(set.links["/sys/class/net/eth0/master"], "bond0");
        assert_eq!(
            set.files["/sys/class/net/eth0/uevent"],
            "INTERFACE=eth0\nIFINDEX=2\n"
        );
    }

    #[test]
    fn stray_lines_and_relative_paths_are_rejected() {
        let (set, bad) = parse_files("motd\n=a proc/x 1\n=f /proc/uptime\n1.00 2.00", "t");
        assert_eq!(bad.len(), 2);
        assert_eq!(bad[0].line_no, 1);
        assert_eq!(set.files.len(), 1);
    }

    #[test]
    fn facts_go_with_the_next_sample_only() {
        let mut d = NodeDecoder::default();
        let c = Frame {
            kind: FrameKind::Classes,
            seq: 0,
            body: "=e /sys/block".into(),
        };
        let s = Frame {
            kind: FrameKind::Sample,
            seq: 1,
            body: "=f /proc/uptime\n1.00 2.00".into(),
        };
        assert!(d.decode(Ok(c), 5).is_none());
        let first = d.decode(Ok(s.clone()), 6).expect("sample");
        assert!(
            first
                .facts
                .is_some_and(|f| f.present.contains("/sys/block"))
        );
        let second = d.decode(Ok(s), 7).expect("sample");
        assert!(second.facts.is_none());
        assert_eq!(second.wall_ms, 7);
    }
}

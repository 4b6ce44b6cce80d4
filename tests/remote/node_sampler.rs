//! A database node's sampler (src/remote/node.rs) run by a real `sh` on
//! this machine, without SSH: every host layer's report made from its
//! frames equals, byte for byte, the report made by reading the same tree
//! directly (`--root`), state after state; and on this machine's own /proc
//! and /sys, the same devices and interfaces as the local sources see.
//! With watched files, the node's fincore run (a command of its own, not
//! part of the sampler) gives the rows fincore run here gives, and says
//! plainly when fincore is not there.
//!
//! The script is POSIX sh: under bash in POSIX mode (as OL7's /bin/sh,
//! bash 4.2, runs it), under busybox sh, and under busybox sh with only
//! busybox's applets on PATH (its awk, no fincore), and under dash with
//! gawk (Oracle Linux's awk) or mawk as `awk`, it sends what dash sends,
//! byte for byte.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::node_tree::{tree, write_state};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;
use strata::core::rootfs::{RemoteFiles, RootFs};
use strata::layers::LayerId;
use strata::layers::cache::source::CacheSource;
use strata::layers::disks::model::Units;
use strata::layers::disks::report::Selection;
use strata::layers::disks::source::DiskSource;
use strata::layers::host::{self, HostOptions, ReportOptions};
use strata::layers::nics::source::NicSource;
use strata::layers::node::{
    FINCORE_EVERY, FINCORE_LIMIT, NodeDecoder, NodeFrame, NodeProtocol, sampler_script,
};
use strata::layers::report::Format;
use strata::layers::report::Report;
use strata::link::frame::FrameReader;
use strata::link::{Decoder, Protocol};

/// The sampler under `sh`, reading under `root` (`R=` of its script).
struct Sampler {
    child: Child,
    stdin: ChildStdin,
    bytes: mpsc::Receiver<Vec<u8>>,
    reader: FrameReader,
    decoder: NodeDecoder,
    /// Every frame so far as it came: kind, number and body.
    frames: Vec<String>,
}

/// A shell to run the scripts under: its command line, and the PATH it
/// gets (`None`: this test's).
#[derive(Clone, Debug)]
struct Shell {
    name: &'static str,
    argv: Vec<String>,
    path: Option<String>,
}

impl Shell {
    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.argv[0]);
        cmd.args(&self.argv[1..]);
        if let Some(p) = &self.path {
            cmd.env("PATH", p);
        }
        cmd
    }
}

/// dash, bash in POSIX mode, busybox sh, busybox sh with only busybox's
/// applets on its PATH (in `applets`, made here), and dash with gawk and
/// with mawk as its `awk` (beside `applets`): those installed. As root
/// (`scripts/test`) they must all be.
fn shells(applets: &std::path::Path) -> Vec<Shell> {
    let find = crate::peer_tools::find_in_path;
    let mut out = Vec::new();
    for (name, tool, args) in [
        ("dash", "dash", &[][..]),
        ("bash --posix", "bash", &["--posix"][..]),
        ("busybox sh", "busybox", &["sh"][..]),
    ] {
        let Some(exe) = find(tool) else {
            assert!(
                std::env::var_os("STRATA_REQUIRE_PARITY").is_none(),
                "{tool} required (scripts/test installs it as root)"
            );
            eprintln!("SKIPPED the sampler under {name}: no {tool}");
            continue;
        };
        let mut argv = vec![exe.display().to_string()];
        argv.extend(args.iter().map(|a| a.to_string()));
        out.push(Shell {
            name,
            argv: argv.clone(),
            path: None,
        });
        if tool == "busybox" {
            let list = Command::new(&exe)
                .arg("--list")
                .output()
                .expect("busybox --list");
            std::fs::create_dir_all(applets).unwrap();
            for applet in String::from_utf8(list.stdout).unwrap().lines() {
                let _ = std::os::unix::fs::symlink(&exe, applets.join(applet));
            }
            assert!(!applets.join("fincore").exists());
            out.push(Shell {
                name: "busybox sh, busybox's applets only",
                argv,
                path: Some(applets.display().to_string()),
            });
        }
    }
    // The node's awk programs under each awk by name, whatever `awk` is
    // here: Oracle Linux's is gawk, Debian's and Ubuntu's mawk.
    let dash = out
        .first()
        .filter(|s| s.name == "dash")
        .map(|s| s.argv.clone());
    let path = std::env::var("PATH").unwrap_or_default();
    for (name, awk) in [("dash, awk = gawk", "gawk"), ("dash, awk = mawk", "mawk")] {
        let (Some(argv), Some(exe)) = (dash.clone(), find(awk)) else {
            assert!(
                std::env::var_os("STRATA_REQUIRE_PARITY").is_none(),
                "{awk} required (scripts/test installs it as root)"
            );
            eprintln!("SKIPPED the sampler under {name}: no dash or no {awk}");
            continue;
        };
        let dir = applets.with_file_name(awk);
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::os::unix::fs::symlink(&exe, dir.join("awk"));
        out.push(Shell {
            name,
            argv,
            path: Some(format!("{}:{path}", dir.display())),
        });
    }
    out
}

impl Sampler {
    fn start(root: &str) -> Sampler {
        let sh = Shell {
            name: "sh",
            argv: vec!["/bin/sh".into()],
            path: None,
        };
        Sampler::start_under(&sh, root)
    }

    fn start_under(shell: &Shell, root: &str) -> Sampler {
        // The sampler takes its first sample unasked, when strata starts
        // it: here the first request stands for that start.
        let script = sampler_script().replacen("R=;", &format!("R={root};"), 1);
        let script = format!("read -r t; {script}");
        let mut child = shell
            .command()
            .arg("-c")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("sh");
        let stdin = child.stdin.take().unwrap();
        let mut out = child.stdout.take().unwrap();
        let (tx, bytes) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 65536];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Sampler {
            child,
            stdin,
            bytes,
            reader: FrameReader::new(),
            decoder: NodeDecoder::default(),
            frames: Vec::new(),
        }
    }

    /// Asks for a sample and waits (at most 10 s) for it.
    fn sample(&mut self) -> NodeFrame {
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
        for _ in 0..1000 {
            let chunk = self
                .bytes
                .recv_timeout(Duration::from_secs(10))
                .expect("the sampler answers");
            for frame in self.reader.push(&chunk) {
                let seen = match &frame {
                    Ok(f) => format!("{:?} {}\n{}", f.kind, f.seq, f.body),
                    Err(e) => format!("bad frame: {e}"),
                };
                self.frames.push(seen);
                if let Some(f) = self.decoder.decode(frame, 0) {
                    return f;
                }
            }
        }
        panic!("no sample frame");
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn apply(files: &RemoteFiles, frame: NodeFrame) {
    let (rejected, _) = frame.put(files);
    assert!(rejected.is_empty(), "{rejected:?}");
}

/// How many host layers there are: a report each.
fn host_layers() -> usize {
    LayerId::ALL
        .iter()
        .filter(|l| host::is_host_layer(**l))
        .count()
}

/// Every host layer's report in `format` over `fs`, from the one list of
/// host layers: a new layer is checked here without a line of its own.
fn reports(fs: &RootFs, format: Format) -> Vec<Box<dyn Report>> {
    let opts = HostOptions::default();
    let how = ReportOptions {
        format,
        units: Units::KB,
        selection: Selection {
            partitions: true,
            all_devices: true,
            mapper_names: true,
        },
        all_interfaces: true,
    };
    let reports: Vec<Box<dyn Report>> = LayerId::ALL
        .iter()
        .filter_map(|l| host::report(*l, fs.clone(), &opts, &how))
        .collect();
    assert!(reports.len() >= 4, "every host layer has a report");
    reports
}

#[test]
fn every_host_panel_from_the_frames_equals_the_tree_read_directly() {
    let dir = tree();
    let root = dir.path().to_str().unwrap().to_string();
    let local = RootFs::new(&root);
    let files = Arc::new(RemoteFiles::default());
    let remote = RootFs::remote(Arc::clone(&files));
    let mut sampler = Sampler::start(&root);
    let formats = [Format::Text, Format::Json, Format::Csv];
    let mut mine: Vec<_> = formats.iter().flat_map(|f| reports(&local, *f)).collect();
    let mut theirs: Vec<_> = formats.iter().flat_map(|f| reports(&remote, *f)).collect();
    let mut compared = 0;
    for k in 0..5u64 {
        write_state(dir.path(), k);
        apply(&files, sampler.sample());
        let wall_ms = 1_790_000_000_000 + k as i64 * 1010;
        for (a, b) in mine.iter_mut().zip(theirs.iter_mut()) {
            let (a, b) = (a.sample(wall_ms).unwrap(), b.sample(wall_ms).unwrap());
            assert_eq!(a.uptime_cs, b.uptime_cs);
            assert_eq!(a.rejected.len(), b.rejected.len(), "{:?}", b.rejected);
            assert_eq!(a.report, b.report, "state {k}");
            if k > 0 {
                assert!(
                    a.report.as_ref().is_some_and(|r| !r.is_empty()),
                    "state {k}"
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 4 * mine.len());
    for (a, b) in mine.iter().zip(&theirs) {
        assert_eq!(a.csv_header(), b.csv_header());
    }
}

#[test]
fn a_new_device_brings_its_facts_before_the_sample_that_shows_it() {
    let dir = tree();
    let root = dir.path().to_str().unwrap().to_string();
    let files = Arc::new(RemoteFiles::default());
    let kernel = dir.path().join("proc/sys/kernel");
    std::fs::create_dir_all(&kernel).unwrap();
    std::fs::write(kernel.join("hostname"), "db01.example.com\n").unwrap();
    let mut sampler = Sampler::start(&root);
    let first = sampler.sample();
    assert!(first.facts.is_some(), "facts at connection");
    // the name the node reports, for finding a RAC instance's node
    assert_eq!(first.hostname().as_deref(), Some("db01.example.com"));
    apply(&files, first);
    assert!(sampler.sample().facts.is_none(), "no change, no facts");
    let sdz = dir.path().join("sys/block/sdz");
    std::fs::create_dir_all(sdz.join("queue")).unwrap();
    std::fs::create_dir_all(sdz.join("device")).unwrap();
    std::fs::write(sdz.join("queue/rotational"), "1\n").unwrap();
    std::fs::write(sdz.join("size"), "2048\n").unwrap();
    let frame = sampler.sample();
    let facts = frame.facts.clone().expect("facts again");
    assert_eq!(facts.files["/sys/block/sdz/size"], "2048");
    assert!(facts.present.contains("/sys/block/sdz/device"));
    let fs = RootFs::remote(Arc::clone(&files));
    apply(&files, frame);
    let cat = strata::layers::disks::source::read_catalogue(
        &fs,
        &["sdz".to_string()].into_iter().collect(),
    );
    assert_eq!(
        cat["sdz"].class,
        strata::layers::disks::source::DevClass::Hdd
    );
    assert_eq!(cat["sdz"].size_bytes, Some(2048 * 512));
}

#[test]
fn on_this_machine_the_same_devices_and_interfaces_as_the_local_sources() {
    let files = Arc::new(RemoteFiles::default());
    let remote = RootFs::remote(Arc::clone(&files));
    let local = RootFs::default();
    let mut sampler = Sampler::start("");
    apply(&files, sampler.sample());
    let (d_local, d_remote) = (
        DiskSource::new(local.clone()).sample(0).unwrap(),
        DiskSource::new(remote.clone()).sample(0).unwrap(),
    );
    let names = |s: &strata::layers::disks::source::DiskSample| {
        s.devices.iter().map(|d| d.name.clone()).collect::<Vec<_>>()
    };
    assert_eq!(names(&d_local), names(&d_remote));
    assert!(!names(&d_local).is_empty());
    for (name, info) in d_local.catalogue.iter() {
        assert_eq!(Some(info), d_remote.catalogue.get(name), "{name}");
    }
    let (n_local, n_remote) = (
        NicSource::new(local).sample(0).unwrap(),
        NicSource::new(remote).sample(0).unwrap(),
    );
    let nics = |s: &strata::layers::nics::source::NicSample| {
        s.nics
            .iter()
            .map(|n| (n.counters.name.clone(), n.link.operstate, n.link.speed_mbps))
            .collect::<Vec<_>>()
    };
    assert_eq!(nics(&n_local), nics(&n_remote));
    for (name, info) in n_local.catalogue.iter() {
        assert_eq!(Some(info), n_remote.catalogue.get(name), "{name}");
    }
}

/// Files of a node to watch, with names fincore must escape; read once so
/// that pages are resident.
fn watched_tree(root: &std::path::Path) {
    let u01 = root.join("u01");
    std::fs::create_dir_all(&u01).unwrap();
    std::fs::write(u01.join("redo 01.log"), vec![7u8; 20_000]).unwrap();
    std::fs::write(u01.join("new\nline.log"), b"x").unwrap();
    std::fs::write(u01.join("it's.log"), vec![1u8; 9000]).unwrap();
    std::fs::write(u01.join("a.dbf"), b"dbf").unwrap();
    std::fs::create_dir_all(u01.join("dir.log")).unwrap();
    for e in std::fs::read_dir(&u01).unwrap() {
        let _ = std::fs::read(e.unwrap().path());
    }
}

fn fincore_here(files: &[std::path::PathBuf]) -> Option<String> {
    let out = Command::new("fincore")
        .args([
            "--raw",
            "--bytes",
            "--noheadings",
            "--output",
            "RES,PAGES,SIZE,FILE",
            "--",
        ])
        .args(files)
        .env("LC_ALL", "C")
        .output();
    match out {
        Ok(o) if o.status.success() => Some(String::from_utf8(o.stdout).unwrap()),
        other => {
            assert!(
                std::env::var_os("STRATA_REQUIRE_FINCORE").is_none(),
                "fincore required: {other:?}"
            );
            eprintln!("SKIPPED fincore on a node: no fincore here ({other:?})");
            None
        }
    }
}

/// The node's fincore run (its side job's command line, as strata sends
/// it on a channel of its own) under `sh`, reading under `root`, with
/// PATH `path` when given: what it prints.
fn fincore_run(proto: &NodeProtocol, root: &str, path: Option<&str>) -> String {
    let sh = Shell {
        name: "sh",
        argv: vec!["/bin/sh".into()],
        path: path.map(str::to_string),
    };
    fincore_run_under(&sh, proto, root)
}

/// The node's fincore run under `shell`, as [`fincore_run`].
fn fincore_run_under(shell: &Shell, proto: &NodeProtocol, root: &str) -> String {
    let job = proto.side().expect("a fincore job");
    assert_eq!(job.name, "fincore");
    assert!(
        job.probe.is_none(),
        "the run itself says when fincore is missing"
    );
    let run = job.job("", FINCORE_LIMIT);
    let script = run.script().replacen("R=;", &format!("R={root};"), 1);
    let mut cmd = shell.command();
    // As sshd runs it: its command line, the script on a stdin that stays
    // open while it runs (its end would end the run).
    let mut child = cmd
        .arg("-c")
        .arg(run.command_line())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    stdin.write_all(b"\n").unwrap();
    let out = child.wait_with_output().expect("sh");
    drop(stdin);
    assert!(out.status.success(), "{}: {out:?}", shell.name);
    assert!(
        out.stderr.is_empty(),
        "{}: {}",
        shell.name,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn fincore_runs_on_the_node_give_the_rows_fincore_gives_until_the_next_run() {
    let dir = tree();
    let root = dir.path().to_str().unwrap().to_string();
    watched_tree(dir.path());
    let patterns = vec!["/u01/*.log".to_string(), "/u02/*.arc".to_string()];
    let proto = NodeProtocol::new(&patterns, Duration::from_secs(1), FINCORE_EVERY);
    // The sampler's script has no fincore in it: a sample never waits
    // for a run.
    let script = sampler_script();
    assert!(
        !script.contains("fincore") && !script.contains("fin()") && !script.contains("@@R"),
        "{script}"
    );
    let mut sampler = Sampler::start(&root);
    let files = Arc::new(RemoteFiles::default());
    let mut cache = CacheSource::new(RootFs::remote(Arc::clone(&files)), patterns.clone());
    write_state(dir.path(), 0);
    let mut first = sampler.sample();
    assert!(
        first.files.fincore.is_none(),
        "no residency in a sample frame"
    );
    let body = fincore_run(&proto, &root, None);
    // what the node's loop does with a run's output: the next frame's
    first.files.fincore = Some(body.clone());
    apply(&files, first);
    let s = cache.sample(1_000).unwrap();
    assert!(s.rejected.is_empty(), "{:?}", s.rejected);
    // sh's glob order is fincore's: byte order in the C locale; a
    // directory is no file, and an unreadable pattern's row comes last
    let u01 = dir.path().join("u01");
    let expected: Vec<_> = ["it's.log", "new\nline.log", "redo 01.log"]
        .iter()
        .map(|n| u01.join(n))
        .collect();
    let Some(here) = fincore_here(&expected) else {
        return;
    };
    let direct = strata::layers::cache::fincore::parse_fincore(&here, &patterns, "here");
    let mut rows = direct.files.clone();
    rows.push(strata::layers::cache::source::CacheFile {
        path: "/u02/*.arc".into(),
        result: Err(strata::layers::cache::error::FileError::NoMatch),
    });
    assert_eq!(s.files, rows, "{body}");
    assert_eq!(
        s.method,
        Some(strata::layers::cache::residency::Method::Fincore)
    );
    let status = s.fincore.clone().unwrap();
    assert_eq!(
        (status.every_ms, status.at_ms, status.missing, status.capped),
        (Some(10_000), Some(1_000), false, None)
    );
    assert!(body.len() < 400, "{} bytes: {body}", body.len());
    // samples without a run: the rows stay, as old as they are
    for k in 1..4 {
        write_state(dir.path(), k);
        let f = sampler.sample();
        assert!(f.files.fincore.is_none(), "sample {k}");
        apply(&files, f);
        let s = cache.sample(1_000 + k as i64).unwrap();
        assert_eq!(s.files, rows);
        assert_eq!(s.fincore.unwrap().at_ms, Some(1_000));
    }
    let mut f = sampler.sample();
    f.files.fincore = Some(fincore_run(&proto, &root, None));
    apply(&files, f);
    assert_eq!(
        cache.sample(2_000).unwrap().fincore.unwrap().at_ms,
        Some(2_000)
    );
}

#[test]
fn without_fincore_on_the_node_its_run_says_so() {
    let dir = tree();
    let root = dir.path().to_str().unwrap().to_string();
    watched_tree(dir.path());
    // a PATH with what the run needs and no fincore
    let bin = dir.path().join(".bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["sh", "getconf", "id"] {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {tool}"))
            .output()
            .unwrap();
        let at = String::from_utf8(out.stdout).unwrap();
        std::os::unix::fs::symlink(at.trim(), bin.join(tool)).unwrap();
    }
    let patterns = vec!["/u01/*.log".to_string()];
    let proto = NodeProtocol::new(&patterns, Duration::from_secs(2), FINCORE_EVERY);
    let body = fincore_run(&proto, &root, bin.to_str());
    assert_eq!(body, "=e 10000\n=x\n");
    let mut sampler = Sampler::start(&root);
    write_state(dir.path(), 0);
    let mut frame = sampler.sample();
    frame.files.fincore = Some(body);
    let files = Arc::new(RemoteFiles::default());
    apply(&files, frame);
    let mut cache = CacheSource::new(RootFs::remote(files), patterns);
    let s = cache.sample(0).unwrap();
    assert!(s.fincore.unwrap().missing);
    assert_eq!(s.files.len(), 1);
    assert_eq!(s.files[0].path, "/u01/*.log");
    let e = s.files[0].result.as_ref().map(|_| ()).unwrap_err();
    assert_eq!(*e, strata::layers::cache::error::FileError::NoFincore);
    assert_eq!(e.to_string(), strata::layers::cache::fincore::NO_FINCORE);
}

/// Every frame the sampler sends over five states of a tree, and what
/// the node's fincore run prints, are the same bytes under bash in POSIX
/// mode and busybox sh as under dash; with busybox's applets alone on
/// PATH (its awk, readlink and id; no fincore, no getconf) the frames are
/// still the same and the run says `=x`, fincore missing, which the cache
/// layer shows on the node's patterns while the other layers sample.
#[test]
fn under_bash_posix_and_busybox_sh_the_node_sends_what_it_sends_under_dash() {
    let dir = tree();
    let root = dir.path().to_str().unwrap().to_string();
    watched_tree(dir.path());
    let bin = tempfile::tempdir().unwrap();
    let shells = shells(&bin.path().join("applets"));
    let Some(dash) = shells.first().filter(|s| s.name == "dash") else {
        return;
    };
    let mut samplers: Vec<Sampler> = shells
        .iter()
        .map(|sh| Sampler::start_under(sh, &root))
        .collect();
    let files: Vec<Arc<RemoteFiles>> = shells.iter().map(|_| Arc::default()).collect();
    // every host layer's report over each shell's frames
    let mut reps: Vec<Vec<Box<dyn Report>>> = files
        .iter()
        .map(|f| reports(&RootFs::remote(Arc::clone(f)), Format::Json))
        .collect();
    let mut reported = 0;
    for k in 0..5u64 {
        write_state(dir.path(), k);
        for (s, f) in samplers.iter_mut().zip(&files) {
            apply(f, s.sample());
        }
        let wall_ms = 1_790_000_000_000 + k as i64 * 1010;
        let mut texts: Vec<Vec<Option<String>>> = Vec::new();
        for r in &mut reps {
            texts.push(
                r.iter_mut()
                    .map(|r| r.sample(wall_ms).unwrap().report)
                    .collect(),
            );
        }
        for (sh, t) in shells.iter().zip(&texts).skip(1) {
            assert_eq!(t, &texts[0], "{} state {k}", sh.name);
        }
        reported += texts[0]
            .iter()
            .filter(|t| t.as_ref().is_some_and(|t| !t.is_empty()))
            .count();
    }
    // every host layer at each state after the first
    assert_eq!(reported, 4 * host_layers());
    let expected = samplers[0].frames.clone();
    // a class frame and five samples
    assert_eq!(expected.len(), 6, "{expected:?}");
    for (sh, s) in shells.iter().zip(&samplers).skip(1) {
        assert_eq!(s.frames.len(), expected.len(), "{}", sh.name);
        for (i, (a, b)) in expected.iter().zip(&s.frames).enumerate() {
            // busybox's awk ends a string at its first NUL: of a process's
            // command line it sends only the first argument.
            let first_args = |f: &str| {
                f.lines()
                    .map(|l| match l.rsplit_once('\t') {
                        Some((head, _)) if l.starts_with("p ") => {
                            let argv0 = head.rsplit('\t').next().unwrap_or("");
                            format!("{head}\t{argv0}\n")
                        }
                        _ => format!("{l}\n"),
                    })
                    .collect::<String>()
            };
            let a = &if sh.name.contains("busybox's applets") {
                first_args(a)
            } else {
                a.clone()
            };
            let b = &if sh.name.contains("busybox's applets") {
                first_args(b)
            } else {
                b.clone()
            };
            assert!(
                a == b,
                "{} frame {i} differs from dash's:\n{a}\n----\n{b}",
                sh.name
            );
        }
    }

    let patterns = vec!["/u01/*.log".to_string()];
    let proto = NodeProtocol::new(&patterns, Duration::from_secs(1), FINCORE_EVERY);
    let run = fincore_run_under(dash, &proto, &root);
    let has_fincore = crate::peer_tools::find_in_path("fincore").is_some();
    for sh in &shells[1..] {
        let body = fincore_run_under(sh, &proto, &root);
        if sh.name.contains("busybox's applets") {
            assert_eq!(body, "=e 10000\n=x\n", "{}", sh.name);
            // the cache layer of that node: its page cache, and why no file
            let mut frame = samplers[0].sample();
            frame.files.fincore = Some(body);
            let node = Arc::new(RemoteFiles::default());
            apply(&node, frame);
            let mut cache = CacheSource::new(RootFs::remote(node), patterns.clone());
            let c = cache.sample(0).unwrap();
            assert!(c.meminfo.kb("MemTotal").is_some(), "{}", sh.name);
            assert!(c.fincore.as_ref().is_some_and(|f| f.missing));
            assert_eq!(
                c.files[0].result,
                Err(strata::layers::cache::error::FileError::NoFincore)
            );
        } else if has_fincore {
            assert_eq!(body, run, "{}", sh.name);
        }
    }
    if has_fincore {
        assert!(run.contains("redo"), "{run}");
    }
    println!(
        "the same {} frames under {}",
        expected.len(),
        shells.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
    );
}

/// Each old kernel's tree (Red Hat 3.10, UEK5 4.14, UEK6 5.4, UEK7 5.15)
/// read as a node, under dash, bash in POSIX mode and busybox sh: every
/// host layer's report of the interval equals, byte for byte, the one
/// `--root` makes of the same tree (tests/figures/old_kernels.rs checks
/// those figures against the trees' text).
#[test]
fn old_kernels_read_as_a_node_report_what_they_report_locally() {
    use common::kernels::{KERNELS, SECONDS, advance, copy_kernel};
    let bin = tempfile::tempdir().unwrap();
    let shells = shells(&bin.path().join("applets"));
    for kernel in KERNELS {
        for sh in &shells {
            let dir = copy_kernel(kernel);
            let root = dir.path().to_str().unwrap().to_string();
            let local = RootFs::new(&root);
            let files = Arc::new(RemoteFiles::default());
            let remote = RootFs::remote(Arc::clone(&files));
            let mut sampler = Sampler::start_under(sh, &root);
            let formats = [Format::Text, Format::Json, Format::Csv];
            let mut mine: Vec<_> = formats.iter().flat_map(|f| reports(&local, *f)).collect();
            let mut theirs: Vec<_> = formats.iter().flat_map(|f| reports(&remote, *f)).collect();
            let mut compared = 0;
            for k in 0..2 {
                if k == 1 {
                    advance(dir.path());
                }
                apply(&files, sampler.sample());
                let wall_ms = 1_795_000_000_000 + k * SECONDS as i64 * 1000;
                for (a, b) in mine.iter_mut().zip(theirs.iter_mut()) {
                    let what = format!("{kernel} under {}, {}", sh.name, a.panel());
                    let (a, b) = (a.sample(wall_ms).unwrap(), b.sample(wall_ms).unwrap());
                    assert!(b.rejected.is_empty(), "{what}: {:?}", b.rejected);
                    assert_eq!(a.report, b.report, "{what}");
                    if k == 1 {
                        assert!(a.report.is_some_and(|r| !r.is_empty()), "{what}");
                        compared += 1;
                    }
                }
            }
            assert_eq!(compared, 3 * host_layers(), "{kernel} under {}", sh.name);
        }
    }
}

//! A database node's sampler (src/remote/node.rs) run by a real `sh` on
//! this machine, without SSH: every host layer's report made from its
//! frames equals, byte for byte, the report made by reading the same tree
//! directly (`--root`), state after state; and on this machine's own /proc
//! and /sys, the same devices and interfaces as the local sources see.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::node_tree::{tree, write_state};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;
use strata::batch::Format;
use strata::batch::run::Report;
use strata::core::rootfs::{RemoteFiles, RootFs};
use strata::layers::cache::report::CacheReport;
use strata::layers::cache::source::CacheSource;
use strata::layers::disks::model::Units;
use strata::layers::disks::report::{DiskReport, Selection};
use strata::layers::disks::source::DiskSource;
use strata::layers::nfs::report::NfsReport;
use strata::layers::nfs::source::NfsSource;
use strata::layers::nics::report::NicReport;
use strata::layers::nics::source::NicSource;
use strata::remote::Decoder;
use strata::remote::frame::FrameReader;
use strata::remote::node::{NodeDecoder, NodeFrame, sampler_script};

/// The sampler under `sh`, reading under `root` (`R=` of its script).
struct Sampler {
    child: Child,
    stdin: ChildStdin,
    bytes: mpsc::Receiver<Vec<u8>>,
    reader: FrameReader,
    decoder: NodeDecoder,
}

impl Sampler {
    fn start(root: &str) -> Sampler {
        let script = sampler_script().replacen("R=;", &format!("R={root};"), 1);
        let mut child = Command::new("sh")
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

/// Every host panel in `format` over `fs`.
fn reports(fs: &RootFs, format: Format) -> Vec<Box<dyn Report>> {
    vec![
        Box::new(DiskReport::new(
            DiskSource::new(fs.clone()),
            format,
            Units::KB,
            Selection {
                partitions: true,
                all_devices: true,
                mapper_names: true,
            },
        )),
        Box::new(NicReport::new(NicSource::new(fs.clone()), format, true)),
        Box::new(NfsReport::new(NfsSource::new(fs.clone()), format)),
        Box::new(CacheReport::new(
            CacheSource::new(fs.clone(), Vec::new()),
            format,
        )),
    ]
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
    assert_eq!(compared, 4 * 12);
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

//! assets/demo.strec, the recording the README replays, still opens and
//! holds what scripts/make-demo-recording put in it: two live cells, the
//! markers of each change of load, I/O on the loop device and traffic on
//! the veth pair. A change of the file format that leaves it unreadable
//! fails here, not on a user's screen; make the recording again then.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::fidelity::app_of;
use common::render;
use std::collections::BTreeMap;
use std::path::Path;
use strata::app::{Input, Panel, View};
use strata::layers::cells::source::CellEvent;
use strata::link::HostStatus;
use strata::recording::session::Player;
use strata::replay::Replayer;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.strec");

const MARKERS: [&str; 5] = [
    "fio: random reads, queue depth 1",
    "fio: 70/30 random read/write, queue depth 8",
    "fio at queue depth 32, iperf3 over the veth pair",
    "fio stopped; iperf3 goes on",
    "all load stopped",
];

/// Growth of a counter per name from the first reading to the last.
fn growth(first: &mut BTreeMap<String, u64>, last: &mut BTreeMap<String, u64>, name: &str, v: u64) {
    first.entry(name.to_string()).or_insert(v);
    last.insert(name.to_string(), v);
}

#[test]
fn the_demo_recording_opens_with_its_cells_markers_and_load() {
    let mut player = Player::open(Path::new(DEMO)).expect("assets/demo.strec opens");
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let labels: Vec<&str> = player.meta.cells.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["cel01", "cel02"]);
    let markers: Vec<&str> = player.markers().iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(markers, MARKERS);
    let span_s = (player.end_ms - player.start_ms) / 1000;
    assert!((110..=125).contains(&span_s), "{span_s} s");

    let mut app = app_of(&player.meta);
    let (mut live, mut samples) = ([false; 2], [0; 2]);
    let (mut io0, mut io1) = (BTreeMap::new(), BTreeMap::new());
    let (mut net0, mut net1) = (BTreeMap::new(), BTreeMap::new());
    let mut inputs = 0;
    while let Some((_, input)) = player.next_input() {
        inputs += 1;
        match &input {
            Input::Cell(CellEvent::Status { cell, status }) => {
                live[*cell] |= *status == HostStatus::Live;
            }
            Input::Cell(CellEvent::Sample { cell, .. }) => samples[*cell] += 1,
            Input::Disks(Ok(s)) => {
                for d in s.devices.iter().filter(|d| d.name.starts_with("loop")) {
                    growth(&mut io0, &mut io1, &d.name, d.rd_ios + d.wr_ios);
                }
            }
            Input::Nics(Ok(s)) => {
                for n in s.nics.iter().filter(|n| n.counters.name == "strata-demo0") {
                    let c = &n.counters;
                    growth(&mut net0, &mut net1, &c.name, c.rx_bytes + c.tx_bytes);
                }
            }
            _ => {}
        }
        app.apply(input);
    }
    assert!(player.notices.is_empty(), "{:?}", player.notices);
    let loop_ios = io1.iter().map(|(n, v)| v - io0[n]).max().unwrap_or(0);
    let veth_bytes = net1
        .get("strata-demo0")
        .map_or(0, |v| v - net0["strata-demo0"]);
    println!(
        "{inputs} inputs; cell samples {samples:?}; loop I/Os {loop_ios}; veth bytes {veth_bytes}"
    );
    assert_eq!(live, [true, true]);
    assert!(samples.iter().all(|n| *n >= 100), "{samples:?}");
    assert!(loop_ios > 0);
    assert!(veth_bytes > 0);

    // Replayed: the loop device busy after the third marker, both cells
    // live.
    let player = Player::open(Path::new(DEMO)).expect("open");
    let at = player.markers()[2].0 + 10_000;
    let mut app = app_of(&player.meta);
    let mut r = Replayer::new(player, &mut app, Path::new(DEMO));
    r.seek(&mut app, at);
    app.ui.stack = vec![View::Panel(Panel::Disks)];
    let disks = render(&mut app, 160, 40);
    let busy = disks
        .lines()
        .find(|l| l.contains("│loop"))
        .unwrap_or_default();
    let rps = busy
        .split_whitespace()
        .nth(2)
        .and_then(|w| w.parse::<f64>().ok());
    assert!(rps.is_some_and(|v| v > 0.0), "{disks}");
    app.ui.stack = vec![View::Panel(Panel::Cells)];
    let cells = render(&mut app, 160, 40);
    for label in ["cel01", "cel02"] {
        let row = cells.lines().find(|l| l.contains(&format!("│{label} ")));
        assert!(row.is_some_and(|r| r.contains(" live ")), "{cells}");
    }
    // cel01's stand-in cellcli names the cell's own disk: its device row
    // carries the cell disk's name, and cellcli's figures are there.
    app.ui.stack = vec![View::Panel(Panel::Cells), View::Cell(0)];
    let cel01 = render(&mut app, 160, 40);
    let vda = cel01.lines().find(|l| l.contains("│vda "));
    assert!(vda.is_some_and(|r| r.contains(" CD_00_cel01 ")), "{cel01}");
    assert!(
        cel01.contains("cellcli metriccurrent · 1 cell disk"),
        "{cel01}"
    );
}

/// What `strata CMD ARGS assets/demo.strec` prints, stdout then stderr,
/// and its exit status, with no user config (HOME names nothing) in UTC.
fn printed(cmd: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg(cmd)
        .args(args)
        // By its path in the repository, which the output names: a clone
        // elsewhere prints the same.
        .arg("assets/demo.strec")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("HOME", "/nonexistent/strata-golden")
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    let status = out.status.code().unwrap();
    format!(
        "{}\n--- stderr\n{}--- exit {status}\n",
        text(out.stdout),
        text(out.stderr)
    )
}

/// Export and summary of the demo are byte for byte what they printed
/// before the layers took one shape (issue 28): a restructure must not
/// move a figure. The goldens are deflated to keep the repository small;
/// `STRATA_BLESS=1` writes them again, for a change that means to alter
/// the output (say which in its commit).
#[test]
fn export_and_summary_of_the_demo_are_unchanged() {
    use std::io::{Read, Write};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden/demo");
    let mut runs: Vec<(String, &str, Vec<&str>)> = Vec::new();
    for format in ["text", "json", "csv"] {
        runs.push((
            format!("summary.{format}"),
            "summary",
            vec!["--format", format],
        ));
    }
    for format in ["text", "json"] {
        runs.push((
            format!("export.{format}"),
            "export",
            vec!["--format", format],
        ));
    }
    for panel in ["disks", "nfs", "cache", "nics", "cells", "dnfs"] {
        let args = vec!["--format", "csv", "--panel", panel];
        runs.push((format!("export.{panel}.csv"), "export", args));
    }
    let bless = std::env::var_os("STRATA_BLESS").is_some();
    let mut differ = Vec::new();
    for (name, cmd, args) in runs {
        let got = printed(cmd, &args);
        let path = dir.join(format!("{name}.gz"));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            let file = std::fs::File::create(&path).unwrap();
            let mut z = flate2::write::GzEncoder::new(file, flate2::Compression::best());
            z.write_all(got.as_bytes()).unwrap();
            z.finish().unwrap();
            continue;
        }
        let mut want = String::new();
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        flate2::read::GzDecoder::new(file)
            .read_to_string(&mut want)
            .unwrap();
        if got != want {
            let line = got.lines().zip(want.lines()).position(|(g, w)| g != w);
            let at = line.unwrap_or(got.lines().count().min(want.lines().count()));
            let show = |s: &str| s.lines().nth(at).unwrap_or("(end)").to_string();
            differ.push(format!(
                "{name}, line {}:\n  now:    {}\n  golden: {}",
                at + 1,
                show(&got),
                show(&want)
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

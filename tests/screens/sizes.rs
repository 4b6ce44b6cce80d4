//! Every screen at the sizes people use: 80×24 (a fresh terminal or SSH
//! session), 120×40 and 240×70 (a wall display), each a snapshot, and a
//! scan of every screen and every snapshot for a figure or a unit cut by
//! a border, an edge or a column: a screen may drop a figure for want of
//! room, never show part of one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::cells::cells_app;
use common::dnfs::rac_app;
use common::fidelity::app_of;
use common::{app_with, render};
use std::path::Path;
use strata::app::{Action, App, Panel, View};
use strata::recording::session::Player;
use strata::replay::Replayer;

const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (240, 70)];

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.strec");

fn goto(app: &mut App, panel: Panel) {
    let i = Panel::ALL.iter().position(|p| *p == panel).unwrap();
    app.update(Action::GotoPanel(i));
}

/// The demo recording replayed to `at` (ms after its start, or its end
/// when `None`): two cells, five markers close together, a busy loop
/// device.
fn demo_at(at: Option<i64>) -> App {
    let player = Player::open(Path::new(DEMO)).unwrap();
    let t = at.map_or(player.end_ms, |ms| player.start_ms + ms);
    let mut app = app_of(&player.meta);
    let mut r = Replayer::new(player, &mut app, Path::new(DEMO));
    r.seek(&mut app, t);
    app
}

/// Every screen of the matrix, by name, with the app that draws it.
fn screens() -> Vec<(&'static str, App)> {
    let panel = |p: Panel| {
        let mut app = app_with(30);
        goto(&mut app, p);
        app
    };
    // Sorted by %util (as it opens), the last column: it must be on
    // screen however narrow.
    let disks = panel(Panel::Disks);
    let mut detail = app_with(60);
    detail.ui.stack = vec![View::Panel(Panel::Disks), View::Disk("sda".into())];
    // every interface: lo's state is "unknown", to be read whole
    let mut nics = panel(Panel::Nics);
    nics.update(Action::ToggleAllDevices);
    let mut help = app_with(30);
    help.update(Action::ToggleHelp);
    // scrolled to its end: the last page, whatever the height
    let mut help_end = app_with(30);
    help_end.update(Action::ToggleHelp);
    render(&mut help_end, 80, 24);
    help_end.update(Action::Bottom);
    let mut cells = demo_at(None);
    goto(&mut cells, Panel::Cells);
    let mut cell = cells_app();
    goto(&mut cell, Panel::Cells);
    cell.update(Action::Enter);
    let mut dbs = rac_app();
    goto(&mut dbs, Panel::Databases);
    let replay = demo_at(Some(60_000));
    // the drill-downs: one NFS mount, a bond, a watched file, a cell's disk
    let mut mount = panel(Panel::Nfs);
    mount.update(Action::Top);
    mount.update(Action::Enter);
    let mut bond = app_with(30);
    bond.ui.stack = vec![View::Panel(Panel::Nics), View::Nic("bond0".into())];
    let mut file = panel(Panel::Cache);
    file.update(Action::Top);
    file.update(Action::Enter);
    let mut cell_disk = cells_app();
    goto(&mut cell_disk, Panel::Cells);
    cell_disk.update(Action::Enter);
    cell_disk.update(Action::Top);
    cell_disk.update(Action::Enter);
    let mut markers = app_with(10);
    let at = markers.now_ms;
    markers.add_marker(at - 7_000, "ramp to 64 users".into());
    markers.add_marker(at - 3_000, "checkpoint".into());
    markers.update(Action::ListMarkers);
    // a database's instance, its NFS server and one channel
    let dnfs_level = |depth: usize| {
        let mut app = rac_app();
        goto(&mut app, Panel::Databases);
        app.update(Action::Top);
        for _ in 0..depth {
            app.update(Action::Enter);
        }
        assert_eq!(app.ui.dnfs.depth(), depth);
        app
    };
    vec![
        ("overview", app_with(30)),
        ("disks_by_util", disks),
        ("cache", panel(Panel::Cache)),
        ("nfs", panel(Panel::Nfs)),
        ("nics_all", nics),
        ("detail_sda", detail),
        ("help", help),
        ("help_end", help_end),
        ("cells_markers_replay", cells),
        ("cell", cell),
        ("databases", dbs),
        ("cluster", rac_app()),
        ("replay_overview", replay),
        ("nfs_mount", mount),
        ("nic_bond0", bond),
        ("cache_file", file),
        ("cell_disk", cell_disk),
        ("markers_list", markers),
        ("db_instance", dnfs_level(2)),
        ("db_server", dnfs_level(3)),
        ("db_channel", dnfs_level(4)),
        // who does the I/O: the roles, a role's processes, one process,
        // and the cluster's overview with each node's top role
        ("procs_roles", crate::procs::roles()),
        ("procs_role", crate::procs::role()),
        ("procs_process", crate::procs::process()),
        ("procs_cluster_roles", crate::procs::cluster_roles()),
        ("procs_cluster", common::procs::procs_cluster_app()),
    ]
}

#[test]
fn every_screen_at_every_size_is_whole() {
    let mut hits = Vec::new();
    let labels: Vec<String> = Player::open(Path::new(DEMO))
        .unwrap()
        .markers()
        .iter()
        .map(|(_, l)| l.clone())
        .collect();
    for (name, mut app) in screens() {
        for (w, h) in SIZES {
            let screen = render(&mut app, w, h);
            let id = format!("{name}_{w}x{h}");
            let hidden = overlay_edge(&screen, "┌ Markers");
            for cut in cuts(&screen).into_iter().chain(cut_marks(&screen, &labels)) {
                if !hidden(&cut) {
                    hits.push(format!("{id}: {cut}"));
                }
            }
            insta::assert_snapshot!(id.clone(), screen);
            match name {
                "disks_by_util" => assert!(screen.contains("%util"), "{screen}"),
                "nics_all" => assert!(screen.contains(" unknown "), "{screen}"),
                "help_end" => assert!(screen.contains("any other key closes it"), "{screen}"),
                // two nodes and a database: at 80×24 the database's flags
                // once left room for one node
                "cluster" => assert!(
                    screen.contains("!db01.example.com") && screen.contains("!10.0.0.12"),
                    "{id}: a node left out\n{screen}"
                ),
                _ => {}
            }
        }
    }
    assert!(hits.is_empty(), "cut figures:\n{}", hits.join("\n"));
}

/// The issue's 160 columns: the demo's cells panel while fio runs at
/// queue depth 32 (tens of thousands of IOPS, the markers close together).
#[test]
fn the_cells_panel_at_160_columns_cuts_no_figure() {
    let player = Player::open(Path::new(DEMO)).unwrap();
    let labels: Vec<String> = player.markers().iter().map(|(_, l)| l.clone()).collect();
    let at = player.markers()[2].0 + 10_000 - player.start_ms;
    let mut app = demo_at(Some(at));
    goto(&mut app, Panel::Cells);
    let screen = render(&mut app, 160, 40);
    insta::assert_snapshot!("cells_markers_replay_160x40", screen);
    let hits: Vec<String> = cuts(&screen)
        .into_iter()
        .chain(cut_marks(&screen, &labels))
        .collect();
    assert!(
        hits.is_empty(),
        "cut figures:\n{}\n{screen}",
        hits.join("\n")
    );
    assert!(screen.contains("DISK IOPS r/s "), "{screen}");
}

/// Every stored snapshot of every screen test, this one's included.
#[test]
fn no_snapshot_holds_a_cut_figure() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/screens/snapshots");
    let mut hits = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "snap"))
        .collect();
    files.sort();
    assert!(files.len() >= 50, "{} snapshots", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        // insta's header ends at the second `---`; TestBackend's lines
        // are quoted
        let body = text.splitn(3, "---\n").nth(2).unwrap_or(&text);
        let screen: String = body
            .lines()
            .map(|l| {
                l.strip_prefix('"')
                    .and_then(|l| l.strip_suffix('"'))
                    .unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let hidden = overlay_edge(&screen, "┌ Markers");
        for cut in cuts(&screen) {
            if !hidden(&cut) {
                hits.push(format!("{name}: {cut}"));
            }
        }
    }
    assert!(hits.is_empty(), "cut figures:\n{}", hits.join("\n"));
}

/// Box drawing: what a border or a chart's axis is drawn with.
fn border(c: char) -> bool {
    ('\u{2500}'..='\u{257f}').contains(&c)
}

/// A box's right corner or a junction: the title or text before it ran
/// out of room ("[0.00/10786.10┐").
fn corner(c: char) -> bool {
    "┐┘┤╮╯┬┴".contains(c)
}

/// Units and words a figure is read with, whose every proper prefix
/// (two characters or more, not itself a unit) is one cut.
const WORDS: [&str; 19] = [
    "unknown", "Device", "r/s", "w/s", "MiB", "GiB", "KiB", "TiB", "MiB/s", "GiB/s", "KiB/s",
    "MB/s", "kB/s", "GB/s", "rMB/s", "wMB/s", "rkB/s", "wkB/s", "IOPS",
];

/// Column headers of figures: one cut by a border or the edge means the
/// figures under it are cut too ("r_awai" over "0.3").
const HEADERS: [&str; 14] = [
    "r_await", "w_await", "d_await", "f_await", "rareq-sz", "wareq-sz", "dareq-sz", "aqu-sz",
    "%util", "rrqm/s", "wrqm/s", "drqm/s", "rq-sz", "Duplex",
];

/// A token a border or the edge ends that is the start of a header or
/// unit, not the whole of it ("%" of "%util", "IO" of "IOPS").
fn cut_header(w: &str) -> bool {
    let whole = |h: &&str| *h == w;
    let min = if w.starts_with('%') { 1 } else { 2 };
    w.chars().count() >= min
        && !HEADERS.iter().any(whole)
        && !WORDS.iter().any(whole)
        && !WHOLE.iter().any(whole)
        && HEADERS.iter().chain(&WORDS).any(|h| h.starts_with(w))
}
const WHOLE: [&str; 5] = ["MB", "kB", "GB", "ms", "B/s"];

fn cut_word(w: &str) -> bool {
    !WORDS.contains(&w)
        && !WHOLE.contains(&w)
        && w.chars().count() >= 2
        && WORDS.iter().any(|u| u.starts_with(w))
}

/// Whether a cut that [`cuts`] found is a word of the screen under an
/// overlay whose top border starts with `title`, hidden up to the
/// overlay's left border: an overlay covers what is under it, it does not
/// cut it.
fn overlay_edge(screen: &str, title: &str) -> impl Fn(&str) -> bool {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let title: Vec<char> = title.chars().collect();
    let top = lines.iter().enumerate().find_map(|(y, l)| {
        let x = l.windows(title.len()).position(|w| w == title.as_slice())?;
        Some((y, x))
    });
    let bottom = top.and_then(|(y0, x)| (y0..lines.len()).find(|&y| lines[y].get(x) == Some(&'└')));
    move |cut: &str| {
        let (Some((y0, x0)), Some(y1)) = (top, bottom) else {
            return false;
        };
        // "line {y} col {x}: …", x the cut token's last character
        let mut words = cut.split(' ');
        let y = words.nth(1).and_then(|w| w.parse::<usize>().ok());
        let x = words
            .nth(1)
            .and_then(|w| w.trim_end_matches(':').parse::<usize>().ok());
        matches!((y, x), (Some(y), Some(x)) if (y0..=y1).contains(&y) && x + 1 == x0)
    }
}

/// Where `screen` shows part of a figure or of its unit, one line each:
/// a figure running into a box's corner, a figure ended by "…", a unit
/// or word cut short ("MB/", "Mi", "unkno", "8.3Mi"), an opening bracket
/// whose figures a border or the edge cut ("[0.00/10786.10"), and a
/// figure in the last column of a line without a border (a header or a
/// footer whose unit went past the edge: "rss 8.3").
fn cuts(screen: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    for (y, c) in lines.iter().enumerate() {
        let c = c.as_slice();
        let mut hit = |x: usize, why: &str| {
            let from = x.saturating_sub(24);
            let to = (x + 3).min(c.len());
            let around: String = c[from..to].iter().collect();
            out.push(format!("line {y} col {x}: {why}: {around:?}"));
        };
        for x in 0..c.len() {
            let next = c.get(x + 1).copied();
            if c[x].is_ascii_digit() && next.is_some_and(corner) {
                hit(x, "figure against a corner");
            }
            // a figure, not a name that holds digits ("sdb@10.0.0…")
            let figure_start = c[..x]
                .iter()
                .rposition(|&ch| ch == ' ' || border(ch))
                .map_or(0, |i| i + 1);
            if (c[x].is_ascii_digit() || c[x] == '.')
                && next == Some('…')
                && c[figure_start].is_ascii_digit()
            {
                hit(x, "figure cut to …");
            }
        }
        if c.last().is_some_and(char::is_ascii_digit) && !c.iter().any(|&ch| border(ch)) {
            hit(c.len() - 1, "figure at the edge");
        }
        // tokens: runs between spaces, borders and …
        let mut x = 0;
        while x < c.len() {
            if c[x] == ' ' || c[x] == '…' || border(c[x]) {
                x += 1;
                continue;
            }
            let start = x;
            while x < c.len() && !(c[x] == ' ' || c[x] == '…' || border(c[x])) {
                x += 1;
            }
            let token: String = c[start..x].iter().collect();
            let tail = token.trim_start_matches(|ch: char| ch.is_ascii_digit() || ch == '.');
            let after_figure =
                tail.len() < token.len() && token.starts_with(|ch: char| ch.is_ascii_digit());
            if cut_word(&token) || (after_figure && cut_word(tail)) {
                hit(x - 1, "unit or word cut short");
            }
            // an opening bracket that holds a figure and is not closed
            // before a border or the edge
            let ends_box = x == c.len() || border(c[x]);
            // "88.6 %" may end a box: a "%" one space after a figure is
            // its unit, one after a wider gap a label cut ("0.05  %util")
            let after_number = start >= 2 && c[start - 1] == ' ' && c[start - 2].is_ascii_digit();
            if ends_box && cut_header(&token) && !(token == "%" && after_number) {
                hit(x - 1, "column header cut");
            }
            if ends_box && token.starts_with(|ch: char| ch.is_ascii_digit()) && token.ends_with('.')
            {
                hit(x - 1, "figure cut after its point");
            }
            if ends_box {
                let seg_start = c[..start]
                    .iter()
                    .rposition(|&ch| border(ch))
                    .map_or(0, |i| i + 1);
                let seg: String = c[seg_start..x].iter().collect();
                // a paragraph wrapped in its box closes it on the next line
                let wrapped = || {
                    let next = lines
                        .get(y + 1)
                        .map_or(&[][..], |l| &l[seg_start.min(l.len())..]);
                    next.iter()
                        .take_while(|&&ch| !border(ch))
                        .any(|&ch| ch == ')' || ch == ']')
                };
                match unclosed(&seg) {
                    Some(true) => hit(x - 1, "bracket cut"),
                    Some(false) if !wrapped() => hit(x - 1, "bracket cut"),
                    _ => {}
                }
            }
        }
    }
    out
}

/// Each marker label on `screen` (after a ▼, up to two spaces, a ▼, a
/// border or the plot's braille) that is not whole words of one of `labels`: "fio: 70/3" of
/// "fio: 70/30 random read/write".
fn cut_marks(screen: &str, labels: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (y, line) in screen.lines().enumerate() {
        for shown in line.split('▼').skip(1) {
            let end = shown
                .find(|ch: char| border(ch) || ch == '┊' || ('\u{2800}'..='\u{28ff}').contains(&ch))
                .unwrap_or(shown.len());
            let shown = shown[..end].split("  ").next().unwrap_or("").trim_end();
            let whole = shown.is_empty()
                || labels.iter().any(|l| {
                    l == shown
                        || l.strip_prefix(shown)
                            .is_some_and(|rest| rest.starts_with([' ', ':', ',', ';']))
                });
            if !whole {
                out.push(format!("line {y}: marker label cut: {shown:?}"));
            }
        }
    }
    out
}

/// Whether `seg` ends inside a bracket, and if so whether it put a
/// figure in it.
fn unclosed(seg: &str) -> Option<bool> {
    let (mut depth, mut figure) = (0i32, false);
    for ch in seg.chars() {
        match ch {
            '[' | '(' => {
                depth += 1;
                figure = false;
            }
            ']' | ')' => depth -= 1,
            d if d.is_ascii_digit() => figure = true,
            _ => {}
        }
    }
    (depth > 0).then_some(figure)
}

#[test]
fn the_scan_finds_cut_figures_and_passes_whole_ones() {
    let cut = [
        // the cells panel's chart title at 160 columns
        "│┌DISK IOPS r/s 51826.96 [0.00/10786.10┐",
        // the header at 80 columns: strata's RSS without its unit
        " strata  LIVE  db01  hh:mm:ss  cpu 0.3%  rss 8.3",
        " strata  LIVE  db01  hh:mm:ss  cpu 0.3%  rss 8.3 Mi",
        "│eth1      unkno  25000 │",
        "│ rMB/ │",
        "│ read 120.5 MB/│",
        "│ r/s 51826.…     │",
        "│ totals: 4 disks (12│",
        "│all cells  disks   r/s   r_awai│",
        "│Database     iops     r/s     w/│",
        "│PROD live  61600.0  60200.0  1400.│",
        "│┌ PROD dNFS IO┐",
        "│DISK  r/s 24394.18  await r 0.05 w 0.05  %│",
        "│totals: whole disks at the bottom of the stack (│\n└───────┘",
    ];
    for l in cut {
        assert!(!cuts(l).is_empty(), "not found in {l:?}");
    }
    let labels = [
        "fio: random reads, queue depth 1".to_string(),
        "fio: 70/30 random read/write, queue depth 8".to_string(),
    ];
    let marks = "│⡇▼fio: rand ▼fio: 70/3 ▼fi  │";
    assert_eq!(cut_marks(marks, &labels).len(), 3, "{marks}");
    let marks = "│⡇▼fio ▼fio: 70/30 ▼ ┊ │";
    assert_eq!(cut_marks(marks, &labels), Vec::<String>::new());
    let whole = [
        "│┌DISK IOPS r/s 51826.96 [0.00/10786.10/51826.96] w/s 12.00 ─┐",
        " strata  LIVE  db01  hh:mm:ss  cpu 0.3%  rss 8.3 MiB",
        "│eth1      unknown  25000 │",
        "│sda      49.00    14.00   100.00│",
        "│ rMB/s  wMB/s  r_await │",
        "│ totals (4 disks)  120.5 MB/s │",
        "│ busiest  sdb@10.0.0… 0.96 │",
        "│ 2 of 3 cells (1 not current) │",
        "│no databases (password│\n│in STRATA_DB_PASSWORD) │",
        "│ IOPS 12 MiB/s 3.5 KiB │",
        "│reads from flash 88.6 %│",
        "  ? help  q quit",
    ];
    for l in whole {
        assert_eq!(cuts(l), Vec::<String>::new(), "in {l:?}");
    }
}

/// A cluster and a database on short terminals: the database's floor of
/// rows takes only what the cluster's box would scroll, never the rows of
/// the storage box or the cluster's least.
#[test]
fn short_terminals_keep_every_box_of_the_cluster_overview() {
    let mut app = rac_app();
    for h in 17..=24 {
        let screen = render(&mut app, 80, h);
        for what in [
            "┌ Database",
            "IOPS",
            "┌ Cluster",
            "│ cluster",
            "┌ Storage",
            "no cells",
        ] {
            assert!(screen.contains(what), "80×{h}: no {what:?}\n{screen}");
        }
    }
}

/// The overview's busiest devices at every width from 60 (the least) to
/// 160: a column that does not fit
/// is left out whole, %util (their order) stays, and each figure shown is
/// one the widest screen shows for the same device. Between 86 and 103
/// columns the table once narrowed every column instead: "20099.00"
/// read "099.00" under a header "_await".
#[test]
fn the_busiest_devices_drop_columns_whole_at_every_width() {
    let player = Player::open(Path::new(DEMO)).unwrap();
    let at = player.markers()[2].0 + 10_000 - player.start_ms;
    let mut app = demo_at(Some(at));
    let mut shown = Vec::new();
    let wide = busiest_table(&render(&mut app, 200, 40)).unwrap();
    assert!(wide.len() > 1, "{wide:?}");
    let headers = [
        "busiest", "devices", "Class", "r/s", "w/s", "r_await", "w_await", "%util",
    ];
    for w in 60..=160 {
        let screen = render(&mut app, w, 40);
        let Some(rows) = busiest_table(&screen) else {
            continue;
        };
        shown.push(w);
        for h in &rows[0] {
            let whole = headers.contains(&h.as_str()) || "devices".starts_with(h.as_str());
            assert!(whole, "{w}×40: header {h:?}\n{screen}");
        }
        assert!(
            rows[0].iter().any(|h| h == "%util"),
            "{w}×40: no %util\n{screen}"
        );
        for row in &rows[1..] {
            let same = wide.iter().find(|r| r.first() == row.first());
            let same = same.expect("the device at 200 columns");
            for v in &row[1..] {
                assert!(
                    same.contains(v),
                    "{w}×40: {v:?} of {row:?}, not in {same:?}\n{screen}"
                );
            }
        }
    }
    assert_eq!(shown.len(), 101, "the table is on every width: {shown:?}");
}

/// The words of the overview's busiest devices table: its header and each
/// device's row, from the header's first column to the box's border.
fn busiest_table(screen: &str) -> Option<Vec<Vec<String>>> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let head: Vec<char> = "busiest devi".chars().collect();
    let (y, x) = lines
        .iter()
        .enumerate()
        .find_map(|(y, l)| Some((y, l.windows(head.len()).position(|w| w == head)?)))?;
    let words = |l: &Vec<char>| {
        let seg: String = l[x.min(l.len())..]
            .iter()
            .take_while(|&&c| c != '│')
            .collect();
        seg.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    Some(
        lines[y..]
            .iter()
            .map(words)
            .take_while(|w| !w.is_empty())
            .collect(),
    )
}

/// The overview's storage box: DISK's and FLASH's lines keep the same
/// columns, each figure under the other's. At 80×24 DISK's longer
/// figures lost its %util while FLASH's "–" kept its own (issue 26).
#[test]
fn the_storage_boxs_lines_keep_the_same_columns() {
    let mut app = demo_at(Some(60_000));
    for (w, h) in SIZES {
        let screen = render(&mut app, w, h);
        let line = |name: &str| {
            screen
                .lines()
                .find(|l| l.starts_with(&format!("\"│{name} ")))
                .unwrap_or_else(|| panic!("no {name} line\n{screen}"))
                .to_string()
        };
        let (disk, flash) = (line("DISK"), line("FLASH"));
        for label in ["r/s", "w/s", "MB/s r", "await r", "%util"] {
            let at = |l: &str| {
                l.find(&format!(" {label} "))
                    .map(|i| l[..i].chars().count())
            };
            assert_eq!(
                at(&disk),
                at(&flash),
                "{label} at {w}×{h}:\n{disk}\n{flash}"
            );
        }
    }
}

/// A device's charts at 80×24 each have the rows to show a peak, those
/// left out named: its five charts were one row of plot each, the
/// demo's 45498 r/s peak of loop0 nowhere to be seen (issue 26).
#[test]
fn a_devices_charts_at_80x24_have_their_rows() {
    let mut sda = common::app_with(60);
    sda.ui.stack = vec![View::Panel(Panel::Disks), View::Disk("sda".into())];
    let mut loop0 = demo_at(Some(60_000));
    loop0.ui.stack = vec![View::Panel(Panel::Disks), View::Disk("loop0".into())];
    for mut app in [sda, loop0] {
        let screen = render(&mut app, 80, 24);
        let lines: Vec<&str> = screen.lines().collect();
        let tops: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].starts_with("\"│┌ ") && !lines[i].contains("partitions"))
            .collect();
        assert!(!tops.is_empty(), "{screen}");
        for &top in &tops {
            let height = lines[top..]
                .iter()
                .position(|l| l.starts_with("\"│└"))
                .map_or(0, |h| h + 1);
            assert!(height >= 7, "a chart {height} rows tall:\n{screen}");
        }
        assert!(
            screen.contains("a taller terminal shows more charts"),
            "{screen}"
        );
    }
}

/// The page cache's Files table names each row's file first, at every
/// width: at 80 columns FILE came last and scrolled off, leaving figures
/// without the file they belong to (issue 26).
#[test]
fn the_files_table_names_its_files_first() {
    for (w, h) in SIZES {
        let mut app = common::app_with(30);
        goto(&mut app, Panel::Cache);
        let screen = render(&mut app, w, h);
        let row = screen
            .lines()
            .find(|l| l.contains("1.0 GiB   262144"))
            .unwrap_or_else(|| panic!("no redo02 row at {w}×{h}\n{screen}"));
        assert!(
            row.contains("/u02/oradata/ORCL/redo02.log"),
            "a row without its file at {w}×{h}: {row}\n{screen}"
        );
        assert!(
            row.find("redo02") < row.find("262144"),
            "FILE after the figures at {w}×{h}: {row}"
        );
    }
}

/// Each row of the overlay titled `title` in `screen`: the column before
/// its right border, which must be blank.
fn before_right_border(screen: &str, title: &str) -> Vec<(String, char)> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let Some((top, left)) = lines.iter().enumerate().find_map(|(i, l)| {
        let s: String = l.iter().collect();
        s.find(title).map(|b| (i, s[..b].chars().count()))
    }) else {
        return Vec::new();
    };
    let right = (left + 1..lines[top].len())
        .find(|&x| lines[top][x] == '┐')
        .unwrap_or(0);
    lines[top + 1..]
        .iter()
        .take_while(|l| l.get(left) != Some(&'└'))
        .map(|l| (l.iter().collect(), l[right - 1]))
        .collect()
}

/// The help and the markers list keep a blank column before their right
/// border: their longest lines touched it (issue 26).
#[test]
fn overlays_keep_a_column_before_their_right_border() {
    let mut help = common::app_with(30);
    help.update(Action::ToggleHelp);
    let mut markers = common::app_with(10);
    let at = markers.now_ms;
    markers.add_marker(
        at - 7_000,
        "ramp to 64 users after the checkpoint of the redo logs, queue depth 32".into(),
    );
    markers.update(Action::ListMarkers);
    for (mut app, title) in [(help, "┌ Keys "), (markers, "┌ Markers ")] {
        for (w, h) in SIZES {
            let screen = render(&mut app, w, h);
            let rows = before_right_border(&screen, title);
            assert!(!rows.is_empty(), "no {title} at {w}×{h}\n{screen}");
            for (row, c) in rows {
                assert_eq!(c, ' ', "{title} at {w}×{h}: {row}");
            }
        }
    }
}

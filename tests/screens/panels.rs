//! Screens drawn into ratatui's TestBackend from fixture samples: snapshots
//! of every view, plus assertions on what each must say.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use strata::layers::host::HostState;

use common::{app_with, render};
use ratatui::style::Color;
use strata::app::{Action, App, Panel, View};
use strata::theme::Theme;

/// Moves the disks panel's selection to the device `name`.
fn select(app: &mut App, name: &str) {
    let rows: Vec<String> = app.disk_rows().iter().map(|r| r.name.clone()).collect();
    let i = rows.iter().position(|n| n == name).expect("device shown");
    keys(app, &[Action::Top]);
    keys(app, &vec![Action::Down; i]);
}

fn keys(app: &mut App, actions: &[Action]) {
    for a in actions {
        app.update(a.clone());
    }
}

#[test]
fn overview() {
    let mut app = app_with(30);
    let screen = render(&mut app, 120, 40);
    insta::assert_snapshot!("overview_120x40", screen);
    assert!(screen.contains("db01"));
    assert!(screen.contains("LIVE"));
    // every layer has its place; those still to come say so, not empty
    for layer in ["Database", "Page cache", "Kernel NFS", "Wire", "Storage"] {
        assert!(screen.contains(layer), "{layer} missing");
    }
    assert_eq!(screen.matches("not yet available").count(), 0, "{screen}");
    assert!(screen.contains("no databases · --db"), "{screen}");
    assert!(screen.contains("no cells · --cell"), "{screen}");
    // the host's other layers show their figures
    assert!(screen.contains("37.6 GiB"), "cached less shmem: {screen}");
    assert!(screen.contains("2305.00"), "NFS ops/s: {screen}");
    // totals count sda, sdb, sdc and nvme0n1: not dm-0, dm-1 (stacked) or partitions
    assert!(screen.contains("(4 disks)"), "{screen}");
}

/// The column of the newest bar of the sparkline on the host box's line
/// led by `label` (the box is the screen's left half).
fn newest_bar(screen: &str, label: &str) -> Option<usize> {
    let line = screen
        .lines()
        .find(|l| l.starts_with(&format!("\"│{label} ")))?;
    let chars: Vec<char> = line.chars().collect();
    // the box's right border: the first one after its left
    let end = chars.iter().skip(2).position(|c| *c == '│')? + 2;
    chars[..end].iter().rposition(|c| ('▁'..='█').contains(c))
}

/// Every sparkline of the host box is on one time axis: with the window
/// not yet full, the busiest's newest bar was 13 columns right of the
/// r/s one's, at 120 and at 200 columns (issue 26).
#[test]
fn the_host_boxs_sparklines_share_one_time_axis() {
    let mut app = app_with(30);
    for w in [120, 200] {
        let screen = render(&mut app, w, 40);
        let rs = newest_bar(&screen, "r/s").expect("an r/s sparkline");
        for label in ["w/s", "rkB/s", "wkB/s", "busiest"] {
            assert_eq!(
                newest_bar(&screen, label),
                Some(rs),
                "{label} at {w} columns is not on r/s's axis:\n{screen}"
            );
        }
    }
}

#[test]
fn disks_panel_wide_shows_every_iostat_column() {
    let mut app = app_with(30);
    keys(&mut app, &[Action::GotoPanel(1)]);
    // 22 figure columns of 9 (two of 10: nvme0n1's rkB/s and wkB/s are
    // over 100000) beside the device's 19 and the class's 6
    let screen = render(&mut app, 228, 24);
    insta::assert_snapshot!("disks_228x24", screen);
    for h in [
        "r/s", "rkB/s", "rrqm/s", "%rrqm", "r_await", "rareq-sz", "w/s", "wkB/s", "wrqm/s",
        "%wrqm", "w_await", "wareq-sz", "d/s", "dkB/s", "drqm/s", "%drqm", "d_await", "dareq-sz",
        "f/s", "f_await", "aqu-sz", "%util",
    ] {
        assert!(screen.contains(h), "column {h} missing");
    }
    // dm devices by their mapper names; partitions and the loop device hidden
    assert!(screen.contains("mpatha") && screen.contains("vg_data-lv_oradata"));
    assert!(!screen.contains("sda1") && !screen.contains("loop0"));
    assert!(screen.contains("NVMe") && screen.contains("HDD") && screen.contains(" dm "));
}

/// A figure of six digits or more with one decimal: one that lost its
/// second to fit a column.
fn cut_figures(screen: &str) -> Vec<&str> {
    screen
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|w| {
            w.split_once('.')
                .is_some_and(|(int, dec)| int.len() >= 6 && dec.len() == 1 && !int.contains('.'))
        })
        .collect()
}

/// Rates of 100000 and more keep their two decimals, as iostat prints
/// them (184128.00), where the table showed 122880.0 and the charts'
/// titles [0.00/122271.7/205664.0]: the table's columns widen, the
/// titles and the device's "now" box print every figure whole.
#[test]
fn rates_of_100000_and_more_keep_two_decimals() {
    let mut app = app_with(30);
    keys(&mut app, &[Action::GotoPanel(1)]);
    let table = render(&mut app, 228, 24);
    select(&mut app, "nvme0n1");
    keys(&mut app, &[Action::Enter]);
    let detail = render(&mut app, 160, 50);
    for screen in [&table, &detail] {
        assert_eq!(cut_figures(screen), Vec::<&str>::new(), "{screen}");
        assert!(screen.contains("122880.00"), "nvme0n1 rkB/s: {screen}");
    }
    // the Throughput chart's title: now, then [min/avg/max]
    assert!(detail.contains("rkB/s 122880.00 ["), "{detail}");
}

#[test]
fn disks_panel_narrow_scrolls_sorts_filters_and_shows_partitions() {
    let mut app = app_with(30);
    keys(
        &mut app,
        &[
            Action::GotoPanel(1),
            Action::TogglePartitions,
            Action::SortNext,
            Action::ToggleUnits,
        ],
    );
    let screen = render(&mut app, 100, 30);
    insta::assert_snapshot!("disks_100x30_partitions_by_name_mb", screen);
    assert!(screen.contains("sda1") && screen.contains("nvme0n1p1"));
    assert!(screen.contains("sort Device ↑"));
    assert!(screen.contains("rMB/s"));
    assert!(screen.contains("h/l scroll"));
    keys(
        &mut app,
        &[
            Action::Right,
            Action::Right,
            Action::StartFilter,
            Action::FilterChar('s'),
            Action::FilterChar('d'),
        ],
    );
    let screen = render(&mut app, 100, 30);
    insta::assert_snapshot!("disks_100x30_filter_typing", screen);
    assert!(screen.contains("filter: sd"));
    assert!(!screen.contains("nvme0n1 "));
    keys(&mut app, &[Action::FilterCommit]);
    let screen = render(&mut app, 100, 30);
    assert!(screen.contains("filter \"sd\""));
}

#[test]
fn device_detail_with_partitions() {
    let mut app = app_with(60);
    keys(&mut app, &[Action::GotoPanel(1)]);
    select(&mut app, "sda");
    keys(&mut app, &[Action::Enter]);
    let screen = render(&mut app, 160, 50);
    insta::assert_snapshot!("detail_sda_160x50", screen);
    assert!(screen.contains("Disks › sda"));
    // binary, as lsblk says it (3.6T), as the rest of the screen
    assert!(screen.contains("HDD · 3.6 TiB · ST4000NM0035-1V4"));
    for chart in ["IOPS", "Throughput", "Await ms", "Queue", "%util"] {
        assert!(screen.contains(chart), "{chart} chart missing");
    }
    assert!(screen.contains("partitions · Enter to open"));
    assert!(screen.contains("sda1") && screen.contains("sda2"));
    // down into a partition and back up twice
    keys(&mut app, &[Action::Down, Action::Enter]);
    let screen = render(&mut app, 160, 50);
    assert!(screen.contains("Disks › sda › sda2"), "{screen}");
    assert!(screen.contains("partition of sda"));
    keys(&mut app, &[Action::Back, Action::Back]);
    let screen = render(&mut app, 160, 50);
    assert!(screen.contains("│ Disks") && !screen.contains("Disks ›"));
}

#[test]
fn dm_device_detail_lists_the_devices_under_it() {
    let mut app = app_with(20);
    keys(&mut app, &[Action::GotoPanel(1)]);
    select(&mut app, "dm-0");
    keys(&mut app, &[Action::Enter]);
    let screen = render(&mut app, 140, 44);
    insta::assert_snapshot!("detail_mpatha_140x44", screen);
    assert!(screen.contains("mpatha (dm-0)"));
    assert!(screen.contains("devices under it"));
    assert!(screen.contains("sdb") && screen.contains("sdc"));
    assert!(screen.contains("%util (not meaningful here)"));
}

#[test]
fn help_overlay_lists_every_key() {
    let mut app = app_with(5);
    keys(&mut app, &[Action::ToggleHelp]);
    let screen = render(&mut app, 100, 34);
    insta::assert_snapshot!("help_100x34", screen);
    for (k, _) in strata::app::keymap::KEY_HELP {
        assert!(screen.contains(k), "key {k} not in help");
    }
    // the moving keys scroll the help (all of it fits here: it stays),
    // any other key closes it
    keys(&mut app, &[Action::Down]);
    assert!(render(&mut app, 100, 34).contains(" Keys "));
    keys(&mut app, &[Action::SortNext]);
    assert!(!render(&mut app, 100, 34).contains(" Keys "));
}

#[test]
fn terminal_too_small() {
    let mut app = app_with(5);
    let screen = render(&mut app, 40, 10);
    insta::assert_snapshot!("too_small_40x10", screen);
    assert!(screen.contains("terminal too small: 40×10"));
    // at 20×5 the message wraps to five rows, each of them shown: it was
    // given three and lost "60×15" and "(q quits)"
    let tiny = render(&mut app, 20, 5);
    let words: Vec<&str> = tiny
        .split(|c: char| c.is_whitespace() || c == '"')
        .collect();
    for w in ["small:", "20×5", "60×15", "quits)"] {
        assert!(words.contains(&w), "{w:?}\n{tiny}");
    }
}

#[test]
fn pause_freezes_the_figures_while_sampling_goes_on() {
    let mut app = app_with(10);
    keys(&mut app, &[Action::GotoPanel(1), Action::TogglePause]);
    let before = render(&mut app, 200, 20);
    assert!(before.contains("PAUSED"));
    app.local.disks.ingest(&common::sample(10));
    app.local.disks.ingest(&common::sample(11));
    assert_eq!(render(&mut app, 200, 20), before);
    assert_eq!(
        app.local.disks.history.seq(),
        11,
        "sampling went on into the store"
    );
    keys(&mut app, &[Action::TogglePause]);
    let after = render(&mut app, 200, 20);
    assert!(after.contains("LIVE") && after != before);
}

#[test]
fn first_sample_shows_waiting_not_zeros() {
    let mut app = app_with(1);
    let screen = render(&mut app, 120, 40);
    assert!(screen.contains("waiting for the second sample"));
    assert!(!screen.contains("0.00"));
}

#[test]
fn every_theme_draws_and_the_selection_is_visible() {
    for name in Theme::builtin_names() {
        let mut app = app_with(5);
        app.theme = Theme::builtin(name).expect("built-in theme");
        keys(&mut app, &[Action::GotoPanel(1)]);
        let backend = ratatui::backend::TestBackend::new(160, 20);
        let mut terminal = ratatui::Terminal::new(backend).expect("backend");
        let _ = strata::ui::render(&mut terminal, &app).expect("draw");
        let buf = terminal.backend().buffer();
        // the first table row (y = 4) carries the selected style
        let cell = &buf[(2, 4)];
        let sel = app.theme.selected;
        assert_eq!(cell.bg, sel.bg.unwrap_or(Color::Reset), "theme {name}");
        if *name == "mono" {
            for y in 0..20 {
                for x in 0..160 {
                    let c = &buf[(x, y)];
                    assert!(
                        matches!(c.fg, Color::Reset) && matches!(c.bg, Color::Reset),
                        "mono has colour at {x},{y}"
                    );
                }
            }
        }
    }
}

#[test]
fn theme_key_cycles_through_the_builtins() {
    let mut app = app_with(2);
    let mut seen = vec![app.theme.name.clone()];
    for _ in 0..Theme::builtin_names().len() {
        keys(&mut app, &[Action::CycleTheme]);
        seen.push(app.theme.name.clone());
    }
    assert_eq!(seen.first(), seen.last());
    for name in Theme::builtin_names() {
        assert!(seen.iter().any(|s| s == name), "{name} never reached");
    }
}

#[test]
fn a_failing_source_says_why_and_keeps_the_last_figures() {
    let mut app = app_with(10);
    app.local
        .disks
        .failed("cannot read /srv/x/proc/diskstats: No such file or directory (os error 2)".into());
    let screen = render(&mut app, 120, 40);
    assert!(
        screen.contains("disk source: cannot read /srv/x/proc/diskstats"),
        "{screen}"
    );
    keys(&mut app, &[Action::GotoPanel(1)]);
    let screen = render(&mut app, 160, 30);
    assert!(screen.contains("disk source: cannot read"));
    assert!(screen.contains("mpatha"), "the last figures stay on screen");
    // the next good sample clears the error
    app.local.disks.ingest(&common::sample(10));
    assert!(!render(&mut app, 160, 30).contains("disk source:"));
}

/// strata started on a root it cannot read (`--root` to an empty tree):
/// every source fails before its first sample. Each panel says its
/// source's error whole, at 80×24 and 100×30; they said "waiting for the
/// second sample…" for ever, and only the overview's boxes had the
/// reason, the host box's cut at its border.
#[test]
fn a_source_that_never_read_says_why_on_its_panel() {
    let mut app = common::app_of_config(strata::config::Config::default());
    let err = "cannot read /tmp/x/emptyroot/proc/uptime: No such file or directory (os error 2)";
    app.local.disks.failed(err.into());
    app.local.nfs.failed(err.into());
    app.local.cache.failed(err.into());
    app.local.nics.failed(err.into());
    let words: Vec<&str> = err.split(' ').collect();
    for (panel, what) in [
        (0, "disk source:"),
        (1, "disk source:"),
        (2, "page cache:"),
        (3, "mountstats:"),
        (4, "net:"),
    ] {
        keys(&mut app, &[Action::GotoPanel(panel)]);
        for (w, h) in [(80, 24), (100, 30)] {
            let screen = render(&mut app, w, h);
            let id = format!("panel {} at {w}×{h}", panel + 1);
            assert!(!screen.contains("waiting for"), "{id}\n{screen}");
            assert!(screen.contains(what), "{id}: no {what:?}\n{screen}");
            // wrapped at words, each word whole
            let shown: Vec<&str> = screen
                .split(|c: char| c.is_whitespace() || c == '│')
                .collect();
            for word in &words {
                assert!(shown.contains(word), "{id}: {word:?} cut\n{screen}");
            }
        }
    }
}

/// A host with no NFS mount and no watched file, at 80×24 (a fresh
/// terminal): the notes of the page cache's files and of the NFS panel
/// are whole, wrapped. They were cut at the border: "…in the config
/// shows pe", "…I/O and never".
#[test]
fn the_panels_notes_are_whole_at_80_columns() {
    let mut app = common::app_of_config(strata::config::Config::default());
    for k in 0..3 {
        app.local.disks.ingest(&common::sample(k));
        let mut nfs = common::nfs_sample(k);
        nfs.mounts.clear();
        app.local.nfs.ingest(&nfs);
        let mut cache = common::cache_sample(k);
        cache.files.clear();
        cache.method = None;
        app.local.cache.ingest(&cache);
        app.local.nics.ingest(&common::nic_sample(k));
    }
    for (panel, whole, cut) in [
        (2, "per-file residency", " pe│"),
        (3, "shows here)", "I/O and│"),
    ] {
        keys(&mut app, &[Action::GotoPanel(panel)]);
        let screen = render(&mut app, 80, 24);
        assert!(screen.contains(whole), "{whole:?}\n{screen}");
        assert!(!screen.contains(cut), "{cut:?}\n{screen}");
    }
}

/// Two errors of a config file at start: the footer wraps them (up to
/// four rows) so both are read whole. One row cut the first in its list
/// of known keys and never showed the second, which batch prints.
#[test]
fn a_long_notice_wraps_in_the_footer() {
    let mut app = app_with(5);
    let first = "strata.toml line 3: nterval: unknown key (known keys: interval, theme, \
                 history, history_window, units, cache_files, fincore_every, thresholds)";
    let second = "strata.toml line 9: util_warn (95) above util_crit (90)";
    app.add_notes([first.to_string(), second.to_string()], None);
    for (w, h) in [(80, 24), (100, 30)] {
        let screen = render(&mut app, w, h);
        let footer: String = screen
            .lines()
            .rev()
            .take(4)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .map(|l| l.trim_matches('"').trim())
            .collect::<Vec<_>>()
            .join(" ");
        for part in [first, second] {
            assert!(footer.contains(part), "{w}×{h}: {part:?}\n{screen}");
        }
        assert!(screen.contains("LIVE"), "{screen}");
    }
}

#[test]
fn rejected_lines_are_named_and_the_rest_shown() {
    let mut app = app_with(3);
    let mut s = common::sample(3);
    let bad = strata::layers::disks::diskstats::parse_diskstats(
        "8 48 sdd 1 2 three 4 5 6 7 8 9 10 11\n",
        "/proc/diskstats",
    );
    s.rejected = bad.rejected;
    app.local.disks.ingest(&s);
    keys(&mut app, &[Action::GotoPanel(1)]);
    let screen = render(&mut app, 200, 20);
    assert!(
        screen.contains("rejected: /proc/diskstats line 1"),
        "{screen}"
    );
    assert!(screen.contains("mpatha") && screen.contains("sda"));
}

#[test]
fn the_selection_stays_on_screen_when_scrolling() {
    let mut app = app_with(5);
    keys(
        &mut app,
        &[
            Action::GotoPanel(1),
            Action::SortNext,
            Action::TogglePartitions,
        ],
    );
    // 9 devices, room for 8 rows
    let screen = render(&mut app, 200, 15);
    assert!(
        screen.contains("mpatha") && !screen.contains("vg_data-lv_oradata"),
        "{screen}"
    );
    keys(&mut app, &[Action::Bottom]);
    let screen = render(&mut app, 200, 15);
    assert!(
        screen.contains("vg_data-lv_oradata") && !screen.contains("mpatha"),
        "{screen}"
    );
    keys(&mut app, &[Action::Up]);
    let screen = render(&mut app, 200, 15);
    assert!(
        screen.contains("vg_data-lv_oradata"),
        "moving up inside the window does not scroll"
    );
    keys(&mut app, &[Action::Top]);
    assert!(render(&mut app, 200, 15).contains("mpatha"));
}

#[test]
fn pause_keeps_the_charts_as_they_were() {
    let config = strata::config::Config {
        history_secs: 12,
        ..Default::default()
    };
    let mut app = common::app_of_config(config);
    for k in 0..14 {
        app.local.disks.ingest(&common::sample(k));
    }
    keys(&mut app, &[Action::GotoPanel(1)]);
    select(&mut app, "sda");
    keys(&mut app, &[Action::Enter, Action::TogglePause]);
    let before = render(&mut app, 160, 50);
    // twice the window goes by: the live history has evicted all of it
    for k in 14..40 {
        app.local.disks.ingest(&common::sample(k));
    }
    assert_eq!(
        render(&mut app, 160, 50),
        before,
        "charts moved while paused"
    );
    // a device opened while paused is cut at the pause too
    keys(&mut app, &[Action::Enter]);
    let part = render(&mut app, 160, 50);
    assert!(part.contains("sda › sda1") && part.contains("PAUSED"));
}

#[test]
fn a_failing_source_turns_the_badge_stale() {
    let mut app = app_with(5);
    assert!(render(&mut app, 120, 30).contains(" LIVE "));
    app.local.disks.failed("cannot read /proc/diskstats".into());
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains(" STALE ") && !screen.contains(" LIVE "));
    keys(&mut app, &[Action::GotoPanel(1), Action::Enter]);
    assert!(
        render(&mut app, 120, 40).contains("disk source: cannot read"),
        "the device view says so too"
    );
}

#[test]
fn a_vanished_path_moves_the_selection_and_enter_follows_it() {
    let mut app = app_with(5);
    keys(&mut app, &[Action::GotoPanel(1)]);
    select(&mut app, "dm-0");
    keys(&mut app, &[Action::Enter, Action::Down]);
    assert_eq!(app.ui.part_selected.as_deref(), Some("sdc"));
    let mut s = common::sample(5);
    s.devices.retain(|d| d.name != "sdc");
    app.local.disks.ingest(&s);
    keys(&mut app, &[Action::Enter]);
    assert!(
        render(&mut app, 140, 44).contains("mpatha › sdb"),
        "Enter opens the highlighted path"
    );
}

/// At 80×24 every panel keeps what the user cannot do without: the footer
/// ends with `? help` and `q quit` (the view's own keys go first), the
/// header keeps the state, the host, the time and strata's CPU with its
/// unit, and the breadcrumb is whole (the other panels' names give way).
#[test]
fn at_80x24_header_footer_and_breadcrumb_keep_what_matters() {
    use strata::app::Panel;
    use strata::core::host::SelfUsage;
    let mut app = app_with(30);
    app.usage = SelfUsage {
        cpu_pct: Some(0.3),
        rss_bytes: Some(9 * 1024 * 1024),
        ..SelfUsage::default()
    };
    for (i, panel) in Panel::ALL.iter().enumerate() {
        keys(&mut app, &[Action::GotoPanel(i)]);
        let screen = render(&mut app, 80, 24);
        let lines: Vec<&str> = screen.lines().map(|l| l.trim_matches('"')).collect();
        let (header, nav, footer) = (lines[0], lines[1], lines[23]);
        assert!(
            footer.trim_end().ends_with("? help  q quit"),
            "{panel:?}: {footer}"
        );
        assert!(
            header.contains(" LIVE ")
                && header.contains("db01")
                && header.contains("hh:mm:ss")
                && header.contains("strata cpu 0.3%"),
            "{panel:?}: {header}"
        );
        assert!(
            nav.trim_end().ends_with(&format!("│ {}", panel.title())),
            "{panel:?}: {nav}"
        );
        // the other panels by number on every panel alike: the NFS
        // panel's short breadcrumb once left them their names (issue 26)
        assert!(
            nav.contains(" 1 ") && !nav.contains(" 7 Databases") || *panel == Panel::Databases,
            "{panel:?}: {nav}"
        );
        assert!(
            !nav.contains(" 2 Disks") || *panel == Panel::Disks,
            "{panel:?}: {nav}"
        );
    }
    // A wide screen keeps every part and every panel's name.
    let screen = render(&mut app, 200, 24);
    let header = screen.lines().next().unwrap();
    assert!(
        header.contains("every 1s") && header.contains("rss 9.0 MiB"),
        "{header}"
    );
    let nav = screen.lines().nth(1).unwrap();
    assert!(
        nav.contains("1 Overview") && nav.contains("2 Disks"),
        "{nav}"
    );
}

/// Footers offer only what does something here: no Enter into the parts
/// of a device without any, into files nobody watches or databases there
/// are none of; a replay shows its own keys first.
/// The cache panel watching no file offers no key for the files' table,
/// nor does the cells panel without cells for its: they offered `s/S
/// sort r reverse / filter` with nothing to sort or filter (issue 26).
#[test]
fn footers_offer_no_key_for_a_table_that_is_not_there() {
    let mut app = common::app_of_config(strata::config::Config::default());
    for k in 0..5 {
        let mut cache = common::cache_sample(k);
        cache.files.clear();
        app.local.cache.ingest(&cache);
    }
    app.now_ms = 1_795_000_000_000 + 5_000;
    for panel in [2, 5] {
        keys(&mut app, &[Action::GotoPanel(panel)]);
        let screen = render(&mut app, 120, 24);
        let f = screen.lines().last().unwrap();
        for k in ["Enter ", "s/S ", "r reverse", "/ filter"] {
            assert!(!f.contains(k), "panel {panel} offers {k}: {f}");
        }
        assert!(f.contains("p pause") && f.contains("q quit"), "{f}");
    }
}

#[test]
fn footers_offer_only_what_does_something() {
    let footer = |app: &mut App| {
        let screen = render(app, 120, 24);
        screen.lines().last().unwrap().to_string()
    };
    let mut app = app_with(30);
    // sda has partitions, sdc none (the fixture host)
    keys(&mut app, &[Action::GotoPanel(1)]);
    select(&mut app, "sdc");
    keys(&mut app, &[Action::Enter]);
    assert!(app.parts_here().is_empty());
    let f = footer(&mut app);
    assert!(!f.contains("Enter part") && f.contains("Esc back"), "{f}");
    keys(&mut app, &[Action::Back]);
    select(&mut app, "sda");
    keys(&mut app, &[Action::Enter]);
    let f = footer(&mut app);
    assert!(f.contains("Enter part"), "{f}");
    // the cache panel with its watched files; the databases panel with none
    keys(&mut app, &[Action::Back, Action::GotoPanel(2)]);
    assert!(!app.cache_files().is_empty());
    let f = footer(&mut app);
    assert!(f.contains("Enter file") && f.contains("sort files"), "{f}");
    keys(&mut app, &[Action::GotoPanel(6)]);
    let f = footer(&mut app);
    assert!(!f.contains("Enter instance") && f.contains("q quit"), "{f}");
    // a replay: its keys, and still help and quit at 80 columns
    app.replay = Some(strata::app::session::ReplayStatus {
        file: "run.strec".into(),
        start_ms: 0,
        end_ms: 60_000,
        pos_ms: 10_000,
        playing: false,
        speed: 1,
        markers: Vec::new(),
        gaps: Vec::new(),
    });
    keys(&mut app, &[Action::GotoPanel(0)]);
    let screen = render(&mut app, 80, 24);
    let f = screen.lines().last().unwrap();
    for k in [
        "Space play",
        "t/T step",
        "b go to",
        "+/- speed",
        "? help",
        "q quit",
    ] {
        assert!(f.contains(k), "{k}: {f}");
    }
}

/// A budget too small for every device: those past it say why they have
/// no charts instead of drawing empty ones, those within it draw theirs,
/// and the footer tells it once.
#[test]
fn a_device_past_the_history_budget_says_why_it_has_no_charts() {
    // an hour at 1 s of 8 figures is 115,200 bytes a device: room for two
    let config = strata::config::Config {
        history_memory: 240_000,
        ..Default::default()
    };
    let mut app = common::app_of_config(config);
    for k in 0..30 {
        app.apply(strata::app::Input::Disks(Ok(common::sample(k))));
    }
    app.now_ms = 1_795_000_030_000;
    assert!(app.history_budget().reserved() <= 240_000);
    let notice = app.notice.clone().unwrap_or_default();
    assert_eq!(notice.matches("history budget").count(), 1, "{notice}");
    let names: Vec<String> = app.disk_rows().iter().map(|r| r.name.clone()).collect();
    let refused = names
        .iter()
        .find(|n| app.local.disks.refused(n))
        .expect("one refused");
    let kept = names.iter().find(|n| app.local.disks.history.has_values(n));
    keys(&mut app, &[Action::GotoPanel(1)]);
    select(&mut app, &refused.clone());
    keys(&mut app, &[Action::Enter]);
    let screen = render(&mut app, 160, 50);
    assert!(
        screen.contains("no history: the history budget (234.4 KiB) is full; raise history_memory"),
        "{screen}"
    );
    assert!(!screen.contains("Throughput"), "{screen}");
    if let Some(kept) = kept {
        keys(&mut app, &[Action::Back]);
        select(&mut app, &kept.clone());
        keys(&mut app, &[Action::Enter]);
        let screen = render(&mut app, 160, 50);
        assert!(
            screen.contains("Throughput") && !screen.contains("no history"),
            "{screen}"
        );
    }
}

/// One budget serves every layer: when the disks took it all, a NIC, an
/// NFS mount and a watched file that came after say where their charts
/// would be why they have none, as a device does, rather than draw empty
/// charts that read as an idle interface.
#[test]
fn every_layers_detail_says_why_the_budget_left_it_no_charts() {
    // the disks' total and devices take it all before the other layers
    let config = strata::config::Config {
        history_memory: 240_000,
        ..Default::default()
    };
    let mut app = common::app_of_config(config);
    for k in 0..30 {
        app.local.disks.ingest(&common::sample(k));
        app.local.nfs.ingest(&common::nfs_sample(k));
        app.local.cache.ingest(&common::cache_sample(k));
        app.local.nics.ingest(&common::nic_sample(k));
    }
    app.now_ms = 1_795_000_030_000;
    let why = "no history: the history budget (234.4 KiB) is full; raise history_memory";
    let at = |p: Panel| Panel::ALL.iter().position(|x| *x == p).unwrap();
    for (panel, enter, what) in [
        (Panel::Nfs, true, "an NFS mount"),
        (Panel::Cache, true, "a watched file"),
        (Panel::Cache, false, "the page cache"),
    ] {
        keys(&mut app, &[Action::GotoPanel(at(panel)), Action::Top]);
        if enter {
            keys(&mut app, &[Action::Enter]);
        }
        let screen = render(&mut app, 160, 50);
        assert!(screen.contains(why), "{what}:\n{screen}");
        if enter {
            keys(&mut app, &[Action::Back]);
        }
    }
    app.ui.stack = vec![View::Panel(Panel::Nics), View::Nic("bond0".into())];
    let screen = render(&mut app, 160, 50);
    assert!(
        screen.contains(why) && !screen.contains("Throughput"),
        "{screen}"
    );
}

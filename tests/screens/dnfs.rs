//! The database panel on screen, fed through the same mapper and model as
//! the oracle crate's rows: the 19c RAC fixture (PROD), the 12.1 one
//! (CDB1), a database whose views are empty (TEST), and one that cannot
//! be read because the Oracle client is missing, with the DPI-1047 text
//! the oracle crate really returns on this machine (LOCAL).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use strata::layers::host::HostState;

use common::dnfs::{T0, prod_instances, rac_app, readings, sample};
use common::redact_times;
use strata::app::dnfs::{Dnfs, DnfsUi};
use strata::layers::dnfs::error::DbError;
use strata::layers::dnfs::source::{DbEvent, DbStatus, connect, parse_db_spec};
use strata::theme::Theme;

/// The real status of a database read without an Oracle client, with the
/// test's LD_LIBRARY_PATH (cargo's build directories) put as "…".
fn client_missing() -> DbStatus {
    match connect(
        &parse_db_spec("/").unwrap(),
        std::time::Duration::from_secs(1),
        None,
    ) {
        Err(DbStatus::ClientMissing(DbError::ClientMissing {
            error,
            ld_library_path,
        })) => DbStatus::ClientMissing(DbError::ClientMissing {
            error,
            ld_library_path: ld_library_path
                .filter(|p| !p.is_empty())
                .map(|_| "…".into()),
        }),
        other => panic!("an Oracle client on this machine? {other:?}"),
    }
}

fn dnfs() -> Dnfs {
    let targets = [
        "dbsnmp@//prod-scan:1521/PROD",
        "dbsnmp@//cdb1:1521/CDB1",
        "dbsnmp@//test:1521/TEST",
        "/",
    ]
    .iter()
    .map(|s| parse_db_spec(s).unwrap())
    .collect();
    let mut d = Dnfs::new(
        targets,
        strata::core::duration::Interval::from_secs(5.0).unwrap(),
        60,
    );
    for db in 0..3 {
        d.ingest(DbEvent::Status {
            db,
            status: DbStatus::Live,
        });
    }
    for s in readings("19c", 10) {
        d.ingest(DbEvent::Sample { db: 0, sample: s });
    }
    for s in readings("12.1", 4) {
        d.ingest(DbEvent::Sample { db: 1, sample: s });
    }
    let mut empty = sample("gv-dnfs-19c-a.txt");
    empty.stats.clear();
    empty.servers.clear();
    empty.channels.clear();
    empty.files.clear();
    for k in 0..2 {
        let mut e = empty.clone();
        e.db_ms += k * 5000;
        e.wall_ms = T0 - (1 - k) * 5000;
        d.ingest(DbEvent::Sample { db: 2, sample: e });
    }
    d.ingest(DbEvent::Status {
        db: 3,
        status: client_missing(),
    });
    d
}

fn render(d: &Dnfs, ui: &DnfsUi, w: u16, h: u16) -> String {
    render_as(d, ui, w, h, false)
}

/// The panel as a replay (`recorded`) or a live run draws it.
fn render_as(d: &Dnfs, ui: &DnfsUi, w: u16, h: u16, recorded: bool) -> String {
    let backend = ratatui::backend::TestBackend::new(w, h);
    let mut term = ratatui::Terminal::new(backend).unwrap();
    let theme = Theme::default();
    let cx = strata::ui::dnfs::Ctx {
        t: &theme,
        dnfs: d,
        ui,
        now_ms: T0 + 1000,
        marks: &[],
        recorded,
        path: None,
    };
    term.draw(|f| strata::ui::dnfs::draw(f, f.area(), cx))
        .unwrap();
    redact_times(&term.backend().to_string())
}

/// A recording without databases says so, and not how to name one live:
/// --db would not apply to it. The demo recording has none.
#[test]
fn a_recording_without_databases_gives_no_live_advice() {
    let demo = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.strec"));
    let player = strata::recording::session::Player::open(demo).unwrap();
    let mut app = common::fidelity::app_of(&player.meta);
    assert!(app.dnfs.list.is_empty());
    let i = strata::app::Panel::ALL
        .iter()
        .position(|p| *p == strata::app::Panel::Databases)
        .unwrap();
    app.update(strata::app::Action::GotoPanel(i));
    assert!(common::render(&mut app, 120, 20).contains("--db user@"));
    let _replay = strata::replay::Replayer::new(player, &mut app, demo);
    let screen = common::render(&mut app, 120, 20);
    assert!(
        screen.contains("no databases in this recording") && !screen.contains("--db"),
        "{screen}"
    );
    let panel = render_as(&app.dnfs, &app.ui.dnfs, 80, 6, true);
    insta::assert_snapshot!("dnfs_replay_no_databases_80x6", panel);
}

#[test]
fn databases_list_with_history_of_the_highlighted_one() {
    let d = dnfs();
    let ui = DnfsUi::default();
    let screen = render(&d, &ui, 150, 24);
    // 19c reading b: 61600 IOPS, 470.3 rMB/s over the database
    assert!(screen.contains("61600.0"), "{screen}");
    assert!(screen.contains("dNFS not in use"), "{screen}");
    assert!(screen.contains("no Oracle client"), "{screen}");
    insta::assert_snapshot!("dnfs_databases_150x24", screen);
}

#[test]
fn a_database_without_client_says_dpi_1047_where_and_how() {
    let d = dnfs();
    let mut ui = DnfsUi::default();
    ui.move_by(&d, 3);
    let screen = render(&d, &ui, 150, 24);
    assert!(screen.contains("DPI-1047"), "{screen}");
    assert!(screen.contains("Instant Client"), "{screen}");
    insta::assert_snapshot!("dnfs_client_missing_150x24", screen);
    // at 80 columns the reason wraps to ten rows: all of them are there,
    // its fix to the last word (six rows once cut it short)
    let narrow = render(&d, &ui, 80, 24);
    let text: String = narrow
        .lines()
        .map(|l| l.trim_matches(|c| c == '"' || c == '│' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ");
    // the list's columns that 80 columns leave out are named
    assert!(!screen.contains("not shown"), "{screen}");
    assert!(
        narrow.contains("not shown: w/s, rMB/s, wMB/s, avg kB: 34 columns more"),
        "{narrow}"
    );
    for part in [
        "the ld.so cache and /lib, /usr/lib.",
        "register it with ldconfig.",
    ] {
        assert!(text.contains(part), "{part:?} cut:\n{narrow}");
    }
}

#[test]
fn drill_down_database_instance_server_channel() {
    let d = dnfs();
    let mut ui = DnfsUi::default();
    ui.enter(&d); // PROD
    let db = render(&d, &ui, 150, 30);
    assert!(db.contains("inst 1") && db.contains("inst 2"), "{db}");
    insta::assert_snapshot!("dnfs_db_prod_150x30", db);
    ui.move_by(&d, 1);
    ui.enter(&d); // inst 2
    let inst = render(&d, &ui, 150, 30);
    assert!(inst.contains("nas1") && inst.contains("NFSv4.1"), "{inst}");
    insta::assert_snapshot!("dnfs_inst2_150x30", inst);
    ui.enter(&d); // nas1 on inst 2
    let server = render(&d, &ui, 150, 20);
    assert!(server.contains("192.168.10.2"), "{server}");
    insta::assert_snapshot!("dnfs_server_nas1_150x20", server);
    ui.move_by(&d, 1);
    ui.enter(&d); // channel 20/1
    let ch = render(&d, &ui, 100, 16);
    assert!(
        ch.contains("channel 20/1") && ch.contains("since last select"),
        "{ch}"
    );
    insta::assert_snapshot!("dnfs_channel_100x16", ch);
    for depth in (0..4).rev() {
        ui.up();
        assert_eq!(ui.depth(), depth);
    }
}

#[test]
fn the_12_1_database_reads_channels_as_running_totals() {
    let d = dnfs();
    let mut ui = DnfsUi::default();
    ui.move_by(&d, 1);
    ui.enter(&d);
    ui.enter(&d);
    let screen = render(&d, &ui, 150, 30);
    assert!(screen.contains("running totals"), "{screen}");
    assert!(screen.contains("nas2"), "{screen}");
    insta::assert_snapshot!("dnfs_cdb1_inst1_150x30", screen);
}

/// The path view over the 19c database (470.3125 + 10.9375 = 481.25 MB/s
/// of dNFS, channels from 192.168.10.x and 192.168.11.x) with the host's
/// NFS client, NICs and block devices as given.
fn path(kernel_nfs: f64, nics: (f64, f64), routes: &str) -> String {
    path_at(kernel_nfs, nics, routes, 120)
}

/// [`path`] drawn `width` columns wide.
fn path_at(kernel_nfs: f64, nics: (f64, f64), routes: &str, width: u16) -> String {
    use strata::layers::dnfs::path::{HostFigures, PathView, line_up};
    use strata::layers::nics::route::parse_route;
    let d = dnfs();
    let tick = d.list[0].current(T0 + 1000, d.interval.ms()).unwrap();
    let routes = parse_route(routes).items;
    let nic = vec![
        ("ens3f0".to_string(), Some(nics.0)),
        ("ens3f1".to_string(), Some(nics.1)),
        ("eth0".to_string(), Some(3.0)),
    ];
    let host = HostFigures {
        routes: &routes,
        nic_mb_s: nic,
        kernel_nfs_mb_s: Some(kernel_nfs),
        block_mb_s: Some(42.0),
    };
    let p = PathView::Host(line_up(&[tick], &host));
    let backend = ratatui::backend::TestBackend::new(width, 8);
    let mut term = ratatui::Terminal::new(backend).unwrap();
    term.draw(|f| strata::ui::dnfs::draw_path(f, f.area(), &Theme::default(), &p))
        .unwrap();
    term.backend().to_string()
}

/// At 80 columns the layers take two rows, each figure under its own
/// layer with its unit: wrapped by the paragraph, the block devices' 42.0
/// stood alone on a line under the database's name.
#[test]
fn path_view_at_80_columns_keeps_each_figure_under_its_layer() {
    let s = path_at(0.2, (250.0, 245.0), ROUTES, 80);
    let lines: Vec<&str> = s.lines().collect();
    let under = |layer: &str, figure: &str| {
        let r = lines
            .iter()
            .position(|l| l.contains(layer))
            .unwrap_or_else(|| panic!("no {layer} in\n{s}"));
        let (name_at, fig_line) = (lines[r].find(layer).unwrap(), lines[r + 1]);
        let fig_at = fig_line
            .find(figure)
            .unwrap_or_else(|| panic!("{figure} not under {layer}:\n{s}"));
        // right-aligned in the layer's room, never left of its name
        assert!(fig_at >= name_at, "{figure} left of {layer}:\n{s}");
    };
    under("database (dNFS)", "481.2 MB/s");
    under("host NFS client", "0.2 MB/s");
    under("NICs of the channels", "495.0 MB/s");
    under("block devices", "42.0 MB/s");
    // nothing spills past the box (TestBackend quotes each line)
    assert!(
        s.lines().all(|l| l.trim_matches('"').chars().count() == 80),
        "{s}"
    );
}

const ROUTES: &str = "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n\
ens3f0\t000AA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n\
ens3f1\t000BA8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n";

#[test]
fn path_view_host_blind() {
    // the kernel client sees 0.2 MB/s of 481.25: iostat shows an idle mount
    let s = path(0.2, (250.0, 245.0), ROUTES);
    assert!(s.contains("481.2") && s.contains("495.0"), "{s}");
    assert!(s.contains("does not see"), "{s}");
    insta::assert_snapshot!("dnfs_path_host_blind_120x8", s);
}

#[test]
fn path_view_wire_short() {
    // no route for 192.168.11.0/24: one NIC counted, 250 < 0.9 × 481.25
    let routes = ROUTES.lines().take(2).collect::<Vec<_>>().join("\n");
    let s = path(300.0, (250.0, 245.0), &routes);
    assert!(s.contains("192.168.11.1"), "{s}");
    assert!(s.contains("less than"), "{s}");
    insta::assert_snapshot!("dnfs_path_wire_short_120x8", s);
}

#[test]
fn path_view_wire_extra() {
    // 1100 + 900 MB/s on the filer NICs > 1.5 × (481.25 + 300) + 1
    let s = path(300.0, (1100.0, 900.0), ROUTES);
    assert!(s.contains("far more"), "{s}");
    insta::assert_snapshot!("dnfs_path_wire_extra_120x8", s);
}

fn goto(app: &mut strata::app::App, panel: strata::app::Panel) {
    let i = strata::app::Panel::ALL
        .iter()
        .position(|p| *p == panel)
        .unwrap();
    app.update(strata::app::Action::GotoPanel(i));
}

/// In the app: a database without an Oracle client (the oracle crate's
/// real DPI-1047) beside the 19c RAC, while the host's disks go on being
/// sampled. The overview says both, the panel gives the full text, the
/// keys drill down and back up, and the disks' figures keep coming.
#[test]
fn in_the_app_dpi_1047_is_shown_and_the_other_layers_keep_working() {
    use strata::app::{Action, Panel};
    let mut app = common::app_with(20);
    app.set_dbs(vec![
        parse_db_spec("dbsnmp@//prod-scan:1521/PROD").unwrap(),
        parse_db_spec("/").unwrap(),
    ]);
    app.ingest_db_event(DbEvent::Status {
        db: 0,
        status: DbStatus::Live,
    });
    for s in readings("19c", 3) {
        app.ingest_db_event(DbEvent::Sample { db: 0, sample: s });
    }
    app.ingest_db_event(DbEvent::Status {
        db: 1,
        status: client_missing(),
    });
    app.now_ms = T0 + 1000;
    let overview = common::render(&mut app, 140, 40);
    let db_line = overview.lines().nth(3).unwrap();
    assert!(
        db_line.contains("61600.0 IOPS") && db_line.contains("no Oracle client"),
        "{overview}"
    );
    insta::assert_snapshot!("dnfs_overview_140x40", overview);
    // At 80×24 the database box leaves every other box its lines (the two
    // databases' line takes its two rows, the line-up does not fit).
    let small = common::render(&mut app, 80, 24);
    assert!(
        small.contains("61600.0 IOPS") && small.contains("│client "),
        "{small}"
    );
    assert!(small.contains("│physical  in "), "{small}");
    assert!(small.contains("│no cells · "), "{small}");
    assert!(small.contains("│busiest "), "{small}");

    goto(&mut app, Panel::Databases);
    app.update(Action::Down);
    let panel = common::render(&mut app, 150, 30);
    assert!(
        panel.contains("DPI-1047") && panel.contains("7 Databases"),
        "{panel}"
    );

    // the disks layer keeps sampling while the database cannot be read
    let before = app.local.disks.latest.as_ref().map(|t| t.wall_ms);
    app.local.disks.ingest(&common::sample(20));
    assert_ne!(app.local.disks.latest.as_ref().map(|t| t.wall_ms), before);

    // Enter on PROD, instance 1, nas1, the first channel; Esc climbs back
    app.update(Action::Up);
    for _ in 0..4 {
        app.update(Action::Enter);
    }
    assert_eq!(app.ui.dnfs.depth(), 4);
    let ch = common::render(&mut app, 150, 30);
    assert!(ch.contains("channel 20/0"), "{ch}");
    for depth in (0..4).rev() {
        app.update(Action::Back);
        assert_eq!(app.ui.dnfs.depth(), depth);
    }
    assert_eq!(
        app.panel(),
        Panel::Databases,
        "Esc at the top stays on the panel"
    );
}

/// A session with the 19c RAC recorded as the live loop records it: its
/// replay shows the same database panel, `strata export --panel dnfs` is
/// what `strata batch dnfs` prints for each reading, and the summary's
/// IOPS are those of the live history.
#[test]
fn a_recorded_database_replays_exports_and_sums_up_as_it_was_read() {
    use strata::app::{Action, Input, Panel};
    use strata::export::cmd::{ExportArgs, run_export};
    use strata::export::summary::summarize;
    use strata::export::window::Window;
    use strata::layers::LayerId;
    use strata::layers::dnfs::model::DnfsCol;
    use strata::layers::report::Format;
    use strata::recording::control::meta_of;
    use strata::recording::session::{Player, Recorder};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.strec");
    let mut live = common::fidelity::host_app(Vec::new(), 5.0);
    live.set_dbs(vec![parse_db_spec("dbsnmp@//prod-scan:1521/PROD").unwrap()]);
    let samples = readings("19c", 6);
    let t_start = samples[0].wall_ms - 1000;
    let mut rec = Recorder::create(&path, &meta_of(&live, t_start)).unwrap();
    let mut feed = |app: &mut strata::app::App, at: i64, input: Input| {
        rec.record(at, &input).unwrap();
        app.apply(input);
    };
    feed(
        &mut live,
        t_start,
        Input::Db(DbEvent::Status {
            db: 0,
            status: DbStatus::Live,
        }),
    );
    let mut want_lines = String::new();
    let mut iops = Vec::new();
    for s in samples {
        let at = s.wall_ms;
        feed(
            &mut live,
            at,
            Input::Db(DbEvent::Sample { db: 0, sample: s }),
        );
        let v = &live.dnfs.list[0];
        if let Some(t) = v.current(at, live.dnfs.interval.ms())
            && v.layer.history.seq() > 0
            && t.wall_ms == at
        {
            iops.extend(t.total.and_then(|f| f.get(DnfsCol::Iops)));
            want_lines.push_str(&strata::batch::dnfs::db_report(
                Format::Csv,
                &live.dnfs,
                0,
                at,
            ));
        }
    }
    live.now_ms = T0 + 1000;
    rec.close().unwrap();
    assert!(iops.len() >= 6 && iops.contains(&61600.0), "{iops:?}");

    // replay: the panel as it was
    let player = Player::open(&path).unwrap();
    let mut app = common::fidelity::app_of(&player.meta);
    let mut player = player;
    while let Some((_, input)) = player.next_input() {
        app.apply(input);
    }
    app.now_ms = live.now_ms;
    let i = Panel::ALL
        .iter()
        .position(|p| *p == Panel::Databases)
        .unwrap();
    for a in [&mut live, &mut app] {
        a.update(Action::GotoPanel(i));
    }
    assert_eq!(
        common::render(&mut app, 150, 30),
        common::render(&mut live, 150, 30)
    );

    // export: batch's lines, one per reading that gave figures
    let args = ExportArgs {
        format: Some(Format::Csv),
        panel: Some(LayerId::Dnfs),
        from: None,
        to: None,
        devices: Default::default(),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_export(&path, &args, &mut out, &mut err);
    let out = String::from_utf8(out).unwrap();
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let body: String = out.lines().skip(1).map(|l| format!("{l}\n")).collect();
    assert_eq!(body, want_lines);
    assert_eq!(
        out.lines().next(),
        Some(strata::batch::dnfs::csv_header().trim_end())
    );

    // summary: min and max of the live IOPS
    let mut player = Player::open(&path).unwrap();
    let s = summarize(&mut player, &Window::ALL);
    let label = &live.dnfs.list[0].target.label;
    let st = s
        .figure(LayerId::Dnfs, label, "IOPS")
        .and_then(|f| f.stats())
        .unwrap();
    let max = iops.iter().copied().fold(f64::MIN, f64::max);
    let min = iops.iter().copied().fold(f64::MAX, f64::min);
    assert_eq!((st.n, st.min, st.max), (iops.len(), min, max));
}

/// A database's state from long before a jump's window (which rebuilds
/// the last 300 intervals) is still on screen after the jump.
#[test]
fn a_jump_keeps_a_database_state_from_before_its_window() {
    use strata::app::Input;
    use strata::core::host::SelfUsage;
    use strata::recording::control::{meta_of, record_and_apply};
    use strata::recording::session::{Player, Recorder};
    use strata::replay::Replayer;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j.strec");
    let mut live = common::fidelity::host_app(Vec::new(), 1.0);
    live.set_dbs(vec![parse_db_spec("dbsnmp@//prod-scan:1521/PROD").unwrap()]);
    let mut rec = Recorder::create(&path, &meta_of(&live, T0)).unwrap();
    let refused = DbStatus::ConnectFailed("ORA-12541: TNS:no listener".into());
    let db = Input::Db(DbEvent::Status {
        db: 0,
        status: refused.clone(),
    });
    record_and_apply(&mut rec, &mut live, T0, db).unwrap();
    // gv$instance, read at connect and not again within the recording
    let instances = Input::Db(DbEvent::Instances {
        db: 0,
        instances: prod_instances(),
    });
    record_and_apply(&mut rec, &mut live, T0 + 1, instances).unwrap();
    for k in 1..=900 {
        let now_ms = T0 + k * 1000;
        let clock = Input::Clock {
            now_ms,
            usage: SelfUsage::default(),
        };
        record_and_apply(&mut rec, &mut live, now_ms, clock).unwrap();
    }
    rec.close().unwrap();
    let player = Player::open(&path).unwrap();
    let mut app = common::fidelity::app_of(&player.meta);
    let mut r = Replayer::new(player, &mut app, &path);
    r.seek(&mut app, T0 + 900_000);
    assert_eq!(app.dnfs.list[0].status, refused);
    assert_eq!(app.dnfs.list[0].instances, Some(prod_instances()));
    let screen = common::render(&mut app, 120, 40);
    assert!(screen.contains("unreachable"), "{screen}");
}

/// Each instance against its own node: PROD1 (4 × 321.875 = 1287.5 MB/s)
/// on db01, whose ens3f0 and bond0 carry 1377.9 MB/s and whose NFS client
/// 430.5: nothing flagged; PROD2 (159.375 MB/s) on db02, whose NFS client
/// sees nothing and whose filer NICs carry far more: both flagged.
#[test]
fn path_view_per_instance_on_its_own_node() {
    use strata::layers::dnfs::path::{InstanceHost, PathFlag, PathView};
    let mut app = rac_app();
    let Some(PathView::Instances(insts)) = app.path_view() else {
        panic!("{:?}", app.path_view());
    };
    assert_eq!(insts.len(), 2);
    let (a, b) = (&insts[0].line, &insts[1].line);
    assert_eq!(insts[0].host, InstanceHost::Node("db01.example.com".into()));
    assert_eq!(insts[1].host, InstanceHost::Node("10.0.0.12".into()));
    assert_eq!(a.dnfs_mb_s, Some(1287.5));
    assert_eq!(b.dnfs_mb_s, Some(159.375));
    for p in [a, b] {
        assert_eq!(p.dnfs_ifaces, ["bond0", "ens3f0"]);
    }
    let wire = a.wire_mb_s.unwrap();
    assert!((wire - 1377.87).abs() < 0.01, "{wire}");
    assert_eq!(a.kernel_nfs_mb_s, Some(430.5));
    assert!(a.flags.is_empty(), "{:?}", a.flags);
    assert_eq!(b.kernel_nfs_mb_s, Some(0.0));
    assert!(
        matches!(
            b.flags[..],
            [PathFlag::HostBlind { .. }, PathFlag::WireExtra { .. }]
        ),
        "{:?}",
        b.flags
    );

    let p = PathView::Instances(insts);
    let backend = ratatui::backend::TestBackend::new(120, 12);
    let mut term = ratatui::Terminal::new(backend).unwrap();
    term.draw(|f| strata::ui::dnfs::draw_path(f, f.area(), &Theme::default(), &p))
        .unwrap();
    let s = term.backend().to_string();
    let row = |what: &str| {
        s.lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no {what} in\n{s}"))
            .to_string()
    };
    let prod1 = row("inst 1 (PROD1)");
    assert!(
        prod1.contains("db01.example.com") && prod1.contains("1287.5") && prod1.contains("1377.9"),
        "{s}"
    );
    let prod2 = row("inst 2 (PROD2)");
    assert!(
        prod2.contains("10.0.0.12") && prod2.contains("159.4"),
        "{s}"
    );
    assert!(row("⚠ inst 2 (PROD2)").contains("does not see"), "{s}");
    assert!(!s.contains("⚠ inst 1"), "{s}");
    insta::assert_snapshot!("dnfs_path_per_instance_120x12", s);

    // in the app: the overview's database box holds the same line-up
    let overview = common::render(&mut app, 160, 40);
    assert!(overview.contains("inst 2 (PROD2)"), "{overview}");
    insta::assert_snapshot!("dnfs_path_per_instance_overview_160x40", overview);
    // and the Databases panel, under its charts, in its aligned form
    goto(&mut app, strata::app::Panel::Databases);
    let panel = common::render(&mut app, 160, 40);
    assert!(
        panel.contains("Path · DB → host → wire → storage")
            && panel.contains("dNFS MB/s   NFS MB/s")
            && panel.contains("⚠ inst 2 (PROD2)"),
        "{panel}"
    );
}

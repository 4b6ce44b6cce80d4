//! Every host panel drawn from the old kernels' trees (tests/fixtures/
//! kernels), sampled by the real sources twice, 10,000 s apart: nothing
//! cut or missing, and what a kernel does not count shown as "–".

use crate::common;
use strata::layers::host::HostState;

use common::kernels::{KERNELS, SECONDS, advance, copy_kernel};
use common::render;
use strata::app::{Action, App, Panel};
use strata::config::Config;
use strata::core::host::host_info;
use strata::core::rootfs::RootFs;
use strata::layers::cache::source::CacheSource;
use strata::layers::disks::source::DiskSource;
use strata::layers::nfs::source::NfsSource;
use strata::layers::nics::source::NicSource;
use strata::theme::Theme;

const WALL_MS: i64 = 1_795_000_000_000;

/// The app after two samples of each host layer of `kernel`'s tree.
fn app_of(kernel: &str) -> App {
    let dir = copy_kernel(kernel);
    let fs = RootFs::new(dir.path());
    // the header names the tree's host and kernel, as a live run does
    let mut app = App::new(
        Config::default(),
        Theme::default(),
        host_info(&fs),
        strata::core::duration::Interval::ONE_SECOND,
    );
    let (mut disks, mut nfs) = (DiskSource::new(fs.clone()), NfsSource::new(fs.clone()));
    let (mut nics, mut cache) = (NicSource::new(fs.clone()), CacheSource::new(fs, Vec::new()));
    for k in 0..2 {
        if k == 1 {
            advance(dir.path());
        }
        let wall = WALL_MS + k * SECONDS as i64 * 1000;
        app.local.disks.ingest(&disks.sample(wall).unwrap());
        app.local.nfs.ingest(&nfs.sample(wall).unwrap());
        app.local.nics.ingest(&nics.sample(wall).unwrap());
        app.local.cache.ingest(&cache.sample(wall).unwrap());
    }
    app.now_ms = WALL_MS + SECONDS as i64 * 1000;
    app
}

fn goto(app: &mut App, panel: Panel) {
    let i = Panel::ALL.iter().position(|p| *p == panel).expect("panel");
    app.update(Action::GotoPanel(i));
}

/// The row of `screen` that holds `what`.
fn line_with<'a>(screen: &'a str, what: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no line with {what:?} in\n{screen}"))
}

/// The figures of a table row after its name, as drawn.
fn cells(line: &str) -> Vec<&str> {
    line.trim_matches(|c| c == '"' || c == '│')
        .split_whitespace()
        .collect()
}

#[test]
fn every_panel_of_each_old_kernel_draws_what_it_counts_and_dashes_for_what_it_does_not() {
    for kernel in KERNELS {
        let tree = common::kernels::kernel_tree(kernel);
        let release = std::fs::read_to_string(tree.join("proc/sys/kernel/osrelease")).unwrap();
        let diskstats = std::fs::read_to_string(tree.join("proc/diskstats")).unwrap();
        let fields = diskstats.lines().next().unwrap().split_whitespace().count();
        let mut app = app_of(kernel);
        let mut screens = Vec::new();
        for p in [
            Panel::Overview,
            Panel::Disks,
            Panel::Cache,
            Panel::Nfs,
            Panel::Nics,
        ] {
            goto(&mut app, p);
            let screen = render(&mut app, 200, 40);
            assert!(screen.contains(release.trim()), "{kernel} {p:?}:\n{screen}");
            screens.push(screen);
        }
        let [overview, disks, cache, nfs, nics] = &screens[..] else {
            unreachable!()
        };
        // the overview: a row per layer, figures in each
        assert!(
            line_with(overview, "busiest devices").contains("r/s"),
            "{kernel}"
        );
        assert!(overview.contains("−shmem"), "{kernel}:\n{overview}");
        assert!(
            line_with(overview, "/u02").contains("9876.54"),
            "{kernel}:\n{overview}"
        );

        // the disks' table: d/s..dareq-sz after w's six, then %util
        let head = cells(line_with(disks, "│Device "));
        let at = |name: &str| head.iter().position(|h| *h == name).unwrap();
        let sda = cells(line_with(disks, "│sda "));
        assert_eq!(sda.len(), head.len(), "{kernel}: {sda:?}");
        let discards = &sda[at("d/s")..=at("dareq-sz")];
        // 14 fields: no discards counted before 4.18, "–" not 0
        assert_eq!(
            discards.iter().all(|v| *v == "–"),
            fields == 14,
            "{kernel}: {discards:?}"
        );
        assert!(
            sda[at("r/s")].parse::<f64>().is_ok_and(|v| v > 0.0),
            "{kernel}: {sda:?}"
        );
        assert!(sda[at("%util")].parse::<f64>().is_ok(), "{kernel}: {sda:?}");

        // the page cache: 3.10 counts no refaults, 5.9 on the file's own
        let total = line_with(cache, "│MemTotal");
        assert!(total.contains("251.5 GiB"), "{kernel}: {total}");
        let faults = line_with(cache, "Faults /s");
        let refault = match kernel {
            "rh7-3.10" => "refault – [–/–/–]",
            "uek7-5.15" => "workingset_refault_file 81.23 ",
            _ => "workingset_refault 81.23 ",
        };
        assert!(faults.contains(refault), "{kernel}: {faults}");

        // NFS: version 3 before 5.x here, 4.1 after
        let mount = cells(line_with(nfs, "10.0.0.5:/export/u02"));
        let v3 = matches!(kernel, "rh7-3.10" | "uek5-4.14");
        assert_eq!(
            mount[2],
            if v3 { "3" } else { "4.1" },
            "{kernel}: {mount:?}"
        );
        assert_eq!(mount[3], "9876.54", "{kernel}: {mount:?}");

        // NICs: the bond and both slaves, the bond first (busiest)
        let bond = cells(line_with(nics, "  bond0 "));
        assert_eq!(&bond[..3], ["bond0", "bond", "up"], "{kernel}: {bond:?}");
        assert!(nics.contains("3 of 4 interfaces"), "{kernel}:\n{nics}");
    }
}

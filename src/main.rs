use clap::Parser;
use std::time::Duration;
use strata::app::App;
use strata::batch::run::run_report;
use strata::cli::{Cli, Command, DeviceArgs};
use strata::core::duration::Interval;
use strata::core::rootfs::RootFs;
use strata::layers::LayerId;
use strata::link::PassphraseStore;
use strata::link::target::{Given, HostTarget, NodeTarget, assemble, assemble_nodes};
use strata::remote::SshOptions;

fn main() {
    let cli = Cli::parse();
    let (config, messages) = config_or_exit(&cli);
    let fs = RootFs::new(cli.root.clone().unwrap_or_else(|| "/".into()));
    let interval = interval(&cli, &config);
    // Patterns on the command line replace the config's, as --interval
    // replaces `interval`.
    let mut config = config;
    if !cli.cache_files.is_empty() {
        config.cache_files = cli.cache_files.clone();
    }
    match cli.command {
        Some(Command::Batch {
            panel,
            count,
            format,
            devices,
        }) => {
            for m in &messages {
                eprintln!("strata: {m}");
            }
            std::process::exit(batch(&cli, &config, &fs, panel, count, format, devices));
        }
        Some(Command::Replay { ref file }) => replay(&cli, &config, messages, file),
        Some(Command::Export {
            ref file,
            format,
            panel,
            ref from,
            ref to,
            devices,
        }) => {
            let args = strata::export::cmd::ExportArgs {
                format: Some(format),
                panel,
                from: from.clone(),
                to: to.clone(),
                devices,
            };
            std::process::exit(strata::export::cmd::run_export(
                file,
                &args,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr(),
            ));
        }
        Some(Command::Summary {
            ref file,
            ref between,
            ref from,
            ref to,
            format,
        }) => {
            std::process::exit(strata::export::cmd::run_summary(
                file,
                between.as_deref(),
                from.as_deref(),
                to.as_deref(),
                format,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr(),
            ));
        }
        Some(Command::Recover { ref file, ref out }) => {
            std::process::exit(strata::recording::recover::run_recover(
                file,
                out,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr(),
            ));
        }
        Some(Command::Check { format }) => {
            std::process::exit(check(&cli, &config, messages, fs, interval, format));
        }
        Some(Command::Mark { ref label }) => {
            std::process::exit(strata::recfile::mark::send(label));
        }
        Some(Command::Record { .. } | Command::Serve { .. }) | None => {
            live_modes(&cli, config, messages, interval);
        }
    }
}

/// The modes that sample live: the screen, `record` and `serve`.
fn live_modes(
    cli: &Cli,
    config: strata::config::Config,
    messages: Vec<String>,
    interval: Interval,
) {
    match cli.command {
        Some(Command::Record {
            ref file,
            duration,
            rotate_size,
        }) => {
            let how = headless(cli, duration, rotate_size);
            let (app, sources) = live_app(cli, config, messages, interval, false);
            exit_on(strata::live::record(app, sources, file.clone(), how));
        }
        Some(Command::Serve {
            listen,
            ref record,
            duration,
        }) => {
            let how = headless(cli, duration, None);
            let (app, sources) = live_app(cli, config, messages, interval, false);
            let web = cli.web_config.as_deref();
            exit_on(strata::live::serve(
                app,
                sources,
                listen,
                web,
                record.clone(),
                how,
            ));
        }
        None => {
            // Bound before the screen takes the terminal: a port in use is
            // said plainly, not behind the screen.
            let exporter = cli
                .listen
                .map(|listen| strata::live::Exporter::start(listen, cli.web_config.as_deref()))
                .transpose()
                .unwrap_or_else(|e| {
                    exit_on(Err(e));
                    None
                });
            let (app, sources) = live_app(cli, config, messages, interval, true);
            let record = cli.record.clone().or_else(|| app.config.record.clone());
            exit_on(strata::live::run(
                app,
                sources,
                record,
                existing(cli),
                exporter,
            ));
        }
        _ => {}
    }
}

/// How a run without a screen (`record`, `serve`) ends and rotates.
fn headless(cli: &Cli, duration: Option<u64>, rotate_bytes: Option<u64>) -> strata::live::Headless {
    strata::live::Headless {
        duration: duration.map(Duration::from_secs),
        rotate_bytes,
        existing: existing(cli),
    }
}

/// A run's error, said once, is its exit status 1.
fn exit_on(result: anyhow::Result<()>) {
    if let Err(e) = result {
        eprintln!("strata: {e:#}");
        std::process::exit(1);
    }
}

/// `strata check`: every target of the command line and the config, each
/// one that cannot be used a failing line rather than an exit; the exit code.
fn check(
    cli: &Cli,
    config: &strata::config::Config,
    notes: Vec<String>,
    fs: RootFs,
    interval: Interval,
    format: strata::cli::CheckFormat,
) -> i32 {
    let (nodes, mut problems) = node_targets(cli, config);
    let (cells, more) = cell_targets(cli, config);
    problems.extend(more);
    let (dbs, more) = strata::layers::dnfs::source::db_targets(&cli.dbs, &config.dbs);
    problems.extend(more);
    let req = strata::check::Request {
        fs,
        root: cli
            .root
            .clone()
            .filter(|r| r.as_path() != std::path::Path::new("/")),
        cache_files: config.cache_files.clone(),
        nodes,
        cells,
        dbs,
        ssh: cell_options(cli, interval, false),
        problems,
        notes,
    };
    let json = format == strata::cli::CheckFormat::Json;
    strata::check::run_and_print(req, json, &mut std::io::stdout().lock())
}

/// The config and what is wrong in it; a `--config` that cannot be read
/// ends the run (exit 2): it was asked for by name.
fn config_or_exit(cli: &Cli) -> (strata::config::Config, Vec<String>) {
    strata::config::load(cli.config.as_deref()).unwrap_or_else(|e| {
        eprintln!("strata: {e}");
        std::process::exit(2);
    })
}

/// `strata batch PANEL`: the panel's reports on stdout until `--count` or
/// an interrupt; the exit code.
fn batch(
    cli: &Cli,
    config: &strata::config::Config,
    fs: &RootFs,
    panel: LayerId,
    count: Option<u64>,
    format: strata::layers::report::Format,
    devices: DeviceArgs,
) -> i32 {
    let interval = interval(cli, config);
    let nodes = named_or_exit(node_targets(cli, config));
    if let Some(mut local) = host_report(config, fs, panel, format, &devices) {
        if nodes.is_empty() {
            return run_report(local.as_mut(), fs, interval, count, format);
        }
        let mut reports = Vec::new();
        for n in &nodes {
            let (nfs, files) = strata::batch::nodes::node_files(n, fs);
            if let Some(r) = host_report(config, &nfs, panel, format, &devices) {
                reports.push(strata::batch::nodes::NodeReport::new(
                    n.label(),
                    r,
                    nfs,
                    files,
                ));
            }
        }
        let opts = cell_options(cli, interval, false);
        // Only the cache report has a use for the nodes' fincore runs.
        let patterns: &[String] = match panel {
            LayerId::Cache => &config.cache_files,
            _ => &[],
        };
        let proto = strata::layers::node::NodeProtocol::new(
            patterns,
            opts.interval.duration(),
            std::time::Duration::from_secs(config.fincore_every_secs),
        );
        return strata::batch::nodes::run_nodes(&nodes, reports, opts, proto, count, format);
    }
    match panel {
        LayerId::Cells => {
            let targets = named_or_exit(cell_targets(cli, config));
            if targets.is_empty() {
                eprintln!("strata: {}", strata::batch::cells::NO_CELLS);
                return 2;
            }
            let opts = cell_options(cli, interval, false);
            strata::batch::cells::run_cells(targets, opts, count, format)
        }
        LayerId::Dnfs => {
            let (targets, problems) =
                strata::layers::dnfs::source::db_targets(&cli.dbs, &config.dbs);
            for p in &problems {
                eprintln!("strata: {p}");
            }
            if targets.is_empty() {
                eprintln!("strata: {}", strata::batch::dnfs::NO_DBS);
                return 2;
            }
            strata::batch::dnfs::run_dnfs(targets, interval, count, format)
        }
        // A host layer whose report could not be made.
        _ => 2,
    }
}

/// The report of a host layer over `fs`; `None` for the other panels.
fn host_report(
    config: &strata::config::Config,
    fs: &RootFs,
    panel: LayerId,
    format: strata::layers::report::Format,
    devices: &DeviceArgs,
) -> Option<Box<dyn strata::layers::report::Report>> {
    let opts = strata::layers::host::HostOptions {
        cache_files: config.cache_files.clone(),
    };
    let how = devices.report_options(format, config);
    strata::layers::host::report(panel, fs.clone(), &opts, &how)
}

/// Seconds between samples: --interval, else the config's, else one.
fn interval(cli: &Cli, config: &strata::config::Config) -> Interval {
    cli.interval
        .or(config.interval)
        .unwrap_or(Interval::ONE_SECOND)
}

/// `strata replay FILE`: the recording on the screen; exits on an error.
fn replay(
    cli: &Cli,
    config: &strata::config::Config,
    messages: Vec<String>,
    file: &std::path::Path,
) {
    let player = match strata::recording::session::Player::open(file) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("strata: cannot replay {}: {e}", file.display());
            std::process::exit(1);
        }
    };
    let (theme, theme_err, no_color) = screen_theme(cli, config);
    let meta = player.meta.clone();
    let interval = meta.interval();
    let mut app = App::new(meta.config, theme, meta.host, interval);
    app.set_cells(meta.cells);
    app.set_dbs(meta.dbs);
    app.set_nodes(meta.nodes);
    app.no_color = no_color;
    app.add_notes(messages.into_iter().chain(theme_err), None);
    if let Err(e) = strata::replay::run(app, player, file) {
        eprintln!("strata: {e}");
        std::process::exit(1);
    }
}

/// What `--force` makes of an existing finished recording.
fn existing(cli: &Cli) -> strata::recfile::Existing {
    if cli.force {
        strata::recfile::Existing::Replace
    } else {
        strata::recfile::Existing::Refuse
    }
}

/// The theme of a screen (--theme, else the config's), why it could not be
/// the one asked for, and whether NO_COLOR is set.
fn screen_theme(
    cli: &Cli,
    config: &strata::config::Config,
) -> (strata::theme::Theme, Option<String>, bool) {
    let no_color = strata::theme::no_color_requested();
    let (theme, err) =
        strata::theme::resolve(cli.theme.as_deref(), config.theme.as_deref(), no_color);
    (theme, err, no_color)
}

/// The app and its sources for a live run, with or without a screen.
fn live_app(
    cli: &Cli,
    config: strata::config::Config,
    messages: Vec<String>,
    interval: Interval,
    interactive: bool,
) -> (App, strata::live::Sources) {
    let fs = RootFs::new(cli.root.clone().unwrap_or_else(|| "/".into()));
    let (theme, theme_err, no_color) = screen_theme(cli, &config);
    let host = strata::core::host::host_info(&fs);
    let targets = named_or_exit(cell_targets(cli, &config));
    let nodes = named_or_exit(node_targets(cli, &config));
    let mut cell_opts = cell_options(cli, interval, interactive);
    // One store: the prompt writes what the cells' tasks wait on.
    let passphrases = PassphraseStore::new();
    cell_opts.passphrases = passphrases.clone();
    let mut app = App::new(config, theme, host, interval);
    app.set_cells(targets);
    app.set_nodes(nodes);
    let (dbs, db_problems) = strata::layers::dnfs::source::db_targets(&cli.dbs, &app.config.dbs);
    app.set_dbs(dbs);
    if !interactive {
        app.headless();
    }
    app.set_passphrase_store(passphrases);
    app.no_color = no_color;
    app.add_notes(
        messages.into_iter().chain(db_problems).chain(theme_err),
        None,
    );
    let sources = strata::live::Sources {
        host: strata::layers::host::HostSources::new(
            fs.clone(),
            &strata::layers::host::HostOptions {
                cache_files: app.config.cache_files.clone(),
            },
        ),
        cells: cell_opts,
    };
    (app, sources)
}

/// The user cells and nodes are logged in as when their spec names none:
/// the local one, as ssh's is.
fn default_user() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "root".to_string())
}

/// Group files by name, each with its text or why it cannot be read.
fn read_groups(paths: &[std::path::PathBuf]) -> Vec<(String, Result<String, String>)> {
    paths
        .iter()
        .map(|p| {
            let text = strata::core::userfile::read_text(p, strata::core::userfile::TEXT_LIMIT)
                .map_err(|e| e.to_string());
            (p.display().to_string(), text)
        })
        .collect()
}

/// The cells of --cell, --cell-group and the config's [[cell]]s, and a
/// message for each that cannot be used.
fn cell_targets(cli: &Cli, config: &strata::config::Config) -> (Vec<HostTarget>, Vec<String>) {
    let user = default_user();
    let (cells, mut problems) = assemble(Given {
        specs: &cli.cells,
        groups: &read_groups(&cli.cell_groups),
        config: config.cells.iter().map(|c| c.target(&user)).collect(),
        default_user: &user,
        identity: cli.cell_identity.as_deref(),
    });
    if !cells.is_empty() {
        problems.extend(identity_problem(
            "--cell-identity",
            cli.cell_identity.as_deref(),
        ));
    }
    (cells, problems)
}

/// Why an identity file given on the command line cannot be read, checked
/// before any login: a device or FIFO would hold a thread at each retry.
fn identity_problem(flag: &str, path: Option<&std::path::Path>) -> Option<String> {
    let path = path?;
    let e = strata::core::userfile::read_regular(path, strata::remote::MAX_IDENTITY_BYTES).err()?;
    Some(strata::core::text::printable(&format!("{flag} {}: {e}", path.display())).into_owned())
}

/// The hosts the user named when every one can be had; else each problem
/// on stderr and exit 2, before anything runs: a run that left a named
/// node out would report the others (or, with none left, this host) as if
/// they were what was asked for. The identity files given for them are
/// checked alike.
fn named_or_exit<T>((targets, problems): (Vec<T>, Vec<String>)) -> Vec<T> {
    if problems.is_empty() {
        return targets;
    }
    for p in &problems {
        eprintln!("strata: {p}");
    }
    std::process::exit(2);
}

/// The nodes of --node, --node-group and the config's [[node]]s, and a
/// message for each that cannot be used; empty without any.
fn node_targets(cli: &Cli, config: &strata::config::Config) -> (Vec<NodeTarget>, Vec<String>) {
    let user = default_user();
    let (nodes, mut problems) = assemble_nodes(Given {
        specs: &cli.nodes,
        groups: &read_groups(&cli.node_groups),
        config: config.nodes.iter().map(|n| n.node(&user)).collect(),
        default_user: &user,
        identity: cli.node_identity.as_deref(),
    });
    if nodes.iter().any(|n| matches!(n, NodeTarget::Remote(_))) {
        problems.extend(identity_problem(
            "--node-identity",
            cli.node_identity.as_deref(),
        ));
    }
    (nodes, problems)
}

/// How the cells are reached: the interval, known_hosts and --accept-new-host-keys.
fn cell_options(cli: &Cli, interval: Interval, interactive: bool) -> SshOptions {
    let known_hosts = cli
        .known_hosts
        .clone()
        .or_else(strata::remote::default_known_hosts)
        .unwrap_or_else(|| ".ssh/known_hosts".into());
    let mut opts = SshOptions::new(interval, known_hosts);
    opts.accept_new_host_keys = cli.accept_new_host_keys;
    opts.interactive = interactive;
    // Debug builds only: lets the end-to-end tests find this run's
    // samplers on the cells with pgrep, and only this run's.
    #[cfg(debug_assertions)]
    if let Ok(tag) = std::env::var("STRATA_TEST_SAMPLER_TAG") {
        opts.sampler_tag = tag;
    }
    opts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recorder's app keeps two ticks per ring whatever `history`
    /// says; the screen's keeps the whole window; both keep the user's
    /// config, which the recording carries to its replays.
    #[test]
    fn only_the_headless_app_gives_up_its_history() {
        let root = tempfile::tempdir().unwrap();
        let cli = Cli::parse_from(["strata", "--root", &root.path().to_string_lossy()]);
        let config = strata::config::Config {
            history_secs: 600,
            ..Default::default()
        };
        let (screen, _) = live_app(
            &cli,
            config.clone(),
            Vec::new(),
            Interval::from_secs(0.5).unwrap(),
            true,
        );
        assert_eq!(screen.history_ticks(), 1200);
        let (headless, _) = live_app(
            &cli,
            config.clone(),
            Vec::new(),
            Interval::from_secs(0.5).unwrap(),
            false,
        );
        assert_eq!(headless.history_ticks(), strata::app::HEADLESS_TICKS);
        assert_eq!(headless.local.disks.history.capacity(), 2);
        assert_eq!(headless.config, config);
    }
}

//! Command line.

use crate::layers::LayerId;
use crate::layers::report::Format;
// Part of what the command line offers: tests check the config against it.
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

pub mod assets;

#[derive(Debug, Parser)]
#[command(
    name = "strata",
    // The version and the commit it was built from (build.rs): a binary
    // copied to a database node says which source it is.
    version = env!("STRATA_LONG_VERSION"),
    about = "Live monitor of a database's storage path: block devices first, every layer on one time axis"
)]
pub struct Cli {
    /// Seconds between samples (0.1 to 3600); default 1, or `interval` in the config.
    #[arg(long, global = true, value_parser = crate::core::duration::Interval::parse)]
    pub interval: Option<crate::core::duration::Interval>,
    /// Read /proc and /sys under this directory instead of /.
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Config file (default ~/.config/strata/config.toml).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Theme: dark, light, high-contrast, mono, a name in ~/.config/strata/themes, or a path to a .toml file.
    #[arg(long, global = true, value_name = "NAME|PATH")]
    pub theme: Option<String>,
    /// Watch the page-cache residency of the files this glob matches (`*`, `?`, `[a-z]`, `**`); repeatable; replaces `cache_files` in the config. On a node the glob is matched by its sh (where `**` is `*`) and read by its fincore every `fincore_every`.
    #[arg(long = "cache-files", global = true, value_name = "GLOB", value_parser = crate::layers::cache::source::check_pattern)]
    pub cache_files: Vec<String>,
    /// A storage cell to sample over SSH, `[user@]host[:port]` (repeatable); the user defaults to yours, as ssh's does.
    #[arg(long = "cell", global = true, value_name = "[USER@]HOST[:PORT]")]
    pub cells: Vec<String>,
    /// A file of cells, one `[user@]host[:port]` per line, `#` comments, as dcli -g reads (repeatable).
    #[arg(long = "cell-group", global = true, value_name = "FILE")]
    pub cell_groups: Vec<PathBuf>,
    /// Identity file for the cells of --cell and --cell-group, tried after ssh-agent's keys (default: ~/.ssh/id_ed25519, id_ecdsa, id_rsa).
    #[arg(long = "cell-identity", global = true, value_name = "FILE")]
    pub cell_identity: Option<PathBuf>,
    /// A database node, `[user@]host[:port]` over SSH or `local` for this host (repeatable); the user defaults to yours. With nodes, this host is sampled only as `local`.
    #[arg(long = "node", global = true, value_name = "[USER@]HOST[:PORT]")]
    pub nodes: Vec<String>,
    /// A file of nodes, one `[user@]host[:port]` or `local` per line, `#` comments, as dcli -g reads (repeatable).
    #[arg(long = "node-group", global = true, value_name = "FILE")]
    pub node_groups: Vec<PathBuf>,
    /// Identity file for the nodes of --node and --node-group, tried after ssh-agent's keys (default: ~/.ssh/id_ed25519, id_ecdsa, id_rsa).
    #[arg(long = "node-identity", global = true, value_name = "FILE")]
    pub node_identity: Option<PathBuf>,
    /// The known_hosts file the host keys of cells and nodes are checked against (default ~/.ssh/known_hosts).
    #[arg(long = "known-hosts", global = true, value_name = "FILE")]
    pub known_hosts: Option<PathBuf>,
    /// Learn the host key of a cell or node known_hosts does not name at all, as OpenSSH's StrictHostKeyChecking=accept-new; a changed key is still refused.
    #[arg(long = "accept-new-host-keys", global = true)]
    pub accept_new_host_keys: bool,
    /// Record every layer's samples to FILE while monitoring (`R` starts and stops it in the UI); %Y %m %d %H %M %S in FILE take the start time, as atop's daily files; an existing FILE is refused without --force.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Replace a finished recording at the path of --record or `strata record` (never one in progress).
    #[arg(long, global = true)]
    pub force: bool,
    /// Serve every figure as OpenMetrics on http://ADDR:PORT/metrics while the screen runs, for Prometheus to scrape; PORT alone listens on loopback.
    #[arg(long, value_name = "ADDR:PORT", value_parser = parse_listen)]
    pub listen: Option<std::net::SocketAddr>,
    /// TLS and basic auth of --listen and `strata serve`, in the Prometheus exporter-toolkit's web config format (tls_server_config, basic_auth_users with bcrypt hashes).
    #[arg(long = "web-config", global = true, value_name = "FILE")]
    pub web_config: Option<PathBuf>,
    /// An Oracle database whose Direct NFS views are read (repeatable): user@//host:port/service, user@alias, / (OS authentication or wallet) or /@alias; the password comes from STRATA_DB_PASSWORD, never the command line.
    #[arg(long = "db", global = true, value_name = "CONNECT")]
    pub dbs: Vec<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `ADDR:PORT`, or `:PORT` and `PORT` for loopback: serving another
/// address than loopback is the user's explicit choice. There is no
/// default port: the exporters' range 9100-9999 is fully allocated, and a
/// port strata picked could be another exporter's.
fn parse_listen(s: &str) -> Result<std::net::SocketAddr, String> {
    let port_only = s.strip_prefix(':').unwrap_or(s);
    if let Ok(port) = port_only.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    s.parse()
        .map_err(|_| format!("{s:?}: expected ADDR:PORT (127.0.0.1:9500, [::1]:9500) or a port"))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print a panel's figures every interval, without the screen UI.
    Batch {
        /// The panel to print.
        panel: LayerId,
        /// Number of reports (default: until interrupted).
        #[arg(long)]
        count: Option<u64>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        devices: DeviceArgs,
    },
    /// Record every layer's samples to FILE without the screen UI, until interrupted or --duration; %Y %m %d %H %M %S in FILE take the start time; an existing FILE is refused without --force, one being recorded always.
    Record {
        file: PathBuf,
        /// Stop after this long: 90s, 30m, 12h, 2d.
        #[arg(long, value_parser = parse_span)]
        duration: Option<u64>,
        /// Start a new file (FILE.1, FILE.2, ...) once the current one holds this much: 100M, 2G.
        #[arg(long, value_name = "SIZE", value_parser = crate::core::size::parse_size)]
        rotate_size: Option<u64>,
    },
    /// Serve every figure of every node, cell and database as OpenMetrics on http://ADDR:PORT/metrics without the screen, for Prometheus to scrape; --record FILE records at the same time.
    Serve {
        /// Where /metrics is served: ADDR:PORT, or PORT alone for loopback.
        #[arg(long, value_name = "ADDR:PORT", value_parser = parse_listen)]
        listen: std::net::SocketAddr,
        /// Record every layer's samples to FILE too, as `strata record` does.
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
        /// Stop after this long: 90s, 30m, 12h, 2d.
        #[arg(long, value_parser = parse_span)]
        duration: Option<u64>,
    },
    /// Replay a recording in the same screens, with play, pause, steps and jumps.
    Replay { file: PathBuf },
    /// Add a labelled marker to every strata running as this user.
    Mark { label: String },
    /// Print a recording's figures as `strata batch PANEL` printed them live over the same samples.
    #[command(after_help = EXPORT_HELP)]
    Export {
        file: PathBuf,
        /// csv needs --panel (each panel has its own columns); text and json without it print every panel with figures, in turn.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// The panel to print, as named after `strata batch`.
        #[arg(long, value_enum)]
        panel: Option<LayerId>,
        /// Rows from this time on (inclusive): HH:MM[:SS] or YYYY-MM-DD HH:MM[:SS] local time, +SPAN after the start, -SPAN before the end.
        // The brackets are --help's (clap prints this comment), not a doc link.
        #[allow(rustdoc::broken_intra_doc_links)]
        #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
        from: Option<String>,
        /// Rows up to this time (inclusive), in the forms of --from.
        #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
        to: Option<String>,
        #[command(flatten)]
        devices: DeviceArgs,
    },
    /// A clean copy of a damaged or unclosed recording: what reads of FILE, past its damage, written to OUT; each gap is listed with its time range.
    #[command(after_help = RECOVER_HELP)]
    Recover {
        file: PathBuf,
        /// The copy; an existing file is refused.
        out: PathBuf,
    },
    /// Whether each layer works on this host and on each node, cell and database given (or in the config), and what fixes it where not: one line per layer and target.
    #[command(after_help = CHECK_HELP)]
    Check {
        /// text: aligned lines (coloured on a terminal); json: one object with `ok` and the lines.
        #[arg(long, value_enum, default_value = "text")]
        format: CheckFormat,
    },
    /// Min, average, p95 and max of each panel's key figures over a recording, or a window of it.
    #[command(after_help = SUMMARY_HELP)]
    Summary {
        file: PathBuf,
        /// The window from the first marker with the first label to the next marker with the second (exact labels).
        #[arg(long, num_args = 2, value_names = ["MARKER", "MARKER"], conflicts_with_all = ["from", "to"])]
        between: Option<Vec<String>>,
        /// From this time on (inclusive), in the forms of `strata export --from`.
        #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
        from: Option<String>,
        /// Up to this time (inclusive).
        #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
        to: Option<String>,
        /// text: an aligned table; json: one object, the figures in an array; csv: a line per figure.
        #[arg(long, value_enum, default_value = "text", hide_possible_values = true)]
        format: Format,
    },
}

const EXPORT_HELP: &str = "\
Each row carries its sample's time (the end of its interval, ISO local time); a row is \
in the window when that time is within --from and --to. A time of day is on the \
recording's first day, or the next when the recording runs past midnight.

Exit status: 0 rows printed; 1 the file cannot be read, or the window holds no figures; \
2 a bad panel, time or option; 3 the file is damaged or was not closed: its notices go \
to stderr, each gap named with its time range, and the rows outside the damage are printed.";

const CHECK_HELP: &str = "\
Each line: the target (this host, a node, a cell, a database), the layer or what it needs \
(kernel, disks, cache, residency, nfs, nics, bonding, cpu, pressure, terminal, oracle; on \
a node or cell keys, ssh, and on a node sh, files, fincore and its layers as read through \
its sampler), ok, warn (works, with less), FAIL or n/a (not needed by anything asked for), \
what was found and, after `| fix:`, what fixes it. Nodes and cells are logged in to as \
the monitor does (--known-hosts, --accept-new-host-keys, the identity options); the \
check never prompts.

Exit status: 0 everything asked for works (warn and n/a lines included); 1 a line \
says FAIL; 2 a bad option.";

const RECOVER_HELP: &str = "\
A damaged chunk (a minute of samples) is lost and the reading resumes at the next \
intact one; OUT holds the rest and is created 0600. Exit status: 0 FILE had no damage; \
1 FILE cannot be read or OUT cannot be written (it exists, or the disk is full); 3 OUT \
is written and FILE had gaps (listed on stdout) or other notices (on stderr).";

const SUMMARY_HELP: &str = "\
Figures: disks total r/s w/s rMB/s wMB/s r_await w_await and the busiest device's %util; \
each NFS mount's ops/s, rMB/s, wMB/s and RTTs; the NICs' physical total and each \
interface's MB/s and %util; the page cache; the cells' DISK and FLASH over all cells.

n counts the samples where a figure was known; a sample where it was unknown is left \
out, and so is a latency over an interval without a request (iostat prints 0.00 \
there); a figure known in none prints \"–\", never 0. p95 is the nearest rank: the \
ceil(0.95 n)-th smallest of the n values, always a value that occurred.

Exit status: 0; 1 the file cannot be read, or the window holds no sample; 2 a bad time or no such marker (the \
message lists the markers); 3 the file is damaged or was not closed (the summary \
covers the samples outside the damage; each gap is named on stderr with its time range).";

/// A duration: seconds, or a number with s, m, h or d.
fn parse_span(s: &str) -> Result<u64, String> {
    crate::core::duration::parse_duration(s)
}

/// Which devices and interfaces `strata batch` and `strata export` list,
/// and in which units.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct DeviceArgs {
    /// Throughput units (iostat -k or -m); default: the config's (export: the recorded run's).
    #[arg(long, value_enum)]
    pub units: Option<UnitsArg>,
    /// Include partitions.
    #[arg(long)]
    pub partitions: bool,
    /// Include loop, ram and zram devices, devices never used since boot and interfaces that never saw a packet.
    #[arg(long)]
    pub all_devices: bool,
    /// Name dm devices by their /dev/mapper name, as iostat -N does (default: dm-N, as iostat -x).
    #[arg(long, short = 'N')]
    pub mapper_names: bool,
}

impl DeviceArgs {
    pub fn units(&self) -> Option<crate::layers::disks::model::Units> {
        self.units.map(|u| match u {
            UnitsArg::KB => crate::layers::disks::model::Units::KB,
            UnitsArg::MB => crate::layers::disks::model::Units::MB,
        })
    }

    /// How `strata batch` and `strata export` print a host layer: these
    /// arguments over `config`'s (export: the recorded run's).
    pub fn report_options(
        &self,
        format: Format,
        config: &crate::config::Config,
    ) -> crate::layers::host::ReportOptions {
        crate::layers::host::ReportOptions {
            format,
            units: self.units().unwrap_or(config.units),
            selection: crate::layers::disks::report::Selection {
                partitions: self.partitions || config.show_partitions,
                all_devices: self.all_devices || config.show_all_devices,
                mapper_names: self.mapper_names,
            },
            all_interfaces: self.all_devices,
        }
    }
}

/// How `strata check` prints its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UnitsArg {
    #[value(name = "kB", alias = "kb", alias = "KB")]
    KB,
    #[value(name = "MB", alias = "mb")]
    MB,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn node_flags_repeat_before_or_after_the_subcommand() {
        let cli = Cli::try_parse_from([
            "strata",
            "batch",
            "disks",
            "--node",
            "local",
            "--node-group",
            "/etc/dbs.txt",
            "--node",
            "oracle@exa1db02:2222",
            "--node-group",
            "more.txt",
            "--node-identity",
            "/k/nodes",
            "--cell",
            "exa1cel01",
        ])
        .unwrap();
        assert_eq!(cli.nodes, ["local", "oracle@exa1db02:2222"]);
        assert_eq!(
            cli.node_groups,
            [Path::new("/etc/dbs.txt"), Path::new("more.txt")]
        );
        assert_eq!(cli.node_identity.as_deref(), Some(Path::new("/k/nodes")));
        assert_eq!(cli.cells, ["exa1cel01"]);
        assert!(matches!(cli.command, Some(Command::Batch { .. })));

        let cli =
            Cli::try_parse_from(["strata", "--node", "a", "--node=b:2222", "--node", "local"])
                .unwrap();
        assert_eq!(cli.nodes, ["a", "b:2222", "local"]);
        assert!(cli.command.is_none());

        let cli = Cli::try_parse_from(["strata"]).unwrap();
        assert!(cli.nodes.is_empty() && cli.node_groups.is_empty());
        assert_eq!(cli.node_identity, None);
        // One identity file, as for the cells.
        let twice = ["strata", "--node-identity", "a", "--node-identity", "b"];
        assert!(Cli::try_parse_from(twice).is_err());
    }

    #[test]
    fn version_names_the_release_and_the_commit_built() {
        use clap::CommandFactory;
        let v = Cli::command().render_version();
        let rest = v
            .strip_prefix(&format!("strata {} (git ", env!("CARGO_PKG_VERSION")))
            .unwrap_or_else(|| panic!("{v:?}"));
        let inner = rest.trim_end().strip_suffix(')').unwrap();
        // `abc1234 2026-11-28` from a clone, `unknown` from a tarball
        let mut words = inner.split(' ');
        let commit = words.next().unwrap();
        assert!(
            commit == "unknown"
                || (commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit())),
            "{v:?}"
        );
        if let Some(date) = words.next() {
            assert_eq!(date.len(), 10, "{v:?}");
            assert_eq!(date.as_bytes()[4], b'-', "{v:?}");
        }
        assert_eq!(words.next(), None, "{v:?}");
    }
}

//! The two commands as main calls them: open the file, read the window,
//! print; each returns its exit status and writes to the streams given, so
//! tests read what a user would see.

use std::io::Write;
use std::path::Path;

use super::rows::{EXIT_USAGE, ExportOptions, export, say_notices};
use super::summary::{report, summarize};
use super::window::{Window, WindowError, between_markers, between_times};
use crate::cli::DeviceArgs;
use crate::layers::LayerId;
use crate::layers::report::Format;
use crate::recording::session::Player;

/// What `strata export` was given beyond the file.
#[derive(Debug, Clone, Default)]
pub struct ExportArgs {
    pub format: Option<Format>,
    pub panel: Option<LayerId>,
    pub from: Option<String>,
    pub to: Option<String>,
    /// Units and devices as `strata batch` takes them; what they leave
    /// out, the recording's config says.
    pub devices: DeviceArgs,
}

fn open(file: &Path, err: &mut impl Write) -> Option<Player> {
    match Player::open(file) {
        Ok(p) => Some(p),
        Err(e) => {
            let _ = writeln!(err, "strata: cannot read {}: {e}", file.display());
            None
        }
    }
}

fn window(
    player: &Player,
    between: Option<&[String]>,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<Window, WindowError> {
    match between {
        Some([a, b]) => between_markers(a, b, player.markers()),
        Some(_) => Err(WindowError::BetweenTakesTwo),
        None => between_times(from, to, player.start_ms, player.end_ms),
    }
}

pub fn run_export(
    file: &Path,
    args: &ExportArgs,
    out: &mut impl Write,
    err: &mut impl Write,
) -> i32 {
    let Some(mut player) = open(file, err) else {
        return 1;
    };
    let window = match window(&player, None, args.from.as_deref(), args.to.as_deref()) {
        Ok(w) => w,
        Err(e) => {
            let _ = writeln!(err, "strata: {e}");
            say_notices(&player, err);
            return EXIT_USAGE;
        }
    };
    // As `strata batch` under the config of the recorded run.
    let config = &player.meta.config;
    let opts = ExportOptions {
        panel: args.panel,
        window,
        how: args
            .devices
            .report_options(args.format.unwrap_or(Format::Text), config),
    };
    export(&mut player, &opts, out, err)
}

pub fn run_summary(
    file: &Path,
    between: Option<&[String]>,
    from: Option<&str>,
    to: Option<&str>,
    format: Format,
    out: &mut impl Write,
    err: &mut impl Write,
) -> i32 {
    let Some(mut player) = open(file, err) else {
        return 1;
    };
    let window = match window(&player, between, from, to) {
        Ok(w) => w,
        Err(e) => {
            let _ = writeln!(err, "strata: {e}");
            say_notices(&player, err);
            return EXIT_USAGE;
        }
    };
    let s = summarize(&mut player, &window);
    let name = file.display().to_string();
    let text = report(&s, format, &name, &player.meta.host.hostname);
    let _ = write!(out, "{text}").and_then(|_| out.flush());
    if say_notices(&player, err) {
        return super::EXIT_DAMAGED;
    }
    if s.samples.is_empty() {
        let _ = writeln!(
            err,
            "strata: no sample in the window ({})",
            super::rows::describe(&window)
        );
        return 1;
    }
    0
}

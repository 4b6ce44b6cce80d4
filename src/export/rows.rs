//! `strata export FILE`: a recording's figures printed by the printers of
//! `strata batch`, so a panel's export is what `strata batch PANEL` printed
//! live over the same samples (banner line aside: it names the export).
//!
//! One panel at a time: CSV needs `--panel`, because each panel has its own
//! columns and a file of several headers is no CSV a tool can read. Text
//! and JSON without `--panel` take every panel with figures in turn, each
//! from the start of the file; a JSON object then starts with its panel's
//! name (`{"panel": "disks", ...}`).

use std::io::Write;

use super::walk::{Step, Walker};
use super::window::Window;
use crate::batch::{cells, dnfs, run::banner};
use crate::format;
use crate::layers::LayerId;
use crate::layers::host::{self, ReportOptions};
use crate::layers::report::Format;
use crate::recording::session::Player;

/// Every panel, in the order `strata batch` lists them.
pub const PANELS: [LayerId; LayerId::ALL.len()] = LayerId::ALL;

/// Exit status of an export or a summary that read the file up to damage
/// (or a file the writer did not close): what came before it is printed.
pub const EXIT_DAMAGED: i32 = 3;
/// Exit status of a usage error: an unknown panel, a bad time, no marker.
pub const EXIT_USAGE: i32 = 2;

/// Inputs are recorded when the loop takes them, a little after their
/// samples were read (a cell's sample may come a few intervals late): a
/// pass stops this long after the window's end, not at it.
pub(crate) const LATE_MS: i64 = 600_000;

pub fn panel_name(p: LayerId) -> &'static str {
    p.name()
}

/// `items` joined with `sep` as a message lists them: "none" for none.
pub(super) fn listed<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    if items.is_empty() {
        return "none".to_string();
    }
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    items.join(sep)
}

#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// `None`: every panel with figures (not with CSV).
    pub panel: Option<LayerId>,
    pub window: Window,
    /// As `strata batch` prints.
    pub how: ReportOptions,
}

/// Prints the export; returns the exit status: 0, 1 when the window holds
/// no figures of the panels asked for, [`EXIT_USAGE`], [`EXIT_DAMAGED`].
pub fn export(
    player: &mut Player,
    opts: &ExportOptions,
    out: &mut impl Write,
    err: &mut impl Write,
) -> i32 {
    let panels: Vec<LayerId> = match opts.panel {
        Some(p) => vec![p],
        None if opts.how.format == Format::Csv => {
            let with = panels_with_figures(player, &opts.window);
            let names: Vec<&str> = with.into_iter().map(panel_name).collect();
            let _ = writeln!(
                err,
                "strata: export --format csv needs --panel: each panel has its own columns; panels with figures in this window: {}",
                listed(&names, ", ")
            );
            say_notices(player, err);
            return EXIT_USAGE;
        }
        None => PANELS.to_vec(),
    };
    let mut rows = 0usize;
    for p in panels {
        match export_panel(player, p, opts, out, err) {
            Some(n) => rows += n,
            // the reader went away (a closed pipe)
            None => return 0,
        }
    }
    if say_notices(player, err) {
        return EXIT_DAMAGED;
    }
    if rows == 0 {
        let what = opts.panel.map_or("figures", panel_name);
        let _ = writeln!(
            err,
            "strata: no {what} in the window ({})",
            describe(&opts.window)
        );
        return 1;
    }
    0
}

/// The window as a message says it.
pub fn describe(w: &Window) -> String {
    let end = |t: i64, open: &str| {
        if t == i64::MIN || t == i64::MAX {
            open.to_string()
        } else {
            format::local_datetime(t)
        }
    };
    format!(
        "{} to {}",
        end(w.from_ms, "the start"),
        end(w.to_ms, "the end")
    )
}

/// Prints the player's notices, each once; true when there were any.
pub fn say_notices(player: &Player, err: &mut impl Write) -> bool {
    let mut said: Vec<&String> = Vec::new();
    for n in &player.notices {
        if !said.contains(&n) {
            let _ = writeln!(err, "strata: {n}");
            said.push(n);
        }
    }
    !said.is_empty()
}

/// The panels that have figures in `window`, in [`PANELS`] order.
pub fn panels_with_figures(player: &mut Player, window: &Window) -> Vec<LayerId> {
    player.rewind(i64::MIN);
    let mut walker = Walker::new(&player.meta, None);
    let mut seen = Vec::new();
    while let Some((at, input)) = player.next_input() {
        if at > window.to_ms.saturating_add(LATE_MS) {
            break;
        }
        let step = walker.apply(at, input);
        match step.as_ref().map(Step::of_node) {
            Some((_, Step::Note { .. })) | None => {}
            Some((_, step)) if window.contains(step.at_ms()) => {
                if !seen.contains(&step.panel()) {
                    seen.push(step.panel());
                }
            }
            Some(_) => {}
        }
    }
    PANELS.into_iter().filter(|p| seen.contains(p)).collect()
}

/// One pass over the file for panel `p`; the rows printed, `None` when the
/// output closed.
fn export_panel(
    player: &mut Player,
    p: LayerId,
    opts: &ExportOptions,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Option<usize> {
    player.rewind(i64::MIN);
    let mut walker = Walker::new(&player.meta, Some(p));
    let mut header_done = false;
    let mut rows = 0;
    while let Some((at, input)) = player.next_input() {
        if at > opts.window.to_ms.saturating_add(LATE_MS) {
            break;
        }
        let Some(step) = walker.apply(at, input) else {
            continue;
        };
        if !opts.window.contains(step.at_ms()) {
            continue;
        }
        // With nodes, a host panel's rows name their host: a node by its
        // label, the recording's own host by its name.
        let (node, inner) = step.of_node();
        let host = node
            .and_then(|i| player.meta.nodes.get(i))
            .map_or(player.meta.host.hostname.as_str(), |n| n.label());
        let report = match inner {
            Step::Note { text, at_ms, .. } => {
                let on = if node.is_some() {
                    format!(" on {host}")
                } else {
                    String::new()
                };
                let _ = writeln!(
                    err,
                    "strata: {}{on} at {}: {}",
                    panel_name(p),
                    format::local_datetime(*at_ms),
                    crate::batch::printable(text)
                );
                continue;
            }
            Step::Host(h) => h.print(&opts.how, &mut header_done),
            Step::Cells { at_ms, now_ms } => cells::report(
                opts.how.format,
                &cells::lines(&walker.cells, *now_ms),
                *at_ms,
            ),
            Step::Dnfs { db, at_ms } => dnfs::db_report(opts.how.format, &walker.dnfs, *db, *at_ms),
            Step::Node { .. } => continue,
        };
        let with_nodes = !player.meta.nodes.is_empty() && is_host_panel(p);
        let report = if with_nodes {
            crate::batch::nodes::tag(host, opts.how.format, &report)
        } else {
            report
        };
        if rows == 0 {
            let head = match opts.how.format {
                Format::Csv if !player.meta.nodes.is_empty() && is_host_panel(p) => {
                    Some(format!("node,{}", csv_header(p, &opts.how)))
                }
                Format::Csv => Some(csv_header(p, &opts.how)),
                Format::Text => Some(banner(
                    &player.meta.host,
                    step.at_ms(),
                    &format!("strata export {}", panel_name(p)),
                )),
                Format::Json => None,
            };
            if let Some(h) = head {
                writeln!(out, "{h}").ok()?;
            }
        }
        rows += 1;
        let report = match (opts.how.format, opts.panel) {
            (Format::Json, None) => tag_json(&report, panel_name(p)),
            _ => report,
        };
        write!(out, "{report}").ok()?;
    }
    out.flush().ok()?;
    Some(rows)
}

/// The panels every host has: a recording with nodes has rows of each.
fn is_host_panel(p: LayerId) -> bool {
    host::is_host_layer(p)
}

fn csv_header(p: LayerId, how: &ReportOptions) -> String {
    host::csv_header(p, how).unwrap_or_else(|| match p {
        LayerId::Dnfs => dnfs::csv_header(),
        _ => cells::csv_header(),
    })
}

/// Each line's object with `"panel"` as its first key: the batch printers
/// write one object per line, each starting with `{`.
fn tag_json(report: &str, panel: &str) -> String {
    let mut s = String::with_capacity(report.len() + 32);
    for line in report.lines() {
        match line.strip_prefix('{') {
            Some(rest) => s.push_str(&format!("{{\"panel\": \"{panel}\", {rest}\n")),
            None => {
                s.push_str(line);
                s.push('\n');
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_objects_get_their_panel_first() {
        let r = "{\"timestamp\": \"x\", \"a\": 1}\n{\"timestamp\": \"y\"}\n";
        let t = tag_json(r, "nics");
        for line in t.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["panel"], "nics");
        }
        assert_eq!(t.lines().count(), 2);
    }

    #[test]
    fn an_open_window_is_said_in_words() {
        assert_eq!(describe(&Window::ALL), "the start to the end");
    }
}

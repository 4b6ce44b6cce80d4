//! `strata check`: for this host and each node, cell and database asked
//! for, one line per layer saying whether it works and, where not, why and
//! what fixes it; the exit status says whether everything asked for works.
//!
//! The lines are made by pure functions from what was read (file texts,
//! the layers' own samples, a node's frames, a login's status), in
//! `host`, `ssh`, `db` and `term`; the IO that feeds them is the
//! monitor's own: the layers' sources over a `RootFs` (a directory, or a
//! node's frames), `remote::run_host` for the logins, the dNFS source's
//! `connect` and DPI-1047 handling for the databases.

pub mod db;
pub mod host;
pub mod ssh;
pub mod term;

use crate::core::rootfs::RootFs;
use crate::core::text::printable;
use crate::layers::dnfs::source::DbTarget;
use crate::link::HostTarget;
use crate::link::target::NodeTarget;
use crate::remote::SshOptions;
use std::io::Write;

/// Whether a checked thing works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It works.
    Ok,
    /// It works with less than the monitor can show (no PSI on an old
    /// kernel, no bond): nothing to fix for the rest to work.
    Warn,
    /// It does not work: the line says why and what fixes it.
    Fail,
    /// Looked at, but nothing asked for needs it (the Oracle client
    /// without `--db`, the terminal when check runs without one).
    NotAsked,
}

impl Status {
    /// The word of the text output, four characters at most.
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::NotAsked => "n/a",
        }
    }
}

/// One checked thing of one target.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CheckLine {
    /// `this host` (or the `--root` tree), a node's or cell's label, a
    /// database's label.
    pub target: String,
    /// A layer (`disks`, `nfs`, ...) or what a target needs (`ssh`, `keys`,
    /// `sh`, `files`, `fincore`, `oracle`, `terminal`).
    pub layer: String,
    pub status: Status,
    /// What was found: enough for a support case to read without asking.
    pub what: String,
    /// What fixes it, where something should be fixed.
    pub fix: Option<String>,
}

impl CheckLine {
    pub fn new(target: &str, layer: &str, status: Status, what: impl Into<String>) -> Self {
        CheckLine {
            target: target.to_string(),
            layer: layer.to_string(),
            status,
            what: what.into(),
            fix: None,
        }
    }

    pub fn ok(target: &str, layer: &str, what: impl Into<String>) -> Self {
        Self::new(target, layer, Status::Ok, what)
    }

    pub fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

/// 0 when every line works (ok, warn or not asked), 1 when one fails.
pub fn exit_code(lines: &[CheckLine]) -> i32 {
    i32::from(lines.iter().any(|l| l.status == Status::Fail))
}

/// One line per check, its columns aligned; a fix follows its finding
/// after `fix:`. What a host sent (a node's sh, its fincore's words) is
/// made printable: this is pasted into terminals and support cases.
pub fn render_text(lines: &[CheckLine], colour: bool) -> String {
    let tw = lines
        .iter()
        .map(|l| l.target.chars().count())
        .max()
        .unwrap_or(0);
    let lw = lines
        .iter()
        .map(|l| l.layer.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for l in lines {
        let word = l.status.word();
        let status = if colour {
            let code = match l.status {
                Status::Ok => "32",
                Status::Warn => "33",
                Status::Fail => "1;31",
                Status::NotAsked => "2",
            };
            format!("\x1b[{code}m{word:<4}\x1b[0m")
        } else {
            format!("{word:<4}")
        };
        let mut text = printable(&l.what).into_owned();
        if let Some(fix) = &l.fix {
            text.push_str(" | fix: ");
            text.push_str(&printable(fix));
        }
        out.push_str(&format!(
            "{:<tw$}  {:<lw$}  {status}  {text}\n",
            printable(&l.target),
            l.layer
        ));
    }
    out
}

/// `{"ok": bool, "lines": [...]}`, each line's fields by name.
pub fn render_json(lines: &[CheckLine]) -> String {
    #[derive(serde::Serialize)]
    struct Out<'a> {
        ok: bool,
        lines: &'a [CheckLine],
    }
    serde_json::to_string_pretty(&Out {
        ok: exit_code(lines) == 0,
        lines,
    })
    .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// What `strata check` is asked to look at.
pub struct Request {
    /// /proc and /sys of this host, or of `--root DIR`.
    pub fs: RootFs,
    /// `--root` as given: a tree, not this machine.
    pub root: Option<std::path::PathBuf>,
    pub cache_files: Vec<String>,
    pub nodes: Vec<NodeTarget>,
    pub cells: Vec<HostTarget>,
    pub dbs: Vec<DbTarget>,
    pub ssh: SshOptions,
    /// What the config, the group files and the specs could not give
    /// (each a failing line: something asked for cannot be used).
    pub problems: Vec<String>,
    /// Config warnings: lines that do not fail.
    pub notes: Vec<String>,
}

/// What this host is called in the lines.
pub const THIS_HOST: &str = "this host";

/// Every check of `req`, in order: this host's layers, the terminal and the
/// Oracle client, then each node, cell and database.
pub fn run(req: Request) -> Vec<CheckLine> {
    let mut lines: Vec<CheckLine> = Vec::new();
    for p in &req.problems {
        lines.push(
            CheckLine::new("config", "targets", Status::Fail, p.clone())
                .with_fix("correct the option, group file or config entry it names"),
        );
    }
    for n in &req.notes {
        lines.push(CheckLine::new("config", "config", Status::Warn, n.clone()));
    }
    // A tree's lines are named by the tree: the terminal and the Oracle
    // client stay this machine's.
    let tree = match &req.root {
        Some(dir) => dir.display().to_string(),
        None => THIS_HOST.to_string(),
    };
    lines.extend(host::host_lines(&req.fs, &tree));
    lines.push(host::residency(
        &req.fs,
        &tree,
        req.root.is_none(),
        &req.cache_files,
    ));
    lines.push(term::terminal(THIS_HOST));
    lines.extend(db::check(THIS_HOST, &req.dbs));
    lines.extend(ssh::check(
        &req.nodes,
        &req.cells,
        &req.ssh,
        !req.cache_files.is_empty(),
    ));
    lines
}

/// Runs the checks and prints them; the exit code.
pub fn run_and_print(req: Request, json: bool, out: &mut dyn Write) -> i32 {
    let lines = run(req);
    let text = if json {
        render_json(&lines) + "\n"
    } else {
        use std::io::IsTerminal;
        let colour = std::io::stdout().is_terminal() && !crate::theme::no_color_requested();
        render_text(&lines, colour)
    };
    // A closed pipe (`| head`) is not a failed check.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    exit_code(&lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_align_and_a_failure_sets_the_exit_code() {
        let lines = vec![
            CheckLine::ok("this host", "disks", "14 fields"),
            CheckLine::new("db01:22", "ssh", Status::Fail, "unknown host key")
                .with_fix("ssh-keyscan"),
            CheckLine::new("this host", "oracle", Status::NotAsked, "no client\x1b[2J"),
        ];
        let text = render_text(&lines, false);
        assert_eq!(
            text,
            "this host  disks   ok    14 fields\n\
             db01:22    ssh     FAIL  unknown host key | fix: ssh-keyscan\n\
             this host  oracle  n/a   no client?[2J\n"
        );
        assert_eq!(exit_code(&lines), 1);
        assert_eq!(exit_code(&lines[..1]), 0);
        assert_eq!(exit_code(&lines[2..]), 0);
        let json: serde_json::Value = serde_json::from_str(&render_json(&lines)).unwrap();
        assert_eq!(json["ok"], false);
        assert_eq!(json["lines"][1]["status"], "fail");
        assert_eq!(json["lines"][1]["fix"], "ssh-keyscan");
        assert_eq!(json["lines"][2]["status"], "not_asked");
    }
}

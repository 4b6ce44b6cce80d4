//! The terminal the monitor would draw on: whether there is one, its size
//! and its colours.

use super::{CheckLine, Status};

/// The smallest screen the panels are laid out for (docs/screens.md).
pub const MIN_COLS: u16 = 80;
pub const MIN_ROWS: u16 = 24;

/// What was found of the terminal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub stdin_tty: bool,
    pub stdout_tty: bool,
    /// Columns and rows, when a terminal answered.
    pub size: Option<(u16, u16)>,
    pub term: Option<String>,
    pub colorterm: Option<String>,
    pub no_color: bool,
}

/// How many colours `TERM` and `COLORTERM` promise.
fn colours(f: &Found) -> &'static str {
    let ct = f.colorterm.as_deref().unwrap_or("");
    let term = f.term.as_deref().unwrap_or("");
    if ct == "truecolor" || ct == "24bit" {
        "24-bit colour"
    } else if term.contains("256color") {
        "256 colours"
    } else if term.is_empty() || term == "dumb" {
        "no colours"
    } else {
        "16 colours"
    }
}

pub fn terminal_line(target: &str, f: &Found) -> CheckLine {
    let term = f.term.as_deref().unwrap_or("unset");
    let colour = if f.no_color {
        "NO_COLOR is set: the mono theme".to_string()
    } else {
        colours(f).to_string()
    };
    if !f.stdin_tty && !f.stdout_tty {
        return CheckLine::new(
            target,
            "terminal",
            Status::NotAsked,
            format!(
                "not run in a terminal (TERM={term}, {colour}): the monitor needs one, check and batch do not"
            ),
        );
    }
    let Some((cols, rows)) = f.size else {
        return CheckLine::new(
            target,
            "terminal",
            Status::Warn,
            format!("TERM={term}, {colour}; its size could not be read"),
        )
        .with_fix("run strata in a terminal emulator or tmux");
    };
    let what = format!("{cols}x{rows}, TERM={term}, {colour}");
    if cols < MIN_COLS || rows < MIN_ROWS {
        return CheckLine::new(
            target,
            "terminal",
            Status::Warn,
            format!("{what}: smaller than the {MIN_COLS}x{MIN_ROWS} the panels are laid out for"),
        )
        .with_fix(format!(
            "enlarge the window to {MIN_COLS}x{MIN_ROWS} or more"
        ));
    }
    if f.term.as_deref() == Some("dumb") {
        return CheckLine::new(target, "terminal", Status::Warn, what)
            .with_fix("set TERM to your terminal's type (xterm-256color)");
    }
    CheckLine::ok(target, "terminal", what)
}

/// The terminal of this process.
pub fn terminal(target: &str) -> CheckLine {
    use std::io::IsTerminal;
    let stdin_tty = std::io::stdin().is_terminal();
    let stdout_tty = std::io::stdout().is_terminal();
    let found = Found {
        stdin_tty,
        stdout_tty,
        size: (stdin_tty || stdout_tty)
            .then(crossterm::terminal::size)
            .and_then(Result::ok),
        term: std::env::var("TERM").ok(),
        colorterm: std::env::var("COLORTERM").ok(),
        no_color: crate::theme::no_color_requested(),
    };
    terminal_line(target, &found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_and_colours() {
        let mut f = Found {
            stdin_tty: true,
            stdout_tty: true,
            size: Some((120, 40)),
            term: Some("xterm-256color".into()),
            ..Found::default()
        };
        let l = terminal_line("h", &f);
        assert_eq!(
            (l.status, l.what.as_str()),
            (Status::Ok, "120x40, TERM=xterm-256color, 256 colours")
        );
        f.size = Some((79, 24));
        assert_eq!(terminal_line("h", &f).status, Status::Warn);
        f.size = Some((80, 24));
        f.colorterm = Some("truecolor".into());
        f.no_color = true;
        let l = terminal_line("h", &f);
        assert_eq!(
            l.what,
            "80x24, TERM=xterm-256color, NO_COLOR is set: the mono theme"
        );
        let l = terminal_line("h", &Found::default());
        assert_eq!(l.status, Status::NotAsked);
        assert!(
            l.what
                .starts_with("not run in a terminal (TERM=unset, no colours)"),
            "{l:?}"
        );
    }
}

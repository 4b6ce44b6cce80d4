//! Colours and emphasis by role. Themes are TOML files in `themes/`; every
//! theme is a patch over the dark default, so a file sets only what it
//! changes.

use ratatui::style::{Color, Modifier, Style};

/// Styles by what they mean, never by where they are drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    /// Plain text on the screen's background.
    pub base: Style,
    /// Secondary text: units, hints, unknown figures.
    pub muted: Style,
    pub border: Style,
    /// The border of the focused panel.
    pub border_focus: Style,
    pub title: Style,
    /// Table headers.
    pub header: Style,
    /// The selected row.
    pub selected: Style,
    pub ok: Style,
    pub warn: Style,
    pub crit: Style,
    pub accent: Style,
    /// Read-side series in charts and sparklines.
    pub read: Style,
    /// Write-side series.
    pub write: Style,
    pub live: Style,
    pub paused: Style,
    pub breadcrumb: Style,
    /// Keys in the help overlay and the footer.
    pub key: Style,
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            name: "dark".into(),
            base: Style::new().fg(Color::Gray).bg(Color::Reset),
            muted: Style::new().fg(Color::DarkGray),
            border: Style::new().fg(Color::DarkGray),
            border_focus: Style::new().fg(Color::Cyan),
            title: Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
            header: Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            selected: Style::new().fg(Color::Black).bg(Color::Cyan),
            ok: Style::new().fg(Color::Green),
            warn: Style::new().fg(Color::Yellow),
            crit: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            accent: Style::new().fg(Color::Cyan),
            read: Style::new().fg(Color::Green),
            write: Style::new().fg(Color::Magenta),
            live: Style::new().fg(Color::Black).bg(Color::Green),
            paused: Style::new().fg(Color::Black).bg(Color::Yellow),
            breadcrumb: Style::new().fg(Color::Cyan),
            key: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        }
    }
}

impl Theme {
    /// Names of the themes shipped in `themes/`, in the order `t` cycles them.
    pub fn builtin_names() -> &'static [&'static str] {
        &["dark", "light", "high-contrast", "mono"]
    }

    pub fn builtin(name: &str) -> Option<Theme> {
        (name == "dark").then(Theme::default)
    }
}

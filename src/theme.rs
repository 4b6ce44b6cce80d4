//! Colours and emphasis by role. Themes are TOML files in `themes/`; every
//! theme is a patch over the dark default, so a file sets only what it
//! changes.
//!
//! ```toml
//! name = "mine"
//!
//! [styles]
//! base     = { fg = "black", bg = "reset" }
//! selected = { fg = "#1e1e2e", bg = "153", bold = true }
//! warn     = { fg = "LightYellow", underlined = true }
//! ```
//!
//! A role present in the file replaces the default's style for that role
//! entirely (so `bold = false` really means not bold); a role absent keeps
//! the default's. Style attributes: `fg`, `bg` (anything
//! [`Color::from_str`] takes: a name, 0-255, `"#rrggbb"`, `"reset"`), and
//! `bold`, `dim`, `italic`, `underlined`, `reversed` (booleans).

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

use crate::core::text::is_unsafe;

use crate::config::{
    Problem, config_dir, describe, expected, integer, is_path_spec, line_of, parse_document,
    printable,
};

/// The theme's roles, each named once: the struct's fields, the names a
/// theme file sets ([`ROLE_NAMES`]), [`Theme::roles`] and the lookup of a
/// role by its name all come from the one list.
macro_rules! roles {
    ($($(#[$doc:meta])* $role:ident,)*) => {
        /// Styles by what they mean, never by where they are drawn.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            pub name: String,
            $($(#[$doc])* pub $role: Style,)*
        }

        /// The roles a theme file may set, as its `[styles]` keys.
        pub const ROLE_NAMES: [&str; ROLES] = [$(stringify!($role)),*];
        const ROLES: usize = [$(stringify!($role)),*].len();

        impl Theme {
            /// Every role with its style, in [`ROLE_NAMES`] order.
            pub fn roles(&self) -> [(&'static str, Style); ROLES] {
                [$((stringify!($role), self.$role)),*]
            }

            fn role_mut(&mut self, role: &str) -> Option<&mut Style> {
                Some(match role {
                    $(stringify!($role) => &mut self.$role,)*
                    _ => return None,
                })
            }
        }
    };
}

roles! {
    /// Plain text on the screen's background.
    base,
    /// Secondary text: units, hints, unknown figures.
    muted,
    border,
    /// The border of the focused panel.
    border_focus,
    title,
    /// Table headers.
    header,
    /// The selected row.
    selected,
    ok,
    warn,
    crit,
    accent,
    /// Read-side series in charts and sparklines.
    read,
    /// Write-side series.
    write,
    live,
    paused,
    breadcrumb,
    /// Keys in the help overlay and the footer.
    key,
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
    /// Names of the themes shipped in `themes/`, in the order `c` cycles them.
    pub fn builtin_names() -> &'static [&'static str] {
        &["dark", "light", "high-contrast", "mono"]
    }

    /// A shipped theme by name (case-insensitive), parsed from the copy
    /// embedded in the binary; `None` for any other name.
    pub fn builtin(name: &str) -> Option<Theme> {
        let (name, text) = BUILTIN_SOURCES
            .iter()
            .find(|(builtin, _)| builtin.eq_ignore_ascii_case(name))?;
        let source_name = format!("themes/{name}.toml");
        // The unit tests parse every embedded file, so the fallback is for
        // a broken build only; it must still honour what mono promises.
        Some(Theme::parse(text, &source_name).unwrap_or_else(|_| {
            let fallback = Theme::default();
            if *name == "mono" {
                fallback.without_colour(name)
            } else {
                Theme {
                    name: (*name).to_owned(),
                    ..fallback
                }
            }
        }))
    }

    /// The theme for NO_COLOR: emphasis without colour.
    pub fn mono() -> Theme {
        Theme::builtin("mono").unwrap_or_else(|| Theme::default().without_colour("mono"))
    }

    fn without_colour(mut self, name: &str) -> Theme {
        self.name = name.to_owned();
        for role in ROLE_NAMES {
            if let Some(style) = self.role_mut(role) {
                style.fg = None;
                style.bg = None;
                style.underline_color = None;
            }
        }
        self
    }

    /// A theme by what the user typed: a built-in name, else a user theme
    /// `$XDG_CONFIG_HOME/strata/themes/NAME.toml` (or under
    /// `~/.config`), else, when `spec` ends in `.toml` or has a `/`, a path.
    pub fn load(spec: &str) -> Result<Theme, ThemeError> {
        Theme::load_from(spec, config_dir().as_deref())
    }

    /// [`Theme::load`] with the user theme directory's parent given, so it
    /// can be tested without touching the environment.
    pub fn load_from(spec: &str, config_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        let spec = spec.trim();
        if let Some(theme) = Theme::builtin(spec) {
            return Ok(theme);
        }
        if is_path_spec(spec) {
            return Theme::from_file(&expand_home(spec));
        }
        let user = config_dir
            .filter(|_| !spec.is_empty())
            .map(|dir| dir.join("themes").join(format!("{spec}.toml")));
        if let Some(path) = &user {
            match Theme::from_file(path) {
                Err(ThemeError::Read {
                    not_found: true, ..
                }) => {}
                other => return other,
            }
        }
        Err(ThemeError::NotFound {
            spec: spec.to_owned(),
            tried: user,
        })
    }

    /// A theme file from disk; its name is the `name` key, else the file's
    /// stem.
    pub fn from_file(path: &Path) -> Result<Theme, ThemeError> {
        let file = path.display().to_string();
        match crate::core::userfile::read_text(path, crate::core::userfile::TEXT_LIMIT) {
            Ok(text) => Theme::parse(&text, &file),
            Err(e) => Err(ThemeError::Read {
                not_found: e.kind() == ErrorKind::NotFound,
                file,
                message: e.to_string(),
            }),
        }
    }

    /// A theme file's text to a theme, patched over [`Theme::default`].
    /// `source_name` is how errors name the file, and its stem names a
    /// theme that has no `name` key. The first problem in file order is
    /// reported: a theme is all or nothing, since half a theme can leave
    /// text the same colour as its background.
    pub fn parse(text: &str, source_name: &str) -> Result<Theme, ThemeError> {
        let doc = parse_document(text).map_err(|e| ThemeError::Syntax {
            file: source_name.to_owned(),
            line: e.span().map(|span| line_of(text, span.start)),
            message: printable(e.message()).into_owned(),
        })?;
        let mut theme = Theme {
            name: printable(&stem(source_name)).into_owned(),
            ..Theme::default()
        };
        let mut problems = Vec::new();
        for (key, value) in doc.get_ref().iter() {
            let name: &str = key.get_ref();
            let value = value.get_ref();
            match name {
                "name" => match value.as_str().map(str::trim) {
                    Some(n) if !n.is_empty() && !n.contains(is_unsafe) => {
                        theme.name = n.to_owned();
                    }
                    Some(_) => problems.push(Problem::new(
                        key,
                        "name".to_owned(),
                        "must not be empty or hold control characters".to_owned(),
                    )),
                    None => problems.push(Problem::new(
                        key,
                        "name".to_owned(),
                        expected("a string", value),
                    )),
                },
                "styles" => match value.as_table() {
                    Some(styles) => theme.apply_styles(styles, &mut problems),
                    None => problems.push(Problem::new(
                        key,
                        "styles".to_owned(),
                        expected("a table of roles", value),
                    )),
                },
                _ => problems.push(Problem::new(
                    key,
                    name.to_owned(),
                    "unknown key (known keys: name, styles)".to_owned(),
                )),
            }
        }
        match problems.into_iter().min_by_key(|p| p.offset) {
            // The key and a value quoted in the problem are the file's.
            Some(p) => Err(ThemeError::Invalid {
                file: source_name.to_owned(),
                line: line_of(text, p.offset),
                key: printable(&p.key).into_owned(),
                problem: printable(&p.problem).into_owned(),
            }),
            None => Ok(theme),
        }
    }

    fn apply_styles(&mut self, styles: &DeTable, problems: &mut Vec<Problem>) {
        for (key, value) in styles.iter() {
            let role: &str = key.get_ref();
            match self.role_mut(role) {
                Some(slot) => {
                    if let Some(style) = parse_style(role, key, value, problems) {
                        *slot = style;
                    }
                }
                None => problems.push(Problem::new(
                    key,
                    format!("styles.{role}"),
                    format!("unknown role (known roles: {})", ROLE_NAMES.join(", ")),
                )),
            }
        }
    }

    /// The next shipped theme in `t` order; a user theme goes to the first.
    pub fn next_builtin(&self) -> Theme {
        let names = Theme::builtin_names();
        let next = names
            .iter()
            .position(|name| *name == self.name)
            .map_or(0, |i| (i + 1) % names.len());
        names
            .get(next)
            .and_then(|name| Theme::builtin(name))
            .unwrap_or_default()
    }
}

const STYLE_KEYS: &str = "fg, bg, bold, dim, italic, underlined, reversed";

/// Embedded so an installed binary needs no data directory.
const BUILTIN_SOURCES: [(&str, &str); 4] = [
    ("dark", include_str!("../themes/dark.toml")),
    ("light", include_str!("../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../themes/high-contrast.toml"),
    ),
    ("mono", include_str!("../themes/mono.toml")),
];

/// Why a theme could not be had. Every variant names the file, and the
/// file's problems name the line and the key, because the user has to go
/// and fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThemeError {
    #[error("cannot read theme file {file}: {message}")]
    Read {
        file: String,
        message: String,
        /// The file does not exist, as opposed to being unreadable.
        not_found: bool,
    },
    #[error("{file}{}: TOML syntax error: {message}", at_line(*.line))]
    Syntax {
        file: String,
        line: Option<usize>,
        message: String,
    },
    #[error("{file} line {line}, key {key}: {problem}")]
    Invalid {
        file: String,
        line: usize,
        key: String,
        problem: String,
    },
    #[error(
        "unknown theme \"{spec}\": not a built-in ({}){}",
        Theme::builtin_names().join(", "),
        tried.as_ref().map(|p| format!(" and no {}", p.display())).unwrap_or_default()
    )]
    NotFound {
        spec: String,
        tried: Option<PathBuf>,
    },
}

fn at_line(line: Option<usize>) -> String {
    line.map(|n| format!(" line {n}")).unwrap_or_default()
}

/// Picks the theme strata starts with: `--theme` first, then NO_COLOR
/// (which means mono), then the config file's `theme`, then dark. A theme
/// that fails to load gives the fallback (mono under NO_COLOR, else dark)
/// and the reason, for the UI to show while strata keeps running.
pub fn resolve(cli: Option<&str>, config: Option<&str>, no_color: bool) -> (Theme, Option<String>) {
    let fallback = || {
        if no_color {
            Theme::mono()
        } else {
            Theme::default()
        }
    };
    let spec = match (cli, config) {
        (Some(spec), _) => spec,
        _ if no_color => return (Theme::mono(), None),
        (None, Some(spec)) => spec,
        (None, None) => return (Theme::default(), None),
    };
    match Theme::load(spec) {
        Ok(theme) => (theme, None),
        Err(e) => (fallback(), Some(e.to_string())),
    }
}

/// Whether NO_COLOR asks for no colour: set and not empty
/// (<https://no-color.org>).
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

fn expand_home(spec: &str) -> PathBuf {
    // Config files are not seen by a shell, so `~/` is expanded here.
    match (spec.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) if !home.is_empty() => Path::new(&home).join(rest),
        _ => PathBuf::from(spec),
    }
}

fn stem(source_name: &str) -> String {
    Path::new(source_name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| source_name.to_owned())
}

fn parse_style(
    role: &str,
    key: &Spanned<DeString>,
    value: &Spanned<DeValue>,
    problems: &mut Vec<Problem>,
) -> Option<Style> {
    let Some(table) = value.get_ref().as_table() else {
        problems.push(Problem::new(
            key,
            format!("styles.{role}"),
            expected(
                "a table such as { fg = \"cyan\", bold = true }",
                value.get_ref(),
            ),
        ));
        return None;
    };
    let mut style = Style::new();
    let mut ok = true;
    for (attr_key, attr_value) in table.iter() {
        let attr: &str = attr_key.get_ref();
        let attr_value = attr_value.get_ref();
        let outcome = match attr {
            "fg" => colour(attr_value).map(|c| style.fg = Some(c)),
            "bg" => colour(attr_value).map(|c| style.bg = Some(c)),
            "bold" => modifier(attr_value, Modifier::BOLD, &mut style),
            "dim" => modifier(attr_value, Modifier::DIM, &mut style),
            "italic" => modifier(attr_value, Modifier::ITALIC, &mut style),
            "underlined" => modifier(attr_value, Modifier::UNDERLINED, &mut style),
            "reversed" => modifier(attr_value, Modifier::REVERSED, &mut style),
            _ => Err(format!("unknown style attribute (known: {STYLE_KEYS})")),
        };
        if let Err(problem) = outcome {
            problems.push(Problem::new(
                attr_key,
                format!("styles.{role}.{attr}"),
                problem,
            ));
            ok = false;
        }
    }
    ok.then_some(style)
}

fn colour(value: &DeValue) -> Result<Color, String> {
    match value {
        DeValue::String(s) => Color::from_str(s.trim()).map_err(|_| {
            let shown: String = s.chars().take(40).collect();
            format!(
                "unknown colour {shown:?} (use a name such as \"red\" or \"LightCyan\", \
                 0-255, \"#rrggbb\" or \"reset\")"
            )
        }),
        DeValue::Integer(i) => integer(i)
            .and_then(|n| u8::try_from(n).ok())
            .map(Color::Indexed)
            .ok_or_else(|| format!("colour index must be 0-255, found {}", describe(value))),
        _ => Err(expected("a colour", value)),
    }
}

fn modifier(value: &DeValue, modifier: Modifier, style: &mut Style) -> Result<(), String> {
    // false adds nothing rather than subtracting: a role replaces the
    // default's style whole, so there is nothing underneath to take away.
    match value.as_bool() {
        Some(true) => {
            *style = style.add_modifier(modifier);
            Ok(())
        }
        Some(false) => Ok(()),
        None => Err(expected("true or false", value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_theme_parses() {
        for (name, text) in BUILTIN_SOURCES {
            let theme = Theme::parse(text, &format!("themes/{name}.toml"));
            assert!(theme.is_ok(), "{name}: {theme:?}");
            assert_eq!(theme.map(|t| t.name).ok().as_deref(), Some(name));
        }
        let names: Vec<&str> = BUILTIN_SOURCES.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, Theme::builtin_names());
    }

    #[test]
    fn a_fifo_or_device_as_theme_is_refused_at_once() {
        let said = crate::core::userfile::testing::fifo_and_zero(|p| match Theme::from_file(p) {
            Ok(t) => t.name,
            Err(e) => e.to_string(),
        });
        assert!(said[0].contains("is a FIFO"), "{said:?}");
        assert!(said[1].contains("is a device"), "{said:?}");
    }

    #[test]
    fn a_themes_errors_and_name_hold_no_escape() {
        for text in [
            "\"\\u001b]0;PWN\\u0007\" = 1\n",
            "[styles]\n\"a\\u202eb\" = \"red\"\n",
            "[styles.base]\nfg = \"\\u001b[2J\"\n",
            "name = \"dark\\u001b[2J\"\n",
        ] {
            let e = Theme::parse(text, "t.toml").unwrap_err().to_string();
            assert!(!e.contains(is_unsafe), "{e:?}");
        }
    }

    #[test]
    fn roles_and_role_names_agree() {
        let mut theme = Theme::default();
        for ((name, style), listed) in theme.clone().roles().into_iter().zip(ROLE_NAMES) {
            assert_eq!(name, listed);
            assert_eq!(theme.role_mut(name).copied(), Some(style));
        }
    }
}

//! Theme files and the config file: the shipped themes, the fixtures under
//! `tests/fixtures/{themes,config}`, and the precedence of theme sources.
//!
//! Each invalid fixture states what it must produce in `# expect: …`
//! comment lines; every one must appear in a message, which pins the file,
//! the line and the key together.

#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use ratatui::style::{Color, Modifier, Style};
use strata::config::{self, CellEntry, Config, Thresholds};
use strata::core::duration::Interval;
use strata::layers::disks::model::Units;
use strata::theme::{self, ROLE_NAMES, Theme, ThemeError};

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir);
    let mut files: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", root.display());
    files
}

fn expectations(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# expect: "))
        .collect()
}

fn fixture_text(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn themes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("themes")
}

// ---- built-in themes ------------------------------------------------------

#[test]
fn every_builtin_parses_from_its_file_and_from_the_binary() {
    for name in Theme::builtin_names() {
        let path = themes_dir().join(format!("{name}.toml"));
        let from_file = Theme::from_file(&path);
        assert!(from_file.is_ok(), "{name}: {from_file:?}");
        let from_file = from_file.unwrap();
        assert_eq!(from_file.name, *name);
        assert_eq!(Theme::builtin(name), Some(from_file), "{name}");
        assert_eq!(
            Theme::load(name).ok().map(|t| t.name).as_deref(),
            Some(*name)
        );
    }
    assert_eq!(Theme::builtin("solarized"), None);
    assert_eq!(
        Theme::builtin("Light").map(|t| t.name).as_deref(),
        Some("light")
    );
}

#[test]
fn dark_toml_states_the_default_exactly() {
    let text = fixture_text(&themes_dir().join("dark.toml"));
    assert_eq!(
        Theme::parse(&text, "themes/dark.toml"),
        Ok(Theme::default())
    );
    // Every role is spelled out, so the file documents the default in full
    // rather than matching it by omission.
    for role in ROLE_NAMES {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{role} "))),
            "dark.toml does not set {role}"
        );
    }
}

fn has_colour(style: &Style) -> bool {
    let coloured = |c: Option<Color>| c.is_some_and(|c| c != Color::Reset);
    coloured(style.fg) || coloured(style.bg) || coloured(style.underline_color)
}

#[test]
fn mono_has_no_colour_anywhere_yet_marks_what_matters() {
    let mono = Theme::builtin("mono").unwrap();
    for (role, style) in mono.roles() {
        assert!(!has_colour(&style), "mono {role}: {style:?}");
    }
    assert_eq!(Theme::mono(), mono);
    for style in [
        mono.selected,
        mono.crit,
        mono.warn,
        mono.live,
        mono.paused,
        mono.header,
    ] {
        assert_ne!(style.add_modifier, Modifier::empty(), "{style:?}");
    }
    assert_ne!(mono.selected, mono.base);
    assert_ne!(mono.warn, mono.crit);
}

#[test]
fn light_is_readable_on_white() {
    let light = Theme::builtin("light").unwrap();
    let pale = [Color::White, Color::Gray, Color::DarkGray];
    assert!(
        light.base.fg.is_some_and(|fg| !pale.contains(&fg)),
        "base: {:?}",
        light.base
    );
    // On the terminal's own (white) background, none of the ANSI colours
    // that light schemes leave pale.
    let unreadable = [
        Color::White,
        Color::Gray,
        Color::Yellow,
        Color::Cyan,
        Color::LightYellow,
        Color::LightCyan,
        Color::LightGreen,
    ];
    for (role, style) in light.roles() {
        if style.bg.is_none_or(|bg| bg == Color::Reset) {
            assert!(
                style.fg.is_none_or(|fg| !unreadable.contains(&fg)),
                "light {role}: {style:?}"
            );
        }
    }
    assert!(
        light.selected.bg.is_some_and(|bg| bg != Color::Reset),
        "selected: {:?}",
        light.selected
    );
}

#[test]
fn high_contrast_is_bright_bold_and_has_a_strong_selection() {
    let hc = Theme::builtin("high-contrast").unwrap();
    assert!(hc.selected.bg.is_some_and(|bg| bg != Color::Reset));
    assert!(hc.selected.add_modifier.contains(Modifier::BOLD));
    for style in [hc.header, hc.warn, hc.crit, hc.key, hc.border_focus] {
        assert!(style.add_modifier.contains(Modifier::BOLD), "{style:?}");
    }
    assert_eq!(hc.base.fg, Some(Color::White));
}

#[test]
fn next_builtin_cycles_and_a_user_theme_goes_to_the_first() {
    let mut theme = Theme::default();
    let mut seen = Vec::new();
    for _ in 0..Theme::builtin_names().len() {
        theme = theme.next_builtin();
        seen.push(theme.name.clone());
    }
    assert_eq!(seen, ["light", "high-contrast", "mono", "dark"]);
    let user = Theme {
        name: "mine".into(),
        ..Theme::default()
    };
    assert_eq!(user.next_builtin().name, "dark");
}

// ---- theme fixtures -------------------------------------------------------

#[test]
fn every_valid_theme_fixture_parses() {
    for path in fixtures("themes/valid") {
        let theme = Theme::from_file(&path);
        assert!(theme.is_ok(), "{}: {theme:?}", path.display());
    }
}

#[test]
fn a_theme_patches_the_default_role_by_role() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/themes/valid/partial.toml");
    let theme = Theme::from_file(&path).unwrap();
    let dark = Theme::default();
    assert_eq!(theme.name, "partial");
    assert_eq!(
        theme.warn,
        Style::new()
            .fg(Color::Rgb(0xff, 0x88, 0))
            .add_modifier(Modifier::BOLD)
    );
    // Present: replaced whole, so the default's fg and bg are gone.
    assert_eq!(
        theme.selected,
        Style::new().add_modifier(Modifier::REVERSED)
    );
    // Absent: the default's.
    assert_eq!(
        Theme {
            name: "dark".into(),
            warn: dark.warn,
            selected: dark.selected,
            ..theme
        },
        dark
    );
}

#[test]
fn theme_attributes_indexes_and_names() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/themes/valid");
    let tables = Theme::from_file(&dir.join("tables.toml")).unwrap();
    let all = Modifier::BOLD
        | Modifier::DIM
        | Modifier::ITALIC
        | Modifier::UNDERLINED
        | Modifier::REVERSED;
    assert_eq!(
        tables.title,
        Style::new()
            .fg(Color::Indexed(208))
            .bg(Color::Indexed(42))
            .add_modifier(all)
    );
    assert_eq!(tables.crit, Style::new().fg(Color::LightRed));

    let unnamed = Theme::from_file(&dir.join("unnamed.toml")).unwrap();
    assert_eq!(unnamed.name, "unnamed");
    assert_eq!(
        unnamed.base,
        Style::new()
            .fg(Color::LightCyan)
            .bg(Color::Rgb(0x1e, 0x1e, 0x2e))
    );

    let empty = Theme::from_file(&dir.join("empty.toml")).unwrap();
    assert_eq!(
        empty,
        Theme {
            name: "empty".into(),
            ..Theme::default()
        }
    );
}

#[test]
fn every_invalid_theme_fixture_names_file_line_and_key() {
    for path in fixtures("themes/invalid") {
        let text = fixture_text(&path);
        let expected = expectations(&text);
        assert_eq!(
            expected.len(),
            1,
            "{}: one `# expect:` line",
            path.display()
        );
        let err = Theme::from_file(&path).expect_err(&path.display().to_string());
        let message = err.to_string();
        assert!(
            message.starts_with(&path.display().to_string()),
            "{message}"
        );
        assert!(
            message.contains(expected[0]),
            "{message}\n  wanted: {}",
            expected[0]
        );
    }
}

#[test]
fn theme_error_fields_carry_line_and_key() {
    let text = "name = \"x\"\n\n[styles]\nwarn = { fg = \"reed\" }\n";
    let err = Theme::parse(text, "themes/bad.toml").unwrap_err();
    assert_eq!(
        err,
        ThemeError::Invalid {
            file: "themes/bad.toml".into(),
            line: 4,
            key: "styles.warn.fg".into(),
            problem: err_problem(&err),
        }
    );
    assert!(
        err.to_string()
            .starts_with("themes/bad.toml line 4, key styles.warn.fg: unknown colour \"reed\"")
    );
    let err = Theme::parse("[styles]\nwrning = {}\n", "themes/bad.toml").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("themes/bad.toml line 2, key styles.wrning: unknown role (known roles: base, muted, border,"),
        "{err}"
    );
}

fn err_problem(err: &ThemeError) -> String {
    match err {
        ThemeError::Invalid { problem, .. } => problem.clone(),
        other => panic!("not Invalid: {other:?}"),
    }
}

// ---- finding themes -------------------------------------------------------

#[test]
fn load_finds_user_themes_and_paths() {
    let dir = tempfile::tempdir().unwrap();
    let themes = dir.path().join("themes");
    fs::create_dir(&themes).unwrap();
    fs::write(
        themes.join("ocean.toml"),
        "[styles]\nok = { fg = \"blue\" }\n",
    )
    .unwrap();
    // A user file cannot shadow a built-in name.
    fs::write(
        themes.join("light.toml"),
        "[styles]\nok = { fg = \"blue\" }\n",
    )
    .unwrap();

    let ocean = Theme::load_from("ocean", Some(dir.path())).unwrap();
    assert_eq!(ocean.name, "ocean");
    assert_eq!(ocean.ok, Style::new().fg(Color::Blue));
    assert_eq!(
        Theme::load_from("light", Some(dir.path())),
        Ok(Theme::builtin("light").unwrap())
    );

    let by_path = themes.join("ocean.toml").display().to_string();
    assert_eq!(Theme::load_from(&by_path, None).map(|t| t.ok), Ok(ocean.ok));

    match Theme::load_from("nosuch", Some(dir.path())) {
        Err(e @ ThemeError::NotFound { .. }) => {
            let message = e.to_string();
            assert!(message.contains("\"nosuch\""), "{message}");
            assert!(
                message.contains("dark, light, high-contrast, mono"),
                "{message}"
            );
            assert!(message.contains("themes/nosuch.toml"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let missing = dir.path().join("gone.toml").display().to_string();
    match Theme::load_from(&missing, None) {
        Err(
            e @ ThemeError::Read {
                not_found: true, ..
            },
        ) => {
            assert!(e.to_string().contains(&missing), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn resolve_precedence_is_cli_then_no_color_then_config() {
    let dark = Theme::default();
    let mono = Theme::mono();
    let light = Theme::builtin("light").unwrap();
    let hc = Theme::builtin("high-contrast").unwrap();

    assert_eq!(theme::resolve(None, None, false), (dark.clone(), None));
    assert_eq!(theme::resolve(None, None, true), (mono.clone(), None));
    assert_eq!(
        theme::resolve(None, Some("light"), false),
        (light.clone(), None)
    );
    // NO_COLOR outranks the config file...
    assert_eq!(
        theme::resolve(None, Some("light"), true),
        (mono.clone(), None)
    );
    // ...but not an explicit --theme.
    assert_eq!(
        theme::resolve(Some("light"), None, true),
        (light.clone(), None)
    );
    assert_eq!(
        theme::resolve(Some("high-contrast"), Some("light"), false),
        (hc, None)
    );

    let bad = "strata-test-no-such-theme-3f9a";
    let (theme, message) = theme::resolve(Some(bad), Some("light"), false);
    assert_eq!(theme, dark);
    assert!(message.is_some_and(|m| m.contains(bad)));
    let (theme, message) = theme::resolve(Some(bad), None, true);
    assert_eq!(theme, mono);
    assert!(message.is_some());
    let (theme, message) = theme::resolve(None, Some(bad), false);
    assert_eq!(theme, dark);
    assert!(message.is_some());

    let broken = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/themes/invalid/unknown-colour.toml")
        .display()
        .to_string();
    let (theme, message) = theme::resolve(None, Some(&broken), false);
    assert_eq!(theme, dark);
    let message = message.unwrap();
    assert!(message.contains("line 4, key styles.warn.fg"), "{message}");
}

// ---- config ---------------------------------------------------------------

fn parse_fixture(dir: &str, name: &str) -> (Config, Vec<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/config")
        .join(dir)
        .join(name);
    config::load(Some(&path)).unwrap()
}

#[test]
fn every_valid_config_fixture_parses_without_messages() {
    for path in fixtures("config/valid") {
        let (_, messages) = config::load(Some(&path)).unwrap();
        assert!(messages.is_empty(), "{}: {messages:?}", path.display());
    }
}

#[test]
fn full_config_sets_everything() {
    let (config, _) = parse_fixture("valid", "full.toml");
    assert_eq!(
        config,
        Config {
            interval: Some(strata::core::duration::Interval::from_secs(2.5).unwrap()),
            theme: Some("light".into()),
            history_secs: 9000,
            history_memory: 512 << 20,
            units: Units::MB,
            show_partitions: true,
            show_all_devices: true,
            thresholds: Thresholds {
                util_warn: 70.0,
                util_crit: 90.5,
                await_warn_ms: 10.0,
                await_crit_ms: 50.0,
            },
            cache_files: Vec::new(),
            fincore_every_secs: 30,
            record: Some("/var/tmp/bench.strec".into()),
            record_dir: None,
            cells: vec![CellEntry {
                host: "exa1cel01".into(),
                port: 2222,
                user: Some("celladmin".into()),
                identity_file: Some("/etc/strata/cells_ed25519".into()),
                label: Some("cel01".into()),
            }],
            nodes: vec![
                CellEntry {
                    host: "local".into(),
                    port: 22,
                    user: None,
                    identity_file: None,
                    label: None,
                },
                CellEntry {
                    host: "exa1db02".into(),
                    port: 2200,
                    user: Some("oracle".into()),
                    identity_file: Some("/etc/strata/nodes_ed25519".into()),
                    label: Some("db02".into()),
                },
            ],
            dbs: Vec::new(),
        }
    );
    assert_eq!(parse_fixture("valid", "empty.toml").0, Config::default());

    let (dotted, _) = parse_fixture("valid", "dotted.toml");
    assert_eq!(dotted.interval, Interval::from_secs(1.0));
    assert_eq!(dotted.history_secs, 600);
    assert_eq!(dotted.thresholds.util_warn, 60.0);
    assert_eq!(dotted.thresholds.util_crit, 99.0);

    let (inline, _) = parse_fixture("valid", "inline.toml");
    assert_eq!(inline.units, Units::KB);
    assert_eq!(inline.thresholds.await_warn_ms, 5.0);
    assert_eq!(inline.thresholds.await_crit_ms, 25.0);
}

#[test]
fn every_invalid_config_fixture_names_file_line_and_key() {
    for path in fixtures("config/invalid") {
        let text = fixture_text(&path);
        let expected = expectations(&text);
        assert!(
            !expected.is_empty(),
            "{}: no `# expect:` line",
            path.display()
        );
        let (_, messages) = config::load(Some(&path)).unwrap();
        assert_eq!(
            messages.len(),
            expected.len(),
            "{}: {messages:#?}",
            path.display()
        );
        // In file order, one message per expectation.
        for (message, wanted) in messages.iter().zip(&expected) {
            assert!(
                message.starts_with(&path.display().to_string()),
                "{message}"
            );
            assert!(message.contains(wanted), "{message}\n  wanted: {wanted}");
        }
    }
}

#[test]
fn a_bad_key_keeps_its_default_and_the_good_keys_apply() {
    let (config, messages) = parse_fixture("invalid", "per-key.toml");
    assert_eq!(messages.len(), 1);
    assert_eq!(config.interval, Interval::from_secs(2.0));
    assert_eq!(config.units, Units::MB);
    assert_eq!(config.thresholds.util_warn, Thresholds::default().util_warn);
    assert_eq!(config.thresholds.util_crit, 90.0);

    let (config, _) = parse_fixture("invalid", "bad-values.toml");
    assert_eq!(config, Config::default());

    let (config, _) = parse_fixture("invalid", "thresholds-not-table.toml");
    assert!(config.show_all_devices);
    assert_eq!(config.thresholds, Thresholds::default());

    let (config, _) = parse_fixture("invalid", "inverted-thresholds.toml");
    assert_eq!(config.thresholds.util_warn, 80.0);
    assert_eq!(config.thresholds.util_crit, 95.0);
    assert_eq!(config.thresholds.await_warn_ms, 30.0);

    let (config, _) = parse_fixture("invalid", "interval-too-short.toml");
    assert_eq!(config.interval, None);
    assert_eq!(config.units, Units::MB);
    assert_eq!(config.history_secs, 600);

    let (config, _) = parse_fixture("invalid", "interval-microseconds.toml");
    assert_eq!(config.interval, None);
    assert!(config.show_partitions);
}

#[test]
fn a_syntax_error_gives_one_message_and_all_defaults() {
    let (config, messages) = parse_fixture("invalid", "syntax.toml");
    assert_eq!(config, Config::default());
    assert_eq!(messages.len(), 1);
}

#[test]
fn config_message_matches_the_documented_shape() {
    let text = "interval = 1\n\n[thresholds]\nutil_warn = \"x\"\n";
    let (_, messages) = config::parse(text, "/home/u/.config/strata/config.toml");
    assert_eq!(
        messages,
        [
            "/home/u/.config/strata/config.toml line 4, key thresholds.util_warn: \
             expected a number, found string \"x\""
        ]
    );
}

#[test]
fn interval_and_units() {
    let interval = |v: &str| {
        let (config, messages) = config::parse(&format!("interval = {v}"), "c");
        (config.interval, messages.len())
    };
    assert_eq!(interval("0.5"), (Interval::from_secs(0.5), 0));
    assert_eq!(interval("0.1"), (Interval::from_secs(0.1), 0));
    assert_eq!(interval("1e-1"), (Interval::from_secs(0.1), 0));
    assert_eq!(interval("3600"), (Interval::from_secs(3600.0), 0));
    assert_eq!(interval("3_600"), (Interval::from_secs(3600.0), 0));
    assert_eq!(interval("3600.5"), (None, 1));
    assert_eq!(interval("0"), (None, 1));
    assert_eq!(interval("0.099"), (None, 1));
    assert_eq!(interval("0.000001"), (None, 1));
    assert_eq!(interval("1e-10"), (None, 1));
    assert_eq!(interval("1e300"), (None, 1));
    assert_eq!(interval("-1"), (None, 1));
    assert_eq!(interval("nan"), (None, 1));
    assert_eq!(interval("inf"), (None, 1));
    assert_eq!(interval("\"2\""), (None, 1));
    // The config takes exactly what --interval takes.
    for v in ["0.1", "0.099", "1e-10", "3600", "3600.000001", "2.5"] {
        let (config, _) = config::parse(&format!("interval = {v}"), "c");
        assert_eq!(config.interval, Interval::parse(v).ok(), "{v}");
    }
    let (_, messages) = config::parse("interval = 1e-10", "c");
    assert_eq!(
        messages,
        ["c line 1, key interval: 0.0000000001 s is outside 0.1 to 3600 s"]
    );

    for (v, units) in [
        ("kB", Units::KB),
        ("KB", Units::KB),
        ("kb", Units::KB),
        ("Mb", Units::MB),
    ] {
        let (config, messages) = config::parse(&format!("units = \"{v}\""), "c");
        assert_eq!((config.units, messages.len()), (units, 0), "{v}");
    }
}

#[test]
fn history_accepts_durations_and_whole_seconds() {
    for (text, secs) in [
        ("\"90s\"", 90),
        ("\"30m\"", 1800),
        ("\"1h\"", 3600),
        ("\"2h30m\"", 9000),
        ("\"1h 0m 10s\"", 3610),
        ("\"1d 12h\"", 129_600),
        ("\"7d\"", 604_800),
        ("\"600\"", 600),
        ("600", 600),
        ("10", 10),
    ] {
        let (config, messages) = config::parse(&format!("history = {text}"), "c");
        assert_eq!((config.history_secs, messages), (secs, vec![]), "{text}");
    }
}

#[test]
fn history_rejects_nonsense_and_keeps_the_default() {
    for text in [
        "\"5s\"",
        "\"8d\"",
        "\"7d1s\"",
        "\"1.5h\"",
        "\"30m2h\"",
        "\"1h1h\"",
        "\"\"",
        "\"h\"",
        "\"10x\"",
        "\"10\u{00e9}\"",
        "\"99999999999999999999d\"",
        "\"9999999999999999999d\"",
        "9",
        "-60",
        "1.5",
        "true",
    ] {
        let (config, messages) = config::parse(&format!("history = {text}"), "c");
        assert_eq!(config.history_secs, 3600, "{text}");
        assert_eq!(messages.len(), 1, "{text}");
        assert!(
            messages[0].starts_with("c line 1, key history: "),
            "{}",
            messages[0]
        );
    }
    assert_eq!(config::parse_history("2h30m"), Ok(9000));
    assert!(config::parse_duration("30m2h").is_err());
    assert_eq!(config::parse_duration("5s"), Ok(5));
}

#[test]
fn history_memory_takes_sizes_and_bytes() {
    for (text, bytes) in [
        ("\"1G\"", 1u64 << 30),
        ("\"512M\"", 512 << 20),
        ("\"1024k\"", 1 << 20),
        ("\"1024G\"", 1 << 40),
        ("2097152", 2 << 20),
    ] {
        let (config, messages) = config::parse(&format!("history_memory = {text}"), "c");
        assert_eq!((config.history_memory, messages), (bytes, vec![]), "{text}");
    }
}

#[test]
fn history_memory_rejects_nonsense_and_keeps_the_default() {
    for text in [
        "\"\"",
        "\"1T\"",
        "\"1.5G\"",
        "\"-1G\"",
        "\"G\"",
        "\"1023k\"",
        "\"1025G\"",
        "\"99999999999999999999G\"",
        "1000",
        "-1",
        "1.5",
        "true",
        "[1]",
    ] {
        let (config, messages) = config::parse(&format!("history_memory = {text}"), "c");
        assert_eq!(config.history_memory, 1 << 30, "{text}");
        assert_eq!(messages.len(), 1, "{text}");
        assert!(
            messages[0].starts_with("c line 1, key history_memory: "),
            "{}",
            messages[0]
        );
    }
}

// ---- never panic ----------------------------------------------------------

fn tomlish() -> impl Strategy<Value = String> {
    let key = "[a-z_]{1,12}(\\.[a-z_]{1,8}){0,2}";
    let value = prop_oneof![
        "\"[a-zA-Z0-9#. -]{0,10}\"",
        "-?[0-9]{1,22}(\\.[0-9]{0,3})?",
        Just("true".to_owned()),
        Just("nan".to_owned()),
        Just("-inf".to_owned()),
        "\\{ ?(fg|bg|bold|x) = \"?[a-z0-9#]{0,8}\"? ?\\}",
        Just("[1, 2]".to_owned()),
        Just("1979-05-27T07:32:00Z".to_owned()),
    ];
    let line = prop_oneof![
        (key, value).prop_map(|(k, v)| format!("{k} = {v}")),
        "\\[[a-z_.]{1,16}\\]",
        "\\PC{0,20}",
    ];
    proptest::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #[test]
    fn config_parse_never_panics(text in any::<String>()) {
        let _ = config::parse(&text, "p");
    }

    #[test]
    fn theme_parse_never_panics(text in any::<String>()) {
        let _ = Theme::parse(&text, "p");
    }

    #[test]
    fn tomlish_input_never_panics(text in tomlish()) {
        let (_, messages) = config::parse(&text, "p");
        for m in messages {
            prop_assert!(m.starts_with("p "), "{}", m);
        }
        if let Err(e) = Theme::parse(&text, "p") {
            prop_assert!(e.to_string().starts_with("p "), "{}", e);
        }
        let _ = config::parse_duration(&text);
    }
}

//! Man pages and shell completions, made from the clap definitions of
//! [`Cli`] so they name exactly the options this binary takes: nothing is
//! written by hand that could fall out of step. `examples/gen-assets.rs`
//! writes them for scripts/release and the packages.

use super::Cli;
use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;
use clap_mangen::roff::{Inline, Roff, bold, italic, roman};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The shells whose completions are packaged. A file per shell, named as
/// clap_complete names it: strata.bash, _strata, strata.fish.
pub const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

fn command() -> clap::Command {
    // As the derive's parser sees it: `help` as a subcommand is clap's own
    // and needs no page (clap_mangen::generate_to drops it too).
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

fn page(cmd: clap::Command) -> Man {
    // The footer's source is the bare version: with the commit too, man
    // cut it into the date. The VERSION section names the commit.
    Man::new(cmd)
        .source(concat!("strata ", env!("CARGO_PKG_VERSION")))
        .manual("strata manual")
        .date(env!("STRATA_COMMIT_DATE"))
}

/// strata(1): clap's sections, then what the options do not say: the
/// environment, the files read and the subcommands' own pages.
pub fn man_page() -> io::Result<Vec<u8>> {
    let cmd = command();
    let subpages: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| format!("strata-{}", s.get_name()))
        .collect();
    let man = page(cmd);
    let mut out = Vec::new();
    man.render(&mut out)?;
    let mut extra = Roff::new();
    // Names in bold as man-pages(7) sets variables, paths in italics.
    for (title, entries, style) in [
        ("ENVIRONMENT", ENVIRONMENT, bold as fn(String) -> Inline),
        ("FILES", FILES, italic),
    ] {
        extra.control("SH", [title]);
        for (name, what) in entries {
            extra
                .control("TP", [])
                .text([style((*name).to_string())])
                .text([roman(*what)]);
        }
    }
    extra.control("SH", ["SEE ALSO"]);
    let mut see = Vec::new();
    for (i, page) in subpages.iter().enumerate() {
        if i > 0 {
            see.push(roman(", "));
        }
        see.push(bold(page.as_str()));
        see.push(roman("(1)"));
    }
    extra.text(see);
    extra.to_writer(&mut out)?;
    Ok(out)
}

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "STRATA_DB_PASSWORD",
        "The password of the --db connections that name a user; never taken from the command line.",
    ),
    (
        "LD_LIBRARY_PATH",
        "Where the Oracle client library (libclntsh.so, Instant Client Basic or Basic Light) is \
         looked for, before the ld.so cache, when --db is given. strata runs without it; only the \
         database's Direct NFS views need it.",
    ),
    (
        "XDG_CONFIG_HOME",
        "The config and theme directory is $XDG_CONFIG_HOME/strata, else ~/.config/strata.",
    ),
    (
        "STRATA_MARK_DIR",
        "Where `strata mark` finds the running monitors (default $XDG_RUNTIME_DIR/strata, else /tmp/strata-UID).",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "~/.config/strata/config.toml",
        "Settings; --config names another file.",
    ),
    (
        "~/.config/strata/themes/NAME.toml",
        "A theme of your own for --theme NAME. The built-in themes are in /usr/share/strata/themes \
         to start from.",
    ),
];

/// strata(1) and a page per subcommand (strata-batch(1), ...) into `dir`,
/// which must exist. Returns the files written.
pub fn write_man_pages(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let cmd = command();
    let mut written = Vec::new();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        // Built with the parent, each knows itself as `strata-NAME`.
        let man = page(sub.clone());
        written.push(man.generate_to(dir)?);
    }
    let main = dir.join("strata.1");
    std::fs::File::create(&main)?.write_all(&man_page()?)?;
    written.push(main);
    Ok(written)
}

/// The completion script of `shell`.
pub fn completion(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command(), "strata", &mut out);
    out
}

/// The completions of [`SHELLS`] into `dir`, which must exist.
pub fn write_completions(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for shell in SHELLS {
        written.push(clap_complete::generate_to(
            shell,
            &mut command(),
            "strata",
            dir,
        )?);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(b: Vec<u8>) -> String {
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn the_man_page_names_every_option_and_subcommand() {
        let page = text(man_page().unwrap());
        assert!(page.contains("\n.TH strata 1 "), "{page}");
        let cmd = command();
        for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                // roff escapes the dashes of an option: \-\-db
                let roffed = format!("\\-\\-{}", long.replace('-', "\\-"));
                assert!(page.contains(&roffed), "strata.1 lacks --{long}");
            }
        }
        for sub in cmd.get_subcommands() {
            assert!(
                page.contains(sub.get_name()),
                "strata.1 lacks {}",
                sub.get_name()
            );
            assert!(page.contains(&format!("strata\\-{}", sub.get_name())));
        }
        assert!(page.contains("STRATA_DB_PASSWORD"));
        // The VERSION section names the commit (roff escapes the date's dashes).
        let version = env!("STRATA_LONG_VERSION").replace('-', "\\-");
        assert!(page.contains(&version), "no {version} in {page}");
    }

    #[test]
    fn completions_offer_the_subcommands_and_options() {
        for shell in SHELLS {
            let script = text(completion(shell));
            // fish names a long option `-l NAME`, the others `--NAME`
            let long = |name: &str| match shell {
                Shell::Fish => format!("-l {name}"),
                _ => format!("--{name}"),
            };
            for word in [
                "batch".into(),
                "replay".into(),
                long("cache-files"),
                long("db"),
                long("count"),
            ] {
                assert!(script.contains(&word), "{shell} completion lacks {word}");
            }
        }
    }

    #[test]
    fn files_are_written_where_the_packages_take_them() {
        let dir = tempfile::tempdir().unwrap();
        let pages = write_man_pages(dir.path()).unwrap();
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        for n in [
            "strata.1",
            "strata-batch.1",
            "strata-replay.1",
            "strata-export.1",
        ] {
            assert!(names.iter().any(|x| x == n), "{n} not in {names:?}");
        }
        let batch = std::fs::read_to_string(dir.path().join("strata-batch.1")).unwrap();
        assert!(batch.contains("\\-\\-count"));
        let done = write_completions(dir.path()).unwrap();
        assert_eq!(done.len(), 3);
        for f in ["strata.bash", "_strata", "strata.fish"] {
            let len = std::fs::metadata(dir.path().join(f)).unwrap().len();
            assert!(len > 1000, "{f}: {len} bytes");
        }
    }
}

//! `cargo run --example gen-assets -- DIR`: the man pages (DIR/man) and
//! shell completions (DIR/completions) of strata, from its clap
//! definitions; scripts/release packages them. An example rather than a
//! subcommand of strata: the shipped binary needs neither generator, and
//! this runs on the build host whatever the release's target is.

use std::path::PathBuf;
use std::process::ExitCode;
use strata::cli::assets;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: gen-assets DIR");
        return ExitCode::from(2);
    };
    let man = dir.join("man");
    let completions = dir.join("completions");
    let written = std::fs::create_dir_all(&man)
        .and_then(|()| std::fs::create_dir_all(&completions))
        .and_then(|()| assets::write_man_pages(&man))
        .and_then(|mut pages| {
            pages.extend(assets::write_completions(&completions)?);
            Ok(pages)
        });
    match written {
        Ok(files) => {
            for f in files {
                println!("{}", f.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen-assets: {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}

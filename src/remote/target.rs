//! Which hosts to reach: `--cell` and `--node [user@]host[:port]`, and
//! group files in the format dcli's `-g` takes (one host per line, `#`
//! comments).

use std::path::{Path, PathBuf};

/// One host (a storage cell or a database node) and how to log in to it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SshTarget {
    /// What the panels call the host.
    pub label: String,
    /// A name or an address, as known_hosts knows it (IPv6 without brackets).
    pub host: String,
    pub port: u16,
    pub user: String,
    /// An identity file tried after the agent's keys, instead of the
    /// default ~/.ssh/id_* files.
    pub identity: Option<PathBuf>,
}

/// Reads `[user@]host[:port]` or `[user@][v6addr]:port` (a bare IPv6
/// address is taken whole, with port 22).
pub fn parse_ssh_spec(spec: &str, default_user: &str) -> Result<SshTarget, String> {
    let spec = spec.trim();
    let (user, hostport) = match spec.split_once('@') {
        Some((u, h)) => (u, h),
        None => (default_user, spec),
    };
    if user.is_empty() {
        return Err(format!("{spec:?}: empty user name before '@'"));
    }
    if user.contains(|c: char| c.is_whitespace() || c == ':') {
        return Err(format!("{spec:?}: {user:?} is not a user name"));
    }
    let (host, port) = if let Some(rest) = hostport.strip_prefix('[') {
        let Some((host, after)) = rest.split_once(']') else {
            return Err(format!("{spec:?}: '[' without its ']'"));
        };
        match after {
            "" => (host, None),
            _ => match after.strip_prefix(':') {
                Some(p) => (host, Some(p)),
                None => return Err(format!("{spec:?}: expected ':PORT' after ']'")),
            },
        }
    } else if hostport.matches(':').count() > 1 {
        // An IPv6 address without brackets cannot carry a port.
        (hostport, None)
    } else {
        match hostport.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    if host.is_empty() {
        return Err(format!("{spec:?}: no host name"));
    }
    if host.contains(|c: char| c.is_whitespace() || "@/[]#,".contains(c)) {
        return Err(format!("{spec:?}: {host:?} is not a host name or address"));
    }
    let port = match port {
        None => 22,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => n,
            _ => return Err(format!("{spec:?}: port {p:?} is not 1 to 65535")),
        },
    };
    let label = match (port, host.contains(':')) {
        (22, _) => host.to_string(),
        (_, true) => format!("[{host}]:{port}"),
        (_, false) => format!("{host}:{port}"),
    };
    Ok(SshTarget {
        label,
        host: host.to_string(),
        port,
        user: user.to_string(),
        identity: None,
    })
}

/// Reads a group file: one cell per line, `#` starts a comment, blank
/// lines are skipped. A bad or repeated line is reported as `line N: ...`
/// and the others are kept.
pub fn parse_host_group(text: &str, default_user: &str) -> (Vec<SshTarget>, Vec<String>) {
    let mut cells: Vec<SshTarget> = Vec::new();
    let mut first_line: Vec<usize> = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let spec = line.split('#').next().unwrap_or("").trim();
        if spec.is_empty() {
            continue;
        }
        match parse_ssh_spec(spec, default_user) {
            Ok(t) => {
                let seen = cells
                    .iter()
                    .position(|c| (&c.user, &c.host, c.port) == (&t.user, &t.host, t.port));
                match seen {
                    Some(j) => errors.push(format!(
                        "line {}: {} is already listed on line {}",
                        i + 1,
                        t.label,
                        first_line[j]
                    )),
                    None => {
                        cells.push(t);
                        first_line.push(i + 1);
                    }
                }
            }
            Err(e) => errors.push(format!("line {}: {e}", i + 1)),
        }
    }
    (cells, errors)
}

/// Where the cells come from, as the user gave them.
pub struct Given<'a> {
    /// `--cell` arguments.
    pub specs: &'a [String],
    /// `--cell-group` files: the name and the text, or why it could not
    /// be read.
    pub groups: &'a [(String, Result<String, String>)],
    /// `[[cell]]` entries of the config, already targets.
    pub config: Vec<SshTarget>,
    pub default_user: &'a str,
    /// `--cell-identity`, for the cells of `specs` and `groups`.
    pub identity: Option<&'a Path>,
}

/// Every cell once, in the order given (command line, group files, config),
/// and a message for each one that cannot be used; a cell listed twice is
/// reached once.
pub fn assemble(given: Given) -> (Vec<SshTarget>, Vec<String>) {
    let mut cells: Vec<SshTarget> = Vec::new();
    let mut problems = Vec::new();
    let with_identity = |mut t: SshTarget| {
        if let Some(i) = given.identity {
            t.identity = Some(i.to_path_buf());
        }
        t
    };
    let mut from_args = Vec::new();
    for spec in given.specs {
        match parse_ssh_spec(spec, given.default_user) {
            Ok(t) => from_args.push(with_identity(t)),
            Err(e) => problems.push(format!("--cell {e}")),
        }
    }
    for (name, text) in given.groups {
        match text {
            Ok(text) => {
                let (ts, errs) = parse_host_group(text, given.default_user);
                from_args.extend(ts.into_iter().map(with_identity));
                problems.extend(errs.into_iter().map(|e| format!("{name} {e}")));
            }
            Err(e) => problems.push(format!("--cell-group {name}: {e}")),
        }
    }
    for t in from_args.into_iter().chain(given.config) {
        let same = |c: &SshTarget| (&c.user, &c.host, c.port) == (&t.user, &t.host, t.port);
        if !cells.iter().any(same) {
            cells.push(t);
        }
    }
    (cells, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_from_every_place_once_and_each_bad_one_named() {
        let groups = [
            (
                "cells.txt".to_string(),
                Ok("exa1cel02\n# spare\nceladmin@exa1cel01\nbad host\n".to_string()),
            ),
            ("gone.txt".to_string(), Err("No such file".to_string())),
        ];
        let config = vec![SshTarget {
            label: "cel03".into(),
            host: "exa1cel03".into(),
            port: 22,
            user: "root".into(),
            identity: Some("/k/cfg".into()),
        }];
        let (cells, problems) = assemble(Given {
            specs: &["exa1cel01".into(), "x:0".into(), "exa1cel02".into()],
            groups: &groups,
            config,
            default_user: "celladmin",
            identity: Some(Path::new("/k/cli")),
        });
        let got: Vec<(&str, &str, Option<&Path>)> = cells
            .iter()
            .map(|c| (c.label.as_str(), c.user.as_str(), c.identity.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("exa1cel01", "celladmin", Some(Path::new("/k/cli"))),
                ("exa1cel02", "celladmin", Some(Path::new("/k/cli"))),
                ("exa1cel01", "celadmin", Some(Path::new("/k/cli"))),
                ("cel03", "root", Some(Path::new("/k/cfg"))),
            ]
        );
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].starts_with("--cell \"x:0\""), "{problems:?}");
        assert!(problems[1].starts_with("cells.txt line 4:"), "{problems:?}");
        assert_eq!(problems[2], "--cell-group gone.txt: No such file");
    }

    #[test]
    fn the_forms_a_user_types() {
        // spec, label, host, port, user
        for (spec, label, host, port, user) in [
            ("dm01cel01", "dm01cel01", "dm01cel01", 22, "celladmin"),
            (
                "root@dm01cel02:2222",
                "dm01cel02:2222",
                "dm01cel02",
                2222,
                "root",
            ),
            ("10.0.0.7:22", "10.0.0.7", "10.0.0.7", 22, "celladmin"),
            (
                "[fe80::1]:2200",
                "[fe80::1]:2200",
                "fe80::1",
                2200,
                "celladmin",
            ),
            ("fe80::1", "fe80::1", "fe80::1", 22, "celladmin"),
            ("u@[::1]", "::1", "::1", 22, "u"),
        ] {
            let t = parse_ssh_spec(spec, "celladmin").unwrap();
            assert_eq!(
                (t.label.as_str(), t.host.as_str(), t.port, t.user.as_str()),
                (label, host, port, user),
                "{spec}"
            );
            assert_eq!(t.identity, None);
        }
    }

    #[test]
    fn bad_specs_say_why() {
        for (bad, why) in [
            ("", "no host"),
            ("@cel01", "empty user"),
            ("cel01:0", "port"),
            ("cel01:70000", "port"),
            ("cel01:ssh", "port"),
            ("[::1", "without its"),
            ("[::1]2222", "':PORT'"),
            ("a@b@c", "not a host"),
            ("cel 01", "not a host"),
        ] {
            let e = parse_ssh_spec(bad, "u").unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn a_group_file_like_dcli_takes() {
        let text = "# cells of the first rack\ndm01cel01\n\n  dm01cel02   # spare\nroot@dm01cel03:2222\ndm01cel01\nbad host\n";
        let (cells, errors) = parse_host_group(text, "celladmin");
        let labels: Vec<&str> = cells.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["dm01cel01", "dm01cel02", "dm01cel03:2222"]);
        assert_eq!(cells[2].user, "root");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0], "line 6: dm01cel01 is already listed on line 2");
        assert!(errors[1].starts_with("line 7: "), "{errors:?}");
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn any_text_never_panics(text in "\\PC{0,200}") {
                let _ = parse_ssh_spec(&text, "u");
                let (cells, errors) = parse_host_group(&text, "u");
                prop_assert!(cells.len() + errors.len() <= text.lines().count());
            }

            #[test]
            fn a_spec_reads_back_from_its_parts(
                user in "[a-z][a-z0-9_]{0,8}",
                host in "[a-z][a-z0-9.-]{0,20}",
                port in 1u16..,
            ) {
                let t = parse_ssh_spec(&format!("{user}@{host}:{port}"), "x").unwrap();
                prop_assert_eq!((t.user.as_str(), t.host.as_str(), t.port), (user.as_str(), host.as_str(), port));
                let label = if port == 22 { host.clone() } else { format!("{host}:{port}") };
                prop_assert_eq!(t.label, label);
            }
        }
    }
}

//! Which hosts to reach: `--cell` and `--node [user@]host[:port]`, and
//! group files in the format dcli's `-g` takes (one host per line, `#`
//! comments).

use crate::core::text::is_unsafe;
use std::path::{Path, PathBuf};

/// One host (a storage cell or a database node) and how to log in to it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostTarget {
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

/// Whether `user` may be a login name: no blank, no ':' (the port's) and
/// nothing that would act on a terminal when a message names it.
pub fn user_name_ok(user: &str) -> bool {
    !user.is_empty() && !user.contains(|c: char| c.is_whitespace() || c == ':' || is_unsafe(c))
}

/// Whether `host` may be a host name or an address (IPv6 without its
/// brackets): none of what separates the parts of a spec or a group
/// line, and nothing that would act on a terminal.
pub fn host_name_ok(host: &str) -> bool {
    !host.is_empty()
        && !host.contains(|c: char| c.is_whitespace() || "@/[]#,".contains(c) || is_unsafe(c))
}

/// Reads `[user@]host[:port]` or `[user@][v6addr]:port` (a bare IPv6
/// address is taken whole, with port 22).
pub fn parse_ssh_spec(spec: &str, default_user: &str) -> Result<HostTarget, String> {
    let spec = spec.trim();
    let (user, hostport) = match spec.split_once('@') {
        Some((u, h)) => (u, h),
        None => (default_user, spec),
    };
    if user.is_empty() {
        return Err(format!("{spec:?}: empty user name before '@'"));
    }
    if !user_name_ok(user) {
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
    if !host_name_ok(host) {
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
    Ok(HostTarget {
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
pub fn parse_host_group(text: &str, default_user: &str) -> (Vec<HostTarget>, Vec<String>) {
    read_group(
        text,
        |spec| parse_ssh_spec(spec, default_user),
        |a, b| (&a.user, &a.host, a.port) == (&b.user, &b.host, b.port),
        |t| &t.label,
    )
}

/// A group file's lines read by `parse`: what each good line gives, once
/// (`same` tells a repeat, reported with `name`), and `line N: ...` for
/// each bad or repeated one.
fn read_group<T>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, String>,
    same: impl Fn(&T, &T) -> bool,
    name: impl Fn(&T) -> &str,
) -> (Vec<T>, Vec<String>) {
    let mut items: Vec<T> = Vec::new();
    let mut first_line: Vec<usize> = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let spec = line.split('#').next().unwrap_or("").trim();
        if spec.is_empty() {
            continue;
        }
        match parse(spec) {
            Ok(t) => match items.iter().position(|c| same(c, &t)) {
                Some(j) => errors.push(format!(
                    "line {}: {} is already listed on line {}",
                    i + 1,
                    name(&t),
                    first_line[j]
                )),
                None => {
                    items.push(t);
                    first_line.push(i + 1);
                }
            },
            Err(e) => errors.push(format!("line {}: {e}", i + 1)),
        }
    }
    (items, errors)
}

/// Where the cells (or, with `T = NodeTarget`, the nodes) come from, as
/// the user gave them.
pub struct Given<'a, T = HostTarget> {
    /// `--cell` (`--node`) arguments.
    pub specs: &'a [String],
    /// `--cell-group` (`--node-group`) files: the name and the text, or
    /// why it could not be read.
    pub groups: &'a [(String, Result<String, String>)],
    /// `[[cell]]` (`[[node]]`) entries of the config, already targets.
    pub config: Vec<T>,
    pub default_user: &'a str,
    /// `--cell-identity` (`--node-identity`), for the targets of `specs`
    /// and `groups`.
    pub identity: Option<&'a Path>,
}

/// Targets read, and why each one that cannot be used is left out.
type Read<T> = (Vec<T>, Vec<String>);

impl<T> Given<'_, T> {
    /// The targets of the command line, in order (the arguments, then the
    /// group files'), each with the identity given for them, and why each
    /// that cannot be used is left out; the flags are `--{what}` and
    /// `--{what}-group`.
    fn command_line(
        &self,
        what: &str,
        spec: fn(&str, &str) -> Result<T, String>,
        group: fn(&str, &str) -> Read<T>,
        with_identity: impl Fn(T) -> T,
    ) -> Read<T> {
        let mut from_args = Vec::new();
        let mut problems = Vec::new();
        for s in self.specs {
            match spec(s, self.default_user) {
                Ok(t) => from_args.push(with_identity(t)),
                Err(e) => problems.push(format!("--{what} {e}")),
            }
        }
        for (name, text) in self.groups {
            match text {
                Ok(text) => {
                    let (ts, errs) = group(text, self.default_user);
                    if ts.is_empty() && errs.is_empty() {
                        problems.push(format!("--{what}-group {name}: names no {what}"));
                    }
                    from_args.extend(ts.into_iter().map(&with_identity));
                    problems.extend(errs.into_iter().map(|e| format!("{name} {e}")));
                }
                Err(e) => problems.push(format!("--{what}-group {name}: {e}")),
            }
        }
        (from_args, problems)
    }
}

/// Every cell once, in the order given (command line, group files, config),
/// and a message for each one that cannot be used; a cell listed twice is
/// reached once.
pub fn assemble(given: Given) -> (Vec<HostTarget>, Vec<String>) {
    let identity = given.identity;
    let with_identity = |mut t: HostTarget| {
        if let Some(i) = identity {
            t.identity = Some(i.to_path_buf());
        }
        t
    };
    let (from_args, problems) =
        given.command_line("cell", parse_ssh_spec, parse_host_group, with_identity);
    let mut cells: Vec<HostTarget> = Vec::new();
    for t in from_args.into_iter().chain(given.config) {
        let same = |c: &HostTarget| (&c.user, &c.host, c.port) == (&t.user, &t.host, t.port);
        if !cells.iter().any(same) {
            cells.push(t);
        }
    }
    (cells, problems)
}

/// The name `--node` and `[[node]]` give the host strata runs on.
pub const LOCAL_NODE: &str = "local";

/// One database node: the host strata runs on, or one reached over a
/// transport (SSH today) as a cell is. Its label names it everywhere (labels are keys): the
/// entry's label, else the host as the user wrote it, never a name the
/// node reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum NodeTarget {
    /// The local host, read without SSH.
    Local { label: String },
    /// Recordings name it `Ssh`, as they did before transports were
    /// neutral: the name stays, so that old and new files read alike.
    #[serde(rename = "Ssh")]
    Remote(HostTarget),
}

impl NodeTarget {
    /// What the node is called.
    pub fn label(&self) -> &str {
        match self {
            NodeTarget::Local { label } => label,
            NodeTarget::Remote(t) => &t.label,
        }
    }

    /// The same node: both the local host, or the same host and port
    /// (whoever logs in).
    pub fn same_node(&self, other: &NodeTarget) -> bool {
        match (self, other) {
            (NodeTarget::Local { .. }, NodeTarget::Local { .. }) => true,
            (NodeTarget::Remote(a), NodeTarget::Remote(b)) => {
                (&a.host, a.port) == (&b.host, b.port)
            }
            _ => false,
        }
    }

    /// Where the node is, whatever its label: for messages.
    fn place(&self) -> String {
        match self {
            NodeTarget::Local { .. } => "the local host".to_string(),
            NodeTarget::Remote(t) => match (t.port, t.host.contains(':')) {
                (22, _) => t.host.clone(),
                (p, true) => format!("[{}]:{p}", t.host),
                (p, false) => format!("{}:{p}", t.host),
            },
        }
    }
}

/// Reads `local` (the local host) or a cell's `[user@]host[:port]`.
pub fn parse_node_spec(spec: &str, default_user: &str) -> Result<NodeTarget, String> {
    if spec.trim() == LOCAL_NODE {
        return Ok(NodeTarget::Local {
            label: LOCAL_NODE.to_string(),
        });
    }
    let t = parse_ssh_spec(spec, default_user)?;
    if t.host == LOCAL_NODE {
        return Err(format!(
            "{:?}: local is the local host, read without SSH: it takes no user or port",
            spec.trim()
        ));
    }
    Ok(NodeTarget::Remote(t))
}

/// Reads a node group file, as `parse_host_group` a cell one; `local` may
/// be a line. A node listed twice (same host and port) is reported at its
/// second line.
pub fn parse_node_group(text: &str, default_user: &str) -> (Vec<NodeTarget>, Vec<String>) {
    read_group(
        text,
        |spec| parse_node_spec(spec, default_user),
        NodeTarget::same_node,
        NodeTarget::label,
    )
}

/// Every node once, in the order given (`--node`, `--node-group` files,
/// config): a node listed again (same host and port) is dropped silently,
/// a different node with a label already taken is left out with a message
/// naming both; and a message for each spec or line that cannot be used.
pub fn assemble_nodes(given: Given<'_, NodeTarget>) -> (Vec<NodeTarget>, Vec<String>) {
    let identity = given.identity;
    let with_identity = |t: NodeTarget| match (t, identity) {
        (NodeTarget::Remote(mut c), Some(i)) => {
            c.identity = Some(i.to_path_buf());
            NodeTarget::Remote(c)
        }
        (t, _) => t,
    };
    let (from_args, mut problems) =
        given.command_line("node", parse_node_spec, parse_node_group, with_identity);
    let mut nodes: Vec<NodeTarget> = Vec::new();
    for t in from_args.into_iter().chain(given.config) {
        if nodes.iter().any(|n| n.same_node(&t)) {
            continue;
        }
        match nodes.iter().find(|n| n.label() == t.label()) {
            Some(n) => problems.push(format!(
                "nodes {} and {} are both labelled {:?}, and a label names one node: {} is left out",
                n.place(),
                t.place(),
                t.label(),
                t.place()
            )),
            None => nodes.push(t),
        }
    }
    (nodes, problems)
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
        let config = vec![HostTarget {
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
    fn a_spec_or_group_line_with_escapes_is_refused_and_named_printably() {
        for bad in [
            "db\u{1b}]0;PWN\u{7}01",
            "db\u{0}01",
            "db01\u{8}\u{7f}",
            "\u{9b}31mdb01",
            "cel\u{202e}10",
            "or\u{1b}[2Jacle@db01",
        ] {
            let e = parse_node_spec(bad, "u").unwrap_err();
            assert!(!e.contains(crate::core::text::is_unsafe), "{e:?}");
            let (nodes, errors) = parse_node_group(bad, "u");
            assert!(nodes.is_empty(), "{bad:?}");
            assert!(
                !errors[0].contains(crate::core::text::is_unsafe),
                "{errors:?}"
            );
        }
    }

    #[test]
    fn an_empty_group_file_is_a_problem() {
        let groups = [
            ("empty.txt".to_string(), Ok(String::new())),
            ("comments.txt".to_string(), Ok("# none yet\n\n".to_string())),
        ];
        let (nodes, problems) = assemble_nodes(Given {
            specs: &[],
            groups: &groups,
            config: Vec::new(),
            default_user: "oracle",
            identity: None,
        });
        assert!(nodes.is_empty());
        assert_eq!(
            problems,
            [
                "--node-group empty.txt: names no node",
                "--node-group comments.txt: names no node"
            ]
        );
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

    fn ssh(label: &str, host: &str, port: u16, user: &str) -> NodeTarget {
        NodeTarget::Remote(HostTarget {
            label: label.into(),
            host: host.into(),
            port,
            user: user.into(),
            identity: None,
        })
    }

    #[test]
    fn node_specs_local_and_ssh() {
        for spec in ["local", "  local "] {
            let t = parse_node_spec(spec, "oracle").unwrap();
            assert_eq!(
                t,
                NodeTarget::Local {
                    label: "local".into()
                }
            );
            assert_eq!(t.label(), "local");
        }
        let t = parse_node_spec("grid@exa1db02:2222", "oracle").unwrap();
        assert_eq!(t, ssh("exa1db02:2222", "exa1db02", 2222, "grid"));
        assert_eq!(t.label(), "exa1db02:2222");
        let t = parse_node_spec("localhost", "oracle").unwrap();
        assert_eq!(t, ssh("localhost", "localhost", 22, "oracle"));
        for (bad, why) in [
            ("root@local", "local is the local host"),
            ("local:2222", "local is the local host"),
            ("db 01", "not a host"),
            ("db01:0", "port"),
            ("", "no host"),
        ] {
            let e = parse_node_spec(bad, "oracle").unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn a_node_group_file_with_comments_blank_and_bad_lines() {
        let text = "# the first rack's database servers\n\nexa1db01\n  local   # this one\n\ngrid@exa1db02:2222\noracle@exa1db01 # again, another user\nlocal\ndb 03\nexa1db04:x\n";
        let (nodes, errors) = parse_node_group(text, "oracle");
        assert_eq!(
            nodes,
            [
                ssh("exa1db01", "exa1db01", 22, "oracle"),
                NodeTarget::Local {
                    label: "local".into()
                },
                ssh("exa1db02:2222", "exa1db02", 2222, "grid"),
            ]
        );
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert_eq!(errors[0], "line 7: exa1db01 is already listed on line 3");
        assert_eq!(errors[1], "line 8: local is already listed on line 4");
        assert!(errors[2].starts_with("line 9: \"db 03\""), "{errors:?}");
        assert!(
            errors[3].starts_with("line 10: \"exa1db04:x\": port"),
            "{errors:?}"
        );
    }

    #[test]
    fn nodes_from_every_place_once_and_a_label_clash_names_both() {
        let groups = [
            (
                "db.txt".to_string(),
                Ok("exa1db02\nlocal\ngrid@exa1db01\nbad host\n".to_string()),
            ),
            ("gone.txt".to_string(), Err("No such file".to_string())),
        ];
        let from_config = |label: &str, host: &str, port: u16| match ssh(label, host, port, "root")
        {
            NodeTarget::Remote(mut c) => {
                c.identity = Some("/k/cfg".into());
                NodeTarget::Remote(c)
            }
            local => local,
        };
        let config = vec![
            from_config("db3", "exa1db03", 22),
            // exa1db02 again: listed once, as the command line had it.
            from_config("second", "exa1db02", 22),
            // Another node called exa1db01: left out, both named.
            from_config("exa1db01", "10.0.0.9", 2200),
            NodeTarget::Local {
                label: "here".into(),
            },
        ];
        let (nodes, problems) = assemble_nodes(Given {
            specs: &["exa1db01".into(), "local:1".into(), "exa1db02:22".into()],
            groups: &groups,
            config,
            default_user: "oracle",
            identity: Some(Path::new("/k/cli")),
        });
        let got: Vec<(&str, Option<&Path>)> = nodes
            .iter()
            .map(|n| match n {
                NodeTarget::Local { label } => (label.as_str(), None),
                NodeTarget::Remote(c) => (c.label.as_str(), c.identity.as_deref()),
            })
            .collect();
        assert_eq!(
            got,
            [
                ("exa1db01", Some(Path::new("/k/cli"))),
                ("exa1db02", Some(Path::new("/k/cli"))),
                ("local", None),
                ("db3", Some(Path::new("/k/cfg"))),
            ]
        );
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(
            problems[0].starts_with("--node \"local:1\": local is the local host"),
            "{problems:?}"
        );
        assert!(problems[1].starts_with("db.txt line 4:"), "{problems:?}");
        assert_eq!(problems[2], "--node-group gone.txt: No such file");
        assert_eq!(
            problems[3],
            "nodes exa1db01 and 10.0.0.9:2200 are both labelled \"exa1db01\", and a label names one node: 10.0.0.9:2200 is left out"
        );
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
                let _ = parse_node_spec(&text, "u");
                let (nodes, errors) = parse_node_group(&text, "u");
                prop_assert!(nodes.len() + errors.len() <= text.lines().count());
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

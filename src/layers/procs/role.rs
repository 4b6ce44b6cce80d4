//! Which Oracle role a process plays, from its name: pure, and the rules
//! are docs/process-roles.md's, which cites where Oracle documents them.
//!
//! Oracle names a background process `ora_<name>_<SID>` in its first
//! argument (what `ps -f` shows; `exec -a` sets the same), and a
//! dedicated server (a session's foreground) `oracle<SID> (LOCAL=NO)` when
//! it came through the listener, `oracle<SID>
//! (DESCRIPTION=(LOCAL=YES)(ADDRESS=(PROTOCOL=beq)))` when bequeathed
//! (SQL*Plus or RMAN on the same host). An ASM instance's are
//! `asm_<name>_+ASM<n>` and `oracle+ASM<n> (…)`. Grid Infrastructure's
//! daemons are executables of their own (`ocssd.bin`, `crsd.bin`...).

/// A process's part in the database, or outside it.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Role {
    /// DBWn and BWnn: the database writers.
    DbWriter,
    /// LGWR and its workers LGnn.
    LogWriter,
    /// ARCn.
    Archiver,
    /// CKPT.
    Checkpoint,
    /// Pnnn (and PZnn): parallel execution servers.
    Parallel,
    /// A dedicated server: one session's foreground.
    Session,
    /// The `rman` client.
    Rman,
    /// Any other background process, by its name (`ora_mmon_…` → mmon).
    Background(String),
    /// An ASM instance's processes, its foregrounds included.
    Asm,
    /// Grid Infrastructure's daemons and agents.
    Grid,
    /// The Oracle Net listener.
    Listener,
    /// Anything else: its command name.
    Command(String),
}

impl Role {
    /// As the roles panel, batch and the metrics' `role` label name it.
    pub fn label(&self) -> String {
        match self {
            Role::DbWriter => "DBWR".into(),
            Role::LogWriter => "LGWR".into(),
            Role::Archiver => "ARCH".into(),
            Role::Checkpoint => "CKPT".into(),
            Role::Parallel => "PX".into(),
            Role::Session => "session".into(),
            Role::Rman => "rman".into(),
            Role::Background(n) => format!("bg:{n}"),
            Role::Asm => "ASM".into(),
            Role::Grid => "grid".into(),
            Role::Listener => "listener".into(),
            // A command named as a role is or a role's row ("DBWR PROD1",
            // "bg:mmon") is marked: a process names itself, and must not
            // pass for Oracle's.
            Role::Command(c) if Self::poses(c) => format!("cmd:{c}"),
            Role::Command(c) => c.clone(),
        }
    }

    /// Whether a command name reads as a role's label or row.
    fn poses(c: &str) -> bool {
        const LABELS: [&str; 10] = [
            "DBWR", "LGWR", "ARCH", "CKPT", "PX", "session", "rman", "ASM", "grid", "listener",
        ];
        let first = c.split(' ').next().unwrap_or(c);
        LABELS.contains(&first)
            || c.starts_with("bg:")
            || c.starts_with("cmd:")
            || c == super::table::OTHER
    }

    /// Whether the role belongs to a database or ASM instance.
    pub fn is_oracle(&self) -> bool {
        !matches!(self, Role::Command(_) | Role::Grid | Role::Listener)
    }
}

/// Grid Infrastructure's executables (`$GRID_HOME/bin`), as comm shows
/// them: 15 bytes at most, so `orarootagent.bin` is `orarootagent.bi`.
const GRID: [&str; 16] = [
    "ohasd.bin",
    "ocssd.bin",
    "crsd.bin",
    "evmd.bin",
    "gipcd.bin",
    "gpnpd.bin",
    "mdnsd.bin",
    "octssd.bin",
    "osysmond.bin",
    "ologgerd",
    "oraagent.bin",
    "orarootagent.bi",
    "cssdagent",
    "cssdmonitor",
    "evmlogger.bin",
    "ons",
];

/// The role and the instance (SID) of a process whose first argument is
/// `argv0` and command name `comm`.
pub fn classify(argv0: &str, comm: &str) -> (Role, Option<String>) {
    let name = if argv0.is_empty() { comm } else { argv0 };
    if let Some(rest) = name.strip_prefix("ora_")
        && let Some((proc_name, sid)) = rest.split_once('_')
        && !proc_name.is_empty()
        && !sid.is_empty()
        && !sid.contains(' ')
    {
        return (background(proc_name), Some(sid.to_string()));
    }
    if let Some(rest) = name.strip_prefix("asm_")
        && let Some((p, sid)) = rest.split_once('_')
        && !p.is_empty()
        && !sid.is_empty()
    {
        return (Role::Asm, Some(sid.to_string()));
    }
    // A dedicated server: `oracle<SID> (...)`; the `oracle` executable
    // with no SID in its name is a process Oracle started under its own
    // name (its comm), such as a server before it renamed itself.
    if let Some(rest) = name.strip_prefix("oracle")
        && let Some((sid, how)) = rest.split_once(' ')
        && !sid.is_empty()
        && how.starts_with('(')
    {
        let role = if sid.starts_with("+ASM") || sid.starts_with("+APX") {
            Role::Asm
        } else {
            Role::Session
        };
        return (role, Some(sid.to_string()));
    }
    let base = name.rsplit('/').next().unwrap_or(name);
    let base = base.split(' ').next().unwrap_or(base);
    if base == "rman" {
        return (Role::Rman, None);
    }
    if base == "tnslsnr" {
        return (Role::Listener, None);
    }
    if GRID.contains(&comm) || GRID.contains(&base) {
        return (Role::Grid, None);
    }
    let command = if comm.is_empty() { base } else { comm };
    (Role::Command(command.to_string()), None)
}

fn background(name: &str) -> Role {
    // `prefix` then `len` characters, of which the last `digits` are
    // digits and the rest letters or digits.
    let numbered = |prefix: &str, len: usize, digits: usize| {
        name.strip_prefix(prefix).is_some_and(|n| {
            n.len() == len
                && n.chars().enumerate().all(|(i, c)| {
                    if i + digits >= len {
                        c.is_ascii_digit()
                    } else {
                        c.is_ascii_alphanumeric()
                    }
                })
        })
    };
    match name {
        "lgwr" => Role::LogWriter,
        "ckpt" => Role::Checkpoint,
        // DBW0-9 and DBWa-z, then BW36-BW99 (Oracle Database Reference,
        // "Background Processes": DBWn).
        _ if numbered("dbw", 1, 0) || numbered("bw", 2, 2) => Role::DbWriter,
        // LG00-LG99: the log writer's workers (12c on).
        _ if numbered("lg", 2, 2) => Role::LogWriter,
        // ARC0-9, ARCa-t (ARCn).
        _ if numbered("arc", 1, 0) => Role::Archiver,
        // P000-P999, then PA00-PZ99: parallel execution servers (Pnnn);
        // pmon and psp0 are not.
        _ if numbered("p", 3, 2) => Role::Parallel,
        _ => Role::Background(name.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(argv0: &str, comm: &str) -> (String, Option<String>) {
        let (r, sid) = classify(argv0, comm);
        (r.label(), sid)
    }

    #[test]
    fn background_processes_by_their_documented_names() {
        let cases = [
            ("ora_dbw0_PROD1", "DBWR", "PROD1"),
            ("ora_dbwa_PROD1", "DBWR", "PROD1"),
            ("ora_bw36_PROD1", "DBWR", "PROD1"),
            ("ora_lgwr_PROD2", "LGWR", "PROD2"),
            ("ora_lg00_PROD2", "LGWR", "PROD2"),
            ("ora_arc3_PROD1", "ARCH", "PROD1"),
            ("ora_ckpt_PROD1", "CKPT", "PROD1"),
            ("ora_p000_PROD1", "PX", "PROD1"),
            ("ora_pz99_PROD1", "PX", "PROD1"),
            ("ora_mmon_PROD1", "bg:mmon", "PROD1"),
            ("ora_psp0_PROD1", "bg:psp0", "PROD1"),
            ("ora_lgxx_PROD1", "bg:lgxx", "PROD1"),
            ("ora_pmon_CDB_A1", "bg:pmon", "CDB_A1"),
            ("asm_rbal_+ASM1", "ASM", "+ASM1"),
        ];
        for (argv0, label, sid) in cases {
            assert_eq!(
                role(argv0, "oracle"),
                (label.to_string(), Some(sid.to_string())),
                "{argv0}"
            );
        }
    }

    #[test]
    fn foregrounds_are_sessions_of_their_instance() {
        assert_eq!(
            role("oraclePROD1 (LOCAL=NO)", "oracle"),
            ("session".into(), Some("PROD1".into()))
        );
        assert_eq!(
            role(
                "oraclePROD1 (DESCRIPTION=(LOCAL=YES)(ADDRESS=(PROTOCOL=beq)))",
                "oracle"
            ),
            ("session".into(), Some("PROD1".into()))
        );
        assert_eq!(
            role("oracle+ASM1 (LOCAL=NO)", "oracle"),
            ("ASM".into(), Some("+ASM1".into()))
        );
    }

    #[test]
    fn everything_else_by_its_command() {
        assert_eq!(
            role("/u01/app/19.0.0/grid/bin/ocssd.bin", "ocssd.bin"),
            ("grid".into(), None)
        );
        assert_eq!(
            role("/u01/app/oracle/bin/tnslsnr LISTENER -inherit", "tnslsnr"),
            ("listener".into(), None)
        );
        assert_eq!(role("rman", "rman"), ("rman".into(), None));
        assert_eq!(role("dd", "dd"), ("dd".into(), None));
        // A kernel thread has no arguments.
        assert_eq!(role("", "kworker/u8:2"), ("kworker/u8:2".into(), None));
        // A command may not pass for a role, or a role's row.
        assert_eq!(role("", "DBWR PROD1"), ("cmd:DBWR PROD1".into(), None));
        assert_eq!(role("", "DBWR"), ("cmd:DBWR".into(), None));
        assert_eq!(role("", "bg:mmon"), ("cmd:bg:mmon".into(), None));
        // Names that only look like Oracle's.
        assert_eq!(role("ora_", "x"), ("x".into(), None));
        assert_eq!(role("oracle", "oracle"), ("oracle".into(), None));
        assert_eq!(role("ora_dbw0_", "bash"), ("bash".into(), None));
    }
}

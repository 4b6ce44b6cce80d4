//! `strata batch cells`: per interval, a line per storage cell (its
//! connection state, SSH round trip, DISK and FLASH figures over the
//! cell's own clock) and a line over the cells whose figures are current,
//! with the share of reads from flash, of writes to flash and the IOPS per
//! hard disk.
//!
//! The cells stream on their own tasks at their own moments, as on the
//! screen, into the app's [`Cells`]; this loop prints what that state holds
//! once per interval. The sync `run_report` loop cannot wait on them, so
//! the cells get a small current-thread loop of their own.

use super::{csv_field, json_str, printable};
use crate::app::cells::Cells;
use crate::core::boundary::FirstInterval;
use crate::core::clock::now_ms;
use crate::format::{self, UNKNOWN};
use crate::layers::cells::cell_shares::{SHARE_COLS, Shares};
use crate::layers::cells::model::{CellGroups, GROUP_COLS, GroupFigures};
use crate::layers::cells::source::{CellEvent, run_cell};
use crate::layers::report::Format;
use crate::layers::report::{figure, json_opt};
use crate::link::target::HostTarget;
use crate::remote::SshOptions;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

/// What `strata batch cells` says, with exit status 2, when no cell is
/// given.
pub const NO_CELLS: &str = "batch cells: no cells to sample: name them with --cell [USER@]HOST[:PORT], --cell-group FILE or [[cell]] entries in the config";

/// Samples of disk history a cell keeps: batch shows only the latest.
const HISTORY: usize = 2;

/// One line of a report: a cell, or all of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The cell's label, or "all".
    pub cell: String,
    /// `None` on the all-cell line.
    pub state: Option<String>,
    /// Why a cell is refused or unreachable, as the transport said it.
    pub reason: Option<String>,
    pub rtt_ms: Option<f64>,
    /// The interval of the cell's clock the figures cover.
    pub interval_s: Option<f64>,
    /// Current figures only: none for a cell that is stale or not live.
    pub groups: Option<CellGroups>,
    pub shares: Shares,
    /// Per cell: whether the all-cell line includes it. On the all-cell
    /// line: (cells counted, cells).
    pub counted: Counted,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Counted {
    Cell(bool),
    All { counted: usize, cells: usize },
}

/// The lines of the report at `now_ms`: the cells in the order given, then
/// all of them.
pub fn lines(cells: &Cells, now_ms: i64) -> Vec<Line> {
    let itv = cells.interval.ms();
    let mut out: Vec<Line> = cells
        .list
        .iter()
        .map(|c| {
            let state = c.link.state(now_ms, itv);
            let groups = c.current_groups(now_ms, itv).copied();
            Line {
                cell: c.link.target.label.clone(),
                state: Some(state.label()),
                reason: state.reason(),
                rtt_ms: c.link.current_rtt().map(|d| d.as_secs_f64() * 1000.0),
                interval_s: groups
                    .and(c.disks.latest.as_ref())
                    .and_then(|t| t.itv_cs)
                    .map(|cs| cs as f64 / 100.0),
                shares: groups.map(|g| g.shares()).unwrap_or_default(),
                // as AllCells::sum counts a cell
                counted: Counted::Cell(
                    groups.is_some_and(|g| g.disk.is_some() && g.flash.is_some()),
                ),
                groups,
            }
        })
        .collect();
    let all = cells.all(now_ms);
    let groups = (all.counted > 0).then_some(all.groups);
    out.push(Line {
        cell: "all".into(),
        state: None,
        reason: None,
        rtt_ms: None,
        interval_s: None,
        groups,
        shares: all.groups.shares(),
        counted: Counted::All {
            counted: all.counted,
            cells: cells.list.len(),
        },
    });
    out
}

fn group(l: &Line, flash: bool) -> Option<&GroupFigures> {
    let g = l.groups.as_ref()?;
    if flash {
        g.flash.as_ref()
    } else {
        g.disk.as_ref()
    }
}

fn known(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite() && *v >= 0.0)
}

/// Every figure of a line in column order: DISK's, FLASH's, then the
/// shares.
fn figures(l: &Line) -> impl Iterator<Item = Option<f64>> + '_ {
    [false, true]
        .into_iter()
        .flat_map(move |flash| {
            GROUP_COLS
                .iter()
                .map(move |c| group(l, flash).and_then(|g| g.get(c.col)))
        })
        .chain(SHARE_COLS.iter().map(|c| l.shares.get(c.col)))
        .map(known)
}

const W: usize = 8;
const STATE_W: usize = 16;

fn label(l: &Line) -> String {
    match l.counted {
        Counted::All { counted, cells } => format!("all ({counted} of {cells} cells)"),
        Counted::Cell(_) => printable(&l.cell).into_owned(),
    }
}

fn cell(s: &mut String, v: Option<f64>, w: usize) {
    match v {
        Some(v) => {
            let _ = write!(s, " {v:>w$.2}");
        }
        None => {
            let _ = write!(s, " {UNKNOWN:>w$}");
        }
    }
}

/// One text report: the timestamp, a line naming the groups, the column
/// headers, a line per cell, the all-cell line, a blank line.
pub fn text_report(lines: &[Line], wall_ms: i64) -> String {
    let lw = lines
        .iter()
        .map(|l| label(l).chars().count())
        .max()
        .unwrap_or(0)
        .max(12);
    let block = GROUP_COLS.len() * (W + 1) - 1;
    let lead = lw + 1 + STATE_W + 1 + 7;
    let mut s = format!("{}\n", format::iso_datetime(wall_ms));
    let _ = writeln!(
        s,
        "{:lead$} {:-^block$} {:-^block$}",
        "", " DISK ", " FLASH "
    );
    let _ = write!(s, "{:<lw$} {:<STATE_W$} {:>7}", "Cell", "State", "rtt ms");
    for _ in 0..2 {
        for c in &GROUP_COLS {
            let _ = write!(s, " {:>W$}", c.header);
        }
    }
    for c in &SHARE_COLS {
        let _ = write!(s, " {}", c.header);
    }
    s.push('\n');
    for l in lines {
        let _ = write!(
            s,
            "{:<lw$} {:<STATE_W$}",
            label(l),
            l.state.as_deref().unwrap_or("")
        );
        cell(&mut s, known(l.rtt_ms), 7);
        let figs: Vec<Option<f64>> = figures(l).collect();
        let (groups, shares) = figs.split_at(2 * GROUP_COLS.len());
        for v in groups {
            cell(&mut s, *v, W);
        }
        for (c, v) in SHARE_COLS.iter().zip(shares) {
            cell(&mut s, *v, c.header.len());
        }
        if let Some(r) = &l.reason {
            let _ = write!(s, "  {}", printable(r));
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

fn json_num(v: Option<f64>) -> String {
    json_opt(figure(known(v)))
}

fn json_group(g: Option<&GroupFigures>) -> String {
    let Some(g) = g else {
        return "null".into();
    };
    let mut s = format!("{{\"devices\": {}", g.devices);
    for c in &GROUP_COLS {
        let _ = write!(s, ", \"{}\": {}", c.json_key, json_num(g.get(c.col)));
    }
    s.push('}');
    s
}

/// One JSON object per line; unknown figures are null, and a group the
/// cell has no current figures for is null as a whole.
pub fn json_report(lines: &[Line], wall_ms: i64) -> String {
    let ts = json_str(&format::iso_datetime(wall_ms));
    let mut s = String::new();
    for l in lines {
        let _ = write!(s, "{{\"timestamp\": {ts}, \"cell\": {}", json_str(&l.cell));
        match l.counted {
            Counted::Cell(counted) => {
                let _ = write!(
                    s,
                    ", \"state\": {}, \"reason\": {}, \"rtt_ms\": {}, \"interval_s\": {}, \"counted\": {counted}",
                    json_str(l.state.as_deref().unwrap_or("")),
                    l.reason.as_deref().map_or("null".into(), json_str),
                    json_num(l.rtt_ms),
                    json_num(l.interval_s),
                );
            }
            Counted::All { counted, cells } => {
                let _ = write!(s, ", \"cells_counted\": {counted}, \"cells\": {cells}");
            }
        }
        let _ = write!(
            s,
            ", \"disk\": {}, \"flash\": {}",
            json_group(group(l, false)),
            json_group(group(l, true))
        );
        for c in &SHARE_COLS {
            let _ = write!(s, ", \"{}\": {}", c.json_key, json_num(l.shares.get(c.col)));
        }
        s.push_str("}\n");
    }
    s
}

pub fn csv_header() -> String {
    let mut s = String::from(
        "timestamp,cell,state,reason,rtt_ms,interval_s,counted,cells_counted,cells,disk_devices",
    );
    for c in &GROUP_COLS {
        let _ = write!(s, ",disk_{}", c.json_key);
    }
    s.push_str(",flash_devices");
    for c in &GROUP_COLS {
        let _ = write!(s, ",flash_{}", c.json_key);
    }
    for c in &SHARE_COLS {
        let _ = write!(s, ",{}", c.json_key);
    }
    s
}

/// CSV lines under [`csv_header`]; unknown figures are empty fields.
pub fn csv_report(lines: &[Line], wall_ms: i64) -> String {
    let ts = format::iso_datetime(wall_ms);
    let num = |v: Option<f64>| figure(known(v)).unwrap_or_default();
    let mut s = String::new();
    for l in lines {
        let (counted, cells_counted, cells) = match l.counted {
            Counted::Cell(c) => (c.to_string(), String::new(), String::new()),
            Counted::All { counted, cells } => {
                (String::new(), counted.to_string(), cells.to_string())
            }
        };
        let _ = write!(
            s,
            "{ts},{},{},{},{},{},{counted},{cells_counted},{cells}",
            csv_field(&l.cell),
            csv_field(l.state.as_deref().unwrap_or("")),
            csv_field(l.reason.as_deref().unwrap_or("")),
            num(l.rtt_ms),
            num(l.interval_s),
        );
        let mut figs = figures(l);
        for flash in [false, true] {
            let devices = group(l, flash).map_or(String::new(), |g| g.devices.to_string());
            let _ = write!(s, ",{devices}");
            for _ in &GROUP_COLS {
                let _ = write!(s, ",{}", num(figs.next().flatten()));
            }
        }
        for v in figs {
            let _ = write!(s, ",{}", num(v));
        }
        s.push('\n');
    }
    s
}

pub fn report(format: Format, lines: &[Line], wall_ms: i64) -> String {
    match format {
        Format::Text => text_report(lines, wall_ms),
        Format::Json => json_report(lines, wall_ms),
        Format::Csv => csv_report(lines, wall_ms),
    }
}

/// True once every cell has current figures or has been refused or found
/// unreachable: the moment the first report can say something of each.
fn settled(cells: &Cells, now_ms: i64) -> bool {
    cells.list.iter().all(|c| {
        c.current_groups(now_ms, cells.interval.ms()).is_some()
            || c.link.state(now_ms, cells.interval.ms()).reason().is_some()
    })
}

/// Prints `count` reports (or until SIGINT/SIGTERM) of `targets`, one per
/// interval of `opts`, and returns the exit status.
pub fn run_cells(
    targets: Vec<HostTarget>,
    opts: SshOptions,
    count: Option<u64>,
    format: Format,
) -> i32 {
    super::block_on(run(
        targets,
        opts,
        count,
        format,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr(),
    ))
}

async fn run(
    targets: Vec<HostTarget>,
    opts: SshOptions,
    count: Option<u64>,
    format: Format,
    out: &mut impl Write,
    err: &mut impl Write,
) -> i32 {
    let mut stop = match super::Stop::listen() {
        Ok(stop) => stop,
        Err(e) => {
            let _ = writeln!(err, "strata: {e}");
            return 1;
        }
    };
    let every = opts.interval.duration();
    let mut cells = Cells::new(targets.clone(), opts.interval, HISTORY);
    let mut firsts = vec![FirstInterval::default(); targets.len()];
    let n = targets.len();
    let start = Instant::now();
    // A cell that neither connects nor fails (a listener that never
    // speaks) fails after its connect and handshake timeouts: the first
    // report waits no longer than that for it.
    let settle_by = start + 2 * opts.connect_timeout + 2 * every;
    let (tx, mut rx) = mpsc::channel::<CellEvent>(64);
    let cancel = CancellationToken::new();
    let opts = Arc::new(opts);
    let mut tasks = JoinSet::new();
    for (i, t) in targets.into_iter().enumerate() {
        tasks.spawn(run_cell(
            i,
            t,
            crate::remote::Ssh(Arc::clone(&opts)),
            tx.clone(),
            cancel.clone(),
        ));
    }
    drop(tx);
    let head = match format {
        Format::Csv => Some(csv_header()),
        Format::Text => Some(format!(
            "strata batch cells \t{} \t{}, every {} s\n",
            format::local_datetime(now_ms()),
            format::count(n, "cell", "cells"),
            every.as_secs_f64()
        )),
        Format::Json => None,
    };
    let mut open = head.is_none_or(|h| writeln!(out, "{h}").and_then(|_| out.flush()).is_ok());
    let mut clock = tokio::time::interval_at(start + every, every);
    clock.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut reports = 0u64;
    while open && count.is_none_or(|c| reports < c) {
        tokio::select! {
            Some(ev) = rx.recv() => ingest(&mut cells, &mut firsts, ev, err),
            _ = clock.tick() => {
                let now = now_ms();
                if reports == 0 && !settled(&cells, now) && Instant::now() < settle_by {
                    continue;
                }
                let text = report(format, &lines(&cells, now), now);
                // A reader that went away (a closed pipe) ends the run.
                open = write!(out, "{text}").and_then(|_| out.flush()).is_ok();
                reports += 1;
            }
            _ = stop.recv() => break,
        }
    }
    // Closing the connections ends each cell's sampler on its next write;
    // run_cell returns promptly once cancelled, and a stuck one is dropped
    // with the runtime.
    cancel.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    0
}

/// Applies a cell's event. A cell's baseline is read when it connects,
/// between two boundaries: a first interval shorter than half the
/// interval is another baseline (its figures are not shown), as export
/// leaves such a round out.
fn ingest(cells: &mut Cells, firsts: &mut [FirstInterval], ev: CellEvent, err: &mut impl Write) {
    let sampled = match &ev {
        CellEvent::Sample { cell, .. } => Some(*cell),
        _ => None,
    };
    if let Some((label, text)) = cells.ingest(now_ms(), ev) {
        let _ = writeln!(err, "strata: {}: {}", printable(&label), printable(&text));
    }
    let itv = cells.interval.ms();
    let Some((c, first)) = sampled.and_then(|i| Some((cells.list.get_mut(i)?, firsts.get_mut(i)?)))
    else {
        return;
    };
    let cs = c.disks.latest.as_ref().and_then(|t| t.itv_cs);
    if let Some(cs) = cs.filter(|_| c.groups.is_some())
        && first.left_out(cs, itv).is_some()
    {
        c.groups = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::HostStatus;
    use crate::link::target::parse_ssh_spec;

    /// Two hard disks: 150 reads/s of 8 kB, 100 writes/s of 12.8 kB, 1000
    /// and 120 ms of waiting per second, busy 60 % and 40 %; one idle
    /// flash disk.
    fn busy() -> CellGroups {
        CellGroups {
            disk: Some(GroupFigures {
                devices: 2,
                r_per_s: 150.0,
                w_per_s: 100.0,
                rkb_per_s: 1200.0,
                wkb_per_s: 1280.0,
                rd_ms_per_s: 1000.0,
                wr_ms_per_s: 120.0,
                util_sum: 100.0,
            }),
            flash: Some(GroupFigures {
                devices: 1,
                ..GroupFigures::default()
            }),
        }
    }

    fn state() -> Vec<Line> {
        let g = busy();
        vec![
            Line {
                cell: "cel01".into(),
                state: Some("live".into()),
                reason: None,
                rtt_ms: Some(0.5),
                interval_s: Some(1.0),
                groups: Some(g),
                shares: g.shares(),
                counted: Counted::Cell(true),
            },
            Line {
                cell: "cel\u{1b}[2J02,x".into(),
                state: Some("auth failed".into()),
                reason: Some("key refused\nby cel02".into()),
                // a round trip that makes no sense is unknown, not NaN
                rtt_ms: Some(f64::NAN),
                interval_s: None,
                groups: None,
                shares: Shares::default(),
                counted: Counted::Cell(false),
            },
            Line {
                cell: "all".into(),
                state: None,
                reason: None,
                rtt_ms: None,
                interval_s: None,
                groups: Some(g),
                shares: g.shares(),
                counted: Counted::All {
                    counted: 1,
                    cells: 2,
                },
            },
        ]
    }

    #[test]
    fn text_rows_by_hand_with_dashes_for_unknowns() {
        let text = text_report(&state(), 0);
        let rows: Vec<&str> = text.lines().collect();
        // timestamp, groups, header, 3 lines, the blank line
        assert_eq!(rows.len(), 7, "{text}");
        let fields: Vec<&str> = rows[3].split_whitespace().collect();
        // DISK: 150 + 100 req/s; 1200/1024 = 1.17 and 1280/1024 = 1.25
        // MB/s; 2480 kB / 250 req = 9.92 kB; 1000/150 = 6.67 ms, 120/100 =
        // 1.20 ms; (60+40)/2 = 50 %. FLASH idle: no request to average
        // over, so its size and awaits are 0.00, as iostat prints them.
        // Shares: no flash I/O, 250 req/s over 2 hard disks = 125.
        assert_eq!(
            fields,
            [
                "cel01", "live", "0.50", "150.00", "100.00", "1.17", "1.25", "9.92", "6.67",
                "1.20", "50.00", "0.00", "0.00", "0.00", "0.00", "0.00", "0.00", "0.00", "0.00",
                "0.00", "0.00", "125.00"
            ]
        );
        let failed = rows[4];
        assert!(failed.starts_with("cel?[2J02,x "), "{failed}");
        assert!(failed.ends_with("  key refused?by cel02"), "{failed}");
        assert_eq!(failed.matches('–').count(), 1 + 16 + 3, "{failed}");
        assert!(!failed.contains("0.00") && !failed.contains("NaN"));
        assert!(rows[5].starts_with("all (1 of 2 cells) "), "{}", rows[5]);
        assert!(rows[1].contains(" DISK ") && rows[1].contains(" FLASH "));
        assert!(rows[2].contains("READ_PCT_from_FLASH"));
    }

    #[test]
    fn json_keys_are_the_group_columns_and_unknowns_null() {
        let json = json_report(&state(), 0);
        let v: Vec<serde_json::Value> = json
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0]["disk"]["devices"], 2);
        assert_eq!(v[0]["disk"]["r_await_ms"], 6.67);
        assert_eq!(v[0]["flash"]["avg_rq_kb"], 0.0);
        assert_eq!(v[0]["iops_per_disk"], 125.0);
        assert_eq!(v[0]["counted"], true);
        for c in &GROUP_COLS {
            assert!(v[0]["disk"].get(c.json_key).is_some(), "{}", c.json_key);
        }
        assert_eq!(v[1]["cell"], "cel\u{1b}[2J02,x");
        assert_eq!(v[1]["reason"], "key refused\nby cel02");
        assert_eq!(v[1]["rtt_ms"], serde_json::Value::Null);
        assert_eq!(v[1]["disk"], serde_json::Value::Null);
        assert_eq!(v[1]["read_pct_from_flash"], serde_json::Value::Null);
        assert_eq!(
            (v[2]["cells_counted"].as_u64(), v[2]["cells"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(v[2]["disk"]["w_s"], 100.0);
    }

    #[test]
    fn csv_rows_match_the_header_and_unknowns_are_empty() {
        let header = csv_header();
        let n = header.split(',').count();
        let csv = csv_report(&state(), 0);
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows.len(), 3, "{csv}");
        // (row 1's label holds a comma, quoted: a naive split miscounts it)
        assert_eq!(rows[0].split(',').count(), n);
        assert_eq!(rows[2].split(',').count(), n);
        assert!(rows[1].contains(",\"cel?[2J02,x\",auth failed,key refused?by cel02,,,false,,,,"));
        assert!(rows[2].contains(",all,,,,,,1,2,2,150.00,"), "{}", rows[2]);
        assert!(rows[0].ends_with(",0.00,0.00,125.00"), "{}", rows[0]);
    }

    #[test]
    fn cells_without_figures_give_an_all_line_of_unknowns() {
        let t = |s: &str| parse_ssh_spec(s, "celladmin").unwrap();
        let mut cells = Cells::new(
            vec![t("cel01"), t("cel02:2222")],
            crate::core::duration::Interval::ONE_SECOND,
            HISTORY,
        );
        cells.list[0].link.status = HostStatus::HostKeyRefused("changed key".into());
        cells.list[1].link.status = HostStatus::Live;
        cells.list[1].link.rtt = Some(Duration::from_micros(1500));
        let l = lines(&cells, 10_000);
        assert_eq!(l[0].state.as_deref(), Some("host key refused"));
        assert_eq!(l[0].reason.as_deref(), Some("changed key"));
        assert_eq!(l[0].rtt_ms, None);
        // live but no interval sampled yet: a round trip, no figures
        assert_eq!((l[1].rtt_ms, l[1].groups), (Some(1.5), None));
        assert_eq!(
            l[2].counted,
            Counted::All {
                counted: 0,
                cells: 2
            }
        );
        assert_eq!(l[2].groups, None);
        assert!(!settled(&cells, 10_000), "cel02 has no figures yet");
        let text = text_report(&l, 0);
        let all = text
            .lines()
            .find(|r| r.starts_with("all (0 of 2 cells)"))
            .unwrap();
        // rtt, 16 group figures, 3 shares: all unknown, none 0
        assert_eq!(all.matches('–').count(), 20, "{all}");
        assert!(!all.contains("0.00"), "{all}");
        cells.list[1].link.status = HostStatus::Unreachable("timed out".into());
        assert!(settled(&cells, 10_000));
    }

    /// A cell's first interval, 0.30 s of a 1 s run (it connected between
    /// two boundaries), shows no figures: the next, a whole one, does.
    #[test]
    fn a_cells_short_first_interval_is_another_baseline() {
        use crate::layers::disks::source::DiskSample;
        let t = parse_ssh_spec("cel01", "celladmin").unwrap();
        let mut cells = Cells::new(
            vec![t],
            crate::core::duration::Interval::ONE_SECOND,
            HISTORY,
        );
        cells.list[0].link.status = HostStatus::Live;
        let mut firsts = vec![FirstInterval::default(); 1];
        let now = now_ms();
        let mut err = Vec::new();
        let mut interval_at = |cells: &mut Cells, uptime_cs: u64| {
            let sample = DiskSample {
                uptime_cs,
                wall_ms: now,
                devices: Vec::new(),
                rejected: Vec::new(),
                catalogue: Default::default(),
            };
            ingest(
                cells,
                &mut firsts,
                CellEvent::Sample { cell: 0, sample },
                &mut err,
            );
            lines(cells, now)[0].interval_s
        };
        assert_eq!(interval_at(&mut cells, 100_000), None, "the baseline");
        assert_eq!(interval_at(&mut cells, 100_030), None, "0.30 s: left out");
        assert_eq!(interval_at(&mut cells, 100_130), Some(1.0));
        // a short one later is a real one (a sample came late)
        assert_eq!(interval_at(&mut cells, 100_170), Some(0.4));
    }
}

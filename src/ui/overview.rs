//! Every layer's totals on one screen, in the order an I/O travels:
//! database → host → wire → storage.

use super::disks::DeviceItem;
use super::dnfs::PathForm;
use super::table::{Col, LayerPanel};
use super::widgets::sparkline;
use super::{level_style, panel_block};
use crate::app::App;
use crate::app::cluster::{Nfs, Nics};
use crate::format;
use crate::layers::cache::model::CacheTick;
use crate::layers::col::{ColKind, Units};
use crate::layers::disks::model::DiskCol;
use crate::layers::disks::state::{TOTAL_ENTITY, history_index};
use crate::layers::disks::tick::DiskRow;
use crate::layers::nfs::tick::mount_label;
use crate::layers::nics::tick::NicTick;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// The host's box: its seven figures between its borders.
const HOST_ROWS: u16 = 9;
/// The wire's box: the physical total, the busiest NIC or bond and a
/// bond's warning.
const WIRE_ROWS: u16 = 5;
/// The cluster's box, over the host's and the wire's: its header, the
/// cluster's line and a node's, each two rows at 80 columns.
const CLUSTER_ROWS: u16 = 8;
/// The database box's rows however many nodes the cluster has (its box
/// scrolls, the host's and the wire's do not): the databases' line and
/// two instances' path.
const DB_FLOOR: u16 = 3;

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let path = app.path_view();
    let inner_width = usize::from(area.width.saturating_sub(2));
    let lines_in = |form| {
        super::dnfs::overview_lines(
            &app.theme,
            &app.dnfs,
            app.now_ms,
            path.as_ref(),
            app.replay.is_some(),
            form,
        )
    };
    let storage_rows = if app.cells.list.is_empty() { 3 } else { 6 };
    // The cluster's box takes the host's and the wire's room; it asks for
    // a row per node, the databases keep their floor.
    let cluster = app.shows_cluster().then(|| app.cluster_rows());
    let (host_rows, wire_rows, wanted, floor) = if let Some((rows, total)) = &cluster {
        let wanted = super::cluster::rows_wanted((rows, total), area.width).max(CLUSTER_ROWS);
        (CLUSTER_ROWS, 0, wanted, DB_FLOOR)
    } else {
        (HOST_ROWS, WIRE_ROWS, HOST_ROWS, 1)
    };
    // The databases and the path take what they need, up to a third, and
    // never the rows the other boxes need: at 80×24 a database left the
    // NICs and the cells a frame with nothing in it, and the cluster one
    // node of two.
    let third = area.height / 3;
    let spare = area
        .height
        .saturating_sub(wanted + wire_rows + storage_rows + 2);
    // the floor takes only rows the cluster's box would scroll, never its
    // least nor the storage's
    let least = area
        .height
        .saturating_sub(host_rows + wire_rows + storage_rows + 2);
    let floor = floor.min(third).min(least);
    let budget = usize::from(third.min(spare).max(floor).max(1));
    let mut db_lines = lines_in(PathForm::Aligned(inner_width));
    let mut wrapped = super::widgets::wrapped_rows(&db_lines, inner_width);
    if wrapped > budget {
        // cut, the aligned line-up would show names without their figures
        db_lines = lines_in(PathForm::Compact);
        wrapped = super::widgets::wrapped_rows(&db_lines, inner_width);
    }
    let db_rows = wrapped.min(budget).max(1) as u16;
    let [db, host, wire, storage] = Layout::vertical([
        Constraint::Length(db_rows + 2),
        Constraint::Min(host_rows),
        Constraint::Length(wire_rows),
        Constraint::Length(storage_rows),
    ])
    .areas(area);
    let block = panel_block(" Database · Oracle dNFS ", &app.theme, false);
    f.render_widget(
        Paragraph::new(db_lines)
            .wrap(Wrap { trim: false })
            .block(block),
        db,
    );
    // On a jump host the cluster is the host layer; `n` shows one node.
    if let Some((rows, total)) = &cluster {
        // its layout gave the wire no rows
        super::cluster::draw(f, app, host, (rows, total));
        draw_storage(f, app, storage);
        return;
    }
    let [disks, side] =
        Layout::horizontal([Constraint::Percentage(62), Constraint::Percentage(38)]).areas(host);
    draw_disks(f, app, disks);
    let [cache, nfs] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(side);
    let h = app.host();
    let title = (" Page cache ", "page cache");
    host_box(f, app, cache, title, &h.cache, |k, _| cache_lines(app, k));
    let title = (" Kernel NFS client ", Nfs::SOURCE);
    host_box(f, app, nfs, title, &h.nfs, |_, inner| nfs_lines(app, inner));
    let title = (" Wire · NICs and bonds ", Nics::SOURCE);
    host_box(f, app, wire, title, &h.nics, |k, inner| {
        wire_lines(app, k, inner)
    });
    draw_storage(f, app, storage);
}

/// The storage box's line of each group, its last figures left out whole
/// when the box is narrow. Each figure is as wide as the widest of its
/// column, so that the lines keep the same columns: DISK's longer figures
/// once lost its %util where FLASH's "–" kept its own.
fn group_lines<'a>(
    t: &crate::theme::Theme,
    groups: &[(&str, Option<&crate::layers::cells::model::GroupFigures>)],
    width: u16,
) -> Vec<Line<'a>> {
    use crate::layers::cells::model::GroupCol;
    const COLS: [GroupCol; 7] = [
        GroupCol::RPerS,
        GroupCol::WPerS,
        GroupCol::RMbPerS,
        GroupCol::WMbPerS,
        GroupCol::RAwait,
        GroupCol::WAwait,
        GroupCol::Util,
    ];
    let texts: Vec<[String; 7]> = groups
        .iter()
        .map(|(_, g)| COLS.map(|c| format::fit(g.and_then(|g| g.get(c)), 9, 2)))
        .collect();
    let widths: [usize; 7] = std::array::from_fn(|i| {
        texts
            .iter()
            .map(|v| v[i].chars().count())
            .max()
            .unwrap_or(0)
    });
    groups
        .iter()
        .zip(&texts)
        .map(|((name, _), v)| {
            let v = |i: usize| format!("{:>w$}", v[i], w = widths[i]);
            let groups = vec![
                vec![
                    Span::styled(format!("{name} "), t.base),
                    Span::styled("r/s ", t.muted),
                    Span::styled(v(0), t.read),
                ],
                vec![Span::styled("  w/s ", t.muted), Span::styled(v(1), t.write)],
                vec![
                    Span::styled("  MB/s r ", t.muted),
                    Span::styled(v(2), t.read),
                    Span::styled(" w ", t.muted),
                    Span::styled(v(3), t.write),
                ],
                vec![
                    Span::styled("  await r ", t.muted),
                    Span::styled(v(4), t.base),
                    Span::styled(" w ", t.muted),
                    Span::styled(v(5), t.base),
                ],
                vec![
                    Span::styled("  %util ", t.muted),
                    Span::styled(v(6), t.base),
                ],
            ];
            super::widgets::whole_groups(groups, width)
        })
        .collect()
}

/// The cells: DISK and FLASH over all current cells, the flash shares and
/// which cells are not live.
fn draw_storage(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let n = app.cells.list.len();
    let title = match n {
        0 => " Storage · cells ".to_string(),
        _ => format!(" Storage · {} ", format::count(n, "cell", "cells")),
    };
    let brief = super::cells::NO_CELLS_BRIEF;
    let Some(inner) = super::cells::cells_frame(f, app, area, title, false, brief) else {
        return;
    };
    use crate::layers::cells::cell_metrics::Media;
    let all = app.cells.all(app.now_ms);
    let groups = [(Media::Disk, "DISK "), (Media::Flash, "FLASH")]
        .map(|(media, name)| (name, all.groups.get(media)));
    let mut lines = group_lines(t, &groups, inner.width);
    lines.push(super::cells::shares_line(t, &all.groups.shares()));
    let (now, itv) = (app.now_ms, app.cells.interval.ms());
    let down: Vec<String> = app
        .cells
        .list
        .iter()
        .filter_map(|c| {
            let st = c.link.state(now, itv);
            (!st.is_live()).then(|| format!("{} {}", c.link.target.label, st.label()))
        })
        .collect();
    lines.push(if down.is_empty() {
        Line::from(Span::styled(format!("{} live", all.counted), t.muted))
    } else {
        Line::from(vec![
            Span::styled(format!("{} of {n} live · ", all.counted), t.muted),
            Span::styled(format!("! {}", down.join(" · ")), t.warn),
        ])
    });
    // DISK's and FLASH's IOPS over the window, right of their lines, from
    // the history the cells panel charts
    let text_w = lines
        .iter()
        .take(2)
        .map(|l| l.width() as u16)
        .max()
        .unwrap_or(0);
    f.render_widget(Paragraph::new(lines), inner);
    let spark_w = inner.width.saturating_sub(text_w + 2);
    if spark_w >= 8 {
        use crate::app::cells::{DISK_GROUP, FLASH_GROUP};
        let n = spark_w as usize;
        let h = &app.cells.history;
        let (r, w) = (history_index(DiskCol::RPerS), history_index(DiskCol::WPerS));
        for (row, entity) in [DISK_GROUP, FLASH_GROUP].into_iter().enumerate() {
            let (Some(r), Some(w)) = (r, w) else {
                break;
            };
            let iops: Vec<f32> = h
                .series(entity, r, n)
                .iter()
                .zip(h.series(entity, w, n))
                .map(|(a, b)| a + b)
                .collect();
            let at = Rect {
                x: inner.x + text_w + 2,
                y: inner.y + row as u16,
                width: spark_w,
                height: 1,
            };
            sparkline(f, at, &iops, t.accent);
        }
    }
}

/// A layer's box: its frame and, when the layer has figures, the lines
/// `body` makes of its newest tick for the room inside; else its error,
/// or its waiting state, in that room.
fn host_box<'a, T: Clone>(
    f: &mut Frame,
    app: &App,
    area: Rect,
    (title, what): (&str, &str),
    layer: &crate::layers::layer::Layer<T>,
    body: impl FnOnce(&T, Rect) -> Vec<Line<'a>>,
) {
    let inner = super::framed(f, area, title, &app.theme, false);
    // a node gone or silent: why, in a word or two (its disks box says
    // the whole), not its last figures as if current
    if super::said_not_current(f, app, inner, false) {
        return;
    }
    match layer.tick().filter(|_| layer.shown_error().is_none()) {
        Some(tick) => f.render_widget(Paragraph::new(body(tick, inner)), inner),
        None => super::no_figures(f, app, inner, (layer, what), false),
    }
}

fn cache_lines<'a>(app: &App, tick: &CacheTick) -> Vec<Line<'a>> {
    let t = &app.theme;
    let Some(figs) = super::cache::summary(app) else {
        return Vec::new();
    };
    let mut lines: Vec<Line> = figs
        .iter()
        .map(|(label, v)| {
            Line::from(vec![
                Span::styled(format!("{label:<10}"), t.muted),
                Span::styled(format!("{v:>11}"), t.base),
            ])
        })
        .collect();
    if !tick.files.is_empty() {
        let res = tick
            .total
            .as_ref()
            .and_then(|x| x.figures.get(crate::layers::cache::model::FileCol::Res))
            .map_or(format::UNKNOWN.to_string(), |v| format::bytes(v as u64));
        lines.push(Line::from(vec![
            Span::styled(format!("{:<10}", "watched"), t.muted),
            Span::styled(format!("{res:>11}"), t.base),
            Span::styled(
                format!(" in {}", format::count(tick.files.len(), "file", "files")),
                t.muted,
            ),
        ]));
    }
    lines
}

fn nfs_lines<'a>(app: &App, inner: Rect) -> Vec<Line<'a>> {
    let t = &app.theme;
    let rows = app.nfs_rows();
    if rows.is_empty() {
        return vec![Line::from(Span::styled("no NFS mounts", t.muted))];
    }
    use crate::layers::nfs::model::{NfsMountCol, NfsOpCol};
    use crate::layers::nfs::state::{NfsFig, nfs_figure};
    // ops/s 8 wide after the mount's space; each RTT a space and 7
    let fig = |r, f, w| format::fit(nfs_figure(r, f), w, 2);
    let cols = [
        ("ops/s", NfsFig::Mount(NfsMountCol::OpsPerS), t.base),
        ("rd RTT", NfsFig::Op("READ", NfsOpCol::AvgRttMs), t.read),
        ("wr RTT", NfsFig::Op("WRITE", NfsOpCol::AvgRttMs), t.write),
    ];
    // the figure columns that fit whole beside the mount's 16
    let fit = usize::from(inner.width).saturating_sub(16) / 8;
    let cols = &cols[..fit.min(cols.len())];
    let mut head = format!("{:<16}", "mount");
    for (h, ..) in cols {
        head.push_str(&format!("{h:>8}"));
    }
    let mut lines = vec![Line::from(Span::styled(head, t.header))];
    for r in rows.iter().take(inner.height.saturating_sub(1) as usize) {
        let name: String = mount_label(r).chars().take(15).collect();
        let mut spans = vec![Span::styled(format!("{name:<16}"), t.base)];
        for (k, (_, f, style)) in cols.iter().enumerate() {
            let text = match k {
                0 => format!("{:>8}", fig(r, *f, 8)),
                _ => format!(" {:>7}", fig(r, *f, 7)),
            };
            spans.push(Span::styled(text, *style));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// The wire: what the physical interfaces carry, then each bond (its
/// warnings first) and the busiest interfaces.
fn wire_lines<'a>(app: &App, tick: &NicTick, inner: Rect) -> Vec<Line<'a>> {
    use crate::layers::nics::model::NicCol;
    let t = &app.theme;
    let get = |r: Option<&crate::layers::nics::model::NicRates>, c| r.and_then(|r| r.get(c));
    let mb = |v: Option<f64>| format::fit(v.map(|x| x / 1024.0), 8, 1);
    let pk = |v: Option<f64>| format::fit(v, 8, 0);
    let total = tick.total.as_ref();
    let mut lines = vec![Line::from(vec![
        Span::styled("physical  in ", t.muted),
        Span::styled(mb(get(total, NicCol::RKbPerS)), t.read),
        Span::styled(" MB/s  out ", t.muted),
        Span::styled(mb(get(total, NicCol::WKbPerS)), t.write),
        Span::styled(" MB/s  ·  in ", t.muted),
        Span::styled(pk(get(total, NicCol::RPkPerS)), t.read),
        Span::styled(" pk/s  out ", t.muted),
        Span::styled(pk(get(total, NicCol::WPkPerS)), t.write),
        Span::styled(" pk/s", t.muted),
    ])];
    let room = inner.height.saturating_sub(1) as usize;
    for b in tick.bonds() {
        let mode = b.info.mode.map_or("?", |m| m.label());
        let active = b.info.active_slave.as_deref().unwrap_or("none");
        let rates = b.rates.as_ref();
        let mut spans = vec![
            Span::styled(format!("{:<10}in ", b.name()), t.base),
            Span::styled(mb(get(rates, NicCol::RKbPerS)), t.read),
            Span::styled(" MB/s  out ", t.muted),
            Span::styled(mb(get(rates, NicCol::WKbPerS)), t.write),
            Span::styled(" MB/s", t.muted),
        ];
        let figures: usize = spans.iter().map(Span::width).sum();
        let about = format!("  {mode} · active {active}");
        let width = usize::from(inner.width);
        if let Some(w) = b.warnings.first() {
            let style = match w {
                crate::layers::nics::bond::BondWarning::BondMiiDown { .. } => t.crit,
                _ => t.warn,
            };
            let more = match b.warnings.len() {
                1 => String::new(),
                n => format!(" (+{})", n - 1),
            };
            let warning = format!("! {w}{more}");
            let warning_w = Span::raw(&warning).width();
            // A warning cut short says less than none. On a narrow screen
            // it takes the mode's place (the bond's panel has the mode),
            // else the line below, under the bond's figures.
            if figures + Span::raw(&about).width() + 2 + warning_w <= width {
                spans.push(Span::styled(about, t.muted));
                spans.push(Span::styled(format!("  {warning}"), style));
            } else if figures + 2 + warning_w <= width {
                spans.push(Span::styled(format!("  {warning}"), style));
            } else {
                spans.push(Span::styled(about, t.muted));
                lines.push(Line::from(spans));
                spans = vec![Span::styled(format!("{:<10}{warning}", ""), style)];
            }
        } else {
            spans.push(Span::styled(about, t.muted));
        }
        lines.push(Line::from(spans));
    }
    // the busiest physical interfaces outside the bonds fill the rest
    let mut busiest: Vec<_> = tick
        .rows
        .iter()
        .filter(|r| r.counts_in_totals() && r.info.as_ref().is_none_or(|i| i.master.is_none()))
        .filter_map(|r| {
            let v =
                get(r.rates.as_ref(), NicCol::RKbPerS)? + get(r.rates.as_ref(), NicCol::WKbPerS)?;
            Some((r, v))
        })
        .collect();
    busiest.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));
    for (r, _) in busiest.iter().take(room.saturating_sub(lines.len() - 1)) {
        let rates = r.rates.as_ref();
        lines.push(Line::from(vec![
            Span::styled(format!("{:<10}in ", r.name), t.base),
            Span::styled(mb(get(rates, NicCol::RKbPerS)), t.read),
            Span::styled(" MB/s  out ", t.muted),
            Span::styled(mb(get(rates, NicCol::WKbPerS)), t.write),
            Span::styled(" MB/s  %Util ", t.muted),
            Span::styled(format::fit(get(rates, NicCol::Util), 6, 1), t.base),
        ]));
    }
    lines
}

/// Under the totals: what they count, or the lines of /proc/diskstats
/// rejected.
fn totals_note(app: &App, width: u16) -> Span<'static> {
    let t = &app.theme;
    let rejected = app.host().disks.shown_rejected();
    if rejected.is_empty() {
        let note = ["at the bottom of the stack ", ""]
            .map(|at| format!("totals: whole disks {at}(no dm/md double count)"))
            .into_iter()
            .find(|n| n.chars().count() <= usize::from(width))
            .unwrap_or_default();
        Span::styled(note, t.muted)
    } else {
        Span::styled(
            format!(
                "{} line(s) of /proc/diskstats rejected: {}",
                rejected.len(),
                rejected[0]
            ),
            t.warn,
        )
    }
}

fn draw_disks(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let tick = app.view_tick();
    let counted = tick.map_or(0, |k| {
        k.rows.iter().filter(|r| r.counts_in_totals()).count()
    });
    let title = format!(
        " Host · block devices ({}) ",
        format::count(counted, "disk", "disks")
    );
    let mut block = panel_block(title, t, true);
    // a node's stderr is nowhere else on its screens
    if let Some(said) = app.shown_node_message() {
        let said = format!(" stderr: {said} ");
        block = block.title_bottom(Line::from(Span::styled(said, t.warn)));
    }
    let inner = block.inner(area);
    f.render_widget(block, area);
    if super::said_not_current(f, app, inner, true) {
        return;
    }
    let disks = &app.host().disks;
    let Some(tick) = tick.filter(|_| disks.shown_error().is_none()) else {
        super::no_figures(f, app, inner, (disks, super::detail::DISK_SOURCE), true);
        return;
    };
    let mb = app.ui.units == Units::MB;
    let tput = |v: Option<f64>| v.map(|x| app.ui.units.scale(DiskCol::RkBPerS, x));
    let total = tick.total.as_ref();
    let get = |c: DiskCol| total.and_then(|r| r.get(c));
    let unit = if mb { "MB/s" } else { "kB/s" };
    let rows: [(String, Option<f64>, DiskCol, Style); 6] = [
        ("r/s".into(), get(DiskCol::RPerS), DiskCol::RPerS, t.read),
        ("w/s".into(), get(DiskCol::WPerS), DiskCol::WPerS, t.write),
        (
            format!("r{unit}"),
            tput(get(DiskCol::RkBPerS)),
            DiskCol::RkBPerS,
            t.read,
        ),
        (
            format!("w{unit}"),
            tput(get(DiskCol::WkBPerS)),
            DiskCol::WkBPerS,
            t.write,
        ),
        (
            "r_await ms".into(),
            get(DiskCol::RAwait),
            DiskCol::RAwait,
            t.read,
        ),
        (
            "w_await ms".into(),
            get(DiskCol::WAwait),
            DiskCol::WAwait,
            t.write,
        ),
    ];
    // A line a row, as many as fit, from the top: a layout squeezing eight
    // into fewer dropped a row from the middle (r_await without w_await).
    let lines: Vec<Rect> = (0..inner.height.min(8))
        .map(|i| Rect {
            y: inner.y + i,
            height: 1,
            ..inner
        })
        .collect();
    // r_await goes with w_await or not at all
    let shown = match lines.len() {
        5 => 4,
        n => n.min(rows.len()),
    };
    for ((label, value, col, style), line) in rows.iter().zip(&lines).take(shown) {
        draw_total(f, app, *line, label, *value, *col, *style);
    }
    if let Some(line) = lines.get(6) {
        draw_busiest(f, app, *line, tick.busiest());
    }
    // The CPU line, when the host has one, above the note: %iowait and io
    // pressure beside the disks they wait on.
    let mut note_at = draw_cpu(f, app, &lines);
    // who does the I/O, under the CPU: the first line a low box drops
    let top_rows = draw_top_io(f, app, inner, note_at);
    note_at += top_rows;
    let note_line = if note_at < inner.height {
        Some(Rect {
            y: inner.y + note_at,
            height: 1,
            ..inner
        })
    } else {
        None
    };
    if let Some(line) = note_line {
        f.render_widget(Paragraph::new(totals_note(app, line.width)), line);
    }
    let rest = Rect {
        y: inner.y + 9 + top_rows,
        height: inner.height.saturating_sub(9 + top_rows),
        ..inner
    };
    if rest.height >= 2 {
        top_devices(f, app, rest);
    }
}

/// The host's CPU and pressure figures, the first of the layer's
/// headline that fit in `width`, each named as mpstat and sar name it;
/// `None` while the layer has no figures on screen.
fn cpu_line(app: &App, width: u16) -> Option<Line<'static>> {
    use crate::layers::cpu::state::{HEADLINE, decimals};
    let t = &app.theme;
    let cpu = &app.host().cpu;
    let tick = cpu.tick().filter(|_| cpu.shown_error().is_none())?;
    let figs = tick.figures.as_ref()?;
    let mut spans = vec![Span::styled("cpu", t.muted)];
    let mut used = 3;
    for fig in HEADLINE {
        let value = format::fit(fig.of(figs), 8, decimals(fig));
        let text = format!(" {} {}", fig.header(), value.trim());
        let w = text.chars().count();
        if used + w > usize::from(width) {
            break;
        }
        used += w;
        spans.push(Span::styled(format!(" {} ", fig.header()), t.muted));
        spans.push(Span::raw(value.trim().to_string()));
    }
    Some(Line::from(spans))
}

/// The CPU line on the host box's eighth line, when the host has one;
/// the row the totals' note goes on.
fn draw_cpu(f: &mut Frame, app: &App, lines: &[Rect]) -> u16 {
    let Some(line) = lines
        .first()
        .map(|l| l.width)
        .and_then(|w| cpu_line(app, w))
    else {
        return 7;
    };
    if let Some(at) = lines.get(7) {
        f.render_widget(Paragraph::new(line), *at);
    }
    8
}

/// The top I/O line on row `at` of the host's box, when the host has
/// one and the box the row: the rows it takes below the CPU's (its row
/// is kept even where the box is too low for it, as the note's is).
fn draw_top_io(f: &mut Frame, app: &App, inner: Rect, at: u16) -> u16 {
    let Some(top) = top_io_line(app, inner.width) else {
        return 0;
    };
    if at < inner.height {
        let line = Rect {
            y: inner.y + at,
            height: 1,
            ..inner
        };
        f.render_widget(Paragraph::new(top), line);
    }
    1
}

/// The host's busiest I/O role and process (`ProcState::top`), the
/// process left out when the line is too narrow for both, the line when
/// it is too narrow for the role; `None` while the layer has no figures
/// on screen or nothing moved.
fn top_io_line(app: &App, width: u16) -> Option<Line<'static>> {
    let t = &app.theme;
    let procs = &app.host().procs;
    if procs.shown_error().is_some() {
        return None;
    }
    let (role, process) = procs.top()?;
    let lead = "top I/O ";
    let width = usize::from(width);
    let used = lead.chars().count() + role.chars().count();
    if used > width {
        return None;
    }
    let mut spans = vec![Span::styled(lead, t.muted), Span::styled(role, t.accent)];
    if used + 3 + process.chars().count() <= width {
        spans.push(Span::styled(" · ", t.muted));
        spans.push(Span::raw(process));
    }
    Some(Line::from(spans))
}

/// A line of the host's totals: its label, its value, and its history in
/// the rest, in the same columns on every line.
fn total_parts(line: Rect) -> [Rect; 3] {
    Layout::horizontal([
        Constraint::Length(11),
        Constraint::Length(10),
        Constraint::Min(0),
    ])
    .areas(line)
}

/// One figure of the host's totals: its label, its value coloured by its
/// threshold, and its history.
fn draw_total(
    f: &mut Frame,
    app: &App,
    line: Rect,
    label: &str,
    value: Option<f64>,
    col: DiskCol,
    style: Style,
) {
    let t = &app.theme;
    let [l, v, s] = total_parts(line);
    let vstyle = level_style(
        t,
        app.config
            .thresholds
            .level(col.def().kind, value.unwrap_or(0.0)),
    );
    super::say(f, l, label.to_string(), t.muted);
    super::say(f, v, format!("{:>9}", format::fit(value, 9, 2)), vstyle);
    if let Some(h) = history_index(col) {
        let vals: Vec<f32> = app
            .host()
            .disks
            .series(TOTAL_ENTITY, h, s.width as usize)
            .into_iter()
            .map(|x| app.ui.units.scale(col, f64::from(x)) as f32)
            .collect();
        sparkline(f, spark_axis(s), &vals, style);
    }
}

/// Where the sparklines of the host's totals lay out their window (from
/// a line's third part): one time axis for every line of the box.
fn spark_axis(s: Rect) -> Rect {
    Rect {
        x: s.x + 1,
        width: s.width.saturating_sub(1),
        ..s
    }
}

/// The busiest device: its %util, its name, and the busiest %util's history.
fn draw_busiest(f: &mut Frame, app: &App, line: Rect, busiest: Option<&(String, f64)>) {
    let t = &app.theme;
    let [l, v, s] = total_parts(line);
    super::say(f, l, "busiest", t.muted);
    match busiest {
        Some((name, util)) => {
            let style = level_style(t, app.config.thresholds.level(ColKind::Util, *util));
            super::say(
                f,
                v,
                format!("{:>9}", format::fit(Some(*util), 8, 1) + "%"),
                style,
            );
            let util = history_index(DiskCol::Util).unwrap_or(0);
            let axis = spark_axis(s);
            let vals = app
                .host()
                .disks
                .series(TOTAL_ENTITY, util, usize::from(axis.width));
            let [n, sp] = Layout::horizontal([Constraint::Length(14), Constraint::Min(0)]).areas(s);
            super::say(f, n, format!(" {name}"), t.accent);
            // right of the name, on the totals' axis: drawn from the name
            // on, its bars stood 13 columns right of their time until the
            // window filled
            super::widgets::sparkline_within(f, axis, sp, &vals, t.accent);
        }
        None => f.render_widget(
            Paragraph::new(Span::styled(format!("{:>9}", format::UNKNOWN), t.muted)),
            v,
        ),
    }
}

/// The busiest devices by %util, so the overview answers "which one?".
fn top_devices(f: &mut Frame, app: &App, area: Rect) {
    let mut rows: Vec<&DiskRow> = app
        .view_tick()
        .map(|k| {
            k.rows
                .iter()
                .filter(|r| !r.is_partition() && !r.class().skipped_by_default())
                .filter(|r| r.rates.is_some())
                .collect()
        })
        .unwrap_or_default();
    let util = |r: &DiskRow| r.rates.and_then(|x| x.get(DiskCol::Util)).unwrap_or(0.0);
    rows.sort_by(|a, b| {
        util(b)
            .total_cmp(&util(a))
            .then_with(|| a.name.cmp(&b.name))
    });
    let cols = [
        DiskCol::RPerS,
        DiskCol::WPerS,
        DiskCol::RAwait,
        DiskCol::WAwait,
        DiskCol::Util,
    ];
    let mut table_cols = vec![Col::filling("busiest devices", 12), Col::text("Class", 5)];
    table_cols.extend(cols.iter().map(|c| Col::figure(app.ui.units.header(*c))));
    let items: Vec<DeviceItem> = rows
        .iter()
        .map(|&row| DeviceItem {
            row,
            cols: &cols,
            app,
        })
        .collect();
    // %util orders the rows: it stays when narrower boxes drop columns
    let util = cols.iter().position(|&c| c == DiskCol::Util);
    super::table::plain(f, area, &app.theme, (&table_cols, util), &items);
}

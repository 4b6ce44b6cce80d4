//! The cluster on the overview: a line per database node (its block
//! devices, NICs, page cache and NFS client) and the cluster's, the
//! busiest node and any node that is not live standing out.

use super::panel_block;
use crate::app::App;
use crate::app::host::{ClusterRow, NodeShown};
use crate::format;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A column: header, width, and its text for a row. Columns go in this
/// order, the last ones first out on a narrow screen.
struct Col {
    header: &'static str,
    width: u16,
    text: Text,
}

enum Text {
    /// A figure and its decimals, right-aligned.
    Fig(fn(&ClusterRow) -> Option<f64>, usize),
    /// Text of its own, already `width` wide.
    Own(fn(&ClusterRow) -> String),
}

impl Col {
    const fn fig(
        header: &'static str,
        width: u16,
        decimals: usize,
        v: fn(&ClusterRow) -> Option<f64>,
    ) -> Col {
        Col {
            header,
            width,
            text: Text::Fig(v, decimals),
        }
    }

    const fn own(header: &'static str, width: u16, text: fn(&ClusterRow) -> String) -> Col {
        Col {
            header,
            width,
            text: Text::Own(text),
        }
    }

    fn text(&self, r: &ClusterRow) -> String {
        match self.text {
            Text::Fig(v, decimals) => {
                let w = usize::from(self.width);
                format!("{:>w$}", format::fit(v(r), w, decimals))
            }
            Text::Own(f) => f(r),
        }
    }
}

const COLS: [Col; 10] = [
    Col::fig("r/s", 7, 1, |r| r.r_s),
    Col::fig("w/s", 7, 1, |r| r.w_s),
    Col::fig("MB/s", 6, 1, |r| r.mb_s),
    Col::fig("r_await", 7, 2, |r| r.r_await),
    Col::fig("w_await", 7, 2, |r| r.w_await),
    Col::own("busiest  %util", 16, busiest),
    Col::fig("in MB/s", 7, 1, |r| r.nic_in_mb),
    Col::fig("out MB/s", 8, 1, |r| r.nic_out_mb),
    Col::own("dirty/wb MB", 11, dirty),
    Col::fig("NFS op/s", 8, 1, |r| r.nfs_ops),
];

fn busiest(r: &ClusterRow) -> String {
    match &r.busiest {
        Some((dev, util)) => {
            let u = format::fit(Some(*util), 5, 1);
            let room = 16usize.saturating_sub(u.chars().count() + 1);
            format!("{:<room$} {u}", truncate(dev, room))
        }
        None => format!("{:>16}", "–"),
    }
}

fn dirty(r: &ClusterRow) -> String {
    match (r.dirty_mb, r.writeback_mb) {
        (None, None) => format!("{:>11}", "–"),
        (d, w) => format!("{:>5}/{:<5}", format::fit(d, 5, 0), format::fit(w, 5, 0)),
    }
}

/// What the node's name column says about its state.
fn state_of(r: &ClusterRow) -> Option<String> {
    match &r.shown {
        NodeShown::Live => None,
        NodeShown::Stale(s) => Some(format!("stale {s} s")),
        NodeShown::Down(why) => Some(why.clone()),
    }
}

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let (rows, total) = app.cluster_rows();
    let live = rows.iter().filter(|r| r.shown == NodeShown::Live).count();
    let title = format!(
        " Cluster · {} · {live} live · ↑↓ Enter: one node ",
        format::count(rows.len(), "node", "nodes")
    );
    let block = panel_block(title, t, true);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let name_w = rows
        .iter()
        .map(|r| r.label.chars().count())
        .chain([total.label.chars().count(), 4])
        .max()
        .unwrap_or(4)
        .min(20) as u16;
    // Columns in order while they fit, a space between each.
    let mut room = inner.width.saturating_sub(name_w + 1);
    let cols: Vec<&Col> = COLS
        .iter()
        .take_while(|c| {
            let fits = room > c.width;
            room = room.saturating_sub(c.width + 1);
            fits
        })
        .collect();
    let busiest_node = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.shown == NodeShown::Live)
        .filter_map(|(i, r)| Some((i, r.mb_s?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(_, v)| *v > 0.0)
        .map(|(i, _)| i);
    let name = |text: &str| {
        let w = usize::from(name_w);
        format!("{:<w$}", truncate(text, w))
    };
    let line = |r: &ClusterRow, name_style: Style, style: Style| {
        // A bond warning flags the name, as the NIC table flags its row.
        let (mark, flag) = if r.bond_warnings > 0 {
            ("!", t.warn)
        } else {
            (" ", name_style)
        };
        let mut spans = vec![Span::styled(format!("{mark}{}", name(&r.label)), flag)];
        match state_of(r) {
            // A node that is not live has no current figures: its state
            // takes the line.
            Some(state) => spans.push(Span::styled(format!(" {state}"), t.warn)),
            None => {
                for c in &cols {
                    let text = c.text(r);
                    let s = if text.trim() == "–" { t.muted } else { style };
                    spans.push(Span::raw(" "));
                    spans.push(Span::styled(text, s));
                }
            }
        }
        Line::from(spans)
    };
    let mut head = vec![Span::styled(format!(" {}", name("node")), t.header)];
    for c in &cols {
        let w = usize::from(c.width);
        head.push(Span::styled(format!(" {:>w$}", c.header), t.header));
    }
    // The cluster's line under the header: on a low screen the nodes'
    // lines go before it does.
    let mut lines = vec![Line::from(head), line(&total, t.key, t.key)];
    lines.extend(rows.iter().enumerate().map(|(i, r)| {
        let name = if i == app.ui.cluster_selected {
            t.selected
        } else if Some(i) == busiest_node {
            t.accent
        } else {
            t.base
        };
        line(r, name, t.base)
    }));
    f.render_widget(Paragraph::new(lines), inner);
    draw_iops(
        f,
        app,
        inner,
        &rows,
        1 + name_w + cols.iter().map(|c| c.width + 1).sum::<u16>(),
    );
}

/// In the room the figures leave (`used` columns from the left), each live
/// node's IOPS over the window, on its line.
fn draw_iops(f: &mut Frame, app: &App, inner: Rect, rows: &[ClusterRow], used: u16) {
    let t = &app.theme;
    let room = inner.width.saturating_sub(used + 1);
    if room < 8 {
        return;
    }
    let x = inner.x + used + 1;
    f.render_widget(
        Paragraph::new(Span::styled("IOPS", t.header)),
        Rect {
            x,
            width: room,
            height: 1,
            ..inner
        },
    );
    for (i, (n, r)) in app.nodes.iter().zip(rows).enumerate() {
        let y = inner.y + 2 + i as u16;
        if y >= inner.bottom() {
            break;
        }
        if r.shown == NodeShown::Live {
            let area = Rect {
                x,
                y,
                width: room,
                height: 1,
            };
            super::widgets::sparkline(f, area, &n.layers.iops_series(usize::from(room)), t.read);
        }
    }
}

/// `text` cut to `width` characters, the cut marked.
fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let keep: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{keep}…")
}

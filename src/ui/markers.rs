//! The list of markers (`M`), over whatever panel is on screen: each
//! marker's time and label, oldest first; in replay, Enter goes to the one
//! selected.

use crate::app::App;
use crate::format;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Padding, Paragraph};

pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let Some(selected) = app.ui.marker_list else {
        return;
    };
    let t = &app.theme;
    let rows = app.marker_rows();
    let w = 72.min(area.width);
    // Borders and the line of keys take three rows.
    let h = (rows.len().max(1) as u16 + 3).min(area.height.saturating_sub(2).max(4));
    let visible = usize::from(h.saturating_sub(3)).max(1);
    let first = selected.saturating_sub(visible - 1);
    let mut lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(first)
        .take(visible)
        .map(|(i, (at, label))| {
            let style = if i == selected { t.selected } else { t.base };
            let at = format!(" {} ", format::local_datetime(*at));
            // whole words in what the time, the borders and a blank
            // column before the right one leave: a long label ran into it
            let room = usize::from(w).saturating_sub(at.chars().count() + 4);
            let shown = super::widgets::whole_words(label, room.saturating_sub(1));
            let label = if shown.len() < label.len() {
                format!(" {shown}…")
            } else {
                format!(" {label}")
            };
            Line::from(vec![Span::styled(at, t.key), Span::styled(label, style)])
        })
        .collect();
    if rows.is_empty() {
        lines.push(Line::from(Span::styled(
            " no marker yet: m adds one, as strata mark LABEL does",
            t.muted,
        )));
    }
    let keys = if app.replaying() {
        " ↑↓ pick · Enter go to it · Esc close"
    } else {
        " ↑↓ pick · Esc close (strata replay goes to a marker)"
    };
    lines.push(Line::from(Span::styled(keys, t.muted)));
    let title = format!(" Markers ({}) ", rows.len());
    let rect = super::widgets::centered(area, w, h);
    f.render_widget(Clear, rect);
    f.render_widget(
        Paragraph::new(lines).block(super::panel_block(title, t, true).padding(Padding::right(1))),
        rect,
    );
}

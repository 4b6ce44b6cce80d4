//! The help overlay, generated from the keymap's own table.

use crate::app::keymap::KEY_HELP;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

pub fn draw(f: &mut Frame, theme: &Theme, area: Rect) {
    let mut lines: Vec<Line> = KEY_HELP
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!(" {k:<16}"), theme.key),
                Span::styled(*what, theme.base),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    for note in [
        " Figures are iostat -x's, over the interval of /proc/uptime.",
        " – means unknown: never a guess. Dimmed %util: not meaningful",
        " for NVMe, dm and md devices, which serve requests in parallel.",
        " Any key closes this help.",
    ] {
        lines.push(Line::from(Span::styled(note, theme.muted)));
    }
    let w = 78.min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let rect = super::widgets::centered(area, w, h);
    f.render_widget(Clear, rect);
    f.render_widget(
        Paragraph::new(lines).block(super::panel_block(" Keys ", theme, true)),
        rect,
    );
}

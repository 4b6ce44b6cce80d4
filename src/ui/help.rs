//! The help overlay, generated from the keymap's own table.

use crate::app::keymap::KEY_HELP;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Padding, Paragraph};

/// Draws the help from its line `scroll` on, and says how many lines it
/// showed and the first line of its last page: a terminal too short for
/// it all scrolls it rather than losing its end.
pub fn draw(f: &mut Frame, theme: &Theme, area: Rect, scroll: usize) -> (usize, usize) {
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
        " ↑ ↓ PgUp PgDn Home End scroll this help; any other key closes it.",
    ] {
        lines.push(Line::from(Span::styled(note, theme.muted)));
    }
    // the longest line, its borders and a blank column before the right
    // one: at 78 the longest touched it
    let longest = lines.iter().map(Line::width).max().unwrap_or(0);
    let w = u16::try_from(longest + 3)
        .unwrap_or(u16::MAX)
        .min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let rect = super::widgets::centered(area, w, h);
    let shown = usize::from(h.saturating_sub(2));
    let last = lines.len().saturating_sub(shown);
    let first = scroll.min(last);
    let mut block = super::panel_block(" Keys ", theme, true).padding(Padding::right(1));
    if last > 0 {
        let at = format!(
            " lines {}–{} of {} · ↑ ↓ PgUp PgDn scroll ",
            first + 1,
            first + shown,
            lines.len()
        );
        block = block.title_bottom(Line::from(Span::styled(at, theme.muted)).right_aligned());
    }
    let lines: Vec<Line> = lines.into_iter().skip(first).take(shown).collect();
    f.render_widget(Clear, rect);
    f.render_widget(Paragraph::new(lines).block(block), rect);
    (shown, last)
}

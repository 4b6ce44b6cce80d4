//! The replay's timeline: where the position is in the file, its markers
//! and its gaps, on one line above the footer.

use crate::app::session::ReplayStatus;
use crate::format;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// What each cell of the bar shows, most important last (a marker wins
/// over a gap, the position over both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cell {
    Played,
    Ahead,
    Gap,
    Marker,
    Position,
}

/// The bar's cells for a width: pure, so it is tested without a screen.
pub fn cells(r: &ReplayStatus, width: usize) -> Vec<Cell> {
    if width == 0 {
        return Vec::new();
    }
    let span = (r.end_ms - r.start_ms).max(1) as f64;
    let col = |t: i64| -> usize {
        let x = (t - r.start_ms) as f64 / span * (width - 1) as f64;
        (x.round().max(0.0) as usize).min(width - 1)
    };
    let pos = col(r.pos_ms);
    let mut out: Vec<Cell> = (0..width)
        .map(|i| if i <= pos { Cell::Played } else { Cell::Ahead })
        .collect();
    for (from, to) in &r.gaps {
        for c in &mut out[col(*from)..=col(*to)] {
            *c = (*c).max(Cell::Gap);
        }
    }
    for (t, _) in &r.markers {
        out[col(*t)] = Cell::Marker;
    }
    out[pos] = Cell::Position;
    out
}

pub fn draw(f: &mut Frame, t: &Theme, r: &ReplayStatus, area: Rect) {
    let left = format!(" {} ", format::local_time(r.start_ms));
    let right = format!(
        " {} / {}  ×{} ",
        format::local_datetime(r.pos_ms),
        format::local_time(r.end_ms),
        r.speed
    );
    let width = (area.width as usize).saturating_sub(left.chars().count() + right.chars().count());
    let mut spans = vec![Span::styled(left, t.muted)];
    for c in cells(r, width) {
        spans.push(match c {
            Cell::Played => Span::styled("━", t.accent),
            Cell::Ahead => Span::styled("─", t.muted),
            Cell::Gap => Span::styled("░", t.warn),
            Cell::Marker => Span::styled("▼", t.key),
            Cell::Position => Span::styled("●", t.title),
        });
    }
    spans.push(Span::styled(right, t.base));
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_markers_and_gaps_land_where_their_times_are() {
        let r = ReplayStatus {
            file: String::new(),
            start_ms: 0,
            end_ms: 100_000,
            pos_ms: 50_000,
            playing: false,
            speed: 1,
            markers: vec![(10_000, "a".into())],
            gaps: vec![(80_000, 90_000)],
        };
        let c = cells(&r, 11);
        use Cell::*;
        assert_eq!(
            c,
            [
                Played, Marker, Played, Played, Played, Position, Ahead, Ahead, Gap, Gap, Ahead
            ]
        );
    }
}

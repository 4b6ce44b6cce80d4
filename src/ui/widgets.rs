//! Pieces several views draw: window statistics, sparklines, charts.

use crate::format;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Sparkline, SparklineBar};

/// Minimum, average and maximum of the known values of a window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowStats {
    pub min: f64,
    pub avg: f64,
    pub max: f64,
}

pub fn window_stats(values: &[f32]) -> Option<WindowStats> {
    let known = values
        .iter()
        .filter(|v| v.is_finite())
        .map(|v| f64::from(*v));
    let (mut n, mut sum, mut min, mut max) = (0usize, 0.0, f64::INFINITY, f64::NEG_INFINITY);
    for v in known {
        n += 1;
        sum += v;
        min = min.min(v);
        max = max.max(v);
    }
    (n > 0).then(|| WindowStats {
        min,
        avg: sum / n as f64,
        max,
    })
}

/// A sparkline of the newest values that fit `area`; gaps stay empty.
pub fn sparkline(f: &mut Frame, area: Rect, values: &[f32], style: Style) {
    let n = area.width as usize;
    let tail = &values[values.len().saturating_sub(n)..];
    // Sparkline takes integers: keep two decimals of resolution.
    let bars: Vec<SparklineBar> = tail
        .iter()
        .map(|v| {
            if v.is_finite() {
                SparklineBar::from(Some((f64::from(*v) * 100.0).round().max(0.0) as u64))
            } else {
                SparklineBar::from(None)
            }
        })
        .collect();
    f.render_widget(Sparkline::default().data(bars).style(style), area);
}

/// One series of a chart.
pub struct Series<'a> {
    pub label: &'a str,
    pub values: Vec<f32>,
    pub style: Style,
}

/// A braille line chart of one or two series over the same ticks, titled
/// with each series' current value and min/avg/max over the window.
pub fn chart(
    f: &mut Frame,
    area: Rect,
    title: &str,
    unit: &str,
    series: &[Series],
    times: &[i64],
    theme: &Theme,
) {
    // Braille gives two dots per column; more points than that only cost
    // line drawing, so keep each bucket's min and max (spikes survive).
    let buckets = area.width.saturating_sub(10).max(1) as usize * 2;
    let points: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|s| {
            let offset = times.len().saturating_sub(s.values.len());
            let all: Vec<(f64, f64)> = s
                .values
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_finite())
                .map(|(i, v)| ((offset + i) as f64, f64::from(*v)))
                .collect();
            decimate(&all, buckets)
        })
        .collect();
    let ymax = points.iter().flatten().map(|p| p.1).fold(0.0, f64::max);
    let ymax = if ymax > 0.0 { ymax * 1.1 } else { 1.0 };
    let xmax = times.len().saturating_sub(1).max(1) as f64;
    let mut title_spans = vec![Span::styled(format!(" {title} "), theme.title)];
    for s in series {
        let now = s
            .values
            .last()
            .copied()
            .filter(|v| v.is_finite())
            .map(f64::from);
        let stats = window_stats(&s.values);
        title_spans.push(Span::styled(format!("{} ", s.label), s.style));
        title_spans.push(Span::styled(
            format!("{} ", format::fit(now, 9, 2)),
            theme.base,
        ));
        title_spans.push(Span::styled(
            match stats {
                Some(w) => format!(
                    "[{}/{}/{}] ",
                    format::fit(Some(w.min), 8, 2),
                    format::fit(Some(w.avg), 8, 2),
                    format::fit(Some(w.max), 8, 2)
                ),
                None => format!("[{0}/{0}/{0}] ", format::UNKNOWN),
            },
            theme.muted,
        ));
    }
    let datasets: Vec<Dataset> = series
        .iter()
        .zip(&points)
        .map(|(s, p)| {
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(s.style)
                .data(p)
        })
        .collect();
    let first = times
        .first()
        .map(|t| format::local_time(*t))
        .unwrap_or_default();
    let last = times
        .last()
        .map(|t| format::local_time(*t))
        .unwrap_or_default();
    let block = Block::bordered()
        .border_style(theme.border)
        .title(Line::from(title_spans))
        .title_bottom(
            Line::from(Span::styled(" min/avg/max over the window ", theme.muted)).right_aligned(),
        )
        .style(theme.base);
    let chart = Chart::new(datasets)
        .block(block)
        .x_axis(
            Axis::default()
                .bounds([0.0, xmax])
                .labels([
                    Span::styled(first, theme.muted),
                    Span::styled(last, theme.muted),
                ])
                .style(theme.border),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, ymax])
                .labels([
                    Span::styled("0", theme.muted),
                    Span::styled(
                        format!("{}{unit}", format::fit(Some(ymax), 7, 1)),
                        theme.muted,
                    ),
                ])
                .style(theme.border),
        );
    f.render_widget(chart, area);
}

/// At most two points (the lowest and the highest, in x order) per bucket
/// of consecutive points.
pub fn decimate(points: &[(f64, f64)], buckets: usize) -> Vec<(f64, f64)> {
    if points.len() <= buckets * 2 || buckets == 0 {
        return points.to_vec();
    }
    let per = points.len().div_ceil(buckets);
    let mut out = Vec::with_capacity(buckets * 2);
    for chunk in points.chunks(per) {
        let lo = chunk.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        let hi = chunk.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(&lo), Some(&hi)) = (lo, hi) {
            if lo.0 <= hi.0 {
                out.extend([lo, hi]);
            } else {
                out.extend([hi, lo]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_extremes_and_order() {
        let pts: Vec<(f64, f64)> = (0..1000)
            .map(|i| (i as f64, if i == 500 { 99.0 } else { 1.0 }))
            .collect();
        let d = decimate(&pts, 10);
        assert!(d.len() <= 20);
        assert!(d.iter().any(|p| p.1 == 99.0));
        assert!(d.windows(2).all(|w| w[0].0 <= w[1].0));
        assert_eq!(decimate(&pts[..15], 10).len(), 15);
    }

    #[test]
    fn stats_skip_gaps() {
        let w = window_stats(&[1.0, f32::NAN, 3.0]).unwrap();
        assert_eq!((w.min, w.avg, w.max), (1.0, 2.0, 3.0));
        assert!(window_stats(&[f32::NAN]).is_none());
        assert!(window_stats(&[]).is_none());
    }
}

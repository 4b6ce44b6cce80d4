//! Pieces several views draw: window statistics, sparklines, charts.

use crate::app::state::Marker;
use crate::format;
use crate::layers::layer::Layer;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols;
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
    sparkline_to(f, area, values, None, style);
}

/// The part of a sparkline laid out over `axis` (oldest value at its left,
/// as [`sparkline`] draws one) that falls in `area`, a right part of
/// `axis`: a sparkline with a label before it then keeps its columns'
/// times those of the full-width ones above it, window full or not.
pub fn sparkline_within(f: &mut Frame, axis: Rect, area: Rect, values: &[f32], style: Style) {
    let tail = &values[values.len().saturating_sub(usize::from(axis.width))..];
    let skip = usize::from(area.x.saturating_sub(axis.x));
    sparkline(f, area, tail.get(skip..).unwrap_or_default(), style);
}

/// A sparkline as [`sparkline`], its full height at `max` (the highest of
/// its values when `None`): sparklines on one scale compare.
pub fn sparkline_to(f: &mut Frame, area: Rect, values: &[f32], max: Option<f32>, style: Style) {
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
    let mut line = Sparkline::default().data(bars).style(style);
    if let Some(max) = max.filter(|m| m.is_finite() && *m > 0.0) {
        line = line.max((f64::from(max) * 100.0).round() as u64);
    }
    f.render_widget(line, area);
}

/// One series of a chart.
pub struct Series<'a> {
    pub label: &'a str,
    /// The history, kept as f32: enough to draw, not to print.
    pub values: Vec<f32>,
    /// The figure now, as the table next to the chart prints it (the
    /// tick's f64): the title says this, so that title and table agree to
    /// the last decimal, which the f32 history's last value may not.
    pub now: Option<f64>,
    pub style: Style,
}

/// A chart's x axis: the history's sample times, oldest first, and the
/// markers to show over them.
pub struct TimeAxis<'a> {
    pub times: Vec<i64>,
    pub marks: &'a [Marker],
}

impl<'a> TimeAxis<'a> {
    /// The axis of a layer's charts: its whole history window.
    pub fn of<T: Clone>(layer: &Layer<T>, marks: &'a [Marker]) -> Self {
        TimeAxis {
            times: layer.series_times(layer.history.capacity()),
            marks,
        }
    }
}

/// A chart's title: its name, then each series' label, current value and
/// min/avg/max over the window.
fn chart_title(title: &str, series: &[Series], theme: &Theme) -> Vec<Span<'static>> {
    whole_title(title, &title_groups(title, series, theme), theme)
}

/// [`chart_title`] from the groups [`title_groups`] made.
fn whole_title(
    title: &str,
    groups: &[(Vec<Span<'static>>, Span<'static>)],
    theme: &Theme,
) -> Vec<Span<'static>> {
    let mut spans = vec![Span::styled(format!(" {title} "), theme.title)];
    for (now, stats) in groups {
        spans.extend(now.iter().cloned());
        spans.push(stats.clone());
    }
    spans
}

/// Per series, its label and current value, and its min/avg/max over the
/// window.
fn title_groups(
    title: &str,
    series: &[Series],
    theme: &Theme,
) -> Vec<(Vec<Span<'static>>, Span<'static>)> {
    series
        .iter()
        .map(|s| {
            let mut spans = Vec::new();
            // "%util 0.40", not "%util %util 0.40": a lone series the
            // title already names needs no label of its own.
            if !(series.len() == 1 && title.contains(s.label)) {
                spans.push(Span::styled(format!("{} ", s.label), s.style));
            }
            spans.push(Span::styled(
                format!("{} ", format::figure(s.now)),
                theme.base,
            ));
            let stats = match window_stats(&s.values) {
                Some(w) => format!(
                    "[{}/{}/{}] ",
                    format::figure(Some(w.min)),
                    format::figure(Some(w.avg)),
                    format::figure(Some(w.max))
                ),
                None => format!("[{0}/{0}/{0}] ", format::UNKNOWN),
            };
            (spans, Span::styled(stats, theme.muted))
        })
        .collect()
}

/// The columns [`chart`]'s title takes, to see whether it fits.
pub fn chart_title_width(title: &str, series: &[Series], theme: &Theme) -> usize {
    Line::from(chart_title(title, series, theme)).width()
}

/// A chart's top and bottom titles in `room` columns, no figure cut: the
/// whole title when it fits; else the current values on top and the
/// min/avg/max below, each series' figures whole or left out.
fn fitted_titles(
    title: &str,
    series: &[Series],
    theme: &Theme,
    room: usize,
) -> (Line<'static>, Line<'static>) {
    // each group's min/avg/max reads the series' whole window: once for
    // the whole title and its fitted parts alike
    let groups = title_groups(title, series, theme);
    let full = whole_title(title, &groups, theme);
    if Line::from(full.clone()).width() <= room {
        let bottom = [" min/avg/max over the window ", " min/avg/max "]
            .into_iter()
            .find(|b| b.chars().count() <= room)
            .map(|b| Line::from(Span::styled(b, theme.muted)))
            .unwrap_or_default();
        return (Line::from(full), bottom);
    }
    // a name too long loses its leading words ("dbsnmp@//prod-scan:1521/PROD
    // dNFS IOPS" → "dNFS IOPS"): what the chart is of, the view says
    let mut name = title;
    while name.chars().count() + 2 > room {
        match name.split_once(' ') {
            Some((_, rest)) => name = rest,
            None => break,
        }
    }
    let mut top = vec![Span::styled(format!(" {name} "), theme.title)];
    let mut bottom = vec![Span::raw(" ")];
    let width = |spans: &[Span]| Line::from(spans.to_vec()).width();
    // in the series' order: a later series' figures without an earlier
    // one's would read as the earlier's
    let (mut top_full, mut bottom_full) = (false, false);
    for (now, stats) in groups {
        top_full = top_full || width(&top) + width(&now) > room;
        if !top_full {
            top.extend(now.clone());
        }
        // below, a series is named when there are two
        let named = usize::from(series.len() > 1);
        let mut below: Vec<Span> = now.into_iter().take(named).collect();
        below.push(stats);
        bottom_full = bottom_full || width(&bottom) + width(&below) + "min/avg/max ".len() > room;
        if !bottom_full {
            bottom.extend(below);
        }
    }
    let bottom = if bottom.len() > 1 {
        bottom.push(Span::styled("min/avg/max ", theme.muted));
        Line::from(bottom)
    } else {
        Line::default()
    };
    (Line::from(top), bottom)
}

/// One chart of [`charts`]: its title, unit and series.
pub type ChartSpec<'u, 's, S> = (S, &'u str, Vec<Series<'s>>);

/// The least height of a chart: its border, three rows of plot (a peak
/// shows), its time axis and the axis' labels.
pub const CHART_MIN: u16 = 7;

/// Charts in equal shares of `area`, one under the other or side by side
/// (`direction`), each its title, unit and series over the same axis.
/// One under the other, as many as have [`CHART_MIN`] rows each, and a
/// line naming those left out: at 80×24 a device's five charts were one
/// row of plot each, where no peak shows.
pub fn charts<S: AsRef<str>>(
    f: &mut Frame,
    area: Rect,
    direction: Direction,
    specs: &[ChartSpec<'_, '_, S>],
    x: &TimeAxis,
    theme: &Theme,
) {
    let fits = usize::from(area.height / CHART_MIN);
    let (specs, area) = if direction == Direction::Vertical && fits < specs.len() {
        // the line that names the others costs a row: one chart at least
        let shown = usize::from(area.height.saturating_sub(1) / CHART_MIN).max(1);
        let [charts, note] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(area);
        let left = specs.len() - shown;
        let parts: Vec<&str> = std::iter::once(if left == 1 {
            "a taller terminal shows 1 more chart"
        } else {
            "a taller terminal shows more charts"
        })
        .chain(specs[shown..].iter().map(|s| s.0.as_ref()))
        .collect();
        let said = super::whole_parts(&parts, usize::from(note.width));
        f.render_widget(Span::styled(said, theme.muted), note);
        (&specs[..shown], charts)
    } else {
        (specs, area)
    };
    let share = Constraint::Ratio(1, specs.len() as u32);
    let areas = Layout::new(direction, vec![share; specs.len()]).split(area);
    for ((title, unit, series), a) in specs.iter().zip(areas.iter()) {
        chart(f, *a, title.as_ref(), unit, series, x, theme);
    }
}

/// A braille line chart of one or two series over the same ticks, titled
/// with each series' current value and min/avg/max over the window, with
/// the markers of its window (see [`draw_marks`]).
pub fn chart(
    f: &mut Frame,
    area: Rect,
    title: &str,
    unit: &str,
    series: &[Series],
    x: &TimeAxis,
    theme: &Theme,
) {
    let times = x.times.as_slice();
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
    let ymax = match ymax {
        // a share's headroom stops at 100: an axis of "100.1%" reads as
        // an impossible figure
        m if unit == "%" && m > 0.0 => (m * 1.1).min(100.0).max(m),
        m if m > 0.0 => m * 1.1,
        _ => 1.0,
    };
    let xmax = times.len().saturating_sub(1).max(1) as f64;
    let (top, bottom) = fitted_titles(
        title,
        series,
        theme,
        usize::from(area.width.saturating_sub(2)),
    );
    let datasets: Vec<Dataset> = series
        .iter()
        .zip(&points)
        .map(|(s, p)| {
            Dataset::default()
                .marker(symbols::Marker::Braille)
                .graph_type(GraphType::Line)
                .style(s.style)
                .data(p)
        })
        .collect();
    let y_top = format!("{}{unit}", format::fit(Some(ymax), 7, axis_decimals(ymax)));
    // ratatui gives the last time label half the plot's width; the plot
    // starts after the y labels (or the first time label, less one) and
    // the axis. A narrow chart says hh:mm, or no time, rather than
    // "0:19:24" for 00:19:24.
    let (inner_w, y_w) = (
        usize::from(area.width.saturating_sub(2)),
        Span::raw(y_top.as_str()).width(),
    );
    let fits = |label_w: usize| {
        let plot_w = inner_w.saturating_sub(y_w.max(label_w - 1) + 1);
        plot_w / 2 >= label_w
    };
    let chars = [8, 5].into_iter().find(|&w| fits(w)).unwrap_or(0);
    let label = |t: Option<&i64>| {
        t.map(|&t| {
            format::local_time(t)
                .chars()
                .take(chars)
                .collect::<String>()
        })
        .unwrap_or_default()
    };
    let (first, last) = (label(times.first()), label(times.last()));
    let block = Block::bordered()
        .border_style(theme.border)
        .title(top)
        .title_bottom(bottom.right_aligned())
        .style(theme.base);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let (plot, labels_row) = plot_area(inner, x);
    let chart = Chart::new(datasets)
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
                    Span::styled(y_top, theme.muted),
                ])
                .style(theme.border),
        );
    f.render_widget(chart, plot);
    if let Some(graph) = graph_area(f.buffer_mut(), plot) {
        let marks = mark_columns(times, x.marks, graph.width);
        let labels = labels_row.then(|| Rect {
            y: inner.y,
            height: 1,
            width: inner.right() - graph.x,
            ..graph
        });
        draw_marks(f.buffer_mut(), graph, labels, &marks, theme);
    }
}

/// Where a chart plots inside its border, and whether its markers'
/// labels take a row above: on the plot's top row they hid the points
/// there, a peak among them. Only where a marker is in the window, and
/// the plot keeps rows.
fn plot_area(inner: Rect, x: &TimeAxis) -> (Rect, bool) {
    let in_window = match (x.times.first(), x.times.last()) {
        (Some(a), Some(b)) => x.marks.iter().any(|m| (*a..=*b).contains(&m.wall_ms)),
        _ => false,
    };
    if in_window && inner.height >= MARKS_MIN_HEIGHT {
        let plot = Rect {
            y: inner.y + 1,
            height: inner.height - 1,
            ..inner
        };
        (plot, true)
    } else {
        (inner, false)
    }
}

/// The least inner height of a chart that gives its markers' labels a row
/// above the plot: that row, two of plot, the time axis and its labels.
/// Lower, a marker is its ▼ alone on the plot's top row.
const MARKS_MIN_HEIGHT: u16 = 5;

/// `groups` of spans (a label and its figure, or a figure) on one line of
/// `width` columns: the first always, then those that fit whole; a line
/// of figures too narrow drops its last figures rather than cut one.
pub fn whole_groups<'a>(groups: Vec<Vec<Span<'a>>>, width: u16) -> Line<'a> {
    let mut used = 0;
    let mut out = Vec::new();
    for (k, g) in groups.into_iter().enumerate() {
        let w: usize = g.iter().map(Span::width).sum();
        if k > 0 && used + w > usize::from(width) {
            break;
        }
        used += w;
        out.extend(g);
    }
    Line::from(out)
}

/// [`whole_groups`] of lines whose spans each stand alone.
pub fn whole_spans<'a>(lines: Vec<Line<'a>>, width: u16) -> Vec<Line<'a>> {
    lines
        .into_iter()
        .map(|l| {
            let groups = l.spans.into_iter().map(|s| vec![s]).collect();
            whole_groups(groups, width)
        })
        .collect()
}

/// Decimals enough that the axis' top says its value: 0.03, not "0.0".
fn axis_decimals(ymax: f64) -> usize {
    if ymax >= 10.0 {
        1
    } else if ymax >= 0.1 {
        2
    } else {
        3
    }
}

/// Where a chart drawn in `inner` plots: right of its y axis and above its
/// x axis, found by the axes' corner, so the marks follow whatever room the
/// chart gave its labels.
fn graph_area(buf: &Buffer, inner: Rect) -> Option<Rect> {
    let corner = symbols::line::BOTTOM_LEFT;
    (inner.top()..inner.bottom()).rev().find_map(|y| {
        (inner.left()..inner.right())
            .find(|&x| buf.cell((x, y)).is_some_and(|c| c.symbol() == corner))
            .map(|x| Rect::new(x + 1, inner.y, inner.right() - x - 1, y - inner.y))
    })
}

/// The column (from the plot's left) and label of each marker within a
/// chart of `times` plotted `width` columns wide: a marker stands at the
/// first sample at or after it, in the column the braille grid puts that
/// sample (two dots a column, the x bounds 0 to the last index, as
/// [`chart`] sets them). Markers outside the samples' span are left out.
pub fn mark_columns<'a>(times: &[i64], marks: &'a [Marker], width: u16) -> Vec<(u16, &'a str)> {
    let (Some(first), Some(last)) = (times.first(), times.last()) else {
        return Vec::new();
    };
    if width == 0 {
        return Vec::new();
    }
    let xmax = times.len().saturating_sub(1).max(1) as f64;
    let dots = f64::from(width) * 2.0 - 1.0;
    let mut out: Vec<(u16, &str)> = marks
        .iter()
        .filter(|m| (*first..=*last).contains(&m.wall_ms))
        .map(|m| {
            let i = times.partition_point(|t| *t < m.wall_ms) as f64;
            let col = ((i * dots / xmax).round() as u16 / 2).min(width - 1);
            (col, m.label.as_str())
        })
        .collect();
    out.sort_by_key(|m| m.0);
    out
}

/// Each marker: a ▼ on `labels`, the row above the plot, with as many
/// whole words of its label as fit before the next marker (a word cut in
/// two could be a figure: "70/3" of "70/30"), and a dotted line down its
/// column where no point of a series is. Without that row, the ▼ alone
/// on the plot's top row: a label there would hide points.
fn draw_marks(
    buf: &mut Buffer,
    graph: Rect,
    labels: Option<Rect>,
    marks: &[(u16, &str)],
    theme: &Theme,
) {
    let (row, first_dot, width) = match labels {
        Some(r) => (r.y, graph.top(), r.width),
        None => (graph.y, graph.top() + 1, graph.width),
    };
    for (k, (col, label)) in marks.iter().enumerate() {
        let x = graph.x + col;
        let next = marks.get(k + 1).map_or(width, |m| m.0);
        for y in first_dot..graph.bottom() {
            if let Some(c) = buf.cell_mut((x, y)).filter(|c| c.symbol() == " ") {
                c.set_symbol("┊").set_style(theme.key);
            }
        }
        let room = if labels.is_some() {
            next.saturating_sub(col + 1) as usize
        } else {
            1
        };
        let text = format!("▼{}", whole_words(label, room.saturating_sub(1)));
        buf.set_stringn(x, row, &text, room.max(1), theme.key);
    }
}

/// The leading words of `text` that fit in `room` columns, without the
/// punctuation that ended the last one.
pub(crate) fn whole_words(text: &str, room: usize) -> &str {
    if text.chars().count() <= room {
        return text;
    }
    let end = text
        .char_indices()
        .filter(|&(i, c)| c == ' ' && text[..i].chars().count() <= room)
        .map(|(i, _)| i)
        .next_back()
        .unwrap_or(0);
    text[..end].trim_end_matches([' ', ':', ',', ';'])
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

/// A `w`×`h` rectangle in the middle of `area` (cut to fit), where an
/// overlay is drawn.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let (w, h) = (w.min(area.width), h.min(area.height));
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// The rows `lines` take in a paragraph `width` cells wide that wraps
/// them at words (`Wrap { trim: false }`, as every caller draws them): a
/// word carried to the next row can take a row more than cutting would.
pub fn wrapped_rows(lines: &[Line], width: usize) -> usize {
    let w = u16::try_from(width.max(1)).unwrap_or(u16::MAX);
    ratatui::widgets::Paragraph::new(lines.to_vec())
        .wrap(ratatui::widgets::Wrap { trim: false })
        .line_count(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three six-letter words in ten columns: twenty cells cut into two
    /// rows, but a paragraph wraps them at words into three.
    #[test]
    fn wrapped_rows_counts_rows_as_words_wrap() {
        let lines = [Line::raw("aaaaaa bbbbbb cccccc"), Line::raw("")];
        assert_eq!(wrapped_rows(&lines, 10), 4);
        assert_eq!(wrapped_rows(&lines, 20), 2);
    }

    /// The time labels under a chart are whole at every width: hh:mm:ss,
    /// hh:mm where that does not fit, or none. A cells chart 25 wide once
    /// read "00:19:24        0:19:28".
    #[test]
    fn the_time_labels_are_whole_at_every_width() {
        let theme = Theme::default();
        let times: Vec<i64> = (0..30).map(|i| 1_795_000_000_000 + i * 1000).collect();
        let (first, last) = (format::local_time(times[0]), format::local_time(times[29]));
        let whole = |w: &str| {
            [&first, &last]
                .iter()
                .any(|t| w == t.as_str() || (w.len() == 5 && t.starts_with(w)))
        };
        let mut full = Vec::new();
        for width in 12..=60u16 {
            let backend = ratatui::backend::TestBackend::new(width, 8);
            let mut term = ratatui::Terminal::new(backend).unwrap();
            let x = TimeAxis {
                times: times.clone(),
                marks: &[],
            };
            let series = [Series {
                label: "r/s",
                values: (0..30).map(|i| i as f32 * 0.05).collect(),
                now: Some(1.45),
                style: Style::default(),
            }];
            term.draw(|f| chart(f, f.area(), "IOPS", "", &series, &x, &theme))
                .unwrap();
            let buf = term.backend().buffer();
            // the labels' row: above the bottom border
            let row: String = (0..width)
                .map(|x| buf[(x, 6)].symbol().to_string())
                .collect();
            let words: Vec<&str> = row.split(|c: char| c == '│' || c.is_whitespace()).collect();
            for w in words.iter().filter(|w| !w.is_empty()) {
                assert!(whole(w), "{width}: {w:?} in {row:?}");
            }
            if row.contains(&last) {
                full.push(width);
            }
        }
        assert!(full.contains(&30) && !full.contains(&25), "{full:?}");
    }

    /// A share's axis: headroom above the highest point, but never past
    /// 100 % (91 % once gave an axis of "100.1%"); a point above 100 (a
    /// counter's quirk) is still inside the chart.
    #[test]
    fn a_percent_axis_stops_at_100() {
        let theme = Theme::default();
        let axis = |unit: &str, v: f32| -> String {
            let backend = ratatui::backend::TestBackend::new(60, 8);
            let mut term = ratatui::Terminal::new(backend).unwrap();
            let x = TimeAxis {
                times: vec![1_000, 2_000, 3_000],
                marks: &[],
            };
            let series = [Series {
                label: "%util",
                values: vec![v / 2.0, v, v],
                now: Some(f64::from(v)),
                style: Style::default(),
            }];
            term.draw(|f| chart(f, f.area(), "%util", unit, &series, &x, &theme))
                .unwrap();
            format!("{:?}", term.backend().buffer())
        };
        let pct = axis("%", 91.0);
        assert!(pct.contains("100.0%") && !pct.contains("100.1%"), "{pct}");
        assert!(axis("%", 40.0).contains("44.0%"));
        assert!(axis("%", 120.0).contains("120.0%"));
        assert!(axis("/s", 91.0).contains("100.1/s"));
    }

    #[test]
    fn a_title_names_its_figure_once_and_the_axis_says_its_top() {
        let theme = Theme::default();
        let text = |title: &str, labels: &[&'static str]| -> String {
            let series: Vec<Series> = labels
                .iter()
                .map(|l| Series {
                    label: l,
                    values: vec![0.4],
                    now: Some(0.4),
                    style: Style::default(),
                })
                .collect();
            chart_title(title, &series, &theme)
                .iter()
                .map(|s| s.content.to_string())
                .collect()
        };
        for title in ["%util", "sda %util"] {
            let t = text(title, &["%util"]);
            assert_eq!(t.matches("%util").count(), 1, "{t}");
            assert!(t.contains("0.40"), "{t}");
        }
        // the figure now is the table's f64, not the f32 history's last
        // value (51826.966 kept as f32 prints 51826.96)
        let cells = [Series {
            label: "r/s",
            values: vec![51826.966],
            now: Some(51826.966),
            style: Style::default(),
        }];
        let t: String = chart_title("IOPS", &cells, &theme)
            .iter()
            .map(|s| s.content.to_string())
            .collect();
        assert!(t.contains("r/s 51826.97 "), "{t}");
        assert_eq!(format!("{:.2}", 51826.966f32), "51826.96");
        // two series keep their labels: which is which
        let t = text("IOPS", &["r/s", "w/s"]);
        assert!(t.contains("r/s ") && t.contains("w/s "), "{t}");
        assert_eq!(format::fit(Some(0.033), 7, axis_decimals(0.033)), "0.033");
        assert_eq!(format::fit(Some(6.98), 7, axis_decimals(6.98)), "6.98");
        assert_eq!(
            format::fit(Some(3030.5), 7, axis_decimals(3030.5)),
            "3030.5"
        );
    }

    #[test]
    fn a_title_too_wide_moves_its_window_below_and_never_cuts_a_figure() {
        let theme = Theme::default();
        let series = [
            Series {
                label: "r/s",
                values: vec![0.0, 10786.1, 51826.96],
                now: Some(51826.96),
                style: Style::default(),
            },
            Series {
                label: "w/s",
                values: vec![1.0, 2.0, 3.0],
                now: Some(3.0),
                style: Style::default(),
            },
        ];
        let text = |l: &Line| -> String { l.spans.iter().map(|s| s.content.to_string()).collect() };
        let (top, bottom) = fitted_titles("DISK IOPS", &series, &theme, 200);
        assert!(text(&top).contains("[0.00/"), "{}", text(&top));
        assert!(text(&bottom).contains("over the window"));
        let (top, bottom) = fitted_titles("DISK IOPS", &series, &theme, 50);
        assert_eq!(text(&top), " DISK IOPS r/s 51826.96 w/s 3.00 ");
        assert_eq!(text(&bottom), " r/s [0.00/20871.02/51826.96] min/avg/max ");
        assert!(top.width() <= 50 && bottom.width() <= 50);
        // too narrow for w/s: left out, not cut
        let (top, bottom) = fitted_titles("DISK IOPS", &series, &theme, 26);
        assert_eq!(text(&top), " DISK IOPS r/s 51826.96 ");
        assert_eq!(text(&bottom), "");
    }

    #[test]
    fn a_marker_label_keeps_whole_words() {
        let label = "fio: 70/30 random read/write, queue depth 8";
        assert_eq!(whole_words(label, 100), label);
        assert_eq!(whole_words(label, 9), "fio");
        assert_eq!(whole_words(label, 10), "fio: 70/30");
        assert_eq!(whole_words(label, 3), "");
    }

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
    fn a_marker_stands_at_the_first_sample_at_or_after_it() {
        let times: Vec<i64> = (0..10).map(|k| k * 1000).collect();
        let m = |t: i64, l: &str| Marker {
            wall_ms: t,
            label: l.into(),
        };
        let marks = [
            m(9000, "last"),
            m(0, "first"),
            m(4500, "between"),
            m(-1, "before"),
            m(9001, "after"),
        ];
        // 5 columns, 10 dots: sample i at dot round(i * 9 / 9).
        assert_eq!(
            mark_columns(&times, &marks, 5),
            [(0, "first"), (2, "between"), (4, "last")]
        );
        assert!(mark_columns(&[], &marks, 5).is_empty());
        assert!(mark_columns(&times, &marks, 0).is_empty());
        // One sample: every marker at it, in the first column.
        assert_eq!(mark_columns(&[0], &marks, 5), [(0, "first")]);
    }

    #[test]
    fn stats_skip_gaps() {
        let w = window_stats(&[1.0, f32::NAN, 3.0]).unwrap();
        assert_eq!((w.min, w.avg, w.max), (1.0, 2.0, 3.0));
        assert!(window_stats(&[f32::NAN]).is_none());
        assert!(window_stats(&[]).is_none());
    }
}

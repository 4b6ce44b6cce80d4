//! The scrolled, sortable table every panel draws its entities in.

use crate::app::list::ListUi;
use crate::format;
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Row, Table, TableState};

/// Width of a figure column: the widest figures fit in 8.
pub(crate) const FIG_WIDTH: u16 = 8;

/// A column of a table: its header and width; figures are right-aligned.
pub(crate) struct Col {
    pub header: String,
    pub width: u16,
    pub figure: bool,
}

impl Col {
    pub fn text(header: impl Into<String>, width: u16) -> Col {
        Col {
            header: header.into(),
            width,
            figure: false,
        }
    }

    pub fn figure(header: impl Into<String>) -> Col {
        let header = header.into();
        let width = (header.chars().count() as u16).max(FIG_WIDTH);
        Col {
            header,
            width,
            figure: true,
        }
    }
}

/// A figure right-aligned in `width`, "–" when unknown, in `style`
/// (unknown figures are always muted).
pub(crate) fn figure<'a>(v: Option<f64>, width: u16, t: &Theme, style: Style) -> Cell<'a> {
    let text = format::fit(v, width as usize, 2);
    let style = if v.is_some() { style } else { t.muted };
    Cell::from(Line::from(Span::styled(text, style)).right_aligned())
}

/// A panel's title: " NICs · 7 of 9 interfaces · sort rKB/s ↓ · filter
/// "eth" ", from what the user asked of its `list`.
pub(crate) fn panel_title(
    app: &crate::app::App,
    what: &str,
    (shown, total, noun): (usize, usize, &str),
    list: &ListUi,
    sort: &str,
) -> String {
    let filter = app.ui.filter_edit.as_deref().unwrap_or(&app.ui.filter);
    let mut title = format!(
        " {what} · {shown} of {total} {noun} · sort {sort} {}",
        if list.desc { "↓" } else { "↑" }
    );
    if !filter.is_empty() {
        title.push_str(&format!(" · filter \"{filter}\""));
    }
    title.push(' ');
    title
}

/// Width of a name column that fits the longest of `names`, within reason.
pub(crate) fn name_width<'a>(names: impl IntoIterator<Item = &'a str>, header: &str) -> u16 {
    names
        .into_iter()
        .map(|n| n.chars().count())
        .chain(std::iter::once(header.chars().count()))
        .max()
        .unwrap_or(6)
        .clamp(6, 40) as u16
}

/// Draws `n` rows of which `row(i)` builds the i-th, only for the rows on
/// screen, keeps row `selected` visible and highlights it. `sorted` marks the
/// header of the sort column. Returns the number of rows that fit.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw<'a>(
    f: &mut Frame,
    area: Rect,
    t: &Theme,
    cols: &[Col],
    sorted: Option<usize>,
    n: usize,
    selected: usize,
    list: &mut ListUi,
    row: impl Fn(usize) -> Row<'a>,
) -> usize {
    let header: Vec<Cell> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let style = if sorted == Some(i) {
                t.accent
            } else {
                t.header
            };
            let line = Line::from(c.header.clone());
            let line = if c.figure { line.right_aligned() } else { line };
            Cell::from(line).style(style)
        })
        .collect();
    let visible = area.height.saturating_sub(1).max(1) as usize;
    let first = list.first_shown(selected, n, visible);
    list.offset = first;
    let body: Vec<Row> = (first..n).take(visible).map(row).collect();
    let widths: Vec<Constraint> = cols.iter().map(|c| Constraint::Length(c.width)).collect();
    let table = Table::new(body, widths)
        .header(Row::new(header).style(t.header))
        .row_highlight_style(t.selected)
        .column_spacing(1);
    let mut state = TableState::default().with_selected((n > 0).then(|| selected - first));
    f.render_stateful_widget(table, area, &mut state);
    visible
}

//! Selection, sort order and scroll position of one table, kept by name so
//! that rows coming and going between ticks do not move the selection.

use std::cmp::Ordering;

/// Index of `selected` among `names`; the first when it is gone.
pub fn index_of<'a>(selected: Option<&str>, names: impl IntoIterator<Item = &'a str>) -> usize {
    selected
        .and_then(|s| names.into_iter().position(|n| n == s))
        .unwrap_or(0)
}

/// Moves `selected` by `delta` rows among `names`, clamped to them; a
/// selection kept by name outside a [`ListUi`] (a disk's parts) steps so too.
pub fn step_selected<S: AsRef<str>>(selected: &mut Option<String>, names: &[S], delta: isize) {
    if names.is_empty() {
        return;
    }
    let i = index_of(selected.as_deref(), names.iter().map(AsRef::as_ref)) as isize;
    let j = i.saturating_add(delta).clamp(0, names.len() as isize - 1) as usize;
    *selected = Some(names[j].as_ref().to_string());
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListUi {
    /// Name of the selected row.
    pub selected: Option<String>,
    /// Column sorted on; `None` sorts by name.
    pub sort: Option<usize>,
    pub desc: bool,
    /// First row the table showed, so scrolling does not jump.
    pub offset: usize,
    /// First scrolled column shown (h/l), when the columns do not all fit.
    pub col_offset: usize,
}

impl ListUi {
    /// Sorted by `col` (a figure column, biggest first) from the start.
    pub fn sorted_by(col: usize) -> Self {
        ListUi {
            sort: Some(col),
            desc: true,
            ..ListUi::default()
        }
    }

    /// Index of the selected row among `names`; the first when it is gone.
    pub fn index<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> usize {
        index_of(self.selected.as_deref(), names)
    }

    /// What the rows are sorted by: the `header` of the column of `cols`
    /// the list sorts on, or `name` when it sorts by name.
    pub fn sort_name<'a, C>(
        &self,
        cols: &'a [C],
        header: impl Fn(&'a C) -> &'a str,
        name: &'a str,
    ) -> &'a str {
        self.sort.and_then(|i| cols.get(i)).map_or(name, header)
    }

    /// Moves the selection by `delta` rows, clamped to the table.
    pub fn step<S: AsRef<str>>(&mut self, names: &[S], delta: isize) {
        step_selected(&mut self.selected, names, delta);
    }

    /// Enter on the table: the row the selection is on among `names` (the
    /// first when it is gone), now selected by its name; none when there
    /// are no rows.
    pub fn enter<S: AsRef<str>>(&mut self, names: &[S]) -> Option<usize> {
        let at = self.index(names.iter().map(AsRef::as_ref));
        self.selected = Some(names.get(at)?.as_ref().to_string());
        Some(at)
    }

    /// Next (or previous) sort key among the name and `cols` figure
    /// columns. Names read best A to Z, figures biggest first.
    pub fn cycle_sort(&mut self, cols: usize, step: isize) {
        let keys = cols as isize + 1;
        let at = self.sort.map_or(0, |c| c as isize + 1);
        let next = (at + step).rem_euclid(keys);
        self.sort = (next > 0).then(|| next as usize - 1);
        self.desc = self.sort.is_some();
    }

    /// Sorts rows as the user asked: by a figure (unknown figures below
    /// every known one) or by name, ties by name.
    pub fn sort<R>(
        &self,
        rows: &mut [R],
        name: impl Fn(&R) -> &str,
        value: impl Fn(&R, usize) -> Option<f64>,
    ) {
        rows.sort_by(|a, b| {
            let ord = match self.sort {
                None => name(a).cmp(name(b)),
                Some(c) => {
                    let v = |r: &R| value(r, c).filter(|v| v.is_finite());
                    match (v(a), v(b)) {
                        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
                        (Some(_), None) => Ordering::Greater,
                        (None, Some(_)) => Ordering::Less,
                        (None, None) => Ordering::Equal,
                    }
                }
            };
            let ord = if self.desc { ord.reverse() } else { ord };
            ord.then_with(|| name(a).cmp(name(b)))
        });
    }

    /// The first row to show so that the selected one (`selected`) is
    /// on a screen of `visible` rows, scrolling as little as possible;
    /// the table keeps it in `offset` once drawn.
    pub fn first_shown(&self, selected: usize, rows: usize, visible: usize) -> usize {
        let visible = visible.max(1);
        let mut first = self.offset.min(rows.saturating_sub(1));
        if selected < first {
            first = selected;
        } else if selected >= first + visible {
            first = selected + 1 - visible;
        }
        first
    }
}

/// Where a table stands once drawn: only layout knows how many rows fit
/// and how far the columns can scroll, so the view returns these and
/// the app keeps them for the next frame and for page up and down.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Scroll {
    /// First row shown.
    pub offset: usize,
    /// First scrolled column shown, no further than the last one allows.
    pub col_offset: usize,
}

/// What a frame learned from layout, for the loop to hand back with
/// [`App::apply_drawn`](crate::app::App::apply_drawn): the view reads the
/// app and never writes it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[must_use = "the app needs what layout learned: app.apply_drawn(drawn)"]
pub struct Drawn {
    /// Rows the view's table showed; `None` keeps the last known number
    /// (a panel still waiting for its second sample draws no table).
    pub page_rows: Option<usize>,
    /// Where the view's scrolled table (the one h/l and the arrows act
    /// on) stands.
    pub scroll: Option<Scroll>,
    /// The help overlay's lines shown and the first line of its last
    /// page, when it is open.
    pub help_rows: Option<(usize, usize)>,
}

impl Drawn {
    /// What a scrolled table learned: `visible` rows fit, shown from row
    /// `first` and from scrolled column `col_offset`.
    pub fn table(visible: usize, first: usize, col_offset: usize) -> Drawn {
        Drawn {
            page_rows: Some(visible),
            scroll: Some(Scroll {
                offset: first,
                col_offset,
            }),
            help_rows: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_cycles_name_then_each_column_and_unknowns_sink() {
        let mut ui = ListUi::default();
        ui.cycle_sort(2, 1);
        assert_eq!((ui.sort, ui.desc), (Some(0), true));
        ui.cycle_sort(2, 1);
        ui.cycle_sort(2, 1);
        assert_eq!((ui.sort, ui.desc), (None, false));
        ui.cycle_sort(2, -1);
        assert_eq!(ui.sort, Some(1));
        let mut rows = vec![("b", None), ("a", Some(1.0)), ("c", Some(5.0))];
        ui.sort(&mut rows, |r| r.0, |r, _| r.1);
        assert_eq!(
            rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            ["c", "a", "b"]
        );
    }

    #[test]
    fn the_selection_follows_its_name_and_stays_on_screen() {
        let mut ui = ListUi::default();
        ui.step(&["a", "b", "c", "d"], 2);
        assert_eq!(ui.selected.as_deref(), Some("c"));
        assert_eq!(ui.index(["x", "c"]), 1);
        assert_eq!(ui.first_shown(3, 4, 2), 2);
        ui.offset = 2;
        assert_eq!(ui.first_shown(2, 4, 2), 2);
        assert_eq!(ui.first_shown(0, 4, 2), 0);
        ui.step(&["a"], 5);
        assert_eq!(ui.selected.as_deref(), Some("a"));
    }

    #[test]
    fn enter_opens_the_selected_row_or_the_first() {
        let mut ui = ListUi::default();
        assert_eq!(ui.enter::<&str>(&[]), None);
        assert_eq!(ui.selected, None);
        assert_eq!(ui.enter(&["a", "b"]), Some(0));
        assert_eq!(ui.selected.as_deref(), Some("a"));
        ui.selected = Some("b".into());
        assert_eq!(ui.enter(&["a", "b"]), Some(1));
        ui.selected = Some("gone".into());
        assert_eq!(ui.enter(&["c"]), Some(0));
        assert_eq!(ui.selected.as_deref(), Some("c"));
    }
}

//! The column tables of every layer: one type for a column's names and
//! one macro for a table of them, so the panels, `strata batch` and
//! `strata export` of each layer read their headers and keys the same way.

use std::marker::PhantomData;

/// Throughput units: kB or MB (the disks panel and `batch disks`, and
/// wherever a layer shows a throughput).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Units {
    #[default]
    KB,
    MB,
}

/// What a column holds, which decides its unit conversion and colouring:
/// iostat's kinds, which other layers' columns borrow where theirs are
/// the same (an ops rate, a throughput, a latency).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColKind {
    /// Operations per second.
    Ops,
    /// Kilobytes per second (MB/s when the user asks for MB).
    Throughput,
    /// A percentage of requests merged.
    MergePct,
    /// Milliseconds per request.
    Await,
    /// Kilobytes per request.
    ReqSize,
    /// Average queue length.
    Queue,
    /// Percentage of the interval the device was busy.
    Util,
}

/// One figure a layer shows: `C` names it, `K` says what it holds (which
/// decides its formatting and colouring in that layer), and `X` is what
/// only that layer's columns carry, such as the disks' header in MB units
/// or the CellCLI metrics behind a cell figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColDef<C, K, X = ()> {
    pub col: C,
    /// As the tool strata stands in for heads it (iostat, nicstat,
    /// nfsiostat, fincore, ...), or strata's own name where it has none.
    pub header: &'static str,
    /// The JSON key and CSV column.
    pub json_key: &'static str,
    pub kind: K,
    pub extra: X,
}

/// A column of a layer's table: its place in the table and in the
/// [`Figures`] of a row. `cols!` implements it for the table's columns.
pub trait Column: Copy {
    fn index(self) -> usize;
}

/// The figures of one row (a device, a mount, an interval's line) in the
/// order of its table's columns; `None` is a figure that is unknown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures<C, const N: usize>(pub [Option<f64>; N], PhantomData<C>);

impl<C, const N: usize> Figures<C, N> {
    pub const fn new(values: [Option<f64>; N]) -> Self {
        Figures(values, PhantomData)
    }
}

impl<C: Column, const N: usize> Figures<C, N> {
    pub fn get(&self, c: C) -> Option<f64> {
        self.0[c.index()]
    }

    pub fn set(&mut self, c: C, v: Option<f64>) {
        self.0[c.index()] = v;
    }
}

/// All unknown (derive would ask `C: Default` and arrays of any length).
impl<C, const N: usize> Default for Figures<C, N> {
    fn default() -> Self {
        Figures::new([None; N])
    }
}

/// A layer's column table, in the order of the variants of `$col`:
/// `cols![Col, Kind; (Variant, header, json_key, KindVariant), ...]`, each
/// row with a fifth item where the table's [`ColDef`] has an `X`.
///
/// As an item, `cols! { pub const TABLE: [Col, Kind] = [rows]; }` (with
/// `[Col, Kind, X]` where the rows have a fifth item) declares the table
/// and `Col::def`, which every layer needs to find a column's row, and
/// makes `Col` a [`Column`].
macro_rules! cols {
    (@extra) => {
        ()
    };
    (@extra $x:expr) => {
        $x
    };
    (@one $row:tt) => {
        ()
    };
    ($(#[$doc:meta])* $vis:vis const $name:ident: [$col:ident, $kind:ident $(, $x:ty)?] = [$($row:tt),* $(,)?];) => {
        $(#[$doc])*
        $vis const $name: [
            $crate::layers::col::ColDef<$col, $kind $(, $x)?>;
            <[()]>::len(&[$($crate::layers::col::cols!(@one $row)),*])
        ] = $crate::layers::col::cols![$col, $kind; $($row),*];

        // `def` and `Figures` find a column's row by its place: a row out
        // of the enum's order would give another column's header and
        // figure, so it does not compile.
        const _: () = {
            let mut i = 0;
            while i < $name.len() {
                assert!(
                    $name[i].col as usize == i,
                    "a cols! table lists its columns in their enum's order"
                );
                i += 1;
            }
        };

        impl $crate::layers::col::Column for $col {
            fn index(self) -> usize {
                self as usize
            }
        }

        impl $col {
            /// The column's row of its table.
            pub fn def(self) -> &'static $crate::layers::col::ColDef<$col, $kind $(, $x)?> {
                &$name[self as usize]
            }
        }
    };
    ($col:ident, $kind:ident; $(($c:ident, $h:expr, $j:expr, $k:ident $(, $x:expr)?)),* $(,)?) => {
        [$($crate::layers::col::ColDef {
            col: $col::$c,
            header: $h,
            json_key: $j,
            kind: $kind::$k,
            extra: $crate::layers::col::cols!(@extra $($x)?),
        }),*]
    };
}

pub(crate) use cols;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Col {
        A,
        B,
    }

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Kind {
        Ops,
    }

    #[test]
    fn a_table_keeps_its_rows_and_their_extras() {
        const PLAIN: [ColDef<Col, Kind>; 2] =
            cols![Col, Kind; (A, "a/s", "a_s", Ops), (B, "b/s", "b_s", Ops)];
        assert_eq!(PLAIN[1].col, Col::B);
        assert_eq!((PLAIN[0].header, PLAIN[0].json_key), ("a/s", "a_s"));
        const WITH: [ColDef<Col, Kind, &str>; 1] = cols![Col, Kind; (A, "a", "a", Ops, "more")];
        assert_eq!(WITH[0].extra, "more");
    }

    cols! {
        const TABLE: [Col, Kind, &'static str] = [(A, "a/s", "a_s", Ops, "x"), (B, "b/s", "b_s", Ops, "y")];
    }

    #[test]
    fn the_item_form_sizes_the_table_and_finds_a_columns_row() {
        assert_eq!(TABLE.len(), 2);
        assert_eq!(Col::B.def().extra, "y");
        assert_eq!(Col::A.def().json_key, "a_s");
    }
}

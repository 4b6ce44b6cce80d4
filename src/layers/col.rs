//! The column tables of every layer: one type for a column's names and
//! one macro for a table of them, so the panels, `strata batch` and
//! `strata export` of each layer read their headers and keys the same way.

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

/// A layer's column table, in the order of the variants of `$col`:
/// `cols![Col, Kind; (Variant, header, json_key, KindVariant), ...]`, each
/// row with a fifth item where the table's [`ColDef`] has an `X`.
macro_rules! cols {
    ($col:ident, $kind:ident; $(($c:ident, $h:expr, $j:expr, $k:ident $(, $x:expr)?)),* $(,)?) => {
        [$($crate::layers::col::ColDef {
            col: $col::$c,
            header: $h,
            json_key: $j,
            kind: $kind::$k,
            extra: $crate::layers::col::cols!(@extra $($x)?),
        }),*]
    };
    (@extra) => {
        ()
    };
    (@extra $x:expr) => {
        $x
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
}

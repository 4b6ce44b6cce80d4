//! A sample split into its shape and its numbers, and joined back.
//!
//! A recording stores the raw samples of every source, not rendered figures, so that
//! replay recomputes every figure through the same code. Samples are serialized with
//! serde into a JSON tree; every number in it becomes a value of a series (named by its
//! path, so each device's each counter is one series and compresses as one), and the
//! rest (names, text, the tree itself) is the shape, which changes rarely and is stored
//! only when it does. Joining a shape with the values of its series gives back the
//! very same tree, bit for bit.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value as Json};

use super::format::{SeriesKind, Value};

/// How a number was written, so it is read back as the same JSON number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NumKind {
    /// A non-negative integer: a counter series.
    U,
    /// A negative integer: a counter series holding its two's complement.
    I,
    /// A float: a gauge series.
    F,
}

impl NumKind {
    pub fn series_kind(self) -> SeriesKind {
        match self {
            NumKind::U | NumKind::I => SeriesKind::Counter,
            NumKind::F => SeriesKind::Gauge,
        }
    }

    /// Kinds share a series name only when they share a series kind and a
    /// reading: a counter going negative gets its own series.
    fn suffix(self) -> &'static str {
        match self {
            NumKind::U => "",
            NumKind::I => ":i",
            NumKind::F => ":f",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Shape {
    Null,
    Bool(bool),
    Str(String),
    /// A number: the series that holds it.
    Num(u32, NumKind),
    Arr(Vec<Shape>),
    Obj(Vec<(String, Shape)>),
}

/// The fields that name an element of a list, tried in this order: a device
/// keeps its series when another one comes or goes before it in the list.
const KEY_FIELDS: [&str; 3] = ["name", "key", "path"];

/// Splits `tree` into its shape and its numbers. `series` gives the id of a
/// series by name and kind (allocating one for a new name); names are
/// `prefix` followed by the path of the number in the tree.
pub fn split(
    tree: &Json,
    prefix: &str,
    series: &mut impl FnMut(&str, SeriesKind) -> u32,
    values: &mut Vec<(u32, Value)>,
) -> Shape {
    let mut path = prefix.to_string();
    walk(tree, &mut path, series, values)
}

fn walk(
    tree: &Json,
    path: &mut String,
    series: &mut impl FnMut(&str, SeriesKind) -> u32,
    values: &mut Vec<(u32, Value)>,
) -> Shape {
    match tree {
        Json::Null => Shape::Null,
        Json::Bool(b) => Shape::Bool(*b),
        Json::String(s) => Shape::Str(s.clone()),
        Json::Number(n) => {
            let (kind, value) = number(n);
            let len = path.len();
            path.push_str(kind.suffix());
            let id = series(path, kind.series_kind());
            path.truncate(len);
            values.push((id, value));
            Shape::Num(id, kind)
        }
        Json::Array(items) => {
            let keys = element_keys(items);
            let len = path.len();
            let shapes = items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    match &keys {
                        Some(k) => path.push_str(&format!("[{}]", k[i])),
                        None => path.push_str(&format!("[{i}]")),
                    }
                    let s = walk(item, path, series, values);
                    path.truncate(len);
                    s
                })
                .collect();
            Shape::Arr(shapes)
        }
        Json::Object(fields) => {
            let len = path.len();
            let shapes = fields
                .iter()
                .map(|(k, v)| {
                    path.push('.');
                    path.push_str(k);
                    let s = walk(v, path, series, values);
                    path.truncate(len);
                    (k.clone(), s)
                })
                .collect();
            Shape::Obj(shapes)
        }
    }
}

/// Whether `tree` has the shape `last` (what [`split`] would give is equal
/// to it), pushing its numbers to `values` as [`split`] would: the series
/// of a number is then the one `last` names, found without building its
/// name, hashing it, or building a new shape. A recording's samples keep
/// their shape from one tick to the next, and splitting each afresh built
/// all of that for every number of every sample. On `false`, `values`
/// holds a part.
pub fn same(tree: &Json, last: &Shape, values: &mut Vec<(u32, Value)>) -> bool {
    match (tree, last) {
        (Json::Null, Shape::Null) => true,
        (Json::Bool(b), Shape::Bool(l)) => b == l,
        (Json::String(s), Shape::Str(l)) => s == l,
        (Json::Number(n), Shape::Num(id, kind)) => {
            let (k, value) = number(n);
            values.push((*id, value));
            k == *kind
        }
        (Json::Array(items), Shape::Arr(shapes)) => {
            items.len() == shapes.len() && items.iter().zip(shapes).all(|(t, s)| same(t, s, values))
        }
        (Json::Object(fields), Shape::Obj(shapes)) => {
            fields.len() == shapes.len()
                && fields
                    .iter()
                    .zip(shapes)
                    .all(|((k, t), (l, s))| k == l && same(t, s, values))
        }
        _ => false,
    }
}

/// How a JSON number is kept: its kind and its value.
fn number(n: &Number) -> (NumKind, Value) {
    if let Some(u) = n.as_u64() {
        (NumKind::U, Value::Counter(u))
    } else if let Some(i) = n.as_i64() {
        (NumKind::I, Value::Counter(i as u64))
    } else {
        (NumKind::F, Value::Gauge(n.as_f64().unwrap_or(f64::NAN)))
    }
}

/// The elements' names when every element has one and no two share it.
fn element_keys(items: &[Json]) -> Option<Vec<&str>> {
    let field = KEY_FIELDS.iter().find(|f| {
        items
            .iter()
            .all(|it| it.get(**f).is_some_and(Json::is_string))
    })?;
    let keys: Vec<&str> = items
        .iter()
        .filter_map(|it| it.get(*field).and_then(Json::as_str))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    sorted.dedup();
    (sorted.len() == keys.len()).then_some(keys)
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JoinError {
    #[error("series {0} has no value in this tick")]
    Missing(u32),
    #[error("series {0} holds a {1:?} value where the shape wants a {2:?} number")]
    Kind(u32, SeriesKind, NumKind),
}

/// The tree `split` was given, from its shape and the values of one tick,
/// sorted by series id (a tick's values are; a binary search costs less
/// than hashing a thousand of them into a map per tick).
pub fn join(shape: &Shape, values: &[(u32, Value)]) -> Result<Json, JoinError> {
    Ok(match shape {
        Shape::Null => Json::Null,
        Shape::Bool(b) => Json::Bool(*b),
        Shape::Str(s) => Json::String(s.clone()),
        Shape::Num(id, kind) => {
            let v = values
                .binary_search_by_key(id, |(i, _)| *i)
                .map(|at| &values[at].1)
                .map_err(|_| JoinError::Missing(*id))?;
            let n = match (kind, v) {
                (NumKind::U, Value::Counter(u)) => Number::from(*u),
                (NumKind::I, Value::Counter(u)) => Number::from(*u as i64),
                // A float JSON cannot hold (NaN, inf) was null in the tree already.
                (NumKind::F, Value::Gauge(f)) => match Number::from_f64(*f) {
                    Some(n) => n,
                    None => return Ok(Json::Null),
                },
                (k, v) => return Err(JoinError::Kind(*id, v.kind(), *k)),
            };
            Json::Number(n)
        }
        Shape::Arr(items) => Json::Array(
            items
                .iter()
                .map(|s| join(s, values))
                .collect::<Result<_, _>>()?,
        ),
        Shape::Obj(fields) => {
            let mut m = Map::with_capacity(fields.len());
            for (k, s) in fields {
                m.insert(k.clone(), join(s, values)?);
            }
            Json::Object(m)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids() -> impl FnMut(&str, SeriesKind) -> u32 {
        let mut names: Vec<(String, SeriesKind)> = Vec::new();
        move |n, k| {
            let pos = names.iter().position(|(m, _)| m == n);
            pos.unwrap_or_else(|| {
                names.push((n.to_string(), k));
                names.len() - 1
            }) as u32
        }
    }

    #[test]
    fn join_gives_back_the_tree_split_was_given() {
        let tree = json!({
            "uptime_cs": 123456u64,
            "neg": -5,
            "f": 0.1,
            "big": u64::MAX,
            "devices": [
                {"name": "sdb", "rd_ios": 7, "text": "x", "ok": true, "none": null},
                {"name": "sda", "rd_ios": 9, "list": [1, 2, 3]},
            ],
        });
        let mut values = Vec::new();
        let shape = split(&tree, "disks", &mut ids(), &mut values);
        let mut sorted = values.clone();
        sorted.sort_by_key(|(id, _)| *id);
        sorted.dedup_by_key(|(id, _)| *id);
        assert_eq!(sorted.len(), values.len(), "no series twice in one sample");
        assert_eq!(join(&shape, &sorted).unwrap(), tree);
    }

    #[test]
    fn series_follow_names_not_positions() {
        let mut names = Vec::new();
        let mut series = |n: &str, _k: SeriesKind| {
            names.push(n.to_string());
            names.len() as u32
        };
        let tree = json!({"devices": [{"name": "sda", "rd": 1}, {"name": "sdb", "rd": -2}],
                          "dup": [{"name": "x", "v": 1.5}, {"name": "x", "v": 2}]});
        split(&tree, "disks", &mut series, &mut Vec::new());
        assert_eq!(
            names,
            [
                "disks.devices[sda].rd",
                "disks.devices[sdb].rd:i",
                "disks.dup[0].v:f",
                "disks.dup[1].v",
            ]
        );
    }

    #[test]
    fn same_gives_the_values_split_gives_and_knows_a_changed_shape() {
        let tree = json!({
            "n": 1, "neg": -2, "f": 0.5, "s": "x", "b": true, "z": null,
            "devices": [{"name": "sda", "rd": 3}, {"name": "sdb", "rd": 4}],
            "list": [5, 6],
        });
        let mut series = ids();
        let mut values = Vec::new();
        let shape = split(&tree, "t", &mut series, &mut values);
        let next = json!({
            "n": 10, "neg": -20, "f": 1.5, "s": "x", "b": true, "z": null,
            "devices": [{"name": "sda", "rd": 30}, {"name": "sdb", "rd": 40}],
            "list": [50, 60],
        });
        let (mut split_values, mut same_values) = (Vec::new(), Vec::new());
        assert_eq!(split(&next, "t", &mut series, &mut split_values), shape);
        assert!(same(&next, &shape, &mut same_values));
        assert_eq!(same_values, split_values);
        for changed in [
            json!({"n": 1, "neg": -2, "f": 0.5, "s": "y", "b": true, "z": null,
                   "devices": [{"name": "sda", "rd": 3}, {"name": "sdb", "rd": 4}], "list": [5, 6]}),
            json!({"n": -1, "neg": -2, "f": 0.5, "s": "x", "b": true, "z": null,
                   "devices": [{"name": "sda", "rd": 3}, {"name": "sdb", "rd": 4}], "list": [5, 6]}),
            json!({"n": 1, "neg": -2, "f": 0.5, "s": "x", "b": false, "z": null,
                   "devices": [{"name": "sda", "rd": 3}, {"name": "sdb", "rd": 4}], "list": [5, 6]}),
            json!({"n": 1, "neg": -2, "f": 0.5, "s": "x", "b": true, "z": 0,
                   "devices": [{"name": "sda", "rd": 3}, {"name": "sdc", "rd": 4}], "list": [5, 6]}),
            json!({"n": 1, "neg": -2, "f": 0.5, "s": "x", "b": true, "z": null,
                   "devices": [{"name": "sda", "rd": 3}], "list": [5, 6]}),
            json!({"n": 1, "neg": -2, "f": 0.5, "s": "x", "b": true, "z": null,
                   "devices": [{"name": "sda", "rd": 3}, {"name": "sdb", "rd": 4}], "list": [5, 6, 7]}),
            json!({"n": 1, "neg": -2, "f": 0.5, "s": "x", "b": true, "z": null, "new": 1,
                   "devices": [{"name": "sda", "rd": 3}, {"name": "sdb", "rd": 4}], "list": [5, 6]}),
        ] {
            assert!(!same(&changed, &shape, &mut Vec::new()), "{changed}");
        }
    }

    #[test]
    fn a_missing_or_mistyped_value_is_an_error_not_a_panic() {
        let shape = Shape::Arr(vec![Shape::Num(3, NumKind::U)]);
        assert_eq!(join(&shape, &[]), Err(JoinError::Missing(3)));
        let wrong = [(3, Value::Gauge(1.0))];
        assert!(matches!(join(&shape, &wrong), Err(JoinError::Kind(3, ..))));
    }
}

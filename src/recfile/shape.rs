//! A sample split into its shape and its numbers, and joined back.
//!
//! A recording stores the raw samples of every source, not rendered figures, so that
//! replay recomputes every figure through the same code. Samples are serialized with
//! serde into a JSON tree; every number in it becomes a value of a series (named by its
//! path, so each device's each counter is one series and compresses as one), and the
//! rest (names, text, the tree itself) is the shape, which changes rarely and is stored
//! only when it does. Joining a shape with the values of its series gives back the
//! very same tree, bit for bit.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value as Json};

use super::format::{SeriesKind, Value};

mod build;

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
    /// Fields by name, as serde_json's map holds them; a struct's field
    /// names are borrowed, not made for each sample.
    Obj(Vec<(Cow<'static, str>, Shape)>),
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
    Unnamed::of(tree).name(prefix, series, values)
}

/// As [`split`] of `serde_json::to_value(value)`, made along the
/// serialization (no tree is built); None where that does not follow
/// serde_json (a float map key) or serde_json fails, so the caller takes
/// the tree's way, which says why.
pub fn split_value<T: Serialize + ?Sized>(value: &T) -> Option<Unnamed> {
    build::unnamed(value)
}

/// A shape whose numbers are not yet in series: each `Num` holds where its
/// value is in `raw`, until [`name`](Self::name) gives it its series.
#[derive(Debug)]
pub struct Unnamed {
    shape: Shape,
    raw: Vec<Value>,
}

impl Unnamed {
    /// The shape of a JSON tree.
    pub fn of(tree: &Json) -> Unnamed {
        let mut raw = Vec::new();
        let shape = of_tree(tree, &mut raw);
        Unnamed { shape, raw }
    }

    /// The numbers it holds: the series it may bring.
    pub fn numbers(&self) -> usize {
        self.raw.len()
    }

    /// The shape, each number in the series `series` gives it by name (see
    /// [`split`]), its values pushed to `values` in the order of the shape.
    pub fn name(
        mut self,
        prefix: &str,
        series: &mut impl FnMut(&str, SeriesKind) -> u32,
        values: &mut Vec<(u32, Value)>,
    ) -> Shape {
        let mut ids = vec![0; self.raw.len()];
        values.reserve(self.raw.len());
        let mut namer = Namer {
            series,
            raw: &self.raw,
            ids: &mut ids,
            values,
        };
        walk(&self.shape, &mut prefix.to_string(), &mut namer);
        renumber(&mut self.shape, &ids);
        self.shape
    }
}

/// The shape of a JSON tree, its numbers in `raw`.
fn of_tree(tree: &Json, raw: &mut Vec<Value>) -> Shape {
    match tree {
        Json::Null => Shape::Null,
        Json::Bool(b) => Shape::Bool(*b),
        Json::String(s) => Shape::Str(s.clone()),
        Json::Number(n) => {
            let (kind, value) = number(n);
            // Past u32::MAX numbers the shape is refused long before (see
            // `MAX_BLOB_LEN`), and its ids would not fit anyway.
            let at = u32::try_from(raw.len()).unwrap_or(u32::MAX);
            raw.push(value);
            Shape::Num(at, kind)
        }
        Json::Array(items) => Shape::Arr(items.iter().map(|t| of_tree(t, raw)).collect()),
        Json::Object(fields) => Shape::Obj(
            fields
                .iter()
                .map(|(k, v)| (Cow::Owned(k.clone()), of_tree(v, raw)))
                .collect(),
        ),
    }
}

/// What names the numbers of an [`Unnamed`] shape.
struct Namer<'a, F> {
    series: &'a mut F,
    raw: &'a [Value],
    /// The series of each number, by its place in `raw`.
    ids: &'a mut [u32],
    values: &'a mut Vec<(u32, Value)>,
}

fn walk<F: FnMut(&str, SeriesKind) -> u32>(shape: &Shape, path: &mut String, n: &mut Namer<F>) {
    match shape {
        Shape::Null | Shape::Bool(_) | Shape::Str(_) => {}
        Shape::Num(at, kind) => {
            let len = path.len();
            path.push_str(kind.suffix());
            let id = (n.series)(path, kind.series_kind());
            path.truncate(len);
            let at = *at as usize;
            if let (Some(slot), Some(value)) = (n.ids.get_mut(at), n.raw.get(at)) {
                *slot = id;
                n.values.push((id, *value));
            }
        }
        Shape::Arr(items) => {
            let keys = element_keys(items);
            let len = path.len();
            for (i, item) in items.iter().enumerate() {
                path.push('[');
                match &keys {
                    Some(k) => path.push_str(k[i]),
                    None => {
                        let _ = write!(path, "{i}");
                    }
                }
                path.push(']');
                walk(item, path, n);
                path.truncate(len);
            }
        }
        Shape::Obj(fields) => {
            let len = path.len();
            for (k, v) in fields {
                path.push('.');
                path.push_str(k);
                walk(v, path, n);
                path.truncate(len);
            }
        }
    }
}

/// Gives each number of `shape` its series, from where it was in `raw`.
fn renumber(shape: &mut Shape, ids: &[u32]) {
    match shape {
        Shape::Null | Shape::Bool(_) | Shape::Str(_) => {}
        Shape::Num(at, _) => *at = ids.get(*at as usize).copied().unwrap_or(*at),
        Shape::Arr(items) => items.iter_mut().for_each(|s| renumber(s, ids)),
        Shape::Obj(fields) => fields.iter_mut().for_each(|(_, s)| renumber(s, ids)),
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

/// Whether `value` serializes to a tree of the shape `last`, as
/// `same(&serde_json::to_value(value)?, last, values)` would say, pushing
/// its numbers to `values` (in the order it serializes them, not the
/// tree's). It walks `last` along the serialization and builds no tree:
/// a recorder's samples keep their shape, and building each sample's JSON
/// tree only to compare it was most of what recording one cost. Whatever
/// it does not know to match as serde_json would (a float map key, a
/// number out of range, an error of the value's own) is a difference, so
/// the caller's slower way decides. On `false`, `values` holds a part.
pub fn same_value<T: Serialize + ?Sized>(
    value: &T,
    last: &Shape,
    values: &mut Vec<(u32, Value)>,
) -> bool {
    same_value_along(value, last, &mut Trail::default(), values)
}

/// As [`same_value`], with the trail of the stream's last comparison: the
/// fields of an object shape are in the order of their names, a struct
/// serializes its own in the order of its declaration, and finding each
/// by its name (a binary search) was most of the comparison. The trail
/// holds where each came the last time, which is checked first.
pub fn same_value_along<T: Serialize + ?Sized>(
    value: &T,
    last: &Shape,
    trail: &mut Trail,
    values: &mut Vec<(u32, Value)>,
) -> bool {
    let mut out = Out {
        values: std::mem::take(values),
        trail: std::mem::take(&mut trail.0),
        at: 0,
    };
    let shape = last;
    let same = value
        .serialize(Along {
            shape,
            out: &mut out,
        })
        .is_ok();
    *values = out.values;
    trail.0 = out.trail;
    same
}

/// Where each field of a stream's samples was found in its shape, in the
/// order they were serialized (see [`same_value_along`]).
#[derive(Debug, Default, Clone)]
pub struct Trail(Vec<u32>);

/// What a comparison gives: the numbers, and the trail it follows and
/// writes (`at` is where it is in it).
struct Out {
    values: Vec<(u32, Value)>,
    trail: Vec<u32>,
    at: usize,
}

/// The serialization left `last`'s shape (or did what `same_value` leaves
/// to the slower way).
#[derive(Debug)]
struct Differs;

impl std::fmt::Display for Differs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the value is not of the last shape")
    }
}

impl std::error::Error for Differs {}

impl serde::ser::Error for Differs {
    fn custom<T: std::fmt::Display>(_msg: T) -> Self {
        Differs
    }
}

/// A serializer that compares with `shape` what serde_json's `to_value`
/// would make, rule by rule (serde_json 1.0's value serializer).
struct Along<'s, 'v> {
    shape: &'s Shape,
    out: &'v mut Out,
}

impl<'s, 'v> Along<'s, 'v> {
    fn num(self, kind: NumKind, value: Value) -> Result<(), Differs> {
        match self.shape {
            Shape::Num(id, k) if *k == kind => {
                self.out.values.push((*id, value));
                Ok(())
            }
            _ => Err(Differs),
        }
    }

    fn is(ok: bool) -> Result<(), Differs> {
        if ok { Ok(()) } else { Err(Differs) }
    }

    /// The one field's shape of `{variant: ...}`, as serde_json writes an
    /// enum's variant that holds something.
    fn variant(self, variant: &str) -> Result<Along<'s, 'v>, Differs> {
        match self.shape {
            Shape::Obj(fields) if fields.len() == 1 && fields[0].0 == variant => Ok(Along {
                shape: &fields[0].1,
                out: self.out,
            }),
            _ => Err(Differs),
        }
    }

    fn items(self) -> Result<Items<'s, 'v>, Differs> {
        match self.shape {
            Shape::Arr(items) => Ok(Items {
                items,
                at: 0,
                out: self.out,
            }),
            _ => Err(Differs),
        }
    }

    fn fields(self) -> Result<Fields<'s, 'v>, Differs> {
        match self.shape {
            Shape::Obj(fields) => Ok(Fields {
                fields,
                seen: 0,
                few: 0,
                many: Vec::new(),
                key: None,
                out: self.out,
            }),
            _ => Err(Differs),
        }
    }
}

impl<'s, 'v> serde::Serializer for Along<'s, 'v> {
    type Ok = ();
    type Error = Differs;
    type SerializeSeq = Items<'s, 'v>;
    type SerializeTuple = Items<'s, 'v>;
    type SerializeTupleStruct = Items<'s, 'v>;
    type SerializeTupleVariant = Items<'s, 'v>;
    type SerializeMap = Fields<'s, 'v>;
    type SerializeStruct = Fields<'s, 'v>;
    type SerializeStructVariant = Fields<'s, 'v>;

    fn serialize_bool(self, v: bool) -> Result<(), Differs> {
        Self::is(matches!(self.shape, Shape::Bool(b) if *b == v))
    }
    fn serialize_i8(self, v: i8) -> Result<(), Differs> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Differs> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Differs> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Differs> {
        let (kind, value) = int(v);
        self.num(kind, value)
    }
    fn serialize_i128(self, v: i128) -> Result<(), Differs> {
        let (kind, value) = int128(v)?;
        self.num(kind, value)
    }
    fn serialize_u8(self, v: u8) -> Result<(), Differs> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Differs> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Differs> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Differs> {
        self.num(NumKind::U, Value::Counter(v))
    }
    fn serialize_u128(self, v: u128) -> Result<(), Differs> {
        u64::try_from(v).map_or(Err(Differs), |u| self.serialize_u64(u))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Differs> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Differs> {
        match float(v) {
            Some((kind, value)) => self.num(kind, value),
            None => self.serialize_unit(),
        }
    }
    fn serialize_char(self, v: char) -> Result<(), Differs> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Differs> {
        Self::is(matches!(self.shape, Shape::Str(s) if s == v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Differs> {
        use serde::ser::SerializeSeq;
        let mut items = self.items()?;
        for b in v {
            items.serialize_element(b)?;
        }
        items.end()
    }
    fn serialize_none(self) -> Result<(), Differs> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Differs> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Differs> {
        Self::is(matches!(self.shape, Shape::Null))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Differs> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Differs> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Differs> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Differs> {
        value.serialize(self.variant(variant)?)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Items<'s, 'v>, Differs> {
        self.items()
    }
    fn serialize_tuple(self, _len: usize) -> Result<Items<'s, 'v>, Differs> {
        self.items()
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Items<'s, 'v>, Differs> {
        self.items()
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Items<'s, 'v>, Differs> {
        self.variant(variant)?.items()
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Fields<'s, 'v>, Differs> {
        self.fields()
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Fields<'s, 'v>, Differs> {
        self.fields()
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Fields<'s, 'v>, Differs> {
        self.variant(variant)?.fields()
    }
}

/// A sequence's elements against an array shape's, one by one.
struct Items<'s, 'v> {
    items: &'s [Shape],
    at: usize,
    out: &'v mut Out,
}

impl Items<'_, '_> {
    fn next<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Differs> {
        let shape = self.items.get(self.at).ok_or(Differs)?;
        self.at += 1;
        value.serialize(Along {
            shape,
            out: self.out,
        })
    }

    fn done(&self) -> Result<(), Differs> {
        Along::is(self.at == self.items.len())
    }
}

/// serde's four sequence traits differ only in their names: each element
/// is the next item of the shape's list.
macro_rules! items_as {
    ($($trait:ident :: $method:ident),*) => {$(
        impl serde::ser::$trait for Items<'_, '_> {
            type Ok = ();
            type Error = Differs;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Differs> {
                self.next(value)
            }
            fn end(self) -> Result<(), Differs> {
                self.done()
            }
        }
    )*};
}

items_as!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// A map's or a struct's entries against an object shape's fields, which
/// are in the order of serde_json's map (by name), not the serialization's:
/// each is found by its name, and each may come once (serde_json would
/// keep the last of two; the slower way then decides).
struct Fields<'s, 'v> {
    fields: &'s [(Cow<'static, str>, Shape)],
    /// How many fields came, and which: the first 64 in `few`.
    seen: usize,
    few: u64,
    many: Vec<u64>,
    /// The field of the key a map gave, for its value.
    key: Option<usize>,
    out: &'v mut Out,
}

impl Fields<'_, '_> {
    fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Result<(), Differs> {
        let at = self.find(name)?;
        self.value(at, value)
    }

    fn find(&mut self, name: &str) -> Result<usize, Differs> {
        let out = &mut *self.out;
        let guess = out.trail.get(out.at).map(|&i| i as usize);
        let at = match guess {
            Some(i) if self.fields.get(i).is_some_and(|(k, _)| k == name) => i,
            _ => {
                let i = self
                    .fields
                    .binary_search_by(|(k, _)| (**k).cmp(name))
                    .map_err(|_| Differs)?;
                // at <= len: each find writes at `at` or just after it.
                match out.trail.get_mut(out.at) {
                    Some(t) => *t = i as u32,
                    None => out.trail.push(i as u32),
                }
                i
            }
        };
        out.at += 1;
        let (word, bit) = if at < 64 {
            (&mut self.few, at)
        } else {
            let w = (at - 64) / 64;
            if self.many.len() <= w {
                self.many.resize(w + 1, 0);
            }
            (&mut self.many[w], (at - 64) % 64)
        };
        if *word & (1 << bit) != 0 {
            return Err(Differs);
        }
        *word |= 1 << bit;
        self.seen += 1;
        Ok(at)
    }

    fn value<T: Serialize + ?Sized>(&mut self, at: usize, value: &T) -> Result<(), Differs> {
        value.serialize(Along {
            shape: &self.fields[at].1,
            out: self.out,
        })
    }

    fn done(&self) -> Result<(), Differs> {
        Along::is(self.seen == self.fields.len() && self.key.is_none())
    }
}

impl serde::ser::SerializeMap for Fields<'_, '_> {
    type Ok = ();
    type Error = Differs;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Differs> {
        if self.key.is_some() {
            return Err(Differs);
        }
        let name = key.serialize(KeyName)?;
        self.key = Some(self.find(&name)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Differs> {
        let at = self.key.take().ok_or(Differs)?;
        self.value(at, value)
    }
    fn end(self) -> Result<(), Differs> {
        self.done()
    }
}

/// A struct's fields and a struct variant's are the same trait but for its
/// name: each field is found by its name in the object shape.
macro_rules! fields_as {
    ($($trait:ident),*) => {$(
        impl serde::ser::$trait for Fields<'_, '_> {
            type Ok = ();
            type Error = Differs;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Differs> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), Differs> {
                self.done()
            }
        }
    )*};
}

fields_as!(SerializeStruct, SerializeStructVariant);

/// A map key as serde_json names it: a string, a char, an integer in
/// decimal, a bool, a unit variant's name. A float key (which serde_json
/// writes with its own formatter) and the rest are left to the slower way.
struct KeyName;

/// serde_json writes an integer key in decimal, whatever its width.
macro_rules! decimal {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<String, Differs> {
            Ok(v.to_string())
        }
    )*};
}

impl serde::Serializer for KeyName {
    type Ok = String;
    type Error = Differs;
    type SerializeSeq = serde::ser::Impossible<String, Differs>;
    type SerializeTuple = serde::ser::Impossible<String, Differs>;
    type SerializeTupleStruct = serde::ser::Impossible<String, Differs>;
    type SerializeTupleVariant = serde::ser::Impossible<String, Differs>;
    type SerializeMap = serde::ser::Impossible<String, Differs>;
    type SerializeStruct = serde::ser::Impossible<String, Differs>;
    type SerializeStructVariant = serde::ser::Impossible<String, Differs>;

    fn serialize_bool(self, v: bool) -> Result<String, Differs> {
        Ok(if v { "true" } else { "false" }.to_owned())
    }
    decimal!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_i128: i128,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_u128: u128
    );
    fn serialize_f32(self, _v: f32) -> Result<String, Differs> {
        Err(Differs)
    }
    fn serialize_f64(self, _v: f64) -> Result<String, Differs> {
        Err(Differs)
    }
    fn serialize_char(self, v: char) -> Result<String, Differs> {
        Ok(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<String, Differs> {
        Ok(v.to_owned())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<String, Differs> {
        Err(Differs)
    }
    fn serialize_none(self) -> Result<String, Differs> {
        Err(Differs)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<String, Differs> {
        Err(Differs)
    }
    fn serialize_unit(self) -> Result<String, Differs> {
        Err(Differs)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<String, Differs> {
        Err(Differs)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, Differs> {
        Ok(variant.to_owned())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<String, Differs> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<String, Differs> {
        Err(Differs)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Differs> {
        Err(Differs)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Differs> {
        Err(Differs)
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Differs> {
        Err(Differs)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Differs> {
        Err(Differs)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Differs> {
        Err(Differs)
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Differs> {
        Err(Differs)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Differs> {
        Err(Differs)
    }
}

/// A number as serde_json's tree holds it.
type Leaf = (NumKind, Value);

/// A JSON number from a non-negative i64 reads as a u64.
fn int(v: i64) -> Leaf {
    if v >= 0 {
        (NumKind::U, Value::Counter(v as u64))
    } else {
        (NumKind::I, Value::Counter(v as u64))
    }
}

/// serde_json takes an i128 that fits a u64 or an i64, and fails the rest.
fn int128(v: i128) -> Result<Leaf, Differs> {
    if let Ok(u) = u64::try_from(v) {
        Ok((NumKind::U, Value::Counter(u)))
    } else if let Ok(i) = i64::try_from(v) {
        Ok(int(i))
    } else {
        Err(Differs)
    }
}

/// A float JSON cannot hold (NaN, inf) is null in the tree.
fn float(v: f64) -> Option<Leaf> {
    v.is_finite().then_some((NumKind::F, Value::Gauge(v)))
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
fn element_keys(items: &[Shape]) -> Option<Vec<&str>> {
    let field = KEY_FIELDS
        .iter()
        .find(|f| items.iter().all(|it| str_field(it, f).is_some()))?;
    let keys: Vec<&str> = items.iter().filter_map(|it| str_field(it, field)).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    sorted.dedup();
    (sorted.len() == keys.len()).then_some(keys)
}

/// The string an object shape holds in its field `name`.
fn str_field<'a>(shape: &'a Shape, name: &str) -> Option<&'a str> {
    let Shape::Obj(fields) = shape else {
        return None;
    };
    let at = fields.binary_search_by(|(k, _)| (**k).cmp(name)).ok()?;
    match &fields[at].1 {
        Shape::Str(s) => Some(s),
        _ => None,
    }
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
                m.insert(k.to_string(), join(s, values)?);
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

    /// An enum of every kind of variant serde writes.
    #[derive(Serialize)]
    enum E {
        Unit,
        New(i32),
        Tup(u8, f32),
        Rec { a: Option<u64>, b: char },
    }

    #[derive(Serialize)]
    struct Wrap(u16);

    /// Every way serde writes a value, compared along the serialization
    /// as serde_json's tree is compared: unit, newtype, tuple and struct
    /// variants, options, maps keyed by numbers, floats JSON cannot hold.
    #[test]
    fn same_value_agrees_with_the_tree_on_every_serde_form() {
        use std::collections::{BTreeMap, HashMap};
        #[derive(Serialize)]
        struct T {
            z: i64,
            a: f64,
            e: Vec<E>,
            by_id: BTreeMap<u32, Wrap>,
            by_name: HashMap<String, (bool, ())>,
            r: Result<String, String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            maybe: Option<i8>,
            i: i128,
        }
        let t = |z: i64, a: f64, e2: E, key: u32, maybe: Option<i8>| T {
            z,
            a,
            e: vec![E::Unit, E::New(-3), E::Tup(7, 0.5), e2],
            by_id: BTreeMap::from([(key, Wrap(5)), (10, Wrap(6))]),
            by_name: HashMap::from([("x".into(), (true, ())), ("y".into(), (false, ()))]),
            r: Ok("fine".into()),
            maybe,
            i: -9,
        };
        let rec = |a| E::Rec { a, b: 'q' };
        let base = t(1, 2.5, rec(Some(4)), 2, Some(1));
        let tree = serde_json::to_value(&base).unwrap();
        let mut series = ids();
        let shape = split(&tree, "t", &mut series, &mut Vec::new());
        // One trail throughout, as a stream keeps it, through differences.
        let mut trail = Trail::default();
        for other in [
            t(1, 2.5, rec(Some(4)), 2, Some(1)),
            t(100, 7.25, rec(Some(9)), 2, Some(-1)),
            t(-1, 2.5, rec(Some(4)), 2, Some(1)),
            t(1, f64::NAN, rec(Some(4)), 2, Some(1)),
            t(1, 2.5, rec(None), 2, Some(1)),
            t(1, 2.5, rec(Some(4)), 3, Some(1)),
            t(1, 2.5, rec(Some(4)), 2, None),
            t(1, 2.5, E::Unit, 2, Some(1)),
            t(1, 2.5, E::New(4), 2, Some(1)),
        ] {
            let tree = serde_json::to_value(&other).unwrap();
            let (mut by_tree, mut along) = (Vec::new(), Vec::new());
            let alike = same(&tree, &shape, &mut by_tree);
            let found = same_value_along(&other, &shape, &mut trail, &mut along);
            assert_eq!(found, alike, "{tree}");
            if alike {
                by_tree.sort_by_key(|(id, _)| *id);
                along.sort_by_key(|(id, _)| *id);
                assert_eq!(along, by_tree, "{tree}");
            }
        }
        let mut values = Vec::new();
        assert!(same_value(&base, &shape, &mut values));
        assert_eq!(values.len(), 10, "{values:?}");
    }

    /// The shape, the series' names (in the order they were asked for)
    /// and the values of an unnamed shape.
    fn named(u: Unnamed) -> (Shape, Vec<String>, Vec<(u32, Value)>) {
        let mut names = Vec::new();
        let mut values = Vec::new();
        let mut series = |n: &str, _| {
            names.push(n.to_string());
            names.len() as u32 - 1
        };
        let shape = u.name("t", &mut series, &mut values);
        (shape, names, values)
    }

    /// Made along the serialization, a value's shape, its series' names and
    /// its values are those its JSON tree gives, in every serde form: a
    /// struct's fields put in the order of their names, a map's key given
    /// twice (the last kept), elements named by their names.
    #[test]
    fn split_value_gives_what_the_tree_gives() {
        use std::collections::{BTreeMap, HashMap};
        #[derive(Serialize)]
        struct Dev {
            rd: u64,
            name: String,
            w: f64,
        }
        /// A map whose key comes twice, as a hand-written Serialize may write.
        struct Twice;
        impl Serialize for Twice {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("b", &1)?;
                m.serialize_entry("a", &-2)?;
                m.serialize_entry("b", &[3.5, 4.0])?;
                m.end()
            }
        }
        #[derive(Serialize)]
        struct T {
            z: i64,
            a: f64,
            e: Vec<E>,
            by_id: BTreeMap<u32, Wrap>,
            by_name: HashMap<String, (bool, ())>,
            r: Result<String, String>,
            maybe: Option<i8>,
            i: i128,
            u: u128,
            devs: Vec<Dev>,
            same_names: Vec<Dev>,
            twice: Twice,
            #[serde(flatten)]
            more: BTreeMap<char, f32>,
        }
        let dev = |name: &str, rd| Dev {
            rd,
            name: name.into(),
            w: rd as f64 / 3.0,
        };
        let t = T {
            z: -7,
            a: f64::NAN,
            e: vec![
                E::Unit,
                E::New(-3),
                E::Tup(7, 0.1),
                E::Rec { a: None, b: 'q' },
                E::Rec { a: Some(4), b: 'r' },
            ],
            by_id: BTreeMap::from([(2, Wrap(5)), (10, Wrap(6))]),
            by_name: HashMap::from([("x".into(), (true, ())), ("y".into(), (false, ()))]),
            r: Err("no".into()),
            maybe: Some(1),
            i: -9,
            u: u128::from(u64::MAX),
            devs: vec![dev("sdb", 1), dev("sda", 2)],
            same_names: vec![dev("x", 3), dev("x", 4)],
            twice: Twice,
            more: BTreeMap::from([('k', 1.5), ('a', f32::INFINITY)]),
        };
        let tree = serde_json::to_value(&t).unwrap();
        let along = named(split_value(&t).unwrap());
        let by_tree = named(Unnamed::of(&tree));
        assert_eq!(along, by_tree);
        assert_eq!(
            join(&along.0, &{
                let mut v = along.2.clone();
                v.sort_by_key(|(id, _)| *id);
                v
            })
            .unwrap(),
            tree
        );
        assert!(
            along.1.contains(&"t.devs[sda].rd".to_string()),
            "{:?}",
            along.1
        );
        assert!(
            along.1.contains(&"t.same_names[1].w:f".to_string()),
            "{:?}",
            along.1
        );
        assert!(
            along.1.contains(&"t.twice.b[1]:f".to_string()),
            "{:?}",
            along.1
        );
    }

    /// What serde_json writes of a value in a way this does not follow (a
    /// float key) or refuses (an i128 past an i64) is left to the tree's
    /// way; an integer key is followed.
    #[test]
    fn split_value_leaves_what_it_does_not_follow_to_the_tree() {
        use std::collections::{BTreeMap, HashMap};
        let int_keys = BTreeMap::from([(1u8, HashMap::from([(2, 0.5)]))]);
        assert!(split_value(&int_keys).is_some());
        struct FloatKey;
        impl Serialize for FloatKey {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry(&1.5, &1)?;
                m.end()
            }
        }
        assert!(serde_json::to_value(FloatKey).is_ok());
        assert!(split_value(&FloatKey).is_none());
        assert!(serde_json::to_value(i128::MIN).is_err());
        assert!(split_value(&i128::MIN).is_none());
    }

    #[test]
    fn a_missing_or_mistyped_value_is_an_error_not_a_panic() {
        let shape = Shape::Arr(vec![Shape::Num(3, NumKind::U)]);
        assert_eq!(join(&shape, &[]), Err(JoinError::Missing(3)));
        let wrong = [(3, Value::Gauge(1.0))];
        assert!(matches!(join(&shape, &wrong), Err(JoinError::Kind(3, ..))));
    }
}

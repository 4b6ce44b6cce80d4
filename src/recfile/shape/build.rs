//! A value's shape made along its serialization, as [`super::split`] makes
//! it of the value's JSON tree, without the tree: the first sample of 100k
//! devices built a tree of two million nodes (each field's name a string
//! of its own, each object a map) only to walk it once and drop it.

use std::borrow::Cow;

use serde::Serialize;

use super::{Differs, KeyName, Leaf, NumKind, Shape, Unnamed};
use crate::recfile::format::Value;

/// The shape `serde_json::to_value(value)` would give [`super::split`],
/// its numbers not yet in series; None where this does not know to follow
/// serde_json (see [`super::KeyName`]), or where serde_json fails: the
/// caller then takes the tree's way, which says why.
pub fn unnamed<T: Serialize + ?Sized>(value: &T) -> Option<Unnamed> {
    let mut raw = Vec::new();
    let shape = value.serialize(Build { raw: &mut raw }).ok()?;
    Some(Unnamed { shape, raw })
}

/// Makes a shape whose numbers hold their place in `raw`.
struct Build<'r> {
    raw: &'r mut Vec<Value>,
}

impl<'r> Build<'r> {
    fn leaf(self, leaf: Option<Leaf>) -> Result<Shape, Differs> {
        Ok(match leaf {
            Some((kind, value)) => {
                let at = u32::try_from(self.raw.len()).map_err(|_| Differs)?;
                self.raw.push(value);
                Shape::Num(at, kind)
            }
            None => Shape::Null,
        })
    }

    fn items(self, len: usize, variant: Option<&'static str>) -> Items<'r> {
        Items {
            items: Vec::with_capacity(len),
            variant,
            raw: self.raw,
        }
    }

    fn fields(self, len: usize, variant: Option<&'static str>) -> Fields<'r> {
        Fields {
            fields: Vec::with_capacity(len),
            key: None,
            variant,
            raw: self.raw,
        }
    }
}

/// `{variant: shape}`, as serde_json writes an enum's variant that holds
/// something.
fn in_variant(variant: Option<&'static str>, shape: Shape) -> Shape {
    match variant {
        Some(v) => Shape::Obj(vec![(Cow::Borrowed(v), shape)]),
        None => shape,
    }
}

impl<'r> serde::Serializer for Build<'r> {
    type Ok = Shape;
    type Error = Differs;
    type SerializeSeq = Items<'r>;
    type SerializeTuple = Items<'r>;
    type SerializeTupleStruct = Items<'r>;
    type SerializeTupleVariant = Items<'r>;
    type SerializeMap = Fields<'r>;
    type SerializeStruct = Fields<'r>;
    type SerializeStructVariant = Fields<'r>;

    fn serialize_bool(self, v: bool) -> Result<Shape, Differs> {
        Ok(Shape::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Shape, Differs> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<Shape, Differs> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<Shape, Differs> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<Shape, Differs> {
        self.leaf(Some(super::int(v)))
    }
    fn serialize_i128(self, v: i128) -> Result<Shape, Differs> {
        let leaf = super::int128(v)?;
        self.leaf(Some(leaf))
    }
    fn serialize_u8(self, v: u8) -> Result<Shape, Differs> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<Shape, Differs> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<Shape, Differs> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<Shape, Differs> {
        self.leaf(Some((NumKind::U, Value::Counter(v))))
    }
    fn serialize_u128(self, v: u128) -> Result<Shape, Differs> {
        u64::try_from(v).map_or(Err(Differs), |u| self.serialize_u64(u))
    }
    fn serialize_f32(self, v: f32) -> Result<Shape, Differs> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Shape, Differs> {
        self.leaf(super::float(v))
    }
    fn serialize_char(self, v: char) -> Result<Shape, Differs> {
        Ok(Shape::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Shape, Differs> {
        Ok(Shape::Str(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Shape, Differs> {
        use serde::ser::SerializeSeq;
        let mut items = self.items(v.len(), None);
        for b in v {
            items.serialize_element(b)?;
        }
        items.end()
    }
    fn serialize_none(self) -> Result<Shape, Differs> {
        Ok(Shape::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Shape, Differs> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Shape, Differs> {
        Ok(Shape::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Shape, Differs> {
        Ok(Shape::Null)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Shape, Differs> {
        Ok(Shape::Str(variant.to_owned()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Shape, Differs> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Shape, Differs> {
        Ok(in_variant(Some(variant), value.serialize(self)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Items<'r>, Differs> {
        Ok(self.items(len.unwrap_or(0), None))
    }
    fn serialize_tuple(self, len: usize) -> Result<Items<'r>, Differs> {
        Ok(self.items(len, None))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Items<'r>, Differs> {
        Ok(self.items(len, None))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Items<'r>, Differs> {
        Ok(self.items(len, Some(variant)))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Fields<'r>, Differs> {
        Ok(self.fields(len.unwrap_or(0), None))
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Fields<'r>, Differs> {
        Ok(self.fields(len, None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Fields<'r>, Differs> {
        Ok(self.fields(len, Some(variant)))
    }
}

/// A sequence's elements, or a tuple variant's.
struct Items<'r> {
    items: Vec<Shape>,
    variant: Option<&'static str>,
    raw: &'r mut Vec<Value>,
}

impl Items<'_> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Differs> {
        let shape = value.serialize(Build { raw: self.raw })?;
        self.items.push(shape);
        Ok(())
    }

    fn done(self) -> Result<Shape, Differs> {
        Ok(in_variant(self.variant, Shape::Arr(self.items)))
    }
}

/// serde's four sequence traits differ only in their names.
macro_rules! items_as {
    ($($trait:ident :: $method:ident),*) => {$(
        impl serde::ser::$trait for Items<'_> {
            type Ok = Shape;
            type Error = Differs;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Differs> {
                self.push(value)
            }
            fn end(self) -> Result<Shape, Differs> {
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

/// A map's entries, a struct's fields or a struct variant's, put in the
/// order of serde_json's map: by name, the last of two of one name kept.
struct Fields<'r> {
    fields: Vec<(Cow<'static, str>, Shape)>,
    /// The key a map gave, for its value.
    key: Option<Cow<'static, str>>,
    variant: Option<&'static str>,
    raw: &'r mut Vec<Value>,
}

impl Fields<'_> {
    fn push<T: Serialize + ?Sized>(
        &mut self,
        key: Cow<'static, str>,
        value: &T,
    ) -> Result<(), Differs> {
        let shape = value.serialize(Build { raw: self.raw })?;
        self.fields.push((key, shape));
        Ok(())
    }

    fn done(self) -> Result<Shape, Differs> {
        if self.key.is_some() {
            return Err(Differs);
        }
        let mut fields = self.fields;
        // A struct's fields come in the order of their declaration, which
        // is seldom by name.
        if !fields.is_sorted_by(|a, b| a.0 < b.0) {
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            fields.reverse();
            fields.dedup_by(|later, kept| later.0 == kept.0);
            fields.reverse();
        }
        Ok(in_variant(self.variant, Shape::Obj(fields)))
    }
}

impl serde::ser::SerializeMap for Fields<'_> {
    type Ok = Shape;
    type Error = Differs;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Differs> {
        if self.key.is_some() {
            return Err(Differs);
        }
        self.key = Some(Cow::Owned(key.serialize(KeyName)?));
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Differs> {
        let key = self.key.take().ok_or(Differs)?;
        self.push(key, value)
    }
    fn end(self) -> Result<Shape, Differs> {
        self.done()
    }
}

/// A struct's fields and a struct variant's are the same trait but for
/// its name.
macro_rules! fields_as {
    ($($trait:ident),*) => {$(
        impl serde::ser::$trait for Fields<'_> {
            type Ok = Shape;
            type Error = Differs;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Differs> {
                self.push(Cow::Borrowed(key), value)
            }
            fn end(self) -> Result<Shape, Differs> {
                self.done()
            }
        }
    )*};
}

fields_as!(SerializeStruct, SerializeStructVariant);

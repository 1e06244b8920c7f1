//! A serde [`Deserializer`] over a [`Tree`] that names the path of every error
//! (`model.expressions.f_v[1]: invalid type: …`) and records which keys were read as fields of
//! a typed struct (so that `--set` can reject keys that exist in no schema).

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use std::cell::RefCell;
use std::fmt;

use super::tree::{join_index, join_key, Tree};

/// A deserialisation error at a path of the document.
#[derive(Clone, Debug, PartialEq)]
pub struct DeError {
    /// Dotted path (`a.b[2].c`; empty for the document root).
    pub path: String,
    /// What went wrong (serde's message).
    pub msg: String,
}

impl DeError {
    fn at(mut self, path: &str) -> DeError {
        if self.path.is_empty() {
            self.path = path.to_string();
        }
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.msg)
        } else {
            write!(f, "{}: {}", self.path, self.msg)
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError {
            path: String::new(),
            msg: msg.to_string(),
        }
    }
}

/// Deserialise `T` from `tree`; returns the value and the paths of every struct field and enum
/// variant key that was read.
pub fn from_tree<T: de::DeserializeOwned>(tree: &Tree) -> Result<(T, Vec<String>), DeError> {
    let record = RefCell::new(Vec::new());
    let value = T::deserialize(TreeDe {
        node: tree,
        path: "",
        record: &record,
    })?;
    Ok((value, record.into_inner()))
}

/// Deserialise `T` from a subtree whose path is `path` (for messages); nothing is recorded.
pub fn from_subtree<T: de::DeserializeOwned>(tree: &Tree, path: &str) -> Result<T, DeError> {
    let record = RefCell::new(Vec::new());
    T::deserialize(TreeDe {
        node: tree,
        path,
        record: &record,
    })
}

#[derive(Clone, Copy)]
struct TreeDe<'a> {
    node: &'a Tree,
    path: &'a str,
    record: &'a RefCell<Vec<String>>,
}

// `path` needs an owner for child paths; children own theirs through `Owned`.
struct Owned<'a> {
    node: &'a Tree,
    path: String,
    record: &'a RefCell<Vec<String>>,
}

impl<'a> Owned<'a> {
    fn de(&self) -> TreeDe<'_> {
        TreeDe {
            node: self.node,
            path: &self.path,
            record: self.record,
        }
    }
}

impl<'de> Deserializer<'de> for TreeDe<'_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let r = match self.node {
            Tree::Null => visitor.visit_unit(),
            Tree::Bool(b) => visitor.visit_bool(*b),
            Tree::Int(i) => visitor.visit_i64(*i),
            Tree::Float(x) => visitor.visit_f64(*x),
            Tree::Str(s) => visitor.visit_str(s),
            Tree::Seq(items) => visitor.visit_seq(Seq {
                items,
                i: 0,
                path: self.path,
                record: self.record,
            }),
            Tree::Map(entries) => visitor.visit_map(Map {
                entries,
                i: 0,
                path: self.path,
                record: self.record,
                is_struct: false,
            }),
        };
        r.map_err(|e| e.at(self.path))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.node {
            Tree::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .map_err(|e| e.at(self.path))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor
            .visit_newtype_struct(self)
            .map_err(|e| e.at(self.path))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.node {
            Tree::Map(entries) => visitor.visit_map(Map {
                entries,
                i: 0,
                path: self.path,
                record: self.record,
                is_struct: true,
            }),
            // An empty section (`fesdj:` with nothing after it) is an empty struct.
            Tree::Null => visitor.visit_map(Map {
                entries: &[],
                i: 0,
                path: self.path,
                record: self.record,
                is_struct: true,
            }),
            other => Err(de::Error::custom(format!(
                "expected a mapping, found {}",
                other.kind()
            ))),
        }
        .map_err(|e| e.at(self.path))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match self.node {
            Tree::Str(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            Tree::Map(entries) if entries.len() == 1 => {
                let (k, v) = &entries[0];
                visitor.visit_enum(Enum {
                    key: k,
                    value: Owned {
                        node: v,
                        path: join_key(self.path, k),
                        record: self.record,
                    },
                })
            }
            other => Err(de::Error::custom(format!(
                "expected a name or a mapping with one key, found {}",
                other.kind()
            ))),
        }
        .map_err(|e| e.at(self.path))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit seq tuple tuple_struct map identifier
    }
}

struct Seq<'a> {
    items: &'a [Tree],
    i: usize,
    path: &'a str,
    record: &'a RefCell<Vec<String>>,
}

impl<'de> SeqAccess<'de> for Seq<'_> {
    type Error = DeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(item) = self.items.get(self.i) else {
            return Ok(None);
        };
        let child = Owned {
            node: item,
            path: join_index(self.path, self.i),
            record: self.record,
        };
        self.i += 1;
        seed.deserialize(child.de())
            .map(Some)
            .map_err(|e| e.at(&child.path))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len() - self.i)
    }
}

struct Map<'a> {
    entries: &'a [(String, Tree)],
    i: usize,
    path: &'a str,
    record: &'a RefCell<Vec<String>>,
    is_struct: bool,
}

impl<'de> MapAccess<'de> for Map<'_> {
    type Error = DeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((k, _)) = self.entries.get(self.i) else {
            return Ok(None);
        };
        let path = join_key(self.path, k);
        let key = seed
            .deserialize(k.as_str().into_deserializer())
            .map_err(|e: DeError| e.at(&path))?;
        if self.is_struct {
            self.record.borrow_mut().push(path);
        }
        Ok(Some(key))
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let Some((k, v)) = self.entries.get(self.i) else {
            return Err(de::Error::custom("value without a key"));
        };
        self.i += 1;
        let child = Owned {
            node: v,
            path: join_key(self.path, k),
            record: self.record,
        };
        seed.deserialize(child.de()).map_err(|e| e.at(&child.path))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len() - self.i)
    }
}

struct Enum<'a> {
    key: &'a str,
    value: Owned<'a>,
}

impl<'de, 'a> EnumAccess<'de> for Enum<'a> {
    type Error = DeError;
    type Variant = Owned<'a>;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Owned<'a>), DeError> {
        let v = seed.deserialize(self.key.into_deserializer())?;
        self.value.record.borrow_mut().push(self.value.path.clone());
        Ok((v, self.value))
    }
}

impl<'de> VariantAccess<'de> for Owned<'_> {
    type Error = DeError;
    fn unit_variant(self) -> Result<(), DeError> {
        match self.node {
            Tree::Null => Ok(()),
            other => Err(DeError {
                path: self.path.clone(),
                msg: format!("this variant takes no value, found {}", other.kind()),
            }),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        seed.deserialize(self.de())
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DeError> {
        self.de().deserialize_any(visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.de().deserialize_struct("", fields, visitor)
    }
}

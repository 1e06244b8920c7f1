//! The YAML document as a plain tree ([`Tree`]): read once with `serde-saphyr`, edited by
//! `--set` overrides ([`super::set`]), then deserialised into the typed configuration by
//! [`super::de`], which names the path of every error.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A YAML value: scalars, sequences and mappings with their keys in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum Tree {
    /// `null`, `~` or an empty value.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number (also `.inf`, `-.inf`, `.nan`).
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Tree>),
    /// A mapping (keys as strings, file order).
    Map(Vec<(String, Tree)>),
}

impl Tree {
    /// What kind of node this is (for messages).
    pub fn kind(&self) -> &'static str {
        match self {
            Tree::Null => "null",
            Tree::Bool(_) => "a boolean",
            Tree::Int(_) => "an integer",
            Tree::Float(_) => "a number",
            Tree::Str(_) => "a string",
            Tree::Seq(_) => "a list",
            Tree::Map(_) => "a mapping",
        }
    }

    /// The value under `key` of a mapping.
    pub fn get(&self, key: &str) -> Option<&Tree> {
        match self {
            Tree::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Tree, E> {
        Ok(Tree::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Tree, E> {
        Ok(Tree::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Tree, E> {
        Ok(i64::try_from(v).map_or(Tree::Float(v as f64), Tree::Int))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Tree, E> {
        Ok(i64::try_from(v).map_or(Tree::Float(v as f64), Tree::Int))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Tree, E> {
        Ok(i64::try_from(v).map_or(Tree::Float(v as f64), Tree::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Tree, E> {
        Ok(Tree::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Tree, E> {
        Ok(Tree::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Tree, E> {
        Ok(Tree::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Tree, D::Error> {
        Tree::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut out = Vec::new();
        while let Some(x) = seq.next_element::<Tree>()? {
            out.push(x);
        }
        Ok(Tree::Seq(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut out: Vec<(String, Tree)> = Vec::new();
        while let Some(k) = map.next_key::<Tree>()? {
            let key = match k {
                Tree::Str(s) => s,
                Tree::Int(i) => i.to_string(),
                Tree::Bool(b) => b.to_string(),
                Tree::Float(x) => x.to_string(),
                other => {
                    return Err(de::Error::custom(format!(
                        "mapping keys must be strings, found {}",
                        other.kind()
                    )))
                }
            };
            let v = map.next_value::<Tree>()?;
            if out.iter().any(|(k2, _)| *k2 == key) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            out.push((key, v));
        }
        Ok(Tree::Map(out))
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Tree, D::Error> {
        d.deserialize_any(TreeVisitor)
    }
}

/// Parse YAML text into a [`Tree`] (an empty document is [`Tree::Null`]).
///
/// YAML 1.2 booleans only (`true`/`false`: `y`, `n`, `N`, `on`, `no` stay strings, which
/// matters for coordinate names and `horizon.N`), and `.inf`/`-.inf`/`.nan` are numbers (for
/// open bounds).
pub fn parse_yaml(text: &str) -> Result<Tree, String> {
    if text.trim().is_empty() {
        return Ok(Tree::Null);
    }
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::PassThrough;
    serde_saphyr::from_str_with_options::<Tree>(text, options).map_err(|e| e.to_string())
}

/// One step of a path: a mapping key or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// `.key`
    Key(String),
    /// `[i]`
    Index(usize),
}

/// Render a path as `a.b[2].c` (the form every error message uses).
pub fn path_string(path: &[Segment]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Segment::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Segment::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// `base.key` (or `key` at the root).
pub fn join_key(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_string()
    } else {
        format!("{base}.{key}")
    }
}

/// `base[i]`.
pub fn join_index(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

//! The parts both document kinds share: format strings and version, where content came from
//! (for error messages), and readers of JSON fields that fail naming the field.

use crate::ad::error::AdError;
use serde_json::{Map, Value};

/// The `format` string of a function document.
pub const FUNCTION_FORMAT: &str = "fesdj-function";
/// The `format` string of a problem document.
pub const PROBLEM_FORMAT: &str = "fesdj-mpcc";
/// The format version this reader understands.
pub const FORMAT_VERSION: u64 = 1;

/// Where parsed content came from, for error messages: the file (or `<string>`) and the path of
/// the document inside it (empty at top level, `functions.g` inside a problem).
#[derive(Clone, Copy)]
pub(super) struct Origin<'a> {
    pub file: &'a str,
    pub within: &'a str,
}

impl Origin<'_> {
    pub(super) fn err(&self, why: impl Into<String>) -> AdError {
        let why = why.into();
        AdError::Import {
            file: self.file.to_string(),
            why: if self.within.is_empty() {
                why
            } else {
                format!("{}: {why}", self.within)
            },
        }
    }

    pub(super) fn unsupported(&self, op: &str, instruction: usize) -> AdError {
        AdError::UnsupportedOp {
            file: if self.within.is_empty() {
                self.file.to_string()
            } else {
                format!("{} ({})", self.file, self.within)
            },
            op: op.to_string(),
            instruction,
        }
    }
}

pub(super) fn parse_json(text: &str, file: &str) -> Result<Value, AdError> {
    serde_json::from_str(text).map_err(|e| AdError::Import {
        file: file.to_string(),
        why: format!("malformed JSON: {e}"),
    })
}

pub(super) fn describe(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        let short: String = s.chars().take(40).collect();
        format!("{short}…")
    } else {
        s
    }
}

pub(super) fn as_object<'v>(v: &'v Value, o: Origin) -> Result<&'v Map<String, Value>, AdError> {
    v.as_object()
        .ok_or_else(|| o.err(format!("expected a JSON object, got {}", describe(v))))
}

pub(super) fn field<'v>(
    obj: &'v Map<String, Value>,
    key: &str,
    o: Origin,
) -> Result<&'v Value, AdError> {
    obj.get(key)
        .ok_or_else(|| o.err(format!("missing field `{key}`")))
}

pub(super) fn string_field<'v>(
    obj: &'v Map<String, Value>,
    key: &str,
    o: Origin,
) -> Result<&'v str, AdError> {
    let v = field(obj, key, o)?;
    v.as_str().ok_or_else(|| {
        o.err(format!(
            "field `{key}`: expected a string, got {}",
            describe(v)
        ))
    })
}

/// A non-negative integer that fits a `u32` (the limit of register and element indices).
pub(super) fn index_value(v: &Value, what: &str, o: Origin) -> Result<u32, AdError> {
    v.as_u64()
        .and_then(|x| u32::try_from(x).ok())
        .ok_or_else(|| {
            o.err(format!(
                "{what}: expected a non-negative integer below 2^32, got {}",
                describe(v)
            ))
        })
}

pub(super) fn usize_field(
    obj: &Map<String, Value>,
    key: &str,
    o: Origin,
) -> Result<usize, AdError> {
    let v = field(obj, key, o)?;
    index_value(v, &format!("field `{key}`"), o).map(|x| x as usize)
}

/// A real number: a JSON number or one of the strings `"inf"`, `"-inf"`, `"nan"`.
pub(super) fn real_value(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" => Some(f64::NAN),
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn check_header(
    obj: &Map<String, Value>,
    format: &str,
    o: Origin,
) -> Result<(), AdError> {
    let f = string_field(obj, "format", o)?;
    if f != format {
        return Err(o.err(format!(
            "field `format`: expected \"{format}\", got \"{f}\""
        )));
    }
    let v = field(obj, "version", o)?;
    match v.as_u64() {
        Some(FORMAT_VERSION) => Ok(()),
        Some(n) => Err(o.err(format!(
            "field `version`: unsupported version {n} (this reader supports version {FORMAT_VERSION})"
        ))),
        None => Err(o.err(format!(
            "field `version`: expected an integer, got {}",
            describe(v)
        ))),
    }
}

//! Import of functions and MPCC problems from the JSON format of `docs/formats.md`.
//!
//! The files are written by `tools/casadi_export.py` from CasADi SX functions (MX functions are
//! expanded to SX by the script) and nosbench-style problem files. Two document kinds exist:
//!
//! * `fesdj-function`: one function as CasADi's SX instruction list over numbered work
//!   registers ([`FunctionDoc`], [`read_function`], [`function_from_str`]);
//! * `fesdj-mpcc`: an MPCC `min f(w, p) s.t. lbg ≤ g(w, p) ≤ ubg, lbw ≤ w ≤ ubw,
//!   0 ≤ G(w, p) ⟂ H(w, p) ≥ 0` with start point, parameter values and four functions
//!   ([`ProblemDoc`], [`read_problem`], [`ImportedProblem`]).
//!
//! Reading happens in two steps. Parsing validates the whole document (format and version,
//! field types, operand counts, register, input and output indices, registers read before they
//! are written, every output element written exactly once, sizes of a problem's parts) and
//! fails with [`AdError::Import`] naming the field or instruction, or with
//! [`AdError::UnsupportedOp`] naming an op code we do not implement: an unsupported operation is
//! never turned silently into a wrong function. Replaying the instruction list over
//! [`Sx`](crate::ad::Sx) registers ([`FunctionDoc::call`]) then rebuilds the expression graph
//! (with the arena's hash-consing and simplifications), which [`Function::new`] compiles into
//! our own tape.

mod function_doc;
mod problem;

pub use function_doc::{FunctionDoc, Port};
pub use problem::{ImportedProblem, ProblemDoc};

use super::error::AdError;
use super::function::Function;
use serde_json::{Map, Value};
use std::path::Path;

/// The `format` string of a function document.
pub const FUNCTION_FORMAT: &str = "fesdj-function";
/// The `format` string of a problem document.
pub const PROBLEM_FORMAT: &str = "fesdj-mpcc";
/// The format version this reader understands.
pub const FORMAT_VERSION: u64 = 1;

/// Where parsed content came from, for error messages: the file (or `<string>`) and the path of
/// the document inside it (empty at top level, `functions.g` inside a problem).
#[derive(Clone, Copy)]
struct Origin<'a> {
    file: &'a str,
    within: &'a str,
}

impl Origin<'_> {
    fn err(&self, why: impl Into<String>) -> AdError {
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

    fn unsupported(&self, op: &str, instruction: usize) -> AdError {
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

fn parse_json(text: &str, file: &str) -> Result<Value, AdError> {
    serde_json::from_str(text).map_err(|e| AdError::Import {
        file: file.to_string(),
        why: format!("malformed JSON: {e}"),
    })
}

fn read_text(path: &Path) -> Result<String, AdError> {
    std::fs::read_to_string(path).map_err(|source| AdError::Io {
        file: path.display().to_string(),
        source,
    })
}

fn describe(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        let short: String = s.chars().take(40).collect();
        format!("{short}…")
    } else {
        s
    }
}

fn as_object<'v>(v: &'v Value, o: Origin) -> Result<&'v Map<String, Value>, AdError> {
    v.as_object()
        .ok_or_else(|| o.err(format!("expected a JSON object, got {}", describe(v))))
}

fn field<'v>(obj: &'v Map<String, Value>, key: &str, o: Origin) -> Result<&'v Value, AdError> {
    obj.get(key)
        .ok_or_else(|| o.err(format!("missing field `{key}`")))
}

fn string_field<'v>(obj: &'v Map<String, Value>, key: &str, o: Origin) -> Result<&'v str, AdError> {
    let v = field(obj, key, o)?;
    v.as_str().ok_or_else(|| {
        o.err(format!(
            "field `{key}`: expected a string, got {}",
            describe(v)
        ))
    })
}

/// A non-negative integer that fits a `u32` (the limit of register and element indices).
fn index_value(v: &Value, what: &str, o: Origin) -> Result<u32, AdError> {
    v.as_u64()
        .and_then(|x| u32::try_from(x).ok())
        .ok_or_else(|| {
            o.err(format!(
                "{what}: expected a non-negative integer below 2^32, got {}",
                describe(v)
            ))
        })
}

fn usize_field(obj: &Map<String, Value>, key: &str, o: Origin) -> Result<usize, AdError> {
    let v = field(obj, key, o)?;
    index_value(v, &format!("field `{key}`"), o).map(|x| x as usize)
}

/// A real number: a JSON number or one of the strings `"inf"`, `"-inf"`, `"nan"`.
fn real_value(v: &Value) -> Option<f64> {
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

fn check_header(obj: &Map<String, Value>, format: &str, o: Origin) -> Result<(), AdError> {
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

/// Read a `fesdj-function` file and compile it.
pub fn read_function(path: impl AsRef<Path>) -> Result<Function, AdError> {
    let path = path.as_ref();
    let text = read_text(path)?;
    function_from_str(&text, &path.display().to_string())
}

/// Parse a `fesdj-function` document and compile it; `origin_name` names the source in errors.
pub fn function_from_str(text: &str, origin_name: &str) -> Result<Function, AdError> {
    FunctionDoc::parse(text, origin_name)?.compile()
}

/// Read a `fesdj-mpcc` file and compile its functions.
pub fn read_problem(path: impl AsRef<Path>) -> Result<ImportedProblem, AdError> {
    let path = path.as_ref();
    let text = read_text(path)?;
    problem_from_str(&text, &path.display().to_string())
}

/// Parse a `fesdj-mpcc` document and compile its functions; `origin_name` names the source.
pub fn problem_from_str(text: &str, origin_name: &str) -> Result<ImportedProblem, AdError> {
    ProblemDoc::parse(text, origin_name)?.compile()
}

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

mod format;
mod function_doc;
mod problem;

pub use format::{FORMAT_VERSION, FUNCTION_FORMAT, PROBLEM_FORMAT};
pub use function_doc::{FunctionDoc, Port};
pub use problem::{ImportedProblem, ProblemDoc};

use super::error::AdError;
use super::function::Function;
use std::path::Path;

fn read_text(path: &Path) -> Result<String, AdError> {
    std::fs::read_to_string(path).map_err(|source| AdError::Io {
        file: path.display().to_string(),
        source,
    })
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

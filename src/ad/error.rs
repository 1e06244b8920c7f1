//! Errors of the `ad` module.

use thiserror::Error;

/// Errors raised while building, compiling, evaluating or importing functions.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AdError {
    /// A sparsity pattern violates the CSC invariants.
    #[error("invalid sparsity pattern: {0}")]
    InvalidSparsity(String),
    /// A bug in this library (an invariant the code maintains was found broken).
    #[error("internal error: {0}")]
    Internal(String),
    /// An input of a function is not a free symbol, or a symbol appears twice.
    #[error("function `{function}`: input {input} element {element}: {why}")]
    BadInput {
        /// Function name.
        function: String,
        /// Input index.
        input: usize,
        /// Element index inside the input.
        element: usize,
        /// What is wrong.
        why: String,
    },
    /// An output depends on a symbol that is not among the inputs.
    #[error("function `{function}`: output {output} element {element} depends on a free symbol that is not an input ({symbol})")]
    FreeSymbol {
        /// Function name.
        function: String,
        /// Output index.
        output: usize,
        /// Element index.
        element: usize,
        /// The symbol's name.
        symbol: String,
    },
    /// Wrong number or length of arguments at evaluation.
    #[error("function `{function}`: {what}: expected {expected}, got {got}")]
    Dimension {
        /// Function name.
        function: String,
        /// Which argument.
        what: String,
        /// Expected length or count.
        expected: usize,
        /// Actual length or count.
        got: usize,
    },
    /// A malformed import file.
    #[error("import {file}: {why}")]
    Import {
        /// File (or `<string>`).
        file: String,
        /// What is wrong, naming the field.
        why: String,
    },
    /// An op code of an import file that we do not support.
    #[error("import {file}: unsupported op code `{op}` at instruction {instruction}")]
    UnsupportedOp {
        /// File (or `<string>`).
        file: String,
        /// The op code as written in the file.
        op: String,
        /// Instruction index.
        instruction: usize,
    },
    /// A worker thread of a [`SplitFunction`](super::split::SplitFunction) could not be
    /// started, or its part of an evaluation failed.
    #[error("function `{function}`: {why}")]
    Thread {
        /// Function name.
        function: String,
        /// What failed.
        why: String,
    },
    /// I/O error reading a file.
    #[error("{file}: {source}")]
    Io {
        /// File.
        file: String,
        /// Underlying error.
        source: std::io::Error,
    },
}

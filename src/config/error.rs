//! Errors of problem configurations. Every variant names the place in the file: a dotted field
//! path such as `model.expressions.f_v[1]`, or the `--set` key.

use thiserror::Error;

use super::de::DeError;
use crate::config::expr::ExprError;
use crate::fesdj::FesdjError;
use crate::model::ModelError;

/// Errors raised while reading, overriding, checking and building a problem configuration.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// File name.
        file: String,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The file is not valid YAML.
    #[error("{file}: YAML syntax error: {why}")]
    Yaml {
        /// File name.
        file: String,
        /// The parser's message (with line and column).
        why: String,
    },
    /// The document does not match the schema (unknown field, wrong type, missing field).
    #[error("{0}")]
    Schema(#[from] DeError),
    /// A `--set KEY=VALUE` override is malformed or names a key that does not exist.
    #[error("--set {key}: {why}")]
    Override {
        /// The key as given.
        key: String,
        /// What is wrong.
        why: String,
    },
    /// An expression does not parse or uses a symbol that is unknown or not allowed there.
    #[error("{field}: {source}")]
    Expr {
        /// Field path.
        field: String,
        /// The parser's error.
        source: ExprError,
    },
    /// A symbol that exists but may not be used in this field (e.g. a velocity in `M`).
    #[error("{field}: symbol '{name}' at column {pos} is not allowed here ({allowed})")]
    Scope {
        /// Field path.
        field: String,
        /// The symbol.
        name: String,
        /// Its column.
        pos: usize,
        /// What may be used.
        allowed: &'static str,
    },
    /// A list or matrix has the wrong size.
    #[error("{field}: expected {expected}, got {got}")]
    Shape {
        /// Field path.
        field: String,
        /// The expected shape.
        expected: String,
        /// The actual shape.
        got: String,
    },
    /// A value is out of range or inconsistent with another field.
    #[error("{field}: {why}")]
    Invalid {
        /// Field path.
        field: String,
        /// What is wrong.
        why: String,
    },
    /// The robot model (URDF, joints, frames, contacts) could not be built.
    #[error("{field}: {source}")]
    Model {
        /// Field path.
        field: String,
        /// The model error.
        source: ModelError,
    },
    /// The transcription layer rejected the model, options or problem.
    #[error("{field}: {source}")]
    Fesdj {
        /// Field path (section) the data came from.
        field: String,
        /// The error.
        source: FesdjError,
    },
}

/// Shorthand for [`ConfigError::Invalid`].
pub(crate) fn invalid(field: impl Into<String>, why: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        field: field.into(),
        why: why.into(),
    }
}

/// Shorthand for [`ConfigError::Shape`].
pub(crate) fn shape(
    field: impl Into<String>,
    expected: impl Into<String>,
    got: impl Into<String>,
) -> ConfigError {
    ConfigError::Shape {
        field: field.into(),
        expected: expected.into(),
        got: got.into(),
    }
}

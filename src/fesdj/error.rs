//! Errors of the `fesdj` module.

use thiserror::Error;

use crate::ad::AdError;

/// Errors raised while validating options, checking a model or transcribing a problem.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FesdjError {
    /// An option is out of its admissible range or inconsistent with another option.
    #[error("option `{field}`: {why}")]
    InvalidOption {
        /// The offending field (dotted path inside the options, e.g. `n_s`).
        field: String,
        /// What is wrong.
        why: String,
    },
    /// A Butcher tableau cannot be generated.
    #[error("Butcher tableau: {0}")]
    Tableau(String),
    /// The model is inconsistent (wrong sizes of user functions, negative μ, …).
    #[error("model `{field}`: {why}")]
    Model {
        /// Which part of the model.
        field: String,
        /// What is wrong.
        why: String,
    },
    /// The optimal control problem data are inconsistent (bounds, weights, references).
    #[error("problem `{field}`: {why}")]
    Problem {
        /// Which field of the problem.
        field: String,
        /// What is wrong.
        why: String,
    },
    /// A vector has the wrong length.
    #[error("{what}: expected length {expected}, got {got}")]
    Dimension {
        /// Which vector.
        what: String,
        /// Expected length.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// An error of the symbolic layer.
    #[error(transparent)]
    Ad(#[from] AdError),
    /// An error building or running the NLP/MPCC solver (not the outcome of a solve, which is a
    /// [`Status`](crate::solver::Status) in the trajectory).
    #[error(transparent)]
    Solver(#[from] crate::solver::SolverError),
}

/// Shorthand for an [`FesdjError::InvalidOption`].
pub(crate) fn invalid(field: &str, why: impl Into<String>) -> FesdjError {
    FesdjError::InvalidOption {
        field: field.to_string(),
        why: why.into(),
    }
}

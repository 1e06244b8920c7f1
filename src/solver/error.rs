//! Errors of the solver module.

use thiserror::Error;

/// Errors raised while building or running the solver (not the outcome of a solve: that is a
/// [`Status`](super::Status)).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SolverError {
    /// The problem definition is inconsistent (dimensions, patterns, bounds).
    #[error("invalid problem: {0}")]
    InvalidProblem(String),
    /// A setting is out of its admissible range.
    #[error("invalid setting `{name}`: {why}")]
    InvalidSetting {
        /// Setting name.
        name: &'static str,
        /// What is wrong.
        why: String,
    },
    /// A slice passed to the solver has the wrong length.
    #[error("dimension mismatch for {what}: expected {expected}, got {got}")]
    Dimension {
        /// Which argument.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// The symbolic analysis of the KKT matrix failed.
    #[error("symbolic factorisation of the KKT matrix failed: {0}")]
    Symbolic(String),
    /// Reading or parsing a settings or problem file failed.
    #[error("{file}: {why}")]
    Io {
        /// File name.
        file: String,
        /// What went wrong.
        why: String,
    },
    /// An error from the `ad` module (building an NLP from compiled functions).
    #[error(transparent)]
    Ad(#[from] crate::ad::AdError),
}

impl SolverError {
    /// `Ok` when `got == expected`, else [`SolverError::Dimension`] naming `what`.
    pub(crate) fn check_dim(
        what: &'static str,
        expected: usize,
        got: usize,
    ) -> Result<(), SolverError> {
        if expected == got {
            Ok(())
        } else {
            Err(SolverError::Dimension {
                what,
                expected,
                got,
            })
        }
    }
}

/// Failure of a user callback (function evaluation). Carries no heap data so that returning it
/// never allocates; the solver treats it like a non-finite value (it backtracks or stops).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("evaluation of `{0}` failed")]
pub struct EvalError(pub &'static str);

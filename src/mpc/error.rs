//! Errors of the MPC layer.

use thiserror::Error;

/// What can go wrong in the controller (a failed *solve* is not an error: it yields the last
/// verified plan or the fallback, see [`Controller::solve`](super::Controller::solve)).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MpcError {
    /// The FESD-J layer rejected something (sizes, options, a transcription error).
    #[error(transparent)]
    Fesdj(#[from] crate::fesdj::FesdjError),
    /// A measured state or reference is unusable; nothing was changed.
    #[error("{what}: {why}")]
    BadInput {
        /// Which input (`q`, `v`, `reference`, …) and element.
        what: String,
        /// Why it was rejected.
        why: String,
    },
    /// An invalid setting, naming the field.
    #[error("mpc settings: {field}: {why}")]
    Settings {
        /// The setting.
        field: String,
        /// What is wrong.
        why: String,
    },
    /// `solve` was called before any state was set.
    #[error("no state has been set; call set_state before solve")]
    NoState,
}

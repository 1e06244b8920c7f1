//! [`BuildError`]: why a problem file could not be turned into a problem, controller or plant.

use thiserror::Error;

use crate::config::ConfigError;
use crate::fesdj::FesdjError;
use crate::mpc::MpcError;

/// Errors of the application layer's builders (each names the file, field or setting).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The problem file is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The transcription or the solver rejected the problem.
    #[error(transparent)]
    Fesdj(#[from] FesdjError),
    /// The controller rejected its settings.
    #[error(transparent)]
    Mpc(#[from] MpcError),
}

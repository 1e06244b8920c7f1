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
    /// The plant (the FESD-J simulator of a closed-loop run) did not integrate a control tick:
    /// the run stops there, since the failed solve's end state is not a state of the plant.
    #[error("plant step of tick {tick} (t = {t} s) failed: {status:?}")]
    PlantFailed {
        /// The tick (0-based).
        tick: usize,
        /// Its time, seconds.
        t: f64,
        /// The status of the plant's last attempt.
        status: crate::solver::Status,
        /// The plant state `(q, v)` the step started from (to reproduce it).
        x: Vec<f64>,
        /// The applied control.
        u: Vec<f64>,
        /// The log of the ticks before (its `final_state` is `x`).
        log: Box<super::log::ClosedLoopLog>,
    },
    /// `solve` was called before any state was set.
    #[error("no state has been set; call set_state before solve")]
    NoState,
}

//! Sparse interior-point NLP solver and the MPCC homotopy around it.
//!
//! * [`Nlp`]: the problem interface (values into caller slices, CSC patterns, parameters);
//!   [`Complementarity`] for `0 <= G ⟂ H >= 0`.
//! * [`Ipm`]: IPOPT-class primal-dual interior-point method (filter line search, second-order
//!   corrections, restoration, inertia correction) on a faer sparse LDLᵀ of the KKT system.
//! * [`Settings`], [`Status`], [`Info`]: configuration and results.

// Index loops over several parallel arrays are the clearest form of the numerical kernels, and
// negated comparisons (`!(a > 0.0)`) are deliberate: they are also true for NaN.
#![allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]

pub mod ad_nlp;
#[cfg(feature = "ipopt-baseline")]
pub mod baseline;
pub mod dense;
pub mod error;
pub(crate) mod factor;
mod gmres;
pub mod ipm;
pub(crate) mod kkt;
pub(crate) mod ldlt;
#[doc(hidden)]
pub use kkt::bench as kkt_bench;
pub mod mpcc;
pub mod nlp;
pub mod problems;
pub mod settings;
pub mod status;
pub(crate) mod supernodal;

pub use ad_nlp::HessianApproximation;
pub use error::{EvalError, SolverError};
pub use ipm::{Ipm, IpmStart, Solution};
pub use mpcc::{
    Certificate, HomotopySettings, MpccResult, MpccSolver, Polish, Relaxation, SecondPath,
    SigmaUpdate, Stationarity, StationaritySettings, StopMeasure, WarmPoint,
};
pub use nlp::{Complementarity, Nlp, VariablePairs, INF_BOUND};
pub use settings::{KktFactorization, MuStrategy, Settings};
pub use status::{Info, IterStats, Status, Timers};

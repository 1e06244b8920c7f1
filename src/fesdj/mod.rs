//! FESD-J: Finite Elements with Switch Detection and Jumps for Complementarity Lagrangian
//! Systems, as a direct transcription into an MPCC.
//!
//! The specification is `docs/formulation.md`; equation numbers in the docs of
//! this module, e.g. (12a), (17b), (18), refer to it.
//!
//! * [`tableau`]: Butcher tableaus (Radau IIA, Gauss–Legendre, implicit Euler) and the integral
//!   representation (§3.2).
//! * [`cls`]: the Complementarity Lagrangian System [`ClsModel`] (§1).
//! * [`options`]: every option of the spec with its defaults ([`FesdjOptions`]).
//! * [`ocp`]: the optimal control problem ([`Ocp`]: costs, bounds, constraints, §4).
//! * [`expr`]: small arithmetic expressions parsed into [`Sx`](crate::ad::Sx) (model files).
//! * [`transcribe`]: the FESD-J MPCC ([`Transcription`], §3–§4.2) with its [`Layout`].
//! * [`problem`]: [`FesdjProblem`], the transcribed and compiled problem with its homotopy
//!   solver, re-solvable with a new initial state, parameters and warm starts (§4.2, §4.8).
//! * [`simulate`]: FESD-J as an integrator ([`Simulator`], [`simulate()`], §4.6).
//! * [`trajectory`]: the [`Trajectory`] of a solve or simulation (grid, states, controls,
//!   forces, impacts, switches; the `OUT.json` contract).

mod alloc;
pub mod cls;
mod cross_comp;
pub mod error;
mod extract;
mod friction;
mod impulse;
pub mod layout;
pub mod linalg;
pub mod mpcc;
pub mod ocp;
mod ocp_terms;
pub mod options;
mod owned;
pub mod problem;
pub mod simulate;
mod step_eq;
pub mod tableau;
pub mod trajectory;
mod transcription;

pub use cls::{ClosureFunctions, ClsFunctions, ClsModel, ContactLaw};
pub use error::FesdjError;
pub use layout::{FrictionIndex, Layout};
pub use mpcc::{MpccFunctions, MpccValues, PairInfo, PairKind, RowInfo, RowKind, Transcription};
pub use ocp::{Bounds, LsqTracking, Ocp, Periodic};
pub use options::{
    ConicFormulation, ConicSwitchHandling, CrossCompMode, FesdjOptions, FrictionModel,
    InitialGuess, PerContact, RkRepresentation, StepEquilibration,
};
pub use problem::{FesdjProblem, SolveOptions, Start};
pub use simulate::{simulate, Controls, SimulationOptions, Simulator, StepResult};
pub use tableau::{ButcherTableau, IntegralForm, RkScheme};
pub use trajectory::{
    FinalState, Impact, SolveStats, StageForces, Switch, SwitchKind, Trajectory,
    DEFAULT_IMPACT_THRESHOLD, DEFAULT_STATE_THRESHOLD,
};
pub use transcription::transcribe;

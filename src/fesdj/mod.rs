//! FESD-J: Finite Elements with Switch Detection and Jumps for Complementarity Lagrangian
//! Systems, as a direct transcription into an MPCC.
//!
//! The specification is `docs/fesdj-formulation.md` (shared); equation numbers in the docs of
//! this module, e.g. (12a), (17b), (18), refer to it.
//!
//! * [`tableau`]: Butcher tableaus (Radau IIA, Gauss–Legendre, implicit Euler) and the integral
//!   representation (§3.2).
//! * [`cls`]: the Complementarity Lagrangian System [`ClsModel`] (§1).
//! * [`options`]: every option of the spec with its defaults ([`FesdjOptions`]).
//! * [`ocp`]: the optimal control problem ([`Ocp`]: costs, bounds, constraints, §4).
//! * [`transcribe`]: the FESD-J MPCC ([`Mpcc`], §3–§4.2) with its [`Layout`].

mod alloc;
pub mod cls;
mod cross_comp;
pub mod error;
mod friction;
mod impulse;
pub mod layout;
pub mod linalg;
pub mod mpcc;
pub mod ocp;
mod ocp_terms;
pub mod options;
mod step_eq;
pub mod tableau;
mod transcription;

pub use cls::{ClosureFunctions, ClsFunctions, ClsModel, Contact};
pub use error::FesdjError;
pub use layout::Layout;
pub use mpcc::{Mpcc, MpccFunctions, MpccValues, PairInfo, PairKind, RowInfo, RowKind};
pub use ocp::{Bounds, LsqTracking, Ocp};
pub use options::{
    ConicFormulation, ConicSwitchHandling, CrossCompMode, FesdjOptions, FrictionModel,
    InitialGuess, RkRepresentation, StepEquilibration,
};
pub use tableau::{ButcherTableau, IntegralForm, RkScheme};
pub use transcription::transcribe;

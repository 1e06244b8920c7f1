//! FESD-J: Finite Elements with Switch Detection and Jumps for Complementarity Lagrangian
//! Systems, as a direct transcription into an MPCC.
//!
//! The specification is `docs/fesdj-formulation.md` (shared); equation numbers in the docs of
//! this module, e.g. (12a), (17b), (18), refer to it.
//!
//! * [`tableau`]: Butcher tableaus (Radau IIA, Gauss–Legendre, implicit Euler) and the integral
//!   representation (§3.2).

pub mod error;
pub mod tableau;

pub use error::FesdjError;
pub use tableau::{ButcherTableau, IntegralForm, RkScheme};

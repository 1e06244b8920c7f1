//! Receding-horizon control with FESD-J (spec §4.8): a [`Controller`] owns a
//! [`FesdjProblem`](crate::fesdj::FesdjProblem) built once, and per tick takes the measured
//! state ([`Controller::set_state`]) and references ([`Controller::set_reference`]), re-solves
//! within a deadline ([`Controller::solve`]) from the previous solution shifted by one control
//! interval with the homotopy started at a small σ, and hands out a verified [`Plan`].
//!
//! When a solve fails or misses its deadline, the last verified plan is executed for the rest
//! of its horizon; after that a safe [`Fallback`] law (PD hold on the last plan's posture, or
//! joint damping) is applied and the next solve starts cold. Nothing is rebuilt per tick and
//! the plan buffers are sized once.
//!
//! [`closed_loop`] runs the controller against a [`Plant`] (the FESD-J simulator) (with optional
//! model mismatch and state noise), which is what `fesdj mpc` does.

pub mod base_command;
pub mod closed_loop;
pub mod controller;
pub mod counters;
pub mod error;
pub mod fallback;
pub mod gait_library;
pub mod log;
pub mod plan;
pub mod plant;
pub mod projection;
pub mod reference;
pub mod schedule;
mod seed;
pub mod settings;
pub(crate) mod stats;
mod tail;

pub use base_command::{BaseCommandReference, BaseCoordinates};
pub use closed_loop::{run_closed_loop, run_closed_loop_with, ClosedLoopOptions, ReferenceFn};
pub use controller::Controller;
pub use counters::{Planner, TickStats};
pub use error::MpcError;
pub use fallback::Fallback;
pub use gait_library::{Gait, GaitBlend, Library};
pub use log::{ClosedLoopLog, StartupLog, Summary, TickLog};
pub use plan::{Plan, PlanSource};
pub use plant::{Plant, PlantStep};
pub use projection::GapProjection;
pub use reference::PeriodicReference;
pub use schedule::ContactSchedule;
pub use settings::{ControllerSettings, Tracking};

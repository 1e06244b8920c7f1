//! The application layer: the composition root that turns a problem file into the pieces the
//! programs run — the OCP of `fesdj solve` ([`ocp`]), the controller and plant of `fesdj mpc`
//! and of the node's internal simulation ([`closed_loop`]), and the ROS node's controller from
//! its parameters ([`node`]). The CLI, the `fesdj_node` binary, tests, examples and benches
//! all build through here, so a problem file means the same thing everywhere.
//!
//! Layering: `app` uses `config`, `fesdj`, `mpc` and `ros`; nothing below imports it, and the
//! CLI only parses arguments, calls `app` and prints.

pub mod closed_loop;
pub mod compare;
pub mod error;
pub mod gaits;
pub mod node;
pub mod ocp;

pub use closed_loop::{
    build_closed_loop, build_controller, build_plant, build_simulation, ClosedLoop, Simulation,
    PLANT_SPEED_FACTOR, PLANT_SUBSTEPS,
};
pub use error::BuildError;
pub use ocp::{build_ocp, build_ocp_with_start, solve_options, solve_staged, StagedStart};

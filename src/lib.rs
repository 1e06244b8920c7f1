//! fesdj_mpc: FESD-J trajectory optimisation and model-predictive control of robots through
//! impacts and Coulomb friction.
//!
//! Layers (bottom-up): [`ad`] symbolic differentiation with exact sparsity; [`model`] robot
//! models from URDF with generic-scalar kinematics, dynamics and contacts; [`fesdj`] the FESD-J
//! transcription of complementarity Lagrangian systems into MPCCs; [`solver`] the interior-point
//! NLP solver and the MPCC homotopy; [`config`] problem files (YAML) → models, OCPs and
//! simulations; [`mpc`] the receding-horizon controller; [`ros`] the ROS 2 communication layer
//! (messages, `--ros-args`, parameters, the node runtime and its MPC provider); [`app`] the
//! application layer that builds problems, controllers and plants from a problem file (used
//! by the CLI, the node, tests, examples and benches); [`cli`] the subcommands of the `fesdj`
//! binary.
#![warn(missing_docs)]
// The one exception, with its reasons: `ad/native/entry.rs` (calling JIT-compiled code).
#![deny(unsafe_code)]

pub mod ad;
pub mod app;
pub mod cli;
pub mod config;
pub mod fesdj;
pub mod model;
pub mod mpc;
pub mod ros;
pub mod solver;

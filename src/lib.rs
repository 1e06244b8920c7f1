//! fesdj_mpc: FESD-J trajectory optimisation and model-predictive control of robots through
//! impacts and Coulomb friction.
//!
//! Layers (bottom-up): [`ad`] symbolic differentiation with exact sparsity; [`model`] robot
//! models from URDF with generic-scalar kinematics, dynamics and contacts; [`fesdj`] the FESD-J
//! transcription of complementarity Lagrangian systems into MPCCs; [`solver`] the interior-point
//! NLP solver and the MPCC homotopy; [`config`] problem files (YAML) → models, OCPs and
//! simulations; [`mpc`] the receding-horizon controller; [`ros`] the ROS 2 communication layer
//! (messages, `--ros-args`, parameters, node runtime); [`node`] the MPC provider of the
//! `fesdj_node` binary; [`cli`] the subcommands of the `fesdj`
//! binary.
#![warn(missing_docs)]

pub mod ad;
pub mod cli;
pub mod config;
pub mod fesdj;
pub mod model;
pub mod mpc;
pub mod node;
pub mod ros;
pub mod solver;

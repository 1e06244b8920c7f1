//! fesdj_mpc: FESD-J trajectory optimisation and model-predictive control of robots through
//! impacts and Coulomb friction.
//!
//! Layers (bottom-up): [`ad`] symbolic differentiation with exact sparsity; [`ros`] the ROS 2
//! communication layer (messages, `--ros-args`, parameters, node runtime).
#![warn(missing_docs)]

pub mod ad;
pub mod ros;

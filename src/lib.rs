//! fesdj_mpc: FESD-J trajectory optimisation and model-predictive control of robots through
//! impacts and Coulomb friction.
//!
//! Layers (bottom-up): [`ad`] symbolic differentiation with exact sparsity.
#![warn(missing_docs)]

pub mod ad;
pub mod solver;

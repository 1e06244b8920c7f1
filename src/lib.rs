//! fesdj_mpc: FESD-J trajectory optimisation and model-predictive control of robots through
//! impacts and Coulomb friction.
//!
//! Layers (bottom-up): [`ad`] symbolic differentiation with exact sparsity; [`solver`] the
//! interior-point NLP solver and the MPCC homotopy; [`cli`] the command-line front end.
#![warn(missing_docs)]

pub mod ad;
pub mod cli;
pub mod solver;

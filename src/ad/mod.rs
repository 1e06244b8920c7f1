//! Symbolic differentiation with exact sparsity (the CasADi-SX idea, in Rust).
//!
//! * [`Scalar`]: the number trait model code is generic over; implemented by `f64` and [`Sx`].
//! * [`Sx`]: symbolic scalar, a node of a hash-consed expression DAG in a thread-local arena
//!   (see [`sx`] for the ownership and threading model).
//! * [`Function`]: a compiled, allocation-free instruction tape with register reuse, run as
//!   machine code ([`native`], Cranelift) or by an interpreter, with identical results.
//! * [`jacobian`], [`gradient`], [`hessian_of_lagrangian`] (and its Gauss–Newton
//!   counterpart [`hessian_of_objective`]): derivative functions with exact
//!   sparsity patterns ([`SparsityPattern`], CSC).
//! * [`MappedFunction`]: one compiled function evaluated at many points gathered from large
//!   vectors with index maps prepared once (what a transcription needs).
//! * [`import`]: read functions and whole problems from the JSON format of `docs/formats.md`
//!   (written by `tools/casadi_export.py` from CasADi).
//!
//! Generic model code uses our own small fixed-size algebra where speed matters; small nalgebra
//! matrices of `Sx` also work (`Sx` implements `num_traits::Zero`/`One` and the operators).

mod compile;
pub mod derivative;
pub mod error;
pub mod function;
pub(crate) mod hash;
pub mod import;
pub mod map;
pub mod native;
pub mod op;
pub mod scalar;
mod schedule;
pub mod sparsity;
pub mod split;
pub mod sx;
mod tape;

pub use error::AdError;

pub use derivative::{
    gradient, gradient_sx, hessian_lower_sx, hessian_of_lagrangian, hessian_of_objective, jacobian,
    jacobian_of, jacobian_sx, tangent_sx,
};
pub use function::{Function, Workspace};
pub use map::{Gather, MapWorkspace, MappedFunction, Scatter};
pub use native::{Backend, NativeError, NativeInfo, AUTO_MAX_INSTRUCTIONS};
pub use op::OpCode;
pub use scalar::Scalar;
pub use sparsity::SparsityPattern;
pub use split::SplitFunction;
pub use sx::{arena_len, arena_len_bytes_estimate, Sx};

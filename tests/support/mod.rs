//! Helpers shared by the test binaries (one per layer, `tests/<layer>/main.rs`). Each binary
//! includes this folder once, as `#[path = "../support/mod.rs"] mod support;`; a binary uses
//! the parts it needs (hence `dead_code` allowed). The counting global allocator of the
//! allocation tests is not here: it lives in `tests/no_alloc/` so that it never reaches another
//! binary.
//!
//! * `reference`: the Pinocchio reference data of the model tests (`target/reference`).
//! * `pinocchio_cpp`: ours against Pinocchio C++ at one state (`tools/pinocchio_cpp_bench.cpp`;
//!   also serves `examples/pinocchio_anchor.rs`).
//! * `fesdj_models`, `fesdj_common`, `fesdj_ocp_models`: the paper's models, checks and OCPs
//!   of the FESD-J tests (`fesdj_models` and `fesdj_ocp_models` also serve `benches/`).
//! * `sliding_block`: the block pushed on frictional ground, the MPC test model.
//! * `hopper`: hand-written kinematics of the planar hopper.
//! * `analytic`, `netns`, `process`, `reexec`: the DDS / node tests (a plan provider test double,
//!   private network namespaces, child processes, re-executing a test of this binary).
//! * `mujoco`, `scenario`: the MuJoCo bridge and the node-in-MuJoCo scenarios.
//! * `serial`: keeping tests of different former test files from running at the same time.
#![allow(dead_code)]

pub mod analytic;
pub mod fesdj_common;
pub mod fesdj_models;
pub mod fesdj_ocp_models;
pub mod hopper;
pub mod mujoco;
pub mod netns;
pub mod pinocchio_cpp;
pub mod process;
pub mod reexec;
pub mod reference;
pub mod scenario;
pub mod serial;
pub mod sliding_block;

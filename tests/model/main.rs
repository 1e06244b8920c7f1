//! The rigid-body model tests (`src/model`).
//!
//! One test binary for the layer (linked once): one module per former test file
//! `tests/<file>.rs`, now `tests/model/<file>.rs`; libtest names its tests `<file>::<test>`.
//! Shared helpers are in `tests/support/` (`support::…`).
//!
//! Concurrency: libtest runs these tests in parallel, also across former files. They compute
//! and compare numbers only: no wall-clock assertion, no process-global state. The Pinocchio
//! reference data (`support::reference`) is generated at most once per binary (a `OnceLock`;
//! a private folder renamed into place, as before when binaries could race);
//! `model_reference` writes its own `fesdj_dyn_<pid>` folder.

#[path = "../support/mod.rs"]
mod support;

mod model_contacts;
mod model_invariants;
mod model_pinocchio_cpp;
mod model_reference;
mod model_symbolic;
mod model_urdf_errors;

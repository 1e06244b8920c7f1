//! The problem-file tests (`src/config`).
//!
//! One test binary for the layer (linked once): one module per former test file
//! `tests/<file>.rs`, now `tests/config/<file>.rs`; libtest names its tests `<file>::<test>`.
//! Shared helpers are in `tests/support/` (`support::…`).
//!
//! Concurrency: libtest runs these tests in parallel, also across former files. They parse,
//! build and evaluate problems; `config_shipped` also runs `fesdj check` and
//! `tools/quadruped_gait.py` as child processes (reading only). No wall-clock assertion, no
//! process-global state, no files written.

#[path = "../support/mod.rs"]
mod support;

mod config_errors;
mod config_robot;
mod config_set;
mod config_shipped;

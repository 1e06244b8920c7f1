//! The NLP / MPCC solver tests (`src/solver`).
//!
//! One test binary for the layer (linked once): one module per former test file
//! `tests/<file>.rs`, now `tests/solver/<file>.rs`; libtest names its tests `<file>::<test>`.
//! Shared helpers are in `tests/support/` (`support::…`).
//!
//! `ipopt_baseline` is compiled only with the `ipopt-baseline` feature (`#![cfg]` at the top
//! of its file, as when it was its own binary).
//!
//! Concurrency: libtest runs these tests in parallel, also across former files. They solve and
//! compare numbers only: no wall-clock limit or assertion (the solver's `max_wall_time` is
//! infinite by default and not set here), no process-global state; `nosbench` writes its
//! CasADi export under its own folder (`$CARGO_TARGET_TMPDIR/nosbench_solver`).

#[path = "../support/mod.rs"]
mod support;

mod best_acceptable;
mod hs;
mod ipopt_baseline;
mod macmpec;
mod nosbench;
mod second_path;
mod solver_kkt_accuracy;
mod solver_step_retries;
mod solver_warm_active_set;
mod stationarity;
mod warm_budget;
mod warm_fallback;

//! The command-line tests: the `fesdj` binary (`src/cli`) run as a child process.
//!
//! One test binary for the layer (linked once): one module per former test file
//! `tests/<file>.rs`, now `tests/cli/<file>.rs`; libtest names its tests `<file>::<test>`.
//! Shared helpers are in `tests/support/` (`support::…`).
//!
//! Concurrency: libtest runs these tests in parallel, also across former files. Each runs
//! `fesdj` child processes with the repository as their current directory and writes its
//! outputs under `$CARGO_TARGET_TMPDIR` with names of its own file (`cli_mpc/`, `cli_plot/`,
//! `cli_simulate/`, `cli_mpc_backup/`, `mpcc_settings.yaml`, `bad_settings.yaml`), none shared between files. No
//! wall-clock assertion: `cli_mpc` runs `fesdj mpc` with `mpc.deadline_s=60` and checks
//! solve times only for being positive and ordered (p99 ≥ p50).

#[path = "../support/mod.rs"]
mod support;

mod cli_bench;
mod cli_eval;
mod cli_gaits;
mod cli_mpc;
mod cli_mpc_backup;
mod cli_mpc_fesd;
mod cli_mpcc;
mod cli_plot;
mod cli_simulate;

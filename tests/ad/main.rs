//! The automatic-differentiation tests (`src/ad`).
//!
//! One test binary for the layer (linked once): one module per former test file
//! `tests/<file>.rs`, now `tests/ad/<file>.rs`; libtest names its tests `<file>::<test>`.
//! Shared helpers are in `tests/support/` (`support::…`).
//!
//! Concurrency: libtest runs these tests in parallel, also across former files. They compute
//! and compare numbers only: no wall-clock assertion, no process-global state (environment,
//! current directory, signals); `ad_import` writes its CasADi export under its own folder
//! (`$CARGO_TARGET_TMPDIR/nosbench_import`).

#[path = "../support/mod.rs"]
mod support;

mod ad_derivatives;
mod ad_import;
mod ad_import_format;
mod ad_nalgebra;
mod ad_native;
mod ad_ops;
mod ad_split;

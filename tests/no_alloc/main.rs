//! The allocation tests: the hot paths of `src/ad`, `src/model`, `src/solver`, `src/mpc` and
//! `src/ros` perform no heap allocation once their buffers are sized.
//!
//! One test binary (linked once): one module per former test file `tests/<file>_no_alloc.rs`,
//! now `tests/no_alloc/<file>_no_alloc.rs`; libtest names its tests `<file>::<test>`. It is
//! separate from the layers' binaries because it installs a counting `#[global_allocator]`
//! (`counting_alloc`, counting per thread), which must not reach any other test binary. Shared
//! helpers are in `tests/support/` (`support::…`).
//!
//! Concurrency: the counters are per thread, so tests cannot see each other's allocations.
//! Each former file was a binary with one test that ran alone, and `mpc_no_alloc` counts only
//! ticks that met a (5 s) deadline, so every test first takes
//! `support::serial::file(module_path!())`: one test at a time, as before.

#[path = "../support/mod.rs"]
mod support;

mod counting_alloc;

mod ad_no_alloc;
mod model_no_alloc;
mod mpc_no_alloc;
mod ros_no_alloc;
mod solver_no_alloc;

//! The FESD-J tests (`src/fesdj`): transcription, solves, simulation, warm starts.
//!
//! One test binary for the layer (linked once): one module per former test file
//! `tests/<file>.rs`, now `tests/fesdj/<file>.rs`; libtest names its tests `<file>::<test>`.
//! Shared helpers are in `tests/support/` (`support::…`).
//!
//! Concurrency: libtest runs these tests in parallel, also across former files. They are
//! CPU-heavy but assert no wall-clock figure: the only time limits are budgets far above the
//! solve times (`fesdj_warm_start`: 30 s controller deadlines for a sliding block solved in
//! milliseconds; `fesdj_solve_worked`: `max_wall_time` 10 s for a one-ball problem), and
//! `solve_time_s` is compared only with itself (times add up). No process-global state; the
//! `OnceLock` of `fesdj_three_boxes` is that module's own.

#[path = "../support/mod.rs"]
mod support;

mod fesdj_expr;
mod fesdj_hopper;
mod fesdj_hopper_plant;
mod fesdj_impulse;
mod fesdj_initial_guess;
mod fesdj_nfe;
mod fesdj_options;
mod fesdj_periodic;
mod fesdj_solve_balls;
mod fesdj_solve_ocp;
mod fesdj_solve_order;
mod fesdj_solve_worked;
mod fesdj_tableau;
mod fesdj_three_boxes;
mod fesdj_two_discs;
mod fesdj_warm_start;
mod fesdj_worked_instance;

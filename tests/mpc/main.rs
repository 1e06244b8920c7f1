//! The MPC tests (`src/mpc`): controllers in closed loop against FESD-J plants.
//!
//! One test binary for the layer (linked once): one module per former test file
//! `tests/<file>.rs`, now `tests/mpc/<file>.rs`; libtest names its tests `<file>::<test>`.
//! Shared helpers are in `tests/support/` (`support::…`).
//!
//! Concurrency: the MPC solves run against wall-clock deadlines (1 s to 30 s budgets, and a
//! missed deadline changes which plan is used, which the tests count), so every test first
//! takes `support::serial::file(module_path!())`: tests of one former file run in parallel as
//! before, tests of different former files never together — no test sees more concurrent
//! load than in its own binary.

#[path = "../support/mod.rs"]
mod support;

mod mpc_closed_loop;
mod mpc_contact_schedule;
mod mpc_gait_library;
mod mpc_hopper;
mod mpc_periodic_reference;
mod mpc_projection;
mod mpc_pusher;
mod mpc_tracking;

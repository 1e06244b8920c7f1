//! The MuJoCo tests: the simulator bridge (`tools/mujoco_sim.py`) and the node driving MuJoCo-simulated robots.
//!
//! One test binary for the layer (linked once): one module per former test file
//! `tests/<file>.rs`, now `tests/scenario/<file>.rs`; libtest names its tests `<file>::<test>`.
//! Shared helpers are in `tests/support/` (`support::…`).
//!
//! Concurrency: the whole layer runs one test at a time. Every test takes
//! `support::mujoco::serial()` first (one lock for the binary): the bridge paces MuJoCo to the
//! wall clock and the node plans in real time, so two at once would make each other late.
//! Before, each former file serialised its own tests with the same lock and the files ran one
//! after another, so this is exactly the former load.

#[path = "../support/mod.rs"]
mod support;

mod mujoco_bridge;
mod scenario_hopper;
mod scenario_pusher;
mod scenario_quadruped;
mod scenario_quadruped_cmd;
mod scenario_quadruped_push;

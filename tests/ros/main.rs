//! The ROS 2 tests (`src/ros`, `src/app/node.rs`): messages, parameters, launch files, the node over DDS.
//!
//! One test binary for the layer (linked once): one module per former test file
//! `tests/<file>.rs`, now `tests/ros/<file>.rs`; libtest names its tests `<file>::<test>`.
//! Shared helpers are in `tests/support/` (`support::…`).
//!
//! Concurrency: the node tests run real-time loops (plan rates, stale-state timeouts, signal
//! handling within seconds, a 2-minute soak measuring rates and memory) against DDS peers and
//! child processes, each DDS test inside its own private network namespace (`support::netns`,
//! which re-executes this binary for that one test). Every test of this layer first takes
//! `support::serial::file(module_path!())`: tests of one former file run in parallel as
//! before, tests of different former files never together — no test sees more concurrent
//! load than in its own binary. (The re-executed children take it too, alone in their
//! process.)

#[path = "../support/mod.rs"]
mod support;

mod launch_files;
mod node_floating_base;
mod ros_cdr_golden;
mod ros_config;
mod ros_dds_loopback;
mod ros_fesdj_node;
mod ros_graph;
mod ros_interop_cyclonedds;
mod ros_node;
mod ros_plan_view;
mod ros_soak;

//! The ROS 2 communication layer: messages, `--ros-args`, parameters and the node runtime.
//!
//! Pure Rust over `ros2-client` 0.12 / RustDDS 0.15; no ROS 2 installation is needed. The
//! wire format follows the ROS 2 distribution chosen with this crate's features: `jazzy`
//! (default; also right for Iron) or `humble` (`--no-default-features --features humble`). They
//! differ in the GID size of ROS discovery info (16 vs 24 bytes).
//!
//! * [`msg`]: our message and service structs in `.msg` field order, byte-checked against
//!   `rosbags`.
//! * [`args`], [`params_file`], [`names`]: `--ros-args`, ROS parameter YAML, name resolution and
//!   remapping, `ROS_DOMAIN_ID`.
//! * [`params`]: the node's declared parameters.
//! * [`provider`]: the [`PlanProvider`] trait the controller implements, [`JointPlan`],
//!   [`RobotState`]; [`mpc_provider`]: the MPC controller as a provider ([`MpcProvider`],
//!   [`JointMap`]); [`sim_plant`]: the internal plant of `sim: true` ([`SimulatedRobot`]).
//! * [`validate`], [`diagnostics`]: input checks and the `/diagnostics` report.
//! * [`cmd_vel`]: the velocity command of a floating base (reject, clamp, timeout, blend);
//!   [`plan_view`]: the plan as RViz shows it (`~/planned_path`, `~/planned_markers`).
//! * [`node`]: [`NodeRuntime`], the node itself, configured by [`config`] ([`NodeConfig`]),
//!   with the DDS plumbing in [`wire`]; [`shutdown`]: SIGINT/SIGTERM.
//!
//! A binary puts these together as (this is what `fesdj_node` does, with the controller and
//! plant built by [`crate::app::node::setup`]):
//!
//! ```no_run
//! # use fesdj_mpc::ros::{args, shutdown, NodeRuntime};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let stop = shutdown::flag_on_signals()?; // first: a long build can be interrupted
//! let ros_args = args::RosArgs::from_env()?;
//! let mut s = fesdj_mpc::app::node::setup(&ros_args, args::domain_id_from_env()?)?;
//! for w in &s.warnings { eprintln!("[WARN] {w}"); }
//! let mut node = NodeRuntime::new(s.config)?;
//! if let Some(plant) = s.plant { node.set_plant(plant); }
//! node.run(&mut s.provider, &stop)?; // returns after SIGINT/SIGTERM; exit code 0
//! # Ok(()) }
//! ```

pub mod args;
pub mod cmd_vel;
pub mod config;
pub mod diagnostics;
pub mod mpc_provider;
pub mod msg;
pub mod names;
pub mod node;
pub(crate) mod param_services;
pub mod params;
pub mod params_file;
pub mod plan_view;
pub mod provider;
pub mod shutdown;
pub mod sim_plant;
pub mod state;
pub mod validate;
pub mod wire;

pub use mpc_provider::{JointMap, MpcProvider};
pub use node::{NodeConfig, NodeError, NodeRuntime, Topics};
pub use provider::{
    BaseState, JointPlan, PlanProvider, PlanStats, PlanStatus, ProviderError, RobotState,
};
pub use sim_plant::SimulatedRobot;

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
//! * [`provider`]: the [`PlanProvider`] trait the controller implements, [`Plan`],
//!   [`RobotState`].
//! * [`validate`], [`diagnostics`]: input checks and the `/diagnostics` report.
//! * [`node`]: [`NodeRuntime`], the node itself, configured by [`config`] ([`NodeConfig`]),
//!   with the DDS plumbing in [`wire`]; [`shutdown`]: SIGINT/SIGTERM.
//!
//! A binary puts these together as (this is what `fesdj_node` does, with the FESD-J MPC
//! provider of [`crate::node`]):
//!
//! ```no_run
//! # use fesdj_mpc::ros::{args, shutdown, NodeRuntime, PlanProvider};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ros_args = args::RosArgs::from_env()?;
//! let (config, mut provider, warnings) =
//!     fesdj_mpc::node::setup(&ros_args, args::domain_id_from_env()?)?;
//! for w in warnings { eprintln!("[WARN] {w}"); }
//! let stop = shutdown::flag_on_signals()?;
//! let mut node = NodeRuntime::new(config)?;
//! let provider: &mut dyn PlanProvider = &mut provider;
//! node.run(provider, &stop)?; // returns after SIGINT/SIGTERM; exit code 0
//! # Ok(()) }
//! ```

pub mod args;
pub mod config;
pub mod diagnostics;
pub mod msg;
pub mod names;
pub mod node;
pub mod params;
pub mod params_file;
pub mod provider;
pub mod shutdown;
pub mod validate;
pub mod wire;

pub use node::{NodeConfig, NodeError, NodeRuntime, Topics};
pub use provider::{
    BaseState, Plan, PlanProvider, PlanStats, PlanStatus, ProviderError, RobotState,
};

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

pub mod args;
pub mod diagnostics;
pub mod msg;
pub mod names;
pub mod params;
pub mod params_file;
pub mod provider;
pub mod validate;

pub use provider::{
    BaseState, Plan, PlanProvider, PlanStats, PlanStatus, ProviderError, RobotState,
};

//! The measured state the node hands to its provider ([`RobotState`], with a floating
//! base's [`BaseState`]), in the order of the `joint_names` parameter.

use super::msg::Time;

/// Pose and velocity of a floating base, from `nav_msgs/Odometry`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaseState {
    /// Stamp of the odometry message.
    pub stamp: Time,
    /// Position of the base in the odometry frame (m).
    pub position: [f64; 3],
    /// Orientation as a unit quaternion `[x, y, z, w]`.
    pub orientation: [f64; 4],
    /// Linear velocity in the base frame (m/s).
    pub linear_velocity: [f64; 3],
    /// Angular velocity in the base frame (rad/s).
    pub angular_velocity: [f64; 3],
}

impl Default for BaseState {
    fn default() -> Self {
        BaseState {
            stamp: Time::ZERO,
            position: [0.0; 3],
            orientation: [0.0, 0.0, 0.0, 1.0],
            linear_velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
        }
    }
}

/// The measured state, in the order of the `joint_names` parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotState {
    /// Stamp of the joint_states message this came from.
    pub stamp: Time,
    /// Joint positions (rad or m), one per configured joint.
    pub position: Vec<f64>,
    /// Joint velocities, one per configured joint.
    pub velocity: Vec<f64>,
    /// Measured efforts, one per configured joint, or empty when the message had none.
    pub effort: Vec<f64>,
    /// The floating base, when the `floating_base` parameter is on.
    pub base: Option<BaseState>,
}

impl RobotState {
    /// A zero state for `n_joints` joints (with a base when `floating_base`).
    pub fn new(n_joints: usize, floating_base: bool) -> RobotState {
        RobotState {
            stamp: Time::ZERO,
            position: vec![0.0; n_joints],
            velocity: vec![0.0; n_joints],
            effort: Vec::with_capacity(n_joints),
            base: floating_base.then(BaseState::default),
        }
    }
}

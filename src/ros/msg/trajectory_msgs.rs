//! `trajectory_msgs/msg/JointTrajectory` and `JointTrajectoryPoint`.

use serde::{Deserialize, Serialize};

use super::{ros_message, Duration, Header};

/// `trajectory_msgs/msg/JointTrajectoryPoint`: `float64[] positions`, `float64[] velocities`,
/// `float64[] accelerations`, `float64[] effort`, `builtin_interfaces/Duration time_from_start`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JointTrajectoryPoint {
    /// One position per joint of the trajectory (or empty).
    pub positions: Vec<f64>,
    /// One velocity per joint (or empty).
    pub velocities: Vec<f64>,
    /// One acceleration per joint (or empty).
    pub accelerations: Vec<f64>,
    /// One effort per joint (or empty).
    pub effort: Vec<f64>,
    /// Time of this point after `header.stamp` of the trajectory.
    pub time_from_start: Duration,
}
ros_message!(
    JointTrajectoryPoint,
    "trajectory_msgs",
    "JointTrajectoryPoint"
);

/// `trajectory_msgs/msg/JointTrajectory`: `Header header`, `string[] joint_names`,
/// `JointTrajectoryPoint[] points`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JointTrajectory {
    /// Start time of the trajectory (a zero stamp means "now" to receivers).
    pub header: Header,
    /// Joint names, the column order of every point.
    pub joint_names: Vec<String>,
    /// The points, in increasing `time_from_start`.
    pub points: Vec<JointTrajectoryPoint>,
}
ros_message!(JointTrajectory, "trajectory_msgs", "JointTrajectory");

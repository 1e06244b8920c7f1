//! `nav_msgs/msg/Odometry` and `nav_msgs/msg/Path`.

use serde::{Deserialize, Serialize};

use super::{ros_message, Header, PoseStamped, PoseWithCovariance, TwistWithCovariance};

/// `nav_msgs/msg/Odometry`: `Header header`, `string child_frame_id`,
/// `geometry_msgs/PoseWithCovariance pose`, `geometry_msgs/TwistWithCovariance twist`.
///
/// The pose is of `child_frame_id` in `header.frame_id`; the twist is expressed in
/// `child_frame_id` (body frame), per the message definition.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Odometry {
    /// Stamp and parent (world) frame.
    pub header: Header,
    /// The moving (base) frame.
    pub child_frame_id: String,
    /// Pose of the base in the parent frame.
    pub pose: PoseWithCovariance,
    /// Velocity of the base, in the base frame.
    pub twist: TwistWithCovariance,
}
ros_message!(Odometry, "nav_msgs", "Odometry");

/// `nav_msgs/msg/Path`: `std_msgs/Header header`, `geometry_msgs/PoseStamped[] poses`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Path {
    /// Stamp and frame of the path.
    pub header: Header,
    /// The poses, in order.
    pub poses: Vec<PoseStamped>,
}
ros_message!(Path, "nav_msgs", "Path");

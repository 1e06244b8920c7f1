//! `sensor_msgs/msg/JointState`.

use serde::{Deserialize, Serialize};

use super::{ros_message, Header};

/// `sensor_msgs/msg/JointState`: `Header header`, `string[] name`, `float64[] position`,
/// `float64[] velocity`, `float64[] effort`.
///
/// By convention `position`, `velocity` and `effort` are either empty or as long as `name`;
/// joints may come in any order (see `ros::validate` for how the node checks them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JointState {
    /// Stamp and frame.
    pub header: Header,
    /// Joint names.
    pub name: Vec<String>,
    /// Positions (rad or m).
    pub position: Vec<f64>,
    /// Velocities (rad/s or m/s).
    pub velocity: Vec<f64>,
    /// Efforts (N·m or N).
    pub effort: Vec<f64>,
}
ros_message!(JointState, "sensor_msgs", "JointState");

/// `sensor_msgs/msg/CompressedImage`: `Header header`, `string format`, `uint8[] data` (inside
/// `visualization_msgs/Marker`'s texture; the node leaves it empty).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompressedImage {
    /// Stamp and frame.
    pub header: Header,
    /// Image format (`jpeg`, `png`, …).
    pub format: String,
    /// The compressed image.
    pub data: Vec<u8>,
}
ros_message!(CompressedImage, "sensor_msgs", "CompressedImage");

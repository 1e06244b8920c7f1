//! `std_msgs`: `Header`, `Float64MultiArray` and its layout types.

use serde::{Deserialize, Serialize};

use super::{ros_message, Time};

/// `std_msgs/msg/Header`: `builtin_interfaces/Time stamp`, `string frame_id`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Acquisition time of the data.
    pub stamp: Time,
    /// Coordinate frame the data is expressed in.
    pub frame_id: String,
}
ros_message!(Header, "std_msgs", "Header");

/// `std_msgs/msg/MultiArrayDimension`: `string label`, `uint32 size`, `uint32 stride`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MultiArrayDimension {
    /// Name of the dimension.
    pub label: String,
    /// Number of elements along it.
    pub size: u32,
    /// Stride of the dimension (elements of this and all inner dimensions).
    pub stride: u32,
}
ros_message!(MultiArrayDimension, "std_msgs", "MultiArrayDimension");

/// `std_msgs/msg/MultiArrayLayout`: `MultiArrayDimension[] dim`, `uint32 data_offset`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MultiArrayLayout {
    /// Dimensions, outermost first.
    pub dim: Vec<MultiArrayDimension>,
    /// Padding elements at the front of `data`.
    pub data_offset: u32,
}
ros_message!(MultiArrayLayout, "std_msgs", "MultiArrayLayout");

/// `std_msgs/msg/Float64MultiArray`: `MultiArrayLayout layout`, `float64[] data`.
///
/// ros2_control's effort (and position/velocity) forward controllers take this on their
/// `~/commands` topic: `data` holds one value per joint, in the controller's joint order, and the
/// layout is left empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Float64MultiArray {
    /// Layout of `data`.
    pub layout: MultiArrayLayout,
    /// The values.
    pub data: Vec<f64>,
}
ros_message!(Float64MultiArray, "std_msgs", "Float64MultiArray");

/// `std_msgs/msg/ColorRGBA`: `float32 r, g, b, a` (each in [0, 1]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ColorRGBA {
    /// Red.
    pub r: f32,
    /// Green.
    pub g: f32,
    /// Blue.
    pub b: f32,
    /// Opacity.
    pub a: f32,
}
ros_message!(ColorRGBA, "std_msgs", "ColorRGBA");

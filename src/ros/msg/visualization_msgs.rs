//! `visualization_msgs`: `Marker`, `MarkerArray` and the types inside a marker.
//!
//! Field order as in the ROS 2 Humble and Jazzy definitions (identical for these types; Jazzy
//! only adds the constant `ARROW_STRIP`).

use serde::{Deserialize, Serialize};

use super::{ros_message, ColorRGBA, CompressedImage, Duration, Header, Point, Pose, Vector3};

/// `visualization_msgs/msg/UVCoordinate`: `float32 u, v`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UVCoordinate {
    /// u.
    pub u: f32,
    /// v.
    pub v: f32,
}
ros_message!(UVCoordinate, "visualization_msgs", "UVCoordinate");

/// `visualization_msgs/msg/MeshFile`: `string filename`, `uint8[] data`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MeshFile {
    /// File name (its extension gives the format).
    pub filename: String,
    /// File contents.
    pub data: Vec<u8>,
}
ros_message!(MeshFile, "visualization_msgs", "MeshFile");

/// `visualization_msgs/msg/Marker`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    /// Stamp and frame of the pose and points.
    pub header: Header,
    /// Namespace; with `id` it names the marker.
    pub ns: String,
    /// Id within the namespace.
    pub id: i32,
    /// Shape ([`Marker::ARROW`], [`Marker::SPHERE`], …).
    #[serde(rename = "type")]
    pub type_: i32,
    /// [`Marker::ADD`], [`Marker::DELETE`] or [`Marker::DELETEALL`].
    pub action: i32,
    /// Pose of the shape.
    pub pose: Pose,
    /// Size (m); for an arrow given by two points: shaft diameter, head diameter, head length.
    pub scale: Vector3,
    /// Colour.
    pub color: ColorRGBA,
    /// How long the marker stays (0: until replaced or deleted).
    pub lifetime: Duration,
    /// Whether the marker follows its frame.
    pub frame_locked: bool,
    /// Points (arrows: start and end; lists and strips: the vertices).
    pub points: Vec<Point>,
    /// Per-point colours.
    pub colors: Vec<ColorRGBA>,
    /// Texture resource.
    pub texture_resource: String,
    /// Texture image.
    pub texture: CompressedImage,
    /// Texture coordinates.
    pub uv_coordinates: Vec<UVCoordinate>,
    /// Text of a `TEXT_VIEW_FACING` marker.
    pub text: String,
    /// Mesh resource of a `MESH_RESOURCE` marker.
    pub mesh_resource: String,
    /// Mesh file.
    pub mesh_file: MeshFile,
    /// Use the mesh's embedded materials.
    pub mesh_use_embedded_materials: bool,
}
ros_message!(Marker, "visualization_msgs", "Marker");

impl Marker {
    /// Arrow.
    pub const ARROW: i32 = 0;
    /// Cube.
    pub const CUBE: i32 = 1;
    /// Sphere.
    pub const SPHERE: i32 = 2;
    /// Add or modify the marker.
    pub const ADD: i32 = 0;
    /// Delete the marker of this `ns` and `id`.
    pub const DELETE: i32 = 2;
    /// Delete every marker (of the display).
    pub const DELETEALL: i32 = 3;
}

/// `visualization_msgs/msg/MarkerArray`: `Marker[] markers`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MarkerArray {
    /// The markers.
    pub markers: Vec<Marker>,
}
ros_message!(MarkerArray, "visualization_msgs", "MarkerArray");

//! `geometry_msgs` types used by `nav_msgs/Odometry`.

use std::fmt;

use serde::de::{Error as DeError, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ros_message;

/// `geometry_msgs/msg/Point`: `float64 x, y, z`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// x coordinate.
    pub x: f64,
    /// y coordinate.
    pub y: f64,
    /// z coordinate.
    pub z: f64,
}
ros_message!(Point, "geometry_msgs", "Point");

/// `geometry_msgs/msg/Vector3`: `float64 x, y, z`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Vector3 {
    /// x component.
    pub x: f64,
    /// y component.
    pub y: f64,
    /// z component.
    pub z: f64,
}
ros_message!(Vector3, "geometry_msgs", "Vector3");

/// `geometry_msgs/msg/Quaternion`: `float64 x, y, z, w` (the .msg default is the identity).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quaternion {
    /// i component.
    pub x: f64,
    /// j component.
    pub y: f64,
    /// k component.
    pub z: f64,
    /// Real part.
    pub w: f64,
}
ros_message!(Quaternion, "geometry_msgs", "Quaternion");

impl Default for Quaternion {
    fn default() -> Self {
        Quaternion {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        }
    }
}

/// `geometry_msgs/msg/Pose`: `Point position`, `Quaternion orientation`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// Position.
    pub position: Point,
    /// Orientation.
    pub orientation: Quaternion,
}
ros_message!(Pose, "geometry_msgs", "Pose");

/// `geometry_msgs/msg/Twist`: `Vector3 linear`, `Vector3 angular`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Twist {
    /// Linear velocity.
    pub linear: Vector3,
    /// Angular velocity.
    pub angular: Vector3,
}
ros_message!(Twist, "geometry_msgs", "Twist");

/// A row-major 6×6 covariance, the `float64[36]` of the `*WithCovariance` messages.
///
/// A fixed-size CDR array: 36 doubles and no length prefix. (serde derives arrays only up to
/// 32 elements, hence the hand-written impls, which write a 36-tuple.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Covariance(pub [f64; 36]);

impl Default for Covariance {
    fn default() -> Self {
        Covariance([0.0; 36])
    }
}

impl Serialize for Covariance {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(36)?;
        for v in &self.0 {
            tuple.serialize_element(v)?;
        }
        tuple.end()
    }
}

impl<'de> Deserialize<'de> for Covariance {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CovarianceVisitor;
        impl<'de> Visitor<'de> for CovarianceVisitor {
            type Value = Covariance;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("36 float64 values")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Covariance, A::Error> {
                let mut out = [0.0; 36];
                for (i, slot) in out.iter_mut().enumerate() {
                    *slot = seq
                        .next_element()?
                        .ok_or_else(|| A::Error::invalid_length(i, &self))?;
                }
                Ok(Covariance(out))
            }
        }
        deserializer.deserialize_tuple(36, CovarianceVisitor)
    }
}

/// `geometry_msgs/msg/PoseWithCovariance`: `Pose pose`, `float64[36] covariance`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PoseWithCovariance {
    /// The pose.
    pub pose: Pose,
    /// Covariance of (x, y, z, rotation about X, Y, Z), row-major.
    pub covariance: Covariance,
}
ros_message!(PoseWithCovariance, "geometry_msgs", "PoseWithCovariance");

/// `geometry_msgs/msg/TwistWithCovariance`: `Twist twist`, `float64[36] covariance`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TwistWithCovariance {
    /// The twist.
    pub twist: Twist,
    /// Covariance of (vx, vy, vz, ωx, ωy, ωz), row-major.
    pub covariance: Covariance,
}
ros_message!(TwistWithCovariance, "geometry_msgs", "TwistWithCovariance");

/// `geometry_msgs/msg/PoseStamped`: `std_msgs/Header header`, `Pose pose`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PoseStamped {
    /// Stamp and frame of the pose.
    pub header: super::Header,
    /// The pose.
    pub pose: Pose,
}
ros_message!(PoseStamped, "geometry_msgs", "PoseStamped");

//! ROS 2 message and service types of our own, as plain serde structs.
//!
//! Every struct lists its fields in the order of the upstream `.msg`/`.srv` definition, because
//! CDR (the DDS wire encoding) is positional: field names never go on the wire, order and type
//! do. Fixed-size arrays (`float64[36]`) have no length prefix, sequences (`T[]`) a `u32` one,
//! strings a `u32` length that counts the terminating NUL. Each type is byte-checked against CDR
//! produced by PyPI `rosbags` (`tools/ros_golden.py`, `tests/data/cdr/`,
//! `tests/ros/ros_cdr_golden.rs`).
//!
//! [`RosMessage`] attaches the ROS type name (`sensor_msgs/msg/JointState`) that becomes the DDS
//! type name (`sensor_msgs::msg::dds_::JointState_`); [`RosService`] does the same for services.

mod builtin_interfaces;
mod diagnostic_msgs;
mod geometry_msgs;
mod nav_msgs;
mod rosgraph_msgs;
mod sensor_msgs;
mod std_msgs;
mod std_srvs;
mod trajectory_msgs;
mod visualization_msgs;

pub use builtin_interfaces::{Duration, Time};
pub use diagnostic_msgs::{DiagnosticArray, DiagnosticStatus, KeyValue};
pub use geometry_msgs::{
    Covariance, Point, Pose, PoseStamped, PoseWithCovariance, Quaternion, Twist,
    TwistWithCovariance, Vector3,
};
pub use nav_msgs::{Odometry, Path};
pub use rosgraph_msgs::Clock;
pub use sensor_msgs::{CompressedImage, JointState};
pub use std_msgs::{ColorRGBA, Float64MultiArray, Header, MultiArrayDimension, MultiArrayLayout};
pub use std_srvs::{
    SetBool, SetBoolRequest, SetBoolResponse, Trigger, TriggerRequest, TriggerResponse,
};
pub use trajectory_msgs::{JointTrajectory, JointTrajectoryPoint};
pub use visualization_msgs::{Marker, MarkerArray, MeshFile, UVCoordinate};

use ros2_client::{Message, MessageTypeName, ServiceTypeName};

/// A message type with its ROS 2 name (`PACKAGE/msg/NAME`).
pub trait RosMessage: Message + Clone + 'static {
    /// ROS package, e.g. `sensor_msgs`.
    const PACKAGE: &'static str;
    /// Type name inside the package, e.g. `JointState`.
    const NAME: &'static str;

    /// The ros2-client type name (DDS type `PACKAGE::msg::dds_::NAME_`).
    fn type_name() -> MessageTypeName {
        MessageTypeName::new(Self::PACKAGE, Self::NAME)
    }

    /// `PACKAGE/msg/NAME`, the name `ros2 topic info` prints and `rosbags` uses.
    fn full_name() -> String {
        format!("{}/msg/{}", Self::PACKAGE, Self::NAME)
    }
}

/// A service type with its ROS 2 name (`PACKAGE/srv/NAME`) and its request/response messages.
pub trait RosService: 'static {
    /// Request message (DDS type `PACKAGE::srv::dds_::NAME_Request_`).
    type Request: Message + Clone + 'static;
    /// Response message (DDS type `PACKAGE::srv::dds_::NAME_Response_`).
    type Response: Message + Clone + 'static;
    /// ROS package, e.g. `std_srvs`.
    const PACKAGE: &'static str;
    /// Type name inside the package, e.g. `Trigger`.
    const NAME: &'static str;

    /// The ros2-client service type name.
    fn type_name() -> ServiceTypeName {
        ServiceTypeName::new(Self::PACKAGE, Self::NAME)
    }
}

/// Implements [`ros2_client::Message`] and [`RosMessage`] for a struct.
macro_rules! ros_message {
    ($ty:ty, $package:literal, $name:literal) => {
        impl ros2_client::Message for $ty {}
        impl $crate::ros::msg::RosMessage for $ty {
            const PACKAGE: &'static str = $package;
            const NAME: &'static str = $name;
        }
    };
}
pub(crate) use ros_message;

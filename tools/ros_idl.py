"""ROS 2 message and service types as Cyclone DDS IDL structs (PyPI `cyclonedds`), for the
Python peers of the tests (`tools/dds_peer.py`, `tools/mujoco_sim.py`).

Fields in the order of the .msg/.srv definitions; DDS type names `pkg::msg::dds_::Type_` as the
ROS 2 rmw layers use them; `qos()` is the reliable keep-last-10 volatile profile with XCDR1
(classic CDR) data representation that the node uses.
"""

import time
from dataclasses import dataclass, field

from cyclonedds.core import Policy, Qos
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import array, float32, float64, int32, int64, sequence, uint8, uint32, uint64
from cyclonedds.util import duration


@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32 = 0
    nanosec: uint32 = 0


@dataclass
class Duration(IdlStruct, typename="builtin_interfaces::msg::dds_::Duration_"):
    sec: int32 = 0
    nanosec: uint32 = 0


@dataclass
class Clock(IdlStruct, typename="rosgraph_msgs::msg::dds_::Clock_"):
    clock: Time = field(default_factory=Time)


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time = field(default_factory=Time)
    frame_id: str = ""


@dataclass
class JointState(IdlStruct, typename="sensor_msgs::msg::dds_::JointState_"):
    header: Header = field(default_factory=Header)
    name: sequence[str] = field(default_factory=list)
    position: sequence[float64] = field(default_factory=list)
    velocity: sequence[float64] = field(default_factory=list)
    effort: sequence[float64] = field(default_factory=list)


@dataclass
class JointTrajectoryPoint(IdlStruct, typename="trajectory_msgs::msg::dds_::JointTrajectoryPoint_"):
    positions: sequence[float64] = field(default_factory=list)
    velocities: sequence[float64] = field(default_factory=list)
    accelerations: sequence[float64] = field(default_factory=list)
    effort: sequence[float64] = field(default_factory=list)
    time_from_start: Duration = field(default_factory=Duration)


@dataclass
class JointTrajectory(IdlStruct, typename="trajectory_msgs::msg::dds_::JointTrajectory_"):
    header: Header = field(default_factory=Header)
    joint_names: sequence[str] = field(default_factory=list)
    points: sequence[JointTrajectoryPoint] = field(default_factory=list)


@dataclass
class MultiArrayDimension(IdlStruct, typename="std_msgs::msg::dds_::MultiArrayDimension_"):
    label: str = ""
    size: uint32 = 0
    stride: uint32 = 0


@dataclass
class MultiArrayLayout(IdlStruct, typename="std_msgs::msg::dds_::MultiArrayLayout_"):
    dim: sequence[MultiArrayDimension] = field(default_factory=list)
    data_offset: uint32 = 0


@dataclass
class Float64MultiArray(IdlStruct, typename="std_msgs::msg::dds_::Float64MultiArray_"):
    layout: MultiArrayLayout = field(default_factory=MultiArrayLayout)
    data: sequence[float64] = field(default_factory=list)


# geometry_msgs and nav_msgs/Odometry.
@dataclass
class Point(IdlStruct, typename="geometry_msgs::msg::dds_::Point_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0


@dataclass
class Quaternion(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0
    w: float64 = 1.0


@dataclass
class Vector3(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0


@dataclass
class Pose(IdlStruct, typename="geometry_msgs::msg::dds_::Pose_"):
    position: Point = field(default_factory=Point)
    orientation: Quaternion = field(default_factory=Quaternion)


@dataclass
class PoseWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::PoseWithCovariance_"):
    pose: Pose = field(default_factory=Pose)
    covariance: array[float64, 36] = field(default_factory=lambda: [0.0] * 36)


@dataclass
class Twist(IdlStruct, typename="geometry_msgs::msg::dds_::Twist_"):
    linear: Vector3 = field(default_factory=Vector3)
    angular: Vector3 = field(default_factory=Vector3)


@dataclass
class TwistWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::TwistWithCovariance_"):
    twist: Twist = field(default_factory=Twist)
    covariance: array[float64, 36] = field(default_factory=lambda: [0.0] * 36)


@dataclass
class Odometry(IdlStruct, typename="nav_msgs::msg::dds_::Odometry_"):
    header: Header = field(default_factory=Header)
    child_frame_id: str = ""
    pose: PoseWithCovariance = field(default_factory=PoseWithCovariance)
    twist: TwistWithCovariance = field(default_factory=TwistWithCovariance)


@dataclass
class PoseStamped(IdlStruct, typename="geometry_msgs::msg::dds_::PoseStamped_"):
    header: Header = field(default_factory=Header)
    pose: Pose = field(default_factory=Pose)


@dataclass
class Path(IdlStruct, typename="nav_msgs::msg::dds_::Path_"):
    header: Header = field(default_factory=Header)
    poses: sequence[PoseStamped] = field(default_factory=list)


@dataclass
class ColorRGBA(IdlStruct, typename="std_msgs::msg::dds_::ColorRGBA_"):
    r: float32 = 0.0
    g: float32 = 0.0
    b: float32 = 0.0
    a: float32 = 0.0


@dataclass
class CompressedImage(IdlStruct, typename="sensor_msgs::msg::dds_::CompressedImage_"):
    header: Header = field(default_factory=Header)
    format: str = ""
    data: sequence[uint8] = field(default_factory=list)


@dataclass
class UVCoordinate(IdlStruct, typename="visualization_msgs::msg::dds_::UVCoordinate_"):
    u: float32 = 0.0
    v: float32 = 0.0


@dataclass
class MeshFile(IdlStruct, typename="visualization_msgs::msg::dds_::MeshFile_"):
    filename: str = ""
    data: sequence[uint8] = field(default_factory=list)


@dataclass
class Marker(IdlStruct, typename="visualization_msgs::msg::dds_::Marker_"):
    header: Header = field(default_factory=Header)
    ns: str = ""
    id: int32 = 0
    type: int32 = 0
    action: int32 = 0
    pose: Pose = field(default_factory=Pose)
    scale: Vector3 = field(default_factory=Vector3)
    color: ColorRGBA = field(default_factory=ColorRGBA)
    lifetime: Duration = field(default_factory=Duration)
    frame_locked: bool = False
    points: sequence[Point] = field(default_factory=list)
    colors: sequence[ColorRGBA] = field(default_factory=list)
    texture_resource: str = ""
    texture: CompressedImage = field(default_factory=CompressedImage)
    uv_coordinates: sequence[UVCoordinate] = field(default_factory=list)
    text: str = ""
    mesh_resource: str = ""
    mesh_file: MeshFile = field(default_factory=MeshFile)
    mesh_use_embedded_materials: bool = False


@dataclass
class MarkerArray(IdlStruct, typename="visualization_msgs::msg::dds_::MarkerArray_"):
    markers: sequence[Marker] = field(default_factory=list)


@dataclass
class KeyValue(IdlStruct, typename="diagnostic_msgs::msg::dds_::KeyValue_"):
    key: str = ""
    value: str = ""


@dataclass
class DiagnosticStatus(IdlStruct, typename="diagnostic_msgs::msg::dds_::DiagnosticStatus_"):
    level: uint8 = 0
    name: str = ""
    message: str = ""
    hardware_id: str = ""
    values: sequence[KeyValue] = field(default_factory=list)


@dataclass
class DiagnosticArray(IdlStruct, typename="diagnostic_msgs::msg::dds_::DiagnosticArray_"):
    header: Header = field(default_factory=Header)
    status: sequence[DiagnosticStatus] = field(default_factory=list)


# std_srvs, plain (fastrtps convention) and with the rmw_cyclonedds request header.
@dataclass
class TriggerRequest(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Request_"):
    structure_needs_at_least_one_member: uint8 = 0


@dataclass
class TriggerResponse(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Response_"):
    success: bool = False
    message: str = ""


@dataclass
class SetBoolRequest(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Request_"):
    data: bool = False


@dataclass
class SetBoolResponse(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Response_"):
    success: bool = False
    message: str = ""


@dataclass
class CycTriggerRequest(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Request_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    structure_needs_at_least_one_member: uint8 = 0


@dataclass
class CycTriggerResponse(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Response_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    success: bool = False
    message: str = ""


@dataclass
class CycSetBoolRequest(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Request_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    data: bool = False


@dataclass
class CycSetBoolResponse(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Response_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    success: bool = False
    message: str = ""


# rcl_interfaces parameter services (fastrtps convention).
@dataclass
class ParameterValue(IdlStruct, typename="rcl_interfaces::msg::dds_::ParameterValue_"):
    type: uint8 = 0
    bool_value: bool = False
    integer_value: int64 = 0
    double_value: float64 = 0.0
    string_value: str = ""
    byte_array_value: sequence[uint8] = field(default_factory=list)
    bool_array_value: sequence[bool] = field(default_factory=list)
    integer_array_value: sequence[int64] = field(default_factory=list)
    double_array_value: sequence[float64] = field(default_factory=list)
    string_array_value: sequence[str] = field(default_factory=list)


@dataclass
class ListParametersRequest(IdlStruct, typename="rcl_interfaces::srv::dds_::ListParameters_Request_"):
    prefixes: sequence[str] = field(default_factory=list)
    depth: uint64 = 0


@dataclass
class ListParametersResult(IdlStruct, typename="rcl_interfaces::msg::dds_::ListParametersResult_"):
    names: sequence[str] = field(default_factory=list)
    prefixes: sequence[str] = field(default_factory=list)


@dataclass
class ListParametersResponse(IdlStruct, typename="rcl_interfaces::srv::dds_::ListParameters_Response_"):
    result: ListParametersResult = field(default_factory=ListParametersResult)


@dataclass
class GetParametersRequest(IdlStruct, typename="rcl_interfaces::srv::dds_::GetParameters_Request_"):
    names: sequence[str] = field(default_factory=list)


@dataclass
class GetParametersResponse(IdlStruct, typename="rcl_interfaces::srv::dds_::GetParameters_Response_"):
    values: sequence[ParameterValue] = field(default_factory=list)


def qos():
    return Qos(
        Policy.Reliability.Reliable(max_blocking_time=duration(milliseconds=100)),
        Policy.History.KeepLast(10),
        Policy.Durability.Volatile,
        Policy.DataRepresentation(use_cdrv0_representation=True),
    )


def stamp_of(seconds):
    """`builtin_interfaces/Time` of `seconds` (≥ 0; e.g. a simulated time)."""
    ns = int(round(seconds * 1e9))
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def now_stamp(offset_s=0.0):
    """`builtin_interfaces/Time` of the wall clock plus `offset_s`."""
    ns = time.time_ns() + int(offset_s * 1e9)
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def duration_s(d):
    return d.sec + d.nanosec * 1e-9

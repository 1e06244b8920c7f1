#!/usr/bin/env python3
"""Golden CDR bytes for the ROS 2 message types of src/ros/msg, made with PyPI `rosbags`.

Usage: python3 tools/ros_golden.py [OUT_DIR]   (default: tests/data/cdr)

Writes one `<case>.cdr` per representative instance: the 4-byte encapsulation header
(CDR little endian, 00 01 00 00) followed by the CDR body, exactly what a ROS 2 publisher puts in
the RTPS payload. `tests/ros/ros_cdr_golden.rs` builds the same instances in Rust (keep the two
lists in step), serialises them with RustDDS's CDR serializer and compares byte for byte, then
deserialises these files back and compares the values.

rosbags' bundled type store has no std_srvs, so the Trigger and SetBool request/response types
are registered here from their .srv text; the empty Trigger request gets rosidl's placeholder
member `uint8 structure_needs_at_least_one_member`, as rosidl does for every empty struct.
"""

import sys
from pathlib import Path

import numpy as np
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

STD_SRVS = {
    "std_srvs/msg/Trigger_Request": "uint8 structure_needs_at_least_one_member",
    "std_srvs/msg/Trigger_Response": "bool success\nstring message",
    "std_srvs/msg/SetBool_Request": "bool data",
    "std_srvs/msg/SetBool_Response": "bool success\nstring message",
}


def typestore():
    ts = get_typestore(Stores.ROS2_JAZZY)
    types = {}
    for name, text in STD_SRVS.items():
        types.update(get_types_from_msg(text, name))
    ts.register(types)
    return ts


def f64(values):
    return np.array(values, dtype=np.float64)


def cases(ts):
    T = ts.types
    Time = T["builtin_interfaces/msg/Time"]
    Duration = T["builtin_interfaces/msg/Duration"]
    Header = T["std_msgs/msg/Header"]

    def header(sec, nanosec, frame):
        return Header(stamp=Time(sec=sec, nanosec=nanosec), frame_id=frame)

    JointState = T["sensor_msgs/msg/JointState"]
    Point = T["geometry_msgs/msg/Point"]
    Quaternion = T["geometry_msgs/msg/Quaternion"]
    Vector3 = T["geometry_msgs/msg/Vector3"]
    Pose = T["geometry_msgs/msg/Pose"]
    Twist = T["geometry_msgs/msg/Twist"]
    PoseWC = T["geometry_msgs/msg/PoseWithCovariance"]
    TwistWC = T["geometry_msgs/msg/TwistWithCovariance"]
    Odometry = T["nav_msgs/msg/Odometry"]
    JT = T["trajectory_msgs/msg/JointTrajectory"]
    JTP = T["trajectory_msgs/msg/JointTrajectoryPoint"]
    Dim = T["std_msgs/msg/MultiArrayDimension"]
    Layout = T["std_msgs/msg/MultiArrayLayout"]
    F64MA = T["std_msgs/msg/Float64MultiArray"]
    KV = T["diagnostic_msgs/msg/KeyValue"]
    Status = T["diagnostic_msgs/msg/DiagnosticStatus"]
    DArray = T["diagnostic_msgs/msg/DiagnosticArray"]

    pose_cov = f64([0.5 * i for i in range(36)])
    twist_cov = f64([0.01 if i % 7 == 0 else 0.0 for i in range(36)])

    return [
        ("time", "builtin_interfaces/msg/Time", Time(sec=1700000000, nanosec=123456789)),
        ("duration", "builtin_interfaces/msg/Duration", Duration(sec=-2, nanosec=500000000)),
        ("clock", "rosgraph_msgs/msg/Clock", T["rosgraph_msgs/msg/Clock"](clock=Time(sec=12, nanosec=340000000))),
        ("header", "std_msgs/msg/Header", header(12, 34, "base_link")),
        (
            "joint_state",
            "sensor_msgs/msg/JointState",
            JointState(
                header=header(1700000001, 5, ""),
                name=["hip", "knee", "ankle_pitch"],
                position=f64([0.1, -0.2, 3.5e-7]),
                velocity=f64([1.0, -2.0, 0.0]),
                effort=f64([]),
            ),
        ),
        (
            "odometry",
            "nav_msgs/msg/Odometry",
            Odometry(
                header=header(100, 200, "odom"),
                child_frame_id="base",
                pose=PoseWC(
                    pose=Pose(
                        position=Point(x=1.0, y=2.0, z=3.0),
                        orientation=Quaternion(
                            x=0.0, y=0.0, z=0.38268343236508984, w=0.9238795325112867
                        ),
                    ),
                    covariance=pose_cov,
                ),
                twist=TwistWC(
                    twist=Twist(
                        linear=Vector3(x=0.1, y=0.2, z=0.3),
                        angular=Vector3(x=-0.1, y=-0.2, z=-0.3),
                    ),
                    covariance=twist_cov,
                ),
            ),
        ),
        (
            "joint_trajectory",
            "trajectory_msgs/msg/JointTrajectory",
            JT(
                header=header(5, 0, "world"),
                joint_names=["hip", "knee"],
                points=[
                    JTP(
                        positions=f64([0.1 * k, -0.1 * k]),
                        velocities=f64([float(k), -float(k)]),
                        accelerations=f64([]),
                        effort=f64([10.0 + k, -10.0 - k]),
                        time_from_start=Duration(sec=k // 2, nanosec=250000000 * k),
                    )
                    for k in range(3)
                ],
            ),
        ),
        (
            "float64_multi_array",
            "std_msgs/msg/Float64MultiArray",
            F64MA(
                layout=Layout(dim=[Dim(label="joints", size=2, stride=2)], data_offset=0),
                data=f64([1.5, -2.25]),
            ),
        ),
        (
            "float64_multi_array_empty",
            "std_msgs/msg/Float64MultiArray",
            F64MA(layout=Layout(dim=[], data_offset=0), data=f64([])),
        ),
        (
            "diagnostic_array",
            "diagnostic_msgs/msg/DiagnosticArray",
            DArray(
                header=header(7, 8, ""),
                status=[
                    Status(
                        level=0,
                        name="fesdj_mpc: solver",
                        message="solved",
                        hardware_id="",
                        values=[
                            KV(key="solve_time_ms", value="3.25"),
                            KV(key="homotopy_steps", value="4"),
                        ],
                    ),
                    Status(
                        level=2,
                        name="fesdj_mpc: input",
                        message="rejected joint_states: NaN",
                        hardware_id="hw1",
                        values=[],
                    ),
                ],
            ),
        ),
        (
            "path",
            "nav_msgs/msg/Path",
            T["nav_msgs/msg/Path"](
                header=header(9, 10, "odom"),
                poses=[
                    T["geometry_msgs/msg/PoseStamped"](
                        header=header(9, 10 + 50000000 * k, "odom"),
                        pose=Pose(
                            position=Point(x=0.1 * k, y=-0.05 * k, z=0.33),
                            orientation=Quaternion(x=0.0, y=0.0, z=0.0998334166468, w=0.995004165278),
                        ),
                    )
                    for k in range(2)
                ],
            ),
        ),
        (
            "marker_array",
            "visualization_msgs/msg/MarkerArray",
            T["visualization_msgs/msg/MarkerArray"](
                markers=[
                    marker(T, header(3, 4, "odom"), "feet", 7, 2, 0, [], b"", b"", []),
                    marker(
                        T,
                        header(3, 4, "odom"),
                        "forces",
                        -1,
                        0,
                        2,
                        [Point(x=0.1, y=0.2, z=0.0), Point(x=0.1, y=0.2, z=0.25)],
                        b"\x01\x02\x03",
                        b"\xff",
                        [T["visualization_msgs/msg/UVCoordinate"](u=0.25, v=-0.5)],
                    ),
                ]
            ),
        ),
        (
            "trigger_request",
            "std_srvs/msg/Trigger_Request",
            T["std_srvs/msg/Trigger_Request"](structure_needs_at_least_one_member=0),
        ),
        (
            "trigger_response",
            "std_srvs/msg/Trigger_Response",
            T["std_srvs/msg/Trigger_Response"](success=True, message="plan published"),
        ),
        (
            "set_bool_request",
            "std_srvs/msg/SetBool_Request",
            T["std_srvs/msg/SetBool_Request"](data=True),
        ),
        (
            "set_bool_response",
            "std_srvs/msg/SetBool_Response",
            T["std_srvs/msg/SetBool_Response"](success=False, message="already enabled"),
        ),
    ]


def marker(T, hdr, ns, id_, type_, action, points, texture, mesh, uv):
    """A Marker with every field set (the texture and mesh file only when given)."""
    Vector3 = T["geometry_msgs/msg/Vector3"]
    Color = T["std_msgs/msg/ColorRGBA"]
    return T["visualization_msgs/msg/Marker"](
        header=hdr,
        ns=ns,
        id=id_,
        type=type_,
        action=action,
        pose=T["geometry_msgs/msg/Pose"](
            position=T["geometry_msgs/msg/Point"](x=1.5, y=-0.5, z=0.02),
            orientation=T["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0),
        ),
        scale=Vector3(x=0.03, y=0.03, z=0.03),
        color=Color(r=1.0, g=0.5, b=0.25, a=0.75),
        lifetime=T["builtin_interfaces/msg/Duration"](sec=1, nanosec=5),
        frame_locked=True,
        points=points,
        colors=[Color(r=0.0, g=1.0, b=0.0, a=1.0) for _ in points],
        texture_resource="tex" if texture else "",
        texture=T["sensor_msgs/msg/CompressedImage"](
            header=hdr, format="png" if texture else "", data=np.frombuffer(texture, dtype=np.uint8)
        ),
        uv_coordinates=uv,
        text="F" if points else "",
        mesh_resource="",
        mesh_file=T["visualization_msgs/msg/MeshFile"](
            filename="m.stl" if mesh else "", data=np.frombuffer(mesh, dtype=np.uint8)
        ),
        mesh_use_embedded_materials=bool(mesh),
    )


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "tests/data/cdr"
    out.mkdir(parents=True, exist_ok=True)
    ts = typestore()
    for name, typename, msg in cases(ts):
        data = bytes(ts.serialize_cdr(msg, typename))
        back = ts.deserialize_cdr(data, typename)
        assert bytes(ts.serialize_cdr(back, typename)) == data, name
        (out / f"{name}.cdr").write_bytes(data)
        print(f"{name}.cdr  {typename}  {len(data)} bytes")


if __name__ == "__main__":
    main()

//! Byte-for-byte check of our ROS 2 message structs against CDR made by PyPI `rosbags`.
//!
//! `tools/ros_golden.py` wrote `tests/data/cdr/<case>.cdr` for the same instances as below (keep
//! the two lists in step). Each case is serialised with the CDR serializer RustDDS uses for
//! ros2-client publishers (`CDRSerializerAdapter`, little endian, behind the 4-byte
//! encapsulation header) and compared with the file; the file is then deserialised back and
//! compared with the instance. No network is involved.

use std::path::PathBuf;

use fesdj_mpc::ros::msg::*;
use ros2_client::dds::rustdds::no_key::SerializerAdapter;
use ros2_client::dds::rustdds::serialization::{
    deserialize_from_cdr_with_rep_id, CDRSerializerAdapter,
};
use ros2_client::dds::rustdds::RepresentationIdentifier;
use serde::{de::DeserializeOwned, Serialize};

fn golden(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cdr")
        .join(format!("{name}.cdr"));
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (regenerate with `python3 tools/ros_golden.py`)",
            path.display()
        )
    })
}

/// What a ros2-client publisher sends: representation identifier, options, CDR body.
fn wire_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    let rep = <CDRSerializerAdapter<T> as SerializerAdapter<T>>::output_encoding();
    assert_eq!(rep, RepresentationIdentifier::CDR_LE);
    let body = <CDRSerializerAdapter<T> as SerializerAdapter<T>>::to_bytes(value)
        .unwrap_or_else(|e| panic!("serialise: {e}"));
    let mut out = vec![0x00, 0x01, 0x00, 0x00];
    out.extend_from_slice(&body);
    out
}

fn check<T>(name: &str, value: T) -> usize
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let expected = golden(name);
    let ours = wire_bytes(&value);
    if ours != expected {
        let first = ours.iter().zip(&expected).position(|(a, b)| a != b);
        panic!(
            "{name}: {} bytes ours vs {} golden, first difference at {:?}\n ours:   {:02x?}\n golden: {:02x?}",
            ours.len(),
            expected.len(),
            first,
            ours,
            expected
        );
    }
    assert_eq!(
        &expected[..4],
        &[0x00, 0x01, 0x00, 0x00],
        "{name}: CDR_LE header"
    );
    let (back, used) =
        deserialize_from_cdr_with_rep_id::<T>(&expected[4..], RepresentationIdentifier::CDR_LE)
            .unwrap_or_else(|e| panic!("{name}: deserialise golden: {e}"));
    assert_eq!(
        back, value,
        "{name}: golden bytes decode to a different value"
    );
    assert_eq!(used, expected.len() - 4, "{name}: bytes consumed");
    expected.len()
}

fn header(sec: i32, nanosec: u32, frame: &str) -> Header {
    Header {
        stamp: Time { sec, nanosec },
        frame_id: frame.into(),
    }
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The marker of `tools/ros_golden.py`'s `marker()`: every field set.
#[allow(clippy::too_many_arguments)]
fn marker(
    hdr: Header,
    ns: &str,
    id: i32,
    type_: i32,
    action: i32,
    points: Vec<Point>,
    texture: &[u8],
    mesh: &[u8],
    uv: Vec<UVCoordinate>,
) -> Marker {
    let green = ColorRGBA {
        r: 0.0,
        g: 1.0,
        b: 0.0,
        a: 1.0,
    };
    Marker {
        header: hdr.clone(),
        ns: ns.into(),
        id,
        type_,
        action,
        pose: Pose {
            position: Point {
                x: 1.5,
                y: -0.5,
                z: 0.02,
            },
            orientation: Quaternion::default(),
        },
        scale: Vector3 {
            x: 0.03,
            y: 0.03,
            z: 0.03,
        },
        color: ColorRGBA {
            r: 1.0,
            g: 0.5,
            b: 0.25,
            a: 0.75,
        },
        lifetime: Duration { sec: 1, nanosec: 5 },
        frame_locked: true,
        colors: points.iter().map(|_| green).collect(),
        text: if points.is_empty() { "" } else { "F" }.into(),
        points,
        texture_resource: if texture.is_empty() { "" } else { "tex" }.into(),
        texture: CompressedImage {
            header: hdr,
            format: if texture.is_empty() { "" } else { "png" }.into(),
            data: texture.to_vec(),
        },
        uv_coordinates: uv,
        mesh_resource: String::new(),
        mesh_file: MeshFile {
            filename: if mesh.is_empty() { "" } else { "m.stl" }.into(),
            data: mesh.to_vec(),
        },
        mesh_use_embedded_materials: !mesh.is_empty(),
    }
}

#[test]
fn every_message_matches_rosbags_byte_for_byte() {
    let _turn = crate::support::serial::file(module_path!());
    let mut total = 0;
    let mut cases = 0;
    let mut tally = |n: usize| {
        total += n;
        cases += 1;
    };

    tally(check(
        "time",
        Time {
            sec: 1_700_000_000,
            nanosec: 123_456_789,
        },
    ));
    tally(check(
        "duration",
        Duration {
            sec: -2,
            nanosec: 500_000_000,
        },
    ));
    tally(check(
        "clock",
        Clock {
            clock: Time {
                sec: 12,
                nanosec: 340_000_000,
            },
        },
    ));
    tally(check("header", header(12, 34, "base_link")));
    tally(check(
        "joint_state",
        JointState {
            header: header(1_700_000_001, 5, ""),
            name: names(&["hip", "knee", "ankle_pitch"]),
            position: vec![0.1, -0.2, 3.5e-7],
            velocity: vec![1.0, -2.0, 0.0],
            effort: vec![],
        },
    ));

    let mut pose_cov = [0.0; 36];
    let mut twist_cov = [0.0; 36];
    for i in 0..36 {
        pose_cov[i] = 0.5 * i as f64;
        if i % 7 == 0 {
            twist_cov[i] = 0.01;
        }
    }
    tally(check(
        "odometry",
        Odometry {
            header: header(100, 200, "odom"),
            child_frame_id: "base".into(),
            pose: PoseWithCovariance {
                pose: Pose {
                    position: Point {
                        x: 1.0,
                        y: 2.0,
                        z: 3.0,
                    },
                    orientation: Quaternion {
                        x: 0.0,
                        y: 0.0,
                        z: 0.382_683_432_365_089_84,
                        w: 0.923_879_532_511_286_7,
                    },
                },
                covariance: Covariance(pose_cov),
            },
            twist: TwistWithCovariance {
                twist: Twist {
                    linear: Vector3 {
                        x: 0.1,
                        y: 0.2,
                        z: 0.3,
                    },
                    angular: Vector3 {
                        x: -0.1,
                        y: -0.2,
                        z: -0.3,
                    },
                },
                covariance: Covariance(twist_cov),
            },
        },
    ));

    tally(check(
        "joint_trajectory",
        JointTrajectory {
            header: header(5, 0, "world"),
            joint_names: names(&["hip", "knee"]),
            points: (0..3u32)
                .map(|k| {
                    let kf = f64::from(k);
                    JointTrajectoryPoint {
                        positions: vec![0.1 * kf, -0.1 * kf],
                        velocities: vec![kf, -kf],
                        accelerations: vec![],
                        effort: vec![10.0 + kf, -10.0 - kf],
                        time_from_start: Duration {
                            sec: (k / 2) as i32,
                            nanosec: 250_000_000 * k,
                        },
                    }
                })
                .collect(),
        },
    ));

    tally(check(
        "float64_multi_array",
        Float64MultiArray {
            layout: MultiArrayLayout {
                dim: vec![MultiArrayDimension {
                    label: "joints".into(),
                    size: 2,
                    stride: 2,
                }],
                data_offset: 0,
            },
            data: vec![1.5, -2.25],
        },
    ));
    tally(check(
        "float64_multi_array_empty",
        Float64MultiArray::default(),
    ));

    tally(check(
        "diagnostic_array",
        DiagnosticArray {
            header: header(7, 8, ""),
            status: vec![
                DiagnosticStatus {
                    level: DiagnosticStatus::OK,
                    name: "fesdj_mpc: solver".into(),
                    message: "solved".into(),
                    hardware_id: String::new(),
                    values: vec![
                        KeyValue {
                            key: "solve_time_ms".into(),
                            value: "3.25".into(),
                        },
                        KeyValue {
                            key: "homotopy_steps".into(),
                            value: "4".into(),
                        },
                    ],
                },
                DiagnosticStatus {
                    level: DiagnosticStatus::ERROR,
                    name: "fesdj_mpc: input".into(),
                    message: "rejected joint_states: NaN".into(),
                    hardware_id: "hw1".into(),
                    values: vec![],
                },
            ],
        },
    ));

    let pose = |k: u32| Pose {
        position: Point {
            x: 0.1 * k as f64,
            y: -0.05 * k as f64,
            z: 0.33,
        },
        orientation: Quaternion {
            x: 0.0,
            y: 0.0,
            z: 0.0998334166468,
            w: 0.995004165278,
        },
    };
    tally(check(
        "path",
        Path {
            header: header(9, 10, "odom"),
            poses: (0..2)
                .map(|k| PoseStamped {
                    header: header(9, 10 + 50_000_000 * k, "odom"),
                    pose: pose(k),
                })
                .collect(),
        },
    ));
    tally(check(
        "marker_array",
        MarkerArray {
            markers: vec![
                marker(
                    header(3, 4, "odom"),
                    "feet",
                    7,
                    Marker::SPHERE,
                    Marker::ADD,
                    vec![],
                    &[],
                    &[],
                    vec![],
                ),
                marker(
                    header(3, 4, "odom"),
                    "forces",
                    -1,
                    Marker::ARROW,
                    Marker::DELETE,
                    vec![
                        Point {
                            x: 0.1,
                            y: 0.2,
                            z: 0.0,
                        },
                        Point {
                            x: 0.1,
                            y: 0.2,
                            z: 0.25,
                        },
                    ],
                    &[1, 2, 3],
                    &[255],
                    vec![UVCoordinate { u: 0.25, v: -0.5 }],
                ),
            ],
        },
    ));

    tally(check("trigger_request", TriggerRequest::default()));
    tally(check(
        "trigger_response",
        TriggerResponse {
            success: true,
            message: "plan published".into(),
        },
    ));
    tally(check("set_bool_request", SetBoolRequest { data: true }));
    tally(check(
        "set_bool_response",
        SetBoolResponse {
            success: false,
            message: "already enabled".into(),
        },
    ));

    assert_eq!(cases, 16);
    println!("{cases} golden CDR cases, {total} bytes matched");
}

#[test]
fn ros_type_names_match_the_dds_convention() {
    let _turn = crate::support::serial::file(module_path!());
    assert_eq!(
        JointState::type_name().dds_msg_type(),
        "sensor_msgs::msg::dds_::JointState_"
    );
    assert_eq!(
        JointTrajectory::type_name().dds_msg_type(),
        "trajectory_msgs::msg::dds_::JointTrajectory_"
    );
    assert_eq!(
        DiagnosticArray::type_name().dds_msg_type(),
        "diagnostic_msgs::msg::dds_::DiagnosticArray_"
    );
    assert_eq!(Odometry::full_name(), "nav_msgs/msg/Odometry");
    assert_eq!(
        Clock::type_name().dds_msg_type(),
        "rosgraph_msgs::msg::dds_::Clock_"
    );
    assert_eq!(<Trigger as RosService>::NAME, "Trigger");
    assert_eq!(
        MarkerArray::type_name().dds_msg_type(),
        "visualization_msgs::msg::dds_::MarkerArray_"
    );
    assert_eq!(Path::full_name(), "nav_msgs/msg/Path");
    assert_eq!(Twist::full_name(), "geometry_msgs/msg/Twist");
}

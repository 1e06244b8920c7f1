//! The node's ROS graph as an independent DDS implementation discovers it: `fesdj_node` on a
//! small `floating_zyx` quadruped with `floating_base` and `use_sim_time`, and
//! `tools/dds_graph_peer.py` (PyPI `cyclonedds`) reading the DDS builtin topics DCPSPublication
//! and DCPSSubscription inside a private network namespace. Every endpoint of the node is
//! listed with its topic and type name, and the list must be exactly the expected one: the
//! inputs (`joint_states`, `odom`, `cmd_vel`, `/clock` as `rosgraph_msgs/Clock`), the outputs
//! (trajectory, effort, the RViz path and markers, diagnostics, rosout, parameter events,
//! discovery info) and the request/reply pairs of the three services and the six parameter
//! services. In particular there is no `/clock` reader of type `builtin_interfaces/msg/Time`
//! (what ros2-client's spinner creates).

use crate::support as common;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::node_floating_base::python;

/// `(kind, DDS topic, DDS type)` of every endpoint the node must have.
fn expected() -> Vec<(String, String, String)> {
    let mut e = Vec::new();
    let mut add = |kind: &str, topic: &str, ty: &str| {
        e.push((kind.to_string(), topic.to_string(), ty.to_string()))
    };
    add(
        "reader",
        "rt/joint_states",
        "sensor_msgs::msg::dds_::JointState_",
    );
    add("reader", "rt/odom", "nav_msgs::msg::dds_::Odometry_");
    add("reader", "rt/cmd_vel", "geometry_msgs::msg::dds_::Twist_");
    add("reader", "rt/clock", "rosgraph_msgs::msg::dds_::Clock_");
    for (topic, ty) in [
        (
            "planned_trajectory",
            "trajectory_msgs::msg::dds_::JointTrajectory_",
        ),
        ("effort_command", "std_msgs::msg::dds_::Float64MultiArray_"),
        ("planned_path", "nav_msgs::msg::dds_::Path_"),
        (
            "planned_markers",
            "visualization_msgs::msg::dds_::MarkerArray_",
        ),
    ] {
        add("writer", &format!("rt/fesdj_mpc/{topic}"), ty);
    }
    add(
        "writer",
        "rt/diagnostics",
        "diagnostic_msgs::msg::dds_::DiagnosticArray_",
    );
    add("writer", "rt/rosout", "rcl_interfaces::msg::dds_::Log_");
    add(
        "writer",
        "rt/parameter_events",
        "rcl_interfaces::msg::dds_::ParameterEvent_",
    );
    add(
        "writer",
        "ros_discovery_info",
        "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_",
    );
    let services = [
        ("plan", "std_srvs", "Trigger"),
        ("reset", "std_srvs", "Trigger"),
        ("enable", "std_srvs", "SetBool"),
        ("get_parameters", "rcl_interfaces", "GetParameters"),
        ("get_parameter_types", "rcl_interfaces", "GetParameterTypes"),
        ("set_parameters", "rcl_interfaces", "SetParameters"),
        (
            "set_parameters_atomically",
            "rcl_interfaces",
            "SetParametersAtomically",
        ),
        ("list_parameters", "rcl_interfaces", "ListParameters"),
        (
            "describe_parameters",
            "rcl_interfaces",
            "DescribeParameters",
        ),
    ];
    for (name, package, ty) in services {
        add(
            "reader",
            &format!("rq/fesdj_mpc/{name}Request"),
            &format!("{package}::srv::dds_::{ty}_Request_"),
        );
        add(
            "writer",
            &format!("rr/fesdj_mpc/{name}Reply"),
            &format!("{package}::srv::dds_::{ty}_Response_"),
        );
    }
    e.sort();
    e
}

#[test]
fn discovered_graph_has_exactly_the_documented_endpoints() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(
        module_path!(),
        "discovered_graph_has_exactly_the_documented_endpoints",
    ) {
        return;
    }
    let mut node =
        crate::node_floating_base::spawn_quadruped_node(&["use_sim_time:=true"], Stdio::piped());
    // The small quadruped builds in seconds; the peer listens long enough to see the node
    // join after its build and announce every endpoint.
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tools/dds_graph_peer.py");
    let peer = Command::new(python())
        .arg(&script)
        .args(["--duration", "20"])
        .output()
        .expect("peer runs");
    let (code, err) = common::process::signal_and_wait(&mut node, "-INT");
    assert!(
        peer.status.success(),
        "peer failed: {}",
        String::from_utf8_lossy(&peer.stderr)
    );
    assert_eq!(code, Some(0), "SIGINT ends the node with 0: {err}");
    assert!(err.contains("started in domain"), "{err}");
    let report: Value = serde_json::from_slice(&peer.stdout).expect("peer JSON");
    let mut found: Vec<(String, String, String)> = report["endpoints"]
        .as_array()
        .expect("endpoints")
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (s("kind"), s("topic"), s("type"))
        })
        .collect();
    found.sort();
    found.dedup();
    for f in &found {
        eprintln!("{} {} {}", f.0, f.1, f.2);
    }
    assert!(
        !found
            .iter()
            .any(|(_, t, ty)| t == "rt/clock" && ty.starts_with("builtin_interfaces")),
        "a /clock endpoint of builtin_interfaces/Time: {found:?}"
    );
    let want = expected();
    let missing: Vec<_> = want.iter().filter(|w| !found.contains(w)).collect();
    let extra: Vec<_> = found.iter().filter(|f| !want.contains(f)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, unexpected {extra:?}"
    );
}

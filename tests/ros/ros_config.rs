//! From a command line to the node's configuration and topic names (no DDS involved): what a
//! launch file passes (`--ros-args -r __node:= -r __ns:= --params-file … -p …` and remaps)
//! ends up in the parameters and the fully qualified names.

use fesdj_mpc::ros::args::{parse_domain_id, RosArgs};
use fesdj_mpc::ros::params::ServiceConvention;
use fesdj_mpc::ros::{NodeConfig, NodeError};

#[test]
fn launch_style_arguments_configure_node_and_topics() {
    let _turn = crate::support::serial::file(module_path!());
    let dir = std::env::temp_dir().join(format!("fesdj_ros_config_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fesdj_mpc.yaml");
    std::fs::write(
        &file,
        "/**:\n  ros__parameters:\n    rate_hz: 100.0\n    joint_names: [hip, knee]\n    other_nodes_setting: 1\n\
         /robot/mpc:\n  ros__parameters:\n    service_mapping: cyclonedds\n    horizon: {N: 30, T: 0.6}\n",
    )
    .unwrap();
    let args = RosArgs::parse([
        "--ros-args",
        "-r",
        "__node:=mpc",
        "-r",
        "__ns:=/robot",
        "--params-file",
        file.to_str().unwrap(),
        "-p",
        "effort_joints:=[knee]",
        "-r",
        "~/effort_command:=/effort_controller/commands",
        "-r",
        "joint_states:=/robot/state/joints",
    ])
    .unwrap();
    let (config, warnings) =
        NodeConfig::from_args(&args, parse_domain_id(Some("17")).unwrap()).unwrap();
    assert_eq!(config.fully_qualified_name(), "/robot/mpc");
    assert_eq!(config.domain_id, 17);
    assert_eq!(config.params.rate_hz, 100.0);
    assert_eq!(config.params.horizon_n, 30);
    assert_eq!(config.params.horizon_t, 0.6);
    assert_eq!(config.params.service_mapping, ServiceConvention::CycloneDds);
    assert_eq!(config.params.effort_joint_order(), ["knee".to_string()]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("other_nodes_setting"));
    config.params.validate().unwrap();

    let t = config.topics().unwrap();
    assert_eq!(t.joint_states, "/robot/state/joints");
    assert_eq!(t.effort_command, "/effort_controller/commands");
    assert_eq!(t.planned_trajectory, "/robot/mpc/planned_trajectory");
    assert_eq!(t.diagnostics, "/diagnostics");
    assert_eq!(
        (t.plan.as_str(), t.reset.as_str(), t.enable.as_str()),
        ("/robot/mpc/plan", "/robot/mpc/reset", "/robot/mpc/enable")
    );
    assert_eq!(t.odom, None);

    // Defaults without arguments.
    let (default, _) =
        NodeConfig::from_args(&RosArgs::parse(Vec::<String>::new()).unwrap(), 0).unwrap();
    assert_eq!(default.fully_qualified_name(), "/fesdj_mpc");
    assert_eq!(
        default.topics().unwrap().planned_trajectory,
        "/fesdj_mpc/planned_trajectory"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_configuration_is_a_typed_error() {
    let _turn = crate::support::serial::file(module_path!());
    let args = RosArgs::parse(["--ros-args", "-p", "rate_hz:=fast"]).unwrap();
    let e = NodeConfig::from_args(&args, 0).unwrap_err();
    assert!(
        matches!(e, NodeError::Params(_)) && e.to_string().contains("rate_hz"),
        "{e}"
    );
    let args = RosArgs::parse(["--ros-args", "--params-file", "/nonexistent/fesdj.yaml"]).unwrap();
    let e = NodeConfig::from_args(&args, 0).unwrap_err();
    assert!(
        matches!(e, NodeError::Args(_)) && e.to_string().contains("/nonexistent/fesdj.yaml"),
        "{e}"
    );
    let args = RosArgs::parse([
        "--ros-args",
        "-p",
        "joint_names:=[a]",
        "-r",
        "joint_states:=~bad",
    ])
    .unwrap_err();
    assert!(args.to_string().contains("~bad"));
}

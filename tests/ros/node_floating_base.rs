//! `fesdj_node` with `floating_base`: a `floating_zyx` robot takes its six base coordinates
//! from odom (nav_msgs/Odometry: pose in the world, twist in the base frame) and its joints
//! from joint_states; the ZYX angles and rates match the model's own rotation and angular
//! velocity maps; the combinations that cannot work are refused naming the parameter.

use std::path::PathBuf;

use fesdj_mpc::app::node::{setup, NodeSetup};
use fesdj_mpc::model::configuration::{zyx_angular_velocity, zyx_to_matrix, zyx_to_quaternion};
use fesdj_mpc::ros::args::RosArgs;
use fesdj_mpc::ros::msg::Time;
use fesdj_mpc::ros::provider::{BaseState, PlanProvider, RobotState};

const LEGS: [&str; 4] = ["FL", "FR", "HL", "HR"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A small quadruped MPC problem file (floating_zyx root, point feet) in a temporary folder.
pub(crate) fn quadruped_config() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fesdj_floating_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let joints: Vec<String> = LEGS
        .iter()
        .flat_map(|l| {
            ["hip_abduction", "hip_flexion", "knee"]
                .iter()
                .map(move |j| format!("{l}_{j}"))
        })
        .collect();
    let contacts: Vec<String> = LEGS
        .iter()
        .map(|l| format!("{{name: {l}_foot, frame: {l}_foot}}"))
        .collect();
    let crouch = "0, 0.8, -1.6, 0, 0.8, -1.6, 0, 0.8, -1.6, 0, 0.8, -1.6";
    let zeros = format!("[{}]", ["0"; 18].join(", "));
    let text = format!(
        "name: quadruped_floating\n\
         model:\n  mu: 0.8\n  robot:\n    urdf: {urdf}\n    root: floating_zyx\n    actuated: [{act}]\n    contacts: [{con}]\n\
         fesdj: {{n_s: 1, n_fe: 1, no_initial_impacts: true, gamma_h: 0.5}}\n\
         horizon: {{T: 0.1, N: 2}}\n\
         initial:\n  q: [0, 0, 0.2786, 0, 0, 0, {crouch}]\n  v: {zeros}\n\
         ocp:\n  tracking: lsq\n  Q: 1\n  R: 0.01\n  x_ref: [0, 0, 0.3, 0, 0, 0, {crouch}, {vz}]\n\
         mpc: {{rate_hz: 20}}\n",
        urdf = root().join("urdf/quadruped.urdf").display(),
        act = joints.join(", "),
        con = contacts.join(", "),
        zeros = zeros,
        vz = ["0"; 18].join(", "),
    );
    let path = dir.join("quadruped.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

fn args(list: &[&str]) -> RosArgs {
    let mut all = vec!["--ros-args".to_string()];
    for a in list {
        all.push("-p".into());
        all.push(a.to_string());
    }
    RosArgs::parse(&all).unwrap()
}

#[test]
fn base_coordinates_come_from_odom() {
    let _turn = crate::support::serial::file(module_path!());
    let cfg = quadruped_config();
    let NodeSetup {
        config,
        mut provider,
        ..
    } = setup(
        &args(&[
            &format!("config_file:={}", cfg.display()),
            "floating_base:=true",
            "sim:=false",
        ]),
        0,
    )
    .unwrap();
    let names = &config.params.joint_names;
    assert_eq!(names.len(), 12, "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with("root_")), "{names:?}");
    // A base state: position, ZYX angles and their rates.
    let (p, ang, p_dot, rates) = (
        [0.4, -0.2, 0.31],
        [0.7, -0.25, 0.15],
        [0.3, -0.1, 0.05],
        [0.9, -0.4, 1.3],
    );
    let r = zyx_to_matrix::<f64>(&ang);
    let lin: [f64; 3] = [0, 1, 2].map(|i| (0..3).map(|k| r[k][i] * p_dot[k]).sum());
    let mut state = RobotState::new(12, true);
    state.stamp = Time::now();
    for j in 0..12 {
        state.position[j] = 0.01 * j as f64;
        state.velocity[j] = -0.02 * j as f64;
    }
    state.base = Some(BaseState {
        stamp: state.stamp,
        position: p,
        orientation: zyx_to_quaternion::<f64>(&ang),
        linear_velocity: lin,
        angular_velocity: zyx_angular_velocity::<f64>(&ang, &rates),
    });
    provider.on_state(&state);
    let (q, v) = provider.state();
    let want_q = [p[0], p[1], p[2], ang[0], ang[1], ang[2]];
    let want_v = [p_dot[0], p_dot[1], p_dot[2], rates[0], rates[1], rates[2]];
    for i in 0..6 {
        assert!((q[i] - want_q[i]).abs() < 1e-12, "q {q:?}");
        assert!((v[i] - want_v[i]).abs() < 1e-12, "v {v:?}");
    }
    // The joints land on their own coordinates (after the six base ones, model order).
    for j in 0..12 {
        assert_eq!(q[6 + j], 0.01 * j as f64);
        assert_eq!(v[6 + j], -0.02 * j as f64);
    }
}

#[test]
fn impossible_floating_base_setups_are_refused() {
    let _turn = crate::support::serial::file(module_path!());
    let cfg = quadruped_config();
    let c = format!("config_file:={}", cfg.display());
    let e = setup(&args(&[&c, "floating_base:=true", "sim:=true"]), 0).unwrap_err();
    assert!(
        e.to_string().contains("floating_base") && e.to_string().contains("odom"),
        "{e}"
    );
    let e = setup(
        &args(&[
            &c,
            "floating_base:=true",
            "sim:=false",
            "joint_names:=[root_x, FL_knee]",
        ]),
        0,
    )
    .unwrap_err();
    assert!(e.to_string().contains("root_x"), "{e}");
    let hopper = format!(
        "config_file:={}",
        root().join("config/hopper_mpc.yaml").display()
    );
    let e = setup(&args(&[&hopper, "floating_base:=true", "sim:=false"]), 0).unwrap_err();
    assert!(
        e.to_string().contains("floating_base") && e.to_string().contains("floating_zyx"),
        "{e}"
    );
}

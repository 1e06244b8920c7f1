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

/// The Python interpreter of the DDS peers (`FESDJ_PYTHON`, default `python3`).
pub(crate) fn python() -> String {
    std::env::var("FESDJ_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// The quadruped's joint names in the model's order (legs FL, FR, HL, HR).
pub(crate) fn quadruped_joints() -> Vec<String> {
    LEGS.iter()
        .flat_map(|l| {
            ["hip_abduction", "hip_flexion", "knee"]
                .iter()
                .map(move |j| format!("{l}_{j}"))
        })
        .collect()
}

/// `fesdj_node` on [`quadruped_config`] with `floating_base:=true sim:=false` and the extra
/// `-p` parameters `params`, run from the temporary folder, stderr piped. Panics (the test's
/// failure) when PyPI cyclonedds, which the DDS peers need, is missing.
pub(crate) fn spawn_quadruped_node(
    params: &[&str],
    stdout: std::process::Stdio,
) -> std::process::Child {
    let check = std::process::Command::new(python())
        .args(["-c", "import cyclonedds"])
        .status();
    assert!(
        matches!(check, Ok(s) if s.success()),
        "needs PyPI cyclonedds: python3 -m pip install -r tools/requirements.txt"
    );
    let config = quadruped_config();
    let mut args = vec![
        "--ros-args".to_string(),
        "-p".into(),
        format!("config_file:={}", config.display()),
        "-p".into(),
        "floating_base:=true".into(),
        "-p".into(),
        "sim:=false".into(),
    ];
    for p in params {
        args.push("-p".into());
        args.push(p.to_string());
    }
    std::process::Command::new(env!("CARGO_BIN_EXE_fesdj_node"))
        .args(&args)
        .current_dir(std::env::temp_dir())
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("fesdj_node starts")
}

/// A small quadruped MPC problem file (floating_zyx root, point feet) in a temporary folder.
pub(crate) fn quadruped_config() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fesdj_floating_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let joints = quadruped_joints();
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
         solver: {{relaxation: l1_penalty, sigma0: 1, kappa: 0.1, max_homotopy_steps: 12, comp_tol: 1.0e-6, hessian: gauss_newton, ipm: {{tol: 1.0e-6}}}}\n\
         mpc: {{rate_hz: 20, deadline_s: 20}}\n",
        urdf = root().join("urdf/quadruped.urdf").display(),
        act = joints.join(", "),
        con = contacts.join(", "),
        zeros = zeros,
        vz = ["0"; 18].join(", "),
    );
    // Tests of several files in this process write the same file while others read it (a
    // node being spawned): write a file of this call's own and rename it into place, so that
    // a reader never sees a truncated file (the rename is atomic).
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join("quadruped.yaml");
    let tmp = dir.join(format!("quadruped.yaml.{n}"));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
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

/// The ODE of a constant heading-frame twist `(vₓ, v_y, ω)`, integrated with classic RK4 in
/// small steps from `(x, y, ψ)` for `s` seconds: the independent reference of the base
/// references a `cmd_vel` command writes.
fn integrate_twist(cmd: [f64; 3], mut p: [f64; 3], s: f64) -> [f64; 3] {
    let f = |p: [f64; 3]| {
        let (sn, cs) = p[2].sin_cos();
        [cmd[0] * cs - cmd[1] * sn, cmd[0] * sn + cmd[1] * cs, cmd[2]]
    };
    let n = 1000;
    let h = s / n as f64;
    for _ in 0..n {
        let add =
            |a: [f64; 3], b: [f64; 3], k: f64| [a[0] + k * b[0], a[1] + k * b[1], a[2] + k * b[2]];
        let k1 = f(p);
        let k2 = f(add(p, k1, h / 2.0));
        let k3 = f(add(p, k2, h / 2.0));
        let k4 = f(add(p, k3, h));
        for i in 0..3 {
            p[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    p
}

/// `cmd_vel` through the provider: the blended command becomes the base references of every
/// interval (x, y, yaw along the commanded arc from the measured pose, the world velocity and
/// yaw rate), checked against an RK4 integration of the twist; height, attitude and joint
/// references stay as configured. The verified plan's view for RViz starts at the measured base
/// pose, with the feet where the leg geometry of urdf/quadruped.urdf puts them (hips at
/// (±0.2, ±0.15) m in the body, legs of 2 × 0.2 m at flexion 0.8 and knee −1.6: 0.4 cos 0.8
/// straight below the hips), and its contact forces carry the robot's weight.
#[test]
fn cmd_vel_drives_the_base_references_and_the_plan_view_shows_the_plan() {
    use fesdj_mpc::ros::provider::{JointPlan, PlanView};
    let _turn = crate::support::serial::file(module_path!());
    let cfg = quadruped_config();
    let NodeSetup {
        mut provider,
        warnings,
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
    assert!(warnings.is_empty(), "{warnings:?}");
    let cmd = [0.3, 0.1, 0.4];
    assert!(provider.set_velocity_command(cmd));
    let (x0, y0, z0, yaw0) = (0.5, -0.2, 0.2787, 0.3);
    let crouch = [0.0, 0.8, -1.6];
    let mut state = RobotState::new(12, true);
    state.stamp = Time::now();
    for j in 0..12 {
        state.position[j] = crouch[j % 3];
    }
    state.base = Some(BaseState {
        stamp: state.stamp,
        position: [x0, y0, z0],
        orientation: zyx_to_quaternion::<f64>(&[yaw0, 0.0, 0.0]),
        ..BaseState::default()
    });
    provider.on_state(&state);
    let mut plan = JointPlan::default();
    provider.plan(&mut plan).expect("a verified plan");

    // The references the solve tracked: horizon T = 0.1 s, N = 2, so the interval ends at
    // 0.05 s and 0.1 s.
    let problem = provider.controller().problem();
    let (layout, p) = (problem.layout(), problem.parameters());
    let n_q = 18;
    for (k, idx) in layout.params.x_ref.iter().enumerate() {
        let s = 0.05 * (k + 1) as f64;
        let [x, y, yaw] = integrate_twist(cmd, [x0, y0, yaw0], s);
        let r = |i: usize| p[idx[i]];
        assert!((r(0) - x).abs() < 1e-12, "x ref {k}: {} vs {x}", r(0));
        assert!((r(1) - y).abs() < 1e-12, "y ref {k}: {} vs {y}", r(1));
        assert!((r(3) - yaw).abs() < 1e-12, "yaw ref {k}");
        let (sn, cs) = yaw.sin_cos();
        assert!((r(n_q) - (cmd[0] * cs - cmd[1] * sn)).abs() < 1e-12);
        assert!((r(n_q + 1) - (cmd[0] * sn + cmd[1] * cs)).abs() < 1e-12);
        assert_eq!(r(n_q + 3), cmd[2]);
        // The rest as configured: height 0.3, level, crouched joints, zero other rates.
        assert_eq!((r(2), r(4), r(5)), (0.3, 0.0, 0.0));
        for j in 0..12 {
            assert_eq!(r(6 + j), crouch[j % 3]);
        }
        assert_eq!((r(n_q + 2), r(n_q + 4), r(n_q + 5)), (0.0, 0.0, 0.0));
    }

    let mut view = PlanView::default();
    assert!(provider.plan_view(&mut view));
    assert_eq!(view.len(), plan.len());
    assert_eq!(view.n_contacts, 4);
    assert_eq!(view.times, plan.times);
    let b = view.base_position[0];
    assert!((b[0] - x0).abs() < 1e-12 && (b[1] - y0).abs() < 1e-12 && (b[2] - z0).abs() < 1e-12);
    let o = view.base_orientation[0];
    let want = [0.0, 0.0, (yaw0 / 2.0).sin(), (yaw0 / 2.0).cos()];
    for i in 0..4 {
        assert!((o[i] - want[i]).abs() < 1e-12, "{o:?} vs {want:?}");
    }
    let (sn, cs) = yaw0.sin_cos();
    let depth = 0.4 * 0.8f64.cos();
    for (c, (hx, hy)) in [(0.2, 0.15), (0.2, -0.15), (-0.2, 0.15), (-0.2, -0.15)]
        .into_iter()
        .enumerate()
    {
        let f = view.contact_position[c];
        let want = [x0 + cs * hx - sn * hy, y0 + sn * hx + cs * hy, z0 - depth];
        for i in 0..3 {
            assert!((f[i] - want[i]).abs() < 1e-9, "foot {c}: {f:?} vs {want:?}");
        }
    }
    // Normal forces only (flat ground): vertical, never pulling; over the horizon they carry
    // the robot's 13 kg on average (the base starts at rest 2 cm below its reference height).
    let weight = 13.0 * 9.81;
    let mut totals = Vec::new();
    for pt in 1..view.len() {
        let fz: f64 = (0..4)
            .map(|c| {
                let f = view.contact_force[pt * 4 + c];
                assert!(f[0] == 0.0 && f[1] == 0.0 && f[2] >= -1e-6, "{f:?}");
                f[2]
            })
            .sum();
        totals.push(fz);
    }
    let mean = totals.iter().sum::<f64>() / totals.len() as f64;
    eprintln!("vertical contact force per point {totals:?}, weight {weight}");
    assert!(mean > 0.5 * weight && mean < 2.0 * weight, "{totals:?}");
}

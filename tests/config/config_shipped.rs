//! Every shipped configuration loads, builds its model and transcribes (OCP and/or one
//! simulation step); the expression models evaluate to the spec's formulas; `fesdj check`
//! prints the sizes.

use std::path::PathBuf;
use std::process::Command;

use fesdj_mpc::config::{ModelSource, Problem};
use fesdj_mpc::fesdj::{transcribe, FrictionModel};

const SHIPPED: [&str; 12] = [
    "bouncing_ball_1d.yaml",
    "bouncing_ball_2d.yaml",
    "bouncing_ball_3d.yaml",
    "two_balls_spring.yaml",
    "two_discs.yaml",
    "three_boxes.yaml",
    "hopper_ocp.yaml",
    "hopper_mpc.yaml",
    "sliding_block_mpc.yaml",
    "pusher_mpc.yaml",
    "quadruped_mpc.yaml",
    "quadruped_gait.yaml",
];

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("config")
        .join(name)
}

fn load(name: &str) -> Problem {
    Problem::load(&path(name), &[]).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_shipped_config_builds_its_transcription() {
    let files: Vec<String> = std::fs::read_dir(path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // ROS parameter files (`*.params.yaml`) are not problem files: tests/launch_files.rs.
        // Gait library files (`*_gaits.yaml`) neither: tests/cli/cli_gaits.rs.
        .filter(|n| {
            n.ends_with(".yaml") && !n.ends_with(".params.yaml") && !n.ends_with("_gaits.yaml")
        })
        .collect();
    for f in &files {
        assert!(
            SHIPPED.contains(&f.as_str()),
            "{f} is not in the list of this test"
        );
    }
    for name in SHIPPED {
        let p = load(name);
        assert!(p.warnings.is_empty(), "{name}: {:?}", p.warnings);
        let mut built = 0;
        if p.config.horizon.is_some() {
            let m = p.ocp().unwrap().transcribe().unwrap();
            assert!(m.n_w() > 0 && m.n_g() > 0 && m.n_comp() > 0, "{name}");
            assert_eq!(m.w0.len(), m.n_w());
            built += 1;
        }
        if p.config.simulation.is_some() {
            let s = p.simulation().unwrap();
            let m = transcribe(&s.ocp, &s.options).unwrap();
            assert!(m.n_w() > 0 && m.n_comp() > 0, "{name}");
            assert_eq!(s.controls.len(), s.n_steps);
            built += 1;
        }
        assert!(built > 0, "{name} has neither an OCP nor a simulation");
    }
}

fn expr_eval(p: &Problem, q: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    match &p.model {
        ModelSource::Expressions(m) => m.eval_f64(q, v),
        ModelSource::Robot(_) => panic!("not an expression model"),
    }
}

#[test]
fn ball_models_are_the_spec_models() {
    let p = load("bouncing_ball_1d.yaml");
    let (m, f, _, g) = expr_eval(&p, &[0.3], &[1.0]);
    assert_eq!((m, f, g), (vec![1.0], vec![-9.81], vec![0.3]));
    assert_eq!(p.x0(), [0.8, 0.0]);
    let s = p.simulation().unwrap();
    assert_eq!((s.n_steps, s.options.n_fe, s.options.n_s), (20, 2, 2));
    assert!(s.options.no_initial_impacts);
    assert_eq!(p.cls_model().unwrap().contacts()[0].restitution, 1.0);

    let p = load("bouncing_ball_2d.yaml");
    let c = p.cls_model().unwrap().contacts()[0];
    assert_eq!((c.n_t, c.mu, c.restitution), (1, 0.3, 0.0));
    assert_eq!(p.x0(), [0.0, 1.0, 4.0, 0.0]);

    let p = load("bouncing_ball_3d.yaml");
    let c = p.cls_model().unwrap().contacts()[0];
    assert_eq!((c.n_t, c.mu), (2, 0.2));
    assert_eq!(p.config.fesdj.friction_model, FrictionModel::Conic);
    let (_, f, _, g) = expr_eval(&p, &[1.0, 2.0, 0.5], &[0.0; 3]);
    assert_eq!((f, g), (vec![0.0, 0.0, -10.0], vec![0.5]));
}

#[test]
fn two_balls_forces_are_the_spring_law() {
    let p = load("two_balls_spring.yaml");
    let (q, v) = ([0.5, 1.7], [0.1, -0.2]);
    let (m, f, _, g) = expr_eval(&p, &q, &v);
    let d = q[1] - q[0] - 1.0;
    assert_eq!(m, [1.0, 0.0, 0.0, 1.0]);
    assert!((f[0] - (-9.81 + 1e4 * d)).abs() < 1e-9);
    assert!((f[1] - (-9.81 - 1e4 * d)).abs() < 1e-9);
    assert!((g[0] - 0.3).abs() < 1e-15);
    assert_eq!(p.cls_model().unwrap().contacts()[0].restitution, 0.8);
}

#[test]
fn two_discs_drag_controls_and_gap() {
    let p = load("two_discs.yaml");
    let (q, v) = ([-1.0, 0.5, 0.2, -0.3], [1.0, -2.0, 0.5, 0.0]);
    let (m, f, b, g) = expr_eval(&p, &q, &v);
    assert_eq!((m[0], m[5], m[10], m[15]), (2.0, 2.0, 1.0, 1.0));
    let n1 = ((v[0] + 0.1_f64).powi(2) + (v[1] + 0.1_f64).powi(2)).sqrt();
    let n2 = ((v[2] + 0.1_f64).powi(2) + (v[3] + 0.1_f64).powi(2)).sqrt();
    let want = [
        -2.0 * v[0] / n1,
        -2.0 * v[1] / n1,
        -2.0 * v[2] / n2,
        -2.0 * v[3] / n2,
    ];
    for i in 0..4 {
        assert!((f[i] - want[i]).abs() < 1e-14, "f_v[{i}]");
    }
    // B_u = ∂f_v/∂u: the controls push disc 1.
    assert_eq!(b, [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    let gap = (q[0] - q[2]).powi(2) + (q[1] - q[3]).powi(2) - 0.25;
    assert!((g[0] - gap).abs() < 1e-14);
    let s = p.ocp().unwrap();
    assert!(s.ocp.path.is_some() && s.ocp.lagrange.is_some() && s.ocp.mayer.is_some());
    assert!(s.ocp.lsq.is_none());
    assert_eq!(s.ocp.u_bounds.as_ref().unwrap().ub, [30.0, 30.0]);
}

#[test]
fn three_boxes_contacts_and_control() {
    let p = load("three_boxes.yaml");
    let model = p.cls_model().unwrap();
    let mu: Vec<f64> = model.contacts().iter().map(|c| c.mu).collect();
    let e: Vec<f64> = model.contacts().iter().map(|c| c.restitution).collect();
    assert_eq!(mu, [0.1, 0.1, 0.2, 0.2, 0.2]);
    assert_eq!(e, [0.0, 0.5, 0.0, 0.0, 0.0]);
    let (_, f, b, g) = expr_eval(&p, &[-3.0, 1.0, 0.0, 1.0, 3.0, 1.0], &[0.0; 6]);
    assert_eq!(f, [0.0, -9.81, 0.0, -9.81, 0.0, -9.81]);
    assert_eq!(b, [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    assert_eq!(g, [1.0, 1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn check_command_prints_the_sizes() {
    let out = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args([
            "check",
            "config/two_discs.yaml",
            "--json",
            "--set",
            "horizon.N=5",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = Problem::load(&path("two_discs.yaml"), &["horizon.N=5".to_string()]).unwrap();
    let m = p.ocp().unwrap().transcribe().unwrap();
    assert_eq!(doc["ocp"]["n_w"], m.n_w());
    assert_eq!(doc["ocp"]["n_g"], m.n_g());
    assert_eq!(doc["ocp"]["n_comp"], m.n_comp());
    assert_eq!(doc["ocp"]["N"], 5);
    assert_eq!(doc["model"]["u"], serde_json::json!(["ux", "uy"]));

    let out = Command::new(env!("CARGO_BIN_EXE_fesdj"))
        .args([
            "check",
            "config/bouncing_ball_1d.yaml",
            "--set",
            "fesdj.n_ss=3",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--set fesdj.n_ss: unknown key"), "{err}");
}

/// The hand-written walk of `tools/quadruped_gait.py` (the shipped quadruped's reference until
/// the gait library replaced it; kept as a test of kinematics: Python's inverse kinematics of
/// the leg against ours) puts the feet where the gait says, by our own kinematics of
/// `urdf/quadruped.urdf` (the contact gaps `f_c(q)`): at each of the 24 waypoints the three
/// stance feet on the ground and the swinging one (HL, FL, HR, FR in turn, a quarter period
/// each) lifted by 0.04 (1 − cos 2π a)/2 at the swing's phase `a`.
#[test]
fn quadruped_gait_tool_puts_the_feet_where_the_gait_says() {
    use fesdj_mpc::ad::{Function, Sx};
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("tools/quadruped_gait.py"))
        .args([
            "--gait",
            "walk",
            "--period",
            "1.2",
            "--speed",
            "0.1",
            "--height",
            "0.04",
            "--body-height",
            "0.33",
            "--points",
            "24",
        ])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let waypoints: Vec<Vec<f64>> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- ["))
        .map(|l| {
            l.trim_end_matches(']')
                .split(',')
                .map(|x| x.trim().parse::<f64>().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(waypoints.len(), 24);
    let times: Vec<f64> = (0..24).map(|i| 1.2 * i as f64 / 24.0).collect();
    let gait = fesdj_mpc::mpc::PeriodicReference::new(1.2, times, waypoints).unwrap();
    let problem = load("quadruped_mpc.yaml");
    let model = problem.cls_model().unwrap();
    let n_q = model.n_q();
    let q = Sx::sym_vec("q", n_q);
    let f = model.gaps(&q).unwrap();
    let func = Function::new("gaps", &[&q], &[&f]).unwrap();
    let mut ws = func.workspace();
    let mut gaps = vec![0.0; 4];
    let mut x = vec![0.0; 2 * n_q];
    // Contacts FL FR HL HR; the swing of each begins at this fraction of the period.
    let swing_start = [0.25, 0.75, 0.0, 0.5];
    for i in 0..24 {
        let phase = i as f64 / 24.0;
        gait.at(1.2 * phase, &mut x);
        func.eval(&[&x[..n_q]], &mut [gaps.as_mut_slice()], &mut ws)
            .unwrap();
        for (c, &s0) in swing_start.iter().enumerate() {
            let a = (phase - s0).rem_euclid(1.0) / 0.25;
            let want = if a < 1.0 {
                0.04 * 0.5 * (1.0 - (2.0 * std::f64::consts::PI * a).cos())
            } else {
                0.0
            };
            assert!(
                (gaps[c] - want).abs() < 1e-3,
                "waypoint {i}, contact {c}: gap {} m, the gait says {want} m",
                gaps[c]
            );
        }
    }
}

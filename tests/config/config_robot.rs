//! Robot models from problem files: the ClsModel built symbolically (src/model with `Sx`)
//! equals the f64 algorithms of src/model (M = crba, f_v = −nonlinear_effects, gaps, J_n, J_t)
//! at random states; the inverse dynamics M a − f_v (one symbolic RNEA pass) equals the f64
//! crba and nonlinear_effects composed; J_n = ∇f_c; and the shipped hopper is as designed.
#![allow(clippy::needless_range_loop)]

use std::path::{Path, PathBuf};

use fesdj_mpc::ad::{Function, Sx};
use fesdj_mpc::config::robot::RobotModel;
use fesdj_mpc::config::{ModelSource, Problem};
use fesdj_mpc::fesdj::ClsModel;
use fesdj_mpc::model::{
    contact_jacobians, crba, forward_kinematics, nonlinear_effects, signed_distance, Data,
    RootJoint,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn hopper() -> Problem {
    Problem::load(&root().join("config/hopper_ocp.yaml"), &[]).unwrap()
}

fn robot(p: &Problem) -> &RobotModel {
    match &p.model {
        ModelSource::Robot(r) => r,
        ModelSource::Expressions(_) => panic!("not a robot"),
    }
}

/// Outputs `[M, f_v, B_u, f_c, J_n, J_t^0, J_t^1, …, M a − f_v]` of a ClsModel as one function
/// of (q, v, a).
fn compile(model: &ClsModel) -> (Function, Vec<usize>) {
    let q = Sx::sym_vec("q", model.n_q());
    let v = Sx::sym_vec("v", model.n_q());
    let a = Sx::sym_vec("a", model.n_q());
    let mut outs = vec![
        model.mass_matrix(&q).unwrap(),
        model.smooth_forces(&q, &v).unwrap(),
        model.input_matrix(&q).unwrap(),
        model.gaps(&q).unwrap(),
        model.normal_jacobian(&q).unwrap(),
    ];
    for l in 0..model.n_c() {
        if model.contacts()[l].has_friction() {
            outs.push(model.tangent_jacobian(&q, l).unwrap());
        } else {
            outs.push(Vec::new());
        }
    }
    outs.push(model.inverse_dynamics(&q, &v, &a).unwrap());
    let sizes = outs.iter().map(Vec::len).collect();
    let refs: Vec<&[Sx]> = outs.iter().map(|o| o.as_slice()).collect();
    (Function::new("cls", &[&q, &v, &a], &refs).unwrap(), sizes)
}

fn eval(f: &Function, sizes: &[usize], q: &[f64], v: &[f64]) -> Vec<Vec<f64>> {
    eval_a(f, sizes, q, v, &vec![0.0; q.len()])
}

fn eval_a(f: &Function, sizes: &[usize], q: &[f64], v: &[f64], a: &[f64]) -> Vec<Vec<f64>> {
    let mut outs: Vec<Vec<f64>> = sizes.iter().map(|&n| vec![0.0; n]).collect();
    let mut refs: Vec<&mut [f64]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
    f.eval(&[q, v, a], &mut refs, &mut f.workspace()).unwrap();
    outs
}

fn close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "{what}[{i}]: {x} vs {y}"
        );
    }
}

/// Compare the symbolic ClsModel of `p` with src/model in f64 at `n` random states.
fn compare_with_model(p: &Problem, n: usize, seed: u64, q_range: f64) {
    let r = robot(p);
    let m = &r.model;
    let cls = p.cls_model().unwrap();
    let (f, sizes) = compile(&cls);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut data = Data::<f64>::new(m);
    for _ in 0..n {
        let q: Vec<f64> = (0..m.nq)
            .map(|_| rng.random_range(-q_range..q_range))
            .collect();
        let v: Vec<f64> = (0..m.nv).map(|_| rng.random_range(-2.0..2.0)).collect();
        let a: Vec<f64> = (0..m.nv).map(|_| rng.random_range(-5.0..5.0)).collect();
        let out = eval_a(&f, &sizes, &q, &v, &a);
        let mm = crba(m, &mut data, &q).unwrap().to_vec();
        close(&out[0], &mm, 1e-12, "M");
        let h = nonlinear_effects(m, &mut data, &q, &v).unwrap().to_vec();
        let fv: Vec<f64> = h.iter().map(|x| -x).collect();
        close(&out[1], &fv, 1e-12, "f_v = -h");
        // M a − f_v = M a + h from the f64 algorithms (M symmetric: row-major is column-major).
        let id: Vec<f64> = (0..m.nv)
            .map(|i| (0..m.nv).map(|j| mm[i * m.nv + j] * a[j]).sum::<f64>() + h[i])
            .collect();
        close(out.last().unwrap(), &id, 1e-11, "M a - f_v (RNEA)");
        forward_kinematics(m, &mut data, &q).unwrap();
        for (l, c) in r.contacts.iter().enumerate() {
            close(
                &out[3][l..l + 1],
                &[signed_distance(m, &data, c)],
                1e-12,
                "f_c",
            );
            let mut jn = vec![0.0; m.nv];
            let mut jt = vec![0.0; c.tangent_dim * m.nv];
            contact_jacobians(m, &data, c, &mut jn, &mut jt).unwrap();
            close(&out[4][l * m.nv..(l + 1) * m.nv], &jn, 1e-12, "J_n");
            if c.mu > 0.0 {
                close(&out[5 + l], &jt, 1e-12, "J_t");
            }
        }
        // B_u selects the actuated joints.
        for (k, &i) in r.actuated.iter().enumerate() {
            for row in 0..m.nv {
                let want = if row == i { 1.0 } else { 0.0 };
                assert_eq!(out[2][row + m.nv * k], want);
            }
        }
        // J_n = ∇f_c (q̇ = v), by central differences.
        let eps = 1e-6;
        for k in 0..m.nq {
            let (mut qp, mut qm) = (q.clone(), q.clone());
            qp[k] += eps;
            qm[k] -= eps;
            let (gp, gm) = (
                eval(&f, &sizes, &qp, &v)[3].clone(),
                eval(&f, &sizes, &qm, &v)[3].clone(),
            );
            for l in 0..r.contacts.len() {
                let fd = (gp[l] - gm[l]) / (2.0 * eps);
                let jn = out[4][k + m.nv * l];
                assert!(
                    (fd - jn).abs() < 1e-6,
                    "∂f_c/∂q[{k}] of contact {l}: {fd} vs {jn}"
                );
            }
        }
    }
}

#[test]
fn hopper_cls_model_equals_the_model_algorithms() {
    compare_with_model(&hopper(), 25, 7, 1.2);
}

const BALL_ARM: &str = r#"<?xml version="1.0"?>
<robot name="ball_arm">
  <link name="base">
    <inertial><origin xyz="0.01 0 0.02"/><mass value="2"/>
      <inertia ixx="0.1" ixy="0.01" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial>
  </link>
  <link name="arm">
    <inertial><origin xyz="0 0 0.2"/><mass value="0.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.002"/></inertial>
  </link>
  <joint name="swing" type="revolute">
    <parent link="base"/><child link="arm"/>
    <origin xyz="0.1 0 0" rpy="0.1 0 0"/><axis xyz="0 1 0.3"/>
    <limit lower="-1" upper="1" effort="5" velocity="3"/>
  </joint>
</robot>
"#;

#[test]
fn floating_zyx_robot_with_plane_and_sphere_contacts() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("config_robot");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ball_arm.urdf"), BALL_ARM).unwrap();
    let yaml = r#"
model:
  robot:
    urdf: ball_arm.urdf
    root: floating_zyx
    actuated: [swing]
    contacts:
      - {name: ball, frame: base, radius: 0.1, mu: 0.3}
      - name: tip
        frame: arm
        offset: [0, 0, 0.4]
        radius: 0.05
        surface: {plane: {normal: [0.3, 0, 1], offset: -0.2}}
        mu: 0.5
        restitution: 0.2
      - name: tip_on_ball
        frame: arm
        offset: [0, 0, 0.4]
        radius: 0.05
        surface: {sphere: {frame: base, radius: 0.1}}
initial: {q: [0, 0, 1, 0, 0, 0, 0]}
"#;
    let p = Problem::from_yaml(yaml, Path::new("ball_arm.yaml"), &dir, &[]).unwrap();
    let r = robot(&p);
    assert_eq!((r.model.nq, r.actuated.len(), r.contacts.len()), (7, 1, 3));
    assert_eq!(r.u_limits, (vec![-5.0], vec![5.0]));
    let cls = p.cls_model().unwrap();
    assert_eq!(cls.contacts()[0].n_t, 2);
    assert_eq!(cls.contacts()[2].n_t, 0);
    assert_eq!(p.symbols().u, ["u_swing"]);
    compare_with_model(&p, 15, 11, 1.0);
}

/// The 18-DOF quadruped on its `floating_zyx` base: a model big enough that a wrong RNEA
/// recursion (a frame, a sign, a missing velocity product) cannot hide.
#[test]
fn quadruped_model_matches_the_f64_algorithms() {
    let p = Problem::load(&root().join("config/quadruped_mpc.yaml"), &[]).unwrap();
    assert_eq!(robot(&p).model.nv, 18);
    compare_with_model(&p, 3, 5, 0.8);
}

#[test]
fn hopper_is_as_designed() {
    let p = hopper();
    let r = robot(&p);
    assert_eq!(r.model.root, RootJoint::PlanarXz);
    assert_eq!(r.model.nq, 5);
    assert_eq!(
        p.symbols().q,
        ["root_x", "root_z", "root_pitch", "hip", "leg"]
    );
    assert_eq!(p.symbols().u, ["u_hip", "u_leg"]);
    assert_eq!(r.u_limits, (vec![-50.0, -50.0], vec![50.0, 50.0]));
    let inf = f64::INFINITY;
    assert_eq!(r.q_limits.0, [-inf, -inf, -inf, -1.5, 0.1]);
    assert_eq!(r.q_limits.1, [inf, inf, inf, 1.5, 0.5]);
    let cls = p.cls_model().unwrap();
    let c = &cls.contacts()[0];
    assert_eq!((c.n_t, c.mu, c.restitution), (1, 0.45, 0.0));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);

    let (f, sizes) = compile(&cls);
    let zero = [0.0; 5];
    // Initial state: foot exactly on the ground, M = diag-ish with the designed masses.
    let q0 = &p.config.initial.q;
    let out = eval(&f, &sizes, q0, &zero);
    assert!(out[3][0].abs() < 1e-14, "gap at q0 = {}", out[3][0]);
    let m = &out[0];
    assert!(
        (m[0] - 1.1).abs() < 1e-14 && (m[1 + 5] - 1.1).abs() < 1e-14,
        "total mass"
    );
    assert!((m[4 + 5 * 4] - 0.05).abs() < 1e-14, "moving leg mass");
    // Gravity: f_v = −h = (0, −1.1 g, …) at rest.
    assert!((out[1][1] + 1.1 * 9.81).abs() < 1e-12);
    // Gap formula and SPD mass matrix at random states.
    let mut rng = StdRng::seed_from_u64(3);
    for _ in 0..50 {
        let q: Vec<f64> = vec![
            rng.random_range(-1.0..1.0),
            rng.random_range(0.0..1.5),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.5..1.5),
            rng.random_range(0.1..0.5),
        ];
        let out = eval(&f, &sizes, &q, &zero);
        let want = q[1] - q[4] * (q[2] + q[3]).cos();
        assert!(
            (out[3][0] - want).abs() < 1e-13,
            "gap {} vs {want}",
            out[3][0]
        );
        let mm = nalgebra::DMatrix::from_column_slice(5, 5, &out[0]);
        assert!((&mm - mm.transpose()).abs().max() < 1e-14);
        assert!(mm.cholesky().is_some(), "M not SPD at {q:?}");
    }
}

#[test]
fn hopper_ocp_references_follow_the_waypoints() {
    let setup = hopper().ocp().unwrap();
    let refs = setup.x_ref.as_ref().unwrap();
    assert_eq!(refs.len(), 6);
    // T = 0.6, N = 6: interval k ends at 0.1 (k + 1); the three points are equally spaced over
    // [0, T], so the waypoint is at 0.3 (end of interval 2), the goal at 0.6 (interval 5), and
    // in between the reference is linear: x(0.2) = 0.1 + 0.3 · 2/3 = 0.3.
    assert!((refs[2][0] - 0.4).abs() < 1e-12 && (refs[2][4] - 0.1).abs() < 1e-12);
    assert!((refs[5][0] - 0.7).abs() < 1e-12 && (refs[5][1] - 0.5).abs() < 1e-12);
    assert!((refs[1][0] - 0.3).abs() < 1e-12);
    assert!((refs[3][0] - 0.5).abs() < 1e-12 && (refs[3][1] - 0.7).abs() < 1e-12);
    let mpcc = setup.transcribe().unwrap();
    for (k, idx) in mpcc.layout.params.x_ref.iter().enumerate() {
        let p: Vec<f64> = idx.iter().map(|&i| mpcc.p0[i]).collect();
        assert_eq!(p, refs[k], "p0 of interval {k}");
    }
    // Bounds: URDF limits and the file's box, intersected.
    let qb = setup.ocp.q_bounds.as_ref().unwrap();
    assert_eq!(qb.lb[4], 0.1);
    assert_eq!(qb.ub[0], 0.8);
    assert_eq!(setup.ocp.u_bounds.as_ref().unwrap().ub, [50.0, 50.0]);
}

/// The contact symbols of the OCP expressions (`gap_<c>`, `slip_<c>`): on the quadruped with
/// its legs in the sagittal plane (abduction 0), each hip at the body's height and each leg two
/// 0.2 m links, a foot is `z − 0.2 cos θ − 0.2 cos(θ + κ)` above the ground (flexion θ, knee κ),
/// and with the joints still it moves with the base, so its squared tangential speed is
/// `ẋ² + ẏ²`: closed forms, not our kinematics.
#[test]
fn contact_symbols_are_the_foot_heights_and_squared_slip_speeds() {
    let sets = vec![
        "ocp.path={g: [gap_FL_foot, gap_HR_foot, slip_FL_foot, slip_HR_foot], lb: -1e9, ub: 1e9}"
            .to_string(),
    ];
    let p = Problem::load(&root().join("config/quadruped_mpc.yaml"), &sets).unwrap();
    let setup = p.ocp().unwrap();
    let path = setup.ocp.path.as_ref().expect("the path constraints");
    let n_q = 18;
    let (q, v, u) = (
        Sx::sym_vec("q", n_q),
        Sx::sym_vec("v", n_q),
        Sx::sym_vec("u", 12),
    );
    let g = (path.fun)(&q, &v, &u);
    let f = Function::new("path", &[&q, &v, &u], &[&g]).unwrap();
    let mut ws = f.workspace();
    let (z, th_f, k_f, th_h, k_h) = (0.41, 0.5, -1.1, 0.7, -1.3);
    let mut qv = vec![0.0; n_q];
    qv[2] = z;
    for leg in 0..4 {
        let (th, k) = if leg == 0 { (th_f, k_f) } else { (th_h, k_h) };
        qv[7 + 3 * leg] = th;
        qv[8 + 3 * leg] = k;
    }
    let mut vv = vec![0.0; n_q];
    vv[0] = 0.3;
    vv[1] = -0.4;
    let mut out = vec![0.0; 4];
    f.eval(&[&qv, &vv, &[0.0; 12]], &mut [out.as_mut_slice()], &mut ws)
        .unwrap();
    let height = |th: f64, k: f64| z - 0.2 * th.cos() - 0.2 * (th + k).cos();
    assert!((out[0] - height(th_f, k_f)).abs() < 1e-12, "{out:?}");
    assert!((out[1] - height(th_h, k_h)).abs() < 1e-12, "{out:?}");
    assert!(
        (out[2] - 0.25).abs() < 1e-12 && (out[3] - 0.25).abs() < 1e-12,
        "{out:?}"
    );
    // Where no expression uses them, a model is not even consulted; unknown contacts are
    // refused by name.
    let bad = Problem::load(
        &root().join("config/quadruped_mpc.yaml"),
        &["ocp.path={g: [gap_XX_foot]}".to_string()],
    )
    .and_then(|p| p.ocp().map(|_| ()));
    let e = bad.unwrap_err().to_string();
    assert!(e.contains("ocp.path") && e.contains("gap_XX_foot"), "{e}");
}

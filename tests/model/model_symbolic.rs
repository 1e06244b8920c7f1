//! The model algorithms instantiated with the symbolic `Sx`: compiled tapes equal the f64
//! evaluation, and the Jacobian of rnea from `ad` matches finite differences and Pinocchio's
//! `computeRNEADerivatives`.
#![allow(clippy::needless_range_loop)]

use crate::support::reference as common;

use fesdj_mpc::ad::{jacobian_of, Function, Scalar, SparsityPattern, Sx};
use fesdj_mpc::model::{
    aba, center_of_mass, contact_jacobians, crba, forward_kinematics, frame_jacobian, rnea,
    ContactSpec, Data, Model, ModelOptions, ReferenceFrame, RootJoint, SurfaceSpec,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn load(robot: &str, root: RootJoint) -> Model {
    Model::from_urdf_file(
        common::urdf(robot),
        &ModelOptions {
            root,
            ..Default::default()
        },
    )
    .unwrap()
}

fn random_q(model: &Model, rng: &mut StdRng) -> Vec<f64> {
    let mut q: Vec<f64> = (0..model.nq).map(|_| rng.random_range(-3.0..3.0)).collect();
    if model.root == RootJoint::Floating {
        let n = q[3..7].iter().map(|x| x * x).sum::<f64>().sqrt();
        q[3..7].iter_mut().for_each(|x| *x /= n);
    }
    q
}

fn eval(f: &Function, inputs: &[&[f64]], n_out: usize) -> Vec<f64> {
    let mut out = vec![0.0; n_out];
    let mut ws = f.workspace();
    f.eval(inputs, &mut [&mut out], &mut ws).unwrap();
    out
}

fn dense(pattern: &SparsityPattern, nz: &[f64]) -> Vec<Vec<f64>> {
    let mut m = vec![vec![0.0; pattern.ncols()]; pattern.nrows()];
    for (k, (r, c)) in pattern.entries().enumerate() {
        m[r][c] = nz[k];
    }
    m
}

fn assert_close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "{what}[{i}]: {x} vs {y}"
        );
    }
}

#[test]
fn symbolic_instantiation_equals_f64() {
    let mut rng = StdRng::seed_from_u64(21);
    for (robot, root, frame) in [
        ("panda", RootJoint::Fixed, "panda_hand_tcp"),
        ("double_pendulum_continuous", RootJoint::Fixed, "link2"),
        ("solo12", RootJoint::Floating, "FL_FOOT"),
        ("solo12", RootJoint::FloatingZyx, "HL_FOOT"),
    ] {
        let model = load(robot, root);
        let (nq, nv) = (model.nq, model.nv);
        let fid = model.frame_id(frame).unwrap();
        let contact = ContactSpec {
            name: "foot".into(),
            frame: frame.into(),
            offset: [0.0, 0.0, 0.01],
            radius: 0.02,
            surface: SurfaceSpec::Ground { height: -0.1 },
            mu: 0.8,
            restitution: 0.0,
        }
        .resolve(&model)
        .unwrap();
        let nt = contact.tangent_dim;
        let (q, v, a) = (
            Sx::sym_vec("q", nq),
            Sx::sym_vec("v", nv),
            Sx::sym_vec("a", nv),
        );
        let mut ds = Data::<Sx>::new(&model);
        let tau = rnea(&model, &mut ds, &q, &v, &a).unwrap().to_vec();
        let m = crba(&model, &mut ds, &q).unwrap().to_vec();
        let qdd = aba(&model, &mut ds, &q, &v, &a).unwrap().to_vec();
        let com = center_of_mass(&model, &mut ds, &q).unwrap().to_vec();
        forward_kinematics(&model, &mut ds, &q).unwrap();
        let mut jac = vec![<Sx as Scalar>::zero(); 6 * nv];
        frame_jacobian(&model, &ds, fid, ReferenceFrame::Local, &mut jac).unwrap();
        let (mut jn, mut jt) = (
            vec![<Sx as Scalar>::zero(); nv],
            vec![<Sx as Scalar>::zero(); nt * nv],
        );
        let dist = contact_jacobians(&model, &ds, &contact, &mut jn, &mut jt).unwrap();
        let mut all = tau.clone();
        all.extend(&m);
        all.extend(&qdd);
        all.extend(&com);
        all.extend(&jac);
        all.push(dist);
        all.extend(&jn);
        all.extend(&jt);
        let f = Function::new("model", &[&q, &v, &a], &[&all]).unwrap();

        for _ in 0..3 {
            let qn = random_q(&model, &mut rng);
            let vn: Vec<f64> = (0..nv).map(|_| rng.random_range(-2.0..2.0)).collect();
            let an: Vec<f64> = (0..nv).map(|_| rng.random_range(-2.0..2.0)).collect();
            let sym = eval(&f, &[&qn, &vn, &an], all.len());
            let mut d = Data::<f64>::new(&model);
            let mut num = rnea(&model, &mut d, &qn, &vn, &an).unwrap().to_vec();
            num.extend(crba(&model, &mut d, &qn).unwrap());
            num.extend(aba(&model, &mut d, &qn, &vn, &an).unwrap());
            num.extend(center_of_mass(&model, &mut d, &qn).unwrap());
            forward_kinematics(&model, &mut d, &qn).unwrap();
            let mut jn_ = vec![0.0; 6 * nv];
            frame_jacobian(&model, &d, fid, ReferenceFrame::Local, &mut jn_).unwrap();
            num.extend(&jn_);
            let (mut jnn, mut jtn) = (vec![0.0; nv], vec![0.0; nt * nv]);
            num.push(contact_jacobians(&model, &d, &contact, &mut jnn, &mut jtn).unwrap());
            num.extend(&jnn);
            num.extend(&jtn);
            assert_close(&sym, &num, 1e-12, robot);
        }
    }
}

/// The compiled rnea of a model and the Jacobian functions with respect to q and v.
struct RneaTapes {
    pat_q: SparsityPattern,
    jac_q: Function,
    pat_v: SparsityPattern,
    jac_v: Function,
}

fn rnea_tapes(model: &Model) -> RneaTapes {
    let (q, v, a) = (
        Sx::sym_vec("q", model.nq),
        Sx::sym_vec("v", model.nv),
        Sx::sym_vec("a", model.nv),
    );
    let mut ds = Data::<Sx>::new(model);
    let tau = rnea(model, &mut ds, &q, &v, &a).unwrap().to_vec();
    let f = Function::new("rnea", &[&q, &v, &a], &[&tau]).unwrap();
    let (pat_q, jac_q) = jacobian_of(&f, 0, 0).unwrap();
    let (pat_v, jac_v) = jacobian_of(&f, 0, 1).unwrap();
    RneaTapes {
        pat_q,
        jac_q,
        pat_v,
        jac_v,
    }
}

#[test]
fn rnea_jacobian_matches_finite_differences() {
    let mut rng = StdRng::seed_from_u64(17);
    for robot in ["ur5", "panda", "solo12"] {
        let model = load(robot, RootJoint::Fixed);
        let nv = model.nv;
        let t = rnea_tapes(&model);
        let q: Vec<f64> = (0..nv).map(|_| rng.random_range(-3.0..3.0)).collect();
        let v: Vec<f64> = (0..nv).map(|_| rng.random_range(-2.0..2.0)).collect();
        let a: Vec<f64> = (0..nv).map(|_| rng.random_range(-2.0..2.0)).collect();
        let dq = dense(&t.pat_q, &eval(&t.jac_q, &[&q, &v, &a], t.pat_q.nnz()));
        let dv = dense(&t.pat_v, &eval(&t.jac_v, &[&q, &v, &a], t.pat_v.nnz()));
        let mut d = Data::<f64>::new(&model);
        let eps = 1e-6;
        for k in 0..nv {
            for (which, jac) in [(0, &dq), (1, &dv)] {
                let (mut xp, mut xm) = if which == 0 {
                    (q.clone(), q.clone())
                } else {
                    (v.clone(), v.clone())
                };
                xp[k] += eps;
                xm[k] -= eps;
                let (tp, tm) = if which == 0 {
                    (
                        rnea(&model, &mut d, &xp, &v, &a).unwrap().to_vec(),
                        rnea(&model, &mut d, &xm, &v, &a).unwrap().to_vec(),
                    )
                } else {
                    (
                        rnea(&model, &mut d, &q, &xp, &a).unwrap().to_vec(),
                        rnea(&model, &mut d, &q, &xm, &a).unwrap().to_vec(),
                    )
                };
                for r in 0..nv {
                    let fd = (tp[r] - tm[r]) / (2.0 * eps);
                    assert!(
                        (fd - jac[r][k]).abs() < 1e-6 * (1.0 + fd.abs()),
                        "{robot} d{which}[{r}][{k}]: {fd} vs {}",
                        jac[r][k]
                    );
                }
            }
        }
    }
}

/// Against Pinocchio's computeRNEADerivatives (written by tools/pinocchio_reference.py into the
/// fixed-base samples), for every robot of the generated reference.
#[test]
fn rnea_jacobian_matches_pinocchio_derivatives() {
    for robot in ["panda", "ur5", "double_pendulum_continuous"] {
        let model = load(robot, RootJoint::Fixed);
        let nv = model.nv;
        let t = rnea_tapes(&model);
        let reference = common::read_json(&common::reference_json(robot));
        let variant = &reference["variants"]["fixed_base"];
        // Pinocchio's joint order is ours for these robots (depth-first, declaration order).
        let names: Vec<&str> = variant["joint_names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        let ours: Vec<&str> = model.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ours, "{robot}");
        let mut checked = 0;
        for s in variant["samples"].as_array().unwrap() {
            let qp = common::vecf(&s["q"]);
            let q: Vec<f64> = if qp.len() == 2 * nv {
                (0..nv).map(|i| qp[2 * i + 1].atan2(qp[2 * i])).collect()
            } else if qp.len() == nv {
                qp
            } else {
                // double_pendulum_continuous mixes: joint 1 revolute, joint 2 continuous.
                let mut out = Vec::new();
                let mut k = 0;
                for j in variant["joints"].as_array().unwrap() {
                    if j["nq"].as_u64() == Some(2) {
                        out.push(qp[k + 1].atan2(qp[k]));
                        k += 2;
                    } else {
                        out.push(qp[k]);
                        k += 1;
                    }
                }
                out
            };
            let (v, a) = (common::vecf(&s["v"]), common::vecf(&s["a"]));
            let dq = dense(&t.pat_q, &eval(&t.jac_q, &[&q, &v, &a], t.pat_q.nnz()));
            let dv = dense(&t.pat_v, &eval(&t.jac_v, &[&q, &v, &a], t.pat_v.nnz()));
            let (rq, rv) = (common::matf(&s["dtau_dq"]), common::matf(&s["dtau_dv"]));
            for r in 0..nv {
                assert_close(&dq[r], &rq[r], 1e-9, &format!("{robot} dtau_dq row {r}"));
                assert_close(&dv[r], &rv[r], 1e-9, &format!("{robot} dtau_dv row {r}"));
            }
            checked += 1;
        }
        assert!(checked > 0);
    }
}

//! Invariants of the model algorithms: M symmetric positive definite, rnea/crba/aba agreement,
//! energy balance on a short simulation, floating_zyx and planar bases vs the free-flyer,
//! Jacobians vs finite differences, integrate/difference.
#![allow(clippy::needless_range_loop)]

use crate::support::reference as common;

use fesdj_mpc::model::configuration::{zyx_to_quaternion, zyx_velocity_map};
use fesdj_mpc::model::{
    aba, crba, difference, forward_kinematics, frame_jacobian, frame_placement, integrate,
    kinetic_energy, neutral, nonlinear_effects, potential_energy, rnea, Data, Model, ModelOptions,
    ReferenceFrame, RootJoint,
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

/// A random configuration: angles in [-π, π] (pitch of floating_zyx within ±1 rad), random
/// unit quaternion for a free-flyer.
fn random_q(model: &Model, rng: &mut StdRng) -> Vec<f64> {
    let mut q: Vec<f64> = (0..model.nq).map(|_| rng.random_range(-3.0..3.0)).collect();
    if model.root == RootJoint::Floating {
        let mut quat: Vec<f64> = (0..4).map(|_| rng.random_range(-1.0..1.0)).collect();
        let n = quat.iter().map(|x| x * x).sum::<f64>().sqrt();
        quat.iter_mut().for_each(|x| *x /= n);
        q[3..7].copy_from_slice(&quat);
    }
    if model.root == RootJoint::FloatingZyx {
        q[4] = rng.random_range(-1.0..1.0);
    }
    q
}

fn random_v(n: usize, rng: &mut StdRng) -> Vec<f64> {
    (0..n).map(|_| rng.random_range(-2.0..2.0)).collect()
}

fn variants() -> Vec<(&'static str, RootJoint)> {
    vec![
        ("double_pendulum_continuous", RootJoint::Fixed),
        ("ur5", RootJoint::Fixed),
        ("panda", RootJoint::Fixed),
        ("solo12", RootJoint::Fixed),
        ("solo12", RootJoint::Floating),
        ("solo12", RootJoint::FloatingZyx),
        ("solo12", RootJoint::PlanarXz),
        ("solo12", RootJoint::PlanarXy),
        ("panda", RootJoint::Floating),
        ("quadruped", RootJoint::FloatingZyx),
        ("quadruped", RootJoint::Floating),
        ("pusher_arm", RootJoint::Fixed),
    ]
}

/// Cholesky factorisation succeeds (M positive definite).
fn is_positive_definite(m: &[f64], n: usize) -> bool {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = m[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = m[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    true
}

#[test]
fn mass_matrix_symmetric_positive_definite_and_consistent() {
    let mut rng = StdRng::seed_from_u64(7);
    for (robot, root) in variants() {
        let model = load(robot, root);
        let mut data = Data::new(&model);
        let nv = model.nv;
        for _ in 0..5 {
            let q = random_q(&model, &mut rng);
            let v = random_v(nv, &mut rng);
            let a = random_v(nv, &mut rng);
            let m = crba(&model, &mut data, &q).unwrap().to_vec();
            for i in 0..nv {
                for j in 0..nv {
                    assert_eq!(m[i * nv + j], m[j * nv + i], "{robot} {root:?}");
                }
            }
            assert!(is_positive_definite(&m, nv), "{robot} {root:?}");
            let h = nonlinear_effects(&model, &mut data, &q, &v)
                .unwrap()
                .to_vec();
            let tau = rnea(&model, &mut data, &q, &v, &a).unwrap().to_vec();
            for i in 0..nv {
                let ma: f64 = (0..nv).map(|j| m[i * nv + j] * a[j]).sum();
                let scale = 1.0 + tau[i].abs();
                assert!(
                    (ma + h[i] - tau[i]).abs() < 1e-10 * scale,
                    "{robot} {root:?}"
                );
            }
            let qdd = aba(&model, &mut data, &q, &v, &tau).unwrap().to_vec();
            for i in 0..nv {
                assert!(
                    (qdd[i] - a[i]).abs() < 1e-7 * (1.0 + a[i].abs()),
                    "{robot} {root:?} {i}: {} vs {}",
                    qdd[i],
                    a[i]
                );
            }
        }
    }
}

/// d(T + V)/dt = vᵀτ: integrate the state and the work with RK4 and compare.
#[test]
fn energy_balance_on_a_short_simulation() {
    for (robot, root) in [
        ("panda", RootJoint::Fixed),
        ("ur5", RootJoint::Fixed),
        ("solo12", RootJoint::FloatingZyx),
        ("solo12", RootJoint::PlanarXz),
        ("quadruped", RootJoint::FloatingZyx),
        ("pusher_arm", RootJoint::Fixed),
    ] {
        let model = load(robot, root);
        let mut data = Data::new(&model);
        let (nq, nv) = (model.nq, model.nv);
        assert_eq!(nq, nv);
        let mut rng = StdRng::seed_from_u64(11);
        let mut q = random_q(&model, &mut rng);
        let mut v: Vec<f64> = random_v(nv, &mut rng).iter().map(|x| x * 0.5).collect();
        let torque = |t: f64, v: &[f64]| -> Vec<f64> {
            (0..v.len())
                .map(|i| 0.3 * (t * (1.0 + i as f64)).sin() - 0.05 * v[i])
                .collect()
        };
        let energy = |data: &mut Data<f64>, q: &[f64], v: &[f64]| {
            kinetic_energy(&model, data, q, v).unwrap() + potential_energy(&model, data, q).unwrap()
        };
        let e0 = energy(&mut data, &q, &v);
        let mut work = 0.0;
        let dt = 1e-3;
        let mut t = 0.0;
        let deriv = |data: &mut Data<f64>, t: f64, q: &[f64], v: &[f64]| {
            let tau = torque(t, v);
            let qdd = aba(&model, data, q, v, &tau).unwrap().to_vec();
            let power: f64 = v.iter().zip(&tau).map(|(a, b)| a * b).sum();
            (v.to_vec(), qdd, power)
        };
        for _ in 0..200 {
            let (k1q, k1v, k1w) = deriv(&mut data, t, &q, &v);
            let step = |x: &[f64], k: &[f64], h: f64| -> Vec<f64> {
                x.iter().zip(k).map(|(a, b)| a + h * b).collect()
            };
            let (k2q, k2v, k2w) = deriv(
                &mut data,
                t + dt / 2.0,
                &step(&q, &k1q, dt / 2.0),
                &step(&v, &k1v, dt / 2.0),
            );
            let (k3q, k3v, k3w) = deriv(
                &mut data,
                t + dt / 2.0,
                &step(&q, &k2q, dt / 2.0),
                &step(&v, &k2v, dt / 2.0),
            );
            let (k4q, k4v, k4w) =
                deriv(&mut data, t + dt, &step(&q, &k3q, dt), &step(&v, &k3v, dt));
            for i in 0..nv {
                q[i] += dt / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + k4q[i]);
                v[i] += dt / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i]);
            }
            work += dt / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
            t += dt;
        }
        let e1 = energy(&mut data, &q, &v);
        let err = (e1 - e0 - work).abs();
        assert!(
            err < 1e-7 * (1.0 + e0.abs()),
            "{robot} {root:?}: ΔE = {}, W = {work}, err {err:e}",
            e1 - e0
        );
    }
}

/// Free-flyer configuration and velocity of a floating_zyx state.
fn zyx_to_ff(q: &[f64], qd: &[f64]) -> (Vec<f64>, Vec<f64>, [[f64; 6]; 6]) {
    let root: [f64; 6] = q[0..6].try_into().unwrap();
    let quat = zyx_to_quaternion(&[q[3], q[4], q[5]]);
    let mut qf = q[0..3].to_vec();
    qf.extend_from_slice(&quat);
    qf.extend_from_slice(&q[6..]);
    let t = zyx_velocity_map(&root);
    let mut vf: Vec<f64> = (0..6)
        .map(|i| (0..6).map(|k| t[i][k] * qd[k]).sum())
        .collect();
    vf.extend_from_slice(&qd[6..]);
    (qf, vf, t)
}

#[test]
fn floating_zyx_matches_free_flyer_through_the_velocity_map() {
    let zyx = load("solo12", RootJoint::FloatingZyx);
    let ff = load("solo12", RootJoint::Floating);
    let mut dz = Data::new(&zyx);
    let mut df = Data::new(&ff);
    let nv = zyx.nv;
    let mut rng = StdRng::seed_from_u64(3);
    for _ in 0..5 {
        let q = random_q(&zyx, &mut rng);
        let qd = random_v(nv, &mut rng);
        let qdd = random_v(nv, &mut rng);
        let (qf, vf, t) = zyx_to_ff(&q, &qd);
        // Full T (block diagonal with the identity for the leg joints).
        let tf = |i: usize, k: usize| {
            if i < 6 && k < 6 {
                t[i][k]
            } else if i == k {
                1.0
            } else {
                0.0
            }
        };
        let mz = crba(&zyx, &mut dz, &q).unwrap().to_vec();
        let mf = crba(&ff, &mut df, &qf).unwrap().to_vec();
        for i in 0..nv {
            for j in 0..nv {
                let mut s = 0.0;
                for a in 0..nv {
                    for b in 0..nv {
                        s += tf(a, i) * mf[a * nv + b] * tf(b, j);
                    }
                }
                assert!((s - mz[i * nv + j]).abs() < 1e-12, "M[{i}][{j}]");
            }
        }
        // a_ff = T q̈ + Ṫ q̇, with Ṫ q̇ by central differences along q(t) = q + t q̇.
        let eps = 1e-6;
        let vel_at = |s: f64| {
            let qs: Vec<f64> = q.iter().zip(&qd).map(|(a, b)| a + s * b).collect();
            zyx_to_ff(&qs, &qd).1
        };
        let (vp, vm) = (vel_at(eps), vel_at(-eps));
        let af: Vec<f64> = (0..nv)
            .map(|i| {
                (0..nv).map(|k| tf(i, k) * qdd[k]).sum::<f64>() + (vp[i] - vm[i]) / (2.0 * eps)
            })
            .collect();
        let tau_f = rnea(&ff, &mut df, &qf, &vf, &af).unwrap().to_vec();
        let tau_z = rnea(&zyx, &mut dz, &q, &qd, &qdd).unwrap().to_vec();
        for i in 0..nv {
            let s: f64 = (0..nv).map(|a| tf(a, i) * tau_f[a]).sum();
            assert!(
                (s - tau_z[i]).abs() < 1e-7 * (1.0 + s.abs()),
                "tau[{i}]: {s} vs {}",
                tau_z[i]
            );
        }
    }
}

#[test]
fn planar_bases_are_restrictions_of_floating_zyx() {
    let zyx = load("solo12", RootJoint::FloatingZyx);
    let mut dz = Data::new(&zyx);
    for (root, kept) in [
        (RootJoint::PlanarXz, [0usize, 2, 4]),
        (RootJoint::PlanarXy, [0, 1, 3]),
    ] {
        let planar = load("solo12", root);
        let mut dp = Data::new(&planar);
        let mut rng = StdRng::seed_from_u64(5);
        let q = random_q(&planar, &mut rng);
        let v = random_v(planar.nv, &mut rng);
        // Embed: the planar coordinates in their zyx slots, the others zero.
        let mut idx: Vec<usize> = kept.to_vec();
        idx.extend(6..zyx.nv);
        let mut qz = vec![0.0; zyx.nq];
        let mut vz = vec![0.0; zyx.nv];
        for (k, &i) in idx.iter().enumerate() {
            qz[i] = q[k];
            vz[i] = v[k];
        }
        let mp = crba(&planar, &mut dp, &q).unwrap().to_vec();
        let mz = crba(&zyx, &mut dz, &qz).unwrap().to_vec();
        let (np, nz) = (planar.nv, zyx.nv);
        for (a, &ia) in idx.iter().enumerate() {
            for (b, &ib) in idx.iter().enumerate() {
                assert!((mp[a * np + b] - mz[ia * nz + ib]).abs() < 1e-13);
            }
        }
        let hp = nonlinear_effects(&planar, &mut dp, &q, &v)
            .unwrap()
            .to_vec();
        let hz = nonlinear_effects(&zyx, &mut dz, &qz, &vz).unwrap().to_vec();
        for (a, &ia) in idx.iter().enumerate() {
            assert!((hp[a] - hz[ia]).abs() < 1e-12, "{root:?}");
        }
    }
}

fn skew_inv(m: &[[f64; 3]; 3]) -> [f64; 3] {
    [
        0.5 * (m[2][1] - m[1][2]),
        0.5 * (m[0][2] - m[2][0]),
        0.5 * (m[1][0] - m[0][1]),
    ]
}

#[test]
fn frame_jacobians_match_finite_differences() {
    let mut rng = StdRng::seed_from_u64(9);
    for (robot, root, frame) in [
        ("panda", RootJoint::Fixed, "panda_hand_tcp"),
        ("ur5", RootJoint::Fixed, "tool0"),
        ("solo12", RootJoint::Floating, "FL_FOOT"),
        ("solo12", RootJoint::FloatingZyx, "HR_FOOT"),
    ] {
        let model = load(robot, root);
        let fid = model.frame_id(frame).unwrap();
        let mut data = Data::new(&model);
        let nv = model.nv;
        let q = random_q(&model, &mut rng);
        let v = random_v(nv, &mut rng);
        forward_kinematics(&model, &mut data, &q).unwrap();
        let x = frame_placement(&model, &data, fid);
        let mut jac = [vec![0.0; 6 * nv], vec![0.0; 6 * nv], vec![0.0; 6 * nv]];
        for (k, rf) in [
            ReferenceFrame::LocalWorldAligned,
            ReferenceFrame::Local,
            ReferenceFrame::World,
        ]
        .into_iter()
        .enumerate()
        {
            frame_jacobian(&model, &data, fid, rf, &mut jac[k]).unwrap();
        }
        let jv = |j: &[f64]| -> Vec<f64> {
            (0..6)
                .map(|r| (0..nv).map(|c| j[r * nv + c] * v[c]).sum())
                .collect()
        };
        let (lwa, local, world) = (jv(&jac[0]), jv(&jac[1]), jv(&jac[2]));
        // Finite differences along q ⊕ ±εv.
        let eps = 1e-6;
        let mut place = |s: f64| {
            let dv: Vec<f64> = v.iter().map(|x| x * s).collect();
            let mut qs = vec![0.0; model.nq];
            integrate(&model, &q, &dv, &mut qs).unwrap();
            forward_kinematics(&model, &mut data, &qs).unwrap();
            frame_placement(&model, &data, fid)
        };
        let (xp, xm) = (place(eps), place(-eps));
        let mut rdot_rt = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                rdot_rt[i][j] = (0..3)
                    .map(|k| (xp.r[i][k] - xm.r[i][k]) / (2.0 * eps) * x.r[j][k])
                    .sum();
            }
            assert!(
                ((xp.p[i] - xm.p[i]) / (2.0 * eps) - lwa[i]).abs() < 1e-6,
                "{robot} lin"
            );
        }
        let w = skew_inv(&rdot_rt);
        for i in 0..3 {
            assert!((w[i] - lwa[3 + i]).abs() < 1e-6, "{robot} ang");
            // LOCAL = Rᵀ LWA; WORLD linear = v_p − ω × p.
            let loc_lin: f64 = (0..3).map(|k| x.r[k][i] * lwa[k]).sum();
            let loc_ang: f64 = (0..3).map(|k| x.r[k][i] * lwa[3 + k]).sum();
            assert!((loc_lin - local[i]).abs() < 1e-12 && (loc_ang - local[3 + i]).abs() < 1e-12);
            let wxp = [
                lwa[4] * x.p[2] - lwa[5] * x.p[1],
                lwa[5] * x.p[0] - lwa[3] * x.p[2],
                lwa[3] * x.p[1] - lwa[4] * x.p[0],
            ];
            assert!(
                (lwa[i] - wxp[i] - world[i]).abs() < 1e-12
                    && (world[3 + i] - lwa[3 + i]).abs() < 1e-15
            );
        }
    }
}

#[test]
fn integrate_and_difference_are_inverse() {
    let model = load("solo12", RootJoint::Floating);
    let mut rng = StdRng::seed_from_u64(13);
    for scale in [1.0, 1e-3, 1e-9, 0.0] {
        let q = random_q(&model, &mut rng);
        let v: Vec<f64> = random_v(model.nv, &mut rng)
            .iter()
            .map(|x| x * scale)
            .collect();
        let mut q1 = vec![0.0; model.nq];
        integrate(&model, &q, &v, &mut q1).unwrap();
        let n: f64 = q1[3..7].iter().map(|x| x * x).sum::<f64>();
        assert!((n - 1.0).abs() < 1e-12);
        let mut back = vec![0.0; model.nv];
        difference(&model, &q, &q1, &mut back).unwrap();
        for i in 0..model.nv {
            assert!(
                (back[i] - v[i]).abs() < 1e-11,
                "scale {scale}: {back:?} vs {v:?}"
            );
        }
    }
    let q0 = neutral(&model);
    assert_eq!(q0[6], 1.0);
    // Wrong lengths are errors, not panics.
    let mut out = vec![0.0; model.nq];
    assert!(integrate(&model, &q0[..5], &vec![0.0; model.nv], &mut out).is_err());
}

//! The paper's models (spec §6) as Rust `ClsModel`s, shared by the solve tests and the
//! benchmarks (until they ship as YAML configs).
#![allow(dead_code)]

use fesdj_mpc::ad::{Scalar, Sx};
use fesdj_mpc::fesdj::cls::identity;
use fesdj_mpc::fesdj::{ClosureFunctions, ClsModel, ContactLaw};

fn c(x: f64) -> Sx {
    Sx::constant(x)
}

/// §6.4 item 1 / §8.1: 1D ball, M = 1, f_v = −g, f_c = q, restitution e.
pub fn ball_1d(e: f64, g: f64) -> ClsModel {
    ClsModel::new(
        1,
        0,
        vec![ContactLaw::frictionless(e)],
        Box::new(ClosureFunctions {
            mass: Box::new(|_| identity(1)),
            forces: Box::new(move |_, _| vec![c(-g)]),
            input: None,
            gaps: Box::new(|q| vec![q[0]]),
            normals: None,
            tangents: None,
        }),
    )
    .expect("1D ball")
}

/// §6.4 item 2: 2D ball, M = I, f_c = q_y, J_t = (1, 0), friction μ, restitution e.
pub fn ball_2d(mu: f64, e: f64, g: f64) -> ClsModel {
    ClsModel::new(
        2,
        0,
        vec![ContactLaw {
            n_t: 1,
            mu,
            restitution: e,
        }],
        Box::new(ClosureFunctions {
            mass: Box::new(|_| identity(2)),
            forces: Box::new(move |_, _| vec![c(0.0), c(-g)]),
            input: None,
            gaps: Box::new(|q| vec![q[1]]),
            normals: None,
            tangents: Some(Box::new(|_, _| vec![c(1.0), c(0.0)])),
        }),
    )
    .expect("2D ball")
}

/// §6.4 item 3: 3D ball, M = I, f_c = q_z, J_t = [e_x, e_y] rotated by `angle` about e_z
/// (any orthonormal tangent basis describes the same contact; for the polyhedral cone
/// D = [J_t, −J_t] the basis decides the edge directions).
pub fn ball_3d(mu: f64, e: f64, g: f64, angle: f64) -> ClsModel {
    let (ca, sa) = (angle.cos(), angle.sin());
    ClsModel::new(
        3,
        0,
        vec![ContactLaw {
            n_t: 2,
            mu,
            restitution: e,
        }],
        Box::new(ClosureFunctions {
            mass: Box::new(|_| identity(3)),
            forces: Box::new(move |_, _| vec![c(0.0), c(0.0), c(-g)]),
            input: None,
            gaps: Box::new(|q| vec![q[2]]),
            normals: None,
            tangents: Some(Box::new(move |_, _| {
                vec![c(ca), c(sa), c(0.0), c(-sa), c(ca), c(0.0)]
            })),
        }),
    )
    .expect("3D ball")
}

/// §6.1: two balls connected by a spring (k = 1e4, l = 1, R = 0.2, m = 1, g = 9.81); only
/// ball 1 touches the ground, restitution 0.8, frictionless.
pub fn two_balls_spring() -> ClsModel {
    let (g, k, l, r) = (9.81, 1e4, 1.0, 0.2);
    ClsModel::new(
        2,
        0,
        vec![ContactLaw::frictionless(0.8)],
        Box::new(ClosureFunctions {
            mass: Box::new(|_| identity(2)),
            forces: Box::new(move |q, _| {
                let s = (q[1] - q[0] - l) * k;
                vec![s - g, -g - s]
            }),
            input: None,
            gaps: Box::new(move |q| vec![q[0] - r]),
            normals: None,
            tangents: None,
        }),
    )
    .expect("two balls")
}

/// §6.2: two discs in the plane, m = (2, 1), r = (0.3, 0.2), control force on disc 1, air
/// drag c_f = 2, ε_f = 0.1 (added to every velocity component inside the norm, as N),
/// inelastic frictionless contact with f_c = ‖q_1 − q_2‖² − (r_1 + r_2)², J_n = ∇f_c.
pub fn two_discs() -> ClsModel {
    let (m1, m2, r1, r2, cf, ef) = (2.0, 1.0, 0.3, 0.2, 2.0, 0.1);
    ClsModel::new(
        4,
        2,
        vec![ContactLaw::frictionless(0.0)],
        Box::new(ClosureFunctions {
            mass: Box::new(move |_| {
                let mut m = identity(4);
                m[0] = c(m1);
                m[5] = c(m1);
                m[10] = c(m2);
                m[15] = c(m2);
                m
            }),
            forces: Box::new(move |_, v| {
                let n1 = ((v[0] + ef).sq() + (v[1] + ef).sq()).sqrt();
                let n2 = ((v[2] + ef).sq() + (v[3] + ef).sq()).sqrt();
                vec![
                    -(v[0] * cf) / n1,
                    -(v[1] * cf) / n1,
                    -(v[2] * cf) / n2,
                    -(v[3] * cf) / n2,
                ]
            }),
            input: Some(Box::new(|_| {
                let mut b = vec![c(0.0); 8];
                b[0] = c(1.0);
                b[4 + 1] = c(1.0);
                b
            })),
            gaps: Box::new(move |q| {
                let dx = q[0] - q[2];
                let dy = q[1] - q[3];
                vec![dx.sq() + dy.sq() - (r1 + r2) * (r1 + r2)]
            }),
            normals: None,
            tangents: None,
        }),
    )
    .expect("two discs")
}

/// §6.3: three boxes (side a = 2, m = 1) on the ground, control force on the middle box,
/// five contacts (left–middle ε = 0, middle–right ε = 0.5, three ground contacts), μ = (0.1,
/// 0.1, 0.2, 0.2, 0.2); J_n and J_t constant with unit columns (the N script's, with contact 2's
/// tangent as evidently meant, §6.3).
pub fn three_boxes() -> ClsModel {
    let (a, g) = (2.0, 9.81);
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let mu = [0.1, 0.1, 0.2, 0.2, 0.2];
    let eps = [0.0, 0.5, 0.0, 0.0, 0.0];
    let contacts = (0..5)
        .map(|l| ContactLaw {
            n_t: 1,
            mu: mu[l],
            restitution: eps[l],
        })
        .collect();
    let col = |entries: &[(usize, f64)]| {
        let mut v = vec![0.0; 6];
        for &(i, x) in entries {
            v[i] = x;
        }
        v
    };
    let jn: Vec<Vec<f64>> = vec![
        col(&[(0, -s), (2, s)]),
        col(&[(2, -s), (4, s)]),
        col(&[(1, 1.0)]),
        col(&[(3, 1.0)]),
        col(&[(5, 1.0)]),
    ];
    let jt: Vec<Vec<f64>> = vec![
        col(&[(1, -s), (3, s)]),
        col(&[(3, -s), (5, s)]),
        col(&[(0, 1.0)]),
        col(&[(2, 1.0)]),
        col(&[(4, 1.0)]),
    ];
    ClsModel::new(
        6,
        1,
        contacts,
        Box::new(ClosureFunctions {
            mass: Box::new(|_| identity(6)),
            forces: Box::new(move |_, _| vec![c(0.0), c(-g), c(0.0), c(-g), c(0.0), c(-g)]),
            input: Some(Box::new(|_| {
                vec![c(0.0), c(0.0), c(1.0), c(0.0), c(0.0), c(0.0)]
            })),
            gaps: Box::new(move |q| {
                vec![
                    q[2] - q[0] - a,
                    q[4] - q[2] - a,
                    q[1] - a / 2.0,
                    q[3] - a / 2.0,
                    q[5] - a / 2.0,
                ]
            }),
            normals: Some(Box::new(move |_| {
                jn.iter().flatten().map(|&x| c(x)).collect()
            })),
            tangents: Some(Box::new(move |_, l| jt[l].iter().map(|&x| c(x)).collect())),
        }),
    )
    .expect("three boxes")
}

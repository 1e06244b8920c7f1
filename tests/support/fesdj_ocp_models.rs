//! The OCPs of spec §6.2 (two discs) and §6.3 (three boxes) with the discretisation and
//! solver settings of [P]'s scripts where our solver has them; shared by the tests and the
//! benchmarks.
#![allow(dead_code)]

use fesdj_mpc::ad::{Scalar, Sx};
use fesdj_mpc::fesdj::ocp::Constraint;
use fesdj_mpc::fesdj::{Bounds, CrossCompMode, FesdjOptions, FrictionModel, Ocp, SolveOptions};

/// The paper's models (`tests/support/fesdj_models.rs`, a sibling module here and in
/// `benches/fesdj.rs`).
pub(crate) use super::fesdj_models as models;

/// ‖x − x_r‖²_W for a diagonal W.
fn weighted(x: &[Sx], r: &[f64], w: &[f64]) -> Sx {
    let mut s = Sx::constant(0.0);
    for ((&xi, &ri), &wi) in x.iter().zip(r).zip(w) {
        if wi != 0.0 {
            s += (xi - ri).sq() * wi;
        }
    }
    s
}

/// §6.2: swap two discs around an obstacle. [P]'s weights (velocity weights 0.01).
pub fn two_discs() -> (Ocp, FesdjOptions, SolveOptions) {
    let xr = [2.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let q = [10.0, 10.0, 10.0, 10.0, 0.01, 0.01, 0.01, 0.01];
    let qt: Vec<f64> = q.iter().map(|w| 100.0 * w).collect();
    let r = [0.1, 0.1];
    let mut ocp = Ocp::new(
        models::two_discs(),
        vec![-2.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    );
    ocp.lagrange = Some(Box::new(move |q_, v_, u_| {
        let x: Vec<Sx> = q_.iter().chain(v_).copied().collect();
        weighted(&x, &xr, &q) + weighted(u_, &[0.0, 0.0], &r)
    }));
    ocp.mayer = Some(Box::new(move |q_, v_| {
        let x: Vec<Sx> = q_.iter().chain(v_).copied().collect();
        weighted(&x, &xr, &qt)
    }));
    ocp.q_bounds = Some(Bounds::symmetric(&[10.0; 4]));
    ocp.v_bounds = Some(Bounds::symmetric(&[5.0; 4]));
    ocp.u_bounds = Some(Bounds::symmetric(&[30.0; 2]));
    // Obstacle: ‖q_i‖² ≥ (r_ob + r_i)², r_ob = 1, at the interval ends (g_path_at_fe = 0).
    ocp.path = Some(Constraint {
        fun: Box::new(|q_, _v, _u| {
            vec![
                q_[0].sq() + q_[1].sq() - 1.3f64.powi(2),
                q_[2].sq() + q_[3].sq() - 1.2f64.powi(2),
            ]
        }),
        bounds: Bounds::new(vec![0.0; 2], vec![f64::INFINITY; 2]),
    });
    let o = FesdjOptions {
        n_s: 2,
        n_intervals: 25,
        n_fe: 2,
        t_final: 4.0,
        gamma_h: 0.995,
        cross_comp_mode: CrossCompMode::FeStage,
        ..FesdjOptions::default()
    };
    let mut s = SolveOptions::default();
    s.solver.sigma0 = 10.0;
    s.solver.kappa = 0.1;
    s.solver.max_homotopy_steps = 15;
    (ocp, o, s)
}

/// §6.3: three boxes, control on the middle box, reference q_r = (−7, 1, 0, 1, 5, 1).
pub fn three_boxes() -> (Ocp, FesdjOptions, SolveOptions) {
    let xr = [-7.0, 1.0, 0.0, 1.0, 5.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let q = [
        10.0, 0.001, 1.0, 0.001, 10.0, 0.001, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
    ];
    let qt: Vec<f64> = q.iter().map(|w| 100.0 * w).collect();
    let mut ocp = Ocp::new(
        models::three_boxes(),
        vec![-3.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    );
    ocp.lagrange = Some(Box::new(move |q_, v_, u_| {
        let x: Vec<Sx> = q_.iter().chain(v_).copied().collect();
        weighted(&x, &xr, &q) + weighted(u_, &[0.0], &[0.1])
    }));
    ocp.mayer = Some(Box::new(move |q_, v_| {
        let x: Vec<Sx> = q_.iter().chain(v_).copied().collect();
        weighted(&x, &xr, &qt)
    }));
    ocp.q_bounds = Some(Bounds::symmetric(&[10.0; 6]));
    ocp.v_bounds = Some(Bounds::symmetric(&[10.0; 6]));
    ocp.u_bounds = Some(Bounds::symmetric(&[30.0]));
    let o = FesdjOptions {
        n_s: 2,
        n_intervals: 15,
        n_fe: 2,
        t_final: 6.0,
        gamma_h: 0.8,
        cross_comp_mode: CrossCompMode::StageStage,
        friction_model: FrictionModel::Polyhedral,
        eps_cls: 0.0,
        ..FesdjOptions::default()
    };
    let mut s = SolveOptions::default();
    s.solver.sigma0 = 1.0;
    s.solver.kappa = 0.2;
    s.solver.max_homotopy_steps = 20;
    (ocp, o, s)
}

/// The three-box script's guess: λ_n = (0, 0, g, g, g) at all stages (§6.3).
pub fn three_boxes_guess(p: &mut fesdj_mpc::fesdj::FesdjProblem) {
    let l = p.layout().clone();
    let g = p.guess_mut();
    for iv in &l.intervals {
        for e in &iv.elements {
            for s in &e.stages {
                for (c, &i) in s.lambda_n.iter().enumerate() {
                    g[i] = if c < 2 { 0.0 } else { 9.81 };
                }
            }
        }
    }
}

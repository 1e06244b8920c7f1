//! Test ladder item 10 (spec §9, §6.1): integration order of FESD-J on the two balls
//! connected by a stiff spring, two impacts in [0, 1].
//!
//! Error E(T) = max_i |x_i(1) − x_i^ref(1)| against the exact reference of §6.1, for step
//! sizes h̄ = T/(N_sim N_FE) with N_FE = 2; the least-squares slope of ln E over ln h̄ must be
//! 2n_s − 1 (Radau IIA) or 2n_s (Gauss–Legendre) within 0.5, and at most 1 for time stepping.
//!
//! Step-size ranges (chosen where each scheme is asymptotic and above the ~1e-9 floor set by
//! the solver tolerance, and so that the whole file runs in well under two minutes on two
//! cores in release):
//!
//! | scheme | N_sim | h̄ |
//! |---|---|---|
//! | Radau IIA 2 | 200, 280, 400 | 2.5e-3 … 1.25e-3 |
//! | Radau IIA 3 | 140, 200, 400 | 3.6e-3 … 1.25e-3 |
//! | Radau IIA 4 | 100, 140, 200 | 5e-3 … 2.5e-3 |
//! | Gauss–Legendre 1 | 400, 560, 800 | 1.25e-3 … 6.25e-4 |
//! | Gauss–Legendre 2 | 200, 280, 400 | 2.5e-3 … 1.25e-3 |
//! | Gauss–Legendre 3 | 100, 140, 200 | 5e-3 … 2.5e-3 |
//! | time stepping | 50, 100, 200 | 1e-2 … 2.5e-3 |
//!
//! Settings as [P]'s experiment (§6.1) where our solver has them: `STAGE_STAGE`,
//! `no_initial_impacts`, heuristic step equilibration, γ_h = 1, ε_c = 1e-3, warm start with
//! the previous step and the retry guess; Scholtes homotopy σ₀ = 1, κ = 0.1, stopped at
//! `max G_i H_i ≤ 1e-13` (N: `comp_tol = sigma_N = 1e-13`). A run with a failed step would be
//! excluded as in [P]; here every run must succeed.
#![allow(clippy::excessive_precision)]

#[path = "fesdj_models/mod.rs"]
mod models;

use fesdj_mpc::fesdj::{
    simulate, Controls, CrossCompMode, FesdjOptions, RkScheme, SimulationOptions,
};

/// §6.1 [spec-computed]: x(1) = (q_1, q_2, v_1, v_2).
const X_REF: [f64; 4] = [
    0.246841886728835,
    1.228210312008501,
    -2.379839521466434,
    -3.114092393623756,
];

fn error(scheme: RkScheme, n_s: usize, use_fesd: bool, n_sim: usize) -> f64 {
    let mut o = SimulationOptions {
        t_sim: 1.0,
        n_sim,
        fesdj: FesdjOptions {
            scheme,
            n_s,
            n_fe: 2,
            use_fesd,
            no_initial_impacts: true,
            cross_comp_mode: CrossCompMode::StageStage,
            ..FesdjOptions::default()
        },
        ..SimulationOptions::default()
    };
    o.solve.solver.comp_tol = 1e-13;
    o.solve.solver.max_homotopy_steps = 20;
    let tr = simulate(
        models::two_balls_spring(),
        &[1.0, 2.0, 0.0, 0.0],
        &Controls::Constant(vec![]),
        &o,
    )
    .expect("simulation");
    let x = [
        tr.final_state.q[0],
        tr.final_state.q[1],
        tr.final_state.v[0],
        tr.final_state.v[1],
    ];
    let e = x
        .iter()
        .zip(X_REF)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    eprintln!(
        "{scheme:?} n_s {n_s} fesd {use_fesd} N_sim {n_sim} h {:.3e}: E {e:.3e}, {} failed, {} \
         retried, {} NLP iterations, {:.2} s",
        0.5 / n_sim as f64,
        tr.failed_steps,
        tr.retried_steps,
        tr.nlp_iterations,
        tr.solve_time_s
    );
    assert_eq!(tr.failed_steps, 0, "{scheme:?} {n_s} N_sim {n_sim}");
    e
}

/// Least-squares slope of ln E over ln h̄.
fn slope(n_sims: &[usize], errors: &[f64]) -> f64 {
    let xs: Vec<f64> = n_sims.iter().map(|&n| (0.5 / n as f64).ln()).collect();
    let ys: Vec<f64> = errors.iter().map(|e| e.ln()).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    sxy / sxx
}

fn check_order(scheme: RkScheme, n_s: usize, n_sims: &[usize], order: f64) {
    let errors: Vec<f64> = n_sims
        .iter()
        .map(|&n| error(scheme, n_s, true, n))
        .collect();
    let p = slope(n_sims, &errors);
    eprintln!("{scheme:?} n_s = {n_s}: fitted slope {p:.3} (expected {order})");
    assert!(
        (p - order).abs() <= 0.5,
        "{scheme:?} n_s = {n_s}: slope {p:.3}, expected {order}"
    );
}

#[test]
fn radau_iia_2_is_third_order() {
    check_order(RkScheme::RadauIia, 2, &[200, 280, 400], 3.0);
}

#[test]
fn radau_iia_3_is_fifth_order() {
    check_order(RkScheme::RadauIia, 3, &[140, 200, 400], 5.0);
}

#[test]
fn radau_iia_4_is_seventh_order() {
    check_order(RkScheme::RadauIia, 4, &[100, 140, 200], 7.0);
}

#[test]
fn gauss_legendre_1_is_second_order() {
    check_order(RkScheme::GaussLegendre, 1, &[400, 560, 800], 2.0);
}

#[test]
fn gauss_legendre_2_is_fourth_order() {
    check_order(RkScheme::GaussLegendre, 2, &[200, 280, 400], 4.0);
}

#[test]
fn gauss_legendre_3_is_sixth_order() {
    check_order(RkScheme::GaussLegendre, 3, &[100, 140, 200], 6.0);
}

/// Time stepping (§4.7, implicit Euler without impulse equations) stays at order ≤ 1; its
/// error is O(1) over the whole range ([P] Fig. 6).
#[test]
fn time_stepping_is_at_most_first_order() {
    let n_sims = [50, 100, 200];
    let errors: Vec<f64> = n_sims
        .iter()
        .map(|&n| error(RkScheme::RadauIia, 1, false, n))
        .collect();
    let p = slope(&n_sims, &errors);
    eprintln!("time stepping: fitted slope {p:.3}");
    assert!(p <= 1.0, "time stepping slope {p:.3}");
    assert!(
        errors.iter().all(|&e| e > 0.1),
        "time stepping errors stay O(1): {errors:?}"
    );
}

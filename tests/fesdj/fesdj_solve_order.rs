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

use crate::support::fesdj_common as common;

use common::{check_spring_order, spring_error, spring_slope};
use fesdj_mpc::fesdj::RkScheme;

/// Elements per step of every run here.
const N_FE: usize = 2;

#[test]
fn radau_iia_2_is_third_order() {
    check_spring_order(RkScheme::RadauIia, 2, N_FE, &[200, 280, 400], 3.0);
}

#[test]
fn radau_iia_3_is_fifth_order() {
    check_spring_order(RkScheme::RadauIia, 3, N_FE, &[140, 200, 400], 5.0);
}

#[test]
fn radau_iia_4_is_seventh_order() {
    check_spring_order(RkScheme::RadauIia, 4, N_FE, &[100, 140, 200], 7.0);
}

#[test]
fn gauss_legendre_1_is_second_order() {
    check_spring_order(RkScheme::GaussLegendre, 1, N_FE, &[400, 560, 800], 2.0);
}

#[test]
fn gauss_legendre_2_is_fourth_order() {
    check_spring_order(RkScheme::GaussLegendre, 2, N_FE, &[200, 280, 400], 4.0);
}

#[test]
fn gauss_legendre_3_is_sixth_order() {
    check_spring_order(RkScheme::GaussLegendre, 3, N_FE, &[100, 140, 200], 6.0);
}

/// Time stepping (§4.7, implicit Euler without impulse equations) stays at order ≤ 1; its
/// error is O(1) over the whole range ([P] Fig. 6).
#[test]
fn time_stepping_is_at_most_first_order() {
    let n_sims = [50, 100, 200];
    let errors: Vec<f64> = n_sims
        .iter()
        .map(|&n| spring_error(RkScheme::RadauIia, 1, N_FE, false, n))
        .collect();
    let p = spring_slope(&n_sims, &errors);
    eprintln!("time stepping: fitted slope {p:.3}");
    assert!(p <= 1.0, "time stepping slope {p:.3}");
    assert!(
        errors.iter().all(|&e| e > 0.1),
        "time stepping errors stay O(1): {errors:?}"
    );
}

//! `HomotopySettings::warm_iteration_budget`: the first relaxed NLP of a warm start stops at the
//! first iterate after the budget that is feasible and complementary (status `FeasibleBudget`).
//!
//! The problem of `solver_warm_active_set` (hand-solved there): after a cold solve at
//! (p, q) = (0.3, 0), a warm solve at (0.4, 0) stays on the branch `a = b = 0, y = 1` whose
//! minimiser has f = 0.32; the other branch (`y = 0`) has f ≥ 1. So no feasible,
//! complementary point has f below 0.32, and the budget's point lies between that and the warm
//! start's value.

use fesdj_mpc::solver::{HomotopySettings, MpccResult, Status};

use super::solver_warm_active_set::warm_after_cold_with;

fn warm(budget: usize) -> MpccResult {
    let settings = HomotopySettings {
        sigma0: 1e-7,
        comp_tol: 1e-6,
        warm_iteration_budget: budget,
        ..HomotopySettings::default()
    };
    let (cold, out) =
        warm_after_cold_with(HomotopySettings::default(), settings, false, [0.4, 0.0]);
    assert_eq!(cold.status, Status::Solved);
    out
}

#[test]
fn the_budget_stops_at_a_feasible_complementary_iterate() {
    let full = warm(0);
    assert_eq!(full.status, Status::Solved);
    // The relaxed NLP's point (G·H ≤ σ = 1e-7) lies within ~1e-7 of the optimum.
    assert!(
        (full.objective - 0.32).abs() < 1e-6,
        "f = {}",
        full.objective
    );
    let n_full = full.steps[0].iterations;
    assert!(
        n_full >= 3,
        "the plain warm solve takes {n_full} iterations"
    );

    let out = warm(1);
    assert_eq!(out.status, Status::FeasibleBudget);
    assert_eq!(out.steps.len(), 1, "one NLP, no polishing: {:?}", out.steps);
    assert_eq!(out.steps[0].status, Status::FeasibleBudget);
    let n = out.steps[0].iterations;
    assert!(n >= 1 && n < n_full, "{n} iterations against {n_full}");
    // Feasible and complementary to the solver's tolerances, so not better than the optimum
    // (up to the O(comp_tol) slack the tolerance leaves).
    let s = HomotopySettings::default();
    assert!(out.max_constraint_violation <= s.ipm.constr_viol_tol);
    assert!(
        out.comp_residual <= 1e-6,
        "min(G, H) = {}",
        out.comp_residual
    );
    assert!(out.objective >= 0.32 - 1e-5, "f = {}", out.objective);
    let y = out.x[2];
    assert!(y > 0.5, "still on the branch y = 1: y = {y}");
}

#[test]
fn a_budget_the_solve_does_not_reach_changes_nothing() {
    let full = warm(0);
    let out = warm(full.steps[0].iterations + 5);
    assert_eq!(out.status, Status::Solved);
    assert_eq!(out.x, full.x);
    assert_eq!(out.nlp_iterations, full.nlp_iterations);
}

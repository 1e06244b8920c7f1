//! The primal-dual warm start of `FesdjProblem` (`set_warm_duals`, what the MPC uses): from the
//! converged solution itself, in place, the homotopy's first NLP starts at a KKT point and must
//! stop almost at once on the same solution; from the shifted solution after the plant moved,
//! it must reach the same optimum as a cold solve of that tick.

#[path = "mpc_common/mod.rs"]
mod common;

use fesdj_mpc::fesdj::{FesdjProblem, Simulator, SolveOptions, Start};

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// The controller's problem with the real-time tolerances of config/sliding_block_mpc.yaml
/// (IPM 1e-6, homotopy max G·H ≤ 1e-7).
fn problem() -> FesdjProblem {
    let mut p = common::problem();
    let mut s = p.solver_settings().clone();
    s.ipm.tol = 1e-6;
    s.comp_tol = 1e-7;
    p.set_solver_settings(s).unwrap();
    p
}

fn state_after_one_tick(p: &FesdjProblem, x0: &[f64]) -> Vec<f64> {
    let w = p.solution().expect("solution");
    let u = [w[p.layout().u(0)[0]]];
    let mut plant = Simulator::new(
        common::block(),
        0.1,
        &common::fesdj_options(1, 0.1),
        SolveOptions::default(),
    )
    .expect("plant");
    plant.step(x0, &u).expect("plant step");
    plant.state().to_vec()
}

#[test]
fn warm_start_from_the_solution_stops_at_once_on_it() {
    let mut p = problem();
    let x0 = [0.0; 4];
    p.set_initial_state(&x0).unwrap();
    let cold = p.solve_only(Start::Guess).unwrap();
    assert!(cold.status.is_success(), "{cold:?}");
    let w_cold = p.solution().unwrap().to_vec();

    p.set_warm_duals(true);
    p.set_sigma0(1e-7).unwrap();
    let warm = p.solve_only(Start::Previous).unwrap();
    assert!(warm.status.is_success(), "{warm:?}");
    assert!(
        warm.nlp_iterations <= 3,
        "a primal-dual start at the solution took {} IPM iterations",
        warm.nlp_iterations
    );
    // The controls (the plan the MPC applies) stay; algebraic variables along degenerate
    // directions (biactive pairs, free step sizes) may move within the tolerance.
    let w = p.solution().unwrap();
    let l = p.layout();
    let idx: Vec<usize> = (0..l.n_intervals()).flat_map(|k| l.u(k).to_vec()).collect();
    let pick = |w: &[f64]| idx.iter().map(|&i| w[i]).collect::<Vec<f64>>();
    let d = max_diff(&pick(&w_cold), &pick(w));
    assert!(d < 1e-6 * 20.0, "controls moved by {d}");
    assert!((warm.objective - cold.objective).abs() <= 1e-8 * (1.0 + cold.objective.abs()));
}

#[test]
fn shifted_primal_dual_start_reaches_the_cold_optimum() {
    let x0 = [0.0; 4];
    // Tick 0 (cold), then the plant moves by one interval under the first control.
    let mut warm = problem();
    warm.set_initial_state(&x0).unwrap();
    assert!(warm.solve_only(Start::Guess).unwrap().status.is_success());
    let x1 = state_after_one_tick(&warm, &x0);

    warm.set_warm_duals(true);
    warm.set_sigma0(1e-6).unwrap();
    warm.set_initial_state(&x1).unwrap();
    let ws = warm.solve_only(Start::Shifted).unwrap();
    assert!(ws.status.is_success(), "{ws:?}");

    let mut cold = problem();
    cold.set_initial_state(&x1).unwrap();
    let cs = cold.solve_only(Start::Guess).unwrap();
    assert!(cs.status.is_success(), "{cs:?}");

    // Same optimum: objective, and the first control (what the MPC applies) within 2 % (the
    // homotopies stop at different points of the 1e-6 tolerance on a degenerate MPCC).
    let rel = (ws.objective - cs.objective).abs() / cs.objective.abs().max(1e-12);
    assert!(
        rel < 1e-3,
        "objective warm {} cold {}",
        ws.objective,
        cs.objective
    );
    let iu = warm.layout().u(0)[0];
    let (uw, uc) = (warm.solution().unwrap()[iu], cold.solution().unwrap()[iu]);
    assert!((uw - uc).abs() < 2e-2 * uc.abs(), "u0 warm {uw} cold {uc}");
    assert!(
        ws.nlp_iterations < cs.nlp_iterations,
        "warm {} IPM iterations, cold {}",
        ws.nlp_iterations,
        cs.nlp_iterations
    );
}

//! The primal-dual warm start of `FesdjProblem` (`set_warm_duals`, what the MPC uses): from the
//! converged solution itself, in place, the homotopy's first NLP starts at a KKT point and must
//! stop almost at once on the same solution; from the shifted solution after the plant moved,
//! it must reach the same optimum as a cold solve of that tick.

use crate::support::sliding_block as common;

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

/// The block's exact motion over `t` from `(x, v)` under a constant push `u` on the ground
/// (unit mass, normal force g, Coulomb friction μ): slide against friction, stop and stick if
/// |u| ≤ μ g, or keep accelerating.
fn block_motion(x: f64, v: f64, u: f64, t: f64) -> (f64, f64) {
    let (g, mu) = (common::G, common::MU);
    let stick = |x: f64, left: f64| -> (f64, f64) {
        if u.abs() <= mu * g {
            (x, 0.0)
        } else {
            let a = u - mu * g * u.signum();
            (x + 0.5 * a * left * left, a * left)
        }
    };
    if v == 0.0 {
        return stick(x, t);
    }
    let a = u - mu * g * v.signum();
    let t_stop = if a * v < 0.0 { -v / a } else { f64::INFINITY };
    if t_stop >= t {
        (x + v * t + 0.5 * a * t * t, v + a * t)
    } else {
        stick(x + v * t_stop + 0.5 * a * t_stop * t_stop, t - t_stop)
    }
}

/// The tail simulator of the controller: one 0.1 s interval of the controller's structure.
fn tail_simulator(n_fe: usize) -> Simulator {
    let options = fesdj_mpc::fesdj::FesdjOptions {
        n_fe,
        ..common::fesdj_options(1, 0.1)
    };
    Simulator::new(common::block(), 0.1, &options, SolveOptions::default()).expect("tail")
}

#[test]
fn the_tail_is_the_exact_motion_after_the_plan() {
    for x0 in [[0.0, 0.0, 0.0, 0.0], [0.3, 0.0, 1.5, 0.0]] {
        let mut ctrl = common::controller(common::settings());
        ctrl.set_tail_simulator(tail_simulator(2)).unwrap();
        ctrl.set_state(0.0, &x0[..2], &x0[2..]).unwrap();
        let plan = ctrl.solve(std::time::Duration::from_secs(30)).unwrap();
        assert_eq!(plan.source, fesdj_mpc::mpc::PlanSource::Fresh, "{x0:?}");
        let last = plan.n_points() - 1;
        let (x, v) = (plan.q_at(last)[0], plan.v_at(last)[0]);
        let u = plan.u[plan.u.len() - 1];
        let end = ctrl.tail_state().expect("tail simulated");
        let (xe, ve) = block_motion(x, v, u, 0.1);
        eprintln!("from x {x} v {v} under u {u}: tail {end:?}, exact ({xe}, {ve})");
        // A stop earlier than the shortest element ((1 − γ_h) h̄ = 25 ms) cannot be placed on
        // the grid: the discrete block sticks from the first stage on, and since Radau IIA
        // moves q by the stage velocities only, x misses the exact stopping distance
        // v²/(2 μ g) at most.
        let stop = if u.abs() <= common::MU * common::G && v.abs() < 0.025 * common::MU * common::G
        {
            v * v / (2.0 * common::MU * common::G)
        } else {
            0.0
        };
        assert!((end[0] - xe).abs() < 1e-6 + stop, "x {} exact {xe}", end[0]);
        assert!((end[2] - ve).abs() < 1e-6, "v {} exact {ve}", end[2]);
        assert!(end[1].abs() < 1e-6 && end[3].abs() < 1e-6, "{end:?}");
        assert!(ctrl.last_tail_stats().unwrap().status.is_success());
    }
}

#[test]
fn a_tail_simulator_of_another_structure_is_refused() {
    let mut ctrl = common::controller(common::settings());
    let e = ctrl.set_tail_simulator(tail_simulator(3)).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("tail_simulation") && m.contains("variables"),
        "{m}"
    );
    let long = Simulator::new(
        common::block(),
        0.2,
        &common::fesdj_options(1, 0.2),
        SolveOptions::default(),
    )
    .unwrap();
    let m = ctrl.set_tail_simulator(long).unwrap_err().to_string();
    assert!(m.contains("control interval"), "{m}");
}

#[test]
fn shifted_start_with_a_simulated_tail_reaches_the_cold_optimum() {
    let x0 = [0.0; 4];
    let mut warm = problem();
    warm.set_initial_state(&x0).unwrap();
    assert!(warm.solve_only(Start::Guess).unwrap().status.is_success());
    let x1 = state_after_one_tick(&warm, &x0);
    // The tail: one interval from the plan's final state under its last control.
    let w = warm.solution().unwrap().to_vec();
    let (xq, xv) = warm.layout().final_state();
    let xn: Vec<f64> = xq.iter().chain(xv).map(|&i| w[i]).collect();
    let u_last = [w[warm.layout().u(4)[0]]];
    let mut sim = tail_simulator(2);
    assert!(sim.step(&xn, &u_last).unwrap().stats.status.is_success());
    let sp = sim.problem();
    let sw = sp.solution().unwrap().to_vec();
    let tail: Vec<f64> = sp.interval_variables(0).iter().map(|&i| sw[i]).collect();
    assert_eq!(tail.len(), warm.interval_variables(4).len());

    warm.set_warm_duals(true);
    warm.set_sigma0(1e-6).unwrap();
    warm.set_initial_state(&x1).unwrap();
    let ws = warm.solve_only(Start::ShiftedTail(&tail)).unwrap();
    assert!(ws.status.is_success(), "{ws:?}");
    let mut cold = problem();
    cold.set_initial_state(&x1).unwrap();
    let cs = cold.solve_only(Start::Guess).unwrap();
    assert!(cs.status.is_success(), "{cs:?}");
    let rel = (ws.objective - cs.objective).abs() / cs.objective.abs().max(1e-12);
    assert!(
        rel < 1e-3,
        "objective warm {} cold {}",
        ws.objective,
        cs.objective
    );
    // A wrong length is an error naming the start, not a panic.
    let e = warm.solve_only(Start::ShiftedTail(&tail[1..])).unwrap_err();
    assert!(e.to_string().contains("last-interval"), "{e}");
}

//! Closed-loop MPC against the FESD-J simulator as plant: a block pushed across frictional
//! ground to a target; deadline misses go to the fallback law; bad states are rejected.

use crate::support::sliding_block as common;

use common::*;
use fesdj_mpc::fesdj::{Simulator, SolveOptions};
use fesdj_mpc::mpc::{
    run_closed_loop, ClosedLoopOptions, ControllerSettings, Fallback, PlanSource,
};
use std::time::Duration;

fn plant() -> Simulator {
    Simulator::new(
        block(),
        0.1,
        &fesdj_options(1, 0.1),
        SolveOptions::default(),
    )
    .expect("plant")
}

#[test]
fn block_reaches_the_target_and_stops() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = controller(settings());
    let mut sim = plant();
    let log = run_closed_loop(
        &mut ctrl,
        &mut sim,
        &[0.0, 0.0, 0.0, 0.0],
        &ClosedLoopOptions {
            steps: 30,
            budget_s: 5.0,
            startup_budget_s: None,
            noise_std: Vec::new(),
            seed: 1,
        },
    )
    .expect("closed loop");
    let x = &log.final_state;
    eprintln!("final state {x:?}, summary {:?}", log.summary);
    assert!((x[0] - TARGET).abs() < 0.02, "x = {}", x[0]);
    assert!(x[2].abs() < 0.05, "vx = {}", x[2]);
    assert!(
        x[1].abs() < 1e-6,
        "the block stays on the ground: y = {}",
        x[1]
    );
    let c = log.summary.counters;
    assert!(c.verified as f64 >= 0.9 * c.solves as f64, "{c:?}");
    assert_eq!(log.summary.plant_failures, 0);
    // While sliding, the applied force exceeds the friction bound μ m g somewhere.
    assert!(log.ticks.iter().any(|t| t.u[0].abs() > MU * G));
    // Efforts respect the limit.
    assert!(log.ticks.iter().all(|t| t.u[0].abs() <= U_MAX + 1e-9));
}

/// `startup_budget_s`: one solve at the initial state before the first tick, logged apart
/// from the ticks; tick 0 then starts warm from its plan (one cold start in the whole run),
/// and the block still reaches the target. A bad budget is an error naming the field.
#[test]
fn startup_solve_runs_before_the_first_tick() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = controller(settings());
    let mut sim = plant();
    let options = ClosedLoopOptions {
        steps: 30,
        budget_s: 5.0,
        startup_budget_s: Some(5.0),
        noise_std: Vec::new(),
        seed: 1,
    };
    let log =
        run_closed_loop(&mut ctrl, &mut sim, &[0.0, 0.0, 0.0, 0.0], &options).expect("closed loop");
    let startup = log.startup.as_ref().expect("start-up solve logged");
    assert_eq!(startup.source, PlanSource::Fresh, "{startup:?}");
    assert!(startup.nlp_iterations > 0 && startup.solve_time_s > 0.0);
    assert_eq!(log.ticks.len(), 30);
    let c = log.summary.counters;
    assert_eq!(c.solves, 31, "{c:?}");
    assert_eq!(c.cold_starts, 1, "only the start-up solve is cold: {c:?}");
    assert!(
        (log.final_state[0] - TARGET).abs() < 0.02,
        "{:?}",
        log.final_state
    );
    // Tick 0 re-solves the start-up problem from its solution: far fewer iterations.
    assert!(
        log.ticks[0].nlp_iterations < startup.nlp_iterations,
        "tick 0: {} iterations, start-up {}",
        log.ticks[0].nlp_iterations,
        startup.nlp_iterations
    );

    let mut ctrl = controller(settings());
    let bad = ClosedLoopOptions {
        startup_budget_s: Some(f64::NAN),
        ..options
    };
    let err = run_closed_loop(&mut ctrl, &mut plant(), &[0.0, 0.0, 0.0, 0.0], &bad)
        .expect_err("NaN start-up budget");
    assert!(err.to_string().contains("startup_budget_s"), "{err}");
}

#[test]
fn noisy_measurements_still_converge() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = controller(settings());
    let mut sim = plant();
    let log = run_closed_loop(
        &mut ctrl,
        &mut sim,
        &[0.0, 0.0, 0.0, 0.0],
        &ClosedLoopOptions {
            steps: 30,
            budget_s: 5.0,
            startup_budget_s: None,
            noise_std: vec![1e-3, 0.0, 1e-3, 0.0],
            seed: 7,
        },
    )
    .expect("closed loop");
    assert!(
        (log.final_state[0] - TARGET).abs() < 0.03,
        "{:?}",
        log.final_state
    );
}

#[test]
fn missed_deadline_goes_to_the_fallback_and_recovers() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = controller(ControllerSettings {
        fallback: Fallback::Damping { kd: 2.0 },
        ..settings()
    });
    ctrl.set_state(0.0, &[0.0, 0.0], &[1.0, 0.0]).unwrap();
    let plan = ctrl.solve(Duration::from_nanos(1)).unwrap();
    assert_eq!(plan.source, PlanSource::Fallback);
    // Damping on the actuated coordinate: u = −k_d v_x.
    assert_eq!(ctrl.control(0.0), &[-2.0]);
    assert_eq!(ctrl.counters().deadline_misses, 1);
    // With time, a cold start succeeds and a fresh plan is in charge.
    ctrl.set_state(0.1, &[0.1, 0.0], &[1.0, 0.0]).unwrap();
    let plan = ctrl.solve(Duration::from_secs(5)).unwrap();
    assert_eq!(plan.source, PlanSource::Fresh);
    assert!(plan.comp_residual <= 1e-6);
    let u = ctrl.control(0.1)[0];
    assert!(u.is_finite() && u.abs() <= U_MAX);
    // A failed solve now keeps the previous plan within its horizon.
    ctrl.set_state(0.15, &[0.15, 0.0], &[1.0, 0.0]).unwrap();
    let plan = ctrl.solve(Duration::from_nanos(1)).unwrap();
    assert_eq!(plan.source, PlanSource::Previous);
    assert_eq!(
        ctrl.control(0.15)[0],
        u,
        "still the first interval of the previous plan"
    );
    // Past the previous plan's horizon (0.1 + 0.5 s) the fallback takes over.
    ctrl.set_state(0.7, &[0.5, 0.0], &[0.5, 0.0]).unwrap();
    let plan = ctrl.solve(Duration::from_nanos(1)).unwrap();
    assert_eq!(plan.source, PlanSource::Fallback);
    assert_eq!(ctrl.control(0.7), &[-1.0]);
}

#[test]
fn bad_states_are_rejected_and_change_nothing() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = controller(settings());
    assert!(ctrl.solve(Duration::from_secs(1)).is_err(), "no state yet");
    ctrl.set_state(0.0, &[0.0, 0.0], &[0.0, 0.0]).unwrap();
    let e = ctrl
        .set_state(0.1, &[f64::NAN, 0.0], &[0.0, 0.0])
        .unwrap_err();
    assert!(e.to_string().contains("q[0]"), "{e}");
    let e = ctrl.set_state(0.1, &[0.0], &[0.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("expected 2"), "{e}");
    let e = ctrl
        .set_state(0.1, &[0.0, 0.0], &[0.0, f64::INFINITY])
        .unwrap_err();
    assert!(e.to_string().contains("v[1]"), "{e}");
    ctrl.set_state(0.2, &[0.0, 0.0], &[0.0, 0.0]).unwrap();
    let e = ctrl.set_state(0.1, &[0.0, 0.0], &[0.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("out of order"), "{e}");
    let e = ctrl.set_reference(&[f64::NAN]).unwrap_err();
    assert!(e.to_string().contains("reference[0]"), "{e}");
    // Settings are validated.
    let bad = ControllerSettings {
        actuated: vec![5],
        ..settings()
    };
    assert!(bad.validate(2, 1).is_err());
}

#[test]
fn after_a_failure_warm_retries_restart_from_the_last_verified_plan() {
    let _turn = crate::support::serial::file(module_path!());
    // Tick 0 plans from x = 0 at 1 m/s; tick 0.1 fails (deadline); at tick 0.2 the block is
    // where the tick-0 plan predicted (point 4 = end of interval 2 with N_FE = 2), and the
    // solve starts warm from that plan shifted twice — or cold without retries.
    let run = |warm_retries: usize| {
        let mut ctrl = controller(ControllerSettings {
            warm_retries,
            ..settings()
        });
        ctrl.set_state(0.0, &[0.0, 0.0], &[1.0, 0.0]).unwrap();
        let plan = ctrl.solve(Duration::from_secs(5)).unwrap();
        assert_eq!(plan.source, PlanSource::Fresh);
        assert!((plan.t_u[2] - 0.2).abs() < 1e-12 && plan.times[4] == plan.t_u[2]);
        let (q2, v2) = (plan.q_at(4).to_vec(), plan.v_at(4).to_vec());
        ctrl.set_state(0.1, &[0.1, 0.0], &[1.0, 0.0]).unwrap();
        assert_eq!(
            ctrl.solve(Duration::from_nanos(1)).unwrap().source,
            PlanSource::Previous
        );
        ctrl.set_state(0.2, &q2, &v2).unwrap();
        let plan = ctrl.solve(Duration::from_secs(5)).unwrap();
        assert_eq!(plan.source, PlanSource::Fresh);
        let its = plan.nlp_iterations;
        let objective = ctrl
            .problem()
            .last_stats()
            .map_or(f64::NAN, |s| s.objective);
        (objective, its, ctrl.counters().cold_starts)
    };
    let (f_cold, its_cold, cold_starts) = run(0);
    assert_eq!(
        cold_starts, 2,
        "without retries the solve after a failure is cold"
    );
    let (f_warm, its_warm, cold_starts) = run(2);
    assert_eq!(cold_starts, 1, "with retries it is warm");
    // A local optimum of the same problem near the cold start's (an MPCC: the warm path at
    // σ₀ = 1e-6 skips the homotopy's smoothing and measured 0.0363 against the cold 0.0337),
    // in fewer IPM iterations.
    assert!(
        (f_warm - f_cold).abs() <= 0.1 * f_cold.abs(),
        "objective warm {f_warm} cold {f_cold}"
    );
    assert!(its_warm < its_cold, "warm {its_warm} cold {its_cold}");
}

#[test]
fn without_a_fresh_state_the_fallback_law_ignores_the_stale_velocity() {
    let _turn = crate::support::serial::file(module_path!());
    // Damping: zero command (a stale velocity is not damped against); hold position: the PD
    // pull from the last position to the held posture (the state before any plan), clamped.
    let mut ctrl = controller(ControllerSettings {
        fallback: Fallback::Damping { kd: 2.0 },
        ..settings()
    });
    assert!(ctrl.stale_command().is_none(), "no state yet");
    ctrl.set_state(0.0, &[0.1, 0.0], &[1.0, 0.0]).unwrap();
    assert_eq!(ctrl.stale_command(), Some(&[0.0][..]));
    assert_eq!(ctrl.control(0.0), &[-2.0], "with the measured velocity");

    let mut ctrl = controller(ControllerSettings {
        fallback: Fallback::HoldPosition { kp: 10.0, kd: 2.0 },
        ..settings()
    });
    ctrl.set_state(0.0, &[0.1, 0.0], &[1.0, 0.0]).unwrap();
    ctrl.reset(); // holds the present posture x = 0.1
    ctrl.set_state(0.1, &[0.15, 0.0], &[1.0, 0.0]).unwrap();
    let u = ctrl.stale_command().unwrap()[0];
    assert!((u - 10.0 * (0.1 - 0.15)).abs() < 1e-12, "{u}");
}

/// The block run of `block_reaches_the_target_and_stops` with the solver's `warm_active_set`
/// on or off (formulation §4.8).
fn block_run(active_set: bool) -> fesdj_mpc::mpc::ClosedLoopLog {
    let mut p = mpc_problem();
    let mut s = p.solver_settings().clone();
    s.warm_active_set = active_set;
    p.set_solver_settings(s).expect("settings");
    let mut ctrl = fesdj_mpc::mpc::Controller::new(p, 1, 1, settings()).expect("controller");
    let mut sim = plant();
    run_closed_loop(
        &mut ctrl,
        &mut sim,
        &[0.0, 0.0, 0.0, 0.0],
        &ClosedLoopOptions {
            steps: 30,
            budget_s: 5.0,
            startup_budget_s: None,
            noise_std: Vec::new(),
            seed: 1,
        },
    )
    .expect("closed loop")
}

#[test]
fn warm_active_set_reaches_the_target_in_fewer_iterations() {
    let _turn = crate::support::serial::file(module_path!());
    let (on, off) = (block_run(true), block_run(false));
    let warm_iterations = |log: &fesdj_mpc::mpc::ClosedLoopLog| -> usize {
        log.ticks[1..].iter().map(|t| t.nlp_iterations).sum()
    };
    // Ticks whose solve ended in the active-set NLP (recorded at σ = 0, no homotopy step).
    let by_active_set = on
        .ticks
        .iter()
        .filter(|t| {
            !t.homotopy.is_empty()
                && t.homotopy.iter().all(|s| s.sigma == 0.0)
                && t.homotopy.last().is_some_and(|s| s.status.is_success())
        })
        .count();
    eprintln!(
        "warm IPM iterations: active set {} (ticks ended by it: {by_active_set} of {}), homotopy {}",
        warm_iterations(&on),
        on.ticks.len(),
        warm_iterations(&off)
    );
    for log in [&on, &off] {
        let x = &log.final_state;
        assert!((x[0] - TARGET).abs() < 0.02, "x = {}", x[0]);
        assert!(x[2].abs() < 0.05, "vx = {}", x[2]);
        let c = log.summary.counters;
        assert!(c.verified as f64 >= 0.9 * c.solves as f64, "{c:?}");
    }
    assert!(by_active_set * 2 >= on.ticks.len(), "{by_active_set} ticks");
    assert!(warm_iterations(&on) < warm_iterations(&off));
}

//! A control tick (set_state, solve, control) after warm-up performs no heap allocation: the
//! controller's plans, the FESD-J problem and the MPCC homotopy reuse buffers sized once, and a
//! periodic reference is written into the parameters in place.

use crate::counting_alloc as alloc_common;

use crate::support::sliding_block as common;

use std::time::Duration;

#[test]
fn control_ticks_do_not_allocate() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = common::controller(common::settings());
    let wave = fesdj_mpc::mpc::PeriodicReference::new(
        0.8,
        vec![0.0, 0.4],
        vec![vec![0.2, 0.0, 0.0, 0.0], vec![0.6, 0.0, 0.0, 0.0]],
    )
    .unwrap();
    ctrl.set_periodic_reference(wave, true).unwrap();
    let mut plant = fesdj_mpc::fesdj::Simulator::new(
        common::block(),
        0.1,
        &common::fesdj_options(1, 0.1),
        fesdj_mpc::fesdj::SolveOptions::default(),
    )
    .unwrap();
    let deadline = Duration::from_secs(5);
    let mut x = vec![0.0; 4];
    let mut u = [0.0];
    let mut counted = 0;
    let mut fresh = 0;
    for k in 0..8 {
        let t = 0.1 * k as f64;
        // Count the controller's tick only (the plant and the bookkeeping are outside).
        let before = alloc_common::allocations();
        ctrl.set_state(t, &x[..2], &x[2..]).unwrap();
        let source = ctrl.solve(deadline).unwrap().source;
        u[0] = ctrl.control(t)[0];
        let n = alloc_common::allocations() - before;
        // Warm-up: the cold start and the first warm starts size every buffer.
        if k >= 3 {
            counted += n;
            fresh += usize::from(source == fesdj_mpc::mpc::PlanSource::Fresh);
        }
        plant.step(&x, &u).unwrap();
        x.copy_from_slice(plant.state());
    }
    assert_eq!(fresh, 5, "every counted tick solved");
    assert_eq!(counted, 0, "heap allocations in 5 control ticks");
}

/// The quadruped's controller with a gait library and a base velocity command (issue 27):
/// the blended gait and the command's arc are written into the parameters in place, and the
/// gait's stance pattern into the imposed sides (`gait_schedule_from`), of the solve and of
/// the tail simulation.
#[test]
fn gait_library_ticks_do_not_allocate() {
    let _turn = crate::support::serial::file(module_path!());
    let sets = [
        "mpc.gait_library=quadruped_gaits.json",
        "mpc.base_velocity=[0.15, 0, 0.1]",
        "mpc.gait_schedule_from=1",
        "mpc.tail_simulation=true",
    ];
    let (mut controller, mut plant, x0) = closed_loop("config/quadruped_mpc.yaml", &sets);
    let n_q = x0.len() / 2;
    let mut x = x0.clone();
    let deadline = Duration::from_secs(30);
    let mut counted = 0;
    let mut fresh = 0;
    for k in 0..7 {
        let t = 0.05 * k as f64;
        let before = alloc_common::allocations();
        controller.set_state(t, &x[..n_q], &x[n_q..]).unwrap();
        let source = controller.solve(deadline).unwrap().source;
        let u = controller.control(t);
        let n = alloc_common::allocations() - before;
        if k >= 3 {
            counted += n;
            fresh += usize::from(source == fesdj_mpc::mpc::PlanSource::Fresh);
        }
        let u = u.to_vec();
        plant.step(&x, &u).unwrap();
        x.copy_from_slice(plant.state());
    }
    assert_eq!(fresh, 4, "every counted tick solved");
    assert_eq!(counted, 0, "heap allocations in 4 control ticks");
}

/// Control ticks of a controller with a backup (`mpc.backup`: the hopper's time stepping under
/// a FESD-J controller) allocate nothing: the backup's solve, the seeded start of the primary
/// (after a reset, written into a buffer sized when the backup was set) and the primary's warm solves.
#[test]
fn ticks_with_a_backup_controller_do_not_allocate() {
    let _turn = crate::support::serial::file(module_path!());
    let sets = [
        "fesdj.use_fesd=true",
        "fesdj.n_fe=2",
        "solver.relaxation=scholtes",
        "solver.stop_measure=product",
        "mpc.warm_sigma0=1e-6",
        "mpc.warm_retries=10",
        "solver.warm_fallback_sigma0=1e-2",
        "solver.warm_first_max_iter=60",
        "mpc.backup={fesdj: {use_fesd: false, n_fe: 1}, solver: {relaxation: l1_penalty, \
         warm_fallback_sigma0: 0, warm_first_max_iter: 0}, mpc: {warm_sigma0: 1.0e-2}}",
    ];
    let (mut controller, mut plant, x0) = closed_loop("config/hopper_mpc.yaml", &sets);
    let n_q = x0.len() / 2;
    let mut x = x0.clone();
    let deadline = Duration::from_secs(30);
    let mut counted = 0;
    for k in 0..6 {
        let t = 0.05 * k as f64;
        let before = alloc_common::allocations();
        if k == 3 {
            // Forget the primary's plan: the next tick starts it from the backup's (seeded).
            controller.reset();
        }
        controller.set_state(t, &x[..n_q], &x[n_q..]).unwrap();
        let source = controller.solve(deadline).unwrap().source;
        let u = controller.control(t);
        let n = alloc_common::allocations() - before;
        assert_eq!(source, fesdj_mpc::mpc::PlanSource::Fresh, "tick {k}");
        // Tick 0 sizes the solvers' lazily built buffers, as in the tests above.
        if k >= 1 {
            counted += n;
        }
        let u = u.to_vec();
        plant.step(&x, &u).unwrap();
        x.copy_from_slice(plant.state());
    }
    assert!(
        controller.counters().seeded_starts >= 1,
        "a seeded start after the reset"
    );
    assert_eq!(counted, 0, "heap allocations in 5 control ticks");
}

/// The controller, the plant and the initial state of a shipped problem file with `sets`.
fn closed_loop(
    config: &str,
    sets: &[&str],
) -> (
    fesdj_mpc::mpc::Controller,
    fesdj_mpc::fesdj::Simulator,
    Vec<f64>,
) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let problem = fesdj_mpc::config::Problem::load(&root.join(config), &sets).unwrap();
    let x0 = problem.x0();
    let cl = fesdj_mpc::app::build_closed_loop(problem).unwrap();
    (cl.controller, cl.plant, x0)
}

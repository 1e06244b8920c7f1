//! `ocp.x_ref_period`: a periodic reference (waypoints repeated with a period) that the
//! controller writes into its horizon's LSQ references before every solve, at the state's time;
//! checked against the triangle wave the waypoints describe, evaluated independently here, and
//! a closed loop that follows it. Bad periods and waypoint times are refused naming the field.

use fesdj_mpc::app::build_closed_loop;
use fesdj_mpc::config::Problem;
use std::path::Path;
use std::time::Duration;

fn block_with(sets: &[&str]) -> Result<Problem, fesdj_mpc::config::ConfigError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Problem::load(&root.join("config/sliding_block_mpc.yaml"), &sets)
}

/// Waypoints x = 0.1 at 0.2 s and x = 0.5 at 0.6 s, period 0.8 s: a triangle wave.
const WAVE: [&str; 3] = [
    "ocp.x_ref=[[0.1, 0, 0, 0], [0.5, 0, 0, 0]]",
    "ocp.x_ref_times=[0.2, 0.6]",
    "ocp.x_ref_period=0.8",
];

/// The triangle wave of `WAVE` at time `s`: 0.1 at 0.2 + 0.8 k, 0.5 at 0.6 + 0.8 k, linear.
fn triangle(s: f64) -> f64 {
    let d = (s - 0.2).rem_euclid(0.8); // time since the last minimum
    if d <= 0.4 {
        0.1 + 0.4 * d / 0.4
    } else {
        0.5 - 0.4 * (d - 0.4) / 0.4
    }
}

#[test]
fn every_solve_tracks_the_wave_at_its_own_time() {
    let _turn = crate::support::serial::file(module_path!());
    let problem = block_with(&WAVE).unwrap();
    // The default parameters already hold the wave at t = 0 (interval ends 0.1 … 0.5 s).
    let setup = problem.ocp().unwrap();
    let refs = setup.x_ref.as_ref().unwrap();
    for (k, r) in refs.iter().enumerate() {
        let s = 0.1 * (k + 1) as f64;
        assert!((r[0] - triangle(s)).abs() < 1e-12, "interval {k}: {}", r[0]);
    }
    let mut cl = build_closed_loop(problem).unwrap();
    let layout = cl.controller.problem().layout().clone();
    for t in [0.0, 0.35, 1.27, 7.9] {
        cl.controller
            .set_state(t, &[0.3, 0.0], &[0.0, 0.0])
            .unwrap();
        cl.controller.solve(Duration::from_secs(5)).unwrap();
        let p = cl.controller.problem().parameters();
        for (k, idx) in layout.params.x_ref.iter().enumerate() {
            let want = triangle(t + 0.1 * (k + 1) as f64);
            assert!(
                (p[idx[0]] - want).abs() < 1e-12,
                "t = {t}, interval {k}: {} vs {want}",
                p[idx[0]]
            );
            assert_eq!(p[idx[1]], 0.0);
        }
        // No `x_ref_T`: the terminal term tracks the wave at the horizon's end.
        let want = triangle(t + 0.5);
        let got = p[layout.params.x_ref_terminal[0]];
        assert!(
            (got - want).abs() < 1e-12,
            "t = {t}, terminal: {got} vs {want}"
        );
    }
}

#[test]
fn an_explicit_terminal_reference_stays() {
    let _turn = crate::support::serial::file(module_path!());
    let mut sets = WAVE.to_vec();
    sets.push("ocp.x_ref_T=[0.3, 0, 0, 0]");
    let mut cl = build_closed_loop(block_with(&sets).unwrap()).unwrap();
    cl.controller
        .set_state(0.45, &[0.3, 0.0], &[0.0, 0.0])
        .unwrap();
    cl.controller.solve(Duration::from_secs(5)).unwrap();
    let layout = cl.controller.problem().layout();
    let p = cl.controller.problem().parameters();
    assert_eq!(p[layout.params.x_ref_terminal[0]], 0.3);
    let first = p[layout.params.x_ref[0][0]];
    assert!((first - triangle(0.55)).abs() < 1e-12, "{first}");
}

#[test]
fn the_closed_loop_follows_the_wave() {
    let _turn = crate::support::serial::file(module_path!());
    // 10 Hz, 30 ticks (3 s, almost four periods): the block (|u| ≤ 20, on frictionless
    // ground) follows the triangle between 0.1 and 0.5. Once it has caught up (0.3 s) its
    // position stays within 0.12 of the wave (measured: 0.104 at the corners, which the
    // horizon rounds off, 0 at the middle) and it crosses the middle in both directions.
    // (With the file's μ = 0.3 and the default warm-start σ₀ = 1e-6 the warm-started solves
    // stop the block at 0.31 for good: a sticking local solution of the MPCC with u ≈ 0. With
    // `mpc.warm_sigma0` 0.01 or 1 it follows the wave; measured with `fesdj mpc`.)
    let mut sets = WAVE.to_vec();
    sets.push("model.mu=0");
    let mut cl = build_closed_loop(block_with(&sets).unwrap()).unwrap();
    let x0 = cl.problem.x0();
    let options = fesdj_mpc::mpc::ClosedLoopOptions {
        steps: 30,
        budget_s: 5.0,
        startup_budget_s: None,
        noise_std: Vec::new(),
        seed: 1,
    };
    let log =
        fesdj_mpc::mpc::run_closed_loop(&mut cl.controller, &mut cl.plant, &x0, &options).unwrap();
    let mut ups = 0;
    let mut downs = 0;
    let mut prev = f64::NAN;
    for tick in &log.ticks {
        let x = tick.q[0];
        if tick.t >= 0.3 {
            let e = (x - triangle(tick.t)).abs();
            assert!(
                e < 0.12,
                "t = {}: x = {x}, wave {}",
                tick.t,
                triangle(tick.t)
            );
        }
        if prev < 0.3 && x >= 0.3 {
            ups += 1;
        }
        if prev > 0.3 && x <= 0.3 {
            downs += 1;
        }
        prev = x;
    }
    assert!(ups >= 3 && downs >= 3, "crossings up {ups}, down {downs}");
    assert_eq!(log.summary.counters.fallbacks, 0);
}

#[test]
fn bad_periods_name_the_field() {
    let _turn = crate::support::serial::file(module_path!());
    for (sets, field) in [
        (vec!["ocp.x_ref_period=0.5"], "ocp.x_ref_period"),
        (
            vec![
                "ocp.x_ref=[[0.1, 0, 0, 0], [0.5, 0, 0, 0]]",
                "ocp.x_ref_period=-1",
            ],
            "ocp.x_ref_period",
        ),
        (
            vec![
                "ocp.x_ref=[[0.1, 0, 0, 0], [0.5, 0, 0, 0]]",
                "ocp.x_ref_times=[0.2, 0.9]",
                "ocp.x_ref_period=0.8",
            ],
            "ocp.x_ref_times",
        ),
        (
            vec!["ocp.x_ref=[0.1, 0, 0, 0]", "ocp.x_ref_period=0.8"],
            "ocp.x_ref_period",
        ),
    ] {
        let e = block_with(&sets).and_then(|p| p.ocp()).err();
        let e = e.unwrap_or_else(|| panic!("{sets:?} accepted"));
        assert!(e.to_string().contains(field), "{sets:?}: {e}");
    }
}

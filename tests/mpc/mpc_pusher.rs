//! The shipped pushing MPC (`config/pusher_mpc.yaml`, `urdf/pusher_scene.urdf`) in closed loop
//! against its FESD-J plant, built exactly as `fesdj mpc` and `fesdj_node` (`sim: true`) build
//! them (`app::build_closed_loop`):
//! * 40 ticks (4 s at 10 Hz): every tick has a verified plan and every plant step converges;
//!   the box ends within 2 cm of its target (0.75, 0) and within 0.1 rad of yaw 0 (issue 7's
//!   criteria), it is never lifted off the table, and the tool never enters it (the tool's
//!   position by hand from the arm's angles, not by the model);
//! * the plant's first step (the first plan's control, the plate accelerating into the box)
//!   agrees with the same step integrated in 16 sub-steps and keeps every speed inside the
//!   OCP's bounds (the spurious roots of one long implicit step, and the speed limits against
//!   them: `tests/cli_simulate.rs`, `simulation.max_speed`).
//!
//! Deadlines are generous (1 s): solve times are measured by `fesdj mpc`, never asserted here.

use fesdj_mpc::app::build_closed_loop;
use fesdj_mpc::app::solve_options;
use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::{FesdjOptions, Simulator};
use fesdj_mpc::mpc::{run_closed_loop, ClosedLoopOptions};
use std::path::Path;

fn problem(overrides: &[&str]) -> Problem {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/pusher_mpc.yaml");
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    Problem::load(&path, &o).expect("pusher_mpc.yaml")
}

/// The centres of the pushing plate's two spheres from q = (shoulder, elbow, wrist, …): links of
/// 0.35, 0.30 and 0.12 m to the tool frame, all rotations about z (urdf/pusher_arm.urdf), the
/// spheres ±0.03 m across the tool frame.
fn plate(q: &[f64]) -> [(f64, f64); 2] {
    let (a1, a2, a3) = (q[0], q[0] + q[1], q[0] + q[1] + q[2]);
    let tx = 0.35 * a1.cos() + 0.30 * a2.cos() + 0.12 * a3.cos();
    let ty = 0.35 * a1.sin() + 0.30 * a2.sin() + 0.12 * a3.sin();
    let (nx, ny) = (-a3.sin(), a3.cos());
    [
        (tx + 0.03 * nx, ty + 0.03 * ny),
        (tx - 0.03 * nx, ty - 0.03 * ny),
    ]
}

/// Distances from the plate's 2 cm spheres to the box's near face (the plane x = −0.05 of the
/// box).
fn face_gaps(q: &[f64]) -> [f64; 2] {
    let (bx, by, yaw) = (q[3], q[4], q[6]);
    plate(q).map(|(x, y)| {
        let local_x = yaw.cos() * (x - bx) + yaw.sin() * (y - by);
        -local_x - 0.05 - 0.02
    })
}

#[test]
fn shipped_pusher_mpc_pushes_the_box_to_its_target() {
    let _turn = crate::support::serial::file(module_path!());
    let mut cl = build_closed_loop(problem(&[])).expect("build");
    let x0 = cl.problem.x0();
    for g in face_gaps(&x0) {
        assert!((g - 0.01).abs() < 1e-6, "starts 1 cm behind the box: {g}");
    }
    let log = run_closed_loop(
        &mut cl.controller,
        &mut cl.plant,
        &x0,
        &ClosedLoopOptions {
            steps: 40,
            budget_s: 1.0,
            startup_budget_s: None,
            noise_std: Vec::new(),
            seed: 1,
        },
    )
    .expect("no plant failure");
    let c = log.summary.counters;
    assert_eq!(c.verified, 40, "{c:?}");
    for t in &log.ticks {
        assert!(
            (t.q[5] - 0.45).abs() < 1e-3,
            "box z {} at t = {}",
            t.q[5],
            t.t
        );
        for g in face_gaps(&t.q) {
            assert!(g > -1e-3, "plate in the box ({g}) at t = {}", t.t);
        }
    }
    let f = &log.final_state;
    let err = ((f[3] - 0.75).powi(2) + f[4].powi(2)).sqrt();
    assert!(
        err < 0.02,
        "box {:.4}, {:.4}: {err:.4} m from the target",
        f[3],
        f[4]
    );
    assert!(f[6].abs() < 0.1, "box yaw {}", f[6]);
    // It got there early (not only in the last state): within 2 cm by 2.5 s.
    let t25 = log
        .ticks
        .iter()
        .find(|t| t.t >= 2.5 - 1e-9)
        .expect("tick at 2.5 s");
    assert!(t25.q[3] > 0.73, "box_x {} at 2.5 s", t25.q[3]);
}

#[test]
fn plant_step_into_the_box_matches_sub_steps() {
    let _turn = crate::support::serial::file(module_path!());
    // The reference solves with Scholtes' relaxation to 1e-9 (the offline settings).
    let p = problem(&["solver.relaxation=scholtes", "solver.comp_tol=1e-9"]);
    let mut cl = build_closed_loop(problem(&[])).expect("build");
    let x0 = cl.problem.x0();
    // The first plan's first control of the shipped loop (recorded from `fesdj mpc`).
    let u = [-0.34, 0.99, 0.007];
    cl.plant.step(&x0, &u).expect("plant step");
    let x1 = cl.plant.state().to_vec();
    // Independent: the same model and transcription in 16 steps of h/16, no speed limits,
    // solved more accurately.
    let dt = 0.1 / 16.0;
    let options = FesdjOptions {
        n_intervals: 1,
        t_final: dt,
        no_initial_impacts: false,
        ..p.config.fesdj.clone()
    };
    let mut fine = Simulator::new(p.cls_model().unwrap(), dt, &options, solve_options(&p))
        .expect("fine simulator");
    let mut x = x0.clone();
    for _ in 0..16 {
        let r = fine.step(&x, &u).expect("fine step");
        assert!(r.stats.status.is_success(), "{:?}", r.stats.status);
        x = fine.state().to_vec();
    }
    let n = x.len() / 2;
    eprintln!("one step {x1:?}\n16 steps {x:?}");
    // The plant takes the step in 4 implicit Euler steps (`mpc.plant`), first order: it agrees
    // with 16 steps to 7e-3 here. The spurious root moved the wrist by 1.5 rad.
    for i in 0..n {
        assert!(
            (x1[i] - x[i]).abs() < 0.02,
            "q[{i}]: {} vs {} in 16 steps",
            x1[i],
            x[i]
        );
        assert!(x1[n + i].abs() < 3.0, "v[{i}] = {}", x1[n + i]);
    }
    assert!(
        x1[3] > 0.55 + 1e-3 && x[3] > 0.55 + 1e-3,
        "both pushed the box"
    );
}

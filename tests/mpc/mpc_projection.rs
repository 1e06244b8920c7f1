//! The projection of a penetrating measured state onto `f_c(q) ≥ 0` before planning
//! (`mpc::GapProjection`, `Controller::set_gap_projection`): the least-norm correction, checked
//! against the analytic projection of the block and the optimality conditions of the
//! least-norm problem on the hopper's nonlinear foot gap; a too-deep penetration refused; the
//! MPC planning from the projected state.

use crate::support::sliding_block as common;

use std::path::Path;
use std::time::Duration;

use fesdj_mpc::config::Problem;
use fesdj_mpc::mpc::{GapProjection, MpcError, PlanSource};

fn hopper_gap(q: &[f64]) -> f64 {
    // urdf/hopper.urdf with a planar_xz root: the foot is `leg` below the hip along the leg.
    q[1] - q[4] * (q[2] + q[3]).cos()
}

#[test]
fn the_block_is_lifted_onto_the_ground() {
    let _turn = crate::support::serial::file(module_path!());
    let mut p = GapProjection::new(&common::block(), 0.01).unwrap();
    let mut q = [0.3, -2e-4];
    let d = p.project(&mut q).unwrap();
    assert!((d - 2e-4).abs() < 1e-15, "{d}");
    assert_eq!(q[0], 0.3);
    assert!(q[1].abs() < 1e-15, "{q:?}");
    // Admissible states are left alone.
    let mut q = [0.3, 1e-3];
    assert_eq!(p.project(&mut q).unwrap(), 0.0);
    assert_eq!(q, [0.3, 1e-3]);
}

#[test]
fn the_hopper_foot_projection_is_the_least_norm_correction() {
    let _turn = crate::support::serial::file(module_path!());
    let problem = Problem::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("config/hopper_mpc.yaml"),
        &[],
    )
    .unwrap();
    let model = problem.cls_model().unwrap();
    let mut p = GapProjection::new(&model, 0.01).unwrap();
    for (pitch, hip, leg, depth) in [(0.2, -0.4, 0.35, 4e-3), (-0.1, 0.3, 0.46, 3e-5)] {
        let q0 = [0.1, leg * f64::cos(pitch + hip) - depth, pitch, hip, leg];
        let mut q = q0;
        let before = hopper_gap(&q0);
        assert!((before + depth).abs() < 1e-15, "{before}");
        let d = p.project(&mut q).unwrap();
        assert!((d + before).abs() < 1e-12, "{d} {before}");
        assert!(hopper_gap(&q).abs() < 1e-12, "gap after {}", hopper_gap(&q));
        // KKT of min |Δq|² s.t. f(q0 + Δq) = 0: Δq ∥ ∇f(q*), ∇f = (0, 1, s, s, −c) with
        // s = leg sin(pitch + hip), c = cos(pitch + hip).
        let a = q[2] + q[3];
        let grad = [0.0, 1.0, q[4] * a.sin(), q[4] * a.sin(), -a.cos()];
        let dq: Vec<f64> = q.iter().zip(&q0).map(|(a, b)| a - b).collect();
        let gn: f64 = grad.iter().map(|g| g * g).sum::<f64>().sqrt();
        let dn: f64 = dq.iter().map(|g| g * g).sum::<f64>().sqrt();
        let cos: f64 = grad.iter().zip(&dq).map(|(g, d)| g * d).sum::<f64>() / (gn * dn);
        assert!(
            (cos - 1.0).abs() < 1e-9,
            "Δq {dq:?} not along ∇f {grad:?} ({cos})"
        );
    }
    let mut deep = [0.1, 0.3, 0.0, 0.0, 0.35];
    match p.project(&mut deep) {
        Err(MpcError::BadInput { what, why }) => {
            assert_eq!(what, "q");
            assert!(why.contains("max_penetration"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(deep, [0.1, 0.3, 0.0, 0.0, 0.35], "unchanged on error");
}

#[test]
fn the_controller_plans_from_the_projected_state() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = common::controller(common::settings());
    ctrl.set_gap_projection(&common::block(), 0.01).unwrap();
    ctrl.set_state(0.0, &[0.0, -1e-4], &[0.0, 0.0]).unwrap();
    let plan = ctrl.solve(Duration::from_secs(30)).unwrap();
    assert_eq!(plan.source, PlanSource::Fresh);
    // The plan starts on the ground, and moves the block to the target at rest (§ the MPC
    // test model: tracked x = 0.5).
    assert!(plan.q_at(0)[1].abs() < 1e-12, "{:?}", plan.q_at(0));
    assert!((ctrl.last_penetration() - 1e-4).abs() < 1e-15);
    assert_eq!(ctrl.planned_state()[1], 0.0);
    assert_eq!(ctrl.counters().projected_states, 1);
    assert!(GapProjection::new(&common::block(), 0.0).is_err());
}

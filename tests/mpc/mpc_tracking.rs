//! PD tracking of the plan between re-plans (`Controller::command`, `mpc.tracking`,
//! `mpc.command_rate_hz`): the command is the plan's control plus the feedback towards its
//! prediction interpolated linearly in time, clamped to the effort limits; outside the plan
//! the fallback law; bad gains and rates are refused naming the field.

use crate::support::sliding_block as common;

use common::*;
use fesdj_mpc::config::Problem;
use fesdj_mpc::mpc::{ControllerSettings, Fallback, PlanSource, Tracking};
use std::path::Path;
use std::time::Duration;

const KP: f64 = 30.0;
const KD: f64 = 4.0;

fn tracking() -> ControllerSettings {
    ControllerSettings {
        tracking: Some(Tracking {
            kp: vec![KP],
            kd: vec![KD],
        }),
        fallback: Fallback::Damping { kd: 2.0 },
        ..settings()
    }
}

/// The prediction of coordinate `c` at relative time `rel`, by the hat functions of the grid
/// (an independent evaluation of the piecewise-linear interpolant: the weighted sum of the
/// two grid values whose hat functions are non-zero).
fn hat_interpolation(times: &[f64], values: &[f64], n_q: usize, c: usize, rel: f64) -> f64 {
    let mut sum = 0.0;
    for p in 0..times.len() {
        let left = if p > 0 { times[p - 1] } else { times[p] };
        let right = if p + 1 < times.len() {
            times[p + 1]
        } else {
            times[p]
        };
        let w = if rel <= times[p] && rel > left && times[p] > left {
            (rel - left) / (times[p] - left)
        } else if rel >= times[p] && rel < right && right > times[p] {
            (right - rel) / (right - times[p])
        } else if rel == times[p] {
            1.0
        } else {
            0.0
        };
        sum += w * values[p * n_q + c];
    }
    sum
}

#[test]
fn command_is_the_plan_control_plus_pd_on_the_interpolated_prediction() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = controller(tracking());
    ctrl.set_state(2.0, &[0.0, 0.0], &[0.0, 0.0]).unwrap();
    let plan = ctrl.solve(Duration::from_secs(30)).unwrap().clone();
    assert_eq!(plan.source, PlanSource::Fresh, "{:?}", plan.last_attempt);
    // The plan moves the block: its prediction is not constant, so the feedback is exercised.
    let x_end = plan.q_at(plan.n_points() - 1)[0];
    assert!(x_end > 0.1, "the plan pushes the block (x(T) = {x_end})");
    let n = plan.n_points();
    let mut checked = 0;
    for p in 0..n - 1 {
        for s in [0.0, 0.25, 0.5, 0.9] {
            let rel = plan.times[p] + s * (plan.times[p + 1] - plan.times[p]);
            let t = plan.t0 + rel;
            // A measured state off the prediction by a small amount (no clamping).
            let (q, v) = ([0.01 * p as f64, 0.0], [0.02, 0.0]);
            let q_hat = hat_interpolation(&plan.times, &plan.q, 2, 0, rel);
            let v_hat = hat_interpolation(&plan.times, &plan.v, 2, 0, rel);
            let expected = plan.control_at(t)[0] + KP * (q_hat - q[0]) + KD * (v_hat - v[0]);
            if expected.abs() >= U_MAX {
                continue;
            }
            let u = ctrl.command(t, &q, &v).unwrap()[0];
            assert!(
                (u - expected).abs() <= 1e-9 * (1.0 + expected.abs()),
                "t = {t}: command {u}, expected {expected}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} unclamped points");
    // At a grid point the prediction is the grid value itself: on the plan, no feedback.
    let p = n / 2;
    let t = plan.t0 + plan.times[p];
    let (q, v) = (plan.q_at(p).to_vec(), plan.v_at(p).to_vec());
    let u = ctrl.command(t, &q, &v).unwrap()[0];
    assert!((u - plan.control_at(t)[0]).abs() < 1e-9, "{u}");
}

#[test]
fn command_is_clamped_and_falls_back_outside_the_plan() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = controller(tracking());
    ctrl.set_state(0.0, &[0.0, 0.0], &[0.0, 0.0]).unwrap();
    let plan = ctrl.solve(Duration::from_secs(30)).unwrap().clone();
    assert_eq!(plan.source, PlanSource::Fresh);
    // Far behind the prediction: the feedback saturates at the effort limit.
    let t = plan.t0 + 0.5 * plan.horizon();
    assert_eq!(
        ctrl.command(t, &[-5.0, 0.0], &[0.0, 0.0]).unwrap(),
        &[U_MAX]
    );
    assert_eq!(
        ctrl.command(t, &[5.0, 0.0], &[0.0, 0.0]).unwrap(),
        &[-U_MAX]
    );
    // After the horizon: the fallback law (damping u = −k_d v) at the given state.
    let after = plan.t0 + plan.horizon() + 0.01;
    assert_eq!(
        ctrl.command(after, &[0.3, 0.0], &[1.5, 0.0]).unwrap(),
        &[-3.0]
    );
    // Bad measurements are errors naming the field, nothing is commanded from them.
    let e = ctrl.command(t, &[f64::NAN, 0.0], &[0.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("q[0]"), "{e}");
    let e = ctrl.command(t, &[0.0], &[0.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("q"), "{e}");
}

#[test]
fn without_tracking_the_command_is_the_plan_control() {
    let _turn = crate::support::serial::file(module_path!());
    let mut ctrl = controller(settings());
    ctrl.set_state(0.0, &[0.0, 0.0], &[0.0, 0.0]).unwrap();
    let plan = ctrl.solve(Duration::from_secs(30)).unwrap().clone();
    for k in 0..plan.t_u.len() - 1 {
        let t = plan.t0 + 0.5 * (plan.t_u[k] + plan.t_u[k + 1]);
        let u = ctrl.command(t, &[1.0, 0.0], &[-1.0, 0.0]).unwrap()[0];
        assert_eq!(u, plan.u[k], "interval {k}");
    }
}

#[test]
fn bad_tracking_settings_name_the_field() {
    let _turn = crate::support::serial::file(module_path!());
    let bad = ControllerSettings {
        tracking: Some(Tracking {
            kp: vec![1.0, 2.0],
            kd: vec![1.0],
        }),
        ..settings()
    };
    let e = fesdj_mpc::mpc::Controller::new(problem(), 1, 1, bad).unwrap_err();
    assert!(e.to_string().contains("tracking.kp"), "{e}");
    let bad = ControllerSettings {
        tracking: Some(Tracking {
            kp: vec![1.0],
            kd: vec![-1.0],
        }),
        ..settings()
    };
    let e = fesdj_mpc::mpc::Controller::new(problem(), 1, 1, bad).unwrap_err();
    assert!(e.to_string().contains("tracking.kd[0]"), "{e}");
}

fn hopper_with(sets: &[&str]) -> Result<Problem, fesdj_mpc::config::ConfigError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Problem::load(&root.join("config/hopper_mpc.yaml"), &sets)
}

#[test]
fn tracking_and_command_rate_from_the_config() {
    let _turn = crate::support::serial::file(module_path!());
    let p = hopper_with(&[
        "mpc.tracking={kp: 10, kd: [1, 2]}",
        "mpc.command_rate_hz=200",
    ])
    .unwrap();
    let s = p.mpc_setup().unwrap();
    assert_eq!(s.command_rate_hz, 200.0);
    assert_eq!(
        s.settings.tracking,
        Some(Tracking {
            kp: vec![10.0, 10.0],
            kd: vec![1.0, 2.0]
        })
    );
    let e = hopper_with(&["mpc.command_rate_hz=5"])
        .and_then(|p| p.mpc_setup())
        .unwrap_err();
    assert!(e.to_string().contains("mpc.command_rate_hz"), "{e}");
    let e = hopper_with(&["mpc.tracking={kp: [1, 2, 3], kd: 1}"])
        .and_then(|p| p.mpc_setup())
        .unwrap_err();
    assert!(e.to_string().contains("mpc.tracking.kp"), "{e}");
    let e = hopper_with(&["mpc.tracking={kp: 1}"])
        .and_then(|p| p.mpc_setup())
        .unwrap_err();
    assert!(e.to_string().contains("kd"), "{e}");
}

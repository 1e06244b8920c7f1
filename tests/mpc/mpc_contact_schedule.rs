//! `mpc.contact_schedule`: the fixed-schedule variant of a controller. On the hopper (time
//! stepping, one foot) a schedule that lifts the foot for half of a 0.4 s period must give a
//! plan whose normal force is exactly 0 in the swing elements and whose foot is on the ground
//! (height from the hopper's kinematics, written out here) in the stance elements, while the
//! same solve without the schedule keeps the foot loaded throughout. Bad schedules are refused
//! naming the field.

use fesdj_mpc::app::build_closed_loop;
use fesdj_mpc::config::Problem;
use std::path::Path;
use std::time::Duration;

fn hopper_with(sets: &[&str]) -> Result<Problem, fesdj_mpc::config::ConfigError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Problem::load(&root.join("config/hopper_mpc.yaml"), &sets)
}

/// Swing during [0.25, 0.75) of a 0.4 s period.
const SCHEDULE: &str = "mpc.contact_schedule={period: 0.4, swing: {foot: [0.25, 0.75]}}";

/// Height of the hopper's foot: the leg (prismatic along the housing's −z) turned by pitch and
/// hip about y, from the base at (x, z) (urdf/hopper.urdf).
fn foot_height(q: &[f64]) -> f64 {
    q[1] - q[4] * (q[2] + q[3]).cos()
}

/// Solve once at state time `t` from the standing start; (normal force per interval, foot
/// height at each interval end).
fn plan_at(sets: &[&str], t: f64) -> (Vec<f64>, Vec<f64>) {
    let mut cl = build_closed_loop(hopper_with(sets).unwrap()).unwrap();
    let q0 = [0.1, 0.45, 0.0, 0.0, 0.45];
    assert!(foot_height(&q0).abs() < 1e-15);
    cl.controller.set_state(t, &q0, &[0.0; 5]).unwrap();
    let plan = cl.controller.solve(Duration::from_secs(30)).unwrap();
    assert_eq!(
        plan.source,
        fesdj_mpc::mpc::PlanSource::Fresh,
        "{:?}",
        plan.status
    );
    let n = plan.lambda_n.len();
    assert_eq!(n, 8, "one element per interval, one contact");
    let heights = (1..=n).map(|p| foot_height(plan.q_at(p))).collect();
    (plan.lambda_n.clone(), heights)
}

#[test]
fn the_plan_follows_the_imposed_schedule() {
    let _turn = crate::support::serial::file(module_path!());
    // Interval k ends at t + 0.05 (k + 1): from t = 0 the phases are 0.125, 0.25, …, 1, so
    // intervals 1-4 swing; from t = 0.2 the phases move by a half: 0-0 and 5-7 swing.
    for (t, swing) in [(0.0, [1, 2, 3, 4]), (0.2, [0, 5, 6, 7])] {
        let (lambda, height) = plan_at(&[SCHEDULE], t);
        for k in 0..8 {
            if swing.contains(&k) {
                assert_eq!(lambda[k], 0.0, "t = {t}: interval {k} swings: λ_n = 0");
            } else {
                assert!(
                    height[k].abs() < 1e-8,
                    "t = {t}: interval {k} stands: foot at {:e}",
                    height[k]
                );
            }
        }
        if t == 0.0 {
            assert!(
                height[1..5].iter().any(|&h| h > 1e-3),
                "the foot lifts while it swings: {height:?}"
            );
        }
    }
    // Without the schedule the standing hopper keeps its foot loaded in intervals 1-4.
    let (lambda, _) = plan_at(&[], 0.0);
    assert!(
        lambda[1..5].iter().all(|&l| l > 0.1),
        "free plan: λ_n = {lambda:?}"
    );
}

#[test]
fn bad_schedules_are_refused_naming_the_field() {
    let err = |s: &str| {
        hopper_with(&[s])
            .and_then(|p| p.mpc_setup())
            .unwrap_err()
            .to_string()
    };
    let e = err("mpc.contact_schedule={period: 0.4, swing: {toe: [0.1, 0.2]}}");
    assert!(
        e.contains("mpc.contact_schedule.swing.toe") && e.contains("foot"),
        "{e}"
    );
    let e = err("mpc.contact_schedule={period: -1, swing: {foot: [0.1, 0.2]}}");
    assert!(e.contains("mpc.contact_schedule.period"), "{e}");
    let e = err("mpc.contact_schedule={period: 0.4, swing: {foot: [0.1, 1.2]}}");
    assert!(e.contains("mpc.contact_schedule.swing.foot"), "{e}");
}

//! The node's per-tick work on our side allocates nothing once its buffers have their size:
//! validating a JointState into the state, planning into a reused `JointPlan` (with the analytic
//! test double), writing the trajectory and effort messages and refilling the diagnostics
//! report, the `cmd_vel` filter, and the RViz path and markers of a plan view whose length
//! changes from tick to tick (counting allocator, per thread). RustDDS's
//! own serialisation and deserialisation are outside this check.

use crate::counting_alloc as alloc_common;

use crate::support as common;

use std::time::{Duration as StdDuration, Instant};

use common::analytic::AnalyticPlanner;
use fesdj_mpc::ros::cmd_vel::{CmdVelFilter, CmdVelSettings};
use fesdj_mpc::ros::diagnostics::Diagnostics;
use fesdj_mpc::ros::msg::{
    DiagnosticArray, Header, JointState, JointTrajectory, MarkerArray, Path, Time, Twist, Vector3,
};
use fesdj_mpc::ros::node::fill_trajectory;
use fesdj_mpc::ros::plan_view::{fill_markers, fill_path, PlanView};
use fesdj_mpc::ros::validate::StateValidator;
use fesdj_mpc::ros::{JointPlan, PlanProvider};

#[test]
fn control_tick_path_does_not_allocate() {
    let _turn = crate::support::serial::file(module_path!());
    let joints = ["hip", "knee", "ankle"];
    let names: Vec<String> = joints.iter().map(|s| s.to_string()).collect();
    let mut validator = StateValidator::new(&names, false, 0.1);
    let mut planner = AnalyticPlanner::new(&joints, &["ankle", "hip"], 20, 0.5);
    planner.record_states = false;
    let mut plan = JointPlan::default();
    let mut trajectory = JointTrajectory {
        joint_names: names.clone(),
        ..Default::default()
    };
    let mut effort: Vec<f64> = Vec::with_capacity(2);
    let mut diag = Diagnostics::new(true);
    let mut report = DiagnosticArray::default();
    let mut msg = JointState {
        header: Header::default(),
        name: vec!["extra".into(), "ankle".into(), "knee".into(), "hip".into()],
        position: vec![0.0, 0.3, 0.2, 0.1],
        velocity: vec![0.0, 3.0, 2.0, 1.0],
        effort: vec![0.0, 1.0, 1.0, 1.0],
    };
    let mut cmd_vel = CmdVelFilter::new(CmdVelSettings::default());
    let mut view = PlanView::default();
    let (mut path, mut path_pool) = (Path::default(), Vec::new());
    let (mut markers, mut markers_pool) = (MarkerArray::default(), Vec::new());
    let base = Time::now().to_nanos();
    let mut tick = |k: i64, msg: &mut JointState| {
        let now = Time::from_nanos(base + k * 10_000_000);
        msg.header.stamp = Time::from_nanos(now.to_nanos() - 1_000_000);
        msg.position[3] = 0.001 * k as f64;
        validator.accept_joint_state(msg, now).unwrap();
        diag.accepted += 1;
        let state = validator.current(now).unwrap();
        planner.on_state(state);
        planner.plan(&mut plan).unwrap();
        plan.check(3, 2).unwrap();
        fill_trajectory(&mut trajectory, &plan, 3, state.stamp);
        effort.clear();
        effort.extend_from_slice(&plan.effort);
        diag.record_plan(&plan);
        // A command every other tick (one of them beyond the limits), blended every tick.
        if k % 2 == 0 {
            let twist = Twist {
                linear: Vector3 {
                    x: 0.1 + 0.001 * (k % 500) as f64,
                    y: 0.0,
                    z: 0.0,
                },
                angular: Vector3 {
                    x: 0.0,
                    y: 0.0,
                    z: if k % 10 == 0 { 3.0 } else { 0.2 },
                },
            };
            let _ = cmd_vel.accept(&twist, now.to_nanos());
        }
        let _ = cmd_vel.update(now.to_nanos());
        // A plan view of 5 to 8 points with 4 contacts, some carrying force.
        let points = 5 + (k % 4) as usize;
        view.resize(points, 4);
        for (i, f) in view.contact_force.iter_mut().enumerate() {
            *f = [
                0.0,
                0.0,
                if (i + k as usize).is_multiple_of(3) {
                    40.0
                } else {
                    0.0
                },
            ];
        }
        fill_path(&mut path, &mut path_pool, &view, now, "odom");
        fill_markers(&mut markers, &mut markers_pool, &view, now, "odom", 0.002);
        diag.ticks += 1;
        diag.fill(
            &mut report,
            "fesdj_mpc",
            now,
            Instant::now() + StdDuration::from_millis(k as u64),
        );
    };
    // Warm-up sizes every buffer (all plan view lengths and force patterns once).
    for k in 0..12 {
        tick(k, &mut msg);
    }
    let before = alloc_common::allocations();
    for k in 12..512 {
        tick(k, &mut msg);
    }
    let allocations = alloc_common::allocations() - before;
    println!("{allocations} allocations in 500 ticks");
    assert_eq!(allocations, 0, "{allocations} allocations in 500 ticks");
    assert_eq!(trajectory.points.len(), 21);
    assert!((trajectory.points[0].positions[0] - 0.511).abs() < 1e-12);
    assert_eq!(effort.len(), 2);
}

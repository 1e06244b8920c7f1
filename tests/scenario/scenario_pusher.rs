//! Issue 7's manipulation scenario: `fesdj_node` (`sim: false`, `config/pusher_mpc.yaml`)
//! drives the planar arm simulated by MuJoCo (`tools/mujoco_sim.py` on
//! `tools/scenarios/pusher.yaml`: the arm of `urdf/pusher_arm.urdf`, its two-sphere pushing
//! plate, a table and a free 0.5 kg box with MuJoCo's soft box-on-box contact), bridged over DDS
//! inside a private network namespace. Within 4 s of simulated time the box, 0.2 m from its
//! target, must end within 2 cm of it (0.75, 0) and within 0.1 rad of yaw 0, and never be
//! lifted off the table (its centre within 2 mm of 0.45 m, tilted by less than 0.05 rad, at
//! every sample of the bridge's log, from the box's own pose); every applied command is finite
//! and within the URDF's effort limits; SIGINT ends the node with exit code 0.

use crate::support::mujoco::{enter_dds_test, root, tmp_dir};
use crate::support::scenario::{numbers, run_scenario};

use std::time::Duration;

const DURATION_S: f64 = 4.0;
const TARGET: (f64, f64) = (0.75, 0.0);
/// URDF effort limits of shoulder, elbow and wrist (urdf/pusher_arm.urdf).
const EFFORT: [f64; 3] = [30.0, 20.0, 8.0];

#[test]
fn node_pushes_the_mujoco_box_to_its_target() {
    let Some(_serial) = enter_dds_test(module_path!(), "node_pushes_the_mujoco_box_to_its_target")
    else {
        return;
    };
    let dir = tmp_dir("pusher_mpc");
    let config = root().join("config/pusher_mpc.yaml");
    let limit = Duration::from_secs(120);
    let (doc, node_err) = run_scenario("pusher", &config, DURATION_S, None, &[], &dir, limit);
    check_push(&doc, &node_err);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same task with a shared simulated clock: the node on the bridge's `/clock`
/// (`use_sim_time:=true`), the bridge in lockstep at the node's 50 Hz command period. Besides
/// the task's criteria: no sync point timed out, the node answered every one of them (200 in
/// 4 s), and after the first command no applied command was older than one period of
/// simulated time.
#[test]
fn node_pushes_the_box_in_lockstep_on_the_simulated_clock() {
    let Some(_serial) = enter_dds_test(
        module_path!(),
        "node_pushes_the_box_in_lockstep_on_the_simulated_clock",
    ) else {
        return;
    };
    let dir = tmp_dir("pusher_lockstep");
    let config = root().join("config/pusher_mpc.yaml");
    let limit = Duration::from_secs(120);
    let (doc, node_err) = run_scenario("pusher", &config, DURATION_S, Some(0.02), &[], &dir, limit);
    let summary = &doc["summary"];
    assert_eq!(summary["lockstep_timeouts"].as_u64(), Some(0), "{summary}");
    let n_sync = (DURATION_S / 0.02).round() as u64;
    assert!(
        summary["commands_received"].as_u64().unwrap_or(0) >= n_sync,
        "a command for each of the {n_sync} sync points: {summary}"
    );
    let samples = doc["samples"].as_array().cloned().unwrap_or_default();
    for s in samples.iter().skip_while(|s| s["cmd_age"].is_null()) {
        let age = s["cmd_age"].as_f64().unwrap_or(f64::INFINITY);
        assert!(age <= 0.02 + 1e-9, "command {age} s old (simulated): {s}");
    }
    check_push(&doc, &node_err);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The scenario's criteria on the bridge's log `doc` (and the node's stderr).
fn check_push(doc: &serde_json::Value, node_err: &str) {
    let summary = &doc["summary"];
    eprintln!("bridge summary: {summary}");
    let samples = doc["samples"].as_array().cloned().unwrap_or_default();
    assert!(
        summary["commands_received"].as_u64().unwrap_or(0) >= 100,
        "the node commands at 50 Hz: {summary}"
    );
    let t_end = samples.last().and_then(|s| s["t"].as_f64()).unwrap_or(0.0);
    assert!(t_end >= DURATION_S - 0.05, "simulated {t_end} s");
    let mut max_tilt: f64 = 0.0;
    let mut reached = None;
    for s in &samples {
        let q = numbers(&s["q"]);
        assert!(q.len() == 7 && q.iter().all(|x| x.is_finite()), "{s}");
        let u = numbers(&s["u"]);
        assert!(
            u.len() == 3
                && u.iter()
                    .zip(EFFORT)
                    .all(|(x, e)| x.is_finite() && x.abs() <= e + 1e-9),
            "applied command: {s}"
        );
        // The box's pose from MuJoCo (position, quaternion w x y z).
        let b = numbers(&s["box_pose"]);
        assert!(
            (b[2] - 0.45).abs() < 2e-3,
            "box lifted: centre at {} m, {s}",
            b[2]
        );
        let (w, x, y, z) = (b[3], b[4], b[5], b[6]);
        // Tilt: the angle between the box's z axis and the vertical.
        let cos_tilt = 1.0 - 2.0 * (x * x + y * y);
        let tilt = cos_tilt.clamp(-1.0, 1.0).acos();
        assert!(tilt < 0.05, "box tilted by {tilt} rad: {s}");
        max_tilt = max_tilt.max(tilt);
        let yaw = (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z));
        let err = (b[0] - TARGET.0).hypot(b[1] - TARGET.1);
        if reached.is_none() && err < 0.02 && yaw.abs() < 0.1 {
            reached = s["t"].as_f64();
        }
    }
    let last = numbers(&samples.last().expect("samples")["q"]);
    let err = (last[3] - TARGET.0).hypot(last[4] - TARGET.1);
    eprintln!(
        "MuJoCo pusher: box at ({:.4}, {:.4}), yaw {:.4}: {:.4} m from the target, first \
         within the tolerance at t = {reached:?} s, tilt ≤ {max_tilt:.4} rad",
        last[3], last[4], last[6], err
    );
    assert!(err < 0.02, "box {err:.4} m from the target");
    assert!(last[6].abs() < 0.1, "box yaw {:.4}", last[6]);
    assert!(
        !node_err.contains("panicked"),
        "the node did not panic: {node_err}"
    );
}

//! Issue 7's quadruped scenario: `fesdj_node` (`sim: false`, `config/quadruped_mpc.yaml`, the
//! base from `odom`) stands the 13 kg quadruped simulated by MuJoCo (`tools/mujoco_sim.py` on
//! `tools/scenarios/quadruped.yaml`: free-floating base, four point feet on a firm floor) up from
//! its crouch and walks it forward, inside a private network namespace. The reference is the
//! gait library of our periodic OCPs blended for the configured 0.1 m/s (`mpc.gait_library`,
//! `mpc.base_velocity`; issue 27): no contact schedule is given, the feet leave and touch the
//! ground as the optimiser chooses. The solves take longer than a
//! control period on these machines, so node and bridge share the simulated clock: the node
//! runs with `use_sim_time:=true` and the bridge in lockstep (`--lockstep 0.05`, the node's
//! 20 Hz command period), waiting for each command.
//!
//! Within 6 s of simulated time (measured in brackets): the body rises from 0.279 m to 0.32 m
//! within 1 s [0.26 s] and stays above 0.31 m [0.338]; it stays level, |pitch| and |roll| below
//! 0.05 rad [0.008]; it walks at least 0.3 m forward [0.47] and stays within 5 cm of its line
//! [2.4 cm]; every foot leaves the ground at least three times for more than 0.1 s [6-9 times]
//! and rises at least 1 cm [1.6-2.0 cm: the library's trot lifts its feet by its clearance
//! rule, gap ≥ 0.1 s²/m · speed² − 2 mm; the hand-written walk before it lifted them 4-5 cm];
//! every command is finite and within the URDF's effort limits; the bridge never waited in
//! vain for a command; SIGINT ends the node with 0.

use crate::support::mujoco::{enter_dds_test, root, tmp_dir};
use crate::support::scenario::{numbers, run_scenario};

use std::time::Duration;

const DURATION_S: f64 = 6.0;
const FEET: [&str; 4] = ["FL_foot", "FR_foot", "HL_foot", "HR_foot"];
/// URDF effort limits of abduction, flexion and knee (urdf/quadruped.urdf).
const EFFORT: [f64; 3] = [20.0, 25.0, 35.0];
/// A foot carries load above this contact force (N); MuJoCo reports 0 without contact.
const LOADED_N: f64 = 1.0;

/// Flight phases of one foot: their count and the foot's highest point (after `t_from`).
#[derive(Default)]
struct Flights {
    /// Time the foot last became unloaded (while in the air).
    since: Option<f64>,
    was_loaded: bool,
    /// Flights longer than 0.1 s.
    long: usize,
    z_max: f64,
}

#[test]
fn node_stands_the_mujoco_quadruped_up_and_walks_it_on_the_simulated_clock() {
    let Some(_serial) = enter_dds_test(
        module_path!(),
        "node_stands_the_mujoco_quadruped_up_and_walks_it_on_the_simulated_clock",
    ) else {
        return;
    };
    let dir = tmp_dir("quadruped_walk");
    let config = root().join("config/quadruped_mpc.yaml");
    let params = ["floating_base:=true"];
    let limit = Duration::from_secs(1200);
    let (doc, node_err) = run_scenario(
        "quadruped",
        &config,
        DURATION_S,
        Some(0.05),
        &params,
        &dir,
        limit,
    );
    let summary = &doc["summary"];
    eprintln!("bridge summary: {summary}");
    assert_eq!(summary["lockstep_timeouts"].as_u64(), Some(0), "{summary}");
    assert!(
        summary["commands_received"].as_u64().unwrap_or(0) >= 115,
        "a command every 50 ms: {summary}"
    );
    let samples = doc["samples"].as_array().cloned().unwrap_or_default();
    let t_end = samples.last().and_then(|s| s["t"].as_f64()).unwrap_or(0.0);
    assert!(t_end >= DURATION_S - 0.05, "simulated {t_end} s");
    let base0 = numbers(&samples[0]["base"]);
    let mut flights: Vec<Flights> = FEET.iter().map(|_| Flights::default()).collect();
    let (mut z_min_late, mut tilt_max, mut y_dev): (f64, f64, f64) = (f64::INFINITY, 0.0, 0.0);
    let mut t_up = f64::NAN;
    for s in &samples {
        let t = s["t"].as_f64().unwrap_or(f64::NAN);
        let u = numbers(&s["u"]);
        assert!(
            u.len() == 12
                && u.iter()
                    .enumerate()
                    .all(|(i, x)| x.is_finite() && x.abs() <= EFFORT[i % 3] + 1e-9),
            "applied command: {s}"
        );
        // Base: position, quaternion x y z w.
        let b = numbers(&s["base"]);
        let (x, y, z, w) = (b[3], b[4], b[5], b[6]);
        let pitch = (2.0 * (w * y - z * x)).clamp(-1.0, 1.0).asin();
        let roll = (2.0 * (w * x + y * z)).atan2(1.0 - 2.0 * (x * x + y * y));
        tilt_max = tilt_max.max(pitch.abs()).max(roll.abs());
        assert!(
            pitch.abs() < 0.05 && roll.abs() < 0.05,
            "tilted: pitch {pitch}, roll {roll}, {s}"
        );
        if t_up.is_nan() && b[2] >= 0.32 {
            t_up = t;
        }
        if t >= 1.0 {
            z_min_late = z_min_late.min(b[2]);
            assert!(b[2] > 0.31, "body at {} m at t = {t}", b[2]);
        }
        y_dev = y_dev.max((b[1] - base0[1]).abs());
        for (k, f) in FEET.iter().enumerate() {
            let fz = numbers(&s["contact_force"][*f])[2];
            let fl = &mut flights[k];
            if fz > LOADED_N {
                if let Some(t0) = fl.since.take() {
                    if t - t0 > 0.1 {
                        fl.long += 1;
                    }
                }
                fl.was_loaded = true;
            } else if fl.was_loaded && fl.since.is_none() {
                fl.since = Some(t);
            }
            if t > 0.3 {
                fl.z_max = fl.z_max.max(numbers(&s["contact_point"][*f])[2]);
            }
        }
    }
    let b_end = numbers(&samples.last().expect("samples")["base"]);
    let forward = b_end[0] - base0[0];
    let report: Vec<String> = FEET
        .iter()
        .zip(&flights)
        .map(|(f, fl)| format!("{f}: {} flights, up to {:.3} m", fl.long, fl.z_max))
        .collect();
    eprintln!(
        "MuJoCo quadruped: up at 0.32 m after {t_up} s, ≥ {z_min_late:.4} m after 1 s, tilt ≤ \
         {tilt_max:.4} rad, {forward:.3} m forward in {t_end} s, off its line ≤ {y_dev:.3} m; \
         {report:?}"
    );
    assert!(t_up <= 1.0, "stood up to 0.32 m at {t_up} s");
    assert!(forward >= 0.3, "walked {forward} m");
    assert!(y_dev < 0.05, "{y_dev} m off its line");
    for (f, fl) in FEET.iter().zip(&flights) {
        assert!(fl.long >= 3, "{f} left the ground {} times", fl.long);
        assert!(fl.z_max >= 0.01, "{f} rose {} m", fl.z_max);
    }
    assert!(
        !node_err.contains("panicked"),
        "the node did not panic: {node_err}"
    );
    // The node's own summary: 120 plans, none failed, and its solve-time percentiles.
    let summary = node_err
        .lines()
        .find(|l| l.contains("shutting down after"))
        .unwrap_or_else(|| panic!("no shutdown summary: {node_err}"));
    eprintln!("node: {summary}");
    assert!(
        summary.contains(" 0 plan errors") && summary.contains("solve time p50"),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

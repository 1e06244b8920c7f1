//! `fesdj_node` on a small `floating_zyx` quadruped (`floating_base`) against a Cyclone DDS
//! peer (`tools/dds_plan_view_peer.py`) inside a private network namespace: the peer publishes
//! a resting robot (joint_states, odom) and `cmd_vel` through phases (a command within the
//! limits, one beyond them, NaN, none), and receives the plans, the RViz path and markers and
//! the diagnostics. Every path is in the `odom` frame with one pose per trajectory point of the
//! plan of the same stamp, a fresh plan's path starts at the published base pose, the markers
//! clear the display and then show four contact spheres per point and an arrow from a contact
//! point per planned force, and the `cmd_vel` diagnostics report the command taken, clamped,
//! rejected and gone stale.

use crate::support as common;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::node_floating_base::python;

#[test]
fn floating_base_node_follows_cmd_vel_and_publishes_its_plan_for_rviz() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(
        module_path!(),
        "floating_base_node_follows_cmd_vel_and_publishes_its_plan_for_rviz",
    ) {
        return;
    }
    let mut node = crate::node_floating_base::spawn_quadruped_node(
        &["start_enabled:=true", "diagnostics_rate_hz:=4.0"],
        Stdio::null(),
    );
    let joints = crate::node_floating_base::quadruped_joints();
    let crouch = ["0", "0.8", "-1.6"].repeat(4).join(",");
    let (bx, by, bz, yaw): (f64, f64, f64, f64) = (0.5, -0.2, 0.2787, 0.3);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tools/dds_plan_view_peer.py");
    let peer = Command::new(python())
        .arg(&script)
        .args([
            "--joints",
            &joints.join(","),
            "--q",
            &crouch,
            "--base",
            &format!("{bx},{by},{bz},{yaw}"),
            "--duration",
            "18",
            "--phases",
            "good:7,big:4,nan:3,none:4",
        ])
        .output()
        .expect("peer runs");
    let (code, err) = common::process::signal_and_wait(&mut node, "-INT");
    assert!(
        peer.status.success(),
        "peer failed: {}",
        String::from_utf8_lossy(&peer.stderr)
    );
    assert_eq!(code, Some(0), "SIGINT ends the node with 0: {err}");
    let report: Value = serde_json::from_slice(&peer.stdout).expect("peer JSON");
    let list = |k: &str| report[k].as_array().cloned().unwrap_or_default();
    let (trajectories, paths, markers) = (list("trajectories"), list("paths"), list("markers"));
    eprintln!(
        "{} trajectories, {} paths, {} marker arrays; last cmd_vel diagnostics {}",
        trajectories.len(),
        paths.len(),
        markers.len(),
        report["cmd_vel"]
            .as_array()
            .and_then(|r| r.last())
            .unwrap_or(&Value::Null)
    );
    assert!(paths.len() >= 3 && markers.len() >= 3, "{err}");
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);

    // Paths: frame odom, one pose per trajectory point of the same plan, stamps from the plan's
    // stamp on; a fresh plan starts at the published base pose.
    let mut from_state = 0;
    let mut n_of_stamp = Vec::new();
    for p in &paths {
        assert_eq!(p["frame"], "odom");
        let stamp = f(&p["stamp"]);
        let n = p["n"].as_u64().unwrap_or(0);
        let traj = trajectories
            .iter()
            .find(|t| f(&t["stamp"]) == stamp)
            .unwrap_or_else(|| panic!("no trajectory of the path's stamp {stamp}"));
        assert_eq!(traj["n"].as_u64(), Some(n), "{p}");
        n_of_stamp.push((stamp, n));
        let poses = p["poses"].as_array().unwrap();
        let times: Vec<f64> = poses.iter().map(|q| f(&q[7])).collect();
        assert!(times[0] >= stamp - 1e-9 && times.windows(2).all(|w| w[1] >= w[0]));
        let q0: Vec<f64> = poses[0].as_array().unwrap().iter().map(f).collect();
        let want = [bx, by, bz, 0.0, 0.0, (yaw / 2.0).sin(), (yaw / 2.0).cos()];
        if (0..7).all(|i| (q0[i] - want[i]).abs() < 1e-9) {
            from_state += 1;
        }
        for q in poses {
            let q: Vec<f64> = q.as_array().unwrap().iter().map(f).collect();
            let norm = (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]).sqrt();
            assert!((norm - 1.0).abs() < 1e-9 && q.iter().all(|x| x.is_finite()));
        }
    }
    assert!(from_state >= 1, "no path starts at the measured base pose");

    // Markers: DELETEALL, then 4 spheres per point of the plan of that stamp, then arrows from
    // contact points.
    for m in &markers {
        let ms = m["markers"].as_array().unwrap();
        assert_eq!(ms[0]["action"], 3, "DELETEALL first");
        let stamp = f(&ms[0]["stamp"]);
        let spheres: Vec<&Value> = ms.iter().filter(|k| k["ns"] == "contacts").collect();
        let arrows: Vec<&Value> = ms.iter().filter(|k| k["ns"] == "forces").collect();
        assert_eq!(1 + spheres.len() + arrows.len(), ms.len());
        if let Some((_, n)) = n_of_stamp.iter().find(|(s, _)| *s == stamp) {
            assert_eq!(spheres.len() as u64, 4 * n);
        }
        assert!(ms.iter().all(|k| k["frame"] == "odom"));
        assert!(spheres.iter().all(|k| k["type"] == 2 && k["action"] == 0));
        for a in &arrows {
            assert_eq!(a["type"], 0);
            let sphere = spheres.iter().find(|s| s["id"] == a["id"]).expect("sphere");
            let start: Vec<f64> = a["points"][0].as_array().unwrap().iter().map(f).collect();
            let at: Vec<f64> = sphere["position"]
                .as_array()
                .unwrap()
                .iter()
                .map(f)
                .collect();
            assert_eq!(start, at);
            // Flat ground: the force points up.
            assert!(f(&a["points"][1][2]) > start[2], "{a}");
        }
    }
    assert!(
        markers.iter().any(|m| m["markers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["ns"] == "forces")),
        "no planned contact force shown"
    );

    // cmd_vel diagnostics: the command within the limits was followed, the one beyond them
    // clamped (a warning), and at the end, after NaN and no commands, the counters show the
    // rejected and clamped messages and the command has gone stale (how many of each depends
    // on when the node's loop, busy with solves, reports, so only their presence is checked).
    let reports = list("cmd_vel");
    assert!(
        reports.iter().any(|r| r["phase"] == "good"
            && r["target"] == "0.200 0.050 0.300"
            && r["fresh"] == "true"),
        "{reports:?}"
    );
    assert!(
        reports
            .iter()
            .any(|r| r["target"] == "0.400 0.000 0.500" && r["level"] == 1),
        "{reports:?}"
    );
    let last = reports.last().expect("cmd_vel diagnostics");
    let count = |key: &str| {
        last[key]
            .as_str()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0)
    };
    assert!(
        count("accepted") >= 1 && count("clamped") >= 1 && count("rejected") >= 1,
        "{last}"
    );
    assert_eq!(last["fresh"], "false", "{last}");
    assert_eq!(last["target"], "0.000 0.000 0.000", "{last}");
    assert!(
        err.contains("clamped") && err.contains("non-finite"),
        "{err}"
    );
}

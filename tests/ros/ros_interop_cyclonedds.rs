//! Interop with an independent DDS implementation: `tools/dds_peer.py` on Eclipse Cyclone DDS
//! (PyPI `cyclonedds`) talks to the node (with the analytic test double) inside a private
//! network namespace, once per service convention. The peer publishes joint_states at 200 Hz,
//! checks every number of the plans and effort commands it receives, calls the three services
//! and lists and reads parameters; this test asserts on its JSON report.

use crate::support as common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::analytic::AnalyticPlanner;
use fesdj_mpc::ros::params::{NodeParams, ServiceConvention};
use fesdj_mpc::ros::{NodeConfig, NodeRuntime};
use serde_json::Value;

const JOINTS: [&str; 3] = ["hip", "knee", "ankle"];
const EFFORT_JOINTS: [&str; 2] = ["ankle", "hip"];
const RATE_HZ: f64 = 50.0;

fn python() -> String {
    std::env::var("FESDJ_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn interop(mapping: ServiceConvention) {
    let check = Command::new(python())
        .args(["-c", "import cyclonedds"])
        .status();
    assert!(
        matches!(check, Ok(s) if s.success()),
        "the interop test needs PyPI cyclonedds: python3 -m pip install -r tools/requirements.txt"
    );
    let params = NodeParams {
        joint_names: JOINTS.iter().map(|s| s.to_string()).collect(),
        effort_joints: EFFORT_JOINTS.iter().map(|s| s.to_string()).collect(),
        rate_hz: RATE_HZ,
        horizon_n: 10,
        horizon_t: 0.5,
        stale_state_timeout: 0.1,
        service_mapping: mapping,
        diagnostics_rate_hz: 5.0,
        ..NodeParams::default()
    };
    let stop = Arc::new(AtomicBool::new(false));
    let node_stop = Arc::clone(&stop);
    let node = std::thread::spawn(move || {
        let mut rt = NodeRuntime::new(NodeConfig::with_params(params)).expect("node starts");
        let mut planner = AnalyticPlanner::new(&JOINTS, &EFFORT_JOINTS, 10, 0.5);
        rt.run(&mut planner, &node_stop).expect("node loop");
        (rt.diagnostics().clone(), planner)
    });

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tools/dds_peer.py");
    let mut child = Command::new(python())
        .arg(&script)
        .args([
            "--mapping",
            mapping.as_str(),
            "--rate",
            "200",
            "--duration",
            "3",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tools/dds_peer.py");
    let started = Instant::now();
    while child.try_wait().expect("peer status").is_none() {
        if started.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("dds_peer.py did not finish in 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("peer output");
    stop.store(true, Ordering::Relaxed);
    let (diag, planner) = node.join().expect("node thread");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "dds_peer.py failed: {}\n{stdout}\n{stderr}",
        output.status
    );
    let report: Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("peer JSON: {e}\n{stdout}"));
    println!(
        "{mapping:?}: {}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    );
    println!(
        "node: {} joint_states accepted, {} rejected, {} plans published",
        diag.accepted,
        diag.rejected_total(),
        diag.plans_published
    );

    let num = |k: &str| {
        report[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{k} in {report}"))
    };
    // Input at 200 Hz, outputs at the control rate.
    assert!(num("joint_states_rate_hz") > 180.0, "peer publish rate");
    for k in ["trajectory_rate_hz", "effort_rate_hz"] {
        let r = num(k);
        assert!(r > 0.85 * RATE_HZ && r < 1.15 * RATE_HZ, "{k} = {r}");
    }
    assert_eq!(num("points_per_trajectory"), 11.0);
    // Every number checked against the state it came from.
    assert!(num("trajectories_checked") > 100.0 && num("efforts_checked") > 100.0);
    assert_eq!(
        num("trajectory_error_count"),
        0.0,
        "{}",
        report["trajectory_errors"]
    );
    assert_eq!(
        num("effort_error_count"),
        0.0,
        "{}",
        report["effort_errors"]
    );
    // Services in the configured convention.
    assert_eq!(report["enable_true"]["success"], true);
    assert_eq!(report["enable_true"]["message"], "enabled");
    assert_eq!(report["plan"]["success"], true, "{}", report["plan"]);
    assert!(report["plan"]["message"]
        .as_str()
        .unwrap_or("")
        .starts_with("published 11 points"));
    assert_eq!(report["reset"]["message"], "reset");
    assert_eq!(report["enable_false"]["message"], "disabled");
    assert_eq!(num("efforts_after_disable"), 0.0);
    // Parameters listed and read through the standard services.
    let names: Vec<&str> = report["parameter_names"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for p in [
        "rate_hz",
        "horizon.N",
        "horizon.T",
        "joint_names",
        "effort_joints",
        "service_mapping",
        "stale_state_timeout",
        "use_sim_time",
    ] {
        assert!(names.contains(&p), "parameter {p} not listed: {names:?}");
    }
    let params = &report["parameters"];
    assert_eq!(params["rate_hz"], RATE_HZ);
    assert_eq!(params["horizon.N"], 10);
    assert_eq!(params["horizon.T"], 0.5);
    assert_eq!(params["joint_names"], serde_json::json!(JOINTS));
    assert_eq!(params["effort_joints"], serde_json::json!(EFFORT_JOINTS));
    assert_eq!(params["service_mapping"], mapping.as_str());
    assert!(num("diagnostics_received") >= 10.0);
    assert_eq!(
        report["diagnostics_last"]["fesdj_mpc: controller"]["homotopy_steps"],
        "3"
    );
    // The node saw the peer's messages as valid (the extra joint and the order do not matter).
    assert_eq!(diag.rejected_total(), 0);
    assert!(diag.accepted as f64 >= 0.9 * num("joint_states_sent"));
    assert_eq!(planner.resets, 1);
}

#[test]
fn cyclonedds_peer_with_fastrtps_service_convention() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(
        module_path!(),
        "cyclonedds_peer_with_fastrtps_service_convention",
    ) {
        return;
    }
    interop(ServiceConvention::FastRtps);
}

#[test]
fn cyclonedds_peer_with_cyclonedds_service_convention() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(
        module_path!(),
        "cyclonedds_peer_with_cyclonedds_service_convention",
    ) {
        return;
    }
    interop(ServiceConvention::CycloneDds);
}

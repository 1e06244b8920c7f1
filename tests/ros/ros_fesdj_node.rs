//! The `fesdj_node` binary against a Cyclone DDS peer (`tools/dds_node_peer.py`, PyPI
//! `cyclonedds`), inside a private network namespace:
//! (a) with `config/sliding_block_mpc.yaml` and `sim: true` it runs the sliding block with its
//!     internal FESD-J plant: the peer receives the plant's joint_states, planned trajectories
//!     and effort commands, all finite, never faster than the configured 10 Hz, and the block
//!     moves to the target x = 0.5; SIGINT ends it with exit code 0.
//! (a') with no arguments it runs the embedded hopper demo (`config/hopper_mpc.yaml`, README's
//!     main command): the simulated hopper hops forward upright, every trajectory finite, the
//!     efforts within the URDF's limits.
//! (b) with `sim: false` the peer publishes joint_states: plans come back, each planned from a
//!     good message (its stamp), and NaN / infinite / short / unknown-joint messages yield no
//!     plan; SIGTERM ends it with exit code 0.
//! (c) with `use_sim_time: true` the peer is a simulator in lockstep: the node answers every
//!     step of the peer's `/clock` with one command, stamps its plans with the simulated time,
//!     and after the peer's clock goes back to 0 (a simulator restart) answers again.
//! (d) started as a script's background job does (SIGINT ignored) on the quadruped, whose
//!     problem build takes tens of seconds, a SIGINT during the build ends it at once with
//!     exit code 0, before it joins the DDS domain.

use crate::support as common;
use crate::support::hopper::{flight_phases, foot_height};

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

const TARGET: f64 = 0.5;
const RATE_HZ: f64 = 10.0;

fn python() -> String {
    std::env::var("FESDJ_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn spawn_node(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_fesdj_node"))
        .args(args)
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fesdj_node starts")
}

/// The node on `config/sliding_block_mpc.yaml` with `sim: false` (states from the peer),
/// enabled, plus the `-p` parameter `extra`.
fn spawn_external_block_node(extra: &str) -> Child {
    let config = root().join("config/sliding_block_mpc.yaml");
    let cfg = format!("config_file:={}", config.display());
    spawn_node(&[
        "--ros-args",
        "-p",
        &cfg,
        "-p",
        "sim:=false",
        "-p",
        "start_enabled:=true",
        "-p",
        extra,
    ])
}

fn check_python() {
    let check = Command::new(python())
        .args(["-c", "import cyclonedds"])
        .status();
    assert!(
        matches!(check, Ok(s) if s.success()),
        "needs PyPI cyclonedds: python3 -m pip install -r tools/requirements.txt"
    );
}

fn spawn_peer(args: &[&str]) -> Child {
    check_python();
    Command::new(python())
        .arg(root().join("tools/dds_node_peer.py"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("peer runs")
}

fn peer_report(child: Child) -> Value {
    let o = child.wait_with_output().expect("peer ends");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "peer failed: {err}");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("peer JSON: {e}; {err}"))
}

/// Signal the node and return its exit code and stderr.
fn stop(mut child: Child, signal: &str) -> (Option<i32>, String) {
    common::process::signal_and_wait(&mut child, signal)
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
        .unwrap_or_default()
}

fn rate(times: &[f64]) -> f64 {
    if times.len() < 2 {
        return 0.0;
    }
    (times.len() - 1) as f64 / (times[times.len() - 1] - times[0])
}

/// Start a listening peer for `seconds`, then the node with `args` two seconds later (so that
/// the peer sees the plant start: the node plans from its first tick); end the node with
/// SIGINT (exit code 0 asserted) and return what the peer received: joint_states,
/// trajectories, efforts.
fn listen_to_sim_node(seconds: u32, args: &[&str]) -> (Vec<Value>, Vec<Value>, Vec<Value>) {
    let peer = spawn_peer(&["--mode", "listen", "--duration", &seconds.to_string()]);
    std::thread::sleep(Duration::from_secs(2));
    let node = spawn_node(args);
    let report = peer_report(peer);
    let (code, err) = stop(node, "-INT");
    eprintln!("{err}");
    assert_eq!(code, Some(0), "SIGINT ends the node with 0: {err}");
    let list = |key: &str| report[key].as_array().cloned().unwrap_or_default();
    (list("joint_states"), list("trajectories"), list("efforts"))
}

#[test]
fn sim_node_drives_its_simulated_block_to_the_target() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(
        module_path!(),
        "sim_node_drives_its_simulated_block_to_the_target",
    ) {
        return;
    }
    let config = format!(
        "config_file:={}",
        root().join("config/sliding_block_mpc.yaml").display()
    );
    let report = listen_to_sim_node(
        14,
        &[
            "--ros-args",
            "-p",
            &config,
            "-p",
            "sim:=true",
            "-p",
            "start_enabled:=true",
        ],
    );
    let (js, trajectories, efforts) = (&report.0, &report.1, &report.2);
    let js_t: Vec<f64> = js.iter().map(|m| m["t"].as_f64().unwrap()).collect();
    let tr_t: Vec<f64> = trajectories
        .iter()
        .map(|m| m["t"].as_f64().unwrap())
        .collect();
    let ef_t: Vec<f64> = efforts.iter().map(|m| m["t"].as_f64().unwrap()).collect();
    eprintln!(
        "received {} joint_states ({:.2} Hz), {} trajectories ({:.2} Hz), {} efforts ({:.2} Hz)",
        js.len(),
        rate(&js_t),
        trajectories.len(),
        rate(&tr_t),
        efforts.len(),
        rate(&ef_t)
    );
    assert!(js.len() >= 10 && trajectories.len() >= 10 && efforts.len() >= 10);
    // At the configured rate: one plant step, plan and command per tick, never faster (ticks
    // can only be late when a solve overruns the period).
    for (what, r) in [
        ("joint_states", rate(&js_t)),
        ("trajectories", rate(&tr_t)),
        ("efforts", rate(&ef_t)),
    ] {
        assert!(r <= 1.25 * RATE_HZ, "{what} at {r} Hz");
    }
    for m in js {
        assert_eq!(m["name"], serde_json::json!(["x", "y"]));
        let (q, v) = (numbers(&m["position"]), numbers(&m["velocity"]));
        assert!(q.len() == 2 && v.len() == 2);
        assert!(q.iter().chain(&v).all(|x| x.is_finite()), "{m}");
        assert!(q[1].abs() < 1e-6, "the block stays on the ground: {m}");
    }
    for t in trajectories {
        assert_eq!(t["finite"], true);
        assert_eq!(t["joint_names"], serde_json::json!(["x", "y"]));
        let points = t["points"].as_array().unwrap();
        assert!(points.len() >= 2);
        let tfs: Vec<f64> = points
            .iter()
            .map(|p| p["time_from_start"].as_f64().unwrap())
            .collect();
        assert!(tfs.windows(2).all(|w| w[1] >= w[0]) && tfs[0] >= 0.0);
        for p in points {
            let u = numbers(&p["effort"]);
            assert!(u[0].abs() <= 20.0 + 1e-9 && u[1] == 0.0, "{p}");
        }
    }
    for e in efforts {
        let d = numbers(&e["data"]);
        assert_eq!(d.len(), 1);
        assert!(d[0].is_finite() && d[0].abs() <= 20.0 + 1e-9);
    }
    // The simulated block moves from x = 0 towards the target and settles there.
    let x: Vec<f64> = js.iter().map(|m| numbers(&m["position"])[0]).collect();
    // (DDS discovery takes a few ticks, so the first received state is already on the way.)
    assert!(
        x[0] < TARGET - 0.05,
        "the first received state is on the way: {}",
        x[0]
    );
    let last = *x.last().unwrap();
    eprintln!("x: first {:.4}, last {:.4}", x[0], last);
    assert!((last - TARGET).abs() < 0.02, "x ends at {last}");
    assert!(x.iter().all(|&xi| xi > -0.05 && xi < TARGET + 0.1));
}

#[test]
fn demo_without_arguments_hops_its_simulated_hopper_forward() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(
        module_path!(),
        "demo_without_arguments_hops_its_simulated_hopper_forward",
    ) {
        return;
    }
    let report = listen_to_sim_node(12, &[]);
    let (js, trajectories, efforts) = (&report.0, &report.1, &report.2);
    eprintln!(
        "received {} joint_states, {} trajectories, {} efforts",
        js.len(),
        trajectories.len(),
        efforts.len()
    );
    // 20 Hz for about 9 s after discovery (ticks are late only when a step overruns).
    assert!(js.len() >= 60 && trajectories.len() >= 60 && efforts.len() >= 60);
    let names = serde_json::json!(["root_x", "root_z", "root_pitch", "hip", "leg"]);
    for m in js {
        assert_eq!(m["name"], names);
        let (q, v) = (numbers(&m["position"]), numbers(&m["velocity"]));
        assert!(q.len() == 5 && v.len() == 5);
        assert!(q.iter().chain(&v).all(|x| x.is_finite()), "{m}");
        assert!(q[1] > 0.25 && q[2].abs() < 0.5, "upright: {m}");
        assert!(foot_height(&q) > -1e-3, "foot above the ground: {m}");
    }
    for t in trajectories {
        assert_eq!(t["finite"], true);
        assert_eq!(t["joint_names"], names);
    }
    for e in efforts {
        let d = numbers(&e["data"]);
        assert_eq!(d.len(), 2);
        assert!(
            d.iter().all(|u| u.is_finite() && u.abs() <= 50.0 + 1e-9),
            "{e}"
        );
    }
    let qs: Vec<Vec<f64>> = js.iter().map(|m| numbers(&m["position"])).collect();
    let flights = flight_phases(qs.iter().map(|q| q.as_slice()));
    let x: Vec<f64> = qs.iter().map(|q| q[0]).collect();
    let forward = x.last().unwrap() - x[0];
    eprintln!(
        "root_x: first {:.3}, last {:.3}, {flights} flight phases",
        x[0],
        x.last().unwrap()
    );
    assert!(forward > 0.5, "hops forward: {forward:.3} m");
    assert!(flights >= 2, "{flights} flight phases");
}

#[test]
fn external_joint_states_plan_and_bad_input_yields_no_plan() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(
        module_path!(),
        "external_joint_states_plan_and_bad_input_yields_no_plan",
    ) {
        return;
    }
    let node = spawn_external_block_node("stale_state_timeout:=0.5");
    let report = peer_report(spawn_peer(&[
        "--mode",
        "publish",
        "--phases",
        "good:6,nan:2,good:3,inf:2,short:2,unknown:2,good:3",
        "--q0",
        "0.1,0",
    ]));
    let (code, err) = stop(node, "-TERM");
    assert_eq!(code, Some(0), "SIGTERM ends the node with 0: {err}");
    assert!(err.contains("rejected") || err.contains("WARN"), "{err}");

    let trajectories = report["trajectories"].as_array().unwrap();
    let phases = report["phases"].as_array().unwrap();
    eprintln!("sent {}", report["sent"]);
    let mut per_phase = vec![0usize; phases.len()];
    let mut from_state = 0;
    for t in trajectories {
        // Every plan starts from a good state: its stamp is one of a good message.
        assert_eq!(t["stamp_was_good"], true, "plan from a bad state: {t}");
        assert_eq!(t["finite"], true);
        let q = numbers(&t["points"][0]["positions"]);
        // A fresh plan starts at the measured state q0 = (0.1, 0) (the remainder of a previous
        // plan starts later on its prediction, between q0 and the target).
        if (q[0] - 0.1).abs() < 1e-6 && q[1].abs() < 1e-6 {
            from_state += 1;
        }
        assert!(q[0] > 0.1 - 1e-6 && q[0] < TARGET + 0.1, "{t}");
        let at = t["t"].as_f64().unwrap();
        if let Some(i) = phases.iter().position(|p| {
            at >= p["start"].as_f64().unwrap() + 0.6 && at < p["end"].as_f64().unwrap()
        }) {
            per_phase[i] += 1;
        }
    }
    eprintln!(
        "{} trajectories, {from_state} from the measured state; per phase (after 0.6 s into \
         each): {per_phase:?}",
        trajectories.len()
    );
    assert!(from_state >= 3);
    // Plans keep coming in the good phases. (A plan may *arrive* during a bad phase when its
    // solve started from the last good state before it, which the stamp check above covers.)
    for (i, p) in phases.iter().enumerate() {
        if p["name"] == "good" {
            assert!(
                per_phase[i] >= 1,
                "no plans in good phase {i}: {per_phase:?}"
            );
        }
    }
    let bad: usize = phases
        .iter()
        .zip(&per_phase)
        .filter(|(p, _)| p["name"] != "good")
        .map(|(_, n)| n)
        .sum();
    let good: usize = per_phase.iter().sum::<usize>() - bad;
    assert!(
        bad <= 2 && good > bad,
        "arrivals in bad phases: {per_phase:?}"
    );
}

/// (c): the node on the peer's clock. The peer runs the simulated time twice from 0 (40 steps,
/// then 20 after a "restart") in steps of one control period, publishing a state and `/clock`
/// at each and waiting for the node's command before the next. For its first 3 s the peer
/// publishes the clock alone: the node's first tick finds no state, and must answer once the
/// state comes (the clock does not move on until it does). The commands of the peer's first
/// 3.3 s are dropped as if lost on the way: the node, its clock standing still, sends the
/// command again.
#[test]
fn node_on_the_simulated_clock_answers_each_step_and_survives_a_restart() {
    let _turn = crate::support::serial::file(module_path!());
    if !common::netns::enter(
        module_path!(),
        "node_on_the_simulated_clock_answers_each_step_and_survives_a_restart",
    ) {
        return;
    }
    let node = spawn_external_block_node("use_sim_time:=true");
    let step = 1.0 / RATE_HZ;
    let report = peer_report(spawn_peer(&[
        "--mode",
        "clock",
        "--syncs",
        "40,20",
        "--sync",
        &step.to_string(),
        "--q0",
        "0.1,0",
        "--clock-lead",
        "3",
        "--ignore-until",
        "3.3",
    ]));
    let (code, err) = stop(node, "-INT");
    assert_eq!(code, Some(0), "SIGINT ends the node with 0: {err}");
    assert!(report["dropped"].as_u64() >= Some(1), "{report}");
    assert!(
        err.contains("sent again while the clock stood still"),
        "{err}"
    );
    let syncs = report["syncs"].as_array().unwrap();
    assert_eq!(syncs.len(), 60);
    let unanswered: Vec<&Value> = syncs.iter().filter(|s| s["answered"] != true).collect();
    eprintln!(
        "{} of 60 steps unanswered: {unanswered:?}; longest wait {:?} s",
        unanswered.len(),
        syncs
            .iter()
            .filter_map(|s| s["wait"].as_f64())
            .fold(0.0, f64::max)
    );
    // Every step is answered, also right after the restart.
    assert!(unanswered.is_empty(), "{unanswered:?}");
    // Plans carry the simulated stamps of the states they were planned from, in both runs.
    let trajectories = report["trajectories"].as_array().unwrap();
    let per_run = |r: u64| {
        trajectories
            .iter()
            .filter(|t| t["run"].as_u64() == Some(r))
            .count()
    };
    eprintln!(
        "{} plans: {} in run 0, {} in run 1",
        trajectories.len(),
        per_run(0),
        per_run(1)
    );
    assert!(
        trajectories.iter().all(|t| !t["run"].is_null()),
        "a plan stamped with a time the peer never published: {trajectories:?}"
    );
    // A plan at every step: the restart's first state is judged by the new clock, not by the
    // old run's stamps.
    assert!(per_run(0) >= 38 && per_run(1) >= 18, "{trajectories:?}");
    assert!(err.contains("/clock went backwards"), "{err}");
}

#[test]
fn sigint_during_the_build_ends_the_node_with_exit_code_0() {
    let _turn = crate::support::serial::file(module_path!());
    // In the namespace as every node test, although the node must end before any DDS traffic.
    if !common::netns::enter(
        module_path!(),
        "sigint_during_the_build_ends_the_node_with_exit_code_0",
    ) {
        return;
    }
    // The quadruped with the explicit dynamics (2): its symbolic M(q)⁻¹ keeps the build busy
    // for a minute, so the signal surely lands during the build (the shipped lifted config
    // builds in a few seconds).
    let shipped = root().join("config/quadruped_mpc.yaml");
    let text = std::fs::read_to_string(&shipped).expect("shipped quadruped config");
    let urdf = root().join("urdf/quadruped.urdf");
    let gaits = root().join("config/quadruped_gaits.json");
    let slow = text
        .replace("lift_velocity_state: true", "lift_velocity_state: false")
        .replace("../urdf/quadruped.urdf", &urdf.display().to_string())
        .replace(
            "gait_library: quadruped_gaits.json",
            &format!("gait_library: {}", gaits.display()),
        );
    assert_ne!(slow, text, "the shipped config lifts the dynamics");
    let config = std::env::temp_dir().join(format!(
        "fesdj_quadruped_explicit_{}.yaml",
        std::process::id()
    ));
    std::fs::write(&config, slow).expect("write the explicit quadruped config");
    // `trap '' INT` sets SIGINT to ignored, as for a background job of a non-interactive
    // shell; `exec` keeps that disposition for the node, which must override it.
    let script = format!(
        "trap '' INT; exec {} --ros-args -p config_file:={} -p floating_base:=true -p sim:=false",
        env!("CARGO_BIN_EXE_fesdj_node"),
        config.display()
    );
    let mut node = Command::new("sh")
        .args(["-c", &script])
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        node.try_wait().expect("wait").is_none(),
        "the quadruped's build takes longer than 2 s"
    );
    let started = std::time::Instant::now();
    let (code, err) = common::process::signal_and_wait(&mut node, "-INT");
    let took = started.elapsed();
    let _ = std::fs::remove_file(&config);
    assert_eq!(code, Some(0), "SIGINT during the build: exit code 0: {err}");
    assert!(err.contains("interrupted during setup"), "{err}");
    assert!(
        !err.contains("started in domain"),
        "it must not start the node: {err}"
    );
    assert!(
        took < Duration::from_secs(5),
        "ended {took:?} after the signal: {err}"
    );
}

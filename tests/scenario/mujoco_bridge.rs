//! The MuJoCo simulator bridge (`tools/mujoco_sim.py`, PyPI `mujoco`), the independent plant
//! of the closed-loop scenarios.
//!
//! * The compiled MuJoCo model of each scenario equals its URDF (link masses, mass centres,
//!   inertias, total mass; `tools/mujoco_model_check.py`) and its joint-space mass matrix
//!   (`mj_fullM`), bias forces and gravity forces at random states equal our `crba`,
//!   `nonlinear_effects` and `gravity` in our coordinates.
//! * Inside a private network namespace: the bridge on the hopper with a Cyclone DDS peer
//!   (`tools/mujoco_test_peer.py`) that publishes a constant effort command for one second:
//!   joint_states at 250 Hz ± 10 % with the expected names and finite values; the hopper falls
//!   from 0.3 m with zero command and lands (foot never deeper than the penetration tolerance,
//!   then resting with the contact carrying its weight); the command is applied while fresh and
//!   replaced by zero torque once older than the timeout; a second bridge started after the
//!   first has exited is seen by the peer (joint_states resume); SIGTERM ends it cleanly.
//! * The quadruped scenario: joint_states with the 12 leg joints and odom (unit quaternions,
//!   the base frame, the initial crouch), commands of the wrong length rejected, the unactuated
//!   robot collapsing onto its body. The pusher scenario: the box's pose published as
//!   `box_x`, `box_y`, `box_z`, `box_yaw`, the box at rest until the arm swings into it, pushed forward,
//!   never lifted off the table.
//!
//! The Python tools come from tools/requirements.txt (tools/test.sh installs them); a missing
//! `mujoco` or `cyclonedds` module fails these tests with that message, it is never skipped.
#![allow(clippy::needless_range_loop)]

use crate::support::mujoco::{
    enter_dds_test, python, require_python_modules, scenario, serial, tmp_dir, tool, Killer,
};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fesdj_mpc::model::{crba, gravity, nonlinear_effects, Data, Model, ModelOptions, RootJoint};
use serde_json::Value;

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn vecf(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

fn root_joint(name: &str) -> RootJoint {
    match name {
        "fixed" => RootJoint::Fixed,
        "planar_xz" => RootJoint::PlanarXz,
        "planar_xy" => RootJoint::PlanarXy,
        "floating_zyx" => RootJoint::FloatingZyx,
        other => panic!("unexpected root {other}"),
    }
}

/// Error of `ours` against `reference`: absolute, relative above 1 in magnitude.
fn err(ours: f64, reference: f64) -> f64 {
    (ours - reference).abs() / reference.abs().max(1.0)
}

/// Runs the model check of a scenario and compares MuJoCo's dynamics with ours.
fn model_check(name: &str, expected_coordinates: &[&str]) {
    let _serial = serial();
    require_python_modules();
    let out = Command::new(python())
        .arg(tool("mujoco_model_check.py"))
        .arg("--scenario")
        .arg(scenario(name))
        .args(["--samples", "6", "--seed", "7"])
        .output()
        .expect("run tools/mujoco_model_check.py");
    assert!(
        out.status.success(),
        "mujoco_model_check.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON from mujoco_model_check.py");
    // Inertial parameters read back from the compiled MuJoCo model equal the URDF's.
    for key in ["max_mass_error", "max_com_error", "max_inertia_error"] {
        let e = r[key].as_f64().expect(key);
        assert!(e <= 1e-12, "{name}: {key} = {e:e}");
    }
    let (m_mj, m_urdf) = (
        r["total_mass"].as_f64().unwrap(),
        r["urdf_total_mass"].as_f64().unwrap(),
    );
    assert!(
        (m_mj - m_urdf).abs() <= 1e-12,
        "{name}: total mass {m_mj} vs {m_urdf}"
    );

    // Our model of the same URDF and root, coordinates in the same order.
    let urdf = PathBuf::from(r["urdf"].as_str().unwrap());
    let g = vecf(&r["gravity"]);
    let options = ModelOptions {
        root: root_joint(r["root"].as_str().unwrap()),
        gravity: [g[0], g[1], g[2]],
    };
    let model = Model::from_urdf_file(&urdf, &options).expect("our model of the URDF");
    let coords: Vec<String> = r["coordinates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    assert_eq!(coords, expected_coordinates, "{name}: coordinates");
    let mut ours: Vec<(usize, String)> = model
        .joints
        .iter()
        .filter(|j| j.nq > 0)
        .map(|j| (j.idx_q, j.name.clone()))
        .collect();
    ours.sort();
    let ours: Vec<String> = ours.into_iter().map(|(_, n)| n).collect();
    assert_eq!(
        ours, coords,
        "{name}: our coordinate order differs from the bridge's"
    );
    assert_eq!(model.nq, coords.len());
    assert_eq!(model.nv, coords.len());

    let nv = model.nv;
    let mut data = Data::<f64>::new(&model);
    let samples = r["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 6);
    let (mut worst_m, mut worst_b, mut worst_g) = (0.0f64, 0.0f64, 0.0f64);
    for s in samples {
        let q = vecf(&s["q"]);
        let v = vecf(&s["v"]);
        let m = crba(&model, &mut data, &q).expect("crba").to_vec();
        let rows = s["M"].as_array().unwrap();
        for i in 0..nv {
            let row = vecf(&rows[i]);
            for j in 0..nv {
                worst_m = worst_m.max(err(m[i * nv + j], row[j]));
            }
        }
        let b = nonlinear_effects(&model, &mut data, &q, &v)
            .expect("nle")
            .to_vec();
        for (a, x) in b.iter().zip(vecf(&s["bias"])) {
            worst_b = worst_b.max(err(*a, x));
        }
        let gr = gravity(&model, &mut data, &q).expect("gravity").to_vec();
        for (a, x) in gr.iter().zip(vecf(&s["gravity"])) {
            worst_g = worst_g.max(err(*a, x));
        }
    }
    println!(
        "{name}: MuJoCo vs ours over {} states: M {worst_m:.2e}, C v + g {worst_b:.2e}, g {worst_g:.2e}",
        samples.len()
    );
    assert!(
        worst_m <= 1e-10,
        "{name}: mass matrix differs by {worst_m:e}"
    );
    assert!(
        worst_b <= 1e-10,
        "{name}: bias forces differ by {worst_b:e}"
    );
    assert!(
        worst_g <= 1e-10,
        "{name}: gravity forces differ by {worst_g:e}"
    );
}

#[test]
fn hopper_mujoco_model_matches_urdf_and_our_dynamics() {
    model_check("hopper", &["root_x", "root_z", "root_pitch", "hip", "leg"]);
}

#[test]
fn quadruped_mujoco_model_matches_urdf_and_our_dynamics() {
    let mut coords = vec![
        "root_x".to_string(),
        "root_y".into(),
        "root_z".into(),
        "root_yaw".into(),
        "root_pitch".into(),
        "root_roll".into(),
    ];
    for leg in ["FL", "FR", "HL", "HR"] {
        for j in ["hip_abduction", "hip_flexion", "knee"] {
            coords.push(format!("{leg}_{j}"));
        }
    }
    let coords: Vec<&str> = coords.iter().map(String::as_str).collect();
    model_check("quadruped", &coords);
}

#[test]
fn pusher_mujoco_model_matches_urdf_and_our_dynamics() {
    model_check("pusher", &["shoulder", "elbow", "wrist"]);
}

/// The bridge's pushes (`--push`, issue 27) deliver their impulse: `tools/mujoco_push_check.py`
/// pushes the quadruped, floating without gravity or contact, with the bridge's own push
/// schedule; its total momentum changes by force × duration. A malformed `--push` is refused
/// with a message naming the option (before any DDS: `--print-mjcf`).
#[test]
fn quadruped_push_delivers_its_impulse_and_bad_pushes_are_refused() {
    let _serial = serial();
    require_python_modules();
    let out = Command::new(python())
        .arg(tool("mujoco_push_check.py"))
        .args(["--push", "0.05,0.1,0,80,0", "--push", "0.3,0.05,10,-40,30"])
        .output()
        .expect("run tools/mujoco_push_check.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "mujoco_push_check.py failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    // 80 N along y for 0.1 s, then (10, -40, 30) N for 0.05 s.
    let expected = [0.5, 6.0, 1.5];
    let dp = vecf(&v["momentum_change"]);
    let applied = vecf(&v["applied_impulse"]);
    for k in 0..3 {
        assert!((applied[k] - expected[k]).abs() < 1e-9, "{v}");
        assert!(
            (dp[k] - expected[k]).abs() < 0.01,
            "momentum change {dp:?}: {v}"
        );
    }
    assert_eq!(v["contacts"].as_u64(), Some(0), "{v}");
    assert_eq!(v["pushes"][0]["steps"].as_u64(), Some(100), "{v}");

    for (bad, says) in [
        ("1,0.1,0,80", "expected T,DURATION,FX,FY,FZ"),
        ("1,0.1,0,eighty,0", "FY must be a number"),
        ("1,0,0,80,0", "`duration` must be > 0"),
        ("1,0.1,0,80,0,tail", "body `tail` is not `base`"),
    ] {
        let out = Command::new(python())
            .arg(tool("mujoco_sim.py"))
            .arg("--scenario")
            .arg(scenario("quadruped"))
            .args(["--print-mjcf", "--push", bad])
            .output()
            .expect("run tools/mujoco_sim.py");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--push {bad}: {err}");
        assert!(
            err.contains("--push") && err.contains(says) && !err.contains("Traceback"),
            "--push {bad}: {err}"
        );
    }
}

/// A malformed `--cmd-vel` (the velocity command sequence the bridge sends on `cmd_vel`) is
/// refused with a message naming the option, before any DDS (`--print-mjcf`); a good one passes.
#[test]
fn bad_cmd_vel_options_are_refused() {
    let _serial = serial();
    require_python_modules();
    let run = |arg: &str| {
        Command::new(python())
            .arg(tool("mujoco_sim.py"))
            .arg("--scenario")
            .arg(scenario("quadruped"))
            .arg("--print-mjcf")
            .arg(format!("--cmd-vel={arg}"))
            .output()
            .expect("run tools/mujoco_sim.py")
    };
    assert!(run("1,0.2,0,0.3").status.success());
    for (bad, says) in [
        ("1,0.2,0", "expected T,VX,VY,WZ"),
        ("1,fast,0,0", "every field must be a number"),
        ("-1,0.2,0,0", "T >= 0"),
        ("1,nan,0,0", "finite"),
    ] {
        let out = run(bad);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--cmd-vel {bad}: {err}");
        assert!(
            err.contains("--cmd-vel") && err.contains(says) && !err.contains("Traceback"),
            "--cmd-vel {bad}: {err}"
        );
    }
}

// --- the bridge over DDS -------------------------------------------------------------------------

fn wait_with_timeout(child: &mut Killer, limit: Duration, what: &str) -> std::process::Output {
    let start = Instant::now();
    let c = child.0.as_mut().expect("a child");
    loop {
        if c.try_wait().expect("poll child").is_some() {
            break;
        }
        assert!(
            start.elapsed() < limit,
            "{what} did not finish in {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.0.take().unwrap().wait_with_output().expect("output")
}

fn spawn_peer(args: &[&str]) -> Killer {
    Killer(Some(
        Command::new(python())
            .arg(tool("mujoco_test_peer.py"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tools/mujoco_test_peer.py"),
    ))
}

fn finish(child: &mut Killer, limit: Duration, what: &str) -> Vec<u8> {
    let o = wait_with_timeout(child, limit, what);
    assert!(
        o.status.success(),
        "{what} failed: {}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

fn spawn_bridge(args: &[&str], log: &Path) -> Killer {
    spawn_scenario("hopper", args, log)
}

fn spawn_scenario(name: &str, args: &[&str], log: &Path) -> Killer {
    let child = Command::new(python())
        .arg(tool("mujoco_sim.py"))
        .arg("--scenario")
        .arg(scenario(name))
        .arg("--log")
        .arg(log)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tools/mujoco_sim.py");
    Killer(Some(child))
}

const TOTAL_MASS: f64 = 1.1; // urdf/hopper.urdf: body 1.0 + housing 0.05 + lower leg 0.05
                             // MuJoCo's soft contact lets the foot sink when the hopper lands at 2.4 m/s on its (stiff) leg
                             // stop: 1.6 cm with MuJoCo's default time constant of 0.02 s, less with the scenario's 5 ms
                             // (`contact_solref`); at rest it is a fraction of a millimetre.
const PENETRATION_TOL: f64 = 0.02; // m, during the landing
const REST_PENETRATION_TOL: f64 = 1e-3; // m, at rest
const COMMAND: [f64; 2] = [0.0, 12.0]; // hip (N m), leg (N): extends the leg against the weight
const TIMEOUT: f64 = 0.1;

#[test]
fn hopper_bridge_over_dds() {
    let Some(_serial) = enter_dds_test(module_path!(), "hopper_bridge_over_dds") else {
        return;
    };
    let dir = tmp_dir("bridge");
    let (log1, log2) = (dir.join("run1.json"), dir.join("run2.json"));
    // The peer: a constant command from 1 s to 2 s after its first joint_states, recording all.
    let mut peer = Killer(Some(
        Command::new(python())
            .arg(tool("mujoco_test_peer.py"))
            .args([
                "--effort",
                &format!("{},{}", COMMAND[0], COMMAND[1]),
                "--effort-after",
                "1.0",
                "--effort-for",
                "1.0",
                "--duration",
                "20",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tools/mujoco_test_peer.py"),
    ));
    // Run 1: from 0.3 m above the ground (root_z 0.8, leg 0.5), 5 s.
    let mut b1 = spawn_bridge(
        &[
            "--duration",
            "5",
            "--initial-q",
            "0.1,0.8,0,0,0.5",
            "--command-timeout",
            &TIMEOUT.to_string(),
        ],
        &log1,
    );
    let o1 = wait_with_timeout(&mut b1, Duration::from_secs(60), "bridge run 1");
    assert!(
        o1.status.success(),
        "bridge run 1 failed: {}\n{}",
        o1.status,
        String::from_utf8_lossy(&o1.stderr)
    );
    std::thread::sleep(Duration::from_millis(1000));
    // Run 2 (the restart): until SIGTERM.
    let mut b2 = spawn_bridge(&["--duration", "0"], &log2);
    // Wait until it runs (it says so on stderr), let it publish for 4 s, then SIGTERM.
    let stderr2 =
        b2.0.as_mut()
            .unwrap()
            .stderr
            .take()
            .expect("stderr of run 2");
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut text = String::new();
        for line in std::io::BufReader::new(stderr2)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains("publishing") {
                let _ = tx.send(());
            }
            text += &line;
            text.push('\n');
        }
        text
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("bridge run 2 did not start within 60 s");
    std::thread::sleep(Duration::from_secs(4));
    let pid = b2.0.as_ref().unwrap().id().to_string();
    let k = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(k.success());
    let o2 = wait_with_timeout(
        &mut b2,
        Duration::from_secs(20),
        "bridge run 2 after SIGTERM",
    );
    let err2 = reader.join().unwrap_or_default();
    assert!(
        o2.status.success(),
        "bridge run 2 did not exit cleanly on SIGTERM: {}\n{err2}",
        o2.status
    );
    let po = wait_with_timeout(&mut peer, Duration::from_secs(60), "peer");
    assert!(
        po.status.success(),
        "peer failed:\n{}",
        String::from_utf8_lossy(&po.stderr)
    );
    let p: Value = serde_json::from_slice(&po.stdout).expect("peer JSON");
    println!("peer: {}", serde_json::to_string(&p["segments"]).unwrap());

    // --- what the peer saw: two runs of joint_states at 250 Hz with the hopper's names.
    let names = ["root_x", "root_z", "root_pitch", "hip", "leg"];
    let segs = p["segments"].as_array().unwrap();
    assert_eq!(
        segs.len(),
        2,
        "joint_states should stop and resume once: {segs:?}"
    );
    for (k, s) in segs.iter().enumerate() {
        let rate = s["rate_hz"].as_f64().unwrap();
        assert!(
            (225.0..=275.0).contains(&rate),
            "run {}: joint_states at {rate} Hz, expected 250 ± 10 %",
            k + 1
        );
        assert!(s["count"].as_u64().unwrap() >= 200, "run {}: {s}", k + 1);
        let seen: Vec<Vec<String>> = serde_json::from_value(s["names"].clone()).unwrap();
        assert_eq!(seen, [names.map(String::from).to_vec()], "run {}", k + 1);
    }
    assert_eq!(p["all_finite"], Value::Bool(true));
    assert_eq!(p["lengths_consistent"], Value::Bool(true));
    assert!(p["commands_sent"].as_u64().unwrap() >= 50);

    // --- run 1 from the bridge's log.
    let l1 = read_json(&log1);
    assert_eq!(l1["meta"]["joint_names"], serde_json::json!(names));
    let samples = l1["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 1250, "5 s at 250 Hz");
    assert_eq!(l1["summary"]["published"].as_u64(), Some(1250));
    let t: Vec<f64> = samples.iter().map(|s| s["t"].as_f64().unwrap()).collect();
    for w in t.windows(2) {
        assert!((w[1] - w[0] - 0.004).abs() < 1e-9, "sample spacing {w:?}");
    }
    let q = |s: &Value, i: usize| s["q"][i].as_f64().unwrap();
    let foot_z = |s: &Value| s["contact_point"]["foot"][2].as_f64().unwrap();
    let fz = |s: &Value| s["contact_force"]["foot"][2].as_f64().unwrap();
    let u = |s: &Value| vecf(&s["u"]);
    assert!((q(&samples[0], 1) - 0.8).abs() < 1e-12 && (foot_z(&samples[0]) - 0.3).abs() < 1e-9);
    let min_foot = samples.iter().map(foot_z).fold(f64::INFINITY, f64::min);
    println!("run 1: lowest foot point {min_foot:.5} m");
    assert!(
        min_foot >= -PENETRATION_TOL,
        "foot {min_foot} below the ground"
    );
    // It fell with zero command: before the first command, the body came down onto the leg.
    let first_cmd = samples
        .iter()
        .position(|s| !s["stale"].as_bool().unwrap())
        .expect("the command was applied at some point");
    let before = &samples[..first_cmd];
    assert!(
        before.len() > 150,
        "the command came too early ({} samples)",
        before.len()
    );
    assert!(before.iter().all(|s| u(s) == [0.0, 0.0]));
    let landed = before.iter().position(|s| fz(s) > 0.0).expect("landed");
    assert!(
        t[landed] > 0.2 && t[landed] < 0.3,
        "free fall of 0.3 m takes 0.247 s, contact at {}",
        t[landed]
    );
    let rest = &before[before.len() - 1];
    let weight = TOTAL_MASS * 9.81;
    assert!(
        (fz(rest) - weight).abs() < 0.02 * weight,
        "at rest the contact carries the weight {weight}: {}",
        fz(rest)
    );
    assert!(
        q(rest, 4) < 0.11,
        "leg compressed to its stop (0.1): {}",
        q(rest, 4)
    );
    assert!(q(rest, 2).abs() < 1e-6, "stayed upright");
    assert!(
        foot_z(rest) > -REST_PENETRATION_TOL && foot_z(rest) < 0.0,
        "foot at rest {}",
        foot_z(rest)
    );
    // Fresh command: applied as sent, and it extends the leg (12 N > the body's weight).
    let fresh: Vec<&Value> = samples
        .iter()
        .filter(|s| !s["stale"].as_bool().unwrap())
        .collect();
    assert!(
        fresh.len() > 150,
        "{} samples with a fresh command",
        fresh.len()
    );
    for s in &fresh {
        let age = s["cmd_age"].as_f64().unwrap();
        assert!(age <= TIMEOUT);
        assert_eq!(u(s), COMMAND.to_vec());
    }
    let leg_max = fresh.iter().map(|s| q(s, 4)).fold(0.0, f64::max);
    assert!(
        leg_max > 0.4,
        "the leg command extended the leg to {leg_max}"
    );
    // Stale command: zero torque once older than the timeout, never before.
    for s in samples {
        match s["cmd_age"].as_f64() {
            Some(age) if age <= TIMEOUT => assert!(!s["stale"].as_bool().unwrap()),
            _ => {
                assert!(s["stale"].as_bool().unwrap());
                assert_eq!(u(s), [0.0, 0.0], "stale command not zeroed: {s}");
            }
        }
    }
    let events = l1["events"].as_array().unwrap();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"command fresh"), "{events:?}");
    assert_eq!(kinds.last(), Some(&"command stale"), "{events:?}");
    for e in events {
        if e["event"] == "command stale" {
            // detected at the first 1 kHz step past the timeout (plus any lateness of the loop)
            let age = e["age"].as_f64().unwrap();
            assert!(age > TIMEOUT && age < TIMEOUT + 0.05, "{events:?}");
        }
    }
    // After the command stopped the hopper came back to rest on the ground.
    let last = samples.last().unwrap();
    assert!(
        (fz(last) - weight).abs() < 0.02 * weight,
        "contact force at the end {}",
        fz(last)
    );
    assert!(vecf(&last["v"]).iter().all(|v| v.abs() < 1e-3));

    // --- run 2: started from the config's initial state, ended by SIGTERM with its log.
    let l2 = read_json(&log2);
    assert_eq!(l2["summary"]["stopped_by_signal"], Value::Bool(true));
    let s2 = l2["samples"].as_array().unwrap();
    let seen2 = segs[1]["count"].as_u64().unwrap() as usize;
    assert!(
        s2.len() >= seen2,
        "run 2 logged {} samples, the peer received {seen2}",
        s2.len()
    );
    assert_eq!(vecf(&s2[0]["q"]), [0.1, 0.5, 0.0, 0.0, 0.5]);
    assert!(s2.iter().all(|s| s["stale"].as_bool().unwrap()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn quadruped_bridge_publishes_joints_and_odom() {
    let Some(_serial) =
        enter_dds_test(module_path!(), "quadruped_bridge_publishes_joints_and_odom")
    else {
        return;
    };
    let dir = tmp_dir("quadruped");
    let log = dir.join("run.json");
    let mut peer = spawn_peer(&["--odom", "--effort", "1,1", "--duration", "6"]);
    let mut bridge = spawn_scenario("quadruped", &["--duration", "3"], &log);
    finish(&mut bridge, Duration::from_secs(60), "quadruped bridge");
    let p: Value = serde_json::from_slice(&finish(&mut peer, Duration::from_secs(60), "peer"))
        .expect("peer JSON");
    println!("peer: {}", serde_json::to_string(&p["odom"]).unwrap());
    let segs = p["segments"].as_array().unwrap();
    assert_eq!(segs.len(), 1, "{segs:?}");
    let mut names = Vec::new();
    for leg in ["FL", "FR", "HL", "HR"] {
        for j in ["hip_abduction", "hip_flexion", "knee"] {
            names.push(format!("{leg}_{j}"));
        }
    }
    let seen: Vec<Vec<String>> = serde_json::from_value(segs[0]["names"].clone()).unwrap();
    assert_eq!(
        seen,
        [names.clone()],
        "joint_states carries the 12 leg joints"
    );
    assert_eq!(p["all_finite"], Value::Bool(true));
    // odom: one per joint_states, the base frame name, unit quaternions, the initial pose first
    // (the peer may miss the first messages during discovery: compare with the log).
    let od = &p["odom"];
    assert_eq!(od["frame_id"], "odom");
    assert_eq!(od["child_frame_id"], "body");
    assert!(od["max_quaternion_norm_error"].as_f64().unwrap() < 1e-9);
    let (n_odom, n_js) = (
        od["count"].as_u64().unwrap(),
        segs[0]["count"].as_u64().unwrap(),
    );
    assert!(
        n_js >= 400 && n_odom >= 400,
        "{n_odom} odom, {n_js} joint_states"
    );
    let l = read_json(&log);
    let samples = l["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 750);
    let base0 = vecf(&samples[0]["base"]);
    // the initial state of config/quadruped_mpc.yaml: x = y = 0, z = 0.27869, zero angles (the
    // identity quaternion), at rest
    let want = [0.0, 0.0, 0.27869, 0.0, 0.0, 0.0, 1.0];
    for k in 0..7 {
        assert!((base0[k] - want[k]).abs() < 1e-12, "base {base0:?}");
    }
    assert!(base0[7..].iter().all(|v| v.abs() < 1e-12));
    let q0 = vecf(&samples[0]["q"]);
    let crouch = [0.0, 0.8, -1.6];
    for (k, x) in q0.iter().enumerate() {
        assert!((x - crouch[k % 3]).abs() < 1e-12, "{q0:?}");
    }
    // The feet start on the ground (the crouch puts them 0.4 cos 0.8 = 0.27868 m below the hips).
    for c in ["FL_foot", "FR_foot", "HL_foot", "HR_foot"] {
        let z = samples[0]["contact_point"][c][2].as_f64().unwrap();
        assert!(z.abs() < 2e-4, "{c} at {z}");
    }
    // The peer's 2-value commands do not fit the 12 actuators: rejected, zero torque throughout.
    assert!(l["summary"]["commands_rejected"].as_u64().unwrap() > 0);
    assert_eq!(l["summary"]["commands_received"].as_u64(), Some(0));
    assert!(samples
        .iter()
        .all(|s| vecf(&s["u"]).iter().all(|u| *u == 0.0)));
    // Unactuated, the legs give way and the body (a collision box 0.1 m high) comes to rest on
    // the ground, which lies one point radius (0.01 m) below z = 0.
    let last = samples.last().unwrap();
    let z_end = vecf(&last["base"])[2];
    assert!(
        (z_end - (0.05 - 0.01)).abs() < 3e-3,
        "the unactuated quadruped should rest on its body: base at {z_end}"
    );
    assert!(vecf(&last["base"])[7..].iter().all(|v| v.abs() < 0.05));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pusher_bridge_publishes_the_box() {
    let Some(_serial) = enter_dds_test(module_path!(), "pusher_bridge_publishes_the_box") else {
        return;
    };
    let dir = tmp_dir("pusher");
    let log = dir.join("run.json");
    // An elbow torque of 0.5 N m from 0.5 s to 1.0 s swings the pushing plate into the box.
    let mut peer = spawn_peer(&[
        "--effort",
        "0,0.5,0",
        "--effort-after",
        "0.5",
        "--effort-for",
        "0.5",
        "--duration",
        "6",
    ]);
    let mut bridge = spawn_scenario("pusher", &["--duration", "3"], &log);
    finish(&mut bridge, Duration::from_secs(60), "pusher bridge");
    let p: Value = serde_json::from_slice(&finish(&mut peer, Duration::from_secs(60), "peer"))
        .expect("peer JSON");
    let segs = p["segments"].as_array().unwrap();
    assert_eq!(segs.len(), 1, "{segs:?}");
    let names = [
        "shoulder", "elbow", "wrist", "box_x", "box_y", "box_z", "box_yaw",
    ];
    let seen: Vec<Vec<String>> = serde_json::from_value(segs[0]["names"].clone()).unwrap();
    assert_eq!(seen, [names.map(String::from).to_vec()]);
    let l = read_json(&log);
    let samples = l["samples"].as_array().unwrap();
    let q0 = vecf(&samples[0]["q"]);
    assert_eq!(
        q0,
        [0.88582209, -2.01370737, 1.12788528, 0.55, 0.0, 0.45, 0.0],
        "initial arm and box"
    );
    // box_x, box_y, box_z, box_yaw are the box's pose (log: position and quaternion w x y z).
    for s in samples {
        let q = vecf(&s["q"]);
        let b = vecf(&s["box_pose"]);
        let yaw =
            (2.0 * (b[3] * b[6] + b[4] * b[5])).atan2(1.0 - 2.0 * (b[5] * b[5] + b[6] * b[6]));
        assert!((q[3] - b[0]).abs() < 1e-12 && (q[4] - b[1]).abs() < 1e-12);
        assert!((q[5] - b[2]).abs() < 1e-12 && (q[6] - yaw).abs() < 1e-12);
        // never lifted: it stays on the table top (0.40 m) with its centre at 0.45 m
        assert!((b[2] - 0.45).abs() < 2e-3, "box lifted to {}", b[2]);
    }
    // The box rests until pushed, then moves forward; the tool felt it.
    let fresh = samples
        .iter()
        .position(|s| !s["stale"].as_bool().unwrap())
        .expect("the command arrived");
    for s in &samples[..fresh] {
        assert!((vecf(&s["q"])[3] - 0.55).abs() < 1e-6);
    }
    let last = vecf(&samples.last().unwrap()["q"]);
    assert!(
        last[3] > 0.56,
        "the box was pushed forward: box_x {}",
        last[3]
    );
    let touched = samples.iter().any(|s| {
        vecf(&s["contact_force"]["tool_l"])[0] + vecf(&s["contact_force"]["tool_r"])[0] < -0.1
    });
    assert!(touched, "the box pushed back on the tool");
    let _ = std::fs::remove_dir_all(&dir);
}

//! Issue 7's hopper scenario: `fesdj_node` (`sim: false`, `config/hopper_mpc.yaml`) drives
//! the hopper simulated by MuJoCo (`tools/mujoco_sim.py`, PyPI `mujoco`: soft contact, its own
//! integrator and dynamics), bridged over DDS exactly as a robot would be, inside a private
//! network namespace. From rest, within 4 s of simulated time, the hopper must hop forward at
//! least 0.5 m, never fall (body above 0.1 m, |pitch| < 0.5 rad at every sample of the
//! bridge's log) and show at least two flight phases; every applied command is finite and
//! within the effort limit; SIGINT ends the node with exit code 0.
//!
//! The bridge paces MuJoCo to the wall clock (1 kHz physics, joint_states at 250 Hz) and holds
//! the initial state until the node's first command (`--start-on-command`).

mod hopper_common;
use hopper_common::flight_phases;

#[path = "ros_common/netns.rs"]
mod netns;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const DURATION_S: f64 = 4.0;
const EFFORT_LIMIT: f64 = 50.0; // config/hopper_mpc.yaml mpc.effort_limit

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn python() -> String {
    std::env::var("FESDJ_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Kills the child if the test panics before it ended.
struct Killer(Option<Child>);

impl Drop for Killer {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Wait for the child to exit (killing it after `limit`); exit code and stderr.
fn wait(child: &mut Killer, limit: Duration) -> (Option<i32>, String) {
    let mut c = child.0.take().expect("a child");
    let end = Instant::now() + limit;
    let status = loop {
        if let Some(s) = c.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > end {
            let _ = c.kill();
            break c.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    if let Some(mut e) = c.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut err);
    }
    (status.code(), err)
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
        .unwrap_or_default()
}

#[test]
fn node_hops_the_mujoco_hopper_forward() {
    if !netns::enter("node_hops_the_mujoco_hopper_forward") {
        return;
    }
    let modules = Command::new(python())
        .args(["-c", "import mujoco, cyclonedds, yaml, numpy"])
        .status();
    assert!(
        matches!(modules, Ok(s) if s.success()),
        "needs PyPI mujoco, cyclonedds, pyyaml, numpy: python3 -m pip install -r \
         tools/requirements.txt"
    );
    let dir = std::env::temp_dir().join(format!("fesdj_scenario_hopper_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let log = dir.join("mujoco.json");
    let config = root().join("config/hopper_mpc.yaml");
    let mut bridge = Killer(Some(
        Command::new(python())
            .arg(root().join("tools/mujoco_sim.py"))
            .arg("--scenario")
            .arg(root().join("tools/scenarios/hopper.yaml"))
            .arg("--config")
            .arg(&config)
            .args(["--duration", &DURATION_S.to_string()])
            .args(["--start-on-command", "--start-timeout", "60"])
            .arg("--log")
            .arg(&log)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tools/mujoco_sim.py"),
    ));
    let mut node = Killer(Some(
        Command::new(env!("CARGO_BIN_EXE_fesdj_node"))
            .args(["--ros-args", "-p"])
            .arg(format!("config_file:={}", config.display()))
            .args(["-p", "sim:=false", "-p", "start_enabled:=true"])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("fesdj_node starts"),
    ));
    let (code, bridge_err) = wait(&mut bridge, Duration::from_secs(120));
    assert_eq!(code, Some(0), "the bridge ends by itself: {bridge_err}");
    let pid = node
        .0
        .as_ref()
        .map(|c| c.id().to_string())
        .unwrap_or_default();
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let (code, node_err) = wait(&mut node, Duration::from_secs(20));
    eprintln!("{node_err}");
    assert_eq!(code, Some(0), "SIGINT ends the node with 0");

    let doc: Value = serde_json::from_slice(&std::fs::read(&log).expect("bridge log"))
        .expect("bridge log is JSON");
    let summary = &doc["summary"];
    eprintln!("bridge summary: {summary}");
    let samples = doc["samples"].as_array().cloned().unwrap_or_default();
    assert!(
        summary["commands_received"].as_u64().unwrap_or(0) >= 40,
        "the node commands at 20 Hz: {summary}"
    );
    let t_end = samples.last().and_then(|s| s["t"].as_f64()).unwrap_or(0.0);
    assert!(t_end >= DURATION_S - 0.05, "simulated {t_end} s");
    let qs: Vec<Vec<f64>> = samples.iter().map(|s| numbers(&s["q"])).collect();
    for (s, q) in samples.iter().zip(&qs) {
        assert!(q.len() == 5 && q.iter().all(|x| x.is_finite()), "{s}");
        assert!(q[1] > 0.1, "fell (body at {:.3} m): t = {}", q[1], s["t"]);
        assert!(q[2].abs() < 0.5, "fell (pitch {:.3}): t = {}", q[2], s["t"]);
        let u = numbers(&s["u"]);
        assert!(
            u.len() == 2
                && u.iter()
                    .all(|x| x.is_finite() && x.abs() <= EFFORT_LIMIT + 1e-9),
            "applied command: {s}"
        );
    }
    let x0 = qs[0][0];
    let forward = qs.iter().map(|q| q[0] - x0).fold(f64::MIN, f64::max);
    let flights = flight_phases(qs.iter().map(|q| q.as_slice()));
    let min_z = qs.iter().map(|q| q[1]).fold(f64::MAX, f64::min);
    let max_pitch = qs.iter().map(|q| q[2].abs()).fold(0.0, f64::max);
    eprintln!(
        "MuJoCo hopper: {forward:.3} m forward (final {:.3}), {flights} flight phases, body z \
         ≥ {min_z:.3}, |pitch| ≤ {max_pitch:.3}",
        qs.last().map_or(f64::NAN, |q| q[0] - x0)
    );
    assert!(forward >= 0.5, "hops forward: {forward:.3} m");
    assert!(flights >= 2, "{flights} flight phases");
    let _ = std::fs::remove_dir_all(&dir);
}

//! Helpers of the node-in-MuJoCo scenario tests (`tests/scenario/scenario_*.rs`):
//! the bridge on a scenario, `fesdj_node` with `sim: false`, waiting for and interrupting them,
//! and reading the bridge's log.
#![allow(dead_code)]

use super::mujoco::{python, scenario, tool, Killer};
use super::process;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// Wait for the child to exit (killing it after `limit`); exit code and stderr.
pub fn wait(child: &mut Killer, limit: Duration) -> (Option<i32>, String) {
    let mut c = child.0.take().expect("a child");
    process::wait_with_limit(&mut c, limit)
}

/// A JSON array of numbers (NaN for anything else; empty if not an array).
pub fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
        .unwrap_or_default()
}

/// The MuJoCo bridge on `tools/scenarios/<name>.yaml` (with the problem `config` when given),
/// held until the first command, for `seconds` of simulated time, logging to `log`.
pub fn spawn_bridge(name: &str, config: Option<&Path>, seconds: f64, log: &Path) -> Killer {
    spawn_bridge_clocked(name, config, seconds, log, None)
}

/// [`spawn_bridge`], or with `lockstep = Some(period)` the bridge in lockstep with a node on
/// its `/clock` (`--lockstep period`; it waits for the first command at t = 0 by itself).
pub fn spawn_bridge_clocked(
    name: &str,
    config: Option<&Path>,
    seconds: f64,
    log: &Path,
    lockstep: Option<f64>,
) -> Killer {
    spawn_bridge_with(name, config, seconds, log, lockstep, &[])
}

/// [`spawn_bridge_clocked`] with extra command-line options of the bridge (e.g. `--push`).
pub fn spawn_bridge_with(
    name: &str,
    config: Option<&Path>,
    seconds: f64,
    log: &Path,
    lockstep: Option<f64>,
    extra: &[String],
) -> Killer {
    let mut cmd = Command::new(python());
    cmd.arg(tool("mujoco_sim.py"))
        .arg("--scenario")
        .arg(scenario(name));
    if let Some(c) = config {
        cmd.arg("--config").arg(c);
    }
    match lockstep {
        Some(period) => cmd.args(["--lockstep", &period.to_string()]),
        None => cmd.args(["--start-on-command", "--start-timeout", "60"]),
    };
    Killer(Some(
        cmd.args(["--duration", &seconds.to_string()])
            .args(extra)
            .arg("--log")
            .arg(log)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tools/mujoco_sim.py"),
    ))
}

/// `fesdj_node` on `config` with `sim: false`, enabled, plus `-p` parameters `extra`.
pub fn spawn_node(config: &Path, dir: &Path, extra: &[&str]) -> Killer {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fesdj_node"));
    cmd.args(["--ros-args", "-p"])
        .arg(format!("config_file:={}", config.display()))
        .args(["-p", "sim:=false", "-p", "start_enabled:=true"]);
    for p in extra {
        cmd.args(["-p", p]);
    }
    Killer(Some(
        cmd.current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("fesdj_node starts"),
    ))
}

/// SIGINT to the node; asserts exit code 0 and returns its stderr.
pub fn interrupt(node: &mut Killer) -> String {
    let mut c = node.0.take().expect("the node");
    let (code, err) = process::signal_and_wait(&mut c, "-INT");
    eprintln!("{err}");
    assert_eq!(code, Some(0), "SIGINT ends the node with 0: {err}");
    err
}

/// The bridge's JSON log.
pub fn read_log(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("bridge log")).expect("bridge log is JSON")
}

/// Node and bridge on scenario `name` (`config` is the node's problem file) for `seconds` of
/// simulated time, in lockstep when `lockstep` is given (then the node gets `use_sim_time`);
/// `node_params` are extra `-p` parameters. Waits up to `limit` for the bridge, interrupts the
/// node (asserting exit code 0) and returns the bridge's log and the node's stderr. Files go
/// to `dir`.
pub fn run_scenario(
    name: &str,
    config: &Path,
    seconds: f64,
    lockstep: Option<f64>,
    node_params: &[&str],
    dir: &Path,
    limit: Duration,
) -> (Value, String) {
    run_scenario_with(
        name,
        config,
        seconds,
        lockstep,
        node_params,
        &[],
        dir,
        limit,
    )
}

/// [`run_scenario`] with extra command-line options of the bridge (`bridge_args`, e.g.
/// `--config` or `--push`).
#[allow(clippy::too_many_arguments)]
pub fn run_scenario_with(
    name: &str,
    config: &Path,
    seconds: f64,
    lockstep: Option<f64>,
    node_params: &[&str],
    bridge_args: &[String],
    dir: &Path,
    limit: Duration,
) -> (Value, String) {
    let log = dir.join("mujoco.json");
    let mut bridge = spawn_bridge_with(name, None, seconds, &log, lockstep, bridge_args);
    let mut params = node_params.to_vec();
    if lockstep.is_some() {
        params.push("use_sim_time:=true");
    }
    let mut node = spawn_node(config, dir, &params);
    let (code, bridge_err) = wait(&mut bridge, limit);
    assert_eq!(code, Some(0), "the bridge ends by itself: {bridge_err}");
    let node_err = interrupt(&mut node);
    (read_log(&log), node_err)
}

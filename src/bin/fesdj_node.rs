//! `fesdj_node`: the ROS 2 node `fesdj_mpc` running FESD-J MPC (see `fesdj_mpc::app::node` and
//! `fesdj_mpc::ros`). Without arguments it runs the embedded demo with the FESD-J simulator as
//! plant. `fesdj_node --ros-args -p config_file:=FILE.yaml [-p sim:=true] ...`.
//! SIGINT/SIGTERM end it with exit code 0, also during the problem build (which takes tens of
//! seconds for a whole-body robot); setup errors exit with 2.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use fesdj_mpc::app::node;
use fesdj_mpc::ros::{args, shutdown, NodeRuntime};

const USAGE: &str = "usage: fesdj_node [--ros-args -p config_file:=FILE.yaml \
[-p robot_description_path:=ROBOT.urdf] [-p sim:=true|false] [-p rate_hz:=HZ] \
[-p start_enabled:=true] [--params-file PARAMS.yaml] [-r __node:=NAME] [-r __ns:=/NS] [-r FROM:=TO]]
Without arguments: the embedded demo (FESD-J simulator as plant, enabled).
Parameters, topics and services: see docs/ros-node.md.";

fn main() {
    std::process::exit(match run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("[FATAL] fesdj_node: {e}");
            2
        }
    });
}

/// Ends the process with exit code 0 when `stop` is set before `done` (a signal during the
/// build, which does not look at the flag itself).
fn exit_on_stop_until(stop: Arc<AtomicBool>, done: Arc<AtomicBool>) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("setup-interrupt".into())
        .spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if stop.load(Ordering::Relaxed) {
                    eprintln!("[INFO] fesdj_node: interrupted during setup");
                    std::process::exit(0);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })?;
    Ok(())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // The signal handlers first: a SIGINT during the build must not be lost (a background job
    // started by a script inherits SIGINT ignored; registering the handler replaces that).
    let stop = shutdown::flag_on_signals()?;
    let ros_args = args::RosArgs::from_env()?;
    if let Some(a) = ros_args.user_args.first() {
        if a == "--help" || a == "-h" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        return Err(format!("unexpected argument '{a}'\n{USAGE}").into());
    }
    let built = Arc::new(AtomicBool::new(false));
    exit_on_stop_until(Arc::clone(&stop), Arc::clone(&built))?;
    let setup = node::setup(&ros_args, args::domain_id_from_env()?);
    built.store(true, Ordering::Relaxed);
    let node::NodeSetup {
        config,
        mut provider,
        plant,
        warnings,
    } = setup?;
    for w in warnings {
        eprintln!("[WARN] {w}");
    }
    let p = &config.params;
    eprintln!(
        "[INFO] fesdj_node: joints {:?}, efforts {:?}, {} Hz (commands {} Hz), horizon N = {} T = {} s, sim {}, enabled {}",
        p.joint_names,
        p.effort_joints,
        p.rate_hz,
        if p.command_rate_hz > 0.0 { p.command_rate_hz } else { p.rate_hz },
        p.horizon_n,
        p.horizon_t,
        p.sim,
        p.start_enabled
    );
    let mut rt = NodeRuntime::new(config)?;
    if let Some(plant) = plant {
        if rt.set_plant(plant).is_err() {
            return Err("an internal plant was built without `sim: true`".into());
        }
    }
    rt.run(&mut provider, &stop)?;
    Ok(())
}

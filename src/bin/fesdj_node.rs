//! `fesdj_node`: the ROS 2 node `fesdj_mpc` running FESD-J MPC (see `fesdj_mpc::node` and
//! `fesdj_mpc::ros`). Without arguments it runs the embedded demo with the FESD-J simulator as
//! plant. `fesdj_node --ros-args -p config_file:=FILE.yaml [-p sim:=true] ...`.
//! SIGINT/SIGTERM end it with exit code 0; setup errors exit with 2.

use fesdj_mpc::node;
use fesdj_mpc::ros::{args, shutdown, NodeRuntime, PlanProvider};

const USAGE: &str = "usage: fesdj_node [--ros-args -p config_file:=FILE.yaml \
[-p robot_description_path:=ROBOT.urdf] [-p sim:=true|false] [-p rate_hz:=HZ] \
[-p start_enabled:=true] [--params-file PARAMS.yaml] [-r __node:=NAME] [-r __ns:=/NS] [-r FROM:=TO]]
Without arguments: the embedded demo (FESD-J simulator as plant, enabled).
Parameters, topics and services: see README (ROS 2 node).";

fn main() {
    std::process::exit(match run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("[FATAL] fesdj_node: {e}");
            2
        }
    });
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ros_args = args::RosArgs::from_env()?;
    if let Some(a) = ros_args.user_args.first() {
        if a == "--help" || a == "-h" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        return Err(format!("unexpected argument '{a}'\n{USAGE}").into());
    }
    let (config, mut provider, warnings) = node::setup(&ros_args, args::domain_id_from_env()?)?;
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
    let stop = shutdown::flag_on_signals()?;
    let mut rt = NodeRuntime::new(config)?;
    let provider: &mut dyn PlanProvider = &mut provider;
    rt.run(provider, &stop)?;
    Ok(())
}

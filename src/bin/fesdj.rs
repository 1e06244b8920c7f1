//! `fesdj`: the command-line tool of fesdj_mpc.

use clap::{Parser, Subcommand};
use fesdj_mpc::cli;

/// FESD-J trajectory optimisation and MPC through impacts and Coulomb friction.
#[derive(Parser, Debug)]
#[command(name = "fesdj", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Build a problem file's model and transcriptions and print their sizes (no solve).
    Check(cli::check::CheckArgs),
    /// Compare our rigid-body dynamics with a Pinocchio reference file.
    Dynamics(cli::dynamics::DynamicsArgs),
    /// Evaluate an imported function (and its sparse derivatives) at given inputs.
    Eval(cli::eval::EvalArgs),
    /// The gait library: periodic OCPs of a library file's commanded velocities, in parallel.
    Gaits(cli::gaits::GaitsArgs),
    /// Receding-horizon MPC of a problem file in closed loop against the FESD-J simulator.
    Mpc(cli::mpc::MpcArgs),
    /// The FESD-J controller of a problem file against its time-stepping baseline, same plant.
    MpcCompare(cli::mpc_compare::MpcCompareArgs),
    /// Solve mathematical programs with complementarity constraints.
    Mpcc(cli::mpcc::MpccArgs),
    /// Simulate a problem file with FESD-J as an integrator (repeated one-interval problems).
    Simulate(cli::simulate::SimulateArgs),
    /// Solve a problem file's optimal control problem (FESD-J transcription, MPCC homotopy).
    Solve(cli::solve::SolveArgs),
}

fn main() {
    let args = Cli::parse();
    let code = match &args.command {
        Command::Check(a) => cli::check::run(a),
        Command::Dynamics(a) => cli::dynamics::run(a),
        Command::Eval(a) => match cli::eval::run(a) {
            Ok(doc) => match serde_json::to_string_pretty(&doc) {
                Ok(text) => {
                    println!("{text}");
                    0
                }
                Err(e) => {
                    eprintln!("fesdj eval: cannot write JSON: {e}");
                    2
                }
            },
            Err(e) => {
                eprintln!("fesdj eval: {e}");
                2
            }
        },
        Command::Gaits(a) => cli::gaits::run(a),
        Command::Mpc(a) => cli::mpc::run(a),
        Command::MpcCompare(a) => cli::mpc_compare::run(a),
        Command::Mpcc(a) => cli::mpcc::run(a),
        Command::Simulate(a) => cli::simulate::run(a),
        Command::Solve(a) => cli::solve::run(a),
    };
    std::process::exit(code);
}

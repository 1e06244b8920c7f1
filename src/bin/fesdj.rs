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
    /// Compare our rigid-body dynamics with a Pinocchio reference file.
    Dynamics(cli::dynamics::DynamicsArgs),
    /// Evaluate an imported function (and its sparse derivatives) at given inputs.
    Eval(cli::eval::EvalArgs),
    /// Solve mathematical programs with complementarity constraints.
    Mpcc(cli::mpcc::MpccArgs),
}

fn main() {
    let args = Cli::parse();
    let code = match &args.command {
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
        Command::Mpcc(a) => cli::mpcc::run(a),
    };
    std::process::exit(code);
}

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
}

fn main() {
    let args = Cli::parse();
    let code = match &args.command {
        Command::Dynamics(a) => cli::dynamics::run(a),
    };
    std::process::exit(code);
}

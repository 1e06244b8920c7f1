//! `fesdj`: the command-line tool of fesdj_mpc.

use clap::{Parser, Subcommand};
use fesdj_mpc::cli;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "fesdj",
    version,
    about = "FESD-J trajectory optimisation and MPC through impacts and friction"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate an imported function (and its sparse derivatives) at given inputs.
    Eval(cli::eval::EvalArgs),
    /// Solve mathematical programs with complementarity constraints.
    Mpcc(cli::mpcc::MpccArgs),
}

fn main() -> ExitCode {
    let args = Cli::parse();
    match args.command {
        Command::Eval(a) => match cli::eval::run(&a) {
            Ok(doc) => {
                println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("fesdj eval: {e}");
                ExitCode::from(2)
            }
        },
        Command::Mpcc(a) => ExitCode::from(cli::mpcc::run(&a).clamp(0, 255) as u8),
    }
}

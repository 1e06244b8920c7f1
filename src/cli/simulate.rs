//! `fesdj simulate CONFIG.yaml [--set KEY=VALUE]... [--output OUT.json] [--plot OUT.svg]`:
//! FESD-J as an integrator (spec §4.6): `simulation.N_sim` one-interval problems over
//! `simulation.T_sim / N_sim` with the controls `simulation.u`, each from the previous end
//! state. Exit codes as in [`run`](super::run): 0 every step solved, 1 some step failed, 2 error.

use super::run::{dry_run, validate, RunArgs, RunError};
use crate::config::Problem;

/// Arguments of `fesdj simulate`.
#[derive(clap::Args, Debug, Clone)]
pub struct SimulateArgs {
    /// Problem file, overrides and outputs.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Load the problem and build the simulation step (library entry point). Returns the trajectory
/// document written to `--output`.
pub fn simulate(args: &SimulateArgs) -> Result<serde_json::Value, RunError> {
    let problem = Problem::load(&args.run.config, &args.run.set)?;
    let setup = problem.simulation()?;
    validate(&args.run)?;
    Err(RunError::Unavailable(format!(
        "the simulation of {} ({} steps of {} s) builds, but the FESD-J simulate API \
         (src/fesdj/simulate.rs, branch fesdj-sim) is not on main yet; \
         `fesdj check` / `--dry-run` print the transcription sizes",
        args.run.config.display(),
        setup.n_steps,
        setup.options.t_final
    )))
}

/// Run the command; returns the process exit code.
pub fn run(args: &SimulateArgs) -> i32 {
    if args.run.dry_run {
        return dry_run(&args.run);
    }
    match simulate(args) {
        Ok(doc) => {
            super::run::summary("simulate", &doc);
            super::run::exit_code(&doc)
        }
        Err(e) => {
            eprintln!("fesdj simulate: {e}");
            2
        }
    }
}

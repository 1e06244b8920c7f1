//! `fesdj simulate CONFIG.yaml [--set KEY=VALUE]... [--output OUT.json] [--plot OUT.svg]`:
//! FESD-J as an integrator (spec §4.6): `simulation.N_sim` one-interval problems over
//! `simulation.T_sim / N_sim` with the controls `simulation.u`, each from the previous end
//! state. Exit codes as in [`run`](super::run): 0 every step solved, 1 some step failed, 2 error.

use super::run::{dry_run, labels, spinner, write_outputs, RunArgs, RunError};
use crate::app::closed_loop::{build_simulation, Simulation};
use crate::config::Problem;
use crate::fesdj::Controls;

/// Arguments of `fesdj simulate`.
#[derive(clap::Args, Debug, Clone)]
pub struct SimulateArgs {
    /// Problem file, overrides and outputs.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Load the problem, simulate it and write the outputs (library entry point). Returns the
/// trajectory document (the `--output` contents).
pub fn simulate(args: &SimulateArgs) -> Result<serde_json::Value, RunError> {
    let problem = Problem::load(&args.run.config, &args.run.set)?;
    for w in &problem.warnings {
        eprintln!("warning: {w}");
    }
    let Simulation {
        simulator: mut sim,
        options,
        controls,
    } = build_simulation(&problem)?;
    let pb = spinner(
        &args.run,
        &format!(
            "simulating {} steps of {} s",
            options.n_sim, options.fesdj.t_final
        ),
    );
    let controls = Controls::PerStep(controls);
    let result = sim.run(&problem.x0(), &controls, options.n_sim);
    pb.finish_and_clear();
    let doc = serde_json::to_value(result?)?;
    write_outputs(&doc, &labels(&problem, "simulate"), &args.run)?;
    Ok(doc)
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

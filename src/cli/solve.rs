//! `fesdj solve CONFIG.yaml [--set KEY=VALUE]... [--output OUT.json] [--plot OUT.svg]`: the
//! optimal control problem of `horizon` + `ocp` (spec §4) transcribed with FESD-J and solved by
//! the MPCC homotopy with the `solver` settings. Exit codes as in [`run`](super::run).

use super::run::{dry_run, validate, RunArgs, RunError};
use crate::config::Problem;

/// Arguments of `fesdj solve`.
#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    /// Problem file, overrides and outputs.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Load the problem and build the OCP (library entry point). Returns the trajectory document
/// written to `--output`.
pub fn solve(args: &SolveArgs) -> Result<serde_json::Value, RunError> {
    let problem = Problem::load(&args.run.config, &args.run.set)?;
    let setup = problem.ocp()?;
    validate(&args.run)?;
    Err(RunError::Unavailable(format!(
        "the OCP of {} (T = {}, N = {}) builds, but the FESD-J solve API \
         (src/fesdj/problem.rs, branch fesdj-sim) is not on main yet; \
         `fesdj check` / `--dry-run` print the transcription sizes",
        args.run.config.display(),
        setup.options.t_final,
        setup.options.n_intervals
    )))
}

/// Run the command; returns the process exit code.
pub fn run(args: &SolveArgs) -> i32 {
    if args.run.dry_run {
        return dry_run(&args.run);
    }
    match solve(args) {
        Ok(doc) => {
            super::run::summary("solve", &doc);
            super::run::exit_code(&doc)
        }
        Err(e) => {
            eprintln!("fesdj solve: {e}");
            2
        }
    }
}

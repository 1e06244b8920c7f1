//! `fesdj solve CONFIG.yaml [--set KEY=VALUE]... [--output OUT.json] [--plot OUT.svg]`: the
//! optimal control problem of `horizon` + `ocp` (spec §4) transcribed with FESD-J and solved by
//! the MPCC homotopy with the `solver` settings. Exit codes as in [`run`](super::run).

use super::run::{dry_run, labels, solve_options, spinner, write_outputs, RunArgs, RunError};
use crate::config::Problem;
use crate::fesdj::{FesdjProblem, Start};

/// Arguments of `fesdj solve`.
#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    /// Problem file, overrides and outputs.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Load the problem, solve its OCP and write the outputs (library entry point). Returns the
/// trajectory document (the `--output` contents).
pub fn solve(args: &SolveArgs) -> Result<serde_json::Value, RunError> {
    let problem = Problem::load(&args.run.config, &args.run.set)?;
    for w in &problem.warnings {
        eprintln!("warning: {w}");
    }
    let mut fp = build_ocp(&problem)?;
    let pb = spinner(
        &args.run,
        &format!(
            "solving the OCP (n_w = {}, N = {}, homotopy)",
            fp.n_w(),
            fp.layout().n_intervals()
        ),
    );
    let result = fp.solve(Start::Guess);
    pb.finish_and_clear();
    let mut doc = serde_json::to_value(result?)?;
    // The relaxed NLPs of the homotopy (σ, status, iterations, objective, max min(G, H),
    // wall time; σ = 0 for the polishing step), for diagnosing a solve.
    if let serde_json::Value::Object(m) = &mut doc {
        m.insert("homotopy".into(), serde_json::to_value(fp.last_homotopy())?);
    }
    write_outputs(&doc, &labels(&problem, "solve"), &args.run)?;
    Ok(doc)
}

/// The OCP of a loaded problem file as `fesdj solve` builds it: transcribed with the file's
/// `fesdj` options and `solver` settings, its references written into the parameters; ready
/// for `solve(Start::Guess)`.
pub fn build_ocp(problem: &Problem) -> Result<FesdjProblem, RunError> {
    let setup = problem.ocp()?;
    let mut fp = FesdjProblem::new(&setup.ocp, &setup.options, solve_options(problem))?;
    let mut p = fp.parameters().to_vec();
    setup.write_references(fp.layout(), &mut p);
    fp.set_parameters(&p)?;
    Ok(fp)
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

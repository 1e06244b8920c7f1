//! `fesdj solve CONFIG.yaml [--set KEY=VALUE]... [--output OUT.json] [--plot OUT.svg]`: the
//! optimal control problem of `horizon` + `ocp` (spec §4) transcribed with FESD-J and solved by
//! the MPCC homotopy with the `solver` settings. Exit codes as in [`run`](super::run).

use super::run::{dry_run, labels, solve_options, spinner, write_outputs, RunArgs, RunError};
use crate::config::Problem;
use crate::fesdj::{FesdjError, FesdjProblem, Start, Trajectory};

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
    let (mut fp, start) = build_ocp_with_start(&problem)?;
    let pb = spinner(
        &args.run,
        &format!(
            "solving the OCP (n_w = {}, N = {}, homotopy)",
            fp.n_w(),
            fp.layout().n_intervals()
        ),
    );
    let result = solve_staged(&mut fp, start.as_ref());
    pb.finish_and_clear();
    let (tr, first) = result?;
    let mut doc = serde_json::to_value(tr)?;
    // The relaxed NLPs of the homotopy (σ, status, iterations, objective, max min(G, H),
    // wall time; σ = 0 for the polishing step), for diagnosing a solve; with `ocp.start`, the
    // first solve's summary.
    if let serde_json::Value::Object(m) = &mut doc {
        m.insert("homotopy".into(), serde_json::to_value(fp.last_homotopy())?);
        if let Some(f) = first {
            m.insert(
                "start".into(),
                serde_json::json!({
                    "status": f.status,
                    "objective": f.objective,
                    "comp_residual": f.comp_residual,
                    "solve_time_s": f.solve_time_s,
                    "nlp_iterations": f.nlp_iterations,
                }),
            );
        }
    }
    write_outputs(&doc, &labels(&problem, "solve"), &args.run)?;
    Ok(doc)
}

/// The OCP of a loaded problem file as `fesdj solve` builds it: transcribed with the file's
/// `fesdj` options and `solver` settings, its references written into the parameters; ready
/// for `solve(Start::Guess)`.
pub fn build_ocp(problem: &Problem) -> Result<FesdjProblem, RunError> {
    Ok(build_ocp_with_start(problem)?.0)
}

/// [`build_ocp`] and the file's staged start (`ocp.start`: the controls fixed in the first
/// solve, σ₀ of the second), for [`solve_staged`].
pub fn build_ocp_with_start(problem: &Problem) -> Result<(FesdjProblem, StagedStart), RunError> {
    let setup = problem.ocp()?;
    let mut fp = FesdjProblem::new(&setup.ocp, &setup.options, solve_options(problem))?;
    let mut p = fp.parameters().to_vec();
    setup.write_references(fp.layout(), &mut p);
    fp.set_parameters(&p)?;
    Ok((fp, setup.start))
}

/// `ocp.start` as [`build_ocp_with_start`] reads it.
pub type StagedStart = Option<(Vec<Vec<f64>>, f64)>;

/// Solve as `fesdj solve` does: from the default guess, or with a staged start (`ocp.start`,
/// [`StartSpec`](crate::config::StartSpec)): first from the default guess with the controls
/// of intervals `0, 1, …` fixed, then with them released from that point with the given σ₀
/// (the problem's σ₀ is restored afterwards). Returns the trajectory (its time and iteration
/// counts include the first solve) and the first solve's.
pub fn solve_staged(
    fp: &mut FesdjProblem,
    start: Option<&(Vec<Vec<f64>>, f64)>,
) -> Result<(Trajectory, Option<Trajectory>), FesdjError> {
    let Some((fixed, sigma0)) = start else {
        return Ok((fp.solve(Start::Guess)?, None));
    };
    let fix = |fp: &mut FesdjProblem| -> Result<(), FesdjError> {
        for (k, u) in fixed.iter().enumerate() {
            fp.fix_control(k, u)?;
        }
        Ok(())
    };
    let first = fix(fp).and_then(|()| fp.solve(Start::Guess));
    for k in 0..fixed.len() {
        fp.release_control(k)?;
    }
    let first = first?;
    let w = fp
        .solution()
        .ok_or_else(|| FesdjError::Problem {
            field: "ocp.start".into(),
            why: "the first solve left no point to start from".into(),
        })?
        .to_vec();
    let sigma0_before = fp.solver_settings().sigma0;
    fp.set_sigma0(*sigma0)?;
    let second = fp.solve(Start::Primal(&w));
    fp.set_sigma0(sigma0_before)?;
    let mut tr = second?;
    tr.solve_time_s += first.solve_time_s;
    tr.nlp_iterations += first.nlp_iterations;
    tr.homotopy_steps += first.homotopy_steps;
    Ok((tr, Some(first)))
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

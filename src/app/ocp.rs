//! The optimal control problem of a problem file as `fesdj solve` builds and solves it: the
//! file's `horizon` + `ocp` (spec §4) transcribed with FESD-J, solved by the MPCC homotopy with
//! the `solver` settings, optionally with a staged start (`ocp.start`).

use super::BuildError;
use crate::config::Problem;
use crate::fesdj::{FesdjError, FesdjProblem, SolveOptions, Start, Trajectory};

/// The solve options of a problem file: the `solver` section (HomotopySettings) with the default
/// impact and state thresholds of the trajectory. Unless the file (or `--set`) chooses
/// `solver.stop_measure`, the FESD-J solve layer's own default (the product measure of §5.5)
/// applies.
pub fn solve_options(problem: &Problem) -> SolveOptions {
    let defaults = SolveOptions::default();
    let mut solver = problem.config.solver.clone();
    if !problem.was_set("solver.stop_measure") {
        solver.stop_measure = defaults.solver.stop_measure;
    }
    SolveOptions { solver, ..defaults }
}

/// The OCP of a loaded problem file as `fesdj solve` builds it: transcribed with the file's
/// `fesdj` options and `solver` settings, its references written into the parameters; ready
/// for `solve(Start::Guess)`.
pub fn build_ocp(problem: &Problem) -> Result<FesdjProblem, BuildError> {
    Ok(build_ocp_with_start(problem)?.0)
}

/// [`build_ocp`] and the file's staged start (`ocp.start`: the controls fixed in the first
/// solve, σ₀ of the second), for [`solve_staged`].
pub fn build_ocp_with_start(problem: &Problem) -> Result<(FesdjProblem, StagedStart), BuildError> {
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

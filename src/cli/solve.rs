//! `fesdj solve CONFIG.yaml [--set KEY=VALUE]... [--output OUT.json] [--plot OUT.svg]`: the
//! optimal control problem of `horizon` + `ocp` (spec §4) transcribed with FESD-J and solved by
//! the MPCC homotopy with the `solver` settings. Exit codes as in [`run`](super::run).

use super::run::{dry_run, labels, spinner, write_outputs, RunArgs, RunError};
use crate::app::{build_ocp_with_start, solve_staged};
use crate::config::Problem;
use crate::solver::StationaritySettings;

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
    // The stationarity certificate of the solution (formulation §10.8), check only: a
    // branch-NLP step would change the solution after its trajectory was built.
    let check_only = StationaritySettings {
        descent_step: false,
        ..StationaritySettings::default()
    };
    let cert = fp.certify(&check_only)?;
    let mut doc = serde_json::to_value(tr)?;
    // The relaxed NLPs of the homotopy (σ, status, iterations, objective, max min(G, H),
    // wall time; σ = 0 for the polishing step), for diagnosing a solve; with `ocp.start`, the
    // first solve's summary.
    if let serde_json::Value::Object(m) = &mut doc {
        m.insert("homotopy".into(), serde_json::to_value(fp.last_homotopy())?);
        let verdict = cert.as_ref().map_or("unknown", |c| c.verdict.name());
        m.insert("stationarity".into(), verdict.into());
        m.insert("certificate".into(), serde_json::to_value(&cert)?);
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

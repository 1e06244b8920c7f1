//! `fesdj mpcc solve PROBLEM.json [--settings S.yaml] [--json]`: solve an MPCC of the
//! `fesdj-mpcc` import format (`docs/formats.md`) with the Scholtes homotopy around our
//! interior-point method. The iteration log goes to stderr; with `--json`, one JSON object with
//! `status`, `objective`, `comp_residual` (max_i min(G_i, H_i)), `comp_residual_product`
//! (max_i G_i H_i), `max_constraint_violation`, `nlp_iterations`, `homotopy_steps`, `polished`,
//! `time_s`, the solution `x`, `stationarity` (`S`, `B`, `M`, `C`, `weak` or `unknown`: the
//! certificate of formulation §10.8, run after the homotopy) and `certificate` (its details,
//! with the branch-NLP step taken where the point was not B-stationary) is printed on stdout.
//!
//! `fesdj mpcc bench DIR`: the benchmark runner of `super::bench`.

use crate::ad::import::read_problem;
use crate::solver::ad_nlp::AdNlp;
use crate::solver::{
    HomotopySettings, MpccResult, MpccSolver, SolverError, StationaritySettings, Status,
};
use std::path::PathBuf;

/// Arguments of `fesdj mpcc`.
#[derive(Debug, clap::Args)]
pub struct MpccArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: MpccCommand,
}

/// Subcommands of `fesdj mpcc`.
#[derive(Debug, clap::Subcommand)]
pub enum MpccCommand {
    /// Solve an MPCC of the fesdj-mpcc format.
    Solve(MpccSolveArgs),
    /// Solve every problem of a directory (NOSBENCH) and write a per-family table.
    Bench(super::bench::MpccBenchArgs),
}

/// Arguments of `fesdj mpcc solve`.
#[derive(Debug, clap::Args)]
pub struct MpccSolveArgs {
    /// Problem file (fesdj-mpcc JSON, e.g. written by tools/casadi_export.py).
    pub problem: PathBuf,
    /// Homotopy and IPM settings (YAML; any subset of the fields of `HomotopySettings`, over
    /// its defaults with a second homotopy path from σ₀/√κ ≈ 3.16; `second_path_sigma0: 0`
    /// turns that off).
    #[arg(long)]
    pub settings: Option<PathBuf>,
    /// Print the result as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Do not print the iteration log.
    #[arg(long)]
    pub quiet: bool,
    /// Wall-clock limit of the homotopy in seconds (overrides the settings' `max_wall_time`).
    #[arg(long)]
    pub time_limit: Option<f64>,
    /// Do not check the stationarity of the solution (`stationarity` is then `unknown`).
    #[arg(long)]
    pub no_certificate: bool,
    /// Check the stationarity but take no branch-NLP step where the point is not
    /// B-stationary (the solution stays the homotopy's).
    #[arg(long)]
    pub no_descent: bool,
}

fn load_settings(path: &Option<PathBuf>) -> Result<HomotopySettings, SolverError> {
    let Some(p) = path else {
        return Ok(HomotopySettings::for_problem_files());
    };
    let io = |why: String| SolverError::Io {
        file: p.display().to_string(),
        why,
    };
    let text = std::fs::read_to_string(p).map_err(|e| io(e.to_string()))?;
    let mut s: HomotopySettings = serde_saphyr::from_str(&text).map_err(|e| io(e.to_string()))?;
    // Keys the file does not name keep the problem-file defaults: the only one that differs
    // from `HomotopySettings::default()` is the second path.
    let keys: serde_json::Value = serde_saphyr::from_str(&text).map_err(|e| io(e.to_string()))?;
    if keys.get("second_path_sigma0").is_none() {
        s.second_path_sigma0 = HomotopySettings::for_problem_files().second_path_sigma0;
    }
    s.validate()?;
    Ok(s)
}

/// Solve the problem of `args` (library entry point of the subcommand).
pub fn solve(args: &MpccSolveArgs) -> Result<MpccResult, SolverError> {
    let mut settings = load_settings(&args.settings)?;
    if args.quiet {
        settings.ipm.print = false;
    } else if args.settings.is_none() {
        settings.ipm.print = true;
    }
    if let Some(t) = args.time_limit {
        settings.max_wall_time = t;
        settings.validate()?;
    }
    let prob = read_problem(&args.problem)?;
    let (nlp, comp) = AdNlp::from_imported(&prob)?;
    let mut solver = MpccSolver::new(&nlp, &comp, settings)?;
    let mut r = solver.solve(&nlp, &comp, &prob.p0, None)?;
    if !args.no_certificate {
        let cs = StationaritySettings {
            descent_step: !args.no_descent,
            ..StationaritySettings::default()
        };
        solver.certify(&nlp, &comp, &prob.p0, &mut r, &cs)?;
    }
    Ok(r)
}

/// The certificate's details for the summary line: the biactive pairs, the branch-NLP step,
/// why the verdict is limited.
fn certificate_note(r: &MpccResult) -> String {
    let Some(c) = &r.certificate else {
        return " (not checked)".into();
    };
    let mut s = format!(" ({} biactive", c.biactive);
    if let Some(d) = &c.descent {
        s += &format!(
            "; descent step {}: objective {:.6e} -> {:.6e}",
            if d.kept { "kept" } else { "not kept" },
            d.objective_before,
            d.objective_after
        );
    }
    if !c.reason.is_empty() {
        s += &format!("; {}", c.reason);
    }
    s + ")"
}

/// The second homotopy path for the summary line.
fn second_path_note(r: &MpccResult) -> String {
    match &r.second_path {
        None => String::new(),
        Some(s) => format!(
            ", second path (σ₀ = {:.4}): {:?}, objective {:.10e}, {}",
            s.sigma0,
            s.status,
            s.objective,
            if s.kept {
                format!(
                    "kept (first path: {:?}, objective {:.10e})",
                    s.first_status, s.first_objective
                )
            } else {
                "not kept".to_string()
            }
        ),
    }
}

/// Run `fesdj mpcc …`; returns the process exit code (0 solved, 1 not solved, 2 error).
pub fn run(args: &MpccArgs) -> i32 {
    match &args.command {
        MpccCommand::Bench(a) => super::bench::run(a),
        MpccCommand::Solve(a) => match solve(a) {
            Ok(r) => {
                eprintln!(
                    "mpcc: {:?}, objective {:.10e}, comp residual {:.2e}, violation {:.2e}, {} NLP iterations, {} homotopy steps{}, {:.3} s, stationarity {}{}{}",
                    r.status,
                    r.objective,
                    r.comp_residual,
                    r.max_constraint_violation,
                    r.nlp_iterations,
                    r.homotopy_steps,
                    if r.polished { " + polishing" } else { "" },
                    r.time_s,
                    r.stationarity(),
                    certificate_note(&r),
                    second_path_note(&r)
                );
                if a.json {
                    let doc = serde_json::json!({
                        "status": format!("{:?}", r.status),
                        "objective": r.objective,
                        "comp_residual": r.comp_residual,
                        "comp_residual_product": r.comp_residual_product,
                        "max_constraint_violation": r.max_constraint_violation,
                        "nlp_iterations": r.nlp_iterations,
                        "homotopy_steps": r.homotopy_steps,
                        "polished": r.polished,
                        "time_s": r.time_s,
                        "x": r.x,
                        "steps": r.steps,
                        "second_path": r.second_path,
                        "stationarity": r.stationarity().name(),
                        "certificate": r.certificate,
                    });
                    println!("{doc}");
                }
                if r.status == Status::Solved {
                    0
                } else {
                    1
                }
            }
            Err(e) => {
                eprintln!("fesdj mpcc solve: {e}");
                2
            }
        },
    }
}

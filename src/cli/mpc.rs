//! `fesdj mpc CONFIG.yaml [--set KEY=VALUE]... [--steps K] [--output LOG.json] [--plot OUT.svg]`:
//! receding-horizon control in closed loop against the FESD-J simulator as plant.
//!
//! The MPC problem is the file's `horizon` + `ocp` (built once); the `mpc` section gives the
//! rate (= plant step), the deadline, the controller settings, measurement noise and the plant
//! mismatch (`mpc.plant`, see [`crate::config::schema::MpcSpec`]). The plant starts at
//! `initial`.
//!
//! `LOG.json`: `rate_hz`, `dt`, `deadline_s`, `names {q, v, u}`, `ticks` (per tick `t`, `q`,
//! `v`, applied `u`, `status`, `solve_time_s` (of the tick's solve attempt, verified or not),
//! `homotopy_steps`, `nlp_iterations`, `source` (`fresh` | `previous` | `fallback`), `planner`
//! (`primary` | `backup`: whose plan is in charge, see `mpc.backup`), `backup_nlp_iterations`,
//! `plant_failed`, `plant_nlp_iterations`, `homotopy`: every relaxed NLP of the solve (the
//! primary controller's) with `sigma`, `status`,
//! `iterations`, `objective`, `comp_residual`, `time_s`, its `timers`, `factorizations` and
//! `restoration_iterations`), `startup` (the start-up solve of `mpc.startup_deadline_s`, or
//! null), `final_state`, `summary`
//! (`solve_time_p50_s`, `solve_time_p99_s`, `solve_time_max_s`, `homotopy_steps_mean`,
//! `deadline_misses`, `verified_fraction`, `backup_fraction` (ticks whose verified plan came
//! from the backup controller), `fallback_ticks`, `plant_failures`, `counters`,
//! `time_split_s`: the solves' time in function and derivative evaluations, KKT linear algebra
//! (assembly, factorisation, solves), line search and the rest, summed over the run; of the
//! linear algebra, `linear_algebra_factorization` (assembly and factorisations, inertia
//! corrections included) and `linear_algebra_kkt_solve` (the direction's solves with refinement)).
//!
//! Exit codes: 0 every tick had a verified fresh plan and every plant step converged, 1 some
//! did not (outputs are still written; a failed plant step ends the run, its tick, time and
//! status, start state `x` and control `u` are `plant_failure` in LOG.json), 2 usage, configuration or I/O error.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::plot::{plot_svg, PlotData};
use super::run::{labels, RunError};
use crate::app::build_closed_loop;
use crate::config::{MpcSetup, Problem};
use crate::mpc::{
    run_closed_loop, ClosedLoopLog, ClosedLoopOptions, MpcError, PlanSource, Planner,
};
use crate::solver::Timers;

/// Arguments of `fesdj mpc`.
#[derive(clap::Args, Debug, Clone)]
pub struct MpcArgs {
    /// Problem file (YAML) with `horizon`, `ocp` and optionally `mpc`.
    pub config: PathBuf,
    /// Override a field by its dotted path, e.g. `--set mpc.rate_hz=20`,
    /// `--set mpc.plant.model.mu=0.25` (values in YAML).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Number of control ticks (default `mpc.steps`, else 50).
    #[arg(long, value_name = "K")]
    pub steps: Option<usize>,
    /// Write the per-tick log and the summary as JSON.
    #[arg(long, value_name = "LOG.json")]
    pub output: Option<PathBuf>,
    /// Plot states, applied controls and solve times (SVG).
    #[arg(long, value_name = "OUT.svg")]
    pub plot: Option<PathBuf>,
}

/// The `LOG.json` document of a run.
pub fn log_document(problem: &Problem, setup: &MpcSetup, log: &ClosedLoopLog) -> Value {
    let s = problem.symbols();
    let n = log.ticks.len().max(1) as f64;
    let fresh = log
        .ticks
        .iter()
        .filter(|t| t.source == PlanSource::Fresh)
        .count();
    let fallback = log
        .ticks
        .iter()
        .filter(|t| t.source == PlanSource::Fallback)
        .count();
    let by_backup = log
        .ticks
        .iter()
        .filter(|t| t.source == PlanSource::Fresh && t.planner == Planner::Backup)
        .count();
    let ticks: Vec<Value> = log
        .ticks
        .iter()
        .map(|t| {
            json!({
                "t": t.t,
                "q": t.q,
                "v": t.v,
                "u": t.u,
                "status": t.status,
                "solve_time_s": if t.solve_time_s.is_finite() { json!(t.solve_time_s) } else { Value::Null },
                "homotopy_steps": t.homotopy_steps,
                "nlp_iterations": t.nlp_iterations,
                "source": t.source,
                "planner": t.planner,
                "backup_nlp_iterations": t.backup_nlp_iterations,
                "plant_failed": t.plant_failed,
                "plant_nlp_iterations": t.plant_nlp_iterations,
                "homotopy": t.homotopy,
            })
        })
        .collect();
    let sm = &log.summary;
    // Where the solve time went, summed over every relaxed NLP of every tick.
    let mut split = Timers::default();
    let mut total = 0.0;
    for step in log.ticks.iter().flat_map(|t| &t.homotopy) {
        split.add_phases(&step.timers);
        total += step.time_s;
    }
    let (eval, kkt, ls) = (split.evaluation, split.linear_algebra, split.line_search);
    json!({
        "rate_hz": setup.rate_hz,
        "dt": log.dt,
        "deadline_s": setup.solve_budget_s,
        "names": {"q": s.q, "v": s.v, "u": s.u},
        "ticks": ticks,
        "startup": log.startup,
        "final_state": log.final_state,
        "summary": {
            "ticks": log.ticks.len(),
            "solve_time_p50_s": sm.solve_time_p50_s,
            "solve_time_p99_s": sm.solve_time_p99_s,
            "solve_time_max_s": sm.solve_time_max_s,
            "homotopy_steps_mean": sm.homotopy_steps_mean,
            "deadline_misses": sm.counters.deadline_misses,
            "verified_fraction": fresh as f64 / n,
            "backup_fraction": by_backup as f64 / n,
            "fallback_ticks": fallback,
            "plant_failures": sm.plant_failures,
            "counters": sm.counters,
            "time_split_s": {
                "evaluation": eval,
                "linear_algebra": kkt,
                "linear_algebra_factorization": split.factorization,
                "linear_algebra_kkt_solve": split.kkt_solve,
                "line_search": ls,
                "other": (total - eval - kkt - ls).max(0.0),
            },
        },
    })
}

/// Plot the closed loop: states at the ticks (and the final state), applied controls as steps,
/// solve times in ms.
fn plot(problem: &Problem, log: &ClosedLoopLog, path: &std::path::Path) -> Result<(), RunError> {
    let n_q = problem.symbols().n_q();
    let mut t: Vec<f64> = log.ticks.iter().map(|k| k.t).collect();
    let mut q: Vec<Vec<f64>> = log.ticks.iter().map(|k| k.q.clone()).collect();
    let mut v: Vec<Vec<f64>> = log.ticks.iter().map(|k| k.v.clone()).collect();
    let t_end = t.last().map_or(0.0, |x| x + log.dt);
    t.push(t_end);
    q.push(log.final_state[..n_q].to_vec());
    v.push(log.final_state[n_q..].to_vec());
    let solve: Vec<(f64, f64)> = log
        .ticks
        .iter()
        .filter(|k| k.solve_time_s.is_finite())
        .map(|k| (k.t, k.solve_time_s * 1e3))
        .collect();
    let homotopy: Vec<(f64, f64)> = log
        .ticks
        .iter()
        .map(|k| (k.t, k.homotopy_steps as f64))
        .collect();
    let data = PlotData {
        t,
        q,
        v,
        t_u: log.ticks.iter().map(|k| k.t).collect(),
        u: log.ticks.iter().map(|k| k.u.clone()).collect(),
        t_end,
        extra_panels: vec![
            (
                "solve time [ms] (fresh plans)".into(),
                vec![("solve time".into(), solve)],
            ),
            (
                "homotopy steps".into(),
                vec![("homotopy steps".into(), homotopy)],
            ),
        ],
        ..PlotData::default()
    };
    plot_svg(&data, &labels(problem, "mpc"), path)?;
    Ok(())
}

/// Run the closed loop and write the outputs (library entry point). Returns the log document.
pub fn mpc(args: &MpcArgs) -> Result<Value, RunError> {
    let problem = Problem::load(&args.config, &args.set)?;
    for w in &problem.warnings {
        eprintln!("warning: {w}");
    }
    let mut cl = build_closed_loop(problem)?;
    let options = ClosedLoopOptions {
        steps: args.steps.unwrap_or(cl.setup.steps),
        budget_s: cl.setup.solve_budget_s,
        startup_budget_s: cl.setup.startup_budget_s,
        noise_std: cl.setup.noise_std.clone(),
        seed: cl.setup.seed,
    };
    let x0 = cl.problem.x0();
    // A failed plant step ends the run: the ticks before it are written, with the failure
    // (`plant_failure`, `summary.plant_failures` = 1, exit code 1).
    let (log, failure) = match run_closed_loop(&mut cl.controller, &mut cl.plant, &x0, &options) {
        Ok(log) => (log, None),
        Err(MpcError::PlantFailed {
            tick,
            t,
            status,
            x,
            u,
            log,
        }) => (
            *log,
            Some(json!({"tick": tick, "t": t, "status": status, "x": x, "u": u})),
        ),
        Err(e) => return Err(e.into()),
    };
    let mut doc = log_document(&cl.problem, &cl.setup, &log);
    if let Some(f) = failure {
        doc["plant_failure"] = f;
        doc["summary"]["plant_failures"] = json!(1);
    }
    if let Some(out) = &args.output {
        let text = serde_json::to_string_pretty(&doc)?;
        std::fs::write(out, text + "\n").map_err(|e| RunError::Write {
            file: out.display().to_string(),
            why: e.to_string(),
        })?;
    }
    if let Some(svg) = &args.plot {
        plot(&cl.problem, &log, svg)?;
    }
    Ok(doc)
}

/// Run the command; returns the process exit code.
pub fn run(args: &MpcArgs) -> i32 {
    match mpc(args) {
        Ok(doc) => {
            let s = &doc["summary"];
            let f = |k: &str| s[k].as_f64().unwrap_or(f64::NAN);
            eprintln!(
                "fesdj mpc: {} ticks at {} Hz, verified {:.1} %{}, solve time p50 {:.2} ms p99 {:.2} ms, \
                 {} deadline misses, {} plant failures, final state {:?}",
                s["ticks"],
                doc["rate_hz"],
                100.0 * f("verified_fraction"),
                match f("backup_fraction") {
                    b if b > 0.0 => format!(" ({:.1} % by the backup controller)", 100.0 * b),
                    _ => String::new(),
                },
                1e3 * f("solve_time_p50_s"),
                1e3 * f("solve_time_p99_s"),
                s["deadline_misses"],
                s["plant_failures"],
                doc["final_state"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_f64).collect::<Vec<_>>())
                    .unwrap_or_default(),
            );
            if f("verified_fraction") >= 1.0 && s["plant_failures"].as_u64() == Some(0) {
                0
            } else {
                1
            }
        }
        Err(e) => {
            eprintln!("fesdj mpc: {e}");
            2
        }
    }
}

//! What `fesdj simulate` and `fesdj solve` share: arguments, loading, the trajectory outputs
//! (`--output OUT.json`, `--plot OUT.svg`), the progress spinner and the exit codes.
//!
//! Exit codes: 0 solved, 1 the solver did not converge (outputs are still written), 2 usage,
//! configuration or I/O error.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use thiserror::Error;

use super::check::CheckArgs;
use super::plot::{plot_svg, PlotData, PlotError, PlotLabels};
use crate::app::BuildError;
use crate::config::{ConfigError, Problem};
use crate::fesdj::FesdjError;

/// Arguments shared by `fesdj simulate` and `fesdj solve`.
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Problem file (YAML).
    pub config: PathBuf,
    /// Override a field by its dotted path, e.g. `--set model.restitution=0.8`,
    /// `--set initial.q=[1.3]`, `--set horizon.T=2.0`, `--set fesdj.n_s=3` (values in YAML).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Write the trajectory as JSON (`status`, `objective`, `comp_residual`, `solve_time_s`,
    /// `t`, `q`, `v`, `u`, `stage_forces`, `impacts`, `final`).
    #[arg(long, value_name = "OUT.json")]
    pub output: Option<PathBuf>,
    /// Plot states, controls, contact forces and impulses with the switch times (SVG).
    #[arg(long, value_name = "OUT.svg")]
    pub plot: Option<PathBuf>,
    /// Build the transcription, print its sizes (as `fesdj check`) and stop.
    #[arg(long)]
    pub dry_run: bool,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
}

/// Errors of `fesdj simulate` / `fesdj solve`.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RunError {
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The transcription or the solver failed.
    #[error(transparent)]
    Fesdj(#[from] FesdjError),
    /// Plotting failed.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// The MPC controller rejected its settings or the closed loop failed.
    #[error(transparent)]
    Mpc(#[from] crate::mpc::MpcError),
    /// An output file could not be written.
    #[error("cannot write {file}: {why}")]
    Write {
        /// File.
        file: String,
        /// Why.
        why: String,
    },
    /// The trajectory could not be serialised.
    #[error("cannot serialise the trajectory: {0}")]
    Json(#[from] serde_json::Error),
}

impl From<BuildError> for RunError {
    fn from(e: BuildError) -> RunError {
        match e {
            BuildError::Config(e) => RunError::Config(e),
            BuildError::Fesdj(e) => RunError::Fesdj(e),
            BuildError::Mpc(e) => RunError::Mpc(e),
        }
    }
}

/// Labels of the plot from the problem's names.
pub fn labels(problem: &Problem, what: &str) -> PlotLabels {
    let s = problem.symbols();
    let name = problem.config.name.clone().unwrap_or_else(|| {
        problem
            .file
            .file_stem()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    });
    PlotLabels {
        title: format!("{name} ({what})"),
        q: s.q.clone(),
        v: s.v.clone(),
        u: s.u.clone(),
        contacts: problem.contact_names(),
    }
}

/// Write `--output` and `--plot` for a trajectory document.
pub fn write_outputs(doc: &Value, labels: &PlotLabels, args: &RunArgs) -> Result<(), RunError> {
    if let Some(out) = &args.output {
        let text = serde_json::to_string_pretty(doc).map_err(|e| RunError::Write {
            file: out.display().to_string(),
            why: e.to_string(),
        })?;
        std::fs::write(out, text + "\n").map_err(|e| RunError::Write {
            file: out.display().to_string(),
            why: e.to_string(),
        })?;
    }
    if let Some(svg) = &args.plot {
        plot_svg(&PlotData::from_json(doc)?, labels, svg)?;
    }
    Ok(())
}

/// A spinner with the elapsed time on stderr while the homotopy runs, only when stderr is a
/// terminal (and not `--quiet`); hidden otherwise.
pub fn spinner(args: &RunArgs, message: &str) -> ProgressBar {
    if args.quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]") {
        pb.set_style(style);
    }
    pb.set_message(message.to_string());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// `--dry-run`: the report of `fesdj check`.
pub fn dry_run(args: &RunArgs) -> i32 {
    super::check::run(&CheckArgs {
        config: args.config.clone(),
        set: args.set.clone(),
        json: false,
    })
}

/// One summary line on stderr.
pub fn summary(command: &str, doc: &Value) {
    let impacts = doc["impacts"].as_array().map_or(0, Vec::len);
    let stationarity = doc["stationarity"]
        .as_str()
        .map_or(String::new(), |s| format!(", stationarity {s}"));
    eprintln!(
        "fesdj {command}: status {}, objective {:.6e}, comp residual {:.2e}, {} impacts, {:.3} s{stationarity}",
        doc["status"],
        doc["objective"].as_f64().unwrap_or(f64::NAN),
        doc["comp_residual"].as_f64().unwrap_or(f64::NAN),
        impacts,
        doc["solve_time_s"].as_f64().unwrap_or(f64::NAN),
    );
}

/// The exit code of a finished run: 0 when `status` is a success, 1 otherwise.
pub fn exit_code(doc: &Value) -> i32 {
    match doc["status"].as_str() {
        Some("Solved") | Some("Acceptable") => 0,
        _ => 1,
    }
}

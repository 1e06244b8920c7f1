//! `fesdj mpc-compare CONFIG.yaml [--set KEY=VALUE]... [--fesd-set KEY=VALUE]... [--steps K]
//! [--output REPORT.json] [--markdown TABLE.md]`: the FESD-J controller of a problem file
//! against its time-stepping baseline at the same rate and budget, against the same plant (see
//! [`crate::app::compare`]). Prints a Markdown table.
//!
//! Exit codes: 0 the comparison ran (whatever the controllers did), 2 usage, configuration or
//! I/O error.

use std::path::PathBuf;

use super::run::RunError;
use crate::app::compare::{compare, markdown, CompareOptions, Variant, VariantReport};

/// Arguments of `fesdj mpc-compare`.
#[derive(clap::Args, Debug, Clone)]
pub struct MpcCompareArgs {
    /// Problem file (YAML) with `horizon`, `ocp` and `mpc`.
    pub config: PathBuf,
    /// Override a field for both controllers and the plant (values in YAML).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Overrides of the FESD-J controller only (default `fesdj.use_fesd=true`,
    /// `fesdj.n_fe=2`; the baseline always gets `fesdj.use_fesd=false`, `fesdj.n_fe=1`).
    #[arg(long = "fesd-set", value_name = "KEY=VALUE")]
    pub fesd_set: Vec<String>,
    /// Control ticks per controller (default `mpc.steps`).
    #[arg(long, value_name = "K")]
    pub steps: Option<usize>,
    /// Write the reports as JSON.
    #[arg(long, value_name = "REPORT.json")]
    pub output: Option<PathBuf>,
    /// Write the table as Markdown.
    #[arg(long, value_name = "TABLE.md")]
    pub markdown: Option<PathBuf>,
}

fn write(path: &std::path::Path, text: String) -> Result<(), RunError> {
    std::fs::write(path, text).map_err(|e| RunError::Write {
        file: path.display().to_string(),
        why: e.to_string(),
    })
}

/// Run the comparison and write the outputs (library entry point).
pub fn mpc_compare(args: &MpcCompareArgs) -> Result<Vec<VariantReport>, RunError> {
    let options = CompareOptions {
        steps: args.steps,
        ..CompareOptions::default()
    };
    let variants = Variant::pair(&args.fesd_set);
    let reports = compare(
        &args.config,
        &args.set,
        &variants,
        &options,
        |name, k, n| {
            if k % 10 == 0 {
                eprint!("\r{name}: tick {k}/{n}   ");
            }
        },
    )?;
    eprintln!();
    if let Some(out) = &args.output {
        write(out, serde_json::to_string_pretty(&reports)? + "\n")?;
    }
    if let Some(md) = &args.markdown {
        write(md, markdown(&reports))?;
    }
    Ok(reports)
}

/// `fesdj mpc-compare`: the exit code.
pub fn run(args: &MpcCompareArgs) -> i32 {
    match mpc_compare(args) {
        Ok(reports) => {
            println!("{}", markdown(&reports));
            0
        }
        Err(e) => {
            eprintln!("fesdj mpc-compare: {e}");
            2
        }
    }
}

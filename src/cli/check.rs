//! `fesdj check CONFIG.yaml [--set KEY=VALUE]... [--json]`: load a problem file, build its
//! model, transcribe its OCP (`horizon` + `ocp`) and one simulation step (`simulation`), and
//! print the sizes of the MPCCs: variables `n_w`, constraints `n_g`, complementarity pairs
//! `n_comp`, parameters `n_p`. Nothing is solved.
//!
//! Exit codes: 0 the configuration builds, 2 an error (message naming the field).

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::config::{ConfigError, Problem};
use crate::fesdj::Transcription;

/// Arguments of `fesdj check`.
#[derive(clap::Args, Debug, Clone)]
pub struct CheckArgs {
    /// Problem file (YAML).
    pub config: PathBuf,
    /// Override a field by its dotted path, e.g. `--set horizon.T=2.0` (value in YAML).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Print the report as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

fn sizes(m: &Transcription) -> Value {
    json!({
        "n_w": m.n_w(),
        "n_g": m.n_g(),
        "n_comp": m.n_comp(),
        "n_p": m.p.len(),
    })
}

/// Build everything the file describes and report the sizes (library entry point).
pub fn check(args: &CheckArgs) -> Result<Value, ConfigError> {
    let problem = Problem::load(&args.config, &args.set)?;
    let sym = problem.symbols();
    let model = problem.cls_model()?;
    let mut doc = json!({
        "config": args.config.display().to_string(),
        "name": problem.config.name,
        "model": {
            "n_q": model.n_q(),
            "n_u": model.n_u(),
            "n_c": model.n_c(),
            "q": sym.q,
            "v": sym.v,
            "u": sym.u,
            "contacts": problem.contact_names(),
        },
        "warnings": problem.warnings,
    });
    if problem.config.horizon.is_some() || problem.config.ocp.is_some() {
        let setup = problem.ocp()?;
        let mpcc = setup.transcribe()?;
        let mut s = sizes(&mpcc);
        s["T"] = json!(setup.options.t_final);
        s["N"] = json!(setup.options.n_intervals);
        s["N_FE"] = json!(setup.options.n_fe);
        doc["ocp"] = s;
    }
    if problem.config.simulation.is_some() {
        let sim = problem.simulation()?;
        let mpcc = crate::fesdj::transcribe(&sim.ocp, &sim.options).map_err(|source| {
            ConfigError::Fesdj {
                field: "simulation".into(),
                source,
            }
        })?;
        let mut s = sizes(&mpcc);
        s["steps"] = json!(sim.n_steps);
        s["T_step"] = json!(sim.options.t_final);
        s["N_FE"] = json!(sim.options.n_fe);
        doc["simulation_step"] = s;
    }
    Ok(doc)
}

fn line(what: &str, s: &Value) -> String {
    format!(
        "{what}: n_w = {}, n_g = {}, n_comp = {}, n_p = {}",
        s["n_w"], s["n_g"], s["n_comp"], s["n_p"]
    )
}

/// Run the command; returns the process exit code (0 or 2).
pub fn run(args: &CheckArgs) -> i32 {
    let doc = match check(args) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("fesdj check: {e}");
            return 2;
        }
    };
    if let Some(w) = doc["warnings"].as_array() {
        for w in w {
            eprintln!("warning: {}", w.as_str().unwrap_or_default());
        }
    }
    if args.json {
        println!("{doc}");
        return 0;
    }
    let m = &doc["model"];
    println!(
        "{}: n_q = {}, n_u = {}, n_c = {} (q = {}, u = {})",
        args.config.display(),
        m["n_q"],
        m["n_u"],
        m["n_c"],
        m["q"],
        m["u"]
    );
    if let Some(s) = doc.get("ocp") {
        println!(
            "{} (T = {}, N = {}, N_FE = {})",
            line("ocp", s),
            s["T"],
            s["N"],
            s["N_FE"]
        );
    }
    if let Some(s) = doc.get("simulation_step") {
        println!(
            "{} ({} steps of {} s, N_FE = {})",
            line("simulation step", s),
            s["steps"],
            s["T_step"],
            s["N_FE"]
        );
    }
    0
}

//! `fesdj mpcc bench DIR`: run the MPCC solver (and optionally IPOPT's Scholtes homotopy) over
//! a directory of problems and write a per-family table (`docs/nosbench.md`).
//!
//! Each `DIR/*.json` is a problem: either a NOSBENCH-style CasADi problem (it has the field
//! `augmented_objective_fun`), exported once with `tools/casadi_export.py` into
//! `OUT/exported/` (cached: an existing export is reused), or a file already in the
//! `fesdj-mpcc` format. Other JSON files are skipped. The family of a problem is its name up
//! to the first `_` (NOSBENCH's naming).
//!
//! Every solve runs as a child process with a time limit (ours: `fesdj mpcc solve --json
//! --time-limit T`; IPOPT: `tools/ipopt_scholtes.py`, with `bound_relax_factor = 0` and with
//! IPOPT's default) and appends one JSON line to `OUT/results.jsonl`, so that an interrupted
//! run resumes where it stopped: a rerun skips the (problem, solver) pairs already there.
//! `OUT/run.json` records the settings of the run; a rerun with other settings is refused
//! (start over with `--fresh`). At the end `OUT/table.md` and `OUT/table.json` are written.
//!
//! A problem counts as solved when the status is `Solved`, `max_i min(G_i, H_i) <= 1e-9` and the
//! constraint violation is at most 1e-6 (the same test for both solvers). Ours also reports the
//! stationarity verdict of its certificate (formulation §10.8); the table counts the solved
//! problems certified B-stationary (S or B). Times are the
//! solvers' own homotopy times (`time_s`: ours without reading the file, IPOPT's without
//! building the CasADi NLP).

use std::collections::HashSet;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use thiserror::Error;

mod record;
mod table;
pub use record::{
    Record, COMP_TOL, IPOPT_BRF0, IPOPT_DEFAULT, OBJ_FLOOR, OBJ_RTOL, OURS, VIOL_TOL,
};
pub use table::{Row, Table};

/// Arguments of `fesdj mpcc bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct MpccBenchArgs {
    /// Directory of problems (NOSBENCH CasADi JSON or fesdj-mpcc JSON).
    pub dir: PathBuf,
    /// Output directory: exports, results.jsonl, table.md, table.json.
    #[arg(long, default_value = "nosbench-results")]
    pub out: PathBuf,
    /// Time limit per problem and solver, seconds.
    #[arg(long, default_value_t = 60.0)]
    pub time_limit: f64,
    /// Also run IPOPT's Scholtes homotopy (python3 with casadi; bound_relax_factor 0 and default).
    #[arg(long)]
    pub ipopt: bool,
    /// Only problems whose file name contains one of these strings (repeatable).
    #[arg(long)]
    pub filter: Vec<String>,
    /// Homotopy settings of ours (YAML, as for `fesdj mpcc solve`).
    #[arg(long)]
    pub settings: Option<PathBuf>,
    /// Delete the results of an earlier run in OUT first (the exports are kept).
    #[arg(long)]
    pub fresh: bool,
    /// Python interpreter with casadi.
    #[arg(long, default_value = "python3")]
    pub python: PathBuf,
    /// Directory of casadi_export.py and ipopt_scholtes.py (default: the source tree's tools/).
    #[arg(long)]
    pub tools: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Errors of the benchmark runner (a failed solve is a result, not an error).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BenchError {
    /// A file or directory could not be read or written.
    #[error("{file}: {why}")]
    Io {
        /// File or directory.
        file: String,
        /// What went wrong.
        why: String,
    },
    /// A line of the results file is not a result.
    #[error("{file}, line {line}: {why}")]
    Results {
        /// The results file.
        file: String,
        /// Line number (1-based).
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// The output directory holds results of a run with other settings.
    #[error("{file}: the results there were made with other settings ({why}); use another --out or --fresh")]
    OtherRun {
        /// `run.json` of the output directory.
        file: String,
        /// Which setting differs.
        why: String,
    },
    /// An argument is out of range.
    #[error("invalid argument `{name}`: {why}")]
    Argument {
        /// Argument.
        name: &'static str,
        /// What is wrong.
        why: String,
    },
}

fn io_err(file: &Path, e: impl std::fmt::Display) -> BenchError {
    BenchError::Io {
        file: file.display().to_string(),
        why: e.to_string(),
    }
}

impl Record {
    fn failed(problem: &Problem, solver: &str, status: &str, error: String, wall_s: f64) -> Self {
        Record {
            problem: problem.name.clone(),
            family: problem.family.clone(),
            solver: solver.to_string(),
            status: status.to_string(),
            solved: false,
            objective: f64::NAN,
            comp_residual: f64::NAN,
            max_constraint_violation: f64::NAN,
            time_s: f64::NAN,
            wall_s,
            homotopy_steps: 0,
            nlp_iterations: 0,
            steps: serde_json::Value::Null,
            stationarity: String::new(),
            descent: serde_json::Value::Null,
            second_path: serde_json::Value::Null,
            error,
        }
    }

    /// A record from a solver's JSON document (`fesdj mpcc solve --json` or
    /// `ipopt_scholtes.py`).
    fn from_doc(problem: &Problem, solver: &str, doc: &serde_json::Value, wall_s: f64) -> Self {
        let num = |k: &str| doc[k].as_f64().unwrap_or(f64::NAN);
        let count = |k: &str| doc[k].as_u64().map_or(0, |v| v as usize);
        let status = doc["status"].as_str().unwrap_or("Unknown").to_string();
        let (comp, viol) = (num("comp_residual"), num("max_constraint_violation"));
        let steps = match &doc["steps"] {
            serde_json::Value::Array(a) => serde_json::Value::Array(
                a.iter()
                    .map(|s| {
                        serde_json::json!({
                            "sigma": s["sigma"],
                            "status": s["status"],
                            "iterations": s["iterations"],
                            "comp_residual": s["comp_residual"],
                        })
                    })
                    .collect(),
            ),
            _ => serde_json::Value::Null,
        };
        Record {
            problem: problem.name.clone(),
            family: problem.family.clone(),
            solver: solver.to_string(),
            solved: status == "Solved" && comp <= COMP_TOL && viol <= VIOL_TOL,
            status,
            objective: num("objective"),
            comp_residual: comp,
            max_constraint_violation: viol,
            time_s: num("time_s"),
            wall_s,
            homotopy_steps: count("homotopy_steps"),
            nlp_iterations: count("nlp_iterations"),
            steps,
            stationarity: doc["stationarity"].as_str().unwrap_or("").to_string(),
            descent: match &doc["certificate"]["descent"] {
                serde_json::Value::Object(d) => serde_json::json!({
                    "kept": d.get("kept"),
                    "objective_before": d.get("objective_before"),
                    "objective_after": d.get("objective_after"),
                }),
                _ => serde_json::Value::Null,
            },
            second_path: doc["second_path"].clone(),
            error: String::new(),
        }
    }
}

/// A problem file of the directory.
#[derive(Clone, Debug)]
pub struct Problem {
    /// File stem.
    pub name: String,
    /// Name up to the first `_`.
    pub family: String,
    /// The file in the directory.
    pub path: PathBuf,
    /// True for a NOSBENCH CasADi problem (exported before our solve; IPOPT can run on it).
    pub casadi: bool,
}

/// The problems of `dir` (sorted by name), filtered by `filter` (any substring; all if empty).
pub fn list_problems(dir: &Path, filter: &[String]) -> Result<Vec<Problem>, BenchError> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_err(dir, e))?;
    let mut out = Vec::new();
    for e in entries {
        let path = e.map_err(|e| io_err(dir, e))?.path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let Some(name) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
        let casadi = text.contains("\"augmented_objective_fun\"");
        let native = !casadi && {
            let head: String = text.chars().take(4096).collect();
            head.contains("\"fesdj-mpcc\"")
        };
        if !casadi && !native {
            continue;
        }
        let family = name.split('_').next().unwrap_or(&name).to_string();
        out.push(Problem {
            name,
            family,
            path,
            casadi,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Read `results.jsonl` (missing: no results).
pub fn read_results(file: &Path) -> Result<Vec<Record>, BenchError> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(file, e)),
    };
    let mut out = Vec::new();
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Record>(line) {
            Ok(r) => out.push(r),
            // The last line of an interrupted write: dropped, that solve runs again.
            Err(_) if i + 1 == lines.len() && !complete => {}
            Err(e) => {
                return Err(BenchError::Results {
                    file: file.display().to_string(),
                    line: i + 1,
                    why: e.to_string(),
                })
            }
        }
    }
    Ok(out)
}

/// Output of a child process run with a time limit.
struct ChildOutput {
    stdout: String,
    stderr: String,
    /// Exit code (None: killed or signalled).
    code: Option<i32>,
    timed_out: bool,
    wall_s: f64,
}

fn run_child(cmd: &mut Command, limit: Duration) -> Result<ChildOutput, String> {
    let t0 = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))?;
    let drain = |p: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            if let Some(mut p) = p {
                let _ = p.read_to_end(&mut s);
            }
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if t0.elapsed() > limit => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting for {:?}: {e}", cmd.get_program())),
        }
    };
    Ok(ChildOutput {
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        code: status.and_then(|s| s.code()),
        timed_out,
        wall_s: t0.elapsed().as_secs_f64(),
    })
}

fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The last line of `stdout` that parses as a JSON object.
fn last_json(stdout: &str) -> Option<serde_json::Value> {
    stdout
        .lines()
        .rev()
        .filter(|l| l.trim_start().starts_with('{'))
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
}

/// Where the runner finds its programs.
#[derive(Clone, Debug)]
pub struct Programs {
    /// The `fesdj` executable (ours runs as `fesdj mpcc solve`).
    pub fesdj: PathBuf,
    /// Python with casadi.
    pub python: PathBuf,
    /// Directory of casadi_export.py and ipopt_scholtes.py.
    pub tools: PathBuf,
}

/// Grace time beyond the solver's own limit before a child is killed (reading, exporting).
const GRACE_S: f64 = 30.0;

fn solve_ours(
    p: &Problem,
    args: &MpccBenchArgs,
    progs: &Programs,
    exported: &Path,
) -> Result<Record, BenchError> {
    let file = if p.casadi {
        let target = exported.join(format!("{}.json", p.name));
        if !target.exists() {
            let r = run_child(
                Command::new(&progs.python)
                    .arg(progs.tools.join("casadi_export.py"))
                    .arg(&p.path)
                    .arg(&target),
                Duration::from_secs_f64(600.0),
            );
            let why = match r {
                Ok(o) if o.code == Some(0) => None,
                Ok(o) => Some((tail(&o.stderr, 3), o.wall_s)),
                Err(e) => Some((e, 0.0)),
            };
            if let Some((why, wall)) = why {
                return Ok(Record::failed(p, OURS, "ExportError", why, wall));
            }
        }
        target
    } else {
        p.path.clone()
    };
    let mut cmd = Command::new(&progs.fesdj);
    cmd.args(["mpcc", "solve", "--json", "--quiet", "--time-limit"])
        .arg(args.time_limit.to_string())
        .arg(&file);
    if let Some(s) = &args.settings {
        cmd.arg("--settings").arg(s);
    }
    Ok(child_record(p, OURS, &mut cmd, args.time_limit))
}

fn child_record(p: &Problem, solver: &str, cmd: &mut Command, time_limit: f64) -> Record {
    match run_child(cmd, Duration::from_secs_f64(time_limit + GRACE_S)) {
        Err(e) => Record::failed(p, solver, "Crash", e, 0.0),
        Ok(o) if o.timed_out => Record::failed(p, solver, "Timeout", tail(&o.stderr, 3), o.wall_s),
        Ok(o) => match last_json(&o.stdout) {
            // `fesdj mpcc solve` exits 0 (solved) or 1 (not solved) with a result.
            Some(doc) if matches!(o.code, Some(0) | Some(1)) => {
                Record::from_doc(p, solver, &doc, o.wall_s)
            }
            _ => Record::failed(
                p,
                solver,
                "Crash",
                format!("exit code {:?}: {}", o.code, tail(&o.stderr, 3)),
                o.wall_s,
            ),
        },
    }
}

fn solve_ipopt(p: &Problem, solver: &str, args: &MpccBenchArgs, progs: &Programs) -> Record {
    let mut cmd = Command::new(&progs.python);
    cmd.arg(progs.tools.join("ipopt_scholtes.py"))
        .arg(&p.path)
        .arg("--time-limit")
        .arg(args.time_limit.to_string());
    if solver == IPOPT_BRF0 {
        cmd.args(["--bound-relax-factor", "0"]);
    }
    child_record(p, solver, &mut cmd, args.time_limit)
}

/// The settings of a run that its results depend on (`OUT/run.json`).
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct RunConfig {
    time_limit: f64,
    /// Contents of the settings file (empty: defaults).
    settings: String,
}

fn check_run_config(out: &Path, args: &MpccBenchArgs) -> Result<(), BenchError> {
    let settings = match &args.settings {
        Some(s) => std::fs::read_to_string(s).map_err(|e| io_err(s, e))?,
        None => String::new(),
    };
    let cfg = RunConfig {
        time_limit: args.time_limit,
        settings,
    };
    let file = out.join("run.json");
    if file.exists() {
        let text = std::fs::read_to_string(&file).map_err(|e| io_err(&file, e))?;
        let old: RunConfig = serde_json::from_str(&text).map_err(|e| BenchError::Results {
            file: file.display().to_string(),
            line: e.line(),
            why: e.to_string(),
        })?;
        if old.time_limit != cfg.time_limit {
            return Err(BenchError::OtherRun {
                file: file.display().to_string(),
                why: format!("time limit {} s, now {} s", old.time_limit, cfg.time_limit),
            });
        }
        if old.settings != cfg.settings {
            return Err(BenchError::OtherRun {
                file: file.display().to_string(),
                why: "other solver settings".into(),
            });
        }
        return Ok(());
    }
    let text = serde_json::to_string_pretty(&cfg).map_err(|e| io_err(&file, e))?;
    std::fs::write(&file, text + "\n").map_err(|e| io_err(&file, e))
}

/// Run the benchmark of `args` with the programs `progs`; returns the table (also written to
/// `OUT/table.md` and `OUT/table.json`).
pub fn bench(args: &MpccBenchArgs, progs: &Programs) -> Result<Table, BenchError> {
    if !(args.time_limit > 0.0 && args.time_limit.is_finite()) {
        return Err(BenchError::Argument {
            name: "time-limit",
            why: format!("must be finite and > 0, got {}", args.time_limit),
        });
    }
    let problems = list_problems(&args.dir, &args.filter)?;
    let out = &args.out;
    let exported = out.join("exported");
    std::fs::create_dir_all(&exported).map_err(|e| io_err(&exported, e))?;
    let results_file = out.join("results.jsonl");
    if args.fresh {
        for f in [results_file.clone(), out.join("run.json")] {
            if f.exists() {
                std::fs::remove_file(&f).map_err(|e| io_err(&f, e))?;
            }
        }
    }
    check_run_config(out, args)?;
    let mut records = read_results(&results_file)?;
    let done: HashSet<(String, String)> = records
        .iter()
        .map(|r| (r.problem.clone(), r.solver.clone()))
        .collect();
    let mut tasks: Vec<(&Problem, &str)> = Vec::new();
    for p in &problems {
        let mut solvers = vec![OURS];
        if args.ipopt && p.casadi {
            solvers.extend([IPOPT_BRF0, IPOPT_DEFAULT]);
        }
        for s in solvers {
            if !done.contains(&(p.name.clone(), s.to_string())) {
                tasks.push((p, s));
            }
        }
    }
    let pb = if args.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let pb = ProgressBar::new(tasks.len() as u64);
        if let Ok(style) = ProgressStyle::with_template(
            "{bar:30} {pos}/{len} [{elapsed_precise} < {eta_precise}] {msg}",
        ) {
            pb.set_style(style);
        }
        pb
    };
    let mut fh = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&results_file)
        .map_err(|e| io_err(&results_file, e))?;
    for (p, solver) in tasks {
        pb.set_message(format!("{} ({solver})", p.name));
        let rec = if solver == OURS {
            solve_ours(p, args, progs, &exported)?
        } else {
            solve_ipopt(p, solver, args, progs)
        };
        let line = serde_json::to_string(&rec).map_err(|e| io_err(&results_file, e))?;
        fh.write_all(format!("{line}\n").as_bytes())
            .map_err(|e| io_err(&results_file, e))?;
        if !rec.solved {
            pb.println(format!(
                "{} ({solver}): {}, comp {:.1e}, viol {:.1e}",
                p.name, rec.status, rec.comp_residual, rec.max_constraint_violation
            ));
        }
        records.push(rec);
        pb.inc(1);
    }
    pb.finish_and_clear();
    let names: HashSet<&str> = problems.iter().map(|p| p.name.as_str()).collect();
    records.retain(|r| names.contains(r.problem.as_str()));
    let table = Table::new(&records);
    let md = out.join("table.md");
    std::fs::write(&md, table.markdown()).map_err(|e| io_err(&md, e))?;
    let js = out.join("table.json");
    let text = serde_json::to_string_pretty(&table).map_err(|e| io_err(&js, e))?;
    std::fs::write(&js, text + "\n").map_err(|e| io_err(&js, e))?;
    Ok(table)
}

/// The tools directory of the source tree this binary was built from.
pub fn default_tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools")
}

/// Run `fesdj mpcc bench`; returns the exit code (0 done, 2 error).
pub fn run(args: &MpccBenchArgs) -> i32 {
    let fesdj = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fesdj mpcc bench: cannot find the fesdj executable: {e}");
            return 2;
        }
    };
    let progs = Programs {
        fesdj,
        python: args.python.clone(),
        tools: args.tools.clone().unwrap_or_else(default_tools),
    };
    match bench(args, &progs) {
        Ok(t) => {
            print!("{}", t.markdown());
            eprintln!(
                "fesdj mpcc bench: {} of {} solved by ours; results in {}",
                t.total.ours_solved,
                t.total.problems,
                args.out.display()
            );
            0
        }
        Err(e) => {
            eprintln!("fesdj mpcc bench: {e}");
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(problem: &str, solver: &str, solved: bool, f: f64, t: f64) -> Record {
        Record {
            problem: problem.into(),
            family: problem.split('_').next().unwrap_or("").into(),
            solver: solver.into(),
            status: if solved { "Solved" } else { "Infeasible" }.into(),
            solved,
            objective: f,
            comp_residual: 0.0,
            max_constraint_violation: 0.0,
            time_s: t,
            wall_s: t,
            homotopy_steps: 1,
            nlp_iterations: 1,
            steps: serde_json::Value::Null,
            stationarity: String::new(),
            descent: serde_json::Value::Null,
            second_path: serde_json::Value::Null,
            error: String::new(),
        }
    }

    #[test]
    fn table_counts_ratios_and_objectives() {
        let recs = vec![
            rec("A_1", OURS, true, 1.0, 0.1),
            rec("A_1", IPOPT_BRF0, true, 1.0 + 1e-6, 1.0),
            rec("A_2", OURS, true, 0.5, 0.2),
            rec("A_2", IPOPT_BRF0, true, 1.0, 0.5),
            rec("A_3", OURS, true, 2.0, 0.3),
            rec("A_3", IPOPT_BRF0, false, 1.0, 0.5),
            rec("B_1", OURS, false, 0.0, 1.0),
            // a later record of the same pair replaces the earlier one
            rec("B_1", OURS, true, 3.0, 0.4),
            rec("B_1", IPOPT_BRF0, true, 3.5, 0.8),
        ];
        let t = Table::new(&recs);
        assert_eq!(t.families.len(), 2);
        let a = &t.families[0];
        assert_eq!((a.problems, a.ours_solved), (3, 3));
        assert_eq!(a.ipopt_brf0_solved, Some(2));
        assert_eq!(a.ipopt_default_solved, None);
        assert_eq!(a.both_solved, 2);
        assert_eq!(
            (
                a.objective_agree,
                a.objective_ours_lower,
                a.objective_ours_higher
            ),
            (1, 1, 0)
        );
        // ratios 0.1 and 0.4: the median of two is their mean
        assert!((a.median_time_ratio.unwrap() - 0.25).abs() < 1e-12);
        assert!((a.ours_median_time_s.unwrap() - 0.2).abs() < 1e-12);
        let b = &t.families[1];
        assert_eq!((b.ours_solved, b.objective_ours_lower), (1, 1));
        assert_eq!(t.total.problems, 4);
        assert_eq!(t.total.ours_solved, 4);
        assert!(t
            .markdown()
            .contains("| **all** | 4 | 4 (100 %) | 3 (75 %) | – |"));
        // records without a certificate are "unchecked", not certified
        assert_eq!(t.total.ours_b_certified, 0);
        assert_eq!(t.total.ours_verdicts.get("unchecked"), Some(&4));
    }

    #[test]
    fn table_counts_the_certified_share() {
        let mut recs = Vec::new();
        for (i, v) in ["S", "B", "C", "unknown"].iter().enumerate() {
            let mut r = rec(&format!("A_{i}"), OURS, true, 1.0, 0.1);
            r.stationarity = v.to_string();
            recs.push(r);
        }
        recs[2].descent =
            serde_json::json!({"kept": true, "objective_before": 2.0, "objective_after": 1.0});
        recs[1].second_path = serde_json::json!({"sigma0": 10.0, "kept": true});
        recs[3].second_path = serde_json::json!({"sigma0": 10.0, "kept": false});
        let mut unsolved = rec("A_9", OURS, false, 1.0, 0.1);
        unsolved.stationarity = "unknown".into();
        recs.push(unsolved);
        let t = Table::new(&recs);
        let a = &t.families[0];
        assert_eq!(
            (a.ours_solved, a.ours_b_certified, a.ours_descent_kept),
            (4, 2, 1)
        );
        assert_eq!(a.ours_second_path_kept, 1);
        assert_eq!(
            a.ours_verdicts.values().sum::<usize>(),
            4,
            "solved ones only"
        );
        assert!(t
            .markdown()
            .contains("| 2 (50 %) | S 1, B 1, C 1, unknown 1 | 1 | 1 |"));
    }

    #[test]
    fn records_roundtrip_with_missing_numbers() {
        let r = rec("A_1", OURS, false, f64::NAN, f64::NAN);
        let line = serde_json::to_string(&r).unwrap();
        assert!(line.contains("\"objective\":null"));
        let back: Record = serde_json::from_str(&line).unwrap();
        assert!(back.objective.is_nan() && back.time_s.is_nan());
        assert_eq!(back.problem, "A_1");
    }
}

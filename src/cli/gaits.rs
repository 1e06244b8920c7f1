//! `fesdj gaits LIBRARY.yaml [--jobs N] [--quiet]`: the gait library (issue 27, formulation
//! §10.9). Solves the periodic OCP of every command of the library file, the independent solves
//! in parallel on all cores, with a progress bar; each finished gait is kept in a parts
//! directory beside the output, so an interrupted run resumes where it stopped (under the same
//! settings key). Writes the library data file and the footfall diagrams.
//!
//! Exit codes: 0 every gait verified, 1 some gait not verified (the library is still written),
//! 2 usage, configuration, solve or I/O error.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::app::gaits::{
    footfall_svg, library_overrides, settings_key, solve_gait, Gait, GaitError, Library,
    LibrarySpec,
};
use crate::config::Problem;

/// Arguments of `fesdj gaits`.
#[derive(clap::Args, Debug, Clone)]
pub struct GaitsArgs {
    /// Library file (YAML), e.g. `config/quadruped_gaits.yaml`.
    pub library: PathBuf,
    /// Parallel solves (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Write the library here instead of the file's `output`.
    #[arg(long, value_name = "OUT.json")]
    pub output: Option<PathBuf>,
    /// Write the diagrams here instead of the file's `diagrams`.
    #[arg(long, value_name = "DIR")]
    pub diagrams: Option<PathBuf>,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
}

/// What `fesdj gaits` did.
#[derive(Debug)]
pub struct GaitsReport {
    /// The library written.
    pub library: Library,
    /// Where.
    pub output: PathBuf,
    /// Gaits taken from an earlier, interrupted run.
    pub resumed: usize,
}

#[derive(Serialize, Deserialize)]
struct Part {
    key: String,
    gait: Gait,
}

fn io(file: &Path, e: impl std::fmt::Display) -> GaitError {
    GaitError::Io {
        file: file.display().to_string(),
        why: e.to_string(),
    }
}

fn write(file: &Path, text: &str) -> Result<(), GaitError> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    // Written whole, then renamed: an interruption never leaves half a file.
    let tmp = file.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| io(&tmp, e))?;
    std::fs::rename(&tmp, file).map_err(|e| io(file, e))
}

fn progress(n: usize, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(n as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:30} {pos}/{len} gaits [{elapsed_precise}, eta {eta}] {msg}",
    ) {
        pb.set_style(style);
    }
    pb
}

/// Build the library (library entry point of the command).
pub fn gaits(args: &GaitsArgs) -> Result<GaitsReport, GaitError> {
    let spec = LibrarySpec::load(&args.library)?;
    let dir = args.library.parent().unwrap_or(Path::new("."));
    let problem_path = dir.join(&spec.problem);
    let problem_text = std::fs::read_to_string(&problem_path).map_err(|e| io(&problem_path, e))?;
    let problem = Problem::load(&problem_path, &[])?;
    // The key covers the robot's URDF too: a changed robot invalidates kept gaits.
    let mut inputs = problem_text;
    if let Some(r) = &problem.config.model.robot {
        let urdf = problem_path
            .parent()
            .unwrap_or(Path::new("."))
            .join(&r.urdf);
        inputs += &std::fs::read_to_string(&urdf).map_err(|e| io(&urdf, e))?;
    }
    let key = settings_key(&inputs, &spec);
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| dir.join(&spec.output));
    let diagrams = args
        .diagrams
        .clone()
        .or_else(|| spec.diagrams.as_ref().map(|d| dir.join(d)));
    let stem = output
        .file_stem()
        .map_or("gaits".into(), |s| s.to_string_lossy().into_owned());
    let parts = output.with_file_name(format!(".{stem}.parts"));
    let part_file = |i: usize| parts.join(format!("gait_{i:03}.json"));

    // Resume: the gaits an earlier run finished under the same key and command.
    let n = spec.commands.len();
    let mut done: Vec<Option<Gait>> = (0..n)
        .map(|i| {
            let text = std::fs::read_to_string(part_file(i)).ok()?;
            let part: Part = serde_json::from_str(&text).ok()?;
            (part.key == key && part.gait.command == spec.commands[i]).then_some(part.gait)
        })
        .collect();
    let resumed = done.iter().filter(|g| g.is_some()).count();
    let todo: Vec<usize> = (0..n).filter(|&i| done[i].is_none()).collect();
    if !todo.is_empty() {
        std::fs::create_dir_all(&parts).map_err(|e| io(&parts, e))?;
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |p| p.get()))
        .clamp(1, todo.len().max(1));
    let pb = progress(n, args.quiet);
    pb.set_position(resumed as u64);
    if resumed > 0 && !args.quiet {
        pb.println(format!(
            "resuming: {resumed} of {n} gaits from {}",
            parts.display()
        ));
    }
    // The standing reference and the overrides of every command, once for all solves.
    let sets = library_overrides(&problem, &spec)?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Result<Gait, GaitError>)>();
    let mut first_error = None;
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, todo, spec, problem_path, sets) =
                (&next, &todo, &spec, &problem_path, &sets);
            s.spawn(move || loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = todo.get(j) else { break };
                let r = solve_gait(problem_path, spec, spec.commands[i], &sets[i]);
                if tx.send((i, r)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            pb.inc(1);
            match r {
                Ok(g) => {
                    let line = format!(
                        "{:?}: {} ({}, {} iterations, comp {:.1e})",
                        g.command,
                        g.name,
                        if g.verified {
                            "verified"
                        } else {
                            "NOT verified"
                        },
                        g.iterations,
                        g.comp_residual
                    );
                    if !args.quiet {
                        pb.println(line);
                    }
                    let part = Part {
                        key: key.clone(),
                        gait: g,
                    };
                    let saved = serde_json::to_string(&part)
                        .map_err(|e| io(&part_file(i), e))
                        .and_then(|text| write(&part_file(i), &text));
                    if let Err(e) = saved {
                        first_error.get_or_insert(e);
                    }
                    done[i] = Some(part.gait);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
    });
    pb.finish_and_clear();
    if let Some(e) = first_error {
        return Err(e);
    }
    let gaits: Vec<Gait> = done.into_iter().flatten().collect();
    let sym = problem.symbols();
    let library = Library {
        problem: spec
            .problem
            .file_name()
            .map_or(String::new(), |f| f.to_string_lossy().into_owned()),
        key,
        contacts: problem.contact_names(),
        state_names: sym.q.iter().chain(&sym.v).cloned().collect(),
        gaits,
    };
    let text = serde_json::to_string_pretty(&library).map_err(|e| io(&output, e))?;
    write(&output, &(text + "\n"))?;
    if let Some(d) = &diagrams {
        for (i, g) in library.gaits.iter().enumerate() {
            write(
                &d.join(format!("gait_{i:02}.svg")),
                &footfall_svg(g, &library.contacts),
            )?;
        }
    }
    if parts.exists() {
        std::fs::remove_dir_all(&parts).map_err(|e| io(&parts, e))?;
    }
    Ok(GaitsReport {
        library,
        output,
        resumed,
    })
}

/// Run the command; returns the process exit code.
pub fn run(args: &GaitsArgs) -> i32 {
    match gaits(args) {
        Ok(r) => {
            let bad = r.library.gaits.iter().filter(|g| !g.verified).count();
            let mut names: Vec<&str> = r.library.gaits.iter().map(|g| g.name.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            println!(
                "fesdj gaits: {} gaits ({} verified, {} resumed; {}) written to {}",
                r.library.gaits.len(),
                r.library.gaits.len() - bad,
                r.resumed,
                names.join(", "),
                r.output.display()
            );
            i32::from(bad > 0)
        }
        Err(e) => {
            eprintln!("fesdj gaits: {e}");
            2
        }
    }
}

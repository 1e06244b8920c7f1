//! Solve a shipped OCP with extra bounds on positions in some control intervals (or fixed
//! controls), then release them and solve again warm from that solution: the tool for steering
//! the homotopy into another local optimum, asking whether it is one of the unrestricted
//! problem and what it costs (issue 5, three boxes: box 3 held at x ≤ 3 until t = 2.8 gives
//! a late, impulsive second impact and objective 292.26 < the shipped 358.98).
//!
//! ```text
//! cargo run --release --example window_bounds -- config/three_boxes.yaml 4:0:6:-inf:3 [KEY=VALUE ...]
//! ```
//!
//! Arguments: the problem file, then windows `i:k0:k1:lo:hi` (bounds `lo ≤ q_i ≤ hi` at every
//! state point of control intervals `k0..=k1`), `i:k0:k1:lo:hi:start` (only at the start point
//! of each of those intervals) or `u:k:value` (the scalar control of interval `k` fixed), then
//! `--set` overrides as `KEY=VALUE`. Prints status, objective, controls and impacts of both
//! solves; the release solve starts from the restricted solution with σ₀ = `WINDOW_SIGMA0`
//! (1e-6). `WINDOW_PRESOLVE=σ` solves without restrictions first and starts the restricted solve
//! from that solution with σ₀ = σ. `WINDOW_ROLLOUT=u_0,u_1,…` (one scalar control per interval)
//! starts the restricted solve instead from a rollout of those controls: `fesdj simulate`'s
//! integrator over each control interval, its step solutions written into the OCP's intervals
//! (same layout per interval; fewer controls than intervals: the rest keep the default guess
//! with the rollout's end state), with σ₀ = `WINDOW_ROLLOUT_SIGMA0` (1e-2). Three boxes with the
//! controls read off [P]'s Fig. 10: `WINDOW_ROLLOUT=6,-25.5,7,5,3.5,4,6,-1,-4.5,-2,-1,-0.5,-0.3,-0.1,0`.

use fesdj_mpc::cli::run::solve_options;
use fesdj_mpc::cli::solve::build_ocp;
use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::{FesdjProblem, Simulator, Start, Trajectory};
use std::error::Error;

fn report(name: &str, t: &Trajectory) {
    println!(
        "== {name}: {:?} objective {:.4} r {:.1e} ({} its, {:.1} s)",
        t.status, t.objective, t.comp_residual, t.nlp_iterations, t.solve_time_s
    );
    let u: Vec<String> = t.u.iter().map(|u| format!("{:.2}", u[0])).collect();
    println!("u: {}", u.join(" "));
    for i in t.impacts.iter().filter(|i| i.lambda_n > 0.05) {
        println!(
            "impact t {:.3} contact {} Lambda {:.3}",
            i.t, i.contact, i.lambda_n
        );
    }
    let sf = &t.stage_forces;
    let box_box: Vec<f64> = (0..sf.lambda_n.first().map_or(0, |l| l.len().min(2)))
        .map(|c| sf.lambda_n.iter().map(|l| l[c]).fold(0.0, f64::max))
        .collect();
    println!("max stage lambda_n of the first two contacts {box_box:?}");
    println!(
        "final q {:?}",
        t.final_state
            .q
            .iter()
            .map(|x| (x * 1e3).round() / 1e3)
            .collect::<Vec<_>>()
    );
}

/// Indices of `q_coord` at the state points of intervals `k0..=k1` (or their start points).
fn positions(
    fp: &FesdjProblem,
    coord: usize,
    k0: usize,
    k1: usize,
    start_only: bool,
) -> Vec<usize> {
    let l = fp.layout();
    let mut out = Vec::new();
    for k in k0..=k1.min(l.n_intervals() - 1) {
        for n in 0..if start_only { 1 } else { l.n_fe(k) } {
            for j in 0..=if start_only { 0 } else { l.n_s + 1 } {
                if let Some(q) = l.q(k, n, j) {
                    out.push(q[coord]);
                }
            }
        }
    }
    out
}

/// A number from the environment variable `name`, if set and valid.
fn env_f64(name: &str) -> Option<f64> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

/// The OCP's primal point from a rollout of `u` (one scalar control per interval).
fn rollout(problem: &Problem, fp: &FesdjProblem, u: &[f64]) -> Result<Vec<f64>, Box<dyn Error>> {
    let setup = problem.ocp()?;
    let n = setup.options.n_intervals;
    if u.is_empty() || u.len() > n {
        return Err(format!("WINDOW_ROLLOUT: {} controls for {n} intervals", u.len()).into());
    }
    let mut opts = setup.options.clone();
    opts.n_intervals = 1;
    let dt = setup.options.t_final / n as f64;
    let mut sim = Simulator::new(problem.cls_model()?, dt, &opts, solve_options(problem))?;
    let mut w = fp.guess().to_vec();
    let mut x = problem.x0();
    for (k, uk) in u.iter().enumerate() {
        let r = sim.step(&x, &[*uk])?;
        let sp = sim.problem();
        let sol = sp.solution().ok_or("rollout step without a solution")?;
        let (src, dst) = (sp.interval_variables(0), fp.interval_variables(k));
        if src.len() != dst.len() {
            return Err("rollout: interval layouts differ".into());
        }
        for (a, b) in src.iter().zip(dst) {
            w[*b] = sol[*a];
        }
        x.copy_from_slice(sim.state());
        eprintln!("rollout step {k}: {:?}, x {x:.3?}", r.stats.status);
    }
    // Intervals after the given controls: the default guess with every state at the
    // rollout's end state.
    let mut tail = fp.guess().to_vec();
    fp.write_states(&x, &mut tail)?;
    for k in u.len()..n {
        for &i in fp.interval_variables(k) {
            w[i] = tail[i];
        }
    }
    Ok(w)
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let file = args
        .get(1)
        .ok_or("usage: window_bounds CONFIG.yaml i:k0:k1:lo:hi[:start]... [KEY=VALUE ...]")?;
    let (windows, sets): (Vec<&String>, Vec<&String>) =
        args.iter().skip(2).partition(|a| !a.contains('='));
    let sets: Vec<String> = sets.into_iter().cloned().collect();
    let problem = Problem::load(std::path::Path::new(file), &sets)?;
    let mut fp = build_ocp(&problem)?;
    let mut idx = Vec::new();
    let presolve = env_f64("WINDOW_PRESOLVE");
    if let Some(s) = presolve {
        let t = fp.solve(Start::Guess)?;
        report("presolve", &t);
        fp.set_sigma0(s)?;
    }
    let mut fixed = Vec::new();
    for w in windows {
        let f: Vec<&str> = w.split(':').collect();
        if f[0] == "u" && f.len() == 3 {
            let (k, u): (usize, f64) = (f[1].parse()?, f[2].parse()?);
            fp.fix_control(k, &[u])?;
            fixed.push(k);
            continue;
        }
        if f.len() < 5 {
            return Err(format!("window `{w}`: expected i:k0:k1:lo:hi[:start]").into());
        }
        let (coord, k0, k1): (usize, usize, usize) = (f[0].parse()?, f[1].parse()?, f[2].parse()?);
        let (lo, hi): (f64, f64) = (f[3].parse()?, f[4].parse()?);
        for i in positions(&fp, coord, k0, k1, f.get(5) == Some(&"start")) {
            fp.set_variable_bounds(i, Some((lo.max(-1e20), hi.min(1e20))))?;
            idx.push(i);
        }
    }
    let roll: Option<Vec<f64>> = match std::env::var("WINDOW_ROLLOUT") {
        Ok(s) => Some(
            s.split(',')
                .map(|x| x.trim().parse::<f64>())
                .collect::<Result<_, _>>()?,
        ),
        Err(_) => None,
    };
    let t = if let Some(u) = roll {
        let w = rollout(&problem, &fp, &u)?;
        fp.set_sigma0(env_f64("WINDOW_ROLLOUT_SIGMA0").unwrap_or(1e-2))?;
        fp.solve(Start::Primal(&w))?
    } else if presolve.is_some() {
        let w = fp.solution().ok_or("no presolve solution")?.to_vec();
        fp.solve(Start::Primal(&w))?
    } else {
        fp.solve(Start::Guess)?
    };
    report("restricted", &t);
    if idx.is_empty() && fixed.is_empty() {
        return Ok(());
    }
    let w = fp.solution().ok_or("no solution")?.to_vec();
    for &i in &idx {
        fp.set_variable_bounds(i, None)?;
    }
    for &k in &fixed {
        fp.release_control(k)?;
    }
    fp.set_sigma0(env_f64("WINDOW_SIGMA0").unwrap_or(1e-6))?;
    let t = fp.solve(Start::Primal(&w))?;
    report("released", &t);
    Ok(())
}

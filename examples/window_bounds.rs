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
//! from that solution with σ₀ = σ.

use fesdj_mpc::cli::solve::build_ocp;
use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::{FesdjProblem, Start, Trajectory};
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
    println!(
        "final q {:?}",
        t.final_state
            .q
            .iter()
            .map(|x| (x * 1e3).round() / 1e3)
            .collect::<Vec<_>>()
    );
}

fn positions(fp: &FesdjProblem, k0: usize, k1: usize, start_only: bool) -> Vec<Vec<usize>> {
    let l = fp.layout();
    let mut out = Vec::new();
    for k in k0..=k1.min(l.n_intervals() - 1) {
        for n in 0..if start_only { 1 } else { l.n_fe(k) } {
            for j in 0..=if start_only { 0 } else { l.n_s + 1 } {
                if let Some(q) = l.q(k, n, j) {
                    out.push(q.to_vec());
                }
            }
        }
    }
    out
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
    let presolve: Option<f64> = std::env::var("WINDOW_PRESOLVE")
        .ok()
        .and_then(|s| s.parse().ok());
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
        for q in positions(&fp, k0, k1, f.get(5) == Some(&"start")) {
            fp.set_variable_bounds(q[coord], Some((lo.max(-1e20), hi.min(1e20))))?;
            idx.push(q[coord]);
        }
    }
    let t = match presolve {
        Some(_) => {
            let w = fp.solution().ok_or("no presolve solution")?.to_vec();
            fp.solve(Start::Primal(&w))?
        }
        None => fp.solve(Start::Guess)?,
    };
    report("bounded", &t);
    let w = fp.solution().ok_or("no solution")?.to_vec();
    for &i in &idx {
        fp.set_variable_bounds(i, None)?;
    }
    for &k in &fixed {
        fp.release_control(k)?;
    }
    let s0 = std::env::var("WINDOW_SIGMA0")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1e-6);
    fp.set_sigma0(s0)?;
    let t = fp.solve(Start::Primal(&w))?;
    report("released", &t);
    Ok(())
}

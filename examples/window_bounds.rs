//! Solve a shipped OCP with extra bounds on positions in some control intervals (or fixed
//! controls), then release them and solve again warm from that solution: the tool for steering
//! the homotopy into another local optimum, asking whether it is one of the unrestricted
//! problem and what it costs (issue 5, three boxes: box 3 held at x ≤ 3 until t = 2.8 gives
//! a late, impulsive second impact and objective 292.26 < the shipped 358.98; [P]'s first seven
//! controls fixed, then released with `WINDOW_SIGMA0=5e-3`, give [P]'s own optimum with both
//! impacts, 365.64).
//!
//! ```text
//! cargo run --release --example window_bounds -- config/three_boxes.yaml 4:0:6:-inf:3 [KEY=VALUE ...]
//! ```
//!
//! Arguments: the problem file, then windows `i:k0:k1:lo:hi` (bounds `lo ≤ q_i ≤ hi` at every
//! state point of control intervals `k0..=k1`), `i:k0:k1:lo:hi:start` (only at the start point
//! of each of those intervals), `u:k:value` (the scalar control of interval `k` fixed),
//! `u:k:lo:hi` (bounded) or `lam:c:k0:k1:hi` (stage normal forces of contact `c` bounded by
//! `0 ≤ λ_n ≤ hi` in intervals `k0..=k1`), then
//! `--set` overrides as `KEY=VALUE`. Prints status, objective, controls and impacts of both
//! solves; the release solve starts from the restricted solution with σ₀ = `WINDOW_SIGMA0`
//! (1e-6). `WINDOW_PRESOLVE=σ` solves without restrictions first and starts the restricted solve
//! from that solution with σ₀ = σ. `WINDOW_ROLLOUT=u_0,u_1,…` (one scalar control per interval)
//! starts the restricted solve instead from a rollout of those controls: `fesdj simulate`'s
//! integrator over each control interval, its step solutions written into the OCP's intervals
//! (same layout per interval; fewer controls than intervals: the rest keep the default guess
//! with the rollout's end state), with σ₀ = `WINDOW_ROLLOUT_SIGMA0` (1e-2). Three boxes with the
//! controls read off [P]'s Fig. 10: `WINDOW_ROLLOUT=6,-25.5,7,5,3.5,4,6,-1,-4.5,-2,-1,-0.5,-0.3,-0.1,0`.
//! `WINDOW_SAVE=FILE` writes the restricted solution (JSON), `WINDOW_LOAD=FILE` releases from
//! such a file instead of solving the restricted problem (the windows are still needed, to know
//! what to release); `WINDOW_RELEASE_MAX_ITER` caps the release's IPM iterations per NLP.
//! `WINDOW_GUIDE=u_0,u_1,…` (one per interval) starts it instead from the solution of a guided
//! problem (the same file with LSQ tracking, control weight `WINDOW_GUIDE_R` (10) and these
//! controls as per-interval references, solved from the default guess), with σ₀ =
//! `WINDOW_GUIDE_SIGMA0` (1e-6).

use fesdj_mpc::app::build_ocp;
use fesdj_mpc::app::solve_options;
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

/// Indices of the stage normal forces `λ_n` of contact `c` in intervals `k0..=k1`.
fn stage_forces(fp: &FesdjProblem, c: usize, k0: usize, k1: usize) -> Vec<usize> {
    let l = fp.layout();
    let mut out = Vec::new();
    for k in k0..=k1.min(l.n_intervals() - 1) {
        for n in 0..l.n_fe(k) {
            for j in 1..=l.n_s {
                out.push(l.stage(k, n, j).lambda_n[c]);
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

/// The solution of a guided problem: the same file and overrides with LSQ tracking, control
/// weight `r` and the control reference of interval `k` set to `u[k]`, solved from the
/// default guess; its variable layout must equal `fp`'s.
fn guided(
    file: &str,
    sets: &[String],
    fp: &FesdjProblem,
    u: &[f64],
    r: f64,
) -> Result<Vec<f64>, Box<dyn Error>> {
    let mut sets = sets.to_vec();
    sets.push("ocp.tracking=lsq".into());
    sets.push(format!("ocp.R=[{r}]"));
    let problem = Problem::load(std::path::Path::new(file), &sets)?;
    let mut gp = build_ocp(&problem)?;
    if gp.n_w() != fp.n_w() {
        return Err("guided problem: variable layouts differ".into());
    }
    let refs = gp.layout().params.u_ref.clone();
    if u.len() != refs.len() {
        return Err(format!(
            "WINDOW_GUIDE: {} controls for {} intervals",
            u.len(),
            refs.len()
        )
        .into());
    }
    for (k, idx) in refs.iter().enumerate() {
        for &i in idx {
            gp.parameters_mut()[i] = u[k];
        }
    }
    let t = gp.solve(Start::Guess)?;
    report("guided", &t);
    Ok(gp.solution().ok_or("no guided solution")?.to_vec())
}

/// A comma-separated list of numbers from the environment variable `name`, if set.
fn env_list(name: &str) -> Result<Option<Vec<f64>>, Box<dyn Error>> {
    match std::env::var(name) {
        Ok(s) => Ok(Some(
            s.split(',')
                .map(|x| x.trim().parse::<f64>())
                .collect::<Result<_, _>>()?,
        )),
        Err(_) => Ok(None),
    }
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
        if f[0] == "u" && f.len() == 4 {
            let k: usize = f[1].parse()?;
            if k >= fp.layout().n_intervals() {
                return Err(format!("window `{w}`: no interval {k}").into());
            }
            let (lo, hi): (f64, f64) = (f[2].parse()?, f[3].parse()?);
            for &i in fp.layout().u(k).to_vec().iter() {
                fp.set_variable_bounds(i, Some((lo, hi)))?;
                idx.push(i);
            }
            continue;
        }
        if f[0] == "lam" && f.len() == 5 {
            let (c, k0, k1): (usize, usize, usize) = (f[1].parse()?, f[2].parse()?, f[3].parse()?);
            let hi: f64 = f[4].parse()?;
            if c >= fp.layout().stage(0, 0, 1).lambda_n.len() {
                return Err(format!("window `{w}`: no contact {c}").into());
            }
            for i in stage_forces(&fp, c, k0, k1) {
                fp.set_variable_bounds(i, Some((0.0, hi)))?;
                idx.push(i);
            }
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
    let roll = env_list("WINDOW_ROLLOUT")?;
    let guide = env_list("WINDOW_GUIDE")?;
    let load = std::env::var("WINDOW_LOAD").ok();
    let t = if load.is_some() {
        None
    } else if let Some(u) = guide {
        let r = env_f64("WINDOW_GUIDE_R").unwrap_or(10.0);
        let w = guided(file, &sets, &fp, &u, r)?;
        fp.set_sigma0(env_f64("WINDOW_GUIDE_SIGMA0").unwrap_or(1e-6))?;
        Some(fp.solve(Start::Primal(&w))?)
    } else if let Some(u) = roll {
        let w = rollout(&problem, &fp, &u)?;
        fp.set_sigma0(env_f64("WINDOW_ROLLOUT_SIGMA0").unwrap_or(1e-2))?;
        Some(fp.solve(Start::Primal(&w))?)
    } else if presolve.is_some() {
        let w = fp.solution().ok_or("no presolve solution")?.to_vec();
        Some(fp.solve(Start::Primal(&w))?)
    } else {
        Some(fp.solve(Start::Guess)?)
    };
    if let Some(t) = &t {
        report("restricted", t);
    }
    if idx.is_empty() && fixed.is_empty() {
        return Ok(());
    }
    let w: Vec<f64> = match &load {
        // A restricted solution saved by an earlier run (`WINDOW_SAVE`): only the release runs.
        Some(path) => serde_json::from_str(&std::fs::read_to_string(path)?)?,
        None => fp.solution().ok_or("no solution")?.to_vec(),
    };
    if w.len() != fp.n_w() {
        return Err(format!(
            "restricted point: {} values for {} variables",
            w.len(),
            fp.n_w()
        )
        .into());
    }
    if let Ok(path) = std::env::var("WINDOW_SAVE") {
        std::fs::write(&path, serde_json::to_string(&w)?)?;
    }
    if let Some(n) = env_f64("WINDOW_RELEASE_MAX_ITER") {
        let mut s = fp.solver_settings().clone();
        s.ipm.max_iter = n as usize;
        fp.set_solver_settings(s)?;
    }
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

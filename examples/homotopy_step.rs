//! One warm-started step of the MPCC homotopy of a shipped OCP, solved by our IPM and by IPOPT
//! from the identical primal-dual point, both with their iteration logs: the tool for finding
//! where the two solvers part ways on a relaxed NLP (issue 5, two discs).
//!
//! ```text
//! eval "$(tools/ipopt_pkgconfig.sh)"
//! cargo run --release --features ipopt-baseline --example homotopy_step -- \
//!     config/two_discs.yaml 3 both [KEY=VALUE ...] 2> ours.log > ipopt.log
//! ```
//!
//! Arguments: the problem file, the number `k` of homotopy steps solved first by our
//! `MpccSolver` (σ₀ … σ₀κ^{k−1}, no polishing), which solver(s) then solve the step
//! σ₀κ^k (`ours`, `ipopt`, `both` or `none`), and `--set` overrides of the problem file.
//! Our log goes to stderr, IPOPT's (print level 5) to stdout. Also on stderr: the twelve pairs
//! farthest from complementarity (largest `min(G, H)`, with their origin) after the warm-up
//! steps and at our end point, and the original NLP's most violated rows there.
//! `HOMOTOPY_STEP_KAPPA=f` examines the shorter step σ₀κ^{k−1}·f instead.

use fesdj_mpc::app::solve_options;
use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::Transcription;
use fesdj_mpc::solver::baseline::{ipopt_solve, WarmStart};
use fesdj_mpc::solver::{Complementarity, Ipm, IpmStart, MpccSolver, Nlp, Polish};
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let file = args
        .get(1)
        .ok_or("usage: homotopy_step CONFIG.yaml [K] [ours|ipopt|both|none] [KEY=VALUE ...]")?;
    let pre: usize = match args.get(2) {
        Some(s) => s.parse()?,
        None => 3,
    };
    let which = args.get(3).map(String::as_str).unwrap_or("both");
    let sets: Vec<String> = args.iter().skip(4).cloned().collect();
    let problem = Problem::load(std::path::Path::new(file), &sets)?;
    let mpcc = problem.ocp()?.transcribe()?;
    let (nlp, comp) = mpcc.nlp()?;
    let mut settings = solve_options(&problem).solver;
    settings.max_homotopy_steps = pre.max(1);
    settings.polish = Polish::Never;
    // Fixed variables start at their bound, as in `FesdjProblem::solve`.
    let x0 = mpcc.start_point();
    let p = mpcc.p0.clone();
    let mut m = MpccSolver::new(&nlp, &comp, settings.clone())?;
    let r = m.solve(&nlp, &comp, &p, Some(&x0))?;
    for s in &r.steps {
        eprintln!(
            "homotopy: sigma {:.0e} {:?} {} iterations, max min(G, H) {:.1e}",
            s.sigma, s.status, s.iterations, s.comp_residual
        );
    }
    print_pairs(&mpcc, &comp, &r.x, &p, "after the warm-up steps")?;
    let (l, zl, zu) = m.duals();
    let (l, zl, zu) = (l.to_vec(), zl.to_vec(), zu.to_vec());
    // σ as the homotopy computes it (repeated multiplication: the last digit matters, a step
    // from σ₀κ^k by `powi` can take a different path)
    let mut sigma = settings.sigma0;
    for _ in 0..pre {
        sigma *= settings.kappa;
    }
    // `HOMOTOPY_STEP_KAPPA` replaces the last factor κ of the examined step (a shorter step).
    if let Some(f) = std::env::var("HOMOTOPY_STEP_KAPPA")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
    {
        sigma = sigma / settings.kappa * f;
    }
    m.structure_mut().sigma = sigma;
    let mut s = settings.ipm.clone();
    s.mu_init = (settings.mu_warm_factor * sigma).clamp(1e-9, 1e-3);
    s.print = true;
    eprintln!("== step sigma {sigma:e}, mu_init {:e}", s.mu_init);
    let relaxed = m.relaxed(&nlp, &comp)?;
    let relaxed: &dyn Nlp = &relaxed;
    let warm = IpmStart::Warm {
        x: &r.x,
        lambda: &l,
        z_l: &zl,
        z_u: &zu,
    };
    if which == "both" || which == "ours" {
        let mut ipm = Ipm::new(relaxed, s.clone())?;
        let st = ipm.solve(relaxed, &p, warm)?;
        eprintln!("ours: {st:?}, {} iterations", ipm.info().iterations);
        let x = ipm.solution().x.to_vec();
        print_pairs(&mpcc, &comp, &x, &p, "at our end point")?;
        print_rows(&mpcc, &nlp, &x, &p)?;
    }
    if which == "both" || which == "ipopt" {
        let w = WarmStart {
            lambda: &l,
            z_l: &zl,
            z_u: &zu,
        };
        let b = ipopt_solve(relaxed, &p, &r.x, Some(w), &s)?;
        eprintln!("IPOPT: {:?}, {} iterations", b.status, b.iterations);
    }
    Ok(())
}

/// The pairs farthest from complementarity (largest `min(G, H)`) at `x`, with their origin.
fn print_pairs(
    mpcc: &Transcription,
    comp: &dyn Complementarity,
    x: &[f64],
    p: &[f64],
    when: &str,
) -> Result<(), Box<dyn Error>> {
    let k = comp.n_pairs();
    let (mut g, mut h) = (vec![0.0; k], vec![0.0; k]);
    comp.eval(x, p, &mut g, &mut h)?;
    let mut idx: Vec<usize> = (0..k).collect();
    idx.sort_by(|&a, &b| g[b].min(h[b]).total_cmp(&g[a].min(h[a])));
    eprintln!("pairs with the largest min(G, H) {when}:");
    for &i in idx.iter().take(12) {
        eprintln!(
            "  G {:.3e} H {:.3e} GH {:.2e}  {:?}",
            g[i],
            h[i],
            g[i] * h[i],
            mpcc.comp_info[i]
        );
    }
    Ok(())
}

/// The original NLP's most violated rows at `x`, with their origin.
fn print_rows(
    mpcc: &Transcription,
    nlp: &dyn Nlp,
    x: &[f64],
    p: &[f64],
) -> Result<(), Box<dyn Error>> {
    let (n, m) = (nlp.n(), nlp.m());
    let (mut xl, mut xu, mut gl, mut gu) = (vec![0.0; n], vec![0.0; n], vec![0.0; m], vec![0.0; m]);
    nlp.bounds(&mut xl, &mut xu, &mut gl, &mut gu);
    let mut g = vec![0.0; m];
    nlp.eval_g(x, p, &mut g)?;
    let viol: Vec<f64> = (0..m)
        .map(|i| (gl[i] - g[i]).max(g[i] - gu[i]).max(0.0))
        .collect();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&a, &b| viol[b].total_cmp(&viol[a]));
    eprintln!("most violated rows:");
    for &i in idx.iter().take(12) {
        eprintln!("  {:.3e}  {:?}", viol[i], mpcc.g_info[i]);
    }
    Ok(())
}

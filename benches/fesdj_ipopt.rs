//! Benchmark of issue 5: the shipped FESD-J OCPs (spec §6.2 two discs, §6.3 three boxes, §6.5
//! hopper) solved with our MPCC homotopy and with the same homotopy on IPOPT, on the identical
//! NLP, in one run; plus the simulation cost per simulated second of the balls of §6.4 (ours
//! only).
//!
//! ```text
//! eval "$(tools/ipopt_pkgconfig.sh)"
//! cargo bench --bench fesdj_ipopt --features ipopt-baseline
//! FESDJ_BENCH_CONFIGS=two_discs,hopper_ocp cargo bench ...   # a subset
//! FESDJ_BENCH_SET='fesdj.n_fe=3;solver.kappa=0.2' cargo bench ...   # overrides (as --set)
//! ```
//!
//! "Identical NLP": each config is loaded as `fesdj solve` loads it (`Problem::load`, the
//! `solver` section with `fesdj solve`'s stop measure), transcribed once and compiled once
//! (`AdNlp` + `AdComplementarity`, the callbacks both solvers see); both start from the
//! transcription's initial guess. Ours is [`MpccSolver`]; IPOPT's homotopy is
//! [`ipopt_mpcc`], the same loop on the relaxed NLPs of an `MpccSolver` (σ schedule,
//! primal–dual warm starts, initial barrier `mu_warm_factor σ_k`, tolerances, wall-clock
//! limit, and the stop test on the configured measure, `max G H` by default); no polishing
//! in either (ours polishes only when the homotopy fails; that is reported in its status).
//! Both times include building the `MpccSolver` (IPM work space and KKT analysis). IPOPT is
//! Debian's 3.11 with MUMPS. Each solve runs once (these are seconds to minutes, not
//! microseconds), capped at `FESDJ_BENCH_MAX_WALL` seconds (default 300). Rows are printed as
//! they finish.
//!
//! Measured 2026-12-02 (shared 2-core machine, load ~5, `FESDJ_BENCH_MAX_WALL=240`), one run:
//!
//! ```text
//! problem      solver  status          iters  hom  time [s]    objective   max GH   max min
//! two_discs    ours    MaxIterations   28823   12     65.05    640.26371   1.0e-1   3.1e-1
//! two_discs    IPOPT   Solved           2863   11     27.62    714.70406   1.0e-9   2.2e-5
//! three_boxes  ours    Solved           2814   25      6.11    300.37218   6.0e-8   2.4e-4
//! three_boxes  IPOPT   MaxTime          2481    4    240.08    220.30904   2.5e-1   5.0e-1
//! hopper_ocp   ours    Solved            769    5      1.17     15.34608   4.9e-8   1.0e-5
//! hopper_ocp   IPOPT   Solved           1336    5     11.97      9.43013   3.0e-11  1.3e-6
//! ratios ours/IPOPT (time): two_discs 2.35 (ours unsolved), three_boxes 0.03 (IPOPT capped
//! after 4 of its NLPs), hopper 0.10 (different local optima).
//! simulate: ball_1d 0.05 s, ball_2d 0.46 s, ball_3d 9.4 s per simulated second
//! (ball_3d ends ComplementarityNotMet as shipped).
//! ```
//!
//! Measured 2026-12-03 after the scheduled tapes (src/ad/schedule.rs; both solvers use the
//! same tapes, so IPOPT's evaluations got faster too), idle 2-core machine,
//! `FESDJ_BENCH_CONFIGS=hopper_ocp,three_boxes,two_discs FESDJ_BENCH_MAX_WALL=240`:
//!
//! ```text
//! two_discs    ours    RestorationFailed  16563   12     47.97    644.85110    1.0e-1    3.1e-1
//! two_discs    IPOPT   Solved              3250   11     57.35    713.99001    1.0e-9    2.2e-5
//! three_boxes  ours    Solved              3290   27     12.67    300.37237     0.0e0     0.0e0
//! three_boxes  IPOPT   MaxTime             2370    1    240.08   3333.84480     1.0e0    9.0e-1
//! hopper_ocp   ours    Solved               369    3      0.39     14.20965    9.8e-8    2.5e-5
//! hopper_ocp   IPOPT   Solved              1026    6      9.54      8.42878   3.9e-11    1.7e-7
//! ratios ours/IPOPT (time): two_discs 0.84 (ours unsolved), three_boxes 0.05 (IPOPT capped
//! in its first NLP), hopper 0.04 (different local optima).
//! ```
//!
//! Measured 2026-12-03 after two_discs.yaml switched to the ℓ1-penalty homotopy
//! (`solver.relaxation: l1_penalty`; both solvers run it), idle 2-core machine, same command:
//!
//! ```text
//! two_discs    ours    Solved                   2731    9      4.15    683.28172   4.2e-11    2.5e-6
//! two_discs    IPOPT   Solved                   2031    9     35.21    680.48647   7.4e-12    1.3e-6
//! three_boxes  ours    Solved                   3290   27     12.87    300.37237     0.0e0     0.0e0
//! three_boxes  IPOPT   MaxTime                  2317    1    240.07   3397.34482     1.0e0    9.0e-1
//! hopper_ocp   ours    Solved                    369    3      0.39     14.20965    9.8e-8    2.5e-5
//! hopper_ocp   IPOPT   Solved                   1026    6      8.36      8.42878   3.9e-11    1.7e-7
//! ratios ours/IPOPT (time): two_discs 0.12 (both solved), three_boxes 0.05 (IPOPT capped
//! in its first NLP), hopper 0.05 (different local optima).
//! simulate (FESDJ_BENCH_CONFIGS=bouncing_ball_1d,bouncing_ball_2d,bouncing_ball_3d): ball_1d
//! 0.12 s, ball_2d 0.29 s, ball_3d 9.0 s per simulated second (ball_3d now Solved: polish always).
//! ```
//!
//! Re-measured 2026-12-04 after `step_retries` (default 0; every iteration count is unchanged),
//! idle machine, same command: two_discs ours 3.41 s / IPOPT 26.53 s (ratio 0.13), three_boxes
//! ours 9.64 s / IPOPT MaxTime 240 s after 3 NLPs (< 0.04), hopper_ocp 0.29 s / 6.03 s (0.05).
//!
//! three_boxes.yaml with N's homotopy (κ 0.2 superlinear, impulse blocks at every element,
//! `step_retries: 4`), 2026-12-04, `FESDJ_BENCH_CONFIGS=three_boxes FESDJ_BENCH_MAX_WALL=240`:
//! ours Solved, 14339 iterations, 26 NLPs, 71.88 s, objective 358.98109, max G H 9.0e-22;
//! IPOPT MaxTime after 3 NLPs (2187 iterations, 240.10 s); time ratio < 0.30. Uncapped
//! (`FESDJ_BENCH_MAX_WALL=3600`, same day, machine shared with other solves): ours Solved,
//! 14339 iterations, 100.16 s, 358.98109; IPOPT Infeasible after 26 NLPs (11437 iterations,
//! 826.74 s, objective 371.30797, max G H 5.6e-3): its retries never pass σ ≈ 6e-3, where ours
//! go through. Time ratio 0.12, iterations 1.25. The figures below are of the earlier config
//! (interior impacts only, κ 0.5 linear).
//!
//! With `FESDJ_BENCH_CONFIGS=three_boxes FESDJ_BENCH_MAX_WALL=600` IPOPT converges too, to
//! the same point: Solved, 4251 iterations, 25 NLPs, 416.86 s, objective 300.37218, max G H
//! 6.0e-8 (ours in that run: 2814 iterations, 12.41 s; time ratio 0.03, iterations 0.66);
//! IPOPT's first NLP (σ = 1) alone takes 1498 iterations and 149 s (ours 569 and 3 s).
//!
//! Since IPOPT gets our `warm_start_slack_bound_push` (1e-9 in the homotopy; it used its
//! default 1e-3 before), two discs (2026-12-02, uncontended): ours MaxIterations, 28823
//! iterations, 47.9 s; IPOPT Solved, 5182 iterations, 11 NLPs, 58.2 s, objective 732.92121,
//! max G H 1.0e-9. So the slack push is not why IPOPT converges where ours stalls.
//!
//! two_discs and hopper_ocp repeat the iteration counts of the earlier run with the homotopy
//! loop written out here (IPOPT 2863 / 1336); three boxes now converges with the IPM log off
//! (the partial-`ipm`-section fix), as it did with `solver.ipm.print = true`.

use fesdj_mpc::app::solve_options;
use fesdj_mpc::config::Problem;
use fesdj_mpc::solver::baseline::ipopt_mpcc;
use fesdj_mpc::solver::{Complementarity, MpccResult, MpccSolver, Nlp, SolverError};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One solver's outcome on one problem.
struct Outcome {
    status: String,
    iterations: usize,
    homotopy_steps: usize,
    time_s: f64,
    objective: f64,
    comp_product: f64,
    comp_min: f64,
}

/// Runs one homotopy and times it (setup included).
fn timed(solve: impl FnOnce() -> Result<MpccResult, SolverError>) -> Outcome {
    let t = Instant::now();
    let r = solve();
    let time_s = t.elapsed().as_secs_f64();
    match r {
        Ok(r) => {
            // One stderr line per relaxed NLP (σ, status, iterations, max min(G, H), time).
            for st in &r.steps {
                eprintln!(
                    "  sigma {:.0e} {:?} {} it, max min {:.1e}, {:.2} s",
                    st.sigma, st.status, st.iterations, st.comp_residual, st.time_s
                );
            }
            Outcome {
                status: format!("{:?}", r.status),
                iterations: r.nlp_iterations,
                homotopy_steps: r.homotopy_steps,
                time_s,
                objective: r.objective,
                comp_product: r.comp_residual_product,
                comp_min: r.comp_residual,
            }
        }
        Err(e) => failed(format!("error: {e}"), time_s),
    }
}

fn failed(status: String, time_s: f64) -> Outcome {
    Outcome {
        status,
        iterations: 0,
        homotopy_steps: 0,
        time_s,
        objective: f64::NAN,
        comp_product: f64::NAN,
        comp_min: f64::NAN,
    }
}

/// Wall-clock cap of each homotopy, seconds (`FESDJ_BENCH_MAX_WALL`, default 300): a run that
/// hits it is reported with the status `MaxTime`.
fn max_wall() -> f64 {
    std::env::var("FESDJ_BENCH_MAX_WALL")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300.0)
}

/// Config overrides for every OCP row (`FESDJ_BENCH_SET`, `;`-separated `KEY=VALUE` as with
/// `fesdj solve --set`), e.g. `FESDJ_BENCH_SET='fesdj.no_initial_impacts=false'`.
fn overrides() -> Vec<String> {
    std::env::var("FESDJ_BENCH_SET")
        .map(|s| {
            s.split(';')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

struct Row {
    name: String,
    sizes: String,
    ours: Outcome,
    ipopt: Outcome,
}

fn ocp_row(name: &str) -> Result<Row, String> {
    let path = root().join("config").join(format!("{name}.yaml"));
    let problem = Problem::load(&path, &overrides()).map_err(|e| format!("{name}: {e}"))?;
    let setup = problem.ocp().map_err(|e| format!("{name}: {e}"))?;
    let mpcc = setup.transcribe().map_err(|e| format!("{name}: {e}"))?;
    let (nlp, comp) = mpcc.nlp().map_err(|e| format!("{name}: {e}"))?;
    let mut settings = solve_options(&problem).solver;
    settings.ipm.print = false;
    settings.max_wall_time = settings.max_wall_time.min(max_wall());
    // Variables fixed by their bounds (the initial state) start at the bound, as in
    // `FesdjProblem::solve`.
    let x0 = mpcc.start_point();
    let p = mpcc.p0.clone();
    let sizes = format!("n_w {}, n_g {}, pairs {}", nlp.n(), nlp.m(), comp.n_pairs());
    eprintln!("{name}: {sizes}; ours ...");
    let o = timed(|| {
        MpccSolver::new(&nlp, &comp, settings.clone())
            .and_then(|mut m| m.solve(&nlp, &comp, &p, Some(&x0)))
    });
    eprintln!("{name}: ours {} in {:.2} s; IPOPT ...", o.status, o.time_s);
    // The same homotopy with IPOPT solving the relaxed NLPs.
    let i = timed(|| ipopt_mpcc(&nlp, &comp, &settings, &p, Some(&x0)));
    eprintln!("{name}: IPOPT {} in {:.2} s", i.status, i.time_s);
    Ok(Row {
        name: name.into(),
        sizes,
        ours: o,
        ipopt: i,
    })
}

fn print_ocp_header() {
    println!();
    println!("FESD-J OCPs: our MPCC homotopy vs the same homotopy on IPOPT (identical NLP)");
    println!(
        "{:<12} {:<7} {:<22} {:>6} {:>4} {:>9} {:>12} {:>9} {:>9}",
        "problem", "solver", "status", "iters", "hom", "time [s]", "objective", "max GH", "max min"
    );
}

fn print_ocp_row(r: &Row) {
    for (who, o) in [("ours", &r.ours), ("IPOPT", &r.ipopt)] {
        println!(
            "{:<12} {:<7} {:<22} {:>6} {:>4} {:>9.2} {:>12.5} {:>9.1e} {:>9.1e}",
            r.name,
            who,
            o.status,
            o.iterations,
            o.homotopy_steps,
            o.time_s,
            o.objective,
            o.comp_product,
            o.comp_min
        );
    }
    println!(
        "{:<12} ratio ours/IPOPT: time {:.2}, iterations {:.2}   ({})",
        r.name,
        r.ours.time_s / r.ipopt.time_s,
        r.ours.iterations as f64 / r.ipopt.iterations.max(1) as f64,
        r.sizes
    );
}

fn sim_rows(names: &[&str]) {
    use fesdj_mpc::cli::run::RunArgs;
    use fesdj_mpc::cli::simulate::{simulate, SimulateArgs};
    println!();
    println!("Simulation cost (ours; `fesdj simulate` without outputs, build included)");
    println!(
        "{:<18} {:>6} {:>8} {:>10} {:>14}  status",
        "config", "N_sim", "T_sim", "wall [s]", "wall/sim s"
    );
    for name in names {
        let args = SimulateArgs {
            run: RunArgs {
                config: root().join("config").join(format!("{name}.yaml")),
                set: Vec::new(),
                output: None,
                plot: None,
                dry_run: false,
                quiet: true,
            },
        };
        let t = Instant::now();
        let doc = simulate(&args);
        let wall = t.elapsed().as_secs_f64();
        match doc {
            Ok(doc) => {
                let times = doc["t"].as_array().map(|v| v.len()).unwrap_or(0);
                let t_end = doc["t"]
                    .as_array()
                    .and_then(|v| v.last())
                    .and_then(|x| x.as_f64())
                    .unwrap_or(f64::NAN);
                let steps = Problem::load(&args.run.config, &[])
                    .ok()
                    .and_then(|p| p.config.simulation.as_ref().map(|s| s.n_sim))
                    .unwrap_or(0);
                println!(
                    "{:<18} {:>6} {:>8.3} {:>10.3} {:>14.4}  {} ({} grid points)",
                    name,
                    steps,
                    t_end,
                    wall,
                    wall / t_end,
                    doc["status"].as_str().unwrap_or("?"),
                    times
                );
            }
            Err(e) => println!("{name:<18} error: {e}"),
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects problems by substring.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let from_env = std::env::var("FESDJ_BENCH_CONFIGS").ok();
    let selected = |name: &str| -> bool {
        let by_env = from_env
            .as_deref()
            .is_none_or(|l| l.split(',').any(|x| x.trim() == name));
        let by_arg = filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
        by_env && by_arg
    };
    print_ocp_header();
    for name in ["two_discs", "three_boxes", "hopper_ocp"] {
        if !selected(name) {
            continue;
        }
        match ocp_row(name) {
            Ok(r) => print_ocp_row(&r),
            Err(e) => eprintln!("{e}"),
        }
    }
    let balls: Vec<&str> = ["bouncing_ball_1d", "bouncing_ball_2d", "bouncing_ball_3d"]
        .into_iter()
        .filter(|n| selected(n))
        .collect();
    sim_rows(&balls);
}

//! Per-iteration cost of the solver on the hopper MPC problem (issues 5 + 6) — a measurement
//! harness, not a test (`cargo run --release --example speed_hopper [-- N]`).
//!
//! Builds `config/hopper_mpc.yaml` once (transcription, compiled functions, MPCC solver) and
//! prints
//! (a) one full cold solve: wall time, IPM iterations, time per iteration, and how often each
//!     NLP / complementarity callback ran (a counting wrapper around the callbacks);
//! (b) N evaluations of every callback (objective, gradient, constraints, Jacobian, Lagrangian
//!     Hessian, G/H, their Jacobians and Hessian) at the solution;
//! (c) N assemblies + factorisations + solves of the solver's KKT system at the solution.
//!
//! Wall time is noisy on a shared machine; for stable numbers run it under
//! `valgrind --tool=callgrind --callgrind-out-file=cg.out target/release/examples/speed_hopper 3`
//! and read the inclusive instruction counts (`callgrind_annotate --inclusive=yes cg.out`).

use fesdj_mpc::ad::SparsityPattern;
use fesdj_mpc::app::solve_options;
use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::transcribe;
use fesdj_mpc::solver::ad_nlp::{AdComplementarity, AdNlp, NlpBounds};
use fesdj_mpc::solver::{kkt_bench, Complementarity, EvalError, MpccSolver, Nlp};
use std::cell::Cell;
use std::path::Path;
use std::time::Instant;

/// Call counters around an [`Nlp`].
struct Counting<'a, T: ?Sized> {
    inner: &'a T,
    calls: [Cell<usize>; 8],
}

const NAMES: [&str; 8] = [
    "f",
    "grad_f",
    "g",
    "jac_g",
    "hess_l",
    "comp",
    "comp_jac",
    "comp_hess",
];

impl<'a, T: ?Sized> Counting<'a, T> {
    fn new(inner: &'a T) -> Self {
        Counting {
            inner,
            calls: Default::default(),
        }
    }
    fn tick(&self, i: usize) {
        self.calls[i].set(self.calls[i].get() + 1);
    }
    fn counts(&self) -> [usize; 8] {
        std::array::from_fn(|i| self.calls[i].get())
    }
}

impl Nlp for Counting<'_, AdNlp> {
    fn n(&self) -> usize {
        self.inner.n()
    }
    fn m(&self) -> usize {
        self.inner.m()
    }
    fn n_p(&self) -> usize {
        self.inner.n_p()
    }
    fn bounds(&self, x_l: &mut [f64], x_u: &mut [f64], g_l: &mut [f64], g_u: &mut [f64]) {
        self.inner.bounds(x_l, x_u, g_l, g_u)
    }
    fn initial_point(&self, x0: &mut [f64]) {
        self.inner.initial_point(x0)
    }
    fn jacobian_pattern(&self) -> &SparsityPattern {
        self.inner.jacobian_pattern()
    }
    fn hessian_pattern(&self) -> &SparsityPattern {
        self.inner.hessian_pattern()
    }
    fn eval_f(&self, x: &[f64], p: &[f64]) -> Result<f64, EvalError> {
        self.tick(0);
        self.inner.eval_f(x, p)
    }
    fn eval_grad_f(&self, x: &[f64], p: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        self.tick(1);
        self.inner.eval_grad_f(x, p, grad)
    }
    fn eval_g(&self, x: &[f64], p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        self.tick(2);
        self.inner.eval_g(x, p, g)
    }
    fn eval_jac_g(&self, x: &[f64], p: &[f64], vals: &mut [f64]) -> Result<(), EvalError> {
        self.tick(3);
        self.inner.eval_jac_g(x, p, vals)
    }
    fn eval_hess_l(
        &self,
        x: &[f64],
        p: &[f64],
        sigma_f: f64,
        lambda: &[f64],
        vals: &mut [f64],
    ) -> Result<(), EvalError> {
        self.tick(4);
        self.inner.eval_hess_l(x, p, sigma_f, lambda, vals)
    }
}

impl Complementarity for Counting<'_, AdComplementarity> {
    fn n_pairs(&self) -> usize {
        self.inner.n_pairs()
    }
    fn n(&self) -> usize {
        Complementarity::n(self.inner)
    }
    fn g_jacobian_pattern(&self) -> &SparsityPattern {
        self.inner.g_jacobian_pattern()
    }
    fn h_jacobian_pattern(&self) -> &SparsityPattern {
        self.inner.h_jacobian_pattern()
    }
    fn eval(&self, x: &[f64], p: &[f64], g: &mut [f64], h: &mut [f64]) -> Result<(), EvalError> {
        self.tick(5);
        self.inner.eval(x, p, g, h)
    }
    fn eval_jac(
        &self,
        x: &[f64],
        p: &[f64],
        jg: &mut [f64],
        jh: &mut [f64],
    ) -> Result<(), EvalError> {
        self.tick(6);
        self.inner.eval_jac(x, p, jg, jh)
    }
    fn hessian_pattern(&self) -> Option<&SparsityPattern> {
        self.inner.hessian_pattern()
    }
    fn eval_hess(
        &self,
        x: &[f64],
        p: &[f64],
        a: &[f64],
        b: &[f64],
        vals: &mut [f64],
    ) -> Result<(), EvalError> {
        self.tick(7);
        self.inner.eval_hess(x, p, a, b, vals)
    }
    fn g_as_variable(&self, i: usize) -> Option<usize> {
        self.inner.g_as_variable(i)
    }
    fn h_as_variable(&self, i: usize) -> Option<usize> {
        self.inner.h_as_variable(i)
    }
}

/// Microseconds per call of `f`, run `n` times.
fn per_call(n: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / n as f64
}

/// Microseconds per call of `f`: the fastest of `BATCHES` batches of `n` calls (the machine is shared;
/// the minimum is the least disturbed).
const BATCHES: usize = 30;

fn min_per_call(n: usize, mut f: impl FnMut()) -> f64 {
    (0..BATCHES)
        .map(|_| per_call(n, &mut f))
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    // Arguments: [N] [CONFIG] [KEY=VALUE overrides ...] (default config/hopper_mpc.yaml).
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n_rep: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(200);
    let path = args.get(1).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("config/hopper_mpc.yaml"),
        std::path::PathBuf::from,
    );
    let overrides: Vec<String> = args.iter().skip(2).cloned().collect();
    let problem = Problem::load(&path, &overrides).expect("config");
    let setup = problem.ocp().expect("ocp");
    let t_build = Instant::now();
    let mpcc = transcribe(&setup.ocp, &setup.options).expect("transcribe");
    let fns = mpcc.compile().expect("compile");
    let nlp = AdNlp::new(
        fns.f.clone(),
        fns.g.clone(),
        NlpBounds {
            x_l: mpcc.lbw.clone(),
            x_u: mpcc.ubw.clone(),
            g_l: mpcc.lbg.clone(),
            g_u: mpcc.ubg.clone(),
            x0: mpcc.w0.clone(),
        },
    )
    .expect("nlp");
    let comp = AdComplementarity::new(&fns.comp_g, &fns.comp_h).expect("comp");
    let build_s = t_build.elapsed().as_secs_f64();
    let mut p = mpcc.p0.clone();
    setup.write_references(&mpcc.layout, &mut p);
    println!(
        "{}: n_w = {}, n_g = {}, n_comp = {}, n_p = {}; build {:.2} s",
        path.display(),
        mpcc.n_w(),
        mpcc.n_g(),
        mpcc.n_comp(),
        p.len(),
        build_s
    );
    for (name, f) in [
        ("f", &fns.f),
        ("g", &fns.g),
        ("G", &fns.comp_g),
        ("H", &fns.comp_h),
    ] {
        println!(
            "  tape {name}: {} instructions, {} registers",
            f.n_instructions(),
            f.n_registers()
        );
    }
    for (name, n, r) in nlp.tape_sizes() {
        println!("  tape {name}: {n} instructions, {r} registers");
    }

    for f in nlp.derivative_tapes() {
        let mix: Vec<String> = f
            .instruction_mix()
            .iter()
            .take(12)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        println!("  {} mix: {}", f.name(), mix.join(", "));
    }

    // (a) one full solve, with call counts.
    let cn = Counting::new(&nlp);
    let cc = Counting::new(&comp);
    let settings = solve_options(&problem).solver;
    let mut solver = MpccSolver::new(&cn, &cc, settings.clone()).expect("solver");
    let t = Instant::now();
    let r = solver.solve(&cn, &cc, &p, Some(&mpcc.w0)).expect("solve");
    let solve_s = t.elapsed().as_secs_f64();
    let it = r.nlp_iterations.max(1);
    println!(
        "(a) solve: {:?}, objective {:.10e}, comp {:.3e}, {} IPM iterations, {} homotopy steps, \
         {:.3} s = {:.3} ms/iteration",
        r.status,
        r.objective,
        r.comp_residual,
        r.nlp_iterations,
        r.homotopy_steps,
        solve_s,
        solve_s * 1e3 / it as f64
    );
    let counts = cn.counts();
    let ccounts = cc.counts();
    let line: Vec<String> = (0..8)
        .map(|i| {
            let c = if i < 5 { counts[i] } else { ccounts[i] };
            format!("{} {} ({:.2}/it)", NAMES[i], c, c as f64 / it as f64)
        })
        .collect();
    println!("    calls: {}", line.join(", "));
    let x = r.x.clone();
    let info = solver.ipm().info();
    println!(
        "    last subproblem: {} iterations, {} factorisations; timers: total {:.3} s, \
         evaluation {:.3} s, linear algebra {:.3} s, line search {:.3} s",
        info.iterations,
        info.factorizations,
        info.timers.total,
        info.timers.evaluation,
        info.timers.linear_algebra,
        info.timers.line_search
    );

    // (b) N evaluations of each callback at the solution.
    let (n, m, k) = (nlp.n(), nlp.m(), comp.n_pairs());
    let mut grad = vec![0.0; n];
    let mut g = vec![0.0; m];
    let mut jac = vec![0.0; nlp.jacobian_pattern().nnz()];
    let mut hess = vec![0.0; nlp.hessian_pattern().nnz()];
    let lam: Vec<f64> = (0..m).map(|i| 0.1 + 0.01 * (i % 7) as f64).collect();
    let (mut gv, mut hv) = (vec![0.0; k], vec![0.0; k]);
    let mut jg = vec![0.0; comp.g_jacobian_pattern().nnz()];
    let mut jh = vec![0.0; comp.h_jacobian_pattern().nnz()];
    let mut hc = vec![0.0; comp.hessian_pattern().map_or(0, |h| h.nnz())];
    let (a, b) = (vec![0.3; k], vec![0.7; k]);
    // Perturb the point every call so that no evaluation cache can answer.
    let mut xs = x.clone();
    let mut bump = 0usize;
    let mut next = |xs: &mut Vec<f64>| {
        bump += 1;
        xs[bump % n] += 1e-12;
    };
    let us = [
        per_call(n_rep, || {
            next(&mut xs);
            nlp.eval_f(&xs, &p).expect("f");
        }),
        per_call(n_rep, || {
            next(&mut xs);
            nlp.eval_grad_f(&xs, &p, &mut grad).expect("grad");
        }),
        per_call(n_rep, || {
            next(&mut xs);
            nlp.eval_g(&xs, &p, &mut g).expect("g");
        }),
        per_call(n_rep, || {
            next(&mut xs);
            nlp.eval_jac_g(&xs, &p, &mut jac).expect("jac");
        }),
        per_call(n_rep, || {
            next(&mut xs);
            nlp.eval_hess_l(&xs, &p, 1.0, &lam, &mut hess)
                .expect("hess");
        }),
        per_call(n_rep, || {
            next(&mut xs);
            comp.eval(&xs, &p, &mut gv, &mut hv).expect("comp");
        }),
        per_call(n_rep, || {
            next(&mut xs);
            comp.eval_jac(&xs, &p, &mut jg, &mut jh).expect("comp jac");
        }),
        per_call(n_rep, || {
            next(&mut xs);
            comp.eval_hess(&xs, &p, &a, &b, &mut hc).expect("comp hess");
        }),
    ];
    let line: Vec<String> = (0..8)
        .map(|i| format!("{} {:.1}", NAMES[i], us[i]))
        .collect();
    println!("(b) µs/call (N = {n_rep}): {}", line.join(", "));
    // (b2) the constraint Jacobian on 1–4 threads (`SplitFunction`, `solver.eval_threads`),
    // fastest of 30 batches each, interleaved rounds.
    {
        let jf = nlp.functions()[3].1;
        let configs = [(1, 1), (1, 4), (2, 2), (2, 4), (2, 0), (4, 4)];
        let splits: Vec<fesdj_mpc::ad::SplitFunction> = configs
            .iter()
            .map(|&(t, parts)| {
                if parts == 0 {
                    fesdj_mpc::ad::SplitFunction::new(jf, t)
                } else {
                    fesdj_mpc::ad::SplitFunction::with_parts(jf, t, parts)
                }
                .expect("split")
            })
            .collect();
        let mut ws = splits[5].workspace();
        ws.reserve_registers(jf.n_registers());
        let mut best = [f64::INFINITY; 6];
        for _ in 0..3 {
            for (t, sp) in splits.iter().enumerate() {
                let us = min_per_call(n_rep, || {
                    next(&mut xs);
                    sp.eval(&[&xs, &p], &mut jac, &mut ws).expect("split jac");
                });
                best[t] = best[t].min(us);
            }
        }
        // Every split gives the whole tape's values bit for bit (here, at one point).
        let mut whole = vec![0.0; jac.len()];
        let mut wws = jf.workspace();
        jf.eval_interpreted(&[&xs, &p], &mut [&mut whole], &mut wws)
            .expect("jac");
        for sp in &splits {
            sp.eval(&[&xs, &p], &mut jac, &mut ws).expect("split jac");
            assert!(whole
                .iter()
                .zip(&jac)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
        let t0 = Instant::now();
        let two = fesdj_mpc::ad::SplitFunction::new(jf, 2).expect("split");
        println!(
            "(b2) SplitFunction::new(jac_g, 2): {:.3} s (parts {:?}, native code included)",
            t0.elapsed().as_secs_f64(),
            two.part_instructions()
        );
        let line: Vec<String> = best
            .iter()
            .enumerate()
            .map(|(t, us)| {
                format!(
                    "{} thread(s) {:.1} µs ({:.2}×, parts {:?})",
                    splits[t].threads(),
                    us,
                    best[0] / us,
                    splits[t].part_instructions()
                )
            })
            .collect();
        println!("(b2) jac_g: {}", line.join(", "));
    }
    let per_it: f64 = (0..8)
        .map(|i| {
            let c = if i < 5 { counts[i] } else { ccounts[i] };
            us[i] * c as f64 / it as f64
        })
        .sum();
    println!(
        "    callbacks ≈ {:.3} ms/iteration (counts × µs/call)",
        per_it / 1e3
    );

    // (c) N KKT assemblies + factorisations + solves at the solution, on the relaxed NLP the
    // IPM factorises (its patterns, its Jacobian and Hessian at the solution).
    let relaxed = solver.relaxed(&cn, &cc).expect("relaxed NLP");
    let relaxed: &dyn Nlp = &relaxed;
    let (n, m) = (relaxed.n(), relaxed.m());
    let mut jac = vec![0.0; relaxed.jacobian_pattern().nnz()];
    let mut hess = vec![0.0; relaxed.hessian_pattern().nnz()];
    let lam: Vec<f64> = (0..m).map(|i| 0.1 + 0.01 * (i % 7) as f64).collect();
    relaxed.eval_jac_g(&x, &p, &mut jac).expect("jac");
    relaxed
        .eval_hess_l(&x, &p, 1.0, &lam, &mut hess)
        .expect("hess");
    let diag_x: Vec<f64> = (0..n).map(|i| 1.0 + (i % 5) as f64).collect();
    let diag_c: Vec<f64> = (0..m).map(|i| if i % 3 == 0 { 0.5 } else { 0.0 }).collect();
    // SPEED_KKT=simplicial|supernodal|auto limits part (c) to one method.
    let only = std::env::var("SPEED_KKT").unwrap_or_default();
    for method in [
        kkt_bench::LdltMethod::Simplicial,
        kkt_bench::LdltMethod::Supernodal,
        kkt_bench::LdltMethod::Auto,
    ] {
        if !only.is_empty() && !format!("{method:?}").eq_ignore_ascii_case(&only) {
            continue;
        }
        let mut kkt = kkt_bench::KktBench::with_method(
            relaxed.hessian_pattern(),
            relaxed.jacobian_pattern(),
            method,
        )
        .expect("kkt");
        let (dim, nnz_a, nnz_l, flops) = kkt.stats();
        let (used, sn) = kkt.method();
        println!(
            "    {method:?} ({used:?}): KKT dim {dim}, nnz(A) {nnz_a}, nnz(L) {nnz_l}, \
             factor multiply-adds {flops}{}",
            match sn {
                Some((s, stored, up)) => format!(
                    ", {s} supernodes (mean {:.1} columns), {stored} panel entries, {up} updates",
                    dim as f64 / s as f64
                ),
                None => String::new(),
            }
        );
        let rhs: Vec<f64> = (0..n + m).map(|i| ((i * 7919) % 13) as f64 - 6.0).collect();
        let mut sol = vec![0.0; n + m];
        let mut inertia = (0, 0, 0);
        let us_factor = min_per_call(n_rep, || {
            kkt.assemble(&hess, &jac, &diag_x, &diag_c, 1e-8);
            inertia = kkt.factor();
        });
        let mut res = 0.0;
        let before = kkt.factor_solves();
        let us_solve = min_per_call(n_rep, || {
            res = kkt.solve(&rhs, &mut sol, 10).unwrap_or(f64::NAN);
        });
        let solves = kkt.factor_solves() - before;
        let mut one = sol.clone();
        let before = kkt.factor_solves();
        let us_one = min_per_call(n_rep, || {
            one.copy_from_slice(&rhs);
            kkt.solve(&rhs, &mut one, 0);
        });
        debug_assert_eq!(kkt.factor_solves() - before, BATCHES * n_rep);
        // the residual after 0, 1, 2, … refinement steps
        let steps: Vec<String> = (0..5)
            .map(|k| format!("{:.1e}", kkt.solve(&rhs, &mut one, k).unwrap_or(f64::NAN)))
            .collect();
        println!(
            "    residual after 0..4 refinement steps: {}",
            steps.join(", ")
        );
        let mut r = vec![0.0; n + m];
        let us_tri = min_per_call(n_rep, || {
            one.copy_from_slice(&rhs);
            kkt.apply_factor(&mut one);
        });
        let us_res = min_per_call(n_rep, || kkt.residual(&rhs, &sol, &mut r));
        let us_assemble = min_per_call(n_rep, || {
            kkt.assemble(&hess, &jac, &diag_x, &diag_c, 1e-8);
        });
        println!(
            "(c) KKT dim {}: assemble+factor {:.1} µs (assemble {:.1}), solve (with refinement) \
             {:.1} µs ({:.2} triangular solves per call; without refinement {:.1} µs; one \
             triangular solve {:.1} µs, one residual {:.1} µs); pivots (+, −, 0) = {:?}, \
             residual {:.2e}",
            n + m,
            us_factor,
            us_assemble,
            us_solve,
            solves as f64 / (BATCHES * n_rep) as f64,
            us_one,
            us_tri,
            us_res,
            inertia,
            res
        );
    }
}

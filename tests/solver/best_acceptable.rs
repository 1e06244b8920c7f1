//! The best acceptable iterate of a solve that breaks down.
//!
//! IPM: `Ipm::best_acceptable` keeps the best iterate that met the acceptable tolerances
//! whatever the status, and `Ipm::use_best_acceptable` makes it the solution; the status of
//! the solve is not changed. Problem: min (x0 - 1)² + (x1 - 2)² s.t. x0 + x1 <= 2.5, x >= 0
//! (solution (0.75, 1.75)) whose callbacks all fail after the k-th objective evaluation.
//!
//! Homotopy: a relaxed NLP that breaks down after an acceptable iterate that meets the stop
//! test (`comp_tol`) ends the homotopy there as `Solved`; one that breaks down before stays a
//! failed step. MacMPEC's bard1 (f* = 17) whose objective fails from the k-th evaluation on,
//! for every k up to the evaluations of the whole homotopy.

use fesdj_mpc::ad::SparsityPattern;
use fesdj_mpc::solver::problems::{macmpec, Backend};
use fesdj_mpc::solver::{
    EvalError, HomotopySettings, Ipm, IpmStart, MpccResult, MpccSolver, Nlp, Settings, Status,
};
use std::cell::Cell;

/// How the solves here end when the objective fails: the line search finds no trial point it
/// can evaluate, or a restoration phase started there fails.
const BREAKDOWN: [Status; 4] = [
    Status::EvaluationError,
    Status::NumericalError,
    Status::RestorationFailed,
    Status::Infeasible,
];

struct Breaking {
    jac: SparsityPattern,
    hess: SparsityPattern,
    calls: Cell<usize>,
    fail_after: usize,
}

impl Breaking {
    fn new(fail_after: usize) -> Self {
        Breaking {
            jac: SparsityPattern::dense(1, 2),
            hess: SparsityPattern::from_triplets(2, 2, &[(0, 0), (1, 1)])
                .unwrap()
                .0,
            calls: Cell::new(0),
            fail_after,
        }
    }
    fn check(&self) -> Result<(), EvalError> {
        if self.calls.get() > self.fail_after {
            Err(EvalError("f"))
        } else {
            Ok(())
        }
    }
}

impl Nlp for Breaking {
    fn n(&self) -> usize {
        2
    }
    fn m(&self) -> usize {
        1
    }
    fn bounds(&self, xl: &mut [f64], xu: &mut [f64], gl: &mut [f64], gu: &mut [f64]) {
        xl.fill(0.0);
        xu.fill(f64::INFINITY);
        gl[0] = f64::NEG_INFINITY;
        gu[0] = 2.5;
    }
    fn initial_point(&self, x0: &mut [f64]) {
        x0.copy_from_slice(&[3.0, 0.1]);
    }
    fn jacobian_pattern(&self) -> &SparsityPattern {
        &self.jac
    }
    fn hessian_pattern(&self) -> &SparsityPattern {
        &self.hess
    }
    fn eval_f(&self, x: &[f64], _p: &[f64]) -> Result<f64, EvalError> {
        self.calls.set(self.calls.get() + 1);
        self.check()?;
        Ok((x[0] - 1.0).powi(2) + (x[1] - 2.0).powi(2))
    }
    fn eval_grad_f(&self, x: &[f64], _p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        self.check()?;
        g[0] = 2.0 * (x[0] - 1.0);
        g[1] = 2.0 * (x[1] - 2.0);
        Ok(())
    }
    fn eval_g(&self, x: &[f64], _p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        self.check()?;
        g[0] = x[0] + x[1];
        Ok(())
    }
    fn eval_jac_g(&self, _x: &[f64], _p: &[f64], v: &mut [f64]) -> Result<(), EvalError> {
        self.check()?;
        v.fill(1.0);
        Ok(())
    }
    fn eval_hess_l(
        &self,
        _x: &[f64],
        _p: &[f64],
        sf: f64,
        _l: &[f64],
        v: &mut [f64],
    ) -> Result<(), EvalError> {
        self.check()?;
        v.fill(2.0 * sf);
        Ok(())
    }
}

#[test]
fn the_ipm_keeps_its_best_acceptable_iterate_and_reports_the_breakdown() {
    // A tolerance the solver cannot reach, so that the breakdown comes before `Solved`.
    let settings = Settings {
        tol: 1e-30,
        mu_min: 1e-20,
        ..Settings::default()
    };
    let solve = |fail_after: usize| {
        let nlp = Breaking::new(fail_after);
        let mut ipm = Ipm::new(&nlp, settings.clone()).unwrap();
        let st = ipm.solve(&nlp, &[], IpmStart::Initial).unwrap();
        (st, ipm)
    };
    let mut kept = 0;
    for k in 1..60 {
        let (st, mut ipm) = solve(k);
        // The status is the breakdown's, acceptable iterates or not.
        assert!(BREAKDOWN.contains(&st), "k = {k}: {st:?}");
        let Some((x, err)) = ipm.best_acceptable() else {
            assert_eq!(kept, 0, "k = {k}: none kept although an earlier k had one");
            assert!(!ipm.use_best_acceptable());
            continue;
        };
        kept += 1;
        assert!(err <= settings.acceptable_tol, "k = {k}: KKT error {err:e}");
        let x = x.to_vec();
        assert!(ipm.use_best_acceptable());
        let s = ipm.solution();
        assert_eq!(s.x, x.as_slice());
        let e = (x[0] - 0.75).abs().max((x[1] - 1.75).abs());
        assert!(e <= 1e-5, "k = {k}: kept {x:?}");
        let f = (x[0] - 1.0).powi(2) + (x[1] - 2.0).powi(2);
        assert!((s.objective - f).abs() <= 1e-12, "k = {k}");
        assert!((s.g[0] - x[0] - x[1]).abs() <= 1e-12, "k = {k}");
        // The constraint's multiplier: ∇f + λ ∇g = 0 at (0.75, 1.75) gives λ = 0.5.
        assert!(
            (s.lambda[0] - 0.5).abs() <= 1e-3,
            "k = {k}: λ {}",
            s.lambda[0]
        );
        assert!(ipm.info().constr_violation <= 1e-6);
    }
    assert!(
        kept >= 10,
        "only {kept} breakdowns after an acceptable iterate"
    );
    // The very first evaluation failing: nothing kept.
    let (st, ipm) = solve(0);
    assert_eq!(st, Status::EvaluationError);
    assert!(ipm.best_acceptable().is_none());
    // A solve that succeeds keeps its best acceptable iterate too.
    let (_, ipm) = solve(usize::MAX);
    assert!(ipm.best_acceptable().is_some());
}

/// An NLP whose objective fails from the `fail_from`-th evaluation on (the other callbacks
/// are the wrapped NLP's).
struct FailingObjective<'a> {
    inner: &'a dyn Nlp,
    calls: Cell<usize>,
    fail_from: usize,
}

impl Nlp for FailingObjective<'_> {
    fn n(&self) -> usize {
        self.inner.n()
    }
    fn m(&self) -> usize {
        self.inner.m()
    }
    fn n_p(&self) -> usize {
        self.inner.n_p()
    }
    fn bounds(&self, xl: &mut [f64], xu: &mut [f64], gl: &mut [f64], gu: &mut [f64]) {
        self.inner.bounds(xl, xu, gl, gu)
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
        let k = self.calls.get() + 1;
        self.calls.set(k);
        if k >= self.fail_from {
            return Err(EvalError("f"));
        }
        self.inner.eval_f(x, p)
    }
    fn eval_grad_f(&self, x: &[f64], p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        self.inner.eval_grad_f(x, p, g)
    }
    fn eval_g(&self, x: &[f64], p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        self.inner.eval_g(x, p, g)
    }
    fn eval_jac_g(&self, x: &[f64], p: &[f64], v: &mut [f64]) -> Result<(), EvalError> {
        self.inner.eval_jac_g(x, p, v)
    }
    fn eval_hess_l(
        &self,
        x: &[f64],
        p: &[f64],
        sf: f64,
        l: &[f64],
        v: &mut [f64],
    ) -> Result<(), EvalError> {
        self.inner.eval_hess_l(x, p, sf, l, v)
    }
}

#[test]
fn a_relaxed_nlp_that_breaks_down_after_meeting_the_stop_test_ends_the_homotopy() {
    let prob = macmpec::collection(Backend::Dense)
        .into_iter()
        .find(|p| p.name == "bard1")
        .expect("bard1 is in the MacMPEC set");
    // An IPM tolerance the solves do not reach (rounding): each relaxed NLP ends `Acceptable`
    // after `acceptable_iter` acceptable iterates in a row, so that a failure among them comes
    // after an iterate that met the acceptable tolerances (with the default 1e-10 the last
    // NLP is solved at the first iterate that meets the stop test).
    let mut settings = HomotopySettings::default();
    settings.ipm.tol = 1e-16;
    settings.ipm.mu_min = 1e-20;
    let comp_tol = settings.comp_tol;
    let mut solver = MpccSolver::new(prob.nlp.as_ref(), prob.comp.as_ref(), settings).unwrap();
    let mut run = |fail_from: usize| -> (MpccResult, usize) {
        let nlp = FailingObjective {
            inner: prob.nlp.as_ref(),
            calls: Cell::new(0),
            fail_from,
        };
        let r = solver.solve(&nlp, prob.comp.as_ref(), &[], None).unwrap();
        (r, nlp.calls.get())
    };
    let (base, evals) = run(usize::MAX);
    assert_eq!(base.status, Status::Solved);
    assert!((base.objective - prob.f_star).abs() <= 1e-6);
    assert!(base.steps.iter().all(|s| s.status.is_success()));
    assert!(!base.polished);
    let (mut rescued, mut failed) = (0, 0);
    for k in 1..=evals {
        let (r, _) = run(k);
        // The first step that differs from the failure-free homotopy.
        let j = r
            .steps
            .iter()
            .zip(&base.steps)
            .position(|(a, b)| a.status != b.status || a.iterations != b.iterations)
            .unwrap_or(r.steps.len().min(base.steps.len()));
        if j == base.steps.len() {
            // The failure came after the last NLP's solve (e.g. in the final evaluation).
            continue;
        }
        let s = &r.steps[j];
        match s.status {
            // The failure came after the NLP had met its tolerances.
            _ if s.iterations == base.steps[j].iterations => continue,
            // Broke down after an acceptable iterate that meets the stop test: the homotopy
            // ends there, solved.
            Status::Acceptable => {
                rescued += 1;
                assert_eq!(j + 1, r.steps.len(), "k = {k}: the homotopy went on");
                assert!(s.comp_residual <= comp_tol, "k = {k}");
                assert_eq!(r.status, Status::Solved, "k = {k}");
                assert!(!r.polished);
                // The same solution (its objective cannot be evaluated any more).
                for (a, b) in r.x.iter().zip(&base.x) {
                    assert!((a - b).abs() <= 1e-6, "k = {k}: {:?} vs {:?}", r.x, base.x);
                }
                assert!(r.comp_residual <= comp_tol);
                assert!(r.max_constraint_violation <= 1e-6);
            }
            // Otherwise the step stays failed.
            st if BREAKDOWN.contains(&st) => {
                failed += 1;
                // The homotopy went on (to smaller σ and the polishing step, all failing).
                assert!(r.steps.len() > j + 1, "k = {k}: ended at step {j}");
                assert_ne!(r.status, Status::Solved, "k = {k}");
            }
            other => panic!("k = {k}: step {j} ended {other:?}"),
        }
    }
    eprintln!("{evals} evaluations: {rescued} rescued, {failed} failed");
    assert!(
        rescued >= 1 && failed >= 1,
        "{rescued} rescued, {failed} failed"
    );
}

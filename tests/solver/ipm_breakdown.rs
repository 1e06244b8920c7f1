//! An IPM solve that breaks down after it met the acceptable tolerances returns its best
//! acceptable iterate as `Acceptable` (not the breakdown status): min (x0 - 1)² + (x1 - 2)² s.t.
//! x0 + x1 <= 2.5, x >= 0 (solution (0.75, 1.75)), whose callbacks all fail after the k-th
//! objective evaluation. Failing from the first evaluations on stays `EvaluationError`;
//! an iteration budget stays `MaxIterations`.

use fesdj_mpc::ad::SparsityPattern;
use fesdj_mpc::solver::{EvalError, Ipm, IpmStart, Nlp, Settings, Status};
use std::cell::Cell;

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

fn solve(fail_after: usize, settings: &Settings) -> (Status, Vec<f64>) {
    let nlp = Breaking::new(fail_after);
    let mut ipm = Ipm::new(&nlp, settings.clone()).unwrap();
    let st = ipm.solve(&nlp, &[], IpmStart::Initial).unwrap();
    (st, ipm.solution().x.to_vec())
}

#[test]
fn breakdown_after_an_acceptable_iterate_returns_it() {
    // A tolerance the solver cannot reach, so that the breakdown comes before `Solved`.
    let settings = Settings {
        tol: 1e-30,
        mu_min: 1e-20,
        ..Settings::default()
    };
    let (st, _) = solve(usize::MAX, &settings);
    assert_ne!(st, Status::Solved);
    let mut saw_acceptable = false;
    for k in 1..60 {
        let (st, x) = solve(k, &settings);
        match st {
            Status::EvaluationError => {
                assert!(
                    !saw_acceptable,
                    "k = {k}: an acceptable iterate was reached before"
                )
            }
            Status::Acceptable => {
                saw_acceptable = true;
                let err = (x[0] - 0.75).abs().max((x[1] - 1.75).abs());
                assert!(err <= 1e-5, "k = {k}: returned {x:?}");
            }
            other => panic!("k = {k}: {other:?}"),
        }
    }
    assert!(saw_acceptable, "no breakdown after an acceptable iterate");
    // The very first evaluation failing: nothing to return.
    assert_eq!(solve(0, &settings).0, Status::EvaluationError);
    // A budget is reported as such even after acceptable iterates.
    let budget = Settings {
        max_iter: 8,
        ..settings
    };
    assert_eq!(solve(usize::MAX, &budget).0, Status::MaxIterations);
}

//! The compiled FESD-J NLP with changeable variable bounds, and an MPCC homotopy solver that
//! owns it.
//!
//! [`MpccSolver`] takes its problem per solve; [`OwnedSolver`] keeps the problem (NLP and
//! complementarity functions) next to the solver, so that a user of a
//! [`FesdjProblem`](super::FesdjProblem) (MPC loop, simulator, ROS node) holds one object.

use crate::ad::SparsityPattern;
use crate::solver::ad_nlp::{AdComplementarity, AdNlp};
use crate::solver::{
    EvalError, HomotopySettings, MpccResult, MpccSolver, Nlp, SolverError, StationaritySettings,
    WarmPoint,
};

/// The FESD-J NLP: the compiled functions of a [`Transcription`](super::Transcription) with variable bounds
/// and start point that can change between solves (initial state §4.2/§4.8, fixed controls in
/// simulation §4.6). Constraint bounds never change.
pub(crate) struct FesdjNlp {
    inner: AdNlp,
    x_l: Vec<f64>,
    x_u: Vec<f64>,
    x0: Vec<f64>,
}

impl FesdjNlp {
    pub fn new(inner: AdNlp, x_l: Vec<f64>, x_u: Vec<f64>, x0: Vec<f64>) -> FesdjNlp {
        FesdjNlp {
            inner,
            x_l,
            x_u,
            x0,
        }
    }

    /// Fix variable `i` to `x` (equal bounds and start value).
    pub fn fix(&mut self, i: usize, x: f64) {
        self.x_l[i] = x;
        self.x_u[i] = x;
        self.x0[i] = x;
    }

    /// Set the bounds of variable `i`.
    pub fn set_bounds(&mut self, i: usize, lb: f64, ub: f64) {
        self.x_l[i] = lb;
        self.x_u[i] = ub;
    }

    /// Lower and upper bound of variable `i`.
    pub fn bound(&self, i: usize) -> (f64, f64) {
        (self.x_l[i], self.x_u[i])
    }
}

impl Nlp for FesdjNlp {
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
        self.inner.bounds(x_l, x_u, g_l, g_u);
        x_l.copy_from_slice(&self.x_l);
        x_u.copy_from_slice(&self.x_u);
    }
    fn initial_point(&self, x0: &mut [f64]) {
        x0.copy_from_slice(&self.x0);
    }
    fn jacobian_pattern(&self) -> &SparsityPattern {
        self.inner.jacobian_pattern()
    }
    fn hessian_pattern(&self) -> &SparsityPattern {
        self.inner.hessian_pattern()
    }
    fn eval_f(&self, x: &[f64], p: &[f64]) -> Result<f64, EvalError> {
        self.inner.eval_f(x, p)
    }
    fn eval_grad_f(&self, x: &[f64], p: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        self.inner.eval_grad_f(x, p, grad)
    }
    fn eval_g(&self, x: &[f64], p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        self.inner.eval_g(x, p, g)
    }
    fn eval_jac_g(&self, x: &[f64], p: &[f64], vals: &mut [f64]) -> Result<(), EvalError> {
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
        self.inner.eval_hess_l(x, p, sigma_f, lambda, vals)
    }
}

/// An [`MpccSolver`] together with the NLP and complementarity functions it solves.
pub(crate) struct OwnedSolver {
    nlp: FesdjNlp,
    comp: AdComplementarity,
    solver: MpccSolver,
    /// The result of the last solve, its vectors reused by the next one.
    result: MpccResult,
}

impl OwnedSolver {
    pub fn new(
        nlp: FesdjNlp,
        comp: AdComplementarity,
        settings: HomotopySettings,
    ) -> Result<OwnedSolver, SolverError> {
        let solver = MpccSolver::new(&nlp, &comp, settings)?;
        Ok(OwnedSolver {
            nlp,
            comp,
            solver,
            result: MpccResult::empty(),
        })
    }

    /// The NLP.
    pub fn nlp(&self) -> &FesdjNlp {
        &self.nlp
    }

    /// The NLP, to change its variable bounds and start point before the next solve.
    pub fn nlp_mut(&mut self) -> &mut FesdjNlp {
        &mut self.nlp
    }

    pub fn settings(&self) -> &HomotopySettings {
        self.solver.settings()
    }

    pub fn set_settings(&mut self, s: HomotopySettings) -> Result<(), SolverError> {
        self.solver.set_settings(s)
    }

    /// See `MpccSolver::set_imposed_sides`.
    pub fn set_imposed_sides(&mut self, sides: &[u8]) -> Result<(), SolverError> {
        self.solver.set_imposed_sides(sides)
    }

    /// See `RelaxedStructure::set_penalty_weights`.
    pub fn set_penalty_weights(&mut self, w: &[f64]) -> Result<(), SolverError> {
        self.solver.structure_mut().set_penalty_weights(w)
    }

    /// See `RelaxedStructure::penalty_weights`.
    pub fn penalty_weights(&self) -> &[f64] {
        self.solver.structure().penalty_weights()
    }

    /// See `MpccSolver::set_active_set_free`.
    pub fn set_active_set_free(&mut self, free: &[bool]) -> Result<(), SolverError> {
        self.solver.set_active_set_free(free)
    }

    /// Multipliers of the kept solution (relaxed rows, lower bounds, upper bounds).
    pub fn duals(&self) -> (&[f64], &[f64], &[f64]) {
        self.solver.duals()
    }

    /// The relaxed NLP's rows of pair `i` (see `RelaxedStructure::pair_rows`).
    pub fn pair_rows(&self, i: usize) -> (Option<usize>, Option<usize>, Option<usize>) {
        self.solver.structure().pair_rows(i)
    }

    /// Solve from a primal-dual point (see `MpccSolver::solve_warm_into`).
    pub fn solve_warm(
        &mut self,
        p: &[f64],
        start: WarmPoint<'_>,
    ) -> Result<&MpccResult, SolverError> {
        self.solver
            .solve_warm_into(&self.nlp, &self.comp, p, start, &mut self.result)?;
        Ok(&self.result)
    }

    /// Certify the stationarity of the last solve's solution (`MpccSolver::certify`,
    /// formulation §10.8; allocates, not for the MPC tick). With a kept descent step the
    /// result's solution and the duals change.
    pub fn certify(
        &mut self,
        p: &[f64],
        settings: &StationaritySettings,
    ) -> Result<&MpccResult, SolverError> {
        self.solver
            .certify(&self.nlp, &self.comp, p, &mut self.result, settings)?;
        Ok(&self.result)
    }

    /// Solve; the result lives in this solver and its buffers are reused (after the first
    /// solve, no allocation).
    pub fn solve(&mut self, p: &[f64], x0: Option<&[f64]>) -> Result<&MpccResult, SolverError> {
        self.solver
            .solve_into(&self.nlp, &self.comp, p, x0, &mut self.result)?;
        Ok(&self.result)
    }
}

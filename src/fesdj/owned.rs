//! The compiled FESD-J NLP with changeable variable bounds, and an MPCC homotopy solver that
//! owns it.
//!
//! [`MpccSolver`] borrows its problem (`&'a dyn Nlp`), which would force every user of a
//! [`FesdjProblem`](super::FesdjProblem) (MPC loop, simulator, ROS node) to keep two objects
//! with a borrow between them. [`OwnedSolver`] keeps the problem on the heap next to the solver
//! that borrows it; the only `unsafe` of the module is the lifetime extension of those two
//! references, with the invariants stated at each use.

use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use crate::ad::SparsityPattern;
use crate::solver::ad_nlp::{AdComplementarity, AdNlp};
use crate::solver::{EvalError, MpccResult, MpccSettings, MpccSolver, Nlp, SolverError, WarmPoint};

/// The FESD-J NLP: the compiled functions of an [`Mpcc`](super::Mpcc) with variable bounds
/// and start point that can change between solves (initial state §4.2/§4.8, fixed controls in
/// simulation §4.6). Constraint bounds never change.
pub(crate) struct FesdjNlp {
    inner: AdNlp,
    x_l: RefCell<Vec<f64>>,
    x_u: RefCell<Vec<f64>>,
    x0: RefCell<Vec<f64>>,
}

impl FesdjNlp {
    pub fn new(inner: AdNlp, x_l: Vec<f64>, x_u: Vec<f64>, x0: Vec<f64>) -> FesdjNlp {
        FesdjNlp {
            inner,
            x_l: RefCell::new(x_l),
            x_u: RefCell::new(x_u),
            x0: RefCell::new(x0),
        }
    }

    /// Fix variable `i` to `x` (equal bounds and start value).
    pub fn fix(&self, i: usize, x: f64) {
        self.x_l.borrow_mut()[i] = x;
        self.x_u.borrow_mut()[i] = x;
        self.x0.borrow_mut()[i] = x;
    }

    /// Set the bounds of variable `i`.
    pub fn set_bounds(&self, i: usize, lb: f64, ub: f64) {
        self.x_l.borrow_mut()[i] = lb;
        self.x_u.borrow_mut()[i] = ub;
    }

    /// Lower and upper bound of variable `i`.
    pub fn bound(&self, i: usize) -> (f64, f64) {
        (self.x_l.borrow()[i], self.x_u.borrow()[i])
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
        x_l.copy_from_slice(&self.x_l.borrow());
        x_u.copy_from_slice(&self.x_u.borrow());
    }
    fn initial_point(&self, x0: &mut [f64]) {
        x0.copy_from_slice(&self.x0.borrow());
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

/// An [`MpccSolver`] together with the NLP and complementarity functions it borrows.
pub(crate) struct OwnedSolver {
    // Declared (and dropped, see `Drop`) before the data it borrows.
    solver: ManuallyDrop<MpccSolver<'static>>,
    nlp: NonNull<FesdjNlp>,
    comp: NonNull<AdComplementarity>,
    /// The result of the last solve, its vectors reused by the next one.
    result: MpccResult,
}

impl OwnedSolver {
    pub fn new(
        nlp: FesdjNlp,
        comp: AdComplementarity,
        settings: MpccSettings,
    ) -> Result<OwnedSolver, SolverError> {
        let nlp = NonNull::from(Box::leak(Box::new(nlp)));
        let comp = NonNull::from(Box::leak(Box::new(comp)));
        // SAFETY: both pointers come from leaked boxes, so they are valid, aligned and never
        // moved. The `'static` references handed to the solver are used only while the solver
        // exists; `Drop` destroys the solver before freeing the boxes, and nothing ever creates
        // a `&mut` to the pointees (mutation goes through the `RefCell`s of `FesdjNlp`).
        let (nr, cr): (&'static FesdjNlp, &'static AdComplementarity) =
            unsafe { (nlp.as_ref(), comp.as_ref()) };
        match MpccSolver::new(nr, cr, settings) {
            Ok(solver) => Ok(OwnedSolver {
                solver: ManuallyDrop::new(solver),
                nlp,
                comp,
                result: MpccResult::empty(),
            }),
            Err(e) => {
                // SAFETY: the solver was not built, so no reference to the boxes survives.
                unsafe {
                    drop(Box::from_raw(nlp.as_ptr()));
                    drop(Box::from_raw(comp.as_ptr()));
                }
                Err(e)
            }
        }
    }

    /// The NLP (shared; its bounds are changed through interior mutability).
    pub fn nlp(&self) -> &FesdjNlp {
        // SAFETY: valid until `Drop` (see `new`).
        unsafe { self.nlp.as_ref() }
    }

    pub fn settings(&self) -> &MpccSettings {
        self.solver.settings()
    }

    pub fn set_settings(&mut self, s: MpccSettings) -> Result<(), SolverError> {
        self.solver.set_settings(s)
    }

    /// Multipliers of the kept solution (relaxed rows, lower bounds, upper bounds).
    pub fn duals(&self) -> (&[f64], &[f64], &[f64]) {
        self.solver.duals()
    }

    /// The relaxed NLP's rows of pair `i` (see `RelaxedNlp::pair_rows`).
    pub fn pair_rows(&mut self, i: usize) -> (Option<usize>, Option<usize>, Option<usize>) {
        self.solver.relaxed().pair_rows(i)
    }

    /// Solve from a primal-dual point (see `MpccSolver::solve_warm_into`).
    pub fn solve_warm(
        &mut self,
        p: &[f64],
        start: WarmPoint<'_>,
    ) -> Result<&MpccResult, SolverError> {
        self.solver.solve_warm_into(p, start, &mut self.result)?;
        Ok(&self.result)
    }

    /// Solve; the result lives in this solver and its buffers are reused (after the first
    /// solve, no allocation).
    pub fn solve(&mut self, p: &[f64], x0: Option<&[f64]>) -> Result<&MpccResult, SolverError> {
        self.solver.solve_into(p, x0, &mut self.result)?;
        Ok(&self.result)
    }
}

impl Drop for OwnedSolver {
    fn drop(&mut self) {
        // SAFETY: the solver is dropped exactly once, here, before the boxes it borrows; the
        // boxes were created by `Box::leak` in `new` and are freed exactly once.
        unsafe {
            ManuallyDrop::drop(&mut self.solver);
            drop(Box::from_raw(self.nlp.as_ptr()));
            drop(Box::from_raw(self.comp.as_ptr()));
        }
    }
}

//! The KKT factorisation exposed for the measurement harness (examples/speed_hopper.rs); not
//! part of the API.

use super::{Factor, Kkt, SolverError};
use crate::ad::SparsityPattern;
use crate::solver::factor::Ldlt;
pub use crate::solver::factor::LdltMethod;

/// A [`Kkt`] with no fixed variables.
pub struct KktBench {
    kkt: Kkt,
    fixed: Vec<bool>,
}

impl KktBench {
    /// Pattern from the Hessian (lower) and Jacobian patterns, analysed once.
    pub fn new(hess: &SparsityPattern, jac: &SparsityPattern) -> Result<Self, SolverError> {
        Self::with_method(hess, jac, LdltMethod::Auto)
    }
    /// [`KktBench::new`] with a given factorisation method.
    pub fn with_method(
        hess: &SparsityPattern,
        jac: &SparsityPattern,
        method: LdltMethod,
    ) -> Result<Self, SolverError> {
        Ok(KktBench {
            fixed: vec![false; hess.ncols()],
            kkt: Kkt::with_method(hess, jac, method)?,
        })
    }
    /// (dimension, nnz of the permuted lower triangle, nnz of L, multiply-adds per factorisation).
    pub fn stats(&self) -> (usize, usize, usize, usize) {
        let (a, l, f) = self.kkt.ldlt.stats();
        (self.kkt.dim(), a, l, f)
    }
    /// The method in use, and for the supernodal one (supernodes, stored panel entries,
    /// updates).
    pub fn method(&self) -> (LdltMethod, Option<(usize, usize, usize)>) {
        match &self.kkt.ldlt {
            Ldlt::Simplicial(_) => (LdltMethod::Simplicial, None),
            Ldlt::Supernodal(f) => (LdltMethod::Supernodal, Some(f.supernode_stats())),
        }
    }
    /// Fill the values (see `Kkt::assemble`).
    pub fn assemble(
        &mut self,
        hess: &[f64],
        jac: &[f64],
        diag_x: &[f64],
        diag_c: &[f64],
        reg_c: f64,
    ) {
        self.kkt
            .assemble(Some(hess), jac, diag_x, diag_c, reg_c, &self.fixed);
    }
    /// Equilibration and the GMRES fallback (see `Kkt::set_options`).
    pub fn set_options(&mut self, equilibrate: bool, gmres: bool) {
        self.kkt.set_options(equilibrate, gmres);
    }
    /// Factorise; (positive, negative, zero) pivots, or `(0, 0, dim)` on a zero pivot.
    pub fn factor(&mut self) -> (usize, usize, usize) {
        match self.kkt.factor() {
            Factor::Ok { pos, neg, zero } => (pos, neg, zero),
            Factor::ZeroPivot => (0, 0, self.kkt.dim()),
        }
    }
    /// Solves with the factor so far (one per solve and per refinement step).
    pub fn factor_solves(&self) -> usize {
        self.kkt.factor_solves
    }
    /// One solve with the factor, in place (no refinement, no residual).
    pub fn apply_factor(&mut self, x: &mut [f64]) {
        self.kkt.apply_factor(x);
    }
    /// `r = rhs − K sol` (one refinement step's matrix product).
    pub fn residual(&self, rhs: &[f64], sol: &[f64], r: &mut [f64]) {
        self.kkt.residual(rhs, sol, r);
    }
    /// Solve with iterative refinement; the relative residual.
    pub fn solve(&mut self, rhs: &[f64], sol: &mut [f64], max_refine: usize) -> Option<f64> {
        self.kkt.solve(rhs, sol, max_refine)
    }
}

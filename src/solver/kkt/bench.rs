//! The KKT factorisation exposed for the measurement harness (examples/speed_hopper.rs); not
//! part of the API.

use super::{Factor, Kkt, SolverError};
use crate::ad::SparsityPattern;

/// A [`Kkt`] with no fixed variables.
pub struct KktBench {
    kkt: Kkt,
    fixed: Vec<bool>,
}

impl KktBench {
    /// Pattern from the Hessian (lower) and Jacobian patterns, analysed once.
    pub fn new(hess: &SparsityPattern, jac: &SparsityPattern) -> Result<Self, SolverError> {
        Ok(KktBench {
            fixed: vec![false; hess.ncols()],
            kkt: Kkt::new(hess, jac)?,
        })
    }
    /// (dimension, nnz of the permuted lower triangle, nnz of L, multiply-adds per factorisation).
    pub fn stats(&self) -> (usize, usize, usize, usize) {
        let l = &self.kkt.ldlt;
        (self.kkt.dim(), l.nnz_a(), l.nnz_l(), l.flops())
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
    /// Solve with iterative refinement; the relative residual.
    pub fn solve(&mut self, rhs: &[f64], sol: &mut [f64], max_refine: usize) -> Option<f64> {
        self.kkt.solve(rhs, sol, max_refine)
    }
}

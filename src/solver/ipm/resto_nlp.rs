//! The NLP of the feasibility restoration phase (see `restoration.rs`) over `(x, p, n)`:
//! its patterns, built once, and the reference point and weights set per call.

use crate::ad::SparsityPattern;
use crate::solver::error::{EvalError, SolverError};
use crate::solver::nlp::Nlp;
use std::cell::RefCell;

/// Weight ρ of the violation `Σ (p_i + n_i)`.
pub(super) const RHO: f64 = 1000.0;

/// Data of the restoration problem (patterns built once; reference point set per call).
pub(super) struct RestoData {
    pub(super) n: usize,
    pub(super) m: usize,
    pub(super) nnz_j: usize,
    pub(super) jac: SparsityPattern,
    pub(super) hess: SparsityPattern,
    pub(super) hmap: Vec<usize>,
    pub(super) diag_pos: Vec<usize>,
    pub(super) xref: Vec<f64>,
    pub(super) dr: Vec<f64>,
    pub(super) p0: Vec<f64>,
    pub(super) n0: Vec<f64>,
    pub(super) zeta: f64,
    pub(super) scratch: RefCell<Vec<f64>>,
}

/// The restoration NLP over `(x, p, n)`.
pub(super) struct RestoNlp<'a> {
    pub(super) inner: &'a dyn Nlp,
    pub(super) d: &'a RestoData,
}

impl RestoData {
    pub(super) fn new(inner: &dyn Nlp) -> Result<RestoData, SolverError> {
        let (n, m) = (inner.n(), inner.m());
        let nt = n + 2 * m;
        let bad = |e: crate::ad::AdError| SolverError::InvalidProblem(e.to_string());
        let ij = inner.jacobian_pattern();
        let mut col_ptr = ij.col_ptr().to_vec();
        let mut row_idx = ij.row_idx().to_vec();
        for k in 0..2 * m {
            row_idx.push(k % m);
            col_ptr.push(ij.nnz() + k + 1);
        }
        let jac = SparsityPattern::new(m, nt, col_ptr, row_idx).map_err(bad)?;
        let ih = inner.hessian_pattern();
        let mut entries: Vec<(usize, usize)> = ih.entries().collect();
        entries.extend((0..n).map(|j| (j, j)));
        let (hess, map) = SparsityPattern::from_triplets(nt, nt, &entries).map_err(bad)?;
        let hmap = map[..ih.nnz()].to_vec();
        let diag_pos = map[ih.nnz()..].to_vec();
        Ok(RestoData {
            n,
            m,
            nnz_j: ij.nnz(),
            jac,
            hess,
            hmap,
            diag_pos,
            xref: vec![0.0; n],
            dr: vec![0.0; n],
            p0: vec![0.0; m],
            n0: vec![0.0; m],
            zeta: 0.0,
            scratch: RefCell::new(vec![0.0; ih.nnz()]),
        })
    }
}

impl Nlp for RestoNlp<'_> {
    fn n(&self) -> usize {
        self.d.n + 2 * self.d.m
    }
    fn m(&self) -> usize {
        self.d.m
    }
    fn n_p(&self) -> usize {
        self.inner.n_p()
    }
    fn bounds(&self, x_l: &mut [f64], x_u: &mut [f64], g_l: &mut [f64], g_u: &mut [f64]) {
        let n = self.d.n;
        self.inner.bounds(&mut x_l[..n], &mut x_u[..n], g_l, g_u);
        x_l[n..].fill(0.0);
        x_u[n..].fill(f64::INFINITY);
    }
    fn initial_point(&self, x0: &mut [f64]) {
        let (n, m) = (self.d.n, self.d.m);
        x0[..n].copy_from_slice(&self.d.xref);
        x0[n..n + m].copy_from_slice(&self.d.p0);
        x0[n + m..].copy_from_slice(&self.d.n0);
    }
    fn jacobian_pattern(&self) -> &SparsityPattern {
        &self.d.jac
    }
    fn hessian_pattern(&self) -> &SparsityPattern {
        &self.d.hess
    }
    fn eval_f(&self, x: &[f64], _p: &[f64]) -> Result<f64, EvalError> {
        let n = self.d.n;
        let mut f = RHO * x[n..].iter().sum::<f64>();
        for j in 0..n {
            let t = self.d.dr[j] * (x[j] - self.d.xref[j]);
            f += 0.5 * self.d.zeta * t * t;
        }
        Ok(f)
    }
    fn eval_grad_f(&self, x: &[f64], _p: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        let n = self.d.n;
        for j in 0..n {
            grad[j] = self.d.zeta * self.d.dr[j] * self.d.dr[j] * (x[j] - self.d.xref[j]);
        }
        grad[n..].fill(RHO);
        Ok(())
    }
    fn eval_g(&self, x: &[f64], p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        let (n, m) = (self.d.n, self.d.m);
        self.inner.eval_g(&x[..n], p, g)?;
        for i in 0..m {
            g[i] += x[n + m + i] - x[n + i];
        }
        Ok(())
    }
    fn eval_jac_g(&self, x: &[f64], p: &[f64], vals: &mut [f64]) -> Result<(), EvalError> {
        let (n, m, k) = (self.d.n, self.d.m, self.d.nnz_j);
        self.inner.eval_jac_g(&x[..n], p, &mut vals[..k])?;
        vals[k..k + m].fill(-1.0);
        vals[k + m..].fill(1.0);
        Ok(())
    }
    fn eval_hess_l(
        &self,
        x: &[f64],
        p: &[f64],
        sigma_f: f64,
        lambda: &[f64],
        vals: &mut [f64],
    ) -> Result<(), EvalError> {
        let n = self.d.n;
        let mut scratch = self.d.scratch.borrow_mut();
        self.inner
            .eval_hess_l(&x[..n], p, 0.0, lambda, &mut scratch)?;
        vals.fill(0.0);
        for (k, &v) in scratch.iter().enumerate() {
            vals[self.d.hmap[k]] += v;
        }
        for j in 0..n {
            vals[self.d.diag_pos[j]] += sigma_f * self.d.zeta * self.d.dr[j] * self.d.dr[j];
        }
        Ok(())
    }
}

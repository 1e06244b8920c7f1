//! The reduced KKT system and its sparse LDLᵀ factorisation (faer 0.24, supernodal or
//! simplicial as faer's analysis chooses).
//!
//! ```text
//! [ W + Σ_x + δ_w I     Jᵀ          ] [Δx]   [b_x]
//! [ J                 -(D_c + δ_c I) ] [Δy] = [b_c]
//! ```
//! `D_c` is `1/(Σ_s + δ_w)` for inequality rows (their slacks eliminated) and 0 for equalities;
//! the small static `δ_c > 0` makes the matrix quasi-definite so that the fixed (AMD) pivot order
//! never meets an exactly zero pivot; iterative refinement then solves the system without `δ_c`.
//! The matrix is stored as its lower triangle in CSC form; the pattern is analysed once.
//! The inertia is read from the signs of `D`: it is correct when exactly `n` pivots are positive
//! and `m` negative.

use super::error::SolverError;
use crate::ad::SparsityPattern;
use dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::ldlt::factor::{LdltParams, LdltRegularization};
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LdltRef, SymbolicCholesky,
    SymbolicCholeskyRaw, SymmetricOrdering,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, MatMut, Par, Side, Spec};

/// Outcome of a numeric factorisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Factor {
    /// Factorised; (positive, negative, zero-or-NaN) pivot counts.
    Ok { pos: usize, neg: usize, zero: usize },
    /// faer reported a zero pivot.
    ZeroPivot,
}

/// Reduced KKT matrix, its analysis and its factor.
pub(crate) struct Kkt {
    n: usize,
    m: usize,
    dim: usize,
    pattern: SymbolicSparseColMat<usize>,
    values: Vec<f64>,
    diag_idx: Vec<usize>,
    hess_map: Vec<usize>,
    hess_rc: Vec<(u32, u32)>,
    jac_map: Vec<usize>,
    jac_col: Vec<u32>,
    symbolic: SymbolicCholesky<usize>,
    l_values: Vec<f64>,
    d_idx: Vec<usize>,
    mem: MemBuffer,
    reg_c: f64,
    r: Vec<f64>,
    e: Vec<f64>,
    best: Vec<f64>,
    /// Number of numeric factorisations done.
    pub factorizations: usize,
}

impl Kkt {
    /// Build the KKT pattern from the Hessian (lower) and Jacobian patterns and analyse it.
    pub fn new(hess: &SparsityPattern, jac: &SparsityPattern) -> Result<Kkt, SolverError> {
        let n = hess.ncols();
        let m = jac.nrows();
        let dim = n + m;
        let mut col_ptr = Vec::with_capacity(dim + 1);
        let mut row_idx = Vec::with_capacity(hess.nnz() + jac.nnz() + dim);
        let mut diag_idx = vec![0usize; dim];
        let mut hess_map = vec![0usize; hess.nnz()];
        let mut jac_map = vec![0usize; jac.nnz()];
        let mut hess_rc = Vec::with_capacity(hess.nnz());
        let mut jac_col = vec![0u32; jac.nnz()];
        col_ptr.push(0);
        for j in 0..n {
            diag_idx[j] = row_idx.len();
            row_idx.push(j);
            for k in hess.col_ptr()[j]..hess.col_ptr()[j + 1] {
                let i = hess.row_idx()[k];
                if i == j {
                    hess_map[k] = diag_idx[j];
                } else {
                    hess_map[k] = row_idx.len();
                    row_idx.push(i);
                }
            }
            for k in jac.col_ptr()[j]..jac.col_ptr()[j + 1] {
                jac_map[k] = row_idx.len();
                jac_col[k] = j as u32;
                row_idx.push(n + jac.row_idx()[k]);
            }
            col_ptr.push(row_idx.len());
        }
        for (i, j) in hess.entries() {
            hess_rc.push((i as u32, j as u32));
        }
        for i in 0..m {
            diag_idx[n + i] = row_idx.len();
            row_idx.push(n + i);
            col_ptr.push(row_idx.len());
        }
        let nnz = row_idx.len();
        let pattern = SymbolicSparseColMat::new_checked(dim, dim, col_ptr, None, row_idx);
        let symbolic = factorize_symbolic_cholesky(
            pattern.as_ref(),
            Side::Lower,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams::default(),
        )
        .map_err(|e| SolverError::Symbolic(format!("{e:?}")))?;
        let d_idx = diagonal_positions(&symbolic);
        let par = Par::Seq;
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_ldlt_scratch::<f64>(par, Spec::<LdltParams, f64>::default()),
            symbolic.solve_in_place_scratch::<f64>(1, par),
        ]);
        let mem = MemBuffer::new(req);
        let l_values = vec![0.0; symbolic.len_val()];
        Ok(Kkt {
            n,
            m,
            dim,
            pattern,
            values: vec![0.0; nnz],
            diag_idx,
            hess_map,
            hess_rc,
            jac_map,
            jac_col,
            symbolic,
            l_values,
            d_idx,
            mem,
            reg_c: 0.0,
            r: vec![0.0; dim],
            e: vec![0.0; dim],
            best: vec![0.0; dim],
            factorizations: 0,
        })
    }

    /// Dimension `n + m`.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Fill the matrix values. `hess` may be `None` (zero Hessian, used for multiplier
    /// estimates). `diag_x` is added to the (1,1) diagonal; the (2,2) diagonal is
    /// `-(diag_c + reg_c)`. Fixed variables get an identity row and column.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        &mut self,
        hess: Option<&[f64]>,
        jac: &[f64],
        diag_x: &[f64],
        diag_c: &[f64],
        reg_c: f64,
        fixed: &[bool],
    ) {
        self.values.fill(0.0);
        if let Some(h) = hess {
            for (k, &v) in h.iter().enumerate() {
                let (i, j) = self.hess_rc[k];
                if !fixed[i as usize] && !fixed[j as usize] {
                    self.values[self.hess_map[k]] += v;
                }
            }
        }
        for (k, &v) in jac.iter().enumerate() {
            if !fixed[self.jac_col[k] as usize] {
                self.values[self.jac_map[k]] = v;
            }
        }
        for j in 0..self.n {
            let d = self.diag_idx[j];
            if fixed[j] {
                self.values[d] = 1.0;
            } else {
                self.values[d] += diag_x[j];
            }
        }
        for i in 0..self.m {
            self.values[self.diag_idx[self.n + i]] = -(diag_c[i] + reg_c);
        }
        self.reg_c = reg_c;
    }

    /// Numeric LDLᵀ factorisation of the assembled matrix, with the pivot signs.
    pub fn factor(&mut self) -> Factor {
        self.factorizations += 1;
        let a = SparseColMatRef::new(self.pattern.as_ref(), &self.values);
        let stack = MemStack::new(&mut self.mem);
        let res = self.symbolic.factorize_numeric_ldlt(
            &mut self.l_values,
            a,
            Side::Lower,
            LdltRegularization::default(),
            Par::Seq,
            stack,
            Spec::<LdltParams, f64>::default(),
        );
        if res.is_err() {
            return Factor::ZeroPivot;
        }
        let (mut pos, mut neg, mut zero) = (0, 0, 0);
        for &k in &self.d_idx {
            let d = self.l_values[k];
            if d > 0.0 && d.is_finite() {
                pos += 1;
            } else if d < 0.0 && d.is_finite() {
                neg += 1;
            } else {
                zero += 1;
            }
        }
        Factor::Ok { pos, neg, zero }
    }

    /// True if the last factorisation has the inertia (n, m, 0).
    pub fn inertia_ok(&self, f: Factor) -> bool {
        matches!(f, Factor::Ok { pos, neg, zero } if pos == self.n && neg == self.m && zero == 0)
    }

    fn apply_factor(&mut self, x: &mut [f64]) {
        let ldlt = LdltRef::<usize, f64>::new(&self.symbolic, &self.l_values);
        let stack = MemStack::new(&mut self.mem);
        let rhs = MatMut::from_column_major_slice_mut(x, self.dim, 1);
        ldlt.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, stack);
    }

    /// `out = K_true x` where `K_true` is the assembled matrix without the static `δ_c`.
    fn matvec(&self, x: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        let cp = self.pattern.col_ptr();
        let ri = self.pattern.row_idx();
        for j in 0..self.dim {
            let xj = x[j];
            for k in cp[j]..cp[j + 1] {
                let i = ri[k];
                let v = self.values[k];
                out[i] += v * xj;
                if i != j {
                    out[j] += v * x[i];
                }
            }
        }
        for i in self.n..self.dim {
            out[i] += self.reg_c * x[i];
        }
    }

    /// Solve `K_true sol = rhs` with the factor of the regularised matrix and iterative
    /// refinement (stopped when the residual stops decreasing). Returns the final residual
    /// (max norm, relative to `1 + |rhs|`), or `None` if the solution is not finite.
    pub fn solve(&mut self, rhs: &[f64], sol: &mut [f64], max_refine: usize) -> Option<f64> {
        sol.copy_from_slice(rhs);
        self.apply_factor(sol);
        let scale = 1.0 + inf_norm(rhs);
        let mut r = std::mem::take(&mut self.r);
        let mut e = std::mem::take(&mut self.e);
        let mut best = std::mem::take(&mut self.best);
        self.residual(rhs, sol, &mut r);
        let mut res = inf_norm(&r) / scale;
        best.copy_from_slice(sol);
        let mut best_res = res;
        for _ in 0..max_refine {
            if !(res > 1e-14) {
                break;
            }
            e.copy_from_slice(&r);
            self.apply_factor(&mut e);
            for (s, d) in sol.iter_mut().zip(e.iter()) {
                *s += d;
            }
            self.residual(rhs, sol, &mut r);
            let new_res = inf_norm(&r) / scale;
            if new_res < best_res {
                best.copy_from_slice(sol);
                best_res = new_res;
            }
            if !(new_res < 0.5 * res) {
                break;
            }
            res = new_res;
        }
        sol.copy_from_slice(&best);
        self.r = r;
        self.e = e;
        self.best = best;
        if sol.iter().all(|v| v.is_finite()) && best_res.is_finite() {
            Some(best_res)
        } else {
            None
        }
    }

    fn residual(&self, rhs: &[f64], sol: &[f64], r: &mut [f64]) {
        self.matvec(sol, r);
        for (ri, bi) in r.iter_mut().zip(rhs.iter()) {
            *ri = bi - *ri;
        }
    }
}

/// Max norm.
pub(crate) fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |a, &b| a.max(b.abs()))
}

/// Positions of the pivots `D_j` inside the factor's value array.
fn diagonal_positions(sym: &SymbolicCholesky<usize>) -> Vec<usize> {
    match sym.raw() {
        SymbolicCholeskyRaw::Simplicial(s) => {
            let cp = s.col_ptr();
            (0..s.nrows()).map(|j| cp[j]).collect()
        }
        SymbolicCholeskyRaw::Supernodal(s) => {
            let mut out = Vec::with_capacity(s.nrows());
            let begin = s.supernode_begin();
            let end = s.supernode_end();
            let cpv = s.col_ptr_for_val();
            for k in 0..s.n_supernodes() {
                let ncols = end[k] - begin[k];
                let nrows = s.supernode(k).pattern().len() + ncols;
                for c in 0..ncols {
                    out.push(cpv[k] + c * nrows + c);
                }
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2x2 (n = 2, m = 1) KKT system against a dense solve.
    #[test]
    fn solves_small_kkt_and_reads_inertia() {
        let (h, _) = SparsityPattern::from_triplets(2, 2, &[(0, 0), (1, 0), (1, 1)]).unwrap();
        let (j, _) = SparsityPattern::from_triplets(1, 2, &[(0, 0), (0, 1)]).unwrap();
        let mut kkt = Kkt::new(&h, &j).unwrap();
        kkt.assemble(
            Some(&[2.0, 0.5, 3.0]),
            &[1.0, 2.0],
            &[0.0, 0.0],
            &[0.0],
            1e-10,
            &[false, false],
        );
        let f = kkt.factor();
        assert!(kkt.inertia_ok(f), "{f:?}");
        let rhs = [1.0, -1.0, 0.5];
        let mut sol = [0.0; 3];
        let res = kkt.solve(&rhs, &mut sol, 5).unwrap();
        assert!(res < 1e-13);
        // K = [[2, .5, 1], [.5, 3, 2], [1, 2, 0]]
        let k = [[2.0, 0.5, 1.0], [0.5, 3.0, 2.0], [1.0, 2.0, 0.0]];
        for i in 0..3 {
            let v: f64 = (0..3).map(|c| k[i][c] * sol[c]).sum();
            assert!((v - rhs[i]).abs() < 1e-12);
        }
        // indefinite (1,1) block: inertia must be wrong
        kkt.assemble(
            Some(&[-2.0, 0.0, -3.0]),
            &[1.0, 0.0],
            &[0.0, 0.0],
            &[0.0],
            1e-10,
            &[false, false],
        );
        let f = kkt.factor();
        assert!(!kkt.inertia_ok(f));
    }
}

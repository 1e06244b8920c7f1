//! The reduced KKT system and its sparse LDLᵀ factorisation (faer 0.24's AMD ordering, then
//! [`Ldlt`]: the scalar up-looking `StaticLdlt`, whose elimination tree, pattern of `L` and row
//! reaches are computed once so that a factorisation does no graph work, or the supernodal
//! `SupernodalLdlt` with dense panels, chosen by the setting `kkt_factorization`; `auto` takes
//! the supernodal one when the factor has at least 200 multiply-adds per column).
//!
//! ```text
//! [ W + Σ_x + δ_w I     Jᵀ          ] [Δx]   [b_x]
//! [ J                 -(D_c + δ_c I) ] [Δy] = [b_c]
//! ```
//! `D_c` is `1/(Σ_s + δ_w)` for inequality rows (their slacks eliminated) and 0 for equalities;
//! the small static `δ_c > 0` makes the matrix quasi-definite so that the fixed (AMD) pivot order
//! never meets an exactly zero pivot; iterative refinement then solves the system without `δ_c`.
//! Two opt-in measures for ill-conditioned systems ([`Kkt::set_options`]): symmetric Ruiz
//! equilibration before the factorisation, and GMRES after stalled refinement.
//! The matrix is stored as its lower triangle in CSC form; the pattern is analysed once.
//! The inertia is read from the signs of `D`: it is correct when exactly `n` pivots are positive
//! and `m` negative.

use super::error::SolverError;
use super::factor::{Ldlt, LdltMethod};
use super::gmres::{Gmres, PreconditionedOperator, GMRES_CYCLES, GMRES_TRIGGER};
use crate::ad::SparsityPattern;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, SymmetricOrdering,
};
use faer::sparse::SymbolicSparseColMat;
use faer::Side;

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
    ldlt: Ldlt,
    /// The pivot order (faer's AMD) and the method `ldlt` was built with.
    perm: Vec<usize>,
    method: LdltMethod,
    work: Vec<f64>,
    reg_c: f64,
    r: Vec<f64>,
    e: Vec<f64>,
    best: Vec<f64>,
    /// Symmetric equilibration `D` (Ruiz) of the unregularised matrix, computed per
    /// factorisation when `equilibrate` (unused otherwise).
    dscale: Vec<f64>,
    /// Row maxima of one equilibration pass.
    rowmax: Vec<f64>,
    /// With `equilibrate`: the factorised matrix `D K_true D − diag(0, δ_c I)`; otherwise
    /// `values` is factorised and this is unused.
    svalues: Vec<f64>,
    /// `D rhs` of the current solve.
    srhs: Vec<f64>,
    /// Work space of the GMRES fallback (see [`Kkt::solve`]).
    gmres: Gmres,
    /// Equilibrate before factorising ([`Kkt::set_options`]).
    equilibrate: bool,
    /// GMRES after stalled refinement ([`Kkt::set_options`]).
    use_gmres: bool,
    /// Number of numeric factorisations done.
    pub factorizations: usize,
    /// Number of solves with the factor (each solve, refinement step and GMRES
    /// preconditioning).
    pub factor_solves: usize,
}

impl Kkt {
    /// Build the KKT pattern from the Hessian (lower) and Jacobian patterns and analyse it.
    pub fn new(hess: &SparsityPattern, jac: &SparsityPattern) -> Result<Kkt, SolverError> {
        Kkt::with_method(hess, jac, LdltMethod::Auto)
    }

    /// [`Kkt::new`] with a given factorisation method.
    pub fn with_method(
        hess: &SparsityPattern,
        jac: &SparsityPattern,
        method: LdltMethod,
    ) -> Result<Kkt, SolverError> {
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
        // faer's AMD ordering (its symbolic analysis is used for nothing else); the numeric
        // factorisation is `StaticLdlt`, analysed here once.
        let symbolic = factorize_symbolic_cholesky(
            pattern.as_ref(),
            Side::Lower,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams::default(),
        )
        .map_err(|e| SolverError::Symbolic(format!("{e:?}")))?;
        let perm: Vec<usize> = match symbolic.perm() {
            Some(p) => p.arrays().0.to_vec(),
            None => (0..dim).collect(),
        };
        let ldlt = Ldlt::new(dim, pattern.col_ptr(), pattern.row_idx(), &perm, method);
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
            work: vec![0.0; ldlt.work_len()],
            ldlt,
            perm,
            method,
            reg_c: 0.0,
            r: vec![0.0; dim],
            e: vec![0.0; dim],
            best: vec![0.0; dim],
            dscale: vec![1.0; dim],
            rowmax: vec![0.0; dim],
            svalues: vec![0.0; nnz],
            srhs: vec![0.0; dim],
            gmres: Gmres::new(0),
            equilibrate: false,
            use_gmres: false,
            factorizations: 0,
            factor_solves: 0,
        })
    }

    /// Use another factorisation method (re-analyses the pattern when it changes; the next
    /// [`Kkt::factor`] uses it).
    pub fn set_method(&mut self, method: LdltMethod) {
        if method != self.method {
            let p = &self.pattern;
            self.ldlt = Ldlt::new(self.dim, p.col_ptr(), p.row_idx(), &self.perm, method);
            self.work = vec![0.0; self.ldlt.work_len()];
            self.method = method;
        }
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
    ///
    /// With equilibration ([`Kkt::set_options`]) the matrix is scaled first: `D K_true D` with a
    /// diagonal `D > 0` (Ruiz passes, every row's largest entry brought to about 1), and the
    /// static `δ_c` is subtracted in the scaled space. `D` does not change the inertia.
    /// Without it `D = I` and the factorised matrix is the assembled one, bit for bit.
    pub fn factor(&mut self) -> Factor {
        self.factorizations += 1;
        if self.equilibrate {
            self.equilibrate();
        }
        let values = if self.equilibrate {
            &self.svalues
        } else {
            &self.values
        };
        if self.ldlt.factor(values).is_err() {
            return Factor::ZeroPivot;
        }
        let (mut pos, mut neg, mut zero) = (0, 0, 0);
        for &d in self.ldlt.pivots() {
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

    /// Opt-in accuracy measures for ill-conditioned KKT systems (IPM settings
    /// `kkt_equilibration`, `kkt_gmres`): symmetric Ruiz equilibration before the factorisation,
    /// and restarted GMRES preconditioned by the factor when refinement stalls above a relative
    /// residual of 1e-12. On a two-disc KKT system (tests/solver/solver_kkt_accuracy.rs) refinement
    /// alone leaves a 37 % error in the solution; GMRES brings it below 1e-6, equilibration
    /// alone to 2.6e-5. Both change the iterates of every solve; they are off by default
    /// because with them on some solves that succeed without them fail (the friction balls'
    /// stick times with GMRES; the hopper OCP with unbounded equilibration factors). The GMRES
    /// work space (21 vectors of the KKT dimension) is allocated here, when first enabled.
    pub fn set_options(&mut self, equilibrate: bool, gmres: bool) {
        self.equilibrate = equilibrate;
        self.use_gmres = gmres;
        if gmres && self.gmres.dim != self.dim {
            self.gmres = Gmres::new(self.dim);
        }
    }

    /// Ruiz equilibration of `K_true` into `dscale`, and `svalues = D K_true D − diag(0, δ_c)`.
    fn equilibrate(&mut self) {
        let cp = self.pattern.col_ptr();
        let ri = self.pattern.row_idx();
        // K_true: the assembled values carry −δ_c on the (2,2) diagonal
        self.svalues.copy_from_slice(&self.values);
        for i in self.n..self.dim {
            self.svalues[self.diag_idx[i]] += self.reg_c;
        }
        self.dscale.fill(1.0);
        for _ in 0..RUIZ_PASSES {
            self.rowmax.fill(0.0);
            for j in 0..self.dim {
                for k in cp[j]..cp[j + 1] {
                    let i = ri[k];
                    let a = self.svalues[k].abs();
                    if a > self.rowmax[i] {
                        self.rowmax[i] = a;
                    }
                    if a > self.rowmax[j] {
                        self.rowmax[j] = a;
                    }
                }
            }
            let mut worst = 0.0f64;
            for (r, &d) in self.rowmax.iter_mut().zip(&self.dscale) {
                *r = if *r > 0.0 && r.is_finite() {
                    worst = worst.max((1.0 - *r).abs());
                    // the total factor stays within [1/RUIZ_MAX, RUIZ_MAX]
                    (d / r.sqrt()).clamp(1.0 / RUIZ_MAX, RUIZ_MAX) / d
                } else {
                    1.0
                };
            }
            for j in 0..self.dim {
                let fj = self.rowmax[j];
                for k in cp[j]..cp[j + 1] {
                    self.svalues[k] *= self.rowmax[ri[k]] * fj;
                }
                self.dscale[j] *= fj;
            }
            if worst < RUIZ_TOL {
                break;
            }
        }
        for i in self.n..self.dim {
            self.svalues[self.diag_idx[i]] -= self.reg_c;
        }
    }

    pub(crate) fn apply_factor(&mut self, x: &mut [f64]) {
        self.factor_solves += 1;
        self.ldlt.solve_in_place(x, &mut self.work);
    }

    /// `out = K_true x` (`D K_true D x` with equilibration): the factorised matrix without the
    /// static `δ_c`.
    pub(crate) fn matvec(&self, x: &[f64], out: &mut [f64]) {
        let values = if self.equilibrate {
            &self.svalues
        } else {
            &self.values
        };
        out.fill(0.0);
        let cp = self.pattern.col_ptr();
        let ri = self.pattern.row_idx();
        for j in 0..self.dim {
            let xj = x[j];
            for k in cp[j]..cp[j + 1] {
                let i = ri[k];
                let v = values[k];
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
        if !self.equilibrate {
            return self.solve_scaled(rhs, sol, max_refine);
        }
        // the equilibrated system D K D x̂ = D rhs, x = D x̂
        let mut srhs = std::mem::take(&mut self.srhs);
        for ((b, &r), &d) in srhs.iter_mut().zip(rhs).zip(&self.dscale) {
            *b = d * r;
        }
        let out = self.solve_scaled(&srhs, sol, max_refine);
        self.srhs = srhs;
        for (x, &d) in sol.iter_mut().zip(&self.dscale) {
            *x *= d;
        }
        out
    }

    /// [`Kkt::solve`] on the factorised (possibly equilibrated) system.
    fn solve_scaled(&mut self, rhs: &[f64], sol: &mut [f64], max_refine: usize) -> Option<f64> {
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
        if self.use_gmres && best_res > GMRES_TRIGGER && max_refine > 0 {
            // Refinement stalled: the regularised factor is too far from the true matrix in some
            // directions (tiny eigenvalues next to δ_c). GMRES preconditioned by the same factor
            // removes those few directions in a few iterations.
            sol.copy_from_slice(&best);
            let mut g = std::mem::replace(&mut self.gmres, Gmres::new(0));
            for _ in 0..GMRES_CYCLES {
                g.cycle(self, rhs, sol, &mut r);
                self.residual(rhs, sol, &mut r);
                let new_res = inf_norm(&r) / scale;
                if !(new_res < 0.5 * best_res) {
                    if new_res < best_res {
                        best.copy_from_slice(sol);
                        best_res = new_res;
                    }
                    break;
                }
                best.copy_from_slice(sol);
                best_res = new_res;
                if !(best_res > 1e-14) {
                    break;
                }
            }
            self.gmres = g;
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

    pub(crate) fn residual(&self, rhs: &[f64], sol: &[f64], r: &mut [f64]) {
        self.matvec(sol, r);
        for (ri, bi) in r.iter_mut().zip(rhs.iter()) {
            *ri = bi - *ri;
        }
    }
}

/// GMRES on the true KKT matrix, preconditioned by the factor of the regularised one.
impl PreconditionedOperator for Kkt {
    fn residual(&self, b: &[f64], x: &[f64], r: &mut [f64]) {
        Kkt::residual(self, b, x, r)
    }
    fn apply(&self, x: &[f64], out: &mut [f64]) {
        self.matvec(x, out)
    }
    fn precondition(&mut self, x: &mut [f64]) {
        self.apply_factor(x)
    }
}

/// Equilibration passes at most per factorisation.
const RUIZ_PASSES: usize = 10;
/// Bound of each equilibration factor and of its inverse: a row or column scaled by more
/// would see the static `δ_c` (applied in the scaled space) shrink or grow by its square.
const RUIZ_MAX: f64 = 1e4;
/// Stop the passes when every row maximum is within this of 1.
const RUIZ_TOL: f64 = 0.1;

/// Max norm.
pub(crate) fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |a, &b| a.max(b.abs()))
}

/// The KKT factorisation exposed for the measurement harness (examples/speed_hopper.rs); not
/// part of the API.
#[doc(hidden)]
pub mod bench;

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform numbers in [0, 1) from a 64-bit linear congruential generator.
    fn lcg(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64) / ((1u64 << 53) as f64)
        }
    }

    /// The fixed-pattern LDLᵀ reproduces faer's simplicial LDLᵀ (same AMD order) bit for bit:
    /// pivots, and the solution of one system, on a random quasi-definite KKT matrix (the
    /// matrix `factor` hands to it without equilibration: the assembled values).
    #[test]
    fn static_ldlt_matches_faer_simplicial_bitwise() {
        use dyn_stack::{MemBuffer, MemStack, StackReq};
        use faer::linalg::cholesky::ldlt::factor::{LdltParams, LdltRegularization};
        use faer::sparse::linalg::cholesky::{LdltRef, SymbolicCholeskyRaw};
        use faer::sparse::linalg::SupernodalThreshold;
        use faer::sparse::SparseColMatRef;
        use faer::{Conj, MatMut, Par, Spec};
        let (n, m) = (40usize, 25usize);
        let mut rnd = lcg(12345);
        let mut ht = Vec::new();
        for j in 0..n {
            for i in j..n {
                if i == j || rnd() < 0.08 {
                    ht.push((i, j));
                }
            }
        }
        let mut jt = Vec::new();
        for i in 0..m {
            for j in 0..n {
                if rnd() < 0.1 || j == i {
                    jt.push((i, j));
                }
            }
        }
        let (h, _) = SparsityPattern::from_triplets(n, n, &ht).unwrap();
        let (jp, _) = SparsityPattern::from_triplets(m, n, &jt).unwrap();
        let mut kkt = Kkt::with_method(&h, &jp, LdltMethod::Simplicial).unwrap();
        let hv: Vec<f64> = (0..h.nnz()).map(|_| rnd() - 0.5).collect();
        let jv: Vec<f64> = (0..jp.nnz()).map(|_| 2.0 * rnd() - 1.0).collect();
        let dx: Vec<f64> = (0..n).map(|_| 2.0 + rnd()).collect();
        let dc: Vec<f64> = (0..m)
            .map(|i| if i % 2 == 0 { rnd() } else { 0.0 })
            .collect();
        kkt.assemble(Some(&hv), &jv, &dx, &dc, 1e-8, &vec![false; n]);
        let f = kkt.factor();
        assert!(kkt.inertia_ok(f), "{f:?}");

        let dim = n + m;
        let sym = factorize_symbolic_cholesky(
            kkt.pattern.as_ref(),
            Side::Lower,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams {
                supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SIMPLICIAL,
                ..Default::default()
            },
        )
        .unwrap();
        let par = Par::Seq;
        let mut mem = MemBuffer::new(StackReq::any_of(&[
            sym.factorize_numeric_ldlt_scratch::<f64>(par, Spec::<LdltParams, f64>::default()),
            sym.solve_in_place_scratch::<f64>(1, par),
        ]));
        let mut lv = vec![0.0; sym.len_val()];
        let a = SparseColMatRef::new(kkt.pattern.as_ref(), &kkt.values);
        sym.factorize_numeric_ldlt(
            &mut lv,
            a,
            Side::Lower,
            LdltRegularization::default(),
            par,
            MemStack::new(&mut mem),
            Spec::<LdltParams, f64>::default(),
        )
        .unwrap();
        let SymbolicCholeskyRaw::Simplicial(s) = sym.raw() else {
            panic!("forced simplicial");
        };
        let cp = s.col_ptr();
        for j in 0..dim {
            assert_eq!(
                lv[cp[j]].to_bits(),
                kkt.ldlt.pivots()[j].to_bits(),
                "pivot {j}"
            );
        }
        let rhs: Vec<f64> = (0..dim).map(|_| rnd() - 0.5).collect();
        let mut ours = rhs.clone();
        kkt.apply_factor(&mut ours);
        let mut theirs = rhs.clone();
        LdltRef::<usize, f64>::new(&sym, &lv).solve_in_place_with_conj(
            Conj::No,
            MatMut::from_column_major_slice_mut(&mut theirs, dim, 1),
            par,
            MemStack::new(&mut mem),
        );
        for i in 0..dim {
            assert_eq!(ours[i].to_bits(), theirs[i].to_bits(), "solution {i}");
        }
    }

    /// A badly scaled KKT system, as near the bounds of an interior-point method (barrier
    /// diagonal and slack terms spanning 1e-8 … 1e10, O(1) Jacobian), against a dense
    /// full-pivoting LU of the same matrix: the solution is accurate to 1e-9 relative.
    #[test]
    fn badly_scaled_kkt_against_dense_lu() {
        let (n, m) = (30usize, 12usize);
        let mut rnd = lcg(987654321);
        let mut ht = Vec::new();
        for j in 0..n {
            ht.push((j, j));
            if j + 1 < n {
                ht.push((j + 1, j));
            }
        }
        let mut jt = Vec::new();
        for i in 0..m {
            for j in 0..n {
                if j == 2 * i || j == 2 * i + 1 || rnd() < 0.15 {
                    jt.push((i, j));
                }
            }
        }
        let (h, _) = SparsityPattern::from_triplets(n, n, &ht).unwrap();
        let (jp, _) = SparsityPattern::from_triplets(m, n, &jt).unwrap();
        let mut kkt = Kkt::new(&h, &jp).unwrap();
        let hv: Vec<f64> = h
            .entries()
            .map(|(i, j)| if i == j { 0.1 } else { 0.05 * (rnd() - 0.5) })
            .collect();
        let jv: Vec<f64> = (0..jp.nnz()).map(|_| 2.0 * rnd() - 1.0).collect();
        // barrier terms z/s from 1e-8 to 1e10, and slack terms 1/(Σ_s) from 1e-8 to 1e8
        let dx: Vec<f64> = (0..n)
            .map(|j| 10f64.powf(-8.0 + 18.0 * j as f64 / (n - 1) as f64))
            .collect();
        let dc: Vec<f64> = (0..m)
            .map(|i| {
                if i % 3 == 0 {
                    0.0
                } else {
                    10f64.powf(-8.0 + 16.0 * rnd())
                }
            })
            .collect();
        kkt.assemble(Some(&hv), &jv, &dx, &dc, 1e-9, &vec![false; n]);
        let f = kkt.factor();
        assert!(kkt.inertia_ok(f), "{f:?}");
        let dim = n + m;
        let mut k = nalgebra::DMatrix::<f64>::zeros(dim, dim);
        for (kk, (i, j)) in h.entries().enumerate() {
            k[(i, j)] += hv[kk];
            if i != j {
                k[(j, i)] += hv[kk];
            }
        }
        for (kk, (i, j)) in jp.entries().enumerate() {
            k[(n + i, j)] = jv[kk];
            k[(j, n + i)] = jv[kk];
        }
        for j in 0..n {
            k[(j, j)] += dx[j];
        }
        for i in 0..m {
            k[(n + i, n + i)] = -dc[i];
        }
        let rhs: Vec<f64> = (0..dim).map(|i| (i % 5) as f64 - 2.0 + rnd()).collect();
        let want = k
            .clone()
            .full_piv_lu()
            .solve(&nalgebra::DVector::from_vec(rhs.clone()))
            .unwrap();
        let mut sol = vec![0.0; dim];
        kkt.solve(&rhs, &mut sol, 10).unwrap();
        let scale = want.amax();
        let err = (0..dim)
            .map(|i| (sol[i] - want[i]).abs())
            .fold(0.0f64, f64::max);
        assert!(err <= 1e-9 * scale, "error {err:e}, |x| {scale:e}");
    }

    /// The supernodal factorisation inside `Kkt` (forced, and switched to with `set_method`):
    /// same inertia as the simplicial one and, after refinement, the same solution to 1e-12
    /// relative, on a KKT matrix with dense Jacobian rows (large supernodes).
    #[test]
    fn supernodal_kkt_matches_simplicial() {
        let (n, m) = (60usize, 30usize);
        let mut rnd = lcg(4242);
        let mut ht = Vec::new();
        for j in 0..n {
            for i in j..n {
                if i == j || rnd() < 0.05 {
                    ht.push((i, j));
                }
            }
        }
        let mut jt = Vec::new();
        for i in 0..m {
            for j in 0..n {
                // two dense rows, the rest sparse
                if i < 2 || rnd() < 0.1 || j == 2 * i {
                    jt.push((i, j));
                }
            }
        }
        let (h, _) = SparsityPattern::from_triplets(n, n, &ht).unwrap();
        let (jp, _) = SparsityPattern::from_triplets(m, n, &jt).unwrap();
        let hv: Vec<f64> = (0..h.nnz()).map(|_| rnd() - 0.5).collect();
        let jv: Vec<f64> = (0..jp.nnz()).map(|_| 2.0 * rnd() - 1.0).collect();
        let dx: Vec<f64> = (0..n).map(|_| 2.0 + rnd()).collect();
        let dc: Vec<f64> = (0..m)
            .map(|i| if i % 2 == 0 { rnd() } else { 0.0 })
            .collect();
        let rhs: Vec<f64> = (0..n + m).map(|_| rnd() - 0.5).collect();
        let run = |kkt: &mut Kkt| {
            kkt.assemble(Some(&hv), &jv, &dx, &dc, 1e-8, &vec![false; n]);
            let f = kkt.factor();
            let mut sol = vec![0.0; n + m];
            kkt.solve(&rhs, &mut sol, 10).unwrap();
            (f, sol)
        };
        let mut simplicial = Kkt::with_method(&h, &jp, LdltMethod::Simplicial).unwrap();
        let (f0, want) = run(&mut simplicial);
        assert!(simplicial.inertia_ok(f0), "{f0:?}");
        let mut supernodal = Kkt::with_method(&h, &jp, LdltMethod::Supernodal).unwrap();
        assert!(matches!(supernodal.ldlt, Ldlt::Supernodal(_)));
        simplicial.set_method(LdltMethod::Supernodal);
        assert!(matches!(simplicial.ldlt, Ldlt::Supernodal(_)));
        let scale = inf_norm(&want);
        for kkt in [&mut supernodal, &mut simplicial] {
            let (f, sol) = run(kkt);
            assert_eq!(f, f0);
            let err = (0..n + m)
                .map(|i| (sol[i] - want[i]).abs())
                .fold(0.0f64, f64::max);
            assert!(err <= 1e-12 * scale, "error {err:e}, |x| {scale:e}");
        }
    }

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

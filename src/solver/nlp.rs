//! The problem interface: a structured NLP with parameters, and complementarity pairs.
//!
//! ```text
//! min_x f(x; p)   s.t.   g_L <= g(x; p) <= g_U,   x_L <= x <= x_U
//! ```
//! Rows with `g_L == g_U` are equalities; infinite bounds are `f64::INFINITY` (or any value
//! beyond `±1e19`, as in IPOPT). Parameters `p` are passed to every callback, so they can change
//! between solves without rebuilding anything.
//!
//! All callbacks write into caller-provided slices and must not allocate (the solver's
//! no-allocation-per-iteration guarantee relies on it).

use super::error::{EvalError, SolverError};
use crate::ad::SparsityPattern;

/// Bounds at or beyond this magnitude are treated as infinite.
pub const INF_BOUND: f64 = 1e19;

/// A smooth nonlinear program with sparse first and second derivatives.
pub trait Nlp {
    /// Number of variables `n`.
    fn n(&self) -> usize;
    /// Number of constraints `m`.
    fn m(&self) -> usize;
    /// Number of parameters.
    fn n_p(&self) -> usize {
        0
    }
    /// Variable and constraint bounds (lengths n, n, m, m).
    fn bounds(&self, x_l: &mut [f64], x_u: &mut [f64], g_l: &mut [f64], g_u: &mut [f64]);
    /// Default initial point (length n).
    fn initial_point(&self, x0: &mut [f64]);
    /// Sparsity of the constraint Jacobian (m x n, CSC).
    fn jacobian_pattern(&self) -> &SparsityPattern;
    /// Sparsity of the lower triangle of the Hessian of the Lagrangian (n x n, CSC).
    fn hessian_pattern(&self) -> &SparsityPattern;
    /// Objective value.
    fn eval_f(&self, x: &[f64], p: &[f64]) -> Result<f64, EvalError>;
    /// Objective gradient (length n).
    fn eval_grad_f(&self, x: &[f64], p: &[f64], grad: &mut [f64]) -> Result<(), EvalError>;
    /// Constraint values (length m).
    fn eval_g(&self, x: &[f64], p: &[f64], g: &mut [f64]) -> Result<(), EvalError>;
    /// Jacobian values in the storage order of [`Nlp::jacobian_pattern`].
    fn eval_jac_g(&self, x: &[f64], p: &[f64], vals: &mut [f64]) -> Result<(), EvalError>;
    /// Lower-triangle values of `sigma_f ∇²f + Σ λ_i ∇²g_i`, in the storage order of
    /// [`Nlp::hessian_pattern`].
    fn eval_hess_l(
        &self,
        x: &[f64],
        p: &[f64],
        sigma_f: f64,
        lambda: &[f64],
        vals: &mut [f64],
    ) -> Result<(), EvalError>;
}

/// Complementarity functions `0 <= G(x; p) ⟂ H(x; p) >= 0` (elementwise, `n_pairs` pairs).
pub trait Complementarity {
    /// Number of pairs.
    fn n_pairs(&self) -> usize;
    /// Number of variables the functions depend on (must equal the NLP's `n`).
    fn n(&self) -> usize;
    /// Jacobian pattern of `G` (n_pairs x n, CSC).
    fn g_jacobian_pattern(&self) -> &SparsityPattern;
    /// Jacobian pattern of `H` (n_pairs x n, CSC).
    fn h_jacobian_pattern(&self) -> &SparsityPattern;
    /// Evaluate `G` and `H` (each of length n_pairs).
    fn eval(&self, x: &[f64], p: &[f64], g: &mut [f64], h: &mut [f64]) -> Result<(), EvalError>;
    /// Jacobian values of `G` and `H` in the order of their patterns.
    fn eval_jac(
        &self,
        x: &[f64],
        p: &[f64],
        jg: &mut [f64],
        jh: &mut [f64],
    ) -> Result<(), EvalError>;
    /// Lower-triangle pattern of the Hessian of `Σ a_i G_i + b_i H_i` (empty if `G`, `H` are
    /// linear, the default).
    fn hessian_pattern(&self) -> Option<&SparsityPattern> {
        None
    }
    /// Values of the Hessian of `Σ a_i G_i + b_i H_i` in the order of
    /// [`Complementarity::hessian_pattern`]. Only called when that pattern exists.
    fn eval_hess(
        &self,
        _x: &[f64],
        _p: &[f64],
        _a: &[f64],
        _b: &[f64],
        _vals: &mut [f64],
    ) -> Result<(), EvalError> {
        Ok(())
    }
    /// For each pair, `Some(j)` if `G_i(x) = x_j` exactly (then `G_i >= 0` becomes a bound, never
    /// a constraint row). Default: no identification.
    fn g_as_variable(&self, _i: usize) -> Option<usize> {
        None
    }
    /// For each pair, `Some(j)` if `H_i(x) = x_j` exactly.
    fn h_as_variable(&self, _i: usize) -> Option<usize> {
        None
    }
    /// For each pair, the variables `j` when `G_i(x) = Σ_j x_j` exactly (two or more, unit
    /// coefficients), else empty. An active-set solve fixes such a side through its members
    /// (`x_j = 0` each, when every member has the lower bound 0) instead of a row `G_i = 0`,
    /// whose gradient is a combination of the members' active bounds (no strict interior).
    /// Default: no identification.
    fn g_members(&self, _i: usize) -> &[usize] {
        &[]
    }
    /// As [`Complementarity::g_members`] for `H_i`.
    fn h_members(&self, _i: usize) -> &[usize] {
        &[]
    }
}

/// Complementarity pairs between variables: `0 <= x[g_i] ⟂ x[h_i] >= 0`.
#[derive(Clone, Debug)]
pub struct VariablePairs {
    n: usize,
    pairs: Vec<(usize, usize)>,
    jg: SparsityPattern,
    jh: SparsityPattern,
}

impl VariablePairs {
    /// Pairs `(index of G, index of H)` among `n` variables.
    pub fn new(n: usize, pairs: Vec<(usize, usize)>) -> Result<Self, SolverError> {
        let bad = |e: crate::ad::AdError| SolverError::InvalidProblem(e.to_string());
        let g: Vec<_> = pairs
            .iter()
            .enumerate()
            .map(|(i, &(a, _))| (i, a))
            .collect();
        let h: Vec<_> = pairs
            .iter()
            .enumerate()
            .map(|(i, &(_, b))| (i, b))
            .collect();
        let (jg, _) = SparsityPattern::from_triplets(pairs.len(), n, &g).map_err(bad)?;
        let (jh, _) = SparsityPattern::from_triplets(pairs.len(), n, &h).map_err(bad)?;
        Ok(VariablePairs { n, pairs, jg, jh })
    }
    /// The pairs.
    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }
}

impl Complementarity for VariablePairs {
    fn n_pairs(&self) -> usize {
        self.pairs.len()
    }
    fn n(&self) -> usize {
        self.n
    }
    fn g_jacobian_pattern(&self) -> &SparsityPattern {
        &self.jg
    }
    fn h_jacobian_pattern(&self) -> &SparsityPattern {
        &self.jh
    }
    fn eval(&self, x: &[f64], _p: &[f64], g: &mut [f64], h: &mut [f64]) -> Result<(), EvalError> {
        for (i, &(a, b)) in self.pairs.iter().enumerate() {
            g[i] = x[a];
            h[i] = x[b];
        }
        Ok(())
    }
    fn eval_jac(
        &self,
        _x: &[f64],
        _p: &[f64],
        jg: &mut [f64],
        jh: &mut [f64],
    ) -> Result<(), EvalError> {
        jg.fill(1.0);
        jh.fill(1.0);
        Ok(())
    }
    fn g_as_variable(&self, i: usize) -> Option<usize> {
        Some(self.pairs[i].0)
    }
    fn h_as_variable(&self, i: usize) -> Option<usize> {
        Some(self.pairs[i].1)
    }
}

/// Check the dimensions and patterns of an NLP (called once when a solver is built).
pub fn validate_nlp(nlp: &dyn Nlp) -> Result<(), SolverError> {
    let (n, m) = (nlp.n(), nlp.m());
    let bad = |s: String| Err(SolverError::InvalidProblem(s));
    let j = nlp.jacobian_pattern();
    if j.nrows() != m || j.ncols() != n {
        return bad(format!(
            "Jacobian pattern is {}x{}, expected {m}x{n}",
            j.nrows(),
            j.ncols()
        ));
    }
    let h = nlp.hessian_pattern();
    if h.nrows() != n || h.ncols() != n {
        return bad(format!(
            "Hessian pattern is {}x{}, expected {n}x{n}",
            h.nrows(),
            h.ncols()
        ));
    }
    if !h.is_lower_triangular() {
        return bad("Hessian pattern must be lower triangular".into());
    }
    Ok(())
}

//! Stationarity certificate of an MPCC point (formulation §10.8): which of the MPCC
//! stationarity concepts (S, B, M, C, weak) the point returned by the homotopy satisfies, and,
//! where it is not B-stationary, one branch NLP (BNLP) solve along the descent direction found.
//!
//! At a feasible `x*` the pairs split into `I_G = {G_i = 0 < H_i}`, `I_H = {H_i = 0 < G_i}` and
//! the biactive `I_0 = {G_i = H_i = 0}` (within `active_tol`). With the active rows and bounds
//! written as `c(x) >= 0` (columns `a = ∇c`, multipliers `μ >= 0`; equalities free) the MPCC
//! Lagrangian stationarity is
//!
//! ```text
//! ∇f = Σ μ_c a_c + Σ_{i ∈ I_G ∪ I_0} ν_G,i ∇G_i + Σ_{i ∈ I_H ∪ I_0} ν_H,i ∇H_i
//! ```
//! with `ν_G` free on `I_G`, `ν_H` free on `I_H`. On `I_0`: S if `ν_G, ν_H >= 0`, M if
//! `ν_G ν_H = 0` or both `> 0`, C if `ν_G ν_H >= 0`, weak without condition. B-stationarity is
//! checked branch by branch: every assignment of each biactive pair to `G_i = 0, H_i >= 0` or
//! `H_i = 0, G_i >= 0` must admit multipliers with the branch's signs (`ν_H >= 0` resp.
//! `ν_G >= 0`). By LP duality that is the same as `d = 0` solving the linearised branch problem;
//! a branch without multipliers gives the descent direction `d = -r` (the residual of the
//! sign-constrained least-squares fit, `∇fᵀd = -|r|²`).
//!
//! Each existence question is a sign-constrained least-squares problem `min |∇f - A y|`. Its
//! large part (equalities, one-sided pairs, strictly active inequalities) is projected out once
//! with the sparse LDLᵀ of `[I A_c; A_cᵀ -δI]` ([`Kkt`]); what is left is a small dense problem
//! over the biactive multipliers and the weakly active inequalities, solved by an active-set
//! method (Lawson–Hanson with free variables) for every sign pattern (2^|I_0| branches). The
//! strictly active inequalities are checked afterwards; one whose multiplier would have to
//! change sign joins the dense part and the check is repeated.

use super::certificate::{Certificate, DescentStep, Stationarity, StationaritySettings};
use super::least_squares::{dot, Dense, PatternOut, Projection, Sign};
use super::{HomotopyStep, MpccResult, MpccSolver};
use crate::ad::SparsityPattern;
use crate::solver::error::SolverError;
use crate::solver::ipm::IpmStart;
use crate::solver::kkt::{Factor, Kkt};
use crate::solver::nlp::{Complementarity, Nlp, INF_BOUND};
use crate::solver::status::Status;
use std::time::Instant;

/// Which side(s) of a pair are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PairState {
    /// `G_i = 0 < H_i`.
    G,
    /// `H_i = 0 < G_i`.
    H,
    /// Biactive.
    Both,
}

/// The sign of a column's multiplier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Equality row, fixed variable, the zero side of a one-sided pair.
    Free,
    /// Active inequality row or bound (`c(x) >= 0`).
    Nonneg,
    /// `∇G_i` of biactive pair `i`.
    BiG(usize),
    /// `∇H_i` of biactive pair `i`.
    BiH(usize),
}

/// The active columns (normalised to unit length) in compressed form.
struct Columns {
    kind: Vec<Kind>,
    ptr: Vec<usize>,
    idx: Vec<usize>,
    val: Vec<f64>,
}

impl Columns {
    fn new() -> Columns {
        Columns {
            kind: Vec::new(),
            ptr: vec![0],
            idx: Vec::new(),
            val: Vec::new(),
        }
    }

    fn push(&mut self, kind: Kind, entries: impl Iterator<Item = (usize, f64)>) {
        let start = self.idx.len();
        for (j, v) in entries {
            self.idx.push(j);
            self.val.push(v);
        }
        let norm = self.val[start..].iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm > 0.0 && norm.is_finite() {
            for v in &mut self.val[start..] {
                *v /= norm;
            }
        }
        self.kind.push(kind);
        self.ptr.push(self.idx.len());
    }

    fn len(&self) -> usize {
        self.kind.len()
    }

    fn col(&self, c: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.ptr[c]..self.ptr[c + 1];
        self.idx[r.clone()]
            .iter()
            .copied()
            .zip(self.val[r].iter().copied())
    }
}

/// Least-squares fit of `∇f` on the core columns `core` with the regularised augmented system,
/// and of every dense column.
fn project(
    cols: &Columns,
    core: &[usize],
    dense: &[usize],
    grad: &[f64],
) -> Result<Projection, String> {
    let n = grad.len();
    let mut trip = Vec::new();
    let mut vals = Vec::new();
    for (r, &c) in core.iter().enumerate() {
        for (j, v) in cols.col(c) {
            trip.push((r, j));
            vals.push(v);
        }
    }
    let (jac, map) = SparsityPattern::from_triplets(core.len(), n, &trip)
        .map_err(|e| format!("pattern of the active columns: {e}"))?;
    let mut jv = vec![0.0; jac.nnz()];
    for (t, &v) in vals.iter().enumerate() {
        jv[map[t]] += v;
    }
    let mut kkt = Kkt::new(&SparsityPattern::empty(n, n), &jac).map_err(|e| e.to_string())?;
    // Columns are normalised, so one small Tikhonov term fits all (rank-deficient sets of
    // active columns, e.g. degenerate equalities, stay solvable).
    let delta = 1e-12;
    let ones = vec![1.0; n];
    let dc = vec![delta; core.len()];
    let fixed = vec![false; n];
    kkt.assemble(None, &jv, &ones, &dc, 0.0, &fixed);
    match kkt.factor() {
        Factor::Ok { zero: 0, .. } => {}
        _ => return Err("the least-squares system of the active columns is singular".into()),
    }
    let dim = n + core.len();
    let mut rhs = vec![0.0; dim];
    let mut sol = vec![0.0; dim];
    let mut solve = |b: &dyn Fn(&mut [f64])| -> Result<(Vec<f64>, Vec<f64>), String> {
        rhs.fill(0.0);
        b(&mut rhs[..n]);
        kkt.solve(&rhs, &mut sol, 10)
            .ok_or_else(|| "the least-squares solve is not finite".to_string())?;
        Ok((sol[..n].to_vec(), sol[n..].to_vec()))
    };
    let (r0, mu0) = solve(&|b| b.copy_from_slice(grad))?;
    let mut q = Vec::with_capacity(dense.len());
    let mut k = Vec::with_capacity(dense.len());
    for &s in dense {
        let (qs, ks) = solve(&|b| {
            for (j, v) in cols.col(s) {
                b[j] += v;
            }
        })?;
        q.push(qs);
        k.push(ks);
    }
    Ok(Projection { r0, mu0, q, k })
}

/// What [`check`] found: the certificate and, where a descent direction was found, the branch
/// (per biactive pair the `fix` code of [`RelaxedStructure::fix`](super::RelaxedStructure): 1
/// fix `G_i = 0`, 2 fix `H_i = 0`) and its slope.
pub(super) struct Found {
    pub cert: Certificate,
    pub branch: Option<(Vec<(usize, u8)>, f64)>,
    /// The weak fit failed (a larger activity threshold may help).
    pub not_weak: bool,
}

/// The relaxed NLP's multipliers at the point (as [`MpccSolver::duals`] gives them) and its
/// structure (rows of the pairs, σ).
#[derive(Clone, Copy)]
pub(super) struct Duals<'a> {
    pub lam: &'a [f64],
    pub zl: &'a [f64],
    pub zu: &'a [f64],
    pub structure: &'a super::RelaxedStructure,
}

/// One round of the dense analysis (a fixed split into core and dense columns).
struct Round<'a> {
    cols: &'a Columns,
    core: Vec<usize>,
    dense: Vec<usize>,
    proj: Projection,
    dm: Dense,
    /// Per biactive pair (pair index): the dense variables of `∇G_i` and `∇H_i`.
    bi: Vec<(usize, usize, usize)>,
    /// Dense variables of weakly active inequalities.
    weak_ineq: Vec<usize>,
    theta_mu: f64,
    patterns: usize,
    /// Core inequality columns whose multiplier turned negative in an accepted pattern.
    violated: Vec<usize>,
}

impl Round<'_> {
    /// Solve a pattern given the signs of the biactive variables (the weakly active
    /// inequalities are `>= 0`).
    fn pattern(&mut self, bi_signs: &[(Sign, Sign)]) -> PatternOut {
        let mut signs = vec![Sign::Pos; self.dense.len()];
        for (&(_, sgv, shv), &(a, b)) in self.bi.iter().zip(bi_signs) {
            signs[sgv] = a;
            signs[shv] = b;
        }
        for &w in &self.weak_ineq {
            signs[w] = Sign::Pos;
        }
        self.patterns += 1;
        self.dm.solve(&signs)
    }

    /// True if the pattern's multipliers keep the core inequalities' signs; otherwise the
    /// offending columns are recorded.
    fn core_ok(&mut self, out: &PatternOut) -> bool {
        let mut ok = true;
        for (ci, &c) in self.core.iter().enumerate() {
            if self.cols.kind[c] != Kind::Nonneg {
                continue;
            }
            let mut mu = self.proj.mu0[ci];
            for s in 0..self.dense.len() {
                if out.y[s] != 0.0 && self.dm.qn[s] > 0.0 {
                    mu -= out.y[s] / self.dm.qn[s] * self.proj.k[s][ci];
                }
            }
            if mu < -self.theta_mu {
                ok = false;
                if !self.violated.contains(&c) {
                    self.violated.push(c);
                }
            }
        }
        ok
    }

    /// The biactive multipliers `(pair, ν_G, ν_H)` of a pattern solution, in the units of the
    /// original (unnormalised) gradients.
    fn nu(&self, out: &PatternOut, norms: &[f64]) -> Vec<(usize, f64, f64)> {
        self.bi
            .iter()
            .map(|&(i, a, b)| {
                let v = |s: usize| {
                    let c = self.dense[s];
                    if self.dm.qn[s] > 0.0 && norms[c] > 0.0 {
                        out.y[s] / self.dm.qn[s] / norms[c]
                    } else {
                        0.0
                    }
                };
                (i, v(a), v(b))
            })
            .collect()
    }
}

/// The stationarity certificate of `x` (no descent step): `comp_tol` is the homotopy's
/// tolerance (for the default activity threshold), `deadline` the time budget. Where the point
/// is not weakly stationary with the activity threshold `τ`, constraints and pair sides a
/// little farther from zero carry multipliers (a homotopy stopped on `max G_i H_i`, or an
/// inexact relaxed solve): the check is repeated with `10 τ` and `100 τ` (at most 1e-3), and the
/// certificate names the threshold it used. `duals`: the relaxed NLP's multipliers at `x`, if
/// known (a witness of S where they fit).
#[allow(clippy::too_many_arguments)]
pub(super) fn check(
    nlp: &dyn Nlp,
    comp: &dyn Complementarity,
    p: &[f64],
    x: &[f64],
    comp_tol: f64,
    settings: &StationaritySettings,
    deadline: Instant,
    duals: Option<Duals<'_>>,
) -> Result<Found, SolverError> {
    let t0 = Instant::now();
    let mut tau = settings.active_tol_for(comp_tol);
    loop {
        let mut found = check_at(nlp, comp, p, x, tau, settings, deadline, duals)?;
        let next = (10.0 * tau).min(1e-3);
        if !found.not_weak || next <= tau || settings.active_tol > 0.0 || Instant::now() > deadline
        {
            found.cert.time_s = t0.elapsed().as_secs_f64();
            return Ok(found);
        }
        tau = next;
    }
}

/// [`check`] with the activity threshold `tau`.
#[allow(clippy::too_many_arguments)]
fn check_at(
    nlp: &dyn Nlp,
    comp: &dyn Complementarity,
    p: &[f64],
    x: &[f64],
    tau: f64,
    settings: &StationaritySettings,
    deadline: Instant,
    duals: Option<Duals<'_>>,
) -> Result<Found, SolverError> {
    let t0 = Instant::now();
    let (n, m, k) = (nlp.n(), nlp.m(), comp.n_pairs());
    SolverError::check_dim("x", n, x.len())?;
    SolverError::check_dim("complementarity n", n, comp.n())?;
    let unknown = |why: String| {
        let mut cert = Certificate::unknown(why, t0);
        cert.active_tol = tau;
        Ok(Found {
            cert,
            branch: None,
            not_weak: false,
        })
    };
    // values and derivatives at x
    let (mut xl, mut xu, mut gl, mut gu) = (vec![0.0; n], vec![0.0; n], vec![0.0; m], vec![0.0; m]);
    nlp.bounds(&mut xl, &mut xu, &mut gl, &mut gu);
    let mut grad = vec![0.0; n];
    let mut g = vec![0.0; m];
    let jp = nlp.jacobian_pattern();
    let mut jv = vec![0.0; jp.nnz()];
    let (mut gv, mut hv) = (vec![0.0; k], vec![0.0; k]);
    let (pg, ph) = (comp.g_jacobian_pattern(), comp.h_jacobian_pattern());
    let (mut jg, mut jh) = (vec![0.0; pg.nnz()], vec![0.0; ph.nnz()]);
    let evaluated = nlp
        .eval_grad_f(x, p, &mut grad)
        .and_then(|()| nlp.eval_g(x, p, &mut g))
        .and_then(|()| nlp.eval_jac_g(x, p, &mut jv))
        .and_then(|()| comp.eval(x, p, &mut gv, &mut hv))
        .and_then(|()| comp.eval_jac(x, p, &mut jg, &mut jh));
    if let Err(e) = evaluated {
        return unknown(format!("evaluation failed at the point: {e}"));
    }
    if grad
        .iter()
        .chain(&jv)
        .chain(&jg)
        .chain(&jh)
        .any(|v| !v.is_finite())
    {
        return unknown("non-finite derivatives at the point".into());
    }
    // pairs
    let mut state = Vec::with_capacity(k);
    for i in 0..k {
        let (a, b) = (gv[i], hv[i]);
        if !(a >= -tau && b >= -tau && a.min(b) <= tau) {
            return unknown(format!(
                "pair {i} is not complementary at the point (G = {a:.3e}, H = {b:.3e})"
            ));
        }
        state.push(if a <= tau && b <= tau {
            PairState::Both
        } else if a <= tau {
            PairState::G
        } else {
            PairState::H
        });
    }
    // lower bounds that repeat an active pair side `G_i = x_j >= 0` are that side's column
    let mut skip_lower = vec![false; n];
    for (i, st) in state.iter().enumerate() {
        if matches!(st, PairState::G | PairState::Both) {
            if let Some(j) = comp.g_as_variable(i) {
                skip_lower[j] |= xl[j].abs() <= tau;
            }
        }
        if matches!(st, PairState::H | PairState::Both) {
            if let Some(j) = comp.h_as_variable(i) {
                skip_lower[j] |= xl[j].abs() <= tau;
            }
        }
    }
    // active columns (unnormalised norms kept for the multipliers' units)
    let (jt, jt_map) = jp.transpose();
    let (pgt, pg_map) = pg.transpose();
    let (pht, ph_map) = ph.transpose();
    let row = |r: usize, sign: f64| -> Vec<(usize, f64)> {
        let rg = jt.col_ptr()[r]..jt.col_ptr()[r + 1];
        jt.row_idx()[rg.clone()]
            .iter()
            .zip(&jt_map[rg])
            .map(|(&j, &t)| (j, sign * jv[t]))
            .collect()
    };
    let mut cols = Columns::new();
    let mut norms = Vec::new();
    // the homotopy's multipliers in the columns' terms (a witness where they fit)
    let mut prior_raw = Vec::new();
    let dl = |r: usize| duals.map_or(0.0, |d| d.lam[r]);
    let dzl = |j: usize| duals.map_or(0.0, |d| d.zl[j]);
    let dzu = |j: usize| duals.map_or(0.0, |d| d.zu[j]);
    let mut push = |cols: &mut Columns, kind: Kind, e: Vec<(usize, f64)>, mu: f64| {
        norms.push(e.iter().map(|(_, v)| v * v).sum::<f64>().sqrt());
        prior_raw.push(mu);
        cols.push(kind, e.into_iter());
    };
    let near = |v: f64, b: f64| (v - b).abs() <= tau * (1.0 + b.abs());
    for r in 0..m {
        let (lo, hi) = (gl[r] > -INF_BOUND, gu[r] < INF_BOUND);
        if lo && hi && gl[r] == gu[r] {
            push(&mut cols, Kind::Free, row(r, 1.0), -dl(r));
            continue;
        }
        if lo && (g[r] <= gl[r] || near(g[r], gl[r])) {
            push(&mut cols, Kind::Nonneg, row(r, 1.0), -dl(r));
        }
        if hi && (g[r] >= gu[r] || near(g[r], gu[r])) {
            push(&mut cols, Kind::Nonneg, row(r, -1.0), dl(r));
        }
    }
    for j in 0..n {
        let (lo, hi) = (xl[j] > -INF_BOUND, xu[j] < INF_BOUND);
        if lo && hi && xl[j] == xu[j] {
            push(&mut cols, Kind::Free, vec![(j, 1.0)], dzl(j) - dzu(j));
            continue;
        }
        if lo && !skip_lower[j] && (x[j] <= xl[j] || near(x[j], xl[j])) {
            push(&mut cols, Kind::Nonneg, vec![(j, 1.0)], dzl(j));
        }
        if hi && (x[j] >= xu[j] || near(x[j], xu[j])) {
            push(&mut cols, Kind::Nonneg, vec![(j, -1.0)], dzu(j));
        }
    }
    let pair_grad = |pt: &SparsityPattern, map: &[usize], vals: &[f64], i: usize| {
        let rg = pt.col_ptr()[i]..pt.col_ptr()[i + 1];
        pt.row_idx()[rg.clone()]
            .iter()
            .zip(&map[rg])
            .map(|(&j, &t)| (j, vals[t]))
            .collect::<Vec<_>>()
    };
    // ν_G = -λ_G (row) or z_L (variable) minus the product term w H (Scholtes: w = λ of
    // the product row; ℓ1 penalty: w = w_i/σ with the pair's penalty weight), ν_H likewise.
    // A variable that is a side of several pairs has one bound multiplier: it goes to the
    // first active side using it.
    let mut nu_priors = vec![(0.0, 0.0); k];
    if let Some(d) = duals {
        let mut claimed = vec![false; n];
        let mut side = |row: Option<usize>, var: Option<usize>, active: bool| match (row, var) {
            (Some(r), _) => -d.lam[r],
            (None, Some(j)) if active && !claimed[j] => {
                claimed[j] = true;
                // z_U of a side without an upper bound of its own: polishing fixed it at 0
                d.zl[j] - if xu[j] < INF_BOUND { 0.0 } else { d.zu[j] }
            }
            (None, _) => 0.0,
        };
        for i in 0..k {
            let (rg, rh, rp) = d.structure.pair_rows(i);
            let w = match rp {
                Some(r) => d.lam[r],
                None => d.structure.penalty_weights()[i] / d.structure.sigma,
            };
            let g_act = matches!(state[i], PairState::G | PairState::Both);
            let h_act = matches!(state[i], PairState::H | PairState::Both);
            nu_priors[i] = (
                side(rg, comp.g_as_variable(i), g_act) - w * hv[i],
                side(rh, comp.h_as_variable(i), h_act) - w * gv[i],
            );
        }
    }
    let mut biactive = Vec::new();
    for (i, st) in state.iter().enumerate() {
        let ggi = pair_grad(&pgt, &pg_map, &jg, i);
        let ghi = pair_grad(&pht, &ph_map, &jh, i);
        let (pg_i, ph_i) = nu_priors[i];
        match st {
            PairState::G => push(&mut cols, Kind::Free, ggi, pg_i),
            PairState::H => push(&mut cols, Kind::Free, ghi, ph_i),
            PairState::Both => {
                biactive.push(i);
                push(&mut cols, Kind::BiG(i), ggi, pg_i);
                push(&mut cols, Kind::BiH(i), ghi, ph_i);
            }
        }
    }
    let nb = biactive.len();
    let p_cols = cols.len();
    // The homotopy's multipliers as a witness of S: they have the signs of the relaxed NLP;
    // where they also fit the MPCC Lagrangian on the active set, the point is S-stationary.
    if duals.is_some() && settings.homotopy_witness {
        let mut prior: Vec<f64> = prior_raw
            .iter()
            .zip(&norms)
            .map(|(&mu, &w)| if mu.is_finite() { mu * w } else { f64::NAN })
            .collect();
        // A variable's own column (bound, fixed variable, pair side x_j) is refitted to the
        // residual of its component: the IPM drops the multipliers of variables fixed by their
        // bounds (those of the polishing step).
        let mut unit = vec![usize::MAX; n];
        for c in 0..p_cols {
            if cols.ptr[c + 1] - cols.ptr[c] == 1 {
                let j = cols.idx[cols.ptr[c]];
                unit[j] = if unit[j] == usize::MAX {
                    c
                } else {
                    usize::MAX - 1
                };
            }
        }
        let mut r = grad.clone();
        for (c, &mu) in prior.iter().enumerate() {
            if cols.ptr[c + 1] - cols.ptr[c] == 1 && unit[cols.idx[cols.ptr[c]]] == c {
                continue;
            }
            for (j, v) in cols.col(c) {
                r[j] -= mu * v;
            }
        }
        for j in 0..n {
            let c = unit[j];
            if c < usize::MAX - 1 {
                let a = cols.val[cols.ptr[c]];
                prior[c] = r[j] / a;
                prior_raw[c] = prior[c] / norms[c].max(f64::MIN_POSITIVE);
                r[j] = 0.0;
            }
        }
        let scale = 1.0
            + grad
                .iter()
                .chain(prior.iter())
                .fold(0.0f64, |a, v| a.max(v.abs()));
        let res = r.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let theta = settings.tol * scale;
        let signed = (0..p_cols).all(|c| cols.kind[c] == Kind::Free || prior[c] >= -theta);
        if res <= theta && signed {
            let mut cert = Certificate::unknown(String::new(), t0);
            cert.verdict = Stationarity::S;
            cert.b_stationary = Some(true);
            cert.biactive = nb;
            cert.active_columns = p_cols;
            cert.active_tol = tau;
            cert.residual = res / scale;
            cert.witness = "homotopy".into();
            cert.biactive_multipliers = biactive
                .iter()
                .map(|&i| {
                    let v = |kind: Kind| {
                        (0..p_cols)
                            .find(|&c| cols.kind[c] == kind)
                            .map_or(0.0, |c| prior_raw[c])
                    };
                    (i, v(Kind::BiG(i)), v(Kind::BiH(i)))
                })
                .collect();
            return Ok(Found {
                cert,
                branch: None,
                not_weak: false,
            });
        }
    }
    // every column free: a lower bound of the weak residual, the scale of the multipliers,
    // and with the right signs a witness of S (for any number of biactive pairs)
    let all: Vec<usize> = (0..p_cols).collect();
    let free_fit = match project(&cols, &all, &[], &grad) {
        Ok(pr) => pr,
        Err(e) => return unknown(e),
    };
    let est = &free_fit.mu0;
    // the scale of the stationarity residual: the largest term of `∇f = Σ μ a` (unit columns),
    // as IPOPT scales its dual infeasibility by the multipliers' size
    let gscale = 1.0
        + grad
            .iter()
            .chain(est.iter())
            .fold(0.0f64, |a, v| a.max(v.abs()));
    let theta_weak = settings.tol * gscale;
    let free_res = free_fit.r0.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let mut base = Certificate::unknown(String::new(), t0);
    base.biactive = nb;
    base.active_columns = p_cols;
    base.active_tol = tau;
    base.residual = free_res / gscale;
    if free_res > theta_weak {
        base.reason = format!(
            "not weakly stationary at the tolerance (relative residual {:.1e})",
            base.residual
        );
        return Ok(Found {
            cert: base,
            branch: None,
            not_weak: true,
        });
    }
    let signed_ok = (0..p_cols).all(|c| cols.kind[c] == Kind::Free || est[c] >= -theta_weak);
    if signed_ok {
        base.witness = "least_squares".into();
        base.verdict = Stationarity::S;
        base.b_stationary = Some(true);
        base.biactive_multipliers = biactive
            .iter()
            .map(|&i| {
                let v = |kind: Kind| {
                    let c = (0..p_cols).find(|&c| cols.kind[c] == kind);
                    c.map_or(0.0, |c| {
                        if norms[c] > 0.0 {
                            est[c] / norms[c]
                        } else {
                            0.0
                        }
                    })
                };
                (i, v(Kind::BiG(i)), v(Kind::BiH(i)))
            })
            .collect();
        return Ok(Found {
            cert: base,
            branch: None,
            not_weak: false,
        });
    }
    if 2 * nb > settings.max_dense {
        base.reason = format!(
            "{nb} biactive pairs exceed the dense limit (max_dense = {}) and the least-squares multipliers are not a witness of S",
            settings.max_dense
        );
        return Ok(Found {
            cert: base,
            branch: None,
            not_weak: false,
        });
    }
    // initial split: inequalities with small multipliers go dense
    let tw = 1e-4 * gscale;
    let mut weakly: Vec<(f64, usize)> = (0..p_cols)
        .filter(|&c| cols.kind[c] == Kind::Nonneg && !(est[c] > tw))
        .map(|c| (est[c], c))
        .collect();
    weakly.sort_by(|a, b| a.0.total_cmp(&b.0));
    weakly.truncate(settings.max_dense - 2 * nb);
    let mut weak_set: Vec<usize> = weakly.into_iter().map(|(_, c)| c).collect();
    let mut last_reason = String::new();
    for _round in 0..8 {
        if Instant::now() > deadline {
            return unknown("time budget exceeded".into());
        }
        let mut in_dense = vec![false; p_cols];
        let mut dense = Vec::new();
        for &c in &weak_set {
            in_dense[c] = true;
        }
        for c in 0..p_cols {
            if matches!(cols.kind[c], Kind::BiG(_) | Kind::BiH(_)) {
                in_dense[c] = true;
            }
        }
        for c in 0..p_cols {
            if in_dense[c] {
                dense.push(c);
            }
        }
        let core: Vec<usize> = (0..p_cols).filter(|&c| !in_dense[c]).collect();
        let proj = match project(&cols, &core, &dense, &grad) {
            Ok(pr) => pr,
            Err(e) => return unknown(e),
        };
        let dm = Dense::new(&proj);
        let mut bi = Vec::with_capacity(nb);
        for &i in &biactive {
            let a = dense.iter().position(|&c| cols.kind[c] == Kind::BiG(i));
            let b = dense.iter().position(|&c| cols.kind[c] == Kind::BiH(i));
            if let (Some(a), Some(b)) = (a, b) {
                bi.push((i, a, b));
            }
        }
        let weak_ineq: Vec<usize> = (0..dense.len())
            .filter(|&s| cols.kind[dense[s]] == Kind::Nonneg)
            .collect();
        let mu_scale = 1.0 + proj.mu0.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let mut rd = Round {
            cols: &cols,
            core,
            dense,
            proj,
            dm,
            bi,
            weak_ineq,
            theta_mu: settings.tol * mu_scale,
            patterns: 0,
            violated: Vec::new(),
        };
        let outcome = classify(&mut rd, &norms, settings, theta_weak, gscale, deadline);
        if !rd.violated.is_empty() && rd.dense.len() + rd.violated.len() <= settings.max_dense {
            // a core inequality would need the wrong sign: move it to the dense part, repeat
            last_reason = format!(
                "{} strictly active inequalities changed sign",
                rd.violated.len()
            );
            weak_set.extend(rd.violated.iter().copied());
            continue;
        }
        let mut cert = outcome.cert;
        cert.biactive = nb;
        cert.active_columns = p_cols;
        cert.dense_columns = rd.dense.len();
        cert.patterns = rd.patterns;
        if !rd.violated.is_empty() {
            cert.verdict = Stationarity::Unknown;
            cert.b_stationary = None;
            cert.reason = "the dense limit was reached while inequalities changed sign".into();
        }
        cert.time_s = t0.elapsed().as_secs_f64();
        cert.active_tol = tau;
        return Ok(Found {
            cert,
            branch: outcome.branch,
            not_weak: outcome.not_weak,
        });
    }
    unknown(format!(
        "no consistent active set after 8 rounds ({last_reason})"
    ))
}

/// Classify with the dense problem of one round.
fn classify(
    rd: &mut Round<'_>,
    norms: &[f64],
    settings: &StationaritySettings,
    theta_weak: f64,
    gscale: f64,
    deadline: Instant,
) -> Found {
    let nb = rd.bi.len();
    let t0 = Instant::now();
    let mut cert = Certificate::unknown(String::new(), t0);
    // weak: biactive multipliers free
    let weak = rd.pattern(&vec![(Sign::Free, Sign::Free); nb]);
    cert.residual = weak.res / gscale;
    cert.biactive_multipliers = rd.nu(&weak, norms);
    if weak.res > theta_weak {
        cert.reason = format!(
            "not weakly stationary at the tolerance (relative residual {:.1e})",
            cert.residual
        );
        return Found {
            cert,
            branch: None,
            not_weak: true,
        };
    }
    let theta = theta_weak.max(10.0 * weak.res);
    // A core inequality whose multiplier must change sign makes this round's answers
    // unreliable: stop, the caller moves it to the dense part and repeats.
    let retry = |cert: Certificate| Found {
        cert,
        branch: None,
        not_weak: false,
    };
    if !rd.core_ok(&weak) {
        return retry(cert);
    }
    let holds = |rd: &mut Round<'_>, out: &PatternOut| out.res <= theta && rd.core_ok(out);
    // S
    let s = rd.pattern(&vec![(Sign::Pos, Sign::Pos); nb]);
    let s_holds = holds(rd, &s);
    if !rd.violated.is_empty() {
        return retry(cert);
    }
    if s_holds {
        cert.verdict = Stationarity::S;
        cert.witness = "dense".into();
        cert.b_stationary = Some(true);
        return Found {
            cert,
            branch: None,
            not_weak: false,
        };
    }
    // B: the branches, the candidate of the weak multipliers' signs first
    let nu = cert.biactive_multipliers.clone();
    let mut cand = vec![false; nb]; // true: the H branch (H_i = 0, G_i >= 0)
    for (b, &(_, vg, vh)) in cand.iter_mut().zip(&nu) {
        *b = vg.min(vh) < 0.0 && vg < vh;
    }
    let branch_signs = |bits: &[bool]| -> Vec<(Sign, Sign)> {
        bits.iter()
            .map(|&h| {
                if h {
                    (Sign::Pos, Sign::Free)
                } else {
                    (Sign::Free, Sign::Pos)
                }
            })
            .collect()
    };
    // all 2^k branches, or with more pairs the candidate and its k one-pair flips
    let enumerate = nb <= settings.max_biactive.min(20);
    let count: u64 = if enumerate { 1u64 << nb } else { nb as u64 + 1 };
    let mut b_state: Option<bool> = Some(true);
    let mut descent: Option<(Vec<bool>, f64)> = None;
    let mut timed_out = false;
    for idx in 0..count {
        if idx % 64 == 63 && Instant::now() > deadline {
            timed_out = true;
            break;
        }
        let bits: Vec<bool> = if enumerate {
            (0..nb).map(|i| cand[i] ^ ((idx >> i) & 1 == 1)).collect()
        } else {
            (0..nb).map(|i| cand[i] ^ (idx == i as u64 + 1)).collect()
        };
        let out = rd.pattern(&branch_signs(&bits));
        let ok = holds(rd, &out);
        if !rd.violated.is_empty() {
            return retry(cert);
        }
        if ok {
            continue;
        }
        if out.res > theta && out.optimal {
            // -r is a feasible descent direction of this branch's linearisation
            let slope = dot(&out.r, &out.r).sqrt();
            descent = Some((bits, slope));
            b_state = Some(false);
            break;
        }
        b_state = None;
    }
    if timed_out && b_state == Some(true) {
        b_state = None;
    }
    if !enumerate && b_state == Some(true) {
        b_state = None;
    }
    cert.b_stationary = b_state;
    let branch = descent.map(|(bits, slope)| {
        let fix = rd
            .bi
            .iter()
            .zip(&bits)
            .map(|(&(i, _, _), &h)| (i, if h { 2u8 } else { 1u8 }))
            .collect();
        (fix, slope)
    });
    if b_state == Some(true) {
        cert.verdict = Stationarity::B;
        return Found {
            cert,
            branch: None,
            not_weak: false,
        };
    }
    // M, then C (existence of one multiplier with the signs); enumerated when small
    let m_enum = enumerate && nb <= 9;
    let mut m_holds = false;
    if m_enum {
        let total = 3u64.pow(nb as u32);
        for idx in 0..total {
            if idx % 64 == 63 && Instant::now() > deadline {
                timed_out = true;
                break;
            }
            let mut t = idx;
            let signs: Vec<(Sign, Sign)> = (0..nb)
                .map(|_| {
                    let d = t % 3;
                    t /= 3;
                    match d {
                        0 => (Sign::Pos, Sign::Pos),
                        1 => (Sign::Zero, Sign::Free),
                        _ => (Sign::Free, Sign::Zero),
                    }
                })
                .collect();
            let out = rd.pattern(&signs);
            let ok = holds(rd, &out);
            if !rd.violated.is_empty() {
                return retry(cert);
            }
            if ok {
                m_holds = true;
                break;
            }
        }
    } else {
        let tol_nu = settings.tol
            * (1.0
                + nu.iter()
                    .fold(0.0f64, |a, v| a.max(v.1.abs()).max(v.2.abs())));
        m_holds = nu
            .iter()
            .all(|&(_, a, b)| a.abs() <= tol_nu || b.abs() <= tol_nu || (a > 0.0 && b > 0.0));
    }
    let mut c_holds = m_holds;
    if !c_holds {
        if enumerate {
            for idx in 0..count {
                if idx % 64 == 63 && Instant::now() > deadline {
                    timed_out = true;
                    break;
                }
                let signs: Vec<(Sign, Sign)> = (0..nb)
                    .map(|i| {
                        if (idx >> i) & 1 == 1 {
                            (Sign::Neg, Sign::Neg)
                        } else {
                            (Sign::Pos, Sign::Pos)
                        }
                    })
                    .collect();
                let out = rd.pattern(&signs);
                let ok = holds(rd, &out);
                if !rd.violated.is_empty() {
                    return retry(cert);
                }
                if ok {
                    c_holds = true;
                    break;
                }
            }
        } else {
            let tol_nu = settings.tol
                * (1.0
                    + nu.iter()
                        .fold(0.0f64, |a, v| a.max(v.1.abs()).max(v.2.abs())));
            c_holds = nu.iter().all(|&(_, a, b)| a * b >= -tol_nu * tol_nu);
        }
    }
    if b_state.is_none() {
        cert.verdict = Stationarity::Unknown;
        cert.reason = if timed_out {
            "time budget exceeded".into()
        } else if !enumerate {
            format!(
                "{nb} biactive pairs: more than max_biactive = {} to enumerate, and no candidate branch shows descent",
                settings.max_biactive
            )
        } else {
            "a branch could not be decided numerically".into()
        };
        return Found {
            cert,
            branch,
            not_weak: false,
        };
    }
    cert.verdict = if m_holds {
        Stationarity::M
    } else if c_holds {
        Stationarity::C
    } else {
        Stationarity::Weak
    };
    if timed_out || !m_enum {
        cert.reason = if timed_out {
            "time budget exceeded while checking M and C (verdict from the weak multipliers)".into()
        } else {
            format!("M and C from the weak multipliers only ({nb} biactive pairs)")
        };
    }
    Found {
        cert,
        branch,
        not_weak: false,
    }
}

impl MpccSolver {
    /// Certify the stationarity of `out.x` (formulation §10.8) and record it in
    /// `out.certificate`; where the point is not B-stationary and
    /// [`StationaritySettings::descent_step`] is on, solve the branch NLP of the descent
    /// direction from it (the pairs fixed as in that branch) and keep its solution when it is
    /// feasible, complementary and lower; the point kept is certified again. `out` is a result
    /// of this solver (normally of its last solve, whose multipliers warm-start the BNLP). Runs
    /// after the homotopy and allocates; the MPC tick path does not call it.
    pub fn certify(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        out: &mut MpccResult,
        settings: &StationaritySettings,
    ) -> Result<(), SolverError> {
        let t0 = Instant::now();
        self.relaxed.check(nlp, comp)?;
        let budget = settings
            .min_time
            .max(settings.time_ratio * out.time_s)
            .max(0.0);
        let deadline = t0 + std::time::Duration::from_secs_f64(budget.min(1e6));
        if out.status != Status::Solved || out.x.len() != self.x.len() {
            let mut c = Certificate::unknown("the homotopy did not solve the problem".into(), t0);
            c.time_s = t0.elapsed().as_secs_f64();
            out.certificate = Some(c);
            return Ok(());
        }
        let comp_tol = self.settings.comp_tol;
        let duals = self.duals_at(&out.x);
        let found = check(nlp, comp, p, &out.x, comp_tol, settings, deadline, duals)?;
        let mut cert = found.cert;
        if let (true, Some((bi_fix, slope))) = (settings.descent_step, found.branch) {
            let step = self.descent_step(nlp, comp, p, out, &bi_fix, slope, settings)?;
            if step.kept {
                let duals = self.duals_at(&out.x);
                let again = check(nlp, comp, p, &out.x, comp_tol, settings, deadline, duals)?;
                cert = again.cert;
            }
            cert.descent = Some(step);
        }
        cert.time_s = t0.elapsed().as_secs_f64();
        out.certificate = Some(cert);
        Ok(())
    }

    /// The multipliers of the kept solution when it is the point `x` (after a solve).
    fn duals_at(&self, x: &[f64]) -> Option<Duals<'_>> {
        (!self.steps.is_empty() && self.x == x).then_some(Duals {
            lam: &self.lam,
            zl: &self.zl,
            zu: &self.zu,
            structure: &self.relaxed,
        })
    }

    /// The BNLP solve of the branch `bi_fix` (biactive pair, fix code) from `out.x`.
    #[allow(clippy::too_many_arguments)]
    fn descent_step(
        &mut self,
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        p: &[f64],
        out: &mut MpccResult,
        bi_fix: &[(usize, u8)],
        slope: f64,
        settings: &StationaritySettings,
    ) -> Result<DescentStep, SolverError> {
        let ts = Instant::now();
        let st = self.settings.clone();
        let x0 = out.x.clone();
        let f_before = nlp.eval_f(&x0, p).unwrap_or(f64::NAN);
        // the branch: one-sided pairs keep their zero side, biactive ones the branch's
        self.residuals(comp, &x0, p);
        for i in 0..self.relaxed.n_pairs() {
            self.relaxed.fix[i] = if self.gv[i] <= self.hv[i] { 1 } else { 2 };
        }
        for &(i, f) in bi_fix {
            self.relaxed.fix[i] = f;
        }
        let (fix_g, fix_h) = (
            bi_fix.iter().filter(|b| b.1 == 1).map(|b| b.0).collect(),
            bi_fix.iter().filter(|b| b.1 == 2).map(|b| b.0).collect(),
        );
        let mut s = st.ipm.clone();
        s.mu_init = 1e-6;
        let budget = settings.min_time.max(settings.time_ratio * out.time_s);
        s.max_wall_time = budget.min(st.ipm.max_wall_time).max(1e-3);
        self.ipm.set_settings(s)?;
        // warm start from the homotopy's multipliers when `out` is this solver's solution
        let warm = !self.steps.is_empty() && self.x == x0;
        let solved = if warm {
            let (lam, zl, zu) = (
                std::mem::take(&mut self.lam),
                std::mem::take(&mut self.zl),
                std::mem::take(&mut self.zu),
            );
            let r = self.ipm.solve(
                &self.relaxed.bind_unchecked(nlp, comp),
                p,
                IpmStart::Warm {
                    x: &x0,
                    lambda: &lam,
                    z_l: &zl,
                    z_u: &zu,
                },
            );
            self.lam = lam;
            self.zl = zl;
            self.zu = zu;
            r
        } else {
            self.ipm.solve(
                &self.relaxed.bind_unchecked(nlp, comp),
                p,
                IpmStart::Primal(&x0),
            )
        };
        self.relaxed.fix.fill(0);
        self.ipm.set_settings(st.ipm.clone())?;
        let status = solved?;
        // Objective, residual and time are filled in below.
        let mut step = HomotopyStep::of_ipm(0.0, status, self.ipm.info(), 0.0, 0.0);
        let iterations = step.iterations;
        let xn = self.ipm.solution().x.to_vec();
        let f_after = nlp.eval_f(&xn, p).unwrap_or(f64::NAN);
        let (rmin, rprod, neg) = self.residuals(comp, &xn, p);
        let r_stop = self.stop_of(rmin, rprod);
        // feasibility of the original problem at the new point
        let saved = std::mem::replace(&mut self.x, xn.clone());
        let viol = self.original_violation(nlp, p).max(neg);
        self.x = saved;
        let keep = status.is_success()
            && r_stop <= st.comp_tol
            && viol <= out.max_constraint_violation.max(1e-6)
            && f_after < f_before - 1e-8 * (1.0 + f_before.abs());
        out.nlp_iterations += iterations;
        step.objective = f_after;
        step.comp_residual = rmin;
        step.time_s = ts.elapsed().as_secs_f64();
        out.steps.push(step);
        if keep {
            self.save_solution();
            out.x.copy_from_slice(&self.x);
            out.objective = f_after;
            out.comp_residual = rmin;
            out.comp_residual_product = rprod;
            out.max_constraint_violation = viol;
        }
        Ok(DescentStep {
            fix_g,
            fix_h,
            slope,
            status,
            iterations,
            objective_before: f_before,
            objective_after: f_after,
            kept: keep,
            time_s: ts.elapsed().as_secs_f64(),
        })
    }
}

/// The certificate of an arbitrary point `x` of the MPCC (no solver, no descent step), e.g.
/// to check a point of another solver. `comp_tol` sets the default activity threshold
/// (`√comp_tol`); the time budget is `settings.min_time`.
pub fn certify_point(
    nlp: &dyn Nlp,
    comp: &dyn Complementarity,
    p: &[f64],
    x: &[f64],
    comp_tol: f64,
    settings: &StationaritySettings,
) -> Result<Certificate, SolverError> {
    let deadline =
        Instant::now() + std::time::Duration::from_secs_f64(settings.min_time.clamp(0.0, 1e6));
    Ok(check(nlp, comp, p, x, comp_tol, settings, deadline, None)?.cert)
}

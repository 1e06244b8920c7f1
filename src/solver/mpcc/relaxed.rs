//! The relaxed NLP of an MPCC (formulation §5.2): the original problem plus, for every pair,
//! `G_i >= 0`, `H_i >= 0` (as bounds when `G_i`/`H_i` is a variable, else as rows) and
//!
//! * Scholtes: a row `G_i H_i <= σ`;
//! * ℓ1 penalty: the term `ρ Σ w_i G_i H_i` (ρ = 1/σ, pair weights `w_i`, 1 unless set with
//!   [`RelaxedStructure::set_penalty_weights`]) added to the objective.
//!
//! Bounds are never relaxed. For polishing, chosen `G_i` or `H_i` can be fixed to zero.
//!
//! [`RelaxedStructure`] holds what is computed once (rows, patterns, scatter maps, σ, the fixed
//! sides, evaluation scratch) and owns no problem; [`RelaxedNlp`] is that structure together
//! with the NLP and complementarity functions it was built for, the NLP the IPM solves.

use crate::ad::SparsityPattern;
use crate::solver::error::{EvalError, SolverError};
use crate::solver::nlp::{Complementarity, Nlp};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// How the complementarity pairs are relaxed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relaxation {
    /// `G_i H_i <= σ` as constraints (default).
    Scholtes,
    /// `f + (1/σ) Σ G_i H_i`, no product constraints.
    L1Penalty,
}

struct Scratch {
    gv: Vec<f64>,
    hv: Vec<f64>,
    jg: Vec<f64>,
    jh: Vec<f64>,
    jo: Vec<f64>,
    ho: Vec<f64>,
    hc: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
}

/// Row or bound placement of one side of a pair.
#[derive(Clone, Copy, Debug)]
enum Side {
    Var(usize),
    Row(usize),
}

/// The structure of the relaxed NLP of an MPCC (rows, sparsity patterns, scatter maps), built
/// once from the problem's dimensions and patterns; σ and the fixed sides change between solves.
/// It borrows no problem: [`RelaxedStructure::bind`] pairs it with one.
pub struct RelaxedStructure {
    relaxation: Relaxation,
    /// Current relaxation parameter σ.
    pub sigma: f64,
    /// Per pair, bits: 1 fix G = 0, 2 fix H = 0 (3 both: polishing); 4 and 8 fix G (H)
    /// through its members ([`Complementarity::g_members`]: each member `x_j = 0`, the side's
    /// row left free) where the side is a row and a sum of variables with lower bound 0; the
    /// caller sets these bits only where that holds (see [`RelaxedStructure::fix_bits`]).
    pub fix: Vec<u8>,
    /// Per pair, sides fixed in every subproblem (same bits as `fix`, combined with them):
    /// an imposed contact schedule ([`MpccSolver::set_imposed_sides`](super::MpccSolver::set_imposed_sides)).
    pub imposed: Vec<u8>,
    /// Per pair, the weight `w_i` of its product in the ℓ1 penalty (1 by default; a product
    /// times 1 is exact, so unit weights leave every value as without weights).
    weights: Vec<f64>,
    /// Per pair, the members of G and of H (empty unless the side is a row and a sum).
    g_members: Vec<Vec<usize>>,
    h_members: Vec<Vec<usize>>,
    m0: usize,
    k: usize,
    g_side: Vec<Side>,
    h_side: Vec<Side>,
    n_rows: usize,
    prod_row0: usize,
    jac: SparsityPattern,
    hess: SparsityPattern,
    jmap_orig: Vec<usize>,
    jmap_g: Vec<(usize, usize)>,
    jmap_h: Vec<(usize, usize)>,
    jmap_prod_g: Vec<usize>,
    jmap_prod_h: Vec<usize>,
    jg_row: Vec<usize>,
    jh_row: Vec<usize>,
    hmap_orig: Vec<usize>,
    hmap_comp: Vec<usize>,
    cross: Vec<(usize, usize, usize, f64)>,
    scratch: RefCell<Scratch>,
    /// Dimensions of the problem it was built for (checked by `bind`): n, n_p, Jacobian and
    /// Hessian nonzeros of the NLP, nonzeros of ∇G, ∇H and of the pairs' Hessian.
    dims: [usize; 7],
}

/// The relaxed NLP: a [`RelaxedStructure`] with the NLP and complementarity functions it was
/// built for (see [`RelaxedStructure::bind`]).
#[derive(Clone, Copy)]
pub struct RelaxedNlp<'a> {
    s: &'a RelaxedStructure,
    nlp: &'a dyn Nlp,
    comp: &'a dyn Complementarity,
}

impl RelaxedStructure {
    /// Whether side `h` (false: G, true: H) of pair `i` can be fixed through its members: it is
    /// a row and a sum of variables whose lower bounds in `x_l` (the original NLP's) are 0.
    pub fn members_fixable(&self, i: usize, h: bool, x_l: &[f64]) -> bool {
        let m = if h {
            &self.h_members[i]
        } else {
            &self.g_members[i]
        };
        !m.is_empty() && m.iter().all(|&j| x_l.get(j) == Some(&0.0))
    }

    /// The `fix` bits that fix side `h` (false: G, true: H) of pair `i` to zero: through its
    /// members (4, 8) where [`RelaxedStructure::members_fixable`], the side itself (1, 2)
    /// otherwise.
    pub fn fix_bits(&self, i: usize, h: bool, x_l: &[f64]) -> u8 {
        match (h, self.members_fixable(i, h, x_l)) {
            (false, false) => 1,
            (true, false) => 2,
            (false, true) => 4,
            (true, true) => 8,
        }
    }

    /// Number of rows of the original NLP (rows `0..m0` of the relaxed NLP are those rows).
    pub fn original_rows(&self) -> usize {
        self.m0
    }

    /// The relaxed NLP's rows added for pair `i`: `(G_i ≥ 0, H_i ≥ 0, G_i H_i ≤ σ)`, each
    /// `None` when that side is a bound or the relaxation adds no product row.
    pub fn pair_rows(&self, i: usize) -> (Option<usize>, Option<usize>, Option<usize>) {
        let row = |s: Side| match s {
            Side::Row(r) => Some(r),
            Side::Var(_) => None,
        };
        let prod = (self.relaxation == Relaxation::Scholtes).then_some(self.prod_row0 + i);
        (row(self.g_side[i]), row(self.h_side[i]), prod)
    }

    /// Build the relaxed structure for `nlp` with pairs `comp` (patterns and scatter maps
    /// computed once; the problem is only read, not kept).
    pub fn new(
        nlp: &dyn Nlp,
        comp: &dyn Complementarity,
        relaxation: Relaxation,
    ) -> Result<Self, SolverError> {
        let (n, m0, k) = (nlp.n(), nlp.m(), comp.n_pairs());
        if comp.n() != n {
            return Err(SolverError::InvalidProblem(format!(
                "complementarity functions take {} variables, the NLP has {n}",
                comp.n()
            )));
        }
        let bad = |e: crate::ad::AdError| SolverError::InvalidProblem(e.to_string());
        let (pg, ph) = (comp.g_jacobian_pattern(), comp.h_jacobian_pattern());
        let mut row = m0;
        let mut g_side = Vec::with_capacity(k);
        let mut h_side = Vec::with_capacity(k);
        for i in 0..k {
            g_side.push(match comp.g_as_variable(i) {
                Some(j) => Side::Var(j),
                None => {
                    row += 1;
                    Side::Row(row - 1)
                }
            });
        }
        for i in 0..k {
            h_side.push(match comp.h_as_variable(i) {
                Some(j) => Side::Var(j),
                None => {
                    row += 1;
                    Side::Row(row - 1)
                }
            });
        }
        let prod_row0 = row;
        let n_rows = match relaxation {
            Relaxation::Scholtes => row + k,
            Relaxation::L1Penalty => row,
        };
        // Jacobian triplets: original, G rows, H rows, product rows
        let mut trip: Vec<(usize, usize)> = nlp.jacobian_pattern().entries().collect();
        let n_orig = trip.len();
        let jg_row: Vec<usize> = pg.entries().map(|(i, _)| i).collect();
        let jh_row: Vec<usize> = ph.entries().map(|(i, _)| i).collect();
        let mut idx_g = Vec::new();
        for (kk, (i, j)) in pg.entries().enumerate() {
            if let Side::Row(r) = g_side[i] {
                idx_g.push((kk, trip.len()));
                trip.push((r, j));
            }
        }
        let mut idx_h = Vec::new();
        for (kk, (i, j)) in ph.entries().enumerate() {
            if let Side::Row(r) = h_side[i] {
                idx_h.push((kk, trip.len()));
                trip.push((r, j));
            }
        }
        let (mut pg_t, mut ph_t) = (Vec::new(), Vec::new());
        if relaxation == Relaxation::Scholtes {
            for (i, j) in pg.entries() {
                pg_t.push(trip.len());
                trip.push((prod_row0 + i, j));
            }
            for (i, j) in ph.entries() {
                ph_t.push(trip.len());
                trip.push((prod_row0 + i, j));
            }
        }
        let (jac, map) = SparsityPattern::from_triplets(n_rows, n, &trip).map_err(bad)?;
        let jmap_orig = map[..n_orig].to_vec();
        let jmap_g = idx_g.iter().map(|&(kk, t)| (kk, map[t])).collect();
        let jmap_h = idx_h.iter().map(|&(kk, t)| (kk, map[t])).collect();
        let jmap_prod_g = pg_t.iter().map(|&t| map[t]).collect();
        let jmap_prod_h = ph_t.iter().map(|&t| map[t]).collect();
        // Hessian: original, comp Hessian, cross terms ∇G ∇Hᵀ + ∇H ∇Gᵀ
        let mut ht: Vec<(usize, usize)> = nlp.hessian_pattern().entries().collect();
        let n_ho = ht.len();
        let n_hc = comp.hessian_pattern().map_or(0, |p| p.nnz());
        if let Some(p) = comp.hessian_pattern() {
            if !p.is_lower_triangular() || p.nrows() != n {
                return Err(SolverError::InvalidProblem(
                    "complementarity Hessian pattern must be lower triangular n x n".into(),
                ));
            }
            ht.extend(p.entries());
        }
        // group Jacobian entries of G and H by pair
        let mut g_by_pair: Vec<Vec<(usize, usize)>> = vec![Vec::new(); k];
        for (kk, (i, j)) in pg.entries().enumerate() {
            g_by_pair[i].push((kk, j));
        }
        let mut h_by_pair: Vec<Vec<(usize, usize)>> = vec![Vec::new(); k];
        for (kk, (i, j)) in ph.entries().enumerate() {
            h_by_pair[i].push((kk, j));
        }
        let mut cross_t = Vec::new();
        for i in 0..k {
            for &(kg, jg) in &g_by_pair[i] {
                for &(kh, jh) in &h_by_pair[i] {
                    let (r, c) = if jg >= jh { (jg, jh) } else { (jh, jg) };
                    let factor = if jg == jh { 2.0 } else { 1.0 };
                    cross_t.push((kg, kh, ht.len(), factor));
                    ht.push((r, c));
                }
            }
        }
        let (hess, hmap) = SparsityPattern::from_triplets(n, n, &ht).map_err(bad)?;
        let hmap_orig = hmap[..n_ho].to_vec();
        let hmap_comp = hmap[n_ho..n_ho + n_hc].to_vec();
        let cross = cross_t
            .into_iter()
            .map(|(kg, kh, t, f)| (kg, kh, hmap[t], f))
            .collect();
        let scratch = Scratch {
            gv: vec![0.0; k],
            hv: vec![0.0; k],
            jg: vec![0.0; pg.nnz()],
            jh: vec![0.0; ph.nnz()],
            jo: vec![0.0; n_orig],
            ho: vec![0.0; n_ho],
            hc: vec![0.0; n_hc],
            a: vec![0.0; k],
            b: vec![0.0; k],
        };
        let dims = Self::dims_of(nlp, comp);
        let members = |side: &[Side], f: &dyn Fn(usize) -> Vec<usize>| -> Vec<Vec<usize>> {
            (0..k)
                .map(|i| match side[i] {
                    Side::Row(_) => f(i),
                    Side::Var(_) => Vec::new(),
                })
                .collect()
        };
        let g_members = members(&g_side, &|i| comp.g_members(i).to_vec());
        let h_members = members(&h_side, &|i| comp.h_members(i).to_vec());
        Ok(RelaxedStructure {
            relaxation,
            sigma: 1.0,
            fix: vec![0; k],
            imposed: vec![0; k],
            weights: vec![1.0; k],
            g_members,
            h_members,
            m0,
            k,
            g_side,
            h_side,
            n_rows,
            prod_row0,
            jac,
            hess,
            jmap_orig,
            jmap_g,
            jmap_h,
            jmap_prod_g,
            jmap_prod_h,
            jg_row,
            jh_row,
            hmap_orig,
            hmap_comp,
            cross,
            scratch: RefCell::new(scratch),
            dims,
        })
    }

    fn dims_of(nlp: &dyn Nlp, comp: &dyn Complementarity) -> [usize; 7] {
        [
            nlp.n(),
            nlp.n_p(),
            nlp.jacobian_pattern().nnz(),
            nlp.hessian_pattern().nnz(),
            comp.g_jacobian_pattern().nnz(),
            comp.h_jacobian_pattern().nnz(),
            comp.hessian_pattern().map_or(0, |p| p.nnz()),
        ]
    }

    /// Check that `nlp` and `comp` have the dimensions this structure was built for (variables,
    /// rows, pairs, parameters and the nonzeros of every pattern).
    pub fn check(&self, nlp: &dyn Nlp, comp: &dyn Complementarity) -> Result<(), SolverError> {
        const WHAT: [&str; 7] = [
            "n",
            "parameters",
            "Jacobian nnz",
            "Hessian nnz",
            "grad G nnz",
            "grad H nnz",
            "complementarity Hessian nnz",
        ];
        let d = SolverError::check_dim;
        d("m", self.m0, nlp.m())?;
        d("pairs", self.k, comp.n_pairs())?;
        d("complementarity n", self.dims[0], comp.n())?;
        let got = Self::dims_of(nlp, comp);
        for ((what, want), got) in WHAT.iter().zip(self.dims).zip(got) {
            d(what, want, got)?;
        }
        Ok(())
    }

    /// The relaxed NLP of `nlp` and `comp`, which must have the dimensions this structure was
    /// built for ([`RelaxedStructure::check`]).
    pub fn bind<'a>(
        &'a self,
        nlp: &'a dyn Nlp,
        comp: &'a dyn Complementarity,
    ) -> Result<RelaxedNlp<'a>, SolverError> {
        self.check(nlp, comp)?;
        Ok(RelaxedNlp { s: self, nlp, comp })
    }

    /// [`RelaxedStructure::bind`] without the check, for a problem already checked.
    pub(super) fn bind_unchecked<'a>(
        &'a self,
        nlp: &'a dyn Nlp,
        comp: &'a dyn Complementarity,
    ) -> RelaxedNlp<'a> {
        RelaxedNlp { s: self, nlp, comp }
    }

    /// Number of pairs.
    pub fn n_pairs(&self) -> usize {
        self.k
    }

    /// Number of rows of the relaxed NLP.
    pub fn m(&self) -> usize {
        self.n_rows
    }

    fn penalty(&self) -> f64 {
        1.0 / self.sigma
    }

    /// The weight of pair `i`'s product in the ℓ1 penalty.
    fn weight(&self, i: usize) -> f64 {
        self.weights[i]
    }

    /// Weigh pair `i`'s product by `w[i]` in the ℓ1 penalty `ρ Σ w_i G_i H_i` **[ours]**
    /// (formulation §5.2): pairs whose products have different units (a normal force times a
    /// gap against a friction force times a slip speed) then reach exactness at the same ρ. The
    /// Scholtes relaxation ignores them. Every weight finite and > 0; no allocation.
    pub fn set_penalty_weights(&mut self, w: &[f64]) -> Result<(), SolverError> {
        SolverError::check_dim("penalty weights", self.k, w.len())?;
        if let Some(i) = w.iter().position(|&x| !(x.is_finite() && x > 0.0)) {
            return Err(SolverError::InvalidSetting {
                name: "penalty weights",
                why: format!("pair {i}: weight {} is not finite and > 0", w[i]),
            });
        }
        self.weights.copy_from_slice(w);
        Ok(())
    }

    /// The pairs' weights in the ℓ1 penalty ([`RelaxedStructure::set_penalty_weights`]).
    pub fn penalty_weights(&self) -> &[f64] {
        &self.weights
    }
}

impl<'a> RelaxedNlp<'a> {
    /// The structure (σ, fixed sides, rows of the pairs).
    pub fn structure(&self) -> &'a RelaxedStructure {
        self.s
    }

    /// The original NLP.
    pub fn inner(&self) -> &'a dyn Nlp {
        self.nlp
    }

    /// The complementarity functions.
    pub fn complementarity(&self) -> &'a dyn Complementarity {
        self.comp
    }
}

impl Nlp for RelaxedNlp<'_> {
    fn n(&self) -> usize {
        self.nlp.n()
    }
    fn m(&self) -> usize {
        self.s.n_rows
    }
    fn n_p(&self) -> usize {
        self.nlp.n_p()
    }
    fn bounds(&self, x_l: &mut [f64], x_u: &mut [f64], g_l: &mut [f64], g_u: &mut [f64]) {
        let m0 = self.s.m0;
        self.nlp.bounds(x_l, x_u, &mut g_l[..m0], &mut g_u[..m0]);
        for i in 0..self.s.k {
            let fix = self.s.fix[i] | self.s.imposed[i];
            for (side, fixed, by_members, members) in [
                (
                    self.s.g_side[i],
                    fix & 1 != 0,
                    fix & 4 != 0,
                    &self.s.g_members[i],
                ),
                (
                    self.s.h_side[i],
                    fix & 2 != 0,
                    fix & 8 != 0,
                    &self.s.h_members[i],
                ),
            ] {
                match side {
                    Side::Var(j) => {
                        x_l[j] = x_l[j].max(0.0);
                        if fixed {
                            x_u[j] = 0.0;
                            x_l[j] = 0.0;
                        }
                    }
                    Side::Row(r) if by_members && !members.is_empty() => {
                        g_l[r] = f64::NEG_INFINITY;
                        g_u[r] = f64::INFINITY;
                        for &j in members {
                            x_l[j] = 0.0;
                            x_u[j] = 0.0;
                        }
                    }
                    Side::Row(r) => {
                        g_l[r] = 0.0;
                        g_u[r] = if fixed { 0.0 } else { f64::INFINITY };
                    }
                }
            }
            if self.s.relaxation == Relaxation::Scholtes {
                g_l[self.s.prod_row0 + i] = f64::NEG_INFINITY;
                g_u[self.s.prod_row0 + i] = self.s.sigma;
            }
        }
    }
    fn initial_point(&self, x0: &mut [f64]) {
        self.nlp.initial_point(x0)
    }
    fn jacobian_pattern(&self) -> &SparsityPattern {
        &self.s.jac
    }
    fn hessian_pattern(&self) -> &SparsityPattern {
        &self.s.hess
    }
    fn eval_f(&self, x: &[f64], p: &[f64]) -> Result<f64, EvalError> {
        let mut f = self.nlp.eval_f(x, p)?;
        if self.s.relaxation == Relaxation::L1Penalty {
            let mut s = self.s.scratch.borrow_mut();
            let s = &mut *s;
            self.comp.eval(x, p, &mut s.gv, &mut s.hv)?;
            let sum: f64 =
                s.gv.iter()
                    .zip(&s.hv)
                    .enumerate()
                    .map(|(i, (a, b))| self.s.weight(i) * a * b)
                    .sum();
            f += self.s.penalty() * sum;
        }
        Ok(f)
    }
    fn eval_grad_f(&self, x: &[f64], p: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        self.nlp.eval_grad_f(x, p, grad)?;
        if self.s.relaxation == Relaxation::L1Penalty {
            let rho = self.s.penalty();
            let mut s = self.s.scratch.borrow_mut();
            let s = &mut *s;
            self.comp.eval(x, p, &mut s.gv, &mut s.hv)?;
            self.comp.eval_jac(x, p, &mut s.jg, &mut s.jh)?;
            let pg = self.comp.g_jacobian_pattern();
            for (kk, (_, j)) in pg.entries().enumerate() {
                let i = self.s.jg_row[kk];
                grad[j] += rho * self.s.weight(i) * s.jg[kk] * s.hv[i];
            }
            let ph = self.comp.h_jacobian_pattern();
            for (kk, (_, j)) in ph.entries().enumerate() {
                let i = self.s.jh_row[kk];
                grad[j] += rho * self.s.weight(i) * s.jh[kk] * s.gv[i];
            }
        }
        Ok(())
    }
    fn eval_g(&self, x: &[f64], p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        self.nlp.eval_g(x, p, &mut g[..self.s.m0])?;
        let mut s = self.s.scratch.borrow_mut();
        let s = &mut *s;
        self.comp.eval(x, p, &mut s.gv, &mut s.hv)?;
        for i in 0..self.s.k {
            if let Side::Row(r) = self.s.g_side[i] {
                g[r] = s.gv[i];
            }
            if let Side::Row(r) = self.s.h_side[i] {
                g[r] = s.hv[i];
            }
            if self.s.relaxation == Relaxation::Scholtes {
                g[self.s.prod_row0 + i] = s.gv[i] * s.hv[i];
            }
        }
        Ok(())
    }
    fn eval_jac_g(&self, x: &[f64], p: &[f64], vals: &mut [f64]) -> Result<(), EvalError> {
        let mut s = self.s.scratch.borrow_mut();
        let s = &mut *s;
        self.nlp.eval_jac_g(x, p, &mut s.jo)?;
        self.comp.eval(x, p, &mut s.gv, &mut s.hv)?;
        self.comp.eval_jac(x, p, &mut s.jg, &mut s.jh)?;
        vals.fill(0.0);
        for (kk, &t) in self.s.jmap_orig.iter().enumerate() {
            vals[t] += s.jo[kk];
        }
        for &(kk, t) in &self.s.jmap_g {
            vals[t] += s.jg[kk];
        }
        for &(kk, t) in &self.s.jmap_h {
            vals[t] += s.jh[kk];
        }
        for (kk, &t) in self.s.jmap_prod_g.iter().enumerate() {
            vals[t] += s.jg[kk] * s.hv[self.s.jg_row[kk]];
        }
        for (kk, &t) in self.s.jmap_prod_h.iter().enumerate() {
            vals[t] += s.jh[kk] * s.gv[self.s.jh_row[kk]];
        }
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
        let mut s = self.s.scratch.borrow_mut();
        let s = &mut *s;
        self.nlp
            .eval_hess_l(x, p, sigma_f, &lambda[..self.s.m0], &mut s.ho)?;
        vals.fill(0.0);
        for (kk, &t) in self.s.hmap_orig.iter().enumerate() {
            vals[t] += s.ho[kk];
        }
        self.comp.eval(x, p, &mut s.gv, &mut s.hv)?;
        self.comp.eval_jac(x, p, &mut s.jg, &mut s.jh)?;
        // weight of the product G_i H_i in the Lagrangian
        for i in 0..self.s.k {
            let w = match self.s.relaxation {
                Relaxation::Scholtes => lambda[self.s.prod_row0 + i],
                Relaxation::L1Penalty => sigma_f * self.s.penalty() * self.s.weight(i),
            };
            let mut a = w * s.hv[i];
            let mut b = w * s.gv[i];
            if let Side::Row(r) = self.s.g_side[i] {
                a += lambda[r];
            }
            if let Side::Row(r) = self.s.h_side[i] {
                b += lambda[r];
            }
            s.a[i] = a;
            s.b[i] = b;
        }
        if !s.hc.is_empty() {
            self.comp.eval_hess(x, p, &s.a, &s.b, &mut s.hc)?;
            for (kk, &t) in self.s.hmap_comp.iter().enumerate() {
                vals[t] += s.hc[kk];
            }
        }
        for &(kg, kh, t, factor) in &self.s.cross {
            let i = self.s.jg_row[kg];
            let w = match self.s.relaxation {
                Relaxation::Scholtes => lambda[self.s.prod_row0 + i],
                Relaxation::L1Penalty => sigma_f * self.s.penalty() * self.s.weight(i),
            };
            vals[t] += factor * w * s.jg[kg] * s.jh[kh];
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::problems::{macmpec, Backend};

    /// The ℓ1 penalty with pair weights `w_i`: its objective differs from the unweighted one by
    /// exactly `ρ Σ (w_i − 1) G_i H_i`, and its gradient and Hessian are those of its objective
    /// (central differences), on every MacMPEC problem of the collection with two or more pairs.
    #[test]
    fn weighted_penalty_derivatives_match_its_objective() {
        let mut checked = 0;
        for prob in macmpec::collection(Backend::Ad) {
            let (nlp, comp) = (prob.nlp.as_ref(), prob.comp.as_ref());
            let (n, k) = (nlp.n(), comp.n_pairs());
            if k < 2 {
                continue;
            }
            let mut s = RelaxedStructure::new(nlp, comp, Relaxation::L1Penalty).unwrap();
            s.sigma = 0.25;
            let p = vec![0.0; nlp.n_p()];
            let mut x = vec![0.0; n];
            nlp.initial_point(&mut x);
            for (j, xj) in x.iter_mut().enumerate() {
                *xj += 0.3 + 0.1 * j as f64;
            }
            let f1 = s.bind(nlp, comp).unwrap().eval_f(&x, &p).unwrap();
            let w: Vec<f64> = (0..k).map(|i| 1.0 + 2.0 * i as f64).collect();
            s.set_penalty_weights(&w).unwrap();
            let r = s.bind(nlp, comp).unwrap();
            let f = |x: &[f64]| r.eval_f(x, &p).unwrap();
            let (mut gv, mut hv) = (vec![0.0; k], vec![0.0; k]);
            comp.eval(&x, &p, &mut gv, &mut hv).unwrap();
            let extra: f64 = (0..k).map(|i| (w[i] - 1.0) * gv[i] * hv[i]).sum::<f64>() / 0.25;
            assert!(
                (f(&x) - f1 - extra).abs() <= 1e-12 * (1.0 + f1.abs() + extra.abs()),
                "{}: f {} − {f1} against {extra}",
                prob.name,
                f(&x)
            );
            let grad_at = |x: &[f64]| {
                let mut g = vec![0.0; n];
                r.eval_grad_f(x, &p, &mut g).unwrap();
                g
            };
            let g = grad_at(&x);
            let eps = 1e-6;
            for j in 0..n {
                let (mut xp, mut xm) = (x.clone(), x.clone());
                xp[j] += eps;
                xm[j] -= eps;
                let fd = (f(&xp) - f(&xm)) / (2.0 * eps);
                assert!(
                    (g[j] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                    "{}: ∂f/∂x{j} {} against {fd}",
                    prob.name,
                    g[j]
                );
            }
            let hp = r.hessian_pattern();
            let mut hvals = vec![0.0; hp.nnz()];
            let lam = vec![0.0; r.m()];
            r.eval_hess_l(&x, &p, 1.0, &lam, &mut hvals).unwrap();
            let mut dense = vec![0.0; n * n];
            for ((i, j), v) in hp.entries().zip(&hvals) {
                dense[i * n + j] += v;
                if i != j {
                    dense[j * n + i] += v;
                }
            }
            for j in 0..n {
                let (mut xp, mut xm) = (x.clone(), x.clone());
                xp[j] += eps;
                xm[j] -= eps;
                let (gp, gm) = (grad_at(&xp), grad_at(&xm));
                for i in 0..n {
                    let fd = (gp[i] - gm[i]) / (2.0 * eps);
                    assert!(
                        (dense[i * n + j] - fd).abs() <= 1e-5 * (1.0 + fd.abs()),
                        "{}: ∂²f/∂x{i}∂x{j} {} against {fd}",
                        prob.name,
                        dense[i * n + j]
                    );
                }
            }
            checked += 1;
        }
        assert!(
            checked >= 4,
            "only {checked} problems with two or more pairs"
        );
    }

    #[test]
    fn penalty_weights_must_be_positive_and_one_per_pair() {
        let prob = macmpec::collection(Backend::Ad)
            .into_iter()
            .find(|p| p.comp.n_pairs() >= 2)
            .unwrap();
        let (nlp, comp) = (prob.nlp.as_ref(), prob.comp.as_ref());
        let k = comp.n_pairs();
        let mut s = RelaxedStructure::new(nlp, comp, Relaxation::L1Penalty).unwrap();
        assert!(s.set_penalty_weights(&vec![1.0; k + 1]).is_err());
        let mut w = vec![1.0; k];
        w[1] = 0.0;
        let e = s.set_penalty_weights(&w).unwrap_err().to_string();
        assert!(e.contains("pair 1"), "{e}");
        w[1] = f64::NAN;
        assert!(s.set_penalty_weights(&w).is_err());
        assert_eq!(
            s.penalty_weights(),
            &vec![1.0; k][..],
            "a refused call changes nothing"
        );
    }
}

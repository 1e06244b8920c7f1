//! [`Nlp`] and [`Complementarity`] built from compiled `ad` functions of `(x, p)`.
//!
//! The derivative tapes (gradient, sparse constraint Jacobian, sparse Hessian of the
//! Lagrangian, Jacobians of `G` and `H`) and their exact patterns are computed once here; each
//! callback is one tape evaluation into the caller's slice (no allocation).

use super::error::{EvalError, SolverError};
use super::nlp::{Complementarity, Nlp};
use crate::ad::import::ImportedProblem;
use crate::ad::{self, Function, SparsityPattern, SplitFunction, Sx, Workspace};
use std::cell::RefCell;

/// Bounds and start point of an NLP.
#[derive(Clone, Debug)]
pub struct NlpBounds {
    /// Lower variable bounds.
    pub x_l: Vec<f64>,
    /// Upper variable bounds.
    pub x_u: Vec<f64>,
    /// Lower constraint bounds.
    pub g_l: Vec<f64>,
    /// Upper constraint bounds.
    pub g_u: Vec<f64>,
    /// Initial point.
    pub x0: Vec<f64>,
}

/// Which Hessian of the Lagrangian the callbacks give (`solver.hessian` of a problem file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HessianApproximation {
    /// `σ ∇²f + Σ λ_i ∇²g_i` (default).
    #[default]
    Exact,
    /// `σ ∇²f` alone ([`ad::hessian_of_objective`]): the constraints' curvature is dropped.
    /// The solution is the same (the KKT conditions do not involve the Hessian); only the
    /// convergence towards it changes (linear instead of quadratic).
    GaussNewton,
}

/// An NLP from compiled functions `f(x, p)` (scalar) and `g(x, p)`.
pub struct AdNlp {
    n: usize,
    m: usize,
    n_p: usize,
    b: NlpBounds,
    f: Function,
    grad: Function,
    g: Function,
    jac: Function,
    /// `jac` cut into parts evaluated on several threads ([`AdNlp::set_jacobian_threads`]).
    jac_split: Option<SplitFunction>,
    jac_pattern: SparsityPattern,
    hess: Function,
    hess_pattern: SparsityPattern,
    ws: RefCell<Workspace>,
    sigma: RefCell<[f64; 1]>,
}

/// Compile the native code of the tapes now, while the problem is built, so that no solve pays
/// for it. A tape that cannot be compiled stays interpreted (`Function::prepare_native` has
/// printed a warning; nothing else to do).
fn prepare_native(fns: &[&Function]) {
    for f in fns {
        let _ = f.prepare_native();
    }
}

/// The Jacobian `jac` cut for `threads ≥ 2` threads ([`SplitFunction::new`]); `None` for one
/// thread: `jac` itself. (On one thread, parts short enough for native code evaluated in turn
/// were slower in the closed loop than the interpreted whole: docs/benchmarks.md.)
fn split_for(jac: &Function, threads: usize) -> Result<Option<SplitFunction>, SolverError> {
    if threads <= 1 {
        return Ok(None);
    }
    Ok(Some(SplitFunction::new(jac, threads)?))
}

fn dim(what: &'static str, expected: usize, got: usize) -> SolverError {
    SolverError::Dimension {
        what,
        expected,
        got,
    }
}

impl AdNlp {
    /// Build from `f(x, p)` and `g(x, p)` (two inputs each, one output; `f` scalar).
    pub fn new(f: Function, g: Function, bounds: NlpBounds) -> Result<AdNlp, SolverError> {
        AdNlp::with_hessian(f, g, bounds, HessianApproximation::Exact)
    }

    /// [`AdNlp::new`] with the given Hessian of the Lagrangian.
    pub fn with_hessian(
        f: Function,
        g: Function,
        bounds: NlpBounds,
        hessian: HessianApproximation,
    ) -> Result<AdNlp, SolverError> {
        if f.n_in() != 2 || g.n_in() != 2 {
            return Err(SolverError::InvalidProblem(
                "f and g must take exactly the inputs (x, p)".into(),
            ));
        }
        let (n, n_p, m) = (f.size_in(0), f.size_in(1), g.size_out(0));
        for (what, want, got) in [
            ("x_l", n, bounds.x_l.len()),
            ("x_u", n, bounds.x_u.len()),
            ("x0", n, bounds.x0.len()),
            ("g_l", m, bounds.g_l.len()),
            ("g_u", m, bounds.g_u.len()),
        ] {
            if want != got {
                return Err(dim(what, want, got));
            }
        }
        let grad = ad::gradient(&f, 0)?;
        let (jac_pattern, jac) = ad::jacobian_of(&g, 0, 0)?;
        let (hess_pattern, hess) = match hessian {
            HessianApproximation::Exact => ad::hessian_of_lagrangian(&f, &g)?,
            HessianApproximation::GaussNewton => ad::hessian_of_objective(&f, &g)?,
        };
        let regs = [&f, &grad, &g, &jac, &hess]
            .iter()
            .map(|h| h.n_registers())
            .max()
            .unwrap_or(0);
        prepare_native(&[&f, &grad, &g, &jac, &hess]);
        Ok(AdNlp {
            n,
            m,
            n_p,
            b: bounds,
            f,
            grad,
            g,
            jac,
            jac_split: None,
            jac_pattern,
            hess,
            hess_pattern,
            ws: RefCell::new(Workspace::with_registers(regs)),
            sigma: RefCell::new([1.0]),
        })
    }

    /// Build from symbolic expressions of the symbols `x` and `p`.
    pub fn from_sx(
        x: &[Sx],
        p: &[Sx],
        f: Sx,
        g: &[Sx],
        bounds: NlpBounds,
    ) -> Result<AdNlp, SolverError> {
        let fun_f = Function::new("f", &[x, p], &[&[f]])?;
        let fun_g = Function::new("g", &[x, p], &[g])?;
        AdNlp::new(fun_f, fun_g, bounds)
    }

    /// Evaluate the constraint Jacobian on `threads` threads **[ours]**: its nonzeros are cut
    /// into `threads` contiguous ranges of about equal tape length, each compiled on its own
    /// (the same expressions: the values are bit for bit those of one thread), the caller's
    /// thread evaluating the first and `threads − 1` worker threads, started now, the others
    /// ([`SplitFunction`]). `threads ≤ 1` goes back to one thread.
    pub fn set_jacobian_threads(&mut self, threads: usize) -> Result<(), SolverError> {
        if threads == self.jacobian_threads() {
            return Ok(());
        }
        self.jac_split = split_for(&self.jac, threads)?;
        if let Some(s) = &self.jac_split {
            self.ws.borrow_mut().reserve_registers(s.workspace().len());
        }
        Ok(())
    }

    /// Threads the constraint Jacobian is evaluated on (1 unless
    /// [`AdNlp::set_jacobian_threads`] set more and their threads started).
    pub fn jacobian_threads(&self) -> usize {
        self.jac_split.as_ref().map_or(1, |s| s.threads())
    }

    /// Instruction and register counts of the compiled tapes (f, gradient, g, Jacobian,
    /// Hessian of the Lagrangian), for measurements.
    pub fn tape_sizes(&self) -> [(&'static str, usize, usize); 5] {
        let t = |name, f: &Function| (name, f.n_instructions(), f.n_registers());
        [
            t("f", &self.f),
            t("grad_f", &self.grad),
            t("g", &self.g),
            t("jac_g", &self.jac),
            t("hess_l", &self.hess),
        ]
    }

    /// Every compiled function with its role (f, grad_f, g, jac_g, hess_l), for measurements
    /// and to choose their [`Backend`](crate::ad::Backend).
    pub fn functions(&self) -> [(&'static str, &Function); 5] {
        [
            ("f", &self.f),
            ("grad_f", &self.grad),
            ("g", &self.g),
            ("jac_g", &self.jac),
            ("hess_l", &self.hess),
        ]
    }

    /// The compiled Hessian-of-the-Lagrangian and Jacobian tapes (for measurements).
    #[doc(hidden)]
    pub fn derivative_tapes(&self) -> [&Function; 2] {
        [&self.jac, &self.hess]
    }

    /// The NLP and complementarity functions of an imported MPCC (its `w0` as start).
    pub fn from_imported(
        prob: &ImportedProblem,
    ) -> Result<(AdNlp, AdComplementarity), SolverError> {
        let nlp = AdNlp::new(
            prob.f.clone(),
            prob.g.clone(),
            NlpBounds {
                x_l: prob.lbw.clone(),
                x_u: prob.ubw.clone(),
                g_l: prob.lbg.clone(),
                g_u: prob.ubg.clone(),
                x0: prob.w0.clone(),
            },
        )?;
        let comp = AdComplementarity::new(&prob.comp_g, &prob.comp_h)?;
        Ok((nlp, comp))
    }
}

fn ev(
    f: &Function,
    ins: &[&[f64]],
    out: &mut [f64],
    ws: &RefCell<Workspace>,
) -> Result<(), EvalError> {
    let mut ws = ws.borrow_mut();
    f.eval(ins, &mut [out], &mut ws)
        .map_err(|_| EvalError("tape"))
}

impl Nlp for AdNlp {
    fn n(&self) -> usize {
        self.n
    }
    fn m(&self) -> usize {
        self.m
    }
    fn n_p(&self) -> usize {
        self.n_p
    }
    fn bounds(&self, x_l: &mut [f64], x_u: &mut [f64], g_l: &mut [f64], g_u: &mut [f64]) {
        x_l.copy_from_slice(&self.b.x_l);
        x_u.copy_from_slice(&self.b.x_u);
        g_l.copy_from_slice(&self.b.g_l);
        g_u.copy_from_slice(&self.b.g_u);
    }
    fn initial_point(&self, x0: &mut [f64]) {
        x0.copy_from_slice(&self.b.x0);
    }
    fn jacobian_pattern(&self) -> &SparsityPattern {
        &self.jac_pattern
    }
    fn hessian_pattern(&self) -> &SparsityPattern {
        &self.hess_pattern
    }
    fn eval_f(&self, x: &[f64], p: &[f64]) -> Result<f64, EvalError> {
        let mut out = [0.0];
        ev(&self.f, &[x, p], &mut out, &self.ws)?;
        Ok(out[0])
    }
    fn eval_grad_f(&self, x: &[f64], p: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        ev(&self.grad, &[x, p], grad, &self.ws)
    }
    fn eval_g(&self, x: &[f64], p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        ev(&self.g, &[x, p], g, &self.ws)
    }
    fn eval_jac_g(&self, x: &[f64], p: &[f64], vals: &mut [f64]) -> Result<(), EvalError> {
        match &self.jac_split {
            Some(s) => {
                let mut ws = self.ws.borrow_mut();
                s.eval(&[x, p], vals, &mut ws)
                    .map_err(|_| EvalError("tape"))
            }
            None => ev(&self.jac, &[x, p], vals, &self.ws),
        }
    }
    fn eval_hess_l(
        &self,
        x: &[f64],
        p: &[f64],
        sigma_f: f64,
        lambda: &[f64],
        vals: &mut [f64],
    ) -> Result<(), EvalError> {
        let mut s = self.sigma.borrow_mut();
        s[0] = sigma_f;
        ev(&self.hess, &[x, &s[..], lambda, p], vals, &self.ws)
    }
}

/// Complementarity functions `G(x, p)`, `H(x, p)` from compiled functions.
pub struct AdComplementarity {
    n: usize,
    k: usize,
    g: Function,
    h: Function,
    jg: Function,
    jh: Function,
    jg_pattern: SparsityPattern,
    jh_pattern: SparsityPattern,
    hess: Option<(SparsityPattern, Function)>,
    g_var: Vec<Option<usize>>,
    h_var: Vec<Option<usize>>,
    g_mem: Vec<Vec<usize>>,
    h_mem: Vec<Vec<usize>>,
    ws: RefCell<Workspace>,
}

impl AdComplementarity {
    /// Build from `G(x, p)` and `H(x, p)` (outputs of equal length).
    pub fn new(g: &Function, h: &Function) -> Result<AdComplementarity, SolverError> {
        if g.n_in() != 2 || h.input_sizes() != g.input_sizes() {
            return Err(SolverError::InvalidProblem(
                "G and H must take the same inputs (x, p)".into(),
            ));
        }
        let (n, k) = (g.size_in(0), g.size_out(0));
        if h.size_out(0) != k {
            return Err(dim("length of H", k, h.size_out(0)));
        }
        let (ins, gout) = g.symbolic()?;
        let refs: Vec<&[Sx]> = ins.iter().map(|v| v.as_slice()).collect();
        let hout = h.call_sx(&refs)?;
        let (xs, ps) = (&ins[0], &ins[1]);
        let var_of = |e: Sx| -> Option<usize> {
            if e.is_symbol() {
                xs.iter().position(|&s| s.id() == e.id())
            } else {
                None
            }
        };
        let g_var = gout[0].iter().map(|&e| var_of(e)).collect();
        let h_var = hout[0].iter().map(|&e| var_of(e)).collect();
        let members = |e: Sx| -> Vec<usize> {
            let mut out = Vec::new();
            if sum_members(e, &var_of, &mut out) && out.len() >= 2 {
                out
            } else {
                Vec::new()
            }
        };
        let g_mem = gout[0].iter().map(|&e| members(e)).collect();
        let h_mem = hout[0].iter().map(|&e| members(e)).collect();
        let (jg_pattern, jg) = ad::jacobian_of(g, 0, 0)?;
        let (jh_pattern, jh) = ad::jacobian_of(h, 0, 0)?;
        // Hessian of Σ a_i G_i + b_i H_i
        let a = Sx::sym_vec("comp_a", k);
        let b = Sx::sym_vec("comp_b", k);
        let mut l = Sx::constant(0.0);
        for i in 0..k {
            l = l + a[i] * gout[0][i] + b[i] * hout[0][i];
        }
        let (hp, hv) = ad::derivative::hessian_lower_sx(l, xs);
        let hess = if hp.nnz() == 0 {
            None
        } else {
            let f = Function::new("comp_hess", &[xs, &a, &b, ps], &[&hv])?;
            Some((hp, f))
        };
        let regs = [
            Some(g),
            Some(h),
            Some(&jg),
            Some(&jh),
            hess.as_ref().map(|x| &x.1),
        ]
        .iter()
        .flatten()
        .map(|f| f.n_registers())
        .max()
        .unwrap_or(0);
        let mut fns = vec![g, h, &jg, &jh];
        fns.extend(hess.as_ref().map(|x| &x.1));
        prepare_native(&fns);
        Ok(AdComplementarity {
            n,
            k,
            g: g.clone(),
            h: h.clone(),
            jg,
            jh,
            jg_pattern,
            jh_pattern,
            hess,
            g_var,
            h_var,
            g_mem,
            h_mem,
            ws: RefCell::new(Workspace::with_registers(regs)),
        })
    }
}

impl AdComplementarity {
    /// Every compiled function with its role (G, H, their Jacobians, the Hessian of
    /// Σ aᵢGᵢ + bᵢHᵢ if it is not zero), for measurements.
    pub fn functions(&self) -> Vec<(&'static str, &Function)> {
        let mut v = vec![
            ("comp_G", &self.g),
            ("comp_H", &self.h),
            ("comp_jac_G", &self.jg),
            ("comp_jac_H", &self.jh),
        ];
        if let Some((_, f)) = &self.hess {
            v.push(("comp_hess", f));
        }
        v
    }
}

impl Complementarity for AdComplementarity {
    fn n_pairs(&self) -> usize {
        self.k
    }
    fn n(&self) -> usize {
        self.n
    }
    fn g_jacobian_pattern(&self) -> &SparsityPattern {
        &self.jg_pattern
    }
    fn h_jacobian_pattern(&self) -> &SparsityPattern {
        &self.jh_pattern
    }
    fn eval(&self, x: &[f64], p: &[f64], g: &mut [f64], h: &mut [f64]) -> Result<(), EvalError> {
        ev(&self.g, &[x, p], g, &self.ws)?;
        ev(&self.h, &[x, p], h, &self.ws)
    }
    fn eval_jac(
        &self,
        x: &[f64],
        p: &[f64],
        jg: &mut [f64],
        jh: &mut [f64],
    ) -> Result<(), EvalError> {
        ev(&self.jg, &[x, p], jg, &self.ws)?;
        ev(&self.jh, &[x, p], jh, &self.ws)
    }
    fn hessian_pattern(&self) -> Option<&SparsityPattern> {
        self.hess.as_ref().map(|h| &h.0)
    }
    fn eval_hess(
        &self,
        x: &[f64],
        p: &[f64],
        a: &[f64],
        b: &[f64],
        vals: &mut [f64],
    ) -> Result<(), EvalError> {
        match &self.hess {
            Some((_, f)) => ev(f, &[x, a, b, p], vals, &self.ws),
            None => Ok(()),
        }
    }
    fn g_as_variable(&self, i: usize) -> Option<usize> {
        self.g_var[i]
    }
    fn h_as_variable(&self, i: usize) -> Option<usize> {
        self.h_var[i]
    }
    fn g_members(&self, i: usize) -> &[usize] {
        &self.g_mem[i]
    }
    fn h_members(&self, i: usize) -> &[usize] {
        &self.h_mem[i]
    }
}

/// Collect the variables of `e` into `out` if `e` is a sum of distinct variables (a tree of
/// additions whose leaves are variables); false otherwise.
fn sum_members(e: Sx, var_of: &dyn Fn(Sx) -> Option<usize>, out: &mut Vec<usize>) -> bool {
    if let Some(j) = var_of(e) {
        if out.contains(&j) {
            return false;
        }
        out.push(j);
        return true;
    }
    if e.op() != crate::ad::OpCode::Add {
        return false;
    }
    match e.operands() {
        (Some(a), Some(b)) => sum_members(a, var_of, out) && sum_members(b, var_of, out),
        _ => false,
    }
}

/// Build an [`AdNlp`] from a problem written generically over [`Scalar`](crate::ad::Scalar)
/// (the same code that [`DenseNlp`](super::dense::DenseNlp) differentiates numerically),
/// here instantiated with `Sx` for exact sparse derivatives.
pub fn from_scalar_problem<P: super::dense::ScalarProblem>(p: &P) -> Result<AdNlp, SolverError> {
    let (n, m) = (p.n(), p.m());
    let x = Sx::sym_vec("x", n);
    let par = Sx::sym_vec("p", p.n_p());
    let f = p.objective(&x, &par);
    let mut g = vec![Sx::constant(0.0); m];
    p.constraints(&x, &par, &mut g);
    let mut b = NlpBounds {
        x_l: vec![0.0; n],
        x_u: vec![0.0; n],
        g_l: vec![0.0; m],
        g_u: vec![0.0; m],
        x0: vec![0.0; n],
    };
    p.bounds(&mut b.x_l, &mut b.x_u, &mut b.g_l, &mut b.g_u);
    p.initial_point(&mut b.x0);
    AdNlp::from_sx(&x, &par, f, &g, b)
}

/// Build an [`AdComplementarity`] from generic complementarity functions (with `n_p`
/// parameters).
pub fn from_scalar_complementarity<C: super::dense::ScalarComplementarity>(
    c: &C,
    n_p: usize,
) -> Result<AdComplementarity, SolverError> {
    let x = Sx::sym_vec("x", c.n());
    let par = Sx::sym_vec("p", n_p);
    let k = c.n_pairs();
    let mut g = vec![Sx::constant(0.0); k];
    let mut h = vec![Sx::constant(0.0); k];
    c.eval(&x, &par, &mut g, &mut h);
    let fg = Function::new("G", &[&x, &par], &[&g])?;
    let fh = Function::new("H", &[&x, &par], &[&h])?;
    AdComplementarity::new(&fg, &fh)
}

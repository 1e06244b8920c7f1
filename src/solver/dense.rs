//! Small problems written once, generic over [`Scalar`], with exact dense derivatives by
//! forward-mode hyper-dual numbers.
//!
//! Meant for tests, examples and benchmarks of modest size (n up to a few dozen): the Hessian
//! costs `n(n+1)/2` evaluations. Large problems go through the compiled `ad` functions.
//! The same generic code can later be instantiated with the symbolic `Sx`.

use super::error::EvalError;
use super::nlp::{Complementarity, Nlp};
use crate::ad::{Scalar, SparsityPattern};
use std::cell::RefCell;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// Hyper-dual number `a + b ε₁ + c ε₂ + d ε₁ε₂` (ε₁² = ε₂² = 0): `b`, `c` carry first
/// derivatives along two directions and `d` the mixed second derivative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyperDual {
    /// Value.
    pub a: f64,
    /// Derivative along direction 1.
    pub b: f64,
    /// Derivative along direction 2.
    pub c: f64,
    /// Mixed second derivative.
    pub d: f64,
}

impl HyperDual {
    /// A constant.
    pub fn cst(a: f64) -> Self {
        HyperDual {
            a,
            b: 0.0,
            c: 0.0,
            d: 0.0,
        }
    }
    #[inline]
    fn chain(self, f: f64, f1: f64, f2: f64) -> Self {
        HyperDual {
            a: f,
            b: f1 * self.b,
            c: f1 * self.c,
            d: f1 * self.d + f2 * self.b * self.c,
        }
    }
}

impl Add for HyperDual {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        HyperDual {
            a: self.a + o.a,
            b: self.b + o.b,
            c: self.c + o.c,
            d: self.d + o.d,
        }
    }
}
impl Sub for HyperDual {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        HyperDual {
            a: self.a - o.a,
            b: self.b - o.b,
            c: self.c - o.c,
            d: self.d - o.d,
        }
    }
}
impl Mul for HyperDual {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        HyperDual {
            a: self.a * o.a,
            b: self.a * o.b + self.b * o.a,
            c: self.a * o.c + self.c * o.a,
            d: self.a * o.d + self.b * o.c + self.c * o.b + self.d * o.a,
        }
    }
}
impl Div for HyperDual {
    type Output = Self;
    #[allow(clippy::suspicious_arithmetic_impl)]
    fn div(self, o: Self) -> Self {
        let inv = 1.0 / o.a;
        self * o.chain(inv, -inv * inv, 2.0 * inv * inv * inv)
    }
}
impl Neg for HyperDual {
    type Output = Self;
    fn neg(self) -> Self {
        HyperDual {
            a: -self.a,
            b: -self.b,
            c: -self.c,
            d: -self.d,
        }
    }
}
impl Add<f64> for HyperDual {
    type Output = Self;
    fn add(self, o: f64) -> Self {
        HyperDual {
            a: self.a + o,
            ..self
        }
    }
}
impl Sub<f64> for HyperDual {
    type Output = Self;
    fn sub(self, o: f64) -> Self {
        HyperDual {
            a: self.a - o,
            ..self
        }
    }
}
impl Mul<f64> for HyperDual {
    type Output = Self;
    fn mul(self, o: f64) -> Self {
        HyperDual {
            a: self.a * o,
            b: self.b * o,
            c: self.c * o,
            d: self.d * o,
        }
    }
}
impl Div<f64> for HyperDual {
    type Output = Self;
    fn div(self, o: f64) -> Self {
        self * (1.0 / o)
    }
}
macro_rules! assign_ops {
    ($($tr:ident $f:ident $op:tt),*) => {$(
        impl $tr for HyperDual { fn $f(&mut self, o: Self) { *self = *self $op o; } }
        impl $tr<f64> for HyperDual { fn $f(&mut self, o: f64) { *self = *self $op o; } }
    )*};
}
assign_ops!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /);

impl Scalar for HyperDual {
    fn from_f64(c: f64) -> Self {
        HyperDual::cst(c)
    }
    fn powi(self, n: i32) -> Self {
        let a = self.a;
        let nf = n as f64;
        self.chain(
            a.powi(n),
            nf * a.powi(n - 1),
            nf * (nf - 1.0) * a.powi(n - 2),
        )
    }
    fn powf(self, e: Self) -> Self {
        (e * self.ln()).exp()
    }
    fn sqrt(self) -> Self {
        let r = self.a.sqrt();
        self.chain(r, 0.5 / r, -0.25 / (r * self.a))
    }
    fn exp(self) -> Self {
        let e = self.a.exp();
        self.chain(e, e, e)
    }
    fn ln(self) -> Self {
        let a = self.a;
        self.chain(a.ln(), 1.0 / a, -1.0 / (a * a))
    }
    fn sin(self) -> Self {
        let (s, c) = self.a.sin_cos();
        self.chain(s, c, -s)
    }
    fn cos(self) -> Self {
        let (s, c) = self.a.sin_cos();
        self.chain(c, -s, -c)
    }
    fn tan(self) -> Self {
        let t = self.a.tan();
        let s = 1.0 + t * t;
        self.chain(t, s, 2.0 * t * s)
    }
    fn atan2(self, x: Self) -> Self {
        let r = self / x;
        let q = 1.0 + r.a * r.a;
        let mut out = r.chain(0.0, 1.0 / q, -2.0 * r.a / (q * q));
        out.a = self.a.atan2(x.a);
        out
    }
    fn tanh(self) -> Self {
        let t = self.a.tanh();
        self.chain(t, 1.0 - t * t, -2.0 * t * (1.0 - t * t))
    }
    fn abs(self) -> Self {
        let s = crate::ad::scalar::sign_f64(self.a);
        self.chain(self.a.abs(), s, 0.0)
    }
    fn sign(self) -> Self {
        HyperDual::cst(crate::ad::scalar::sign_f64(self.a))
    }
    fn constant_value(&self) -> Option<f64> {
        None
    }
}

/// A problem written generically over [`Scalar`].
pub trait ScalarProblem {
    /// Number of variables.
    fn n(&self) -> usize;
    /// Number of constraints.
    fn m(&self) -> usize;
    /// Number of parameters.
    fn n_p(&self) -> usize {
        0
    }
    /// Bounds (as [`Nlp::bounds`]).
    fn bounds(&self, x_l: &mut [f64], x_u: &mut [f64], g_l: &mut [f64], g_u: &mut [f64]);
    /// Initial point.
    fn initial_point(&self, x0: &mut [f64]);
    /// Objective.
    fn objective<S: Scalar>(&self, x: &[S], p: &[S]) -> S;
    /// Constraints (length m).
    fn constraints<S: Scalar>(&self, x: &[S], p: &[S], g: &mut [S]);
}

struct Scratch {
    x: Vec<HyperDual>,
    p: Vec<HyperDual>,
    g: Vec<HyperDual>,
}

/// An [`Nlp`] from a [`ScalarProblem`] with dense Jacobian and Hessian patterns.
pub struct DenseNlp<P: ScalarProblem> {
    /// The wrapped problem.
    pub problem: P,
    jac: SparsityPattern,
    hess: SparsityPattern,
    scratch: RefCell<Scratch>,
}

impl<P: ScalarProblem> DenseNlp<P> {
    /// Wrap `problem`.
    pub fn new(problem: P) -> Self {
        let (n, m) = (problem.n(), problem.m());
        let mut e = Vec::new();
        for j in 0..n {
            for i in j..n {
                e.push((i, j));
            }
        }
        let hess = match SparsityPattern::from_triplets(n, n, &e) {
            Ok((h, _)) => h,
            Err(_) => SparsityPattern::empty(n, n),
        };
        let scratch = Scratch {
            x: vec![HyperDual::cst(0.0); n],
            p: vec![HyperDual::cst(0.0); problem.n_p()],
            g: vec![HyperDual::cst(0.0); m],
        };
        DenseNlp {
            jac: SparsityPattern::dense(m, n),
            hess,
            scratch: RefCell::new(scratch),
            problem,
        }
    }
}

fn load(dst: &mut [HyperDual], src: &[f64]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = HyperDual::cst(s);
    }
}

impl<P: ScalarProblem> Nlp for DenseNlp<P> {
    fn n(&self) -> usize {
        self.problem.n()
    }
    fn m(&self) -> usize {
        self.problem.m()
    }
    fn n_p(&self) -> usize {
        self.problem.n_p()
    }
    fn bounds(&self, x_l: &mut [f64], x_u: &mut [f64], g_l: &mut [f64], g_u: &mut [f64]) {
        self.problem.bounds(x_l, x_u, g_l, g_u)
    }
    fn initial_point(&self, x0: &mut [f64]) {
        self.problem.initial_point(x0)
    }
    fn jacobian_pattern(&self) -> &SparsityPattern {
        &self.jac
    }
    fn hessian_pattern(&self) -> &SparsityPattern {
        &self.hess
    }
    fn eval_f(&self, x: &[f64], p: &[f64]) -> Result<f64, EvalError> {
        let v = self.problem.objective(x, p);
        if v.is_finite() {
            Ok(v)
        } else {
            Err(EvalError("objective"))
        }
    }
    fn eval_grad_f(&self, x: &[f64], p: &[f64], grad: &mut [f64]) -> Result<(), EvalError> {
        let mut s = self.scratch.borrow_mut();
        let s = &mut *s;
        load(&mut s.x, x);
        load(&mut s.p, p);
        for j in 0..x.len() {
            s.x[j].b = 1.0;
            grad[j] = self.problem.objective(&s.x, &s.p).b;
            s.x[j].b = 0.0;
        }
        Ok(())
    }
    fn eval_g(&self, x: &[f64], p: &[f64], g: &mut [f64]) -> Result<(), EvalError> {
        self.problem.constraints(x, p, g);
        Ok(())
    }
    fn eval_jac_g(&self, x: &[f64], p: &[f64], vals: &mut [f64]) -> Result<(), EvalError> {
        let mut s = self.scratch.borrow_mut();
        let s = &mut *s;
        let m = s.g.len();
        load(&mut s.x, x);
        load(&mut s.p, p);
        for j in 0..x.len() {
            s.x[j].b = 1.0;
            self.problem.constraints(&s.x, &s.p, &mut s.g);
            for i in 0..m {
                vals[j * m + i] = s.g[i].b;
            }
            s.x[j].b = 0.0;
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
        let mut s = self.scratch.borrow_mut();
        let s = &mut *s;
        let n = x.len();
        load(&mut s.x, x);
        load(&mut s.p, p);
        let mut k = 0;
        for j in 0..n {
            for i in j..n {
                s.x[i].b = 1.0;
                s.x[j].c = 1.0;
                let mut v = 0.0;
                if sigma_f != 0.0 {
                    v += sigma_f * self.problem.objective(&s.x, &s.p).d;
                }
                if !lambda.is_empty() {
                    self.problem.constraints(&s.x, &s.p, &mut s.g);
                    v += s.g.iter().zip(lambda).map(|(g, l)| g.d * l).sum::<f64>();
                }
                vals[k] = v;
                k += 1;
                s.x[i].b = 0.0;
                s.x[j].c = 0.0;
            }
        }
        Ok(())
    }
}

/// Complementarity functions written generically over [`Scalar`].
pub trait ScalarComplementarity {
    /// Number of variables.
    fn n(&self) -> usize;
    /// Number of pairs.
    fn n_pairs(&self) -> usize;
    /// `G` and `H` (each of length n_pairs).
    fn eval<S: Scalar>(&self, x: &[S], p: &[S], g: &mut [S], h: &mut [S]);
}

/// Hyper-dual scratch vectors (x, p, G, H).
type CompScratch = (
    Vec<HyperDual>,
    Vec<HyperDual>,
    Vec<HyperDual>,
    Vec<HyperDual>,
);

/// A [`Complementarity`] from a [`ScalarComplementarity`] with dense patterns.
pub struct DenseComplementarity<C: ScalarComplementarity> {
    /// The wrapped functions.
    pub comp: C,
    jac: SparsityPattern,
    hess: SparsityPattern,
    scratch: RefCell<CompScratch>,
}

impl<C: ScalarComplementarity> DenseComplementarity<C> {
    /// Wrap `comp` (its parameters have length `n_p`).
    pub fn new(comp: C, n_p: usize) -> Self {
        let (n, k) = (comp.n(), comp.n_pairs());
        let mut e = Vec::new();
        for j in 0..n {
            for i in j..n {
                e.push((i, j));
            }
        }
        let hess = match SparsityPattern::from_triplets(n, n, &e) {
            Ok((h, _)) => h,
            Err(_) => SparsityPattern::empty(n, n),
        };
        let z = HyperDual::cst(0.0);
        DenseComplementarity {
            jac: SparsityPattern::dense(k, n),
            hess,
            scratch: RefCell::new((vec![z; n], vec![z; n_p], vec![z; k], vec![z; k])),
            comp,
        }
    }
}

impl<C: ScalarComplementarity> Complementarity for DenseComplementarity<C> {
    fn n_pairs(&self) -> usize {
        self.comp.n_pairs()
    }
    fn n(&self) -> usize {
        self.comp.n()
    }
    fn g_jacobian_pattern(&self) -> &SparsityPattern {
        &self.jac
    }
    fn h_jacobian_pattern(&self) -> &SparsityPattern {
        &self.jac
    }
    fn eval(&self, x: &[f64], p: &[f64], g: &mut [f64], h: &mut [f64]) -> Result<(), EvalError> {
        self.comp.eval(x, p, g, h);
        Ok(())
    }
    fn eval_jac(
        &self,
        x: &[f64],
        p: &[f64],
        jg: &mut [f64],
        jh: &mut [f64],
    ) -> Result<(), EvalError> {
        let mut s = self.scratch.borrow_mut();
        let (sx, sp, sg, sh) = &mut *s;
        let k = sg.len();
        load(sx, x);
        load(sp, p);
        for j in 0..x.len() {
            sx[j].b = 1.0;
            self.comp.eval(sx, sp, sg, sh);
            for i in 0..k {
                jg[j * k + i] = sg[i].b;
                jh[j * k + i] = sh[i].b;
            }
            sx[j].b = 0.0;
        }
        Ok(())
    }
    fn hessian_pattern(&self) -> Option<&SparsityPattern> {
        Some(&self.hess)
    }
    fn eval_hess(
        &self,
        x: &[f64],
        p: &[f64],
        a: &[f64],
        b: &[f64],
        vals: &mut [f64],
    ) -> Result<(), EvalError> {
        let mut s = self.scratch.borrow_mut();
        let (sx, sp, sg, sh) = &mut *s;
        let n = x.len();
        load(sx, x);
        load(sp, p);
        let mut k = 0;
        for j in 0..n {
            for i in j..n {
                sx[i].b = 1.0;
                sx[j].c = 1.0;
                self.comp.eval(sx, sp, sg, sh);
                let v: f64 = sg.iter().zip(a).map(|(g, w)| g.d * w).sum::<f64>()
                    + sh.iter().zip(b).map(|(h, w)| h.d * w).sum::<f64>();
                vals[k] = v;
                k += 1;
                sx[i].b = 0.0;
                sx[j].c = 0.0;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyperdual_second_derivatives() {
        // f(x, y) = sin(x) * y^3 / (1 + x^2) + atan2(y, x)
        let f = |x: HyperDual, y: HyperDual| {
            x.sin() * y.powi(3) / (x * x + 1.0) + y.atan2(x) + (x * y).sqrt().ln().exp()
        };
        let (x0, y0) = (0.7, 1.3);
        let h = 1e-4;
        let fx = |x: f64, y: f64| f(HyperDual::cst(x), HyperDual::cst(y)).a;
        let mut x = HyperDual::cst(x0);
        let mut y = HyperDual::cst(y0);
        x.b = 1.0;
        y.c = 1.0;
        let v = f(x, y);
        let fd_xy = (fx(x0 + h, y0 + h) - fx(x0 + h, y0 - h) - fx(x0 - h, y0 + h)
            + fx(x0 - h, y0 - h))
            / (4.0 * h * h);
        let fd_x = (fx(x0 + h, y0) - fx(x0 - h, y0)) / (2.0 * h);
        assert!((v.b - fd_x).abs() < 1e-6);
        assert!((v.d - fd_xy).abs() < 1e-5, "{} vs {}", v.d, fd_xy);
    }
}

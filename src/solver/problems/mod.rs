//! Reference problem collections with known solutions (Hock–Schittkowski NLPs, MacMPEC
//! MPCCs), encoded natively and generic over [`Scalar`](crate::ad::Scalar). Used by the tests
//! and by `fesdj bench solver`.

pub mod hs;
pub mod macmpec;

use super::nlp::{Complementarity, Nlp};

/// How the problems of a collection are differentiated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Dense forward-mode hyper-dual numbers ([`DenseNlp`](crate::solver::dense::DenseNlp)).
    Dense,
    /// Symbolic `Sx` expressions compiled into sparse derivative tapes
    /// ([`AdNlp`](crate::solver::ad_nlp::AdNlp)).
    Ad,
}

/// An NLP test problem with its known optimal objective.
pub struct NlpProblem {
    /// Name (e.g. "hs071").
    pub name: &'static str,
    /// The problem.
    pub nlp: Box<dyn Nlp>,
    /// Optimal objective value from the literature.
    pub f_star: f64,
}

/// An MPCC test problem with its known optimal objective.
pub struct MpccProblem {
    /// Name (e.g. "scholtes1").
    pub name: &'static str,
    /// The NLP part.
    pub nlp: Box<dyn Nlp>,
    /// The complementarity pairs.
    pub comp: Box<dyn Complementarity>,
    /// Optimal objective value from the literature (MacMPEC).
    pub f_star: f64,
}

/// Define a [`ScalarProblem`](crate::solver::dense::ScalarProblem) type from formulas.
macro_rules! scalar_problem {
    (
        $ty:ident, n = $n:expr, m = $m:expr,
        x0 = $x0:expr, xl = $xl:expr, xu = $xu:expr, gl = $gl:expr, gu = $gu:expr,
        f = |$x:ident| $f:expr,
        g = |$xg:ident, $g:ident| $gbody:block
    ) => {
        /// Test problem (see the module documentation).
        pub struct $ty;

        impl $crate::solver::dense::ScalarProblem for $ty {
            fn n(&self) -> usize {
                $n
            }
            fn m(&self) -> usize {
                $m
            }
            fn bounds(&self, xl: &mut [f64], xu: &mut [f64], gl: &mut [f64], gu: &mut [f64]) {
                let (a, b, c, d): ([f64; $n], [f64; $n], [f64; $m], [f64; $m]) =
                    ($xl, $xu, $gl, $gu);
                xl.copy_from_slice(&a);
                xu.copy_from_slice(&b);
                gl.copy_from_slice(&c);
                gu.copy_from_slice(&d);
            }
            fn initial_point(&self, x0: &mut [f64]) {
                let a: [f64; $n] = $x0;
                x0.copy_from_slice(&a);
            }
            #[allow(unused_variables)]
            fn objective<S: $crate::ad::Scalar>(&self, $x: &[S], _p: &[S]) -> S {
                $f
            }
            #[allow(unused_variables)]
            fn constraints<S: $crate::ad::Scalar>(&self, $xg: &[S], _p: &[S], $g: &mut [S]) {
                $gbody
            }
        }
    };
}
pub(crate) use scalar_problem;

/// Infinity shorthand for the tables.
pub(crate) const INF: f64 = f64::INFINITY;

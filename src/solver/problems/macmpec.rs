//! MPCCs from Leyffer's MacMPEC collection, encoded natively, with the published optimal
//! objective values (each also verified by hand: the optimum is stated beside each problem).

use super::hs::build;
use super::Backend;
use super::{scalar_problem, MpccProblem, INF};
use crate::ad::Scalar;
use crate::solver::ad_nlp::from_scalar_complementarity;
use crate::solver::dense::{DenseComplementarity, ScalarComplementarity, ScalarProblem};
use crate::solver::nlp::{Complementarity, VariablePairs};

/// No pairs (fallback only).
struct NoPairs(usize);
impl ScalarComplementarity for NoPairs {
    fn n(&self) -> usize {
        self.0
    }
    fn n_pairs(&self) -> usize {
        0
    }
    fn eval<S: Scalar>(&self, _x: &[S], _p: &[S], _g: &mut [S], _h: &mut [S]) {}
}

/// Complementarity functions from a formula (all pairs `0 <= G_i ⟂ H_i >= 0`).
macro_rules! comp {
    ($ty:ident, n = $n:expr, k = $k:expr, |$x:ident, $g:ident, $h:ident| $body:block) => {
        /// Complementarity functions of the problem of the same name.
        pub struct $ty;
        impl ScalarComplementarity for $ty {
            fn n(&self) -> usize {
                $n
            }
            fn n_pairs(&self) -> usize {
                $k
            }
            #[allow(unused_variables)]
            fn eval<S: Scalar>(&self, $x: &[S], _p: &[S], $g: &mut [S], $h: &mut [S]) $body
        }
    };
}

// bard1: (x, y, l1, l2, l3); f* = 17 at x = 1, y = 0.
scalar_problem!(
    Bard1,
    n = 5,
    m = 1,
    x0 = [0.0; 5],
    xl = [0.0; 5],
    xu = [INF; 5],
    gl = [0.0],
    gu = [0.0],
    f = |x| (x[0] - 5.0).sq() + (x[1] * 2.0 + 1.0).sq(),
    g = |x, g| {
        g[0] = (x[1] - 1.0) * 2.0 - x[0] * 1.5 + x[2] - x[3] * 0.5 + x[4];
    }
);
comp!(Bard1C, n = 5, k = 3, |x, g, h| {
    g[0] = x[0] * 3.0 - x[1] - 3.0;
    g[1] = -x[0] + x[1] * 0.5 + 4.0;
    g[2] = -x[0] - x[1] + 7.0;
    h[0] = x[2];
    h[1] = x[3];
    h[2] = x[4];
});
// dempe: (x, z, w); f* = 28.25 is an infimum approached as z -> 0, w -> inf (the start of
// the MacMPEC model; (1, 1, 1) is a degenerate stationary point with f = 31.25).
scalar_problem!(
    Dempe,
    n = 3,
    m = 1,
    x0 = [0.183193, 0.428106, 3.00379],
    xl = [-INF, -INF, 0.0],
    xu = [INF; 3],
    gl = [0.0],
    gu = [0.0],
    f = |x| (x[0] - 3.5).sq() + (x[1] + 4.0).sq(),
    g = |x, g| {
        g[0] = x[1] - 3.0 + x[1] * x[2] * 2.0;
    }
);
comp!(DempeC, n = 3, k = 1, |x, g, h| {
    g[0] = x[0] - x[1] * x[1];
    h[0] = x[2];
});
// desilva: (x1, x2, y1, y2, l1, l2); f* = -1 at x = y = (0.5, 0.5).
scalar_problem!(
    Desilva,
    n = 6,
    m = 2,
    x0 = [1.0; 6],
    xl = [0.0, 0.0, -INF, -INF, 0.0, 0.0],
    xu = [2.0, 2.0, INF, INF, INF, INF],
    gl = [0.0; 2],
    gu = [0.0; 2],
    f = |x| x[0] * x[0] - x[0] * 2.0 + x[1] * x[1] - x[1] * 2.0 + x[2] * x[2] + x[3] * x[3],
    g = |x, g| {
        g[0] = x[2] * 2.0 - x[0] * 2.0 + (x[2] - 1.0) * x[4] * 2.0;
        g[1] = x[3] * 2.0 - x[1] * 2.0 + (x[3] - 1.0) * x[5] * 2.0;
    }
);
comp!(DesilvaC, n = 6, k = 2, |x, g, h| {
    g[0] = -(x[2] - 1.0).sq() + 0.25;
    g[1] = -(x[3] - 1.0).sq() + 0.25;
    h[0] = x[4];
    h[1] = x[5];
});
// df1: (x, y); f* = 0 at (1, 0).
scalar_problem!(
    Df1,
    n = 2,
    m = 2,
    x0 = [0.0; 2],
    xl = [-1.0, 0.0],
    xu = [2.0, INF],
    gl = [-INF; 2],
    gu = [2.0, 3.0],
    f = |x| (x[0] - 1.0 - x[1]).sq(),
    g = |x, g| {
        g[0] = x[0] * x[0];
        g[1] = (x[0] - 1.0).sq() + (x[1] - 1.0).sq();
    }
);
comp!(Df1C, n = 2, k = 1, |x, g, h| {
    g[0] = x[1] - x[0] * x[0] + 1.0;
    h[0] = x[1];
});
// gauvin: (x, y, u); f* = 20 at x = 2, y = 14.
scalar_problem!(
    Gauvin,
    n = 3,
    m = 0,
    x0 = [7.5, 0.0, 1.0],
    xl = [0.0; 3],
    xu = [15.0, INF, INF],
    gl = [],
    gu = [],
    f = |x| x[0] * x[0] + (x[1] - 10.0).sq(),
    g = |x, g| {}
);
comp!(GauvinC, n = 3, k = 2, |x, g, h| {
    g[0] = (x[0] + x[1] * 2.0 - 30.0) * 4.0 + x[2];
    g[1] = -x[0] - x[1] + 20.0;
    h[0] = x[1];
    h[1] = x[2];
});
// jr1: (z1, z2); f* = 0.5 at (0.5, 0.5).
scalar_problem!(
    Jr1,
    n = 2,
    m = 0,
    x0 = [0.0; 2],
    xl = [-INF, 0.0],
    xu = [INF; 2],
    gl = [],
    gu = [],
    f = |x| (x[0] - 1.0).sq() + x[1] * x[1],
    g = |x, g| {}
);
comp!(JrC, n = 2, k = 1, |x, g, h| {
    g[0] = x[1];
    h[0] = x[1] - x[0];
});
// jr2: f* = 0.5 at (0.5, 0.5).
scalar_problem!(
    Jr2,
    n = 2,
    m = 0,
    x0 = [0.0; 2],
    xl = [-INF, 0.0],
    xu = [INF; 2],
    gl = [],
    gu = [],
    f = |x| (x[1] - 1.0).sq() + x[0] * x[0],
    g = |x, g| {}
);
// kth1: f* = 0 at (0, 0).
scalar_problem!(
    Kth1,
    n = 2,
    m = 0,
    x0 = [0.0, 1.0],
    xl = [0.0; 2],
    xu = [INF; 2],
    gl = [],
    gu = [],
    f = |x| x[0] + x[1],
    g = |x, g| {}
);
// kth2: f* = 0 at (0, 1).
scalar_problem!(
    Kth2,
    n = 2,
    m = 0,
    x0 = [0.0, 1.0],
    xl = [0.0; 2],
    xu = [INF; 2],
    gl = [],
    gu = [],
    f = |x| x[0] + (x[1] - 1.0).sq(),
    g = |x, g| {}
);
// kth3: f* = 0.5 at (0, 1).
scalar_problem!(
    Kth3,
    n = 2,
    m = 0,
    x0 = [0.0, 1.0],
    xl = [0.0; 2],
    xu = [INF; 2],
    gl = [],
    gu = [],
    f = |x| (x[0] - 1.0).sq() * 0.5 + (x[1] - 1.0).sq(),
    g = |x, g| {}
);
// ralph1: (x, y); f* = 0 at (0, 0) (B- but not strongly stationary).
scalar_problem!(
    Ralph1,
    n = 2,
    m = 0,
    x0 = [0.0; 2],
    xl = [0.0; 2],
    xu = [INF; 2],
    gl = [],
    gu = [],
    f = |x| x[0] * 2.0 - x[1],
    g = |x, g| {}
);
comp!(Ralph1C, n = 2, k = 1, |x, g, h| {
    g[0] = x[1];
    h[0] = x[1] - x[0];
});
// ralph2: f* = 0 at (0, 0).
scalar_problem!(
    Ralph2,
    n = 2,
    m = 0,
    x0 = [1.0; 2],
    xl = [0.0; 2],
    xu = [INF; 2],
    gl = [],
    gu = [],
    f = |x| x[0] * x[0] + x[1] * x[1] - x[0] * x[1] * 4.0,
    g = |x, g| {}
);
// scholtes1: (x, y1, y2); f* = 2 at (0, 2.5, 0).
scalar_problem!(
    Scholtes1,
    n = 3,
    m = 0,
    x0 = [1.0; 3],
    xl = [0.0, -INF, 0.0],
    xu = [INF; 3],
    gl = [],
    gu = [],
    f = |x| (x[0] + 1.0).sq() + (x[1] - 2.5).sq() + (x[2] + 1.0).sq(),
    g = |x, g| {}
);
comp!(ScholtesC, n = 3, k = 1, |x, g, h| {
    g[0] = -x[0].exp() + x[1] - x[2].exp();
    h[0] = x[0];
});
// scholtes2: f* = 15 at (0, 2, 0).
scalar_problem!(
    Scholtes2,
    n = 3,
    m = 0,
    x0 = [1.0; 3],
    xl = [0.0, -INF, 0.0],
    xu = [INF; 3],
    gl = [],
    gu = [],
    f = |x| (x[0] + 1.0).sq() + x[1] * x[1] + (x[2] + 1.0).sq() * 10.0,
    g = |x, g| {}
);
// scholtes3: f* = 0.5 at (1, 0) or (0, 1).
scalar_problem!(
    Scholtes3,
    n = 2,
    m = 0,
    x0 = [1e-4; 2],
    xl = [0.0; 2],
    xu = [INF; 2],
    gl = [],
    gu = [],
    f = |x| ((x[0] - 1.0).sq() + (x[1] - 1.0).sq()) * 0.5,
    g = |x, g| {}
);
// scholtes4: (z1, z2, z3); f* = 0 at (0, 0, 0) (MacMPEC lists -3.07e-7).
scalar_problem!(
    Scholtes4,
    n = 3,
    m = 2,
    x0 = [0.0, 1.0, 0.0],
    xl = [0.0, 0.0, -INF],
    xu = [INF; 3],
    gl = [-INF; 2],
    gu = [0.0; 2],
    f = |x| x[0] + x[1] - x[2],
    g = |x, g| {
        g[0] = -x[0] * 4.0 + x[2];
        g[1] = -x[1] * 4.0 + x[2];
    }
);
// scholtes5: f* = 1 at (1, 2, 0).
scalar_problem!(
    Scholtes5,
    n = 3,
    m = 0,
    x0 = [1.0; 3],
    xl = [0.0; 3],
    xu = [INF; 3],
    gl = [],
    gu = [],
    f = |x| (x[0] - 1.0).sq() + (x[1] - 2.0).sq() + (x[2] + 1.0).sq(),
    g = |x, g| {}
);

/// The MacMPEC set with published optimal values (dense derivatives).
pub fn all() -> Vec<MpccProblem> {
    collection(Backend::Dense)
}

/// The MacMPEC set with the chosen derivative backend.
pub fn collection(backend: Backend) -> Vec<MpccProblem> {
    let be = backend;
    fn fun<P: ScalarProblem + 'static, C: ScalarComplementarity + 'static>(
        name: &'static str,
        p: P,
        c: C,
        f_star: f64,
        be: Backend,
    ) -> MpccProblem {
        let comp: Box<dyn Complementarity> = match be {
            Backend::Dense => Box::new(DenseComplementarity::new(c, 0)),
            Backend::Ad => match from_scalar_complementarity(&c, 0) {
                Ok(c) => Box::new(c),
                Err(_) => Box::new(DenseComplementarity::new(c, 0)),
            },
        };
        MpccProblem {
            name,
            nlp: build(p, be),
            comp,
            f_star,
        }
    }
    fn var<P: ScalarProblem + 'static>(
        name: &'static str,
        p: P,
        pairs: Vec<(usize, usize)>,
        f_star: f64,
        be: Backend,
    ) -> MpccProblem {
        let n = p.n();
        let comp: Box<dyn Complementarity> = match VariablePairs::new(n, pairs) {
            Ok(v) => Box::new(v),
            Err(_) => Box::new(DenseComplementarity::new(NoPairs(n), 0)),
        };
        MpccProblem {
            name,
            nlp: build(p, be),
            comp,
            f_star,
        }
    }
    vec![
        fun("bard1", Bard1, Bard1C, 17.0, be),
        fun("dempe", Dempe, DempeC, 28.25, be),
        fun("desilva", Desilva, DesilvaC, -1.0, be),
        fun("df1", Df1, Df1C, 0.0, be),
        fun("gauvin", Gauvin, GauvinC, 20.0, be),
        fun("jr1", Jr1, JrC, 0.5, be),
        fun("jr2", Jr2, JrC, 0.5, be),
        var("kth1", Kth1, vec![(0, 1)], 0.0, be),
        var("kth2", Kth2, vec![(0, 1)], 0.0, be),
        var("kth3", Kth3, vec![(0, 1)], 0.5, be),
        fun("ralph1", Ralph1, Ralph1C, 0.0, be),
        var("ralph2", Ralph2, vec![(0, 1)], 0.0, be),
        fun("scholtes1", Scholtes1, ScholtesC, 2.0, be),
        fun("scholtes2", Scholtes2, ScholtesC, 15.0, be),
        var("scholtes3", Scholtes3, vec![(0, 1)], 0.5, be),
        var("scholtes4", Scholtes4, vec![(0, 1)], 0.0, be),
        var("scholtes5", Scholtes5, vec![(0, 2), (1, 2)], 1.0, be),
    ]
}

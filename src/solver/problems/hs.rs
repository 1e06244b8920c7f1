//! Hock–Schittkowski problems (W. Hock, K. Schittkowski, *Test Examples for Nonlinear
//! Programming Codes*, 1981) with their published optimal values, plus a rank-deficient,
//! an infeasible and a parametric problem.

use super::Backend;
use super::{scalar_problem, NlpProblem, INF};
use crate::ad::Scalar;
use crate::solver::ad_nlp::from_scalar_problem;
use crate::solver::dense::{DenseNlp, ScalarProblem};
use crate::solver::nlp::Nlp;

scalar_problem!(
    Hs001,
    n = 2,
    m = 0,
    x0 = [-2.0, 1.0],
    xl = [-INF, -1.5],
    xu = [INF, INF],
    gl = [],
    gu = [],
    f = |x| (x[1] - x[0] * x[0]).sq() * 100.0 + (-x[0] + 1.0).sq(),
    g = |x, g| {}
);
scalar_problem!(
    Hs006,
    n = 2,
    m = 1,
    x0 = [-1.2, 1.0],
    xl = [-INF; 2],
    xu = [INF; 2],
    gl = [0.0],
    gu = [0.0],
    f = |x| (-x[0] + 1.0).sq(),
    g = |x, g| {
        g[0] = (x[1] - x[0] * x[0]) * 10.0;
    }
);
scalar_problem!(
    Hs010,
    n = 2,
    m = 1,
    x0 = [-10.0, 10.0],
    xl = [-INF; 2],
    xu = [INF; 2],
    gl = [0.0],
    gu = [INF],
    f = |x| x[0] - x[1],
    g = |x, g| {
        g[0] = -(x[0] * x[0]) * 3.0 + x[0] * x[1] * 2.0 - x[1] * x[1] + 1.0;
    }
);
scalar_problem!(
    Hs014,
    n = 2,
    m = 2,
    x0 = [2.0, 2.0],
    xl = [-INF; 2],
    xu = [INF; 2],
    gl = [0.0, 0.0],
    gu = [0.0, INF],
    f = |x| (x[0] - 2.0).sq() + (x[1] - 1.0).sq(),
    g = |x, g| {
        g[0] = x[0] - x[1] * 2.0 + 1.0;
        g[1] = -(x[0] * x[0]) / 4.0 - x[1] * x[1] + 1.0;
    }
);
scalar_problem!(
    Hs021,
    n = 2,
    m = 1,
    x0 = [-1.0, -1.0],
    xl = [2.0, -50.0],
    xu = [50.0, 50.0],
    gl = [0.0],
    gu = [INF],
    f = |x| x[0] * x[0] * 0.01 + x[1] * x[1] - 100.0,
    g = |x, g| {
        g[0] = x[0] * 10.0 - x[1] - 10.0;
    }
);
scalar_problem!(
    Hs035,
    n = 3,
    m = 1,
    x0 = [0.5; 3],
    xl = [0.0; 3],
    xu = [INF; 3],
    gl = [-INF],
    gu = [3.0],
    f = |x| -x[0] * 8.0 - x[1] * 6.0 - x[2] * 4.0
        + x[0] * x[0] * 2.0
        + x[1] * x[1] * 2.0
        + x[2] * x[2]
        + x[0] * x[1] * 2.0
        + x[0] * x[2] * 2.0
        + 9.0,
    g = |x, g| {
        g[0] = x[0] + x[1] + x[2] * 2.0;
    }
);
scalar_problem!(
    Hs038,
    n = 4,
    m = 0,
    x0 = [-3.0, -1.0, -3.0, -1.0],
    xl = [-10.0; 4],
    xu = [10.0; 4],
    gl = [],
    gu = [],
    f = |x| (x[1] - x[0] * x[0]).sq() * 100.0
        + (-x[0] + 1.0).sq()
        + (x[3] - x[2] * x[2]).sq() * 90.0
        + (-x[2] + 1.0).sq()
        + ((x[1] - 1.0).sq() + (x[3] - 1.0).sq()) * 10.1
        + (x[1] - 1.0) * (x[3] - 1.0) * 19.8,
    g = |x, g| {}
);
scalar_problem!(
    Hs039,
    n = 4,
    m = 2,
    x0 = [2.0; 4],
    xl = [-INF; 4],
    xu = [INF; 4],
    gl = [0.0; 2],
    gu = [0.0; 2],
    f = |x| -x[0],
    g = |x, g| {
        g[0] = x[1] - x[0].powi(3) - x[2] * x[2];
        g[1] = x[0] * x[0] - x[1] - x[3] * x[3];
    }
);
scalar_problem!(
    Hs040,
    n = 4,
    m = 3,
    x0 = [0.8; 4],
    xl = [-INF; 4],
    xu = [INF; 4],
    gl = [0.0; 3],
    gu = [0.0; 3],
    f = |x| -(x[0] * x[1] * x[2] * x[3]),
    g = |x, g| {
        g[0] = x[0].powi(3) + x[1] * x[1] - 1.0;
        g[1] = x[0] * x[0] * x[3] - x[2];
        g[2] = x[3] * x[3] - x[1];
    }
);
scalar_problem!(
    Hs043,
    n = 4,
    m = 3,
    x0 = [0.0; 4],
    xl = [-INF; 4],
    xu = [INF; 4],
    gl = [0.0; 3],
    gu = [INF; 3],
    f = |x| x[0] * x[0] + x[1] * x[1] + x[2] * x[2] * 2.0 + x[3] * x[3]
        - x[0] * 5.0
        - x[1] * 5.0
        - x[2] * 21.0
        + x[3] * 7.0,
    g = |x, g| {
        g[0] = -(x[0] * x[0]) - x[1] * x[1] - x[2] * x[2] - x[3] * x[3] - x[0] + x[1] - x[2]
            + x[3]
            + 8.0;
        g[1] = -(x[0] * x[0]) - x[1] * x[1] * 2.0 - x[2] * x[2] - x[3] * x[3] * 2.0
            + x[0]
            + x[3]
            + 10.0;
        g[2] = -(x[0] * x[0]) * 2.0 - x[1] * x[1] - x[2] * x[2] - x[0] * 2.0 + x[1] + x[3] + 5.0;
    }
);
scalar_problem!(
    Hs044,
    n = 4,
    m = 6,
    x0 = [0.0; 4],
    xl = [0.0; 4],
    xu = [INF; 4],
    gl = [-INF; 6],
    gu = [8.0, 12.0, 12.0, 8.0, 8.0, 5.0],
    f = |x| x[0] - x[1] - x[2] - x[0] * x[2] + x[0] * x[3] + x[1] * x[2] - x[1] * x[3],
    g = |x, g| {
        g[0] = x[0] + x[1] * 2.0;
        g[1] = x[0] * 4.0 + x[1];
        g[2] = x[0] * 3.0 + x[1] * 4.0;
        g[3] = x[2] * 2.0 + x[3];
        g[4] = x[2] + x[3] * 2.0;
        g[5] = x[2] + x[3];
    }
);
scalar_problem!(
    Hs071,
    n = 4,
    m = 2,
    x0 = [1.0, 5.0, 5.0, 1.0],
    xl = [1.0; 4],
    xu = [5.0; 4],
    gl = [25.0, 40.0],
    gu = [INF, 40.0],
    f = |x| x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2],
    g = |x, g| {
        g[0] = x[0] * x[1] * x[2] * x[3];
        g[1] = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3];
    }
);
scalar_problem!(
    Hs076,
    n = 4,
    m = 3,
    x0 = [0.5; 4],
    xl = [0.0; 4],
    xu = [INF; 4],
    gl = [-INF, -INF, 1.5],
    gu = [5.0, 4.0, INF],
    f = |x| x[0] * x[0] + x[1] * x[1] * 0.5 + x[2] * x[2] + x[3] * x[3] * 0.5 - x[0] * x[2]
        + x[2] * x[3]
        - x[0]
        - x[1] * 3.0
        + x[2]
        - x[3],
    g = |x, g| {
        g[0] = x[0] + x[1] * 2.0 + x[2] + x[3];
        g[1] = x[0] * 3.0 + x[1] + x[2] * 2.0 - x[3];
        g[2] = x[1] + x[2] * 4.0;
    }
);
scalar_problem!(
    Hs100,
    n = 7,
    m = 4,
    x0 = [1.0, 2.0, 0.0, 4.0, 0.0, 1.0, 1.0],
    xl = [-INF; 7],
    xu = [INF; 7],
    gl = [0.0; 4],
    gu = [INF; 4],
    f = |x| (x[0] - 10.0).sq()
        + (x[1] - 12.0).sq() * 5.0
        + x[2].powi(4)
        + (x[3] - 11.0).sq() * 3.0
        + x[4].powi(6) * 10.0
        + x[5] * x[5] * 7.0
        + x[6].powi(4)
        - x[5] * x[6] * 4.0
        - x[5] * 10.0
        - x[6] * 8.0,
    g = |x, g| {
        g[0] = -(x[0] * x[0]) * 2.0 - x[1].powi(4) * 3.0 - x[2] - x[3] * x[3] * 4.0 - x[4] * 5.0
            + 127.0;
        g[1] = -x[0] * 7.0 - x[1] * 3.0 - x[2] * x[2] * 10.0 - x[3] + x[4] + 282.0;
        g[2] = -x[0] * 23.0 - x[1] * x[1] - x[5] * x[5] * 6.0 + x[6] * 8.0 + 196.0;
        g[3] =
            -(x[0] * x[0]) * 4.0 - x[1] * x[1] + x[0] * x[1] * 3.0 - x[2] * x[2] * 2.0 - x[5] * 5.0
                + x[6] * 11.0;
    }
);
scalar_problem!(
    Hs113,
    n = 10,
    m = 8,
    x0 = [2.0, 3.0, 5.0, 5.0, 1.0, 2.0, 7.0, 3.0, 6.0, 10.0],
    xl = [-INF; 10],
    xu = [INF; 10],
    gl = [0.0; 8],
    gu = [INF; 8],
    f = |x| x[0] * x[0] + x[1] * x[1] + x[0] * x[1] - x[0] * 14.0 - x[1] * 16.0
        + (x[2] - 10.0).sq()
        + (x[3] - 5.0).sq() * 4.0
        + (x[4] - 3.0).sq()
        + (x[5] - 1.0).sq() * 2.0
        + x[6] * x[6] * 5.0
        + (x[7] - 11.0).sq() * 7.0
        + (x[8] - 10.0).sq() * 2.0
        + (x[9] - 7.0).sq()
        + 45.0,
    g = |x, g| {
        g[0] = -x[0] * 4.0 - x[1] * 5.0 + x[6] * 3.0 - x[7] * 9.0 + 105.0;
        g[1] = -x[0] * 10.0 + x[1] * 8.0 + x[6] * 17.0 - x[7] * 2.0;
        g[2] = x[0] * 8.0 - x[1] * 2.0 - x[8] * 5.0 + x[9] * 2.0 + 12.0;
        g[3] = -(x[0] - 2.0).sq() * 3.0 - (x[1] - 3.0).sq() * 4.0 - x[2] * x[2] * 2.0
            + x[3] * 7.0
            + 120.0;
        g[4] = -(x[0] * x[0]) * 5.0 - x[1] * 8.0 - (x[2] - 6.0).sq() + x[3] * 2.0 + 40.0;
        g[5] = -(x[0] - 8.0).sq() * 0.5 - (x[1] - 4.0).sq() * 2.0 - x[4] * x[4] * 3.0 + x[5] + 30.0;
        g[6] =
            -(x[0] * x[0]) - (x[1] - 2.0).sq() * 2.0 + x[0] * x[1] * 2.0 - x[4] * 14.0 + x[5] * 6.0;
        g[7] = x[0] * 3.0 - x[1] * 6.0 - (x[8] - 8.0).sq() * 12.0 + x[9] * 7.0;
    }
);
// Degenerate: the two equality rows are linearly dependent (rank-deficient Jacobian
// everywhere); optimum x = (0.5, 0.5), f = 0.5.
scalar_problem!(
    RankDeficient,
    n = 2,
    m = 2,
    x0 = [3.0, -1.0],
    xl = [-INF; 2],
    xu = [INF; 2],
    gl = [1.0, 2.0],
    gu = [1.0, 2.0],
    f = |x| x[0] * x[0] + x[1] * x[1],
    g = |x, g| {
        g[0] = x[0] + x[1];
        g[1] = x[0] * 2.0 + x[1] * 2.0;
    }
);
// Infeasible: the unit disc and the half plane x1 + x2 >= 3 do not intersect.
scalar_problem!(
    Infeasible,
    n = 2,
    m = 2,
    x0 = [0.0, 0.0],
    xl = [-INF; 2],
    xu = [INF; 2],
    gl = [-INF, 3.0],
    gu = [1.0, INF],
    f = |x| x[0] + x[1],
    g = |x, g| {
        g[0] = x[0] * x[0] + x[1] * x[1];
        g[1] = x[0] + x[1];
    }
);

/// Parametric projection onto a half plane: `min (x1−p1)² + (x2−p2)² s.t. x1 + x2 <= 1`.
pub struct Parametric;
impl ScalarProblem for Parametric {
    fn n(&self) -> usize {
        2
    }
    fn m(&self) -> usize {
        1
    }
    fn n_p(&self) -> usize {
        2
    }
    fn bounds(&self, xl: &mut [f64], xu: &mut [f64], gl: &mut [f64], gu: &mut [f64]) {
        xl.fill(-INF);
        xu.fill(INF);
        gl[0] = -INF;
        gu[0] = 1.0;
    }
    fn initial_point(&self, x0: &mut [f64]) {
        x0.fill(0.0);
    }
    fn objective<S: Scalar>(&self, x: &[S], p: &[S]) -> S {
        (x[0] - p[0]).sq() + (x[1] - p[1]).sq()
    }
    fn constraints<S: Scalar>(&self, x: &[S], _p: &[S], g: &mut [S]) {
        g[0] = x[0] + x[1];
    }
}

/// The analytic solution of [`Parametric`] for parameters `p`.
pub fn parametric_solution(p: [f64; 2]) -> [f64; 2] {
    let t = (p[0] + p[1] - 1.0).max(0.0) / 2.0;
    [p[0] - t, p[1] - t]
}

/// The Hock–Schittkowski set with published optimal values (dense derivatives).
pub fn all() -> Vec<NlpProblem> {
    collection(Backend::Dense)
}

/// The Hock–Schittkowski set with the chosen derivative backend.
pub fn collection(backend: Backend) -> Vec<NlpProblem> {
    fn b<P: ScalarProblem + 'static>(
        name: &'static str,
        p: P,
        f_star: f64,
        be: Backend,
    ) -> NlpProblem {
        NlpProblem {
            name,
            nlp: build(p, be),
            f_star,
        }
    }
    vec![
        b("hs001", Hs001, 0.0, backend),
        b("hs006", Hs006, 0.0, backend),
        b("hs010", Hs010, -1.0, backend),
        b("hs014", Hs014, 9.0 - 2.875 * 7f64.sqrt(), backend),
        b("hs021", Hs021, -99.96, backend),
        b("hs035", Hs035, 1.0 / 9.0, backend),
        b("hs038", Hs038, 0.0, backend),
        b("hs039", Hs039, -1.0, backend),
        b("hs040", Hs040, -0.25, backend),
        b("hs043", Hs043, -44.0, backend),
        b("hs044", Hs044, -15.0, backend),
        b("hs071", Hs071, 17.0140173, backend),
        b("hs076", Hs076, -4.681818181, backend),
        b("hs100", Hs100, 680.6300573, backend),
        b("hs113", Hs113, 24.3062091, backend),
        b("rank_deficient", RankDeficient, 0.5, backend),
    ]
}

/// Wrap a generic problem with the chosen derivative backend.
pub fn build<P: ScalarProblem + 'static>(p: P, backend: Backend) -> Box<dyn Nlp> {
    match backend {
        Backend::Dense => Box::new(DenseNlp::new(p)),
        Backend::Ad => match from_scalar_problem(&p) {
            Ok(nlp) => Box::new(nlp),
            Err(_) => Box::new(DenseNlp::new(p)),
        },
    }
}

/// The infeasible problem (expected status: Infeasible).
pub fn infeasible() -> DenseNlp<Infeasible> {
    DenseNlp::new(Infeasible)
}

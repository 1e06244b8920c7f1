//! `HomotopySettings::warm_active_set` (formulation §4.8): a warm-started solve first tries the
//! active-set NLP of its start point and runs the homotopy only when that fails.
//!
//! The problem, with parameters `(p, q)`, variables `a, b, y ≥ 0` and one pair whose `G` is a
//! sum of variables:
//!
//! ```text
//! min (a − p)² + (b − p)² + (y − 1)²   s.t.  a + b ≥ q,   0 ≤ a + b ⟂ y ≥ 0.
//! ```
//!
//! Its two branches, solved by hand: `G = 0` (a = b = 0, y = 1, f = 2p², feasible only for
//! q ≤ 0) and `y = 0` (a = b = max(p, q/2), f = 2(max(p, q/2) − p)² + 1). At (p, q) = (0.3, 0)
//! the minimiser is the first branch (f = 0.18); moved to (0.4, 0) it stays there (f = 0.32), and
//! the active-set NLP of the old solution reaches it in one smooth solve; moved to (0.3, 0.5)
//! the first branch is infeasible, the active-set NLP fails and the homotopy finds the second
//! (a = b = 0.3, f = 1).

use fesdj_mpc::ad::Scalar;
use fesdj_mpc::ad::{Function, Sx};
use fesdj_mpc::solver::ad_nlp::{from_scalar_problem, AdComplementarity};
use fesdj_mpc::solver::dense::ScalarProblem;
use fesdj_mpc::solver::{
    Complementarity, HomotopySettings, MpccResult, MpccSolver, Nlp, Status, WarmPoint,
};

struct SumPair;

impl ScalarProblem for SumPair {
    fn n(&self) -> usize {
        3
    }
    fn m(&self) -> usize {
        1
    }
    fn n_p(&self) -> usize {
        2
    }
    fn bounds(&self, x_l: &mut [f64], x_u: &mut [f64], g_l: &mut [f64], g_u: &mut [f64]) {
        x_l.fill(0.0);
        x_u.fill(f64::INFINITY);
        g_l[0] = 0.0;
        g_u[0] = f64::INFINITY;
    }
    fn initial_point(&self, x0: &mut [f64]) {
        x0.copy_from_slice(&[0.5, 0.5, 0.5]);
    }
    fn objective<S: Scalar>(&self, x: &[S], p: &[S]) -> S {
        let one = S::from_f64(1.0);
        (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[0]) * (x[1] - p[0]) + (x[2] - one) * (x[2] - one)
    }
    fn constraints<S: Scalar>(&self, x: &[S], p: &[S], g: &mut [S]) {
        g[0] = x[0] + x[1] - p[1];
    }
}

fn problem() -> (Box<dyn Nlp>, AdComplementarity) {
    let nlp = from_scalar_problem(&SumPair).expect("the NLP builds");
    let x = Sx::sym_vec("x", 3);
    let p = Sx::sym_vec("p", 2);
    let g = Function::new("G", &[&x, &p], &[&[x[0] + x[1]]]).expect("G");
    let h = Function::new("H", &[&x, &p], &[&[x[2]]]).expect("H");
    let comp = AdComplementarity::new(&g, &h).expect("pairs");
    (Box::new(nlp), comp)
}

fn settings(active_set: bool) -> HomotopySettings {
    HomotopySettings {
        warm_active_set: active_set,
        ..HomotopySettings::default()
    }
}

/// Cold solve at (0.3, 0), then a warm solve from its primal-dual solution at `p_new`.
fn warm_after_cold(active_set: bool, free: bool, p_new: [f64; 2]) -> (MpccResult, MpccResult) {
    let warm = HomotopySettings {
        sigma0: 1e-6,
        ..settings(active_set)
    };
    warm_after_cold_with(settings(active_set), warm, free, p_new)
}

/// Cold solve at (0.3, 0) with `cold`, then a warm solve with `warm` from its primal-dual
/// solution at `p_new`; with `free` the pair stays relaxed in the warm active-set NLP. Also
/// used by `warm_fallback`.
pub(crate) fn warm_after_cold_with(
    cold: HomotopySettings,
    warm: HomotopySettings,
    free: bool,
    p_new: [f64; 2],
) -> (MpccResult, MpccResult) {
    let (nlp, comp) = problem();
    assert_eq!(
        comp.g_members(0),
        &[0, 1],
        "G = a + b is recognised as a sum"
    );
    assert!(comp.h_members(0).is_empty());
    let mut solver = MpccSolver::new(nlp.as_ref(), &comp, cold).expect("solver");
    if free {
        solver.set_active_set_free(&[true]).expect("one pair");
    }
    let cold = solver
        .solve(nlp.as_ref(), &comp, &[0.3, 0.0], None)
        .expect("cold solve runs");
    let (l, zl, zu) = solver.duals();
    let (l, zl, zu) = (l.to_vec(), zl.to_vec(), zu.to_vec());
    let x = cold.x.clone();
    let mut out = MpccResult::empty();
    solver.set_settings(warm).expect("settings");
    solver
        .solve_warm_into(
            nlp.as_ref(),
            &comp,
            &p_new,
            WarmPoint {
                x: &x,
                lambda: &l,
                z_l: &zl,
                z_u: &zu,
            },
            &mut out,
        )
        .expect("warm solve runs");
    for st in &out.steps {
        eprintln!(
            "σ {:.1e} {:?} {} it, min(G,H) {:.1e}, f {:.9}",
            st.sigma, st.status, st.iterations, st.comp_residual, st.objective
        );
    }
    (cold, out)
}

#[test]
fn the_active_set_of_the_warm_start_solves_in_one_nlp() {
    let (cold, warm) = warm_after_cold(true, false, [0.4, 0.0]);
    assert_eq!(cold.status, Status::Solved);
    assert!(
        (cold.objective - 0.18).abs() < 1e-8,
        "f = {}",
        cold.objective
    );
    assert_eq!(warm.status, Status::Solved);
    assert!(
        (warm.objective - 0.32).abs() < 1e-8,
        "f = {}",
        warm.objective
    );
    // One active-set NLP (recorded at σ = 0), no relaxed NLP of the homotopy.
    assert_eq!(warm.steps.len(), 1);
    assert_eq!(warm.steps[0].sigma, 0.0);
    assert_eq!(warm.homotopy_steps, 0);
    // G = a + b was fixed through its members: both are exactly zero (fixed variables), and
    // complementarity holds exactly.
    assert_eq!(&warm.x[..2], &[0.0, 0.0]);
    assert!((warm.x[2] - 1.0).abs() < 1e-8);
    assert_eq!(warm.comp_residual, 0.0);
}

#[test]
fn without_it_the_warm_start_runs_the_homotopy() {
    let (_, warm) = warm_after_cold(false, false, [0.4, 0.0]);
    assert_eq!(warm.status, Status::Solved);
    assert!(
        (warm.objective - 0.32).abs() < 1e-6,
        "f = {}",
        warm.objective
    );
    assert!(warm.homotopy_steps >= 1);
    assert!(warm.steps.iter().all(|s| s.sigma > 0.0));
}

#[test]
fn an_infeasible_active_set_falls_back_to_the_homotopy() {
    let (_, warm) = warm_after_cold(true, false, [0.3, 0.5]);
    // The active-set NLP (a = b = 0 against a + b ≥ 0.5) fails; the homotopy solves.
    assert_eq!(warm.steps[0].sigma, 0.0);
    assert!(
        !warm.steps[0].status.is_success(),
        "{:?}",
        warm.steps[0].status
    );
    assert!(warm.homotopy_steps >= 1);
    assert_eq!(warm.status, Status::Solved);
    assert!(
        (warm.objective - 1.0).abs() < 1e-6,
        "f = {}",
        warm.objective
    );
    assert!((warm.x[0] - 0.3).abs() < 1e-6 && (warm.x[1] - 0.3).abs() < 1e-6);
    assert!(warm.x[2].abs() < 1e-6);
}

#[test]
fn a_pair_left_free_is_relaxed_then_fixed() {
    let (_, warm) = warm_after_cold(true, true, [0.4, 0.0]);
    // The first active-set NLP keeps the pair relaxed at σ₀ = 1e-6 (a + b ≈ 1e-6 > comp_tol);
    // the second fixes its active set and meets the stop test.
    assert_eq!(warm.steps.len(), 2, "{:?}", warm.steps);
    assert!(warm.steps.iter().all(|s| s.sigma == 0.0));
    assert!(warm.steps[0].comp_residual > 1e-9);
    assert_eq!(warm.status, Status::Solved);
    assert_eq!(warm.homotopy_steps, 0);
    assert!(
        (warm.objective - 0.32).abs() < 1e-8,
        "f = {}",
        warm.objective
    );
    assert_eq!(warm.comp_residual, 0.0);
}

#[test]
fn the_free_pairs_must_match_the_problem() {
    let (nlp, comp) = problem();
    let mut solver = MpccSolver::new(nlp.as_ref(), &comp, settings(true)).expect("solver");
    assert!(solver.set_active_set_free(&[true, false]).is_err());
    let mut s = settings(true);
    s.warm_active_set_max_iter = 0;
    assert!(solver.set_settings(s).is_err());
}

//! `HomotopySettings::warm_fallback_sigma0`: a warm-started solve whose first path (a small
//! warm σ₀) fails runs the homotopy again from the same warm start with the fallback σ₀.
//!
//! The problem and the cold-then-warm helper of `solver_warm_active_set` (parameters `(p, q)`, variables `a, b, y ≥ 0`):
//!
//! ```text
//! min (a − p)² + (b − p)² + (y − 1)²   s.t.  a + b ≥ q,   0 ≤ a + b ⟂ y ≥ 0,
//! ```
//!
//! solved by hand there: at (p, q) = (0.3, 0) the minimiser is `a = b = 0, y = 1` (f = 0.18);
//! at (0.3, 0.5) that branch is infeasible and the minimiser is `a = b = 0.3, y = 0` (f = 1).

use fesdj_mpc::solver::{HomotopySettings, MpccResult, SolverError, Status};

use super::solver_warm_active_set::warm_after_cold_with;

/// Cold solve at (0.3, 0) with the default settings, then one warm solve from its primal-dual
/// solution at `p_new` with `warm` (σ₀ included).
fn warm_after_cold(warm: HomotopySettings, p_new: [f64; 2]) -> MpccResult {
    let (cold, out) = warm_after_cold_with(HomotopySettings::default(), warm, false, p_new);
    assert_eq!(cold.status, Status::Solved);
    assert!(
        (cold.objective - 0.18).abs() < 1e-8,
        "f = {}",
        cold.objective
    );
    out
}

/// A warm σ₀ of 1e-6 whose first relaxed NLP may take `first_max_iter` IPM iterations, with
/// the fallback from σ₀ = 1.
fn with_fallback(first_max_iter: usize) -> HomotopySettings {
    HomotopySettings {
        sigma0: 1e-6,
        warm_fallback_sigma0: 1.0,
        warm_first_max_iter: first_max_iter,
        ..HomotopySettings::default()
    }
}

#[test]
fn a_failed_first_path_is_followed_by_the_homotopy_from_the_fallback_sigma() {
    // Two IPM iterations cannot solve the NLP of the moved problem: the first path stops.
    let out = warm_after_cold(with_fallback(2), [0.3, 0.5]);
    assert_eq!(out.status, Status::Solved);
    assert!((out.objective - 1.0).abs() < 1e-8, "f = {}", out.objective);
    assert!((out.x[0] - 0.3).abs() < 1e-8 && (out.x[1] - 0.3).abs() < 1e-8);
    assert!(out.x[2].abs() < 1e-8, "y = {}", out.x[2]);
    // One failed NLP of the first path at σ₀ = 1e-6 (stopped at its limit, no retry at a
    // smaller σ, no polishing), then the fallback path from σ = 1.
    assert_eq!(out.steps[0].sigma, 1e-6);
    assert_eq!(out.steps[0].status, Status::MaxIterations);
    assert_eq!(out.steps[0].iterations, 2);
    assert_eq!(out.steps[1].sigma, 1.0);
    let total: usize = out.steps.iter().map(|s| s.iterations).sum();
    assert_eq!(
        out.nlp_iterations, total,
        "both paths' iterations are counted"
    );

    // The fallback path is the plain homotopy from σ₀ = 1 and the same warm start: the same
    // steps and, bit for bit, the same point.
    let plain = warm_after_cold(
        HomotopySettings {
            sigma0: 1.0,
            ..HomotopySettings::default()
        },
        [0.3, 0.5],
    );
    assert_eq!(plain.status, Status::Solved);
    assert_eq!(plain.x, out.x);
    assert_eq!(plain.steps.len(), out.steps.len() - 1);
    for (a, b) in plain.steps.iter().zip(&out.steps[1..]) {
        assert_eq!(
            (a.sigma, a.status, a.iterations),
            (b.sigma, b.status, b.iterations)
        );
    }
}

#[test]
fn a_first_path_that_succeeds_needs_no_fallback() {
    // Moved within the branch of the warm start: the NLP at σ₀ = 1e-6 converges.
    let out = warm_after_cold(with_fallback(100), [0.4, 0.0]);
    assert_eq!(out.status, Status::Solved);
    assert!((out.objective - 0.32).abs() < 1e-6, "f = {}", out.objective);
    assert!(
        out.steps.iter().all(|s| s.sigma <= 1e-6),
        "no step of the fallback path"
    );
}

#[test]
fn without_a_fallback_the_first_path_keeps_its_retries_and_limits() {
    // `warm_first_max_iter` applies only with a fallback: the same warm solve with the fallback
    // off equals the plain one.
    let off = HomotopySettings {
        warm_fallback_sigma0: 0.0,
        ..with_fallback(2)
    };
    let a = warm_after_cold(off, [0.3, 0.5]);
    let b = warm_after_cold(
        HomotopySettings {
            sigma0: 1e-6,
            ..HomotopySettings::default()
        },
        [0.3, 0.5],
    );
    assert_eq!(a.status, b.status);
    assert_eq!(a.x, b.x);
    assert_eq!(a.nlp_iterations, b.nlp_iterations);
    assert!(
        a.steps[0].iterations > 2,
        "the first NLP was not cut at 2 iterations"
    );
}

#[test]
fn bad_fallback_settings_are_refused_by_name() {
    for v in [-1.0, f64::NAN, f64::INFINITY] {
        let s = HomotopySettings {
            warm_fallback_sigma0: v,
            ..HomotopySettings::default()
        };
        match s.validate() {
            Err(SolverError::InvalidSetting { name, .. }) => {
                assert_eq!(name, "warm_fallback_sigma0")
            }
            other => panic!("{v}: {other:?}"),
        }
    }
}

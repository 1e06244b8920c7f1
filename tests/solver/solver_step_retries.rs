//! `HomotopySettings::step_retries`: a failed relaxed NLP is retried from the last solved point
//! with a shorter step in σ. MacMPEC's bard1 (f* = 17, published) with a tight IPM budget per
//! NLP (15 iterations) and a long step κ = 1e-3: without retries every step after the first
//! runs out of iterations and the homotopy ends unsolved; with retries the failed step is
//! retried at σ₁κ^{1/2} and the homotopy reaches f* with complementarity.
//! `HomotopySettings::early_polish_residual` on the same problem: polishing at the first failure.

use fesdj_mpc::solver::problems::{macmpec, Backend};
use fesdj_mpc::solver::{HomotopySettings, MpccResult, MpccSolver, Polish, Status};

/// bard1 with κ = 1e-3, 10 steps and 15 IPM iterations per NLP; `tune` sets the rest.
fn bard1_with(name: &str, tune: impl FnOnce(&mut HomotopySettings)) -> MpccResult {
    let prob = macmpec::collection(Backend::Dense)
        .into_iter()
        .find(|p| p.name == "bard1")
        .expect("bard1 is in the MacMPEC set");
    assert_eq!(prob.f_star, 17.0);
    let mut s = HomotopySettings {
        kappa: 1e-3,
        max_homotopy_steps: 10,
        ..HomotopySettings::default()
    };
    s.ipm.max_iter = 15;
    tune(&mut s);
    let mut solver = MpccSolver::new(prob.nlp.as_ref(), prob.comp.as_ref(), s).expect("solver");
    let r = solver
        .solve(prob.nlp.as_ref(), prob.comp.as_ref(), &[], None)
        .expect("solve runs");
    for st in &r.steps {
        eprintln!(
            "{name}: σ {:.3e} {:?} {} it, min(G,H) {:.1e}, f {:.6}",
            st.sigma, st.status, st.iterations, st.comp_residual, st.objective
        );
    }
    eprintln!(
        "{name}: {:?} f {} its {} hom {}",
        r.status, r.objective, r.nlp_iterations, r.homotopy_steps
    );
    r
}

fn bard1(retries: usize) -> MpccResult {
    bard1_with(&format!("retries {retries}"), |s| {
        s.polish = Polish::Never;
        s.step_retries = retries;
    })
}

#[test]
fn without_retries_the_long_steps_fail() {
    let r = bard1(0);
    assert_ne!(r.status, Status::Solved);
    assert_eq!(r.steps.len(), 10);
    assert_eq!(r.steps[0].status, Status::Solved);
    assert!(r.steps[1..]
        .iter()
        .all(|s| s.status == Status::MaxIterations));
    // σ_k = κ^k, retries or not
    for (k, s) in r.steps.iter().enumerate() {
        assert!((s.sigma - 1e-3f64.powi(k as i32)).abs() <= 1e-12 * s.sigma);
    }
}

#[test]
fn with_retries_the_failed_step_is_shortened_and_the_homotopy_solves() {
    let r = bard1(4);
    assert_eq!(r.status, Status::Solved, "{:?}", r.status);
    assert!((r.objective - 17.0).abs() <= 1e-6, "f = {}", r.objective);
    assert!(r.comp_residual <= 1e-9, "comp {:.1e}", r.comp_residual);
    assert!(r.max_constraint_violation <= 1e-8);
    // σ = 1 solved, σ = 1e-3 fails, retried from σ = 1 at κ^{1/2} = 10^{-1.5}
    assert_eq!(r.steps[0].status, Status::Solved);
    assert_eq!(r.steps[1].status, Status::MaxIterations);
    assert!((r.steps[1].sigma - 1e-3).abs() <= 1e-15);
    assert!((r.steps[2].sigma - 1e-3f64.sqrt()).abs() <= 1e-15);
    assert_eq!(r.steps[2].status, Status::Solved);
    // after a step solved with κ^{1/2} the next uses κ again
    assert!((r.steps[3].sigma - r.steps[2].sigma * 1e-3).abs() <= 1e-12 * r.steps[3].sigma);
    assert!(r.steps.iter().any(|s| s.status != Status::Solved));
}

fn bard1_early(threshold: f64) -> MpccResult {
    bard1_with(&format!("early {threshold:e}"), |s| {
        s.polish = Polish::IfNotConverged;
        s.early_polish_residual = threshold;
    })
}

#[test]
fn early_polishing_ends_the_homotopy_at_the_first_failure() {
    // Off (0) or below the residual of the solved point (0.29 at σ = 1): the homotopy runs its
    // ten steps, all failed after the first, and the final polishing solves.
    let late = bard1_early(0.0);
    for r in [&late, &bard1_early(0.1)] {
        assert_eq!(r.status, Status::Solved);
        assert_eq!(r.homotopy_steps, 10);
        assert_eq!(r.steps.len(), 11);
        assert!(r.polished);
        assert!((r.objective - 17.0).abs() <= 1e-6);
    }
    // At or above it: polishing is tried at the first failure (σ = 1e-3) from the σ = 1 point
    // and kept; the same solution (published f* = 17) in a fraction of the iterations.
    let early = bard1_early(0.5);
    assert_eq!(early.status, Status::Solved);
    assert!(early.polished);
    assert_eq!(early.homotopy_steps, 2, "polishing is not a homotopy step");
    assert_eq!(early.steps.len(), 3);
    assert_eq!(early.steps[1].status, Status::MaxIterations);
    assert_eq!(early.steps[2].sigma, 0.0);
    assert!(
        (early.objective - 17.0).abs() <= 1e-6,
        "f = {}",
        early.objective
    );
    assert!(early.comp_residual <= 1e-9);
    assert!(early.max_constraint_violation <= 1e-8);
    assert!(
        early.nlp_iterations * 2 < late.nlp_iterations,
        "{} vs {}",
        early.nlp_iterations,
        late.nlp_iterations
    );
    for (a, b) in early.x.iter().zip(&late.x) {
        assert!((a - b).abs() <= 1e-6, "{:?} vs {:?}", early.x, late.x);
    }
}

#[test]
fn early_polishing_needs_a_finite_nonnegative_threshold() {
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let s = HomotopySettings {
            early_polish_residual: bad,
            ..HomotopySettings::default()
        };
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("early_polish_residual"), "{e}");
    }
}

//! `MpccSettings::step_retries`: a failed relaxed NLP is retried from the last solved point
//! with a shorter step in σ. MacMPEC's bard1 (f* = 17, published) with a tight IPM budget per
//! NLP (15 iterations) and a long step κ = 1e-3: without retries every step after the first
//! runs out of iterations and the homotopy ends unsolved; with retries the failed step is
//! retried at σ₁κ^{1/2} and the homotopy reaches f* with complementarity.

use fesdj_mpc::solver::problems::{macmpec, Backend};
use fesdj_mpc::solver::{MpccResult, MpccSettings, MpccSolver, Polish, Status};

fn bard1(retries: usize) -> MpccResult {
    let prob = macmpec::collection(Backend::Dense)
        .into_iter()
        .find(|p| p.name == "bard1")
        .expect("bard1 is in the MacMPEC set");
    assert_eq!(prob.f_star, 17.0);
    let mut s = MpccSettings {
        kappa: 1e-3,
        max_homotopy_steps: 10,
        polish: Polish::Never,
        step_retries: retries,
        ..MpccSettings::default()
    };
    s.ipm.max_iter = 15;
    let mut solver = MpccSolver::new(prob.nlp.as_ref(), prob.comp.as_ref(), s).expect("solver");
    let r = solver.solve(&[], None).expect("solve runs");
    for st in &r.steps {
        eprintln!(
            "retries {retries}: σ {:.3e} {:?} {} it, min(G,H) {:.1e}, f {:.6}",
            st.sigma, st.status, st.iterations, st.comp_residual, st.objective
        );
    }
    r
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

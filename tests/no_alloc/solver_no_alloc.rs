//! The IPM allocates nothing per iteration: after a first solve (which may size lazily built
//! parts), a second complete solve performs zero heap allocations.

use crate::counting_alloc as alloc_common;

use fesdj_mpc::solver::dense::DenseNlp;
use fesdj_mpc::solver::problems::hs;
use fesdj_mpc::solver::{Ipm, IpmStart, KktFactorization, Nlp, Settings, Status};

fn allocations_of_second_solve(nlp: &dyn Nlp, p: &[f64]) -> (usize, usize, Status) {
    allocations_with(nlp, p, Settings::default())
}

fn allocations_with(nlp: &dyn Nlp, p: &[f64], settings: Settings) -> (usize, usize, Status) {
    let mut ipm = Ipm::new(nlp, settings).unwrap();
    let first = ipm.solve(nlp, p, IpmStart::Initial).unwrap();
    assert!(first.is_success());
    let before = alloc_common::allocations();
    let st = ipm.solve(nlp, p, IpmStart::Initial).unwrap();
    let n = alloc_common::allocations() - before;
    (n, ipm.info().iterations, st)
}

#[test]
fn ipm_iterations_do_not_allocate() {
    let _turn = crate::support::serial::file(module_path!());
    for prob in hs::all() {
        let (n, iters, st) = allocations_of_second_solve(prob.nlp.as_ref(), &[]);
        assert!(st.is_success());
        assert_eq!(n, 0, "{}: {n} allocations in {iters} iterations", prob.name);
    }
    let nlp = DenseNlp::new(hs::Parametric);
    let (n, _, _) = allocations_of_second_solve(&nlp, &[2.0, 0.5]);
    assert_eq!(n, 0);
}

/// The same with the supernodal KKT factorisation forced (on these small problems `auto`
/// chooses the simplicial one).
#[test]
fn supernodal_ipm_iterations_do_not_allocate() {
    let _turn = crate::support::serial::file(module_path!());
    let settings = Settings {
        kkt_factorization: KktFactorization::Supernodal,
        ..Settings::default()
    };
    for prob in hs::all() {
        let (n, iters, st) = allocations_with(prob.nlp.as_ref(), &[], settings.clone());
        assert!(st.is_success(), "{}: {st:?}", prob.name);
        assert_eq!(n, 0, "{}: {n} allocations in {iters} iterations", prob.name);
    }
}

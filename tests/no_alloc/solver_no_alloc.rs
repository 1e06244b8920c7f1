//! The IPM allocates nothing per iteration: after a first solve (which may size lazily built
//! parts), a second complete solve performs zero heap allocations.

use crate::counting_alloc as alloc_common;

use fesdj_mpc::solver::dense::DenseNlp;
use fesdj_mpc::solver::problems::hs;
use fesdj_mpc::solver::{Ipm, IpmStart, Nlp, Settings, Status};

fn allocations_of_second_solve(nlp: &dyn Nlp, p: &[f64]) -> (usize, usize, Status) {
    let mut ipm = Ipm::new(nlp, Settings::default()).unwrap();
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

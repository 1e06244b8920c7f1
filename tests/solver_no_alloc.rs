//! The IPM allocates nothing per iteration: after a first solve (which may size lazily built
//! parts), a second complete solve performs zero heap allocations.

use fesdj_mpc::solver::dense::DenseNlp;
use fesdj_mpc::solver::problems::hs;
use fesdj_mpc::solver::{Ipm, Nlp, Settings, Start, Status};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

struct Counting;
static COUNT: AtomicUsize = AtomicUsize::new(0);
static ACTIVE: AtomicBool = AtomicBool::new(false);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if ACTIVE.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if ACTIVE.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_of_second_solve(nlp: &dyn Nlp, p: &[f64]) -> (usize, usize, Status) {
    let mut ipm = Ipm::new(nlp, Settings::default()).unwrap();
    let first = ipm.solve(nlp, p, Start::Initial).unwrap();
    assert!(first.is_success());
    COUNT.store(0, Ordering::SeqCst);
    ACTIVE.store(true, Ordering::SeqCst);
    let st = ipm.solve(nlp, p, Start::Initial).unwrap();
    ACTIVE.store(false, Ordering::SeqCst);
    (COUNT.load(Ordering::SeqCst), ipm.info().iterations, st)
}

#[test]
fn ipm_iterations_do_not_allocate() {
    for prob in hs::all() {
        let (n, iters, st) = allocations_of_second_solve(prob.nlp.as_ref(), &[]);
        assert!(st.is_success());
        assert_eq!(n, 0, "{}: {n} allocations in {iters} iterations", prob.name);
    }
    let nlp = DenseNlp::new(hs::Parametric);
    let (n, _, _) = allocations_of_second_solve(&nlp, &[2.0, 0.5]);
    assert_eq!(n, 0);
}

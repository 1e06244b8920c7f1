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

/// A cold-started MPCC homotopy with its second path (`second_path_sigma0`), into the result
/// of an earlier solve: zero allocations (three MacMPEC problems; keeping the second path
/// swaps the result with the solver's buffer of the other path, which moves no heap memory).
#[test]
fn mpcc_homotopy_with_two_paths_does_not_allocate() {
    use fesdj_mpc::solver::problems::{macmpec, Backend};
    use fesdj_mpc::solver::{HomotopySettings, MpccResult, MpccSolver};
    let _turn = crate::support::serial::file(module_path!());
    let settings = HomotopySettings {
        second_path_sigma0: 10.0,
        ..HomotopySettings::default()
    };
    for prob in macmpec::collection(Backend::Dense)
        .into_iter()
        .filter(|p| matches!(p.name, "bard1" | "scholtes1" | "kth1"))
    {
        let (nlp, comp) = (prob.nlp.as_ref(), prob.comp.as_ref());
        let mut solver = MpccSolver::new(nlp, comp, settings.clone()).unwrap();
        let mut out = MpccResult::empty();
        solver.solve_into(nlp, comp, &[], None, &mut out).unwrap();
        solver.solve_into(nlp, comp, &[], None, &mut out).unwrap();
        let before = alloc_common::allocations();
        solver.solve_into(nlp, comp, &[], None, &mut out).unwrap();
        let n = alloc_common::allocations() - before;
        assert_eq!(out.status, Status::Solved, "{}", prob.name);
        assert!(out.second_path.is_some(), "{}", prob.name);
        assert_eq!(n, 0, "{}: {n} allocations", prob.name);
    }
}

/// A warm start whose first path fails and whose fallback path
/// (`HomotopySettings::warm_fallback_sigma0`) solves allocates nothing once the buffers have
/// their size (the fallback path's steps have their own buffer, sized with the settings).
#[test]
fn mpcc_warm_fallback_path_does_not_allocate() {
    use fesdj_mpc::solver::problems::{macmpec, Backend};
    use fesdj_mpc::solver::{HomotopySettings, MpccResult, MpccSolver, WarmPoint};
    let _turn = crate::support::serial::file(module_path!());
    let warm = HomotopySettings {
        sigma0: 1e-9,
        warm_fallback_sigma0: 1.0,
        warm_first_max_iter: 1,
        ..HomotopySettings::default()
    };
    for prob in macmpec::collection(Backend::Dense)
        .into_iter()
        .filter(|p| matches!(p.name, "bard1" | "scholtes1" | "kth1"))
    {
        let (nlp, comp) = (prob.nlp.as_ref(), prob.comp.as_ref());
        let mut solver = MpccSolver::new(nlp, comp, HomotopySettings::default()).unwrap();
        let mut out = MpccResult::empty();
        solver.solve_into(nlp, comp, &[], None, &mut out).unwrap();
        assert_eq!(out.status, Status::Solved, "{}", prob.name);
        // The warm start: the solution moved off by 0.5 in every variable, its multipliers.
        let x: Vec<f64> = out.x.iter().map(|v| v + 0.5).collect();
        let (l, a, b) = solver.duals();
        let (l, a, b) = (l.to_vec(), a.to_vec(), b.to_vec());
        solver.set_settings(warm.clone()).unwrap();
        let start = WarmPoint {
            x: &x,
            lambda: &l,
            z_l: &a,
            z_u: &b,
        };
        solver
            .solve_warm_into(nlp, comp, &[], start, &mut out)
            .unwrap();
        solver
            .solve_warm_into(nlp, comp, &[], start, &mut out)
            .unwrap();
        let before = alloc_common::allocations();
        solver
            .solve_warm_into(nlp, comp, &[], start, &mut out)
            .unwrap();
        let n = alloc_common::allocations() - before;
        assert_eq!(out.status, Status::Solved, "{}", prob.name);
        assert!(
            out.steps.iter().any(|s| s.sigma == 1.0),
            "{}: the fallback path ran",
            prob.name
        );
        assert_eq!(n, 0, "{}: {n} allocations", prob.name);
    }
}

/// A warm start stopped by its iteration budget (`HomotopySettings::warm_iteration_budget`)
/// allocates nothing once the buffers have their size.
#[test]
fn mpcc_warm_iteration_budget_does_not_allocate() {
    use fesdj_mpc::solver::problems::{macmpec, Backend};
    use fesdj_mpc::solver::{HomotopySettings, MpccResult, MpccSolver, WarmPoint};
    let _turn = crate::support::serial::file(module_path!());
    let warm = HomotopySettings {
        sigma0: 1e-6,
        comp_tol: 1e-4,
        warm_iteration_budget: 1,
        ..HomotopySettings::default()
    };
    let mut stopped = 0;
    for prob in macmpec::collection(Backend::Dense)
        .into_iter()
        .filter(|p| matches!(p.name, "bard1" | "scholtes1" | "kth1"))
    {
        let (nlp, comp) = (prob.nlp.as_ref(), prob.comp.as_ref());
        let mut solver = MpccSolver::new(nlp, comp, HomotopySettings::default()).unwrap();
        let mut out = MpccResult::empty();
        solver.solve_into(nlp, comp, &[], None, &mut out).unwrap();
        assert_eq!(out.status, Status::Solved, "{}", prob.name);
        // The warm start: the solution moved off by 1e-3 in every variable, its multipliers.
        let x: Vec<f64> = out.x.iter().map(|v| v + 1e-3).collect();
        let (l, a, b) = solver.duals();
        let (l, a, b) = (l.to_vec(), a.to_vec(), b.to_vec());
        solver.set_settings(warm.clone()).unwrap();
        let start = WarmPoint {
            x: &x,
            lambda: &l,
            z_l: &a,
            z_u: &b,
        };
        for _ in 0..2 {
            solver
                .solve_warm_into(nlp, comp, &[], start, &mut out)
                .unwrap();
        }
        let before = alloc_common::allocations();
        solver
            .solve_warm_into(nlp, comp, &[], start, &mut out)
            .unwrap();
        let n = alloc_common::allocations() - before;
        assert!(out.status.is_success(), "{}: {:?}", prob.name, out.status);
        stopped += usize::from(out.status == Status::FeasibleBudget);
        assert_eq!(n, 0, "{}: {n} allocations", prob.name);
    }
    assert!(stopped > 0, "no solve was stopped by the budget");
}

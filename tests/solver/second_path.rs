//! The second homotopy path (`HomotopySettings::second_path_sigma0`) on an MPCC with two local
//! minima known by hand: `min (x - 3)² + (y - 3.5)²  s.t.  0 <= x ⟂ y >= 0`, whose branch
//! `y = 0` has its minimum at (3, 0) with f = 3.5² = 12.25 and whose branch `x = 0` has it at
//! (0, 3.5) with f = 3² = 9 (the global one). From (3, 0) the homotopy at σ₀ = 1 stays on the
//! first branch; at σ₀ = 10 the first relaxed NLP's solution (3, 3.5) is feasible
//! (3 · 3.5 = 10.5 ≈ σ₀) and the path ends on the second.

use fesdj_mpc::ad::Scalar;
use fesdj_mpc::solver::dense::{DenseNlp, ScalarProblem};
use fesdj_mpc::solver::{
    HomotopySettings, MpccResult, MpccSolver, Stationarity, StationaritySettings, Status,
    VariablePairs,
};

struct TwoBranches;

impl ScalarProblem for TwoBranches {
    fn n(&self) -> usize {
        2
    }
    fn m(&self) -> usize {
        0
    }
    fn bounds(&self, xl: &mut [f64], xu: &mut [f64], _gl: &mut [f64], _gu: &mut [f64]) {
        xl.fill(0.0);
        xu.fill(f64::INFINITY);
    }
    fn initial_point(&self, x0: &mut [f64]) {
        x0.copy_from_slice(&[3.0, 0.0]);
    }
    fn objective<S: Scalar>(&self, x: &[S], _p: &[S]) -> S {
        (x[0] - 3.0).sq() + (x[1] - 3.5).sq()
    }
    fn constraints<S: Scalar>(&self, _x: &[S], _p: &[S], _g: &mut [S]) {}
}

fn solve(sigma0: f64, second: f64) -> (MpccResult, MpccSolver) {
    let nlp = DenseNlp::new(TwoBranches);
    let comp = VariablePairs::new(2, vec![(0, 1)]).unwrap();
    let settings = HomotopySettings {
        sigma0,
        second_path_sigma0: second,
        ..HomotopySettings::default()
    };
    let mut solver = MpccSolver::new(&nlp, &comp, settings).unwrap();
    let mut r = solver.solve(&nlp, &comp, &[], None).unwrap();
    solver
        .certify(&nlp, &comp, &[], &mut r, &StationaritySettings::default())
        .unwrap();
    (r, solver)
}

fn at(r: &MpccResult, x: f64, y: f64) -> bool {
    r.status == Status::Solved && (r.x[0] - x).abs() <= 1e-6 && (r.x[1] - y).abs() <= 1e-6
}

#[test]
fn one_path_from_each_sigma0_ends_on_its_branch() {
    let (one, _) = solve(1.0, 0.0);
    assert!(at(&one, 3.0, 0.0), "{:?} at {:?}", one.status, one.x);
    assert!((one.objective - 12.25).abs() <= 1e-6);
    assert!(one.second_path.is_none());
    let (ten, _) = solve(10.0, 0.0);
    assert!(at(&ten, 0.0, 3.5), "{:?} at {:?}", ten.status, ten.x);
    assert!((ten.objective - 9.0).abs() <= 1e-6);
    // both are local minima of the MPCC: strongly stationary, no biactive pair
    for r in [&one, &ten] {
        let c = r.certificate.as_ref().unwrap();
        assert_eq!((c.verdict, c.biactive), (Stationarity::S, 0), "{c:?}");
    }
}

#[test]
fn the_second_path_is_kept_when_it_ends_lower() {
    let (one, _) = solve(1.0, 0.0);
    let (ten, ten_solver) = solve(10.0, 0.0);
    let (r, solver) = solve(1.0, 10.0);
    // the result is the σ₀ = 10 path's, bit for bit, with both paths' iterations counted
    assert_eq!(r.x, ten.x);
    assert_eq!(r.objective, ten.objective);
    assert_eq!(r.steps.len(), ten.steps.len());
    assert_eq!(r.nlp_iterations, one.nlp_iterations + ten.nlp_iterations);
    let s = r.second_path.unwrap();
    assert!(s.kept && s.sigma0 == 10.0);
    assert_eq!((s.status, s.first_status), (Status::Solved, Status::Solved));
    assert_eq!(
        (s.objective, s.first_objective),
        (ten.objective, one.objective)
    );
    assert_eq!(s.nlp_iterations, ten.nlp_iterations);
    // the solver holds the kept path's multipliers, and the certificate found them
    assert_eq!(solver.duals(), ten_solver.duals());
    assert_eq!(
        r.certificate.as_ref().unwrap().verdict,
        ten.certificate.as_ref().unwrap().verdict
    );
}

#[test]
fn the_first_path_is_kept_when_the_second_is_not_lower() {
    let (one, _) = solve(1.0, 0.0);
    let (ten, ten_solver) = solve(10.0, 0.0);
    // first path σ₀ = 10 (the global minimum), second σ₀ = 1 (the other branch)
    let (r, solver) = solve(10.0, 1.0);
    assert_eq!(r.x, ten.x);
    assert_eq!(r.objective, ten.objective);
    assert_eq!(r.steps.len(), ten.steps.len());
    assert_eq!(r.nlp_iterations, one.nlp_iterations + ten.nlp_iterations);
    let s = r.second_path.unwrap();
    assert!(!s.kept && s.sigma0 == 1.0);
    assert_eq!(
        (s.objective, s.first_objective),
        (one.objective, ten.objective)
    );
    // the first path's point and multipliers were restored after the second path
    assert_eq!(solver.duals(), ten_solver.duals());
    assert_eq!(r.certificate.as_ref().unwrap().verdict, Stationarity::S);
}

#[test]
fn a_warm_started_solve_runs_one_path() {
    let nlp = DenseNlp::new(TwoBranches);
    let comp = VariablePairs::new(2, vec![(0, 1)]).unwrap();
    let settings = HomotopySettings {
        second_path_sigma0: 10.0,
        ..HomotopySettings::default()
    };
    let mut solver = MpccSolver::new(&nlp, &comp, settings).unwrap();
    let mut r = solver.solve(&nlp, &comp, &[], None).unwrap();
    assert!(r.second_path.is_some());
    let x = r.x.clone();
    let (lam, zl, zu) = solver.duals();
    let (lam, zl, zu) = (lam.to_vec(), zl.to_vec(), zu.to_vec());
    let w = fesdj_mpc::solver::WarmPoint {
        x: &x,
        lambda: &lam,
        z_l: &zl,
        z_u: &zu,
    };
    solver.solve_warm_into(&nlp, &comp, &[], w, &mut r).unwrap();
    assert_eq!(r.status, Status::Solved);
    assert!(
        r.second_path.is_none(),
        "warm starts (MPC ticks) run one path"
    );
}

#[test]
fn settings_reject_a_bad_second_sigma0() {
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let s = HomotopySettings {
            second_path_sigma0: bad,
            ..HomotopySettings::default()
        };
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("second_path_sigma0"), "{e}");
    }
    assert_eq!(HomotopySettings::default().second_path_sigma0, 0.0);
    // σ₀/√κ of the defaults (1, 0.1)
    let s = HomotopySettings::for_problem_files().second_path_sigma0;
    assert!((s - 10f64.sqrt()).abs() < 1e-12, "{s}");
}

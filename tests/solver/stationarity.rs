//! The stationarity certificate (formulation §10.8) on MPCCs whose stationarity is known by
//! hand, and on the MacMPEC problems whose solutions are biactive.

use fesdj_mpc::ad::Scalar;
use fesdj_mpc::solver::dense::{DenseNlp, ScalarProblem};
use fesdj_mpc::solver::mpcc::certify_point;
use fesdj_mpc::solver::problems::{macmpec, Backend};
use fesdj_mpc::solver::{
    Complementarity, HomotopySettings, MpccResult, MpccSolver, Nlp, Stationarity,
    StationaritySettings, Status, VariablePairs,
};

const INF: f64 = f64::INFINITY;

/// `min (x - a)² + (y - b)²  s.t.  0 <= x ⟂ y >= 0` (with `x, y >= 0` also as bounds when
/// `bounds`, so that the certificate must merge a bound with its pair side).
struct Quad {
    a: f64,
    b: f64,
    bounds: bool,
}

impl ScalarProblem for Quad {
    fn n(&self) -> usize {
        2
    }
    fn m(&self) -> usize {
        0
    }
    fn bounds(&self, xl: &mut [f64], xu: &mut [f64], _gl: &mut [f64], _gu: &mut [f64]) {
        xl.fill(if self.bounds { 0.0 } else { -INF });
        xu.fill(INF);
    }
    fn initial_point(&self, x0: &mut [f64]) {
        x0.fill(0.0);
    }
    fn objective<S: Scalar>(&self, x: &[S], _p: &[S]) -> S {
        (x[0] - self.a).sq() + (x[1] - self.b).sq()
    }
    fn constraints<S: Scalar>(&self, _x: &[S], _p: &[S], _g: &mut [S]) {}
}

/// `min x + y  s.t.  0 <= x ⟂ y >= 0` (MacMPEC kth1 without the bounds).
struct Lin;

impl ScalarProblem for Lin {
    fn n(&self) -> usize {
        2
    }
    fn m(&self) -> usize {
        0
    }
    fn bounds(&self, xl: &mut [f64], xu: &mut [f64], _gl: &mut [f64], _gu: &mut [f64]) {
        xl.fill(-INF);
        xu.fill(INF);
    }
    fn initial_point(&self, x0: &mut [f64]) {
        x0.fill(0.0);
    }
    fn objective<S: Scalar>(&self, x: &[S], _p: &[S]) -> S {
        x[0] + x[1]
    }
    fn constraints<S: Scalar>(&self, _x: &[S], _p: &[S], _g: &mut [S]) {}
}

fn pairs() -> VariablePairs {
    VariablePairs::new(2, vec![(0, 1)]).unwrap()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn at(nlp: &dyn Nlp, comp: &dyn Complementarity, x: &[f64]) -> fesdj_mpc::solver::Certificate {
    certify_point(nlp, comp, &[], x, 1e-9, &StationaritySettings::default()).unwrap()
}

/// A result "solved" at `x` (the certificate of a point that no homotopy produced).
fn result_at(nlp: &dyn Nlp, x: &[f64]) -> MpccResult {
    let mut r = MpccResult::empty();
    r.status = Status::Solved;
    r.x = x.to_vec();
    r.objective = nlp.eval_f(x, &[]).unwrap();
    r.comp_residual = 0.0;
    r.comp_residual_product = 0.0;
    r.max_constraint_violation = 0.0;
    r
}

#[test]
fn linear_corner_is_strongly_stationary() {
    // ∇f = (1, 1) = ν_G e_x + ν_H e_y: ν = (1, 1) >= 0, so S (hence B).
    let (nlp, comp) = (DenseNlp::new(Lin), pairs());
    let c = at(&nlp, &comp, &[0.0, 0.0]);
    assert_eq!(c.verdict, Stationarity::S, "{c:?}");
    assert_eq!((c.biactive, c.b_stationary), (1, Some(true)));
    let (_, vg, vh) = c.biactive_multipliers[0];
    assert!(close(vg, 1.0, 1e-8) && close(vh, 1.0, 1e-8), "{c:?}");
    assert!(c.verdict.is_b());
}

#[test]
fn corner_of_two_quadratics_is_only_c_stationary_and_the_bnlp_step_leaves_it() {
    // f = (x-1)² + (y-1)² at (0, 0): ∇f = (-2, -2), so ν_G = ν_H = -2: C (ν_G ν_H = 4 >= 0),
    // not M (neither zero nor both positive), not B: on the branch x = 0, y >= 0 the direction
    // (0, 1) descends (∇fᵀd = -2). The branch NLP min (y-1)², x = 0 ends at (0, 1), f = 1.
    for bounds in [true, false] {
        let nlp = DenseNlp::new(Quad {
            a: 1.0,
            b: 1.0,
            bounds,
        });
        let comp = pairs();
        let c = at(&nlp, &comp, &[0.0, 0.0]);
        assert_eq!(c.verdict, Stationarity::C, "bounds {bounds}: {c:?}");
        assert_eq!(c.b_stationary, Some(false));
        let (_, vg, vh) = c.biactive_multipliers[0];
        assert!(close(vg, -2.0, 1e-8) && close(vh, -2.0, 1e-8), "{c:?}");

        let mut solver = MpccSolver::new(&nlp, &comp, HomotopySettings::default()).unwrap();
        let mut r = result_at(&nlp, &[0.0, 0.0]);
        solver
            .certify(&nlp, &comp, &[], &mut r, &StationaritySettings::default())
            .unwrap();
        let cert = r.certificate.as_ref().unwrap();
        let step = cert.descent.as_ref().expect("a descent step");
        assert!(step.kept, "{step:?}");
        assert!(close(step.objective_before, 2.0, 1e-12), "{step:?}");
        assert!(close(step.objective_after, 1.0, 1e-7), "{step:?}");
        assert!(close(r.objective, 1.0, 1e-7));
        let corner = (close(r.x[0], 0.0, 1e-7) && close(r.x[1], 1.0, 1e-6))
            || (close(r.x[0], 1.0, 1e-6) && close(r.x[1], 0.0, 1e-7));
        assert!(corner, "x = {:?}", r.x);
        // the new point has one-sided pairs only: S
        assert_eq!(cert.verdict, Stationarity::S, "{cert:?}");
        assert_eq!(cert.biactive, 0);
        assert!(r.comp_residual <= 1e-9);
    }
}

#[test]
fn m_but_not_s_corner() {
    // f = (x-1)² + y² at (0, 0): ∇f = (-2, 0), ν_G = -2, ν_H = 0 (unique): M (ν_H = 0), not S,
    // not B (on the branch y = 0, x >= 0 the direction (1, 0) descends). BNLP: y = 0,
    // min (x-1)² -> (1, 0), f = 0.
    let nlp = DenseNlp::new(Quad {
        a: 1.0,
        b: 0.0,
        bounds: false,
    });
    let comp = pairs();
    let c = at(&nlp, &comp, &[0.0, 0.0]);
    assert_eq!(c.verdict, Stationarity::M, "{c:?}");
    assert_eq!(c.b_stationary, Some(false));
    let (_, vg, vh) = c.biactive_multipliers[0];
    assert!(close(vg, -2.0, 1e-8) && close(vh, 0.0, 1e-8), "{c:?}");
    let mut solver = MpccSolver::new(&nlp, &comp, HomotopySettings::default()).unwrap();
    let mut r = result_at(&nlp, &[0.0, 0.0]);
    solver
        .certify(&nlp, &comp, &[], &mut r, &StationaritySettings::default())
        .unwrap();
    let cert = r.certificate.unwrap();
    let step = cert.descent.unwrap();
    assert_eq!(step.fix_h, vec![0], "the branch H = 0, G >= 0");
    assert!(
        step.kept && close(step.objective_after, 0.0, 1e-7),
        "{step:?}"
    );
    assert!(
        close(r.x[0], 1.0, 1e-6) && close(r.x[1], 0.0, 1e-7),
        "{:?}",
        r.x
    );
    assert_eq!(cert.verdict, Stationarity::S);
}

#[test]
fn opposite_signs_are_only_weakly_stationary() {
    // f = (x-1)² + (y+1)² at (0, 0): ν = (-2, 2), ν_G ν_H < 0: weak only (not C).
    let nlp = DenseNlp::new(Quad {
        a: 1.0,
        b: -1.0,
        bounds: true,
    });
    let c = at(&nlp, &pairs(), &[0.0, 0.0]);
    assert_eq!(c.verdict, Stationarity::Weak, "{c:?}");
    assert_eq!(c.b_stationary, Some(false));
    // the descent step is off: the point stays
    let comp = pairs();
    let mut solver = MpccSolver::new(&nlp, &comp, HomotopySettings::default()).unwrap();
    let mut r = result_at(&nlp, &[0.0, 0.0]);
    let off = StationaritySettings {
        descent_step: false,
        ..StationaritySettings::default()
    };
    solver.certify(&nlp, &comp, &[], &mut r, &off).unwrap();
    assert_eq!(r.x, vec![0.0, 0.0]);
    let cert = r.certificate.unwrap();
    assert!(cert.descent.is_none() && cert.verdict == Stationarity::Weak);
}

#[test]
fn an_exhausted_time_budget_is_unknown() {
    // the C corner of two quadratics needs the dense fits; with no time left they are skipped
    let nlp = DenseNlp::new(Quad {
        a: 1.0,
        b: 1.0,
        bounds: true,
    });
    let none = StationaritySettings {
        min_time: 0.0,
        time_ratio: 0.0,
        ..StationaritySettings::default()
    };
    let c = certify_point(&nlp, &pairs(), &[], &[0.0, 0.0], 1e-9, &none).unwrap();
    assert_eq!(c.verdict, Stationarity::Unknown, "{c:?}");
    assert!(c.reason.contains("time budget"), "{}", c.reason);
}

#[test]
fn a_point_off_the_feasible_set_is_unknown() {
    let nlp = DenseNlp::new(Lin);
    let c = at(&nlp, &pairs(), &[1.0, 1.0]);
    assert_eq!(c.verdict, Stationarity::Unknown);
    assert!(c.reason.contains("not complementary"), "{}", c.reason);
    // an unsolved result is not certified
    let comp = pairs();
    let mut solver = MpccSolver::new(&nlp, &comp, HomotopySettings::default()).unwrap();
    let mut r = result_at(&nlp, &[0.0, 0.0]);
    r.status = Status::MaxIterations;
    solver
        .certify(&nlp, &comp, &[], &mut r, &StationaritySettings::default())
        .unwrap();
    assert_eq!(r.stationarity(), Stationarity::Unknown);
}

/// The MacMPEC problems whose known solution is biactive, at the homotopy's solution:
///
/// * kth1 `min x + y`, `0 <= x ⟂ y >= 0` at (0, 0): ν = (1, 1), S.
/// * ralph2 `min x² + y² - 4xy` at (0, 0): ∇f = 0, ν = 0, S.
/// * ralph1 `min 2x - y`, `0 <= y ⟂ y - x >= 0`, `x, y >= 0` at (0, 0): ∇f = (2, -1) =
///   z_x e_x + z_y e_y + ν_G (0, 1) + ν_H (-1, 1); S would need `-1 = z_y + ν_G + ν_H` with all
///   terms >= 0, impossible; the branch y = 0 has (z_x, z_y, ν_G, ν_H) = (2, 0, -1, 0), the
///   branch y = x has (1, 0, 0, -1): B, not S (MacMPEC's "B- but not strongly stationary").
/// * scholtes4 `min z1 + z2 - z3`, `z3 <= 4 z1`, `z3 <= 4 z2`, `0 <= z1 ⟂ z2 >= 0` at 0: with
///   row multipliers μ1 + μ2 = 1, ν_G = 1 - 4μ1, ν_H = 1 - 4μ2: S would need μ1, μ2 <= 1/4;
///   the branch z1 = 0 has μ = (3/4, 1/4), ν = (-2, 0), its mirror likewise: B, not S.
#[test]
fn macmpec_biactive_solutions() {
    let want = [
        ("kth1", Stationarity::S),
        ("ralph2", Stationarity::S),
        ("ralph1", Stationarity::B),
        ("scholtes4", Stationarity::B),
    ];
    for backend in [Backend::Dense, Backend::Ad] {
        for prob in macmpec::collection(backend) {
            let (nlp, comp) = (prob.nlp.as_ref(), prob.comp.as_ref());
            let mut solver = MpccSolver::new(nlp, comp, HomotopySettings::default()).unwrap();
            let mut r = solver.solve(nlp, comp, &[], None).unwrap();
            let (x, f) = (r.x.clone(), r.objective);
            // the least-squares fits alone reach the same verdict as with the homotopy's
            // multipliers as a witness
            let mut r_ls = r.clone();
            let ls_only = StationaritySettings {
                homotopy_witness: false,
                ..StationaritySettings::default()
            };
            solver.certify(nlp, comp, &[], &mut r_ls, &ls_only).unwrap();
            solver
                .certify(nlp, comp, &[], &mut r, &StationaritySettings::default())
                .unwrap();
            let c = r.certificate.as_ref().unwrap();
            let c_ls = r_ls.certificate.as_ref().unwrap();
            assert_eq!(c.verdict, c_ls.verdict, "{}: {c:?} vs {c_ls:?}", prob.name);
            assert_ne!(c_ls.witness, "homotopy");
            eprintln!(
                "{:10} {:?} f {:.6} verdict {} b {:?} biactive {} ν {:?} {}",
                prob.name,
                r.status,
                r.objective,
                c.verdict,
                c.b_stationary,
                c.biactive,
                c.biactive_multipliers,
                c.reason
            );
            // every solved problem gets a verdict
            assert_ne!(c.verdict, Stationarity::Unknown, "{}: {c:?}", prob.name);
            if let Some(&(_, v)) = want.iter().find(|(n, _)| *n == prob.name) {
                assert_eq!(c.verdict, v, "{}: {c:?}", prob.name);
                assert_eq!(c.biactive, 1, "{}", prob.name);
                assert!(c.descent.is_none());
                assert_eq!(r.x, x, "{}: a B-stationary point is not moved", prob.name);
            }
            if c.descent.is_none() {
                assert_eq!(r.objective, f);
            }
        }
    }
}

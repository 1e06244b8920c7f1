//! Periodic OCPs (`ocp.periodic`, formulation §10.9): `x(T) = A x(0) + s` with a partly free
//! initial state.
//!
//! Reference, derived by hand: a unit mass on a line pushed by a force `f`, its velocity
//! tracked towards 1 m/s with a small force weight, periodic with a shift of 0.5 m over
//! `T = 1`. The velocity must average 0.5 m/s (the travel) and return to its start, and the
//! tracking cost is convex, so the optimum is the constant 0.5 m/s with `f = 0` and the LSQ
//! objective `Σ_k (T/N) (0.5 − 1)² = 0.25`, for time stepping and for FESD-J alike.

use std::path::Path;

use fesdj_mpc::app::build_ocp;
use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::Start;
use fesdj_mpc::solver::Status;

/// A mass on a line (x, driven by `f`) and an unforced coordinate y with a contact 10 m away
/// (never active).
const LINE: &str = r#"
model:
  expressions:
    q: [x, y]
    u: [f]
    M: [1, 1]
    f_v: ["f", "0"]
    contacts:
      - {f_c: "y + 10", J_t: [1, 0], mu: 0.3}
fesdj: {use_fesd: false, n_s: 1, rho_theta: 0}
horizon: {T: 1, N: 10}
initial: {q: [0, 0]}
ocp:
  Q: [0, 0, 1, 0]
  R: 0.01
  x_ref: [0, 0, 1, 0]
  periodic: {fixed: [x, y], shift: {x: 0.5}}
solver: {comp_tol: 1.0e-9}
"#;

fn load(text: &str, sets: &[&str]) -> Problem {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Problem::from_yaml(text, Path::new("periodic.yaml"), Path::new("."), &sets).unwrap()
}

fn err(text: &str) -> String {
    match Problem::from_yaml(text, Path::new("periodic.yaml"), Path::new("."), &[]) {
        Ok(p) => match p.ocp() {
            Ok(_) => match p.mpc_setup() {
                Ok(_) => panic!("loaded:\n{text}"),
                Err(e) => e.to_string(),
            },
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    }
}

fn check_line(sets: &[&str]) {
    let p = load(LINE, sets);
    let mut fp = build_ocp(&p).unwrap();
    let tr = fp.solve(Start::Guess).unwrap();
    assert_eq!(tr.status, Status::Solved, "{sets:?}");
    for (k, v) in tr.v.iter().enumerate() {
        assert!((v[0] - 0.5).abs() < 1e-6, "{sets:?}: v_x[{k}] = {}", v[0]);
        assert!(v[1].abs() < 1e-6, "{sets:?}: v_y[{k}] = {}", v[1]);
    }
    for (k, u) in tr.u.iter().enumerate() {
        assert!(u[0].abs() < 1e-5, "{sets:?}: f[{k}] = {}", u[0]);
    }
    let (x0, xt) = (&tr.q[0], tr.q.last().unwrap());
    assert_eq!(x0[0], 0.0);
    assert!((xt[0] - 0.5).abs() < 1e-9, "{sets:?}: x(T) = {}", xt[0]);
    assert!(
        (tr.objective - 0.25).abs() < 1e-6,
        "{sets:?}: {}",
        tr.objective
    );
}

#[test]
fn a_periodic_line_runs_at_its_average_speed_with_time_stepping() {
    check_line(&[]);
}

#[test]
fn a_periodic_line_runs_at_its_average_speed_with_fesdj() {
    check_line(&["fesdj.use_fesd=true", "fesdj.n_fe=2", "fesdj.n_s=2"]);
}

#[test]
fn the_initial_state_is_free_only_where_not_fixed() {
    // Without periodicity the start is the given state (v = 0) and the mass must accelerate.
    let plain = LINE.replace("  periodic: {fixed: [x, y], shift: {x: 0.5}}\n", "");
    let p = load(&plain, &[]);
    let mut fp = build_ocp(&p).unwrap();
    let tr = fp.solve(Start::Guess).unwrap();
    assert_eq!(tr.v[0][0], 0.0);
    // With it, v(0) is a variable: 0.5, not the given 0.
    let p = load(LINE, &[]);
    let mut fp = build_ocp(&p).unwrap();
    let tr = fp.solve(Start::Guess).unwrap();
    assert!((tr.v[0][0] - 0.5).abs() < 1e-6, "{}", tr.v[0][0]);
}

/// A mass in a plane driven in x and y, periodic with its velocity turned by a quarter turn
/// per period: the solution meets `(v_x, v_y)(T) = R(π/2) (v_x, v_y)(0)` and the shift.
#[test]
fn a_rotation_turns_the_velocity_pair() {
    let plane = r#"
model:
  expressions:
    q: [x, y]
    u: [fx, fy]
    M: [1, 1]
    f_v: ["fx", "fy"]
    contacts:
      - {f_c: "y + 10", J_t: [1, 0], mu: 0.3}
fesdj: {use_fesd: false, n_s: 1, rho_theta: 0}
horizon: {T: 1, N: 20}
initial: {q: [0, 0]}
ocp:
  Q: [0, 0, 1, 1]
  R: 0.01
  x_ref: [0, 0, 0.4, 0.4]
  periodic:
    fixed: [x, y]
    shift: {x: 0.3, y: 0.2}
    rotate: [{x: v_x, y: v_y, angle: 1.5707963267948966}]
solver: {comp_tol: 1.0e-9}
"#;
    let p = load(plane, &[]);
    let mut fp = build_ocp(&p).unwrap();
    let tr = fp.solve(Start::Guess).unwrap();
    assert_eq!(tr.status, Status::Solved);
    let (v0, vt) = (&tr.v[0], tr.v.last().unwrap());
    // R(π/2) (a, b) = (−b, a).
    assert!((vt[0] + v0[1]).abs() < 1e-8, "{v0:?} → {vt:?}");
    assert!((vt[1] - v0[0]).abs() < 1e-8, "{v0:?} → {vt:?}");
    let qt = tr.q.last().unwrap();
    assert!(
        (qt[0] - 0.3).abs() < 1e-8 && (qt[1] - 0.2).abs() < 1e-8,
        "{qt:?}"
    );
    // Not the trivial solution: the velocity does turn.
    assert!(v0[0].hypot(v0[1]) > 0.1, "{v0:?}");
}

#[test]
fn bad_entries_are_refused_by_name() {
    let with = |from: &str, to: &str| {
        assert!(LINE.contains(from), "{from}");
        LINE.replacen(from, to, 1)
    };
    let periodic = "periodic: {fixed: [x, y], shift: {x: 0.5}}";
    let e = err(&with(periodic, "periodic: {fixed: [zz]}"));
    assert!(
        e.contains("ocp.periodic.fixed[0]") && e.contains("'zz'"),
        "{e}"
    );
    let e = err(&with(periodic, "periodic: {shift: {v_q: 1}}"));
    assert!(e.contains("ocp.periodic.shift.v_q"), "{e}");
    let e = err(&with(
        periodic,
        "periodic: {rotate: [{x: v_x, y: v_x, angle: 1}]}",
    ));
    assert!(e.contains("periodic.rotations[0]"), "{e}");
    let e = err(&with(
        periodic,
        "periodic: {rotate: [{x: v_x, y: f, angle: 1}]}",
    ));
    assert!(e.contains("ocp.periodic.rotate[0].y"), "{e}");
    // An MPC starts at the measured state: periodicity is refused there.
    let e = err(&format!("{LINE}mpc: {{rate_hz: 10}}\n"));
    assert!(e.contains("ocp.periodic") && e.contains("MPC"), "{e}");
}

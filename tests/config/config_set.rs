//! `--set KEY=VALUE` overrides: the examples of the issue, indices, new keys of the schema,
//! and the errors (unknown keys anywhere, malformed overrides, wrong types, wrong shapes).

use std::path::PathBuf;

use fesdj_mpc::config::{ConfigError, Problem};
use fesdj_mpc::fesdj::RkScheme;

fn config(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("config")
        .join(name)
}

fn load(name: &str, sets: &[&str]) -> Result<Problem, ConfigError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Problem::load(&config(name), &sets)
}

fn err(name: &str, sets: &[&str]) -> String {
    match load(name, sets) {
        Ok(_) => panic!("{sets:?} accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn restitution_of_every_contact() {
    let p = load("bouncing_ball_1d.yaml", &["model.restitution=0.8"]).unwrap();
    assert_eq!(p.cls_model().unwrap().contacts()[0].restitution, 0.8);
    let p = load("two_discs.yaml", &["model.restitution=0.3"]).unwrap();
    assert_eq!(p.cls_model().unwrap().contacts()[0].restitution, 0.3);
}

#[test]
fn initial_state() {
    let p = load("bouncing_ball_1d.yaml", &["initial.q=[1.3]"]).unwrap();
    assert_eq!(p.x0(), [1.3, 0.0]);
    let p = load(
        "two_balls_spring.yaml",
        &["initial.q[1]=2.5", "initial.v.0=-1"],
    )
    .unwrap();
    assert_eq!(p.x0(), [1.0, 2.5, -1.0, 0.0]);
}

#[test]
fn horizon_length() {
    let p = load("two_discs.yaml", &["horizon.T=2.0"]).unwrap();
    let setup = p.ocp().unwrap();
    assert_eq!(setup.options.t_final, 2.0);
    assert_eq!(setup.options.n_intervals, 25);
}

#[test]
fn simulation_controls_one_vector_for_every_step() {
    // hopper_mpc.yaml has no simulation section; it is created by the overrides.
    let base = ["simulation.T_sim=0.2", "simulation.N_sim=4"];
    for u in ["simulation.u=[1.5, -2]", "simulation.u=[[1.5, -2]]"] {
        let mut o = base.to_vec();
        o.push(u);
        let sim = load("hopper_mpc.yaml", &o).unwrap().simulation().unwrap();
        assert_eq!(sim.controls, vec![vec![1.5, -2.0]; 4], "{u}");
    }
    let mut o = base.to_vec();
    o.push("simulation.u=[[1, 2], [3, 4], [5, 6], [7, 8]]");
    let sim = load("hopper_mpc.yaml", &o).unwrap().simulation().unwrap();
    assert_eq!(sim.controls[2], vec![5.0, 6.0]);
    // Two vectors for four steps: neither form.
    let mut o = base.to_vec();
    o.push("simulation.u=[[1, 2], [3, 4]]");
    // (loading checks the simulation section already)
    let e = match load("hopper_mpc.yaml", &o).and_then(|p| p.simulation()) {
        Ok(_) => panic!("two vectors for four steps accepted"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("simulation.u") && e.contains("2 vectors"), "{e}");
}

#[test]
fn fesdj_options() {
    let p = load(
        "bouncing_ball_1d.yaml",
        &[
            "fesdj.n_s=3",
            "fesdj.scheme=gauss_legendre",
            "simulation.N_sim=10",
        ],
    )
    .unwrap();
    let sim = p.simulation().unwrap();
    assert_eq!(sim.options.n_s, 3);
    assert_eq!(sim.options.scheme, RkScheme::GaussLegendre);
    assert_eq!(sim.n_steps, 10);
    assert!((sim.options.t_final - 0.3).abs() < 1e-15);
    // A key the file does not have but the schema does (nested, created on the fly).
    let p = load(
        "bouncing_ball_1d.yaml",
        &["fesdj.initial_guess.lambda_normal=0.5"],
    )
    .unwrap();
    assert_eq!(p.config.fesdj.initial_guess.lambda_normal, 0.5);
}

#[test]
fn parameters_and_expressions() {
    let p = load(
        "bouncing_ball_1d.yaml",
        &["model.expressions.parameters.g=10"],
    )
    .unwrap();
    assert_eq!(p.symbols().params, [("g".to_string(), 10.0)]);
    let p = load(
        "bouncing_ball_1d.yaml",
        &["model.expressions.f_v=[\"-g - 0.1*v_q\"]"],
    )
    .unwrap();
    assert_eq!(p.cls_model().unwrap().n_q(), 1);
}

#[test]
fn unknown_keys_are_errors_naming_the_key() {
    let m = err("bouncing_ball_1d.yaml", &["fesdj.n_ss=3"]);
    assert!(m.starts_with("--set fesdj.n_ss: unknown key"), "{m}");
    let m = err("bouncing_ball_1d.yaml", &["modell.restitution=0.8"]);
    assert!(
        m.starts_with("--set modell.restitution: unknown key"),
        "{m}"
    );
    let m = err(
        "bouncing_ball_1d.yaml",
        &["model.expressions.parameters.gg=1"],
    );
    assert!(
        m.starts_with("--set model.expressions.parameters.gg: unknown key"),
        "{m}"
    );
    let m = err("hopper_ocp.yaml", &["model.robot.contacts[0].radiuss=0.1"]);
    assert!(
        m.starts_with("--set model.robot.contacts[0].radiuss: unknown key"),
        "{m}"
    );
}

#[test]
fn ipm_keys_without_an_ipm_section() {
    // hopper_ocp.yaml has a `solver` section without `ipm`: the override creates it, changes
    // the key it names and keeps the homotopy's other IPM defaults.
    let p = load("hopper_ocp.yaml", &["solver.ipm.tol=1e-6"]).unwrap();
    let ipm = &p.config.solver.ipm;
    assert_eq!(ipm.tol, 1e-6);
    assert_eq!(ipm.mu_min, 1e-13);
    let m = err("hopper_ocp.yaml", &["solver.ipm.tolerance=1e-6"]);
    assert!(
        m.starts_with("--set solver.ipm.tolerance: unknown key"),
        "{m}"
    );
    assert!(m.contains("tolerance"), "{m}");
}

#[test]
fn malformed_overrides_are_errors() {
    let m = err("bouncing_ball_1d.yaml", &["horizon.T"]);
    assert!(m.contains("expected KEY=VALUE"), "{m}");
    let m = err("bouncing_ball_1d.yaml", &["initial.q[3]=1"]);
    assert!(
        m.contains("--set initial.q[3]: index 3 out of range"),
        "{m}"
    );
    let m = err("bouncing_ball_1d.yaml", &["initial.q.x=1"]);
    assert!(
        m.contains("--set initial.q.x: `initial.q` is a list"),
        "{m}"
    );
    let m = err("bouncing_ball_1d.yaml", &["simulation.T_sim.x=1"]);
    assert!(
        m.contains("`simulation.T_sim` is an integer, it has no field `x`"),
        "{m}"
    );
    let m = err("bouncing_ball_1d.yaml", &["initial.q=[1"]);
    assert!(m.contains("--set initial.q: value is not YAML"), "{m}");
}

#[test]
fn values_are_checked_like_the_file() {
    let m = err("bouncing_ball_1d.yaml", &["simulation.N_sim=ten"]);
    assert!(m.starts_with("simulation.N_sim: invalid type"), "{m}");
    let m = err("bouncing_ball_1d.yaml", &["initial.q=[1.3, 2]"]);
    assert!(m.starts_with("initial.q: expected 1 entries"), "{m}");
    let m = err("bouncing_ball_1d.yaml", &["model.restitution=1.5"]);
    assert!(m.starts_with("model.restitution: must be in [0, 1]"), "{m}");
    let m = err("bouncing_ball_1d.yaml", &["fesdj.n_s=0"]);
    assert!(m.contains("fesdj: option `n_s`"), "{m}");
}

//! Problem-file errors: one test per error class, each asserting the field path in the message.

use std::path::Path;

use fesdj_mpc::config::{ConfigError, Problem};

/// A valid two-coordinate model with one frictional contact and a control; `{..}` markers are
/// replaced by the tests.
const BASE: &str = r#"
model:
  expressions:
    q: [x, y]
    u: [f]
    parameters: {g: 9.81, m: 2}
    M: [m, m]
    f_v: ["f", "-m*g"]
    contacts:
      - {f_c: "y", J_t: [1, 0], mu: 0.3}
horizon: {T: 1, N: 2}
initial: {q: [0, 1]}
ocp:
  Q: 1
  terminal: {g: ["x - 1"]}
"#;

fn load(text: &str) -> Result<Problem, ConfigError> {
    Problem::from_yaml(text, Path::new("test.yaml"), Path::new("."), &[])
}

fn err(text: &str) -> String {
    match load(text) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

fn assert_msg(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "`{p}` not in: {msg}");
    }
}

#[test]
fn base_loads() {
    let p = load(BASE).unwrap();
    assert_eq!(p.symbols().v, ["v_x", "v_y"]);
    p.ocp().unwrap().transcribe().unwrap();
}

#[test]
fn yaml_syntax_error_names_the_file() {
    let e = load("model: [1, 2\n").unwrap_err();
    assert!(matches!(e, ConfigError::Yaml { .. }), "{e:?}");
    assert_msg(&e.to_string(), &["test.yaml", "YAML syntax error"]);
}

#[test]
fn unknown_field_names_its_path() {
    let m = err(&with("    u: [f]\n", "    u: [f]\n    qq: 1\n"));
    assert_msg(&m, &["model.expressions.qq: unknown field `qq`"]);
    let m = err(&with(
        "horizon: {T: 1, N: 2}",
        "horizon: {T: 1, N: 2, dt: 0.1}",
    ));
    assert_msg(&m, &["horizon.dt: unknown field `dt`"]);
    let m = err(&with("ocp:\n", "fesdj: {n_ss: 3}\nocp:\n"));
    assert_msg(&m, &["fesdj.n_ss: unknown field `n_ss`"]);
}

#[test]
fn wrong_type_names_its_path() {
    let m = err(&with("initial: {q: [0, 1]}", "initial: {q: [0, one]}"));
    assert_msg(&m, &["initial.q[1]: invalid type"]);
    let m = err(&with("horizon: {T: 1, N: 2}", "horizon: {T: 1, N: 2.5}"));
    assert_msg(&m, &["horizon.N: invalid type"]);
    let m = err(&with("mu: 0.3}", "mu: [0.3]}"));
    assert_msg(&m, &["model.expressions.contacts[0].mu: invalid type"]);
}

#[test]
fn missing_field_names_the_section() {
    let m = err(&with("    f_v: [\"f\", \"-m*g\"]\n", ""));
    assert_msg(&m, &["model.expressions: missing field `f_v`"]);
}

#[test]
fn unknown_symbol_names_field_and_symbol() {
    let m = err(&with("\"-m*g\"]", "\"-m*g + qq\"]"));
    assert_msg(
        &m,
        &["model.expressions.f_v[1]: unknown symbol 'qq' at column 8"],
    );
    let m = err(&with(
        "parameters: {g: 9.81, m: 2}",
        "parameters: {g: 9.81, m: \"2*zz\"}",
    ));
    assert_msg(&m, &["model.expressions.parameters.m: unknown symbol 'zz'"]);
    let m = err(&with("x - 1", "x - target"));
    assert_msg(&m, &["ocp.terminal.g[0]: unknown symbol 'target'"]);
}

#[test]
fn parse_error_names_field_token_and_column() {
    let m = err(&with("M: [m, m]", "M: [m, \"m *\"]"));
    assert_msg(
        &m,
        &["model.expressions.M[1]: unexpected end of input at column 4"],
    );
    let m = err(&with("f_c: \"y\"", "f_c: \"y)\""));
    assert_msg(
        &m,
        &["model.expressions.contacts[0].f_c: unexpected ')' at column 2"],
    );
}

#[test]
fn symbol_out_of_scope_names_field_and_symbol() {
    let m = err(&with("M: [m, m]", "M: [m, \"m + v_x\"]"));
    assert_msg(
        &m,
        &["model.expressions.M[1]: symbol 'v_x' at column 5 is not allowed here"],
    );
    let m = err(&with("x - 1", "x - f"));
    assert_msg(&m, &["ocp.terminal.g[0]: symbol 'f'"]);
}

#[test]
fn shape_mismatch_names_its_path() {
    let m = err(&with("f_v: [\"f\", \"-m*g\"]", "f_v: [\"f\"]"));
    assert_msg(&m, &["model.expressions.f_v: expected 2 entries, got 1"]);
    let m = err(&with("M: [m, m]", "M: [[m, 0], [0]]"));
    assert_msg(&m, &["model.expressions.M[1]: expected 2 entries, got 1"]);
    let m = err(&with("initial: {q: [0, 1]}", "initial: {q: [0, 1, 2]}"));
    assert_msg(&m, &["initial.q: expected 2 entries"]);
    let m = err(&with("Q: 1", "Q: [1, 2]"));
    assert_msg(&m, &["ocp.Q: expected 4 entries"]);
    let m = err(&with("J_t: [1, 0]", "J_t: [[1, 0], [0, 1], [1, 1]]"));
    assert_msg(
        &m,
        &["model.expressions.contacts[0].J_t: expected 1 or 2 tangent vectors"],
    );
}

#[test]
fn invalid_values_name_their_path() {
    let m = err(&with("mu: 0.3}", "mu: 0.3, restitution: 1.5}"));
    assert_msg(
        &m,
        &["model.expressions.contacts[0].restitution: must be in [0, 1]"],
    );
    let m = err(&with("model:\n", "model:\n  mu: 0.1\n"));
    assert_msg(
        &m,
        &["model.expressions.contacts[0].mu: set either `model.mu`"],
    );
    let m = err(&with("q: [x, y]", "q: [x, x]"));
    assert_msg(&m, &["model.expressions.q[1]: 'x' is defined twice"]);
    let m = err(&with("q: [x, y]", "q: [x, sin]"));
    assert_msg(&m, &["model.expressions.q[1]: 'sin' is reserved"]);
    let m = err(&with("M: [m, m]", "M: [m, \"-m\"]"));
    assert_msg(
        &m,
        &["model.expressions.M: the mass matrix is not symmetric positive definite"],
    );
    let m = err(&with("J_t: [1, 0], ", ""));
    assert_msg(
        &m,
        &["model.expressions.contacts[0].J_t: required when mu > 0"],
    );
    let m = err(&with("horizon: {T: 1, N: 2}", "horizon: {T: -1, N: 2}"));
    assert_msg(&m, &["horizon.T: must be finite and > 0"]);
    let m = err(&with("ocp:\n", "fesdj: {n_intervals: 4}\nocp:\n"));
    assert_msg(&m, &["fesdj.n_intervals: is set by `horizon.N`"]);
    let m = err(&with("Q: 1", "Q: 1\n  bounds: {u: {lb: [2], ub: [1]}}"));
    assert_msg(&m, &["ocp.bounds.u[0]: needs lb ≤ ub"]);
}

#[test]
fn non_affine_controls_name_the_row() {
    let m = err(&with("f_v: [\"f\",", "f_v: [\"f^2\","));
    assert_msg(
        &m,
        &[
            "model.expressions.f_v[0]: the controls must enter affinely",
            "'f'",
        ],
    );
    let m = err(&with("f_v: [\"f\",", "f_v: [\"f*v_x\","));
    assert_msg(&m, &["model.expressions.f_v[0]", "'v_x'"]);
}

#[test]
fn fesdj_option_errors_name_the_section_and_option() {
    let m = err(&with("ocp:\n", "fesdj: {gamma_h: 1.5}\nocp:\n"));
    assert_msg(&m, &["fesdj: option `gamma_h`: must be in [0, 1]"]);
}

#[test]
fn model_section_needs_exactly_one_kind() {
    let m = err("model: {mu: 0.1}\ninitial: {q: [0]}\n");
    assert_msg(
        &m,
        &["model: give exactly one of `expressions` and `robot`"],
    );
}

#[test]
fn robot_errors_name_their_path() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("config");
    let robot =
        |body: &str| format!("model:\n  robot:\n{body}\ninitial: {{q: [0.1, 0.5, 0, 0, 0.5]}}\n");
    let load = |text: &str| {
        Problem::from_yaml(text, Path::new("robot.yaml"), &dir, &[])
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let m = load(&robot(
        "    urdf: ../urdf/missing.urdf\n    root: planar_xz",
    ));
    assert_msg(&m, &["model.robot.urdf:", "missing.urdf"]);
    let m = load(&robot("    urdf: ../urdf/hopper.urdf\n    root: floating"));
    assert_msg(&m, &["model.robot.root: `floating`"]);
    let m = load(&robot(
        "    urdf: ../urdf/hopper.urdf\n    root: planar_xz\n    contacts: [{frame: toe, mu: 0.5}]",
    ));
    assert_msg(&m, &["model.robot.contacts[0]:", "toe"]);
    let m = load(&robot(
        "    urdf: ../urdf/hopper.urdf\n    root: planar_xz\n    actuated: [knee]",
    ));
    assert_msg(&m, &["model.robot.actuated[0]:", "knee"]);
    let m = load(&robot(
        "    urdf: ../urdf/hopper.urdf\n    root: planar_xzz",
    ));
    assert_msg(&m, &["model.robot.root: unknown variant `planar_xzz`"]);
}

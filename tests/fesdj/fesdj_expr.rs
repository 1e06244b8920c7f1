//! The expression parser of `config::expr`: values against f64 formulas, symbolic evaluation
//! through compiled `Sx` functions, precedence, and every error class with its position.

use fesdj_mpc::ad::{Function, Sx};
use fesdj_mpc::config::expr::{parse, Expr, ExprError};

const NAMES: [&str; 3] = ["x", "y", "v_x"];

fn resolve(name: &str) -> Option<usize> {
    NAMES.iter().position(|n| *n == name)
}

fn p(text: &str) -> Expr {
    parse(text, &resolve).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn val(text: &str, vars: [f64; 3]) -> f64 {
    p(text).eval(&vars)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

#[test]
fn values_match_f64_formulas() {
    let (x, y, w) = (0.7_f64, -1.3_f64, 2.5_f64);
    let vars = [x, y, w];
    let cases: Vec<(&str, f64)> = vec![
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("2^3^2", 512.0),
        ("-2^2", -4.0),
        ("2^-1", 0.5),
        ("2**3", 8.0),
        ("8 / 4 / 2", 1.0),
        ("1 - 2 - 3", -4.0),
        (".5e1 + 1E-1", 5.1),
        ("pi", std::f64::consts::PI),
        ("x*y - v_x", x * y - w),
        ("-x + +y", -x + y),
        ("sin(x) + cos(y) * tan(x)", x.sin() + y.cos() * x.tan()),
        ("exp(x) - log(v_x) + sqrt(v_x)", x.exp() - w.ln() + w.sqrt()),
        ("abs(y) + sign(y) + sign(0)", y.abs() - 1.0),
        ("tanh(y) * atan2(y, x)", y.tanh() * y.atan2(x)),
        ("min(x, y) + max(x, y)", x + y),
        ("x^2 + y^3 - x^-2", x * x + y.powi(3) - 1.0 / (x * x)),
        ("v_x^0.5", w.sqrt()),
        ("v_x^1.7", w.powf(1.7)),
        ("v_x^x", w.powf(x)),
        ("x^0", 1.0),
        ("-(x - y)^2 / 2", -(x - y).powi(2) / 2.0),
    ];
    for (text, want) in cases {
        let got = val(text, vars);
        assert!(close(got, want), "{text}: {got} vs {want}");
    }
}

#[test]
fn symbolic_evaluation_equals_f64() {
    let texts = [
        "x*y - v_x",
        "sin(x)^2 + cos(x)^2 * y",
        "v_x^x + x^-3",
        "atan2(y, x) * min(x, v_x) - max(y, 0)",
        "sqrt(v_x) / (1 + exp(-x))",
        "abs(y) * sign(x) + tanh(y) - log(v_x)",
    ];
    let s = Sx::sym_vec("s", 3);
    for text in texts {
        let e = p(text);
        let sx = e.eval(&s);
        let f = Function::new("e", &[&s], &[&[sx]]).unwrap();
        for point in [[0.7, -1.3, 2.5], [1.9, 0.4, 0.1], [-0.6, 2.2, 7.0]] {
            let mut out = [0.0];
            f.eval(&[&point], &mut [&mut out], &mut f.workspace())
                .unwrap();
            let want = e.eval(&point);
            assert!(
                close(out[0], want),
                "{text} at {point:?}: {} vs {want}",
                out[0]
            );
        }
    }
}

#[test]
fn symbols_and_constants() {
    let e = p("x + 2*v_x - x");
    assert_eq!(e.symbols(), vec![(0, 1), (2, 7), (0, 13)]);
    assert_eq!(
        p("2*pi - 1").constant_value(),
        Some(2.0 * std::f64::consts::PI - 1.0)
    );
    assert_eq!(p("x").constant_value(), None);
}

fn err(text: &str) -> ExprError {
    match parse(text, &resolve) {
        Ok(e) => panic!("{text}: parsed as {e:?}"),
        Err(e) => e,
    }
}

#[test]
fn unknown_symbol_is_named_with_its_column() {
    let e = err("x + qq*2");
    assert_eq!(
        e,
        ExprError::UnknownSymbol {
            pos: 5,
            name: "qq".into()
        }
    );
    assert_eq!(e.to_string(), "unknown symbol 'qq' at column 5");
}

#[test]
fn syntax_errors_name_the_token_and_position() {
    let cases = [
        (
            "x +",
            "unexpected end of input at column 4, expected a number, a name or '('",
        ),
        (
            "",
            "unexpected end of input at column 1, expected a number, a name or '('",
        ),
        (
            "(x + y",
            "unexpected end of input at column 7, expected ')'",
        ),
        (
            "x y",
            "unexpected 'y' at column 3, expected an operator or end of input",
        ),
        (
            "x + )",
            "unexpected ')' at column 5, expected a number, a name or '('",
        ),
        (
            "sin(x y)",
            "unexpected 'y' at column 7, expected ',' or ')'",
        ),
        (
            "x * * y",
            "unexpected '*' at column 5, expected a number, a name or '('",
        ),
        ("x $ y", "invalid character '$' at column 3"),
        ("1.2.3 + x", "invalid number '1.2.3' at column 1"),
        ("2x", "invalid number '2x' at column 1"),
        ("foo(x)", "unknown function 'foo' at column 1"),
        (
            "atan2(x)",
            "function 'atan2' at column 1 takes 2 argument(s), got 1",
        ),
        (
            "sin(x, y)",
            "function 'sin' at column 1 takes 1 argument(s), got 2",
        ),
    ];
    for (text, msg) in cases {
        assert_eq!(err(text).to_string(), msg, "{text}");
    }
}

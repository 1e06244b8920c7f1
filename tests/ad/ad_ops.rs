//! Every operation, its first and second derivatives, against central finite differences at
//! random points (property tests).

use fesdj_mpc::ad::{gradient_sx, Function, OpCode, Scalar, Sx};
use proptest::prelude::*;

/// Value, first and second derivative of a unary op at `x` through compiled tapes.
fn unary_derivs(op: OpCode, x: f64) -> (f64, f64, f64) {
    let s = Sx::sym("x");
    let y = Sx::apply_unary(op, s);
    let d1 = gradient_sx(y, &[s])[0];
    let d2 = gradient_sx(d1, &[s])[0];
    let f = Function::new("f", &[&[s]], &[&[y, d1, d2]]).unwrap();
    let mut ws = f.workspace();
    let mut out = [0.0; 3];
    f.eval(&[&[x]], &mut [&mut out], &mut ws).unwrap();
    (out[0], out[1], out[2])
}

fn eval1(op: OpCode, x: f64) -> f64 {
    op.eval_unary(x)
}

fn check_close(a: f64, b: f64, tol: f64, what: &str) {
    let scale = 1.0 + a.abs().max(b.abs());
    assert!(
        (a - b).abs() <= tol * scale,
        "{what}: {a} vs {b} (diff {})",
        (a - b).abs()
    );
}

/// Central differences of first and second order.
fn fd(f: impl Fn(f64) -> f64, x: f64) -> (f64, f64) {
    let h1 = 1e-6 * (1.0 + x.abs());
    let h2 = 1e-4 * (1.0 + x.abs());
    let d1 = (f(x + h1) - f(x - h1)) / (2.0 * h1);
    let d2 = (f(x + h2) - 2.0 * f(x) + f(x - h2)) / (h2 * h2);
    (d1, d2)
}

fn unary_case(op: OpCode, x: f64) {
    let (v, d1, d2) = unary_derivs(op, x);
    check_close(v, eval1(op, x), 1e-14, &format!("{op:?} value at {x}"));
    let (f1, f2) = fd(|t| eval1(op, t), x);
    check_close(d1, f1, 1e-6, &format!("{op:?} first derivative at {x}"));
    check_close(d2, f2, 1e-4, &format!("{op:?} second derivative at {x}"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn smooth_unary_ops_on_reals(x in -3.0f64..3.0) {
        for op in [OpCode::Neg, OpCode::Sq, OpCode::Exp, OpCode::Sin, OpCode::Cos, OpCode::Tanh,
                   OpCode::Atan, OpCode::Sinh, OpCode::Cosh] {
            unary_case(op, x);
        }
    }

    #[test]
    fn positive_domain_ops(x in 0.2f64..5.0) {
        for op in [OpCode::Sqrt, OpCode::Log, OpCode::Inv] {
            unary_case(op, x);
        }
    }

    #[test]
    fn bounded_domain_ops(x in -0.9f64..0.9) {
        for op in [OpCode::Asin, OpCode::Acos, OpCode::Tan] {
            unary_case(op, x);
        }
    }

    #[test]
    fn nonsmooth_ops_away_from_kinks(x in prop_oneof![-3.0f64..-0.1, 0.1f64..3.0]) {
        for op in [OpCode::Abs, OpCode::Sign] {
            unary_case(op, x);
        }
    }

    #[test]
    fn binary_ops(a in 0.3f64..3.0, b in -2.0f64..2.0) {
        for op in [OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Div, OpCode::Atan2,
                   OpCode::Pow, OpCode::Fmin, OpCode::Fmax] {
            if matches!(op, OpCode::Div) && b.abs() < 0.2 { continue; }
            if matches!(op, OpCode::Fmin | OpCode::Fmax) && (a - b).abs() < 0.1 { continue; }
            binary_case(op, a, b);
        }
    }

    #[test]
    fn scalar_trait_generic_code_matches(x in -2.0f64..2.0, y in 0.5f64..2.0) {
        // The same generic function evaluated with f64 and through a compiled Sx tape.
        fn g<S: Scalar>(x: S, y: S) -> S {
            (x.sin() * y.powi(3) + x.atan2(y) - (x * 0.5).tanh() / y.sqrt()
             + y.ln() * x.cos() + x.exp() * 0.1 + y.powf(x) - x.abs() * 0.0 + S::one()) * 2.0
        }
        let (sx, sy) = (Sx::sym("x"), Sx::sym("y"));
        let f = Function::new("g", &[&[sx, sy]], &[&[g(sx, sy)]]).unwrap();
        let mut out = [0.0];
        f.eval(&[&[x, y]], &mut [&mut out], &mut f.workspace()).unwrap();
        check_close(out[0], g(x, y), 1e-13, "generic function");
    }
}

fn binary_case(op: OpCode, a: f64, b: f64) {
    let (sa, sb) = (Sx::sym("a"), Sx::sym("b"));
    let y = Sx::apply_binary(op, sa, sb);
    let g = gradient_sx(y, &[sa, sb]);
    let haa = gradient_sx(g[0], &[sa, sb]);
    let hbb = gradient_sx(g[1], &[sa, sb]);
    let f = Function::new(
        "f",
        &[&[sa, sb]],
        &[&[y, g[0], g[1], haa[0], haa[1], hbb[0], hbb[1]]],
    )
    .unwrap();
    let mut out = [0.0; 7];
    f.eval(&[&[a, b]], &mut [&mut out], &mut f.workspace())
        .unwrap();
    let e = |x: f64, y: f64| op.eval_binary(x, y);
    check_close(out[0], e(a, b), 1e-14, &format!("{op:?} value"));
    let (da, daa) = fd(|t| e(t, b), a);
    let (db, dbb) = fd(|t| e(a, t), b);
    check_close(out[1], da, 1e-6, &format!("{op:?} d/da"));
    check_close(out[2], db, 1e-6, &format!("{op:?} d/db"));
    check_close(out[3], daa, 1e-4, &format!("{op:?} d2/da2"));
    check_close(out[6], dbb, 1e-4, &format!("{op:?} d2/db2"));
    // Mixed partial: symmetric, against a difference of first derivatives.
    let h = 1e-5;
    let dab =
        (e(a + h, b + h) - e(a + h, b - h) - e(a - h, b + h) + e(a - h, b - h)) / (4.0 * h * h);
    check_close(out[4], dab, 1e-4, &format!("{op:?} d2/dadb"));
    check_close(out[4], out[5], 1e-12, &format!("{op:?} mixed symmetry"));
}

#[test]
fn hash_consing_and_simplification() {
    let x = Sx::sym("x");
    let y = Sx::sym("y");
    assert_eq!(x + y, y + x, "commutative operands are ordered");
    assert_eq!(
        (x * y).sin(),
        (y * x).sin(),
        "same op, same operands, same node"
    );
    assert_eq!(x * 0.0, Sx::zero());
    assert_eq!(x * 1.0, x);
    assert_eq!(x + 0.0, x);
    assert_eq!(x - x, Sx::zero());
    assert_eq!(-(-x), x);
    assert_eq!((Sx::constant(2.0) * 3.0 + 1.0).constant_value(), Some(7.0));
    assert_eq!(Sx::constant(2.0).sin().constant_value(), Some(2.0f64.sin()));
    assert_ne!(Sx::sym("x"), x, "every symbol is distinct");
}

//! The scheduled tapes against the creation-order tape (in a file of their own: they compile
//! functions, and `function.rs` depends on the scheduler).

use crate::ad::{hessian_of_lagrangian, jacobian_of, Function, Scalar, Sx};

/// Constraints of a small planar two-link arm with contact-like terms: every instruction
/// kind the compiler emits (loads, constant-fused ops, products fused into sums, sin/cos,
/// division, sqrt, exp, tanh, atan2, outputs that are constants).
fn arm(q: &[Sx], v: &[Sx], lam: &[Sx]) -> Vec<Sx> {
    let (s1, c1) = (q[0].sin(), q[0].cos());
    let (s12, c12) = ((q[0] + q[1]).sin(), (q[0] + q[1]).cos());
    let m11 = (c1 * 0.5 + 1.3) * 2.0 + q[1].cos() * 0.7;
    let m12 = q[1].cos() * 0.35 + 0.4;
    let gap = s1 * 1.1 + s12 * 0.9 + 0.05;
    let tang = c1 * 1.1 + c12 * 0.9;
    vec![
        m11 * v[0] + m12 * v[1] - lam[0] * tang,
        m12 * v[0] + v[1] * 0.4 - (gap * lam[1]) / (q[1].sq() + 1.0),
        (gap.sq() + tang.sq()).sqrt() - 1.0,
        (v[0] * v[1]).exp() * 0.01 + lam[0].tanh(),
        tang.atan2(gap) - 2.0 / (1.0 + v[0].sq()),
        Sx::constant(3.0),
    ]
}

#[test]
fn scheduled_tapes_match_creation_order_bit_for_bit() {
    let x = Sx::sym_vec("x", 6);
    let g = arm(&x[0..2], &x[2..4], &x[4..6]);
    let fun = Function::new("arm", &[&x], &[&g]).unwrap();
    let f = Function::new("f", &[&x], &[&[(x[0] * x[3]).sin() + x[1].sq()]]).unwrap();
    let (_, jac) = jacobian_of(&fun, 0, 0).unwrap();
    let (_, hess) = hessian_of_lagrangian(&f, &fun).unwrap();
    let point: Vec<f64> = (0..6).map(|i| 0.3 + 0.17 * i as f64).collect();
    let lam: Vec<f64> = (0..6).map(|i| 1.0 - 0.31 * i as f64).collect();
    for (name, h, args) in [
        ("g", &fun, vec![point.clone()]),
        ("jac", &jac, vec![point.clone()]),
        ("hess", &hess, vec![point.clone(), vec![0.7], lam.clone()]),
    ] {
        let ins: Vec<&[f64]> = args.iter().map(|a| a.as_slice()).collect();
        let want = h.eval_creation_order(&ins);
        let mut got: Vec<Vec<f64>> = want.iter().map(|o| vec![f64::NAN; o.len()]).collect();
        let mut outs: Vec<&mut [f64]> = got.iter_mut().map(|o| o.as_mut_slice()).collect();
        h.eval(&ins, &mut outs, &mut h.workspace()).unwrap();
        for (o, w) in got.iter().zip(&want) {
            for (a, b) in o.iter().zip(w) {
                assert_eq!(a.to_bits(), b.to_bits(), "{name}: {a} vs {b}");
            }
        }
        // The segments cover the tape in order, each one kind, neighbours different.
        let segs = h.segments();
        assert_eq!(segs.first().map(|s| s.start), Some(0));
        assert_eq!(
            segs.last().map(|s| s.end as usize),
            Some(h.n_instructions())
        );
        for w in segs.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert_ne!(w[0].op, w[1].op);
        }
    }
}

#[test]
fn wide_tapes_run_in_long_segments() {
    // 40 copies of the arm's constraints at different points: instructions of one depth
    // are independent, so segments hold many instructions each.
    let x = Sx::sym_vec("x", 240);
    let g: Vec<Sx> = x
        .chunks(6)
        .flat_map(|c| arm(&c[0..2], &c[2..4], &c[4..6]))
        .collect();
    let fun = Function::new("arms", &[&x], &[&g]).unwrap();
    let n = fun.n_instructions();
    let per_segment = n as f64 / fun.segments().len() as f64;
    assert!(
        per_segment > 20.0,
        "{n} instructions in {} segments",
        fun.segments().len()
    );
}

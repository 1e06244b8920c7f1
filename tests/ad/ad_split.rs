//! `SplitFunction`: one function's output cut into ranges evaluated on several threads gives,
//! bit for bit, the values of the whole function evaluated on one thread (the reference), for
//! every thread count, after clones, and with errors named as for a plain function.

use fesdj_mpc::ad::{jacobian, AdError, Function, Scalar, SplitFunction, Sx};

/// A Jacobian of a chain of coupled nonlinear stages, like a transcription's (each stage
/// reads its neighbour), with parameters.
fn chain_jacobian(stages: usize) -> Function {
    let x = Sx::sym_vec("x", 3 * stages);
    let p = Sx::sym_vec("p", 2);
    let mut g = Vec::new();
    for k in 0..stages {
        let (a, b, c) = (x[3 * k], x[3 * k + 1], x[3 * k + 2]);
        let next = x[(3 * k + 3) % x.len()];
        g.push((a * b).sin() + p[0] * c.exp() - next);
        g.push(b.atan2(a + 2.0) * p[1] + (c.sq() + 1.0).sqrt().ln());
        g.push(a * b * c + next.cos() * p[0]);
    }
    let f = Function::new("chain", &[&x, &p], &[&g]).unwrap();
    jacobian(&f).unwrap().1
}

fn point(n: usize, seed: f64) -> Vec<f64> {
    (0..n)
        .map(|i| ((i as f64 + seed) * 0.7).sin() * 0.8)
        .collect()
}

#[test]
fn every_thread_count_gives_the_one_thread_values_bit_for_bit() {
    let jf = chain_jacobian(40);
    let n = jf.size_out(0);
    let mut ws = jf.workspace();
    for threads in [1, 2, 3, 5] {
        let split = SplitFunction::new(&jf, threads).unwrap();
        assert_eq!(split.threads(), threads);
        let ranges = split.ranges();
        assert_eq!(ranges.len(), threads);
        assert_eq!(ranges[0].start, 0);
        assert_eq!(ranges[threads - 1].end, n);
        assert!(ranges
            .windows(2)
            .all(|w| w[0].end == w[1].start && !w[0].is_empty()));
        let mut sws = split.workspace();
        let alone = {
            let c = split.clone();
            c.clone()
        };
        // The function itself, a clone (workers of its own) and the clone after the original
        // is gone.
        let copy = split.clone();
        let trials = [(0.0, &split), (1.0, &copy), (2.5, &split)];
        for (trial, s) in trials {
            let x = point(jf.size_in(0), trial);
            let p = [0.3 + trial, -1.1];
            let mut want = vec![0.0; n];
            jf.eval(&[&x, &p], &mut [&mut want], &mut ws).unwrap();
            let mut got = vec![f64::NAN; n];
            s.eval(&[&x, &p], &mut got, &mut sws).unwrap();
            let same = want
                .iter()
                .zip(&got)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{threads} threads, trial {trial}: values differ");
            let mut again = vec![f64::NAN; n];
            alone.eval(&[&x, &p], &mut again, &mut sws).unwrap();
            assert!(again
                .iter()
                .zip(&got)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }
}

#[test]
fn wrong_arguments_are_named() {
    let jf = chain_jacobian(4);
    let split = SplitFunction::new(&jf, 2).unwrap();
    let mut ws = split.workspace();
    let x = point(jf.size_in(0), 0.0);
    let mut out = vec![0.0; jf.size_out(0)];
    let e = split.eval(&[&x, &[0.0]], &mut out, &mut ws).unwrap_err();
    assert!(
        matches!(e, AdError::Dimension { ref what, .. } if what == "length of input 1"),
        "{e}"
    );
    let mut short = vec![0.0; 3];
    let e = split
        .eval(&[&x, &[0.0, 0.0]], &mut short, &mut ws)
        .unwrap_err();
    assert!(
        matches!(e, AdError::Dimension { ref what, .. } if what == "length of output 0"),
        "{e}"
    );
    let two = Function::new(
        "two",
        &[&Sx::sym_vec("a", 1)],
        &[&[Sx::constant(1.0)], &[Sx::constant(2.0)]],
    )
    .unwrap();
    assert!(
        SplitFunction::new(&two, 2).is_err(),
        "two outputs cannot be split"
    );
}

#[test]
fn more_parts_than_threads_are_dealt_out_in_order() {
    let jf = chain_jacobian(30);
    let n = jf.size_out(0);
    let split = SplitFunction::with_parts(&jf, 2, 5).unwrap();
    assert_eq!(split.threads(), 2);
    assert_eq!(split.ranges().len(), 5);
    assert_eq!(split.groups(), &[0..2, 2..5]);
    let x = point(jf.size_in(0), 0.4);
    let p = [0.7, 0.2];
    let mut want = vec![0.0; n];
    jf.eval(&[&x, &p], &mut [&mut want], &mut jf.workspace())
        .unwrap();
    let mut got = vec![f64::NAN; n];
    split
        .eval(&[&x, &p], &mut got, &mut split.workspace())
        .unwrap();
    assert!(want
        .iter()
        .zip(&got)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
}

//! `Function::eval` and `MappedFunction::eval` perform no heap allocation (counting allocator),
//! with native code (compiled once, before counting: compiling allocates) and with the
//! interpreter.

use crate::counting_alloc as alloc_common;

use fesdj_mpc::ad::{
    hessian_of_lagrangian, jacobian, native, Backend, Function, Gather, MappedFunction, Scalar,
    Scatter, Sx,
};

#[test]
fn eval_and_mapped_eval_do_not_allocate() {
    let _turn = crate::support::serial::file(module_path!());
    let x = Sx::sym_vec("x", 4);
    let p = Sx::sym_vec("p", 2);
    let y = vec![
        (x[0] * x[1]).sin() + p[0] * x[2].exp(),
        x[3].atan2(x[0] + 2.0) * p[1],
        (x[1].sq() + 1.0).sqrt().ln() + x[2].powf(x[3] * 0.5 + 0.1),
    ];
    let f = Function::new("f", &[&x, &p], &[&y]).unwrap();
    let (_, jf) = jacobian(&f).unwrap();
    let obj = Function::new("o", &[&x, &p], &[&[x[0].sq() * x[3] + p[0]]]).unwrap();
    let (_, hf) = hessian_of_lagrangian(&obj, &f).unwrap();
    let mut ws = f.workspace();
    let mut wj = jf.workspace();
    let mut wh = hf.workspace();
    let mut out = vec![0.0; 3];
    let mut jout = vec![0.0; jf.size_out(0)];
    let mut hout = vec![0.0; hf.size_out(0)];
    let xv = [0.3, 0.4, 0.5, 0.6];
    let pv = [1.5, -0.5];
    let lam = [1.0, 2.0, 3.0];

    let instances: Vec<(Vec<Gather>, Vec<Option<usize>>)> = (0..20)
        .map(|k| {
            let g: Vec<Gather> = (0..4)
                .map(|i| Gather::new(0, (k + i) % 8))
                .chain((0..2).map(|i| Gather::new(1, i)))
                .collect();
            (g, (0..3).map(|i| Some(3 * k + i)).collect())
        })
        .collect();
    let m = MappedFunction::new(f.clone(), &[8, 2], 60, &instances).unwrap();
    let mut mw = m.workspace();
    let big: Vec<f64> = (0..8).map(|i| 0.1 * i as f64 + 0.2).collect();
    let mut dest = vec![0.0; 60];
    // Native code is compiled once per function (shared by clones, so also the mapped one's).
    for g in [&f, &jf, &hf] {
        let native = g.prepare_native().unwrap();
        assert_eq!(native.is_some(), native::native_enabled_by_env());
    }
    let fi = f.clone().with_backend(Backend::Interpreter);
    let mut out_i = vec![0.0; 3];

    let n = alloc_common::allocations_during(|| {
        for _ in 0..100 {
            f.eval(&[&xv, &pv], &mut [&mut out], &mut ws).unwrap();
            fi.eval(&[&xv, &pv], &mut [&mut out_i], &mut ws).unwrap();
            jf.eval(&[&xv, &pv], &mut [&mut jout], &mut wj).unwrap();
            hf.eval(&[&xv, &[1.0], &lam, &pv], &mut [&mut hout], &mut wh)
                .unwrap();
            m.eval(&[&big, &pv], &mut dest, Scatter::Add, &mut mw)
                .unwrap();
        }
    });
    assert_eq!(n, 0, "heap allocations during evaluation");
    assert_eq!(out, out_i);
    assert!(out
        .iter()
        .chain(&jout)
        .chain(&hout)
        .chain(&dest)
        .all(|v| v.is_finite()));
    // The counter works: a Vec allocation is seen.
    let seen = alloc_common::allocations_during(|| {
        let v: Vec<f64> = std::hint::black_box(vec![1.0; 16]);
        drop(v);
    });
    assert!(seen >= 1);
    let _ = Sx::zero();
}

/// A Jacobian evaluated on two threads (`SplitFunction`) allocates nothing per call, on the
/// caller's thread or the worker's (the counting allocator counts every thread).
#[test]
fn split_eval_does_not_allocate() {
    use fesdj_mpc::ad::SplitFunction;
    let _turn = crate::support::serial::file(module_path!());
    let x = Sx::sym_vec("x", 30);
    let p = Sx::sym_vec("p", 1);
    let g: Vec<Sx> = (0..30)
        .map(|k| (x[k] * x[(k + 1) % 30]).sin() + p[0] * x[(k + 7) % 30].exp())
        .collect();
    let f = Function::new("g", &[&x, &p], &[&g]).unwrap();
    let (_, jf) = jacobian(&f).unwrap();
    let split = SplitFunction::new(&jf, 2).unwrap();
    let mut ws = split.workspace();
    let xv: Vec<f64> = (0..30).map(|i| 0.1 * i as f64).collect();
    let mut out = vec![0.0; jf.size_out(0)];
    split.eval(&[&xv, &[0.5]], &mut out, &mut ws).unwrap();
    let n = alloc_common::allocations_during(|| {
        for _ in 0..200 {
            split.eval(&[&xv, &[0.5]], &mut out, &mut ws).unwrap();
        }
    });
    assert_eq!(n, 0, "{n} allocations in 200 calls");
}

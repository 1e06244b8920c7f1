//! Jacobians and Hessians of composite functions against finite differences, and exact
//! sparsity patterns on known structures.

use fesdj_mpc::ad::{
    gradient, hessian_of_lagrangian, hessian_of_objective, jacobian, jacobian_of, Function, Gather,
    MappedFunction, Scalar, Scatter, SparsityPattern, Sx,
};

fn rosenbrock<S: Scalar>(x: &[S]) -> S {
    let mut f = S::zero();
    for i in 0..x.len() - 1 {
        f += (x[i + 1] - x[i].sq()).sq() * 100.0 + (-x[i] + 1.0).sq();
    }
    f
}

/// End point (x, y) of a planar chain of `n` links of lengths 1 + 0.1 i with relative angles q.
fn chain_end<S: Scalar>(q: &[S]) -> [S; 2] {
    let (mut x, mut y, mut th) = (S::zero(), S::zero(), S::zero());
    for (i, &qi) in q.iter().enumerate() {
        th += qi;
        let l = 1.0 + 0.1 * i as f64;
        x += th.cos() * l;
        y += th.sin() * l;
    }
    [x, y]
}

/// A banded (tridiagonal-coupling) vector function.
fn banded<S: Scalar>(x: &[S]) -> Vec<S> {
    let n = x.len();
    (0..n)
        .map(|i| {
            let mut r = x[i].sq() * 3.0 - x[i].exp();
            if i > 0 {
                r += x[i - 1] * x[i];
            }
            if i + 1 < n {
                r -= x[i + 1].sin() * 2.0;
            }
            r
        })
        .collect()
}

fn points(n: usize, seed: u64) -> Vec<f64> {
    // Small deterministic generator (splitmix64) so the test data is reproducible.
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E3779B97F4A7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
            z ^= z >> 31;
            (z as f64 / u64::MAX as f64) * 2.0 - 1.0
        })
        .collect()
}

fn eval(f: &Function, inputs: &[&[f64]]) -> Vec<f64> {
    let mut out = vec![0.0; f.size_out(0)];
    f.eval(inputs, &mut [&mut out], &mut f.workspace()).unwrap();
    out
}

/// Dense Jacobian by central differences of a vector function.
fn fd_jacobian(f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let m = f(x).len();
    let mut jac = vec![vec![0.0; x.len()]; m];
    for j in 0..x.len() {
        let h = 1e-6 * (1.0 + x[j].abs());
        let mut xp = x.to_vec();
        let mut xm = x.to_vec();
        xp[j] += h;
        xm[j] -= h;
        let (fp, fm) = (f(&xp), f(&xm));
        for i in 0..m {
            jac[i][j] = (fp[i] - fm[i]) / (2.0 * h);
        }
    }
    jac
}

fn assert_sparse_matches_dense(p: &SparsityPattern, vals: &[f64], dense: &[Vec<f64>], tol: f64) {
    let mut seen = vec![vec![false; p.ncols()]; p.nrows()];
    for (k, (i, j)) in p.entries().enumerate() {
        seen[i][j] = true;
        let d = dense[i][j];
        assert!(
            (vals[k] - d).abs() <= tol * (1.0 + d.abs()),
            "entry ({i},{j}): {} vs {d}",
            vals[k]
        );
    }
    for (i, row) in dense.iter().enumerate() {
        for (j, &d) in row.iter().enumerate() {
            if !seen[i][j] {
                assert!(d.abs() < 1e-7, "structural zero ({i},{j}) has FD value {d}");
            }
        }
    }
}

#[test]
fn rosenbrock_gradient_and_hessian() {
    let n = 6;
    let x = Sx::sym_vec("x", n);
    let f = Function::new("rosen", &[&x], &[&[rosenbrock(&x)]]).unwrap();
    let g = gradient(&f, 0).unwrap();
    let empty = Function::new("none", &[&x], &[&[]]).unwrap();
    let (hp, h) = hessian_of_lagrangian(&f, &empty).unwrap();
    assert!(hp.is_lower_triangular());
    // Tridiagonal: n diagonal + n-1 sub-diagonal entries.
    assert_eq!(hp.nnz(), 2 * n - 1);
    for seed in 1..6 {
        let x0 = points(n, seed);
        let gv = eval(&g, &[&x0]);
        let fd = fd_jacobian(&|x: &[f64]| vec![rosenbrock(x)], &x0);
        for j in 0..n {
            assert!((gv[j] - fd[0][j]).abs() < 1e-5 * (1.0 + gv[j].abs()));
        }
        let sigma = 0.7;
        let hv = eval(&h, &[&x0, &[sigma], &[]]);
        let grad_fd = fd_jacobian(
            &|x: &[f64]| eval(&g, &[x]).iter().map(|v| v * sigma).collect(),
            &x0,
        );
        // Lower triangle of the FD Hessian.
        let lower: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| if j <= i { grad_fd[i][j] } else { 0.0 })
                    .collect()
            })
            .collect();
        assert_sparse_matches_dense(&hp, &hv, &lower, 1e-5);
    }
}

#[test]
fn planar_chain_end_point_jacobian() {
    let q = Sx::sym_vec("q", 7);
    let e = chain_end(&q);
    let f = Function::new("chain", &[&q], &[&e]).unwrap();
    let (p, jf) = jacobian(&f).unwrap();
    assert_eq!((p.nrows(), p.ncols(), p.nnz()), (2, 7, 14));
    for seed in 10..15 {
        let q0 = points(7, seed);
        let jv = eval(&jf, &[&q0]);
        let fd = fd_jacobian(&|q: &[f64]| chain_end(q).to_vec(), &q0);
        assert_sparse_matches_dense(&p, &jv, &fd, 1e-6);
    }
}

#[test]
fn banded_jacobian_and_hessian_patterns_are_exact() {
    let n = 12;
    let x = Sx::sym_vec("x", n);
    let r = banded(&x);
    let f = Function::new("banded", &[&x], &[&r]).unwrap();
    let (p, jf) = jacobian(&f).unwrap();
    assert_eq!(p.nnz(), 3 * n - 2, "tridiagonal Jacobian");
    for (i, j) in p.entries() {
        assert!(i.abs_diff(j) <= 1);
    }
    let x0 = points(n, 3);
    let fd = fd_jacobian(&|x: &[f64]| banded(x), &x0);
    assert_sparse_matches_dense(&p, &eval(&jf, &[&x0]), &fd, 1e-6);

    // Lagrangian Hessian: diagonal from x_i^2, exp, sin; sub-diagonal from x_{i-1} x_i.
    let zero = Function::new("zero", &[&x], &[&[Sx::zero()]]).unwrap();
    let (hp, hf) = hessian_of_lagrangian(&zero, &f).unwrap();
    assert_eq!(hp.nnz(), 2 * n - 1);
    let lam = points(n, 4);
    let hv = eval(&hf, &[&x0, &[1.0], &lam]);
    let lag_grad = |x: &[f64]| -> Vec<f64> {
        // ∇(λᵀ r) = Jᵀλ from the Jacobian verified above against finite differences.
        let jv = eval(&jf, &[x]);
        let mut g = vec![0.0; n];
        for (k, (i, j)) in p.entries().enumerate() {
            g[j] += jv[k] * lam[i];
        }
        g
    };
    let h_fd = fd_jacobian(&lag_grad, &x0);
    let lower: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| if j <= i { h_fd[i][j] } else { 0.0 })
                .collect()
        })
        .collect();
    assert_sparse_matches_dense(&hp, &hv, &lower, 1e-4);
}

#[test]
fn linear_constraints_add_nothing_and_separable_is_diagonal() {
    let x = Sx::sym_vec("x", 5);
    let p = Sx::sym_vec("p", 1);
    // Separable objective, linear constraints (with a parameter).
    let f: Sx = x.iter().enumerate().fold(Sx::zero(), |acc, (i, &xi)| {
        acc + (xi * (i as f64 + 1.0)).exp()
    });
    let g = vec![
        x[0] + x[1] * 2.0 - p[0],
        x[2] - x[3] * x[4] * 0.0 + x[4] * 3.0,
    ];
    let ff = Function::new("f", &[&x, &p], &[&[f]]).unwrap();
    let gf = Function::new("g", &[&x, &p], &[&g]).unwrap();
    let (hp, hf) = hessian_of_lagrangian(&ff, &gf).unwrap();
    assert_eq!(hp.nnz(), 5);
    assert!(
        hp.entries().all(|(i, j)| i == j),
        "separable gives a diagonal"
    );
    let x0 = [0.1, -0.2, 0.3, 0.0, 0.5];
    let mut out = vec![0.0; 5];
    hf.eval(
        &[&x0, &[2.0], &[3.0, -1.0], &[0.4]],
        &mut [&mut out],
        &mut hf.workspace(),
    )
    .unwrap();
    for i in 0..5 {
        let c = i as f64 + 1.0;
        assert!((out[i] - 2.0 * c * c * (c * x0[i]).exp()).abs() < 1e-12);
    }
    let (jp, _) = jacobian_of(&gf, 0, 0).unwrap();
    assert_eq!(jp.nnz(), 4, "x[3]*x[4]*0 vanishes structurally");
}

#[test]
fn mapped_evaluation_gathers_and_scatters() {
    // r_k = x_{k+1} - x_k - h * x_k^2 over 10 instances, h a parameter.
    let (a, b, h) = (Sx::sym("a"), Sx::sym("b"), Sx::sym("h"));
    let f = Function::new("step", &[&[a, b], &[h]], &[&[b - a - h * a.sq()]]).unwrap();
    let n = 10;
    let instances: Vec<(Vec<Gather>, Vec<Option<usize>>)> = (0..n)
        .map(|k| {
            (
                vec![Gather::new(0, k), Gather::new(0, k + 1), Gather::new(1, 0)],
                vec![Some(k)],
            )
        })
        .collect();
    let m = MappedFunction::new(f, &[n + 1, 1], n, &instances).unwrap();
    let x: Vec<f64> = (0..=n).map(|i| (i as f64).sqrt()).collect();
    let mut r = vec![0.0; n];
    let mut ws = m.workspace();
    m.eval(&[&x, &[0.1]], &mut r, Scatter::Assign, &mut ws)
        .unwrap();
    for k in 0..n {
        assert!((r[k] - (x[k + 1] - x[k] - 0.1 * x[k] * x[k])).abs() < 1e-15);
    }
    // Bad index maps are rejected when the map is built.
    let bad = vec![(
        vec![Gather::new(0, 99), Gather::new(0, 0), Gather::new(1, 0)],
        vec![Some(0)],
    )];
    let f2 = Function::new("step", &[&[a, b], &[h]], &[&[b - a]]).unwrap();
    assert!(MappedFunction::new(f2, &[n + 1, 1], n, &bad).is_err());
}

#[test]
fn bad_arguments_give_typed_errors() {
    let x = Sx::sym_vec("x", 3);
    let f = Function::new("f", &[&x], &[&[x[0] * x[1] + x[2]]]).unwrap();
    let mut out = [0.0];
    let err = f
        .eval(&[&[1.0, 2.0]], &mut [&mut out], &mut f.workspace())
        .unwrap_err();
    assert!(err.to_string().contains("length of input 0"), "{err}");
    let err = f.eval(
        &[&[1.0, 2.0, 3.0], &[1.0]],
        &mut [&mut out],
        &mut f.workspace(),
    );
    assert!(err.is_err());
    let mut small = [0.0; 0];
    assert!(f
        .eval(&[&[1.0, 2.0, 3.0]], &mut [&mut small], &mut f.workspace())
        .is_err());
    // Non-symbol input, duplicated symbol, free symbol.
    assert!(Function::new("g", &[&[x[0] + 1.0]], &[&[x[0]]]).is_err());
    assert!(Function::new("g", &[&[x[0], x[0]]], &[&[x[0]]]).is_err());
    let err = Function::new("g", &[&[x[0]]], &[&[x[0] * x[1]]]).unwrap_err();
    assert!(err.to_string().contains("x_1"), "{err}");
}

#[test]
fn call_sx_composes_and_register_reuse_is_effective() {
    // A long chain reuses a handful of registers.
    let x = Sx::sym("x");
    let mut y = x;
    for i in 0..1000 {
        y = (y * 0.999 + (i as f64) * 1e-3).sin();
    }
    let f = Function::new("chain", &[&[x]], &[&[y]]).unwrap();
    assert!(f.n_registers() <= 3, "registers: {}", f.n_registers());
    let mut direct = 0.3f64;
    for i in 0..1000 {
        direct = (direct * 0.999 + (i as f64) * 1e-3).sin();
    }
    assert!((eval(&f, &[&[0.3]])[0] - direct).abs() < 1e-14);
    // Composition through call_sx.
    let z = Sx::sym("z");
    let composed = f.call_sx(&[&[z * 2.0]]).unwrap();
    let g = Function::new("g", &[&[z]], &[&composed[0]]).unwrap();
    assert!((eval(&g, &[&[0.15]])[0] - direct).abs() < 1e-14);
}

/// The Gauss–Newton Hessian: `σ ∇²f` alone, whatever λ is, against central differences of
/// the gradient of `f`; and the exact Hessian with λ = 0 is the same matrix.
#[test]
fn hessian_of_objective_drops_the_constraint_curvature() {
    let x = Sx::sym_vec("x", 3);
    let p = Sx::sym_vec("p", 1);
    let f = (x[0] - p[0]).sq() + x[0] * x[1] * 2.0 + x[2].sin() * x[1];
    let g = vec![x[0].sq() * x[2], (x[1] * x[2]).exp()];
    let ff = Function::new("f", &[&x, &p], &[&[f]]).unwrap();
    let gf = Function::new("g", &[&x, &p], &[&g]).unwrap();
    let (gp, gn) = hessian_of_objective(&ff, &gf).unwrap();
    let (ep, exact) = hessian_of_lagrangian(&ff, &gf).unwrap();
    let x0 = [0.3, -0.7, 1.1];
    let (sigma, par) = (1.5, [0.2]);
    let eval = |h: &Function, n: usize, lam: [f64; 2]| {
        let mut out = vec![0.0; n];
        h.eval(
            &[&x0, &[sigma], &lam, &par],
            &mut [&mut out],
            &mut h.workspace(),
        )
        .unwrap();
        out
    };
    let a = eval(&gn, gp.nnz(), [5.0, -3.0]);
    let b = eval(&gn, gp.nnz(), [0.0, 0.0]);
    assert_eq!(a, b, "λ must not enter the Gauss–Newton Hessian");
    // Central differences of σ ∇f.
    let grad = gradient(&ff, 0).unwrap();
    let gradient_at = |x: &[f64]| {
        let mut out = vec![0.0; 3];
        grad.eval(&[x, &par], &mut [&mut out], &mut grad.workspace())
            .unwrap();
        out
    };
    let eps = 1e-6;
    let e = eval(&exact, ep.nnz(), [0.0, 0.0]);
    for (k, (i, j)) in gp.entries().enumerate() {
        let (mut xp, mut xm) = (x0, x0);
        xp[j] += eps;
        xm[j] -= eps;
        let fd = sigma * (gradient_at(&xp)[i] - gradient_at(&xm)[i]) / (2.0 * eps);
        assert!((a[k] - fd).abs() < 1e-7, "({i},{j}): {} vs {fd}", a[k]);
        let ke = ep.entries().position(|ij| ij == (i, j)).unwrap();
        assert!((e[ke] - a[k]).abs() < 1e-14);
    }
    // The constraints' curvature adds the (x1, x1) and (x2, x0) entries to the exact
    // pattern; the objective's has only f's (x0, x0), (x1, x0), (x2, x1), (x2, x2).
    assert!(gp.nnz() < ep.nnz(), "{} vs {}", gp.nnz(), ep.nnz());
}

//! Benchmarks of `src/ad` (report ratios, not absolute times):
//! * tape evaluation vs the same generic code instantiated with f64 (target ≤ 2.5×), each tape
//!   both as native code (`*_native`, `src/ad/native`) and interpreted (`*_interpreter`);
//! * reverse gradient vs function evaluation (target ≤ 5×, the cheap-gradient bound);
//! * Hessian of the Lagrangian of a 7-link chain's kinetic energy vs function evaluation;
//! * compile time of a function with 10⁵ nodes (target ≤ 1 s) and arena memory per node.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use fesdj_mpc::ad::{
    arena_len_bytes_estimate, gradient, hessian_of_lagrangian, Backend, Function, Scalar, Sx,
};
use std::hint::black_box;

/// Kinetic energy of a planar 7-link chain with point masses at the link ends.
fn chain_kinetic_energy<S: Scalar>(q: &[S], v: &[S]) -> S {
    let (mut th, mut thd) = (S::zero(), S::zero());
    let (mut vx, mut vy) = (S::zero(), S::zero());
    let mut t = S::zero();
    for i in 0..q.len() {
        th += q[i];
        thd += v[i];
        let l = 1.0 + 0.1 * i as f64;
        let m = 1.0 + 0.2 * i as f64;
        vx += -(th.sin() * thd) * l;
        vy += th.cos() * thd * l;
        t += (vx.sq() + vy.sq()) * (0.5 * m);
    }
    t
}

fn inputs() -> (Vec<f64>, Vec<f64>) {
    let q: Vec<f64> = (0..7).map(|i| 0.1 + 0.2 * i as f64).collect();
    let v: Vec<f64> = (0..7).map(|i| -0.3 + 0.15 * i as f64).collect();
    (q, v)
}

fn bench_eval(c: &mut Criterion) {
    let q = Sx::sym_vec("q", 7);
    let v = Sx::sym_vec("v", 7);
    let t = chain_kinetic_energy(&q, &v);
    let f = Function::new("T", &[&q, &v], &[&[t]]).unwrap();
    let x: Vec<Sx> = q.iter().chain(&v).copied().collect();
    let fx = Function::new("T", &[&x], &[&[t]]).unwrap();
    let g = gradient(&fx, 0).unwrap();
    let none = Function::new("none", &[&x], &[&[]]).unwrap();
    let (hp, h) = hessian_of_lagrangian(&fx, &none).unwrap();
    eprintln!(
        "chain KE: tape {} instructions, gradient {} , hessian {} ({} nnz lower)",
        f.n_instructions(),
        g.n_instructions(),
        h.n_instructions(),
        hp.nnz()
    );
    let (qv, vv) = inputs();
    let xv: Vec<f64> = qv.iter().chain(&vv).copied().collect();
    let mut group = c.benchmark_group("ad_chain7_kinetic_energy");
    group.bench_function("generic_f64", |b| {
        b.iter(|| chain_kinetic_energy(black_box(&qv), black_box(&vv)))
    });
    for backend in [Backend::Native, Backend::Interpreter] {
        let tag = match backend {
            Backend::Interpreter => "interpreter",
            _ => "native",
        };
        let (f, g, h) = (
            f.clone().with_backend(backend),
            g.clone().with_backend(backend),
            h.clone().with_backend(backend),
        );
        for t in [&f, &g, &h] {
            let _ = t.prepare_native();
        }
        let mut ws = f.workspace();
        let mut out = [0.0];
        group.bench_function(format!("tape_eval_{tag}"), |b| {
            b.iter(|| {
                f.eval(&[black_box(&qv), black_box(&vv)], &mut [&mut out], &mut ws)
                    .unwrap();
                out[0]
            })
        });
        let mut wg = g.workspace();
        let mut gout = vec![0.0; 14];
        group.bench_function(format!("tape_gradient_{tag}"), |b| {
            b.iter(|| {
                g.eval(&[black_box(&xv)], &mut [&mut gout], &mut wg)
                    .unwrap();
                gout[0]
            })
        });
        let mut wh = h.workspace();
        let mut hout = vec![0.0; hp.nnz()];
        group.bench_function(format!("tape_hessian_of_lagrangian_{tag}"), |b| {
            b.iter(|| {
                h.eval(&[black_box(&xv), &[1.0], &[]], &mut [&mut hout], &mut wh)
                    .unwrap();
                hout[0]
            })
        });
    }
    group.finish();
}

/// A function with about `n` nodes: a mixing recurrence over 100 symbols.
fn big_graph(n: usize) -> (Vec<Sx>, Vec<Sx>) {
    let x = Sx::sym_vec("x", 100);
    let mut acc: Vec<Sx> = x.clone();
    let mut count = 0;
    let mut k = 0usize;
    while count < n {
        let i = k % 100;
        let j = (k * 7 + 3) % 100;
        acc[i] = (acc[i] * acc[j] + (k as f64) * 1e-5).sin();
        count += 3;
        k += 1;
    }
    (x, acc)
}

fn bench_compile(c: &mut Criterion) {
    let mut group = c.benchmark_group("ad_compile");
    group.sample_size(10);
    group.bench_function("compile_1e5_nodes", |b| {
        b.iter_batched(
            || big_graph(100_000),
            |(x, y)| Function::new("big", &[&x], &[&y]).unwrap(),
            BatchSize::PerIteration,
        )
    });
    group.finish();
    let before = fesdj_mpc::ad::sx::arena_len();
    let (x, y) = big_graph(100_000);
    let after = fesdj_mpc::ad::sx::arena_len();
    let f = Function::new("big", &[&x], &[&y]).unwrap();
    eprintln!(
        "1e5-node graph: {} arena nodes, ~{} bytes/node in the arena, tape {} instructions, {} registers",
        after - before,
        arena_len_bytes_estimate() / after.max(1),
        f.n_instructions(),
        f.n_registers()
    );
}

criterion_group!(benches, bench_eval, bench_compile);
criterion_main!(benches);

//! Instruction-count companion of `benches/ad.rs`: `cargo run --release --example ad_ratio --
//! VARIANT N` evaluates one variant N times so that `valgrind --tool=callgrind` can compare
//! variants deterministically (subtract the N = 0 run of the same variant for set-up costs).
//! Variants: `generic` (the chain kinetic energy in plain f64 code), `tape`, `gradient`,
//! `hessian` (compiled tapes of the same function).

use fesdj_mpc::ad::{gradient, hessian_of_lagrangian, Function, Scalar, Sx};
use std::hint::black_box;

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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let variant = args.get(1).map(String::as_str).unwrap_or("tape");
    let n: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(1000);
    let q = Sx::sym_vec("q", 7);
    let v = Sx::sym_vec("v", 7);
    let x: Vec<Sx> = q.iter().chain(&v).copied().collect();
    let t = chain_kinetic_energy(&q, &v);
    let f = Function::new("T", &[&x], &[&[t]])?;
    let g = gradient(&f, 0)?;
    let none = Function::new("none", &[&x], &[&[]])?;
    let (hp, h) = hessian_of_lagrangian(&f, &none)?;
    let xv: Vec<f64> = (0..14).map(|i| 0.1 + 0.05 * i as f64).collect();
    let mut acc = 0.0;
    match variant {
        "generic" => {
            for _ in 0..n {
                acc += chain_kinetic_energy(black_box(&xv[..7]), black_box(&xv[7..]));
            }
        }
        "tape" => {
            let mut ws = f.workspace();
            let mut out = [0.0];
            for _ in 0..n {
                f.eval(&[black_box(&xv)], &mut [&mut out], &mut ws)?;
                acc += out[0];
            }
        }
        "gradient" => {
            let mut ws = g.workspace();
            let mut out = vec![0.0; 14];
            for _ in 0..n {
                g.eval(&[black_box(&xv)], &mut [&mut out], &mut ws)?;
                acc += out[0];
            }
        }
        "hessian" => {
            let mut ws = h.workspace();
            let mut out = vec![0.0; hp.nnz()];
            for _ in 0..n {
                h.eval(&[black_box(&xv), &[1.0], &[]], &mut [&mut out], &mut ws)?;
                acc += out[0];
            }
        }
        other => return Err(format!("unknown variant `{other}`").into()),
    }
    println!("{acc}");
    Ok(())
}

//! Native code against the tape interpreter on every compiled function of a problem file's
//! transcription — a measurement harness, not a test:
//! `cargo run --release --example native_tapes -- [CONFIG] [REPS] [KEY=VALUE …]`
//! (default `config/quadruped_mpc.yaml`, 200 repetitions; `KEY=VALUE` as `fesdj --set`).
//!
//! Builds the NLP and complementarity functions the solver uses (the config's Hessian
//! approximation), then for each function prints its size, the Cranelift compile time of its
//! native code (cold: the first compile in the process is included in the first row), the
//! per-evaluation time of native code and of the interpreter (median of REPS, interleaved),
//! and whether both give bit-identical outputs at the start point.

use fesdj_mpc::ad::{Backend, Function};
use fesdj_mpc::app::solve_options;
use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::transcribe;
use std::path::PathBuf;
use std::time::Instant;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/quadruped_mpc.yaml")
    });
    let reps: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(200);
    let overrides: Vec<String> = args.iter().skip(3).cloned().collect();
    let problem = Problem::load(&path, &overrides)?;
    let setup = problem.ocp()?;
    let t0 = Instant::now();
    let mpcc = transcribe(&setup.ocp, &setup.options)?;
    let (nlp, comp) = mpcc.nlp_with(solve_options(&problem).solver.hessian)?;
    println!(
        "{}: n_w = {}, build (transcription + tapes) {:.2} s",
        path.display(),
        mpcc.n_w(),
        t0.elapsed().as_secs_f64()
    );
    let mut p = mpcc.p0.clone();
    setup.write_references(&mpcc.layout, &mut p);
    let x = mpcc.start_point();
    let mut fns: Vec<(&str, &Function)> = nlp.functions().to_vec();
    fns.extend(comp.functions());

    println!(
        "| function | instructions | registers | chunks | code (KiB) | compile (ms) | native (µs) | interpreter (µs) | interp / native | identical |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let (mut total_compile, mut total_native, mut total_interp) = (0.0, 0.0, 0.0);
    for (role, f) in fns {
        // Inputs: the start point for `w`, the parameters for `p`, a fixed pattern otherwise.
        let inputs: Vec<Vec<f64>> = f
            .input_sizes()
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                if i == 0 && n == x.len() {
                    x.clone()
                } else if n == p.len() && i + 1 == f.n_in() {
                    p.clone()
                } else {
                    (0..n)
                        .map(|k| 0.5 + 0.25 * ((k * 7919) % 13) as f64)
                        .collect()
                }
            })
            .collect();
        let ins: Vec<&[f64]> = inputs.iter().map(|v| v.as_slice()).collect();
        let mut out_n: Vec<Vec<f64>> = f.output_sizes().iter().map(|&n| vec![0.0; n]).collect();
        let mut out_i = out_n.clone();
        let mut ws = f.workspace();
        // Native code whatever the tape's length (`Backend::Auto` interprets long tapes).
        let f = &f.clone().with_backend(Backend::Native);
        let info = f.prepare_native()?;
        let (chunks, kib, compile_ms) = info.map_or((0, 0.0, 0.0), |i| {
            (i.chunks, i.code_bytes as f64 / 1024.0, i.compile_s * 1e3)
        });
        let (mut tn, mut ti) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
        for _ in 0..reps {
            let mut o: Vec<&mut [f64]> = out_n.iter_mut().map(|v| v.as_mut_slice()).collect();
            let t = Instant::now();
            f.eval(&ins, &mut o, &mut ws)?;
            tn.push(t.elapsed().as_secs_f64() * 1e6);
            let mut o: Vec<&mut [f64]> = out_i.iter_mut().map(|v| v.as_mut_slice()).collect();
            let t = Instant::now();
            f.eval_interpreted(&ins, &mut o, &mut ws)?;
            ti.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let same = out_n
            .iter()
            .flatten()
            .zip(out_i.iter().flatten())
            .all(|(a, b)| a.to_bits() == b.to_bits());
        let (mn, mi) = (median(&mut tn), median(&mut ti));
        total_compile += compile_ms;
        total_native += mn;
        total_interp += mi;
        println!(
            "| {role} | {} | {} | {chunks} | {kib:.0} | {compile_ms:.1} | {mn:.2} | {mi:.2} | {:.2} | {} |",
            f.n_instructions(),
            f.n_registers(),
            mi / mn,
            if same { "yes" } else { "NO" }
        );
    }
    println!(
        "| all | | | | | {total_compile:.1} | {total_native:.2} | {total_interp:.2} | {:.2} | |",
        total_interp / total_native
    );
    Ok(())
}

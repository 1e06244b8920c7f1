//! Ours against Pinocchio C++ in the same run (issue 26) — a measurement harness, not a test:
//! `cargo run --release --example pinocchio_anchor -- [REPS] [BATCHES]`
//! (default 2000 calls per batch, 11 batches; µs per call = the median over the batches).
//!
//! Builds `tools/pinocchio_cpp_bench.cpp` with `tools/build_pinocchio_cpp_bench.sh` (PyPI `pin`'s
//! headers and libraries), then for solo12 (fixed base and free-flyer; the URDF of
//! `target/reference`, written by `tools/pinocchio_reference.py`) and our quadruped (free-flyer,
//! `urdf/quadruped.urdf`) writes one state, runs the C++ program on it and times ours at the
//! same state with the same batches. Prints a Markdown table (robot, algorithm, ours µs,
//! Pinocchio C++ µs, ratio) and the agreement of the values: rnea τ, crba M, aba q̈ and the
//! derivative matrices (ours: Jacobian tapes of the symbolic rnea/aba, those w.r.t. q times the
//! tangent map of `integrate`). Exit status 1 if a value differs by more than 1e-9 relative.
//!
//! Ours has no analytic RNEA/ABA derivatives: what the MPC uses are the Jacobian tapes of the
//! symbolic dynamics (`fesdj_mpc::ad::jacobian_of`), timed here with native code (Cranelift JIT)
//! and with the tape interpreter, against Pinocchio's analytic `computeRNEADerivatives` and
//! `computeABADerivatives`. Our tapes give ∂/∂q w.r.t. the configuration coordinates (nv × nq);
//! the tangent-space product is not timed.
#![allow(clippy::needless_range_loop)]

#[path = "../tests/support/pinocchio_cpp.rs"]
mod pinocchio_cpp;
#[path = "../tests/support/reference.rs"]
mod reference;

use fesdj_mpc::ad::Backend;
use fesdj_mpc::model::{aba, crba, rnea, Data, Model, ModelOptions, RootJoint};
use pinocchio_cpp::{
    build_program, compare, our_values, run_program, sample_state, write_state, Build, OurTapes,
    Tape,
};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// Agreement required of every value (relative, `|Δ| / max(1, |pinocchio|)`).
const TOL: f64 = 1e-9;

/// Median over `batches` batches of `reps` calls, µs per call (after one warm-up batch).
fn median_us(reps: usize, batches: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..reps {
        f();
    }
    let mut per_call: Vec<f64> = (0..batches)
        .map(|_| {
            let t0 = Instant::now();
            for _ in 0..reps {
                f();
            }
            t0.elapsed().as_secs_f64() * 1e6 / reps as f64
        })
        .collect();
    per_call.sort_by(f64::total_cmp);
    let m = per_call.len() / 2;
    if per_call.len() % 2 == 1 {
        per_call[m]
    } else {
        0.5 * (per_call[m - 1] + per_call[m])
    }
}

struct Row {
    robot: String,
    algorithm: &'static str,
    ours_what: String,
    ours_us: f64,
    pin_what: &'static str,
    pin_us: f64,
}

/// Time evaluating `tapes` one after the other at `inputs`.
fn time_tapes(tapes: &[Tape], inputs: &[&[f64]], reps: usize, batches: usize) -> f64 {
    let mut outs: Vec<Vec<f64>> = tapes.iter().map(|t| vec![0.0; t.pattern.nnz()]).collect();
    let mut ws: Vec<_> = tapes.iter().map(|t| t.f.workspace()).collect();
    median_us(reps, batches, || {
        for ((t, o), w) in tapes.iter().zip(&mut outs).zip(&mut ws) {
            let _ = t.f.eval(black_box(inputs), &mut [o.as_mut_slice()], w);
        }
        black_box(&outs);
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let reps: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(2000);
    let batches: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(11);
    if reps == 0 || batches == 0 {
        return Err("REPS and BATCHES must be positive".into());
    }
    eprintln!("building the Pinocchio C++ program (tools/build_pinocchio_cpp_bench.sh) ...");
    let (program, flags) = match build_program()? {
        Build::Ready { program, flags } => (program, flags),
        Build::HeadersAbsent(msg) => {
            return Err(format!("{msg}\n(pip install -r tools/requirements.txt)").into());
        }
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let cases = [
        ("solo12 fixed", reference::urdf("solo12"), RootJoint::Fixed),
        (
            "solo12 free-flyer",
            reference::urdf("solo12"),
            RootJoint::Floating,
        ),
        (
            "quadruped free-flyer",
            root.join("urdf").join("quadruped.urdf"),
            RootJoint::Floating,
        ),
    ];
    let tmp = std::env::temp_dir().join(format!("fesdj_pinocchio_anchor_{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let mut rows = Vec::new();
    let mut agreement = String::new();
    let mut worst: f64 = 0.0;
    let mut version = String::new();
    for (label, urdf, root_joint) in cases {
        let model = Model::from_urdf_file(
            &urdf,
            &ModelOptions {
                root: root_joint,
                ..Default::default()
            },
        )
        .map_err(|e| format!("{}: {e}", urdf.display()))?;
        let state = sample_state(&model);
        let state_file = tmp.join("state.txt");
        let order = write_state(&model, &state, &state_file)?;
        eprintln!(
            "{label} (nq {}, nv {}): Pinocchio C++ ...",
            model.nq, model.nv
        );
        let pin = run_program(
            &program,
            &urdf,
            root_joint == RootJoint::Floating,
            &state_file,
            &order,
            reps,
            batches,
        )?;
        version = pin.version.clone();
        eprintln!("{label}: building our tapes ...");
        let t0 = Instant::now();
        let tapes = OurTapes::new(&model);
        let build_s = t0.elapsed().as_secs_f64();

        // Values.
        let ours = our_values(&model, &tapes, &state);
        for d in compare(&ours, &pin.values) {
            worst = worst.max(d.check);
            agreement += &format!(
                "| {label} | {} | {:.1e} | {:.1e} | {:.2e} |\n",
                d.quantity, d.scale, d.max_abs, d.check
            );
        }

        // Timings: ours.
        eprintln!("{label}: timing ours ...");
        let mut data = Data::<f64>::new(&model);
        let (q, v, a, tau) = (&state.q, &state.v, &state.a, &state.tau);
        let t_rnea = median_us(reps, batches, || {
            let r = rnea(&model, &mut data, black_box(q), black_box(v), black_box(a));
            black_box(r.map(|t| t[0]).ok());
        });
        let t_crba = median_us(reps, batches, || {
            black_box(crba(&model, &mut data, black_box(q)).map(|m| m[0]).ok());
        });
        let t_aba = median_us(reps, batches, || {
            let r = aba(
                &model,
                &mut data,
                black_box(q),
                black_box(v),
                black_box(tau),
            );
            black_box(r.map(|t| t[0]).ok());
        });
        let rnea_in: [&[f64]; 3] = [q, v, a];
        let aba_in: [&[f64]; 3] = [q, v, tau];
        let p = |k: &str| pin.timing_us.get(k).copied().unwrap_or(f64::NAN);
        let robot = format!("{label} (nv {})", model.nv);
        let row = |algorithm: &'static str,
                   ours_what: String,
                   ours_us: f64,
                   pin_what: &'static str,
                   pin_us: f64| Row {
            robot: robot.clone(),
            algorithm,
            ours_what,
            ours_us,
            pin_what,
            pin_us,
        };
        rows.push(row(
            "rnea",
            "`rnea` (f64)".into(),
            t_rnea,
            "`rnea`",
            p("rnea"),
        ));
        rows.push(row(
            "crba",
            "`crba` (f64)".into(),
            t_crba,
            "`crba` (LOCAL, default)",
            p("crba"),
        ));
        rows.push(row(
            "crba",
            "`crba` (f64)".into(),
            t_crba,
            "`crba` (WORLD)",
            p("crba_world"),
        ));
        rows.push(row(
            "aba",
            "`aba` (f64)".into(),
            t_aba,
            "`aba` (LOCAL, default)",
            p("aba"),
        ));
        rows.push(row(
            "aba",
            "`aba` (f64)".into(),
            t_aba,
            "`aba` (WORLD)",
            p("aba_world"),
        ));
        for backend in [Backend::Native, Backend::Interpreter] {
            let name = match backend {
                Backend::Interpreter => "interpreter",
                _ => "native",
            };
            let prep = |t: &Tape| t.with_backend(backend);
            let drnea = [prep(&tapes.drnea_dq), prep(&tapes.drnea_dv)];
            let daba = [
                prep(&tapes.daba_dq),
                prep(&tapes.daba_dv),
                prep(&tapes.daba_dtau),
            ];
            let ok = drnea.iter().chain(&daba).all(|(_, ok)| *ok);
            let note = if ok {
                ""
            } else {
                " (native code failed: interpreter)"
            };
            let drnea: Vec<Tape> = drnea.into_iter().map(|(t, _)| t).collect();
            let daba: Vec<Tape> = daba.into_iter().map(|(t, _)| t).collect();
            let instr = |ts: &[Tape]| ts.iter().map(|t| t.f.n_instructions()).sum::<usize>();
            rows.push(row(
                "rnea derivatives",
                format!(
                    "tapes ∂τ/∂q + ∂τ/∂v, {name}{note} ({} instr.)",
                    instr(&drnea)
                ),
                time_tapes(&drnea, &rnea_in, reps, batches),
                "`computeRNEADerivatives`",
                p("computeRNEADerivatives"),
            ));
            rows.push(row(
                "aba derivatives",
                format!(
                    "tapes ∂q̈/∂q + ∂q̈/∂v + ∂q̈/∂τ, {name}{note} ({} instr.)",
                    instr(&daba)
                ),
                time_tapes(&daba, &aba_in, reps, batches),
                "`computeABADerivatives`",
                p("computeABADerivatives"),
            ));
        }
        eprintln!("{label}: our tapes built in {build_s:.2} s");
    }
    let _ = std::fs::remove_dir_all(&tmp);

    println!(
        "Pinocchio {version} C++ against fesdj_mpc, {reps} calls x {batches} batches, median µs \
         per call.\nPinocchio program: {flags}\n"
    );
    println!(
        "| robot | algorithm | ours | ours µs | Pinocchio C++ | Pinocchio µs | ours / Pinocchio |"
    );
    println!("|---|---|---|---:|---|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {:.2} | {} | {:.2} | {:.2}× |",
            r.robot,
            r.algorithm,
            r.ours_what,
            r.ours_us,
            r.pin_what,
            r.pin_us,
            r.ours_us / r.pin_us
        );
    }
    println!(
        "\nAgreement at the same state (derivatives w.r.t. the tangent space, ∂/∂q of ours times \
         ∂(q ⊕ δ)/∂δ): check = max |ours − Pinocchio| / max(1, |Pinocchio|), tolerance {TOL:.0e}\n"
    );
    println!("| robot | quantity | max abs(Pinocchio) | max abs diff | check |");
    println!("|---|---|---:|---:|---:|");
    print!("{agreement}");
    if worst.is_nan() || worst > TOL {
        eprintln!("FAIL: ours and Pinocchio C++ differ by {worst:.2e} (> {TOL:.0e})");
        std::process::exit(1);
    }
    println!("\nOK: worst check {worst:.2e} within {TOL:.0e}");
    Ok(())
}

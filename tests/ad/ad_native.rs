//! Native code (`src/ad/native`) against the tape interpreter: bit-identical outputs on every
//! instruction kind and operation (special values included), on random expression graphs long
//! enough to span many machine-code chunks, and on the hopper's and the quadruped's NLP tapes;
//! the fallback to the interpreter; sharing between clones and threads.
//!
//! If the process runs with `FESDJ_JIT=0`, `Backend::Native` evaluates with the interpreter
//! too and the comparisons hold trivially; the tests then check that no native code exists.

use fesdj_mpc::ad::{
    native, AdError, Backend, Function, NativeError, OpCode, Scalar, Sx, AUTO_MAX_INSTRUCTIONS,
};
use fesdj_mpc::app::solve_options;
use fesdj_mpc::config::Problem;
use fesdj_mpc::fesdj::transcribe;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The operations of one operand (every op code but the leaves `Const`, `Symbol` and the binary
/// ones), in the order of `OpCode::ALL`.
fn unary_ops() -> Vec<OpCode> {
    OpCode::ALL
        .into_iter()
        .filter(|op| !op.is_binary() && !matches!(op, OpCode::Const | OpCode::Symbol))
        .collect()
}

/// The operations of two operands, in the order of `OpCode::ALL`.
fn binary_ops() -> Vec<OpCode> {
    OpCode::ALL
        .into_iter()
        .filter(|op| op.is_binary())
        .collect()
}

/// Values that exercise the special cases of IEEE arithmetic and of libm.
const SPECIAL: [f64; 18] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.0,
    100.0,
    1e-5,
    1e-310,
    -1e-310,
    1e308,
    -1e308,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    std::f64::consts::FRAC_PI_2,
    710.0,
];

/// Native (forced) and interpreted copies of `f`; asserts native code exists unless the
/// environment disables it.
fn pair(f: &Function) -> (Function, Function) {
    let native = f.clone().with_backend(Backend::Native);
    let info = native.prepare_native().expect("native code compiles");
    assert_eq!(info.is_some(), native::native_enabled_by_env());
    (native, f.clone().with_backend(Backend::Interpreter))
}

/// Evaluate both at `inputs` and compare every output bit for bit, except that a NaN only has to
/// be a NaN (IEEE 754 does not say which operand's NaN an operation with two NaN operands
/// returns; x86 returns its first operand's, so the sign and payload of a NaN depend on the
/// operand order each compiler picks for `+` and `·`). Returns the number of finite outputs.
fn assert_same(native: &Function, interp: &Function, inputs: &[&[f64]]) -> usize {
    let mut on: Vec<Vec<f64>> = native
        .output_sizes()
        .iter()
        .map(|&n| vec![0.0; n])
        .collect();
    let mut oi = on.clone();
    let mut ws = native.workspace();
    {
        let mut o: Vec<&mut [f64]> = on.iter_mut().map(|v| v.as_mut_slice()).collect();
        native.eval(inputs, &mut o, &mut ws).unwrap();
    }
    {
        let mut o: Vec<&mut [f64]> = oi.iter_mut().map(|v| v.as_mut_slice()).collect();
        interp.eval(inputs, &mut o, &mut ws).unwrap();
    }
    let mut finite = 0;
    for (k, (a, b)) in on.iter().zip(&oi).enumerate() {
        for (e, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                "`{}` output {k}[{e}]: native {x:e} ({:#x}) vs interpreter {y:e} ({:#x}) at {inputs:?}",
                native.name(),
                x.to_bits(),
                y.to_bits()
            );
            finite += usize::from(x.is_finite());
        }
    }
    finite
}

/// Every operation on register operands, every constant-operand form (`AddC` … `CDiv`, and
/// constants loaded into registers for the other binary operations), fused products, outputs
/// that are inputs or constants.
fn every_op() -> Function {
    let x = Sx::sym_vec("x", 4);
    let c = Sx::constant(1.7);
    let mut y: Vec<Sx> = Vec::new();
    for op in unary_ops() {
        y.push(Sx::apply_unary(op, x[0]));
        y.push(Sx::apply_unary(op, x[1] * x[2]));
    }
    for op in binary_ops() {
        y.push(Sx::apply_binary(op, x[0], x[1]));
        y.push(Sx::apply_binary(op, x[1], x[0]));
        y.push(Sx::apply_binary(op, x[2], c));
        y.push(Sx::apply_binary(op, c, x[3]));
    }
    y.push(x[0] * x[1] + x[2]);
    y.push(x[0] * x[1] - x[3]);
    y.push(x[3] - x[1] * x[2]);
    y.push(Sx::constant(2.5));
    y.push(x[3]);
    Function::new("every_op", &[&x[..2], &x[2..]], &[&y[..20], &y[20..]]).unwrap()
}

#[test]
fn every_operation_is_bit_identical_on_special_values() {
    let f = every_op();
    let (fnat, fint) = pair(&f);
    let n = SPECIAL.len();
    for i in 0..n {
        for j in 0..n {
            let a = [SPECIAL[i], SPECIAL[j]];
            let b = [SPECIAL[(i + j) % n], SPECIAL[(7 * i + 3 * j) % n]];
            assert_same(&fnat, &fint, &[&a, &b]);
        }
    }
}

proptest! {
    #[test]
    fn every_operation_is_bit_identical_at_random_points(
        v in proptest::array::uniform4(-1e3f64..1e3),
        scale in proptest::sample::select(vec![1e-300, 1e-3, 1.0, 1e3, 1e300]),
    ) {
        let f = every_op();
        let (fnat, fint) = pair(&f);
        let a = [v[0] * scale, v[1]];
        let b = [v[2], v[3] / scale];
        assert_same(&fnat, &fint, &[&a, &b]);
    }
}

/// `op` applied to `a` inside its domain (so that most values of a random graph stay finite
/// and the comparison is not mostly between NaNs).
fn unary_in_domain(op: OpCode, a: Sx) -> Sx {
    let arg = match op {
        OpCode::Log | OpCode::Sqrt | OpCode::Inv => a.sq() + 0.1,
        OpCode::Asin | OpCode::Acos => a.tanh() * 0.9,
        OpCode::Exp | OpCode::Sinh | OpCode::Cosh | OpCode::Tan | OpCode::Sq => a.tanh() * 1.2,
        _ => a,
    };
    Sx::apply_unary(op, arg)
}

/// A random expression graph of `n_nodes` operations on `n_in` inputs: every operation,
/// constant operands, and values read far from where they are made (so across chunks).
fn random_graph(seed: u64, n_in: usize, n_nodes: usize) -> (Vec<Sx>, Vec<Sx>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let (unary, binary) = (unary_ops(), binary_ops());
    let x = Sx::sym_vec("x", n_in);
    let mut nodes: Vec<Sx> = x.clone();
    let mut outs = Vec::new();
    for k in 0..n_nodes {
        // Mostly recent operands (a realistic tape), sometimes any earlier one.
        let pick = |rng: &mut StdRng, nodes: &[Sx]| {
            let len = nodes.len();
            if rng.random_bool(0.8) {
                nodes[len - 1 - rng.random_range(0..len.min(8))]
            } else {
                nodes[rng.random_range(0..len)]
            }
        };
        let a = pick(&mut rng, &nodes);
        let b = pick(&mut rng, &nodes);
        let c = Sx::constant(rng.random_range(0.5..3.0));
        let binary = |rng: &mut StdRng| binary[rng.random_range(0..binary.len())];
        let y = match rng.random_range(0..10) {
            0 | 1 => unary_in_domain(unary[rng.random_range(0..unary.len())], a),
            2 => match binary(&mut rng) {
                OpCode::Pow => Sx::apply_binary(OpCode::Pow, c, a.tanh()),
                op => Sx::apply_binary(op, c, a),
            },
            3 => match binary(&mut rng) {
                OpCode::Pow => Sx::apply_binary(OpCode::Pow, a.sq() + 0.1, c),
                op => Sx::apply_binary(op, a, c),
            },
            4 | 5 => (a * b + pick(&mut rng, &nodes)).tanh(),
            6 => a * b - pick(&mut rng, &nodes),
            7 => pick(&mut rng, &nodes) - a * b,
            _ => match binary(&mut rng) {
                OpCode::Div => a / (b.sq() + 0.5),
                OpCode::Pow => Sx::apply_binary(OpCode::Pow, a.sq() + 0.5, b.tanh()),
                op => Sx::apply_binary(op, a, b).tanh(),
            },
        };
        nodes.push(y);
        if k % 37 == 0 || k + 3 >= n_nodes {
            outs.push(y);
        }
    }
    (x, outs)
}

#[test]
fn random_graphs_across_many_chunks_are_bit_identical() {
    for (seed, n_nodes) in [(1, 40), (2, 700), (3, 6000)] {
        let (x, y) = random_graph(seed, 6, n_nodes);
        let f = Function::new("random", &[&x[..3], &x[3..]], &[&y]).unwrap();
        let (fnat, fint) = pair(&f);
        if let Some(info) = fnat.native_info() {
            // The long graph must really span several machine-code functions.
            assert!(n_nodes < 6000 || info.chunks > 4, "{info:?}");
        }
        let mut rng = StdRng::seed_from_u64(seed + 100);
        for trial in 0..20 {
            let v: Vec<f64> = (0..6)
                .map(|i| {
                    if trial % 5 == 4 && i == trial % 6 {
                        SPECIAL[rng.random_range(0..SPECIAL.len())]
                    } else {
                        rng.random_range(-2.0..2.0)
                    }
                })
                .collect();
            let finite = assert_same(&fnat, &fint, &[&v[..3], &v[3..]]);
            if trial % 5 != 4 {
                assert!(4 * finite >= 3 * y.len(), "{finite} of {} finite", y.len());
            }
        }
    }
}

/// Every compiled function of a problem file's transcription, native against interpreted, at
/// the start point and at perturbed points.
fn check_problem(config: &str, overrides: &[String]) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(config);
    let problem = Problem::load(&path, overrides).unwrap();
    let setup = problem.ocp().unwrap();
    let mpcc = transcribe(&setup.ocp, &setup.options).unwrap();
    let (nlp, comp) = mpcc
        .nlp_with(solve_options(&problem).solver.hessian)
        .unwrap();
    let mut p = mpcc.p0.clone();
    setup.write_references(&mpcc.layout, &mut p);
    let x0 = mpcc.start_point();
    let mut fns: Vec<(&str, &Function)> = nlp.functions().to_vec();
    fns.extend(comp.functions());
    let mut rng = StdRng::seed_from_u64(7);
    for (role, f) in fns {
        let (fnat, fint) = pair(f);
        for trial in 0..3 {
            let inputs: Vec<Vec<f64>> = f
                .input_sizes()
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    if i == 0 && n == x0.len() {
                        x0.iter()
                            .map(|&v| v + 0.05 * trial as f64 * rng.random_range(-1.0..1.0))
                            .collect()
                    } else if i + 1 == f.n_in() && n == p.len() {
                        p.clone()
                    } else {
                        (0..n).map(|_| rng.random_range(-2.0..2.0)).collect()
                    }
                })
                .collect();
            let refs: Vec<&[f64]> = inputs.iter().map(|v| v.as_slice()).collect();
            assert!(!role.is_empty());
            assert_same(&fnat, &fint, &refs);
        }
    }
}

#[test]
fn hopper_nlp_tapes_are_bit_identical() {
    check_problem("config/hopper_mpc.yaml", &[]);
}

#[test]
fn quadruped_nlp_tapes_are_bit_identical() {
    // One interval (the tapes of the shipped eight are eight such blocks; its Jacobian alone
    // would take seconds to compile).
    check_problem("config/quadruped_mpc.yaml", &["horizon.N=1".to_string()]);
}

#[test]
fn too_many_arguments_falls_back_to_the_interpreter() {
    let x = Sx::sym_vec("x", 17);
    let args: Vec<&[Sx]> = x.chunks(1).collect();
    let y = x.iter().fold(Sx::constant(0.0), |s, &v| s + v.sin());
    let f = Function::new("many", &args, &[&[y]]).unwrap();
    let vals: Vec<[f64; 1]> = (0..17).map(|i| [0.1 * i as f64]).collect();
    let ins: Vec<&[f64]> = vals.iter().map(|v| v.as_slice()).collect();
    let mut out = [0.0];
    let mut ws = f.workspace();
    if native::native_enabled_by_env() {
        assert!(matches!(
            f.prepare_native(),
            Err(NativeError::TooManyArguments { inputs: 17, .. })
        ));
    }
    assert!(f.native_info().is_none());
    f.eval(&ins, &mut [&mut out], &mut ws).unwrap();
    let mut want = [0.0];
    f.eval_interpreted(&ins, &mut [&mut want], &mut ws).unwrap();
    assert_eq!(out[0].to_bits(), want[0].to_bits());
    let direct: f64 = (0..17).fold(0.0, |s, i| s + (0.1 * i as f64).sin());
    assert_eq!(out[0], direct);
}

#[test]
fn backends_choose_the_evaluator() {
    let f = every_op();
    assert_eq!(f.backend(), Backend::Auto);
    let fi = f.clone().with_backend(Backend::Interpreter);
    assert_eq!(fi.prepare_native(), Ok(None));
    assert!(fi.native_info().is_none());
    // Clones share the code compiled once.
    let fa = f.clone();
    let info = f.prepare_native().unwrap();
    assert_eq!(fa.native_info(), info);
    if let Some(i) = info {
        assert!(i.chunks >= 1 && i.code_bytes > 0 && i.compile_s >= 0.0);
    }
    // Auto leaves tapes longer than the limit to the interpreter; Native compiles them.
    let x = Sx::sym_vec("x", 2);
    let mut acc = x[0];
    for k in 0..AUTO_MAX_INSTRUCTIONS / 2 + 10 {
        acc = acc * x[1] + k as f64;
    }
    let long = Function::new("long", &[&x], &[&[acc]]).unwrap();
    assert!(long.n_instructions() > AUTO_MAX_INSTRUCTIONS);
    assert_eq!(long.prepare_native(), Ok(None));
    let (ln, li) = pair(&long);
    assert_same(&ln, &li, &[&[0.3, 0.999]]);
}

#[test]
fn native_functions_are_shared_across_threads_and_check_arguments() {
    fn send_sync_clone<T: Send + Sync + Clone>(_: &T) {}
    let (x, y) = random_graph(11, 4, 1500);
    let f = Function::new("threads", &[&x], &[&y]).unwrap();
    send_sync_clone(&f);
    let (fnat, fint) = pair(&f);
    let want: Vec<Vec<u64>> = (0..4)
        .map(|t| {
            let v = [0.1 * t as f64, 0.2, -0.3, 0.4];
            let mut o = vec![0.0; fint.size_out(0)];
            fint.eval(&[&v], &mut [&mut o], &mut fint.workspace())
                .unwrap();
            o.iter().map(|z| z.to_bits()).collect()
        })
        .collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let fnat = &fnat;
                s.spawn(move || {
                    let v = [0.1 * t as f64, 0.2, -0.3, 0.4];
                    let mut o = vec![0.0; fnat.size_out(0)];
                    let mut ws = fnat.workspace();
                    for _ in 0..50 {
                        fnat.eval(&[&v], &mut [&mut o], &mut ws).unwrap();
                    }
                    o.iter().map(|z| z.to_bits()).collect::<Vec<u64>>()
                })
            })
            .collect();
        for (t, h) in handles.into_iter().enumerate() {
            let got = h.join().unwrap();
            for (a, b) in got.iter().zip(&want[t]) {
                let (a, b) = (f64::from_bits(*a), f64::from_bits(*b));
                assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
            }
        }
    });
    // Wrong lengths and a short workspace are errors, as for the interpreter.
    let mut o = vec![0.0; fnat.size_out(0)];
    let err = fnat
        .eval(&[&[0.0; 3]], &mut [&mut o], &mut fnat.workspace())
        .unwrap_err();
    assert!(matches!(err, AdError::Dimension { .. }));
    let mut short = fesdj_mpc::ad::Workspace::with_registers(0);
    if fnat.n_registers() > 0 {
        let err = fnat
            .eval(&[&[0.0; 4]], &mut [&mut o], &mut short)
            .unwrap_err();
        assert!(matches!(err, AdError::Dimension { .. }));
    }
}

//! Functions exported from CasADi by `tools/casadi_export.py` import and match CasADi's own
//! values, Jacobians and Hessians (the expected data in `tests/data/casadi/` was computed by
//! CasADi at random points); when `../shared/reference/nosbench/` exists, its problems are
//! exported, imported and compared with CasADi's values and derivatives as well.

use fesdj_mpc::ad::import::{function_from_str, read_function, read_problem, ImportedProblem};
use fesdj_mpc::ad::{hessian_of_lagrangian, jacobian_of, AdError, Function, Sx};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

const TOL: f64 = 1e-12;
/// CasADi's test functions match entry by entry at `TOL` relative.
const PURE: f64 = 0.0;
/// nosbench residuals cancel to about 1e-15 at w0 and differ there in the last bits between
/// evaluation orders: entries below 1e-3 of the vector's largest are compared at
/// `TOL · 1e-3 · max|entry|`.
const CANCEL: f64 = 1e-3;

#[derive(Deserialize)]
struct Expected {
    function: String,
    points: Vec<Point>,
}

#[derive(Deserialize)]
struct Point {
    inputs: Vec<Vec<f64>>,
    outputs: Vec<Vec<f64>>,
    jacobians: Vec<Jacobian>,
    hessian: Hessian,
}

#[derive(Deserialize)]
struct Jacobian {
    output: usize,
    input: usize,
    rows: usize,
    cols: usize,
    triplets: Vec<(usize, usize, f64)>,
}

#[derive(Deserialize)]
struct Hessian {
    output: usize,
    input: usize,
    multipliers: Vec<f64>,
    n: usize,
    lower_triplets: Vec<(usize, usize, f64)>,
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/casadi")
}

/// `a` matches `b` to `TOL` relative, with magnitudes below `floor` counted as `floor`.
fn close(a: f64, b: f64, floor: f64) -> bool {
    a == b || (a - b).abs() <= TOL * a.abs().max(b.abs()).max(floor)
}

/// Entry-wise [`close`] with `floor = floor_rel · max_i |want_i|`.
fn assert_close_slices(got: &[f64], want: &[f64], floor_rel: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let floor = floor_rel * want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (k, (&a, &b)) in got.iter().zip(want).enumerate() {
        assert!(
            close(a, b, floor),
            "{what}[{k}]: got {a:e}, CasADi {b:e} (rel. diff {:e})",
            (a - b).abs() / b.abs().max(floor)
        );
    }
}

fn eval(f: &Function, inputs: &[&[f64]]) -> Vec<Vec<f64>> {
    let mut outs: Vec<Vec<f64>> = (0..f.n_out()).map(|i| vec![0.0; f.size_out(i)]).collect();
    let mut refs: Vec<&mut [f64]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
    let mut ws = f.workspace();
    f.eval(inputs, &mut refs, &mut ws).unwrap();
    outs
}

/// Dense row-major matrix from triplets.
fn dense(
    rows: usize,
    cols: usize,
    triplets: impl IntoIterator<Item = (usize, usize, f64)>,
) -> Vec<f64> {
    let mut m = vec![0.0; rows * cols];
    for (r, c, v) in triplets {
        m[r * cols + c] += v;
    }
    m
}

/// Our (pattern, values) as triplets.
fn our_triplets(
    pattern: &fesdj_mpc::ad::SparsityPattern,
    values: &[f64],
) -> Vec<(usize, usize, f64)> {
    pattern
        .entries()
        .zip(values)
        .map(|((r, c), &v)| (r, c, v))
        .collect()
}

/// A function with the same inputs as `f` and the given outputs (functions of no symbol).
fn constant_function(f: &Function, outputs: &[&[Sx]]) -> Function {
    let syms: Vec<Vec<Sx>> = (0..f.n_in())
        .map(|i| Sx::sym_vec("c", f.size_in(i)))
        .collect();
    let refs: Vec<&[Sx]> = syms.iter().map(|v| v.as_slice()).collect();
    Function::new("constant", &refs, outputs).unwrap()
}

fn check_function(name: &str) {
    let dir = data_dir();
    let f = read_function(dir.join(format!("{name}.json"))).unwrap();
    let text = std::fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap();
    let expected: Expected = serde_json::from_str(&text).unwrap();
    assert_eq!(expected.function, name);
    assert_eq!(f.name(), name);
    assert!(!expected.points.is_empty());

    // Derivative functions, built once.
    let first = &expected.points[0];
    let jacs: Vec<_> = first
        .jacobians
        .iter()
        .map(|j| jacobian_of(&f, j.output, j.input).unwrap())
        .collect();
    let h = &first.hessian;
    assert_eq!((h.output, h.input), (0, 0));
    let (hpat, hfun) = if f.size_out(0) == 1 {
        // ∇²(σ f) with σ = multiplier and no constraints.
        hessian_of_lagrangian(&f, &constant_function(&f, &[&[]])).unwrap()
    } else {
        // ∇²(λᵀ f) with a zero objective.
        let zero = [Sx::constant(0.0)];
        hessian_of_lagrangian(&constant_function(&f, &[&zero]), &f).unwrap()
    };
    assert!(hpat.is_lower_triangular());

    for (k, pt) in expected.points.iter().enumerate() {
        let inputs: Vec<&[f64]> = pt.inputs.iter().map(|v| v.as_slice()).collect();
        let outs = eval(&f, &inputs);
        for (o, (got, want)) in outs.iter().zip(&pt.outputs).enumerate() {
            assert_close_slices(got, want, PURE, &format!("{name} point {k} output {o}"));
        }
        for (j, (pattern, jf)) in first.jacobians.iter().zip(&jacs) {
            let cj = &pt
                .jacobians
                .iter()
                .find(|c| (c.output, c.input) == (j.output, j.input))
                .unwrap();
            assert_eq!((pattern.nrows(), pattern.ncols()), (cj.rows, cj.cols));
            let values = eval(jf, &inputs).remove(0);
            let ours = our_triplets(pattern, &values);
            // Structure: our pattern is CasADi's structural pattern.
            let casadi_entries: Vec<(usize, usize)> =
                cj.triplets.iter().map(|t| (t.0, t.1)).collect();
            let our_entries: Vec<(usize, usize)> = ours.iter().map(|t| (t.0, t.1)).collect();
            assert_eq!(
                our_entries, casadi_entries,
                "{name}: pattern of d output {} / d input {}",
                j.output, j.input
            );
            assert_close_slices(
                &dense(cj.rows, cj.cols, ours),
                &dense(cj.rows, cj.cols, cj.triplets.iter().copied()),
                PURE,
                &format!("{name} point {k} jacobian d{}/d{}", j.output, j.input),
            );
        }
        let hp = &pt.hessian;
        let mut hin: Vec<&[f64]> = vec![inputs[0]];
        let (sigma, lambda): (Vec<f64>, Vec<f64>) = if f.size_out(0) == 1 {
            (hp.multipliers.clone(), Vec::new())
        } else {
            (vec![0.0], hp.multipliers.clone())
        };
        hin.push(&sigma);
        hin.push(&lambda);
        hin.extend(inputs[1..].iter().copied());
        let hv = eval(&hfun, &hin).remove(0);
        let ours = our_triplets(&hpat, &hv);
        let casadi_entries: Vec<(usize, usize)> =
            hp.lower_triplets.iter().map(|t| (t.0, t.1)).collect();
        let our_entries: Vec<(usize, usize)> = ours.iter().map(|t| (t.0, t.1)).collect();
        assert_eq!(our_entries, casadi_entries, "{name}: Hessian pattern");
        assert_close_slices(
            &dense(hp.n, hp.n, ours),
            &dense(hp.n, hp.n, hp.lower_triplets.iter().copied()),
            PURE,
            &format!("{name} point {k} Hessian"),
        );
    }
}

#[test]
fn every_op_matches_casadi() {
    check_function("every_op");
}

#[test]
fn banded_matches_casadi() {
    check_function("banded");
}

#[test]
fn rosenbrock_matches_casadi() {
    check_function("rosenbrock");
}

#[test]
fn matrix_input_matches_casadi() {
    check_function("matrix");
}

// ---------------------------------------------------------------------------------------------
// Bad input on real files
// ---------------------------------------------------------------------------------------------

fn every_op_text() -> String {
    std::fs::read_to_string(data_dir().join("every_op.json")).unwrap()
}

#[test]
fn truncated_file_is_malformed_json() {
    let text = every_op_text();
    let e = function_from_str(&text[..text.len() / 2], "half.json").unwrap_err();
    assert!(
        matches!(&e, AdError::Import { file, why } if file == "half.json" && why.starts_with("malformed JSON")),
        "{e}"
    );
}

#[test]
fn unknown_op_code_is_named() {
    let text = every_op_text();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let k = v["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .position(|i| i[0] == "sin")
        .unwrap();
    let patched = text.replacen("[\"sin\",", "[\"lt\",", 1);
    match function_from_str(&patched, "every_op.json").unwrap_err() {
        AdError::UnsupportedOp {
            file,
            op,
            instruction,
        } => assert_eq!(
            (file.as_str(), op.as_str(), instruction),
            ("every_op.json", "lt", k)
        ),
        other => panic!("expected UnsupportedOp, got {other}"),
    }
}

#[test]
fn wrong_version_is_rejected() {
    let patched = every_op_text().replacen("\"version\":1", "\"version\":2", 1);
    let e = function_from_str(&patched, "v2.json").unwrap_err();
    assert!(
        matches!(&e, AdError::Import { why, .. } if why.contains("unsupported version 2")),
        "{e}"
    );
}

#[test]
fn wrong_input_length_at_eval() {
    let f = read_function(data_dir().join("every_op.json")).unwrap();
    let mut out = [0.0];
    let mut ws = f.workspace();
    let e = f
        .eval(&[&[0.1, 0.2]], &mut [&mut out], &mut ws)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AdError::Dimension {
                expected: 3,
                got: 2,
                ..
            }
        ),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------------
// nosbench problems (only where ../shared/reference/nosbench exists)
// ---------------------------------------------------------------------------------------------

#[derive(Deserialize)]
struct Reference {
    points: Vec<RefPoint>,
}

#[derive(Deserialize)]
struct RefPoint {
    w: Vec<f64>,
    p: Vec<f64>,
    f: Vec<f64>,
    g: Vec<f64>,
    #[serde(rename = "G")]
    comp_g: Vec<f64>,
    #[serde(rename = "H")]
    comp_h: Vec<f64>,
    jac_g: Vec<(usize, usize, f64)>,
    lambda: Vec<f64>,
    hess_lag_lower: Vec<(usize, usize, f64)>,
}

#[derive(Deserialize)]
struct WithReference {
    casadi_reference: Reference,
}

fn nosbench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/nosbench")
}

fn check_problem(p: &ImportedProblem, reference: &Reference, name: &str) {
    let (jpat, jf) = jacobian_of(&p.g, 0, 0).unwrap();
    let (hpat, hf) = hessian_of_lagrangian(&p.f, &p.g).unwrap();
    for (k, pt) in reference.points.iter().enumerate() {
        let args: [&[f64]; 2] = [&pt.w, &pt.p];
        let what = |s: &str| format!("{name} point {k} {s}");
        assert_close_slices(&eval(&p.f, &args)[0], &pt.f, CANCEL, &what("f"));
        assert_close_slices(&eval(&p.g, &args)[0], &pt.g, CANCEL, &what("g"));
        assert_close_slices(&eval(&p.comp_g, &args)[0], &pt.comp_g, CANCEL, &what("G"));
        assert_close_slices(&eval(&p.comp_h, &args)[0], &pt.comp_h, CANCEL, &what("H"));
        let jv = eval(&jf, &args).remove(0);
        let (n_g, n_w) = (p.n_g(), p.n_w());
        assert_close_slices(
            &dense(n_g, n_w, our_triplets(&jpat, &jv)),
            &dense(n_g, n_w, pt.jac_g.iter().copied()),
            CANCEL,
            &what("Jacobian of g"),
        );
        let hv = eval(&hf, &[&pt.w, &[1.0], &pt.lambda, &pt.p]).remove(0);
        assert_close_slices(
            &dense(n_w, n_w, our_triplets(&hpat, &hv)),
            &dense(n_w, n_w, pt.hess_lag_lower.iter().copied()),
            CANCEL,
            &what("Hessian of the Lagrangian"),
        );
    }
}

#[test]
fn nosbench_problems_match_casadi() {
    let dir = nosbench_dir();
    if !dir.is_dir() {
        eprintln!("skipped: {} does not exist", dir.display());
        return;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"augmented_objective_fun\""))
        })
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no nosbench problems in {}",
        dir.display()
    );
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nosbench_import");
    std::fs::create_dir_all(&out_dir).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/casadi_export.py");
    for input in &files {
        let name = input.file_stem().unwrap().to_string_lossy().to_string();
        let output = out_dir.join(format!("{name}.json"));
        let status = Command::new("python3")
            .arg(&script)
            .arg("--with-values")
            .arg(input)
            .arg(&output)
            .status()
            .expect("python3 must be installed (with casadi) to export the nosbench problems");
        assert!(
            status.success(),
            "casadi_export.py failed on {}",
            input.display()
        );
        let p = read_problem(&output).unwrap();
        assert_eq!(p.name, name);
        assert_eq!(p.f.size_out(0), 1);
        assert_eq!(p.comp_g.size_out(0), p.comp_h.size_out(0));
        assert!(p.n_comp() > 0 && p.n_g() > 0);
        assert!(p.lbw.iter().any(|x| x.is_infinite()) || p.ubw.iter().any(|x| x.is_infinite()));
        let text = std::fs::read_to_string(&output).unwrap();
        let reference: WithReference = serde_json::from_str(&text).unwrap();
        assert_eq!(reference.casadi_reference.points[0].w, p.w0);
        assert_eq!(reference.casadi_reference.points[0].p, p.p0);
        check_problem(&p, &reference.casadi_reference, &name);
    }
    eprintln!("{} nosbench problems matched CasADi", files.len());
}

#[test]
fn casadi_if_else_is_rejected_by_name() {
    // Exported from casadi.if_else by the script: lt / if_else_zero / not are not ours.
    match read_function(data_dir().join("unsupported.json")).unwrap_err() {
        AdError::UnsupportedOp {
            file,
            op,
            instruction,
        } => {
            assert!(file.ends_with("unsupported.json"), "{file}");
            assert_eq!((op.as_str(), instruction), ("lt", 2));
        }
        other => panic!("expected UnsupportedOp, got {other}"),
    }
}

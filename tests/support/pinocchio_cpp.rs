//! Ours against Pinocchio C++ at the same state (issue 26), shared by
//! `examples/pinocchio_anchor.rs` (timings) and `tests/model/model_pinocchio_cpp.rs` (values).
//!
//! * [`build_program`]: `tools/build_pinocchio_cpp_bench.sh` builds `tools/pinocchio_cpp_bench.cpp`
//!   against the PyPI `pin` wheel's headers and libraries (exit 3: the headers are absent).
//! * [`sample_state`], [`write_state`], [`run_program`]: one state, written in the program's
//!   state format in our joint and velocity order; the program's values come back in that order.
//! * [`OurTapes`]: our symbolic rnea and aba, their Jacobian tapes (∂τ/∂q, ∂τ/∂v; ∂q̈/∂q,
//!   ∂q̈/∂v, ∂q̈/∂τ) and the tangent map of `integrate` that turns a Jacobian w.r.t. the
//!   configuration coordinates into one w.r.t. the tangent space (Pinocchio's `q ⊕ δ`).
//! * [`our_values`], [`compare`]: our values in Pinocchio's sense and the worst differences.
//!
//! Conventions: ours and Pinocchio's free-flyer agree (position, quaternion `(x, y, z, w)`, local
//! twist `[v; ω]`, base wrench in the base frame); only the joint order may differ, mapped by
//! joint name in the C++ program.
#![allow(dead_code)]

use fesdj_mpc::ad::{jacobian_of, Backend, Function, SparsityPattern, Sx};
use fesdj_mpc::model::{aba, crba, integrate, rnea, Data, Model, RootJoint};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The outcome of `tools/build_pinocchio_cpp_bench.sh`.
pub enum Build {
    /// The program, and the compiler flags it was built with.
    Ready { program: PathBuf, flags: String },
    /// The C++ headers of PyPI `pin` are absent (the script's message).
    HeadersAbsent(String),
}

/// Build (or find up to date) the Pinocchio C++ program. `Err` on any failure other than
/// absent `pin` headers.
pub fn build_program() -> Result<Build, String> {
    let script = manifest_dir()
        .join("tools")
        .join("build_pinocchio_cpp_bench.sh");
    let out = Command::new("bash")
        .arg(&script)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    match out.status.code() {
        Some(0) => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            let program = PathBuf::from(stdout.lines().last().unwrap_or("").trim());
            let flags_file = PathBuf::from(format!("{}.flags", program.display()));
            let flags = std::fs::read_to_string(&flags_file)
                .map(|s| s.trim().to_string())
                .unwrap_or_default();
            Ok(Build::Ready { program, flags })
        }
        Some(3) => Ok(Build::HeadersAbsent(stderr)),
        _ => Err(format!(
            "{} failed ({}):\n{stderr}",
            script.display(),
            out.status
        )),
    }
}

/// A state `q, v, a, tau` (ours: `q` of length `nq`, the rest `nv`).
#[derive(Clone, Debug)]
pub struct State {
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    pub a: Vec<f64>,
    pub tau: Vec<f64>,
}

/// A fixed, generic state (no zero or symmetric entries; a unit quaternion for a free-flyer).
pub fn sample_state(model: &Model) -> State {
    let mut q: Vec<f64> = (0..model.nq)
        .map(|i| 0.4 * (1.3 * i as f64 + 0.2).sin())
        .collect();
    if model.root == RootJoint::Floating {
        let n = q[3..7].iter().map(|x| x * x).sum::<f64>().sqrt();
        q[3..7].iter_mut().for_each(|x| *x /= n);
    }
    let v = (0..model.nv).map(|i| (0.7 * i as f64).cos()).collect();
    let a = (0..model.nv)
        .map(|i| (0.3 * i as f64 + 0.1).sin())
        .collect();
    let tau = (0..model.nv)
        .map(|i| 2.0 * (1.1 * i as f64 + 0.4).cos())
        .collect();
    State { q, v, a, tau }
}

/// Write `state` in the program's state format (every joint with a velocity, by name, in our
/// order; the program returns its values in the order of the velocities written here).
/// Returns that order: `order[k]` is our velocity index of the program's index `k`.
pub fn write_state(model: &Model, state: &State, path: &Path) -> Result<Vec<usize>, String> {
    let joints: Vec<_> = model.joints.iter().filter(|j| j.nv > 0).collect();
    let mut text = format!("fesdj-pinocchio-state 1 {}\n", joints.len());
    let mut order = Vec::new();
    for j in joints {
        if j.name.chars().any(char::is_whitespace) {
            return Err(format!("joint `{}`: a name with whitespace", j.name));
        }
        let _ = write!(text, "{} {} {}", j.name, j.nq, j.nv);
        let q = &state.q[j.idx_q..j.idx_q + j.nq];
        let vs = j.idx_v..j.idx_v + j.nv;
        for x in q
            .iter()
            .chain(&state.v[vs.clone()])
            .chain(&state.a[vs.clone()])
            .chain(&state.tau[vs.clone()])
        {
            let _ = write!(text, " {x:e}");
        }
        text.push('\n');
        order.extend(vs);
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(order)
}

/// Dense `nv × nv` row-major matrix as rows.
pub type Rows = Vec<Vec<f64>>;

/// What the program printed, mapped to our velocity order.
#[derive(Clone, Debug)]
pub struct PinOutput {
    pub version: String,
    /// µs per call: `rnea`, `crba`, `crba_world`, `aba`, `aba_world`,
    /// `computeRNEADerivatives`, `computeABADerivatives`.
    pub timing_us: BTreeMap<String, f64>,
    /// `tau`, `M`, `ddq`, `dtau_dq`, `dtau_dv`, `ddq_dq`, `ddq_dv`, `ddq_dtau`.
    pub values: Values,
}

/// The compared quantities (vectors as one-row matrices).
#[derive(Clone, Debug, Default)]
pub struct Values(pub BTreeMap<&'static str, Rows>);

/// The quantities in the order they are reported.
pub const QUANTITIES: [&str; 8] = [
    "tau", "M", "ddq", "dtau_dq", "dtau_dv", "ddq_dq", "ddq_dv", "ddq_dtau",
];

/// Run the program on `urdf` (`floating` or `fixed` root) at the state in `state_file`.
pub fn run_program(
    program: &Path,
    urdf: &Path,
    floating: bool,
    state_file: &Path,
    order: &[usize],
    reps: usize,
    batches: usize,
) -> Result<PinOutput, String> {
    let out = Command::new(program)
        .arg(urdf)
        .arg(if floating { "floating" } else { "fixed" })
        .arg(state_file)
        .arg(reps.to_string())
        .arg(batches.to_string())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {} failed ({}): {}",
            program.display(),
            urdf.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let ctx = format!("output of {} on {}", program.display(), urdf.display());
    let json: Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("{ctx}: not JSON: {e}"))?;
    let n = order.len();
    // The program's index k is our index order[k].
    let vec_of = |key: &str| -> Result<Vec<f64>, String> {
        let arr = json
            .get(key)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{ctx}: no list `{key}`"))?;
        if arr.len() != n {
            return Err(format!("{ctx}: `{key}` has {} entries, not {n}", arr.len()));
        }
        let mut v = vec![0.0; n];
        for (k, x) in arr.iter().enumerate() {
            v[order[k]] = x
                .as_f64()
                .ok_or_else(|| format!("{ctx}: `{key}` holds a non-number"))?;
        }
        Ok(v)
    };
    let mat_of = |key: &str| -> Result<Rows, String> {
        let rows = json
            .get(key)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{ctx}: no matrix `{key}`"))?;
        if rows.len() != n {
            return Err(format!("{ctx}: `{key}` has {} rows, not {n}", rows.len()));
        }
        let mut m = vec![vec![0.0; n]; n];
        for (r, row) in rows.iter().enumerate() {
            let row = row
                .as_array()
                .filter(|row| row.len() == n)
                .ok_or_else(|| format!("{ctx}: `{key}` row {r} is not {n} numbers"))?;
            for (c, x) in row.iter().enumerate() {
                m[order[r]][order[c]] = x
                    .as_f64()
                    .ok_or_else(|| format!("{ctx}: `{key}` holds a non-number"))?;
            }
        }
        Ok(m)
    };
    let mut values = Values::default();
    for key in QUANTITIES {
        let m = if ["tau", "ddq"].contains(&key) {
            vec![vec_of(key)?]
        } else {
            mat_of(key)?
        };
        values.0.insert(key, m);
    }
    let timing_us = json
        .get("timing_us")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{ctx}: no `timing_us`"))?
        .iter()
        .filter_map(|(k, v)| v.as_f64().map(|x| (k.clone(), x)))
        .collect();
    Ok(PinOutput {
        version: json
            .get("pinocchio_version")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string(),
        timing_us,
        values,
    })
}

/// A compiled Jacobian tape and its pattern.
#[derive(Clone)]
pub struct Tape {
    pub pattern: SparsityPattern,
    pub f: Function,
}

impl Tape {
    fn of(f: &Function, wrt: usize) -> Tape {
        let (pattern, f) = jacobian_of(f, 0, wrt).expect("Jacobian tape");
        Tape { pattern, f }
    }

    /// The same tape with evaluator `backend`, its native code compiled now. `false` in the
    /// second field: native code was asked for and could not be had (the interpreter runs).
    pub fn with_backend(&self, backend: Backend) -> (Tape, bool) {
        let f = self.f.clone().with_backend(backend);
        let native_ok = match backend {
            Backend::Interpreter => true,
            _ => matches!(f.prepare_native(), Ok(Some(_))),
        };
        (
            Tape {
                pattern: self.pattern.clone(),
                f,
            },
            native_ok,
        )
    }

    /// Evaluate into a dense `nrows × ncols` matrix.
    pub fn dense(&self, inputs: &[&[f64]]) -> Rows {
        let mut nz = vec![0.0; self.pattern.nnz()];
        let mut ws = self.f.workspace();
        self.f
            .eval(inputs, &mut [&mut nz], &mut ws)
            .expect("evaluate a Jacobian tape");
        let mut m = vec![vec![0.0; self.pattern.ncols()]; self.pattern.nrows()];
        for ((r, c), x) in self.pattern.entries().zip(nz) {
            m[r][c] = x;
        }
        m
    }
}

/// Our symbolic rnea and aba of one model and their Jacobian tapes.
#[derive(Clone)]
pub struct OurTapes {
    /// `(q, v, a) ↦ τ`.
    pub rnea: Function,
    /// `(q, v, τ) ↦ q̈`.
    pub aba: Function,
    pub drnea_dq: Tape,
    pub drnea_dv: Tape,
    pub daba_dq: Tape,
    pub daba_dv: Tape,
    pub daba_dtau: Tape,
    /// `(q, δ) ↦ ∂(q ⊕ δ)/∂δ` (`nq × nv`), evaluated at `δ = 0`.
    pub tangent: Tape,
}

impl OurTapes {
    pub fn new(model: &Model) -> OurTapes {
        let q = Sx::sym_vec("q", model.nq);
        let v = Sx::sym_vec("v", model.nv);
        let a = Sx::sym_vec("a", model.nv);
        let mut ds = Data::<Sx>::new(model);
        let tau = rnea(model, &mut ds, &q, &v, &a)
            .expect("symbolic rnea")
            .to_vec();
        let ddq = aba(model, &mut ds, &q, &v, &a)
            .expect("symbolic aba")
            .to_vec();
        let rnea_f = Function::new("rnea", &[&q, &v, &a], &[&tau]).expect("rnea tape");
        let aba_f = Function::new("aba", &[&q, &v, &a], &[&ddq]).expect("aba tape");
        let mut qd = vec![Sx::constant(0.0); model.nq];
        integrate(model, &q, &v, &mut qd).expect("symbolic integrate");
        let int_f = Function::new("integrate", &[&q, &v], &[&qd]).expect("integrate tape");
        OurTapes {
            drnea_dq: Tape::of(&rnea_f, 0),
            drnea_dv: Tape::of(&rnea_f, 1),
            daba_dq: Tape::of(&aba_f, 0),
            daba_dv: Tape::of(&aba_f, 1),
            daba_dtau: Tape::of(&aba_f, 2),
            tangent: Tape::of(&int_f, 1),
            rnea: rnea_f,
            aba: aba_f,
        }
    }
}

fn matmul(a: &Rows, b: &Rows) -> Rows {
    let (n, k, m) = (a.len(), b.len(), b.first().map_or(0, Vec::len));
    let mut c = vec![vec![0.0; m]; n];
    for i in 0..n {
        for l in 0..k {
            let x = a[i][l];
            for j in 0..m {
                c[i][j] += x * b[l][j];
            }
        }
    }
    c
}

/// Our values of the compared quantities at `s`, in Pinocchio's sense: `tau`, `M`, `ddq` from
/// the generic f64 code, the derivatives from the Jacobian tapes (those w.r.t. `q` times the
/// tangent map of `integrate`, so w.r.t. `δ` in `q ⊕ δ` as Pinocchio's).
pub fn our_values(model: &Model, tapes: &OurTapes, s: &State) -> Values {
    let mut data = Data::<f64>::new(model);
    let nv = model.nv;
    let tau = rnea(model, &mut data, &s.q, &s.v, &s.a)
        .expect("rnea")
        .to_vec();
    let m_flat = crba(model, &mut data, &s.q).expect("crba").to_vec();
    let m: Rows = m_flat.chunks(nv).map(<[f64]>::to_vec).collect();
    let ddq = aba(model, &mut data, &s.q, &s.v, &s.tau)
        .expect("aba")
        .to_vec();
    let zero = vec![0.0; nv];
    let t = tapes.tangent.dense(&[&s.q, &zero]);
    let rnea_in: [&[f64]; 3] = [&s.q, &s.v, &s.a];
    let aba_in: [&[f64]; 3] = [&s.q, &s.v, &s.tau];
    let mut values = Values::default();
    values.0.insert("tau", vec![tau]);
    values.0.insert("M", m);
    values.0.insert("ddq", vec![ddq]);
    values
        .0
        .insert("dtau_dq", matmul(&tapes.drnea_dq.dense(&rnea_in), &t));
    values.0.insert("dtau_dv", tapes.drnea_dv.dense(&rnea_in));
    values
        .0
        .insert("ddq_dq", matmul(&tapes.daba_dq.dense(&aba_in), &t));
    values.0.insert("ddq_dv", tapes.daba_dv.dense(&aba_in));
    values.0.insert("ddq_dtau", tapes.daba_dtau.dense(&aba_in));
    values
}

/// Worst difference of one quantity.
#[derive(Clone, Debug)]
pub struct Difference {
    pub quantity: &'static str,
    /// Largest `|ours − pinocchio|`.
    pub max_abs: f64,
    /// Largest `|ours − pinocchio| / max(1, |pinocchio|)` (what a tolerance is checked
    /// against, as in `fesdj dynamics`).
    pub check: f64,
    /// Largest `|pinocchio|` (the scale of the quantity).
    pub scale: f64,
}

/// The worst differences per quantity (`NaN` anywhere counts as infinite).
pub fn compare(ours: &Values, pin: &Values) -> Vec<Difference> {
    QUANTITIES
        .iter()
        .map(|&quantity| {
            let (a, b) = (&ours.0[quantity], &pin.0[quantity]);
            let mut d = Difference {
                quantity,
                max_abs: 0.0,
                check: 0.0,
                scale: 0.0,
            };
            if a.len() != b.len() || a.iter().zip(b).any(|(x, y)| x.len() != y.len()) {
                d.max_abs = f64::INFINITY;
                d.check = f64::INFINITY;
                return d;
            }
            for (x, y) in a.iter().flatten().zip(b.iter().flatten()) {
                let e = (x - y).abs();
                let e = if e.is_nan() { f64::INFINITY } else { e };
                d.max_abs = d.max_abs.max(e);
                d.check = d.check.max(e / y.abs().max(1.0));
                d.scale = d.scale.max(y.abs());
            }
            d
        })
        .collect()
}

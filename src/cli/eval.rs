//! `fesdj eval FUNCTION.json --input … [--jacobian] [--hessian]`: evaluate a function of the
//! import format (`docs/formats.md`) and, optionally, its sparse Jacobian and the Hessian of its
//! first output, printing JSON. Useful to check an export from CasADi against CasADi itself.

use crate::ad::{self, AdError, Function};
use std::path::PathBuf;

/// Arguments of `fesdj eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Function file in the fesdj-function JSON format.
    pub function: PathBuf,
    /// Input values: one comma-separated list per input, in order (repeat `--input`).
    #[arg(long = "input", value_name = "V1,V2,…")]
    pub inputs: Vec<String>,
    /// Also print the Jacobian of every output with respect to the first input (CSC).
    #[arg(long)]
    pub jacobian: bool,
    /// Also print the lower-triangular Hessian of the first element of the first output with
    /// respect to the first input (CSC).
    #[arg(long)]
    pub hessian: bool,
}

/// Errors of `fesdj eval`.
#[derive(Debug, thiserror::Error)]
pub enum EvalCommandError {
    /// A function error (import, dimensions, derivatives).
    #[error(transparent)]
    Ad(#[from] AdError),
    /// A bad `--input` value.
    #[error("--input {index}: `{text}` is not a number")]
    BadNumber {
        /// Which `--input` (0-based).
        index: usize,
        /// The offending text.
        text: String,
    },
}

fn parse_inputs(args: &EvalArgs) -> Result<Vec<Vec<f64>>, EvalCommandError> {
    args.inputs
        .iter()
        .enumerate()
        .map(|(index, list)| {
            list.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(|t| {
                    t.parse::<f64>().map_err(|_| EvalCommandError::BadNumber {
                        index,
                        text: t.to_string(),
                    })
                })
                .collect()
        })
        .collect()
}

fn eval_all(f: &Function, inputs: &[&[f64]]) -> Result<Vec<Vec<f64>>, AdError> {
    let mut outs: Vec<Vec<f64>> = f.output_sizes().iter().map(|&n| vec![0.0; n]).collect();
    let mut refs: Vec<&mut [f64]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
    f.eval(inputs, &mut refs, &mut f.workspace())?;
    Ok(outs)
}

fn sparse_json(p: &ad::SparsityPattern, values: &[f64]) -> serde_json::Value {
    serde_json::json!({
        "nrows": p.nrows(),
        "ncols": p.ncols(),
        "col_ptr": p.col_ptr(),
        "row_idx": p.row_idx(),
        "values": values,
    })
}

/// Run `fesdj eval`; returns the JSON document printed on success.
pub fn run(args: &EvalArgs) -> Result<serde_json::Value, EvalCommandError> {
    let f = ad::import::read_function(&args.function)?;
    let inputs = parse_inputs(args)?;
    let refs: Vec<&[f64]> = inputs.iter().map(|v| v.as_slice()).collect();
    let outputs = eval_all(&f, &refs)?;
    let mut doc = serde_json::json!({ "function": f.name(), "outputs": outputs });
    if args.jacobian {
        let mut jacs = Vec::new();
        for o in 0..f.n_out() {
            let (p, jf) = ad::jacobian_of(&f, o, 0)?;
            let v = eval_all(&jf, &refs)?;
            jacs.push(sparse_json(&p, &v[0]));
        }
        doc["jacobians"] = serde_json::Value::Array(jacs);
    }
    if args.hessian {
        let (inp, out) = f.symbolic()?;
        let first = out
            .first()
            .and_then(|o| o.first())
            .copied()
            .ok_or_else(|| AdError::Dimension {
                function: f.name().to_string(),
                what: "elements of output 0 (the Hessian needs one)".into(),
                expected: 1,
                got: 0,
            })?;
        let (p, vals) = ad::hessian_lower_sx(first, &inp[0]);
        let irefs: Vec<&[ad::Sx]> = inp.iter().map(|v| v.as_slice()).collect();
        let hf = Function::new("hessian", &irefs, &[&vals])?;
        let v = eval_all(&hf, &refs)?;
        doc["hessian"] = sparse_json(&p, &v[0]);
    }
    Ok(doc)
}

//! The `fesdj-mpcc` document: an MPCC with bounds, start point, parameters and four functions.

use super::format::{as_object, check_header, describe, field, string_field, usize_field};
use super::format::{parse_json, Origin, PROBLEM_FORMAT};
use super::function_doc::FunctionDoc;
use crate::ad::error::AdError;
use crate::ad::function::Function;
use crate::ad::sx::Sx;
use serde_json::{Map, Value};

/// A validated `fesdj-mpcc` document (before compilation).
///
/// The problem is `min f(w, p)` subject to `lbg ≤ g(w, p) ≤ ubg`, `lbw ≤ w ≤ ubw` and the
/// complementarity pairs `0 ≤ G_i(w, p) ⟂ H_i(w, p) ≥ 0`, at parameter values `p0`, from the
/// start point `w0`. Infinite bounds are `±∞`.
#[derive(Clone, Debug)]
pub struct ProblemDoc {
    /// Problem name.
    pub name: String,
    /// Names of the variables (`w_0 …` if the file has none).
    pub w_names: Vec<String>,
    /// Names of the parameters (`p_0 …` if the file has none).
    pub p_names: Vec<String>,
    /// Start point (length `n_w`).
    pub w0: Vec<f64>,
    /// Lower variable bounds (length `n_w`).
    pub lbw: Vec<f64>,
    /// Upper variable bounds (length `n_w`).
    pub ubw: Vec<f64>,
    /// Parameter values (length `n_p`).
    pub p0: Vec<f64>,
    /// Lower constraint bounds (length `n_g`).
    pub lbg: Vec<f64>,
    /// Upper constraint bounds (length `n_g`).
    pub ubg: Vec<f64>,
    /// Objective `f(w, p)`, one scalar output.
    pub f: FunctionDoc,
    /// Constraints `g(w, p)`, one output of length `n_g`.
    pub g: FunctionDoc,
    /// Left sides `G(w, p)` of the complementarity pairs, one output of length `n_c`.
    pub comp_g: FunctionDoc,
    /// Right sides `H(w, p)` of the complementarity pairs, one output of length `n_c`.
    pub comp_h: FunctionDoc,
}

/// An imported MPCC with compiled functions (see [`ProblemDoc`] for the problem statement).
///
/// All four functions have the inputs `(w[n_w], p[n_p])` and one output.
#[derive(Clone, Debug)]
pub struct ImportedProblem {
    /// Problem name.
    pub name: String,
    /// Names of the variables.
    pub w_names: Vec<String>,
    /// Names of the parameters.
    pub p_names: Vec<String>,
    /// Start point (length `n_w`).
    pub w0: Vec<f64>,
    /// Lower variable bounds (`-∞` where unbounded).
    pub lbw: Vec<f64>,
    /// Upper variable bounds (`+∞` where unbounded).
    pub ubw: Vec<f64>,
    /// Parameter values (length `n_p`).
    pub p0: Vec<f64>,
    /// Lower constraint bounds.
    pub lbg: Vec<f64>,
    /// Upper constraint bounds.
    pub ubg: Vec<f64>,
    /// Objective (scalar output).
    pub f: Function,
    /// Constraints (output length `n_g`).
    pub g: Function,
    /// Complementarity left sides G (output length `n_c`).
    pub comp_g: Function,
    /// Complementarity right sides H (output length `n_c`).
    pub comp_h: Function,
}

impl ImportedProblem {
    /// Number of variables.
    pub fn n_w(&self) -> usize {
        self.w0.len()
    }
    /// Number of parameters.
    pub fn n_p(&self) -> usize {
        self.p0.len()
    }
    /// Number of general constraints.
    pub fn n_g(&self) -> usize {
        self.lbg.len()
    }
    /// Number of complementarity pairs.
    pub fn n_comp(&self) -> usize {
        self.comp_g.size_out(0)
    }
}

/// How the entries of a real vector field may look.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reals {
    /// Finite numbers only (start point, parameters).
    Finite,
    /// Numbers or the strings "inf" / "-inf" (bounds).
    Bounds,
}

fn real_vector(
    obj: &Map<String, Value>,
    key: &str,
    len: usize,
    kind: Reals,
    o: Origin,
) -> Result<Vec<f64>, AdError> {
    let v = field(obj, key, o)?;
    let list = v.as_array().ok_or_else(|| {
        o.err(format!(
            "field `{key}`: expected an array, got {}",
            describe(v)
        ))
    })?;
    if list.len() != len {
        return Err(o.err(format!(
            "field `{key}`: {} entries, expected {len}",
            list.len()
        )));
    }
    let mut out = Vec::with_capacity(len);
    for (i, x) in list.iter().enumerate() {
        let value = match (x, kind) {
            (Value::Number(n), _) => n.as_f64(),
            (Value::String(s), Reals::Bounds) if s == "inf" => Some(f64::INFINITY),
            (Value::String(s), Reals::Bounds) if s == "-inf" => Some(f64::NEG_INFINITY),
            _ => None,
        };
        match value {
            Some(x) => out.push(x),
            None => {
                let expected = match kind {
                    Reals::Finite => "a finite number",
                    Reals::Bounds => "a number or \"inf\" / \"-inf\"",
                };
                return Err(o.err(format!(
                    "field `{key}[{i}]`: expected {expected}, got {}",
                    describe(x)
                )));
            }
        }
    }
    Ok(out)
}

fn names(
    obj: &Map<String, Value>,
    key: &str,
    len: usize,
    default: &str,
    o: Origin,
) -> Result<Vec<String>, AdError> {
    let Some(v) = obj.get(key) else {
        return Ok((0..len).map(|i| format!("{default}_{i}")).collect());
    };
    let list = v
        .as_array()
        .ok_or_else(|| o.err(format!("field `{key}`: expected an array of strings")))?;
    if list.len() != len {
        return Err(o.err(format!(
            "field `{key}`: {} names, expected {len}",
            list.len()
        )));
    }
    list.iter()
        .enumerate()
        .map(|(i, s)| {
            s.as_str().map(str::to_string).ok_or_else(|| {
                o.err(format!(
                    "field `{key}[{i}]`: expected a string, got {}",
                    describe(s)
                ))
            })
        })
        .collect()
}

impl ProblemDoc {
    /// Parse and validate a `fesdj-mpcc` document; `origin` names the source in errors.
    pub fn parse(text: &str, origin: &str) -> Result<ProblemDoc, AdError> {
        let v = parse_json(text, origin)?;
        let o = Origin {
            file: origin,
            within: "",
        };
        let obj = as_object(&v, o)?;
        check_header(obj, PROBLEM_FORMAT, o)?;
        let name = string_field(obj, "name", o)?.to_string();
        let n_w = usize_field(obj, "n_w", o)?;
        let n_p = usize_field(obj, "n_p", o)?;
        let fv = field(obj, "functions", o)?;
        let fobj = as_object(
            fv,
            Origin {
                file: origin,
                within: "functions",
            },
        )?;
        let mut docs = Vec::with_capacity(4);
        for key in ["f", "g", "G", "H"] {
            let within = format!("functions.{key}");
            let fo = Origin {
                file: origin,
                within: &within,
            };
            let d = fobj
                .get(key)
                .ok_or_else(|| o.err(format!("missing field `functions.{key}`")))?;
            let doc = FunctionDoc::from_value(d, fo)?;
            let sizes: Vec<usize> = doc.inputs().iter().map(|p| p.size).collect();
            if sizes != [n_w, n_p] {
                return Err(fo.err(format!(
                    "inputs have sizes {sizes:?}, expected [n_w, n_p] = [{n_w}, {n_p}]"
                )));
            }
            if doc.outputs().len() != 1 {
                return Err(fo.err(format!(
                    "{} outputs, expected exactly 1",
                    doc.outputs().len()
                )));
            }
            docs.push(doc);
        }
        let mut docs = docs.into_iter();
        let (Some(f), Some(g), Some(comp_g), Some(comp_h)) =
            (docs.next(), docs.next(), docs.next(), docs.next())
        else {
            return Err(o.err("field `functions`: expected f, g, G and H"));
        };
        if f.outputs()[0].size != 1 {
            return Err(o.err(format!(
                "functions.f: the objective has {} elements, expected 1",
                f.outputs()[0].size
            )));
        }
        let n_g = g.outputs()[0].size;
        let n_c = comp_g.outputs()[0].size;
        if comp_h.outputs()[0].size != n_c {
            return Err(o.err(format!(
                "functions.G has {n_c} elements but functions.H has {} (they are paired \
                 element by element)",
                comp_h.outputs()[0].size
            )));
        }
        Ok(ProblemDoc {
            name,
            w_names: names(obj, "w_names", n_w, "w", o)?,
            p_names: names(obj, "p_names", n_p, "p", o)?,
            w0: real_vector(obj, "w0", n_w, Reals::Finite, o)?,
            lbw: real_vector(obj, "lbw", n_w, Reals::Bounds, o)?,
            ubw: real_vector(obj, "ubw", n_w, Reals::Bounds, o)?,
            p0: real_vector(obj, "p0", n_p, Reals::Finite, o)?,
            lbg: real_vector(obj, "lbg", n_g, Reals::Bounds, o)?,
            ubg: real_vector(obj, "ubg", n_g, Reals::Bounds, o)?,
            f,
            g,
            comp_g,
            comp_h,
        })
    }

    /// Symbols for `w` and `p` named after `w_names` / `p_names`.
    pub fn symbols(&self) -> (Vec<Sx>, Vec<Sx>) {
        let w = self.w_names.iter().map(|n| Sx::sym(n)).collect();
        let p = self.p_names.iter().map(|n| Sx::sym(n)).collect();
        (w, p)
    }

    /// Compile the four functions (over one shared set of symbols).
    pub fn compile(self) -> Result<ImportedProblem, AdError> {
        let (w, p) = self.symbols();
        let inputs = [w, p];
        let f = self.f.compile_with(&inputs)?;
        let g = self.g.compile_with(&inputs)?;
        let comp_g = self.comp_g.compile_with(&inputs)?;
        let comp_h = self.comp_h.compile_with(&inputs)?;
        Ok(ImportedProblem {
            name: self.name,
            w_names: self.w_names,
            p_names: self.p_names,
            w0: self.w0,
            lbw: self.lbw,
            ubw: self.ubw,
            p0: self.p0,
            lbg: self.lbg,
            ubg: self.ubg,
            f,
            g,
            comp_g,
            comp_h,
        })
    }
}

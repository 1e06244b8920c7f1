//! A [`ClsModel`] from expressions (`model.expressions`): `M`, `f_v`, `B_u`, gaps, normals and
//! tangents as strings over named coordinates, velocities, controls and parameters.

use std::rc::Rc;

use crate::ad::{gradient_sx, AdError, Function, Sx};
use crate::config::expr::Expr;
use crate::fesdj::{ClsFunctions, ClsModel, ContactLaw};

use super::error::{invalid, shape, ConfigError};
use super::schema::{Entry, ExpressionModelSpec, Item, ModelSpec};
use super::symbols::{Scope, Symbols};
use super::tree::{join_index, join_key};

/// Field path of the expression model.
pub const BASE: &str = "model.expressions";

/// The parsed model (shared by every [`ClsModel`] built from it).
#[derive(Debug)]
pub struct ExpressionModel {
    /// Symbols.
    pub symbols: Symbols,
    /// `M(q)`, column-major.
    mass: Vec<Expr>,
    /// `f_v(q, v)` (the controls set to 0 when `B_u` is derived from `f_v`).
    forces: Vec<Expr>,
    /// `B_u(q)`: expressions (column-major) or derived `∂f_v/∂u` compiled as a function of `q`.
    input: Input,
    /// `f_c(q)`.
    gaps: Vec<Expr>,
    /// `J_n(q)` as a function of `q` when any contact gives its normal (column-major).
    normals: Option<Function>,
    /// `J_t^ℓ(q)` per contact (column-major, empty without tangents).
    tangents: Vec<Vec<Expr>>,
    /// Contact data.
    pub contacts: Vec<ContactLaw>,
    /// Contact names.
    pub contact_names: Vec<String>,
}

#[derive(Debug)]
enum Input {
    Exprs(Vec<Expr>),
    Derived(Function),
}

/// Resolve a contact coefficient from the contact's own value and the model-wide default, and
/// check its range (`[0, ∞)` for `mu`, `[0, 1]` for `restitution`); errors name the field the
/// value came from.
pub(crate) fn coefficient(
    own: Option<f64>,
    model: Option<f64>,
    field: &str,
    model_field: &str,
) -> Result<f64, ConfigError> {
    let (x, from) = match (own, model) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                field,
                format!(
                    "set either `{model_field}` (all contacts) or the contact's own value, not both"
                ),
            ))
        }
        (Some(x), None) => (x, field),
        (None, Some(x)) => (x, model_field),
        (None, None) => (0.0, field),
    };
    let restitution = model_field.ends_with("restitution");
    let ok = if restitution {
        (0.0..=1.0).contains(&x)
    } else {
        x.is_finite() && x >= 0.0
    };
    if !ok {
        let range = if restitution {
            "must be in [0, 1]"
        } else {
            "must be finite and ≥ 0"
        };
        return Err(invalid(from, format!("{range}, got {x}")));
    }
    Ok(x)
}

/// Entries of a plain vector field of length `n`.
fn vector(
    sym: &Symbols,
    field: &str,
    entries: &[Entry],
    n: usize,
    scope: Scope,
) -> Result<Vec<Expr>, ConfigError> {
    if entries.len() != n {
        return Err(shape(
            field,
            format!("{n} entries"),
            format!("{}", entries.len()),
        ));
    }
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| sym.parse(&join_index(field, i), e, scope))
        .collect()
}

/// A matrix field given as `rows` rows of `cols` entries (row-major in the file), returned
/// column-major. With `diag_ok` a flat list of `rows` entries is the diagonal; with `cols == 1`
/// it is the single column.
fn matrix(
    sym: &Symbols,
    field: &str,
    items: &[Item],
    rows: usize,
    cols: usize,
    diag_ok: bool,
) -> Result<Vec<Expr>, ConfigError> {
    let all_entries = items.iter().all(|i| matches!(i, Item::Entry(_)));
    let all_rows = items.iter().all(|i| matches!(i, Item::Row(_)));
    let mut out = vec![Expr::Num(0.0); rows * cols];
    if all_entries && !items.is_empty() && (diag_ok || cols == 1) {
        if items.len() != rows {
            return Err(shape(
                field,
                format!("{rows} entries or {rows} rows of {cols}"),
                format!("{} entries", items.len()),
            ));
        }
        for (i, it) in items.iter().enumerate() {
            if let Item::Entry(e) = it {
                let x = sym.parse(&join_index(field, i), e, Scope::Q)?;
                out[if cols == 1 { i } else { i + rows * i }] = x;
            }
        }
        return Ok(out);
    }
    if !all_rows || items.len() != rows {
        let got = if all_rows {
            format!("{} rows", items.len())
        } else {
            "a mix of entries and rows".to_string()
        };
        return Err(shape(field, format!("{rows} rows of {cols} entries"), got));
    }
    for (i, it) in items.iter().enumerate() {
        if let Item::Row(r) = it {
            let row_field = join_index(field, i);
            if r.len() != cols {
                return Err(shape(
                    &row_field,
                    format!("{cols} entries"),
                    format!("{}", r.len()),
                ));
            }
            for (j, e) in r.iter().enumerate() {
                out[i + rows * j] = sym.parse(&join_index(&row_field, j), e, Scope::Q)?;
            }
        }
    }
    Ok(out)
}

fn fesdj_err(field: &str) -> impl Fn(AdError) -> ConfigError + '_ {
    move |e| ConfigError::Fesdj {
        field: field.to_string(),
        source: e.into(),
    }
}

impl ExpressionModel {
    /// Parse and check the model (names, scopes, shapes, affine controls).
    pub fn new(
        spec: &ExpressionModelSpec,
        model: &ModelSpec,
    ) -> Result<ExpressionModel, ConfigError> {
        let nq = spec.q.len();
        if nq == 0 {
            return Err(invalid(
                join_key(BASE, "q"),
                "needs at least one coordinate",
            ));
        }
        let v = match &spec.v {
            Some(v) if v.len() != nq => {
                return Err(shape(
                    join_key(BASE, "v"),
                    format!("{nq} names"),
                    v.len().to_string(),
                ))
            }
            Some(v) => v.clone(),
            None => spec.q.iter().map(|n| format!("v_{n}")).collect(),
        };
        let symbols = Symbols::new(BASE, spec.q.clone(), v, spec.u.clone(), &spec.parameters)?;
        let nu = symbols.n_u();
        let mass = matrix(&symbols, &join_key(BASE, "M"), &spec.mass, nq, nq, true)?;
        let f_field = join_key(BASE, "f_v");
        let scope = if spec.b_u.is_some() {
            Scope::QV
        } else {
            Scope::QVU
        };
        let forces = vector(&symbols, &f_field, &spec.f_v, nq, scope)?;
        let input = match &spec.b_u {
            Some(b) => {
                let field = join_key(BASE, "B_u");
                if nu == 0 {
                    return Err(invalid(field, "given, but the model has no controls `u`"));
                }
                Input::Exprs(matrix(&symbols, &field, b, nq, nu, false)?)
            }
            None => Input::Derived(derive_input(&symbols, &forces, &f_field)?),
        };
        let mut gaps = Vec::new();
        let mut tangents = Vec::new();
        let mut contacts = Vec::new();
        let mut names = Vec::new();
        let mut normal_exprs: Vec<Option<Vec<Expr>>> = Vec::new();
        for (l, c) in spec.contacts.iter().enumerate() {
            let cf = join_index(&join_key(BASE, "contacts"), l);
            gaps.push(symbols.parse(&join_key(&cf, "f_c"), &c.f_c, Scope::Q)?);
            normal_exprs.push(match &c.j_n {
                Some(j) => Some(vector(&symbols, &join_key(&cf, "J_n"), j, nq, Scope::Q)?),
                None => None,
            });
            let mu = coefficient(c.mu, model.mu, &join_key(&cf, "mu"), "model.mu")?;
            let e = coefficient(
                c.restitution,
                model.restitution,
                &join_key(&cf, "restitution"),
                "model.restitution",
            )?;
            let (jt, n_t) = match &c.j_t {
                Some(items) => tangent_vectors(&symbols, &join_key(&cf, "J_t"), items)?,
                None if mu > 0.0 => {
                    return Err(invalid(join_key(&cf, "J_t"), "required when mu > 0"));
                }
                None => (Vec::new(), 0),
            };
            tangents.push(jt);
            let contact = ContactLaw {
                n_t,
                mu,
                restitution: e,
            };
            contacts.push(contact);
            names.push(c.name.clone().unwrap_or_else(|| format!("contact_{l}")));
        }
        let normals = if normal_exprs.iter().any(Option::is_some) {
            Some(compile_normals(&symbols, &gaps, &normal_exprs)?)
        } else {
            None
        };
        Ok(ExpressionModel {
            symbols,
            mass,
            forces,
            input,
            gaps,
            normals,
            tangents,
            contacts,
            contact_names: names,
        })
    }

    /// A [`ClsModel`] of this model.
    pub fn cls_model(self: &Rc<Self>) -> Result<ClsModel, ConfigError> {
        ClsModel::new(
            self.symbols.n_q(),
            self.symbols.n_u(),
            self.contacts.clone(),
            Box::new(ExprFunctions(Rc::clone(self))),
        )
        .map_err(|source| ConfigError::Fesdj {
            field: BASE.to_string(),
            source,
        })
    }

    /// `M`, `f_v`, `B_u`, `f_c` at a numeric state (column-major matrices; for tests and checks).
    pub fn eval_f64(&self, q: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
        let env = self.symbols.env_f64(q, v, &vec![0.0; self.symbols.n_u()]);
        let ev = |es: &[Expr]| es.iter().map(|e| e.eval(&env)).collect::<Vec<f64>>();
        let b = match &self.input {
            Input::Exprs(es) => ev(es),
            Input::Derived(f) => {
                let mut out = vec![0.0; f.size_out(0)];
                match f.eval(&[q], &mut [&mut out], &mut f.workspace()) {
                    Ok(()) => out,
                    Err(_) => vec![f64::NAN; f.size_out(0)],
                }
            }
        };
        (ev(&self.mass), ev(&self.forces), b, ev(&self.gaps))
    }
}

/// Tangents: one vector of `n_q` entries, or a list of 1 or 2 such vectors (the columns of
/// `J_t`, so the column-major storage is their concatenation).
fn tangent_vectors(
    sym: &Symbols,
    field: &str,
    items: &[Item],
) -> Result<(Vec<Expr>, usize), ConfigError> {
    let nq = sym.n_q();
    let entries: Option<Vec<Entry>> = items
        .iter()
        .map(|i| match i {
            Item::Entry(e) => Some(e.clone()),
            Item::Row(_) => None,
        })
        .collect();
    if let Some(e) = entries {
        return Ok((vector(sym, field, &e, nq, Scope::Q)?, 1));
    }
    if items.is_empty() || items.len() > 2 {
        return Err(shape(
            field,
            "1 or 2 tangent vectors",
            items.len().to_string(),
        ));
    }
    let mut out = Vec::new();
    for (t, item) in items.iter().enumerate() {
        match item {
            Item::Row(r) => out.extend(vector(sym, &join_index(field, t), r, nq, Scope::Q)?),
            Item::Entry(_) => {
                return Err(shape(
                    field,
                    "a list of tangent vectors",
                    "a mix of entries and lists",
                ))
            }
        }
    }
    Ok((out, items.len()))
}

/// `B_u = ∂f_v/∂u`, checked to depend on `q` only, compiled as a function of `q`.
fn derive_input(sym: &Symbols, forces: &[Expr], field: &str) -> Result<Function, ConfigError> {
    let nq = sym.n_q();
    let q: Vec<Sx> = sym.q.iter().map(|n| Sx::sym(n)).collect();
    let v: Vec<Sx> = sym.v.iter().map(|n| Sx::sym(n)).collect();
    let u: Vec<Sx> = sym.u.iter().map(|n| Sx::sym(n)).collect();
    let env = sym.env(&q, Some(&v), Some(&u));
    let f: Vec<Sx> = forces.iter().map(|e| e.eval(&env)).collect();
    let grads: Vec<Vec<Sx>> = f.iter().map(|fi| gradient_sx(*fi, &u)).collect();
    // Column-major n_q × n_u.
    let b: Vec<Sx> = (0..sym.n_u())
        .flat_map(|j| grads.iter().map(move |g| g[j]))
        .collect();
    Function::new("B_u", &[&q], &[&b]).map_err(|e| match e {
        AdError::FreeSymbol {
            element, symbol, ..
        } => invalid(
            join_index(field, element % nq),
            format!(
                "the controls must enter affinely, with coefficients that depend on the \
                 coordinates only (∂f_v/∂u depends on '{symbol}'); or give `B_u`"
            ),
        ),
        other => fesdj_err(field)(other),
    })
}

/// `J_n(q)` (column-major) from the given normals and `∇f_c` for the others.
fn compile_normals(
    sym: &Symbols,
    gaps: &[Expr],
    given: &[Option<Vec<Expr>>],
) -> Result<Function, ConfigError> {
    let q: Vec<Sx> = sym.q.iter().map(|n| Sx::sym(n)).collect();
    let env = sym.env(&q, None, None);
    let mut jn = Vec::new();
    for (g, n) in gaps.iter().zip(given) {
        match n {
            Some(n) => jn.extend(n.iter().map(|e| e.eval(&env))),
            None => jn.extend(gradient_sx(g.eval(&env), &q)),
        }
    }
    Function::new("J_n", &[&q], &[&jn]).map_err(fesdj_err(&join_key(BASE, "contacts")))
}

struct ExprFunctions(Rc<ExpressionModel>);

impl ExprFunctions {
    fn eval(&self, es: &[Expr], q: &[Sx], v: Option<&[Sx]>) -> Vec<Sx> {
        let env = self.0.symbols.env(q, v, None);
        es.iter().map(|e| e.eval(&env)).collect()
    }
}

fn call(f: &Function, q: &[Sx]) -> Vec<Sx> {
    // The sizes are ours; an error leaves an empty result that ClsModel rejects by size.
    f.call_sx(&[q])
        .ok()
        .and_then(|o| o.into_iter().next())
        .unwrap_or_default()
}

impl ClsFunctions for ExprFunctions {
    fn mass_matrix(&self, q: &[Sx]) -> Vec<Sx> {
        self.eval(&self.0.mass, q, None)
    }
    fn smooth_forces(&self, q: &[Sx], v: &[Sx]) -> Vec<Sx> {
        self.eval(&self.0.forces, q, Some(v))
    }
    fn input_matrix(&self, q: &[Sx]) -> Vec<Sx> {
        match &self.0.input {
            Input::Exprs(es) => self.eval(es, q, None),
            Input::Derived(f) => call(f, q),
        }
    }
    fn gaps(&self, q: &[Sx]) -> Vec<Sx> {
        self.eval(&self.0.gaps, q, None)
    }
    fn normal_jacobian(&self, q: &[Sx]) -> Option<Vec<Sx>> {
        self.0.normals.as_ref().map(|f| call(f, q))
    }
    fn tangent_jacobian(&self, q: &[Sx], contact: usize) -> Vec<Sx> {
        match self.0.tangents.get(contact) {
            Some(t) => self.eval(t, q, None),
            None => Vec::new(),
        }
    }
}

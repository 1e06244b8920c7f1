//! The symbol table of a problem: coordinates `q`, velocities `v`, controls `u` and constant
//! parameters, with the scope rules of each field (e.g. `M` may use `q` and parameters only).

use crate::ad::Sx;
use crate::config::expr::{is_identifier, is_reserved, parse, Expr};

use super::error::{invalid, ConfigError};
use super::schema::{Entry, Params};
use super::tree::join_key;

/// Which symbols an expression may use (parameters are always allowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Coordinates only (`M`, `B_u`, gaps, normals, tangents).
    Q,
    /// Coordinates and velocities (`mayer`, `terminal`).
    QV,
    /// Coordinates, velocities and controls (`f_v`, `lagrange`, `path`).
    QVU,
}

impl Scope {
    fn describe(self) -> &'static str {
        match self {
            Scope::Q => "coordinates and parameters only",
            Scope::QV => "coordinates, velocities and parameters only",
            Scope::QVU => "coordinates, velocities, controls and parameters",
        }
    }
}

/// Names of `q`, `v`, `u` and the parameters with their values. Symbol indices: `q` first,
/// then `v`, `u`, parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Symbols {
    /// Coordinate names.
    pub q: Vec<String>,
    /// Velocity names.
    pub v: Vec<String>,
    /// Control names.
    pub u: Vec<String>,
    /// Parameters and their values.
    pub params: Vec<(String, f64)>,
    /// The contact symbols of a robot model **[ours]**: `gap_<c>` of every contact, then
    /// `slip_<c>` (the OCP expressions `lagrange`, `mayer`, `path`, `terminal` may use them: the
    /// gap f_c(q) and the squared tangential speed ‖J_tᵀ v‖², formulation §10.9). Empty for
    /// expression models, which write their gaps themselves. Set with [`Symbols::set_contacts`].
    contact_names: Vec<String>,
}

fn check_name(field: &str, name: &str, taken: &[&str]) -> Result<(), ConfigError> {
    if !is_identifier(name) {
        return Err(invalid(
            field,
            format!(
                "'{name}' is not a valid name (letters, digits, '_'; not starting with a digit)"
            ),
        ));
    }
    if is_reserved(name) {
        return Err(invalid(
            field,
            format!("'{name}' is reserved (a function or the constant pi)"),
        ));
    }
    if taken.contains(&name) {
        return Err(invalid(field, format!("'{name}' is defined twice")));
    }
    Ok(())
}

impl Symbols {
    /// Check the names (identifiers, unique, not reserved) and evaluate the parameters in
    /// order (a parameter may use earlier ones). `base` is the field path of the model section.
    pub fn new(
        base: &str,
        q: Vec<String>,
        v: Vec<String>,
        u: Vec<String>,
        params: &Params,
    ) -> Result<Symbols, ConfigError> {
        let mut taken: Vec<&str> = Vec::new();
        for (what, names) in [("q", &q), ("v", &v), ("u", &u)] {
            for (i, n) in names.iter().enumerate() {
                check_name(&format!("{}[{i}]", join_key(base, what)), n, &taken)?;
                taken.push(n);
            }
        }
        let mut out = Symbols {
            q: q.clone(),
            v: v.clone(),
            u: u.clone(),
            params: Vec::new(),
            contact_names: Vec::new(),
        };
        for (name, entry) in &params.0 {
            let field = join_key(&join_key(base, "parameters"), name);
            check_name(&field, name, &taken)?;
            let value = match entry {
                Entry::Num(x) => *x,
                Entry::Text(t) => {
                    let known = &out.params;
                    let e = parse(t, &|n| known.iter().position(|(k, _)| k == n)).map_err(
                        |source| ConfigError::Expr {
                            field: field.clone(),
                            source,
                        },
                    )?;
                    let vals: Vec<f64> = known.iter().map(|(_, x)| *x).collect();
                    e.eval(&vals)
                }
            };
            if !value.is_finite() {
                return Err(invalid(&field, format!("must be finite, got {value}")));
            }
            out.params.push((name.clone(), value));
            taken.push(name);
        }
        Ok(out)
    }

    /// `n_q`.
    pub fn n_q(&self) -> usize {
        self.q.len()
    }
    /// `n_u`.
    pub fn n_u(&self) -> usize {
        self.u.len()
    }

    fn index(&self, name: &str) -> Option<usize> {
        let (nq, nu) = (self.q.len(), self.u.len());
        if let Some(i) = self.q.iter().position(|n| n == name) {
            return Some(i);
        }
        if let Some(i) = self.v.iter().position(|n| n == name) {
            return Some(nq + i);
        }
        if let Some(i) = self.u.iter().position(|n| n == name) {
            return Some(2 * nq + i);
        }
        if let Some(i) = self.params.iter().position(|(n, _)| n == name) {
            return Some(2 * nq + nu + i);
        }
        self.contact_names
            .iter()
            .position(|n| n == name)
            .map(|i| self.contact_base() + i)
    }

    /// Give the OCP expressions the contact symbols `gap_<c>` and `slip_<c>` of these contacts
    /// (a robot model's contact names, made identifiers).
    pub fn set_contacts(&mut self, names: Vec<String>) {
        self.contact_names = names
            .iter()
            .map(|c| format!("gap_{c}"))
            .chain(names.iter().map(|c| format!("slip_{c}")))
            .collect();
    }

    /// Index of the first contact symbol (`gap_<c>` of the first contact); `slip_<c>` follow
    /// the gaps.
    pub fn contact_base(&self) -> usize {
        2 * self.q.len() + self.u.len() + self.params.len()
    }

    /// Whether `e` uses a contact symbol.
    pub fn uses_contacts(&self, e: &Expr) -> bool {
        let base = self.contact_base();
        e.symbols().iter().any(|&(i, _)| i >= base)
    }

    fn name(&self, index: usize) -> &str {
        let (nq, nu) = (self.q.len(), self.u.len());
        if index < nq {
            &self.q[index]
        } else if index < 2 * nq {
            &self.v[index - nq]
        } else if index < 2 * nq + nu {
            &self.u[index - 2 * nq]
        } else if index < self.contact_base() {
            &self.params[index - 2 * nq - nu].0
        } else {
            self.contact_names
                .get(index - self.contact_base())
                .map_or("?", String::as_str)
        }
    }

    fn allowed(&self, index: usize, scope: Scope) -> bool {
        let (nq, nu) = (self.q.len(), self.u.len());
        let is_param = index >= 2 * nq + nu && index < self.contact_base();
        let is_contact = index >= self.contact_base();
        match scope {
            Scope::Q => index < nq || is_param,
            Scope::QV => index < 2 * nq || is_param || is_contact,
            Scope::QVU => true,
        }
    }

    /// Parse an entry of `field` and check its scope.
    pub fn parse(&self, field: &str, entry: &Entry, scope: Scope) -> Result<Expr, ConfigError> {
        let text = match entry {
            Entry::Num(x) => return Ok(Expr::Num(*x)),
            Entry::Text(t) => t,
        };
        self.parse_str(field, text, scope)
    }

    /// Parse an expression string of `field` and check its scope.
    pub fn parse_str(&self, field: &str, text: &str, scope: Scope) -> Result<Expr, ConfigError> {
        let e = parse(text, &|n| self.index(n)).map_err(|source| ConfigError::Expr {
            field: field.to_string(),
            source,
        })?;
        for (index, pos) in e.symbols() {
            if !self.allowed(index, scope) {
                return Err(ConfigError::Scope {
                    field: field.to_string(),
                    name: self.name(index).to_string(),
                    pos,
                    allowed: scope.describe(),
                });
            }
        }
        Ok(e)
    }

    /// The evaluation environment `[q, v, u, parameters]` (missing parts are zeros).
    pub fn env(&self, q: &[Sx], v: Option<&[Sx]>, u: Option<&[Sx]>) -> Vec<Sx> {
        let (nq, nu) = (self.q.len(), self.u.len());
        let mut env = Vec::with_capacity(2 * nq + nu + self.params.len());
        env.extend_from_slice(q);
        match v {
            Some(v) => env.extend_from_slice(v),
            None => env.extend(std::iter::repeat_n(Sx::constant(0.0), nq)),
        }
        match u {
            Some(u) => env.extend_from_slice(u),
            None => env.extend(std::iter::repeat_n(Sx::constant(0.0), nu)),
        }
        env.extend(self.params.iter().map(|(_, x)| Sx::constant(*x)));
        // The contact symbols: NaN unless filled by `env_with_contacts` (only the OCP
        // expressions may use them, and they are evaluated there).
        env.extend(std::iter::repeat_n(
            Sx::constant(f64::NAN),
            self.contact_names.len(),
        ));
        env
    }

    /// [`Symbols::env`] with the contact symbols: `gaps` (`f_c(q)` per contact) and `slips`
    /// (`‖J_tᵀ v‖²` per contact).
    pub fn env_with_contacts(
        &self,
        q: &[Sx],
        v: Option<&[Sx]>,
        u: Option<&[Sx]>,
        gaps: &[Sx],
        slips: &[Sx],
    ) -> Vec<Sx> {
        let mut env = self.env(q, v, u);
        let base = self.contact_base();
        let nc = self.contact_names.len() / 2;
        for (i, g) in gaps.iter().enumerate().take(nc) {
            env[base + i] = *g;
        }
        for (i, s) in slips.iter().enumerate().take(nc) {
            env[base + nc + i] = *s;
        }
        env
    }

    /// The same environment for `f64` evaluation.
    pub fn env_f64(&self, q: &[f64], v: &[f64], u: &[f64]) -> Vec<f64> {
        let mut env = Vec::new();
        env.extend_from_slice(q);
        env.extend_from_slice(v);
        env.extend_from_slice(u);
        env.extend(self.params.iter().map(|(_, x)| *x));
        env
    }
}

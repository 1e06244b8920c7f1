//! The Complementarity Lagrangian System (CLS) of §1: the model FESD-J transcribes.
//!
//! `M(q) v̇ = f_v(q, v) + B_u(q) u + Σ_ℓ (J_n^ℓ λ_n^ℓ + J_t^ℓ λ_t^ℓ)` (1b), with
//! `0 ≤ λ_n^ℓ ⊥ f_c^ℓ(q) ≥ 0` (1c), Newton restitution `ε_r^ℓ` (1d) and Coulomb friction with
//! coefficient `μ^ℓ` (1e).
//!
//! The functions are given symbolically through the [`ClsFunctions`] trait (arguments and results
//! are [`Sx`] vectors), so hand-written models (the paper's balls, discs and boxes), models from
//! expression strings and robot models (from `src/model`, generic over
//! [`Scalar`](crate::ad::Scalar) and instantiated with `Sx`) all plug in the same way.
//! [`ClosureFunctions`] implements the trait from closures.
//!
//! Matrix convention: column-major `Vec<Sx>` (`a[i + rows * j]`); so `J_n` (`n_q × n_c`) stores
//! the normal `J_n^ℓ` of contact `ℓ` contiguously, and `J_t^ℓ` (`n_q × n_t`) its tangents.

use crate::ad::{gradient_sx, Sx};

use super::error::FesdjError;

/// Symbolic model functions of a CLS (§1.1). All matrices are column-major.
pub trait ClsFunctions {
    /// Inertia matrix `M(q)` (`n_q × n_q`, symmetric positive definite).
    fn mass_matrix(&self, q: &[Sx]) -> Vec<Sx>;
    /// All smooth forces `f_v(q, v)` (gravity, Coriolis, springs, drag; *not* divided by `M`),
    /// length `n_q`.
    fn smooth_forces(&self, q: &[Sx], v: &[Sx]) -> Vec<Sx>;
    /// Inverse dynamics `M(q) a − f_v(q, v)` as one expression (for a rigid-body model: one
    /// RNEA pass, O(n_q) instead of the O(n_q²) entries of `M(q)`), length `n_q`. `None` (the
    /// default) composes [`ClsFunctions::mass_matrix`] and [`ClsFunctions::smooth_forces`].
    fn inverse_dynamics(&self, _q: &[Sx], _v: &[Sx], _a: &[Sx]) -> Option<Vec<Sx>> {
        None
    }
    /// Input matrix `B_u(q)` (`n_q × n_u`). The default is empty (`n_u = 0`).
    fn input_matrix(&self, _q: &[Sx]) -> Vec<Sx> {
        Vec::new()
    }
    /// Signed distances `f_c(q)` (`n_c`; `f_c^ℓ ≥ 0` admissible).
    fn gaps(&self, q: &[Sx]) -> Vec<Sx>;
    /// Contact normals `J_n(q)` (`n_q × n_c`). `None` (the default) means `J_n = ∇f_c`.
    fn normal_jacobian(&self, _q: &[Sx]) -> Option<Vec<Sx>> {
        None
    }
    /// Tangent Jacobian `J_t^ℓ(q)` of contact `ℓ` (`n_q × n_t^ℓ`). Only called for contacts with
    /// friction ([`ContactLaw::has_friction`]).
    fn tangent_jacobian(&self, _q: &[Sx], _contact: usize) -> Vec<Sx> {
        Vec::new()
    }
}

/// Data of one contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactLaw {
    /// Number of tangent directions `n_t` (1 planar, 2 spatial, 0 frictionless).
    pub n_t: usize,
    /// Friction coefficient `μ ≥ 0`.
    pub mu: f64,
    /// Newton restitution coefficient `ε_r ∈ [0, 1]` (1d).
    pub restitution: f64,
}

impl ContactLaw {
    /// A frictionless contact with restitution `e`.
    pub fn frictionless(restitution: f64) -> ContactLaw {
        ContactLaw {
            n_t: 0,
            mu: 0.0,
            restitution,
        }
    }

    /// True if the contact has friction variables: `μ > 0` and `n_t > 0`. (With `μ = 0` no
    /// tangential variables are created at all, as nosnoc's `friction_exists = 0`, §8.1.)
    pub fn has_friction(&self) -> bool {
        self.mu > 0.0 && self.n_t > 0
    }
}

/// A Complementarity Lagrangian System: dimensions, contact data and the model functions.
pub struct ClsModel {
    n_q: usize,
    n_u: usize,
    contacts: Vec<ContactLaw>,
    functions: Box<dyn ClsFunctions>,
}

impl std::fmt::Debug for ClsModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClsModel")
            .field("n_q", &self.n_q)
            .field("n_u", &self.n_u)
            .field("contacts", &self.contacts)
            .finish_non_exhaustive()
    }
}

fn model_err(field: &str, why: impl Into<String>) -> FesdjError {
    FesdjError::Model {
        field: field.to_string(),
        why: why.into(),
    }
}

fn check_len(field: &str, v: &[Sx], want: usize) -> Result<(), FesdjError> {
    if v.len() == want {
        Ok(())
    } else {
        Err(model_err(
            field,
            format!("returned {} entries, expected {want}", v.len()),
        ))
    }
}

impl ClsModel {
    /// Build a model and check its data and the sizes of every function's result (the functions
    /// are called once on fresh symbols).
    pub fn new(
        n_q: usize,
        n_u: usize,
        contacts: Vec<ContactLaw>,
        functions: Box<dyn ClsFunctions>,
    ) -> Result<ClsModel, FesdjError> {
        if n_q == 0 {
            return Err(model_err("n_q", "must be at least 1"));
        }
        for (l, c) in contacts.iter().enumerate() {
            if !(c.mu.is_finite() && c.mu >= 0.0) {
                return Err(model_err(
                    &format!("contacts[{l}].mu"),
                    format!("must be finite and ≥ 0, got {}", c.mu),
                ));
            }
            if !(0.0..=1.0).contains(&c.restitution) {
                return Err(model_err(
                    &format!("contacts[{l}].restitution"),
                    format!("must be in [0, 1], got {}", c.restitution),
                ));
            }
            if c.n_t > 2 {
                return Err(model_err(
                    &format!("contacts[{l}].n_t"),
                    format!("must be 0, 1 or 2, got {}", c.n_t),
                ));
            }
            if c.mu > 0.0 && c.n_t == 0 {
                return Err(model_err(
                    &format!("contacts[{l}].n_t"),
                    "μ > 0 needs tangent directions (n_t = 1 or 2)",
                ));
            }
        }
        let model = ClsModel {
            n_q,
            n_u,
            contacts,
            functions,
        };
        let q = Sx::sym_vec("q", n_q);
        let v = Sx::sym_vec("v", n_q);
        model.mass_matrix(&q)?;
        model.smooth_forces(&q, &v)?;
        model.input_matrix(&q)?;
        model.normal_jacobian(&q)?;
        for l in 0..model.n_c() {
            if model.contacts[l].has_friction() {
                model.tangent_jacobian(&q, l)?;
            }
        }
        Ok(model)
    }

    /// Number of generalised coordinates `n_q`.
    pub fn n_q(&self) -> usize {
        self.n_q
    }
    /// Number of controls `n_u`.
    pub fn n_u(&self) -> usize {
        self.n_u
    }
    /// Number of contacts `n_c`.
    pub fn n_c(&self) -> usize {
        self.contacts.len()
    }
    /// The contacts.
    pub fn contacts(&self) -> &[ContactLaw] {
        &self.contacts
    }

    /// `M(q)`, checked to be `n_q × n_q`.
    pub fn mass_matrix(&self, q: &[Sx]) -> Result<Vec<Sx>, FesdjError> {
        let m = self.functions.mass_matrix(q);
        check_len("mass_matrix", &m, self.n_q * self.n_q)?;
        Ok(m)
    }
    /// `f_v(q, v)`, checked to have length `n_q`.
    pub fn smooth_forces(&self, q: &[Sx], v: &[Sx]) -> Result<Vec<Sx>, FesdjError> {
        let f = self.functions.smooth_forces(q, v);
        check_len("smooth_forces", &f, self.n_q)?;
        Ok(f)
    }
    /// `M(q) a − f_v(q, v)`: the model's own inverse dynamics where it has one, else composed
    /// from `M` and `f_v`; checked to have length `n_q`.
    pub fn inverse_dynamics(&self, q: &[Sx], v: &[Sx], a: &[Sx]) -> Result<Vec<Sx>, FesdjError> {
        if let Some(r) = self.functions.inverse_dynamics(q, v, a) {
            check_len("inverse_dynamics", &r, self.n_q)?;
            return Ok(r);
        }
        let m = self.mass_matrix(q)?;
        let f = self.smooth_forces(q, v)?;
        let ma = super::linalg::mat_vec(&m, self.n_q, a);
        Ok(ma.iter().zip(&f).map(|(&x, &y)| x - y).collect())
    }
    /// `B_u(q)`, checked to be `n_q × n_u`.
    pub fn input_matrix(&self, q: &[Sx]) -> Result<Vec<Sx>, FesdjError> {
        let b = self.functions.input_matrix(q);
        check_len("input_matrix", &b, self.n_q * self.n_u)?;
        Ok(b)
    }
    /// `f_c(q)`, checked to have length `n_c`.
    pub fn gaps(&self, q: &[Sx]) -> Result<Vec<Sx>, FesdjError> {
        let f = self.functions.gaps(q);
        check_len("gaps", &f, self.n_c())?;
        Ok(f)
    }
    /// `J_n(q)` (`n_q × n_c`): the user's normals, or `J_n^ℓ = ∇_q f_c^ℓ` (§0.1). The gradient
    /// is taken at fresh symbols and composed with `q`, so `q` may be any expression.
    pub fn normal_jacobian(&self, q: &[Sx]) -> Result<Vec<Sx>, FesdjError> {
        if let Some(j) = self.functions.normal_jacobian(q) {
            check_len("normal_jacobian", &j, self.n_q * self.n_c())?;
            return Ok(j);
        }
        let qs = Sx::sym_vec("q_jn", self.n_q);
        let f = self.gaps(&qs)?;
        let mut jac = Vec::with_capacity(self.n_q * self.n_c());
        for fl in f {
            jac.extend(gradient_sx(fl, &qs));
        }
        let func = crate::ad::Function::new("normal_jacobian", &[&qs], &[&jac])?;
        let out = func.call_sx(&[q])?;
        Ok(out.into_iter().next().unwrap_or_default())
    }
    /// `J_t^ℓ(q)` (`n_q × n_t^ℓ`) of a contact with friction.
    pub fn tangent_jacobian(&self, q: &[Sx], contact: usize) -> Result<Vec<Sx>, FesdjError> {
        let n_t = self.contacts.get(contact).map_or(0, |c| c.n_t);
        let j = self.functions.tangent_jacobian(q, contact);
        check_len(
            &format!("tangent_jacobian(contact {contact})"),
            &j,
            self.n_q * n_t,
        )?;
        Ok(j)
    }
}

/// Symbolic function of `q`.
pub type QFn = Box<dyn Fn(&[Sx]) -> Vec<Sx>>;
/// Symbolic function of `(q, v)`.
pub type QvFn = Box<dyn Fn(&[Sx], &[Sx]) -> Vec<Sx>>;
/// Symbolic function of `(q, contact index)`.
pub type QContactFn = Box<dyn Fn(&[Sx], usize) -> Vec<Sx>>;

/// [`ClsFunctions`] from closures (hand-written models).
pub struct ClosureFunctions {
    /// `M(q)`, column-major.
    pub mass: QFn,
    /// `f_v(q, v)`.
    pub forces: QvFn,
    /// `B_u(q)`, column-major; `None` = no input.
    pub input: Option<QFn>,
    /// `f_c(q)`.
    pub gaps: QFn,
    /// `J_n(q)`, column-major; `None` = `∇f_c`.
    pub normals: Option<QFn>,
    /// `J_t^ℓ(q)`; `None` = no friction anywhere.
    pub tangents: Option<QContactFn>,
}

impl ClsFunctions for ClosureFunctions {
    fn mass_matrix(&self, q: &[Sx]) -> Vec<Sx> {
        (self.mass)(q)
    }
    fn smooth_forces(&self, q: &[Sx], v: &[Sx]) -> Vec<Sx> {
        (self.forces)(q, v)
    }
    fn input_matrix(&self, q: &[Sx]) -> Vec<Sx> {
        self.input.as_ref().map_or_else(Vec::new, |f| f(q))
    }
    fn gaps(&self, q: &[Sx]) -> Vec<Sx> {
        (self.gaps)(q)
    }
    fn normal_jacobian(&self, q: &[Sx]) -> Option<Vec<Sx>> {
        self.normals.as_ref().map(|f| f(q))
    }
    fn tangent_jacobian(&self, q: &[Sx], contact: usize) -> Vec<Sx> {
        self.tangents
            .as_ref()
            .map_or_else(Vec::new, |f| f(q, contact))
    }
}

/// Constant column-major identity matrix of size `n` as symbols.
pub fn identity(n: usize) -> Vec<Sx> {
    let mut m = vec![Sx::constant(0.0); n * n];
    for i in 0..n {
        m[i + n * i] = Sx::constant(1.0);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ad::{Function, Scalar};

    fn ball() -> ClosureFunctions {
        ClosureFunctions {
            mass: Box::new(|_q| identity(2)),
            forces: Box::new(|_q, _v| vec![Sx::constant(0.0), Sx::constant(-9.81)]),
            input: None,
            gaps: Box::new(|q| vec![q[1].sq() + q[0]]),
            normals: None,
            tangents: Some(Box::new(|_q, _l| {
                vec![Sx::constant(1.0), Sx::constant(0.0)]
            })),
        }
    }

    #[test]
    fn normal_defaults_to_gradient() {
        let m = ClsModel::new(
            2,
            0,
            vec![ContactLaw {
                n_t: 1,
                mu: 0.3,
                restitution: 0.0,
            }],
            Box::new(ball()),
        )
        .unwrap();
        let q = Sx::sym_vec("q", 2);
        let jn = m.normal_jacobian(&q).unwrap();
        let f = Function::new("jn", &[&q], &[&jn]).unwrap();
        let mut out = [0.0; 2];
        f.eval(&[&[0.5, 2.0]], &mut [&mut out], &mut f.workspace())
            .unwrap();
        assert_eq!(out, [1.0, 4.0]);
    }

    #[test]
    fn rejects_bad_contact_data() {
        let bad = |c: ContactLaw| ClsModel::new(2, 0, vec![c], Box::new(ball())).is_err();
        assert!(bad(ContactLaw {
            n_t: 1,
            mu: -1.0,
            restitution: 0.0
        }));
        assert!(bad(ContactLaw {
            n_t: 1,
            mu: 0.1,
            restitution: 1.5
        }));
        assert!(bad(ContactLaw {
            n_t: 0,
            mu: 0.1,
            restitution: 0.0
        }));
        // Wrong tangent size (n_t = 2 but one column supplied).
        assert!(bad(ContactLaw {
            n_t: 2,
            mu: 0.1,
            restitution: 0.0
        }));
    }
}

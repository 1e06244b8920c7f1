//! A [`ClsModel`] from a robot (`model.robot`): URDF → [`Model`], with the algorithms of
//! `src/model` instantiated with [`Sx`]:
//!
//! * `M(q)` = [`crba`], `f_v(q, v) = −h(q, v)` ([`nonlinear_effects`]: Coriolis, centrifugal and
//!   gravity terms), `B_u` selects the actuated joints' velocity coordinates;
//! * gaps, normals and tangents from [`contact_jacobians`] (sphere against ground, plane or
//!   another sphere; `J_n = ∇f_c` because `q̇ = v`).
//!
//! Root joints: `fixed`, `planar_xz`, `planar_xy` and `floating_zyx` have `q̇ = v` as FESD-J's
//! (1a) requires; `floating` (quaternion) does not and is rejected.

use std::path::Path;
use std::rc::Rc;

use crate::ad::Sx;
use crate::fesdj::{ClsFunctions, ClsModel, ContactLaw};
use crate::model::{
    contact_jacobians, crba, forward_kinematics, nonlinear_effects, rnea, signed_distance, Contact,
    ContactSpec, Data, JointType, Model, ModelOptions, RootJoint, SurfaceSpec,
};

use super::error::{invalid, ConfigError};
use super::expressions::coefficient;
use super::schema::{ModelSpec, Params, RobotSpec};
use super::symbols::Symbols;
use super::tree::{join_index, join_key};

/// Field path of the robot model.
pub const BASE: &str = "model.robot";

/// A loaded robot with its contacts and actuated joints.
#[derive(Debug)]
pub struct RobotModel {
    /// The rigid-body model.
    pub model: Model,
    /// Contacts (resolved against the model).
    pub contacts: Vec<Contact>,
    /// Velocity index of every actuated joint (control `k` drives `v[actuated[k]]`).
    pub actuated: Vec<usize>,
    /// Symbols: `q` = joint names, `v` = `v_<joint>`, `u` = `u_<joint>` (non-identifier
    /// characters replaced by `_`).
    pub symbols: Symbols,
    /// Bounds on `q` from the URDF position limits (`±inf` where none).
    pub q_limits: (Vec<f64>, Vec<f64>),
    /// Bounds on `u` from the URDF effort limits (`±inf` where none).
    pub u_limits: (Vec<f64>, Vec<f64>),
}

fn ident(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

impl RobotModel {
    /// Load the URDF (relative to `base_dir`) and resolve contacts and actuated joints.
    pub fn new(
        spec: &RobotSpec,
        model_spec: &ModelSpec,
        base_dir: &Path,
    ) -> Result<RobotModel, ConfigError> {
        if spec.root == RootJoint::Floating {
            return Err(invalid(
                join_key(BASE, "root"),
                "`floating` (quaternion) has q̇ ≠ v, which FESD-J needs; use `floating_zyx`",
            ));
        }
        let options = ModelOptions {
            root: spec.root,
            gravity: spec.gravity.unwrap_or(ModelOptions::default().gravity),
        };
        let path = base_dir.join(&spec.urdf);
        let model =
            Model::from_urdf_file(&path, &options).map_err(|source| ConfigError::Model {
                field: join_key(BASE, "urdf"),
                source,
            })?;
        let mut q_names = Vec::new();
        let (mut qlb, mut qub) = (Vec::new(), Vec::new());
        for j in &model.joints {
            // nq = nv = 1 for every joint of the admitted root joints and URDF joint types.
            for l in &j.limits {
                q_names.push(ident(&j.name));
                let limited = spec.joint_limits
                    && matches!(j.joint_type, JointType::Revolute | JointType::Prismatic)
                    && l.lower < l.upper;
                qlb.push(if limited { l.lower } else { f64::NEG_INFINITY });
                qub.push(if limited { l.upper } else { f64::INFINITY });
            }
        }
        if q_names.len() != model.nq || model.nq != model.nv {
            return Err(invalid(
                join_key(BASE, "root"),
                format!(
                    "needs nq = nv with one coordinate per joint, got nq = {}, nv = {}",
                    model.nq, model.nv
                ),
            ));
        }
        let mut actuated = Vec::new();
        let (mut ulb, mut uub) = (Vec::new(), Vec::new());
        for (k, name) in spec.actuated.iter().enumerate() {
            let field = join_index(&join_key(BASE, "actuated"), k);
            let j = model.joint_id(name).map_err(|source| ConfigError::Model {
                field: field.clone(),
                source,
            })?;
            let joint = &model.joints[j];
            if joint.joint_type == JointType::RootCoordinate {
                return Err(invalid(
                    field,
                    format!("`{name}` is a root coordinate, not a URDF joint"),
                ));
            }
            if actuated.contains(&joint.idx_v) {
                return Err(invalid(field, format!("`{name}` is listed twice")));
            }
            actuated.push(joint.idx_v);
            let e = joint.limits.first().map_or(f64::INFINITY, |l| l.effort);
            let limited = spec.effort_limits && e > 0.0 && e.is_finite();
            ulb.push(if limited { -e } else { f64::NEG_INFINITY });
            uub.push(if limited { e } else { f64::INFINITY });
        }
        let mut contacts = Vec::new();
        for (l, c) in spec.contacts.iter().enumerate() {
            let field = join_index(&join_key(BASE, "contacts"), l);
            let mu = coefficient(c.mu, model_spec.mu, &join_key(&field, "mu"), "model.mu")?;
            let restitution = coefficient(
                c.restitution,
                model_spec.restitution,
                &join_key(&field, "restitution"),
                "model.restitution",
            )?;
            let cs = ContactSpec {
                name: c.name.clone().unwrap_or_else(|| c.frame.clone()),
                frame: c.frame.clone(),
                offset: c.offset,
                radius: c.radius,
                surface: c
                    .surface
                    .clone()
                    .unwrap_or(SurfaceSpec::Ground { height: 0.0 }),
                mu,
                restitution,
            };
            contacts.push(
                cs.resolve(&model)
                    .map_err(|source| ConfigError::Model { field, source })?,
            );
        }
        let v_names = q_names.iter().map(|n| format!("v_{n}")).collect();
        let u_names = spec
            .actuated
            .iter()
            .map(|n| format!("u_{}", ident(n)))
            .collect();
        let mut symbols = Symbols::new(BASE, q_names, v_names, u_names, &Params::default())?;
        symbols.set_contacts(
            spec.contacts
                .iter()
                .map(|c| ident(c.name.as_deref().unwrap_or(&c.frame)))
                .collect(),
        );
        Ok(RobotModel {
            model,
            contacts,
            actuated,
            symbols,
            q_limits: (qlb, qub),
            u_limits: (ulb, uub),
        })
    }

    /// The FESD-J contact data (`n_t` = the model's tangent dimension when `μ > 0`).
    pub fn cls_contacts(&self) -> Vec<ContactLaw> {
        self.contacts
            .iter()
            .map(|c| ContactLaw {
                n_t: if c.mu > 0.0 { c.tangent_dim } else { 0 },
                mu: c.mu,
                restitution: c.restitution,
            })
            .collect()
    }

    /// A [`ClsModel`] of this robot.
    pub fn cls_model(self: &Rc<Self>) -> Result<ClsModel, ConfigError> {
        ClsModel::new(
            self.model.nq,
            self.actuated.len(),
            self.cls_contacts(),
            Box::new(RobotFunctions(Rc::clone(self))),
        )
        .map_err(|source| ConfigError::Fesdj {
            field: BASE.to_string(),
            source,
        })
    }
}

struct RobotFunctions(Rc<RobotModel>);

impl RobotFunctions {
    /// Normals (column-major `n_q × n_c`) and tangents (per contact, column-major) at `q`.
    /// Errors cannot happen for our own sizes; they leave empty results that `ClsModel`
    /// rejects by size.
    fn jacobians(&self, q: &[Sx]) -> (Vec<Sx>, Vec<Vec<Sx>>) {
        let r = &self.0;
        let nv = r.model.nv;
        let mut data = Data::<Sx>::new(&r.model);
        if forward_kinematics(&r.model, &mut data, q).is_err() {
            return (Vec::new(), Vec::new());
        }
        let mut jn_all = Vec::with_capacity(nv * r.contacts.len());
        let mut jt_all = Vec::with_capacity(r.contacts.len());
        for c in &r.contacts {
            let mut jn = vec![Sx::constant(0.0); nv];
            let mut jt = vec![Sx::constant(0.0); c.tangent_dim * nv];
            if contact_jacobians(&r.model, &data, c, &mut jn, &mut jt).is_err() {
                return (Vec::new(), Vec::new());
            }
            jn_all.extend(jn);
            // Row-major `n_t × nv` rows are the columns of J_t: the same storage column-major.
            jt_all.push(if c.mu > 0.0 { jt } else { Vec::new() });
        }
        (jn_all, jt_all)
    }
}

impl ClsFunctions for RobotFunctions {
    fn mass_matrix(&self, q: &[Sx]) -> Vec<Sx> {
        let m = &self.0.model;
        let mut data = Data::<Sx>::new(m);
        match crba(m, &mut data, q) {
            // Row-major and symmetric: transpose anyway to state the convention.
            Ok(rm) => (0..m.nv * m.nv)
                .map(|k| rm[(k % m.nv) * m.nv + k / m.nv])
                .collect(),
            Err(_) => Vec::new(),
        }
    }
    fn smooth_forces(&self, q: &[Sx], v: &[Sx]) -> Vec<Sx> {
        let m = &self.0.model;
        let mut data = Data::<Sx>::new(m);
        match nonlinear_effects(m, &mut data, q, v) {
            Ok(h) => h.iter().map(|x| -*x).collect(),
            Err(_) => Vec::new(),
        }
    }
    fn inverse_dynamics(&self, q: &[Sx], v: &[Sx], a: &[Sx]) -> Option<Vec<Sx>> {
        let m = &self.0.model;
        let mut data = Data::<Sx>::new(m);
        // An error (wrong sizes) leaves an empty result that `ClsModel` rejects by size.
        Some(rnea(m, &mut data, q, v, a).map_or_else(|_| Vec::new(), <[Sx]>::to_vec))
    }
    fn input_matrix(&self, _q: &[Sx]) -> Vec<Sx> {
        let nv = self.0.model.nv;
        let mut b = vec![Sx::constant(0.0); nv * self.0.actuated.len()];
        for (k, &i) in self.0.actuated.iter().enumerate() {
            b[i + nv * k] = Sx::constant(1.0);
        }
        b
    }
    fn gaps(&self, q: &[Sx]) -> Vec<Sx> {
        let r = &self.0;
        let mut data = Data::<Sx>::new(&r.model);
        if forward_kinematics(&r.model, &mut data, q).is_err() {
            return Vec::new();
        }
        r.contacts
            .iter()
            .map(|c| signed_distance(&r.model, &data, c))
            .collect()
    }
    fn normal_jacobian(&self, q: &[Sx]) -> Option<Vec<Sx>> {
        Some(self.jacobians(q).0)
    }
    fn tangent_jacobian(&self, q: &[Sx], contact: usize) -> Vec<Sx> {
        self.jacobians(q)
            .1
            .into_iter()
            .nth(contact)
            .unwrap_or_default()
    }
}

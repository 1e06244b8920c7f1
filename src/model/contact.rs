//! Contacts: a sphere (frame + local offset + radius; radius 0 is a point) against a surface,
//! with its signed distance `f_c(q)`, normal Jacobian `J_n(q)` (`J_nᵀ = ∇f_c`, geometric unit
//! normal) and tangent Jacobian `J_t(q)`, all generic over [`Scalar`].
//!
//! Surfaces: a horizontal ground plane `z = h`, a general plane `n·x = d`, another contact
//! sphere on the robot (for discs and balls), or a plane fixed to a link (a face of a pushed
//! box). Jacobians are rows over the generalized velocity
//! `v` (length `nv`): `ḟ_c = J_n v`. The tangent Jacobian gives the slip velocity of the contact
//! point (rotation of the sphere included, so rolling has zero slip); it has 1 row for planar
//! models (`planar_xz`: the in-plane tangent `e_y × n`; `planar_xy`: `e_z × n`) and 2
//! orthonormal rows in 3D. The friction coefficient `mu` and the restitution coefficient travel
//! with the contact for the FESD-J layer.

use super::data::Data;
use super::error::{check_len, ModelError};
use super::joint::subspace_column;
use super::kinematics::{frame_placement, point_velocity};
use super::spatial::{cross, dot, mv, scale, sub, v3_from, Motion, V3};
use super::structure::{Model, RootJoint};
use crate::ad::Scalar;
use serde::{Deserialize, Serialize};

/// `|x|` is taken as `√(x·x + ε)` for sphere–sphere distances so that the derivative exists when
/// the centres coincide.
const EPS_DIST2: f64 = 1e-300;

/// The surface a contact sphere touches (resolved against a model).
#[derive(Clone, Debug, PartialEq)]
pub enum Surface {
    /// The horizontal plane `z = height` (normal `+z`).
    Ground {
        /// Height of the plane.
        height: f64,
    },
    /// The plane `normal · x = offset` (unit normal, pointing to the free side).
    Plane {
        /// Unit normal.
        normal: [f64; 3],
        /// Offset along the normal.
        offset: f64,
    },
    /// Another sphere on the robot.
    Sphere {
        /// Frame carrying it.
        frame: usize,
        /// Centre in that frame.
        offset: [f64; 3],
        /// Radius.
        radius: f64,
    },
    /// A plane fixed to a frame of the robot (a face of a box the robot pushes): the points
    /// `x` of that frame with `normal · x = offset`, the free side where it is larger. The
    /// plane is unbounded: the face's edges are not modelled.
    BodyPlane {
        /// Frame carrying it.
        frame: usize,
        /// Unit normal in that frame.
        normal: [f64; 3],
        /// Offset along the normal, in that frame.
        offset: f64,
    },
}

/// A contact of a sphere on the robot with a [`Surface`].
#[derive(Clone, Debug, PartialEq)]
pub struct Contact {
    /// Name (for messages).
    pub name: String,
    /// Frame carrying the sphere.
    pub frame: usize,
    /// Centre of the sphere in that frame.
    pub offset: [f64; 3],
    /// Radius (0 for a point).
    pub radius: f64,
    /// What it touches.
    pub surface: Surface,
    /// Coulomb friction coefficient.
    pub mu: f64,
    /// Restitution coefficient in `[0, 1]`.
    pub restitution: f64,
    /// Number of tangent directions (1 for planar models, 2 otherwise).
    pub tangent_dim: usize,
}

/// A surface as written in a configuration file (frames by name).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SurfaceSpec {
    /// `ground: { height: h }`.
    Ground {
        /// Height of the plane.
        #[serde(default)]
        height: f64,
    },
    /// `plane: { normal: [..], offset: d }` (the normal is normalised).
    Plane {
        /// Normal (any length > 0).
        normal: [f64; 3],
        /// Offset: the plane is `n̂ · x = offset`.
        #[serde(default)]
        offset: f64,
    },
    /// `sphere: { frame: name, offset: [..], radius: r }`.
    Sphere {
        /// Frame name.
        frame: String,
        /// Centre in that frame.
        #[serde(default)]
        offset: [f64; 3],
        /// Radius.
        #[serde(default)]
        radius: f64,
    },
    /// `body_plane: { frame: name, normal: [..], offset: d }`: the plane `n̂ · x = d` in that
    /// frame's coordinates (the normal is normalised), e.g. a face of a pushed box.
    BodyPlane {
        /// Frame name.
        frame: String,
        /// Normal in that frame (any length > 0).
        normal: [f64; 3],
        /// Offset: the plane is `n̂ · x = offset` in that frame.
        #[serde(default)]
        offset: f64,
    },
}

/// `normal / |normal|`, or `None` unless it is a finite non-zero vector.
fn unit(normal: &[f64; 3]) -> Option<[f64; 3]> {
    let n = (normal[0].powi(2) + normal[1].powi(2) + normal[2].powi(2)).sqrt();
    (n.is_finite() && n > 1e-12).then(|| [normal[0] / n, normal[1] / n, normal[2] / n])
}

/// A unit normal (to 1e-9) and a finite offset.
fn plane_ok(normal: &[f64; 3], offset: f64) -> bool {
    let n = dot(normal, normal);
    (n - 1.0).abs() < 1e-9 && offset.is_finite()
}

/// A contact as written in a configuration file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactSpec {
    /// Name.
    pub name: String,
    /// Frame name.
    pub frame: String,
    /// Centre of the sphere in the frame.
    #[serde(default)]
    pub offset: [f64; 3],
    /// Radius.
    #[serde(default)]
    pub radius: f64,
    /// Surface.
    pub surface: SurfaceSpec,
    /// Friction coefficient.
    pub mu: f64,
    /// Restitution coefficient.
    #[serde(default)]
    pub restitution: f64,
}

impl ContactSpec {
    /// Resolve frame names and validate against `model`.
    pub fn resolve(&self, model: &Model) -> Result<Contact, ModelError> {
        let bad = |why: String| ModelError::InvalidContact {
            name: self.name.clone(),
            why,
        };
        let frame_of = |name: &str| model.frame_id(name).map_err(|e| bad(e.to_string()));
        let unit_normal = |n: &[f64; 3]| {
            unit(n).ok_or_else(|| bad("plane normal must be a finite non-zero vector".into()))
        };
        let frame = frame_of(&self.frame)?;
        let surface = match &self.surface {
            SurfaceSpec::Ground { height } => Surface::Ground { height: *height },
            SurfaceSpec::Plane { normal, offset } => Surface::Plane {
                normal: unit_normal(normal)?,
                offset: *offset,
            },
            SurfaceSpec::BodyPlane {
                frame,
                normal,
                offset,
            } => Surface::BodyPlane {
                frame: frame_of(frame)?,
                normal: unit_normal(normal)?,
                offset: *offset,
            },
            SurfaceSpec::Sphere {
                frame,
                offset,
                radius,
            } => Surface::Sphere {
                frame: frame_of(frame)?,
                offset: *offset,
                radius: *radius,
            },
        };
        Contact::new(
            model,
            &self.name,
            frame,
            self.offset,
            self.radius,
            surface,
            self.mu,
            self.restitution,
        )
    }
}

impl Contact {
    /// A validated contact (radius ≥ 0, μ ≥ 0, restitution in [0, 1], finite numbers, frames
    /// of `model`, unit plane normal).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        model: &Model,
        name: &str,
        frame: usize,
        offset: [f64; 3],
        radius: f64,
        surface: Surface,
        mu: f64,
        restitution: f64,
    ) -> Result<Contact, ModelError> {
        let bad = |why: &str| ModelError::InvalidContact {
            name: name.to_string(),
            why: why.to_string(),
        };
        if frame >= model.frames.len() {
            return Err(bad("unknown frame index"));
        }
        if !offset.iter().all(|x| x.is_finite()) {
            return Err(bad("offset must be finite"));
        }
        if !(radius >= 0.0 && radius.is_finite()) {
            return Err(bad("radius must be finite and >= 0"));
        }
        if !(mu >= 0.0 && mu.is_finite()) {
            return Err(bad("mu must be finite and >= 0"));
        }
        if !(0.0..=1.0).contains(&restitution) {
            return Err(bad("restitution must be in [0, 1]"));
        }
        match &surface {
            Surface::Ground { height } if !height.is_finite() => {
                return Err(bad("ground height must be finite"))
            }
            Surface::Plane { normal, offset } if !plane_ok(normal, *offset) => {
                return Err(bad("plane needs a unit normal and a finite offset"))
            }
            Surface::Sphere {
                frame: f2,
                offset: o2,
                radius: r2,
            } => {
                if *f2 >= model.frames.len() {
                    return Err(bad("unknown frame index of the other sphere"));
                }
                if !(o2.iter().all(|x| x.is_finite()) && *r2 >= 0.0 && r2.is_finite()) {
                    return Err(bad("other sphere needs a finite offset and radius >= 0"));
                }
            }
            Surface::BodyPlane {
                frame: f2,
                normal,
                offset,
            } => {
                if *f2 >= model.frames.len() {
                    return Err(bad("unknown frame index of the plane"));
                }
                if *f2 == frame {
                    return Err(bad("the plane is on the sphere's own frame"));
                }
                if !plane_ok(normal, *offset) {
                    return Err(bad("plane needs a unit normal and a finite offset"));
                }
            }
            _ => {}
        }
        let tangent_dim = match model.root {
            RootJoint::PlanarXz | RootJoint::PlanarXy => 1,
            _ => 2,
        };
        Ok(Contact {
            name: name.to_string(),
            frame,
            offset,
            radius,
            surface,
            mu,
            restitution,
            tangent_dim,
        })
    }
}

/// World position of a sphere centre (after [`forward_kinematics`](super::forward_kinematics)).
fn centre<S: Scalar>(model: &Model, data: &Data<S>, frame: usize, offset: &[f64; 3]) -> V3<S> {
    frame_placement(model, data, frame).act_point(&v3_from(offset))
}

/// World unit normal and signed distance of a contact.
fn normal_and_distance<S: Scalar>(model: &Model, data: &Data<S>, c: &Contact) -> (V3<S>, S) {
    let p = centre(model, data, c.frame, &c.offset);
    match &c.surface {
        Surface::Ground { height } => {
            let n = v3_from(&[0.0, 0.0, 1.0]);
            (n, p[2] - *height - c.radius)
        }
        Surface::Plane { normal, offset } => {
            let n = v3_from(normal);
            (n, dot(&n, &p) - *offset - c.radius)
        }
        Surface::Sphere {
            frame,
            offset,
            radius,
        } => {
            let p2 = centre(model, data, *frame, offset);
            let d = sub(&p, &p2);
            let len = (dot(&d, &d) + EPS_DIST2).sqrt();
            let n = scale(&d, S::one() / len);
            (n, len - c.radius - *radius)
        }
        Surface::BodyPlane {
            frame,
            normal,
            offset,
        } => {
            // The frame's placement maps its coordinates to the world: n = R n̂ and the
            // plane's world points x satisfy n · (x − o) = d, o the frame's origin.
            let x = frame_placement(model, data, *frame);
            let n = mv(&x.r, &v3_from(normal));
            (n, dot(&n, &sub(&p, &x.p)) - *offset - c.radius)
        }
    }
}

/// World position of a contact's point nearest its surface (the sphere's centre moved by its
/// radius against the normal) and the surface's world unit normal. Uses `o_m_i` from
/// [`forward_kinematics`](super::forward_kinematics).
pub fn contact_point_and_normal<S: Scalar>(
    model: &Model,
    data: &Data<S>,
    contact: &Contact,
) -> (V3<S>, V3<S>) {
    let (n, _) = normal_and_distance(model, data, contact);
    let p = centre(model, data, contact.frame, &contact.offset);
    let r = contact.radius;
    ([p[0] - n[0] * r, p[1] - n[1] * r, p[2] - n[2] * r], n)
}

/// Signed distance `f_c(q)` (positive when separated). Uses `o_m_i` from
/// [`forward_kinematics`](super::forward_kinematics).
pub fn signed_distance<S: Scalar>(model: &Model, data: &Data<S>, contact: &Contact) -> S {
    normal_and_distance(model, data, contact).1
}

/// Orthonormal tangents of a unit normal, branch-free (Duff et al. 2017, with `sign(0) = +1`).
fn tangents<S: Scalar>(n: &V3<S>) -> (V3<S>, V3<S>) {
    let sg = n[2].sign();
    let s = sg + (S::one() - sg.abs());
    let a = -(S::one() / (s + n[2]));
    let b = n[0] * n[1] * a;
    let t1 = [S::one() + s * n[0] * n[0] * a, s * b, -(s * n[0])];
    let t2 = [b, s + n[1] * n[1] * a, -n[1]];
    (t1, t2)
}

/// The tangent directions of a contact with world normal `n`.
fn tangent_dirs<S: Scalar>(model: &Model, n: &V3<S>) -> [V3<S>; 2] {
    match model.root {
        RootJoint::PlanarXz => [cross(&v3_from(&[0.0, 1.0, 0.0]), n), [S::zero(); 3]],
        RootJoint::PlanarXy => [cross(&v3_from(&[0.0, 0.0, 1.0]), n), [S::zero(); 3]],
        _ => {
            let (a, b) = tangents(n);
            [a, b]
        }
    }
}

/// Signed distance, normal Jacobian and tangent Jacobian of a contact.
///
/// `jn` (length `nv`) receives `J_n`, `jt` (length `tangent_dim · nv`, row-major) receives
/// `J_t`. Returns `f_c(q)`. Uses `o_m_i` from [`forward_kinematics`](super::forward_kinematics).
pub fn contact_jacobians<S: Scalar>(
    model: &Model,
    data: &Data<S>,
    contact: &Contact,
    jn: &mut [S],
    jt: &mut [S],
) -> Result<S, ModelError> {
    let nv = model.nv;
    check_len("jn", jn.len(), nv)?;
    check_len("jt", jt.len(), contact.tangent_dim * nv)?;
    jn.iter_mut().for_each(|x| *x = S::zero());
    jt.iter_mut().for_each(|x| *x = S::zero());
    let (n, dist) = normal_and_distance(model, data, contact);
    let t = tangent_dirs(model, &n);
    // Lever arms from the centre to the contact point, as (−r n): slip = ṗ + ω × (−r n).
    let p1 = centre(model, data, contact.frame, &contact.offset);
    let arm1 = scale(&n, S::from_f64(-contact.radius));
    accumulate(
        model,
        data,
        contact.frame,
        &p1,
        &arm1,
        &n,
        &t,
        contact.tangent_dim,
        S::one(),
        jn,
        jt,
    );
    match &contact.surface {
        Surface::Sphere {
            frame,
            offset,
            radius,
        } => {
            let p2 = centre(model, data, *frame, offset);
            let arm2 = scale(&n, S::from_f64(*radius));
            accumulate(
                model,
                data,
                *frame,
                &p2,
                &arm2,
                &n,
                &t,
                contact.tangent_dim,
                -S::one(),
                jn,
                jt,
            );
        }
        // ∇f_c = n · (ṗ − v₂(p)) with v₂(p) the velocity of the plane's frame at the sphere's
        // centre (the plane's rotation moves n, which adds n·(ω₂ × (p − o)) − exactly the
        // difference between v₂(p) and v₂(o)); the slip is taken at the same contact point.
        Surface::BodyPlane { frame, .. } => accumulate(
            model,
            data,
            *frame,
            &p1,
            &arm1,
            &n,
            &t,
            contact.tangent_dim,
            -S::one(),
            jn,
            jt,
        ),
        Surface::Ground { .. } | Surface::Plane { .. } => {}
    }
    Ok(dist)
}

/// Add `sign ×` the normal and tangent rows of the point `p + arm` moving with `frame` (normal
/// rows use the centre `p`, tangent rows the contact point).
#[allow(clippy::too_many_arguments)]
fn accumulate<S: Scalar>(
    model: &Model,
    data: &Data<S>,
    frame: usize,
    p: &V3<S>,
    arm: &V3<S>,
    n: &V3<S>,
    t: &[V3<S>; 2],
    tangent_dim: usize,
    sign: S,
    jn: &mut [S],
    jt: &mut [S],
) {
    let nv = model.nv;
    let Some(parent) = model.frames[frame].parent_joint else {
        return;
    };
    for &j in model.support(parent) {
        let joint = &model.joints[j];
        for k in 0..joint.nv {
            let col = joint.idx_v + k;
            let m: Motion<S> = data.o_m_i[j].act_motion(&subspace_column(&joint.motion, k));
            let vc = point_velocity(&m, p);
            jn[col] += dot(n, &vc) * sign;
            let slip = [
                vc[0] + (m.w[1] * arm[2] - m.w[2] * arm[1]),
                vc[1] + (m.w[2] * arm[0] - m.w[0] * arm[2]),
                vc[2] + (m.w[0] * arm[1] - m.w[1] * arm[0]),
            ];
            for (r, tr) in t.iter().enumerate().take(tangent_dim) {
                jt[r * nv + col] += dot(tr, &slip) * sign;
            }
        }
    }
}

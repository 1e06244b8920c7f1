//! Centre of mass, total mass and mechanical energy.

use super::data::Data;
use super::error::ModelError;
use super::kinematics::forward_kinematics;
use super::spatial::{add, dot, mv, scale, v3_from, v3_zero, V3};
use super::structure::Model;
use crate::ad::Scalar;

/// Total mass of the moving bodies (Pinocchio's `computeTotalMass`; for a fixed base the root
/// link is not moving and is not counted).
pub fn total_mass(model: &Model) -> f64 {
    model.joints.iter().map(|j| j.inertia.m).sum()
}

/// Total mass including the bodies fixed to the world (the fixed-base root link).
pub fn total_mass_with_world(model: &Model) -> f64 {
    total_mass(model) + model.world_inertia.m
}

/// Centre of mass of the moving bodies in the world frame at `q`, written to `data.com`
/// (runs [`forward_kinematics`]).
pub fn center_of_mass<S: Scalar>(
    model: &Model,
    data: &mut Data<S>,
    q: &[S],
) -> Result<V3<S>, ModelError> {
    forward_kinematics(model, data, q)?;
    let mut first: V3<S> = v3_zero();
    for i in 0..model.joints.len() {
        let x = &data.o_m_i[i];
        let inertia = &data.inertias[i];
        // World first moment: R h + m p.
        let h = add(&mv(&x.r, &inertia.h), &scale(&x.p, inertia.m));
        first = add(&first, &h);
    }
    let com = scale(&first, S::from_f64(1.0 / total_mass(model)));
    data.com = com;
    Ok(com)
}

/// Kinetic energy `½ vᵀ M(q) v` from the body twists (runs the velocity pass of `rnea`
/// through [`nonlinear_effects`](super::nonlinear_effects)).
pub fn kinetic_energy<S: Scalar>(
    model: &Model,
    data: &mut Data<S>,
    q: &[S],
    v: &[S],
) -> Result<S, ModelError> {
    super::dynamics::nonlinear_effects(model, data, q, v)?;
    let mut t = S::zero();
    for i in 0..model.joints.len() {
        let vi = data.v[i];
        t += vi.dot_force(&data.inertias[i].mul_motion(&vi));
    }
    Ok(t * 0.5)
}

/// Potential energy of gravity `−Σ mᵢ g·cᵢ` of the moving bodies (zero at the world origin).
pub fn potential_energy<S: Scalar>(
    model: &Model,
    data: &mut Data<S>,
    q: &[S],
) -> Result<S, ModelError> {
    let com = center_of_mass(model, data, q)?;
    let g: V3<S> = v3_from(&model.gravity);
    Ok(-dot(&g, &com) * total_mass(model))
}

//! Forward kinematics, frame placements and frame Jacobians.

use super::data::Data;
use super::error::{check_len, ModelError};
use super::joint::{joint_placement, subspace_column};
use super::spatial::{add, cross, mtv, Motion, Se3, V3};
use super::structure::Model;
use crate::ad::Scalar;

/// The frame in which a Jacobian's rows are expressed (Pinocchio's `ReferenceFrame`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReferenceFrame {
    /// Twist of the frame expressed in the frame itself.
    Local,
    /// Spatial twist in the world frame (linear part: velocity of the point at the world origin).
    World,
    /// Linear velocity of the frame origin and angular velocity, both in world axes.
    LocalWorldAligned,
}

/// Compute the joint placements `li_m_i` and `o_m_i` at configuration `q` (length `nq`).
pub fn forward_kinematics<S: Scalar>(
    model: &Model,
    data: &mut Data<S>,
    q: &[S],
) -> Result<(), ModelError> {
    check_len("q", q.len(), model.nq)?;
    for (i, j) in model.joints.iter().enumerate() {
        let m = joint_placement(&j.motion, &data.placements[i], &q[j.idx_q..j.idx_q + j.nq]);
        data.li_m_i[i] = m;
        data.o_m_i[i] = match j.parent {
            Some(p) => data.o_m_i[p].compose(&m),
            None => m,
        };
    }
    Ok(())
}

/// Update `o_m_f` (world placement of every frame) from `o_m_i`; call after
/// [`forward_kinematics`].
pub fn update_frame_placements<S: Scalar>(model: &Model, data: &mut Data<S>) {
    for (k, f) in model.frames.iter().enumerate() {
        data.o_m_f[k] = match f.parent_joint {
            Some(j) => data.o_m_i[j].compose(&data.frame_placements[k]),
            None => data.frame_placements[k],
        };
    }
}

/// World placement of frame `frame` from `o_m_i` (after [`forward_kinematics`]).
pub fn frame_placement<S: Scalar>(model: &Model, data: &Data<S>, frame: usize) -> Se3<S> {
    match model.frames[frame].parent_joint {
        Some(j) => data.o_m_i[j].compose(&data.frame_placements[frame]),
        None => data.frame_placements[frame],
    }
}

/// Velocity of the world-fixed point `p` (world coordinates) carried by the spatial twist `m`
/// given in world coordinates.
#[inline(always)]
pub(crate) fn point_velocity<S: Scalar>(m: &Motion<S>, p: &V3<S>) -> V3<S> {
    add(&m.v, &cross(&m.w, p))
}

/// The 6 × nv Jacobian of frame `frame` (rows: linear then angular), written row-major into
/// `out` (length `6 nv`), so that `[v; ω] = J q̇`-style products give the frame's twist in the
/// chosen [`ReferenceFrame`]. Uses `o_m_i` from [`forward_kinematics`].
pub fn frame_jacobian<S: Scalar>(
    model: &Model,
    data: &Data<S>,
    frame: usize,
    reference: ReferenceFrame,
    out: &mut [S],
) -> Result<(), ModelError> {
    let nv = model.nv;
    check_len("jacobian", out.len(), 6 * nv)?;
    if frame >= model.frames.len() {
        return Err(ModelError::UnknownName {
            kind: "frame",
            name: format!("#{frame}"),
        });
    }
    out.iter_mut().for_each(|x| *x = S::zero());
    let Some(parent) = model.frames[frame].parent_joint else {
        return Ok(());
    };
    let omf = frame_placement(model, data, frame);
    for &j in model.support(parent) {
        let joint = &model.joints[j];
        for k in 0..joint.nv {
            let col = joint.idx_v + k;
            let s = subspace_column::<S>(&joint.motion, k);
            let m = data.o_m_i[j].act_motion(&s);
            let (lin, ang) = match reference {
                ReferenceFrame::World => (m.v, m.w),
                ReferenceFrame::LocalWorldAligned => (point_velocity(&m, &omf.p), m.w),
                ReferenceFrame::Local => {
                    let lin = point_velocity(&m, &omf.p);
                    (mtv(&omf.r, &lin), mtv(&omf.r, &m.w))
                }
            };
            for r in 0..3 {
                out[r * nv + col] = lin[r];
                out[(r + 3) * nv + col] = ang[r];
            }
        }
    }
    Ok(())
}

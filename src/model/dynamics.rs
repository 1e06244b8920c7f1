//! Inverse dynamics (RNEA) and the joint-space mass matrix (CRBA), in local joint frames.

use super::data::Data;
use super::error::{check_len, ModelError};
use super::joint::{joint_placement, motion_of, project_force, subspace_column};
use super::spatial::{Force, Motion};
use super::structure::Model;
use crate::ad::Scalar;

/// Which velocity/acceleration terms the RNEA passes include.
#[derive(Clone, Copy)]
enum Terms {
    All,
    NoAcceleration,
    GravityOnly,
}

fn rnea_impl<S: Scalar>(
    model: &Model,
    data: &mut Data<S>,
    q: &[S],
    v: &[S],
    a: &[S],
    terms: Terms,
) -> Result<(), ModelError> {
    check_len("q", q.len(), model.nq)?;
    if !matches!(terms, Terms::GravityOnly) {
        check_len("v", v.len(), model.nv)?;
    }
    if matches!(terms, Terms::All) {
        check_len("a", a.len(), model.nv)?;
    }
    for (i, j) in model.joints.iter().enumerate() {
        let m = joint_placement(&j.motion, &data.placements[i], &q[j.idx_q..j.idx_q + j.nq]);
        data.li_m_i[i] = m;
        let (v_parent, a_parent) = match j.parent {
            Some(p) => (data.v[p], data.a[p]),
            None => (Motion::zero(), data.a_world),
        };
        let vi;
        let mut ai = m.act_inv_motion(&a_parent);
        match terms {
            Terms::GravityOnly => vi = Motion::zero(),
            _ => {
                let vj = motion_of(&j.motion, &v[j.idx_v..j.idx_v + j.nv]);
                vi = m.act_inv_motion(&v_parent).add(&vj);
                ai = ai.add(&vi.cross_motion(&vj));
                if matches!(terms, Terms::All) {
                    ai = ai.add(&motion_of(&j.motion, &a[j.idx_v..j.idx_v + j.nv]));
                }
            }
        }
        data.v[i] = vi;
        data.a[i] = ai;
        let inertia = &data.inertias[i];
        let mut f = inertia.mul_motion(&ai);
        if !matches!(terms, Terms::GravityOnly) {
            f = f.add(&vi.cross_force(&inertia.mul_motion(&vi)));
        }
        data.f[i] = f;
    }
    for i in (0..model.joints.len()).rev() {
        let j = &model.joints[i];
        let f = data.f[i];
        for k in 0..j.nv {
            data.tau[j.idx_v + k] = project_force(&j.motion, &f, k);
        }
        if let Some(p) = j.parent {
            let fp = data.li_m_i[i].act_force(&f);
            data.f[p] = data.f[p].add(&fp);
        }
    }
    Ok(())
}

/// Inverse dynamics `τ = M(q) a + h(q, v)` (recursive Newton–Euler), written to `data.tau`.
/// Updates `li_m_i`, `v`, `a` (including the gravity offset), `f`.
pub fn rnea<'d, S: Scalar>(
    model: &Model,
    data: &'d mut Data<S>,
    q: &[S],
    v: &[S],
    a: &[S],
) -> Result<&'d [S], ModelError> {
    rnea_impl(model, data, q, v, a, Terms::All)?;
    Ok(&data.tau)
}

/// Coriolis, centrifugal and gravity terms `h(q, v) = rnea(q, v, 0)`, written to `data.tau`.
pub fn nonlinear_effects<'d, S: Scalar>(
    model: &Model,
    data: &'d mut Data<S>,
    q: &[S],
    v: &[S],
) -> Result<&'d [S], ModelError> {
    rnea_impl(model, data, q, v, &[], Terms::NoAcceleration)?;
    Ok(&data.tau)
}

/// Generalized gravity `g(q) = rnea(q, 0, 0)`, written to `data.tau`.
pub fn gravity<'d, S: Scalar>(
    model: &Model,
    data: &'d mut Data<S>,
    q: &[S],
) -> Result<&'d [S], ModelError> {
    rnea_impl(model, data, q, &[], &[], Terms::GravityOnly)?;
    Ok(&data.tau)
}

/// The joint-space mass matrix `M(q)` (composite rigid-body algorithm), written to `data.m`
/// (full symmetric, row-major `nv × nv`). Updates `li_m_i`. Entries between joints on
/// different branches are never written: they keep the zeros of [`Data::new`].
pub fn crba<'d, S: Scalar>(
    model: &Model,
    data: &'d mut Data<S>,
    q: &[S],
) -> Result<&'d [S], ModelError> {
    check_len("q", q.len(), model.nq)?;
    let nv = model.nv;
    for (i, j) in model.joints.iter().enumerate() {
        data.li_m_i[i] =
            joint_placement(&j.motion, &data.placements[i], &q[j.idx_q..j.idx_q + j.nq]);
        data.ycrb[i] = data.inertias[i];
    }
    for i in (0..model.joints.len()).rev() {
        let joint = &model.joints[i];
        let y = data.ycrb[i];
        let mut cols = [Force::zero(); 6];
        for (k, col) in cols.iter_mut().enumerate().take(joint.nv) {
            *col = y.mul_motion(&subspace_column(&joint.motion, k));
        }
        let cols = &mut cols[..joint.nv];
        // Diagonal block.
        for (k, col) in cols.iter().enumerate() {
            for r in k..joint.nv {
                let val = project_force(&joint.motion, col, r);
                let (a, b) = (joint.idx_v + r, joint.idx_v + k);
                data.m[a * nv + b] = val;
                data.m[b * nv + a] = val;
            }
        }
        // Off-diagonal blocks with every ancestor.
        let mut cur = i;
        while let Some(p) = model.joints[cur].parent {
            let x = data.li_m_i[cur];
            let pj = &model.joints[p];
            for (k, col) in cols.iter_mut().enumerate() {
                *col = x.act_force(col);
                for r in 0..pj.nv {
                    let val = project_force(&pj.motion, col, r);
                    let (row, c) = (pj.idx_v + r, joint.idx_v + k);
                    data.m[row * nv + c] = val;
                    data.m[c * nv + row] = val;
                }
            }
            cur = p;
        }
        if let Some(p) = joint.parent {
            let yp = y.transform(&data.li_m_i[i]);
            data.ycrb[p] = data.ycrb[p].add(&yp);
        }
    }
    Ok(&data.m)
}

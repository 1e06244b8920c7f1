//! Forward dynamics by the articulated-body algorithm (Featherstone), in local joint frames.

// Small fixed-size linear algebra reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use super::data::Data;
use super::error::{check_len, ModelError};
use super::joint::{
    dot_motion_force, joint_placement, mat6_times_subspace, motion_of, project_force,
};
use super::spatial::{Force, Mat6, Motion};
use super::structure::{JointMotion, Model};
use crate::ad::Scalar;

/// Forward dynamics `q̈ = M(q)⁻¹ (τ − h(q, v))`, written to `data.ddq`.
/// Updates `li_m_i`, `v`, `a` (with the gravity offset).
///
/// Branch-free and division-safe as long as every articulated inertia `Sᵀ IA S` is positive
/// (a model whose leaf bodies are all massless, or `floating_zyx` at pitch ±90°, is singular).
pub fn aba<'d, S: Scalar>(
    model: &Model,
    data: &'d mut Data<S>,
    q: &[S],
    v: &[S],
    tau: &[S],
) -> Result<&'d [S], ModelError> {
    check_len("q", q.len(), model.nq)?;
    check_len("v", v.len(), model.nv)?;
    check_len("tau", tau.len(), model.nv)?;
    // Pass 1: kinematics, bias forces, rigid inertias.
    for (i, j) in model.joints.iter().enumerate() {
        let m = joint_placement(&j.motion, &data.placements[i], &q[j.idx_q..j.idx_q + j.nq]);
        data.li_m_i[i] = m;
        let vj = motion_of(&j.motion, &v[j.idx_v..j.idx_v + j.nv]);
        let vi = match j.parent {
            Some(p) => m.act_inv_motion(&data.v[p]).add(&vj),
            None => vj,
        };
        data.v[i] = vi;
        data.c[i] = vi.cross_motion(&vj);
        let inertia = &data.inertias[i];
        data.ia[i] = inertia.to_mat6();
        data.pa[i] = vi.cross_force(&inertia.mul_motion(&vi));
    }
    // Pass 2: articulated inertias, leaves to root.
    for i in (0..model.joints.len()).rev() {
        let j = &model.joints[i];
        if matches!(j.motion, JointMotion::FreeFlyer) {
            // The free-flyer is always the root: factor its 6×6 IA, nothing to propagate.
            data.ff_ldl = ldl6(&data.ia[i]);
            let pa = data.pa[i].to_array();
            for k in 0..6 {
                data.u_val[j.idx_v + k] = tau[j.idx_v + k] - pa[k];
            }
            continue;
        }
        let k = j.idx_v;
        let u = mat6_times_subspace(&j.motion, &data.ia[i], 0);
        let d = project_force(&j.motion, &u, 0);
        let dinv = S::one() / d;
        let uu = tau[k] - project_force(&j.motion, &data.pa[i], 0);
        data.u_col[k] = u;
        data.dinv[k] = dinv;
        data.u_val[k] = uu;
        if let Some(p) = j.parent {
            let mut ia = data.ia[i];
            ia.sub_outer(&u, dinv);
            let coef = uu * dinv;
            let ic = ia.mul_motion(&data.c[i]);
            let pa = Force {
                f: [
                    data.pa[i].f[0] + ic.f[0] + u.f[0] * coef,
                    data.pa[i].f[1] + ic.f[1] + u.f[1] * coef,
                    data.pa[i].f[2] + ic.f[2] + u.f[2] * coef,
                ],
                n: [
                    data.pa[i].n[0] + ic.n[0] + u.n[0] * coef,
                    data.pa[i].n[1] + ic.n[1] + u.n[1] * coef,
                    data.pa[i].n[2] + ic.n[2] + u.n[2] * coef,
                ],
            };
            let x = data.li_m_i[i];
            let iap = ia.transform(&x);
            data.ia[p].add_assign(&iap);
            let pap = x.act_force(&pa);
            data.pa[p] = data.pa[p].add(&pap);
        }
    }
    // Pass 3: accelerations, root to leaves.
    for (i, j) in model.joints.iter().enumerate() {
        let a_parent = match j.parent {
            Some(p) => data.a[p],
            None => data.a_world,
        };
        let ap = data.li_m_i[i].act_inv_motion(&a_parent).add(&data.c[i]);
        if matches!(j.motion, JointMotion::FreeFlyer) {
            // q̈ = IA⁻¹ u − a', so that the body acceleration is IA⁻¹ u.
            let mut x = [S::zero(); 6];
            x.copy_from_slice(&data.u_val[j.idx_v..j.idx_v + 6]);
            ldl6_solve(&data.ff_ldl, &mut x);
            let apa = ap.to_array();
            for k in 0..6 {
                data.ddq[j.idx_v + k] = x[k] - apa[k];
            }
            data.a[i] = Motion::from_array(&x);
            continue;
        }
        let k = j.idx_v;
        let qdd = (data.u_val[k] - dot_motion_force(&ap, &data.u_col[k])) * data.dinv[k];
        data.ddq[k] = qdd;
        data.a[i] = ap.add(&motion_of(&j.motion, &[qdd]));
    }
    Ok(&data.ddq)
}

/// LDLᵀ factorisation (no pivoting) of a symmetric positive-definite 6×6 matrix.
fn ldl6<S: Scalar>(m: &Mat6<S>) -> [[S; 6]; 6] {
    let mut a = [[S::zero(); 6]; 6];
    for (r, row) in a.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = m.get(r, c);
        }
    }
    // In place: a[j][j] = D_j, a[i][j] (i > j) = L_ij.
    for j in 0..6 {
        let mut d = a[j][j];
        for k in 0..j {
            d -= a[j][k] * a[j][k] * a[k][k];
        }
        a[j][j] = d;
        let dinv = S::one() / d;
        for i in j + 1..6 {
            let mut s = a[i][j];
            for k in 0..j {
                s -= a[i][k] * a[j][k] * a[k][k];
            }
            a[i][j] = s * dinv;
        }
    }
    a
}

/// Solve `A x = b` in place with the factors of [`ldl6`].
fn ldl6_solve<S: Scalar>(l: &[[S; 6]; 6], x: &mut [S; 6]) {
    for i in 0..6 {
        for k in 0..i {
            let t = l[i][k] * x[k];
            x[i] -= t;
        }
    }
    for (i, xi) in x.iter_mut().enumerate() {
        *xi /= l[i][i];
    }
    for i in (0..6).rev() {
        for k in i + 1..6 {
            let t = l[k][i] * x[k];
            x[i] -= t;
        }
    }
}

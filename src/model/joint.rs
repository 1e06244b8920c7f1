//! Joint kinematics: transforms `M_J(q)`, motion subspaces `S`, and the products with `S` that
//! the algorithms need, specialised for coordinate axes.

use super::spatial::{dot, mv, quat_to_matrix, scale, Force, Mat6, Motion, Se3, V3};
use super::structure::{Axis, JointMotion};
use crate::ad::Scalar;

/// `placement · M_J(q)`: the parent-to-joint transform of joint with motion `motion` at the
/// configuration coordinates `q` (one value, or seven for the free-flyer).
#[inline(always)]
pub fn joint_placement<S: Scalar>(motion: &JointMotion, placement: &Se3<S>, q: &[S]) -> Se3<S> {
    match motion {
        JointMotion::Revolute(axis) => {
            let (s, c) = (q[0].sin(), q[0].cos());
            rotate_about(placement, axis, s, c)
        }
        JointMotion::Prismatic(axis) => {
            let t = q[0];
            let d: V3<S> = match axis {
                Axis::X => [
                    placement.r[0][0] * t,
                    placement.r[1][0] * t,
                    placement.r[2][0] * t,
                ],
                Axis::Y => [
                    placement.r[0][1] * t,
                    placement.r[1][1] * t,
                    placement.r[2][1] * t,
                ],
                Axis::Z => [
                    placement.r[0][2] * t,
                    placement.r[1][2] * t,
                    placement.r[2][2] * t,
                ],
                Axis::Unaligned(u) => {
                    let us = [S::from_f64(u[0]), S::from_f64(u[1]), S::from_f64(u[2])];
                    scale(&mv(&placement.r, &us), t)
                }
            };
            Se3 {
                r: placement.r,
                p: [
                    placement.p[0] + d[0],
                    placement.p[1] + d[1],
                    placement.p[2] + d[2],
                ],
            }
        }
        JointMotion::FreeFlyer => {
            let m = Se3 {
                r: quat_to_matrix(q[3], q[4], q[5], q[6]),
                p: [q[0], q[1], q[2]],
            };
            placement.compose(&m)
        }
    }
}

/// `x · Rot(axis, θ)` given `sin θ`, `cos θ`.
#[inline(always)]
fn rotate_about<S: Scalar>(x: &Se3<S>, axis: &Axis, s: S, c: S) -> Se3<S> {
    let r = &x.r;
    // Columns (i, j) mix: col_i' = c col_i + s col_j, col_j' = −s col_i + c col_j.
    let mix = |i: usize, j: usize| {
        let mut out = *r;
        for k in 0..3 {
            out[k][i] = r[k][i] * c + r[k][j] * s;
            out[k][j] = r[k][j] * c - r[k][i] * s;
        }
        out
    };
    let rr = match axis {
        Axis::X => mix(1, 2),
        Axis::Y => mix(2, 0),
        Axis::Z => mix(0, 1),
        Axis::Unaligned(u) => {
            // Rodrigues: R = c I + s [u]× + (1 − c) u uᵀ.
            let omc = S::one() - c;
            let u = [S::from_f64(u[0]), S::from_f64(u[1]), S::from_f64(u[2])];
            let rot = [
                [
                    c + u[0] * u[0] * omc,
                    u[0] * u[1] * omc - u[2] * s,
                    u[0] * u[2] * omc + u[1] * s,
                ],
                [
                    u[1] * u[0] * omc + u[2] * s,
                    c + u[1] * u[1] * omc,
                    u[1] * u[2] * omc - u[0] * s,
                ],
                [
                    u[2] * u[0] * omc - u[1] * s,
                    u[2] * u[1] * omc + u[0] * s,
                    c + u[2] * u[2] * omc,
                ],
            ];
            super::spatial::mm(r, &rot)
        }
    };
    Se3 { r: rr, p: x.p }
}

/// `S · x`: the joint twist for velocity coordinates `x` (length nv of the joint).
#[inline(always)]
pub fn motion_of<S: Scalar>(motion: &JointMotion, x: &[S]) -> Motion<S> {
    let z = S::zero();
    match motion {
        JointMotion::Revolute(axis) => Motion {
            v: [z, z, z],
            w: axis_times(axis, x[0]),
        },
        JointMotion::Prismatic(axis) => Motion {
            v: axis_times(axis, x[0]),
            w: [z, z, z],
        },
        JointMotion::FreeFlyer => Motion {
            v: [x[0], x[1], x[2]],
            w: [x[3], x[4], x[5]],
        },
    }
}

#[inline(always)]
fn axis_times<S: Scalar>(axis: &Axis, t: S) -> V3<S> {
    let z = S::zero();
    match axis {
        Axis::X => [t, z, z],
        Axis::Y => [z, t, z],
        Axis::Z => [z, z, t],
        Axis::Unaligned(u) => [t * u[0], t * u[1], t * u[2]],
    }
}

#[inline(always)]
fn axis_dot<S: Scalar>(axis: &Axis, x: &V3<S>) -> S {
    match axis {
        Axis::X => x[0],
        Axis::Y => x[1],
        Axis::Z => x[2],
        Axis::Unaligned(u) => x[0] * u[0] + x[1] * u[1] + x[2] * u[2],
    }
}

/// Column `k` of the motion subspace as a spatial motion.
#[inline(always)]
pub fn subspace_column<S: Scalar>(motion: &JointMotion, k: usize) -> Motion<S> {
    let z = S::zero();
    match motion {
        JointMotion::Revolute(axis) => Motion {
            v: [z, z, z],
            w: axis_times(axis, S::one()),
        },
        JointMotion::Prismatic(axis) => Motion {
            v: axis_times(axis, S::one()),
            w: [z, z, z],
        },
        JointMotion::FreeFlyer => {
            let mut a = [z; 6];
            a[k] = S::one();
            Motion::from_array(&a)
        }
    }
}

/// `Sᵀ f` for a one-coordinate joint (for the free-flyer: component `k` of `f`).
#[inline(always)]
pub fn project_force<S: Scalar>(motion: &JointMotion, f: &Force<S>, k: usize) -> S {
    match motion {
        JointMotion::Revolute(axis) => axis_dot(axis, &f.n),
        JointMotion::Prismatic(axis) => axis_dot(axis, &f.f),
        JointMotion::FreeFlyer => f.to_array()[k],
    }
}

/// `Y S` for a one-coordinate joint, or column `k` of `Y` for the free-flyer.
#[inline(always)]
pub fn mat6_times_subspace<S: Scalar>(motion: &JointMotion, y: &Mat6<S>, k: usize) -> Force<S> {
    let col = |c: usize| Force {
        f: [y.get(0, c), y.get(1, c), y.get(2, c)],
        n: [y.get(3, c), y.get(4, c), y.get(5, c)],
    };
    match motion {
        JointMotion::Revolute(Axis::X) => col(3),
        JointMotion::Revolute(Axis::Y) => col(4),
        JointMotion::Revolute(Axis::Z) => col(5),
        JointMotion::Prismatic(Axis::X) => col(0),
        JointMotion::Prismatic(Axis::Y) => col(1),
        JointMotion::Prismatic(Axis::Z) => col(2),
        JointMotion::FreeFlyer => col(k),
        m => y.mul_motion(&subspace_column(m, 0)),
    }
}

/// `Sᵀ v` pairing for a motion (used for `Uᵀ a` style products the other way round).
#[inline(always)]
pub fn dot_motion_force<S: Scalar>(m: &Motion<S>, f: &Force<S>) -> S {
    dot(&m.v, &f.f) + dot(&m.w, &f.n)
}

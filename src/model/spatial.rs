//! Small fixed-size spatial algebra over any [`Scalar`]: 3-vectors, 3×3 matrices, rigid
//! transforms, spatial motions and forces, rigid-body and articulated-body inertias.
//!
//! Conventions (Pinocchio's): spatial vectors are `[linear; angular]`. A transform `aMb` =
//! [`Se3`] `{ r, p }` maps coordinates in frame `b` to frame `a`: `x_a = r x_b + p`; `r` is
//! row-major (`r[i][j]`), its columns are the axes of `b` in `a`, `p` is the origin of `b` in
//! `a`. Everything is plain `Copy` data on the stack: no allocation, no branching on values.
//! Exact zeros cost nothing symbolically because [`Sx`](crate::ad::Sx) folds `x·0` and `x+0`.

// Small fixed-size linear algebra reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use crate::ad::Scalar;

pub use super::inertia::{Mat6, RigidInertia};

/// A 3-vector.
pub type V3<S> = [S; 3];
/// A 3×3 matrix, row-major.
pub type M3<S> = [[S; 3]; 3];

/// `[0, 0, 0]`.
#[inline(always)]
pub fn v3_zero<S: Scalar>() -> V3<S> {
    [S::zero(); 3]
}

/// Convert an `f64` vector to `S`.
#[inline(always)]
pub fn v3_from<S: Scalar>(a: &[f64; 3]) -> V3<S> {
    [S::from_f64(a[0]), S::from_f64(a[1]), S::from_f64(a[2])]
}

/// `a + b`.
#[inline(always)]
pub fn add<S: Scalar>(a: &V3<S>, b: &V3<S>) -> V3<S> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a - b`.
#[inline(always)]
pub fn sub<S: Scalar>(a: &V3<S>, b: &V3<S>) -> V3<S> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `s a`.
#[inline(always)]
pub fn scale<S: Scalar>(a: &V3<S>, s: S) -> V3<S> {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// `-a`.
#[inline(always)]
pub fn neg<S: Scalar>(a: &V3<S>) -> V3<S> {
    [-a[0], -a[1], -a[2]]
}

/// `a · b`.
#[inline(always)]
pub fn dot<S: Scalar>(a: &V3<S>, b: &V3<S>) -> S {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`.
#[inline(always)]
pub fn cross<S: Scalar>(a: &V3<S>, b: &V3<S>) -> V3<S> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The identity matrix.
#[inline(always)]
pub fn m3_identity<S: Scalar>() -> M3<S> {
    let (o, z) = (S::one(), S::zero());
    [[o, z, z], [z, o, z], [z, z, o]]
}

/// The zero matrix.
#[inline(always)]
pub fn m3_zero<S: Scalar>() -> M3<S> {
    [[S::zero(); 3]; 3]
}

/// Convert an `f64` matrix to `S`.
#[inline(always)]
pub fn m3_from<S: Scalar>(a: &[[f64; 3]; 3]) -> M3<S> {
    [v3_from(&a[0]), v3_from(&a[1]), v3_from(&a[2])]
}

/// `m x`.
#[inline(always)]
pub fn mv<S: Scalar>(m: &M3<S>, x: &V3<S>) -> V3<S> {
    [dot(&m[0], x), dot(&m[1], x), dot(&m[2], x)]
}

/// `mᵀ x`.
#[inline(always)]
pub fn mtv<S: Scalar>(m: &M3<S>, x: &V3<S>) -> V3<S> {
    [
        m[0][0] * x[0] + m[1][0] * x[1] + m[2][0] * x[2],
        m[0][1] * x[0] + m[1][1] * x[1] + m[2][1] * x[2],
        m[0][2] * x[0] + m[1][2] * x[1] + m[2][2] * x[2],
    ]
}

/// `a b`.
#[inline(always)]
pub fn mm<S: Scalar>(a: &M3<S>, b: &M3<S>) -> M3<S> {
    let mut out = m3_zero();
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
    out
}

/// `aᵀ b`.
#[inline(always)]
pub fn mtm<S: Scalar>(a: &M3<S>, b: &M3<S>) -> M3<S> {
    let mut out = m3_zero();
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] = a[0][i] * b[0][j] + a[1][i] * b[1][j] + a[2][i] * b[2][j];
        }
    }
    out
}

/// `a bᵀ`.
#[inline(always)]
pub fn mmt<S: Scalar>(a: &M3<S>, b: &M3<S>) -> M3<S> {
    let mut out = m3_zero();
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] = dot(&a[i], &b[j]);
        }
    }
    out
}

/// `mᵀ`.
#[inline(always)]
pub fn transpose<S: Scalar>(m: &M3<S>) -> M3<S> {
    [
        [m[0][0], m[1][0], m[2][0]],
        [m[0][1], m[1][1], m[2][1]],
        [m[0][2], m[1][2], m[2][2]],
    ]
}

/// `a + b`.
#[inline(always)]
pub fn madd<S: Scalar>(a: &M3<S>, b: &M3<S>) -> M3<S> {
    [add(&a[0], &b[0]), add(&a[1], &b[1]), add(&a[2], &b[2])]
}

/// `a - b`.
#[inline(always)]
pub fn msub<S: Scalar>(a: &M3<S>, b: &M3<S>) -> M3<S> {
    [sub(&a[0], &b[0]), sub(&a[1], &b[1]), sub(&a[2], &b[2])]
}

/// The cross-product matrix `[a]×` (so that `[a]× b = a × b`).
#[inline(always)]
pub fn skew<S: Scalar>(a: &V3<S>) -> M3<S> {
    let z = S::zero();
    [[z, -a[2], a[1]], [a[2], z, -a[0]], [-a[1], a[0], z]]
}

/// `r m rᵀ` (change of basis of a 3×3 tensor).
#[inline(always)]
pub fn conjugate<S: Scalar>(r: &M3<S>, m: &M3<S>) -> M3<S> {
    mmt(&mm(r, m), r)
}

/// Rotation matrix from roll-pitch-yaw (URDF convention: `R = Rz(yaw) Ry(pitch) Rx(roll)`).
pub fn rpy_to_matrix(rpy: &[f64; 3]) -> [[f64; 3]; 3] {
    let (sr, cr) = rpy[0].sin_cos();
    let (sp, cp) = rpy[1].sin_cos();
    let (sy, cy) = rpy[2].sin_cos();
    [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
}

/// Rotation matrix of a unit quaternion `(x, y, z, w)` (Hamilton convention).
#[inline(always)]
pub fn quat_to_matrix<S: Scalar>(x: S, y: S, z: S, w: S) -> M3<S> {
    let (xx, yy, zz) = (x * x, y * y, z * z);
    let (xy, xz, yz) = (x * y, x * z, y * z);
    let (wx, wy, wz) = (w * x, w * y, w * z);
    let one = S::one();
    [
        [one - (yy + zz) * 2.0, (xy - wz) * 2.0, (xz + wy) * 2.0],
        [(xy + wz) * 2.0, one - (xx + zz) * 2.0, (yz - wx) * 2.0],
        [(xz - wy) * 2.0, (yz + wx) * 2.0, one - (xx + yy) * 2.0],
    ]
}

/// A rigid transform `aMb` (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Se3<S> {
    /// Rotation `aRb`, row-major.
    pub r: M3<S>,
    /// Origin of `b` in `a`.
    pub p: V3<S>,
}

impl<S: Scalar> Se3<S> {
    /// The identity transform.
    #[inline(always)]
    pub fn identity() -> Self {
        Se3 {
            r: m3_identity(),
            p: v3_zero(),
        }
    }

    /// Convert an `f64` transform to `S`.
    #[inline]
    pub fn from_f64(m: &Se3<f64>) -> Self {
        Se3 {
            r: m3_from(&m.r),
            p: v3_from(&m.p),
        }
    }

    /// `self * other` (`aMb * bMc = aMc`).
    #[inline(always)]
    pub fn compose(&self, other: &Se3<S>) -> Se3<S> {
        Se3 {
            r: mm(&self.r, &other.r),
            p: add(&mv(&self.r, &other.p), &self.p),
        }
    }

    /// The inverse `bMa`.
    #[inline(always)]
    pub fn inverse(&self) -> Se3<S> {
        let rt = transpose(&self.r);
        Se3 {
            p: neg(&mv(&rt, &self.p)),
            r: rt,
        }
    }

    /// `self⁻¹ * other` (`aMb⁻¹ * aMc = bMc`).
    #[inline(always)]
    pub fn inv_compose(&self, other: &Se3<S>) -> Se3<S> {
        Se3 {
            r: mtm(&self.r, &other.r),
            p: mtv(&self.r, &sub(&other.p, &self.p)),
        }
    }

    /// Map a point of `b` into `a`.
    #[inline(always)]
    pub fn act_point(&self, x: &V3<S>) -> V3<S> {
        add(&mv(&self.r, x), &self.p)
    }

    /// Motion in `b` → motion in `a`.
    #[inline(always)]
    pub fn act_motion(&self, m: &Motion<S>) -> Motion<S> {
        let w = mv(&self.r, &m.w);
        let v = add(&mv(&self.r, &m.v), &cross(&self.p, &w));
        Motion { v, w }
    }

    /// Motion in `a` → motion in `b`.
    #[inline(always)]
    pub fn act_inv_motion(&self, m: &Motion<S>) -> Motion<S> {
        Motion {
            v: mtv(&self.r, &sub(&m.v, &cross(&self.p, &m.w))),
            w: mtv(&self.r, &m.w),
        }
    }

    /// Force in `b` → force in `a`.
    #[inline(always)]
    pub fn act_force(&self, f: &Force<S>) -> Force<S> {
        let lin = mv(&self.r, &f.f);
        let n = add(&mv(&self.r, &f.n), &cross(&self.p, &lin));
        Force { f: lin, n }
    }

    /// Force in `a` → force in `b`.
    #[inline(always)]
    pub fn act_inv_force(&self, f: &Force<S>) -> Force<S> {
        Force {
            f: mtv(&self.r, &f.f),
            n: mtv(&self.r, &sub(&f.n, &cross(&self.p, &f.f))),
        }
    }
}

/// A spatial motion (twist or spatial acceleration) `[v; ω]`.
#[derive(Clone, Copy, Debug)]
pub struct Motion<S> {
    /// Linear part.
    pub v: V3<S>,
    /// Angular part.
    pub w: V3<S>,
}

impl<S: Scalar> Motion<S> {
    /// The zero motion.
    #[inline(always)]
    pub fn zero() -> Self {
        Motion {
            v: v3_zero(),
            w: v3_zero(),
        }
    }

    /// From a `[v; ω]` array.
    #[inline(always)]
    pub fn from_array(a: &[S; 6]) -> Self {
        Motion {
            v: [a[0], a[1], a[2]],
            w: [a[3], a[4], a[5]],
        }
    }

    /// As a `[v; ω]` array.
    #[inline(always)]
    pub fn to_array(&self) -> [S; 6] {
        [
            self.v[0], self.v[1], self.v[2], self.w[0], self.w[1], self.w[2],
        ]
    }

    /// `self + o`.
    #[inline(always)]
    pub fn add(&self, o: &Motion<S>) -> Motion<S> {
        Motion {
            v: add(&self.v, &o.v),
            w: add(&self.w, &o.w),
        }
    }

    /// `self · s`.
    #[inline(always)]
    pub fn scale(&self, s: S) -> Motion<S> {
        Motion {
            v: scale(&self.v, s),
            w: scale(&self.w, s),
        }
    }

    /// Motion cross product `self × m`.
    #[inline(always)]
    pub fn cross_motion(&self, m: &Motion<S>) -> Motion<S> {
        Motion {
            v: add(&cross(&self.w, &m.v), &cross(&self.v, &m.w)),
            w: cross(&self.w, &m.w),
        }
    }

    /// Dual cross product `self ×* f`.
    #[inline(always)]
    pub fn cross_force(&self, f: &Force<S>) -> Force<S> {
        Force {
            f: cross(&self.w, &f.f),
            n: add(&cross(&self.w, &f.n), &cross(&self.v, &f.f)),
        }
    }

    /// Pairing `⟨self, f⟩ = v·f + ω·n` (power).
    #[inline(always)]
    pub fn dot_force(&self, f: &Force<S>) -> S {
        dot(&self.v, &f.f) + dot(&self.w, &f.n)
    }
}

/// A spatial force (wrench) `[f; n]`.
#[derive(Clone, Copy, Debug)]
pub struct Force<S> {
    /// Linear part (force).
    pub f: V3<S>,
    /// Angular part (moment).
    pub n: V3<S>,
}

impl<S: Scalar> Force<S> {
    /// The zero force.
    #[inline(always)]
    pub fn zero() -> Self {
        Force {
            f: v3_zero(),
            n: v3_zero(),
        }
    }

    /// `self + o`.
    #[inline(always)]
    pub fn add(&self, o: &Force<S>) -> Force<S> {
        Force {
            f: add(&self.f, &o.f),
            n: add(&self.n, &o.n),
        }
    }

    /// `self - o`.
    #[inline(always)]
    pub fn sub(&self, o: &Force<S>) -> Force<S> {
        Force {
            f: sub(&self.f, &o.f),
            n: sub(&self.n, &o.n),
        }
    }

    /// As an `[f; n]` array.
    #[inline(always)]
    pub fn to_array(&self) -> [S; 6] {
        [
            self.f[0], self.f[1], self.f[2], self.n[0], self.n[1], self.n[2],
        ]
    }

    /// From an `[f; n]` array.
    #[inline(always)]
    pub fn from_array(a: &[S; 6]) -> Self {
        Force {
            f: [a[0], a[1], a[2]],
            n: [a[3], a[4], a[5]],
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Equal to 1e-12 (also used by the inertia tests).
    pub(crate) fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    /// A transform with a general rotation and offset.
    pub(crate) fn sample_se3() -> Se3<f64> {
        Se3 {
            r: rpy_to_matrix(&[0.3, -0.7, 1.1]),
            p: [0.2, -0.4, 0.9],
        }
    }

    #[test]
    fn transform_inverse_roundtrip() {
        let x = sample_se3();
        let m = Motion {
            v: [1.0, 2.0, 3.0],
            w: [-0.5, 0.1, 0.7],
        };
        let back = x.act_inv_motion(&x.act_motion(&m));
        for k in 0..3 {
            assert!(close(back.v[k], m.v[k]) && close(back.w[k], m.w[k]));
        }
        let id = x.compose(&x.inverse());
        for i in 0..3 {
            for j in 0..3 {
                assert!(close(id.r[i][j], if i == j { 1.0 } else { 0.0 }));
            }
            assert!(close(id.p[i], 0.0));
        }
    }
}

//! Spatial inertias: rigid bodies ([`RigidInertia`], 10 numbers, linear in the mass
//! distribution) and articulated bodies ([`Mat6`], a symmetric 6×6 in 3×3 blocks).

// Small fixed-size linear algebra reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use super::spatial::{
    add, conjugate, cross, dot, m3_from, m3_zero, madd, mm, mmt, msub, mtv, mv, neg, scale, skew,
    sub, v3_from, v3_zero, Force, Motion, Se3, M3, V3,
};
use crate::ad::Scalar;

/// A rigid-body spatial inertia about the frame origin: mass `m`, first moment `h = m c`
/// (`c` the centre of mass) and rotational inertia `io` about the origin. Linear in the body's
/// mass distribution, so composite inertias are plain sums (no division by a mass that may be 0).
#[derive(Clone, Copy, Debug)]
pub struct RigidInertia<S> {
    /// Mass.
    pub m: S,
    /// First moment of mass `m c`.
    pub h: V3<S>,
    /// Rotational inertia about the frame origin (symmetric).
    pub io: M3<S>,
}

impl<S: Scalar> RigidInertia<S> {
    /// The zero inertia.
    #[inline(always)]
    pub fn zero() -> Self {
        RigidInertia {
            m: S::zero(),
            h: v3_zero(),
            io: m3_zero(),
        }
    }

    /// Convert an `f64` inertia to `S`.
    pub fn from_f64(i: &RigidInertia<f64>) -> Self {
        RigidInertia {
            m: S::from_f64(i.m),
            h: v3_from(&i.h),
            io: m3_from(&i.io),
        }
    }

    /// `self + o`.
    #[inline(always)]
    pub fn add(&self, o: &RigidInertia<S>) -> RigidInertia<S> {
        RigidInertia {
            m: self.m + o.m,
            h: add(&self.h, &o.h),
            io: madd(&self.io, &o.io),
        }
    }

    /// Momentum `I v` of the twist `v`.
    #[inline(always)]
    pub fn mul_motion(&self, v: &Motion<S>) -> Force<S> {
        Force {
            f: sub(&scale(&v.v, self.m), &cross(&self.h, &v.w)),
            n: add(&cross(&self.h, &v.v), &mv(&self.io, &v.w)),
        }
    }

    /// Express an inertia given in frame `b` in frame `a`, with `x = aMb`.
    #[inline(always)]
    pub fn transform(&self, x: &Se3<S>) -> RigidInertia<S> {
        let rh = mv(&x.r, &self.h);
        let rio = conjugate(&x.r, &self.io);
        let h = add(&rh, &scale(&x.p, self.m));
        // io' = R io Rᵀ − [Rh]×[p]× − [p]×[Rh]× − m [p]×²; with [a]×[b]× = b aᵀ − (a·b) I.
        let p = &x.p;
        let a_dot = dot(&rh, p);
        let pp = dot(p, p);
        let mut io = rio;
        for i in 0..3 {
            for j in 0..3 {
                let sym = p[i] * rh[j] + rh[i] * p[j];
                let mpp = p[i] * p[j];
                io[i][j] = io[i][j] - sym - mpp * self.m;
            }
            io[i][i] = io[i][i] + a_dot * 2.0 + pp * self.m;
        }
        RigidInertia { m: self.m, h, io }
    }

    /// As a full 6×6 spatial inertia (for the articulated-body algorithm).
    pub fn to_mat6(&self) -> Mat6<S> {
        let z = S::zero();
        let m = self.m;
        Mat6 {
            a: [[m, z, z], [z, m, z], [z, z, m]],
            b: neg_m(&skew(&self.h)),
            c: self.io,
        }
    }
}

#[inline(always)]
fn neg_m<S: Scalar>(m: &M3<S>) -> M3<S> {
    [neg(&m[0]), neg(&m[1]), neg(&m[2])]
}

/// A symmetric 6×6 matrix mapping motions to forces, in blocks `[[a, b], [bᵀ, c]]`
/// (articulated-body inertias).
#[derive(Clone, Copy, Debug)]
pub struct Mat6<S> {
    /// Linear-linear block (symmetric).
    pub a: M3<S>,
    /// Linear-angular block.
    pub b: M3<S>,
    /// Angular-angular block (symmetric).
    pub c: M3<S>,
}

impl<S: Scalar> Mat6<S> {
    /// The zero matrix.
    pub fn zero() -> Self {
        Mat6 {
            a: m3_zero(),
            b: m3_zero(),
            c: m3_zero(),
        }
    }

    /// `self · v` (a force).
    #[inline(always)]
    pub fn mul_motion(&self, v: &Motion<S>) -> Force<S> {
        Force {
            f: add(&mv(&self.a, &v.v), &mv(&self.b, &v.w)),
            n: add(&mtv(&self.b, &v.v), &mv(&self.c, &v.w)),
        }
    }

    /// `self += o`.
    #[inline(always)]
    pub fn add_assign(&mut self, o: &Mat6<S>) {
        self.a = madd(&self.a, &o.a);
        self.b = madd(&self.b, &o.b);
        self.c = madd(&self.c, &o.c);
    }

    /// `self -= u uᵀ s` for a force-like column `u` (rank-one downdate).
    #[inline(always)]
    pub fn sub_outer(&mut self, u: &Force<S>, s: S) {
        let us_f = scale(&u.f, s);
        for i in 0..3 {
            for j in 0..3 {
                self.a[i][j] -= us_f[i] * u.f[j];
                self.b[i][j] -= us_f[i] * u.n[j];
                self.c[i][j] -= u.n[i] * s * u.n[j];
            }
        }
    }

    /// Express `self`, given in frame `b`, in frame `a`, with `x = aMb` (`X* Y X⁻¹`).
    #[inline(always)]
    pub fn transform(&self, x: &Se3<S>) -> Mat6<S> {
        let a1 = conjugate(&x.r, &self.a);
        let b1 = mmt(&mm(&x.r, &self.b), &x.r);
        let c1 = conjugate(&x.r, &self.c);
        let p = skew(&x.p);
        // a' = a1; b' = b1 − a1 P; c' = c1 + P b1 − b1ᵀ P − P a1 P.
        let a1p = mm(&a1, &p);
        let b = msub(&b1, &a1p);
        let pb1 = mm(&p, &b1);
        let pa1p = mm(&p, &a1p);
        let mut c = c1;
        for i in 0..3 {
            for j in 0..3 {
                c[i][j] = c[i][j] + pb1[i][j] + pb1[j][i] - pa1p[i][j];
            }
        }
        Mat6 { a: a1, b, c }
    }

    /// Entry `(i, j)` of the full 6×6 matrix.
    #[inline(always)]
    pub fn get(&self, i: usize, j: usize) -> S {
        match (i < 3, j < 3) {
            (true, true) => self.a[i][j],
            (true, false) => self.b[i][j - 3],
            (false, true) => self.b[j][i - 3],
            (false, false) => self.c[i - 3][j - 3],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RigidInertia;
    use crate::model::spatial::tests::{close, sample_se3};
    use crate::model::spatial::{mtm, scale, skew, Motion};

    #[test]
    fn inertia_transform_matches_mat6_transform() {
        let x = sample_se3();
        let c = [0.1, 0.05, -0.2];
        let m = 2.5;
        let ic = [[0.3, 0.01, 0.02], [0.01, 0.2, -0.03], [0.02, -0.03, 0.4]];
        // io = ic + m [c]×ᵀ[c]×
        let sc = skew(&c);
        let mut io = ic;
        let sts = mtm(&sc, &sc);
        for i in 0..3 {
            for j in 0..3 {
                io[i][j] += m * sts[i][j];
            }
        }
        let inertia = RigidInertia {
            m,
            h: scale(&c, m),
            io,
        };
        let a = inertia.transform(&x).to_mat6();
        let b = inertia.to_mat6().transform(&x);
        for i in 0..6 {
            for j in 0..6 {
                assert!(close(a.get(i, j), b.get(i, j)), "{i},{j}");
                assert!(close(a.get(i, j), a.get(j, i)));
            }
        }
        // Power invariance: ⟨v_a, Y_a v_a⟩ = ⟨v_b, Y_b v_b⟩.
        let vb = Motion {
            v: [0.3, -1.0, 0.2],
            w: [0.9, 0.4, -0.6],
        };
        let va = x.act_motion(&vb);
        let pb = vb.dot_force(&inertia.mul_motion(&vb));
        let pa = va.dot_force(&inertia.transform(&x).mul_motion(&va));
        assert!(close(pa, pb));
    }
}

//! The configuration space: neutral configuration, `integrate` (`q ⊕ v`), `difference`
//! (`q₁ ⊖ q₀`), and the map between `floating_zyx` and free-flyer coordinates.
//!
//! Everything is branch-free and generic over [`Scalar`]. The exponential and logarithm of the
//! free-flyer use `θ = √(|ω|² + ε)` with `ε = 1e-200`, which is exact in `f64` for every
//! `|ω| > 1e-90` and finite (with the right limits) at `ω = 0`, so no small-angle branch is
//! needed and symbolic derivatives exist everywhere. The logarithm takes the shorter rotation;
//! at exactly π the axis sign is that of the quaternion's vector part.

use super::error::{check_len, ModelError};
use super::spatial::{add, cross, dot, mtv, mv, quat_to_matrix, scale, sub, M3, V3};
use super::structure::{JointMotion, Model};
use crate::ad::Scalar;

const EPS_THETA2: f64 = 1e-200;

/// The neutral configuration: zeros, with the identity quaternion for a free-flyer.
pub fn neutral(model: &Model) -> Vec<f64> {
    let mut q = vec![0.0; model.nq];
    for j in &model.joints {
        if matches!(j.motion, JointMotion::FreeFlyer) {
            q[j.idx_q + 6] = 1.0;
        }
    }
    q
}

/// Hamilton product `a b` of quaternions `(x, y, z, w)`.
#[inline]
pub fn quat_mul<S: Scalar>(a: &[S; 4], b: &[S; 4]) -> [S; 4] {
    let (ax, ay, az, aw) = (a[0], a[1], a[2], a[3]);
    let (bx, by, bz, bw) = (b[0], b[1], b[2], b[3]);
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// `exp` of a local twist `[v; ω]`: the rigid motion as (position, quaternion `(x, y, z, w)`).
pub fn exp6<S: Scalar>(v: &V3<S>, w: &V3<S>) -> (V3<S>, [S; 4]) {
    let t2 = dot(w, w) + EPS_THETA2;
    let t = t2.sqrt();
    let half = t * 0.5;
    let (sh, ch) = (half.sin(), half.cos());
    let k = sh / t;
    let quat = [w[0] * k, w[1] * k, w[2] * k, ch];
    // V = I + (1 − cos θ)/θ² [ω]× + (θ − sin θ)/θ³ [ω]×².
    let c1 = sh * sh * 2.0 / t2;
    let c2 = (t - t.sin()) / (t2 * t);
    let wv = cross(w, v);
    let wwv = cross(w, &wv);
    let p = add(&add(v, &scale(&wv, c1)), &scale(&wwv, c2));
    (p, quat)
}

/// `log` of a rigid motion (position, unit quaternion `(x, y, z, w)`): the local twist.
pub fn log6<S: Scalar>(p: &V3<S>, quat: &[S; 4]) -> (V3<S>, V3<S>) {
    let (x, y, z, w) = (quat[0], quat[1], quat[2], quat[3]);
    // Shorter rotation: flip the quaternion when w < 0 (sign(0) taken as +1).
    let sg = w.sign();
    let s = sg + (S::one() - sg.abs());
    let n = (x * x + y * y + z * z + EPS_THETA2).sqrt();
    let theta = n.atan2(w.abs()) * 2.0;
    let k = theta / n * s;
    let om = [x * k, y * k, z * k];
    // V⁻¹ = I − ½[ω]× + (1 − (θ/2) cot(θ/2))/θ² [ω]×².
    let t2 = theta * theta + EPS_THETA2;
    let half = theta * 0.5;
    let c = (S::one() - half * half.cos() / half.sin()) / t2;
    let wp = cross(&om, p);
    let wwp = cross(&om, &wp);
    let v = add(&sub(p, &scale(&wp, S::from_f64(0.5))), &scale(&wwp, c));
    (v, om)
}

/// `out = q ⊕ v`: integrate the velocity `v` (already multiplied by the time step) from `q`.
/// For the free-flyer this is the SE(3) exponential of the local twist (Pinocchio's
/// `integrate`); all other coordinates add.
pub fn integrate<S: Scalar>(
    model: &Model,
    q: &[S],
    v: &[S],
    out: &mut [S],
) -> Result<(), ModelError> {
    check_len("q", q.len(), model.nq)?;
    check_len("v", v.len(), model.nv)?;
    check_len("out", out.len(), model.nq)?;
    for j in &model.joints {
        let (iq, iv) = (j.idx_q, j.idx_v);
        match j.motion {
            JointMotion::FreeFlyer => {
                let r = quat_to_matrix(q[iq + 3], q[iq + 4], q[iq + 5], q[iq + 6]);
                let (dp, dq) = exp6(
                    &[v[iv], v[iv + 1], v[iv + 2]],
                    &[v[iv + 3], v[iv + 4], v[iv + 5]],
                );
                let p = add(&[q[iq], q[iq + 1], q[iq + 2]], &mv(&r, &dp));
                let quat = quat_mul(&[q[iq + 3], q[iq + 4], q[iq + 5], q[iq + 6]], &dq);
                out[iq..iq + 3].copy_from_slice(&p);
                out[iq + 3..iq + 7].copy_from_slice(&quat);
            }
            _ => out[iq] = q[iq] + v[iv],
        }
    }
    Ok(())
}

/// `out = q1 ⊖ q0`: the velocity `v` with `q0 ⊕ v = q1` (length `nv`).
pub fn difference<S: Scalar>(
    model: &Model,
    q0: &[S],
    q1: &[S],
    out: &mut [S],
) -> Result<(), ModelError> {
    check_len("q0", q0.len(), model.nq)?;
    check_len("q1", q1.len(), model.nq)?;
    check_len("out", out.len(), model.nv)?;
    for j in &model.joints {
        let (iq, iv) = (j.idx_q, j.idx_v);
        match j.motion {
            JointMotion::FreeFlyer => {
                let a = [q0[iq + 3], q0[iq + 4], q0[iq + 5], q0[iq + 6]];
                let b = [q1[iq + 3], q1[iq + 4], q1[iq + 5], q1[iq + 6]];
                let ra = quat_to_matrix(a[0], a[1], a[2], a[3]);
                let dp = mtv(
                    &ra,
                    &sub(
                        &[q1[iq], q1[iq + 1], q1[iq + 2]],
                        &[q0[iq], q0[iq + 1], q0[iq + 2]],
                    ),
                );
                let rel = quat_mul(&[-a[0], -a[1], -a[2], a[3]], &b);
                let (v, w) = log6(&dp, &rel);
                out[iv..iv + 3].copy_from_slice(&v);
                out[iv + 3..iv + 6].copy_from_slice(&w);
            }
            _ => out[iv] = q1[iq] - q0[iq],
        }
    }
    Ok(())
}

/// Rotation `Rz(yaw) Ry(pitch) Rx(roll)` of `floating_zyx` angles `(yaw, pitch, roll)`.
pub fn zyx_to_matrix<S: Scalar>(angles: &V3<S>) -> M3<S> {
    let q = zyx_to_quaternion(angles);
    quat_to_matrix(q[0], q[1], q[2], q[3])
}

/// Unit quaternion `(x, y, z, w)` of `floating_zyx` angles `(yaw, pitch, roll)`.
pub fn zyx_to_quaternion<S: Scalar>(angles: &V3<S>) -> [S; 4] {
    let z = S::zero();
    let h = |a: S| ((a * 0.5).sin(), (a * 0.5).cos());
    let (sy, cy) = h(angles[0]);
    let (sp, cp) = h(angles[1]);
    let (sr, cr) = h(angles[2]);
    let qz = [z, z, sy, cy];
    let qy = [z, sp, z, cp];
    let qx = [sr, z, z, cr];
    quat_mul(&quat_mul(&qz, &qy), &qx)
}

/// The body (local) angular velocity for ZYX angle rates: `ω = E(angles) (ẏaw, ṗitch, ṙoll)`.
pub fn zyx_angular_velocity<S: Scalar>(angles: &V3<S>, rates: &V3<S>) -> V3<S> {
    let (sp, cp) = (angles[1].sin(), angles[1].cos());
    let (sr, cr) = (angles[2].sin(), angles[2].cos());
    // ω = Rxᵀ (Ryᵀ e_z ẏ + e_y ṗ) + e_x ṙ
    let a = [-sp * rates[0], rates[1], cp * rates[0]];
    let b = [a[0], cr * a[1] + sr * a[2], -sr * a[1] + cr * a[2]];
    [b[0] + rates[2], b[1], b[2]]
}

/// `floating_zyx` coordinates and rates of a base pose and twist as odometry carries them
/// (nav_msgs/Odometry): position `p` in the world, unit quaternion `(x, y, z, w)`, linear and
/// angular velocity in the base frame. Returns `q = (p, yaw, pitch, roll)` and
/// `q̇ = (R v_lin, E⁻¹ ω)` (`E` of [`zyx_angular_velocity`]); `None` for a quaternion that is
/// not finite and non-zero, or at pitch ±90° (within 1e-9 of `cos pitch = 0`) where the ZYX rates
/// are undefined.
pub fn zyx_from_odometry(
    position: &[f64; 3],
    quaternion: &[f64; 4],
    linear: &[f64; 3],
    angular: &[f64; 3],
) -> Option<([f64; 6], [f64; 6])> {
    let n = quaternion.iter().map(|x| x * x).sum::<f64>().sqrt();
    if !(n.is_finite() && n > 0.0) {
        return None;
    }
    let [x, y, z, w] = quaternion.map(|c| c / n);
    let r = quat_to_matrix(x, y, z, w);
    let yaw = r[1][0].atan2(r[0][0]);
    let pitch = (-r[2][0]).clamp(-1.0, 1.0).asin();
    let roll = r[2][1].atan2(r[2][2]);
    if pitch.cos() < 1e-9 {
        return None;
    }
    let angles = [yaw, pitch, roll];
    // ω = E rates with E's columns the body rates of unit angle rates; solve by Cramer.
    let cols: [[f64; 3]; 3] = [0, 1, 2].map(|c| {
        let mut e = [0.0; 3];
        e[c] = 1.0;
        zyx_angular_velocity(&angles, &e)
    });
    let det3 = |a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]| {
        a[0] * (b[1] * c[2] - b[2] * c[1]) - b[0] * (a[1] * c[2] - a[2] * c[1])
            + c[0] * (a[1] * b[2] - a[2] * b[1])
    };
    let d = det3(&cols[0], &cols[1], &cols[2]);
    let rates = [
        det3(angular, &cols[1], &cols[2]) / d,
        det3(&cols[0], angular, &cols[2]) / d,
        det3(&cols[0], &cols[1], angular) / d,
    ];
    let mut q = [0.0; 6];
    let mut v = [0.0; 6];
    for i in 0..3 {
        q[i] = position[i];
        q[3 + i] = angles[i];
        v[i] = (0..3).map(|k| r[i][k] * linear[k]).sum();
        v[3 + i] = rates[i];
    }
    Some((q, v))
}

/// The map `T(q)` (6×6, row-major) from the six `floating_zyx` root rates `q̇ = (ṗ, angle
/// rates)` to the free-flyer's local twist `[Rᵀ ṗ; E q̇_angles]`. Power is preserved with
/// `τ_zyx = Tᵀ τ_ff` and `M_zyx = Tᵀ M_ff T`. `T` is singular at pitch ±90°.
pub fn zyx_velocity_map<S: Scalar>(root_q: &[S; 6]) -> [[S; 6]; 6] {
    let angles = [root_q[3], root_q[4], root_q[5]];
    let r = zyx_to_matrix(&angles);
    let mut t = [[S::zero(); 6]; 6];
    for (i, row) in t.iter_mut().take(3).enumerate() {
        for (k, x) in row.iter_mut().take(3).enumerate() {
            *x = r[k][i];
        }
    }
    let z = S::zero();
    let o = S::one();
    for c in 0..3 {
        let mut e = [z; 3];
        e[c] = o;
        let w = zyx_angular_velocity(&angles, &e);
        for rr in 0..3 {
            t[3 + rr][3 + c] = w[rr];
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_log_roundtrip() {
        for (v, w) in [
            ([0.3, -0.2, 0.5], [0.4, 1.1, -0.7]),
            ([0.1, 0.0, 0.0], [0.0, 0.0, 0.0]),
            ([1.0, 2.0, 3.0], [1e-7, -2e-7, 0.0]),
            ([0.0, 0.5, 0.0], [0.0, 3.0, 0.0]),
        ] {
            let (p, q) = exp6::<f64>(&v, &w);
            let (v2, w2) = log6(&p, &q);
            for k in 0..3 {
                assert!((v[k] - v2[k]).abs() < 1e-12, "{v:?} {v2:?}");
                assert!((w[k] - w2[k]).abs() < 1e-12, "{w:?} {w2:?}");
            }
        }
    }

    #[test]
    fn odometry_gives_back_the_zyx_coordinates_and_rates() {
        let q = [0.3, -1.2, 0.45, 2.9, -0.7, 0.4];
        let rates = [0.5, -1.5, 2.0, 0.8, -0.3, 1.1];
        let ang = [q[3], q[4], q[5]];
        // Forward: what odometry reports for this state.
        let quat = zyx_to_quaternion::<f64>(&ang);
        let r = zyx_to_matrix::<f64>(&ang);
        let lin: [f64; 3] = [0, 1, 2].map(|i| (0..3).map(|k| r[k][i] * rates[k]).sum());
        let omega = zyx_angular_velocity::<f64>(&ang, &[rates[3], rates[4], rates[5]]);
        let pos = [q[0], q[1], q[2]];
        // A quaternion of another sign and scale is the same orientation.
        let scaled = quat.map(|c| -2.0 * c);
        let (q2, v2) = zyx_from_odometry(&pos, &scaled, &lin, &omega).unwrap();
        for i in 0..6 {
            assert!((q2[i] - q[i]).abs() < 1e-12, "q {q2:?} {q:?}");
            assert!((v2[i] - rates[i]).abs() < 1e-12, "v {v2:?} {rates:?}");
        }
        assert!(zyx_from_odometry(&pos, &[0.0; 4], &lin, &omega).is_none());
        let up = zyx_to_quaternion::<f64>(&[0.1, std::f64::consts::FRAC_PI_2, 0.0]);
        assert!(zyx_from_odometry(&pos, &up, &lin, &omega).is_none());
    }

    #[test]
    fn zyx_quaternion_matches_product_of_rotations() {
        let ang = [0.4, -0.3, 1.2];
        let r = zyx_to_matrix::<f64>(&ang);
        let m = super::super::spatial::rpy_to_matrix(&[ang[2], ang[1], ang[0]]);
        for i in 0..3 {
            for j in 0..3 {
                assert!((r[i][j] - m[i][j]).abs() < 1e-14);
            }
        }
    }
}

//! A commanded base velocity as the tracking reference of a floating base **[ours]**: a body
//! frame velocity command (forward, lateral, yaw rate: what `cmd_vel` carries for a legged
//! robot) turned into the LSQ references of the base's `x, y, yaw` and of their rates over the
//! horizon.
//!
//! The command is a constant twist in the heading frame (the base frame turned by yaw only, so
//! "forward" stays horizontal when the body pitches): from the measured `(x₀, y₀, ψ₀)` the base
//! follows the arc
//!
//! ```text
//! ψ(s) = ψ₀ + ω s
//! x(s) = x₀ + ∫₀ˢ (vₓ cos ψ(τ) − v_y sin ψ(τ)) dτ
//! y(s) = y₀ + ∫₀ˢ (vₓ sin ψ(τ) + v_y cos ψ(τ)) dτ
//! ```
//!
//! in closed form (a series for small `ω s`), and the reference velocity at `s` is the command
//! turned to the world by `ψ(s)` (by the current yaw at `s = 0`), with yaw rate `ω`. Interval
//! `k` of a solve tracks the reference at `(k+1) T/N` (its end, where the LSQ term sits), the
//! terminal term the one at `T`, as for [`PeriodicReference`](super::PeriodicReference). Only
//! the six entries of `x, y, yaw` and their rates are written; every other reference entry
//! (height, pitch, roll, joints) stays as configured.

use crate::fesdj::Layout;

use super::error::MpcError;

/// `ω s` below which the arc is evaluated by its Taylor series.
const SMALL_TURN: f64 = 1e-4;

/// The base pose and world velocity of the arc of a constant heading-frame twist `cmd =
/// (vₓ, v_y, ω)` after `s` seconds from `(x₀, y₀, ψ₀)`: `([x, y, ψ], [ẋ, ẏ, ψ̇])`.
pub fn arc(cmd: [f64; 3], x0: f64, y0: f64, yaw0: f64, s: f64) -> ([f64; 3], [f64; 3]) {
    let [vx, vy, w] = cmd;
    let yaw = yaw0 + w * s;
    // ∫₀ˢ cos ψ(τ) dτ and ∫₀ˢ sin ψ(τ) dτ.
    let a = w * s;
    let (ic, is) = if a.abs() < SMALL_TURN {
        // sin(ψ₀ + a) − sin ψ₀ = cos ψ₀ sin a + sin ψ₀ (cos a − 1), divided by ω, to O(a³).
        let (sa_over, ca1_over) = (s * (1.0 - a * a / 6.0), s * (-a / 2.0 + a * a * a / 24.0));
        let (s0, c0) = yaw0.sin_cos();
        (c0 * sa_over + s0 * ca1_over, s0 * sa_over - c0 * ca1_over)
    } else {
        ((yaw.sin() - yaw0.sin()) / w, (yaw0.cos() - yaw.cos()) / w)
    };
    let x = x0 + vx * ic - vy * is;
    let y = y0 + vx * is + vy * ic;
    let (sn, cs) = yaw.sin_cos();
    ([x, y, yaw], [vx * cs - vy * sn, vx * sn + vy * cs, w])
}

/// Where the base's `x`, `y`, `yaw` are among the coordinates (`floating_zyx`: 0, 1, 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BaseCoordinates {
    /// Index of `x` in `q`.
    pub x: usize,
    /// Index of `y` in `q`.
    pub y: usize,
    /// Index of `yaw` in `q`.
    pub yaw: usize,
}

/// The LSQ reference slots a commanded base velocity is written to (built once, written per
/// solve without allocation).
#[derive(Clone, Debug, PartialEq)]
pub struct BaseCommandReference {
    coords: BaseCoordinates,
    n_q: usize,
    /// Time after the solve's state at which each group of slots is tracked.
    offsets: Vec<f64>,
    /// Parameter indices of each group's `(x, y, yaw, ẋ, ẏ, ψ̇)` entries.
    slots: Vec<[usize; 6]>,
}

impl BaseCommandReference {
    /// The slots of `layout` (the problem's LSQ state references, `2 n_q` entries each) for a
    /// horizon of `t_final` s, with the terminal reference when the problem has one.
    pub fn new(
        layout: &Layout,
        t_final: f64,
        coords: BaseCoordinates,
    ) -> Result<BaseCommandReference, MpcError> {
        let n_q = layout.n_q;
        let bad = |why: String| MpcError::BadInput {
            what: "base command".into(),
            why,
        };
        if [coords.x, coords.y, coords.yaw].iter().any(|&c| c >= n_q) {
            return Err(bad(format!(
                "base coordinates {coords:?} beyond the model's {n_q} coordinates"
            )));
        }
        let refs = &layout.params.x_ref;
        if refs.is_empty() {
            return Err(bad(
                "the problem has no LSQ state references (`ocp.tracking: lsq` with weights)".into(),
            ));
        }
        let pick = |idx: &[usize]| -> Result<[usize; 6], MpcError> {
            if idx.len() != 2 * n_q {
                return Err(bad(format!(
                    "a state reference has {} entries, expected {}",
                    idx.len(),
                    2 * n_q
                )));
            }
            let c = [coords.x, coords.y, coords.yaw];
            Ok([
                idx[c[0]],
                idx[c[1]],
                idx[c[2]],
                idx[n_q + c[0]],
                idx[n_q + c[1]],
                idx[n_q + c[2]],
            ])
        };
        let n = refs.len();
        let mut offsets = Vec::with_capacity(n + 1);
        let mut slots = Vec::with_capacity(n + 1);
        for (k, idx) in refs.iter().enumerate() {
            offsets.push(t_final * (k + 1) as f64 / n as f64);
            slots.push(pick(idx)?);
        }
        if !layout.params.x_ref_terminal.is_empty() {
            offsets.push(t_final);
            slots.push(pick(&layout.params.x_ref_terminal)?);
        }
        Ok(BaseCommandReference {
            coords,
            n_q,
            offsets,
            slots,
        })
    }

    /// Write the references of the command `cmd = (vₓ, v_y, ω)` for a solve from the state `x`
    /// (`(q, v)`, `2 n_q` entries) into the parameter vector `p`. Slots beyond `p` and a short
    /// `x` are skipped; nothing is allocated.
    pub fn write(&self, cmd: [f64; 3], x: &[f64], p: &mut [f64]) {
        if x.len() < self.n_q {
            return;
        }
        let (x0, y0, yaw0) = (x[self.coords.x], x[self.coords.y], x[self.coords.yaw]);
        for (&s, idx) in self.offsets.iter().zip(&self.slots) {
            let (pose, vel) = arc(cmd, x0, y0, yaw0, s);
            for (&slot, value) in idx.iter().zip(pose.iter().chain(&vel)) {
                if let Some(e) = p.get_mut(slot) {
                    *e = *value;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arc by explicit midpoint-rule quadrature of the heading-frame velocity: the
    /// independent reference.
    fn quadrature(cmd: [f64; 3], yaw0: f64, s: f64) -> [f64; 2] {
        let n = 20_000;
        let h = s / n as f64;
        let (mut x, mut y) = (0.0, 0.0);
        for i in 0..n {
            let psi = yaw0 + cmd[2] * (i as f64 + 0.5) * h;
            x += h * (cmd[0] * psi.cos() - cmd[1] * psi.sin());
            y += h * (cmd[0] * psi.sin() + cmd[1] * psi.cos());
        }
        [x, y]
    }

    #[test]
    fn arc_matches_quadrature_for_turns_large_and_tiny() {
        for (cmd, yaw0, s) in [
            ([0.3, 0.1, 0.5], 0.7, 0.4),
            ([0.2, -0.15, -0.5], -2.0, 1.0),
            ([0.4, 0.0, 1e-7], 1.2, 0.4),
            ([0.1, 0.05, -3e-5], 3.0, 2.0),
            ([0.0, 0.0, 0.5], 0.3, 0.4),
        ] {
            let ([x, y, yaw], [vx, vy, w]) = arc(cmd, 1.0, -2.0, yaw0, s);
            let [qx, qy] = quadrature(cmd, yaw0, s);
            assert!(
                (x - 1.0 - qx).abs() < 1e-9,
                "{cmd:?}: x {x} vs {}",
                1.0 + qx
            );
            assert!(
                (y + 2.0 - qy).abs() < 1e-9,
                "{cmd:?}: y {y} vs {}",
                qy - 2.0
            );
            assert!((yaw - (yaw0 + cmd[2] * s)).abs() < 1e-15);
            let psi = yaw0 + cmd[2] * s;
            assert!((vx - (cmd[0] * psi.cos() - cmd[1] * psi.sin())).abs() < 1e-15);
            assert!((vy - (cmd[0] * psi.sin() + cmd[1] * psi.cos())).abs() < 1e-15);
            assert_eq!(w, cmd[2]);
        }
    }

    #[test]
    fn writes_the_base_entries_of_every_reference_and_nothing_else() {
        use crate::fesdj::layout::ParamLayout;
        // n_q = 7 (floating_zyx base + one joint), N = 4 intervals of a 0.4 s horizon and a
        // terminal reference; references laid out one after the other in p.
        let n_q = 7;
        let x_ref: Vec<Vec<usize>> = (0..4).map(|k| (k * 14..(k + 1) * 14).collect()).collect();
        let layout = Layout {
            n_q,
            params: ParamLayout {
                x_ref,
                u_ref: Vec::new(),
                x_ref_terminal: (56..70).collect(),
            },
            ..Layout::default()
        };
        let coords = BaseCoordinates { x: 0, y: 1, yaw: 3 };
        let r = BaseCommandReference::new(&layout, 0.4, coords).unwrap();
        let mut p = vec![-7.0; 70];
        let mut x = vec![0.0; 14];
        x[0] = 1.0; // x
        x[1] = 2.0; // y
        x[3] = 0.5; // yaw
        let cmd = [0.3, -0.1, 0.4];
        r.write(cmd, &x, &mut p);
        for (k, s) in [0.1, 0.2, 0.3, 0.4, 0.4].iter().enumerate() {
            let base = 14 * k;
            let ([px, py, pyaw], [vx, vy, w]) = arc(cmd, 1.0, 2.0, 0.5, *s);
            let want = [
                (0, px),
                (1, py),
                (3, pyaw),
                (n_q, vx),
                (n_q + 1, vy),
                (n_q + 3, w),
            ];
            for i in 0..14 {
                let expected = want.iter().find(|(j, _)| *j == i).map_or(-7.0, |(_, v)| *v);
                assert_eq!(p[base + i], expected, "reference {k}, entry {i}");
            }
        }
        // Standing (zero command): the pose is held at the state's, velocities zero.
        r.write([0.0; 3], &x, &mut p);
        assert_eq!((p[14], p[15], p[17]), (1.0, 2.0, 0.5));
        assert_eq!((p[14 + 7], p[14 + 8], p[14 + 10]), (0.0, 0.0, 0.0));
        assert!(
            BaseCommandReference::new(&layout, 0.4, BaseCoordinates { x: 0, y: 1, yaw: 7 })
                .is_err()
        );
    }

    #[test]
    fn straight_line_and_body_to_world_rotation() {
        // Facing +y (yaw 90°), forward 0.2 m/s and lateral 0.1 m/s (to the robot's left, −x):
        // after 0.5 s the base is 0.1 m further in +y and 0.05 m in −x.
        let ([x, y, yaw], [vx, vy, w]) =
            arc([0.2, 0.1, 0.0], 0.0, 0.0, std::f64::consts::FRAC_PI_2, 0.5);
        assert!(
            (x + 0.05).abs() < 1e-15 && (y - 0.1).abs() < 1e-15,
            "{x} {y}"
        );
        assert!((yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        assert!((vx + 0.1).abs() < 1e-15 && (vy - 0.2).abs() < 1e-15 && w == 0.0);
    }
}

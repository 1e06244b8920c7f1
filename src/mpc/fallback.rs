//! The safe fallback law applied when no verified plan covers the current time.

use serde::{Deserialize, Serialize};

/// Fallback control law, applied per control input `i` on the coordinate it actuates
/// (`ControllerSettings::actuated[i]`), clamped to `±ControllerSettings::effort_limit[i]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Fallback {
    /// `u_i = −k_d v_a` (joint damping).
    Damping {
        /// Damping gain.
        kd: f64,
    },
    /// `u_i = k_p (q̄_a − q_a) − k_d v_a` with `q̄` the last verified plan's final posture (or
    /// the state at which the fallback engaged when there is no plan).
    HoldPosition {
        /// Stiffness gain.
        kp: f64,
        /// Damping gain.
        kd: f64,
    },
}

impl Default for Fallback {
    fn default() -> Self {
        Fallback::Damping { kd: 1.0 }
    }
}

impl Fallback {
    /// Gains `(k_p, k_d)` (k_p = 0 for damping).
    pub fn gains(&self) -> (f64, f64) {
        match *self {
            Fallback::Damping { kd } => (0.0, kd),
            Fallback::HoldPosition { kp, kd } => (kp, kd),
        }
    }

    /// Write the fallback control for state `(q, v)` and posture `q_hold` into `u`.
    pub fn control(
        &self,
        actuated: &[usize],
        effort_limit: &[f64],
        q: &[f64],
        v: &[f64],
        q_hold: &[f64],
        u: &mut [f64],
    ) {
        let (kp, kd) = self.gains();
        for (i, ui) in u.iter_mut().enumerate() {
            let Some(&a) = actuated.get(i) else {
                *ui = 0.0;
                continue;
            };
            let raw = kp * (q_hold[a] - q[a]) - kd * v[a];
            let lim = effort_limit.get(i).copied().unwrap_or(f64::INFINITY);
            *ui = raw.clamp(-lim, lim);
        }
    }
}

//! Settings of the receding-horizon controller.

use serde::{Deserialize, Serialize};

use super::error::MpcError;
use super::fallback::Fallback;

/// Controller settings (serde, with defaults; [`ControllerSettings::validate`] names a bad field).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ControllerSettings {
    /// σ₀ of the homotopy after a successful solve, when the next one starts from the shifted
    /// solution (§4.8 "fast σ₀"; default 1e-6: with `warm_duals` the shifted primal-dual point
    /// is close enough to start near the end of the homotopy — on the sliding block 14 IPM
    /// iterations per warm tick against 22 at 1e-5 and 89 without the multipliers).
    pub warm_sigma0: f64,
    /// σ₀ of a cold start (default 1, the spec's σ₀).
    pub cold_sigma0: f64,
    /// Shift the previous solution by one control interval for the warm start (§4.8, default
    /// true; false re-uses it in place). Ticks need not be one interval apart: the shift
    /// happens when the time passed since the solution's grid began, accumulated over ticks,
    /// reaches half an interval (ticking at twice the interval rate shifts every other tick).
    pub shift: bool,
    /// Warm starts carry the previous solution's multipliers too (shifted like the primal
    /// point) and start the barrier parameter small (default true; false: primal warm start).
    pub warm_duals: bool,
    /// After a failed solve, warm start again (up to this many failures in a row) from the
    /// last verified solution shifted by the intervals that passed, instead of a cold start
    /// (needs `shift`; default 0: cold start after every failure).
    pub warm_retries: usize,
    /// A plan is verified when the solver succeeded, or when its last NLP succeeded but the
    /// homotopy stopped with `max_i G_i H_i` (§5.5) above the solver's tolerance yet at most
    /// this (default 1e-6); and every value of it is finite and within the effort limits.
    pub accept_comp_residual: f64,
    /// With the solver's `warm_active_set`: the complementarity pairs of this many first
    /// control intervals stay relaxed in the warm start's active-set NLP, so that the measured
    /// state can change their contact schedule (formulation §4.8; default 1).
    pub active_set_free_intervals: usize,
    /// With `warm_active_set`: the pairs of this many last control intervals stay relaxed too,
    /// so that a plan can add a contact change at the horizon's end (default 1; 0 keeps the
    /// schedule of the first plan as long as the active-set NLPs succeed).
    pub active_set_free_last_intervals: usize,
    /// With a gait library ([`Controller::set_gait_library`](super::Controller::set_gait_library)):
    /// from this control interval of the horizon on, every contact follows the stance pattern
    /// of the library gait the command steps with ([`GaitBlend::schedule_gait`](super::GaitBlend::schedule_gait)),
    /// imposed as in the fixed-schedule variant; the intervals before it stay contact-implicit,
    /// so the measured state decides the first touchdowns and lift-offs. A scheduled solve that
    /// fails is followed by contact-implicit solves until one is verified; a standing command
    /// imposes nothing **[ours]** (default none: contacts are the optimiser's choice on the
    /// whole horizon).
    pub gait_schedule_from: Option<usize>,
    /// Weight of the normal-contact pairs in the ℓ1 penalty of the controller's relaxed NLPs,
    /// the other pairs (friction) weighing 1 **[ours]** (formulation §5.2 "pair weights";
    /// default 1: one penalty for all; the Scholtes relaxation ignores it).
    pub contact_penalty_weight: f64,
    /// Coordinate actuated by each control input (for the fallback law; length `n_u`).
    pub actuated: Vec<usize>,
    /// Symmetric effort limit of each control input (length `n_u`; empty = unlimited).
    pub effort_limit: Vec<f64>,
    /// The fallback law (default joint damping `k_d = 1`).
    pub fallback: Fallback,
    /// Feedback on the plan between re-plans ([`Controller::command`](super::Controller::command);
    /// default none: the plan's controls alone).
    pub tracking: Option<Tracking>,
}

/// PD feedback around the plan in charge: control `i` applies
/// `u_i(t) + k_p,i (q̂_a(t) − q_a) + k_d,i (v̂_a(t) − v_a)` on its coordinate `a`
/// (`ControllerSettings::actuated[i]`), with `(q̂, v̂)` the plan's prediction interpolated linearly
/// in time between its grid points, clamped to the effort limit. The planned controls are
/// piecewise constant over a whole control interval and planned from a state that is already
/// one solve time old when they are applied; the feedback, evaluated at every fresh
/// measurement, rejects the plant's departure from the prediction inside the interval (the
/// usual joint-level loop under an MPC).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tracking {
    /// Position gain per control (length `n_u`).
    pub kp: Vec<f64>,
    /// Velocity gain per control (length `n_u`).
    pub kd: Vec<f64>,
}

impl Default for ControllerSettings {
    fn default() -> Self {
        ControllerSettings {
            warm_sigma0: 1e-6,
            cold_sigma0: 1.0,
            shift: true,
            warm_duals: true,
            warm_retries: 0,
            accept_comp_residual: 1e-6,
            active_set_free_intervals: 1,
            active_set_free_last_intervals: 1,
            gait_schedule_from: None,
            contact_penalty_weight: 1.0,
            actuated: Vec::new(),
            effort_limit: Vec::new(),
            fallback: Fallback::default(),
            tracking: None,
        }
    }
}

impl ControllerSettings {
    /// Check the settings against a model with `n_q` coordinates and `n_u` inputs.
    pub fn validate(&self, n_q: usize, n_u: usize) -> Result<(), MpcError> {
        let bad = |field: &str, why: String| MpcError::Settings {
            field: field.into(),
            why,
        };
        for (name, x) in [
            ("warm_sigma0", self.warm_sigma0),
            ("cold_sigma0", self.cold_sigma0),
            ("contact_penalty_weight", self.contact_penalty_weight),
        ] {
            if !(x.is_finite() && x > 0.0) {
                return Err(bad(name, format!("must be finite and > 0, got {x}")));
            }
        }
        if !(self.accept_comp_residual.is_finite() && self.accept_comp_residual >= 0.0) {
            return Err(bad(
                "accept_comp_residual",
                format!("must be finite and ≥ 0, got {}", self.accept_comp_residual),
            ));
        }
        if !self.actuated.is_empty() && self.actuated.len() != n_u {
            return Err(bad(
                "actuated",
                format!(
                    "needs one coordinate per input ({n_u}), got {}",
                    self.actuated.len()
                ),
            ));
        }
        if let Some((i, &a)) = self.actuated.iter().enumerate().find(|(_, &a)| a >= n_q) {
            return Err(bad(
                &format!("actuated[{i}]"),
                format!("coordinate {a} out of range 0..{n_q}"),
            ));
        }
        if !self.effort_limit.is_empty() && self.effort_limit.len() != n_u {
            return Err(bad(
                "effort_limit",
                format!(
                    "needs one limit per input ({n_u}), got {}",
                    self.effort_limit.len()
                ),
            ));
        }
        if let Some(i) = self
            .effort_limit
            .iter()
            .position(|&l| l.is_nan() || l <= 0.0)
        {
            return Err(bad(&format!("effort_limit[{i}]"), "must be > 0".into()));
        }
        let (kp, kd) = self.fallback.gains();
        if !(kp.is_finite() && kp >= 0.0 && kd.is_finite() && kd >= 0.0) {
            return Err(bad("fallback", "gains must be finite and ≥ 0".into()));
        }
        if let Some(t) = &self.tracking {
            if self.actuated.is_empty() && n_u > 0 {
                return Err(bad(
                    "tracking",
                    "needs the coordinate of every control (actuated)".into(),
                ));
            }
            for (name, g) in [("tracking.kp", &t.kp), ("tracking.kd", &t.kd)] {
                if g.len() != n_u {
                    return Err(bad(
                        name,
                        format!("needs one gain per input ({n_u}), got {}", g.len()),
                    ));
                }
                if let Some(i) = g.iter().position(|&x| !(x.is_finite() && x >= 0.0)) {
                    return Err(bad(
                        &format!("{name}[{i}]"),
                        format!("must be finite and ≥ 0, got {}", g[i]),
                    ));
                }
            }
        }
        Ok(())
    }
}

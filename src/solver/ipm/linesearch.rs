//! Filter line search with second-order corrections (Wächter & Biegler 2006, §2.3–2.4).

use super::init::{eval_fg, KAPPA_D};
use super::state::Ipm;
use crate::solver::nlp::Nlp;
use crate::solver::status::IterStats;
use std::time::Instant;

const GAMMA_THETA: f64 = 1e-5;
const GAMMA_PHI: f64 = 1e-8;
const DELTA: f64 = 1.0;
const S_THETA: f64 = 1.1;
const S_PHI: f64 = 2.3;
const ETA_PHI: f64 = 1e-4;
const GAMMA_ALPHA: f64 = 0.05;
const KAPPA_SOC: f64 = 0.99;
/// IPOPT's `filter_reset_trigger`: reset the filter after this many consecutive iterations
/// in which the last rejected trial point was rejected by the filter.
const FILTER_RESET_TRIGGER: usize = 5;

/// Result of a line search.
pub(crate) enum Outcome {
    /// A step was taken.
    Accepted,
    /// No acceptable step size above α_min: the caller enters restoration.
    Failed,
    /// A callback failed at every trial.
    EvalError,
}

/// Decision on one trial point.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Trial {
    Reject,
    /// Rejected because the filter dominates the trial point.
    FilterReject,
    /// Accepted by the Armijo condition on φ (no filter augmentation).
    FType,
    /// Accepted by sufficient decrease of θ or φ (the filter is augmented).
    HType,
}

/// `lhs <= rhs` up to the rounding error of quantities of the size of `base` (IPOPT's
/// `Compare_le`): near a solution the barrier function changes by less than its own rounding
/// error, and an exact comparison then rejects every step down to α_min (a spurious
/// restoration phase at a point that is already optimal).
fn le_rounded(lhs: f64, rhs: f64, base: f64) -> bool {
    lhs - rhs <= 10.0 * f64::EPSILON * base.abs()
}

impl Trial {
    fn rejected(self) -> bool {
        matches!(self, Trial::Reject | Trial::FilterReject)
    }
}

impl Ipm {
    /// Largest α ∈ (0, 1] keeping the primal (`primal`) or dual variables at a fraction τ of
    /// their distance to the bounds.
    fn fraction_to_boundary(&self, tau: f64, primal: bool) -> f64 {
        let mut a = 1.0f64;
        let mut lim = |v: f64, dv: f64| {
            if dv < 0.0 {
                a = a.min(-tau * v / dv);
            }
        };
        if primal {
            for j in 0..self.n {
                if self.has_xl[j] {
                    lim(self.x[j] - self.xl[j], self.dx[j]);
                }
                if self.has_xu[j] {
                    lim(self.xu[j] - self.x[j], -self.dx[j]);
                }
            }
            for i in 0..self.m {
                if self.has_sl[i] {
                    lim(self.s[i] - self.gl[i], self.ds[i]);
                }
                if self.has_su[i] {
                    lim(self.gu[i] - self.s[i], -self.ds[i]);
                }
            }
        } else {
            for j in 0..self.n {
                if self.has_xl[j] {
                    lim(self.zl[j], self.dzl[j]);
                }
                if self.has_xu[j] {
                    lim(self.zu[j], self.dzu[j]);
                }
            }
            for i in 0..self.m {
                if self.has_sl[i] {
                    lim(self.vl[i], self.dvl[i]);
                }
                if self.has_su[i] {
                    lim(self.vu[i], self.dvu[i]);
                }
            }
        }
        a.max(0.0)
    }

    /// Directional derivative of the barrier objective along (Δx, Δs).
    fn barrier_slope(&self) -> f64 {
        let mu = self.mu;
        let mut d = 0.0;
        for j in 0..self.n {
            let mut gj = self.grad[j];
            if self.has_xl[j] {
                gj -= mu / (self.x[j] - self.xl[j]);
                if !self.has_xu[j] {
                    gj += KAPPA_D * mu;
                }
            }
            if self.has_xu[j] {
                gj += mu / (self.xu[j] - self.x[j]);
                if !self.has_xl[j] {
                    gj -= KAPPA_D * mu;
                }
            }
            d += gj * self.dx[j];
        }
        for i in 0..self.m {
            let mut gi = 0.0;
            if self.has_sl[i] {
                gi -= mu / (self.s[i] - self.gl[i]);
                if !self.has_su[i] {
                    gi += KAPPA_D * mu;
                }
            }
            if self.has_su[i] {
                gi += mu / (self.gu[i] - self.s[i]);
                if !self.has_sl[i] {
                    gi -= KAPPA_D * mu;
                }
            }
            d += gi * self.ds[i];
        }
        d
    }

    fn filter_acceptable(&self, theta: f64, phi: f64) -> bool {
        self.filter.iter().all(|&(t, p)| theta < t || phi < p)
    }

    /// Add `(θ, φ)` to the filter, dropping the entries it dominates.
    pub(super) fn augment_filter(&mut self, theta: f64, phi: f64) {
        let (t, p) = ((1.0 - GAMMA_THETA) * theta, phi - GAMMA_PHI * theta);
        self.filter.retain(|&(a, b)| !(t <= a && p <= b));
        if self.filter.len() < self.filter.capacity() {
            self.filter.push((t, p));
        }
    }

    /// True if `(θ, φ)` is acceptable to the current filter (used by the restoration phase).
    pub(super) fn acceptable_to_filter(&self, theta: f64, phi: f64) -> bool {
        theta <= self.theta_max && self.filter_acceptable(theta, phi)
    }

    #[allow(clippy::too_many_arguments)]
    fn judge(
        &self,
        theta: f64,
        phi: f64,
        theta_t: f64,
        phi_t: f64,
        alpha: f64,
        slope: f64,
    ) -> Trial {
        if !(theta_t <= self.theta_max) || !phi_t.is_finite() {
            return Trial::Reject;
        }
        // sufficient decrease first, then the filter (IPOPT's order: a point counts as
        // rejected by the filter only if it passed the decrease test)
        let switching = slope < 0.0 && alpha * (-slope).powf(S_PHI) > DELTA * theta.powf(S_THETA);
        let kind = if theta <= self.theta_min && switching {
            if le_rounded(phi_t - phi, ETA_PHI * alpha * slope, phi) {
                Trial::FType
            } else {
                return Trial::Reject;
            }
        } else if le_rounded(theta_t, (1.0 - GAMMA_THETA) * theta, theta)
            || le_rounded(phi_t - phi, -GAMMA_PHI * theta, phi)
        {
            Trial::HType
        } else {
            return Trial::Reject;
        };
        if self.filter_acceptable(theta_t, phi_t) {
            kind
        } else {
            Trial::FilterReject
        }
    }

    /// Evaluate f and g at `x + α Δx`, `s + α Δs` into the trial buffers.
    fn eval_trial(&mut self, nlp: &dyn Nlp, p: &[f64], alpha: f64) -> bool {
        for j in 0..self.n {
            self.xt[j] = self.x[j] + alpha * self.dx[j];
        }
        for i in 0..self.m {
            self.st[i] = self.s[i] + alpha * self.ds[i];
        }
        let t = Instant::now();
        let r = eval_fg(
            nlp,
            p,
            &self.xt,
            self.obj_scale,
            &self.con_scale,
            &mut self.gt,
        );
        self.info.evaluations += 1;
        self.info.timers.evaluation += t.elapsed().as_secs_f64();
        match r {
            Some(f) => {
                self.ft = f;
                true
            }
            None => false,
        }
    }

    fn min_step(&self, theta: f64, slope: f64) -> f64 {
        let a = if slope < 0.0 {
            let mut a = GAMMA_THETA.min(GAMMA_PHI * theta / (-slope));
            if theta <= self.theta_min {
                a = a.min(DELTA * theta.powf(S_THETA) / (-slope).powf(S_PHI));
            }
            a
        } else {
            GAMMA_THETA
        };
        GAMMA_ALPHA * a
    }

    /// Backtracking filter line search; on success the iterate is updated.
    pub(super) fn line_search(&mut self, nlp: &dyn Nlp, p: &[f64]) -> Outcome {
        let tau = self.settings.tau_min.max(1.0 - self.mu);
        let theta = self.theta_of(false);
        let phi = self.barrier_of(false);
        let slope = self.barrier_slope();
        let alpha_max = self.fraction_to_boundary(tau, true);
        let alpha_min = self.min_step(theta, slope);
        // a tiny step (relative to x) is taken in full
        let tiny = self
            .dx
            .iter()
            .zip(self.x.iter())
            .all(|(d, x)| d.abs() <= 10.0 * f64::EPSILON * (1.0 + x.abs()))
            && self
                .ds
                .iter()
                .zip(self.s.iter())
                .all(|(d, s)| d.abs() <= 10.0 * f64::EPSILON * (1.0 + s.abs()));
        let mut alpha = alpha_max;
        let mut trials = 0usize;
        let mut any_eval = false;
        let mut accepted: Option<Trial> = None;
        let mut last_filter_reject = false;
        loop {
            trials += 1;
            if !self.eval_trial(nlp, p, alpha) {
                alpha *= 0.5;
                if alpha < alpha_min.max(1e-16) {
                    break;
                }
                continue;
            }
            any_eval = true;
            let theta_t = self.theta_of(true);
            let phi_t = self.barrier_of(true);
            if tiny {
                accepted = Some(Trial::HType);
                break;
            }
            let j = self.judge(theta, phi, theta_t, phi_t, alpha, slope);
            if !j.rejected() {
                accepted = Some(j);
                break;
            }
            last_filter_reject = j == Trial::FilterReject;
            if trials == 1 && theta_t >= theta && self.settings.max_soc > 0 {
                if let Some(jt) =
                    self.second_order_correction(nlp, p, tau, theta, phi, slope, alpha)
                {
                    accepted = Some(jt);
                    alpha = self.soc_alpha;
                    break;
                }
            }
            alpha *= 0.5;
            if alpha < alpha_min {
                break;
            }
        }
        let Some(kind) = accepted else {
            return if any_eval {
                Outcome::Failed
            } else {
                Outcome::EvalError
            };
        };
        if kind == Trial::HType {
            self.augment_filter(theta, phi);
        }
        // IPOPT's filter reset: a filter that blocks the steps of several iterations in a row
        // (typically one built at a much larger infeasibility, leaving the iterates to crawl
        // with tiny steps) is dropped, at most `max_filter_resets` times per solve.
        if trials > 1 && last_filter_reject {
            self.filter_rejections += 1;
            if self.filter_rejections >= FILTER_RESET_TRIGGER
                && self.filter_resets < self.settings.max_filter_resets
                && !self.is_restoration
            {
                self.filter.clear();
                self.filter_resets += 1;
                self.filter_rejections = 0;
            }
        } else {
            self.filter_rejections = 0;
        }
        let alpha_pr = alpha;
        let alpha_du = self.fraction_to_boundary(tau, false);
        // accept the trial point
        std::mem::swap(&mut self.x, &mut self.xt);
        std::mem::swap(&mut self.s, &mut self.st);
        std::mem::swap(&mut self.g, &mut self.gt);
        self.f = self.ft;
        for i in 0..self.m {
            self.y[i] += alpha_pr * self.dy[i];
            self.vl[i] += alpha_du * self.dvl[i];
            self.vu[i] += alpha_du * self.dvu[i];
        }
        for j in 0..self.n {
            self.zl[j] += alpha_du * self.dzl[j];
            self.zu[j] += alpha_du * self.dzu[j];
        }
        self.safeguard_multipliers();
        let step = alpha_pr * crate::solver::kkt::inf_norm(&self.dx);
        self.info.record(IterStats {
            iter: self.info.iterations,
            mu: self.mu,
            step_norm: step,
            alpha_pr,
            alpha_du,
            regularization: self.delta_w,
            ls_trials: trials,
            restoration: self.is_restoration,
            ..IterStats::default()
        });
        Outcome::Accepted
    }

    /// Second-order corrections after a rejected full step. On acceptance the direction
    /// buffers hold the corrected step, `soc_alpha` its step size and the trial buffers the point.
    #[allow(clippy::too_many_arguments)]
    fn second_order_correction(
        &mut self,
        nlp: &dyn Nlp,
        p: &[f64],
        tau: f64,
        theta: f64,
        phi: f64,
        slope: f64,
        alpha0: f64,
    ) -> Option<Trial> {
        self.sol_save.copy_from_slice(&self.sol);
        let mut alpha_soc = alpha0;
        self.csoc.copy_from_slice(&self.rc);
        let _ = theta;
        let mut theta_prev = self.theta_of(true);
        for _ in 0..self.settings.max_soc {
            for i in 0..self.m {
                self.csoc[i] = alpha_soc * self.csoc[i] + (self.gt[i] - self.st[i]);
            }
            self.fill_constraint_rhs(true);
            if !self.solve_and_expand() {
                break;
            }
            alpha_soc = self.fraction_to_boundary(tau, true);
            if !self.eval_trial(nlp, p, alpha_soc) {
                break;
            }
            let theta_t = self.theta_of(true);
            let phi_t = self.barrier_of(true);
            let j = self.judge(theta, phi, theta_t, phi_t, alpha0, slope);
            if !j.rejected() {
                self.soc_alpha = alpha_soc;
                return Some(j);
            }
            if theta_t > KAPPA_SOC * theta_prev {
                break;
            }
            theta_prev = theta_t;
        }
        self.sol.copy_from_slice(&self.sol_save);
        self.expand_direction();
        None
    }
}

#[cfg(test)]
mod tests {
    use super::le_rounded;

    #[test]
    fn comparison_tolerates_rounding_of_the_base_only() {
        // φ ≈ 131: a rise of 1e-14 is below 10 eps |φ| ≈ 2.9e-13, a rise of 1e-12 is not
        assert!(le_rounded(131.0 + 1e-14 - 131.0, 0.0, 131.0));
        assert!(!le_rounded(1e-12, 0.0, 131.0));
        // a required decrease is still required
        assert!(!le_rounded(-1e-9, -1e-8, 131.0));
        assert!(le_rounded(-1e-8, -1e-8, 131.0));
        // a zero base is the exact comparison
        assert!(le_rounded(0.0, 0.0, 0.0));
        assert!(!le_rounded(1e-300, 0.0, 0.0));
    }
}

//! The σ sequence of the homotopy, with shortened retries of failed steps
//! ([`HomotopySettings::step_retries`]). Shared by [`MpccSolver`](super::MpccSolver) and the IPOPT
//! baseline, so that both follow the same sequence.

use super::settings::{HomotopySettings, SigmaUpdate};

/// σ of the next relaxed NLP and the bookkeeping behind it.
///
/// Without retries this is the update rule (`σ_{k+1} = κ σ_k`, or the superlinear
/// `max(σ_N, min(κ σ_k, σ_k^η))`, spec §5.4) for `max_homotopy_steps` steps. With
/// `step_retries = r`, a relaxed NLP that fails after an earlier one was solved is tried again
/// from that solved point `σ_s` with the square root of the ratio that failed (`σ_s κ^{1/2}`,
/// then `σ_s κ^{1/4}`, … for the linear rule; at most `r` times per step); retries do not
/// count as steps. After a solved step with ratio `f` the next σ is `max(σ f², rule(σ))`, so a
/// hard stretch of the path is walked in short steps and the step grows back to the rule's once
/// it is easy again. When the retries of a step are used up, the homotopy goes on as without
/// retries (the rule applied to the failed σ, started from the last solved point), and retries
/// resume after the next solved step.
#[derive(Clone, Debug)]
pub(crate) struct Schedule {
    /// σ of the next relaxed NLP.
    pub sigma: f64,
    kappa: f64,
    rule: SigmaUpdate,
    eta: f64,
    /// `σ_N` of the superlinear rule (0 for the linear one).
    floor: f64,
    /// σ of the next relaxed NLP over the σ it was derived from (the last solved or failed).
    ratio: f64,
    solved: Option<f64>,
    retries: usize,
    retries_left: usize,
    counted: usize,
    max_steps: usize,
    /// The superlinear rule reached `σ_N`: no further steps.
    done: bool,
}

impl Schedule {
    pub fn new(st: &HomotopySettings) -> Schedule {
        let floor = match st.sigma_update {
            SigmaUpdate::Linear => 0.0,
            SigmaUpdate::Superlinear => (0.1 * st.comp_tol).min(1e-9),
        };
        let mut s = Schedule {
            sigma: st.sigma0,
            kappa: st.kappa,
            rule: st.sigma_update,
            eta: st.sigma_update_exponent,
            floor,
            ratio: st.kappa,
            solved: None,
            retries: st.step_retries,
            retries_left: st.step_retries,
            counted: 0,
            max_steps: st.max_homotopy_steps,
            done: false,
        };
        s.ratio = s.rule_next(st.sigma0) / st.sigma0;
        s
    }

    /// The update rule applied to `sigma`.
    fn rule_next(&self, sigma: f64) -> f64 {
        match self.rule {
            SigmaUpdate::Linear => self.kappa * sigma,
            SigmaUpdate::Superlinear => (self.kappa * sigma)
                .min(sigma.powf(self.eta))
                .max(self.floor),
        }
    }

    /// Whether another step is due (`max_homotopy_steps` not reached, `σ_N` not passed).
    pub fn more(&self) -> bool {
        self.counted < self.max_steps && !self.done
    }

    /// Whether the next relaxed NLP is the first one.
    pub fn first(&self) -> bool {
        self.counted == 0 && self.solved.is_none()
    }

    /// Record the outcome of the relaxed NLP at [`Schedule::sigma`] and move to the next σ.
    /// Returns true when the next one is a retry (to be started from the last solved point).
    pub fn advance(&mut self, solved: bool) -> bool {
        if !solved && self.retries_left > 0 && self.counted > 0 {
            if let Some(s) = self.solved {
                self.retries_left -= 1;
                self.ratio = self.ratio.sqrt();
                self.sigma = s * self.ratio;
                return true;
            }
        }
        self.counted += 1;
        let base = self.sigma;
        if self.rule == SigmaUpdate::Superlinear && base <= self.floor {
            self.done = true;
        }
        let next = if solved {
            self.solved = Some(base);
            self.retries_left = self.retries;
            (base * self.ratio * self.ratio).max(self.rule_next(base))
        } else {
            self.retries_left = 0;
            self.rule_next(base)
        };
        self.ratio = next / base;
        self.sigma = next;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(kappa: f64, steps: usize, retries: usize) -> Schedule {
        Schedule::new(&HomotopySettings {
            sigma0: 1.0,
            kappa,
            max_homotopy_steps: steps,
            step_retries: retries,
            ..HomotopySettings::default()
        })
    }

    #[test]
    fn without_retries_sigma_decreases_geometrically() {
        let mut s = schedule(0.5, 4, 0);
        let mut seen = Vec::new();
        while s.more() {
            seen.push(s.sigma);
            assert!(!s.advance(false));
        }
        assert_eq!(seen, [1.0, 0.5, 0.25, 0.125]);
    }

    #[test]
    fn a_failed_step_is_retried_with_the_square_root_of_the_factor() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-15 * b;
        let mut s = schedule(0.01, 10, 2);
        assert!(s.first());
        assert!(!s.advance(true)); // σ = 1 solved
        assert!(close(s.sigma, 0.01));
        assert!(s.advance(false)); // 0.01 failed: retry at 1 · 0.1
        assert!(close(s.sigma, 0.1));
        assert!(s.advance(false)); // 0.1 failed: retry at 1 · 0.01^{1/4}
        assert!(close(s.sigma, 0.01f64.powf(0.25)));
        assert!(!s.advance(false)); // retries used up: counts, σ ← κ σ
        assert!(close(s.sigma, 0.01f64.powf(0.25) * 0.01));
        assert!(!s.advance(false)); // no retries before the next solved step
        assert!(close(s.sigma, 0.01f64.powf(0.25) * 1e-4));
        let s0 = s.sigma;
        assert!(!s.advance(true)); // solved with κ: the next factor is κ
        assert!(close(s.sigma, s0 * 0.01));
        assert!(s.advance(false)); // retries are back
        assert!(close(s.sigma, s0 * 0.1));
        assert!(!s.advance(true)); // solved with κ^{1/2}: the next step uses κ again
        assert!(close(s.sigma, s0 * 0.1 * 0.01));
        assert!(s.advance(false));
        assert!(s.advance(false)); // κ^{1/4}
        assert!(!s.advance(true)); // solved with κ^{1/4}: next κ^{1/2}, then κ
        let s1 = s0 * 0.1 * 0.01f64.powf(0.25);
        assert!(close(s.sigma, s1 * 0.1));
        assert!(!s.advance(true));
        assert!(close(s.sigma, s1 * 0.1 * 0.01));
        assert_eq!(s.counted, 7);
    }

    #[test]
    fn the_superlinear_rule_follows_nosnoc_down_to_sigma_n() {
        // κ = 0.2, η = 1.5 (N's three-cart settings): linear while σ > κ² = 0.04, then σ^1.5,
        // floored at σ_N = min(0.1 comp_tol, 1e-9) = 1e-10, where the homotopy stops.
        let mut s = Schedule::new(&HomotopySettings {
            sigma0: 1.0,
            kappa: 0.2,
            sigma_update: SigmaUpdate::Superlinear,
            max_homotopy_steps: 100,
            comp_tol: 1e-9,
            ..HomotopySettings::default()
        });
        let mut seen = Vec::new();
        while s.more() {
            seen.push(s.sigma);
            s.advance(true);
        }
        let mut want = vec![1.0, 0.2, 0.04];
        let mut x: f64 = 0.04;
        while x > 1e-10 {
            x = (0.2 * x).min(x.powf(1.5)).max(1e-10);
            want.push(x);
        }
        assert_eq!(want.len(), 8, "{want:?}");
        assert_eq!(seen.len(), want.len(), "{seen:?}");
        for (a, b) in seen.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-12 * b, "{seen:?} vs {want:?}");
        }
        assert!((seen[3] - 0.008).abs() < 1e-15 && (seen[4] - 0.008f64.powf(1.5)).abs() < 1e-15);
    }

    #[test]
    fn a_failed_superlinear_step_is_retried_at_the_geometric_mean() {
        let mut s = Schedule::new(&HomotopySettings {
            sigma0: 0.01,
            kappa: 0.2,
            sigma_update: SigmaUpdate::Superlinear,
            step_retries: 1,
            ..HomotopySettings::default()
        });
        assert!(!s.advance(true)); // 0.01 solved; next 0.01^1.5 = 1e-3
        assert!((s.sigma - 1e-3).abs() < 1e-15);
        assert!(s.advance(false)); // retry at √(0.01 · 1e-3)
        assert!((s.sigma - 1e-5f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn a_first_step_that_fails_is_not_retried() {
        let mut s = schedule(0.1, 3, 4);
        assert!(!s.advance(false));
        assert!((s.sigma - 0.1).abs() < 1e-15);
    }

    #[test]
    fn retries_do_not_count_as_steps() {
        let mut s = schedule(0.1, 2, 3);
        assert!(!s.advance(true));
        for _ in 0..3 {
            assert!(s.advance(false));
            assert!(s.more());
        }
        assert!(!s.advance(false));
        assert!(!s.more());
    }
}

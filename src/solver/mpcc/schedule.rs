//! The σ sequence of the homotopy, with shortened retries of failed steps
//! ([`MpccSettings::step_retries`]). Shared by [`MpccSolver`](super::MpccSolver) and the IPOPT
//! baseline, so that both follow the same sequence.

use super::settings::MpccSettings;

/// σ of the next relaxed NLP and the bookkeeping behind it.
///
/// Without retries this is `σ_{k+1} = κ σ_k` for `max_homotopy_steps` steps. With
/// `step_retries = r`, a relaxed NLP that fails after an earlier one was solved is tried again
/// from that solved point `σ_s` with the square root of the factor that failed (`σ_s κ^{1/2}`,
/// then `σ_s κ^{1/4}`, …; at most `r` times per step); retries do not count as steps. After a
/// solved step with factor `f` the next one uses `max(f², κ)`, so a hard stretch of the path is
/// walked in short steps and the step grows back to κ once it is easy again. When the retries
/// of a step are used up, the homotopy goes on as without retries (`σ ← κ σ` from the failed
/// σ, started from the last solved point), and retries resume after the next solved step.
#[derive(Clone, Debug)]
pub(crate) struct Schedule {
    /// σ of the next relaxed NLP.
    pub sigma: f64,
    kappa: f64,
    /// Factor of the next relaxed NLP against the last solved (or failed) σ.
    factor: f64,
    solved: Option<f64>,
    retries: usize,
    retries_left: usize,
    counted: usize,
    max_steps: usize,
}

impl Schedule {
    pub fn new(st: &MpccSettings) -> Schedule {
        Schedule {
            sigma: st.sigma0,
            kappa: st.kappa,
            factor: st.kappa,
            solved: None,
            retries: st.step_retries,
            retries_left: st.step_retries,
            counted: 0,
            max_steps: st.max_homotopy_steps,
        }
    }

    /// Whether another step is due (`max_homotopy_steps` not reached).
    pub fn more(&self) -> bool {
        self.counted < self.max_steps
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
                self.factor = self.factor.sqrt();
                self.sigma = s * self.factor;
                return true;
            }
        }
        self.counted += 1;
        if solved {
            self.solved = Some(self.sigma);
            self.retries_left = self.retries;
            self.factor = (self.factor * self.factor).max(self.kappa);
        } else {
            self.retries_left = 0;
            self.factor = self.kappa;
        }
        self.sigma *= self.factor;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(kappa: f64, steps: usize, retries: usize) -> Schedule {
        Schedule::new(&MpccSettings {
            sigma0: 1.0,
            kappa,
            max_homotopy_steps: steps,
            step_retries: retries,
            ..MpccSettings::default()
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

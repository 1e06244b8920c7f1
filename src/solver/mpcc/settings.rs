//! Settings of the MPCC homotopy ([`HomotopySettings`]) with their serde form: a partial `ipm`
//! section is read over the homotopy's own IPM defaults.

use super::relaxed::Relaxation;
use crate::solver::ad_nlp::HessianApproximation;
use crate::solver::error::SolverError;
use crate::solver::settings::Settings;
use serde::{Deserialize, Serialize};

/// When to run the polishing step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Polish {
    /// Never.
    Never,
    /// Only when the homotopy did not reach the complementarity tolerance (default).
    IfNotConverged,
    /// Always (kept only if it does not worsen the objective).
    Always,
}

/// Complementarity measure of the homotopy's stop test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopMeasure {
    /// `max_i min(G_i, H_i)` (default).
    Min,
    /// `max_i G_i H_i`, the residual `r_⊥` of formulation §5.5 that nosnoc's loop tests
    /// (§5.4). Members of biactive pairs sit at `≈ √σ` in the relaxed NLPs, so with `Min` the
    /// loop cannot stop before `σ ≈ comp_tol²`; `Product` stops at `σ ≈ comp_tol`.
    Product,
}

impl StopMeasure {
    /// This measure from the residuals `max min(G, H)` and `max G·H`.
    pub fn of(self, rmin: f64, rprod: f64) -> f64 {
        match self {
            StopMeasure::Min => rmin,
            StopMeasure::Product => rprod,
        }
    }
}

/// Update rule of the relaxation parameter (spec §5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SigmaUpdate {
    /// `σ_{k+1} = κ σ_k` (default).
    Linear,
    /// `σ_{k+1} = max(σ_N, min(κ σ_k, σ_k^η))` with η = `sigma_update_exponent` and nosnoc's
    /// floor `σ_N = min(0.1 comp_tol, 1e-9)`; the homotopy stops after the NLP at `σ_N`.
    Superlinear,
}

/// Settings of the MPCC homotopy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HomotopySettings {
    /// Relaxation of the complementarity pairs.
    pub relaxation: Relaxation,
    /// Initial relaxation parameter σ₀.
    pub sigma0: f64,
    /// Decrease factor κ: `σ_{k+1} = κ σ_k`.
    pub kappa: f64,
    /// Update rule of σ (`linear`, default, or `superlinear`).
    pub sigma_update: SigmaUpdate,
    /// Exponent η > 1 of the superlinear rule (nosnoc's `homotopy_update_exponent`, 1.5).
    pub sigma_update_exponent: f64,
    /// Maximum number of homotopy steps (relaxed NLPs, not counting retries).
    pub max_homotopy_steps: usize,
    /// Retries of a failed step with a shorter step in σ (κ^{1/2}, κ^{1/4}, … from the last
    /// solved point; default 0: a failed step is followed by the next smaller σ). See
    /// `Schedule` in `solver/mpcc/schedule.rs`.
    pub step_retries: usize,
    /// Tolerance of the stop test (on `max_i min(G_i, H_i)` by default, see `stop_measure`).
    pub comp_tol: f64,
    /// Which complementarity measure `comp_tol` applies to.
    pub stop_measure: StopMeasure,
    /// Polishing step.
    pub polish: Polish,
    /// Polish early: when a relaxed NLP fails and the last solved point already has
    /// `max_i min(G_i, H_i)` at most this, the polishing step is tried from that point at once
    /// (once per solved point); if it is kept the homotopy ends there, otherwise it goes on.
    /// Saves the retries and steps a homotopy otherwise spends at tiny σ, where relaxed NLPs
    /// of degenerate problems end in restoration failures although the point is as good as
    /// polished. 0 (default) turns it off; needs `polish` other than `never`.
    pub early_polish_residual: f64,
    /// A warm-started solve ([`super::MpccSolver::solve_warm_into`]) first tries the
    /// active-set NLP of its start point (a BNLP: every pair's smaller side at the start fixed
    /// to zero, no relaxation), and runs the homotopy only when that NLP fails or its solution
    /// misses the stop test (formulation §4.8). A receding-horizon tick whose contact schedule
    /// is the previous plan's then costs one smooth NLP. Default false.
    pub warm_active_set: bool,
    /// IPM iteration limit of that active-set NLP (a schedule that has to change shows as a
    /// slow or failing solve; the homotopy then takes over). Default 50.
    pub warm_active_set_max_iter: usize,
    /// Initial barrier parameter of the warm-started subproblems is `mu_warm_factor σ_k`
    /// (clamped to `[1e-9, 1e-3]`).
    pub mu_warm_factor: f64,
    /// Wall-clock limit for the whole homotopy, seconds (both paths when `second_path_sigma0`
    /// is set).
    pub max_wall_time: f64,
    /// A second homotopy path: after a cold-started solve (not a warm start, see
    /// [`super::MpccSolver::solve_warm_into`]) the homotopy runs again from the same start
    /// point with `σ₀` = this value (same κ, step limit and stop test), within what is left of
    /// `max_wall_time`, and the solve keeps the path whose result is better: solved before
    /// not solved, then the objective lower beyond rounding
    /// ([`super::SECOND_PATH_RTOL`]; the first path otherwise). The relaxed NLPs of nonconvex MPCCs have several
    /// local solutions, and which one the first NLP (at `σ₀`) reaches decides the local
    /// optimum of the whole path (docs/nosbench.md, "Two homotopy paths"). 0 (default) turns
    /// it off; `fesdj mpcc solve` sets `σ₀/√κ` ≈ 3.16
    /// ([`HomotopySettings::for_problem_files`]).
    pub second_path_sigma0: f64,
    /// A fallback path for warm starts **[ours]**: when the homotopy of a warm-started solve
    /// (an MPC tick) does not succeed, it runs again from the same warm start with `σ₀` = this
    /// value and without the warm active-set attempt, within what is left of
    /// `max_wall_time`. With a small warm `σ₀` (the first relaxed NLP already at the target,
    /// which converges in a few iterations from a good warm start) the first path then stops
    /// at its first failed relaxed NLP, each of its NLPs limited to `warm_first_max_iter` IPM
    /// iterations. 0 (default) turns it off.
    pub warm_fallback_sigma0: f64,
    /// IPM iteration limit of each relaxed NLP of a warm start's first path when
    /// `warm_fallback_sigma0` is set (0: `ipm.max_iter`).
    pub warm_first_max_iter: usize,
    /// An iteration budget for warm starts **[ours]** (formulation §4.8): the first relaxed NLP
    /// of a warm-started solve stops at the first iterate after this many IPM iterations that
    /// meets the constraint tolerance (`ipm.constr_viol_tol`) and the stop test (`comp_tol`);
    /// that feasible, not yet optimal point is the solution (status `FeasibleBudget`), and the
    /// next tick's warm start goes on from it. 0 (default) turns it off.
    pub warm_iteration_budget: usize,
    /// The Hessian of the Lagrangian of the NLPs built from a problem file (`exact`, default,
    /// or `gauss_newton`: the objective's alone, see [`HessianApproximation`]). The homotopy
    /// itself does not read it; the builder of the NLP does (`FesdjProblem::new`; a
    /// `Simulator` always takes the exact one).
    pub hessian: HessianApproximation,
    /// Threads that evaluate the constraint Jacobian of the NLPs built from a problem file
    /// (`AdNlp::set_jacobian_threads`: the caller's and `eval_threads − 1` workers; 1, the
    /// default, evaluates it on the caller's thread alone). Like `hessian`, read by the
    /// builder of the NLP (`FesdjProblem::new`; a `Simulator` always takes 1).
    pub eval_threads: usize,
    /// Settings of the interior-point method. A partial `ipm` section (e.g. `{print: true}`)
    /// changes only the keys it names: the others keep *these* defaults (tol 1e-10, mu_min
    /// 1e-13, warm-start pushes 1e-9), not the plain IPM's `Settings::default()`.
    #[serde(deserialize_with = "ipm_over_mpcc_defaults")]
    pub ipm: Settings,
}

/// Deserialize a (partial) IPM section over [`HomotopySettings::default`]'s IPM settings: the
/// defaults are written as a map, the given keys replace theirs, and the result is read back
/// (unknown keys stay errors). Non-finite defaults (e.g. `max_wall_time = ∞`) cannot be
/// written as JSON numbers; they are left out and come from `Settings::default()`, which has
/// the same values for them (checked in the unit tests).
fn ipm_over_mpcc_defaults<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Settings, D::Error> {
    use serde::de::Error;
    let given = serde_json::Value::deserialize(d)?;
    let serde_json::Value::Object(given) = given else {
        return Err(D::Error::custom("ipm: expected a map of IPM settings"));
    };
    let mut base = match serde_json::to_value(HomotopySettings::default().ipm) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    base.retain(|_, v| !v.is_null());
    base.extend(given);
    serde_json::from_value(serde_json::Value::Object(base)).map_err(D::Error::custom)
}

impl Default for HomotopySettings {
    fn default() -> Self {
        HomotopySettings {
            relaxation: Relaxation::Scholtes,
            sigma0: 1.0,
            kappa: 0.1,
            sigma_update: SigmaUpdate::Linear,
            sigma_update_exponent: 1.5,
            max_homotopy_steps: 12,
            step_retries: 0,
            comp_tol: 1e-9,
            stop_measure: StopMeasure::Min,
            polish: Polish::IfNotConverged,
            early_polish_residual: 0.0,
            warm_active_set: false,
            warm_active_set_max_iter: 50,
            mu_warm_factor: 0.1,
            max_wall_time: f64::INFINITY,
            second_path_sigma0: 0.0,
            warm_fallback_sigma0: 0.0,
            warm_first_max_iter: 0,
            warm_iteration_budget: 0,
            hessian: HessianApproximation::Exact,
            eval_threads: 1,
            // Warm starts along the homotopy push the previous solution only 1e-9 off the
            // bounds (IPOPT's default 1e-3 is meant for one warm-started NLP): at σ_k ≪ 1e-3 a
            // 1e-3 push moves every biactive pair G = H ≈ √σ_k outside the relaxed set
            // G·H ≤ σ_k, and the ladder-9 ball checks (slip-rate stick time, plain-conic
            // multiplier growth) then fail.
            ipm: Settings {
                tol: 1e-10,
                mu_min: 1e-13,
                warm_start_bound_push: 1e-9,
                warm_start_slack_bound_push: 1e-9,
                warm_start_mult_bound_push: 1e-9,
                ..Settings::default()
            },
        }
    }
}

impl HomotopySettings {
    /// The defaults of an MPCC read from a problem file (`fesdj mpcc solve`, `fesdj mpcc
    /// bench`): [`HomotopySettings::default`] with a second homotopy path from `σ₀/√κ`
    /// (≈ 3.16): its σ values lie halfway, on a log scale, between the first path's, starting
    /// half a step looser. An offline solve of a problem of unknown structure pays up to twice
    /// the time for the better of two local optima; the controllers and OCPs, which have their
    /// own settings, do not.
    pub fn for_problem_files() -> HomotopySettings {
        let d = HomotopySettings::default();
        HomotopySettings {
            second_path_sigma0: d.sigma0 / d.kappa.sqrt(),
            ..d
        }
    }

    /// The most relaxed NLPs one homotopy can record: every step with all its retries, one
    /// early polishing attempt per solved step, plus the polishing steps and the warm
    /// active-set attempt.
    pub fn max_recorded_steps(&self) -> usize {
        let one = self
            .max_homotopy_steps
            .saturating_mul(self.step_retries.saturating_add(2))
            .saturating_add(3);
        if self.warm_fallback_sigma0 > 0.0 {
            one.saturating_mul(2)
        } else {
            one
        }
    }

    /// Check the ranges.
    pub fn validate(&self) -> Result<(), SolverError> {
        self.ipm.validate()?;
        let err = |name: &'static str, why: String| Err(SolverError::InvalidSetting { name, why });
        if !(self.sigma0 > 0.0) {
            return err("sigma0", format!("must be > 0, got {}", self.sigma0));
        }
        if !(self.kappa > 0.0 && self.kappa < 1.0) {
            return err("kappa", format!("must be in (0, 1), got {}", self.kappa));
        }
        if self.max_homotopy_steps == 0 {
            return err("max_homotopy_steps", "must be >= 1".into());
        }
        if !(1..=64).contains(&self.eval_threads) {
            return err(
                "eval_threads",
                format!("must be in 1..=64, got {}", self.eval_threads),
            );
        }
        if !(self.sigma_update_exponent > 1.0 && self.sigma_update_exponent.is_finite()) {
            return err(
                "sigma_update_exponent",
                format!("must be > 1, got {}", self.sigma_update_exponent),
            );
        }
        if self.step_retries > 20 {
            // κ^{1/2^20} differs from 1 by less than 1e-5 for any κ ≥ 1e-5: more is pointless
            // and would only size the step record.
            return err(
                "step_retries",
                format!("must be <= 20, got {}", self.step_retries),
            );
        }
        if self.warm_active_set_max_iter == 0 {
            return err("warm_active_set_max_iter", "must be >= 1".into());
        }
        if !(self.comp_tol > 0.0) {
            return err("comp_tol", format!("must be > 0, got {}", self.comp_tol));
        }
        if !(self.early_polish_residual >= 0.0 && self.early_polish_residual.is_finite()) {
            return err(
                "early_polish_residual",
                format!(
                    "must be finite and >= 0, got {}",
                    self.early_polish_residual
                ),
            );
        }
        if !(self.mu_warm_factor > 0.0) {
            return err(
                "mu_warm_factor",
                format!("must be > 0, got {}", self.mu_warm_factor),
            );
        }
        if !(self.warm_fallback_sigma0 >= 0.0 && self.warm_fallback_sigma0.is_finite()) {
            return err(
                "warm_fallback_sigma0",
                format!("must be finite and >= 0, got {}", self.warm_fallback_sigma0),
            );
        }
        if !(self.second_path_sigma0 >= 0.0 && self.second_path_sigma0.is_finite()) {
            return err(
                "second_path_sigma0",
                format!(
                    "must be finite and >= 0 (0: off), got {}",
                    self.second_path_sigma0
                ),
            );
        }
        if !(self.max_wall_time > 0.0) {
            return err(
                "max_wall_time",
                format!("must be > 0, got {}", self.max_wall_time),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_ipm_section_keeps_the_homotopy_defaults() {
        let s: HomotopySettings =
            serde_saphyr::from_str("relaxation: l1_penalty\nipm: {print: true, max_iter: 77}\n")
                .unwrap();
        let mut want = HomotopySettings::default().ipm;
        want.print = true;
        want.max_iter = 77;
        assert_eq!(s.ipm, want);
        assert_eq!(s.ipm.tol, 1e-10);
        assert_eq!(s.ipm.warm_start_bound_push, 1e-9);
        // The defaults the map cannot carry (non-finite) are equal in both default sets.
        let (a, b) = (HomotopySettings::default().ipm, Settings::default());
        assert_eq!(a.max_wall_time, b.max_wall_time);
        let json = serde_json::to_value(&a).unwrap();
        let nulls: Vec<&String> = json
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, v)| v.is_null())
            .map(|(k, _)| k)
            .collect();
        assert_eq!(nulls, ["max_wall_time"], "non-finite defaults");
    }

    #[test]
    fn the_documented_settings_block_is_the_defaults() {
        // The problem-file reference (docs/problem-files.md, moved there from the README).
        let readme = include_str!("../../../docs/problem-files.md");
        let start = readme
            .find("### `solver` section")
            .and_then(|i| readme[i..].find("```yaml\n").map(|j| i + j + 8))
            .expect("docs/problem-files.md has the settings block");
        let end = start + readme[start..].find("```").expect("block ends");
        let s: HomotopySettings = serde_saphyr::from_str(&readme[start..end]).unwrap();
        let d = HomotopySettings::default();
        // Every key of the block is a setting and every value the default (the unlimited wall
        // times are comments: YAML's `.inf` is not accepted in settings files).
        assert_eq!(s, d);
        let block = &readme[start..end];
        let keys = serde_json::to_value(&d).unwrap();
        for k in keys.as_object().unwrap().keys() {
            assert!(
                block.contains(&format!("{k}:")),
                "the documented settings block lacks {k}"
            );
        }
        let ipm = serde_json::to_value(&d.ipm).unwrap();
        for k in ipm.as_object().unwrap().keys() {
            assert!(
                block.contains(&format!(" {k}:")),
                "the documented ipm block lacks {k}"
            );
        }
    }

    #[test]
    fn unknown_ipm_keys_are_errors_naming_the_key() {
        let e = serde_saphyr::from_str::<HomotopySettings>("ipm: {tolerance: 1e-6}\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("tolerance"), "{e}");
    }
}

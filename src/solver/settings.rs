//! Solver settings (defaults follow IPOPT's where an equivalent exists).

use super::error::SolverError;
use serde::{Deserialize, Serialize};

/// Barrier parameter strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MuStrategy {
    /// Fiacco–McCormick: keep μ until the barrier problem is solved to `kappa_eps μ`, then
    /// `μ ← max(tol/10, min(kappa_mu μ, μ^theta_mu))`.
    Monotone,
    /// LOQO-style rule `μ = σ(ξ) · avg complementarity` each iteration, falling back to the
    /// monotone rule when the KKT error stops decreasing.
    Adaptive,
}

/// Numeric LDLᵀ factorisation of the KKT matrix (both use the same AMD pivot order, no
/// pivoting; their results differ only by rounding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KktFactorization {
    /// Supernodal when the factor has at least 200 multiply-adds per column, else simplicial.
    Auto,
    /// Scalar up-looking LDLᵀ, one row at a time.
    Simplicial,
    /// Supernodal left-looking LDLᵀ with dense panels.
    Supernodal,
}

/// Settings of the interior-point method. All fields have defaults (`Settings::default()`);
/// in YAML/JSON any subset may be given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Desired (scaled) overall optimality tolerance.
    pub tol: f64,
    /// Unscaled dual infeasibility tolerance for termination.
    pub dual_inf_tol: f64,
    /// Unscaled constraint violation tolerance for termination.
    pub constr_viol_tol: f64,
    /// Unscaled complementarity tolerance for termination.
    pub compl_inf_tol: f64,
    /// "Acceptable" (scaled) tolerance.
    pub acceptable_tol: f64,
    /// Unscaled constraint violation for an acceptable point.
    pub acceptable_constr_viol_tol: f64,
    /// Number of consecutive acceptable iterations after which the solver stops as Acceptable.
    pub acceptable_iter: usize,
    /// Maximum number of iterations.
    pub max_iter: usize,
    /// Wall-clock limit in seconds (`f64::INFINITY` for none).
    pub max_wall_time: f64,
    /// Initial barrier parameter.
    pub mu_init: f64,
    /// Smallest barrier parameter.
    pub mu_min: f64,
    /// Barrier strategy.
    pub mu_strategy: MuStrategy,
    /// Linear factor of the monotone barrier decrease.
    pub kappa_mu: f64,
    /// Superlinear exponent of the monotone barrier decrease.
    pub theta_mu: f64,
    /// The barrier problem counts as solved when its error is below `kappa_eps μ`.
    pub kappa_eps: f64,
    /// Lower bound of the fraction-to-the-boundary parameter τ.
    pub tau_min: f64,
    /// Absolute push of the initial point from bounds.
    pub bound_push: f64,
    /// Relative push of the initial point from bounds.
    pub bound_frac: f64,
    /// Push from bounds used for a warm start (primal).
    pub warm_start_bound_push: f64,
    /// Push of the inequality slacks from their bounds on a warm start (IPOPT's
    /// `warm_start_slack_bound_push`, default 1e-3 there too). Separate from the primal push:
    /// an MPCC homotopy keeps the primal push tiny so that a biactive pair stays inside the
    /// next relaxation, but the slack of an active Scholtes row `G H <= sigma_k` must start
    /// well inside its new bound or the first steps are cut to nothing.
    pub warm_start_slack_bound_push: f64,
    /// Minimum bound multiplier for a warm start.
    pub warm_start_mult_bound_push: f64,
    /// Initial value of bound multipliers on a cold start.
    pub bound_mult_init_val: f64,
    /// Least-squares constraint multipliers on a cold start are discarded above this.
    pub constr_mult_init_max: f64,
    /// Safeguard factor keeping bound multipliers near `μ / slack`.
    pub kappa_sigma: f64,
    /// Gradient-based scaling: scale rows/objective with gradient norms above this.
    pub nlp_scaling_max_gradient: f64,
    /// Apply gradient-based scaling.
    pub scaling: bool,
    /// Maximum number of second-order corrections per iteration.
    pub max_soc: usize,
    /// Static dual regularisation δ_c (quasi-definite KKT matrix).
    pub dual_regularization: f64,
    /// Equilibrate each KKT matrix symmetrically (Ruiz) before factorising it (opt-in, see
    /// `Kkt::set_options` for what it does and does not fix).
    pub kkt_equilibration: bool,
    /// Follow stalled iterative refinement with GMRES preconditioned by the factor (opt-in).
    pub kkt_gmres: bool,
    /// Numeric factorisation of the KKT matrix (default `simplicial`: the results every shipped
    /// problem and test was tuned with; `auto` and `supernodal` differ from it by rounding,
    /// and some homotopies follow rounding to other points).
    pub kkt_factorization: KktFactorization,
    /// Maximum iterative-refinement steps per KKT solve.
    pub max_refinement_steps: usize,
    /// First primal regularisation tried by the inertia correction.
    pub first_hessian_perturbation: f64,
    /// Largest primal regularisation before giving up.
    pub max_hessian_perturbation: f64,
    /// Skip the δ_w = 0 trial of the inertia correction while the previous iteration needed a
    /// perturbation: start from δ_w^last / 3 (Wächter & Biegler's decrease) instead. Saves one
    /// factorisation per iteration on problems whose Hessian is singular on the null space of
    /// the Jacobian at every iterate (Gauss–Newton Hessians of lifted dynamics); off by default
    /// (IPOPT always tries δ_w = 0 first).
    pub hessian_perturbation_memory: bool,
    /// Run the feasibility-restoration phase when the line search fails.
    pub restoration: bool,
    /// Filter resets per solve (IPOPT's `max_filter_resets`): the filter is dropped after 5
    /// consecutive iterations whose last rejected trial point passed the decrease test but
    /// not the filter. 0 switches the heuristic off.
    pub max_filter_resets: usize,
    /// Stop when the iterates diverge beyond this norm.
    pub diverging_iterates_tol: f64,
    /// Print the iteration log.
    pub print: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            tol: 1e-8,
            dual_inf_tol: 1.0,
            constr_viol_tol: 1e-4,
            compl_inf_tol: 1e-4,
            acceptable_tol: 1e-6,
            acceptable_constr_viol_tol: 1e-2,
            acceptable_iter: 15,
            max_iter: 3000,
            max_wall_time: f64::INFINITY,
            mu_init: 0.1,
            mu_min: 1e-11,
            mu_strategy: MuStrategy::Monotone,
            kappa_mu: 0.2,
            theta_mu: 1.5,
            kappa_eps: 10.0,
            tau_min: 0.99,
            bound_push: 1e-2,
            bound_frac: 1e-2,
            warm_start_bound_push: 1e-3,
            warm_start_slack_bound_push: 1e-3,
            warm_start_mult_bound_push: 1e-3,
            bound_mult_init_val: 1.0,
            constr_mult_init_max: 1e3,
            kappa_sigma: 1e10,
            nlp_scaling_max_gradient: 100.0,
            scaling: true,
            max_soc: 4,
            dual_regularization: 1e-9,
            kkt_equilibration: false,
            kkt_gmres: false,
            kkt_factorization: KktFactorization::Simplicial,
            max_refinement_steps: 10,
            first_hessian_perturbation: 1e-4,
            max_hessian_perturbation: 1e40,
            hessian_perturbation_memory: false,
            restoration: true,
            max_filter_resets: 5,
            diverging_iterates_tol: 1e20,
            print: false,
        }
    }
}

impl Settings {
    /// Check every setting's range.
    pub fn validate(&self) -> Result<(), SolverError> {
        fn pos(name: &'static str, v: f64) -> Result<(), SolverError> {
            if v > 0.0 && !v.is_nan() {
                Ok(())
            } else {
                Err(SolverError::InvalidSetting {
                    name,
                    why: format!("must be > 0, got {v}"),
                })
            }
        }
        fn open01(name: &'static str, v: f64) -> Result<(), SolverError> {
            if v > 0.0 && v < 1.0 {
                Ok(())
            } else {
                Err(SolverError::InvalidSetting {
                    name,
                    why: format!("must be in (0, 1), got {v}"),
                })
            }
        }
        pos("tol", self.tol)?;
        pos("dual_inf_tol", self.dual_inf_tol)?;
        pos("constr_viol_tol", self.constr_viol_tol)?;
        pos("compl_inf_tol", self.compl_inf_tol)?;
        pos("acceptable_tol", self.acceptable_tol)?;
        pos(
            "acceptable_constr_viol_tol",
            self.acceptable_constr_viol_tol,
        )?;
        pos("max_wall_time", self.max_wall_time)?;
        pos("mu_init", self.mu_init)?;
        pos("mu_min", self.mu_min)?;
        open01("kappa_mu", self.kappa_mu)?;
        if !(self.theta_mu > 1.0 && self.theta_mu < 2.0) {
            return Err(SolverError::InvalidSetting {
                name: "theta_mu",
                why: format!("must be in (1, 2), got {}", self.theta_mu),
            });
        }
        pos("kappa_eps", self.kappa_eps)?;
        open01("tau_min", self.tau_min)?;
        pos("bound_push", self.bound_push)?;
        if !(self.bound_frac > 0.0 && self.bound_frac <= 0.5) {
            return Err(SolverError::InvalidSetting {
                name: "bound_frac",
                why: format!("must be in (0, 0.5], got {}", self.bound_frac),
            });
        }
        pos("warm_start_bound_push", self.warm_start_bound_push)?;
        pos(
            "warm_start_slack_bound_push",
            self.warm_start_slack_bound_push,
        )?;
        pos(
            "warm_start_mult_bound_push",
            self.warm_start_mult_bound_push,
        )?;
        pos("bound_mult_init_val", self.bound_mult_init_val)?;
        pos("constr_mult_init_max", self.constr_mult_init_max)?;
        if self.kappa_sigma < 1.0 {
            return Err(SolverError::InvalidSetting {
                name: "kappa_sigma",
                why: format!("must be >= 1, got {}", self.kappa_sigma),
            });
        }
        pos("nlp_scaling_max_gradient", self.nlp_scaling_max_gradient)?;
        pos("dual_regularization", self.dual_regularization)?;
        pos(
            "first_hessian_perturbation",
            self.first_hessian_perturbation,
        )?;
        pos("max_hessian_perturbation", self.max_hessian_perturbation)?;
        pos("diverging_iterates_tol", self.diverging_iterates_tol)?;
        if self.max_iter == 0 {
            return Err(SolverError::InvalidSetting {
                name: "max_iter",
                why: "must be >= 1".into(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_roundtrip() {
        let s = Settings::default();
        s.validate().unwrap();
        let y = serde_saphyr::to_string(&s).unwrap();
        let back: Settings = serde_saphyr::from_str(&y).unwrap();
        assert_eq!(back, s);
        let partial: Settings =
            serde_saphyr::from_str("tol: 1.0e-6\nmu_strategy: adaptive\n").unwrap();
        assert_eq!(partial.tol, 1e-6);
        assert_eq!(partial.mu_strategy, MuStrategy::Adaptive);
        let bad = Settings {
            kappa_mu: 2.0,
            ..Settings::default()
        };
        assert!(bad.validate().is_err());
    }
}

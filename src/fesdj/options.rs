//! Options of the FESD-J transcription, with the defaults of the spec (Appendix A, and the
//! **[spec]** recommendations where they differ from nosnoc: polyhedral friction by default,
//! §1.5).
//!
//! Deserialised with `deny_unknown_fields` and snake_case names; [`FesdjOptions::validate`]
//! checks ranges and consistency and names the offending field.

use serde::{Deserialize, Serialize};

use super::error::{invalid, FesdjError};
use super::tableau::{RkScheme, MAX_STAGES};

/// Representation of the Runge–Kutta equations (§3.2, nosnoc `rk_representation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RkRepresentation {
    /// Collocation ("Lagrange") form `h F(x_{n,j}) = Σ_r C_{r,j} x_{n,r}`, `x_{n+1} = Σ_r D_r
    /// x_{n,r}` with the stage states as variables (default). Equivalent to (12).
    #[default]
    Integral,
    /// Stage derivatives as variables, stage states substituted (§3.2). Not implemented yet:
    /// [`FesdjOptions::validate`] rejects it.
    Differential,
}

/// Cross-complementarity aggregation (§3.7.5, nosnoc `cross_comp_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CrossCompMode {
    /// `a_j ∘ b_{j'} = 0` for all `j, j'` (legacy code 1).
    #[serde(alias = "stage_stage")]
    StageStage,
    /// `(Σ_j a_j) ∘ b_{j'} = 0` for all `j'` (code 3, default).
    #[default]
    #[serde(alias = "fe_stage")]
    FeStage,
    /// `a_j ∘ (Σ_{j'} b_{j'}) = 0` for all `j` (code 4).
    #[serde(alias = "stage_fe")]
    StageFe,
    /// `(Σ_j a_j) ∘ (Σ_{j'} b_{j'}) = 0` (code 7).
    #[serde(alias = "fe_fe")]
    FeFe,
}

/// Step equilibration (§3.8.4, nosnoc `step_equilibration`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum StepEquilibration {
    /// No step equilibration (the step sizes may be undetermined without switches).
    None,
    /// Cost `ρ_h Σ_{k,n} (h_{k,n} − h̄)²` (default).
    #[default]
    HeuristicMean,
    /// Cost `ρ_h Σ_k Σ_{n≥1} (h_{k,n} − h_{k,n−1})²` ([P] Remark 4).
    HeuristicDiff,
    /// Cost `ρ_h Σ η_n Δh_n²` with the indicator of §3.8.1–3.8.3.
    L2Relaxed,
    /// Cost `ρ_h Σ tanh(η_n/ε_η) Δh_n²`.
    L2RelaxedScaled,
    /// Constraint (26) `tanh(η_n/ε_η) Δh_n = 0` (same zero set as `η_n Δh_n = 0`).
    Direct,
}

/// Friction model (§1.3–1.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum FrictionModel {
    /// Polyhedral cone (7)–(8) with `D = [J_t, −J_t]` (default **[spec]**, exact in 2D;
    /// nosnoc's default is conic, which is ill-posed without contact, §1.5).
    #[default]
    Polyhedral,
    /// Circular cone (5) / (5'), see [`ConicFormulation`] and [`ConicSwitchHandling`].
    Conic,
}

/// Which complementarity form of the conic friction law is used (§1.3, §1.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ConicFormulation {
    /// The KKT form (5)/(11d)–(11f) of [P] and nosnoc. Ill-posed whenever `λ_n = 0` and
    /// `v_t ≠ 0` (§1.5): multipliers grow without bound along the homotopy.
    Kkt,
    /// The slip-rate variant (5')/(11') **[spec]** (default for the conic model): well posed
    /// without contact; not in [P] or nosnoc.
    #[default]
    SlipRate,
}

/// Switch handling of the conic model (nosnoc `conic_model_switch_handling`, §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ConicSwitchHandling {
    /// (5) only, no tangential-velocity parts.
    Plain,
    /// Positive/negative parts `ξ±` of `J_tᵀ v` (6) (default).
    #[default]
    Abs,
    /// `ξ±` with a step variable `α ∈ [0, 1]` (the bound is ours, §7 item 5).
    Lp,
}

/// An initial value per contact: one number for every contact, or a list with one entry per
/// contact (in the model's contact order), e.g. the three-box script's `λ_n = (0, 0, g, g, g)`
/// (§5.9, §6.3). In YAML/JSON a number or a list of numbers.
#[derive(Clone, Debug, PartialEq)]
pub enum PerContact {
    /// The same value at every contact.
    All(f64),
    /// One value per contact.
    Each(Vec<f64>),
}

impl PerContact {
    /// The value at contact `l` (for [`PerContact::Each`], `l` must be below the list's
    /// length, which [`InitialGuess::check_contacts`] ensures before a transcription).
    pub fn at(&self, l: usize) -> f64 {
        match self {
            PerContact::All(x) => *x,
            PerContact::Each(v) => v[l],
        }
    }

    /// The values at contacts `0..n_c`.
    pub fn values(&self, n_c: usize) -> Vec<f64> {
        (0..n_c).map(|l| self.at(l)).collect()
    }

    /// Error naming `field` unless the value fits a model with `n_c` contacts (a list of
    /// length `n_c`; a single number always fits).
    pub fn check_len(&self, field: &str, n_c: usize) -> Result<(), FesdjError> {
        match self {
            PerContact::Each(v) if v.len() != n_c => Err(invalid(
                field,
                format!(
                    "a per-contact list needs one entry per contact: the model has {n_c} \
                     contacts, the list has {} entries",
                    v.len()
                ),
            )),
            _ => Ok(()),
        }
    }
}

impl From<f64> for PerContact {
    fn from(x: f64) -> Self {
        PerContact::All(x)
    }
}

impl From<Vec<f64>> for PerContact {
    fn from(v: Vec<f64>) -> Self {
        PerContact::Each(v)
    }
}

/// `guess.lambda_normal == 1.0`: a scalar value equal to `x`.
impl PartialEq<f64> for PerContact {
    fn eq(&self, x: &f64) -> bool {
        matches!(self, PerContact::All(y) if y == x)
    }
}

impl Serialize for PerContact {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PerContact::All(x) => s.serialize_f64(*x),
            PerContact::Each(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PerContact {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = PerContact;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a list of numbers (one per contact)")
            }
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<PerContact, E> {
                Ok(PerContact::All(x))
            }
            fn visit_i64<E: serde::de::Error>(self, x: i64) -> Result<PerContact, E> {
                Ok(PerContact::All(x as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, x: u64) -> Result<PerContact, E> {
                Ok(PerContact::All(x as f64))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<PerContact, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(x) = seq.next_element::<f64>()? {
                    v.push(x);
                }
                Ok(PerContact::Each(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// Initial values of the variables (§5.9). The defaults are nosnoc's (Appendix A,
/// `initial_* = 1` except `initial_Lambda_normal = 0`); states are initialised with `x_0`
/// everywhere and controls with 0. [`InitialGuess::paper`] gives [P]'s choice (all algebraic
/// variables 0). The contact quantities take one number for all contacts or a list with one
/// entry per contact ([`PerContact`]; the three-box script's `λ_n = (0, 0, g, g, g)`, §6.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InitialGuess {
    /// Stage normal forces `λ_n`, at every stage point.
    pub lambda_normal: PerContact,
    /// Stage gaps `y` (stage and right-boundary points).
    pub y_gap: PerContact,
    /// Impulse-level gaps `Y` (and the lifted left-boundary gaps).
    pub big_y_gap: PerContact,
    /// Normal impulses `Λ_n`.
    pub big_lambda_normal: PerContact,
    /// `Υ_+` (`P_vn`).
    pub p_vn: PerContact,
    /// `Υ_−` (`N_vn`).
    pub n_vn: PerContact,
    /// Every friction variable of a contact (stage and impulse level, both models; `α` and
    /// `A_vt` too, `α` clipped to its upper bound 1).
    pub friction: PerContact,
    /// Controls.
    pub u: f64,
    /// Lifted accelerations `z_v`.
    pub z_v: f64,
}

impl Default for InitialGuess {
    fn default() -> Self {
        InitialGuess {
            lambda_normal: PerContact::All(1.0),
            y_gap: PerContact::All(1.0),
            big_y_gap: PerContact::All(1.0),
            big_lambda_normal: PerContact::All(0.0),
            p_vn: PerContact::All(1.0),
            n_vn: PerContact::All(1.0),
            friction: PerContact::All(1.0),
            u: 0.0,
            z_v: 0.0,
        }
    }
}

impl InitialGuess {
    /// [P] §5: all algebraic variables 0.
    pub fn paper() -> InitialGuess {
        InitialGuess {
            lambda_normal: PerContact::All(0.0),
            y_gap: PerContact::All(0.0),
            big_y_gap: PerContact::All(0.0),
            big_lambda_normal: PerContact::All(0.0),
            p_vn: PerContact::All(0.0),
            n_vn: PerContact::All(0.0),
            friction: PerContact::All(0.0),
            u: 0.0,
            z_v: 0.0,
        }
    }

    /// The per-contact fields with their option paths.
    fn per_contact(&self) -> [(&'static str, &PerContact); 7] {
        [
            ("initial_guess.lambda_normal", &self.lambda_normal),
            ("initial_guess.y_gap", &self.y_gap),
            ("initial_guess.big_y_gap", &self.big_y_gap),
            ("initial_guess.big_lambda_normal", &self.big_lambda_normal),
            ("initial_guess.p_vn", &self.p_vn),
            ("initial_guess.n_vn", &self.n_vn),
            ("initial_guess.friction", &self.friction),
        ]
    }

    /// Error naming the field unless every per-contact list has `n_c` entries (called by the
    /// transcription, which knows the model).
    pub fn check_contacts(&self, n_c: usize) -> Result<(), FesdjError> {
        for (name, x) in self.per_contact() {
            x.check_len(name, n_c)?;
        }
        Ok(())
    }
}

/// All options of the FESD-J transcription (spec Appendix A; names follow nosnoc in snake_case).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FesdjOptions {
    /// Runge–Kutta scheme (`rk_scheme`, default Radau IIA).
    pub scheme: RkScheme,
    /// Number of stages `n_s` (default 2).
    pub n_s: usize,
    /// RK representation (default integral).
    pub rk_representation: RkRepresentation,
    /// Number of control intervals `N` (default 1).
    pub n_intervals: usize,
    /// Finite elements per control interval `N_FE` (`N_finite_elements`, default 2).
    pub n_fe: usize,
    /// Horizon length `T` (default 1).
    #[serde(alias = "T")]
    pub t_final: f64,
    /// `false`: plain implicit time stepping (§4.7; implicit Euler is then forced, as in nosnoc,
    /// whatever `scheme` and `n_s` say).
    pub use_fesd: bool,
    /// Cross-complementarity aggregation (§3.7.5, default `FE_STAGE`).
    pub cross_comp_mode: CrossCompMode,
    /// Step-size bounds `(1 ∓ γ_h) h̄` (15) (default 1).
    pub gamma_h: f64,
    /// Step equilibration (§3.8.4, default `heuristic_mean`).
    pub step_equilibration: StepEquilibration,
    /// Weight `ρ_h` of the step-equilibration penalty (default 1).
    pub rho_h: f64,
    /// `ε_η` of `tanh(η/ε_η)` (`step_equilibration_sigma`, default 0.1).
    pub step_equilibration_sigma: f64,
    /// Friction model (default polyhedral **[spec]**).
    pub friction_model: FrictionModel,
    /// Conic complementarity form (default slip-rate **[spec]**).
    pub conic_formulation: ConicFormulation,
    /// Conic switch handling (default `abs`).
    pub conic_model_switch_handling: ConicSwitchHandling,
    /// Weight `ρ_ϑ` of the tiny cost `Σ ϑ²` that removes the free slip rate without contact in
    /// the slip-rate variant (5') (our default 1e-6; the spec leaves the value open). The same
    /// weight regularises the polyhedral `γ_d`, `Γ_d`, which are equally undetermined without
    /// contact (§7 item 26); 0 disables both.
    pub rho_theta: f64,
    /// Lift the accelerations `z_v` (3) instead of forming `M⁻¹` (default false).
    pub lift_velocity_state: bool,
    /// `ε_c` of the gap constraint (18) (`eps_cls`, default 1e-3; 0 disables it).
    pub eps_cls: f64,
    /// Use `f_c(q_{n,0} + ε_c v_{n,0}) ≥ 0` without the `h_n` factor (default false).
    pub fixed_eps_cls: bool,
    /// No impulse block at the first element of **every** control interval (§3.6, default false).
    pub no_initial_impacts: bool,
    /// Where `no_initial_impacts` removes the impulse block, keep a lifted left-boundary gap
    /// `Y_n = f_c(q_{n,0})` as the `j' = 0` member of the contact cross complementarity (20)
    /// (default true, **[ours]**). §3.7.5 (and nosnoc) omit the member together with the block;
    /// then a stage force may act in element 0 while the gap at its left boundary is positive,
    /// i.e. the ball is caught inside the element without impact — a spurious solution the
    /// homotopy finds (the §8 instance with `no_initial_impacts`, the two balls of §6.1).
    pub initial_element_gap: bool,
    /// With `initial_element_gap`: after another element, the left-boundary gap is that
    /// element's end-point gap variable (`f_c` of the same position by (16)) instead of a lifted
    /// variable with its own row (default false, **[ours]**, §10.1). The feasible set is the
    /// same; the second variable makes both bounds active together wherever a contact stays
    /// closed across the boundary (linearly dependent active constraints).
    pub share_left_gap: bool,
    /// State boxes at element boundaries (default true).
    pub x_box_at_fe: bool,
    /// State boxes at stage points (default true).
    pub x_box_at_stg: bool,
    /// Path constraints also at every element end (default false; always at interval ends).
    pub g_path_at_fe: bool,
    /// Path constraints also at every stage point (default false).
    pub g_path_at_stg: bool,
    /// Initial values of the variables (§5.9).
    pub initial_guess: InitialGuess,
}

impl Default for FesdjOptions {
    fn default() -> Self {
        FesdjOptions {
            scheme: RkScheme::RadauIia,
            n_s: 2,
            rk_representation: RkRepresentation::Integral,
            n_intervals: 1,
            n_fe: 2,
            t_final: 1.0,
            use_fesd: true,
            cross_comp_mode: CrossCompMode::FeStage,
            gamma_h: 1.0,
            step_equilibration: StepEquilibration::HeuristicMean,
            rho_h: 1.0,
            step_equilibration_sigma: 0.1,
            friction_model: FrictionModel::Polyhedral,
            conic_formulation: ConicFormulation::SlipRate,
            conic_model_switch_handling: ConicSwitchHandling::Abs,
            rho_theta: 1e-6,
            lift_velocity_state: false,
            eps_cls: 1e-3,
            fixed_eps_cls: false,
            no_initial_impacts: false,
            initial_element_gap: true,
            share_left_gap: false,
            x_box_at_fe: true,
            x_box_at_stg: true,
            g_path_at_fe: false,
            g_path_at_stg: false,
            initial_guess: InitialGuess::default(),
        }
    }
}

fn finite_nonneg(field: &str, x: f64) -> Result<(), FesdjError> {
    if x.is_finite() && x >= 0.0 {
        Ok(())
    } else {
        Err(invalid(field, format!("must be finite and ≥ 0, got {x}")))
    }
}

impl FesdjOptions {
    /// Check ranges and consistency; the error names the field.
    pub fn validate(&self) -> Result<(), FesdjError> {
        if self.n_s == 0 || self.n_s > MAX_STAGES {
            return Err(invalid(
                "n_s",
                format!("must be in 1..={MAX_STAGES}, got {}", self.n_s),
            ));
        }
        if self.use_fesd && self.scheme == RkScheme::ImplicitEuler && self.n_s != 1 {
            return Err(invalid(
                "n_s",
                format!("implicit Euler has one stage, got n_s = {}", self.n_s),
            ));
        }
        if self.rk_representation == RkRepresentation::Differential {
            return Err(invalid(
                "rk_representation",
                "`differential` is not implemented yet; use `integral`",
            ));
        }
        if self.n_intervals == 0 {
            return Err(invalid("n_intervals", "must be at least 1"));
        }
        if self.n_fe == 0 {
            return Err(invalid("n_fe", "must be at least 1"));
        }
        if !(self.t_final.is_finite() && self.t_final > 0.0) {
            return Err(invalid(
                "t_final",
                format!("must be finite and > 0, got {}", self.t_final),
            ));
        }
        if !(0.0..=1.0).contains(&self.gamma_h) {
            return Err(invalid(
                "gamma_h",
                format!("must be in [0, 1], got {}", self.gamma_h),
            ));
        }
        finite_nonneg("rho_h", self.rho_h)?;
        finite_nonneg("rho_theta", self.rho_theta)?;
        finite_nonneg("eps_cls", self.eps_cls)?;
        let s = self.step_equilibration_sigma;
        if !(s > 0.0 && s <= 1.0) {
            return Err(invalid(
                "step_equilibration_sigma",
                format!("must be in (0, 1], got {s}"),
            ));
        }
        let g = &self.initial_guess;
        for (name, x) in g.per_contact() {
            match x {
                PerContact::All(x) => finite_nonneg(name, *x)?,
                PerContact::Each(v) => {
                    for (l, &x) in v.iter().enumerate() {
                        finite_nonneg(&format!("{name}[{l}]"), x)?;
                    }
                }
            }
        }
        for (name, x) in [("initial_guess.u", g.u), ("initial_guess.z_v", g.z_v)] {
            if !x.is_finite() {
                return Err(invalid(name, format!("must be finite, got {x}")));
            }
        }
        Ok(())
    }

    /// The effective scheme and stage count: implicit Euler for time stepping (§4.7).
    pub fn effective_scheme(&self) -> (RkScheme, usize) {
        if self.use_fesd {
            (self.scheme, self.n_s)
        } else {
            (RkScheme::RadauIia, 1)
        }
    }

    /// Nominal step `h̄ = T / (N N_FE)` (§3.5, §4.2).
    pub fn h_nominal(&self) -> f64 {
        self.t_final / (self.n_intervals * self.n_fe) as f64
    }

    /// True if the step sizes are decision variables: FESD with `γ_h > 0`. With `γ_h = 0` or
    /// time stepping the grid is fixed and `h` enters as the constant `h̄`. (Deviation from
    /// nosnoc, which keeps `h` as variables with equal bounds: together with the clock
    /// constraint (15) that gives linearly dependent constraints, which our solver need not
    /// tolerate.)
    pub fn variable_steps(&self) -> bool {
        self.use_fesd && self.gamma_h > 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate() {
        FesdjOptions::default().validate().unwrap();
    }

    #[test]
    fn errors_name_the_field() {
        let o = FesdjOptions {
            gamma_h: 1.5,
            ..Default::default()
        };
        let e = o.validate().unwrap_err().to_string();
        assert!(e.contains("gamma_h"), "{e}");
    }
}

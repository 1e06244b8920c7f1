//! The result types and settings of the stationarity certificate (formulation §10.8; the
//! check itself is in `stationarity.rs`), apart so that `MpccResult` can hold a certificate
//! without importing the check.

use crate::solver::status::Status;
use serde::Serialize;
use std::time::Instant;

/// The strongest stationarity concept the certificate establishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Stationarity {
    /// Strongly stationary (hence B-stationary).
    #[serde(rename = "S")]
    S,
    /// B-stationary (every branch has multipliers), not S.
    #[serde(rename = "B")]
    B,
    /// M-stationary, not B.
    #[serde(rename = "M")]
    M,
    /// C-stationary, not M.
    #[serde(rename = "C")]
    C,
    /// Weakly stationary only.
    #[serde(rename = "weak")]
    Weak,
    /// Not decided: not solved, not weakly stationary at the tolerance, too many biactive
    /// pairs, time budget, or a numerical failure (see [`Certificate::reason`]).
    #[serde(rename = "unknown")]
    Unknown,
}

impl Stationarity {
    /// The name used in the outputs (`S`, `B`, `M`, `C`, `weak`, `unknown`).
    pub fn name(self) -> &'static str {
        match self {
            Stationarity::S => "S",
            Stationarity::B => "B",
            Stationarity::M => "M",
            Stationarity::C => "C",
            Stationarity::Weak => "weak",
            Stationarity::Unknown => "unknown",
        }
    }

    /// True for a certified B-stationary point (S included).
    pub fn is_b(self) -> bool {
        matches!(self, Stationarity::S | Stationarity::B)
    }
}

impl std::fmt::Display for Stationarity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Settings of the certificate.
#[derive(Clone, Debug, PartialEq)]
pub struct StationaritySettings {
    /// Where the point is not B-stationary, solve the branch NLP of the descent direction from
    /// it once and keep the result if it is better (default true).
    pub descent_step: bool,
    /// Activity threshold of pairs, rows and bounds (`G_i <= tol` counts as zero; rows and
    /// bounds relative to `1 + |bound|`). 0 (default): `√comp_tol` clamped to `[1e-8, 1e-4]`,
    /// the threshold of the polishing step.
    pub active_tol: f64,
    /// Relative stationarity tolerance: a sign pattern has multipliers when the residual
    /// `|∇f - A y|_∞` (gradients of the active constraints normalised) is at most
    /// `tol (1 + max(|∇f|_∞, |μ|_∞))` with `μ` the least-squares multipliers of all active
    /// constraints (or ten times the residual of the weak fit). Default 1e-6.
    pub tol: f64,
    /// Most biactive pairs whose 2^k branches are enumerated (default 12); with more, B is
    /// decided only if S holds or a candidate branch shows descent.
    pub max_biactive: usize,
    /// Most columns of the dense part (biactive sides and weakly active inequalities;
    /// default 300); beyond it the verdict is `unknown`.
    pub max_dense: usize,
    /// Time budget: `max(min_time, time_ratio × homotopy time)` seconds (defaults 0.5 and
    /// 1.0); when exceeded the verdict is `unknown`.
    pub min_time: f64,
    /// See `min_time`.
    pub time_ratio: f64,
    /// Try the homotopy's multipliers as a witness of S before the least-squares fits
    /// (default true; off, every verdict comes from the fits).
    pub homotopy_witness: bool,
}

impl Default for StationaritySettings {
    fn default() -> Self {
        StationaritySettings {
            descent_step: true,
            active_tol: 0.0,
            tol: 1e-6,
            max_biactive: 12,
            max_dense: 300,
            min_time: 0.5,
            time_ratio: 1.0,
            homotopy_witness: true,
        }
    }
}

impl StationaritySettings {
    /// The activity threshold for a homotopy with complementarity tolerance `comp_tol`.
    pub fn active_tol_for(&self, comp_tol: f64) -> f64 {
        if self.active_tol > 0.0 {
            self.active_tol
        } else {
            comp_tol.sqrt().clamp(1e-8, 1e-4)
        }
    }
}

/// The branch NLP solve taken along a descent direction.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DescentStep {
    /// Biactive pairs of the branch with `G_i = 0` fixed (`H_i >= 0` free to grow).
    pub fix_g: Vec<usize>,
    /// Biactive pairs of the branch with `H_i = 0` fixed.
    pub fix_h: Vec<usize>,
    /// Predicted first-order decrease rate `-∇fᵀd/|d|` of the direction (scaled problem).
    pub slope: f64,
    /// Status of the BNLP solve.
    pub status: Status,
    /// IPM iterations of the BNLP solve.
    pub iterations: usize,
    /// Objective at the certified point.
    pub objective_before: f64,
    /// Objective after the BNLP solve (NaN if it failed).
    pub objective_after: f64,
    /// True if the BNLP solution replaced the point (feasible, complementary, lower).
    pub kept: bool,
    /// Wall time of the BNLP solve, seconds.
    pub time_s: f64,
}

/// The stationarity certificate of a point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Certificate {
    /// The verdict (for the final point, after a kept descent step).
    pub verdict: Stationarity,
    /// B-stationarity: `Some(true)` certified, `Some(false)` a descent direction was found,
    /// `None` undecided.
    pub b_stationary: Option<bool>,
    /// Biactive pairs `|I_0|`.
    pub biactive: usize,
    /// Active constraint columns of the stationarity system (rows, bounds, pair sides).
    pub active_columns: usize,
    /// Columns of the dense part (biactive sides and weakly active inequalities).
    pub dense_columns: usize,
    /// The activity threshold used (see [`StationaritySettings::active_tol`]; raised up to
    /// 100-fold where the point is not weakly stationary with the default).
    pub active_tol: f64,
    /// Relative residual `|∇f - A y|_∞ / (1 + max(|∇f|_∞, |μ|_∞))` of the weak fit.
    pub residual: f64,
    /// Sign patterns solved (weak, S, branches, C and M patterns).
    pub patterns: usize,
    /// `(pair, ν_G, ν_H)` of the biactive pairs from the weak fit (one multiplier of the set
    /// when it is not unique).
    pub biactive_multipliers: Vec<(usize, f64, f64)>,
    /// Why the verdict is limited (empty when fully decided).
    pub reason: String,
    /// Where an `S` verdict's multipliers come from: `homotopy` (the relaxed NLP's, mapped to
    /// the MPCC Lagrangian), `least_squares` (the fit of all active columns) or `dense` (the
    /// sign-constrained fit); empty for the other verdicts.
    pub witness: String,
    /// The BNLP step, if one was taken.
    pub descent: Option<DescentStep>,
    /// Wall time of the certificate (descent step included), seconds.
    pub time_s: f64,
}

impl Certificate {
    pub(super) fn unknown(reason: String, t0: Instant) -> Certificate {
        Certificate {
            verdict: Stationarity::Unknown,
            b_stationary: None,
            biactive: 0,
            active_columns: 0,
            dense_columns: 0,
            active_tol: f64::NAN,
            residual: f64::NAN,
            patterns: 0,
            biactive_multipliers: Vec::new(),
            reason,
            witness: String::new(),
            descent: None,
            time_s: t0.elapsed().as_secs_f64(),
        }
    }
}

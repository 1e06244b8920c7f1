//! One solve's result line of a benchmark run (`results.jsonl`), and the names and tolerances
//! of "solved" shared by the runner and the table.

use serde::{Deserialize, Serialize};

/// Complementarity tolerance of "solved".
pub const COMP_TOL: f64 = 1e-9;
/// Constraint-violation tolerance of "solved".
pub const VIOL_TOL: f64 = 1e-6;
/// Objectives agree when `|f_ours - f_ipopt| <= OBJ_RTOL max(|f_ipopt|, OBJ_FLOOR)`.
pub const OBJ_RTOL: f64 = 1e-4;
/// Absolute floor of the objective comparison (objectives of size 1e-16 are zeros).
pub const OBJ_FLOOR: f64 = 1e-4;

/// Our solver's name in the results.
pub const OURS: &str = "ours";
/// IPOPT with `bound_relax_factor = 0`.
pub const IPOPT_BRF0: &str = "ipopt_brf0";
/// IPOPT with its default options.
pub const IPOPT_DEFAULT: &str = "ipopt_default";

/// One solve of one problem (a line of `results.jsonl`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// Problem name (file stem).
    pub problem: String,
    /// Family (name up to the first `_`).
    pub family: String,
    /// `ours`, `ipopt_brf0` or `ipopt_default`.
    pub solver: String,
    /// Status reported by the solver, or what went wrong (`Timeout`, `ExportError`, `Crash`).
    pub status: String,
    /// Status `Solved`, complementarity ≤ 1e-9 and violation ≤ 1e-6.
    pub solved: bool,
    /// Objective at the returned point (NaN when none).
    #[serde(default = "nan", with = "opt_f64")]
    pub objective: f64,
    /// `max_i min(G_i, H_i)` at the returned point.
    #[serde(default = "nan", with = "opt_f64")]
    pub comp_residual: f64,
    /// Constraint violation at the returned point.
    #[serde(default = "nan", with = "opt_f64")]
    pub max_constraint_violation: f64,
    /// The solver's homotopy time, seconds.
    #[serde(default = "nan", with = "opt_f64")]
    pub time_s: f64,
    /// Wall time of the child process, seconds.
    #[serde(default = "nan", with = "opt_f64")]
    pub wall_s: f64,
    /// Relaxed NLPs solved.
    #[serde(default)]
    pub homotopy_steps: usize,
    /// Total NLP iterations.
    #[serde(default)]
    pub nlp_iterations: usize,
    /// Per-step record of the solver (σ, status, iterations, residual), as the solver wrote it.
    #[serde(default)]
    pub steps: serde_json::Value,
    /// Stationarity verdict of ours' certificate (`S`, `B`, `M`, `C`, `weak`, `unknown`;
    /// empty for IPOPT and for results written before the certificate existed).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stationarity: String,
    /// The certificate's branch-NLP step, if one was taken: `{kept, objective_before,
    /// objective_after}` (null otherwise).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub descent: serde_json::Value,
    /// Ours' second homotopy path (`{sigma0, status, objective, kept, …}` of `fesdj mpcc
    /// solve --json`; null when it did not run).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub second_path: serde_json::Value,
    /// Error text (stderr tail) when the child failed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}

fn nan() -> f64 {
    f64::NAN
}

/// Non-finite numbers as JSON `null` (serde_json cannot write NaN).
mod opt_f64 {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_none()
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

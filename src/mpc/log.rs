//! The log of a closed-loop run ([`ClosedLoopLog`]): one [`TickLog`] per control tick and a
//! [`Summary`]. A leaf of the `mpc` module: [`MpcError::PlantFailed`](super::MpcError) carries
//! the log of the ticks before a failed plant step.

use serde::Serialize;

use crate::solver::mpcc::HomotopyStep;
use crate::solver::Status;

use super::counters::{Counters, Planner};
use super::plan::PlanSource;
use super::stats::percentile;

/// One control tick of the log.
#[derive(Clone, Debug, Serialize)]
pub struct TickLog {
    /// Time of the tick.
    pub t: f64,
    /// True plant positions.
    pub q: Vec<f64>,
    /// True plant velocities.
    pub v: Vec<f64>,
    /// Applied control.
    pub u: Vec<f64>,
    /// Which plan was in charge after the solve.
    pub source: PlanSource,
    /// Status of the tick's solve.
    pub status: Status,
    /// Wall-clock time of the tick's solve attempt, seconds (verified or not: what a real-time
    /// loop pays every tick; with a backup controller, both solves).
    pub solve_time_s: f64,
    /// Homotopy steps of the solve attempt.
    pub homotopy_steps: usize,
    /// Interior-point iterations of the solve attempt (with a backup controller, its
    /// iterations included).
    pub nlp_iterations: usize,
    /// Whose plan was in charge after the solve (the backup's when the controller has one
    /// and its own solve was not verified).
    pub planner: Planner,
    /// The backup controller's part of `nlp_iterations` (0 without one).
    pub backup_nlp_iterations: usize,
    /// The relaxed NLPs of the tick's solve attempt (σ, status, iterations, residual).
    pub homotopy: Vec<HomotopyStep>,
    /// The plant step failed to converge. Always false in a returned log: a failed plant step
    /// ends the run with [`MpcError::PlantFailed`](super::MpcError::PlantFailed) (kept for the log format).
    pub plant_failed: bool,
    /// Interior-point iterations of the plant step (every attempt, sub-steps included).
    pub plant_nlp_iterations: usize,
}

/// The start-up solve of a run ([`super::ClosedLoopOptions::startup_budget_s`]): before the
/// first tick, at the initial state; not a tick (its time is not in the tick statistics, its
/// solve is in the counters).
#[derive(Clone, Debug, Serialize)]
pub struct StartupLog {
    /// Which plan was in charge after the solve.
    pub source: PlanSource,
    /// Status of the solve.
    pub status: Status,
    /// Wall-clock time of the solve, seconds.
    pub solve_time_s: f64,
    /// Homotopy steps.
    pub homotopy_steps: usize,
    /// Interior-point iterations.
    pub nlp_iterations: usize,
    /// The relaxed NLPs of the solve.
    pub homotopy: Vec<HomotopyStep>,
}

/// Statistics of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Median solve time over every attempt (verified or not), seconds.
    pub solve_time_p50_s: f64,
    /// 99th percentile of the solve time, seconds.
    pub solve_time_p99_s: f64,
    /// Largest solve time, seconds.
    pub solve_time_max_s: f64,
    /// Mean number of homotopy steps of the attempts.
    pub homotopy_steps_mean: f64,
    /// Controller counters (solves, verified, failures, deadline misses, fallbacks).
    pub counters: Counters,
    /// Plant steps that did not converge (0 in a returned log, see [`TickLog::plant_failed`]).
    pub plant_failures: usize,
}

/// Log of a closed-loop run.
#[derive(Clone, Debug, Serialize)]
pub struct ClosedLoopLog {
    /// Control period (= plant step), seconds.
    pub dt: f64,
    /// One entry per tick.
    pub ticks: Vec<TickLog>,
    /// Final plant state `(q, v)`.
    pub final_state: Vec<f64>,
    /// Statistics.
    pub summary: Summary,
    /// The start-up solve, when the run had one.
    pub startup: Option<StartupLog>,
}

impl ClosedLoopLog {
    /// The log of `ticks` with its summary.
    pub(super) fn new(
        dt: f64,
        ticks: Vec<TickLog>,
        final_state: Vec<f64>,
        counters: Counters,
    ) -> ClosedLoopLog {
        let mut times: Vec<f64> = ticks
            .iter()
            .map(|k| k.solve_time_s)
            .filter(|s| s.is_finite())
            .collect();
        times.sort_by(f64::total_cmp);
        let hs: Vec<f64> = ticks
            .iter()
            .filter(|k| k.solve_time_s.is_finite())
            .map(|k| k.homotopy_steps as f64)
            .collect();
        let summary = Summary {
            solve_time_p50_s: percentile(&times, 0.5),
            solve_time_p99_s: percentile(&times, 0.99),
            solve_time_max_s: times.last().copied().unwrap_or(0.0),
            homotopy_steps_mean: if hs.is_empty() {
                0.0
            } else {
                hs.iter().sum::<f64>() / hs.len() as f64
            },
            counters,
            plant_failures: 0,
        };
        ClosedLoopLog {
            dt,
            ticks,
            final_state,
            summary,
            startup: None,
        }
    }
}

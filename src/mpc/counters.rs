//! [`Counters`] of a controller's life and [`TickStats`] of its last tick.

use serde::Serialize;

/// Counters of a controller's life (for diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Calls of [`Controller::solve`](super::Controller::solve).
    pub solves: u64,
    /// Solves that produced a verified plan.
    pub verified: u64,
    /// Solves that did not (including deadline misses).
    pub failures: u64,
    /// Solves stopped by the deadline with no fresh plan for the tick (with a backup
    /// controller: neither this controller's nor the backup's).
    pub deadline_misses: u64,
    /// Ticks that ended on the fallback law.
    pub fallbacks: u64,
    /// Cold starts (first solve, and the first after a failure).
    pub cold_starts: u64,
    /// Warm starts from the last solution moved by one control interval (the others start
    /// from it in place; see [`ControllerSettings::shift`](super::ControllerSettings::shift)).
    pub shifted_starts: u64,
    /// Solves from a measured state that penetrated a contact and was projected
    /// ([`Controller::set_gap_projection`](super::Controller::set_gap_projection)).
    pub projected_states: u64,
    /// Solves without the gait library's contact schedule because the previous scheduled one
    /// failed ([`ControllerSettings::gait_schedule_from`](super::ControllerSettings::gait_schedule_from)).
    pub unscheduled_solves: u64,
    /// Ticks whose plan in charge is the backup controller's
    /// ([`Controller::set_backup`](super::Controller::set_backup)): this controller's solve was
    /// not verified **[ours]**.
    pub backup_plans: u64,
    /// This controller's solves stopped by the deadline on ticks the backup's fresh plan
    /// served (not deadline misses of the tick).
    pub primary_deadline_stops: u64,
    /// Solves without a warm start of their own that started from the backup's fresh plan
    /// (at the warm σ₀, primal point only).
    pub seeded_starts: u64,
}

/// Which controller's plan a tick left in charge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Planner {
    /// The controller's own problem.
    #[default]
    Primary,
    /// Its backup controller ([`Controller::set_backup`](super::Controller::set_backup)).
    Backup,
}

/// What the last call of [`Controller::solve`](super::Controller::solve) cost, and whose plan
/// it left in charge.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TickStats {
    /// Time of the tick's solve, seconds: of this controller's homotopy without a backup;
    /// with one, the wall-clock time of the whole tick (both solves, seeding, verification and
    /// tail simulations).
    pub solve_time_s: f64,
    /// Interior-point iterations of the tick's solves.
    pub nlp_iterations: usize,
    /// Homotopy steps of this controller's solve.
    pub homotopy_steps: usize,
    /// Whose plan is in charge after the tick.
    pub planner: Planner,
    /// The backup's part of `nlp_iterations`.
    pub backup_nlp_iterations: usize,
}

impl Default for TickStats {
    fn default() -> TickStats {
        TickStats {
            solve_time_s: f64::NAN,
            nlp_iterations: 0,
            homotopy_steps: 0,
            planner: Planner::Primary,
            backup_nlp_iterations: 0,
        }
    }
}

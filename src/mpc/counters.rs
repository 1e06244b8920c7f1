//! [`Counters`] of a controller's life.

/// Counters of a controller's life (for diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Calls of [`Controller::solve`](super::Controller::solve).
    pub solves: u64,
    /// Solves that produced a verified plan.
    pub verified: u64,
    /// Solves that did not (including deadline misses).
    pub failures: u64,
    /// Solves stopped by the deadline.
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
}

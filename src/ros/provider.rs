//! The contract between the node and whatever computes plans (the MPC controller).
//!
//! The node owns the communication: it validates incoming state, calls a [`PlanProvider`] once
//! per control tick with the latest valid [`RobotState`], checks the returned [`JointPlan`] and
//! publishes it. The provider never sees rejected data. Buffers are owned by the node and
//! reused: `plan` fills a `&mut Plan` in place, so a provider that keeps its sizes allocates
//! nothing per tick on this path.

pub use super::plan_view::PlanView;
pub use super::state::{BaseState, RobotState};

/// Error type of provider calls: any error, reported in diagnostics and service replies.
pub type ProviderError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// How a plan came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PlanStatus {
    /// Converged to the requested tolerances.
    #[default]
    Solved,
    /// The best verified iterate at the deadline (feasible, not fully converged).
    Acceptable,
    /// Not a new solution: the remainder of the last verified plan, or the safe fallback.
    Fallback,
}

impl PlanStatus {
    /// Lower-case name used in diagnostics.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanStatus::Solved => "solved",
            PlanStatus::Acceptable => "acceptable",
            PlanStatus::Fallback => "fallback",
        }
    }
}

/// Solver statistics of one plan (reported on `/diagnostics`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PlanStats {
    /// Wall time spent solving (s).
    pub solve_time: f64,
    /// Homotopy (σ-continuation) steps.
    pub homotopy_steps: u32,
    /// Interior-point iterations, all homotopy steps together.
    pub iterations: u32,
    /// Whether the deadline was hit before convergence.
    pub deadline_missed: bool,
}

/// A planned trajectory over the horizon plus the command to apply now.
///
/// `K = times.len()` grid points; `q`, `v`, `u` are row-major `K × n_joints` in the order of
/// `joint_names` (`u` is 0 for joints without an actuator; for the last point repeat the last
/// control). `effort` has one entry per effort joint, in `effort_joints` order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JointPlan {
    /// Grid times in seconds after the state stamp, non-decreasing, `times[0] ≥ 0`.
    pub times: Vec<f64>,
    /// Positions, `K × n_joints`.
    pub q: Vec<f64>,
    /// Velocities, `K × n_joints`.
    pub v: Vec<f64>,
    /// Efforts, `K × n_joints`.
    pub u: Vec<f64>,
    /// Effort command to apply now, one per effort joint.
    pub effort: Vec<f64>,
    /// How it was obtained.
    pub status: PlanStatus,
    /// Solver statistics.
    pub stats: PlanStats,
}

/// Why a plan returned by a provider is not published.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanDefect {
    /// No grid points.
    #[error("plan has no grid points")]
    Empty,
    /// A matrix or the effort vector has the wrong size.
    #[error("plan field '{field}' has {got} values, expected {expected}")]
    WrongSize {
        /// Field name.
        field: &'static str,
        /// Expected length.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// A NaN or infinite value.
    #[error("plan field '{field}' has a non-finite value at index {index}")]
    NonFinite {
        /// Field name.
        field: &'static str,
        /// Flat index.
        index: usize,
    },
    /// Times negative or decreasing.
    #[error("plan times must start at ≥ 0 and not decrease (index {index})")]
    BadTimes {
        /// First bad index.
        index: usize,
    },
}

impl JointPlan {
    /// Resizes every field for `k` points, `n_joints` joints and `n_effort` effort joints,
    /// keeping capacity (no allocation once the buffers have grown to size).
    pub fn resize(&mut self, k: usize, n_joints: usize, n_effort: usize) {
        self.times.resize(k, 0.0);
        self.q.resize(k * n_joints, 0.0);
        self.v.resize(k * n_joints, 0.0);
        self.u.resize(k * n_joints, 0.0);
        self.effort.resize(n_effort, 0.0);
    }

    /// Number of grid points.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there are no grid points.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Checks sizes, finiteness and time order for `n_joints` and `n_effort`.
    pub fn check(&self, n_joints: usize, n_effort: usize) -> Result<(), PlanDefect> {
        let k = self.times.len();
        if k == 0 {
            return Err(PlanDefect::Empty);
        }
        for (field, data, expected) in [
            ("q", &self.q, k * n_joints),
            ("v", &self.v, k * n_joints),
            ("u", &self.u, k * n_joints),
            ("effort", &self.effort, n_effort),
        ] {
            if data.len() != expected {
                return Err(PlanDefect::WrongSize {
                    field,
                    expected,
                    got: data.len(),
                });
            }
        }
        for (field, data) in [
            ("times", &self.times),
            ("q", &self.q),
            ("v", &self.v),
            ("u", &self.u),
            ("effort", &self.effort),
        ] {
            if let Some(index) = data.iter().position(|x| !x.is_finite()) {
                return Err(PlanDefect::NonFinite { field, index });
            }
        }
        if self.times[0] < 0.0 {
            return Err(PlanDefect::BadTimes { index: 0 });
        }
        if let Some(i) = self.times.windows(2).position(|w| w[1] < w[0]) {
            return Err(PlanDefect::BadTimes { index: i + 1 });
        }
        Ok(())
    }
}

/// What a state fault looks like to the provider (see [`PlanProvider::fallback_effort`]).
pub use super::validate::StateFault;

/// Computes plans for the node: the controller side of the node, apart from any simulated
/// plant ([`crate::mpc::Plant`], attached with `NodeRuntime::set_plant`). The MPC controller
/// implements this; the node calls it from its
/// single control thread, never concurrently.
pub trait PlanProvider {
    /// The state the next [`plan`](Self::plan) must start from: called once per tick (and per
    /// `~/plan` request) right before `plan`, with validated data only.
    fn on_state(&mut self, state: &RobotState);

    /// Plans from the last state given to [`on_state`](Self::on_state) into `plan` (sized by
    /// the provider with [`JointPlan::resize`]), within the provider's own solve budget (the MPC
    /// provider's is the problem file's `mpc.deadline_s`).
    fn plan(&mut self, plan: &mut JointPlan) -> Result<(), ProviderError>;

    /// Called on a tick without a valid, fresh state (nothing was planned). The provider may
    /// write a safe effort command (e.g. damping, or the remainder of its last verified plan) —
    /// one entry per effort joint — and return `true` to have it published on
    /// `~/effort_command`. The default publishes nothing.
    fn fallback_effort(&mut self, fault: &StateFault, effort: &mut [f64]) -> bool {
        let _ = (fault, effort);
        false
    }

    /// Called on a tick whose [`plan`](Self::plan) failed (nothing was published). The provider
    /// may write a safe effort command (its fallback law) — one entry per effort joint — and
    /// return `true` to have it published on `~/effort_command`. The default publishes nothing.
    fn failure_effort(&mut self, effort: &mut [f64]) -> bool {
        let _ = effort;
        false
    }

    /// Called between plan ticks, at `command_rate_hz`, with the latest validated state (not
    /// passed to [`on_state`](Self::on_state)): the provider may write an effort command from
    /// its plan in charge and that state (e.g. the plan's control plus feedback on the
    /// predicted trajectory) and return `true` to have it published on `~/effort_command`.
    /// The default publishes nothing (the last command stays in force).
    fn track(&mut self, state: &RobotState, effort: &mut [f64]) -> bool {
        let _ = (state, effort);
        false
    }

    /// The blended `cmd_vel` command `(vₓ, v_y, ω)` (heading frame: forward m/s, lateral m/s,
    /// yaw rate rad/s; finite and within the configured limits) for the next plans: called on
    /// every tick (and `~/plan` request) before [`on_state`](Self::on_state) once a command
    /// was received (with `floating_base`), never before. Returns whether the provider tracks
    /// it; the default ignores it (`false`).
    fn set_velocity_command(&mut self, cmd: [f64; 3]) -> bool {
        let _ = cmd;
        false
    }

    /// Called after a plan from [`plan`](Self::plan) passed the node's checks and was
    /// published: the provider may describe it for RViz (base pose, contact points and forces
    /// per plan point, see [`PlanView`]) and return `true` to have `~/planned_path` and
    /// `~/planned_markers` published. The default publishes nothing.
    fn plan_view(&mut self, view: &mut PlanView) -> bool {
        let _ = view;
        false
    }

    /// `~/reset`: drop warm starts and internal state.
    fn reset(&mut self) -> Result<(), ProviderError>;

    /// `~/enable`: the node starts (`true`) or stops (`false`) publishing commands.
    fn enable(&mut self, enabled: bool) -> Result<(), ProviderError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_check_finds_each_defect() {
        let mut p = JointPlan::default();
        assert_eq!(p.check(2, 1), Err(PlanDefect::Empty));
        p.resize(3, 2, 1);
        p.times.copy_from_slice(&[0.0, 0.1, 0.2]);
        assert_eq!(p.check(2, 1), Ok(()));
        assert!(matches!(
            p.check(3, 1),
            Err(PlanDefect::WrongSize { field: "q", .. })
        ));
        p.v[4] = f64::NAN;
        assert_eq!(
            p.check(2, 1),
            Err(PlanDefect::NonFinite {
                field: "v",
                index: 4
            })
        );
        p.v[4] = 0.0;
        p.times[2] = 0.05;
        assert_eq!(p.check(2, 1), Err(PlanDefect::BadTimes { index: 2 }));
        p.times[0] = -1.0;
        assert_eq!(p.check(2, 1), Err(PlanDefect::BadTimes { index: 0 }));
    }

    #[test]
    fn resize_keeps_capacity() {
        let mut p = JointPlan::default();
        p.resize(10, 3, 3);
        let cap = p.q.capacity();
        let ptr = p.q.as_ptr();
        p.resize(5, 3, 3);
        p.resize(10, 3, 3);
        assert_eq!(p.q.capacity(), cap);
        assert_eq!(p.q.as_ptr(), ptr);
    }
}

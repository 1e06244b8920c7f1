//! [`Plant`]: what a controller's commands act on in a simulation: the FESD-J
//! [`Simulator`] today (with its own sub-stepping fallback), others later. Used by
//! [`run_closed_loop`](super::run_closed_loop) and by the ROS node's internal plant
//! (`sim: true`); a real robot is no plant, only topics (as ros2_control separates
//! controllers from hardware).

use crate::fesdj::Simulator;
use crate::solver::Status;

use super::MpcError;

/// The outcome of one plant step.
#[derive(Clone, Copy, Debug)]
pub struct PlantStep {
    /// Status of the step's last attempt (a success when the step converged).
    pub status: Status,
    /// Solver iterations the step took (all attempts).
    pub nlp_iterations: usize,
}

impl PlantStep {
    /// Whether the step converged; otherwise [`Plant::state`] is no state of the plant.
    pub fn converged(&self) -> bool {
        self.status.is_success()
    }
}

/// A simulated plant with a fixed step: `x = (q, v)`, the control held over one step.
pub trait Plant {
    /// Length of one step, seconds.
    fn step_time(&self) -> f64;
    /// The state after the last step (`2 n_q`).
    fn state(&self) -> &[f64];
    /// Integrate one step from `x` with control `u`; the end state is then in
    /// [`Plant::state`] (meaningful only when the step converged).
    fn step(&mut self, x: &[f64], u: &[f64]) -> Result<PlantStep, MpcError>;
}

impl Plant for Simulator {
    fn step_time(&self) -> f64 {
        Simulator::step_time(self)
    }
    fn state(&self) -> &[f64] {
        Simulator::state(self)
    }
    fn step(&mut self, x: &[f64], u: &[f64]) -> Result<PlantStep, MpcError> {
        let r = Simulator::step(self, x, u)?;
        Ok(PlantStep {
            status: r.stats.status,
            nlp_iterations: r.stats.nlp_iterations,
        })
    }
}
